// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device matching, registration with libibverbs, and the user context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swroce.h"

static void swr_free_context(struct ibv_context *ibctx);

static const struct verbs_context_ops swr_ctx_ops = {
	.advise_mr = swr_advise_mr,
	.alloc_dm = swr_alloc_dm,
	.alloc_mw = swr_alloc_mw,
	.alloc_parent_domain = swr_alloc_parent_domain,
	.alloc_pd = swr_alloc_pd,
	.alloc_td = swr_alloc_td,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = swr_bind_mw,
	.close_xrcd = swr_close_xrcd,
	.create_ah = swr_create_ah,
	.create_cq = swr_create_cq,
	.create_cq_ex = swr_create_cq_ex,
	.create_flow = swr_create_flow,
	.create_qp = swr_create_qp,
	.create_qp_ex = swr_create_qp_ex,
	.create_rwq_ind_table = swr_create_rwq_ind_table,
	.create_srq = swr_create_srq,
	.create_srq_ex = swr_create_srq_ex,
	.create_wq = swr_create_wq,
	.dealloc_mw = swr_dealloc_mw,
	.dealloc_pd = swr_dealloc_pd,
	.dealloc_td = swr_dealloc_td,
	.dereg_mr = swr_dereg_mr,
	.destroy_ah = swr_destroy_ah,
	.destroy_cq = swr_destroy_cq,
	.destroy_flow = swr_destroy_flow,
	.destroy_qp = swr_destroy_qp,
	.destroy_rwq_ind_table = swr_destroy_rwq_ind_table,
	.destroy_srq = swr_destroy_srq,
	.destroy_wq = swr_destroy_wq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = swr_free_context,
	.free_dm = swr_free_dm,
	.get_srq_num = swr_get_srq_num,
	.import_dm = swr_import_dm,
	.import_mr = swr_import_mr,
	.import_pd = swr_import_pd,
	.modify_qp = swr_modify_qp,
	.modify_srq = swr_modify_srq,
	.open_qp = swr_open_qp,
	.open_xrcd = swr_open_xrcd,
	.modify_wq = swr_modify_wq,
	.poll_cq = swr_poll_cq,
	.post_recv = swr_post_recv,
	.post_send = swr_post_send,
	.post_srq_ops = swr_post_srq_ops,
	.post_srq_recv = swr_post_srq_recv,
	.query_device_ex = swr_query_device_ex,
	.query_port = swr_query_port,
	.query_qp = swr_query_qp,
	.query_rt_values = swr_query_rt_values,
	.query_srq = swr_query_srq,
	.reg_dm_mr = swr_reg_dm_mr,
	.reg_mr = swr_reg_mr,
	.req_notify_cq = swr_req_notify_cq,
	.rereg_mr = swr_rereg_mr,
	.resize_cq = swr_resize_cq,
	.unimport_dm = swr_unimport_dm,
	.unimport_mr = swr_unimport_mr,
	.unimport_pd = swr_unimport_pd,
};

/*
 * What a context learns from the kernel's answer to get_context (or, for
 * an imported one, to query_context). The kernel checked our version; a
 * kernel that answers with another one does not speak this ABI at all.
 */
static int swr_context_setup(struct swr_context *ctx,
			     const struct swroce_alloc_ucontext_resp *resp)
{
	if (resp->abi_version != SWROCE_ABI_VERSION) {
		verbs_err(&ctx->vctx, "swroce: kernel ABI %u, provider ABI %u\n",
			  resp->abi_version, SWROCE_ABI_VERSION);
		return EPROTONOSUPPORT;
	}
	ctx->device_caps = resp->device_caps;
	pthread_mutex_init(&ctx->db_lock, NULL);
	verbs_set_ops(&ctx->vctx, &swr_ctx_ops);
	return 0;
}

static struct verbs_context *swr_alloc_context(struct ibv_device *ibdev,
					       int cmd_fd, void *private_data)
{
	struct swr_get_context_cmd cmd = {};
	struct swr_get_context_cmd_resp resp = {};
	struct swr_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	cmd.drv_payload.abi_version = SWROCE_ABI_VERSION;
	err = swr_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (!err)
		err = swr_context_setup(ctx, &resp.drv_payload);
	if (err)
		goto err_free;
	return &ctx->vctx;

err_free:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = err;
	return NULL;
}

/*
 * ibv_import_device(): a second context on (a duplicate of) the command
 * fd of an existing one, which is the same kernel ucontext. The core's
 * query_context fills in what libibverbs keeps; the driver's attribute
 * gives back the answer get_context gave the first context.
 */
static struct verbs_context *swr_import_context(struct ibv_device *ibdev,
						int cmd_fd)
{
	struct swroce_alloc_ucontext_resp resp = {};
	struct ib_uverbs_attr attr = {
		.attr_id = SWROCE_ATTR_QUERY_CONTEXT_RESP,
		.len = sizeof(resp), .data = (uintptr_t)&resp,
		.flags = UVERBS_ATTR_F_MANDATORY,
	};
	struct swr_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	err = ibv_cmd_query_context(&ctx->vctx.context, NULL);
	if (!err)
		err = swr_ioctl(&ctx->vctx.context, UVERBS_OBJECT_DEVICE,
				UVERBS_METHOD_QUERY_CONTEXT, &attr, 1);
	if (!err)
		err = swr_context_setup(ctx, &resp);
	if (err) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = err;
		return NULL;
	}
	return &ctx->vctx;
}

static void swr_free_context(struct ibv_context *ibctx)
{
	struct swr_context *ctx = to_swr_context(ibctx);

	pthread_mutex_destroy(&ctx->db_lock);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

/*
 * A swroce device is one that carries the swroce sysfs group, whatever its
 * name: the administrator names it in "rdma link add", and an out-of-tree
 * driver has no rdma_driver_id of its own to match on.
 */
static bool swr_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[16];

	if (sysfs_dev->driver_id != RDMA_DRIVER_UNKNOWN)
		return false;
	return ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev,
					 SWROCE_SYSFS_GROUP "/abi_version") > 0;
}

/*
 * Empty: swr_match_device() decides. libibverbs 44 walks the table of every
 * provider when it matches a device by driver id, without checking for
 * NULL, so the table must exist.
 */
static const struct verbs_match_ent swr_match_table[] = {
	{ .kind = VERBS_MATCH_SENTINEL },
};

static struct verbs_device *swr_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct swr_device *dev = calloc(1, sizeof(*dev));

	return dev ? &dev->vdev : NULL;
}

static void swr_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct swr_device, vdev));
}

static const struct verbs_device_ops swr_dev_ops = {
	.name = "swroce",
	.match_min_abi_version = SWROCE_ABI_VERSION,
	.match_max_abi_version = SWROCE_ABI_VERSION,
	.match_table = swr_match_table,
	.match_device = swr_match_device,
	.alloc_device = swr_alloc_device,
	.import_context = swr_import_context,
	.uninit_device = swr_uninit_device,
	.alloc_context = swr_alloc_context,
};

PROVIDER_DRIVER(swroce, swr_dev_ops);
