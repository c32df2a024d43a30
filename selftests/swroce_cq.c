// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: creation limits, resize, arming, the comp channel, and
 * the mapped ring itself driven with raw uverbs commands (what a hostile
 * process can do with the mapping: wrong sizes, wrong offsets, a mapping
 * that outlives its CQ, garbage in the user-writable words).
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/swroce-abi.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

FIXTURE(cq) {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
};

FIXTURE_SETUP(cq)
{
	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx);
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
}

FIXTURE_TEARDOWN(cq)
{
	if (self->ctx)
		ibv_close_device(self->ctx);
}

TEST_F(cq, sizes)
{
	int sizes[] = { 1, 2, 3, 100, 4096, 4097, self->attr.max_cqe };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct ibv_cq *cq = ibv_create_cq(self->ctx, sizes[i], NULL,
						  NULL, 0);

		ASSERT_NE(NULL, cq) TH_LOG("cqe %d: %s", sizes[i],
					   strerror(errno));
		EXPECT_LE(sizes[i], cq->cqe);
		EXPECT_EQ(0, ibv_destroy_cq(cq));
	}
}

TEST_F(cq, bad_sizes)
{
	int sizes[] = { 0, -1, self->attr.max_cqe + 1, 1 << 30 };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct ibv_cq *cq = ibv_create_cq(self->ctx, sizes[i], NULL,
						  NULL, 0);

		EXPECT_EQ(NULL, cq) TH_LOG("cqe %d accepted", sizes[i]);
		if (cq)
			ibv_destroy_cq(cq);
		else
			EXPECT_EQ(EINVAL, errno);
	}
	/* One completion vector. */
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 16, NULL, NULL, 1));
}

TEST_F(cq, poll_empty_and_arm)
{
	struct ibv_cq *cq = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
	struct ibv_wc wc[4];
	int i;

	ASSERT_NE(NULL, cq);
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, ibv_poll_cq(cq, 4, wc));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 1));
	EXPECT_EQ(0, ibv_poll_cq(cq, 4, wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(cq, comp_channel_stays_quiet)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(self->ctx);
	struct pollfd pfd;
	struct ibv_cq *cq;

	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 16, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
	/* Arming makes no event by itself: nothing has completed. */
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 100));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

TEST_F(cq, resize)
{
	struct ibv_cq *cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	struct ibv_wc wc;

	ASSERT_NE(NULL, cq);
	ASSERT_EQ(0, ibv_resize_cq(cq, 1000));
	EXPECT_LE(1000, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	ASSERT_EQ(0, ibv_resize_cq(cq, 2));
	EXPECT_LE(2, cq->cqe);
	EXPECT_GT(1000, cq->cqe);
	EXPECT_NE(0, ibv_resize_cq(cq, 0));
	EXPECT_NE(0, ibv_resize_cq(cq, self->attr.max_cqe + 1));
	/* A refused resize keeps the CQ usable. */
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(cq, churn)
{
	enum { HELD = 200, ROUNDS = 1000 };
	struct ibv_cq *cqs[HELD];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		struct ibv_cq *cq = ibv_create_cq(self->ctx, 256, NULL, NULL, 0);

		ASSERT_NE(NULL, cq);
		ASSERT_EQ(0, ibv_destroy_cq(cq));
	}
	for (i = 0; i < HELD; i++) {
		cqs[i] = ibv_create_cq(self->ctx, 4096, NULL, NULL, 0);
		ASSERT_NE(NULL, cqs[i]);
	}
	for (i = 0; i < HELD; i++)
		ASSERT_EQ(0, ibv_destroy_cq(cqs[i]));
}

static struct ibv_cq_ex *make_cq_ex(struct ibv_context *ctx, int cqe,
				    uint64_t wc_flags, uint32_t flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe,
		.wc_flags = wc_flags,
		.comp_mask = flags ? IBV_CQ_INIT_ATTR_MASK_FLAGS : 0,
		.flags = flags,
	};

	return ibv_create_cq_ex(ctx, &a);
}

