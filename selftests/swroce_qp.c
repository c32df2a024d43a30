// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs doing their work: every send opcode on RC, the UC and UD
 * transports, memory windows, fences, inline data, signaled and unsignaled
 * work requests, solicited and ordinary completion events, and messages of
 * 1 byte to 16 MiB. Two QPs of the device under test talk to each other
 * through its RoCEv2 GID (swr_qp_test.h). Every transfer is checked byte by
 * byte, including the bytes just outside it, which must stay untouched.
 * The error paths are in swroce_qp_errors.c.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		(256 * 1024)
#define CANARY		0xa5
#define MIB16		(16 * 1024 * 1024)

FIXTURE(qp) {
	struct swr_pair p;
	struct swr_bufs b;	/* the client's and the server's memory */
	bool gone_added;	/* rc_dest_gid_removed's address is on */
};

FIXTURE_SETUP(qp)
{
	int ret = swr_pair_open(&self->p);

	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_bufs_init(&self->b, self->p.pd, BUFSZ,
			    SWR_ALL_ACCESS | IBV_ACCESS_MW_BIND);
	ASSERT_EQ(0, ret) TH_LOG("buffers: %s", strerror(-ret));
}

static int gone_addr(const char *verb);

FIXTURE_TEARDOWN(qp)
{
	if (self->gone_added)
		gone_addr("del");
	swr_pair_destroy_qps(&self->p);
	swr_bufs_fini(&self->b);
	swr_pair_close(&self->p);
}

/* The buffer holds the pattern of @seed in [off, off + len), @CANARY around. */
static void check_region(struct __test_metadata *_metadata, const uint8_t *buf,
			 size_t bufsz, size_t off, size_t len, uint8_t seed)
{
	long bad;

	bad = swr_check(buf + off, len, seed);
	EXPECT_EQ(-1, bad) TH_LOG("data differs at byte %ld of %zu", bad, len);
	bad = swr_check_byte(buf, off, CANARY);
	EXPECT_EQ(-1, bad) TH_LOG("byte %ld before the data was written", bad);
	bad = swr_check_byte(buf + off + len, bufsz - off - len, CANARY);
	EXPECT_EQ(-1, bad) TH_LOG("byte %ld after the data was written", bad);
}

static const uint32_t sizes[] = {
	0, 1, 2, 7, 8, 63, 64, 65, 1023, 1024, 1025, 2048, 4095, 4096, 4097,
	12345, 65536, BUFSZ - 64,
};

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* SEND (@imm: SEND_WITH_IMM) of each size, one receive per message. */
static void send_sizes(struct __test_metadata *_metadata,
		       FIXTURE_DATA(qp) *self, bool imm)
{
	struct swr_pair *p = &self->p;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < NSIZES; i++) {
		uint32_t len = sizes[i];
		uint8_t seed = (uint8_t)(i * 17 + imm);

		memset(self->b.sbuf, CANARY, BUFSZ);
		swr_fill(self->b.cbuf + 3, len, seed);
		/* The receive is larger than the message: byte_len tells. */
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1000 + i, self->b.sbuf + 5,
					    BUFSZ - 5, self->b.smr->lkey));
		memset(&wr, 0, sizeof(wr));
		sge.addr = (uintptr_t)self->b.cbuf + 3;
		sge.length = len;
		sge.lkey = self->b.cmr->lkey;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = len ? 1 : 0;
		wr.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = htonl(0xc0de0000 + i);
		ASSERT_EQ(0, ibv_post_send(p->c.qp, &wr, &bad));

		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_SEND, wc.opcode);
		EXPECT_EQ(p->c.qp->qp_num, wc.qp_num);
		swr_t_wait_wc(_metadata, p->s.rcq, 1000 + i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RECV, wc.opcode);
		EXPECT_EQ(len, wc.byte_len) TH_LOG("size %u", len);
		EXPECT_EQ(p->s.qp->qp_num, wc.qp_num);
		if (imm) {
			EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM);
			EXPECT_EQ(htonl(0xc0de0000 + i), wc.imm_data);
		} else {
			EXPECT_FALSE(wc.wc_flags & IBV_WC_WITH_IMM);
		}
		check_region(_metadata, self->b.sbuf, BUFSZ, 5, len, seed);
		if (_metadata->exit_code)
			TH_LOG("size %u failed", len);
		ASSERT_EQ(0, _metadata->exit_code);
	}
}

TEST_F(qp, rc_send)
{
	swr_t_create(_metadata, &self->p, NULL);
	send_sizes(_metadata, self, false);
}

TEST_F(qp, rc_send_with_imm)
{
	swr_t_create(_metadata, &self->p, NULL);
	send_sizes(_metadata, self, true);
}

/* Three gather entries into two scatter entries, split mid-entry. */
TEST_F(qp, rc_send_sge_lists)
{
	static const struct { uint32_t off, len; } g[] = {
		{ 0, 100 }, { 1000, 1 }, { 5000, 3000 },
	}, s[] = { { 16, 1500 }, { 8192, 4000 } };
	struct swr_pair *p = &self->p;
	struct ibv_sge gs[3], ss[2];
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	uint8_t expect[3101], got[3101];
	struct ibv_wc wc;
	uint32_t n = 0, i;

	swr_t_create(_metadata, p, NULL);
	swr_fill(self->b.cbuf, BUFSZ, 0x42);
	memset(self->b.sbuf, CANARY, BUFSZ);
	for (i = 0; i < 3; i++) {
		gs[i].addr = (uintptr_t)self->b.cbuf + g[i].off;
		gs[i].length = g[i].len;
		gs[i].lkey = self->b.cmr->lkey;
		memcpy(expect + n, self->b.cbuf + g[i].off, g[i].len);
		n += g[i].len;
	}
	for (i = 0; i < 2; i++) {
		ss[i].addr = (uintptr_t)self->b.sbuf + s[i].off;
		ss[i].length = s[i].len;
		ss[i].lkey = self->b.smr->lkey;
	}
	rwr.wr_id = 7;
	rwr.sg_list = ss;
	rwr.num_sge = 2;
	ASSERT_EQ(0, ibv_post_recv(p->s.qp, &rwr, &rbad));
	wr.wr_id = 8;
	wr.sg_list = gs;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ASSERT_EQ(0, ibv_post_send(p->c.qp, &wr, &bad));
	swr_t_wait_wc(_metadata, p->c.scq, 8, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 7, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(n, wc.byte_len);
	memcpy(got, self->b.sbuf + 16, 1500);
	memcpy(got + 1500, self->b.sbuf + 8192, n - 1500);
	EXPECT_EQ(0, memcmp(expect, got, n));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 16, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 16 + 1500, 8192 - 1516,
				     CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 8192 + n - 1500,
				     BUFSZ - 8192 - (n - 1500), CANARY));
}

/* RDMA WRITE at odd offsets; a posted receive must stay unconsumed. */
TEST_F(qp, rc_rdma_write)
{
	struct swr_pair *p = &self->p;
	struct ibv_wc wc;
	unsigned int i;

	swr_t_create(_metadata, p, NULL);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 4242, self->b.sbuf, 64,
				    self->b.smr->lkey));
	for (i = 0; i < NSIZES; i++) {
		uint32_t len = sizes[i] > BUFSZ - 70 ? BUFSZ - 70 : sizes[i];
		uint8_t seed = (uint8_t)(i * 29 + 1);

		memset(self->b.sbuf, CANARY, BUFSZ);
		swr_fill(self->b.cbuf + 5, len, seed);
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, i,
					    self->b.cbuf + 5, len,
					    self->b.cmr->lkey,
					    (uintptr_t)self->b.sbuf + 67,
					    self->b.smr->rkey,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
		check_region(_metadata, self->b.sbuf, BUFSZ, 67, len, seed);
		ASSERT_EQ(0, _metadata->exit_code) TH_LOG("size %u", len);
	}
	/* No receive was consumed: the next SEND gets the one posted. */
	EXPECT_EQ(0, swr_cq_count(p->s.rcq, 50));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 99, self->b.cbuf, 4,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 99, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 4242, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(4, wc.byte_len);
}

