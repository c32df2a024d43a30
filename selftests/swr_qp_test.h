/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers for the data-path selftests: two QPs on the device under test
 * (a client and a server), connected to each other through the device's
 * own RoCEv2 GID, with a CQ per queue so that each test can tell the
 * requester's completions from the responder's.
 *
 * Everything returns 0 or a negative errno and never asserts: the tests
 * decide what a failure means.
 */
#ifndef SWR_QP_TEST_H
#define SWR_QP_TEST_H

#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#include "swr_test.h"

/* How long a completion may take in a slow (TCG) guest. */
#define SWR_CQ_TIMEOUT_MS	20000

static inline uint64_t swr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The test pattern: byte @i of a buffer filled with @seed. Not periodic
 * in 256 or any power of two, so a copy from a wrong offset shows.
 */
static inline uint8_t swr_pat(size_t i, uint8_t seed)
{
	uint32_t x = (uint32_t)i * 0x9e3779b1u;

	return (uint8_t)((x >> 24) ^ (x >> 11) ^ seed);
}

static inline void swr_fill(void *buf, size_t len, uint8_t seed)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = swr_pat(i, seed);
}

/* Offset of the first byte that differs from the pattern, or -1. */
static inline long swr_check(const void *buf, size_t len, uint8_t seed)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != swr_pat(i, seed))
			return (long)i;
	return -1;
}

/* Offset of the first byte that is not @c, or -1. */
static inline long swr_check_byte(const void *buf, size_t len, uint8_t c)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != c)
			return (long)i;
	return -1;
}

/*
 * A RoCEv2 GID of port 1: an IPv4-mapped one (::ffff:a.b.c.d) when @ipv4,
 * otherwise a global IPv6 one (not link-local fe80::).
 */
static inline int swr_find_gid(struct ibv_context *ctx, bool ipv4,
			       int *index, union ibv_gid *gid)
{
	static const uint8_t v4pfx[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i;

	if (ibv_query_port(ctx, 1, &pa))
		return -errno;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (ipv4 != !memcmp(e.gid.raw, v4pfx, sizeof(v4pfx)))
			continue;
		if (!ipv4 && e.gid.raw[0] == 0xfe && (e.gid.raw[1] & 0xc0) == 0x80)
			continue;
		*index = i;
		*gid = e.gid;
		return 0;
	}
	return -ENOENT;
}

/*
 * One of two devices of a test that can run across the wire: a context, a
 * PD and an IPv4 RoCEv2 GID. The device is named by an environment
 * variable (the test device when unset), so that the test runs on one
 * device and, from its shell step, between two in two namespaces.
 */
struct swr_tdev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int gid_index;
	union ibv_gid gid;
};

static inline const char *swr_env_dev(const char *var)
{
	const char *d = getenv(var);

	return d && *d ? d : swr_test_dev();
}

static inline int swr_tdev_open(struct swr_tdev *d, const char *name)
{
	d->ctx = swr_open_dev(name);
	if (!d->ctx)
		return -ENODEV;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return -errno;
	return swr_find_gid(d->ctx, true, &d->gid_index, &d->gid);
}

static inline void swr_tdev_close(struct swr_tdev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
}

#define SWR_ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * @len bytes of anonymous memory, registered in @pd with every access
 * (*@mr): the buffer, or NULL with errno set. swr_buf_put() undoes it.
 */
static inline uint8_t *swr_buf_get(struct ibv_pd *pd, size_t len,
				   struct ibv_mr **mr)
{
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*mr = NULL;
	if (buf == MAP_FAILED)
		return NULL;
	*mr = ibv_reg_mr(pd, buf, len, SWR_ALL_ACCESS);
	if (!*mr) {
		munmap(buf, len);
		return NULL;
	}
	return buf;
}

static inline void swr_buf_put(uint8_t *buf, size_t len, struct ibv_mr *mr)
{
	if (mr)
		ibv_dereg_mr(mr);
	if (buf)
		munmap(buf, len);
}

