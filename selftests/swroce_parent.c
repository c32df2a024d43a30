// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parent domains and thread domains (ibv_alloc_parent_domain(3),
 * ibv_alloc_td(3)): what is accepted and refused, the reference counts
 * that keep a PD, a TD and a parent domain alive while something uses
 * them, and RC traffic through QPs, an MR and an extended CQ created
 * through a parent domain with a thread domain (no locks in the fast
 * path), checked byte by byte.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ	(64 * 1024)

FIXTURE(par) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_td *td;
};

FIXTURE_SETUP(par)
{
	struct ibv_td_init_attr ta = {};

	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", swr_test_dev());
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->td = ibv_alloc_td(self->ctx, &ta);
	ASSERT_NE(NULL, self->td) TH_LOG("ibv_alloc_td: %s", strerror(errno));
}

FIXTURE_TEARDOWN(par)
{
	if (self->td)
		ibv_dealloc_td(self->td);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

static struct ibv_pd *parent(struct ibv_context *ctx, struct ibv_pd *pd,
			     struct ibv_td *td)
{
	struct ibv_parent_domain_init_attr a = { .pd = pd, .td = td };

	return ibv_alloc_parent_domain(ctx, &a);
}

static void *alloc_cb(struct ibv_pd *pd, void *ctx, size_t size,
		      size_t alignment, uint64_t resource_type)
{
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void free_cb(struct ibv_pd *pd, void *ctx, void *ptr,
		    uint64_t resource_type)
{
}

TEST_F(par, accepted_and_refused)
{
	struct ibv_parent_domain_init_attr a = { .pd = self->pd };
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_pd *p1, *p2;

	/* without and with a thread domain, with a context of ours */
	p1 = parent(self->ctx, self->pd, NULL);
	ASSERT_NE(NULL, p1) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(self->pd->handle, p1->handle);
	a.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	a.pd_context = self;
	a.td = self->td;
	p2 = ibv_alloc_parent_domain(self->ctx, &a);
	ASSERT_NE(NULL, p2) TH_LOG("%s", strerror(errno));

	/* a parent of a parent, no PD, custom allocators */
	errno = 0;
	EXPECT_EQ(NULL, parent(self->ctx, p1, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, parent(self->ctx, NULL, self->td));
	EXPECT_EQ(EINVAL, errno);
	a.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	a.alloc = alloc_cb;
	a.free = free_cb;
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_parent_domain(self->ctx, &a));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_td(self->ctx, &ta));
	EXPECT_EQ(EINVAL, errno);

	/* the PD and the TD are held by their parents */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(EBUSY, ibv_dealloc_td(self->td));
	EXPECT_EQ(0, ibv_dealloc_pd(p2));
	EXPECT_EQ(0, ibv_dealloc_td(self->td));
	self->td = NULL;
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_dealloc_pd(p1));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

static int swr_srq_post1(struct ibv_srq *srq)
{
	static uint8_t buf[64];
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	/* no MR: the receive is checked when a message arrives, not here */
	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* An extended CQ of a parent domain; it holds the parent. */
TEST_F(par, cq_of_a_parent)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq;
	struct ibv_srq *srq;
	struct ibv_pd *p;

	/* a PD is not a parent domain */
	ca.parent_domain = self->pd;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_EQ(EINVAL, errno);

	p = parent(self->ctx, self->pd, self->td);
	ASSERT_NE(NULL, p);
	ca.parent_domain = p;
	cq = ibv_create_cq_ex(self->ctx, &ca);
	ASSERT_NE(NULL, cq) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(ENOENT, ibv_start_poll(cq, &pa));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(p));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));

	/* an SRQ through it holds it too, and takes receives */
	srq = ibv_create_srq(p, &sa);
	ASSERT_NE(NULL, srq) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, swr_srq_post1(srq));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(p));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dealloc_pd(p));
}

/*
 * RC traffic through a parent domain with a thread domain: its QPs post
 * without locks, its MR registers through it, data arrives intact.
 */
TEST_F(par, rc_traffic_through_parent)
{
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_pd *pp;
	struct ibv_wc wc;
	unsigned int i;
	int ret;

	pp = parent(self->ctx, self->pd, self->td);
	ASSERT_NE(NULL, pp);
	p.ctx = self->ctx;
	p.pd = pp;
	p.mtu = IBV_MTU_1024;
	ASSERT_EQ(0, swr_find_gid(p.ctx, true, &p.gid_index, &p.gid));
	ret = swr_pair_create(&p, NULL);
	ASSERT_EQ(0, ret) TH_LOG("QPs through the parent: %s", strerror(-ret));
	ASSERT_EQ(0, swr_bufs_init(&b, pp, BUFSZ, SWR_ALL_ACCESS));

	/* the parent is in use */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pp));

	for (i = 0; i < 20; i++) {
		swr_fill(b.cbuf, BUFSZ, (uint8_t)i);
		ASSERT_EQ(0, swr_post_recv1(p.s.qp, i, b.sbuf, BUFSZ,
					    b.smr->lkey));
		ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_SEND, i, b.cbuf,
					    5000 + i, b.cmr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p.c.scq, i, IBV_WC_SUCCESS, NULL);
		swr_t_wait_wc(_metadata, p.s.rcq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(5000 + i, wc.byte_len);
		EXPECT_EQ(-1, swr_check(b.sbuf, 5000 + i, (uint8_t)i));
	}
	swr_fill(b.cbuf, BUFSZ, 77);
	ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_RDMA_WRITE, 99, b.cbuf,
				    BUFSZ, b.cmr->lkey, (uintptr_t)b.sbuf,
				    b.smr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p.c.scq, 99, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(b.sbuf, BUFSZ, 77));

	swr_pair_destroy_qps(&p);
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
}

TEST_HARNESS_MAIN
