// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Raw packet QPs and flow steering.
 *
 * A raw packet QP (IB_QPT_RAW_PACKET, created only by a process with
 * CAP_NET_RAW: the RDMA core checks it for both the write and the ioctl
 * command, and for every flow) sends and receives whole Ethernet frames
 * on the device's netdev, as a RoCE NIC's raw Ethernet QPs do (mlx5 is
 * the reference for what the verbs mean). Only on an Ethernet netdev:
 * an L3 device (tun, wireguard) has no frames to give.
 *
 * Send: the gathered bytes of one WQE (SGEs or inline data) are one frame,
 * from the destination MAC on; at least an Ethernet header, at most the
 * netdev's MTU plus the Ethernet header and one VLAN tag, else the WQE
 * completes with IB_WC_LOC_LEN_ERR. The frame goes out dev_queue_xmit() on
 * the netdev unchanged and, as a NIC's loopback does, to this device's
 * other raw QPs whose flows match; never back to the QP that sent it.
 *
 * Receive: a QP receives only what its flows (create_flow) steer to it.
 * The frames arriving on the netdev are seen through a packet_type tap on
 * that netdev alone, registered while any flow exists. The tap sees a
 * copy: the frame also goes up the stack, as if every flow had been
 * created with IB_FLOW_ATTR_FLAGS_DONT_TRAP. mlx5 takes a matched frame
 * away from the kernel unless the flow says DONT_TRAP; here a flow never
 * takes traffic the host's own stack needs, which a software device that
 * shares its netdev with that stack cannot afford to do (a flow on the
 * host's IPv4 address would cut the machine off). A frame matching flows
 * of several QPs is delivered to each of them (as to the QPs of one mlx5
 * rule), once per QP; priorities are accepted and not used to choose.
 * A match takes the QP's next receive WQE (RQ or SRQ) and completes it
 * with IBV_WC_RECV and byte_len the frame's length; with no receive WQE,
 * or a QP not in RTR/RTS, the frame is dropped and counted.
 *
 * Bounds: a received frame costs one allocation of its own length (the
 * linear copy the matching and scattering read), only while flows exist;
 * frames longer than a send may be are dropped. Nothing is logged per
 * frame; the raw_* counters say what happened.
 *
 * Flows are checked and stored by create_flow under raw_mutex and read
 * under RCU by the receive softirq and the sender. destroy_flow unlinks
 * the flow and waits a grace period before it returns, so that when the
 * core lets the QP go (it holds a QP while it has flows) no reader can
 * still hold it through the flow.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_net.h"
#include "swr_raw.h"
#include "swr_rss.h"
#include "swr_wire.h"

/* The longest frame a raw QP sends or receives on @ndev. */
static u32 swr_raw_max_frame(const struct net_device *ndev)
{
	return READ_ONCE(ndev->mtu) + ETH_HLEN + VLAN_HLEN;
}

static void swr_raw_parse(const u8 *frame, u32 len, struct swr_raw_hdrs *h)
{
	u32 off = ETH_HLEN, ihl;

	memset(h, 0, sizeof(*h));
	h->eth = (const struct ethhdr *)frame;
	h->proto = h->eth->h_proto;
	if (eth_type_vlan(h->proto) && len >= ETH_HLEN + VLAN_HLEN) {
		h->has_vlan = true;
		h->vlan_tci = get_unaligned((__be16 *)(frame + ETH_HLEN));
		h->proto = get_unaligned((__be16 *)(frame + ETH_HLEN + 2));
		off += VLAN_HLEN;
	}
	if (h->proto == htons(ETH_P_IP) && len >= off + sizeof(*h->ip4)) {
		h->ip4 = (const struct iphdr *)(frame + off);
		ihl = h->ip4->ihl * 4;
		/* No ports in a fragment after the first one. */
		if (ihl < sizeof(*h->ip4) ||
		    (h->ip4->frag_off & htons(IP_OFFSET)))
			return;
		h->l4_proto = h->ip4->protocol;
		off += ihl;
	} else if (h->proto == htons(ETH_P_IPV6) &&
		   len >= off + sizeof(*h->ip6)) {
		h->ip6 = (const struct ipv6hdr *)(frame + off);
		/* The first next header only, as NICs match it. */
		h->l4_proto = h->ip6->nexthdr;
		off += sizeof(*h->ip6);
	} else {
		return;
	}
	if ((h->l4_proto == IPPROTO_TCP || h->l4_proto == IPPROTO_UDP) &&
	    len >= off + 4)
		h->l4 = (const __be16 *)(frame + off);
}

/* @n bytes of @a, masked with @m, equal @v (already masked)? */
static bool swr_masked_eq(const void *a, const void *m, const void *v,
			  size_t n)
{
	const u8 *pa = a, *pm = m, *pv = v;
	size_t i;

	for (i = 0; i < n; i++)
		if ((pa[i] & pm[i]) != pv[i])
			return false;
	return true;
}

static bool swr_flow_match_eth(const struct swr_flow *f,
			       const struct swr_raw_hdrs *h)
{
	const struct ib_flow_eth_filter *v = &f->eth, *m = &f->eth_mask;

	if (!swr_masked_eq(h->eth->h_dest, m->dst_mac, v->dst_mac, ETH_ALEN) ||
	    !swr_masked_eq(h->eth->h_source, m->src_mac, v->src_mac,
			   ETH_ALEN))
		return false;
	if ((h->proto & m->ether_type) != v->ether_type)
		return false;
	if (m->vlan_tag && (!h->has_vlan ||
			    (h->vlan_tci & m->vlan_tag) != v->vlan_tag))
		return false;
	return true;
}

static bool swr_flow_match_ip(const struct swr_flow *f,
			      const struct swr_raw_hdrs *h)
{
	const struct ib_flow_ipv4_filter *v4 = &f->ip4, *m4 = &f->ip4_mask;
	const struct ib_flow_ipv6_filter *v6 = &f->ip6, *m6 = &f->ip6_mask;
	__be32 fl;

	if (f->specs & SWR_FLOW_IPV4) {
		if (!h->ip4 ||
		    (h->ip4->saddr & m4->src_ip) != v4->src_ip ||
		    (h->ip4->daddr & m4->dst_ip) != v4->dst_ip ||
		    (h->ip4->protocol & m4->proto) != v4->proto ||
		    (h->ip4->tos & m4->tos) != v4->tos)
			return false;
	}
	if (f->specs & SWR_FLOW_IPV6) {
		if (!h->ip6 ||
		    !swr_masked_eq(&h->ip6->saddr, m6->src_ip, v6->src_ip, 16) ||
		    !swr_masked_eq(&h->ip6->daddr, m6->dst_ip, v6->dst_ip, 16))
			return false;
		fl = ip6_flowlabel(h->ip6);
		if ((fl & m6->flow_label) != v6->flow_label ||
		    (h->ip6->nexthdr & m6->next_hdr) != v6->next_hdr ||
		    (ipv6_get_dsfield(h->ip6) & m6->traffic_class) !=
		    v6->traffic_class)
			return false;
	}
	return true;
}

static bool swr_flow_match(const struct swr_flow *f,
			   const struct swr_raw_hdrs *h)
{
	u8 proto;

	if ((f->specs & SWR_FLOW_ETH) && !swr_flow_match_eth(f, h))
		return false;
	if (!swr_flow_match_ip(f, h))
		return false;
	if (!(f->specs & (SWR_FLOW_TCP | SWR_FLOW_UDP)))
		return true;
	proto = f->specs & SWR_FLOW_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	return h->l4 && h->l4_proto == proto &&
	       (h->l4[0] & f->l4_mask.src_port) == f->l4.src_port &&
	       (h->l4[1] & f->l4_mask.dst_port) == f->l4.dst_port;
}

enum ib_wc_status swr_raw_place(struct swr_dev *sdev, struct ib_pd *pd,
				u32 qpn, const struct swr_recv_wqe *rwqe,
				const u8 *frame, u32 len)
{
	if (swr_sge_total(rwqe->sge, rwqe->num_sge) < len)
		return IB_WC_LOC_LEN_ERR;
	if (swr_sge_copy_pd(sdev, pd, qpn, rwqe->sge, rwqe->num_sge, 0,
			    (u8 *)frame, len, true))
		return IB_WC_LOC_PROT_ERR;
	swr_count(sdev, SWR_CNT_RAW_RX_FRAMES);
	return IB_WC_SUCCESS;
}

/*
 * Deliver @frame to @qp's next receive WQE (any context; takes resp_lock).
 * The WQE is held in resp.rwqe, which a raw QP uses for nothing else.
 */
static void swr_raw_recv(struct swr_qp *qp, const u8 *frame, u32 len)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_recv_wqe *rwqe = &qp->resp.rwqe;
	enum ib_qp_state state;
	struct swroce_cqe cqe;
	int err;

	spin_lock_bh(&qp->resp_lock);
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS) {
		swr_count(sdev, SWR_CNT_RAW_RX_DROPPED);
		goto out_unlock;
	}
	err = swr_recv_pop(qp, rwqe, SWROCE_WR_SEND, NULL);
	if (err) {
		if (err == -EINVAL)
			swr_qp_set_error(qp, true);
		swr_count(sdev, SWR_CNT_RAW_RX_DROPPED);
		goto out_unlock;
	}
	swr_cqe_init(&cqe, rwqe->wr_id, qp->ibqp.qp_num,
		     swr_raw_place(sdev, qp->ibqp.pd, qp->ibqp.qp_num, rwqe,
				   frame, len),
		     SWR_WC_RECV, len);
	swr_recv_complete(qp, &cqe, false);
