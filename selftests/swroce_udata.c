// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's handling of driver-private uverbs data, driven with raw
 * write() commands on /dev/infiniband/uverbsN so that the provider's own
 * checks cannot hide a kernel that accepts garbage: ABI version mismatch,
 * unknown comp_mask bits, short commands and non-zero unknown trailing
 * bytes must all be refused with distinct errors, and a refused command
 * must leave the file usable for a correct one. Also the driver's one
 * uverbs method (the QP doorbell) with bad handles, through the ioctl,
 * and rings in user memory (struct swroce_user_ring, what a parent
 * domain's allocator gives) that are misaligned, of the wrong size,
 * unwritable, overlapping or announced wrongly.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"
#include "swr_uverbs.h"

struct ctx_resp {
	struct ib_uverbs_get_context_resp core;
	struct swroce_alloc_ucontext_resp drv;
};

static int swr_get_context(int fd, const void *drv, size_t drv_len,
			   struct ctx_resp *resp, size_t resp_len)
{
	struct ib_uverbs_get_context cmd = {};

	memset(resp, 0xa5, sizeof(*resp));
	return swr_write_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd,
			     sizeof(cmd), drv, drv_len, resp, resp_len);
}

FIXTURE(uverbs) {
	int fd;
};

FIXTURE_SETUP(uverbs)
{
	char path[300];

	ASSERT_EQ(0, swr_uverbs_path(path, sizeof(path)))
		TH_LOG("no uverbs device for %s", swr_test_dev());
	self->fd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(uverbs)
{
	close(self->fd);
}

static const struct swroce_alloc_ucontext_cmd good_cmd = {
	.abi_version = SWROCE_ABI_VERSION,
};

TEST_F(uverbs, get_context_ok)
{
	struct ctx_resp resp;

	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &resp, sizeof(resp)));
	EXPECT_EQ(0, resp.drv.comp_mask);
	EXPECT_EQ(SWROCE_ABI_VERSION, resp.drv.abi_version);
	EXPECT_EQ(SWROCE_DEVICE_CAP_DOORBELL_METHOD |
		  SWROCE_DEVICE_CAP_USER_RINGS, resp.drv.device_caps);
	EXPECT_EQ(0, resp.drv.reserved_0);
	EXPECT_EQ(1, resp.core.num_comp_vectors);
	close(resp.core.async_fd);
	/* One context per file. */
	EXPECT_EQ(-EINVAL, swr_get_context(self->fd, &good_cmd,
					   sizeof(good_cmd), &resp,
					   sizeof(resp)));
}

TEST_F(uverbs, get_context_abi_mismatch)
{
	long long before = swr_counter("abi_mismatch");
	struct swroce_alloc_ucontext_cmd cmd = good_cmd;
	struct ctx_resp resp;

	ASSERT_LE(0, before);
	cmd.abi_version = SWROCE_ABI_VERSION + 1;
	EXPECT_EQ(-EPROTONOSUPPORT,
		  swr_get_context(self->fd, &cmd, sizeof(cmd), &resp,
				  sizeof(resp)));
	cmd.abi_version = 0;
	EXPECT_EQ(-EPROTONOSUPPORT,
		  swr_get_context(self->fd, &cmd, sizeof(cmd), &resp,
				  sizeof(resp)));
	/* Each refusal is counted. */
	EXPECT_EQ(before + 2, swr_counter("abi_mismatch"));
	/* The failure consumed nothing: a correct request still works. */
	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &resp, sizeof(resp)));
	close(resp.core.async_fd);
}

TEST_F(uverbs, get_context_unknown_comp_mask)
{
	struct swroce_alloc_ucontext_cmd cmd = good_cmd;
	struct ctx_resp resp;

	cmd.comp_mask = 1;
	EXPECT_EQ(-EOPNOTSUPP, swr_get_context(self->fd, &cmd, sizeof(cmd),
					       &resp, sizeof(resp)));
	cmd.comp_mask = 0x80000000u;
	EXPECT_EQ(-EOPNOTSUPP, swr_get_context(self->fd, &cmd, sizeof(cmd),
					       &resp, sizeof(resp)));
}

