// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parent domains and thread domains (ibv_alloc_parent_domain(3),
 * ibv_alloc_td(3)): what is accepted and refused, the reference counts
 * that keep a PD, a TD and a parent domain alive while something uses
 * them, and RC traffic through QPs, an MR and an extended CQ created
 * through a parent domain with a thread domain (no locks in the fast
 * path), checked byte by byte.
 *
 * Custom allocators: a counting allocator places the rings of the QPs,
 * the extended CQs and the SRQ of a parent in its own memory (filled
 * with garbage, which the kernel must zero), each call with page
 * alignment and whole pages, each ring freed once after its queue, with
 * its resource type. The kernel's indices turning up in that memory prove
 * the rings run there. Also: IBV_ALLOCATOR_USE_DEFAULT (kernel rings,
 * nothing freed), an allocator that fails (the create fails, what it
 * gave back), a resize (the kernel's ring takes over), rings in a 2 MiB
 * huge page, and a ring the process unmaps before the kernel is done
 * with it. The raw commands with bad rings are
 * in swroce_udata.c.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <rdma/swroce-abi.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ	(64 * 1024)

FIXTURE(par) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_td *td;
};

FIXTURE_SETUP(par)
{
	struct ibv_td_init_attr ta = {};

	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", swr_test_dev());
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->td = ibv_alloc_td(self->ctx, &ta);
	ASSERT_NE(NULL, self->td) TH_LOG("ibv_alloc_td: %s", strerror(errno));
}

FIXTURE_TEARDOWN(par)
{
	if (self->td)
		ibv_dealloc_td(self->td);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

static struct ibv_pd *parent(struct ibv_context *ctx, struct ibv_pd *pd,
			     struct ibv_td *td)
{
	struct ibv_parent_domain_init_attr a = { .pd = pd, .td = td };

	return ibv_alloc_parent_domain(ctx, &a);
}

static void *alloc_cb(struct ibv_pd *pd, void *ctx, size_t size,
		      size_t alignment, uint64_t resource_type)
{
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void free_cb(struct ibv_pd *pd, void *ctx, void *ptr,
		    uint64_t resource_type)
{
}

TEST_F(par, accepted_and_refused)
{
	struct ibv_parent_domain_init_attr a = { .pd = self->pd };
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_pd *p1, *p2, *p3;

	/* without and with a thread domain, with a context of ours */
	p1 = parent(self->ctx, self->pd, NULL);
	ASSERT_NE(NULL, p1) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(self->pd->handle, p1->handle);
	a.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	a.pd_context = self;
	a.td = self->td;
	p2 = ibv_alloc_parent_domain(self->ctx, &a);
	ASSERT_NE(NULL, p2) TH_LOG("%s", strerror(errno));
	/* and with custom allocators (the kernel takes rings in user memory) */
	a.comp_mask |= IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	a.alloc = alloc_cb;
	a.free = free_cb;
	p3 = ibv_alloc_parent_domain(self->ctx, &a);
	ASSERT_NE(NULL, p3) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, ibv_dealloc_pd(p3));

	/* a parent of a parent, no PD, custom allocators */
	errno = 0;
	EXPECT_EQ(NULL, parent(self->ctx, p1, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, parent(self->ctx, NULL, self->td));
	EXPECT_EQ(EINVAL, errno);
	/* allocators come in pairs; unknown attributes are refused */
	a.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	a.alloc = alloc_cb;
	a.free = NULL;
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_parent_domain(self->ctx, &a));
	EXPECT_EQ(EINVAL, errno);
	a.comp_mask = 1U << 7;
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_parent_domain(self->ctx, &a));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_td(self->ctx, &ta));
	EXPECT_EQ(EINVAL, errno);

	/* the PD and the TD are held by their parents */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(EBUSY, ibv_dealloc_td(self->td));
	EXPECT_EQ(0, ibv_dealloc_pd(p2));
	EXPECT_EQ(0, ibv_dealloc_td(self->td));
	self->td = NULL;
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_dealloc_pd(p1));
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

