// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire: UDP port 4791 sockets per network namespace, transmit through
 * the IP stack, and the receive path (see swr_net.h).
 */
#include <linux/hash.h>
#include <linux/if_vlan.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "swr.h"
#include "swr_mr.h"
#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_steer.h"

#define SWR_GRH_BYTES		40
#define SWR_QKEY_PRIVILEGED	0x80000000U

/* One namespace's port 4791. */
struct swr_wire {
	struct net *net;	/* not referenced: pernet exit closes us */
	struct socket *sk4;
	struct socket *sk6;	/* NULL without IPv6 */
	struct list_head devs;	/* swr_dev.wire_node, RCU readers */
	struct list_head node;	/* swr_wires */
	struct rcu_head rcu;
};

/* Protects swr_wires, each wire's devs and every sdev->wire update. */
static DEFINE_MUTEX(swr_net_mutex);
static LIST_HEAD(swr_wires);

static int swr_udp_rcv(struct sock *sk, struct sk_buff *skb);

static struct socket *swr_sock_open(struct net *net, bool ipv6,
				    struct swr_wire *wire)
{
	struct udp_tunnel_sock_cfg tnl = {
		.sk_user_data = wire,
		.encap_type = 1,
		.encap_rcv = swr_udp_rcv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(SWR_ROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
		/* RoCEv2 sends a zero UDP checksum over IPv6 too. */
		cfg.use_udp6_rx_checksums = 0;
	} else {
		cfg.family = AF_INET;
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

static void swr_wire_free(struct swr_wire *wire)
{
	if (wire->sk6)
		udp_tunnel_sock_release(wire->sk6);
	if (wire->sk4)
		udp_tunnel_sock_release(wire->sk4);
	kfree_rcu(wire, rcu);
}

static struct swr_wire *swr_wire_open(struct net *net)
{
	struct swr_wire *wire;
	struct socket *sock;

	wire = kzalloc(sizeof(*wire), GFP_KERNEL);
	if (!wire)
		return ERR_PTR(-ENOMEM);
	wire->net = net;
	INIT_LIST_HEAD(&wire->devs);

	sock = swr_sock_open(net, false, wire);
	if (IS_ERR(sock)) {
		kfree(wire);
		return ERR_CAST(sock);
	}
	wire->sk4 = sock;
	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = swr_sock_open(net, true, wire);
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
			swr_wire_free(wire);
			return ERR_CAST(sock);
		}
		if (!IS_ERR(sock))
			wire->sk6 = sock;
	}
	list_add(&wire->node, &swr_wires);
	return wire;
}

/*
 * A namespace that is being dismantled gets no new sockets: its pernet
 * exit (swr_net_ns_exit()) may have run already and would never close
 * them. maybe_get_net() fails once the namespace's count reached zero;
 * while we hold the reference it cannot reach zero, and once we drop it
 * the exit finds our wire on swr_wires and closes it.
 */
void swr_net_attach(struct swr_dev *sdev)
{
	struct swr_wire *wire;
	struct net *net;

	if (rcu_access_pointer(sdev->wire))
		return;
	net = maybe_get_net(dev_net(sdev->ndev));
	if (!net) {
		ibdev_dbg(&sdev->ibdev, "netns is going away: local only\n");
		return;
	}
	mutex_lock(&swr_net_mutex);
	if (rcu_access_pointer(sdev->wire) || sdev->wire_dead)
		goto out;
	list_for_each_entry(wire, &swr_wires, node)
		if (net_eq(wire->net, net))
			goto found;
	wire = swr_wire_open(net);
	if (IS_ERR(wire)) {
		/* EADDRINUSE: rdma_rxe (or another user) has the port. */
		ibdev_dbg(&sdev->ibdev, "udp port %u: %ld, local only\n",
			  SWR_ROCE_UDP_PORT, PTR_ERR(wire));
		goto out;
	}
found:
	list_add_tail_rcu(&sdev->wire_node, &wire->devs);
	rcu_assign_pointer(sdev->wire, wire);
out:
	mutex_unlock(&swr_net_mutex);
	put_net(net);
}

/* Under swr_net_mutex: take @sdev off its wire; true when it was on one. */
static struct swr_wire *swr_net_unlink(struct swr_dev *sdev)
{
	struct swr_wire *wire = rcu_dereference_protected(sdev->wire,
				lockdep_is_held(&swr_net_mutex));

	if (!wire)
		return NULL;
	list_del_rcu(&sdev->wire_node);
	RCU_INIT_POINTER(sdev->wire, NULL);
	return wire;
}

static void swr_mcast_dev_fini(struct swr_dev *sdev);

void swr_net_detach(struct swr_dev *sdev)
{
	struct swr_wire *wire;

	swr_mcast_dev_fini(sdev);
	mutex_lock(&swr_net_mutex);
	sdev->wire_dead = true;
	wire = swr_net_unlink(sdev);
	if (wire && list_empty(&wire->devs))
		list_del(&wire->node);
	else
		wire = NULL;
	mutex_unlock(&swr_net_mutex);
	/* Receive and transmit paths that saw us are done after this. */
	synchronize_net();
	/* And what receive steering queued for us (swr_steer.c). */
	swr_steer_drain(sdev);
	if (wire)
		swr_wire_free(wire);
}

static void __net_exit swr_net_ns_exit(struct net *net)
{
	struct swr_wire *wire, *found = NULL;
	struct swr_dev *sdev, *tmp;

	mutex_lock(&swr_net_mutex);
	list_for_each_entry(wire, &swr_wires, node) {
		if (net_eq(wire->net, net)) {
			found = wire;
			break;
		}
	}
	if (found) {
		list_for_each_entry_safe(sdev, tmp, &found->devs, wire_node) {
			swr_net_unlink(sdev);
			sdev->wire_dead = true;
		}
		list_del(&found->node);
	}
	mutex_unlock(&swr_net_mutex);
	if (found) {
		synchronize_net();
		swr_wire_free(found);
	}
}

static struct pernet_operations swr_net_ops = {
	.exit = swr_net_ns_exit,
};

int swr_net_init(void)
{
	return register_pernet_subsys(&swr_net_ops);
}

void swr_net_exit(void)
{
	unregister_pernet_subsys(&swr_net_ops);
}

/* Transmit ------------------------------------------------------------------ */

static bool swr_gid_v4(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);
}

