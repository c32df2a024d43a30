// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registration through libibverbs: sizes and alignments, the
 * access-flag rules, keys (distinct, rotating, never 0), many MRs at once,
 * rereg of translation / PD / access, PD use counts, RLIMIT_MEMLOCK for an
 * unprivileged process, and memory window allocation. What the engine does
 * with MRs (lookup, copy, bind) is tested with the data path.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_test.h"

#define PAGE 4096UL

FIXTURE(mr) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *buf;		/* 4 pages, page-aligned */
};

FIXTURE_SETUP(mr)
{
	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", swr_test_dev());
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	memset(self->buf, 0x5a, 4 * PAGE);
}

FIXTURE_TEARDOWN(mr)
{
	if (self->buf && self->buf != MAP_FAILED)
		munmap(self->buf, 4 * PAGE);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

#define LW IBV_ACCESS_LOCAL_WRITE

/* Register, check what the verb reports, deregister. */
static int reg_check(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);

	if (!mr)
		return -errno;
	if (mr->addr != addr || mr->length != len || mr->pd != pd ||
	    mr->lkey != mr->rkey || mr->lkey >> 8 == 0) {
		ibv_dereg_mr(mr);
		return -EPROTO;
	}
	return ibv_dereg_mr(mr) ? -EIO : 0;
}

TEST_F(mr, sizes_and_alignment)
{
	EXPECT_EQ(0, reg_check(self->pd, self->buf, 1, LW));
	EXPECT_EQ(0, reg_check(self->pd, self->buf + 4095, 1, LW));
	EXPECT_EQ(0, reg_check(self->pd, self->buf, PAGE, LW));
	EXPECT_EQ(0, reg_check(self->pd, self->buf + 1, PAGE, LW));
	/* two bytes straddling a page boundary */
	EXPECT_EQ(0, reg_check(self->pd, self->buf + PAGE - 1, 2, LW));
	EXPECT_EQ(0, reg_check(self->pd, self->buf + 123, 3 * PAGE + 7, 0));
	EXPECT_EQ(0, reg_check(self->pd, self->buf, 4 * PAGE, LW));
}

TEST_F(mr, large_64mib)
{
	size_t len = 64UL << 20;
	uint8_t *big;

	big = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, big);
	EXPECT_EQ(0, reg_check(self->pd, big, len,
			       LW | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ));
	munmap(big, len);
}

/* ib_umem_get() refuses a region without pages. */
TEST_F(mr, zero_length)
{
	EXPECT_EQ(-EINVAL, reg_check(self->pd, self->buf, 0, LW));
}

TEST_F(mr, iova)
{
	struct ibv_mr *mr;

	/* Any iova with the address's offset in the page is fine... */
	mr = ibv_reg_mr_iova(self->pd, self->buf + 8, PAGE, 0x10008, LW);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	/* ...one with another offset is not (the core's rule)... */
	mr = ibv_reg_mr_iova(self->pd, self->buf, PAGE, 0x10008, LW);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);
	/* ...and iova + length must not wrap around. */
	mr = ibv_reg_mr_iova(self->pd, self->buf, 2 * PAGE,
			     UINT64_MAX & ~(PAGE - 1), LW);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * Every combination of the five classic flags: remote write or remote
 * atomic without local write is refused (IBTA C10-? / ib_check_mr_access).
 */
TEST_F(mr, access_flags)
{
	static const int flags[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND,
	};
	int i, b, access, want;

	for (i = 0; i < 32; i++) {
		access = 0;
		for (b = 0; b < 5; b++)
			if (i & (1 << b))
				access |= flags[b];
		want = (access & (IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_ATOMIC)) &&
		       !(access & LW) ? -EINVAL : 0;
		EXPECT_EQ(want, reg_check(self->pd, self->buf, PAGE, access))
			TH_LOG("access %#x", access);
	}
	/* Optional flags are hints: accepted. */
	EXPECT_EQ(0, reg_check(self->pd, self->buf, PAGE,
			       LW | IBV_ACCESS_RELAXED_ORDERING));
	/* On-demand paging (swroce_odp.c tests what it does). */
	EXPECT_EQ(0, reg_check(self->pd, self->buf, PAGE,
			       LW | IBV_ACCESS_ON_DEMAND));
}

/*
 * Keys are distinct, never 0, lkey == rkey, and an index freed is not
 * handed out again within 256 allocations (its key byte is random, so
 * only the index tells keys apart for sure: see keys_random).
 */
TEST_F(mr, keys_rotate)
{
	enum { N = 1000 };
	uint32_t *keys = calloc(N, sizeof(*keys));
	int i, j;

	ASSERT_NE(NULL, keys);
	for (i = 0; i < N; i++) {
		struct ibv_mr *mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW);

		ASSERT_NE(NULL, mr);
		keys[i] = mr->lkey;
		EXPECT_EQ(mr->lkey, mr->rkey);
		EXPECT_NE(0, mr->lkey >> 8);
		ASSERT_EQ(0, ibv_dereg_mr(mr));
	}
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N && j < i + 256; j++) {
			EXPECT_NE(keys[i], keys[j]) TH_LOG("%d %d", i, j);
			/* Cyclic allocation: no index comes back this soon. */
			EXPECT_NE(keys[i] >> 8, keys[j] >> 8);
		}
	free(keys);
}

