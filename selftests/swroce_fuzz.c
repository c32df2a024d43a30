// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hostile packets on the wire (issue 4): random and mutated RoCEv2
 * packets at a swroce device with live QPs, for SWR_FUZZ_SECS seconds.
 *
 * The device under attack is SWR_FUZZ_DEV (the victim, e.g. 10.79.1.1);
 * SWR_FUZZ_PEER is a second swroce device at the other end of the veth,
 * in the namespace this program runs in (selftests/swroce_fuzz.sh). The
 * packets leave through a raw IPv4 socket (the IP header is ours, so that
 * it can be mutated and the ICRC computed over it) and an IPv6 UDP socket.
 *
 * The victim carries
 *  - bystander QPs (one RC, one UD) connected to the peer, whose traffic
 *    is checked byte by byte before, during and after the attack; they
 *    only ever get packets that must be dropped before the transport (bad
 *    ICRC, bad P_Key, bad transport version);
 *  - sacrificial QPs (RC, UC, UD) in a PD of their own, which get mutants
 *    with a correct ICRC for every opcode of their transport, with random
 *    fields; they are recreated when they legitimately go to error. The
 *    RC one also keeps requests outstanding, so that forged ACKs, NAKs
 *    and READ/atomic responses reach its requester.
 * Unknown, dead and reserved QPNs (0, 1, 0xffffff) get valid mutants too.
 *
 * The packets are built with swr_roce_pkt.h (ICRC, opcode layouts).
 * Output: TAP.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "swr_qp_test.h"
#include "swr_roce_pkt.h"

#define ROCE_PORT	4791
#define V6_SPORT	47910
#define SAC_QKEY	0x5ac0001u
#define SAC_LEN		65536
#define BY_LEN		(256 * 1024)
#define MTU		1024
#define FAKE_QPN	0xfff000u	/* the sacrificial QPs' "remote" */
#define SPSN		0x100000u
#define RPSN		0x200000u

/* xorshift64*: reproducible from SWR_FUZZ_SEED */
static uint64_t rs;

static uint64_t rnd64(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() >> 32) % n : 0;
}

static bool chance(int pct)
{
	return rnd(100) < (uint32_t)pct;
}

/* Devices, QPs ----------------------------------------------------------- */

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int gidx;
	union ibv_gid gid;
	uint8_t *buf;
	struct ibv_mr *mr;
};

struct sac {
	enum ibv_qp_type type;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t qpn;
	uint32_t dead_qpn;
	uint32_t spsn_next;	/* next PSN its requester uses */
	uint32_t rpsn;		/* our guess of its responder's PSN */
	int outstanding;
	int recvs;
	unsigned int recreated;
};

static struct dev va, vb;		/* victim, peer */
static struct ibv_pd *sac_pd;
static uint8_t *sac_buf;
static struct ibv_mr *sac_mr;
static struct sac sac[3];
static struct ibv_cq *by_cqa, *by_cqb;
static struct ibv_qp *by_rca, *by_rcb, *by_uda, *by_udb;
static struct ibv_ah *ah_ab, *ah_ba;
static uint32_t a_ip, b_ip;		/* network order */
static struct in6_addr a_ip6, b_ip6;
static int raw4, udp6 = -1;
static uint32_t spoof_ip;		/* network order; 0: b_ip */

static int dev_open(struct dev *d, const char *name)
{
	d->name = name;
	d->ctx = swr_open_dev(name);
	if (!d->ctx)
		return -ENODEV;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return -errno;
	d->buf = mmap(NULL, BY_LEN, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->buf == MAP_FAILED)
		return -errno;
	d->mr = ibv_reg_mr(d->pd, d->buf, BY_LEN, SWR_ALL_ACCESS);
	if (!d->mr)
		return -errno;
	return swr_find_gid(d->ctx, true, &d->gidx, &d->gid);
}

