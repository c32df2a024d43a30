// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Raw packet QPs and flow steering (kernel/swr_raw.c).
 *
 * Two raw QPs on the device under test: a frame the client QP sends
 * reaches the server QP through the server's flow, byte for byte, for
 * flows with ETH, IPv4, ETH+IPv6, ETH+IPv4+UDP and ETH+IPv6+TCP specs; a
 * frame the flow does not match does not; the sender never gets its own
 * frame back, even through a flow of its own that matches it. Frames
 * shorter than an Ethernet header or longer than the MTU allows complete
 * with IBV_WC_LOC_LEN_ERR. Without CAP_NET_RAW neither a raw QP nor a
 * flow is created (EPERM); unsupported specs, types and flags are refused.
 * On the wire: a packet socket on the veth peer sees the frame a raw QP
 * sends, unchanged, and a frame it injects reaches the raw QP's flow.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_test.h"
#include "swr_qp_test.h"
#include "swr_raw_test.h"

FIXTURE(raw) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *buf;		/* [0, RAW_BUF): send; [RAW_BUF, 2x): recv */
	struct ibv_mr *mr;
	struct raw_end c, s;
};

FIXTURE_SETUP(raw)
{
	int ret;

	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = calloc(1, 2 * RAW_BUF);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, 2 * RAW_BUF,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	ret = raw_end_create(self->ctx, self->pd, &self->c);
	ASSERT_EQ(0, ret) TH_LOG("client raw QP: %s", strerror(-ret));
	ret = raw_end_create(self->ctx, self->pd, &self->s);
	ASSERT_EQ(0, ret) TH_LOG("server raw QP: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(raw)
{
	raw_end_destroy(&self->c);
	raw_end_destroy(&self->s);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	free(self->buf);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

/*
 * The client sends a frame @miss the server's flow @fa must not take, then
 * one @hit it must: the server's first receive WQE gets @hit, byte for
 * byte, and nothing else arrives; the client gets nothing back.
 */
static void raw_flow_case(struct __test_metadata *_metadata,
			  FIXTURE_DATA(raw) *self, struct raw_flow_attr *fa,
			  const struct raw_pkt *hit, const struct raw_pkt *miss)
{
	uint8_t *sbuf = self->buf, *rbuf = self->buf + RAW_BUF;
	uint32_t len = RAW_FRAME;
	struct ibv_flow *flow;
	struct ibv_wc wc;

	flow = ibv_create_flow(self->s.qp, &fa->attr);
	ASSERT_NE(NULL, flow) TH_LOG("create_flow: %s", strerror(errno));
	memset(rbuf, 0, RAW_BUF);
	ASSERT_EQ(0, swr_post_recv1(self->s.qp, 100, rbuf, 2048,
				    self->mr->lkey));
	ASSERT_EQ(0, swr_post_recv1(self->s.qp, 101, rbuf + 2048, 2048,
				    self->mr->lkey));

	raw_build(sbuf, len, miss);
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, sbuf, len, 1, false));
	raw_expect_wc(_metadata, self->c.cq, 1, IBV_WC_SUCCESS, &wc);
	raw_build(sbuf, len, hit);
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, sbuf, len, 2, true));
	raw_expect_wc(_metadata, self->c.cq, 2, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(len, wc.byte_len);

	raw_expect_wc(_metadata, self->s.cq, 100, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_EQ(len, wc.byte_len);
	EXPECT_EQ(0, memcmp(rbuf, sbuf, len));
	/* Nothing more: not the missed frame, nothing on the client. */
	EXPECT_EQ(0, swr_cq_count(self->s.cq, 100));
	EXPECT_EQ(0, swr_cq_count(self->c.cq, 10));
	EXPECT_EQ(0, ibv_destroy_flow(flow));
}

TEST_F(raw, flow_eth)
{
	struct raw_pkt hit = { raw_dmac, 4, IPPROTO_UDP, 1234, 5678, 0x11 };
	struct raw_pkt miss = hit;
	struct raw_flow_attr fa;

	miss.dmac = raw_dmac2;
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, ETH_P_IP);
	raw_flow_case(_metadata, self, &fa, &hit, &miss);
}

