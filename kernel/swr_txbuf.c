// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Transmit buffers for full-sized packets, recycled without clearing.
 *
 * A packet of a 4096-byte path MTU needs about 4.5 KiB of skb head, so
 * alloc_skb() takes it from kmalloc-8k, and a kernel built with
 * init_on_alloc (Debian's are) clears all 8 KiB on every allocation:
 * 11% of a sending poller's time in a stream across a veth
 * (Documentation/performance.rst). Every byte of such a packet is
 * written by the driver before it leaves, so the clearing buys nothing.
 *
 * Each CPU therefore has a page_pool per page order (one page, two
 * pages) and swr_txbuf_skb() builds a linear skb around a page from it
 * (build_skb()), marked for recycling: when the last user frees the skb
 * (the peer device's receive path, a qdisc, a NIC driver) the page goes
 * back to its pool through the pool's ring, and the next packet takes it
 * as it is. The page allocator clears a page once, when the pool first
 * takes it; after that it comes back dirty. What a reused page held
 * before lies only in headroom and tailroom that nobody reads: the
 * headers, payload, pad and ICRC of the new packet are all written.
 *
 * Only page_pool_alloc_pages() needs serialising (the pool's allocation
 * cache is unlocked): it runs with bottom halves off on the CPU whose
 * pool it is. No pool has a NAPI instance or a CPU, so a page always
 * returns through the locked ring, from whatever CPU frees it. A page
 * still in flight when the module goes keeps its pool until it returns
 * (page_pool_destroy() defers the release); no pool calls into swroce.
 *
 * A packet that fits in 2 KiB of head (an ACK, a small message, a full
 * packet of a 1024-byte path MTU) comes from alloc_skb() as before.
 */
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/topology.h>

#include "swr_net.h"

#ifdef SWR_HAVE_PAGE_POOL_HELPERS_H
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/* Pages of order 0 and 1: heads of up to 4 and 8 KiB. */
#define SWR_TXBUF_ORDERS	2
/* Up to this, alloc_skb(): its kmalloc buckets are small to clear. */
#define SWR_TXBUF_MIN		2048
/*
 * Pages a pool's ring holds for reuse (its allocation cache holds up to
 * 128 more). A stream's packets in flight between two devices of one
 * host (the sender's window, the peer's steering queue) stay below this;
 * a page freed to a full ring goes back to the page allocator.
 */
#define SWR_TXBUF_RING		1024

struct swr_txbuf_cpu {
	struct page_pool *pool[SWR_TXBUF_ORDERS];
};

static struct swr_txbuf_cpu __percpu *swr_txbuf;

/* The order of the pages for a head of @size bytes, or -1: alloc_skb(). */
static int swr_txbuf_order(unsigned int size)
{
	unsigned int need = SKB_DATA_ALIGN(size) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	int order;

	if (need <= SWR_TXBUF_MIN)
		return -1;
	for (order = 0; order < SWR_TXBUF_ORDERS; order++)
		if (need <= PAGE_SIZE << order)
			return order;
	return -1;
}

struct sk_buff *swr_txbuf_skb(unsigned int size)
{
	int order = swr_txbuf_order(size);
	struct page_pool *pool;
	struct sk_buff *skb;
	struct page *page;

	if (order < 0 || !swr_txbuf)
		return NULL;
	local_bh_disable();
	/* swr_txbuf_init() made every pool of every CPU, or none */
	pool = this_cpu_ptr(swr_txbuf)->pool[order];
	page = page_pool_alloc_pages(pool, GFP_ATOMIC | __GFP_NOWARN);
	local_bh_enable();
	if (!page)
		return NULL;
	skb = build_skb(page_address(page), PAGE_SIZE << order);
	if (!skb) {
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	return skb;
}

/* Every pool made so far (an init that failed half way made some). */
static void swr_txbuf_free(void)
{
	struct swr_txbuf_cpu *c;
	int cpu, o;

	if (!swr_txbuf)
		return;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(swr_txbuf, cpu);
		for (o = 0; o < SWR_TXBUF_ORDERS; o++)
			if (c->pool[o])
				page_pool_destroy(c->pool[o]);
	}
	free_percpu(swr_txbuf);
	swr_txbuf = NULL;
}

/*
 * The pools. Without them every packet comes from alloc_skb(): a failure
 * here costs speed, not function, so it is logged and not returned.
 */
void swr_txbuf_init(void)
{
	struct page_pool_params pp = { .pool_size = SWR_TXBUF_RING };
	struct page_pool *pool;
	int cpu, o;

	swr_txbuf = alloc_percpu(struct swr_txbuf_cpu);
	if (!swr_txbuf)
		goto fail;
	for_each_possible_cpu(cpu) {
		for (o = 0; o < SWR_TXBUF_ORDERS; o++) {
			pp.order = o;
			pp.nid = cpu_to_node(cpu);
			pool = page_pool_create(&pp);
			if (IS_ERR(pool))
				goto fail;
			per_cpu_ptr(swr_txbuf, cpu)->pool[o] = pool;
		}
	}
	return;

fail:
	swr_txbuf_free();
	pr_warn("swroce: no transmit page pools; packets use alloc_skb()\n");
}

void swr_txbuf_exit(void)
{
	swr_txbuf_free();
}
