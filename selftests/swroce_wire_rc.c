// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RC over the wire between two devices: SEND, WRITE (with immediate),
 * READ and atomics, in both directions, messages of 1 byte to 256 KiB
 * (many packets), every byte checked and the bytes around each transfer
 * untouched; an RNR wait that resolves; a bad rkey failing remotely; an
 * 8 MiB WRITE and READ at MTU 256, the bound on the PSNs a requester
 * has out when no ACK comes, an acknowledged SEND surviving a move
 * to ERR right behind its ACK, and a ping-pong next to busy loops that
 * lets the sleeping poller sleep.
 *
 * The devices come from SWR_WIRE_A and SWR_WIRE_B (swroce in one network
 * namespace, rxe or a second swroce in another: selftests/swroce_wire.sh
 * builds the topology). With the RDMA subsystem in shared netns mode one
 * process opens both; the packets still cross the veth between the
 * namespaces.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		(512 * 1024)
#define CANARY		0xa5

struct wend {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

/*
 * The largest path MTU the tests use: 1024, or SWR_WIRE_MTU (2048 or
 * 4096, on a veth whose MTU allows it).
 */
static enum ibv_mtu wire_mtu_cap(void)
{
	const char *m = getenv("SWR_WIRE_MTU");

	if (m && !strcmp(m, "4096"))
		return IBV_MTU_4096;
	if (m && !strcmp(m, "2048"))
		return IBV_MTU_2048;
	return IBV_MTU_1024;
}

/* Device @name's PD, CQ, a QP of type @qpt and a registered buffer. */
static int wend_open_qpt(struct wend *e, const char *name,
			 enum ibv_qp_type qpt)
{
	struct ibv_qp_init_attr a = {
		.qp_type = qpt,
		.cap = {
			.max_send_wr = 64, .max_recv_wr = 64,
			.max_send_sge = 2, .max_recv_sge = 2,
		},
	};
	struct ibv_port_attr pa;

	memset(e, 0, sizeof(*e));
	e->ctx = swr_open_dev(name);
	if (!e->ctx)
		return -ENODEV;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		return -errno;
	a.send_cq = e->cq;
	a.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &a);
	if (!e->qp)
		return -errno;
	e->buf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->buf == MAP_FAILED)
		return -errno;
	e->mr = ibv_reg_mr(e->pd, e->buf, BUFSZ, SWR_ALL_ACCESS);
	if (!e->mr)
		return -errno;
	if (ibv_query_port(e->ctx, 1, &pa))
		return -errno;
	e->mtu = pa.active_mtu < wire_mtu_cap() ? pa.active_mtu :
						   wire_mtu_cap();
	return swr_find_gid(e->ctx, true, &e->gid_index, &e->gid);
}

static int wend_open(struct wend *e, const char *name)
{
	return wend_open_qpt(e, name, IBV_QPT_RC);
}

static void wend_close(struct wend *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->buf && e->buf != MAP_FAILED)
		munmap(e->buf, BUFSZ);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
}

/*
 * @e's QP to RTS towards QPN @dqpn at @r's GID, with path MTU @mtu and
 * local ACK timeout @timeout.
 */
static int wend_connect_to(struct wend *e, const struct wend *r,
			   uint32_t dqpn, enum ibv_mtu mtu, uint8_t timeout)
{
	bool uc = e->qp->qp_type == IBV_QPT_UC;
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = uc ? IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE : SWR_ALL_ACCESS;
	ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0xfffff0;	/* the PSNs wrap during the test */
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = r->gid;
	a.ah_attr.grh.sgid_index = e->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | (uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
					     IBV_QP_MIN_RNR_TIMER));
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffff0;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    (uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
	return -ret;
}

/* @e's QP to RTS towards @r's. */
static int wend_connect(struct wend *e, const struct wend *r)
{
	return wend_connect_to(e, r, r->qp->qp_num,
			       e->mtu < r->mtu ? e->mtu : r->mtu, 14);
}

FIXTURE(wire) {
	struct wend a, b;
};

FIXTURE_SETUP(wire)
{
	const char *na = getenv("SWR_WIRE_A"), *nb = getenv("SWR_WIRE_B");
	int ret;

	if (!na || !nb)
		SKIP(return, "SWR_WIRE_A / SWR_WIRE_B not set");
	ret = wend_open(&self->a, na);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", na, strerror(-ret));
	ret = wend_open(&self->b, nb);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", nb, strerror(-ret));
	ASSERT_EQ(0, wend_connect(&self->a, &self->b));
	ASSERT_EQ(0, wend_connect(&self->b, &self->a));
}

