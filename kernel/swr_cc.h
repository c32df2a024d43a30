/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion control: ECN, CNPs and DCQCN (swr_cc.c; the algorithm and
 * its parameters in Documentation/congestion.rst).
 *
 * Notification point (NP, the receiver): a CE-marked RC/UC packet makes
 * it send a CNP to the QP at the other end, at most one per QP per
 * cnp_interval_us. Reaction point (RP, the sender): a CNP cuts the QP's
 * rate; timers and a byte counter raise it again (fast recovery,
 * additive and hyper increase); the requester paces its packets to the
 * rate. Who runs what:
 *   - the receive softirq: swr_cc_np_rx() (NP) and swr_cc_rp_cnp(), which
 *     only counts the CNP into the QP's wire state (an atomic);
 *   - the poller, under the QP's sq_lock: swr_cc_wait() folds the CNPs
 *     and timers into the rate and tells when the next packet may go;
 *     swr_cc_sent() charges a packet sent.
 */
#ifndef SWR_CC_H
#define SWR_CC_H

#include <linux/device.h>
#include <linux/types.h>

struct swr_dev;
struct swr_qp;
struct swr_rx;
struct swr_wire_path;

/* Per device, sysfs swroce/cc_<name>; sdev->cc[], read with READ_ONCE. */
enum swr_cc_param {
	SWR_CC_ECN,		/* 1: packets leave ECT(0) (not CNPs) */
	SWR_CC_NP_ENABLE,	/* 1: answer CE-marked packets with CNPs */
	SWR_CC_CNP_INTERVAL_US,	/* NP: one CNP per QP per interval at most */
	SWR_CC_CNP_DSCP,	/* the DSCP of CNPs */
	SWR_CC_RP_ENABLE,	/* 1: cut the rate on CNPs (DCQCN) */
	SWR_CC_G_SHIFT,		/* g = 2^-g_shift, alpha's gain */
	SWR_CC_ALPHA_US,	/* alpha update period (no CNP: alpha decays) */
	SWR_CC_REDUCE_US,	/* at most one cut per this period */
	SWR_CC_TIMER_US,	/* rate increase timer */
	SWR_CC_BYTE_RESET,	/* rate increase byte counter, bytes */
	SWR_CC_FAST_RECOVERY,	/* F: increase events of fast recovery */
	SWR_CC_AI_MBPS,		/* additive increase step, Mbit/s */
	SWR_CC_HAI_MBPS,	/* hyper increase step, Mbit/s */
	SWR_CC_MIN_MBPS,	/* the lowest rate */
	SWR_CC_MAX_MBPS,	/* the rate above which a QP is not paced */
	SWR_CC_WINDOW_US,	/* bytes out: what the rate sends in this */
	SWR_CC_LOSS_WINDOW,	/* 1: a loss halves the packets a QP may have out */
	SWR_CC_NPARAMS,
};

/*
 * The reaction point of one QP (in struct swr_wire_req: the poller's,
 * under sq_lock; zeroed with it at reset). Rates in kbit/s; rc 0: the QP
 * is not limited. Times are ktime ns.
 */
struct swr_cc_rp {
	u64 rc;			/* current rate */
	u64 rt;			/* target rate */
	u32 alpha;		/* congestion estimate, 1 << 10 = 1.0 */
	bool cnp_seen;		/* CNPs in the current alpha period */
	u32 t_stage;		/* increase events by the timer since a cut */
	u32 b_stage;		/* ... by the byte counter */
	u64 bytes;		/* sent since the last byte-counter event */
	u64 alpha_ts;		/* last alpha update */
	u64 timer_ts;		/* last timer event (or the cut) */
	u64 cut_ts;		/* last rate cut */
	u64 vt;			/* pacing: when the next packet may go */
	u64 srtt;		/* smoothed round trip (swr_cc_rtt()), ns */
	u64 rttvar;		/* its mean deviation, ns */
	/* The rate the QP sends at, measured, for the first cut. */
	u64 win_ts;
	u64 win_bytes;
	u64 meas;
	/*
	 * Whether the QP uses its rate (swr_cc_used()): bytes sent in the
	 * usage window in progress and in the one before it.
	 */
	u64 use_ts;		/* the window in progress began */
	u64 use_bytes;
	u64 use_prev_ts;	/* the window before it began; 0: none */
	u64 use_prev_bytes;
};

