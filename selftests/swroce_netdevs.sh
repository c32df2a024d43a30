#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Every netdev a RoCE user binds to (issue 12), and the standard IB port
# counters. Each topology is two network namespaces, built here and
# removed at the end; in each, swroce binds on both sides, and
# ibv_rc_pingpong (-c: the received data checked), ibv_ud_pingpong and
# rping (-V: the echoed data checked, over rdma_cm) run across:
#
#   ports:   nd-pa pc0 10.81.1.1 =veth= pc1 10.81.1.2 nd-pb (no IPv6,
#            static neighbours, control traffic on a second veth): the
#            port counters against each other and against the veth's
#   upper:   nd-ua ua 10.83.1.1, ua.200 10.83.2.1 (egress-qos-map 3:3) =
#            ub, ub.200 in nd-ub, devices on ua/ub: the VLAN device's
#            address is a GID of the device under it; SL 3 leaves as
#            PCP 3, tagged 200 (a flower filter on ub counts them)
#   macvlan: nd-ma mva 10.84.1.1 / nd-mb mvb 10.84.1.2, bridge mode on
#            one veth of nd-mp
#   ipvlan:  likewise, L2 mode, 10.85.1.x
#   bond:    nd-ba bond ba (ba0, ba1 active-backup) = bb (bb0, bb1) nd-bb,
#            10.86.1.x; the active link goes down mid-transfer
#   lacp:    nd-la bond la (la0, la1 802.3ad) = lb (lb0, lb1) nd-lb,
#            10.90.1.x, once LACP has formed the aggregator
#   tun:     nd-ta tna 10.87.1.1 <-> tnb 10.87.1.2 nd-tb, joined by
#            swr_tunpipe (L3: no MAC, no neighbours; rping skipped: the
#            RDMA core's rdma_cm takes only Ethernet netdevs for RoCE)
#   wireguard: nd-wa wga 10.89.1.1 <-> wgb 10.89.1.2 nd-wb over a veth
#            (likewise L3)
#   reroute: nd-ra ra 10.91.1.1 =veth= rb 10.91.1.2 nd-rb: a route to
#            the peer through a gateway no one answers for, added
#            mid-transfer, takes the traffic at once; removed, it reaches
#            the peer again (transmit looks the route up once per batch
#            and checks it before every packet)
#   dummy:   the namespace's UDP socket lives as long as a device does
#
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

T=300
# SWR_NETDEVS: the parts to run (default all), e.g. "bond tun"
parts=" ${SWR_NETDEVS:-ports upper macvlan bond lacp tun wireguard reroute dummy refused} "
part() { [[ "$parts" == *" $1 "* ]]; }
bin=$(cd "$(dirname "$0")/.." && pwd)/build/selftests
all_ns="nd-pa nd-pb nd-ua nd-ub nd-mp nd-ma nd-mb nd-ip nd-ia
	nd-ib nd-ba nd-bb nd-la nd-lb nd-ta nd-tb nd-wa nd-wb nd-ra nd-rb nd-d"
tunpipe=

cleanup() {
	local ns d
	[ -z "$tunpipe" ] || kill "$tunpipe" 2>/dev/null
	for ns in $all_ns; do
		[ -e "/run/netns/$ns" ] || continue
		# devices first: the namespace's exit would remove them too,
		# but asynchronously
		for d in $(ip netns exec "$ns" rdma link show 2>/dev/null |
			   awk '$2 ~ /^nd/ {sub("/.*", "", $2); print $2}'); do
			ip netns exec "$ns" rdma link del "$d" 2>/dev/null
		done
		ip netns del "$ns"
	done
}
trap cleanup EXIT
cleanup
for ns in $all_ns; do
	ip netns add "$ns" || tap_bail "ip netns add $ns"
	ip -n "$ns" link set lo up
done

