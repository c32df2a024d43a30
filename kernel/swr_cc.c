// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Congestion control: ECN marking, the notification point's CNPs and the
 * reaction point's DCQCN rate (swr_cc.h says who runs what;
 * Documentation/congestion.rst describes the algorithm and parameters).
 *
 * Rates are kbit/s of RoCE bytes (BTH to ICRC). The reaction point's
 * state is the poller's (sq_lock); the receive softirq hands it CNPs
 * through an atomic count in struct swr_wire_qp, and the notification
 * point's one-CNP-per-interval rule is a cmpxchg on the time of the last
 * CNP there, so neither side takes a lock of the other.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "swr.h"
#include "swr_cc.h"
#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_wire.h"

/* alpha's fixed point: 1 << 10 is 1.0 */
#define SWR_CC_ALPHA_ONE	1024
/* Pacing lets a QP whose turn came late catch up this many bytes. */
#define SWR_CC_BURST		(16 * 1024)
/*
 * The window over which a QP's sending rate is measured: long enough to
 * span several of the poller's bursts (64 packets), so that the figure
 * is the rate and not one burst's.
 */
#define SWR_CC_MEAS_NS		(2 * NSEC_PER_MSEC)
/*
 * A QP's use of its rate is measured over the last one to two windows of
 * this length (swr_cc_used()): several of the poller's turns, so that a
 * QP whose turns come late is measured at what it sends between them.
 */
#define SWR_CC_USE_NS		(8 * NSEC_PER_MSEC)
/* Timer periods caught up at once; after a longer pause, restart. */
#define SWR_CC_CATCHUP		64

/* Parameters: defaults and bounds (Documentation/congestion.rst). */
static const struct {
	u32 def, min, max;
} swr_cc_range[SWR_CC_NPARAMS] = {
	[SWR_CC_ECN] = { 1, 0, 1 },
	[SWR_CC_NP_ENABLE] = { 1, 0, 1 },
	[SWR_CC_CNP_INTERVAL_US] = { 50, 0, 1000000 },
	[SWR_CC_CNP_DSCP] = { 48, 0, 63 },
	[SWR_CC_RP_ENABLE] = { 1, 0, 1 },
	[SWR_CC_G_SHIFT] = { 8, 1, 16 },
	[SWR_CC_ALPHA_US] = { 150, 1, 1000000 },
	[SWR_CC_REDUCE_US] = { 50, 0, 1000000 },
	[SWR_CC_TIMER_US] = { 1000, 1, 1000000 },
	[SWR_CC_BYTE_RESET] = { 32768, 1024, 1U << 30 },
	[SWR_CC_FAST_RECOVERY] = { 5, 0, 100 },
	[SWR_CC_AI_MBPS] = { 2, 1, 100000 },
	[SWR_CC_HAI_MBPS] = { 10, 1, 100000 },
	[SWR_CC_MIN_MBPS] = { 1, 1, 100000 },
	[SWR_CC_MAX_MBPS] = { 100000, 1, 1000000 },
	[SWR_CC_WINDOW_US] = { 10000, 0, 1000000 },
	[SWR_CC_LOSS_WINDOW] = { 1, 0, 1 },
};

void swr_cc_init(struct swr_dev *sdev)
{
	int i;

	for (i = 0; i < SWR_CC_NPARAMS; i++)
		sdev->cc[i] = swr_cc_range[i].def;
}

static u32 swr_cc(struct swr_dev *sdev, enum swr_cc_param i)
{
	return READ_ONCE(sdev->cc[i]);
}

/* sysfs ------------------------------------------------------------------- */

static ssize_t swr_cc_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct swr_dev *sdev = rdma_device_to_drv_device(device, struct swr_dev,
							 ibdev);
	struct swr_cc_attr *a = container_of(attr, struct swr_cc_attr, da);

	return sysfs_emit(buf, "%u\n", swr_cc(sdev, a - swr_cc_attrs));
}

static ssize_t swr_cc_store(struct device *device,
			    struct device_attribute *attr, const char *buf,
			    size_t count)
{
	struct swr_dev *sdev = rdma_device_to_drv_device(device, struct swr_dev,
							 ibdev);
	struct swr_cc_attr *a = container_of(attr, struct swr_cc_attr, da);
	enum swr_cc_param i = a - swr_cc_attrs;
	u32 val;
	int err;

	err = kstrtou32(buf, 0, &val);
	if (err)
		return err;
	if (val < swr_cc_range[i].min || val > swr_cc_range[i].max)
		return -ERANGE;
	WRITE_ONCE(sdev->cc[i], val);
	return count;
}

