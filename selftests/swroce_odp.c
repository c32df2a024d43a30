// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging (kernel/swr_odp.c): MRs registered with
 * IBV_ACCESS_ON_DEMAND pin nothing; each access finds its pages, and the
 * first access of a page faults it in.
 *  - the device's ODP caps;
 *  - RC SEND, WRITE, READ, fetch-and-add and compare-and-swap between ODP
 *    MRs over fresh memory the device has never touched, byte by byte
 *    (the responder's pages are not even mapped by the process yet);
 *  - a receive through an SRQ into ODP memory; a UD SEND from an ODP MR
 *    (and into one, prefetched);
 *  - an implicit MR (address 0, length SIZE_MAX) on both ends, and an
 *    access beyond the address space through it;
 *  - ibv_advise_mr(): synchronous, asynchronous, NO_FAULT; and bad input:
 *    an unknown lkey, another PD's MR, a non-ODP MR, a range past the
 *    MR's end, too many SGEs, unknown flags;
 *  - the process replaces the mapping under a registered MR (munmap +
 *    mmap at the same address, MADV_DONTNEED): WRITEs land in the new
 *    pages; a WRITE and a READ to a hole of the MR fail with a remote
 *    access error, and nothing else is written.
 *
 * Client and server are devices SWR_ODP_A and SWR_ODP_B (default: the
 * test device for both, the same-device path); selftests/swroce_odp.sh
 * runs it again across a veth between two devices in two namespaces,
 * where the responder's faults are answered with RNR NAKs in softirq.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define PAGE		4096
#define BUFSZ		(16 * PAGE)
#define MSG		(3 * PAGE + 123)	/* several packets and pages */
#define ODP_ACCESS	(SWR_ALL_ACCESS | IBV_ACCESS_ON_DEMAND)

static struct ibv_qp *qp_create(struct swr_tdev *d, struct ibv_cq *cq,
				enum ibv_qp_type type, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = type,
	};

	return ibv_create_qp(d->pd, &a);
}

/* Fresh anonymous memory, never touched by anyone. */
static uint8_t *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE(odp) {
	struct swr_tdev a, b;	/* client, server */
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *qa, *qb;
	struct ibv_srq *srq;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
};

FIXTURE_SETUP(odp)
{
	struct ibv_device_attr_ex attr;
	int ret;

	ret = swr_tdev_open(&self->a, swr_env_dev("SWR_ODP_A"));
	ASSERT_EQ(0, ret) TH_LOG("device A: %s", strerror(-ret));
	ret = swr_tdev_open(&self->b, swr_env_dev("SWR_ODP_B"));
	ASSERT_EQ(0, ret) TH_LOG("device B: %s", strerror(-ret));
	self->acq = ibv_create_cq(self->a.ctx, 64, NULL, NULL, 0);
	self->bcq = ibv_create_cq(self->b.ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, self->acq);
	ASSERT_NE(NULL, self->bcq);
	ASSERT_EQ(0, ibv_query_device_ex(self->a.ctx, NULL, &attr));
	if (!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT))
		SKIP(return, "no ODP");
	self->abuf = fresh(BUFSZ);
	self->bbuf = fresh(BUFSZ);
	ASSERT_NE(NULL, self->abuf);
	ASSERT_NE(NULL, self->bbuf);
	self->amr = ibv_reg_mr(self->a.pd, self->abuf, BUFSZ, ODP_ACCESS);
	ASSERT_NE(NULL, self->amr) TH_LOG("reg ODP: %s", strerror(errno));
	self->bmr = ibv_reg_mr(self->b.pd, self->bbuf, BUFSZ, ODP_ACCESS);
	ASSERT_NE(NULL, self->bmr) TH_LOG("reg ODP: %s", strerror(errno));
}