# ns_run NS CMD...: CMD in namespace NS
ns_run() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# bind NS DEV NETDEV: a swroce device DEV on NETDEV in NS
bind() {
	ns_run "$1" rdma link add "$2" type swroce netdev "$3"
}

# traffic NAME NS_A DEV_A IP_A NS_B DEV_B IP_B: the three programs across
traffic() {
	local name=$1 na=$2 da=$3 ia=$4 nb=$5 db=$6 ib=$7
	local ga gb
	ga=$(v4gid "$ia") gb=$(v4gid "$ib")
	wait_gid "$da" "$ga" && wait_gid "$db" "$gb"
	tap_ok $? "$name: the devices have their addresses' GIDs"
	pp ibv_rc_pingpong "$na" "$da" "$ga" "$nb" "$db" "$gb" "$ia" -c \
		-s 4096 -n 50
	tap_ok $? "$name: ibv_rc_pingpong, 4 KiB x 50, data checked"
	pp ibv_ud_pingpong "$na" "$da" "$ga" "$nb" "$db" "$gb" "$ia" -c \
		-s 512 -n 50
	tap_ok $? "$name: ibv_ud_pingpong, data checked"
	if [ "$(ns_run "$na" cat "/sys/class/net/$(rdma_netdev "$na" "$da")/type")" != 1 ]; then
		# rdma_cm's cma_validate_port() looks a non-Ethernet netdev's
		# addresses up as IB GIDs, which a RoCE port has none of
		tap_skip "$name: rping over rdma_cm" \
			"the RDMA core resolves no RoCE GID for a netdev that is not ARPHRD_ETHER"
		return
	fi
	rp "$na" "$nb" "$ia"
	tap_ok $? "$name: rping over rdma_cm, data checked"
}
# rdma_netdev NS DEV: the netdev of NS a swroce device is bound to
rdma_netdev() {
	ns_run "$1" rdma link show "$2/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

# counter DEV NAME: a standard port counter of DEV
counter() {
	cat "/sys/class/infiniband/$1/ports/1/counters/$2"
}
# link_stat NS IF FIELD: a netdev statistic (tx_packets, rx_bytes, ...)
link_stat() {
	ns_run "$1" cat "/sys/class/net/$2/statistics/$3"
}

# --- ports: the IB port counters ------------------------------------------
if part ports; then
for ns in nd-pa nd-pb; do
	ns_run $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip link add pc0 netns nd-pa type veth peer name pc1 netns nd-pb &&
ip link add pcc0 netns nd-pa type veth peer name pcc1 netns nd-pb &&
ns_run nd-pa ip addr add 10.81.1.1/24 dev pc0 &&
ns_run nd-pb ip addr add 10.81.1.2/24 dev pc1 &&
ns_run nd-pa ip addr add 10.81.2.1/24 dev pcc0 &&
ns_run nd-pb ip addr add 10.81.2.2/24 dev pcc1 &&
ns_run nd-pa ip neigh replace 10.81.1.2 dev pc0 nud permanent \
	lladdr "$(ns_run nd-pb cat /sys/class/net/pc1/address)" &&
ns_run nd-pb ip neigh replace 10.81.1.1 dev pc1 nud permanent \
	lladdr "$(ns_run nd-pa cat /sys/class/net/pc0/address)" &&
for l in pc0 pcc0; do ns_run nd-pa ip link set $l up || break; done &&
for l in pc1 pcc1; do ns_run nd-pb ip link set $l up || break; done &&
bind nd-pa ndpc0 pc0 && bind nd-pb ndpc1 pc1 &&
wait_gid ndpc0 "$(v4gid 10.81.1.1)" && wait_gid ndpc1 "$(v4gid 10.81.1.2)"
tap_ok $? "ports: two devices on a veth with nothing else on it"

d=/sys/class/infiniband/ndpc0/ports/1/counters
missing=
for c in port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets \
	 unicast_xmit_packets unicast_rcv_packets multicast_xmit_packets \
	 multicast_rcv_packets port_rcv_errors port_xmit_discards \
	 symbol_error link_downed; do
	[ -r "$d/$c" ] && [[ "$(cat "$d/$c")" =~ ^[0-9]+$ ]] || missing+=" $c"
done
tap_ok "${missing:-0}" = 0 "ports: the standard counters read as numbers${missing:+ (not:$missing)}"

declare -A before
snap() {	# snap: every figure compared below, into before[]
	local k
	for k in tx_packets tx_bytes rx_packets rx_bytes; do
		before[pc0.$k]=$(link_stat nd-pa pc0 $k)
	done
	for k in port_xmit_data port_rcv_data port_xmit_packets \
		 port_rcv_packets; do
		before[a.$k]=$(counter ndpc0 $k)
		before[b.$k]=$(counter ndpc1 $k)
	done
}
delta() {	# delta KEY: now - before
	local now
	case $1 in
	pc0.*) now=$(link_stat nd-pa pc0 "${1#pc0.}") ;;
	a.*) now=$(counter ndpc0 "${1#a.}") ;;
	b.*) now=$(counter ndpc1 "${1#b.}") ;;
	esac
	echo $((now - ${before[$1]}))
}
snap
# The TCP exchange of the pingpong goes over the control veth.
pp ibv_rc_pingpong nd-pa ndpc0 "$(v4gid 10.81.1.1)" nd-pb ndpc1 \
	"$(v4gid 10.81.1.2)" 10.81.2.1 -c -s 3000 -n 200
