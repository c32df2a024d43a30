// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive steering: a packet that arrives inside a poller's own transmit
 * is taken in on another CPU.
 *
 * Why
 * ---
 * On a veth (or loopback) a packet's receive runs in the softirq its
 * transmit raises, on the transmitting CPU: in a stream between two
 * devices of one host, the sending device's poller also paid for the
 * receiving device's ICRC check, placement and ACKs, and one CPU carried
 * both ends (Documentation/performance.rst). A NIC's receive interrupt
 * comes on the CPU its RSS picks for the flow; this does the same for
 * these packets: they go to a queue of another CPU, and a NAPI context
 * of swroce's own drains it there, scheduled by an IPI, as RPS does for
 * a netdev's backlog. The softirq then runs on that CPU at once, ahead
 * of any task there; a kthread would only get a share of a CPU an
 * application may be busy-polling.
 *
 * What is steered
 * ---------------
 * Packets received while a poller transmits on this CPU
 * (swr_steer_tx_begin() to swr_steer_tx_end(), the bottom-half section
 * of swr_xmit_batch(): the veth peer's receive runs when it ends), while
 * the receiving device's sysfs swroce/rx_steer is 1 and another CPU is
 * online; and any packet of a flow that has packets queued, wherever it
 * arrives (below). A doorbell caller's transmit is not steered: a
 * ping-pong's answer is taken at once by the caller that waits for it
 * (swr_wire_rxq_take()). Only RC and UC packets that came in on the
 * receiving device's own netdev (which the device holds, so the queued
 * skb's dev stays valid; UD reads it for the VLAN). A CPU's queue holds
 * at most SWR_STEER_QLEN packets; past that the packet is dropped
 * (rx_drop_nomem), as a NIC's full receive ring drops: taken in here it
 * would overtake its flow's queued packets.
 *
 * Pause
 * -----
 * A stream between two devices of one host would fill a queue all the
 * same: the sender's window (thousands of packets at 1 MiB messages) is
 * larger than the queue, and the CPU that takes the packets in does more
 * per packet (the ICRC check, the placement, the ACKs) than the one that
 * sends them. Each drop then costs a go-back of the whole window. The
 * sender is on this host, though, in this very transmit: a packet its
 * poller's transmit queues past SWR_STEER_XOFF marks the queue's CPU
 * (swr_steer_full), swr_steer_tx_end() hands the mark to the poller, and
 * the poller, between QP turns, sleeps until the queue is down to
 * SWR_STEER_XON (swr_steer_throttle(), counted in steer_pauses), for
 * SWR_STEER_PAUSE_MAX_US at most. A turn moves at most SWR_TURN_BYTES, far
 * less than the room left between XOFF and the drop. This is the
 * lossless Ethernet a RoCE fabric runs on (PFC's XOFF and XON), inside
 * one host; packets that come from elsewhere (a qdisc's timer, another
 * host) are not paused, and a full queue still drops them.
 *
 * Order
 * -----
 * A flow (one QP pair: the UDP source port, swr_sport()) keeps the CPU it
 * was steered to while a packet of it is queued there: it hashes to one
 * of the device's SWR_STEER_SLOTS slots, each the CPU and the count of
 * its queued packets in one atomic64 (CPU in the upper half); a slot
 * picks a CPU only when its count is 0. A packet that arrives elsewhere
 * (a qdisc's timer sends a paced flow's packets from any CPU) joins its
 * slot's queue while the count is not 0, and is taken in at once only
 * when it is. So one flow's packets are taken in the order they came.
 *
 * Kicks and lifetimes
 * -------------------
 * A producer that finds the queue empty kicks its NAPI: on this CPU
 * with napi_schedule(), on another with an IPI (csd) whose function
 * schedules it there. Bit 0 of ipi is set while a csd is out; its
 * function clears it after napi_schedule() (release: the poll that
 * follows on that CPU sees every packet queued before a producer saw the
 * bit set). A CPU that went offline cannot take the IPI: the producer
 * schedules the NAPI on its own CPU, which drains the dead CPU's queue
 * (a NAPI context may be polled on any CPU; the core moves scheduled
 * ones off a dying CPU).
 * A queued skb holds no reference: swr_net_detach() takes the device off
 * the wire (no new producer after its synchronize_net()) and then waits
 * in swr_steer_drain() until every slot's count is 0; the poll decrements
 * after the packet's processing, and touches nothing of the device after
 * that. Module exit waits for csds still out, then a grace period (a csd
 * function runs with interrupts off), before the NAPI contexts go.
 *
 * A QP moved to ERR first takes the answers that reached it
 * (swr_qp.c); one still queued here has reached the device, so the
 * modify waits for it: each CPU's queue counts the packets queued and
 * taken in, and swr_steer_sync() waits until the second reaches what the
 * first was when it looked (release in the poll, acquire in the wait: the
 * answer is on the QP's wire_rxq by then).
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/netdevice.h>
#include <linux/smp.h>
#include <linux/udp.h>
#include <linux/wait_bit.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_steer.h"

/* Packets a CPU's queue holds at most, as netdev_max_backlog's default. */
#define SWR_STEER_QLEN		1000
/* A poller that fills a queue to XOFF waits until it is down to XON. */
#define SWR_STEER_XOFF		(SWR_STEER_QLEN / 2)
#define SWR_STEER_XON		(SWR_STEER_QLEN / 4)
#define SWR_STEER_PAUSE_US	50
#define SWR_STEER_PAUSE_MAX_US	(10 * USEC_PER_MSEC)
#define SWR_STEER_CPU_SHIFT	32
#define SWR_STEER_COUNT_MASK	((1LL << SWR_STEER_CPU_SHIFT) - 1)

struct swr_steer_cpu {
	spinlock_t lock;		/* protects input */
	struct sk_buff_head input;	/* producers on any CPU */
	struct sk_buff_head process;	/* the poll's own, unlocked */
	struct napi_struct napi;
	call_single_data_t csd;
	unsigned long ipi;		/* bit 0: csd out ("Kicks" above) */
	/* Packets queued (lock) and taken in (the poll's), for sync. */
	unsigned long queued;
	unsigned long done;
};

/* What a queued skb carries in skb->cb. */
struct swr_steer_cb {
	struct swr_dev *sdev;
	atomic64_t *slot;
};

static DEFINE_PER_CPU_ALIGNED(struct swr_steer_cpu, swr_steer_cpus);
/* Set while the poller of some device transmits on this CPU. */
static DEFINE_PER_CPU(bool, swr_steer_armed);
/* In that transmit: the CPU + 1 whose queue it filled to XOFF ("Pause"). */
static DEFINE_PER_CPU(unsigned int, swr_steer_full);
/* Owns the NAPI contexts; never registered. */
static struct net_device *swr_steer_ndev;

bool swr_steer_tx_begin(struct swr_dev *sdev)
{
	struct swr_poller *p = READ_ONCE(sdev->poller);

	if (!in_task() || !p || p->task != current)
		return false;
	preempt_disable();
	__this_cpu_write(swr_steer_armed, true);
	return true;
}

void swr_steer_tx_end(struct swr_dev *sdev, bool armed)
{
	unsigned int full;

	if (!armed)
		return;
	__this_cpu_write(swr_steer_armed, false);
	full = __this_cpu_read(swr_steer_full);
	if (full) {
		__this_cpu_write(swr_steer_full, 0);
		sdev->poller->steer_full = full;
	}
	preempt_enable();
}

/* Packets queued on @sc and not yet taken in. */
static unsigned long swr_steer_qlen(const struct swr_steer_cpu *sc)
{
	return READ_ONCE(sc->queued) - READ_ONCE(sc->done);
}

void swr_steer_throttle(struct swr_poller *p)
{
	unsigned int full = p->steer_full;
	struct swr_steer_cpu *sc;
	u64 until;

	if (!full)
		return;
	p->steer_full = 0;
	sc = per_cpu_ptr(&swr_steer_cpus, full - 1);
	if (swr_steer_qlen(sc) <= SWR_STEER_XON)
		return;
	swr_count(p->sdev, SWR_CNT_STEER_PAUSES);
	until = ktime_get_ns() + SWR_STEER_PAUSE_MAX_US * NSEC_PER_USEC;
	do {
		usleep_range(SWR_STEER_PAUSE_US, 2 * SWR_STEER_PAUSE_US);
	} while (swr_steer_qlen(sc) > SWR_STEER_XON &&
		 ktime_get_ns() < until);
}

/* An online CPU other than this one for @hash, or nr_cpu_ids: none. */
static unsigned int swr_steer_pick(u32 hash)
{
	unsigned int this = smp_processor_id();
	unsigned int n = num_online_cpus();
	unsigned int cpu, i;

	if (n < 2)
		return nr_cpu_ids;
	i = hash % (n - 1);
	for_each_online_cpu(cpu)
		if (cpu != this && !i--)
			return cpu;
	return nr_cpu_ids;
}

/* Count a packet into @slot: the CPU its flow goes to ("Order"). */
static unsigned int swr_steer_slot_get(atomic64_t *slot, u32 hash)
{
	s64 old = atomic64_read(slot), new;
	unsigned int cpu;

	do {
		if (old & SWR_STEER_COUNT_MASK) {
			cpu = old >> SWR_STEER_CPU_SHIFT;
			new = old + 1;
		} else {
			cpu = swr_steer_pick(hash);
			if (cpu >= nr_cpu_ids)
				return cpu;
			new = ((s64)cpu << SWR_STEER_CPU_SHIFT) | 1;
		}
	} while (!atomic64_try_cmpxchg(slot, &old, new));
	return cpu;
}

/*
 * Count a packet into @slot only while packets of it are queued: the CPU
 * they are queued on, or nr_cpu_ids when none are (take it in here).
 */
static unsigned int swr_steer_slot_join(atomic64_t *slot)
{
	s64 old = atomic64_read(slot);

	do {
		if (!(old & SWR_STEER_COUNT_MASK))
			return nr_cpu_ids;
	} while (!atomic64_try_cmpxchg(slot, &old, old + 1));
	return old >> SWR_STEER_CPU_SHIFT;
}

/*
 * One packet out of @slot; the last one of its device may let
 * swr_steer_drain() return, so the device is not touched after this.
 */
static void swr_steer_slot_put(atomic64_t *slot, void *drain_key)
{
	if (!(atomic64_dec_return(slot) & SWR_STEER_COUNT_MASK))
		wake_up_var(drain_key);
}

/* csd function, on the queue's CPU, interrupts off. */
static void swr_steer_ipi(void *info)
{
	struct swr_steer_cpu *sc = info;

	napi_schedule(&sc->napi);
	clear_bit_unlock(0, &sc->ipi);
}

static void swr_steer_kick(struct swr_steer_cpu *sc, unsigned int cpu)
{
	if (cpu == smp_processor_id()) {
		napi_schedule(&sc->napi);
		return;
	}
	if (test_and_set_bit(0, &sc->ipi))
		return;
	if (smp_call_function_single_async(cpu, &sc->csd)) {
		/* Offline: drain it here ("Kicks" above). */
		clear_bit(0, &sc->ipi);
		napi_schedule(&sc->napi);
	}
}

bool swr_steer_rx(struct swr_dev *sdev, struct sk_buff *skb)
{
	u32 hash = ntohs(udp_hdr(skb)->source);
	struct swr_steer_cb *cb = (void *)skb->cb;
	struct swr_steer_cpu *sc;
	atomic64_t *slot;
	unsigned int cpu;
	bool armed, kick;
	u8 op;

	BUILD_BUG_ON(sizeof(*cb) > sizeof(skb->cb));
	if (skb->dev != sdev->ndev)
		return false;
	slot = &sdev->steer_slot[hash_32(hash, ilog2(SWR_STEER_SLOTS))];
	armed = __this_cpu_read(swr_steer_armed) && READ_ONCE(sdev->rx_steer);
	if (!armed && !(atomic64_read(slot) & SWR_STEER_COUNT_MASK))
		return false;
	if (skb_copy_bits(skb, sizeof(struct udphdr) +
			  offsetof(struct swr_bth, opcode), &op, 1) ||
	    (op & SWR_OP_TRANSPORT_MASK) == SWR_OP_UD)
		return false;
	cpu = armed ? swr_steer_slot_get(slot, hash) :
		      swr_steer_slot_join(slot);
	if (cpu >= nr_cpu_ids)
		return false;
	sc = per_cpu_ptr(&swr_steer_cpus, cpu);
	spin_lock(&sc->lock);
	if (skb_queue_len(&sc->input) >= SWR_STEER_QLEN) {
		spin_unlock(&sc->lock);
		swr_steer_slot_put(slot, sdev->steer_slot);
		swr_rx_drop(sdev, SWR_CNT_RX_DROP_NOMEM, 0);
		kfree_skb(skb);
		return true;
	}
	/* The route of the input path is not held beyond this softirq. */
	skb_dst_drop(skb);
	cb->sdev = sdev;
	cb->slot = slot;
	kick = skb_queue_empty(&sc->input);
	__skb_queue_tail(&sc->input, skb);
	WRITE_ONCE(sc->queued, sc->queued + 1);
	/* The poller transmitting here pauses ("Pause" above). */
	if (armed && swr_steer_qlen(sc) >= SWR_STEER_XOFF)
		__this_cpu_write(swr_steer_full, cpu + 1);
	spin_unlock(&sc->lock);
	swr_count(sdev, SWR_CNT_RX_STEERED);
	if (kick)
		swr_steer_kick(sc, cpu);
	return true;
}

static void swr_steer_deliver(struct sk_buff *skb)
{
	const struct swr_steer_cb *cb = (const void *)skb->cb;
	struct swr_dev *sdev = cb->sdev;
	atomic64_t *slot = cb->slot;

	swr_rx_skb(sdev, skb);
	swr_steer_slot_put(slot, sdev->steer_slot);
}

static int swr_steer_poll(struct napi_struct *napi, int budget)
{
	struct swr_steer_cpu *sc = container_of(napi, struct swr_steer_cpu,
						napi);
	struct sk_buff *skb;
	int done = 0;

	rcu_read_lock();
	while (done < budget) {
		skb = __skb_dequeue(&sc->process);
		if (!skb) {
			spin_lock(&sc->lock);
			skb_queue_splice_tail_init(&sc->input, &sc->process);
			spin_unlock(&sc->lock);
			if (skb_queue_empty(&sc->process))
				break;
			continue;
		}
		swr_steer_deliver(skb);
		/* Pairs with swr_steer_sync()'s acquire. */
		smp_store_release(&sc->done, sc->done + 1);
		done++;
	}
	rcu_read_unlock();
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

/* Whether a packet of @sdev is queued. */
static bool swr_steer_busy(struct swr_dev *sdev)
{
	unsigned int i;

	for (i = 0; i < SWR_STEER_SLOTS; i++)
		if (atomic64_read(&sdev->steer_slot[i]) & SWR_STEER_COUNT_MASK)
			return true;
	return false;
}

void swr_steer_sync(struct swr_dev *sdev)
{
	unsigned int cpu;

	if (!swr_steer_busy(sdev))
		return;
	for_each_possible_cpu(cpu) {
		struct swr_steer_cpu *sc = per_cpu_ptr(&swr_steer_cpus, cpu);
		unsigned long want = READ_ONCE(sc->queued);

		/* Pairs with the poll's release: its packets are processed. */
		while ((long)(smp_load_acquire(&sc->done) - want) < 0)
			usleep_range(10, 20);
	}
}

void swr_steer_drain(struct swr_dev *sdev)
{
	wait_var_event(sdev->steer_slot, !swr_steer_busy(sdev));
}

int swr_steer_init(void)
{
	unsigned int cpu;

	swr_steer_ndev = swr_alloc_dummy_netdev();
	if (!swr_steer_ndev)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct swr_steer_cpu *sc = per_cpu_ptr(&swr_steer_cpus, cpu);

		spin_lock_init(&sc->lock);
		__skb_queue_head_init(&sc->input);
		__skb_queue_head_init(&sc->process);
		INIT_CSD(&sc->csd, swr_steer_ipi, sc);
		netif_napi_add(swr_steer_ndev, &sc->napi, swr_steer_poll);
		napi_enable(&sc->napi);
	}
	return 0;
}

/* After every device: nothing is queued, only csds may still be out. */
void swr_steer_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct swr_steer_cpu *sc = per_cpu_ptr(&swr_steer_cpus, cpu);

		while (test_bit(0, &sc->ipi))
			usleep_range(50, 100);
	}
	/* A csd function that cleared its bit has returned after this. */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct swr_steer_cpu *sc = per_cpu_ptr(&swr_steer_cpus, cpu);

		napi_disable(&sc->napi);
		netif_napi_del(&sc->napi);
		WARN_ON_ONCE(!skb_queue_empty(&sc->input) ||
			     !skb_queue_empty(&sc->process));
	}
	swr_free_dummy_netdev(swr_steer_ndev);
}
