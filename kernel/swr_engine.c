// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine: executing send work requests.
 *
 * The poller (swr_poll.c) calls swr_req_process() for each QP with work.
 * Under the QP's sq_lock it copies the next WQE out of the SQ ring once,
 * validates the copy and executes it. A destination QP on this device
 * (its GID is one of ours) is served synchronously by the same call: the
 * responder half runs under the destination's resp_lock (dropped only for
 * the bulk copy), so a request, its data placement and both completions
 * happen in one step. Hence
 * nothing is ever in flight between WQEs, and a fence (SWROCE_WQE_FENCE)
 * is satisfied trivially: every earlier READ and atomic has completed
 * before the next WQE is even fetched.
 *
 * The one way a WQE waits is receiver-not-ready (or a destination that is
 * not ready yet, which a real requester would see as missing ACKs): it
 * stays in req.wqe with req.wait_until set, the engine reports the
 * deadline to the poller, and the WQE is retried once it has passed.
 *
 * Everything read from a ring was written by user space (for a user QP):
 * each WQE is copied out once, the copy is validated, and only the copy is
 * used. Errors caused by a WQE are reported in its completion and counted,
 * never logged beyond ibdev_dbg().
 *
 * Large messages are copied page by page (swr_mr_walk()), at most
 * SWR_TURN_BYTES per turn of the requester, with its sq_lock (a mutex)
 * held but not the destination's resp_lock; the rest waits in req.xfer for
 * the next turn: see "Large messages" in swr_qp.h for why that is safe.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/sched.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "swr.h"
#include "swr_mr.h"
#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_raw.h"
#include "swr_trace.h"
#include "swr_wire.h"

#define SWR_MAX_MSG		SZ_2G
/* Bytes copied between two chances to reschedule (swr_copy()). */
#define SWR_COPY_CHUNK		SZ_1M
#define SWR_GRH_BYTES		40
/* RoCEv2 headers after the IP header: UDP, BTH, DETH, and the ICRC. */
#define SWR_UD_OVERHEAD		(8 + 12 + 8 + 4)
/* A Q_Key with this bit set in a UD WQE means "use the QP's own". */
#define SWR_QKEY_PRIVILEGED	0x80000000U
#define SWR_RNR_INFINITE	7

/* What the requester needs of its own QP, copied under state_lock. */
struct swr_req_view {
	enum ib_qp_state state;
	bool sq_draining;
	u32 qkey;
	u32 dest_qpn;
	union ib_gid dgid;
	union ib_gid sgid;	/* RC/UC: as the path was set */
	u32 mtu;		/* path MTU in bytes */
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
};

/* What the responder needs of a destination QP, copied under state_lock. */
struct swr_resp_view {
	enum ib_qp_state state;
	u32 qkey;
	int access;
	u8 min_rnr_timer;
};

/*
 * The outcome of one WQE as the requester sees it. SWR_WAIT keeps the
 * WQE for a retry at req.wait_until; SWR_MORE keeps it with data left to
 * move in a later turn (req.xfer).
 */
enum swr_verdict {
	SWR_DONE,
	SWR_WAIT,
	SWR_MORE,
};

/* IBTA table 45: the RNR NAK timer field, in units of 10 us. */
static const u32 swr_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

static u32 swr_mtu_bytes(enum ib_mtu mtu)
{
	int n = ib_mtu_enum_to_int(mtu);

	return n > 0 ? n : 256;
}

/* Packets a message of @len bytes takes at @mtu (at least one). */
static u32 swr_npkts(u64 len, u32 mtu)
{
	return len ? (u32)DIV_ROUND_UP_ULL(len, mtu) : 1;
}

/* Wait @ns and retry the held WQE. */
static enum swr_verdict swr_req_wait(struct swr_qp *qp, u64 ns)
{
	qp->req.wait_until = ktime_get_ns() + ns;
	swr_poll_deadline(swr_qp_dev(qp), qp->req.wait_until);
	return SWR_WAIT;
}

static void swr_req_view(struct swr_qp *qp, struct swr_req_view *v)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	v->state = qp->state;
	v->sq_draining = qp->attr.sq_draining;
	v->qkey = qp->attr.qkey;
	v->dest_qpn = qp->attr.dest_qpn;
	v->dgid = rdma_ah_read_grh(&qp->attr.ah)->dgid;
	v->sgid = qp->attr.sgid;
	v->mtu = swr_mtu_bytes(qp->attr.path_mtu);
	v->timeout = qp->attr.timeout;
	v->retry_cnt = qp->attr.retry_cnt;
	v->rnr_retry = qp->attr.rnr_retry;
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

static void swr_resp_view(struct swr_qp *qp, struct swr_resp_view *v)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	v->state = qp->state;
	v->qkey = qp->attr.qkey;
	v->access = qp->attr.access_flags;
	v->min_rnr_timer = qp->attr.min_rnr_timer;
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

static bool swr_resp_state_ok(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD;
}

bool swr_gid_is_local(struct swr_dev *sdev, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&sdev->ibdev, gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, SWR_PORT_NUM,
				     NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/*
 * The GID table changed (the RDMA core calls this after it stored or
 * dropped the entry, under the table's mutex): what any requester found
 * in it before is stale. The full barrier orders the entry's update before
 * the new generation; it pairs with the acquire in swr_req_gid_is_local().
 */
void swr_gid_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct swr_dev *sdev = container_of(handler, struct swr_dev,
					    gid_handler);

	if (event->event != IB_EVENT_GID_CHANGE)
		return;
	smp_mb__before_atomic();	/* the entry, then the generation */
	atomic_inc(&sdev->gid_gen);
}

/*
 * A WQE's destination GID, local or not, without a table search per WQE
 * (the search takes the table's lock and compares every entry). The
 * generation is read before the search: a change during it leaves an
 * answer tagged with the older generation, which the next WQE discards.
 */
bool swr_req_gid_is_local(struct swr_qp *qp, const union ib_gid *gid)
{
	struct swr_gid_cache *c = &qp->req.dgid_local;
	struct swr_dev *sdev = swr_qp_dev(qp);
	u32 gen = (u32)atomic_read_acquire(&sdev->gid_gen);

	lockdep_assert_held(&qp->sq_lock);
	if (c->valid && c->gen == gen && !memcmp(&c->dgid, gid, sizeof(*gid)))
		return c->local;
	c->local = swr_gid_is_local(sdev, gid);
	c->dgid = *gid;
	c->gen = gen;
	c->valid = true;
	return c->local;
}

/* Completions -------------------------------------------------------------- */

void swr_cqe_init(struct swroce_cqe *cqe, u64 wr_id, u32 qpn,
		  enum ib_wc_status status, u8 opcode, u32 byte_len)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = wr_id;
	cqe->qp_num = qpn;
	cqe->status = status;
	cqe->opcode = opcode;
	cqe->byte_len = byte_len;
}

/*
 * The network header of a UD receive (@net, an rdma_network_type), as
 * RoCE NICs report it. The SL of a RoCEv2 packet is not on the wire;
 * ConnectX devices report the packet's type in the completion's SL
 * instead: bit 3 set for a frame with a UDP header (RoCEv2), bits 2:0 the
 * L3 header (1 IPv6, 2 IPv4). UCX reads it to find where the destination
 * GID sits in the 40-byte GRH area, so a UD receive carries the same. A
 * kernel CQ also gets the type itself (ib_wc.network_hdr_type).
 */
void swr_cqe_set_ud_net(struct swroce_cqe *cqe, int net, bool kernel_cq,
			u16 vlan)
{
	cqe->flags |= SWROCE_CQE_GRH;
	cqe->sl = SWR_WC_SL_ROCE_UDP |
		  (net == RDMA_NETWORK_IPV4 ? SWR_WC_SL_L3_IPV4 :
					      SWR_WC_SL_L3_IPV6);
	if (!kernel_cq)
		return;
	cqe->ex_data2 = net & SWR_KCQE_NET_MASK;
	if (vlan < VLAN_N_VID)
		cqe->ex_data2 |= SWR_KCQE_VLAN_VALID |
				   (u32)vlan << SWR_KCQE_VLAN_SHIFT;
}

static u8 swr_send_wc_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case SWROCE_WR_RDMA_WRITE:
	case SWROCE_WR_RDMA_WRITE_WITH_IMM:
		return SWR_WC_RDMA_WRITE;
	case SWROCE_WR_RDMA_READ:
		return SWR_WC_RDMA_READ;
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
		return SWR_WC_COMP_SWAP;
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
		return SWR_WC_FETCH_ADD;
	case SWROCE_WR_LOCAL_INV:
		return SWR_WC_LOCAL_INV;
	case SWROCE_WR_BIND_MW:
		return SWR_WC_BIND_MW;
	case SWROCE_WR_ATOMIC_WRITE:
		return SWR_WC_ATOMIC_WRITE;
	case SWR_WR_REG_MR:
		return SWR_WC_REG_MR;
	default:
		return SWR_WC_SEND;
	}
}

/* Count a completion of @qp with @status in its error class. */
static void swr_count_status(struct swr_qp *qp, enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
	case IB_WC_WR_FLUSH_ERR:
		break;
	case IB_WC_LOC_LEN_ERR:
	case IB_WC_LOC_QP_OP_ERR:
	case IB_WC_LOC_PROT_ERR:
	case IB_WC_LOC_ACCESS_ERR:
	case IB_WC_MW_BIND_ERR:
		swr_qp_count(qp, SWR_CNT_ERR_LOCAL);
		break;
	case IB_WC_RETRY_EXC_ERR:
	case IB_WC_RNR_RETRY_EXC_ERR:
		swr_qp_count(qp, SWR_CNT_RETRY_EXC);
		break;
	default:
		swr_qp_count(qp, SWR_CNT_ERR_REMOTE);
		break;
	}
}

/* Write a CQE of @qp into @cq, and count it (swr_cq_post()). */
static void swr_qp_cq_post(struct swr_qp *qp, struct swr_cq *cq,
			   const struct swroce_cqe *cqe, bool solicited)
{
	if (!swr_cq_post(cq, cqe, solicited))
		swr_qp_count(qp, SWR_CNT_COMPLETIONS);
}

/*
 * Complete the requester's WQE @w with @status. A failed WQE always
 * completes and moves the QP to the error state.
 */
void swr_req_complete(struct swr_qp *qp, const struct swr_send_wqe *w,
		      enum ib_wc_status status, u32 byte_len)
{
	struct swroce_cqe cqe;

