// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-QP counters through the RDMA core ("rdma statistic qp"): a counter
 * bound to a QP by hand and counters bound automatically by QP type count
 * exactly what their QPs did, and the port's figures ("rdma statistic show
 * link", sysfs hw_counters) still count every event once, while the
 * counters run and after they are gone. The numbers come from the rdma
 * tool's JSON output, as an administrator would read them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		4096

/* What a QP counter shows, in the order the driver lists them. */
enum {
	C_WQE_CONSUMED,
	C_DOORBELLS,
	C_COMPLETIONS,
	C_ERR_LOCAL,
	C_ERR_REMOTE,
	C_RNR_NAK,
	C_RETRY_EXC,
	C_FLUSHED,
	C_NUM
};

static const char *const cname[C_NUM] = {
	"wqe_consumed", "doorbells", "completions", "err_local",
	"err_remote", "rnr_nak", "retry_exceeded", "flushed",
};

struct qp_counter {
	long cntn;
	long v[C_NUM];
	int nqps;
};

/* Run a shell command; its exit status. */
static int run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The value of "@name": in the JSON object text [@obj, @end), or -1. */
static long json_num(const char *obj, const char *end, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(obj, key);
	if (!p || p >= end)
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

/*
 * The counter of the device under test that @qpn is bound to, read from
 * `rdma -j statistic qp show`: 0 and *@c filled, or -ENOENT.
 */
static int read_counter(uint32_t qpn, struct qp_counter *c)
{
	static char out[65536];
	char cmd[256], *obj, *end, *l, *q;
	size_t n;
	FILE *f;
	int i;

	snprintf(cmd, sizeof(cmd), "rdma -j statistic qp show link %s/1",
		 swr_test_dev());
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	pclose(f);

	/* Objects have no nested objects, only the lqpn array. */
	for (obj = strchr(out, '{'); obj; obj = strchr(end + 1, '{')) {
		end = strchr(obj, '}');
		if (!end)
			break;
		*end = 0;
		l = strstr(obj, "\"lqpn\":[");
		if (!l)
			continue;
		c->nqps = 0;
		for (q = l + 8; *q && *q != ']';) {
			long v = strtol(q, &q, 10);

			c->nqps++;
			if (v == (long)qpn) {
				c->cntn = json_num(obj, end, "cntn");
				for (i = 0; i < C_NUM; i++)
					c->v[i] = json_num(obj, end, cname[i]);
				/* Count the rest of the array too. */
				while (*q && *q != ']') {
					if (*q == ',')
						c->nqps++;
					q++;
				}
				return 0;
			}
			while (*q == ',' || *q == ' ')
				q++;
		}
	}
	return -ENOENT;
}

/* A port counter from sysfs hw_counters, or -1. */
static long port_counter(const char *name)
{
	return swr_port_counter(swr_test_dev(), name);
}

static void port_snapshot(long *v)
{
	int i;

	for (i = 0; i < C_NUM; i++)
		v[i] = port_counter(cname[i]);
}

FIXTURE(cnt) {
	struct swr_pair p;
	uint8_t *buf;
	struct ibv_mr *mr;
	long port0[C_NUM];
};

FIXTURE_SETUP(cnt)
{
	int ret;

	if (run("rdma statistic qp mode link %s/1 >/dev/null 2>&1",
		swr_test_dev()))
		SKIP(return, "rdma tool without statistic qp");
	ret = swr_pair_open(&self->p);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	self->buf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	self->mr = ibv_reg_mr(self->p.pd, self->buf, BUFSZ, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, self->mr);
	port_snapshot(self->port0);
}

FIXTURE_TEARDOWN(cnt)
{
	swr_pair_destroy_qps(&self->p);
	/* Only possible once no QP is bound any more. */
	run("rdma statistic qp set link %s/1 auto off >/dev/null 2>&1",
	    swr_test_dev());
	if (self->mr)
		ibv_dereg_mr(self->mr);
	if (self->buf && self->buf != MAP_FAILED)
		munmap(self->buf, BUFSZ);
	swr_pair_close(&self->p);
}

static void wait_status(struct __test_metadata *_metadata, struct ibv_cq *cq,
			enum ibv_wc_status status)
{
	struct ibv_wc wc;

	ASSERT_EQ(1, swr_wait(cq, &wc));
	ASSERT_EQ(status, wc.status) TH_LOG("%s, want %s",
					    ibv_wc_status_str(wc.status),
					    ibv_wc_status_str(status));
}

static void expect_counter(struct __test_metadata *_metadata, uint32_t qpn,
			   const char *who, const long *want, long max_doorbells)
{
	struct qp_counter c;
	int i;

	ASSERT_EQ(0, read_counter(qpn, &c))
		TH_LOG("%s: QP %u is bound to no counter", who, qpn);
	ksft_print_msg("%s QP %u, counter %ld: %s %ld %s %ld %s %ld %s %ld %s %ld %s %ld %s %ld %s %ld\n",
		       who, qpn, c.cntn, cname[0], c.v[0], cname[1], c.v[1],
		       cname[2], c.v[2], cname[3], c.v[3], cname[4], c.v[4],
		       cname[5], c.v[5], cname[6], c.v[6], cname[7], c.v[7]);
	for (i = 0; i < C_NUM; i++) {
		if (i == C_DOORBELLS) {
			/* One per post at most: only a sleeping poller needs one. */
			EXPECT_LE(c.v[i], max_doorbells);
			EXPECT_LE(0, c.v[i]);
			continue;
		}
		EXPECT_EQ(want[i], c.v[i])
			TH_LOG("%s counter %ld: %s", who, c.cntn, cname[i]);
	}
}

static void expect_port_delta(struct __test_metadata *_metadata,
			      const long *port0, const long *delta)
{
	long now[C_NUM];
	int i;

	port_snapshot(now);
	for (i = 0; i < C_NUM; i++) {
		if (i == C_DOORBELLS)
			continue;
		EXPECT_EQ(delta[i], now[i] - port0[i])
			TH_LOG("port %s: %ld -> %ld", cname[i], port0[i], now[i]);
	}
}

/*
 * Each QP bound to a counter of its own by hand: 5 SENDs, 3 unsignaled
 * WRITEs and a signaled one, an RNR (the server has no receive left,
 * rnr_retry 0), then both QPs in error with 2 WQEs each to flush.
 */
TEST_F(cnt, bound_by_hand)
{
	struct swr_pair *p = &self->p;
	long cl[C_NUM] = { 0 }, sv[C_NUM] = { 0 }, port[C_NUM] = { 0 };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int i, posts = 0;
	uint32_t cqpn, sqpn;

	ASSERT_EQ(0, swr_pair_create(p, NULL));
	cqpn = p->c.qp->qp_num;
	sqpn = p->s.qp->qp_num;
	ASSERT_EQ(0, run("rdma statistic qp bind link %s/1 lqpn %u",
			 swr_test_dev(), cqpn));
	ASSERT_EQ(0, run("rdma statistic qp bind link %s/1 lqpn %u",
			 swr_test_dev(), sqpn));
	/* Fresh counters, each with its QP alone. */
	expect_counter(_metadata, cqpn, "client", cl, 0);
	expect_counter(_metadata, sqpn, "server", sv, 0);

	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, i, self->buf, 64,
					    self->mr->lkey));
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, i,
					    self->buf + 64, 64, self->mr->lkey,
					    0, 0, IBV_SEND_SIGNALED));
		posts++;
		wait_status(_metadata, p->c.scq, IBV_WC_SUCCESS);
		wait_status(_metadata, p->s.rcq, IBV_WC_SUCCESS);
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 10 + i,
					    self->buf + 128, 64,
					    self->mr->lkey,
					    (uintptr_t)self->buf + 256,
					    self->mr->rkey,
					    i == 3 ? IBV_SEND_SIGNALED : 0));
		posts++;
	}
	wait_status(_metadata, p->c.scq, IBV_WC_SUCCESS);
	cl[C_WQE_CONSUMED] = 9;
	cl[C_COMPLETIONS] = 6;
	sv[C_COMPLETIONS] = 5;
	expect_counter(_metadata, cqpn, "client", cl, posts);
	expect_counter(_metadata, sqpn, "server", sv, 0);

	/* No receive posted: RNR NAK, and with rnr_retry 0 the end. */
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 20, self->buf, 64,
				    self->mr->lkey, 0, 0, IBV_SEND_SIGNALED));
	posts++;
	wait_status(_metadata, p->c.scq, IBV_WC_RNR_RETRY_EXC_ERR);
	ASSERT_EQ(IBV_QPS_ERR, swr_qp_wait_state(p->c.qp, IBV_QPS_ERR, 5000));

	/* Two WQEs for the client's SQ, two receives for the server's RQ. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 30 + i,
					    self->buf, 64, self->mr->lkey, 0,
					    0, 0));
		posts++;
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, 40 + i, self->buf, 64,
					    self->mr->lkey));
	}
	ASSERT_EQ(0, ibv_modify_qp(p->s.qp, &a, IBV_QP_STATE));
	for (i = 0; i < 2; i++) {
		wait_status(_metadata, p->c.scq, IBV_WC_WR_FLUSH_ERR);
		wait_status(_metadata, p->s.rcq, IBV_WC_WR_FLUSH_ERR);
	}

	cl[C_WQE_CONSUMED] = 10;
	cl[C_COMPLETIONS] = 9;
	cl[C_RETRY_EXC] = 1;
	cl[C_FLUSHED] = 2;
	sv[C_COMPLETIONS] = 7;
	sv[C_RNR_NAK] = 1;
	sv[C_FLUSHED] = 2;
	expect_counter(_metadata, cqpn, "client", cl, posts);
	expect_counter(_metadata, sqpn, "server", sv, 0);

	/* The port counts all of it once: its own part plus the counters. */
	for (i = 0; i < C_NUM; i++)
		port[i] = cl[i] + sv[i];
	expect_port_delta(_metadata, self->port0, port);
	/* Still so once the QPs, and with them the counters, are gone. */
	swr_pair_destroy_qps(p);
	EXPECT_EQ(-ENOENT, read_counter(cqpn, &(struct qp_counter){ 0 }));
	expect_port_delta(_metadata, self->port0, port);
}

