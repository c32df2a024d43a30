// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The uverbs fuzzer (issue 11): worker processes drive a swroce device
 * through its real user interface with random arguments, for -t seconds:
 *  - create/modify/destroy of every object: PDs; MRs of odd sizes and
 *    access flags, rereg; MWs and binds; CQs and resize; SRQs, modify and
 *    limit; RC, UC and UD QPs with random caps, and modify_qp with random
 *    masks and values through all states; AHs; multicast attach/detach;
 *  - provider posts of random work requests, and random WQEs written
 *    straight into the mapped SQ, RQ and SRQ rings (random opcodes,
 *    num_sge, lengths, keys, inline flags, bogus producer indices) with the
 *    doorbell method rung after them; CQ ring words scribbled; CQs polled
 *    and armed, events read and acknowledged;
 *  - raw sessions (swr_fuzz_raw.h): garbage driver data and garbage
 *    commands, random ioctls, mmap of rings whole or not.
 * Each worker runs -j threads on one context, sharing its objects (a
 * destroy races the other threads' use), plus an event thread. The parent
 * kills a random worker with SIGKILL every -k ms on average and starts a
 * new one; a worker whose device vanished (the driving script removes it,
 * selftests/swroce_uverbs_fuzz.sh) opens it again once it is back.
 *
 * Seeds: -s SEED seeds the run; worker n gets fz_mix(SEED + n) and its
 * thread i fz_mix(worker seed ^ i), all printed. -r WORKER_SEED runs one
 * worker with that seed in the foreground, without kills, to reproduce.
 *
 * Output: the figures (objects created by type, errors by errno, kills),
 * then exit 0 unless a worker crashed or could not be reaped after
 * SIGKILL (a process stuck in the kernel: its stack is printed).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "swr_qp_test.h"
#include "swroce.h"
#include "swr_fuzz.h"
#include "swr_fuzz_raw.h"

#define N_PD		4
#define N_MR		12
#define N_MW		6
#define N_CQ		8
#define N_SRQ		4
#define N_QP		12
#define N_AH		6
#define N_RECENT	32
#define N_GID		8
#define MEM_LEN		(4u << 20)
#define MAX_WORKERS	16

/* An object shared by the threads of a worker: use under the read lock,
 * create and destroy under the write lock, always with trylock (a busy
 * slot is skipped), so that no thread ever waits for another.
 */
struct slot {
	pthread_rwlock_t lk;
	void *o;
	int kind;	/* QP: its type; CQ: 1 when extended; MW: its type */
};

/* The worker process: one context and its objects. */
static struct {
	const char *dev;
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	char uverbs[300];
	struct slot pd[N_PD], mr[N_MR], mw[N_MW], cq[N_CQ], srq[N_SRQ];
	struct slot qp[N_QP], ah[N_AH];
	uint8_t *mem, *ro;
	int ngid, gidx[N_GID];
	union ibv_gid gid[N_GID];
	/* Numbers seen lately (keys, QPNs, AH numbers), for WQEs to name. */
	_Atomic uint32_t keys[N_RECENT], qpns[N_RECENT], ahns[N_RECENT];
	atomic_int dead;	/* the device went away under the context */
	atomic_int quit;	/* the event thread's stop */
	atomic_long budget;	/* operations left for this context */
} W;

static struct slot *rd(struct slot *s, int n)
{
	struct slot *x = &s[rnd(n)];

	if (pthread_rwlock_tryrdlock(&x->lk))
		return NULL;
	if (!x->o) {
		pthread_rwlock_unlock(&x->lk);
		return NULL;
	}
	return x;
}

static struct slot *wr(struct slot *s, int n)
{
	struct slot *x = &s[rnd(n)];

	return pthread_rwlock_trywrlock(&x->lk) ? NULL : x;
}

static void un(struct slot *x)
{
	if (x)
		pthread_rwlock_unlock(&x->lk);
}

static void remember(_Atomic uint32_t *a, uint32_t v)
{
	atomic_store_explicit(&a[rnd(N_RECENT)], v, memory_order_relaxed);
}

static uint32_t recall(_Atomic uint32_t *a)
{
	if (pct(10))
		return (uint32_t)rnd64();
	return atomic_load_explicit(&a[rnd(N_RECENT)], memory_order_relaxed);
}

/*
 * Count @op; an EIO may mean the device is gone (uverbs fails every
 * command of a disassociated context with EIO): check with a query.
 */
static void rec(enum fz_op op, int err)
{
	struct ibv_device_attr da;

	fz_rec(op, err);
	if (err == EIO && ibv_query_device(W.ctx, &da))
		atomic_store(&W.dead, 1);
}

/* Memory for SGEs and MRs: inside W.mem mostly, else anywhere. */
static uint64_t mem_addr(uint32_t maxlen)
{
	if (pct(90))
		return (uintptr_t)W.mem + rnd(MEM_LEN - maxlen);
	return pct(50) ? rnd64() : (uintptr_t)W.ro;
}

static uint32_t small_len(void)
{
	static const uint32_t lens[] = { 0, 1, 7, 8, 63, 64, 4095, 4096, 4097,
					 65536, 1 << 20 };

	return pct(60) ? rnd(2048) : PICK(lens);
}

static union ibv_gid some_gid(void)
{
	union ibv_gid g;
	uint64_t r = rnd64();

	if (W.ngid && pct(70))
		return W.gid[rnd(W.ngid)];
	memset(&g, 0, sizeof(g));
	if (pct(50)) {
		/* 10.80.1.1 or .2: this device or its peer's */
		g.raw[10] = g.raw[11] = 0xff;
		g.raw[12] = 10;
		g.raw[13] = 80;
		g.raw[14] = 1;
		g.raw[15] = 1 + rnd(3);
	} else {
		memcpy(g.raw, &r, 8);
		r = rnd64();
		memcpy(g.raw + 8, &r, 8);
	}
	return g;
}

static int some_sgid_index(void)
{
	if (W.ngid && pct(85))
		return W.gidx[rnd(W.ngid)];
	return (int)rnd(256);
}

static void some_ah_attr(struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->is_global = pct(95);
	a->grh.dgid = some_gid();
	a->grh.sgid_index = (uint8_t)some_sgid_index();
	a->grh.hop_limit = (uint8_t)rnd64();
	a->grh.traffic_class = (uint8_t)rnd64();
	a->grh.flow_label = pct(80) ? rnd(1 << 20) : (uint32_t)rnd64();
	a->sl = pct(90) ? rnd(8) : (uint8_t)rnd64();
	a->port_num = pct(95) ? 1 : (uint8_t)rnd(4);
	a->dlid = pct(90) ? 0 : (uint16_t)rnd64();
	a->static_rate = pct(90) ? 0 : (uint8_t)rnd(20);
}

/* PDs, MRs, MWs --------------------------------------------------------- */

static void op_pd(void)
{
	struct slot *x = wr(W.pd, N_PD);
	int r;

	if (!x)
		return;
	if (x->o) {
		r = pct(30) ? ibv_dealloc_pd(x->o) : -1;
		if (r >= 0)
			rec(FZ_DEALLOC_PD, r);
		if (!r)
			x->o = NULL;
	} else {
		x->o = ibv_alloc_pd(W.ctx);
		rec(FZ_ALLOC_PD, x->o ? 0 : errno);
	}
	un(x);
}

static int some_access(void)
{
	int a = rnd(32);

	if (pct(10))
		return (int)rnd64();
	if (pct(15))
		a |= 1 << rnd(16);	/* ZERO_BASED, ON_DEMAND, ... */
	if (pct(80) && (a & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)))
		a |= IBV_ACCESS_LOCAL_WRITE;
	return a;
}

