// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Port counters through the RDMA core's hw_stats interface
 * ("rdma statistic", sysfs hw_counters). The counters themselves are
 * atomic64_t in struct swr_dev, bumped with swr_count() where things
 * happen.
 */
#include "swr.h"

static const struct rdma_stat_desc swr_counter_descs[] = {
	[SWR_CNT_UDATA_REJECTED] = { .name = "udata_rejected" },
	[SWR_CNT_ABI_MISMATCH] = { .name = "abi_mismatch" },
	[SWR_CNT_MMAP_REFUSED] = { .name = "mmap_refused" },
	[SWR_CNT_RING_INDEX_BAD] = { .name = "ring_index_bad" },
	[SWR_CNT_WQE_BAD] = { .name = "wqe_bad" },
	[SWR_CNT_WQE_CONSUMED] = { .name = "wqe_consumed" },
	[SWR_CNT_DOORBELLS] = { .name = "doorbells" },
	[SWR_CNT_POLLER_WAKEUPS] = { .name = "poller_wakeups" },
	[SWR_CNT_POLLER_SLEEPS] = { .name = "poller_sleeps" },
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
	[SWR_CNT_RX_DROPPED] = { .name = "rx_dropped" },
};

static_assert(ARRAY_SIZE(swr_counter_descs) == SWR_NUM_COUNTERS);

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
