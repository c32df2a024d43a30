#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# guest.sh [--smoke] [--tap] -o OUTDIR: the benchmarks, run as root inside
# the test guest (tools/vm/vm.sh) with swroce.ko loaded. Measures swroce0
# (on veth0) and rxe0 (on veth1) with the same settings in this one boot,
# client and server on the same device; across a veth, swroce between two
# network namespaces and rxe with the traffic forced across a veth of its
# own (rxe_veth_setup), plus iperf3 TCP between the namespaces as the
# non-RDMA reference. Writes OUTDIR/raw.tsv and
# OUTDIR/logs/, then tools/bench/report.py makes results.md, results.csv
# and the plots.
#   --smoke   one run of a few small figures (make check's bench-smoke step)
#   --tap     print TAP for each figure (report.py --tap)
#   --only RE only the measurements whose "CMD ARGS" (e.g. "perftest
#             ib_write_lat 2 500") match the extended regexp RE (iterating)
# Devices, the veth pair and the namespaces this script creates are removed
# again; ones that exist already (run-guest.sh made swroce0) are used as is.
#
# raw.tsv rows: FIGURE DEVICE RUN VALUE UNIT, or FIGURE DEVICE RUN NA REASON.
# A figure that fails on a run is recorded n/a with the reason and not
# retried: a missing number is never replaced by a guessed one.

set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

smoke=0 tap=0 out='' only=''
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) smoke=1 ;;
	--tap) tap=1 ;;
	--only) only=$2; shift ;;
	-o) out=$2; shift ;;
	*) echo "usage: $0 [--smoke] [--tap] -o OUTDIR" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "guest.sh: -o OUTDIR is required" >&2; exit 2; }
if [ "$(hostname)" != swroce-vm ]; then
	echo "guest.sh: not in the swroce QEMU guest, refusing" >&2
	exit 1
fi

bin=$top/build/bench/bin
mkdir -p "$out/logs"
raw=$out/raw.tsv
: >"$raw"
RUNS=${BENCH_RUNS:-3}
[ $smoke = 0 ] || RUNS=1

# ---------------------------------------------------------------- setup
created=()
netns_made=0
rxe_veth_made=0
reported=0
cleanup() {
	local rc=$? d
	# make check counts TAP lines: a harness that broke off must show up
	# as a failure, not as an empty step.
	if [ $tap = 1 ] && [ $reported = 0 ]; then
		echo "not ok 1 - bench smoke: harness broke off (exit $rc)"
		echo "1..1"
	fi
	for d in ${created[@]+"${created[@]}"}; do
		rdma link del "$d" 2>/dev/null || true
	done
	if [ $netns_made = 1 ]; then
		ip netns del bench-a 2>/dev/null || true
		ip netns del bench-b 2>/dev/null || true
	fi
	[ $rxe_veth_made = 0 ] || rxe_veth_teardown
}
trap cleanup EXIT

# The veth pair may carry swroce0 already (run-guest.sh): recreating it
# would take that device away.
ip link show veth0 >/dev/null 2>&1 || tools/vm/netsetup.sh
# Without the installed provider libibverbs would not see swroce0.
[ -e /etc/libibverbs.d/swroce.driver ] || make -s install >/dev/null
# rdma_rxe takes UDP 4791 in init_net when it loads, and cannot if swroce0
# has it: load it first (swroce0 then works locally, which is what the
# same-device figures measure).
modprobe rdma_rxe
if [ ! -e /sys/class/infiniband/swroce0 ]; then
	rdma link add swroce0 type swroce netdev veth0
	created+=(swroce0)
fi
if [ ! -e /sys/class/infiniband/rxe0 ]; then
	rdma link add rxe0 type rxe netdev veth1
	created+=(rxe0)
fi
declare -A dev_ip=([swroce0]=10.77.0.1 [rxe0]=10.77.0.2)

# gid_index DEV: the RoCE v2 GID that carries the device's IPv4 address
# (::ffff:a.b.c.d); perftest's -x. Empty table slots read as errors.
gid_index() {
	local f i t
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		t=$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null) || continue
		[ "$t" = "RoCE v2" ] || continue
		case "$(cat "$f")" in
		0000:0000:0000:0000:0000:ffff:*) echo "$i"; return 0 ;;
		esac
	done
	return 1
}

