/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * swroce: a software RoCEv2 device.
 *
 * Objects and their lifetimes
 * ---------------------------
 * struct swr_dev embeds the ib_device. It is created by the rdma_link
 * "newlink" operation, bound to one Ethernet netdev for its whole life, and
 * freed by the RDMA core through ib_device_ops.dealloc_driver once it has
 * been unregistered (rdma link del, the netdev going away, or module
 * unload). Every verbs object (ucontext, PD, ...) embeds its core object and
 * is allocated by the core (INIT_RDMA_OBJ_SIZE); the core guarantees that
 * all of them are destroyed before dealloc_driver runs.
 *
 * Lock order (outermost first)
 * ----------------------------
 *   rtnl_lock                  (netdev notifier, GID management)
 *   swr_dev_list_lock          (module-wide list of devices, swr_main.c)
 *   swr_cq.resize_mutex        (one CQ's resizes; held across the ring
 *                              allocation, swr_poller.lock and swr_cq.lock)
 *
 * Spinlocks (innermost, never held across a sleep):
 *   swr_srq.lock               (one SRQ's consumer side and limit, its
 *                              tag list and counters, and the tm_jobs
 *                              of the QPs on it, swr_tm.c)
 *   swr_rwq.lock               (one receive WQ's consumer side and state,
 *                              swr_rss.h)
 *   swr_cq.lock                (one CQ's producer side and resize)
 *
 * swr_dev_list_lock is never held across ib_register_device() or any other
 * call that may take rtnl_lock.
 */
#ifndef SWR_H
#define SWR_H

#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/swroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "swr_cc.h"

/* Identity */
#define SWR_VENDOR_ID		0xffffff	/* no IEEE OUI: a software device */
#define SWR_VENDOR_PART_ID	0x5352		/* "SR" */
#define SWR_HW_VER		1

/*
 * Resource limits, reported by query_device. Each verb enforces its own
 * limit from here; none is below rdma_rxe's where rxe's is a capability
 * (SGEs, inline data, atomics in flight).
 */
#define SWR_MAX_PD		0x10000
#define SWR_MAX_MR		0x40000
#define SWR_MAX_MR_SIZE		U64_MAX
#define SWR_MAX_MW		0x10000
#define SWR_MAX_CQ		0x20000
#define SWR_MAX_CQE		0x3fffff
#define SWR_MAX_QP		0x20000
#define SWR_MAX_QP_WR		0x8000
#define SWR_MAX_SGE		32
#define SWR_MAX_SRQ		0x10000
#define SWR_MAX_SRQ_WR		0x8000
#define SWR_MAX_XRCD		0x10000
/* Receive steering's flow slots per device (swr_steer.c); a power of 2. */
#define SWR_STEER_SLOTS		64
/* XRC SRQ numbers: the 24 bits of an XRCETH, 0 never used. */
#define SWR_XRC_SRQN_MAX	0xffffff
/* Tags in a tag matching SRQ's list (a handle's low 16 bits name one). */
#define SWR_TM_MAX_TAGS		256
/* tm_caps.max_rndv_hdr_size: a RNDV message's most bytes (as mlx5). */
#define SWR_TM_MAX_RNDV_HDR	64
#define SWR_MAX_AH		0x8000
#define SWR_MAX_RD_ATOM		128		/* per QP, each direction */
#define SWR_MAX_MCAST_GRP	8192
#define SWR_MAX_MCAST_QP_ATTACH	56
#define SWR_GID_TABLE_LEN	128
#define SWR_PKEY_TABLE_LEN	1
#define SWR_DEFAULT_PKEY	0xffff
#define SWR_PORT_NUM		1
/* Default ring memory cap per user context (sysfs swroce/ring_bytes_max). */
#define SWR_RING_BYTES_MAX	SZ_1G

/*
 * Port counters, shown by "rdma statistic show link <dev>/1" and in
 * /sys/class/infiniband/<dev>/ports/1/hw_counters/. One per failure class
 * a user can cause, so that a misbehaving process shows up as a number
 * rather than as log lines.
 *
 * Those marked "per QP" are also counted per QP once the QP is bound to an
 * RDMA core counter ("rdma statistic qp ...", swr_stats.c): the events of a
 * bound QP go to its counter instead of the device's array, and the core
 * adds the counters to the port's figures, so those stay complete.
 */
enum swr_counter {
	SWR_CNT_UDATA_REJECTED,	/* malformed driver data in a command */
	SWR_CNT_ABI_MISMATCH,	/* a provider speaking another ABI */
	SWR_CNT_MMAP_REFUSED,	/* mmap of no ring, or not a whole ring */
	SWR_CNT_RING_CAP_REFUSED, /* a ring over its context's ring_bytes_max */
	SWR_CNT_RING_NOMEM,	/* no memory for a ring (memory cgroup limit) */
	SWR_CNT_RING_INDEX_BAD,	/* a user-written ring index out of range */
	SWR_CNT_WQE_BAD,	/* a malformed WQE (opcode, num_sge, length) */
	SWR_CNT_WQE_CONSUMED,	/* send WQEs copied out and executed; per QP */
	SWR_CNT_DOORBELLS,	/* user doorbell calls (post_send, 0 WRs); per QP */
	SWR_CNT_POLLER_WAKEUPS,	/* poller woken from sleep */
	SWR_CNT_POLLER_SLEEPS,	/* poller went to sleep */
	SWR_CNT_POLLER_STAYS,	/* woken on a busy CPU, stayed: one was idle */
	SWR_CNT_COMPLETIONS,	/* CQEs written; per QP */
	SWR_CNT_CQ_OVERFLOW,	/* CQs put in error by a full ring */
	/* Completions in error, by class, at the QP completing; per QP: */
	SWR_CNT_ERR_LOCAL,	/* local length, protection, QP op errors */
	SWR_CNT_ERR_REMOTE,	/* remote access, invalid request, op errors */
	SWR_CNT_RNR_NAK,	/* RNR NAKs, at the responder sending; per QP */
	SWR_CNT_RETRY_EXC,	/* WRs failed after retries (RNR or transport) */
	SWR_CNT_FLUSHED,	/* WRs completed with a flush error; per QP */
	SWR_CNT_TX_PKTS,	/* RoCEv2 packets sent (swr_net.c) */
	SWR_CNT_TX_DROPPED,	/* packets not sent: no route, no socket */
	SWR_CNT_RX_PKTS,	/* RoCEv2 packets received and valid */
	SWR_CNT_RX_STEERED,	/* received, handed to another CPU */
	SWR_CNT_STEER_PAUSES,	/* poller waited for a steered queue (XOFF) */
	/* Every received packet dropped; the sum of the rx_drop_* below. */
	SWR_CNT_RX_DROPPED,
	SWR_CNT_TX_BYTES,	/* UDP datagram bytes sent (header included) */
	SWR_CNT_RX_BYTES,	/* UDP datagram bytes of the valid packets */
	/* RC reliability (swr_wire.c), all per QP: */
	SWR_CNT_RETRANSMITS,	/* request packets sent again */
	SWR_CNT_TIMEOUTS,	/* retransmit timer expiries (ACK timeouts) */
	SWR_CNT_LW_CUTS,	/* loss window cuts (swr_cc_lw_loss()) */
	SWR_CNT_LW_PROBES,	/* tail-loss probes (loss window on) */
	SWR_CNT_RNR_NAK_RCVD,	/* RNR NAKs received by a requester */
	SWR_CNT_NAK_SEQ_SENT,	/* PSN sequence error NAKs sent */
	SWR_CNT_NAK_SEQ_RCVD,	/* PSN sequence error NAKs received */
	SWR_CNT_NAK_INV_SENT,	/* invalid request NAKs sent */
	SWR_CNT_NAK_INV_RCVD,	/* invalid request NAKs received */
	SWR_CNT_NAK_ACC_SENT,	/* remote access error NAKs sent */
	SWR_CNT_NAK_ACC_RCVD,	/* remote access error NAKs received */
	SWR_CNT_NAK_OP_SENT,	/* remote operational error NAKs sent */
	SWR_CNT_NAK_OP_RCVD,	/* remote operational error NAKs received */
	SWR_CNT_DUP_REQ,	/* duplicate requests received (replayed) */
	SWR_CNT_OUT_OF_SEQ,	/* requests past the expected PSN */
	SWR_CNT_DUP_RESP,	/* responses for nothing outstanding, ignored */
	/* Received packets dropped, by reason (each also in rx_dropped): */
	SWR_CNT_RX_DROP_ICRC,	/* ICRC mismatch */
	SWR_CNT_RX_DROP_MALFORMED, /* IP/UDP/BTH length, pad, version, opcode */
	SWR_CNT_RX_DROP_PKEY,	/* P_Key not in the table */
	SWR_CNT_RX_DROP_QP,	/* no such QP, wrong type/state/peer for it */
	SWR_CNT_RX_DROP_QKEY,	/* UD: Q_Key mismatch */
	SWR_CNT_RX_DROP_NO_RECV, /* UD: no receive WQE posted */
	SWR_CNT_RX_DROP_NOMEM,	/* no memory to take the packet in */
	/*
	 * RC: READ/atomic "duplicates" no responder resource matches,
	 * answered by silence (not in rx_dropped: swr_wire_resp.c)
	 */
	SWR_CNT_RX_DROP_DUP_BAD,
	/* Congestion control (swr_cc.c), named as RoCE NICs name them */
	SWR_CNT_NP_ECN_MARKED,	/* CE-marked RC/UC packets received; per QP */
	SWR_CNT_NP_CNP_SENT,	/* CNPs sent in answer; per QP */
	SWR_CNT_RP_CNP_HANDLED,	/* CNPs a requester acted on; per QP */
	SWR_CNT_RP_CNP_IGNORED,	/* CNPs ignored (RP off, nothing sent); per QP */
	/* Raw packet QPs (swr_raw.c), per device: */
	SWR_CNT_RAW_TX_FRAMES,	/* frames handed to the netdev */
	SWR_CNT_RAW_TX_DROPPED,	/* frames the netdev (or memory) refused */
	SWR_CNT_RAW_RX_FRAMES,	/* frames placed in a receive WQE */
	/*
	 * frames not delivered: a matched QP without a receive WQE or not
	 * in RTR/RTS (an RSS QP: its WQ without one, or not in RDY), or a
	 * frame too long for a raw QP, or no memory
	 */
	SWR_CNT_RAW_RX_DROPPED,
	SWR_NUM_COUNTERS
};

/*
 * The standard IB port counters (swr_pma.c): RoCEv2 packets across the
 * netdev, bytes as IP datagrams (IP header to ICRC).
 */
/* Packets sent and not sent are the counters' TX_PKTS and TX_DROPPED. */
enum swr_port_stat {
	SWR_PSTAT_XMIT_BYTES,
	SWR_PSTAT_XMIT_MCAST,
	SWR_PSTAT_RCV_PKTS,		/* every one, valid or not */
	SWR_PSTAT_RCV_BYTES,
	SWR_PSTAT_RCV_MCAST,
	SWR_PSTAT_RCV_ERRORS,		/* malformed, bad ICRC */
	SWR_NUM_PORT_STATS
};

struct swr_wire;

struct swr_dev {
	struct ib_device ibdev;

	atomic64_t counters[SWR_NUM_COUNTERS];
	atomic64_t port_stats[SWR_NUM_PORT_STATS];
	/* Counter id -> struct swr_qp_counter (swr_stats.c). */
	struct xarray counter_xa;

	/*
	 * The bound netdev. A reference is held from newlink until
	 * dealloc_driver; the pointer never changes.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	/* Entry in the module-wide device list, under swr_dev_list_lock. */
	struct list_head list;

	/* PD numbers; the IDA has its own lock. */
	struct ida pd_ida;

	/*
	 * AH number -> struct swr_ah. Readers copy what they need under
	 * xa_lock, so that an AH destroyed concurrently is never touched
	 * after swr_destroy_ah() returns.
	 */
	struct xarray ah_xa;

	/* The ICRC's CRC-32 (swr_crc.c): enum swr_crc_impl, sysfs. */
	u8 icrc_mode;

	/* Congestion control parameters (swr_cc.h), sysfs swroce/cc_*. */
	u32 cc[SWR_CC_NPARAMS];
	/*
	 * The round trip of all its QPs' probes, smoothed (swr_cc_rtt()):
	 * the increase timer's period, the same for every QP. Updated by
	 * whichever context holds a QP's sq_lock, without a lock of its own:
	 * two updates at once lose one sample, which an estimate can afford.
	 */
	atomic64_t cc_srtt;

	/*
	 * Last port state reported through an async event, so that a
	 * netdev event that does not change the state stays silent.
	 * Written only from the netdev notifier (under rtnl_lock).
	 */
	enum ib_port_state last_port_state;

	/*
	 * MR and MW keys (swr_mr.c; see swr_mr.h). The xarray has its own
	 * lock, which also protects mkey_next, the cyclic allocation cursor.
	 */
	struct xarray mkeys;
	u32 mkey_next;
	atomic_t num_mr;	/* against SWR_MAX_MR */
	/* Asynchronous advise_mr requests queued (swr_odp.c) */
	atomic_t odp_advise;
	atomic_t num_mw;	/* against SWR_MAX_MW */

	/*
	 * QP number -> struct swr_qp (swr_qp.c, swr_qp.h). QPNs 0 and 1
	 * are reserved for SMI/GSI. The xa_lock is irq-safe: lookups take
	 * their reference under it, so destroy needs no RCU grace period.
	 */
	struct xarray qp_xa;
	u32 qpn_next;
	atomic_t num_qp;	/* against SWR_MAX_QP */
	/* Receive WQs and their tables (swr_rss.c, swr_rss.h limits). */
	atomic_t num_wq;
	atomic_t num_rwq_ind_tbl;
	atomic_t rwq_ind_tbl_seq;	/* the next table's number */

	/*
	 * XRC SRQ number -> struct swr_srq (swr_xrc.c), as qp_xa: the
	 * xa_lock is irq-safe and lookups take their reference under it.
	 */
	struct xarray srq_xa;
	u32 srqn_next;
	atomic_t num_xrcd;	/* against SWR_MAX_XRCD */

	/*
	 * The most ring memory one user context may hold (swr_mmap.c),
	 * sysfs swroce/ring_bytes_max; read without a lock.
	 */
	u64 ring_bytes_max;

	/* The per-device poller (swr_poll.c). */
	struct swr_poller *poller;

	/*
	 * The UDP sockets of the netdev's namespace once the device is on
	 * the wire (swr_net.c, swr_net.h), and our entry in its list.
	 * wire_dead: detached for good (dealloc, namespace exit).
	 */
	struct swr_wire __rcu *wire;
	struct list_head wire_node;
	bool wire_dead;
	/*
	 * Receive steering (swr_steer.c): sysfs swroce/rx_steer, and each
	 * slot's CPU and count of queued packets.
	 */
	bool rx_steer;
	atomic64_t steer_slot[SWR_STEER_SLOTS];

	/*
	 * Bumped after each change of the GID table (swr_gid_event(), an
	 * IB_EVENT_GID_CHANGE handler): requesters' answers to "is this
	 * destination one of ours" from an older one are stale.
	 */
	struct ib_event_handler gid_handler;
	atomic_t gid_gen;

	/*
	 * Raw packet QPs' flows (swr_raw.c): struct swr_flow, each QP's
	 * together, read under RCU. raw_mutex serialises the writers and
	 * the tap (raw_pt), which is registered while the list is not
	 * empty.
	 */
	struct mutex raw_mutex;
	struct list_head raw_flows;
	struct packet_type raw_pt;
};

struct swr_ucontext {
	struct ib_ucontext ibuc;
	/* Bytes of rings its queues hold, against ring_bytes_max. */
	atomic64_t ring_bytes;
	/* Bytes of device memory it holds, against SWR_DM_MAX (swr_dm.c). */
	atomic64_t dm_bytes;
};

struct swr_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct swr_ah {
	struct ib_ah ibah;
	u32 ahn;
	struct rdma_ah_attr attr;	/* RoCE, always with a GRH */
};

/*
 * A work queue ring (receive queue or SRQ). The kernel's own consumer
 * index is the trusted one; the ring's indices are what user space sees
 * and writes.
 */
struct swr_wq {
	struct swroce_wq_ring *ring;
	struct swr_ring_mem *mem;	/* NULL for a kernel queue */
	u32 num_wqe;		/* slots, a power of two */
	u32 wqe_shift;		/* log2 of the slot size */
	u32 max_sge;
	u32 cons;		/* next slot the kernel takes */
};

struct swr_srq {
	struct ib_srq ibsrq;
	/* Protects the consumer side of wq, limit, and tm's list. */
	spinlock_t lock;
	struct swr_wq wq;
	u32 limit;		/* armed limit; 0 when not armed */
	/*
	 * Kernel SRQs: serialises ib_post_srq_recv() callers; prod is our
	 * producer index (the ring's is a copy). Nests inside nothing.
	 */
	spinlock_t prod_lock;
	u32 prod;
	/*
	 * XRC SRQs (swr_xrc.c): the number in sdev->srq_xa that requests
	 * name in their XRCETH (0 for a basic SRQ), and the lookup
	 * references: destroy drops the first and waits for released, as
	 * for QPs (swr_qp_get()).
	 */
	u32 srqn;
	refcount_t ref;
	struct completion released;
	/* IB_SRQT_TM: the tag list and counters (swr_tm.c); else NULL */
	struct swr_tm *tm;
};

/* An XRC domain: the core shares it between processes (by inode). */
struct swr_xrcd {
	struct ib_xrcd ibxrcd;
};

struct swr_cq {
	struct ib_cq ibcq;

	/*
	 * Serialises resize_cq calls, which the core lets run concurrently:
	 * each swaps the ring and then reports the ring's mapping to user
	 * space, which must be its own. Taken outside lock.
	 */
	struct mutex resize_mutex;
	/* Protects everything below: CQE producers and resize. */
	spinlock_t lock;
	struct swroce_cq_ring *ring;	/* shared with user space if mem */
	struct swr_ring_mem *mem;	/* NULL for a kernel CQ */
	u32 num_cqe;		/* ring slots, a power of two */
	u32 prod;		/* our producer index; the ring's is a copy */
	u32 fired_seq;		/* arm sequence of the last event fired */
	bool overflow;		/* completions were lost: the CQ is dead */
};

static inline struct swr_dev *to_swr_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct swr_dev, ibdev);
}

