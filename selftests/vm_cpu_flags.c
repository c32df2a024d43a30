// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Does this CPU (or emulator) keep the arithmetic flags across CMPXCHG16B?
 * The instruction may change only ZF.  QEMU 7.2's TCG computes the other
 * flags from a stale lazy condition-code state when the translation block
 * began right after POPF: it then reports the ADD's source operand as the
 * flags.  Documentation/testing.rst explains why vm.sh hides CX16 from
 * TCG guests; run-guest.sh runs this first (step vm-cpu).  Exit 0: flags
 * kept; 1: flags changed; 77: no CMPXCHG16B.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t mem[2] __attribute__((aligned(16)));

int main(void)
{
	unsigned int a, b, c, d;
	unsigned long bad = 0, i;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B)) {
		printf("no cmpxchg16b\n");
		return 77;
	}
	for (i = 0; i < 100000; i++) {
		uint64_t x = (1ull << 63) + i * 0x123457, y = (1ull << 63) + (i << 3);
		uint64_t lo = 1, hi = 2, f_add, f_cx, v = x;

		asm volatile("add %2,%0\n\tpushf\n\tpop %1"
			     : "+r"(v), "=r"(f_add) : "r"(y) : "cc");
		mem[0] = 1;
		mem[1] = 2;
		v = x;
		asm volatile("pushf\n\tpopf\n\tadd %6,%0\n\tcmpxchg16b %3\n\t"
			     "pushf\n\tpop %1"
			     : "+r"(v), "=r"(f_cx), "+a"(lo), "+m"(mem), "+d"(hi)
			     : "b"(3ull), "r"(y), "c"(4ull) : "cc");
		/* the compare succeeds: ZF set, every other flag as ADD left it */
		if ((f_add | 0x40) != f_cx && bad++ < 3)
			printf("ADD flags %#llx, after CMPXCHG16B %#llx\n",
			       (unsigned long long)f_add, (unsigned long long)f_cx);
	}
	printf("%lu of %lu CMPXCHG16B changed flags other than ZF\n", bad, i);
	return bad != 0;
}