/* An address range for an MR: odd sizes, none, unmapped, read-only. */
static void mr_range(void **addr, size_t *len)
{
	uint32_t off = rnd(MEM_LEN);

	switch (rnd(12)) {
	case 0:
		*len = 0;
		break;
	case 1:		/* over the guard page at the end */
		off = MEM_LEN - 100;
		*len = 4096;
		break;
	case 2:
		*addr = W.ro;
		*len = 1 + rnd(4096);
		return;
	case 3:
		*addr = (void *)(uintptr_t)(rnd64() & 0x7fffffffffffull);
		*len = 1 + rnd(1 << 20);
		return;
	case 4:
		*len = 1ull << (30 + rnd(20));
		break;
	case 5:
		off &= ~4095u;
		*len = MEM_LEN - off;
		break;
	default:
		*len = 1 + rnd(pct(50) ? 8192 : MEM_LEN - off);
		if (off + *len > MEM_LEN)
			*len = MEM_LEN - off;
	}
	*addr = W.mem + off;
}

static void op_mr(void)
{
	struct slot *x = wr(W.mr, N_MR), *p = NULL;
	struct ibv_mr *mr;
	size_t len;
	void *addr;
	int r;

	if (!x)
		return;
	if (x->o && pct(40)) {
		r = ibv_dereg_mr(x->o);
		rec(FZ_DEREG_MR, r);
		if (!r)
			x->o = NULL;
		goto out;
	}
	mr_range(&addr, &len);
	if (x->o) {
		int flags = pct(85) ? 1 + rnd(7) : (int)rnd64();

		if (flags & IBV_REREG_MR_CHANGE_PD)
			p = rd(W.pd, N_PD);
		if ((flags & IBV_REREG_MR_CHANGE_PD) && !p)
			goto out;
		r = ibv_rereg_mr(x->o, flags, p ? p->o : NULL, addr, len,
				 some_access());
		rec(FZ_REREG_MR, r ? (errno ? errno : EINVAL) : 0);
		mr = x->o;
	} else {
		p = rd(W.pd, N_PD);
		if (!p)
			goto out;
		if (pct(30))
			mr = ibv_reg_mr_iova2(p->o, addr, len,
					      pct(50) ? rnd64() : (uintptr_t)addr,
					      some_access());
		else
			mr = ibv_reg_mr(p->o, addr, len, some_access());
		rec(FZ_REG_MR, mr ? 0 : errno);
		x->o = mr;
	}
	if (mr) {
		remember(W.keys, mr->lkey);
		remember(W.keys, mr->rkey);
	}
out:
	un(p);
	un(x);
}

static void op_mw(void)
{
	struct slot *x = wr(W.mw, N_MW), *p = NULL, *q = NULL, *m = NULL;
	struct ibv_mw *mw;
	int r;

	if (!x)
		return;
	if (!x->o) {
		p = rd(W.pd, N_PD);
		if (p) {
			x->kind = pct(95) ? 1 + rnd(2) : (int)rnd(8);
			mw = ibv_alloc_mw(p->o, x->kind);
			rec(FZ_ALLOC_MW, mw ? 0 : errno);
			if (mw)
				remember(W.keys, mw->rkey);
			x->o = mw;
		}
	} else if (pct(40)) {
		r = ibv_dealloc_mw(x->o);
		rec(FZ_DEALLOC_MW, r);
		if (!r)
			x->o = NULL;
	} else if ((q = rd(W.qp, N_QP)) && (m = rd(W.mr, N_MR))) {
		struct ibv_mr *mr = m->o;
		struct ibv_mw_bind b = {
			.wr_id = rnd64(),
			.send_flags = pct(50) ? IBV_SEND_SIGNALED : 0,
			.bind_info = {
				.mr = pct(90) ? mr : NULL,
				.addr = (uintptr_t)mr->addr + rnd(4096),
				.length = pct(80) ? rnd(8192) : rnd64(),
				.mw_access_flags = some_access(),
			},
		};

		mw = x->o;
		r = ibv_bind_mw(q->o, mw, &b);
		rec(FZ_BIND_MW, r);
		if (!r)
			remember(W.keys, mw->rkey);
	}
	un(m);
	un(q);
	un(p);
	un(x);
}

/* CQs ------------------------------------------------------------------- */

static int some_cqe(void)
{
	static const int odd[] = { 0, -1, 0x1ffff, 0x20000, 0x7fffffff, 1 };

	return pct(93) ? 1 + (int)rnd(pct(70) ? 64 : 1024) : PICK(odd);
}

static void op_cq(void)
{
	struct slot *x = wr(W.cq, N_CQ);
	struct ibv_cq *cq = NULL;
	int r;

	if (!x)
		return;
	if (x->o && pct(50)) {
		r = ibv_resize_cq(x->o, some_cqe());
		rec(FZ_RESIZE_CQ, r);
	} else if (x->o) {
		r = ibv_destroy_cq(x->o);
		rec(FZ_DESTROY_CQ, r);
		if (!r)
			x->o = NULL;
	} else if (pct(30)) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = some_cqe(),
			.channel = pct(40) ? W.ch : NULL,
			.comp_vector = pct(90) ? 0 : rnd(4),
			.wc_flags = pct(70) ? rnd64() & IBV_WC_STANDARD_FLAGS :
					      rnd64(),
			.comp_mask = pct(80) ? IBV_CQ_INIT_ATTR_MASK_FLAGS :
					       rnd(8),
			/* Never SINGLE_THREADED: several threads poll it. */
			.flags = pct(80) ? 0 : rnd(8) & ~1u,
		};
		struct ibv_cq_ex *ex = ibv_create_cq_ex(W.ctx, &a);

		cq = ex ? ibv_cq_ex_to_cq(ex) : NULL;
		rec(FZ_CREATE_CQ, cq ? 0 : errno);
	} else {
		cq = ibv_create_cq(W.ctx, some_cqe(), NULL,
				   pct(40) ? W.ch : NULL, pct(90) ? 0 : rnd(4));
		rec(FZ_CREATE_CQ, cq ? 0 : errno);
	}
	if (cq)
		x->o = cq;
	un(x);
}

