// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: creation, the state machine, and kernel consumers' posting.
 *
 * A QP is a send queue ring (struct swroce_sq_ring) and, unless it is on an
 * SRQ, a receive queue ring (struct swroce_wq_ring). For a user QP both are
 * mapped into the process, which writes WQEs there itself; its post_send
 * is only the doorbell that wakes the poller (see swr_poll.c). A kernel
 * consumer's ib_post_send()/ib_post_recv() writes the same WQE format into
 * rings the kernel alone can see, so the engine has one input format.
 *
 * The poller runs the requester of every QP; traffic is delivered to the
 * destination QP found with swr_qp_get(), whose reference keeps the QP
 * alive until swr_qp_put(). Destroy removes the QP from the poller and from
 * the QPN table, then waits for the last such reference.
 */
#include <linux/log2.h>
#include <linux/overflow.h>

#define UVERBS_MODULE_NAME swroce
#include <rdma/uverbs_named_ioctl.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_net.h"
#include "swr_qp.h"
#include "swr_rss.h"
#include "swr_steer.h"
#include "swr_trace.h"
#include "swr_udata.h"
#include "swr_wire.h"

#define SWR_QPN_MAX		0xffffff
#define SWR_GSI_QPN		1

/*
 * FLUSH permissions (uverbs' IB_UVERBS_ACCESS_FLUSH_GLOBAL/PERSISTENT,
 * named in the kernel from 6.2 on). A QP may grant them: rdma-core 57 and
 * later ask for them on every extended RC QP. They permit nothing here:
 * the device offers no FLUSH (no IB_DEVICE_FLUSH_* capability, so the
 * core refuses MRs asking for it), and the receive path drops a FLUSH
 * request as an opcode it does not know, whatever the QP allows.
 */
#define SWR_ACCESS_FLUSH	(BIT(8) | BIT(9))

/*
 * The responder permissions a QP can grant (rxe grants the same).
 * IB_ACCESS_ON_DEMAND is an MR's property and grants nothing here, but
 * applications pass a QP the flags they give their ODP MRs (rdma-core's
 * own test_odp.py does, as mlx5 allows).
 */
#define SWR_QP_ACCESS		(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 IB_ACCESS_MW_BIND |			\
				 SWR_ACCESS_FLUSH |			\
				 IB_ACCESS_ON_DEMAND |			\
				 IB_ACCESS_OPTIONAL)

static size_t swr_sq_bytes(const struct swr_sq *sq)
{
	return sizeof(struct swroce_sq_ring) +
	       ((size_t)sq->num_wqe << sq->wqe_shift);
}

static void *swr_sq_slot(const struct swr_sq *sq, u32 idx)
{
	return (u8 *)(sq->ring + 1) +
	       ((size_t)(idx & (sq->num_wqe - 1)) << sq->wqe_shift);
}

static void *swr_rq_slot(const struct swr_wq *wq, u32 idx)
{
	return (u8 *)(wq->ring + 1) +
	       ((size_t)(idx & (wq->num_wqe - 1)) << wq->wqe_shift);
}

static void swr_qp_event(struct swr_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/*
 * References
 */

struct swr_qp *swr_qp_get(struct swr_dev *sdev, u32 qpn)
{
	struct swr_qp *qp;
	unsigned long flags;

	/*
	 * Under the xa_lock, so that destroy's xa_erase() cannot slip
	 * between the load and the increment: a QP found here has not yet
	 * dropped its first reference, and its memory stays ours until the
	 * reference taken here is put.
	 */
	xa_lock_irqsave(&sdev->qp_xa, flags);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&sdev->qp_xa, flags);
	return qp;
}

void swr_qp_put(struct swr_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/*
 * Creation
 */

static int swr_qp_check_init(struct ib_device *ibdev,
			     const struct ib_qp_init_attr *init, bool user)
{
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_XRC_INI:
		/* A send queue only: the core passes no receive side. */
		if (init->create_flags || !init->send_cq || init->srq ||
		    cap->max_send_wr > SWR_MAX_QP_WR ||
		    cap->max_send_sge > SWR_MAX_SGE ||
		    cap->max_inline_data > SWR_MAX_INLINE) {
			ibdev_dbg(ibdev, "create_qp: bad XRC_INI attributes\n");
			return -EINVAL;
		}
		return 0;
	case IB_QPT_XRC_TGT:
		/* Created by the core for a process, with its domain. */
		if (init->create_flags || !init->xrcd) {
			ibdev_dbg(ibdev, "create_qp: bad XRC_TGT attributes\n");
			return -EINVAL;
		}
		return 0;
	case IB_QPT_RAW_PACKET:
		/*
		 * User QPs only: the core let the process in only with
		 * CAP_NET_RAW (uverbs_cmd.c, uverbs_std_types_qp.c).
		 */
		if (user && to_swr_dev(ibdev)->ndev->type == ARPHRD_ETHER)
			break;
		/* Frames need an Ethernet link (not tun, wireguard). */
		ibdev_dbg(ibdev, "create_qp: no raw packet QP here\n");
		return -EOPNOTSUPP;
	case IB_QPT_GSI:
		if (!user && init->port_num == SWR_PORT_NUM)
			break;
		fallthrough;
	default:
		ibdev_dbg(ibdev, "create_qp: type %d not supported\n",
			  init->qp_type);
		return -EOPNOTSUPP;
	}
	/* An RSS QP: a user raw packet QP (checked above), no CQs. */
	if (init->rwq_ind_tbl) {
		if (init->qp_type != IB_QPT_RAW_PACKET)
			return -EOPNOTSUPP;
	} else if (!init->send_cq || !init->recv_cq) {
		ibdev_dbg(ibdev, "create_qp: missing CQ\n");
		return -EINVAL;
	}
	/* Tag matching is defined for RC (IBV_TM_CAP_RC) only. */
	if (init->srq && to_swr_srq(init->srq)->tm &&
	    init->qp_type != IB_QPT_RC) {
		ibdev_dbg(ibdev, "create_qp: tag matching SRQ needs RC\n");
		return -EINVAL;
	}
	/* The core keeps IB_UVERBS_QP_CREATE_SQ_SIG_ALL to itself. */
	if (init->create_flags) {
		ibdev_dbg(ibdev, "create_qp: flags %#x not supported\n",
			  init->create_flags);
		return -EOPNOTSUPP;
	}
	if (cap->max_send_wr > SWR_MAX_QP_WR ||
	    cap->max_send_sge > SWR_MAX_SGE ||
	    cap->max_inline_data > SWR_MAX_INLINE ||
	    (!init->srq && (cap->max_recv_wr > SWR_MAX_QP_WR ||
			    cap->max_recv_sge > SWR_MAX_SGE))) {
		ibdev_dbg(ibdev, "create_qp: caps %u/%u/%u/%u/%u out of range\n",
			  cap->max_send_wr, cap->max_send_sge,
			  cap->max_inline_data, cap->max_recv_wr,
			  cap->max_recv_sge);
		return -EINVAL;
	}
	return 0;
}