static inline struct swr_ucontext *to_swr_ucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct swr_ucontext, ibuc);
}

static inline struct swr_pd *to_swr_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct swr_pd, ibpd);
}

static inline struct swr_ah *to_swr_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct swr_ah, ibah);
}

static inline struct swr_srq *to_swr_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct swr_srq, ibsrq);
}

static inline struct swr_xrcd *to_swr_xrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct swr_xrcd, ibxrcd);
}

static inline struct swr_cq *to_swr_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct swr_cq, ibcq);
}

static inline void swr_count(struct swr_dev *sdev, enum swr_counter c)
{
	atomic64_inc(&sdev->counters[c]);
}

static inline void swr_port_count(struct swr_dev *sdev,
				  enum swr_port_stat s, u64 n)
{
	atomic64_add(n, &sdev->port_stats[s]);
}

static inline void swr_count_add(struct swr_dev *sdev, enum swr_counter c,
				 u64 n)
{
	atomic64_add(n, &sdev->counters[c]);
}

/* swr_stats.c */
/*
 * A received packet for QP @qpn (0: not known yet) dropped for @reason,
 * one of SWR_CNT_RX_DROP_*: counted, and traced (swr_pkt_drop).
 */
void swr_rx_drop(struct swr_dev *sdev, enum swr_counter reason, u32 qpn);
/* A packet to QP @dqpn not sent (SWR_CNT_TX_DROPPED), likewise. */
void swr_tx_drop(struct swr_dev *sdev, u32 dqpn);
struct rdma_hw_stats *swr_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int swr_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);
struct rdma_counter;
int swr_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int swr_counter_unbind_qp(struct ib_qp *ibqp);
int swr_counter_dealloc(struct rdma_counter *counter);
struct rdma_hw_stats *swr_counter_alloc_stats(struct rdma_counter *counter);
int swr_counter_update_stats(struct rdma_counter *counter);