tap_ok $? "ports: ibv_rc_pingpong 3000 B x 200 on the counted veth"
sleep 1	# the last ACKs
ax=$(delta a.port_xmit_packets) ar=$(delta a.port_rcv_packets)
bx=$(delta b.port_xmit_packets) br=$(delta b.port_rcv_packets)
axd=$(delta a.port_xmit_data) ard=$(delta a.port_rcv_data)
bxd=$(delta b.port_xmit_data) brd=$(delta b.port_rcv_data)
echo "# ndpc0 sent $ax packets ($axd words), received $ar ($ard words)"
echo "# ndpc1 sent $bx packets ($bxd words), received $br ($brd words)"
# 200 messages each way of 3 packets at MTU 1024, and their ACKs
[ "$ax" -ge 600 ] && [ "$ax" = "$br" ] && [ "$bx" = "$ar" ]
tap_ok $? "ports: packets one device sent = packets the other received"
[ "$axd" = "$brd" ] && [ "$bxd" = "$ard" ] && [ "$axd" -gt $((600 * 3000 / 4 / 3)) ]
tap_ok $? "ports: data one device sent = data the other received (4-byte words)"
vp=$(delta pc0.tx_packets) vb=$(delta pc0.tx_bytes)
vrp=$(delta pc0.rx_packets) vrb=$(delta pc0.rx_bytes)
echo "# pc0 sent $vp frames, $vb bytes; received $vrp frames, $vrb bytes"
# The veth counts each frame with its 14-byte Ethernet header; the port
# counts IP datagrams in words, truncated: within 4 bytes of each other.
# same_words BYTES FRAMES WORDS: the frames' IP bytes are WORDS, +-1
same_words() {
	local d=$((($1 - 14 * $2) / 4 - $3))
	[ $d -ge -1 ] && [ $d -le 1 ]
}
[ "$vp" = "$ax" ] && [ "$vrp" = "$ar" ] &&
	same_words "$vb" "$vp" "$axd" && same_words "$vrb" "$vrp" "$ard"
tap_ok $? "ports: the counters match the frames that crossed the veth (ip -s link)"
[ "$(counter ndpc0 multicast_xmit_packets)" = 0 ] &&
	[ "$(counter ndpc0 unicast_xmit_packets)" = "$(counter ndpc0 port_xmit_packets)" ] &&
	[ "$(counter ndpc0 port_rcv_errors)" = 0 ] &&
	[ "$(counter ndpc0 port_xmit_discards)" = 0 ]
