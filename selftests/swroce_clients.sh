#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The HPC clients users run first (issue 17): UCX, Open MPI and libfabric
# as Debian ships them, with their default settings, on swroce. Topology,
# built here and removed at the end:
#
#   netns swc-a: cva 10.91.1.1/24, device swc0 (swroce)
#     | veth
#   netns swc-b: cvb 10.91.1.2/24, device swc1 (swroce)
#
# "one device": both ends in swc-a on swc0 (local delivery; swc1 is
# created only afterwards), except the MPI runs, which run in init_net on
# the guest's swroce0 (see mpi() below). The guest's swroce0 is visible in
# every namespace, so runs with defaults may pick it or swc0.
# "two devices": the server in swc-a on swc0, the client in swc-b on swc1
# (the wire, across the veth).
# Every run checks its exit status and what it printed; the MPI program
# and fi_pingpong -c check the data. Runs as root inside the test guest
# (selftests/run-guest.sh), with the provider installed. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
mpi_pp=$top/build/selftests/clients/mpi_pingpong
log=
# Seconds a run may take: minutes, as a TCG guest on a loaded host is slow.
T=240

cleanup() {
	ip netns pids swc-a 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids swc-b 2>/dev/null | xargs -r kill 2>/dev/null
	rdma link del swc0 2>/dev/null
	rdma link del swc1 2>/dev/null
	ip netns del swc-a 2>/dev/null
	ip netns del swc-b 2>/dev/null
	[ -z "$log" ] || rm -rf "$log"
}
trap cleanup EXIT
cleanup
log=$(mktemp -d /tmp/swr-clients.XXXXXX)
# Every pair's output, passed or failed, as NN-srv.log and NN-cli.log
# (NN: the pair's order in this script): a rare failure is read against
# the runs that passed (how long each size took).
keep=$top/build/results/$(uname -r)/clients
rm -rf "$keep"
mkdir -p "$keep" || tap_bail "mkdir $keep"
npair=0
# What the programs leave in their working directory (a crashing
# libfabric writes NAME.btr backtraces) goes there, not into the tree.
cd "$log" || tap_bail "cd $log"

for p in ucx_info ucx_perftest mpirun fi_pingpong; do
	command -v $p >/dev/null || tap_bail "$p missing (make deps)"
done
[ -x "$mpi_pp" ] || tap_bail "$mpi_pp missing (make selftests)"

ip netns add swc-a && ip netns add swc-b &&
	pair swc-a swc-b cva cvb 91.1 91 &&
	ip netns exec swc-a rdma link add swc0 type swroce netdev cva &&
	wait_gid swc0 "$(v4gid 10.91.1.1)" || tap_bail "topology"

# show NAME FILE: a failed run's output as TAP comments: its first lines
# (where a library says why it aborts) and its last
show() {
	echo "# $1:"
	if [ "$(wc -l <"$2")" -le 40 ]; then
		sed 's/^/#   /' "$2"
	else
		head -n 20 "$2" | sed 's/^/#   /'
		echo "#   ..."
		tail -n 20 "$2" | sed 's/^/#   /'
	fi
}

# pair_run NAME PORT CHECK SNS CNS SERVER... -- CLIENT...: a client/server
# run; passes when both exit 0 and the client's output matches the
# extended regex CHECK
pair_run() {
	local name=$1 port=$2 check=$3 sns=$4 cns=$5 spid rc=0
	local srv=() cli=()
	shift 5
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	# stdbuf: line-buffered, so that a run the timeout kills still shows
	# how far it got
	ip netns exec "$sns" stdbuf -oL timeout $T "${srv[@]}" >"$log/srv" 2>&1 &
	spid=$!
	if ! wait_for 60 listening "$sns" "$port"; then
		echo "# $name: the server never listened on $port"
		rc=1
	fi
	[ $rc = 0 ] && { ip netns exec "$cns" stdbuf -oL timeout $T \
		"${cli[@]}" >"$log/cli" 2>&1 || rc=1; }
	[ $rc = 0 ] || kill $spid 2>/dev/null
	wait $spid || rc=1
	[ $rc = 0 ] && { grep -Eq "$check" "$log/cli" || rc=1; }
	npair=$((npair + 1))
	{ echo "# $name"; cat "$log/srv"; } >"$keep/$(printf %02d $npair)-srv.log"
	{ echo "# $name"; cat "$log/cli"; } >"$keep/$(printf %02d $npair)-cli.log"
	if [ $rc != 0 ]; then
		show "$name client" "$log/cli"
		show "$name server" "$log/srv"
		for f in "$log"/*.btr; do
			[ -e "$f" ] || continue
			show "$name: ${f##*/}" "$f"
			rm -f "$f"
		done
	fi
	tap_ok $rc "$name"
}

# ucx NAME SNS CNS SDEV CDEV SERVER_IP TEST TL [ARGS...]: a UCT-level
# ucx_perftest run over one transport
ucx() {
	local name=$1 sns=$2 cns=$3 sd=$4 cd=$5 ip=$6 test=$7 tl=$8
	shift 8
	pair_run "$name" 13337 '^Final:' "$sns" "$cns" \
		ucx_perftest -d "$sd:1" -x "$tl" -t "$test" "$@" -- \
		ucx_perftest -d "$cd:1" -x "$tl" -t "$test" "$@" "$ip"
}