/* An address of the benchmarking range for rc_dest_gid_removed. */
#define GONE_ADDR	"198.18.77.9"

/* Run "ip -4 addr @verb GONE_ADDR/32 dev <the device's netdev>". */
static int gone_addr(const char *verb)
{
	char ndev[64], cmd[256];

	if (swr_test_netdev(ndev, sizeof(ndev)))
		return -1;
	snprintf(cmd, sizeof(cmd), "ip -4 addr %s " GONE_ADDR "/32 dev %s%s",
		 verb, ndev, strcmp(verb, "del") ? "" : " 2>/dev/null");
	return system(cmd);
}

/*
 * Wait up to 5 s until @gid is (@present) in the table; true when it came
 * to that, with its index in @index when present.
 */
static bool gone_gid_wait(struct ibv_context *ctx, const union ibv_gid *gid,
			  bool present, int *index)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i, tries, found;

	if (ibv_query_port(ctx, 1, &pa))
		return false;
	for (tries = 0; tries < 500; tries++) {
		found = -1;
		for (i = 0; i < pa.gid_tbl_len && found < 0; i++)
			if (!ibv_query_gid_ex(ctx, 1, i, &e, 0) &&
			    e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
			    !memcmp(&e.gid, gid, sizeof(*gid)))
				found = i;
		if ((found >= 0) == present) {
			if (index)
				*index = found;
			return true;
		}
		usleep(10000);
	}
	return false;
}

/*
 * A WRITE to one of the device's own GIDs is delivered locally; once the
 * address behind that GID is removed, the next WRITE of the same QP must
 * go to the wire (where nobody answers it) and not be delivered locally
 * from an answer the requester kept from before the GID table changed.
 */
TEST_F(qp, rc_dest_gid_removed)
{
	struct swr_qp_opts o = { .timeout = 8 };	/* ~1 ms */
	struct swr_pair *p = &self->p;
	union ibv_gid own = p->gid, gone = { 0 };
	int own_index = p->gid_index, gone_index;
	struct ibv_wc wc;

	gone.raw[10] = 0xff;
	gone.raw[11] = 0xff;
	ASSERT_EQ(1, inet_pton(AF_INET, GONE_ADDR, &gone.raw[12]));
	gone_addr("del");
	ASSERT_EQ(0, gone_addr("add"));
	self->gone_added = true;
	ASSERT_TRUE(gone_gid_wait(p->ctx, &gone, true, &gone_index))
		TH_LOG("no GID for " GONE_ADDR " after adding it");

	/* The client at the usual GID, the server at the new one. */
	p->o = o;
	ASSERT_EQ(0, swr_end_create(p, &p->c, NULL));
	ASSERT_EQ(0, swr_end_create(p, &p->s, NULL));
	p->gid = gone;
	ASSERT_EQ(0, swr_qp_connect(p, p->c.qp, p->s.qp->qp_num));
	p->gid = own;
	p->gid_index = gone_index;
	ASSERT_EQ(0, swr_qp_connect(p, p->s.qp, p->c.qp->qp_num));
	p->gid_index = own_index;

	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 4096, 71);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 1,
				    self->b.cbuf, 4096, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf, self->b.smr->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_SUCCESS, NULL);
	check_region(_metadata, self->b.sbuf, BUFSZ, 0, 4096, 71);

	ASSERT_EQ(0, gone_addr("del"));
	self->gone_added = false;
	ASSERT_TRUE(gone_gid_wait(p->ctx, &gone, false, NULL))
		TH_LOG("the GID of " GONE_ADDR " stayed after removing it");
	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 4096, 72);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 2,
				    self->b.cbuf, 4096, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf, self->b.smr->rkey,
				    IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait(p->c.scq, &wc));
	EXPECT_EQ(2, wc.wr_id);
	EXPECT_NE(IBV_WC_SUCCESS, wc.status)
		TH_LOG("the WRITE to a GID the device no longer has completed");
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY))
		TH_LOG("the WRITE was delivered locally after its GID left");
}

TEST_F(qp, rc_rdma_write_with_imm)
{
	struct swr_pair *p = &self->p;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	unsigned int i;

	swr_t_create(_metadata, p, NULL);
	for (i = 0; i < NSIZES; i++) {
		uint32_t len = sizes[i] > BUFSZ / 2 ? BUFSZ / 2 : sizes[i];
		uint8_t seed = (uint8_t)(i * 31 + 2);

		memset(self->b.sbuf, CANARY, BUFSZ);
		swr_fill(self->b.cbuf, len, seed);
		/* The receive's buffer must not be written: data goes to raddr. */
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 500 + i,
					    self->b.sbuf + BUFSZ / 2 + 64, 64,
					    self->b.smr->lkey));
		sge.addr = (uintptr_t)self->b.cbuf;
		sge.length = len;
		sge.lkey = self->b.cmr->lkey;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = len ? 1 : 0;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = htonl(0x1000 + i);
		wr.wr.rdma.remote_addr = (uintptr_t)self->b.sbuf + 1;
		wr.wr.rdma.rkey = self->b.smr->rkey;
		ASSERT_EQ(0, ibv_post_send(p->c.qp, &wr, &bad));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
		swr_t_wait_wc(_metadata, p->s.rcq, 500 + i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc.opcode);
		EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM);
		EXPECT_EQ(htonl(0x1000 + i), wc.imm_data);
		EXPECT_EQ(len, wc.byte_len);
		check_region(_metadata, self->b.sbuf, BUFSZ, 1, len, seed);
		ASSERT_EQ(0, _metadata->exit_code) TH_LOG("size %u", len);
	}
}

TEST_F(qp, rc_rdma_read)
{
	struct swr_pair *p = &self->p;
	struct ibv_wc wc;
	unsigned int i;

	swr_t_create(_metadata, p, NULL);
	for (i = 0; i < NSIZES; i++) {
		uint32_t len = sizes[i] > BUFSZ - 70 ? BUFSZ - 70 : sizes[i];
		uint8_t seed = (uint8_t)(i * 37 + 3);

		memset(self->b.cbuf, CANARY, BUFSZ);
		swr_fill(self->b.sbuf + 9, len, seed);
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, i,
					    self->b.cbuf + 66, len,
					    self->b.cmr->lkey,
					    (uintptr_t)self->b.sbuf + 9,
					    self->b.smr->rkey,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RDMA_READ, wc.opcode);
		EXPECT_EQ(len, wc.byte_len);
		check_region(_metadata, self->b.cbuf, BUFSZ, 66, len, seed);
		ASSERT_EQ(0, _metadata->exit_code) TH_LOG("size %u", len);
	}
}

static void post_atomic(struct __test_metadata *_metadata, struct ibv_qp *qp,
			enum ibv_wr_opcode op, uint64_t wr_id, void *local,
			uint32_t lkey, uint64_t raddr, uint32_t rkey,
			uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local, .length = 8, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	ASSERT_EQ(0, ibv_post_send(qp, &wr, &bad));
}

