#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# run-demo.sh: `make run`. Installs what is missing, builds, boots the
# default kernel in a guest and shows swroce at work on one screen: two
# network namespaces joined by a veth pair, a swroce device on each end,
# perftest bandwidth and latency and an rping exchange between them, the
# device counters before and after, and the port following its netdev.
# The guest half is tools/demo-guest.sh. DEMO_KERNEL= picks another kernel.

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tools/deps.sh
make -s provider kmod-all >/dev/null

tools/vm/vm.sh ${DEMO_KERNEL:+-k "$DEMO_KERNEL"} -t 300 -- tools/demo-guest.sh