out_unlock:
	spin_unlock_bh(&qp->resp_lock);
}

/*
 * Hand @frame to every raw QP of @sdev with a matching flow, except
 * @sender (NULL for a frame from the wire). A QP's flows sit together on
 * the list, so one copy per QP needs only the last QP served.
 */
static void swr_raw_deliver(struct swr_dev *sdev, const u8 *frame, u32 len,
			    const struct swr_qp *sender)
{
	const struct swr_qp *served = NULL;
	struct swr_raw_hdrs h;
	struct swr_flow *f;

	swr_raw_parse(frame, len, &h);
	rcu_read_lock();
	list_for_each_entry_rcu(f, &sdev->raw_flows, node) {
		if (f->qp == served || f->qp == sender ||
		    !swr_flow_match(f, &h))
			continue;
		served = f->qp;
		if (f->qp->rss)
			swr_rss_recv(f->qp, frame, len, &h);
		else
			swr_raw_recv(f->qp, frame, len);
	}
	rcu_read_unlock();
}

void swr_raw_send(struct swr_qp *qp)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_send_wqe *w = &qp->req.wqe;
	struct net_device *ndev = sdev->ndev;
	struct sk_buff *skb;
	u64 len;

	if (w->hdr.flags & SWROCE_WQE_INLINE)
		len = w->hdr.inline_len;
	else
		len = swr_sge_total(w->sge, w->hdr.num_sge);
	if (len < ETH_HLEN || len > swr_raw_max_frame(ndev)) {
		swr_req_complete(qp, w, IB_WC_LOC_LEN_ERR, 0);
		return;
	}
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + len, GFP_KERNEL);
	if (!skb) {
		/* A frame the NIC could not send: lost, as on a wire. */
		swr_count(sdev, SWR_CNT_RAW_TX_DROPPED);
		swr_req_complete(qp, w, IB_WC_SUCCESS, len);
		return;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	if (swr_wire_sge_copy(qp, w, 0, skb_put(skb, len), len, false)) {
		kfree_skb(skb);
		swr_req_complete(qp, w, IB_WC_LOC_PROT_ERR, 0);
		return;
	}
	swr_raw_deliver(sdev, skb->data, len, qp);

	skb->dev = ndev;
	skb_reset_mac_header(skb);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb_set_network_header(skb, ETH_HLEN);
	/* The queue frees the frame whatever happens to it. */
	if (dev_queue_xmit(skb) == NET_XMIT_SUCCESS)
		swr_count(sdev, SWR_CNT_RAW_TX_FRAMES);
	else
		swr_count(sdev, SWR_CNT_RAW_TX_DROPPED);
	swr_req_complete(qp, w, IB_WC_SUCCESS, len);
}

