// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive side scaling (kernel/swr_rss.c): receive WQs, an indirection
 * table of them and an RSS raw packet QP steered to by a flow.
 *
 * A raw client QP sends frames with different 5-tuples; each lands, byte
 * for byte, in the next receive WQE of exactly the WQ that a Toeplitz
 * hash computed here (checked against Microsoft's published vectors)
 * predicts, completing on that WQ's CQ with the WQ's number. WQ states:
 * a WQ in RESET or ERR takes no frame, entering ERR flushes its WQEs,
 * back through RESET it receives again; transitions the device does not
 * take are refused. Bad input: a table beyond the announced size, a WQ
 * of another context, unsupported or conflicting hash fields, a bad key
 * length or function, an RSS QP that would have queues or states.
 */
#include <stdint.h>

#include "kselftest_harness.h"
#include "swr_test.h"
#include "swr_qp_test.h"
#include "swr_raw_test.h"

#define RSS_LOG_TBL	2
#define RSS_NWQ		(1 << RSS_LOG_TBL)
#define RSS_NCQ		2
#define RSS_WQE_BYTES	1024
#define RSS_WQES	8	/* posted per WQ, each its own buffer */
#define RSS_FIELDS	(IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | \
			 IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

/* Microsoft's RSS verification key (its published vectors use it). */
static uint8_t rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* The reference: for every set input bit, XOR the key's 32 bits there. */
static uint32_t toeplitz(const uint8_t *key, const uint8_t *in, int len)
{
	uint32_t win = (uint32_t)key[0] << 24 | key[1] << 16 | key[2] << 8 |
		       key[3], h = 0;
	int i, b;

	for (i = 0; i < len; i++)
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				h ^= win;
			win = win << 1 | ((key[i + 4] >> (7 - b)) & 1);
		}
	return h;
}

/* The hash of an IPv4/UDP frame @f under RSS_FIELDS. */
static uint32_t rss_frame_hash(const uint8_t *f)
{
	uint8_t in[12];

	memcpy(in, f + 14 + 12, 8);	/* source, destination address */
	memcpy(in + 8, f + 14 + 20, 4);	/* source, destination port */
	return toeplitz(rss_key, in, sizeof(in));
}

FIXTURE(rss) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *buf;	/* [0, RAW_BUF): send; then the WQs' buffers */
	struct ibv_mr *mr;
	struct raw_end c;
	struct ibv_cq *cq[RSS_NCQ];
	struct ibv_wq *wq[RSS_NWQ];
	struct ibv_rwq_ind_table *tbl;
	struct ibv_qp *qp;
	struct ibv_flow *flow;
	uint32_t posted[RSS_NWQ], done[RSS_NWQ];
};

static uint8_t *rss_wqe_buf(FIXTURE_DATA(rss) *self, int w, uint32_t i)
{
	return self->buf + RAW_BUF +
	       ((size_t)w * RSS_WQES + i % RSS_WQES) * RSS_WQE_BYTES;
}

static int rss_post(FIXTURE_DATA(rss) *self, int w)
{
	uint32_t i = self->posted[w]++;
	struct ibv_sge sge = {
		.addr = (uintptr_t)rss_wqe_buf(self, w, i),
		.length = RSS_WQE_BYTES, .lkey = self->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uint64_t)w << 32 | i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_wq_recv(self->wq[w], &wr, &bad);
}

static struct ibv_wq *rss_wq_create(struct ibv_context *ctx,
				    struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_wq_init_attr a = {
		.wq_type = IBV_WQT_RQ, .max_wr = RSS_WQES, .max_sge = 1,
		.pd = pd, .cq = cq,
	};

	return ibv_create_wq(ctx, &a);
}

static int rss_wq_state(struct ibv_wq *wq, enum ibv_wq_state s)
{
	struct ibv_wq_attr a = { .attr_mask = IBV_WQ_ATTR_STATE,
				 .wq_state = s };

	return ibv_modify_wq(wq, &a);
}

/* An RSS QP over @tbl with @fields, key length @klen, function @fn. */
static struct ibv_qp *rss_qp_create(struct ibv_context *ctx,
				    struct ibv_pd *pd,
				    struct ibv_rwq_ind_table *tbl,
				    uint64_t fields, uint8_t klen, uint8_t fn)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = pd, .rwq_ind_tbl = tbl,
		.rx_hash_conf = { .rx_hash_function = fn,
				  .rx_hash_key_len = klen,
				  .rx_hash_key = rss_key,
				  .rx_hash_fields_mask = fields },
	};

	return ibv_create_qp_ex(ctx, &a);
}

