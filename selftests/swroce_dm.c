// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory (ibv_alloc_dm): the cap query_device_ex reports and
 * enforces per context, copies to and from a DM (whole 32-bit words
 * inside it), zero-based MRs on a DM (ibv_reg_dm_mr) and the data path
 * through them: a DM as send source, receive target, RDMA WRITE target,
 * RDMA READ source and atomic target, checked byte by byte, with the
 * bytes around each transfer untouched. Across the wire: ibv_rc_pingpong
 * -j in swroce_wire.sh.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define LW	IBV_ACCESS_LOCAL_WRITE
#define ZB	IBV_ACCESS_ZERO_BASED
#define DMSZ	(64 * 1024)
#define CANARY	0xa5

static uint64_t max_dm(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex a = {};

	if (ibv_query_device_ex(ctx, NULL, &a))
		return 0;
	return a.max_dm_size;
}

static struct ibv_dm *dm_alloc(struct ibv_context *ctx, size_t len,
			       uint32_t log_align)
{
	struct ibv_alloc_dm_attr a = { .length = len, .log_align_req = log_align };

	return ibv_alloc_dm(ctx, &a);
}

FIXTURE(dm) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint64_t max;
};

FIXTURE_SETUP(dm)
{
	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", swr_test_dev());
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->max = max_dm(self->ctx);
}

FIXTURE_TEARDOWN(dm)
{
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

TEST_F(dm, reports_a_cap)
{
	EXPECT_EQ(1024 * 1024, self->max);
}

TEST_F(dm, sizes_and_refusals)
{
	struct ibv_alloc_dm_attr a = { .length = 64, .comp_mask = 1 };
	struct ibv_dm *dm;

	/* the smallest, one page, an odd size, the largest */
	for (size_t len = 4; len <= self->max; len = len * 8 + 4) {
		dm = dm_alloc(self->ctx, len, 0);
		ASSERT_NE(NULL, dm) TH_LOG("%zu bytes: %s", len, strerror(errno));
		EXPECT_EQ(0, ibv_free_dm(dm));
	}
	dm = dm_alloc(self->ctx, self->max, 6);
	ASSERT_NE(NULL, dm) TH_LOG("max_dm_size, 64-byte aligned: %s",
				   strerror(errno));
	EXPECT_EQ(0, ibv_free_dm(dm));

	errno = 0;
	EXPECT_EQ(NULL, dm_alloc(self->ctx, self->max + 1, 0));
	EXPECT_NE(0, errno);
	errno = 0;
	EXPECT_EQ(NULL, dm_alloc(self->ctx, 0, 0));
	EXPECT_NE(0, errno);
	/* beyond a page: a DM starts on a page, no more */
	errno = 0;
	EXPECT_EQ(NULL, dm_alloc(self->ctx, 64, 13));
	EXPECT_NE(0, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_dm(self->ctx, &a));
	EXPECT_EQ(EINVAL, errno);
}

/* max_dm_size is what one context holds in all; another has its own. */
TEST_F(dm, cap_per_context)
{
	struct ibv_context *ctx2 = swr_open_test_dev();
	struct ibv_dm *half1, *half2, *more, *other;

	ASSERT_NE(NULL, ctx2);
	half1 = dm_alloc(self->ctx, self->max / 2, 0);
	half2 = dm_alloc(self->ctx, self->max / 2, 0);
	ASSERT_NE(NULL, half1);
	ASSERT_NE(NULL, half2);
	errno = 0;
	more = dm_alloc(self->ctx, 4, 0);
	EXPECT_EQ(NULL, more);
	EXPECT_EQ(ENOMEM, errno);

	other = dm_alloc(ctx2, self->max, 0);
	EXPECT_NE(NULL, other) TH_LOG("second context: %s", strerror(errno));

	/* what is freed can be allocated again */
	EXPECT_EQ(0, ibv_free_dm(half2));
	more = dm_alloc(self->ctx, self->max / 2, 0);
	EXPECT_NE(NULL, more);
	if (more)
		ibv_free_dm(more);
	if (other)
		ibv_free_dm(other);
	ibv_free_dm(half1);
	/* closing a context with a DM still allocated frees it */
	other = dm_alloc(ctx2, self->max, 0);
	EXPECT_NE(NULL, other);
	EXPECT_EQ(0, ibv_close_device(ctx2));
}

TEST_F(dm, copies)
{
	uint8_t *in = malloc(DMSZ), *out = malloc(DMSZ);
	struct ibv_dm *dm = dm_alloc(self->ctx, DMSZ, 0);

	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, dm);

	/* a new DM reads as zeroes: nobody's old data */
	memset(out, 0xff, DMSZ);
	ASSERT_EQ(0, ibv_memcpy_from_dm(out, dm, 0, DMSZ));
	EXPECT_EQ(-1, swr_check_byte(out, DMSZ, 0));

	swr_fill(in, DMSZ, 7);
	ASSERT_EQ(0, ibv_memcpy_to_dm(dm, 0, in, DMSZ));
	memset(out, 0, DMSZ);
	ASSERT_EQ(0, ibv_memcpy_from_dm(out, dm, 0, DMSZ));
	EXPECT_EQ(-1, swr_check(out, DMSZ, 7));

	/* a part in the middle; the words around it keep their bytes */
	memset(in, 0x3c, 1000);
	ASSERT_EQ(0, ibv_memcpy_to_dm(dm, 4096 - 500, in, 1000));
	ASSERT_EQ(0, ibv_memcpy_from_dm(out, dm, 0, DMSZ));
	EXPECT_EQ(-1, swr_check(out, 4096 - 500, 7));
	EXPECT_EQ(-1, swr_check_byte(out + 4096 - 500, 1000, 0x3c));
	swr_fill(in, DMSZ, 7);
	EXPECT_EQ(0, memcmp(out + 4096 + 500, in + 4096 + 500,
			    DMSZ - 4096 - 500));

	/* whole words inside the DM, nothing else */
	EXPECT_EQ(EINVAL, ibv_memcpy_to_dm(dm, 1, in, 4));
	EXPECT_EQ(EINVAL, ibv_memcpy_to_dm(dm, 4, in, 3));
	EXPECT_EQ(EINVAL, ibv_memcpy_to_dm(dm, DMSZ, in, 4));
	EXPECT_EQ(EINVAL, ibv_memcpy_to_dm(dm, DMSZ - 4, in, 8));
	EXPECT_EQ(EINVAL, ibv_memcpy_to_dm(dm, UINT64_MAX - 3, in, 8));
	EXPECT_EQ(EINVAL, ibv_memcpy_from_dm(out, dm, 2, 4));
	EXPECT_EQ(EINVAL, ibv_memcpy_from_dm(out, dm, 0, DMSZ + 4));
	EXPECT_EQ(0, ibv_memcpy_to_dm(dm, DMSZ - 4, in, 4));
	EXPECT_EQ(0, ibv_memcpy_to_dm(dm, 0, in, 0));

	EXPECT_EQ(0, ibv_free_dm(dm));
	free(in);
	free(out);
}

