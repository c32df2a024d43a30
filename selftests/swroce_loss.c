// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RC reliability across a lossy link (selftests/swroce_loss.sh builds the
 * topology and sets the netem impairment; this program does the traffic).
 *
 *   swroce_loss move MIB EXPECT  RDMA WRITE, RDMA READ, SEND and FETCH_ADD
 *                             mixed on NQP RC QPs (half of them in each
 *                             direction), WINDOW WRs outstanding per QP,
 *                             until MIB MiB have moved. Every byte is
 *                             checked against a pattern derived from the
 *                             QP, the WR number and the offset; every WR
 *                             completes once, in order, successfully; the
 *                             FETCH_ADD counters end at the number issued
 *                             and every returned value is distinct.
 *                             EXPECT: "clean" (no reliability counter
 *                             moves) or the counters that must rise
 *                             ("!name": one that must not).
 *   swroce_loss rdatomic      max_rd_atomic 1 against max_dest_rd_atomic
 *                             1: a burst of READs and FETCH_ADDs completes
 *                             (the requester keeps to one outstanding; the
 *                             responder would refuse a second).
 *   swroce_loss bigread N     (under loss) N RDMA READs of 1 MiB, data
 *                             checked; lost responses are asked for again
 *                             without waiting for the ACK timeout (at
 *                             most BIGREAD_TMO_PER timeouts a READ).
 *   swroce_loss probe N       (ACKs lost) N RDMA WRITEs of 16 KiB, one
 *                             at a time, data checked; a tail-loss probe
 *                             resends one packet, not the message.
 *   swroce_loss probe-read N P (every Pth READ's last response lost) N
 *                             pairs of a 3-packet READ and a 64-byte
 *                             WRITE, data checked; the WRITE is answered,
 *                             and the probe asks for the READ again
 *                             before the ACK timeout does.
 *   swroce_loss retry         (the peer is unreachable) one WRITE fails
 *                             with RETRY_EXC_ERR after retry_cnt retries,
 *                             in the time the timeout predicts.
 *   swroce_loss rnr           (no receive posted) one SEND fails with
 *                             RNR_RETRY_EXC_ERR after rnr_retry retries,
 *                             in the time min_rnr_timer predicts.
 *   swroce_loss uc N [CMD]    (under loss) a UC QP pair: N messages of 4
 *                             path MTUs, SENDs (with and without
 *                             immediate), RDMA WRITEs with immediate and
 *                             plain ones. All complete on the requester;
 *                             some, not all, arrive, each whole, in
 *                             order; WRITE targets hold a prefix of their
 *                             message's packets, nothing foreign. Then
 *                             CMD (which removes the impairment) and 4
 *                             more messages, which must all arrive; the
 *                             QPs stay in RTS throughout.
 *
 * Devices: SWR_LOSS_A and SWR_LOSS_B (one process opens both; the packets
 * cross the veth between their namespaces). Figures are TAP comments
 * ("# ..."); the exit status is the verdict (0 pass, 1 fail, 4 skip).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "swr_qp_test.h"

#define NQP		4
#define WINDOW		8		/* WRs outstanding per QP */
#define MAXMSG		(64 * 1024)
#define NRECV		32		/* receives posted per QP */
#define SLOT(i)		((size_t)(i) * MAXMSG)
/* Per QP and side: WINDOW message slots, NRECV receive slots. */
#define QPBUF		(SLOT(WINDOW) + SLOT(NRECV))
#define CNT_OFF		((size_t)NQP * QPBUF)	/* the FETCH_ADD target */
#define BUFSZ		(CNT_OFF + 4096)
/* Receive wr_ids carry this bit (wc.opcode is undefined on errors). */
#define RECV_TAG	(1ULL << 40)

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (failures++ > 20)
		return;
	printf("# FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint8_t *buf;
	struct ibv_mr *mr;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

static int dev_open(struct dev *d, const char *name)
{
	struct ibv_port_attr pa;

	memset(d, 0, sizeof(*d));
	d->name = name;
	d->ctx = swr_open_dev(name);
	if (!d->ctx)
		return -ENODEV;
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = ibv_create_cq(d->ctx, 4096, NULL, NULL, 0);
	if (!d->pd || !d->cq)
		return -errno;
	d->buf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->buf == MAP_FAILED)
		return -errno;
	d->mr = ibv_reg_mr(d->pd, d->buf, BUFSZ, SWR_ALL_ACCESS);
	if (!d->mr)
		return -errno;
	if (ibv_query_port(d->ctx, 1, &pa))
		return -errno;
	d->mtu = pa.active_mtu < IBV_MTU_1024 ? pa.active_mtu : IBV_MTU_1024;
	return swr_find_gid(d->ctx, true, &d->gid_index, &d->gid);
}

struct qpopt {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint32_t psn;
};

static struct ibv_qp *qp_create(struct dev *d)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.send_cq = d->cq, .recv_cq = d->cq,
		.cap = {
			.max_send_wr = 2 * WINDOW, .max_recv_wr = NRECV,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	return ibv_create_qp(d->pd, &a);
}

/*
 * @qp of @d to RTS towards @rqpn on @r. A UC QP takes only @o's psn: the
 * RC attributes (retries, timers, RDMA read/atomic depths) are not UC's.
 */
static int qp_connect(struct ibv_qp *qp, struct dev *d, uint32_t rqpn,
		      struct dev *r, const struct qpopt *o)
{
	bool rc = qp->qp_type == IBV_QPT_RC;
	struct ibv_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = rc ? SWR_ALL_ACCESS :
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = d->mtu < r->mtu ? d->mtu : r->mtu;
	a.dest_qp_num = rqpn;
	a.rq_psn = o->psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = r->gid;
	a.ah_attr.grh.sgid_index = d->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = o->max_dest_rd_atomic;
		a.min_rnr_timer = o->min_rnr_timer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = o->psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc) {
		a.timeout = o->timeout;
		a.retry_cnt = o->retry_cnt;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = o->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* An RC QP on each of @a and @b, connected with @o: 0, or 1 after fail(). */
static int qp_pair(struct dev *a, struct dev *b, const struct qpopt *o,
		   struct ibv_qp **qa, struct ibv_qp **qb)
{
	*qa = qp_create(a);
	*qb = qp_create(b);
	if (!*qa || !*qb || qp_connect(*qa, a, (*qb)->qp_num, b, o) ||
	    qp_connect(*qb, b, (*qa)->qp_num, a, o)) {
		fail("setup: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * The next completion on @a's CQ is WR @k's (a @what), successful: 0, or 1
 * after fail().
 */
static int wait_wr(struct dev *a, const char *what, uint64_t k)
{
	struct ibv_wc wc;

	if (swr_poll_wait(a->cq, &wc, SWR_CQ_TIMEOUT_MS) != 1) {
		fail("%s %" PRIu64 ": no completion", what, k);
		return 1;
	}
	if (wc.wr_id != k || wc.status != IBV_WC_SUCCESS) {
		fail("%s %" PRIu64 ": wr_id %" PRIu64 " status %s", what, k,
		     wc.wr_id, ibv_wc_status_str(wc.status));
		return 1;
	}
	return 0;
}

/* Counters ------------------------------------------------------------------ */

static const char *const cnames[] = {
	"retransmits", "ack_timeouts", "nak_seq_sent", "nak_seq_rcvd",
	"dup_requests", "out_of_sequence", "dup_responses", "rx_dropped",
	"rnr_nak_rcvd", "rnr_nak", "nak_inv_req_sent", "nak_inv_req_rcvd",
	"retry_exceeded", "tx_pkts", "tx_dropped", "rx_pkts",
	"loss_window_cuts", "tail_loss_probes",
};
#define NCNT	(sizeof(cnames) / sizeof(cnames[0]))

static long long cnt_read(const char *dev, const char *name)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	if (swr_read_line(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/* Both devices' counters, summed (the core caches them for a jiffy). */
static void cnt_snap(struct dev *a, struct dev *b, long long *v)
{
	unsigned int i;

	usleep(20000);
	for (i = 0; i < NCNT; i++)
		v[i] = cnt_read(a->name, cnames[i]) +
		       cnt_read(b->name, cnames[i]);
}

static long long cnt_delta(const long long *v0, const long long *v1,
			   const char *name)
{
	unsigned int i;

	for (i = 0; i < NCNT; i++)
		if (!strcmp(cnames[i], name))
			return v1[i] - v0[i];
	return -1;
}

static void cnt_print(const long long *v0, const long long *v1)
{
	unsigned int i;

	printf("# counters (both ends):");
	for (i = 0; i < NCNT; i++)
		printf(" %s=%lld", cnames[i], v1[i] - v0[i]);
	printf("\n");
}

/* The pattern ---------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Message bytes of WR @wr on QP @q: a function of both and the offset. */
static void pat_fill(uint8_t *p, uint32_t len, uint32_t q, uint64_t wr)
{
	uint64_t base = mix(((uint64_t)q << 48) ^ wr ^ 0x5157524f4345ULL);
	uint32_t i;
	uint64_t w;

	for (i = 0; i < len; i += 8) {
		w = mix(base + i);
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* Offset of the first wrong byte, or -1. */
static long pat_check(const uint8_t *p, uint32_t len, uint32_t q, uint64_t wr)
{
	uint64_t base = mix(((uint64_t)q << 48) ^ wr ^ 0x5157524f4345ULL);
	uint32_t i, n, j;
	uint64_t w;

	for (i = 0; i < len; i += 8) {
		w = mix(base + i);
		n = len - i < 8 ? len - i : 8;
		if (memcmp(p + i, &w, n))
			for (j = 0; j < n; j++)
				if (p[i + j] != ((uint8_t *)&w)[j])
					return i + j;
	}
	return -1;
}

/* The mixed traffic ---------------------------------------------------------- */

enum { OP_WRITE, OP_READ, OP_SEND, OP_FADD };
static const char *const opname[] = { "WRITE", "READ", "SEND", "FETCH_ADD" };

/* The op and length of WR @wr on QP @q. */
static void wr_shape(uint32_t q, uint64_t wr, int *op, uint32_t *len)
{
	static const uint32_t sizes[] = {
		1, 8, 333, 1024, 1025, 4096, 8191, 16384, 30000, 65536,
		65536, 65536, 49152, 12345, 2048, 65535,
	};
	uint64_t h = mix(wr * 131 + q);

	switch (h % 8) {
	case 0: case 1: case 2:
		*op = OP_WRITE;
		break;
	case 3: case 4:
		*op = OP_READ;
		break;
	case 5: case 6:
		*op = OP_SEND;
		break;
	default:
		*op = OP_FADD;
		break;
	}
	*len = *op == OP_FADD ? 8 : sizes[(h >> 8) % 16];
}

struct lqp {
	uint32_t q;
	struct dev *rd, *rs;	/* requester's and responder's device */
	struct ibv_qp *rq, *sq;	/* requester's QP, responder's QP */
	uint8_t *rbuf, *sbuf;	/* this QP's area on each */
	uint64_t *counter;	/* FETCH_ADD target, on the responder */
	uint64_t posted, done;	/* WR numbers */
	uint64_t sends_posted, sends_recvd;
	uint64_t slot_wr[WINDOW];
	uint64_t recv_wr[NRECV];	/* receive slot -> send number */
	uint64_t send_of[WINDOW];	/* slot -> send number */
	uint32_t recv_posted;
};

static struct lqp lq[NQP];
static uint8_t *fadd_seen[2];	/* per counter: returned values */
static uint64_t fadd_issued[2], fadd_max;
static uint64_t bytes_moved;

static int post_recv(struct lqp *l, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(l->sbuf + SLOT(WINDOW) + SLOT(slot)),
		.length = MAXMSG, .lkey = l->rs->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = RECV_TAG | ((uint64_t)l->q << 32) | slot,
		.sg_list = &sge, .num_sge = 1,
	}, *bad;

	memset(l->sbuf + SLOT(WINDOW) + SLOT(slot), 0xa5, 64);
	return ibv_post_recv(l->sq, &wr, &bad);
}

static int post_one(struct lqp *l)
{
	uint64_t w = l->posted;
	uint32_t slot = w % WINDOW, len;
	uint8_t *lbuf = l->rbuf + SLOT(slot), *rbuf = l->sbuf + SLOT(slot);
	struct ibv_sge sge = {
		.addr = (uintptr_t)lbuf, .lkey = l->rd->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ((uint64_t)l->q << 32) | (uint32_t)w,
		.sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int op;

	wr_shape(l->q, w, &op, &len);
	sge.length = len;
	switch (op) {
	case OP_WRITE:
		pat_fill(lbuf, len, l->q, w);
		memset(rbuf, 0x5a, len);	/* stale bytes must not pass */
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
		wr.wr.rdma.rkey = l->rs->mr->rkey;
		break;
	case OP_READ:
		pat_fill(rbuf, len, l->q, w);
		memset(lbuf, 0x5a, len);
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
		wr.wr.rdma.rkey = l->rs->mr->rkey;
		break;
	case OP_SEND:
		pat_fill(lbuf, len, l->q, w);
		wr.opcode = IBV_WR_SEND;
		l->send_of[slot] = l->sends_posted++;
		break;
	default:
		memset(lbuf, 0x5a, 8);
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)l->counter;
		wr.wr.atomic.rkey = l->rs->mr->rkey;
		wr.wr.atomic.compare_add = 1;
		fadd_issued[l->q & 1]++;
		break;
	}
	l->slot_wr[slot] = w;
	l->posted++;
	return ibv_post_send(l->rq, &wr, &bad);
}

/* A requester completion of @l: in order, once, with the right data. */
static void req_done(struct lqp *l, const struct ibv_wc *wc)
{
	uint64_t w = l->done;
	uint32_t slot = w % WINDOW, len;
	uint8_t *lbuf = l->rbuf + SLOT(slot), *rbuf = l->sbuf + SLOT(slot);
	uint64_t v;
	long bad;
	int op;

	if ((uint32_t)wc->wr_id != (uint32_t)w || w >= l->posted) {
		fail("qp %u: completion wr %u, expected %" PRIu64 " (posted %"
		     PRIu64 ")", l->q, (uint32_t)wc->wr_id, w, l->posted);
		return;
	}
	l->done++;
	if (wc->status != IBV_WC_SUCCESS) {
		fail("qp %u wr %" PRIu64 ": status %s", l->q, w,
		     ibv_wc_status_str(wc->status));
		return;
	}
	wr_shape(l->q, w, &op, &len);
	bytes_moved += len;
	switch (op) {
	case OP_WRITE:
		bad = pat_check(rbuf, len, l->q, w);
		break;
	case OP_READ:
		bad = pat_check(lbuf, len, l->q, w);
		break;
	case OP_SEND:
		bad = -1;	/* checked at the receive */
		break;
	default:
		memcpy(&v, lbuf, 8);
		bad = -1;
		if (v >= fadd_max) {
			fail("qp %u wr %" PRIu64 ": FETCH_ADD returned %" PRIu64,
			     l->q, w, v);
		} else if (fadd_seen[l->q & 1][v]++) {
			fail("qp %u wr %" PRIu64
			     ": FETCH_ADD returned %" PRIu64 " twice",
			     l->q, w, v);
		}
		break;
	}
	if (bad >= 0)
		fail("qp %u wr %" PRIu64 " %s len %u: byte %ld wrong", l->q, w,
		     opname[op], len, bad);
}

/* A receive completion: the next SEND of its QP, data checked. */
static void recv_done(struct lqp *l, const struct ibv_wc *wc)
{
	uint32_t slot = (uint32_t)wc->wr_id, len;
	uint64_t w;
	long bad;
	int op;

	if (slot != l->sends_recvd % NRECV) {
		fail("qp %u: receive slot %u, expected %" PRIu64, l->q, slot,
		     l->sends_recvd % NRECV);
		return;
	}
	l->sends_recvd++;
	if (wc->status != IBV_WC_SUCCESS) {
		fail("qp %u: receive status %s", l->q,
		     ibv_wc_status_str(wc->status));
		return;
	}
	/* Which WR was the n-th SEND of this QP: walk the shapes. */
	w = l->recv_wr[slot];
	wr_shape(l->q, w, &op, &len);
	if (op != OP_SEND) {
		fail("qp %u: receive for a non-SEND", l->q);
		return;
	}
	if (wc->byte_len != len) {
		fail("qp %u send wr %" PRIu64 ": byte_len %u, want %u", l->q, w,
		     wc->byte_len, len);
		return;
	}
	bad = pat_check(l->sbuf + SLOT(WINDOW) + SLOT(slot), len, l->q, w);
	if (bad >= 0)
		fail("qp %u send wr %" PRIu64 " len %u: byte %ld wrong", l->q,
		     w, len, bad);
	if (post_recv(l, slot))
		fail("qp %u: post_recv", l->q);
}

/* WR numbers of the SENDs in order, for the receive side. */
static uint64_t *send_list[NQP];
static uint64_t send_list_len[NQP];

/*
 * @expect: "clean" - no reliability counter may move; otherwise a comma
 * separated list of counters that must have risen ("a|b": at least one of
 * them), "!name" for one that must not have.
 */
/* Whether one of the counters in @alts ("a|b|...") rose. */
static int any_rose(const long long *c0, const long long *c1,
		    const char *alts)
{
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", alts);
	for (tok = strtok_r(buf, "|", &save); tok;
	     tok = strtok_r(NULL, "|", &save))
		if (cnt_delta(c0, c1, tok) > 0)
			return 1;
	return 0;
}

static void expect_counters(const long long *c0, const long long *c1,
			    const char *expect)
{
	static const char *const rel[] = {
		"retransmits", "ack_timeouts", "nak_seq_sent", "nak_seq_rcvd",
		"dup_requests", "out_of_sequence", "dup_responses",
		"rx_dropped",
	};
	char buf[256], *tok, *save;
	unsigned int i;

	if (!strcmp(expect, "clean")) {
		/*
		 * A guest CPU descheduled by a busy host for longer than the
		 * timeout (~67 ms) expires the timer without any loss: a few
		 * such timeouts, and the retransmissions and duplicates they
		 * cause, are reported, not failed. Nothing else may move.
		 */
		long long tmo = cnt_delta(c0, c1, "ack_timeouts");

		if (tmo > 0 && tmo <= 4)
			printf("# %lld spurious ACK timeout(s) (guest CPU "
			       "starved): their retransmissions tolerated\n",
			       tmo);
		for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			if (tmo > 0 && tmo <= 4 &&
			    (!strcmp(rel[i], "ack_timeouts") ||
			     !strcmp(rel[i], "retransmits") ||
			     !strcmp(rel[i], "dup_requests") ||
			     !strcmp(rel[i], "dup_responses")))
				continue;
			if (cnt_delta(c0, c1, rel[i]))
				fail("%s rose by %lld without impairment",
				     rel[i], cnt_delta(c0, c1, rel[i]));
		}
		return;
	}
	snprintf(buf, sizeof(buf), "%s", expect);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*tok == '!') {
			if (cnt_delta(c0, c1, tok + 1))
				fail("%s rose by %lld", tok + 1,
				     cnt_delta(c0, c1, tok + 1));
		} else if (!any_rose(c0, c1, tok)) {
			fail("%s did not rise", tok);
		}
	}
}

static int do_move(struct dev *a, struct dev *b, uint64_t target,
		   const char *expect)
{
	struct qpopt o = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 4,
		.max_dest_rd_atomic = 4, .psn = 0xffff00,
	};
	struct ibv_wc wc[64];
	long long c0[NCNT], c1[NCNT];
	uint64_t total_wr, est, i, j;
	double t0, t1, last;
	uint32_t q, k;
	int n, op;
	uint32_t len;
	struct dev *cqs[2] = { a, b };

	/*
	 * timeout 14: 67 ms; seven retries ride out 0.5 s without progress
	 * (a busy host deschedules the guest's CPUs for longer than 8 x 34
	 * ms at 13). SWR_LOSS_TIMEOUT overrides it for experiments.
	 */
	if (getenv("SWR_LOSS_TIMEOUT"))
		o.timeout = atoi(getenv("SWR_LOSS_TIMEOUT"));

	/* How many WRs per QP move @target bytes (in all QPs). */
	for (total_wr = 0, est = 0; est < target; total_wr++)
		for (q = 0; q < NQP; q++) {
			wr_shape(q, total_wr, &op, &len);
			est += len;
		}
	fadd_max = total_wr * NQP + 1;
	for (k = 0; k < 2; k++)
		fadd_seen[k] = calloc(fadd_max, 1);
	for (q = 0; q < NQP; q++) {
		struct lqp *l = &lq[q];

		l->q = q;
		l->rd = q & 1 ? b : a;
		l->rs = q & 1 ? a : b;
		l->rq = qp_create(l->rd);
		l->sq = qp_create(l->rs);
		if (!l->rq || !l->sq) {
			fail("create qp: %s", strerror(errno));
			return 1;
		}
		l->rbuf = l->rd->buf + q * QPBUF;
		l->sbuf = l->rs->buf + q * QPBUF;
		l->counter = (uint64_t *)(l->rs->buf + CNT_OFF + 8 * (q & 1));
		*l->counter = 0;
		if (qp_connect(l->rq, l->rd, l->sq->qp_num, l->rs, &o) ||
		    qp_connect(l->sq, l->rs, l->rq->qp_num, l->rd, &o)) {
			fail("connect qp %u: %s", q, strerror(errno));
			return 1;
		}
		send_list[q] = calloc(total_wr, sizeof(uint64_t));
		for (i = 0, j = 0; i < total_wr; i++) {
			wr_shape(q, i, &op, &len);
			if (op == OP_SEND)
				send_list[q][j++] = i;
		}
		send_list_len[q] = j;
		for (k = 0; k < NRECV; k++) {
			l->recv_wr[k] = k < j ? send_list[q][k] : ~0ULL;
			if (post_recv(l, k)) {
				fail("post_recv");
				return 1;
			}
		}
	}

	cnt_snap(a, b, c0);
	t0 = now_s();
	last = t0;
	for (;;) {
		bool busy = false;

		for (q = 0; q < NQP; q++) {
			struct lqp *l = &lq[q];

			while (l->posted < total_wr &&
			       l->posted - l->done < WINDOW)
				if (post_one(l)) {
					fail("post_send qp %u", q);
					return 1;
				}
			if (l->done < total_wr ||
			    l->sends_recvd < send_list_len[q])
				busy = true;
		}
		if (!busy || failures)
			break;
		for (k = 0; k < 2; k++) {
			n = ibv_poll_cq(cqs[k]->cq, 64, wc);
			if (n < 0) {
				fail("poll_cq");
				return 1;
			}
			for (i = 0; i < (uint64_t)n; i++) {
				struct lqp *l = &lq[wc[i].wr_id >> 32 & 0xff];

				if ((wc[i].wr_id >> 32 & 0xff) >= NQP ||
				    (wc[i].wr_id & RECV_TAG &&
				     (uint32_t)wc[i].wr_id >= NRECV)) {
					fail("bad wr_id %" PRIx64, wc[i].wr_id);
					continue;
				}
				if (wc[i].wr_id & RECV_TAG) {
					uint32_t s = (uint32_t)wc[i].wr_id;
					uint64_t nx = l->sends_recvd + NRECV;

					recv_done(l, &wc[i]);
					l->recv_wr[s] = nx < send_list_len[l->q] ?
						send_list[l->q][nx] : ~0ULL;
				} else {
					req_done(l, &wc[i]);
				}
				last = now_s();
			}
		}
		if (now_s() - last > 30) {
			fail("no completion for 30 s");
			for (q = 0; q < NQP; q++)
				printf("# qp %u: posted %" PRIu64 " done %"
				       PRIu64 " recvd %" PRIu64 "/%" PRIu64 "\n",
				       q, lq[q].posted, lq[q].done,
				       lq[q].sends_recvd, send_list_len[q]);
			break;
		}
	}
	t1 = now_s();
	cnt_snap(a, b, c1);

	for (k = 0; k < 2; k++) {
		/* counter k lives on the responder of the QPs q & 1 == k */
		uint64_t *c = (uint64_t *)((k ? a : b)->buf + CNT_OFF + 8 * k);

		if (!failures && *c != fadd_issued[k])
			fail("FETCH_ADD counter %u: %" PRIu64 ", issued %" PRIu64,
			     k, *c, fadd_issued[k]);
		printf("# FETCH_ADD counter %u: %" PRIu64 " (issued %" PRIu64
		       ")\n", k, *c, fadd_issued[k]);
	}
	printf("# moved %" PRIu64 " bytes in %" PRIu64 " WRs in %.2f s: %.2f MB/s\n",
	       bytes_moved, total_wr * NQP, t1 - t0,
	       bytes_moved / (t1 - t0) / 1e6);
	cnt_print(c0, c1);
	expect_counters(c0, c1, expect);
	if (bytes_moved < target && !failures)
		fail("moved %" PRIu64 " < %" PRIu64, bytes_moved, target);
	for (q = 0; q < NQP; q++) {
		ibv_destroy_qp(lq[q].rq);
		ibv_destroy_qp(lq[q].sq);
	}
	return failures ? 1 : 0;
}

/* max_rd_atomic 1 vs max_dest_rd_atomic 1: everything still completes. */
static int do_rdatomic(struct dev *a, struct dev *b)
{
	struct qpopt o = {
		.timeout = 12, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 1,
		.max_dest_rd_atomic = 1, .psn = 0x123,
	};
	struct ibv_qp *qa, *qb;
	uint64_t *ctr = (uint64_t *)(b->buf + CNT_OFF);
	long long c0[NCNT], c1[NCNT];
	struct ibv_wc wc;
	int i, n = 12;

	if (qp_pair(a, b, &o, &qa, &qb))
		return 1;
	*ctr = 1000;
	pat_fill(b->buf, 4 * 4096, 9, 9);
	cnt_snap(a, b, c0);
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)a->buf + i * 4096,
			.length = i & 1 ? 8 : 4096, .lkey = a->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		if (i & 1) {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = (uintptr_t)ctr;
			wr.wr.atomic.rkey = b->mr->rkey;
			wr.wr.atomic.compare_add = 1;
		} else {
			wr.opcode = IBV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = (uintptr_t)b->buf +
						 (i / 2 % 4) * 4096;
			wr.wr.rdma.rkey = b->mr->rkey;
		}
		if (ibv_post_send(qa, &wr, &bad)) {
			fail("post_send %d", i);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		if (swr_poll_wait(a->cq, &wc, SWR_CQ_TIMEOUT_MS) != 1) {
			fail("completion %d missing", i);
			return 1;
		}
		if (wc.wr_id != (uint64_t)i || wc.status != IBV_WC_SUCCESS)
			fail("completion %d: wr_id %" PRIu64 " status %s", i,
			     wc.wr_id, ibv_wc_status_str(wc.status));
	}
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (i & 1) {
			memcpy(&v, a->buf + i * 4096, 8);
			if (v != 1000 + (uint64_t)i / 2)
				fail("FETCH_ADD %d returned %" PRIu64, i, v);
		} else if (memcmp(a->buf + i * 4096,
				  b->buf + (i / 2 % 4) * 4096, 4096)) {
			fail("READ %d data", i);
		}
	}
	if (*ctr != 1000 + (uint64_t)n / 2)
		fail("counter %" PRIu64, *ctr);
	cnt_snap(a, b, c1);
	cnt_print(c0, c1);
	if (cnt_delta(c0, c1, "nak_inv_req_sent") ||
	    cnt_delta(c0, c1, "nak_inv_req_rcvd"))
		fail("invalid request NAKs");
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	return failures ? 1 : 0;
}

/*
 * READs of BIGREAD_LEN (1024 packets at MTU 1024) under loss: every byte
 * checked, and a gap in a READ's responses asked for again when the
 * responses have run past what the requester can hold out of order, not
 * after an ACK timeout. A requester that waited for the timeout would
 * spend about one per lost response (ten a READ at 1% loss); the bound
 * leaves room for the ones a lost re-request or a lost last response
 * still cost.
 */
#define BIGREAD_LEN	(1u << 20)
#define BIGREAD_TMO_PER	2

static int do_bigread(struct dev *a, struct dev *b, int n)
{
	/*
	 * timeout 16 (268 ms): a re-request has that long to bring the gap
	 * before the timer counts, on a loaded host or the debug kernel.
	 */
	struct qpopt o = {
		.timeout = 16, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 4,
		.max_dest_rd_atomic = 4, .psn = 0xfff000,
	};
	struct ibv_qp *qa, *qb;
	long long c0[NCNT], c1[NCNT], tmo;
	double t0, t1;
	long bad;
	int i;

	if (qp_pair(a, b, &o, &qa, &qb))
		return 1;
	cnt_snap(a, b, c0);
	t0 = now_s();
	for (i = 0; i < n && !failures; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)a->buf, .length = BIGREAD_LEN,
			.lkey = a->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = {
				.remote_addr = (uintptr_t)b->buf,
				.rkey = b->mr->rkey,
			},
		}, *bw;

		pat_fill(b->buf, BIGREAD_LEN, 7, i);
		memset(a->buf, 0x5a, BIGREAD_LEN);
		if (ibv_post_send(qa, &wr, &bw)) {
			fail("post_send %d", i);
			break;
		}
		if (wait_wr(a, "READ", i))
			break;
		bad = pat_check(a->buf, BIGREAD_LEN, 7, i);
		if (bad >= 0)
			fail("READ %d: byte %ld wrong", i, bad);
	}
	t1 = now_s();
	cnt_snap(a, b, c1);
	cnt_print(c0, c1);
	tmo = cnt_delta(c0, c1, "ack_timeouts");
	printf("# %d READs of %u KiB in %.2f s, %lld ACK timeouts\n", i,
	       BIGREAD_LEN >> 10, t1 - t0, tmo);
	if (cnt_delta(c0, c1, "dup_responses") <= 0)
		fail("no response was lost: is the impairment on?");
	if (tmo > (long long)n * BIGREAD_TMO_PER)
		fail("%lld ACK timeouts for %d READs: gaps wait for the timer",
		     tmo, n);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	return failures ? 1 : 0;
}