# fabric NAME SNS CNS SDOM CDOM SERVER_IP PROVIDER EP: fi_pingpong with
# data checks
fabric() {
	local name=$1 sns=$2 cns=$3 sd=$4 cd=$5 ip=$6 prov=$7 ep=$8
	pair_run "$name" 47592 '^64k +[0-9]+ +=' "$sns" "$cns" \
		fi_pingpong -p "$prov" -e "$ep" -d "$sd" -c -I 50 -- \
		fi_pingpong -p "$prov" -e "$ep" -d "$cd" -c -I 50 "$ip"
}

# mpi NAME MPIRUN_ARGS...: the MPI ping-pong, two ranks in init_net, where
# the guest's swroce0 has its addresses. (In swc-a, libfabric's verbs
# provider also tries the devices of other namespaces, which the RDMA core
# shows everywhere in its shared mode, fails rdma_resolve_addr() on
# swroce0's addresses, and offers nothing: pml cm finds no MTL.)
mpi() {
	local name=$1 rc=0
	shift
	timeout $T mpirun --allow-run-as-root \
		--oversubscribe -np 2 "$@" "$mpi_pp" >"$log/mpi" 2>&1 || rc=1
	[ $rc = 0 ] && { grep -q 'every byte checked' "$log/mpi" || rc=1; }
	[ $rc = 0 ] || show "$name" "$log/mpi"
	tap_ok $rc "$name"
}

# --- one device: swc0 alone, both ends in swc-a -----------------------------
a=10.91.1.1
ip netns exec swc-a timeout $T ucx_info -e -u t >"$log/info" 2>&1
rc=$?
# The guest's swroce0 (init_net) is visible here too: either will do.
[ $rc = 0 ] && { grep -Eq '(rc|ud)_verbs/(swc0|swroce0):' "$log/info" ||
	rc=1; }
[ $rc = 0 ] || show "ucx_info" "$log/info"
tap_ok $rc "one device: ucx_info -e -u t (defaults) wires up over swroce"

ucx "one device: ucx_perftest am_lat ud_verbs" swc-a swc-a swc0 swc0 $a \
	am_lat ud_verbs -n 2000
ucx "one device: ucx_perftest am_bw ud_verbs" swc-a swc-a swc0 swc0 $a \
	am_bw ud_verbs -n 2000 -s 512 -D bcopy
ucx "one device: ucx_perftest am_lat rc_verbs" swc-a swc-a swc0 swc0 $a \
	am_lat rc_verbs -n 2000
ucx "one device: ucx_perftest put_bw rc_verbs (zcopy 64 KiB)" swc-a swc-a \
	swc0 swc0 $a put_bw rc_verbs -n 500 -s 65536 -D zcopy
pair_run "one device: ucx_perftest ucp tag_lat (defaults)" 13337 '^Final:' \
	swc-a swc-a ucx_perftest -t tag_lat -n 2000 -- \
	ucx_perftest -t tag_lat -n 2000 $a
fabric "one device: fi_pingpong verbs;ofi_rxm rdm (defaults)" swc-a swc-a \
	swc0 swc0 $a 'verbs;ofi_rxm' rdm
fabric "one device: fi_pingpong verbs msg" swc-a swc-a swc0 swc0 $a \
	verbs msg

mpi "one device: mpirun (Open MPI defaults)"
mpi "one device: mpirun --mca pml ucx" --mca pml ucx
# On one host UCX prefers shared memory; these make every message take
# the device (UD for wire-up and small messages, RC for the rest).
mpi "one device: mpirun --mca pml ucx, UCX over verbs only" --mca pml ucx \
	-x UCX_TLS=self,rc_verbs,ud_verbs
mpi "one device: mpirun --mca mtl ofi (defaults)" --mca pml cm --mca mtl ofi
mpi "one device: mpirun --mca mtl ofi over verbs;ofi_rxm" --mca pml cm \
	--mca mtl ofi --mca mtl_ofi_provider_include 'verbs;ofi_rxm'

# --- two devices across the veth ------------------------------------------------
if ip netns exec swc-b rdma link add swc1 type swroce netdev cvb &&
   wait_gid swc1 "$(v4gid 10.91.1.2)"; then
	ucx "two devices: ucx_perftest am_lat ud_verbs" swc-a swc-b swc0 swc1 \
		$a am_lat ud_verbs -n 2000
	ucx "two devices: ucx_perftest am_bw ud_verbs" swc-a swc-b swc0 swc1 \
		$a am_bw ud_verbs -n 2000 -s 512 -D bcopy
	ucx "two devices: ucx_perftest am_lat rc_verbs" swc-a swc-b swc0 swc1 \
		$a am_lat rc_verbs -n 2000
	ucx "two devices: ucx_perftest put_bw rc_verbs (zcopy 64 KiB)" \
		swc-a swc-b swc0 swc1 $a put_bw rc_verbs -n 500 -s 65536 \
		-D zcopy
	# Both devices are visible in both namespaces (the RDMA core's shared
	# netns mode): each side names its own, as on two hosts it would not
	# have to.
	pair_run "two devices: ucx_perftest ucp tag_lat" 13337 '^Final:' \
		swc-a swc-b env UCX_NET_DEVICES=swc0:1 \
		ucx_perftest -t tag_lat -n 2000 -- \
		env UCX_NET_DEVICES=swc1:1 ucx_perftest -t tag_lat -n 2000 $a
	fabric "two devices: fi_pingpong verbs;ofi_rxm rdm" swc-a swc-b \
		swc0 swc1 $a 'verbs;ofi_rxm' rdm
	fabric "two devices: fi_pingpong verbs msg" swc-a swc-b swc0 swc1 $a \
		verbs msg
else
	tap_ok 1 "two devices: swc1 on cvb"
fi

tap_done
