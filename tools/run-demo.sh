#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# run-demo.sh: `make run`. Installs what is missing, builds, boots the
# default kernel in a guest, creates swroce0 on one end of a veth pair and
# shows what an RDMA application sees. DEMO_KERNEL= picks another kernel.

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tools/deps.sh
make -s provider kmod-all >/dev/null

# shellcheck disable=SC2016 # expanded in the guest
tools/vm/vm.sh ${DEMO_KERNEL:+-k "$DEMO_KERNEL"} -t 300 -- bash -c '
set -e
tools/vm/netsetup.sh >/dev/null
export RDMAV_DRIVERS=$PWD/providers/swroce/libswroce
echo "### rdma link add swroce0 type swroce netdev veth0"
rdma link add swroce0 type swroce netdev veth0
rdma link show swroce0/1
echo
echo "### ibv_devices"
ibv_devices
echo "### ibv_devinfo -v -d swroce0"
ibv_devinfo -v -d swroce0
echo "### the port follows its netdev: ip link set veth0 down"
ip link set veth0 down
ibv_devinfo -d swroce0 | grep -E "state:"
ip link set veth0 up
echo "### rdma link del swroce0"
rdma link del swroce0
rdma link show | grep -c swroce0 || echo "swroce0 is gone"
'
