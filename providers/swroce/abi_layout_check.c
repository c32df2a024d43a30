// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Print the libibverbs private-ABI layout as this tree's
 * ibverbs_private.h produces it, one line per item of the v44 layout
 * table, in the reference dump's format:
 *
 *	sizeof(struct X) = N
 *	  offsetof(struct X, m) = N
 *
 * The values are computed by the compiler here, not copied from the
 * table, so diffing the output against a dump taken from a real v44
 * build (abi_layout_check.sh does that) checks the declarations
 * independently of the static assertions in the header.
 *
 * Build: cc -std=gnu11 -I include -I providers/swroce abi_layout_check.c
 */
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include "ibverbs_private.h"

/* The table's own numbers are ignored; only its order and items are used. */
#define PRINT_SIZE(type, expected)					\
	printf("sizeof(%s) = %zu\n", #type, sizeof(type));
#define PRINT_OFFSET(type, memb, expected)				\
	printf("  offsetof(%s, %s) = %zu\n", #type, #memb,		\
	       offsetof(type, memb));

int main(void)
{
	SWROCE_IBVERBS_V44_LAYOUT(PRINT_SIZE, PRINT_OFFSET)

	if (fflush(stdout) != 0 || ferror(stdout))
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}
