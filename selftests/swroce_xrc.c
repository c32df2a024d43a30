// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC (eXtended Reliable Connected transport): an XRC_SEND QP on device A
 * talks to an XRC_RECV (target) QP on device B, whose requests go to the
 * XRC SRQ each WQE names.
 *  - one INI QP sends to two SRQs of the domain: each message lands in its
 *    SRQ's buffer, byte by byte, and completes on that SRQ's CQ with the
 *    target QP's number (one through ibv_post_send(), one through the
 *    ibv_wr_*() API and ibv_wr_set_xrc_srqn());
 *  - RDMA WRITE, READ and a fetch-and-add through the target QP, checked
 *    against the PD of the SRQ named (an MR of another PD: remote access
 *    error);
 *  - a remote SRQ number that does not exist, or is of another domain:
 *    remote invalid request;
 *  - the domain shared through its file with a forked process, which opens
 *    the target QP (ibv_open_qp()) and sees its state;
 *  - bad input: an XRC SRQ without a CQ or domain, an XRC_RECV QP without
 *    a domain, receives posted to XRC QPs, ibv_get_srq_num() of a basic
 *    SRQ.
 *
 * A and B come from SWR_XRC_A and SWR_XRC_B (default: the test device for
 * both, so the same-device path runs); selftests/swroce_xrc.sh also runs
 * it across a veth between two swroce devices in two namespaces.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		(64 * 1024)
#define MSG		3000	/* three packets at MTU 1024 */
#define CANARY		0x5a

/* An XRC domain of @ctx on the file @path (created if missing). */
static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, const char *path,
				  int *fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = oflags,
	};

	*fd = open(path, O_RDONLY | O_CREAT, 0600);
	if (*fd < 0)
		return NULL;
	a.fd = *fd;
	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *xsrq_create(struct ibv_context *ctx, struct ibv_pd *pd,
				   struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};

	return ibv_create_srq_ex(ctx, &a);
}

static struct ibv_qp *tgt_create(struct ibv_context *ctx,
				 struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};

	return ibv_create_qp_ex(ctx, &a);
}

FIXTURE(xrc) {
	struct swr_tdev a, b;
	char path[64];
	int fd;
	struct ibv_xrcd *xrcd;
	struct ibv_cq *scq;		/* A: the INI QP's */
	struct ibv_cq *cq1, *cq2;	/* B: one per SRQ */
	struct ibv_srq *srq1, *srq2;
	uint32_t srqn1, srqn2;
	struct ibv_qp *ini, *tgt;
	struct ibv_qp_ex *inix;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
};

FIXTURE_SETUP(xrc)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 32, .max_send_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};

	self->fd = -1;
	ASSERT_EQ(0, swr_tdev_open(&self->a, swr_env_dev("SWR_XRC_A")));
	ASSERT_EQ(0, swr_tdev_open(&self->b, swr_env_dev("SWR_XRC_B")));
	snprintf(self->path, sizeof(self->path), "/tmp/swr-xrc-%d", getpid());
	self->xrcd = xrcd_open(self->b.ctx, self->path, &self->fd, O_CREAT);
	ASSERT_NE(NULL, self->xrcd) TH_LOG("ibv_open_xrcd: %s", strerror(errno));

	self->scq = ibv_create_cq(self->a.ctx, 64, NULL, NULL, 0);
	self->cq1 = ibv_create_cq(self->b.ctx, 64, NULL, NULL, 0);
	self->cq2 = ibv_create_cq(self->b.ctx, 64, NULL, NULL, 0);
	ASSERT_TRUE(self->scq && self->cq1 && self->cq2);
	self->srq1 = xsrq_create(self->b.ctx, self->b.pd, self->xrcd, self->cq1);
	ASSERT_NE(NULL, self->srq1) TH_LOG("XRC SRQ: %s", strerror(errno));
	self->srq2 = xsrq_create(self->b.ctx, self->b.pd, self->xrcd, self->cq2);
	ASSERT_NE(NULL, self->srq2);
	ASSERT_EQ(0, ibv_get_srq_num(self->srq1, &self->srqn1));
	ASSERT_EQ(0, ibv_get_srq_num(self->srq2, &self->srqn2));
	ASSERT_NE(0, self->srqn1);
	ASSERT_NE(self->srqn1, self->srqn2);

	self->tgt = tgt_create(self->b.ctx, self->xrcd);
	ASSERT_NE(NULL, self->tgt) TH_LOG("XRC_RECV QP: %s", strerror(errno));
	ia.pd = self->a.pd;
	ia.send_cq = self->scq;
	self->ini = ibv_create_qp_ex(self->a.ctx, &ia);
	ASSERT_NE(NULL, self->ini) TH_LOG("XRC_SEND QP: %s", strerror(errno));
	self->inix = ibv_qp_to_qp_ex(self->ini);
	ASSERT_NE(NULL, self->inix);
	ASSERT_EQ(0, swr_tdev_connect(self->tgt, &self->b, &self->a.gid,
				      self->ini->qp_num, 12));
	ASSERT_EQ(0, swr_tdev_connect(self->ini, &self->a, &self->b.gid,
				      self->tgt->qp_num, 12));

	self->abuf = swr_buf_get(self->a.pd, BUFSZ, &self->amr);
	/* In the SRQs' PD: what accesses through the target QP check. */
	self->bbuf = swr_buf_get(self->b.pd, BUFSZ, &self->bmr);
	ASSERT_TRUE(self->abuf && self->bbuf);
}