/*
 * The tap on the netdev (softirq). The skb is shared with the stack and
 * the other taps: it is only read, and the frame is rebuilt as the wire
 * had it - the Ethernet header, a VLAN tag the netdev took out into the
 * skb put back, then the payload.
 */
static int swr_raw_rcv(struct sk_buff *skb, struct net_device *ndev,
		       struct packet_type *pt, struct net_device *orig_ndev)
{
	struct swr_dev *sdev = container_of(pt, struct swr_dev, raw_pt);
	u32 hl, vlan, len;
	const u8 *mac;
	u8 *frame;

	/* Our own frames were delivered before they went out. */
	if (skb->pkt_type == PACKET_OUTGOING || !skb_mac_header_was_set(skb))
		goto out;
	mac = skb_mac_header(skb);
	hl = skb->data - mac;
	if (hl < ETH_HLEN || hl > ETH_HLEN + VLAN_HLEN)
		goto out;
	vlan = skb_vlan_tag_present(skb) ? VLAN_HLEN : 0;
	len = hl + vlan + skb->len;
	if (len > swr_raw_max_frame(sdev->ndev)) {
		swr_count(sdev, SWR_CNT_RAW_RX_DROPPED);
		goto out;
	}
	frame = kmalloc(len, GFP_ATOMIC);
	if (!frame) {
		swr_count(sdev, SWR_CNT_RAW_RX_DROPPED);
		goto out;
	}
	memcpy(frame, mac, 2 * ETH_ALEN);
	if (vlan) {
		put_unaligned(skb->vlan_proto, (__be16 *)(frame + 2 * ETH_ALEN));
		put_unaligned(htons(skb_vlan_tag_get(skb)),
			      (__be16 *)(frame + 2 * ETH_ALEN + 2));
	}
	memcpy(frame + 2 * ETH_ALEN + vlan, mac + 2 * ETH_ALEN,
	       hl - 2 * ETH_ALEN);
	if (!skb_copy_bits(skb, 0, frame + hl + vlan, skb->len))
		swr_raw_deliver(sdev, frame, len, NULL);
	kfree(frame);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

void swr_raw_dev_init(struct swr_dev *sdev)
{
	mutex_init(&sdev->raw_mutex);
	INIT_LIST_HEAD(&sdev->raw_flows);
	sdev->raw_pt.type = htons(ETH_P_ALL);
	sdev->raw_pt.dev = sdev->ndev;
	sdev->raw_pt.func = swr_raw_rcv;
}

/* Flows --------------------------------------------------------------------- */

static int swr_flow_eth(struct swr_flow *f, const struct ib_flow_spec_eth *s)
{
	int i;

	f->eth_mask = s->mask;
	for (i = 0; i < ETH_ALEN; i++) {
		f->eth.dst_mac[i] = s->val.dst_mac[i] & s->mask.dst_mac[i];
		f->eth.src_mac[i] = s->val.src_mac[i] & s->mask.src_mac[i];
	}
	f->eth.ether_type = s->val.ether_type & s->mask.ether_type;
	f->eth.vlan_tag = s->val.vlan_tag & s->mask.vlan_tag;
	return 0;
}

static int swr_flow_ipv4(struct swr_flow *f, const struct ib_flow_spec_ipv4 *s)
{
	/* As mlx5: TTL and the flags are not matched on. */
	if (s->mask.ttl || s->mask.flags)
		return -EOPNOTSUPP;
	f->ip4_mask = s->mask;
	f->ip4.src_ip = s->val.src_ip & s->mask.src_ip;
	f->ip4.dst_ip = s->val.dst_ip & s->mask.dst_ip;
	f->ip4.proto = s->val.proto & s->mask.proto;
	f->ip4.tos = s->val.tos & s->mask.tos;
	return 0;
}

static int swr_flow_ipv6(struct swr_flow *f, const struct ib_flow_spec_ipv6 *s)
{
	int i;

	/* As mlx5: the hop limit is not matched on. */
	if (s->mask.hop_limit)
		return -EOPNOTSUPP;
	f->ip6_mask = s->mask;
	for (i = 0; i < 16; i++) {
		f->ip6.src_ip[i] = s->val.src_ip[i] & s->mask.src_ip[i];
		f->ip6.dst_ip[i] = s->val.dst_ip[i] & s->mask.dst_ip[i];
	}
	f->ip6.flow_label = s->val.flow_label & s->mask.flow_label;
	f->ip6.next_hdr = s->val.next_hdr & s->mask.next_hdr;
	f->ip6.traffic_class = s->val.traffic_class & s->mask.traffic_class;
	return 0;
}

static void swr_flow_l4(struct swr_flow *f,
			const struct ib_flow_spec_tcp_udp *s)
{
	f->l4_mask = s->mask;
	f->l4.src_port = s->val.src_port & s->mask.src_port;
	f->l4.dst_port = s->val.dst_port & s->mask.dst_port;
}

/* One spec into @f: -EINVAL for a type twice or unknown (as mlx5). */
static int swr_flow_spec(struct swr_flow *f, const union ib_flow_spec *s)
{
	size_t need;
	u32 bit;

	if (s->type & IB_FLOW_SPEC_INNER)
		return -EOPNOTSUPP;	/* no tunnels to look into */
	switch (s->type) {
	case IB_FLOW_SPEC_ETH:
		bit = SWR_FLOW_ETH;
		need = sizeof(s->eth);
		break;
	case IB_FLOW_SPEC_IPV4:
		bit = SWR_FLOW_IPV4;
		need = sizeof(s->ipv4);
		break;
	case IB_FLOW_SPEC_IPV6:
		bit = SWR_FLOW_IPV6;
		need = sizeof(s->ipv6);
		break;
	case IB_FLOW_SPEC_TCP:
		bit = SWR_FLOW_TCP;
		need = sizeof(s->tcp_udp);
		break;
	case IB_FLOW_SPEC_UDP:
		bit = SWR_FLOW_UDP;
		need = sizeof(s->tcp_udp);
		break;
	default:
		return -EINVAL;
	}
	if (f->specs & bit || s->size < need)
		return -EINVAL;
	f->specs |= bit;
	switch (s->type) {
	case IB_FLOW_SPEC_ETH:
		return swr_flow_eth(f, &s->eth);
	case IB_FLOW_SPEC_IPV4:
		return swr_flow_ipv4(f, &s->ipv4);
	case IB_FLOW_SPEC_IPV6:
		return swr_flow_ipv6(f, &s->ipv6);
	default:
		swr_flow_l4(f, &s->tcp_udp);
		return 0;
	}
}

#define SWR_SPEC_HDR	offsetofend(union ib_flow_spec, size)

/* The specs after @attr, as the core laid them out; sizes checked. */
static int swr_flow_parse(struct swr_flow *f, const struct ib_flow_attr *attr)
{
	const u8 *p = (const u8 *)(attr + 1);
	u32 left = attr->size - sizeof(*attr), i;
	const union ib_flow_spec *s;
	int err;

	if (attr->size < sizeof(*attr))
		return -EINVAL;
	for (i = 0; i < attr->num_of_specs; i++) {
		s = (const union ib_flow_spec *)p;
		if (left < SWR_SPEC_HDR || s->size < SWR_SPEC_HDR ||
		    s->size > left)
			return -EINVAL;
		err = swr_flow_spec(f, s);
		if (err)
			return err;
		p += s->size;
		left -= s->size;
	}
	/* Both IP versions, or TCP and UDP, would match nothing. */
	if ((f->specs & SWR_FLOW_IPV4 && f->specs & SWR_FLOW_IPV6) ||
	    (f->specs & SWR_FLOW_TCP && f->specs & SWR_FLOW_UDP))
		return -EINVAL;
	return 0;
}

static int swr_flow_check_attr(struct ib_qp *ibqp,
			       const struct ib_flow_attr *attr,
			       struct ib_udata *udata)
{
	struct ib_device *ibdev = ibqp->device;

