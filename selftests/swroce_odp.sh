#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# On-demand paging (issue 13): swroce_odp.c on the test device (client
# and server on swroce0: the same-device path, where the poller faults
# pages in), then across a veth between two swroce devices in two network
# namespaces (the wire: the responder meets unmapped pages in softirq and
# answers RNR NAK while a work item faults them in):
#
#   netns swr-oa: ov0 10.81.1.1/24, device swro0
#     | veth
#   netns swr-ob: ov1 10.81.1.2/24, device swro1
#
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed and swroce0 on veth0 (10.77.0.1). TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

bin=$(dirname "$0")/../build/selftests/swroce_odp

ns_pair_owned swr-oa swr-ob swro0 swro1


L4=$(v4gid 10.77.0.1)
wait_gid swroce0 "$L4"
tap_ok $? "swroce0 has its IPv4 RoCE v2 GID"
tap_c_test "same device" "$bin"

if ns_pair swr-oa swr-ob ov0 ov1 81.1 81 swro0 swro1; then
	tap_ok 0 "two swroce devices in two namespaces"
	tap_c_test "wire" "$bin" SWR_ODP_A=swro0 SWR_ODP_B=swro1
	tap_ok "$(($(hw_counter swro0 tx_pkts) > 0 && $(hw_counter swro1 rx_pkts) > 0))" = 1 \
		"wire: the traffic went through the veth (tx/rx counters)"
	tap_ok "$(($(hw_counter swro1 rnr_nak) > 0))" = 1 \
		"wire: the responder answered faults with RNR NAKs"
else
	tap_ok 1 "two swroce devices in two namespaces"
fi

tap_done