TEST_F(cq, extended)
{
	const uint64_t ok_flags[] = {
		IBV_WC_EX_WITH_BYTE_LEN, IBV_WC_EX_WITH_IMM,
		IBV_WC_EX_WITH_QP_NUM, IBV_WC_EX_WITH_SRC_QP,
		IBV_WC_EX_WITH_SLID, IBV_WC_EX_WITH_SL,
		IBV_WC_EX_WITH_DLID_PATH_BITS, IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *ex;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < sizeof(ok_flags) / sizeof(ok_flags[0]); i++) {
		ex = make_cq_ex(self->ctx, 100, ok_flags[i], 0);
		ASSERT_NE(NULL, ex) TH_LOG("wc_flags %#llx: %s",
					   (unsigned long long)ok_flags[i],
					   strerror(errno));
		EXPECT_LE(100, ex->cqe);
		/* Empty: ENOENT, and no end_poll owed. */
		EXPECT_EQ(ENOENT, ibv_start_poll(ex, &pa));
		EXPECT_EQ(0, ibv_poll_cq(ibv_cq_ex_to_cq(ex), 1, &wc));
		EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(ex)));
	}

	/* Completion timestamps (their values: swroce_qp's cq_timestamps). */
	ex = make_cq_ex(self->ctx, 100, IBV_WC_STANDARD_FLAGS |
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, 0);
	ASSERT_NE(NULL, ex) TH_LOG("timestamps: %s", strerror(errno));
	EXPECT_EQ(ENOENT, ibv_start_poll(ex, &pa));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(ex)));
	/* The wall-clock variant, alone and with the device clock. */
	ex = make_cq_ex(self->ctx, 100,
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 0);
	ASSERT_NE(NULL, ex) TH_LOG("wall-clock timestamps: %s", strerror(errno));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(ex)));
	/* Not offered: overrun-ignoring CQs. */
	errno = 0;
	EXPECT_EQ(NULL, make_cq_ex(self->ctx, 100, 0,
				   IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN));
	EXPECT_EQ(EOPNOTSUPP, errno);

	/* Single-threaded CQs skip our lock; they work the same. */
	ex = make_cq_ex(self->ctx, 100, IBV_WC_STANDARD_FLAGS,
			IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	ASSERT_NE(NULL, ex);
	EXPECT_EQ(ENOENT, ibv_start_poll(ex, &pa));
	pa.comp_mask = 1;
	EXPECT_EQ(EINVAL, ibv_start_poll(ex, &pa));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(ex)));

	/* Same limits as ibv_create_cq(). */
	errno = 0;
	EXPECT_EQ(NULL, make_cq_ex(self->ctx, self->attr.max_cqe + 1, 0, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* Raw uverbs: a context and a CQ made by hand, to reach the mapping. */
struct raw {
	int fd;
	uint32_t cq_handle;
	struct swroce_create_cq_resp ring;
};

static int raw_cmd(int fd, uint32_t command, void *req, size_t req_len,
		   void *resp, size_t resp_len)
{
	struct ib_uverbs_cmd_hdr *hdr = req;
	uint64_t rp = (uintptr_t)resp;

	hdr->command = command;
	hdr->in_words = req_len / 4;
	hdr->out_words = resp_len / 4;
	if (resp)
		memcpy(hdr + 1, &rp, sizeof(rp));
	return write(fd, req, req_len) == (ssize_t)req_len ? 0 : -errno;
}

/* A CQ of @cqe entries made by hand on @fd: its handle and ring. */
static int raw_create_cq(int fd, uint32_t cqe, uint32_t *handle,
			 struct swroce_create_cq_resp *ring)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_cq core;
	} req = { .core.cqe = cqe, .core.comp_channel = -1 };
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct swroce_create_cq_resp drv;
	} resp;
	int err;

	err = raw_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req),
		      &resp, sizeof(resp));
	if (err)
		return err;
	*handle = resp.core.cq_handle;
	*ring = resp.drv;
	return 0;
}

static int raw_open(struct raw *r)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context core;
		struct swroce_alloc_ucontext_cmd drv;
	} ctx_req = { .drv.abi_version = SWROCE_ABI_VERSION };
	struct {
		struct ib_uverbs_get_context_resp core;
		struct swroce_alloc_ucontext_resp drv;
	} ctx_resp;
	char path[300];
	int err;

	err = swr_uverbs_path(path, sizeof(path));
	if (err)
		return err;
	r->fd = open(path, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	err = raw_cmd(r->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &ctx_req,
		      sizeof(ctx_req), &ctx_resp, sizeof(ctx_resp));
	if (err)
		return err;
	return raw_create_cq(r->fd, 100, &r->cq_handle, &r->ring);
}

