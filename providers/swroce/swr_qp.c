// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs. Creating, modifying, querying and destroying a QP are
 * kernel commands; posting is not. A send WQE is written into the mapped
 * SQ ring and published with a release store of the producer index; the
 * kernel's poller picks it up, and only when the poller has gone to sleep
 * (SWROCE_SQ_NEED_WAKEUP) does posting make a system call, the doorbell
 * (see struct swroce_sq_ring). Receives go to the RQ ring like an SRQ's.
 *
 * Deferred doorbells: a poller that sleeps only because the applications
 * want its CPU says so (SWROCE_SQ_LAZY) and looks at the rings again
 * within a millisecond. A post then skips the system call when it asks
 * for no completion, or when its send CQ has signaled WQEs outstanding:
 * either way the application has to poll or arm a CQ to learn anything
 * of it, and swr_db_flush() rings then, once for every post since. So a
 * client that streams while its peer spins makes a doorbell or two per
 * batch instead of one per WQE, and a ping-pong, which posts a signaled
 * WQE with nothing outstanding, still rings at once (and its doorbell
 * takes the posts put off before it along). The QPs waiting are on the
 * context's db_list; the counts in swr_cq.sig_out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "swroce.h"

#define SWR_OP(op)	(1u << IBV_WR_##op)

/* ATOMIC_WRITE is a verb of rdma-core 40 and later. */
#if SWR_HAVE_ATOMIC_WRITE
#define SWR_OPS_ATOMIC_WRITE	SWR_OP(ATOMIC_WRITE)
#define SWR_QPX_ATOMIC_WRITE	IBV_QP_EX_WITH_ATOMIC_WRITE
#else
#define SWR_OPS_ATOMIC_WRITE	0u
#define SWR_QPX_ATOMIC_WRITE	0
#endif

/* What each QP type may post (IBTA: UC has neither READ nor atomics nor
 * SEND with Invalidate; UD sends only; a raw packet QP sends whole
 * Ethernet frames, with no immediate data to carry them).
 */
enum {
	SWR_OPS_RAW = SWR_OP(SEND),
	SWR_OPS_UD = SWR_OP(SEND) | SWR_OP(SEND_WITH_IMM),
	SWR_OPS_UC = SWR_OPS_UD | SWR_OP(RDMA_WRITE) |
		     SWR_OP(RDMA_WRITE_WITH_IMM) | SWR_OP(LOCAL_INV) |
		     SWR_OP(BIND_MW),
	SWR_OPS_RC = SWR_OPS_UC | SWR_OP(RDMA_READ) |
		     SWR_OP(ATOMIC_CMP_AND_SWP) | SWR_OP(ATOMIC_FETCH_AND_ADD) |
		     SWR_OP(SEND_WITH_INV) | SWR_OPS_ATOMIC_WRITE,
	/* XRC_SEND: RC's, but no window is bound to a QP across domains. */
	SWR_OPS_XRC = SWR_OPS_RC & ~SWR_OP(BIND_MW),
	/* Opcodes that carry a local data buffer (SGEs or inline data). */
	SWR_OPS_DATA = SWR_OP(SEND) | SWR_OP(SEND_WITH_IMM) |
		       SWR_OP(SEND_WITH_INV) | SWR_OP(RDMA_WRITE) |
		       SWR_OP(RDMA_WRITE_WITH_IMM) | SWR_OP(RDMA_READ) |
		       SWR_OP(ATOMIC_CMP_AND_SWP) | SWR_OP(ATOMIC_FETCH_AND_ADD),
	/* The subset whose data may be inline: data sent, not received. */
	SWR_OPS_INLINE = SWR_OP(SEND) | SWR_OP(SEND_WITH_IMM) |
			 SWR_OP(SEND_WITH_INV) | SWR_OP(RDMA_WRITE) |
			 SWR_OP(RDMA_WRITE_WITH_IMM),
};

/* ibv_create_qp_ex() send_ops_flags per QP type */
enum {
	SWR_QPX_RAW = IBV_QP_EX_WITH_SEND,
	SWR_QPX_UD = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
	SWR_QPX_UC = SWR_QPX_UD | IBV_QP_EX_WITH_RDMA_WRITE |
		     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		     IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW,
	SWR_QPX_RC = SWR_QPX_UC | IBV_QP_EX_WITH_RDMA_READ |
		     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		     IBV_QP_EX_WITH_SEND_WITH_INV |
		     SWR_QPX_ATOMIC_WRITE,
	SWR_QPX_XRC = SWR_QPX_RC & ~IBV_QP_EX_WITH_BIND_MW,
	SWR_QPX_COMP_MASK = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			    IBV_QP_INIT_ATTR_CREATE_FLAGS |
			    IBV_QP_INIT_ATTR_IND_TABLE |
			    IBV_QP_INIT_ATTR_RX_HASH,
};

