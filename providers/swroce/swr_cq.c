// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: polling and arming are loads and stores on the
 * mapped ring (see struct swroce_cq_ring for the ordering contract with
 * the kernel); only create, resize and destroy enter the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "swroce.h"

/* Map the ring the kernel described (create or resize); 0 or an errno. */
static int swr_cq_map(struct swr_cq *cq, int cmd_fd, uint32_t num_cqe,
		      uint64_t offset, uint64_t size)
{
	size_t need = sizeof(struct swroce_cq_ring) +
		      (size_t)num_cqe * sizeof(struct swroce_cqe);
	void *ring;

	if (!num_cqe || (num_cqe & (num_cqe - 1)) || size < need)
		return EPROTO;
	ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		    offset);
	if (ring == MAP_FAILED)
		return errno;
	cq->ring = ring;
	cq->map_size = size;
	cq->num_cqe = num_cqe;
	cq->cons = 0;
	return 0;
}

struct ibv_cq *swr_create_cq(struct ibv_context *ibctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct swr_create_cq_cmd cmd = {};
	struct swr_create_cq_cmd_resp resp = {};
	struct swr_cq *cq;
	int err;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	err = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_free;

	err = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (err)
		goto err_lock;
	err = swr_cq_map(cq, ibctx->cmd_fd, resp.drv_payload.num_cqe,
			 resp.drv_payload.mmap_offset,
			 resp.drv_payload.mmap_size);
	if (err)
		goto err_destroy;
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

int swr_destroy_cq(struct ibv_cq *ibcq)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	munmap(cq->ring, cq->map_size);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

int swr_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	struct swr_resize_cq_cmd cmd = {};
	struct swr_resize_cq_cmd_resp resp = {};
	struct swroce_cq_ring *old_ring;
	size_t old_size;
	int err;

	pthread_spin_lock(&cq->lock);
	/* The kernel carries over what we have not consumed yet. */
	atomic_store_explicit(&cq->ring->cons.idx, cq->cons,
			      memory_order_release);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto out;
	old_ring = cq->ring;
	old_size = cq->map_size;
	err = swr_cq_map(cq, ibcq->context->cmd_fd, resp.drv_payload.num_cqe,
			 resp.drv_payload.mmap_offset,
			 resp.drv_payload.mmap_size);
	if (err) {
		/*
		 * The kernel has switched rings and we cannot see the new one:
		 * this CQ can no longer be polled.
		 */
		cq->num_cqe = 0;
		goto out;
	}
	munmap(old_ring, old_size);
	ibcq->cqe = resp.ibv_resp.cqe;
out:
	pthread_spin_unlock(&cq->lock);
	return err;
}

static void swr_cqe_to_wc(const struct swroce_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = 0;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->ex_data;	/* also invalidated_rkey */
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = 0;
	if (cqe->flags & SWROCE_CQE_WITH_IMM)
		wc->wc_flags |= IBV_WC_WITH_IMM;
	if (cqe->flags & SWROCE_CQE_WITH_INV)
		wc->wc_flags |= IBV_WC_WITH_INV;
	if (cqe->flags & SWROCE_CQE_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = 0;
}

int swr_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	uint32_t prod;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	if (!cq->num_cqe) {
		pthread_spin_unlock(&cq->lock);
		return -1;
	}
	prod = atomic_load_explicit(&cq->ring->prod.idx, memory_order_acquire);
	while (n < ne && cq->cons != prod) {
		swr_cqe_to_wc(&cq->ring->cqe[cq->cons & (cq->num_cqe - 1)],
			      &wc[n]);
		cq->cons++;
		n++;
	}
	if (n)
		atomic_store_explicit(&cq->ring->cons.idx, cq->cons,
				      memory_order_release);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int swr_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	uint32_t kind = solicited_only ? SWROCE_CQ_ARM_SOLICITED :
					 SWROCE_CQ_ARM_NEXT;

	pthread_spin_lock(&cq->lock);
	cq->arm_seq++;
	atomic_store_explicit(&cq->ring->arm.idx,
			      cq->arm_seq << SWROCE_CQ_ARM_SEQ_SHIFT | kind,
			      memory_order_release);
	pthread_spin_unlock(&cq->lock);
	/*
	 * Pairs with the kernel's full barrier between publishing a CQE and
	 * reading arm: the caller's next poll sees any completion the kernel
	 * wrote without seeing this request.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}