static void op_poll(void)
{
	struct slot *x = rd(W.cq, N_CQ);
	struct ibv_wc wc[16];
	int n, i;

	if (!x)
		return;
	if (pct(20)) {
		rec(FZ_NOTIFY_CQ, ibv_req_notify_cq(x->o, pct(30)));
	} else {
		n = ibv_poll_cq(x->o, 1 + rnd(16), wc);
		/* The provider fails a CQ in error (overflowed) with -1. */
		rec(FZ_POLL_CQ, n < 0 ? EOVERFLOW : 0);
		for (i = 0; i < n; i++) {
			atomic_fetch_add(&fz_st->cqes, 1);
			if (wc[i].status)
				atomic_fetch_add(&fz_st->cqes_err, 1);
		}
	}
	un(x);
}

/* The user-written words of a CQ ring: arm, and rarely cons. */
static void op_cq_scribble(void)
{
	struct slot *x = rd(W.cq, N_CQ);
	struct swroce_cq_ring *ring;

	if (!x)
		return;
	ring = to_swr_cq(x->o)->ring;
	if (ring && to_swr_cq(x->o)->num_cqe) {
		if (pct(80))
			atomic_store(&ring->arm.idx, (uint32_t)rnd64());
		else
			atomic_store(&ring->cons.idx,
				     atomic_load(&ring->prod.idx) +
				     (pct(50) ? rnd(4) : (uint32_t)rnd64()));
		rec(FZ_CQ_SCRIBBLE, 0);
	}
	un(x);
}

/* SRQs, AHs ------------------------------------------------------------- */

static uint32_t some_wr_count(void)
{
	static const uint32_t odd[] = { 0, 0x8000, 0x8001, 0xffffffff, 4096 };

	return pct(95) ? 1 + rnd(128) : PICK(odd);
}

static uint32_t some_sge_count(void)
{
	static const uint32_t odd[] = { 0, 32, 33, 0xffff, 0xffffffff };

	return pct(95) ? rnd(8) : PICK(odd);
}

static void op_srq(void)
{
	struct slot *x = wr(W.srq, N_SRQ), *p = NULL;
	struct ibv_srq_init_attr a = { .attr = { 0 } };
	struct ibv_srq *srq;
	int r;

	if (!x)
		return;
	if (x->o && pct(30)) {
		r = ibv_destroy_srq(x->o);
		rec(FZ_DESTROY_SRQ, r);
		if (!r)
			x->o = NULL;
	} else if (!x->o && (p = rd(W.pd, N_PD))) {
		a.attr.max_wr = some_wr_count();
		a.attr.max_sge = some_sge_count();
		a.attr.srq_limit = pct(70) ? 0 : rnd(a.attr.max_wr + 2);
		srq = ibv_create_srq(p->o, &a);
		rec(FZ_CREATE_SRQ, srq ? 0 : errno);
		x->o = srq;
	}
	un(p);
	un(x);
}

static void op_srq_modify(void)
{
	struct slot *x = rd(W.srq, N_SRQ);
	struct ibv_srq_attr a = {
		.max_wr = some_wr_count(),
		.srq_limit = pct(50) ? rnd(16) : rnd(256),
	};

	if (!x)
		return;
	if (pct(30))
		rec(FZ_QUERY_SRQ, ibv_query_srq(x->o, &a));
	else
		rec(FZ_MODIFY_SRQ,
		    ibv_modify_srq(x->o, &a, pct(90) ? rnd(4) : (int)rnd64()));
	un(x);
}

static void op_ah(void)
{
	struct slot *x = wr(W.ah, N_AH), *p = NULL;
	struct ibv_ah_attr a;
	struct ibv_ah *ah;
	int r;

	if (!x)
		return;
	if (x->o && pct(50)) {
		r = ibv_destroy_ah(x->o);
		rec(FZ_DESTROY_AH, r);
		if (!r)
			x->o = NULL;
	} else if (!x->o && (p = rd(W.pd, N_PD))) {
		some_ah_attr(&a);
		ah = ibv_create_ah(p->o, &a);
		rec(FZ_CREATE_AH, ah ? 0 : errno);
		if (ah)
			remember(W.ahns, to_swr_ah(ah)->ahn);
		x->o = ah;
	}
	un(p);
	un(x);
}

/* QPs ------------------------------------------------------------------- */

static void op_qp(void)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	static const int odd_types[] = { 0, 1, 5, 7, IBV_QPT_RAW_PACKET, 100,
					 IBV_QPT_DRIVER };
	static const uint32_t inl[] = { 0, 0, 1, 16, 64, 200, 256, 1024, 4096,
					0xffffffff };
	struct slot *x = wr(W.qp, N_QP), *p = NULL, *s = NULL, *r = NULL;
	struct slot *q = NULL;
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;
	int ret;

	if (!x)
		return;
	if (x->o) {
		if (pct(25)) {
			ret = ibv_destroy_qp(x->o);
			rec(FZ_DESTROY_QP, ret);
			if (!ret)
				x->o = NULL;
		}
		goto out;
	}
	p = rd(W.pd, N_PD);
	s = rd(W.cq, N_CQ);
	r = pct(70) ? rd(W.cq, N_CQ) : NULL;
	q = pct(25) ? rd(W.srq, N_SRQ) : NULL;
	if (!p || !s)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_type = pct(95) ? PICK(types) : (enum ibv_qp_type)PICK(odd_types);
	a.send_cq = s->o;
	a.recv_cq = r ? r->o : s->o;
	a.srq = q ? q->o : NULL;
	a.sq_sig_all = rnd(2);
	a.cap.max_send_wr = some_wr_count();
	a.cap.max_recv_wr = some_wr_count();
	a.cap.max_send_sge = some_sge_count();
	a.cap.max_recv_sge = some_sge_count();
	a.cap.max_inline_data = PICK(inl);
	a.pd = p->o;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	if (pct(25)) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = pct(80) ? rnd64() & 0x7ff : rnd64();
	}
	if (pct(5)) {
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = 1u << rnd(12);
	}
	if (pct(2))
		a.comp_mask |= 1u << rnd(12);
	qp = ibv_create_qp_ex(W.ctx, &a);
	rec(FZ_CREATE_QP, qp ? 0 : errno);
	if (qp) {
		x->o = qp;
		x->kind = qp->qp_type;
		if (qp->qp_type >= IBV_QPT_RC && qp->qp_type <= IBV_QPT_UD)
			atomic_fetch_add(&fz_st->qp_type[qp->qp_type -
							 IBV_QPT_RC], 1);
		remember(W.qpns, qp->qp_num);
	}
