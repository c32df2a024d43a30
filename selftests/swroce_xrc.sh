#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# XRC (issue 13): the C test (swroce_xrc.c) and ibv_xsrq_pingpong, first
# on the test device (server, client and both ends on swroce0: the
# same-device path), then across a veth between two swroce devices in two
# network namespaces (the wire: XRC opcodes with their XRCETH):
#
#   netns swr-xa: xv0 10.80.1.1/24, device swrx0
#     | veth
#   netns swr-xb: xv1 10.80.1.2/24, device swrx1
#
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed and swroce0 on veth0 (10.77.0.1). TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

T=300
bin=$(dirname "$0")/../build/selftests/swroce_xrc

ns_pair_owned swr-xa swr-xb swrx0 swrx1

# xsrq WHERE SNS SDEV SGID CNS CDEV CGID IP: ibv_xsrq_pingpong, data checked
# by the program itself (it validates each message), exit status 0 both
xsrq() {
	local where=$1
	shift
	pp ibv_xsrq_pingpong "$@" -m 1024 -n 20 -s 4096
	tap_ok $? "$where: ibv_xsrq_pingpong server and client exit 0"
}

L4=$(v4gid 10.77.0.1)
wait_gid swroce0 "$L4"
tap_ok $? "swroce0 has its IPv4 RoCE v2 GID"
tap_c_test "same device" "$bin"
xsrq "same device" "" swroce0 "$L4" "" swroce0 "$L4" 10.77.0.1

if ns_pair swr-xa swr-xb xv0 xv1 80.1 80 swrx0 swrx1; then
	tap_ok 0 "two swroce devices in two namespaces"
	tap_c_test "wire" "$bin" SWR_XRC_A=swrx0 SWR_XRC_B=swrx1
	xsrq "wire" swr-xa swrx0 "$(v4gid 10.80.1.1)" \
		swr-xb swrx1 "$(v4gid 10.80.1.2)" 10.80.1.1
	tap_ok "$(($(hw_counter swrx0 tx_pkts) > 0 && $(hw_counter swrx1 rx_pkts) > 0))" = 1 \
		"wire: the XRC traffic went through the veth (tx/rx counters)"
else
	tap_ok 1 "two swroce devices in two namespaces"
fi

tap_done
