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
# Only the kernel the demo boots: the first pinned series, or DEMO_KERNEL.
kver=$(tools/kernels.sh resolve \
	"${DEMO_KERNEL:-$(tools/kernels.sh series | awk '{print $1}')}")
make -s provider >/dev/null
tools/build-kmod.sh build/kmod "$kver" >/dev/null

tools/vm/vm.sh -k "$kver" -t 300 -- tools/demo-guest.sh
