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
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

cleanup() {
	rdma link del swrf0 2>/dev/null
	rdma link del swrf1 2>/dev/null
	ip netns del swr-fa 2>/dev/null
	ip netns del swr-fb 2>/dev/null
}
trap cleanup EXIT
cleanup

ns_pair swr-fa swr-fb fz0 fz1 79.1 79 swrf0 swrf1
tap_ok $? "two swroce devices across a veth"
wait_gid swrf0 "$(v6gid 79 1)" && wait_gid swrf1 "$(v6gid 79 2)" ||
	tap_bail "IPv6 GIDs on swrf0/swrf1"

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
