/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the uverbs fuzzer's parts share (swroce_uverbs_fuzz.c and
 * swr_fuzz_raw.h): a per-thread random generator, the operation list, and
 * the statistics every worker process adds to in shared memory, so that
 * the figures survive the workers being killed.
 */
#ifndef SWR_FUZZ_H
#define SWR_FUZZ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * splitmix64 over a per-thread state: a thread's sequence of choices
 * depends on its seed alone (what the kernel answers steers it further).
 */
static __thread uint64_t fz_rs;

static inline uint64_t fz_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rnd64(void)
{
	fz_rs += 0x9e3779b97f4a7c15ull;
	return fz_mix(fz_rs);
}

/* Uniform in [0, n); 0 for n == 0. */
static inline uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)((rnd64() >> 32) % n) : 0;
}

static inline bool pct(unsigned int p)
{
	return rnd(100) < p;
}

/* One of @n values, for the "interesting number" tables. */
#define PICK(arr) ((arr)[rnd(sizeof(arr) / sizeof((arr)[0]))])

/* Every operation the fuzzer counts: enum name, report name. */
#define FZ_OPS(X)					\
	X(OPEN, "open_device")				\
	X(ALLOC_PD, "alloc_pd")				\
	X(DEALLOC_PD, "dealloc_pd")			\
	X(REG_MR, "reg_mr")				\
	X(REREG_MR, "rereg_mr")				\
	X(DEREG_MR, "dereg_mr")				\
	X(ALLOC_MW, "alloc_mw")				\
	X(BIND_MW, "bind_mw")				\
	X(DEALLOC_MW, "dealloc_mw")			\
	X(CREATE_CQ, "create_cq")			\
	X(RESIZE_CQ, "resize_cq")			\
	X(DESTROY_CQ, "destroy_cq")			\
	X(POLL_CQ, "poll_cq")				\
	X(NOTIFY_CQ, "req_notify_cq")			\
	X(CQ_SCRIBBLE, "cq_ring_scribble")		\
	X(CREATE_SRQ, "create_srq")			\
	X(MODIFY_SRQ, "modify_srq")			\
	X(QUERY_SRQ, "query_srq")			\
	X(DESTROY_SRQ, "destroy_srq")			\
	X(CREATE_QP, "create_qp")			\
	X(MODIFY_QP, "modify_qp")			\
	X(CONNECT_QP, "connect_qps")			\
	X(QUERY_QP, "query_qp")				\
	X(DESTROY_QP, "destroy_qp")			\
	X(CREATE_AH, "create_ah")			\
	X(DESTROY_AH, "destroy_ah")			\
	X(ATTACH_MCAST, "attach_mcast")			\
	X(DETACH_MCAST, "detach_mcast")			\
	X(POST_SEND, "post_send")			\
	X(POST_RECV, "post_recv")			\
	X(POST_SRQ_RECV, "post_srq_recv")		\
	X(SQ_RING, "sq_ring_wqes")			\
	X(RQ_RING, "rq_ring_wqes")			\
	X(SRQ_RING, "srq_ring_wqes")			\
	X(DOORBELL, "doorbell_method")			\
	X(RAW_CONTEXT, "raw_get_context")		\
	X(RAW_CMD, "raw_write_cmd")			\
	X(RAW_IOCTL, "raw_ioctl")			\
	X(RAW_MMAP, "raw_mmap")

#define FZ_ENUM(e, s) FZ_##e,
enum fz_op { FZ_OPS(FZ_ENUM) FZ_NUM_OPS };
#undef FZ_ENUM

#define FZ_MAX_ERRNO	140	/* errno values above land in the last row */

struct fz_stats {
	atomic_int stop;		/* the parent asks the workers to end */
	atomic_long ok[FZ_NUM_OPS];
	atomic_long err[FZ_NUM_OPS][FZ_MAX_ERRNO];
	atomic_long qp_type[3];		/* QPs created: RC, UC, UD */
	atomic_long async_events;
	atomic_long comp_events;
	atomic_long cqes, cqes_err;	/* completions polled; with an error */
	atomic_long dead_ctx;		/* contexts lost to device removal */
	atomic_long raw_sessions;
};

