// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The syscall-free data path. While the device's poller is awake, posting
 * is a store to the mapped send queue and polling a load from the mapped
 * CQ: a stream of RDMA WRITEs makes no doorbell call (port counter
 * "doorbells") and, seen by strace, no system call per operation at all.
 * Once the poller has been idle for poll_idle_us it sleeps, and the next
 * post wakes it with exactly one doorbell. poll_idle_us is a sysfs
 * attribute of the device.
 *
 * On a loaded host the poller can lose its CPU for long enough to fall
 * asleep in the middle of a stream, and each time the next post rightly
 * rings. So a stream is judged by rates (DB_RATE), and an exact count is
 * asked for only where the test first makes sure of the poller's state
 * (swr_poller_wait_asleep(), or a trial short enough that the poller
 * cannot have slept).
 *
 * The stream length is SWR_FASTPATH_OPS (default 100000).
 */
#define _GNU_SOURCE	/* sched_setaffinity(), CPU_SET() */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "swr_qp_test.h"

#define BUFSZ		(64 * 1024)
#define MSG		64
#define DEPTH		8
#define WARMUP		1000
/*
 * The warm-up after strace attached: fewer writes than the stream's bound
 * on ioctls leaves room for, even if each of them rang.
 */
#define REWARM		50
#define IDLE_ATTR	"swroce/poll_idle_us"
/*
 * While streaming the poller gets the longest idle time there is (1 s): an
 * emulated CPU shared with other guests' work can stall this process for
 * far more than the default 1 ms between two posts, and a poller that fell
 * asleep then would rightly want a doorbell. The default is tested on its
 * own below.
 */
#define STREAM_IDLE_US	"1000000"
/*
 * A stream of n writes may make at most 1 + n / DB_RATE doorbells (and
 * the poller as many wake-ups): its first post may find the poller
 * asleep, and a loaded host may put it to sleep a few times more. A
 * driver that rang once per post, or once per thousand, is far above.
 */
#define DB_RATE		10000
/* Time to wait for the poller to be asleep. */
#define ASLEEP_MS	20000

static long db_bound(long n)
{
	return 1 + n / DB_RATE;
}

static long stream_ops(void)
{
	const char *s = getenv("SWR_FASTPATH_OPS");
	long n = s ? strtol(s, NULL, 0) : 0;

	return n > 0 ? n : 100000;
}

struct fp_ctx {
	struct swr_pair p;
	uint8_t *cbuf, *sbuf;
	struct ibv_mr *cmr, *smr;
};

static int fp_open(struct fp_ctx *f)
{
	struct swr_qp_opts o = { .max_send_wr = 64, .cqe = 256 };
	int ret;

	ret = swr_pair_open(&f->p);
	if (ret)
		return ret;
	f->cbuf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f->sbuf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->cbuf == MAP_FAILED || f->sbuf == MAP_FAILED)
		return -ENOMEM;
	f->cmr = ibv_reg_mr(f->p.pd, f->cbuf, BUFSZ, SWR_ALL_ACCESS);
	f->smr = ibv_reg_mr(f->p.pd, f->sbuf, BUFSZ, SWR_ALL_ACCESS);
	if (!f->cmr || !f->smr)
		return -errno;
	return swr_pair_create(&f->p, &o);
}

static void fp_close(struct fp_ctx *f)
{
	swr_pair_destroy_qps(&f->p);
	if (f->cmr)
		ibv_dereg_mr(f->cmr);
	if (f->smr)
		ibv_dereg_mr(f->smr);
	swr_pair_close(&f->p);
}

/*
 * @n signaled RDMA WRITEs of MSG bytes with up to DEPTH outstanding, each
 * carrying its sequence number into slot (seq % DEPTH) of the server
 * buffer. No system call of its own. 0, or -1 with *@why set.
 */
