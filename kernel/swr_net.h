/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The wire: RoCEv2 over UDP/IP (swr_net.c), and the engine helpers the
 * receive path shares with swr_engine.c.
 *
 * Sockets
 * -------
 * UDP port 4791 is bound once per network namespace (one IPv4 and one
 * IPv6 socket, struct swr_wire), shared by the swroce devices whose netdev
 * lives there, and referenced by them. A device joins its netns' wire when
 * it is created (swr_newlink()), as rdma_rxe does when its module loads: a
 * passive rdma_cm side must receive a CM REQ before it has a QP of its
 * own. When the port is taken (rdma_rxe in the same namespace, loaded
 * first) the device stays local-only - traffic to its own GIDs works as
 * before, foreign GIDs are unreachable - and swr_net_attach() is tried
 * again whenever a QP goes to RTR; conversely rdma_rxe cannot load in a
 * namespace where a swroce device has the port. The interop topology is
 * therefore swroce in its own namespace and rxe in init_net. A device
 * leaves the wire in dealloc_driver; a namespace being dismantled closes
 * its wire (pernet exit) after its netdevs, and the devices still attached
 * to it then go local-only.
 *
 * Transmit builds the IP and UDP headers itself and sends through the
 * route (ip_local_out() / ip6_local_out(): neighbour resolution and the
 * Ethernet header are the IP stack's). udp_tunnel_xmit_skb() would pick a
 * random IPv4 identification after the ICRC, which covers it, was
 * computed; like rxe we send identification 0 with DF.
 *
 * Transmit in batches
 * -------------------
 * The requester queues the packets of a turn (up to SWR_TX_BATCH, and at
 * most up to the next one asking for an ACK) and the responder the READ
 * responses of a burst, then sends them with swr_xmit_batch(): the route
 * is looked up once per batch instead of once per packet and checked
 * with dst_check() before each one, and the bottom halves stay off while
 * they go out, so that a veth peer's receive softirq takes the batch in
 * one pass. The neighbour is still resolved per packet by the IP stack.
 * A UDP GSO skb with a frag list of ready-made packets (each its own BTH
 * and ICRC) would also save the IP output and qdisc pass per packet; it
 * is not what we send, because it stays one skb up to the peer's UDP
 * socket on a veth: a qdisc or tc action that rewrites the ECN bits (the
 * DCQCN marking) reaches its first packet only, netem drops, duplicates
 * or delays a whole batch as one packet, and the IPv4 total length of a
 * batch must stay below 64 KiB on 6.1 (Documentation/performance.rst).
 *
 * Who runs what
 * -------------
 * Transmit runs in the poller (the requester, sq_lock held) with bottom
 * halves off and under rcu_read_lock() (swr_xmit_batch()). Receive runs
 * in softirq (the UDP encap_rcv hook, or on another CPU when a poller's
 * own transmit brought it in: swr_steer.c): it validates the packet (lengths,
 * pad, version, opcode, P_Key, ICRC, QPN), then processes it at once
 * under the destination QP's resp_lock - delivery of one datagram is a
 * bounded copy. Packets that fail a check
 * are dropped and counted (SWR_CNT_RX_DROPPED), never logged beyond
 * ibdev_dbg().
 *
 * Locks: swr_net_mutex (the list of wires, which device is on which)
 * nests outside nothing the engine holds; sdev->wire is RCU-protected.
 */
#ifndef SWR_NET_H
#define SWR_NET_H

#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>

#include "swr.h"
#include "swr_qp.h"

/*
 * The port's active MTU (query_port) in bytes: the largest UD payload a
 * device sends or accepts, IBTA's "UD message no larger than the MTU".
 * 256 while the netdev's MTU is too small for any IB MTU.
 */
static inline u32 swr_ud_max_payload(struct swr_dev *sdev)
{
	int n = ib_mtu_enum_to_int(iboe_get_mtu(READ_ONCE(sdev->ndev->mtu)));

	return n > 0 ? n : 256;
}

/* The IP-level addressing of one packet (from an AH or a QP's path). */
struct swr_wire_dest {
	union ib_gid sgid;
	union ib_gid dgid;
	u32 flow_label;
	/*
	 * The netdev of the source GID's table entry (the bound one, or a
	 * VLAN device on it); 0: the bound one.
	 */
	int oif;
	u8 traffic_class;	/* the IP TOS/traffic class: DSCP and ECN */
	u8 hop_limit;
	u8 sl;			/* skb->priority: a VLAN's egress-qos-map -> PCP */
};

/*
 * The ifindex of @attr's netdev, 0 if it has none, and in @vlan (if not
 * NULL) its VLAN id or 0xffff (any context).
 */
int swr_gid_attr_oif(const struct ib_gid_attr *attr, u16 *vlan);

int swr_net_init(void);
void swr_net_exit(void);

/* Join the wire of the device's netns if not yet on it. May sleep. */
void swr_net_attach(struct swr_dev *sdev);
/* Leave it (dealloc_driver). May sleep. */
void swr_net_detach(struct swr_dev *sdev);

/*
 * Send a UD message of @len bytes (from @lseg, or @inline_data when not
 * NULL) as one SEND_ONLY packet to @dqpn. Requester context.
 * Return: 0, or a negative errno when it could not be sent (the datagram
 * is lost, as on a network).
 */
int swr_net_send_ud(struct swr_qp *qp, const struct swr_send_wqe *w,
		    const struct swr_wire_dest *d, u32 dqpn, u32 qkey,
		    u32 len, const struct swr_seg *lseg, u32 nl);

/* One validated incoming packet (swr_net.c). */
struct swr_rx {
	struct swr_dev *sdev;
	struct sk_buff *skb;
	const struct swr_opinfo *op;
	const struct swr_bth *bth;
	const u8 *hdr;		/* the BTH */
	const u8 *payload;
	u32 paylen;		/* payload bytes, without pad */
	u32 qpn;		/* destination */
	u32 psn;
	bool ipv4;
};

/*
 * Transmit buffers (swr_txbuf.c): a linear skb of @size bytes around a
 * recycled page, or NULL when @size is small or no page is at hand.
 */
struct sk_buff *swr_txbuf_skb(unsigned int size);
void swr_txbuf_init(void);
void swr_txbuf_exit(void);

/* Packet building blocks (swr_net.c). */
__be16 swr_sport(u32 sqpn, u32 dqpn);
struct sk_buff *swr_skb_alloc(struct swr_dev *sdev, u32 hdr_len, u32 paylen,
			      u32 pad);
struct swr_bth;
void swr_bth_init(struct swr_bth *bth, u8 opcode, bool se, u32 pad, u32 dqpn,
		  u32 psn, bool ack_req);
/*
 * Prepend IP/UDP, compute the ICRC, send; consumes @skb. @rc: the QP's
 * route cache (struct swr_route_cache), NULL to look the route up.
 */
int swr_xmit(struct swr_dev *sdev, struct sk_buff *skb,
	     const struct swr_wire_dest *d, __be16 sport,
	     struct swr_route_cache *rc);
/*
 * The same for every skb on @q (unlocked: the caller's own list), in
 * order, with one route (@rc's, or one lookup) and one bottom-half pass
 * for all of them ("Transmit in batches" above); empties @q. Any context
 * but hard IRQ; nothing in it sleeps. Returns the first error, 0 if none.
 */
int swr_xmit_batch(struct swr_dev *sdev, struct sk_buff_head *q,
		   const struct swr_wire_dest *d, __be16 sport,
		   struct swr_route_cache *rc);
void swr_route_cache_init(struct swr_route_cache *rc);
void swr_route_cache_fini(struct swr_route_cache *rc);

/* @qp's route cache, NULL before it has wire state. */
static inline struct swr_route_cache *swr_qp_route(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);

	return w ? &w->route : NULL;
}

