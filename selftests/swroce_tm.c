// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Tag matching SRQs (IBV_SRQT_TM, ibv_post_srq_ops()): an RC QP on device
 * A sends to an RC QP on device B whose receives come from a tag matching
 * SRQ (Documentation/overview.rst, "Tag matching"):
 *  - list ops (ADD, DEL, SYNC) and their completions, signalled or not;
 *  - an EAGER message matching a tag lands after its TMH in the tag's
 *    buffer, byte by byte, nothing written beyond, and completes
 *    IBV_WC_TM_RECV with TM_MATCH | TM_DATA_VALID, the tag, app_ctx and
 *    the tag's recv_wr_id; tag masks; the oldest matching tag wins;
 *  - an unexpected message lands whole (TMH included) in an ordinary
 *    receive, and matching stays held until a SYNC reports it handled;
 *  - NO_TAG goes to an ordinary receive as IBV_WC_TM_NO_TAG; a message
 *    too short for a TMH is an ordinary IBV_WC_RECV;
 *  - rendezvous: an RNDV message (TMH and RVH) matching a tag completes
 *    TM_MATCH at once; B then READs the RVH's range of A's buffer into the
 *    tag's buffer (byte by byte, nothing beyond) and completes it
 *    TM_DATA_VALID, and A receives a FIN (TMH: opcode FIN, tag, app_ctx)
 *    after its SEND's completion; B's QP has no SQ of its own (max_send_wr
 *    0, as rdma-core's test has it). An RNDV message longer than
 *    max_rndv_hdr_size is unexpected; an RVH longer than the tag's buffer
 *    completes IBV_WC_LOC_LEN_ERR and still FINs; a bad rkey fails the
 *    READ (IBV_WC_REM_ACCESS_ERR) and B's QP goes to error;
 *  - max_num_tags: one more is refused (ENOMEM) until one is deleted;
 *  - bad ops, through libswroce and straight to the kernel's method: bad
 *    lkey, another PD's MR, too many SGEs, unknown opcode or flags,
 *    non-zero reserved fields, a tag deleted twice, a handle never
 *    returned, an unexpected_cnt beyond what was delivered, an SRQ that
 *    is not a tag matching one; a TM SRQ under a UD QP.
 *
 * A and B come from SWR_TM_A and SWR_TM_B (default: the test device for
 * both, the same-device path); selftests/swroce_tm.sh also runs it
 * across a veth between two swroce devices in two namespaces (the wire).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <infiniband/tm_types.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"
#include "swr_uverbs.h"

#define BUFSZ		(64 * 1024)
#define MSG		3000	/* three packets at MTU 1024 */
#define SLOT		8192	/* B's buffer: one receive or tag per slot */
#define CANARY		0x5a
#define NTAGS		8	/* the SRQ's max_num_tags */

static struct ibv_srq *tm_srq_create(struct swr_tdev *d, struct ibv_cq *cq,
				     uint32_t max_tags)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
		.srq_type = IBV_SRQT_TM,
		.pd = d->pd,
		.cq = cq,
		.tm_cap = { .max_num_tags = max_tags, .max_ops = 16 },
	};

	return ibv_create_srq_ex(d->ctx, &a);
}

FIXTURE(tm) {
	struct swr_tdev a, b;
	struct ibv_cq *acq;		/* A: its QP's send and receive CQ */
	struct ibv_cq_ex *bcq;		/* B: the SRQ's and the QP's */
	struct ibv_cq *bscq;		/* B: its QP's send CQ */
	struct ibv_srq *srq;
	struct ibv_qp *aqp, *bqp;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
	struct ibv_pd *opd;		/* another PD of B, with omr */
	struct ibv_mr *omr;
	uint32_t unexp;			/* unexpected messages handled */
	bool wire;			/* A and B are two devices */
};

