// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Tag matching SRQs (IB_SRQT_TM): the tag list and where a SEND lands.
 *
 * The model is mlx5's hardware tag matching (rdma-core's libmlx5), as
 * ibv_post_srq_ops(3) and ibv_create_srq_ex(3) describe it:
 *  - the application adds tagged buffers to the SRQ's list (TAG_ADD, which
 *    returns a handle) and removes them (TAG_DEL); it also keeps ordinary
 *    receive WQEs in the SRQ's ring;
 *  - every SEND to a QP on the SRQ starts with a 16-byte TMH (opcode,
 *    app_ctx, tag; big-endian). An EAGER message whose tag matches a listed
 *    entry (TMH.tag & entry.mask == entry.tag, the oldest entry first)
 *    takes that entry off the list and lands, without its TMH, in the
 *    entry's buffer: IBV_WC_TM_RECV with TM_MATCH | TM_DATA_VALID and the
 *    tag, the entry's recv_wr_id;
 *  - an EAGER message that matches nothing is "unexpected": it lands whole
 *    (TMH included) in the next ordinary receive WQE, IBV_WC_TM_RECV
 *    without TM_MATCH; a NO_TAG message likewise, IBV_WC_TM_NO_TAG. A
 *    message too short for a TMH, or with another TMH opcode, is an
 *    ordinary IBV_WC_RECV;
 *  - phase synchronisation: the device counts the unexpected messages it
 *    delivered (hw_cnt); the application reports how many it has handled
 *    (an op with IBV_OPS_TM_SYNC, unexpected_cnt: sw_cnt). While the two
 *    differ the device matches nothing: every EAGER message is unexpected,
 *    since a tag the application adds before it has seen an unexpected
 *    message may be the one that message should have matched (MPI's
 *    ordering rule).
 *
 * Everything here runs under swr_srq.lock: ops (the driver method, process
 * context) and matching (the responder: the poller for local delivery,
 * softirq for the wire), so both paths see one list and nothing sleeps.
 * The ops are a driver method, not a ring in the SRQ's mapping, because
 * each needs an answer now (the handle of an ADD, the errno of a bad op)
 * and they are not a fast path the way receives are.
 *
 * Handles: slot index in the low 16 bits, the slot's generation above, so
 * that a stale handle (the tag was deleted or consumed, and the slot
 * perhaps reused) never names the tag now in the slot.
 *
 * Rendezvous (IBV_TMH_RNDV), as mlx5 offloads it: a RNDV message carries,
 * after its TMH, an RVH naming the sender's buffer (va, rkey, length);
 * the message itself is at most tm_caps.max_rndv_hdr_size bytes. When it
 * matches a tag:
 *  1. its receive completes at once, IBV_WC_TM_RECV with TM_MATCH (tag,
 *     app_ctx) but not TM_DATA_VALID; nothing of the message is placed;
 *  2. the receiving QP's requester READs the RVH's range into the tag's
 *     buffer: a WQE the device makes itself (swr_tm_fetch(),
 *     SWR_WQE_TM_READ), so the QP needs no SQ of its own (the suite's
 *     has max_send_wr 0) and the READ goes local or over the wire like
 *     any other;
 *  3. the READ's completion is the tag's second one (swr_tm_req_done()):
 *     IBV_WC_TM_RECV with TM_DATA_VALID only, recv_wr_id, on the SRQ's CQ;
 *  4. then a FIN, a SEND of a TMH with opcode FIN and the message's tag
 *     and app_ctx (SWR_WQE_TM_FIN, unsignalled), tells the sender that its
 *     buffer is free: an ordinary receive there.
 * The tag's slot stays the rendezvous' (state rndv, owner qpn) from the
 * match until the FIN is built, so the number of rendezvous in progress
 * is bounded by max_num_tags and needs no memory of its own. Between the
 * steps the slot waits on its QP's tm_jobs list. A flush completes a
 * queued or outstanding READ with IB_WC_WR_FLUSH_ERR; a reset or destroy
 * of the QP drops its rendezvous silently (swr_tm_qp_drop()).
 */
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>

