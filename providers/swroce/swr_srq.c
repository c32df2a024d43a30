// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive work queue rings and shared receive queues. Posting a receive is
 * a write into the mapped ring and a release store of the producer index:
 * no system call (see struct swroce_wq_ring).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "swroce.h"

int swr_wq_map(struct swr_wq *wq, int cmd_fd, uint32_t num_wqe,
	       uint32_t wqe_stride, uint32_t max_sge, uint64_t offset,
	       uint64_t size)
{
	void *ring;

	if (!num_wqe || (num_wqe & (num_wqe - 1)) ||
	    !wqe_stride || (wqe_stride & (wqe_stride - 1)) ||
	    sizeof(struct swroce_recv_wqe) +
	    (size_t)max_sge * sizeof(struct swroce_sge) > wqe_stride ||
	    size < sizeof(struct swroce_wq_ring) + (size_t)num_wqe * wqe_stride)
		return EPROTO;
	ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		    offset);
	if (ring == MAP_FAILED)
		return errno;
	wq->ring = ring;
	wq->slots = (uint8_t *)ring + sizeof(struct swroce_wq_ring);
	wq->map_size = size;
	wq->num_wqe = num_wqe;
	wq->wqe_stride = wqe_stride;
	wq->max_sge = max_sge;
	wq->prod = 0;
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

void swr_wq_unmap(struct swr_wq *wq)
{
	munmap(wq->ring, wq->map_size);
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
				   const struct swroce_create_srq_resp *r)
{
	int err;

	err = swr_wq_map(&srq->wq, ibpd->context->cmd_fd, r->num_wqe,
			 r->wqe_stride, r->max_sge, r->mmap_offset,
			 r->mmap_size);
	if (err) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
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
	struct swr_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq(ibpd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(srq);
		errno = err;
		return NULL;
	}
	return swr_srq_map(srq, ibpd, &resp.drv_payload);
}

/*
 * ibv_create_srq_ex(): a basic SRQ, or an XRC SRQ (IBV_SRQT_XRC: a
 * domain, a CQ and a PD). The kernel numbers an XRC SRQ; senders name it
 * (ibv_get_srq_num()).
 */
struct ibv_srq *swr_create_srq_ex(struct ibv_context *ibctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct swr_create_xsrq_cmd cmd = {};
	struct swr_create_xsrq_cmd_resp resp = {};
	uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	bool xrc = (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
		   attr->srq_type == IBV_SRQT_XRC;
	struct swr_srq *srq;
	int err;

	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && !xrc &&
	     attr->srq_type != IBV_SRQT_BASIC)) {
		errno = EOPNOTSUPP;
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
	return swr_srq_map(srq, attr->pd, &resp.drv_payload);
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
	swr_parent_put(ibsrq->pd);
	swr_wq_unmap(&srq->wq);
	free(srq);
	return 0;
}

int swr_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	return swr_wq_post_recv(&to_swr_srq(ibsrq)->wq, wr, bad_wr);
}
