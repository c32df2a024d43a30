#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# run-guest.sh [-s] [TEST...]: the whole test plan for one kernel, run as
# root inside the test guest (tools/vm/vm.sh) with swroce.ko loaded.
# Each step writes TAP to build/results/<kver>/<step>.tap, which
# tools/check.sh counts on the host. On a kernel with kmemleak (the debug
# kernel, make check-debug) every step is followed by a leak scan whose
# verdict goes to kmemleak-<step>.tap, the report to <step>.kmemleak.
# Exits 0 once every step has run,
# whatever their results; non-zero only when the plan itself broke off.
#   -s        skip the rdma-core suite
#   TEST...   run only these steps (names as in the list below)
#
# Steps: vm-cpu, abi-layout, packages (not on the debug kernel unless named),
# provider-builddir, link, device, udata, mr, dm, import, parent, cq, ah,
# srq, xrc, tm, odp, qp, qp-errors, raw, rss, fastpath, hostile, isolation,
# killed, bigmsg, counters, trace, disassoc, wire, netdevs, clients, fuzz,
# mcast, loss, qdisc,
# cc-basic, cc (not on the debug kernel unless named), suite, bench-smoke,
# uverbs-fuzz, lifecycle, unload.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kver=$(uname -r)
out=$top/build/results/$kver
ko=${SWROCE_KO:-$top/build/kmod/$kver/swroce.ko}
export SWROCE_KO=$ko
mkdir -p "$out"

run_suite=1
if [ "${1:-}" = -s ]; then
	run_suite=0
	shift
fi
only=" $* "
# SWROCE_SKIP_STEPS: steps make check runs on another kernel only (see
# tools/check.sh); named on the command line, they run.
skip_steps=" ${SWROCE_SKIP_STEPS:-} "
want() { [ "$only" = "  " ] || [[ "$only" == *" $1 "* ]]; }

# kmemleak, where the kernel has it: "clear" right before the first step
# forgets what boot and setup left; after each step two scans five seconds
# apart (kmemleak skips objects younger than 5 s, and RCU-deferred frees
# need a grace period), then whatever it lists is that step's leak.
kml=/sys/kernel/debug/kmemleak
if [ ! -e $kml ] && grep -qw debugfs /proc/filesystems; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi
[ -w $kml ] || kml=
leak_scan() {	# leak_scan STEP
	local name=$1 n
	{
		if ! { echo scan >$kml && sleep 5 && echo scan >$kml &&
		       cat $kml >"$out/$name.kmemleak"; }; then
			echo "not ok 1 - kmemleak: scan after $name failed (kmemleak disabled itself?)"
		elif [ -s "$out/$name.kmemleak" ]; then
			n=$(grep -c '^unreferenced object' "$out/$name.kmemleak")
			echo "not ok 1 - kmemleak: $n unreferenced objects after $name" \
				"(build/results/$kver/$name.kmemleak)"
			head -n 40 "$out/$name.kmemleak" | sed 's/^/# /'
			# report each leak once, with the step that made it
			echo clear >$kml
		else
			rm -f "$out/$name.kmemleak"
			echo "ok 1 - kmemleak: no leak after $name"
		fi
		echo "1..1"
	} | tee "$out/kmemleak-$name.tap"
}

# step NAME CMD...: run CMD with its TAP going to $out/NAME.tap and to us
step() {
	local name=$1 rc t0
	shift
	want "$name" || return 0
	if [ "$only" = "  " ] && [[ "$skip_steps" == *" $name "* ]]; then
		printf 'ok 1 - %s # SKIP make check runs it on the first kernel only (make check-full: on every kernel)\n1..1\n' \
			"$name" | tee "$out/$name.tap"
		return 0
	fi
	echo "## $name"
	t0=$SECONDS
	"$@" 2>&1 | tee "$out/$name.tap"
	rc=${PIPESTATUS[0]}
	# the host prints these after the counts (tools/check.sh)
	printf '%s\t%s\n' "$name" $((SECONDS - t0)) >>"$out/timings.tsv"
	[ -z "$kml" ] || leak_scan "$name"
	return "$rc"
}

