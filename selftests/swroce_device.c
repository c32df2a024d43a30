// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device as libibverbs and the provider present it: attributes derived
 * from the bound netdev (GUID from the MAC, MTU, RoCEv2 GIDs from its IP
 * addresses), the P_Key table, and PD allocation under churn.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "swr_test.h"

FIXTURE(dev) {
	struct ibv_context *ctx;
	char ndev[IF_NAMESIZE];
};

FIXTURE_SETUP(dev)
{
	ASSERT_EQ(0, swr_test_netdev(self->ndev, sizeof(self->ndev)));
	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", swr_test_dev());
}

FIXTURE_TEARDOWN(dev)
{
	if (self->ctx)
		ibv_close_device(self->ctx);
}

/* The modified EUI-64 a RoCE port derives from its MAC, as bytes on the wire. */
static void mac_to_guid(const char *ndev, uint8_t guid[8])
{
	unsigned int m[6] = {};
	char path[128], buf[64];

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ndev);
	if (swr_read_line(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
		   &m[4], &m[5]) != 6)
		memset(m, 0, sizeof(m));
	guid[0] = m[0] ^ 2;
	guid[1] = m[1];
	guid[2] = m[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = m[3];
	guid[6] = m[4];
	guid[7] = m[5];
}

TEST_F(dev, query_device)
{
	struct ibv_device_attr attr;
	uint8_t guid[8];

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	EXPECT_EQ(0xffffff, attr.vendor_id);
	EXPECT_EQ(0x5352, attr.vendor_part_id);
	EXPECT_EQ(1, attr.phys_port_cnt);
	EXPECT_LT(0, attr.max_pd);
	EXPECT_EQ(1, attr.max_pkeys);
	/* Capabilities no smaller than rdma_rxe's. */
	EXPECT_LE(32, attr.max_sge);
	EXPECT_LE(32, attr.max_sge_rd);
	EXPECT_LE(128, attr.max_qp_rd_atom);
	EXPECT_LE(128, attr.max_qp_init_rd_atom);
	EXPECT_LE(4096, attr.max_qp_wr);
	EXPECT_LT(4096ULL, attr.max_mr_size);
	mac_to_guid(self->ndev, guid);
	EXPECT_EQ(0, memcmp(guid, &attr.node_guid, 8));
	EXPECT_EQ(attr.node_guid, attr.sys_image_guid);
	EXPECT_EQ(IBV_NODE_CA, self->ctx->device->node_type);
	EXPECT_EQ(IBV_TRANSPORT_IB, self->ctx->device->transport_type);
}

TEST_F(dev, query_device_ex)
{
	struct ibv_device_attr_ex ex = {};
	struct ibv_device_attr attr;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &ex));
	EXPECT_EQ(attr.node_guid, ex.orig_attr.node_guid);
	EXPECT_EQ(attr.vendor_part_id, ex.orig_attr.vendor_part_id);
	EXPECT_EQ(attr.max_pd, ex.orig_attr.max_pd);
	EXPECT_EQ(1, ex.phys_port_cnt_ex);
}

/* Largest IB MTU that fits an Ethernet MTU after RoCEv2 headers (96 B). */
static enum ibv_mtu roce_mtu(long eth_mtu)
{
	enum ibv_mtu m;

	for (m = IBV_MTU_4096; m >= IBV_MTU_256; m--)
		if (eth_mtu - 96 >= (128 << m))
			return m;
	return 0;
}

TEST_F(dev, query_port)
{
	struct ibv_port_attr pa;

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &pa));
	EXPECT_EQ(IBV_PORT_ACTIVE, pa.state);
	EXPECT_EQ(5, pa.phys_state);	/* LinkUp */
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, pa.link_layer);
	EXPECT_EQ(IBV_MTU_4096, pa.max_mtu);
	EXPECT_EQ(roce_mtu(swr_netdev_long(self->ndev, "mtu")), pa.active_mtu);
	EXPECT_EQ(128, pa.gid_tbl_len);
	EXPECT_EQ(1, pa.pkey_tbl_len);
	EXPECT_EQ(0, pa.lid);
	/* There is no port 2. */
	EXPECT_NE(0, ibv_query_port(self->ctx, 2, &pa));
}