TEST_F(uverbs, get_context_short_command)
{
	struct ctx_resp resp;

	/* No driver data at all, then only comp_mask. */
	EXPECT_EQ(-EINVAL, swr_get_context(self->fd, NULL, 0, &resp,
					   sizeof(resp)));
	EXPECT_EQ(-EINVAL, swr_get_context(self->fd, &good_cmd, 4, &resp,
					   sizeof(resp)));
}

TEST_F(uverbs, get_context_trailing_bytes)
{
	struct {
		struct swroce_alloc_ucontext_cmd cmd;
		uint32_t extra[4];
	} big = { .cmd = good_cmd };
	long long before = swr_counter("udata_rejected");
	struct ctx_resp resp;

	/* A newer provider's extension this kernel does not know: refused. */
	big.extra[3] = 1;
	EXPECT_EQ(-EINVAL, swr_get_context(self->fd, &big, sizeof(big), &resp,
					   sizeof(resp)));
	EXPECT_EQ(before + 1, swr_counter("udata_rejected"));
	/* Zero-filled extension bytes request nothing: accepted. */
	big.extra[3] = 0;
	ASSERT_EQ(0, swr_get_context(self->fd, &big, sizeof(big), &resp,
				     sizeof(resp)));
	EXPECT_EQ(SWROCE_ABI_VERSION, resp.drv.abi_version);
	close(resp.core.async_fd);
}

TEST_F(uverbs, get_context_short_response)
{
	struct ctx_resp resp;

	/* An older provider with a shorter response: written up to its size. */
	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &resp, sizeof(resp.core) + 8));
	EXPECT_EQ(SWROCE_ABI_VERSION, resp.drv.abi_version);
	EXPECT_EQ(0xa5a5a5a5u, resp.drv.device_caps);
	close(resp.core.async_fd);
}

struct pd_resp {
	struct ib_uverbs_alloc_pd_resp core;
	struct swroce_alloc_pd_resp drv;
};

static int swr_alloc_pd_raw(int fd, const void *drv, size_t drv_len,
			    struct pd_resp *resp)
{
	struct ib_uverbs_alloc_pd cmd = {};

	memset(resp, 0xa5, sizeof(*resp));
	return swr_write_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &cmd, sizeof(cmd),
			     drv, drv_len, resp, sizeof(*resp));
}

static int swr_dealloc_pd_raw(int fd, uint32_t handle)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = IB_USER_VERBS_CMD_DEALLOC_PD,
		.in_words = (sizeof(hdr) + sizeof(struct ib_uverbs_dealloc_pd)) / 4,
	};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dealloc_pd cmd;
	} req = { .hdr = hdr, .cmd.pd_handle = handle };

	return write(fd, &req, sizeof(req)) == sizeof(req) ? 0 : -errno;
}

TEST_F(uverbs, alloc_pd_driver_data)
{
	struct ctx_resp cresp;
	struct pd_resp a, b;
	uint64_t junk = 1, zero = 0;

	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &cresp, sizeof(cresp)));

	/* The PD takes no driver input: non-zero bytes are refused. */
	EXPECT_EQ(-EINVAL, swr_alloc_pd_raw(self->fd, &junk, sizeof(junk), &a));
	ASSERT_EQ(0, swr_alloc_pd_raw(self->fd, &zero, sizeof(zero), &a));
	ASSERT_EQ(0, swr_alloc_pd_raw(self->fd, NULL, 0, &b));
	EXPECT_EQ(0, a.drv.comp_mask);
	EXPECT_EQ(0, b.drv.comp_mask);
	EXPECT_NE(a.drv.pdn, b.drv.pdn);
	EXPECT_NE(a.core.pd_handle, b.core.pd_handle);

	EXPECT_EQ(0, swr_dealloc_pd_raw(self->fd, a.core.pd_handle));
	EXPECT_EQ(0, swr_dealloc_pd_raw(self->fd, b.core.pd_handle));
	/* A freed handle is gone (the core's lookup reports ENOENT). */
	EXPECT_EQ(-ENOENT, swr_dealloc_pd_raw(self->fd, a.core.pd_handle));
	close(cresp.core.async_fd);
}

/*
 * The doorbell method takes only a live QP's handle: the QP lookup is the
 * core's, so what must hold is that the method exists under its id, wants
 * its attribute, and that no other object's handle gets through. (Posting
 * through it is what every test with a sleeping poller does.)
 */
