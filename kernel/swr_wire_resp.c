// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RC/UC responder on the wire, and the receive path's entry for RC/UC
 * packets (swr_wire_rx()).
 *
 * Requests are processed in softirq, under the destination QP's resp_lock,
 * as they arrive: the PSN check (a gap NAKed once with PSN sequence error;
 * duplicates: see below), the opcode sequence check, then one handler per
 * opcode class, as siw splits its receive path: SEND, WRITE, READ, atomic.
 *
 * What a packet can cost the receiving host
 * -----------------------------------------
 * A request packet costs softirq time bounded by one packet's work: the
 * placement of its own payload, or one response packet (an atomic's, or
 * that of a READ of one packet or a duplicate asking for the last one).
 * A READ asking for more has its responses sent by the poller,
 * SWR_WIRE_BURST packets per turn of the QP, so that one 60-byte packet
 * can no longer hold a CPU in softirq for seconds.
 *  1. softirq: check the READ (length at most 2^31, PSNs at most
 *     SWR_WIRE_PSN_SPAN, access, rkey over the whole range), take the
 *     oldest responder resource (struct swr_wire_rd), record the range,
 *     advance the expected PSN, set tx_pending and kick the poller
 *     (swr_poll_kick() orders the store before its need_wakeup check);
 *  2. poller (swr_wire_resp_tx(), sq_lock then resp_lock): take the oldest
 *     resource with responses left, copy it, drop resp_lock, look the rkey
 *     up again for the packets of this turn (an MR deregistered or a
 *     window invalidated since stops the responses), send them, retake the
 *     lock and advance the resource only if nothing moved it meanwhile (a
 *     reset bumps resp_gen, a duplicate rewinds next).
 *
 * Responses in PSN order
 * ----------------------
 * IBTA has a responder answer in PSN order, and requesters rely on it:
 * rdma_rxe takes an ACK or NAK beyond a READ whose responses have not all
 * come for their loss and asks for the READ again (a 64 KiB READ followed
 * by a WRITE, 20 times from rxe: 70 retries, 60 duplicate READs here,
 * 1.4 s instead of 40 ms, until this was built). So while any resource
 * has responses left for the poller (tx_pending), the answers of later
 * requests wait: a READ's or atomic's in its resource, which the poller
 * takes oldest first; an ACK, RNR NAK or sequence NAK held in
 * resp.held (swr_wire_answer()), which the poller sends once no resource
 * has anything left. The NAKs that put the QP in error go at once.
 * swroce's own requester does not need the order: it keeps a READ until
 * its responses are all placed, whatever ACKs say. (This hold-back was
 * taken out once, in da2c296, when with an older requester it fed a
 * cycle under loss: timeouts, resent READs rewinding the responses that
 * held the ACKs back. The loss step runs it under every impairment.)
 *
 * Duplicates
 * ----------
 * SEND and WRITE duplicates are ACKed again, nothing placed. A READ or
 * atomic duplicate is answered only from the resource its PSN falls in: a
 * READ must ask for the rest of the very range the original asked for
 * (same rkey, the address and length moved by whole packets), and its
 * responses are sent again from there; an atomic gets its saved result.
 * Anything else gets no answer (rx_drop_dup_bad): a forged "duplicate"
 * cannot pick a new address, key or length, nor execute twice. A late
 * duplicate of a request whose resource was reused meets the same silence
 * (its requester has its answer already), so these are not counted in
 * rx_dropped, which stays the packets the device could not take.
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

/* swr_wire_write_data(): an ODP page is being faulted in. No AETH syndrome. */
#define SWR_WIRE_FAULT		0xff

/* READ response packets sent from softirq at most; more go to the poller. */
#define SWR_WIRE_RD_INLINE	1

/* One request packet, as its handler needs it. */
struct swr_wire_req_pkt {
	const struct swr_rx *rx;
	const struct swr_reth *reth;
	const struct swr_atmeth *atm;
	u32 imm;
	u32 ieth;
	u32 msg_flags;
	u32 xrc_srqn;		/* XRC: the XRCETH's SRQ */
	u8 op;			/* the opcode without the transport bits */
	bool rc;
	bool ack_req;
	bool se;
	bool rndv;		/* a rendezvous matched: READ after the ACK */
	u8 nak;			/* the NAK a handler asks for, 0: none */
};

/* Send an ACK, NAK or atomic ACK for @psn. */
static void swr_wire_send_ack(struct swr_qp *qp, const struct swr_wire_path *p,
			      u32 psn, u8 syn, u32 msn, const u64 *orig)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	u8 op = orig ? SWR_OP_ATOMIC_ACK : SWR_OP_ACK;
	const struct swr_opinfo *oi = swr_opinfo(swr_qp_transport(qp) | op);
	struct sk_buff *skb;
	struct swr_aeth *aeth;

	if (syn & SWR_AETH_TYPE_MASK)
		trace_swr_nak_sent(qp, psn, syn);
	skb = swr_skb_alloc(sdev, oi->hdr_len, 0, 0);
	if (!skb)
		return;
	swr_bth_init((struct swr_bth *)skb->data, swr_qp_transport(qp) | op,
		     false, 0,
		     p->dqpn, psn, false);
	aeth = (struct swr_aeth *)(skb->data + sizeof(struct swr_bth));
	aeth->smsn = htonl((u32)syn << SWR_AETH_SYN_SHIFT |
			   (msn & SWR_AETH_MSN_MASK));
	if (orig)
		put_unaligned_be64(*orig, aeth + 1);
	skb_put_zero(skb, SWR_ICRC_BYTES);
	swr_xmit(sdev, skb, &p->d, swr_sport(qp->ibqp.qp_num, p->dqpn),
		 swr_qp_route(qp));
}

/* The last PSN an answer (@syn for @psn) says the responder has taken. */
static u32 swr_wire_answer_done(u32 psn, u8 syn)
{
	return syn & SWR_AETH_TYPE_MASK ? (psn - 1) & SWR_PSN_MASK : psn;
}

/*
 * An ACK, RNR NAK or sequence NAK for @psn, from softirq: at once, or,
 * while READ responses or atomic results of earlier requests wait for the
 * poller (tx_pending), held for it to send after them (see "Responses in
 * PSN order" above). One answer is held: a later one replaces it when it
 * says more (a later PSN taken, or a NAK where an ACK said as much), not
 * a second NAK of the same PSN (an RNR NAK stays one).
 */
