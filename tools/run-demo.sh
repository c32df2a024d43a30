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
echo "### an application: PD, MR, CQ, SRQ (pyverbs)"
/usr/bin/python3 - <<PY
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
from pyverbs.cq import CQ
from pyverbs.srq import SRQ, SrqInitAttr, SrqAttr
import pyverbs.enums as e
with Context(name="swroce0") as ctx:
    pd = PD(ctx)
    mr = MR(pd, 1 << 20, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    print(f"MR of 1 MiB: lkey {mr.lkey:#x} rkey {mr.rkey:#x}")
    cq = CQ(ctx, 1000)
    print(f"CQ: {cq.cqe} entries, polled in user space: {cq.poll()}")
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=100, max_sge=1)))
    print(f"SRQ: {srq.query().max_wr} receive slots")
PY
echo "### the port follows its netdev: ip link set veth0 down"
ip link set veth0 down
ibv_devinfo -d swroce0 | grep -E "state:"
ip link set veth0 up
echo "### rdma link del swroce0"
rdma link del swroce0
rdma link show | grep -q swroce0 || echo "swroce0 is gone"
'