FIXTURE_TEARDOWN(odp)
{
	if (self->qa)
		ibv_destroy_qp(self->qa);
	if (self->qb)
		ibv_destroy_qp(self->qb);
	if (self->srq)
		ibv_destroy_srq(self->srq);
	if (self->amr)
		ibv_dereg_mr(self->amr);
	if (self->bmr)
		ibv_dereg_mr(self->bmr);
	if (self->abuf)
		munmap(self->abuf, BUFSZ);
	if (self->bbuf)
		munmap(self->bbuf, BUFSZ);
	if (self->acq)
		ibv_destroy_cq(self->acq);
	if (self->bcq)
		ibv_destroy_cq(self->bcq);
	swr_tdev_close(&self->a);
	swr_tdev_close(&self->b);
}

/* Connect an RC pair; the server's QP takes its receives from @srq. */
static void rc_pair(struct __test_metadata *_metadata,
		    FIXTURE_DATA(odp) *self, bool srq)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 2 } };

	if (srq) {
		self->srq = ibv_create_srq(self->b.pd, &sa);
		ASSERT_NE(NULL, self->srq);
	}
	self->qa = qp_create(&self->a, self->acq, IBV_QPT_RC, NULL);
	self->qb = qp_create(&self->b, self->bcq, IBV_QPT_RC, self->srq);
	ASSERT_NE(NULL, self->qa);
	ASSERT_NE(NULL, self->qb);
	ASSERT_EQ(0, swr_tdev_connect(self->qa, &self->a, &self->b.gid,
				      self->qb->qp_num, 1));
	ASSERT_EQ(0, swr_tdev_connect(self->qb, &self->b, &self->a.gid,
				      self->qa->qp_num, 1));
}

static int post_recv(struct ibv_qp *qp, struct ibv_srq *srq, uint64_t wr_id,
		     void *buf, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return srq ? ibv_post_srq_recv(srq, &wr, &bad) :
		     ibv_post_recv(qp, &wr, &bad);
}

/* A completion for @wr_id with @status on @cq (any order of the two). */
static void wait_wc(struct __test_metadata *_metadata, struct ibv_cq *cq,
		    uint64_t wr_id, enum ibv_wc_status status)
{
	swr_t_wait_wc(_metadata, cq, wr_id, status, NULL);
}

TEST_F(odp, caps)
{
	struct ibv_device_attr_ex attr;
	uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		      IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		      IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;

	ASSERT_EQ(0, ibv_query_device_ex(self->a.ctx, NULL, &attr));
	EXPECT_EQ(IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT,
		  attr.odp_caps.general_caps);
	EXPECT_EQ(rc, attr.odp_caps.per_transport_caps.rc_odp_caps);
	EXPECT_EQ(rc, attr.xrc_odp_caps);
	EXPECT_EQ(IBV_ODP_SUPPORT_SEND,
		  attr.odp_caps.per_transport_caps.ud_odp_caps);
	EXPECT_EQ(0, attr.odp_caps.per_transport_caps.uc_odp_caps);
}

/* SEND into an RQ or an SRQ: the receive buffer is not even mapped yet. */
static void send_test(struct __test_metadata *_metadata,
		      FIXTURE_DATA(odp) *self, bool srq)
{
	rc_pair(_metadata, self, srq);
	swr_fill(self->abuf, MSG, 11);
	ASSERT_EQ(0, post_recv(self->qb, self->srq, 2, self->bbuf + 100,
			       MSG, self->bmr->lkey));
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_SEND, 1, self->abuf, MSG,
				    self->amr->lkey, 0, 0, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 1, IBV_WC_SUCCESS);
	wait_wc(_metadata, self->bcq, 2, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(self->bbuf + 100, MSG, 11));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, 100, 0));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 100 + MSG,
				     BUFSZ - 100 - MSG, 0));
}

TEST_F(odp, rc_send)
{
	send_test(_metadata, self, false);
}

TEST_F(odp, srq_send)
{
	send_test(_metadata, self, true);
}