static void swr_wire_answer(struct swr_qp *qp, const struct swr_wire_path *p,
			    u32 psn, u8 syn)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	struct swr_wire_held *h = &ws->held;
	s32 more;

	if (!ws->tx_pending) {
		swr_wire_send_ack(qp, p, psn, syn, ws->msn, NULL);
		return;
	}
	more = swr_psn_diff(swr_wire_answer_done(psn, syn),
			    swr_wire_answer_done(h->psn, h->syn));
	if (h->valid && (more < 0 || (!more && (h->syn & SWR_AETH_TYPE_MASK))))
		return;
	h->valid = true;
	h->psn = psn;
	h->syn = syn;
	h->msn = ws->msn;
}

static void swr_wire_rnr_nak(struct swr_qp *qp, const struct swr_wire_path *p,
			     u32 psn)
{
	swr_wire_answer(qp, p, psn, SWR_AETH_RNR_NAK | (p->min_rnr_timer & 31));
}

/*
 * An ODP page the request needs is being faulted in (swr_odp.c): RNR NAK,
 * as ODP hardware answers, and nothing moves: the requester resends this
 * packet after the RNR timer. UC has no NAK: the packet is lost.
 */
static void swr_wire_fault_rnr(struct swr_qp *qp,
			       const struct swr_wire_path *p,
			       const struct swr_wire_req_pkt *q)
{
	swr_count(swr_qp_dev(qp), SWR_CNT_RNR_NAK);
	if (q->rc)
		swr_wire_rnr_nak(qp, p, q->rx->psn);
}

/* A (coalesced) ACK for @psn. */
static void swr_wire_resp_ack(struct swr_qp *qp, const struct swr_wire_path *p,
			      u32 psn)
{
	swr_wire_answer(qp, p, psn, SWR_AETH_ACK);
}

/* Responder resources ------------------------------------------------------- */

/* How many resources the QP has (max_dest_rd_atomic, at least one). */
static u32 swr_wire_rd_num(const struct swr_wire_path *p)
{
	return clamp_t(u32, p->max_dest_rd_atomic, 1, SWR_MAX_RD_ATOM);
}

/* The resource whose request took @psn, or NULL. */
static struct swr_wire_rd *swr_wire_rd_find(struct swr_wire_resp *ws,
					    const struct swr_wire_path *p,
					    u32 psn)
{
	struct swr_wire_rd *rd;
	u32 i;

	for (i = 0; i < swr_wire_rd_num(p); i++) {
		rd = &ws->rd[i];
		if (rd->kind != SWR_RD_FREE &&
		    swr_psn_diff(psn, rd->psn) >= 0 &&
		    swr_psn_diff(psn, rd->psn + rd->npkts) < 0)
			return rd;
	}
	return NULL;
}

/*
 * The resource the next READ or atomic takes: the oldest. Responses it
 * still had to send are abandoned: a requester that keeps to
 * max_dest_rd_atomic has them all already (a duplicate made it send them
 * again), or has more outstanding than it may.
 */
static struct swr_wire_rd *swr_wire_rd_take(struct swr_wire_resp *ws,
					    const struct swr_wire_path *p)
{
	u32 n = swr_wire_rd_num(p);
	struct swr_wire_rd *rd = &ws->rd[ws->rd_next % n];

	ws->rd_next = (ws->rd_next + 1) % n;
	memset(rd, 0, sizeof(*rd));
	return rd;
}

/* The oldest resource with responses left to send, or NULL. */
static struct swr_wire_rd *swr_wire_rd_pending(struct swr_wire_resp *ws,
					       const struct swr_wire_path *p)
{
	u32 n = swr_wire_rd_num(p), i;
	struct swr_wire_rd *rd;

	for (i = 0; i < n; i++) {
		rd = &ws->rd[(ws->rd_next + i) % n];
		if (rd->kind != SWR_RD_FREE && rd->next < rd->npkts)
			return rd;
	}
	return NULL;
}

/*
 * READ response @k of @rd, with its payload at @va of @mr, queued on @q
 * (sent when it is full, the rest by swr_wire_rd_send()).
 */
static int swr_wire_read_pkt(struct swr_qp *qp, const struct swr_wire_path *p,
			     const struct swr_wire_rd *rd, u32 k,
			     struct swr_mr *mr, u64 va, struct sk_buff_head *q)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	u32 n = min_t(u64, rd->len - (u64)k * rd->mtu, rd->mtu);
	u32 pad = (4 - (n & 3)) & 3;
	const struct swr_opinfo *oi;
	struct sk_buff *skb;
	struct swr_aeth *aeth;
	int err;
	u8 op;

	if (rd->npkts == 1)
		op = SWR_OP_READ_RESP_ONLY;
	else if (!k)
		op = SWR_OP_READ_RESP_FIRST;
	else if (k + 1 == rd->npkts)
		op = SWR_OP_READ_RESP_LAST;
	else
		op = SWR_OP_READ_RESP_MIDDLE;
	oi = swr_opinfo(swr_qp_transport(qp) | op);
	skb = swr_skb_alloc(sdev, oi->hdr_len, n, pad);
	if (!skb)
		return 0;	/* as if lost: the requester asks again */
	swr_bth_init((struct swr_bth *)skb->data, swr_qp_transport(qp) | op,
		     false, pad,
		     p->dqpn, (rd->psn + k) & SWR_PSN_MASK, false);
	if (oi->flags & SWR_OPF_AETH) {
		aeth = (struct swr_aeth *)(skb->data + sizeof(struct swr_bth));
		aeth->smsn = htonl(rd->msn & SWR_AETH_MSN_MASK);
	}
	err = n ? swr_mr_copy(mr, va, skb_put(skb, n), n, SWR_COPY_FROM_MR) : 0;
	if (err) {
		kfree_skb(skb);
		/* -EAGAIN: an ODP page; swr_wire_rd_send() faults it in. */
		return err == -EAGAIN ? err : -EACCES;
	}
	skb_put_zero(skb, pad + SWR_ICRC_BYTES);
	swr_wire_tx_queue(qp, p, q, skb, false);
	return 0;
}