	swr_count_status(qp, status);
	if (w->origin != SWR_WQE_USER) {
		/* The device's own (rendezvous): not the send CQ's. */
		swr_tm_req_done(qp, w, status, byte_len);
	} else if (status != IB_WC_SUCCESS || qp->sig_all ||
		   (w->hdr.flags & SWROCE_WQE_SIGNALED)) {
		swr_cqe_init(&cqe, w->hdr.wr_id, qp->ibqp.qp_num, status,
			     swr_send_wc_opcode(w->hdr.opcode), byte_len);
		swr_qp_cq_post(qp, qp->scq, &cqe, false);
	}
	if (status != IB_WC_SUCCESS)
		swr_qp_set_error(qp, false);
}

/*
 * The CQ of @qp's receive completions: its own, or for an XRC_TGT QP that
 * of the SRQ the request names (resp_lock held); NULL while it names none.
 */
static struct swr_cq *swr_recv_cq(struct swr_qp *qp)
{
	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return qp->rcq;
	return qp->resp.xsrq ? to_swr_cq(qp->resp.xsrq->ibsrq.ext.cq) : NULL;
}

/* Complete a consumed receive WQE of @qp (the responder). */
void swr_recv_complete(struct swr_qp *qp, struct swroce_cqe *cqe,
		       bool solicited)
{
	struct swr_cq *cq = swr_recv_cq(qp);

	swr_count_status(qp, cqe->status);
	if (cq)
		swr_qp_cq_post(qp, cq, cqe, solicited);
}

/* Receive WQEs ------------------------------------------------------------- */

static void *swr_wq_slot(struct swr_wq *wq, u32 idx)
{
	return (u8 *)wq->ring + sizeof(*wq->ring) +
	       ((size_t)(idx & (wq->num_wqe - 1)) << wq->wqe_shift);
}

/* WQEs posted and not consumed, or -1 when the ring's prod is bad. */
static s64 swr_wq_posted(struct swr_wq *wq)
{
	/* Pairs with the producer's release of prod: the WQEs are there. */
	u32 prod = smp_load_acquire(&wq->ring->prod.idx);

	if (prod - wq->cons > wq->num_wqe)
		return -1;
	return prod - wq->cons;
}

int swr_wq_pop(struct swr_dev *sdev, struct swr_wq *wq,
	       struct swr_recv_wqe *out)
{
	struct swroce_recv_wqe hdr;
	s64 posted = swr_wq_posted(wq);
	const u8 *slot;

	if (posted < 0) {
		swr_count(sdev, SWR_CNT_RING_INDEX_BAD);
		return -EINVAL;
	}
	if (!posted)
		return -ENOENT;

	slot = swr_wq_slot(wq, wq->cons);
	memcpy(&hdr, slot, sizeof(hdr));
	if (hdr.num_sge > wq->max_sge) {
		swr_count(sdev, SWR_CNT_WQE_BAD);
		return -EINVAL;
	}
	out->wr_id = hdr.wr_id;
	out->num_sge = hdr.num_sge;
	memcpy(out->sge, slot + sizeof(hdr),
	       hdr.num_sge * sizeof(struct swroce_sge));

	wq->cons++;
	/* The copy is done before the producer may reuse the slot. */
	smp_store_release(&wq->ring->cons.idx, wq->cons);
	return 0;
}

/* Raise IB_EVENT_SRQ_LIMIT_REACHED (no locks held). */
static void swr_srq_limit_event(struct swr_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * Take the next receive WQE of @qp (the responder, resp_lock held) for a
 * request of @opcode: from its SRQ, or its own RQ; at a tag matching SRQ,
 * where the message's head (@tm, NULL for a message without a TMH) sends
 * it (swr_tm_recv()). 0, -ENOENT (none posted) or -EINVAL (bad ring).
 */
int swr_recv_pop(struct swr_qp *qp, struct swr_recv_wqe *out, u8 opcode,
		 const struct swr_tm_msg *tm)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_srq *srq = qp->srq;
	bool limit = false;
	s64 left;
	int err;

	/* XRC_TGT: the SRQ the request names, never a queue of its own. */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		srq = qp->resp.xsrq;
		if (!srq)
			return -EINVAL;
	}
	out->tm = SWR_TM_PLAIN;
	out->tm_skip = 0;
	if (!srq) {
		if (!qp->rq.ring)
			return -ENOENT;
		err = swr_wq_pop(sdev, &qp->rq, out);
		if (!err)
			trace_swr_recv_wqe(qp, false, qp->rq.cons - 1, out,
					   opcode);
		return err;
	}

	spin_lock_bh(&srq->lock);
	if (srq->tm)
		err = swr_tm_recv(sdev, srq, out,
				  opcode != SWROCE_WR_RDMA_WRITE_WITH_IMM, tm,
				  qp->ibqp.qp_num);
	else
		err = swr_wq_pop(sdev, &srq->wq, out);
	if (!err)
		trace_swr_recv_wqe(qp, true, srq->wq.cons - 1, out, opcode);
	if (!err && srq->limit) {
		left = swr_wq_posted(&srq->wq);
		if (left >= 0 && left < srq->limit) {
			/* The limit fires once; modify_srq re-arms it. */
			WRITE_ONCE(srq->limit, 0);
			limit = true;
		}
	}
	spin_unlock_bh(&srq->lock);
	if (limit)
		swr_srq_limit_event(srq);
	return err;
}

/* Memory ----------------------------------------------------------------- */

void swr_segs_put(struct swr_seg *seg, u32 n)
{
	while (n--)
		swr_mr_put(seg[n].mr);
}

/*
 * Look up the registered memory behind @num SGEs, for @need bytes (the
 * SGEs may hold more; those beyond @need are not looked at). Zero-length
 * SGEs are skipped. Returns the number of segments in *@n, and 0 or the
 * swr_mr_lookup() error; on error no reference is left.
 */
int swr_segs_get(struct swr_qp *qp, const struct swroce_sge *sge,
		 u32 num, u64 need, int access, struct swr_seg *seg, u32 *n)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_mr *mr;
	u64 iova, len;
	u32 i;

	*n = 0;
	for (i = 0; i < num && need; i++) {
		len = min_t(u64, sge[i].length, need);
		if (!len)
			continue;
		iova = sge[i].addr;
		mr = swr_mr_lookup(sdev, SWR_LKEY, sge[i].lkey,
				   swr_resp_pd(qp), qp->ibqp.qp_num, access,
				   &iova, len);
		if (IS_ERR(mr)) {
			swr_segs_put(seg, *n);
			*n = 0;
			return PTR_ERR(mr);
		}
		seg[*n].mr = mr;
		seg[*n].iova = iova;
		seg[*n].len = len;
		(*n)++;
		need -= len;
	}
	return 0;
}

/*
 * Fault the ODP memory of @n segments in (may sleep), for writing with
 * @write, before a copy that cannot sleep. 0 or -EFAULT.
 */
int swr_segs_fault(const struct swr_seg *seg, u32 n, bool write)
{
	int err = 0;
	u32 i;

	for (i = 0; i < n && !err; i++)
		err = swr_mr_fault(seg[i].mr, seg[i].iova, seg[i].len, write);
	return err;
}

u64 swr_sge_total(const struct swroce_sge *sge, u32 num)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < num; i++)
		total += sge[i].length;
	return total;
}

struct swr_copy_to {
	struct swr_mr *mr;
	u64 iova;
};

static int swr_copy_chunk_to(void *kaddr, size_t len, void *ctx)
{
	struct swr_copy_to *to = ctx;
	int err;

	err = swr_mr_copy(to->mr, to->iova, kaddr, len, SWR_COPY_TO_MR);
	to->iova += len;
	return err;
}

/* Where byte @off of the segments @seg (@n of them) is: *@i, *@o. */
static void swr_segs_seek(const struct swr_seg *seg, u32 n, u64 off, u32 *i,
			  u64 *o)
{
	for (*i = 0; *i < n && off >= seg[*i].len; (*i)++)
		off -= seg[*i].len;
	*o = off;
}

/* Tries of a chunk whose ODP pages an invalidation took meanwhile. */
#define SWR_FAULT_TRIES		4
/* How long a local request waits for an ODP fault in a work item. */
#define SWR_FAULT_WAIT_NS	(50 * NSEC_PER_USEC)

/*
 * A chunk of swr_copy_at() met an ODP page that is not mapped: fault the
 * chunk's destination (for writing) and source ranges in. With @can_sleep
 * as swr_mr_fault() does; else in a work item (swr_mr_fault_async()).
 * Return: 0 (copy again), -EAGAIN (later) or -EFAULT (a fault failed).
 */
static int swr_copy_fault(const struct swr_seg *d, u64 doff,
			  const struct swr_seg *s, u64 soff, u64 n,
			  bool can_sleep)
{
	int err = 0;

	if (can_sleep) {
		err = swr_mr_fault(d->mr, d->iova + doff, n, true);
		if (!err && s)
			err = swr_mr_fault(s->mr, s->iova + soff, n, false);
		return err;
	}
	if (d->mr->kind == SWR_MR_ODP)
		err = swr_mr_fault_async(d->mr, d->iova + doff, n, true);
	if (s && s->mr->kind == SWR_MR_ODP && err != -EFAULT)
		err = swr_mr_fault_async(s->mr, s->iova + soff, n, false);
	return err;
}

/* One chunk of swr_copy_at(): @n bytes at @doff of @d, @soff of @s. */
static int swr_copy_chunk_at(const struct swr_seg *d, u64 doff,
			     const struct swr_seg *s, u64 soff,
			     const u8 *kbuf, u64 n)
{
	struct swr_copy_to to;

	if (!s)
		return swr_mr_copy(d->mr, d->iova + doff, (void *)kbuf, n,
				   SWR_COPY_TO_MR);
	to.mr = d->mr;
	to.iova = d->iova + doff;
	return swr_mr_walk(s->mr, s->iova + soff, n, swr_copy_chunk_to, &to);
}

/*
 * Copy @len bytes into the segments @dst from the segments @src, or from
 * the kernel buffer @kbuf when @src is NULL, starting at byte @doff of
 * the destination and @soff of the source. The segments hold at least
 * that many bytes more and are ranges their MRs were checked for. The
 * copy goes in chunks of at most SWR_COPY_CHUNK bytes; with @resched (no
 * spinlock held) the CPU is offered to others between them, and ODP pages
 * that are not mapped are faulted in, by the MR's owner itself, else by a
 * work item while the copy fails with -EAGAIN (swr_mr_fault()); without
 * @resched always the latter (swr_copy_fault()).
 */