TEST_F(qp, rc_atomic_cmp_and_swp)
{
	struct swr_pair *p = &self->p;
	uint64_t *remote = (uint64_t *)(self->b.sbuf + 64);
	uint64_t *local = (uint64_t *)(self->b.cbuf + 128);
	struct ibv_wc wc;

	swr_t_create(_metadata, p, NULL);
	memset(self->b.sbuf, CANARY, BUFSZ);
	memset(self->b.cbuf, CANARY, BUFSZ);
	*remote = 0x0123456789abcdefULL;
	/* Compare matches: swapped, the old value comes back. */
	post_atomic(_metadata, p->c.qp, IBV_WR_ATOMIC_CMP_AND_SWP, 1, local,
		    self->b.cmr->lkey, (uintptr_t)remote, self->b.smr->rkey,
		    0x0123456789abcdefULL, 0xfedcba9876543210ULL);
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_COMP_SWAP, wc.opcode);
	EXPECT_EQ(8, wc.byte_len);
	EXPECT_EQ(0x0123456789abcdefULL, *local);
	EXPECT_EQ(0xfedcba9876543210ULL, *remote);
	/* Compare differs: unchanged, the current value comes back. */
	*local = 0;
	post_atomic(_metadata, p->c.qp, IBV_WR_ATOMIC_CMP_AND_SWP, 2, local,
		    self->b.cmr->lkey, (uintptr_t)remote, self->b.smr->rkey,
		    0x0123456789abcdefULL, 0x1111111111111111ULL);
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(0xfedcba9876543210ULL, *local);
	EXPECT_EQ(0xfedcba9876543210ULL, *remote);
	/* Exactly 8 bytes on either side. */
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 64, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 72, BUFSZ - 72, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf, 128, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf + 136, BUFSZ - 136, CANARY));
}

TEST_F(qp, rc_atomic_fetch_and_add)
{
	struct swr_pair *p = &self->p;
	uint64_t *remote = (uint64_t *)(self->b.sbuf + BUFSZ - 8);
	uint64_t *local = (uint64_t *)(self->b.cbuf + 8);
	struct ibv_wc wc;
	int i;

	swr_t_create(_metadata, p, NULL);
	memset(self->b.sbuf, CANARY, BUFSZ);
	memset(self->b.cbuf, CANARY, BUFSZ);
	*remote = 0xfffffffffffffff0ULL;
	for (i = 0; i < 3; i++) {
		uint64_t before = *remote;

		post_atomic(_metadata, p->c.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, i,
			    local, self->b.cmr->lkey, (uintptr_t)remote,
			    self->b.smr->rkey, 0x100000009ULL, 0);
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_FETCH_ADD, wc.opcode);
		EXPECT_EQ(8, wc.byte_len);
		EXPECT_EQ(before, *local);
		/* Wraps around 2^64 like any unsigned add. */
		EXPECT_EQ(before + 0x100000009ULL, *remote);
	}
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ - 8, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf, 8, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf + 16, BUFSZ - 16, CANARY));
}

#define QPX_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_BIND_MW | \
		 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV)

TEST_F(qp, rc_atomic_write)
{
	struct swr_qp_opts o = {
		.send_ops_flags = QPX_OPS | IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	struct swr_pair *p = &self->p;
	const uint8_t val[8] = { 1, 2, 3, 4, 0xf5, 0xf6, 0xf7, 0xf8 };
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;

	swr_t_create(_metadata, p, &o);
	qpx = p->c.qpx;
	memset(self->b.sbuf, CANARY, BUFSZ);
	ibv_wr_start(qpx);
	qpx->wr_id = 77;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, self->b.smr->rkey,
			    (uintptr_t)self->b.sbuf + 4096, val);
	ASSERT_EQ(0, ibv_wr_complete(qpx));
	swr_t_wait_wc(_metadata, p->c.scq, 77, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_ATOMIC_WRITE, wc.opcode);
	EXPECT_EQ(0, memcmp(self->b.sbuf + 4096, val, 8));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 4096, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 4104, BUFSZ - 4104, CANARY));
}

/* The same opcodes through the extended post API (ibv_wr_*). */
TEST_F(qp, rc_qp_ex_ops)
{
	struct swr_qp_opts o = { .send_ops_flags = QPX_OPS };
	struct swr_pair *p = &self->p;
	uint64_t *remote = (uint64_t *)(self->b.sbuf + 8192);
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;

	swr_t_create(_metadata, p, &o);
	qpx = p->c.qpx;
	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 4096, 0x10);
	*remote = 5;
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1, self->b.sbuf + 100, 1000,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 2, self->b.sbuf + 12000, 8,
				    self->b.smr->lkey));

	ibv_wr_start(qpx);
	qpx->wr_id = 10;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, self->b.cmr->lkey, (uintptr_t)self->b.cbuf, 1000);
	qpx->wr_id = 11;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, self->b.smr->rkey, (uintptr_t)self->b.sbuf + 2000);
	ibv_wr_set_sge(qpx, self->b.cmr->lkey, (uintptr_t)self->b.cbuf, 3000);
	qpx->wr_id = 12;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, self->b.smr->rkey,
			      (uintptr_t)self->b.sbuf + 20000, htonl(0xabcd));
	ibv_wr_set_sge(qpx, self->b.cmr->lkey, (uintptr_t)self->b.cbuf, 4096);
	qpx->wr_id = 13;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qpx, self->b.smr->rkey, (uintptr_t)remote, 3);
	ibv_wr_set_sge(qpx, self->b.cmr->lkey, (uintptr_t)self->b.cbuf + 8192, 8);
	qpx->wr_id = 14;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, self->b.smr->rkey, (uintptr_t)self->b.sbuf + 2000);
	ibv_wr_set_sge(qpx, self->b.cmr->lkey, (uintptr_t)self->b.cbuf + 16384,
		       3000);
	ASSERT_EQ(0, ibv_wr_complete(qpx));

	swr_t_wait_wc(_metadata, p->c.scq, 10, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_SEND, wc.opcode);
	swr_t_wait_wc(_metadata, p->c.scq, 11, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	swr_t_wait_wc(_metadata, p->c.scq, 12, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 13, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_FETCH_ADD, wc.opcode);
	swr_t_wait_wc(_metadata, p->c.scq, 14, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RDMA_READ, wc.opcode);
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(1000, wc.byte_len);
	swr_t_wait_wc(_metadata, p->s.rcq, 2, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc.opcode);
	EXPECT_EQ(htonl(0xabcd), wc.imm_data);
	EXPECT_EQ(4096, wc.byte_len);

	EXPECT_EQ(-1, swr_check(self->b.sbuf + 100, 1000, 0x10));
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 2000, 3000, 0x10));
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 20000, 4096, 0x10));
	EXPECT_EQ(-1, swr_check(self->b.cbuf + 16384, 3000, 0x10));
	EXPECT_EQ(5, *(uint64_t *)(self->b.cbuf + 8192));
	EXPECT_EQ(8, *remote);
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 12000, 8, CANARY));
}

/* A type 2 window on the server's QP; its rkey is the new one. */
static uint32_t bind_type2(struct __test_metadata *_metadata,
			   FIXTURE_DATA(qp) *self, struct ibv_mw *mw,
			   size_t off, size_t len, uint64_t wr_id)
{
	struct ibv_send_wr wr = { 0 }, *bad;
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	struct ibv_wc wc;

	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = self->b.smr;
	wr.bind_mw.bind_info.addr = (uintptr_t)self->b.sbuf + off;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_READ;
	EXPECT_EQ(0, ibv_post_send(self->p.s.qp, &wr, &bad));
	swr_t_wait_wc(_metadata, self->p.s.scq, wr_id, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_BIND_MW, wc.opcode);
	return rkey;
}

