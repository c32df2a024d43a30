#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# RoCEv2 on the wire (issue 4). Topology, built here and removed at the end:
#
#   netns swr-a: wv0 10.78.1.1/24 fd78::1/64, device swrw0 (swroce)
#     | veth
#   init_net:    wv1 10.78.1.2/24 fd78::2/64, device rxew0 (rdma_rxe)
#
# rdma_rxe binds UDP 4791 in init_net, so swroce talks to it from its own
# namespace. With WIRE_SWR2=1 a second pair swr-b/swr-c carries swroce <->
# swroce across two namespaces (swrw1, swrw2).
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"
# shellcheck source=selftests/kmsg.sh
. "$(dirname "$0")/kmsg.sh"

# Seconds one pingpong run may take before it counts as hung: minutes,
# as rxe in a TCG guest on a loaded host is slow, not wrong.
T=300

cleanup() {
	rdma link del swrw0 2>/dev/null
	rdma link del rxew0 2>/dev/null
	rdma link del swrw1 2>/dev/null
	rdma link del swrw2 2>/dev/null
	ip netns del swr-a 2>/dev/null
	ip netns del swr-b 2>/dev/null
	ip netns del swr-c 2>/dev/null
	ip link del wv1 2>/dev/null
}
trap cleanup EXIT
cleanup

ip netns add swr-a || tap_bail "ip netns add"
pair swr-a "" wv0 wv1 78.1 78 || tap_bail "veth pair"
modprobe rdma_rxe || tap_bail "modprobe rdma_rxe"

ip netns exec swr-a rdma link add swrw0 type swroce netdev wv0
tap_ok $? "swroce device on a veth in a netns"
rdma link add rxew0 type rxe netdev wv1
tap_ok $? "rxe device on the peer in init_net"

S4=$(v4gid 10.78.1.1) R4=$(v4gid 10.78.1.2)
S6=$(v6gid 78 1) R6=$(v6gid 78 2)
wait_gid swrw0 "$S4" && wait_gid rxew0 "$R4"
tap_ok $? "IPv4 RoCE v2 GIDs present"

# UD, IPv4 and IPv6, both directions
pp ibv_ud_pingpong swr-a swrw0 "$S4" "" rxew0 "$R4" 10.78.1.1 -s 512 -n 200
tap_ok $? "ibv_ud_pingpong IPv4: swroce server, rxe client"
pp ibv_ud_pingpong "" rxew0 "$R4" swr-a swrw0 "$S4" 10.78.1.2 -s 512 -n 200
tap_ok $? "ibv_ud_pingpong IPv4: rxe server, swroce client"
if wait_gid swrw0 "$S6" && wait_gid rxew0 "$R6"; then
	pp ibv_ud_pingpong swr-a swrw0 "$S6" "" rxew0 "$R6" 10.78.1.1 -s 512 -n 200
	tap_ok $? "ibv_ud_pingpong IPv6: swroce server, rxe client"
	pp ibv_ud_pingpong "" rxew0 "$R6" swr-a swrw0 "$S6" 10.78.1.2 -s 512 -n 200
	tap_ok $? "ibv_ud_pingpong IPv6: rxe server, swroce client"
else
	tap_ok 1 "IPv6 RoCE v2 GIDs present"
fi

# RC, UC and SRQ: multi-packet messages (4 KiB at MTU 1024), both ways
for prog in ibv_rc_pingpong ibv_uc_pingpong ibv_srq_pingpong; do
	pp $prog swr-a swrw0 "$S4" "" rxew0 "$R4" 10.78.1.1 -s 4096 -n 100
	tap_ok $? "$prog IPv4: swroce server, rxe client"
	pp $prog "" rxew0 "$R4" swr-a swrw0 "$S4" 10.78.1.2 -s 4096 -n 100
	tap_ok $? "$prog IPv4: rxe server, swroce client"
done
pp ibv_rc_pingpong swr-a swrw0 "$S6" "" rxew0 "$R6" 10.78.1.1 -s 3000 -n 100
tap_ok $? "ibv_rc_pingpong IPv6: swroce server, rxe client"

