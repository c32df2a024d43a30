// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive work queue rings and shared receive queues. Posting a receive is
 * a write into the mapped ring and a release store of the producer index:
 * no system call (see struct swroce_wq_ring).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "swroce.h"

/*
 * The ring the kernel makes for @max_wr WQEs of @max_sge entries (each at
 * least 1): what a parent's allocator is asked for. 0 out of range.
 */
size_t swr_wq_ring_bytes(uint32_t max_wr, uint32_t max_sge)
{
	uint64_t wqe = sizeof(struct swroce_recv_wqe) +
		       (uint64_t)(max_sge ? max_sge : 1) *
		       sizeof(struct swroce_sge);
	uint32_t slots = swr_ring_pow2(max_wr), stride = swr_ring_pow2(wqe);

	if (!slots || !stride || (uint64_t)slots * stride > SIZE_MAX / 2)
		return 0;
	return sizeof(struct swroce_wq_ring) + (size_t)slots * stride;
}

/* Take the ring the kernel described: @rb's memory, or its mapping. */
int swr_wq_map(struct swr_wq *wq, int cmd_fd, uint32_t num_wqe,
	       uint32_t wqe_stride, uint32_t max_sge, uint64_t offset,
	       uint64_t size, const struct swr_ring_buf *rb)
{
	void *ring;

	if (!num_wqe || (num_wqe & (num_wqe - 1)) ||
	    !wqe_stride || (wqe_stride & (wqe_stride - 1)) ||
	    sizeof(struct swroce_recv_wqe) +
	    (size_t)max_sge * sizeof(struct swroce_sge) > wqe_stride)
		return EPROTO;
	ring = swr_ring_map(cmd_fd, rb, offset, size,
			    sizeof(struct swroce_wq_ring) +
			    (size_t)num_wqe * wqe_stride, &wq->map_size);
	if (!ring)
		return errno;
	wq->ring = ring;
	wq->user_ring = rb && rb->addr;
	wq->slots = (uint8_t *)ring + sizeof(struct swroce_wq_ring);
	wq->num_wqe = num_wqe;
	wq->wqe_stride = wqe_stride;
	wq->max_sge = max_sge;
	wq->prod = 0;
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

/* After the queue's destroy: @ibpd is the PD it was created through. */
void swr_wq_unmap(struct swr_wq *wq, struct ibv_pd *ibpd, uint64_t type)
{
	swr_ring_release(ibpd, wq->ring, wq->map_size, wq->user_ring, type);
	pthread_spin_destroy(&wq->lock);
}

int swr_wq_post_recv(struct swr_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct swroce_recv_wqe *wqe;
	uint32_t cons;
	int err = 0, i;

	swr_wq_lock(wq);
	cons = atomic_load_explicit(&wq->ring->cons.idx, memory_order_acquire);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge) {
			err = EINVAL;
			break;
		}
		if (wq->prod - cons >= wq->num_wqe) {
			err = ENOMEM;
			break;
		}
		wqe = (void *)(wq->slots +
			       (size_t)(wq->prod & (wq->num_wqe - 1)) *
			       wq->wqe_stride);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved_0 = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->sge[i].addr = wr->sg_list[i].addr;
			wqe->sge[i].length = wr->sg_list[i].length;
			wqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		wq->prod++;
	}
	/* The WQEs are written before the kernel can see the new index. */
	atomic_store_explicit(&wq->ring->prod.idx, wq->prod,
			      memory_order_release);
	swr_wq_unlock(wq);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * Map the ring the kernel described for a new SRQ; on failure the SRQ is
 * destroyed and freed, and errno set.
 */
static struct ibv_srq *swr_srq_map(struct swr_srq *srq, struct ibv_pd *ibpd,
				   const struct swroce_create_srq_resp *r,
				   const struct swr_ring_buf *rb)
{
	int err;

	err = swr_wq_map(&srq->wq, ibpd->context->cmd_fd, r->num_wqe,
			 r->wqe_stride, r->max_sge, r->mmap_offset,
			 r->mmap_size, rb);
	if (err) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		if (rb->addr)
			swr_ring_release(ibpd, rb->addr, rb->size, true,
					 SWROCE_RES_TYPE_SRQ);
		free(srq);
		errno = err;
		return NULL;
	}
	srq->wq.single_threaded = swr_parent_get(ibpd);
	return &srq->vsrq.srq;
}

struct ibv_srq *swr_create_srq(struct ibv_pd *ibpd,
			       struct ibv_srq_init_attr *attr)
{
	struct swr_create_srq_cmd cmd = {};
	struct swr_create_srq_cmd_resp resp = {};
	struct swr_ring_buf rb;
	struct swr_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	/* A parent's allocator places the ring (swr_pd.c). */
	err = swr_ring_buf_alloc(ibpd, swr_wq_ring_bytes(attr->attr.max_wr,
							 attr->attr.max_sge),
				 SWROCE_RES_TYPE_SRQ, &rb);
	if (err)
		goto err_free;
	if (rb.addr)
		cmd.drv_payload.comp_mask |= SWROCE_CREATE_SRQ_USER_RING;
	swr_ring_buf_cmd(&rb, &cmd.drv_payload.ring);