FIXTURE_SETUP(rss)
{
	struct ibv_rwq_ind_table_init_attr ta = {
		.log_ind_tbl_size = RSS_LOG_TBL, .ind_tbl = self->wq,
	};
	struct raw_flow_attr fa;
	size_t len = RAW_BUF + (size_t)RSS_NWQ * RSS_WQES * RSS_WQE_BYTES;
	int i;

	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = calloc(1, len);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, len,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	ASSERT_EQ(0, raw_end_create(self->ctx, self->pd, &self->c));
	for (i = 0; i < RSS_NCQ; i++) {
		self->cq[i] = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
		ASSERT_NE(NULL, self->cq[i]);
	}
	for (i = 0; i < RSS_NWQ; i++) {
		self->wq[i] = rss_wq_create(self->ctx, self->pd,
					    self->cq[i % RSS_NCQ]);
		ASSERT_NE(NULL, self->wq[i])
			TH_LOG("create_wq: %s", strerror(errno));
		ASSERT_EQ(IBV_WQS_RESET, self->wq[i]->state);
		ASSERT_EQ(0, rss_wq_state(self->wq[i], IBV_WQS_RDY));
	}
	self->tbl = ibv_create_rwq_ind_table(self->ctx, &ta);
	ASSERT_NE(NULL, self->tbl) TH_LOG("table: %s", strerror(errno));
	self->qp = rss_qp_create(self->ctx, self->pd, self->tbl, RSS_FIELDS,
				 sizeof(rss_key), IBV_RX_HASH_FUNC_TOEPLITZ);
	ASSERT_NE(NULL, self->qp) TH_LOG("RSS QP: %s", strerror(errno));
	raw_flow_init(&fa);
	raw_spec_eth(&fa, raw_dmac, ETH_P_IP);
	self->flow = ibv_create_flow(self->qp, &fa.attr);
	ASSERT_NE(NULL, self->flow) TH_LOG("flow: %s", strerror(errno));
}

FIXTURE_TEARDOWN(rss)
{
	int i;

	if (self->flow)
		ibv_destroy_flow(self->flow);
	if (self->qp)
		ibv_destroy_qp(self->qp);
	if (self->tbl)
		ibv_destroy_rwq_ind_table(self->tbl);
	for (i = 0; i < RSS_NWQ; i++)
		if (self->wq[i])
			ibv_destroy_wq(self->wq[i]);
	for (i = 0; i < RSS_NCQ; i++)
		if (self->cq[i])
			ibv_destroy_cq(self->cq[i]);
	raw_end_destroy(&self->c);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	free(self->buf);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

/* Frame @n: IPv4/UDP to raw_dmac, source 10.1.<n>.<n*7>, ports vary. */
static uint32_t rss_frame(uint8_t *f, int n)
{
	struct raw_pkt k = { raw_dmac, 4, IPPROTO_UDP, 1000 + n * 13,
			     4791 + n, (uint8_t)(0x40 + n) };
	uint32_t len = 100 + n * 7;

	raw_build(f, len, &k);
	f[14 + 12] = 10;
	f[14 + 13] = 1;
	f[14 + 14] = n;
	f[14 + 15] = n * 7;
	return len;
}

/* Send frame @n; it must land on the WQ its hash predicts. Returns it. */
static int rss_send_expect(struct __test_metadata *_metadata,
			   FIXTURE_DATA(rss) *self, int n)
{
	uint32_t len = rss_frame(self->buf, n), i;
	int w = rss_frame_hash(self->buf) & (RSS_NWQ - 1);
	struct ibv_wc wc;

	EXPECT_EQ(0, raw_send(self->c.qp, self->mr, self->buf, len, n, false));
	raw_expect_wc(_metadata, self->c.cq, n, IBV_WC_SUCCESS, &wc);
	i = self->done[w]++;
	raw_expect_wc(_metadata, self->cq[w % RSS_NCQ], (uint64_t)w << 32 | i,
		      IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(IBV_WC_RECV, wc.opcode);
	EXPECT_EQ(len, wc.byte_len);
	EXPECT_EQ(self->wq[w]->wq_num, wc.qp_num);
	EXPECT_EQ(0, memcmp(rss_wqe_buf(self, w, i), self->buf, len))
		TH_LOG("frame %d on WQ %d differs", n, w);
	return w;
}

/* The reference hash is the published one (Microsoft's RSS vectors). */
TEST(toeplitz_reference)
{
	static const uint8_t v4[12] = { 66, 9, 149, 187, 161, 142, 100, 80,
					0x0a, 0xea, 0x06, 0xe6 };

	EXPECT_EQ(0x323e8fc2, toeplitz(rss_key, v4, 8));
	EXPECT_EQ(0x51ccc178, toeplitz(rss_key, v4, 12));
}

TEST_F(rss, caps)
{
	struct ibv_device_attr_ex a = {};

	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &a));
	EXPECT_EQ(1u << IBV_QPT_RAW_PACKET, a.rss_caps.supported_qpts);
	EXPECT_LE(1u << RSS_LOG_TBL,
		  a.rss_caps.max_rwq_indirection_table_size);
	EXPECT_LT(0, a.rss_caps.max_rwq_indirection_tables);
	EXPECT_EQ(IBV_RX_HASH_FUNC_TOEPLITZ, a.rss_caps.rx_hash_function);
	EXPECT_EQ(RSS_FIELDS, a.rss_caps.rx_hash_fields_mask & RSS_FIELDS);
	EXPECT_LT(0, a.max_wq_type_rq);
}

