// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RC and UC over the wire, with IBTA reliability: go-back-N on a PSN
 * sequence NAK or a timeout, RNR waits, duplicates answered without
 * executing anything twice (Documentation/overview.rst says what the
 * requester and the responder do under loss).
 *
 * Requester (poller, sq_lock): a WQE to a foreign GID is copied into the
 * QP's window (struct swr_wire_req) and its packets are sent from there:
 * SEND and WRITE split into path-MTU packets with consecutive PSNs, READ
 * one request taking as many PSNs as response packets, atomics one PSN.
 * AckReq is set on the last packet of each message and every
 * SWR_WIRE_ACK_EVERY packets. Responses arrive in softirq and are queued
 * on qp->wire_rxq for the poller (the requester's state is the poller's,
 * under sq_lock, which softirq must not take), or, while it sleeps, for
 * a work item on swr_wire_wq (swr_wire_rxq_kick()). Completions are in order:
 * entries are marked done as their answers come, and only the head entry
 * ever completes. UC entries complete once sent.
 *
 * The responder is in swr_wire_resp.c; what both share in swr_wire.h.
 */
#include <linux/ktime.h>
#include <linux/skbuff.h>
#include <rdma/ib_cache.h>

#include "swr.h"
#include "swr_mr.h"
#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_trace.h"
#include "swr_wire.h"

#define SWR_WIRE_ACK_EVERY	16
/*
 * swr_wire_send_pkt(): the payload's ODP pages are being faulted in (no
 * status of the IBTA's), and how long the sender waits before it retries.
 */
#define SWR_WIRE_WC_FAULT	((enum ib_wc_status)0xff)
#define SWR_WIRE_FAULT_WAIT_NS	(50 * NSEC_PER_USEC)
/*
 * A retransmission timer the poller finds expired more than a
 * SWR_WIRE_LATE_DIV-th of the timeout ago: the host stalled (a VM whose
 * vCPUs were not scheduled for a while), and the answers to what was sent
 * before were held up with the poller; a QP that had heard nothing for
 * 0.3-0.5 s with only 2-12 PSNs out, several QPs at once, was measured
 * under TCG on a busy host. Resending the window then is go-back-N for
 * nothing. Such a timer is extended once, by a SWR_WIRE_LATE_GRACE-th of
 * the timeout, before it counts: a packet really lost costs at most that
 * much more.
 */
#define SWR_WIRE_LATE_DIV	8
#define SWR_WIRE_LATE_GRACE	4

/* IBTA table 45: the RNR NAK timer field, in units of 10 us. */
static const u32 swr_wire_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

/*
 * What the wire needs of @qp's path, as modify_qp set it. It reads only the
 * QP: nothing here can fail or change behind the QP's back.
 */
void swr_wire_path(struct swr_qp *qp, struct swr_wire_path *p)
{
	const struct ib_global_route *grh;
	unsigned long flags;
	int mtu;

	spin_lock_irqsave(&qp->state_lock, flags);
	grh = rdma_ah_read_grh(&qp->attr.ah);
	p->d.dgid = grh->dgid;
	p->d.flow_label = grh->flow_label;
	p->d.traffic_class = grh->traffic_class;
	p->d.hop_limit = grh->hop_limit;
	p->d.sl = rdma_ah_get_sl(&qp->attr.ah);
	p->d.sgid = qp->attr.sgid;
	p->d.oif = qp->attr.sgid_oif;
	p->dqpn = qp->attr.dest_qpn;
	mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	p->mtu = mtu > 0 ? mtu : 256;
	p->timeout = qp->attr.timeout;
	p->retry_cnt = qp->attr.retry_cnt;
	p->rnr_retry = qp->attr.rnr_retry;
	p->min_rnr_timer = qp->attr.min_rnr_timer;
	p->max_rd_atomic = qp->attr.max_rd_atomic;
	p->max_dest_rd_atomic = qp->attr.max_dest_rd_atomic;
	p->access = qp->attr.access_flags;
	p->state = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

int swr_sge_copy(struct swr_qp *qp, const struct swroce_sge *sge, u32 num,
		 u64 off, u8 *buf, u32 len, bool to_mr)
{
	return swr_sge_copy_pd(swr_qp_dev(qp), qp->ibqp.pd, qp->ibqp.qp_num,
			       sge, num, off, buf, len, to_mr);
}

int swr_sge_copy_pd(struct swr_dev *sdev, struct ib_pd *pd, u32 qpn,
		    const struct swroce_sge *sge, u32 num, u64 off, u8 *buf,
		    u32 len, bool to_mr)
{
	struct swr_mr *mr;
	u64 iova, n;
	u32 i;
	int err;

	for (i = 0; i < num && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min_t(u64, sge[i].length - off, len);
		iova = sge[i].addr + off;
		mr = swr_mr_lookup(sdev, SWR_LKEY, sge[i].lkey, pd, qpn,
				   to_mr ? IB_ACCESS_LOCAL_WRITE : 0, &iova, n);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		/* The poller, sq_lock (a mutex): ODP pages may fault in. */
		err = swr_mr_copy_fault(mr, iova, buf, n,
					to_mr ? SWR_COPY_TO_MR :
						SWR_COPY_FROM_MR);
		swr_mr_put(mr);
		if (err)
			return err;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -ERANGE : 0;
}

int swr_wire_sge_copy(struct swr_qp *qp, const struct swr_send_wqe *w,
		      u64 off, u8 *buf, u32 len, bool to_mr)
{
	if (w->hdr.flags & SWROCE_WQE_INLINE) {
		if (to_mr || off + len > w->hdr.inline_len)
			return -ERANGE;
		memcpy(buf, w->inline_data + off, len);
		return 0;
	}
	return swr_sge_copy(qp, w->sge, w->hdr.num_sge, off, buf, len, to_mr);
}

/* Requester ---------------------------------------------------------------- */

static struct swr_wire_ent *swr_wire_ent(struct swr_wire_req *wr, u32 idx)
{
	return &wr->ent[idx % SWR_WIRE_WINDOW];
}

static bool swr_wire_is_rd_atomic(u8 op)
{
	return op == SWROCE_WR_RDMA_READ ||
	       op == SWROCE_WR_ATOMIC_CMP_AND_SWP ||
	       op == SWROCE_WR_ATOMIC_FETCH_AND_ADD;
}

struct swr_wire_qp *swr_wire_qp_get(struct swr_qp *qp, gfp_t gfp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire), *old;

	if (likely(w))
		return w;
	w = kzalloc(sizeof(*w), gfp | __GFP_NOWARN);
	if (!w)
		return NULL;
	swr_route_cache_init(&w->route);
	/* The requester and the receive softirq may race to install it. */
	old = cmpxchg(&qp->wire, NULL, w);
	if (old) {
		kfree(w);
		return old;
	}
	return w;
}

/*
 * The oldest PSN the requester still waits for (an entry is pending): in
 * the head entry, a READ's first response not placed, an atomic's request,
 * or the first PSN of a SEND or WRITE that the responder has not
 * acknowledged.
 */
static u32 swr_wire_base_psn(struct swr_wire_req *wr)
{
	struct swr_wire_ent *e = swr_wire_ent(wr, wr->head);

	if (swr_wire_is_rd_atomic(e->wqe.hdr.opcode))
		return (e->first_psn + e->rd_next) & SWR_PSN_MASK;
	if (swr_psn_diff(wr->acked_psn, e->first_psn) > 0)
		return wr->acked_psn;
	return e->first_psn;
}

bool swr_wire_idle(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);

	return !w || w->req.head == w->req.tail;
}