/* The uAPI numbers its opcodes as enum ibv_wr_opcode does. */
#define SWR_SAME_OP(op) \
	_Static_assert((int)SWROCE_WR_##op == (int)IBV_WR_##op, \
		       "swroce_wr_opcode: " #op " is not ibv_wr_opcode's")
SWR_SAME_OP(RDMA_WRITE);
SWR_SAME_OP(RDMA_WRITE_WITH_IMM);
SWR_SAME_OP(SEND);
SWR_SAME_OP(SEND_WITH_IMM);
SWR_SAME_OP(RDMA_READ);
SWR_SAME_OP(ATOMIC_CMP_AND_SWP);
SWR_SAME_OP(ATOMIC_FETCH_AND_ADD);
SWR_SAME_OP(LOCAL_INV);
SWR_SAME_OP(BIND_MW);
SWR_SAME_OP(SEND_WITH_INV);
#if SWR_HAVE_ATOMIC_WRITE
SWR_SAME_OP(ATOMIC_WRITE);
#endif
_Static_assert(sizeof(struct swroce_send_wqe) == 64,
	       "the send WQE header is 64 bytes");

static struct swr_qp *ex_to_swr_qp(struct ibv_qp_ex *ibqpx)
{
	return container_of(ibqpx, struct swr_qp, vqp.qp_ex);
}

/* C10-29/C10-97: no send WRs before RTS, no receive WRs in RESET. */
static bool swr_qp_may_send(const struct ibv_qp *ibqp)
{
	return ibqp->state != IBV_QPS_RESET && ibqp->state != IBV_QPS_INIT &&
	       ibqp->state != IBV_QPS_RTR;
}

/* Send queue ring ------------------------------------------------------ */

/*
 * The ring the kernel makes for @cap (swr_sq_init()): what a parent's
 * allocator is asked for. 0 out of range.
 */
static size_t swr_sq_ring_bytes(const struct ibv_qp_cap *cap)
{
	uint64_t sge = (uint64_t)cap->max_send_sge * sizeof(struct swroce_sge);
	uint64_t data = sge > cap->max_inline_data ? sge :
						     cap->max_inline_data;
	uint32_t slots = swr_ring_pow2(cap->max_send_wr);
	uint32_t stride = swr_ring_pow2(sizeof(struct swroce_send_wqe) + data);

	if (!slots || !stride || (uint64_t)slots * stride > SIZE_MAX / 2)
		return 0;
	return sizeof(struct swroce_sq_ring) + (size_t)slots * stride;
}

static int swr_sq_map(struct swr_sq *sq, int cmd_fd,
		      const struct swroce_create_qp_resp *r,
		      const struct ibv_qp_cap *cap,
		      const struct swr_ring_buf *rb)
{
	size_t hdr = sizeof(struct swroce_send_wqe);
	void *ring;

	if (!rb->addr && !r->sq_mmap_size)
		return 0;	/* no send queue (max_send_wr 0) */
	if (!r->sq_num_wqe || (r->sq_num_wqe & (r->sq_num_wqe - 1)) ||
	    r->sq_wqe_stride < hdr ||
	    (r->sq_wqe_stride & (r->sq_wqe_stride - 1)))
		return EPROTO;
	/* What we enforce: what the caller was told, and what fits. */
	sq->max_sge = r->sq_max_sge < cap->max_send_sge ? r->sq_max_sge :
							  cap->max_send_sge;
	sq->max_inline = r->sq_max_inline < cap->max_inline_data ?
			 r->sq_max_inline : cap->max_inline_data;
	if (hdr + (size_t)sq->max_sge * sizeof(struct swroce_sge) >
	    r->sq_wqe_stride || hdr + sq->max_inline > r->sq_wqe_stride)
		return EPROTO;

	ring = swr_ring_map(cmd_fd, rb, r->sq_mmap_offset, r->sq_mmap_size,
			    sizeof(struct swroce_sq_ring) +
			    (size_t)r->sq_num_wqe * r->sq_wqe_stride,
			    &sq->map_size);
	if (!ring)
		return errno;
	sq->ring = ring;
	sq->user_ring = rb->addr != NULL;
	sq->slots = (uint8_t *)ring + sizeof(struct swroce_sq_ring);
	sq->num_wqe = r->sq_num_wqe;
	sq->wqe_stride = r->sq_wqe_stride;
	sq->prod = 0;
	sq->cons = 0;
	return 0;
}

static struct swroce_send_wqe *swr_sq_slot(struct swr_sq *sq, uint32_t idx)
{
	return (void *)(sq->slots +
			(size_t)(idx & (sq->num_wqe - 1)) * sq->wqe_stride);
}

/*
 * True when slot idx is still the kernel's. The acquire load orders the
 * kernel's copying-out of a slot before our next write to it.
 */
static bool swr_sq_full(struct swr_sq *sq, uint32_t idx)
{
	if (!sq->num_wqe)
		return true;	/* the QP has no send queue */
	if (idx - sq->cons < sq->num_wqe)
		return false;
	sq->cons = atomic_load_explicit(&sq->ring->cons.idx,
					memory_order_acquire);
	return idx - sq->cons >= sq->num_wqe;
}

/*
 * Publish the WQEs up to prod; under sq->lock. Returns the ring's flags
 * (enum swroce_sq_flags), 0 if nothing was published: NEED_WAKEUP says the
 * poller may be asleep (swr_sq_kick()). The full fence pairs with the
 * poller's between setting NEED_WAKEUP and its last look at prod.
 */
static uint32_t swr_sq_publish(struct swr_sq *sq, uint32_t prod)
{
	if (prod == sq->prod)
		return 0;
	sq->prod = prod;
	atomic_store_explicit(&sq->ring->prod.idx, prod, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&sq->ring->flags.idx,
				    memory_order_relaxed);
}

/*
 * The doorbell: SWROCE_METHOD_QP_DOORBELL where the kernel has it (one
 * ioctl with the QP's handle), else the post_send command with no work
 * requests.
 */
static int swr_sq_doorbell(struct swr_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct ib_uverbs_attr attr = {
		.attr_id = SWROCE_ATTR_QP_DOORBELL_HANDLE,
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = ibqp->handle,
	};
	struct ibv_send_wr *bad;

	if (!(to_swr_context(ibqp->context)->device_caps &
	      SWROCE_DEVICE_CAP_DOORBELL_METHOD))
		return ibv_cmd_post_send(ibqp, NULL, &bad);
	return swr_ioctl(ibqp->context, UVERBS_OBJECT_QP,
			 SWROCE_METHOD_QP_DOORBELL, &attr, 1);
}

/* Deferred doorbells (see the top of this file) ------------------------ */

/*
 * Before publishing slots [from, to): count their signaled WQEs into the
 * send CQ's sig_out. Returns whether their doorbell may be put off: none
 * is signaled, or signaled WQEs posted earlier are outstanding. Counted
 * before the kernel can see them, so that a completion is never polled
 * before its WQE was counted.
 */
static bool swr_sq_may_defer(struct swr_qp *qp, uint32_t from, uint32_t to)
{
	struct ibv_cq *ibcq = qp->vqp.qp.send_cq;
	int n = 0;

	if (!ibcq)
		return false;
	if (qp->sig_all)
		n = (int)(to - from);
	else
		for (; from != to; from++)
			if (swr_sq_slot(&qp->sq, from)->flags &
			    SWROCE_WQE_SIGNALED)
				n++;
	if (!n)
		return true;
	return atomic_fetch_add_explicit(&to_swr_cq(ibcq)->sig_out, n,
					 memory_order_relaxed) > 0;
}

static void swr_db_defer(struct swr_qp *qp)
{
	struct swr_context *ctx = to_swr_context(qp->vqp.qp.context);

	pthread_mutex_lock(&ctx->db_lock);
	if (!atomic_load_explicit(&qp->db_queued, memory_order_relaxed)) {
		atomic_store_explicit(&qp->db_queued, true,
				      memory_order_relaxed);
		qp->db_next = ctx->db_list;
		ctx->db_list = qp;
		atomic_store_explicit(&ctx->db_pending, 1,
				      memory_order_release);
	}
	pthread_mutex_unlock(&ctx->db_lock);
}

/*
 * A QP going away, or whose doorbell just rang (which takes the posts put
 * off with it), leaves the list.
 */
static void swr_db_forget(struct swr_qp *qp)
{
	struct swr_context *ctx = to_swr_context(qp->vqp.qp.context);
	struct swr_qp **pp;

	pthread_mutex_lock(&ctx->db_lock);
	for (pp = &ctx->db_list; *pp; pp = &(*pp)->db_next) {
		if (*pp == qp) {
			*pp = qp->db_next;
			break;
		}
	}
	atomic_store_explicit(&qp->db_queued, false, memory_order_relaxed);
	pthread_mutex_unlock(&ctx->db_lock);
}

/* After publishing: ring, put the doorbell off, or neither. */
static int swr_sq_kick(struct swr_qp *qp, uint32_t flags, bool may_defer)
{
	if (!(flags & SWROCE_SQ_NEED_WAKEUP))
		return 0;
	if ((flags & SWROCE_SQ_LAZY) && may_defer) {
		swr_db_defer(qp);
		return 0;
	}
	/* A hint read without the lock: at worst one needless call later. */
	if (atomic_load_explicit(&qp->db_queued, memory_order_relaxed))
		swr_db_forget(qp);
	return swr_sq_doorbell(qp);
}

/*
 * Ring every doorbell put off: the application is about to look for a
 * completion. A failed call loses nothing: the poller's bounded sleep
 * finds the WQEs in the ring.
 */
void swr_db_flush(struct swr_context *ctx)
{
	struct swr_qp *qp;

	if (!atomic_load_explicit(&ctx->db_pending, memory_order_acquire))
		return;
	pthread_mutex_lock(&ctx->db_lock);
	atomic_store_explicit(&ctx->db_pending, 0, memory_order_relaxed);
	while ((qp = ctx->db_list)) {
		ctx->db_list = qp->db_next;
		atomic_store_explicit(&qp->db_queued, false,
				      memory_order_relaxed);
		swr_sq_doorbell(qp);
	}
	pthread_mutex_unlock(&ctx->db_lock);
}

/*
 * Completions of @ibcq a QP will never make (destroyed, or reset with its
 * CQEs dropped): forget every count, which can only defer less.
 */
static void swr_db_cq_reset(struct ibv_cq *ibcq)
{
	if (ibcq)
		atomic_store_explicit(&to_swr_cq(ibcq)->sig_out, 0,
				      memory_order_relaxed);
}

/* Building WQEs -------------------------------------------------------- */

static uint8_t swr_wqe_flags(unsigned int send_flags)
{
	uint8_t flags = 0;

	if (send_flags & IBV_SEND_SIGNALED)
		flags |= SWROCE_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		flags |= SWROCE_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		flags |= SWROCE_WQE_FENCE;
	return flags;
}

static void swr_wqe_init(struct swroce_send_wqe *wqe, uint64_t wr_id,
			 uint8_t opcode, uint8_t flags)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->flags = flags;
}

