// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive side scaling: receive work queues (ib_wq, IB_WQT_RQ), tables of
 * them (ib_rwq_ind_table) and the raw packet QPs that spread frames over
 * a table (RSS QPs). mlx5 is the reference for what the verbs mean.
 *
 * A WQ is a receive ring like a QP's receive queue (the same struct
 * swroce_wq_ring, mapped into the process, posted to without a system
 * call), with a CQ of its own and three states: RESET (frames dropped,
 * the ring emptied on entry), RDY (frames received), ERR (frames dropped,
 * every posted WQE completed with IB_WC_WR_FLUSH_ERR). Posting never
 * enters the kernel, so a WQ in ERR flushes what it holds on entering
 * ERR, and again at each frame steered to it and each modify_wq: a WQE
 * posted to a WQ in ERR completes at the next of those.
 *
 * An RSS QP (a raw packet QP created with an indirection table and a
 * Toeplitz hash configuration, struct swroce_create_qp_cmd) has no
 * queues of its own and no states to move through (as on mlx5, modify_qp
 * refuses it): a frame its flows steer to it (swr_raw.c) goes to the WQ
 * at table[hash % size], taking that WQ's next receive WQE and completing
 * it on that WQ's CQ with IBV_WC_RECV and the WQ's number as qp_num. The
 * hash covers the configured fields the frame has: an IPv6 frame under
 * an IPv4 configuration hashes no address (and lands where hash 0 does),
 * a UDP frame under a TCP one no port.
 *
 * Lifetimes are the core's: a table holds its WQs (usecnt), an RSS QP its
 * table, a flow its QP; destroy_flow waits a grace period, so a receive
 * that found the QP under RCU finds its table and WQs alive.
 */
#include <linux/log2.h>
#include <linux/string.h>

#include "swr.h"
#include "swr_net.h"
#include "swr_rss.h"
#include "swr_udata.h"

/* Receive WQs ---------------------------------------------------------------- */

static int swr_rwq_check(struct ib_device *ibdev,
			 const struct ib_wq_init_attr *init,
			 struct ib_udata *udata)
{
	int err;

	/* Kernel consumers have no use for WQs without RSS QPs of theirs. */
	if (!udata)
		return -EOPNOTSUPP;
	if (init->wq_type != IB_WQT_RQ) {
		ibdev_dbg(ibdev, "create_wq: type %d not supported\n",
			  init->wq_type);
		return -EINVAL;	/* as mlx5 */
	}
	/* No VLAN stripping, FCS scattering, delay drop or padding. */
	if (init->create_flags) {
		ibdev_dbg(ibdev, "create_wq: flags %#x not supported\n",
			  init->create_flags);
		return -EOPNOTSUPP;
	}
	if (init->max_wr < 1 || init->max_wr > SWR_MAX_QP_WR ||
	    init->max_sge < 1 || init->max_sge > SWR_MAX_SGE) {
		ibdev_dbg(ibdev, "create_wq: max_wr %u max_sge %u\n",
			  init->max_wr, init->max_sge);
		return -EINVAL;
	}
	err = swr_udata_no_cmd(ibdev, udata);
	if (err)
		return err;
	if (udata->outlen < offsetofend(struct swroce_create_wq_resp,
					mmap_size))
		return -EINVAL;
	return 0;
}

static int swr_rwq_put_resp(struct swr_rwq *rwq, struct ib_udata *udata)
{
	struct swroce_create_wq_resp resp = {
		.num_wqe = rwq->wq.num_wqe,
		.wqe_stride = 1U << rwq->wq.wqe_shift,
		.max_sge = rwq->wq.max_sge,
		.mmap_offset = swr_ring_mmap_offset(rwq->wq.mem),
		.mmap_size = swr_ring_mmap_size(rwq->wq.mem),
	};

	return swr_udata_put_resp(udata, &resp, sizeof(resp));
}

struct ib_wq *swr_create_wq(struct ib_pd *pd, struct ib_wq_init_attr *init,
			    struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(pd->device);
	struct swr_rwq *rwq;
	int err;

	err = swr_rwq_check(pd->device, init, udata);
	if (err)
		return ERR_PTR(err);
	if (atomic_inc_return(&sdev->num_wq) > SWR_MAX_WQ) {
		err = -ENOMEM;
		goto err_dec_count;
	}
	rwq = kzalloc(sizeof(*rwq), GFP_KERNEL);
	if (!rwq) {
		err = -ENOMEM;
		goto err_dec_count;
	}
	spin_lock_init(&rwq->lock);
	rwq->state = IB_WQS_RESET;
	rwq->ibwq.state = IB_WQS_RESET;
	/* Always a kernel ring (no user ring in the WQ command). */
	err = swr_wq_init(&rwq->wq, swr_udata_uctx(udata), init->max_wr,
			  init->max_sge, NULL);
	if (err)
		goto err_free;
	err = swr_qpn_reserve(sdev, &rwq->ibwq.wq_num);
	if (err)
		goto err_free_ring;
	init->max_wr = rwq->wq.num_wqe;
	init->max_sge = rwq->wq.max_sge;
	err = swr_rwq_put_resp(rwq, udata);
	if (err)
		goto err_free_num;
	rwq->ibwq.event_handler = init->event_handler;
	return &rwq->ibwq;

err_free_num:
	xa_erase_irq(&sdev->qp_xa, rwq->ibwq.wq_num);
err_free_ring:
	swr_wq_fini(&rwq->wq);
err_free:
	kfree(rwq);
err_dec_count:
	atomic_dec(&sdev->num_wq);
	return ERR_PTR(err);
}

