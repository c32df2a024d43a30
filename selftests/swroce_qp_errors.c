// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs failing as the IBTA says they must: each remote and local
 * error gives its own completion status, puts the QP in the error state
 * and flushes everything behind it (which must then not execute: the
 * target memory is checked byte by byte); RNR retries; the QP state
 * machine; CQ overrun and SRQ limit async events. Successful traffic is
 * in swroce_qp.c.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		(64 * 1024)
#define CANARY		0xa5

FIXTURE(err) {
	struct swr_pair p;
	struct swr_bufs b;
};

FIXTURE_SETUP(err)
{
	int ret = swr_pair_open(&self->p);

	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_bufs_init(&self->b, self->p.pd, BUFSZ, SWR_ALL_ACCESS);
	ASSERT_EQ(0, ret) TH_LOG("buffers: %s", strerror(-ret));
	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, BUFSZ, 0x3c);
}

FIXTURE_TEARDOWN(err)
{
	swr_pair_destroy_qps(&self->p);
	swr_bufs_fini(&self->b);
	swr_pair_close(&self->p);
}

static void post_write(struct __test_metadata *_metadata, struct ibv_qp *qp,
		       uint64_t wr_id, void *src, uint32_t len, uint32_t lkey,
		       void *dst, uint32_t rkey)
{
	ASSERT_EQ(0, swr_post_send1(qp, IBV_WR_RDMA_WRITE, wr_id, src, len,
				    lkey, (uintptr_t)dst, rkey,
				    IBV_SEND_SIGNALED));
}

static void post_atomic(struct __test_metadata *_metadata, struct ibv_qp *qp,
			uint64_t wr_id, void *local, uint32_t lkey,
			uint64_t raddr, uint32_t rkey)
{
	ASSERT_EQ(0, swr_post_fetch_add(qp, wr_id, local, lkey, raddr, rkey, 1));
}

/*
 * The requester's error: the failing WR completes with @status, every WR
 * behind it (already posted, or posted later) with a flush error, and the
 * QP is in the error state. The flushed writes must not land.
 */
static void expect_fatal(struct __test_metadata *_metadata,
			 FIXTURE_DATA(err) *self, uint64_t wr_id,
			 enum ibv_wc_status status)
{
	struct swr_pair *p = &self->p;

	swr_t_wait_wc(_metadata, p->c.scq, wr_id, status, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, wr_id + 1, IBV_WC_WR_FLUSH_ERR, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, wr_id + 2, IBV_WC_WR_FLUSH_ERR, NULL);
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_wait_state(p->c.qp, IBV_QPS_ERR, 2000));
	/* The client's posted receive is flushed too. */
	swr_t_wait_wc(_metadata, p->c.rcq, 900, IBV_WC_WR_FLUSH_ERR, NULL);
	/* Posting in the error state is allowed and flushes at once. */
	post_write(_metadata, p->c.qp, wr_id + 3, self->b.cbuf, 8,
		   self->b.cmr->lkey, self->b.sbuf, self->b.smr->rkey);
	swr_t_wait_wc(_metadata, p->c.scq, wr_id + 3, IBV_WC_WR_FLUSH_ERR, NULL);
	EXPECT_EQ(0, swr_cq_count(p->c.scq, 50));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY))
		TH_LOG("a refused or flushed WR wrote the server's memory");
}

/* A bad WR followed by two good ones in one post, and a client receive. */
static void post_bad_then_good(struct __test_metadata *_metadata,
			       FIXTURE_DATA(err) *self,
			       struct ibv_send_wr *bad_wr)
{
	struct swr_pair *p = &self->p;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr[2], *bad;
	int i;

	ASSERT_EQ(0, swr_post_recv1(p->c.qp, 900, self->b.cbuf, 64,
				    self->b.cmr->lkey));
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		sge[i].addr = (uintptr_t)self->b.cbuf;
		sge[i].length = 100;
		sge[i].lkey = self->b.cmr->lkey;
		wr[i].wr_id = bad_wr->wr_id + 1 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)self->b.sbuf + 1000 * i;
		wr[i].wr.rdma.rkey = self->b.smr->rkey;
	}
	wr[0].next = &wr[1];
	bad_wr->next = &wr[0];
	ASSERT_EQ(0, ibv_post_send(p->c.qp, bad_wr, &bad));
}

