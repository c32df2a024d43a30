// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sharing objects between contexts: ibv_import_device() on a duplicate of
 * a context's command fd, then ibv_import_pd(), ibv_import_mr() and
 * ibv_import_dm() by handle. The imported objects are the same kernel
 * objects: data written through one context is read through the other,
 * and a QP of the imported context moves data with the imported PD and
 * MR. Handles that name nothing, or an object of another type, are
 * refused; unimporting leaves the object to its owner.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define LEN	8192

FIXTURE(imp) {
	struct ibv_context *ctx;	/* the owner */
	struct ibv_context *ictx;	/* imported from ctx's command fd */
	struct ibv_pd *pd;
	uint8_t *buf;
	struct ibv_mr *mr;
};

FIXTURE_SETUP(imp)
{
	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", swr_test_dev());
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, LEN, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, self->mr);
	self->ictx = ibv_import_device(dup(self->ctx->cmd_fd));
	ASSERT_NE(NULL, self->ictx) TH_LOG("ibv_import_device: %s",
					   strerror(errno));
}

FIXTURE_TEARDOWN(imp)
{
	if (self->ictx)
		ibv_close_device(self->ictx);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	if (self->buf && self->buf != MAP_FAILED)
		munmap(self->buf, LEN);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

TEST_F(imp, device_pd_mr)
{
	struct ibv_device_attr_ex a = {};
	struct ibv_pd *ipd;
	struct ibv_mr *imr;

	/* an imported context is a full context */
	EXPECT_EQ(0, ibv_query_device_ex(self->ictx, NULL, &a));
	EXPECT_EQ(self->ctx->device, self->ictx->device);

	ipd = ibv_import_pd(self->ictx, self->pd->handle);
	ASSERT_NE(NULL, ipd) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(self->pd->handle, ipd->handle);
	EXPECT_EQ(self->ictx, ipd->context);
	imr = ibv_import_mr(ipd, self->mr->handle);
	ASSERT_NE(NULL, imr) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(self->mr->lkey, imr->lkey);
	EXPECT_EQ(self->mr->rkey, imr->rkey);
	EXPECT_EQ(LEN, imr->length);
	/*
	 * Not the address: the kernel knows the MR's iova, not the virtual
	 * address it was registered from, and libibverbs leaves addr NULL.
	 */
	ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);

	/* unimporting left the owner's objects alone */
	EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	self->mr = NULL;
}

TEST_F(imp, bad_handles)
{
	struct ibv_pd *ipd;

	errno = 0;
	EXPECT_EQ(NULL, ibv_import_pd(self->ictx, self->pd->handle + 1000));
	EXPECT_NE(0, errno);
	/* an MR's handle is not a PD's, nor a PD's a DM's */
	errno = 0;
	EXPECT_EQ(NULL, ibv_import_pd(self->ictx, self->mr->handle + 77));
	EXPECT_NE(0, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_import_dm(self->ictx, self->pd->handle));
	EXPECT_NE(0, errno);
	ipd = ibv_import_pd(self->ictx, self->pd->handle);
	ASSERT_NE(NULL, ipd);
	errno = 0;
	EXPECT_EQ(NULL, ibv_import_mr(ipd, self->mr->handle + 1000));
	EXPECT_NE(0, errno);
	ibv_unimport_pd(ipd);
}

TEST_F(imp, dm_shared)
{
	struct ibv_alloc_dm_attr da = { .length = LEN };
	uint8_t in[256], out[256];
	struct ibv_dm *dm, *idm;

	dm = ibv_alloc_dm(self->ctx, &da);
	ASSERT_NE(NULL, dm);
	idm = ibv_import_dm(self->ictx, dm->handle);
	ASSERT_NE(NULL, idm) TH_LOG("%s", strerror(errno));
	/* written through one, read through the other, both ways */
	swr_fill(in, sizeof(in), 3);
	ASSERT_EQ(0, ibv_memcpy_to_dm(dm, LEN - 256, in, 256));
	ASSERT_EQ(0, ibv_memcpy_from_dm(out, idm, LEN - 256, 256));
	EXPECT_EQ(-1, swr_check(out, 256, 3));
	swr_fill(in, sizeof(in), 4);
	ASSERT_EQ(0, ibv_memcpy_to_dm(idm, 0, in, 256));
	ASSERT_EQ(0, ibv_memcpy_from_dm(out, dm, 0, 256));
	EXPECT_EQ(-1, swr_check(out, 256, 4));
	/* the imported one checks bounds as the original does */
	EXPECT_EQ(EINVAL, ibv_memcpy_to_dm(idm, LEN, in, 4));
	ibv_unimport_dm(idm);
	EXPECT_EQ(0, ibv_free_dm(dm));
}

/* A QP of the imported context, with the imported PD and MR, moves data. */
TEST_F(imp, traffic_on_imported_objects)
{
	struct swr_pair p;
	struct ibv_pd *ipd;
	struct ibv_mr *imr, *smr;
	uint8_t *sbuf;
	int ret;

	ipd = ibv_import_pd(self->ictx, self->pd->handle);
	ASSERT_NE(NULL, ipd);
	imr = ibv_import_mr(ipd, self->mr->handle);
	ASSERT_NE(NULL, imr);

	memset(&p, 0, sizeof(p));
	p.ctx = self->ictx;
	p.pd = ipd;
	p.mtu = IBV_MTU_1024;
	ASSERT_EQ(0, swr_find_gid(p.ctx, true, &p.gid_index, &p.gid));
	ret = swr_pair_create(&p, NULL);
	ASSERT_EQ(0, ret) TH_LOG("QPs on the imported context: %s",
				 strerror(-ret));
	sbuf = calloc(1, LEN);
	ASSERT_NE(NULL, sbuf);
	smr = ibv_reg_mr(ipd, sbuf, LEN, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, smr);

	/* RDMA WRITE from the owner's buffer, named by the imported MR */
	swr_fill(self->buf, LEN, 9);
	ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_RDMA_WRITE, 1, self->buf,
				    LEN, imr->lkey, (uintptr_t)sbuf,
				    smr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p.c.scq, 1, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(sbuf, LEN, 9));

	swr_pair_destroy_qps(&p);
	ibv_dereg_mr(smr);
	free(sbuf);
	ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
}

TEST_HARNESS_MAIN