TEST_F(odp, rc_write_read)
{
	rc_pair(_metadata, self, false);
	swr_fill(self->abuf, MSG, 21);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, 1, self->abuf,
				    MSG, self->amr->lkey,
				    (uintptr_t)self->bbuf + 7, self->bmr->rkey,
				    IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 1, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(self->bbuf + 7, MSG, 21));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 7 + MSG,
				     BUFSZ - 7 - MSG, 0));

	/* READ into a part of the client's MR nothing has touched. */
	swr_fill(self->bbuf + 8 * PAGE, MSG, 22);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_READ, 2,
				    self->abuf + 8 * PAGE, MSG, self->amr->lkey,
				    (uintptr_t)self->bbuf + 8 * PAGE,
				    self->bmr->rkey, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 2, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(self->abuf + 8 * PAGE, MSG, 22));
}

TEST_F(odp, atomics)
{
	uint64_t *target = (uint64_t *)(self->bbuf + 5 * PAGE);
	uint64_t *orig = (uint64_t *)(self->abuf + 6 * PAGE);
	struct ibv_sge sge = {
		.addr = (uintptr_t)orig, .length = 8, .lkey = self->amr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	rc_pair(_metadata, self, false);
	/* Both pages fresh: the target reads 0, the result lands in ODP. */
	ASSERT_EQ(0, swr_post_fetch_add(self->qa, 1, orig, self->amr->lkey,
					(uintptr_t)target, self->bmr->rkey,
					5));
	wait_wc(_metadata, self->acq, 1, IBV_WC_SUCCESS);
	EXPECT_EQ(0, *orig);
	EXPECT_EQ(5, *target);

	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = self->bmr->rkey;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 0x1122334455667788ULL;
	ASSERT_EQ(0, ibv_post_send(self->qa, &wr, &bad));
	wait_wc(_metadata, self->acq, 2, IBV_WC_SUCCESS);
	EXPECT_EQ(5, *orig);
	EXPECT_EQ(0x1122334455667788ULL, *target);
}

/* UD: SEND from an ODP MR; into one once it is prefetched. */
TEST_F(odp, ud_send)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = SWR_QKEY };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_sge sge = { .length = 500, .lkey = self->amr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_sge rs = { .addr = (uintptr_t)self->bbuf,
			      .length = 40 + 500, .lkey = self->bmr->lkey };
	struct ibv_qp *q[2];
	struct ibv_ah *ah;
	int i;

	q[0] = self->qa = qp_create(&self->a, self->acq, IBV_QPT_UD, NULL);
	q[1] = self->qb = qp_create(&self->b, self->bcq, IBV_QPT_UD, NULL);
	ASSERT_NE(NULL, q[0]);
	ASSERT_NE(NULL, q[1]);
	for (i = 0; i < 2; i++) {
		qa.qp_state = IBV_QPS_INIT;
		ASSERT_EQ(0, ibv_modify_qp(q[i], &qa, IBV_QP_STATE |
					   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_QKEY));
		qa.qp_state = IBV_QPS_RTR;
		ASSERT_EQ(0, ibv_modify_qp(q[i], &qa, IBV_QP_STATE));
		qa.qp_state = IBV_QPS_RTS;
		ASSERT_EQ(0, ibv_modify_qp(q[i], &qa, IBV_QP_STATE |
					   IBV_QP_SQ_PSN));
	}
	aa.grh.dgid = self->b.gid;
	aa.grh.sgid_index = self->a.gid_index;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(self->a.pd, &aa);
	ASSERT_NE(NULL, ah);

	/* The receive side is not offered (ud_odp_caps): prefetched. */
	ASSERT_EQ(0, ibv_advise_mr(self->b.pd,
				   IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				   IBV_ADVISE_MR_FLAG_FLUSH, &rs, 1));
	swr_fill(self->abuf + PAGE - 200, 500, 31);
	sge.addr = (uintptr_t)self->abuf + PAGE - 200;	/* two pages */
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = q[1]->qp_num;
	wr.wr.ud.remote_qkey = SWR_QKEY;
	ASSERT_EQ(0, post_recv(q[1], NULL, 2, self->bbuf, 40 + 500,
			       self->bmr->lkey));
	ASSERT_EQ(0, ibv_post_send(q[0], &wr, &bad));
	wait_wc(_metadata, self->acq, 1, IBV_WC_SUCCESS);
	wait_wc(_metadata, self->bcq, 2, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(self->bbuf + 40, 500, 31));
	ibv_destroy_ah(ah);
}