u16 swr_ndev_vlan(const struct net_device *ndev)
{
	return is_vlan_dev(ndev) ? vlan_dev_vlan_id(ndev) : 0xffff;
}

int swr_gid_attr_oif(const struct ib_gid_attr *attr, u16 *vlan)
{
	struct net_device *ndev;
	int oif = 0;

	if (vlan)
		*vlan = 0xffff;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev)) {
		oif = ndev->ifindex;
		if (vlan)
			*vlan = swr_ndev_vlan(ndev);
	}
	rcu_read_unlock();
	return oif;
}

/* RoCEv2 flow entropy: a per-QP-pair UDP source port. */
__be16 swr_sport(u32 sqpn, u32 dqpn)
{
	return htons(SWR_ROCE_SPORT_BASE |
		     hash_32(sqpn * 31 + dqpn, 14));
}

/*
 * The route of a batch (swr_xmit_batch()): taken from the QP's route
 * cache or looked up once for the batch, held until it is sent, and
 * checked before each packet (dst_check(): a route, address or link
 * change since the lookup makes it obsolete) so that no packet leaves on
 * a route the stack has given up. RCU read side (sdev->wire).
 */
struct swr_tx_route {
	struct swr_wire *wire;
	struct swr_route_cache *cache;	/* NULL: none (UD) */
	struct dst_entry *dst;	/* referenced, NULL: not looked up */
	struct sock *sk;
	u32 cookie;		/* IPv6: the fib6 serial number it had */
	int err;		/* the lookup's error */
};

void swr_route_cache_init(struct swr_route_cache *rc)
{
	spin_lock_init(&rc->lock);
	rc->dst = NULL;
}

void swr_route_cache_fini(struct swr_route_cache *rc)
{
	dst_release(rc->dst);
	rc->dst = NULL;
}

static bool swr_route_key_eq(const struct swr_route_cache *rc,
			     const struct swr_wire_dest *d, int oif)
{
	return rc->oif == oif &&
	       !memcmp(&rc->sgid, &d->sgid, sizeof(d->sgid)) &&
	       !memcmp(&rc->dgid, &d->dgid, sizeof(d->dgid));
}

/*
 * The cached route of @d into @rt, referenced, if it is still good: the
 * key is @d's, the dst lives in the wire's namespace (a device that moved
 * to another one looks up there) and is not obsolete.
 */
static bool swr_route_cache_get(struct swr_tx_route *rt,
				const struct swr_wire_dest *d, int oif)
{
	struct swr_route_cache *rc = rt->cache;
	struct dst_entry *dst;

	spin_lock(&rc->lock);
	dst = rc->dst;
	if (dst && swr_route_key_eq(rc, d, oif) &&
	    dst_check(dst, rc->cookie) &&
	    net_eq(dev_net(READ_ONCE(dst->dev)), rt->wire->net)) {
		dst_hold(dst);
		rt->dst = dst;
		rt->cookie = rc->cookie;
	}
	spin_unlock(&rc->lock);
	return rt->dst;
}

/* Keep the route @rt looked up for @d in the QP's cache. */
static void swr_route_cache_set(struct swr_tx_route *rt,
				const struct swr_wire_dest *d, int oif)
{
	struct swr_route_cache *rc = rt->cache;
	struct dst_entry *old;

	dst_hold(rt->dst);
	spin_lock(&rc->lock);
	old = rc->dst;
	rc->dst = rt->dst;
	rc->cookie = rt->cookie;
	rc->oif = oif;
	rc->sgid = d->sgid;
	rc->dgid = d->dgid;
	spin_unlock(&rc->lock);
	dst_release(old);
}

/* Look up the route of @d into @rt (its old one released). */
static void swr_tx_route_get(struct swr_dev *sdev, struct swr_tx_route *rt,
			     const struct swr_wire_dest *d, bool v4)
{
	int oif = d->oif ?: sdev->ndev->ifindex;
	struct dst_entry *dst;

	dst_release(rt->dst);
	rt->dst = NULL;
	rt->wire = rcu_dereference(sdev->wire);
	rt->err = -ENETUNREACH;
	if (!rt->wire || (!v4 && !rt->wire->sk6))
		return;
	rt->sk = v4 ? rt->wire->sk4->sk : rt->wire->sk6->sk;
	rt->err = 0;
	if (rt->cache && swr_route_cache_get(rt, d, oif))
		return;
	if (v4) {
		struct flowi4 fl = {
			.flowi4_oif = oif,
			.flowi4_proto = IPPROTO_UDP,
		};
		struct rtable *r;

		memcpy(&fl.daddr, d->dgid.raw + 12, 4);
		memcpy(&fl.saddr, d->sgid.raw + 12, 4);
		r = ip_route_output_key(rt->wire->net, &fl);
		dst = IS_ERR(r) ? ERR_CAST(r) : &r->dst;
	} else {
		struct flowi6 fl6 = {
			.flowi6_oif = oif,
			.flowi6_proto = IPPROTO_UDP,
		};

		memcpy(&fl6.daddr, d->dgid.raw, sizeof(fl6.daddr));
		memcpy(&fl6.saddr, d->sgid.raw, sizeof(fl6.saddr));
		dst = ipv6_stub->ipv6_dst_lookup_flow(rt->wire->net, rt->sk,
						      &fl6, NULL);
		if (!IS_ERR(dst))
			rt->cookie = rt6_get_cookie((struct rt6_info *)dst);
	}
	if (IS_ERR(dst)) {
		rt->err = PTR_ERR(dst);
		return;
	}
	rt->dst = dst;
	if (rt->cache)
		swr_route_cache_set(rt, d, oif);
}