int swr_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibwq->device);
	struct swr_rwq *rwq = to_swr_rwq(ibwq);

	/* No table holds it (the core checked): no receive can reach it. */
	xa_erase_irq(&sdev->qp_xa, ibwq->wq_num);
	swr_wq_fini(&rwq->wq);
	kfree(rwq);
	atomic_dec(&sdev->num_wq);
	return 0;
}

/* Write one completion of @rwq into its CQ (lock held). */
static void swr_rwq_complete(struct swr_rwq *rwq, struct swroce_cqe *cqe)
{
	struct swr_dev *sdev = to_swr_dev(rwq->ibwq.device);

	if (cqe->status != IB_WC_SUCCESS && cqe->status != IB_WC_WR_FLUSH_ERR)
		swr_count(sdev, SWR_CNT_ERR_LOCAL);
	if (!swr_cq_post(to_swr_cq(rwq->ibwq.cq), cqe, false))
		swr_count(sdev, SWR_CNT_COMPLETIONS);
}

/*
 * Complete every posted WQE with a flush error (lock held). A bad ring
 * index or WQE ends the flush: the rest is dropped, as a QP's RQ does.
 */
static void swr_rwq_flush(struct swr_rwq *rwq)
{
	struct swr_dev *sdev = to_swr_dev(rwq->ibwq.device);
	struct swroce_cqe cqe;
	u32 n = 0;
	int err;

	while (!(err = swr_wq_pop(sdev, &rwq->wq, &rwq->rwqe))) {
		swr_cqe_init(&cqe, rwq->rwqe.wr_id, rwq->ibwq.wq_num,
			     IB_WC_WR_FLUSH_ERR, SWR_WC_RECV, 0);
		swr_rwq_complete(rwq, &cqe);
		n++;
	}
	if (err == -EINVAL) {
		rwq->wq.cons = READ_ONCE(rwq->wq.ring->prod.idx);
		/* Orders nothing: only publishes the skip. */
		smp_store_release(&rwq->wq.ring->cons.idx, rwq->wq.cons);
	}
	swr_count_add(sdev, SWR_CNT_FLUSHED, n);
}

/* RESET: the ring empty, as swr_qp_reset() empties a QP's (lock held). */
static void swr_rwq_reset(struct swr_rwq *rwq)
{
	rwq->wq.cons = READ_ONCE(rwq->wq.ring->prod.idx);
	/* Pairs with the producer's acquire of cons: the slots are free. */
	smp_store_release(&rwq->wq.ring->cons.idx, rwq->wq.cons);
}

/* The transitions mlx5's RQs take; anything may go back to RESET. */
static bool swr_rwq_transition_ok(enum ib_wq_state cur, enum ib_wq_state new)
{
	switch (new) {
	case IB_WQS_RESET:
		return true;
	case IB_WQS_RDY:
		return cur == IB_WQS_RESET || cur == IB_WQS_RDY;
	case IB_WQS_ERR:
		return cur == IB_WQS_RDY || cur == IB_WQS_ERR;
	default:
		return false;
	}
}

int swr_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		  struct ib_udata *udata)
{
	struct swr_rwq *rwq = to_swr_rwq(ibwq);
	int err;

	err = swr_udata_no_cmd(ibwq->device, udata);
	if (err)
		return err;
	if (mask & ~(IB_WQ_STATE | IB_WQ_CUR_STATE | IB_WQ_FLAGS))
		return -EINVAL;
	/* None of the flags (VLAN stripping, FCS, padding) is offered. */
	if ((mask & IB_WQ_FLAGS) && attr->flags_mask)
		return -EOPNOTSUPP;

	spin_lock_bh(&rwq->lock);
	if ((mask & IB_WQ_CUR_STATE) && attr->curr_wq_state != rwq->state) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (mask & IB_WQ_STATE) {
		if (!swr_rwq_transition_ok(rwq->state, attr->wq_state)) {
			ibdev_dbg(ibwq->device, "modify_wq: WQ %u %d -> %d\n",
				  ibwq->wq_num, rwq->state, attr->wq_state);
			err = -EINVAL;
			goto out_unlock;
		}
		if (attr->wq_state == IB_WQS_RESET &&
		    rwq->state != IB_WQS_RESET)
			swr_rwq_reset(rwq);
		rwq->state = attr->wq_state;
		ibwq->state = attr->wq_state;
	}
	if (rwq->state == IB_WQS_ERR)
		swr_rwq_flush(rwq);
out_unlock:
	spin_unlock_bh(&rwq->lock);
	return err;
}