/* Implicit MRs on both ends: any address of the process. */
TEST_F(odp, implicit)
{
	struct ibv_mr *ia, *ib;
	uint8_t *src = fresh(BUFSZ), *dst = fresh(BUFSZ);

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ia = ibv_reg_mr(self->a.pd, NULL, SIZE_MAX, ODP_ACCESS);
	ASSERT_NE(NULL, ia) TH_LOG("implicit: %s", strerror(errno));
	ib = ibv_reg_mr(self->b.pd, NULL, SIZE_MAX, ODP_ACCESS);
	ASSERT_NE(NULL, ib) TH_LOG("implicit: %s", strerror(errno));
	rc_pair(_metadata, self, false);

	swr_fill(src, MSG, 41);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, 1, src, MSG,
				    ia->lkey, (uintptr_t)dst + 3, ib->rkey,
				    IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 1, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(dst + 3, MSG, 41));

	ASSERT_EQ(0, post_recv(self->qb, NULL, 3, dst + 8 * PAGE, MSG,
			       ib->lkey));
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_SEND, 2, src, MSG,
				    ia->lkey, 0, 0, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 2, IBV_WC_SUCCESS);
	wait_wc(_metadata, self->bcq, 3, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(dst + 8 * PAGE, MSG, 41));

	/* Kernel addresses are beyond the process's: refused. */
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, 4, src, 64,
				    ia->lkey, 0xffff888000000000ULL, ib->rkey,
				    IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 4, IBV_WC_REM_ACCESS_ERR);

	ibv_destroy_qp(self->qa);
	ibv_destroy_qp(self->qb);
	self->qa = self->qb = NULL;
	EXPECT_EQ(0, ibv_dereg_mr(ia));
	EXPECT_EQ(0, ibv_dereg_mr(ib));
	munmap(src, BUFSZ);
	munmap(dst, BUFSZ);
}

/*
 * An explicit ODP MR costs the kernel 16 bytes per page at registration
 * (kernel/swr_odp.c, swr_odp_too_big()): arrays above an eighth of the RAM
 * are refused at once with ENOMEM. Asked here: arrays of a quarter of the
 * RAM (128 GiB of range with 2 GiB of RAM; a module without the bound
 * registers it, and allocates them), and 1 TiB (past INT_MAX bytes of
 * arrays). 1 GiB (4 MiB of arrays) is registered. The ranges are only
 * reserved: ODP needs no pages to register.
 */