/*
 * The key byte is random, not a counter: among 256 consecutive keys the
 * byte-to-byte steps take many values. A counter (any fixed stride) gives
 * one; 256 random bytes give about 160, and fewer than 32 has a
 * probability below 1e-60.
 */
TEST_F(mr, keys_random)
{
	enum { N = 257 };
	uint32_t keys[N];
	bool seen[256] = { false };
	int i, steps = 0;

	for (i = 0; i < N; i++) {
		struct ibv_mr *mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW);

		ASSERT_NE(NULL, mr);
		keys[i] = mr->lkey;
		ASSERT_EQ(0, ibv_dereg_mr(mr));
	}
	for (i = 1; i < N; i++) {
		uint8_t step = (keys[i] - keys[i - 1]) & 0xff;

		steps += !seen[step];
		seen[step] = true;
	}
	EXPECT_LE(32, steps) TH_LOG("%d distinct key byte steps", steps);
}

TEST_F(mr, many_at_once)
{
	enum { N = 10000 };
	struct ibv_mr **mrs = calloc(N, sizeof(*mrs));
	int i;

	ASSERT_NE(NULL, mrs);
	for (i = 0; i < N; i++) {
		mrs[i] = ibv_reg_mr(self->pd, self->buf + (i % 4) * PAGE, PAGE,
				    LW);
		ASSERT_NE(NULL, mrs[i]) TH_LOG("MR %d: errno %d", i, errno);
	}
	for (i = 0; i < N; i += 2)
		ASSERT_EQ(0, ibv_dereg_mr(mrs[i]));
	for (i = N - 1; i > 0; i -= 2)
		ASSERT_EQ(0, ibv_dereg_mr(mrs[i]));
	free(mrs);
}

TEST_F(mr, rereg_translation)
{
	struct ibv_mr *mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW);
	uint32_t old_key;

	ASSERT_NE(NULL, mr);
	old_key = mr->lkey;
	ASSERT_EQ(0, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				  self->buf + PAGE + 5, 2 * PAGE, 0));
	EXPECT_EQ(self->buf + PAGE + 5, mr->addr);
	EXPECT_EQ(2 * PAGE, mr->length);
	/* A new translation is a new MR: new keys. */
	EXPECT_NE(old_key, mr->lkey);
	EXPECT_EQ(mr->lkey, mr->rkey);
	/* Translation and access together. */
	ASSERT_EQ(0, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				  IBV_REREG_MR_CHANGE_ACCESS, NULL, self->buf,
				  PAGE, LW | IBV_ACCESS_REMOTE_READ));
	EXPECT_EQ(self->buf, mr->addr);
	EXPECT_EQ(PAGE, mr->length);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
}

TEST_F(mr, rereg_pd)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(self->ctx);
	struct ibv_mr *mr;
	uint32_t key;

	ASSERT_NE(NULL, pd2);
	mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW);
	ASSERT_NE(NULL, mr);
	key = mr->lkey;
	ASSERT_EQ(0, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0));
	EXPECT_EQ(pd2, mr->pd);
	EXPECT_EQ(key, mr->lkey);	/* in place: same keys */
	/* The MR now counts against pd2, not the old PD. */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd2));
	ASSERT_EQ(0, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, self->pd, NULL,
				  0, 0));
	EXPECT_EQ(self->pd, mr->pd);
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
}

TEST_F(mr, rereg_access)
{
	struct ibv_mr *mr, *ro;
	uint32_t key;

	mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW);
	ASSERT_NE(NULL, mr);
	key = mr->lkey;
	ASSERT_EQ(0, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				  0, LW | IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(key, mr->rkey);	/* in place: same keys */
	/* The core's access rules apply to rereg too. */
	EXPECT_EQ(IBV_REREG_MR_ERR_CMD,
		  ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			       IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EINVAL, errno);
	/* No flags at all is refused by the kernel. */
	EXPECT_NE(0, ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0));
	EXPECT_EQ(0, ibv_dereg_mr(mr));

	/* Pages pinned read-only cannot become writable in place... */
	ro = ibv_reg_mr(self->pd, self->buf, PAGE, 0);
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(IBV_REREG_MR_ERR_CMD,
		  ibv_rereg_mr(ro, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			       LW));
	EXPECT_EQ(EACCES, errno);
	/* ...but can with a new translation. */
	EXPECT_EQ(0, ibv_rereg_mr(ro, IBV_REREG_MR_CHANGE_ACCESS |
				  IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				  self->buf, PAGE, LW));
	EXPECT_EQ(0, ibv_dereg_mr(ro));
}

