#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# deps.sh: install what building and testing swroce needs on Debian 12.
# Idempotent and quick when everything is there already: apt is only
# consulted when a package or a pinned kernel is missing (DEPS_REFRESH=1
# forces it, e.g. to move to the newest kernel of each series).

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

packages=(
	# build
	gcc make kmod xz-utils cpio sparse shellcheck python3 clang
	libibverbs-dev librdmacm-dev
	# make deb: Debian's packaging tools; dkms for the guest's install test;
	# man for the lint of swroce.7, docutils for the .rst documents'
	dpkg-dev debhelper dh-dkms dkms fakeroot man-db python3-docutils
	# kernel source: kselftest harness, checkpatch (extract-ksrc.sh takes
	# them from the newest series), the debug kernel (its series, 6.12)
	linux-source-6.12
	# the guest
	qemu-system-x86 busybox-static iproute2 strace
	# RDMA user space used by the tests and the demo
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	python3-pyverbs infiniband-diags
	# the clients step: UCX, Open MPI, libfabric as Debian ships them
	ucx-utils openmpi-bin libopenmpi-dev libfabric-bin
	# make bench: the TCP reference and the plots (gnuplot-nox: also the
	# cc step's, tools/cc/plot.sh)
	iperf3 gnuplot-nox
	# make check-loaded (CHECK_HOGS): CPU hogs on the host
	stress-ng
	# make check-rdma-core: rdma-core releases built from source, with
	# pyverbs (Debian's cython3 under Debian's python3); git for the tags
	git cmake ninja-build pkg-config libnl-3-dev libnl-route-3-dev
	libudev-dev python3-dev cython3
	# the netdevs step (wireguard) and the two-host test (ping, the NIC's
	# driver, a loop device behind the NVMe-oF target)
	iputils-ping ethtool wireguard-tools util-linux
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing+=("$p")
done
kernels_ok=1
for s in $("$top/tools/kernels.sh" series); do
	"$top/tools/kernels.sh" installed "$s" >/dev/null 2>&1 || kernels_ok=0
done

if [ ${#missing[@]} -eq 0 ] && [ $kernels_ok -eq 1 ] &&
   [ "${DEPS_REFRESH:-0}" != 1 ]; then
	echo "deps: all present"
else
	[ "$(id -u)" -eq 0 ] || {
		echo "deps: need root for apt-get (missing: ${missing[*]})" >&2
		exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	for s in $("$top/tools/kernels.sh" series); do
		v=$("$top/tools/kernels.sh" apt "$s")
		missing+=("linux-image-$v" "linux-headers-$v")
	done
	echo "deps: installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

for s in $("$top/tools/kernels.sh" series); do
	echo "deps: kernel $s -> $("$top/tools/kernels.sh" installed "$s")"
done