# perftest bandwidth runs, RC, both directions
for prog in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw; do
	sz="-s 65536"
	[ $prog = ib_atomic_bw ] && sz=""
	# shellcheck disable=SC2086
	pt $prog swr-a swrw0 "$S4" "" rxew0 "$R4" 10.78.1.1 $sz -n 200
	tap_ok $? "$prog: swroce server, rxe client"
	# shellcheck disable=SC2086
	pt $prog "" rxew0 "$R4" swr-a swrw0 "$S4" 10.78.1.2 $sz -n 200
	tap_ok $? "$prog: rxe server, swroce client"
done

# rdma_cm: the passive side's device has no QP until the CM REQ arrives
# (on its GSI QP, over the wire)
rp swr-a "" 10.78.1.1
tap_ok $? "rping (rdma_cm): swroce passive side, rxe active side"
rp "" swr-a 10.78.1.2
tap_ok $? "rping (rdma_cm): rxe passive side, swroce active side"

# wire_rc A B NAME: the C test of RC operations between devices A and B
wire_rc() {
	local bin log rc
	bin=$(dirname "$0")/../build/selftests/swroce_wire_rc
	log=/tmp/swr-wire-rc.log
	SWR_WIRE_A=$1 SWR_WIRE_B=$2 timeout 1200 "$bin" >$log 2>&1
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' $log
	grep -E '^(not )?ok ' $log | sed 's/^/# /'
	tap_ok $rc "$3"
}
wire_rc swrw0 rxew0 "RC SEND/WRITE/READ/atomics, data checked: swroce <-> rxe"

tap_ok "$(($(hw_counter swrw0 rx_pkts) > 0 && $(hw_counter swrw0 tx_pkts) > 0))" = 1 \
	"swroce counted packets sent and received"

# The ICRC's CRC-32 (swr_crc.c): the module measured crc32_le() and the
# crypto API's crc32 when it loaded and uses the faster; each must make
# ICRCs rxe accepts and check rxe's. swrw0 is switched to each in turn.
icrc=/sys/class/infiniband/swrw0/swroce/icrc
dmesg | grep -q "swroce: ICRC by "
tap_ok $? "the module logged which CRC-32 it measured faster"
dmesg | grep "swroce: ICRC by " | tail -n 1 | sed 's/^/# /'
tap_ok "$(cat $icrc)" = "[auto] library crypto" "swroce/icrc: auto by default"
for mode in library crypto; do
	if ! echo $mode >$icrc 2>/dev/null; then
		tap_skip "ICRC by $mode: ibv_rc_pingpong with rxe both ways" \
			"this kernel has no crypto crc32"
		continue
	fi
	echo "# $mode: $(cat /sys/class/infiniband/swrw0/swroce/icrc_impl)"
	bad0=$(hw_counter swrw0 rx_drop_icrc)
	T=120 pp ibv_rc_pingpong swr-a swrw0 "$S4" "" rxew0 "$R4" 10.78.1.1 \
		-s 4096 -n 50 &&
	T=120 pp ibv_rc_pingpong "" rxew0 "$R4" swr-a swrw0 "$S4" 10.78.1.2 \
		-s 4096 -n 50 &&
	[ "$(hw_counter swrw0 rx_drop_icrc)" = "$bad0" ]
	tap_ok $? "ICRC by $mode: ibv_rc_pingpong with rxe both ways, no ICRC drop"
done
echo auto >$icrc
! echo md5 >$icrc 2>/dev/null
tap_ok $? "swroce/icrc refuses an unknown name"

rdma link del rxew0

# swroce <-> swroce across two namespaces
if ! { ip netns add swr-b && ip netns add swr-c &&
	pair swr-b swr-c wv2 wv3 78.2 79; }; then
	tap_bail "second pair"
fi
ip netns exec swr-b rdma link add swrw1 type swroce netdev wv2 &&
	ip netns exec swr-c rdma link add swrw2 type swroce netdev wv3
tap_ok $? "two swroce devices in two namespaces"
B4=$(v4gid 10.78.2.1) C4=$(v4gid 10.78.2.2)
wait_gid swrw1 "$B4" && wait_gid swrw2 "$C4"
pp ibv_ud_pingpong swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 -s 512 -n 200
tap_ok $? "ibv_ud_pingpong IPv4: swroce <-> swroce across namespaces"
for prog in ibv_rc_pingpong ibv_uc_pingpong ibv_srq_pingpong; do
	pp $prog swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 -s 4096 -n 100
	tap_ok $? "$prog IPv4: swroce <-> swroce across namespaces"
