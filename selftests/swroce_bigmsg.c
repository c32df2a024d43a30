// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Messages of 1 GiB and 2 GiB (IBTA's largest, 2^31 bytes): one RDMA WRITE,
 * one RDMA READ and one SEND each, between two RC QPs of the device under
 * test (swr_qp_test.h), and one byte more, which must fail. The engine
 * copies such a message in chunks and reschedules between them: a soft
 * lockup or RCU stall while it does shows in the guest's console log and
 * fails the run there.
 *
 * Memory: the destination of each transfer is one real buffer, R, of the
 * message's size. The source is a window onto a memfd of SRC_PERIOD bytes
 * (513 pages, not a power of two), mapped again and again to the length of
 * the message, so that a 2 GiB transfer needs 2 GiB of guest memory rather
 * than 4. Byte o of the message is therefore byte o % SRC_PERIOD of the
 * memfd, and a copy from a wrong offset shows unless the offset is a
 * multiple of SRC_PERIOD. The check is sampled: in every 4 KiB page three
 * 8-byte words (at 0, 2040 and 4088), the first and the last byte, and the
 * bytes after the message, which must stay untouched. Each operation gets
 * a new seed, so data left from the one before does not pass.
 *
 * A size is skipped when the guest lacks the memory (MemAvailable) for it;
 * tools/vm/vm.sh -r chooses the guest's memory.
 *
 * share.writer_does_not_stall_latency: while one process streams 1 GiB
 * RDMA WRITEs between two QPs of its own, in doorbell mode (poll_idle_us
 * 0: the poller sleeps, each post is a doorbell that runs the requester in
 * the poster's context), another process's RC write ping-pong keeps its
 * latency: the median of its round trips over 100 ms windows taken while
 * a write is in flight stays within 3x of the median over windows taken
 * alone, interleaved with them. Before, the writer's doorbell held its QP
 * for the whole second a 1 GiB copy takes, the poller (woken by the other
 * process's doorbell, which handed its QP over to it) waited for that QP,
 * and the other process's next post waited for the poller. Now a large
 * WQE moves in turns of 64 KiB, no context waits for another's QP, and
 * while it moves bulk data the poller leaves the posts to their posters.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define PAGE		4096UL
#define SRC_PERIOD	(513 * PAGE)
#define GIB		(1024UL * 1024 * 1024)
/* Bytes after the message in R, which must stay as they were. */
#define TAIL		PAGE
#define CANARY		0xa5
/* Beyond the message, what the guest must keep available. */
#define MEM_SLACK	(192UL * 1024 * 1024)
/* A 2 GiB copy in a TCG guest takes a while. */
#define BIG_CQ_TIMEOUT_MS	240000

static const size_t sample[] = { 0, 2040, 4088 };

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Byte @o of the source pattern of @seed (o < SRC_PERIOD). */
static uint8_t pat(size_t o, unsigned int seed)
{
	uint64_t w = mix(((uint64_t)seed << 40) ^ (o / 8));

	return (uint8_t)(w >> ((o % 8) * 8));
}

/* Write the sampled bytes of the pattern of @seed into the memfd window. */
static void fill_src(uint8_t *src, unsigned int seed)
{
	size_t pg, i, j, o;

	for (pg = 0; pg < SRC_PERIOD; pg += PAGE)
		for (i = 0; i < sizeof(sample) / sizeof(sample[0]); i++)
			for (j = 0; j < 8; j++) {
				o = pg + sample[i] + j;
				src[o] = pat(o, seed);
			}
	/* The last byte of every possible message: all of the period. */
	for (o = 0; o < SRC_PERIOD; o += 8)
		src[o + 7] = pat(o + 7, seed);
}

/*
 * The first byte of @dst (@len bytes of message) that differs from the
 * pattern of @seed, or -1.
 */
static long check_dst(const uint8_t *dst, size_t len, unsigned int seed)
{
	size_t pg, i, j, o;

	for (pg = 0; pg < len; pg += PAGE)
		for (i = 0; i < sizeof(sample) / sizeof(sample[0]); i++)
			for (j = 0; j < 8; j++) {
				o = pg + sample[i] + j;
				if (o < len &&
				    dst[o] != pat(o % SRC_PERIOD, seed))
					return (long)o;
			}
	if (dst[len - 1] != pat((len - 1) % SRC_PERIOD, seed))
		return (long)(len - 1);
	for (o = len; o < len + TAIL; o++)
		if (dst[o] != CANARY)
			return (long)o;
	return -1;
}

/* MemAvailable from /proc/meminfo, in bytes (0 if unknown). */
static size_t mem_available(void)
{
	char line[128];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* @len bytes of the memfd @fd, again and again; NULL on failure. */
static uint8_t *map_window(int fd, size_t len)
{
	uint8_t *win;
	size_t off, n;

	/* Reserve the range, then map the memfd over it. */
	win = mmap(NULL, len, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (win == MAP_FAILED)
		return NULL;
	for (off = 0; off < len; off += SRC_PERIOD) {
		n = len - off < SRC_PERIOD ? len - off : SRC_PERIOD;
		if (mmap(win + off, n, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
			munmap(win, len);
			return NULL;
		}
	}
	return win;
}

FIXTURE(big) {
	struct swr_pair p;
	int fd;
	uint8_t *src;		/* the memfd, once */
	uint8_t *win;		/* the memfd, again and again */
	size_t win_len;
	uint8_t *dst;		/* R */
	size_t dst_len;
	struct ibv_mr *win_mr, *dst_mr;
};

FIXTURE_VARIANT(big) {
	size_t len;
};

FIXTURE_VARIANT_ADD(big, gib1) {
	.len = GIB,
};

FIXTURE_VARIANT_ADD(big, gib2) {
	.len = 2 * GIB,
};

FIXTURE_SETUP(big)
{
	size_t need = variant->len + TAIL;
	uint64_t t0 = swr_now_ms();
	int ret;

	self->fd = -1;
	if (mem_available() < need + MEM_SLACK)
		SKIP(return, "%zu MiB available, %zu MiB needed (vm.sh -r)",
		     mem_available() >> 20, (need + MEM_SLACK) >> 20);

	ret = swr_pair_open(&self->p);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_pair_create(&self->p, NULL);
	ASSERT_EQ(0, ret) TH_LOG("creating/connecting QPs: %s", strerror(-ret));

	self->fd = memfd_create("swroce_bigmsg", 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ftruncate(self->fd, SRC_PERIOD));
	self->src = mmap(NULL, SRC_PERIOD, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->src);

	self->win_len = variant->len;
	self->win = map_window(self->fd, self->win_len);
	ASSERT_NE(NULL, self->win);
	self->win_mr = ibv_reg_mr(self->p.pd, self->win, self->win_len,
				  IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, self->win_mr) TH_LOG("reg_mr window: %s",
					     strerror(errno));

	self->dst_len = need;
	self->dst = mmap(NULL, self->dst_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->dst);
	self->dst_mr = ibv_reg_mr(self->p.pd, self->dst, self->dst_len,
				  SWR_ALL_ACCESS);
	ASSERT_NE(NULL, self->dst_mr) TH_LOG("reg_mr %zu bytes: %s",
					     self->dst_len, strerror(errno));
	ksft_print_msg("setup of %zu MiB: %llu ms\n", variant->len >> 20,
		       (unsigned long long)(swr_now_ms() - t0));
}

FIXTURE_TEARDOWN(big)
{
	swr_pair_destroy_qps(&self->p);
	if (self->win_mr)
		ibv_dereg_mr(self->win_mr);
	if (self->dst_mr)
		ibv_dereg_mr(self->dst_mr);
	if (self->win && self->win != MAP_FAILED)
		munmap(self->win, self->win_len);
	if (self->dst && self->dst != MAP_FAILED)
		munmap(self->dst, self->dst_len);
	if (self->src && self->src != MAP_FAILED)
		munmap(self->src, SRC_PERIOD);
	if (self->fd >= 0)
		close(self->fd);
	swr_pair_close(&self->p);
}

/* Mark the sampled bytes of R and its tail, so that stale data shows. */
static void reset_dst(FIXTURE_DATA(big) *self, size_t len)
{
	size_t pg, i;

	for (pg = 0; pg < len; pg += PAGE)
		for (i = 0; i < sizeof(sample) / sizeof(sample[0]); i++)
			memset(self->dst + pg + sample[i], 0, 8);
	self->dst[len - 1] = 0;
	memset(self->dst + len, CANARY, TAIL);
}

static void wait_ok(struct __test_metadata *_metadata, struct ibv_cq *cq,
		    uint64_t wr_id, uint32_t byte_len)
{
	struct ibv_wc wc;

	ASSERT_EQ(1, swr_poll_wait(cq, &wc, BIG_CQ_TIMEOUT_MS))
		TH_LOG("no completion for wr_id %llu",
		       (unsigned long long)wr_id);
	EXPECT_EQ(wr_id, wc.wr_id);
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status)
		TH_LOG("wr_id %llu: %s", (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
	if (byte_len)
		EXPECT_EQ(byte_len, wc.byte_len);
}

/*
 * One message of @len bytes: @op from the window to R (WRITE, SEND) or
 * from the window read into R (READ).
 */
static void transfer(struct __test_metadata *_metadata,
		     FIXTURE_DATA(big) *self, enum ibv_wr_opcode op,
		     size_t len, unsigned int seed)
{
	struct swr_pair *p = &self->p;
	const char *name;
	uint64_t t0;
	long bad;
	int ret;

	fill_src(self->src, seed);
	reset_dst(self, len);
	t0 = swr_now_ms();
	switch (op) {
	case IBV_WR_RDMA_READ:
		name = "RDMA READ";
		/* The client reads the server's window into its R. */
		ret = swr_post_send1(p->c.qp, op, seed, self->dst, len,
				     self->dst_mr->lkey,
				     (uintptr_t)self->win, self->win_mr->rkey,
				     IBV_SEND_SIGNALED);
		break;
	case IBV_WR_SEND:
		name = "SEND";
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, seed, self->dst,
					    self->dst_len,
					    self->dst_mr->lkey));
		ret = swr_post_send1(p->c.qp, op, seed, self->win, len,
				     self->win_mr->lkey, 0, 0,
				     IBV_SEND_SIGNALED);
		break;
	default:
		name = "RDMA WRITE";
		ret = swr_post_send1(p->c.qp, op, seed, self->win, len,
				     self->win_mr->lkey, (uintptr_t)self->dst,
				     self->dst_mr->rkey, IBV_SEND_SIGNALED);
		break;
	}
	ASSERT_EQ(0, ret) TH_LOG("post %s: %s", name, strerror(ret));
	wait_ok(_metadata, p->c.scq, seed, op == IBV_WR_RDMA_READ ? len : 0);
	if (op == IBV_WR_SEND)
		wait_ok(_metadata, p->s.rcq, seed, len);
	ksft_print_msg("%s of %zu bytes: %llu ms\n", name, len,
		       (unsigned long long)(swr_now_ms() - t0));
	bad = check_dst(self->dst, len, seed);
	EXPECT_EQ(-1, bad) TH_LOG("%s: byte %ld differs", name, bad);
}

TEST_F_TIMEOUT(big, write_read_send, 900)
{
	transfer(_metadata, self, IBV_WR_RDMA_WRITE, variant->len, 1);
	transfer(_metadata, self, IBV_WR_RDMA_READ, variant->len, 2);
	transfer(_metadata, self, IBV_WR_SEND, variant->len, 3);
}

/*
 * One byte more than the largest message, from two SGEs of the window
 * (2 GiB of it: cheap, it is the same 513 pages), fails with a local
 * length error and the QP goes to error. Nothing is copied.
 */
FIXTURE(over) {
};

FIXTURE_SETUP(over)
{
}

FIXTURE_TEARDOWN(over)
{
}

TEST_F_TIMEOUT(over, two_gib_plus_one, 120)
{
	size_t len = 2 * GIB + 1;
	struct swr_pair p;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *win;
	int fd, ret;

	ret = swr_pair_open(&p);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_pair_create(&p, NULL);
	ASSERT_EQ(0, ret) TH_LOG("creating/connecting QPs: %s", strerror(-ret));
	fd = memfd_create("swroce_bigmsg", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, SRC_PERIOD));
	win = map_window(fd, len);
	ASSERT_NE(NULL, win);
	mr = ibv_reg_mr(p.pd, win, len, 0);
	ASSERT_NE(NULL, mr) TH_LOG("reg_mr window: %s", strerror(errno));

	sge[0].addr = (uintptr_t)win;
	sge[0].length = (uint32_t)(2 * GIB);
	sge[0].lkey = mr->lkey;
	sge[1].addr = (uintptr_t)win + 2 * GIB;
	sge[1].length = 1;
	sge[1].lkey = mr->lkey;
	ASSERT_EQ(0, ibv_post_send(p.c.qp, &wr, &bad));
	ASSERT_EQ(1, swr_wait(p.c.scq, &wc));
	EXPECT_EQ(IBV_WC_LOC_LEN_ERR, wc.status)
		TH_LOG("%s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(IBV_QPS_ERR, swr_qp_wait_state(p.c.qp, IBV_QPS_ERR, 5000));
	/* Nothing reached the server. */
	EXPECT_EQ(0, swr_cq_count(p.s.rcq, 100));

	swr_pair_destroy_qps(&p);
	ibv_dereg_mr(mr);
	munmap(win, len);
	close(fd);
	swr_pair_close(&p);
}

/* A 1 GiB writer beside a ping-pong --------------------------------------- */

#define IDLE_ATTR	"swroce/poll_idle_us"
#define SHARE_LEN	GIB
/* Writes, each after IDLE_WINDOWS windows of ping-pong alone. */
#define SHARE_REPS	5
#define IDLE_WINDOWS	2
/* Loaded windows kept, at most; too few and the median means little. */
#define MAX_BUSY	(SHARE_REPS * 32)
#define MIN_BUSY	5
/*
 * A window lasts this long, or until the write ends if that is later than
 * half of it; its figure is the mean round trip within it, so that a stall
 * counts for as long as it lasted.
 */
#define WINDOW_MS	100
/* The loaded median may be this many times the idle one. */
#define SHARE_FACTOR	3
#define SETUP_TIMEOUT_MS	120000

/* What the writer and the ping-pong share (MAP_SHARED). */
struct share {
	atomic_long ready;	/* the writer has set up */
	atomic_long started;	/* writes posted */
	atomic_long done;	/* writes completed */
	atomic_long checked;	/* writes whose every byte was checked */
	atomic_long bad;	/* the first wrong byte of a write, or -1 */
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Block on @ch until @cq holds the completion of @wr_id: 0 if it is good. */
static int share_wait(struct ibv_comp_channel *ch, struct ibv_cq *cq,
		      long wr_id)
{
	struct ibv_cq *ev_cq;
	struct ibv_wc wc;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n)
			return n < 0 || wc.status != IBV_WC_SUCCESS ||
			       wc.wr_id != (uint64_t)wr_id;
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			return -1;
		ibv_ack_cq_events(ev_cq, 1);
		if (ibv_req_notify_cq(cq, 0))
			return -1;
	}
}

/*
 * The first byte of @dst (@len bytes of message, then TAIL canary bytes)
 * that is not the memfd @src's, period after period, or -1.
 */
static long check_copy(const uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t off, n, j;

	for (off = 0; off < len; off += SRC_PERIOD) {
		n = len - off < SRC_PERIOD ? len - off : SRC_PERIOD;
		if (memcmp(dst + off, src, n))
			for (j = 0; j < n; j++)
				if (dst[off + j] != src[j])
					return (long)(off + j);
	}
	for (off = len; off < len + TAIL; off++)
		if (dst[off] != CANARY)
			return (long)off;
	return -1;
}

/*
 * The writer's process: a pair of its own, a window source and a real
 * destination of SHARE_LEN; a write each time @go delivers a byte, with a
 * new pattern, waited for on a completion channel (it sleeps meanwhile),
 * then checked byte by byte. Exit codes say which step failed.
 */
static int share_writer(struct share *sh, int go)
{
	struct swr_qp_opts o = { 0 };
	size_t dst_len = SHARE_LEN + TAIL;
	struct ibv_mr *win_mr, *dst_mr;
	uint8_t *src, *win, *dst;
	struct swr_pair p;
	long i, bad;
	int fd;
	char c;

	if (swr_pair_open(&p))
		return 10;
	o.channel = ibv_create_comp_channel(p.ctx);
	if (!o.channel || swr_pair_create(&p, &o))
		return 11;
	fd = memfd_create("swroce_share", 0);
	if (fd < 0 || ftruncate(fd, SRC_PERIOD))
		return 12;
	src = mmap(NULL, SRC_PERIOD, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	win = map_window(fd, SHARE_LEN);
	dst = mmap(NULL, dst_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (src == MAP_FAILED || !win || dst == MAP_FAILED)
		return 13;
	win_mr = ibv_reg_mr(p.pd, win, SHARE_LEN, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(p.pd, dst, dst_len, SWR_ALL_ACCESS);
	if (!win_mr || !dst_mr || ibv_req_notify_cq(p.c.scq, 0))
		return 14;
	memset(dst + SHARE_LEN, CANARY, TAIL);
	atomic_store(&sh->ready, 1);

	for (i = 1; read(go, &c, 1) == 1; i++) {
		swr_fill(src, SRC_PERIOD, (uint8_t)i);
		atomic_store(&sh->started, i);
		if (swr_post_send1(p.c.qp, IBV_WR_RDMA_WRITE, i, win, SHARE_LEN,
				   win_mr->lkey, (uintptr_t)dst, dst_mr->rkey,
				   IBV_SEND_SIGNALED))
			return 15;
		if (share_wait(o.channel, p.c.scq, i))
			return 16;
		atomic_store(&sh->done, i);
		bad = check_copy(dst, src, SHARE_LEN);
		if (bad >= 0) {
			atomic_store(&sh->bad, bad);
			return 17;
		}
		atomic_store(&sh->checked, i);
	}
	return 0;
}

/*
 * RC write ping-pong between two QPs of one process, as ib_write_lat
 * does between two: the client writes a sequence number into the
 * server's inbox, the server writes it back into the client's; each side
 * spins on its inbox. No completions are asked for.
 */
struct pingpong {
	struct swr_pair p;
	uint8_t *buf;	/* inboxes at 0 and 64, outboxes at 128 and 192 */
	struct ibv_mr *mr;
	uint64_t seq;
	long torn;	/* reads that caught a write in progress */
};

/*
 * True if every byte of @v is the byte of @a or of @b in its place: what a
 * reader may see while @b is being written over @a. An RDMA WRITE is not
 * a single-copy atomic store (nor is the kernel's copy into the page: under
 * TCG a `rep movsb` is emulated byte by byte, and the other vCPU can read
 * in between, 0x..00ff to 0x..0100 showing as 0x..0000).
 */
static bool bytes_of_either(uint64_t v, uint64_t a, uint64_t b)
{
	int i;

	for (i = 0; i < 64; i += 8)
		if (((v ^ a) >> i & 0xff) && ((v ^ b) >> i & 0xff))
			return false;
	return true;
}

/*
 * Wait for @k in @box: -1 on a value that is neither @k, nor its
 * predecessor, nor a mix of their bytes (a write in progress), or on a
 * timeout.
 */
static int pingpong_spin(const volatile uint64_t *box, uint64_t k,
			 long *torn)
{
	uint64_t end = swr_now_ms() + SWR_CQ_TIMEOUT_MS;
	unsigned long n;
	uint64_t v;

	for (n = 1; (v = *box) != k; n++) {
		/* k - 1 itself is made of its own bytes */
		if (!bytes_of_either(v, k - 1, k)) {
			fprintf(stderr, "# inbox holds %#llx waiting for %#llx\n",
				(unsigned long long)v, (unsigned long long)k);
			return -1;
		}
		if (v != k - 1)
			(*torn)++;
		if (!(n % 4096) && swr_now_ms() > end) {
			fprintf(stderr, "# inbox still %#llx after %d ms waiting for %#llx\n",
				(unsigned long long)v, SWR_CQ_TIMEOUT_MS,
				(unsigned long long)k);
			return -1;
		}
	}
	return 0;
}

/* One RDMA WRITE of @k from @qp's outbox at @out into the inbox at @in. */
static int pingpong_leg(struct pingpong *pp, struct ibv_qp *qp, size_t out,
			size_t in, uint64_t k)
{
	int err;

	memcpy(pp->buf + out, &k, sizeof(k));
	err = swr_post_send1(qp, IBV_WR_RDMA_WRITE, k, pp->buf + out,
			     sizeof(k), pp->mr->lkey,
			     (uintptr_t)pp->buf + in, pp->mr->rkey, 0);
	if (err) {
		fprintf(stderr, "# post_send of %#llx: %s\n",
			(unsigned long long)k, strerror(err));
		return -1;
	}
	return pingpong_spin((volatile uint64_t *)(pp->buf + in), k, &pp->torn);
}

static int pingpong_round(struct pingpong *pp)
{
	uint64_t k = ++pp->seq;

	if (pingpong_leg(pp, pp->p.c.qp, 128, 64, k))
		return -1;
	return pingpong_leg(pp, pp->p.s.qp, 192, 0, k);
}

/*
 * Round trips for WINDOW_MS, or until *@until is no longer @val. Return
 * the mean round trip in microseconds, 0 when the window ended before
 * half of WINDOW_MS (too short to count), or -1 when a round failed.
 */
static double pingpong_window(struct pingpong *pp, atomic_long *until,
			      long val)
{
	uint64_t t0 = now_us(), t;
	long n = 0;

	do {
		if (pingpong_round(pp))
			return -1;
		n++;
		t = now_us();
	} while (t - t0 < WINDOW_MS * 1000 &&
		 (!until || atomic_load(until) == val));
	if (t - t0 < WINDOW_MS * 500)
		return 0;
	return (double)(t - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

FIXTURE(share) {
	char idle_saved[32];
	struct share *sh;
	pid_t writer;
	int go;		/* the writer's pipe; closing it ends it */
	struct pingpong pp;
};

FIXTURE_SETUP(share)
{
	int pfd[2], ret;

	self->writer = -1;
	self->go = -1;
	if (mem_available() < SHARE_LEN + TAIL + MEM_SLACK)
		SKIP(return, "%zu MiB available, %zu MiB needed (vm.sh -r)",
		     mem_available() >> 20,
		     (size_t)(SHARE_LEN + TAIL + MEM_SLACK) >> 20);
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	atomic_store(&self->sh->bad, -1);
	ASSERT_EQ(0, pipe(pfd));
	/* Before this process opens the device: nothing of it is shared. */
	self->writer = fork();
	ASSERT_LE(0, self->writer);
	if (!self->writer) {
		close(pfd[1]);
		_exit(share_writer(self->sh, pfd[0]));
	}
	close(pfd[0]);
	self->go = pfd[1];

	ret = swr_pair_open(&self->pp.p);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_pair_create(&self->pp.p, NULL);
	ASSERT_EQ(0, ret) TH_LOG("creating/connecting QPs: %s", strerror(-ret));
	self->pp.buf = calloc(1, PAGE);
	ASSERT_NE(NULL, self->pp.buf);
	self->pp.mr = ibv_reg_mr(self->pp.p.pd, self->pp.buf, PAGE,
				 SWR_ALL_ACCESS);
	ASSERT_NE(NULL, self->pp.mr);
	ASSERT_EQ(0, swr_ibdev_attr(IDLE_ATTR, self->idle_saved,
				    sizeof(self->idle_saved)));
	/* Doorbell mode: the poller sleeps whenever it has nothing to do. */
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "0"));
}

FIXTURE_TEARDOWN(share)
{
	int status;

	if (self->go >= 0)
		close(self->go);
	if (self->writer > 0)
		waitpid(self->writer, &status, 0);
	if (self->pp.mr)
		ibv_dereg_mr(self->pp.mr);
	free(self->pp.buf);
	swr_pair_close(&self->pp.p);
	if (self->idle_saved[0])
		swr_ibdev_write(IDLE_ATTR, self->idle_saved);
}

/* Wait until *@v reaches @want; false if the writer died or time ran out. */
static bool share_await(FIXTURE_DATA(share) *self, atomic_long *v, long want)
{
	uint64_t end = swr_now_ms() + SETUP_TIMEOUT_MS;
	int status;

	while (atomic_load(v) < want) {
		if (waitpid(self->writer, &status, WNOHANG) ||
		    swr_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

TEST_F_TIMEOUT(share, writer_does_not_stall_latency, 900)
{
	double idle[SHARE_REPS * IDLE_WINDOWS], busy[MAX_BUSY], w, mi, mb;
	struct share *sh = self->sh;
	int ni = 0, nb = 0, k;
	long rep;

	ASSERT_TRUE(share_await(self, &sh->ready, 1))
		TH_LOG("the writer failed to set up");
	for (rep = 1; rep <= SHARE_REPS; rep++) {
		for (k = 0; k < IDLE_WINDOWS; k++) {
			w = pingpong_window(&self->pp, NULL, 0);
			ASSERT_LT(0, w) TH_LOG("ping-pong failed (idle)");
			idle[ni++] = w;
		}
		ASSERT_EQ(1, write(self->go, "g", 1));
		ASSERT_TRUE(share_await(self, &sh->started, rep));
		while (atomic_load(&sh->done) < rep) {
			w = pingpong_window(&self->pp, &sh->done, rep - 1);
			ASSERT_LE(0, w) TH_LOG("ping-pong failed (loaded)");
			if (w > 0 && nb < MAX_BUSY)
				busy[nb++] = w;
		}
		ASSERT_TRUE(share_await(self, &sh->checked, rep))
			TH_LOG("write %ld: byte %ld differs, or the writer failed",
			       rep, atomic_load(&sh->bad));
	}
	mi = median(idle, ni);
	mb = median(busy, nb);
	ksft_print_msg("ping-pong round trip: %.1f us alone (median of %d windows), %.1f us during 1 GiB writes (median of %d); %ld reads caught a write in progress\n",
		       mi, ni, mb, nb, self->pp.torn);
	ASSERT_LE(MIN_BUSY, nb);
	EXPECT_GE(SHARE_FACTOR * mi, mb);
}

TEST_HARNESS_MAIN
