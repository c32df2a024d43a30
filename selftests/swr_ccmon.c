// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * swr_ccmon DEV NETNS IFNAME QFILE: the sampler of selftests/swroce_cc.sh.
 * Every 0.5 s until killed it prints, for each user QP of RDMA device DEV,
 * "time pid una_psn cc_rate_mbps cc_rtt_us" (the driver's attributes in
 * "rdma -dd res show qp"; "-" for one the QP lacks; the time is the middle
 * of the read), and appends "time dropped backlog_bytes" of the qdisc 1:1
 * on IFNAME in network namespace NETNS (/run/netns/NETNS) to QFILE.
 *
 * One process with two netlink sockets, where the shell loop it replaces
 * started rdma, tc and awk twice a second: under TCG each start costs
 * tens of milliseconds of an emulated CPU, and that loop took a large
 * part of one of the guest's two CPUs from the flows it measured
 * (Documentation/congestion.rst).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <rdma/rdma_netlink.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS	500000000LL
#define BUFSZ		65536

/* What one QP entry of the dump says. */
struct qp_sample {
	uint32_t pid, una, rate, rtt;
	bool has_pid, has_una, has_rate, has_rtt;
};

/* What nl_dump() does with each answer @nlh of a dump. */
typedef void (*nl_msg_fn)(struct nlmsghdr *nlh, void *arg);

