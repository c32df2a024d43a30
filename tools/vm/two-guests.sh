#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# two-guests.sh: two hosts in two guests. Boots guest "a" and guest "b"
# (tools/vm/vm.sh, each with the build's swroce.ko) joined by one
# virtio-net link (vm.sh -n: each NIC's wire is a UDP socket on 127.0.0.1,
# the two sockets sending to each other), and runs CMD in both at once
# with SWR_ROLE=a or b and SWR_TWO_DIR, an empty directory of the work
# tree that both guests see (their rendezvous; the traffic itself only
# crosses the link).
#
# usage: tools/vm/two-guests.sh [-a KERNEL] [-b KERNEL] [-t SECONDS]
#                               [-o DIR] -- CMD [ARGS...]
#   -a, -b   the kernels of guest a and b (default: the first and the last
#            of tools/kernels.sh series, e.g. 6.1 and 6.12)
#   -t       each guest's timeout (default 3600)
#   -o DIR   where the results go (default build/results/two):
#            a.tap, b.tap (CMD's output in each guest), vm.tap (each
#            guest's verdict as vm.sh gives it), console-a.log,
#            console-b.log
# Exit status: 0 when both guests ran CMD to its end with a clean console.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

usage() { sed -n '12,20p' "$0" >&2; exit 2; }
say() { echo "two-guests: $*" >&2; }

read -r -a series <<<"$(tools/kernels.sh series)"
ka=${series[0]} kb=${series[${#series[@]} - 1]}
tmo=3600 out=$top/build/results/two
while getopts "a:b:t:o:h" opt; do
	case "$opt" in
	a) ka=$OPTARG ;;
	b) kb=$OPTARG ;;
	t) tmo=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage

mkdir -p "$out"
rm -f "$out"/*.tap "$out"/console-*.log
sync_dir=$top/build/two/$$
rm -rf "$sync_dir"
mkdir -p "$sync_dir"
trap 'rm -rf "$sync_dir"' EXIT

# Two UDP ports on 127.0.0.1 no other run of this script uses at once.
pa=$((20000 + ($$ % 20000) * 2)) pb=$((20001 + ($$ % 20000) * 2))

# guest_run ROLE KERNEL LPORT RPORT -- CMD...: one guest, its TAP and verdict
guest_run() {
	local role=$1 k=$2 lp=$3 rp=$4 rc
	shift 5
	tools/vm/vm.sh -k "$k" -t "$tmo" -n "$lp:$rp" -l "$out/console-$role.log" \
		-e "SWR_ROLE=$role" -e "SWR_TWO_DIR=$sync_dir" -- "$@" \
		>"$out/$role.tap" 2>"$out/vm-$role.log"
	rc=$?
	case $rc in
	0)   echo "ok - vm/$role ($k): guest ran to the end with a clean console" ;;
	124) echo "not ok - vm/$role ($k): guest timed out" ;;
	125) echo "not ok - vm/$role ($k): kernel splat, taint or guest failure (console-$role.log)" ;;
	*)   echo "not ok - vm/$role ($k): guest run failed ($rc)" ;;
	esac >"$out/vm-$role.verdict"
	return $rc
}

say "guest a: $ka, guest b: $kb, link 127.0.0.1:$pa <-> :$pb"
guest_run a "$ka" "$pa" "$pb" -- "$@" &
pid_a=$!
guest_run b "$kb" "$pb" "$pa" -- "$@" &
pid_b=$!
rc=0
wait $pid_a || rc=1
wait $pid_b || rc=1
{
	n=0
	for r in a b; do
		n=$((n + 1))
		sed "s/^\(not \)\{0,1\}ok /&$n /" "$out/vm-$r.verdict"
	done
	echo "1..$n"
} >"$out/vm.tap"
rm -f "$out"/vm-?.verdict
cat "$out/vm.tap" >&2
exit $rc