static int swr_copy_at(struct swr_seg *dst, u32 nd, const struct swr_seg *src,
		       u32 ns, const u8 *kbuf, u64 doff, u64 soff, u64 len,
		       bool resched)
{
	u32 di, si = 0;
	int err, tries = 0;
	u64 n;

	swr_segs_seek(dst, nd, doff, &di, &doff);
	if (src)
		swr_segs_seek(src, ns, soff, &si, &soff);
	else
		kbuf += soff;
	while (len) {
		if (di == nd || (src && si == ns))
			return -ERANGE;
		if (resched)
			cond_resched();
		n = min3(len, dst[di].len - doff, (u64)SWR_COPY_CHUNK);
		if (src)
			n = min(n, src[si].len - soff);
		err = swr_copy_chunk_at(&dst[di], doff, src ? &src[si] : NULL,
					soff, kbuf, n);
		if (err == -EAGAIN) {
			err = swr_copy_fault(&dst[di], doff,
					     src ? &src[si] : NULL, soff, n,
					     resched);
			if (!err && tries++ < SWR_FAULT_TRIES)
				continue;	/* the same chunk again */
			return err ? err : -EFAULT;
		}
		if (err)
			return err;
		tries = 0;
		if (!src)
			kbuf += n;
		len -= n;
		doff += n;
		if (doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (src) {
			soff += n;
			if (soff == src[si].len) {
				si++;
				soff = 0;
			}
		}
	}
	return 0;
}

/* swr_copy_at() from the segments' first byte. */
int swr_copy(struct swr_seg *dst, u32 nd, const struct swr_seg *src,
	     u32 ns, const u8 *kbuf, u64 len, bool resched)
{
	return swr_copy_at(dst, nd, src, ns, kbuf, 0, 0, len, resched);
}

/* The SQ: fetching and flushing -------------------------------------------- */

static void *swr_sq_slot(struct swr_sq *sq, u32 idx)
{
	return (u8 *)sq->ring + sizeof(*sq->ring) +
	       ((size_t)(idx & (sq->num_wqe - 1)) << sq->wqe_shift);
}

/* Is @opcode a valid send opcode for @qp? */
static bool swr_opcode_ok(struct swr_qp *qp, u8 opcode)
{
	switch (opcode) {
	case SWROCE_WR_SEND:
		return true;
	case SWROCE_WR_SEND_WITH_IMM:
		/* A raw frame has nowhere to carry immediate data. */
		return qp->ibqp.qp_type != IB_QPT_RAW_PACKET;
	case SWROCE_WR_RDMA_WRITE:
	case SWROCE_WR_RDMA_WRITE_WITH_IMM:
	case SWROCE_WR_LOCAL_INV:
		return qp->ibqp.qp_type == IB_QPT_RC ||
		       qp->ibqp.qp_type == IB_QPT_UC ||
		       qp->ibqp.qp_type == IB_QPT_XRC_INI;
	case SWROCE_WR_BIND_MW:
		return qp->ibqp.qp_type == IB_QPT_RC ||
		       qp->ibqp.qp_type == IB_QPT_UC;
	case SWROCE_WR_RDMA_READ:
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
	case SWROCE_WR_ATOMIC_WRITE:
	case SWROCE_WR_SEND_WITH_INV:
		return qp->ibqp.qp_type == IB_QPT_RC ||
		       qp->ibqp.qp_type == IB_QPT_XRC_INI;
	case SWR_WR_REG_MR:
		return !qp->is_user && (qp->ibqp.qp_type == IB_QPT_RC ||
					qp->ibqp.qp_type == IB_QPT_UC);
	default:
		return false;
	}
}

/* Validate a WQE header against the QP; the slot is @stride bytes. */
static bool swr_wqe_hdr_ok(struct swr_qp *qp, const struct swroce_send_wqe *h)
{
	struct swr_sq *sq = &qp->sq;
	size_t room = (1U << sq->wqe_shift) - sizeof(*h);

	if (!swr_opcode_ok(qp, h->opcode))
		return false;
	if (h->flags & SWROCE_WQE_INLINE) {
		if (!swr_opcode_has_data(h->opcode) ||
		    h->inline_len > sq->max_inline ||
		    h->inline_len > SWR_MAX_INLINE || h->inline_len > room)
			return false;
	} else {
		if (h->num_sge > sq->max_sge || h->num_sge > SWR_MAX_SGE ||
		    h->num_sge * sizeof(struct swroce_sge) > room)
			return false;
	}
	return true;
}

/* req.wqe, just fetched, starts: its retries are the QP's. */
static void swr_req_start(struct swr_qp *qp, const struct swr_req_view *v)
{
	qp->req.wqe_valid = true;
	qp->req.wait_until = 0;
	qp->req.rnr_left = v->rnr_retry;
	qp->req.retry_left = v->retry_cnt;
}

/*
 * Copy the next WQE out of the SQ into req.wqe (sq_lock held).
 * 0: req.wqe is valid; -ENOENT: the ring is empty; -EINVAL: the ring or
 * the WQE was bad, it has been completed and the QP is in error.
 */
static int swr_sq_fetch(struct swr_qp *qp, const struct swr_req_view *v)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_sq *sq = &qp->sq;
	struct swr_send_wqe *w = &qp->req.wqe;
	/* Pairs with the producer's release of prod: the WQEs are there. */
	u32 prod = smp_load_acquire(&sq->ring->prod.idx);
	const u8 *slot;

	if (prod == sq->cons)
		return -ENOENT;
	if (prod - sq->cons > sq->num_wqe) {
		swr_count(sdev, SWR_CNT_RING_INDEX_BAD);
		ibdev_dbg(&sdev->ibdev, "qp %u: sq prod %u cons %u\n",
			  qp->ibqp.qp_num, prod, sq->cons);
		swr_qp_set_error(qp, true);
		return -EINVAL;
	}

	slot = swr_sq_slot(sq, sq->cons);
	w->origin = SWR_WQE_USER;
	memcpy(&w->hdr, slot, sizeof(w->hdr));
	if (!swr_wqe_hdr_ok(qp, &w->hdr)) {
		sq->cons++;
		/* The header was copied: the slot is the producer's again. */
		smp_store_release(&sq->ring->cons.idx, sq->cons);
		swr_count(sdev, SWR_CNT_WQE_BAD);
		ibdev_dbg(&sdev->ibdev, "qp %u: bad wqe opcode %u flags %#x num_sge %u inline %u\n",
			  qp->ibqp.qp_num, w->hdr.opcode, w->hdr.flags,
			  w->hdr.num_sge, w->hdr.inline_len);
		swr_req_complete(qp, w, IB_WC_LOC_QP_OP_ERR, 0);
		return -EINVAL;
	}
	if (w->hdr.flags & SWROCE_WQE_INLINE) {
		w->hdr.num_sge = 0;
		memcpy(w->inline_data, slot + sizeof(w->hdr),
		       w->hdr.inline_len);
	} else {
		w->hdr.inline_len = 0;
		memcpy(w->sge, slot + sizeof(w->hdr),
		       w->hdr.num_sge * sizeof(struct swroce_sge));
	}
	sq->cons++;
	/* The WQE was copied: the slot is the producer's again. */
	smp_store_release(&sq->ring->cons.idx, sq->cons);

	swr_req_start(qp, v);
	swr_qp_count(qp, SWR_CNT_WQE_CONSUMED);
	trace_swr_send_wqe(qp, sq->cons - 1, w);
	return 0;
}

/*
 * The next WQE into req.wqe (sq_lock held): a rendezvous step of a tag
 * matching SRQ (swr_tm.c), which needs no SQ and comes first, else the
 * SQ's next. As swr_sq_fetch(); -ENOENT also for a QP without an SQ.
 */
static int swr_req_fetch(struct swr_qp *qp, const struct swr_req_view *v)
{
	if (qp->srq && qp->srq->tm && swr_tm_fetch(qp, &qp->req.wqe)) {
		swr_req_start(qp, v);
		return 0;
	}
	/* Not a sender: an XRC_TGT QP, or one created without an SQ. */
	if (!qp->sq.ring)
		return -ENOENT;
	return swr_sq_fetch(qp, v);
}

/* Flush the held WQE, the SQ and the QP's own RQ (sq_lock held). */
static int swr_flush(struct swr_qp *qp)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_sq *sq = &qp->sq;
	struct swroce_send_wqe hdr;
	struct swr_recv_wqe *rwqe = &qp->req.rwqe;
	struct swroce_cqe cqe;
	int n = 0, err;
	u32 prod;

	WRITE_ONCE(qp->flush_pending, false);
	/* The wire's outstanding WQEs come first: they are older. */
	n += swr_wire_flush(qp);

	if (qp->req.wqe_valid) {
		qp->req.wqe_valid = false;
		qp->req.wait_until = 0;
		swr_cqe_init(&cqe, qp->req.wqe.hdr.wr_id, qp->ibqp.qp_num,
			     IB_WC_WR_FLUSH_ERR,
			     swr_send_wc_opcode(qp->req.wqe.hdr.opcode), 0);
		if (qp->req.wqe.origin != SWR_WQE_USER)
			swr_tm_req_done(qp, &qp->req.wqe, IB_WC_WR_FLUSH_ERR,
					0);
		else
			swr_qp_cq_post(qp, qp->scq, &cqe, false);
		n++;
	}
	n += swr_tm_flush(qp);

	/* Pairs with the producer's release of prod. */
	prod = sq->ring ? smp_load_acquire(&sq->ring->prod.idx) : sq->cons;
	if (prod - sq->cons > sq->num_wqe) {
		/*
		 * Nothing in a ring with a bad prod can be trusted to be a
		 * WQE: skip to it, so that the poller does not see work here
		 * forever.
		 */
		swr_count(sdev, SWR_CNT_RING_INDEX_BAD);
		sq->cons = prod;
		/* Orders nothing: only publishes the skip. */
		smp_store_release(&sq->ring->cons.idx, sq->cons);
	} else {
		while (sq->cons != prod) {
			memcpy(&hdr, swr_sq_slot(sq, sq->cons), sizeof(hdr));
			swr_cqe_init(&cqe, hdr.wr_id, qp->ibqp.qp_num,
				     IB_WC_WR_FLUSH_ERR,
				     swr_send_wc_opcode(hdr.opcode), 0);
			swr_qp_cq_post(qp, qp->scq, &cqe, false);
			sq->cons++;
			n++;
		}
		/* An XRC_TGT QP has no ring to tell. */
		if (sq->ring)
			/* The headers were copied: the slots are free. */
			smp_store_release(&sq->ring->cons.idx, sq->cons);
	}

	/*
	 * A receive WQE a message in progress took (wire, multi-packet SEND
	 * or WRITE with immediate) left its ring: flush it from here.
	 */
	spin_lock_bh(&qp->resp_lock);
	if (qp->resp.rwqe_valid) {
		qp->resp.rwqe_valid = false;
		swr_cqe_init(&cqe, qp->resp.rwqe.wr_id, qp->ibqp.qp_num,
			     IB_WC_WR_FLUSH_ERR, SWR_WC_RECV, 0);
		/* XRC: to the CQ of its SRQ, if that still exists. */
		if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
			swr_xrc_resp_begin(qp, qp->resp.rwqe_srqn);
		if (swr_recv_cq(qp)) {
			swr_qp_cq_post(qp, swr_recv_cq(qp), &cqe, false);
			n++;
		}
		swr_xrc_resp_end(qp);
	}
	spin_unlock_bh(&qp->resp_lock);

	/* An SRQ's WQEs belong to every QP on it: they stay. */
	if (!qp->srq && qp->rq.ring) {
		spin_lock_bh(&qp->resp_lock);
		while (!(err = swr_wq_pop(sdev, &qp->rq, rwqe))) {
			swr_cqe_init(&cqe, rwqe->wr_id, qp->ibqp.qp_num,
				     IB_WC_WR_FLUSH_ERR, SWR_WC_RECV, 0);
			swr_qp_cq_post(qp, qp->rcq, &cqe, false);
			n++;
		}
		/* A bad index or WQE: drop the rest, as for the SQ above. */
		if (err == -EINVAL) {
			qp->rq.cons = READ_ONCE(qp->rq.ring->prod.idx);
			/* Orders nothing: only publishes the skip. */
			smp_store_release(&qp->rq.ring->cons.idx, qp->rq.cons);
		}
		spin_unlock_bh(&qp->resp_lock);
	}

	swr_qp_count_n(qp, SWR_CNT_FLUSHED, n);
	return n;
}

