// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's handling of driver-private uverbs data, driven with raw
 * write() commands on /dev/infiniband/uverbsN so that the provider's own
 * checks cannot hide a kernel that accepts garbage: ABI version mismatch,
 * unknown comp_mask bits, short commands and non-zero unknown trailing
 * bytes must all be refused with distinct errors, and a refused command
 * must leave the file usable for a correct one. Also the driver's one
 * uverbs method (the QP doorbell) with bad handles, through the ioctl.
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/swroce-abi.h>

#include "kselftest_harness.h"
#include "swr_test.h"

/*
 * Send one legacy write() command: header, core command whose first field
 * is the response pointer, then @drv_len bytes of driver data. Returns 0 or
 * -errno.
 */
static int swr_write_cmd(int fd, uint32_t command, void *core, size_t core_len,
			 const void *drv, size_t drv_len, void *resp,
			 size_t resp_len)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (sizeof(hdr) + core_len + drv_len) / 4,
		.out_words = resp_len / 4,
	};
	uint8_t buf[256];
	uint64_t rp = (uintptr_t)resp;
	size_t len = sizeof(hdr) + core_len + drv_len;

	if (len > sizeof(buf) || (len | resp_len) % 4)
		return -EINVAL;
	memcpy(core, &rp, sizeof(rp));
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), core, core_len);
	memcpy(buf + sizeof(hdr) + core_len, drv, drv_len);
	return write(fd, buf, len) == (ssize_t)len ? 0 : -errno;
}

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
	EXPECT_EQ(SWROCE_DEVICE_CAP_DOORBELL_METHOD, resp.drv.device_caps);
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
 * SWROCE_METHOD_QP_DOORBELL through RDMA_VERBS_IOCTL, @num_attrs 0 or 1
 * (the QP handle @handle), @method the method id. Returns 0 or -errno.
 */
static int swr_doorbell_raw(int fd, uint16_t method, uint16_t num_attrs,
			    uint64_t handle)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      sizeof(struct ib_uverbs_attr)) / sizeof(uint64_t)] = { 0 };
	struct ib_uverbs_ioctl_hdr *hdr = (struct ib_uverbs_ioctl_hdr *)buf;

	hdr->length = sizeof(*hdr) + num_attrs * sizeof(hdr->attrs[0]);
	hdr->object_id = UVERBS_OBJECT_QP;
	hdr->method_id = method;
	hdr->num_attrs = num_attrs;
	hdr->driver_id = RDMA_DRIVER_UNKNOWN;
	hdr->attrs[0].attr_id = SWROCE_ATTR_QP_DOORBELL_HANDLE;
	hdr->attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	hdr->attrs[0].data = handle;
	return ioctl(fd, RDMA_VERBS_IOCTL, hdr) ? -errno : 0;
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
