#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Run rdma-core's own test suite (shipped by Debian under
# /usr/share/doc/rdma-core/tests) against each given RDMA device, inside
# the QEMU guest (tools/vm/vm.sh), then grade the first device with
# report.py.
#
# usage: run-in-guest.sh [-t SECONDS] [-o OUTDIR] [-x EXPECTED_FAILURES]
#                        [-k PATTERN] [-s SUITE -p PYVERBS] DEV [DEV...]
#   -t SECONDS  timeout per device (default 900)
#   -k PATTERN  only the tests whose name contains PATTERN (unittest -k)
#   -o OUTDIR   raw logs and reports (default build/suite/$(uname -r))
#   -x FILE     expected failures of the first DEV (default: none)
#   -s SUITE    the suite's directory (default Debian's, below), e.g. the
#               tests/ of an rdma-core tree
#   -p DIR      put DIR first on PYTHONPATH: that tree's built pyverbs
# DEV: the device under test first (e.g. swroce0), comparison devices after
# (e.g. rxe0).  Exit status: report.py's (1 when the first DEV failed).
#
# Example, from the host:
#   tools/vm/vm.sh -k 6.1 -- sh -c 'tools/vm/netsetup.sh &&
#       modprobe rdma_rxe && rdma link add rxe0 type rxe netdev veth1 &&
#       tools/rdma-core-suite/run-in-guest.sh swroce0 rxe0'

set -eu

usage() { sed -n '9,19p' "$0" >&2; exit 2; }

HERE=$(cd "$(dirname "$0")" && pwd -P)
TOP=$(cd "$HERE/../.." && pwd -P)
SUITE_SRC=/usr/share/doc/rdma-core/tests
# Debian's interpreter: it is the one with pyverbs
PY=/usr/bin/python3

tmo=900 outdir='' xfail='' pyverbs=''
pattern=()
while getopts "t:o:x:k:s:p:h" opt; do
	case "$opt" in
	t) tmo=$OPTARG ;;
	s) SUITE_SRC=$OPTARG ;;
	p) pyverbs=$OPTARG ;;
	k) pattern=(-k "$OPTARG") ;;
	o) outdir=$OPTARG ;;
	x) xfail=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage

if [ "$(hostname)" != swroce-vm ]; then
	# it loads nothing, but the devices it needs only exist in the guest
	echo "run-in-guest.sh: meant for the swroce QEMU guest (tools/vm/vm.sh)" >&2
fi
[ -f "$SUITE_SRC/run_tests.py" ] || {
	echo "run-in-guest.sh: $SUITE_SRC/run_tests.py missing (install rdma-core)" >&2
	exit 1; }
[ -n "$outdir" ] || outdir="$TOP/build/suite/$(uname -r)"
mkdir -p "$outdir"

# The suite is gzipped in place under /usr/share/doc: work on a copy.  The
# directory must be named "tests": run_tests.py loads it as that package.
work=$(mktemp -d /tmp/rdma-core-suite.XXXXXX)
# The huge page tests (utils.requires_huge_pages: parent domain rings,
# ODP) skip on an empty 2 MiB pool. Each maps one page per resource, two
# at a time; 16 pages (32 MiB of the guest's 2 GiB) leave room for those
# the garbage collector has not given back yet. Only in the guest: the
# host's pool is not ours to change.
hp_old=''
[ "$(hostname)" != swroce-vm ] || hp_old=$("$TOP/tools/vm/hugepages.sh" 16)
hp_release() {
	[ -z "$hp_old" ] || "$TOP/tools/vm/hugepages.sh" "$hp_old" >/dev/null
	hp_old=''
}
trap 'rm -rf "$work"; hp_release' EXIT
cp -r "$SUITE_SRC" "$work/tests"
find "$work/tests" -name '*.gz' -exec gunzip -f {} +

for dev in "$@"; do
	if [ ! -e "/sys/class/infiniband/$dev" ]; then
		echo "run-in-guest.sh: no RDMA device $dev" >&2
		echo "no RDMA device $dev" > "$outdir/$dev.log"
		echo 1 > "$outdir/$dev.rc"
		continue
	fi
	echo "# rdma-core suite on $dev ($(uname -r)), timeout ${tmo}s"
	start=$(date +%s)
	rc=0
	# Unbuffered: tests' own prints stay next to their result lines.
	# -k: a test stuck in the kernel may ignore TERM.
	(cd "$work/tests" &&
	 PYTHONPATH=${pyverbs:+$pyverbs${PYTHONPATH:+:}}${PYTHONPATH:-} \
	 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
	 timeout -k 10 "$tmo" "$PY" run_tests.py --dev "$dev" -v \
		${pattern[@]+"${pattern[@]}"}) \
		> "$outdir/$dev.log" 2>&1 || rc=$?
	echo "$rc" > "$outdir/$dev.rc"
	[ "$rc" != 124 ] || echo "TIMEOUT after ${tmo}s" >> "$outdir/$dev.log"
	echo "# $dev: exit $rc after $(( $(date +%s) - start ))s: $(grep -E '^(Ran [0-9]+ tests|OK|FAILED)' "$outdir/$dev.log" | tr '\n' ' ')"
done

hp_release
xargs=()
[ -z "$xfail" ] || xargs=(--xfail "$xfail")
exec "$PY" "$HERE/report.py" --dir "$outdir" --kernel "$(uname -r)" \
	${xargs[@]+"${xargs[@]}"} "$@"
