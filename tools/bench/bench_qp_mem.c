// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench_qp_mem DEV COUNT: kernel memory that COUNT RC QPs with 256-entry
 * send and receive queues cost, read from /proc/meminfo around their
 * creation and destruction:
 *   slab_kib_per_qp=<Slab growth / COUNT>
 *   vmalloc_kib_per_qp=<VmallocUsed growth / COUNT>
 *   residual_kib=<Slab + VmallocUsed still held after destroying them all>
 * /proc/meminfo is system-wide, so this is only meaningful on an otherwise
 * idle guest; with 1,000 QPs the per-QP figure dwarfs the noise. Slab is
 * freed lazily (per-CPU caches), so a small residual is expected.
 */
#include "bench_common.h"

#define QUEUE_DEPTH 256

/* Slab and VmallocUsed from /proc/meminfo, in KiB; 0 on success. */
static int meminfo(long *slab, long *vmalloc)
{
	char line[256];
	FILE *f;
	int found = 0;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %ld kB", slab) == 1)
			found |= 1;
		else if (sscanf(line, "VmallocUsed: %ld kB", vmalloc) == 1)
			found |= 2;
	}
	fclose(f);
	return found == 3 ? 0 : -1;
}

int main(int argc, char **argv)
{
	long slab0, vm0, slab1, vm1, slab2, vm2;
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = QUEUE_DEPTH,
			.max_recv_wr = QUEUE_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_context *ctx;
	struct ibv_qp **qps;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	long count, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV COUNT\n", argv[0]);
		return 1;
	}
	count = strtol(argv[2], NULL, 0);
	if (count <= 0) {
		fprintf(stderr, "bench_qp_mem: bad COUNT\n");
		return 1;
	}
	qps = calloc(count, sizeof(*qps));
	if (!qps)
		return 1;
	ctx = bench_open(argv[1]);
	if (!ctx) {
		printf("na=cannot open %s\n", argv[1]);
		return BENCH_EXIT_NA;
	}
	pd = ibv_alloc_pd(ctx);
	/* One CQ for all: the figure is the QPs' own cost. */
	cq = pd ? ibv_create_cq(ctx, QUEUE_DEPTH, NULL, NULL, 0) : NULL;
	if (!cq) {
		printf("na=PD/CQ setup: %s\n", strerror(errno));
		return BENCH_EXIT_NA;
	}
	attr.send_cq = cq;
	attr.recv_cq = cq;

	if (meminfo(&slab0, &vm0)) {
		printf("na=cannot read /proc/meminfo\n");
		return BENCH_EXIT_NA;
	}
	for (i = 0; i < count; i++) {
		qps[i] = ibv_create_qp(pd, &attr);
		if (!qps[i]) {
			printf("na=ibv_create_qp #%ld: %s\n", i + 1, strerror(errno));
			return BENCH_EXIT_NA;
		}
	}
	meminfo(&slab1, &vm1);
	for (i = 0; i < count; i++)
		if (ibv_destroy_qp(qps[i])) {
			printf("na=ibv_destroy_qp: %s\n", strerror(errno));
			return BENCH_EXIT_NA;
		}
	meminfo(&slab2, &vm2);

	printf("slab_kib_per_qp=%.2f\n", (double)(slab1 - slab0) / count);
	printf("vmalloc_kib_per_qp=%.2f\n", (double)(vm1 - vm0) / count);
	printf("residual_kib=%ld\n", (slab2 - slab0) + (vm2 - vm0));

	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(qps);
	return 0;
}
