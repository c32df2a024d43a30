// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD multicast over the wire (issue 4), and UD's path MTU limit.
 *
 * SWR_MC_SEND is the sending device (one netns), SWR_MC_RECV the
 * receiving one (another netns, across a veth): selftests/swroce_mcast.sh
 * builds the topology; SWR_MC_NS / SWR_MC_IF name the receiver's netns and
 * netdev, whose IP multicast memberships are checked with ip maddr.
 * Two receiving QPs attached to a group each get a copy, byte-checked; an
 * unattached QP gets nothing; after detach nothing arrives. IPv4-mapped
 * and IPv6 multicast GIDs. Members on the sending device get one copy
 * each. Then the verbs' errors and limits, and the MTU: a datagram over
 * it is neither sent nor, from a sender with a larger MTU, received.
 * Output: TAP.
 */
#include <stdarg.h>

#include "swr_qp_test.h"

#define MC_QKEY		0x4d430001u
#define LEN		700
#define RBUF		8192
/* kernel/swr.h's SWR_MAX_MCAST_QP_ATTACH and SWR_MAX_MCAST_GRP */
#define SWR_MAX_MCAST_QP_ATTACH_T	56
#define SWR_MAX_MCAST_GRP_T		8192

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *buf;
	struct ibv_mr *mr;
	int g4, g6;
	union ibv_gid gid4, gid6;
};

struct uqp {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static struct end snd, rcv;
static struct uqp s, r[3];
/* The completion ud_send() polled from s.cq (a receive, when s is attached). */
static struct ibv_wc last_wc;

static int end_open(struct end *e, const char *name)
{
	e->ctx = swr_open_dev(name);
	if (!e->ctx)
		return -ENODEV;
	e->pd = ibv_alloc_pd(e->ctx);
	e->buf = mmap(NULL, 4 * 65536, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!e->pd || e->buf == MAP_FAILED)
		return -ENOMEM;
	e->mr = ibv_reg_mr(e->pd, e->buf, 4 * 65536, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		return -errno;
	if (swr_find_gid(e->ctx, true, &e->g4, &e->gid4) ||
	    swr_find_gid(e->ctx, false, &e->g6, &e->gid6))
		return -ENOENT;
	return 0;
}

static int uqp_new(struct end *e, struct uqp *u, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a = {
		.qp_type = t,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = MC_QKEY };

	u->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	if (!u->cq)
		return -errno;
	a.send_cq = a.recv_cq = u->cq;
	u->qp = ibv_create_qp(e->pd, &a);
	if (!u->qp)
		return -errno;
	if (t != IBV_QPT_UD)
		return 0;
	if (ibv_modify_qp(u->qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -EIO;
	m.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(u->qp, &m, IBV_QP_STATE))
		return -EIO;
	m.qp_state = IBV_QPS_RTS;
	m.sq_psn = 1;
	return ibv_modify_qp(u->qp, &m, IBV_QP_STATE | IBV_QP_SQ_PSN) ?
	       -EIO : 0;
}

static void uqp_free(struct uqp *u)
{
	if (u->qp)
		ibv_destroy_qp(u->qp);
	if (u->cq)
		ibv_destroy_cq(u->cq);
	memset(u, 0, sizeof(*u));
}

/* UD send of @len bytes (pattern @seed) to @dgid / @qpn; its status. */
static int ud_send(const union ibv_gid *dgid, int sgid_index, uint32_t qpn,
		   uint32_t len, uint8_t seed)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = sgid_index,
			 .hop_limit = 8 },
	};
	struct ibv_sge sge = { .addr = (uintptr_t)snd.buf, .length = len,
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	int ret;

	ah = ibv_create_ah(snd.pd, &aa);
	if (!ah)
		return -errno;
	swr_fill(snd.buf, len, seed);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = MC_QKEY;
	ret = ibv_post_send(s.qp, &wr, &bad);
	if (!ret)
		ret = swr_poll_wait(s.cq, &wc, SWR_CQ_TIMEOUT_MS) == 1 ?
		      (int)wc.status : -ETIMEDOUT;
	last_wc = wc;
	ibv_destroy_ah(ah);
	return ret;
}

static uint8_t *rbuf(int i)
{
	return rcv.buf + i * 65536;
}

static void post_recvs(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		memset(rbuf(i), 0xa5, RBUF);
		swr_post_recv1(r[i].qp, 10 + i, rbuf(i), 4096, rcv.mr->lkey);
	}
}

