#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Topology helpers for the shell selftests that put swroce on a veth
# between network namespaces (sourced; run as root in the test guest).
#
#   pair NS_A NS_B IFA IFB NET NET6   a veth, addresses, links up
#   gid_index DEV GID                 the RoCE v2 GID's table index
#   v4gid A.B.C.D, v6gid NET6 N       GID strings as sysfs shows them
#   wait_gid DEV GID                  wait for the GID to appear
#   wait_for SECS CMD...              retry CMD until it succeeds
#   listening NS PORT                 a TCP listener on PORT in NS
#   ns_pair NS_A NS_B IFA IFB NET NET6 DEV_A DEV_B   two netns, two devices
#   run_pair, pp, pt                  a client/server verbs program run
#   rp SNS CNS SERVER_IP              an rping exchange, data checked
#   hw_counter DEV NAME               a driver counter (hw_counters)
# T: the seconds one client or server may run (default 300).

# hw_counter DEV NAME: a driver counter of RDMA device DEV, port 1
# (sysfs hw_counters, as "rdma statistic show link" lists them)
hw_counter() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# pair NS_A NS_B IFA IFB NET NET6: a veth between two namespaces
# ("" = init_net), addresses 10.NET.1/2 and fdNET6::1/2
pair() {
	local na=$1 nb=$2 ia=$3 ib=$4 net=$5 net6=$6
	ip link add "$ia" type veth peer name "$ib" || return 1
	[ -n "$na" ] && { ip link set "$ia" netns "$na" || return 1; }
	[ -n "$nb" ] && { ip link set "$ib" netns "$nb" || return 1; }
	ip ${na:+-n "$na"} addr add "10.$net.1/24" dev "$ia" &&
	ip ${na:+-n "$na"} -6 addr add "fd$net6::1/64" dev "$ia" nodad &&
	ip ${na:+-n "$na"} link set "$ia" up &&
	ip ${nb:+-n "$nb"} addr add "10.$net.2/24" dev "$ib" &&
	ip ${nb:+-n "$nb"} -6 addr add "fd$net6::2/64" dev "$ib" nodad &&
	ip ${nb:+-n "$nb"} link set "$ib" up &&
	ip ${na:+-n "$na"} link set lo up &&
	ip ${nb:+-n "$nb"} link set lo up
}

# gid_index DEV GID: the RoCE v2 GID table index holding GID
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 i
	for i in $(seq 0 31); do
		[ "$(cat "$d/gids/$i" 2>/dev/null)" = "$2" ] || continue
		[ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] ||
			continue
		echo "$i"
		return 0
	done
	return 1
}

v4gid() {
	local IFS=.
	# shellcheck disable=SC2086 # split the dotted quad
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
}

v6gid() {
	# fdNN::X -> full form
	printf 'fd%s:0000:0000:0000:0000:0000:0000:%04x' "$1" "$2"
}