/*
 * Lost ACKs only (the impairment is on B's egress, and all requests go
 * from A to B): WRITEs of PROBE_LEN one at a time, so that each lost
 * answer leaves the requester with nothing more to send, every byte
 * checked when its WR completes. Nothing needs resending, so every
 * retransmission is spurious: a tail-loss probe must cost one packet,
 * and only the timer or a sequence NAK (a veth reorders a few) may send
 * a WR's worth.
 */
#define PROBE_LEN	(16u << 10)

static int probe_post(struct ibv_qp *qa, struct dev *a, struct dev *b,
		      uint64_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)a->buf + SLOT(i % WINDOW),
		.length = PROBE_LEN, .lkey = a->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)b->buf + SLOT(i % WINDOW),
			.rkey = b->mr->rkey,
		},
	}, *bw;

	pat_fill(a->buf + SLOT(i % WINDOW), PROBE_LEN, 9, i);
	return ibv_post_send(qa, &wr, &bw);
}

static int do_probe(struct dev *a, struct dev *b, uint64_t n)
{
	struct qpopt o = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 1,
		.max_dest_rd_atomic = 1, .psn = 0xffff00,
	};
	struct ibv_qp *qa, *qb;
	long long c0[NCNT], c1[NCNT], rt, pr, tmo, nak, win;
	enum ibv_mtu mtu = a->mtu < b->mtu ? a->mtu : b->mtu;
	uint64_t done;
	double t0, t1;
	long bad;

	if (qp_pair(a, b, &o, &qa, &qb))
		return 1;
	/* The PSNs of one WR at the path MTU qp_connect() set. */
	win = PROBE_LEN / (128u << mtu);
	cnt_snap(a, b, c0);
	t0 = now_s();
	for (done = 0; done < n && !failures; done++) {
		if (probe_post(qa, a, b, done)) {
			fail("post_send %" PRIu64, done);
			break;
		}
		if (wait_wr(a, "WRITE", done))
			break;
		bad = pat_check(b->buf + SLOT(done % WINDOW), PROBE_LEN, 9,
				done);
		if (bad >= 0)
			fail("WRITE %" PRIu64 ": byte %ld wrong", done, bad);
	}
	t1 = now_s();
	cnt_snap(a, b, c1);
	cnt_print(c0, c1);
	rt = cnt_delta(c0, c1, "retransmits");
	pr = cnt_delta(c0, c1, "tail_loss_probes");
	tmo = cnt_delta(c0, c1, "ack_timeouts");
	nak = cnt_delta(c0, c1, "nak_seq_rcvd");
	printf("# %" PRIu64 " WRITEs of %u KiB in %.2f s: %lld packets resent, "
	       "%lld probes, %lld ACK timeouts, %lld sequence NAKs\n", done,
	       PROBE_LEN >> 10, t1 - t0, rt, pr, tmo, nak);
	if (pr <= 0)
		fail("no tail-loss probe: is the impairment on?");
	if (rt > pr + (tmo + nak) * win)
		fail("%lld packets resent for %lld probes, %lld timeouts and "
		     "%lld NAKs: a probe resends more than one packet",
		     rt, pr, tmo, nak);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	return failures ? 1 : 0;
}