static int stream(struct fp_ctx *f, long n, const char **why)
{
	long posted = 0, done = 0;
	struct ibv_wc wc[DEPTH];
	int i, k;

	while (done < n) {
		while (posted < n && posted - done < DEPTH) {
			uint8_t *src = f->cbuf + (posted % DEPTH) * MSG;

			memcpy(src, &posted, sizeof(posted));
			if (swr_post_send1(f->p.c.qp, IBV_WR_RDMA_WRITE,
					   posted, src, MSG, f->cmr->lkey,
					   (uintptr_t)f->sbuf +
					   (posted % DEPTH) * MSG,
					   f->smr->rkey, IBV_SEND_SIGNALED)) {
				*why = "post_send failed";
				return -1;
			}
			posted++;
		}
		k = ibv_poll_cq(f->p.c.scq, DEPTH, wc);
		if (k < 0) {
			*why = "poll_cq failed";
			return -1;
		}
		for (i = 0; i < k; i++, done++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				*why = ibv_wc_status_str(wc[i].status);
				return -1;
			}
			if (wc[i].wr_id != (uint64_t)done) {
				*why = "completion out of order";
				return -1;
			}
		}
	}
	for (i = 0; i < DEPTH && i < n; i++) {
		long seq = n - 1 - i, got;

		memcpy(&got, f->sbuf + (seq % DEPTH) * MSG, sizeof(got));
		if (got != seq) {
			*why = "written data differs";
			return -1;
		}
	}
	return 0;
}

FIXTURE(fp) {
	struct fp_ctx f;
	char idle_saved[32];
	pid_t poller;		/* its CPUs to give back (0: none taken) */
};

FIXTURE_SETUP(fp)
{
	int ret;

	ASSERT_EQ(0, swr_ibdev_attr(IDLE_ATTR, self->idle_saved,
				    sizeof(self->idle_saved)))
		TH_LOG("no %s attribute", IDLE_ATTR);
	ret = fp_open(&self->f);
	ASSERT_EQ(0, ret) TH_LOG("setup: %s", strerror(-ret));
}

static int allow_cpus(pid_t pid, int only_cpu);

FIXTURE_TEARDOWN(fp)
{
	if (self->poller)
		allow_cpus(self->poller, -1);
	fp_close(&self->f);
	if (self->idle_saved[0])
		swr_ibdev_write(IDLE_ATTR, self->idle_saved);
}

struct counters {
	long long doorbells, wakeups, sleeps, consumed, completions;
};

/* All in one reading (swr_counters()): a jiffy, not five. */
static void read_counters(struct counters *c)
{
	static const char *const names[] = {
		"doorbells", "poller_wakeups", "poller_sleeps",
		"wqe_consumed", "completions",
	};
	long long v[5];

	if (swr_counters(names, v, 5))
		memset(v, 0xff, sizeof(v));
	c->doorbells = v[0];
	c->wakeups = v[1];
	c->sleeps = v[2];
	c->consumed = v[3];
	c->completions = v[4];
}

/*
 * A stream must not ring. Up to STREAM_TRIALS streams: the guest's vCPUs
 * are host threads, and a host busy with other guests can stall this
 * process, or put the poller and it on one vCPU, for long enough that the
 * poller rightly sleeps (the latency policy) and the next posts ring. A
 * driver that rings per post, or per thousand posts, fails every trial;
 * one that keeps to the bound passes the first unless the host interfered.
 */
#define STREAM_TRIALS	3

TEST_F_TIMEOUT(fp, no_doorbell_while_streaming, 900)
{
	long n = stream_ops(), db = 0, wk = 0;
	struct counters a, b;
	const char *why = "";
	uint64_t t0, ms;
	int trial;

	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, STREAM_IDLE_US));
	for (trial = 1; trial <= STREAM_TRIALS; trial++) {
		/* The first posts may find the poller asleep: the warm-up. */
		ASSERT_EQ(0, stream(&self->f, WARMUP, &why)) TH_LOG("%s", why);
		read_counters(&a);
		ASSERT_LE(0, a.doorbells);
		t0 = swr_now_ms();
		ASSERT_EQ(0, stream(&self->f, n, &why)) TH_LOG("%s", why);
		ms = swr_now_ms() - t0;
		read_counters(&b);
		db = b.doorbells - a.doorbells;
		wk = b.wakeups - a.wakeups;
		TH_LOG("trial %d: %ld writes in %llu ms; doorbells +%ld, wakeups +%ld, sleeps +%lld",
		       trial, n, (unsigned long long)ms, db, wk,
		       b.sleeps - a.sleeps);
		ASSERT_EQ(n, b.consumed - a.consumed);
		ASSERT_EQ(n, b.completions - a.completions);
		if (db <= db_bound(n) && wk <= db_bound(n))
			break;
	}
	EXPECT_GE(db_bound(n), db);
	EXPECT_GE(db_bound(n), wk);
}

