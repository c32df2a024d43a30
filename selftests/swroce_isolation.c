// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Isolation between the users of one device (issue 11, item 1).
 *
 * The victim (this process, root) runs an RC and a UC pair on the device
 * under test, with receives posted, an MR open to remote access and a type
 * 2 memory window bound. The attacker is a child process with another uid
 * (nobody) that knows everything the victim has: its QPNs, the PSN its
 * responders expect, the rkeys and addresses. It connects QPs of its own
 * to the device's GID with dest_qpn = the victim's QPN, once with the PSN
 * the victim expects and once with another, and tries every request
 * opcode. Local delivery knows the sending QP, so it must accept requests
 * only from the QP the victim is connected to:
 *  - every attacker RC request fails (no answer: retry exceeded), every
 *    UC one vanishes (the UC requester cannot tell);
 *  - nothing reaches the victim: no receive consumed, no byte of its
 *    memory changed, its window still valid, its QPs still in RTS;
 *  - the real peers' traffic afterwards arrives whole (nothing lost to a
 *    moved PSN), byte by byte.
 * A genuine peer whose send PSN is not the PSN the responder expects gets
 * nothing through either (the wire's sequence rules).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		(64 * 1024)
#define CANARY		0xa5
#define RECV_FILL	0xee
#define NRECV		4
#define MSG		512
#define NOBODY		65534

/* What the attacker is told: all of it. */
struct target {
	uint32_t rc_qpn, uc_qpn;
	uint32_t psn;		/* what the victim's responders expect */
	uint64_t addr;		/* the victim's buffer */
	uint32_t rkey;		/* its MR */
	uint32_t mw_rkey;	/* the window bound on it */
};

FIXTURE(iso) {
	struct swr_pair rc;
	struct swr_pair uc;
	struct swr_bufs b;	/* the RC pair's memory */
	struct swr_bufs ub;	/* the UC pair's */
	struct ibv_mw *mw;
	uint32_t mw_rkey;
};

static void post_recvs(struct __test_metadata *_metadata, struct ibv_qp *qp,
		       uint8_t *buf, uint32_t lkey)
{
	int i;

	memset(buf, RECV_FILL, NRECV * MSG);
	for (i = 0; i < NRECV; i++)
		ASSERT_EQ(0, swr_post_recv1(qp, 100 + i, buf + i * MSG, MSG,
					    lkey));
}

FIXTURE_SETUP(iso)
{
	struct swr_qp_opts uo = { .type = IBV_QPT_UC };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_wc wc;
	int ret;

	ret = swr_pair_open(&self->rc);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", swr_test_dev(), strerror(-ret));
	ret = swr_bufs_init(&self->b, self->rc.pd, BUFSZ,
			    SWR_ALL_ACCESS | IBV_ACCESS_MW_BIND);
	ASSERT_EQ(0, ret);
	swr_t_create(_metadata, &self->rc, NULL);
	ASSERT_EQ(0, swr_pair_open(&self->uc));
	ASSERT_EQ(0, swr_bufs_init(&self->ub, self->uc.pd, BUFSZ,
				   SWR_ALL_ACCESS));
	swr_t_create(_metadata, &self->uc, &uo);

	/* The victim's memory: a pattern; its receive buffers: a fill. */
	swr_fill(self->b.sbuf, BUFSZ, 0x11);
	swr_fill(self->ub.sbuf, BUFSZ, 0x22);
	post_recvs(_metadata, self->rc.s.qp, self->b.sbuf + BUFSZ / 2,
		   self->b.smr->lkey);
	post_recvs(_metadata, self->uc.s.qp, self->ub.sbuf + BUFSZ / 2,
		   self->ub.smr->lkey);

	/* A type 2 window on the first page: SEND_WITH_INV's target. */
	self->mw = ibv_alloc_mw(self->rc.pd, IBV_MW_TYPE_2);
	ASSERT_NE(NULL, self->mw);
	self->mw_rkey = ibv_inc_rkey(self->mw->rkey);
	wr.wr_id = 7;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = self->mw;
	wr.bind_mw.rkey = self->mw_rkey;
	wr.bind_mw.bind_info.mr = self->b.smr;
	wr.bind_mw.bind_info.addr = (uintptr_t)self->b.sbuf;
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_READ;
	ASSERT_EQ(0, ibv_post_send(self->rc.s.qp, &wr, &bad));
	swr_t_wait_wc(_metadata, self->rc.s.scq, 7, IBV_WC_SUCCESS, &wc);
}

FIXTURE_TEARDOWN(iso)
{
	swr_pair_destroy_qps(&self->rc);
	if (self->mw)
		ibv_dealloc_mw(self->mw);
	swr_bufs_fini(&self->b);
	swr_pair_close(&self->rc);
	swr_pair_destroy_qps(&self->uc);
	swr_bufs_fini(&self->ub);
	swr_pair_close(&self->uc);
}

/* The attacker ------------------------------------------------------------ */

/* Every attack: a transport and the opcode it sends. */
static const struct attack {
	enum ibv_qp_type type;
	enum ibv_wr_opcode op;
} attacks[] = {
	{ IBV_QPT_RC, IBV_WR_SEND },
	{ IBV_QPT_RC, IBV_WR_SEND_WITH_IMM },
	{ IBV_QPT_RC, IBV_WR_SEND_WITH_INV },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ IBV_QPT_RC, IBV_WR_RDMA_READ },
	{ IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD },
	{ IBV_QPT_RC, IBV_WR_ATOMIC_CMP_AND_SWP },
	{ IBV_QPT_UC, IBV_WR_SEND },
	{ IBV_QPT_UC, IBV_WR_SEND_WITH_IMM },
	{ IBV_QPT_UC, IBV_WR_RDMA_WRITE },
	{ IBV_QPT_UC, IBV_WR_RDMA_WRITE_WITH_IMM },
};

