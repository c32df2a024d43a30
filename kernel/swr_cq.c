// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues.
 *
 * A CQ is a ring of struct swroce_cqe behind a struct swroce_cq_ring header
 * (include/uapi/rdma/swroce-abi.h states the ordering rules). For a user
 * CQ the ring is mapped into the process, which polls and arms it without
 * a system call; the kernel is the only producer. Everything user space
 * can write in the ring (cons, arm, even the CQEs) is read by the kernel
 * at most once per use and validated: a bad value can only lose that
 * process its own completions.
 */
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include "swr.h"
#include "swr_qp.h"
#include "swr_trace.h"
#include "swr_udata.h"

static size_t swr_cq_ring_bytes(u32 num_cqe)
{
	return sizeof(struct swroce_cq_ring) +
	       (size_t)num_cqe * sizeof(struct swroce_cqe);
}

/* Ring slots for a request of @cqe entries, or 0 if out of range. */
static u32 swr_cq_slots(int cqe)
{
	if (cqe < 1 || cqe > SWR_MAX_CQE)
		return 0;
	return roundup_pow_of_two(cqe);
}

/* The response of create and resize: where the (new) ring is. */
static int swr_cq_put_ring(struct swr_cq *cq, struct ib_udata *udata)
{
	struct swroce_create_cq_resp resp = {
		.num_cqe = cq->num_cqe,
		.mmap_offset = swr_ring_mmap_offset(cq->mem),
		.mmap_size = swr_ring_mmap_size(cq->mem),
	};

	BUILD_BUG_ON(sizeof(struct swroce_create_cq_resp) !=
		     sizeof(struct swroce_resize_cq_resp));
	return swr_udata_put_resp(udata, &resp, sizeof(resp));
}

/*
 * The checks create and resize share: the size, and a provider that can
 * take the ring's location (it cannot use the CQ otherwise). Returns the
 * ring slots and the user context owning the ring (NULL for the kernel).
 */
static int swr_cq_check(struct ib_device *ibdev, int cqe,
			struct ib_udata *udata, u32 *slots,
			struct ib_ucontext **uctx)
{
	*slots = swr_cq_slots(cqe);
	if (!*slots) {
		ibdev_dbg(ibdev, "cq: %d entries\n", cqe);
		return -EINVAL;
	}
	*uctx = NULL;
	if (!udata)
		return 0;
	if (udata->outlen < offsetofend(struct swroce_create_cq_resp,
					mmap_size)) {
		ibdev_dbg(ibdev, "cq: response of %zu bytes too short\n",
			  udata->outlen);
		return -EINVAL;
	}
	*uctx = swr_udata_uctx(udata);
	return 0;
}

/* Create's optional command: a ring in user memory, or NULL in @user. */
static int swr_cq_get_cmd(struct ib_device *ibdev, struct ib_udata *udata,
			  struct swroce_create_cq_cmd *cmd,
			  const struct swroce_user_ring **user)
{
	int err;

	*user = NULL;
	if (!udata)
		return 0;
	err = swr_udata_get_cmd(ibdev, udata, cmd, sizeof(*cmd), 0);
	return err ?: swr_udata_one_ring(ibdev, udata, cmd->comp_mask,
					 cmd->reserved_0,
					 SWROCE_CREATE_CQ_USER_RING,
					 &cmd->ring, user);
}

int swr_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct ib_device *ibdev = ibcq->device;
	struct swr_cq *cq = to_swr_cq(ibcq);
	const struct swroce_user_ring *user;
	struct swroce_create_cq_cmd cmd;
	struct ib_ucontext *uctx;
	int err;

	if (attr->flags) {
		ibdev_dbg(ibdev, "create_cq: flags %#x not supported\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	err = swr_cq_get_cmd(ibdev, udata, &cmd, &user);
	if (err)
		return err;
	err = swr_cq_check(ibdev, attr->cqe, udata, &cq->num_cqe, &uctx);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->ring = swr_ring_alloc(uctx, swr_cq_ring_bytes(cq->num_cqe), user,
				  &cq->mem);
	if (IS_ERR(cq->ring))
		return PTR_ERR(cq->ring);
	ibcq->cqe = cq->num_cqe;

	if (udata) {
		err = swr_cq_put_ring(cq, udata);
		if (err)
			goto err_free_ring;
	}
	return 0;

err_free_ring:
	swr_ring_free(cq->ring, cq->mem);
	return err;
}

int swr_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct swr_cq *cq = to_swr_cq(ibcq);

	/* The core destroys a CQ only once no QP or SRQ uses it. */
	swr_ring_free(cq->ring, cq->mem);
	mutex_destroy(&cq->resize_mutex);
	return 0;
}