/* One row of `strace -c`: the call count of @name ("total" for all). */
static long strace_calls(const char *file, const char *name)
{
	char line[256], sc[64];
	double pct, secs;
	long usecs, calls, ret = 0;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%lf %lf %ld %ld", &pct, &secs, &usecs,
			       &calls);
		char *last;

		if (n != 4)
			continue;
		line[strcspn(line, "\n")] = 0;
		last = strrchr(line, ' ');
		if (!last)
			continue;
		snprintf(sc, sizeof(sc), "%s", last + 1);
		if (!strcmp(sc, name))
			ret = calls;
	}
	fclose(f);
	return ret;
}

static void dump_file(struct __test_metadata *_metadata, const char *file)
{
	char line[256];
	FILE *f = fopen(file, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		TH_LOG("%s", line);
	}
	fclose(f);
}

/*
 * The child: set up and warm up; when told, warm up again, briefly (with
 * strace attached: attaching keeps the CPUs busy for a while, and may put
 * the poller to sleep), and say so; when told again, stream. Its exit
 * status says how it went.
 */
static int strace_child(int ready_fd, int go_fd, long n, int pause_us)
{
	struct fp_ctx f;
	const char *why;
	char c = 'r';
	long i;

	memset(&f, 0, sizeof(f));
	if (fp_open(&f) || stream(&f, WARMUP, &why))
		return 2;
	if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		return 3;
	if (stream(&f, REWARM, &why))
		return 2;
	if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		return 3;
	if (!pause_us)
		return stream(&f, n, &why) ? 4 : 0;
	/* One write at a time, a pause after each. */
	for (i = 0; i < n; i++)
		if (stream(&f, 1, &why) || usleep(pause_us))
			return 5;
	/* Leave without tearing down: the loop is what was measured. */
	return 0;
}

static int tracer_attached(pid_t pid)
{
	char path[64], line[128];
	int tracer = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

struct traced {
	long total, ioctls, writes;	/* system calls strace counted */
	long long doorbells;		/* the counter's rise meanwhile */
};

/*
 * Run stream(@n) in a child process with strace -c attached for a second
 * warm-up and the stream (set-up and the first warm-up happen before it
 * attaches); doorbells are counted for the stream alone. strace also sees
 * the pipe calls of the hand-shakes and the second warm-up's doorbells.
 */
static void run_traced(struct __test_metadata *_metadata, long n,
		       int pause_us, struct traced *t)
{
	char out[] = "/tmp/swroce-fastpath-strace.XXXXXX";
	int ready[2], go[2], status, fd, i;
	pid_t child, tracer;
	long long db0;
	char c;

	fd = mkstemp(out);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		close(ready[0]);
		close(go[1]);
		_exit(strace_child(ready[1], go[0], n, pause_us));
	}
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("child failed to set up");

	tracer = fork();
	ASSERT_LE(0, tracer);
	if (!tracer) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", child);
		execlp("strace", "strace", "-c", "-f", "-o", out, "-p", pid,
		       (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 1000 && !tracer_attached(child); i++)
		usleep(10000);
	ASSERT_NE(0, tracer_attached(child)) TH_LOG("strace did not attach");
	/* strace attaches thread by thread; let it finish. */
	usleep(200000);
	ASSERT_EQ(1, write(go[1], "w", 1));
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("child failed to warm up");
	close(ready[0]);
	db0 = swr_counter("doorbells");
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);

	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the streaming child failed");
	t->doorbells = swr_counter("doorbells") - db0;
	ASSERT_EQ(tracer, waitpid(tracer, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("strace failed");

	t->total = strace_calls(out, "total");
	t->ioctls = strace_calls(out, "ioctl");
	t->writes = strace_calls(out, "write");
	TH_LOG("%ld writes streamed: %ld syscalls (%ld ioctl, %ld write), doorbells +%lld",
	       n, t->total, t->ioctls, t->writes, t->doorbells);
	EXPECT_LT(0, t->total) TH_LOG("no strace summary");
	if (_metadata->exit_code)
		dump_file(_metadata, out);
	unlink(out);
}

/*
 * strace attached to a process that streams n writes sees far fewer than
 * n system calls: no doorbell, no CQ poll, no arm goes to the kernel.
 */
TEST_F_TIMEOUT(fp, strace_sees_no_syscall_per_op, 900)
{
	long n = stream_ops();
	struct traced t;

	if (system("command -v strace >/dev/null 2>&1"))
		SKIP(return, "strace is not installed");
	/* The fixture's QPs stay idle; the child has its own. */
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, STREAM_IDLE_US));
	run_traced(_metadata, n, 0, &t);
	EXPECT_GT(n / 100, t.total);
	EXPECT_GT(n / 1000 + 10, t.ioctls);
	EXPECT_GT(n / 1000 + 10, t.writes);
	EXPECT_GE(db_bound(n), t.doorbells);
}