/* 24 5-tuples spread over the WQs exactly as the hash predicts. */
TEST_F(rss, spread)
{
	int n, w, hit = 0;

	for (w = 0; w < RSS_NWQ; w++)
		for (n = 0; n < RSS_WQES; n++)
			ASSERT_EQ(0, rss_post(self, w));
	for (n = 0; n < 24; n++) {
		w = rss_send_expect(_metadata, self, n);
		hit |= 1 << w;
		/* Keep every WQ stocked. */
		ASSERT_EQ(0, rss_post(self, w));
	}
	/* More than one WQ took frames, and nothing arrived twice. */
	EXPECT_NE(0, hit & (hit - 1)) TH_LOG("all on one WQ: %#x", hit);
	for (n = 0; n < RSS_NCQ; n++)
		EXPECT_EQ(0, swr_cq_count(self->cq[n], 100));
}

/* RESET and ERR take no frame; ERR flushes; RESET -> RDY receives again. */
TEST_F(rss, wq_states)
{
	uint32_t len = rss_frame(self->buf, 3);
	int w = rss_frame_hash(self->buf) & (RSS_NWQ - 1), i;
	struct ibv_cq *cq = self->cq[w % RSS_NCQ];
	struct ibv_wc wc;

	/* RDY -> RESET: a posted WQE stays unused, the frame is dropped. */
	ASSERT_EQ(0, rss_wq_state(self->wq[w], IBV_WQS_RESET));
	ASSERT_EQ(0, rss_post(self, w));
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, self->buf, len, 1, false));
	raw_expect_wc(_metadata, self->c.cq, 1, IBV_WC_SUCCESS, &wc);
	EXPECT_EQ(0, swr_cq_count(cq, 200));
	/*
	 * RESET -> ERR is not a transition; RESET -> RDY -> ERR is, and
	 * flushes the WQE posted in RESET with the two posted in RDY.
	 */
	errno = 0;
	EXPECT_NE(0, rss_wq_state(self->wq[w], IBV_WQS_ERR));
	ASSERT_EQ(0, rss_wq_state(self->wq[w], IBV_WQS_RDY));
	for (i = 1; i < 3; i++)
		ASSERT_EQ(0, rss_post(self, w));
	ASSERT_EQ(0, rss_wq_state(self->wq[w], IBV_WQS_ERR));
	for (i = 0; i < 3; i++)
		raw_expect_wc(_metadata, cq, (uint64_t)w << 32 | i,
			      IBV_WC_WR_FLUSH_ERR, &wc);
	/* A WQE posted in ERR is flushed by the next frame, not filled. */
	ASSERT_EQ(0, rss_post(self, w));
	ASSERT_EQ(0, raw_send(self->c.qp, self->mr, self->buf, len, 2, false));
	raw_expect_wc(_metadata, self->c.cq, 2, IBV_WC_SUCCESS, &wc);
	raw_expect_wc(_metadata, cq, (uint64_t)w << 32 | 3,
		      IBV_WC_WR_FLUSH_ERR, &wc);
	/* ERR -> RDY is not a transition; through RESET it is. */
	EXPECT_NE(0, rss_wq_state(self->wq[w], IBV_WQS_RDY));
	ASSERT_EQ(0, rss_wq_state(self->wq[w], IBV_WQS_RESET));
	ASSERT_EQ(0, rss_wq_state(self->wq[w], IBV_WQS_RDY));
	self->posted[w] = 4;
	self->done[w] = 4;
	ASSERT_EQ(0, rss_post(self, w));
	EXPECT_EQ(w, rss_send_expect(_metadata, self, 3));
	EXPECT_EQ(0, swr_cq_count(cq, 100));
}