	err = ibv_cmd_create_srq(ibpd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free_ring;
	return swr_srq_map(srq, ibpd, &resp.drv_payload, &rb);

err_free_ring:
	if (rb.addr)
		swr_ring_release(ibpd, rb.addr, rb.size, true,
				 SWROCE_RES_TYPE_SRQ);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

/*
 * ibv_create_srq_ex(): a basic SRQ, an XRC SRQ (IBV_SRQT_XRC: a domain, a
 * CQ and a PD), or a tag matching SRQ (IBV_SRQT_TM: a CQ, a PD and the
 * tag list's size; its ops are synchronous, so max_ops is only checked
 * against what the device announces). The kernel numbers an XRC SRQ;
 * senders name it (ibv_get_srq_num()).
 */
struct ibv_srq *swr_create_srq_ex(struct ibv_context *ibctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct swr_create_xsrq_cmd cmd = {};
	struct swr_create_xsrq_cmd_resp resp = {};
	/* These SRQs' rings are the kernel's (no parent domain's allocator). */
	const struct swr_ring_buf rb = {};
	uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
			 IBV_SRQ_INIT_ATTR_TM;
	bool typed = attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE;
	bool xrc = typed && attr->srq_type == IBV_SRQT_XRC;
	bool tm = typed && attr->srq_type == IBV_SRQT_TM;
	struct swr_srq *srq;
	int err;

	if ((attr->comp_mask & ~known) ||
	    (typed && !xrc && !tm && attr->srq_type != IBV_SRQT_BASIC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (tm && (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TM) ||
		   attr->tm_cap.max_ops > SWR_TM_MAX_OPS)) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(srq);
		errno = err;
		return NULL;
	}
	/* libibverbs' ioctl path leaves the number here, not in resp. */
	if (xrc)
		srq->srqn = srq->vsrq.srq_num ? srq->vsrq.srq_num :
						resp.ibv_resp.srqn;
	srq->tm = tm;
	return swr_srq_map(srq, attr->pd, &resp.drv_payload, &rb);
}

/* One op, to the kernel (SWROCE_METHOD_SRQ_TM_OP); 0 or an errno. */
static int swr_tm_op(struct ibv_srq *ibsrq, struct ibv_ops_wr *wr)
{
	struct swroce_tm_op_resp resp = {};
	struct swroce_tm_op op = {
		.opcode = wr->opcode,
		.wr_id = wr->wr_id,
		.unexpected_cnt = wr->tm.unexpected_cnt,
		.handle = wr->tm.handle,
	};
	struct ib_uverbs_attr attrs[3] = {
		{ .attr_id = SWROCE_ATTR_SRQ_TM_OP_HANDLE,
		  .data = ibsrq->handle },
		{ .attr_id = SWROCE_ATTR_SRQ_TM_OP_CMD,
		  .len = sizeof(op), .data = (uintptr_t)&op },
		{ .attr_id = SWROCE_ATTR_SRQ_TM_OP_RESP,
		  .len = sizeof(resp), .data = (uintptr_t)&resp },
	};
	int err;

	if (wr->flags & ~(IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC) ||
	    (unsigned int)wr->opcode > UINT8_MAX)
		return EINVAL;
	op.flags = wr->flags;
	if (wr->opcode == IBV_WR_TAG_ADD) {
		if (wr->tm.add.num_sge < 0 || wr->tm.add.num_sge > 1 ||
		    (wr->tm.add.num_sge && !wr->tm.add.sg_list))
			return EINVAL;
		op.recv_wr_id = wr->tm.add.recv_wr_id;
		op.tag = wr->tm.add.tag;
		op.mask = wr->tm.add.mask;
		op.num_sge = wr->tm.add.num_sge;
		if (op.num_sge) {
			op.sge.addr = wr->tm.add.sg_list[0].addr;
			op.sge.length = wr->tm.add.sg_list[0].length;
			op.sge.lkey = wr->tm.add.sg_list[0].lkey;
		}
	}
	err = swr_ioctl(ibsrq->context, UVERBS_OBJECT_SRQ,
			SWROCE_METHOD_SRQ_TM_OP, attrs, 3);
	if (!err && wr->opcode == IBV_WR_TAG_ADD)
		wr->tm.handle = resp.handle;
	return err;
}

/*
 * ibv_post_srq_ops(): each op is done (and its completion, if signalled,
 * written) before the next; the first that fails stops the list.
 */
int swr_post_srq_ops(struct ibv_srq *ibsrq, struct ibv_ops_wr *wr,
		     struct ibv_ops_wr **bad_wr)
{
	int err = 0;

	if (!to_swr_srq(ibsrq)->tm) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next) {
		err = swr_tm_op(ibsrq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	return err;
}

int swr_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct swr_srq *srq = to_swr_srq(ibsrq);

	if (!srq->srqn)
		return EOPNOTSUPP;
	*srq_num = srq->srqn;
	return 0;
}

int swr_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd, sizeof(cmd));
}

int swr_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int swr_destroy_srq(struct ibv_srq *ibsrq)
{
	struct swr_srq *srq = to_swr_srq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	swr_wq_unmap(&srq->wq, ibsrq->pd, SWROCE_RES_TYPE_SRQ);
	swr_parent_put(ibsrq->pd);
	free(srq);
	return 0;
}

int swr_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	return swr_wq_post_recv(&to_swr_srq(ibsrq)->wq, wr, bad_wr);
}