/* Indirection tables --------------------------------------------------------- */

int swr_create_rwq_ind_table(struct ib_rwq_ind_table *ibtbl,
			     struct ib_rwq_ind_table_init_attr *init,
			     struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibtbl->device);
	int err;

	err = swr_udata_no_cmd(ibtbl->device, udata);
	if (err)
		return err;
	/* The core read 1 << log_ind_tbl_size WQs: a power of two. */
	if (init->log_ind_tbl_size > SWR_LOG_MAX_RWQ_IND_TBL) {
		ibdev_dbg(ibtbl->device, "create_rwq_ind_table: log size %u\n",
			  init->log_ind_tbl_size);
		return -EINVAL;
	}
	if (atomic_inc_return(&sdev->num_rwq_ind_tbl) > SWR_MAX_RWQ_IND_TBL) {
		atomic_dec(&sdev->num_rwq_ind_tbl);
		return -ENOMEM;
	}
	/* For diagnostics only: nothing looks a table up by number. */
	ibtbl->ind_tbl_num = atomic_inc_return(&sdev->rwq_ind_tbl_seq);
	return 0;
}

int swr_destroy_rwq_ind_table(struct ib_rwq_ind_table *ibtbl)
{
	atomic_dec(&to_swr_dev(ibtbl->device)->num_rwq_ind_tbl);
	return 0;
}

/* RSS QPs -------------------------------------------------------------------- */

#define SWR_RX_HASH_IPV4	(SWROCE_RX_HASH_SRC_IPV4 | SWROCE_RX_HASH_DST_IPV4)
#define SWR_RX_HASH_IPV6	(SWROCE_RX_HASH_SRC_IPV6 | SWROCE_RX_HASH_DST_IPV6)
#define SWR_RX_HASH_TCP		(SWROCE_RX_HASH_SRC_PORT_TCP | \
				 SWROCE_RX_HASH_DST_PORT_TCP)
#define SWR_RX_HASH_UDP		(SWROCE_RX_HASH_SRC_PORT_UDP | \
				 SWROCE_RX_HASH_DST_PORT_UDP)

/* mlx5's answers to a hash configuration (create_rss_raw_qp_tir()). */
static int swr_rss_check(struct ib_device *ibdev,
			 const struct ib_qp_init_attr *init,
			 const struct swroce_create_qp_cmd *cmd)
{
	u64 f = cmd->rx_hash_fields_mask;

	if (!(cmd->comp_mask & SWROCE_CREATE_QP_RX_HASH))
		return -EINVAL;
	if (cmd->rx_hash_function != SWROCE_RX_HASH_FUNC_TOEPLITZ ||
	    (f & ~(u64)SWROCE_RX_HASH_FIELDS)) {
		ibdev_dbg(ibdev, "create_qp: RSS function %u fields %#llx\n",
			  cmd->rx_hash_function, f);
		return -EOPNOTSUPP;
	}
	if (cmd->rx_hash_key_len != SWROCE_RX_HASH_KEY_LEN ||
	    ((f & SWR_RX_HASH_IPV4) && (f & SWR_RX_HASH_IPV6)) ||
	    ((f & SWR_RX_HASH_TCP) && (f & SWR_RX_HASH_UDP)))
		return -EINVAL;
	/* No fields: one WQ, a steering target without hashing. */
	if (!f && init->rwq_ind_tbl->log_ind_tbl_size)
		return -EINVAL;
	/* Receive only: no send queue, no send CQ, no SRQ. */
	if (init->cap.max_send_wr || init->cap.max_send_sge ||
	    init->cap.max_inline_data || init->send_cq || init->srq)
		return -EINVAL;
	return 0;
}

int swr_rss_qp_init(struct swr_qp *qp, const struct ib_qp_init_attr *init,
		    const struct swroce_create_qp_cmd *cmd)
{
	struct swr_rss *rss;
	int err;

	err = swr_rss_check(qp->ibqp.device, init, cmd);
	if (err)
		return err;
	rss = kzalloc(sizeof(*rss), GFP_KERNEL);
	if (!rss)
		return -ENOMEM;
	rss->tbl = init->rwq_ind_tbl;
	rss->fields = cmd->rx_hash_fields_mask;
	memcpy(rss->key, cmd->rx_hash_key, sizeof(rss->key));
	qp->rss = rss;
	return 0;
}