static void swr_wqe_bind(struct swroce_send_wqe *wqe, struct ibv_mw *mw,
			 uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	wqe->bind.addr = info->addr;
	wqe->bind.length = info->length;
	wqe->bind.mw_rkey = mw->rkey;
	wqe->bind.new_rkey = rkey;
	wqe->bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->bind.access = info->mw_access_flags;
}

static void swr_wqe_sges(struct swroce_send_wqe *wqe,
			 const struct ibv_sge *sg, size_t num_sge)
{
	struct swroce_sge *sge = (struct swroce_sge *)(wqe + 1);
	size_t i;

	for (i = 0; i < num_sge; i++) {
		sge[i].addr = sg[i].addr;
		sge[i].length = sg[i].length;
		sge[i].lkey = sg[i].lkey;
	}
	wqe->num_sge = num_sge;
	wqe->inline_len = 0;
	wqe->flags &= ~SWROCE_WQE_INLINE;
}

/* Inline data from the buffers an ibv_send_wr's SGEs name; length checked. */
static void swr_wqe_inline_sges(struct swroce_send_wqe *wqe,
				const struct ibv_sge *sg, int num_sge,
				uint32_t len)
{
	uint8_t *p = (uint8_t *)(wqe + 1);
	int i;

	for (i = 0; i < num_sge; i++) {
		memcpy(p, (void *)(uintptr_t)sg[i].addr, sg[i].length);
		p += sg[i].length;
	}
	wqe->num_sge = 0;
	wqe->inline_len = len;
	wqe->flags |= SWROCE_WQE_INLINE;
}