/*
 * The loss window of one RC QP (in struct swr_wire_req, the poller's under
 * sq_lock, zeroed with it): how many PSNs it may have unacknowledged. It
 * grows with what is acknowledged (slow start below ssthresh, then one
 * PSN per window) and is cut when a loss shows: half the packets that
 * were out on a sequence NAK, SWR_CC_LW_MIN on a timeout; one cut per
 * episode (until what was out then is acknowledged). A RoCE NIC's "TX
 * window" and "slow restart" for fabrics without PFC; TCP's Reno for the
 * same reason. cwnd 0: not started (the first window sets it).
 */
struct swr_cc_lw {
	u32 cwnd;
	u32 ssthresh;
	u32 acc;		/* PSNs acknowledged toward the next +1 */
	u32 recover;		/* sent_hi at the last cut */
	bool recovering;	/* acked_psn has not passed recover yet */
};

/* sysfs attributes (swr_main.c's group lists each). */
struct swr_cc_attr {
	struct device_attribute da;	/* swr_cc_attrs[] index: the param */
};

extern struct swr_cc_attr swr_cc_attrs[SWR_CC_NPARAMS];

/* The defaults, at device creation. */
void swr_cc_init(struct swr_dev *sdev);
/* The IP traffic class of a packet with BTH opcode @opcode: ECT(0) added. */
u8 swr_cc_tclass(struct swr_dev *sdev, u8 tclass, u8 opcode);
/* Softirq, a valid RC/UC packet at @qp from its peer: the NP's part. */
void swr_cc_np_rx(struct swr_qp *qp, const struct swr_rx *rx,
		  const struct swr_wire_path *p);
/* Softirq: a CNP for @qp from its peer. */
void swr_cc_rp_cnp(struct swr_qp *qp);
/* Poller (sq_lock): 0 when a packet may go at @now, else when it may. */
u64 swr_cc_wait(struct swr_qp *qp, u64 now);
/* Poller (sq_lock): a packet of @bytes went at @now. */
void swr_cc_sent(struct swr_qp *qp, u32 bytes, u64 now);
/* Poller (sq_lock): bytes @qp may have unacknowledged; U64_MAX: any. */
u64 swr_cc_window(struct swr_qp *qp);
/* Poller (sq_lock): PSNs @qp may have unacknowledged; U32_MAX: any. */
u32 swr_cc_lw_window(struct swr_qp *qp);
/* Poller (sq_lock): @n more PSNs acknowledged, all before @acked_psn. */
void swr_cc_lw_acked(struct swr_qp *qp, u32 n, u32 acked_psn);
/*
 * Poller (sq_lock): a loss, shown by a sequence NAK or (@timeout) the
 * retransmission timer, with @out PSNs unacknowledged.
 */
void swr_cc_lw_loss(struct swr_qp *qp, bool timeout, u32 out);
/*
 * Poller (sq_lock): how long @qp, whose retransmission timeout is @tmo ns,
 * waits for the answer to an ACK request before it probes for a tail
 * loss; 0: it does not probe (no loss window, no round trip measured).
 */
u64 swr_cc_lw_pto(struct swr_qp *qp, u64 tmo);
/* Poller (sq_lock): a round trip of @ns measured (an AckReq answered). */
void swr_cc_rtt(struct swr_qp *qp, u64 ns);
/* The QP's current rate in Mbit/s, 0: not limited (restrack). */
u32 swr_cc_rate_mbps(struct swr_qp *qp);
/* The QP's loss window in PSNs, 0: none (restrack). */
u32 swr_cc_lw_cwnd(struct swr_qp *qp);
/* The QP's smoothed round trip in us, 0: none measured (restrack). */
u32 swr_cc_rtt_us(struct swr_qp *qp);

#endif /* SWR_CC_H */