/* Write @len bytes through @rkey at @off of the server buffer; the status. */
static enum ibv_wc_status write_via(struct __test_metadata *_metadata,
				    FIXTURE_DATA(qp) *self, uint32_t rkey,
				    size_t off, uint32_t len, uint64_t wr_id)
{
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };

	EXPECT_EQ(0, swr_post_send1(self->p.c.qp, IBV_WR_RDMA_WRITE, wr_id,
				    self->b.cbuf, len, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf + off, rkey,
				    IBV_SEND_SIGNALED));
	EXPECT_EQ(1, swr_wait(self->p.c.scq, &wc));
	EXPECT_EQ(wr_id, wc.wr_id);
	return wc.status;
}

TEST_F(qp, mw_type1_bind)
{
	struct swr_pair *p = &self->p;
	struct ibv_mw_bind bind = { 0 };
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old;

	swr_t_create(_metadata, p, NULL);
	mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_1);
	ASSERT_NE(NULL, mw);
	old = mw->rkey;
	bind.wr_id = 5;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mr = self->b.smr;
	bind.bind_info.addr = (uintptr_t)self->b.sbuf + 4096;
	bind.bind_info.length = 8192;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_READ;
	ASSERT_EQ(0, ibv_bind_mw(p->s.qp, mw, &bind));
	swr_t_wait_wc(_metadata, p->s.scq, 5, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_BIND_MW, wc.opcode);
	/* A bind gives the window a new key (its low byte). */
	EXPECT_NE(old, mw->rkey);
	EXPECT_EQ(old >> 8, mw->rkey >> 8);

	/* Inside the window: first and last byte, and all of it. */
	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 8192, 0x77);
	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, mw->rkey, 4096,
					    8192, 1));
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 4096, 8192, 0x77));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 4096, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 12288, BUFSZ - 12288,
				     CANARY));
	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, mw->rkey,
					    4096 + 8191, 1, 2));
	/* A read through the window. */
	memset(self->b.cbuf + 65536, CANARY, 8192);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 3,
				    self->b.cbuf + 65536, 100, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf + 4096, mw->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(-1, swr_check(self->b.cbuf + 65536, 100, 0x77));

	/* One byte past the end, one before the start: refused. */
	memset(self->b.sbuf, CANARY, BUFSZ);
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, mw->rkey, 4096 + 8192, 1, 4));
	ASSERT_EQ(0, swr_pair_renew(p));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, mw->rkey, 4095, 2, 5));
	ASSERT_EQ(0, swr_pair_renew(p));
	/* The key before the bind names nothing any more. */
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, old, 4096, 1, 6));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY));
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(qp, mw_type2_bind)
{
	struct swr_pair *p = &self->p;
	struct ibv_mw *mw;
	uint32_t rkey;

	swr_t_create(_metadata, p, NULL);
	mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_2);
	ASSERT_NE(NULL, mw);
	rkey = bind_type2(_metadata, self, mw, 1000, 3000, 9);
	ASSERT_EQ(0, _metadata->exit_code);

	swr_fill(self->b.sbuf, BUFSZ, 0x21);
	memset(self->b.cbuf, CANARY, BUFSZ);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 1,
				    self->b.cbuf + 10, 3000, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf + 1000, rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0, memcmp(self->b.cbuf + 10, self->b.sbuf + 1000, 3000));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf, 10, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.cbuf + 3010, BUFSZ - 3010, CANARY));

	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 3000, 0x22);
	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, rkey, 1000,
					    3000, 2));
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 1000, 3000, 0x22));
	/* Out of the window by one byte at the end. */
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, rkey, 1001, 3000, 3));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 1000, CANARY));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 4000, BUFSZ - 4000, CANARY));
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(qp, mw_type2_local_inv)
{
	struct ibv_send_wr wr = { 0 }, *bad;
	struct swr_pair *p = &self->p;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;

	swr_t_create(_metadata, p, NULL);
	mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_2);
	ASSERT_NE(NULL, mw);
	rkey = bind_type2(_metadata, self, mw, 0, 4096, 9);
	memset(self->b.sbuf, CANARY, BUFSZ);
	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, rkey, 0, 64, 1));

	wr.wr_id = 10;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	ASSERT_EQ(0, ibv_post_send(p->s.qp, &wr, &bad));
	swr_t_wait_wc(_metadata, p->s.scq, 10, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_LOCAL_INV, wc.opcode);

	memset(self->b.sbuf, CANARY, BUFSZ);
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, rkey, 0, 64, 2));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY));
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dealloc_mw(mw));
}

TEST_F(qp, rc_send_with_inv)
{
	struct ibv_send_wr wr = { 0 }, *bad;
	struct swr_pair *p = &self->p;
	struct ibv_sge sge;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;

	swr_t_create(_metadata, p, NULL);
	mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_2);
	ASSERT_NE(NULL, mw);
	rkey = bind_type2(_metadata, self, mw, 65536, 4096, 9);
	EXPECT_EQ(IBV_WC_SUCCESS,
		  write_via(_metadata, self, rkey, 65536, 16, 1));

	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 300, 0x31);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 20, self->b.sbuf, 4096,
				    self->b.smr->lkey));
	sge.addr = (uintptr_t)self->b.cbuf;
	sge.length = 300;
	sge.lkey = self->b.cmr->lkey;
	wr.wr_id = 21;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	ASSERT_EQ(0, ibv_post_send(p->c.qp, &wr, &bad));
	swr_t_wait_wc(_metadata, p->c.scq, 21, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_SEND, wc.opcode);
	swr_t_wait_wc(_metadata, p->s.rcq, 20, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_EQ(300, wc.byte_len);
	EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_INV);
	EXPECT_EQ(rkey, wc.invalidated_rkey);
	check_region(_metadata, self->b.sbuf, BUFSZ, 0, 300, 0x31);

	/* The window is gone. */
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, rkey, 65536, 16, 2));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 300, BUFSZ - 300, CANARY));
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dealloc_mw(mw));
}

/* MR bounds: the first and last byte are in, one byte past is out. */
TEST_F(qp, mr_boundaries)
{
	struct swr_pair *p = &self->p;
	uint8_t *base = self->b.sbuf + 4096;
	struct ibv_mr *mr, *lmr;

	swr_t_create(_metadata, p, NULL);
	mr = ibv_reg_mr(p->pd, base, 8192, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, mr);
	lmr = ibv_reg_mr(p->pd, self->b.cbuf + 4096, 4096, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, lmr);
	memset(self->b.sbuf, CANARY, BUFSZ);
	self->b.cbuf[0] = 0x5c;
	self->b.cbuf[4096] = 0x3d;
	self->b.cbuf[8191] = 0x6e;

	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, mr->rkey,
					    4096, 1, 1));
	EXPECT_EQ(0x5c, base[0]);
	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, mr->rkey,
					    4096 + 8191, 1, 2));
	EXPECT_EQ(0x5c, base[8191]);
	/* The local side: the last byte of lmr as the source. */
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 3,
				    self->b.cbuf + 8191, 1, lmr->lkey,
				    (uintptr_t)base + 100, mr->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0x6e, base[100]);
	EXPECT_EQ(CANARY, base[-1]);
	EXPECT_EQ(CANARY, base[8192]);

	/* Remote: one past the end, across the end, before the start. */
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, mr->rkey, 4096 + 8192, 1, 4));
	ASSERT_EQ(0, swr_pair_renew(p));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, mr->rkey, 4096 + 8191, 2, 5));
	ASSERT_EQ(0, swr_pair_renew(p));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR,
		  write_via(_metadata, self, mr->rkey, 4095, 1, 6));
	ASSERT_EQ(0, swr_pair_renew(p));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 7,
				    self->b.cbuf, 8193, self->b.cmr->lkey,
				    (uintptr_t)base, mr->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 7, IBV_WC_REM_ACCESS_ERR, NULL);
	ASSERT_EQ(0, swr_pair_renew(p));
	/* Local: a gather entry one byte past the end of lmr. */
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 8,
				    self->b.cbuf + 8191, 2, lmr->lkey,
				    (uintptr_t)base, mr->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 8, IBV_WC_LOC_PROT_ERR, NULL);
	/* Nothing refused was written. */
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, 4096, CANARY));
	EXPECT_EQ(-1, swr_check_byte(base + 8192, BUFSZ - 12288, CANARY));
	EXPECT_EQ(0x5c, base[0]);
	EXPECT_EQ(0x6e, base[100]);
	EXPECT_EQ(0x5c, base[8191]);
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dereg_mr(lmr));
}