/*
 * A READ whose last response is lost, followed by a WRITE that is
 * answered (the shell drops every Pth READ response that ends a READ on
 * B's egress): the last packet the requester sent has its ACK, and the
 * READ before it lacks a response. A tail-loss probe then asks for the
 * READ again (swr_wire_probe()); without it, only the ACK timeout would.
 * Each READ is 3 path MTUs, data checked; the WRITE is 64 bytes.
 */
#define PRD_PKTS	3

static int prd_post(struct ibv_qp *qa, struct dev *a, struct dev *b,
		    uint64_t i, uint32_t len)
{
	size_t rd = SLOT(i % WINDOW), wr = SLOT((i + WINDOW / 2) % WINDOW);
	struct ibv_sge rsge = {
		.addr = (uintptr_t)a->buf + rd, .length = len,
		.lkey = a->mr->lkey,
	}, wsge = {
		.addr = (uintptr_t)a->buf + wr, .length = 64,
		.lkey = a->mr->lkey,
	};
	struct ibv_send_wr w = {
		.wr_id = 2 * i + 1, .sg_list = &wsge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)b->buf + wr,
			.rkey = b->mr->rkey,
		},
	}, r = {
		.wr_id = 2 * i, .sg_list = &rsge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)b->buf + rd,
			.rkey = b->mr->rkey,
		},
		.next = &w,
	}, *bw;

	pat_fill(b->buf + rd, len, 11, i);
	memset(a->buf + rd, 0, len);
	return ibv_post_send(qa, &r, &bw);
}

