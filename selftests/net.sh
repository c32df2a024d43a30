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
