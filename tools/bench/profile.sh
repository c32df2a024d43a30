#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# profile.sh OUTDIR TEST SIZE ITERS [EXTRA...]: where the time of one
# perftest run on swroce0 goes, in the test guest (tools/vm/vm.sh) with
# swroce.ko loaded: perf record -a (cpu-clock: TCG has no PMU) around a
# same-device run, then the top symbols overall and per task, and the
# swroce port counters before and after. For Documentation/performance.rst.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$1 test=$2 size=$3 iters=$4
shift 4
mkdir -p "$out"
ip link show veth0 >/dev/null 2>&1 || tools/vm/netsetup.sh
[ -e /etc/libibverbs.d/swroce.driver ] || make -s install >/dev/null
made=0
if [ ! -e /sys/class/infiniband/swroce0 ]; then
	rdma link add swroce0 type swroce netdev veth0
	made=1
fi
gidx=''
for f in /sys/class/infiniband/swroce0/ports/1/gids/*; do
	case "$(cat "$f")" in
	0000:0000:0000:0000:0000:ffff:*) gidx=${f##*/}; break ;;
	esac
done
ctr() {
	local k
	for k in doorbells poller_wakeups poller_sleeps wqe_consumed; do
		printf '%s=%s ' "$k" "$(cat /sys/class/infiniband/swroce0/ports/1/hw_counters/$k)"
	done
	echo
}
name=$test-$size${*:+-$*}
name=${name// /}
args=(-d swroce0 -i 1 -x "$gidx" -F -s "$size" -n "$iters" -p 18999 "$@")
ctr >"$out/$name.counters"
"$test" "${args[@]}" >"$out/$name.server" 2>&1 &
spid=$!
for ((i = 0; i < 100; i++)); do
	ss -ltn 'sport = :18999' | grep -q LISTEN && break
	sleep 0.1
done
perf record -a -g -e cpu-clock -o "$out/$name.data" -- \
	"$test" "${args[@]}" 10.77.0.1 >"$out/$name.client" 2>&1 || true
wait "$spid" || true
ctr >>"$out/$name.counters"
perf report -i "$out/$name.data" --no-children --sort sym --stdio 2>/dev/null |
	grep -E '^ +[0-9]' | head -n 30 >"$out/$name.top"
perf report -i "$out/$name.data" --no-children --sort comm --stdio 2>/dev/null |
	grep -E '^ +[0-9]' | head -n 10 >"$out/$name.comm"
[ $made = 0 ] || rdma link del swroce0
echo "== $name"; tail -n 3 "$out/$name.client"; cat "$out/$name.counters" "$out/$name.comm" "$out/$name.top"
