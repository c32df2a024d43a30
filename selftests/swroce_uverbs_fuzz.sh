#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The uverbs fuzzer (issue 11): build/selftests/swroce_uverbs_fuzz drives
# two swroce devices through uverbs for SWROCE_FUZZ_SECONDS (default 60)
# while this script takes them away and back under it: rdma link del/add,
# the netdev deleted and created again, MTU changes, link down/up.
# Topology, in init_net, built here and removed at the end:
#
#   uvf0 10.80.1.1/24 fd80::1/64, device swruv0
#     | veth
#   uvf1 10.80.1.2/24 fd80::2/64, device swruv1
#
# Afterwards both devices (created again if need be) must carry RC SEND,
# WRITE and READ byte-exact, and the kernel log must show no splat since
# the step began.
#   SWROCE_FUZZ_SECONDS   how long to fuzz (a long run: 600 and more)
#   SWROCE_FUZZ_SEED      the fuzzer's seed (default: chosen and printed)
#   SWROCE_FUZZ_ARGS      more fuzzer options: -w workers, -j threads per
#                         worker, -k mean ms between kills
# Runs as root inside the test guest (selftests/run-guest.sh) with the
# provider installed. TAP on stdout.

set -u
dir=$(dirname "$0")
# shellcheck source=selftests/tap.sh
. "$dir/tap.sh"
# shellcheck source=selftests/net.sh
. "$dir/net.sh"
# shellcheck source=selftests/kmsg.sh
. "$dir/kmsg.sh"

secs=${SWROCE_FUZZ_SECONDS:-60}
fuzz=$dir/../build/selftests/swroce_uverbs_fuzz
traffic=$dir/../build/selftests/swroce_traffic
tmp=$(mktemp -d)
kmsg_mark uverbs-fuzz

devs_gone() {
	local _
	for _ in $(seq 100); do
		[ ! -e /sys/class/infiniband/swruv0 ] &&
			[ ! -e /sys/class/infiniband/swruv1 ] && return 0
		sleep 0.1
	done
	return 1
}

# topology: the veth and both devices, whatever is missing of them
topology() {
	if ! ip link show uvf0 >/dev/null 2>&1; then
		devs_gone || return 1
		pair "" "" uvf0 uvf1 80.1 80 || return 1
	fi
	ip link set uvf0 up && ip link set uvf1 up || return 1
	[ -e /sys/class/infiniband/swruv0 ] ||
		rdma link add swruv0 type swroce netdev uvf0 || return 1
	[ -e /sys/class/infiniband/swruv1 ] ||
		rdma link add swruv1 type swroce netdev uvf1 || return 1
	wait_gid swruv0 "$(v4gid 10.80.1.1)" && wait_gid swruv1 "$(v4gid 10.80.1.2)"
}

cleanup() {
	[ -n "${churn_pid:-}" ] && { : >"$tmp/stop"; wait "$churn_pid"; }
	rdma link del swruv0 2>/dev/null
	rdma link del swruv1 2>/dev/null
	ip link del uvf0 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# One change of the devices' world every 2-7 s until $tmp/stop appears;
# each is logged to $tmp/churn as "<kind> <ok|failed> <seconds the change
# took> <seconds the re-creation took>".
churn() {
	local kind ok t0 t1
	while [ ! -e "$tmp/stop" ]; do
		sleep "$((2 + RANDOM % 5)).$((RANDOM % 10))"
		[ -e "$tmp/stop" ] && break
		ok=ok
		t0=$SECONDS
		case $((RANDOM % 6)) in
		0|1)	kind=link-del-add
			rdma link del swruv$((RANDOM % 2)) || ok=failed
			sleep 0.$((RANDOM % 10)) ;;
		2)	kind=netdev-del-create
			ip link del uvf0 || ok=failed
			sleep 0.$((RANDOM % 10)) ;;
		3)	kind=mtu
			ip link set uvf0 mtu "$(shuf -n1 -e 1280 1500 4200 9000)" ||
				ok=failed ;;
		*)	kind=down-up
			ip link set uvf$((RANDOM % 2)) down &&
				sleep 0.$((RANDOM % 10)) || ok=failed ;;
		esac
		t1=$SECONDS
		topology >/dev/null 2>&1 || ok=failed
		echo "$kind $ok $((t1 - t0)) $((SECONDS - t1))" >>"$tmp/churn"
	done
}

topology
tap_ok $? "two swroce devices on a veth (swruv0, swruv1)"

churn &
churn_pid=$!
# niced: the churn and its checks must not starve behind 9 fuzzing threads
# shellcheck disable=SC2086 # SWROCE_FUZZ_ARGS is a list of options
nice -n 10 timeout -k 10 $((secs + 300)) "$fuzz" -t "$secs" -d swruv0,swruv1 \
	${SWROCE_FUZZ_SEED:+-s "$SWROCE_FUZZ_SEED"} ${SWROCE_FUZZ_ARGS:-} \
	>"$tmp/fuzz.log" 2>&1
rc=$?
: >"$tmp/stop"
wait "$churn_pid"
churn_pid=
sed -e 's/^/# /' "$tmp/fuzz.log"
tap_ok $rc "fuzzer ran $secs s: no worker crashed, none stuck in the kernel"

echo "# churns under the fuzzer:"
touch "$tmp/churn"
for k in link-del-add netdev-del-create mtu down-up; do
	echo "#   $k $(grep -c "^$k ok" "$tmp/churn") ($(grep -c "^$k failed" "$tmp/churn") failed)," \
		"the slowest took $(awk -v k="$k" '$1 == k && $3 > m { m = $3 } END { print m + 0 }' "$tmp/churn") s" \
		"(re-creation $(awk -v k="$k" '$1 == k && $4 > m { m = $4 } END { print m + 0 }' "$tmp/churn") s)"
done
tap_ok "$(grep -c failed "$tmp/churn")" = 0 "every device/netdev churn succeeded"

topology
tap_ok $? "devices present again after the fuzzing"
for d in swruv0 swruv1; do
	SWROCE_DEV=$d "$traffic" check >"$tmp/traffic.log" 2>&1
	rc=$?
	sed -e 's/^/# /' "$tmp/traffic.log"
	tap_ok $rc "$d: RC SEND, WRITE, READ byte-exact after the fuzzing"
done

rdma link del swruv0 && rdma link del swruv1 && ip link del uvf0
tap_ok $? "devices and netdevs removed"

splats=$(kmsg_splats uverbs-fuzz)
tap_ok $? "no kernel splat in dmesg since the step began"
[ -z "$splats" ] || sed -e 's/^/# /' <<<"$splats"

tap_done