/*
 * Send up to @budget responses of @rd (a copy) from rd->next on. The rkey
 * is looked up again for the range they cover. With @can_sleep (the
 * poller) ODP pages are faulted in first (swr_mr_fault(): in a work item
 * unless the poller runs in the owner's doorbell call). Returns the number
 * sent, or -errno when the memory is no longer reachable through the
 * rkey: -EAGAIN when none was sent because an ODP page is not mapped yet,
 * -EFAULT when the process cannot map it.
 */
static int swr_wire_rd_send(struct swr_qp *qp, const struct swr_wire_path *p,
			    const struct swr_wire_rd *rd, u32 budget,
			    bool can_sleep)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	u32 cnt = min(budget, rd->npkts - rd->next), k;
	u64 off = (u64)rd->next * rd->mtu, va, bytes;
	struct swr_srq *xsrq = NULL;
	struct ib_pd *pd = qp->ibqp.pd;
	struct sk_buff_head batch;
	struct swr_mr *mr = NULL;
	int err = 0;

	if (rd->kind == SWR_RD_ATOMIC) {
		swr_wire_send_ack(qp, p, rd->psn, SWR_AETH_ACK, rd->msn,
				  &rd->orig);
		return 1;
	}
	bytes = min_t(u64, rd->len - off, (u64)cnt * rd->mtu);
	va = rd->va + off;
	if (bytes) {
		/* XRC: the rkey is in the PD of the SRQ the READ named. */
		if (qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
			xsrq = swr_xrc_srq_get(qp, rd->srqn);
			if (!xsrq)
				return -ENOENT;
			pd = xsrq->ibsrq.pd;
		}
		mr = swr_mr_lookup(sdev, SWR_RKEY, rd->rkey, pd,
				   qp->ibqp.qp_num, IB_ACCESS_REMOTE_READ, &va,
				   bytes);
		if (xsrq)
			swr_srq_put(xsrq);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
	}
	if (mr && can_sleep)
		err = swr_mr_fault(mr, va, bytes, false);
	__skb_queue_head_init(&batch);
	for (k = 0; k < cnt && !err; k++) {
		err = swr_wire_read_pkt(qp, p, rd, rd->next + k, mr,
					va + (u64)k * rd->mtu, &batch);
		if (err)
			break;
	}
	swr_wire_tx_flush(qp, p, &batch);
	if (mr)
		swr_mr_put(mr);
	if (err == -EAGAIN && k)
		return k;	/* those before it went out */
	return err ? err : cnt;
}

/*
 * Responses of @rd from softirq when they are few (an atomic's is one)
 * and none of an earlier request waits for the poller; otherwise the
 * poller's (tx_pending), which sends the oldest resource's first.
 */
static void swr_wire_rd_answer(struct swr_qp *qp, const struct swr_wire_path *p,
			       struct swr_wire_rd *rd)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	int n;

	if (!ws->tx_pending && rd->npkts - rd->next <= SWR_WIRE_RD_INLINE) {
		n = swr_wire_rd_send(qp, p, rd, SWR_WIRE_RD_INLINE, false);
		if (n != -EAGAIN) {
			rd->next = n < 0 ? rd->npkts : rd->next + n;
			return;
		}
		/* ODP: the poller faults the page in and answers. */
	}
	ws->tx_pending = true;
	swr_poll_kick(swr_qp_dev(qp));
}

/*
 * An ODP READ whose pages the process cannot map (swr_odp.c): NAK remote
 * access error at the response the requester waits for, and the QP goes
 * to error, as for a bad rkey.
 */
static void swr_wire_rd_fail(struct swr_qp *qp, const struct swr_wire_path *p,
			     const struct swr_wire_rd *rd)
{
	swr_qp_count(qp, SWR_CNT_NAK_ACC_SENT);
	swr_wire_send_ack(qp, p, (rd->psn + rd->next) & SWR_PSN_MASK,
			  SWR_AETH_NAK_REM_ACC, rd->msn, NULL);
	swr_qp_set_error(qp, false);
}

/*
 * Nothing waits for the poller any more (resp_lock held): the answer held
 * behind the responses into *@held (not valid: none, or the QP is in
 * error and sends nothing more).
 */
static void swr_wire_resp_idle(struct swr_wire_resp *ws, bool error,
			       struct swr_wire_held *held)
{
	*held = ws->held;
	held->valid &= !error;
	ws->held.valid = false;
	ws->tx_pending = false;
}

void swr_wire_resp_tx(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);
	int budget = SWR_WIRE_BURST, n;
	struct swr_wire_held held = {};
	struct swr_wire_resp *ws;
	struct swr_wire_path p;
	struct swr_wire_rd *rd, snap;
	u32 gen;

	if (!w || !READ_ONCE(w->resp.tx_pending))
		return;
	ws = &w->resp;
	swr_wire_path(qp, &p);
	spin_lock_bh(&qp->resp_lock);
	while (budget > 0 && ws->tx_pending) {
		if (p.state != IB_QPS_RTR && p.state != IB_QPS_RTS &&
		    p.state != IB_QPS_SQD) {
			/*
			 * In error: what was not sent never will be (the
			 * requester times out).
			 */
			swr_wire_resp_idle(ws, true, &held);
			break;
		}
		rd = swr_wire_rd_pending(ws, &p);
		if (!rd) {
			swr_wire_resp_idle(ws, false, &held);
			break;
		}
		snap = *rd;
		gen = qp->resp_gen;
		spin_unlock_bh(&qp->resp_lock);
		n = swr_wire_rd_send(qp, &p, &snap, budget, true);
		if (n == -EFAULT)
			swr_wire_rd_fail(qp, &p, &snap);
		spin_lock_bh(&qp->resp_lock);
		/* A reset or a duplicate moved it meanwhile: theirs now. */
		if (gen == qp->resp_gen && rd->kind == snap.kind &&
		    rd->psn == snap.psn && rd->next == snap.next &&
		    n != -EAGAIN)
			rd->next = n < 0 ? rd->npkts : rd->next + n;
		/* A work item faults the ODP pages in: the next pass. */
		if (n == -EAGAIN)
			break;
		budget -= n > 0 ? n : 1;
	}
	spin_unlock_bh(&qp->resp_lock);
	/* A later answer may have gone out since: the requester drops this. */
	if (held.valid)
		swr_wire_send_ack(qp, &p, held.psn, held.syn, held.msn, NULL);
}