done
# device memory as the message buffer (-j), completion timestamps (-t)
pp ibv_rc_pingpong swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 -s 4096 -n 100 -j -c
tap_ok $? "ibv_rc_pingpong -j (device memory), data checked: swroce <-> swroce"
pp ibv_rc_pingpong swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 -s 4096 -n 100 -t
tap_ok $? "ibv_rc_pingpong -t (completion timestamps): swroce <-> swroce"
# on-demand paging: explicit MRs (-o), implicit ones prefetched (-O -P)
pp ibv_rc_pingpong swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 -s 4096 -n 100 -o -c
tap_ok $? "ibv_rc_pingpong -o (ODP), data checked: swroce <-> swroce"
pp ibv_rc_pingpong swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 -s 4096 -n 100 -O -P -c
tap_ok $? "ibv_rc_pingpong -O -P (implicit ODP, prefetched), data checked: swroce <-> swroce"
wire_rc swrw1 swrw2 "RC SEND/WRITE/READ/atomics, data checked: swroce <-> swroce"
rp swr-b swr-c 10.78.2.1
tap_ok $? "rping (rdma_cm): swroce <-> swroce across namespaces"

# Full-sized packets on a 9000-byte veth: path MTU 2048 and 4096, whose
# buffers come from the transmit page pools (kernel/swr_txbuf.c).
ip -n swr-b link set wv2 mtu 9000 && ip -n swr-c link set wv3 mtu 9000
tap_ok $? "veth MTU 9000 between the namespaces"
for m in 2048 4096; do
	pp ibv_rc_pingpong swr-b swrw1 "$B4" swr-c swrw2 "$C4" 10.78.2.1 \
		-m $m -s 65536 -n 100 -c
	tap_ok $? "ibv_rc_pingpong -m $m, data checked: swroce <-> swroce"
done
SWR_WIRE_MTU=4096 wire_rc swrw1 swrw2 \
	"RC SEND/WRITE/READ/atomics at path MTU 4096, data checked: swroce <-> swroce"
# A stream of 4096-byte packets takes its buffers from the pools: fewer
# skb heads of 8 KiB or more from kmalloc() (what alloc_skb() takes for
# such a packet; call site __alloc_skb) than an eighth of the packets
# sent, anywhere in the guest while it runs. Only skb heads count: the
# 9p root file system reads in 8 KiB kmalloc()s too (~350 a run on the
# stock kernels, 2,700 on the debug kernel).
kmalloc_big() {
	local t
	t=$(tracefs_find enable) && [ -e "$t/events/kmem/kmalloc" ] || return 1
	case $1 in
	start)	echo 0 >"$t/tracing_on" && echo >"$t/trace" &&
		echo 'bytes_alloc >= 8192' >"$t/events/kmem/kmalloc/filter" &&
		echo 1 >"$t/events/kmem/kmalloc/enable" && echo 1 >"$t/tracing_on" ;;
	stop)	echo 0 >"$t/tracing_on"
		echo 0 >"$t/events/kmem/kmalloc/enable"
		echo 0 >"$t/events/kmem/kmalloc/filter"
		grep -c 'kmalloc:.*call_site=__alloc_skb' "$t/trace" ;;
	esac
}
tx0=$(hw_counter swrw1 tx_pkts)
if kmalloc_big start; then
	pt ib_write_bw swr-c swrw2 "$C4" swr-b swrw1 "$B4" 10.78.2.2 \
		-m 4096 -s 1048576 -n 40
	rc=$?
	big=$(kmalloc_big stop)
	pkts=$(($(hw_counter swrw1 tx_pkts) - tx0))
	echo "# $pkts packets sent, $big skb heads of 8 KiB or more from kmalloc()"
	tap_ok "$((rc == 0 && pkts >= 40 * 256 && big * 8 < pkts))" = 1 \
		"ib_write_bw 1 MiB at MTU 4096: packet buffers from the page pools"
else
	kmalloc_big stop >/dev/null
	tap_skip "ib_write_bw 1 MiB at MTU 4096: packet buffers from the page pools" \
		"no kmem:kmalloc trace event"
fi

# a namespace that goes away takes its device and its socket along
ip netns del swr-b
wait_for 60 test ! -e /sys/class/infiniband/swrw1
tap_ok "$([ -e /sys/class/infiniband/swrw1 ] && echo present || echo gone)" = gone \
	"netns deletion removes its swroce device"

tap_done
