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
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
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

TEST_HARNESS_MAIN