/*
 * The instrument itself: with no idle time and a pause after each write
 * the poller is asleep at every post, so each one needs a doorbell - and
 * strace sees each of them as a system call.
 */
TEST_F_TIMEOUT(fp, strace_sees_doorbells_of_a_sleeping_poller, 300)
{
	struct traced t;
	long n = 500;

	if (system("command -v strace >/dev/null 2>&1"))
		SKIP(return, "strace is not installed");
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "0"));
	run_traced(_metadata, n, 2000, &t);
	EXPECT_LE(n / 2, t.doorbells);
	EXPECT_LE(t.doorbells, t.ioctls + t.writes);
	EXPECT_LE(t.doorbells, t.total);
}

/*
 * Once the poller has slept, one post makes one doorbell and one wake-up;
 * so does one post of a chain of WRs.
 */
TEST_F_TIMEOUT(fp, one_wakeup_after_idle, 120)
{
	struct counters a, b;
	const char *why = "";
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_wc wc;
	int i;

	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "1000"));
	ASSERT_EQ(0, stream(&self->f, 10, &why)) TH_LOG("%s", why);
	/* Past the idle time, however long the host makes it. */
	ASSERT_TRUE(swr_poller_wait_asleep(ASLEEP_MS));
	read_counters(&a);
	ASSERT_EQ(0, swr_post_send1(self->f.p.c.qp, IBV_WR_RDMA_WRITE, 1,
				    self->f.cbuf, 8, self->f.cmr->lkey,
				    (uintptr_t)self->f.sbuf,
				    self->f.smr->rkey, IBV_SEND_SIGNALED));
	ASSERT_EQ(1, swr_wait(self->f.p.c.scq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	/* And it goes back to sleep after its idle time. */
	EXPECT_TRUE(swr_poller_wait_asleep(ASLEEP_MS));
	read_counters(&b);
	EXPECT_EQ(1, b.doorbells - a.doorbells);
	EXPECT_EQ(1, b.wakeups - a.wakeups);
	EXPECT_EQ(1, b.consumed - a.consumed);
	EXPECT_LE(1, b.sleeps - a.sleeps);

	/* Three WRs in one post: still one doorbell. */
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)self->f.cbuf;
		sge[i].length = 8;
		sge[i].lkey = self->f.cmr->lkey;
		wr[i].wr_id = 10 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)self->f.sbuf + 8 * i;
		wr[i].wr.rdma.rkey = self->f.smr->rkey;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	a = b;
	ASSERT_EQ(0, ibv_post_send(self->f.p.c.qp, wr, &bad));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, swr_wait(self->f.p.c.scq, &wc));
		EXPECT_EQ(10 + i, wc.wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	}
	EXPECT_TRUE(swr_poller_wait_asleep(ASLEEP_MS));
	read_counters(&b);
	EXPECT_EQ(1, b.doorbells - a.doorbells);
	EXPECT_EQ(1, b.wakeups - a.wakeups);
	EXPECT_EQ(3, b.consumed - a.consumed);
}

/*
 * A longer idle time (1 s) keeps the poller awake across a pause shorter
 * than it. It sleeps after half of it when its CPU is contended, and goes
 * back to sleep at once when woken on a contended CPU, so a trial counts
 * only if the poller took the first stream awake (no doorbell, no sleep)
 * and the trial ended within TRIAL_MS of the last work; one that a loaded
 * host held up proves nothing and is repeated. In every trial that counts
 * the poller stayed awake.
 */
#define TRIAL_MS	400
#define TRIALS		10
#define TRIALS_COUNTED	3

