// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A hostile user: this process writes whatever it likes into the rings it
 * shares with the kernel (white box: it reaches them through the provider's
 * struct swr_qp and struct swr_cq) - unknown and kernel-only opcodes,
 * num_sge / inline_len / SGE garbage, producer indices far out of range,
 * CQ consumer index and arm garbage, and a thread scribbling random bytes
 * over everything while the kernel consumes it.
 *
 * What must hold: only the abused QP (and CQ) fails - an error completion,
 * the error state or lost completions are all fine - while a well-behaved
 * QP pair of this process and a well-behaved process beside it (the
 * bystander) keep transferring data byte-exact; the wqe_bad and
 * ring_index_bad counters count the abuse; nothing a refused WQE names is
 * written; and the kernel does not splat (tools/vm/vm.sh checks the
 * console).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"
#include "swroce.h"

#define BUFSZ		(64 * 1024)
#define CANARY		0xa5

/* The bystander process --------------------------------------------------- */

struct bystander_shm {
	atomic_int stop;
	atomic_long ops;
	atomic_long max_ms;	/* the longest one transfer took */
	char why[128];
};

struct bystander {
	pid_t pid;
	struct bystander_shm *shm;
};

/* WRITE, SEND and READ in turn, each checked byte by byte. */
static int bystander_run(struct bystander_shm *shm)
{
	struct swr_pair p;
	struct ibv_mr *cmr, *smr;
	struct ibv_wc wc;
	uint8_t *c, *s;
	long i;

	if (swr_pair_open(&p) || swr_pair_create(&p, NULL)) {
		snprintf(shm->why, sizeof(shm->why), "setup failed");
		return 1;
	}
	c = calloc(1, BUFSZ);
	s = calloc(1, BUFSZ);
	cmr = c ? ibv_reg_mr(p.pd, c, BUFSZ, SWR_ALL_ACCESS) : NULL;
	smr = s ? ibv_reg_mr(p.pd, s, BUFSZ, SWR_ALL_ACCESS) : NULL;
	if (!cmr || !smr) {
		snprintf(shm->why, sizeof(shm->why), "reg_mr failed");
		return 1;
	}
	for (i = 0; !atomic_load(&shm->stop); i++) {
		uint32_t len = 1 + (uint32_t)(i * 977) % 8192;
		uint8_t seed = (uint8_t)i;
		uint64_t t0 = swr_now_ms();
		int op = i % 3;

		memset(s, CANARY, len + 16);
		memset(c + BUFSZ / 2, CANARY, len + 16);
		swr_fill(c, len, seed);
		if (op == 1 && swr_post_recv1(p.s.qp, i, s, len + 16,
					      smr->lkey))
			goto fail_post;
		if (op == 2)
			swr_fill(s, len, seed);
		if (swr_post_send1(p.c.qp,
				   op == 0 ? IBV_WR_RDMA_WRITE :
				   op == 1 ? IBV_WR_SEND : IBV_WR_RDMA_READ,
				   i, op == 2 ? c + BUFSZ / 2 : c, len,
				   cmr->lkey, (uintptr_t)s, smr->rkey,
				   IBV_SEND_SIGNALED))
			goto fail_post;
		if (swr_wait(p.c.scq, &wc) != 1 || wc.status ||
		    wc.wr_id != (uint64_t)i) {
			snprintf(shm->why, sizeof(shm->why),
				 "op %ld (%d): %s", i, op,
				 ibv_wc_status_str(wc.status));
			return 1;
		}
		if (op == 1 && (swr_wait(p.s.rcq, &wc) != 1 || wc.status ||
				wc.byte_len != len)) {
			snprintf(shm->why, sizeof(shm->why),
				 "receive %ld failed", i);
			return 1;
		}
		if (swr_check(op == 2 ? c + BUFSZ / 2 : s, len, seed) != -1 ||
		    swr_check_byte(op == 2 ? c + BUFSZ / 2 + len : s + len,
				   16, op == 2 ? CANARY : CANARY) != -1) {
			snprintf(shm->why, sizeof(shm->why),
				 "op %ld (%d, %u bytes): data differs", i, op,
				 len);
			return 1;
		}
		atomic_fetch_add(&shm->ops, 1);
		if ((long)(swr_now_ms() - t0) > atomic_load(&shm->max_ms))
			atomic_store(&shm->max_ms, (long)(swr_now_ms() - t0));
	}
	return 0;

fail_post:
	snprintf(shm->why, sizeof(shm->why), "post %ld failed", i);
	return 1;
}