/* swr_main.c */
enum ib_port_state swr_port_state(struct swr_dev *sdev);

/* swr_res.c: driver details of "rdma res show ... -dd" */
/* swr_pma.c */
int swr_process_mad(struct ib_device *ibdev, int flags, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index);

int swr_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int swr_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int swr_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);

/* swr_verbs.c: device, port, ucontext and PD verbs */
int swr_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata);
int swr_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *attr);
int swr_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
int swr_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
enum rdma_link_layer swr_get_link_layer(struct ib_device *ibdev, u32 port);
int swr_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void swr_dealloc_ucontext(struct ib_ucontext *ibuc);
int swr_query_ucontext(struct ib_ucontext *ibuc,
		       struct uverbs_attr_bundle *attrs);
/* The PD and context methods for importing objects (swr_verbs.c). */
extern const struct uapi_definition swr_verbs_uapi_defs[];
void swr_disassociate_ucontext(struct ib_ucontext *ibuc);
int swr_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int swr_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* swr_mmap.c: ring memory shared with user space */
struct swr_ring_mem;
void *swr_ring_alloc(struct ib_ucontext *uctx, size_t size,
		     const struct swroce_user_ring *user,
		     struct swr_ring_mem **mem);
void swr_ring_free(void *vaddr, struct swr_ring_mem *mem);
u64 swr_ring_mmap_offset(const struct swr_ring_mem *mem);
u64 swr_ring_mmap_size(const struct swr_ring_mem *mem);
struct ib_ucontext *swr_ring_ucontext(const struct swr_ring_mem *mem);
int swr_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void swr_mmap_free(struct rdma_user_mmap_entry *entry);