/*
 * The route for the next packet of the batch: the one looked up for the
 * packet before unless the device left its wire or the route went
 * obsolete since. 0, or the error to drop the packet with.
 */
static int swr_tx_route(struct swr_dev *sdev, struct swr_tx_route *rt,
			const struct swr_wire_dest *d, bool v4)
{
	if (!rt->dst || rt->wire != rcu_access_pointer(sdev->wire) ||
	    !dst_check(rt->dst, rt->cookie))
		swr_tx_route_get(sdev, rt, d, v4);
	return rt->err;
}

/* Put the UDP and IP headers of @d in front of @skb (data at the BTH). */
static void *swr_tx_headers(struct swr_dev *sdev, struct sk_buff *skb,
			    const struct swr_wire_dest *d, __be16 sport,
			    struct dst_entry *dst, bool v4)
{
	u8 tclass = swr_cc_tclass(sdev, d->traffic_class, *skb->data);
	struct udphdr *udph = skb_push(skb, sizeof(*udph));
	struct ipv6hdr *ip6;
	struct iphdr *ip4;

	skb_reset_transport_header(skb);
	udph->source = sport;
	udph->dest = htons(SWR_ROCE_UDP_PORT);
	udph->len = htons(skb->len);
	udph->check = 0;

	skb->priority = d->sl;
	skb->ignore_df = 0;
	skb->ip_summed = CHECKSUM_NONE;
	if (v4) {
		ip4 = skb_push(skb, sizeof(*ip4));
		skb_reset_network_header(skb);
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		skb->protocol = htons(ETH_P_IP);
		ip4->version = 4;
		ip4->ihl = sizeof(*ip4) >> 2;
		ip4->tos = tclass;
		ip4->tot_len = htons(skb->len);
		ip4->id = 0;
		ip4->frag_off = htons(IP_DF);
		ip4->ttl = d->hop_limit ? d->hop_limit : ip4_dst_hoplimit(dst);
		ip4->protocol = IPPROTO_UDP;
		memcpy(&ip4->saddr, d->sgid.raw + 12, 4);
		memcpy(&ip4->daddr, d->dgid.raw + 12, 4);
		ip4->check = 0;
		return ip4;
	}
	ip6 = skb_push(skb, sizeof(*ip6));
	skb_reset_network_header(skb);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb->protocol = htons(ETH_P_IPV6);
	ip6_flow_hdr(ip6, tclass, htonl(d->flow_label & 0xfffff));
	ip6->payload_len = htons(skb->len - sizeof(*ip6));
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = d->hop_limit ? d->hop_limit : ip6_dst_hoplimit(dst);
	memcpy(&ip6->saddr, d->sgid.raw, sizeof(ip6->saddr));
	memcpy(&ip6->daddr, d->dgid.raw, sizeof(ip6->daddr));
	return ip6;
}

/*
 * Send one packet of a batch (its data the BTH, its tail the ICRC's 4
 * bytes) on @rt: headers, ICRC, ip_local_out(). Consumes @skb.
 */
static int swr_tx_one(struct swr_dev *sdev, struct swr_tx_route *rt,
		      struct sk_buff *skb, const struct swr_wire_dest *d,
		      __be16 sport, bool v4)
{
	u32 roce_len = skb->len - SWR_ICRC_BYTES;
	u8 *bth = skb->data;
	/* For the drop event: the skb may be gone by then. */
	u32 dqpn = get_unaligned_be32(bth + offsetof(struct swr_bth, qpn)) &
		   SWR_QPN_MASK;
	u32 dgram_len;
	void *iph;
	int err;

	err = swr_tx_route(sdev, rt, d, v4);
	if (err) {
		kfree_skb(skb);
		swr_tx_drop(sdev, dqpn);
		return err;
	}
	iph = swr_tx_headers(sdev, skb, d, sport, rt->dst, v4);
	put_unaligned_le32(swr_icrc(sdev, iph, v4, bth, roce_len),
			   bth + roce_len);
	dgram_len = skb->len;
	/* The batch holds the route: no reference per packet. */
	skb_dst_set_noref(skb, rt->dst);
	if (v4)
		err = ip_local_out(rt->wire->net, rt->sk, skb);
	else
		err = ip6_local_out(rt->wire->net, rt->sk, skb);
	err = net_xmit_eval(err);
	if (err) {
		swr_tx_drop(sdev, dqpn);
		return err;
	}
	swr_count(sdev, SWR_CNT_TX_PKTS);
	swr_count_add(sdev, SWR_CNT_TX_BYTES,
		      sizeof(struct udphdr) + roce_len + SWR_ICRC_BYTES);
	swr_port_count(sdev, SWR_PSTAT_XMIT_BYTES, dgram_len);
	if (rdma_is_multicast_addr((struct in6_addr *)d->dgid.raw))
		swr_port_count(sdev, SWR_PSTAT_XMIT_MCAST, 1);
	return 0;
}