FIXTURE_SETUP(tm)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 128,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_TM_INFO,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	struct ibv_device_attr_ex da;

	ASSERT_EQ(0, swr_tdev_open(&self->a, swr_env_dev("SWR_TM_A")));
	ASSERT_EQ(0, swr_tdev_open(&self->b, swr_env_dev("SWR_TM_B")));
	self->wire = strcmp(ibv_get_device_name(self->a.ctx->device),
			    ibv_get_device_name(self->b.ctx->device));
	ASSERT_EQ(0, ibv_query_device_ex(self->b.ctx, NULL, &da));
	ASSERT_TRUE(da.tm_caps.flags & IBV_TM_CAP_RC);
	ASSERT_LE(NTAGS, da.tm_caps.max_num_tags);
	ASSERT_EQ(1, da.tm_caps.max_sge);

	self->acq = ibv_create_cq(self->a.ctx, 64, NULL, NULL, 0);
	self->bscq = ibv_create_cq(self->b.ctx, 64, NULL, NULL, 0);
	ASSERT_TRUE(self->acq && self->bscq);
	self->bcq = ibv_create_cq_ex(self->b.ctx, &ca);
	ASSERT_NE(NULL, self->bcq) TH_LOG("CQ with TM_INFO: %s",
					  strerror(errno));
	self->srq = tm_srq_create(&self->b, ibv_cq_ex_to_cq(self->bcq), NTAGS);
	ASSERT_NE(NULL, self->srq) TH_LOG("TM SRQ: %s", strerror(errno));

	qa.send_cq = qa.recv_cq = self->acq;
	self->aqp = ibv_create_qp(self->a.pd, &qa);
	ASSERT_NE(NULL, self->aqp);
	qa.send_cq = self->bscq;
	qa.recv_cq = ibv_cq_ex_to_cq(self->bcq);
	qa.srq = self->srq;
	/* A rendezvous' READ and FIN need no SQ of B's. */
	qa.cap.max_send_wr = 0;
	qa.cap.max_send_sge = 0;
	self->bqp = ibv_create_qp(self->b.pd, &qa);
	ASSERT_NE(NULL, self->bqp) TH_LOG("QP on a TM SRQ: %s",
					  strerror(errno));
	ASSERT_EQ(0, swr_tdev_connect(self->aqp, &self->a, &self->b.gid,
				      self->bqp->qp_num, 12));
	ASSERT_EQ(0, swr_tdev_connect(self->bqp, &self->b, &self->a.gid,
				      self->aqp->qp_num, 12));

	self->abuf = swr_buf_get(self->a.pd, BUFSZ, &self->amr);
	self->bbuf = swr_buf_get(self->b.pd, BUFSZ, &self->bmr);
	ASSERT_TRUE(self->abuf && self->bbuf);
	memset(self->bbuf, CANARY, BUFSZ);
	self->opd = ibv_alloc_pd(self->b.ctx);
	ASSERT_NE(NULL, self->opd);
	self->omr = ibv_reg_mr(self->opd, self->bbuf, BUFSZ, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, self->omr);
}

FIXTURE_TEARDOWN(tm)
{
	if (self->aqp)
		ibv_destroy_qp(self->aqp);
	if (self->bqp)
		ibv_destroy_qp(self->bqp);
	if (self->srq)
		ibv_destroy_srq(self->srq);
	swr_buf_put(self->abuf, BUFSZ, self->amr);
	swr_buf_put(self->bbuf, BUFSZ, self->bmr);
	if (self->omr)
		ibv_dereg_mr(self->omr);
	if (self->opd)
		ibv_dealloc_pd(self->opd);
	if (self->bcq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(self->bcq));
	if (self->bscq)
		ibv_destroy_cq(self->bscq);
	if (self->acq)
		ibv_destroy_cq(self->acq);
	swr_tdev_close(&self->b);
	swr_tdev_close(&self->a);
}

/* One completion of B's extended CQ, with what tag matching adds. */
struct tm_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	unsigned int wc_flags;
	uint32_t byte_len;
	struct ibv_wc_tm_info tm;
};

/* Wait for one completion on @cq: 1, 0 on timeout, or -errno. */
static int tm_poll(struct ibv_cq_ex *cq, struct tm_wc *wc, int ms)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t end = swr_now_ms() + ms;
	int ret;

	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT) {
		if (swr_now_ms() > end)
			return 0;
		sched_yield();
	}
	if (ret)
		return -ret;
	wc->wr_id = cq->wr_id;
	wc->status = cq->status;
	wc->opcode = ibv_wc_read_opcode(cq);
	wc->wc_flags = ibv_wc_read_wc_flags(cq);
	wc->byte_len = ibv_wc_read_byte_len(cq);
	ibv_wc_read_tm_info(cq, &wc->tm);
	ibv_end_poll(cq);
	return 1;
}

/*
 * The next completion of B's CQ must be @opcode for @wr_id, successful,
 * with exactly @flags.
 */
static void tm_expect(struct __test_metadata *_metadata, struct ibv_cq_ex *cq,
		      uint64_t wr_id, enum ibv_wc_opcode opcode,
		      unsigned int flags, struct tm_wc *out)
{
	struct tm_wc wc;

	ASSERT_EQ(1, tm_poll(cq, &wc, SWR_CQ_TIMEOUT_MS))
		TH_LOG("no completion for wr_id %llu", (unsigned long long)wr_id);
	EXPECT_EQ(wr_id, wc.wr_id);
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status)
		TH_LOG("%s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(opcode, wc.opcode);
	EXPECT_EQ(flags, wc.wc_flags);
	if (out)
		*out = wc;
}

static int tm_add(struct ibv_srq *srq, uint64_t wr_id, uint64_t recv_wr_id,
		  uint64_t tag, uint64_t mask, struct ibv_sge *sge, int num_sge,
		  int flags, uint32_t *handle)
{
	struct ibv_ops_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_TAG_ADD, .flags = flags,
	}, *bad;
	int ret;

	wr.tm.add.recv_wr_id = recv_wr_id;
	wr.tm.add.sg_list = sge;
	wr.tm.add.num_sge = num_sge;
	wr.tm.add.tag = tag;
	wr.tm.add.mask = mask;
	ret = ibv_post_srq_ops(srq, &wr, &bad);
	if (!ret && handle)
		*handle = wr.tm.handle;
	return ret;
}