TEST_F(raw, flow_ipv4)
{
	struct raw_pkt hit = { raw_dmac, 4, IPPROTO_UDP, 1234, 5678, 0x22 };
	struct raw_pkt miss = hit;
	struct raw_flow_attr fa;

	miss.l4 = IPPROTO_TCP;
	raw_flow_init(&fa);
	raw_spec_ipv4(&fa, IPPROTO_UDP);
	raw_flow_case(_metadata, self, &fa, &hit, &miss);
}

TEST_F(raw, flow_ipv6)
{
	struct raw_pkt hit = { raw_dmac, 6, IPPROTO_UDP, 1234, 5678, 0x33 };
	struct raw_pkt miss = hit;
	struct raw_flow_attr fa;

	miss.l3 = 4;
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, ETH_P_IPV6);
	raw_spec_ipv6(&fa, IPPROTO_UDP);
	raw_flow_case(_metadata, self, &fa, &hit, &miss);
}

TEST_F(raw, flow_udp)
{
	struct raw_pkt hit = { raw_dmac, 4, IPPROTO_UDP, 1234, 5678, 0x44 };
	struct raw_pkt miss = hit;
	struct raw_flow_attr fa;

	miss.dport = 5679;
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, ETH_P_IP);
	raw_spec_ipv4(&fa, IPPROTO_UDP);
	raw_spec_l4(&fa, IPPROTO_UDP, 5678);
	raw_flow_case(_metadata, self, &fa, &hit, &miss);
}

TEST_F(raw, flow_tcp)
{
	struct raw_pkt hit = { raw_dmac, 6, IPPROTO_TCP, 1234, 80, 0x55 };
	struct raw_pkt miss = hit;
	struct raw_flow_attr fa;

	miss.l4 = IPPROTO_UDP;
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, ETH_P_IPV6);
	raw_spec_ipv6(&fa, IPPROTO_TCP);
	raw_spec_l4(&fa, IPPROTO_TCP, 80);
	raw_flow_case(_metadata, self, &fa, &hit, &miss);
}

/* A QP's own flow that matches its frame does not bring the frame back. */
TEST_F(raw, never_to_sender)
{
	struct raw_pkt k = { raw_dmac, 4, IPPROTO_UDP, 1234, 5678, 0x66 };
	struct raw_flow_attr fa;
	struct ibv_flow *cflow, *sflow;
	struct ibv_wc wc;
	uint8_t *rbuf = self->buf + RAW_BUF;

	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, 0);
	cflow = ibv_create_flow(self->c.qp, &fa.attr);
	ASSERT_NE(NULL, cflow) TH_LOG("create_flow: %s", strerror(errno));
	sflow = ibv_create_flow(self->s.qp, &fa.attr);
	ASSERT_NE(NULL, sflow) TH_LOG("create_flow: %s", strerror(errno));
	ASSERT_EQ(0, swr_post_recv1(self->c.qp, 200, rbuf, 2048,
				    self->mr->lkey));
	ASSERT_EQ(0, swr_post_recv1(self->s.qp, 300, rbuf + 2048, 2048,
				    self->mr->lkey));
	raw_build(self->buf, 100, &k);
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, self->buf, 100, 3, false));
	raw_expect_wc(_metadata, self->c.cq, 3, IBV_WC_SUCCESS, &wc);
	raw_expect_wc(_metadata, self->s.cq, 300, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(100, wc.byte_len);
	EXPECT_EQ(0, memcmp(rbuf + 2048, self->buf, 100));
	EXPECT_EQ(0, swr_cq_count(self->c.cq, 100));
	EXPECT_EQ(0, ibv_destroy_flow(cflow));
	EXPECT_EQ(0, ibv_destroy_flow(sflow));
}