#define UVERBS_MODULE_NAME swroce
#include <rdma/uverbs_named_ioctl.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_mr.h"
#include "swr_net.h"
#include "swr_qp.h"

/*
 * TMH opcodes (enum ibv_tmh_op, rdma-core's tm_types.h): NO_TAG 0, RNDV 1,
 * FIN 2, EAGER 3. A FIN is an ordinary receive here (it is for the
 * sender, whose QP is not on a tag matching SRQ).
 */
#define SWR_TMH_NO_TAG		0
#define SWR_TMH_RNDV		1
#define SWR_TMH_FIN		2
#define SWR_TMH_EAGER		3

/* The RVH after a RNDV message's TMH (struct ibv_rvh, big-endian). */
#define SWR_RVH_VA		16
#define SWR_RVH_RKEY		24
#define SWR_RVH_LEN		28

#define SWR_TM_HANDLE_IDX	GENMASK(15, 0)
#define SWR_TM_HANDLE_GEN_SHIFT	16

/* Where a slot is in a rendezvous (swr_tm_tag.rndv). */
enum swr_tm_rndv {
	SWR_RNDV_NONE,		/* free, or a listed tag */
	SWR_RNDV_MATCHED,	/* its RNDV's receive is completing */
	SWR_RNDV_READ,		/* on the QP's tm_jobs: READ to issue */
	SWR_RNDV_READING,	/* the READ WQE is the requester's */
	SWR_RNDV_FIN,		/* on the QP's tm_jobs: FIN to send */
};

/* One slot of the tag list. */
struct swr_tm_tag {
	/* In swr_tm.list while listed; in a QP's tm_jobs while READ, FIN. */
	struct list_head node;
	u64 tag;
	u64 mask;
	u64 wr_id;
	struct swroce_sge sge;
	u32 num_sge;
	u16 gen;		/* of the handle last returned; 0: never */
	bool listed;
	u8 rndv;		/* enum swr_tm_rndv */
	/* From a matched RNDV message: */
	u32 qpn;		/* the QP it came to */
	u32 app_ctx;
	u64 msg_tag;
	u64 va;			/* the RVH */
	u32 rkey;
	u32 len;
};

/* An SRQ's tag matching state, under swr_srq.lock. */
struct swr_tm {
	struct list_head list;	/* listed tags, oldest first */
	u32 max_tags;
	u32 listed;
	u32 hw_cnt;		/* unexpected messages delivered */
	u32 sw_cnt;		/* ... that the application has handled */
	struct swr_tm_tag tags[];
};

int swr_tm_init(struct swr_srq *srq, const struct ib_srq_init_attr *init)
{
	u32 n = init->ext.tag_matching.max_num_tags;
	struct swr_tm *tm;

	if (!n || n > SWR_TM_MAX_TAGS)
		return -EINVAL;
	tm = kzalloc(struct_size(tm, tags, n), GFP_KERNEL);
	if (!tm)
		return -ENOMEM;
	tm->max_tags = n;
	INIT_LIST_HEAD(&tm->list);
	srq->tm = tm;
	return 0;
}

void swr_tm_fini(struct swr_srq *srq)
{
	kfree(srq->tm);
	srq->tm = NULL;
}

/* Matching ------------------------------------------------------------------ */

/* The oldest listed tag @tag matches, or NULL; matching held: NULL. */
static struct swr_tm_tag *swr_tm_find(struct swr_tm *tm, u64 tag)
{
	struct swr_tm_tag *t;

	if (tm->sw_cnt != tm->hw_cnt)
		return NULL;
	list_for_each_entry(t, &tm->list, node)
		if ((tag & t->mask) == t->tag)
			return t;
	return NULL;
}

