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

cleanup() {
	rdma link del swrm0 2>/dev/null
	rdma link del swrm1 2>/dev/null
	ip netns del swr-ma 2>/dev/null
	ip netns del swr-mb 2>/dev/null
}
trap cleanup EXIT
cleanup

if ! { ip netns add swr-ma && ip netns add swr-mb &&
	ip link add mv0 type veth peer name mv1 &&
	ip link set mv0 netns swr-ma && ip link set mv1 netns swr-mb; }; then
	tap_bail "netns and veth"
fi
# addr NS IF N: 10.80.1.N and fd80::N on IF
addr() {
	ip -n "$1" addr add "10.80.1.$3/24" dev "$2" &&
		ip -n "$1" -6 addr add "fd80::$3/64" dev "$2" nodad &&
		ip -n "$1" link set "$2" up && ip -n "$1" link set lo up
}
addr swr-ma mv0 1 || tap_bail "addresses on mv0"
addr swr-mb mv1 2 || tap_bail "addresses on mv1"
ip netns exec swr-ma rdma link add swrm0 type swroce netdev mv0 &&
	ip netns exec swr-mb rdma link add swrm1 type swroce netdev mv1
tap_ok $? "two swroce devices across a veth"
for _ in $(seq 50); do
	grep -qs 'fd80' /sys/class/infiniband/swrm0/ports/1/gids/* &&
		grep -qs 'fd80' /sys/class/infiniband/swrm1/ports/1/gids/* &&
		break
	sleep 0.1
done

log=/tmp/swr-mcast.log
bin=$(dirname "$0")/../build/selftests/swroce_mcast
SWR_MC_SEND=swrm0 SWR_MC_RECV=swrm1 SWR_MC_NS=swr-mb SWR_MC_IF=mv1 \
	timeout 300 "$bin" >$log 2>&1
rc=$?
sed -e 's/^/# /' $log
tap_ok $rc "multicast: delivery, detach, errors, limits; UD path MTU"

rdma link del swrm1 && rdma link del swrm0
tap_ok $? "rdma link del"
n=$(ip -n swr-mb maddr show dev mv1 | grep -cE '239\.|ff0e:')
tap_ok "$n" = 0 "no multicast group left joined"

tap_done