/* A tag whose buffer is slot @slot of B's buffer (SLOT bytes). */
static int tm_add_slot(FIXTURE_DATA(tm) *self, uint64_t recv_wr_id,
		       uint64_t tag, uint64_t mask, int slot, uint32_t *handle)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->bbuf + slot * SLOT, .length = SLOT,
		.lkey = self->bmr->lkey,
	};

	return tm_add(self->srq, 0, recv_wr_id, tag, mask, &sge, 1, 0, handle);
}

static int tm_simple_op(struct ibv_srq *srq, enum ibv_ops_wr_opcode op,
			uint64_t wr_id, int flags, uint32_t handle,
			uint32_t unexpected_cnt)
{
	struct ibv_ops_wr wr = {
		.wr_id = wr_id, .opcode = op, .flags = flags,
	}, *bad;

	wr.tm.handle = handle;
	wr.tm.unexpected_cnt = unexpected_cnt;
	return ibv_post_srq_ops(srq, &wr, &bad);
}

/* An ordinary receive into slot @slot. */
static int srq_recv(FIXTURE_DATA(tm) *self, uint64_t wr_id, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->bbuf + slot * SLOT, .length = SLOT,
		.lkey = self->bmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(self->srq, &wr, &bad);
}

/*
 * A's buffer: pattern @seed, and when @len has room for it a TMH of @op,
 * @app_ctx, @tag (big-endian) first.
 */
static void tm_fill(FIXTURE_DATA(tm) *self, uint8_t op, uint32_t app_ctx,
		    uint64_t tag, uint32_t len, uint8_t seed)
{
	uint32_t be_ctx = htonl(app_ctx);
	uint64_t be_tag = htobe64(tag);

	swr_fill(self->abuf, BUFSZ, seed);
	if (len >= 16) {
		memset(self->abuf, 0, 16);
		self->abuf[0] = op;
		memcpy(self->abuf + 4, &be_ctx, 4);
		memcpy(self->abuf + 8, &be_tag, 8);
	}
}

/*
 * A sends the first @len bytes of its buffer (wr_id 77). Two SGEs, the TMH
 * split across them, so that the responder has to gather the header.
 */
static int tm_post_only(FIXTURE_DATA(tm) *self, uint32_t len)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)self->abuf, .length = len < 10 ? len : 10,
		  .lkey = self->amr->lkey },
		{ .addr = (uintptr_t)self->abuf + 10,
		  .length = len < 10 ? 0 : len - 10, .lkey = self->amr->lkey },
	};
	struct ibv_send_wr wr = {
		.wr_id = 77, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(self->aqp, &wr, &bad);
}

/* tm_post_only(), and its completion. */
static void tm_post(struct __test_metadata *_metadata, FIXTURE_DATA(tm) *self,
		    uint32_t len)
{
	ASSERT_EQ(0, tm_post_only(self, len));
	swr_t_wait_wc(_metadata, self->acq, 77, IBV_WC_SUCCESS, NULL);
}

/* A sends @len bytes: a TMH, then pattern @seed (tm_fill(), tm_post()). */
static void tm_send(struct __test_metadata *_metadata, FIXTURE_DATA(tm) *self,
		    uint8_t op, uint32_t app_ctx, uint64_t tag, uint32_t len,
		    uint8_t seed)
{
	tm_fill(self, op, app_ctx, tag, len, seed);
	tm_post(_metadata, self, len);
}

/* B's CQ has nothing more. */
static void tm_expect_none(struct __test_metadata *_metadata,
			   struct ibv_cq_ex *cq)
{
	struct tm_wc wc;

	EXPECT_EQ(0, tm_poll(cq, &wc, 50))
		TH_LOG("unexpected completion wr_id %llu opcode %d",
		       (unsigned long long)wc.wr_id, wc.opcode);
}

TEST_F(tm, ops_and_completions)
{
	struct ibv_sge sge = { .addr = (uintptr_t)self->bbuf, .length = SLOT,
			       .lkey = self->bmr->lkey };
	uint32_t h1, h2;
	struct tm_wc wc;

	ASSERT_EQ(0, tm_add(self->srq, 1, 101, 5, ~0ULL, &sge, 1,
			    IBV_OPS_SIGNALED, &h1));
	tm_expect(_metadata, self->bcq, 1, IBV_WC_TM_ADD, 0, &wc);
	EXPECT_EQ(0, wc.tm.tag);
	/* Unsignalled: no completion. A buffer may be empty. */
	ASSERT_EQ(0, tm_add(self->srq, 2, 102, 6, ~0ULL, NULL, 0, 0, &h2));
	EXPECT_NE(h1, h2);
	tm_expect_none(_metadata, self->bcq);
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 3,
				  IBV_OPS_SIGNALED, h1, 0));
	tm_expect(_metadata, self->bcq, 3, IBV_WC_TM_DEL, 0, NULL);
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 4, 0, h2, 0));
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 5,
				  IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, 0, 0));
	tm_expect(_metadata, self->bcq, 5, IBV_WC_TM_SYNC, 0, NULL);
	tm_expect_none(_metadata, self->bcq);
}