#define SWR_CC_ATTR(p, n)						\
	[p] = {								\
		.da = {							\
			.attr = { .name = n, .mode = 0644 },		\
			.show = swr_cc_show,				\
			.store = swr_cc_store,				\
		},							\
	}

struct swr_cc_attr swr_cc_attrs[SWR_CC_NPARAMS] = {
	SWR_CC_ATTR(SWR_CC_ECN, "cc_ecn"),
	SWR_CC_ATTR(SWR_CC_NP_ENABLE, "cc_np_enable"),
	SWR_CC_ATTR(SWR_CC_CNP_INTERVAL_US, "cc_cnp_interval_us"),
	SWR_CC_ATTR(SWR_CC_CNP_DSCP, "cc_cnp_dscp"),
	SWR_CC_ATTR(SWR_CC_RP_ENABLE, "cc_rp_enable"),
	SWR_CC_ATTR(SWR_CC_G_SHIFT, "cc_g_shift"),
	SWR_CC_ATTR(SWR_CC_ALPHA_US, "cc_alpha_us"),
	SWR_CC_ATTR(SWR_CC_REDUCE_US, "cc_reduce_us"),
	SWR_CC_ATTR(SWR_CC_TIMER_US, "cc_timer_us"),
	SWR_CC_ATTR(SWR_CC_BYTE_RESET, "cc_byte_reset"),
	SWR_CC_ATTR(SWR_CC_FAST_RECOVERY, "cc_fast_recovery"),
	SWR_CC_ATTR(SWR_CC_AI_MBPS, "cc_ai_mbps"),
	SWR_CC_ATTR(SWR_CC_HAI_MBPS, "cc_hai_mbps"),
	SWR_CC_ATTR(SWR_CC_MIN_MBPS, "cc_min_mbps"),
	SWR_CC_ATTR(SWR_CC_MAX_MBPS, "cc_max_mbps"),
	SWR_CC_ATTR(SWR_CC_WINDOW_US, "cc_window_us"),
	SWR_CC_ATTR(SWR_CC_LOSS_WINDOW, "cc_loss_window"),
};

/* ECN --------------------------------------------------------------------- */

u8 swr_cc_tclass(struct swr_dev *sdev, u8 tclass, u8 opcode)
{
	/* A traffic class that says ECN itself keeps it; CNPs are Not-ECT. */
	if (opcode == SWR_OP_CNP || !swr_cc(sdev, SWR_CC_ECN) ||
	    INET_ECN_is_capable(tclass))
		return tclass;
	return tclass | INET_ECN_ECT_0;
}

/* Notification point ----------------------------------------------------- */

static bool swr_cc_ce(const struct swr_rx *rx)
{
	const struct sk_buff *skb = rx->skb;

	if (rx->ipv4)
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/* A CNP to the QP at the other end of @qp's path (annex A17.9.3). */
static void swr_cc_send_cnp(struct swr_qp *qp, const struct swr_wire_path *p)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_wire_dest d = p->d;
	struct sk_buff *skb;
	struct swr_bth *bth;

	skb = swr_skb_alloc(sdev, swr_opinfo(SWR_OP_CNP)->hdr_len, 0, 0);
	if (!skb)
		return;
	bth = (struct swr_bth *)skb->data;
	swr_bth_init(bth, SWR_OP_CNP, false, 0, p->dqpn, 0, false);
	bth->qpn |= htonl(SWR_BTH_BECN);
	skb_put_zero(skb, SWR_ICRC_BYTES);
	d.traffic_class = swr_cc(sdev, SWR_CC_CNP_DSCP) << 2;
	if (!swr_xmit(sdev, skb, &d, swr_sport(qp->ibqp.qp_num, p->dqpn),
		      swr_qp_route(qp)))
		swr_qp_count(qp, SWR_CNT_NP_CNP_SENT);
}

void swr_cc_np_rx(struct swr_qp *qp, const struct swr_rx *rx,
		  const struct swr_wire_path *p)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_wire_qp *w = READ_ONCE(qp->wire);
	u64 now, last, gap;

	if (!swr_cc_ce(rx))
		return;
	swr_qp_count(qp, SWR_CNT_NP_ECN_MARKED);
	if (!w || !swr_cc(sdev, SWR_CC_NP_ENABLE))
		return;
	now = ktime_get_ns();
	gap = (u64)swr_cc(sdev, SWR_CC_CNP_INTERVAL_US) * NSEC_PER_USEC;
	last = atomic64_read(&w->cnp_last);
	if (last && now - last < gap)
		return;
	/* Another CPU that got there first sends this interval's CNP. */
	if (atomic64_cmpxchg(&w->cnp_last, last, now) != last)
		return;
	swr_cc_send_cnp(qp, p);
}

