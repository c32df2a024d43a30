/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Queue pairs, the poller and the engine: the internal contract.
 *
 * Who runs what
 * -------------
 * Each device has one poller kthread (swr_poll.c). It is the only context
 * that consumes send queues and executes work requests: for every QP on
 * its list it calls swr_req_process(), which copies WQEs out of the SQ ring
 * once, validates the copy and executes it (swr_engine.c). Traffic to a QP
 * of the same device is delivered locally by the same call (the responder
 * half runs on the destination QP, under its resp_lock). Traffic to any
 * other GID goes to the wire (swr_net.c, swr_wire.c; see swr_net.h): a UD
 * send becomes one packet; an RC/UC WQE is copied into the QP's outstanding
 * window (req.wire) and its packets are sent by the poller, which also
 * completes it when the ACK or the response comes. The receive path runs
 * in softirq (the UDP socket's encap_rcv): requests - UD datagrams and
 * RC/UC requests - are processed there under the destination QP's
 * resp_lock (data placement, ACK/NAK and READ/atomic responses sent from
 * there); ACKs, NAKs and responses for our requester are queued on
 * qp->wire_rxq for the poller, because the requester's state is the
 * poller's (sq_lock, never taken in softirq). While the poller sleeps, a
 * work item on a high-priority workqueue takes them instead
 * (swr_wire_rxq_kick()): the WQE they complete must not wait for the
 * poller to get a CPU from a spinning application. A device whose netns
 * port 4791 is taken (rdma_rxe in init_net) is local-only: a UD send to a
 * foreign GID is dropped like a lost packet and an RC/UC request to a
 * foreign GID completes with IB_WC_RETRY_EXC_ERR after the retries.
 *
 * The poller busy-polls while there is work and for idle_us afterwards,
 * then sets SWROCE_SQ_NEED_WAKEUP in every SQ ring, issues a full fence,
 * rechecks every ring and sleeps (uAPI: struct swroce_sq_ring). It is woken
 * by the user doorbell (post_send with no WRs: swr_poll_doorbell()) and by
 * swr_poll_kick(): a kernel consumer's post_send, modify_qp to ERR
 * (flushing is poller work), a response from the wire, and a timer (RNR
 * retry deadline, retransmission).
 *
 * Locks (outermost first); see also swr.h and swr_mr.h
 * ----------------------------------------------------
 *   swr_qp.modify_mutex       modify_qp/query_qp/destroy_qp (sleeps)
 *   swr_cq.resize_mutex       resize_cq (sleeps; of the locks below it
 *                             takes only swr_poller.lock, swr_cq.lock)
 *   swr_qp.sq_lock            the requester: sq.cons, req (a mutex: the
 *                             poller; modify_qp)
 *   swr_poller.lock           the poller's QP list (spin, _bh)
 *   swr_qp.resp_lock          the responder: rq consumption, resp (spin, _bh)
 *   swr_srq.lock              SRQ consumption and limit (spin, _bh)
 *   swr_qp.state_lock         state and attr (spin, _irqsave: the engine
 *                             reads them while holding the locks above)
 *   swr_cq.lock               CQE production (spin, _irqsave)
 *   swr_mwin.lock, swr_mr.lock
 * A requester holding its own sq_lock takes the *destination* QP's
 * resp_lock (which may be its own QP's); never the reverse. sq.prod_lock
 * and rq.prod_lock (kernel consumers' producers) nest inside nothing and
 * take nothing.
 *
 * Large messages
 * --------------
 * sq_lock is a mutex, held for one turn of the requester (swr_req_process():
 * at most SWR_TURN_BYTES of data), so the requester may sleep. The data of
 * a local SEND, WRITE or READ moves without the destination's resp_lock,
 * in turns: the responder validates the request, consumes the receive WQE
 * and references the memory under resp_lock (step 1), drops it for the
 * copy (step 2; the MR references keep the memory pinned and registered)
 * and retakes it to complete (step 3). What steps 2 and 3 need is kept in
 * req.xfer between turns, with the references: the destination cannot be
 * destroyed meanwhile (swr_qp_get()), and a destination reset bumps
 * resp_gen, after which the completion of the receive WQE consumed before
 * is dropped, as the reset already discarded everything posted. A WQE
 * whose data moves always completes, and completions stay in order: the
 * requester starts nothing else until it has, whatever happens to its
 * state (a flush waits for it; reset and destroy finish it first,
 * swr_req_finish_xfer()), so a destination that takes requests from its
 * one peer (RC/UC) still completes its receive WQEs in order.
 */
#ifndef SWR_QP_H
#define SWR_QP_H

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/swroce-abi.h>

#include "swr.h"

/* Largest inline payload of a send WQE (rxe: 512). */
#define SWR_MAX_INLINE		512

/*
 * Kernel-only opcodes. They are valid only in a kernel QP's SQ (the kernel
 * wrote the WQE itself); in a user ring they fail the WQE like any unknown
 * opcode. The payload is in the union of struct swroce_send_wqe, laid out
 * as struct swr_kwqe_reg.
 */
#define SWR_WR_REG_MR		0x80

struct swr_kwqe_reg {
	__aligned_u64 mr;	/* struct ib_mr * */
	__u32 key;
	__u32 access;
};

/*
 * swroce_cqe.opcode: enum ibv_wc_opcode's numbers, which are also enum
 * ib_uverbs_wc_opcode's and, for the values below 8, enum ib_wc_opcode's.
 * SWR_WC_REG_MR appears only in kernel CQs (kernel QPs alone post REG_MR);
 * swr_poll_cq() translates every value into enum ib_wc_opcode.
 */
enum swr_wc_opcode {
	SWR_WC_SEND = 0,
	SWR_WC_RDMA_WRITE = 1,
	SWR_WC_RDMA_READ = 2,
	SWR_WC_COMP_SWAP = 3,
	SWR_WC_FETCH_ADD = 4,
	SWR_WC_BIND_MW = 5,
	SWR_WC_LOCAL_INV = 6,
	SWR_WC_ATOMIC_WRITE = 9,
	SWR_WC_REG_MR = 0x7f,
	SWR_WC_RECV = 1 << 7,
	SWR_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1,
	/* Tag matching SRQs (swr_tm.c); user CQs only */
	SWR_WC_TM_ADD = (1 << 7) + 2,
	SWR_WC_TM_DEL = (1 << 7) + 3,
	SWR_WC_TM_SYNC = (1 << 7) + 4,
	SWR_WC_TM_RECV = (1 << 7) + 5,
	SWR_WC_TM_NO_TAG = (1 << 7) + 6,
};

/*
 * In a kernel CQ (never mapped) swroce_cqe.ex_data2 of a UD receive
 * carries enum rdma_network_type, for ib_wc.network_hdr_type.
 */

struct swr_mr;
struct swr_rss;

/* A registered range the engine copies to or from (swr_engine.c). */
struct swr_seg {
	struct swr_mr *mr;	/* referenced (swr_mr_lookup()) */
	u64 iova;
	u64 len;
};

/* A send WQE as the engine works on it: the kernel's validated copy. */
/* Who a send WQE is from: the SQ, or the device itself (swr_tm.c). */
enum swr_wqe_origin {
	SWR_WQE_USER,		/* the SQ's ring (user or kernel consumer) */
	SWR_WQE_TM_READ,	/* rendezvous: READ the sender's buffer */
	SWR_WQE_TM_FIN,		/* rendezvous: tell the sender it is read */
};

struct swr_send_wqe {
	struct swroce_send_wqe hdr;
	union {
		struct swroce_sge sge[SWR_MAX_SGE];
		u8 inline_data[SWR_MAX_INLINE];
	};
	/*
	 * enum swr_wqe_origin. Kernel-only, outside hdr, so that nothing in
	 * a ring can claim to be the device's own; its completion goes to
	 * swr_tm_req_done(), not the send CQ.
	 */
	u8 origin;
};

/* What a message to a tag matching SRQ took (swr_tm.c). */
enum swr_tm_kind {
	SWR_TM_PLAIN,		/* an ordinary receive, IBV_WC_RECV */
	SWR_TM_MATCHED,		/* a tag's buffer */
	SWR_TM_UNEXPECTED,	/* an ordinary receive, TMH included */
	SWR_TM_NO_TAG,		/* likewise, IBV_WC_TM_NO_TAG */
	SWR_TM_RNDV,		/* a tag's buffer, for the sender's to be READ */
};

/*
 * The head of a SEND to a QP on a tag matching SRQ: the TMH and, for a
 * rendezvous, the RVH after it (swr_tm_recv()).
 */
#define SWR_TM_HDR_BYTES	32
struct swr_tm_msg {
	u8 hdr[SWR_TM_HDR_BYTES];
	u32 hdr_len;		/* bytes of hdr the message has */
	u64 len;		/* the whole message's */
};

/*
 * A receive WQE, copied out of an RQ or SRQ ring and validated, or a
 * tagged buffer of a tag matching SRQ.
 */
struct swr_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u8 tm;			/* enum swr_tm_kind; SWR_TM_PLAIN elsewhere */
	u8 tm_skip;		/* leading message bytes not placed: the TMH */
	u32 tm_handle;		/* SWR_TM_RNDV: the tag's slot (swr_tm.c) */
	u32 tm_app_ctx;		/* SWR_TM_MATCHED, _RNDV: from the TMH */
	u64 tm_tag;
	struct swroce_sge sge[SWR_MAX_SGE];
};

/* The send queue ring and its kernel-private indices. */
struct swr_sq {
	struct swroce_sq_ring *ring;
	struct swr_ring_mem *mem;	/* NULL for a kernel QP */
	u32 num_wqe;		/* a power of two */
	u32 wqe_shift;		/* log2 of the slot size, >= 6 */
	u32 max_sge;
	u32 max_inline;
	u32 cons;		/* next slot the engine copies (sq_lock) */
	/* Kernel QPs: serialises ib_post_send() callers; prod is ours. */
	spinlock_t prod_lock;
	u32 prod;
};

/* QP attributes the engine uses; under state_lock. */
struct swr_qp_attr {
	u32 qkey;
	u32 dest_qpn;
	u32 sq_psn;
	u32 rq_psn;
	int access_flags;	/* IB_ACCESS_REMOTE_* the responder allows */
	enum ib_mtu path_mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u16 pkey_index;
	bool sq_draining;	/* in SQD until the SQ is empty */
	struct rdma_ah_attr ah;	/* RC/UC: the remote end (RoCE, GRH) */
	/*
	 * RC/UC: the GID at ah's sgid_index when the path was set, the
	 * source of every packet (swr_wire_path()) and what local delivery
	 * checks a sender against (swr_engine.c); sgid_oif the ifindex of
	 * its netdev then (a VLAN upper sends through the VLAN device).
	 */
	union ib_gid sgid;
	int sgid_oif;
};

/*
 * RC/UC over the wire (swr_wire.c): the requester's outstanding window.
 * WQEs handed to the wire are copied into ent[] and stay there until
 * acknowledged (RC) or sent (UC); head..send have had packets sent,
 * send..tail wait for them. Indices run freely; slot = index % window.
 */
#define SWR_WIRE_WINDOW		8

struct swr_wire_ent {
	struct swr_send_wqe wqe;
	u64 len;		/* message bytes */
	u32 first_psn;
	u32 npkts;		/* PSNs the message takes */
	u32 rd_next;		/* READ: first response packet not yet placed */
	u32 rd_rereq;		/* READ: rd_next at the last early re-request */
	/* READ: bit i set: response packet rd_next + i placed (reordered). */
	u64 rd_mask;
	bool done;		/* answered; completes once it is the head */
};

struct swr_wire_req {
	struct swr_wire_ent ent[SWR_WIRE_WINDOW];
	u32 head;		/* oldest not completed */
	u32 send;		/* entry whose packets go out next */
	u32 tail;		/* next free */
	u32 sent;		/* packets of ent[send] sent */
	u32 sent_hi;		/* PSN after the highest ever sent */
	u32 acked_psn;		/* PSN after the highest the peer has */
	u32 unacked;		/* packets since the last AckReq */
	u32 nak_psn;		/* PSN of the last sequence NAK acted on */
	bool nak_seen;		/* nak_psn valid: no timeout since */
	bool inflight_full;	/* the window is out: wait for answers */
	bool late_grace;	/* this timer was found late: extended once */
	u64 deadline;		/* retransmission timer, ktime ns; 0: off */
	u64 rnr_until;		/* RNR NAK wait, ktime ns; 0: none */
	u64 ackreq_ts;		/* when the last AckReq went, ktime ns */
	u64 rtt_ts;		/* when the round-trip probe went; 0: none */
	u64 heard_ns;		/* when the last response arrived, ktime ns */
	u32 rtt_psn;		/* the probe's PSN */
	u8 retry_left;
	u8 rnr_left;
	/* DCQCN's rate (swr_cc.c), and the time pacing waits for; 0: none */
	struct swr_cc_rp cc;
	u64 paced_until;
	/* The loss window (swr_cc.c), its tail-loss probe (ktime ns; 0: none). */
	struct swr_cc_lw lw;
	u64 probe_at;
};

/*
 * RC/UC over the wire: a responder resource (IBTA 9.7.5.1.4, one of
 * max_dest_rd_atomic). Each READ or atomic request taken holds one until
 * the slot is reused: its responses are sent from here (by the poller
 * when they are many, swr_wire_resp.c), and a duplicate of the request is
 * answered from here or not at all, so that a duplicate never executes
 * anything the original did not.
 */
enum swr_wire_rd_kind {
	SWR_RD_FREE,
	SWR_RD_READ,
	SWR_RD_ATOMIC,
};

struct swr_wire_rd {
	u8 kind;		/* enum swr_wire_rd_kind */
	u32 psn;		/* the request's PSN */
	u32 npkts;		/* PSNs it takes: READ response packets, or 1 */
	u32 next;		/* responses sent; below npkts: more to send */
	u32 msn;		/* the MSN its responses carry */
	u32 mtu;		/* READ: the path MTU when it was taken */
	u32 rkey;		/* READ: the range, as requested */
	u32 srqn;		/* XRC READ: the SRQ whose PD the rkey is in */
	u32 len;
	union {
		u64 va;		/* READ */
		u64 orig;	/* atomic: the original value */
	};
};

/* An answer (ACK or NAK) the responder holds back: its AETH and PSN. */
struct swr_wire_held {
	bool valid;
	u8 syn;
	u32 psn;
	u32 msn;
};

/* RC/UC over the wire: the responder's state (resp_lock). */
struct swr_wire_resp {
	u32 msn;
	u32 cur;		/* SWR_OPF_SEND / _WRITE in progress, or 0 */
	u64 wr_va;		/* WRITE: next address, rkey, bytes left */
	u32 wr_rkey;
	u32 wr_left;
	u32 wr_len;
	bool nak_sent;		/* a PSN sequence NAK is outstanding */
	/*
	 * READ responses or atomic results wait for the poller (a resource
	 * with next < npkts). Written under resp_lock; the poller peeks
	 * without it.
	 */
	bool tx_pending;
	/*
	 * An ACK, RNR NAK or sequence NAK held while tx_pending, for the
	 * poller to send after those responses (swr_wire_answer()).
	 */
	struct swr_wire_held held;
	u32 rd_next;		/* slot the next READ/atomic takes */
	struct swr_wire_rd rd[SWR_MAX_RD_ATOM];
};

/*
 * The responder's answer to one request, as the requester sees it: an
 * ACK, an RNR NAK, a NAK with a completion status, or (UC) nothing.
 */
struct swr_answer {
	enum ib_wc_status status;	/* the requester's completion */
	bool rnr;
	bool fault;			/* an ODP page is being faulted in */
	u8 rnr_timer;			/* with rnr: min_rnr_timer */
	u64 read_orig;			/* atomics: the original value */
};

/* The data a request moves once the responder has dropped resp_lock. */
enum swr_xfer {
	SWR_XFER_NONE,
	SWR_XFER_IN,		/* SEND, WRITE: into req.rseg */
	SWR_XFER_OUT,		/* READ: from req.rseg into req.lseg */
};

/* One request at the responder, between its three steps. */
struct swr_resp_op {
	enum swr_xfer xfer;
	u32 nr;			/* req.rseg entries referenced */
	u32 gen;		/* dst->resp_gen when the request was taken */
	bool has_recv;		/* a receive WQE was consumed (req.rwqe) */
	bool inval_ok;
	enum ib_wc_status rstatus;	/* the receive completion's */
	/* What a failed copy makes of rstatus and of the answer. */
	enum ib_wc_status copy_rstatus;
	enum ib_wc_status copy_status;
	/* XRC_TGT: the SRQ the request names, referenced until step 3. */
	struct swr_srq *xsrq;
	/* A matched tag's buffer: the leading bytes (the TMH) not placed */
	u32 skip;
	/*
	 * A rendezvous matched (req.rwqe): its READ may start once the
	 * RNDV SEND has completed (swr_xfer_run(): a SEND always moves data
	 * in turns, SWR_XFER_IN).
	 */
	bool rndv;
};

/*
 * Bytes of data a turn of swr_req_process() moves at most ("Large
 * messages" above): a 2 GiB WRITE takes 32768 turns, and between two of
 * them the poller serves every other QP.
 */
#define SWR_TURN_BYTES		SZ_64K

/*
 * A local RC/UC request between the responder's step 1 and step 3
 * (swr_engine.c): its data moves in turns, and it completes once all of
 * it has moved. dst is NULL when there is none.
 */
struct swr_req_xfer {
	struct swr_qp *dst;	/* referenced (swr_qp_get()) */
	struct swr_answer a;
	struct swr_resp_op op;	/* op.nr: req.rseg entries referenced */
	u32 nl;			/* req.lseg entries referenced */
	u32 npkts;
	u64 len;		/* message bytes */
	u64 done;		/* bytes moved */
};

/*
 * Whether the requester's last destination GID was one of the device's
 * own (swr_req_gid_is_local()): the answer of the GID table, kept while
 * the table has not changed since (sdev->gid_gen).
 */
struct swr_gid_cache {
	union ib_gid dgid;
	u32 gen;
	bool valid;
	bool local;
};

/* Requester progress: under sq_lock (swr_req_process()'s callers). */
struct swr_req {
	/* The head WQE, copied out and not finished (e.g. waiting on RNR). */
	struct swr_send_wqe wqe;
	bool wqe_valid;
	u8 rnr_left;		/* RNR retries left for wqe (7: infinite) */
	u8 retry_left;		/* transport retries left for wqe */
	u64 wait_until;		/* ktime ns; 0 when not waiting */
	u32 psn;		/* next PSN to send */
	u32 rd_atomic_inflight;	/* READs/atomics not yet completed */
	u32 turn_bytes;		/* what this turn may still move */
	u32 turn_pkts;		/* wire packets this turn may still send */
	struct swr_req_xfer xfer;	/* wqe's data moving, if dst */
	struct swr_gid_cache dgid_local;
	/*
	 * Engine scratch space while a WQE executes, kept between turns
	 * while xfer.dst is set.
	 */
	struct swr_seg lseg[SWR_MAX_SGE];	/* local SGEs */
	struct swr_seg rseg[SWR_MAX_SGE];	/* receive SGEs or rkey range */
	struct swr_recv_wqe rwqe;		/* the consumed receive WQE */
};

/* Responder progress: under resp_lock. */
struct swr_resp {
	u32 psn;		/* next expected PSN */
	/*
	 * A multi-packet SEND or WRITE_WITH_IMM in progress consumes one
	 * receive WQE, kept here between its packets (wire path).
	 */
	struct swr_recv_wqe rwqe;
	bool rwqe_valid;
	u32 rwqe_offset;
	/*
	 * XRC_TGT (swr_xrc.c): the XRC SRQ of the request being processed,
	 * referenced from swr_xrc_resp_begin() to swr_xrc_resp_end() within
	 * one hold of resp_lock; and the number of the SRQ whose WQE rwqe
	 * is, kept with it between the packets of a message.
	 */
	struct swr_srq *xsrq;
	u32 rwqe_srqn;
};

/*
 * A QP's route between batches (swr_net.c), as rxe keeps its QP's in a
 * socket's dst cache: the dst looked up last, and the key it was looked
 * up for. A batch uses it while the key is the batch's, the dst is in the
 * namespace of the device's wire and dst_check() passes; otherwise it
 * looks the route up again and stores the new one. The requester and the
 * responder (ACKs, READ responses, CNPs) share it; a reset keeps it, and
 * destroy releases the dst. lock: spin, taken with bottom halves off,
 * nests inside everything and takes nothing.
 */
struct swr_route_cache {
	spinlock_t lock;	/* the fields below */
	struct dst_entry *dst;	/* referenced, or NULL */
	u32 cookie;		/* IPv6: the fib6 serial number it had */
	int oif;
	union ib_gid sgid;
	union ib_gid dgid;
};

/*
 * A QP's state for the wire, allocated when it first sends or receives a
 * packet (swr_wire_qp_get()) and kept until it is destroyed: QPs that
 * only ever talk to QPs of their own device do without it. A reset
 * zeroes req (under sq_lock) and resp (under resp_lock) like the rest.
 */
struct swr_wire_qp {
	struct swr_wire_req req;	/* sq_lock */
	struct swr_wire_resp resp;	/* resp_lock */
	/* CNPs for the requester, from the receive softirq (swr_cc.c) */
	atomic_t cnps;
	/* When the notification point sent this QP's last CNP, ktime ns */
	atomic64_t cnp_last;
	/* Receive segments of the packet being placed (resp_lock). */
	struct swr_seg seg[SWR_MAX_SGE];
	struct swr_route_cache route;
};

/*
 * The driver's half of an RDMA core counter (struct rdma_counter, id in
 * sdev->counter_xa): what the QPs bound to it count (swr_stats.c).
 */
struct swr_qp_counter {
	atomic64_t v[SWR_NUM_COUNTERS];
	struct rcu_head rcu;
};

struct swr_qp {
	struct ib_qp ibqp;
	bool is_user;
	bool sig_all;		/* IB_SIGNAL_ALL_WR */

	struct swr_cq *scq;
	struct swr_cq *rcq;
	struct swr_srq *srq;	/* NULL: the QP has its own rq */
	/*
	 * Tag matching SRQ: the rendezvous this QP's requester is to READ
	 * or FIN (swr_tm_tag.node), oldest first, and how many; under the
	 * SRQ's lock (tm_njobs also read without it).
	 */
	struct list_head tm_jobs;
	u32 tm_njobs;
	/*
	 * XRC_TGT: its domain (the requests' SRQs must be of it). An
	 * XRC_TGT QP has no rings (sq.ring and rq.ring NULL), an XRC_INI QP
	 * no receive queue (rq.ring NULL): see swr_xrc.c.
	 */
	struct ib_xrcd *xrcd;
	/* An RSS QP's hash and table (swr_rss.c), else NULL; immutable. */
	struct swr_rss *rss;

	/* Serialises modify_qp, query_qp and the reset of the queues. */
	struct mutex modify_mutex;
	/* Protects state, attr and sqd_notify (see also flush_pending). */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct swr_qp_attr attr;

	struct swr_sq sq;
	/* Protects sq.cons and req (the requester); may be held for long. */
	struct mutex sq_lock;
	struct swr_req req;

	struct swr_wq rq;	/* unused with an SRQ */
	spinlock_t rq_prod_lock;	/* kernel QPs: ib_post_recv() callers */
	u32 rq_prod;		/* kernel QPs: our producer index */
	spinlock_t resp_lock;
	struct swr_resp resp;
	/* Bumped by each reset of the responder (resp_lock). */
	u32 resp_gen;

	/* On the poller's list from create to destroy (swr_poll.c). */
	struct list_head poll_node;
	/*
	 * ACKs, NAKs and read/atomic responses from the wire, queued by the
	 * receive softirq (skb->ll_node) for the requester (swr_wire.c).
	 */
	struct llist_head wire_rxq;
	atomic_t wire_rxq_len;	/* skbs on it, at most SWR_WIRE_RXQ_MAX */
	/* Takes wire_rxq while the poller sleeps; holds a reference. */
	struct work_struct rxq_work;
	/*
	 * The doorbell caller in its turn (swr_poll_doorbell()): answers the
	 * softirqs of its own transmits draw in are its to take.
	 */
	struct task_struct *db_task;
	/* NULL until first used; set once (cmpxchg), freed by destroy. */
	struct swr_wire_qp *wire;
	/*
	 * Set by modify_qp to ERR, by swr_qp_set_error() and by a kernel
	 * consumer posting to a QP in ERR: the poller flushes both queues.
	 */
	bool flush_pending;

	/*
	 * Lookup references (swr_qp_get()). The QP holds the first one from
	 * create to destroy; destroy drops it and waits for released, so
	 * the engine may keep using a QP it looked up until swr_qp_put().
	 */
	refcount_t ref;
	struct completion released;
	/*
	 * SQD entered with en_sqd_async_notify: raise IB_EVENT_SQ_DRAINED
	 * when attr.sq_draining clears (under state_lock).
	 */
	bool sqd_notify;

	/*
	 * The counter the QP is bound to, or NULL: set and cleared by the
	 * core's bind/unbind (under the rdma_counter's lock), read under
	 * RCU by swr_qp_count(); freed after a grace period.
	 */
	struct swr_qp_counter __rcu *counter;
};

/*
 * Whether a send opcode carries data from the requester (SGEs or inline
 * data), as opposed to READs and atomics, which carry a local sink, and
 * LOCAL_INV/BIND_MW, which carry nothing.
 */
static inline bool swr_opcode_has_data(u8 opcode)
{
	switch (opcode) {
	case SWROCE_WR_SEND:
	case SWROCE_WR_SEND_WITH_IMM:
	case SWROCE_WR_SEND_WITH_INV:
	case SWROCE_WR_RDMA_WRITE:
	case SWROCE_WR_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/* An RC-like transport: ACKs, retries, READs and atomics. */
static inline bool swr_qp_reliable(const struct swr_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC ||
	       qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	       qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

static inline bool swr_qp_is_xrc(const struct swr_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	       qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

/*
 * The PD a responder checks memory accesses against (resp_lock held): the
 * QP's, or for an XRC_TGT QP that of the SRQ the request names (swr_xrc.c);
 * NULL, which matches no MR, while it names none.
 */
static inline struct ib_pd *swr_resp_pd(const struct swr_qp *qp)
{
	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return qp->ibqp.pd;
	return qp->resp.xsrq ? qp->resp.xsrq->ibsrq.pd : NULL;
}

static inline struct swr_qp *to_swr_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct swr_qp, ibqp);
}

static inline struct swr_dev *swr_qp_dev(struct swr_qp *qp)
{
	return to_swr_dev(qp->ibqp.device);
}

/* Count @n events @c of @qp: in its bound counter, or the device's. */
static inline void swr_qp_count_n(struct swr_qp *qp, enum swr_counter c,
				  u64 n)
{
	struct swr_qp_counter *qc;

	rcu_read_lock();
	qc = rcu_dereference(qp->counter);
	if (qc)
		atomic64_add(n, &qc->v[c]);
	else
		atomic64_add(n, &swr_qp_dev(qp)->counters[c]);
	rcu_read_unlock();
}

static inline void swr_qp_count(struct swr_qp *qp, enum swr_counter c)
{
	swr_qp_count_n(qp, c, 1);
}

/*
 * swr_qp.c: QP verbs and kernel consumers' posting
 */
int swr_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int swr_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int swr_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int swr_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int swr_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
/* A user QP's doorbell: the post_send command or the driver method. */
void swr_qp_doorbell(struct swr_qp *qp);
/* The driver's uverbs methods (ib_device.driver_def). */
extern const struct uapi_definition swr_qp_uapi_defs[];

/* swr_tm.c: tag matching SRQs */
extern const struct uapi_definition swr_tm_uapi_defs[];
int swr_tm_recv(struct swr_dev *sdev, struct swr_srq *srq,
		struct swr_recv_wqe *out, bool send,
		const struct swr_tm_msg *m, u32 qpn);
void swr_tm_recv_cqe(const struct swr_recv_wqe *rwqe, struct swroce_cqe *cqe);
void swr_tm_rndv_start(struct swr_qp *qp, const struct swr_recv_wqe *rwqe,
		       bool ok);
bool swr_tm_fetch(struct swr_qp *qp, struct swr_send_wqe *w);
void swr_tm_req_done(struct swr_qp *qp, const struct swr_send_wqe *w,
		     enum ib_wc_status status, u32 byte_len);
int swr_tm_flush(struct swr_qp *qp);
void swr_tm_qp_drop(struct swr_qp *qp);
int swr_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
int swr_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* The QP with number @qpn on @sdev, referenced; swr_qp_put() drops it. */
struct swr_qp *swr_qp_get(struct swr_dev *sdev, u32 qpn);
void swr_qp_put(struct swr_qp *qp);

/*
 * In SQD: once no started WQE is outstanding, clear attr.sq_draining and
 * raise IB_EVENT_SQ_DRAINED if it was asked for. The poller calls it after
 * each swr_req_process() of a draining QP; no locks held. With @trylock
 * it does not wait for sq_lock: false when another context holds it.
 */
bool swr_qp_check_drained(struct swr_qp *qp, bool trylock);

/*
 * Move @qp to IB_QPS_ERR from the engine (a fatal error), raising
 * IB_EVENT_QP_FATAL when @fatal; the poller then flushes it.
 */
void swr_qp_set_error(struct swr_qp *qp, bool fatal);

/* Who moved a QP to its new state (the swr_qp_state event). */
enum swr_qp_by {
	SWR_QP_BY_USER,		/* modify_qp */
	SWR_QP_BY_ERROR,	/* the engine: a completion in error */
	SWR_QP_BY_FATAL,	/* the engine: IB_EVENT_QP_FATAL */
};

/*
 * swr_xrc.c: the XRC SRQ a request at XRC_TGT QP @tgt names, referenced,
 * or NULL when there is none of that number in @tgt's domain.
 */
struct swr_srq *swr_xrc_srq_get(struct swr_qp *tgt, u32 srqn);
bool swr_xrc_resp_begin(struct swr_qp *tgt, u32 srqn);
void swr_xrc_resp_end(struct swr_qp *tgt);

/*
 * swr_poll.c: the per-device poller
 */
struct swr_poller {
	struct swr_dev *sdev;
	struct task_struct *task;
	spinlock_t lock;		/* protects qps, cur and next */
	struct list_head qps;
	/*
	 * The QP the poller works on with the lock dropped, and the one it
	 * takes after it; swr_poll_del_qp() moves next on and waits while
	 * cur is the QP it removes (del_wq).
	 */
	struct swr_qp *cur;
	struct swr_qp *next;
	wait_queue_head_t del_wq;
	/* Busy-poll time after the last work, in microseconds (sysfs). */
	u32 idle_us;
	/* Set while the poller sleeps or is about to. */
	bool need_wakeup;
	/*
	 * Its next sleep is a back-off's: at most SWR_POLL_LAZY_US, and the
	 * flags it sets say SWROCE_SQ_LAZY (swr_poll.c). The poller writes
	 * it; the flags' writers read it under lock.
	 */
	bool lazy;
	/* SWROCE_SQ_NEED_WAKEUP is on in the rings (lock; the poller's). */
	bool flags_on;
	/*
	 * A doorbell cleared its QP's flag since the poller last set the
	 * flags (lock): the poller must not sleep on them (swr_poll.c).
	 */
	bool flag_cleared;
	/* Until then (ktime ns) doorbells need not wake it (swr_poll.c). */
	u64 backoff_until;
	/* Earliest engine deadline seen in this pass (ktime ns, 0: none). */
	u64 next_deadline;
	/* Wakes the sleeping poller at a deadline (swr_poll_deadline()). */
	struct hrtimer timer;
	spinlock_t timer_lock;		/* serialises arming the timer */
	/*
	 * The poller thread's own: each CPU's idle time (us, nr_cpu_ids
	 * entries) when it last looked, and when that was (ktime ns, 0:
	 * never); swr_poll_idle_elsewhere().
	 */
	u64 *cpu_idle_us;
	u64 idle_sampled;
	/*
	 * The poller thread's own too (ktime ns, 0: none): since when it has
	 * stayed awake on a contended CPU, and until when it may not
	 * (swr_poll_may_stay()).
	 */
	u64 stay_since;
	u64 no_stay_until;
	/*
	 * The CPU + 1 whose steering queue this poller's transmit filled
	 * past its XOFF mark (0: none); swr_steer_throttle(). The poller's own.
	 */
	unsigned int steer_full;
};

int swr_poll_start(struct swr_dev *sdev);
void swr_poll_stop(struct swr_dev *sdev);
void swr_poll_add_qp(struct swr_qp *qp);
/* Removes @qp; on return the poller no longer touches it. May sleep. */
void swr_poll_del_qp(struct swr_qp *qp);
/* Wake the poller if it sleeps (work published before the call). */
void swr_poll_kick(struct swr_dev *sdev);
/*
 * Does the poller sleep (need_wakeup)? A full barrier first, as in
 * swr_poll_kick(): work published before the call is seen by the poller's
 * step 3 if this returns false.
 */
bool swr_poll_asleep(struct swr_dev *sdev);
/*
 * A user QP's doorbell: run its requester in the caller's context and wake
 * the poller when it is needed. Process context, no locks held; the QP
 * cannot be destroyed meanwhile (the caller holds its uobject).
 */
void swr_poll_doorbell(struct swr_qp *qp);
/*
 * The engine asks to be called again at @when (ktime_get_ns() base). The
 * poller forgets deadlines at the start of each pass, so swr_req_process()
 * reports a QP's pending deadline on every call that leaves it waiting; the
 * poller also honours a non-zero req.wait_until when it goes to sleep.
 */
void swr_poll_deadline(struct swr_dev *sdev, u64 when);

/*
 * swr_engine.c: executing work requests
 */

/*
 * One turn of @qp's requester: copy out and execute up to @budget send
 * WQEs moving at most SWR_TURN_BYTES of data (a larger WQE continues in
 * later turns), retry a WQE whose wait has expired, and flush both queues
 * when the QP is in the error state. Called by the poller and by the
 * doorbell, with no locks held; it never waits for sq_lock.
 * Return: the number of WQEs completed or flushed, plus one if data of a
 * WQE not completed yet moved (0: nothing to do now), or -EBUSY when
 * another context holds sq_lock.
 */
int swr_req_process(struct swr_qp *qp, int budget);

/*
 * Complete the WQE whose data is moving (req.xfer), if any, before a reset
 * or destroy forgets the requester's state. Called and returns with
 * sq_lock held; drops it between turns.
 */
void swr_req_finish_xfer(struct swr_qp *qp);

/* True when swr_req_process() has something to do for @qp at @now. */
bool swr_req_has_work(struct swr_qp *qp, u64 now);

/*
 * Copy the next receive WQE out of @wq (an RQ or SRQ ring), validating
 * it. Called under the owner's resp_lock / srq lock.
 * Return: 0, -ENOENT when the ring is empty, -EINVAL when the ring's
 * indices or the WQE are bad (the queue goes to error).
 */
int swr_wq_pop(struct swr_dev *sdev, struct swr_wq *wq,
	       struct swr_recv_wqe *out);

/* Reserve a number in the QPN space (no object stored: lookups miss). */
int swr_qpn_reserve(struct swr_dev *sdev, u32 *qpn);

/*
 * swr_cq.c: the CQE producer and kernel consumers' CQ verbs
 */

/*
 * Write one completion into @cq and fire the completion handler when it is
 * armed for it (@solicited: a solicited receive; errors always count as
 * solicited). On overflow the CQ goes to error (SWROCE_CQ_STATUS_OVERFLOW,
 * IB_EVENT_CQ_ERR) and -ENOSPC is returned. The caller counts the
 * completion (SWR_CNT_COMPLETIONS) for its QP.
 */
int swr_cq_post(struct swr_cq *cq, const struct swroce_cqe *cqe,
		bool solicited);
int swr_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
/* Drop @qpn's completions from a kernel CQ (a kernel QP went to RESET). */
void swr_cq_clean(struct swr_cq *cq, u32 qpn);
int swr_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

#endif /* SWR_QP_H */