/* Duplicates --------------------------------------------------------------- */

/* A duplicate nothing answers (not in rx_dropped: see above). */
static void swr_wire_dup_bad(struct swr_qp *qp)
{
	swr_count(swr_qp_dev(qp), SWR_CNT_RX_DROP_DUP_BAD);
	trace_swr_pkt_drop(swr_qp_dev(qp), SWR_CNT_RX_DROP_DUP_BAD,
			   qp->ibqp.qp_num);
}

/*
 * A READ duplicate: only the rest of the range its resource recorded,
 * from a packet boundary on, is sent again.
 */
static void swr_wire_dup_read(struct swr_qp *qp, const struct swr_wire_path *p,
			      const struct swr_wire_req_pkt *q)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	const struct swr_rx *rx = q->rx;
	struct swr_wire_rd *rd = swr_wire_rd_find(ws, p, rx->psn);
	u64 off;
	u32 k;

	if (!rd || rd->kind != SWR_RD_READ)
		goto drop;
	k = (rx->psn - rd->psn) & SWR_PSN_MASK;
	off = (u64)k * rd->mtu;
	if (ntohl(q->reth->rkey) != rd->rkey ||
	    be64_to_cpu(q->reth->va) != rd->va + off ||
	    (rd->len && ntohl(q->reth->len) != rd->len - off))
		goto drop;
	if (k < rd->next)
		rd->next = k;
	swr_wire_rd_answer(qp, p, rd);
	return;
drop:
	swr_wire_dup_bad(qp);
}

static void swr_wire_dup_atomic(struct swr_qp *qp,
				const struct swr_wire_path *p,
				const struct swr_wire_req_pkt *q)
{
	struct swr_wire_rd *rd = swr_wire_rd_find(&qp->wire->resp, p,
						  q->rx->psn);

	if (!rd || rd->kind != SWR_RD_ATOMIC || rd->psn != q->rx->psn) {
		swr_wire_dup_bad(qp);
		return;
	}
	rd->next = 0;
	swr_wire_rd_answer(qp, p, rd);
}

/* A duplicate: the requester lost our answer. Nothing executes twice. */
static void swr_wire_dup(struct swr_qp *qp, const struct swr_wire_path *p,
			 const struct swr_wire_req_pkt *q)
{
	const struct swr_opinfo *oi = q->rx->op;

	swr_qp_count(qp, SWR_CNT_DUP_REQ);
	if (q->op == SWR_OP_READ_REQ)
		swr_wire_dup_read(qp, p, q);
	else if (q->atm)
		swr_wire_dup_atomic(qp, p, q);
	else if (q->ack_req || (oi->flags & SWR_OPF_LAST))
		/* Coalesced: only where the requester asks. */
		swr_wire_resp_ack(qp, p, (qp->resp.psn - 1) & SWR_PSN_MASK);
}

/* SEND ---------------------------------------------------------------------- */

/* Place @len bytes of @data at offset @off of the current receive WQE. */
static int swr_wire_place_recv(struct swr_qp *qp, const u8 *data, u32 len)
{
	struct swr_recv_wqe *rwqe = &qp->resp.rwqe;
	struct swr_seg *seg = qp->wire->seg;
	u64 off = qp->resp.rwqe_offset, skip;
	u32 nr, di = 0;
	int err;

	if (!len)
		return 0;
	err = swr_segs_get(qp, rwqe->sge, rwqe->num_sge, off + len,
			   IB_ACCESS_LOCAL_WRITE, seg, &nr);
	if (err)
		return -EACCES;
	skip = off;
	while (di < nr && skip >= seg[di].len)
		skip -= seg[di++].len;
	if (di == nr) {
		swr_segs_put(seg, nr);
		return -EMSGSIZE;
	}
	seg[di].iova += skip;
	seg[di].len -= skip;
	err = swr_copy(seg + di, nr - di, NULL, 0, data, len, false);
	seg[di].iova -= skip;
	seg[di].len += skip;
	swr_segs_put(seg, nr);
	/* -EAGAIN: an ODP page is being faulted in; -EFAULT: it cannot be. */
	if (err == -EAGAIN || err == -EFAULT)
		return err;
	return err ? -EMSGSIZE : 0;
}

/* Complete the receive WQE of the message that just ended. */
static void swr_wire_recv_done(struct swr_qp *qp, const struct swr_wire_path *p,
			       enum ib_wc_status st, u8 wc_op, u32 byte_len,
			       u32 flags, u32 ex, bool se)
{
	struct swroce_cqe cqe;

	swr_cqe_init(&cqe, qp->resp.rwqe.wr_id, qp->ibqp.qp_num, st, wc_op,
		     byte_len);
	cqe.src_qp = p->dqpn;
	cqe.flags = flags;
	cqe.ex_data = ex;
	swr_tm_recv_cqe(&qp->resp.rwqe, &cqe);
	qp->resp.rwqe_valid = false;
	swr_recv_complete(qp, &cqe, se);
	/* A matched rendezvous goes on after the ACK (swr_wire_resp_rx()). */
	if (qp->resp.rwqe.tm == SWR_TM_RNDV && st != IB_WC_SUCCESS)
		swr_tm_rndv_start(qp, &qp->resp.rwqe, false);
}

/*
 * The send opcode (SWROCE_WR_*) of the message a request packet that takes
 * a receive WQE belongs to, as far as the packet tells: a SEND's FIRST
 * packet does not say whether its LAST carries immediate data.
 */
static u8 swr_wire_recv_opcode(u32 op_flags)
{
	if (op_flags & SWR_OPF_WRITE)
		return SWROCE_WR_RDMA_WRITE_WITH_IMM;
	if (op_flags & SWR_OPF_IMMDT)
		return SWROCE_WR_SEND_WITH_IMM;
	if (op_flags & SWR_OPF_IETH)
		return SWROCE_WR_SEND_WITH_INV;
	return SWROCE_WR_SEND;
}

/*
 * A tag matching SRQ reads a message's head (TMH, RVH): the first packet's
 * first bytes. NULL when @qp's SRQ does not match tags or @rx is not a
 * message's first packet.
 */