TEST_F(tm, eager_match)
{
	uint8_t *t2 = self->bbuf + SLOT;
	uint32_t h1, h2;
	struct tm_wc wc;

	ASSERT_EQ(0, tm_add_slot(self, 201, 0x1111, ~0ULL, 0, &h1));
	ASSERT_EQ(0, tm_add_slot(self, 202, 0xabcdef0123456789ULL, ~0ULL, 1,
				 &h2));
	tm_send(_metadata, self, IBV_TMH_EAGER, 0xc0ffee, 0xabcdef0123456789ULL,
		MSG, 7);
	tm_expect(_metadata, self->bcq, 202, IBV_WC_TM_RECV,
		  IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, &wc);
	EXPECT_EQ(MSG - 16, wc.byte_len);
	EXPECT_EQ(0xabcdef0123456789ULL, wc.tm.tag);
	EXPECT_EQ(0xc0ffee, wc.tm.priv);
	/* The payload after the TMH, at the start of the tag's buffer. */
	EXPECT_EQ(0, memcmp(t2, self->abuf + 16, MSG - 16));
	EXPECT_EQ(-1, swr_check_byte(t2 + MSG - 16, SLOT - (MSG - 16), CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, SLOT, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 2 * SLOT, BUFSZ - 2 * SLOT,
				     CANARY));
	/* The matched tag left the list; the other is still there. */
	EXPECT_EQ(ENOENT, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h2, 0));
	EXPECT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h1, 0));
	tm_expect_none(_metadata, self->bcq);
}

TEST_F(tm, masks_and_order)
{
	struct tm_wc wc;

	/* Both match 0x12ab; the older one takes it, the newer the next. */
	ASSERT_EQ(0, tm_add_slot(self, 301, 0x1200, 0xff00, 0, NULL));
	ASSERT_EQ(0, tm_add_slot(self, 302, 0, 0, 1, NULL));
	/* A tag with bits outside its mask matches nothing. */
	ASSERT_EQ(0, tm_add_slot(self, 303, 0x12ab, 0xff00, 2, NULL));
	tm_send(_metadata, self, IBV_TMH_EAGER, 1, 0x12ab, 100, 1);
	tm_expect(_metadata, self->bcq, 301, IBV_WC_TM_RECV,
		  IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, &wc);
	EXPECT_EQ(0x12ab, wc.tm.tag);
	EXPECT_EQ(0, memcmp(self->bbuf, self->abuf + 16, 100 - 16));
	tm_send(_metadata, self, IBV_TMH_EAGER, 2, 0x12ab, 100, 2);
	tm_expect(_metadata, self->bcq, 302, IBV_WC_TM_RECV,
		  IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, &wc);
	EXPECT_EQ(0, memcmp(self->bbuf + SLOT, self->abuf + 16, 100 - 16));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 2 * SLOT, SLOT, CANARY));
}

TEST_F(tm, unexpected_and_sync)
{
	uint8_t *r = self->bbuf + 4 * SLOT;
	struct tm_wc wc;

	ASSERT_EQ(0, srq_recv(self, 401, 4));
	ASSERT_EQ(0, srq_recv(self, 402, 5));
	/* Nothing listed: the message lands whole in a receive. */
	tm_send(_metadata, self, IBV_TMH_EAGER, 3, 0x77, MSG, 3);
	tm_expect(_metadata, self->bcq, 401, IBV_WC_TM_RECV, 0, &wc);
	EXPECT_EQ(MSG, wc.byte_len);
	EXPECT_EQ(0, wc.tm.tag);
	EXPECT_EQ(0, memcmp(r, self->abuf, MSG));
	EXPECT_EQ(-1, swr_check_byte(r + MSG, SLOT - MSG, CANARY));

	/* Listed before the application has seen it: matching is held. */
	ASSERT_EQ(0, tm_add_slot(self, 403, 0x77, ~0ULL, 0, NULL));
	tm_send(_metadata, self, IBV_TMH_EAGER, 4, 0x77, 200, 4);
	tm_expect(_metadata, self->bcq, 402, IBV_WC_TM_RECV, 0, NULL);
	EXPECT_EQ(0, memcmp(r + SLOT, self->abuf, 200));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, SLOT, CANARY));

	/* Two delivered: a count beyond, or behind, is refused. */
	EXPECT_EQ(EINVAL, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 0,
				       IBV_OPS_TM_SYNC, 0, 3));
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 9,
				  IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, 0, 1));
	tm_expect(_metadata, self->bcq, 9, IBV_WC_TM_SYNC, 0, NULL);
	/* One of two handled: still held. */
	ASSERT_EQ(0, srq_recv(self, 404, 6));
	tm_send(_metadata, self, IBV_TMH_EAGER, 5, 0x77, 200, 5);
	tm_expect(_metadata, self->bcq, 404, IBV_WC_TM_RECV, 0, NULL);
	EXPECT_EQ(EINVAL, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 0,
				       IBV_OPS_TM_SYNC, 0, 0));
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 10,
				  IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, 0, 3));
	tm_expect(_metadata, self->bcq, 10, IBV_WC_TM_SYNC, 0, NULL);
	/* In sync: the tag listed all along matches. */
	tm_send(_metadata, self, IBV_TMH_EAGER, 6, 0x77, 200, 6);
	tm_expect(_metadata, self->bcq, 403, IBV_WC_TM_RECV,
		  IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, &wc);
	EXPECT_EQ(0x77, wc.tm.tag);
	EXPECT_EQ(6, wc.tm.priv);
	EXPECT_EQ(0, memcmp(self->bbuf, self->abuf + 16, 200 - 16));
}

