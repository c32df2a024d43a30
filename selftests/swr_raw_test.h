/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw packet QP test helpers shared by the raw and rss steps: raw QPs,
 * test frames, flow specs, posting a frame and waiting for a completion.
 * Include after kselftest_harness.h, swr_test.h and swr_qp_test.h.
 */
#ifndef SWR_RAW_TEST_H
#define SWR_RAW_TEST_H

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>

#define RAW_BUF		16384
#define RAW_FRAME	256
/* Locally administered multicast MACs of this test alone. */
static const uint8_t raw_dmac[6] = { 0x03, 0x53, 0x52, 0x77, 0x00, 0x01 };
static const uint8_t raw_dmac2[6] = { 0x03, 0x53, 0x52, 0x77, 0x00, 0x02 };
static const uint8_t raw_smac[6] = { 0x02, 0x53, 0x52, 0x77, 0x00, 0x09 };

struct raw_end {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static inline int raw_end_create(struct ibv_context *ctx, struct ibv_pd *pd,
				 struct raw_end *e)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 512 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	e->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!e->cq)
		return -errno;
	a.send_cq = e->cq;
	a.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &a);
	if (!e->qp)
		return -errno;
	if (ibv_modify_qp(e->qp, &qa, IBV_QP_STATE | IBV_QP_PORT))
		return -EINVAL;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(e->qp, &qa, IBV_QP_STATE))
		return -EINVAL;
	qa.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(e->qp, &qa, IBV_QP_STATE) ? -EINVAL : 0;
}

static inline void raw_end_destroy(struct raw_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	e->qp = NULL;
	e->cq = NULL;
}

/* What a test frame carries; the payload is swr_fill()'s pattern. */
struct raw_pkt {
	const uint8_t *dmac;
	int l3;			/* 4 or 6 */
	int l4;			/* IPPROTO_UDP or IPPROTO_TCP */
	uint16_t sport, dport;
	uint8_t seed;
};

static inline uint32_t raw_ip4(const uint8_t *a)
{
	uint32_t v;

	memcpy(&v, a, 4);
	return v;
}

/* Build the frame @k into @f; its length. */
static inline uint32_t raw_build(uint8_t *f, uint32_t len,
				 const struct raw_pkt *k)
{
	static const uint8_t s4[4] = { 1, 1, 1, 1 }, d4[4] = { 2, 2, 2, 2 };
	uint32_t off = 14, l3len = k->l3 == 4 ? 20 : 40;
	uint16_t et = htons(k->l3 == 4 ? ETH_P_IP : ETH_P_IPV6);

	swr_fill(f, len, k->seed);
	memcpy(f, k->dmac, 6);
	memcpy(f + 6, raw_smac, 6);
	memcpy(f + 12, &et, 2);
	if (k->l3 == 4) {
		struct iphdr ip = {
			.version = 4, .ihl = 5, .ttl = 64,
			.tot_len = htons(len - 14), .protocol = k->l4,
			.saddr = raw_ip4(s4), .daddr = raw_ip4(d4),
		};

		memcpy(f + off, &ip, sizeof(ip));
	} else {
		struct ip6_hdr ip6 = {
			.ip6_vfc = 6 << 4, .ip6_plen = htons(len - 54),
			.ip6_nxt = k->l4, .ip6_hlim = 64,
		};

		ip6.ip6_src.s6_addr[0] = 0xa0;
		ip6.ip6_src.s6_addr[15] = 0xa9;
		ip6.ip6_dst.s6_addr[0] = 0xb0;
		ip6.ip6_dst.s6_addr[15] = 0xb9;
		memcpy(f + off, &ip6, sizeof(ip6));
	}
	off += l3len;
	f[off] = k->sport >> 8;
	f[off + 1] = k->sport & 0xff;
	f[off + 2] = k->dport >> 8;
	f[off + 3] = k->dport & 0xff;
	return len;
}

/* The specs of a flow, in the layout ibv_create_flow() takes. */
struct raw_flow_attr {
	struct ibv_flow_attr attr;
	uint8_t specs[512];
};

static inline void raw_flow_init(struct raw_flow_attr *fa)
{
	memset(fa, 0, sizeof(*fa));
	fa->attr.type = IBV_FLOW_ATTR_NORMAL;
	fa->attr.size = sizeof(fa->attr);
	fa->attr.port = 1;
}

