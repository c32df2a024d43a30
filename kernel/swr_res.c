// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver details of "rdma res show qp|cq|mr -dd" (ib_device_ops
 * fill_res_*_entry): the engine's view of each object, beside the core's.
 * Documentation/admin-guide.rst says what each attribute means.
 *
 * Any user may ask (nldev hides only the keys from those without
 * CAP_NET_ADMIN), as often as it likes, while the engine runs. So these
 * callbacks never wait for the engine: they take only the spinlocks the
 * engine holds for a few instructions (state_lock, resp_lock, cq->lock,
 * mr->lock), never sq_lock, the mutex a requester holds for a whole turn.
 * What sq_lock protects (the requester's PSN, its retry counts, the
 * wire's window) is read word by word with READ_ONCE(): each value is
 * one the engine really had, though two of them may come from either side
 * of a turn. The core holds a reference on the object throughout.
 */
#include <net/netlink.h>
#include <rdma/ib_umem.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "swr.h"
#include "swr_mr.h"
#include "swr_net.h"
#include "swr_qp.h"
#include "swr_wire.h"

/* The requester's progress, read without sq_lock (see above). */
struct swr_res_req {
	u32 sq_psn;
	u32 una_psn;		/* wire: first PSN not yet acknowledged */
	u32 psns_out;		/* wire: PSNs sent and not acknowledged */
	u32 wqes_out;		/* wire: WQEs in the window */
	u8 retry_left;
	u8 rnr_left;
	const char *timer;
	u64 timer_at;		/* ktime ns; 0: none */
};

static void swr_res_req_read(struct swr_qp *qp, struct swr_res_req *r)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);
	struct swr_wire_req *wr;
	s32 out;

	memset(r, 0, sizeof(*r));
	r->sq_psn = READ_ONCE(qp->req.psn);
	r->retry_left = READ_ONCE(qp->req.retry_left);
	r->rnr_left = READ_ONCE(qp->req.rnr_left);
	r->timer = "off";
	r->timer_at = READ_ONCE(qp->req.wait_until);
	if (r->timer_at)
		r->timer = "wait";	/* local: RNR or no answer */
	if (!w)
		return;
	wr = &w->req;
	r->una_psn = READ_ONCE(wr->acked_psn);
	out = swr_psn_diff(READ_ONCE(wr->sent_hi), r->una_psn);
	r->psns_out = out > 0 ? out : 0;
	r->wqes_out = READ_ONCE(wr->tail) - READ_ONCE(wr->head);
	if (!r->wqes_out)
		return;
	/* The window's WQEs are the oldest: their counts and timers. */
	r->retry_left = READ_ONCE(wr->retry_left);
	r->rnr_left = READ_ONCE(wr->rnr_left);
	r->timer_at = READ_ONCE(wr->rnr_until);
	if (r->timer_at) {
		r->timer = "rnr";
		return;
	}
	r->timer_at = READ_ONCE(wr->deadline);
	r->timer = r->timer_at ? "ack" : "off";
}

static int swr_res_put_req(struct sk_buff *msg, struct swr_qp *qp)
{
	struct swr_res_req r;
	u64 now = ktime_get_ns();

	swr_res_req_read(qp, &r);
	if (rdma_nl_put_driver_u32(msg, "sq_psn", r.sq_psn) ||
	    rdma_nl_put_driver_u32(msg, "retry_left", r.retry_left) ||
	    rdma_nl_put_driver_u32(msg, "rnr_retry_left", r.rnr_left) ||
	    rdma_nl_put_driver_string(msg, "timer", r.timer))
		return -EMSGSIZE;
	if (r.timer_at &&
	    rdma_nl_put_driver_u64(msg, "timer_left_us",
				   r.timer_at > now ?
				   div_u64(r.timer_at - now, NSEC_PER_USEC) : 0))
		return -EMSGSIZE;
	if (READ_ONCE(qp->wire) &&
	    (rdma_nl_put_driver_u32(msg, "una_psn", r.una_psn) ||
	     rdma_nl_put_driver_u32(msg, "psns_out", r.psns_out) ||
	     rdma_nl_put_driver_u32(msg, "wqes_out", r.wqes_out) ||
	     /* DCQCN's current rate; 0: not limited (swr_cc.c) */
	     rdma_nl_put_driver_u32(msg, "cc_rate_mbps",
				    swr_cc_rate_mbps(qp)) ||
	     rdma_nl_put_driver_u32(msg, "cc_rtt_us", swr_cc_rtt_us(qp)) ||
	     /* the loss window in PSNs; 0: none (cc_loss_window off) */
	     rdma_nl_put_driver_u32(msg, "cc_loss_window",
				    swr_cc_lw_cwnd(qp))))
		return -EMSGSIZE;
	return 0;
}