static int swr_srq_post1(struct ibv_srq *srq)
{
	static uint8_t buf[64];
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	/* no MR: the receive is checked when a message arrives, not here */
	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* An extended CQ of a parent domain; it holds the parent. */
TEST_F(par, cq_of_a_parent)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq;
	struct ibv_srq *srq;
	struct ibv_pd *p;

	/* a PD is not a parent domain */
	ca.parent_domain = self->pd;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_EQ(EINVAL, errno);

	p = parent(self->ctx, self->pd, self->td);
	ASSERT_NE(NULL, p);
	ca.parent_domain = p;
	cq = ibv_create_cq_ex(self->ctx, &ca);
	ASSERT_NE(NULL, cq) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(ENOENT, ibv_start_poll(cq, &pa));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(p));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));

	/* an SRQ through it holds it too, and takes receives */
	srq = ibv_create_srq(p, &sa);
	ASSERT_NE(NULL, srq) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, swr_srq_post1(srq));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(p));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dealloc_pd(p));
}

/*
 * @n SENDs of growing sizes from the client to the server of @p (on @srq
 * when the server has one), then an RDMA WRITE of @b's whole buffer,
 * every byte checked.
 */
static void par_traffic(struct __test_metadata *_metadata, struct swr_pair *p,
			struct swr_bufs *b, struct ibv_srq *srq,
			unsigned int n)
{
	struct ibv_sge sge = { .addr = (uintptr_t)b->sbuf, .length = b->len,
			       .lkey = b->smr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		swr_fill(b->cbuf, b->len, (uint8_t)i);
		rwr.wr_id = i;
		ASSERT_EQ(0, srq ? ibv_post_srq_recv(srq, &rwr, &bad) :
				   ibv_post_recv(p->s.qp, &rwr, &bad));
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, i, b->cbuf,
					    5000 + i, b->cmr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, NULL);
		swr_t_wait_wc(_metadata, p->s.rcq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(5000 + i, wc.byte_len);
		EXPECT_EQ(-1, swr_check(b->sbuf, 5000 + i, (uint8_t)i));
	}
	swr_fill(b->cbuf, b->len, 77);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 99, b->cbuf,
				    b->len, b->cmr->lkey, (uintptr_t)b->sbuf,
				    b->smr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 99, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(b->sbuf, b->len, 77));
}

/*
 * RC traffic through a parent domain with a thread domain: its QPs post
 * without locks, its MR registers through it, data arrives intact.
 */
TEST_F(par, rc_traffic_through_parent)
{
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_pd *pp;
	int ret;

	pp = parent(self->ctx, self->pd, self->td);
	ASSERT_NE(NULL, pp);
	p.ctx = self->ctx;
	p.pd = pp;
	p.mtu = IBV_MTU_1024;
	ASSERT_EQ(0, swr_find_gid(p.ctx, true, &p.gid_index, &p.gid));
	ret = swr_pair_create(&p, NULL);
	ASSERT_EQ(0, ret) TH_LOG("QPs through the parent: %s", strerror(-ret));
	ASSERT_EQ(0, swr_bufs_init(&b, pp, BUFSZ, SWR_ALL_ACCESS));

	/* the parent is in use */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pp));

	par_traffic(_metadata, &p, &b, NULL, 20);

	swr_pair_destroy_qps(&p);
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
}

/* Custom allocators ------------------------------------------------------ */

#define RA_MAX		32
#define RA_TYPES	8

/* A counting allocator: where each ring went, and what came back. */
struct ring_alloc {
	size_t page;
	int allocs[RA_TYPES];	/* calls, by resource type */
	int frees[RA_TYPES];	/* rings given back, by type */
	int bad_args;		/* alignment, size or type not as promised */
	int bad_frees;		/* unknown pointer, twice, or another type */
	bool use_default;	/* answer IBV_ALLOCATOR_USE_DEFAULT */
	int fail_at;		/* > 0: the fail_at-th call answers NULL */
	int calls;
	bool own_maps;		/* each ring a mapping of its own */
	uint8_t *arena;		/* else carved from here (a huge page) */
	size_t arena_len, arena_used;
	struct {
		uint8_t *p;
		size_t size;
		uint64_t type;
		bool freed;
		bool unmapped;	/* own_maps: the test unmapped it early */
	} r[RA_MAX];
	int n;
};

static void *ra_get(struct ring_alloc *ra, size_t size, size_t alignment)
{
	void *p;

	if (ra->arena) {
		if (ra->arena_used + size > ra->arena_len)
			return NULL;
		p = ra->arena + ra->arena_used;
		ra->arena_used += size;
	} else if (ra->own_maps) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
	} else if (posix_memalign(&p, alignment, size)) {
		return NULL;
	}
	return p;
}

