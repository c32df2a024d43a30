#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Kernel log lines that mean a run is broken, whatever the test said:
# sourced by tools/vm/vm.sh (the guest console, on the host) and by
# selftests/kmsg.sh (the kernel log since a step began, in the guest).
# shellcheck disable=SC2034 # used by the scripts that source this
SPLAT_RE='Oops|BUG:|WARNING:|kernel BUG|KASAN:|UBSAN:|Kernel panic'
SPLAT_RE+='|possible circular locking|inconsistent lock state|possible recursive locking'
SPLAT_RE+='|suspicious RCU usage|general protection fault|Call Trace:|kmemleak'
SPLAT_RE+='|list_(add|del) corruption|refcount_t:|soft lockup|hard LOCKUP'
SPLAT_RE+='|blocked for more than|rcu_.*stall|stack-protector'