/* 16 MiB messages: SEND, WRITE and READ. */
TEST_F(qp, rc_16mib)
{
	struct swr_pair *p = &self->p;
	uint8_t *a, *b;
	struct ibv_mr *amr, *bmr;
	struct ibv_wc wc;
	long bad;

	swr_t_create(_metadata, p, NULL);
	a = mmap(NULL, MIB16 + 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, MIB16 + 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_NE(MAP_FAILED, b);
	amr = ibv_reg_mr(p->pd, a, MIB16 + 4096, SWR_ALL_ACCESS);
	bmr = ibv_reg_mr(p->pd, b, MIB16 + 4096, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, amr);
	ASSERT_NE(NULL, bmr);

	swr_fill(a + 1, MIB16, 0x61);
	memset(b, CANARY, MIB16 + 4096);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1, b + 2, MIB16, bmr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 2, a + 1, MIB16,
				    amr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(MIB16, wc.byte_len);
	check_region(_metadata, b, MIB16 + 4096, 2, MIB16, 0x61);

	swr_fill(a + 3, MIB16, 0x62);
	memset(b, CANARY, MIB16 + 4096);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 3, a + 3,
				    MIB16, amr->lkey, (uintptr_t)b + 4095,
				    bmr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	check_region(_metadata, b, MIB16 + 4096, 4095, MIB16, 0x62);

	swr_fill(b + 7, MIB16, 0x63);
	memset(a, CANARY, MIB16 + 4096);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 4, a,
				    MIB16, amr->lkey, (uintptr_t)b + 7,
				    bmr->rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 4, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(MIB16, wc.byte_len);
	bad = swr_check(a, MIB16, 0x63);
	EXPECT_EQ(-1, bad);
	EXPECT_EQ(-1, swr_check_byte(a + MIB16, 4096, CANARY));

	swr_pair_destroy_qps(p);
	ibv_dereg_mr(amr);
	ibv_dereg_mr(bmr);
	munmap(a, MIB16 + 4096);
	munmap(b, MIB16 + 4096);
}

/*
 * Inline data is copied at post time: the buffer may change (and need not
 * be registered) right after ibv_post_send() returns.
 */
TEST_F(qp, rc_inline)
{
	struct swr_qp_opts o = { .max_inline = 256 };
	struct swr_pair *p = &self->p;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	uint8_t data[2048];
	uint32_t max;
	struct ibv_wc wc;

	swr_t_create(_metadata, p, &o);
	ASSERT_EQ(0, ibv_query_qp(p->c.qp, &qa, IBV_QP_CAP, &init));
	max = qa.cap.max_inline_data;
	ASSERT_LE(256, max);
	ASSERT_GT(sizeof(data), max);

	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(data, max, 0x44);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1, self->b.sbuf, 4096,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 2, data, max,
				    0xdeadbeef, 0, 0,
				    IBV_SEND_SIGNALED | IBV_SEND_INLINE));
	memset(data, 0, sizeof(data));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(max, wc.byte_len);
	check_region(_metadata, self->b.sbuf, BUFSZ, 0, max, 0x44);

	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(data, 100, 0x45);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 3, data, 100,
				    0, (uintptr_t)self->b.sbuf + 10,
				    self->b.smr->rkey,
				    IBV_SEND_SIGNALED | IBV_SEND_INLINE));
	memset(data, 0, sizeof(data));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	check_region(_metadata, self->b.sbuf, BUFSZ, 10, 100, 0x45);

	/* One byte more than the QP takes inline is refused at post time. */
	EXPECT_NE(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 4, data, max + 1,
				    0, 0, 0,
				    IBV_SEND_SIGNALED | IBV_SEND_INLINE));
	EXPECT_EQ(0, swr_cq_count(p->c.scq, 50));
}

/* Only signaled WRs complete when sq_sig_all is off; all do when on. */
TEST_F(qp, rc_signaled_unsignaled)
{
	struct swr_pair *p = &self->p;
	struct swr_qp_opts o = { .sq_sig_all = 1 };
	struct ibv_wc wc;
	int i;

	swr_t_create(_metadata, p, NULL);
	memset(self->b.sbuf, CANARY, BUFSZ);
	for (i = 1; i <= 8; i++) {
		swr_fill(self->b.cbuf + i * 100, 100, (uint8_t)i);
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, i,
					    self->b.cbuf + i * 100, 100,
					    self->b.cmr->lkey,
					    (uintptr_t)self->b.sbuf + i * 100,
					    self->b.smr->rkey,
					    i == 5 || i == 8 ?
					    IBV_SEND_SIGNALED : 0));
	}
	swr_t_wait_wc(_metadata, p->c.scq, 5, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 8, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0, swr_cq_count(p->c.scq, 100));
	for (i = 1; i <= 8; i++)
		EXPECT_EQ(-1, swr_check(self->b.sbuf + i * 100, 100, (uint8_t)i))
			TH_LOG("unsignaled write %d", i);

	swr_pair_destroy_qps(p);
	swr_t_create(_metadata, p, &o);
	for (i = 1; i <= 4; i++)
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, i,
					    self->b.cbuf, 8, self->b.cmr->lkey,
					    (uintptr_t)self->b.sbuf,
					    self->b.smr->rkey, 0));
	for (i = 1; i <= 4; i++) {
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	}
	EXPECT_EQ(0, swr_cq_count(p->c.scq, 50));
}

/*
 * Unsignaled WRs free their slots too: many times the queue depth of
 * them, one signaled per queue-full, as perftest posts.
 */
TEST_F(qp, rc_unsignaled_stream)
{
	struct swr_qp_opts o = { .max_send_wr = 16 };
	struct swr_pair *p = &self->p;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	uint32_t depth, i, j;

	swr_t_create(_metadata, p, &o);
	ASSERT_EQ(0, ibv_query_qp(p->c.qp, &qa, IBV_QP_CAP, &init));
	depth = qa.cap.max_send_wr;
	ASSERT_LE(16, depth);
	for (i = 0; i < 200; i++) {
		for (j = 0; j < depth; j++) {
			uint32_t n = i * depth + j;

			*(uint32_t *)(self->b.cbuf + 4 * j) = n;
			ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE,
						    n, self->b.cbuf + 4 * j, 4,
						    self->b.cmr->lkey,
						    (uintptr_t)self->b.sbuf + 4 * j,
						    self->b.smr->rkey,
						    j == depth - 1 ?
						    IBV_SEND_SIGNALED : 0))
				TH_LOG("round %u WR %u", i, j);
		}
		swr_t_wait_wc(_metadata, p->c.scq, i * depth + depth - 1,
			      IBV_WC_SUCCESS, NULL);
		for (j = 0; j < depth; j++)
			ASSERT_EQ(i * depth + j,
				  *(uint32_t *)(self->b.sbuf + 4 * j));
	}
}

