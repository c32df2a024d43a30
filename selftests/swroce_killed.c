// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A process dies (SIGKILL) in the middle of its work: QPs with sends
 * waiting on RNR for ever, large RDMA WRITEs in flight, receives posted on
 * an RQ and an SRQ, armed CQs, mapped rings, pinned MRs. Afterwards every
 * object it had is gone (rdma resource lists none of its pid), ring memory
 * (VmallocUsed) is back where it was, the poller is not kept busy by
 * anything left over (the next post wakes it exactly once) and the device
 * works byte-exact for the next process. The same with the device removed
 * (rdma link del) under the dying process and under a live one: neither
 * may make the removal wait.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_load.h"

#define KILL_DEV	"swrkill0"

/* Objects of type @res ("qp", "cq", "mr", "pd") that rdma lists for @pid. */
static int res_of_pid(const char *res, pid_t pid)
{
	char cmd[128], key[32], buf[4096];
	size_t klen;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma -j resource show %s 2>/dev/null", res);
	klen = snprintf(key, sizeof(key), "\"pid\":%d", pid);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		const char *p = buf;

		while ((p = strstr(p, key))) {
			p += klen;
			if (*p < '0' || *p > '9')
				n++;
		}
	}
	if (pclose(f))
		return -1;
	return n;
}

static pid_t start_hog(struct __test_metadata *_metadata, const char *dev)
{
	int pfd[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[0]);
		setenv("SWROCE_DEV", dev, 1);
		_exit(swr_load(pfd[1], 60, SWR_LOAD_BIG));
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		int status = 0;

		waitpid(pid, &status, 0);
		ASSERT_TRUE(0) TH_LOG("the child failed to set up (exit %d)",
				      WEXITSTATUS(status));
	}
	close(pfd[0]);
	/* Let the engine get going on all of it. */
	usleep(200000);
	return pid;
}

static void kill_hog(struct __test_metadata *_metadata, pid_t pid)
{
	uint64_t t0 = swr_now_ms();
	int status;

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	TH_LOG("killed after setup; reaped in %llu ms",
	       (unsigned long long)(swr_now_ms() - t0));
}

/* One RDMA WRITE and one SEND byte-exact on a fresh pair; doorbell counts. */
static void device_works(struct __test_metadata *_metadata)
{
	struct swr_pair p;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	long long db0, wk0;
	uint8_t *buf;
	int ret;

	ret = swr_pair_open(&p);
	ASSERT_EQ(0, ret) TH_LOG("open: %s", strerror(-ret));
	ASSERT_EQ(0, swr_pair_create(&p, NULL));
	buf = calloc(1, 65536);
	ASSERT_NE(NULL, buf);
	mr = ibv_reg_mr(p.pd, buf, 65536, SWR_ALL_ACCESS);
	ASSERT_NE(NULL, mr);
	swr_fill(buf, 4096, 0x99);
	memset(buf + 8192, 0xa5, 16384);

	/* Nothing is left for the poller: it sleeps, one post wakes it. */
	ASSERT_TRUE(swr_poller_wait_asleep(20000))
		TH_LOG("the poller is kept awake");
	db0 = swr_counter("doorbells");
	wk0 = swr_counter("poller_wakeups");
	ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_RDMA_WRITE, 1, buf, 4096,
				    mr->lkey, (uintptr_t)buf + 8192, mr->rkey,
				    IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait(p.c.scq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(-1, swr_check(buf + 8192, 4096, 0x99));
	EXPECT_EQ(-1, swr_check_byte(buf + 12288, 12288, 0xa5));
	EXPECT_EQ(db0 + 1, swr_counter("doorbells"));
	EXPECT_EQ(wk0 + 1, swr_counter("poller_wakeups"));

	ASSERT_EQ(0, swr_post_recv1(p.s.qp, 2, buf + 32768, 4096, mr->lkey));
	ASSERT_EQ(0, swr_post_send1(p.c.qp, IBV_WR_SEND, 3, buf, 4096,
				    mr->lkey, 0, 0, IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait(p.c.scq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(1, swr_wait(p.s.rcq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(4096, wc.byte_len);
	EXPECT_EQ(-1, swr_check(buf + 32768, 4096, 0x99));
	ibv_dereg_mr(mr);
	swr_pair_close(&p);
	free(buf);
}

FIXTURE(dummy) {
	int unused;
};

FIXTURE_SETUP(dummy)
{
}

FIXTURE_TEARDOWN(dummy)
{
	/* A device of our own left behind by a failed test. */
	if (!access("/sys/class/infiniband/" KILL_DEV, F_OK))
		(void)!system("rdma link del " KILL_DEV " 2>/dev/null");
}

/* Wait up to @ms for @res objects of @pid to disappear; how many are left. */
static int res_wait_gone(const char *res, pid_t pid, int ms)
{
	uint64_t end = swr_now_ms() + ms;
	int n;

	for (;;) {
		n = res_of_pid(res, pid);
		if (n == 0 || swr_now_ms() > end)
			return n;
		usleep(50000);
	}
}

TEST_F_TIMEOUT(dummy, killed_leaves_nothing, 180)
{
	static const char * const res[] = { "qp", "cq", "mr", "pd" };
	long before, during, after = -1;
	unsigned int i;
	pid_t pid;

	/* Let lazily freed vmap areas of earlier steps settle. */
	usleep(200000);
	before = swr_vmalloc_used_kb();
	ASSERT_LT(0, before);
	pid = start_hog(_metadata, swr_test_dev());
	during = swr_vmalloc_used_kb();
	/* The check below can see the child's objects. */
	EXPECT_LE(6, res_of_pid("qp", pid));
	EXPECT_LE(1, res_of_pid("mr", pid));

	kill_hog(_metadata, pid);
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		int left = res_wait_gone(res[i], pid, 10000);

		if (left)
			TH_LOG("%d %s objects of the dead process remain",
			       left, res[i]);
		EXPECT_EQ(0, left);
	}
	for (i = 0; i < 50; i++) {
		after = swr_vmalloc_used_kb();
		if (after <= before + 1024)
			break;
		usleep(100000);
	}
	TH_LOG("VmallocUsed %ld kB before, %ld during, %ld after",
	       before, during, after);
	EXPECT_GE(before + 1024, after);
	device_works(_metadata);
}

/* rdma link del of KILL_DEV returns within 30 s and the device is gone. */
static void link_del_promptly(struct __test_metadata *_metadata)
{
	char path[128];
	int status;

	status = system("timeout 30 rdma link del " KILL_DEV);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("rdma link del failed or hung");
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", KILL_DEV);
	EXPECT_NE(0, access(path, F_OK));
}

/* The device is removed right after the kill: the removal does not wait. */
TEST_F_TIMEOUT(dummy, link_del_after_kill, 180)
{
	pid_t pid;

	ASSERT_EQ(0, system("rdma link add " KILL_DEV
			    " type swroce netdev veth1"));
	pid = start_hog(_metadata, KILL_DEV);
	kill_hog(_metadata, pid);
	link_del_promptly(_metadata);
	device_works(_metadata);
}

/* ... and with the process still alive, all its work outstanding. */
TEST_F_TIMEOUT(dummy, link_del_under_live_process, 180)
{
	pid_t pid;

	ASSERT_EQ(0, system("rdma link add " KILL_DEV
			    " type swroce netdev veth1"));
	pid = start_hog(_metadata, KILL_DEV);
	link_del_promptly(_metadata);
	/* The process is still there; it survived its device going away. */
	EXPECT_EQ(0, kill(pid, 0));
	kill_hog(_metadata, pid);
	device_works(_metadata);
}

TEST_HARNESS_MAIN