/* UD ------------------------------------------------------------------------ */

/* The AH a UD WQE names, as far as the engine needs it. */
struct swr_ud_dest {
	union ib_gid sgid;
	union ib_gid dgid;
	u32 flow_label;
	int oif;
	u16 vlan;	/* the source GID's VLAN id, or 0xffff */
	u8 traffic_class;
	u8 hop_limit;
	u8 sl;
};

static int swr_ud_lookup_ah(struct swr_qp *qp, u32 ahn,
			    struct swr_ud_dest *d)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	const struct ib_global_route *grh;
	struct swr_ah *ah;
	int err = 0;

	xa_lock(&sdev->ah_xa);
	ah = xa_load(&sdev->ah_xa, ahn);
	if (!ah || ah->ibah.pd != qp->ibqp.pd) {
		err = -EINVAL;
	} else {
		grh = rdma_ah_read_grh(&ah->attr);
		d->dgid = grh->dgid;
		if (grh->sgid_attr) {
			d->sgid = grh->sgid_attr->gid;
			d->oif = swr_gid_attr_oif(grh->sgid_attr, &d->vlan);
		} else {
			memset(&d->sgid, 0, sizeof(d->sgid));
			d->oif = 0;
			d->vlan = 0xffff;
		}
		d->flow_label = grh->flow_label;
		d->traffic_class = grh->traffic_class;
		d->hop_limit = grh->hop_limit;
		d->sl = rdma_ah_get_sl(&ah->attr);
	}
	xa_unlock(&sdev->ah_xa);
	return err;
}

/*
 * The 40 bytes a UD receive gets in front of the data: an IPv6 header, or
 * for IPv4 GIDs 20 zero bytes and an IPv4 header (as RoCEv2 devices and
 * rxe place it). Returns the rdma_network_type.
 */
static int swr_ud_build_grh(u8 *grh, const struct swr_ud_dest *d, u32 len)
{
	struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;
	struct iphdr *ip4 = (struct iphdr *)(grh + 20);

	memset(grh, 0, SWR_GRH_BYTES);
	if (ipv6_addr_v4mapped((const struct in6_addr *)d->sgid.raw)) {
		ip4->version = 4;
		ip4->ihl = 5;
		ip4->tos = d->traffic_class;
		ip4->tot_len = htons(sizeof(*ip4) + SWR_UD_OVERHEAD + len);
		ip4->frag_off = htons(IP_DF);
		ip4->ttl = d->hop_limit;
		ip4->protocol = IPPROTO_UDP;
		memcpy(&ip4->saddr, d->sgid.raw + 12, 4);
		memcpy(&ip4->daddr, d->dgid.raw + 12, 4);
		ip4->check = ip_fast_csum((u8 *)ip4, ip4->ihl);
		return RDMA_NETWORK_IPV4;
	}
	ip6->version = 6;
	ip6->priority = d->traffic_class >> 4;
	ip6->flow_lbl[0] = (d->traffic_class & 0xf) << 4 |
			   ((d->flow_label >> 16) & 0xf);
	ip6->flow_lbl[1] = (d->flow_label >> 8) & 0xff;
	ip6->flow_lbl[2] = d->flow_label & 0xff;
	ip6->payload_len = htons(SWR_UD_OVERHEAD + len);
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = d->hop_limit;
	memcpy(&ip6->saddr, d->sgid.raw, sizeof(ip6->saddr));
	memcpy(&ip6->daddr, d->dgid.raw, sizeof(ip6->daddr));
	return RDMA_NETWORK_IPV6;
}

/* One kernel-buffer segment list: the GRH. */
static int swr_put_kbuf(struct swr_seg *dst, u32 nd, const u8 *buf, u64 len,
			u32 *di, u64 *doff)
{
	u64 n;
	int err;

	while (len) {
		if (*di == nd)
			return -ERANGE;
		n = min(len, dst[*di].len - *doff);
		err = swr_mr_copy(dst[*di].mr, dst[*di].iova + *doff,
				  (void *)buf, n, SWR_COPY_TO_MR);
		if (err == -EAGAIN)
			swr_mr_fault_async(dst[*di].mr, dst[*di].iova + *doff,
					   dst[*di].len - *doff, true);
		if (err)
			return err;
		buf += n;
		len -= n;
		*doff += n;
		if (*doff == dst[*di].len) {
			(*di)++;
			*doff = 0;
		}
	}
	return 0;
}

/*
 * Deliver a UD message to @dst (referenced). The message is dropped
 * silently, as on a network, when the destination cannot take it.
 */
static void swr_ud_deliver(struct swr_qp *qp, struct swr_qp *dst,
			   const struct swr_send_wqe *w,
			   const struct swr_ud_dest *d, u32 sender_qkey,
			   u64 len, u32 nl)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_recv_wqe *rwqe = &qp->req.rwqe;
	struct swr_seg *rseg = qp->req.rseg;
	struct swr_resp_view rv;
	struct swroce_cqe cqe;
	u8 grh[SWR_GRH_BYTES];
	u32 qkey, nr, di = 0;
	u64 doff = 0;
	int net, err;

	if (dst->ibqp.qp_type != IB_QPT_UD && dst->ibqp.qp_type != IB_QPT_GSI)
		return;
	qkey = w->hdr.ud.remote_qkey;
	if (qkey & SWR_QKEY_PRIVILEGED)
		qkey = sender_qkey;

	spin_lock_bh(&dst->resp_lock);
	swr_resp_view(dst, &rv);
	if (!swr_resp_state_ok(rv.state) || qkey != rv.qkey) {
		ibdev_dbg(&sdev->ibdev, "ud: qp %u drops (state %d qkey %#x)\n",
			  dst->ibqp.qp_num, rv.state, qkey);
		goto out_unlock;
	}
	err = swr_recv_pop(dst, rwqe, w->hdr.opcode, NULL);
	if (err) {
		if (err == -EINVAL)
			swr_qp_set_error(dst, true);
		goto out_unlock;
	}
	dst->resp.psn = (dst->resp.psn + 1) & SWR_PSN_MASK;

	swr_cqe_init(&cqe, rwqe->wr_id, dst->ibqp.qp_num, IB_WC_SUCCESS,
		     SWR_WC_RECV, len + SWR_GRH_BYTES);
	cqe.src_qp = qp->ibqp.qp_num;
	if (w->hdr.opcode == SWROCE_WR_SEND_WITH_IMM) {
		cqe.flags |= SWROCE_CQE_WITH_IMM;
		cqe.ex_data = w->hdr.ex;
	}

	if (swr_sge_total(rwqe->sge, rwqe->num_sge) < len + SWR_GRH_BYTES) {
		cqe.status = IB_WC_LOC_LEN_ERR;
		goto out_complete;
	}
	err = swr_segs_get(dst, rwqe->sge, rwqe->num_sge, len + SWR_GRH_BYTES,
			   IB_ACCESS_LOCAL_WRITE, rseg, &nr);
	if (err) {
		cqe.status = IB_WC_LOC_PROT_ERR;
		goto out_complete;
	}
	net = swr_ud_build_grh(grh, d, len);
	swr_cqe_set_ud_net(&cqe, net, !dst->rcq->ibcq.uobject, d->vlan);
	err = swr_put_kbuf(rseg, nr, grh, SWR_GRH_BYTES, &di, &doff);
	if (!err && len) {
		/* The rest of the receive segments, after the GRH. */
		rseg[di].iova += doff;
		rseg[di].len -= doff;
		if (w->hdr.flags & SWROCE_WQE_INLINE)
			err = swr_copy(rseg + di, nr - di, NULL, 0,
				       w->inline_data, len, false);
		else
			err = swr_copy(rseg + di, nr - di, qp->req.lseg, nl,
				       NULL, len, false);
	}
	swr_segs_put(rseg, nr);
	if (err)
		cqe.status = IB_WC_LOC_PROT_ERR;

out_complete:
	swr_recv_complete(dst, &cqe, w->hdr.flags & SWROCE_WQE_SOLICITED);
out_unlock:
	spin_unlock_bh(&dst->resp_lock);
}

static void swr_exec_ud_wire(struct swr_qp *qp, const struct swr_send_wqe *w,
			     const struct swr_ud_dest *d, u32 sender_qkey,
			     u64 len, u32 nl)
{
	struct swr_wire_dest wd = {
		.sgid = d->sgid,
		.dgid = d->dgid,
		.flow_label = d->flow_label,
		.oif = d->oif,
		.traffic_class = d->traffic_class,
		.hop_limit = d->hop_limit,
		.sl = d->sl,
	};
	u32 qkey = w->hdr.ud.remote_qkey;

	if (qkey & SWR_QKEY_PRIVILEGED)
		qkey = sender_qkey;
	swr_net_send_ud(qp, w, &wd, w->hdr.ud.remote_qpn, qkey, (u32)len,
			qp->req.lseg, nl);
}

