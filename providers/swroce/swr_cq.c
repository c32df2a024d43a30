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
#include <time.h>

#include "swroce.h"

static void swr_cq_lock(struct swr_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

static void swr_cq_unlock(struct swr_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

static size_t swr_cq_ring_bytes(uint32_t num_cqe)
{
	return sizeof(struct swroce_cq_ring) +
	       (size_t)num_cqe * sizeof(struct swroce_cqe);
}

/* The ring the kernel makes for @cqe entries; 0 where it refuses them. */
static size_t swr_cq_want_bytes(uint32_t cqe)
{
	uint32_t slots = swr_ring_pow2(cqe);

	return cqe && slots ? swr_cq_ring_bytes(slots) : 0;
}

/*
 * Take the ring the kernel described (create or resize): @rb's memory,
 * or the kernel's mapping. 0 or an errno.
 */
static int swr_cq_map(struct swr_cq *cq, int cmd_fd, uint32_t num_cqe,
		      uint64_t offset, uint64_t size,
		      const struct swr_ring_buf *rb)
{
	void *ring;

	if (!num_cqe || (num_cqe & (num_cqe - 1)))
		return EPROTO;
	ring = swr_ring_map(cmd_fd, rb, offset, size,
			    swr_cq_ring_bytes(num_cqe), &cq->map_size);
	if (!ring)
		return errno;
	cq->ring = ring;
	cq->user_ring = rb && rb->addr;
	cq->num_cqe = num_cqe;
	cq->cons = 0;
	return 0;
}

/* Give the ring back: to the parent's allocator, or unmap it. */
static void swr_cq_unmap(struct swr_cq *cq, struct swroce_cq_ring *ring,
			 size_t map_size, bool user_ring)
{
	swr_ring_release(cq->parent ? &cq->parent->ibpd : NULL, ring,
			 map_size, user_ring, SWROCE_RES_TYPE_CQ);
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
			 resp.drv_payload.mmap_size, NULL);
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
	swr_cq_unmap(cq, cq->ring, cq->map_size, cq->user_ring);
	if (cq->parent)
		swr_parent_put(&cq->parent->ibpd);
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
	bool old_user;
	int err;

	swr_cq_lock(cq);
	/* The kernel carries over what we have not consumed yet. */
	atomic_store_explicit(&cq->ring->cons.idx, cq->cons,
			      memory_order_release);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto out;
	old_ring = cq->ring;
	old_size = cq->map_size;
	old_user = cq->user_ring;
	/* Always a kernel ring: the kernel has let go of an allocator's. */
	err = swr_cq_map(cq, ibcq->context->cmd_fd, resp.drv_payload.num_cqe,
			 resp.drv_payload.mmap_offset,
			 resp.drv_payload.mmap_size, NULL);
	if (err) {
		/*
		 * The kernel has switched rings and we cannot see the new one:
		 * this CQ can no longer be polled.
		 */
		cq->num_cqe = 0;
		goto out;
	}
	swr_cq_unmap(cq, old_ring, old_size, old_user);
	ibcq->cqe = resp.ibv_resp.cqe;
out:
	swr_cq_unlock(cq);
	return err;
}

/* The CQE's flags as ibv_wc_flags. */
static unsigned int swr_cqe_wc_flags(const struct swroce_cqe *cqe)
{
	unsigned int flags = 0;

	if (cqe->flags & SWROCE_CQE_WITH_IMM)
		flags |= IBV_WC_WITH_IMM;
	if (cqe->flags & SWROCE_CQE_WITH_INV)
		flags |= IBV_WC_WITH_INV;
	if (cqe->flags & SWROCE_CQE_GRH)
		flags |= IBV_WC_GRH;
	if (cqe->flags & SWROCE_CQE_TM_MATCH)
		flags |= IBV_WC_TM_MATCH;
	if (cqe->flags & SWROCE_CQE_TM_DATA_VALID)
		flags |= IBV_WC_TM_DATA_VALID;
	return flags;
}

/* A matched tag's CQE carries the tag in src_qp (see swroce_cqe). */
static uint32_t swr_cqe_src_qp(const struct swroce_cqe *cqe)
{
	return cqe->flags & SWROCE_CQE_TM_MATCH ? 0 : cqe->src_qp;
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
	wc->src_qp = swr_cqe_src_qp(cqe);
	wc->wc_flags = swr_cqe_wc_flags(cqe);
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = 0;
}

/*
 * @n send completions polled: out of sig_out, which stays at 0 at least
 * (a flushed unsignaled WQE completes too).
 */
static void swr_cq_sends_polled(struct swr_cq *cq, int n)
{
	int old = atomic_load_explicit(&cq->sig_out, memory_order_relaxed);

	while (old > 0 &&
	       !atomic_compare_exchange_weak_explicit(&cq->sig_out, &old,
						      old > n ? old - n : 0,
						      memory_order_relaxed,
						      memory_order_relaxed))
		;
}

static bool swr_cqe_is_send(const struct swroce_cqe *cqe)
{
	return !(cqe->opcode & IBV_WC_RECV);
}

int swr_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	const struct swroce_cqe *cqe;
	int n = 0, sends = 0;
	uint32_t prod;

	/* Doorbells put off ring now (swr_qp.c). */
	swr_db_flush(to_swr_context(ibcq->context));
	swr_cq_lock(cq);
	if (!cq->num_cqe) {
		swr_cq_unlock(cq);
		return -1;
	}
	prod = atomic_load_explicit(&cq->ring->prod.idx, memory_order_acquire);
	while (n < ne && cq->cons != prod) {
		cqe = &cq->ring->cqe[cq->cons & (cq->num_cqe - 1)];
		swr_cqe_to_wc(cqe, &wc[n]);
		sends += swr_cqe_is_send(cqe);
		cq->cons++;
		n++;
	}
	if (n)
		atomic_store_explicit(&cq->ring->cons.idx, cq->cons,
				      memory_order_release);
	swr_cq_unlock(cq);
	if (sends)
		swr_cq_sends_polled(cq, sends);
	return n;
}

