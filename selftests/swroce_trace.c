// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The traffic of the tracing step (selftests/swroce_trace.sh), which
 * enables the swroce tracepoints around each run and checks what they
 * recorded, and what "rdma res show ... -dd" says meanwhile.
 *
 *   swroce_trace res        On $SWROCE_DEV, a local RC pair (SQ and RQ of
 *                           RING slots, CQs of RING entries) and an MR
 *                           over MR_PAGES whole pages: RECVS receives
 *                           posted on the server, SENDS signaled SENDs of
 *                           MSG bytes from the client, every completion
 *                           polled. Prints the objects' numbers as
 *                           "key=value" lines, then "ready", and keeps
 *                           everything until its standard input closes.
 *   swroce_trace overflow   On $SWROCE_DEV, a local RC pair whose CQs
 *                           have one entry: two signaled WRITEs, nothing
 *                           polled. The second completion overflows the
 *                           client's send CQ (IB_EVENT_CQ_ERR is awaited).
 *                           Then as "res": numbers, "ready", wait.
 *   swroce_trace drop ADDR6 QPN
 *                           One valid RoCEv2 UD SEND_ONLY packet (right
 *                           ICRC and P_Key) to QP QPN at [ADDR6]:4791,
 *                           from a UDP socket of the caller's namespace.
 *
 * The exit status is the verdict (0 pass, 1 fail); failures are "# ..."
 * lines on standard output.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "swr_qp_test.h"
#include "swr_roce_pkt.h"

#define RING		16
#define SENDS		5
#define RECVS		8
#define MSG		256
#define MR_PAGES	16
#define ROCE_PORT	4791
#define QKEY		0x11111111u

static int fail(const char *what, int err)
{
	printf("# %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

/* A connected local pair with options @o; 0, or 1 after saying why. */
static int pair_up(struct swr_pair *p, struct swr_qp_opts *o)
{
	int ret = swr_pair_open(p);

	if (!ret)
		ret = swr_pair_create(p, o);
	return ret ? fail("pair", ret) : 0;
}

/* Print the numbers the script looks up, then wait for it. */
static void ready_and_wait(const struct swr_pair *p, void *buf, size_t len)
{
	char c;

	printf("client_qpn=%u\nserver_qpn=%u\n", p->c.qp->qp_num,
	       p->s.qp->qp_num);
	printf("ring=%d\nsends=%d\nrecvs=%d\nmsg=%d\n", RING, SENDS, RECVS,
	       MSG);
	printf("mr_addr=%#lx\nmr_len=%zu\nmr_pages=%d\nready\n",
	       (unsigned long)buf, len, MR_PAGES);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
}

static int do_res(void)
{
	struct swr_qp_opts o = {
		.max_send_wr = RING, .max_recv_wr = RING, .cqe = RING,
	};
	size_t len = (size_t)MR_PAGES * getpagesize();
	struct swr_pair p;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *buf;
	int i, ret;

	ret = pair_up(&p, &o);
	if (ret)
		return ret;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return fail("mmap", errno);
	mr = ibv_reg_mr(p.pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return fail("reg_mr", errno);
	for (i = 0; i < RECVS; i++)
		if (swr_post_recv1(p.s.qp, 100 + i, buf + len / 2 + i * MSG,
				   MSG, mr->lkey))
			return fail("post_recv", errno);
	for (i = 0; i < SENDS; i++) {
		ret = swr_post_send1(p.c.qp, IBV_WR_SEND, 200 + i,
				     buf + i * MSG, MSG, mr->lkey, 0, 0,
				     IBV_SEND_SIGNALED);
		if (ret)
			return fail("post_send", ret);
		if (swr_wait(p.c.scq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
			return fail("send completion", EIO);
		if (swr_wait(p.s.rcq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
			return fail("receive completion", EIO);
	}
	ready_and_wait(&p, buf, len);
	ibv_dereg_mr(mr);
	swr_pair_close(&p);
	return 0;
}

static int do_overflow(void)
{
	struct swr_qp_opts o = { .cqe = 1 };
	struct ibv_async_event ev;
	struct swr_pair p;
	uint64_t word[2];
	struct ibv_mr *mr;
	int i, ret;

	ret = pair_up(&p, &o);
	if (ret)
		return ret;
	mr = ibv_reg_mr(p.pd, word, sizeof(word), SWR_ALL_ACCESS);
	if (!mr)
		return fail("reg_mr", errno);
	for (i = 0; i < 2; i++) {
		ret = swr_post_send1(p.c.qp, IBV_WR_RDMA_WRITE, 300 + i, word,
				     8, mr->lkey, (uintptr_t)&word[1],
				     mr->rkey, IBV_SEND_SIGNALED);
		if (ret)
			return fail("post_send", ret);
	}
	if (swr_wait_async(p.ctx, IBV_EVENT_CQ_ERR, &ev, SWR_CQ_TIMEOUT_MS) != 1)
		return fail("no IBV_EVENT_CQ_ERR", ETIMEDOUT);
	if (ev.element.cq != p.c.scq)
		return fail("CQ_ERR for another CQ", EINVAL);
	ready_and_wait(&p, word, sizeof(word));
	ibv_dereg_mr(mr);
	swr_pair_close(&p);
	return 0;
}

/*
 * A UD SEND_ONLY with no payload: BTH, DETH, ICRC. The ICRC covers the
 * IPv6 and UDP headers the kernel will put in front of it, rebuilt here
 * from the socket's addresses (their variant fields are masked).
 */
static int do_drop(const char *addr, uint32_t qpn)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6,
				    .sin6_port = htons(ROCE_PORT) };
	struct sockaddr_in6 src;
	socklen_t sl = sizeof(src);
	uint8_t ip6[40] = { 0x60 }, udp[8] = { 0 }, pkt[12 + 8 + 4] = { 0 };
	size_t len = 12 + 8;
	int fd;

	if (inet_pton(AF_INET6, addr, &dst.sin6_addr) != 1)
		return fail("address", EINVAL);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) ||
	    getsockname(fd, (struct sockaddr *)&src, &sl))
		return fail("socket", errno);

	pkt[0] = 0x64;				/* UD SEND_ONLY */
	pkt[2] = pkt[3] = 0xff;			/* the default P_Key */
	put_be32(pkt + 4, qpn & 0xffffff);
	put_be32(pkt + 12, QKEY);		/* DETH */
	put_be32(pkt + 16, 1);
	ip6[4] = (8 + len + 4) >> 8;
	ip6[5] = (8 + len + 4) & 0xff;
	ip6[6] = IPPROTO_UDP;
	memcpy(ip6 + 8, &src.sin6_addr, 16);
	memcpy(ip6 + 24, &dst.sin6_addr, 16);
	memcpy(udp, &src.sin6_port, 2);
	memcpy(udp + 2, &dst.sin6_port, 2);
	udp[4] = ip6[4];
	udp[5] = ip6[5];
	crc_init();
	put_le32(pkt + len, icrc(ip6, false, udp, pkt, len));
	if (send(fd, pkt, len + 4, 0) != (ssize_t)(len + 4))
		return fail("send", errno);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "res"))
		return do_res();
	if (argc == 2 && !strcmp(argv[1], "overflow"))
		return do_overflow();
	if (argc == 4 && !strcmp(argv[1], "drop"))
		return do_drop(argv[2], strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: %s res | overflow | drop ADDR6 QPN\n",
		argv[0]);
	return 1;
}
