#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# splat_test.sh: splat_tcg_int3 (tools/vm/splat.sh) on console excerpts of
# each kind, on the host. TAP on stdout; make check runs it after lint.
#   - the two TCG crashes seen: __schedule in CI, sched_clock_cpu at boot
#   - an int3 still in memory, an int3 in a module, another Oops, a
#     report before the int3, no code bytes: not the race

set -u
# shellcheck source=tools/vm/splat.sh
. "$(dirname "$0")/splat.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

# console NAME: an Oops excerpt from stdin into $tmp/NAME
console() { cat >"$tmp/$1"; }

# expect NAME 0|1 DESCRIPTION
expect() {
	local got=0
	n=$((n + 1))
	splat_tcg_int3 "$tmp/$1" || got=1
	if [ "$got" = "$2" ]; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3 (status $got, want $2)"
		bad=1
	fi
}

console ci <<'X'
[  511.87] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[  511.87] CPU: 0 UID: 0 PID: 8123 Comm: swroce_uverbs_f Tainted: G           OE      6.12.118+deb12-amd64 #1
[  511.87] RIP: 0010:__schedule+0x339/0xbf0
[  511.87] Code: 82 48 89 45 b8 0f 85 42 07 00 00 41 83 7d 68 01 ba 01 00 00 00 75 0d 31 d2 41 80 bd d1 00 00 00 00 0f 95 c2 e9 70 03 00 00 0f <1f> 44 00 00 48 8b 83 88 0a 00 00 49 39 c5 74 4e 83 bb a8 0a 00 00
[  511.87] RSP: 0000:ffffc90000e3beb0 EFLAGS: 00000086
X
expect ci 0 "an int3 trap in __schedule with a 5-byte NOP in memory is the race"

console boot <<'X'
[    1.36] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    1.36] RIP: 0010:sched_clock_cpu+0x9/0x190
[    1.36] Code: 00 e9 b8 fe ff ff 66 66 2e 0f 1f 84 00 00 00 00 00 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 90 f3 0f 1e fa 41 54 55 53 66 <90> e8 71 ad f0 ff 48 03
[    1.36] Oops: int3: 0000 [#2] PREEMPT SMP NOPTI
[    1.36] RIP: 0010:swr_poll_thread+0x9/0x190 [swroce]
X
expect boot 0 "the first of two reports decides (sched_clock_cpu, a 2-byte NOP)"

console held <<'X'
[   12.00] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[   12.00] RIP: 0010:__schedule+0x339/0xbf0
[   12.00] Code: 00 00 cc <1f> 44 00 00 48 8b 83 88 0a 00 00
X
expect held 1 "an int3 still in memory is a real breakpoint"

console module <<'X'
[   12.00] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[   12.00] RIP: 0010:swr_poll_thread+0x52/0x400 [swroce]
[   12.00] Code: 00 00 0f <1f> 44 00 00 48 8b 83 88 0a 00 00
X
expect module 1 "an int3 trap in a module's text is not excused"

console gpf <<'X'
[   12.00] Oops: general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] PREEMPT SMP NOPTI
[   12.00] RIP: 0010:__schedule+0x339/0xbf0
[   12.00] Code: 00 00 0f <1f> 44 00 00 48 8b 83 88 0a 00 00
X
expect gpf 1 "another Oops is not excused"

console warned <<'X'
[   11.00] WARNING: CPU: 1 PID: 96 at kernel/swr_qp.c:120 swr_qp_reset+0x4/0x90 [swroce]
[   12.00] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[   12.00] RIP: 0010:__schedule+0x339/0xbf0
[   12.00] Code: 00 00 0f <1f> 44 00 00 48 8b 83 88 0a 00 00
X
expect warned 1 "a report before the int3 is not excused"

console nocode <<'X'
[   12.00] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[   12.00] RIP: 0010:__schedule+0x339/0xbf0
[   12.00] Code: Unable to access opcode bytes at 0xffffffff81ced8df.
X
expect nocode 1 "without the code bytes nothing is excused"

echo "1..$n"
exit $bad
