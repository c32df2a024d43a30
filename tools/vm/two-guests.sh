#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two hosts: boot two QEMU guests whose virtio-net NICs share one link (a
# pair of UDP sockets on the host's loopback, tools/vm/vm.sh -n), each
# running CMD with SWR_ROLE=a or b and SWR_SYNC, a directory of the work
# tree both see, for their rendezvous files (selftests/swroce_two_host.sh).
#
# usage: tools/vm/two-guests.sh [-a KERNEL] [-b KERNEL] [-t SECONDS]
#                               [-o OUTDIR] -- CMD [ARGS...]
#   -a, -b      the kernels of guest a and b (default 6.1 and 6.12)
#   -t SECONDS  timeout of each guest (default 1800)
#   -o OUTDIR   where a.out, b.out (CMD's output) and the consoles go
#               (default build/two)
# Exit status: 0 if both guests ran CMD to a 0 status with a clean
# console, else the first non-zero status of vm.sh (a's, then b's).

set -u

usage() { sed -n '9,16p' "$0" >&2; exit 2; }

TOP=$(cd "$(dirname "$0")/../.." && pwd -P)
ka=6.1 kb=6.12 tmo=1800 out=$TOP/build/two
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
[ $# -ge 1 ] || usage
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
mkdir -p "$out"

# Two ports of the host's loopback for this run's link; the sync
# directory inside the work tree (the guests share nothing else).
base=$((20000 + ($$ % 20000) * 2))
sync=$TOP/build/two/sync.$$
rm -rf "$sync"
mkdir -p "$sync"
trap 'rm -rf "$sync"' EXIT

guest() {	# guest ROLE KERNEL LPORT RPORT CMD...
	local role=$1 k=$2 lp=$3 rp=$4 ver
	shift 4
	ver=$(bash "$TOP/tools/kernels.sh" resolve "$k") || return 1
	bash "$TOP/tools/vm/vm.sh" -k "$k" -t "$tmo" -n "$lp:$rp" \
		-l "$out/console-$role.log" \
		-m "$TOP/build/kmod/$ver/swroce.ko" \
		-e SWR_ROLE="$role" -e SWR_SYNC="$sync" -- "$@"
}
cmd=("$@")
guest a "$ka" $base $((base + 1)) "${cmd[@]}" >"$out/a.out" 2>&1 &
pa=$!
guest b "$kb" $((base + 1)) $base "${cmd[@]}" >"$out/b.out" 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
echo "two-guests: a ($ka) exit $ra, b ($kb) exit $rb; output in $out" >&2
[ $ra -ne 0 ] && exit $ra
exit $rb
