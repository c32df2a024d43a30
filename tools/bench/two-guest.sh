#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# two-guest.sh: one side of `make bench-two` (tools/bench/two.sh boots the
# two guests with tools/vm/two-guests.sh). Across the virtio-net link
# between guest a (client) and guest b (server), MTU 9000, BENCH_RUNS
# runs each (default 3):
#   - iperf3 TCP, 3 s per run;
#   - swroce: ib_write_bw 64 KiB x 1000 and 1 MiB x 100, with the loss
#     window (cc_loss_window) off and on, and ib_write_lat 2 B x 500;
#   - rxe: the same perftest runs.
# Guest a prints one line per run on stdout:
#   RESULT <what> <figure> <value> [tx_pkts=N ack_timeouts=N]
# (what: tcp, swroce-lw0, swroce-lw1, rxe; Gb/s for _bw and TCP, us for
# _lat); tx_pkts counts what swroce sent for the run (retransmissions
# included). Guest b prints nothing but TAP comments.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/tap.sh
. "$top/selftests/tap.sh"
# shellcheck source=selftests/net.sh
. "$top/selftests/net.sh"
cd "$top" || exit 1

role=${SWR_ROLE:-} dir=${SWR_TWO_DIR:-}
case $role in
a) peer=b me=1 ;;
b) peer=a me=2 ;;
*) echo "SWR_ROLE must be a or b" >&2; exit 1 ;;
esac
ip4=10.89.0.$me peer4=10.89.0.$((3 - me))
runs=${BENCH_RUNS:-3}
mark() { echo "${2:-0}" >"$dir/$role.$1.tmp" && mv "$dir/$role.$1.tmp" "$dir/$role.$1"; }
await() { wait_for "${2:-900}" test -e "$dir/$peer.$1"; }
barrier() { mark "$1" && await "$1"; }

nic=$(tools/vm/nic.sh) || { echo "# no virtio NIC"; exit 1; }
ip addr add "$ip4/24" dev "$nic" && ip link set "$nic" mtu 9000 up &&
	ip link set lo up
wait_for 60 ping -c 1 -W 1 "$peer4" >/dev/null || echo "# the peer does not answer ping"
make -s install >/dev/null 2>&1 || echo "# make install failed"
barrier up

# pt DEV WHAT TEST SIZE ITERS: one perftest run, server on b
seq=0
pt() {
	local dev=$1 what=$2 t=$3 s=$4 n=$5 idx port col=4 v c tx0 to0
	seq=$((seq + 1)) port=$((18600 + seq))
	idx=$(gid_index "$dev" "$(v4gid "$ip4")")
	c=/sys/class/infiniband/$dev/ports/1/hw_counters
	case $t in *_lat) col=5 ;; esac
	local a=(-d "$dev" -x "$idx" -F -s "$s" -n "$n" -p "$port")
	case $t in *_bw) a+=(--report_gbits) ;; esac
	if [ "$role" = b ]; then
		timeout 150 "$t" "${a[@]}" >"/tmp/bench-two.$port" 2>&1 &
		local pid=$!
		wait_for 60 listening "" "$port"
		mark "r$port"
		wait $pid
		await "d$port" 200
		return
	fi
	await "r$port" 200
	tx0=$(cat "$c/tx_pkts" 2>/dev/null) to0=$(cat "$c/ack_timeouts" 2>/dev/null)
	timeout 150 "$t" "${a[@]}" "$peer4" >"/tmp/bench-two.$port" 2>&1
	v=$(awk -v c=$col '$1 ~ /^[0-9]+$/ && NF >= 5 { print $c }' "/tmp/bench-two.$port" | tail -n 1)
	if [ -n "$tx0" ]; then
		echo "RESULT $what $t-$s ${v:-na} tx_pkts=$(($(cat "$c/tx_pkts") - tx0)) ack_timeouts=$(($(cat "$c/ack_timeouts") - to0))"
	else
		echo "RESULT $what $t-$s ${v:-na}"
	fi
	mark "d$port"
}

suite() {	# suite DEV WHAT
	local r
	for ((r = 0; r < runs; r++)); do
		pt "$1" "$2" ib_write_bw 65536 1000
		pt "$1" "$2" ib_write_bw 1048576 100
	done
}

# iperf3: server on b for the whole set of runs
if [ "$role" = b ]; then
	iperf3 -s -D
	mark iperf
	await iperf.done
	pkill iperf3
else
	await iperf
	sleep 1
	for ((r = 0; r < runs; r++)); do
		v=$(iperf3 -c "$peer4" -t 3 -J |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9)' 2>/dev/null)
		echo "RESULT tcp iperf3 ${v:-na}"
	done
	mark iperf.done
fi

rdma link add swroce0 type swroce netdev "$nic" && wait_gid swroce0 "$(v4gid "$ip4")" ||
	echo "# swroce0 did not come up"
for lw in 0 1; do
	echo "$lw" >/sys/class/infiniband/swroce0/swroce/cc_loss_window ||
		echo "# cc_loss_window $lw refused"
	barrier "lw$lw"
	suite swroce0 "swroce-lw$lw"
done
for ((r = 0; r < runs; r++)); do
	pt swroce0 swroce ib_write_lat 2 500
done
barrier swroce.done
rdma link del swroce0

# rdma_rxe takes UDP 4791 when it loads: after swroce0 is gone
wait_for 10 sh -c "! ss -Huln 'sport = :4791' | grep -q ."
modprobe rdma_rxe && rdma link add rxe0 type rxe netdev "$nic" &&
	wait_gid rxe0 "$(v4gid "$ip4")" || echo "# rxe0 did not come up"
barrier rxe
suite rxe0 rxe
for ((r = 0; r < runs; r++)); do
	pt rxe0 rxe ib_write_lat 2 500
done
barrier rxe.done
rdma link del rxe0
echo "# $role done"
