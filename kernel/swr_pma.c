// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The standard IB port counters: /sys/class/infiniband/<dev>/ports/1/
 * counters/ (port_xmit_data, port_rcv_packets, ...), which perfquery-style
 * tools and every RoCE driver provide. The RDMA core builds that sysfs
 * directory for a device with a process_mad verb and reads each file by
 * asking it, locally, for a Performance Management (PMA) attribute:
 * ClassPortInfo once (we announce the 64-bit PortCountersExtended), then
 * PortCounters for the error counters and PortCountersExtended for data
 * and packets.
 *
 * What is counted (swr_dev.port_stats, bumped in swr_net.c, and the
 * device counters tx_pkts and tx_dropped): the
 * RoCEv2 packets that cross the bound netdev, each as its IP datagram
 * (IP header to ICRC, no link-layer header), data in 4-byte words as
 * IBTA counts them. Transfers between the QPs of one device take the
 * local path (swr_engine.c), never reach the port, and are not counted,
 * as traffic a NIC keeps inside itself is not. Only local queries are
 * answered; a PMA MAD arriving from the network goes on to the MAD
 * agents like every other MAD (none takes the PMA class on RoCE).
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "swr.h"

static u64 swr_pstat(struct swr_dev *sdev, enum swr_port_stat s)
{
	return atomic64_read(&sdev->port_stats[s]);
}

/* Sent and not sent: what the device's own counters count already. */
static u64 swr_xmit_pkts(struct swr_dev *sdev)
{
	return atomic64_read(&sdev->counters[SWR_CNT_TX_PKTS]);
}

static u64 swr_xmit_discards(struct swr_dev *sdev)
{
	return atomic64_read(&sdev->counters[SWR_CNT_TX_DROPPED]);
}

/* A 32-bit IBTA counter saturates instead of wrapping. */
static __be32 swr_sat32(u64 v)
{
	return cpu_to_be32(min_t(u64, v, U32_MAX));
}

static __be16 swr_sat16(u64 v)
{
	return cpu_to_be16(min_t(u64, v, U16_MAX));
}

static void swr_pma_class_port_info(struct ib_mad *out)
{
	struct ib_class_port_info *cpi = (void *)(out->data + 40);

	cpi->base_version = 1;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	/* RespTimeValue: 4.096 us * 2^18, about a second, as HCAs give. */
	ib_set_cpi_resp_time(cpi, 18);
}

static void swr_pma_port_counters(struct swr_dev *sdev, struct ib_mad *out)
{
	struct ib_pma_portcounters *pc = (void *)(out->data + 40);

	pc->port_select = SWR_PORT_NUM;
	pc->port_rcv_errors = swr_sat16(swr_pstat(sdev, SWR_PSTAT_RCV_ERRORS));
	pc->port_xmit_discards = swr_sat16(swr_xmit_discards(sdev));
	pc->port_xmit_data = swr_sat32(swr_pstat(sdev, SWR_PSTAT_XMIT_BYTES) / 4);
	pc->port_rcv_data = swr_sat32(swr_pstat(sdev, SWR_PSTAT_RCV_BYTES) / 4);
	pc->port_xmit_packets = swr_sat32(swr_xmit_pkts(sdev));
	pc->port_rcv_packets = swr_sat32(swr_pstat(sdev, SWR_PSTAT_RCV_PKTS));
}

static void swr_pma_port_counters_ext(struct swr_dev *sdev,
				      struct ib_mad *out)
{
	struct ib_pma_portcounters_ext *pc = (void *)(out->data + 40);
	u64 xp = swr_xmit_pkts(sdev);
	u64 rp = swr_pstat(sdev, SWR_PSTAT_RCV_PKTS);
	u64 xm = swr_pstat(sdev, SWR_PSTAT_XMIT_MCAST);
	u64 rm = swr_pstat(sdev, SWR_PSTAT_RCV_MCAST);

	pc->port_select = SWR_PORT_NUM;
	pc->port_xmit_data =
		cpu_to_be64(swr_pstat(sdev, SWR_PSTAT_XMIT_BYTES) / 4);
	pc->port_rcv_data =
		cpu_to_be64(swr_pstat(sdev, SWR_PSTAT_RCV_BYTES) / 4);
	pc->port_xmit_packets = cpu_to_be64(xp);
	pc->port_rcv_packets = cpu_to_be64(rp);
	/* Read apart from the totals: never let unicast go negative. */
	pc->port_unicast_xmit_packets = cpu_to_be64(xp - min(xm, xp));
	pc->port_unicast_rcv_packets = cpu_to_be64(rp - min(rm, rp));
	pc->port_multicast_xmit_packets = cpu_to_be64(xm);
	pc->port_multicast_rcv_packets = cpu_to_be64(rm);
}

int swr_process_mad(struct ib_device *ibdev, int flags, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index)
{
	struct swr_dev *sdev = to_swr_dev(ibdev);
	const struct ib_mad_hdr *hdr = &in->mad_hdr;

	/* Not ours: let the MAD layer hand it to its agents. */
	if (in_wc || port != SWR_PORT_NUM ||
	    hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    hdr->method != IB_MGMT_METHOD_GET || *out_size < sizeof(*out))
		return IB_MAD_RESULT_SUCCESS;

	memset(out, 0, sizeof(*out));
	out->mad_hdr = *hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	switch (hdr->attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		swr_pma_class_port_info(out);
		break;
	case IB_PMA_PORT_COUNTERS:
		swr_pma_port_counters(sdev, out);
		break;
	case IB_PMA_PORT_COUNTERS_EXT:
		swr_pma_port_counters_ext(sdev, out);
		break;
	default:
		out->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		break;
	}
	*out_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
