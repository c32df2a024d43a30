// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Removing a device that a process still has open: "rdma link del" must
 * not wait for the process. Its objects are destroyed under it, later
 * commands fail with EIO, and the rings it still has mapped stay readable
 * (no fault) until it lets go.
 */
#include <stdint.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_test.h"

#define DIS_DEV "swrdis0"

TEST(link_del_with_open_context)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_context *ctx;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	char buf[64];
	int status;

	ASSERT_EQ(0, system("rdma link add " DIS_DEV
			    " type swroce netdev veth1"));
	ctx = swr_open_dev(DIS_DEV);
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	srq = ibv_create_srq(pd, &sa);
	ASSERT_NE(NULL, srq);

	/* Must not wait for us to close the device. */
	status = system("timeout 30 rdma link del " DIS_DEV);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	snprintf(buf, sizeof(buf), "/sys/class/infiniband/%s", DIS_DEV);
	EXPECT_NE(0, access(buf, F_OK));

	/* Commands fail with EIO... */
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_pd(ctx));
	EXPECT_EQ(EIO, errno);
	/* ...while the mapped ring is still memory we may read. */
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));

	/* Tearing down what is left is the application's business. */
	ibv_destroy_srq(srq);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	EXPECT_EQ(0, ibv_close_device(ctx));
}

TEST_HARNESS_MAIN