#define NATTACKS	(2 * ARRAY_SIZE(attacks))  /* each at two PSNs */

/*
 * One request of opcode @op from a fresh attacker QP of type @type that
 * claims to be the peer of @dqpn, sending at @psn. 0 when it got through
 * nothing (RC: an error completion; UC: a completion, as UC gives), or a
 * line number saying what went wrong.
 */
static int attack_one(struct swr_pair *a, const struct target *t,
		      enum ibv_qp_type type, enum ibv_wr_opcode op,
		      uint32_t dqpn, uint32_t psn, uint8_t *buf,
		      struct ibv_mr *mr)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = MSG, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int ret = 0;

	a->o.type = type;
	a->o.sq_psn = psn;
	a->o.retry_cnt = 0;
	a->o.timeout = 8;	/* ~1 ms: no answer is the expected case */
	if (swr_end_create(a, &a->c, NULL) ||
	    swr_qp_connect(a, a->c.qp, dqpn))
		return __LINE__;

	memset(buf, 0x5a, BUFSZ);
	switch (op) {
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		sge.length = 8;
		wr.wr.atomic.remote_addr = t->addr + 64;
		wr.wr.atomic.rkey = t->rkey;
		wr.wr.atomic.compare_add = 0;
		wr.wr.atomic.swap = 0x4141414141414141ull;
		break;
	case IBV_WR_SEND_WITH_INV:
		wr.invalidate_rkey = t->mw_rkey;
		break;
	default:
		wr.wr.rdma.remote_addr = t->addr;
		wr.wr.rdma.rkey = t->rkey;
		wr.imm_data = htonl(0xbad);
		break;
	}
	if (ibv_post_send(a->c.qp, &wr, &bad))
		ret = __LINE__;
	else if (swr_wait(a->c.scq, &wc) != 1)
		ret = __LINE__;
	else if (type == IBV_QPT_RC && wc.status == IBV_WC_SUCCESS)
		ret = __LINE__;	/* the victim answered */
	else if (type == IBV_QPT_UC && wc.status != IBV_WC_SUCCESS)
		ret = __LINE__;
	else if (swr_check_byte(buf, BUFSZ, 0x5a) != -1)
		ret = __LINE__;	/* READ or atomic data came back */
	swr_end_destroy(&a->c);
	return ret;
}

/* The child: drop to nobody and try everything. Exit status 0: nothing got in. */
static int attacker(const struct target *t)
{
	const uint32_t psns[2] = { t->psn, (t->psn + 5) & 0xffffff };
	struct swr_pair a;
	struct ibv_mr *mr;
	uint8_t *buf;
	unsigned int i, k;
	int ret;

	if (setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY) || getuid() != NOBODY)
		return 100;
	if (swr_pair_open(&a))
		return 101;
	buf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 102;
	mr = ibv_reg_mr(a.pd, buf, BUFSZ, SWR_ALL_ACCESS);
	if (!mr)
		return 103;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < ARRAY_SIZE(attacks); i++) {
			const struct attack *x = &attacks[i];

			ret = attack_one(&a, t, x->type, x->op,
					 x->type == IBV_QPT_RC ? t->rc_qpn :
								 t->uc_qpn,
					 psns[k], buf, mr);
			if (ret) {
				fprintf(stderr, "# %s op %d psn %#x: line %d\n",
					x->type == IBV_QPT_RC ? "rc" : "uc",
					x->op, psns[k], ret);
				return 1;
			}
		}
	}
	ibv_dereg_mr(mr);
	swr_pair_close(&a);
	return 0;
}

/* The victim's checks -------------------------------------------------------- */

/* Nothing of @p's server changed: no receive taken, no byte written. */
static void untouched(struct __test_metadata *_metadata, struct swr_pair *p,
		      struct swr_bufs *b, uint8_t seed)
{
	long bad;