/*
 * A send to QPN 0xffffff: a copy to each QP of this device attached to
 * the group @d->dgid, the sender's own QP included when it is attached
 * (multicast loopback, what rxe does and mlx5 unless the QP was created
 * with IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK, which swroce does not offer).
 * The IP stack's loopback copy of the datagram is ignored on receive, so
 * each member gets one copy.
 */
static void swr_ud_mcast_local(struct swr_qp *qp, const struct swr_send_wqe *w,
			       const struct swr_ud_dest *d, u32 sender_qkey,
			       u64 len, u32 nl)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	u32 qpn[SWR_MAX_MCAST_QP_ATTACH], i, n;
	struct swr_qp *dst;

	n = swr_mcast_qpns(sdev, &d->dgid, qpn);
	for (i = 0; i < n; i++) {
		dst = swr_qp_get(sdev, qpn[i]);
		if (!dst)
			continue;
		swr_ud_deliver(qp, dst, w, d, sender_qkey, len, nl);
		swr_qp_put(dst);
	}
}

static enum swr_verdict swr_exec_ud(struct swr_qp *qp,
				    const struct swr_req_view *v)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_send_wqe *w = &qp->req.wqe;
	struct swr_ud_dest d;
	struct swr_qp *dst;
	u64 len;
	u32 nl = 0;
	int err;

	if (swr_ud_lookup_ah(qp, w->hdr.ud.ahn, &d)) {
		ibdev_dbg(&sdev->ibdev, "qp %u: bad ahn %u\n",
			  qp->ibqp.qp_num, w->hdr.ud.ahn);
		swr_req_complete(qp, w, IB_WC_LOC_QP_OP_ERR, 0);
		return SWR_DONE;
	}

	if (w->hdr.flags & SWROCE_WQE_INLINE)
		len = w->hdr.inline_len;
	else
		len = swr_sge_total(w->sge, w->hdr.num_sge);
	if (len > swr_ud_max_payload(sdev)) {
		swr_req_complete(qp, w, IB_WC_LOC_LEN_ERR, 0);
		return SWR_DONE;
	}
	if (!(w->hdr.flags & SWROCE_WQE_INLINE)) {
		err = swr_segs_get(qp, w->sge, w->hdr.num_sge, len, 0,
				   qp->req.lseg, &nl);
		/* ODP: in now; the copies below hold spinlocks. */
		if (!err) {
			err = swr_segs_fault(qp->req.lseg, nl, false);
			if (err)
				swr_segs_put(qp->req.lseg, nl);
			if (err == -EAGAIN)
				return swr_req_wait(qp, SWR_FAULT_WAIT_NS);
		}
		if (err) {
			swr_req_complete(qp, w, IB_WC_LOC_PROT_ERR, 0);
			return SWR_DONE;
		}
	}

	qp->req.psn = (qp->req.psn + 1) & SWR_PSN_MASK;
	if (w->hdr.ud.remote_qpn == IB_MULTICAST_QPN) {
		swr_ud_mcast_local(qp, w, &d, v->qkey, len, nl);
		/* And to the group's members on other hosts. */
		swr_exec_ud_wire(qp, w, &d, v->qkey, len, nl);
	} else if (swr_req_gid_is_local(qp, &d.dgid)) {
		dst = swr_qp_get(sdev, w->hdr.ud.remote_qpn);
		if (dst) {
			swr_ud_deliver(qp, dst, w, &d, v->qkey, len, nl);
			swr_qp_put(dst);
		}
	} else {
		/* A lost datagram when it cannot be sent (swr_net.c). */
		swr_exec_ud_wire(qp, w, &d, v->qkey, len, nl);
	}
	swr_segs_put(qp->req.lseg, nl);
	swr_req_complete(qp, w, IB_WC_SUCCESS, len);
	return SWR_DONE;
}

/* RC and UC ------------------------------------------------------------------ */

static int swr_op_access(u8 opcode)
{
	switch (opcode) {
	case SWROCE_WR_RDMA_READ:
		return IB_ACCESS_REMOTE_READ;
	case SWROCE_WR_RDMA_WRITE:
	case SWROCE_WR_RDMA_WRITE_WITH_IMM:
	case SWROCE_WR_ATOMIC_WRITE:
		return IB_ACCESS_REMOTE_WRITE;
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
		return IB_ACCESS_REMOTE_ATOMIC;
	default:
		return 0;
	}
}

static bool swr_op_needs_recv(u8 opcode)
{
	return opcode == SWROCE_WR_SEND || opcode == SWROCE_WR_SEND_WITH_IMM ||
	       opcode == SWROCE_WR_SEND_WITH_INV ||
	       opcode == SWROCE_WR_RDMA_WRITE_WITH_IMM;
}

/* An RC responder NAKs a request and goes to error (class C). */
static void swr_resp_fail(struct swr_qp *dst, struct swr_answer *a,
			  enum ib_wc_status status)
{
	a->status = status;
	swr_qp_set_error(dst, false);
}

/* The swr_mr_atomic() operation of an atomic work request's opcode. */
static enum swr_atomic_kind swr_atomic_kind(u8 opcode)
{
	if (opcode == SWROCE_WR_ATOMIC_CMP_AND_SWP)
		return SWR_ATOMIC_CMP_SWAP;
	if (opcode == SWROCE_WR_ATOMIC_FETCH_AND_ADD)
		return SWR_ATOMIC_FETCH_ADD;
	return SWR_ATOMIC_WRITE;
}

/*
 * The responder for RC/UC, step 1 of 3 (dst->resp_lock held): check @w,
 * sent by @qp, against @dst (referenced), consume a receive WQE, look up
 * and reference the memory the data goes to or comes from (req.rseg) and
 * execute an atomic. Fills @a and @op.
 */
static void swr_respond_start(struct swr_qp *qp, struct swr_qp *dst,
			      const struct swr_send_wqe *w, u64 len,
			      u32 npkts, const struct swr_tm_msg *tm,
			      struct swr_answer *a, struct swr_resp_op *op)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_recv_wqe *rwqe = &qp->req.rwqe;
	struct swr_seg *rseg = qp->req.rseg;
	bool rc = swr_qp_reliable(dst);
	u8 opc = w->hdr.opcode;
	struct swr_resp_view rv;
	struct swr_mr *mr;
	u64 raddr;
	int access, err;

	a->status = IB_WC_SUCCESS;
	a->rnr = false;
	a->fault = false;
	memset(op, 0, sizeof(*op));
	op->gen = dst->resp_gen;
	op->inval_ok = true;
	op->rstatus = IB_WC_SUCCESS;

	swr_resp_view(dst, &rv);
	access = swr_op_access(opc);
	if (access && !(rv.access & access)) {
		ibdev_dbg(&sdev->ibdev, "qp %u: access %#x not allowed\n",
			  dst->ibqp.qp_num, access);
		/* UC: a write the QP does not allow is dropped. */
		if (rc)
			swr_resp_fail(dst, a, IB_WC_REM_INV_REQ_ERR);
		return;
	}

	if (swr_op_needs_recv(opc)) {
		err = swr_recv_pop(dst, rwqe, opc, tm);
		if (err == -ENOENT) {
			/* UC: the message is dropped. */
			if (rc) {
				swr_qp_count(dst, SWR_CNT_RNR_NAK);
				trace_swr_nak_sent(dst, dst->resp.psn,
						   SWR_AETH_RNR_NAK |
						   (rv.min_rnr_timer & 31));
				a->rnr = true;
				a->rnr_timer = rv.min_rnr_timer;
			}
			return;
		}
		if (err) {
			/* An unreadable receive queue (class A). */
			swr_qp_set_error(dst, true);
			if (rc)
				a->status = IB_WC_REM_OP_ERR;
			return;
		}
		op->has_recv = true;
	}

	dst->resp.psn = (dst->resp.psn + npkts) & SWR_PSN_MASK;

	switch (opc) {
	case SWROCE_WR_SEND:
	case SWROCE_WR_SEND_WITH_IMM:
	case SWROCE_WR_SEND_WITH_INV:
		op->skip = rwqe->tm_skip;
		if (swr_sge_total(rwqe->sge, rwqe->num_sge) < len - op->skip) {
			op->rstatus = IB_WC_LOC_LEN_ERR;
			a->status = IB_WC_REM_INV_REQ_ERR;
			break;
		}
		err = swr_segs_get(dst, rwqe->sge, rwqe->num_sge,
				   len - op->skip, IB_ACCESS_LOCAL_WRITE, rseg,
				   &op->nr);
		if (err) {
			op->rstatus = IB_WC_LOC_PROT_ERR;
			a->status = IB_WC_REM_OP_ERR;
			break;
		}
		op->xfer = SWR_XFER_IN;
		op->copy_rstatus = IB_WC_LOC_PROT_ERR;
		op->copy_status = IB_WC_REM_OP_ERR;
		break;

	case SWROCE_WR_RDMA_WRITE:
	case SWROCE_WR_RDMA_WRITE_WITH_IMM:
		/* C9-88: a zero-length write needs no valid rkey. */
		if (!len)
			break;
		raddr = w->hdr.rdma.remote_addr;
		mr = swr_mr_lookup(sdev, SWR_RKEY, w->hdr.rdma.rkey,
				   swr_resp_pd(dst), dst->ibqp.qp_num,
				   IB_ACCESS_REMOTE_WRITE, &raddr, len);
		if (IS_ERR(mr)) {
			ibdev_dbg(&sdev->ibdev, "qp %u: rkey %#x: %ld\n",
				  dst->ibqp.qp_num, w->hdr.rdma.rkey,
				  PTR_ERR(mr));
			op->rstatus = IB_WC_LOC_ACCESS_ERR;
			a->status = IB_WC_REM_ACCESS_ERR;
			break;
		}
		rseg[0].mr = mr;
		rseg[0].iova = raddr;
		rseg[0].len = len;
		op->nr = 1;
		op->xfer = SWR_XFER_IN;
		op->copy_rstatus = IB_WC_LOC_ACCESS_ERR;
		op->copy_status = IB_WC_REM_ACCESS_ERR;
		break;

	case SWROCE_WR_RDMA_READ:
		if (!len)
			break;
		raddr = w->hdr.rdma.remote_addr;
		mr = swr_mr_lookup(sdev, SWR_RKEY, w->hdr.rdma.rkey,
				   swr_resp_pd(dst), dst->ibqp.qp_num,
				   IB_ACCESS_REMOTE_READ, &raddr, len);
		if (IS_ERR(mr)) {
			a->status = IB_WC_REM_ACCESS_ERR;
			break;
		}
		rseg[0].mr = mr;
		rseg[0].iova = raddr;
		rseg[0].len = len;
		op->nr = 1;
		op->xfer = SWR_XFER_OUT;
		op->copy_status = IB_WC_REM_ACCESS_ERR;
		break;

	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
	case SWROCE_WR_ATOMIC_WRITE:
		raddr = w->hdr.atomic.remote_addr;
		mr = swr_mr_lookup(sdev, SWR_RKEY, w->hdr.atomic.rkey,
				   swr_resp_pd(dst), dst->ibqp.qp_num, access,
				   &raddr, sizeof(u64));
		if (IS_ERR(mr)) {
			a->status = IB_WC_REM_ACCESS_ERR;
			break;
		}
		err = swr_mr_atomic(mr, raddr, swr_atomic_kind(opc),
				    w->hdr.atomic.compare_add,
				    opc == SWROCE_WR_ATOMIC_CMP_AND_SWP ?
				    w->hdr.atomic.swap :
				    w->hdr.atomic.compare_add, &a->read_orig);
		if (err == -EAGAIN)
			err = swr_mr_fault_async(mr, raddr, sizeof(u64), true);
		swr_mr_put(mr);
		if (err == -EAGAIN) {
			/* ODP: not executed; the requester asks again. */
			dst->resp.psn = (dst->resp.psn - npkts) & SWR_PSN_MASK;
			a->fault = true;
		} else if (err == -EFAULT) {
			a->status = IB_WC_REM_ACCESS_ERR;
		} else if (err) {
			/* Misaligned: an invalid request (rxe: class C). */
			a->status = IB_WC_REM_INV_REQ_ERR;
		}
		break;
	}
}