static const struct swr_tm_msg *swr_wire_tm_msg(const struct swr_qp *qp,
						const struct swr_rx *rx,
						struct swr_tm_msg *m)
{
	if (!(rx->op->flags & SWR_OPF_FIRST) || !qp->srq || !qp->srq->tm)
		return NULL;
	m->hdr_len = min_t(u32, rx->paylen, SWR_TM_HDR_BYTES);
	memcpy(m->hdr, rx->payload, m->hdr_len);
	/* A message longer than one packet is longer than any RNDV. */
	m->len = rx->op->flags & SWR_OPF_LAST ? rx->paylen : U64_MAX;
	return m;
}

/*
 * Take a receive WQE for the message starting at @q. False when there is
 * none (an RNR NAK went out, or UC drops the message) or the queue is bad
 * (q->nak set).
 */
static bool swr_wire_take_recv(struct swr_qp *qp, const struct swr_wire_path *p,
			       struct swr_wire_req_pkt *q)
{
	struct swr_tm_msg tm;
	int err;

	if (qp->resp.rwqe_valid)
		return true;
	err = swr_recv_pop(qp, &qp->resp.rwqe,
			   swr_wire_recv_opcode(q->rx->op->flags),
			   swr_wire_tm_msg(qp, q->rx, &tm));
	if (err == -ENOENT) {
		swr_count(swr_qp_dev(qp), SWR_CNT_RNR_NAK);
		if (q->rc)
			swr_wire_rnr_nak(qp, p, q->rx->psn);
		return false;
	}
	if (err) {
		swr_qp_set_error(qp, true);
		q->nak = SWR_AETH_NAK_REM_OP;
		return false;
	}
	qp->resp.rwqe_valid = true;
	if (qp->resp.xsrq)
		qp->resp.rwqe_srqn = qp->resp.xsrq->srqn;
	return true;
}

/* SEND first/middle/last/only. True: ACK it. */
static bool swr_wire_resp_send(struct swr_qp *qp, const struct swr_wire_path *p,
			       struct swr_wire_req_pkt *q)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_wire_resp *ws = &qp->wire->resp;
	const struct swr_rx *rx = q->rx;
	const struct swr_opinfo *oi = rx->op;
	enum ib_wc_status st = IB_WC_SUCCESS;
	u32 imm = q->imm;
	const u8 *data = rx->payload;
	u32 len = rx->paylen;
	int err;

	if (oi->flags & SWR_OPF_FIRST || !qp->resp.rwqe_valid) {
		if (!swr_wire_take_recv(qp, p, q)) {
			/* UC: the message is dropped. */
			if (!q->rc && !q->nak)
				qp->resp.psn = (rx->psn + 1) & SWR_PSN_MASK;
			return false;
		}
		qp->resp.rwqe_offset = 0;
		/* A matched tag's buffer takes the message without its TMH. */
		if (oi->flags & SWR_OPF_FIRST) {
			data += qp->resp.rwqe.tm_skip;
			len -= qp->resp.rwqe.tm_skip;
		}
	}
	if (qp->resp.rwqe_offset + (u64)len >
	    swr_sge_total(qp->resp.rwqe.sge, qp->resp.rwqe.num_sge)) {
		swr_wire_recv_done(qp, p, IB_WC_LOC_LEN_ERR, SWR_WC_RECV, 0, 0,
				   0, false);
		q->nak = SWR_AETH_NAK_INV_REQ;
		return false;
	}
	err = swr_wire_place_recv(qp, data, len);
	if (err == -EAGAIN) {
		/* ODP: the receive WQE waits for the retry (swr_odp.c). */
		swr_wire_fault_rnr(qp, p, q);
		return false;
	}
	if (err) {
		swr_wire_recv_done(qp, p, IB_WC_LOC_PROT_ERR, SWR_WC_RECV, 0,
				   0, 0, false);
		q->nak = SWR_AETH_NAK_REM_OP;
		return false;
	}
	qp->resp.rwqe_offset += len;
	ws->cur = SWR_OPF_SEND;
	if (!(oi->flags & SWR_OPF_LAST))
		return true;

	if (oi->flags & SWR_OPF_IETH) {
		if (swr_key_invalidate(sdev, q->ieth, swr_resp_pd(qp),
				       qp->ibqp.qp_num, true)) {
			st = IB_WC_REM_INV_REQ_ERR;
		} else {
			q->msg_flags = SWROCE_CQE_WITH_INV;
			imm = q->ieth;
		}
	}
	ws->cur = 0;
	ws->msn++;
	swr_wire_recv_done(qp, p, st, SWR_WC_RECV, qp->resp.rwqe_offset,
			   q->msg_flags, imm, q->se);
	if (st != IB_WC_SUCCESS) {
		q->nak = SWR_AETH_NAK_INV_REQ;
		return false;
	}
	q->rndv = qp->resp.rwqe.tm == SWR_TM_RNDV;
	return true;
}

/* WRITE ---------------------------------------------------------------------- */

/* Place a WRITE packet's payload (ATOMIC_WRITE: its 8 bytes, atomically). */
static u8 swr_wire_write_data(struct swr_qp *qp, const struct swr_rx *rx,
			      u8 op)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	u64 va = ws->wr_va, orig;
	struct swr_mr *mr;
	int err = 0;

	mr = swr_mr_lookup(swr_qp_dev(qp), SWR_RKEY, ws->wr_rkey,
			   swr_resp_pd(qp), qp->ibqp.qp_num,
			   IB_ACCESS_REMOTE_WRITE, &va, rx->paylen);
	if (IS_ERR(mr))
		return SWR_AETH_NAK_REM_ACC;
	if (op == SWR_OP_ATOMIC_WRITE)
		err = swr_mr_atomic(mr, va, SWR_ATOMIC_WRITE, 0,
				    get_unaligned_be64(rx->payload), &orig);
	else
		err = swr_mr_copy(mr, va, (void *)rx->payload, rx->paylen,
				  SWR_COPY_TO_MR);
	if (err == -EAGAIN)
		err = swr_mr_fault_async(mr, va,
					 min_t(u64, ws->wr_left, SZ_1M), true);
	swr_mr_put(mr);
	if (err == -EAGAIN)
		return SWR_WIRE_FAULT;
	if (err == -EINVAL)
		return SWR_AETH_NAK_INV_REQ;	/* a misaligned ATOMIC_WRITE */
	if (err)
		return SWR_AETH_NAK_REM_ACC;
	ws->wr_va += rx->paylen;
	ws->wr_left -= rx->paylen;
	return 0;
}