FIXTURE_TEARDOWN(wire)
{
	wend_close(&self->a);
	wend_close(&self->b);
}

static const uint32_t sizes[] = { 1, 7, 1024, 1025, 4099, 65536, 262144 };

/* Wait for one completion on @e's CQ; its status. */
static int wend_wait(struct wend *e, struct ibv_wc *wc)
{
	int n = swr_poll_wait(e->cq, wc, SWR_CQ_TIMEOUT_MS);

	return n == 1 ? (int)wc->status : -1;
}

static void expect_region(struct __test_metadata *_metadata,
			  const uint8_t *buf, uint32_t off, uint32_t len,
			  uint8_t seed)
{
	EXPECT_EQ(-1, swr_check(buf + off, len, seed));
	EXPECT_EQ(-1, swr_check_byte(buf, off, CANARY));
	EXPECT_EQ(-1, swr_check_byte(buf + off + len, 64, CANARY));
}

static void do_send(struct __test_metadata *_metadata, struct wend *r,
		    struct wend *s, uint32_t len, uint8_t seed)
{
	struct ibv_wc wc;

	memset(s->buf, CANARY, len + 128);
	swr_fill(r->buf, len, seed);
	ASSERT_EQ(0, swr_post_recv1(s->qp, 2, s->buf + 64, len, s->mr->lkey));
	ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_SEND, 1, r->buf, len,
				    r->mr->lkey, 0, 0, IBV_SEND_SIGNALED));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	EXPECT_EQ(1, wc.wr_id);
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(s, &wc));
	EXPECT_EQ(2, wc.wr_id);
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_EQ(len, wc.byte_len);
	expect_region(_metadata, s->buf, 64, len, seed);
}

TEST_F(wire, send)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		do_send(_metadata, &self->a, &self->b, sizes[i], i);
		do_send(_metadata, &self->b, &self->a, sizes[i], i + 50);
	}
}

static void do_write(struct __test_metadata *_metadata, struct wend *r,
		     struct wend *s, uint32_t len, uint8_t seed, bool imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf, .length = len, .lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 3, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x12345678),
	}, *bad;
	struct ibv_wc wc;

	memset(s->buf, CANARY, len + 128);
	swr_fill(r->buf, len, seed);
	if (imm)
		ASSERT_EQ(0, swr_post_recv1(s->qp, 4, NULL, 0, 0));
	wr.wr.rdma.remote_addr = (uintptr_t)s->buf + 64;
	wr.wr.rdma.rkey = s->mr->rkey;
	ASSERT_EQ(0, ibv_post_send(r->qp, &wr, &bad));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	if (imm) {
		ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(s, &wc));
		EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc.opcode);
		EXPECT_EQ(htobe32(0x12345678), wc.imm_data);
		EXPECT_EQ(len, wc.byte_len);
	}
	expect_region(_metadata, s->buf, 64, len, seed);
}

TEST_F(wire, write)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		do_write(_metadata, &self->a, &self->b, sizes[i], i, false);
		do_write(_metadata, &self->b, &self->a, sizes[i], i + 50,
			 false);
	}
	do_write(_metadata, &self->a, &self->b, 5000, 99, true);
	do_write(_metadata, &self->b, &self->a, 5000, 98, true);
}

static void do_read(struct __test_metadata *_metadata, struct wend *r,
		    struct wend *s, uint32_t len, uint8_t seed)
{
	struct ibv_wc wc;

	memset(r->buf, CANARY, len + 128);
	swr_fill(s->buf, len, seed);
	ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_RDMA_READ, 5, r->buf + 64,
				    len, r->mr->lkey, (uintptr_t)s->buf,
				    s->mr->rkey, IBV_SEND_SIGNALED));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	EXPECT_EQ(IBV_WC_RDMA_READ, wc.opcode);
	expect_region(_metadata, r->buf, 64, len, seed);
}

TEST_F(wire, read)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		do_read(_metadata, &self->a, &self->b, sizes[i], i);
		do_read(_metadata, &self->b, &self->a, sizes[i], i + 50);
	}
}