static int raw_destroy_cq(struct raw *r)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_cq core;
	} req = { .core.cq_handle = r->cq_handle };
	struct ib_uverbs_destroy_cq_resp resp;

	return raw_cmd(r->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &req, sizeof(req),
		       &resp, sizeof(resp));
}

struct raw_resize_resp {
	struct ib_uverbs_resize_cq_resp core;
	struct swroce_resize_cq_resp drv;
};

static int raw_resize(int fd, uint32_t cq_handle, uint32_t cqe,
		      struct raw_resize_resp *resp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_resize_cq core;
	} req = { .core = { .cq_handle = cq_handle, .cqe = cqe } };

	return raw_cmd(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &req, sizeof(req),
		       resp, sizeof(*resp));
}

TEST(raw_ring_mapping)
{
	long long refused = swr_counter("mmap_refused");
	struct swroce_cq_ring *ring;
	struct raw r;
	size_t pg = sysconf(_SC_PAGESIZE);
	void *p;

	ASSERT_LE(0, refused);
	ASSERT_EQ(0, raw_open(&r));
	EXPECT_EQ(0, r.ring.comp_mask);
	EXPECT_EQ(128, r.ring.num_cqe);
	ASSERT_LE(sizeof(*ring) + 128 * sizeof(struct swroce_cqe),
		  r.ring.mmap_size);
	EXPECT_EQ(0, r.ring.mmap_size % pg);

	/* Only the whole ring, at its own offset. */
	p = mmap(NULL, r.ring.mmap_size + pg, PROT_READ | PROT_WRITE,
		 MAP_SHARED, r.fd, r.ring.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, r.ring.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 r.fd, r.ring.mmap_offset + r.ring.mmap_size);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(refused + 2, swr_counter("mmap_refused"));
	ring = mmap(NULL, r.ring.mmap_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, r.fd, r.ring.mmap_offset);
	ASSERT_NE(MAP_FAILED, ring);

	/* A fresh ring: nothing produced, nothing armed, no error. */
	EXPECT_EQ(0, ring->prod.idx);
	EXPECT_EQ(0, ring->cons.idx);
	EXPECT_EQ(0, ring->arm.idx);
	EXPECT_EQ(0, ring->status.idx);

	/* Garbage in everything user space may write. */
	memset(ring, 0xff, r.ring.mmap_size);
	EXPECT_EQ(0, raw_destroy_cq(&r));
	/* The mapping outlives the CQ: still valid memory, no fault. */
	ring->cons.idx = 7;
	EXPECT_EQ(7, ring->cons.idx);
	EXPECT_EQ(0, munmap(ring, r.ring.mmap_size));
	/* Its offset is gone with the CQ. */
	p = mmap(NULL, r.ring.mmap_size, PROT_READ, MAP_SHARED, r.fd,
		 r.ring.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	close(r.fd);
}

TEST(raw_resize_with_garbage_consumer_index)
{
	struct raw_resize_resp resp;
	long long bad = swr_counter("ring_index_bad");
	struct swroce_cq_ring *ring;
	struct raw r;

	ASSERT_LE(0, bad);
	ASSERT_EQ(0, raw_open(&r));
	ring = mmap(NULL, r.ring.mmap_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, r.fd, r.ring.mmap_offset);
	ASSERT_NE(MAP_FAILED, ring);

	/* A consumer index ahead of the producer is refused, and counted... */
	ring->cons.idx = 12345;
	EXPECT_EQ(-EINVAL, raw_resize(r.fd, r.cq_handle, 1000, &resp));
	EXPECT_EQ(bad + 1, swr_counter("ring_index_bad"));
	/* ...and a sane one is not. */
	ring->cons.idx = 0;
	ASSERT_EQ(0, raw_resize(r.fd, r.cq_handle, 1000, &resp));
	EXPECT_EQ(1024, resp.drv.num_cqe);
	EXPECT_EQ(1024, resp.core.cqe);
	EXPECT_NE(r.ring.mmap_offset, resp.drv.mmap_offset);
	EXPECT_EQ(0, munmap(ring, r.ring.mmap_size));

	ring = mmap(NULL, resp.drv.mmap_size, PROT_READ | PROT_WRITE,
		    MAP_SHARED, r.fd, resp.drv.mmap_offset);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, ring->prod.idx);
	EXPECT_EQ(0, munmap(ring, resp.drv.mmap_size));
	EXPECT_EQ(0, raw_destroy_cq(&r));
	close(r.fd);
}