FIXTURE_TEARDOWN(xrc)
{
	if (self->ini)
		ibv_destroy_qp(self->ini);
	if (self->tgt)
		ibv_destroy_qp(self->tgt);
	if (self->srq1)
		ibv_destroy_srq(self->srq1);
	if (self->srq2)
		ibv_destroy_srq(self->srq2);
	swr_buf_put(self->abuf, BUFSZ, self->amr);
	swr_buf_put(self->bbuf, BUFSZ, self->bmr);
	if (self->cq1)
		ibv_destroy_cq(self->cq1);
	if (self->cq2)
		ibv_destroy_cq(self->cq2);
	if (self->scq)
		ibv_destroy_cq(self->scq);
	if (self->xrcd)
		ibv_close_xrcd(self->xrcd);
	if (self->fd >= 0)
		close(self->fd);
	unlink(self->path);
	swr_tdev_close(&self->b);
	swr_tdev_close(&self->a);
}

static int srq_recv(struct ibv_srq *srq, uint64_t wr_id, void *buf,
		    uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* One signaled WR of @op through ibv_post_send() to remote SRQ @srqn. */
static int xrc_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
		    uint32_t srqn, void *buf, uint32_t len, uint32_t lkey,
		    uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.qp_type.xrc.remote_srqn = srqn;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

TEST_F(xrc, send_to_two_srqs)
{
	uint8_t *r1 = self->bbuf, *r2 = self->bbuf + 8192;
	struct ibv_wc wc;

	memset(self->bbuf, CANARY, BUFSZ);
	swr_fill(self->abuf, MSG, 1);
	swr_fill(self->abuf + 8192, MSG, 2);
	ASSERT_EQ(0, srq_recv(self->srq1, 11, r1, 4096, self->bmr->lkey));
	ASSERT_EQ(0, srq_recv(self->srq2, 22, r2, 4096, self->bmr->lkey));

	/* To SRQ 2 through ibv_post_send(), to SRQ 1 through ibv_wr_*(). */
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_SEND, 2, self->srqn2,
			      self->abuf + 8192, MSG, self->amr->lkey, 0, 0));
	ibv_wr_start(self->inix);
	self->inix->wr_id = 1;
	self->inix->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(self->inix);
	ibv_wr_set_xrc_srqn(self->inix, self->srqn1);
	ibv_wr_set_sge(self->inix, self->amr->lkey, (uintptr_t)self->abuf, MSG);
	ASSERT_EQ(0, ibv_wr_complete(self->inix));

	swr_t_wait_wc(_metadata, self->scq, 2, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, self->scq, 1, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, self->cq2, 22, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(MSG, wc.byte_len);
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_EQ(self->tgt->qp_num, wc.qp_num);
	swr_t_wait_wc(_metadata, self->cq1, 11, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(MSG, wc.byte_len);
	EXPECT_EQ(self->tgt->qp_num, wc.qp_num);
	/* Nothing else on either CQ: each message went to its SRQ only. */
	EXPECT_EQ(0, ibv_poll_cq(self->cq1, 1, &wc));
	EXPECT_EQ(0, ibv_poll_cq(self->cq2, 1, &wc));
	EXPECT_EQ(-1, swr_check(r1, MSG, 1));
	EXPECT_EQ(-1, swr_check(r2, MSG, 2));
	EXPECT_EQ(-1, swr_check_byte(r1 + MSG, 8192 - MSG, CANARY));
	EXPECT_EQ(-1, swr_check_byte(r2 + MSG, BUFSZ - 8192 - MSG, CANARY));
}

TEST_F(xrc, write_read_atomic)
{
	uint64_t *word = (uint64_t *)(self->bbuf + 32768);
	uint64_t *orig = (uint64_t *)(self->abuf + 32768);

	memset(self->bbuf, CANARY, BUFSZ);
	swr_fill(self->abuf, MSG, 3);
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_RDMA_WRITE, 1, self->srqn1,
			      self->abuf, MSG, self->amr->lkey,
			      (uintptr_t)self->bbuf + 100, self->bmr->rkey));
	swr_t_wait_wc(_metadata, self->scq, 1, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(self->bbuf + 100, MSG, 3));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, 100, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->bbuf + 100 + MSG, 4096, CANARY));

	memset(self->abuf + 16384, 0, 8192);
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_RDMA_READ, 2, self->srqn2,
			      self->abuf + 16384, MSG, self->amr->lkey,
			      (uintptr_t)self->bbuf + 100, self->bmr->rkey));
	swr_t_wait_wc(_metadata, self->scq, 2, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(self->abuf + 16384, MSG, 3));
	EXPECT_EQ(-1, swr_check_byte(self->abuf + 16384 + MSG, 100, 0));

	*word = 37;
	*orig = 0;
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_ATOMIC_FETCH_AND_ADD, 3,
			      self->srqn1, orig, 8, self->amr->lkey,
			      (uintptr_t)word, self->bmr->rkey));
	swr_t_wait_wc(_metadata, self->scq, 3, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(37, *orig);
	EXPECT_EQ(42, *word);
	/* No receive was consumed by any of them. */
	EXPECT_EQ(0, swr_cq_count(self->cq1, 0));
}