	if (ibqp->qp_type != IB_QPT_RAW_PACKET) {
		ibdev_dbg(ibdev, "create_flow: QP %u is not a raw packet QP\n",
			  ibqp->qp_num);
		return -EOPNOTSUPP;
	}
	/* No driver data is defined for a flow. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	/* mlx5's answers: unknown flags EINVAL, egress not offered here. */
	if (attr->flags & ~(IB_FLOW_ATTR_FLAGS_DONT_TRAP |
			    IB_FLOW_ATTR_FLAGS_EGRESS))
		return -EINVAL;
	if (attr->flags & IB_FLOW_ATTR_FLAGS_EGRESS)
		return -EOPNOTSUPP;
	if (attr->type != IB_FLOW_ATTR_NORMAL) {
		ibdev_dbg(ibdev, "create_flow: type %d not supported\n",
			  attr->type);
		return -EOPNOTSUPP;
	}
	if (attr->port != SWR_PORT_NUM)
		return -EINVAL;
	return 0;
}

/* Link @f next to its QP's other flows (raw_mutex held). */
static void swr_flow_link(struct swr_dev *sdev, struct swr_flow *f)
{
	struct swr_flow *pos, *last = NULL;

	list_for_each_entry(pos, &sdev->raw_flows, node)
		if (pos->qp == f->qp)
			last = pos;
	if (last)
		list_add_rcu(&f->node, &last->node);
	else
		list_add_tail_rcu(&f->node, &sdev->raw_flows);
}

struct ib_flow *swr_create_flow(struct ib_qp *ibqp,
				struct ib_flow_attr *attr,
				struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibqp->device);
	struct swr_flow *f;
	int err;