/*
 * @qp of @local to RTR towards @dqpn at @gid, and on to RTS but for an
 * XRC_RECV QP (a target only); the PSNs start where they wrap. An RNR NAK
 * it sends asks for @min_rnr_timer (IBTA's encoding: 12 is 0.64 ms, 1 is
 * 10 us).
 */
static inline int swr_tdev_connect(struct ibv_qp *qp,
				   const struct swr_tdev *local,
				   const union ibv_gid *gid, uint32_t dqpn,
				   uint8_t min_rnr_timer)
{
	bool ini = qp->qp_type == IBV_QPT_XRC_SEND;
	bool tgt = qp->qp_type == IBV_QPT_XRC_RECV;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = ini ? 0 : SWR_ALL_ACCESS,
	};
	int mask;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0xfffffe;	/* the PSNs wrap */
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = local->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = min_rnr_timer;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (!ini)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	if (tgt)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffffe;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) ? -1 : 0;
}

/* What a test may change about the QPs of a pair. */
struct swr_qp_opts {
	enum ibv_qp_type type;	/* 0 means RC */
	int sq_sig_all;
	uint32_t max_send_wr;	/* 0: 64 */
	uint32_t max_recv_wr;	/* 0: 64 */
	uint32_t max_sge;	/* 0: 4 */
	uint32_t max_inline;
	int cqe;		/* 0: 256 */
	uint64_t send_ops_flags;	/* non-zero: an extended QP (qp_ex) */
	struct ibv_srq *srq;	/* the server's receive queue */
	struct ibv_comp_channel *channel;	/* for every CQ */
	int access;		/* qp_access_flags; -1: none */
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;	/* 0: 12 (0.64 ms) */
	uint8_t timeout;	/* 0: 14 */
	uint8_t retry_cnt;
	uint8_t max_rd_atomic;	/* 0: 16 */
	bool ipv6;		/* connect through the IPv6 GID */
	uint32_t sq_psn;	/* 0: 0x1234 */
	uint32_t rq_psn;	/* 0: 0x1234 */
	uint64_t cq_wc_flags;	/* non-zero: extended CQs (ibv_create_cq_ex) */
	bool cq_of_pd;		/* extended CQs of the pair's PD, a parent
				 * domain (IBV_CQ_INIT_ATTR_MASK_PD) */
};

struct swr_end {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;	/* with send_ops_flags */
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
};

#define SWR_QKEY	0x11111111u

struct swr_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	struct swr_qp_opts o;
	struct swr_end c;	/* client: the requester */
	struct swr_end s;	/* server: the responder */
};

static inline int swr_end_create(struct swr_pair *p, struct swr_end *e,
				 struct ibv_srq *srq)
{
	const struct swr_qp_opts *o = &p->o;
	struct ibv_qp_init_attr_ex a = {
		.qp_type = o->type ? o->type : IBV_QPT_RC,
		.sq_sig_all = o->sq_sig_all,
		.cap = {
			.max_send_wr = o->max_send_wr ? o->max_send_wr : 64,
			.max_recv_wr = o->max_recv_wr ? o->max_recv_wr : 64,
			.max_send_sge = o->max_sge ? o->max_sge : 4,
			.max_recv_sge = o->max_sge ? o->max_sge : 4,
			.max_inline_data = o->max_inline,
		},
		.srq = srq,
		.pd = p->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	int cqe = o->cqe ? o->cqe : 256;

	if (o->cq_wc_flags) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = cqe, .channel = o->channel,
			.wc_flags = o->cq_wc_flags,
			.comp_mask = o->cq_of_pd ? IBV_CQ_INIT_ATTR_MASK_PD : 0,
			.parent_domain = o->cq_of_pd ? p->pd : NULL,
		};
		struct ibv_cq_ex *ex;