out:
	un(q);
	un(r);
	un(s);
	un(p);
	un(x);
}

/* The attributes a transition needs (IBTA table), by QP type. */
static int proper_mask(int type, int from, int to)
{
	int m = IBV_QP_STATE;

	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return m | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
		if (type == IBV_QPT_UD)
			return m;
		m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		     IBV_QP_RQ_PSN;
		return type == IBV_QPT_RC ? m | IBV_QP_MAX_DEST_RD_ATOMIC |
					    IBV_QP_MIN_RNR_TIMER : m;
	}
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS) {
		m |= IBV_QP_SQ_PSN;
		return type == IBV_QPT_RC ? m | IBV_QP_TIMEOUT |
			IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC : m;
	}
	if (to == IBV_QPS_SQD)
		return m | (pct(50) ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0);
	return m;
}

static int next_state(int cur)
{
	static const int chain[] = {
		[IBV_QPS_RESET] = IBV_QPS_INIT, [IBV_QPS_INIT] = IBV_QPS_RTR,
		[IBV_QPS_RTR] = IBV_QPS_RTS, [IBV_QPS_RTS] = IBV_QPS_RTS,
		[IBV_QPS_SQD] = IBV_QPS_RTS, [IBV_QPS_SQE] = IBV_QPS_RTS,
		[IBV_QPS_ERR] = IBV_QPS_RESET,
	};

	if (cur < 0 || cur > IBV_QPS_ERR || pct(15))
		return (int)rnd(IBV_QPS_ERR + 1);
	if (cur == IBV_QPS_RTS && pct(20))
		return pct(50) ? IBV_QPS_SQD : IBV_QPS_ERR;
	return chain[cur];
}

static void op_modify_qp(void)
{
	struct slot *x = rd(W.qp, N_QP);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int cur, mask;

	if (!x)
		return;
	cur = swr_qp_state(x->o);
	memset(&a, 0, sizeof(a));
	a.qp_state = next_state(cur);
	a.pkey_index = pct(95) ? 0 : rnd(4);
	a.port_num = pct(95) ? 1 : rnd(4);
	a.qkey = pct(80) ? SWR_QKEY : (uint32_t)rnd64();
	a.qp_access_flags = some_access();
	a.path_mtu = pct(90) ? 1 + rnd(5) : rnd(256);
	a.dest_qp_num = recall(W.qpns) & (pct(95) ? 0xffffff : ~0u);
	a.rq_psn = pct(90) ? rnd(1 << 24) : (uint32_t)rnd64();
	a.sq_psn = pct(90) ? rnd(1 << 24) : (uint32_t)rnd64();
	some_ah_attr(&a.ah_attr);
	some_ah_attr(&a.alt_ah_attr);
	a.max_dest_rd_atomic = pct(90) ? rnd(17) : (uint8_t)rnd64();
	a.max_rd_atomic = pct(90) ? rnd(17) : (uint8_t)rnd64();
	a.min_rnr_timer = rnd(32);
	a.timeout = pct(90) ? rnd(20) : rnd(256);
	a.retry_cnt = rnd(8);
	a.rnr_retry = rnd(8);
	a.sq_draining = rnd(2);
	a.en_sqd_async_notify = rnd(2);
	a.cap.max_send_wr = some_wr_count();
	a.cap.max_recv_wr = some_wr_count();
	a.alt_port_num = rnd(3);
	a.alt_timeout = rnd(32);
	a.path_mig_state = rnd(3);
	a.rate_limit = pct(90) ? 0 : (uint32_t)rnd64();
	if (pct(70))
		mask = proper_mask(x->kind, cur, a.qp_state) |
		       (pct(15) ? 1 << rnd(26) : 0);
	else
		mask = (int)(rnd64() & ((1u << 26) - 1)) |
		       (pct(50) ? IBV_QP_STATE : 0);
	if (pct(10)) {
		rec(FZ_QUERY_QP, ibv_query_qp(x->o, &a, mask, &init));
	} else {
		rec(FZ_MODIFY_QP, ibv_modify_qp(x->o, &a, mask));
		if (a.qp_state == IBV_QPS_RTR && !pct(20))
			remember(W.qpns, ((struct ibv_qp *)x->o)->qp_num);
	}
	un(x);
}

/*
 * Two QPs of a type connected to each other through an IPv4 GID of the
 * device, from RESET as an application does it, so that well-formed work
 * requests have somewhere to go. A QP may be connected to itself.
 */
static void op_connect(void)
{
	struct slot *a = rd(W.qp, N_QP), *b = a ? rd(W.qp, N_QP) : NULL;
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct swr_pair p;
	int i, r;

	if (!b || a->kind != b->kind || a->kind < IBV_QPT_RC ||
	    a->kind > IBV_QPT_UD)
		goto out;
	memset(&p, 0, sizeof(p));
	p.gid_index = -1;
	for (i = 0; i < W.ngid; i++) {
		if (W.gid[i].raw[10] == 0xff && W.gid[i].raw[11] == 0xff) {
			p.gid = W.gid[i];
			p.gid_index = W.gidx[i];
		}
	}
	if (p.gid_index < 0)
		goto out;
	p.mtu = IBV_MTU_1024;
	p.o.rnr_retry = rnd(8);
	p.o.retry_cnt = rnd(8);
	p.o.timeout = 8 + rnd(8);
	ibv_modify_qp(a->o, &reset, IBV_QP_STATE);
	ibv_modify_qp(b->o, &reset, IBV_QP_STATE);
	r = swr_qp_connect(&p, a->o, ((struct ibv_qp *)b->o)->qp_num);
	if (!r && a != b)
		r = swr_qp_connect(&p, b->o, ((struct ibv_qp *)a->o)->qp_num);
	rec(FZ_CONNECT_QP, -r);
	remember(W.qpns, ((struct ibv_qp *)a->o)->qp_num);
out:
	un(b);
	un(a);
}

static void op_mcast(void)
{
	struct slot *x = rd(W.qp, N_QP);
	union ibv_gid g;
	uint16_t lid = pct(90) ? 0 : (uint16_t)rnd64();

	if (!x)
		return;
	memset(&g, 0, sizeof(g));
	switch (rnd(4)) {
	case 0:		/* ff0e::1:n */
		g.raw[0] = 0xff;
		g.raw[1] = 0x0e;
		g.raw[13] = 1;
		g.raw[15] = (uint8_t)rnd(4);
		break;
	case 1:		/* ::ffff:239.1.1.n */
		g.raw[10] = g.raw[11] = 0xff;
		g.raw[12] = 239;
		g.raw[13] = g.raw[14] = 1;
		g.raw[15] = (uint8_t)rnd(4);
		break;
	default:
		g = some_gid();
	}
	if (pct(50))
		rec(FZ_ATTACH_MCAST, ibv_attach_mcast(x->o, &g, lid));
	else
		rec(FZ_DETACH_MCAST, ibv_detach_mcast(x->o, &g, lid));
	un(x);
}