static void bad_write(struct __test_metadata *_metadata,
		      FIXTURE_DATA(err) *self, uint64_t raddr, uint32_t rkey,
		      uint32_t lkey, enum ibv_wc_status status)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->b.cbuf, .length = 64, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	post_bad_then_good(_metadata, self, &wr);
	expect_fatal(_metadata, self, 1, status);
}

TEST_F(err, bad_rkey)
{
	swr_t_create(_metadata, &self->p, NULL);
	/* Right index, wrong key byte. */
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf,
		  self->b.smr->rkey ^ 0x80, self->b.cmr->lkey,
		  IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(0, swr_pair_renew(&self->p));
	/* No such key at all. */
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf, 0xffffff00,
		  self->b.cmr->lkey, IBV_WC_REM_ACCESS_ERR);
}

TEST_F(err, out_of_bounds)
{
	swr_t_create(_metadata, &self->p, NULL);
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf + BUFSZ - 63,
		  self->b.smr->rkey, self->b.cmr->lkey, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(0, swr_pair_renew(&self->p));
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf - 1,
		  self->b.smr->rkey, self->b.cmr->lkey, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(0, swr_pair_renew(&self->p));
	/* An address that wraps around the end of the address space. */
	bad_write(_metadata, self, UINT64_MAX - 10, self->b.smr->rkey,
		  self->b.cmr->lkey, IBV_WC_REM_ACCESS_ERR);
}

/* An MR without the remote right the operation needs. */
TEST_F(err, mr_access_violation)
{
	struct swr_pair *p = &self->p;
	struct ibv_mr *ro, *wo;
	uint64_t *word = (uint64_t *)(self->b.sbuf + 4096);

	swr_t_create(_metadata, p, NULL);
	ro = ibv_reg_mr(p->pd, self->b.sbuf, BUFSZ, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ);
	wo = ibv_reg_mr(p->pd, self->b.sbuf, BUFSZ, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, wo);

	/* WRITE through a read-only MR. */
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf, ro->rkey,
		  self->b.cmr->lkey, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(0, swr_pair_renew(p));

	/* READ through a write-only MR: the local buffer stays as it was. */
	memset(self->b.cbuf + 8192, 0x11, 256);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 2,
				    self->b.cbuf + 8192, 64, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf, wo->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_REM_ACCESS_ERR, NULL);
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf + 8192, 256, 0x11));
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_wait_state(p->c.qp, IBV_QPS_ERR, 2000));
	ASSERT_EQ(0, swr_pair_renew(p));

	/* An atomic through an MR without REMOTE_ATOMIC. */
	*word = 7;
	post_atomic(_metadata, p->c.qp, 3, self->b.cbuf, self->b.cmr->lkey,
		    (uintptr_t)word, wo->rkey);
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_REM_ACCESS_ERR, NULL);
	EXPECT_EQ(7, *word);
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dereg_mr(ro));
	EXPECT_EQ(0, ibv_dereg_mr(wo));
}