static u64 swr_wire_tmo(u8 timeout)
{
	return timeout ? 4096ULL << min_t(u8, timeout, 31) : 0;
}

static void swr_wire_arm(struct swr_qp *qp, const struct swr_wire_path *p)
{
	struct swr_wire_req *wr = &qp->wire->req;
	u64 tmo = swr_wire_tmo(p->timeout), now = ktime_get_ns(), pto;

	wr->deadline = tmo && !swr_wire_idle(qp) ? now + tmo : 0;
	pto = wr->deadline ? swr_cc_lw_pto(qp, tmo) : 0;
	wr->probe_at = pto ? now + pto : 0;
	wr->late_grace = false;
}

/* The retransmission timer has expired at @now: true if that counts. */
static bool swr_wire_expired(struct swr_qp *qp, const struct swr_wire_path *p,
			     u64 now)
{
	struct swr_wire_req *wr = &qp->wire->req;
	u64 tmo = swr_wire_tmo(p->timeout), late = now - wr->deadline;

	if (wr->late_grace || late <= tmo / SWR_WIRE_LATE_DIV)
		return true;
	wr->late_grace = true;
	wr->deadline = now + tmo / SWR_WIRE_LATE_GRACE;
	trace_swr_ack_timer_late(qp, swr_wire_base_psn(wr), late);
	return false;
}

/* The PSNs a WQE of @opcode and @len bytes takes at @mtu. */
static u32 swr_wire_npkts(u8 opcode, u64 len, u32 mtu)
{
	switch (opcode) {
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
	case SWROCE_WR_ATOMIC_WRITE:
		return 1;
	default:
		return len ? (u32)DIV_ROUND_UP_ULL(len, mtu) : 1;
	}
}

bool swr_wire_too_long(u8 opcode, u64 len, u32 mtu)
{
	return opcode == SWROCE_WR_RDMA_READ &&
	       swr_wire_npkts(opcode, len, mtu) > SWR_WIRE_PSN_SPAN;
}

bool swr_wire_submit(struct swr_qp *qp, u64 len)
{
	const struct swr_send_wqe *w = &qp->req.wqe;
	struct swr_wire_path p;
	struct swr_wire_ent *e;
	struct swr_wire_req *wr;
	u32 i, n;

	/* No memory for the window: wait and try again, as for a full one. */
	if (!swr_wire_qp_get(qp, GFP_KERNEL))
		return false;
	wr = &qp->wire->req;
	if (wr->tail - wr->head >= SWR_WIRE_WINDOW || wr->rnr_until)
		return false;
	swr_wire_path(qp, &p);
	/*
	 * A fence waits for every earlier READ and atomic; a READ or atomic
	 * waits while max_rd_atomic of them are outstanding.
	 */
	if (swr_wire_is_rd_atomic(w->hdr.opcode) ||
	    (w->hdr.flags & SWROCE_WQE_FENCE)) {
		for (i = wr->head, n = 0; i != wr->tail; i++)
			if (swr_wire_is_rd_atomic(swr_wire_ent(wr, i)->wqe.hdr.opcode))
				n++;
		if ((w->hdr.flags & SWROCE_WQE_FENCE) && n)
			return false;
		if (swr_wire_is_rd_atomic(w->hdr.opcode) &&
		    n >= max_t(u32, p.max_rd_atomic, 1))
			return false;
	}

	n = swr_wire_npkts(w->hdr.opcode, len, p.mtu);

	e = swr_wire_ent(wr, wr->tail);
	e->wqe = *w;
	e->len = len;
	e->first_psn = qp->req.psn;
	e->rd_next = 0;
	e->rd_rereq = U32_MAX;
	e->rd_mask = 0;
	e->done = false;
	e->npkts = n;
	if (swr_wire_idle(qp)) {
		wr->retry_left = p.retry_cnt;
		wr->rnr_left = p.rnr_retry;
		wr->sent_hi = e->first_psn;
		wr->acked_psn = e->first_psn;
		wr->nak_seen = false;
		/* A loss episode ends with what was out: nothing is. */
		wr->lw.recovering = false;
	}
	qp->req.psn = (qp->req.psn + e->npkts) & SWR_PSN_MASK;
	wr->tail++;
	swr_wire_poll(qp);
	return true;
}

static u8 swr_wire_req_opcode(const struct swr_wire_ent *e, u32 k,
			      bool *ack_req)
{
	bool first = k == 0, last = k + 1 == e->npkts;
	u8 op;

	*ack_req = last;
	switch (e->wqe.hdr.opcode) {
	case SWROCE_WR_SEND:
		op = first ? (last ? SWR_OP_SEND_ONLY : SWR_OP_SEND_FIRST) :
			     (last ? SWR_OP_SEND_LAST : SWR_OP_SEND_MIDDLE);
		break;
	case SWROCE_WR_SEND_WITH_IMM:
		op = first ? (last ? SWR_OP_SEND_ONLY_IMM : SWR_OP_SEND_FIRST) :
			     (last ? SWR_OP_SEND_LAST_IMM : SWR_OP_SEND_MIDDLE);
		break;
	case SWROCE_WR_SEND_WITH_INV:
		op = first ? (last ? SWR_OP_SEND_ONLY_INV : SWR_OP_SEND_FIRST) :
			     (last ? SWR_OP_SEND_LAST_INV : SWR_OP_SEND_MIDDLE);
		break;
	case SWROCE_WR_RDMA_WRITE:
		op = first ? (last ? SWR_OP_WRITE_ONLY : SWR_OP_WRITE_FIRST) :
			     (last ? SWR_OP_WRITE_LAST : SWR_OP_WRITE_MIDDLE);
		break;
	case SWROCE_WR_RDMA_WRITE_WITH_IMM:
		op = first ? (last ? SWR_OP_WRITE_ONLY_IMM :
				     SWR_OP_WRITE_FIRST) :
			     (last ? SWR_OP_WRITE_LAST_IMM :
				     SWR_OP_WRITE_MIDDLE);
		break;
	case SWROCE_WR_RDMA_READ:
		op = SWR_OP_READ_REQ;
		*ack_req = true;
		break;
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
		op = SWR_OP_CMP_SWAP;
		*ack_req = true;
		break;
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
		op = SWR_OP_FETCH_ADD;
		*ack_req = true;
		break;
	default:	/* SWROCE_WR_ATOMIC_WRITE */
		op = SWR_OP_ATOMIC_WRITE;
		*ack_req = true;
		break;
	}
	return op;
}

