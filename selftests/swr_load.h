/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A process with work of every kind outstanding on the device under test,
 * for the tests that kill it, or take the device, its netdev or the module
 * away under it (swroce_killed.c, swroce_traffic.c's "load" for
 * selftests/swroce_lifecycle.sh).
 */
#ifndef SWR_LOAD_H
#define SWR_LOAD_H

#include <sys/mman.h>

#include "swr_qp_test.h"

#define SWR_LOAD_BIG	(16 * 1024 * 1024)	/* the killed test's writes */

/*
 * Lots of outstanding work of every kind, then keep large writes coming
 * until killed: @nbig writes of @big_len bytes
 * outstanding. Writes one byte to @ready_fd once everything is posted.
 * Exit codes say which step failed.
 */
static int swr_load(int ready_fd, int nbig, size_t big_len)
{
	struct swr_qp_opts rnr = { .rnr_retry = 7, .max_send_wr = 256 };
	struct swr_qp_opts big = { .max_send_wr = 64 };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 512, .max_sge = 1 } };
	struct swr_pair a, b, c;
	struct ibv_srq *srq;
	struct ibv_mr *mr1, *mr2;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_sge sge;
	uint8_t *b1, *b2;
	int i;

	if (swr_pair_open(&a) || swr_pair_create(&a, &rnr))
		return 10;
	b1 = mmap(NULL, big_len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b2 = mmap(NULL, big_len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b1 == MAP_FAILED || b2 == MAP_FAILED)
		return 11;
	mr1 = ibv_reg_mr(a.pd, b1, big_len, SWR_ALL_ACCESS);
	mr2 = ibv_reg_mr(a.pd, b2, big_len, SWR_ALL_ACCESS);
	if (!mr1 || !mr2)
		return 12;
	/* Sends nobody will ever receive, retried for ever. */
	for (i = 0; i < 200; i++)
		if (swr_post_send1(a.c.qp, IBV_WR_SEND, i, b1, 4096,
				   mr1->lkey, 0, 0, IBV_SEND_SIGNALED))
			return 13;

	/* Large writes in flight, on a second pair in the same context. */
	b = a;
	memset(&b.c, 0, sizeof(b.c));
	memset(&b.s, 0, sizeof(b.s));
	b.o = big;
	if (swr_end_create(&b, &b.c, NULL) || swr_end_create(&b, &b.s, NULL) ||
	    swr_qp_connect(&b, b.c.qp, b.s.qp->qp_num) ||
	    swr_qp_connect(&b, b.s.qp, b.c.qp->qp_num))
		return 14;
	for (i = 0; i < nbig; i++)
		if (swr_post_send1(b.c.qp, IBV_WR_RDMA_WRITE, i, b1, big_len,
				   mr1->lkey, (uintptr_t)b2, mr2->rkey,
				   IBV_SEND_SIGNALED))
			return 15;

	/* A pair on an SRQ full of receives, and armed CQs everywhere. */
	srq = ibv_create_srq(a.pd, &sa);
	if (!srq)
		return 16;
	sge.addr = (uintptr_t)b2;
	sge.length = 4096;
	sge.lkey = mr2->lkey;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 500; i++)
		if (ibv_post_srq_recv(srq, &rwr, &rbad))
			return 17;
	c = a;
	memset(&c.c, 0, sizeof(c.c));
	memset(&c.s, 0, sizeof(c.s));
	c.o.srq = srq;
	if (swr_end_create(&c, &c.c, NULL) || swr_end_create(&c, &c.s, srq) ||
	    swr_qp_connect(&c, c.c.qp, c.s.qp->qp_num) ||
	    swr_qp_connect(&c, c.s.qp, c.c.qp->qp_num))
		return 18;
	for (i = 0; i < 32; i++)
		if (swr_post_recv1(c.c.qp, i, b2, 64, mr2->lkey))
			return 19;
	ibv_req_notify_cq(a.c.scq, 0);
	ibv_req_notify_cq(b.s.rcq, 1);
	ibv_req_notify_cq(c.s.rcq, 0);

	if (write(ready_fd, "r", 1) != 1)
		return 20;
	/* Keep the writes coming until the end. */
	for (;;) {
		struct ibv_wc wc;

		if (ibv_poll_cq(b.c.scq, 1, &wc) == 1)
			swr_post_send1(b.c.qp, IBV_WR_RDMA_WRITE, 100, b1,
				       big_len, mr1->lkey, (uintptr_t)b2,
				       mr2->rkey, IBV_SEND_SIGNALED);
		sched_yield();
	}
}

#endif /* SWR_LOAD_H */