/*
 * Step 2 (no spinlock held, may sleep), in pieces: move bytes [@off,
 * @off + @len) of the data of @w between the requester's local segments
 * (@nl of them, or the inline data) and req.rseg. A failed copy sets the
 * completions' statuses. Return: 0 or the copy's error.
 */
static int swr_respond_copy(struct swr_qp *qp, const struct swr_send_wqe *w,
			    u64 off, u64 len, u32 nl, struct swr_answer *a,
			    struct swr_resp_op *op)
{
	struct swr_seg *rseg = qp->req.rseg;
	u64 end = off + len;
	int err = 0;

	/* A matched tag's buffer: the message's TMH is not placed. */
	if (op->xfer == SWR_XFER_IN && op->skip) {
		off = max_t(u64, off, op->skip);
		if (end <= off)
			return 0;
		len = end - off;
	}
	if (op->xfer == SWR_XFER_IN && (w->hdr.flags & SWROCE_WQE_INLINE))
		err = swr_copy_at(rseg, op->nr, NULL, 0, w->inline_data,
				  off - op->skip, off, len, true);
	else if (op->xfer == SWR_XFER_IN)
		err = swr_copy_at(rseg, op->nr, qp->req.lseg, nl, NULL,
				  off - op->skip, off, len, true);
	else if (op->xfer == SWR_XFER_OUT)
		/* The requester's SGEs are the destination here. */
		err = swr_copy_at(qp->req.lseg, nl, rseg, op->nr, NULL, off,
				  off, len, true);
	/* -EAGAIN: ODP pages being faulted in; this part again later. */
	if (err && err != -EAGAIN) {
		op->rstatus = op->copy_rstatus;
		a->status = op->copy_status;
	}
	return err;
}

/*
 * Step 3 (dst->resp_lock held again): invalidate for SEND_WITH_INV, move
 * @dst to error after a failure and complete the receive WQE. Nothing
 * happens to @dst when it was reset since step 1: the reset discarded the
 * receive WQE, and the requester keeps its answer.
 */
static void swr_respond_complete(struct swr_qp *qp, struct swr_qp *dst,
				 const struct swr_send_wqe *w, u64 len,
				 struct swr_answer *a, struct swr_resp_op *op)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_recv_wqe *rwqe = &qp->req.rwqe;
	bool rc = swr_qp_reliable(dst);
	u8 opc = w->hdr.opcode;
	struct swroce_cqe cqe;

	if (op->gen != dst->resp_gen)
		return;

	if (opc == SWROCE_WR_SEND_WITH_INV && op->has_recv &&
	    op->rstatus == IB_WC_SUCCESS && a->status == IB_WC_SUCCESS &&
	    swr_key_invalidate(sdev, w->hdr.ex, swr_resp_pd(dst),
			       dst->ibqp.qp_num, true)) {
		ibdev_dbg(&sdev->ibdev, "qp %u: cannot invalidate %#x\n",
			  dst->ibqp.qp_num, w->hdr.ex);
		op->inval_ok = false;
		op->rstatus = IB_WC_REM_INV_REQ_ERR;
		a->status = IB_WC_REM_INV_REQ_ERR;
	}

	/*
	 * RC: an error moves the responder to error too (rxe: class A/C).
	 * UC: the requester never hears of it; the responder drops the
	 * message, unless it had consumed a receive WQE, which completes
	 * in error (and the QP with it).
	 */
	if (!op->has_recv)
		op->rstatus = IB_WC_SUCCESS;
	if (a->status != IB_WC_SUCCESS || op->rstatus != IB_WC_SUCCESS) {
		if (rc || op->rstatus != IB_WC_SUCCESS)
			swr_qp_set_error(dst, false);
		if (!rc)
			a->status = IB_WC_SUCCESS;
	}

	if (!op->has_recv)
		return;
	if (opc == SWROCE_WR_RDMA_WRITE_WITH_IMM)
		swr_cqe_init(&cqe, rwqe->wr_id, dst->ibqp.qp_num, op->rstatus,
			     SWR_WC_RECV_RDMA_WITH_IMM, len);
	else
		swr_cqe_init(&cqe, rwqe->wr_id, dst->ibqp.qp_num, op->rstatus,
			     SWR_WC_RECV, len - op->skip);
	cqe.src_qp = qp->ibqp.qp_num;
	if (opc == SWROCE_WR_SEND_WITH_IMM ||
	    opc == SWROCE_WR_RDMA_WRITE_WITH_IMM) {
		cqe.flags = SWROCE_CQE_WITH_IMM;
		cqe.ex_data = w->hdr.ex;
	} else if (opc == SWROCE_WR_SEND_WITH_INV && op->inval_ok) {
		cqe.flags = SWROCE_CQE_WITH_INV;
		cqe.ex_data = w->hdr.ex;
	}
	swr_tm_recv_cqe(rwqe, &cqe);
	swr_recv_complete(dst, &cqe, w->hdr.flags & SWROCE_WQE_SOLICITED);
	/* A rendezvous goes on after the SEND's completion (op->rndv). */
	if (rwqe->tm == SWR_TM_RNDV && cqe.status == IB_WC_SUCCESS)
		op->rndv = true;
	else if (rwqe->tm == SWR_TM_RNDV)
		swr_tm_rndv_start(dst, rwqe, false);
}

/*
 * Step 3 as the responder sees it: an XRC request's SRQ, which step 1 took
 * (op->xsrq) and kept while resp_lock was dropped, is the request's again
 * for the completion, and is released after it.
 */
static void swr_respond_finish(struct swr_qp *qp, struct swr_qp *dst,
			       const struct swr_send_wqe *w, u64 len,
			       struct swr_answer *a, struct swr_resp_op *op)
{
	dst->resp.xsrq = op->xsrq;
	op->xsrq = NULL;
	swr_respond_complete(qp, dst, w, len, a, op);
	swr_xrc_resp_end(dst);
}

/* Large messages in turns ------------------------------------------------ */

/* The requester's side of a finished RC/UC WQE: SGEs, PSN, completion. */
static void swr_rc_uc_done(struct swr_qp *qp, u32 nl, u32 npkts,
			   enum ib_wc_status status, u64 len)
{
	swr_segs_put(qp->req.lseg, nl);
	qp->req.psn = (qp->req.psn + npkts) & SWR_PSN_MASK;
	swr_req_complete(qp, &qp->req.wqe, status, status ? 0 : (u32)len);
}

/*
 * Step 2 of req.xfer for at most the turn's bytes; once all the data has
 * moved (or a copy failed), step 3 and the requester's completion.
 * Return: SWR_DONE, or SWR_MORE when data is left for a later turn.
 */
static enum swr_verdict swr_xfer_run(struct swr_qp *qp)
{
	struct swr_req_xfer *x = &qp->req.xfer;
	struct swr_qp *dst = x->dst;
	u64 n = min_t(u64, x->len - x->done, qp->req.turn_bytes);
	int err;

	qp->req.turn_bytes -= n;
	err = swr_respond_copy(qp, &qp->req.wqe, x->done, n, x->nl, &x->a,
			       &x->op);
	if (err == -EAGAIN)
		return swr_req_wait(qp, SWR_FAULT_WAIT_NS);
	if (err)
		x->done = x->len;	/* nothing more is copied */
	else
		x->done += n;
	if (x->done < x->len)
		return SWR_MORE;

	swr_segs_put(qp->req.rseg, x->op.nr);
	x->op.nr = 0;
	x->dst = NULL;
	spin_lock_bh(&dst->resp_lock);
	swr_respond_finish(qp, dst, &qp->req.wqe, x->len, &x->a, &x->op);
	spin_unlock_bh(&dst->resp_lock);
	swr_rc_uc_done(qp, x->nl, x->npkts, x->a.status, x->len);
	/* Only now: the sender sees its SEND complete before the FIN. */
	if (x->op.rndv)
		swr_tm_rndv_start(dst, &qp->req.rwqe, true);
	swr_qp_put(dst);
	return SWR_DONE;
}

/*
 * Step 1 left data to move for @dst (referenced): keep what steps 2 and 3
 * need in req.xfer and make the first turn's part of step 2.
 */
static enum swr_verdict swr_xfer_start(struct swr_qp *qp, struct swr_qp *dst,
				       u64 len, u32 nl, u32 npkts,
				       const struct swr_answer *a,
				       const struct swr_resp_op *op)
{
	struct swr_req_xfer *x = &qp->req.xfer;

	x->dst = dst;
	x->a = *a;
	x->op = *op;
	x->nl = nl;
	x->npkts = npkts;
	x->len = len;
	x->done = 0;
	return swr_xfer_run(qp);
}

void swr_req_finish_xfer(struct swr_qp *qp)
{
	enum swr_verdict v;

	while (qp->req.xfer.dst) {
		qp->req.turn_bytes = SWR_TURN_BYTES;
		v = swr_xfer_run(qp);
		if (v == SWR_DONE)
			qp->req.wqe_valid = false;
		/* Hold the QP for one turn at a time, as everyone does. */
		mutex_unlock(&qp->sq_lock);
		if (v == SWR_WAIT)	/* an ODP fault in a work item */
			usleep_range(50, 100);
		cond_resched();
		mutex_lock(&qp->sq_lock);
	}
	qp->req.wait_until = 0;
}