/*
 * The packet of @e that goes out when @sent of its packets are: a READ
 * asks again only for the responses not yet placed.
 */
static u32 swr_wire_pkt_index(const struct swr_wire_ent *e, u32 sent)
{
	if (e->wqe.hdr.opcode == SWROCE_WR_RDMA_READ)
		return min(e->rd_next, e->npkts - 1);
	return sent;
}

void swr_wire_tx_flush(struct swr_qp *qp, const struct swr_wire_path *p,
		       struct sk_buff_head *q)
{
	swr_xmit_batch(swr_qp_dev(qp), q, &p->d,
		       swr_sport(qp->ibqp.qp_num, p->dqpn), swr_qp_route(qp));
}

void swr_wire_tx_queue(struct swr_qp *qp, const struct swr_wire_path *p,
		       struct sk_buff_head *q, struct sk_buff *skb, bool now)
{
	__skb_queue_tail(q, skb);
	if (now || skb_queue_len(q) >= SWR_TX_BATCH)
		swr_wire_tx_flush(qp, p, q);
}

/*
 * Build packet @k of @e at @now and queue it on @q, which goes out at a
 * packet asking for an ACK (a round-trip probe leaves when its time is
 * taken) or when full. 0, or a local error status for the WQE.
 */
static enum ib_wc_status swr_wire_send_pkt(struct swr_qp *qp,
					   const struct swr_wire_path *p,
					   struct swr_wire_ent *e, u32 k,
					   u64 now, struct sk_buff_head *q)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	bool rc = swr_qp_reliable(qp), ack_req, fresh;
	const struct swroce_send_wqe *h = &e->wqe.hdr;
	u8 op = swr_wire_req_opcode(e, k, &ack_req);
	const struct swr_opinfo *oi = swr_opinfo(swr_qp_transport(qp) | op);
	struct swr_wire_req *wr = &qp->wire->req;
	u32 paylen = 0, pad, hdr_len = oi->hdr_len, psn, span = 1;
	struct sk_buff *skb;
	u64 off, tmo;
	int err;
	u8 *x;

	k = swr_wire_pkt_index(e, k);
	if (h->opcode == SWROCE_WR_RDMA_READ)
		span = e->npkts - k;
	off = (u64)k * p->mtu;
	psn = (e->first_psn + k) & SWR_PSN_MASK;
	fresh = swr_psn_diff(psn, wr->sent_hi) >= 0;
	if (!fresh) {
		swr_qp_count(qp, SWR_CNT_RETRANSMITS);
		trace_swr_retransmit(qp, psn, wr->retry_left);
	} else {
		wr->sent_hi = (psn + span) & SWR_PSN_MASK;
	}
	if (oi->flags & SWR_OPF_PAYLOAD) {
		if (h->opcode == SWROCE_WR_ATOMIC_WRITE)
			paylen = sizeof(u64);
		else
			paylen = (u32)min_t(u64, e->len - off, p->mtu);
	}
	pad = (4 - (paylen & 3)) & 3;
	if (rc && ++wr->unacked >= SWR_WIRE_ACK_EVERY)
		ack_req = true;
	/*
	 * A slow QP (paced, or short of CPU) asks at least every eighth of
	 * its timeout: its timer must not expire before it has asked.
	 */
	tmo = swr_wire_tmo(p->timeout);
	if (rc && tmo && now - wr->ackreq_ts >= tmo / 8)
		ack_req = true;
	if (ack_req) {
		wr->unacked = 0;
		wr->ackreq_ts = now;
		/* A round-trip probe: a new packet, one at a time (Karn). */
		if (fresh && !wr->rtt_ts) {
			wr->rtt_ts = now;
			wr->rtt_psn = psn;
		}
	}

	skb = swr_skb_alloc(sdev, hdr_len, paylen, pad);
	if (!skb)
		return IB_WC_SUCCESS;	/* as if lost: the timer resends */
	swr_bth_init((struct swr_bth *)skb->data, swr_qp_transport(qp) | op,
		     (h->flags & SWROCE_WQE_SOLICITED) && (oi->flags & SWR_OPF_LAST),
		     pad, p->dqpn, psn, rc && ack_req);
	x = skb->data + sizeof(struct swr_bth);
	if (oi->flags & SWR_OPF_XRCETH) {
		/* The remote SRQ, in every packet of the message. */
		((struct swr_xrceth *)x)->srqn =
			htonl(h->xrc_srqn & SWR_XRC_SRQN_MAX);
		x += sizeof(struct swr_xrceth);
	}
	if (oi->flags & SWR_OPF_RETH) {
		struct swr_reth *reth = (struct swr_reth *)x;

		reth->va = cpu_to_be64(h->rdma.remote_addr + off);
		reth->rkey = htonl(h->rdma.rkey);
		reth->len = htonl((u32)(e->len - off));
		if (h->opcode == SWROCE_WR_ATOMIC_WRITE) {
			reth->va = cpu_to_be64(h->atomic.remote_addr);
			reth->rkey = htonl(h->atomic.rkey);
			reth->len = htonl(sizeof(u64));
		}
		x += sizeof(*reth);
	}
	if (oi->flags & SWR_OPF_ATMETH) {
		struct swr_atmeth *a = (struct swr_atmeth *)x;

		a->va = cpu_to_be64(h->atomic.remote_addr);
		a->rkey = htonl(h->atomic.rkey);
		if (h->opcode == SWROCE_WR_ATOMIC_CMP_AND_SWP) {
			a->swap_add = cpu_to_be64(h->atomic.swap);
			a->comp = cpu_to_be64(h->atomic.compare_add);
		} else {
			a->swap_add = cpu_to_be64(h->atomic.compare_add);
		}
		x += sizeof(*a);
	}
	if (oi->flags & SWR_OPF_IMMDT) {
		((struct swr_immdt *)x)->imm = (__force __be32)h->ex;
		x += sizeof(struct swr_immdt);
	}
	if (oi->flags & SWR_OPF_IETH)
		((struct swr_ieth *)x)->rkey = htonl(h->ex);

	x = skb_put(skb, paylen);
	if (h->opcode == SWROCE_WR_ATOMIC_WRITE) {
		put_unaligned_be64(h->atomic.compare_add, x);
	} else if (paylen) {
		err = swr_wire_sge_copy(qp, &e->wqe, off, x, paylen, false);
		if (err) {
			kfree_skb(skb);
			/* ODP: a work item faults the pages in; send later. */
			return err == -EAGAIN ? SWR_WIRE_WC_FAULT :
						IB_WC_LOC_PROT_ERR;
		}
	}
	skb_put_zero(skb, pad + SWR_ICRC_BYTES);
	/* DCQCN charges what went out (swr_cc.c). */
	swr_cc_sent(qp, skb->len, now);
	swr_wire_tx_queue(qp, p, q, skb, ack_req);
	return IB_WC_SUCCESS;
}

