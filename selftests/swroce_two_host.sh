#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# swroce_two_host.sh: one side of the two-host test (make check-two). It
# runs in both guests that tools/vm/two-guests.sh boots joined by a
# virtio-net link: SWR_ROLE (a or b) says which side this is, SWR_TWO_DIR
# is the directory both see, where each side leaves marks for the other
# (ROLE.NAME files; a mark's content is a status or a checksum).
#
#   link:   the virtio NIC, 10.89.0.1 (a) / 10.89.0.2 (b), fd89::1/::2
#   swroce: swroce0 on both sides: perftest write, read, send and atomic,
#           ibv_rc_pingpong and rping, each way; NVMe over RDMA with the
#           target on b and the host on a, 16 MiB written and read back,
#           compared on both sides
#   rxe:    swroce0 on a and rxe0 on b, then rxe0 on a and swroce0 on b:
#           write, pingpong and rping each way
#   rdmacm: rdma-core's rdmacm tests on swroce0 over the NIC, each side
#
# Runs as root in the guest with swroce.ko loaded. TAP on stdout; exits 0
# once it ran to the end, whatever the results.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

role=${SWR_ROLE:-}
dir=${SWR_TWO_DIR:-}
case $role in
a) peer=b me=1 ;;
b) peer=a me=2 ;;
*) tap_bail "SWR_ROLE must be a or b (run by tools/vm/two-guests.sh)" ;;
esac
[ -d "$dir" ] || tap_bail "SWR_TWO_DIR '$dir' is not a directory"
ip4=10.89.0.$me peer4=10.89.0.$((3 - me))
T=120
log=/tmp/two-host.log

# mark NAME [VALUE]: tell the peer; await NAME [SECS]: wait for the peer's
mark() { echo "${2:-0}" >"$dir/$role.$1.tmp" && mv "$dir/$role.$1.tmp" "$dir/$role.$1"; }
await() { wait_for "${2:-600}" test -e "$dir/$peer.$1"; }
said() { cat "$dir/$peer.$1" 2>/dev/null; }
# barrier NAME: both sides got here
barrier() { mark "$1" && await "$1"; }

# --- the link ---------------------------------------------------------------
nic=$("$top/tools/vm/nic.sh") || { mark setup 1; tap_bail "no virtio NIC (vm.sh -n)"; }
ip addr add "$ip4/24" dev "$nic" &&
	ip -6 addr add "fd89::$me/64" dev "$nic" nodad &&
	ip link set "$nic" up && ip link set lo up
tap_ok $? "$role: $nic ($(ethtool -i "$nic" 2>/dev/null | awk '/^driver/ {print $2}')) up with $ip4"
wait_for 60 ping -c 1 -W 1 "$peer4" >/dev/null
tap_ok $? "$role: the peer answers ping across the link"

make -s install >/dev/null 2>&1
tap_ok $? "$role: provider installed (make install)"

# add_swroce / del_swroce, add_rxe / del_rxe: the device this side uses.
# rdma_rxe takes UDP 4791 of init_net when it loads, swroce while a
# device exists: one at a time.
add_swroce() {
	rdma link add swroce0 type swroce netdev "$nic" &&
		wait_gid swroce0 "$(v4gid "$ip4")"
}
del_swroce() { rdma link del swroce0; }
no_sock() { ! ss -Huln 'sport = :4791' | grep -q .; }
add_rxe() {
	wait_for 10 no_sock && modprobe rdma_rxe && rdma link add rxe0 type rxe netdev "$nic" &&
		wait_gid rxe0 "$(v4gid "$ip4")"
}
del_rxe() { rdma link del rxe0 && modprobe -r rdma_rxe; }

add_swroce
tap_ok $? "$role: swroce0 on $nic, its IPv4 GID present"
mark setup 0
await setup || tap_bail "the peer never came up"
[ "$(said setup)" = 0 ] || tap_bail "the peer's setup failed"