/*
 * A fenced WR waits for the READ / atomic before it: the data the READ
 * brought is what the fenced WRITE sends.
 */
TEST_F(qp, rc_fence)
{
	struct swr_pair *p = &self->p;
	struct ibv_wc wc;

	swr_t_create(_metadata, p, NULL);
	swr_fill(self->b.sbuf, 65536, 0x51);
	memset(self->b.sbuf + 65536, CANARY, 65536);
	memset(self->b.cbuf, CANARY, BUFSZ);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 1, self->b.cbuf,
				    65536, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf, self->b.smr->rkey,
				    IBV_SEND_SIGNALED));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 2, self->b.cbuf,
				    65536, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf + 65536,
				    self->b.smr->rkey,
				    IBV_SEND_SIGNALED | IBV_SEND_FENCE));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RDMA_READ, wc.opcode);
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 65536, 65536, 0x51));

	/* The same after a FETCH_AND_ADD: the fenced SEND carries its result. */
	*(uint64_t *)(self->b.sbuf + 200000) = 41;
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 3, self->b.sbuf + 210000, 8,
				    self->b.smr->lkey));
	post_atomic(_metadata, p->c.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, 4,
		    self->b.cbuf + 300, self->b.cmr->lkey,
		    (uintptr_t)self->b.sbuf + 200000, self->b.smr->rkey, 1, 0);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 5, self->b.cbuf + 300,
				    8, self->b.cmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED | IBV_SEND_FENCE));
	swr_t_wait_wc(_metadata, p->c.scq, 4, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 5, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 3, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(41, *(uint64_t *)(self->b.sbuf + 210000));
	EXPECT_EQ(42, *(uint64_t *)(self->b.sbuf + 200000));
}

/* ibv_req_notify_cq(cq, 1): only a solicited receive makes an event. */
TEST_F(qp, solicited_event)
{
	struct swr_qp_opts o = { 0 };
	struct swr_pair *p = &self->p;
	struct ibv_comp_channel *ch;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;

	ch = ibv_create_comp_channel(p->ctx);
	ASSERT_NE(NULL, ch);
	o.channel = ch;
	swr_t_create(_metadata, p, &o);
	pfd.fd = ch->fd;
	pfd.events = POLLIN;

	ASSERT_EQ(0, ibv_req_notify_cq(p->s.rcq, 1));
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1, self->b.sbuf, 64,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 2, self->b.sbuf + 64, 64,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 3, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0, poll(&pfd, 1, 200)) TH_LOG("event for an unsolicited send");

	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 4, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED | IBV_SEND_SOLICITED));
	ASSERT_EQ(1, poll(&pfd, 1, SWR_CQ_TIMEOUT_MS))
		TH_LOG("no event for a solicited send");
	ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(p->s.rcq, ev_cq);
	ibv_ack_cq_events(ev_cq, 1);
	swr_t_wait_wc(_metadata, p->s.rcq, 2, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 4, IBV_WC_SUCCESS, NULL);

	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/* One event per arming, on the CQ that was armed, through the channel. */
TEST_F(qp, comp_channel_events)
{
	struct swr_qp_opts o = { 0 };
	struct swr_pair *p = &self->p;
	struct ibv_comp_channel *ch;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;
	int i;

	ch = ibv_create_comp_channel(p->ctx);
	ASSERT_NE(NULL, ch);
	o.channel = ch;
	swr_t_create(_metadata, p, &o);
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, i, self->b.sbuf + 64 * i,
					    64, self->b.smr->lkey));

	ASSERT_EQ(0, ibv_req_notify_cq(p->s.rcq, 0));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 10, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	ASSERT_EQ(1, poll(&pfd, 1, SWR_CQ_TIMEOUT_MS));
	ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(p->s.rcq, ev_cq);
	ibv_ack_cq_events(ev_cq, 1);
	swr_t_wait_wc(_metadata, p->s.rcq, 0, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 10, IBV_WC_SUCCESS, NULL);

	/* Not re-armed: the next completion makes no event. */
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 11, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 11, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0, poll(&pfd, 1, 200));

	/* Re-armed, both CQs: the send and the receive side fire. */
	ASSERT_EQ(0, ibv_req_notify_cq(p->s.rcq, 0));
	ASSERT_EQ(0, ibv_req_notify_cq(p->c.scq, 0));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 12, self->b.cbuf, 8,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(1, poll(&pfd, 1, SWR_CQ_TIMEOUT_MS)) TH_LOG("event %d", i);
		ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
		EXPECT_TRUE(ev_cq == p->s.rcq || ev_cq == p->c.scq);
		ibv_ack_cq_events(ev_cq, 1);
	}
	EXPECT_EQ(0, poll(&pfd, 1, 100));
	swr_t_wait_wc(_metadata, p->s.rcq, 2, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->c.scq, 12, IBV_WC_SUCCESS, NULL);

	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/*
 * Completion timestamps: every CQE of an extended CQ created with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP carries the time it was written, in
 * cycles of the device's hca_core_clock (1 GHz: nanoseconds of
 * CLOCK_MONOTONIC_RAW). They fall between the post and the poll, and a
 * later completion never has an earlier stamp. The wall-clock variant
 * (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) is the same instant in
 * CLOCK_REALTIME nanoseconds, and ibv_query_rt_values_ex() reads the
 * device clock itself.
 */
TEST_F(qp, cq_timestamps)
{
	struct swr_pair *p = &self->p;
	struct ibv_device_attr_ex dattr;
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *ex;
	struct timespec ts;
	uint64_t before, after, stamp, last = 0;
	uint64_t rbefore, rafter, wall;
	struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	unsigned int i;

	ASSERT_EQ(0, ibv_query_device_ex(p->ctx, NULL, &dattr));
	EXPECT_EQ(1000000, dattr.hca_core_clock);
	EXPECT_NE(0, dattr.completion_timestamp_mask);

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	before = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	ASSERT_EQ(0, ibv_query_rt_values_ex(p->ctx, &rt));
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	after = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	EXPECT_EQ(IBV_VALUES_MASK_RAW_CLOCK, rt.comp_mask);
	stamp = rt.raw_clock.tv_sec * 1000000000ull + rt.raw_clock.tv_nsec;
	EXPECT_LE(before, stamp);
	EXPECT_GE(after, stamp);
	rt.comp_mask = 1u << 7;
	EXPECT_EQ(EINVAL, ibv_query_rt_values_ex(p->ctx, &rt));

	p->o.cq_wc_flags = IBV_WC_STANDARD_FLAGS |
			   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	swr_t_create(_metadata, p, NULL);
	/* ibv_cq_ex_to_cq() is a cast: so is its inverse. */
	ex = (struct ibv_cq_ex *)p->c.scq;
	for (i = 0; i < 8; i++) {
		swr_fill(self->b.cbuf, 64, (uint8_t)i);
		clock_gettime(CLOCK_REALTIME, &ts);
		rbefore = ts.tv_sec * 1000000000ull + ts.tv_nsec;
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		before = ts.tv_sec * 1000000000ull + ts.tv_nsec;
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, i,
					    self->b.cbuf, 64, self->b.cmr->lkey,
					    (uintptr_t)self->b.sbuf,
					    self->b.smr->rkey,
					    IBV_SEND_SIGNALED));
		while (ibv_start_poll(ex, &pa) == ENOENT)
			;
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		after = ts.tv_sec * 1000000000ull + ts.tv_nsec;
		EXPECT_EQ(IBV_WC_SUCCESS, ex->status);
		EXPECT_EQ(i, ex->wr_id);
		stamp = ibv_wc_read_completion_ts(ex);
		wall = ibv_wc_read_completion_wallclock_ns(ex);
		ibv_end_poll(ex);
		clock_gettime(CLOCK_REALTIME, &ts);
		rafter = ts.tv_sec * 1000000000ull + ts.tv_nsec;
		EXPECT_LE(before, stamp);
		EXPECT_GE(after, stamp);
		/*
		 * The two clocks are read apart, and NTP may slew the real
		 * one: allow a millisecond either side.
		 */
		EXPECT_LE(rbefore - 1000000, wall);
		EXPECT_GE(rafter + 1000000, wall);
		EXPECT_LE(last, stamp);
		last = stamp;
		EXPECT_EQ(-1, swr_check(self->b.sbuf, 64, (uint8_t)i));
	}
}