TEST_F_TIMEOUT(fp, idle_time_keeps_poller_awake, 120)
{
	int trial, counted = 0;
	struct counters z, a, b;
	const char *why = "";
	uint64_t t0, ms;

	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "1000000"));
	for (trial = 0; trial < TRIALS && counted < TRIALS_COUNTED; trial++) {
		read_counters(&z);
		ASSERT_EQ(0, stream(&self->f, 10, &why)) TH_LOG("%s", why);
		t0 = swr_now_ms();
		read_counters(&a);
		if (a.doorbells != z.doorbells || a.sleeps != z.sleeps) {
			TH_LOG("trial %d: the poller slept before the pause: not counted",
			       trial);
			continue;
		}
		/* 20 ms in each read_counters(), 100 ms here. */
		usleep(100000);
		ASSERT_EQ(0, stream(&self->f, 10, &why)) TH_LOG("%s", why);
		read_counters(&b);
		ms = swr_now_ms() - t0;
		if (ms >= TRIAL_MS) {
			TH_LOG("trial %d took %llu ms: not counted", trial,
			       (unsigned long long)ms);
			continue;
		}
		counted++;
		EXPECT_EQ(0, b.doorbells - a.doorbells);
		EXPECT_EQ(0, b.wakeups - a.wakeups);
		EXPECT_EQ(0, b.sleeps - a.sleeps);
		EXPECT_EQ(10, b.consumed - a.consumed);
	}
	EXPECT_LT(0, counted) TH_LOG("no trial ended within %d ms", TRIAL_MS);
}

/* The pid of the device's poller thread, "swroce/<netdev>"; 0: none. */
static pid_t poller_pid(void)
{
	char ndev[64], want[80], path[300], comm[32];
	struct dirent *d;
	pid_t pid = 0;
	DIR *dir;
	FILE *f;

	if (swr_test_netdev(ndev, sizeof(ndev)))
		return 0;
	snprintf(want, sizeof(want), "swroce/%s", ndev);
	/* as the kernel keeps it: TASK_COMM_LEN - 1 characters */
	want[15] = 0;
	dir = opendir("/proc");
	if (!dir)
		return 0;
	while (!pid && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = 0;
			if (!strcmp(comm, want))
				pid = atoi(d->d_name);
		}
		fclose(f);
	}
	closedir(dir);
	return pid;
}

/* Let @pid run on @only_cpu alone, or on every CPU (-1). */
static int allow_cpus(pid_t pid, int only_cpu)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (only_cpu < 0 || cpu == only_cpu)
			CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/*
 * A streaming client that spins on one CPU, whose poller was woken onto
 * that CPU, gets its poller back once another CPU is free for it. Each
 * trial keeps the poller on the client's CPU (its affinity) for the first
 * MOVE_WQES writes: woken there it finds the CPU contended, and with no
 * other CPU it may use it backs off as the latency policy says (doorbells;
 * poller_stays must not move: it honours the affinity). Then the poller
 * may run anywhere: either the scheduler wakes it onto the idle CPU, or,
 * woken next to the client again, it sees that another CPU sat idle and
 * stays awake until the scheduler moves it (poller_stays). The writes after
 * the next MOVE_WQES must ring at most MOVE_DB_RATE times in a thousand,
 * where a poller that went back to sleep at every wake-up rings for each
 * (ib_write_bw -q 4, Documentation/performance.rst). A trial in which the
 * poller was never woken proves nothing and does not count.
 */
#define MOVE_WQES	2000
#define MOVE_N		20000
#define MOVE_DB_RATE	20
#define MOVE_TRIALS	5