TEST_F(dev, query_pkey)
{
	uint16_t pkey = 0;

	ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, 0, &pkey));
	EXPECT_EQ(0xffff, ntohs(pkey));
	EXPECT_NE(0, ibv_query_pkey(self->ctx, 1, 1, &pkey));
}

/* Is @gid in the port's GID table, with type RoCE v2? */
static int gid_in_table(struct ibv_context *ctx, const union ibv_gid *gid)
{
	struct ibv_gid_entry ent;
	int i, found = 0;

	for (i = 0; i < 128; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &ent, 0))
			continue;
		if (ent.gid_type != IBV_GID_TYPE_ROCE_V2)
			return -1;
		if (!memcmp(&ent.gid, gid, sizeof(*gid)))
			found = 1;
	}
	return found;
}

TEST_F(dev, gids_follow_ip_addresses)
{
	struct ifaddrs *ifa, *i;
	int v4 = 0, v6 = 0;

	ASSERT_EQ(0, getifaddrs(&ifa));
	for (i = ifa; i; i = i->ifa_next) {
		union ibv_gid gid = {};

		if (!i->ifa_addr || strcmp(i->ifa_name, self->ndev))
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			struct sockaddr_in *s = (void *)i->ifa_addr;

			/* IPv4-mapped IPv6 address */
			gid.raw[10] = 0xff;
			gid.raw[11] = 0xff;
			memcpy(&gid.raw[12], &s->sin_addr, 4);
			v4++;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			struct sockaddr_in6 *s = (void *)i->ifa_addr;

			memcpy(gid.raw, &s->sin6_addr, 16);
			v6++;
		} else {
			continue;
		}
		EXPECT_EQ(1, gid_in_table(self->ctx, &gid));
	}
	freeifaddrs(ifa);
	/* The setup gives the netdev one address of each family. */
	EXPECT_LE(1, v4);
	EXPECT_LE(1, v6);
}

TEST_F(dev, pd_churn)
{
	enum { HELD = 1000, ROUNDS = 5000 };
	struct ibv_pd **pds;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		struct ibv_pd *pd = ibv_alloc_pd(self->ctx);

		ASSERT_NE(NULL, pd);
		ASSERT_EQ(0, ibv_dealloc_pd(pd));
	}

	pds = calloc(HELD, sizeof(*pds));
	ASSERT_NE(NULL, pds);
	for (i = 0; i < HELD; i++) {
		pds[i] = ibv_alloc_pd(self->ctx);
		ASSERT_NE(NULL, pds[i]);
	}
	/* Free in an order unlike the allocation order. */
	for (i = 0; i < HELD; i += 2)
		ASSERT_EQ(0, ibv_dealloc_pd(pds[i]));
	for (i = HELD - 1; i > 0; i -= 2)
		ASSERT_EQ(0, ibv_dealloc_pd(pds[i]));
	free(pds);
}

TEST_F(dev, many_contexts)
{
	struct ibv_context *c[32];
	struct ibv_pd *pd[32];
	int i;

	for (i = 0; i < 32; i++) {
		c[i] = swr_open_test_dev();
		ASSERT_NE(NULL, c[i]);
		pd[i] = ibv_alloc_pd(c[i]);
		ASSERT_NE(NULL, pd[i]);
	}
	/* Closing a context with its PD still allocated cleans it up. */
	for (i = 0; i < 32; i++) {
		if (i % 2)
			ASSERT_EQ(0, ibv_dealloc_pd(pd[i]));
		ASSERT_EQ(0, ibv_close_device(c[i]));
	}
}

TEST_HARNESS_MAIN
