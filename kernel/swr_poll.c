// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-device poller: one kthread that runs the requester of every QP.
 *
 * It makes passes over its QP list, giving each QP a budget of WQEs per
 * pass so that one busy QP cannot starve the others. While passes find
 * work, and for idle_us after the last one that did (sysfs
 * swroce/poll_idle_us), it keeps polling; then it goes to sleep.
 *
 * The doorbell protocol (io_uring SQPOLL's NEED_WAKEUP)
 * -----------------------------------------------------
 * Before sleeping the poller
 *   1. sets need_wakeup, and SWROCE_SQ_NEED_WAKEUP in every user SQ ring;
 *   2. sets its task state (set_current_state(): a full barrier);
 *   3. asks swr_req_has_work() of every QP, which reads the ring prods;
 *   4. sleeps only if none has work.
 * A producer
 *   a. publishes its WQEs (prod, release store);
 *   b. issues a full barrier (user space: a fence; the kernel: smp_mb()
 *      in swr_poll_kick());
 *   c. reads the flag (user space) or need_wakeup (kernel), and wakes the
 *      poller if it is set (user space: the post_send doorbell).
 * 1-2-3 against a-b-c: either step 3 sees the new prod, or step c sees the
 * flag. A wakeup that arrives between 2 and 4 puts the task back to
 * running, so schedule() returns at once. After waking the poller clears
 * need_wakeup and the flags, and keeps polling for idle_us again: a
 * producer that saw the flag late only makes one needless doorbell call.
 *
 * A QP created while the poller sleeps gets the flag when it joins the
 * list: flags and the list change under the poller's lock, and
 * need_wakeup is set before the poller takes it to set the flags.
 *
 * A doorbell that wakes the poller clears its own QP's flag, so that the
 * QP's next posts do not ring while the woken poller has yet to clear the
 * flags (step g below). It may do so after the poller, woken meanwhile by
 * another context, set the flags again for its next sleep (step 1): the
 * poller would then sleep with that flag clear, and the QP's next post
 * would ring nobody. So
 *   g. the doorbell clears the flag and sets flag_cleared, both under the
 *      poller's lock, then wakes the poller (wake_up_process(): a full
 *      barrier before it reads the task state);
 *   the poller, in step 3, does not sleep if flag_cleared is set (step 1
 *      resets it under the same lock).
 * g against 2-3 is again a store and a load on each side with full
 * barriers between: either the wakeup sees the poller's new task state,
 * or step 3 sees flag_cleared and the poller goes round again, setting
 * the flags anew.
 *
 * Turns, and QPs busy elsewhere
 * -----------------------------
 * A QP's requester runs in turns (swr_req_process()) under its sq_lock, a
 * mutex, in the poller and in doorbell callers. A turn executes at most
 * SWR_POLL_BUDGET WQEs and moves at most SWR_TURN_BYTES of data; a larger
 * message keeps its progress in req.xfer and goes on in the next turn, in
 * whichever context takes the QP next ("Large messages" in swr_qp.h). So a
 * 2 GiB RDMA WRITE is 32768 turns, and every other QP has its turn in
 * between. No turn ever waits for another's: swr_req_process() only
 * trylocks (-EBUSY), so that a doorbell caller working on its own QP
 * cannot hold up the poller and every other QP (kernel QPs included).
 * (The one waiter, swr_wire_rxq_work(), takes no turn: it completes one
 * QP's answered WQEs while the poller sleeps, and holds up nobody else.)
 * Skipping a busy QP must not lose its work. The poller
 *   5. counts a QP it finds busy as work done: it stays awake and tries
 *      the QP again on its next pass, and it can only go to sleep through
 *      steps 1-4, whose step 3 rereads every QP. After a pass that found
 *      one busy it naps SWR_POLL_HELD_US (awake in all but name: no flag
 *      is set, it passes again after the nap), and so does a poller just
 *      woken, whose pass found the QP busy on a contended CPU. The owner
 *      may be a doorbell caller at a low priority, preempted in its turn:
 *      a poller spinning on its CPU would leave it almost no time to
 *      finish (an ib_write_bw at nice 19 held its QP 270 ms so, and the
 *      QP's ACK timer expired with nothing lost). Or the owner is a
 *      doorbell caller whose own turn woke the poller (an ACK it received
 *      in the softirq its transmit ran), which then preempted it: a woken
 *      poller that went round its sleep loop without napping found the
 *      QP busy in every pass until the scheduler ended its time slice,
 *      10-20 ms, on every message (fi_pingpong across two devices).
 * A doorbell caller
 *   d. takes a turn of its QP if it gets sq_lock (steps a-b, the user's
 *      store of prod and fence, came before);
 *   e. issues a full barrier, after its turn or its failed trylock;
 *   f. reads need_wakeup and, if it is set, wakes the poller when the QP
 *      was busy or its turn left work (and when the back-off is over, see
 *      the latency policy).
 * d-e-f is a producer's a-b-c, so the argument above holds: whatever
 * work is left - WQEs in the ring the caller could not take, or what its
 * own turn left in req (wqe_valid, xfer: stored before its unlock, which
 * step e orders before the read of f) - either step 3 sees it through
 * swr_req_has_work(), or f sees need_wakeup and wakes the poller, which
 * then takes the QP or skips it and comes back (5). A poller that is
 * awake (f sees need_wakeup clear) polls the QP again on its next pass.
 * The turn's owner that made the trylock fail needs no part in this: it
 * may be the poller, another doorbell caller, or modify_qp.
 *
 * The engine's timers (RNR and retransmission waits, a paced QP's next
 * packet) are deadlines the poller sleeps until (swr_poll_deadline()).
 * One reported while it sleeps, by a doorbell's turn or an answer's work
 * item, sets the poller's hrtimer instead of waking it: a WRITE that waits
 * for its ACK is no work, and the ACK normally comes first (the doorbell
 * caller or the work item takes it). Waking the poller to rearm its sleep
 * had cost a wake-up per WQE of a ping-pong across a link, on CPUs where
 * the applications spin (the latency policy below). The timer only ever
 * moves sooner; one that fires after the ACK costs one needless pass.
 * One due within idle_us is work, as a post is: the poller waits for it
 * polling, whether or not its CPU is contended (swr_poll_due_soon()). A
 * QP that DCQCN paces has a packet due every few microseconds; sleeping
 * for each, on a busy host, let the wake-ups come late by more than the
 * pacer lets a QP catch up, and the QPs sent at half their rates
 * (Documentation/congestion.rst, "A paced QP is work").
 *
 * Sharing the CPUs (the latency policy)
 * -------------------------------------
 * A spinning poller is only cheap while it has a CPU to itself. When the
 * applications busy-poll too (a ping-pong latency test: both ends spin on
 * their completion queues) and there are no more CPUs than spinners, the
 * poller and an application take turns on one CPU by scheduler time
 * slices, and each WQE waits for the poller's next slice: milliseconds.
 * So the poller does not spin on a contended CPU:
 *   - idle (no work) while another task is runnable on its CPU
 *     (!single_task_running()) for half of idle_us, it goes to sleep
 *     at once instead of spinning out idle_us;
 *   - woken, it makes one pass and, if its CPU is contended, goes back to
 *     sleep with the flags still set;
 * and in both cases it backs off: for SWR_POLL_BACKOFF_US a doorbell does
 * not wake it. A doorbell is the post_send system call the application
 * makes anyway, so it does the work itself: swr_poll_doorbell() runs the
 * QP's requester in the caller's context (as rdma_rxe does in its
 * post_send), takes the answers its own transmit drew in (a veth peer's,
 * see swr_wire.c's "Answers while the poller sleeps"), and wakes the
 * poller only when work is left over or the back-off has passed; then
 * it also clears its QP's flag (step g), as the poller takes over. Work
 * left over always wakes it, so nothing waits for a sleeping poller. An
 * uncontended CPU keeps the old behaviour: the poller polls, the flags
 * stay clear, and posting makes no system call.
 *
 * One exception: a woken poller stays awake on a contended CPU if another
 * CPU sat idle for at least half the time since it went to sleep
 * (swr_poll_idle_elsewhere()), and an awake one idle on a contended CPU
 * does not sleep while another CPU stays idle: the scheduler's idle
 * balancing moves it, or the task it shares the CPU with, there within a
 * few balancing intervals (a poller still contended after
 * SWR_POLL_MOVE_WAIT_US was not moved, and sleeps as above for a while:
 * swr_poll_may_stay()). The scheduler places a wakee next to its waker, so
 * without the exception a
 * streaming client spinning on one CPU woke the poller onto that CPU at
 * the end of every back-off, the poller found it contended and slept
 * again, and the other CPU stayed idle for the whole run: a doorbell per
 * WQE (ib_write_bw -q 4, Documentation/performance.rst). Where every CPU
 * is busy, as in a ping-pong whose two ends spin, nothing changes.
 *
 * Deferred doorbells
 * ------------------
 * Backed off, the poller makes every post a system call: where both
 * applications spin (ib_send_bw's client and server), a doorbell per WQE.
 * So a back-off's sleep is bounded (SWR_POLL_LAZY_US) and its flags add
 * SWROCE_SQ_LAZY: user space may then put its doorbell off until it next
 * polls or arms a CQ (the provider does so for a post that asks for no
 * completion or whose send CQ has signaled WQEs outstanding, so a
 * ping-pong still rings at once), and one
 * call then hands over the whole batch: the doorbell takes up to
 * SWR_POLL_DOORBELL_TURNS turns while each uses its whole budget. A post
 * put off and never followed by a poll is found when the bounded sleep
 * ends. That wake-up (the bound's, not a doorbell's), if it finds
 * nothing, clears lazy: the next sleep is
 * unbounded and its flags say NEED_WAKEUP alone, so a device whose
 * applications went quiet is not woken every millisecond. A post that saw
 * LAZY before the flags lost it is seen by step 3 of that next sleep, as
 * any post is. The poller's own wake-ups count in poller_wakeups.
 *
 * Bulk data is the other case of a poller that is not prompt: a pass that
 * leaves a large WQE unfinished (req.xfer) spends SWR_TURN_BYTES on it in
 * every pass that follows, and every other QP's WQE waits for that turn,
 * and for the poller's share of a CPU. So while its passes move bulk data
 * the poller sets the flags but not need_wakeup: posts ring, and the
 * doorbell runs the poster's own turn at once, in its context, and wakes
 * nobody (the poller is awake). The flags clear after the first pass that
 * leaves no large WQE unfinished. Flags set while the poller is awake only
 * ever cost system calls: the protocol above relies on need_wakeup.
 */
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>
#include <linux/tick.h>

#include "swr.h"
#include "swr_net.h"
#include "swr_qp.h"
#include "swr_steer.h"

/* WQEs one QP may complete per pass before the next QP's turn. */
#define SWR_POLL_BUDGET		16

/* The default of sysfs swroce/poll_idle_us. */
#define SWR_POLL_IDLE_US	1000

/*
 * Idle on a contended CPU for idle_us / this: sleep (the latency policy).
 * 500 us at the default idle_us; a longer idle_us, which asks for a poller
 * that stays awake, rides out longer spells of another task's running.
 */
#define SWR_POLL_CONTENDED_DIV	2

/* After a sleep forced by contention, doorbells do not wake the poller. */
#define SWR_POLL_BACKOFF_US	1000

/* A pass found a QP busy in another context: the CPU is its for this. */
#define SWR_POLL_HELD_US	50

/* The longest span swr_poll_idle_elsewhere() judges another CPU's idling by. */
#define SWR_POLL_IDLE_SPAN_US	(100 * USEC_PER_MSEC)

/*
 * A poller that stayed awake on a contended CPU for the scheduler to move
 * it, and is still there after this, was not moved: it does not stay again
 * for SWR_POLL_NO_STAY_US.
 */
#define SWR_POLL_MOVE_WAIT_US	(50 * USEC_PER_MSEC)
#define SWR_POLL_NO_STAY_US	USEC_PER_SEC

/*
 * A back-off's sleep lasts this long at most, so that user space may put
 * off its doorbells (SWROCE_SQ_LAZY, "Deferred doorbells" above).
 */
#define SWR_POLL_LAZY_US	1000

/* Doorbell turns one call takes at most while each uses its whole budget. */
#define SWR_POLL_DOORBELL_TURNS	8

/*
 * Set or clear SWROCE_SQ_NEED_WAKEUP (and SWROCE_SQ_LAZY, on a back-off's
 * sleep) in a user QP's ring (if it has one).
 */
static void swr_poll_flag_qp(struct swr_poller *p, struct swr_qp *qp,
			     bool sleeping)
{
	u32 flags = SWROCE_SQ_NEED_WAKEUP;

	if (READ_ONCE(p->lazy))
		flags |= SWROCE_SQ_LAZY;
	if (qp->is_user && qp->sq.ring)
		WRITE_ONCE(qp->sq.ring->flags.idx, sleeping ? flags : 0);
}

static void swr_poll_flag_all(struct swr_poller *p, bool on)
{
	struct swr_qp *qp;

	spin_lock_bh(&p->lock);
	p->flags_on = on;
	if (on)
		p->flag_cleared = false;
	list_for_each_entry(qp, &p->qps, poll_node)
		swr_poll_flag_qp(p, qp, on);
	spin_unlock_bh(&p->lock);
}

static struct swr_qp *swr_poll_next_of(struct swr_poller *p,
				       struct swr_qp *qp)
{
	if (list_is_last(&qp->poll_node, &p->qps))
		return NULL;
	return list_next_entry(qp, poll_node);
}

/*
 * One pass over the QPs. The lock is dropped around each QP's turn: cur
 * names the QP being worked on (swr_poll_del_qp() waits for it) and next
 * the one after it (swr_poll_del_qp() moves it on when it removes it).
 * Return: the work done (swr_req_process()), a QP skipped counting as one;
 * *@bulk: a large WQE was left unfinished, to go on in the next pass;
 * *@held: a QP was busy in another context (step 5).
 */
static int swr_poll_pass(struct swr_poller *p, bool *bulk, bool *held)
{
	struct swr_qp *qp;
	int done = 0, n;

	*bulk = false;
	*held = false;
	WRITE_ONCE(p->next_deadline, 0);
	spin_lock_bh(&p->lock);
	qp = list_first_entry_or_null(&p->qps, struct swr_qp, poll_node);
	while (qp) {
		p->cur = qp;
		p->next = swr_poll_next_of(p, qp);
		spin_unlock_bh(&p->lock);

		n = swr_req_process(qp, SWR_POLL_BUDGET);
		/* Held by another context: come back on the next pass. */
		if (n < 0)
			*held = true;
		if (n < 0 || !swr_qp_check_drained(qp, true))
			n = 1;
		done += n;
		/* A hint for the latency policy; the poller's own turn. */
		if (READ_ONCE(qp->req.xfer.dst))
			*bulk = true;
		/* Its transmit filled a steering queue: wait for it to drain. */
		swr_steer_throttle(p);
		cond_resched();

		spin_lock_bh(&p->lock);
		p->cur = NULL;
		/*
		 * A remover queues itself before it takes the lock to test
		 * cur, so under the lock its entry is visible here.
		 */
		if (waitqueue_active(&p->del_wq))
			wake_up_all(&p->del_wq);
		qp = p->next;
	}
	p->next = NULL;
	spin_unlock_bh(&p->lock);
	return done;
}

/*
 * Step 3 of the protocol: does any QP have work at @now? Also the earliest
 * deadline to sleep until (0: none).
 */
static bool swr_poll_any_work(struct swr_poller *p, u64 now, u64 *deadline)
{
	struct swr_qp *qp;
	bool work = false;
	u64 when;

	*deadline = READ_ONCE(p->next_deadline);
	spin_lock_bh(&p->lock);
	list_for_each_entry(qp, &p->qps, poll_node) {
		if (swr_req_has_work(qp, now)) {
			work = true;
			break;
		}
		when = READ_ONCE(qp->req.wait_until);
		if (when && (!*deadline || when < *deadline))
			*deadline = when;
		when = swr_wire_deadline(qp);
		if (when && (!*deadline || when < *deadline))
			*deadline = when;
	}
	spin_unlock_bh(&p->lock);
	return work;
}

/*
 * Sleep until woken (steps 1-4 of the protocol). Return with the flags
 * still set: the caller clears them (swr_poll_awake()) once it decides to
 * poll. Returns whether a back-off's bound ended the sleep (not a wake-up
 * or an engine deadline).
 */
static bool swr_poll_sleep(struct swr_poller *p)
{
	struct swr_dev *sdev = p->sdev;
	bool bounded = false;
	u64 deadline;
	ktime_t expires;

	WRITE_ONCE(p->need_wakeup, true);
	swr_poll_flag_all(p, true);
	/* A full barrier between the flags and the rereading of prods. */
	set_current_state(TASK_INTERRUPTIBLE);

	if (kthread_should_stop() || READ_ONCE(p->flag_cleared) ||
	    swr_poll_any_work(p, ktime_get_ns(), &deadline)) {
		__set_current_state(TASK_RUNNING);
		return false;
	}
	swr_count(sdev, SWR_CNT_POLLER_SLEEPS);
	/* A back-off's sleep: deferred doorbells are looked for in time. */
	if (p->lazy) {
		u64 lazy = ktime_get_ns() + SWR_POLL_LAZY_US * NSEC_PER_USEC;

		if (!deadline || lazy < deadline) {
			deadline = lazy;
			bounded = true;
		}
	}
	if (deadline) {
		expires = ns_to_ktime(deadline);
		if (schedule_hrtimeout(&expires, HRTIMER_MODE_ABS))
			bounded = false;
	} else {
		schedule();
	}
	swr_count(sdev, SWR_CNT_POLLER_WAKEUPS);
	return bounded;
}

/* sysfs swroce/poll_idle_us, in nanoseconds. */
static u64 swr_poll_idle_ns(struct swr_poller *p)
{
	return (u64)READ_ONCE(p->idle_us) * NSEC_PER_USEC;
}

/*
 * A timer of the engine's, such as a paced QP's next packet, expires
 * within idle_us: work the poller waits for polling, as for a post.
 */
static bool swr_poll_due_soon(struct swr_poller *p, u64 now)
{
	u64 when = READ_ONCE(p->next_deadline);

	return when && (when <= now || when - now < swr_poll_idle_ns(p));
}

/* Back to polling: posting needs no doorbell until the next sleep. */
static void swr_poll_awake(struct swr_poller *p)
{
	WRITE_ONCE(p->lazy, false);
	WRITE_ONCE(p->need_wakeup, false);
	swr_poll_flag_all(p, false);
}

/*
 * Sleeping because of contention: doorbells do the work for a while, and
 * may be put off (@lazy) while the sleep is bounded.
 */
static void swr_poll_back_off(struct swr_poller *p, u64 now, bool lazy)
{
	WRITE_ONCE(p->backoff_until, now + SWR_POLL_BACKOFF_US * NSEC_PER_USEC);
	WRITE_ONCE(p->lazy, lazy);
}

/*
 * Has another CPU this thread may run on been idle for at least half the
 * time since the last call? get_cpu_idle_time_us() counts an idle period in
 * progress; its value can step back (iowait accounting), read as no idle
 * time. False on the first call, after more than SWR_POLL_IDLE_SPAN_US (old
 * samples say little), and without NO_HZ idle accounting.
 */
static bool swr_poll_idle_elsewhere(struct swr_poller *p, u64 now)
{
	u64 span_us = (now - p->idle_sampled) / NSEC_PER_USEC;
	bool valid = p->idle_sampled && span_us &&
		     span_us <= SWR_POLL_IDLE_SPAN_US;
	int self = raw_smp_processor_id();
	bool idle = false;
	unsigned int cpu;
	s64 delta;
	u64 t;

	for_each_cpu_and(cpu, cpu_online_mask, current->cpus_ptr) {
		t = get_cpu_idle_time_us(cpu, NULL);
		if (t == (u64)-1) {
			p->idle_sampled = 0;
			return false;
		}
		delta = t - p->cpu_idle_us[cpu];
		if (valid && cpu != self && delta > 0 && 2 * delta >= span_us)
			idle = true;
		p->cpu_idle_us[cpu] = t;
	}
	p->idle_sampled = now;
	return idle;
}

/*
 * Stay awake on a contended CPU, for the scheduler to move the poller or
 * the task it shares the CPU with? While another CPU sits idle, and for
 * SWR_POLL_MOVE_WAIT_US at most: the idle CPU may be one the balancer does
 * not move tasks to (another root domain of cpusets), and a poller left
 * spinning next to an application would take half its CPU.
 */
static bool swr_poll_may_stay(struct swr_poller *p, u64 now)
{
	if (now < p->no_stay_until || !swr_poll_idle_elsewhere(p, now))
		return false;
	if (!p->stay_since) {
		p->stay_since = now;
	} else if (now - p->stay_since > SWR_POLL_MOVE_WAIT_US * NSEC_PER_USEC) {
		p->stay_since = 0;
		p->no_stay_until = now + SWR_POLL_NO_STAY_US * NSEC_PER_USEC;
		return false;
	}
	return true;
}

/* Step 5: a QP was busy in another context, whose owner needs the CPU. */
static void swr_poll_nap(void)
{
	usleep_range(SWR_POLL_HELD_US, 2 * SWR_POLL_HELD_US);
}

static int swr_poll_thread(void *arg)
{
	struct swr_poller *p = arg;
	int n;
	u64 idle_since = ktime_get_ns();
	u64 contended_since = 0;
	bool bulk, held, alone, bounded;
	u64 now;

	while (!kthread_should_stop()) {
		n = swr_poll_pass(p, &bulk, &held);
		/* Flags on while moving bulk data (the latency policy). */
		if (bulk != p->flags_on)
			swr_poll_flag_all(p, bulk);
		/* Step 5: the busy QP's owner gets the CPU for a while. */
		if (held)
			swr_poll_nap();
		now = ktime_get_ns();
		alone = single_task_running();
		/* Moved, if it stayed for that (swr_poll_may_stay()). */
		if (alone)
			p->stay_since = 0;
		/* Work done, or a timer due soon: poll on, not idle. */
		if (n || swr_poll_due_soon(p, now)) {
			idle_since = now;
			contended_since = 0;
			cond_resched();
			continue;
		}
		if (alone) {
			contended_since = 0;
		} else if (!contended_since) {
			contended_since = now;
		} else if (now - contended_since >=
			   swr_poll_idle_ns(p) / SWR_POLL_CONTENDED_DIV) {
			/* Another CPU to move to: wait for the balancer. */
			if (swr_poll_may_stay(p, now)) {
				contended_since = now;
			} else {
				swr_poll_back_off(p, now, true);
				goto sleep;
			}
		}
		if (now - idle_since < swr_poll_idle_ns(p)) {
			cond_resched();
			continue;
		}
sleep:
		/*
		 * Woken, make one pass with the flags still set (a doorbell
		 * meanwhile does its own work); stay awake only on a CPU of
		 * our own, or where the scheduler can give us one.
		 */
		swr_poll_idle_elsewhere(p, ktime_get_ns());
		p->stay_since = 0;
		for (;;) {
			bounded = swr_poll_sleep(p);
			if (kthread_should_stop())
				break;
			n = swr_poll_pass(p, &bulk, &held);
			now = ktime_get_ns();
			if (single_task_running() || swr_poll_due_soon(p, now))
				break;
			if (swr_poll_may_stay(p, now)) {
				swr_count(p->sdev, SWR_CNT_POLLER_STAYS);
				break;
			}
			/*
			 * The bound ran out and nothing was put off: the
			 * applications went quiet, sleep for good next time.
			 */
			swr_poll_back_off(p, now, !bounded || n > 0);
			/*
			 * Step 5: the QP's owner may be the task this poller
			 * preempted, and swr_poll_sleep() does not sleep while
			 * the QP it holds has work.
			 */
			if (held)
				swr_poll_nap();
		}
		swr_poll_awake(p);
		idle_since = ktime_get_ns();
		contended_since = 0;
	}
	return 0;
}

static enum hrtimer_restart swr_poll_timer_fn(struct hrtimer *t)
{
	struct swr_poller *p = container_of(t, struct swr_poller, timer);

	wake_up_process(p->task);
	return HRTIMER_NORESTART;
}

/* Wake the poller at @when, unless the timer is set for sooner. */
static void swr_poll_timer_arm(struct swr_poller *p, u64 when)
{
	spin_lock_bh(&p->timer_lock);
	if (!hrtimer_is_queued(&p->timer) ||
	    when < hrtimer_get_expires_ns(&p->timer))
		hrtimer_start(&p->timer, ns_to_ktime(when), HRTIMER_MODE_ABS);
	spin_unlock_bh(&p->timer_lock);
}

int swr_poll_start(struct swr_dev *sdev)
{
	struct swr_poller *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->sdev = sdev;
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->qps);
	init_waitqueue_head(&p->del_wq);
	p->idle_us = SWR_POLL_IDLE_US;
	p->cpu_idle_us = kcalloc(nr_cpu_ids, sizeof(*p->cpu_idle_us),
				 GFP_KERNEL);
	if (!p->cpu_idle_us) {
		kfree(p);
		return -ENOMEM;
	}
	spin_lock_init(&p->timer_lock);
	hrtimer_init(&p->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	p->timer.function = swr_poll_timer_fn;

	p->task = kthread_create(swr_poll_thread, p, "swroce/%s",
				 netdev_name(sdev->ndev));
	if (IS_ERR(p->task)) {
		int err = PTR_ERR(p->task);

		kfree(p->cpu_idle_us);
		kfree(p);
		return err;
	}
	sdev->poller = p;
	wake_up_process(p->task);
	return 0;
}

/* Once every QP is gone: the RDMA core destroys them before dealloc. */
void swr_poll_stop(struct swr_dev *sdev)
{
	struct swr_poller *p = sdev->poller;

	if (!p)
		return;
	/* No QP is left to arm it again. */
	hrtimer_cancel(&p->timer);
	kthread_stop(p->task);
	sdev->poller = NULL;
	kfree(p->cpu_idle_us);
	kfree(p);
}

void swr_poll_add_qp(struct swr_qp *qp)
{
	struct swr_poller *p = swr_qp_dev(qp)->poller;

	spin_lock_bh(&p->lock);
	list_add_tail(&qp->poll_node, &p->qps);
	/* See "A QP created while the poller sleeps" above. */
	swr_poll_flag_qp(p, qp, p->flags_on);
	spin_unlock_bh(&p->lock);
}

static bool swr_poll_busy_with(struct swr_poller *p, struct swr_qp *qp)
{
	bool busy;

	spin_lock_bh(&p->lock);
	busy = p->cur == qp;
	spin_unlock_bh(&p->lock);
	return busy;
}

void swr_poll_del_qp(struct swr_qp *qp)
{
	struct swr_poller *p = swr_qp_dev(qp)->poller;

	spin_lock_bh(&p->lock);
	if (p->next == qp)
		p->next = swr_poll_next_of(p, qp);
	list_del_init(&qp->poll_node);
	spin_unlock_bh(&p->lock);

	/* Off the list: the poller may only finish the turn it is in. */
	wait_event(p->del_wq, !swr_poll_busy_with(p, qp));
}

bool swr_poll_asleep(struct swr_dev *sdev)
{
	/* Step b of the protocol: the work is published before this. */
	smp_mb();
	return READ_ONCE(sdev->poller->need_wakeup);
}

void swr_poll_kick(struct swr_dev *sdev)
{
	if (swr_poll_asleep(sdev))
		wake_up_process(sdev->poller->task);
}

/*
 * A user QP's doorbell (post_send with no WRs, in the caller's context):
 * run a turn of its requester here, then wake the poller if work is left,
 * if the QP was busy in another context (steps d-f of the protocol), or if
 * the poller sleeps for want of work rather than of a CPU (see the latency
 * policy).
 */
void swr_poll_doorbell(struct swr_qp *qp)
{
	struct swr_dev *sdev = swr_qp_dev(qp);
	struct swr_poller *p = sdev->poller;
	int n, turns = 0;
	bool busy;
	u64 now;

	WRITE_ONCE(qp->db_task, current);
	/* A deferred doorbell may find a batch: take it, within bounds. */
	do {
		n = swr_req_process(qp, SWR_POLL_BUDGET);
	} while (n >= SWR_POLL_BUDGET && ++turns < SWR_POLL_DOORBELL_TURNS);
	busy = n < 0 || !swr_qp_check_drained(qp, true);
	/*
	 * Answers our own softirqs left us on wire_rxq (swr_wire_rxq_kick())
	 * ran on this CPU, in this task, before this store.
	 */
	WRITE_ONCE(qp->db_task, NULL);
	/* Step e: our turn ended before need_wakeup is read. */
	smp_mb();
	/* Awake, the poller takes those answers in its next pass. */
	if (!READ_ONCE(p->need_wakeup))
		return;
	swr_wire_rxq_take(qp);
	now = ktime_get_ns();
	if (!busy && !swr_req_has_work(qp, now) &&
	    now < READ_ONCE(p->backoff_until))
		return;
	/*
	 * Step g: the poller takes over, this QP's next posts need not ring
	 * until it sets the flags again. flag_cleared keeps it from sleeping
	 * on flags it set before this clear.
	 */
	spin_lock_bh(&p->lock);
	swr_poll_flag_qp(p, qp, false);
	WRITE_ONCE(p->flag_cleared, true);
	spin_unlock_bh(&p->lock);
	wake_up_process(p->task);
}

void swr_poll_deadline(struct swr_dev *sdev, u64 when)
{
	struct swr_poller *p = sdev->poller;
	u64 old = READ_ONCE(p->next_deadline);
	u64 prev;

	while (!old || when < old) {
		prev = cmpxchg64(&p->next_deadline, old, when);
		if (prev == old)
			break;
		old = prev;
	}
	if (current == p->task)
		return;
	/*
	 * An awake poller finds the deadline in the QP when it next looks
	 * (steps 1-3 come before any sleep); a sleeping one is woken by its
	 * timer at the deadline, not now. The barrier is step b: the
	 * caller's store of the deadline into the QP before the read of
	 * need_wakeup.
	 */
	smp_mb();
	if (READ_ONCE(p->need_wakeup))
		swr_poll_timer_arm(p, when);
}