/*
 * The send queue: a slot holds the 64-byte WQE header and either the
 * scatter list or the inline data, so the stride is sized for the larger
 * of the two and the caps reported back are what the stride allows.
 */
static int swr_sq_init(struct swr_sq *sq, struct ib_ucontext *uctx,
		       const struct ib_qp_cap *cap,
		       const struct swroce_user_ring *user)
{
	size_t hdr = sizeof(struct swroce_send_wqe);
	size_t wqe = max(hdr + cap->max_send_sge * sizeof(struct swroce_sge),
			 hdr + cap->max_inline_data);
	u32 room;

	BUILD_BUG_ON(sizeof(struct swroce_send_wqe) != 64);
	BUILD_BUG_ON(sizeof(struct swr_kwqe_reg) >
		     sizeof_field(struct swroce_send_wqe, pad));

	sq->num_wqe = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	sq->wqe_shift = order_base_2(wqe);
	room = (1U << sq->wqe_shift) - hdr;
	sq->max_sge = min_t(u32, room / sizeof(struct swroce_sge),
			    SWR_MAX_SGE);
	sq->max_inline = min_t(u32, room, SWR_MAX_INLINE);
	sq->cons = 0;
	sq->prod = 0;
	spin_lock_init(&sq->prod_lock);
	sq->ring = swr_ring_alloc(uctx, swr_sq_bytes(sq), user, &sq->mem);
	return PTR_ERR_OR_ZERO(sq->ring);
}

int swr_qpn_reserve(struct swr_dev *sdev, u32 *qpn)
{
	int err;

	err = xa_alloc_cyclic_irq(&sdev->qp_xa, qpn, NULL,
				  XA_LIMIT(SWR_GSI_QPN + 1, SWR_QPN_MAX),
				  &sdev->qpn_next, GFP_KERNEL);
	if (err == -EBUSY)
		return -ENOMEM;
	return err < 0 ? err : 0;
}

/* Reserve the QP number; the QP is stored there once it is complete. */
static int swr_qpn_alloc(struct swr_dev *sdev, struct swr_qp *qp)
{
	u32 qpn;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		err = xa_insert_irq(&sdev->qp_xa, SWR_GSI_QPN, NULL,
				    GFP_KERNEL);
		if (err == -EBUSY) {
			ibdev_dbg(&sdev->ibdev, "create_qp: GSI QP exists\n");
			return -EINVAL;
		}
		qpn = SWR_GSI_QPN;
	} else {
		err = swr_qpn_reserve(sdev, &qpn);
	}
	if (err < 0)
		return err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

/* A queue the QP does not have (XRC, RSS, an SRQ's) reads as all zero. */
static int swr_qp_put_resp(struct swr_qp *qp, struct ib_udata *udata)
{
	struct swroce_create_qp_resp resp = {
		.qpn = qp->ibqp.qp_num,
	};

	if (qp->sq.ring) {
		resp.sq_num_wqe = qp->sq.num_wqe;
		resp.sq_wqe_stride = 1U << qp->sq.wqe_shift;
		resp.sq_max_sge = qp->sq.max_sge;
		resp.sq_max_inline = qp->sq.max_inline;
		resp.sq_mmap_offset = swr_ring_mmap_offset(qp->sq.mem);
		resp.sq_mmap_size = swr_ring_mmap_size(qp->sq.mem);
	}
	if (qp->rq.ring) {
		resp.rq_num_wqe = qp->rq.num_wqe;
		resp.rq_wqe_stride = 1U << qp->rq.wqe_shift;
		resp.rq_max_sge = qp->rq.max_sge;
		resp.rq_mmap_offset = swr_ring_mmap_offset(qp->rq.mem);
		resp.rq_mmap_size = swr_ring_mmap_size(qp->rq.mem);
	}
	return swr_udata_put_resp(udata, &resp, sizeof(resp));
}