/* Did r[i] get the datagram: GRH, then @len bytes of @seed, intact? */
static bool got(int i, uint32_t len, uint8_t seed)
{
	struct ibv_wc wc;

	if (swr_poll_wait(r[i].cq, &wc, 5000) != 1)
		return false;
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 10u + i ||
	    wc.byte_len != len + 40 || !(wc.wc_flags & IBV_WC_GRH)) {
		printf("# r%d: status %d id %llu len %u\n", i, wc.status,
		       (unsigned long long)wc.wr_id, wc.byte_len);
		return false;
	}
	/* The SL is the RoCEv2 packet type (admin-guide.rst, Clients). */
	if (wc.sl != ((rbuf(i)[0] >> 4) == 6 ? 0x9 : 0xa)) {
		printf("# r%d: sl %#x, GRH byte 0 %#x\n", i, wc.sl, rbuf(i)[0]);
		return false;
	}
	return swr_check(rbuf(i) + 40, len, seed) < 0 &&
	       swr_check_byte(rbuf(i) + 40 + len, 64, 0xa5) < 0;
}

/* Nothing on r[i] within @ms (its receive WQE is drained afterwards). */
static bool nothing(int i, int ms)
{
	return swr_cq_count(r[i].cq, ms) == 0;
}

/* Is @grp in the receiver netdev's IP multicast list? */
static bool member(const char *grp)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "ip -n %s maddr show dev %s | grep -qw '%s'",
		 getenv("SWR_MC_NS"), getenv("SWR_MC_IF"), grp);
	return system(cmd) == 0;
}

/* Reset the receive side: recreate r[] (drops stale receive WQEs). */
static int renew(void)
{
	int i, ret = 0;

	for (i = 0; i < 3; i++) {
		uqp_free(&r[i]);
		ret = ret ?: uqp_new(&rcv, &r[i], IBV_QPT_UD);
	}
	return ret;
}

static void family(const char *fam, const union ibv_gid *mgid,
		   const char *grp, int sgid)
{
	uint8_t seed = fam[3];

	if (renew()) {
		swr_tap(false, "%s: receiving QPs", fam);
		return;
	}
	swr_tap(!ibv_attach_mcast(r[0].qp, mgid, 0) &&
	    !ibv_attach_mcast(r[1].qp, mgid, 0) &&
	    !ibv_attach_mcast(r[1].qp, mgid, 0),
	    "%s: two QPs attach (twice is fine)", fam);
	swr_tap(member(grp), "%s: the netdev joined %s", fam, grp);
	post_recvs();
	swr_tap(ud_send(mgid, sgid, 0xffffff, LEN, seed) == IBV_WC_SUCCESS,
	    "%s: send to the group", fam);
	swr_tap(got(0, LEN, seed) && got(1, LEN, seed),
	    "%s: each attached QP got its copy, bytes intact", fam);
	swr_tap(nothing(2, 300), "%s: the unattached QP got nothing", fam);

	swr_tap(!ibv_detach_mcast(r[0].qp, mgid, 0), "%s: detach one", fam);
	post_recvs();
	swr_tap(ud_send(mgid, sgid, 0xffffff, LEN, seed + 1) == IBV_WC_SUCCESS &&
	    got(1, LEN, seed + 1) && nothing(0, 500),
	    "%s: after detach only the other QP gets it", fam);
	swr_tap(member(grp), "%s: still a member while a QP is attached", fam);
	swr_tap(!ibv_detach_mcast(r[1].qp, mgid, 0) &&
	    ibv_detach_mcast(r[1].qp, mgid, 0) == EINVAL,
	    "%s: detach the last; detaching again is EINVAL", fam);
	swr_tap(!member(grp), "%s: the netdev left %s", fam, grp);
	post_recvs();
	swr_tap(ud_send(mgid, sgid, 0xffffff, LEN, seed + 2) == IBV_WC_SUCCESS &&
	    nothing(0, 500) && nothing(1, 0) && nothing(2, 0),
	    "%s: after the last detach nothing arrives", fam);
}