/* The responder QP lacks the remote right (qp_access_flags). */
TEST_F(err, qp_access_violation)
{
	struct swr_qp_opts o = { .access = IBV_ACCESS_LOCAL_WRITE };
	struct swr_pair *p = &self->p;

	struct ibv_wc wc;
	int i;

	swr_t_create(_metadata, p, &o);
	for (i = 0; i < 3; i++) {
		enum ibv_wr_opcode op = i == 0 ? IBV_WR_RDMA_WRITE :
					i == 1 ? IBV_WR_RDMA_READ :
					IBV_WR_ATOMIC_FETCH_AND_ADD;

		memset(self->b.cbuf, 0x11, 64);
		if (op == IBV_WR_ATOMIC_FETCH_AND_ADD)
			post_atomic(_metadata, p->c.qp, i, self->b.cbuf,
				    self->b.cmr->lkey, (uintptr_t)self->b.sbuf,
				    self->b.smr->rkey);
		else
			ASSERT_EQ(0, swr_post_send1(p->c.qp, op, i, self->b.cbuf,
						    64, self->b.cmr->lkey,
						    (uintptr_t)self->b.sbuf,
						    self->b.smr->rkey,
						    IBV_SEND_SIGNALED));
		ASSERT_EQ(1, swr_wait(p->c.scq, &wc));
		EXPECT_EQ(i, wc.wr_id);
		/*
		 * rxe NAKs an operation the QP does not allow as an invalid
		 * request, hardware as an access error: either, not success.
		 */
		EXPECT_TRUE(wc.status == IBV_WC_REM_ACCESS_ERR ||
			    wc.status == IBV_WC_REM_INV_REQ_ERR)
			TH_LOG("op %d: %s", op, ibv_wc_status_str(wc.status));
		EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY));
		if (op != IBV_WR_RDMA_WRITE)
			EXPECT_EQ(-1, swr_check_byte(self->b.cbuf, 64, 0x11));
		EXPECT_EQ(IBV_QPS_ERR,
			  swr_qp_wait_state(p->c.qp, IBV_QPS_ERR, 2000));
		ASSERT_EQ(0, swr_pair_renew(p));
	}
}

TEST_F(err, bad_lkey)
{
	struct swr_pair *p = &self->p;
	struct ibv_pd *pd2;
	struct ibv_mr *other;

	swr_t_create(_metadata, p, NULL);
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf, self->b.smr->rkey,
		  self->b.cmr->lkey + 1, IBV_WC_LOC_PROT_ERR);
	ASSERT_EQ(0, swr_pair_renew(p));

	/* The key of an MR in another PD. */
	pd2 = ibv_alloc_pd(p->ctx);
	ASSERT_NE(NULL, pd2);
	other = ibv_reg_mr(pd2, self->b.cbuf, BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, other);
	bad_write(_metadata, self, (uintptr_t)self->b.sbuf, self->b.smr->rkey,
		  other->lkey, IBV_WC_LOC_PROT_ERR);
	ASSERT_EQ(0, swr_pair_renew(p));

	/* A READ whose sink is not locally writable. */
	EXPECT_EQ(0, ibv_dereg_mr(other));
	other = ibv_reg_mr(p->pd, self->b.cbuf, BUFSZ, 0);
	ASSERT_NE(NULL, other);
	memset(self->b.cbuf, 0x11, 64);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 5, self->b.cbuf,
				    64, other->lkey, (uintptr_t)self->b.sbuf,
				    self->b.smr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 5, IBV_WC_LOC_PROT_ERR, NULL);
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf, 64, 0x11));
	EXPECT_EQ(0, ibv_dereg_mr(other));
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
}

/* A receive too small: LOC_LEN_ERR at the responder, REM_INV_REQ_ERR back. */
TEST_F(err, recv_too_small)
{
	struct swr_pair *p = &self->p;

	swr_t_create(_metadata, p, NULL);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 50, self->b.sbuf, 16,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 51, self->b.cbuf, 64,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->s.rcq, 50, IBV_WC_LOC_LEN_ERR, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 51, IBV_WC_REM_INV_REQ_ERR, NULL);
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_wait_state(p->c.qp, IBV_QPS_ERR, 2000));
	/* Nothing beyond the receive buffer was written. */
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 16, BUFSZ - 16, CANARY));
}

/* A receive whose buffer the lkey does not cover. */
TEST_F(err, recv_bad_lkey)
{
	struct swr_pair *p = &self->p;

	swr_t_create(_metadata, p, NULL);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 60, self->b.sbuf, 256,
				    self->b.smr->lkey ^ 0x40));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 61, self->b.cbuf, 64,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->s.rcq, 60, IBV_WC_LOC_PROT_ERR, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 61, IBV_WC_REM_OP_ERR, NULL);
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY));
}