TEST_F(uverbs, doorbell_method_bad_handles)
{
	struct ctx_resp cresp;
	struct pd_resp pd;

	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &cresp, sizeof(cresp)));
	ASSERT_EQ(0, swr_alloc_pd_raw(self->fd, NULL, 0, &pd));

	/* No QP with this handle. */
	EXPECT_EQ(-ENOENT, swr_doorbell_raw(self->fd, SWROCE_METHOD_QP_DOORBELL,
					    1, pd.core.pd_handle + 1000));
	/* A PD's handle is not a QP's. */
	EXPECT_EQ(-EINVAL, swr_doorbell_raw(self->fd, SWROCE_METHOD_QP_DOORBELL,
					    1, pd.core.pd_handle));
	/* The handle is mandatory. */
	EXPECT_EQ(-EINVAL, swr_doorbell_raw(self->fd, SWROCE_METHOD_QP_DOORBELL,
					    0, 0));
	/* Only the one driver method exists. */
	EXPECT_EQ(-EPROTONOSUPPORT,
		  swr_doorbell_raw(self->fd, SWROCE_METHOD_QP_DOORBELL + 1, 1,
				   pd.core.pd_handle));
	/* The PD is unharmed. */
	EXPECT_EQ(0, swr_dealloc_pd_raw(self->fd, pd.core.pd_handle));
	close(cresp.core.async_fd);
}

struct cq_resp {
	struct ib_uverbs_create_cq_resp core;
	struct swroce_create_cq_resp drv;
};

static int swr_create_cq_raw(int fd, uint32_t cqe,
			     const struct swroce_create_cq_cmd *drv,
			     struct cq_resp *resp)
{
	struct ib_uverbs_create_cq cmd = { .cqe = cqe, .comp_channel = -1 };

	memset(resp, 0xa5, sizeof(*resp));
	return swr_write_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &cmd,
			     sizeof(cmd), drv, drv ? sizeof(*drv) : 0, resp,
			     sizeof(*resp));
}

/* A CQ's ring in user memory (the test's CQs have 128 entries). */
static struct swroce_create_cq_cmd user_cq(void *addr, uint64_t length)
{
	struct swroce_create_cq_cmd c = {
		.comp_mask = SWROCE_CREATE_CQ_USER_RING,
		.ring = { .addr = (uintptr_t)addr, .length = length },
	};

	return c;
}

TEST_F(uverbs, user_ring_cq)
{
	size_t pg = sysconf(_SC_PAGESIZE), len = 2 * pg;
	size_t ring = sizeof(struct swroce_cq_ring) +
		      128 * sizeof(struct swroce_cqe);
	struct swroce_create_cq_cmd c;
	struct ctx_resp cresp;
	struct cq_resp resp;
	uint8_t *buf, *ro;

	ASSERT_EQ(len, (ring + pg - 1) / pg * pg);	/* 4 KiB pages */
	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &cresp, sizeof(cresp)));
	buf = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_NE(MAP_FAILED, ro);
	memset(buf, 0xa5, 3 * pg);

	/* not page aligned; a page short, a page over, a byte short */
	c = user_cq(buf + 64, len);
	EXPECT_EQ(-EINVAL, swr_create_cq_raw(self->fd, 128, &c, &resp));
	c = user_cq(buf, len - pg);
	EXPECT_EQ(-EINVAL, swr_create_cq_raw(self->fd, 128, &c, &resp));
	c = user_cq(buf, len + pg);
	EXPECT_EQ(-EINVAL, swr_create_cq_raw(self->fd, 128, &c, &resp));
	c = user_cq(buf, len - 1);
	EXPECT_EQ(-EINVAL, swr_create_cq_raw(self->fd, 128, &c, &resp));
	/* memory the process cannot write, or does not have */
	c = user_cq(ro, len);
	EXPECT_EQ(-EFAULT, swr_create_cq_raw(self->fd, 128, &c, &resp));
	c = user_cq((void *)(uintptr_t)pg, len);
	EXPECT_EQ(-EFAULT, swr_create_cq_raw(self->fd, 128, &c, &resp));
	/* an unknown bit, a reserved field, a ring without its bit */
	c = user_cq(buf, len);
	c.comp_mask |= 1U << 1;
	EXPECT_EQ(-EOPNOTSUPP, swr_create_cq_raw(self->fd, 128, &c, &resp));
	c = user_cq(buf, len);
	c.reserved_0 = 1;
	EXPECT_EQ(-EINVAL, swr_create_cq_raw(self->fd, 128, &c, &resp));
	c = user_cq(buf, len);
	c.comp_mask = 0;
	EXPECT_EQ(-EINVAL, swr_create_cq_raw(self->fd, 128, &c, &resp));
	/* nothing was taken: the memory is as it was */
	EXPECT_EQ(-1, swr_check_byte(buf, 3 * pg, 0xa5));

	/* the right ring: taken in place, zeroed, nothing to map */
	c = user_cq(buf, len);
	ASSERT_EQ(0, swr_create_cq_raw(self->fd, 128, &c, &resp));
	EXPECT_EQ(128, resp.drv.num_cqe);
	EXPECT_EQ(0, resp.drv.mmap_offset);
	EXPECT_EQ(0, resp.drv.mmap_size);
	EXPECT_EQ(-1, swr_check_byte(buf, len, 0));
	EXPECT_EQ(-1, swr_check_byte(buf + len, pg, 0xa5));
	/* an old provider's command (none) still gets a kernel ring */
	ASSERT_EQ(0, swr_create_cq_raw(self->fd, 128, NULL, &resp));
	EXPECT_EQ(len, resp.drv.mmap_size);

	/* closing the file destroys the CQs: the pinned ring is released */
	munmap(ro, len);
	close(cresp.core.async_fd);
	close(self->fd);
	self->fd = open("/dev/null", O_RDONLY);
	munmap(buf, 3 * pg);
}