static int do_probe_read(struct dev *a, struct dev *b, uint64_t n,
			 uint64_t period)
{
	struct qpopt o = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 1,
		.max_dest_rd_atomic = 1, .psn = 0xffff00,
	};
	enum ibv_mtu mtu = a->mtu < b->mtu ? a->mtu : b->mtu;
	uint32_t len = PRD_PKTS * (128u << mtu);
	long long c0[NCNT], c1[NCNT], pr, tmo, lost;
	struct ibv_qp *qa, *qb;
	uint64_t i;
	double t0, t1;
	long bad;

	/* Every READ Response Last dropped would drop each re-request too. */
	if (period < 2) {
		fail("drop period %" PRIu64 ": want 2 or more", period);
		return 1;
	}
	if (qp_pair(a, b, &o, &qa, &qb))
		return 1;
	cnt_snap(a, b, c0);
	t0 = now_s();
	for (i = 0; i < n && !failures; i++) {
		if (prd_post(qa, a, b, i, len)) {
			fail("post_send %" PRIu64, i);
			break;
		}
		if (wait_wr(a, "READ", 2 * i) || wait_wr(a, "WRITE", 2 * i + 1))
			break;
		bad = pat_check(a->buf + SLOT(i % WINDOW), len, 11, i);
		if (bad >= 0)
			fail("READ %" PRIu64 ": byte %ld wrong", i, bad);
	}
	t1 = now_s();
	cnt_snap(a, b, c1);
	cnt_print(c0, c1);
	pr = cnt_delta(c0, c1, "tail_loss_probes");
	tmo = cnt_delta(c0, c1, "ack_timeouts");
	/*
	 * The shell's filter drops every period-th READ Response Last it
	 * sees, the ones asked for again included: i / (period - 1).
	 */
	lost = (long long)(i / (period - 1));
	printf("# %" PRIu64 " READs of %u B + WRITEs in %.2f s, about %lld "
	       "READ responses lost: %lld probes, %lld ACK timeouts\n", i,
	       len, t1 - t0, lost, pr, tmo);
	if (pr < lost / 2)
		fail("%lld probes for about %lld lost READ responses", pr, lost);
	if (tmo > lost / 4)
		fail("%lld ACK timeouts for about %lld lost READ responses: "
		     "the probe left them to the timer", tmo, lost);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	return failures ? 1 : 0;
}

