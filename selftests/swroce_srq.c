// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: limits, query/modify of the limit, and posting
 * into the mapped ring (exactly num_wqe WQEs fit; the next is refused with
 * ENOMEM and bad_wr pointing at it; too many SGEs is EINVAL).
 */
#include <stdint.h>

#include "kselftest_harness.h"
#include "swr_test.h"

FIXTURE(srq) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	char buf[4096];
	struct ibv_mr *mr;
};

FIXTURE_SETUP(srq)
{
	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx);
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	/* WQEs name an lkey; without MRs any value is stored as is. */
	self->mr = ibv_reg_mr(self->pd, self->buf, sizeof(self->buf),
			      IBV_ACCESS_LOCAL_WRITE);
}

FIXTURE_TEARDOWN(srq)
{
	if (self->mr)
		ibv_dereg_mr(self->mr);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

static struct ibv_srq *make_srq(struct ibv_pd *pd, uint32_t wr, uint32_t sge,
				uint32_t limit)
{
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = wr, .max_sge = sge, .srq_limit = limit },
	};

	return ibv_create_srq(pd, &a);
}

TEST_F(srq, create_query_modify)
{
	struct ibv_srq_attr qa;
	struct ibv_srq *srq;

	srq = make_srq(self->pd, 100, 4, 0);
	ASSERT_NE(NULL, srq) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ibv_query_srq(srq, &qa));
	EXPECT_LE(100, qa.max_wr);
	EXPECT_LE(4, qa.max_sge);
	EXPECT_EQ(0, qa.srq_limit);

	qa.srq_limit = 10;
	EXPECT_EQ(0, ibv_modify_srq(srq, &qa, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &qa));
	EXPECT_EQ(10, qa.srq_limit);
	/* A limit at or beyond the queue size is meaningless. */
	qa.srq_limit = 1 << 20;
	EXPECT_NE(0, ibv_modify_srq(srq, &qa, IBV_SRQ_LIMIT));
	/* Resizing is not offered (no IBV_DEVICE_SRQ_RESIZE). */
	EXPECT_EQ(0, self->attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE);
	qa.max_wr = 200;
	EXPECT_NE(0, ibv_modify_srq(srq, &qa, IBV_SRQ_MAX_WR));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_F(srq, bad_attrs)
{
	EXPECT_EQ(NULL, make_srq(self->pd, 0, 1, 0));
	EXPECT_EQ(NULL, make_srq(self->pd, self->attr.max_srq_wr + 1, 1, 0));
	EXPECT_EQ(NULL, make_srq(self->pd, 16, 0, 0));
	EXPECT_EQ(NULL, make_srq(self->pd, 16, self->attr.max_srq_sge + 1, 0));
	EXPECT_EQ(NULL, make_srq(self->pd, 16, 1, 16));
}

TEST_F(srq, post_fills_ring)
{
	struct ibv_recv_wr wr[3], *bad;
	struct ibv_sge sge[40];
	struct ibv_srq_attr qa;
	struct ibv_srq *srq;
	uint32_t i;

	srq = make_srq(self->pd, 16, 2, 0);
	ASSERT_NE(NULL, srq);
	ASSERT_EQ(0, ibv_query_srq(srq, &qa));
	memset(sge, 0, sizeof(sge));
	for (i = 0; i < 40; i++) {
		sge[i].addr = (uintptr_t)self->buf;
		sge[i].length = 8;
		sge[i].lkey = self->mr ? self->mr->lkey : 0;
	}
	memset(wr, 0, sizeof(wr));
	wr[0].sg_list = sge;
	wr[0].num_sge = 1;
	for (i = 0; i < qa.max_wr; i++) {
		wr[0].wr_id = i;
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &wr[0], &bad))
			TH_LOG("WQE %u of %u", i, qa.max_wr);
	}
	/* Full: nothing consumes yet. The failing WR is reported. */
	bad = NULL;
	EXPECT_EQ(ENOMEM, ibv_post_srq_recv(srq, &wr[0], &bad));
	EXPECT_EQ(&wr[0], bad);
	EXPECT_EQ(0, ibv_destroy_srq(srq));

	/* Too many SGEs fails that WR and stops the chain there. */
	srq = make_srq(self->pd, 16, 2, 0);
	ASSERT_NE(NULL, srq);
	ASSERT_EQ(0, ibv_query_srq(srq, &qa));
	wr[0].next = &wr[1];
	wr[1].sg_list = sge;
	wr[1].num_sge = qa.max_sge + 1;
	wr[1].next = &wr[2];
	wr[2].sg_list = sge;
	wr[2].num_sge = 1;
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_srq_recv(srq, &wr[0], &bad));
	EXPECT_EQ(&wr[1], bad);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_F(srq, churn)
{
	enum { HELD = 100 };
	struct ibv_srq *srqs[HELD];
	int i;

	for (i = 0; i < HELD; i++) {
		srqs[i] = make_srq(self->pd, 1024, 4, 0);
		ASSERT_NE(NULL, srqs[i]);
	}
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	for (i = 0; i < HELD; i++)
		ASSERT_EQ(0, ibv_destroy_srq(srqs[i]));
}

TEST_HARNESS_MAIN