static void do_atomic(struct __test_metadata *_metadata, struct wend *r,
		      struct wend *s)
{
	uint64_t *target = (uint64_t *)(s->buf + 256);
	uint64_t *orig = (uint64_t *)r->buf;
	struct ibv_sge sge = {
		.addr = (uintptr_t)orig, .length = 8, .lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 6, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	*target = 100;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = s->mr->rkey;

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 23;
	ASSERT_EQ(0, ibv_post_send(r->qp, &wr, &bad));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	EXPECT_EQ(IBV_WC_FETCH_ADD, wc.opcode);
	EXPECT_EQ(100, *orig);
	EXPECT_EQ(123, *target);

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 123;
	wr.wr.atomic.swap = 0xdeadbeefcafeULL;
	ASSERT_EQ(0, ibv_post_send(r->qp, &wr, &bad));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	EXPECT_EQ(IBV_WC_COMP_SWAP, wc.opcode);
	EXPECT_EQ(123, *orig);
	EXPECT_EQ(0xdeadbeefcafeULL, *target);

	/* A compare that fails leaves the target and returns it. */
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 2;
	ASSERT_EQ(0, ibv_post_send(r->qp, &wr, &bad));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	EXPECT_EQ(0xdeadbeefcafeULL, *orig);
	EXPECT_EQ(0xdeadbeefcafeULL, *target);
}

TEST_F(wire, atomics)
{
	do_atomic(_metadata, &self->a, &self->b);
	do_atomic(_metadata, &self->b, &self->a);
}

/* A burst of mixed work requests: completions in order, data right. */
TEST_F(wire, pipeline)
{
	struct wend *r = &self->a, *s = &self->b;
	struct ibv_wc wc;
	int i;

	memset(s->buf, CANARY, BUFSZ);
	swr_fill(r->buf, 32 * 4096, 7);
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_RDMA_WRITE, i,
					    r->buf + i * 4096, 4096,
					    r->mr->lkey,
					    (uintptr_t)s->buf + i * 4096,
					    s->mr->rkey, IBV_SEND_SIGNALED));
	for (i = 0; i < 32; i++) {
		ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
		EXPECT_EQ((uint64_t)i, wc.wr_id);
	}
	EXPECT_EQ(-1, swr_check(s->buf, 32 * 4096, 7));
}

/*
 * A busy loop on every CPU (the test's own spins too, yielding), killed
 * with the test or by swr_hogs_stop(). One per CPU: with a CPU left idle
 * the poller rightly stays awake there (swr_poll_idle_elsewhere()), and
 * the ping-pong below would have nothing to measure.
 */
static int swr_hogs_start(pid_t *pids, int max)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i;

	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > max)
		ncpu = max;
	for (i = 0; i < ncpu; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return i;
		if (!pids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/* Should the parent die before the prctl. */
			alarm(120);
			for (;;)
				;
		}
	}
	return i;
}

static void swr_hogs_stop(pid_t *pids, int n)
{
	while (n--) {
		kill(pids[n], SIGKILL);
		waitpid(pids[n], NULL, 0);
	}
}

/*
 * A ping-pong of WRITEs (post, wait for the completion) on CPUs where
 * other tasks spin: the sleeping poller is not woken for each WRITE's ACK
 * deadline (its timer is set instead), nor for the ACK (the doorbell
 * caller takes it, or a work item). Its wake-ups are bounded by the
 * latency policy's back-offs (one per millisecond at most: a doorbell
 * wakes the poller when the 1 ms back-off is over) plus an eighth of the
 * WRITEs; a poller woken once per WRITE, as before, exceeds that unless
 * each round trip takes over 0.9 ms (0.15-0.35 ms in a TCG guest).
 * Every WRITE's bytes are checked.
 */