/* The ring indices; the responder's under resp_lock, as the engine's. */
static int swr_res_put_rings(struct sk_buff *msg, struct swr_qp *qp)
{
	u32 sq_prod, rq_prod = 0, rq_cons = 0, rq_psn;

	/* An XRC_TGT QP has no rings: it works on its requests' SRQs. */
	if (!qp->sq.ring) {
		spin_lock_bh(&qp->resp_lock);
		rq_psn = qp->resp.psn;
		spin_unlock_bh(&qp->resp_lock);
		if (rdma_nl_put_driver_u32(msg, "rq_psn", rq_psn) ||
		    rdma_nl_put_driver_string(msg, "rq", "xrc_srq"))
			return -EMSGSIZE;
		return 0;
	}
	/* User rings: what the provider has published, for all we know. */
	sq_prod = qp->is_user ? READ_ONCE(qp->sq.ring->prod.idx) :
				READ_ONCE(qp->sq.prod);
	spin_lock_bh(&qp->resp_lock);
	rq_psn = qp->resp.psn;
	if (qp->rq.ring) {
		rq_prod = qp->is_user ? READ_ONCE(qp->rq.ring->prod.idx) :
					READ_ONCE(qp->rq_prod);
		rq_cons = qp->rq.cons;
	}
	spin_unlock_bh(&qp->resp_lock);

	if (rdma_nl_put_driver_u32(msg, "rq_psn", rq_psn) ||
	    rdma_nl_put_driver_u32(msg, "sq_size", qp->sq.num_wqe) ||
	    rdma_nl_put_driver_u32(msg, "sq_prod", sq_prod) ||
	    rdma_nl_put_driver_u32(msg, "sq_cons", READ_ONCE(qp->sq.cons)))
		return -EMSGSIZE;
	if (qp->srq)
		return rdma_nl_put_driver_string(msg, "rq", "srq");
	if (!qp->rq.ring)
		return rdma_nl_put_driver_string(msg, "rq", "none");
	if (rdma_nl_put_driver_u32(msg, "rq_size", qp->rq.num_wqe) ||
	    rdma_nl_put_driver_u32(msg, "rq_prod", rq_prod) ||
	    rdma_nl_put_driver_u32(msg, "rq_cons", rq_cons))
		return -EMSGSIZE;
	return 0;
}

/*
 * Where the QP's requests go: "local" (a QP of this device), "wire",
 * "unreachable" (a foreign GID while the device is off the wire), or
 * "none" (no path: UD, or an RC/UC QP before RTR).
 */
static const char *swr_res_qp_path(struct swr_qp *qp)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	enum ib_qp_state state;
	unsigned long flags;
	union ib_gid dgid;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC &&
	    qp->ibqp.qp_type != IB_QPT_XRC_INI)
		return "none";
	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	dgid = rdma_ah_read_grh(&qp->attr.ah)->dgid;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT)
		return "none";
	if (swr_gid_is_local(sdev, &dgid))
		return "local";
	return swr_net_on_wire(sdev) ? "wire" : "unreachable";
}

static int swr_res_put_qp(struct sk_buff *msg, void *obj)
{
	struct swr_qp *qp = obj;
	struct swr_poller *p = swr_qp_dev(qp)->poller;
	u32 flags = qp->sq.ring ? READ_ONCE(qp->sq.ring->flags.idx) : 0;

	if (swr_res_put_req(msg, qp) || swr_res_put_rings(msg, qp))
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "path", swr_res_qp_path(qp)) ||
	    rdma_nl_put_driver_string(msg, "poller",
				      READ_ONCE(p->need_wakeup) ? "asleep" :
								  "polling"))
		return -EMSGSIZE;
	/* The flag the provider reads before each doorbell. */
	if (qp->is_user &&
	    rdma_nl_put_driver_u32(msg, "need_wakeup",
				   !!(flags & SWROCE_SQ_NEED_WAKEUP)))
		return -EMSGSIZE;
	return 0;
}

