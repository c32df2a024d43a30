#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Lifecycle under load (issue 11), SWROCE_LIFECYCLE_ITERS times (default
# 3, about 2 minutes each under TCG; the full run is 100). Each iteration, with a process keeping RC
# traffic, large WRITEs and posted receives in flight (swroce_traffic load):
#   kill      the process is killed with SIGKILL; its objects go;
#   netdev    MTU changes, down, up, then the netdev is deleted: the device
#             goes with it;
#   netns     the namespace holding the netdev and device is deleted;
#   netns-rtr the namespace of a device that is not on the wire (another
#             socket had UDP 4791 there) is deleted while a process takes
#             its QPs to RTR again and again, each RTR trying to join the
#             wire: no socket may open in a namespace being dismantled
#             (issue 11 item 9; a race, so what proves it is the debug
#             kernel's KASAN and kmemleak over many iterations);
#   link-del  rdma link del;
#   rmmod     rmmod swroce, then insmod again.
# The process must survive every removal (it is killed afterwards) and no
# removal may hang. Afterwards nothing may have leaked: rdma's resource
# counts, vmalloc areas of swroce and ib_uverbs, the module use counts and
# kmalloc slab memory are compared with before (an extra first iteration
# warms the caches up and is not measured), kmemleak (when the kernel has
# it) finds nothing, and the kernel log shows no splat.
#
# Topology: lc0 10.81.1.1/24 -- veth -- lc1 10.81.1.2/24 in init_net, device
# swrlc0 on lc0; for the netns phase lcn0 10.82.1.1/24 in netns swr-lcns,
# device swrlcn (the load runs in init_net: a process in the namespace
# would keep it alive). Runs as root in the test guest (selftests/run-guest.sh)
# with $SWROCE_KO loaded. At the end the module is loaded and swroce0 is on
# veth0 again, as the following steps expect.
#
# A long run in a guest: tools/vm/vm.sh -k 6.12 -t 7200 \
#   -e SWROCE_KO=$PWD/build/kmod/<kver>/swroce.ko -e SWROCE_LIFECYCLE_ITERS=100 \
#   -- selftests/run-guest.sh lifecycle

set -u
dir=$(dirname "$0")
# shellcheck source=selftests/tap.sh
. "$dir/tap.sh"
# shellcheck source=selftests/net.sh
. "$dir/net.sh"
# shellcheck source=selftests/kmsg.sh
. "$dir/kmsg.sh"

: "${SWROCE_KO:?path of swroce.ko}"
iters=${SWROCE_LIFECYCLE_ITERS:-3}
traffic=$(cd "$dir/.." && pwd)/build/selftests/swroce_traffic
tmp=$(mktemp -d)
phases="kill netdev netns netns-rtr link-del rmmod"
declare -A fails=() why=()
load_pid=
kmsg_mark lifecycle