TEST_F(err, rnr_retry_exceeded)
{
	struct swr_qp_opts o = { .rnr_retry = 0 };
	struct swr_pair *p = &self->p;

	swr_t_create(_metadata, p, &o);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 1, self->b.cbuf, 64,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_RNR_RETRY_EXC_ERR, NULL);
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_wait_state(p->c.qp, IBV_QPS_ERR, 2000));

	/* A few retries, still no receive. */
	o.rnr_retry = 3;
	swr_pair_destroy_qps(p);
	swr_t_create(_metadata, p, &o);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 2, self->b.cbuf, 64,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_RNR_RETRY_EXC_ERR, NULL);
}

/* rnr_retry 7 retries for ever: a receive posted late still gets the data. */
TEST_F(err, rnr_retry_infinite)
{
	struct swr_qp_opts o = { .rnr_retry = 7 };
	struct swr_pair *p = &self->p;
	struct ibv_wc wc;

	swr_t_create(_metadata, p, &o);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 1, self->b.cbuf + 7,
				    3000, self->b.cmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED));
	usleep(50000);
	EXPECT_EQ(0, swr_cq_count(p->c.scq, 10));
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 2, self->b.sbuf, 4096,
				    self->b.smr->lkey));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 2, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(3000, wc.byte_len);
	EXPECT_EQ(0, memcmp(self->b.sbuf, self->b.cbuf + 7, 3000));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 3000, BUFSZ - 3000, CANARY));
}

/* An atomic on an address that is not 8-byte aligned: invalid request. */
TEST_F(err, atomic_misaligned)
{
	struct swr_pair *p = &self->p;
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->b.cbuf, .length = 8,
		.lkey = self->b.cmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
	};

	struct ibv_send_wr *bad;
	int ret;

	swr_t_create(_metadata, p, NULL);
	wr.wr.atomic.remote_addr = (uintptr_t)self->b.sbuf + 1;
	wr.wr.atomic.rkey = self->b.smr->rkey;
	wr.wr.atomic.compare_add = 1;
	/*
	 * The provider may refuse it at post time (the kernel's own check
	 * is in swroce_hostile.c); if it posts, the responder refuses it.
	 */
	ret = ibv_post_send(p->c.qp, &wr, &bad);
	if (ret) {
		EXPECT_EQ(EINVAL, ret);
		EXPECT_EQ(&wr, bad);
		EXPECT_EQ(0, swr_cq_count(p->c.scq, 50));
		EXPECT_EQ(IBV_QPS_RTS, swr_qp_state(p->c.qp));
	} else {
		swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_REM_INV_REQ_ERR, NULL);
	}
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY));
	EXPECT_EQ(-1, swr_check(self->b.cbuf, 8, 0x3c));
}

/* After a fatal error the rest of the queue flushes, then the QP recovers. */
TEST_F(err, modify_to_err_flushes_and_reset_recovers)
{
	struct swr_pair *p = &self->p;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int i;

	swr_t_create(_metadata, p, NULL);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 10 + i, self->b.sbuf, 64,
					    self->b.smr->lkey));
	ASSERT_EQ(0, ibv_modify_qp(p->s.qp, &a, IBV_QP_STATE));
	for (i = 0; i < 4; i++)
		swr_t_wait_wc(_metadata, p->s.rcq, 10 + i, IBV_WC_WR_FLUSH_ERR, NULL);
	EXPECT_EQ(0, swr_cq_count(p->s.rcq, 50));
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_state(p->s.qp));

	/* ERR -> RESET -> ... -> RTS: the same QPs work again. */
	a.qp_state = IBV_QPS_RESET;
	ASSERT_EQ(0, ibv_modify_qp(p->s.qp, &a, IBV_QP_STATE));
	ASSERT_EQ(0, ibv_modify_qp(p->c.qp, &a, IBV_QP_STATE));
	EXPECT_EQ(0, swr_cq_count(p->s.rcq, 20));
	ASSERT_EQ(0, swr_pair_connect(p));
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 20, self->b.sbuf, 64,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 21, self->b.cbuf, 64,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 21, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 20, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0, memcmp(self->b.sbuf, self->b.cbuf, 64));
}

/*
 * The state machine: transitions the IBTA does not allow are refused with
 * EINVAL and leave the state as it was; send queues take work only from
 * RTS on, receive queues from INIT on.
 */