# --- one client/server program across the link -----------------------------
# across NAME SERVER DEV GOPT PROG ARGS...: PROG's server on side SERVER,
# its client on the other, each on its DEV (GOPT: how PROG names the GID
# index; "rping" for rping, which takes none). Both sides report.
across() {
	local name=$1 srv=$2 dev=$3 gopt=$4 prog=$5 idx rc pid what key
	shift 5
	key=${name//[^A-Za-z0-9-]/_}
	idx=$(gid_index "$dev" "$(v4gid "$ip4")") || idx=
	if [ "$role" = "$srv" ]; then
		what=server
		if [ "$gopt" = rping ]; then
			timeout "$T" rping -s -a "$ip4" -C 20 -S 4000 -V >$log 2>&1 &
			pid=$!
			sleep 1
		else
			stdbuf -oL timeout "$T" "$prog" -d "$dev" "$gopt" "$idx" "$@" \
				>$log 2>&1 &
			pid=$!
			wait_for 60 listening "" 18515
		fi
		mark "$key.ready"
		wait $pid
		rc=$?
		await "$key.done" "$T"
	else
		what=client
		await "$key.ready" "$T"
		if [ "$gopt" = rping ]; then
			# its listen is not visible from here: retry a while
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				timeout "$T" rping -c -a "$peer4" -C 20 -S 4000 -V >$log 2>&1
				rc=$?
				[ $rc -eq 0 ] && break
				sleep 1
			done
		else
			stdbuf -oL timeout "$T" "$prog" -d "$dev" "$gopt" "$idx" "$@" \
				"$peer4" >$log 2>&1
			rc=$?
			case $prog in
			ib_*) grep -Eq '^ *[0-9]+ +[0-9]+ ' $log || rc=1 ;;
			esac
		fi
		mark "$key.done" $rc
	fi
	[ $rc -eq 0 ] || sed 's/^/# /' $log | tail -n 20
	case $prog in
	ib_*) [ $what = client ] && grep -E '^ *[0-9]+ +[0-9]+ ' $log | sed 's/^/# /' ;;
	esac
	tap_ok $rc "$name: $prog $what on $dev ($(uname -r))"
}

# both NAME DEV GOPT PROG ARGS...: across, b serving, then a serving
both() {
	local name=$1
	shift
	across "$name a->b" b "$@"
	across "$name b->a" a "$@"
}

perftest_all() {	# perftest_all TAG DEV
	both "$1 write" "$2" -x ib_write_bw -s 65536 -n 200 -F
	both "$1 read" "$2" -x ib_read_bw -s 65536 -n 200 -F
	both "$1 send" "$2" -x ib_send_bw -s 65536 -n 200 -F
	both "$1 atomic" "$2" -x ib_atomic_bw -n 200 -F
}

# --- swroce <-> swroce -------------------------------------------------------
perftest_all "swroce-swroce" swroce0
both "swroce-swroce pingpong" swroce0 -g ibv_rc_pingpong -s 4096 -n 200 -c
both "swroce-swroce rping" swroce0 rping rping