tap_ok $? "ports: all unicast, no receive errors, no discards"
fi

# --- upper: a VLAN device's address on the device under it ------------------
if part upper; then
ip link add ua netns nd-ua type veth peer name ub netns nd-ub &&
ns_run nd-ua ip addr add 10.83.1.1/24 dev ua &&
ns_run nd-ub ip addr add 10.83.1.2/24 dev ub &&
ns_run nd-ua ip link set ua up && ns_run nd-ub ip link set ub up &&
ns_run nd-ua ip link add link ua name ua.200 type vlan id 200 \
	egress-qos-map 3:3 &&
ns_run nd-ub ip link add link ub name ub.200 type vlan id 200 \
	egress-qos-map 3:3 &&
ns_run nd-ua ip addr add 10.83.2.1/24 dev ua.200 &&
ns_run nd-ub ip addr add 10.83.2.2/24 dev ub.200 &&
ns_run nd-ua ip link set ua.200 up && ns_run nd-ub ip link set ub.200 up &&
bind nd-ua ndu0 ua && bind nd-ub ndu1 ub
tap_ok $? "upper: devices on veths that carry VLAN 200"
# Count what arrives on ub tagged 200: RoCE with PCP 3, RoCE without.
ns_run nd-ub tc qdisc add dev ub clsact &&
ns_run nd-ub tc filter add dev ub ingress pref 1 protocol 802.1q flower \
	vlan_id 200 vlan_prio 3 vlan_ethtype ipv4 ip_proto udp dst_port 4791 \
	action continue &&
ns_run nd-ub tc filter add dev ub ingress pref 2 protocol 802.1q flower \
	vlan_id 200 vlan_ethtype ipv4 ip_proto udp dst_port 4791 action pass
tap_ok $? "upper: flower filters count the tagged RoCE packets on ub"
ga=$(v4gid 10.83.2.1) gb=$(v4gid 10.83.2.2)
wait_gid ndu0 "$ga" && wait_gid ndu1 "$gb"
tap_ok $? "upper: the VLAN device's address is a GID of the device under it"
# The TCP exchange on the untagged address; RoCE on the VLAN's GIDs, SL 3.
pp ibv_rc_pingpong nd-ua ndu0 "$ga" nd-ub ndu1 "$gb" 10.83.1.1 -c \
	-s 4096 -n 100 -l 3
tap_ok $? "upper: ibv_rc_pingpong on the VLAN GIDs with SL 3, data checked"
# flower_pkts PREF: packets the filter of preference PREF matched
flower_pkts() {
	ns_run nd-ub tc -s filter show dev ub ingress pref "$1" |
		awk '/Sent .* pkt/ {for (i = 1; i < NF; i++) if ($(i + 1) == "pkt") {print $i; exit}}'
}
p3=$(flower_pkts 1) pall=$(flower_pkts 2)
echo "# on ub: ${p3:-?} RoCE packets tagged 200 with PCP 3, ${pall:-?} tagged 200 in all"
[ "${p3:-0}" -ge 300 ] && [ "$p3" = "$pall" ]
tap_ok $? "upper: every RoCE packet left tagged 200 with PCP 3 (SL 3, egress-qos-map 3:3)"
[ "$(link_stat nd-ub ub.200 rx_packets)" -ge "${p3:-1}" ]
tap_ok $? "upper: and arrived through the VLAN device"
rp nd-ua nd-ub 10.83.2.1
tap_ok $? "upper: rping over rdma_cm on the VLAN addresses, data checked"
fi