TEST_F(tm, no_tag_and_short)
{
	uint8_t *r = self->bbuf + 4 * SLOT;
	struct tm_wc wc;

	ASSERT_EQ(0, tm_add_slot(self, 501, 0x5, ~0ULL, 0, NULL));
	ASSERT_EQ(0, srq_recv(self, 502, 4));
	ASSERT_EQ(0, srq_recv(self, 503, 5));
	/* NO_TAG: never matched, even with a listed tag in the TMH. */
	tm_send(_metadata, self, IBV_TMH_NO_TAG, 1, 0x5, 500, 8);
	tm_expect(_metadata, self->bcq, 502, IBV_WC_TM_NO_TAG, 0, &wc);
	EXPECT_EQ(500, wc.byte_len);
	EXPECT_EQ(0, memcmp(r, self->abuf, 500));
	EXPECT_EQ(-1, swr_check_byte(r + 500, SLOT - 500, CANARY));
	/* Too short for a TMH: an ordinary receive. */
	tm_send(_metadata, self, IBV_TMH_EAGER, 0, 0, 8, 9);
	tm_expect(_metadata, self->bcq, 503, IBV_WC_RECV, 0, &wc);
	EXPECT_EQ(8, wc.byte_len);
	EXPECT_EQ(0, memcmp(r + SLOT, self->abuf, 8));
	/* Neither touched the tag, nor moved the unexpected count. */
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, SLOT, CANARY));
	tm_send(_metadata, self, IBV_TMH_EAGER, 0, 0x5, 64, 10);
	tm_expect(_metadata, self->bcq, 501, IBV_WC_TM_RECV,
		  IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, NULL);
}

/* Rendezvous ------------------------------------------------------------ */

#define RNDV_SRC	4096		/* what B READs: A's buffer from here */
#define FIN_AT		(48 * 1024)	/* A's receives (FINs), 64 bytes each */

/* After the TMH tm_fill() wrote: an RVH for @rlen bytes at RNDV_SRC. */
static void tm_rvh(FIXTURE_DATA(tm) *self, uint32_t rkey, uint32_t rlen)
{
	uint64_t va = htobe64((uintptr_t)self->abuf + RNDV_SRC);
	uint32_t be_rkey = htonl(rkey), be_len = htonl(rlen);

	memcpy(self->abuf + 16, &va, 8);
	memcpy(self->abuf + 24, &be_rkey, 4);
	memcpy(self->abuf + 28, &be_len, 4);
}

/* A's receive number @i, for a FIN. */
static int a_recv(FIXTURE_DATA(tm) *self, uint64_t wr_id, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->abuf + FIN_AT + 64 * i, .length = 64,
		.lkey = self->amr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(self->aqp, &wr, &bad);
}

/*
 * A's two completions of a rendezvous: its SEND's (wr_id 77) and its
 * receive @fin_id's (number @i), a FIN for @tag and @app_ctx. On one
 * device the SEND's comes first, as on mlx5 and as rdma-core's
 * test_tm_rndv polls them. Across the wire A's requester takes the ACK in
 * its poller while its responder takes the FIN in softirq, so the two may
 * come either way round (IBTA orders no send queue's completions against
 * a receive queue's); B sends the FIN only after the ACK.
 */