/* Reaction point ---------------------------------------------------------- */

void swr_cc_rp_cnp(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);

	/* Without a window this QP sent nothing the CNP could be about. */
	if (!w || !swr_cc(swr_qp_dev(qp), SWR_CC_RP_ENABLE)) {
		swr_qp_count(qp, SWR_CNT_RP_CNP_IGNORED);
		return;
	}
	atomic_inc(&w->cnps);
}

/* Nanoseconds @bytes take at @kbps. */
static u64 swr_cc_ns(u64 bytes, u64 kbps)
{
	return div64_u64(bytes * 8 * USEC_PER_SEC, kbps);
}

/* The rate, kbit/s, of @bytes sent in @ns (> 0). */
static u64 swr_cc_kbps(u64 bytes, u64 ns)
{
	return div64_u64(bytes * 8 * USEC_PER_SEC, ns);
}

/* A moving average: @avg <- @avg - @avg / 2^@shift + @sample / 2^@shift. */
static u64 swr_cc_smooth(u64 avg, u64 sample, u32 shift)
{
	return avg ? avg - (avg >> shift) + (sample >> shift) : sample;
}

/*
 * The period of parameter @param: at least one round trip, @rtt. DCQCN's
 * timers assume a fabric's microsecond round trips; a software device's
 * take milliseconds (queues in a qdisc, an emulated CPU), and a period
 * shorter than the round trip acts on news the last change has not yet
 * had time to make (cutting again before the first cut could show).
 */
static u64 swr_cc_period(struct swr_dev *sdev, enum swr_cc_param param,
			 u64 rtt)
{
	return max_t(u64, (u64)swr_cc(sdev, param) * NSEC_PER_USEC, rtt);
}

/* CNPs arrived: cut the rate (at most once per reduce period). */
static void swr_cc_cut(struct swr_qp *qp, struct swr_cc_rp *rp, u64 now)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	u64 lo = (u64)swr_cc(sdev, SWR_CC_MIN_MBPS) * 1000;
	u64 hi = (u64)swr_cc(sdev, SWR_CC_MAX_MBPS) * 1000;
	u64 period;

	if (!rp->rc) {
		/* The first: from the rate the QP sends at. */
		rp->rc = clamp_t(u64, rp->meas ? rp->meas : hi, lo, hi);
		rp->alpha = SWR_CC_ALPHA_ONE;
		rp->alpha_ts = now;
		rp->cut_ts = 0;
		rp->vt = now;
	} else if (rp->meas && rp->meas < rp->rc) {
		/*
		 * A NIC sends at its rate; a CPU may send slower. A cut
		 * of an allowance the QP does not use would not slow it.
		 */
		rp->rc = max(rp->meas, lo);
	}
	period = swr_cc_period(sdev, SWR_CC_REDUCE_US, rp->srtt);
	if (!rp->cut_ts || now - rp->cut_ts >= period) {
		rp->cut_ts = now;
		rp->rt = rp->rc;
		rp->rc -= (rp->rc * rp->alpha) / (2 * SWR_CC_ALPHA_ONE);
		rp->rc = max(rp->rc, lo);
		rp->t_stage = 0;
		rp->b_stage = 0;
		rp->bytes = 0;
		rp->timer_ts = now;
	}
	/* The alpha period in progress saw a CNP (swr_cc_age()). */
	rp->cnp_seen = true;
}

/*
 * Whether the QP sends at least half its rate, over the last one to two
 * usage windows up to @now (idle time counted). A rate is raised only
 * while it is used, as TCP grows a window only while it fills it
 * (RFC 7661): a QP held back by its CPU or its application, with its
 * rate raised by every timer event meanwhile, would send at that rate
 * once the CPU is back, and every QP at once (four QPs with nothing
 * queued at the bottleneck were allowed three times the link between
 * them, and overflowed it within half a second). It does not stop a QP
 * that uses its rate while no feedback comes: swr_cc_window() does.
 */
