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
#include <linux/log2.h>
#include <linux/overflow.h>
#include "swr.h"
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
		.mmap_offset = rdma_user_mmap_get_offset(cq->mmap),
		.mmap_size = PAGE_ALIGN(swr_cq_ring_bytes(cq->num_cqe)),
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
	int err;

	*slots = swr_cq_slots(cqe);
	if (!*slots) {
		ibdev_dbg(ibdev, "cq: %d entries\n", cqe);
		return -EINVAL;
	}
	*uctx = NULL;
	if (!udata)
		return 0;
	err = swr_udata_no_cmd(ibdev, udata);
	if (err)
		return err;
	if (udata->outlen < offsetofend(struct swroce_create_cq_resp,
					mmap_size)) {
		ibdev_dbg(ibdev, "cq: response of %zu bytes too short\n",
			  udata->outlen);
		return -EINVAL;
	}
	*uctx = swr_udata_uctx(udata);
	return 0;
}

int swr_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct ib_device *ibdev = ibcq->device;
	struct swr_cq *cq = to_swr_cq(ibcq);
	struct ib_ucontext *uctx;
	int err;

	if (attr->flags) {
		ibdev_dbg(ibdev, "create_cq: flags %#x not supported\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	err = swr_cq_check(ibdev, attr->cqe, udata, &cq->num_cqe, &uctx);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->ring = swr_ring_alloc(uctx, swr_cq_ring_bytes(cq->num_cqe),
				  &cq->mmap);
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
	swr_ring_free(cq->ring, cq->mmap);
	return err;
}

int swr_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct swr_cq *cq = to_swr_cq(ibcq);

	/* The core destroys a CQ only once no QP or SRQ uses it. */
	swr_ring_free(cq->ring, cq->mmap);
	return 0;
}

/*
 * Replace the ring by one of @cqe entries, carrying over the completions
 * user space has not consumed yet. Refused (EINVAL) when they would not
 * fit, and when the consumer index user space left in the ring is not
 * within the outstanding range.
 */
int swr_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct ib_device *ibdev = ibcq->device;
	struct swr_cq *cq = to_swr_cq(ibcq);
	struct rdma_user_mmap_entry *new_mmap, *old_mmap;
	struct swroce_cq_ring *new_ring, *old_ring;
	struct ib_ucontext *uctx;
	u32 slots, cons, used, i;
	unsigned long flags;
	int err;

	err = swr_cq_check(ibdev, cqe, udata, &slots, &uctx);
	if (err)
		return err;

	new_ring = swr_ring_alloc(uctx, swr_cq_ring_bytes(slots), &new_mmap);
	if (IS_ERR(new_ring))
		return PTR_ERR(new_ring);

	spin_lock_irqsave(&cq->lock, flags);
	cons = READ_ONCE(cq->ring->cons.idx);
	used = cq->prod - cons;
	if (used > cq->num_cqe || used > slots) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (used > cq->num_cqe)
			swr_count(to_swr_dev(ibdev), SWR_CNT_RING_INDEX_BAD);
		ibdev_dbg(ibdev, "resize_cq: %u outstanding, %u slots\n",
			  used, slots);
		err = -EINVAL;
		goto err_free_ring;
	}
	for (i = 0; i < used; i++)
		new_ring->cqe[i] = cq->ring->cqe[(cons + i) & (cq->num_cqe - 1)];
	new_ring->arm.idx = READ_ONCE(cq->ring->arm.idx);
	new_ring->status.idx = cq->ring->status.idx;
	new_ring->prod.idx = used;

	old_ring = cq->ring;
	old_mmap = cq->mmap;
	cq->ring = new_ring;
	cq->mmap = new_mmap;
	cq->num_cqe = slots;
	cq->prod = used;
	ibcq->cqe = slots;
	spin_unlock_irqrestore(&cq->lock, flags);

	swr_ring_free(old_ring, old_mmap);
	return udata ? swr_cq_put_ring(cq, udata) : 0;

err_free_ring:
	swr_ring_free(new_ring, new_mmap);
	return err;
}