TEST_F(err, state_machine)
{
	struct swr_pair *p = &self->p;
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_wc wc;

	cq = ibv_create_cq(p->ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(p->pd, &ia);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(IBV_QPS_RESET, swr_qp_state(qp));

	/* RESET: no sends. */
	EXPECT_NE(0, swr_post_send1(qp, IBV_WR_SEND, 1, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	/* RESET -> RTR and RESET -> RTS skip INIT. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RESET, swr_qp_state(qp));
	/* RESET -> INIT without its required attributes. */
	a.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RESET, swr_qp_state(qp));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	/* An access bit that means nothing (bit 10) is refused. */
	a.qp_access_flags = SWR_ALL_ACCESS | (1u << 10);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE |
					IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(IBV_QPS_RESET, swr_qp_state(qp));
	/*
	 * The FLUSH rights (bits 8 and 9, IBV_ACCESS_FLUSH_GLOBAL and
	 * _PERSISTENT of later rdma-core releases) are granted: rdma-core 57's suite
	 * asks for them on every extended RC QP.
	 */
	a.qp_access_flags = SWR_ALL_ACCESS | (1u << 8) | (1u << 9);
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(IBV_QPS_INIT, swr_qp_state(qp));
	/* INIT: receives yes, sends no. */
	EXPECT_EQ(0, swr_post_recv1(qp, 2, self->b.cbuf, 64, self->b.cmr->lkey));
	EXPECT_NE(0, swr_post_send1(qp, IBV_WR_SEND, 3, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	/* INIT -> RTS skips RTR; INIT -> RTR without the path. */
	a.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_RTR;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_INIT, swr_qp_state(qp));

	/* A real RTR, then back to INIT is not a transition. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->gid;
	a.ah_attr.grh.sgid_index = p->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER));
	EXPECT_EQ(IBV_QPS_RTR, swr_qp_state(qp));
	/* RTR: still no sends. */
	EXPECT_NE(0, swr_post_send1(qp, IBV_WR_SEND, 4, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RTR, swr_qp_state(qp));
	/* Nothing was executed from the refused posts. */
	EXPECT_EQ(0, swr_cq_count(cq, 50));

	/* Any state -> RESET; the receive posted in INIT goes with it. */
	a.qp_state = IBV_QPS_RESET;
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RESET, swr_qp_state(qp));
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* A receive posted in INIT is consumed once the QP is connected. */
TEST_F(err, recv_posted_in_init)
{
	struct swr_pair *p = &self->p;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	swr_t_create(_metadata, p, NULL);
	ASSERT_EQ(0, ibv_modify_qp(p->s.qp, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = SWR_ALL_ACCESS;
	ASSERT_EQ(0, ibv_modify_qp(p->s.qp, &a, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS));
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 30, self->b.sbuf, 256,
				    self->b.smr->lkey));
	a.qp_state = IBV_QPS_RESET;
	ASSERT_EQ(0, ibv_modify_qp(p->c.qp, &a, IBV_QP_STATE));
	ASSERT_EQ(0, swr_qp_connect(p, p->c.qp, p->s.qp->qp_num));
	/* The server goes INIT -> RTR -> RTS by hand from here. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = p->c.qp->qp_num;
	a.rq_psn = 0x1234;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->gid;
	a.ah_attr.grh.sgid_index = p->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	ASSERT_EQ(0, ibv_modify_qp(p->s.qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 31, self->b.cbuf, 200,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 31, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 30, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(200, wc.byte_len);
	EXPECT_EQ(0, memcmp(self->b.sbuf, self->b.cbuf, 200));
}

/* More completions than the CQ holds: IBV_EVENT_CQ_ERR. */
TEST_F(err, cq_overrun_event)
{
	struct swr_qp_opts o = { .cqe = 1, .max_send_wr = 128 };
	struct swr_pair *p = &self->p;
	struct ibv_async_event ev;
	int i, posted = 0, limit;

	swr_t_create(_metadata, p, &o);
	limit = p->c.scq->cqe + 8;
	ASSERT_GE(120, limit) TH_LOG("cqe 1 gave a CQ of %d", p->c.scq->cqe);
	for (i = 0; i < limit; i++)
		if (!swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, i, self->b.cbuf,
				    8, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf, self->b.smr->rkey,
				    IBV_SEND_SIGNALED))
			posted++;
	EXPECT_EQ(limit, posted);
	ASSERT_EQ(1, swr_wait_async(p->ctx, IBV_EVENT_CQ_ERR, &ev,
				    SWR_CQ_TIMEOUT_MS))
		TH_LOG("no CQ_ERR after %d completions into %d slots",
		       posted, p->c.scq->cqe);
	EXPECT_EQ(p->c.scq, ev.element.cq);
}

/* The SRQ limit event fires once fewer WQEs than the limit are left. */
TEST_F(err, srq_limit_event)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct swr_qp_opts o = { 0 };
	struct swr_pair *p = &self->p;
	struct ibv_async_event ev;
	struct ibv_srq_attr lim = { .srq_limit = 4 };
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_srq *srq;
	int i;

	srq = ibv_create_srq(p->pd, &sa);
	ASSERT_NE(NULL, srq);
	o.srq = srq;
	swr_t_create(_metadata, p, &o);
	sge.addr = (uintptr_t)self->b.sbuf;
	sge.length = 256;
	sge.lkey = self->b.smr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < 8; i++) {
		wr.wr_id = 100 + i;
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &wr, &bad));
	}
	ASSERT_EQ(0, ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT));

	/* 8 -> 4 left: not below the limit yet. */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, i,
					    self->b.cbuf, 32, self->b.cmr->lkey,
					    0, 0, IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, NULL);
		swr_t_wait_wc(_metadata, p->s.rcq, 100 + i, IBV_WC_SUCCESS, NULL);
	}
	EXPECT_EQ(0, swr_wait_async(p->ctx, IBV_EVENT_SRQ_LIMIT_REACHED,
				    &ev, 200));
	/* 3 left: the event, for this SRQ, and the limit is disarmed. */
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 4, self->b.cbuf, 32,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->s.rcq, 104, IBV_WC_SUCCESS, NULL);
	ASSERT_EQ(1, swr_wait_async(p->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, &ev,
				    SWR_CQ_TIMEOUT_MS));
	EXPECT_EQ(srq, ev.element.srq);
	ASSERT_EQ(0, ibv_query_srq(srq, &lim));
	EXPECT_EQ(0, lim.srq_limit);
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

