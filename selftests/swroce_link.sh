#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Device lifecycle, as an administrator drives it: rdma link add/del, bad
# requests, the port following its netdev, the device following the netdev
# and its network namespace out of existence, and module unload with devices
# still present. Runs as root inside the test guest (selftests/run-guest.sh)
# with swroce.ko loaded from $SWROCE_KO and the veth pair veth0/veth1 up.
# Leaves no swroce device behind and the module loaded.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

: "${SWROCE_KO:?path of swroce.ko}"

exists() { [ -e "/sys/class/infiniband/$1" ]; }
gone() { ! exists "$1"; }

# wait_gone DEV: device removal after a netdev event runs from a work queue
wait_gone() { wait_for 30 gone "$1"; }

port_state() { ibv_devinfo -d "$1" | awk '/^\t\t\tstate:/ {print $2}'; }
active_mtu() { ibv_devinfo -d "$1" | awk '/active_mtu:/ {print $2}'; }
# has_gid DEV PATTERN: a GID line of ibv_devinfo -v matches PATTERN
has_gid() { ibv_devinfo -v -d "$1" | grep -qE "$2"; }
no_gid() { ! has_gid "$@"; }
port_is() { [ "$(port_state "$1")" = "$2" ]; }

# no device of ours may exist before we start
for d in /sys/class/infiniband/*/swroce; do
	[ -e "$d" ] && tap_bail "a swroce device already exists: $d"
done

rdma link add lnk0 type swroce netdev veth0
tap_ok $? "rdma link add creates a device"
tap_ok "$(exists lnk0 && cat /sys/class/infiniband/lnk0/swroce/netdev)" \
	= veth0 "device is bound to veth0 (sysfs)"
rdma link show lnk0/1 | grep -q 'netdev veth0'
tap_ok $? "rdma link show names the netdev"

! rdma link add lnk1 type swroce netdev veth0 2>/dev/null
tap_ok $? "a second device on the same netdev is refused"
! exists lnk1
tap_ok $? "... and leaves nothing behind"

! rdma link add lnk1 type swroce netdev lo 2>/dev/null
tap_ok $? "a non-Ethernet netdev (lo) is refused"

! rdma link add lnk0 type swroce netdev veth1 2>/dev/null
tap_ok $? "a second device with a taken name is refused"

info=$(ibv_devinfo -v -d lnk0)
grep -q 'link_layer:[[:space:]]*Ethernet' <<<"$info"
tap_ok $? "ibv_devinfo: link_layer Ethernet"
grep -q 'state:[[:space:]]*PORT_ACTIVE' <<<"$info"
tap_ok $? "ibv_devinfo: PORT_ACTIVE"
grep -qE 'GID\[ *[0-9]+\]:.*::ffff:10\.77\.0\.1, RoCE v2' <<<"$info"
tap_ok $? "ibv_devinfo: RoCE v2 GID of veth0's IPv4 address"
grep -qE 'GID\[ *[0-9]+\]:.*fd77::1, RoCE v2' <<<"$info"
tap_ok $? "ibv_devinfo: RoCE v2 GID of veth0's IPv6 address"
! grep -q 'RoCE v1' <<<"$info"
tap_ok $? "ibv_devinfo: no RoCE v1 GIDs"

rdma statistic show link lnk0/1 | grep -q 'udata_rejected 0'
tap_ok $? "rdma statistic shows the port counters"

# GIDs follow addresses from a work queue: wait (for a loaded host).
ip addr add 10.77.9.1/24 dev veth0
wait_for 30 has_gid lnk0 '::ffff:10\.77\.9\.1, RoCE v2'
tap_ok $? "a new IP address appears as a GID"
ip addr del 10.77.9.1/24 dev veth0
wait_for 30 no_gid lnk0 '10\.77\.9\.1'
tap_ok $? "a removed IP address disappears from the GIDs"

ip link set veth0 down
tap_ok "$(port_state lnk0)" = PORT_DOWN "port goes down with its netdev"
ip link set veth0 up
wait_for 30 port_is lnk0 PORT_ACTIVE
tap_ok $? "port comes back up with its netdev"

ip link set veth0 mtu 4200
tap_ok "$(active_mtu lnk0)" = "4096" "active_mtu follows netdev MTU 4200"
ip link set veth0 mtu 1500
tap_ok "$(active_mtu lnk0)" = "1024" "active_mtu follows netdev MTU 1500"

rdma link del lnk0
tap_ok $? "rdma link del"
! exists lnk0
tap_ok $? "... removes the device"

# The provider matches by the device's sysfs group, not by its name.
rdma link add anyname7 type swroce netdev veth0 &&
	ibv_devinfo -d anyname7 | grep -q 'PORT_ACTIVE'
tap_ok $? "provider binds to a device of any name"
rdma link del anyname7

# The netdev going away takes the device with it.
ip link add vlt0 type veth peer name vlt1
ip link set vlt0 up
rdma link add lnkv type swroce netdev vlt0
tap_ok $? "device on a temporary veth"
ip link del vlt0
wait_gone lnkv
tap_ok $? "deleting the netdev removes the device"

# So does deleting the network namespace the netdev lives in.
ip netns add swr_lnk_ns
ip link add vln0 type veth peer name vln1
ip link set vln1 netns swr_lnk_ns
ip -n swr_lnk_ns link set vln1 up
ip netns exec swr_lnk_ns rdma link add lnkn type swroce netdev vln1
tap_ok $? "device on a netdev in another network namespace"
ip netns del swr_lnk_ns
wait_gone lnkn
tap_ok $? "deleting the namespace removes the device"
ip link del vln0 2>/dev/null

# Module unload with devices present removes them.
rdma link add lnku0 type swroce netdev veth0 &&
	rdma link add lnku1 type swroce netdev veth1
tap_ok $? "two devices before unload"
rmmod swroce
tap_ok $? "rmmod with devices present"
! exists lnku0 && ! exists lnku1
tap_ok $? "... removes every device"
insmod "$SWROCE_KO"
tap_ok $? "module reloads"
rdma link add lnkr type swroce netdev veth0 && rdma link del lnkr
tap_ok $? "device add/del after reload"

# Add/del churn.
for _ in $(seq 20); do
	rdma link add lnkc type swroce netdev veth0 || break
	rdma link del lnkc || break
done
! exists lnkc
tap_ok $? "20 add/del cycles"

tap_done