TEST_F(qp, uc_send_and_write)
{
	struct swr_qp_opts o = { .type = IBV_QPT_UC };
	struct swr_pair *p = &self->p;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int ret;

	swr_t_create(_metadata, p, &o);
	memset(self->b.sbuf, CANARY, BUFSZ);
	swr_fill(self->b.cbuf, 5000, 0x71);
	EXPECT_EQ(IBV_WC_SUCCESS, write_via(_metadata, self, self->b.smr->rkey,
					    33, 5000, 1));
	check_region(_metadata, self->b.sbuf, BUFSZ, 33, 5000, 0x71);

	memset(self->b.sbuf, CANARY, BUFSZ);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 2, self->b.sbuf, 8192,
				    self->b.smr->lkey));
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 3, self->b.cbuf, 3333,
				    self->b.cmr->lkey, 0, 0, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 2, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(3333, wc.byte_len);
	check_region(_metadata, self->b.sbuf, BUFSZ, 0, 3333, 0x71);

	memset(self->b.sbuf, CANARY, BUFSZ);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 4, self->b.sbuf, 16,
				    self->b.smr->lkey));
	sge.addr = (uintptr_t)self->b.cbuf;
	sge.length = 2048;
	sge.lkey = self->b.cmr->lkey;
	wr.wr_id = 5;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0x55);
	wr.wr.rdma.remote_addr = (uintptr_t)self->b.sbuf + 100;
	wr.wr.rdma.rkey = self->b.smr->rkey;
	ASSERT_EQ(0, ibv_post_send(p->c.qp, &wr, &bad));
	swr_t_wait_wc(_metadata, p->c.scq, 5, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 4, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc.opcode);
	EXPECT_EQ(htonl(0x55), wc.imm_data);
	check_region(_metadata, self->b.sbuf, BUFSZ, 100, 2048, 0x71);

	/* UC has no READ: refused at post time or completed in error. */
	ret = swr_post_send1(p->c.qp, IBV_WR_RDMA_READ, 6, self->b.cbuf, 8,
			     self->b.cmr->lkey, (uintptr_t)self->b.sbuf,
			     self->b.smr->rkey, IBV_SEND_SIGNALED);
	if (!ret) {
		ASSERT_EQ(1, swr_wait(p->c.scq, &wc));
		EXPECT_NE(IBV_WC_SUCCESS, wc.status);
	}
}

/* A UD pair: the AH points at the device's own GID. */
/* An AH to @dgid, or to the pair's own GID when NULL. */
static struct ibv_ah *ud_ah_to(struct swr_pair *p, const union ibv_gid *dgid)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.grh = {
			.dgid = dgid ? *dgid : p->gid,
			.sgid_index = p->gid_index,
			.hop_limit = 64,
		},
		.sl = 3,	/* not on a RoCE packet: never reported back */
		.port_num = 1,
	};

	return ibv_create_ah(p->pd, &a);
}

static struct ibv_ah *ud_ah(struct swr_pair *p)
{
	return ud_ah_to(p, NULL);
}

/* A UD send from the client QP to @qpn (the server's when 0). */
static int ud_send_to(struct swr_pair *p, struct ibv_ah *ah, uint32_t qpn,
		      uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey,
		      uint32_t qkey, bool imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(0x600d),
	}, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn ? qpn : p->s.qp->qp_num;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(p->c.qp, &wr, &bad);
}

static int ud_send(struct swr_pair *p, struct ibv_ah *ah, uint64_t wr_id,
		   void *buf, uint32_t len, uint32_t lkey, uint32_t qkey,
		   bool imm)
{
	return ud_send_to(p, ah, 0, wr_id, buf, len, lkey, qkey, imm);
}

/*
 * UD receives start with 40 bytes of GRH: for an IPv4 GID the IPv4 header
 * sits in bytes 20..39 (0..19 are zero); for an IPv6 GID the IPv6 header
 * fills them all.
 */
static void ud_traffic(struct __test_metadata *_metadata,
		       FIXTURE_DATA(qp) *self, bool ipv6)
{
	static const uint32_t lens[] = { 1, 100, 1000, 1024 };
	struct swr_qp_opts o = { .type = IBV_QPT_UD, .ipv6 = ipv6 };
	struct swr_pair *p = &self->p;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	unsigned int i;

	swr_t_create(_metadata, p, &o);
	ah = ud_ah(p);
	ASSERT_NE(NULL, ah);
	for (i = 0; i < 4; i++) {
		uint32_t len = lens[i];
		const uint8_t *g = self->b.sbuf;

		memset(self->b.sbuf, CANARY, BUFSZ);
		swr_fill(self->b.cbuf, len, (uint8_t)i);
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 100 + i, self->b.sbuf,
					    40 + 2048, self->b.smr->lkey));
		ASSERT_EQ(0, ud_send(p, ah, i, self->b.cbuf, len,
				     self->b.cmr->lkey, SWR_QKEY, i & 1));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_SEND, wc.opcode);
		swr_t_wait_wc(_metadata, p->s.rcq, 100 + i, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(IBV_WC_RECV, wc.opcode);
		EXPECT_EQ(len + 40, wc.byte_len);
		EXPECT_EQ(p->c.qp->qp_num, wc.src_qp);
		EXPECT_TRUE(wc.wc_flags & IBV_WC_GRH);
		/* The SL is the packet type, as ConnectX reports it: RoCEv2
		 * (bit 3) over IPv6 (1) or IPv4 (2). UCX relies on it.
		 */
		EXPECT_EQ(ipv6 ? 0x9 : 0xa, wc.sl);
		EXPECT_EQ(!!(i & 1), !!(wc.wc_flags & IBV_WC_WITH_IMM));
		if (i & 1)
			EXPECT_EQ(htonl(0x600d), wc.imm_data);
		EXPECT_EQ(-1, swr_check(self->b.sbuf + 40, len, (uint8_t)i));
		EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 40 + len,
					     BUFSZ - 40 - len, CANARY));
		if (!ipv6) {
			EXPECT_EQ(-1, swr_check_byte(g, 20, 0));
			EXPECT_EQ(0x45, g[20]);		/* IPv4, 5 words */
			EXPECT_EQ(17, g[29]);		/* UDP */
			EXPECT_EQ(0, memcmp(g + 32, p->gid.raw + 12, 4));
			EXPECT_EQ(0, memcmp(g + 36, p->gid.raw + 12, 4));
		} else {
			EXPECT_EQ(6, g[0] >> 4);
			EXPECT_EQ(17, g[6]);
			EXPECT_EQ(0, memcmp(g + 8, p->gid.raw, 16));
			EXPECT_EQ(0, memcmp(g + 24, p->gid.raw, 16));
		}
		ASSERT_EQ(0, _metadata->exit_code) TH_LOG("UD size %u", len);
	}
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