static struct nlattr *nla_next(struct nlattr *a)
{
	return (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
}

static bool nla_ok(const struct nlattr *a, const void *end)
{
	return (const char *)end - (const char *)a >= (long)sizeof(*a) &&
	       a->nla_len >= sizeof(*a) &&
	       (const char *)a + a->nla_len <= (const char *)end;
}

static void *nla_data(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static void *nla_end(struct nlattr *a)
{
	return (char *)a + a->nla_len;
}

static int nla_kind(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static uint32_t nla_u32(struct nlattr *a)
{
	uint32_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

static uint64_t nla_u64(struct nlattr *a)
{
	uint64_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

static void nla_put_u32(struct nlmsghdr *nlh, int type, uint32_t v)
{
	struct nlattr *a = (struct nlattr *)((char *)nlh +
					     NLMSG_ALIGN(nlh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + sizeof(v);
	memcpy(nla_data(a), &v, sizeof(v));
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Send the dump request @req on @fd and hand each answer to @fn. */
static int nl_dump(int fd, struct nlmsghdr *req, nl_msg_fn fn, void *arg)
{
	static char buf[BUFSZ] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq++;
	if (send(fd, req, req->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		len = n;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				return e->error;
			}
			fn(nlh, arg);
		}
	}
}

/* RDMA netlink messages carry their attributes right after the header. */
static struct nlattr *rdma_attrs(struct nlmsghdr *nlh)
{
	return (struct nlattr *)NLMSG_DATA(nlh);
}

struct dev_find {
	const char *name;
	int index;
};

static void dev_find_msg(struct nlmsghdr *nlh, void *arg)
{
	struct dev_find *f = arg;
	void *end = (char *)nlh + nlh->nlmsg_len;
	struct nlattr *a;
	uint32_t index = 0;
	bool match = false;

	for (a = rdma_attrs(nlh); nla_ok(a, end); a = nla_next(a)) {
		if (nla_kind(a) == RDMA_NLDEV_ATTR_DEV_INDEX)
			index = nla_u32(a);
		if (nla_kind(a) == RDMA_NLDEV_ATTR_DEV_NAME &&
		    !strncmp(nla_data(a), f->name, a->nla_len - NLA_HDRLEN))
			match = true;
	}
	if (match)
		f->index = index;
}

/*
 * The driver's attributes: a name (DRIVER_STRING), perhaps a print type,
 * then the value (DRIVER_U32, ..., or a second DRIVER_STRING).
 */
static void qp_driver_attrs(struct nlattr *nest, struct qp_sample *s)
{
	const char *name = NULL;
	struct nlattr *a;
	uint32_t v;

	for (a = nla_data(nest); nla_ok(a, nla_end(nest)); a = nla_next(a)) {
		switch (nla_kind(a)) {
		case RDMA_NLDEV_ATTR_DRIVER_STRING:
			name = name ? NULL : nla_data(a);
			continue;
		case RDMA_NLDEV_ATTR_DRIVER_U32:
		case RDMA_NLDEV_ATTR_DRIVER_S32:
			v = nla_u32(a);
			break;
		case RDMA_NLDEV_ATTR_DRIVER_U64:
		case RDMA_NLDEV_ATTR_DRIVER_S64:
			v = (uint32_t)nla_u64(a);
			break;
		default:
			continue;
		}
		if (!name)
			continue;
		if (!strcmp(name, "una_psn")) {
			s->una = v;
			s->has_una = true;
		} else if (!strcmp(name, "cc_rate_mbps")) {
			s->rate = v;
			s->has_rate = true;
		} else if (!strcmp(name, "cc_rtt_us")) {
			s->rtt = v;
			s->has_rtt = true;
		}
		name = NULL;
	}
}

#define MAX_QPS		256

/* One dump's QPs, printed once the dump is over (its time known). */
struct qp_dump {
	struct qp_sample s[MAX_QPS];
	int n;
};

static void qp_print(FILE *out, double time, const struct qp_sample *s)
{
	char rate[16] = "-", rtt[16] = "-";

	if (!s->has_pid || !s->has_una)
		return;
	if (s->has_rate)
		snprintf(rate, sizeof(rate), "%u", s->rate);
	if (s->has_rtt)
		snprintf(rtt, sizeof(rtt), "%u", s->rtt);
	fprintf(out, "%.6f %u %u %s %s\n", time, s->pid, s->una, rate, rtt);
}

/* The attributes of one QP entry. */
static void qp_entry(struct nlattr *e, struct qp_sample *s)
{
	struct nlattr *a;

	memset(s, 0, sizeof(*s));
	for (a = nla_data(e); nla_ok(a, nla_end(e)); a = nla_next(a)) {
		if (nla_kind(a) == RDMA_NLDEV_ATTR_RES_PID) {
			s->pid = nla_u32(a);
			s->has_pid = true;
		} else if (nla_kind(a) == RDMA_NLDEV_ATTR_DRIVER) {
			qp_driver_attrs(a, s);
		}
	}
}

static void qp_dump_msg(struct nlmsghdr *nlh, void *arg)
{
	void *end = (char *)nlh + nlh->nlmsg_len;
	struct qp_dump *d = arg;
	struct nlattr *t, *e;

	for (t = rdma_attrs(nlh); nla_ok(t, end); t = nla_next(t)) {
		if (nla_kind(t) != RDMA_NLDEV_ATTR_RES_QP)
			continue;
		for (e = nla_data(t); nla_ok(e, nla_end(t)); e = nla_next(e)) {
			if (nla_kind(e) == RDMA_NLDEV_ATTR_RES_QP_ENTRY &&
			    d->n < MAX_QPS)
				qp_entry(e, &d->s[d->n++]);
		}
	}
}

struct qdisc_find {
	int ifindex;
	uint64_t drops, backlog;
	bool found;
};

static void qdisc_msg(struct nlmsghdr *nlh, void *arg)
{
	struct tcmsg *tcm = NLMSG_DATA(nlh);
	void *end = (char *)nlh + nlh->nlmsg_len;
	struct qdisc_find *q = arg;
	struct gnet_stats_queue st;
	struct nlattr *a, *b;

	if (nlh->nlmsg_type != RTM_NEWQDISC || tcm->tcm_ifindex != q->ifindex ||
	    tcm->tcm_parent != TC_H_MAKE(1U << 16, 1))
		return;
	a = (struct nlattr *)((char *)tcm + NLMSG_ALIGN(sizeof(*tcm)));
	for (; nla_ok(a, end); a = nla_next(a)) {
		if (nla_kind(a) != TCA_STATS2)
			continue;
		for (b = nla_data(a); nla_ok(b, nla_end(a)); b = nla_next(b)) {
			if (nla_kind(b) != TCA_STATS_QUEUE ||
			    b->nla_len < NLA_HDRLEN + sizeof(st))
				continue;
			memcpy(&st, nla_data(b), sizeof(st));
			q->drops = st.drops;
			q->backlog = st.backlog;
			q->found = true;
		}
	}
}

static int nl_open(int proto)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);

	if (fd < 0)
		perror("netlink socket");
	return fd;
}

/*
 * Enter the namespace /run/netns/@ns. Return: a descriptor of the one we
 * were in, for netns_leave(), or -1.
 */
static int netns_enter(const char *ns)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	char path[256];
	int nsfd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET)) {
		perror(path);
		if (self >= 0)
			close(self);
		self = -1;
	}
	if (nsfd >= 0)
		close(nsfd);
	return self;
}

static int netns_leave(int self)
{
	int rc = setns(self, CLONE_NEWNET);

	if (rc)
		perror("setns back");
	close(self);
	return rc;
}

static double realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(struct timespec *next)
{
	next->tv_nsec += PERIOD_NS;
	if (next->tv_nsec >= 1000000000L) {
		next->tv_nsec -= 1000000000L;
		next->tv_sec++;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) ==
	       EINTR)
		;
}

static int find_dev(int rdma, const char *name)
{
	struct dev_find f = { .name = name, .index = -1 };
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					       RDMA_NLDEV_CMD_GET),
	};

	if (nl_dump(rdma, &req, dev_find_msg, &f))
		return -1;
	return f.index;
}

