#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Congestion control, piece by piece (issue 14; Documentation/congestion.rst):
# the sysfs parameters, ECT(0) on the packets, a CNP for a CE-marked
# packet, the requester acting on it (also with the QPs bound to per-QP
# counters), each switch turning its part off.
# Topology, built here and removed at the end:
#
#   netns swr-ca: ca 10.95.1.1/24, device swcc0 (swroce)
#     | veth; egress of ca: a tc filter that marks every ECT(0) RoCEv2
#     | packet CE (pedit on the IP TOS, then the IP checksum)
#   netns swr-cb: cb 10.95.1.2/24, device swcc1 (swroce)
#
# Only packets from swcc0 to swcc1 are marked, and only those sent ECT(0):
# so swcc1 is the notification point and swcc0 the reaction point.
# ibv_rc_pingpong -c checks every byte. Runs as root inside the test guest
# (selftests/run-guest.sh), with the provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

A=swcc0
B=swcc1
T=120

cleanup() {
	ip netns pids swr-ca 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids swr-cb 2>/dev/null | xargs -r kill 2>/dev/null
	rdma link del $A 2>/dev/null
	rdma link del $B 2>/dev/null
	ip netns del swr-ca 2>/dev/null
	ip netns del swr-cb 2>/dev/null
}
trap cleanup EXIT
cleanup

ns_pair swr-ca swr-cb ca cb 95.1 95 $A $B || tap_bail "topology"
ga=$(v4gid 10.95.1.1)
gb=$(v4gid 10.95.1.2)

