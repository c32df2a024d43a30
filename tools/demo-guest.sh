#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# demo-guest.sh: the guest half of `make run` (tools/run-demo.sh), run as
# root in the guest with swroce.ko loaded: two network namespaces joined by
# a veth pair, a swroce device on each end, perftest bandwidth and latency
# and an rping exchange between them, the device counters before and
# after, the port following its netdev.

set -e
cd "$(dirname "$0")/.."
# shellcheck source=selftests/net.sh
. selftests/net.sh
export RDMAV_DRIVERS=$PWD/providers/swroce/libswroce
A=(ip netns exec demo-a)
B=(ip netns exec demo-b)
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# counters DEV: the counters that show traffic, from rdma statistic
counters() {
	rdma statistic show link "$1/1" | awk -v dev="$1" '{
		s = "    " dev ":"
		for (i = 1; i < NF; i++)
			if ($i ~ /^(tx_pkts|rx_pkts|tx_bytes|rx_bytes|retransmits|completions|doorbells)$/)
				s = s " " $i " " $(i + 1)
		print s
	}'
}

# perf HEADER COLUMNS PROG ARGS...: PROG's server in demo-b, its client in
# demo-a; HEADER, then the COLUMNS (comma-separated numbers) of the
# client's result line
perf() {
	local head=$1 cols=$2
	shift 2
	"${B[@]}" "$@" -d swdemo1 -x "$gb" -F >"$log/srv" 2>&1 &
	wait_for 30 listening demo-b 18515
	"${A[@]}" "$@" -d swdemo0 -x "$ga" -F 10.95.1.2 >"$log/cli" 2>&1
	wait
	echo "    $head"
	grep -E '^ *[0-9]+ +[0-9]+ ' "$log/cli" |
		awk -v c="$cols" '{ n = split(c, k, ","); s = "   ";
			for (i = 1; i <= n; i++) s = s sprintf(" %-12s", $k[i]); print s }'
}

echo "### two namespaces, a veth between them, a swroce device on each end"
echo "    ip netns exec demo-a rdma link add swdemo0 type swroce netdev va"
echo "    ip netns exec demo-b rdma link add swdemo1 type swroce netdev vb"
ns_pair demo-a demo-b va vb 95.1 95 swdemo0 swdemo1
ga=$(gid_index swdemo0 "$(v4gid 10.95.1.1)")
gb=$(gid_index swdemo1 "$(v4gid 10.95.1.2)")
rdma link show | grep swdemo | sed 's/^/    /'
echo "### counters before"
counters swdemo0
counters swdemo1
echo "### ib_write_bw: RDMA WRITE of 64 KiB messages, demo-a -> demo-b"
perf "bytes        iterations   peak MB/s    average MB/s" 1,2,3,4 \
	ib_write_bw -s 65536 -n 1000
echo "### ib_write_lat: 8-byte RDMA WRITE ping-pong"
perf "bytes        iterations   min us       typical us   average us" 1,2,3,5,6 \
	ib_write_lat -s 8 -n 1000
echo "### rping: an rdma_cm connection, 10 SEND/READ/WRITE round trips, data verified"
"${B[@]}" rping -s -a 10.95.1.2 -C 10 -S 64 -V >"$log/rping-srv" 2>&1 &
for _ in $(seq 20); do
	sleep 1
	"${A[@]}" rping -c -a 10.95.1.2 -C 10 -S 64 -V -v >"$log/rping" 2>&1 && break
done
wait
grep 'ping data' "$log/rping" | head -n 2 | sed 's/^/    /'
echo "    ... $(grep -c 'ping data' "$log/rping") round trips"
echo "### counters after"
counters swdemo0
counters swdemo1
echo "### the port follows its netdev"
ip -n demo-a link set va down
echo "    va down: $("${A[@]}" ibv_devinfo -d swdemo0 | grep -o 'PORT_[A-Z]*')"
ip -n demo-a link set va up
wait_for 10 sh -c "ip netns exec demo-a ibv_devinfo -d swdemo0 | grep -q PORT_ACTIVE" || true
echo "    va up:   $("${A[@]}" ibv_devinfo -d swdemo0 | grep -o 'PORT_[A-Z]*')"
echo "### rdma link del, ip netns del"
"${A[@]}" rdma link del swdemo0
"${B[@]}" rdma link del swdemo1
ip netns del demo-a
ip netns del demo-b
rdma link show | grep -q swdemo || echo "    the devices are gone"