/* swr_ah.c */
int swr_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int swr_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int swr_destroy_ah(struct ib_ah *ibah, u32 flags);

/* swr_srq.c */
int swr_wq_init(struct swr_wq *wq, struct ib_ucontext *uctx, u32 max_wr,
		u32 max_sge, const struct swroce_user_ring *user);
void swr_wq_fini(struct swr_wq *wq);
int swr_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int swr_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int swr_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int swr_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* swr_tm.c: tag matching SRQs (ib_srq_init_attr.ext.tag_matching) */
int swr_tm_init(struct swr_srq *srq, const struct ib_srq_init_attr *init);
void swr_tm_fini(struct swr_srq *srq);

/* swr_xrc.c: XRC domains and the numbers of XRC SRQs */
int swr_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int swr_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
/* Check an XRC SRQ's attributes and give it a number (create_srq). */
int swr_xrc_srq_add(struct swr_srq *srq, const struct ib_srq_init_attr *init);
/* Withdraw the number and wait for the lookups in flight (destroy_srq). */
void swr_xrc_srq_del(struct swr_srq *srq);
/* Drop a reference swr_xrc_srq_get() took. */
void swr_srq_put(struct swr_srq *srq);

/* swr_cq.c */
int swr_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int swr_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int swr_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);

#endif /* SWR_H */