static void *ra_alloc(struct ibv_pd *pd, void *ctx, size_t size,
		      size_t alignment, uint64_t type)
{
	struct ring_alloc *ra = ctx;
	uint8_t *p;

	ra->calls++;
	if (type >= RA_TYPES || alignment != ra->page || !size ||
	    size % ra->page) {
		ra->bad_args++;
		return NULL;
	}
	ra->allocs[type]++;
	if (ra->use_default)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (ra->calls == ra->fail_at || ra->n == RA_MAX)
		return NULL;
	p = ra_get(ra, size, alignment);
	if (!p)
		return NULL;
	memset(p, 0xa5, size);	/* the kernel zeroes what it takes */
	ra->r[ra->n].p = p;
	ra->r[ra->n].size = size;
	ra->r[ra->n].type = type;
	ra->n++;
	return p;
}

static void ra_free(struct ibv_pd *pd, void *ctx, void *ptr, uint64_t type)
{
	struct ring_alloc *ra = ctx;
	int i;

	for (i = 0; i < ra->n; i++)
		if (ra->r[i].p == ptr && !ra->r[i].freed)
			break;
	if (i == ra->n || ra->r[i].type != type) {
		ra->bad_frees++;
		return;
	}
	ra->r[i].freed = true;
	ra->frees[type]++;
	if (ra->arena)
		return;
	if (!ra->own_maps)
		free(ptr);
	else if (!ra->r[i].unmapped)
		munmap(ptr, ra->r[i].size);
}

static struct ibv_pd *ra_parent(struct ibv_context *ctx, struct ibv_pd *pd,
				struct ibv_td *td, struct ring_alloc *ra)
{
	struct ibv_parent_domain_init_attr a = {
		.pd = pd, .td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = ra_alloc, .free = ra_free, .pd_context = ra,
	};

	ra->page = sysconf(_SC_PAGESIZE);
	return ibv_alloc_parent_domain(ctx, &a);
}

/* A ring index as the kernel or the provider left it in ring memory. */
static uint32_t ra_idx(const struct ring_alloc *ra, int i, size_t off)
{
	return *(volatile uint32_t *)(ra->r[i].p + off);
}

static size_t ra_pages(const struct ring_alloc *ra, size_t bytes)
{
	return (bytes + ra->page - 1) / ra->page * ra->page;
}

/* Every ring given was freed once, with its type, and nothing else. */
static void ra_check_freed(struct __test_metadata *_metadata,
			   const struct ring_alloc *ra)
{
	int i;

	EXPECT_EQ(0, ra->bad_args);
	EXPECT_EQ(0, ra->bad_frees);
	for (i = 0; i < ra->n; i++)
		EXPECT_TRUE(ra->r[i].freed) TH_LOG("ring %d not freed", i);
	for (i = 0; i < RA_TYPES; i++) {
		int given = 0, j;

		for (j = 0; j < ra->n; j++)
			given += ra->r[j].type == (uint64_t)i;
		EXPECT_EQ(given, ra->frees[i]);
	}
}

/*
 * An RC pair through @pp, its extended CQs too, the server on @srq, and
 * buffers of BUFSZ registered through @pp.
 */
static void ra_pair(struct __test_metadata *_metadata, struct swr_pair *p,
		    struct swr_bufs *b, struct ibv_context *ctx,
		    struct ibv_pd *pp, struct ibv_srq *srq)
{
	struct swr_qp_opts o = {
		.cq_wc_flags = IBV_WC_STANDARD_FLAGS, .cq_of_pd = true,
		.srq = srq, .max_sge = 1,
	};
	int ret;

	p->ctx = ctx;
	p->pd = pp;
	p->mtu = IBV_MTU_1024;
	ASSERT_EQ(0, swr_find_gid(ctx, true, &p->gid_index, &p->gid));
	ret = swr_pair_create(p, &o);
	ASSERT_EQ(0, ret) TH_LOG("QPs and CQs through the parent: %s",
				 strerror(-ret));
	ASSERT_EQ(0, swr_bufs_init(b, pp, BUFSZ, SWR_ALL_ACCESS));
}

