#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two hosts (issue 12): one half of a test between two guests whose
# virtio-net NICs share a link (tools/vm/two-guests.sh). Guest a is
# 10.90.0.1, guest b 10.90.0.2. Three phases, each a pair of devices on
# the NICs:
#
#   swroce (a) <-> swroce (b): perftest write/read/send/atomic both ways,
#                              ibv_rc_pingpong -c, rping -V, NVMe over
#                              RDMA (target on a, host on b, data checked)
#   swroce (a) <-> rxe (b):    write/read both ways, pingpong, rping
#   rxe (a) <-> swroce (b):    likewise
#
# then rdma-core's rdmacm tests on the swroce device over the NIC (a
# device with a parent bus device and its netdev in sysfs).
#
# Environment: SWR_ROLE a|b, SWR_SYNC a directory both guests see: one
# guest announces each step there by a file and the other waits for it
# (serve/use below). Runs as root in the guest with swroce.ko loaded and
# the provider installed by make install. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

T=600
top=$(cd "$(dirname "$0")/.." && pwd)
role=${SWR_ROLE:?SWR_ROLE=a or b}
sync=${SWR_SYNC:?SWR_SYNC=<shared directory>}
case $role in
a) me=10.90.0.1 peer=10.90.0.2 other=b ;;
b) me=10.90.0.2 peer=10.90.0.1 other=a ;;
*) tap_bail "SWR_ROLE must be a or b" ;;
esac
log=/tmp/swr-two
mkdir -p $log

# announce NAME: tell the other guest NAME happened
announce() { : >"$sync/$role.$1"; }
# await NAME [SECS]: wait for the other guest's NAME (its failure, if it
# announced NAME.failed instead, ends the wait as well)
await() {
	local f=$sync/$other.$1 n=$((${2:-$T} * 10))
	until [ -e "$f" ] || [ -e "$f.failed" ]; do
		n=$((n - 1))
		[ $n -gt 0 ] || { echo "# timed out waiting for $other's $1"; return 1; }
		sleep 0.1
	done
	[ -e "$f" ]
}
# both NAME: a rendezvous
both() { announce "$1"; await "$1"; }