# --------------------------------------------------------------- engine
# measure "DEV..." CMD ARGS...: run "CMD DEV ARGS..." $RUNS times on each
# device, the devices taking turns run by run, so that a change in the
# host's load (two cores shared with other guests) hits both alike. CMD
# prints rows "value<TAB>FIGURE<TAB>UNIT" or "na<TAB>FIGURE<TAB>REASON";
# they go to raw.tsv with the device and run number. A device's first n/a
# ends its runs of this figure.
measure() {
	local devlist=$1 r d rows
	local -A stopped=()
	shift
	if [ -n "$only" ] && ! grep -qE -- "$only" <<<"$*"; then
		return 0
	fi
	for ((r = 1; r <= RUNS; r++)); do
		for d in $devlist; do
			[ -z "${stopped[$d]:-}" ] || continue
			# CMD runs in a subshell: count here what it must not reuse
			seq=$((seq + 1))
			rows=$("$1" "$d" "${@:2}") || true
			[ -n "$rows" ] || rows=$(printf 'na\t%s\tno output' "$*")
			printf '%s\n' "$rows" | awk -F'\t' -v d="$d" -v r="$r" -v OFS='\t' '
				$1 == "na" { print $2, d, r, "NA", $3; next }
				{ print $2, d, r, $1, $3 }' >>"$raw"
			if printf '%s\n' "$rows" | grep -q '^na	'; then
				echo "# bench: $d: $(printf '%s\n' "$rows" | grep -m1 '^na	' | cut -f2-)" >&2
				stopped[$d]=1
			fi
		done
	done
}

seq=0
# perftest DEV TEST SIZE ITERS [EXTRA...]: server in the background and
# client on the same device, the client connecting to the device's own
# address. -F: don't refuse to run because cpufreq scaling is on (TCG).
perftest() {
	local dev=$1 test=$2 size=$3 iters=$4 fig unit col log spid rc i line port try
	local sdev cdev sgidx cgidx ip crossed0=0
	local -a sns=() cns=()
	shift 4
	fig="$test $(human "$size")${*:+ $*}"
	# bw: #bytes #iterations BW-peak BW-average MsgRate: BW-average, but
	# for 8-byte atomics the message rate says more.
	# lat: #bytes #iterations t_min t_max t_typical t_avg ...: t_typical
	# is perftest's median.
	case "$test" in
	*_lat) unit=us col=5 ;;
	ib_atomic_bw) unit=Mpps col=5 ;;
	*) unit=Gb/s col=4 ;;
	esac
	# The topology: one device, or (swroce-veth) a swroce device at each
	# end of the veth between the namespaces, server in bench-b, or
	# (rxe-veth) an rxe device at each end of a veth in init_net, the
	# traffic forced across it (rxe_veth_setup).
	if [ "$dev" = swroce-veth ]; then
		fig+=", veth between two netns$veth_note"
		sdev=swrvb cdev=swrva ip=10.78.0.2
		sns=(ip netns exec bench-b) cns=(ip netns exec bench-a)
	elif [ "$dev" = rxe-veth ]; then
		# the same figure name as swroce's: report.py compares them
		fig+=", veth between two netns$veth_note"
		sdev=rxvb cdev=rxva ip=10.79.0.2
	else
		sdev=$dev cdev=$dev ip=${dev_ip[$dev]}
	fi
	if ! sgidx=$(gid_index "$sdev") || ! cgidx=$(gid_index "$cdev"); then
		printf 'na\t%s\tno IPv4 RoCE v2 GID\n' "$fig"
		return
	fi
	local args=(-i 1 -F -s "$size" -n "$iters" "$@")
	case "$test" in *_bw) args+=(--report_gbits) ;; esac
	# perftest now and then prints "inf" for every latency (seen once
	# in ~60 rxe runs under TCG): such a run measured nothing; run it
	# once more before giving up.
	for try in 1 2; do
		# a fresh port per run: no wait for the last one's TIME_WAIT
		port=$((18500 + 2 * seq + try))
		counters_read c0 "$sdev" "$cdev"
		[ "$dev" != rxe-veth ] || crossed0=$(veth_bytes)
		log=$out/logs/$dev.${fig// /_}.$port
		timeout 90 ${sns[@]+"${sns[@]}"} "$test" -d "$sdev" -x "$sgidx" \
			"${args[@]}" -p "$port" >"$log.server" 2>&1 &
		spid=$!
		# The client does not retry its TCP connect: wait for the listener.
		for ((i = 0; i < 100; i++)); do
			${sns[@]+"${sns[@]}"} ss -ltn "sport = :$port" | grep -q LISTEN && break
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
		rc=0
		timeout 90 ${cns[@]+"${cns[@]}"} "$test" -d "$cdev" -x "$cgidx" \
			"${args[@]}" -p "$port" "$ip" >"$log.client" 2>&1 || rc=$?
		wait "$spid" 2>/dev/null || true
		counters_read c1 "$sdev" "$cdev"
		# The result row starts with the message size (atomics: 8 bytes).
		line=$(awk -v c="$col" '$1 ~ /^[0-9]+$/ && NF >= 5 { print $c }' \
			"$log.client" | tail -n 1)
		# perftest also prints 0.000000 for every figure of a run now
		# and then (both devices, ~1 run in 20 under a loaded host):
		# nothing was measured either: run it again, as for "inf"
		[ -z "$line" ] || [[ ! "$line" =~ ^0*\.?0*$ ]] || line=0
		# only a run that ended well but printed no number is run again
		if [ "$rc" != 0 ] || [ -z "$line" ] ||
		   { [[ "$line" =~ ^[0-9.]+$ ]] && [ "$line" != 0 ]; }; then
			break
		fi
	done
	# rxe-veth: a run whose bytes did not cross the veth measured the
	# loopback, not the wire
	if [ "$dev" = rxe-veth ] && [ "$rc" = 0 ] &&
	   [ $(($(veth_bytes) - crossed0)) -lt $((size * iters)) ]; then
		printf 'na\t%s\ttraffic did not cross the veth (%s bytes)\n' \
			"$fig" $(($(veth_bytes) - crossed0))
	elif [ "$rc" = 0 ] && [[ "$line" =~ ^[0-9.]+$ ]] && [ "$line" != 0 ]; then
		printf '%s\t%s\t%s\n' "$line" "$fig" "$unit"
		counters_rows "$fig"
	elif [ "$rc" = 0 ] && [ -n "$line" ]; then
		printf 'na\t%s\tperftest printed %s twice\n' "$fig" "$line"
	else
		printf 'na\t%s\t%s\n' "$fig" "$(why "$rc" "$log.client" "$log.server")"
	fi
}