# --- NVMe over RDMA: the target on b, the host on a --------------------------
nvme_target() {
	local cfg=/sys/kernel/config/nvmet sub ns port loopdev
	modprobe -a nvmet nvmet-rdma loop || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	truncate -s 64M /tmp/nvme.img &&
		loopdev=$(losetup -f --show /tmp/nvme.img) || return 1
	echo "$loopdev" >/tmp/nvme.loop
	sub=$cfg/subsystems/swroce-two ns=$sub/namespaces/1 port=$cfg/ports/1
	mkdir "$sub" && echo 1 >"$sub/attr_allow_any_host" &&
		mkdir "$ns" && echo -n "$loopdev" >"$ns/device_path" &&
		echo 1 >"$ns/enable" && mkdir "$port" &&
		echo rdma >"$port/addr_trtype" && echo ipv4 >"$port/addr_adrfam" &&
		echo "$ip4" >"$port/addr_traddr" &&
		echo 4420 >"$port/addr_trsvcid" &&
		ln -s "$sub" "$port/subsystems/swroce-two"
}
nvme_target_down() {
	local cfg=/sys/kernel/config/nvmet
	rm -f "$cfg/ports/1/subsystems/swroce-two"
	rmdir "$cfg/ports/1" 2>/dev/null
	echo 0 >"$cfg/subsystems/swroce-two/namespaces/1/enable" 2>/dev/null
	rmdir "$cfg/subsystems/swroce-two/namespaces/1" \
		"$cfg/subsystems/swroce-two" 2>/dev/null
	losetup -d "$(cat /tmp/nvme.loop 2>/dev/null)" 2>/dev/null
	modprobe -r nvmet-rdma nvmet 2>/dev/null
	true
}
# nvme_host: connect, write 16 MiB of random data, read it back; prints
# the data's sha256 on success
nvme_host() {
	local inst blk ctrl sum rc=1
	modprobe nvme-rdma || return 1
	exec 3<>/dev/nvme-fabrics || return 1
	echo "transport=rdma,traddr=$peer4,trsvcid=4420,nqn=swroce-two" >&3 &&
		IFS=, read -r inst _ <&3
	exec 3>&-
	inst=${inst#instance=}
	[ -n "$inst" ] || { echo "# connect failed" >&2; return 1; }
	ctrl=nvme$inst
	echo "# connected: $ctrl ($(cat /sys/class/nvme/$ctrl/transport 2>/dev/null))" >&2
	wait_for 30 test -b "/dev/${ctrl}n1" && blk=/dev/${ctrl}n1
	if [ -n "${blk:-}" ]; then
		head -c 16M /dev/urandom >/tmp/nvme.data
		sum=$(sha256sum </tmp/nvme.data | cut -c1-64)
		dd if=/tmp/nvme.data of="$blk" bs=1M oflag=direct status=none &&
			dd if="$blk" of=/tmp/nvme.back bs=1M count=16 iflag=direct \
				status=none &&
			cmp -s /tmp/nvme.data /tmp/nvme.back && rc=0
	fi
	echo 1 >"/sys/class/nvme/$ctrl/delete_controller"
	[ $rc -eq 0 ] && echo "$sum"
	return $rc
}
if [ "$role" = b ]; then
	nvme_target
	tap_ok $? "nvme: target (nvmet-rdma) on $ip4:4420, a 64 MiB loop namespace"
	mark nvme.ready
	await nvme.done 600
	sum=$(head -c 16M /tmp/nvme.img | sha256sum | cut -c1-64)
	[ -n "$(said nvme.done)" ] && [ "$(said nvme.done)" = "$sum" ]
	tap_ok $? "nvme: the 16 MiB the host wrote are on the target's disk"
	nvme_target_down
else
	await nvme.ready 300
	sum=$(nvme_host)
	tap_ok $? "nvme: host connects over RDMA, 16 MiB written and read back equal"
	mark nvme.done "$sum"
fi

# --- swroce <-> rdma_rxe, both ways -------------------------------------------
# mixed TAG DEV_A DEV_B: write, pingpong and rping each way, a on DEV_A
mixed() {
	local dev=$2
	[ "$role" = b ] && dev=$3
	both "$1 write" "$dev" -x ib_write_bw -s 65536 -n 200 -F
	both "$1 pingpong" "$dev" -g ibv_rc_pingpong -s 4096 -n 200 -c
	both "$1 rping" "$dev" rping rping
}
barrier pre-rxe
if [ "$role" = b ]; then del_swroce && add_rxe; else true; fi
tap_ok $? "$role: $([ "$role" = b ] && echo "rxe0 instead of swroce0" || echo "swroce0 kept")"
barrier rxe1
mixed swroce-rxe swroce0 rxe0
barrier rxe2
if [ "$role" = b ]; then del_rxe && add_swroce; else del_swroce && add_rxe; fi
tap_ok $? "$role: devices swapped"
barrier rxe3
mixed rxe-swroce rxe0 swroce0
barrier rxe4
if [ "$role" = a ]; then del_rxe && add_swroce; else true; fi
tap_ok $? "$role: swroce0 back"

# --- rdma-core's rdmacm tests on a NIC-backed device --------------------------
tools/rdma-core-suite/run-in-guest.sh -t 900 -k rdmacm \
	-o "$top/build/results/two/suite-$role" swroce0 >/tmp/two-suite.log 2>&1
rc=$?
grep -E '^(Ran|OK|FAILED)|skipped|passed' /tmp/two-suite.log | sed 's/^/# /' | tail -n 5
tap_ok $rc "$role: rdma-core rdmacm tests on swroce0 over $nic"
barrier end
del_swroce
# As run-guest.sh: exit 0 once everything ran; the TAP has the verdicts
# (two-guests.sh reports a guest that broke off).
tap_done
exit 0