/*
 * An XRC_TGT QP has no send queue: its requests come from the wire. An RSS
 * QP (with an indirection table) has no queues: its WQs receive.
 */
static bool swr_qp_type_has_sq(const struct ib_qp_init_attr *init)
{
	return init->qp_type != IB_QPT_XRC_TGT && !init->rwq_ind_tbl;
}

/* Receives go to the SRQ (XRC: the SRQs the requests name) instead. */
static bool swr_qp_type_has_rq(const struct ib_qp_init_attr *init)
{
	return !init->srq && !init->rwq_ind_tbl &&
	       init->qp_type != IB_QPT_XRC_INI &&
	       init->qp_type != IB_QPT_XRC_TGT;
}

/*
 * The command's hash fields (swr_rss.c reads them): zero unless comp_mask
 * announces them, and only for a QP with an indirection table.
 */
static int swr_qp_check_hash_cmd(struct ib_device *ibdev,
				 struct ib_udata *udata,
				 const struct ib_qp_init_attr *init,
				 const struct swroce_create_qp_cmd *cmd)
{
	bool hash = cmd->comp_mask & SWROCE_CREATE_QP_RX_HASH;
	const void *tail = &cmd->rx_hash_function;

	if (cmd->reserved_1 || cmd->reserved_2 ||
	    (hash && !init->rwq_ind_tbl) ||
	    (!hash && memchr_inv(tail, 0, sizeof(*cmd) -
				 offsetof(struct swroce_create_qp_cmd,
					  rx_hash_function)))) {
		ibdev_dbg(ibdev, "create_qp: hash fields where they do not belong\n");
		return swr_udata_reject(ibdev, udata, -EINVAL);
	}
	return 0;
}

/*
 * The optional command: rings in user memory (NULL in @sq, @rq for ours),
 * an RSS QP's hash. A QP on an SRQ has no receive ring to place, and the
 * two must not overlap: each would overwrite the other's WQEs.
 */
static int swr_qp_get_cmd(struct ib_device *ibdev, struct ib_udata *udata,
			  const struct ib_qp_init_attr *init,
			  struct swroce_create_qp_cmd *cmd,
			  const struct swroce_user_ring **sq,
			  const struct swroce_user_ring **rq)
{
	int err;

	err = swr_udata_get_cmd(ibdev, udata, cmd, sizeof(*cmd), 0);
	if (!err)
		err = swr_udata_check_mask(ibdev, udata, cmd->comp_mask,
					   SWROCE_CREATE_QP_USER_SQ |
					   SWROCE_CREATE_QP_USER_RQ |
					   SWROCE_CREATE_QP_RX_HASH,
					   cmd->reserved_0);
	if (!err)
		err = swr_qp_check_hash_cmd(ibdev, udata, init, cmd);
	if (!err)
		err = swr_udata_user_ring(ibdev, udata, cmd->comp_mask &
					  SWROCE_CREATE_QP_USER_SQ,
					  &cmd->sq, sq);
	if (!err)
		err = swr_udata_user_ring(ibdev, udata, cmd->comp_mask &
					  SWROCE_CREATE_QP_USER_RQ,
					  &cmd->rq, rq);
	if (err)
		return err;
	if ((*sq && !swr_qp_type_has_sq(init)) ||
	    (*rq && !swr_qp_type_has_rq(init)) ||
	    (*sq && *rq && cmd->sq.addr < cmd->rq.addr + cmd->rq.length &&
	     cmd->rq.addr < cmd->sq.addr + cmd->sq.length)) {
		ibdev_dbg(ibdev, "create_qp: a ring the QP does not have, or overlapping rings\n");
		return swr_udata_reject(ibdev, udata, -EINVAL);
	}
	if (udata->outlen < offsetofend(struct swroce_create_qp_resp,
					rq_mmap_size)) {
		ibdev_dbg(ibdev, "create_qp: response of %zu bytes too short\n",
			  udata->outlen);
		return -EINVAL;
	}
	return 0;
}

/*
 * The rings @init asks for, and the caps they give. An XRC_TGT QP has none
 * (its requests go to the SRQs they name); an XRC_INI QP and a QP on an
 * SRQ have no receive queue; any other QP gets one, of one slot if it never
 * receives.
 */
static int swr_qp_init_rings(struct swr_qp *qp, struct ib_ucontext *uctx,
			     struct ib_qp_init_attr *init,
			     const struct swroce_user_ring *user_sq,
			     const struct swroce_user_ring *user_rq)
{
	struct ib_qp_cap *cap = &init->cap;
	int err;

	if (!swr_qp_type_has_sq(init)) {
		memset(cap, 0, sizeof(*cap));
		return 0;
	}
	err = swr_sq_init(&qp->sq, uctx, cap, user_sq);
	if (err)
		return err;
	cap->max_send_wr = qp->sq.num_wqe;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
	if (!swr_qp_type_has_rq(init)) {
		/* An SRQ's caps are the SRQ's; an XRC_INI QP receives nothing. */
		if (init->qp_type == IB_QPT_XRC_INI) {
			cap->max_recv_wr = 0;
			cap->max_recv_sge = 0;
		}
		return 0;
	}
	/* A QP that never receives still gets a one-slot queue. */
	err = swr_wq_init(&qp->rq, uctx, max(cap->max_recv_wr, 1U),
			  max(cap->max_recv_sge, 1U), user_rq);
	if (err) {
		swr_ring_free(qp->sq.ring, qp->sq.mem);
		return err;
	}
	cap->max_recv_wr = qp->rq.num_wqe;
	cap->max_recv_sge = qp->rq.max_sge;
	return 0;
}