/* One receive of the whole server buffer on the server's QP. */
static int ra_post_recv(struct swr_pair *p, struct swr_bufs *b)
{
	struct ibv_sge sge = { .addr = (uintptr_t)b->sbuf, .length = b->len,
			       .lkey = b->smr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(p->s.qp, &rwr, &bad);
}

/*
 * The rings of an SRQ, four extended CQs and two QPs (the server's on
 * the SRQ: no receive ring) in allocator memory; traffic through them.
 * The allocations come in creation order: SRQ; client send CQ, receive
 * CQ, SQ, RQ; server send CQ, receive CQ, SQ.
 */
TEST_F(par, rings_in_allocator_memory)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	size_t cq_bytes = sizeof(struct swroce_cq_ring) +
			  256 * sizeof(struct swroce_cqe);
	struct ring_alloc ra = {};
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_srq *srq;
	struct ibv_pd *pp;
	int i;

	pp = ra_parent(self->ctx, self->pd, self->td, &ra);
	ASSERT_NE(NULL, pp) TH_LOG("%s", strerror(errno));
	srq = ibv_create_srq(pp, &sa);
	ASSERT_NE(NULL, srq) TH_LOG("%s", strerror(errno));
	ra_pair(_metadata, &p, &b, self->ctx, pp, srq);

	EXPECT_EQ(1, ra.allocs[SWROCE_RES_TYPE_SRQ]);
	EXPECT_EQ(4, ra.allocs[SWROCE_RES_TYPE_CQ]);
	EXPECT_EQ(3, ra.allocs[SWROCE_RES_TYPE_QP]);
	ASSERT_EQ(8, ra.n);
	/* the sizes of the uAPI's rules; nothing posted yet: all zero */
	EXPECT_EQ(ra_pages(&ra, sizeof(struct swroce_wq_ring) + 64 * 32),
		  ra.r[0].size);
	for (i = 0; i < ra.n; i++) {
		if (ra.r[i].type == SWROCE_RES_TYPE_QP)
			continue;	/* the poller may flag NEED_WAKEUP */
		EXPECT_EQ(-1, swr_check_byte(ra.r[i].p, ra.r[i].size, 0))
			TH_LOG("ring %d not zeroed", i);
		if (ra.r[i].type == SWROCE_RES_TYPE_CQ)
			EXPECT_EQ(ra_pages(&ra, cq_bytes), ra.r[i].size);
	}

	par_traffic(_metadata, &p, &b, srq, 20);

	/* the kernel's indices are in our memory: prod at 0, cons at 64 */
	EXPECT_EQ(20, ra_idx(&ra, 0, 64));	/* SRQ consumed */
	EXPECT_EQ(21, ra_idx(&ra, 1, 0));	/* client send CQ produced */
	EXPECT_EQ(21, ra_idx(&ra, 3, 64));	/* client SQ consumed */
	EXPECT_EQ(20, ra_idx(&ra, 6, 0));	/* server receive CQ */

	swr_pair_destroy_qps(&p);
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
	ra_check_freed(_metadata, &ra);
}

/* IBV_ALLOCATOR_USE_DEFAULT: asked for each ring, the kernel's used. */
TEST_F(par, allocator_use_default)
{
	struct ring_alloc ra = { .use_default = true };
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_pd *pp;

	pp = ra_parent(self->ctx, self->pd, NULL, &ra);
	ASSERT_NE(NULL, pp) TH_LOG("%s", strerror(errno));
	ra_pair(_metadata, &p, &b, self->ctx, pp, NULL);
	EXPECT_EQ(4, ra.allocs[SWROCE_RES_TYPE_CQ]);
	EXPECT_EQ(4, ra.allocs[SWROCE_RES_TYPE_QP]);
	EXPECT_EQ(0, ra.n);

	par_traffic(_metadata, &p, &b, NULL, 5);

	swr_pair_destroy_qps(&p);
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
	ra_check_freed(_metadata, &ra);
}

/*
 * An allocator that answers NULL fails the create with ENOMEM; the ring
 * it gave before (the SQ, when the RQ fails) comes back.
 */
TEST_F(par, allocator_fails)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ring_alloc ra = {};
	struct ibv_cq_ex *cq;
	struct ibv_pd *pp;

	pp = ra_parent(self->ctx, self->pd, NULL, &ra);
	ASSERT_NE(NULL, pp) TH_LOG("%s", strerror(errno));
	ca.parent_domain = pp;
	cq = ibv_create_cq_ex(self->ctx, &ca);
	ASSERT_NE(NULL, cq) TH_LOG("%s", strerror(errno));
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq);

	ra.fail_at = ra.calls + 2;	/* the RQ */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(pp, &qa));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(1, ra.frees[SWROCE_RES_TYPE_QP]);
	ra.fail_at = ra.calls + 1;	/* a CQ */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_EQ(ENOMEM, errno);

	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
	ra_check_freed(_metadata, &ra);
}

/*
 * Resizing a CQ whose ring is the allocator's: the completions not yet
 * polled move to the kernel's new ring, and the old one is freed then.
 */