TEST_F(odp, too_big)
{
	const size_t tib = 1ULL << 40, fine = 1ULL << 30;
	size_t ram = (size_t)sysconf(_SC_PHYS_PAGES) * PAGE;
	size_t lens[2] = { ram / 4 / 16 * PAGE, tib };
	struct ibv_mr *mr;
	void *va;
	int i;

	ASSERT_LT(lens[0], tib) TH_LOG("%zu bytes of RAM", ram);
	va = mmap(NULL, tib, PROT_NONE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (va == MAP_FAILED)
		SKIP(return, "cannot reserve 1 TiB of address space");
	for (i = 0; i < 2; i++) {
		errno = 0;
		mr = ibv_reg_mr(self->a.pd, va, lens[i], ODP_ACCESS);
		EXPECT_EQ(NULL, mr) TH_LOG("%zu bytes registered", lens[i]);
		EXPECT_EQ(ENOMEM, errno);
		if (mr)
			ibv_dereg_mr(mr);
	}
	mr = ibv_reg_mr(self->a.pd, va, fine, ODP_ACCESS);
	EXPECT_NE(NULL, mr) TH_LOG("1 GiB ODP: %s", strerror(errno));
	if (mr)
		EXPECT_EQ(0, ibv_dereg_mr(mr));
	munmap(va, tib);
}

/* Prefetch (sync, async, no fault), then traffic through the range. */
TEST_F(odp, prefetch)
{
	static const enum ibv_advise_mr_advice adv[] = {
		IBV_ADVISE_MR_ADVICE_PREFETCH,
		IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
		IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
	};
	struct ibv_sge sg = { .addr = (uintptr_t)self->bbuf,
			      .length = BUFSZ, .lkey = self->bmr->lkey };
	unsigned int i, flags;

	rc_pair(_metadata, self, false);
	for (i = 0; i < 6; i++) {
		flags = i & 1 ? IBV_ADVISE_MR_FLAG_FLUSH : 0;
		ASSERT_EQ(0, ibv_advise_mr(self->b.pd, adv[i / 2], flags,
					   &sg, 1))
			TH_LOG("advice %d flags %u", adv[i / 2], flags);
		swr_fill(self->abuf, MSG, 50 + i);
		ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, i,
					    self->abuf, MSG, self->amr->lkey,
					    (uintptr_t)self->bbuf + i * 100,
					    self->bmr->rkey,
					    IBV_SEND_SIGNALED));
		wait_wc(_metadata, self->acq, i, IBV_WC_SUCCESS);
		EXPECT_EQ(-1, swr_check(self->bbuf + i * 100, MSG, 50 + i));
	}
}

TEST_F(odp, advise_bad)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(self->b.ctx);
	uint8_t *plain = fresh(PAGE);
	struct ibv_mr *other, *pinned, *gone;
	struct ibv_sge sg[65], one = { .addr = (uintptr_t)self->bbuf,
				       .length = PAGE,
				       .lkey = self->bmr->lkey };
	int i;

	ASSERT_NE(NULL, pd2);
	ASSERT_NE(NULL, plain);
	other = ibv_reg_mr(pd2, self->bbuf, BUFSZ, ODP_ACCESS);
	ASSERT_NE(NULL, other);
	pinned = ibv_reg_mr(self->b.pd, plain, PAGE, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, pinned);

	/* a key nobody holds: a registration's, deregistered */
	gone = ibv_reg_mr(self->b.pd, self->bbuf, PAGE, ODP_ACCESS);
	ASSERT_NE(NULL, gone);
	one.lkey = gone->lkey;
	ASSERT_EQ(0, ibv_dereg_mr(gone));
	EXPECT_EQ(ENOENT, ibv_advise_mr(self->b.pd,
		  IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		  &one, 1));
	one.lkey = other->lkey;				/* another PD's */
	EXPECT_EQ(EACCES, ibv_advise_mr(self->b.pd,
		  IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		  &one, 1));
	one.lkey = pinned->lkey;			/* not ODP */
	one.addr = (uintptr_t)plain;
	EXPECT_EQ(EINVAL, ibv_advise_mr(self->b.pd,
		  IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		  &one, 1));
	one.lkey = self->bmr->lkey;			/* past the end */
	one.addr = (uintptr_t)self->bbuf + BUFSZ - 1;
	one.length = 2;
	EXPECT_EQ(EINVAL, ibv_advise_mr(self->b.pd,
		  IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		  &one, 1));
	one.addr = UINT64_MAX - 1;			/* wraps */
	one.length = 16;
	EXPECT_EQ(EINVAL, ibv_advise_mr(self->b.pd,
		  IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		  &one, 1));
	for (i = 0; i < 65; i++)			/* too many */
		sg[i] = (struct ibv_sge){ .addr = (uintptr_t)self->bbuf,
					  .length = 8,
					  .lkey = self->bmr->lkey };
	EXPECT_EQ(EINVAL, ibv_advise_mr(self->b.pd,
		  IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		  sg, 65));
	EXPECT_EQ(0, ibv_advise_mr(self->b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
				   IBV_ADVISE_MR_FLAG_FLUSH, sg, 64));
	EXPECT_NE(0, ibv_advise_mr(self->b.pd,			/* flags */
		  IBV_ADVISE_MR_ADVICE_PREFETCH, 2, sg, 1));

	ibv_dereg_mr(pinned);
	ibv_dereg_mr(other);
	ibv_dealloc_pd(pd2);
	munmap(plain, PAGE);
}