/*
 * One WR that cannot complete; its status checked, its elapsed time *@t
 * and the time the QP's timers predict *@want. 0, or 1 on a failure.
 */
static int exhaust_once(struct dev *a, struct dev *b, bool rnr, double *t,
			double *want)
{
	struct qpopt o = {
		.timeout = 15, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .max_rd_atomic = 4,
		.max_dest_rd_atomic = 4, .psn = 0xfffffe,
	};
	struct ibv_qp *qa, *qb;
	long long c0[NCNT], c1[NCNT];
	struct ibv_wc wc;
	double t0;
	int ret;

	if (rnr) {
		o.rnr_retry = 3;
		o.min_rnr_timer = 26;	/* 81.92 ms */
		o.timeout = 18;		/* never the transport timer */
	}
	if (qp_pair(a, b, &o, &qa, &qb))
		return 1;
	pat_fill(a->buf, 3000, 1, 1);
	cnt_snap(a, b, c0);
	t0 = now_s();
	ret = swr_post_send1(qa, rnr ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, 77,
			     a->buf, 3000, a->mr->lkey, (uintptr_t)b->buf,
			     b->mr->rkey, IBV_SEND_SIGNALED);
	if (ret) {
		fail("post_send");
		return 1;
	}
	if (swr_poll_wait(a->cq, &wc, 30000) != 1) {
		fail("no completion in 30 s");
		return 1;
	}
	*t = now_s() - t0;
	cnt_snap(a, b, c1);
	cnt_print(c0, c1);
	if (rnr) {
		/* rnr_retry waits of the timer, then the last NAK fails it. */
		*want = o.rnr_retry * 0.08192;
		printf("# RNR_RETRY_EXC after %.3f s, predicted %.3f s\n", *t,
		       *want);
		if (wc.status != IBV_WC_RNR_RETRY_EXC_ERR)
			fail("status %s", ibv_wc_status_str(wc.status));
		if (cnt_delta(c0, c1, "rnr_nak_rcvd") != o.rnr_retry + 1)
			fail("rnr_nak_rcvd rose by %lld, want %u",
			     cnt_delta(c0, c1, "rnr_nak_rcvd"), o.rnr_retry + 1);
	} else {
		*want = (o.retry_cnt + 1) * 4.096e-6 * (1 << o.timeout);
		printf("# RETRY_EXC after %.3f s, predicted %.3f s\n", *t,
		       *want);
		if (wc.status != IBV_WC_RETRY_EXC_ERR)
			fail("status %s", ibv_wc_status_str(wc.status));
		if (cnt_delta(c0, c1, "ack_timeouts") != o.retry_cnt + 1)
			fail("ack_timeouts rose by %lld, want %u",
			     cnt_delta(c0, c1, "ack_timeouts"), o.retry_cnt + 1);
		/* 3000 bytes at MTU 1024: 3 packets, sent retry_cnt times again */
		if (cnt_delta(c0, c1, "retransmits") != 3 * o.retry_cnt)
			fail("retransmits rose by %lld, want %u",
			     cnt_delta(c0, c1, "retransmits"), 3 * o.retry_cnt);
	}
	if (wc.wr_id != 77)
		fail("wr_id %" PRIu64, wc.wr_id);
	/* The QP is in error: the next WR is flushed, not sent. */
	if (swr_qp_state(qa) != IBV_QPS_ERR)
		fail("QP state %d, want ERR", swr_qp_state(qa));
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	return failures ? 1 : 0;
}