/* An rkey of another PD than the named SRQ's: remote access error. */
TEST_F(xrc, rkey_of_other_pd)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(self->b.ctx);
	struct ibv_mr *mr2;

	ASSERT_NE(NULL, pd2);
	mr2 = ibv_reg_mr(pd2, self->bbuf, BUFSZ, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, mr2);
	memset(self->bbuf, CANARY, BUFSZ);
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_RDMA_WRITE, 1, self->srqn1,
			      self->abuf, 64, self->amr->lkey,
			      (uintptr_t)self->bbuf, mr2->rkey));
	swr_t_wait_wc(_metadata, self->scq, 1, IBV_WC_REM_ACCESS_ERR, NULL);
	EXPECT_EQ(-1, swr_check_byte(self->bbuf, 4096, CANARY));
	ibv_dereg_mr(mr2);
	ibv_dealloc_pd(pd2);
}

/* A remote SRQ number nobody has: remote invalid request, nothing lands. */
TEST_F(xrc, bad_remote_srqn)
{
	ASSERT_EQ(0, srq_recv(self->srq1, 11, self->bbuf, 4096,
			      self->bmr->lkey));
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_SEND, 1,
			      (self->srqn1 + 0x1000) & 0xffffff, self->abuf,
			      64, self->amr->lkey, 0, 0));
	swr_t_wait_wc(_metadata, self->scq, 1, IBV_WC_REM_INV_REQ_ERR, NULL);
	EXPECT_EQ(0, swr_cq_count(self->cq1, 200));
}

/* An SRQ of another domain on the same device: the same. */
TEST_F(xrc, srq_of_other_domain)
{
	char path[80];
	struct ibv_xrcd *x2;
	struct ibv_cq *cq3;
	struct ibv_srq *s3;
	uint32_t n3;
	int fd2;

	snprintf(path, sizeof(path), "%s-2", self->path);
	x2 = xrcd_open(self->b.ctx, path, &fd2, O_CREAT);
	ASSERT_NE(NULL, x2);
	cq3 = ibv_create_cq(self->b.ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq3);
	s3 = xsrq_create(self->b.ctx, self->b.pd, x2, cq3);
	ASSERT_NE(NULL, s3);
	ASSERT_EQ(0, ibv_get_srq_num(s3, &n3));
	ASSERT_EQ(0, srq_recv(s3, 33, self->bbuf, 4096, self->bmr->lkey));
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_SEND, 1, n3, self->abuf, 64,
			      self->amr->lkey, 0, 0));
	swr_t_wait_wc(_metadata, self->scq, 1, IBV_WC_REM_INV_REQ_ERR, NULL);
	EXPECT_EQ(0, swr_cq_count(cq3, 200));
	EXPECT_EQ(0, ibv_destroy_srq(s3));
	EXPECT_EQ(0, ibv_destroy_cq(cq3));
	EXPECT_EQ(0, ibv_close_xrcd(x2));
	close(fd2);
	unlink(path);
}