static void swr_tm_unlist(struct swr_tm *tm, struct swr_tm_tag *t)
{
	list_del(&t->node);
	t->listed = false;
	tm->listed--;
}

static u32 swr_tm_handle(const struct swr_tm *tm, const struct swr_tm_tag *t)
{
	return (u32)t->gen << SWR_TM_HANDLE_GEN_SHIFT | (t - tm->tags);
}

/* Does a RNDV message @m carry a whole RVH, and nothing much beyond? */
static bool swr_tm_rndv_ok(const struct swr_tm_msg *m)
{
	return m->hdr_len >= SWR_TM_HDR_BYTES && m->len >= SWR_TM_HDR_BYTES &&
	       m->len <= SWR_TM_MAX_RNDV_HDR;
}

/* Give matched tag @t to the message @m (its TMH's @op) to QP @qpn. */
static void swr_tm_take(struct swr_tm *tm, struct swr_tm_tag *t,
			struct swr_recv_wqe *out, const struct swr_tm_msg *m,
			u8 op, u32 qpn)
{
	swr_tm_unlist(tm, t);
	out->wr_id = t->wr_id;
	out->num_sge = t->num_sge;
	out->sge[0] = t->sge;
	out->tm_tag = get_unaligned_be64(m->hdr + 8);
	out->tm_app_ctx = get_unaligned_be32(m->hdr + 4);
	if (op == SWR_TMH_EAGER) {
		out->tm = SWR_TM_MATCHED;
		out->tm_skip = SWROCE_TMH_BYTES;
		return;
	}
	/* Rendezvous: nothing of the message lands; the slot stays ours. */
	out->tm = SWR_TM_RNDV;
	out->tm_skip = m->len;
	out->tm_handle = swr_tm_handle(tm, t);
	t->rndv = SWR_RNDV_MATCHED;
	t->qpn = qpn;
	t->msg_tag = out->tm_tag;
	t->app_ctx = out->tm_app_ctx;
	t->va = get_unaligned_be64(m->hdr + SWR_RVH_VA);
	t->rkey = get_unaligned_be32(m->hdr + SWR_RVH_RKEY);
	t->len = get_unaligned_be32(m->hdr + SWR_RVH_LEN);
}

/**
 * swr_tm_recv - where a message to a tag matching SRQ goes
 * @sdev: the device
 * @srq: the SRQ (its lock held)
 * @out: the receive it takes: a tag's buffer or an ordinary WQE
 * @send: the message is a SEND (a WRITE with immediate is ordinary)
 * @m: its head, NULL when it has none (not its first packet)
 * @qpn: the QP it came to
 *
 * A RNDV message that is malformed (no whole RVH, or longer than
 * max_rndv_hdr_size) is not matched: it is unexpected, for software to
 * deal with.
 *
 * Return: 0, or swr_wq_pop()'s -ENOENT (RNR) or -EINVAL (a bad ring).
 */
int swr_tm_recv(struct swr_dev *sdev, struct swr_srq *srq,
		struct swr_recv_wqe *out, bool send,
		const struct swr_tm_msg *m, u32 qpn)
{
	struct swr_tm *tm = srq->tm;
	u8 kind = SWR_TM_PLAIN;
	struct swr_tm_tag *t;
	u8 op = U8_MAX;
	int err;

	if (send && m && m->hdr_len >= SWROCE_TMH_BYTES)
		op = m->hdr[0];
	if (op == SWR_TMH_NO_TAG)
		kind = SWR_TM_NO_TAG;
	if (op == SWR_TMH_EAGER || op == SWR_TMH_RNDV) {
		t = swr_tm_find(tm, get_unaligned_be64(m->hdr + 8));
		if (t && (op == SWR_TMH_EAGER || swr_tm_rndv_ok(m))) {
			swr_tm_take(tm, t, out, m, op, qpn);
			return 0;
		}
		kind = SWR_TM_UNEXPECTED;
	}
	err = swr_wq_pop(sdev, &srq->wq, out);
	if (err)
		return err;
	out->tm = kind;
	out->tm_skip = 0;
	if (kind == SWR_TM_UNEXPECTED)
		tm->hw_cnt++;
	return 0;
}