int swr_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct swr_cq *cq = to_swr_cq(ibcq);
	uint32_t kind = solicited_only ? SWROCE_CQ_ARM_SOLICITED :
					 SWROCE_CQ_ARM_NEXT;

	/* The caller is about to wait: doorbells put off ring now. */
	swr_db_flush(to_swr_context(ibcq->context));
	swr_cq_lock(cq);
	cq->arm_seq++;
	atomic_store_explicit(&cq->ring->arm.idx,
			      cq->arm_seq << SWROCE_CQ_ARM_SEQ_SHIFT | kind,
			      memory_order_release);
	swr_cq_unlock(cq);
	/*
	 * Pairs with the kernel's full barrier between publishing a CQE and
	 * reading arm: the caller's next poll sees any completion the kernel
	 * wrote without seeing this request.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}

/*
 * Extended CQs (ibv_create_cq_ex): the same ring, read one completion at a
 * time through the ibv_cq_ex callbacks. start_poll takes the lock and end_poll
 * releases it; the consumer index is published once, in end_poll.
 */
enum {
	SWR_WC_EX_FLAGS = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			  IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			  IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			  IBV_WC_EX_WITH_DLID_PATH_BITS |
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK |
			  IBV_WC_EX_WITH_TM_INFO,
};

static struct swr_cq *ex_to_swr_cq(struct ibv_cq_ex *ex)
{
	return container_of(ex, struct swr_cq, vcq.cq_ex);
}

/*
 * Point cur at the completion at cons, if any; 0 or ENOENT. cur is the
 * entry handed out and not yet counted as consumed.
 */