		ex = ibv_create_cq_ex(p->ctx, &ca);
		if (!ex)
			return -errno;
		e->scq = ibv_cq_ex_to_cq(ex);
		ex = ibv_create_cq_ex(p->ctx, &ca);
		if (!ex)
			return -errno;
		e->rcq = ibv_cq_ex_to_cq(ex);
	} else {
		e->scq = ibv_create_cq(p->ctx, cqe, NULL, o->channel, 0);
		if (!e->scq)
			return -errno;
		e->rcq = ibv_create_cq(p->ctx, cqe, NULL, o->channel, 0);
		if (!e->rcq)
			return -errno;
	}
	a.send_cq = e->scq;
	a.recv_cq = e->rcq;
	if (o->send_ops_flags) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = o->send_ops_flags;
	}
	e->qp = ibv_create_qp_ex(p->ctx, &a);
	if (!e->qp)
		return errno ? -errno : -EIO;
	if (o->send_ops_flags) {
		e->qpx = ibv_qp_to_qp_ex(e->qp);
		if (!e->qpx)
			return -EOPNOTSUPP;
	}
	return 0;
}

static inline void swr_end_destroy(struct swr_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	memset(e, 0, sizeof(*e));
}

/* RESET -> INIT -> RTR -> RTS towards @remote_qpn. */
static inline int swr_qp_connect(struct swr_pair *p, struct ibv_qp *qp,
				 uint32_t remote_qpn)
{
	const struct swr_qp_opts *o = &p->o;
	struct ibv_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = SWR_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = o->access < 0 ? 0 :
				    o->access ? o->access : SWR_ALL_ACCESS;
		if (qp->qp_type == IBV_QPT_UC)
			a.qp_access_flags &= ~(IBV_ACCESS_REMOTE_READ |
					       IBV_ACCESS_REMOTE_ATOMIC);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return -ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (qp->qp_type != IBV_QPT_UD) {
		a.path_mtu = p->mtu;
		a.dest_qp_num = remote_qpn;
		a.rq_psn = o->rq_psn ? o->rq_psn : 0x1234;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = p->gid;
		a.ah_attr.grh.sgid_index = p->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (qp->qp_type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 16;
			a.min_rnr_timer = o->min_rnr_timer ?
					  o->min_rnr_timer : 12;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return -ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = o->sq_psn ? o->sq_psn : 0x1234;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = o->timeout ? o->timeout : 14;
		a.retry_cnt = o->retry_cnt;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = o->max_rd_atomic ? o->max_rd_atomic : 16;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	return -ret;
}

static inline int swr_pair_connect(struct swr_pair *p)
{
	int ret;

	ret = swr_qp_connect(p, p->c.qp, p->s.qp->qp_num);
	if (!ret)
		ret = swr_qp_connect(p, p->s.qp, p->c.qp->qp_num);
	return ret;
}

/* Open the device, a PD and the GID; no QPs yet. */
static inline int swr_pair_open(struct swr_pair *p)
{
	struct ibv_port_attr pa;
	int ret;

	memset(p, 0, sizeof(*p));
	p->ctx = swr_open_test_dev();
	if (!p->ctx)
		return -ENODEV;
	p->pd = ibv_alloc_pd(p->ctx);
	if (!p->pd)
		return -errno;
	if (ibv_query_port(p->ctx, 1, &pa))
		return -errno;
	p->mtu = pa.active_mtu < IBV_MTU_1024 ? pa.active_mtu : IBV_MTU_1024;
	ret = swr_find_gid(p->ctx, true, &p->gid_index, &p->gid);
	return ret;
}

/* Create and connect both QPs as @o says. */
static inline int swr_pair_create(struct swr_pair *p,
				  const struct swr_qp_opts *o)
{
	int ret;

	if (o)
		p->o = *o;
	if (p->o.ipv6) {
		ret = swr_find_gid(p->ctx, false, &p->gid_index, &p->gid);
		if (ret)
			return ret;
	}
	ret = swr_end_create(p, &p->c, NULL);
	if (!ret)
		ret = swr_end_create(p, &p->s, p->o.srq);
	if (!ret)
		ret = swr_pair_connect(p);
	return ret;
}

static inline void swr_pair_destroy_qps(struct swr_pair *p)
{
	swr_end_destroy(&p->c);
	swr_end_destroy(&p->s);
}

static inline void swr_pair_close(struct swr_pair *p)
{
	swr_pair_destroy_qps(p);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	memset(p, 0, sizeof(*p));
}

/* Fresh QPs with the same options: after an error left them in ERR. */
static inline int swr_pair_renew(struct swr_pair *p)
{
	swr_pair_destroy_qps(p);
	return swr_pair_create(p, NULL);
}

/*
 * Wait for one completion on @cq for up to @ms: 1, 0 on timeout, or a
 * negative errno when polling fails.
 */
static inline int swr_poll_wait(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -EIO : 1;
		if (swr_now_ms() > end)
			return 0;
		sched_yield();
	}
}

static inline int swr_wait(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return swr_poll_wait(cq, wc, SWR_CQ_TIMEOUT_MS);
}

/*
 * Wait up to @ms until the device's poller is asleep and has been for a
 * while: its sleeps counter one ahead of its wake-ups, both unchanged at a
 * second reading a jiffy later (longer than its back-off after a sleep
 * forced by contention). Then the next post needs a doorbell, and the
 * doorbell wakes it. A fixed pause cannot promise that on a loaded host.
 */
static inline bool swr_poller_wait_asleep(int ms)
{
	static const char *const names[] = {
		"poller_sleeps", "poller_wakeups",
	};
	uint64_t end = swr_now_ms() + ms;
	long long a[2], b[2];

	do {
		if (swr_counters(names, a, 2) || a[0] != a[1] + 1)
			continue;
		if (!swr_counters(names, b, 2) && b[0] == a[0] && b[1] == a[1])
			return true;
	} while (swr_now_ms() < end);
	return false;
}

/* Count completions on @cq within @ms (a "nothing arrives" check). */
static inline int swr_cq_count(struct ibv_cq *cq, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	struct ibv_wc wc;
	int n = 0, r;

	while (swr_now_ms() <= end) {
		r = ibv_poll_cq(cq, 1, &wc);
		if (r < 0)
			return -EIO;
		n += r;
		if (!r)
			usleep(1000);
	}
	return n;
}

static inline int swr_post_send1(struct ibv_qp *qp, enum ibv_wr_opcode op,
				 uint64_t wr_id, void *addr, uint32_t len,
				 uint32_t lkey, uint64_t raddr, uint32_t rkey,
				 unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len || !addr ? 1 : 0,
		.opcode = op,
		.send_flags = flags,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* One signaled 8-byte FETCH_AND_ADD of @add at @raddr, old value to @local. */
static inline int swr_post_fetch_add(struct ibv_qp *qp, uint64_t wr_id,
				     void *local, uint32_t lkey,
				     uint64_t raddr, uint32_t rkey,
				     uint64_t add)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local, .length = 8, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = add;
	return ibv_post_send(qp, &wr, &bad);
}

static inline int swr_post_recv1(struct ibv_qp *qp, uint64_t wr_id,
				 void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* The QP's state, or -errno. */
static inline int swr_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int ret;

	ret = ibv_query_qp(qp, &a, IBV_QP_STATE, &init);
	return ret ? -ret : (int)a.qp_state;
}

/* Wait up to @ms for @qp to reach @state; the state last seen. */
static inline int swr_qp_wait_state(struct ibv_qp *qp, int state, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	int s;

	for (;;) {
		s = swr_qp_state(qp);
		if (s == state || swr_now_ms() > end)
			return s;
		usleep(1000);
	}
}

/*
 * Wait up to @ms for an async event of @type on @ctx; acks every event
 * read. Returns 1 and fills @ev when found, 0 on timeout.
 */
static inline int swr_wait_async(struct ibv_context *ctx,
				 enum ibv_event_type type,
				 struct ibv_async_event *ev, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event e;
	int left, flags;

	/* ibv_get_async_event() blocks: only call it once poll says so. */
	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	for (;;) {
		left = (int)(end - swr_now_ms());
		if (left < 0 || poll(&pfd, 1, left) <= 0)
			return 0;
		if (ibv_get_async_event(ctx, &e))
			continue;
		ibv_ack_async_event(&e);
		if (e.event_type == type) {
			*ev = e;
			return 1;
		}
	}
}

/* A writable sysfs attribute of RDMA device @dev: 0 or -errno. */
static inline int swr_dev_write(const char *dev, const char *attr,
				const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s", dev, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* The same for the device under test. */
static inline int swr_ibdev_write(const char *attr, const char *val)
{
	return swr_dev_write(swr_test_dev(), attr, val);
}

/*
 * Two anonymous buffers of @len bytes, the client's and the server's,
 * registered in @pd: what most QP tests move data between.
 */
struct swr_bufs {
	uint8_t *cbuf;
	uint8_t *sbuf;
	struct ibv_mr *cmr;
	struct ibv_mr *smr;
	size_t len;
};

/* 0 or -errno; on failure swr_bufs_fini() cleans up what was made. */
static inline int swr_bufs_init(struct swr_bufs *b, struct ibv_pd *pd,
				size_t len, int saccess)
{
	b->len = len;
	b->cbuf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->sbuf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->cbuf == MAP_FAILED || b->sbuf == MAP_FAILED)
		return -ENOMEM;
	b->cmr = ibv_reg_mr(pd, b->cbuf, len, SWR_ALL_ACCESS);
	if (!b->cmr)
		return -errno;
	b->smr = ibv_reg_mr(pd, b->sbuf, len, saccess);
	if (!b->smr)
		return -errno;
	return 0;
}

static inline void swr_bufs_fini(struct swr_bufs *b)
{
	if (b->cmr)
		ibv_dereg_mr(b->cmr);
	if (b->smr)
		ibv_dereg_mr(b->smr);
	if (b->cbuf && b->cbuf != MAP_FAILED)
		munmap(b->cbuf, b->len);
	if (b->sbuf && b->sbuf != MAP_FAILED)
		munmap(b->sbuf, b->len);
	memset(b, 0, sizeof(*b));
}

#ifdef __KSELFTEST_HARNESS_H
/* Create and connect the QPs of @p, or fail the test. */
static inline void swr_t_create(struct __test_metadata *_metadata,
				struct swr_pair *p,
				const struct swr_qp_opts *o)
{
	int ret = swr_pair_create(p, o);

	ASSERT_EQ(0, ret) TH_LOG("creating/connecting QPs: %s", strerror(-ret));
}

/* Run @child in a child process, which must exit with status 0. */
static inline void swr_t_run_child(struct __test_metadata *_metadata,
				   int (*child)(void))
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child exit %d",
						 WEXITSTATUS(status));
}