/* What swr_qp_init_rings() allocated. */
static void swr_qp_free_rings(struct swr_qp *qp)
{
	if (qp->sq.ring)
		swr_ring_free(qp->sq.ring, qp->sq.mem);
	if (qp->rq.ring)
		swr_wq_fini(&qp->rq);
}

int swr_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	const struct swroce_user_ring *user_sq = NULL, *user_rq = NULL;
	struct ib_device *ibdev = ibqp->device;
	struct swr_dev *sdev = to_swr_dev(ibdev);
	struct swr_qp *qp = to_swr_qp(ibqp);
	struct ib_ucontext *uctx = NULL;
	struct swroce_create_qp_cmd cmd = {};
	int err;

	err = swr_qp_check_init(ibdev, init, !!udata);
	if (err)
		return err;
	if (udata) {
		err = swr_qp_get_cmd(ibdev, udata, init, &cmd, &user_sq,
				     &user_rq);
		if (err)
			return err;
		uctx = swr_udata_uctx(udata);
	}
	if (init->rwq_ind_tbl) {
		err = swr_rss_qp_init(qp, init, &cmd);
		if (err)
			return err;
	}
	if (atomic_inc_return(&sdev->num_qp) > SWR_MAX_QP) {
		err = -ENOMEM;
		goto err_dec_count;
	}

	qp->is_user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = init->send_cq ? to_swr_cq(init->send_cq) : NULL;
	qp->rcq = init->recv_cq ? to_swr_cq(init->recv_cq) : NULL;
	qp->srq = init->srq ? to_swr_srq(init->srq) : NULL;
	qp->xrcd = init->xrcd;
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->state_lock);
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_prod_lock);
	spin_lock_init(&qp->resp_lock);
	INIT_LIST_HEAD(&qp->poll_node);
	INIT_LIST_HEAD(&qp->tm_jobs);
	INIT_WORK(&qp->rxq_work, swr_wire_rxq_work);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	/* swr_sq_init() sets it up again; an XRC_TGT QP has no SQ. */
	spin_lock_init(&qp->sq.prod_lock);

	err = swr_qpn_alloc(sdev, qp);
	if (err)
		goto err_dec_count;

	err = swr_qp_init_rings(qp, uctx, init, user_sq, user_rq);
	if (err)
		goto err_free_qpn;

	if (udata) {
		err = swr_qp_put_resp(qp, udata);
		if (err)
			goto err_free_rings;
	}

	/* Complete: lookups may find it from here on. */
	xa_store_irq(&sdev->qp_xa, qp->ibqp.qp_num, qp, GFP_KERNEL);
	swr_poll_add_qp(qp);
	return 0;

err_free_rings:
	swr_qp_free_rings(qp);
err_free_qpn:
	xa_erase_irq(&sdev->qp_xa, qp->ibqp.qp_num);
err_dec_count:
	atomic_dec(&sdev->num_qp);
	swr_rss_qp_fini(qp);
	return err;
}

int swr_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibqp->device);
	struct swr_qp *qp = to_swr_qp(ibqp);

	/* No new requester work, then no new lookups, then no old ones. */
	swr_poll_del_qp(qp);
	mutex_lock(&qp->sq_lock);
	swr_req_finish_xfer(qp);
	mutex_unlock(&qp->sq_lock);
	xa_erase_irq(&sdev->qp_xa, qp->ibqp.qp_num);
	swr_qp_put(qp);
	wait_for_completion(&qp->released);
	swr_tm_qp_drop(qp);
	/* Responses the receive path queued for the requester. */
	swr_wire_qp_fini(qp);
	if (qp->wire)
		swr_route_cache_fini(&qp->wire->route);
	kfree(qp->wire);

	/* A ring still mapped by the process stays valid memory. */
	swr_qp_free_rings(qp);
	swr_rss_qp_fini(qp);
	atomic_dec(&sdev->num_qp);
	return 0;
}

/*
 * The state machine
 */

static int swr_qp_check_av(struct swr_qp *qp, const struct rdma_ah_attr *ah)
{
	/* RoCEv2 routes by GID: the remote end must come with a GRH. */
	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	if (rdma_ah_get_port_num(ah) != SWR_PORT_NUM ||
	    ah->grh.sgid_index >= SWR_GID_TABLE_LEN)
		return -EINVAL;
	return 0;
}

static int swr_qp_check_attr(struct swr_qp *qp, const struct ib_qp_attr *attr,
			     int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != SWR_PORT_NUM)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SWR_PKEY_TABLE_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SWR_MAX_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SWR_MAX_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SWR_QP_ACCESS))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SWR_QPN_MAX)
		return -EINVAL;
	/* There is no alternate path to migrate to. */
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;
	if ((mask & IB_QP_AV) && swr_qp_check_av(qp, &attr->ah_attr))
		return -EINVAL;
	return 0;
}