TEST_F(qp, ud_send_grh_ipv4)
{
	ud_traffic(_metadata, self, false);
}

TEST_F(qp, ud_send_grh_ipv6)
{
	ud_traffic(_metadata, self, true);
}

/*
 * A wrong Q_Key drops the datagram; the receive stays for the next one.
 * A Q_Key with the high bit set is replaced by the sender QP's own.
 */
TEST_F(qp, ud_qkey_mismatch)
{
	struct swr_qp_opts o = { .type = IBV_QPT_UD };
	struct swr_pair *p = &self->p;
	struct ibv_ah *ah;
	struct ibv_wc wc;

	swr_t_create(_metadata, p, &o);
	ah = ud_ah(p);
	ASSERT_NE(NULL, ah);
	memset(self->b.sbuf, CANARY, BUFSZ);
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 1, self->b.sbuf, 40 + 256,
				    self->b.smr->lkey));
	swr_fill(self->b.cbuf, 64, 0x90);
	ASSERT_EQ(0, ud_send(p, ah, 2, self->b.cbuf, 64, self->b.cmr->lkey,
			     SWR_QKEY + 1, false));
	/* The sender cannot tell: a datagram completes once sent. */
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_SUCCESS, NULL);
	EXPECT_EQ(0, swr_cq_count(p->s.rcq, 200));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf, BUFSZ, CANARY));

	swr_fill(self->b.cbuf, 64, 0x91);
	ASSERT_EQ(0, ud_send(p, ah, 3, self->b.cbuf, 64, self->b.cmr->lkey,
			     SWR_QKEY, false));
	swr_t_wait_wc(_metadata, p->c.scq, 3, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(64 + 40, wc.byte_len);
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 40, 64, 0x91));

	/*
	 * IBTA: the high bit in a WR's Q_Key means "the QP's own" (here
	 * SWR_QKEY), so a user QP, which may not own a privileged Q_Key
	 * (ud_privileged_qkey_refused), never sends one.
	 */
	ASSERT_EQ(0, swr_post_recv1(p->s.qp, 4, self->b.sbuf, 40 + 256,
				    self->b.smr->lkey));
	swr_fill(self->b.cbuf, 77, 0x92);
	ASSERT_EQ(0, ud_send(p, ah, 5, self->b.cbuf, 77, self->b.cmr->lkey,
			     0x80000000u | 0x1234, false));
	swr_t_wait_wc(_metadata, p->c.scq, 5, IBV_WC_SUCCESS, NULL);
	swr_t_wait_wc(_metadata, p->s.rcq, 4, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(77 + 40, wc.byte_len);
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 40, 77, 0x92));
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

/*
 * Exit status 0 when, without CAP_NET_RAW, a UD QP may not take a
 * privileged Q_Key (high bit set) but may take an ordinary one.
 */
static int privileged_qkey_child(void)
{
	struct swr_qp_opts o = { .type = IBV_QPT_UD };
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x80010000,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_QKEY;
	struct swr_pair p;

	if (swr_drop_cap(CAP_NET_RAW) || swr_pair_open(&p))
		return 10;
	p.o = o;
	if (swr_end_create(&p, &p.c, NULL))
		return 11;
	if (ibv_modify_qp(p.c.qp, &a, mask) != EPERM)
		return 12;
	a.qkey = 0x10010000;
	if (ibv_modify_qp(p.c.qp, &a, mask))
		return 13;
	a.qkey = 0x80000000;
	if (ibv_modify_qp(p.c.qp, &a, IBV_QP_QKEY) != EPERM)
		return 14;
	swr_pair_close(&p);
	return 0;
}

/*
 * The RDMA core refuses a privileged Q_Key from a process without
 * CAP_NET_RAW (unless "rdma system set privileged-qkey on"); the driver
 * relies on that check (ib_uverbs modify_qp(), both kernels).
 */
TEST_F(qp, ud_privileged_qkey_refused)
{
	int status;
	pid_t pid;

	if (system("rdma system show | grep -q 'privileged-qkey on'") == 0)
		SKIP(return, "privileged-qkey is on: every process may");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(privileged_qkey_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A UD send to QPN 0xffffff at a multicast GID reaches every QP of this
 * device attached to the group, the sender's own included (multicast
 * loopback), once each, with its bytes; after detach, none.
 */
TEST_F(qp, ud_multicast_local)
{
	union ibv_gid mgid = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 239,
					[13] = 9, [14] = 8, [15] = 7 } };
	struct swr_qp_opts o = { .type = IBV_QPT_UD };
	struct swr_pair *p = &self->p;
	uint8_t *cr = self->b.cbuf + BUFSZ / 2;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int round;

	swr_t_create(_metadata, p, &o);
	ah = ud_ah_to(p, &mgid);
	ASSERT_NE(NULL, ah);
	ASSERT_EQ(0, ibv_attach_mcast(p->s.qp, &mgid, 0));
	ASSERT_EQ(0, ibv_attach_mcast(p->c.qp, &mgid, 0));
	for (round = 0; round < 2; round++) {
		uint8_t seed = 0x50 + round;

		memset(self->b.sbuf, CANARY, BUFSZ);
		memset(cr, CANARY, BUFSZ / 2);
		swr_fill(self->b.cbuf, 500, seed);
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 10, self->b.sbuf, 1024,
					    self->b.smr->lkey));
		ASSERT_EQ(0, swr_post_recv1(p->c.qp, 20, cr, 1024,
					    self->b.cmr->lkey));
		ASSERT_EQ(0, ud_send_to(p, ah, 0xffffff, round, self->b.cbuf,
					500, self->b.cmr->lkey, SWR_QKEY,
					false));
		swr_t_wait_wc(_metadata, p->c.scq, round, IBV_WC_SUCCESS,
			      NULL);
		if (round) {
			/* Detached: nothing arrives. */
			EXPECT_EQ(0, swr_cq_count(p->s.rcq, 300));
			EXPECT_EQ(0, swr_cq_count(p->c.rcq, 0));
			break;
		}
		swr_t_wait_wc(_metadata, p->s.rcq, 10, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(540, wc.byte_len);
		EXPECT_EQ(p->c.qp->qp_num, wc.src_qp);
		EXPECT_EQ(-1, swr_check(self->b.sbuf + 40, 500, seed));
		EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + 540, BUFSZ - 540,
					     CANARY));
		swr_t_wait_wc(_metadata, p->c.rcq, 20, IBV_WC_SUCCESS, &wc);
		EXPECT_EQ(540, wc.byte_len);
		EXPECT_EQ(-1, swr_check(cr + 40, 500, seed));
		/* One copy each: no second one (e.g. an IP loopback copy). */
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 11, self->b.sbuf, 1024,
					    self->b.smr->lkey));
		ASSERT_EQ(0, swr_post_recv1(p->c.qp, 21, cr, 1024,
					    self->b.cmr->lkey));
		EXPECT_EQ(0, swr_cq_count(p->s.rcq, 300));
		EXPECT_EQ(0, swr_cq_count(p->c.rcq, 0));
		EXPECT_EQ(0, ibv_detach_mcast(p->s.qp, &mgid, 0));
		EXPECT_EQ(0, ibv_detach_mcast(p->c.qp, &mgid, 0));
	}
	swr_pair_destroy_qps(p);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

TEST_HARNESS_MAIN