# not_on_debug NAME: true but on the debug kernel, where only a step named
# on the command line runs (steps too slow there to test anything more)
not_on_debug() {
	[[ "$kver" != *-swroce-debug ]] || [[ "$only" == *" $1 "* ]]
}

rm -f "$out"/*.tap "$out"/*.kmemleak "$out/timings.tsv"
# An out-of-tree module without MODULE_VERSION has no srcversion: name the
# build by a hash of the file.
echo "## kernel $kver, swroce.ko sha256 $(sha256sum "$ko" | cut -c1-12)"

# Both veth ends with IPv4 and IPv6 addresses: pyverbs and the GID tests
# pick a GID whose netdev has an IP address.
tools/vm/netsetup.sh >/dev/null || { echo "Bail out! netsetup failed"; exit 1; }
# rdma_rxe opens UDP 4791 in init_net when it loads, and fails to load if
# swroce0 (on the wire after its first QP reached RTR) holds the port: load
# it first, whichever steps are selected, as the full run always did.
modprobe rdma_rxe || { echo "Bail out! modprobe rdma_rxe"; exit 1; }
if [ -n "$kml" ]; then
	echo clear >$kml
	echo "## kmemleak: a scan after every step"
fi

# The emulated CPU itself: QEMU 7.2's TCG corrupts EFLAGS around
# CMPXCHG16B, which crashed guests at random (Documentation/testing.rst);
# vm.sh hides CX16 from TCG guests, and this proves the CPU we got is sound.
vm_cpu() {
	local rc
	build/selftests/vm_cpu_flags | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then
		echo "ok 1 - CMPXCHG16B keeps the flags, or the CPU has none (exit $rc)"
	else
		echo "not ok 1 - CMPXCHG16B changes flags other than ZF: run with VM_CPU=max,-cx16"
	fi
	echo "1..1"
}
step vm-cpu vm_cpu
step abi-layout providers/swroce/abi_layout_check.sh
# The Debian packages of make deb: install (DKMS builds swroce.ko in this
# guest), auto-load, use, remove (issue 15). It needs no swroce device and
# no provider installed, so it comes first. DKMS builds for the running
# kernel only, unless SWROCE_PKG_KERNELS=all (make check-packages). Not on
# the debug kernel unless named: a DKMS build there takes a quarter of an
# hour and tests nothing the stock kernels do not.
if not_on_debug packages; then
	step packages selftests/swroce_packages.sh
fi

# The provider from the build directory, before anything is installed.
provider_builddir() {
	local n=0 fail=0 drv=/etc/libibverbs.d/swroce.driver
	rm -f "$drv"
	rdma link add swroce0 type swroce netdev veth0 || {
		echo "Bail out! rdma link add"; return 1; }
	RDMAV_DRIVERS=$top/providers/swroce/libswroce \
		ibv_devinfo -d swroce0 | grep -q PORT_ACTIVE
	if [ $? -eq 0 ]; then n=$((n + 1)); echo "ok $n - provider loads from RDMAV_DRIVERS=<build dir>"
	else n=$((n + 1)); fail=1; echo "not ok $n - provider loads from RDMAV_DRIVERS=<build dir>"; fi
	make -s install >/dev/null && [ -e "$drv" ] &&
		ibv_devinfo -d swroce0 | grep -q PORT_ACTIVE
	if [ $? -eq 0 ]; then n=$((n + 1)); echo "ok $n - provider loads installed (make install)"
	else n=$((n + 1)); fail=1; echo "not ok $n - provider loads installed (make install)"; fi
	# Our provider sits beside every other one: a device of another
	# driver (rxe) must still be listed and opened.
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev veth1 &&
		ibv_devices >"$out/devices.txt" &&
		grep -qw swroce0 "$out/devices.txt" &&
		grep -qw rxe0 "$out/devices.txt" &&
		ibv_devinfo -d rxe0 | grep -q PORT_ACTIVE
	if [ $? -eq 0 ]; then n=$((n + 1)); echo "ok $n - provider coexists with rxe: ibv_devices lists both"
	else n=$((n + 1)); fail=1; echo "not ok $n - provider coexists with rxe: ibv_devices lists both"; fi
	rdma link del rxe0
	rdma link del swroce0
	echo "1..$n"
	return $fail
}
step provider-builddir provider_builddir
# Everything after this uses the installed provider, as users would.
make -s install >/dev/null || { echo "Bail out! make install"; exit 1; }

step link selftests/swroce_link.sh
# The link test takes veth0 down (which drops its IPv6 address) and back:
# start the remaining steps from a fresh pair.
tools/vm/netsetup.sh >/dev/null || { echo "Bail out! netsetup failed"; exit 1; }

# The C selftests and the suite run against swroce0 on veth0; rxe0 on veth1
# is the reference the suite report compares with.
rdma link add swroce0 type swroce netdev veth0 ||
	{ echo "Bail out! rdma link add swroce0"; exit 1; }
export SWROCE_DEV=swroce0
step device build/selftests/swroce_device
step udata build/selftests/swroce_udata
step mr build/selftests/swroce_mr
step dm build/selftests/swroce_dm
step import build/selftests/swroce_import
# A huge page backs one of the rings the parent step places.
hp_old=$(tools/vm/hugepages.sh 4)
step parent build/selftests/swroce_parent
tools/vm/hugepages.sh "$hp_old" >/dev/null
step cq build/selftests/swroce_cq
step ah build/selftests/swroce_ah
step srq build/selftests/swroce_srq
# XRC domains, SRQs and INI/TGT QPs on swroce0 and across two namespaces,
# ibv_xsrq_pingpong on both (swroce_xrc.c).
step xrc selftests/swroce_xrc.sh
# Tag matching SRQs (ibv_post_srq_ops) on swroce0 and across two
# namespaces (swroce_tm.c).
step tm selftests/swroce_tm.sh
# On-demand paging MRs on swroce0 and across two namespaces
# (swroce_odp.c): first accesses fault, remaps, holes, advise_mr.
step odp selftests/swroce_odp.sh
step qp build/selftests/swroce_qp
step qp-errors build/selftests/swroce_qp_errors
# Raw packet QPs and flow steering, locally and across the veth (issue 13).
step raw build/selftests/swroce_raw
# Receive WQs, indirection tables and RSS QPs over them.
step rss build/selftests/swroce_rss
step fastpath build/selftests/swroce_fastpath
step hostile build/selftests/swroce_hostile
step isolation build/selftests/swroce_isolation
step killed build/selftests/swroce_killed
step bigmsg build/selftests/swroce_bigmsg
step counters build/selftests/swroce_counters
# Tracepoints and "rdma res show -dd" of known runs, on two devices of its
# own across a veth (swroce_trace.c).
step trace selftests/swroce_trace.sh
step disassoc build/selftests/swroce_disassoc
# RoCEv2 on the wire: swroce in netns <-> rxe in init_net, and swroce <->
# swroce across two netns (builds and removes its own topology).
step wire selftests/swroce_wire.sh
# The netdev types (VLAN upper, macvlan, ipvlan, bond, dummy, refusals)
# and the standard IB port counters (issue 12).
step netdevs selftests/swroce_netdevs.sh
# UCX, Open MPI and libfabric with their defaults, on one device and on
# two across a veth (issue 17).
step clients selftests/swroce_clients.sh
# Hostile packets at a device with live QPs (swroce_fuzz.c).
step fuzz selftests/swroce_fuzz.sh
# UD multicast across two namespaces (swroce_mcast.c).
step mcast selftests/swroce_mcast.sh
# RC reliability under netem loss, reordering, duplication; exhaustion.
step loss selftests/swroce_loss.sh
# Two RC WRITE flows through tbf with a red/ecn child (issue 11 item 12).
# The guest crashes it used to see were the emulator's (step vm-cpu).
step qdisc selftests/swroce_qdisc.sh
# Congestion control piece by piece: parameters, ECT, CNPs, the switches.
step cc-basic selftests/swroce_cc_basic.sh
# Congestion control (issue 14): 2 and 4 RC WRITE flows through a tbf
# bottleneck with an fq_codel child that marks CE, CC on and off
# (fairness, utilisation, drops, CNPs; CSV and plots in
# build/results/<kver>/cc/; Documentation/congestion.rst). Its figures are
# rates: not on the debug kernel (KASAN and lockdep leave a TCG guest too
# slow to fill the bottleneck) unless named.
if not_on_debug cc; then
	step cc selftests/swroce_cc.sh
fi

# For the suite swroce0 moves to the virtio NIC that vm.sh -n hub gives the
# guest (frames sent there go nowhere; swroce0 talks to itself): the
# rdmacm tests want a device with a parent that has a netdev
# (/sys/class/infiniband/<dev>/device/net/), as on a NIC, which a veth
# has not. Without such a NIC the suite runs on veth0 and skips them.
suite_on_nic() {
	local nic
	nic=$(tools/vm/nic.sh) || return 1
	rdma link del swroce0 &&
		ip addr add 10.77.9.1/24 dev "$nic" &&
		ip -6 addr add fd77:9::1/64 dev "$nic" nodad &&
		ip link set "$nic" up &&
		rdma link add swroce0 type swroce netdev "$nic" &&
		echo "## suite: swroce0 on $nic ($(ethtool -i "$nic" | awk '/^driver/ {print $2}'))"
}
if [ $run_suite = 1 ] && want suite; then
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev veth1 ||
		{ echo "Bail out! rxe0"; exit 1; }
	on_nic=0
	if suite_on_nic; then
		on_nic=1
	elif [ ! -e /sys/class/infiniband/swroce0 ]; then
		echo "Bail out! swroce0 could not move to the NIC"; exit 1
	else
		echo "## suite: swroce0 on veth0 (no NIC from vm.sh -n hub): rdmacm tests skip"
	fi
	step suite tools/rdma-core-suite/run-in-guest.sh -o "$out/suite" \
		-x selftests/rdma-core-xfail.txt swroce0 rxe0
	rdma link del rxe0
	if [ $on_nic = 1 ]; then
		rdma link del swroce0 && rdma link add swroce0 type swroce netdev veth0 ||
			{ echo "Bail out! swroce0 back on veth0"; exit 1; }
	fi
fi

# The benchmark harness (make bench) in a one-minute run, so it never rots:
# each figure measured is a pass, a swroce figure it cannot measure yet a
# skip, an rxe or TCP figure that fails a failure (tools/bench/report.py).
step bench-smoke tools/bench/guest.sh --smoke --tap -o "$out/bench-smoke"

# The uverbs fuzzer (swroce_uverbs_fuzz.c) on devices of its own, which it
# churns under the fuzzer; SWROCE_FUZZ_SECONDS (default 60) sets how long.
step uverbs-fuzz selftests/swroce_uverbs_fuzz.sh
# Processes with work in flight killed, and netdev, netns, device and
# module removed under load, SWROCE_LIFECYCLE_ITERS times (default 3);
# then no leak and no splat. It reloads the module and re-creates swroce0.
step lifecycle selftests/swroce_lifecycle.sh

unload() {
	local n=0 fail=0 left
	rdma link del swroce0
	rmmod swroce
	left=$(grep -l . /sys/class/infiniband/*/swroce/abi_version 2>/dev/null)
	if [ $? -ne 0 ] && ! lsmod | grep -q '^swroce '; then
		n=$((n + 1)); echo "ok $n - rmmod after rdma link del leaves no device"
	else
		n=$((n + 1)); fail=1; echo "not ok $n - rmmod left: $left $(lsmod | grep swroce)"
	fi
	echo "1..$n"
	return $fail
}
step unload unload
echo "## done"
exit 0