/*
 * Members on the sending device too: the sending QP itself and another QP
 * of its device each get exactly one copy (delivered by the engine; the IP
 * stack's multicast loopback copy is not a second one), and the remote
 * member gets its copy over the wire.
 */
static void local_members(const union ibv_gid *mgid, int sgid)
{
	struct uqp l = { 0 };
	struct ibv_wc wc;
	uint8_t *lb = snd.buf + 65536, *sb = snd.buf + 2 * 65536;
	bool ok;

	if (renew() || uqp_new(&snd, &l, IBV_QPT_UD)) {
		swr_tap(false, "local members: QPs");
		goto out;
	}
	swr_tap(!ibv_attach_mcast(l.qp, mgid, 0) &&
	    !ibv_attach_mcast(s.qp, mgid, 0) &&
	    !ibv_attach_mcast(r[0].qp, mgid, 0),
	    "local members: the sender, a QP beside it and a remote QP attach");
	post_recvs();
	memset(lb, 0xa5, 2 * 65536);
	swr_post_recv1(l.qp, 30, lb, 4096, snd.mr->lkey);
	swr_post_recv1(s.qp, 31, sb, 4096, snd.mr->lkey);
	ok = ud_send(mgid, sgid, 0xffffff, LEN, 0x77) == IBV_WC_SUCCESS;
	swr_tap(ok && got(0, LEN, 0x77), "local members: the remote QP got it");
	ok = swr_poll_wait(l.cq, &wc, 5000) == 1 && wc.wr_id == 30 &&
	     wc.status == IBV_WC_SUCCESS && wc.byte_len == LEN + 40 &&
	     swr_check(lb + 40, LEN, 0x77) < 0;
	swr_tap(ok, "local members: the QP beside the sender got it intact");
	/*
	 * s.cq has the loopback receive's completion and the send's, in
	 * either order: ud_send() took the first.
	 */
	ok = swr_poll_wait(s.cq, &wc, 5000) == 1;
	if (ok && last_wc.wr_id == 31)
		wc = last_wc;
	ok = ok && wc.wr_id == 31 && wc.status == IBV_WC_SUCCESS &&
	     wc.byte_len == LEN + 40 && swr_check(sb + 40, LEN, 0x77) < 0;
	swr_tap(ok, "local members: the sending QP got its own copy (loopback)");
	swr_post_recv1(l.qp, 32, lb, 4096, snd.mr->lkey);
	swr_post_recv1(s.qp, 33, sb, 4096, snd.mr->lkey);
	swr_tap(swr_cq_count(l.cq, 500) == 0 && swr_cq_count(s.cq, 0) == 0,
	    "local members: one copy each, none from the IP loopback");
	ibv_detach_mcast(l.qp, mgid, 0);
	ibv_detach_mcast(r[0].qp, mgid, 0);
	ibv_detach_mcast(s.qp, mgid, 0);
out:
	uqp_free(&l);
	/* s has receives posted: a fresh sending QP */
	uqp_free(&s);
	uqp_new(&snd, &s, IBV_QPT_UD);
}

static long long recv_counter(const char *name)
{
	char path[256], buf[32];

	usleep(20000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 getenv("SWR_MC_RECV"), name);
	return swr_read_line(path, buf, sizeof(buf)) ? -1 :
	       strtoll(buf, NULL, 10);
}

static int sender_mtu(int mtu)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ip -n %s link set %s mtu %d",
		 getenv("SWR_MC_SEND_NS"), getenv("SWR_MC_SEND_IF"), mtu);
	return system(cmd);
}

/*
 * A sender whose netdev has a larger MTU (2200: IB MTU 2048) than the
 * receiver's (1500: 1024) sends a UD datagram of 1100 bytes, which fits
 * the link: the receiver must drop it as over its MTU (rx_drop_malformed),
 * not deliver it.
 */