/*
 * Packets a caller queues at most before it sends them with
 * swr_xmit_batch(): the bottom halves stay off that long, and the peer's
 * backlog (netdev_max_backlog, 1000 by default) takes them at once.
 */
#define SWR_TX_BATCH	16

/*
 * swr_wire.c: RC and UC over the wire.
 */
/* Whether @rx came from the path @d's peer to its source GID. */
bool swr_rx_from_peer(const struct swr_rx *rx, const struct swr_wire_dest *d);
/*
 * Softirq: a datagram for @sdev (@skb->data at the UDP header), checked
 * and processed; consumes @skb (swr_net.c).
 */
void swr_rx_skb(struct swr_dev *sdev, struct sk_buff *skb);
/* Softirq: an RC/UC packet for @rx->qpn. True when the skb was kept. */
bool swr_wire_rx(struct swr_rx *rx);
/*
 * Requester (poller, sq_lock held). swr_wire_submit() takes req.wqe into
 * the outstanding window: false when it cannot yet (window full, fence,
 * RNR wait). swr_wire_poll() processes queued responses, timers and
 * pending packets; swr_wire_has_work() tells whether it has something to
 * do; swr_wire_flush() completes every outstanding WQE with a flush error
 * and returns how many; swr_wire_idle(): nothing outstanding.
 */
bool swr_wire_submit(struct swr_qp *qp, u64 len);
void swr_wire_poll(struct swr_qp *qp);
/*
 * Poller: send the READ responses (and the ACKs behind them) the receive
 * path left to it, a burst per call (swr_wire_resp.c). sq_lock held.
 */