/*
 * Send the packets queued on @q to @d, in order, and empty @q. Bottom
 * halves stay off while they go out: on a veth (or loopback) each
 * netif_rx() then only queues its packet for the peer, and the receive
 * softirq takes the whole batch in one pass when they come back on,
 * instead of running once per packet inside its transmit. The RCU read
 * side this opens keeps sdev->wire, and with it the socket and the
 * namespace, for the batch (swr_net_detach() and the pernet exit wait
 * with synchronize_net()). Returns the first error, 0 if none.
 */
int swr_xmit_batch(struct swr_dev *sdev, struct sk_buff_head *q,
		   const struct swr_wire_dest *d, __be16 sport,
		   struct swr_route_cache *rc)
{
	struct swr_tx_route rt = { .cache = rc };
	bool v4 = swr_gid_v4(&d->dgid);
	struct sk_buff *skb;
	int err = 0, e;
	bool steer;

	if (skb_queue_empty(q))
		return 0;
	steer = swr_steer_tx_begin(sdev);
	local_bh_disable();
	rcu_read_lock();
	while ((skb = __skb_dequeue(q))) {
		e = swr_tx_one(sdev, &rt, skb, d, sport, v4);
		if (!err)
			err = e;
	}
	dst_release(rt.dst);
	rcu_read_unlock();
	local_bh_enable();
	swr_steer_tx_end(sdev, steer);
	return err;
}

/* Send one packet (data at the BTH, ICRC room at the tail); consumes it. */
int swr_xmit(struct swr_dev *sdev, struct sk_buff *skb,
	     const struct swr_wire_dest *d, __be16 sport,
	     struct swr_route_cache *rc)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	__skb_queue_tail(&q, skb);
	return swr_xmit_batch(sdev, &q, d, sport, rc);
}

/* An skb with room for every header, its data at the BTH (@hdr_len). */
struct sk_buff *swr_skb_alloc(struct swr_dev *sdev, u32 hdr_len, u32 paylen,
			      u32 pad)
{
	u32 head = LL_RESERVED_SPACE(sdev->ndev) + sizeof(struct ipv6hdr) +
		   sizeof(struct udphdr);
	u32 size = head + hdr_len + paylen + pad + SWR_ICRC_BYTES;
	struct sk_buff *skb;

	/* Full-sized packets: a recycled page, not a cleared kmalloc. */
	skb = swr_txbuf_skb(size);
	if (!skb)
		skb = alloc_skb(size, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb->priority = 0;
	skb_put_zero(skb, hdr_len);
	return skb;
}

void swr_bth_init(struct swr_bth *bth, u8 opcode, bool se, u32 pad, u32 dqpn,
		  u32 psn, bool ack_req)
{
	bth->opcode = opcode;
	bth->flags = (se ? SWR_BTH_SE : 0) |
		     ((pad << SWR_BTH_PAD_SHIFT) & SWR_BTH_PAD_MASK);
	bth->pkey = htons(SWR_DEFAULT_PKEY);
	bth->qpn = htonl(dqpn & SWR_QPN_MASK);
	bth->apsn = htonl((psn & ((1U << SWR_PSN_BITS) - 1)) |
			  (ack_req ? SWR_BTH_ACK_REQ : 0));
}

/* Append @len payload bytes from @lseg (or @kbuf) and the pad. */
static int swr_skb_put_payload(struct sk_buff *skb, const struct swr_seg *lseg,
			       u32 nl, const u8 *kbuf, u32 len, u32 pad)
{
	u8 *p = skb_put(skb, len);
	u64 n;
	u32 i;
	int err;

	if (kbuf) {
		memcpy(p, kbuf, len);
	} else {
		for (i = 0; i < nl && len; i++) {
			n = min_t(u64, lseg[i].len, len);
			err = swr_mr_copy(lseg[i].mr, lseg[i].iova, p, n,
					  SWR_COPY_FROM_MR);
			if (err)
				return err;
			p += n;
			len -= (u32)n;
		}
		if (len)
			return -ERANGE;
	}
	skb_put_zero(skb, pad + SWR_ICRC_BYTES);
	return 0;
}

int swr_net_send_ud(struct swr_qp *qp, const struct swr_send_wqe *w,
		    const struct swr_wire_dest *d, u32 dqpn, u32 qkey,
		    u32 len, const struct swr_seg *lseg, u32 nl)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	bool imm = w->hdr.opcode == SWROCE_WR_SEND_WITH_IMM;
	u32 hdr_len = sizeof(struct swr_bth) + sizeof(struct swr_deth) +
		      (imm ? sizeof(struct swr_immdt) : 0);
	u32 pad = (4 - (len & 3)) & 3;
	struct swr_deth *deth;
	struct sk_buff *skb;
	int err;

	skb = swr_skb_alloc(sdev, hdr_len, len, pad);
	if (!skb) {
		swr_tx_drop(sdev, dqpn);
		return -ENOMEM;
	}
	swr_bth_init((struct swr_bth *)skb->data,
		     SWR_OP_UD | (imm ? SWR_OP_SEND_ONLY_IMM : SWR_OP_SEND_ONLY),
		     w->hdr.flags & SWROCE_WQE_SOLICITED, pad, dqpn,
		     qp->req.psn, false);
	deth = (struct swr_deth *)(skb->data + sizeof(struct swr_bth));
	deth->qkey = htonl(qkey);
	deth->sqp = htonl(qp->ibqp.qp_num & SWR_QPN_MASK);
	if (imm)
		((struct swr_immdt *)(deth + 1))->imm =
			(__force __be32)w->hdr.ex;

	err = swr_skb_put_payload(skb, lseg, nl,
				  w->hdr.flags & SWROCE_WQE_INLINE ?
				  w->inline_data : NULL, len, pad);
	if (err) {
		kfree_skb(skb);
		swr_tx_drop(sdev, dqpn);
		return err;
	}
	return swr_xmit(sdev, skb, d, swr_sport(qp->ibqp.qp_num, dqpn), NULL);
}