/* Concurrent resizes ------------------------------------------------------ */

#define RACE_ITER	4000

/*
 * One thread of raw RESIZE_CQ commands on the provider's context, past the
 * provider's own lock (as a process may issue them): each response must
 * describe the ring this very resize made (its own size). (Offsets cannot
 * be checked: a freed ring's offset is handed out again.)
 */
struct racer {
	int fd;
	uint32_t cq_handle;
	uint32_t sizes[2];
	int mixed;	/* responses describing another resize's ring */
	int err;
};

static void *racer_run(void *arg)
{
	struct racer *r = arg;
	struct raw_resize_resp resp;
	int i;

	for (i = 0; i < RACE_ITER && !r->err; i++) {
		uint32_t want = r->sizes[i & 1];

		r->err = raw_resize(r->fd, r->cq_handle, want, &resp);
		if (!r->err && (resp.drv.num_cqe != want ||
				resp.drv.mmap_size < sizeof(struct swroce_cq_ring) +
				want * sizeof(struct swroce_cqe)))
			r->mixed++;
	}
	return NULL;
}

/* One SEND of @len bytes client -> server, checked byte by byte. */
static void send_one(struct __test_metadata *_metadata, struct swr_pair *p,
		     struct swr_bufs *b, uint64_t id, uint32_t len)
{
	struct ibv_wc wc;

	swr_fill(b->cbuf, len, (uint8_t)id);
	memset(b->sbuf, 0xa5, len + 64);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, id, b->sbuf, len + 64,
				    b->smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, id, b->cbuf, len,
				    b->cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, id, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, id, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(len, wc.byte_len);
	EXPECT_GT(0, swr_check(b->sbuf, len, (uint8_t)id));
	EXPECT_GT(0, swr_check_byte(b->sbuf + len, 64, 0xa5));
}

/*
 * Two threads resize one CQ thousands of times with raw commands (the
 * kernel must serialise them: the core takes only a read lock), then the
 * provider takes the CQ back with one ibv_resize_cq() and it still
 * carries traffic, byte-exact.
 */
TEST(resize_race_raw)
{
	struct racer r[2] = {
		{ .sizes = { 64, 128 } }, { .sizes = { 256, 512 } },
	};
	struct swr_pair p;
	struct swr_bufs b = { 0 };
	pthread_t t[2];
	int i;

	ASSERT_EQ(0, swr_pair_open(&p));
	swr_t_create(_metadata, &p, NULL);
	ASSERT_EQ(0, swr_bufs_init(&b, p.pd, 65536, SWR_ALL_ACCESS));
	for (i = 0; i < 2; i++) {
		r[i].fd = p.ctx->cmd_fd;
		r[i].cq_handle = p.s.rcq->handle;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, racer_run, &r[i]));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		EXPECT_EQ(0, r[i].err) TH_LOG("racer %d: %s", i,
					      strerror(-r[i].err));
		EXPECT_EQ(0, r[i].mixed) TH_LOG("racer %d: %d responses of %d "
						"named another resize's ring",
						i, r[i].mixed, RACE_ITER);
	}

	ASSERT_EQ(0, ibv_resize_cq(p.s.rcq, 100));
	EXPECT_LE(100, p.s.rcq->cqe);
	for (i = 0; i < 20; i++)
		send_one(_metadata, &p, &b, 1000 + i, 1 + i * 997 % 8192);
	swr_bufs_fini(&b);
	swr_pair_close(&p);
}

struct resizer {
	struct ibv_cq *cq;
	int sizes[2];
	int done;	/* resizes that succeeded */
	int err;
	atomic_int *running;
};

static void *resizer_run(void *arg)
{
	struct resizer *r = arg;
	int i;

	for (i = 0; i < 300 && !r->err; i++) {
		r->err = ibv_resize_cq(r->cq, r->sizes[i & 1]);
		r->done += !r->err;
	}
	atomic_fetch_sub(r->running, 1);
	return NULL;
}