/* Work requests through the provider ------------------------------------ */

static void some_sges(struct ibv_sge *sg, int n)
{
	for (int i = 0; i < n; i++) {
		sg[i].length = small_len() & 0xffff;
		sg[i].addr = (uintptr_t)W.mem + rnd(MEM_LEN - 65536);
		sg[i].lkey = recall(W.keys);
	}
}

/*
 * An SGE inside a live MR of @pd, the MR read-locked in *@m (unlock it
 * after the post); false if there is none to hand.
 */
static bool mr_sge(struct ibv_pd *pd, struct ibv_sge *sg, struct slot **m)
{
	unsigned int i, k = rnd(N_MR);
	struct ibv_mr *mr = NULL;
	uint32_t off;

	for (i = 0; i < N_MR && !mr; i++) {
		*m = &W.mr[(k + i) % N_MR];
		if (pthread_rwlock_tryrdlock(&(*m)->lk))
			continue;
		mr = (*m)->o;
		if (!mr || mr->pd != pd || !mr->length ||
		    mr->length > MEM_LEN || (uint8_t *)mr->addr < W.mem ||
		    (uint8_t *)mr->addr + mr->length > W.mem + MEM_LEN) {
			un(*m);
			mr = NULL;
		}
	}
	if (!mr) {
		*m = NULL;
		return false;
	}
	off = rnd((uint32_t)mr->length);
	sg->addr = (uintptr_t)mr->addr + off;
	sg->length = 1 + rnd((uint32_t)mr->length - off);
	if (sg->length > 65536)
		sg->length = 65536;
	sg->lkey = mr->lkey;
	return true;
}

/* One well-formed work request within MRs of the QP's PD. */
static int post_good_send(struct ibv_qp *qp, struct ibv_ah *ah)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_SEND, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_IMM,
	};
	struct ibv_send_wr wr = { .wr_id = rnd64(), .num_sge = 1 }, *bad;
	struct slot *m1, *m2 = NULL;
	struct ibv_sge sg, rsg;
	int r = 0;

	if (!mr_sge(qp->pd, &sg, &m1))
		return -1;
	wr.sg_list = &sg;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = ah ? IBV_WR_SEND : PICK(ops);
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = recall(W.qpns);
		wr.wr.ud.remote_qkey = SWR_QKEY;
	} else if (mr_sge(qp->pd, &rsg, &m2)) {
		struct ibv_mr *mr = m2->o;

		wr.wr.rdma.remote_addr = rsg.addr;
		wr.wr.rdma.rkey = mr->rkey;
		if (wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			sg.length = 8;
			wr.wr.atomic.remote_addr = rsg.addr & ~7ull;
			wr.wr.atomic.rkey = mr->rkey;
			wr.wr.atomic.compare_add = 1;
			if (sg.addr + 8 > (uintptr_t)mr->addr + mr->length)
				r = -1;
		}
	} else {
		r = -1;
	}
	if (!r)
		r = ibv_post_send(qp, &wr, &bad);
	un(m2);
	un(m1);
	return r;
}

static void op_post_send(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV, IBV_WR_ATOMIC_WRITE,
	};
	struct slot *x = rd(W.qp, N_QP), *h = NULL;
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sg[4][4];
	int n = 1 + rnd(4), i;

	if (!x)
		return;
	if (x->kind == IBV_QPT_UD && !(h = rd(W.ah, N_AH)))
		goto out;
	if (pct(50)) {
		i = post_good_send(x->o, h ? h->o : NULL);
		if (i >= 0)
			rec(FZ_POST_SEND, i);
		goto out;
	}
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd64();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].opcode = pct(95) ? PICK(ops) : (enum ibv_wr_opcode)rnd(32);
		wr[i].send_flags = rnd(32);
		wr[i].num_sge = rnd(5);
		wr[i].sg_list = sg[i];
		some_sges(sg[i], wr[i].num_sge);
		wr[i].imm_data = (uint32_t)rnd64();
		if (h) {
			wr[i].wr.ud.ah = h->o;
			wr[i].wr.ud.remote_qpn = recall(W.qpns);
			wr[i].wr.ud.remote_qkey = pct(80) ? SWR_QKEY : rnd(9);
		} else if (wr[i].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			   wr[i].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr[i].wr.atomic.remote_addr = mem_addr(8) & ~7ull;
			wr[i].wr.atomic.rkey = recall(W.keys);
			wr[i].wr.atomic.compare_add = rnd64();
			wr[i].wr.atomic.swap = rnd64();
		} else {
			wr[i].wr.rdma.remote_addr = mem_addr(65536);
			wr[i].wr.rdma.rkey = recall(W.keys);
		}
		if (wr[i].opcode == IBV_WR_LOCAL_INV ||
		    wr[i].opcode == IBV_WR_SEND_WITH_INV)
			wr[i].invalidate_rkey = recall(W.keys);
	}
	rec(FZ_POST_SEND, ibv_post_send(x->o, wr, &bad));
out:
	un(h);
	un(x);
}

static void op_post_recv(void)
{
	bool srq = pct(30);
	struct slot *x = srq ? rd(W.srq, N_SRQ) : rd(W.qp, N_QP), *m = NULL;
	struct ibv_recv_wr wr[4], *bad;
	struct ibv_sge sg[4][4];
	int n = 1 + rnd(4), i;
	struct ibv_pd *pd;

	if (!x)
		return;
	pd = srq ? ((struct ibv_srq *)x->o)->pd : ((struct ibv_qp *)x->o)->pd;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd64();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].num_sge = rnd(5);
		wr[i].sg_list = sg[i];
		some_sges(sg[i], wr[i].num_sge);
	}
	/* Half of the time: one receive into a live MR, as it should be. */
	if (pct(50) && mr_sge(pd, sg[0], &m)) {
		wr[0].num_sge = 1;
		wr[0].next = NULL;
	}
	if (srq)
		rec(FZ_POST_SRQ_RECV, ibv_post_srq_recv(x->o, wr, &bad));
	else
		rec(FZ_POST_RECV, ibv_post_recv(x->o, wr, &bad));
	un(m);
	un(x);
}

/* WQEs straight into the rings ------------------------------------------- */