/**
 * swr_tm_recv_cqe - make a receive completion a tag matching one
 * @rwqe: the receive the message took (swr_tm_recv())
 * @cqe: its completion, built as for any receive; byte_len is the bytes
 *	placed (the TMH of a matched message is not)
 */
void swr_tm_recv_cqe(const struct swr_recv_wqe *rwqe, struct swroce_cqe *cqe)
{
	switch (rwqe->tm) {
	case SWR_TM_MATCHED:
	case SWR_TM_RNDV:
		cqe->opcode = SWR_WC_TM_RECV;
		cqe->flags = SWROCE_CQE_TM_MATCH;
		/* A rendezvous' data comes with its second completion. */
		if (rwqe->tm == SWR_TM_MATCHED)
			cqe->flags |= SWROCE_CQE_TM_DATA_VALID;
		else
			cqe->byte_len = 0;
		cqe->ex_data = rwqe->tm_app_ctx;
		cqe->src_qp = upper_32_bits(rwqe->tm_tag);
		cqe->ex_data2 = lower_32_bits(rwqe->tm_tag);
		break;
	case SWR_TM_UNEXPECTED:
		cqe->opcode = SWR_WC_TM_RECV;
		break;
	case SWR_TM_NO_TAG:
		cqe->opcode = SWR_WC_TM_NO_TAG;
		break;
	}
}

/* Rendezvous: the receiving QP's READ and FIN ----------------------------- */

/* The slot of @handle if it is @qpn's rendezvous in @state, else NULL. */
static struct swr_tm_tag *swr_tm_rndv_slot(struct swr_tm *tm, u64 handle,
					   u32 qpn, u8 state)
{
	u32 idx = handle & SWR_TM_HANDLE_IDX;
	struct swr_tm_tag *t;

	if (idx >= tm->max_tags)
		return NULL;
	t = &tm->tags[idx];
	if (t->gen != (u16)(handle >> SWR_TM_HANDLE_GEN_SHIFT) ||
	    t->rndv != state || t->qpn != qpn)
		return NULL;
	return t;
}

/* Queue @t's next step on @qp (the SRQ's lock held); @first: ahead. */
static void swr_tm_queue(struct swr_qp *qp, struct swr_tm_tag *t, u8 state,
			 bool first)
{
	t->rndv = state;
	if (first)
		list_add(&t->node, &qp->tm_jobs);
	else
		list_add_tail(&t->node, &qp->tm_jobs);
	WRITE_ONCE(qp->tm_njobs, qp->tm_njobs + 1);
}

/* A rendezvous' second completion: the READ's @status (srq->lock held). */
static void swr_tm_rndv_cqe(struct swr_qp *qp, struct swr_tm_tag *t,
			    enum ib_wc_status status, u32 byte_len)
{
	struct swroce_cqe cqe;

	swr_cqe_init(&cqe, t->wr_id, qp->ibqp.qp_num, status, SWR_WC_TM_RECV,
		     byte_len);
	if (status == IB_WC_SUCCESS)
		cqe.flags = SWROCE_CQE_TM_DATA_VALID;
	swr_recv_complete(qp, &cqe, false);
}

/**
 * swr_tm_rndv_start - a RNDV message's first completion was written
 * @qp: the QP it came to
 * @rwqe: its receive, SWR_TM_RNDV
 * @ok: the completion's status is success: READ the sender's buffer; else
 *	the slot is free again
 *
 * Called once the sender's SEND is answered (the wire's ACK sent, the
 * local requester's completion written), so that the FIN never overtakes
 * it. A slot that is no longer this rendezvous' (the QP was reset since)
 * is left alone.
 */