/*
 * The provider's side: two threads resize the receive CQ through
 * ibv_resize_cq() while this one sends and polls it. Every completion
 * arrives once, in order, with its bytes. Each resize may wait up to
 * ~100 ms for the poller to settle (swr_cq_settle()), and a busy host
 * slows all 600 of them: minutes, not the default 30 s (it timed out
 * once beside a debug guest).
 */
FIXTURE(resize) {};
FIXTURE_SETUP(resize) {}
FIXTURE_TEARDOWN(resize) {}

TEST_F_TIMEOUT(resize, threads_with_traffic, 300)
{
	atomic_int running = 2;
	struct resizer r[2] = {
		{ .sizes = { 64, 1024 }, .running = &running },
		{ .sizes = { 128, 4096 }, .running = &running },
	};
	struct swr_pair p;
	struct swr_bufs b = { 0 };
	pthread_t t[2];
	uint64_t id = 0;
	int i;

	ASSERT_EQ(0, swr_pair_open(&p));
	swr_t_create(_metadata, &p, NULL);
	ASSERT_EQ(0, swr_bufs_init(&b, p.pd, 65536, SWR_ALL_ACCESS));
	for (i = 0; i < 2; i++) {
		r[i].cq = p.s.rcq;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, resizer_run, &r[i]));
	}
	while (atomic_load(&running) || id < 100) {
		send_one(_metadata, &p, &b, id, 1 + id * 613 % 4096);
		id++;
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		EXPECT_EQ(0, r[i].err);
		EXPECT_EQ(300, r[i].done);
	}
	EXPECT_EQ(0, ibv_poll_cq(p.s.rcq, 1, &(struct ibv_wc){ 0 }));
	swr_bufs_fini(&b);
	swr_pair_close(&p);
}

/* Ring memory: the cap per context, the memory cgroup ------------------- */

#define RING_CAP_ATTR	"swroce/ring_bytes_max"

/* Bytes of the ring of a CQ of @cqe (a power of two) entries. */
static size_t cq_ring_bytes(size_t cqe)
{
	size_t pg = sysconf(_SC_PAGESIZE);

	return (sizeof(struct swroce_cq_ring) +
		cqe * sizeof(struct swroce_cqe) + pg - 1) / pg * pg;
}

FIXTURE(cap) {
	char saved[64];
	struct ibv_context *ctx[2];
};

FIXTURE_SETUP(cap)
{
	ASSERT_EQ(0, swr_ibdev_attr(RING_CAP_ATTR, self->saved,
				    sizeof(self->saved)))
		TH_LOG("no %s", RING_CAP_ATTR);
	self->ctx[0] = swr_open_test_dev();
	self->ctx[1] = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx[0]);
	ASSERT_NE(NULL, self->ctx[1]);
}

FIXTURE_TEARDOWN(cap)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->ctx[i])
			ibv_close_device(self->ctx[i]);
	swr_ibdev_write(RING_CAP_ATTR, self->saved);
}

/*
 * With ring_bytes_max at 8 MiB a context gets CQs up to 8 MiB of rings,
 * then ENOMEM (counted in ring_cap_refused), CQs and QPs alike; another
 * context is not affected, and destroying a CQ makes room again.
 */
TEST_F(cap, ring_bytes_max_per_context)
{
	enum { CQE = 4096, MAX = 100 };
	size_t ring = cq_ring_bytes(CQE), held = 0, cap = 8 << 20;
	long long refused = swr_counter("ring_cap_refused");
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4096, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq *cq[MAX], *other;
	struct ibv_pd *pd;
	char val[64];
	int n;

	ASSERT_LE(0, refused);
	ASSERT_EQ(0, swr_ibdev_write(RING_CAP_ATTR, "8M"));
	ASSERT_EQ(0, swr_ibdev_attr(RING_CAP_ATTR, val, sizeof(val)));
	EXPECT_STREQ("8388608", val);
	for (n = 0; n < MAX; n++) {
		cq[n] = ibv_create_cq(self->ctx[0], CQE, NULL, NULL, 0);
		if (!cq[n])
			break;
		held += ring;
	}
	ASSERT_GT(MAX, n);
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_GE(cap, held);
	EXPECT_LT(cap, held + ring) TH_LOG("%zu bytes held, ring %zu",
					   held, ring);
	EXPECT_EQ(refused + 1, swr_counter("ring_cap_refused"));

	/* A QP's send ring counts against the same cap. */
	qa.send_cq = qa.recv_cq = cq[0];
	pd = ibv_alloc_pd(self->ctx[0]);
	ASSERT_NE(NULL, pd);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(pd, &qa));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(refused + 2, swr_counter("ring_cap_refused"));

	/* Per context: the other one still has its whole cap. */
	other = ibv_create_cq(self->ctx[1], CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, other);
	EXPECT_EQ(0, ibv_destroy_cq(other));

	/* Destroying returns the bytes. */
	ASSERT_EQ(0, ibv_destroy_cq(cq[--n]));
	cq[n] = ibv_create_cq(self->ctx[0], CQE, NULL, NULL, 0);
	EXPECT_NE(NULL, cq[n]);
	if (cq[n])
		n++;
	while (n)
		EXPECT_EQ(0, ibv_destroy_cq(cq[--n]));
}

