#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# nic.sh: inside the QEMU guest, print the name of the virtio-net NIC that
# tools/vm/vm.sh -n gave it (MAC 52:54:00:5e:*), loading virtio_net if no
# such netdev exists yet. Exit status 1 when the guest has none.

find_nic() {
	local n
	for n in /sys/class/net/*; do
		case $(cat "$n/address" 2>/dev/null) in
		52:54:00:5e:*) echo "${n##*/}"; return 0 ;;
		esac
	done
	return 1
}

find_nic && exit 0
modprobe virtio_net 2>/dev/null
# the probe runs asynchronously: give the netdev a few seconds to appear
for _ in 1 2 3 4 5 6 7 8 9 10; do
	find_nic && exit 0
	sleep 0.5
done
exit 1
