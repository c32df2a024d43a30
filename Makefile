# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# swroce: software RoCEv2 RDMA device.
#
#   make            kernel/swroce.ko (against KDIR) + the provider + selftests
#   make deps       install what a fresh Debian 12 needs (apt-get, idempotent)
#   make check      deps, build, lint, then selftests + rdma-core suite in a
#                   QEMU guest on every pinned kernel; ends "N passed, N failed"
#                   (packages, clients, fuzz, bench-smoke on the first only)
#   make check-full the same with every step on every kernel
#   make check-loaded  the same with two CPU hogs on the host (CHECK_HOGS=2)
#   make run        the demo in a guest
#   make vm         an interactive guest shell (KVER= / KERNEL= to choose)
#   make lint       checkpatch --strict, sparse, W=1 (kernel) and -Werror (user)
#   make kmod-all   swroce.ko for every pinned kernel, in build/kmod/<kver>/
#   make bench      swroce vs rxe benchmarks in one guest (BENCH_KERNEL=6.12)
#   make debug-kernel  build (once per machine, cached in /var/cache/swroce)
#                   a 6.12 kernel with KASAN, lockdep, kmemleak, UBSAN,
#                   debug objects; `make vm KERNEL=debug` boots it
#   make check-debug   deps, build, lint, then the whole guest plan on the
#                   debug kernel, with a kmemleak scan after every step
#   make deb        Debian packages swroce-dkms and ibverbs-providers-swroce
#                   in build/deb
#   make check-packages  the packages step alone, DKMS seeing every
#                   installed kernel (make check: the running one)
#   make check-cc   the congestion-control step alone on both kernels (ECN,
#                   CNPs, DCQCN through a tbf + fq_codel bottleneck; make
#                   check runs it on the first kernel)
#   make check-rdma-core  the provider with rdma-core v39 .. v64, each built
#                   from source (cached in build/rdma-core): ibv_devinfo,
#                   ibv_rc_pingpong, that release's test suite, in a guest
#   make check-two  two hosts: a 6.1 and a 6.12 guest joined by a virtio-net
#                   link, swroce <-> swroce and swroce <-> rxe across it
#   make bench-two  two guests (BENCH_KERNEL) joined by that link: iperf3
#                   TCP, swroce (loss window off and on) and rxe across it
#   make install    the provider into the system libibverbs (DESTDIR=)
#   make modules_install  swroce.ko into /lib/modules/$(KVER)
#
# KVER/KDIR: the kernel to build against. Default: the running kernel when
# its build directory exists, otherwise the newest installed Debian headers.
# RDMA_CORE=<rdma-core source tree, built by its build.sh>: the provider
# against that release (build/provider/<tree>/libswroce-rdmav<PABI>.so)
# instead of Debian 12's libibverbs 44.

TOP := $(CURDIR)
BUILD := $(TOP)/build

KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	  else ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
	  sed 's|.*/linux-headers-||' | sort -V | tail -n 1; fi)
KDIR ?= /lib/modules/$(KVER)/build

CC ?= cc
CFLAGS_USER := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wmissing-prototypes -Wstrict-prototypes -fno-strict-aliasing \
	-I$(TOP)/include/uapi -I$(TOP)/providers/swroce

# The provider: by default against Debian 12's libibverbs 44, whose private
# ABI providers/swroce/ibverbs_private.h declares (layouts asserted). With
# RDMA_CORE=<rdma-core source tree> against that tree, built as its own
# build.sh builds it (RDMA_CORE_BUILD, default <tree>/build): its private
# headers, its libibverbs, its IBVERBS_PABI_VERSION in the file name, and
# what its private API offers probed at build time (swr_features.h).
ifneq ($(RDMA_CORE),)
RDMA_CORE_BUILD ?= $(RDMA_CORE)/build
RDMA_CORE_CONFIG := $(RDMA_CORE_BUILD)/include/config.h
PABI := $(shell sed -n 's/^\#define IBVERBS_PABI_VERSION \([0-9]*\).*/\1/p' \
	$(RDMA_CORE_CONFIG) 2>/dev/null)