cleanup() {
	[ -n "$load_pid" ] && kill -9 "$load_pid" 2>/dev/null
	rdma link del swrlc0 2>/dev/null
	ip link del lc0 2>/dev/null
	ip netns del swr-lcns 2>/dev/null
	ip netns del swr-lcr 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# wait_gone DEV: device removal after a netdev event runs from a work queue
wait_gone() {
	local _
	for _ in $(seq 300); do
		[ -e "/sys/class/infiniband/$1" ] || return 0
		sleep 0.1
	done
	return 1
}

# load_start NETNS DEV [MODE]: a load process on DEV (swroce_traffic MODE,
# default load), set up and running; in NETNS unless that is "" (a process
# in a namespace keeps it alive).
# Adds the seconds its setup took to $setup_s.
setup_s=0
load_start() {
	local _ in=() t=$SECONDS ret=1
	[ -z "$1" ] || in=(ip netns exec "$1")
	: >"$tmp/ready"
	"${in[@]}" env SWROCE_DEV="$2" "$traffic" "${3:-load}" >"$tmp/ready" 2>&1 &
	load_pid=$!
	for _ in $(seq 600); do
		[ -s "$tmp/ready" ] && { ret=0; break; }
		kill -0 "$load_pid" 2>/dev/null || break
		sleep 0.1
	done
	setup_s=$((setup_s + SECONDS - t))
	return $ret
}

# load_kill: SIGKILL the load; fails unless it was alive until then
load_kill() {
	local alive=1 rc
	kill -0 "$load_pid" 2>/dev/null || alive=0
	kill -9 "$load_pid" 2>/dev/null
	wait "$load_pid"
	rc=$?
	load_pid=
	[ $alive = 1 ] && [ $rc = 137 ]
}

# fail PHASE WHAT: count a failed phase, keep the first reason
fail() {
	fails[$1]=$((${fails[$1]:-0} + 1))
	[ -n "${why[$1]:-}" ] || why[$1]="iteration $iter: $2"
}

# Objects the dead load left, by rdma's resource listing of its pid.
res_of() {
	rdma -j resource show "$1" 2>/dev/null | grep -o "\"pid\":$2[,}]" | wc -l
}

lc_up() {
	ip link show lc0 >/dev/null 2>&1 || pair "" "" lc0 lc1 81.1 81 || return 1
	[ -e /sys/class/infiniband/swrlc0 ] ||
		rdma link add swrlc0 type swroce netdev lc0 || return 1
	wait_gid swrlc0 "$(v4gid 10.81.1.1)"
}

phase_kill() {
	local pid r left
	lc_up && load_start "" swrlc0 || { fail kill "setup: $(cat "$tmp/ready")"; return; }
	pid=$load_pid
	sleep "0.$((RANDOM % 10))"
	load_kill || fail kill "the load had died before the kill"
	for r in qp cq mr pd; do
		for _ in $(seq 100); do
			left=$(res_of "$r" "$pid")
			[ "$left" = 0 ] && break
			sleep 0.1
		done
		[ "$left" = 0 ] || fail kill "$left $r objects of a killed process remain"
	done
}

phase_netdev() {
	lc_up && load_start "" swrlc0 || { fail netdev "setup: $(cat "$tmp/ready")"; return; }
	ip link set lc0 mtu 4200 && ip link set lc0 mtu 1280 &&
		ip link set lc0 down && ip link set lc0 up &&
		ip link set lc0 mtu 1500 || fail netdev "MTU/down/up failed"
	timeout 30 ip link del lc0 || fail netdev "ip link del failed or hung"
	wait_gone swrlc0 || fail netdev "the device outlived its netdev"
	load_kill || fail netdev "the load died when its netdev went"
}

phase_netns() {
	ip netns add swr-lcns && pair swr-lcns "" lcn0 lcn1 82.1 82 &&
		ip netns exec swr-lcns rdma link add swrlcn type swroce netdev lcn0 &&
		wait_gid swrlcn "$(v4gid 10.82.1.1)" &&
		load_start "" swrlcn || { fail netns "setup: $(cat "$tmp/ready")"; return; }
	timeout 30 ip netns del swr-lcns || fail netns "ip netns del failed or hung"
	wait_gone swrlcn || fail netns "the device outlived its namespace"
	load_kill || fail netns "the load died when its namespace went"
	ip link del lcn1 2>/dev/null
}

# port_taken NS: something listens on UDP 4791 in NS
port_taken() {
	ip netns exec "$1" ss -Hlun 'sport = :4791' | grep -q .
}

phase_netns_rtr() {
	local holder rc
	ip netns add swr-lcr && pair swr-lcr "" lcr0 lcr1 83.1 83 ||
		{ fail netns-rtr "setup: netns"; return; }
	# Port 4791 taken: the device starts off the wire.
	ip netns exec swr-lcr python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4791))
time.sleep(3600)' &
	holder=$!
	if ! wait_for 10 port_taken swr-lcr ||
		! ip netns exec swr-lcr rdma link add swrlcr type swroce netdev lcr0 ||
		! wait_gid swrlcr "$(v4gid 10.83.1.1)" ||
		! load_start "" swrlcr rtr; then
		fail netns-rtr "setup: $(cat "$tmp/ready")"
		kill -9 "$holder"
		wait "$holder"
		rdma link del swrlcr 2>/dev/null
		ip netns del swr-lcr
		return
	fi
	# the holder's socket only: the device did not join the wire
	[ "$(ip netns exec swr-lcr ss -Hlun 'sport = :4791' | wc -l)" = 1 ] ||
		fail netns-rtr "the device took UDP 4791: nothing to race"
	# RTRs all along: each tries to join the wire and finds the port
	# taken, until the holder dies. Its socket and its process are the
	# namespace's last references (ip netns del dropped the mount's), so
	# the port comes free only microseconds before the namespace starts
	# dying, and the RTRs that follow until the device goes try to open
	# a socket in a namespace being dismantled.
	kill -USR1 "$load_pid" || fail netns-rtr "the RTR loop was gone before the signal"
	sleep "0.$((RANDOM % 3 + 1))"
	timeout 30 ip netns del swr-lcr || fail netns-rtr "ip netns del failed or hung"
	kill -9 "$holder"
	wait "$holder"
	wait_gone swrlcr || fail netns-rtr "the device outlived its namespace"
	timeout 30 tail --pid="$load_pid" -f /dev/null ||
		{ kill -9 "$load_pid"; fail netns-rtr "the RTR loop outlived the device"; }
	wait "$load_pid"
	rc=$?
	load_pid=
	[ $rc = 0 ] || fail netns-rtr "the RTR loop ended with $rc: $(tail -1 "$tmp/ready")"
	echo "# netns-rtr: $(tail -1 "$tmp/ready")"
	ip link del lcr1 2>/dev/null
}

phase_link_del() {
	lc_up && load_start "" swrlc0 || { fail link-del "setup: $(cat "$tmp/ready")"; return; }
	timeout 30 rdma link del swrlc0 || fail link-del "rdma link del failed or hung"
	[ ! -e /sys/class/infiniband/swrlc0 ] || fail link-del "the device is still there"
	load_kill || fail link-del "the load died when its device went"
}