# counters_read ARRAY DEV...: swroce's data-path port counters (doorbells,
# poller_wakeups, wqe_consumed) summed over the distinct DEVs into ARRAY;
# nothing for devices without them (rxe).
declare -A c0=() c1=()
# shellcheck disable=SC2034 # arr is a nameref: the caller's array
counters_read() {
	local -n arr=$1
	local k f d
	arr=()
	shift
	for d in $(printf '%s\n' "$@" | sort -u); do
		for k in doorbells poller_wakeups wqe_consumed; do
			f=/sys/class/infiniband/$d/ports/1/hw_counters/$k
			[ -r "$f" ] || continue
			arr["$k"]=$((${arr[$k]:-0} + $(cat "$f")))
		done
	done
	return 0
}

# counters_rows FIG: per 1,000 WQEs consumed during the run (both ends: the
# client's and the server's QPs share the device), the doorbell calls and
# the poller's wake-ups, from the c0/c1 snapshots around it.
counters_rows() {
	local ops k now was
	[ -n "${c1[wqe_consumed]:-}" ] || return 0
	ops=$((c1[wqe_consumed] - c0[wqe_consumed]))
	[ "$ops" -gt 0 ] || return 0
	for k in doorbells poller_wakeups; do
		now=${c1[$k]} was=${c0[$k]}
		printf '%s\t%s\t%s\n' \
			"$(awk -v d=$((now - was)) -v n="$ops" \
				'BEGIN { printf "%.4g", 1000 * d / n }')" \
			"$1: ${k/_/ } per 1,000 WQEs" "/1k WQEs"
	done
}

# why RC LOG...: a one-line reason for a failed run, from the logs.
why() {
	local rc=$1 msg
	shift
	[ "$rc" != 124 ] || { echo "timed out"; return; }
	msg=$(grep -hiE "couldn'?t|unable|fail|error|not supported" "$@" 2>/dev/null |
	      head -n 2 | tr -s ' \t\n' ' ' | sed 's/ $//')
	echo "exit $rc: ${msg:-no result line}"
}