static void tm_expect_send_fin(struct __test_metadata *_metadata,
			       FIXTURE_DATA(tm) *self, uint64_t fin_id, int i,
			       uint64_t tag, uint32_t app_ctx)
{
	const uint8_t *fin = self->abuf + FIN_AT + 64 * i;
	uint64_t be_tag = htobe64(tag);
	uint32_t be_ctx = htonl(app_ctx);
	struct ibv_wc wc[2], *snd, *f;

	ASSERT_EQ(1, swr_wait(self->acq, &wc[0]));
	ASSERT_EQ(1, swr_wait(self->acq, &wc[1]));
	if (!self->wire)
		EXPECT_EQ(77, wc[0].wr_id);
	snd = wc[0].wr_id == 77 ? &wc[0] : &wc[1];
	f = snd == &wc[0] ? &wc[1] : &wc[0];
	EXPECT_EQ(77, snd->wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, snd->status);
	EXPECT_EQ(fin_id, f->wr_id);
	ASSERT_EQ(IBV_WC_SUCCESS, f->status);
	EXPECT_EQ(IBV_WC_RECV, f->opcode);
	EXPECT_EQ(16, f->byte_len);
	EXPECT_EQ(IBV_TMH_FIN, fin[0]);
	EXPECT_EQ(-1, swr_check_byte(fin + 1, 3, 0));
	EXPECT_EQ(0, memcmp(fin + 4, &be_ctx, 4));
	EXPECT_EQ(0, memcmp(fin + 8, &be_tag, 8));
}

TEST_F(tm, rndv)
{
	struct ibv_device_attr_ex da;
	struct ibv_wc none;
	struct tm_wc wc;
	int i;

	ASSERT_EQ(0, ibv_query_device_ex(self->b.ctx, NULL, &da));
	ASSERT_EQ(64, da.tm_caps.max_rndv_hdr_size);
	for (i = 0; i < 2; i++) {
		/* A 3-packet READ, then one that fills the buffer exactly. */
		uint32_t rlen = i ? SLOT : MSG, ctx = 0xbeef00 + i;
		uint64_t tag = 0x6a1 + i;	/* matches 0x600/~0xff */

		ASSERT_EQ(0, tm_add_slot(self, 601 + i, 0x600, ~0xffULL, 2 + i,
					 NULL));
		ASSERT_EQ(0, a_recv(self, 700 + i, i));
		tm_fill(self, IBV_TMH_RNDV, ctx, tag, 64, 20 + i);
		tm_rvh(self, self->amr->rkey, rlen);
		ASSERT_EQ(0, tm_post_only(self, 64));
		tm_expect(_metadata, self->bcq, 601 + i, IBV_WC_TM_RECV,
			  IBV_WC_TM_MATCH, &wc);
		EXPECT_EQ(tag, wc.tm.tag);
		EXPECT_EQ(ctx, wc.tm.priv);
		tm_expect(_metadata, self->bcq, 601 + i, IBV_WC_TM_RECV,
			  IBV_WC_TM_DATA_VALID, &wc);
		EXPECT_EQ(rlen, wc.byte_len);
		EXPECT_EQ(0, wc.tm.tag);
		EXPECT_EQ(0, memcmp(self->bbuf + (2 + i) * SLOT,
				    self->abuf + RNDV_SRC, rlen));
		tm_expect_send_fin(_metadata, self, 700 + i, i, tag, ctx);
	}
	/* Nothing beyond the READs; nothing of the RNDV messages placed. */
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, 2 * SLOT, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 2 * SLOT + MSG, SLOT - MSG,
				     CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 4 * SLOT, BUFSZ - 4 * SLOT,
				     CANARY));
	tm_expect_none(_metadata, self->bcq);
	/* The device's own READs and FINs complete on no CQ of B's. */
	EXPECT_EQ(0, ibv_poll_cq(self->bscq, 1, &none));
	EXPECT_EQ(IBV_QPS_RTS, swr_qp_state(self->bqp));
}

TEST_F(tm, rndv_malformed)
{
	uint8_t *r = self->bbuf + 4 * SLOT;
	struct tm_wc wc;
	uint32_t h;

	ASSERT_EQ(0, tm_add_slot(self, 611, 0x61, ~0ULL, 0, &h));
	ASSERT_EQ(0, srq_recv(self, 612, 4));
	/* Longer than max_rndv_hdr_size: unexpected, whole in a receive. */
	tm_fill(self, IBV_TMH_RNDV, 1, 0x61, 65, 30);
	tm_rvh(self, self->amr->rkey, 100);
	tm_post(_metadata, self, 65);
	tm_expect(_metadata, self->bcq, 612, IBV_WC_TM_RECV, 0, &wc);
	EXPECT_EQ(65, wc.byte_len);
	EXPECT_EQ(0, memcmp(r, self->abuf, 65));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, SLOT, CANARY));
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 13,
				  IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, 0, 1));
	tm_expect(_metadata, self->bcq, 13, IBV_WC_TM_SYNC, 0, NULL);

	/* An RVH beyond the tag's buffer: no READ, an error, the FIN. */
	ASSERT_EQ(0, a_recv(self, 710, 0));
	tm_fill(self, IBV_TMH_RNDV, 2, 0x61, 32, 31);
	tm_rvh(self, self->amr->rkey, SLOT + 1);
	ASSERT_EQ(0, tm_post_only(self, 32));
	tm_expect(_metadata, self->bcq, 611, IBV_WC_TM_RECV, IBV_WC_TM_MATCH,
		  NULL);
	ASSERT_EQ(1, tm_poll(self->bcq, &wc, SWR_CQ_TIMEOUT_MS));
	EXPECT_EQ(611, wc.wr_id);
	EXPECT_EQ(IBV_WC_LOC_LEN_ERR, wc.status);
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, SLOT, CANARY));
	tm_expect_send_fin(_metadata, self, 710, 0, 0x61, 2);
	/* The tag was consumed. */
	EXPECT_EQ(ENOENT, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h, 0));
	tm_expect_none(_metadata, self->bcq);
}