void swr_rss_qp_fini(struct swr_qp *qp)
{
	kfree(qp->rss);
	qp->rss = NULL;
}

/*
 * Toeplitz (Microsoft's RSS hash): for every set bit of the input, XOR in
 * the 32 key bits starting at that bit. @len is at most the key's length
 * less 4 (36 bytes: two IPv6 addresses and two ports).
 */
static u32 swr_toeplitz(const u8 *key, const u8 *in, unsigned int len)
{
	u32 window = get_unaligned_be32(key), hash = 0;
	unsigned int i, b;

	for (i = 0; i < len; i++) {
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				hash ^= window;
			window = window << 1 | ((key[i + 4] >> (7 - b)) & 1);
		}
	}
	return hash;
}

static u32 swr_rss_hash(const struct swr_rss *rss,
			const struct swr_raw_hdrs *h)
{
	u8 in[2 * sizeof(struct in6_addr) + 2 * sizeof(__be16)];
	bool tcp, udp;
	u32 n = 0;

	BUILD_BUG_ON(sizeof(in) > SWROCE_RX_HASH_KEY_LEN - 4);
	if (h->ip4 && (rss->fields & SWROCE_RX_HASH_SRC_IPV4)) {
		memcpy(in + n, &h->ip4->saddr, 4);
		n += 4;
	}
	if (h->ip4 && (rss->fields & SWROCE_RX_HASH_DST_IPV4)) {
		memcpy(in + n, &h->ip4->daddr, 4);
		n += 4;
	}
	if (h->ip6 && (rss->fields & SWROCE_RX_HASH_SRC_IPV6)) {
		memcpy(in + n, &h->ip6->saddr, 16);
		n += 16;
	}
	if (h->ip6 && (rss->fields & SWROCE_RX_HASH_DST_IPV6)) {
		memcpy(in + n, &h->ip6->daddr, 16);
		n += 16;
	}
	tcp = h->l4 && h->l4_proto == IPPROTO_TCP;
	udp = h->l4 && h->l4_proto == IPPROTO_UDP;
	if ((tcp && (rss->fields & SWROCE_RX_HASH_SRC_PORT_TCP)) ||
	    (udp && (rss->fields & SWROCE_RX_HASH_SRC_PORT_UDP))) {
		memcpy(in + n, &h->l4[0], 2);
		n += 2;
	}
	if ((tcp && (rss->fields & SWROCE_RX_HASH_DST_PORT_TCP)) ||
	    (udp && (rss->fields & SWROCE_RX_HASH_DST_PORT_UDP))) {
		memcpy(in + n, &h->l4[1], 2);
		n += 2;
	}
	return swr_toeplitz(rss->key, in, n);
}

/* @frame into @rwq's next receive WQE, as swr_raw.c does for a QP's RQ. */
static void swr_rwq_recv(struct swr_rwq *rwq, const u8 *frame, u32 len)
{
	struct swr_dev *sdev = to_swr_dev(rwq->ibwq.device);
	struct swr_recv_wqe *rwqe = &rwq->rwqe;
	struct swroce_cqe cqe;
	int err;

	spin_lock_bh(&rwq->lock);
	if (rwq->state == IB_WQS_ERR)
		swr_rwq_flush(rwq);
	if (rwq->state != IB_WQS_RDY) {
		swr_count(sdev, SWR_CNT_RAW_RX_DROPPED);
		goto out_unlock;
	}
	err = swr_wq_pop(sdev, &rwq->wq, rwqe);
	if (err) {
		/* A bad ring: the WQ is in error, as a QP's RQ would be. */
		if (err == -EINVAL) {
			rwq->state = IB_WQS_ERR;
			rwq->ibwq.state = IB_WQS_ERR;
			swr_rwq_flush(rwq);
		}
		swr_count(sdev, SWR_CNT_RAW_RX_DROPPED);
		goto out_unlock;
	}
	swr_cqe_init(&cqe, rwqe->wr_id, rwq->ibwq.wq_num,
		     swr_raw_place(sdev, rwq->ibwq.pd, rwq->ibwq.wq_num, rwqe,
				   frame, len),
		     SWR_WC_RECV, len);
	swr_rwq_complete(rwq, &cqe);
out_unlock:
	spin_unlock_bh(&rwq->lock);
}

void swr_rss_recv(struct swr_qp *qp, const u8 *frame, u32 len,
		  const struct swr_raw_hdrs *h)
{
	const struct swr_rss *rss = qp->rss;
	u32 mask = (1U << rss->tbl->log_ind_tbl_size) - 1;

	swr_rwq_recv(to_swr_rwq(rss->tbl->ind_tbl[swr_rss_hash(rss, h) & mask]),
		     frame, len);
}