static void receive_over_mtu(void)
{
	long long drop = recv_counter("rx_drop_malformed");
	struct ibv_wc wc;
	int ret;

	ret = renew();
	memset(rbuf(2), 0xa5, RBUF);
	swr_post_recv1(r[2].qp, 12, rbuf(2), 4096, rcv.mr->lkey);
	ret = ret ?: sender_mtu(2200);
	usleep(200000);
	ret = ret ?: ud_send(&rcv.gid4, snd.g4, r[2].qp->qp_num, 1100, 7);
	swr_tap(ret == IBV_WC_SUCCESS,
	    "UD send of 1100 bytes at a 2048 MTU is sent (%d)", ret);
	swr_tap(nothing(2, 500), "a receiver at a 1024 MTU drops it");
	swr_tap(drop >= 0 && recv_counter("rx_drop_malformed") == drop + 1,
	    "and counts it in rx_drop_malformed");
	ret = sender_mtu(1500);
	usleep(200000);
	ret = ret ?: ud_send(&rcv.gid4, snd.g4, r[2].qp->qp_num, 1024, 8);
	swr_tap(!ret && swr_poll_wait(r[2].cq, &wc, 5000) == 1 &&
	    wc.status == IBV_WC_SUCCESS && wc.byte_len == 1064 &&
	    swr_check(rbuf(2) + 40, 1024, 8) < 0,
	    "then 1024 bytes arrive intact");
}