/*
 * The WR fails on time: never before half the predicted time (timers do
 * not fire early, however idle the host), and within half as much again.
 * A loaded host only ever makes it late, so a late run is repeated: the
 * best of EXHAUST_TRIES decides, and a driver that is always late fails.
 */
#define EXHAUST_TRIES	3

static int do_exhaust(struct dev *a, struct dev *b, bool rnr)
{
	double t, want;
	int i;

	for (i = 0; i < EXHAUST_TRIES; i++) {
		if (exhaust_once(a, b, rnr, &t, &want))
			return 1;
		if (t < want * 0.5) {
			fail("elapsed %.3f s, under half of %.3f s", t, want);
			return 1;
		}
		if (t <= want * 1.5)
			return 0;
		printf("# elapsed %.3f s, over %.3f s + 50%%: again\n", t,
		       want);
	}
	fail("elapsed over %.3f s + 50%% in %d runs", want, EXHAUST_TRIES);
	return 1;
}

/* UC under loss --------------------------------------------------------------- */

/*
 * UC messages, 4 path MTUs each: SENDs, SENDs with immediate, RDMA WRITEs
 * with immediate and plain RDMA WRITEs, by message id. Every 4-byte word
 * of message @id holds the id and the word's index, so a byte from
 * another message or another offset shows; the buffers start as UC_JUNK,
 * which no message word equals.
 */
#define UC_MAX		512		/* messages per run, at most */
#define UC_FINAL	4		/* sent once the impairment is gone */
#define UC_PKTS		4		/* packets per message */
#define UC_WINDOW	32		/* sends outstanding */
#define UC_JUNK		0xa5a5a5a5u

enum { UC_SEND, UC_SEND_IMM, UC_WRITE_IMM, UC_WRITE };
static const char *const uc_kname[] = {
	"SEND", "SEND_WITH_IMM", "WRITE_WITH_IMM", "WRITE",
};

/* Ids n .. n + 3 (n a multiple of 8): SEND, SEND_IMM, SEND, WRITE_IMM. */
static int uc_kind(uint32_t id)
{
	switch (id % 8) {
	case 1: case 5:
		return UC_SEND_IMM;
	case 3:
		return UC_WRITE_IMM;
	case 6:
		return UC_WRITE;
	default:
		return UC_SEND;
	}
}

static uint32_t uc_word(uint32_t id, uint32_t k)
{
	return 0x5a000000u | id << 12 | k;
}

static void uc_fill(uint8_t *p, uint32_t len, uint32_t id)
{
	uint32_t k, w;

	for (k = 0; k < len / 4; k++) {
		w = uc_word(id, k);
		memcpy(p + 4 * k, &w, 4);
	}
}

/* Index of the first word of @p (@len bytes) that is not message @id's. */
static long uc_check(const uint8_t *p, uint32_t len, uint32_t id)
{
	uint32_t k, w;

	for (k = 0; k < len / 4; k++) {
		memcpy(&w, p + 4 * k, 4);
		if (w != uc_word(id, k))
			return k;
	}
	return -1;
}

/* Index of the first word of @p (@len bytes) that is not junk. */
static long uc_check_junk(const uint8_t *p, uint32_t len)
{
	uint32_t k, w;

	for (k = 0; k < len / 4; k++) {
		memcpy(&w, p + 4 * k, 4);
		if (w != UC_JUNK)
			return k;
	}
	return -1;
}

static struct ibv_qp *uc_create(struct dev *d, uint32_t nrecv)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_UC,
		.send_cq = d->cq, .recv_cq = d->cq,
		.cap = {
			.max_send_wr = UC_WINDOW, .max_recv_wr = nrecv,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	return ibv_create_qp(d->pd, &a);
}

struct uc_run {
	struct dev *a, *b;
	struct ibv_qp *qa, *qb;
	uint32_t msg;		/* message size: UC_PKTS path MTUs */
	uint32_t total;		/* messages, the final ones included */
	uint8_t *src;		/* on a: message id's bytes at id * msg */
	uint8_t *rbuf;		/* on b: receive slot i at i * 2 * msg */
	uint8_t *tgt;		/* on b: WRITE target of id at id * msg */
	uint32_t posted, sent, recvd;
	int64_t last_id;	/* the last message id received */
	uint8_t *got;		/* per id: a receive completed for it */
};

static int uc_post(struct uc_run *u)
{
	uint32_t id = u->posted;
	int kind = uc_kind(id);
	struct ibv_sge sge = {
		.addr = (uintptr_t)(u->src + (size_t)id * u->msg),
		.length = u->msg, .lkey = u->a->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(id),
	}, *bad;

	switch (kind) {
	case UC_SEND:
		wr.opcode = IBV_WR_SEND;
		break;
	case UC_SEND_IMM:
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		break;
	default:
		wr.opcode = kind == UC_WRITE ? IBV_WR_RDMA_WRITE :
					       IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.wr.rdma.remote_addr =
			(uintptr_t)(u->tgt + (size_t)id * u->msg);
		wr.wr.rdma.rkey = u->b->mr->rkey;
		break;
	}
	u->posted++;
	return ibv_post_send(u->qa, &wr, &bad);
}