phase_rmmod() {
	lc_up && load_start "" swrlc0 || { fail rmmod "setup: $(cat "$tmp/ready")"; return; }
	timeout 60 rmmod swroce || fail rmmod "rmmod failed or hung"
	! lsmod | grep -q '^swroce ' || fail rmmod "the module is still loaded"
	[ ! -e /sys/class/infiniband/swrlc0 ] || fail rmmod "the device is still there"
	load_kill || fail rmmod "the load died when the module went"
	lsmod | grep -q '^swroce ' || insmod "$SWROCE_KO" || fail rmmod "insmod failed"
}

# every phase once; the slowest of each in $slow[PHASE] (seconds)
declare -A slow=()
iteration() {
	local p t
	for p in $phases; do
		t=$SECONDS
		"phase_${p//-/_}"
		t=$((SECONDS - t))
		[ "$t" -le "${slow[$p]:-0}" ] || slow[$p]=$t
	done
}

# What must be back where it was: rdma's resource summary, swroce's and
# ib_uverbs' vmalloc areas, module use counts.
snapshot() {
	rdma resource show | sed 's/^[0-9]*: //' | sort
	echo "vmalloc areas: $(grep -cE '\[(swroce|ib_uverbs)\]' /proc/vmallocinfo)"
	lsmod | awk '$1 ~ /^(swroce|ib_uverbs|ib_core)$/ { print "lsmod", $1, $3 }'
}

# kmalloc slab memory in KiB (active objects x object size)
slab_kb() {
	awk '$1 ~ /^kmalloc-/ { kb += $2 * $4 / 1024 } END { printf "%d\n", kb }' \
		/proc/slabinfo
}

settle() {
	sleep 2
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

kmemleak=/sys/kernel/debug/kmemleak
[ -e /sys/kernel/debug/kmemleak ] ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e $kmemleak ] && echo clear >$kmemleak

# the devices of the following steps stay as they are, apart from swroce0
# which rmmod takes away: it is re-created at the end
iter=0
t0=$SECONDS
iteration
tap_ok "${#fails[@]}" = 0 "warm-up iteration: every phase passed"
for p in $phases; do
	[ -n "${why[$p]:-}" ] && echo "# $p: ${why[$p]}"
done
fails=() why=()
lc_up
settle
snapshot >"$tmp/before"
slab0=$(slab_kb)
vm0=$(awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo)
echo "# warm-up took $((SECONDS - t0)) s ($(for p in $phases; do printf '%s %s s, ' "$p" "${slow[$p]}"; done)of which" \
	"$setup_s s starting the loads); $iters iterations follow"

for iter in $(seq "$iters"); do
	iteration
	[ $((iter % 10)) = 0 ] && echo "# $iter iterations done, $((SECONDS - t0)) s"
done

for p in $phases; do
	tap_ok "${fails[$p]:-0}" = 0 "$p under load: $((iters - ${fails[$p]:-0}))/$iters iterations passed, the slowest in ${slow[$p]:-0} s"
	[ -n "${why[$p]:-}" ] && echo "# first failure: ${why[$p]}"
done

lc_up
settle
snapshot >"$tmp/after"
slab1=$(slab_kb)
vm1=$(awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo)
diff "$tmp/before" "$tmp/after" >"$tmp/diff"
tap_ok $? "rdma resources, swroce/ib_uverbs vmalloc areas and module use counts as before"
sed -e 's/^/#   /' "$tmp/diff"
sed -e 's/^/#   after: /' "$tmp/after"
echo "# kmalloc slabs: $slab0 KiB before, $slab1 KiB after ($((slab1 - slab0)) KiB);" \
	"VmallocUsed $vm0 kB before, $vm1 kB after"
# Slab memory moves with everything else the kernel does (25 KiB after 3
# iterations on 6.1): allow 512 KiB of noise plus 1 KiB an iteration; a
# leaked device, QP or ring entry each iteration is more.
tap_ok $((slab1 - slab0 <= 512 + iters ? 0 : 1)) \
	"kmalloc slab memory within 512 KiB + 1 KiB/iteration of before"

if [ -e $kmemleak ]; then
	echo scan >$kmemleak
	sleep 5
	echo scan >$kmemleak
	leaks=$(cat $kmemleak)
	tap_ok "$([ -z "$leaks" ]; echo $?)" = 0 "kmemleak finds no leak"
	[ -z "$leaks" ] || head -n 200 <<<"$leaks" | sed -e 's/^/# /'
else
	tap_skip "kmemleak finds no leak" "the kernel has no kmemleak"
fi

rdma link del swrlc0 && ip link del lc0
tap_ok $? "swrlc0 and lc0 removed"
[ -e /sys/class/infiniband/swroce0 ] ||
	rdma link add swroce0 type swroce netdev veth0
tap_ok $? "swroce0 on veth0 for the steps that follow"

splats=$(kmsg_splats lifecycle)
tap_ok $? "no kernel splat in dmesg since the step began"
[ -z "$splats" ] || sed -e 's/^/# /' <<<"$splats"

tap_done
