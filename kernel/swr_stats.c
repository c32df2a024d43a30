// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Port counters through the RDMA core's hw_stats interface
 * ("rdma statistic", sysfs hw_counters). The counters themselves are
 * atomic64_t in struct swr_dev, bumped with swr_count() where things
 * happen.
 *
 * Per-QP counters ("rdma statistic qp set link <dev>/1 auto type on",
 * "rdma statistic qp bind link <dev>/1 lqpn N"): the core allocates a
 * struct rdma_counter and binds QPs to it; the first bind gives it an id
 * and its driver half, a struct swr_qp_counter in sdev->counter_xa. A
 * bound QP counts the per-QP events (swr.h) there instead of in the
 * device's array (swr_qp_count()); the core adds running and released
 * counters to the port's figures, so those still count every event once.
 * A counter shows the per-QP counters only.
 */
#include <rdma/rdma_counter.h>

#include "swr.h"
#include "swr_qp.h"
#include "swr_trace.h"

static const struct rdma_stat_desc swr_counter_descs[] = {
	[SWR_CNT_UDATA_REJECTED] = { .name = "udata_rejected" },
	[SWR_CNT_ABI_MISMATCH] = { .name = "abi_mismatch" },
	[SWR_CNT_MMAP_REFUSED] = { .name = "mmap_refused" },
	[SWR_CNT_RING_CAP_REFUSED] = { .name = "ring_cap_refused" },
	[SWR_CNT_RING_NOMEM] = { .name = "ring_nomem" },
	[SWR_CNT_RING_INDEX_BAD] = { .name = "ring_index_bad" },
	[SWR_CNT_WQE_BAD] = { .name = "wqe_bad" },
	[SWR_CNT_WQE_CONSUMED] = { .name = "wqe_consumed" },
	[SWR_CNT_DOORBELLS] = { .name = "doorbells" },
	[SWR_CNT_POLLER_WAKEUPS] = { .name = "poller_wakeups" },
	[SWR_CNT_POLLER_SLEEPS] = { .name = "poller_sleeps" },
	[SWR_CNT_POLLER_STAYS] = { .name = "poller_stays" },
	[SWR_CNT_COMPLETIONS] = { .name = "completions" },
	[SWR_CNT_CQ_OVERFLOW] = { .name = "cq_overflow" },
	[SWR_CNT_ERR_LOCAL] = { .name = "err_local" },
	[SWR_CNT_ERR_REMOTE] = { .name = "err_remote" },
	[SWR_CNT_RNR_NAK] = { .name = "rnr_nak" },
	[SWR_CNT_RETRY_EXC] = { .name = "retry_exceeded" },
	[SWR_CNT_FLUSHED] = { .name = "flushed" },
	[SWR_CNT_TX_PKTS] = { .name = "tx_pkts" },
	[SWR_CNT_TX_DROPPED] = { .name = "tx_dropped" },
	[SWR_CNT_RX_PKTS] = { .name = "rx_pkts" },
	[SWR_CNT_RX_STEERED] = { .name = "rx_steered" },
	[SWR_CNT_STEER_PAUSES] = { .name = "steer_pauses" },
	[SWR_CNT_RX_DROPPED] = { .name = "rx_dropped" },
	[SWR_CNT_TX_BYTES] = { .name = "tx_bytes" },
	[SWR_CNT_RX_BYTES] = { .name = "rx_bytes" },
	[SWR_CNT_RETRANSMITS] = { .name = "retransmits" },
	[SWR_CNT_TIMEOUTS] = { .name = "ack_timeouts" },
	[SWR_CNT_LW_CUTS] = { .name = "loss_window_cuts" },
	[SWR_CNT_LW_PROBES] = { .name = "tail_loss_probes" },
	[SWR_CNT_RNR_NAK_RCVD] = { .name = "rnr_nak_rcvd" },
	[SWR_CNT_NAK_SEQ_SENT] = { .name = "nak_seq_sent" },
	[SWR_CNT_NAK_SEQ_RCVD] = { .name = "nak_seq_rcvd" },
	[SWR_CNT_NAK_INV_SENT] = { .name = "nak_inv_req_sent" },
	[SWR_CNT_NAK_INV_RCVD] = { .name = "nak_inv_req_rcvd" },
	[SWR_CNT_NAK_ACC_SENT] = { .name = "nak_rem_access_sent" },
	[SWR_CNT_NAK_ACC_RCVD] = { .name = "nak_rem_access_rcvd" },
	[SWR_CNT_NAK_OP_SENT] = { .name = "nak_rem_op_sent" },
	[SWR_CNT_NAK_OP_RCVD] = { .name = "nak_rem_op_rcvd" },
	[SWR_CNT_DUP_REQ] = { .name = "dup_requests" },
	[SWR_CNT_OUT_OF_SEQ] = { .name = "out_of_sequence" },
	[SWR_CNT_DUP_RESP] = { .name = "dup_responses" },
	[SWR_CNT_RX_DROP_ICRC] = { .name = "rx_drop_icrc" },
	[SWR_CNT_RX_DROP_MALFORMED] = { .name = "rx_drop_malformed" },
	[SWR_CNT_RX_DROP_PKEY] = { .name = "rx_drop_pkey" },
	[SWR_CNT_RX_DROP_QP] = { .name = "rx_drop_qp" },
	[SWR_CNT_RX_DROP_QKEY] = { .name = "rx_drop_qkey" },
	[SWR_CNT_RX_DROP_NO_RECV] = { .name = "rx_drop_no_recv" },
	[SWR_CNT_RX_DROP_NOMEM] = { .name = "rx_drop_nomem" },
	[SWR_CNT_RX_DROP_DUP_BAD] = { .name = "rx_drop_dup_bad" },
	[SWR_CNT_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[SWR_CNT_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[SWR_CNT_RP_CNP_HANDLED] = { .name = "rp_cnp_handled" },
	[SWR_CNT_RP_CNP_IGNORED] = { .name = "rp_cnp_ignored" },
	[SWR_CNT_RAW_TX_FRAMES] = { .name = "raw_tx_frames" },
	[SWR_CNT_RAW_TX_DROPPED] = { .name = "raw_tx_dropped" },
	[SWR_CNT_RAW_RX_FRAMES] = { .name = "raw_rx_frames" },
	[SWR_CNT_RAW_RX_DROPPED] = { .name = "raw_rx_dropped" },
};

static_assert(ARRAY_SIZE(swr_counter_descs) == SWR_NUM_COUNTERS);

/* The counters a QP counts for itself (swr_qp_count() callers). */
static const enum swr_counter swr_qp_counters[] = {
	SWR_CNT_WQE_CONSUMED,
	SWR_CNT_DOORBELLS,
	SWR_CNT_COMPLETIONS,
	SWR_CNT_ERR_LOCAL,
	SWR_CNT_ERR_REMOTE,
	SWR_CNT_RNR_NAK,
	SWR_CNT_RETRY_EXC,
	SWR_CNT_FLUSHED,
	/* the wire's and congestion control's: swr_qp_count() too */
	SWR_CNT_RETRANSMITS,
	SWR_CNT_TIMEOUTS,
	SWR_CNT_LW_CUTS,
	SWR_CNT_LW_PROBES,
	SWR_CNT_RNR_NAK_RCVD,
	SWR_CNT_NAK_SEQ_SENT,
	SWR_CNT_NAK_SEQ_RCVD,
	SWR_CNT_NAK_INV_SENT,
	SWR_CNT_NAK_INV_RCVD,
	SWR_CNT_NAK_ACC_SENT,
	SWR_CNT_NAK_ACC_RCVD,
	SWR_CNT_NAK_OP_SENT,
	SWR_CNT_NAK_OP_RCVD,
	SWR_CNT_DUP_REQ,
	SWR_CNT_OUT_OF_SEQ,
	SWR_CNT_DUP_RESP,
	SWR_CNT_NP_ECN_MARKED,
	SWR_CNT_NP_CNP_SENT,
	SWR_CNT_RP_CNP_HANDLED,
	SWR_CNT_RP_CNP_IGNORED,
};

/*
 * A received packet dropped for @reason. PortRcvErrors (IBTA 16.1.3.5)
 * counts the packets with errors, not those the port could not use (no QP,
 * no memory): malformed headers and a bad ICRC, wherever they are found.
 */
void swr_rx_drop(struct swr_dev *sdev, enum swr_counter reason, u32 qpn)
{
	atomic64_inc(&sdev->counters[SWR_CNT_RX_DROPPED]);
	atomic64_inc(&sdev->counters[reason]);
	if (reason == SWR_CNT_RX_DROP_ICRC ||
	    reason == SWR_CNT_RX_DROP_MALFORMED)
		swr_port_count(sdev, SWR_PSTAT_RCV_ERRORS, 1);
	trace_swr_pkt_drop(sdev, reason, qpn);
}

void swr_tx_drop(struct swr_dev *sdev, u32 dqpn)
{
	atomic64_inc(&sdev->counters[SWR_CNT_TX_DROPPED]);
	trace_swr_pkt_drop(sdev, SWR_CNT_TX_DROPPED, dqpn);
}

struct rdma_hw_stats *swr_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	/* Reading an atomic64_t costs nothing: no caching lifespan. */
	return rdma_alloc_hw_stats_struct(swr_counter_descs, SWR_NUM_COUNTERS,
					  0);
}

int swr_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct swr_dev *sdev = to_swr_dev(ibdev);
	int i;

	for (i = 0; i < SWR_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	return SWR_NUM_COUNTERS;
}

/*
 * A counter's values have the port's layout (the core adds them index by
 * index to the port's history); those no QP counts are hidden.
 */
struct rdma_hw_stats *swr_counter_alloc_stats(struct rdma_counter *counter)
{
	struct rdma_hw_stats *stats;
	unsigned int i;

	stats = rdma_alloc_hw_stats_struct(swr_counter_descs,
					   SWR_NUM_COUNTERS, 0);
	if (!stats)
		return NULL;
	bitmap_fill(stats->is_disabled, SWR_NUM_COUNTERS);
	for (i = 0; i < ARRAY_SIZE(swr_qp_counters); i++)
		clear_bit(swr_qp_counters[i], stats->is_disabled);
	return stats;
}

/* Under counter->lock (the core's), like every op below. */
int swr_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct swr_dev *sdev = to_swr_dev(counter->device);
	struct swr_qp *qp = to_swr_qp(ibqp);
	struct swr_qp_counter *qc;
	u32 id;
	int err;

	if (!counter->id) {
		qc = kzalloc(sizeof(*qc), GFP_KERNEL);
		if (!qc)
			return -ENOMEM;
		err = xa_alloc(&sdev->counter_xa, &id, qc, xa_limit_32b,
			       GFP_KERNEL);
		if (err) {
			kfree(qc);
			return err;
		}
		counter->id = id;
	} else {
		qc = xa_load(&sdev->counter_xa, counter->id);
		if (!qc)
			return -EINVAL;
	}
	rcu_assign_pointer(qp->counter, qc);
	ibqp->counter = counter;
	return 0;
}

int swr_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct swr_qp *qp = to_swr_qp(ibqp);

	/* Events from now on count for the device again. */
	RCU_INIT_POINTER(qp->counter, NULL);
	ibqp->counter = NULL;
	return 0;
}

/* The last QP is unbound and the core has read the values one last time. */
int swr_counter_dealloc(struct rdma_counter *counter)
{
	struct swr_dev *sdev = to_swr_dev(counter->device);
	struct swr_qp_counter *qc;

	if (!counter->id)
		return 0;
	qc = xa_erase(&sdev->counter_xa, counter->id);
	/* A QP's swr_qp_count() may still hold it under RCU. */
	if (qc)
		kfree_rcu(qc, rcu);
	return 0;
}

int swr_counter_update_stats(struct rdma_counter *counter)
{
	struct swr_dev *sdev = to_swr_dev(counter->device);
	struct swr_qp_counter *qc;
	unsigned int i;

	qc = counter->id ? xa_load(&sdev->counter_xa, counter->id) : NULL;
	for (i = 0; i < ARRAY_SIZE(swr_qp_counters); i++)
		counter->stats->value[swr_qp_counters[i]] =
			qc ? atomic64_read(&qc->v[swr_qp_counters[i]]) : 0;
	return 0;
}