# --- macvlan and ipvlan: two upper devices of one veth ----------------------
if part macvlan; then
# uppers P U KIND... : two KIND devices Ua, Ub on a veth of namespace
# nd-Pp, moved to nd-Pa and nd-Pb with 10.NET.1.1/.2, swroce devices
# ndU0/ndU1 on them (P: m or i; NET: 84 or 85)
uppers() {
	local p=$1 u=$2 net=$3
	shift 3
	ip link add "${p}px" netns "nd-${p}p" type veth peer name "${p}py" netns "nd-${p}p" &&
	ns_run "nd-${p}p" ip link set "${p}px" up &&
	ns_run "nd-${p}p" ip link set "${p}py" up &&
	ns_run "nd-${p}p" ip link add link "${p}px" name "${u}a" type "$@" &&
	ns_run "nd-${p}p" ip link add link "${p}px" name "${u}b" type "$@" &&
	ns_run "nd-${p}p" ip link set "${u}a" netns "nd-${p}a" &&
	ns_run "nd-${p}p" ip link set "${u}b" netns "nd-${p}b" &&
	ns_run "nd-${p}a" ip addr add "10.$net.1.1/24" dev "${u}a" &&
	ns_run "nd-${p}b" ip addr add "10.$net.1.2/24" dev "${u}b" &&
	ns_run "nd-${p}a" ip link set "${u}a" up &&
	ns_run "nd-${p}b" ip link set "${u}b" up &&
	bind "nd-${p}a" "nd${p}0" "${u}a" && bind "nd-${p}b" "nd${p}1" "${u}b"
}
uppers m mv 84 macvlan mode bridge
tap_ok $? "macvlan: devices on two bridge-mode macvlans in two namespaces"
traffic macvlan nd-ma ndm0 10.84.1.1 nd-mb ndm1 10.84.1.2

uppers i iv 85 ipvlan mode l2
tap_ok $? "ipvlan: devices on two L2-mode ipvlans in two namespaces"
traffic ipvlan nd-ia ndi0 10.85.1.1 nd-ib ndi1 10.85.1.2
fi

# --- bond: active-backup over two veths, the active one fails ---------------
if part bond; then
mkbond() {	# mkbond NS BOND SLAVE0 SLAVE1 ADDR
	ns_run "$1" ip link add "$2" type bond mode active-backup miimon 50 &&
	ns_run "$1" ip link set "$3" master "$2" &&
	ns_run "$1" ip link set "$4" master "$2" &&
	ns_run "$1" ip addr add "$5/24" dev "$2" &&
	ns_run "$1" ip link set "$2" up
}
ip link add ba0 netns nd-ba type veth peer name bb0 netns nd-bb &&
ip link add ba1 netns nd-ba type veth peer name bb1 netns nd-bb &&
mkbond nd-ba ba ba0 ba1 10.86.1.1 && mkbond nd-bb bb bb0 bb1 10.86.1.2 &&
bind nd-ba ndb0 ba && bind nd-bb ndb1 bb
tap_ok $? "bond: devices on active-backup bonds of two veths"
! ns_run nd-ba rdma link add ndbx type swroce netdev ba1 2>/dev/null
tap_ok $? "bond: a device on a bond's port is refused"
traffic bond nd-ba ndb0 10.86.1.1 nd-bb ndb1 10.86.1.2
# The active port pulled mid-transfer: the bond fails over on both sides
# (the peer's port loses its carrier), the packets in flight are lost and
# retransmitted. ibv_rc_pingpong -c checks every buffer it receives.
{
	ga=$(v4gid 10.86.1.1) gb=$(v4gid 10.86.1.2)
	active=$(ns_run nd-ba cat /sys/class/net/ba/bonding/active_slave)
	pp ibv_rc_pingpong nd-ba ndb0 "$ga" nd-bb ndb1 "$gb" 10.86.1.1 -c \
		-s 4096 -n 1500 &
	ppid=$!
	# Pull the active link once the transfer runs (its first packets crossed).
	rx0=$(counter ndb0 port_rcv_packets)
	running() { [ "$(counter ndb0 port_rcv_packets)" -gt $((rx0 + 200)) ]; }
	wait_for 60 running
	echo "# pulling $active after $(($(counter ndb0 port_rcv_packets) - rx0)) packets"
	ns_run nd-ba ip link set "$active" down
	wait $ppid
	rc=$?
	now=$(ns_run nd-ba cat /sys/class/net/ba/bonding/active_slave)
	echo "# active port $active pulled mid-transfer, now $now, on the peer" \
		"$(ns_run nd-bb cat /sys/class/net/bb/bonding/active_slave)"
	for d in ndb0 ndb1; do
		echo "# $d: tx $(hw_counter $d tx_pkts)" \
			"rx $(hw_counter $d rx_pkts)" \
			"tx_dropped $(hw_counter $d tx_dropped)" \
			"rx_dropped $(hw_counter $d rx_dropped)" \
			"retransmits $(hw_counter $d retransmits)" \
			"timeouts $(hw_counter $d ack_timeouts)"
	done
	[ $rc -eq 0 ] && [ -n "$now" ] && [ "$now" != "$active" ]
	tap_ok $? "bond: the active port fails mid-transfer, the data arrives intact"
	# and the devices carry new connections over the new active port
	pp ibv_rc_pingpong nd-ba ndb0 "$ga" nd-bb ndb1 "$gb" 10.86.1.1 -c \
		-s 4096 -n 50
	tap_ok $? "bond: after the failover, a new ibv_rc_pingpong runs, data checked"
}
fi