/* The dump requests, built once (nl_dump() bumps their sequence). */
struct requests {
	struct {
		struct nlmsghdr nlh;
		char attrs[2 * NLA_ALIGN(NLA_HDRLEN + sizeof(uint32_t))];
	} qp;
	struct {
		struct nlmsghdr nlh;
		struct tcmsg tcm;
	} qdisc;
};

static void requests_init(struct requests *r, uint32_t dev)
{
	memset(r, 0, sizeof(*r));
	r->qp.nlh.nlmsg_len = NLMSG_LENGTH(0);
	r->qp.nlh.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						RDMA_NLDEV_CMD_RES_QP_GET);
	nla_put_u32(&r->qp.nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
	nla_put_u32(&r->qp.nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	r->qdisc.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	r->qdisc.nlh.nlmsg_type = RTM_GETQDISC;
	r->qdisc.tcm.tcm_family = AF_UNSPEC;
}

/* Every PERIOD_NS until killed (or a dump fails). */
static int sample_loop(int rdma, int rt, struct requests *r, int ifindex,
		       FILE *qfile)
{
	static struct qp_dump d;
	struct qdisc_find q = { .ifindex = ifindex };
	struct timespec next;
	double t1, t2;
	int i, err;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		d.n = 0;
		t1 = realtime();
		err = nl_dump(rdma, &r->qp.nlh, qp_dump_msg, &d);
		t2 = realtime();
		if (err) {
			fprintf(stderr, "QP dump: %s\n", strerror(-err));
			return 1;
		}
		for (i = 0; i < d.n; i++)
			qp_print(stdout, (t1 + t2) / 2, &d.s[i]);
		q.found = false;
		err = nl_dump(rt, &r->qdisc.nlh, qdisc_msg, &q);
		if (err) {
			fprintf(stderr, "qdisc dump: %s\n", strerror(-err));
			return 1;
		}
		if (q.found)
			fprintf(qfile, "%.6f %llu %llu\n", t2,
				(unsigned long long)q.drops,
				(unsigned long long)q.backlog);
		sleep_until(&next);
	}
}

int main(int argc, char **argv)
{
	struct requests r;
	int rdma, rt, dev, ifindex, self;
	FILE *qfile;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV NETNS IFNAME QFILE\n", argv[0]);
		return 2;
	}
	rdma = nl_open(NETLINK_RDMA);
	/* The qdisc's socket and interface are the sender's namespace's. */
	self = netns_enter(argv[2]);
	if (self < 0)
		return 1;
	rt = nl_open(NETLINK_ROUTE);
	ifindex = if_nametoindex(argv[3]);
	if (netns_leave(self))
		return 1;
	qfile = fopen(argv[4], "a");
	if (rdma < 0 || rt < 0 || !qfile) {
		if (!qfile)
			perror(argv[4]);
		return 1;
	}
	if (!ifindex) {
		fprintf(stderr, "%s: no interface %s\n", argv[2], argv[3]);
		return 1;
	}
	dev = find_dev(rdma, argv[1]);
	if (dev < 0) {
		fprintf(stderr, "no RDMA device %s\n", argv[1]);
		return 1;
	}
	/* Lines as they come: the test reads the samples while it runs. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(qfile, NULL, _IOLBF, 0);
	requests_init(&r, dev);
	return sample_loop(rdma, rt, &r, ifindex, qfile);
}