static bool swr_cc_used(struct swr_cc_rp *rp, u64 now)
{
	u64 from = rp->use_prev_ts ? rp->use_prev_ts : rp->use_ts;
	u64 bytes = rp->use_prev_bytes + rp->use_bytes;
	u64 ns = now - from;

	if (!rp->use_ts || ns < SWR_CC_USE_NS)
		return true;	/* not measured yet */
	return 2 * swr_cc_kbps(bytes, ns) >= rp->rc;
}

/* A rate increase event (timer or byte counter). */
static void swr_cc_increase(struct swr_dev *sdev, struct swr_cc_rp *rp)
{
	u32 f = swr_cc(sdev, SWR_CC_FAST_RECOVERY);
	u64 lo = (u64)swr_cc(sdev, SWR_CC_MIN_MBPS) * 1000;
	u64 hi = (u64)swr_cc(sdev, SWR_CC_MAX_MBPS) * 1000;

	if (min(rp->t_stage, rp->b_stage) > f)
		rp->rt += (u64)swr_cc(sdev, SWR_CC_HAI_MBPS) * 1000;
	else if (max(rp->t_stage, rp->b_stage) > f)
		rp->rt += (u64)swr_cc(sdev, SWR_CC_AI_MBPS) * 1000;
	/*
	 * Not beyond what the QP sends plus a quarter: an allowance it does
	 * not use would let it burst above its share once the CPU is free,
	 * and every QP at once (4 QPs short of CPU, each allowed twice what
	 * it sent, had twice the link between them, and when the CPU came
	 * back the queue overflowed before the first CNPs).
	 */
	if (rp->meas)
		rp->rt = max(min(rp->rt, rp->meas + (rp->meas >> 2)), lo);
	rp->rt = min(rp->rt, hi);
	rp->rc = (rp->rt + rp->rc) / 2;
	/* Back at the top: not limited any more. */
	if (rp->rc + 1000 >= hi)
		rp->rc = 0;
}

/*
 * alpha follows, once per alpha period, whether CNPs came in it:
 * alpha <- (1 - g) alpha + g after a period with CNPs, (1 - g) alpha after
 * one without; so it estimates the share of periods that saw congestion,
 * and a cut takes alpha / 2 of the rate. (Raising it per CNP instead
 * would count a burst of CNPs, one per CNP interval, as many periods, and
 * cut by half where a tenth would do.) The timer raises the rate.
 */
static void swr_cc_age(struct swr_dev *sdev, struct swr_cc_rp *rp, u64 now)
{
	u64 period = swr_cc_period(sdev, SWR_CC_ALPHA_US, rp->srtt);
	u32 g = swr_cc(sdev, SWR_CC_G_SHIFT), i;

	for (i = 0; now - rp->alpha_ts >= period; i++) {
		if (i == SWR_CC_CATCHUP) {
			rp->alpha = 0;
			rp->alpha_ts = now;
			break;
		}
		rp->alpha -= rp->alpha >> g;
		if (rp->cnp_seen)
			rp->alpha += SWR_CC_ALPHA_ONE >> g;
		rp->cnp_seen = false;
		rp->alpha_ts += period;
	}

	/*
	 * The timer's period is the device's round trip, not the QP's: AIMD
	 * converges to fair shares when every flow increases as often, and a
	 * flow whose own round trip measured longer would grow slower, stay
	 * smaller, and so measure longer still.
	 */
	period = swr_cc_period(sdev, SWR_CC_TIMER_US,
			       atomic64_read(&sdev->cc_srtt));
	/* Periods in which the QP did not use its rate raise nothing. */
	if (rp->rc && now - rp->timer_ts >= period && !swr_cc_used(rp, now))
		rp->timer_ts = now;
	for (i = 0; rp->rc && now - rp->timer_ts >= period; i++) {
		if (i == SWR_CC_CATCHUP) {
			rp->timer_ts = now;
			break;
		}
		rp->timer_ts += period;
		rp->t_stage++;
		swr_cc_increase(sdev, rp);
	}
}

u64 swr_cc_wait(struct swr_qp *qp, u64 now)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_cc_rp *rp = &qp->wire->req.cc;
	atomic_t *cnps = &qp->wire->cnps;
	/* Per packet: a read, and the exchange only when CNPs came. */
	int n = atomic_read(cnps) ? atomic_xchg(cnps, 0) : 0;
	u64 burst;

	if (!swr_cc(sdev, SWR_CC_RP_ENABLE)) {
		if (n)
			swr_qp_count_n(qp, SWR_CNT_RP_CNP_IGNORED, n);
		rp->rc = 0;
		return 0;
	}
	if (n) {
		swr_qp_count_n(qp, SWR_CNT_RP_CNP_HANDLED, n);
		swr_cc_cut(qp, rp, now);
	}
	if (!rp->rc)
		return 0;
	swr_cc_age(sdev, rp, now);
	if (!rp->rc)
		return 0;
	burst = swr_cc_ns(SWR_CC_BURST, rp->rc);
	if (rp->vt + burst < now)
		rp->vt = now - burst;
	return rp->vt > now ? rp->vt : 0;
}