/* Fork it before this process opens anything. */
static int bystander_start(struct bystander *b)
{
	b->shm = mmap(NULL, sizeof(*b->shm), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b->shm == MAP_FAILED)
		return -errno;
	memset(b->shm, 0, sizeof(*b->shm));
	b->pid = fork();
	if (b->pid < 0)
		return -errno;
	if (!b->pid)
		_exit(bystander_run(b->shm));
	return 0;
}

/* Stop it; it must have done work and never failed. */
static void bystander_stop(struct __test_metadata *_metadata,
			   struct bystander *b)
{
	long ops;
	int status;

	if (b->pid <= 0)
		return;
	/* It must still be making progress now, after the abuse. */
	ops = atomic_load(&b->shm->ops);
	sleep(3);
	EXPECT_LT(ops, atomic_load(&b->shm->ops))
		TH_LOG("the bystander made no progress: %s", b->shm->why);
	atomic_store(&b->shm->stop, 1);
	ASSERT_EQ(b->pid, waitpid(b->pid, &status, 0));
	b->pid = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the bystander failed: %s", b->shm->why);
	TH_LOG("bystander: %ld transfers checked, the slowest in %ld ms",
	       atomic_load(&b->shm->ops), atomic_load(&b->shm->max_ms));
}

/* The hostile process ----------------------------------------------------- */

FIXTURE(hostile) {
	struct bystander by;
	struct swr_pair a;	/* the QPs this process abuses */
	struct swr_end b_c, b_s;	/* a well-behaved pair beside them */
	struct swr_bufs b;
};

FIXTURE_SETUP(hostile)
{
	int ret;

	ASSERT_EQ(0, bystander_start(&self->by));
	ret = swr_pair_open(&self->a);
	ASSERT_EQ(0, ret) TH_LOG("open: %s", strerror(-ret));
	ret = swr_bufs_init(&self->b, self->a.pd, BUFSZ, SWR_ALL_ACCESS);
	ASSERT_EQ(0, ret) TH_LOG("buffers: %s", strerror(-ret));
	memset(self->b.sbuf, CANARY, BUFSZ);
	ret = swr_pair_create(&self->a, NULL);
	ASSERT_EQ(0, ret) TH_LOG("QPs: %s", strerror(-ret));
	/* The good pair: same context and PD, QPs and CQs of its own. */
	ASSERT_EQ(0, swr_end_create(&self->a, &self->b_c, NULL));
	ASSERT_EQ(0, swr_end_create(&self->a, &self->b_s, NULL));
	ASSERT_EQ(0, swr_qp_connect(&self->a, self->b_c.qp,
				    self->b_s.qp->qp_num));
	ASSERT_EQ(0, swr_qp_connect(&self->a, self->b_s.qp,
				    self->b_c.qp->qp_num));
}

FIXTURE_TEARDOWN(hostile)
{
	if (self->by.pid > 0) {
		kill(self->by.pid, SIGKILL);
		waitpid(self->by.pid, NULL, 0);
	}
	swr_end_destroy(&self->b_c);
	swr_end_destroy(&self->b_s);
	swr_pair_destroy_qps(&self->a);
	swr_bufs_fini(&self->b);
	swr_pair_close(&self->a);
}