/* Complete the head entry with @status (0 byte_len on error). */
static void swr_wire_retire(struct swr_qp *qp, enum ib_wc_status status)
{
	struct swr_wire_req *wr = &qp->wire->req;
	struct swr_wire_ent *e = swr_wire_ent(wr, wr->head);

	swr_req_complete(qp, &e->wqe, status,
			 status == IB_WC_SUCCESS ? (u32)e->len : 0);
	if (wr->send == wr->head) {
		wr->send++;
		wr->sent = 0;
	}
	wr->head++;
	/* A WQE that waited for room may go now. */
	qp->req.wait_until = 0;
}

/* Complete the answered entries at the head, in order. */
static void swr_wire_retire_done(struct swr_qp *qp)
{
	struct swr_wire_req *wr = &qp->wire->req;

	while (wr->head != wr->tail && swr_wire_ent(wr, wr->head)->done)
		swr_wire_retire(qp, IB_WC_SUCCESS);
}

/*
 * RC: may packet wr->sent of @e (the READ request from rd_next) not go
 * out yet, SWR_WIRE_INFLIGHT PSNs being out, the loss window's, or
 * DCQCN's window (in PSNs of @mtu, at least two ACK requests' worth: an
 * ACK of the packets up to the last request always opens it again)? The
 * last one that may asks for an ACK, so that the answer that opens the
 * window again comes.
 */
static bool swr_wire_inflight_full(struct swr_qp *qp,
				   const struct swr_wire_ent *e, u32 mtu)
{
	struct swr_wire_req *wr = &qp->wire->req;
	u32 k = swr_wire_pkt_index(e, wr->sent);
	int out = swr_psn_diff(e->first_psn + k, swr_wire_base_psn(wr));
	u64 win = swr_cc_window(qp);
	int lim = min_t(u32, swr_cc_lw_window(qp), SWR_WIRE_INFLIGHT);

	if (win != U64_MAX)
		lim = min_t(int, lim,
			    clamp_t(u64, div_u64(win, mtu),
				    2 * SWR_WIRE_ACK_EVERY, SWR_WIRE_INFLIGHT));
	if (out >= lim)
		return true;
	if (out == lim - 1)
		wr->unacked = SWR_WIRE_ACK_EVERY;
	return false;
}

/*
 * Send what is pending, as far as the turn's packet budget goes: this
 * runs at the start of a turn and after each WQE the turn adds to the
 * window, and all of them together send SWR_WIRE_BURST packets at most.
 * What is left has_work() sees (send != tail): the next turn sends it.
 */
static void swr_wire_send_pending(struct swr_qp *qp,
				  const struct swr_wire_path *p)
{
	struct swr_wire_req *wr = &qp->wire->req;
	bool rc = swr_qp_reliable(qp);
	struct sk_buff_head batch;
	enum ib_wc_status st;
	struct swr_wire_ent *e;
	bool sent = false;
	u64 now, pace;

	__skb_queue_head_init(&batch);
	WRITE_ONCE(wr->inflight_full, false);
	WRITE_ONCE(wr->paced_until, 0);
	while (wr->send != wr->tail && qp->req.turn_pkts) {
		e = swr_wire_ent(wr, wr->send);
		if (e->done) {
			/* Answered already (a go-back passed over it). */
			wr->send++;
			wr->sent = 0;
			continue;
		}
		/* Packets the responder is known to have: skip them. */
		if (rc && !swr_wire_is_rd_atomic(e->wqe.hdr.opcode) &&
		    swr_psn_diff(e->first_psn + wr->sent, wr->acked_psn) < 0) {
			wr->sent = min_t(u32, (wr->acked_psn - e->first_psn) &
					 SWR_PSN_MASK, e->npkts - 1);
			if (swr_psn_diff(e->first_psn + e->npkts - 1,
					 wr->acked_psn) < 0)
				wr->sent = e->npkts - 1;
		}
		if (rc && swr_wire_inflight_full(qp, e, p->mtu)) {
			/* An answer or the timer clears it (has_work). */
			WRITE_ONCE(wr->inflight_full, true);
			break;
		}
		/* Not before the rate DCQCN allows: a deadline resumes. */
		now = ktime_get_ns();
		pace = swr_cc_wait(qp, now);
		if (pace) {
			WRITE_ONCE(wr->paced_until, pace);
			swr_poll_deadline(swr_qp_dev(qp), pace);
			break;
		}
		st = swr_wire_send_pkt(qp, p, e, wr->sent, now, &batch);
		qp->req.turn_pkts--;
		if (st == SWR_WIRE_WC_FAULT) {
			/* Nothing went out; the deadline brings us back. */
			pace = now + SWR_WIRE_FAULT_WAIT_NS;
			WRITE_ONCE(wr->paced_until, pace);
			swr_poll_deadline(swr_qp_dev(qp), pace);
			break;
		}
		if (st != IB_WC_SUCCESS) {
			swr_wire_tx_flush(qp, p, &batch);
			/* Only the head may complete: fail it once it is. */
			while (wr->head != wr->send)
				swr_wire_retire(qp, IB_WC_SUCCESS);
			swr_wire_retire(qp, st);
			return;
		}
		sent = true;
		/* READ and atomics: one request packet for all PSNs. */
		if (swr_wire_is_rd_atomic(e->wqe.hdr.opcode) ||
		    e->wqe.hdr.opcode == SWROCE_WR_ATOMIC_WRITE)
			wr->sent = e->npkts;
		else
			wr->sent++;
		if (wr->sent == e->npkts) {
			wr->send++;
			wr->sent = 0;
			/* UC: nothing comes back; done once sent. */
			if (!rc)
				while (wr->head != wr->send)
					swr_wire_retire(qp, IB_WC_SUCCESS);
		}
	}
	swr_wire_tx_flush(qp, p, &batch);
	if (sent && rc && !wr->deadline)
		swr_wire_arm(qp, p);
}

/*
 * Go back to entry @i, packet @k (a NAK, a timeout, an early READ
 * re-request): resend from there. Go-back-N: everything after it is sent
 * again too, and the responder answers the duplicates.
 */
static void swr_wire_go_back(struct swr_qp *qp, u32 i, u32 k)
{
	struct swr_wire_req *wr = &qp->wire->req;
	struct swr_wire_ent *e = swr_wire_ent(wr, i);

	wr->send = i;
	/* A probe's answer may now be a retransmission's: no sample. */
	wr->rtt_ts = 0;
	/* READ: from rd_next (swr_wire_send_pkt()); atomics: one packet. */
	wr->sent = swr_wire_is_rd_atomic(e->wqe.hdr.opcode) ? 0 : k;
}