/* Auto mode by type: both RC QPs on one counter from their INIT on. */
TEST_F(cnt, auto_by_type)
{
	struct swr_pair *p = &self->p;
	long both[C_NUM] = { 0 };
	struct qp_counter c, s;
	int i;

	ASSERT_EQ(0, run("rdma statistic qp set link %s/1 auto type on",
			 swr_test_dev()));
	ASSERT_EQ(0, swr_pair_create(p, NULL));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, swr_post_recv1(p->s.qp, i, self->buf, 64,
					    self->mr->lkey));
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, i,
					    self->buf + 64, 64, self->mr->lkey,
					    0, 0, IBV_SEND_SIGNALED));
		wait_status(_metadata, p->c.scq, IBV_WC_SUCCESS);
		wait_status(_metadata, p->s.rcq, IBV_WC_SUCCESS);
	}
	ASSERT_EQ(0, read_counter(p->c.qp->qp_num, &c));
	ASSERT_EQ(0, read_counter(p->s.qp->qp_num, &s));
	EXPECT_EQ(c.cntn, s.cntn);
	EXPECT_EQ(2, c.nqps);
	both[C_WQE_CONSUMED] = 3;
	both[C_COMPLETIONS] = 6;
	expect_counter(_metadata, p->c.qp->qp_num, "both", both, 3);
	expect_port_delta(_metadata, self->port0, both);
}

TEST_HARNESS_MAIN