/* Could the poller still add completions to @cq for work posted so far? */
static bool swr_cq_busy(struct swr_cq *cq)
{
	struct swr_poller *p = to_swr_dev(cq->ibcq.device)->poller;
	u64 now = ktime_get_ns();
	struct swr_qp *qp;
	bool busy;

	spin_lock_bh(&p->lock);
	busy = p->cur && (p->cur->scq == cq || p->cur->rcq == cq);
	/* Any QP: a send on one completes a receive on another. */
	list_for_each_entry(qp, &p->qps, poll_node) {
		if (busy)
			break;
		busy = swr_req_has_work(qp, now);
	}
	spin_unlock_bh(&p->lock);
	return busy;
}

/*
 * Work requests complete asynchronously, in the poller. By the time
 * software calls resize after posting, a device has normally completed
 * them, and applications (rdma-core's test_resize_cq) count on the
 * completions being in the ring: give the poller up to ~100 ms to catch
 * up before counting them.
 */
static void swr_cq_settle(struct swr_cq *cq)
{
	struct swr_dev *sdev = to_swr_dev(cq->ibcq.device);
	int i;

	for (i = 0; i < 500 && swr_cq_busy(cq); i++) {
		swr_poll_kick(sdev);
		usleep_range(100, 200);
	}
}

/*
 * Move the completions user space has not consumed into @new_ring of
 * @slots entries and make it (its handle @new_mem) the CQ's ring;
 * under cq->lock. Refused
 * (EINVAL) when they would not fit, or when the consumer index user space
 * left in the ring is not within the outstanding range.
 */
static int swr_cq_swap_ring(struct swr_cq *cq, struct swroce_cq_ring *new_ring,
			    struct swr_ring_mem *new_mem, u32 slots)
{
	struct ib_device *ibdev = cq->ibcq.device;
	u32 cons, used, i;

	cons = READ_ONCE(cq->ring->cons.idx);
	used = cq->prod - cons;
	if (used > cq->num_cqe || used > slots) {
		if (used > cq->num_cqe)
			swr_count(to_swr_dev(ibdev), SWR_CNT_RING_INDEX_BAD);
		ibdev_dbg(ibdev, "resize_cq: %u outstanding, %u slots\n",
			  used, slots);
		return -EINVAL;
	}
	for (i = 0; i < used; i++)
		new_ring->cqe[i] = cq->ring->cqe[(cons + i) & (cq->num_cqe - 1)];
	new_ring->arm.idx = READ_ONCE(cq->ring->arm.idx);
	new_ring->status.idx = cq->ring->status.idx;
	new_ring->prod.idx = used;

	cq->ring = new_ring;
	cq->mem = new_mem;
	cq->num_cqe = slots;
	cq->prod = used;
	cq->ibcq.cqe = slots;
	return 0;
}

/*
 * Replace the ring by one of @cqe entries, carrying over the completions
 * user space has not consumed yet (swr_cq_swap_ring()). The core holds
 * only a read lock on the CQ's uobject, so resizes of one CQ may run
 * concurrently: resize_mutex makes each one, up to the response naming
 * its ring, a unit. Otherwise a resize could report the ring of another
 * one, or read an mmap entry that the other has already freed. The new
 * ring is always the kernel's: a ring in user memory (a parent domain's
 * allocator) is released here, and the provider maps the new one.
 */
int swr_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	struct swr_ring_mem *new_mem, *old_mem;
	struct swroce_cq_ring *new_ring, *old_ring;
	struct ib_ucontext *uctx;
	unsigned long flags;
	u32 slots;
	int err;

	if (udata) {
		err = swr_udata_no_cmd(ibcq->device, udata);
		if (err)
			return err;
	}
	err = swr_cq_check(ibcq->device, cqe, udata, &slots, &uctx);
	if (err)
		return err;

	mutex_lock(&cq->resize_mutex);
	new_ring = swr_ring_alloc(uctx, swr_cq_ring_bytes(slots), NULL,
				  &new_mem);
	if (IS_ERR(new_ring)) {
		err = PTR_ERR(new_ring);
		goto out_unlock;
	}
	swr_cq_settle(cq);

	spin_lock_irqsave(&cq->lock, flags);
	old_ring = cq->ring;
	old_mem = cq->mem;
	err = swr_cq_swap_ring(cq, new_ring, new_mem, slots);
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err) {
		swr_ring_free(new_ring, new_mem);
		goto out_unlock;
	}

	swr_ring_free(old_ring, old_mem);
	if (udata)
		err = swr_cq_put_ring(cq, udata);