/* Copy @attr's fields named in @mask into @qa (under state_lock). */
static void swr_qp_copy_attr(struct swr_qp_attr *qa,
			     const struct ib_qp_attr *attr, int mask)
{
	if (mask & IB_QP_QKEY)
		qa->qkey = attr->qkey;
	if (mask & IB_QP_DEST_QPN)
		qa->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_SQ_PSN)
		qa->sq_psn = attr->sq_psn & SWR_PSN_MASK;
	if (mask & IB_QP_RQ_PSN)
		qa->rq_psn = attr->rq_psn & SWR_PSN_MASK;
	if (mask & IB_QP_ACCESS_FLAGS)
		qa->access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		qa->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		qa->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qa->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qa->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qa->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qa->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qa->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PKEY_INDEX)
		qa->pkey_index = attr->pkey_index;
	if (mask & IB_QP_AV) {
		/*
		 * The core holds the sgid_attr reference in @attr only for
		 * the duration of the call: keep what the path needs of it,
		 * not the pointer. The GID table entry may go and come back
		 * at another index while the QP lives (a bond fails over,
		 * an address is re-added), as on a NIC that has copied the
		 * source address into its QP context.
		 */
		qa->ah = attr->ah_attr;
		qa->ah.grh.sgid_attr = NULL;
		memset(&qa->sgid, 0, sizeof(qa->sgid));
		qa->sgid_oif = 0;
		if (attr->ah_attr.grh.sgid_attr) {
			qa->sgid = attr->ah_attr.grh.sgid_attr->gid;
			qa->sgid_oif = swr_gid_attr_oif(attr->ah_attr.grh.sgid_attr,
							NULL);
		}
	}
}

/*
 * Back to RESET: forget the requester's and responder's progress. The
 * queues become empty by moving the kernel's consumer indices up to the
 * producers: for a user queue that is the ring's prod, read once here and
 * taken as the hint it always is (a bad value shows when the QP is used
 * again, like any other bad prod). The ring's cons is published to match,
 * so the provider sees every slot free again. Ring indices are free
 * running; nothing is rewound.
 */
static void swr_qp_reset(struct swr_qp *qp)
{
	u32 idx;

	mutex_lock(&qp->sq_lock);
	swr_req_finish_xfer(qp);
	swr_tm_qp_drop(qp);
	memset(&qp->req, 0, sizeof(qp->req));
	if (qp->wire) {
		memset(&qp->wire->req, 0, sizeof(qp->wire->req));
		atomic_set(&qp->wire->cnps, 0);
	}
	qp->req.psn = qp->attr.sq_psn;
	if (qp->sq.ring) {
		idx = qp->is_user ? READ_ONCE(qp->sq.ring->prod.idx) :
				    qp->sq.prod;
		qp->sq.cons = idx;
		/* Pairs with the producer's acquire of cons: slots free. */
		smp_store_release(&qp->sq.ring->cons.idx, idx);
	}
	mutex_unlock(&qp->sq_lock);

	spin_lock_bh(&qp->resp_lock);
	memset(&qp->resp, 0, sizeof(qp->resp));
	if (qp->wire)
		memset(&qp->wire->resp, 0, sizeof(qp->wire->resp));
	/* A responder copying without the lock: its receive is gone. */
	qp->resp_gen++;
	qp->resp.psn = qp->attr.rq_psn;
	if (qp->rq.ring) {
		idx = qp->is_user ? READ_ONCE(qp->rq.ring->prod.idx) :
				    qp->rq_prod;
		qp->rq.cons = idx;
		/* As for the SQ above. */
		smp_store_release(&qp->rq.ring->cons.idx, idx);
	}
	spin_unlock_bh(&qp->resp_lock);
}

/*
 * SQD: the requester starts no new WQE, and the QP is drained once no
 * started one is outstanding (waiting on RNR or a retry, or a READ or
 * atomic in flight). Local execution is synchronous, so that is usually
 * at once; otherwise the poller checks again after each pass over the QP.
 */
bool swr_qp_check_drained(struct swr_qp *qp, bool trylock)
{
	unsigned long flags;
	bool notify = false;

	if (!READ_ONCE(qp->attr.sq_draining))
		return true;

	if (!trylock)
		mutex_lock(&qp->sq_lock);
	else if (!mutex_trylock(&qp->sq_lock))
		return false;
	/* Drained: nothing held, nothing unanswered on the wire. */
	if (!qp->req.wqe_valid && !qp->req.rd_atomic_inflight &&
	    swr_wire_idle(qp)) {
		spin_lock_irqsave(&qp->state_lock, flags);
		if (qp->state == IB_QPS_SQD && qp->attr.sq_draining) {
			WRITE_ONCE(qp->attr.sq_draining, false);
			notify = qp->sqd_notify;
		}
		spin_unlock_irqrestore(&qp->state_lock, flags);
	}
	mutex_unlock(&qp->sq_lock);

	if (notify)
		swr_qp_event(qp, IB_EVENT_SQ_DRAINED);
	return true;
}