void swr_tm_rndv_start(struct swr_qp *qp, const struct swr_recv_wqe *rwqe,
		       bool ok)
{
	struct swr_srq *srq = qp->srq;
	struct swr_tm_tag *t;

	spin_lock_bh(&srq->lock);
	t = swr_tm_rndv_slot(srq->tm, rwqe->tm_handle, qp->ibqp.qp_num,
			     SWR_RNDV_MATCHED);
	if (t && ok)
		swr_tm_queue(qp, t, SWR_RNDV_READ, false);
	else if (t)
		t->rndv = SWR_RNDV_NONE;
	spin_unlock_bh(&srq->lock);
	if (t && ok)
		swr_poll_kick(swr_qp_dev(qp));
}

/* @w: READ the RVH's range into the tag's buffer (srq->lock held). */
static void swr_tm_build_read(struct swr_tm *tm, struct swr_tm_tag *t,
			      struct swr_send_wqe *w)
{
	w->origin = SWR_WQE_TM_READ;
	w->hdr.wr_id = swr_tm_handle(tm, t);
	w->hdr.opcode = SWROCE_WR_RDMA_READ;
	w->hdr.flags = SWROCE_WQE_SIGNALED;
	w->hdr.rdma.remote_addr = t->va;
	w->hdr.rdma.rkey = t->rkey;
	if (t->len) {
		w->hdr.num_sge = 1;
		w->sge[0] = t->sge;
		w->sge[0].length = t->len;
	}
	t->rndv = SWR_RNDV_READING;
}

/* @w: the FIN for @t's sender; the slot is free again (srq->lock held). */
static void swr_tm_build_fin(struct swr_tm_tag *t, struct swr_send_wqe *w)
{
	w->origin = SWR_WQE_TM_FIN;
	w->hdr.opcode = SWROCE_WR_SEND;
	w->hdr.flags = SWROCE_WQE_INLINE;
	w->hdr.inline_len = SWROCE_TMH_BYTES;
	memset(w->inline_data, 0, SWROCE_TMH_BYTES);
	w->inline_data[0] = SWR_TMH_FIN;
	put_unaligned_be32(t->app_ctx, w->inline_data + 4);
	put_unaligned_be64(t->msg_tag, w->inline_data + 8);
	t->rndv = SWR_RNDV_NONE;
}

/**
 * swr_tm_fetch - the requester's next rendezvous step, ahead of its SQ
 * @qp: the QP (sq_lock held)
 * @w: where the step's WQE is built
 *
 * A buffer too small for the RVH's length is not READ: its second
 * completion is IB_WC_LOC_LEN_ERR, and the FIN goes all the same (the
 * sender's buffer is not needed any more).
 *
 * Return: true when @w is a WQE to execute.
 */
bool swr_tm_fetch(struct swr_qp *qp, struct swr_send_wqe *w)
{
	struct swr_srq *srq = qp->srq;
	struct swr_tm_tag *t;

	if (!READ_ONCE(qp->tm_njobs))
		return false;
	spin_lock_bh(&srq->lock);
	t = list_first_entry_or_null(&qp->tm_jobs, struct swr_tm_tag, node);
	if (t) {
		list_del(&t->node);
		WRITE_ONCE(qp->tm_njobs, qp->tm_njobs - 1);
		memset(w, 0, sizeof(*w));
		if (t->rndv == SWR_RNDV_READ &&
		    t->len > (t->num_sge ? t->sge.length : 0)) {
			swr_tm_rndv_cqe(qp, t, IB_WC_LOC_LEN_ERR, 0);
			t->rndv = SWR_RNDV_FIN;
		}
		if (t->rndv == SWR_RNDV_READ)
			swr_tm_build_read(srq->tm, t, w);
		else
			swr_tm_build_fin(t, w);
	}
	spin_unlock_bh(&srq->lock);
	return t;
}

