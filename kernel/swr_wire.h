/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RC and UC over the wire: what the requester (swr_wire.c) and the
 * responder (swr_wire_resp.c) share. The entry points the rest of the
 * driver calls are in swr_net.h.
 */
#ifndef SWR_WIRE_H
#define SWR_WIRE_H

#include <linux/skbuff.h>

#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"

#define SWR_PSN_MASK		0xffffffU
#define SWR_RNR_INFINITE	7

/*
 * The most PSNs one READ may take: half of the 2^23 that 24-bit serial
 * arithmetic can order, so that the responder tells a duplicate of it
 * from a packet ahead of it. (A 2 GiB READ at MTU 256 took 2^23.)
 */
#define SWR_WIRE_PSN_SPAN	BIT(22)

/*
 * Copy @len bytes at offset @off of the scatter list @sge (@num entries)
 * between it and @buf (@to_mr: into it). Each SGE is looked up, with
 * local write access when written, for the range used; any context.
 * -ERANGE when the list is shorter, or the lookup's error.
 */
int swr_sge_copy(struct swr_qp *qp, const struct swroce_sge *sge, u32 num,
		 u64 off, u8 *buf, u32 len, bool to_mr);
/* The same for a queue of @pd without a QP (a WQ numbered @qpn). */
int swr_sge_copy_pd(struct swr_dev *sdev, struct ib_pd *pd, u32 qpn,
		    const struct swroce_sge *sge, u32 num, u64 off, u8 *buf,
		    u32 len, bool to_mr);
/* The same for the data of the send WQE @w: its SGEs or inline data. */
int swr_wire_sge_copy(struct swr_qp *qp, const struct swr_send_wqe *w,
		      u64 off, u8 *buf, u32 len, bool to_mr);

/*
 * PSNs an RC requester has out at most, counted from the oldest one it
 * still waits for (swr_wire_base_psn()). A message of any length streams
 * as its ACKs come back, and the PSNs in flight stay far inside the 2^23
 * that 24-bit serial arithmetic orders (a 2 GiB WRITE at MTU 256 takes
 * 2^23 PSNs). A multiple of SWR_WIRE_ACK_EVERY; 64 MiB at MTU 4096.
 */
#define SWR_WIRE_INFLIGHT	BIT(14)

/*
 * Packets one turn of a QP sends at most as requester (req.turn_pkts), and
 * again as responder (READ responses, swr_wire_resp_tx()). A turn that
 * sent more held the poller from every other QP for as long: 17 bursts
 * (one per WQE the turn added) took a second on a debug kernel, longer
 * than a peer's ACK timeout for a READ waiting on that poller.
 */
#define SWR_WIRE_BURST		64

/*
 * Responses queued for one QP's requester at most: forged or runaway
 * responses beyond it are dropped (rx_drop_nomem) instead of growing the
 * queue until the poller gets to it; a READ whose responses were dropped
 * asks for them again.
 */
#define SWR_WIRE_RXQ_MAX	4096

/* What a queued response skb carries (skb->cb). */
struct swr_wire_cb {
	u64 rx_ns;		/* a response's arrival (its round trip's end) */
	u32 hdr_off;		/* BTH offset from skb->data */
	u32 paylen;
	u8 hdr_len;
};

static inline struct swr_wire_cb *swr_wire_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct swr_wire_cb) > sizeof(skb->cb));
	return (struct swr_wire_cb *)skb->cb;
}

/* The opcode prefix of @qp's packets: RC, UC or XRC (swr_pkt.h). */
static inline u8 swr_qp_transport(const struct swr_qp *qp)
{
	if (swr_qp_is_xrc(qp))
		return SWR_OP_XRC;
	return qp->ibqp.qp_type == IB_QPT_UC ? SWR_OP_UC : SWR_OP_RC;
}

/* Signed distance a - b of two 24-bit PSNs. */
static inline s32 swr_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

/* The QP's path, as the wire needs it (read under state_lock). */
struct swr_wire_path {
	struct swr_wire_dest d;
	u32 dqpn;
	u32 mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	int access;
	enum ib_qp_state state;
};

void swr_wire_path(struct swr_qp *qp, struct swr_wire_path *p);

/*
 * Transmit in batches (swr_net.h): queue @skb, a packet of @qp to @p, on
 * the caller's @q, and send the batch if @now or if it is full; flush
 * sends what is queued.
 */
void swr_wire_tx_queue(struct swr_qp *qp, const struct swr_wire_path *p,
		       struct sk_buff_head *q, struct sk_buff *skb, bool now);
void swr_wire_tx_flush(struct swr_qp *qp, const struct swr_wire_path *p,
		       struct sk_buff_head *q);

/* swr_wire_resp.c: a request packet at @qp (resp_lock held). */
void swr_wire_resp_rx(struct swr_qp *qp, const struct swr_rx *rx,
		      const struct swr_wire_path *p);

#endif /* SWR_WIRE_H */