/* Write one ibv_send_wr into slot idx; 0 or an errno value. */
static int swr_post_one(struct swr_qp *qp, struct ibv_send_wr *wr,
			uint32_t idx)
{
	struct swr_sq *sq = &qp->sq;
	struct swroce_send_wqe *wqe;
	uint64_t len = 0;
	bool inl;
	int i;

	/* ATOMIC_WRITE has no ibv_send_wr field for its data: ibv_wr_*(). */
	if ((unsigned int)wr->opcode >= 32 ||
	    (SWR_OPS_ATOMIC_WRITE & (1u << wr->opcode)) ||
	    !(qp->ops & (1u << wr->opcode)))
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > sq->max_sge)
		return EINVAL;
	inl = (wr->send_flags & IBV_SEND_INLINE) &&
	      (SWR_OPS_INLINE & (1u << wr->opcode));
	if (inl) {
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > sq->max_inline)
			return EINVAL;
	}
	switch (wr->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (wr->wr.atomic.remote_addr & 7)
			return EINVAL;
		break;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw)
			return EINVAL;
		break;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
			return EINVAL;
		break;
	default:
		break;
	}
	if (swr_sq_full(sq, idx))
		return ENOMEM;

	wqe = swr_sq_slot(sq, idx);
	swr_wqe_init(wqe, wr->wr_id, wr->opcode,
		     swr_wqe_flags(wr->send_flags));
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		wqe->rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->atomic.swap = wr->wr.atomic.swap;
		wqe->atomic.rkey = wr->wr.atomic.rkey;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->ex = wr->invalidate_rkey;
		break;
	case IBV_WR_BIND_MW:
		swr_wqe_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
			     &wr->bind_mw.bind_info);
		break;
	default:	/* IBV_WR_SEND, IBV_WR_SEND_WITH_IMM */
		if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
			wqe->ud.ahn = to_swr_ah(wr->wr.ud.ah)->ahn;
			wqe->ud.remote_qpn = wr->wr.ud.remote_qpn;
			wqe->ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		break;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		wqe->xrc_srqn = wr->qp_type.xrc.remote_srqn;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wqe->ex = wr->imm_data;
	if (!(SWR_OPS_DATA & (1u << wr->opcode)))
		return 0;
	if (inl)
		swr_wqe_inline_sges(wqe, wr->sg_list, wr->num_sge, len);
	else
		swr_wqe_sges(wqe, wr->sg_list, wr->num_sge);
	return 0;
}

int swr_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct swr_qp *qp = to_swr_qp(ibqp);
	struct swr_sq *sq = &qp->sq;
	bool may_defer;
	uint32_t idx, flags;
	int err = 0;

	if (!swr_qp_may_send(ibqp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	swr_sq_lock(sq);
	for (idx = sq->prod; wr; wr = wr->next, idx++) {
		err = swr_post_one(qp, wr, idx);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	may_defer = swr_sq_may_defer(qp, sq->prod, idx);
	flags = swr_sq_publish(sq, idx);
	swr_sq_unlock(sq);
	if (flags) {
		int db_err = swr_sq_kick(qp, flags, may_defer);

		if (db_err && !err) {
			/* The WRs are in the ring; the poller may never see them. */
			*bad_wr = NULL;
			err = db_err;
		}
	}
	return err;
}

int swr_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct swr_qp *qp = to_swr_qp(ibqp);
	int err, db_err;

	if (ibqp->state == IBV_QPS_RESET || ibqp->srq ||
	    ibqp->qp_type == IBV_QPT_XRC_SEND ||
	    ibqp->qp_type == IBV_QPT_XRC_RECV) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (!qp->rq.num_wqe) {
		*bad_wr = wr;
		return ENOMEM;
	}
	err = swr_wq_post_recv(&qp->rq, wr, bad_wr);
	/*
	 * In the error state the poller flushes what we post: the same
	 * NEED_WAKEUP protocol as the send queue (the poller rechecks the
	 * receive queue of a QP in error before it sleeps).
	 */
	if (ibqp->state == IBV_QPS_ERR) {
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(&qp->sq.ring->flags.idx,
					 memory_order_relaxed) &
		    SWROCE_SQ_NEED_WAKEUP) {
			db_err = swr_sq_doorbell(qp);
			if (db_err && !err) {
				*bad_wr = NULL;
				err = db_err;
			}
		}
	}
	return err;
}

/* The ibv_wr_*() API (struct ibv_qp_ex) --------------------------------- */