static long long dev_counter(const char *dev, const char *name)
{
	char path[256], buf[32];

	usleep(20000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	if (swr_read_line(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/* The path MTU qp_up() gives RC/UC QPs. */
static enum ibv_mtu up_mtu = IBV_MTU_1024;

/* RESET -> RTS. UD: qkey; RC/UC: towards @dgid/@dqpn. */
static int qp_up(struct ibv_qp *qp, int gidx, const union ibv_gid *dgid,
		 uint32_t dqpn, uint32_t qkey, uint32_t rq_psn,
		 uint32_t sq_psn, uint8_t timeout, uint8_t retry)
{
	struct ibv_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = qkey;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = SWR_ALL_ACCESS;
		if (qp->qp_type == IBV_QPT_UC)
			a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (qp->qp_type != IBV_QPT_UD) {
		a.path_mtu = up_mtu;
		a.dest_qp_num = dqpn;
		a.rq_psn = rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *dgid;
		a.ah_attr.grh.sgid_index = gidx;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (qp->qp_type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 16;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = timeout;
		a.retry_cnt = retry;
		a.rnr_retry = retry;
		a.max_rd_atomic = 16;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	return -ret;
}

static struct ibv_qp *qp_new(struct ibv_pd *pd, struct ibv_cq *scq,
			     struct ibv_cq *rcq, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = t,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};

	return ibv_create_qp(pd, &a);
}

static int post_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len,
		     uint32_t lkey)
{
	return swr_post_recv1(qp, id, addr, len, lkey);
}

/* Sacrificial QPs -------------------------------------------------------- */

static void sac_post_req(struct sac *s)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_SEND, IBV_WR_RDMA_WRITE,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_RDMA_READ,
	};
	enum ibv_wr_opcode op;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	uint32_t len;

	while (s->outstanding < 6) {
		op = ops[rnd(5)];
		len = op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 8 : 1 + rnd(3500);
		sge.addr = (uintptr_t)sac_buf + 8 * rnd(SAC_LEN / 16);
		sge.length = len;
		sge.lkey = sac_mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = op;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = 0x10000;
			wr.wr.atomic.rkey = 0x1234;
			wr.wr.atomic.compare_add = 1;
		} else {
			wr.wr.rdma.remote_addr = 0x10000;
			wr.wr.rdma.rkey = 0x1234;
		}
		if (ibv_post_send(s->qp, &wr, &bad))
			return;
		s->spsn_next += op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 1 :
				(len + MTU - 1) / MTU;
		s->outstanding++;
	}
}

static int sac_create(struct sac *s)
{
	int i, ret;

	if (!s->cq) {
		s->cq = ibv_create_cq(va.ctx, 1024, NULL, NULL, 0);
		if (!s->cq)
			return -errno;
	}
	s->qp = qp_new(sac_pd, s->cq, s->cq, s->type);
	if (!s->qp)
		return -errno;
	s->qpn = s->qp->qp_num;
	s->spsn_next = SPSN;
	s->rpsn = RPSN;
	s->outstanding = 0;
	s->recvs = 0;
	ret = qp_up(s->qp, va.gidx, &vb.gid, FAKE_QPN, SAC_QKEY, RPSN, SPSN,
		    16, 3);
	if (ret)
		return ret;
	for (i = 0; i < (s->type == IBV_QPT_UD ? 8 : 32); i++)
		if (!post_recv(s->qp, 2, sac_buf + 4096 * (i & 7), 4096,
			       sac_mr->lkey))
			s->recvs++;
	if (s->type == IBV_QPT_RC)
		sac_post_req(s);
	return 0;
}

static void sac_destroy(struct sac *s)
{
	struct ibv_wc wc[32];

	if (s->qp) {
		s->dead_qpn = s->qpn;
		ibv_destroy_qp(s->qp);
		s->qp = NULL;
	}
	while (s->cq && ibv_poll_cq(s->cq, 32, wc) > 0)
		;
}

static unsigned long long sac_wcs, sac_wc_err;

/* Drain, refill and recreate the sacrificial QPs. */
static int sac_service(bool refill_ud)
{
	struct ibv_wc wc[32];
	struct sac *s;
	int i, n, ret;

	for (s = sac; s < sac + 3; s++) {
		while ((n = ibv_poll_cq(s->cq, 32, wc)) > 0) {
			for (i = 0; i < n; i++) {
				sac_wcs++;
				if (wc[i].status != IBV_WC_SUCCESS)
					sac_wc_err++;
				if (wc[i].opcode & IBV_WC_RECV)
					s->recvs--;
				else
					s->outstanding--;
			}
		}
		if (swr_qp_state(s->qp) == IBV_QPS_ERR) {
			sac_destroy(s);
			ret = sac_create(s);
			if (ret)
				return ret;
			s->recreated++;
			continue;
		}
		if (s->type != IBV_QPT_UD || refill_ud)
			while (s->recvs < (s->type == IBV_QPT_UD ? 8 : 32) &&
			       !post_recv(s->qp, 2, sac_buf + 4096 * rnd(15),
					  4096, sac_mr->lkey))
				s->recvs++;
		if (s->type == IBV_QPT_RC)
			sac_post_req(s);
	}
	return 0;
}

/* Bystander traffic, checked byte by byte ------------------------------- */

static int wait1(struct ibv_cq *cq, uint64_t id, enum ibv_wc_opcode op,
		 uint32_t len)
{
	struct ibv_wc wc;

	if (swr_poll_wait(cq, &wc, SWR_CQ_TIMEOUT_MS) != 1) {
		printf("# bystander: no completion for %llu\n",
		       (unsigned long long)id);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != id || wc.opcode != op ||
	    ((op & IBV_WC_RECV) && wc.byte_len != len)) {
		printf("# bystander: wc id %llu status %d opcode %d len %u\n",
		       (unsigned long long)wc.wr_id, wc.status, wc.opcode,
		       wc.byte_len);
		return -1;
	}
	return 0;
}

/*
 * @len bytes of pattern @seed at @off; canaries: 64 bytes after, and
 * @pre bytes from @off - 64 (a UD receive has its GRH right before).
 */
static int region_ok(const uint8_t *buf, uint32_t off, uint32_t len,
		     uint8_t seed, uint32_t pre)
{
	long bad = swr_check(buf + off, len, seed);

	if (bad >= 0 || swr_check_byte(buf + off - 64, pre, 0xa5) >= 0 ||
	    swr_check_byte(buf + off + len, 64, 0xa5) >= 0) {
		printf("# bystander: data wrong at %u+%u (first bad byte %ld)\n",
		       off, len, bad);
		return -1;
	}
	return 0;
}

static unsigned int by_rounds;

/* One round: RC SEND both ways, WRITE, READ, UD both ways. */
static int bystander_round(void)
{
	uint8_t seed = (uint8_t)(by_rounds++ * 7 + 1);
	uint32_t len = 1 + rnd(5000), ulen = 1 + rnd(MTU - 64);
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;

	/* RC SEND B -> A (multi-packet at MTU 1024) */
	memset(va.buf, 0xa5, 16384);
	swr_fill(vb.buf, len, seed);
	if (post_recv(by_rca, 10, va.buf + 64, 8192, va.mr->lkey) ||
	    swr_post_send1(by_rcb, IBV_WR_SEND, 11, vb.buf, len, vb.mr->lkey,
			   0, 0, IBV_SEND_SIGNALED) ||
	    wait1(by_cqb, 11, IBV_WC_SEND, 0) ||
	    wait1(by_cqa, 10, IBV_WC_RECV, len) ||
	    region_ok(va.buf, 64, len, seed, 64))
		return -1;
	/* RC SEND A -> B */
	memset(vb.buf + 16384, 0xa5, 16384);
	swr_fill(va.buf + 32768, len, seed + 1);
	if (post_recv(by_rcb, 12, vb.buf + 16384 + 64, 8192, vb.mr->lkey) ||
	    swr_post_send1(by_rca, IBV_WR_SEND, 13, va.buf + 32768, len,
			   va.mr->lkey, 0, 0, IBV_SEND_SIGNALED) ||
	    wait1(by_cqa, 13, IBV_WC_SEND, 0) ||
	    wait1(by_cqb, 12, IBV_WC_RECV, len) ||
	    region_ok(vb.buf + 16384, 64, len, seed + 1, 64))
		return -1;
	/* WRITE A -> B */
	memset(vb.buf + 65536, 0xa5, 16384);
	swr_fill(va.buf + 65536, len, seed + 2);
	if (swr_post_send1(by_rca, IBV_WR_RDMA_WRITE, 14, va.buf + 65536, len,
			   va.mr->lkey, (uintptr_t)vb.buf + 65536 + 64,
			   vb.mr->rkey, IBV_SEND_SIGNALED) ||
	    wait1(by_cqa, 14, IBV_WC_RDMA_WRITE, 0) ||
	    region_ok(vb.buf + 65536, 64, len, seed + 2, 64))
		return -1;
	/* READ A <- B */
	memset(va.buf + 98304, 0xa5, 16384);
	swr_fill(vb.buf + 98304, len, seed + 3);
	if (swr_post_send1(by_rca, IBV_WR_RDMA_READ, 15, va.buf + 98304 + 64,
			   len, va.mr->lkey, (uintptr_t)vb.buf + 98304,
			   vb.mr->rkey, IBV_SEND_SIGNALED) ||
	    wait1(by_cqa, 15, IBV_WC_RDMA_READ, 0) ||
	    region_ok(va.buf + 98304, 64, len, seed + 3, 64))
		return -1;
	/* UD B -> A and A -> B: GRH (40 bytes) + payload */
	memset(va.buf + 131072, 0xa5, 8192);
	swr_fill(vb.buf + 131072, ulen, seed + 4);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)vb.buf + 131072;
	sge.length = ulen;
	sge.lkey = vb.mr->lkey;
	wr.wr_id = 16;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah_ba;
	wr.wr.ud.remote_qpn = by_uda->qp_num;
	wr.wr.ud.remote_qkey = SWR_QKEY;
	if (post_recv(by_uda, 17, va.buf + 131072 + 64 - 40, 4096 + 40,
		      va.mr->lkey) ||
	    ibv_post_send(by_udb, &wr, &bad) ||
	    wait1(by_cqb, 16, IBV_WC_SEND, 0) ||
	    wait1(by_cqa, 17, IBV_WC_RECV, ulen + 40) ||
	    region_ok(va.buf + 131072, 64, ulen, seed + 4, 24))
		return -1;
	memset(vb.buf + 139264, 0xa5, 8192);
	swr_fill(va.buf + 139264, ulen, seed + 5);
	sge.addr = (uintptr_t)va.buf + 139264;
	sge.lkey = va.mr->lkey;
	wr.wr_id = 18;
	wr.wr.ud.ah = ah_ab;
	wr.wr.ud.remote_qpn = by_udb->qp_num;
	if (post_recv(by_udb, 19, vb.buf + 139264 + 64 - 40, 4096 + 40,
		      vb.mr->lkey) ||
	    ibv_post_send(by_uda, &wr, &bad) ||
	    wait1(by_cqa, 18, IBV_WC_SEND, 0) ||
	    wait1(by_cqb, 19, IBV_WC_RECV, ulen + 40) ||
	    region_ok(vb.buf + 139264, 64, ulen, seed + 5, 24))
		return -1;
	return 0;
}