/*
 * A WRITE with immediate that fails after it took its receive WQE
 * completes that WQE in error: it left the ring, so nothing else would.
 */
static void swr_wire_write_fail(struct swr_qp *qp,
				const struct swr_wire_path *p,
				struct swr_wire_req_pkt *q, u8 nak)
{
	q->nak = nak;
	if (qp->resp.rwqe_valid && (q->rx->op->flags & SWR_OPF_IMMDT))
		swr_wire_recv_done(qp, p, nak == SWR_AETH_NAK_REM_ACC ?
				   IB_WC_LOC_ACCESS_ERR :
				   IB_WC_REM_INV_REQ_ERR,
				   SWR_WC_RECV_RDMA_WITH_IMM, 0, 0, 0, false);
}

/* WRITE first/middle/last/only (with immediate), ATOMIC_WRITE. */
static bool swr_wire_resp_write(struct swr_qp *qp,
				const struct swr_wire_path *p,
				struct swr_wire_req_pkt *q)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	const struct swr_rx *rx = q->rx;
	const struct swr_opinfo *oi = rx->op;
	u8 nak;

	if (!(p->access & IB_ACCESS_REMOTE_WRITE)) {
		q->nak = SWR_AETH_NAK_INV_REQ;
		return false;
	}
	if (q->reth) {
		ws->wr_va = be64_to_cpu(q->reth->va);
		ws->wr_rkey = ntohl(q->reth->rkey);
		ws->wr_len = ntohl(q->reth->len);
		ws->wr_left = ws->wr_len;
		if (q->op == SWR_OP_ATOMIC_WRITE &&
		    (ws->wr_len != sizeof(u64) || rx->paylen != sizeof(u64))) {
			q->nak = SWR_AETH_NAK_INV_REQ;
			return false;
		}
	}
	/* WRITE with immediate: the receive WQE before any data. */
	if ((oi->flags & SWR_OPF_IMMDT) && !swr_wire_take_recv(qp, p, q))
		return false;
	if (rx->paylen > ws->wr_left ||
	    ((oi->flags & SWR_OPF_LAST) && rx->paylen != ws->wr_left)) {
		swr_wire_write_fail(qp, p, q, SWR_AETH_NAK_INV_REQ);
		return false;
	}
	if (rx->paylen) {
		nak = swr_wire_write_data(qp, rx, q->op);
		if (nak == SWR_WIRE_FAULT) {
			swr_wire_fault_rnr(qp, p, q);
			return false;
		}
		if (nak) {
			swr_wire_write_fail(qp, p, q, nak);
			return false;
		}
	}
	ws->cur = SWR_OPF_WRITE;
	if (oi->flags & SWR_OPF_LAST) {
		ws->cur = 0;
		ws->msn++;
		if (oi->flags & SWR_OPF_IMMDT)
			swr_wire_recv_done(qp, p, IB_WC_SUCCESS,
					   SWR_WC_RECV_RDMA_WITH_IMM,
					   ws->wr_len, q->msg_flags, q->imm,
					   q->se);
	}
	return true;
}

/* READ and atomics ----------------------------------------------------------- */

static void swr_wire_resp_read(struct swr_qp *qp, const struct swr_wire_path *p,
			       struct swr_wire_req_pkt *q)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	const struct swr_rx *rx = q->rx;
	u32 len = ntohl(q->reth->len), npkts;
	u64 va = be64_to_cpu(q->reth->va);
	struct swr_wire_rd *rd;
	struct swr_mr *mr;

	if (!(p->access & IB_ACCESS_REMOTE_READ) || len > SZ_2G) {
		q->nak = SWR_AETH_NAK_INV_REQ;
		return;
	}
	npkts = len ? (u32)DIV_ROUND_UP_ULL(len, p->mtu) : 1;
	if (npkts > SWR_WIRE_PSN_SPAN) {
		q->nak = SWR_AETH_NAK_INV_REQ;
		return;
	}
	if (len) {
		mr = swr_mr_lookup(swr_qp_dev(qp), SWR_RKEY, ntohl(q->reth->rkey),
				   swr_resp_pd(qp), qp->ibqp.qp_num,
				   IB_ACCESS_REMOTE_READ, &va, len);
		if (IS_ERR(mr)) {
			q->nak = SWR_AETH_NAK_REM_ACC;
			return;
		}
		swr_mr_put(mr);
	}
	rd = swr_wire_rd_take(ws, p);
	ws->msn++;
	rd->kind = SWR_RD_READ;
	rd->psn = rx->psn;
	rd->npkts = npkts;
	rd->msn = ws->msn;
	rd->mtu = p->mtu;
	rd->rkey = ntohl(q->reth->rkey);
	rd->srqn = q->xrc_srqn;
	rd->len = len;
	rd->va = be64_to_cpu(q->reth->va);
	qp->resp.psn = (rx->psn + npkts) & SWR_PSN_MASK;
	swr_wire_rd_answer(qp, p, rd);
}