/* A producer index: the right one mostly, else out of range. */
static uint32_t some_prod(uint32_t prod, uint32_t cons, uint32_t num)
{
	if (pct(92))
		return prod;
	switch (rnd(4)) {
	case 0:
		return cons + num + 1 + rnd(1000);
	case 1:
		return cons - 1 - rnd(4);
	case 2:
		return prod + num;
	}
	return (uint32_t)rnd64();
}

static void mutate(uint8_t *p, size_t len)
{
	if (pct(10))
		for (unsigned int i = rnd(8) + 1; i; i--)
			p[rnd((uint32_t)len)] = (uint8_t)rnd64();
}

static void fill_sges(struct swroce_sge *sge, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		sge[i].addr = mem_addr(65536);
		sge[i].length = small_len();
		sge[i].lkey = recall(W.keys);
	}
}

static void fill_send_wqe(uint8_t *slot, const struct swr_sq *sq)
{
	static const uint8_t ops[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15 };
	struct swroce_send_wqe *w = (void *)slot;
	uint32_t room = sq->wqe_stride - sizeof(*w);

	memset(slot, 0, sq->wqe_stride);
	w->wr_id = rnd64();
	w->opcode = pct(90) ? PICK(ops) : (uint8_t)rnd64();
	w->flags = pct(95) ? rnd(16) : (uint8_t)rnd64();
	w->num_sge = pct(90) ? rnd(sq->max_sge + 1) : (uint16_t)rnd64();
	w->ex = (uint32_t)rnd64();
	w->xrc_srqn = pct(95) ? 0 : (uint32_t)rnd64();
	if (w->flags & SWROCE_WQE_INLINE) {
		w->inline_len = pct(90) ? rnd(sq->max_inline + 1) :
			(pct(50) ? room + 1 : (uint32_t)rnd64());
		for (uint32_t i = 0; i < room && i < w->inline_len; i++)
			slot[sizeof(*w) + i] = (uint8_t)i;
	} else {
		fill_sges((void *)(slot + sizeof(*w)),
			  w->num_sge < room / 16 ? w->num_sge : room / 16);
	}
	switch (w->opcode) {
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
	case SWROCE_WR_ATOMIC_WRITE:
		w->atomic.remote_addr = mem_addr(8) & (pct(90) ? ~7ull : ~0ull);
		w->atomic.compare_add = rnd64();
		w->atomic.swap = rnd64();
		w->atomic.rkey = recall(W.keys);
		break;
	case SWROCE_WR_BIND_MW:
		w->bind.addr = mem_addr(8192);
		w->bind.length = pct(80) ? rnd(8192) : rnd64();
		w->bind.mw_rkey = recall(W.keys);
		w->bind.new_rkey = pct(80) ? (w->bind.mw_rkey & ~0xffu) | rnd(256) :
					     (uint32_t)rnd64();
		w->bind.mr_lkey = recall(W.keys);
		w->bind.access = (uint32_t)some_access();
		break;
	default:
		if (pct(50)) {	/* as UD would have it */
			w->ud.ahn = recall(W.ahns);
			w->ud.remote_qpn = recall(W.qpns);
			w->ud.remote_qkey = pct(80) ? SWR_QKEY : (uint32_t)rnd64();
		} else {
			w->rdma.remote_addr = mem_addr(65536);
			w->rdma.rkey = recall(W.keys);
		}
	}
	mutate(slot, sq->wqe_stride < 128 ? sq->wqe_stride : 128);
}

static void op_sq_ring(void)
{
	struct slot *x = rd(W.qp, N_QP);
	struct ibv_qp *qp;
	struct swr_sq *sq;
	uint32_t cons;
	int n;

	if (!x)
		return;
	qp = x->o;
	sq = &to_swr_qp(qp)->sq;
	if (!sq->num_wqe || !sq->ring)
		goto out;
	pthread_spin_lock(&sq->lock);
	for (n = 1 + rnd(8); n; n--) {
		fill_send_wqe(sq->slots + (size_t)(sq->prod & (sq->num_wqe - 1)) *
			      sq->wqe_stride, sq);
		sq->prod++;
	}
	cons = atomic_load(&sq->ring->cons.idx);
	atomic_store_explicit(&sq->ring->prod.idx,
			      some_prod(sq->prod, cons, sq->num_wqe),
			      memory_order_release);
	pthread_spin_unlock(&sq->lock);
	rec(FZ_SQ_RING, 0);
	atomic_thread_fence(memory_order_seq_cst);
	if (pct(85))
		rec(FZ_DOORBELL,
		    -swr_doorbell_raw(W.ctx->cmd_fd, SWROCE_METHOD_QP_DOORBELL,
				      1, pct(95) ? qp->handle : rnd(64)));
out:
	un(x);
}

static void fill_recv_ring(struct swr_wq *wq)
{
	struct swroce_recv_wqe *w;
	uint32_t cons, room = wq->wqe_stride - sizeof(*w);
	int n;

	pthread_spin_lock(&wq->lock);
	for (n = 1 + rnd(8); n; n--) {
		w = (void *)(wq->slots + (size_t)(wq->prod & (wq->num_wqe - 1)) *
			     wq->wqe_stride);
		memset(w, 0, wq->wqe_stride);
		w->wr_id = rnd64();
		w->num_sge = pct(90) ? rnd(wq->max_sge + 1) : (uint32_t)rnd64();
		w->reserved_0 = pct(95) ? 0 : (uint32_t)rnd64();
		fill_sges(w->sge, w->num_sge < room / 16 ? w->num_sge : room / 16);
		mutate((uint8_t *)w, wq->wqe_stride);
		wq->prod++;
	}
	cons = atomic_load(&wq->ring->cons.idx);
	atomic_store_explicit(&wq->ring->prod.idx,
			      some_prod(wq->prod, cons, wq->num_wqe),
			      memory_order_release);
	pthread_spin_unlock(&wq->lock);
}

static void op_rq_ring(void)
{
	bool srq = pct(40);
	struct slot *x = srq ? rd(W.srq, N_SRQ) : rd(W.qp, N_QP);
	struct swr_wq *wq;

	if (!x)
		return;
	wq = srq ? &to_swr_srq(x->o)->wq : &to_swr_qp(x->o)->rq;
	if (wq->num_wqe && wq->ring) {
		fill_recv_ring(wq);
		rec(srq ? FZ_SRQ_RING : FZ_RQ_RING, 0);
	}
	un(x);
}

static void op_raw(void)
{
	int err = fz_raw_session(W.uverbs);

	if (err)
		rec(FZ_OPEN, err);
}

/* Threads ---------------------------------------------------------------- */