/* Packets ---------------------------------------------------------------- */

/* What was sent that must be dropped, by the reason it must be dropped for. */
static unsigned long long n_sent, n_send_err, n_icrc, n_pkey, n_ver, n_ihl,
	n_noqp, n_qkey, n_rand, n_valid, n_v6;

enum target { T_SAC_RC, T_SAC_UC, T_SAC_UD, T_BY_RC, T_BY_UD, T_UNKNOWN,
	      T_DEAD, T_QP0, T_QP1, T_MCAST, T_NTARGETS };

/*
 * A RoCE packet (BTH .. payload, without ICRC) into @p for @t; returns
 * its length. @clean: a well-formed packet (valid opcode for the
 * transport, consistent lengths), to which one controlled defect is added.
 */
static size_t build(uint8_t *p, enum target t, bool clean)
{
	struct sac *s = NULL;
	uint8_t op, tp;
	unsigned int f;
	uint32_t qpn, psn, pay, pad, i;
	size_t h;

	switch (t) {
	case T_SAC_RC: case T_SAC_UC: case T_SAC_UD:
		s = &sac[t - T_SAC_RC];
		qpn = s->qpn;
		tp = t == T_SAC_RC ? 0x00 : t == T_SAC_UC ? 0x20 : 0x60;
		break;
	case T_BY_RC:
		qpn = by_rca->qp_num;
		tp = 0x00;
		break;
	case T_BY_UD:
		qpn = by_uda->qp_num;
		tp = 0x60;
		break;
	case T_UNKNOWN:
		qpn = 0x800000 + rnd(0x7ff000);
		tp = rnd(3) == 0 ? 0x00 : rnd(2) ? 0x20 : 0x60;
		break;
	case T_DEAD:
		qpn = sac[rnd(3)].dead_qpn;
		tp = rnd(3) == 0 ? 0x00 : rnd(2) ? 0x20 : 0x60;
		break;
	case T_QP0:
		qpn = 0;
		tp = 0x60;
		break;
	case T_QP1:
		qpn = 1;
		tp = 0x60;
		break;
	default:
		qpn = 0xffffff;
		tp = 0x60;
		break;
	}

	if (tp == 0x60)
		op = 0x64 + rnd(2);
	else if (tp == 0x20)
		op = 0x20 | rnd(0x0c);
	else
		op = rc_ops[rnd(sizeof(rc_ops))];
	if (!clean && chance(5))
		op = rnd(256);		/* anything, valid or not */
	f = op_flags(op);
	if ((op & 0xe0) == 0x60)
		f = (op & 0x1f) == 0x04 ? PAY | REQ | DETH :
		    (op & 0x1f) == 0x05 ? PAY | REQ | DETH | IMM : 0;

	/* BTH */
	if (s && (f & RESP))
		psn = SPSN + rnd(s->spsn_next - SPSN + 4) - 2;
	else if (s)
		psn = chance(50) ? s->rpsn : s->rpsn + rnd(5) - 2;
	else
		psn = rnd(1 << 24);
	if (s && (f & REQ) && chance(50))
		s->rpsn++;
	p[0] = op;
	p[1] = (uint8_t)(rnd(4) << 6);		/* SE, MigReq */
	if (!clean && chance(3))
		p[1] |= 1 + rnd(15);		/* TVer */
	p[2] = 0xff;
	p[3] = 0xff;
	if (chance(5))
		p[2] = 0x7f;			/* limited member */
	if (!clean && chance(3)) {
		p[2] = rnd(256);
		p[3] = rnd(256);
	}
	put_be32(p + 4, qpn & 0xffffff);
	p[4] = rnd(256);			/* resv8a, masked */
	put_be32(p + 8, (psn & 0xffffff) | (chance(50) ? 0x80000000u : 0));
	h = 12;

	if (f & DETH) {
		uint32_t qkey = s && chance(80) ? SAC_QKEY :
				t == T_BY_UD ? SWR_QKEY : (uint32_t)rnd64();

		if (t == T_QP1 && chance(50))
			qkey = 0x80010000u;
		put_be32(p + h, qkey);
		put_be32(p + h + 4, (uint32_t)rnd64());
		h += 8;
	}
	if (f & RETH) {
		uint64_t a = (uintptr_t)sac_buf;

		switch (rnd(4)) {
		case 0: a += rnd(SAC_LEN); break;
		case 1: a += SAC_LEN - rnd(64); break;
		case 2: a = rnd64(); break;
		default: a += rnd(SAC_LEN / 2) & ~7u; break;
		}
		put_be64(p + h, a);
		put_be32(p + h + 8, chance(60) ? sac_mr->rkey :
			 (uint32_t)rnd64());
		switch (rnd(6)) {
		case 0: i = 0; break;
		case 1: i = rnd(MTU + 1); break;
		case 2: i = rnd(SAC_LEN); break;
		case 3: i = (uint32_t)rnd64(); break;
		case 4: i = 0xffffffffu; break;
		default: i = 8; break;
		}
		put_be32(p + h + 12, i);
		h += 16;
	}
	if (f & AETH) {
		static const uint8_t syn[] = { 0x00, 0x1f, 0x20, 0x3f, 0x60,
					       0x61, 0x62, 0x63, 0x64, 0x65 };
		uint8_t sy = chance(80) ? syn[rnd(sizeof(syn))] : rnd(256);

		put_be32(p + h, ((uint32_t)sy << 24) | rnd(1 << 24));
		h += 4;
	}
	if (f & ATMACK) {
		put_be64(p + h, rnd64());
		h += 8;
	}
	if (f & ATMETH) {
		uint64_t a = (uintptr_t)sac_buf + (rnd(SAC_LEN / 8) * 8);

		if (chance(30))
			a = chance(50) ? a + 1 + rnd(7) : rnd64();
		put_be64(p + h, a);
		put_be32(p + h + 8, chance(70) ? sac_mr->rkey :
			 (uint32_t)rnd64());
		put_be64(p + h + 12, rnd64());
		put_be64(p + h + 20, rnd64());
		h += 28;
	}
	if (f & (IMM | IETH)) {
		put_be32(p + h, chance(30) ? sac_mr->rkey : (uint32_t)rnd64());
		h += 4;
	}

	/* payload and pad */
	pay = 0;
	if (f & PAY) {
		switch (rnd(5)) {
		case 0: pay = 0; break;
		case 1: pay = 1 + rnd(16); break;
		case 2: pay = MTU - 4 + rnd(9); break;
		case 3: pay = (op & 0x1f) == 0x1d ? 8 : rnd(MTU); break;
		default: pay = rnd(1300); break;
		}
		if (clean && pay > MTU)
			pay = MTU;
	} else if (!clean && chance(10)) {
		pay = 1 + rnd(64);		/* data where none belongs */
	}
	pad = clean ? (4 - (pay & 3)) & 3 : rnd(4);
	p[1] |= pad << 4;
	if (!clean && chance(10))
		pay += rnd(4);			/* pad and length disagree */
	for (i = 0; i < pay; i++)
		p[h + i] = (uint8_t)rnd64();
	memset(p + h + pay, 0, clean ? pad : 0);
	h += pay + (clean ? pad : 0);
	if (!clean && chance(8))
		h = rnd(h + 1);			/* truncated */
	return h < 12 && clean ? 12 : h;
}