TEST_F(tm, rndv_bad_rkey)
{
	struct ibv_mr *gone;
	struct ibv_wc awc;
	uint32_t rkey;
	struct tm_wc wc;

	/* The key of a registration that is no more (keys are cyclic). */
	gone = ibv_reg_mr(self->a.pd, self->abuf, 4096, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, gone);
	rkey = gone->rkey;
	ASSERT_EQ(0, ibv_dereg_mr(gone));

	ASSERT_EQ(0, tm_add_slot(self, 621, 0x62, ~0ULL, 0, NULL));
	tm_fill(self, IBV_TMH_RNDV, 3, 0x62, 32, 40);
	tm_rvh(self, rkey, MSG);
	ASSERT_EQ(0, tm_post_only(self, 32));
	tm_expect(_metadata, self->bcq, 621, IBV_WC_TM_RECV, IBV_WC_TM_MATCH,
		  NULL);
	ASSERT_EQ(1, tm_poll(self->bcq, &wc, SWR_CQ_TIMEOUT_MS));
	EXPECT_EQ(621, wc.wr_id);
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, wc.status);
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, SLOT, CANARY));
	/* A failed READ is a failed WQE: B's QP is in error. */
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_wait_state(self->bqp, IBV_QPS_ERR,
						 SWR_CQ_TIMEOUT_MS));
	/*
	 * A's responder moved its QP to error too (a bad rkey). Across the
	 * wire the ACK of the SEND may still wait for A's poller then, and
	 * the SEND is flushed (see tm_expect_send_fin()).
	 */
	ASSERT_EQ(1, swr_wait(self->acq, &awc));
	EXPECT_EQ(77, awc.wr_id);
	if (!self->wire || awc.status != IBV_WC_WR_FLUSH_ERR)
		EXPECT_EQ(IBV_WC_SUCCESS, awc.status);
}

TEST_F(tm, max_num_tags)
{
	uint32_t h[NTAGS], extra;
	int i;

	for (i = 0; i < NTAGS; i++)
		ASSERT_EQ(0, tm_add_slot(self, i, i, ~0ULL, 0, &h[i]));
	EXPECT_EQ(ENOMEM, tm_add_slot(self, 99, 99, ~0ULL, 0, &extra));
	ASSERT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h[3], 0));
	ASSERT_EQ(0, tm_add_slot(self, 99, 99, ~0ULL, 0, &extra));
	/* The slot is reused; the old handle names nothing any more. */
	EXPECT_EQ(ENOENT, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h[3],
				       0));
	EXPECT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, extra, 0));
}

TEST_F(tm, bad_ops)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)self->bbuf, .length = 64,
		  .lkey = self->bmr->lkey },
		{ .addr = (uintptr_t)self->bbuf + 64, .length = 64,
		  .lkey = self->bmr->lkey },
	};
	struct ibv_sge bad_key = sge[0], other_pd = sge[0], too_long = sge[0];
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_ops_wr wr = { .opcode = 7 }, *bad;
	struct ibv_srq *basic;
	uint32_t h;

	bad_key.lkey ^= 0x55aa00;
	other_pd.lkey = self->omr->lkey;
	too_long.length = BUFSZ + 1;
	EXPECT_EQ(EINVAL, tm_add(self->srq, 0, 0, 1, ~0ULL, &bad_key, 1, 0, &h));
	EXPECT_EQ(EINVAL, tm_add(self->srq, 0, 0, 1, ~0ULL, &other_pd, 1, 0,
				 &h));
	EXPECT_EQ(EINVAL, tm_add(self->srq, 0, 0, 1, ~0ULL, &too_long, 1, 0,
				 &h));
	EXPECT_EQ(EINVAL, tm_add(self->srq, 0, 0, 1, ~0ULL, sge, 2, 0, &h));
	EXPECT_EQ(EINVAL, ibv_post_srq_ops(self->srq, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	EXPECT_EQ(EINVAL, tm_add(self->srq, 0, 0, 1, ~0ULL, sge, 1, 1 << 5,
				 &h));
	/* Deleting twice; handles never returned. */
	ASSERT_EQ(0, tm_add(self->srq, 0, 0, 1, ~0ULL, sge, 1, 0, &h));
	EXPECT_EQ(0, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h, 0));
	EXPECT_EQ(ENOENT, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0, h, 0));
	EXPECT_EQ(EINVAL, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0,
				       h + (1 << 16), 0));
	EXPECT_EQ(EINVAL, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0,
				       h & 0xffff, 0));
	EXPECT_EQ(EINVAL, tm_simple_op(self->srq, IBV_WR_TAG_DEL, 0, 0,
				       (1 << 16) | NTAGS, 0));
	/* Nothing unexpected delivered yet. */
	EXPECT_EQ(EINVAL, tm_simple_op(self->srq, IBV_WR_TAG_SYNC, 0,
				       IBV_OPS_TM_SYNC, 0, 1));
	/* None of it completed. */
	tm_expect_none(_metadata, self->bcq);
	/* Ops on an SRQ that is not a tag matching one. */
	basic = ibv_create_srq(self->b.pd, &ba);
	ASSERT_NE(NULL, basic);
	EXPECT_EQ(EINVAL, tm_simple_op(basic, IBV_WR_TAG_SYNC, 0, 0, 0, 0));
	EXPECT_EQ(0, ibv_destroy_srq(basic));
}