/*
 * For the log of a test that waited in vain: the QPs the kernel reports
 * (state, PSNs, ring indices) and every port counter that is not 0, as
 * TAP comments. A completion that never comes is rare and timing-bound;
 * this is what is left to diagnose it from.
 */
static inline void swr_dump_state(void)
{
	fflush(stdout);
	if (system("{ rdma res show qp -dd; grep -H -v '^0$' "
		   "/sys/class/infiniband/*/ports/1/hw_counters/*; } "
		   "2>&1 | sed 's/^/# state: /'"))
		printf("# state: not available\n");
	fflush(stdout);
}

/* Wait for the next completion on @cq; it must be @wr_id with @status. */
static inline void swr_t_wait_wc(struct __test_metadata *_metadata,
				 struct ibv_cq *cq, uint64_t wr_id,
				 enum ibv_wc_status status, struct ibv_wc *out)
{
	struct ibv_wc wc;
	int n = swr_wait(cq, &wc);

	if (n != 1)
		swr_dump_state();
	ASSERT_EQ(1, n)
		TH_LOG("no completion for wr_id %llu", (unsigned long long)wr_id);
	EXPECT_EQ(wr_id, wc.wr_id);
	ASSERT_EQ(status, wc.status)
		TH_LOG("wr_id %llu: %s, want %s", (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), ibv_wc_status_str(status));
	if (out)
		*out = wc;
}
#endif

#endif /* SWR_QP_TEST_H */