/**
 * swr_tm_req_done - a WQE swr_tm_fetch() made has completed
 * @qp: its QP
 * @w: the WQE
 * @status: how
 * @byte_len: bytes READ
 *
 * The READ's completion is the tag's second; the FIN goes next, ahead of
 * anything else. A FIN's completion is nobody's (the QP still goes to
 * error when it fails, as for any WQE).
 */
void swr_tm_req_done(struct swr_qp *qp, const struct swr_send_wqe *w,
		     enum ib_wc_status status, u32 byte_len)
{
	struct swr_srq *srq = qp->srq;
	struct swr_tm_tag *t;

	if (w->origin != SWR_WQE_TM_READ)
		return;
	spin_lock_bh(&srq->lock);
	t = swr_tm_rndv_slot(srq->tm, w->hdr.wr_id, qp->ibqp.qp_num,
			     SWR_RNDV_READING);
	if (t) {
		swr_tm_rndv_cqe(qp, t, status, byte_len);
		if (status == IB_WC_SUCCESS)
			swr_tm_queue(qp, t, SWR_RNDV_FIN, true);
		else
			t->rndv = SWR_RNDV_NONE;
	}
	spin_unlock_bh(&srq->lock);
}

/*
 * @qp is in error (sq_lock held): the READs it had still to issue complete
 * flushed, the FINs it had to send are not sent. Return: completions.
 */
int swr_tm_flush(struct swr_qp *qp)
{
	struct swr_srq *srq = qp->srq;
	struct swr_tm_tag *t, *next;
	int n = 0;

	if (!READ_ONCE(qp->tm_njobs))
		return 0;
	spin_lock_bh(&srq->lock);
	list_for_each_entry_safe(t, next, &qp->tm_jobs, node) {
		list_del(&t->node);
		if (t->rndv == SWR_RNDV_READ) {
			swr_tm_rndv_cqe(qp, t, IB_WC_WR_FLUSH_ERR, 0);
			n++;
		}
		t->rndv = SWR_RNDV_NONE;
	}
	WRITE_ONCE(qp->tm_njobs, 0);
	spin_unlock_bh(&srq->lock);
	return n;
}

/*
 * @qp is reset or destroyed (sq_lock held, or no engine left): its
 * rendezvous, wherever they are, end without a completion, and their
 * slots are free.
 */
void swr_tm_qp_drop(struct swr_qp *qp)
{
	struct swr_srq *srq = qp->srq;
	struct swr_tm_tag *t;
	u32 i;

	if (!srq || !srq->tm)
		return;
	spin_lock_bh(&srq->lock);
	for (i = 0; i < srq->tm->max_tags; i++) {
		t = &srq->tm->tags[i];
		if (!t->rndv || t->qpn != qp->ibqp.qp_num)
			continue;
		if (t->rndv == SWR_RNDV_READ || t->rndv == SWR_RNDV_FIN)
			list_del(&t->node);
		t->rndv = SWR_RNDV_NONE;
	}
	WRITE_ONCE(qp->tm_njobs, 0);
	spin_unlock_bh(&srq->lock);
}

/* List operations (SWROCE_METHOD_SRQ_TM_OP) -------------------------------- */

static const u8 swr_tm_op_wc[] = {
	[SWROCE_TM_OP_ADD] = SWR_WC_TM_ADD,
	[SWROCE_TM_OP_DEL] = SWR_WC_TM_DEL,
	[SWROCE_TM_OP_SYNC] = SWR_WC_TM_SYNC,
};

/* The op's fields, as far as they do not depend on the list. */
static int swr_tm_op_check(const struct swroce_tm_op *op)
{
	if (op->comp_mask)
		return -EOPNOTSUPP;
	if (op->reserved_0 || op->reserved_1 ||
	    op->opcode >= ARRAY_SIZE(swr_tm_op_wc) ||
	    op->flags & ~(SWROCE_TM_OP_SIGNALED | SWROCE_TM_OP_FLAG_SYNC))
		return -EINVAL;
	if (op->opcode == SWROCE_TM_OP_ADD && op->num_sge > 1)
		return -EINVAL;
	return 0;
}