# --- reroute: the route changes mid-transfer -----------------------------------
# Transmit looks the route up once per batch of packets and checks it
# (dst_check()) before each one: a route added mid-transfer must take
# effect at once, not when some cached route expires. The device's flows
# are bound to its netdev, and a lookup bound to a netdev that finds no
# usable route sends on the link anyway (ip_route_output_key()), so what a
# route can change is the next hop: a host route to the peer through a
# gateway whose (static) neighbour is a MAC nobody has sends every packet
# to it, and the peer's veth drops them (not its address). The sender
# keeps sending; removed, the traffic reaches the peer again and the 8 s
# of ib_write_bw complete. QP timeout 18 (1 s, 7 retries): the second
# without answers costs the requester one timeout.
if part reroute; then
ip link add ra netns nd-ra type veth peer name rb netns nd-rb &&
ns_run nd-ra ip addr add 10.91.1.1/24 dev ra &&
ns_run nd-rb ip addr add 10.91.1.2/24 dev rb &&
ns_run nd-ra ip link set ra up && ns_run nd-rb ip link set rb up &&
ns_run nd-ra ip neigh add 10.91.1.3 lladdr 02:00:00:91:01:03 dev ra \
	nud permanent &&
bind nd-ra ndr0 ra && bind nd-rb ndr1 rb
tap_ok $? "reroute: devices on a veth, a gateway 10.91.1.3 no one answers for"
ga=$(v4gid 10.91.1.1) gb=$(v4gid 10.91.1.2)
wait_gid ndr0 "$ga" && wait_gid ndr1 "$gb"
tap_ok $? "reroute: the devices have their addresses' GIDs"
{
	pt ib_write_bw nd-rb ndr1 "$gb" nd-ra ndr0 "$ga" 10.91.1.2 \
		-s 65536 -D 8 -u 18 &
	ppid=$!
	rx0=$(hw_counter ndr1 rx_pkts)
	running() { [ "$(hw_counter ndr1 rx_pkts)" -gt $((rx0 + 200)) ]; }
	wait_for 60 running
	ns_run nd-ra ip route add 10.91.1.2/32 via 10.91.1.3 dev ra
	# what left before the route changed arrives within the settle time
	sleep 0.5
	r1=$(hw_counter ndr1 rx_pkts) t1=$(link_stat nd-ra ra tx_packets)
	sleep 1
	r2=$(hw_counter ndr1 rx_pkts) t2=$(link_stat nd-ra ra tx_packets)
	ns_run nd-ra ip route del 10.91.1.2/32 via 10.91.1.3 dev ra
	wait $ppid
	rc=$?
	r3=$(hw_counter ndr1 rx_pkts)
	echo "# via the gateway for 1 s: ra sent $((t2 - t1)), ndr1 received" \
		"$((r2 - r1)); after: ndr1 received $((r3 - r2)), ndr0" \
		"retransmits $(hw_counter ndr0 retransmits)" \
		"timeouts $(hw_counter ndr0 ack_timeouts)"
	[ "$r2" = "$r1" ] && [ "$t2" -gt "$t1" ]
	tap_ok $? "reroute: a route added mid-transfer takes every packet at once"
	[ $rc -eq 0 ] && [ "$r3" -gt "$r2" ]
	tap_ok $? "reroute: removed, the traffic reaches the peer again and ib_write_bw completes"
}
fi