/* Send @roce (@len bytes, ICRC appended here) to the victim over IPv4. */
static void send4(uint8_t *roce, size_t len, bool bad_icrc, bool ihl6,
		  bool icrc_ok)
{
	uint8_t pkt[2048];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = a_ip };
	size_t il = ihl6 ? 24 : 20, tot = il + 8 + len + 4;
	uint8_t *ip = pkt, *udp = pkt + il;
	uint32_t c;

	memset(pkt, 0, il + 8);
	ip[0] = 0x40 | (il / 4);
	ip[1] = rnd(256);			/* TOS: masked */
	ip[2] = tot >> 8;
	ip[3] = tot;
	ip[4] = 1 + rnd(255);			/* id, non-zero: ours */
	ip[5] = rnd(256);
	ip[6] = 0x40;				/* DF */
	ip[8] = 1 + rnd(255);			/* TTL: masked */
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, spoof_ip ? &spoof_ip : &b_ip, 4);
	memcpy(ip + 16, &a_ip, 4);
	if (ihl6)
		memset(ip + 20, 1, 4);		/* four NOP options */
	udp[0] = 0xc0 | rnd(64);
	udp[1] = rnd(256);
	udp[2] = ROCE_PORT >> 8;
	udp[3] = ROCE_PORT & 0xff;
	udp[4] = (8 + len + 4) >> 8;
	udp[5] = (8 + len + 4) & 0xff;
	memcpy(pkt + il + 8, roce, len);
	if (icrc_ok && len >= 12) {
		/* the kernel's ICRC takes the fixed 20-byte header only */
		uint8_t hdr[20];

		memcpy(hdr, ip, 20);
		hdr[0] = 0x45;
		c = icrc(hdr, true, udp, pkt + il + 8, len);
	} else {
		c = (uint32_t)rnd64();
	}
	if (bad_icrc)
		c ^= 1u << rnd(32);
	put_le32(pkt + il + 8 + len, c);
	if (sendto(raw4, pkt, tot, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		n_send_err++;
	else
		n_sent++;
}

/* The same over IPv6, through a UDP socket bound to [b_ip6]:V6_SPORT. */
static void send6(uint8_t *roce, size_t len, bool bad_icrc)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
				   .sin6_port = htons(ROCE_PORT),
				   .sin6_addr = a_ip6 };
	uint8_t ip6[40] = { 0x60 }, udp[8], buf[2048];
	uint32_t c;

	ip6[4] = (8 + len + 4) >> 8;
	ip6[5] = (8 + len + 4) & 0xff;
	ip6[6] = IPPROTO_UDP;
	memcpy(ip6 + 8, &b_ip6, 16);
	memcpy(ip6 + 24, &a_ip6, 16);
	udp[0] = V6_SPORT >> 8;
	udp[1] = V6_SPORT & 0xff;
	udp[2] = ROCE_PORT >> 8;
	udp[3] = ROCE_PORT & 0xff;
	udp[4] = ip6[4];
	udp[5] = ip6[5];
	udp[6] = udp[7] = 0;
	memcpy(buf, roce, len);
	c = len >= 12 ? icrc(ip6, false, udp, roce, len) : 0;
	if (bad_icrc)
		c ^= 1u << rnd(32);
	put_le32(buf + len, c);
	if (sendto(udp6, buf, len + 4, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		n_send_err++;
	else
		n_sent++;
}

/* One fuzz packet of a randomly chosen class. */
static void fuzz_one(void)
{
	uint8_t roce[1600];
	unsigned int c = rnd(100);
	enum target t;
	size_t len;
	bool v6 = udp6 >= 0 && chance(15);

	if (c < 8) {
		/* random bytes after a valid UDP header */
		len = rnd(1400);
		for (size_t i = 0; i < len; i++)
			roce[i] = (uint8_t)rnd64();
		n_rand++;
		send4(roce, len, false, false, chance(50));
		return;
	}
	if (c < 26) {
		/* a bystander gets a well-formed packet with one defect */
		t = chance(50) ? T_BY_RC : T_BY_UD;
		len = build(roce, t, true);
		switch (rnd(3)) {
		case 0:
			n_icrc++;
			if (v6) {
				n_v6++;
				send6(roce, len, true);
			} else {
				send4(roce, len, true, false, true);
			}
			return;
		case 1:
			roce[2] = 0x80 | rnd(128);	/* not the default */
			if ((roce[2] & 0x7f) == 0x7f && roce[3] == 0xff)
				roce[3] = 0xfe;
			n_pkey++;
			break;
		default:
			roce[1] |= 1 + rnd(15);
			n_ver++;
			break;
		}
		if (v6) {
			n_v6++;
			send6(roce, len, false);
		} else {
			send4(roce, len, false, false, true);
		}
		return;
	}
	if (c < 30) {
		/* IP options: the ICRC cannot cover them, dropped */
		len = build(roce, T_BY_UD, true);
		n_ihl++;
		send4(roce, len, false, true, true);
		return;
	}
	if (c < 38) {
		/* well-formed, valid ICRC, nobody there */
		t = chance(70) ? T_UNKNOWN : chance(50) ? T_QP0 : T_MCAST;
		len = build(roce, t, true);
		n_noqp++;
		goto send_valid;
	}
	if (c < 42) {
		/* UD with the wrong Q_Key to a live sacrificial UD QP */
		len = build(roce, T_SAC_UD, true);
		put_be32(roce + 12, SAC_QKEY ^ (1 + rnd(0xffff)));
		n_qkey++;
		goto send_valid;
	}
	/* mutants with a valid ICRC at the sacrificial QPs and the rest */
	c = rnd(100);
	t = c < 35 ? T_SAC_RC : c < 60 ? T_SAC_UC : c < 80 ? T_SAC_UD :
	    c < 88 ? T_DEAD : c < 94 ? T_QP1 : T_UNKNOWN;
	len = build(roce, t, false);
	n_valid++;
	if (len < 12) {
		send4(roce, len, false, false, false);
		return;
	}
send_valid:
	if (v6) {
		n_v6++;
		send6(roce, len, false);
	} else {
		send4(roce, len, false, false, true);
	}
}

/* Into netns @name (none: stay); @old gets our own, to return to. */
static int netns_enter(const char *name, int *old)
{
	char path[256];
	int fd;

	if (!name || !*name)
		return 0;
	*old = open("/proc/self/ns/net", O_RDONLY);
	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	fd = open(path, O_RDONLY);
	if (*old < 0 || fd < 0 || setns(fd, CLONE_NEWNET))
		return -1;
	close(fd);
	return 0;
}

/* READ amplification (issue 11, item 2) ------------------------------------ */

#define AMP_LEN		(64u << 20)
#define AMP_QPN		(FAKE_QPN + 8)

static uint8_t *amp_buf;
static struct ibv_mr *amp_mr;

/* A fresh RC QP on the victim whose peer is AMP_QPN at the peer's GID. */
static struct ibv_qp *amp_qp(enum ibv_mtu mtu)
{
	struct ibv_qp *qp = qp_new(sac_pd, sac[0].cq, sac[0].cq, IBV_QPT_RC);

	up_mtu = mtu;
	if (qp && qp_up(qp, va.gidx, &vb.gid, AMP_QPN, 0, RPSN, SPSN, 16, 3)) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	up_mtu = IBV_MTU_1024;
	return qp;
}

/*
 * A READ request from the QP's peer address, at @psn; the time sendto()
 * took, in us: on a veth, the receiving softirq runs in the sender's
 * syscall, so this is what the request cost the victim there.
 */
static uint64_t amp_read(uint32_t qpn, uint32_t psn, uint64_t va_,
			 uint32_t rkey, uint32_t len)
{
	uint8_t roce[12 + 16] = { 0 };
	struct timespec t0, t1;

	roce[0] = 0x0c;				/* RC RDMA READ request */
	roce[2] = roce[3] = 0xff;		/* P_Key */
	put_be32(roce + 4, qpn);
	put_be32(roce + 8, psn & 0xffffff);
	roce[8] = 0x80;				/* AckReq */
	put_be64(roce + 12, va_);
	put_be32(roce + 20, rkey);
	put_be32(roce + 24, len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	send4(roce, sizeof(roce), false, false, true);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000ull +
	       (t1.tv_nsec - t0.tv_nsec) / 1000;
}

/*
 * Packets the victim sent other than CNPs: the forged requests carry a
 * random TOS, and one marked CE rightly makes the victim send a CNP.
 */
static long long amp_sent(void)
{
	return dev_counter(va.name, "tx_pkts") -
	       dev_counter(va.name, "np_cnp_sent");
}

/* Wait up to @ms for amp_sent() to reach @want. */
static long long amp_wait_sent(long long want, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	long long v;

	do {
		v = amp_sent();
	} while (v < want && swr_now_ms() < end);
	return v;
}

/* Wait up to @ms for counter @name of the victim to reach @want. */
static long long amp_wait(const char *name, long long want, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	long long v;

	do {
		v = dev_counter(va.name, name);
	} while (v < want && swr_now_ms() < end);
	return v;
}

#define CTR_MAX 128

/* Every port counter of the victim, by name (sorted as readdir gives). */
struct ctr_snap {
	unsigned int n;
	char name[CTR_MAX][48];
	long long v[CTR_MAX];
};

static void ctr_snap(struct ctr_snap *s)
{
	char dir[200], path[300], buf[32];
	struct dirent *de;
	DIR *d;

	s->n = 0;
	snprintf(dir, sizeof(dir),
		 "/sys/class/infiniband/%s/ports/1/hw_counters", va.name);
	d = opendir(dir);
	while (d && (de = readdir(d)) && s->n < CTR_MAX) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(s->name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (swr_read_line(path, buf, sizeof(buf)))
			continue;
		strcpy(s->name[s->n], de->d_name);
		s->v[s->n++] = strtoll(buf, NULL, 10);
	}
	if (d)
		closedir(d);
}

/* Print the counters that moved between @a and @b (a failure's context). */
static void ctr_diff(const struct ctr_snap *a, const struct ctr_snap *b)
{
	unsigned int i, j;

	for (i = 0; i < b->n; i++)
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i]) &&
			    a->v[j] != b->v[i])
				printf("#   %s +%lld\n", b->name[i],
				       b->v[i] - a->v[j]);
}