/*
 * What the provider does not let through, straight to the kernel: a good
 * ADD with one field spoiled, and the errno it must get.
 */
static const struct {
	const char *what;
	size_t off;	/* of a byte of struct swroce_tm_op, set to 0xff */
	int err;
} raw_bad[] = {
	{ "num_sge 2 and more", offsetof(struct swroce_tm_op, num_sge), EINVAL },
	{ "unknown opcode", offsetof(struct swroce_tm_op, opcode), EINVAL },
	{ "unknown flags", offsetof(struct swroce_tm_op, flags), EINVAL },
	{ "reserved_0", offsetof(struct swroce_tm_op, reserved_0), EINVAL },
	{ "reserved_1", offsetof(struct swroce_tm_op, reserved_1), EINVAL },
	{ "comp_mask", offsetof(struct swroce_tm_op, comp_mask), EOPNOTSUPP },
	{ "lkey", offsetof(struct swroce_tm_op, sge.lkey) + 1, EINVAL },
};

TEST_F(tm, bad_ops_raw)
{
	struct {
		struct swroce_tm_op op;
		uint64_t trailing;
	} c = { .op = {
		.opcode = SWROCE_TM_OP_ADD, .num_sge = 1,
		.sge = { .addr = (uintptr_t)self->bbuf, .length = 64,
			 .lkey = self->bmr->lkey },
	} }, bad;
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct swroce_tm_op_resp resp;
	int fd = self->b.ctx->cmd_fd;
	uint32_t srqh = self->srq->handle;
	struct swroce_tm_op del = { .opcode = SWROCE_TM_OP_DEL };
	size_t n = sizeof(c.op), i;
	struct ibv_srq *basic;

	ASSERT_EQ(0, swr_tm_op_raw(fd, srqh, &c.op, n, &resp));
	del.handle = resp.handle;
	EXPECT_EQ(0, swr_tm_op_raw(fd, srqh, &del, sizeof(del), &resp));
	for (i = 0; i < sizeof(raw_bad) / sizeof(raw_bad[0]); i++) {
		bad = c;
		((uint8_t *)&bad.op)[raw_bad[i].off] = 0xff;
		EXPECT_EQ(-raw_bad[i].err,
			  swr_tm_op_raw(fd, srqh, &bad.op, n, &resp))
			TH_LOG("%s", raw_bad[i].what);
	}
	/* Trailing bytes a newer provider might send: zero only. */
	bad = c;
	bad.trailing = 1;
	EXPECT_NE(0, swr_tm_op_raw(fd, srqh, &bad, sizeof(bad), &resp));
	/* Shorter than the command's last field. */
	EXPECT_NE(0, swr_tm_op_raw(fd, srqh, &c.op, n - 8, &resp));
	/* An SRQ of another type; a handle that is no SRQ. */
	basic = ibv_create_srq(self->b.pd, &ba);
	ASSERT_NE(NULL, basic);
	EXPECT_EQ(-EOPNOTSUPP, swr_tm_op_raw(fd, basic->handle, &c.op, n,
					     &resp));
	EXPECT_EQ(0, ibv_destroy_srq(basic));
	EXPECT_NE(0, swr_tm_op_raw(fd, 0xfffff, &c.op, n, &resp));
	/* Only the first, good ADD and its DEL did anything, unsignalled. */
	tm_expect_none(_metadata, self->bcq);
}

TEST_F(tm, bad_create)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.send_cq = self->bscq,
		.recv_cq = self->bscq,
		.srq = self->srq,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_device_attr_ex da;

	/* Tag matching is for RC QPs. */
	EXPECT_EQ(NULL, ibv_create_qp(self->b.pd, &qa));
	qa.qp_type = IBV_QPT_UC;
	EXPECT_EQ(NULL, ibv_create_qp(self->b.pd, &qa));
	/* More tags than the device has; none at all. */
	ASSERT_EQ(0, ibv_query_device_ex(self->b.ctx, NULL, &da));
	EXPECT_EQ(NULL, tm_srq_create(&self->b, self->bscq,
				      da.tm_caps.max_num_tags + 1));
	EXPECT_EQ(NULL, tm_srq_create(&self->b, self->bscq, 0));
}

TEST_HARNESS_MAIN