/* A requester completion: the next WR, successful (UC: once sent). */
static void uc_sent(struct uc_run *u, const struct ibv_wc *wc)
{
	int kind = uc_kind(u->sent);
	enum ibv_wc_opcode want = kind == UC_SEND || kind == UC_SEND_IMM ?
				  IBV_WC_SEND : IBV_WC_RDMA_WRITE;

	if (wc->wr_id != u->sent || wc->status != IBV_WC_SUCCESS ||
	    wc->opcode != want)
		fail("send completion %u: wr_id %" PRIu64 " status %s opcode %d",
		     u->sent, wc->wr_id, ibv_wc_status_str(wc->status),
		     wc->opcode);
	u->sent++;
}

/*
 * A receive completion: the next receive WQE, one whole message, newer
 * than the one before. A SEND's bytes are in the receive buffer (and
 * nothing past them); a WRITE with immediate's, whole, in its target.
 */
static void uc_recv(struct uc_run *u, const struct ibv_wc *wc)
{
	const uint8_t *p = u->rbuf + (size_t)u->recvd * 2 * u->msg;
	uint32_t id, w;
	long bad;

	if (wc->wr_id != u->recvd || wc->status != IBV_WC_SUCCESS) {
		fail("receive %u: wr_id %" PRIu64 " status %s", u->recvd,
		     wc->wr_id, ibv_wc_status_str(wc->status));
		u->recvd++;
		return;
	}
	u->recvd++;
	if (wc->byte_len != u->msg) {
		fail("receive %u: byte_len %u, want %u", u->recvd - 1,
		     wc->byte_len, u->msg);
		return;
	}
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		id = ntohl(wc->imm_data);
		if (id >= u->total || uc_kind(id) != UC_WRITE_IMM) {
			fail("receive %u: WRITE_WITH_IMM completion, imm %u",
			     u->recvd - 1, id);
			return;
		}
		bad = uc_check(u->tgt + (size_t)id * u->msg, u->msg, id);
		if (bad >= 0)
			fail("WRITE_WITH_IMM %u completed, target word %ld wrong",
			     id, bad);
	} else if (wc->opcode == IBV_WC_RECV) {
		memcpy(&w, p, 4);
		id = w >> 12 & 0xfff;
		if ((w >> 24) != 0x5a || id >= u->total ||
		    (uc_kind(id) != UC_SEND && uc_kind(id) != UC_SEND_IMM)) {
			fail("receive %u: first word %08x is no SEND's", u->recvd - 1,
			     w);
			return;
		}
		bad = uc_check(p, u->msg, id);
		if (bad >= 0)
			fail("receive %u (SEND %u): word %ld is %08x, want %08x",
			     u->recvd - 1, id, bad,
			     ((const uint32_t *)p)[bad], uc_word(id, bad));
		bad = uc_check_junk(p + u->msg, u->msg);
		if (bad >= 0)
			fail("receive %u (SEND %u): written past the message, "
			     "word %ld", u->recvd - 1, id, bad + u->msg / 4);
		if ((uc_kind(id) == UC_SEND_IMM) !=
		    !!(wc->wc_flags & IBV_WC_WITH_IMM) ||
		    (uc_kind(id) == UC_SEND_IMM && ntohl(wc->imm_data) != id))
			fail("SEND %u: wc_flags %#x imm %u", id, wc->wc_flags,
			     ntohl(wc->imm_data));
	} else {
		fail("receive %u: opcode %d", u->recvd - 1, wc->opcode);
		return;
	}
	if ((int64_t)id <= u->last_id)
		fail("message %u completed after message %" PRId64, id,
		     u->last_id);
	u->last_id = id;
	u->got[id] = 1;
}

/*
 * Post messages up to id @limit, at most UC_WINDOW outstanding, and poll
 * both CQs: until every one is sent and, when @final, the last message
 * is received (0); or until nothing completes for @ms (1); -1 on errors.
 */
static int uc_poll(struct uc_run *u, uint32_t limit, bool final, int ms)
{
	uint64_t last = swr_now_ms();
	struct ibv_wc wc[32];
	int n, i;

	while (!failures) {
		if (u->sent == limit && final && u->last_id == u->total - 1)
			return 0;
		while (u->posted < limit && u->posted - u->sent < UC_WINDOW)
			if (uc_post(u)) {
				fail("post_send %u: %s", u->posted,
				     strerror(errno));
				return -1;
			}
		n = ibv_poll_cq(u->a->cq, 32, wc);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			uc_sent(u, &wc[i]);
		if (n > 0)
			last = swr_now_ms();
		n = ibv_poll_cq(u->b->cq, 32, wc);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			uc_recv(u, &wc[i]);
		if (n > 0)
			last = swr_now_ms();
		else if (swr_now_ms() - last > (uint64_t)ms)
			return 1;
		else
			sched_yield();
	}
	return -1;
}

/*
 * The WRITE target of message @id: each packet's share is all of the
 * message's words or all junk (a packet is placed whole or not at all),
 * and the placed shares are a prefix (after a loss the rest of the
 * message is dropped). The number of shares placed, or -1.
 */
static int uc_target(struct uc_run *u, uint32_t id, uint32_t mtu)
{
	const uint8_t *p = u->tgt + (size_t)id * u->msg;
	uint32_t c, k, w, words = mtu / 4;
	int full = 0, st, cst;

	for (c = 0; c < UC_PKTS; c++) {
		cst = -1;
		for (k = c * words; k < (c + 1) * words; k++) {
			memcpy(&w, p + 4 * k, 4);
			st = w == uc_word(id, k) ? 1 : w == UC_JUNK ? 0 : 2;
			if (st == 2 || (cst >= 0 && st != cst)) {
				fail("%s %u: target word %u is %08x, packet %u "
				     "partly placed or foreign",
				     uc_kname[uc_kind(id)], id, k, w, c);
				return -1;
			}
			cst = st;
		}
		if (cst && full != (int)c) {
			fail("%s %u: packet %u placed after a missing one",
			     uc_kname[uc_kind(id)], id, c);
			return -1;
		}
		full += cst;
	}
	return full;
}