static void swr_wire_resp_atomic(struct swr_qp *qp,
				 const struct swr_wire_path *p,
				 struct swr_wire_req_pkt *q)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	const struct swr_atmeth *atm = q->atm;
	u64 va = be64_to_cpu(atm->va), orig;
	struct swr_wire_rd *rd;
	struct swr_mr *mr;
	int err;

	if (!(p->access & IB_ACCESS_REMOTE_ATOMIC)) {
		q->nak = SWR_AETH_NAK_INV_REQ;
		return;
	}
	mr = swr_mr_lookup(swr_qp_dev(qp), SWR_RKEY, ntohl(atm->rkey),
			   swr_resp_pd(qp), qp->ibqp.qp_num,
			   IB_ACCESS_REMOTE_ATOMIC, &va, sizeof(u64));
	if (IS_ERR(mr)) {
		q->nak = SWR_AETH_NAK_REM_ACC;
		return;
	}
	err = swr_mr_atomic(mr, va, q->op == SWR_OP_CMP_SWAP ?
			    SWR_ATOMIC_CMP_SWAP : SWR_ATOMIC_FETCH_ADD,
			    be64_to_cpu(atm->comp), be64_to_cpu(atm->swap_add),
			    &orig);
	if (err == -EAGAIN)
		err = swr_mr_fault_async(mr, va, sizeof(u64), true);
	swr_mr_put(mr);
	if (err == -EAGAIN) {
		swr_wire_fault_rnr(qp, p, q);
		return;
	}
	if (err) {
		q->nak = err == -EFAULT ? SWR_AETH_NAK_REM_ACC :
					  SWR_AETH_NAK_INV_REQ;
		return;
	}
	ws->msn++;
	rd = swr_wire_rd_take(ws, p);
	rd->kind = SWR_RD_ATOMIC;
	rd->psn = q->rx->psn;
	rd->npkts = 1;
	rd->msn = ws->msn;
	rd->orig = orig;
	qp->resp.psn = (q->rx->psn + 1) & SWR_PSN_MASK;
	swr_wire_rd_answer(qp, p, rd);
}

/* The request packet ---------------------------------------------------------- */

/* The extension headers of @rx into @q. */
static void swr_wire_parse(const struct swr_rx *rx, struct swr_qp *qp,
			   struct swr_wire_req_pkt *q)
{
	const struct swr_opinfo *oi = rx->op;
	const u8 *x = rx->hdr + sizeof(struct swr_bth);

	memset(q, 0, sizeof(*q));
	q->rx = rx;
	q->op = rx->bth->opcode & ~SWR_OP_TRANSPORT_MASK;
	q->rc = swr_qp_reliable(qp);
	q->ack_req = ntohl(rx->bth->apsn) & SWR_BTH_ACK_REQ;
	q->se = rx->bth->flags & SWR_BTH_SE;
	if (oi->flags & SWR_OPF_XRCETH) {
		q->xrc_srqn = ntohl(((const struct swr_xrceth *)x)->srqn) &
			      SWR_XRC_SRQN_MAX;
		x += sizeof(struct swr_xrceth);
	}
	if (oi->flags & SWR_OPF_RETH) {
		q->reth = (const struct swr_reth *)x;
		x += sizeof(*q->reth);
	}
	if (oi->flags & SWR_OPF_ATMETH) {
		q->atm = (const struct swr_atmeth *)x;
		x += sizeof(*q->atm);
	}
	if (oi->flags & SWR_OPF_IMMDT) {
		q->imm = (__force u32)((const struct swr_immdt *)x)->imm;
		q->msg_flags = SWROCE_CQE_WITH_IMM;
		x += sizeof(struct swr_immdt);
	}
	if (oi->flags & SWR_OPF_IETH)
		q->ieth = ntohl(((const struct swr_ieth *)x)->rkey);
}

/*
 * The PSN check. True when the packet is the next one the responder
 * takes; otherwise it has been dealt with (NAK, duplicate, UC drop).
 */
static bool swr_wire_psn_ok(struct swr_qp *qp, const struct swr_wire_path *p,
			    const struct swr_wire_req_pkt *q)
{
	struct swr_wire_resp *ws = &qp->wire->resp;
	const struct swr_rx *rx = q->rx;
	s32 diff = swr_psn_diff(rx->psn, qp->resp.psn);

	if (q->rc && diff > 0) {
		/* Packets were lost (or come reordered): NAK once. */
		swr_qp_count(qp, SWR_CNT_OUT_OF_SEQ);
		if (!ws->nak_sent) {
			swr_qp_count(qp, SWR_CNT_NAK_SEQ_SENT);
			swr_wire_answer(qp, p, qp->resp.psn,
					SWR_AETH_NAK_PSN_SEQ);
		}
		ws->nak_sent = true;
		return false;
	}
	if (q->rc && diff < 0) {
		swr_wire_dup(qp, p, q);
		return false;
	}
	if (!q->rc && diff) {
		/* UC: packets were lost; drop the message in progress. */
		swr_qp_count(qp, SWR_CNT_OUT_OF_SEQ);
		ws->cur = 0;
		if (qp->resp.rwqe_valid)
			qp->resp.rwqe_offset = 0;
		if (!(rx->op->flags & SWR_OPF_FIRST))
			return false;
		qp->resp.psn = rx->psn;
	}
	ws->nak_sent = false;
	return true;
}

/*
 * XRC_TGT: the SRQ the XRCETH names must be of the QP's domain, and the
 * packets of a message all name the one its receive WQE came from. On
 * success the request holds that SRQ (resp.xsrq) until
 * swr_xrc_resp_end(). Any other QP: nothing to check.
 */
static bool swr_wire_xrc_ok(struct swr_qp *qp,
			    const struct swr_wire_req_pkt *q)
{
	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return true;
	if (qp->resp.rwqe_valid && !(q->rx->op->flags & SWR_OPF_FIRST) &&
	    q->xrc_srqn != qp->resp.rwqe_srqn)
		return false;
	return swr_xrc_resp_begin(qp, q->xrc_srqn);
}

/* The opcode sequence and packet lengths (IBTA 9.7.5.1.3). */
static bool swr_wire_seq_ok(struct swr_qp *qp, const struct swr_wire_path *p,
			    const struct swr_rx *rx)
{
	const struct swr_opinfo *oi = rx->op;
	u32 cur = qp->wire->resp.cur;

	if (cur) {
		if (!(oi->flags & cur) || (oi->flags & SWR_OPF_FIRST))
			return false;
	} else if (oi->flags & (SWR_OPF_MIDDLE | SWR_OPF_LAST) &&
		   !(oi->flags & SWR_OPF_FIRST)) {
		return false;
	}
	/* First and middle packets are full. */
	return !((oi->flags & (SWR_OPF_SEND | SWR_OPF_WRITE)) &&
		 (rx->paylen > p->mtu ||
		  (!(oi->flags & SWR_OPF_LAST) && rx->paylen != p->mtu)));
}