int swr_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct ib_device *ibdev = ibqp->device;
	struct swr_qp *qp = to_swr_qp(ibqp);
	enum ib_qp_state cur, new;
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/* As on mlx5: an RSS QP has no states; its WQs have them. */
	if (qp->rss)
		return -EOPNOTSUPP;
	if (udata) {
		err = swr_udata_no_cmd(ibdev, udata);
		if (err)
			return err;
	}
	/* No alternate paths, no rate limiting. */
	if (mask & (IB_QP_ALT_PATH | IB_QP_RATE_LIMIT)) {
		ibdev_dbg(ibdev, "modify_qp: mask %#x not supported\n", mask);
		return -EOPNOTSUPP;
	}

	mutex_lock(&qp->modify_mutex);
	cur = READ_ONCE(qp->state);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		ibdev_dbg(ibdev, "modify_qp: QP %u is in state %d, not %d\n",
			  ibqp->qp_num, cur, attr->cur_qp_state);
		err = -EINVAL;
		goto out_unlock;
	}
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		ibdev_dbg(ibdev, "modify_qp: QP %u: %d -> %d with mask %#x refused\n",
			  ibqp->qp_num, cur, new, mask);
		err = -EINVAL;
		goto out_unlock;
	}
	err = swr_qp_check_attr(qp, attr, mask);
	if (err) {
		ibdev_dbg(ibdev, "modify_qp: QP %u: bad attributes, mask %#x\n",
			  ibqp->qp_num, mask);
		goto out_unlock;
	}

	/*
	 * Answers that arrived while the QP was sending complete their WQEs
	 * before the flush, as on a NIC that takes events in order: an ACK
	 * queued for the poller (or still queued for another CPU by receive
	 * steering) is not lost to a disconnect right behind it.
	 */
	if (new == IB_QPS_ERR && (cur == IB_QPS_RTS || cur == IB_QPS_SQD)) {
		swr_steer_sync(swr_qp_dev(qp));
		mutex_lock(&qp->sq_lock);
		swr_wire_drain_responses(qp);
		mutex_unlock(&qp->sq_lock);
	}

	spin_lock_irqsave(&qp->state_lock, flags);
	/*
	 * Only the engine changes the state without modify_mutex, and only
	 * to ERR; a transition out of the state it replaced is refused.
	 */
	if (qp->state != cur && new != IB_QPS_RESET && new != IB_QPS_ERR) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		err = -EINVAL;
		goto out_unlock;
	}
	swr_qp_copy_attr(&qp->attr, attr, mask);
	if (qp->state != new)
		trace_swr_qp_state(qp, qp->state, new, SWR_QP_BY_USER);
	WRITE_ONCE(qp->state, new);
	switch (new) {
	case IB_QPS_RESET:
		WRITE_ONCE(qp->flush_pending, false);
		WRITE_ONCE(qp->attr.sq_draining, false);
		break;
	case IB_QPS_ERR:
		WRITE_ONCE(qp->flush_pending, true);
		WRITE_ONCE(qp->attr.sq_draining, false);
		break;
	case IB_QPS_SQD:
		if (cur != IB_QPS_SQD) {
			qp->sqd_notify = (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
					 attr->en_sqd_async_notify;
			WRITE_ONCE(qp->attr.sq_draining, true);
		}
		break;
	default:
		WRITE_ONCE(qp->attr.sq_draining, false);
		break;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (new == IB_QPS_RESET && cur != IB_QPS_RESET)
		swr_qp_reset(qp);
	if (mask & IB_QP_SQ_PSN) {
		mutex_lock(&qp->sq_lock);
		qp->req.psn = attr->sq_psn & SWR_PSN_MASK;
		mutex_unlock(&qp->sq_lock);
	}
	if (mask & IB_QP_RQ_PSN) {
		spin_lock_bh(&qp->resp_lock);
		qp->resp.psn = attr->rq_psn & SWR_PSN_MASK;
		spin_unlock_bh(&qp->resp_lock);
	}

	/*
	 * A device whose port was taken at link add (swr_newlink()) tries
	 * to join the wire again whenever a QP may start receiving.
	 */
	if (new == IB_QPS_RTR && cur != IB_QPS_RTR)
		swr_net_attach(to_swr_dev(ibdev));
	if (new == IB_QPS_SQD)
		swr_qp_check_drained(qp, false);
	/* Flushing, and WQEs posted before RTS, are the poller's work. */
	if (new == IB_QPS_ERR || new == IB_QPS_RTS)
		swr_poll_kick(to_swr_dev(ibdev));

out_unlock:
	mutex_unlock(&qp->modify_mutex);
	return err;
}

void swr_qp_set_error(struct swr_qp *qp, bool fatal)
{
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != IB_QPS_RESET && qp->state != IB_QPS_ERR) {
		trace_swr_qp_state(qp, qp->state, IB_QPS_ERR,
				   fatal ? SWR_QP_BY_FATAL : SWR_QP_BY_ERROR);
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		WRITE_ONCE(qp->flush_pending, true);
		WRITE_ONCE(qp->attr.sq_draining, false);
		changed = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (!changed)
		return;
	if (fatal)
		swr_qp_event(qp, IB_EVENT_QP_FATAL);
	swr_poll_kick(swr_qp_dev(qp));
}

int swr_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct swr_qp *qp = to_swr_qp(ibqp);
	struct swr_qp_attr qa;
	enum ib_qp_state state;
	unsigned long flags;
	bool sqd_notify;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->state_lock, flags);
	qa = qp->attr;
	state = qp->state;
	sqd_notify = qp->sqd_notify;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->qp_state = state;
	attr->cur_qp_state = state;
	attr->path_mtu = qa.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qa.qkey;
	/* The PSNs the requester and responder have reached. */
	attr->sq_psn = READ_ONCE(qp->req.psn);
	attr->rq_psn = READ_ONCE(qp->resp.psn);
	attr->dest_qp_num = qa.dest_qpn;
	attr->qp_access_flags = qa.access_flags;
	attr->cap.max_send_wr = qp->sq.num_wqe;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	if (qp->rq.ring) {
		attr->cap.max_recv_wr = qp->rq.num_wqe;
		attr->cap.max_recv_sge = qp->rq.max_sge;
	}
	if (ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_UC ||
	    swr_qp_is_xrc(qp))
		attr->ah_attr = qa.ah;
	attr->pkey_index = qa.pkey_index;
	attr->en_sqd_async_notify = sqd_notify;
	attr->sq_draining = qa.sq_draining;
	attr->max_rd_atomic = qa.max_rd_atomic;
	attr->max_dest_rd_atomic = qa.max_dest_rd_atomic;
	attr->min_rnr_timer = qa.min_rnr_timer;
	attr->port_num = SWR_PORT_NUM;
	attr->timeout = qa.timeout;
	attr->retry_cnt = qa.retry_cnt;
	attr->rnr_retry = qa.rnr_retry;
	mutex_unlock(&qp->modify_mutex);

	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = SWR_PORT_NUM;
	return 0;
}