/* Wait until the victim has sent nothing for a while (at most 10 s). */
static void amp_settle(void)
{
	long long a = amp_sent(), b;
	uint64_t end = swr_now_ms() + 10000;

	while (swr_now_ms() < end) {
		usleep(200000);
		b = amp_sent();
		if (a == b)
			return;
		a = b;
	}
}

/*
 * A 64 MiB READ costs the softirq at most a few response packets; the
 * poller sends the rest, a burst at a time, while the victim's other QPs
 * keep working. Lengths above 2^31, and READs taking more PSNs than the
 * responder can order, are NAKed with invalid request; a "duplicate" READ
 * gets responses only for the range the original asked for.
 */
static void read_amplification(void)
{
	static struct ctr_snap cs0, cs1;
	uint32_t npkts = AMP_LEN / 1024, rkey;
	uint64_t small = ~0ull, big, t, base_ms, busy_ms;
	long long tx0, tx, nak0, dup0, drop;
	struct ibv_qp *qp;
	int i, ok;

	amp_buf = mmap(NULL, AMP_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	amp_mr = amp_buf != MAP_FAILED ?
		 ibv_reg_mr(sac_pd, amp_buf, AMP_LEN, SWR_ALL_ACCESS) : NULL;
	qp = amp_mr ? amp_qp(IBV_MTU_1024) : NULL;
	swr_tap(qp, "a %u MiB MR and an RC QP to read it", AMP_LEN >> 20);
	if (!qp)
		return;
	rkey = amp_mr->rkey;

	/* What one small READ costs (best of five), then the big one. */
	for (i = 0; i < 5; i++) {
		t = amp_read(qp->qp_num, RPSN + i, (uintptr_t)amp_buf, rkey, 8);
		small = t < small ? t : small;
	}
	t = swr_now_ms();
	ok = !bystander_round();
	base_ms = swr_now_ms() - t;
	tx0 = amp_sent();
	big = amp_read(qp->qp_num, RPSN + 5, (uintptr_t)amp_buf, rkey, AMP_LEN);
	t = swr_now_ms();
	ok = ok && !bystander_round();
	busy_ms = swr_now_ms() - t;
	swr_tap(big < 200000 && big < small + 200000,
	    "a %u MiB READ request held the softirq %llu us (a 8-byte one: %llu us)",
	    AMP_LEN >> 20, (unsigned long long)big,
	    (unsigned long long)small);
	swr_tap(ok && busy_ms < 10 * base_ms + 2000,
	    "bystander RC/UD round trips while the responses go out: %llu ms (idle %llu ms)",
	    (unsigned long long)busy_ms, (unsigned long long)base_ms);
	tx = amp_wait_sent(tx0 + npkts, 120000);
	swr_tap(tx - tx0 >= npkts,
	    "the poller sent all %u response packets (%lld packets left the victim)",
	    npkts, tx - tx0);

	/* A duplicate must ask for the original range: other ones are dropped. */
	amp_settle();
	ctr_snap(&cs0);
	dup0 = dev_counter(va.name, "rx_drop_dup_bad");
	tx0 = amp_sent();
	amp_read(qp->qp_num, RPSN + 5, (uintptr_t)amp_buf + 4096, rkey,
		 AMP_LEN - 4096);
	amp_read(qp->qp_num, RPSN + 5, (uintptr_t)amp_buf, rkey, AMP_LEN / 2);
	amp_read(qp->qp_num, RPSN + 6, (uintptr_t)amp_buf + 1024, rkey ^ 0x100,
		 AMP_LEN - 1024);
	drop = amp_wait("rx_drop_dup_bad", dup0 + 3, 5000) - dup0;
	tx = amp_sent() - tx0;
	swr_tap(drop == 3 && tx == 0,
	    "forged READ duplicates dropped (%lld of 3), no response sent (%lld)",
	    drop, tx);
	if (drop != 3 || tx) {
		ctr_snap(&cs1);
		ctr_diff(&cs0, &cs1);
	}
	/* The last packet again, as a requester that lost it asks. */
	tx0 = amp_sent();
	amp_read(qp->qp_num, RPSN + 5 + npkts - 1,
		 (uintptr_t)amp_buf + AMP_LEN - 1024, rkey, 1024);
	tx = amp_wait_sent(tx0 + 1, 5000) - tx0;
	swr_tap(tx >= 1 && tx < 64,
	    "a true READ duplicate is answered from where it asks (%lld packets)",
	    tx);
	ibv_destroy_qp(qp);

	/* Above 2^31 bytes, or more than 2^22 PSNs (MTU 256): NAKed. */
	nak0 = dev_counter(va.name, "nak_inv_req_sent");
	qp = amp_qp(IBV_MTU_1024);
	if (qp) {
		amp_read(qp->qp_num, RPSN, (uintptr_t)amp_buf, rkey, 0xffffffffu);
		amp_wait("nak_inv_req_sent", nak0 + 1, 5000);
		ibv_destroy_qp(qp);
	}
	qp = amp_qp(IBV_MTU_256);
	if (qp) {
		amp_read(qp->qp_num, RPSN, (uintptr_t)amp_buf, rkey, 0x7fffffffu);
		amp_wait("nak_inv_req_sent", nak0 + 2, 5000);
		ibv_destroy_qp(qp);
	}
	swr_tap(dev_counter(va.name, "nak_inv_req_sent") - nak0 == 2,
	    "READs of 2^32-1 bytes, and of 2^31-1 at MTU 256, NAKed as invalid requests");
	ibv_dereg_mr(amp_mr);
	munmap(amp_buf, AMP_LEN);
}

/* Main ------------------------------------------------------------------- */

#define SPOOF_PKTS 200

static const char *const ctrs[] = {
	"rx_drop_icrc", "rx_drop_malformed", "rx_drop_pkey", "rx_drop_qp",
	"rx_drop_qkey", "rx_drop_no_recv", "rx_drop_nomem", "rx_dropped",
	"rx_pkts", "rx_drop_dup_bad",
};
#define NCTR (sizeof(ctrs) / sizeof(ctrs[0]))

int main(void)
{
	const char *an = getenv("SWR_FUZZ_DEV"), *bn = getenv("SWR_FUZZ_PEER");
	const char *secs = getenv("SWR_FUZZ_SECS"), *seed = getenv("SWR_FUZZ_SEED");
	long long before[NCTR], after[NCTR], d[NCTR];
	struct ibv_ah_attr aa;
	uint64_t end, next_by, t0, last_ud = 0;
	unsigned int by_ok = 0, by_fail = 0, i;
	int ret, dur = secs ? atoi(secs) : 60, on = 1, nsfd = -1;
	bool up;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!an || !bn) {
		printf("1..0 # SKIP SWR_FUZZ_DEV / SWR_FUZZ_PEER not set\n");
		return 4;
	}
	rs = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
	if (!rs)
		rs = 1;
	printf("# seed %llu, %d s\n", (unsigned long long)rs, dur);
	crc_init();

	/* devices, bystanders (RC and UD, victim <-> peer) */
	ret = dev_open(&va, an);
	if (!ret)
		ret = dev_open(&vb, bn);
	if (ret) {
		swr_tap(false, "open %s and %s: %s", an, bn, strerror(-ret));
		goto out;
	}
	memcpy(&a_ip, va.gid.raw + 12, 4);
	memcpy(&b_ip, vb.gid.raw + 12, 4);
	by_cqa = ibv_create_cq(va.ctx, 256, NULL, NULL, 0);
	by_cqb = ibv_create_cq(vb.ctx, 256, NULL, NULL, 0);
	up = by_cqa && by_cqb;
	if (up) {
		by_rca = qp_new(va.pd, by_cqa, by_cqa, IBV_QPT_RC);
		by_rcb = qp_new(vb.pd, by_cqb, by_cqb, IBV_QPT_RC);
		by_uda = qp_new(va.pd, by_cqa, by_cqa, IBV_QPT_UD);
		by_udb = qp_new(vb.pd, by_cqb, by_cqb, IBV_QPT_UD);
		up = by_rca && by_rcb && by_uda && by_udb;
	}
	up = up &&
	     !qp_up(by_rca, va.gidx, &vb.gid, by_rcb->qp_num, 0, 0x10, 0x20,
		    14, 7) &&
	     !qp_up(by_rcb, vb.gidx, &va.gid, by_rca->qp_num, 0, 0x20, 0x10,
		    14, 7) &&
	     !qp_up(by_uda, 0, NULL, 0, SWR_QKEY, 0, 0x30, 0, 0) &&
	     !qp_up(by_udb, 0, NULL, 0, SWR_QKEY, 0, 0x40, 0, 0);
	if (up) {
		memset(&aa, 0, sizeof(aa));
		aa.is_global = 1;
		aa.port_num = 1;
		aa.grh.hop_limit = 64;
		aa.grh.dgid = vb.gid;
		aa.grh.sgid_index = va.gidx;
		ah_ab = ibv_create_ah(va.pd, &aa);
		aa.grh.dgid = va.gid;
		aa.grh.sgid_index = vb.gidx;
		ah_ba = ibv_create_ah(vb.pd, &aa);
		up = ah_ab && ah_ba;
	}
	swr_tap(up, "bystander RC and UD QPs %s <-> %s", an, bn);
	if (!up)
		goto out;

	/* sacrificial QPs, in a PD of their own */
	sac_pd = ibv_alloc_pd(va.ctx);
	sac_buf = mmap(NULL, SAC_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sac_mr = sac_pd && sac_buf != MAP_FAILED ?
		 ibv_reg_mr(sac_pd, sac_buf, SAC_LEN, SWR_ALL_ACCESS) : NULL;
	sac[0].type = IBV_QPT_RC;
	sac[1].type = IBV_QPT_UC;
	sac[2].type = IBV_QPT_UD;
	ret = sac_mr ? 0 : -ENOMEM;
	for (i = 0; i < 3 && !ret; i++) {
		ret = sac_create(&sac[i]);
		sac[i].dead_qpn = 0x7ffff0 + i;
	}
	swr_tap(!ret, "sacrificial RC, UC and UD QPs");
	if (ret)
		goto out;

	/*
	 * The sockets live in the peer's namespace; we stay in ours, whose
	 * sysfs shows the victim's counters.
	 */
	if (netns_enter(getenv("SWR_FUZZ_NETNS"), &nsfd)) {
		swr_tap(false, "enter netns %s", getenv("SWR_FUZZ_NETNS"));
		goto out;
	}
	raw4 = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	udp6 = socket(AF_INET6, SOCK_DGRAM, 0);
	if (udp6 >= 0) {
		union ibv_gid g6;
		int gi;
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
					   .sin6_port = htons(V6_SPORT) };

		if (swr_find_gid(vb.ctx, false, &gi, &g6) ||
		    swr_find_gid(va.ctx, false, &gi, &g6)) {
			close(udp6);
			udp6 = -1;
		} else {
			memcpy(&a_ip6, g6.raw, 16);
			swr_find_gid(vb.ctx, false, &gi, &g6);
			memcpy(&b_ip6, g6.raw, 16);
			sa.sin6_addr = b_ip6;
			setsockopt(udp6, SOL_SOCKET, SO_REUSEADDR, &on,
				   sizeof(on));
			if (bind(udp6, (struct sockaddr *)&sa, sizeof(sa))) {
				close(udp6);
				udp6 = -1;
			}
		}
	}
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET)) {
		swr_tap(false, "back to our netns");
		goto out;
	}
	swr_tap(raw4 >= 0, "raw IPv4 socket (IPv6 UDP socket: %s)",
	    udp6 >= 0 ? "yes" : "no");
	if (raw4 < 0)
		goto out;

	swr_tap(!bystander_round(), "bystander traffic before the attack");
	for (i = 0; i < NCTR; i++)
		before[i] = dev_counter(an, ctrs[i]);

	t0 = swr_now_ms();
	end = t0 + (uint64_t)dur * 1000;
	next_by = t0 + 500;
	while (swr_now_ms() < end) {
		for (i = 0; i < 32; i++)
			fuzz_one();
		if (sac_service(swr_now_ms() - last_ud > 1000)) {
			swr_tap(false, "sacrificial QP recreated");
			goto out;
		}
		if (swr_now_ms() - last_ud > 1000)
			last_ud = swr_now_ms();
		if (swr_now_ms() >= next_by) {
			if (bystander_round())
				by_fail++;
			else
				by_ok++;
			next_by = swr_now_ms() + 500;
		}
	}
	printf("# %llu packets in %.1f s (%llu send errors): %llu random, %llu bad ICRC, %llu bad P_Key, %llu bad version, %llu IP options, %llu no QP, %llu bad Q_Key, %llu valid-ICRC mutants; %llu over IPv6\n",
	       n_sent, (swr_now_ms() - t0) / 1000.0, n_send_err, n_rand, n_icrc,
	       n_pkey, n_ver, n_ihl, n_noqp, n_qkey, n_valid, n_v6);
	printf("# sacrificial: %llu completions (%llu in error); recreated RC %u UC %u UD %u\n",
	       sac_wcs, sac_wc_err, sac[0].recreated, sac[1].recreated,
	       sac[2].recreated);
	swr_tap(by_fail == 0 && by_ok > 0,
	    "bystander traffic during the attack: %u rounds, %u failed",
	    by_ok + by_fail, by_fail);
	swr_tap(!bystander_round(), "bystander traffic after the attack");
	swr_tap(swr_qp_state(by_rca) == IBV_QPS_RTS &&
	    swr_qp_state(by_uda) == IBV_QPS_RTS, "bystander QPs still in RTS");

	for (i = 0; i < NCTR; i++) {
		after[i] = dev_counter(an, ctrs[i]);
		d[i] = after[i] - before[i];
		printf("# %s +%lld\n", ctrs[i], d[i]);
	}
	swr_tap(d[0] >= (long long)n_icrc && n_icrc,
	    "rx_drop_icrc rose by at least the bad-ICRC packets (%llu)", n_icrc);
	swr_tap(d[1] >= (long long)(n_ver + n_ihl) && n_ver && n_ihl,
	    "rx_drop_malformed rose by at least the bad-version and IP-option packets (%llu)",
	    n_ver + n_ihl);
	swr_tap(d[2] >= (long long)n_pkey && n_pkey,
	    "rx_drop_pkey rose by at least the bad-P_Key packets (%llu)", n_pkey);
	swr_tap(d[3] >= (long long)n_noqp && n_noqp,
	    "rx_drop_qp rose by at least the packets to no QP (%llu)", n_noqp);
	swr_tap(d[4] > 0 && d[4] <= (long long)(n_qkey + n_valid),
	    "rx_drop_qkey rose (%lld; %llu sent with a wrong Q_Key)", d[4],
	    n_qkey);
	swr_tap(d[5] > 0, "rx_drop_no_recv rose (%lld)", d[5]);
	swr_tap(d[7] == d[0] + d[1] + d[2] + d[3] + d[4] + d[5] + d[6],
	    "rx_dropped is the sum of the rx_drop_* counters");
	swr_tap(d[8] > 0 && d[7] >= (long long)(n_icrc + n_pkey + n_ver + n_ihl +
					    n_noqp),
	    "valid packets accepted (%lld), every must-drop one dropped (%lld)",
	    d[8], d[7]);

	/*
	 * Spoofed source: well-formed RC SENDs with a correct ICRC to the
	 * bystander RC QP, from an address of the peer's subnet that is not
	 * the QP's peer. Each is dropped as rx_drop_qp before the responder
	 * sees it; nothing else sends to the victim now.
	 */
	{
		long long q0 = dev_counter(an, "rx_drop_qp"), q1;
		uint8_t roce[12 + 16];
		unsigned int k;

		spoof_ip = htonl((ntohl(b_ip) & ~0xffu) | 0x63);
		for (k = 0; k < SPOOF_PKTS; k++) {
			memset(roce, 0, sizeof(roce));
			roce[0] = 0x04;			/* RC SEND ONLY */
			roce[2] = 0xff;			/* P_Key 0xffff */
			roce[3] = 0xff;
			put_be32(roce + 4, by_rca->qp_num);
			put_be32(roce + 8, rnd(1u << 24));
			roce[8] = 0x80;			/* AckReq */
			memset(roce + 12, 0x5a, 16);
			send4(roce, sizeof(roce), false, false, true);
		}
		spoof_ip = 0;
		usleep(200000);
		q1 = dev_counter(an, "rx_drop_qp");
		swr_tap(q1 - q0 == SPOOF_PKTS,
		    "RC packets from a spoofed source dropped as rx_drop_qp (%lld of %u)",
		    q1 - q0, SPOOF_PKTS);
		swr_tap(!bystander_round() && swr_qp_state(by_rca) == IBV_QPS_RTS,
		    "bystander RC QP unaffected by the spoofed packets");
	}
	read_amplification();

out:
	for (i = 0; i < 3; i++) {
		sac_destroy(&sac[i]);
		if (sac[i].cq)
			ibv_destroy_cq(sac[i].cq);
	}
	if (ah_ab)
		ibv_destroy_ah(ah_ab);
	if (ah_ba)
		ibv_destroy_ah(ah_ba);
	if (by_rca)
		ibv_destroy_qp(by_rca);
	if (by_rcb)
		ibv_destroy_qp(by_rcb);
	if (by_uda)
		ibv_destroy_qp(by_uda);
	if (by_udb)
		ibv_destroy_qp(by_udb);
	printf("1..%d\n", swr_tap_st.n);
	return swr_tap_st.fail ? 1 : 0;
}
