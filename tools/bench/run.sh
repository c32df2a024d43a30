#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# run.sh [-k KERNEL] [--smoke]: `make bench`. Boots one guest
# (tools/vm/vm.sh; default kernel: the first series of tools/kernels.sh)
# and runs tools/bench/guest.sh in it: swroce0 and rxe0 measured with the
# same settings in that one boot. Results go to
# build/bench/<kver>-<timestamp>/ (results.md, results.csv, *.png, raw.tsv,
# logs/). A full run also copies its table to BENCHMARKS.md with the
# command that produced it. Expects `make provider bench-progs kmod-all`
# to have run (make bench does that).
#   --smoke   the one-minute subset make check runs (not copied)
# BENCH_RUNS=N sets the runs per figure (default 3).

set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

kernel='' smoke=()
while [ $# -gt 0 ]; do
	case "$1" in
	-k) kernel=$2; shift ;;
	--smoke) smoke=(--smoke) ;;
	*) sed -n '4,15p' "$0" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$kernel" ] || kernel=$(tools/kernels.sh series | awk '{print $1}')
ver=$(tools/kernels.sh resolve "$kernel")
for f in "build/kmod/$ver/swroce.ko" build/bench/bin/bench_reg_mr \
	 build/bench/bin/bench_qp_mem providers/swroce/libswroce-rdmav34.so; do
	[ -e "$f" ] || { echo "bench: $f missing; run 'make bench'" >&2; exit 1; }
done

out=build/bench/$ver-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "bench: kernel $ver, results in $out"
start=$(date +%s)
# the full plan takes ~10 min under TCG on an idle host and over 30 min
# on a loaded one; the timeout is only a hang guard
tools/vm/vm.sh -k "$ver" -t 5400 -l "$out/console.log" \
	-e "BENCH_RUNS=${BENCH_RUNS:-3}" \
	-- tools/bench/guest.sh ${smoke[@]+"${smoke[@]}"} -o "$top/$out"
echo "bench: $(($(date +%s) - start)) s"
cat "$out/results.md"

if [ ${#smoke[@]} = 0 ]; then
	cmd="make bench${BENCH_KERNEL:+ BENCH_KERNEL=$BENCH_KERNEL}"
	[ "${BENCH_RUNS:-3}" = 3 ] || cmd="BENCH_RUNS=$BENCH_RUNS $cmd"
	{
		echo "# swroce benchmarks"
		echo
		echo "Latest full run, produced by \`$cmd\` (tools/bench/run.sh) at"
		git log -1 --format='commit %h' 2>/dev/null || echo 'an unknown commit'
		echo "on $(date -u '+%Y-%m-%d %H:%M UTC'), in one QEMU guest booting $ver"
		echo "(accel: $(tail -n 1 build/vm/kvm-probe 2>/dev/null || echo tcg); the full output is in"
		echo "\`$out/\`). What the figures mean, and why only ratios within one"
		echo "boot are worth comparing under TCG: Documentation/performance.rst."
		echo
		cat "$out/results.md"
	} >BENCHMARKS.md
	echo "bench: table copied to BENCHMARKS.md"
fi