/* Receive ------------------------------------------------------------------- */

/* The 40 bytes in front of a UD receive: the packet's own IP header. */
static int swr_rx_grh(const struct swr_rx *rx, u8 *grh)
{
	memset(grh, 0, SWR_GRH_BYTES);
	if (rx->ipv4) {
		memcpy(grh + 20, ip_hdr(rx->skb), sizeof(struct iphdr));
		return RDMA_NETWORK_IPV4;
	}
	memcpy(grh, ipv6_hdr(rx->skb), sizeof(struct ipv6hdr));
	return RDMA_NETWORK_IPV6;
}

/* Deliver the UD datagram @rx to QP @qpn (its own, or a multicast copy). */
static void swr_rx_ud(struct swr_rx *rx, u32 qpn)
{
	struct swr_dev *sdev = rx->sdev;
	const struct swr_deth *deth = (const void *)(rx->hdr + sizeof(*rx->bth));
	struct swr_recv_wqe *rwqe;
	struct swr_seg *rseg;
	struct swroce_cqe cqe;
	u8 grh[SWR_GRH_BYTES];
	unsigned long flags;
	struct swr_qp *qp;
	u32 qkey, nr = 0, total = rx->paylen + SWR_GRH_BYTES;
	enum swr_counter reason = SWR_CNT_RX_DROP_QP;
	int net, err;
	bool ok;

	qp = swr_qp_get(sdev, qpn);
	if (!qp) {
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_QP, qpn);
		return;
	}
	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI)
		goto drop;

	spin_lock_bh(&qp->resp_lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	ok = qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS ||
	     qp->state == IB_QPS_SQD;
	qkey = qp->attr.qkey;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!ok || ntohl(deth->qkey) != qkey) {
		ibdev_dbg(&sdev->ibdev, "ud rx: qp %u drops (qkey %#x)\n",
			  qpn, ntohl(deth->qkey));
		if (ok)
			reason = SWR_CNT_RX_DROP_QKEY;
		goto drop_unlock;
	}
	if (!swr_wire_qp_get(qp, GFP_ATOMIC)) {
		reason = SWR_CNT_RX_DROP_NOMEM;
		goto drop_unlock;
	}
	rwqe = &qp->resp.rwqe;
	rseg = qp->wire->seg;
	err = swr_recv_pop(qp, rwqe, rx->op->flags & SWR_OPF_IMMDT ?
			   SWROCE_WR_SEND_WITH_IMM : SWROCE_WR_SEND, NULL);
	if (err) {
		if (err == -EINVAL)
			swr_qp_set_error(qp, true);
		reason = SWR_CNT_RX_DROP_NO_RECV;
		goto drop_unlock;
	}
	qp->resp.psn = (rx->psn + 1) & SWR_QPN_MASK;

	swr_cqe_init(&cqe, rwqe->wr_id, qp->ibqp.qp_num, IB_WC_SUCCESS,
		     SWR_WC_RECV, total);
	cqe.src_qp = ntohl(deth->sqp) & SWR_QPN_MASK;
	if (rx->op->flags & SWR_OPF_IMMDT) {
		cqe.flags |= SWROCE_CQE_WITH_IMM;
		cqe.ex_data = (__force u32)((const struct swr_immdt *)
					    (deth + 1))->imm;
	}
	err = swr_segs_get(qp, rwqe->sge, rwqe->num_sge, total,
			   IB_ACCESS_LOCAL_WRITE, rseg, &nr);
	if (err) {
		cqe.status = IB_WC_LOC_PROT_ERR;
		goto complete;
	}
	{
		u64 have = 0;
		u32 i;

		for (i = 0; i < nr; i++)
			have += rseg[i].len;
		if (have < total) {
			swr_segs_put(rseg, nr);
			cqe.status = IB_WC_LOC_LEN_ERR;
			goto complete;
		}
	}
	net = swr_rx_grh(rx, grh);
	swr_cqe_set_ud_net(&cqe, net, !qp->rcq->ibcq.uobject,
			   swr_ndev_vlan(rx->skb->dev));
	err = swr_copy(rseg, nr, NULL, 0, grh, SWR_GRH_BYTES, false);
	if (!err && rx->paylen) {
		/* Skip the GRH in the receive segments. */
		u64 skip = SWR_GRH_BYTES;
		u32 di = 0;

		while (skip && skip >= rseg[di].len)
			skip -= rseg[di++].len;
		rseg[di].iova += skip;
		rseg[di].len -= skip;
		/* One packet's payload: no rescheduling (softirq). */
		err = swr_copy(rseg + di, nr - di, NULL, 0, rx->payload,
			       rx->paylen, false);
		rseg[di].iova -= skip;
		rseg[di].len += skip;
	}
	swr_segs_put(rseg, nr);
	if (err)
		cqe.status = IB_WC_LOC_PROT_ERR;
complete:
	swr_recv_complete(qp, &cqe, rx->bth->flags & SWR_BTH_SE);
	spin_unlock_bh(&qp->resp_lock);
	swr_qp_put(qp);
	return;

drop_unlock:
	spin_unlock_bh(&qp->resp_lock);
drop:
	swr_rx_drop(sdev, reason, qpn);
	swr_qp_put(qp);
}

/* Multicast ----------------------------------------------------------------- */