static const struct {
	void (*fn)(void);
	int weight;
} fz_ops[] = {
	{ op_pd, 3 }, { op_mr, 8 }, { op_mw, 4 }, { op_cq, 5 },
	{ op_poll, 12 }, { op_cq_scribble, 2 }, { op_srq, 3 },
	{ op_srq_modify, 3 }, { op_ah, 4 }, { op_qp, 8 },
	{ op_modify_qp, 12 }, { op_connect, 6 }, { op_mcast, 3 },
	{ op_post_send, 12 },
	{ op_post_recv, 6 }, { op_sq_ring, 8 }, { op_rq_ring, 4 },
	{ op_raw, 1 },
};

static void *fuzz_thread(void *arg)
{
	int total = 0, k, i;

	fz_rs = *(uint64_t *)arg;
	for (i = 0; i < (int)(sizeof(fz_ops) / sizeof(fz_ops[0])); i++)
		total += fz_ops[i].weight;
	while (!atomic_load(&fz_st->stop) && !atomic_load(&W.dead) &&
	       atomic_fetch_sub(&W.budget, 1) > 0) {
		k = (int)rnd(total);
		for (i = 0; k >= fz_ops[i].weight; i++)
			k -= fz_ops[i].weight;
		fz_ops[i].fn();
	}
	return NULL;
}

/*
 * Read and acknowledge every event at once: libibverbs' destroy of a CQ
 * or QP waits until the events read for it have been acknowledged.
 */
static void *event_thread(void *arg)
{
	struct pollfd pf[2] = {
		{ .fd = W.ctx->async_fd, .events = POLLIN },
		{ .fd = W.ch->fd, .events = POLLIN },
	};
	struct ibv_async_event e;
	struct ibv_cq *cq;
	void *cq_ctx;

	fcntl(pf[0].fd, F_SETFL, fcntl(pf[0].fd, F_GETFL) | O_NONBLOCK);
	fcntl(pf[1].fd, F_SETFL, fcntl(pf[1].fd, F_GETFL) | O_NONBLOCK);
	while (!atomic_load(&W.quit)) {
		poll(pf, 2, 100);
		while (!ibv_get_async_event(W.ctx, &e)) {
			if (e.event_type == IBV_EVENT_DEVICE_FATAL)
				atomic_store(&W.dead, 1);
			ibv_ack_async_event(&e);
			atomic_fetch_add(&fz_st->async_events, 1);
		}
		while (!ibv_get_cq_event(W.ch, &cq, &cq_ctx)) {
			/* Re-arm before the ack, while the CQ cannot go. */
			ibv_req_notify_cq(cq, 0);
			ibv_ack_cq_events(cq, 1);
			atomic_fetch_add(&fz_st->comp_events, 1);
		}
	}
	return NULL;
}

/* Destroy whatever is left, dependents first; or leave it all to close. */
static void teardown(void)
{
	struct {
		struct slot *s;
		int n;
		enum fz_op op;
	} order[] = {
		{ W.qp, N_QP, FZ_DESTROY_QP }, { W.srq, N_SRQ, FZ_DESTROY_SRQ },
		{ W.mw, N_MW, FZ_DEALLOC_MW }, { W.mr, N_MR, FZ_DEREG_MR },
		{ W.ah, N_AH, FZ_DESTROY_AH }, { W.cq, N_CQ, FZ_DESTROY_CQ },
		{ W.pd, N_PD, FZ_DEALLOC_PD },
	};
	bool destroy = !atomic_load(&W.dead) && pct(70);
	unsigned int i;
	int k, r = 0;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		for (k = 0; k < order[i].n; k++) {
			void *o = order[i].s[k].o;

			order[i].s[k].o = NULL;
			pthread_rwlock_destroy(&order[i].s[k].lk);
			if (!o || !destroy)
				continue;
			switch (order[i].op) {
			case FZ_DESTROY_QP:
				r = ibv_destroy_qp(o);
				break;
			case FZ_DESTROY_SRQ:
				r = ibv_destroy_srq(o);
				break;
			case FZ_DEALLOC_MW:
				r = ibv_dealloc_mw(o);
				break;
			case FZ_DEREG_MR:
				r = ibv_dereg_mr(o);
				break;
			case FZ_DESTROY_AH:
				r = ibv_destroy_ah(o);
				break;
			case FZ_DESTROY_CQ:
				r = ibv_destroy_cq(o);
				break;
			default:
				r = ibv_dealloc_pd(o);
			}
			fz_rec(order[i].op, r);
		}
	}
}