TEST_F_TIMEOUT(wire, ping_pong_lets_poller_sleep, 120)
{
	static const char *const names[] = { "doorbells", "poller_wakeups" };
	const char *dev = getenv("SWR_WIRE_A");
	long long c0[2], c1[2], doorbells, wakeups;
	struct wend *r = &self->a, *s = &self->b;
	const int n = 400, len = 64;
	uint64_t t0, ms;
	pid_t hogs[8];
	int nhogs, i, bad = -1;
	struct ibv_wc wc;

	ASSERT_LE(0, swr_port_counter(dev, "doorbells"))
		TH_LOG("%s has no doorbells counter", dev);
	memset(s->buf, CANARY, BUFSZ);
	nhogs = swr_hogs_start(hogs, 8);
	/* Let the poller find its CPU contended and back off. */
	for (i = 0; i < 20; i++)
		do_write(_metadata, r, s, len, 200 + i, false);
	for (i = 0; i < 2; i++)
		c0[i] = swr_port_counter(dev, names[i]);
	t0 = swr_now_ms();
	for (i = 0; i < n && bad < 0; i++) {
		swr_fill(r->buf + (i % 64) * len, len, i);
		if (swr_post_send1(r->qp, IBV_WR_RDMA_WRITE, i,
				   r->buf + (i % 64) * len, len, r->mr->lkey,
				   (uintptr_t)s->buf + i * len, s->mr->rkey,
				   IBV_SEND_SIGNALED) ||
		    wend_wait(r, &wc) != IBV_WC_SUCCESS || wc.wr_id != (unsigned)i)
			bad = i;
	}
	ms = swr_now_ms() - t0;
	for (i = 0; i < 2; i++)
		c1[i] = swr_port_counter(dev, names[i]);
	swr_hogs_stop(hogs, nhogs);
	ASSERT_EQ(-1, bad) TH_LOG("WRITE %d failed", bad);
	for (i = 0; i < n; i++)
		ASSERT_EQ(-1, swr_check(s->buf + i * len, len, i))
			TH_LOG("WRITE %d", i);
	doorbells = c1[0] - c0[0];
	wakeups = c1[1] - c0[1];
	printf("# %d WRITEs in %llu ms next to %d busy loop(s): %lld doorbells, %lld poller wake-ups\n",
	       n, (unsigned long long)ms, nhogs, doorbells, wakeups);
	if (doorbells < n / 2)
		SKIP(return, "the poller kept polling (%lld doorbells): nothing to measure",
		     doorbells);
	EXPECT_LE(wakeups, n / 8 + (long long)ms);
}

/* No receive posted: RNR NAKs until one is, then the SEND completes. */
TEST_F(wire, rnr_then_recv)
{
	struct wend *r = &self->a, *s = &self->b;
	struct ibv_wc wc;

	swr_fill(r->buf, 3000, 3);
	memset(s->buf, CANARY, 4096);
	ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_SEND, 1, r->buf, 3000,
				    r->mr->lkey, 0, 0, IBV_SEND_SIGNALED));
	usleep(200 * 1000);
	EXPECT_EQ(0, swr_cq_count(r->cq, 0));
	ASSERT_EQ(0, swr_post_recv1(s->qp, 2, s->buf, 3000, s->mr->lkey));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc));
	ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(s, &wc));
	EXPECT_EQ(3000, wc.byte_len);
	EXPECT_EQ(-1, swr_check(s->buf, 3000, 3));
}

/* A bad rkey: the requester sees a remote access error. */
TEST_F(wire, bad_rkey)
{
	struct wend *r = &self->a, *s = &self->b;
	struct ibv_wc wc;

	ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_RDMA_WRITE, 9, r->buf, 100,
				    r->mr->lkey, (uintptr_t)s->buf,
				    s->mr->rkey + 0x100, IBV_SEND_SIGNALED));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, wend_wait(r, &wc));
}

/*
 * A WRITE with immediate that fails at the responder (swroce: device A)
 * after it took a receive WQE: that receive completes in error instead of
 * vanishing with the ring slot it left.
 */
TEST_F(wire, write_imm_failure_completes_recv)
{
	struct wend *r = &self->b, *s = &self->a;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf, .length = 100, .lkey = r->mr->lkey,
	};
	struct ibv_wc wc;

	ASSERT_EQ(0, swr_post_recv1(s->qp, 2, s->buf, 4096, s->mr->lkey));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0x1234);
	wr.wr.rdma.remote_addr = (uintptr_t)s->buf;
	wr.wr.rdma.rkey = s->mr->rkey + 0x100;
	ASSERT_EQ(0, ibv_post_send(r->qp, &wr, &bad));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, wend_wait(r, &wc));
	ASSERT_EQ(1, swr_poll_wait(s->cq, &wc, SWR_CQ_TIMEOUT_MS))
		TH_LOG("the receive WQE the WRITE took never completed");
	EXPECT_EQ(2, wc.wr_id);
	EXPECT_NE(IBV_WC_SUCCESS, wc.status);
}

/*
 * SQD on device A with WRITEs on the wire: IBV_EVENT_SQ_DRAINED comes
 * only once every WQE that had started is acknowledged, so no completion
 * arrives after it while the QP stays in SQD; back in RTS the rest go.
 */