/*
 * An ADD's buffer: local write access to the range in the SRQ's PD. The
 * responder looks the key up again when a message lands (the MR may be
 * gone by then); this is so that a bad key fails the op, not a message.
 */
static int swr_tm_sge_check(struct swr_srq *srq, const struct swroce_tm_op *op)
{
	struct swr_dev *sdev = to_swr_dev(srq->ibsrq.device);
	u64 iova = op->sge.addr;
	struct swr_mr *mr;

	if (!op->num_sge || !op->sge.length)
		return 0;
	mr = swr_mr_lookup(sdev, SWR_LKEY, op->sge.lkey, srq->ibsrq.pd, 0,
			   IB_ACCESS_LOCAL_WRITE, &iova, op->sge.length);
	if (IS_ERR(mr))
		return -EINVAL;
	swr_mr_put(mr);
	return 0;
}

/*
 * unexpected_cnt may only move forward, and not past what was delivered:
 * counted from sw_cnt, at most hw_cnt - sw_cnt (both free-running).
 */
static bool swr_tm_cnt_ok(const struct swr_tm *tm, u32 cnt)
{
	return cnt - tm->sw_cnt <= tm->hw_cnt - tm->sw_cnt;
}

/* The free slot for an ADD, or NULL when max_tags are listed. */
static struct swr_tm_tag *swr_tm_free_slot(struct swr_tm *tm)
{
	u32 i;

	if (tm->listed == tm->max_tags)
		return NULL;
	for (i = 0; i < tm->max_tags; i++)
		if (!tm->tags[i].listed && !tm->tags[i].rndv)
			return &tm->tags[i];
	return NULL;
}

static u32 swr_tm_add(struct swr_tm *tm, struct swr_tm_tag *t,
		      const struct swroce_tm_op *op)
{
	t->tag = op->tag;
	t->mask = op->mask;
	t->wr_id = op->recv_wr_id;
	t->num_sge = op->num_sge;
	t->sge = op->sge;
	if (!++t->gen)
		t->gen = 1;	/* 0 names no handle ever returned */
	t->listed = true;
	list_add_tail(&t->node, &tm->list);
	tm->listed++;
	return swr_tm_handle(tm, t);
}

/* The listed tag @handle names; ERR_PTR(-EINVAL) or ERR_PTR(-ENOENT). */
static struct swr_tm_tag *swr_tm_by_handle(struct swr_tm *tm, u32 handle)
{
	u32 idx = handle & SWR_TM_HANDLE_IDX;
	u16 gen = handle >> SWR_TM_HANDLE_GEN_SHIFT;
	struct swr_tm_tag *t;

	if (idx >= tm->max_tags || !gen)
		return ERR_PTR(-EINVAL);
	t = &tm->tags[idx];
	/* A generation the slot has not reached: never returned. */
	if (!t->gen || (s16)(gen - t->gen) > 0)
		return ERR_PTR(-EINVAL);
	if (gen != t->gen || !t->listed)
		return ERR_PTR(-ENOENT);
	return t;
}

/* Check and do @op (srq->lock held); the ADD's handle in *@handle. */
static int swr_tm_op_locked(struct swr_srq *srq, const struct swroce_tm_op *op,
			    u32 *handle)
{
	struct swr_tm *tm = srq->tm;
	struct swr_tm_tag *t = NULL;

	if ((op->flags & SWROCE_TM_OP_FLAG_SYNC) &&
	    !swr_tm_cnt_ok(tm, op->unexpected_cnt))
		return -EINVAL;
	if (op->opcode == SWROCE_TM_OP_ADD) {
		t = swr_tm_free_slot(tm);
		if (!t)
			return -ENOMEM;
	} else if (op->opcode == SWROCE_TM_OP_DEL) {
		t = swr_tm_by_handle(tm, op->handle);
		if (IS_ERR(t))
			return PTR_ERR(t);
	}

	/* Checked: nothing fails from here on. */
	if (op->flags & SWROCE_TM_OP_FLAG_SYNC)
		tm->sw_cnt = op->unexpected_cnt;
	if (op->opcode == SWROCE_TM_OP_ADD)
		*handle = swr_tm_add(tm, t, op);
	else if (op->opcode == SWROCE_TM_OP_DEL)
		swr_tm_unlist(tm, t);
	return 0;
}

