// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Work queue rings and shared receive queues.
 *
 * Receive WQEs are posted by user space straight into the mapped ring
 * (struct swroce_wq_ring); the kernel consumes them when a message
 * arrives. This file owns the ring's shape; the consumer lives with the
 * responder.
 */
#include <linux/log2.h>

#include "swr.h"
#include "swr_udata.h"

static size_t swr_wq_bytes(u32 num_wqe, u32 wqe_shift)
{
	return sizeof(struct swroce_wq_ring) + ((size_t)num_wqe << wqe_shift);
}

/**
 * swr_wq_init - allocate a receive work queue ring
 * @wq: the queue
 * @uctx: owning user context, NULL for a kernel queue
 * @max_wr: entries requested (checked by the caller)
 * @max_sge: scatter entries per WQE (checked by the caller)
 * @user: the ring in user memory, or NULL for one of ours
 */
int swr_wq_init(struct swr_wq *wq, struct ib_ucontext *uctx, u32 max_wr,
		u32 max_sge, const struct swroce_user_ring *user)
{
	size_t wqe = struct_size_t(struct swroce_recv_wqe, sge, max_sge);

	wq->num_wqe = roundup_pow_of_two(max_wr);
	wq->wqe_shift = order_base_2(wqe);
	wq->max_sge = ((1U << wq->wqe_shift) - sizeof(struct swroce_recv_wqe)) /
		      sizeof(struct swroce_sge);
	wq->max_sge = min_t(u32, wq->max_sge, SWR_MAX_SGE);
	wq->cons = 0;
	wq->ring = swr_ring_alloc(uctx, swr_wq_bytes(wq->num_wqe,
						     wq->wqe_shift),
				  user, &wq->mem);
	return PTR_ERR_OR_ZERO(wq->ring);
}

void swr_wq_fini(struct swr_wq *wq)
{
	swr_ring_free(wq->ring, wq->mem);
}

static bool swr_srq_attr_ok(const struct ib_srq_attr *attr)
{
	return attr->max_wr >= 1 && attr->max_wr <= SWR_MAX_SRQ_WR &&
	       attr->max_sge >= 1 && attr->max_sge <= SWR_MAX_SGE &&
	       attr->srq_limit < attr->max_wr;
}

/*
 * The user context and the optional command: a ring in user memory, or
 * NULL in @user.
 */
static int swr_srq_get_cmd(struct ib_device *ibdev, struct ib_udata *udata,
			   struct swroce_create_srq_cmd *cmd,
			   const struct swroce_user_ring **user)
{
	int err;

	err = swr_udata_get_cmd(ibdev, udata, cmd, sizeof(*cmd), 0);
	if (!err)
		err = swr_udata_one_ring(ibdev, udata, cmd->comp_mask,
					 cmd->reserved_0,
					 SWROCE_CREATE_SRQ_USER_RING,
					 &cmd->ring, user);
	if (!err && udata->outlen < offsetofend(struct swroce_create_srq_resp,
						mmap_size))
		err = -EINVAL;
	return err;
}

int swr_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct ib_device *ibdev = ibsrq->device;
	struct swr_srq *srq = to_swr_srq(ibsrq);
	const struct swroce_user_ring *user = NULL;
	struct swroce_create_srq_resp resp = {};
	struct swroce_create_srq_cmd cmd;
	struct ib_ucontext *uctx = NULL;
	int err;

	/* Tag matching needs post_srq_ops, which only user space has. */
	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC &&
	    (init->srq_type != IB_SRQT_TM || !udata)) {
		ibdev_dbg(ibdev, "create_srq: type %d not supported\n",
			  init->srq_type);
		return -EOPNOTSUPP;
	}
	if (!swr_srq_attr_ok(&init->attr)) {
		ibdev_dbg(ibdev, "create_srq: max_wr %u max_sge %u limit %u\n",
			  init->attr.max_wr, init->attr.max_sge,
			  init->attr.srq_limit);
		return -EINVAL;
	}
	if (udata) {
		err = swr_srq_get_cmd(ibdev, udata, &cmd, &user);
		if (err)
			return err;
		uctx = swr_udata_uctx(udata);
	}

	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->prod_lock);
	err = swr_wq_init(&srq->wq, uctx, init->attr.max_wr,
			  init->attr.max_sge, user);
	if (err)
		return err;
	srq->limit = init->attr.srq_limit;
	init->attr.max_wr = srq->wq.num_wqe;
	init->attr.max_sge = srq->wq.max_sge;
	if (init->srq_type == IB_SRQT_XRC) {
		err = swr_xrc_srq_add(srq, init);
		if (err)
			goto err_free_wq;
	}
	if (init->srq_type == IB_SRQT_TM) {
		err = swr_tm_init(srq, init);
		if (err)
			goto err_free_wq;
	}

	if (udata) {
		resp.num_wqe = srq->wq.num_wqe;
		resp.wqe_stride = 1U << srq->wq.wqe_shift;
		resp.max_sge = srq->wq.max_sge;
		resp.mmap_offset = swr_ring_mmap_offset(srq->wq.mem);
		resp.mmap_size = swr_ring_mmap_size(srq->wq.mem);
		err = swr_udata_put_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_del_srqn;
	}
	return 0;

err_del_srqn:
	if (srq->srqn)
		swr_xrc_srq_del(srq);
	swr_tm_fini(srq);
err_free_wq:
	swr_wq_fini(&srq->wq);
	return err;
}

int swr_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct swr_srq *srq = to_swr_srq(ibsrq);
	unsigned long flags;
	int err;

	if (udata) {
		err = swr_udata_no_cmd(ibsrq->device, udata);
		if (err)
			return err;
	}
	/* The device does not announce IB_DEVICE_SRQ_RESIZE. */
	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit >= srq->wq.num_wqe)
			return -EINVAL;
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int swr_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct swr_srq *srq = to_swr_srq(ibsrq);

	attr->max_wr = srq->wq.num_wqe;
	attr->max_sge = srq->wq.max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int swr_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct swr_srq *srq = to_swr_srq(ibsrq);

	/* No new lookups, then none in flight (swr_xrc.c). */
	if (srq->srqn)
		swr_xrc_srq_del(srq);
	swr_tm_fini(srq);
	swr_wq_fini(&srq->wq);
	return 0;
}
