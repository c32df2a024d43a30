#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# guest.sh -o OUTDIR TAG...: inside the QEMU guest (tools/vm/vm.sh -n hub,
# swroce.ko loaded), each rdma-core release built by tools/rdma-core/build.sh
# with our provider in its in-place lib/ and etc/libibverbs.d/ (check.sh
# puts it there), tested with that release's own programs:
#   loads     its ibv_devinfo lists swroce0, the provider loaded from the
#             tree's lib/ by the tree's libibverbs (LD_DEBUG=files), with
#             no RDMAV_DRIVERS
#   pingpong  its ibv_rc_pingpong (-c: data checked) between two swroce
#             devices in two network namespaces
#   suite     its tests/ with its pyverbs on swroce0 (on the virtio NIC,
#             as run-guest.sh does, so the rdmacm tests run), graded with
#             tools/rdma-core/xfail-TAG.txt where there is one; each test
#             that fails runs again on rxe0 (the kernel's Soft-RoCE, on
#             the same NIC), and the summary says how many failed there
#             too: those are limits of the kernel or the suite, not ours
# OUTDIR/TAG/result.tsv gets "loads pingpong suite" (yes/no, and the
# report's summary); the logs beside it.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
# shellcheck source=selftests/net.sh
. "$top/selftests/net.sh"

out=''
while getopts "o:" opt; do
	case "$opt" in
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$out" ] || [ $# -lt 1 ]; then
	echo "usage: guest.sh -o OUTDIR TAG..." >&2
	exit 2
fi
[ "$(hostname)" = swroce-vm ] || { echo "guest.sh: not in the swroce guest" >&2; exit 1; }
unset RDMAV_DRIVERS IBV_DRIVERS

# swroce0 on the NIC vm.sh -n hub gives (the suite's device), swra and
# swrb across namespaces (the pingpong's).
nic=$(tools/vm/nic.sh) || { echo "guest.sh: no NIC (vm.sh -n hub)" >&2; exit 1; }
if ! { ip addr add 10.77.9.1/24 dev "$nic" &&
	ip -6 addr add fd77:9::1/64 dev "$nic" nodad &&
	ip link set "$nic" up &&
	rdma link add swroce0 type swroce netdev "$nic" &&
	ns_pair swr-a swr-b va vb 96.1 96 swra swrb; }; then
	echo "guest.sh: devices not set up" >&2
	exit 1
fi
wait_gid swroce0 "$(v4gid 10.77.9.1)"

# rerun_on_rxe TAG TREE OUTDIR: the suite's failed tests (OUTDIR/suite.tap)
# once more, each alone, on rxe0 in swroce0's place; prints
# ", rxe0 fails K of N: NAME..." for the summary line.
rerun_on_rxe() {
	local tag=$1 tree=$2 o=$3 t name n=0 k=0 both=''
	if ! { rdma link del swroce0 && modprobe rdma_rxe &&
		rdma link add rxe0 type rxe netdev "$nic" &&
		wait_gid rxe0 "$(v4gid 10.77.9.1)"; }; then
		echo ", rxe0 not set up"
		return
	fi
	while read -r t; do
		name=${t##*.}
		n=$((n + 1))
		tools/rdma-core-suite/run-in-guest.sh -t 300 -k "$name" \
			-o "$o/rxe-$name" -s "$top/build/rdma-core/$tag/tests" \
			-p "$tree/python" rxe0 >"$o/rxe-$name.tap" 2>&1
		if grep -q "^not ok [0-9]* - suite/[^/]*/$t\$" "$o/rxe-$name.tap"; then
			k=$((k + 1))
			both+=" $name"
		fi
	done < <(sed -n 's|^not ok [0-9]* - suite/[^/]*/\(tests\.[A-Za-z0-9_.]*\)$|\1|p' \
		"$o/suite.tap")
	rdma link del rxe0
	if ! { rdma link add swroce0 type swroce netdev "$nic" &&
		wait_gid swroce0 "$(v4gid 10.77.9.1)"; }; then
		echo "guest.sh: swroce0 not back on $nic" >&2
	fi
	echo ", rxe0 fails $k of $n:${both:- none}"
}

for tag in "$@"; do
	tree=$top/build/rdma-core/$tag/build
	o=$out/$tag
	mkdir -p "$o"
	echo "## rdma-core $tag"
	export LD_LIBRARY_PATH=$tree/lib

	loads=no
	LD_DEBUG=files "$tree/bin/ibv_devinfo" -v -d swroce0 \
		>"$o/devinfo.log" 2>"$o/devinfo.ld"
	if grep -q '^hca_id:[[:space:]]*swroce0' "$o/devinfo.log" &&
	   grep -q "file=$tree/lib/libswroce-rdmav[0-9]*\.so .*dynamically loaded by $tree/lib/libibverbs\.so\.1 " \
		"$o/devinfo.ld"; then
		loads=yes
	fi
	grep -o "file=$tree/lib/libswroce[^ ]* .*loaded by [^ ]*" "$o/devinfo.ld" |
		sed 's/^file=/# /; s/ \[0\];  / /'
	echo "# loads: $loads"

	pingpong=no
	T=120 pp "$tree/bin/ibv_rc_pingpong" swr-b swrb "$(v4gid 10.96.1.2)" \
		swr-a swra "$(v4gid 10.96.1.1)" 10.96.1.2 -c -n 200 -s 4096 \
		>"$o/pingpong.log" 2>&1 && pingpong=yes
	cat /tmp/swr-pair-cli.log >>"$o/pingpong.log" 2>/dev/null
	echo "# pingpong: $pingpong $(grep -m1 'bytes in' "$o/pingpong.log")"

	suite="not run: no pyverbs in the tree"
	if [ -d "$tree/python/pyverbs" ]; then
		# the release's expected failures, each with its reason
		xf=()
		[ ! -f "$top/tools/rdma-core/xfail-$tag.txt" ] ||
			xf=(-x "$top/tools/rdma-core/xfail-$tag.txt")
		tools/rdma-core-suite/run-in-guest.sh -t 900 -o "$o/suite" \
			-s "$top/build/rdma-core/$tag/tests" -p "$tree/python" \
			${xf[@]+"${xf[@]}"} swroce0 >"$o/suite.tap" 2>&1
		suite=$(grep -m1 '^suite: ' "$o/suite.tap" ||
			echo "no summary: $(tail -n 1 "$o/suite.tap")")
	fi
	if [[ "$suite" =~ ^suite:\ [0-9]+\ passed,\ [1-9] ]]; then
		suite+=$(rerun_on_rxe "$tag" "$tree" "$o")
	fi
	echo "# $suite"
	printf '%s\t%s\t%s\n' "$loads" "$pingpong" "$suite" >"$o/result.tsv"
done
exit 0