TEST_F(dm, registration)
{
	struct ibv_dm *dm = dm_alloc(self->ctx, DMSZ, 0);
	struct ibv_mr *mr, *mr2;

	ASSERT_NE(NULL, dm);
	/* zero-based only, as ibv_reg_dm_mr(3) requires */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_dm_mr(self->pd, dm, 0, DMSZ, LW));
	EXPECT_NE(0, errno);
	/* inside the DM only */
	EXPECT_EQ(NULL, ibv_reg_dm_mr(self->pd, dm, 0, DMSZ + 4, ZB | LW));
	EXPECT_EQ(NULL, ibv_reg_dm_mr(self->pd, dm, 8, DMSZ, ZB | LW));
	EXPECT_EQ(NULL, ibv_reg_dm_mr(self->pd, dm, DMSZ + 4, 4, ZB | LW));
	/* remote write needs local write */
	EXPECT_EQ(NULL, ibv_reg_dm_mr(self->pd, dm, 0, DMSZ,
				      ZB | IBV_ACCESS_REMOTE_WRITE));

	mr = ibv_reg_dm_mr(self->pd, dm, 0, DMSZ, ZB | LW);
	ASSERT_NE(NULL, mr) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(NULL, mr->addr);
	EXPECT_EQ(DMSZ, mr->length);
	EXPECT_EQ(mr->lkey, mr->rkey);
	mr2 = ibv_reg_dm_mr(self->pd, dm, 4096, 100, ZB | SWR_ALL_ACCESS);
	ASSERT_NE(NULL, mr2);
	EXPECT_NE(mr->lkey, mr2->lkey);

	/* an MR holds its DM */
	EXPECT_EQ(EBUSY, ibv_free_dm(dm));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(EBUSY, ibv_free_dm(dm));
	EXPECT_EQ(0, ibv_dereg_mr(mr2));
	EXPECT_EQ(0, ibv_free_dm(dm));
}

/* The data path through DM MRs, between two QPs of the device. */
FIXTURE(dmqp) {
	struct swr_pair p;
	struct swr_bufs b;
	struct ibv_dm *dm;	/* the server's */
	struct ibv_mr *dmr;	/* all of it, zero-based, all access */
	uint8_t *out;
};

FIXTURE_SETUP(dmqp)
{
	int ret = swr_pair_open(&self->p);

	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_bufs_init(&self->b, self->p.pd, DMSZ, SWR_ALL_ACCESS);
	ASSERT_EQ(0, ret);
	self->dm = dm_alloc(self->p.ctx, DMSZ, 0);
	ASSERT_NE(NULL, self->dm);
	self->dmr = ibv_reg_dm_mr(self->p.pd, self->dm, 0, DMSZ,
				  ZB | SWR_ALL_ACCESS);
	ASSERT_NE(NULL, self->dmr);
	self->out = malloc(DMSZ);
	ASSERT_NE(NULL, self->out);
	swr_t_create(_metadata, &self->p, NULL);
}