void swr_wire_resp_tx(struct swr_qp *qp);
/*
 * Whether an RC/UC WQE of @opcode and @len bytes cannot go on the wire at
 * path MTU @mtu (bytes): a READ taking more than SWR_WIRE_PSN_SPAN PSNs.
 */
bool swr_wire_too_long(u8 opcode, u64 len, u32 mtu);
bool swr_wire_has_work(struct swr_qp *qp, u64 now);
/*
 * modify_qp to ERR: the responses that arrived while the QP was still
 * sending complete their WQEs before the flush (sq_lock held).
 */
void swr_wire_drain_responses(struct swr_qp *qp);
void swr_wire_rxq_take(struct swr_qp *qp);
int swr_wire_flush(struct swr_qp *qp);
bool swr_wire_idle(struct swr_qp *qp);
/* The requester's next timer (RNR wait or retransmission), 0: none. */
u64 swr_wire_deadline(struct swr_qp *qp);
/* Destroy: drop what the receive path queued (no locks held). */
void swr_wire_qp_fini(struct swr_qp *qp);
/* The receive path queued a response on qp->wire_rxq (softirq). */
void swr_wire_rxq_kick(struct swr_qp *qp);
void swr_wire_rxq_work(struct work_struct *work);
int swr_wire_init(void);
void swr_wire_exit(void);
/* The QP's wire state (struct swr_wire_qp), allocated on first use. */
struct swr_wire_qp *swr_wire_qp_get(struct swr_qp *qp, gfp_t gfp);
/* Multicast verbs (UD QPs, IP multicast GIDs). */
int swr_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int swr_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
/*
 * The QPs of @sdev attached to the group @mgid, copied into @qpn (room for
 * SWR_MAX_MCAST_QP_ATTACH); returns how many. Any context.
 */
u32 swr_mcast_qpns(struct swr_dev *sdev, const union ib_gid *mgid, u32 *qpn);
/* Is the device on the wire (a socket in its netns)? */
bool swr_net_on_wire(struct swr_dev *sdev);

/* swr_engine.c helpers the wire uses (see there). */
/* Is @gid one of this device's GIDs (so the destination is local)? */
bool swr_gid_is_local(struct swr_dev *sdev, const union ib_gid *gid);
/* The same for @qp's requester (sq_lock held), from its cache when it can. */
bool swr_req_gid_is_local(struct swr_qp *qp, const union ib_gid *gid);
void swr_gid_event(struct ib_event_handler *handler, struct ib_event *event);
void swr_req_complete(struct swr_qp *qp, const struct swr_send_wqe *w,
		      enum ib_wc_status status, u32 byte_len);
void swr_cqe_init(struct swroce_cqe *cqe, u64 wr_id, u32 qpn,
		  enum ib_wc_status status, u8 opcode, u32 byte_len);
/* Completion SL of a RoCE UD receive: the packet's type (ConnectX's). */
#define SWR_WC_SL_ROCE_UDP	0x8
#define SWR_WC_SL_L3_IPV6	0x1
#define SWR_WC_SL_L3_IPV4	0x2
void swr_cqe_set_ud_net(struct swroce_cqe *cqe, int net, bool kernel_cq,
			u16 vlan);
/*
 * A kernel CQ's CQE carries in ex_data2 what struct ib_wc has and the
 * ring's CQE does not: the network header type, and the VLAN a UD receive
 * arrived on (the CM matches it against the GID's netdev). User CQs keep
 * ex_data2 zero (swroce-abi.h).
 */
#define SWR_KCQE_NET_MASK	0xff
#define SWR_KCQE_VLAN_VALID	BIT(8)
#define SWR_KCQE_VLAN_SHIFT	16
/* The VLAN id of @ndev, or 0xffff (no VLAN), as the RDMA core counts. */
u16 swr_ndev_vlan(const struct net_device *ndev);
void swr_recv_complete(struct swr_qp *qp, struct swroce_cqe *cqe,
		       bool solicited);
/*
 * @opcode: the request's (SWROCE_WR_*), for the swr_recv_wqe event; @tm:
 * a SEND's head for a tag matching SRQ, or NULL.
 */
int swr_recv_pop(struct swr_qp *qp, struct swr_recv_wqe *out, u8 opcode,
		 const struct swr_tm_msg *tm);
u64 swr_sge_total(const struct swroce_sge *sge, u32 num);
void swr_segs_put(struct swr_seg *seg, u32 n);
int swr_segs_fault(const struct swr_seg *seg, u32 n, bool write);
int swr_segs_get(struct swr_qp *qp, const struct swroce_sge *sge,
		 u32 num, u64 need, int access, struct swr_seg *seg, u32 *n);
int swr_copy(struct swr_seg *dst, u32 nd, const struct swr_seg *src,
	     u32 ns, const u8 *kbuf, u64 len, bool resched);

#endif /* SWR_NET_H */
