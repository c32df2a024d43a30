/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the tools/bench programs: open an RDMA device by name and a
 * monotonic clock. The programs print "key=value" lines that
 * tools/bench/guest.sh turns into raw result rows; on a verb the device
 * does not support they print "na=<reason>" and exit 2, so the harness can
 * record "n/a" instead of a number.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "swr_test.h"

#define BENCH_EXIT_NA 2

/* The selftests' device opener (selftests/swr_test.h) serves here too. */
static inline struct ibv_context *bench_open(const char *name)
{
	return swr_open_dev(name);
}

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif
