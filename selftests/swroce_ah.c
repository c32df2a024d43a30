// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles: RoCE needs a GRH; the source GID index must exist; IPv4
 * and IPv6 GIDs both work; AHs pin their PD. (AHs to a neighbour in another
 * network namespace come with the wire tests.)
 */
#include <arpa/inet.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "swr_test.h"

FIXTURE(ah) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int v4_index;		/* GID index of the netdev's IPv4 address */
	union ibv_gid v4_gid;
};

FIXTURE_SETUP(ah)
{
	struct ibv_gid_entry ent;
	int i;

	self->ctx = swr_open_test_dev();
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->v4_index = -1;
	for (i = 0; i < 128; i++) {
		if (ibv_query_gid_ex(self->ctx, 1, i, &ent, 0))
			continue;
		/* IPv4-mapped: ::ffff:a.b.c.d */
		if (ent.gid.raw[10] == 0xff && ent.gid.raw[11] == 0xff) {
			self->v4_index = i;
			self->v4_gid = ent.gid;
			break;
		}
	}
	ASSERT_LE(0, self->v4_index) TH_LOG("no IPv4 GID");
}

FIXTURE_TEARDOWN(ah)
{
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

static struct ibv_ah_attr roce_attr(int sgid_index, const union ibv_gid *dgid)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = {
			.dgid = *dgid,
			.sgid_index = sgid_index,
			.hop_limit = 64,
			.traffic_class = 0x20,
			.flow_label = 7,
		},
	};

	return a;
}

TEST_F(ah, to_own_gid)
{
	struct ibv_ah_attr a = roce_attr(self->v4_index, &self->v4_gid);
	struct ibv_ah *ah = ibv_create_ah(self->pd, &a);

	ASSERT_NE(NULL, ah) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

TEST_F(ah, ipv6_gid)
{
	struct ibv_gid_entry ent;
	struct ibv_ah_attr a;
	struct ibv_ah *ah;
	int i, v6 = -1;

	/* A global IPv6 GID (not link-local fe80::, not IPv4-mapped). */
	for (i = 0; i < 128 && v6 < 0; i++)
		if (!ibv_query_gid_ex(self->ctx, 1, i, &ent, 0) &&
		    ent.gid.raw[0] != 0xfe && ent.gid.raw[0] != 0)
			v6 = i;
	ASSERT_LE(0, v6);
	a = roce_attr(v6, &ent.gid);
	ah = ibv_create_ah(self->pd, &a);
	ASSERT_NE(NULL, ah) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

TEST_F(ah, needs_grh)
{
	struct ibv_ah_attr a = roce_attr(self->v4_index, &self->v4_gid);

	a.is_global = 0;
	a.dlid = 1;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &a));
}

TEST_F(ah, bad_sgid_index)
{
	struct ibv_ah_attr a = roce_attr(127, &self->v4_gid);

	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &a));
	a.grh.sgid_index = 200;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &a));
}

TEST_F(ah, pins_pd_and_churns)
{
	enum { HELD = 1000 };
	struct ibv_ah_attr a = roce_attr(self->v4_index, &self->v4_gid);
	struct ibv_ah **ahs = calloc(HELD, sizeof(*ahs));
	int i;

	ASSERT_NE(NULL, ahs);
	for (i = 0; i < HELD; i++) {
		ahs[i] = ibv_create_ah(self->pd, &a);
		ASSERT_NE(NULL, ahs[i]);
	}
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	for (i = 0; i < HELD; i++)
		ASSERT_EQ(0, ibv_destroy_ah(ahs[i]));
	free(ahs);
	EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	self->pd = NULL;
}

TEST_HARNESS_MAIN