modprobe virtio_net 2>/dev/null
nic=
for n in /sys/class/net/*; do
	[ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] || continue
	nic=$(basename "$n")
done
[ -n "$nic" ] || tap_bail "no virtio-net NIC (tools/vm/vm.sh -n)"
ip addr add "$me/24" dev "$nic" && ip link set "$nic" up
tap_ok $? "$role: $nic up as $me"
# The peer answers once both NICs are up.
both nic-up && wait_for 60 ping -c1 -W1 -q "$peer" >/dev/null
tap_ok $? "$role: the peer guest answers across the link"

# dev_up KIND NAME: a device of KIND (swroce, rxe) on the NIC, its GID there
dev_up() {
	[ "$1" = rxe ] && { modprobe rdma_rxe || return 1; }
	rdma link add "$2" type "$1" netdev "$nic" && wait_gid "$2" "$(v4gid "$me")"
}

# server NAME PROG ARGS...: run PROG as the server of test NAME: start it,
# tell the client, wait for it to end. Its status is a test of its own.
server() {
	local name=$1 pid rc
	shift
	timeout $T "$@" >"$log/$name.srv" 2>&1 &
	pid=$!
	case $1 in
	rping) sleep 1 ;;		# listens on rdma_cm, not visible to ss
	*) wait_for 60 listening "" 18515 ;;
	esac
	announce "$name.ready"
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# srv: /' "$log/$name.srv" | tail -n 20
	announce "$name.done"
	tap_ok $rc "$name: server on $role"
}
# client NAME PROG ARGS...: run PROG as the client of test NAME once its
# server is ready (rping: retried while the server starts listening)
client() {
	local name=$1 rc=1 i
	shift
	await "$name.ready" || { tap_ok 1 "$name: client on $role"; return; }
	for i in 1 2 3 4 5; do
		timeout $T "$@" >"$log/$name.cli" 2>&1
		rc=$?
		[ $rc -eq 0 ] || [ "$1" != rping ] || [ $i = 5 ] || { sleep 1; continue; }
		break
	done
	case $1 in
	ib_*) grep -Eq '^ *[0-9]+ +[0-9]+ ' "$log/$name.cli" || rc=1
	      grep -E '^ *[0-9]+ +[0-9]+ ' "$log/$name.cli" | sed "s/^/# $name: /" ;;
	esac
	[ $rc -eq 0 ] || sed 's/^/# cli: /' "$log/$name.cli" | tail -n 20
	await "$name.done"
	tap_ok $rc "$name: client on $role"
}
# pair NAME SERVER_ROLE DEV PROG ARGS...: PROG between the two guests,
# the server on SERVER_ROLE, each with its device DEV_<role> (the
# caller's $dev) and its own GID index
pair_test() {
	local name=$1 srole=$2 prog=$3 gopt gi
	shift 3
	gi=$(gid_index "$dev" "$(v4gid "$me")")
	case $prog in
	ibv_*) gopt=(-d "$dev" -g "$gi") ;;
	ib_*) gopt=(-d "$dev" -x "$gi" -F) ;;
	rping) gopt=() ;;
	esac
	if [ "$role" = "$srole" ]; then
		case $prog in
		rping) server "$name" rping -s -a "$me" -V -C 20 -S 4000 ;;
		*) server "$name" "$prog" "${gopt[@]}" "$@" ;;
		esac
	else
		case $prog in
		rping) client "$name" rping -c -a "$peer" -V -C 20 -S 4000 ;;
		*) client "$name" "$prog" "${gopt[@]}" "$@" "$peer" ;;
		esac
	fi
}

# both_ways NAME PROG ARGS...: server on a then server on b
both_ways() {
	local name=$1
	shift
	pair_test "$name a->b" a "$@"
	pair_test "$name b->a" b "$@"
}

traffic() {	# traffic PHASE FULL: the tests of a phase (FULL: all of them)
	local p=$1 prog
	for prog in ib_write_bw ib_read_bw; do
		both_ways "$p $prog" $prog -s 65536 -n 500
	done
	if [ "$2" = 1 ]; then
		both_ways "$p ib_send_bw" ib_send_bw -s 65536 -n 500
		both_ways "$p ib_atomic_bw" ib_atomic_bw -n 500
	fi
	both_ways "$p ibv_rc_pingpong" ibv_rc_pingpong -c -s 4096 -n 200
	both_ways "$p rping" rping
}

nvme_target() {
	local d=/sys/kernel/config/nvmet s
	modprobe nvmet-rdma || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	truncate -s 64M /tmp/swr-nvme.img &&
	s=$d/subsystems/swroce-two &&
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" &&
	mkdir "$s/namespaces/1" &&
	echo -n /tmp/swr-nvme.img >"$s/namespaces/1/device_path" &&
	echo 1 >"$s/namespaces/1/enable" &&
	mkdir "$d/ports/1" && echo rdma >"$d/ports/1/addr_trtype" &&
	echo ipv4 >"$d/ports/1/addr_adrfam" &&
	echo "$me" >"$d/ports/1/addr_traddr" &&
	echo 4420 >"$d/ports/1/addr_trsvcid" &&
	ln -s "$s" "$d/ports/1/subsystems/swroce-two"
}
nvme_target_down() {
	local d=/sys/kernel/config/nvmet
	rm -f "$d/ports/1/subsystems/swroce-two"
	rmdir "$d/ports/1"
	echo 0 >"$d/subsystems/swroce-two/namespaces/1/enable"
	rmdir "$d/subsystems/swroce-two/namespaces/1" "$d/subsystems/swroce-two"
	modprobe -r nvmet-rdma nvmet 2>/dev/null
	rm -f /tmp/swr-nvme.img
}
nvme_host() {
	local c blk rc=1
	modprobe nvme-rdma || return 1
	echo "transport=rdma,traddr=$peer,trsvcid=4420,nqn=swroce-two" \
		>/dev/nvme-fabrics || return 1
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/transport")" = rdma ] && break
	done
	wait_for 60 eval 'ls -d "$c"/nvme*n1 >/dev/null 2>&1'
	blk=/dev/$(basename "$(ls -d "$c"/nvme*n1 2>/dev/null | head -n1)")
	echo "# $(basename "$c") on $(cat "$c/address"): $blk"
	if [ -b "$blk" ]; then
		head -c 16M /dev/urandom >/tmp/swr-nvme.data &&
		dd if=/tmp/swr-nvme.data of="$blk" bs=1M oflag=direct status=none &&
		dd if="$blk" of=/tmp/swr-nvme.back bs=1M count=16 iflag=direct status=none &&
		cmp /tmp/swr-nvme.data /tmp/swr-nvme.back && rc=0
	fi
	echo 1 >"$c/delete_controller"
	rm -f /tmp/swr-nvme.data /tmp/swr-nvme.back
	return $rc
}

# ---- swroce <-> swroce ----------------------------------------------------
dev=swr2h
dev_up swroce $dev
tap_ok $? "$role: swroce on $nic"
both swroce-up
[ -e "/sys/class/infiniband/$dev/device/net/$nic" ]
tap_ok $? "$role: the device sits under the NIC's bus device (device/net/$nic)"
traffic "swroce-swroce" 1
if [ "$role" = a ]; then
	nvme_target
	rc=$?
	[ $rc -eq 0 ] && announce nvme-ready || announce nvme-ready.failed
	tap_ok $rc "nvme: target on a (nvmet-rdma, a 64 MiB file)"
	await nvme-done 900
	nvme_target_down
else
	await nvme-ready 300 && nvme_host
	rc=$?
	announce nvme-done
	tap_ok $rc "nvme: host on b connects over RDMA, 16 MiB written and read back"
fi
rdma link del $dev

# ---- swroce <-> rxe, both ways -----------------------------------------------
for phase in a b; do
	if [ "$role" = "$phase" ]; then kind=swroce dev=swr2h; else kind=rxe dev=rxe2h; fi
	both "phase-$phase-clear"
	dev_up $kind $dev
	tap_ok $? "$role: $kind on $nic"
	both "phase-$phase-up"
	traffic "swroce($phase)-rxe" 0
	both "phase-$phase-end"
	rdma link del $dev
done
modprobe -r rdma_rxe 2>/dev/null

# ---- rdma-core's rdmacm tests, on the device over the NIC ---------------------
dev_up swroce swr2h
tap_ok $? "$role: swroce on $nic again"
if [ "$role" = a ]; then
	"$top/tools/rdma-core-suite/run-in-guest.sh" -k test_rdmacm \
		-o "$log/suite" swr2h >"$log/suite.log" 2>&1
	rc=$?
	grep -E 'passed|failed|skipped' "$log/suite.log" | tail -n 3 | sed 's/^/# /'
	tap_ok $rc "rdma-core rdmacm tests on swroce over a NIC"
fi
both suite-done
rdma link del swr2h
tap_done