void swr_cc_sent(struct swr_qp *qp, u32 bytes, u64 now)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_cc_rp *rp = &qp->wire->req.cc;
	u64 sample;
	u32 reset;

	if (!rp->win_ts || now - rp->win_ts > 4 * SWR_CC_MEAS_NS) {
		/* Idle for long: what it sent before says nothing now. */
		rp->win_ts = now;
		rp->win_bytes = 0;
	}
	rp->win_bytes += bytes;
	if (now - rp->win_ts >= SWR_CC_MEAS_NS) {
		/*
		 * Smoothed (meas <- 3/4 meas + 1/4 window): one window the
		 * QP sat out (a late turn, an application that paused) must
		 * not make the next cut start near zero.
		 */
		sample = swr_cc_kbps(rp->win_bytes, now - rp->win_ts);
		rp->meas = swr_cc_smooth(rp->meas, sample, 2);
		rp->win_ts = now;
		rp->win_bytes = 0;
	}
	if (!rp->use_ts || now - rp->use_ts >= SWR_CC_USE_NS) {
		rp->use_prev_ts = rp->use_ts;
		rp->use_prev_bytes = rp->use_bytes;
		rp->use_ts = now;
		rp->use_bytes = 0;
	}
	rp->use_bytes += bytes;
	if (!rp->rc)
		return;
	rp->vt += swr_cc_ns(bytes, rp->rc);
	rp->bytes += bytes;
	reset = swr_cc(sdev, SWR_CC_BYTE_RESET);
	if (rp->bytes >= reset) {
		rp->bytes = 0;
		if (swr_cc_used(rp, now)) {
			rp->b_stage++;
			swr_cc_increase(sdev, rp);
		}
	}
}

/*
 * A paced RC QP may have what its rate sends in cc_window_us out and not
 * acknowledged (0: no bound). A rate says how fast to send, not when to
 * stop: while the feedback does not come back (the receiver's CPU busy or
 * stalled: no ACKs, no CNPs) a QP would go on sending at its rate, and
 * with it the queue would grow without bound. The window bounds what all
 * QPs together can add to a queue to their rates' sum times the window,
 * and is not reached while round trips stay below it.
 */
u64 swr_cc_window(struct swr_qp *qp)
{
	struct swr_cc_rp *rp = &qp->wire->req.cc;
	u32 us = swr_cc(swr_qp_dev(qp), SWR_CC_WINDOW_US);

	if (!rp->rc || !us)
		return U64_MAX;
	/* kbit/s times us: bits / 1000; bytes: / 8000 */
	return div_u64(rp->rc * us, 8000);
}

/*
 * The loss window (struct swr_cc_lw). It starts at SWR_CC_LW_INIT PSNs
 * (two ACK requests' worth) and is never cut below SWR_CC_LW_MIN; at most
 * SWR_WIRE_INFLIGHT, the wire's own limit.
 */
#define SWR_CC_LW_INIT		32
#define SWR_CC_LW_MIN		8

u32 swr_cc_lw_window(struct swr_qp *qp)
{
	struct swr_cc_lw *lw = &qp->wire->req.lw;

	if (!swr_cc(swr_qp_dev(qp), SWR_CC_LOSS_WINDOW))
		return U32_MAX;
	if (!lw->cwnd) {
		lw->cwnd = SWR_CC_LW_INIT;
		lw->ssthresh = SWR_WIRE_INFLIGHT;
	}
	return lw->cwnd;
}

void swr_cc_lw_acked(struct swr_qp *qp, u32 n, u32 acked_psn)
{
	struct swr_cc_lw *lw = &qp->wire->req.lw;

	if (!lw->cwnd)
		return;
	if (lw->recovering && swr_psn_diff(acked_psn, lw->recover) >= 0)
		lw->recovering = false;
	if (lw->cwnd < lw->ssthresh) {
		lw->cwnd += n;
	} else {
		lw->acc += n;
		if (lw->acc >= lw->cwnd) {
			lw->acc -= lw->cwnd;
			lw->cwnd++;
		}
	}
	lw->cwnd = min_t(u32, lw->cwnd, SWR_WIRE_INFLIGHT);
}