/*
 * The entry sent so far that holds @psn, or NULL: its index in *@idx.
 * Only PSNs below sent_hi were ever sent.
 */
static struct swr_wire_ent *swr_wire_find(struct swr_qp *qp, u32 psn,
					  u32 *idx)
{
	struct swr_wire_req *wr = &qp->wire->req;
	struct swr_wire_ent *e;
	u32 i;

	if (swr_psn_diff(psn, wr->sent_hi) >= 0)
		return NULL;
	for (i = wr->head; i != wr->tail; i++) {
		e = swr_wire_ent(wr, i);
		if (swr_psn_diff(psn, e->first_psn) < 0)
			return NULL;
		if (swr_psn_diff(psn, e->first_psn + e->npkts) < 0) {
			*idx = i;
			return e;
		}
	}
	return NULL;
}

/*
 * Entries before @idx that take no response are implicitly acknowledged
 * (the responder executes in PSN order). True when one became done.
 */
static bool swr_wire_implicit(struct swr_qp *qp, u32 idx)
{
	struct swr_wire_req *wr = &qp->wire->req;
	struct swr_wire_ent *e;
	bool progress = false;
	u32 i;

	for (i = wr->head; i != idx; i++) {
		e = swr_wire_ent(wr, i);
		if (!e->done && !swr_wire_is_rd_atomic(e->wqe.hdr.opcode)) {
			e->done = true;
			progress = true;
		}
	}
	return progress;
}

/* The first entry not answered at or before @idx. */
static u32 swr_wire_first_open(struct swr_qp *qp, u32 idx)
{
	struct swr_wire_req *wr = &qp->wire->req;
	u32 i;

	for (i = wr->head; i != idx; i++)
		if (!swr_wire_ent(wr, i)->done)
			break;
	return i;
}