/* A frame shorter than its header or longer than the link allows. */
TEST_F(raw, bad_lengths)
{
	char ndev[64];
	long mtu;
	uint32_t lens[2];
	struct ibv_wc wc;
	int i, ret;

	ASSERT_EQ(0, swr_test_netdev(ndev, sizeof(ndev)));
	mtu = swr_netdev_long(ndev, "mtu");
	ASSERT_LT(0, mtu);
	ASSERT_GT(RAW_BUF, mtu + 19);
	lens[0] = 13;
	lens[1] = mtu + 14 + 4 + 1;
	for (i = 0; i < 2; i++) {
		raw_end_destroy(&self->c);
		ret = raw_end_create(self->ctx, self->pd, &self->c);
		ASSERT_EQ(0, ret);
		memset(self->buf, 0xff, lens[i]);
		ASSERT_EQ(0, raw_send(self->c.qp, self->mr, self->buf,
				      lens[i], 10 + i, false));
		raw_expect_wc(_metadata, self->c.cq, 10 + i,
			      IBV_WC_LOC_LEN_ERR, &wc);
	}
	/* The longest that may go does. */
	raw_end_destroy(&self->c);
	ASSERT_EQ(0, raw_end_create(self->ctx, self->pd, &self->c));
	memset(self->buf, 0xff, mtu + 18);
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, self->buf, mtu + 18, 12,
			      false));
	raw_expect_wc(_metadata, self->c.cq, 12, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(mtu + 18, wc.byte_len);
}

/* What the device refuses to steer. */
TEST_F(raw, bad_flows)
{
	struct ibv_flow_spec_eth e = {
		.type = IBV_FLOW_SPEC_ETH | IBV_FLOW_SPEC_INNER,
		.size = sizeof(e),
	};
	struct ibv_flow_spec_ipv4_ext ip = {
		.type = IBV_FLOW_SPEC_IPV4_EXT, .size = sizeof(ip),
	};
	struct ibv_qp_init_attr ua = {
		.qp_type = IBV_QPT_UD, .send_cq = self->c.cq,
		.recv_cq = self->c.cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct raw_flow_attr fa;
	struct ibv_qp *ud;

	/* No tunnels to look into. */
	raw_flow_init(&fa);
	raw_flow_add(&fa, &e, sizeof(e));
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_flow(self->s.qp, &fa.attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* TTL is not matched on (mlx5 neither). */
	raw_flow_init(&fa);
	ip.mask.ttl = 0xff;
	raw_flow_add(&fa, &ip, sizeof(ip));
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_flow(self->s.qp, &fa.attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* Two L2 specs. */
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, 0);
	raw_spec_eth(&fa, raw_dmac, 0);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_flow(self->s.qp, &fa.attr));
	EXPECT_EQ(EINVAL, errno);
	/* Egress flows, the default and sniffer types are not offered. */
	raw_flow_init(&fa);
	fa.attr.flags = IBV_FLOW_ATTR_FLAGS_EGRESS;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_flow(self->s.qp, &fa.attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	raw_flow_init(&fa);
	fa.attr.type = IBV_FLOW_ATTR_SNIFFER;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_flow(self->s.qp, &fa.attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* Flows steer to raw packet QPs only. */
	ud = ibv_create_qp(self->pd, &ua);
	ASSERT_NE(NULL, ud);
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, 0);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_flow(ud, &fa.attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(0, ibv_destroy_qp(ud));
}

/*
 * Exit status 0 when, without CAP_NET_RAW, a raw QP cannot be created and
 * a raw QP created before cannot get a flow, both with EPERM.
 */
static int no_net_raw_child(void)
{
	struct ibv_context *ctx = swr_open_test_dev();
	struct raw_end e = {};
	struct raw_flow_attr fa;
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_pd *pd;

	if (!ctx)
		return 10;
	pd = ibv_alloc_pd(ctx);
	if (!pd || raw_end_create(ctx, pd, &e))
		return 11;
	if (swr_drop_cap(CAP_NET_RAW))
		return 12;
	a.send_cq = e.cq;
	a.recv_cq = e.cq;
	errno = 0;
	if (ibv_create_qp(pd, &a) || errno != EPERM)
		return 13;
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, 0);
	errno = 0;
	if (ibv_create_flow(e.qp, &fa.attr) || errno != EPERM)
		return 14;
	raw_end_destroy(&e);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

TEST_F(raw, needs_cap_net_raw)
{
	swr_t_run_child(_metadata, no_net_raw_child);
}

/* A packet socket on the veth peer of the device's netdev, or -1. */
static int raw_peer_socket(int *ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	char ndev[64];
	long peer, self_idx;
	int fd;

	if (swr_test_netdev(ndev, sizeof(ndev)))
		return -1;
	peer = swr_netdev_long(ndev, "iflink");
	self_idx = swr_netdev_long(ndev, "ifindex");
	if (peer <= 0 || peer == self_idx)
		return -1;	/* not one end of a pair */
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		return -1;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = peer;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	*ifindex = peer;
	return fd;
}

/* Read frames from @fd for up to 2 s until one to @dmac: its length. */
static ssize_t raw_peer_recv(int fd, const uint8_t *dmac, uint8_t *buf,
			     size_t len)
{
	uint64_t end = swr_now_ms() + 2000;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (swr_now_ms() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, len, 0);
		if (n >= 14 && !memcmp(buf, dmac, 6))
			return n;
	}
	return -1;
}

TEST_F(raw, wire_out)
{
	struct raw_pkt k = { raw_dmac2, 6, IPPROTO_UDP, 1234, 4242, 0x77 };
	uint8_t *got = self->buf + RAW_BUF;
	struct ibv_wc wc;
	int fd, peer;
	ssize_t n;

	fd = raw_peer_socket(&peer);
	if (fd < 0)
		SKIP(return, "the device's netdev has no veth peer to watch");
	raw_build(self->buf, 300, &k);
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, self->buf, 300, 20,
			      false));
	raw_expect_wc(_metadata, self->c.cq, 20, IBV_WC_SUCCESS, &wc);
	n = raw_peer_recv(fd, raw_dmac2, got, RAW_BUF);
	close(fd);
	ASSERT_EQ(300, n);
	EXPECT_EQ(0, memcmp(got, self->buf, 300));
}