static int swr_cq_ex_load(struct swr_cq *cq)
{
	cq->cur = NULL;
	if (cq->cons == cq->prod) {
		cq->prod = atomic_load_explicit(&cq->ring->prod.idx,
						memory_order_acquire);
		if (cq->cons == cq->prod)
			return ENOENT;
	}
	cq->cur = &cq->ring->cqe[cq->cons & (cq->num_cqe - 1)];
	/* Taken out of sig_out once, in end_poll. */
	cq->ex_sends += swr_cqe_is_send(cq->cur);
	cq->vcq.cq_ex.wr_id = cq->cur->wr_id;
	cq->vcq.cq_ex.status = cq->cur->status;
	return 0;
}

static int swr_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct swr_cq *cq = ex_to_swr_cq(ex);
	int err;

	if (attr->comp_mask)
		return EINVAL;
	swr_db_flush(to_swr_context(ex->context));
	swr_cq_lock(cq);
	err = cq->num_cqe ? swr_cq_ex_load(cq) : EIO;
	if (err)
		swr_cq_unlock(cq);
	return err;
}

static int swr_next_poll(struct ibv_cq_ex *ex)
{
	struct swr_cq *cq = ex_to_swr_cq(ex);

	if (cq->cur)
		cq->cons++;
	return swr_cq_ex_load(cq);
}

static void swr_end_poll(struct ibv_cq_ex *ex)
{
	struct swr_cq *cq = ex_to_swr_cq(ex);
	int sends = cq->ex_sends;

	if (cq->cur)
		cq->cons++;
	cq->cur = NULL;
	cq->ex_sends = 0;
	atomic_store_explicit(&cq->ring->cons.idx, cq->cons,
			      memory_order_release);
	swr_cq_unlock(cq);
	if (sends)
		swr_cq_sends_polled(cq, sends);
}

static enum ibv_wc_opcode swr_read_opcode(struct ibv_cq_ex *ex)
{
	return ex_to_swr_cq(ex)->cur->opcode;
}

static uint32_t swr_read_vendor_err(struct ibv_cq_ex *ex)
{
	return 0;
}

static uint32_t swr_read_byte_len(struct ibv_cq_ex *ex)
{
	return ex_to_swr_cq(ex)->cur->byte_len;
}

static __be32 swr_read_imm_data(struct ibv_cq_ex *ex)
{
	return ex_to_swr_cq(ex)->cur->ex_data;
}

static uint32_t swr_read_qp_num(struct ibv_cq_ex *ex)
{
	return ex_to_swr_cq(ex)->cur->qp_num;
}

static uint32_t swr_read_src_qp(struct ibv_cq_ex *ex)
{
	return swr_cqe_src_qp(ex_to_swr_cq(ex)->cur);
}

/* Valid with IBV_WC_TM_MATCH (libibverbs); zero otherwise. */
static void swr_read_tm_info(struct ibv_cq_ex *ex, struct ibv_wc_tm_info *tm)
{
	const struct swroce_cqe *cqe = ex_to_swr_cq(ex)->cur;

	tm->tag = 0;
	tm->priv = 0;
	if (cqe->flags & SWROCE_CQE_TM_MATCH) {
		tm->tag = (uint64_t)cqe->src_qp << 32 | cqe->ex_data2;
		tm->priv = cqe->ex_data;
	}
}

static unsigned int swr_read_wc_flags(struct ibv_cq_ex *ex)
{
	return swr_cqe_wc_flags(ex_to_swr_cq(ex)->cur);
}

static uint32_t swr_read_slid(struct ibv_cq_ex *ex)
{
	return 0;	/* RoCE has no LIDs */
}

static uint8_t swr_read_sl(struct ibv_cq_ex *ex)
{
	return ex_to_swr_cq(ex)->cur->sl;
}

static uint8_t swr_read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return 0;
}

/*
 * In "HCA clock" ticks: the device reports a 1 GHz clock
 * (hca_core_clock), so ticks are the CQE's nanoseconds.
 */
static uint64_t swr_read_completion_ts(struct ibv_cq_ex *ex)
{
	return ex_to_swr_cq(ex)->cur->timestamp;
}

