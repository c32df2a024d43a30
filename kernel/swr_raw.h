/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw packet QPs and flow steering (swr_raw.c): the contract with the
 * engine, the QP verbs and the ops table.
 */
#ifndef SWR_RAW_H
#define SWR_RAW_H

#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_verbs.h>

#include "swr.h"
#include "swr_qp.h"

/* The headers of a frame as the flows (and RSS hashes) look at them. */
struct swr_raw_hdrs {
	const struct ethhdr *eth;
	__be16 proto;		/* the ethertype after any VLAN tag */
	__be16 vlan_tci;
	bool has_vlan;
	const struct iphdr *ip4;
	const struct ipv6hdr *ip6;
	u8 l4_proto;		/* IPPROTO_TCP/UDP when l4 is set */
	const __be16 *l4;	/* source port, then destination port */
};

/* The specs a flow matches on (struct swr_flow.specs). */
enum {
	SWR_FLOW_ETH	= BIT(0),
	SWR_FLOW_IPV4	= BIT(1),
	SWR_FLOW_IPV6	= BIT(2),
	SWR_FLOW_TCP	= BIT(3),
	SWR_FLOW_UDP	= BIT(4),
};

/*
 * One steering rule: a frame whose every spec matches (its fields ANDed
 * with the mask equal the value, which was masked at creation) is
 * delivered to qp. Immutable once on the device's list.
 */
struct swr_flow {
	struct ib_flow ibflow;
	/* In swr_dev.raw_flows, next to the other flows of qp (RCU). */
	struct list_head node;
	struct swr_qp *qp;
	u32 specs;
	struct ib_flow_eth_filter eth, eth_mask;
	struct ib_flow_ipv4_filter ip4, ip4_mask;
	struct ib_flow_ipv6_filter ip6, ip6_mask;
	struct ib_flow_tcp_udp_filter l4, l4_mask;
};

/* The device's raw state: set up at newlink, torn down by dealloc. */
void swr_raw_dev_init(struct swr_dev *sdev);

/*
 * Execute the send WQE in qp->req.wqe of a raw packet QP (sq_lock held,
 * process context): one Ethernet frame to the netdev and to the device's
 * other raw QPs whose flows match. Always completes the WQE.
 */
void swr_raw_send(struct swr_qp *qp);

/*
 * Scatter a received @frame into the consumed receive WQE @rwqe, whose
 * SGEs are @pd's, of the queue numbered @qpn: the completion's status
 * (a frame longer than the WQE is LOC_LEN_ERR, nothing copied).
 */
enum ib_wc_status swr_raw_place(struct swr_dev *sdev, struct ib_pd *pd,
				u32 qpn, const struct swr_recv_wqe *rwqe,
				const u8 *frame, u32 len);

struct ib_flow *swr_create_flow(struct ib_qp *ibqp,
				struct ib_flow_attr *attr,
				struct ib_udata *udata);
int swr_destroy_flow(struct ib_flow *ibflow);

#endif /* SWR_RAW_H */