static enum ib_wc_status swr_wire_nak_status(u8 syn)
{
	switch (syn) {
	case SWR_AETH_NAK_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SWR_AETH_NAK_REM_ACC:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

static void swr_wire_count_nak(struct swr_qp *qp, u8 syn)
{
	switch (syn) {
	case SWR_AETH_NAK_PSN_SEQ:
		swr_qp_count(qp, SWR_CNT_NAK_SEQ_RCVD);
		break;
	case SWR_AETH_NAK_INV_REQ:
		swr_qp_count(qp, SWR_CNT_NAK_INV_RCVD);
		break;
	case SWR_AETH_NAK_REM_ACC:
		swr_qp_count(qp, SWR_CNT_NAK_ACC_RCVD);
		break;
	default:
		swr_qp_count(qp, SWR_CNT_NAK_OP_RCVD);
		break;
	}
}

/*
 * The responder has every PSN before @psn (said by a response that arrived
 * at @rx_ns): forward progress when that is news, also within a message
 * (a coalesced ACK, a NAK further on).
 */
static bool swr_wire_acked(struct swr_qp *qp, u32 psn, u64 rx_ns)
{
	struct swr_wire_req *wr = &qp->wire->req;
	int n = swr_psn_diff(psn, wr->acked_psn);

	if (n <= 0)
		return false;
	wr->acked_psn = psn;
	swr_cc_lw_acked(qp, n, psn);
	/*
	 * The probe answered: a round trip for congestion control, ending
	 * when the answer arrived, not when this QP's turn came to read it
	 * (later for a QP further down the poller's list: its periods would
	 * stretch, and it would grow slower than the others).
	 */
	if (wr->rtt_ts && swr_psn_diff(psn, wr->rtt_psn) > 0) {
		if (rx_ns > wr->rtt_ts)
			swr_cc_rtt(qp, rx_ns - wr->rtt_ts);
		wr->rtt_ts = 0;
	}
	return true;
}

/* An ACK, NAK or RNR NAK for @psn, arrived at @rx_ns. True on progress. */
static bool swr_wire_req_ack(struct swr_qp *qp, const struct swr_wire_path *p,
			     u32 psn, u8 syn, u64 rx_ns)
{
	struct swr_wire_req *wr = &qp->wire->req;
	struct swr_wire_ent *e;
	bool progress = false;
	u32 i, idx;

	switch (syn & SWR_AETH_TYPE_MASK) {
	case SWR_AETH_ACK:
		/* Coalesced: every entry ending at or before @psn. */
		if (swr_psn_diff(psn, wr->sent_hi) >= 0) {
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
			return false;
		}
		progress = swr_wire_acked(qp, (psn + 1) & SWR_PSN_MASK, rx_ns);
		if (!progress)
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
		for (i = wr->head; i != wr->tail; i++) {
			e = swr_wire_ent(wr, i);
			if (swr_psn_diff(psn, e->first_psn + e->npkts - 1) < 0)
				break;
			if (!e->done && !swr_wire_is_rd_atomic(e->wqe.hdr.opcode)) {
				e->done = true;
				progress = true;
			}
		}
		return progress;
	case SWR_AETH_RNR_NAK:
		swr_qp_count(qp, SWR_CNT_RNR_NAK_RCVD);
		trace_swr_nak_rcvd(qp, psn, syn);
		e = swr_wire_find(qp, psn, &idx);
		if (!e)
			return false;
		progress = swr_wire_implicit(qp, idx);
		progress |= swr_wire_acked(qp, psn, rx_ns);
		swr_wire_retire_done(qp);
		if (!wr->rnr_left) {
			if (wr->head == idx)
				swr_wire_retire(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return progress;
		}
		if (wr->rnr_left != SWR_RNR_INFINITE)
			wr->rnr_left--;
		i = swr_wire_first_open(qp, idx);
		swr_wire_go_back(qp, i, i == idx ?
				 (psn - e->first_psn) & SWR_PSN_MASK : 0);
		wr->rnr_until = ktime_get_ns() +
			(u64)swr_wire_rnr_10us[syn & 31] * 10 * NSEC_PER_USEC;
		wr->deadline = 0;
		wr->probe_at = 0;
		return progress;
	case SWR_AETH_NAK:
		swr_wire_count_nak(qp, syn);
		trace_swr_nak_rcvd(qp, psn, syn);
		e = swr_wire_find(qp, psn, &idx);
		if (!e) {
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
			return false;
		}
		progress = swr_wire_implicit(qp, idx);
		if (syn == SWR_AETH_NAK_PSN_SEQ) {
			/*
			 * Act once on a NAK: the responder NAKs a PSN once,
			 * so another for the same PSN is a duplicate or
			 * stale (the timer covers a lost retransmission).
			 */
			if (wr->nak_seen && wr->nak_psn == psn)
				return progress;
			progress |= swr_wire_acked(qp, psn, rx_ns);
			wr->nak_seen = true;
			wr->nak_psn = psn;
			swr_cc_lw_loss(qp, false,
				       swr_psn_diff(wr->sent_hi, wr->acked_psn));
			i = swr_wire_first_open(qp, idx);
			swr_wire_go_back(qp, i, i == idx ?
					 (psn - e->first_psn) & SWR_PSN_MASK :
					 0);
			/* The timer runs from the retransmission. */
			wr->deadline = 0;
			wr->probe_at = 0;
			return progress;
		}
		swr_wire_retire_done(qp);
		if (wr->head == idx)
			swr_wire_retire(qp, swr_wire_nak_status(syn));
		return progress;
	}
	swr_qp_count(qp, SWR_CNT_DUP_RESP);
	return false;
}

/*
 * Ask for @e's responses again from rd_next, unless already asked from
 * there: one request per gap (a lost re-request is the timer's).
 */
static void swr_wire_rd_rerequest(struct swr_qp *qp, struct swr_wire_ent *e,
				  u32 idx)
{
	if (e->rd_rereq == e->rd_next)
		return;
	e->rd_rereq = e->rd_next;
	swr_wire_go_back(qp, swr_wire_first_open(qp, idx), 0);
}

/* A READ response packet @k of @e. True on forward progress. */
static bool swr_wire_req_read(struct swr_qp *qp, const struct swr_wire_path *p,
			      struct swr_wire_ent *e, u32 idx, u32 k,
			      const struct swr_opinfo *oi, const u8 *payload,
			      u32 paylen)
{
	struct swr_wire_req *wr = &qp->wire->req;
	bool progress = false, last = k + 1 == e->npkts;
	u32 bit, n;
	int err;

	if (e->done || k < e->rd_next) {
		swr_qp_count(qp, SWR_CNT_DUP_RESP);
		return false;
	}
	if (k - e->rd_next >= 64) {
		/*
		 * Past what rd_mask holds: the response at rd_next is lost.
		 * Ask again from there now, once per gap, rather than drop
		 * the rest of the stream until the timer fires.
		 */
		swr_qp_count(qp, SWR_CNT_DUP_RESP);
		swr_wire_rd_rerequest(qp, e, idx);
		return false;
	}
	bit = k - e->rd_next;
	if (e->rd_mask & BIT_ULL(bit)) {
		swr_qp_count(qp, SWR_CNT_DUP_RESP);
		return false;
	}
	/*
	 * The responder starts a response stream at each request, also
	 * one asking again from rd_next: FIRST or MIDDLE anywhere but at
	 * the end, LAST or ONLY there. Every packet but the last is full.
	 */
	if (!!(oi->flags & SWR_OPF_LAST) != last ||
	    paylen != min_t(u64, e->len - (u64)k * p->mtu, p->mtu)) {
		swr_wire_retire_done(qp);
		if (wr->head == idx)
			swr_wire_retire(qp, IB_WC_BAD_RESP_ERR);
		return false;
	}
	err = paylen ? swr_wire_sge_copy(qp, &e->wqe, (u64)k * p->mtu,
					 (u8 *)payload, paylen, true) : 0;
	/* ODP: dropped while a work item faults in; asked again later. */
	if (err == -EAGAIN)
		return false;
	if (err) {
		swr_wire_retire_done(qp);
		if (wr->head == idx)
			swr_wire_retire(qp, IB_WC_LOC_PROT_ERR);
		return false;
	}
	e->rd_mask |= BIT_ULL(bit);
	for (n = 0; e->rd_mask & 1; n++) {
		e->rd_mask >>= 1;
		e->rd_next++;
		progress = true;
	}
	/* Responses answer the request's PSNs: they grow the loss window. */
	if (n)
		swr_cc_lw_acked(qp, n, (e->first_psn + e->rd_next) &
				SWR_PSN_MASK);
	if (e->rd_next == e->npkts)
		e->done = true;
	else if (last)
		/* The end came with holes before it: ask again at once. */
		swr_wire_rd_rerequest(qp, e, idx);
	return progress;
}

/* One queued response. */
static void swr_wire_req_rx(struct swr_qp *qp, struct sk_buff *skb,
			    const struct swr_wire_path *p)
{
	struct swr_wire_cb *cb = swr_wire_cb(skb);
	const u8 *hdr = skb->data + cb->hdr_off;
	const struct swr_bth *bth = (const struct swr_bth *)hdr;
	const u8 *payload = hdr + cb->hdr_len;
	u8 op = bth->opcode & ~SWR_OP_TRANSPORT_MASK;
	u32 psn = ntohl(bth->apsn) & SWR_PSN_MASK;
	struct swr_wire_req *wr = &qp->wire->req;
	const struct swr_opinfo *oi = swr_opinfo(bth->opcode);
	struct swr_wire_ent *e;
	bool progress = false;
	u32 aeth = 0, idx;
	u64 orig;
	u8 syn;
	int err;

	if (oi->flags & SWR_OPF_AETH)
		aeth = ntohl(((const struct swr_aeth *)(hdr +
			      sizeof(*bth)))->smsn);
	syn = aeth >> SWR_AETH_SYN_SHIFT;
	wr->heard_ns = cb->rx_ns;

	switch (op) {
	case SWR_OP_ACK:
		progress = swr_wire_req_ack(qp, p, psn, syn, cb->rx_ns);
		break;

	case SWR_OP_READ_RESP_FIRST:
	case SWR_OP_READ_RESP_MIDDLE:
	case SWR_OP_READ_RESP_LAST:
	case SWR_OP_READ_RESP_ONLY:
		e = swr_wire_find(qp, psn, &idx);
		if (!e || e->wqe.hdr.opcode != SWROCE_WR_RDMA_READ) {
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
			break;
		}
		progress = swr_wire_implicit(qp, idx);
		progress |= swr_wire_req_read(qp, p, e, idx,
					      (psn - e->first_psn) &
					      SWR_PSN_MASK, oi, payload,
					      cb->paylen);
		break;

	case SWR_OP_ATOMIC_ACK:
		e = swr_wire_find(qp, psn, &idx);
		if (!e || e->done ||
		    (e->wqe.hdr.opcode != SWROCE_WR_ATOMIC_CMP_AND_SWP &&
		     e->wqe.hdr.opcode != SWROCE_WR_ATOMIC_FETCH_AND_ADD)) {
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
			break;
		}
		progress = swr_wire_implicit(qp, idx);
		orig = get_unaligned_be64(hdr + sizeof(*bth) +
					  sizeof(struct swr_aeth));
		err = swr_wire_sge_copy(qp, &e->wqe, 0, (u8 *)&orig,
					sizeof(orig), true);
		/* ODP: dropped; the resent atomic gets the saved result. */
		if (err == -EAGAIN)
			break;
		if (err) {
			swr_wire_retire_done(qp);
			if (wr->head == idx)
				swr_wire_retire(qp, IB_WC_LOC_PROT_ERR);
			break;
		}
		e->done = true;
		progress = true;
		break;
	default:
		swr_qp_count(qp, SWR_CNT_DUP_RESP);
		break;
	}
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		return;
	swr_wire_retire_done(qp);
	if (progress) {
		/* Forward progress restarts the retry counts and timer. */
		wr->retry_left = p->retry_cnt;
		wr->rnr_left = p->rnr_retry;
		wr->deadline = 0;
		swr_wire_arm(qp, p);
	}
}

/*
 * The responses the receive path queued, in arrival order. False when
 * the QP has no window (nothing was sent: the queue is dropped).
 */
static bool swr_wire_rx_responses(struct swr_qp *qp, struct swr_wire_path *p)
{
	struct llist_node *list = llist_del_all(&qp->wire_rxq);
	struct sk_buff *skb, *next;

	if (!qp->wire) {
		llist_for_each_entry_safe(skb, next, list, ll_node) {
			atomic_dec(&qp->wire_rxq_len);
			/* Without a window nothing was sent: nothing answered. */
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
			kfree_skb(skb);
		}
		return false;
	}
	swr_wire_path(qp, p);
	list = llist_reverse_order(list);
	llist_for_each_entry_safe(skb, next, list, ll_node) {
		atomic_dec(&qp->wire_rxq_len);
		if (p->state != IB_QPS_ERR && READ_ONCE(qp->state) != IB_QPS_ERR &&
		    !swr_wire_idle(qp))
			swr_wire_req_rx(qp, skb, p);
		else
			swr_qp_count(qp, SWR_CNT_DUP_RESP);
		consume_skb(skb);
	}
	/*
	 * An ACK may have opened the window, a NAK gone back into it (and
	 * stopped the timer): has_work() must not trust a full window from
	 * before. Answers taken off the poller (swr_wire_rxq_work(), a
	 * doorbell caller) leave the sending to it, and it would otherwise
	 * wait for the timer; send_pending() finds out again.
	 */
	if (list)
		WRITE_ONCE(qp->wire->req.inflight_full, false);
	return true;
}

void swr_wire_drain_responses(struct swr_qp *qp)
{
	struct swr_wire_path p;

	lockdep_assert_held(&qp->sq_lock);
	swr_wire_rx_responses(qp, &p);
}

/*
 * Responses while the poller sleeps
 * ---------------------------------
 * The last ACK of a ping-pong completes a WQE the application is waiting
 * for. Kicking the sleeping poller is not enough: on a CPU where the
 * application spins, the scheduler may leave the woken poller waiting for
 * the end of the application's time slice, milliseconds. (fi_pingpong
 * across two devices: the client got its last completion, exited and
 * disconnected, and the server's last SEND, acknowledged 5 ms before, was
 * still not complete; libfabric failed it as flushed.) So a response that
 * finds the poller asleep goes to a work item on a WQ_HIGHPRI workqueue,
 * as the RDMA core's own completion work does (ib_comp_wq). It takes the
 * QP's sq_lock and completes what the responses answer; what they leave
 * (packets the window now lets go, a timer to arm) is the poller's,
 * kicked as before. Unlike the poller and doorbell callers it waits for
 * the lock: it holds up only this QP's answers, and the turn it waits for
 * is often the one its own softirq interrupted (a doorbell caller's
 * transmit, whose peer answered at once on a veth). A response that finds
 * the poller awake is its next pass's: swr_poll_asleep() against the
 * poller's steps 1-3 makes sure one of the two sees it.
 *
 * One exception: an answer that arrives in a softirq run by the doorbell
 * caller's own turn (its transmit's, on its CPU: a veth peer answers at
 * once) is left on wire_rxq for that caller, which takes it as its
 * doorbell ends (swr_wire_rxq_take()): a ping-pong across a link then
 * switches to no worker at all. qp->db_task names the caller; it is only
 * ever compared with current, so a softirq in any other task, or on
 * another CPU, queues the work as above. The caller clears db_task before
 * it looks at wire_rxq; its softirqs ran on its CPU in program order, so
 * whatever they left is there by then.
 *
 * The work holds a reference to the QP, so destroy waits for it; once
 * destroy has taken the QP from the poller it completes nothing more.
 */
static struct workqueue_struct *swr_wire_wq;

void swr_wire_rxq_kick(struct swr_qp *qp)
{
	if (!swr_poll_asleep(swr_qp_dev(qp)))
		return;
	/*
	 * A softirq in the doorbell caller's own turn, on its CPU (a veth
	 * peer that answered at once): the caller takes the answers after
	 * its turn (swr_wire_rxq_take()), with no switch to a worker.
	 */
	if (READ_ONCE(qp->db_task) == current)
		return;
	/* The receive path holds a reference: the QP is not released. */
	refcount_inc(&qp->ref);
	if (!queue_work(swr_wire_wq, &qp->rxq_work))
		swr_qp_put(qp);
}

/*
 * Take wire_rxq's answers under sq_lock, waiting for it (the work and the
 * doorbell caller). False once destroy has taken the QP from the poller
 * (before it takes sq_lock): then nothing is completed any more.
 */
static bool swr_wire_rxq_drain(struct swr_qp *qp)
{
	bool live;

	mutex_lock(&qp->sq_lock);
	live = !list_empty(&qp->poll_node);
	if (live)
		swr_wire_drain_responses(qp);
	mutex_unlock(&qp->sq_lock);
	return live;
}

void swr_wire_rxq_work(struct work_struct *work)
{
	struct swr_qp *qp = container_of(work, struct swr_qp, rxq_work);

	swr_wire_rxq_drain(qp);
	if (!swr_wire_idle(qp) || swr_req_has_work(qp, ktime_get_ns()))
		swr_poll_kick(swr_qp_dev(qp));
	swr_qp_put(qp);
}

/*
 * The doorbell caller, after its turn, while the poller sleeps: take the
 * answers left on wire_rxq, as swr_wire_rxq_work() would. Process context.
 * What they leave to send, the caller's swr_req_has_work() sees; the time
 * they set (an RNR wait, the timer of what is still outstanding) goes to
 * the sleeping poller's timer here, so that it is kept to the microsecond.
 */
void swr_wire_rxq_take(struct swr_qp *qp)
{
	u64 when;

	if (llist_empty(&qp->wire_rxq) || !swr_wire_rxq_drain(qp))
		return;
	when = swr_wire_deadline(qp);
	if (when)
		swr_poll_deadline(swr_qp_dev(qp), when);
}

int swr_wire_init(void)
{
	swr_wire_wq = alloc_workqueue("swr_wire", WQ_HIGHPRI | WQ_MEM_RECLAIM,
				      0);
	return swr_wire_wq ? 0 : -ENOMEM;
}

/* After the devices: no QP is left to queue work. */
void swr_wire_exit(void)
{
	destroy_workqueue(swr_wire_wq);
}

/*
 * The tail-loss probe's time (swr_cc_lw_pto()) came at @now. Only a QP
 * that can send nothing more (all of its window out, or all it has) and
 * whose last ACK request has gone unanswered for the probe timeout
 * probes; a QP still sending (paced by DCQCN, or its turn's budget
 * spent) asks for ACKs as it goes and is looked at again later.
 *
 * The probe is the last packet sent, once more, asking for an ACK (RFC
 * 8985 resends one segment): it spends no retry_cnt and the timer keeps
 * running. The responder's answer tells what happened. It had that
 * packet: a duplicate, answered with an ACK of everything (only the
 * answer was late or lost: nothing else is sent, the window is not cut).
 * It lacks earlier ones: a sequence NAK, and the go-back and the cut
 * that follow it as for any NAK. It had all but that packet: it takes
 * it. A READ or atomic is asked again as a whole (from the READ's first
 * response not received), as a go-back would; so is the first one still
 * open when the last packet sent has been answered.
 */
static void swr_wire_probe(struct swr_qp *qp, const struct swr_wire_path *p,
			   u64 now)
{
	struct swr_wire_req *wr = &qp->wire->req;
	u64 pto = swr_cc_lw_pto(qp, swr_wire_tmo(p->timeout));
	bool stuck = wr->send == wr->tail || wr->inflight_full;
	u32 last = (wr->sent_hi - 1) & SWR_PSN_MASK, idx, k;
	struct swr_wire_ent *e;

	wr->probe_at = 0;
	if (!pto)
		return;
	if (!stuck || now < wr->ackreq_ts + pto) {
		wr->probe_at = stuck ? wr->ackreq_ts + pto : now + pto;
		return;
	}
	e = swr_wire_find(qp, last, &idx);
	if (!e)
		return;
	k = swr_psn_diff(last, e->first_psn);
	/* Answered to its end: a READ or atomic before it lacks responses. */
	if (e->done) {
		idx = swr_wire_first_open(qp, idx);
		if (swr_wire_ent(wr, idx)->done)
			return;
		k = 0;
	}
	swr_qp_count(qp, SWR_CNT_LW_PROBES);
	swr_wire_go_back(qp, idx, k);
	/* swr_wire_send_pkt() asks for an ACK with the next packet. */
	wr->unacked = SWR_WIRE_ACK_EVERY;
}

void swr_wire_poll(struct swr_qp *qp)
{
	struct swr_wire_req *wr;
	struct swr_wire_path p;
	u64 now;

	if (!swr_wire_rx_responses(qp, &p))
		return;
	wr = &qp->wire->req;
	if (READ_ONCE(qp->state) == IB_QPS_ERR || swr_wire_idle(qp))
		return;

	now = ktime_get_ns();
	if (wr->rnr_until) {
		if (now < wr->rnr_until) {
			swr_poll_deadline(swr_qp_dev(qp), wr->rnr_until);
			return;
		}
		wr->rnr_until = 0;
	}
	if (wr->deadline && now >= wr->deadline &&
	    swr_wire_expired(qp, &p, now)) {
		swr_qp_count(qp, SWR_CNT_TIMEOUTS);
		trace_swr_ack_timeout(qp, swr_wire_base_psn(wr),
				      wr->retry_left ? wr->retry_left - 1 : 0,
				      !wr->retry_left, now);
		if (!wr->retry_left) {
			swr_wire_retire(qp, IB_WC_RETRY_EXC_ERR);
			return;
		}
		wr->retry_left--;
		swr_cc_lw_loss(qp, true,
			       swr_psn_diff(wr->sent_hi, swr_wire_base_psn(wr)));
		/* The head is the oldest entry not answered. */
		swr_wire_go_back(qp, wr->head, 0);
		wr->nak_seen = false;
		wr->deadline = 0;
		wr->probe_at = 0;
	} else if (wr->probe_at && now >= wr->probe_at) {
		swr_wire_probe(qp, &p, now);
	}
	swr_wire_send_pending(qp, &p);
	/* Outstanding and nothing left to send: the timer must run. */
	if (swr_qp_reliable(qp) && !wr->deadline &&
	    READ_ONCE(qp->state) != IB_QPS_ERR)
		swr_wire_arm(qp, &p);
	if (wr->deadline)
		swr_poll_deadline(swr_qp_dev(qp), wr->deadline);
	if (wr->probe_at)
		swr_poll_deadline(swr_qp_dev(qp), wr->probe_at);
}

u64 swr_wire_deadline(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);
	u64 t, pace, probe;

	if (!w)
		return 0;
	t = READ_ONCE(w->req.rnr_until);
	if (!t) {
		t = READ_ONCE(w->req.deadline);
		probe = READ_ONCE(w->req.probe_at);
		if (probe && (!t || probe < t))
			t = probe;
	}
	pace = READ_ONCE(w->req.paced_until);
	return pace && (!t || pace < t) ? pace : t;
}

bool swr_wire_has_work(struct swr_qp *qp, u64 now)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);
	struct swr_wire_req *wr;
	u64 t;