/*
 * The builders (wr_send() ...) each take the next slot; the setters
 * (wr_set_*()) complete the WQE the last builder started. Nothing is
 * published before wr_complete(); an error fails the whole batch there.
 */
static struct swroce_send_wqe *swr_wr_new(struct ibv_qp_ex *ibqpx,
					  uint8_t opcode)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);
	struct swroce_send_wqe *wqe;

	qp->wqe = NULL;
	if (qp->err)
		return NULL;
	if (swr_sq_full(&qp->sq, qp->cur)) {
		qp->err = ENOMEM;
		return NULL;
	}
	wqe = swr_sq_slot(&qp->sq, qp->cur++);
	swr_wqe_init(wqe, ibqpx->wr_id, opcode, swr_wqe_flags(ibqpx->wr_flags));
	qp->wqe = wqe;
	return wqe;
}

static void swr_wr_send(struct ibv_qp_ex *ibqpx)
{
	swr_wr_new(ibqpx, SWROCE_WR_SEND);
}

static void swr_wr_send_imm(struct ibv_qp_ex *ibqpx, __be32 imm_data)
{
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx,
						 SWROCE_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->ex = imm_data;
}

static void swr_wr_send_inv(struct ibv_qp_ex *ibqpx, uint32_t invalidate_rkey)
{
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx,
						 SWROCE_WR_SEND_WITH_INV);

	if (wqe)
		wqe->ex = invalidate_rkey;
}

static void swr_wr_rdma(struct ibv_qp_ex *ibqpx, uint8_t opcode,
			uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx, opcode);

	if (!wqe)
		return;
	wqe->ex = imm_data;
	wqe->rdma.remote_addr = remote_addr;
	wqe->rdma.rkey = rkey;
}

static void swr_wr_rdma_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	swr_wr_rdma(ibqpx, SWROCE_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void swr_wr_rdma_write_imm(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	swr_wr_rdma(ibqpx, SWROCE_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		    imm_data);
}

static void swr_wr_rdma_read(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	swr_wr_rdma(ibqpx, SWROCE_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void swr_wr_atomic(struct ibv_qp_ex *ibqpx, uint8_t opcode,
			  uint32_t rkey, uint64_t remote_addr,
			  uint64_t compare_add, uint64_t swap)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx, opcode);

	if (!wqe)
		return;
	if (remote_addr & 7) {
		qp->err = EINVAL;
		qp->wqe = NULL;
		return;
	}
	wqe->atomic.remote_addr = remote_addr;
	wqe->atomic.compare_add = compare_add;
	wqe->atomic.swap = swap;
	wqe->atomic.rkey = rkey;
}

static void swr_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	swr_wr_atomic(ibqpx, SWROCE_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		      compare, swap);
}

static void swr_wr_atomic_fetch_add(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	swr_wr_atomic(ibqpx, SWROCE_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
		      add, 0);
}

#if SWR_HAVE_ATOMIC_WRITE
/* The 8 bytes travel as they are in memory (compare_add, memcpy'd). */
static void swr_wr_atomic_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				uint64_t remote_addr, const void *atomic_wr)
{
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx,
						 SWROCE_WR_ATOMIC_WRITE);

	if (!wqe)
		return;
	wqe->atomic.remote_addr = remote_addr;
	memcpy(&wqe->atomic.compare_add, atomic_wr, 8);
	wqe->atomic.rkey = rkey;
}
#endif

static void swr_wr_local_inv(struct ibv_qp_ex *ibqpx, uint32_t invalidate_rkey)
{
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx, SWROCE_WR_LOCAL_INV);

	if (wqe)
		wqe->ex = invalidate_rkey;
	/* no data: the setters must not touch it */
	ex_to_swr_qp(ibqpx)->wqe = NULL;
}

static void swr_wr_bind_mw(struct ibv_qp_ex *ibqpx, struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct swroce_send_wqe *wqe = swr_wr_new(ibqpx, SWROCE_WR_BIND_MW);

	if (wqe)
		swr_wqe_bind(wqe, mw, rkey, info);
	ex_to_swr_qp(ibqpx)->wqe = NULL;
}

static void swr_wr_set_sge(struct ibv_qp_ex *ibqpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	if (!qp->wqe)
		return;
	/* A zero-length buffer is no buffer: nothing to check a key for. */
	swr_wqe_sges(qp->wqe, &sge, length ? 1 : 0);
}

static void swr_wr_set_sge_list(struct ibv_qp_ex *ibqpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);

	if (!qp->wqe)
		return;
	if (num_sge > qp->sq.max_sge) {
		qp->err = EINVAL;
		qp->wqe = NULL;
		return;
	}
	swr_wqe_sges(qp->wqe, sg_list, num_sge);
}

static void swr_wr_set_inline_data_list(struct ibv_qp_ex *ibqpx,
					size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);
	struct swroce_send_wqe *wqe = qp->wqe;
	uint8_t *p;
	size_t len = 0, i;

	if (!wqe)
		return;
	for (i = 0; i < num_buf; i++) {
		len += buf_list[i].length;
		if (len > qp->sq.max_inline) {
			qp->err = EINVAL;
			qp->wqe = NULL;
			return;
		}
	}
	p = (uint8_t *)(wqe + 1);
	for (i = 0; i < num_buf; i++) {
		memcpy(p, buf_list[i].addr, buf_list[i].length);
		p += buf_list[i].length;
	}
	wqe->num_sge = 0;
	wqe->inline_len = len;
	wqe->flags |= SWROCE_WQE_INLINE;
}