TEST_F(wire, sqd_drained_after_acks)
{
	struct wend *r = &self->a, *s = &self->b;
	struct ibv_async_event ev;
	struct ibv_qp_attr a = { 0 };
	struct ibv_wc wc[16];
	int i, n, later;

	swr_fill(r->buf, BUFSZ, 9);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_RDMA_WRITE, i,
					    r->buf + i * 65536, 65536,
					    r->mr->lkey,
					    (uintptr_t)s->buf + i * 65536,
					    s->mr->rkey, IBV_SEND_SIGNALED));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ASSERT_EQ(0, ibv_modify_qp(r->qp, &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY));
	ASSERT_EQ(1, swr_wait_async(r->ctx, IBV_EVENT_SQ_DRAINED, &ev,
				    SWR_CQ_TIMEOUT_MS));
	n = ibv_poll_cq(r->cq, 16, wc);
	ASSERT_LE(0, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
	later = swr_cq_count(r->cq, 500);
	EXPECT_EQ(0, later) TH_LOG("%d completions after SQ_DRAINED", later);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(r->qp, &a, IBV_QP_STATE));
	for (i = n + later; i < 8; i++)
		ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, wc));
	EXPECT_EQ(-1, swr_check(s->buf, 8 * 65536, 9));
}

/* @e's QP to RESET and back to RTS towards @r's QP. */
static int wend_reconnect(struct wend *e, const struct wend *r)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE);

	return ret ? -ret : wend_connect(e, r);
}

/*
 * A SEND the responder acknowledged completes successfully when the
 * requester is moved to ERR right after the ACK arrived and before the
 * requester's poller got to it: the disconnect that libfabric's rxm sends
 * behind its last message, where the ACK waiting in the queue used to be
 * dropped and the SEND flushed. Device A's rx_pkts tells that the ACK has
 * arrived; the modify comes at once, many times over, while a second QP
 * pair streams WRITEs, so that A's poller is often busy elsewhere when
 * the ACK comes. That pair is UC: A receives nothing for it, so the ACK
 * is the only packet that can move A's rx_pkts. (An RC pair's own ACKs
 * did, and the responder writes the receive CQE before it sends the ACK:
 * the modify could then come before the SEND's ACK had arrived at all.)
 */
TEST_F_TIMEOUT(wire, acked_send_survives_error, 300)
{
	const char *na = getenv("SWR_WIRE_A"), *nb = getenv("SWR_WIRE_B");
	struct wend *r = &self->a, *s = &self->b, c, d;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	long long rx0, rx = 0;
	struct ibv_wc wc;
	int i, j, spins;

	ASSERT_EQ(0, wend_open_qpt(&c, na, IBV_QPT_UC));
	ASSERT_EQ(0, wend_open_qpt(&d, nb, IBV_QPT_UC));
	ASSERT_EQ(0, wend_connect(&c, &d));
	ASSERT_EQ(0, wend_connect(&d, &c));
	for (i = 0; i < 100; i++) {
		for (j = 0; j < 8; j++)
			ASSERT_EQ(0, swr_post_send1(c.qp, IBV_WR_RDMA_WRITE, j,
						    c.buf, BUFSZ, c.mr->lkey,
						    (uintptr_t)d.buf, d.mr->rkey,
						    j == 7 ? IBV_SEND_SIGNALED : 0));
		ASSERT_EQ(0, swr_post_recv1(s->qp, 2, s->buf, 64, s->mr->lkey));
		rx0 = swr_port_counter(na, "rx_pkts");
		ASSERT_LE(0, rx0);
		ASSERT_EQ(0, swr_post_send1(r->qp, IBV_WR_SEND, 1, r->buf, 64,
					    r->mr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(s, &wc));
		for (spins = 0; spins < 100000; spins++) {
			rx = swr_port_counter(na, "rx_pkts");
			if (rx != rx0)
				break;
		}
		ASSERT_NE(rx0, rx) TH_LOG("round %d: no ACK arrived", i);
		ASSERT_EQ(0, ibv_modify_qp(r->qp, &a, IBV_QP_STATE));
		ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(r, &wc))
			TH_LOG("round %d: %s", i, ibv_wc_status_str(wc.status));
		EXPECT_EQ(1, wc.wr_id);
		ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(&c, &wc));
		EXPECT_EQ(7, wc.wr_id);
		ASSERT_EQ(0, wend_reconnect(r, s));
		ASSERT_EQ(0, wend_reconnect(s, r));
	}
	wend_close(&c);
	wend_close(&d);
}

/* In-flight PSNs ------------------------------------------------------------ */

/* kernel/swr_wire.h: SWR_WIRE_INFLIGHT, what an RC requester has out. */
#define INFLIGHT	16384
#define BIGSZ		(8u << 20)	/* 32768 packets at MTU 256 */