# wait_for SECS CMD...: run CMD every 0.1 s until it succeeds, for up to
# SECS seconds; its status. What the kernel does asynchronously (work
# queues, namespace cleanup) takes longer on a loaded host, not forever.
wait_for() {
	local n=$(($1 * 10))
	shift
	until "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

# listening NS PORT: a TCP listener on PORT in namespace NS ("" = init_net)
listening() {
	${1:+ip netns exec "$1"} ss -Hltn "sport = :$2" | grep -q .
}

# wait_gid DEV GID: GIDs appear asynchronously after the address is added
wait_gid() {
	wait_for 30 gid_index "$1" "$2" >/dev/null
}

# ns_pair NS_A NS_B IFA IFB NET NET6 DEV_A DEV_B: two new namespaces joined
# by a veth (as pair), a swroce device on each end, their IPv4 GIDs present
ns_pair() {
	ip netns add "$1" && ip netns add "$2" &&
	pair "$1" "$2" "$3" "$4" "$5" "$6" &&
	ip netns exec "$1" rdma link add "$7" type swroce netdev "$3" &&
	ip netns exec "$2" rdma link add "$8" type swroce netdev "$4" &&
	wait_gid "$7" "$(v4gid "10.$5.1")" && wait_gid "$8" "$(v4gid "10.$5.2")"
}

# ns_pair_del NS_A NS_B DEV_A DEV_B: remove what ns_pair made, if anything
ns_pair_del() {
	rdma link del "$3" 2>/dev/null
	rdma link del "$4" 2>/dev/null
	ip netns del "$1" 2>/dev/null
	ip netns del "$2" 2>/dev/null
}
# ns_pair_owned NS_A NS_B DEV_A DEV_B: the script owns them: those an
# earlier run left are removed now, its own when it exits (its EXIT trap)
ns_pair_owned() {
	# shellcheck disable=SC2064 # the names are fixed now
	trap "ns_pair_del $1 $2 $3 $4" EXIT
	ns_pair_del "$@"
}

# run_pair GIDOPT PROG SNS SDEV SGID CNS CDEV CGID SERVER_IP [ARGS...]: one
# client/server run of PROG, the server in namespace SNS, the client in CNS
# ("" = init_net); GIDOPT is how PROG names the GID index (-g, -x)
run_pair() {
	local gopt=$1 prog=$2 sns=$3 sdev=$4 sgid=$5 cns=$6 cdev=$7 cgid=$8 ip=$9
	local si ci spid rc
	shift 9
	si=$(gid_index "$sdev" "$sgid") || { echo "# no gid $sgid on $sdev"; return 1; }
	ci=$(gid_index "$cdev" "$cgid") || { echo "# no gid $cgid on $cdev"; return 1; }
	# stdbuf: line-buffered, so that a run the timeout kills still shows
	# how far it got
	${sns:+ip netns exec "$sns"} stdbuf -oL timeout "${T:-300}" "$prog" -d "$sdev" \
		"$gopt" "$si" "$@" >/tmp/swr-pair-srv.log 2>&1 &
	spid=$!
	# the server listens on TCP 18515 once its device is open
	wait_for 60 listening "$sns" 18515
	${cns:+ip netns exec "$cns"} stdbuf -oL timeout "${T:-300}" "$prog" -d "$cdev" \
		"$gopt" "$ci" "$@" "$ip" >/tmp/swr-pair-cli.log 2>&1
	rc=$?
	wait $spid || rc=1
	# perftest's client prints a result line: bytes, iterations, ...
	case $prog in
	ib_*) grep -Eq '^ *[0-9]+ +[0-9]+ ' /tmp/swr-pair-cli.log || rc=1 ;;
	esac
	if [ $rc -ne 0 ]; then
		sed 's/^/# srv: /' /tmp/swr-pair-srv.log
		sed 's/^/# cli: /' /tmp/swr-pair-cli.log
	fi
	return $rc
}
# pp: a libibverbs example pingpong; pt: a perftest run (-F: no cpufreq check)
pp() { run_pair -g "$@"; }
pt() {
	local prog=$1
	shift
	run_pair -x "$prog" "$@" -F
}

# rp SNS CNS SERVER_IP: rping (rdma_cm) server in SNS, client in CNS
# ("" = init_net), 20 exchanges of 4000 bytes; rping checks the data it
# echoes (-V)
rp() {
	local sns=$1 cns=$2 ip=$3 spid rc
	${sns:+ip netns exec "$sns"} timeout "${T:-300}" rping -s -a "$ip" -C 20 -S 4000 -V \
		>/tmp/swr-rping-srv.log 2>&1 &
	spid=$!
	# The server's listen is not visible from here: the client retries
	# while the server waits (it serves one connection, so a client that
	# connected and failed is not run again).
	for _ in $(seq 30); do
		sleep 1
		${cns:+ip netns exec "$cns"} timeout "${T:-300}" rping -c -a "$ip" -C 20 \
			-S 4000 -V >/tmp/swr-rping-cli.log 2>&1
		rc=$?
		[ $rc -eq 0 ] && break
		kill -0 $spid 2>/dev/null || break
	done
	wait $spid || rc=1
	if [ $rc -ne 0 ]; then
		sed 's/^/# srv: /' /tmp/swr-rping-srv.log
		sed 's/^/# cli: /' /tmp/swr-rping-cli.log
	fi
	return $rc
}
