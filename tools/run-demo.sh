#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# run-demo.sh: `make run`. Installs what is missing, builds, boots the
# default kernel in a guest and shows swroce at work on one screen: two
# network namespaces joined by a veth pair, a swroce device on each end,
# perftest bandwidth and latency and an rping exchange between them, the
# device counters before and after, and the port following its netdev.
# DEMO_KERNEL= picks another kernel.

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tools/deps.sh
make -s provider kmod-all >/dev/null

# shellcheck disable=SC2016 # expanded in the guest
tools/vm/vm.sh ${DEMO_KERNEL:+-k "$DEMO_KERNEL"} -t 300 -- bash -c '
set -e
. selftests/net.sh
export RDMAV_DRIVERS=$PWD/providers/swroce/libswroce
A="ip netns exec demo-a" B="ip netns exec demo-b"
# the counters that show traffic, from rdma statistic
counters() {
	rdma statistic show link "$1/1" | tr " " "\n" |
		grep -A1 -xE "tx_pkts|rx_pkts|tx_bytes|rx_bytes|retransmits|completions|doorbells" |
		grep -v -- -- | paste -sd " " | sed "s/^/    $1: /; s/\([a-z_]*\) \([0-9]*\)/\1 \2,/g; s/,\$//"
}
# a perftest run between the namespaces; its header and result lines
perf() {
	$B "$@" -d swdemo1 -x "$gb" -F >/tmp/demo-srv.log 2>&1 &
	wait_for 30 listening demo-b 18515
	$A "$@" -d swdemo0 -x "$ga" -F 10.95.1.2 >/tmp/demo-cli.log 2>&1
	wait
	grep -E "^ *#bytes|^ *[0-9]+ +[0-9]+ " /tmp/demo-cli.log | sed "s/^ */    /"
}

echo "### two namespaces, a veth between them, a swroce device on each end"
echo "    ip netns exec demo-a rdma link add swdemo0 type swroce netdev va"
echo "    ip netns exec demo-b rdma link add swdemo1 type swroce netdev vb"
ns_pair demo-a demo-b va vb 95.1 95 swdemo0 swdemo1
ga=$(gid_index swdemo0 "$(v4gid 10.95.1.1)")
gb=$(gid_index swdemo1 "$(v4gid 10.95.1.2)")
rdma link show | grep swdemo | sed "s/^/    /"
echo "### counters before"
counters swdemo0; counters swdemo1
echo "### ib_write_bw: RDMA WRITE, 64 KiB messages, demo-a -> demo-b"
perf ib_write_bw -s 65536 -n 1000
echo "### ib_write_lat: 8-byte RDMA WRITE ping-pong"
perf ib_write_lat -s 8 -n 1000
echo "### rping: rdma_cm connection, 10 verified SEND/READ/WRITE round trips"
$B rping -s -a 10.95.1.2 -C 10 -S 64 -V >/tmp/demo-rping-srv.log 2>&1 &
for _ in $(seq 20); do
	sleep 1
	$A rping -c -a 10.95.1.2 -C 10 -S 64 -V -v >/tmp/demo-rping.log 2>&1 && break
done
wait
head -n 3 /tmp/demo-rping.log | sed "s/^/    /"
echo "    ... $(grep -c "ping data" /tmp/demo-rping.log) round trips, data verified"
echo "### counters after"
counters swdemo0; counters swdemo1
echo "### the port follows its netdev"
ip -n demo-a link set va down
echo "    va down: $($A ibv_devinfo -d swdemo0 | grep -o "PORT_[A-Z]*")"
ip -n demo-a link set va up
wait_for 10 sh -c "$A ibv_devinfo -d swdemo0 | grep -q PORT_ACTIVE" || true
echo "    va up:   $($A ibv_devinfo -d swdemo0 | grep -o "PORT_[A-Z]*")"
echo "### rdma link del, ip netns del"
ip netns exec demo-a rdma link del swdemo0
ip netns exec demo-b rdma link del swdemo1
ip netns del demo-a; ip netns del demo-b
rdma link show | grep -q swdemo || echo "    the devices are gone"
'