FIXTURE_TEARDOWN(dmqp)
{
	swr_pair_destroy_qps(&self->p);
	if (self->dmr)
		ibv_dereg_mr(self->dmr);
	if (self->dm)
		ibv_free_dm(self->dm);
	free(self->out);
	swr_bufs_fini(&self->b);
	swr_pair_close(&self->p);
}

/* Fill the whole DM with the canary. */
static int dm_canary(struct ibv_dm *dm, uint8_t *tmp)
{
	memset(tmp, CANARY, DMSZ);
	return ibv_memcpy_to_dm(dm, 0, tmp, DMSZ);
}

/* The DM as it is now, into @out. */
static int dm_read(struct ibv_dm *dm, uint8_t *out)
{
	return ibv_memcpy_from_dm(out, dm, 0, DMSZ);
}

TEST_F(dmqp, send_from_and_recv_into_dm)
{
	struct swr_pair *p = &self->p;
	struct ibv_wc wc;
	uint32_t off = 4000, len = 9000;

	/* receive into the DM: bytes [off, off + len) of it */
	ASSERT_EQ(0, dm_canary(self->dm, self->out));
	swr_fill(self->b.cbuf, DMSZ, 11);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1, (void *)(uintptr_t)off, len,
				    self->dmr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 2, self->b.cbuf,
				    len, self->b.cmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(len, wc.byte_len);
	ASSERT_EQ(0, dm_read(self->dm, self->out));
	EXPECT_EQ(-1, swr_check_byte(self->out, off, CANARY));
	EXPECT_EQ(-1, swr_check(self->out + off, len, 11));
	EXPECT_EQ(-1, swr_check_byte(self->out + off + len,
				     DMSZ - off - len, CANARY));

	/* and send from it back: the server's DM bytes reach the client */
	memset(self->b.cbuf, 0, DMSZ);
	ASSERT_EQ(0, swr_post_recv1(p->c.qp, 3, self->b.cbuf, DMSZ,
				    self->b.cmr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->s.qp, IBV_WR_SEND, 4,
				    (void *)(uintptr_t)off, len,
				    self->dmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->s.scq, 4, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.rcq, 3, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(len, wc.byte_len);
	EXPECT_EQ(-1, swr_check(self->b.cbuf, len, 11));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf + len, DMSZ - len, 0));
}

TEST_F(dmqp, rdma_write_read_atomic_on_dm)
{
	struct swr_pair *p = &self->p;
	uint64_t word, orig;
	uint32_t off = 100, len = 20000;

	/* RDMA WRITE into the DM at a zero-based offset */
	ASSERT_EQ(0, dm_canary(self->dm, self->out));
	swr_fill(self->b.cbuf, DMSZ, 23);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 1,
				    self->b.cbuf, len, self->b.cmr->lkey,
				    off, self->dmr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_SUCCESS, NULL);
	ASSERT_EQ(0, dm_read(self->dm, self->out));
	EXPECT_EQ(-1, swr_check_byte(self->out, off, CANARY));
	EXPECT_EQ(-1, swr_check(self->out + off, len, 23));
	EXPECT_EQ(-1, swr_check_byte(self->out + off + len,
				     DMSZ - off - len, CANARY));

	/* RDMA READ it back from the DM */
	memset(self->b.cbuf, 0, DMSZ);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 2,
				    self->b.cbuf, len, self->b.cmr->lkey,
				    off, self->dmr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(self->b.cbuf, len, 23));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf + len, DMSZ - len, 0));

	/* fetch-and-add on a DM word */
	word = 1000;
	ASSERT_EQ(0, ibv_memcpy_to_dm(self->dm, 8, &word, 8));
	ASSERT_EQ(0, swr_post_fetch_add(p->c.qp, 3, self->b.cbuf,
					self->b.cmr->lkey, 8, self->dmr->rkey,
					24));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	memcpy(&orig, self->b.cbuf, 8);
	EXPECT_EQ(1000, orig);
	ASSERT_EQ(0, ibv_memcpy_from_dm(&word, self->dm, 8, 8));
	EXPECT_EQ(1024, word);
}

/* Zero-based: an address past the MR's length is outside it. */
TEST_F(dmqp, bounds_and_access)
{
	struct swr_pair *p = &self->p;
	struct ibv_mr *ro;

	/* one byte past the end of the DM MR: remote access error */
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 1,
				    self->b.cbuf, 2, self->b.cmr->lkey,
				    DMSZ - 1, self->dmr->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_REM_ACCESS_ERR, NULL);

	/* an MR on the DM without remote write refuses an RDMA WRITE */
	ASSERT_EQ(0, swr_pair_renew(p));
	ro = ibv_reg_dm_mr(p->pd, self->dm, 0, 4096,
			   ZB | LW | IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, ro);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 2,
				    self->b.cbuf, 8, self->b.cmr->lkey,
				    0, ro->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_REM_ACCESS_ERR, NULL);
	EXPECT_EQ(0, ibv_dereg_mr(ro));

	/* a local SGE past the DM MR's end: local protection error */
	ASSERT_EQ(0, swr_pair_renew(p));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 3,
				    (void *)(uintptr_t)(DMSZ - 4), 8,
				    self->dmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_LOC_PROT_ERR, NULL);
}

TEST_HARNESS_MAIN