TEST_F_TIMEOUT(fp, stream_gets_poller_back_from_its_cpu, 600)
{
	long db = 0, bound = MOVE_N * MOVE_DB_RATE / 1000;
	long long s0, s1, s2;
	struct counters z, a, b;
	const char *why = "";
	int trial, counted = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: nowhere for the poller to move");
	ASSERT_LE(0, swr_counter("poller_stays"))
		TH_LOG("no poller_stays counter");
	self->poller = poller_pid();
	ASSERT_LT(0, self->poller) TH_LOG("no poller thread found");
	ASSERT_EQ(0, allow_cpus(0, 1)) TH_LOG("CPU 1: %s", strerror(errno));
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "1000"));
	for (trial = 1; trial <= MOVE_TRIALS; trial++) {
		ASSERT_EQ(0, allow_cpus(self->poller, 1));
		ASSERT_EQ(0, stream(&self->f, 10, &why)) TH_LOG("%s", why);
		ASSERT_TRUE(swr_poller_wait_asleep(ASLEEP_MS));
		read_counters(&z);
		s0 = swr_counter("poller_stays");
		/* woken onto this CPU, which this stream keeps busy */
		ASSERT_EQ(0, stream(&self->f, MOVE_WQES, &why)) TH_LOG("%s", why);
		s1 = swr_counter("poller_stays");
		ASSERT_EQ(0, allow_cpus(self->poller, -1));
		ASSERT_EQ(0, stream(&self->f, MOVE_WQES, &why)) TH_LOG("%s", why);
		read_counters(&a);
		ASSERT_EQ(0, stream(&self->f, MOVE_N, &why)) TH_LOG("%s", why);
		read_counters(&b);
		s2 = swr_counter("poller_stays");
		db = b.doorbells - a.doorbells;
		TH_LOG("trial %d: kept on CPU 1: doorbells %lld, stays %lld; then stays %lld, doorbells %ld in %d writes; wakeups +%lld, sleeps +%lld",
		       trial, a.doorbells - z.doorbells, s1 - s0, s2 - s1, db,
		       MOVE_N, b.wakeups - z.wakeups, b.sleeps - z.sleeps);
		ASSERT_EQ(MOVE_N, b.consumed - a.consumed);
		EXPECT_EQ(s0, s1) TH_LOG("it stayed with no other CPU allowed");
		if (a.wakeups == z.wakeups) {
			TH_LOG("trial %d: the poller was never woken: not counted",
			       trial);
			continue;
		}
		counted++;
		if (db <= bound)
			break;
	}
	ASSERT_LT(0, counted) TH_LOG("no trial woke the poller");
	EXPECT_GE(bound, db);
}

/*
 * Deferred doorbells (kernel/swr_poll.c, providers/swroce/swr_qp.c): a
 * client that streams on the one CPU its poller may use finds the poller
 * backed off (SWROCE_SQ_LAZY) and puts its doorbells off until it polls,
 * one per batch of posts, where a provider that rang for each post makes
 * a doorbell per WQE. At most DEFER_DB_RATE in a thousand here (batches
 * of DEPTH make about 1000 / DEPTH); every write still lands (stream()
 * checks the order of the completions and the last DEPTH slots' bytes).
 * A trial in which the poller never slept proves nothing and does not
 * count.
 */
#define DEFER_N		4000
#define DEFER_DB_RATE	600
#define DEFER_TRIALS	5

TEST_F_TIMEOUT(fp, deferred_doorbells_while_contended, 600)
{
	long db = 0, bound = DEFER_N * DEFER_DB_RATE / 1000;
	struct counters a, b;
	const char *why = "";
	int trial, counted = 0;

	self->poller = poller_pid();
	ASSERT_LT(0, self->poller) TH_LOG("no poller thread found");
	ASSERT_EQ(0, allow_cpus(0, 0)) TH_LOG("CPU 0: %s", strerror(errno));
	ASSERT_EQ(0, allow_cpus(self->poller, 0));
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "1000"));
	for (trial = 1; trial <= DEFER_TRIALS; trial++) {
		ASSERT_EQ(0, stream(&self->f, WARMUP, &why)) TH_LOG("%s", why);
		read_counters(&a);
		ASSERT_EQ(0, stream(&self->f, DEFER_N, &why)) TH_LOG("%s", why);
		read_counters(&b);
		db = b.doorbells - a.doorbells;
		TH_LOG("trial %d: %d writes on the poller's CPU: doorbells %ld, wakeups +%lld, sleeps +%lld",
		       trial, DEFER_N, db, b.wakeups - a.wakeups,
		       b.sleeps - a.sleeps);
		ASSERT_EQ(DEFER_N, b.consumed - a.consumed);
		ASSERT_EQ(DEFER_N, b.completions - a.completions);
		if (b.sleeps == a.sleeps) {
			TH_LOG("trial %d: the poller never slept: not counted",
			       trial);
			continue;
		}
		counted++;
		if (db <= bound)
			break;
	}
	ASSERT_LT(0, counted) TH_LOG("the poller slept in no trial");
	EXPECT_GE(bound, db);
}