/*
 * One multicast group a device's UD QPs are attached to. The device's
 * netdev is a member of the IP group (ip_mc_inc_group() /
 * ipv6_dev_mc_inc(), refcounted by the IP stack) from the first attach to
 * the last detach; the namespace's port 4791 sockets, bound to the
 * wildcard address, then receive the group's datagrams. Memberships are
 * the device's rather than the socket's: a socket may hold only
 * net.ipv4.igmp_max_memberships (20) groups, and the socket is shared by
 * every device of the namespace.
 */
struct swr_mcg {
	struct list_head node;		/* swr_mcgs */
	struct swr_dev *sdev;
	union ib_gid mgid;
	u32 nqp;
	u32 qpn[SWR_MAX_MCAST_QP_ATTACH];
	/*
	 * Attachments of qpn[i]. The core counts each (GID, LID) attach of a
	 * QP in its use count and detaches each; RoCE ignores the LID, so
	 * one membership stands for all of them and goes with the last
	 * detach. (Counting one made the second detach fail and left the QP
	 * impossible to destroy.)
	 */
	u32 nref[SWR_MAX_MCAST_QP_ATTACH];
};

/*
 * swr_mcg_mutex serialises attach, detach and device teardown (it nests
 * outside rtnl_lock); swr_mcg_lock protects the list and the QPN arrays
 * for the receive softirq, which copies what it needs under it.
 */
static DEFINE_MUTEX(swr_mcg_mutex);
static DEFINE_SPINLOCK(swr_mcg_lock);
static LIST_HEAD(swr_mcgs);

static struct swr_mcg *swr_mcg_find(struct swr_dev *sdev,
				    const union ib_gid *mgid)
{
	struct swr_mcg *g;

	list_for_each_entry(g, &swr_mcgs, node)
		if (g->sdev == sdev && !memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

/*
 * Make the device's netdev join or leave the IP group @mgid. Under
 * rtnl_lock: IPv4 always needs it, IPv6 did before 6.12 (ASSERT_RTNL).
 */
static int swr_mcg_member(struct swr_dev *sdev, const union ib_gid *mgid,
			  bool join)
{
	const struct in6_addr *a6 = (const struct in6_addr *)mgid->raw;
	struct net_device *ndev = sdev->ndev;
	struct in_device *in_dev;
	__be32 addr;
	int err = 0;

	rtnl_lock();
	if (!swr_gid_v4(mgid)) {
		err = join ? ipv6_dev_mc_inc(ndev, a6) :
			     ipv6_dev_mc_dec(ndev, a6);
		goto out;
	}
	memcpy(&addr, mgid->raw + 12, sizeof(addr));
	in_dev = __in_dev_get_rtnl(ndev);
	if (!in_dev)
		err = -ENODEV;
	else if (join)
		ip_mc_inc_group(in_dev, addr);
	else
		ip_mc_dec_group(in_dev, addr);
out:
	rtnl_unlock();
	return err;
}

int swr_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct swr_dev *sdev = to_swr_dev(ibqp->device);
	u32 i, ngrp = 0, qpn = ibqp->qp_num;
	struct swr_mcg *g;
	int err = 0;

	if (ibqp->qp_type != IB_QPT_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;
	/* Receiving needs the namespace's sockets. */
	swr_net_attach(sdev);

	mutex_lock(&swr_mcg_mutex);
	g = swr_mcg_find(sdev, gid);
	if (g) {
		for (i = 0; i < g->nqp; i++) {
			if (g->qpn[i] == qpn) {
				g->nref[i]++;	/* attached already */
				goto out;
			}
		}
		if (g->nqp >= SWR_MAX_MCAST_QP_ATTACH) {
			err = -ENOMEM;
			goto out;
		}
		spin_lock_bh(&swr_mcg_lock);
		g->nref[g->nqp] = 1;
		g->qpn[g->nqp++] = qpn;
		spin_unlock_bh(&swr_mcg_lock);
		goto out;
	}
	list_for_each_entry(g, &swr_mcgs, node)
		ngrp += g->sdev == sdev;
	if (ngrp >= SWR_MAX_MCAST_GRP) {
		err = -ENOMEM;
		goto out;
	}
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g) {
		err = -ENOMEM;
		goto out;
	}
	g->sdev = sdev;
	g->mgid = *gid;
	g->qpn[0] = qpn;
	g->nref[0] = 1;
	g->nqp = 1;
	err = swr_mcg_member(sdev, gid, true);
	if (err) {
		kfree(g);
		goto out;
	}
	spin_lock_bh(&swr_mcg_lock);
	list_add_tail(&g->node, &swr_mcgs);
	spin_unlock_bh(&swr_mcg_lock);
out:
	mutex_unlock(&swr_mcg_mutex);
	return err;
}

int swr_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct swr_dev *sdev = to_swr_dev(ibqp->device);
	u32 i, qpn = ibqp->qp_num;
	struct swr_mcg *g;
	int err = -EINVAL;

	mutex_lock(&swr_mcg_mutex);
	g = swr_mcg_find(sdev, gid);
	for (i = 0; g && i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			break;
	if (!g || i == g->nqp)
		goto out;
	err = 0;
	if (--g->nref[i])
		goto out;
	spin_lock_bh(&swr_mcg_lock);
	g->nqp--;
	g->qpn[i] = g->qpn[g->nqp];
	g->nref[i] = g->nref[g->nqp];
	if (!g->nqp)
		list_del(&g->node);
	spin_unlock_bh(&swr_mcg_lock);
	if (!g->nqp) {
		swr_mcg_member(sdev, gid, false);
		kfree(g);
	}
out:
	mutex_unlock(&swr_mcg_mutex);
	return err;
}

/*
 * Device teardown: the core detached every QP before destroying it, so
 * nothing should be left; leave whatever is.
 */
static void swr_mcast_dev_fini(struct swr_dev *sdev)
{
	struct swr_mcg *g, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&swr_mcg_mutex);
	spin_lock_bh(&swr_mcg_lock);
	list_for_each_entry_safe(g, tmp, &swr_mcgs, node)
		if (g->sdev == sdev)
			list_move(&g->node, &gone);
	spin_unlock_bh(&swr_mcg_lock);
	list_for_each_entry_safe(g, tmp, &gone, node) {
		swr_mcg_member(sdev, &g->mgid, false);
		kfree(g);
	}
	mutex_unlock(&swr_mcg_mutex);
}