static void slots_init(void)
{
	struct slot *all[] = { W.pd, W.mr, W.mw, W.cq, W.srq, W.qp, W.ah };
	const int n[] = { N_PD, N_MR, N_MW, N_CQ, N_SRQ, N_QP, N_AH };

	for (unsigned int i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		for (int k = 0; k < n[i]; k++) {
			memset(&all[i][k], 0, sizeof(all[i][k]));
			pthread_rwlock_init(&all[i][k].lk, NULL);
		}
}

static void gids_init(void)
{
	struct ibv_gid_entry e;
	int i;

	W.ngid = 0;
	for (i = 0; i < 16 && W.ngid < N_GID; i++) {
		if (ibv_query_gid_ex(W.ctx, 1, i, &e, 0) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		W.gidx[W.ngid] = i;
		W.gid[W.ngid++] = e.gid;
	}
}

/* One context's life: open, fuzz with @nthr threads, tear down. */
static void worker_context(uint64_t seed, int nthr)
{
	uint64_t seeds[MAX_WORKERS];
	pthread_t th[MAX_WORKERS], ev;
	int i;

	W.ctx = swr_open_dev(W.dev);
	if (!W.ctx) {
		fz_rec(FZ_OPEN, errno ? errno : ENODEV);
		usleep(50000 + rnd(150000));
		return;
	}
	fz_rec(FZ_OPEN, 0);
	W.ch = ibv_create_comp_channel(W.ctx);
	if (!W.ch || swr_uverbs_path(W.uverbs, sizeof(W.uverbs))) {
		if (W.ch)
			ibv_destroy_comp_channel(W.ch);
		ibv_close_device(W.ctx);
		usleep(100000);
		return;
	}
	gids_init();
	slots_init();
	atomic_store(&W.dead, 0);
	atomic_store(&W.quit, 0);
	atomic_store(&W.budget, 2000 + rnd(30000));
	pthread_create(&ev, NULL, event_thread, NULL);
	for (i = 0; i < nthr; i++) {
		seeds[i] = fz_mix(seed ^ (0x9e3779b97f4a7c15ull * (i + 1)));
		pthread_create(&th[i], NULL, fuzz_thread, &seeds[i]);
	}
	for (i = 0; i < nthr; i++)
		pthread_join(th[i], NULL);
	teardown();
	atomic_store(&W.quit, 1);
	pthread_join(ev, NULL);
	if (atomic_load(&W.dead))
		atomic_fetch_add(&fz_st->dead_ctx, 1);
	ibv_destroy_comp_channel(W.ch);
	ibv_close_device(W.ctx);
}

static int worker(uint64_t seed, const char *dev, int nthr)
{
	W.dev = dev;
	setenv("SWROCE_DEV", dev, 1);
	W.mem = mmap(NULL, MEM_LEN + 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	W.ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (W.mem == MAP_FAILED || W.ro == MAP_FAILED)
		return 1;
	mprotect(W.mem + MEM_LEN, 4096, PROT_NONE);
	fz_rs = seed;
	/* Each new context continues the worker's sequence. */
	while (!atomic_load(&fz_st->stop))
		worker_context(rnd64(), nthr);
	return 0;
}

/* The parent ----------------------------------------------------------- */

struct child {
	pid_t pid;
	uint64_t seed;
};

static const char *devs[MAX_WORKERS];
static int ndevs, nworkers = 3, nthreads = 3, serial;
static uint64_t run_seed;
static long kills, restarts, crashes, stuck;

static void start(struct child *c)
{
	const char *dev = devs[serial % ndevs];

	c->seed = fz_mix(run_seed + (uint64_t)serial++);
	printf("worker %d on %s: seed %#llx\n", serial - 1, dev,
	       (unsigned long long)c->seed);
	fflush(stdout);
	c->pid = fork();
	if (!c->pid)
		_exit(worker(c->seed, dev, nthreads));
	restarts++;
}

/* What ended @c (reaped with @status); a crash is a failure. */
static void ended(struct child *c, int status, bool killed)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && killed)
		return;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return;
	crashes++;
	printf("FAIL: worker seed %#llx %s %d\n", (unsigned long long)c->seed,
	       WIFSIGNALED(status) ? "died of signal" : "exited with",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* A process that SIGKILL cannot end is stuck in the kernel: show where. */
static void show_stuck(pid_t pid)
{
	char cmd[160];

	stuck++;
	printf("FAIL: worker %d not reaped 60 s after SIGKILL; its tasks' stacks:\n",
	       pid);
	fflush(stdout);
	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do echo \"$t\"; cat \"$t/stack\"; done",
		 pid);
	(void)!system(cmd);
}

/* Reap @c within 60 s; false if it is stuck. */
static bool reap(struct child *c, bool killed)
{
	uint64_t end = swr_now_ms() + 60000;
	int status;

	while (swr_now_ms() < end) {
		pid_t r = waitpid(c->pid, &status, WNOHANG);

		if (r == c->pid) {
			ended(c, status, killed);
			c->pid = 0;
			return true;
		}
		usleep(10000);
	}
	show_stuck(c->pid);
	c->pid = 0;	/* given up on */
	return false;
}

static void run(int secs, int kill_ms)
{
	struct child ch[MAX_WORKERS] = { 0 };
	uint64_t end = swr_now_ms() + (uint64_t)secs * 1000, next;
	int i, status;

	for (i = 0; i < nworkers; i++)
		start(&ch[i]);
	next = swr_now_ms() + rnd(2 * kill_ms);
	while (swr_now_ms() < end) {
		usleep(20000);
		for (i = 0; i < nworkers; i++) {
			if (ch[i].pid &&
			    waitpid(ch[i].pid, &status, WNOHANG) == ch[i].pid) {
				ended(&ch[i], status, false);
				start(&ch[i]);
			}
		}
		if (!kill_ms || swr_now_ms() < next)
			continue;
		i = (int)rnd(nworkers);
		if (ch[i].pid && !kill(ch[i].pid, SIGKILL)) {
			kills++;
			if (reap(&ch[i], true))
				start(&ch[i]);
		}
		next = swr_now_ms() + rnd(2 * kill_ms);
	}
	/* The end: let them tear down, then kill what is left. */
	atomic_store(&fz_st->stop, 1);
	for (i = 0; i < nworkers; i++) {
		uint64_t t = swr_now_ms() + 30000;

		while (ch[i].pid && swr_now_ms() < t &&
		       waitpid(ch[i].pid, &status, WNOHANG) != ch[i].pid)
			usleep(20000);
		if (ch[i].pid && swr_now_ms() >= t) {
			printf("worker %d did not stop within 30 s: SIGKILL\n",
			       ch[i].pid);
			kill(ch[i].pid, SIGKILL);
			reap(&ch[i], true);
		} else if (ch[i].pid) {
			ended(&ch[i], status, false);
		}
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: swroce_uverbs_fuzz [-t SECONDS] [-s SEED] [-w WORKERS]\n"
		"       [-j THREADS] [-k KILL_MS] [-d DEV[,DEV...]] [-r WORKER_SEED]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char *devlist = strdup(swr_test_dev()), *tok;
	uint64_t one = 0;
	int secs = 60, kill_ms = 1000, c;

	run_seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	while ((c = getopt(argc, argv, "t:s:w:j:k:d:r:")) != -1) {
		switch (c) {
		case 't':
			secs = atoi(optarg);
			break;
		case 's':
			run_seed = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			nworkers = atoi(optarg);
			break;
		case 'j':
			nthreads = atoi(optarg);
			break;
		case 'k':
			kill_ms = atoi(optarg);
			break;
		case 'd':
			devlist = optarg;
			break;
		case 'r':
			one = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (secs <= 0 || nworkers < 1 || nworkers > MAX_WORKERS ||
	    nthreads < 1 || nthreads > MAX_WORKERS || kill_ms < 0)
		usage();
	for (tok = strtok(devlist, ","); tok && ndevs < MAX_WORKERS;
	     tok = strtok(NULL, ","))
		devs[ndevs++] = tok;
	if (!ndevs)
		usage();
	fz_st = mmap(NULL, sizeof(*fz_st), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_st == MAP_FAILED)
		return 1;
	memset(fz_st, 0, sizeof(*fz_st));
	fz_rs = run_seed;
	if (one) {
		/* Reproduce one worker: no kills, stopped after -t. */
		struct child w = { .seed = one };

		printf("one worker, seed %#llx, %d s\n", (unsigned long long)one,
		       secs);
		w.pid = fork();
		if (!w.pid)
			_exit(worker(one, devs[0], nthreads));
		sleep((unsigned int)secs);
		atomic_store(&fz_st->stop, 1);
		reap(&w, false);
	} else {
		printf("seed %#llx: %d s, %d workers x %d threads, a kill every ~%d ms\n",
		       (unsigned long long)run_seed, secs, nworkers, nthreads,
		       kill_ms);
		run(secs, kill_ms);
	}
	fz_report();
	printf("workers started %ld, killed %ld, crashed %ld, stuck %ld\n",
	       restarts, kills, crashes, stuck);
	return crashes || stuck ? 1 : 0;
}