static const char *swr_res_cq_arm(u32 arm, u32 fired_seq)
{
	if ((arm >> SWROCE_CQ_ARM_SEQ_SHIFT) == fired_seq)
		return "no";	/* that request has fired already */
	switch (arm & SWROCE_CQ_ARM_KIND_MASK) {
	case SWROCE_CQ_ARM_NEXT:
		return "next";
	case SWROCE_CQ_ARM_SOLICITED:
		return "solicited";
	default:
		return "no";
	}
}

/* Under cq->lock, as swr_cq_post() reads them. */
static int swr_res_put_cq(struct sk_buff *msg, void *obj)
{
	struct swr_cq *cq = obj;
	u32 slots, prod, cons, arm, fired;
	unsigned long flags;
	bool overflow;

	spin_lock_irqsave(&cq->lock, flags);
	slots = cq->num_cqe;
	prod = cq->prod;
	cons = READ_ONCE(cq->ring->cons.idx);
	arm = READ_ONCE(cq->ring->arm.idx);
	fired = cq->fired_seq;
	overflow = cq->overflow;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (rdma_nl_put_driver_u32(msg, "cq_size", slots) ||
	    rdma_nl_put_driver_u32(msg, "cq_prod", prod) ||
	    rdma_nl_put_driver_u32(msg, "cq_cons", cons) ||
	    rdma_nl_put_driver_string(msg, "armed",
				      swr_res_cq_arm(arm, fired)) ||
	    rdma_nl_put_driver_u32(msg, "overflow", overflow))
		return -EMSGSIZE;
	return 0;
}

static const char *const swr_res_mr_kinds[] = {
	[SWR_MR_USER] = "user",
	[SWR_MR_FAST] = "fast_reg",
	[SWR_MR_DMA] = "dma",
	[SWR_MR_DM] = "device_memory",
	[SWR_MR_ODP] = "odp",
};

static const char *const swr_res_mr_states[] = {
	[SWR_MR_INVALID] = "invalid",
	[SWR_MR_FREE] = "free",
	[SWR_MR_VALID] = "valid",
};

/* Under mr->lock; the umem is the MR's for its whole life. */
static int swr_res_put_mr(struct sk_buff *msg, void *obj)
{
	struct swr_mr *mr = obj;
	enum swr_mr_state state;
	u64 iova, length;
	unsigned int mws;
	int access;

	spin_lock_bh(&mr->lock);
	state = mr->state;
	access = mr->access;
	iova = mr->iova;
	length = mr->length;
	mws = mr->num_mw;
	spin_unlock_bh(&mr->lock);

	if (rdma_nl_put_driver_string(msg, "kind", swr_res_mr_kinds[mr->kind]) ||
	    rdma_nl_put_driver_string(msg, "mr_state",
				      swr_res_mr_states[state]) ||
	    rdma_nl_put_driver_u64(msg, "pinned_pages",
				   mr->umem ? ib_umem_num_pages(mr->umem) : 0) ||
	    rdma_nl_put_driver_u64_hex(msg, "iova", iova) ||
	    rdma_nl_put_driver_u64(msg, "length", length) ||
	    rdma_nl_put_driver_u32_hex(msg, "access", access) ||
	    rdma_nl_put_driver_u32(msg, "bound_mws", mws))
		return -EMSGSIZE;
	return 0;
}

/*
 * The driver's attributes go in one nested table after the core's, which
 * "rdma res show ... -dd" prints (and -j as keys of the object's own).
 */
static int swr_res_table(struct sk_buff *msg,
			 int (*put)(struct sk_buff *msg, void *obj), void *obj)
{
	struct nlattr *table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);

	if (!table)
		return -EMSGSIZE;
	if (put(msg, obj)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

int swr_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	return swr_res_table(msg, swr_res_put_qp, to_swr_qp(ibqp));
}

int swr_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	return swr_res_table(msg, swr_res_put_cq, to_swr_cq(ibcq));
}

int swr_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	return swr_res_table(msg, swr_res_put_mr, to_swr_mr(ibmr));
}