static void swr_wr_set_inline_data(struct ibv_qp_ex *ibqpx, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	swr_wr_set_inline_data_list(ibqpx, 1, &buf);
}

static void swr_wr_set_ud_addr(struct ibv_qp_ex *ibqpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);

	if (!qp->wqe || qp->vqp.qp.qp_type != IBV_QPT_UD)
		return;
	if (!ah) {
		qp->err = EINVAL;
		qp->wqe = NULL;
		return;
	}
	qp->wqe->ud.ahn = to_swr_ah(ah)->ahn;
	qp->wqe->ud.remote_qpn = remote_qpn;
	qp->wqe->ud.remote_qkey = remote_qkey;
}

static void swr_wr_set_xrc_srqn(struct ibv_qp_ex *ibqpx, uint32_t remote_srqn)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);

	if (qp->wqe && qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		qp->wqe->xrc_srqn = remote_srqn;
}

static void swr_wr_start(struct ibv_qp_ex *ibqpx)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);

	swr_sq_lock(&qp->sq);
	qp->cur = qp->sq.prod;
	qp->wqe = NULL;
	qp->err = swr_qp_may_send(&qp->vqp.qp) ? 0 : EINVAL;
}

static int swr_wr_complete(struct ibv_qp_ex *ibqpx)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);
	bool may_defer = false;
	int err = qp->err;
	uint32_t flags = 0;

	if (!err) {
		may_defer = swr_sq_may_defer(qp, qp->sq.prod, qp->cur);
		flags = swr_sq_publish(&qp->sq, qp->cur);
	}
	qp->wqe = NULL;
	swr_sq_unlock(&qp->sq);
	if (flags)
		err = swr_sq_kick(qp, flags, may_defer);
	return err;
}

static void swr_wr_abort(struct ibv_qp_ex *ibqpx)
{
	struct swr_qp *qp = ex_to_swr_qp(ibqpx);

	qp->wqe = NULL;
	swr_sq_unlock(&qp->sq);
}