PROVIDER_DIR ?= $(BUILD)/provider/$(notdir $(abspath $(RDMA_CORE)))
PROVIDER := $(PROVIDER_DIR)/libswroce-rdmav$(PABI).so
else
PABI := 34
PROVIDER := providers/swroce/libswroce-rdmav34.so
endif
PROVIDER_SRC := $(wildcard providers/swroce/*.c)
PROVIDER_SRC := $(filter-out providers/swroce/abi_layout_check.c,$(PROVIDER_SRC))
PROVIDER_HDR := $(wildcard providers/swroce/*.h) include/uapi/rdma/swroce-abi.h

KSRC_DIR := $(BUILD)/ksrc
KSFT_DIR := $(KSRC_DIR)/tools/testing/selftests
SELFTESTS_C := $(wildcard selftests/*.c)
SELFTESTS := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(SELFTESTS_C))
BENCH_C := $(wildcard tools/bench/*.c)
BENCH_PROGS := $(patsubst tools/bench/%.c,$(BUILD)/bench/bin/%,$(BENCH_C))

.PHONY: all kmod kmod-all provider selftests install modules_install deps lint \
	check check-full check-debug check-loaded check-packages check-two check-cc \
	check-rdma-core debug-kernel run vm clean help bench bench-two bench-progs \
	deb

all: kmod provider selftests

help:
	@sed -n '3,40p' Makefile

kmod:
	@test -d "$(KDIR)" || { echo "swroce: no kernel build directory $(KDIR);" \
		"install linux-headers-$(KVER) or run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

kmod-all:
	tools/build-kmod.sh $(BUILD)/kmod

provider: $(PROVIDER)

PROVIDER_LDFLAGS := -fPIC -shared -fvisibility=hidden -Wl,--no-undefined \
	-Wl,-z,defs

ifeq ($(RDMA_CORE),)
$(PROVIDER): $(PROVIDER_SRC) $(PROVIDER_HDR)
	@providers/swroce/check-libibverbs.sh
	$(CC) $(CFLAGS_USER) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) \
		$(PROVIDER_LDFLAGS) -o $@ $(PROVIDER_SRC) -libverbs
else
$(RDMA_CORE_CONFIG):
	@echo "swroce: $(RDMA_CORE_BUILD) is not a built rdma-core tree; run" \
		"$(RDMA_CORE)/build.sh (or tools/rdma-core/build.sh)" >&2; exit 1

$(PROVIDER_DIR)/swr_features.h: providers/swroce/probe-features.sh \
		$(RDMA_CORE_CONFIG)
	@mkdir -p $(dir $@)
	providers/swroce/probe-features.sh $(RDMA_CORE_BUILD) $@

# swroce-abi.h as the tree's generator makes the kernel-abi/ headers of
# its own providers (the _STRUCT_ macros DECLARE_DRV_CMD() uses).
$(PROVIDER_DIR)/kernel-abi/swroce-abi.h: include/uapi/rdma/swroce-abi.h \
		$(RDMA_CORE_CONFIG)
	@mkdir -p $(dir $@)
	python3 $(RDMA_CORE)/buildlib/make_abi_structs.py $< $@

$(PROVIDER): $(PROVIDER_SRC) $(PROVIDER_HDR) $(PROVIDER_DIR)/swr_features.h \
		$(PROVIDER_DIR)/kernel-abi/swroce-abi.h
	$(CC) $(CFLAGS_USER) -DSWR_RDMA_CORE -I$(PROVIDER_DIR) \
		-I$(RDMA_CORE_BUILD)/include $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) \
		$(PROVIDER_LDFLAGS) -o $@ $(PROVIDER_SRC) \
		-L$(RDMA_CORE_BUILD)/lib -libverbs
endif

selftests: $(SELFTESTS) $(BENCH_PROGS) $(BUILD)/selftests/clients/mpi_pingpong

$(KSFT_DIR)/kselftest_harness.h:
	tools/extract-ksrc.sh $(KSRC_DIR)

$(BUILD)/selftests/%: selftests/%.c $(wildcard selftests/*.h) $(KSFT_DIR)/kselftest_harness.h \
		$(PROVIDER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -Wno-missing-prototypes -Wno-clobbered -Wno-sign-compare -I$(KSFT_DIR) \
		-o $@ $< \
		-libverbs -lpthread

# The clients step's MPI program (Open MPI from make deps).
$(BUILD)/selftests/clients/mpi_pingpong: selftests/clients/mpi_pingpong.c
	@mkdir -p $(dir $@)
	mpicc -O2 -g -Wall -Wextra -Werror -o $@ $<

# The benchmark helpers; `make check` builds them with the selftests because
# the guest's bench-smoke step runs them.
bench-progs: $(BENCH_PROGS)

$(BUILD)/bench/bin/%: tools/bench/%.c tools/bench/bench_common.h \
		selftests/swr_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -Iselftests -o $@ $< -libverbs

bench: provider bench-progs kmod-all
	tools/bench/run.sh $(if $(BENCH_KERNEL),-k $(BENCH_KERNEL))

bench-two: provider kmod-all
	tools/bench/two.sh $(if $(BENCH_KERNEL),-k $(BENCH_KERNEL))

# The provider where the distribution's libibverbs looks for it, and the
# module for the kernel being built against (a real machine; see README).
MULTIARCH := $(shell $(CC) -print-multiarch)
install: provider
	install -D -m 0644 $(PROVIDER) \
		$(DESTDIR)/usr/lib/$(MULTIARCH)/libibverbs/libswroce-rdmav34.so
	install -D -m 0644 providers/swroce/swroce.driver \
		$(DESTDIR)/etc/libibverbs.d/swroce.driver

modules_install: kmod
	$(MAKE) -C $(KDIR) M=$(TOP) modules_install

deps:
	tools/deps.sh

deb:
	tools/make-deb.sh

lint:
	tools/lint.sh

check:
	tools/check.sh

check-full:
	CHECK_FULL=1 tools/check.sh

check-debug:
	CHECK_KERNELS=debug tools/check.sh

check-loaded:
	CHECK_HOGS=$${CHECK_HOGS:-2} tools/check.sh

check-two:
	CHECK_KERNELS=two tools/check.sh

check-rdma-core:
	tools/rdma-core/check.sh

check-cc:
	CHECK_STEPS=cc tools/check.sh

check-packages:
	CHECK_STEPS=packages SWROCE_PKG_KERNELS=all \
		CHECK_TIMEOUT=$${CHECK_TIMEOUT:-10800} tools/check.sh

debug-kernel:
	tools/debug-kernel/build.sh

run:
	tools/run-demo.sh

vm: all kmod-all
	$(if $(filter debug,$(KERNEL)),tools/debug-kernel/build.sh && \
		tools/build-kmod.sh $(BUILD)/kmod $$(tools/kernels.sh resolve debug))
	tools/vm/vm.sh -i $(if $(KERNEL),-k $(KERNEL))

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null
	rm -f $(PROVIDER) providers/swroce/*.o
	rm -rf $(BUILD)