TEST_F(raw, wire_in)
{
	struct raw_pkt hit = { raw_dmac, 4, IPPROTO_UDP, 1234, 9999, 0x78 };
	struct raw_pkt miss = hit;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	uint8_t *rbuf = self->buf + RAW_BUF;
	struct raw_flow_attr fa;
	struct ibv_flow *flow;
	struct ibv_wc wc;
	int fd, peer;

	fd = raw_peer_socket(&peer);
	if (fd < 0)
		SKIP(return, "the device's netdev has no veth peer to send on");
	to.sll_ifindex = peer;
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, ETH_P_IP);
	raw_spec_ipv4(&fa, IPPROTO_UDP);
	raw_spec_l4(&fa, IPPROTO_UDP, 9999);
	flow = ibv_create_flow(self->s.qp, &fa.attr);
	ASSERT_NE(NULL, flow) TH_LOG("create_flow: %s", strerror(errno));
	ASSERT_EQ(0, swr_post_recv1(self->s.qp, 400, rbuf, 2048,
				    self->mr->lkey));

	miss.dport = 9998;
	raw_build(self->buf, 200, &miss);
	ASSERT_EQ(200, sendto(fd, self->buf, 200, 0, (struct sockaddr *)&to,
			      sizeof(to)));
	raw_build(self->buf, 200, &hit);
	ASSERT_EQ(200, sendto(fd, self->buf, 200, 0, (struct sockaddr *)&to,
			      sizeof(to)));
	close(fd);
	raw_expect_wc(_metadata, self->s.cq, 400, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_EQ(200, wc.byte_len);
	EXPECT_EQ(0, memcmp(rbuf, self->buf, 200));
	EXPECT_EQ(0, swr_cq_count(self->s.cq, 100));
	EXPECT_EQ(0, ibv_destroy_flow(flow));
}

TEST_HARNESS_MAIN