TEST_F(mr, pd_in_use)
{
	struct ibv_mr *mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW);

	ASSERT_NE(NULL, mr);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
}

/* A PD handle that no longer exists: the kernel refuses it. */
TEST_F(mr, freed_pd)
{
	struct ibv_pd *pd = ibv_alloc_pd(self->ctx);
	struct ibv_pd stale;
	struct ibv_mr *mr;

	ASSERT_NE(NULL, pd);
	stale = *pd;
	ASSERT_EQ(0, ibv_dealloc_pd(pd));
	mr = ibv_reg_mr(&stale, self->buf, PAGE, LW);
	EXPECT_EQ(NULL, mr);
	EXPECT_NE(0, errno);
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * Exit status of the child: 0 if pinning is charged against
 * RLIMIT_MEMLOCK: 16 KiB fits a 64 KiB limit, 1 MiB does not, and two
 * 48 KiB regions do not fit together.
 */
static int memlock_child(void)
{
	struct rlimit rl = { 64 << 10, 64 << 10 };
	struct ibv_context *ctx;
	struct ibv_mr *a, *b;
	struct ibv_pd *pd;
	uint8_t *buf;

	if (swr_drop_cap(CAP_IPC_LOCK) || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ctx = swr_open_test_dev();
	if (buf == MAP_FAILED || !ctx)
		return 11;
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return 12;
	a = ibv_reg_mr(pd, buf, 16 << 10, LW);
	if (!a)
		return 13;
	ibv_dereg_mr(a);
	a = ibv_reg_mr(pd, buf, 1 << 20, LW);
	if (a || errno != ENOMEM)
		return 14;
	a = ibv_reg_mr(pd, buf, 48 << 10, LW);
	if (!a)
		return 15;
	b = ibv_reg_mr(pd, buf + (512 << 10), 48 << 10, LW);
	if (b || errno != ENOMEM)
		return 16;
	ibv_dereg_mr(a);
	/* The charge is returned: it fits again. */
	b = ibv_reg_mr(pd, buf + (512 << 10), 48 << 10, LW);
	if (!b)
		return 17;
	ibv_dereg_mr(b);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

TEST_F(mr, rlimit_memlock)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(memlock_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(mr, mw_alloc)
{
	struct ibv_mw *mw1, *mw2, *bad;
	struct ibv_mr *mr;

	mr = ibv_reg_mr(self->pd, self->buf, PAGE, LW | IBV_ACCESS_MW_BIND);
	ASSERT_NE(NULL, mr);
	mw1 = ibv_alloc_mw(self->pd, IBV_MW_TYPE_1);
	ASSERT_NE(NULL, mw1) TH_LOG("errno %d", errno);
	mw2 = ibv_alloc_mw(self->pd, IBV_MW_TYPE_2);
	ASSERT_NE(NULL, mw2) TH_LOG("errno %d", errno);
	EXPECT_EQ(IBV_MW_TYPE_1, mw1->type);
	EXPECT_EQ(IBV_MW_TYPE_2, mw2->type);
	/* MRs and MWs share one key space. */
	EXPECT_NE(0, mw1->rkey >> 8);
	EXPECT_NE(mw1->rkey >> 8, mw2->rkey >> 8);
	EXPECT_NE(mr->rkey >> 8, mw1->rkey >> 8);
	EXPECT_NE(mr->rkey >> 8, mw2->rkey >> 8);
	/* Windows hold their PD. */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	/* The core knows types 1 and 2 only. */
	bad = ibv_alloc_mw(self->pd, 3);
	EXPECT_EQ(NULL, bad);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_dealloc_mw(mw1));
	EXPECT_EQ(0, ibv_dealloc_mw(mw2));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
}

TEST_F(mr, mw_churn)
{
	enum { N = 1000 };
	struct ibv_mw **mws = calloc(N, sizeof(*mws));
	int i;

	ASSERT_NE(NULL, mws);
	for (i = 0; i < N; i++) {
		mws[i] = ibv_alloc_mw(self->pd, i % 2 ? IBV_MW_TYPE_2 :
							IBV_MW_TYPE_1);
		ASSERT_NE(NULL, mws[i]);
	}
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, ibv_dealloc_mw(mws[i]));
	free(mws);
}

/* Closing a context with MRs and MWs still allocated cleans them up. */
TEST(close_with_objects)
{
	struct ibv_context *ctx = swr_open_test_dev();
	static uint8_t buf[2 * 4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd;
	int i;

	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	for (i = 0; i < 100; i++) {
		ASSERT_NE(NULL, ibv_reg_mr(pd, buf, sizeof(buf),
					   LW | IBV_ACCESS_MW_BIND));
		ASSERT_NE(NULL, ibv_alloc_mw(pd, i % 2 + 1));
	}
	EXPECT_EQ(0, ibv_close_device(ctx));
}

TEST_HARNESS_MAIN
