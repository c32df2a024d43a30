#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Inside the QEMU guest (tools/vm/vm.sh): a veth pair in the init netns to
# carry RoCEv2 between two RDMA devices, or client and server on one.
#   veth0  10.77.0.1/24  fd77::1/64
#   veth1  10.77.0.2/24  fd77::2/64
# Run it, or source it: same setup, and the caller also gets the VETH_IP4 and
# VETH_IP6 arrays and the vm_netsetup function (to redo it after a test).
# It refuses to run outside the guest: it would change the host's network.

VETH_IP4=(10.77.0.1 10.77.0.2)
VETH_IP6=(fd77::1 fd77::2)

vm_netsetup() {
	local i
	if [ "$(hostname)" != swroce-vm ]; then
		echo "netsetup.sh: not in the swroce QEMU guest, refusing" >&2
		return 1
	fi
	# idempotent: deleting one end removes the pair
	ip link del veth0 2>/dev/null || true
	ip link add veth0 type veth peer name veth1 || return 1
	for i in 0 1; do
		ip addr add "${VETH_IP4[i]}/24" dev "veth$i" || return 1
		# nodad: the addresses are usable at once, not "tentative" for ~1 s
		ip -6 addr add "${VETH_IP6[i]}/64" dev "veth$i" nodad || return 1
		ip link set "veth$i" up || return 1
	done
}

# Strict mode only when executed: it must not leak into a sourcing shell.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -eu
fi
vm_netsetup