/* A buffer of BIGSZ on @e, registered: 0 or -errno. */
static int big_region(struct wend *e, uint8_t **buf, struct ibv_mr **mr)
{
	*buf = mmap(NULL, BIGSZ, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED)
		return -errno;
	*mr = ibv_reg_mr(e->pd, *buf, BIGSZ, SWR_ALL_ACCESS);
	return *mr ? 0 : -errno;
}

/*
 * The debug kernel sends about 1,000 packets a second: the two tests below
 * get minutes rather than the harness's default 30 s.
 */

/* kernel/swr_cc.c: the loss window's first size, in PSNs. */
#define LW_INIT		32

#define LW_ATTR		"swroce/cc_loss_window"

/*
 * The packets device @dev put out: those sent (tx_pkts) and those the
 * stack refused (tx_dropped: a veth whose peer's backlog is full, as on a
 * busy host when the receive softirq waits for its CPU), or -1.
 */
static long long tx_out(const char *dev)
{
	long long sent = swr_port_counter(dev, "tx_pkts");
	long long dropped = swr_port_counter(dev, "tx_dropped");

	return sent < 0 || dropped < 0 ? -1 : sent + dropped;
}

/*
 * A WRITE of 32768 packets on @a's QP to a QPN nobody has, so that no ACK
 * ever comes: the packets device @dev put out (tx_out()) until nothing
 * more left for 2 s (at most 40 s), or -1.
 */
static long long blackhole_write(struct wend *a, struct wend *b,
				 const char *dev)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	long long tx0, tx = -1, prev;
	uint64_t t0, changed;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *buf;

	if (big_region(a, &buf, &mr))
		return -1;
	if (ibv_modify_qp(a->qp, &reset, IBV_QP_STATE) ||
	    wend_connect_to(a, b, (b->qp->qp_num + 0x7777) & 0xffffff,
			    IBV_MTU_256, 24))
		goto out;
	tx0 = tx_out(dev);
	if (tx0 < 0 ||
	    swr_post_send1(a->qp, IBV_WR_RDMA_WRITE, 1, buf, BIGSZ, mr->lkey,
			   0x10000, 0x1234, IBV_SEND_SIGNALED))
		goto out;
	t0 = changed = swr_now_ms();
	prev = tx0;
	while (swr_now_ms() - t0 < 40000) {
		usleep(100000);
		tx = tx_out(dev);
		if (tx != prev) {
			prev = tx;
			changed = swr_now_ms();
		} else if (tx > tx0 && swr_now_ms() - changed >= 2000) {
			break;
		}
	}
	tx = prev - tx0;
	printf("# %s put out %lld packets of 32768 in %.1f s, then waited\n",
	       dev, tx, (changed - t0) / 1000.0);
	/* Nothing answered: nothing completed. */
	if (ibv_poll_cq(a->cq, 1, &wc))
		tx = -1;
out:
	ibv_modify_qp(a->qp, &reset, IBV_QP_STATE);
	ibv_dereg_mr(mr);
	munmap(buf, BIGSZ);
	return tx;
}

/* blackhole_write() on device SWR_WIRE_A with cc_loss_window @lw, or -1. */
static long long blackhole_lw(struct wend *a, struct wend *b, const char *lw)
{
	const char *dev = getenv("SWR_WIRE_A");
	char path[256], old[8];
	long long tx;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/" LW_ATTR, dev);
	if (swr_read_line(path, old, sizeof(old)) ||
	    swr_dev_write(dev, LW_ATTR, lw))
		return -1;
	tx = blackhole_write(a, b, dev);
	swr_dev_write(dev, LW_ATTR, old);
	return tx;
}

/*
 * With no ACK ever coming, device A sends INFLIGHT packets, then waits
 * (until its 68 s timeout) instead of streaming PSNs past the range serial
 * arithmetic orders. With the loss window off: the wire's own bound.
 */
TEST_F_TIMEOUT(wire, inflight_bounded_without_acks, 120)
{
	long long tx = blackhole_lw(&self->a, &self->b, "0");

	EXPECT_GE(tx, INFLIGHT) TH_LOG("sent %lld packets", tx);
	EXPECT_LE(tx, INFLIGHT + 16) TH_LOG("sent %lld packets", tx);
}

/*
 * The same with the loss window on (cc_loss_window 1): the QP sends its
 * first window, LW_INIT PSNs, and waits for the answers that would grow
 * it; with no round trip measured there is no tail-loss probe either.
 */