	err = swr_flow_check_attr(ibqp, attr, udata);
	if (err)
		return ERR_PTR(err);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	f->qp = to_swr_qp(ibqp);
	err = swr_flow_parse(f, attr);
	if (err) {
		ibdev_dbg(&sdev->ibdev, "create_flow: bad specs (%d)\n", err);
		kfree(f);
		return ERR_PTR(err);
	}

	mutex_lock(&sdev->raw_mutex);
	if (list_empty(&sdev->raw_flows))
		dev_add_pack(&sdev->raw_pt);
	swr_flow_link(sdev, f);
	mutex_unlock(&sdev->raw_mutex);
	return &f->ibflow;
}

int swr_destroy_flow(struct ib_flow *ibflow)
{
	struct swr_flow *f = container_of(ibflow, struct swr_flow, ibflow);
	struct swr_dev *sdev = to_swr_dev(f->qp->ibqp.device);

	mutex_lock(&sdev->raw_mutex);
	list_del_rcu(&f->node);
	/* Waits for the tap's readers too (synchronize_net()). */
	if (list_empty(&sdev->raw_flows))
		dev_remove_pack(&sdev->raw_pt);
	mutex_unlock(&sdev->raw_mutex);
	/* No sender or tap may still reach the QP through the flow. */
	synchronize_rcu();
	kfree(f);
	return 0;
}