#define MEMCG_ROOT	"/sys/fs/cgroup"
#define MEMCG		MEMCG_ROOT "/swroce-ring-mem"
#define MEMCG_MAX	(64 << 20)

static int cg_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * A cgroup v2 with memory.max = MEMCG_MAX; 0 or -errno. *@mounted: the
 * cgroup2 hierarchy was not mounted and this mounted it.
 */
static int memcg_make(bool *mounted)
{
	int err;

	*mounted = false;
	if (access(MEMCG_ROOT "/cgroup.controllers", F_OK)) {
		if (mount("cgroup2", MEMCG_ROOT, "cgroup2", 0, NULL))
			return -errno;
		*mounted = true;
	}
	err = cg_write(MEMCG_ROOT "/cgroup.subtree_control", "+memory");
	if (err)
		return err;
	if (mkdir(MEMCG, 0755) && errno != EEXIST)
		return -errno;
	return cg_write(MEMCG "/memory.max", "64M");
}

/*
 * In the memory cgroup: CQs of the largest size, made with raw commands
 * (no mappings), until one fails. Exit status 0 when that was ENOMEM
 * after at least half and at most all of memory.max in rings.
 */
static int memcg_child(void)
{
	struct swroce_create_cq_resp ring;
	size_t held = 0;
	uint32_t handle;
	struct raw r;
	int err;

	if (cg_write(MEMCG "/cgroup.procs", "0") || raw_open(&r))
		return 10;
	while (!(err = raw_create_cq(r.fd, 0x1ffff, &handle, &ring))) {
		held += ring.mmap_size;
		if (held > 4 * MEMCG_MAX)
			return 11;	/* not charged to the cgroup */
	}
	printf("# %zu MiB of rings, then %s\n", held >> 20, strerror(-err));
	if (err != -ENOMEM)
		return 12;
	if (held < MEMCG_MAX / 2 || held > MEMCG_MAX)
		return 13;
	close(r.fd);
	return 0;
}

/*
 * Rings are charged to the creator's memory cgroup: a process limited to
 * 64 MiB gets ENOMEM from create_cq once its rings reach the limit, is not
 * OOM-killed, and afterwards a process outside the cgroup still creates
 * QPs that carry traffic.
 */
TEST(ring_memory_charged_to_memcg)
{
	struct swr_bufs b = { 0 };
	struct swr_pair p;
	bool mounted;
	int status, i;
	pid_t pid;

	ASSERT_EQ(0, memcg_make(&mounted)) TH_LOG("cgroup v2 with a memory limit");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(memcg_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child killed by signal %d",
					      WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, swr_file_long(MEMCG "/memory.events", "oom_kill %ld"));
	EXPECT_EQ(0, rmdir(MEMCG));
	/* Leave the hierarchy as we found it. */
	if (mounted) {
		cg_write(MEMCG_ROOT "/cgroup.subtree_control", "-memory");
		EXPECT_EQ(0, umount(MEMCG_ROOT));
	}

	ASSERT_EQ(0, swr_pair_open(&p));
	swr_t_create(_metadata, &p, NULL);
	ASSERT_EQ(0, swr_bufs_init(&b, p.pd, 65536, SWR_ALL_ACCESS));
	for (i = 0; i < 10; i++)
		send_one(_metadata, &p, &b, i, 1 + i * 4099 % 65000);
	swr_bufs_fini(&b);
	swr_pair_close(&p);
}

TEST_HARNESS_MAIN