struct qp_resp {
	struct ib_uverbs_create_qp_resp core;
	struct swroce_create_qp_resp drv;
};

/* An RC QP of 16 WRs of one SGE each way: one page per ring. */
static int swr_create_qp_raw_len(int fd, uint32_t pd, uint32_t cq,
				 const struct swroce_create_qp_cmd *drv,
				 size_t drv_len, struct qp_resp *resp)
{
	struct ib_uverbs_create_qp cmd = {
		.pd_handle = pd, .send_cq_handle = cq, .recv_cq_handle = cq,
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
		.qp_type = IB_UVERBS_QPT_RC,
	};

	memset(resp, 0xa5, sizeof(*resp));
	return swr_write_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &cmd,
			     sizeof(cmd), drv, drv_len, resp, sizeof(*resp));
}

static int swr_create_qp_raw(int fd, uint32_t pd, uint32_t cq,
			     const struct swroce_create_qp_cmd *drv,
			     struct qp_resp *resp)
{
	return swr_create_qp_raw_len(fd, pd, cq, drv, sizeof(*drv), resp);
}

TEST_F(uverbs, user_ring_qp)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	struct swroce_create_qp_cmd c = {
		.comp_mask = SWROCE_CREATE_QP_USER_SQ | SWROCE_CREATE_QP_USER_RQ,
	};
	struct ctx_resp cresp;
	struct cq_resp cq;
	struct pd_resp pd;
	struct qp_resp resp;
	uint8_t *buf, *old;

	ASSERT_EQ(0, swr_get_context(self->fd, &good_cmd, sizeof(good_cmd),
				     &cresp, sizeof(cresp)));
	ASSERT_EQ(0, swr_alloc_pd_raw(self->fd, NULL, 0, &pd));
	ASSERT_EQ(0, swr_create_cq_raw(self->fd, 64, NULL, &cq));
	buf = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0xa5, 3 * pg);

	/* the send and receive rings on the same page */
	c.sq.addr = c.rq.addr = (uintptr_t)buf;
	c.sq.length = c.rq.length = pg;
	EXPECT_EQ(-EINVAL, swr_create_qp_raw(self->fd, pd.core.pd_handle,
					     cq.core.cq_handle, &c, &resp));
	/* the send ring a page too long (and so overlapping too) */
	c.rq.addr = (uintptr_t)buf + pg;
	c.sq.length = 2 * pg;
	EXPECT_EQ(-EINVAL, swr_create_qp_raw(self->fd, pd.core.pd_handle,
					     cq.core.cq_handle, &c, &resp));
	/* an unknown bit */
	c.sq.length = pg;
	c.comp_mask |= 1U << 31;
	EXPECT_EQ(-EOPNOTSUPP, swr_create_qp_raw(self->fd, pd.core.pd_handle,
						 cq.core.cq_handle, &c, &resp));
	/* a hash for a QP without an indirection table */
	c.comp_mask = SWROCE_CREATE_QP_USER_SQ | SWROCE_CREATE_QP_USER_RQ |
		      SWROCE_CREATE_QP_RX_HASH;
	c.rx_hash_function = SWROCE_RX_HASH_FUNC_TOEPLITZ;
	c.rx_hash_key_len = SWROCE_RX_HASH_KEY_LEN;
	EXPECT_EQ(-EINVAL, swr_create_qp_raw(self->fd, pd.core.pd_handle,
					     cq.core.cq_handle, &c, &resp));
	/* hash fields without their bit, a reserved field */
	c.comp_mask &= ~SWROCE_CREATE_QP_RX_HASH;
	EXPECT_EQ(-EINVAL, swr_create_qp_raw(self->fd, pd.core.pd_handle,
					     cq.core.cq_handle, &c, &resp));
	c.rx_hash_function = 0;
	c.rx_hash_key_len = 0;
	c.reserved_2 = 1;
	EXPECT_EQ(-EINVAL, swr_create_qp_raw(self->fd, pd.core.pd_handle,
					     cq.core.cq_handle, &c, &resp));
	c.reserved_2 = 0;
	EXPECT_EQ(-1, swr_check_byte(buf, 3 * pg, 0xa5));

	/* side by side: both taken, zeroed, nothing to map */
	ASSERT_EQ(0, swr_create_qp_raw(self->fd, pd.core.pd_handle,
				       cq.core.cq_handle, &c, &resp));
	EXPECT_EQ(16, resp.drv.sq_num_wqe);
	EXPECT_EQ(128, resp.drv.sq_wqe_stride);
	EXPECT_EQ(16, resp.drv.rq_num_wqe);
	EXPECT_EQ(32, resp.drv.rq_wqe_stride);
	EXPECT_EQ(0, resp.drv.sq_mmap_size);
	EXPECT_EQ(0, resp.drv.rq_mmap_size);
	EXPECT_EQ(-1, swr_check_byte(buf + pg, pg, 0));
	/* the command as it was before RSS: up to the receive ring */
	old = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, old);
	memset(old, 0xa5, 2 * pg);
	c.sq.addr = (uintptr_t)old;
	c.rq.addr = (uintptr_t)old + pg;
	ASSERT_EQ(0, swr_create_qp_raw_len(self->fd, pd.core.pd_handle,
					   cq.core.cq_handle, &c,
					   offsetof(struct swroce_create_qp_cmd,
						    rx_hash_function), &resp));
	EXPECT_EQ(16, resp.drv.rq_num_wqe);
	EXPECT_EQ(0, resp.drv.rq_mmap_size);
	EXPECT_EQ(-1, swr_check_byte(old + pg, pg, 0));
	/* only the send ring in user memory */
	c.comp_mask = SWROCE_CREATE_QP_USER_SQ;
	c.rq.addr = c.rq.length = 0;
	c.sq.addr = (uintptr_t)buf + 2 * pg;
	ASSERT_EQ(0, swr_create_qp_raw(self->fd, pd.core.pd_handle,
				       cq.core.cq_handle, &c, &resp));
	EXPECT_EQ(0, resp.drv.sq_mmap_size);
	EXPECT_EQ(pg, resp.drv.rq_mmap_size);

	close(cresp.core.async_fd);
	close(self->fd);
	self->fd = open("/dev/null", O_RDONLY);
	munmap(old, 2 * pg);
	munmap(buf, 3 * pg);
}

TEST_F(uverbs, sysfs_abi_version)
{
	char buf[32], path[300], node[64];

	ASSERT_EQ(0, swr_ibdev_attr("swroce/abi_version", buf, sizeof(buf)));
	EXPECT_EQ(SWROCE_ABI_VERSION, atoi(buf));

	/* libibverbs matches providers against the uverbs abi_version. */
	ASSERT_EQ(0, swr_uverbs_path(path, sizeof(path)));
	snprintf(node, sizeof(node), "%.63s", strrchr(path, '/') + 1);
	snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/abi_version",
		 node);
	ASSERT_EQ(0, swr_read_line(path, buf, sizeof(buf)));
	EXPECT_EQ(SWROCE_ABI_VERSION, atoi(buf));
}

TEST_HARNESS_MAIN
