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

# splat_tcg_int3 LOG: status 0 when LOG's first report is an "Oops: int3"
# that is QEMU TCG's text-patching race rather than a breakpoint in the
# code under test (no other report precedes it, so none is excused): the
# trap is in the core kernel's text (no [module] after the RIP symbol),
# and the Code: dump, read after the trap, no longer holds the int3 (cc)
# in the byte before RIP. text_poke_bp() removes an int3 only after every
# CPU has synchronised and its handler claims each int3 it placed until
# then, so on a real CPU an int3 that is no longer in memory cannot trap;
# under TCG a vCPU can still run a translation made while the int3 was
# there (Documentation/testing.rst).
splat_tcg_int3() {
	tr -d '\r' <"$1" | SPLAT_RE=$SPLAT_RE awk '
		/Oops: int3/ && !seen { seen = 1; next }
		!seen && $0 ~ ENVIRON["SPLAT_RE"] { exit 1 }
		seen && !rip && / RIP: 0010:/ {
			rip = 1
			if ($0 ~ /\[[A-Za-z0-9_]+\]/) exit 1
			next
		}
		seen && rip && / Code: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^</) break
			if (i > NF || i < 2 || tolower($(i - 1)) == "cc") exit 1
			found = 1
			exit 0
		}
		END { exit !found }'
}
