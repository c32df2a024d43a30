#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two RC RDMA WRITE flows through a shaped, ECN-marking bottleneck (issue
# 11 item 12: this exact setup once crashed a 6.12 guest with "Oops: double
# fault" in the poller's skb allocation, swr_skb_alloc() <- swr_wire_poll()
# <- swr_req_process() <- swr_poll_pass()). Topology, built here and removed
# at the end:
#
#   netns swr-qa: va 10.80.1.1/24, device swrq0 (swroce): the writers
#     | veth; egress of va: tbf 100mbit burst 20k latency 100ms,
#     | its child red ... probability 1 bandwidth 100mbit ecn
#   netns swr-qb: vb 10.80.1.2/24, device swrq1 (swroce): the targets
#
# Both flows are `ib_write_bw -s 65536 -D 12` at the same time (TCP ports
# 18515 and 18516 for perftest's connection setup). Passes when both report
# a nonzero average bandwidth and the kernel logged no report meanwhile
# (tools/vm/splat.sh: oops, KASAN, lockdep, UBSAN, ... on the debug kernel).
# Runs as root inside the test guest (selftests/run-guest.sh), with the
# provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"
# shellcheck source=selftests/kmsg.sh
. "$(dirname "$0")/kmsg.sh"

D=12		# seconds per flow, as in the report
PORTS="18515 18516"
log=/tmp/swr-qdisc

cleanup() {
	ip netns del swr-qa 2>/dev/null
	ip netns del swr-qb 2>/dev/null
}
trap cleanup EXIT
cleanup

ns_pair swr-qa swr-qb va vb 80.1 80 swrq0 swrq1 ||
	tap_bail "two swroce devices on a veth between two namespaces"
tc -n swr-qa qdisc add dev va root handle 1: \
	tbf rate 100mbit burst 20k latency 100ms &&
	tc -n swr-qa qdisc add dev va parent 1:1 handle 10: \
		red limit 1000000 min 20000 max 60000 avpkt 1500 burst 20 \
		probability 1 bandwidth 100mbit ecn
tap_ok $? "tbf 100mbit with a red/ecn child on va"

ga=$(gid_index swrq0 "$(v4gid 10.80.1.1)")
gb=$(gid_index swrq1 "$(v4gid 10.80.1.2)")
kmsg_mark qdisc

# Servers (the write targets) in swr-qb, one per port; then both clients.
pids=()
for p in $PORTS; do
	ip netns exec swr-qb timeout $((D + 60)) ib_write_bw -d swrq1 -x "$gb" \
		-p "$p" -s 65536 -D $D -F >"$log-srv-$p.log" 2>&1 &
	pids+=($!)
done
for p in $PORTS; do
	wait_for 10 listening swr-qb "$p"
done
for p in $PORTS; do
	ip netns exec swr-qa timeout $((D + 60)) ib_write_bw -d swrq0 -x "$ga" \
		-p "$p" -s 65536 -D $D -F 10.80.1.2 >"$log-cli-$p.log" 2>&1 &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	wait "$pid"
done

# perftest's result line: #bytes #iterations BW-peak BW-average MsgRate.
# Under TCG perftest now and then prints 0.00 for every rate (its cycle
# counter calibration fails: "Correlation coefficient r^2 < 0.9"), so the
# bandwidth is also computed from the iterations completed in the D s.
for p in $PORTS; do
	line=$(awk '$1 == 65536 && NF >= 5 { print; exit }' "$log-cli-$p.log")
	# shellcheck disable=SC2086 # split the result line into fields
	set -- $line
	echo "# flow on port $p: ${line:-no result line}"
	if [ "${2:-0}" -gt 0 ] 2>/dev/null; then
		echo "# flow on port $p: $2 x 64 KiB in $D s =" \
			"$(($2 * 65536 * 8 / D / 1000)) kbit/s (perftest: ${4:-?} MB/s)"
		tap_ok 0 "ib_write_bw flow on port $p: nonzero bandwidth through tbf+red"
	else
		sed 's/^/# srv: /' "$log-srv-$p.log"
		sed 's/^/# cli: /' "$log-cli-$p.log"
		tap_ok 1 "ib_write_bw flow on port $p: nonzero bandwidth through tbf+red"
	fi
done
tc -n swr-qa -s qdisc show dev va | sed 's/^/# /'

splats=$(kmsg_splats qdisc)
tap_ok $? "no kernel report (oops, KASAN, lockdep, UBSAN, ...) during the flows"
[ -z "$splats" ] || sed 's/^/# /' <<<"$splats" | head -n 80

tap_done