# --- 802.3ad: a LACP bond of two veths on each side ---------------------------
if part lacp; then
mklacp() {	# mklacp NS BOND SLAVE0 SLAVE1 ADDR
	ns_run "$1" ip link add "$2" type bond mode 802.3ad miimon 50 \
		lacp_rate fast xmit_hash_policy layer3+4 &&
	ns_run "$1" ip link set "$3" master "$2" &&
	ns_run "$1" ip link set "$4" master "$2" &&
	ns_run "$1" ip addr add "$5/24" dev "$2" &&
	ns_run "$1" ip link set "$2" up
}
# both ports of a bond in the aggregator LACP agreed on with the peer
lacp_up() {
	local f=/proc/net/bonding/$2
	[ "$(ns_run "$1" grep -c 'Aggregator ID' "$f")" -ge 3 ] &&
		[ "$(ns_run "$1" awk '/Aggregator ID/ {print $3}' "$f" | sort -u | wc -l)" = 1 ]
}
ip link add la0 netns nd-la type veth peer name lb0 netns nd-lb &&
ip link add la1 netns nd-la type veth peer name lb1 netns nd-lb &&
mklacp nd-la la la0 la1 10.90.1.1 && mklacp nd-lb lb lb0 lb1 10.90.1.2 &&
wait_for 60 lacp_up nd-la la && wait_for 60 lacp_up nd-lb lb &&
bind nd-la ndl0 la && bind nd-lb ndl1 lb
tap_ok $? "lacp: devices on 802.3ad bonds whose ports joined one aggregator"
traffic lacp nd-la ndl0 10.90.1.1 nd-lb ndl1 10.90.1.2
fi

# --- tun: an L3 device, no MAC ----------------------------------------------
# Addresses with a prefix, not "peer": for a point-to-point address the
# RDMA core enters the peer's address as the GID (roce_gid_mgmt.c takes
# ifa_address, which is the peer's there, not ifa_local).
if part tun; then
modprobe tun &&
ns_run nd-ta ip tuntap add mode tun name tna &&
ns_run nd-tb ip tuntap add mode tun name tnb &&
ns_run nd-ta ip addr add 10.87.1.1/24 dev tna &&
ns_run nd-tb ip addr add 10.87.1.2/24 dev tnb &&
ns_run nd-ta ip link set tna up && ns_run nd-tb ip link set tnb up &&
{ "$bin/swr_tunpipe" nd-ta tna nd-tb tnb & tunpipe=$!; } &&
bind nd-ta ndt0 tna && bind nd-tb ndt1 tnb
tap_ok $? "tun: devices on two tun devices joined by swr_tunpipe"
traffic tun nd-ta ndt0 10.87.1.1 nd-tb ndt1 10.87.1.2
fi