/* The process replaces the pages under the MR: writes follow it. */
TEST_F(odp, remap)
{
	uint8_t *r = self->bbuf + 4 * PAGE;

	rc_pair(_metadata, self, false);
	swr_fill(self->abuf, 2 * PAGE, 61);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, 1, self->abuf,
				    2 * PAGE, self->amr->lkey, (uintptr_t)r,
				    self->bmr->rkey, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 1, IBV_WC_SUCCESS);
	ASSERT_EQ(-1, swr_check(r, 2 * PAGE, 61));

	/* New pages at the same address: zero, then the next WRITE's. */
	ASSERT_EQ(r, mmap(r, 2 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	ASSERT_EQ(-1, swr_check_byte(r, 2 * PAGE, 0));
	swr_fill(self->abuf, 2 * PAGE, 62);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, 2, self->abuf,
				    2 * PAGE, self->amr->lkey, (uintptr_t)r,
				    self->bmr->rkey, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 2, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(r, 2 * PAGE, 62));

	/* MADV_DONTNEED drops them: zero again, then the next WRITE's. */
	ASSERT_EQ(0, madvise(r, 2 * PAGE, MADV_DONTNEED));
	ASSERT_EQ(-1, swr_check_byte(r, 2 * PAGE, 0));
	swr_fill(self->abuf, 2 * PAGE, 63);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_WRITE, 3, self->abuf,
				    2 * PAGE, self->amr->lkey, (uintptr_t)r,
				    self->bmr->rkey, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 3, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(r, 2 * PAGE, 63));

	/* And a READ sees what the process writes now. */
	swr_fill(r, 2 * PAGE, 64);
	ASSERT_EQ(0, swr_post_send1(self->qa, IBV_WR_RDMA_READ, 4, self->abuf,
				    2 * PAGE, self->amr->lkey, (uintptr_t)r,
				    self->bmr->rkey, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 4, IBV_WC_SUCCESS);
	EXPECT_EQ(-1, swr_check(self->abuf, 2 * PAGE, 64));
}

/* A hole in the MR: remote access errors, nothing written elsewhere. */
static void hole_test(struct __test_metadata *_metadata,
		      FIXTURE_DATA(odp) *self, enum ibv_wr_opcode op)
{
	uint8_t *h = self->bbuf + 4 * PAGE;

	rc_pair(_metadata, self, false);
	ASSERT_EQ(0, munmap(h, PAGE));
	swr_fill(self->abuf, PAGE, 71);
	ASSERT_EQ(0, swr_post_send1(self->qa, op, 1, self->abuf, 100,
				    self->amr->lkey, (uintptr_t)h + 16,
				    self->bmr->rkey, IBV_SEND_SIGNALED));
	wait_wc(_metadata, self->acq, 1, IBV_WC_REM_ACCESS_ERR);
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, 4 * PAGE, 0));
	EXPECT_EQ(-1, swr_check_byte(h + PAGE, BUFSZ - 5 * PAGE, 0));
	if (op == IBV_WR_RDMA_READ)
		EXPECT_EQ(-1, swr_check(self->abuf, PAGE, 71));
	/* Back for the teardown's munmap. */
	ASSERT_EQ(h, mmap(h, PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
}

TEST_F(odp, hole_write)
{
	hole_test(_metadata, self, IBV_WR_RDMA_WRITE);
}

TEST_F(odp, hole_read)
{
	hole_test(_metadata, self, IBV_WR_RDMA_READ);
}

TEST_HARNESS_MAIN
