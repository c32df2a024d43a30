/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receive steering (swr_steer.c): a packet that arrives inside a poller's
 * own transmit is taken in on another CPU.
 */
#ifndef SWR_STEER_H
#define SWR_STEER_H

#include <linux/skbuff.h>

#include "swr.h"

struct swr_poller;

int swr_steer_init(void);
void swr_steer_exit(void);

/*
 * Around the bottom-half section of a batch transmit (swr_xmit_batch()):
 * begin returns whether packets the transmit brings in on this CPU may be
 * steered (the caller is @sdev's poller), and pins the task to the CPU
 * until end.
 */
bool swr_steer_tx_begin(struct swr_dev *sdev);
void swr_steer_tx_end(struct swr_dev *sdev, bool armed);

/*
 * The poller @p, between QP turns (process context, no lock held): if its
 * transmits filled a CPU's queue past the XOFF mark, wait until that queue
 * is down to the XON mark ("Pause" in swr_steer.c).
 */
void swr_steer_throttle(struct swr_poller *p);

/*
 * Receive (softirq, @skb->data at the UDP header): true when @skb was
 * queued for another CPU, which hands it to swr_rx_skb() there.
 */
bool swr_steer_rx(struct swr_dev *sdev, struct sk_buff *skb);

/*
 * Process context: wait until every packet queued before the call, for
 * any device, has been taken in; at once when none of @sdev's is queued.
 * A QP moved to ERR takes the answers that reached it first.
 */
void swr_steer_sync(struct swr_dev *sdev);

/* After @sdev left the wire: wait until no packet of it is queued. */
void swr_steer_drain(struct swr_dev *sdev);

#endif /* SWR_STEER_H */