/*
 * The completion's CLOCK_REALTIME: its CLOCK_MONOTONIC_RAW timestamp
 * moved by the clocks' current distance (two vDSO reads). Off by what NTP
 * slewed the real-time clock since the completion: microseconds at most
 * for a completion polled within seconds.
 */
static uint64_t swr_read_completion_wallclock_ns(struct ibv_cq_ex *ex)
{
	struct timespec raw, real;
	int64_t delta;

	clock_gettime(CLOCK_MONOTONIC_RAW, &raw);
	clock_gettime(CLOCK_REALTIME, &real);
	delta = (real.tv_sec - raw.tv_sec) * 1000000000LL +
		(real.tv_nsec - raw.tv_nsec);
	return ex_to_swr_cq(ex)->cur->timestamp + delta;
}

struct ibv_cq_ex *swr_create_cq_ex(struct ibv_context *ibctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_init_attr_ex core_attr = *attr;
	struct swr_create_cq_ex_cmd cmd = {};
	struct swr_create_cq_ex_cmd_resp resp = {};
	struct swr_ring_buf rb = {};
	struct ibv_cq_ex *ex;
	struct swr_cq *cq;
	int err;

	if ((attr->wc_flags & ~(uint64_t)SWR_WC_EX_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					   IBV_CQ_INIT_ATTR_MASK_PD)) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* IBV_CQ_INIT_ATTR_MASK_PD names a parent domain of this context. */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!swr_parent_domain(attr->parent_domain) ||
	     attr->parent_domain->context != ibctx)) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	err = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_free;
	cq->single_threaded = (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
			      (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	/*
	 * Single-threaded use and the parent domain are ours to honour;
	 * the kernel sees neither.
	 */
	core_attr.comp_mask &= ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					   IBV_CQ_INIT_ATTR_MASK_PD);
	core_attr.flags = 0;
	/*
	 * Nor does it see a timestamp or tag request: every CQE carries
	 * what they read.
	 */
	core_attr.wc_flags &= ~(uint64_t)(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK |
			IBV_WC_EX_WITH_TM_INFO);

	/* The parent's allocator places the ring (swr_pd.c). */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent = to_swr_pd(attr->parent_domain);
		err = swr_ring_buf_alloc(attr->parent_domain,
					 swr_cq_want_bytes(attr->cqe),
					 SWROCE_RES_TYPE_CQ, &rb);
		if (err)
			goto err_lock;
	}
	if (rb.addr)
		cmd.drv_payload.comp_mask |= SWROCE_CREATE_CQ_USER_RING;
	swr_ring_buf_cmd(&rb, &cmd.drv_payload.ring);

	err = swr_cmd_create_cq_ex(ibctx, &core_attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free_ring;
	err = swr_cq_map(cq, ibctx->cmd_fd, resp.drv_payload.num_cqe,
			 resp.drv_payload.mmap_offset,
			 resp.drv_payload.mmap_size, &rb);
	if (err)
		goto err_destroy;

	if (cq->parent && swr_parent_get(attr->parent_domain))
		cq->single_threaded = true;
	ex = &cq->vcq.cq_ex;
	ex->start_poll = swr_start_poll;
	ex->next_poll = swr_next_poll;
	ex->end_poll = swr_end_poll;
	ex->read_opcode = swr_read_opcode;
	ex->read_vendor_err = swr_read_vendor_err;
	ex->read_wc_flags = swr_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = swr_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = swr_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = swr_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = swr_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = swr_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = swr_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = swr_read_dlid_path_bits;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ex->read_completion_ts = swr_read_completion_ts;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ex->read_completion_wallclock_ns =
			swr_read_completion_wallclock_ns;
	if (attr->wc_flags & IBV_WC_EX_WITH_TM_INFO)
		ex->read_tm_info = swr_read_tm_info;
	return ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free_ring:
	if (rb.addr)
		swr_cq_unmap(cq, rb.addr, rb.size, true);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = err;
	return NULL;
}
