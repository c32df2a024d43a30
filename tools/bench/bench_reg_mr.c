// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench_reg_mr DEV SIZE REPS: time ibv_reg_mr and ibv_dereg_mr of one
 * SIZE-byte buffer, REPS times, and print the mean time per operation:
 *   reg_us=<mean µs per ibv_reg_mr>
 *   dereg_us=<mean µs per ibv_dereg_mr>
 * The buffer is written once before the first registration so every page
 * exists: the figure is what the device's pinning and key setup cost, not
 * first-touch page faults (which would only be paid once anyway).
 */
#include <sys/mman.h>

#include "bench_common.h"

int main(int argc, char **argv)
{
	uint64_t t0, reg_ns = 0, dereg_ns = 0;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	size_t size;
	long reps, i;
	void *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV SIZE REPS\n", argv[0]);
		return 1;
	}
	size = strtoull(argv[2], NULL, 0);
	reps = strtol(argv[3], NULL, 0);
	if (!size || reps <= 0) {
		fprintf(stderr, "bench_reg_mr: bad SIZE or REPS\n");
		return 1;
	}
	ctx = bench_open(argv[1]);
	if (!ctx) {
		printf("na=cannot open %s\n", argv[1]);
		return BENCH_EXIT_NA;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		printf("na=ibv_alloc_pd: %s\n", strerror(errno));
		return BENCH_EXIT_NA;
	}
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		printf("na=mmap %zu bytes: %s\n", size, strerror(errno));
		return BENCH_EXIT_NA;
	}
	memset(buf, 0x5a, size);

	for (i = 0; i < reps; i++) {
		t0 = bench_now_ns();
		mr = ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
		reg_ns += bench_now_ns() - t0;
		if (!mr) {
			printf("na=ibv_reg_mr %zu bytes: %s\n", size, strerror(errno));
			return BENCH_EXIT_NA;
		}
		t0 = bench_now_ns();
		if (ibv_dereg_mr(mr)) {
			printf("na=ibv_dereg_mr: %s\n", strerror(errno));
			return BENCH_EXIT_NA;
		}
		dereg_ns += bench_now_ns() - t0;
	}
	printf("reg_us=%.3f\n", reg_ns / 1e3 / reps);
	printf("dereg_us=%.3f\n", dereg_ns / 1e3 / reps);

	munmap(buf, size);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