void swr_cc_lw_loss(struct swr_qp *qp, bool timeout, u32 out)
{
	struct swr_cc_lw *lw = &qp->wire->req.lw;

	if (!lw->cwnd || !swr_cc(swr_qp_dev(qp), SWR_CC_LOSS_WINDOW))
		return;
	/* A NAK in an episode already cut for: the same loss. */
	if (lw->recovering && !timeout)
		return;
	if (!lw->recovering)
		lw->ssthresh = max_t(u32, min(lw->cwnd, out) / 2, SWR_CC_LW_MIN);
	lw->cwnd = timeout ? SWR_CC_LW_MIN : lw->ssthresh;
	lw->acc = 0;
	lw->recover = qp->wire->req.sent_hi;
	lw->recovering = true;
	swr_qp_count(qp, SWR_CNT_LW_CUTS);
}

/*
 * The tail-loss probe: a window's last packets lost leave the responder
 * nothing to find the gap by, and only the retransmission timer (67 ms at
 * perftest's timeout 14) would resend them. With the loss window on, a
 * requester that can send nothing more resends its last packet once its
 * last ACK request has gone unanswered for SWR_CC_LW_PTO_RTTS round
 * trips, or for one plus four mean deviations if that is longer (TCP's
 * RTO, RFC 6298: a receiver whose queue's delay varies, as one steered to
 * a busy CPU does, would otherwise draw probes for nothing); at least
 * SWR_CC_LW_PTO_MIN_NS, at most half the timeout. One packet, as TCP's
 * probe timeout (RFC 8985) resends one segment; the responder's answer
 * (an ACK, or a sequence NAK) shows whether anything was lost. It spends
 * no retry_cnt: the timer still runs (swr_wire_probe()).
 */
#define SWR_CC_LW_PTO_RTTS	3
#define SWR_CC_LW_PTO_MIN_NS	(2 * NSEC_PER_MSEC)

u64 swr_cc_lw_pto(struct swr_qp *qp, u64 tmo)
{
	const struct swr_wire_req *wr = &qp->wire->req;

	/*
	 * Not while DCQCN limits the QP: ECN keeps its queue from
	 * overflowing, and the queue's delay, which a few round trips of
	 * the smoothed mean do not cover, would make every probe spurious.
	 */
	if (!tmo || !wr->cc.srtt || !wr->lw.cwnd || wr->cc.rc ||
	    !swr_cc(swr_qp_dev(qp), SWR_CC_LOSS_WINDOW))
		return 0;
	return clamp_t(u64, max(SWR_CC_LW_PTO_RTTS * wr->cc.srtt,
				wr->cc.srtt + 4 * wr->cc.rttvar),
		       SWR_CC_LW_PTO_MIN_NS, tmo / 2);
}

void swr_cc_rtt(struct swr_qp *qp, u64 ns)
{
	struct swr_cc_rp *rp = &qp->wire->req.cc;
	atomic64_t *dev_srtt = &swr_qp_dev(qp)->cc_srtt;

	/*
	 * srtt <- 7/8 srtt + 1/8 sample, rttvar <- 3/4 rttvar + 1/4 |srtt -
	 * sample|, as TCP smooths (RFC 6298; the first sample: half of it).
	 */
	if (rp->srtt)
		rp->rttvar = swr_cc_smooth(rp->rttvar, rp->srtt > ns ?
					   rp->srtt - ns : ns - rp->srtt, 2);
	else
		rp->rttvar = ns / 2;
	rp->srtt = swr_cc_smooth(rp->srtt, ns, 3);
	atomic64_set(dev_srtt, swr_cc_smooth(atomic64_read(dev_srtt), ns, 3));
}

u32 swr_cc_lw_cwnd(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);

	if (!w || !swr_cc(swr_qp_dev(qp), SWR_CC_LOSS_WINDOW))
		return 0;
	return READ_ONCE(w->req.lw.cwnd);
}

u32 swr_cc_rtt_us(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);

	return w ? (u32)div_u64(READ_ONCE(w->req.cc.srtt), NSEC_PER_USEC) : 0;
}

u32 swr_cc_rate_mbps(struct swr_qp *qp)
{
	struct swr_wire_qp *w = READ_ONCE(qp->wire);

	return w ? (u32)(READ_ONCE(w->req.cc.rc) / 1000) : 0;
}
