// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Teardown under a user's feet:
 *  - removing a device that a process still has open: "rdma link del"
 *    must not wait for the process. Its objects are destroyed under it,
 *    later commands fail with EIO, and the rings it still has mapped stay
 *    readable (no fault) until it lets go;
 *  - the same for unloading the module: it must not wait either, and the
 *    process must not fault afterwards (no code of ours is left behind
 *    its mappings);
 *  - a process killed with mapped rings, posted receives and pinned MRs
 *    leaves nothing behind: ring memory (vmalloc) returns to where it was.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
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

TEST(rmmod_with_open_context)
{
	const char *ko = getenv("SWROCE_KO");
	char cmd[512], ndev[32];
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	int status;

	if (!ko)
		SKIP(return, "SWROCE_KO not set");
	ASSERT_EQ(0, swr_test_netdev(ndev, sizeof(ndev)));
	ctx = swr_open_test_dev();
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);

	status = system("timeout 60 rmmod swroce");
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* The module is gone; our mapping and our process are fine. */
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	errno = 0;
	EXPECT_EQ(NULL, ibv_alloc_pd(ctx));
	EXPECT_EQ(EIO, errno);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	EXPECT_EQ(0, ibv_close_device(ctx));

	/* Put the device under test back for the steps that follow. */
	snprintf(cmd, sizeof(cmd),
		 "insmod %s && rdma link add %s type swroce netdev %s",
		 ko, swr_test_dev(), ndev);
	ASSERT_EQ(0, system(cmd));
}

/* The child: a lot of ring memory and pinned pages, then wait to die. */
static void hog(int ready_fd)
{
	enum { NCQ = 64, NMR = 16, MRSZ = 1 << 20 };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1024, .max_sge = 1 } };
	struct ibv_context *ctx = swr_open_test_dev();
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge = { .length = 64 };
	struct ibv_srq *srq;
	struct ibv_mr *mr = NULL;
	struct ibv_pd *pd;
	int i;

	if (!ctx || !(pd = ibv_alloc_pd(ctx)))
		_exit(1);
	for (i = 0; i < NCQ; i++)
		if (!ibv_create_cq(ctx, 4096, NULL, NULL, 0))
			_exit(2);
	for (i = 0; i < NMR; i++) {
		void *buf = mmap(NULL, MRSZ, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		mr = ibv_reg_mr(pd, buf, MRSZ, IBV_ACCESS_LOCAL_WRITE);
		if (buf == MAP_FAILED || !mr)
			_exit(3);
	}
	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		_exit(4);
	sge.addr = mr->addr ? (uintptr_t)mr->addr : 0;
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	for (i = 0; i < 1000; i++)
		if (ibv_post_srq_recv(srq, &wr, &bad))
			_exit(5);
	if (write(ready_fd, "r", 1) != 1)
		_exit(6);
	pause();
	_exit(0);
}

TEST(killed_process_leaves_nothing)
{
	long before, during, after = -1;
	int pfd[2], status, i;
	pid_t pid;
	char c;

	/* Let lazily freed vmap areas settle first. */
	usleep(200000);
	before = swr_vmalloc_used_kb();
	ASSERT_LT(0, before);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[0]);
		hog(pfd[1]);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1)) TH_LOG("child failed to set up");
	during = swr_vmalloc_used_kb();
	/* 64 CQ rings of 4096 x 40 bytes: at least 10 MiB of vmalloc. */
	EXPECT_LE(before + 10 * 1024, during);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	/* Teardown runs as the files close; give it a moment to finish. */
	for (i = 0; i < 50; i++) {
		usleep(100000);
		after = swr_vmalloc_used_kb();
		if (after <= before + 1024)
			break;
	}
	EXPECT_GE(before + 1024, after)
		TH_LOG("VmallocUsed %ld kB before, %ld during, %ld after",
		       before, during, after);
}

TEST_HARNESS_MAIN