human() {
	local b=$1
	if [ "$b" -ge 1073741824 ] && [ $((b % 1073741824)) = 0 ]; then echo "$((b / 1073741824)) GiB"
	elif [ "$b" -ge 1048576 ] && [ $((b % 1048576)) = 0 ]; then echo "$((b / 1048576)) MiB"
	elif [ "$b" -ge 1024 ] && [ $((b % 1024)) = 0 ]; then echo "$((b / 1024)) KiB"
	else echo "$b B"; fi
}

# reg_mr DEV SIZE REPS [NOTE]: per-op ibv_reg_mr and ibv_dereg_mr time.
reg_mr() {
	local dev=$1 size=$2 reps=$3 note=${4:-} res rc=0 h
	h="$(human "$size")$note"
	res=$("$bin/bench_reg_mr" "$dev" "$size" "$reps" 2>&1) || rc=$?
	if [ $rc = 0 ]; then
		printf '%s\tibv_reg_mr %s\tus\n' "$(sed -n 's/^reg_us=//p' <<<"$res")" "$h"
		printf '%s\tibv_dereg_mr %s\tus\n' "$(sed -n 's/^dereg_us=//p' <<<"$res")" "$h"
	else
		res=$(sed -n 's/^na=//p' <<<"$res" | head -n 1)
		printf 'na\tibv_reg_mr %s\t%s\n' "$h" "${res:-exit $rc}"
		printf 'na\tibv_dereg_mr %s\t%s\n' "$h" "${res:-exit $rc}"
	fi
}

# qp_mem DEV COUNT: kernel memory per RC QP with 256-entry queues.
qp_mem() {
	local dev=$1 count=$2 res rc=0 k f
	res=$("$bin/bench_qp_mem" "$dev" "$count" 2>&1) || rc=$?
	for k in slab_kib_per_qp vmalloc_kib_per_qp residual_kib; do
		case $k in
		slab_kib_per_qp) f="kernel slab per RC QP ($count QPs)" ;;
		vmalloc_kib_per_qp) f="kernel vmalloc per RC QP ($count QPs)" ;;
		residual_kib) f="kernel memory left after destroying $count QPs" ;;
		esac
		if [ $rc = 0 ]; then
			printf '%s\t%s\tKiB\n' "$(sed -n "s/^$k=//p" <<<"$res")" "$f"
		else
			printf 'na\t%s\t%s\n' "$f" "$(sed -n 's/^na=//p' <<<"$res" | head -n 1)"
		fi
	done
}