/* The GID of @rx's IP source (@src) or destination address. */
static void swr_rx_gid(const struct swr_rx *rx, bool src, union ib_gid *gid)
{
	if (rx->ipv4) {
		const struct iphdr *iph = ip_hdr(rx->skb);

		ipv6_addr_set_v4mapped(src ? iph->saddr : iph->daddr,
				       (struct in6_addr *)gid->raw);
	} else {
		const struct ipv6hdr *ip6 = ipv6_hdr(rx->skb);

		memcpy(gid->raw, src ? &ip6->saddr : &ip6->daddr,
		       sizeof(gid->raw));
	}
}

/*
 * Whether @rx came from the peer of a connected QP whose path is @d, to the
 * QP's own GID: RC and UC accept nothing else (rdma_rxe checks the same),
 * so a host that guesses a QPN and PSN cannot inject into a connection.
 */
bool swr_rx_from_peer(const struct swr_rx *rx, const struct swr_wire_dest *d)
{
	union ib_gid gid;

	swr_rx_gid(rx, true, &gid);
	if (memcmp(&gid, &d->dgid, sizeof(gid)))
		return false;
	swr_rx_gid(rx, false, &gid);
	return !memcmp(&gid, &d->sgid, sizeof(gid));
}

u32 swr_mcast_qpns(struct swr_dev *sdev, const union ib_gid *mgid, u32 *qpn)
{
	struct swr_mcg *g;
	u32 n = 0;

	spin_lock_bh(&swr_mcg_lock);
	g = swr_mcg_find(sdev, mgid);
	if (g) {
		n = g->nqp;
		memcpy(qpn, g->qpn, n * sizeof(*qpn));
	}
	spin_unlock_bh(&swr_mcg_lock);
	return n;
}

/* A UD datagram to QPN 0xffffff: a copy to each QP attached to its group. */
static void swr_mcast_rx(struct swr_rx *rx)
{
	u32 qpn[SWR_MAX_MCAST_QP_ATTACH], i, n;
	union ib_gid mgid;

	swr_rx_gid(rx, false, &mgid);
	n = swr_mcast_qpns(rx->sdev, &mgid, qpn);
	if (!n) {
		swr_rx_drop(rx->sdev, SWR_CNT_RX_DROP_QP, rx->qpn);
		return;
	}
	for (i = 0; i < n; i++)
		swr_rx_ud(rx, qpn[i]);
}

/*
 * A UD datagram: to its QP, or a copy to each QP of a multicast group. A
 * UD message is a single packet of at most the MTU (IBTA): a payload
 * larger than the port's active MTU is dropped, as the sender's side
 * refuses to send one (swr_exec_ud()).
 */
static void swr_rx_ud_any(struct swr_rx *rx)
{
	if (rx->paylen > swr_ud_max_payload(rx->sdev)) {
		ibdev_dbg(&rx->sdev->ibdev, "ud rx: %u bytes over the MTU\n",
			  rx->paylen);
		swr_rx_drop(rx->sdev, SWR_CNT_RX_DROP_MALFORMED, rx->qpn);
		return;
	}
	if (rx->qpn == SWR_QPN_MASK)
		swr_mcast_rx(rx);
	else
		swr_rx_ud(rx, rx->qpn);
}

/* The device on @wire bound to @ndev (RCU). */
static struct swr_dev *swr_wire_dev(struct swr_wire *wire,
				    struct net_device *ndev)
{
	struct swr_dev *sdev;

	list_for_each_entry_rcu(sdev, &wire->devs, wire_node)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/*
 * The swroce device on the wire @wire a datagram that arrived on @ndev is
 * for (RCU): the one bound to @ndev, else the one bound to the netdev
 * under a VLAN device (the RDMA core puts a VLAN upper's addresses in
 * the GID table of the device bound to its real device).
 */
static struct swr_dev *swr_rx_dev(struct swr_wire *wire,
				  struct net_device *ndev)
{
	struct swr_dev *sdev = swr_wire_dev(wire, ndev);