	EXPECT_EQ(0, swr_cq_count(p->s.rcq, 200));
	bad = swr_check(b->sbuf, BUFSZ / 2, seed);
	EXPECT_EQ(-1, bad) TH_LOG("victim memory changed at byte %ld", bad);
	bad = swr_check_byte(b->sbuf + BUFSZ / 2, NRECV * MSG, RECV_FILL);
	EXPECT_EQ(-1, bad) TH_LOG("victim receive buffer written at %ld", bad);
	EXPECT_EQ(IBV_QPS_RTS, swr_qp_state(p->s.qp));
	EXPECT_EQ(IBV_QPS_RTS, swr_qp_state(p->c.qp));
}

/* The real peer's NRECV SENDs arrive whole and in order. */
static void peer_sends(struct __test_metadata *_metadata, struct swr_pair *p,
		       struct swr_bufs *b)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < NRECV; i++) {
		swr_fill(b->cbuf + i * MSG, MSG, (uint8_t)(0x30 + i));
		ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, i,
					    b->cbuf + i * MSG, MSG,
					    b->cmr->lkey, 0, 0,
					    IBV_SEND_SIGNALED));
		swr_t_wait_wc(_metadata, p->c.scq, i, IBV_WC_SUCCESS, NULL);
		swr_t_wait_wc(_metadata, p->s.rcq, 100 + i, IBV_WC_SUCCESS,
			      &wc);
		EXPECT_EQ(MSG, wc.byte_len);
		EXPECT_EQ(-1, swr_check(b->sbuf + BUFSZ / 2 + i * MSG, MSG,
					(uint8_t)(0x30 + i)));
	}
}

TEST_F(iso, other_uid_cannot_reach_victim_qps)
{
	long long drops = swr_counter("rx_drop_qp");
	struct target t = {
		.rc_qpn = self->rc.s.qp->qp_num,
		.uc_qpn = self->uc.s.qp->qp_num,
		.psn = 0x1234,	/* swr_qp_connect()'s; nothing sent yet */
		.addr = (uintptr_t)self->b.sbuf,
		.rkey = self->b.smr->rkey,
		.mw_rkey = self->mw_rkey,
	};
	struct ibv_wc wc;
	int status;
	pid_t pid;

	ASSERT_EQ(0, getuid()) TH_LOG("needs root to run a second uid");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(attacker(&t));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("the attacker got through (status %d)",
		       WEXITSTATUS(status));
	/* Every attack was a request dropped for not being the peer's. */
	EXPECT_LE(drops + (long long)NATTACKS, swr_counter("rx_drop_qp"));

	untouched(_metadata, &self->rc, &self->b, 0x11);
	untouched(_metadata, &self->uc, &self->ub, 0x22);

	/* The real peers lose nothing; the window was not invalidated. */
	peer_sends(_metadata, &self->rc, &self->b);
	peer_sends(_metadata, &self->uc, &self->ub);
	swr_fill(self->b.cbuf, 256, 0x44);
	ASSERT_EQ(0, swr_post_send1(self->rc.c.qp, IBV_WR_RDMA_WRITE, 9,
				    self->b.cbuf, 256, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf + 128,
				    self->mw_rkey, IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, self->rc.c.scq, 9, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(-1, swr_check(self->b.sbuf + 128, 256, 0x44));
}

/*
 * The genuine peer, sending at a PSN its responder does not expect:
 * nothing is executed (the wire would NAK it or take it as a duplicate),
 * the requester gives up after its retries.
 */
TEST_F(iso, peer_with_wrong_psn_is_refused)
{
	struct swr_qp_opts o = { .sq_psn = 0x2000, .timeout = 8 };
	struct swr_pair *p = &self->rc;
	struct ibv_wc wc;

	swr_pair_destroy_qps(p);
	swr_t_create(_metadata, p, &o);
	post_recvs(_metadata, p->s.qp, self->b.sbuf + BUFSZ / 2,
		   self->b.smr->lkey);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_SEND, 1, self->b.cbuf,
				    MSG, self->b.cmr->lkey, 0, 0,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 1, IBV_WC_RETRY_EXC_ERR, &wc);
	ASSERT_EQ(0, swr_post_send1(p->c.qp, IBV_WR_RDMA_WRITE, 2,
				    self->b.cbuf, MSG, self->b.cmr->lkey,
				    (uintptr_t)self->b.sbuf, self->b.smr->rkey,
				    IBV_SEND_SIGNALED));
	swr_t_wait_wc(_metadata, p->c.scq, 2, IBV_WC_WR_FLUSH_ERR, &wc);
	EXPECT_EQ(0, swr_cq_count(p->s.rcq, 200));
	EXPECT_EQ(-1, swr_check(self->b.sbuf, BUFSZ / 2, 0x11));
	EXPECT_EQ(-1, swr_check_byte(self->b.sbuf + BUFSZ / 2, NRECV * MSG,
				     RECV_FILL));
	EXPECT_EQ(IBV_QPS_RTS, swr_qp_state(p->s.qp));
}

TEST_HARNESS_MAIN