/*
 * Destroying a QP with a send waiting on RNR (for ever: rnr_retry 7) does
 * not wait for it. A destroy that did would hang, one that waited for a
 * timer would take seconds: of three destroys, the median takes less than
 * 2 s (so that one a loaded host held up does not decide).
 */
#define RNR_DESTROYS	3

TEST_F(err, destroy_while_rnr_waiting)
{
	struct swr_qp_opts o = { .rnr_retry = 7 };
	struct swr_pair *p = &self->p;
	uint64_t t0, ms[RNR_DESTROYS], t;
	int i, j;

	swr_t_create(_metadata, p, &o);
	for (i = 0; i < RNR_DESTROYS; i++) {
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 1,
					    self->b.cbuf, 64,
					    self->b.cmr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		usleep(20000);
		t0 = swr_now_ms();
		EXPECT_EQ(0, ibv_destroy_qp(p->c.qp));
		p->c.qp = NULL;
		ms[i] = swr_now_ms() - t0;
		/* In order: ms[RNR_DESTROYS / 2] is the median. */
		for (j = i; j > 0 && ms[j - 1] > ms[j]; j--) {
			t = ms[j];
			ms[j] = ms[j - 1];
			ms[j - 1] = t;
		}
		ASSERT_EQ(0, swr_pair_renew(p));
	}
	TH_LOG("destroys took %llu, %llu, %llu ms", (unsigned long long)ms[0],
	       (unsigned long long)ms[1], (unsigned long long)ms[2]);
	EXPECT_GT(2000, ms[RNR_DESTROYS / 2]);
	/* The server still works with a new peer. */
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 2, self->b.sbuf, 64,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 3, self->b.cbuf, 64,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 2, IBV_WC_SUCCESS, NULL);
}

TEST_HARNESS_MAIN