static int do_uc(struct dev *a, struct dev *b, uint32_t n, const char *clear)
{
	struct uc_run u = { .a = a, .b = b, .last_id = -1 };
	/* across the PSN wrap */
	const struct qpopt o = { .psn = 0xfffe00 };
	uint32_t id, mtu, recvable = 0, got = 0, wfull = 0, wpart = 0;
	struct ibv_qp_init_attr init;
	long long c0[NCNT], c1[NCNT], out;
	struct ibv_qp_attr at;
	int ret, kind, full;
	double t0, t1;
	long bad;

	n = (n + 7) / 8 * 8;
	if (n < 8 || n > UC_MAX) {
		fail("message count %u outside 8..%u", n, UC_MAX);
		return 1;
	}
	u.total = n + UC_FINAL;
	u.qa = uc_create(a, 1);
	u.qb = uc_create(b, u.total);
	if (!u.qa || !u.qb ||
	    qp_connect(u.qa, a, u.qb->qp_num, b, &o) ||
	    qp_connect(u.qb, b, u.qa->qp_num, a, &o) ||
	    ibv_query_qp(u.qa, &at, IBV_QP_PATH_MTU, &init)) {
		fail("UC setup: %s", strerror(errno));
		return 1;
	}
	mtu = 128u << at.path_mtu;
	u.msg = UC_PKTS * mtu;
	u.src = a->buf;
	u.rbuf = b->buf;
	u.tgt = b->buf + (size_t)u.total * 2 * u.msg;
	u.got = calloc(u.total, 1);
	if (!u.got || (size_t)u.total * 3 * u.msg > BUFSZ) {
		fail("no room for %u messages of %u bytes", u.total, u.msg);
		return 1;
	}
	printf("# UC, path MTU %u: %u messages of %u bytes (%u packets), "
	       "then %u without loss\n", mtu, n, u.msg, UC_PKTS, UC_FINAL);
	for (id = 0; id < u.total; id++)
		uc_fill(u.src + (size_t)id * u.msg, u.msg, id);
	memset(b->buf, 0xa5, (size_t)u.total * 3 * u.msg);
	for (id = 0; id < u.total; id++)
		if (swr_post_recv1(u.qb, id, u.rbuf + (size_t)id * 2 * u.msg,
				   2 * u.msg, b->mr->lkey)) {
			fail("post_recv %u", id);
			return 1;
		}

	cnt_snap(a, b, c0);
	t0 = now_s();
	/* Under loss: all sent, then 2 s without any completion. */
	ret = uc_poll(&u, n, false, 2000);
	t1 = now_s();
	if (ret < 0 || u.sent != n) {
		if (!failures)
			fail("under loss: %u of %u sent", u.sent, n);
		goto out;
	}
	printf("# under loss: %u messages sent, %u received in %.2f s\n", n,
	       u.recvd, t1 - t0);
	/* UC loss is no error: both QPs are still in RTS. */
	if (swr_qp_state(u.qa) != IBV_QPS_RTS ||
	    swr_qp_state(u.qb) != IBV_QPS_RTS)
		fail("after the loss: QP states %d, %d, want RTS",
		     swr_qp_state(u.qa), swr_qp_state(u.qb));
	if (clear && system(clear))
		fail("clearing the impairment: %s", clear);
	ret = uc_poll(&u, u.total, true, 20000);
	if (ret) {
		if (!failures)
			fail("final messages: %u of %u sent, last received %"
			     PRId64, u.sent, u.total, u.last_id);
		goto out;
	}
	cnt_snap(a, b, c1);
	cnt_print(c0, c1);

	for (id = 0; id < u.total; id++) {
		kind = uc_kind(id);
		if (kind != UC_WRITE && id < n) {
			recvable++;
			got += u.got[id];
		}
		if (kind != UC_WRITE && id >= n && !u.got[id])
			fail("%s %u (no loss) not received", uc_kname[kind], id);
		if (kind == UC_SEND || kind == UC_SEND_IMM) {
			bad = uc_check_junk(u.tgt + (size_t)id * u.msg, u.msg);
			if (bad >= 0)
				fail("target of %s %u written, word %ld",
				     uc_kname[kind], id, bad);
			continue;
		}
		full = uc_target(&u, id, mtu);
		if (full < 0)
			continue;
		wfull += full == UC_PKTS;
		wpart += full > 0 && full < UC_PKTS;
		if (id >= n && full != UC_PKTS)
			fail("%s %u (no loss): %d of %u packets placed",
			     uc_kname[kind], id, full, UC_PKTS);
		/* Its last packet placed <=> its completion. */
		if (kind == UC_WRITE_IMM && (full == UC_PKTS) != u.got[id])
			fail("WRITE_WITH_IMM %u: %d packets placed, %s",
			     id, full, u.got[id] ? "completed" : "no completion");
	}
	/* Receive WQEs never reached (the one after the last completed
	 * may hold a dropped SEND's first packets): untouched.
	 */
	for (id = u.recvd + 1; id < u.total; id++) {
		bad = uc_check_junk(u.rbuf + (size_t)id * 2 * u.msg, 2 * u.msg);
		if (bad >= 0) {
			fail("receive buffer %u (not completed) written, word %ld",
			     id, bad);
			break;
		}
	}
	printf("# under loss: %u of %u SENDs and WRITEs with immediate "
	       "received whole (%.1f%%; 0.9^%u = %.1f%% expected); WRITE "
	       "targets: %u whole, %u a prefix of the packets\n", got,
	       recvable, 100.0 * got / recvable, UC_PKTS,
	       100.0 * 0.6561, wfull, wpart);
	if (got == 0 || got >= recvable)
		fail("%u of %u received under 10%% loss: want some, not all",
		     got, recvable);
	/* Put out: sent, or refused by a full backlog on a busy host. */
	out = cnt_delta(c0, c1, "tx_pkts") + cnt_delta(c0, c1, "tx_dropped");
	if (out < (long long)UC_PKTS * u.total ||
	    cnt_delta(c0, c1, "rx_pkts") >= out)
		fail("tx_pkts + tx_dropped rose by %lld, rx_pkts by %lld: "
		     "want >= %u and fewer received", out,
		     cnt_delta(c0, c1, "rx_pkts"), UC_PKTS * u.total);
	if (cnt_delta(c0, c1, "retransmits") || cnt_delta(c0, c1, "rnr_nak"))
		fail("UC: retransmits %lld, rnr_nak %lld, want 0",
		     cnt_delta(c0, c1, "retransmits"),
		     cnt_delta(c0, c1, "rnr_nak"));
	/* each PSN gap the responder saw dropped a message in progress */
	if (cnt_delta(c0, c1, "out_of_sequence") <= 0)
		fail("UC: out_of_sequence did not rise after losses");
	if (swr_qp_state(u.qa) != IBV_QPS_RTS ||
	    swr_qp_state(u.qb) != IBV_QPS_RTS)
		fail("at the end: QP states %d, %d, want RTS",
		     swr_qp_state(u.qa), swr_qp_state(u.qb));
out:
	ibv_destroy_qp(u.qa);
	ibv_destroy_qp(u.qb);
	free(u.got);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *na = getenv("SWR_LOSS_A"), *nb = getenv("SWR_LOSS_B");
	struct dev a, b;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !na || !nb) {
		fprintf(stderr, "usage: SWR_LOSS_A=dev SWR_LOSS_B=dev %s "
			"move MIB EXPECT | rdatomic | bigread N | probe N | "
			"probe-read N P | retry | rnr | uc N [CMD]\n", argv[0]);
		return 4;
	}
	ret = dev_open(&a, na);
	if (!ret)
		ret = dev_open(&b, nb);
	if (ret) {
		printf("# open devices: %s\n", strerror(-ret));
		return 1;
	}
	if (!strcmp(argv[1], "move") && argc > 3)
		return do_move(&a, &b, strtoull(argv[2], NULL, 0) << 20,
			       argv[3]);
	if (!strcmp(argv[1], "rdatomic"))
		return do_rdatomic(&a, &b);
	if (!strcmp(argv[1], "bigread") && argc > 2)
		return do_bigread(&a, &b, atoi(argv[2]));
	if (!strcmp(argv[1], "probe") && argc > 2)
		return do_probe(&a, &b, strtoull(argv[2], NULL, 0));
	if (!strcmp(argv[1], "probe-read") && argc > 3)
		return do_probe_read(&a, &b, strtoull(argv[2], NULL, 0),
				     strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "retry"))
		return do_exhaust(&a, &b, false);
	if (!strcmp(argv[1], "rnr"))
		return do_exhaust(&a, &b, true);
	if (!strcmp(argv[1], "uc") && argc > 2)
		return do_uc(&a, &b, strtoul(argv[2], NULL, 0),
			     argc > 3 ? argv[3] : NULL);
	return 4;
}