/*
 * One op on @srq: its completion, if signalled, is written under the SRQ's
 * lock, so that it takes its place among the receive completions the
 * list's state decided.
 */
static int swr_tm_op(struct swr_srq *srq, const struct swroce_tm_op *op,
		     u32 *handle)
{
	struct swr_cq *cq = to_swr_cq(srq->ibsrq.ext.cq);
	struct swroce_cqe cqe;
	int err;

	err = swr_tm_op_check(op);
	if (!err && op->opcode == SWROCE_TM_OP_ADD)
		err = swr_tm_sge_check(srq, op);
	if (err)
		return err;
	spin_lock_bh(&srq->lock);
	err = swr_tm_op_locked(srq, op, handle);
	if (!err && (op->flags & SWROCE_TM_OP_SIGNALED)) {
		swr_cqe_init(&cqe, op->wr_id, 0, IB_WC_SUCCESS,
			     swr_tm_op_wc[op->opcode], 0);
		swr_cq_post(cq, &cqe, false);
	}
	spin_unlock_bh(&srq->lock);
	return err;
}

/*
 * SWROCE_METHOD_SRQ_TM_OP (swroce-abi.h). The SRQ's uobject is locked for
 * reading, so the SRQ outlives the call; concurrent ops serialise on its
 * lock.
 */
static int UVERBS_HANDLER(SWROCE_METHOD_SRQ_TM_OP)(struct uverbs_attr_bundle *attrs)
{
	struct ib_srq *ibsrq = uverbs_attr_get_obj(attrs,
						   SWROCE_ATTR_SRQ_TM_OP_HANDLE);
	struct swroce_tm_op_resp resp = {};
	struct swroce_tm_op op;
	struct swr_srq *srq;
	int err;

	if (IS_ERR(ibsrq))
		return PTR_ERR(ibsrq);
	srq = to_swr_srq(ibsrq);
	if (!srq->tm)
		return -EOPNOTSUPP;
	err = uverbs_copy_from_or_zero(&op, attrs, SWROCE_ATTR_SRQ_TM_OP_CMD);
	if (err)
		return err;
	err = swr_tm_op(srq, &op, &resp.handle);
	if (err) {
		ibdev_dbg(ibsrq->device, "srq tm op %u: %d\n", op.opcode, err);
		return err;
	}
	return uverbs_copy_to_struct_or_zero(attrs, SWROCE_ATTR_SRQ_TM_OP_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(SWROCE_METHOD_SRQ_TM_OP,
			    UVERBS_ATTR_IDR(SWROCE_ATTR_SRQ_TM_OP_HANDLE,
					    UVERBS_OBJECT_SRQ,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(SWROCE_ATTR_SRQ_TM_OP_CMD,
					       UVERBS_ATTR_STRUCT(struct swroce_tm_op,
								  sge),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(SWROCE_ATTR_SRQ_TM_OP_RESP,
						UVERBS_ATTR_STRUCT(struct swroce_tm_op_resp,
								   handle),
						UA_MANDATORY));

ADD_UVERBS_METHODS(swr_srq_methods, UVERBS_OBJECT_SRQ,
		   &UVERBS_METHOD(SWROCE_METHOD_SRQ_TM_OP));

const struct uapi_definition swr_tm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_SRQ, &swr_srq_methods),
	{},
};