	if (sdev || !is_vlan_dev(ndev))
		return sdev;
	return swr_wire_dev(wire, vlan_dev_real_dev(ndev));
}

/*
 * Check the packet; on success fill @rx. Everything here came from the
 * network: lengths are checked before each header is read.
 */
static int swr_rx_parse(struct swr_rx *rx, u32 udp_len)
{
	struct sk_buff *skb = rx->skb;
	const struct udphdr *udph = udp_hdr(skb);
	u32 roce_len, pad, iplen;
	const struct swr_bth *bth;

	rx->ipv4 = skb->protocol == htons(ETH_P_IP);
	iplen = rx->ipv4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	if (!rx->ipv4 && skb->protocol != htons(ETH_P_IPV6))
		return -EPROTO;
	/* The ICRC covers the IP header: it must be exactly the fixed one. */
	if ((u8 *)udph - skb_network_header(skb) != iplen)
		return -EPROTO;
	if (rx->ipv4 && ip_hdr(skb)->ihl != 5)
		return -EPROTO;
	if (udp_len < sizeof(*udph) || udp_len > skb->len)
		return -EMSGSIZE;
	roce_len = udp_len - sizeof(*udph);
	if (roce_len < sizeof(*bth) + SWR_ICRC_BYTES)
		return -EMSGSIZE;

	rx->hdr = (const u8 *)(udph + 1);
	bth = (const struct swr_bth *)rx->hdr;
	rx->bth = bth;
	if (bth->flags & SWR_BTH_TVER_MASK)
		return -EPROTO;
	rx->op = swr_opinfo(bth->opcode);
	if (!(rx->op->flags & SWR_OPF_VALID))
		return -EOPNOTSUPP;
	pad = (bth->flags & SWR_BTH_PAD_MASK) >> SWR_BTH_PAD_SHIFT;
	if (roce_len < rx->op->hdr_len + pad + SWR_ICRC_BYTES)
		return -EMSGSIZE;
	rx->paylen = roce_len - rx->op->hdr_len - pad - SWR_ICRC_BYTES;
	if (rx->paylen && !(rx->op->flags & SWR_OPF_PAYLOAD))
		return -EMSGSIZE;
	/* Full-member or limited default P_Key only (one-entry table). */
	if ((ntohs(bth->pkey) & 0x7fff) != (SWR_DEFAULT_PKEY & 0x7fff))
		return -EACCES;
	if (get_unaligned_le32(rx->hdr + roce_len - SWR_ICRC_BYTES) !=
	    swr_icrc(rx->sdev, skb_network_header(skb), rx->ipv4, rx->hdr,
		     roce_len - SWR_ICRC_BYTES))
		return -EBADMSG;
	rx->payload = rx->hdr + rx->op->hdr_len;
	rx->qpn = ntohl(bth->qpn) & SWR_QPN_MASK;
	rx->psn = ntohl(bth->apsn) & SWR_QPN_MASK;
	/* No SMI (QP0); multicast (0xffffff) is for UD only. */
	if (!rx->qpn || (rx->qpn == SWR_QPN_MASK &&
			 (bth->opcode & SWR_OP_TRANSPORT_MASK) != SWR_OP_UD))
		return -ENOENT;
	return 0;
}

/* The drop counter for swr_rx_parse()'s error @err. */
static enum swr_counter swr_rx_drop_reason(int err)
{
	switch (err) {
	case -EBADMSG:
		return SWR_CNT_RX_DROP_ICRC;
	case -EACCES:
		return SWR_CNT_RX_DROP_PKEY;
	case -ENOENT:
		return SWR_CNT_RX_DROP_QP;
	default:
		return SWR_CNT_RX_DROP_MALFORMED;
	}
}

/* The port counters of a datagram for @sdev, valid or not (swr_pma.c). */
static void swr_rx_port_count(struct swr_dev *sdev, const struct sk_buff *skb)
{
	swr_port_count(sdev, SWR_PSTAT_RCV_PKTS, 1);
	/* The IP datagram: from the network header, still in front of data */
	swr_port_count(sdev, SWR_PSTAT_RCV_BYTES,
		       skb->len + (skb->data - skb_network_header(skb)));
	if (skb->pkt_type == PACKET_MULTICAST)
		swr_port_count(sdev, SWR_PSTAT_RCV_MCAST, 1);
}

/*
 * A datagram for @sdev, @skb->data at the UDP header: count, check and
 * process it; consumes @skb. The encap_rcv hook below, or another CPU's
 * receive steering (swr_steer.c).
 */
void swr_rx_skb(struct swr_dev *sdev, struct sk_buff *skb)
{
	struct swr_rx rx = { .skb = skb, .sdev = sdev };
	int err;

	swr_rx_port_count(sdev, skb);
	if (skb_linearize(skb)) {
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_NOMEM, 0);
		goto free;
	}
	err = swr_rx_parse(&rx, ntohs(udp_hdr(skb)->len));
	if (err) {
		enum swr_counter reason = swr_rx_drop_reason(err);

		ibdev_dbg(&sdev->ibdev, "rx: drop (%d)\n", err);
		swr_rx_drop(sdev, reason, rx.qpn);
		goto free;
	}
	swr_count(sdev, SWR_CNT_RX_PKTS);
	swr_count_add(sdev, SWR_CNT_RX_BYTES, ntohs(udp_hdr(skb)->len));
	switch (rx.bth->opcode & SWR_OP_TRANSPORT_MASK) {
	case SWR_OP_UD:
		swr_rx_ud_any(&rx);
		break;
	default:
		/* RC and UC: the skb may be queued for the requester. */
		if (swr_wire_rx(&rx))
			return;
		break;
	}
	consume_skb(skb);
	return;

free:
	kfree_skb(skb);
}

/* encap_rcv: @skb->data is the UDP header. 0: consumed. */
static int swr_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct swr_wire *wire = rcu_dereference_sk_user_data(sk);
	struct swr_dev *sdev;

	if (!wire)
		goto free;
	/*
	 * A copy of a multicast datagram this host sent out of the netdev,
	 * looped back by the IP stack (IP_MULTICAST_LOOP): the engine has
	 * given the device's own group members theirs (swr_exec_ud()).
	 */
	if (skb->pkt_type == PACKET_LOOPBACK) {
		consume_skb(skb);
		return 0;
	}
	sdev = swr_rx_dev(wire, skb->dev);
	if (!sdev)
		goto free;
	if (!swr_steer_rx(sdev, skb))
		swr_rx_skb(sdev, skb);
	return 0;

free:
	kfree_skb(skb);
	return 0;
}

bool swr_net_on_wire(struct swr_dev *sdev)
{
	return rcu_access_pointer(sdev->wire);
}