# iperf3 over a veth pair of its own between two namespaces, so the kernel
# TCP path is measured without the RDMA devices' netdevs.
iperf() {	# iperf tcp SECS
	local secs=$2 fig="iperf3 TCP, veth between two netns$veth_note" bps i
	ip netns exec bench-b iperf3 -s -1 -p 5201 >"$out/logs/iperf3.server" 2>&1 &
	for ((i = 0; i < 100; i++)); do
		ip netns exec bench-b ss -ltn 'sport = :5201' | grep -q LISTEN && break
		sleep 0.1
	done
	if ip netns exec bench-a iperf3 -c 10.78.0.2 -p 5201 -t "$secs" -J \
		>"$out/logs/iperf3.client.json" 2>&1 &&
	   bps=$(/usr/bin/python3 -c 'import json,sys
print("%.3f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))' \
		"$out/logs/iperf3.client.json"); then
		printf '%s\t%s\tGb/s\n' "$bps" "$fig"
	else
		printf 'na\t%s\tiperf3 failed (see logs/iperf3.*)\n' "$fig"
	fi
	wait 2>/dev/null || true
}

# wait_gids DEV...: up to 5 s each for the IPv4 GID, which follows the
# address asynchronously; always succeeds (a missing GID makes the figure
# n/a with its reason)
wait_gids() {
	local d i
	for d in "$@"; do
		for ((i = 0; i < 50; i++)); do
			gid_index "$d" >/dev/null && break
			sleep 0.1
		done
	done
	return 0
}

# The veth pair between namespaces bench-a (10.78.0.1) and bench-b
# (10.78.0.2): iperf3's, and with a swroce device at each end (swrva,
# swrvb), the "swroce-veth" topology of perftest(). Its MTU is 9000, as
# RoCE fabrics run with jumbo frames (path MTU 4096 needs a link MTU of
# at least 4096 + headers); veth_mtu changes it for the rows that say so.
veth_note=''
veth_setup() {
	ip netns add bench-a
	ip netns add bench-b
	netns_made=1
	ip link add bnv0 netns bench-a mtu 9000 type veth peer name bnv1 \
		netns bench-b mtu 9000
	ip -n bench-a addr add 10.78.0.1/24 dev bnv0
	ip -n bench-b addr add 10.78.0.2/24 dev bnv1
	ip -n bench-a link set bnv0 up
	ip -n bench-b link set bnv1 up
	ip -n bench-a link set lo up
	ip -n bench-b link set lo up
	ip netns exec bench-a rdma link add swrva type swroce netdev bnv0 &&
		created+=(swrva)
	ip netns exec bench-b rdma link add swrvb type swroce netdev bnv1 &&
		created+=(swrvb)
	wait_gids swrva swrvb
}

# rxe across a veth, the reference for swroce-veth. rdma_rxe has one UDP
# socket, in init_net, so both its devices live there, on the two ends of
# veth bnr0 (10.79.0.1) / bnr1 (10.79.0.2). Between two local addresses
# the kernel routes through lo; to make the traffic cross the veth:
#  - the rule for the local table moves from preference 0 to 10, and a
#    rule at 5 sends what this host originates (iif lo) from one address
#    to the other through a table whose only route is the other veth end;
#    packets arriving on the veth still find the local table (at 10);
#  - the veth ends take packets from a local source address (accept_local,
#    no reverse-path filter) and know each other's MAC (static neighbours).
# perftest's TCP connection has no source address when it is routed, so it
# goes through lo; only RoCE traffic crosses. rxe_veth_teardown undoes it.
rxe_veth_setup() {
	local a b d
	ip link add bnr0 mtu 9000 type veth peer name bnr1 mtu 9000
	rxe_veth_made=1
	ip addr add 10.79.0.1/24 dev bnr0
	ip addr add 10.79.0.2/24 dev bnr1
	for d in all bnr0 bnr1; do
		sysctl -qw "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0"
	done
	ip link set bnr0 up
	ip link set bnr1 up
	a=$(cat /sys/class/net/bnr0/address) b=$(cat /sys/class/net/bnr1/address)
	ip neigh replace 10.79.0.2 lladdr "$b" dev bnr0 nud permanent
	ip neigh replace 10.79.0.1 lladdr "$a" dev bnr1 nud permanent
	ip route add 10.79.0.2 dev bnr0 table 79
	ip route add 10.79.0.1 dev bnr1 table 80
	ip rule add pref 10 lookup local
	ip rule del pref 0 lookup local
	ip rule add pref 5 iif lo from 10.79.0.1 to 10.79.0.2 lookup 79
	ip rule add pref 5 iif lo from 10.79.0.2 to 10.79.0.1 lookup 80
	rdma link add rxva type rxe netdev bnr0 && created+=(rxva)
	rdma link add rxvb type rxe netdev bnr1 && created+=(rxvb)
	wait_gids rxva rxvb
}

rxe_veth_teardown() {
	ip rule del pref 5 2>/dev/null
	ip rule del pref 5 2>/dev/null
	ip rule show | grep -q '^0:.*lookup local' ||
		ip rule add pref 0 lookup local
	ip rule del pref 10 lookup local 2>/dev/null
	ip link del bnr0 2>/dev/null
	rxe_veth_made=0
	return 0
}

# Bytes sent by bnr0 (rxe-veth's client end).
veth_bytes() {
	cat /sys/class/net/bnr0/statistics/tx_bytes
}

# veth_mtu MTU: both ends of the veth; the devices' active MTU follows.
veth_mtu() {
	[ $rxe_veth_made = 0 ] || {
		ip link set bnr0 mtu "$1"
		ip link set bnr1 mtu "$1"
	}
	ip -n bench-a link set bnv0 mtu "$1"
	ip -n bench-b link set bnv1 mtu "$1"
	if [ "$1" = 9000 ]; then veth_note=''; else veth_note=", MTU $1"; fi
}

# ---------------------------------------------------------------- plan
KiB=1024 MiB=1048576
{
	echo "kernel $(uname -r)"
	# the module has no MODULE_VERSION, hence no srcversion: hash it
	echo "swroce.ko sha256 $(sha256sum <"${SWROCE_KO:-$top/build/kmod/$(uname -r)/swroce.ko}" | cut -c1-16)"
	echo "perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
	echo "runs $RUNS"
	echo "smoke $smoke"
	grep -E 'MemTotal|MemAvailable' /proc/meminfo
} >"$out/env.txt"
devs="swroce0 rxe0"
t0=$(date +%s)

if [ $smoke = 1 ]; then
	measure "$devs" reg_mr $((4 * KiB)) 100
	measure "$devs" reg_mr $MiB 20
	measure "$devs" perftest ib_write_bw $((64 * KiB)) 100
	measure "$devs" perftest ib_write_lat 2 100
	measure "$devs" qp_mem 100
	veth_setup
	rxe_veth_setup
	measure "swroce-veth rxe-veth" perftest ib_write_bw $((64 * KiB)) 100
	measure tcp iperf 1
else
	# The largest buffer that fits: 1 GiB unless the guest's free memory
	# (2 GiB RAM, root on tmpfs) is too short; keep 384 MiB headroom so the
	# OOM killer never picks the harness.
	avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
	big=$((1024 * MiB)) note=
	while [ $((big + 384 * MiB)) -gt "$avail" ] && [ $big -gt $((64 * MiB)) ]; do
		big=$((big / 2)) note=" (1 GiB did not fit)"
	done
	# Registration times move with the host's load more than anything
	# (runs of one device differ by 2x): three times the runs, which
	# are short.
	RUNS=$((3 * RUNS)) measure "$devs" reg_mr $((4 * KiB)) 1000
	RUNS=$((3 * RUNS)) measure "$devs" reg_mr $MiB 100
	RUNS=$((3 * RUNS)) measure "$devs" reg_mr $((64 * MiB)) 5
	RUNS=$((3 * RUNS)) measure "$devs" reg_mr $big 2 "$note"
	# iteration counts keep rxe's runs at a few seconds under TCG at
	# most; at least 1,000 WQEs, or 200 MiB, so that the one doorbell
	# that wakes the poller asleep before a run weighs at most 5 per
	# 1,000 WQEs in the doorbell table (1 MiB x 20 made 50 by itself)
	for t in ib_write_bw ib_read_bw ib_send_bw; do
		measure "$devs" perftest $t 64 2000
		measure "$devs" perftest $t $((4 * KiB)) 1000
		measure "$devs" perftest $t $((64 * KiB)) 2000
		measure "$devs" perftest $t $MiB 200
	done
	# four QPs of 500 each: the 2,000 WQEs of the -q 1 row above
	measure "$devs" perftest ib_write_bw $((64 * KiB)) 500 -q 4
	for t in ib_write_lat ib_read_lat ib_send_lat; do
		measure "$devs" perftest $t 2 500
		measure "$devs" perftest $t $((4 * KiB)) 500
	done
	measure "$devs" perftest ib_atomic_bw 8 1000
	measure "$devs" perftest ib_atomic_lat 8 500
	measure "$devs" qp_mem 1000
	veth_setup
	rxe_veth_setup
	# 64 KiB: 2,000 messages, a second at these rates (200 took a tenth,
	# where a run's first round trips weighed on the figure); TCP's runs
	# take 3 s
	measure "swroce-veth rxe-veth" perftest ib_write_bw $((4 * KiB)) 200
	measure "swroce-veth rxe-veth" perftest ib_write_bw $((64 * KiB)) 2000
	measure "swroce-veth rxe-veth" perftest ib_write_bw $MiB 200
	measure "swroce-veth rxe-veth" perftest ib_write_lat 2 500
	# READ on the wire: the responder's responses (swr_wire_resp.c)
	measure swroce-veth perftest ib_read_bw $((64 * KiB)) 200
	measure swroce-veth perftest ib_read_lat 2 500
	measure swroce-veth perftest ib_read_lat $((64 * KiB)) 200
	measure tcp iperf 3
	# the Ethernet default: path MTU 1024, four times the packets
	veth_mtu 1500
	measure swroce-veth perftest ib_write_bw $((64 * KiB)) 2000
	measure tcp iperf 3
	veth_mtu 9000
fi
echo "seconds $(($(date +%s) - t0))" >>"$out/env.txt"

reported=1
report=(/usr/bin/python3 "$top/tools/bench/report.py" "$out")
[ $tap = 0 ] || report+=(--tap)
"${report[@]}"