out_unlock:
	mutex_unlock(&cq->resize_mutex);
	return err;
}

/* Raise IB_EVENT_CQ_ERR (no locks held). */
static void swr_cq_err_event(struct swr_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * The producer side of the protocol in struct swroce_cq_ring. The CQE's
 * timestamp is CLOCK_MONOTONIC_RAW in ns (ktime_get_raw_ns()), which
 * query_device announces as a 1 GHz clock.
 */
int swr_cq_post(struct swr_cq *cq, const struct swroce_cqe *cqe,
		bool solicited)
{
	struct swr_dev *sdev = to_swr_dev(cq->ibcq.device);
	struct swroce_cqe *slot;
	bool fire = false;
	unsigned long flags;
	u32 cons, used, arm, seq;

	solicited = solicited || cqe->status != IB_WC_SUCCESS;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	cons = READ_ONCE(cq->ring->cons.idx);
	used = cq->prod - cons;
	if (used >= cq->num_cqe) {
		/* Full, or a consumer index that was never ours to give. */
		if (used > cq->num_cqe)
			swr_count(sdev, SWR_CNT_RING_INDEX_BAD);
		cq->overflow = true;
		WRITE_ONCE(cq->ring->status.idx,
			   cq->ring->status.idx | SWROCE_CQ_STATUS_OVERFLOW);
		spin_unlock_irqrestore(&cq->lock, flags);
		swr_count(sdev, SWR_CNT_CQ_OVERFLOW);
		trace_swr_cq_overflow(cq, used);
		ibdev_dbg(cq->ibcq.device, "cq: overflow (%u used, %u slots)\n",
			  used, cq->num_cqe);
		swr_cq_err_event(cq);
		return -ENOSPC;
	}

	slot = &cq->ring->cqe[cq->prod & (cq->num_cqe - 1)];
	*slot = *cqe;
	slot->timestamp = ktime_get_raw_ns();
	cq->prod++;
	/* The CQE before prod; pairs with the consumer's acquire load. */
	smp_store_release(&cq->ring->prod.idx, cq->prod);
	/* prod before arm; pairs with the consumer's fence after arming. */
	smp_mb();
	arm = READ_ONCE(cq->ring->arm.idx);
	seq = arm >> SWROCE_CQ_ARM_SEQ_SHIFT;
	switch (arm & SWROCE_CQ_ARM_KIND_MASK) {
	case SWROCE_CQ_ARM_NEXT:
		fire = seq != cq->fired_seq;
		break;
	case SWROCE_CQ_ARM_SOLICITED:
		fire = solicited && seq != cq->fired_seq;
		break;
	default:
		break;
	}
	if (fire)
		cq->fired_seq = seq;
	spin_unlock_irqrestore(&cq->lock, flags);

	/* SWR_CNT_COMPLETIONS: the caller counts it for the QP. */
	if (fire && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

/* Kernel consumers ------------------------------------------------------ */

static enum ib_wc_opcode swr_wc_opcode(u8 op)
{
	switch (op) {
	case SWR_WC_SEND:
		return IB_WC_SEND;
	case SWR_WC_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case SWR_WC_RDMA_READ:
		return IB_WC_RDMA_READ;
	case SWR_WC_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case SWR_WC_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case SWR_WC_BIND_MW:
		return IB_WC_BIND_MW;
	case SWR_WC_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SWR_WC_REG_MR:
		return IB_WC_REG_MR;
	case SWR_WC_RECV_RDMA_WITH_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	case SWR_WC_RECV:
	default:
		/* ATOMIC_WRITE: kernel consumers cannot post one. */
		return IB_WC_RECV;
	}
}

static void swr_cqe_to_ib_wc(const struct swroce_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = swr_wc_opcode(cqe->opcode);
	wc->byte_len = cqe->byte_len;
	wc->src_qp = cqe->src_qp;
	wc->sl = cqe->sl;
	wc->port_num = SWR_PORT_NUM;
	if (cqe->flags & SWROCE_CQE_WITH_IMM) {
		wc->ex.imm_data = (__force __be32)cqe->ex_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->flags & SWROCE_CQE_WITH_INV) {
		wc->ex.invalidate_rkey = cqe->ex_data;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (cqe->flags & SWROCE_CQE_GRH) {
		/* The engine put the network type in ex_data2. */
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = cqe->ex_data2 & SWR_KCQE_NET_MASK;
		if (cqe->ex_data2 & SWR_KCQE_VLAN_VALID) {
			wc->wc_flags |= IB_WC_WITH_VLAN;
			wc->vlan_id = cqe->ex_data2 >> SWR_KCQE_VLAN_SHIFT;
		}
	}
}

/*
 * ib_poll_cq() for kernel CQs. wc->qp is found by the CQE's QP number.
 * A kernel consumer destroys a QP only after it has drained it (and so
 * polled its completions), as with any device; a CQE of a QP that is
 * already gone gets wc->qp = NULL rather than a dangling pointer (rxe
 * keeps the pointer in its CQE). The pointer is used after the lookup
 * reference is dropped, valid for as long as the QP exists.
 */
int swr_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct swr_dev *sdev = to_swr_dev(ibcq->device);
	struct swr_cq *cq = to_swr_cq(ibcq);
	struct swr_qp *qp;
	unsigned long flags;
	int n = 0, i;
	u32 cons;

	spin_lock_irqsave(&cq->lock, flags);
	cons = cq->ring->cons.idx;
	while (n < num_entries && cons != cq->prod) {
		const struct swroce_cqe *cqe =
			&cq->ring->cqe[cons & (cq->num_cqe - 1)];

		swr_cqe_to_ib_wc(cqe, &wc[n]);
		/* The QP number, until the lock is dropped. */
		wc[n].slid = cqe->qp_num;
		cons++;
		n++;
	}
	/* A kernel CQ's ring is ours alone: plain stores suffice. */
	cq->ring->cons.idx = cons;
	spin_unlock_irqrestore(&cq->lock, flags);

	for (i = 0; i < n; i++) {
		qp = swr_qp_get(sdev, wc[i].slid);
		wc[i].slid = 0;
		wc[i].qp = qp ? &qp->ibqp : NULL;
		if (qp)
			swr_qp_put(qp);
	}
	return n;
}

/*
 * Arming a kernel CQ uses the ring's arm word as user space does, with a
 * new sequence number per request.
 */
int swr_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	u32 kind, seq, arm;
	unsigned long irqflags;
	int ret = 0;

	kind = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	       SWROCE_CQ_ARM_SOLICITED : SWROCE_CQ_ARM_NEXT;

	spin_lock_irqsave(&cq->lock, irqflags);
	arm = cq->ring->arm.idx;
	seq = (arm >> SWROCE_CQ_ARM_SEQ_SHIFT) + 1;
	/* A sequence already fired would not fire again. */
	if ((seq & (U32_MAX >> SWROCE_CQ_ARM_SEQ_SHIFT)) == cq->fired_seq)
		seq++;
	cq->ring->arm.idx = seq << SWROCE_CQ_ARM_SEQ_SHIFT | kind;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    cq->ring->cons.idx != cq->prod)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * Drop @qpn's completions from a kernel CQ, as a QP moved to RESET must
 * leave none behind (what mlx5 does for kernel QPs; for a user CQ the
 * provider does it, as libmlx5 does, since only it can move its consumer
 * index). The kernel is both producer and consumer of a kernel CQ, so the
 * survivors are simply moved down and prod pulled back, under the lock.
 */
void swr_cq_clean(struct swr_cq *cq, u32 qpn)
{
	struct swroce_cqe *ring = cq->ring->cqe;
	u32 mask = cq->num_cqe - 1;
	unsigned long flags;
	u32 i, keep;

	if (cq->mem)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	keep = cq->ring->cons.idx;
	for (i = keep; i != cq->prod; i++) {
		if (ring[i & mask].qp_num == qpn)
			continue;
		if (keep != i)
			ring[keep & mask] = ring[i & mask];
		keep++;
	}
	cq->prod = keep;
	cq->ring->prod.idx = keep;
	spin_unlock_irqrestore(&cq->lock, flags);
}