/* NAK @q (RC; the QP goes to error, IBTA class B/C), or drop it (UC). */
static void swr_wire_nak(struct swr_qp *qp, const struct swr_wire_path *p,
			 const struct swr_wire_req_pkt *q)
{
	struct swr_wire_resp *ws = &qp->wire->resp;

	if (!q->rc) {
		ws->cur = 0;
		return;
	}
	switch (q->nak) {
	case SWR_AETH_NAK_INV_REQ:
		swr_qp_count(qp, SWR_CNT_NAK_INV_SENT);
		break;
	case SWR_AETH_NAK_REM_ACC:
		swr_qp_count(qp, SWR_CNT_NAK_ACC_SENT);
		break;
	default:
		swr_qp_count(qp, SWR_CNT_NAK_OP_SENT);
		break;
	}
	swr_wire_send_ack(qp, p, q->rx->psn, q->nak, ws->msn, NULL);
	swr_qp_set_error(qp, false);
}

void swr_wire_resp_rx(struct swr_qp *qp, const struct swr_rx *rx,
		      const struct swr_wire_path *p)
{
	const struct swr_opinfo *oi = rx->op;
	struct swr_wire_req_pkt q;
	bool ack = false;

	if (!(oi->flags & SWR_OPF_REQ))
		return;	/* a response to a requester on a UC QP: drop */
	swr_wire_parse(rx, qp, &q);
	if (!swr_wire_psn_ok(qp, p, &q))
		return;
	if (!swr_wire_seq_ok(qp, p, rx) || !swr_wire_xrc_ok(qp, &q))
		q.nak = SWR_AETH_NAK_INV_REQ;
	else if (oi->flags & SWR_OPF_SEND)
		ack = swr_wire_resp_send(qp, p, &q);
	else if (oi->flags & SWR_OPF_WRITE)
		ack = swr_wire_resp_write(qp, p, &q);
	else if (q.op == SWR_OP_READ_REQ)
		swr_wire_resp_read(qp, p, &q);
	else if (q.atm)
		swr_wire_resp_atomic(qp, p, &q);

	swr_xrc_resp_end(qp);
	if (q.nak) {
		swr_wire_nak(qp, p, &q);
		return;
	}
	if (!ack)
		return;
	qp->resp.psn = (rx->psn + 1) & SWR_PSN_MASK;
	if (q.rc && (q.ack_req || (oi->flags & SWR_OPF_LAST)))
		swr_wire_resp_ack(qp, p, rx->psn);
	/*
	 * Only now may the READ (and the FIN after it) go: the sender's SEND
	 * completes before the FIN arrives, as the application expects.
	 */
	if (q.rndv)
		swr_tm_rndv_start(qp, &qp->resp.rwqe, true);
}

/* The receive path's entry -------------------------------------------------- */

/* A response for @qp's requester: queued for it. True: kept. */
static bool swr_wire_queue_resp(struct swr_qp *qp, struct swr_rx *rx)
{
	struct swr_wire_cb *cb = swr_wire_cb(rx->skb);

	cb->rx_ns = ktime_get_ns();
	cb->hdr_off = rx->hdr - rx->skb->data;
	cb->hdr_len = rx->op->hdr_len;
	cb->paylen = rx->paylen;
	if (atomic_inc_return(&qp->wire_rxq_len) > SWR_WIRE_RXQ_MAX) {
		atomic_dec(&qp->wire_rxq_len);
		swr_rx_drop(rx->sdev, SWR_CNT_RX_DROP_NOMEM, rx->qpn);
		return false;
	}
	llist_add(&rx->skb->ll_node, &qp->wire_rxq);
	swr_wire_rxq_kick(qp);
	return true;
}

/*
 * Whether @qp takes a packet of @transport: RC and UC their own, XRC
 * requests at an XRC_TGT QP and XRC responses at an XRC_INI QP, CNPs any
 * connected QP.
 */
static bool swr_wire_transport_ok(const struct swr_qp *qp, u8 transport,
				  const struct swr_opinfo *oi)
{
	switch (transport) {
	case SWR_OP_RC:
		return qp->ibqp.qp_type == IB_QPT_RC;
	case SWR_OP_UC:
		return qp->ibqp.qp_type == IB_QPT_UC;
	case SWR_OP_XRC:
		return qp->ibqp.qp_type == (oi->flags & SWR_OPF_REQ ?
					    IB_QPT_XRC_TGT : IB_QPT_XRC_INI);
	case SWR_OP_CNP_PREFIX:
		return qp->ibqp.qp_type == IB_QPT_RC ||
		       qp->ibqp.qp_type == IB_QPT_UC || swr_qp_is_xrc(qp);
	default:
		return false;
	}
}

bool swr_wire_rx(struct swr_rx *rx)
{
	struct swr_dev *sdev = rx->sdev;
	u8 transport = rx->bth->opcode & SWR_OP_TRANSPORT_MASK;
	struct swr_wire_path p;
	struct swr_qp *qp;
	bool kept = false;

	qp = swr_qp_get(sdev, rx->qpn);
	if (!qp) {
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_QP, rx->qpn);
		return false;
	}
	swr_wire_path(qp, &p);
	if (!swr_wire_transport_ok(qp, transport, rx->op) ||
	    (p.state != IB_QPS_RTR && p.state != IB_QPS_RTS &&
	     p.state != IB_QPS_SQD) ||
	    !swr_rx_from_peer(rx, &p.d)) {
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_QP, rx->qpn);
		goto out;
	}

	if (rx->op->flags & SWR_OPF_CNP) {
		/* Congestion on the way there: the requester's rate. */
		swr_cc_rp_cnp(qp);
		goto out;
	}
	if (!(rx->op->flags & SWR_OPF_REQ)) {
		/* A response: the requester's, in the poller. */
		swr_cc_np_rx(qp, rx, &p);
		kept = swr_wire_queue_resp(qp, rx);
		goto out;
	}

	if (!swr_wire_qp_get(qp, GFP_ATOMIC)) {
		/* As if lost: the requester sends it again. */
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_NOMEM, rx->qpn);
		goto out;
	}
	swr_cc_np_rx(qp, rx, &p);
	spin_lock_bh(&qp->resp_lock);
	swr_wire_resp_rx(qp, rx, &p);
	spin_unlock_bh(&qp->resp_lock);
out:
	swr_qp_put(qp);
	return kept;
}
