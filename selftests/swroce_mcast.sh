#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# UD multicast on the wire (issue 4): build/selftests/swroce_mcast between
#
#   netns swr-ma: mv0 10.80.1.1/24 fd80::1/64, device swrm0 (sender)
#     | veth
#   netns swr-mb: mv1 10.80.1.2/24 fd80::2/64, device swrm1 (receivers)
#
# then rdma link del, and no IP multicast membership left behind.
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

cleanup() {
	rdma link del swrm0 2>/dev/null
	rdma link del swrm1 2>/dev/null
	ip netns del swr-ma 2>/dev/null
	ip netns del swr-mb 2>/dev/null
}
trap cleanup EXIT
cleanup

ns_pair swr-ma swr-mb mv0 mv1 80.1 80 swrm0 swrm1
tap_ok $? "two swroce devices across a veth"
wait_gid swrm0 "$(v6gid 80 1)" && wait_gid swrm1 "$(v6gid 80 2)" ||
	tap_bail "IPv6 GIDs on swrm0/swrm1"

log=/tmp/swr-mcast.log
bin=$(dirname "$0")/../build/selftests/swroce_mcast
SWR_MC_SEND=swrm0 SWR_MC_RECV=swrm1 SWR_MC_NS=swr-mb SWR_MC_IF=mv1 \
	SWR_MC_SEND_NS=swr-ma SWR_MC_SEND_IF=mv0 \
	timeout 300 "$bin" >$log 2>&1
rc=$?
sed -e 's/^/# /' $log
tap_ok $rc "multicast: delivery, detach, errors, limits; UD path MTU"

rdma link del swrm1 && rdma link del swrm0
tap_ok $? "rdma link del"
n=$(ip -n swr-mb maddr show dev mv1 | grep -cE '239\.|ff0e:')
tap_ok "$n" = 0 "no multicast group left joined"

tap_done