/* An RSS QP has no queues and no states of its own. */
TEST_F(rss, qp_is_receive_only)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = self->pd, .rwq_ind_tbl = self->tbl,
	};
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr q;

	errno = 0;
	EXPECT_NE(0, ibv_modify_qp(self->qp, &qa,
				   IBV_QP_STATE | IBV_QP_PORT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* No queues to tell of. */
	ASSERT_EQ(0, ibv_query_qp(self->qp, &q, IBV_QP_CAP, &qi));
	EXPECT_EQ(0, q.cap.max_send_wr);
	EXPECT_EQ(0, q.cap.max_recv_wr);
	/* A table without a hash configuration. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp_ex(self->ctx, &a));
	EXPECT_EQ(EINVAL, errno);
	/* A send queue on an RSS QP. */
	a.comp_mask |= IBV_QP_INIT_ATTR_RX_HASH;
	a.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.rx_hash_conf.rx_hash_key_len = sizeof(rss_key);
	a.rx_hash_conf.rx_hash_key = rss_key;
	a.rx_hash_conf.rx_hash_fields_mask = RSS_FIELDS;
	a.send_cq = self->cq[0];
	a.cap.max_send_wr = 4;
	a.cap.max_send_sge = 1;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp_ex(self->ctx, &a));
	EXPECT_EQ(EINVAL, errno);
}

/* What the device refuses to hash with. */
TEST_F(rss, bad_hash)
{
	static const struct { uint64_t fields; uint8_t klen, fn; int err; }
	bad[] = {
		/* IPsec SPI, inner headers: not offered */
		{ IBV_RX_HASH_IPSEC_SPI, 40, IBV_RX_HASH_FUNC_TOEPLITZ,
		  EOPNOTSUPP },
		{ IBV_RX_HASH_INNER | IBV_RX_HASH_SRC_IPV4, 40,
		  IBV_RX_HASH_FUNC_TOEPLITZ, EOPNOTSUPP },
		/* IPv4 with IPv6, TCP with UDP: no packet has both */
		{ IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV6, 40,
		  IBV_RX_HASH_FUNC_TOEPLITZ, EINVAL },
		{ IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_UDP, 40,
		  IBV_RX_HASH_FUNC_TOEPLITZ, EINVAL },
		/* Toeplitz takes a 40-byte key */
		{ RSS_FIELDS, 20, IBV_RX_HASH_FUNC_TOEPLITZ, EINVAL },
		/* no other function */
		{ RSS_FIELDS, 40, 0, EOPNOTSUPP },
		/* no fields: only a one-WQ table */
		{ 0, 40, IBV_RX_HASH_FUNC_TOEPLITZ, EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(NULL, rss_qp_create(self->ctx, self->pd, self->tbl,
					      bad[i].fields, bad[i].klen,
					      bad[i].fn)) TH_LOG("case %u", i);
		EXPECT_EQ(bad[i].err, errno) TH_LOG("case %u", i);
	}
}

/* Tables beyond the announced size, and of another context's WQs. */
TEST_F(rss, bad_tables)
{
	struct ibv_device_attr_ex da = {};
	struct ibv_context *other, *fresh;
	struct ibv_pd *opd, *fpd;
	struct ibv_cq *ocq;
	struct ibv_wq *owq, *many[512];
	struct ibv_rwq_ind_table_init_attr ta = { .ind_tbl = many };
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ, .max_wr = 0, .max_sge = 1,
		.pd = self->pd, .cq = self->cq[0],
	};
	uint32_t max, i;

	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &da));
	max = da.rss_caps.max_rwq_indirection_table_size;
	ASSERT_GE(256, max);
	for (i = 0; i < 2 * max; i++)
		many[i] = self->wq[i % RSS_NWQ];
	for (ta.log_ind_tbl_size = 0; (1u << ta.log_ind_tbl_size) < 2 * max;)
		ta.log_ind_tbl_size++;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_rwq_ind_table(self->ctx, &ta));
	EXPECT_EQ(EINVAL, errno);
	/* A WQ needs at least one WR. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_wq(self->ctx, &wa));
	EXPECT_EQ(EINVAL, errno);

	/*
	 * A WQ of another context: its handle means nothing in a context
	 * that has no WQ (fresh has a PD only, so no handle is a WQ).
	 */
	other = swr_open_test_dev();
	fresh = swr_open_test_dev();
	ASSERT_NE(NULL, other);
	ASSERT_NE(NULL, fresh);
	opd = ibv_alloc_pd(other);
	fpd = ibv_alloc_pd(fresh);
	ocq = ibv_create_cq(other, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, opd);
	ASSERT_NE(NULL, fpd);
	ASSERT_NE(NULL, ocq);
	owq = rss_wq_create(other, opd, ocq);
	ASSERT_NE(NULL, owq);
	ta.log_ind_tbl_size = 0;
	many[0] = owq;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_rwq_ind_table(fresh, &ta));
	EXPECT_NE(0, errno);
	EXPECT_EQ(0, ibv_destroy_wq(owq));
	ibv_destroy_cq(ocq);
	ibv_dealloc_pd(opd);
	ibv_dealloc_pd(fpd);
	ibv_close_device(other);
	ibv_close_device(fresh);
}

TEST_HARNESS_MAIN
