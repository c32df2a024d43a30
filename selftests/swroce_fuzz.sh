#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Hostile packets (issue 4): build/selftests/swroce_fuzz attacks a swroce
# device with live QPs for SWR_FUZZ_SECS (default 60) seconds. Topology,
# built here and removed at the end:
#
#   netns swr-fa: fz0 10.79.1.1/24 fd79::1/64, device swrf0 (the victim)
#     | veth
#   netns swr-fb: fz1 10.79.1.2/24 fd79::2/64, device swrf1 (its peer;
#                 the fuzzer's sockets live here)
#
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed. TAP on stdout; a kernel splat fails the guest run.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"

cleanup() {
	rdma link del swrf0 2>/dev/null
	rdma link del swrf1 2>/dev/null
	ip netns del swr-fa 2>/dev/null
	ip netns del swr-fb 2>/dev/null
}
trap cleanup EXIT
cleanup

if ! { ip netns add swr-fa && ip netns add swr-fb; }; then
	tap_bail "ip netns add"
fi
if ! { ip link add fz0 type veth peer name fz1 &&
	ip link set fz0 netns swr-fa && ip link set fz1 netns swr-fb; }; then
	tap_bail "veth pair"
fi
# addr NS IF N: 10.79.1.N and fd79::N on IF
addr() {
	ip -n "$1" addr add "10.79.1.$3/24" dev "$2" &&
		ip -n "$1" -6 addr add "fd79::$3/64" dev "$2" nodad &&
		ip -n "$1" link set "$2" up && ip -n "$1" link set lo up
}
addr swr-fa fz0 1 || tap_bail "addresses on fz0"
addr swr-fb fz1 2 || tap_bail "addresses on fz1"
ip netns exec swr-fa rdma link add swrf0 type swroce netdev fz0 &&
	ip netns exec swr-fb rdma link add swrf1 type swroce netdev fz1
tap_ok $? "two swroce devices across a veth"
# the GIDs appear asynchronously after the addresses
for _ in $(seq 50); do
	grep -qs 'fd79' /sys/class/infiniband/swrf0/ports/1/gids/* &&
		grep -qs 'fd79' /sys/class/infiniband/swrf1/ports/1/gids/* &&
		grep -qs ':0a4f:0101' /sys/class/infiniband/swrf0/ports/1/gids/* &&
		break
	sleep 0.1
done

log=/tmp/swr-fuzz.log
bin=$(dirname "$0")/../build/selftests/swroce_fuzz
SWR_FUZZ_DEV=swrf0 SWR_FUZZ_PEER=swrf1 SWR_FUZZ_SECS=${SWR_FUZZ_SECS:-60} \
	SWR_FUZZ_NETNS=swr-fb timeout 300 "$bin" >$log 2>&1
rc=$?
sed -e 's/^/# /' $log
tap_ok $rc "fuzzer: bystanders intact, drops counted by reason"

rdma link del swrf0 && rdma link del swrf1
tap_ok $? "rdma link del of the attacked device and its peer"
left=$(find /sys/class/infiniband/ -maxdepth 1 -name 'swrf*' | wc -l)
tap_ok "$left" = 0 "devices gone"

tap_done