/* The good pair moves 4 KiB byte-exact with a WRITE and a SEND. */
static void good_pair_works(struct __test_metadata *_metadata,
			    FIXTURE_DATA(hostile) *self, uint8_t seed)
{
	uint8_t *src = self->b.cbuf + 32768, *dst = self->b.sbuf + 32768;
	struct ibv_wc wc;

	memset(dst, CANARY, 16384);
	swr_fill(src, 4096, seed);
	ASSERT_EQ(0, swr_post_send1(self->b_c.qp, IBV_WR_RDMA_WRITE, 1, src,
				    4096, self->b.cmr->lkey, (uintptr_t)dst,
				    self->b.smr->rkey, IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait(self->b_c.scq, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status)
		TH_LOG("good pair: %s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(-1, swr_check(dst, 4096, seed));
	ASSERT_EQ(0, swr_post_recv1(self->b_s.qp, 2, dst + 8192, 4096,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(self->b_c.qp, IBV_WR_SEND, 3, src, 4096,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait(self->b_c.scq, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(1, swr_wait(self->b_s.rcq, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(4096, wc.byte_len);
	EXPECT_EQ(-1, swr_check(dst + 8192, 4096, seed));
	EXPECT_EQ(-1, swr_check_byte(dst + 4096, 4096, CANARY));
	EXPECT_EQ(-1, swr_check_byte(dst + 12288, 4096, CANARY));
}

/* The doorbell: a post_send command with no work requests. */
static int doorbell(struct ibv_qp *qp)
{
	struct ibv_send_wr *bad;

	return ibv_cmd_post_send(qp, NULL, &bad);
}

/*
 * Put @len bytes into the next SQ slot of @qp behind the provider's back
 * (keeping its producer index in step), publish and ring.
 */
static int raw_post(struct ibv_qp *qp, const void *wqe, size_t len)
{
	struct swr_sq *sq = &to_swr_qp(qp)->sq;
	uint8_t *slot;

	if (len > sq->wqe_stride)
		return -EINVAL;
	slot = sq->slots + (size_t)(sq->prod & (sq->num_wqe - 1)) *
			   sq->wqe_stride;
	memset(slot, 0, sq->wqe_stride);
	memcpy(slot, wqe, len);
	sq->prod++;
	atomic_store_explicit(&sq->ring->prod.idx, sq->prod,
			      memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	return doorbell(qp);
}

/*
 * What a refused WQE may do: complete in error, put the QP in error, or
 * vanish. It must not complete successfully. Returns the status seen, or
 * -1 when the QP went to error without a completion for @wr_id, or -2
 * when nothing at all happened.
 */
static int refused(struct swr_pair *p, uint64_t wr_id, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	struct ibv_wc wc;
	int n;

	while (swr_now_ms() < end) {
		n = ibv_poll_cq(p->c.scq, 1, &wc);
		if (n == 1 && wc.wr_id == wr_id)
			return wc.status;
		if (n == 0 && swr_qp_state(p->c.qp) == IBV_QPS_ERR) {
			/* Flushes may still follow: take what is there. */
			while (ibv_poll_cq(p->c.scq, 1, &wc) == 1)
				if (wc.wr_id == wr_id)
					return wc.status;
			return -1;
		}
		usleep(1000);
	}
	return -2;
}

/* An RDMA WRITE of the server's canary area that must never happen. */
static void write_wqe(FIXTURE_DATA(hostile) *self, struct swroce_send_wqe *w,
		      uint64_t wr_id)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = SWROCE_WR_RDMA_WRITE;
	w->flags = SWROCE_WQE_SIGNALED;
	w->num_sge = 1;
	w->rdma.remote_addr = (uintptr_t)self->b.sbuf;
	w->rdma.rkey = self->b.smr->rkey;
}

static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(hostile) *self, const char *what,
			   uint64_t wr_id)
{
	int st = refused(&self->a, wr_id, 3000);

	TH_LOG("%s: %s", what, st >= 0 ? ibv_wc_status_str(st) :
	       st == -1 ? "QP in error, no completion" : "nothing");
	EXPECT_NE(IBV_WC_SUCCESS, st) TH_LOG("%s executed", what);
	EXPECT_NE(-2, st) TH_LOG("%s: no error completion, QP not in error",
				 what);
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 32768, CANARY))
		TH_LOG("%s wrote the target", what);
}

TEST_F(hostile, bad_opcodes)
{
	/* Unknown, reserved, and the kernel-only REG_MR (0x80). */
	static const uint8_t ops[] = { 0xee, 0x80, 10, 11, 14, 16, 0xff };
	struct swroce_send_wqe w;
	struct {
		struct swroce_send_wqe h;
		struct swroce_sge sge;
	} x;
	long long bad0 = swr_counter("wqe_bad");
	unsigned int i;

	for (i = 0; i < sizeof(ops); i++) {
		char what[32];

		write_wqe(self, &w, 100 + i);
		w.opcode = ops[i];
		/* What REG_MR would read: a made-up kernel pointer. */
		w.pad.reserved_2[0] = 0xffff888000001000ULL;
		w.pad.reserved_2[1] = (uint64_t)self->b.smr->rkey << 32 | 0xff;
		memcpy(&x.h, &w, sizeof(w));
		x.sge.addr = (uintptr_t)self->b.cbuf;
		x.sge.length = 64;
		x.sge.lkey = self->b.cmr->lkey;
		ASSERT_EQ(0, raw_post(self->a.c.qp, &x, sizeof(x)));
		snprintf(what, sizeof(what), "opcode 0x%x", ops[i]);
		expect_refused(_metadata, self, what, 100 + i);
		good_pair_works(_metadata, self, (uint8_t)i);
		ASSERT_EQ(0, swr_pair_renew(&self->a));
	}
	EXPECT_LE(bad0 + (long long)sizeof(ops), swr_counter("wqe_bad"));
	bystander_stop(_metadata, &self->by);
}

TEST_F(hostile, bad_lengths)
{
	struct swr_sq *sq;
	struct {
		struct swroce_send_wqe h;
		struct swroce_sge sge[4];
	} x;
	long long bad0 = swr_counter("wqe_bad"), bad1;
	int i, k;

	for (i = 0; i < 10; i++) {
		static const char * const what[] = {
			"num_sge 0xffff", "num_sge max_sge + 1",
			"inline_len 0xffffffff", "inline_len past the slot",
			"inline_len max_inline + 1", "SGE length 0xffffffff",
			"SGE address wrapping", "SGE with a foreign lkey",
			"UD fields on an RC QP, bad rkey",
			"misaligned atomic",
		};

		sq = &to_swr_qp(self->a.c.qp)->sq;
		write_wqe(self, &x.h, 200 + i);
		for (k = 0; k < 4; k++) {
			x.sge[k].addr = (uintptr_t)self->b.cbuf;
			x.sge[k].length = 64;
			x.sge[k].lkey = self->b.cmr->lkey;
		}
		switch (i) {
		case 0:
			x.h.num_sge = 0xffff;
			break;
		case 1:
			x.h.num_sge = sq->max_sge + 1;
			break;
		case 2:
			x.h.flags |= SWROCE_WQE_INLINE;
			x.h.inline_len = 0xffffffff;
			break;
		case 3:
			x.h.flags |= SWROCE_WQE_INLINE;
			x.h.inline_len = sq->wqe_stride -
					 sizeof(struct swroce_send_wqe) + 1;
			break;
		case 4:
			x.h.flags |= SWROCE_WQE_INLINE;
			x.h.inline_len = sq->max_inline + 1;
			break;
		case 5:
			x.sge[0].length = 0xffffffff;
			break;
		case 6:
			x.sge[0].addr = UINT64_MAX - 31;
			break;
		case 7:
			x.sge[0].lkey = 0x7fffff00;
			break;
		case 8:
			x.h.rdma.rkey = 0xfffffffe;
			x.h.xrc_srqn = 0xffffffff;
			break;
		default:
			/* The provider refuses these; the kernel must too. */
			x.h.opcode = SWROCE_WR_ATOMIC_FETCH_AND_ADD;
			x.h.atomic.remote_addr = (uintptr_t)self->b.sbuf + 4;
			x.h.atomic.compare_add = 1;
			x.h.atomic.rkey = self->b.smr->rkey;
			x.sge[0].length = 8;
			break;
		}
		ASSERT_EQ(0, raw_post(self->a.c.qp, &x,
				      sizeof(x) < sq->wqe_stride ?
				      sizeof(x) : sq->wqe_stride));
		expect_refused(_metadata, self, what[i], 200 + i);
		good_pair_works(_metadata, self, (uint8_t)i);
		ASSERT_EQ(0, swr_pair_renew(&self->a));
	}
	/* At least the five malformed WQEs are counted as such. */
	bad1 = swr_counter("wqe_bad");
	TH_LOG("wqe_bad +%lld", bad1 - bad0);
	EXPECT_LE(bad0 + 5, bad1);
	bystander_stop(_metadata, &self->by);
}

/* Producer indices out of range put that queue in error, nothing else. */
TEST_F(hostile, ring_indices)
{
	struct swr_qp *q;
	long long bad0 = swr_counter("ring_index_bad");
	struct ibv_wc wc;
	uint32_t wild[] = { 0, 0, 0x80000000u, 0xffffffffu };
	int i;

	/* Relative to the kernel's index: far ahead, just beyond full, behind. */
	for (i = 0; i < 4; i++) {
		uint32_t cons;

		q = to_swr_qp(self->a.c.qp);
		cons = atomic_load(&q->sq.ring->cons.idx);
		wild[0] = cons + q->sq.num_wqe + 1;
		wild[1] = cons + 0x10000;
		wild[3] = cons - 1;
		atomic_store(&q->sq.ring->prod.idx, wild[i]);
		ASSERT_EQ(0, doorbell(self->a.c.qp));
		EXPECT_EQ(IBV_QPS_ERR,
			  swr_qp_wait_state(self->a.c.qp, IBV_QPS_ERR, 3000))
			TH_LOG("SQ prod 0x%x (cons 0x%x)", wild[i], cons);
		good_pair_works(_metadata, self, (uint8_t)i);
		ASSERT_EQ(0, swr_pair_renew(&self->a));
	}
	EXPECT_LE(bad0 + 4, swr_counter("ring_index_bad"));

	/* The receive queue's producer index: the responder fails. */
	bad0 = swr_counter("ring_index_bad");
	q = to_swr_qp(self->a.s.qp);
	atomic_store(&q->rq.ring->prod.idx,
		     atomic_load(&q->rq.ring->cons.idx) + q->rq.num_wqe + 7);
	ASSERT_EQ(0, swr_post_send1(self->a.c.qp, IBV_WR_SEND, 300,
				    self->b.cbuf, 64, self->b.cmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED));
	EXPECT_NE(IBV_WC_SUCCESS, refused(&self->a, 300, 3000));
	EXPECT_LE(bad0 + 1, swr_counter("ring_index_bad"));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 32768, CANARY));
	/* No bogus receive completion came out of the garbage. */
	EXPECT_NE(1, ibv_poll_cq(self->a.s.rcq, 1, &wc) == 1 &&
		  wc.status == IBV_WC_SUCCESS);
	good_pair_works(_metadata, self, 0x77);
	bystander_stop(_metadata, &self->by);
}

/*
 * The CQ's user-written words: a consumer index ahead of the producer is
 * invalid (the CQ goes to error with CQ_ERR), arm garbage at most makes
 * events.
 */
TEST_F(hostile, cq_indices)
{
	struct swr_cq *cq = to_swr_cq(self->a.c.scq);
	struct ibv_async_event ev;
	struct ibv_wc wc;
	int i;

	/* Arm garbage first: completions still arrive intact. */
	for (i = 0; i < 20; i++) {
		atomic_store(&cq->ring->arm.idx, (uint32_t)(i * 0x9e3779b1u));
		ASSERT_EQ(0, swr_post_send1(self->a.c.qp, IBV_WR_RDMA_WRITE,
					    400 + i, self->b.cbuf, 8,
					    self->b.cmr->lkey,
					    (uintptr_t)self->b.sbuf + 40000,
					    self->b.smr->rkey,
					    IBV_SEND_SIGNALED));
		ASSERT_EQ(1, swr_wait(self->a.c.scq, &wc));
		EXPECT_EQ(400 + i, wc.wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	}

	atomic_store(&cq->ring->cons.idx,
		     atomic_load(&cq->ring->prod.idx) + 0x12345);
	ASSERT_EQ(0, swr_post_send1(self->a.c.qp, IBV_WR_RDMA_WRITE, 500,
				    self->b.cbuf, 8, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf + 40000,
				    self->b.smr->rkey, IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait_async(self->a.ctx, IBV_EVENT_CQ_ERR, &ev, 5000))
		TH_LOG("no CQ_ERR for a consumer index ahead of the producer");
	EXPECT_EQ(self->a.c.scq, ev.element.cq);
	EXPECT_TRUE(atomic_load(&cq->ring->status.idx) &
		    SWROCE_CQ_STATUS_OVERFLOW);
	good_pair_works(_metadata, self, 0x55);
	bystander_stop(_metadata, &self->by);
}

struct scribbler {
	FIXTURE_DATA(hostile) *self;
	atomic_int stop;
	long rounds;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random words over the SQ and RQ mappings and the CQ's user words. */
static void *scribble(void *arg)
{
	struct scribbler *sc = arg;
	struct swr_pair *a = &sc->self->a;
	struct swr_qp *cq = to_swr_qp(a->c.qp), *sq = to_swr_qp(a->s.qp);
	struct swr_cq *ccq = to_swr_cq(a->c.scq), *rcq = to_swr_cq(a->s.rcq);
	uint64_t s = 0x1234567887654321ULL;

	while (!atomic_load(&sc->stop)) {
		uint64_t r = xorshift(&s);
		uint32_t *w;
		size_t n;

		switch (r & 7) {
		case 0:	/* anywhere in the client's SQ mapping */
			n = cq->sq.map_size / 4;
			w = (uint32_t *)cq->sq.ring + (r >> 8) % n;
			break;
		case 1: /* its header words */
			w = &cq->sq.ring->prod.idx;
			break;
		case 2: /* a WQE header: opcode, flags, num_sge, inline_len */
			w = (uint32_t *)(cq->sq.slots + ((r >> 8) %
				cq->sq.num_wqe) * cq->sq.wqe_stride) + 2 +
				((r >> 40) & 1);
			break;
		case 3:
			n = sq->rq.map_size / 4;
			w = (uint32_t *)sq->rq.ring + (r >> 8) % n;
			break;
		case 4:
			w = &sq->rq.ring->prod.idx;
			break;
		case 5:
			w = &ccq->ring->cons.idx;
			break;
		case 6:
			w = &rcq->ring->arm.idx;
			break;
		default:
			w = &cq->sq.ring->prod.idx;
			*w = atomic_load(&cq->sq.ring->cons.idx) +
			     (uint32_t)(r >> 32) % (2 * cq->sq.num_wqe);
			continue;
		}
		*(volatile uint32_t *)w = (uint32_t)(r >> 16);
		sc->rounds++;
	}
	return NULL;
}

/* A thread races the kernel over this process's rings for two seconds. */
TEST_F_TIMEOUT(hostile, racing_scribbler, 120)
{
	struct scribbler sc = { .self = self };
	long long bad0 = swr_counter("wqe_bad") + swr_counter("ring_index_bad");
	long long bad1;
	struct ibv_wc wc[16];
	uint64_t end;
	pthread_t t;
	long posts = 0;

	for (int i = 0; i < 8; i++)
		swr_post_recv1(self->a.s.qp, i, self->b.sbuf + 40000, 64,
			       self->b.smr->lkey);
	ASSERT_EQ(0, pthread_create(&t, NULL, scribble, &sc));
	end = swr_now_ms() + 2000;
	while (swr_now_ms() < end) {
		/* Whatever the provider makes of its corrupted ring. */
		swr_post_send1(self->a.c.qp, posts & 1 ? IBV_WR_SEND :
			       IBV_WR_RDMA_WRITE, posts, self->b.cbuf, 64,
			       self->b.cmr->lkey,
			       (uintptr_t)self->b.sbuf + 40000,
			       self->b.smr->rkey, IBV_SEND_SIGNALED);
		doorbell(self->a.c.qp);
		posts++;
		usleep(500);
	}
	atomic_store(&sc.stop, 1);
	pthread_join(t, NULL);
	/* Whatever sits in the CQ now is kernel-written: readable. */
	(void)ibv_poll_cq(self->a.c.scq, 16, wc);
	bad1 = swr_counter("wqe_bad") + swr_counter("ring_index_bad");
	TH_LOG("%ld posts, %ld scribbles; wqe_bad + ring_index_bad +%lld",
	       posts, sc.rounds, bad1 - bad0);
	EXPECT_LT(bad0, bad1);
	/*
	 * No check of the target memory here: a scribbled WQE may well be
	 * a valid one naming any byte of the MR.
	 */
	good_pair_works(_metadata, self, 0x66);
	/* The abused QPs and CQs go away like any other. */
	swr_pair_destroy_qps(&self->a);
	good_pair_works(_metadata, self, 0x67);
	bystander_stop(_metadata, &self->by);
}

/* A storm of doorbells with nothing posted: each counted, nothing breaks. */
TEST_F(hostile, doorbell_storm)
{
	long long db0 = swr_counter("doorbells"), db1;
	int i;

	/* The bystander rings doorbells of its own: stop it first. */
	bystander_stop(_metadata, &self->by);
	db0 = swr_counter("doorbells");
	for (i = 0; i < 20000; i++)
		ASSERT_EQ(0, doorbell(self->a.c.qp));
	db1 = swr_counter("doorbells");
	EXPECT_EQ(db0 + 20000, db1);
	good_pair_works(_metadata, self, 0x44);
}

TEST_HARNESS_MAIN