/*
 * A doorbell put off and never followed by a poll or an arm is not lost:
 * the backed-off poller's bounded sleep finds the WQE. On the poller's
 * one CPU, after a stream, an unsignaled WRITE (whose doorbell waits for
 * a poll) lands while this process only reads the target, within
 * LOST_MS. A trial whose WRITE rang (the poller's bound had run out with
 * nothing to find, ending the mode) is not counted; its bytes must land
 * all the same.
 */
#define LOST_MS		10000
/* A third of the trials or more are counted in these guests. */
#define LOST_TRIALS	20

TEST_F_TIMEOUT(fp, deferred_doorbell_not_lost, 300)
{
	/* Past the slots stream() writes. */
	volatile uint64_t *dst = (volatile uint64_t *)(self->f.sbuf + BUFSZ -
						       MSG);
	uint64_t *src = (uint64_t *)(self->f.cbuf + BUFSZ - MSG);
	const char *why = "";
	int trial, counted = 0;
	long long d0, d1;
	uint64_t t0;

	self->poller = poller_pid();
	ASSERT_LT(0, self->poller) TH_LOG("no poller thread found");
	ASSERT_EQ(0, allow_cpus(0, 0)) TH_LOG("CPU 0: %s", strerror(errno));
	ASSERT_EQ(0, allow_cpus(self->poller, 0));
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "1000"));
	for (trial = 1; trial <= LOST_TRIALS && !counted; trial++) {
		ASSERT_EQ(0, stream(&self->f, WARMUP, &why)) TH_LOG("%s", why);
		*src = 0x5157524f43450000ULL + trial;
		*dst = 0;
		/*
		 * No jiffy's wait (swr_counters()): the bound would run out
		 * meanwhile. A cached value can only be lower, counting the
		 * trial as one that rang.
		 */
		d0 = swr_port_counter(swr_test_dev(), "doorbells");
		ASSERT_EQ(0, swr_post_send1(self->f.p.c.qp, IBV_WR_RDMA_WRITE,
					    ~0ULL, src, sizeof(*src),
					    self->f.cmr->lkey,
					    (uintptr_t)dst, self->f.smr->rkey,
					    0));
		/* No poll, no arm: only the target is read from here on. */
		t0 = swr_now_ms();
		while (*dst != *src && swr_now_ms() - t0 < LOST_MS)
			;
		d1 = swr_counter("doorbells");
		ASSERT_EQ(*src, *dst) TH_LOG("trial %d: not written in %d ms",
					     trial, LOST_MS);
		TH_LOG("trial %d: written in %llu ms, doorbells +%lld", trial,
		       (unsigned long long)(swr_now_ms() - t0), d1 - d0);
		if (d1 == d0)
			counted++;
	}
	EXPECT_LT(0, counted) TH_LOG("every WRITE rang: never put off");
}

TEST_F(fp, poll_idle_us_attribute)
{
	static const char * const bad[] = {
		"\n", "abc", "-1", "12x", "1000001", "4294967296",
		"99999999999999999999",
	};
	char buf[32];
	unsigned int i;

	EXPECT_EQ(0, strcmp(self->idle_saved, "1000"))
		TH_LOG("default poll_idle_us is %s, want 1000", self->idle_saved);
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "5000"));
	ASSERT_EQ(0, swr_ibdev_attr(IDLE_ATTR, buf, sizeof(buf)));
	EXPECT_EQ(0, strcmp(buf, "5000"));
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "1000000"));
	ASSERT_EQ(0, swr_ibdev_attr(IDLE_ATTR, buf, sizeof(buf)));
	EXPECT_EQ(0, strcmp(buf, "1000000"));
	ASSERT_EQ(0, swr_ibdev_write(IDLE_ATTR, "123\n"));
	ASSERT_EQ(0, swr_ibdev_attr(IDLE_ATTR, buf, sizeof(buf)));
	EXPECT_EQ(0, strcmp(buf, "123"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_NE(0, swr_ibdev_write(IDLE_ATTR, bad[i]))
			TH_LOG("'%s' accepted", bad[i]);
		ASSERT_EQ(0, swr_ibdev_attr(IDLE_ATTR, buf, sizeof(buf)));
		EXPECT_EQ(0, strcmp(buf, "123")) TH_LOG("now %s", buf);
	}
	/* Only root tunes it. */
	{
		char path[256];
		struct stat st;

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s",
			 swr_test_dev(), IDLE_ATTR);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0, st.st_mode & (S_IWGRP | S_IWOTH));
	}
}

TEST_HARNESS_MAIN