/*
 * Kernel consumers' posting
 */

/* Map a kernel send opcode to the WQE's, for a QP of type @type. */
static int swr_kwqe_opcode(enum ib_qp_type type, enum ib_wr_opcode op,
			   u8 *out)
{
	bool rc = type == IB_QPT_RC;
	bool connected = rc || type == IB_QPT_UC;

	switch (op) {
	case IB_WR_SEND:
		*out = SWROCE_WR_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*out = SWROCE_WR_SEND_WITH_IMM;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*out = SWROCE_WR_SEND_WITH_INV;
		return connected ? 0 : -EINVAL;
	case IB_WR_RDMA_WRITE:
		*out = SWROCE_WR_RDMA_WRITE;
		return connected ? 0 : -EINVAL;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*out = SWROCE_WR_RDMA_WRITE_WITH_IMM;
		return connected ? 0 : -EINVAL;
	case IB_WR_LOCAL_INV:
		*out = SWROCE_WR_LOCAL_INV;
		return connected ? 0 : -EINVAL;
	case IB_WR_REG_MR:
		*out = SWR_WR_REG_MR;
		return connected ? 0 : -EINVAL;
	case IB_WR_RDMA_READ:
		*out = SWROCE_WR_RDMA_READ;
		return rc ? 0 : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*out = SWROCE_WR_ATOMIC_CMP_AND_SWP;
		return rc ? 0 : -EINVAL;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*out = SWROCE_WR_ATOMIC_FETCH_AND_ADD;
		return rc ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Write @wr into the SQ slot @wqe (kernel memory, ours alone). */
static int swr_kwqe_build(struct swr_qp *qp, const struct ib_send_wr *wr,
			  struct swroce_send_wqe *wqe)
{
	struct swr_sq *sq = &qp->sq;
	struct swr_kwqe_reg *reg;
	u8 opcode;
	int i;

	if (swr_kwqe_opcode(qp->ibqp.qp_type, wr->opcode, &opcode))
		return -EINVAL;
	if (wr->num_sge < 0)
		return -EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = opcode;
	if (wr->send_flags & IB_SEND_SIGNALED)
		wqe->flags |= SWROCE_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->flags |= SWROCE_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->flags |= SWROCE_WQE_FENCE;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex = (__force u32)wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->atomic.swap = atomic_wr(wr)->swap;
		wqe->atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		reg = (struct swr_kwqe_reg *)&wqe->pad;
		reg->mr = (uintptr_t)reg_wr(wr)->mr;
		reg->key = reg_wr(wr)->key;
		reg->access = reg_wr(wr)->access;
		/* No data: the scatter list is the MR's page list. */
		return 0;
	case IB_WR_LOCAL_INV:
		return 0;
	default:
		break;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		wqe->ud.ahn = to_swr_ah(ud_wr(wr)->ah)->ahn;
		wqe->ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->ud.remote_qkey = ud_wr(wr)->remote_qkey;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *data = (u8 *)(wqe + 1);
		u32 len = 0;

		if (!swr_opcode_has_data(opcode))
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			const struct ib_sge *sge = &wr->sg_list[i];

			if (sge->length > sq->max_inline - len)
				return -EINVAL;
			/* Inline data is addressed by kernel virtual address. */
			memcpy(data + len, swr_virt_dma_to_ptr(sge->addr),
			       sge->length);
			len += sge->length;
		}
		wqe->flags |= SWROCE_WQE_INLINE;
		wqe->inline_len = len;
		return 0;
	}

	if (wr->num_sge > sq->max_sge)
		return -EINVAL;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		struct swroce_sge *sge = (struct swroce_sge *)(wqe + 1) + i;

		sge->addr = wr->sg_list[i].addr;
		sge->length = wr->sg_list[i].length;
		sge->lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

static int swr_post_send_kernel(struct swr_qp *qp, const struct ib_send_wr *wr,
				const struct ib_send_wr **bad_wr)
{
	struct swr_sq *sq = &qp->sq;
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	bool posted = false;
	int err = 0;

	/* Like rxe: a kernel QP takes sends from RTS on (and in ERR). */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&sq->prod_lock, flags);
	for (; wr; wr = wr->next) {
		/* The engine publishes cons (release) once it copied a WQE. */
		if (sq->prod - smp_load_acquire(&sq->ring->cons.idx) >=
		    sq->num_wqe) {
			err = -ENOMEM;
			break;
		}
		err = swr_kwqe_build(qp, wr, swr_sq_slot(sq, sq->prod));
		if (err)
			break;
		sq->prod++;
		posted = true;
	}
	if (posted)
		/* Pairs with the engine's acquire of prod: WQEs first. */
		smp_store_release(&sq->ring->prod.idx, sq->prod);
	spin_unlock_irqrestore(&sq->prod_lock, flags);

	if (err)
		*bad_wr = wr;
	if (posted) {
		if (state == IB_QPS_ERR)
			WRITE_ONCE(qp->flush_pending, true);
		swr_poll_kick(swr_qp_dev(qp));
	}
	return err;
}