# cc DEV NAME [VALUE]: read or write swroce/cc_NAME
cc() {
	local f=/sys/class/infiniband/$1/swroce/cc_$2
	if [ $# -eq 3 ]; then echo "$3" >"$f"; else cat "$f"; fi
}

# --- the parameters ------------------------------------------------------------
# name default max (Documentation/congestion.rst's table)
params="ecn 1 1
np_enable 1 1
cnp_interval_us 50 1000000
cnp_dscp 48 63
rp_enable 1 1
g_shift 8 16
alpha_us 150 1000000
reduce_us 50 1000000
timer_us 1000 1000000
byte_reset 32768 1073741824
fast_recovery 5 100
ai_mbps 2 100000
hai_mbps 10 100000
min_mbps 1 100000
max_mbps 100000 1000000
window_us 10000 1000000
loss_window 1 1"
rc=0
while read -r name def max; do
	v=$(cc $A "$name" 2>/dev/null)
	if [ "$v" != "$def" ]; then
		echo "# cc_$name is '$v', documented default $def"
		rc=1
	fi
	if cc $A "$name" $((max + 1)) 2>/dev/null; then
		echo "# cc_$name took $((max + 1)), above its maximum $max"
		rc=1
	fi
	# a value in range is taken, and the default goes back
	if ! { cc $A "$name" "$max" && [ "$(cc $A "$name")" = "$max" ] &&
	       cc $A "$name" "$def"; }; then
		echo "# cc_$name: writing $max, then $def, failed"
		rc=1
	fi
done <<<"$params"
tap_ok $rc "17 sysfs parameters: documented defaults, bounds refused (ERANGE), values taken"

# --- marking -----------------------------------------------------------------
# Every ECT(0) (TOS low bits 10) RoCEv2 packet leaving ca becomes CE (11).
ip netns exec swr-ca tc qdisc add dev ca clsact &&
	ip netns exec swr-ca tc filter add dev ca egress protocol ip prio 1 \
		u32 match ip protocol 17 0xff match ip dport 4791 0xffff \
		match ip tos 0x02 0x03 \
		action pedit ex munge ip tos set 0x03 retain 0x03 pipe \
		action csum ip
tap_ok $? "tc filter on ca's egress marks ECT(0) RoCEv2 packets CE"

# snap: the counters the checks compare, before a run
snap() {
	m0=$(hw_counter $B np_ecn_marked_roce_packets)
	s0=$(hw_counter $B np_cnp_sent)
	h0=$(hw_counter $A rp_cnp_handled)
	i0=$(hw_counter $A rp_cnp_ignored)
}
# delta: what the run added, as "marked sent handled ignored"
delta() {
	echo "$(($(hw_counter $B np_ecn_marked_roce_packets) - m0))" \
		"$(($(hw_counter $B np_cnp_sent) - s0))" \
		"$(($(hw_counter $A rp_cnp_handled) - h0))" \
		"$(($(hw_counter $A rp_cnp_ignored) - i0))"
}
# pingpong: 500 RC exchanges of 4 KiB, every byte checked; swcc1 serves
pingpong() {
	pp ibv_rc_pingpong swr-cb $B "$gb" swr-ca $A "$ga" 10.95.1.2 \
		-s 4096 -n 500 -c
}

# check NAME RUN_RC "M S H I" CONDITION: one TAP line; CONDITION is an
# arithmetic test on m s h i (the deltas)
check() {
	local name=$1 run=$2 m s h i
	read -r m s h i <<<"$3"
	echo "# $name: marked $m, CNPs sent $s, handled $h, ignored $i"
	[ "$run" = 0 ] && (( $4 ))
	tap_ok $? "$name"
}

snap
pingpong
check "CC on: CE-marked packets answered with CNPs, the requester acts on them, data intact" \
	$? "$(delta)" 'm > 0 && s > 0 && h > 0 && s <= m && i == 0'

# Bound to RDMA core counters (auto: each new QP gets one), the QPs count
# there and the core adds those to the port's figures: nothing is lost.
if rdma statistic qp set link $A/1 auto type on &&
   rdma statistic qp set link $B/1 auto type on; then
	snap
	pingpong
	check "QPs bound to per-QP counters: the port counters still count marks, CNPs sent and handled" \
		$? "$(delta)" 'm > 0 && s > 0 && h > 0 && s <= m'
else
	tap_ok 1 "rdma statistic qp set link ... auto type on"
fi
rdma statistic qp set link $A/1 auto off
rdma statistic qp set link $B/1 auto off

cc $B np_enable 0
snap
pingpong
check "cc_np_enable 0 at the receiver: marks counted, no CNP sent" \
	$? "$(delta)" 'm > 0 && s == 0 && h == 0'
cc $B np_enable 1

cc $A rp_enable 0
snap
pingpong
check "cc_rp_enable 0 at the sender: CNPs arrive and are ignored" \
	$? "$(delta)" 'm > 0 && s > 0 && h == 0 && i > 0'
cc $A rp_enable 1

cc $A ecn 0
snap
pingpong
check "cc_ecn 0 at the sender: its packets are Not-ECT, nothing is marked" \
	$? "$(delta)" 'm == 0 && s == 0'
cc $A ecn 1

# --- the rate, shown -------------------------------------------------------------
# A WRITE stream whose every packet is marked: its QP is paced, and
# rdma res shows the rate (cc_rate_mbps, not 0) while it runs.
si=$(gid_index $B "$gb")
ci=$(gid_index $A "$ga")
ip netns exec swr-cb timeout $T ib_write_bw -d $B -x "$si" -s 65536 -D 4 -F \
	>/tmp/swr-cc-srv.log 2>&1 &
spid=$!
wait_for 60 listening swr-cb 18515
ip netns exec swr-ca timeout $T ib_write_bw -d $A -x "$ci" -s 65536 -D 4 -F \
	10.95.1.2 >/tmp/swr-cc-cli.log 2>&1 &
cpid=$!
rate=0
for _ in $(seq 40); do
	sleep 0.2
	r=$(rdma res show qp link $A/1 -dd 2>/dev/null |
		grep -o 'cc_rate_mbps [0-9]*' | awk '$2 > m { m = $2 } END { print m + 0 }')
	[ "$r" -gt 0 ] && { rate=$r; break; }
done
wait $cpid
rc=$?
wait $spid || rc=1
grep -Eq '^ *65536 +[0-9]+ ' /tmp/swr-cc-cli.log || rc=1
[ $rc = 0 ] || sed 's/^/# cli: /' /tmp/swr-cc-cli.log
echo "# cc_rate_mbps seen: $rate"
[ $rc = 0 ] && [ "$rate" -gt 0 ]
tap_ok $? "ib_write_bw through the marking filter completes, its QP paced (rdma res: cc_rate_mbps $rate)"

tap_done