int main(void)
{
	const char *sn = getenv("SWR_MC_SEND"), *rn = getenv("SWR_MC_RECV");
	union ibv_gid m4 = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 239,
				      [13] = 1, [14] = 2, [15] = 3 } };
	union ibv_gid m6 = { .raw = { 0xff, 0x0e, [13] = 5, [15] = 1 } };
	union ibv_gid g;
	struct uqp rc = { 0 }, many[SWR_MAX_MCAST_QP_ATTACH_T + 1];
	struct ibv_device_attr da;
	struct ibv_wc wc;
	int i, n, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!sn || !rn || !getenv("SWR_MC_NS") || !getenv("SWR_MC_IF")) {
		printf("1..0 # SKIP SWR_MC_SEND/RECV/NS/IF not set\n");
		return 4;
	}
	ret = end_open(&snd, sn);
	ret = ret ?: end_open(&rcv, rn);
	ret = ret ?: uqp_new(&snd, &s, IBV_QPT_UD);
	swr_tap(!ret, "devices %s -> %s, GIDs, a sending UD QP", sn, rn);
	if (ret)
		goto out;

	family("IPv4", &m4, "239.1.2.3", snd.g4);
	family("IPv6", &m6, "ff0e::5:1", snd.g6);
	local_members(&m4, snd.g4);
	if (getenv("SWR_MC_SEND_NS") && getenv("SWR_MC_SEND_IF"))
		receive_over_mtu();

	/* errors */
	ret = renew();
	ret = ret ?: uqp_new(&rcv, &rc, IBV_QPT_RC);
	swr_tap(!ret && ibv_attach_mcast(rc.qp, &m4, 0) == EINVAL,
	    "attach of an RC QP is EINVAL");
	swr_tap(ibv_attach_mcast(r[0].qp, &rcv.gid4, 0) == EINVAL,
	    "attach to a unicast GID is EINVAL");
	swr_tap(ibv_detach_mcast(r[0].qp, &m4, 0) == EINVAL,
	    "detach of a group never attached is EINVAL");
	/*
	 * One group under two LIDs: the core counts two attachments in the
	 * QP's use count; both detach, and the QP can then be destroyed.
	 */
	{
		struct uqp t = { 0 };
		int a0, a1, d0, d1, d2, des = -1;

		ret = uqp_new(&rcv, &t, IBV_QPT_UD);
		a0 = ret ?: ibv_attach_mcast(t.qp, &m4, 0);
		a1 = ret ?: ibv_attach_mcast(t.qp, &m4, 1);
		d0 = ret ?: ibv_detach_mcast(t.qp, &m4, 0);
		d1 = ret ?: ibv_detach_mcast(t.qp, &m4, 1);
		d2 = ret ? 0 : ibv_detach_mcast(t.qp, &m4, 1);
		if (!ret) {
			des = ibv_destroy_qp(t.qp);
			if (!des)
				t.qp = NULL;
		}
		uqp_free(&t);
		swr_tap(!ret && !a0 && !a1 && !d0 && !d1 && d2 == EINVAL &&
		    !des,
		    "one group under LIDs 0 and 1: both detach, a third is EINVAL, the QP is destroyed (%d %d %d %d %d %d)",
		    a0, a1, d0, d1, d2, des);
	}

	/* limits */
	memset(&da, 0, sizeof(da));
	ret = ibv_query_device(rcv.ctx, &da);
	swr_tap(!ret && da.max_mcast_qp_attach == SWR_MAX_MCAST_QP_ATTACH_T &&
	    da.max_mcast_grp == SWR_MAX_MCAST_GRP_T,
	    "query_device: %d groups, %d QPs per group", da.max_mcast_grp,
	    da.max_mcast_qp_attach);
	memset(many, 0, sizeof(many));
	for (i = 0, n = 0; i <= SWR_MAX_MCAST_QP_ATTACH_T; i++) {
		if (uqp_new(&rcv, &many[i], IBV_QPT_UD))
			break;
		if (!ibv_attach_mcast(many[i].qp, &m4, 0))
			n++;
		else if (i < SWR_MAX_MCAST_QP_ATTACH_T)
			break;
	}
	swr_tap(n == SWR_MAX_MCAST_QP_ATTACH_T &&
	    i == SWR_MAX_MCAST_QP_ATTACH_T + 1,
	    "max_mcast_qp_attach QPs attach, one more fails (%d of %d)", n,
	    i);
	for (i = 0; i < n; i++)
		ibv_detach_mcast(many[i].qp, &m4, 0);
	for (i = 0; i <= SWR_MAX_MCAST_QP_ATTACH_T; i++)
		uqp_free(&many[i]);
	g = m4;
	for (i = 0, n = 0; i <= SWR_MAX_MCAST_GRP_T; i++) {
		g.raw[13] = 100 + i / 256;
		g.raw[14] = i % 256;
		if (!ibv_attach_mcast(r[0].qp, &g, 0))
			n++;
		else
			break;
	}
	swr_tap(n == SWR_MAX_MCAST_GRP_T, "max_mcast_grp groups, one more fails (%d)",
	    n);
	for (i = 0; i < n; i++) {
		g.raw[13] = 100 + i / 256;
		g.raw[14] = i % 256;
		ibv_detach_mcast(r[0].qp, &g, 0);
	}
	swr_tap(!member("239.100.0.0") && !member("239.131.255.255"),
	    "all of them left");

	/* UD over the wire: a message above the path MTU fails the WR */
	ret = renew();
	memset(rbuf(2), 0xa5, RBUF);
	swr_post_recv1(r[2].qp, 12, rbuf(2), 4096, rcv.mr->lkey);
	ret = ret ?: ud_send(&rcv.gid4, snd.g4, r[2].qp->qp_num, 1025, 9);
	swr_tap(ret == IBV_WC_LOC_LEN_ERR,
	    "UD send of path MTU + 1 bytes: IBV_WC_LOC_LEN_ERR (%d)", ret);
	swr_tap(nothing(2, 300), "and nothing reached the receiver");
	/* the local error put the sending QP in error */
	uqp_free(&s);
	ret = uqp_new(&snd, &s, IBV_QPT_UD);
	swr_tap(!ret && ud_send(&rcv.gid4, snd.g4, r[2].qp->qp_num, 1024, 9) ==
	    IBV_WC_SUCCESS && swr_poll_wait(r[2].cq, &wc, 5000) == 1 &&
	    wc.status == IBV_WC_SUCCESS && wc.byte_len == 1064 &&
	    swr_check(rbuf(2) + 40, 1024, 9) < 0,
	    "UD send of exactly the path MTU arrives intact");
	uqp_free(&rc);
out:
	for (i = 0; i < 3; i++)
		uqp_free(&r[i]);
	uqp_free(&s);
	printf("1..%d\n", swr_tap_st.n);
	return swr_tap_st.fail ? 1 : 0;
}