	if (!llist_empty(&qp->wire_rxq))
		return true;
	if (!w)
		return false;
	/* READ responses and ACKs behind them (swr_wire_resp.c). */
	if (READ_ONCE(w->resp.tx_pending))
		return true;
	wr = &w->req;
	if (READ_ONCE(wr->head) == READ_ONCE(wr->tail))
		return false;
	t = READ_ONCE(wr->rnr_until);
	if (t)
		return now >= t;
	if (READ_ONCE(wr->send) != READ_ONCE(wr->tail) &&
	    !READ_ONCE(wr->inflight_full)) {
		/* Paced: the time comes (swr_wire_deadline()). */
		t = READ_ONCE(wr->paced_until);
		if (!t || now >= t)
			return true;
	}
	t = READ_ONCE(wr->probe_at);
	if (t && now >= t)
		return true;
	t = READ_ONCE(wr->deadline);
	return t && now >= t;
}

int swr_wire_flush(struct swr_qp *qp)
{
	struct swr_wire_req *wr;
	int n = 0;

	swr_wire_qp_fini(qp);
	if (!qp->wire)
		return 0;
	wr = &qp->wire->req;
	for (; wr->head != wr->tail; wr->head++, n++)
		swr_req_complete(qp, &swr_wire_ent(wr, wr->head)->wqe,
				 IB_WC_WR_FLUSH_ERR, 0);
	wr->send = wr->head;
	wr->sent = 0;
	wr->deadline = 0;
	wr->probe_at = 0;
	wr->rnr_until = 0;
	return n;
}

void swr_wire_qp_fini(struct swr_qp *qp)
{
	struct llist_node *list = llist_del_all(&qp->wire_rxq);
	struct sk_buff *skb, *next;

	llist_for_each_entry_safe(skb, next, list, ll_node) {
		atomic_dec(&qp->wire_rxq_len);
		kfree_skb(skb);
	}
}