TEST_F_TIMEOUT(wire, loss_window_bounds_without_acks, 120)
{
	long long tx = blackhole_lw(&self->a, &self->b, "1");

	EXPECT_EQ(LW_INIT, tx) TH_LOG("sent %lld packets", tx);
}

/* One RDMA @op of BIGSZ between @l and @r on @e's QP: its status, or -1. */
static int big_op(struct wend *e, enum ibv_wr_opcode op, uint8_t *l,
		  struct ibv_mr *lmr, uint8_t *r, struct ibv_mr *rmr)
{
	struct ibv_wc wc;

	if (swr_post_send1(e->qp, op, op, l, BIGSZ, lmr->lkey, (uintptr_t)r,
			   rmr->rkey, IBV_SEND_SIGNALED))
		return -1;
	/* 32768 packets: seconds under TCG, more with KASAN or to rxe. */
	if (swr_poll_wait(e->cq, &wc, 120000) != 1 || wc.wr_id != op)
		return -1;
	return wc.status;
}

/*
 * The same WRITE to the real peer streams through the bound as its ACKs
 * come back: every byte arrives, and a READ of it back is byte-exact.
 */
TEST_F_TIMEOUT(wire, write_beyond_inflight_streams, 600)
{
	uint8_t *rbuf, *sbuf;
	struct ibv_mr *rmr, *smr;
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };

	ASSERT_EQ(0, big_region(&self->a, &rbuf, &rmr));
	ASSERT_EQ(0, big_region(&self->b, &sbuf, &smr));
	/* Both at MTU 256: the READ's responses come at the responder's. */
	ASSERT_EQ(0, ibv_modify_qp(self->a.qp, &reset, IBV_QP_STATE));
	ASSERT_EQ(0, ibv_modify_qp(self->b.qp, &reset, IBV_QP_STATE));
	ASSERT_EQ(0, wend_connect_to(&self->a, &self->b, self->b.qp->qp_num,
				     IBV_MTU_256, 14));
	ASSERT_EQ(0, wend_connect_to(&self->b, &self->a, self->a.qp->qp_num,
				     IBV_MTU_256, 14));
	swr_fill(rbuf, BIGSZ, 77);
	memset(sbuf, CANARY, BIGSZ);
	ASSERT_EQ(IBV_WC_SUCCESS, big_op(&self->a, IBV_WR_RDMA_WRITE, rbuf,
					 rmr, sbuf, smr));
	EXPECT_EQ(-1, swr_check(sbuf, BIGSZ, 77));
	memset(rbuf, 0, BIGSZ);
	ASSERT_EQ(IBV_WC_SUCCESS, big_op(&self->a, IBV_WR_RDMA_READ, rbuf,
					 rmr, sbuf, smr));
	EXPECT_EQ(-1, swr_check(rbuf, BIGSZ, 77));
	ibv_dereg_mr(rmr);
	ibv_dereg_mr(smr);
	munmap(rbuf, BIGSZ);
	munmap(sbuf, BIGSZ);
}

/*
 * Responses in PSN order (kernel/swr_wire_resp.c): B reads 64 KiB from A,
 * whose responses A's poller sends, and writes 64 bytes behind it. A
 * holds the WRITE's ACK until the READ's last response has gone: rdma_rxe
 * as B takes an ACK that overtakes them for their loss and asks for the
 * READ again, which A counts in dup_requests (3 a pair, without the
 * hold-back). Every byte checked; a few duplicates are allowed for
 * timeouts on a busy host.
 */
#define RW_PAIRS	40

