// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC: eXtended Reliable Connected transport (IBTA volume 1, chapter 9,
 * and annex A14).
 *
 * The objects
 * -----------
 * An XRC domain (struct swr_xrcd) groups XRC SRQs and XRC_TGT QPs. The RDMA
 * core shares it between processes by the inode of a file (ibv_open_xrcd)
 * and keeps the list of the domain's TGT QPs that ib_open_qp() finds, so
 * the driver's domain holds nothing but its place in the count.
 *
 * An XRC SRQ is an SRQ with a number, its completion queue (ibsrq.ext.cq)
 * and its domain (ibsrq.ext.xrc.xrcd). The number is what a requester names
 * in the XRCETH of every request; sdev->srq_xa maps it back, and a lookup
 * takes a reference under the xa_lock as swr_qp_get() does, so that the
 * responder may use an SRQ found in softirq until it puts it.
 *
 * An XRC_INI QP is a send queue only (no receive queue, no receive CQ);
 * each send WQE names the remote SRQ (swroce_send_wqe.xrc_srqn). An
 * XRC_TGT QP is a responder only: it is created by the core without udata
 * (the process gets a handle, shared through the domain, no rings), has no
 * PD, no CQ and no queue of its own. The requests it takes go to the SRQ
 * their XRCETH names, which must be of the TGT QP's domain (else: NAK
 * invalid request, as for any request the responder cannot take), and
 * their receive completions go to that SRQ's CQ.
 *
 * Memory protection
 * -----------------
 * A TGT QP has no PD, so the memory accesses of the requests it takes
 * (receive SGEs, RDMA WRITE/READ and atomic rkeys, SEND with Invalidate)
 * are checked against the PD of the XRC SRQ the request names (annex A14:
 * the SRQ stands in for the QP's PD). mlx5 does the same: it gives its TGT
 * QPs a device-internal PD no memory is registered in, and RDMA and
 * atomics through XRC work there. swr_resp_pd() is the one place that
 * says which PD a responder checks against.
 */
#include "swr.h"
#include "swr_qp.h"
#include "swr_udata.h"

int swr_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibxrcd->device);
	int err;

	if (udata) {
		err = swr_udata_no_cmd(ibxrcd->device, udata);
		if (err)
			return err;
	}
	if (atomic_inc_return(&sdev->num_xrcd) > SWR_MAX_XRCD) {
		atomic_dec(&sdev->num_xrcd);
		return -ENOMEM;
	}
	return 0;
}

int swr_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	atomic_dec(&to_swr_dev(ibxrcd->device)->num_xrcd);
	return 0;
}

int swr_xrc_srq_add(struct swr_srq *srq, const struct ib_srq_init_attr *init)
{
	struct ib_device *ibdev = srq->ibsrq.device;
	struct swr_dev *sdev = to_swr_dev(ibdev);
	u32 srqn;
	int err;

	if (!init->ext.xrc.xrcd || !init->ext.cq) {
		ibdev_dbg(ibdev, "create_srq: XRC without domain or CQ\n");
		return -EINVAL;
	}
	refcount_set(&srq->ref, 1);
	init_completion(&srq->released);
	/* Cyclic: a number comes back only after 2^24 others. */
	err = xa_alloc_cyclic_irq(&sdev->srq_xa, &srqn, srq,
				  XA_LIMIT(1, SWR_XRC_SRQN_MAX),
				  &sdev->srqn_next, GFP_KERNEL);
	if (err == -EBUSY)
		return -ENOMEM;
	if (err < 0)
		return err;
	srq->srqn = srqn;
	srq->ibsrq.ext.xrc.srq_num = srqn;
	return 0;
}

void swr_xrc_srq_del(struct swr_srq *srq)
{
	xa_erase_irq(&to_swr_dev(srq->ibsrq.device)->srq_xa, srq->srqn);
	swr_srq_put(srq);
	wait_for_completion(&srq->released);
}

struct swr_srq *swr_xrc_srq_get(struct swr_qp *tgt, u32 srqn)
{
	struct swr_dev *sdev = swr_qp_dev(tgt);
	struct swr_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(&sdev->srq_xa, flags);
	srq = xa_load(&sdev->srq_xa, srqn & SWR_XRC_SRQN_MAX);
	/* Only an SRQ of the TGT QP's own domain takes its requests. */
	if (srq && (srq->ibsrq.ext.xrc.xrcd != tgt->xrcd ||
		    !refcount_inc_not_zero(&srq->ref)))
		srq = NULL;
	xa_unlock_irqrestore(&sdev->srq_xa, flags);
	return srq;
}

void swr_srq_put(struct swr_srq *srq)
{
	if (refcount_dec_and_test(&srq->ref))
		complete(&srq->released);
}

/*
 * The responder of @tgt (resp_lock held) takes a request naming @srqn:
 * hold that SRQ for it in resp.xsrq. False when the SRQ does not exist or
 * is not of @tgt's domain.
 */
bool swr_xrc_resp_begin(struct swr_qp *tgt, u32 srqn)
{
	struct swr_srq *srq = swr_xrc_srq_get(tgt, srqn);

	if (!srq) {
		ibdev_dbg(tgt->ibqp.device, "qp %u: XRC SRQ %u not in its domain\n",
			  tgt->ibqp.qp_num, srqn);
		return false;
	}
	tgt->resp.xsrq = srq;
	return true;
}

/* The request is done with its SRQ (resp_lock held). */
void swr_xrc_resp_end(struct swr_qp *tgt)
{
	if (tgt->resp.xsrq) {
		swr_srq_put(tgt->resp.xsrq);
		tgt->resp.xsrq = NULL;
	}
}
