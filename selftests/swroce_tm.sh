#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Tag matching SRQs (issue 13): the C test (swroce_tm.c), first on the
# test device (sender and receiver on swroce0: the same-device path, where
# the poller places the message), then across a veth between two swroce
# devices in two network namespaces (the wire: the responder in softirq
# matches on the first packet's TMH):
#
#   netns swr-tma: tm0 10.97.1.1/24, device swrtm0
#     | veth
#   netns swr-tmb: tm1 10.97.1.2/24, device swrtm1
#
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed and swroce0 on veth0 (10.77.0.1). TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

bin=$(dirname "$0")/../build/selftests/swroce_tm

ns_pair_owned swr-tma swr-tmb swrtm0 swrtm1

wait_gid swroce0 "$(v4gid 10.77.0.1)"
tap_ok $? "swroce0 has its IPv4 RoCE v2 GID"
tap_c_test "same device" "$bin"

if ns_pair swr-tma swr-tmb tm0 tm1 97.1 97 swrtm0 swrtm1; then
	tap_ok 0 "two swroce devices in two namespaces"
	tx=$(hw_counter swrtm0 tx_pkts)
	tap_c_test "wire" "$bin" SWR_TM_A=swrtm0 SWR_TM_B=swrtm1
	tap_ok "$(($(hw_counter swrtm0 tx_pkts) > tx && $(hw_counter swrtm1 rx_pkts) > 0))" = 1 \
		"wire: the tagged traffic went through the veth (tx/rx counters)"
else
	tap_ok 1 "two swroce devices in two namespaces"
fi

tap_done