static inline void raw_flow_add(struct raw_flow_attr *fa, const void *spec,
				uint16_t size)
{
	memcpy((uint8_t *)&fa->attr + fa->attr.size, spec, size);
	fa->attr.size += size;
	fa->attr.num_of_specs++;
}

static inline void raw_spec_eth(struct raw_flow_attr *fa, const uint8_t *dmac,
				uint16_t ethertype)
{
	struct ibv_flow_spec_eth e = {
		.type = IBV_FLOW_SPEC_ETH, .size = sizeof(e),
	};

	memcpy(e.val.dst_mac, dmac, 6);
	memset(e.mask.dst_mac, 0xff, 6);
	memcpy(e.val.src_mac, raw_smac, 6);
	memset(e.mask.src_mac, 0xff, 6);
	e.val.ether_type = htons(ethertype);
	e.mask.ether_type = ethertype ? 0xffff : 0;
	raw_flow_add(fa, &e, sizeof(e));
}

static inline void raw_spec_ipv4(struct raw_flow_attr *fa, uint8_t proto)
{
	static const uint8_t s4[4] = { 1, 1, 1, 1 }, d4[4] = { 2, 2, 2, 2 };
	struct ibv_flow_spec_ipv4_ext s = {
		.type = IBV_FLOW_SPEC_IPV4_EXT, .size = sizeof(s),
	};

	s.val.src_ip = raw_ip4(s4);
	s.val.dst_ip = raw_ip4(d4);
	s.val.proto = proto;
	s.mask.src_ip = 0xffffffff;
	s.mask.dst_ip = 0xffffffff;
	s.mask.proto = 0xff;
	raw_flow_add(fa, &s, sizeof(s));
}

static inline void raw_spec_ipv6(struct raw_flow_attr *fa, uint8_t next_hdr)
{
	struct ibv_flow_spec_ipv6 s = {
		.type = IBV_FLOW_SPEC_IPV6, .size = sizeof(s),
	};

	s.val.src_ip[0] = 0xa0;
	s.val.src_ip[15] = 0xa9;
	s.val.dst_ip[0] = 0xb0;
	s.val.dst_ip[15] = 0xb9;
	memset(s.mask.src_ip, 0xff, 16);
	memset(s.mask.dst_ip, 0xff, 16);
	s.val.next_hdr = next_hdr;
	s.mask.next_hdr = 0xff;
	raw_flow_add(fa, &s, sizeof(s));
}

static inline void raw_spec_l4(struct raw_flow_attr *fa, int proto,
			       uint16_t dport)
{
	struct ibv_flow_spec_tcp_udp s = {
		.type = proto == IPPROTO_TCP ? IBV_FLOW_SPEC_TCP :
					      IBV_FLOW_SPEC_UDP,
		.size = sizeof(s),
	};

	s.val.src_port = htons(1234);
	s.val.dst_port = htons(dport);
	s.mask.src_port = 0xffff;
	s.mask.dst_port = 0xffff;
	raw_flow_add(fa, &s, sizeof(s));
}

/* Post the frame at buf[0..len) from @qp (SGEs: two of them; or inline). */
static inline int raw_send(struct ibv_qp *qp, struct ibv_mr *mr, uint8_t *buf,
			   uint32_t len, uint64_t wr_id, bool inl)
{
	uint32_t half = len / 2;
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)buf, .length = half, .lkey = mr->lkey },
		{ .addr = (uintptr_t)buf + half, .length = len - half,
		  .lkey = mr->lkey },
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0),
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* The next completion on @cq within 2 s must be @wr_id with @status. */
static inline void raw_expect_wc(struct __test_metadata *_metadata,
				 struct ibv_cq *cq, uint64_t wr_id,
				 enum ibv_wc_status status, struct ibv_wc *wc)
{
	ASSERT_EQ(1, swr_poll_wait(cq, wc, 2000))
		TH_LOG("no completion for wr_id %llu",
		       (unsigned long long)wr_id);
	EXPECT_EQ(wr_id, wc->wr_id);
	ASSERT_EQ(status, wc->status)
		TH_LOG("wr_id %llu: %s", (unsigned long long)wc->wr_id,
		       ibv_wc_status_str(wc->status));
}

#endif /* SWR_RAW_TEST_H */
