#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Tracepoints and resource details (issue 15): the swroce trace events of
# known runs, checked line by line, and the driver attributes of "rdma res
# show qp|cq|mr -dd" of known objects. Topology, built here and removed at
# the end:
#
#   netns swr-ta: tr0 10.81.1.1/24 fd81::1/64, device swrt0
#     | veth
#   netns swr-tb: tr1 10.81.1.2/24 fd81::2/64, device swrt1
#
# The runs: ibv_rc_pingpong across the veth (QP states, send and receive
# WQEs), swroce_loss's "retry" under 100% loss (ACK timeouts and
# retransmissions) and "rnr" (RNR NAKs sent and received), and
# build/selftests/swroce_trace (a packet to no QP; an overflowing CQ; a
# local pair, an MR and their ring indices). The trace clock is "global"
# meanwhile, so that events of one QP on different CPUs come in order.
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"
# shellcheck source=selftests/kmsg.sh
. "$(dirname "$0")/kmsg.sh"

bin=$(dirname "$0")/../build/selftests/swroce_trace
loss=$(dirname "$0")/../build/selftests/swroce_loss
tmp=$(mktemp -d)
N=20		# ping-pong iterations
SIZE=4096	# their message size
T=

cleanup() {
	if [ -n "$T" ]; then
		echo 0 >"$T/tracing_on"
		echo 0 >"$T/events/swroce/enable"
		tracefs_cmdline_restore "$T" "${cmd0:-}"
		echo >"$T/trace"
		[ -n "${clock0:-}" ] && echo "$clock0" >"$T/trace_clock"
		[ -n "${kb0:-}" ] && echo "$kb0" >"$T/buffer_size_kb"
		[ -n "${on0:-}" ] && echo "$on0" >"$T/tracing_on"
	fi
	exec 3>&- 2>/dev/null
	ip netns del swr-ta 2>/dev/null
	ip netns del swr-tb 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# tracefs: where the kernel mounts it, or under debugfs
T=$(tracefs_find enable) ||
	tap_bail "no tracefs with events/swroce"
on0=$(cat "$T/tracing_on")
clock0=$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")
# "7 (expanded: 1408)" until first used
kb0=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$T/buffer_size_kb")
echo "# tracefs at $T"
cmd0=$(tracefs_no_cmdline "$T")

# trace_start: an empty buffer, every swroce event on
trace_start() {
	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo 1 >"$T/events/swroce/enable"
	echo 1 >"$T/tracing_on"
}

# trace_stop FILE: stop; the events as "name: fields" lines into FILE
trace_stop() {
	echo 0 >"$T/tracing_on"
	sed -n 's/^.* \(swr_[a-z_]*: \)/\1/p' "$T/trace" >"$1"
	echo >"$T/trace"
}

# same NAME WANT GOT: the files are identical (the first differences shown)
same() {
	if ! diff -u "$2" "$3" >"$tmp/diff"; then
		head -n 20 "$tmp/diff" | sed 's/^/# /'
		tap_ok 1 "$1"
		return
	fi
	tap_ok 0 "$1"
}

ns_pair swr-ta swr-tb tr0 tr1 81.1 81 swrt0 swrt1 ||
	tap_bail "two swroce devices on a veth between two namespaces"
# permanent neighbours: the loss below must not be ARP's
mac0=$(ip -n swr-ta -br link show tr0 | awk '{print $3}')
mac1=$(ip -n swr-tb -br link show tr1 | awk '{print $3}')
if ! { ip -n swr-ta neigh replace 10.81.1.2 lladdr "$mac1" dev tr0 \
	nud permanent && ip -n swr-tb neigh replace 10.81.1.1 lladdr "$mac0" \
	dev tr1 nud permanent; }; then
	tap_bail "permanent neighbour entries"
fi
echo 4096 >"$T/buffer_size_kb"
echo global >"$T/trace_clock"

# The QPN a libibverbs example prints as its local address, in decimal.
local_qpn() {
	printf '%d' "$(sed -n 's/.*local address:.* QPN \(0x[0-9a-f]*\),.*/\1/p' "$1")"
}

# QP states, send and receive WQEs: an RC ping-pong ------------------------

si=$(gid_index swrt0 "$(v4gid 10.81.1.1)")
ci=$(gid_index swrt1 "$(v4gid 10.81.1.2)")
trace_start
ip netns exec swr-ta timeout 300 ibv_rc_pingpong -d swrt0 -g "$si" \
	-s $SIZE -n $N >"$tmp/srv" 2>&1 &
spid=$!
wait_for 60 listening swr-ta 18515
ip netns exec swr-tb timeout 300 ibv_rc_pingpong -d swrt1 -g "$ci" \
	-s $SIZE -n $N 10.81.1.1 >"$tmp/cli" 2>&1
rc=$?
wait $spid || rc=1
trace_stop "$tmp/pp"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/srv" "$tmp/cli"
tap_ok $rc "ibv_rc_pingpong -n $N -s $SIZE across the veth, traced"

for end in swrt0:srv swrt1:cli; do
	dev=${end%:*}
	q=$(local_qpn "$tmp/${end#*:}")
	{
		for s in RESET-INIT INIT-RTR RTR-RTS; do
			echo "swr_qp_state: dev=$dev qpn=$q ${s/-/->} by=modify_qp"
		done
	} >"$tmp/want"
	grep "^swr_qp_state: dev=$dev qpn=$q " "$tmp/pp" >"$tmp/got"
	same "$dev QP $q: RESET->INIT->RTR->RTS by modify_qp" "$tmp/want" "$tmp/got"
	for i in $(seq 0 $((N - 1))); do
		echo "swr_send_wqe: dev=$dev qpn=$q idx=$i wr_id=0x2 opcode=SEND len=$SIZE"
	done >"$tmp/want"
	grep "^swr_send_wqe: dev=$dev qpn=$q " "$tmp/pp" >"$tmp/got"
	same "$dev QP $q: $N send WQEs consumed, in ring order" "$tmp/want" "$tmp/got"
	for i in $(seq 0 $((N - 1))); do
		echo "swr_recv_wqe: dev=$dev qpn=$q rq idx=$i wr_id=0x1 opcode=SEND len=$SIZE"
	done >"$tmp/want"
	grep "^swr_recv_wqe: dev=$dev qpn=$q " "$tmp/pp" >"$tmp/got"
	same "$dev QP $q: $N receive WQEs consumed, in ring order" "$tmp/want" "$tmp/got"
done

# ACK timeouts and retransmissions: a peer behind 100% loss ----------------

# netem ARGS...: the same impairment on both ends ("" = none)
netem() {
	tc -n swr-ta qdisc del dev tr0 root 2>/dev/null
	tc -n swr-tb qdisc del dev tr1 root 2>/dev/null
	[ $# -eq 0 ] && return 0
	tc -n swr-ta qdisc add dev tr0 root netem "$@" &&
		tc -n swr-tb qdisc add dev tr1 root netem "$@"
}

# run_loss MODE: swroce_loss MODE from swrt0 (requester) to swrt1
run_loss() {
	SWR_LOSS_A=swrt0 SWR_LOSS_B=swrt1 timeout 300 "$loss" "$1" \
		>"$tmp/loss" 2>&1
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/loss"
	return $rc
}

netem loss 100% || tap_bail "netem loss 100%"
trace_start
run_loss retry
tap_ok $? "swroce_loss retry (100% loss): RETRY_EXC_ERR, traced"
trace_stop "$tmp/retry"
netem
# Each try's QP (the program tries again when the host was slow): retry_cnt
# 7 timeouts, each sending the WRITE's 3 packets (PSNs 0xfffffe, 0xffffff,
# 0) again, then the timeout that gives up, and the QP's move to ERR. Each
# timeout finds those 3 out and no response ever heard.
qpns=$(sed -n 's/^swr_ack_timeout: dev=swrt0 qpn=\([0-9]*\) .*/\1/p' \
	"$tmp/retry" | sort -un)
tap_ok "$([ -n "$qpns" ] && echo yes)" = yes "ACK timeout events recorded"
for q in $qpns; do
	{
		for r in 6 5 4 3 2 1 0; do
			echo "swr_ack_timeout: dev=swrt0 qpn=$q psn=16777214 out=3 heard_us=0 retry_left=$r"
			for psn in 16777214 16777215 0; do
				echo "swr_retransmit: dev=swrt0 qpn=$q psn=$psn retry_left=$r"
			done
		done
		echo "swr_ack_timeout: dev=swrt0 qpn=$q psn=16777214 out=3 heard_us=0 retry_left=0 exhausted"
		echo "swr_qp_state: dev=swrt0 qpn=$q RTS->ERR by=error"
	} >"$tmp/want"
	grep -E "^swr_(ack_timeout|retransmit|qp_state): dev=swrt0 qpn=$q " \
		"$tmp/retry" | grep -v "by=modify_qp" >"$tmp/got"
	same "QP $q: 8 timeouts, 21 retransmissions, then ERR" "$tmp/want" "$tmp/got"
done

# RNR NAKs: a SEND to a QP with no receive posted ---------------------------

trace_start
run_loss rnr
tap_ok $? "swroce_loss rnr: RNR_RETRY_EXC_ERR, traced"
trace_stop "$tmp/rnr"
# rnr_retry 3: four RNR NAKs (min_rnr_timer 26: syndrome 0x20 | 26) for
# the SEND's first PSN, each sent by swrt1's QP and received by swrt0's.
for way in sent:swrt1 rcvd:swrt0; do
	dev=${way#*:}
	ev=swr_nak_${way%:*}
	qpns=$(sed -n "s/^$ev: dev=$dev qpn=\([0-9]*\) .*nak=rnr$/\1/p" \
		"$tmp/rnr" | sort -un)
	tap_ok "$([ -n "$qpns" ] && echo yes)" = yes "$ev events (rnr) on $dev"
	for q in $qpns; do
		for _ in 1 2 3 4; do
			echo "$ev: dev=$dev qpn=$q psn=16777214 syndrome=0x3a nak=rnr"
		done >"$tmp/want"
		grep "^$ev: dev=$dev qpn=$q .*nak=rnr$" "$tmp/rnr" >"$tmp/got"
		same "$dev QP $q: 4 RNR NAKs ${way%:*}" "$tmp/want" "$tmp/got"
	done
done

# A drop by reason: a valid packet for a QP that does not exist -----------

drop0=$(cat /sys/class/infiniband/swrt0/ports/1/hw_counters/rx_drop_qp)
trace_start
ip netns exec swr-tb "$bin" drop fd81::1 0xabcde
tap_ok $? "a UD packet to QP 0xabcde sent from swr-tb"
wait_for 30 grep -q "swr_pkt_drop: dev=swrt0 qpn=703710 " "$T/trace"
trace_stop "$tmp/drop"
echo "swr_pkt_drop: dev=swrt0 qpn=703710 reason=rx_drop_qp" >"$tmp/want"
grep "^swr_pkt_drop: dev=swrt0 " "$tmp/drop" >"$tmp/got"
same "swrt0 traced one drop: qpn 703710, reason rx_drop_qp" "$tmp/want" "$tmp/got"
tap_ok "$(($(cat /sys/class/infiniband/swrt0/ports/1/hw_counters/rx_drop_qp) - drop0))" = 1 \
	"rx_drop_qp counted it once"

# The helper's objects: started with its input on fd 3 ---------------------

# helper MODE: start "$bin MODE" on swrt0; wait for its "ready"
helper() {
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	SWROCE_DEV=swrt0 "$bin" "$1" <"$tmp/fifo" >"$tmp/helper" 2>&1 &
	hpid=$!
	exec 3>"$tmp/fifo"
	wait_for 60 grep -q '^ready$' "$tmp/helper"
}

# helper_done: close its input; its exit status
helper_done() {
	exec 3>&-
	wait "$hpid"
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/helper"
	return $rc
}

# val KEY: a number the helper printed
val() { sed -n "s/^$1=//p" "$tmp/helper"; }

# res TYPE JQ: "rdma res show TYPE -dd" as JSON, each object through JQ;
# rdma names the driver's attributes drv_<name>
res() {
	rdma -j -dd res show "$1" | jq -r ".. | objects | $2"
}

# A CQ overflow ------------------------------------------------------------

trace_start
helper overflow
tap_ok $? "two completions for a one-entry CQ"
cqn=$(res cq "select(.pid? == $hpid and .drv_overflow? == 1) | .cqn")
trace_stop "$tmp/ovf"
echo "swr_cq_overflow: dev=swrt0 cqn=$cqn used=1 slots=1" >"$tmp/want"
grep "^swr_cq_overflow: " "$tmp/ovf" >"$tmp/got"
same "one overflow traced, of the CQ that rdma res shows overflowed ($cqn)" \
	"$tmp/want" "$tmp/got"
tap_ok "$(res cq "select(.cqn? == ${cqn:-0} and .pid? == $hpid) |
	\"\(.drv_cq_size) \(.drv_cq_prod) \(.drv_armed)\"")" = "1 1 no" \
	"the overflowed CQ: one slot, one CQE written, not armed"
helper_done
tap_ok $? "overflow helper exits cleanly"

# rdma res show -dd: a local pair after SENDS completed --------------------

helper res
tap_ok $? "local RC pair: SENDs completed, MR registered"
c=$(val client_qpn) s=$(val server_qpn) ring=$(val ring)
k=$(val sends) r=$(val recvs)
# PSNs start at 0x1234 (swr_qp_test.h); one packet per SEND
psn=$((0x1234 + k))
qp() {
	res qp "select(.ifname? == \"swrt0\" and .lqpn? == $1) |
		\"\(.drv_sq_size) \(.drv_sq_prod) \(.drv_sq_cons)\" +
		\" \(.drv_rq_size) \(.drv_rq_prod) \(.drv_rq_cons)\" +
		\" \(.drv_sq_psn) \(.[\"sq-psn\"]) \(.drv_rq_psn) \(.drv_path)\" +
		\" \(.drv_timer) \(has(\"drv_poller\")) \(has(\"drv_need_wakeup\"))\""
}
tap_ok "$(qp "$c")" = "$ring $k $k $ring 0 0 $psn $psn 4660 local off true true" \
	"client QP $c: SQ prod = cons = $k, PSNs, path, timer"
tap_ok "$(qp "$s")" = "$ring 0 0 $ring $r $k 4660 4660 $psn local off true true" \
	"server QP $s: RQ prod $r, cons $k, expected PSN"
tap_ok "$(res qp "select(.ifname? == \"swrt0\" and .lqpn? == $s) |
	\"\(.drv_rq_psn) \(.[\"rq-psn\"])\"")" = "$psn $psn" \
	"server QP $s: rq_psn is the core's rq-psn"
tap_ok "$(res cq "select(.pid? == $hpid) |
	\"\(.drv_cq_size) \(.drv_cq_prod) \(.drv_cq_cons) \(.drv_armed)\" +
	\" \(.drv_overflow)\"" | sort |
	tr '\n' ,)" = "$ring 0 0 no 0,$ring 0 0 no 0,$ring $k $k no 0,$ring $k $k no 0," \
	"CQs: size $ring; the send and receive CQs at prod = cons = $k"
# The text form: iproute2 6.1 puts 64-bit driver values into JSON as int.
mr=$(rdma -dd res show mr | grep " pid $hpid ")
mrf() { sed -n "s/.* drv_$1 \([^ ]*\) .*/\1/p" <<<"$mr"; }
got="$(mrf kind) $(mrf mr_state) $(mrf pinned_pages) $(mrf iova)"
tap_ok "$got $(mrf length) $(mrf access)" = \
	"user valid $(val mr_pages) $(val mr_addr) $(val mr_len) 0x1" \
	"MR: $(val mr_pages) pinned pages for $(val mr_len) page-aligned bytes, iova, access"
helper_done
tap_ok $? "res helper exits cleanly"

tap_done