int swr_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct swr_qp *qp = to_swr_qp(ibqp);
	struct swr_dev *sdev = swr_qp_dev(qp);

	/* An XRC_TGT QP sends nothing (the core would let a process try). */
	if (!qp->sq.ring) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (!qp->is_user)
		return swr_post_send_kernel(qp, wr, bad_wr);

	/*
	 * A user QP's WQEs are in its mapped ring: the post_send command,
	 * with no work requests, is only the doorbell (swroce-abi.h).
	 */
	if (wr) {
		ibdev_dbg(&sdev->ibdev, "post_send: WRs through the command on user QP %u\n",
			  ibqp->qp_num);
		*bad_wr = wr;
		return -EINVAL;
	}
	swr_qp_doorbell(qp);
	return 0;
}

void swr_qp_doorbell(struct swr_qp *qp)
{
	swr_qp_count(qp, SWR_CNT_DOORBELLS);
	/*
	 * The doorbell does the work itself and wakes the poller if needed
	 * (swr_poll.c). While the poller backs off, the flag stays set and
	 * this QP's posts ring, and are executed, here.
	 */
	swr_poll_doorbell(qp);
}

/*
 * SWROCE_METHOD_QP_DOORBELL (swroce-abi.h): the doorbell without the
 * post_send command's copies and allocation. The QP's uobject is locked
 * for reading, so the QP outlives the call.
 */
static int UVERBS_HANDLER(SWROCE_METHOD_QP_DOORBELL)(struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 SWROCE_ATTR_QP_DOORBELL_HANDLE);

	if (IS_ERR(ibqp))
		return PTR_ERR(ibqp);
	/* Every QP created through uverbs is a user QP with a mapped ring. */
	swr_qp_doorbell(to_swr_qp(ibqp));
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(SWROCE_METHOD_QP_DOORBELL,
			    UVERBS_ATTR_IDR(SWROCE_ATTR_QP_DOORBELL_HANDLE,
					    UVERBS_OBJECT_QP,
					    UVERBS_ACCESS_READ, UA_MANDATORY));

ADD_UVERBS_METHODS(swr_qp_methods, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(SWROCE_METHOD_QP_DOORBELL));

const struct uapi_definition swr_qp_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &swr_qp_methods),
	{},
};

/* Write @wr's chain into a kernel receive queue; under its producer lock. */
static int swr_post_recv_ring(struct swr_wq *wq, u32 *prod,
			      const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	bool posted = false;
	int err = 0;
	int i;

	for (; wr; wr = wr->next) {
		struct swroce_recv_wqe *wqe;

		if (wr->num_sge < 0 || wr->num_sge > wq->max_sge) {
			err = -EINVAL;
			break;
		}
		/* swr_wq_pop() publishes cons (release) after its copy. */
		if (*prod - smp_load_acquire(&wq->ring->cons.idx) >=
		    wq->num_wqe) {
			err = -ENOMEM;
			break;
		}
		wqe = swr_rq_slot(wq, *prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved_0 = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->sge[i].addr = wr->sg_list[i].addr;
			wqe->sge[i].length = wr->sg_list[i].length;
			wqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		(*prod)++;
		posted = true;
	}
	if (posted)
		/* Pairs with swr_wq_pop()'s acquire of prod: WQEs first. */
		smp_store_release(&wq->ring->prod.idx, *prod);
	if (err)
		*bad_wr = wr;
	return err;
}

int swr_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct swr_qp *qp = to_swr_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err;

	/*
	 * User QPs post into the mapped ring; a QP on an SRQ and an XRC QP
	 * have no RQ.
	 */
	if (qp->is_user || !qp->rq.ring || qp->srq || state == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq_prod_lock, flags);
	err = swr_post_recv_ring(&qp->rq, &qp->rq_prod, wr, bad_wr);
	spin_unlock_irqrestore(&qp->rq_prod_lock, flags);

	/* Posted to a QP in error: completes with a flush error. */
	if (state == IB_QPS_ERR) {
		WRITE_ONCE(qp->flush_pending, true);
		swr_poll_kick(swr_qp_dev(qp));
	}
	return err;
}

int swr_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct swr_srq *srq = to_swr_srq(ibsrq);
	unsigned long flags;
	int err;

	if (srq->wq.mem) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->prod_lock, flags);
	err = swr_post_recv_ring(&srq->wq, &srq->prod, wr, bad_wr);
	spin_unlock_irqrestore(&srq->prod_lock, flags);
	return err;
}