TEST_F_TIMEOUT(wire, read_then_write_answered_in_order, 300)
{
	const char *na = getenv("SWR_WIRE_A");
	uint32_t len = 65536, i;
	struct ibv_mr *amr, *bmr;
	uint8_t *abuf, *bbuf;
	long long d0, d1;
	struct ibv_wc wc;
	int k;

	d0 = swr_port_counter(na, "dup_requests");
	if (d0 < 0)
		SKIP(return, "%s is not a swroce device", na);
	ASSERT_EQ(0, big_region(&self->a, &abuf, &amr));
	ASSERT_EQ(0, big_region(&self->b, &bbuf, &bmr));
	for (i = 0; i < RW_PAIRS; i++) {
		swr_fill(abuf, len, 60 + i);
		memset(bbuf, CANARY, len + 64);
		swr_fill(bbuf + BIGSZ / 2, 64, 90 + i);
		ASSERT_EQ(0, swr_post_send1(self->b.qp, IBV_WR_RDMA_READ,
					    2 * i, bbuf, len, bmr->lkey,
					    (uintptr_t)abuf, amr->rkey,
					    IBV_SEND_SIGNALED));
		ASSERT_EQ(0, swr_post_send1(self->b.qp, IBV_WR_RDMA_WRITE,
					    2 * i + 1, bbuf + BIGSZ / 2, 64,
					    bmr->lkey,
					    (uintptr_t)abuf + BIGSZ / 2,
					    amr->rkey, IBV_SEND_SIGNALED));
		for (k = 0; k < 2; k++) {
			ASSERT_EQ(IBV_WC_SUCCESS, wend_wait(&self->b, &wc))
				TH_LOG("pair %u: %s", i,
				       ibv_wc_status_str(wc.status));
			EXPECT_EQ(2 * i + k, wc.wr_id);
		}
		ASSERT_EQ(-1, swr_check(bbuf, len, 60 + i));
		ASSERT_EQ(-1, swr_check_byte(bbuf + len, 64, CANARY));
		ASSERT_EQ(-1, swr_check(abuf + BIGSZ / 2, 64, 90 + i));
	}
	d1 = swr_port_counter(na, "dup_requests");
	printf("# %d READs of 64 KiB, each with a WRITE behind it: %s took "
	       "%lld duplicate requests\n", RW_PAIRS, na, d1 - d0);
	EXPECT_LE(d1 - d0, RW_PAIRS / 10);
	ibv_dereg_mr(amr);
	ibv_dereg_mr(bmr);
	munmap(abuf, BIGSZ);
	munmap(bbuf, BIGSZ);
}

/*
 * Receive steering (kernel/swr_steer.c): the packets of a stream that A's
 * poller sends are taken in by device B on another CPU, which B's
 * rx_steered counts, while B's swroce/rx_steer is 1, and none are with
 * 0; either way every byte arrives, and the bytes around it are
 * untouched. Needs B to be swroce and a second CPU.
 */
#define STEER_ATTR	"swroce/rx_steer"

TEST_F_TIMEOUT(wire, rx_steering, 300)
{
	const char *nb = getenv("SWR_WIRE_B");
	struct ibv_mr *amr, *bmr;
	uint8_t *abuf, *bbuf;
	char path[256], old[8];
	long long s0, s1;
	struct ibv_wc wc;
	int on;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: nowhere to steer to");
	if (swr_port_counter(nb, "rx_steered") < 0)
		SKIP(return, "%s is not a swroce device", nb);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/" STEER_ATTR,
		 nb);
	ASSERT_EQ(0, swr_read_line(path, old, sizeof(old)));
	ASSERT_EQ(0, big_region(&self->a, &abuf, &amr));
	ASSERT_EQ(0, big_region(&self->b, &bbuf, &bmr));
	for (on = 1; on >= 0; on--) {
		ASSERT_EQ(0, swr_dev_write(nb, STEER_ATTR, on ? "1" : "0"));
		swr_fill(abuf, BIGSZ, 40 + on);
		memset(bbuf, CANARY, BIGSZ);
		s0 = swr_port_counter(nb, "rx_steered");
		/* All but the edges: the bytes around must stay. */
		ASSERT_EQ(0, swr_post_send1(self->a.qp, IBV_WR_RDMA_WRITE, on,
					    abuf, BIGSZ - 8192, amr->lkey,
					    (uintptr_t)bbuf + 4096, bmr->rkey,
					    IBV_SEND_SIGNALED));
		ASSERT_EQ(1, swr_poll_wait(self->a.cq, &wc, 120000));
		ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
		EXPECT_EQ(on, wc.wr_id);
		s1 = swr_port_counter(nb, "rx_steered");
		ASSERT_LE(0, s0);
		if (on) {
			EXPECT_LT(s0, s1) TH_LOG("nothing steered");
		} else {
			EXPECT_EQ(s0, s1) TH_LOG("%lld steered while off",
						 s1 - s0);
		}
		EXPECT_EQ(-1, swr_check_byte(bbuf, 4096, CANARY));
		EXPECT_EQ(-1, swr_check(bbuf + 4096, BIGSZ - 8192, 40 + on));
		EXPECT_EQ(-1, swr_check_byte(bbuf + BIGSZ - 4096, 4096,
					     CANARY));
	}
	swr_dev_write(nb, STEER_ATTR, old);
	ibv_dereg_mr(amr);
	ibv_dereg_mr(bmr);
	munmap(abuf, BIGSZ);
	munmap(bbuf, BIGSZ);
}

TEST_HARNESS_MAIN