/* Local operations: LOCAL_INV, BIND_MW and (kernel QPs) REG_MR. */
static void swr_exec_local(struct swr_qp *qp, struct swr_send_wqe *w)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_mw_bind_req bind;
	struct swr_kwqe_reg reg;
	enum ib_wc_status status = IB_WC_SUCCESS;

	switch (w->hdr.opcode) {
	case SWROCE_WR_LOCAL_INV:
		if (swr_key_invalidate(sdev, w->hdr.ex, qp->ibqp.pd,
				       qp->ibqp.qp_num, false))
			status = IB_WC_LOC_QP_OP_ERR;
		break;
	case SWROCE_WR_BIND_MW:
		bind.mw_rkey = w->hdr.bind.mw_rkey;
		bind.new_rkey = w->hdr.bind.new_rkey;
		bind.mr_lkey = w->hdr.bind.mr_lkey;
		bind.addr = w->hdr.bind.addr;
		bind.length = w->hdr.bind.length;
		bind.access = w->hdr.bind.access;
		if (swr_mw_bind(sdev, &bind, qp->ibqp.pd, qp->ibqp.qp_num))
			status = IB_WC_MW_BIND_ERR;
		break;
	case SWR_WR_REG_MR:
		memcpy(&reg, &w->hdr.pad, sizeof(reg));
		if (swr_mr_fast_reg((struct ib_mr *)(uintptr_t)reg.mr,
				    qp->ibqp.pd, reg.key, reg.access))
			status = IB_WC_LOC_QP_OP_ERR;
		break;
	}
	if (status != IB_WC_SUCCESS)
		ibdev_dbg(&sdev->ibdev, "qp %u: local op %u failed\n",
			  qp->ibqp.qp_num, w->hdr.opcode);
	swr_req_complete(qp, w, status, 0);
}

/* An RC/UC WQE to a foreign GID goes to the wire's window (swr_wire.c). */
static enum swr_verdict swr_exec_rc_uc_wire(struct swr_qp *qp,
					    const struct swr_req_view *v,
					    struct swr_send_wqe *w, u64 len,
					    int laccess)
{
	u32 nl = 0;
	int err;

	if (swr_wire_too_long(w->hdr.opcode, len, v->mtu)) {
		swr_req_complete(qp, w, IB_WC_LOC_LEN_ERR, 0);
		return SWR_DONE;
	}
	/* Check the local SGEs now: a bad lkey fails before any packet. */
	if (!(w->hdr.flags & SWROCE_WQE_INLINE) &&
	    w->hdr.opcode != SWROCE_WR_ATOMIC_WRITE) {
		err = swr_segs_get(qp, w->sge, w->hdr.num_sge, len, laccess,
				   qp->req.lseg, &nl);
		if (err) {
			swr_req_complete(qp, w, IB_WC_LOC_PROT_ERR, 0);
			return SWR_DONE;
		}
		swr_segs_put(qp->req.lseg, nl);
	}
	if (!swr_wire_submit(qp, len))
		/* Window full or fenced: a completion clears the wait. */
		return swr_req_wait(qp, NSEC_PER_MSEC);
	return SWR_DONE;
}

/*
 * Local delivery knows which QP sent a request, which a packet on the wire
 * does not say. So @dst (resp_lock held) takes a request from @qp only as
 * the wire would take it from its connected peer, and more strictly:
 *  1. @qp is @dst's peer: @dst's dest_qpn is @qp's QPN, @dst's path goes to
 *     the GID @qp sends from and comes from the GID @qp sends to (what
 *     swr_rx_from_peer() checks of a packet's IP addresses);
 *  2. RC: the request carries the PSN @dst expects. The wire would take a
 *     PSN behind it as a duplicate (ACKed, not executed) and NAK one ahead;
 *     a local requester never resends, so either means the two ends
 *     disagree and nothing is executed (UC, as on the wire, starts a new
 *     message at any PSN).
 * Anything else is dropped as the wire drops it: an RC requester hears
 * nothing and retries until retry_cnt runs out, a UC one never knows.
 * Without (1) any user could connect a QP to its own GID with a victim's
 * QPN as dest_qpn and place data in the victim's receive queue and MRs,
 * and move the victim's expected PSN so that its real peer's next
 * requests were taken as duplicates.
 */
static bool swr_local_accept(struct swr_qp *qp, struct swr_qp *dst,
			     const struct swr_req_view *v)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	unsigned long flags;
	bool peer;

	spin_lock_irqsave(&dst->state_lock, flags);
	peer = dst->attr.dest_qpn == qp->ibqp.qp_num &&
	       !memcmp(&rdma_ah_read_grh(&dst->attr.ah)->dgid, &v->sgid,
		       sizeof(v->sgid)) &&
	       !memcmp(&dst->attr.sgid, &v->dgid, sizeof(v->dgid));
	spin_unlock_irqrestore(&dst->state_lock, flags);
	if (!peer) {
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_QP, dst->ibqp.qp_num);
		return false;
	}
	if (swr_qp_reliable(dst) && qp->req.psn != dst->resp.psn) {
		swr_qp_count(dst, SWR_CNT_OUT_OF_SEQ);
		return false;
	}
	return true;
}

/*
 * A SEND to a QP on a tag matching SRQ: copy the message's head into @m
 * (from the requester's memory, referenced in req.lseg, or its inline
 * data), before the responder's lock is taken: an ODP page is faulted in
 * first (swr_mr_fault()). 1 with the head, 0 when @dst has no such SRQ or
 * the message is too short for a TMH, -EAGAIN (a fault in a work item:
 * retry) or -EFAULT.
 */
static int swr_local_tmh(struct swr_qp *qp, struct swr_qp *dst,
			 const struct swr_send_wqe *w, u64 len, u32 nl,
			 struct swr_tm_msg *m)
{
	struct swr_seg *seg = qp->req.lseg;
	u32 i, n, got;
	int err;

	if (!dst->srq || !dst->srq->tm || len < SWROCE_TMH_BYTES ||
	    !swr_op_needs_recv(w->hdr.opcode) ||
	    w->hdr.opcode == SWROCE_WR_RDMA_WRITE_WITH_IMM)
		return 0;
	m->len = len;
	m->hdr_len = min_t(u64, len, SWR_TM_HDR_BYTES);
	if (w->hdr.flags & SWROCE_WQE_INLINE) {
		memcpy(m->hdr, w->inline_data, m->hdr_len);
		return 1;
	}
	for (i = 0, got = 0; i < nl && got < m->hdr_len; i++, got += n) {
		n = min_t(u64, seg[i].len, m->hdr_len - got);
		err = swr_mr_copy(seg[i].mr, seg[i].iova, m->hdr + got, n,
				  SWR_COPY_FROM_MR);
		if (err == -EAGAIN)
			err = swr_mr_fault(seg[i].mr, seg[i].iova, n, false) ?:
			      swr_mr_copy(seg[i].mr, seg[i].iova, m->hdr + got,
					  n, SWR_COPY_FROM_MR);
		if (err)
			return err == -EAGAIN ? err : -EFAULT;
	}
	return got == m->hdr_len;
}

/* An XRC_INI QP talks to XRC_TGT QPs; RC and UC to their own kind. */
static bool swr_local_type_ok(const struct swr_qp *qp,
			      const struct swr_qp *dst)
{
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI)
		return dst->ibqp.qp_type == IB_QPT_XRC_TGT;
	return dst->ibqp.qp_type == qp->ibqp.qp_type;
}

/*
 * Step 1 of a local request (dst->resp_lock held). At an XRC_TGT QP the
 * request first needs the SRQ its WQE names, of @dst's domain (else an
 * invalid request, as the wire NAKs it); step 1 works with it as the
 * wire's responder does (resp.xsrq), then hands the reference to @op for
 * step 3, since @dst may take other requests while the data moves.
 */
static void swr_local_respond_start(struct swr_qp *qp, struct swr_qp *dst,
				    const struct swr_send_wqe *w, u64 len,
				    u32 npkts, const struct swr_tm_msg *tm,
				    struct swr_answer *a,
				    struct swr_resp_op *op)
{
	if (dst->ibqp.qp_type == IB_QPT_XRC_TGT &&
	    !swr_xrc_resp_begin(dst, w->hdr.xrc_srqn)) {
		memset(a, 0, sizeof(*a));
		memset(op, 0, sizeof(*op));
		op->gen = dst->resp_gen;
		swr_resp_fail(dst, a, IB_WC_REM_INV_REQ_ERR);
		return;
	}
	swr_respond_start(qp, dst, w, len, npkts, tm, a, op);
	op->xsrq = dst->resp.xsrq;
	dst->resp.xsrq = NULL;
}