# --- wireguard: an L3 tunnel with a smaller MTU -----------------------------
# nd-wa wga 10.89.1.1 <-> wgb 10.89.1.2 nd-wb, the tunnel's UDP over a veth
# between the namespaces (10.89.0.x).
if part wireguard; then
if ! command -v wg >/dev/null || ! modprobe wireguard 2>/dev/null; then
	tap_skip "wireguard: devices on wireguard tunnels" "no wg(8) or no wireguard module"
else
wgpair() {
	local ka kb
	ka=$(wg genkey) && kb=$(wg genkey) &&
	pair nd-wa nd-wb wva wvb 89.0 89 &&
	ns_run nd-wa ip link add wga type wireguard &&
	ns_run nd-wb ip link add wgb type wireguard &&
	ns_run nd-wa wg set wga private-key <(echo "$ka") listen-port 51820 \
		peer "$(echo "$kb" | wg pubkey)" allowed-ips 10.89.1.2/32 \
		endpoint 10.89.0.2:51820 &&
	ns_run nd-wb wg set wgb private-key <(echo "$kb") listen-port 51820 \
		peer "$(echo "$ka" | wg pubkey)" allowed-ips 10.89.1.1/32 \
		endpoint 10.89.0.1:51820 &&
	ns_run nd-wa ip addr add 10.89.1.1/24 dev wga &&
	ns_run nd-wb ip addr add 10.89.1.2/24 dev wgb &&
	ns_run nd-wa ip link set wga up && ns_run nd-wb ip link set wgb up &&
	bind nd-wa ndw0 wga && bind nd-wb ndw1 wgb
}
wgpair
tap_ok $? "wireguard: devices on two wireguard tunnels across a veth"
traffic wireguard nd-wa ndw0 10.89.1.1 nd-wb ndw1 10.89.1.2
fi
fi

# --- dummy: the socket follows the devices ----------------------------------
if part dummy; then
sock() { ns_run nd-d ss -Huln 'sport = :4791' | grep -c .; }
ns_run nd-d ip link add dm type dummy && ns_run nd-d ip link set dm up &&
ns_run nd-d ip addr add 10.88.1.1/24 dev dm &&
[ "$(sock)" = 0 ] && bind nd-d ndd0 dm
tap_ok $? "dummy: a device binds to a dummy"
[ "$(sock)" -ge 1 ]
tap_ok $? "dummy: the namespace has its RoCE UDP socket while the device exists"
no_sock() { [ "$(sock)" = 0 ]; }
ns_run nd-d rdma link del ndd0 && wait_for 10 no_sock
tap_ok $? "dummy: the socket is closed once the last device is gone"
fi

# --- refused ----------------------------------------------------------------
# refused NS NETDEV WHY: rdma link add on NETDEV fails, and the kernel log
# gains a line saying so, with WHY in it
refused() {
	local before
	before=$(dmesg | grep -c "swroce: $2: cannot bind to")
	! ns_run "$1" rdma link add ndr0 type swroce netdev "$2" 2>/dev/null &&
		[ "$(dmesg | grep -c "swroce: $2: cannot bind to")" -gt "$before" ] &&
		dmesg | grep "swroce: $2: cannot bind to" | tail -n 1 | grep -qF "$3"
}
if part refused; then
# A device on a VLAN device would get no IP GIDs from the RDMA core (which
# takes a VLAN's addresses for the device under it: "upper" above).
ns_run nd-d ip link add dv type dummy &&
ns_run nd-d ip link add link dv name dv.7 type vlan id 7 &&
refused nd-d dv.7 'a VLAN device (bind under it'
tap_ok $? "refused: a VLAN device, with the way to do it in the kernel log"
refused nd-d lo 'a loopback device'
tap_ok $? "refused: loopback, with the reason in the kernel log"
ns_run nd-d ip link add gr type gre local 10.88.1.1 remote 10.88.1.2 &&
	refused nd-d gr 'neither Ethernet nor an L3 tunnel'
tap_ok $? "refused: a GRE device (neither Ethernet nor a tun/wireguard L3 device)"
fi

tap_done