static struct fz_stats *fz_st;

/* Count one operation: @err 0 for success, else a positive errno. */
static inline void fz_rec(enum fz_op op, int err)
{
	if (!err)
		atomic_fetch_add_explicit(&fz_st->ok[op], 1,
					  memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&fz_st->err[op][err < FZ_MAX_ERRNO &&
					  err > 0 ? err : FZ_MAX_ERRNO - 1],
					  1, memory_order_relaxed);
}

#define FZ_NAME(e, s) s,
static const char * const fz_op_name[] = { FZ_OPS(FZ_NAME) };
#undef FZ_NAME

/*
 * The figures: objects created by type, then one row per operation
 * (successes, failures by errno), then one row per errno (how often, and
 * from which operations the most).
 */
static void fz_report(void)
{
	static const struct {
		const char *name;
		enum fz_op op;
	} objs[] = {
		{ "PD", FZ_ALLOC_PD }, { "MR", FZ_REG_MR }, { "MW", FZ_ALLOC_MW },
		{ "CQ", FZ_CREATE_CQ }, { "SRQ", FZ_CREATE_SRQ },
		{ "QP", FZ_CREATE_QP }, { "AH", FZ_CREATE_AH },
		{ "mcast", FZ_ATTACH_MCAST }, { "context", FZ_OPEN },
	};
	long tot[FZ_MAX_ERRNO] = { 0 }, n;
	unsigned int i, e;
	int op;

	printf("objects created:");
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
		printf(" %s %ld", objs[i].name, atomic_load(&fz_st->ok[objs[i].op]));
	printf(" (QPs: RC %ld, UC %ld, UD %ld)\n",
	       atomic_load(&fz_st->qp_type[0]), atomic_load(&fz_st->qp_type[1]),
	       atomic_load(&fz_st->qp_type[2]));
	printf("completions polled %ld (%ld in error), async events %ld, completion events %ld\n",
	       atomic_load(&fz_st->cqes), atomic_load(&fz_st->cqes_err),
	       atomic_load(&fz_st->async_events),
	       atomic_load(&fz_st->comp_events));
	printf("contexts lost to device removal %ld, raw sessions %ld\n",
	       atomic_load(&fz_st->dead_ctx),
	       atomic_load(&fz_st->raw_sessions));

	printf("%-18s %10s %10s  failures by errno\n", "operation", "ok", "failed");
	for (op = 0; op < FZ_NUM_OPS; op++) {
		long fails = 0;
		char errs[512] = "";
		size_t off = 0;

		for (e = 0; e < FZ_MAX_ERRNO; e++) {
			n = atomic_load(&fz_st->err[op][e]);
			if (!n)
				continue;
			fails += n;
			tot[e] += n;
			if (off < sizeof(errs) - 40)
				off += snprintf(errs + off, sizeof(errs) - off,
						" %s %ld", strerrorname_np((int)e) ?:
						"E?", n);
		}
		printf("%-18s %10ld %10ld %s\n", fz_op_name[op],
		       atomic_load(&fz_st->ok[op]), fails, errs);
	}

	printf("%-16s %10s  most from\n", "errno", "count");
	for (e = 0; e < FZ_MAX_ERRNO; e++) {
		int best[3] = { -1, -1, -1 };

		if (!tot[e])
			continue;
		for (op = 0; op < FZ_NUM_OPS; op++) {
			n = atomic_load(&fz_st->err[op][e]);
			for (i = 0; i < 3; i++) {
				if (n && (best[i] < 0 ||
					  n > atomic_load(&fz_st->err[best[i]][e]))) {
					memmove(best + i + 1, best + i,
						(2 - i) * sizeof(best[0]));
					best[i] = op;
					break;
				}
			}
		}
		printf("%-16s %10ld ", strerrorname_np((int)e) ?: "E?", tot[e]);
		for (i = 0; i < 3 && best[i] >= 0; i++)
			printf(" %s %ld", fz_op_name[best[i]],
			       atomic_load(&fz_st->err[best[i]][e]));
		printf("\n");
	}
}

#endif /* SWR_FUZZ_H */