/*
 * Another process opens the domain through its file and the target QP by
 * number; the domain outlives the first closer.
 */
TEST_F(xrc, domain_shared_across_fork)
{
	uint32_t qpn = self->tgt->qp_num;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ibv_qp_open_attr oa = {
			.comp_mask = IBV_QP_OPEN_ATTR_NUM |
				     IBV_QP_OPEN_ATTR_XRCD |
				     IBV_QP_OPEN_ATTR_TYPE,
			.qp_num = qpn,
			.qp_type = IBV_QPT_XRC_RECV,
		};
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;
		struct ibv_context *ctx;
		struct ibv_xrcd *x;
		struct ibv_qp *qp;
		int fd;

		ctx = swr_open_dev(swr_env_dev("SWR_XRC_B"));
		if (!ctx)
			_exit(10);
		/* No O_CREAT: the domain must exist already. */
		x = xrcd_open(ctx, self->path, &fd, 0);
		if (!x)
			_exit(11);
		oa.xrcd = x;
		qp = ibv_open_qp(ctx, &oa);
		if (!qp)
			_exit(12);
		if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi) ||
		    qa.qp_state != IBV_QPS_RTR)
			_exit(13);
		/* A number not in the domain is refused. */
		oa.qp_num = qpn + 0x100;
		if (ibv_open_qp(ctx, &oa))
			_exit(14);
		if (ibv_destroy_qp(qp) || ibv_close_xrcd(x))
			_exit(15);
		close(fd);
		ibv_close_device(ctx);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The child's close left the domain and the QP to us. */
	ASSERT_EQ(0, srq_recv(self->srq1, 11, self->bbuf, 4096,
			      self->bmr->lkey));
	swr_fill(self->abuf, 64, 4);
	ASSERT_EQ(0, xrc_post(self->ini, IBV_WR_SEND, 1, self->srqn1,
			      self->abuf, 64, self->amr->lkey, 0, 0));
	swr_t_wait_wc(_metadata, self->scq, 1, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, self->cq1, 11, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(self->bbuf, 64, 4));
}

/* "rdma res show qp" lists both XRC QPs, by type, with the driver's -dd. */
TEST_F(xrc, restrack)
{
	const struct {
		const char *dev;
		uint32_t qpn;
		const char *type;
	} q[] = {
		{ swr_env_dev("SWR_XRC_A"), self->ini->qp_num, "XRC_INI" },
		{ swr_env_dev("SWR_XRC_B"), self->tgt->qp_num, "XRC_TGT" },
	};
	char cmd[160], out[4096];
	size_t i, n;
	FILE *f;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "rdma res show qp link %s/1 lqpn %u -dd 2>&1",
			 q[i].dev, q[i].qpn);
		f = popen(cmd, "r");
		ASSERT_NE(NULL, f);
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = 0;
		EXPECT_EQ(0, pclose(f)) TH_LOG("%s: %s", cmd, out);
		EXPECT_NE(NULL, strstr(out, q[i].type)) TH_LOG("%s", out);
	}
}

TEST_F(xrc, bad_input)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD,
		.srq_type = IBV_SRQT_XRC,
		.pd = self->b.pd,
		.xrcd = self->xrcd,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = self->b.pd,
	};
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_sge sge = { .addr = (uintptr_t)self->bbuf, .length = 8,
			       .lkey = self->bmr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_srq *basic;
	uint32_t n;

	/* An XRC SRQ needs its CQ. */
	EXPECT_EQ(NULL, ibv_create_srq_ex(self->b.ctx, &sa));
	/* An XRC_RECV QP needs its domain. */
	EXPECT_EQ(NULL, ibv_create_qp_ex(self->b.ctx, &qa));
	EXPECT_EQ(EINVAL, errno);
	/* XRC QPs have no receive queue of their own. */
	EXPECT_NE(0, ibv_post_recv(self->ini, &rwr, &bad));
	EXPECT_NE(0, ibv_post_recv(self->tgt, &rwr, &bad));
	/* A basic SRQ has no number. */
	basic = ibv_create_srq(self->b.pd, &ba);
	ASSERT_NE(NULL, basic);
	EXPECT_NE(0, ibv_get_srq_num(basic, &n));
	EXPECT_EQ(0, ibv_destroy_srq(basic));
	/* The domain is in use: closing it fails until its objects go. */
	EXPECT_NE(0, ibv_close_xrcd(self->xrcd));
}

TEST_HARNESS_MAIN