static enum swr_verdict swr_exec_rc_uc(struct swr_qp *qp,
				       const struct swr_req_view *v)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_send_wqe *w = &qp->req.wqe;
	bool rc = swr_qp_reliable(qp);
	u8 op = w->hdr.opcode;
	struct swr_tm_msg tmh;
	struct swr_resp_op rop;
	struct swr_answer a;
	struct swr_qp *dst;
	u32 nl = 0, npkts;
	int laccess = 0;
	int has_tmh;
	u64 len, tmo;
	int err;

	switch (op) {
	case SWROCE_WR_LOCAL_INV:
	case SWROCE_WR_BIND_MW:
	case SWR_WR_REG_MR:
		/* Completions in order: after the wire's outstanding WQEs. */
		if (!swr_wire_idle(qp))
			return swr_req_wait(qp, NSEC_PER_MSEC);
		swr_exec_local(qp, w);
		return SWR_DONE;
	case SWROCE_WR_ATOMIC_WRITE:
		len = sizeof(u64);
		break;
	case SWROCE_WR_ATOMIC_CMP_AND_SWP:
	case SWROCE_WR_ATOMIC_FETCH_AND_ADD:
		len = sizeof(u64);
		laccess = IB_ACCESS_LOCAL_WRITE;
		/* The original value goes to the first SGE: 8 bytes. */
		if (!w->hdr.num_sge || w->sge[0].length < sizeof(u64)) {
			swr_req_complete(qp, w, IB_WC_LOC_LEN_ERR, 0);
			return SWR_DONE;
		}
		break;
	case SWROCE_WR_RDMA_READ:
		laccess = IB_ACCESS_LOCAL_WRITE;
		fallthrough;
	default:
		if (w->hdr.flags & SWROCE_WQE_INLINE)
			len = w->hdr.inline_len;
		else
			len = swr_sge_total(w->sge, w->hdr.num_sge);
		break;
	}
	if (len > SWR_MAX_MSG) {
		swr_req_complete(qp, w, IB_WC_LOC_LEN_ERR, 0);
		return SWR_DONE;
	}

	if (!swr_req_gid_is_local(qp, &v->dgid)) {
		if (swr_net_on_wire(sdev))
			return swr_exec_rc_uc_wire(qp, v, w, len, laccess);
		/* Not on the wire (the port is taken): nobody answers. */
		if (!rc) {
			swr_req_complete(qp, w, IB_WC_SUCCESS, len);
			return SWR_DONE;
		}
		swr_req_complete(qp, w, IB_WC_RETRY_EXC_ERR, 0);
		return SWR_DONE;
	}

	dst = swr_qp_get(sdev, v->dest_qpn);
	if (!dst || !swr_local_type_ok(qp, dst)) {
		if (dst)
			swr_qp_put(dst);
		if (!rc) {
			swr_req_complete(qp, w, IB_WC_SUCCESS, len);
			return SWR_DONE;
		}
		goto no_answer;
	}

	if (!(w->hdr.flags & SWROCE_WQE_INLINE) &&
	    op != SWROCE_WR_ATOMIC_WRITE) {
		err = swr_segs_get(qp, w->sge, w->hdr.num_sge, len, laccess,
				   qp->req.lseg, &nl);
		if (err) {
			swr_qp_put(dst);
			swr_req_complete(qp, w, IB_WC_LOC_PROT_ERR, 0);
			return SWR_DONE;
		}
	}
	/*
	 * ODP, before the responder's lock: the result's page mapped before
	 * the atomic executes; a tag matching SRQ's message head read.
	 */
	err = 0;
	if (nl && (op == SWROCE_WR_ATOMIC_CMP_AND_SWP ||
		   op == SWROCE_WR_ATOMIC_FETCH_AND_ADD))
		err = swr_mr_fault(qp->req.lseg[0].mr, qp->req.lseg[0].iova,
				   sizeof(u64), true);
	has_tmh = err ? 0 : swr_local_tmh(qp, dst, w, len, nl, &tmh);
	if (has_tmh < 0)
		err = has_tmh;
	if (err) {
		swr_segs_put(qp->req.lseg, nl);
		swr_qp_put(dst);
		if (err == -EAGAIN)
			return swr_req_wait(qp, SWR_FAULT_WAIT_NS);
		swr_req_complete(qp, w, IB_WC_LOC_PROT_ERR, 0);
		return SWR_DONE;
	}

	npkts = op == SWROCE_WR_ATOMIC_CMP_AND_SWP ||
		op == SWROCE_WR_ATOMIC_FETCH_AND_ADD ||
		op == SWROCE_WR_ATOMIC_WRITE ? 1 : swr_npkts(len, v->mtu);

	spin_lock_bh(&dst->resp_lock);
	if (!swr_resp_state_ok(READ_ONCE(dst->state)) ||
	    !swr_local_accept(qp, dst, v)) {
		spin_unlock_bh(&dst->resp_lock);
		swr_segs_put(qp->req.lseg, nl);
		swr_qp_put(dst);
		if (!rc) {
			swr_req_complete(qp, w, IB_WC_SUCCESS, len);
			return SWR_DONE;
		}
		goto no_answer;
	}
	swr_local_respond_start(qp, dst, w, len, npkts, has_tmh ? &tmh : NULL,
				&a, &rop);
	if (rop.xfer != SWR_XFER_NONE) {
		/* Data moves unlocked, in turns ("Large messages"). */
		spin_unlock_bh(&dst->resp_lock);
		return swr_xfer_start(qp, dst, len, nl, npkts, &a, &rop);
	}
	swr_respond_finish(qp, dst, w, len, &a, &rop);
	spin_unlock_bh(&dst->resp_lock);
	swr_qp_put(dst);

	if (a.fault) {
		/* An ODP page is being faulted in (swr_odp.c): no RNR count. */
		swr_segs_put(qp->req.lseg, nl);
		return swr_req_wait(qp, SWR_FAULT_WAIT_NS);
	}
	if (a.rnr) {
		swr_segs_put(qp->req.lseg, nl);
		if (!qp->req.rnr_left) {
			swr_req_complete(qp, w, IB_WC_RNR_RETRY_EXC_ERR, 0);
			return SWR_DONE;
		}
		if (qp->req.rnr_left != SWR_RNR_INFINITE)
			qp->req.rnr_left--;
		return swr_req_wait(qp, (u64)swr_rnr_10us[a.rnr_timer & 31] *
					10 * NSEC_PER_USEC);
	}

	/* Atomics: the original value to the requester's buffer. */
	if (a.status == IB_WC_SUCCESS &&
	    (op == SWROCE_WR_ATOMIC_CMP_AND_SWP ||
	     op == SWROCE_WR_ATOMIC_FETCH_AND_ADD) && nl) {
		if (swr_mr_copy_fault(qp->req.lseg[0].mr,
				      qp->req.lseg[0].iova, &a.read_orig,
				      sizeof(u64), SWR_COPY_TO_MR))
			a.status = IB_WC_LOC_PROT_ERR;
	}
	swr_rc_uc_done(qp, nl, npkts, a.status, len);
	return SWR_DONE;

no_answer:
	/*
	 * A destination that does not exist or is not ready: a real
	 * requester retransmits after each timeout (4.096 us << timeout,
	 * IBTA 9.7.6.1.3; 0 means forever) and gives up after retry_cnt.
	 */
	if (!qp->req.retry_left) {
		swr_req_complete(qp, w, IB_WC_RETRY_EXC_ERR, 0);
		return SWR_DONE;
	}
	if (v->timeout)
		qp->req.retry_left--;
	tmo = v->timeout ? 4096ULL << min_t(u8, v->timeout, 31) :
			   100 * NSEC_PER_MSEC;
	return swr_req_wait(qp, tmo);
}

/* The requester ----------------------------------------------------------- */

/*
 * One WQE's worth of the requester (sq_lock held): the transfer in
 * progress, or the held WQE once its wait is over, or the next one from
 * the SQ; a QP in error is flushed instead (*@flushed: how many).
 * Return: the verdict; SWR_WAIT also when there is nothing to do now.
 */
static enum swr_verdict swr_req_step(struct swr_qp *qp, int *flushed)
{
	struct swr_req_view v;
	int err;

	/* A WQE whose data moves completes, whatever the state since. */
	if (qp->req.xfer.dst) {
		/* Waiting for an ODP fault (swr_xfer_run()). */
		if (qp->req.wait_until && ktime_get_ns() < qp->req.wait_until) {
			swr_poll_deadline(swr_qp_dev(qp), qp->req.wait_until);
			return SWR_WAIT;
		}
		qp->req.wait_until = 0;
		return swr_xfer_run(qp);
	}

	swr_req_view(qp, &v);
	if (v.state == IB_QPS_ERR || READ_ONCE(qp->flush_pending)) {
		*flushed = swr_flush(qp);
		return SWR_WAIT;
	}
	if (v.state != IB_QPS_RTS && v.state != IB_QPS_SQD)
		return SWR_WAIT;

	if (qp->req.wqe_valid) {
		if (qp->req.wait_until && ktime_get_ns() < qp->req.wait_until) {
			swr_poll_deadline(swr_qp_dev(qp), qp->req.wait_until);
			return SWR_WAIT;
		}
		qp->req.wait_until = 0;
	} else {
		/* SQD starts nothing new (swr_qp_check_drained()). */
		if (v.state == IB_QPS_SQD)
			return SWR_WAIT;
		err = swr_req_fetch(qp, &v);
		if (err == -ENOENT)
			return SWR_WAIT;
		/* Bad: completed in error, and the QP is in error (flush). */
		if (err)
			return SWR_DONE;
	}

	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
		return swr_exec_ud(qp, &v);
	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET) {
		swr_raw_send(qp);
		return SWR_DONE;
	}
	return swr_exec_rc_uc(qp, &v);
}

int swr_req_process(struct swr_qp *qp, int budget)
{
	enum swr_verdict verdict = SWR_DONE;
	int done = 0, flushed = 0;

	/* The poller calls on every pass: be cheap when there is nothing. */
	if (!swr_req_has_work(qp, ktime_get_ns()))
		return 0;

	/* Never wait for another context's turn (swr_poll.c). */
	if (!mutex_trylock(&qp->sq_lock))
		return -EBUSY;
	qp->req.turn_bytes = SWR_TURN_BYTES;
	qp->req.turn_pkts = SWR_WIRE_BURST;
	/* Responses, timers and packets of the wire's window. */
	swr_wire_poll(qp);
	/* The responder's READ responses the receive path left to us. */
	swr_wire_resp_tx(qp);
	while (done < budget && qp->req.turn_bytes) {
		verdict = swr_req_step(qp, &flushed);
		if (verdict != SWR_DONE)
			break;
		qp->req.wqe_valid = false;
		done++;

		/* Let others run, and modify_qp in, between WQEs. */
		mutex_unlock(&qp->sq_lock);
		cond_resched();
		if (!mutex_trylock(&qp->sq_lock))
			return done;
	}
	mutex_unlock(&qp->sq_lock);
	/* Data moved for a WQE not complete yet is work done too. */
	return done + flushed + (verdict == SWR_MORE);
}

bool swr_req_has_work(struct swr_qp *qp, u64 now)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	u32 prod, jobs;

	if (swr_wire_has_work(qp, now))
		return true;
	/* Rendezvous steps of a tag matching SRQ (swr_tm.c) need no SQ. */
	jobs = READ_ONCE(qp->tm_njobs);
	/* No SQ (XRC_TGT, or none made): only its flush or a rendezvous. */
	if (!qp->sq.ring && !jobs && !READ_ONCE(qp->req.wqe_valid))
		return READ_ONCE(qp->flush_pending);
	prod = qp->sq.ring ? READ_ONCE(qp->sq.ring->prod.idx) :
			     READ_ONCE(qp->sq.cons);
	if (state == IB_QPS_ERR || READ_ONCE(qp->flush_pending)) {
		if (prod != READ_ONCE(qp->sq.cons) || jobs ||
		    READ_ONCE(qp->req.wqe_valid) || !swr_wire_idle(qp))
			return true;
		return !qp->srq && qp->rq.ring &&
		       READ_ONCE(qp->rq.ring->prod.idx) !=
		       READ_ONCE(qp->rq.cons);
	}
	if (READ_ONCE(qp->req.wqe_valid)) {
		u64 until = READ_ONCE(qp->req.wait_until);

		return !until || now >= until;
	}
	return state == IB_QPS_RTS && (prod != READ_ONCE(qp->sq.cons) || jobs);
}