TEST_F(par, resize_leaves_allocator_ring)
{
	struct ring_alloc ra = {};
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_pd *pp;
	struct ibv_wc wc;
	uint64_t end;
	unsigned int i;

	pp = ra_parent(self->ctx, self->pd, NULL, &ra);
	ASSERT_NE(NULL, pp) TH_LOG("%s", strerror(errno));
	ra_pair(_metadata, &p, &b, self->ctx, pp, NULL);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ra_post_recv(&p, &b));
		ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_SEND, i, b.cbuf,
					    100, b.cmr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p.s.rcq, 0, IBV_WC_SUCCESS, NULL);
	}
	/* the client's send CQ (ring 0) holds three, unpolled */
	end = swr_now_ms() + SWR_CQ_TIMEOUT_MS;
	while (ra_idx(&ra, 0, 0) != 3 && swr_now_ms() < end)
		usleep(1000);
	ASSERT_EQ(3, ra_idx(&ra, 0, 0));

	ASSERT_EQ(0, ibv_resize_cq(p.c.scq, 512));
	EXPECT_EQ(1, ra.frees[SWROCE_RES_TYPE_CQ]);
	EXPECT_TRUE(ra.r[0].freed);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, ibv_poll_cq(p.c.scq, 1, &wc));
		EXPECT_EQ(i, wc.wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	}
	EXPECT_EQ(0, ibv_poll_cq(p.c.scq, 1, &wc));

	swr_pair_destroy_qps(&p);
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
	ra_check_freed(_metadata, &ra);
}

/* Rings carved from one 2 MiB huge page (MAP_HUGETLB). */
TEST_F(par, rings_in_huge_page)
{
	struct ring_alloc ra = { .arena_len = 2UL << 20 };
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_pd *pp;
	void *huge;

	huge = mmap(NULL, ra.arena_len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (huge == MAP_FAILED)
		SKIP(return, "no 2 MiB huge page (vm.nr_hugepages): %s",
		     strerror(errno));
	ra.arena = huge;
	pp = ra_parent(self->ctx, self->pd, NULL, &ra);
	ASSERT_NE(NULL, pp) TH_LOG("%s", strerror(errno));
	ra_pair(_metadata, &p, &b, self->ctx, pp, NULL);
	ASSERT_EQ(8, ra.n);

	par_traffic(_metadata, &p, &b, NULL, 10);
	EXPECT_EQ(11, ra_idx(&ra, 0, 0));	/* client send CQ produced */
	EXPECT_EQ(11, ra_idx(&ra, 2, 64));	/* client SQ consumed */
	EXPECT_EQ(10, ra_idx(&ra, 7, 64));	/* server RQ consumed */

	swr_pair_destroy_qps(&p);
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
	ra_check_freed(_metadata, &ra);
	munmap(huge, ra.arena_len);
}

/*
 * The process unmaps a CQ's ring while the CQ lives: the kernel keeps
 * writing completions into the pages it pinned, the process has lost
 * them, the kernel is fine, and the ring is freed at destroy as usual.
 */
TEST_F(par, ring_unmapped_early)
{
	struct ring_alloc ra = { .own_maps = true };
	struct swr_pair p = {};
	struct swr_bufs b = {};
	struct ibv_pd *pp;
	struct ibv_wc wc;
	unsigned int i;

	pp = ra_parent(self->ctx, self->pd, NULL, &ra);
	ASSERT_NE(NULL, pp) TH_LOG("%s", strerror(errno));
	ra_pair(_metadata, &p, &b, self->ctx, pp, NULL);

	/* the client's send CQ: never polled from here on */
	ASSERT_EQ(SWROCE_RES_TYPE_CQ, ra.r[0].type);
	ASSERT_EQ(0, munmap(ra.r[0].p, ra.r[0].size));
	ra.r[0].unmapped = true;
	for (i = 0; i < 5; i++) {
		swr_fill(b.cbuf, BUFSZ, (uint8_t)(i + 40));
		ASSERT_EQ(0, ra_post_recv(&p, &b));
		ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_SEND, i, b.cbuf,
					    1000 + i, b.cmr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p.s.rcq, 0, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(1000 + i, wc.byte_len);
		EXPECT_EQ(-1, swr_check(b.sbuf, 1000 + i, (uint8_t)(i + 40)));
	}

	swr_pair_destroy_qps(&p);
	swr_bufs_fini(&b);
	EXPECT_EQ(0, ibv_dealloc_pd(pp));
	ra_check_freed(_metadata, &ra);
}

TEST_HARNESS_MAIN
