// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A helper for the shell steps that abuse a device and then want to know
 * it still works (selftests/swroce_uverbs_fuzz.sh, swroce_lifecycle.sh):
 *
 *   swroce_traffic check   RC SEND, RDMA WRITE and RDMA READ between two
 *                          QPs of $SWROCE_DEV, 1 byte to 1 MiB, each
 *                          checked byte by byte with the bytes around it;
 *                          TAP lines, exit 0 when all passed
 *   swroce_traffic load    work of every kind outstanding (swr_load.h),
 *                          four 4 MiB writes kept in flight until
 *                          killed; prints "r" once everything is posted
 *   swroce_traffic rtr     an RC pair on $SWROCE_DEV; prints "r", waits
 *                          for SIGUSR1, then takes the pair through
 *                          RESET, INIT and RTR again and again until the
 *                          first modify_qp fails (the device, its GID or
 *                          its route went with the namespace); prints how
 *                          many rounds passed and the error, exit 0
 */
#include <signal.h>

#include "swr_load.h"

#define CANARY	0x5a
#define GAP	64

static const uint32_t sizes[] = { 1, 63, 4096, 65537, 1 << 20 };

/* One @op of @len bytes, checked; NULL or what went wrong. */
static const char *one(struct swr_pair *p, struct swr_bufs *b,
		       enum ibv_wr_opcode op, uint32_t len, uint8_t seed)
{
	uint8_t *src = op == IBV_WR_RDMA_READ ? b->sbuf : b->cbuf;
	uint8_t *dst = op == IBV_WR_RDMA_READ ? b->cbuf + b->len / 2 : b->sbuf;
	struct ibv_wc wc;

	swr_fill(src, len, seed);
	memset(dst, CANARY, len + GAP);
	if (op == IBV_WR_SEND &&
	    swr_post_recv1(p->s.qp, 2, dst, len + GAP, b->smr->lkey))
		return "post_recv failed";
	if (swr_post_send1(p->c.qp, op, 1,
			   op == IBV_WR_RDMA_READ ? dst : src, len,
			   b->cmr->lkey,
			   (uintptr_t)(op == IBV_WR_RDMA_READ ? src : dst),
			   b->smr->rkey, IBV_SEND_SIGNALED))
		return "post_send failed";
	if (swr_wait(p->c.scq, &wc) != 1)
		return "no completion";
	if (wc.status != IBV_WC_SUCCESS)
		return ibv_wc_status_str(wc.status);
	if (op == IBV_WR_SEND) {
		if (swr_wait(p->s.rcq, &wc) != 1)
			return "no receive completion";
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != len)
			return "receive completion wrong";
	}
	if (swr_check(dst, len, seed) != -1)
		return "data differs";
	if (swr_check_byte(dst + len, GAP, CANARY) != -1)
		return "bytes past the end written";
	return NULL;
}

static int check(void)
{
	static const struct {
		enum ibv_wr_opcode op;
		const char *name;
	} ops[] = {
		{ IBV_WR_SEND, "SEND" }, { IBV_WR_RDMA_WRITE, "RDMA WRITE" },
		{ IBV_WR_RDMA_READ, "RDMA READ" },
	};
	struct swr_bufs b = { 0 };
	struct swr_pair p;
	unsigned int i, k;
	int ret;

	ret = swr_pair_open(&p);
	if (!ret)
		ret = swr_bufs_init(&b, p.pd, 4u << 20, SWR_ALL_ACCESS);
	if (!ret)
		ret = swr_pair_create(&p, NULL);
	swr_tap(!ret, "%s: an RC pair connected (%s)", swr_test_dev(),
		strerror(-ret));
	for (i = 0; !ret && i < sizeof(ops) / sizeof(ops[0]); i++) {
		const char *why = NULL;

		for (k = 0; !why && k < sizeof(sizes) / sizeof(sizes[0]); k++)
			why = one(&p, &b, ops[i].op, sizes[k], (uint8_t)(i * 7 + k));
		swr_tap(!why, "%s: RC %s byte-exact, 1 B to 1 MiB%s%s",
			swr_test_dev(), ops[i].name, why ? ": " : "",
			why ? why : "");
	}
	swr_bufs_fini(&b);
	swr_pair_close(&p);
	printf("1..%d\n", swr_tap_st.n);
	return swr_tap_st.fail || ret ? 1 : 0;
}

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	go = 1;
}

/*
 * RESET -> INIT -> RTR of both QPs of @p, in a loop, while the device's
 * namespace is dismantled: a QP reaching RTR makes a device that is not
 * on the wire try to join it (swr_net_attach()), which must not open a
 * socket in a namespace that is going away.
 */
static int rtr_loop(void)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct swr_pair p;
	long rounds = 0;
	int ret;

	if (sigaction(SIGUSR1, &sa, NULL))
		return 3;
	if (swr_pair_open(&p) || swr_pair_create(&p, NULL))
		return 4;
	ibv_modify_qp(p.c.qp, &reset, IBV_QP_STATE);
	ibv_modify_qp(p.s.qp, &reset, IBV_QP_STATE);
	printf("r\n");
	fflush(stdout);
	while (!go)
		usleep(1000);
	for (;;) {
		ret = ibv_modify_qp(p.c.qp, &reset, IBV_QP_STATE);
		if (!ret)
			ret = ibv_modify_qp(p.s.qp, &reset, IBV_QP_STATE);
		if (!ret)
			ret = -swr_pair_connect(&p);
		if (ret)
			break;
		rounds++;
	}
	/*
	 * Which call fails first, and how, depends on how far the
	 * namespace's teardown got: what counts is that it ends, with no
	 * splat and no leak (the caller's checks).
	 */
	printf("%ld rounds, then %s\n", rounds, strerror(ret));
	swr_pair_close(&p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "check"))
		return check();
	if (argc == 2 && !strcmp(argv[1], "load"))
		return swr_load(STDOUT_FILENO, 4, 4 << 20);
	if (argc == 2 && !strcmp(argv[1], "rtr"))
		return rtr_loop();
	fprintf(stderr, "usage: swroce_traffic check|load|rtr\n");
	return 2;
}