static void swr_qp_set_wr_ops(struct swr_qp *qp, uint64_t flags)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	if (flags & IBV_QP_EX_WITH_SEND)
		x->wr_send = swr_wr_send;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = swr_wr_send_imm;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = swr_wr_send_inv;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = swr_wr_rdma_write;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = swr_wr_rdma_write_imm;
	if (flags & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = swr_wr_rdma_read;
	if (flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = swr_wr_atomic_cmp_swp;
	if (flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = swr_wr_atomic_fetch_add;
#if SWR_HAVE_ATOMIC_WRITE
	if (flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		x->wr_atomic_write = swr_wr_atomic_write;
#endif
	if (flags & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = swr_wr_local_inv;
	if (flags & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = swr_wr_bind_mw;
	x->wr_set_sge = swr_wr_set_sge;
	x->wr_set_sge_list = swr_wr_set_sge_list;
	x->wr_set_inline_data = swr_wr_set_inline_data;
	x->wr_set_inline_data_list = swr_wr_set_inline_data_list;
	x->wr_set_ud_addr = swr_wr_set_ud_addr;
	x->wr_set_xrc_srqn = swr_wr_set_xrc_srqn;
	x->wr_start = swr_wr_start;
	x->wr_complete = swr_wr_complete;
	x->wr_abort = swr_wr_abort;
}

/* Create, modify, query, destroy ------------------------------------------ */

/* The opcodes @type may post; 0 for a type we do not offer. */
static uint32_t swr_qp_type_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SWR_OPS_RC;
	case IBV_QPT_UC:
		return SWR_OPS_UC;
	case IBV_QPT_UD:
		return SWR_OPS_UD;
	case IBV_QPT_XRC_SEND:
		return SWR_OPS_XRC;
	case IBV_QPT_RAW_PACKET:
		return SWR_OPS_RAW;
	default:
		return 0;	/* XRC_RECV sends nothing */
	}
}

static uint64_t swr_qp_type_wr_flags(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SWR_QPX_RC;
	case IBV_QPT_UC:
		return SWR_QPX_UC;
	case IBV_QPT_XRC_SEND:
		return SWR_QPX_XRC;
	case IBV_QPT_XRC_RECV:
		return 0;
	case IBV_QPT_RAW_PACKET:
		return SWR_QPX_RAW;
	default:
		return SWR_QPX_UD;
	}
}

static struct swr_qp *swr_qp_alloc(enum ibv_qp_type type)
{
	struct swr_qp *qp;
	int err;

	if (!swr_qp_type_ops(type) && type != IBV_QPT_XRC_RECV) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	err = pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->ops = swr_qp_type_ops(type);
	return qp;
}

static void swr_qp_free(struct swr_qp *qp)
{
	pthread_spin_destroy(&qp->sq.lock);
	free(qp);
}

/* A QP's rings from a parent's allocator (rb.addr NULL: the kernel's). */
struct swr_qp_rings {
	struct swr_ring_buf sq, rq;
};

/*
 * Ask the allocator of the parent @ibpd (if any) for the rings of a QP
 * with @cap (a receive ring if @has_rq), and name them in @cmd. 0 or an
 * errno.
 */
static int swr_qp_rings_alloc(struct ibv_pd *ibpd, const struct ibv_qp_cap *cap,
			      bool has_rq, struct swr_qp_rings *rings,
			      struct swroce_create_qp_cmd *cmd)
{
	int err;

	rings->rq.addr = NULL;
	err = swr_ring_buf_alloc(ibpd, swr_sq_ring_bytes(cap), SWROCE_RES_TYPE_QP,
				 &rings->sq);
	if (!err && has_rq)
		err = swr_ring_buf_alloc(ibpd,
					 swr_wq_ring_bytes(cap->max_recv_wr,
							   cap->max_recv_sge),
					 SWROCE_RES_TYPE_QP, &rings->rq);
	if (err) {
		if (rings->sq.addr)
			swr_ring_release(ibpd, rings->sq.addr, rings->sq.size,
					 true, SWROCE_RES_TYPE_QP);
		return err;
	}
	if (rings->sq.addr)
		cmd->comp_mask |= SWROCE_CREATE_QP_USER_SQ;
	if (rings->rq.addr)
		cmd->comp_mask |= SWROCE_CREATE_QP_USER_RQ;
	swr_ring_buf_cmd(&rings->sq, &cmd->sq);
	swr_ring_buf_cmd(&rings->rq, &cmd->rq);
	return 0;
}

/* The create failed: the allocator's rings go back. */
static void swr_qp_rings_free(struct ibv_pd *ibpd, struct swr_qp_rings *rings)
{
	if (rings->sq.addr)
		swr_ring_release(ibpd, rings->sq.addr, rings->sq.size, true,
				 SWROCE_RES_TYPE_QP);
	if (rings->rq.addr)
		swr_ring_release(ibpd, rings->rq.addr, rings->rq.size, true,
				 SWROCE_RES_TYPE_QP);
}

/*
 * Take the rings the kernel described; 0 or an errno value. On failure
 * nothing of the allocator's is freed (the caller does, after destroy).
 */
static int swr_qp_map(struct swr_qp *qp, int cmd_fd,
		      const struct swroce_create_qp_resp *r,
		      const struct ibv_qp_cap *cap, bool has_srq,
		      const struct swr_qp_rings *rings)
{
	uint32_t max_sge;
	int err;

	err = swr_sq_map(&qp->sq, cmd_fd, r, cap, &rings->sq);
	if (err)
		return err;
	if (has_srq || (!rings->rq.addr && !r->rq_mmap_size))
		return 0;	/* no receive queue of its own */
	max_sge = r->rq_max_sge < cap->max_recv_sge ? r->rq_max_sge :
						      cap->max_recv_sge;
	err = swr_wq_map(&qp->rq, cmd_fd, r->rq_num_wqe, r->rq_wqe_stride,
			 max_sge, r->rq_mmap_offset, r->rq_mmap_size,
			 &rings->rq);
	if (err) {
		if (qp->sq.num_wqe && !qp->sq.user_ring)
			munmap(qp->sq.ring, qp->sq.map_size);
		qp->sq.num_wqe = 0;
		qp->rq.num_wqe = 0;
	}
	return err;
}

/* After destroy: the rings go back to where they came from. */
static void swr_qp_unmap(struct swr_qp *qp)
{
	struct ibv_pd *ibpd = qp->vqp.qp.pd;

	if (qp->rq.num_wqe)
		swr_wq_unmap(&qp->rq, ibpd, SWROCE_RES_TYPE_QP);
	if (qp->sq.num_wqe)
		swr_ring_release(ibpd, qp->sq.ring, qp->sq.map_size,
				 qp->sq.user_ring, SWROCE_RES_TYPE_QP);
}

/* Created through a parent domain: counted there, lock-free with a TD. */
static void swr_qp_bind_parent(struct swr_qp *qp, struct ibv_pd *ibpd)
{
	if (swr_parent_get(ibpd)) {
		qp->sq.single_threaded = true;
		qp->rq.single_threaded = true;
	}
}

static struct ibv_qp *swr_create_xrc_send(struct ibv_pd *ibpd,
					  struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = ibpd,
	};
	struct ibv_qp *qp = swr_create_qp_ex(ibpd->context, &ax);

	if (qp)
		attr->cap = ax.cap;
	return qp;
}

struct ibv_qp *swr_create_qp(struct ibv_pd *ibpd,
			     struct ibv_qp_init_attr *attr)
{
	struct swr_create_qp_cmd cmd = {};
	struct swr_create_qp_cmd_resp resp = {};
	struct swr_qp_rings rings;
	struct swr_qp *qp;
	int err;

	/*
	 * ibv_create_qp_ex() with only a PD comes here: an XRC_SEND QP has
	 * no receive side, which the extended path knows. An XRC_RECV QP
	 * needs a domain, which this verb cannot name.
	 */
	if (attr->qp_type == IBV_QPT_XRC_SEND)
		return swr_create_xrc_send(ibpd, attr);
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = swr_qp_alloc(attr->qp_type);
	if (!qp)
		return NULL;
	err = swr_qp_rings_alloc(ibpd, &attr->cap, !attr->srq, &rings,
				 &cmd.drv_payload);
	if (err)
		goto err_free;
	err = ibv_cmd_create_qp(ibpd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free_rings;
	err = swr_qp_map(qp, ibpd->context->cmd_fd, &resp.drv_payload,
			 &attr->cap, attr->srq, &rings);
	if (err)
		goto err_destroy;
	swr_qp_bind_parent(qp, ibpd);
	qp->sig_all = attr->sq_sig_all;
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free_rings:
	swr_qp_rings_free(ibpd, &rings);
err_free:
	swr_qp_free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *swr_create_qp_ex(struct ibv_context *ibctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct swr_create_qp_ex_cmd cmd = {};
	struct swr_create_qp_ex_cmd_resp resp = {};
	bool ringless = attr->qp_type == IBV_QPT_XRC_RECV ||
			(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE);
	struct swr_qp_rings rings;
	struct swr_qp *qp;
	int err;

	if ((attr->comp_mask & ~(uint32_t)SWR_QPX_COMP_MASK) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	     (attr->send_ops_flags &
	      ~swr_qp_type_wr_flags(attr->qp_type)))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* XRC_RECV: a domain and nothing else; every other type: a PD. */
	if (attr->qp_type == IBV_QPT_XRC_RECV ?
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) :
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD)) {
		errno = EINVAL;
		return NULL;
	}
	err = swr_rss_cmd(&cmd.drv_payload, attr);
	if (err) {
		errno = err;
		return NULL;
	}
	qp = swr_qp_alloc(attr->qp_type);
	if (!qp)
		return NULL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		swr_qp_set_wr_ops(qp, attr->send_ops_flags);

	/*
	 * An XRC_RECV QP and an RSS QP (its WQs receive) have no rings; an
	 * XRC_SEND QP no receive ring.
	 */
	memset(&rings, 0, sizeof(rings));
	err = 0;
	if (!ringless)
		err = swr_qp_rings_alloc(attr->pd, &attr->cap,
					 !attr->srq &&
					 attr->qp_type != IBV_QPT_XRC_SEND,
					 &rings, &cmd.drv_payload);
	if (err)
		goto err_free;
	err = swr_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free_rings;
	/* The kernel gives these no rings (an XRC_RECV QP no driver data). */
	if (!ringless) {
		err = swr_qp_map(qp, ibctx->cmd_fd, &resp.drv_payload,
				 &attr->cap, attr->srq, &rings);
		if (err)
			goto err_destroy;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= VERBS_QP_EX;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_PD)
		swr_qp_bind_parent(qp, attr->pd);
	qp->sig_all = attr->sq_sig_all;
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free_rings:
	swr_qp_rings_free(attr->pd, &rings);
err_free:
	swr_qp_free(qp);
	errno = err;
	return NULL;
}

/*
 * Drop @qpn's completions from @cq (libmlx5's mlx5_cq_clean): a QP moved
 * to RESET leaves none behind. The kernel only writes slots at and after
 * the ring's prod, so the survivors move towards prod, newest first, and
 * our consumer index moves up past the holes.
 */
void swr_cq_clean(struct swr_cq *cq, uint32_t qpn)
{
	uint32_t prod, i, dst, mask;

	pthread_spin_lock(&cq->lock);
	if (!cq->num_cqe)
		goto out;
	mask = cq->num_cqe - 1;
	prod = atomic_load_explicit(&cq->ring->prod.idx, memory_order_acquire);
	dst = prod;
	for (i = prod; i != cq->cons; i--) {
		struct swroce_cqe *cqe = &cq->ring->cqe[(i - 1) & mask];

		if (cqe->qp_num == qpn)
			continue;
		dst--;
		if (dst != i - 1)
			cq->ring->cqe[dst & mask] = *cqe;
	}
	if (dst != cq->cons) {
		cq->cons = dst;
		cq->prod = prod;
		atomic_store_explicit(&cq->ring->cons.idx, cq->cons,
				      memory_order_release);
	}
out:
	pthread_spin_unlock(&cq->lock);
}

/*
 * ibv_open_qp(): another handle on an XRC_RECV QP of the domain, from any
 * process that opened it. Like the QP it opens, it has no rings.
 */
struct ibv_qp *swr_open_qp(struct ibv_context *ibctx,
			   struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct swr_qp *qp;
	int err;

	if (attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = swr_qp_alloc(attr->qp_type);
	if (!qp)
		return NULL;
	err = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		swr_qp_free(qp);
		errno = err;
		return NULL;
	}
	return &qp->vqp.qp;
}

int swr_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err || !(attr_mask & IBV_QP_STATE) ||
	    attr->qp_state != IBV_QPS_RESET)
		return err;
	if (ibqp->recv_cq)
		swr_cq_clean(to_swr_cq(ibqp->recv_cq), ibqp->qp_num);
	if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
		swr_cq_clean(to_swr_cq(ibqp->send_cq), ibqp->qp_num);
	/* Its completions may be gone: the count with them. */
	swr_db_cq_reset(ibqp->send_cq);
	return 0;
}

int swr_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int swr_destroy_qp(struct ibv_qp *ibqp)
{
	struct swr_qp *qp = to_swr_qp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	swr_db_forget(qp);
	swr_db_cq_reset(ibqp->send_cq);
	swr_qp_unmap(qp);
	if (ibqp->qp_type != IBV_QPT_XRC_RECV)
		swr_parent_put(ibqp->pd);
	swr_qp_free(qp);
	return 0;
}

/*
 * Flow steering (raw packet QPs): the kernel parses and keeps the specs;
 * the provider has nothing of its own to add (no driver command data).
 */
struct ibv_flow *swr_create_flow(struct ibv_qp *ibqp,
				 struct ibv_flow_attr *attr)
{
	struct ibv_flow *flow;
	int err;

	flow = calloc(1, sizeof(*flow));
	if (!flow)
		return NULL;
	err = ibv_cmd_create_flow(ibqp, flow, attr, NULL, 0);
	if (err) {
		free(flow);
		errno = err;
		return NULL;
	}
	return flow;
}

int swr_destroy_flow(struct ibv_flow *flow)
{
	int err;

	err = ibv_cmd_destroy_flow(flow);
	if (err)
		return err;
	free(flow);
	return 0;
}
