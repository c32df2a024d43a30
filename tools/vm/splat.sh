# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# SPLAT_RE: the kernel log lines that mean a run is broken whatever the
# test said (sourced by tools/vm/vm.sh on the host, which scans the guest's
# console and dmesg, and by guest steps that check their own stretch of
# dmesg). The debug kernel's checkers report as: KASAN "BUG: KASAN: ...",
# lockdep "WARNING: possible circular locking ..." (and the other
# WARNING:/BUG: lines, "INFO: trying to register non-static key" with a
# Call Trace), UBSAN "UBSAN: ...", debug objects "ODEBUG: ..." inside a
# WARNING, SLUB "BUG kmalloc-64 (Tainted: ...): ...", kmemleak "kmemleak: N
# new suspected memory leaks" (not its boot banner "kmemleak: Kernel memory
# leak detector initialized"), or kmemleak giving up, which would hide
# leaks; a stack overflow "BUG: stack guard page was hit" or "Oops: double
# fault".
# shellcheck shell=bash disable=SC2034 # used by the scripts that source it

SPLAT_RE='Oops|BUG:|WARNING:|kernel BUG|KASAN:|UBSAN:|Kernel panic'
SPLAT_RE+='|possible circular locking|inconsistent lock state|possible recursive locking'
SPLAT_RE+='|suspicious RCU usage|general protection fault|Call Trace:'
SPLAT_RE+='|suspected memory leak|kmemleak: (Cannot|Memory pool empty|Failed|Kernel memory leak detector disabled)'
SPLAT_RE+='|ODEBUG:|BUG [^ ]+ \((Not t|T)ainted'
SPLAT_RE+='|list_(add|del) corruption|refcount_t:|soft lockup|hard LOCKUP'
SPLAT_RE+='|blocked for more than|rcu_.*stall|stack-protector|stack guard page'
