/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The uverbs fuzzer's raw sessions: a file of its own on the uverbs device,
 * a context made with a raw GET_CONTEXT, then a burst of write() commands
 * with the core part plausible and the driver part garbage (or the whole
 * command garbage), RDMA_VERBS_IOCTL calls with random objects, methods
 * and attributes, and mmap() of the rings the kernel handed out, whole or
 * not. The provider never sees any of it, so none of its checks help the
 * kernel.
 *
 * A session runs in a child process of its own (fz_raw_session() forks):
 * ioctls can hand out file descriptors nobody tracks, and exiting is the
 * simplest way to give all of them back, with every object of the session.
 */
#ifndef SWR_FUZZ_RAW_H
#define SWR_FUZZ_RAW_H

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "swr_fuzz.h"
#include "swr_uverbs.h"

#define RAW_HANDLES	8

struct raw_ring {
	uint64_t off, size;
};

struct raw_sess {
	int fd;
	uint32_t pd[RAW_HANDLES], cq[RAW_HANDLES], qp[RAW_HANDLES];
	uint32_t srq[RAW_HANDLES], mr[RAW_HANDLES];
	struct raw_ring ring[RAW_HANDLES];
	uint8_t *scratch;	/* responses, ioctl data, MR memory */
	size_t scratch_len;
};

/* A handle seen before, or one that is not (yet) anybody's. */
static uint32_t raw_handle(const uint32_t *h)
{
	if (pct(85))
		return h[rnd(RAW_HANDLES)];
	return pct(50) ? rnd(64) : (uint32_t)rnd64();
}

static void raw_keep(uint32_t *h, uint32_t v)
{
	h[rnd(RAW_HANDLES)] = v;
}

/*
 * Driver data behind a core command: mostly nothing or zeroes (what the
 * driver accepts), else garbage, or a "newer provider's" struct with
 * unknown comp_mask bits or non-zero reserved words.
 */
static size_t raw_drv(uint8_t *drv, size_t max)
{
	size_t len = rnd(9) * 8, i;
	unsigned int k = rnd(100);

	if (len > max)
		len = max;
	memset(drv, 0, len);
	switch (k < 55 ? 0 : k < 70 ? 1 : k < 85 ? 2 : 3) {
	case 0:
		break;
	case 1:		/* garbage */
		for (i = 0; i < len; i++)
			drv[i] = (uint8_t)rnd64();
		break;
	case 2:		/* comp_mask bits */
		if (len >= 4)
			((uint32_t *)drv)[0] = 1u << rnd(32);
		break;
	default:	/* one non-zero byte somewhere */
		if (len)
			drv[rnd(len)] = (uint8_t)(1 + rnd(255));
	}
	return len;
}

/* A response length: the full one mostly, else short or odd. */
static size_t raw_resp_len(size_t full)
{
	if (pct(80))
		return full;
	return pct(50) ? rnd((uint32_t)full / 4) * 4 : (full + rnd(16) * 4);
}

/* A response pointer: our scratch, or a kernel address. */
static void *raw_resp_ptr(struct raw_sess *s)
{
	if (pct(97))
		return s->scratch;
	return (void *)(uintptr_t)(0xffff888000000000ull + rnd64() % (1ull << 32));
}

static int raw_cmd(struct raw_sess *s, uint32_t cmd, void *core,
		   size_t core_len, size_t resp_full)
{
	uint8_t drv[64];
	size_t dl = raw_drv(drv, sizeof(drv));
	size_t rl = raw_resp_len(resp_full);
	int ret;

	memset(s->scratch, 0, 512);
	ret = swr_write_cmd(s->fd, cmd, core, core_len, drv, dl,
			    resp_full ? raw_resp_ptr(s) : NULL, rl);
	fz_rec(FZ_RAW_CMD, -ret);
	return ret;
}

static void raw_get_context(struct raw_sess *s)
{
	struct ib_uverbs_get_context cmd = {};
	struct swroce_alloc_ucontext_cmd drv = {
		.abi_version = SWROCE_ABI_VERSION,
	};
	struct ib_uverbs_get_context_resp *r = (void *)s->scratch;
	size_t dl = sizeof(drv);
	int ret;

	if (pct(20)) {
		drv.abi_version = pct(50) ? SWROCE_ABI_VERSION : (uint32_t)rnd64();
		drv.comp_mask = pct(50) ? 0 : 1u << rnd(32);
		dl = rnd(3) * 4;
	}
	memset(s->scratch, 0, 512);
	ret = swr_write_cmd(s->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd,
			    sizeof(cmd), &drv, dl, s->scratch,
			    sizeof(*r) + sizeof(struct swroce_alloc_ucontext_resp));
	fz_rec(FZ_RAW_CONTEXT, -ret);
	if (!ret)
		close((int)r->async_fd);
}

static void raw_ring_keep(struct raw_sess *s, uint64_t off, uint64_t size)
{
	struct raw_ring *r = &s->ring[rnd(RAW_HANDLES)];

	r->off = off;
	r->size = size;
}

/* The core commands that carry driver data, with plausible core fields. */
static void raw_create(struct raw_sess *s)
{
	uint8_t *resp = s->scratch;

	switch (rnd(8)) {
	case 0: {
		struct ib_uverbs_alloc_pd c = {};

		if (!raw_cmd(s, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c),
			     sizeof(struct ib_uverbs_alloc_pd_resp) + 8))
			raw_keep(s->pd, ((uint32_t *)resp)[0]);
		break;
	}
	case 1: {
		struct ib_uverbs_create_cq c = {
			.cqe = pct(90) ? 1 + rnd(256) : (uint32_t)rnd64(),
			.comp_vector = pct(90) ? 0 : rnd(4),
			.comp_channel = -1,
		};
		struct swroce_create_cq_resp *d = (void *)(resp + 8);

		if (!raw_cmd(s, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c),
			     8 + sizeof(*d))) {
			raw_keep(s->cq, ((uint32_t *)resp)[0]);
			raw_ring_keep(s, d->mmap_offset, d->mmap_size);
		}
		break;
	}
	case 2: {
		struct ib_uverbs_resize_cq c = {
			.cq_handle = raw_handle(s->cq),
			.cqe = pct(90) ? 1 + rnd(512) : (uint32_t)rnd64(),
		};
		struct swroce_resize_cq_resp *d = (void *)(resp + 8);

		if (!raw_cmd(s, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c),
			     8 + sizeof(*d)))
			raw_ring_keep(s, d->mmap_offset, d->mmap_size);
		break;
	}
	case 3: {
		struct ib_uverbs_create_srq c = {
			.pd_handle = raw_handle(s->pd),
			.max_wr = pct(90) ? 1 + rnd(64) : (uint32_t)rnd64(),
			.max_sge = pct(90) ? rnd(8) : (uint32_t)rnd64(),
			.srq_limit = pct(80) ? 0 : rnd(100),
		};
		struct swroce_create_srq_resp *d = (void *)(resp + 16);

		if (!raw_cmd(s, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c),
			     16 + sizeof(*d))) {
			raw_keep(s->srq, ((uint32_t *)resp)[0]);
			raw_ring_keep(s, d->mmap_offset, d->mmap_size);
		}
		break;
	}
	case 4: {
		static const uint8_t types[] = { 2, 3, 4, 2, 3, 4, 8, 0, 0xff };
		struct ib_uverbs_create_qp c = {
			.pd_handle = raw_handle(s->pd),
			.send_cq_handle = raw_handle(s->cq),
			.recv_cq_handle = raw_handle(s->cq),
			.srq_handle = raw_handle(s->srq),
			.max_send_wr = pct(90) ? rnd(128) : (uint32_t)rnd64(),
			.max_recv_wr = pct(90) ? rnd(128) : (uint32_t)rnd64(),
			.max_send_sge = pct(90) ? rnd(8) : (uint32_t)rnd64(),
			.max_recv_sge = pct(90) ? rnd(8) : (uint32_t)rnd64(),
			.max_inline_data = pct(90) ? rnd(512) : (uint32_t)rnd64(),
			.sq_sig_all = (uint8_t)rnd(3),
			.qp_type = PICK(types),
			.is_srq = pct(20),
		};
		struct swroce_create_qp_resp *d = (void *)(resp + 32);

		if (!raw_cmd(s, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c),
			     32 + sizeof(*d))) {
			raw_keep(s->qp, ((uint32_t *)resp)[0]);
			raw_ring_keep(s, d->sq_mmap_offset, d->sq_mmap_size);
			raw_ring_keep(s, d->rq_mmap_offset, d->rq_mmap_size);
		}
		break;
	}
	case 5: {
		uint64_t off = rnd((uint32_t)s->scratch_len);
		struct ib_uverbs_reg_mr c = {
			.start = (uintptr_t)s->scratch + off,
			.length = pct(90) ? rnd((uint32_t)(s->scratch_len - off)) + 1 :
				  rnd64(),
			.hca_va = pct(70) ? (uintptr_t)s->scratch + off : rnd64(),
			.pd_handle = raw_handle(s->pd),
			.access_flags = pct(90) ? rnd(32) : (uint32_t)rnd64(),
		};

		if (!raw_cmd(s, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			     sizeof(struct ib_uverbs_reg_mr_resp) + 4))
			raw_keep(s->mr, ((uint32_t *)resp)[0]);
		break;
	}
	case 6: {
		struct ib_uverbs_alloc_mw c = {
			.pd_handle = raw_handle(s->pd),
			.mw_type = pct(90) ? 1 + rnd(2) : (uint8_t)rnd64(),
		};

		raw_cmd(s, IB_USER_VERBS_CMD_ALLOC_MW, &c, sizeof(c),
			sizeof(struct ib_uverbs_alloc_mw_resp));
		break;
	}
	default: {
		struct ib_uverbs_create_ah c = {
			.pd_handle = raw_handle(s->pd),
			.attr = {
				.is_global = pct(90),
				.port_num = pct(90) ? 1 : (uint8_t)rnd64(),
				.sl = (uint8_t)rnd(16),
				.grh = {
					.sgid_index = (uint8_t)rnd(8),
					.hop_limit = (uint8_t)rnd64(),
				},
			},
		};
		uint64_t g = rnd64();

		/* Mostly our own /24 (10.80.1.x), as an IPv4-mapped GID. */
		c.attr.grh.dgid[10] = c.attr.grh.dgid[11] = 0xff;
		c.attr.grh.dgid[12] = 10;
		c.attr.grh.dgid[13] = 80;
		c.attr.grh.dgid[14] = 1;
		c.attr.grh.dgid[15] = 1 + rnd(2);
		if (pct(20))
			memcpy(c.attr.grh.dgid + 8, &g, 8);
		raw_cmd(s, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c),
			sizeof(struct ib_uverbs_create_ah_resp));
	}
	}
}

/* Destroy and modify commands on handles of the session (or not). */
static void raw_other(struct raw_sess *s)
{
	struct {
		uint64_t response;
		uint32_t handle;
		uint32_t pad[3];
	} c = { .handle = 0 };
	static const uint32_t destroy[] = {
		IB_USER_VERBS_CMD_DEALLOC_PD, IB_USER_VERBS_CMD_DESTROY_CQ,
		IB_USER_VERBS_CMD_DESTROY_QP, IB_USER_VERBS_CMD_DESTROY_SRQ,
		IB_USER_VERBS_CMD_DEREG_MR,
	};
	const uint32_t *tab[] = { s->pd, s->cq, s->qp, s->srq, s->mr };
	unsigned int k = rnd(6);

	if (k < 5) {
		size_t len = k == 0 || k == 4 ? 4 : 16;

		/* dealloc_pd and dereg_mr: a bare handle, no response */
		c.handle = raw_handle(tab[k]);
		if (len == 4) {
			raw_cmd(s, destroy[k], &c.handle, 4, 0);
			return;
		}
		raw_cmd(s, destroy[k], &c, len, 8);
		return;
	}
	{
		struct ib_uverbs_modify_srq m = {
			.srq_handle = raw_handle(s->srq),
			.attr_mask = rnd(4),
			.max_wr = pct(80) ? rnd(128) : (uint32_t)rnd64(),
			.srq_limit = rnd(128),
		};

		raw_cmd(s, IB_USER_VERBS_CMD_MODIFY_SRQ, &m, sizeof(m), 0);
	}
}

/* A write() command of any number with any content. */
static void raw_garbage_cmd(struct raw_sess *s)
{
	uint32_t words[64];
	struct ib_uverbs_cmd_hdr *h = (void *)words;
	unsigned int n = 2 + rnd(62), i;
	ssize_t ret;

	for (i = 0; i < n; i++)
		words[i] = (uint32_t)rnd64();
	h->command = pct(80) ? rnd(IB_USER_VERBS_CMD_OPEN_QP + 1) :
		     (uint32_t)rnd64();
	if (pct(20))
		h->command |= IB_USER_VERBS_CMD_FLAG_EXTENDED;
	h->in_words = pct(80) ? n : (uint16_t)rnd64();
	h->out_words = (uint16_t)rnd(64);
	/* The response pointer, where a core command keeps it. */
	if (n > 3 && pct(80)) {
		uint64_t rp = (uintptr_t)raw_resp_ptr(s);

		memcpy(&words[2], &rp, sizeof(rp));
	}
	ret = write(s->fd, words, n * 4);
	fz_rec(FZ_RAW_CMD, ret < 0 ? errno : 0);
}

/*
 * The one method not fuzzed: GET_CONTEXT by ioctl. In ib_core up to at
 * least 6.12.117 its handler frees a context that ib_init_ucontext()
 * failed to set up without rdma_restrack_put(), which leaks the calling
 * task's reference taken by ib_alloc_ucontext() (uverbs_std_types_device.c,
 * UVERBS_HANDLER(UVERBS_METHOD_GET_CONTEXT); the write() command's error
 * path drops it). Every call on a file that has a context already fails
 * there, so random ioctls would leak a task_struct each few hundred calls
 * and kmemleak would report ib_core's bug as ours (Documentation/testing.rst).
 */
static bool raw_ioctl_leaks(const struct ib_uverbs_ioctl_hdr *hdr)
{
	return hdr->object_id == UVERBS_OBJECT_DEVICE &&
	       hdr->method_id == UVERBS_METHOD_GET_CONTEXT;
}

/* RDMA_VERBS_IOCTL with random objects, methods and attributes. */
static void raw_ioctl(struct raw_sess *s)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      8 * sizeof(struct ib_uverbs_attr)) / 8];
	struct ib_uverbs_ioctl_hdr *hdr = (void *)buf;
	unsigned int n = rnd(8), i;
	uint8_t *data = s->scratch + 1024;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < 1024; i++)
		data[i] = (uint8_t)rnd64();
	hdr->length = sizeof(*hdr) + n * sizeof(hdr->attrs[0]);
	if (pct(5))
		hdr->length = (uint16_t)rnd64();
	hdr->object_id = pct(90) ? rnd(UVERBS_OBJECT_ASYNC_EVENT + 2) :
			 (uint16_t)rnd64();
	if (pct(10))
		hdr->object_id |= 1u << UVERBS_ID_NS_SHIFT;
	do {
		hdr->method_id = rnd(pct(80) ? 4 : 12);
		if (pct(20))
			hdr->method_id = SWROCE_METHOD_QP_DOORBELL + rnd(3);
	} while (raw_ioctl_leaks(hdr));
	hdr->num_attrs = n;
	hdr->driver_id = pct(95) ? RDMA_DRIVER_UNKNOWN : (uint32_t)rnd(64);
	if (pct(3))
		hdr->reserved1 = (uint16_t)rnd64();
	for (i = 0; i < n; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];
		static const uint16_t lens[] = { 0, 4, 8, 8, 16, 32, 64, 200 };

		a->attr_id = rnd(12);
		if (pct(25))
			a->attr_id |= 1u << UVERBS_ID_NS_SHIFT;
		a->len = PICK(lens);
		a->flags = rnd(4);
		if (a->len > 8)
			a->data = (uintptr_t)(data + rnd(512));
		else
			a->data = pct(50) ? rnd(16) : rnd64();
		if (pct(3))
			a->attr_data.reserved = (uint16_t)rnd64();
	}
	fz_rec(FZ_RAW_IOCTL, ioctl(s->fd, RDMA_VERBS_IOCTL, hdr) ? errno : 0);
}

/*
 * Methods that reach the driver, with their mandatory attributes right and
 * the rest random: CQ_CREATE with garbage driver data (UHW_IN), and
 * QUERY_PORT / QUERY_GID_ENTRY with random port and index.
 */
static void raw_ioctl_method(struct raw_sess *s)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      8 * sizeof(struct ib_uverbs_attr)) / 8] = { 0 };
	struct ib_uverbs_ioctl_hdr *hdr = (void *)buf;
	struct ib_uverbs_attr *a = hdr->attrs;
	uint8_t *out = s->scratch + 2048, *in = s->scratch + 3072;
	unsigned int i, n = 0, uhw = rnd(65);

	for (i = 0; i < uhw; i++)
		in[i] = pct(70) ? 0 : (uint8_t)rnd64();
	hdr->driver_id = RDMA_DRIVER_UNKNOWN;
	switch (rnd(3)) {
	case 0:
		hdr->object_id = UVERBS_OBJECT_CQ;
		hdr->method_id = UVERBS_METHOD_CQ_CREATE;
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_CREATE_CQ_HANDLE };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_CREATE_CQ_CQE, .len = 4,
			.data = pct(90) ? 1 + rnd(512) : (uint32_t)rnd64() };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_CREATE_CQ_USER_HANDLE, .len = 8,
			.data = rnd64() };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, .len = 4,
			.data = pct(90) ? 0 : rnd(8) };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_CREATE_CQ_RESP_CQE, .len = 4,
			.data = (uintptr_t)out };
		if (pct(30))
			a[n++] = (struct ib_uverbs_attr){
				.attr_id = UVERBS_ATTR_CREATE_CQ_FLAGS, .len = 4,
				.data = rnd(4) };
		break;
	case 1:
		hdr->object_id = UVERBS_OBJECT_DEVICE;
		hdr->method_id = UVERBS_METHOD_QUERY_PORT;
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_QUERY_PORT_PORT_NUM, .len = 1,
			.data = pct(80) ? 1 : rnd(256) };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_QUERY_PORT_RESP,
			.len = sizeof(struct ib_uverbs_query_port_resp_ex) -
			       (pct(80) ? 0 : 8), .data = (uintptr_t)out };
		break;
	default:
		hdr->object_id = UVERBS_OBJECT_DEVICE;
		hdr->method_id = UVERBS_METHOD_QUERY_GID_ENTRY;
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_PORT, .len = 4,
			.data = pct(80) ? 1 : rnd(4) };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
			.len = 4, .data = pct(80) ? rnd(16) : (uint32_t)rnd64() };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, .len = 4,
			.data = pct(90) ? 0 : rnd(4) };
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
			.len = sizeof(struct ib_uverbs_gid_entry) -
			       (pct(80) ? 0 : 4), .data = (uintptr_t)out };
	}
	if (uhw || pct(30))
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_UHW_IN, .len = (uint16_t)uhw,
			.data = uhw > 8 ? (uintptr_t)in : rnd64() };
	if (pct(85))
		a[n++] = (struct ib_uverbs_attr){
			.attr_id = UVERBS_ATTR_UHW_OUT,
			.len = pct(70) ? sizeof(struct swroce_create_cq_resp) :
			       8 * rnd(8),
			.data = (uintptr_t)(out + 512) };
	hdr->num_attrs = n;
	hdr->length = sizeof(*hdr) + n * sizeof(*a);
	fz_rec(FZ_RAW_IOCTL, ioctl(s->fd, RDMA_VERBS_IOCTL, hdr) ? errno : 0);
}

/* mmap a ring the kernel handed out: whole, or a page off, or short. */
static void raw_mmap(struct raw_sess *s)
{
	struct raw_ring *r = &s->ring[rnd(RAW_HANDLES)];
	uint64_t off = r->off, size = r->size;
	uint8_t *p;

	if (pct(30))
		off += (rnd(3) - 1) * 4096ull;
	if (pct(30) || !size)
		size = (rnd(4) + (size ? 0 : 1)) * 4096ull + (size ? size : 0);
	if (pct(10))
		size = 4096ull * (1 + rnd(4));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		 (off_t)off);
	fz_rec(FZ_RAW_MMAP, p == MAP_FAILED ? errno : 0);
	if (p == MAP_FAILED)
		return;
	/* Hostile words into whatever we got. */
	for (unsigned int i = 0; i < 16; i++)
		((uint32_t *)p)[rnd((uint32_t)(size / 4))] = (uint32_t)rnd64();
	munmap(p, size);
}

static int raw_session_run(const char *path)
{
	struct raw_sess s = { .scratch_len = 1 << 16 };
	unsigned int i, n = 5 + rnd(40);

	s.fd = open(path, O_RDWR | O_CLOEXEC);
	if (s.fd < 0)
		return errno;
	s.scratch = mmap(NULL, s.scratch_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s.scratch == MAP_FAILED)
		return ENOMEM;
	if (pct(95))
		raw_get_context(&s);
	for (i = 0; i < n; i++) {
		unsigned int k = rnd(100);

		if (k < 45)
			raw_create(&s);
		else if (k < 60)
			raw_other(&s);
		else if (k < 72)
			raw_garbage_cmd(&s);
		else if (k < 80)
			raw_ioctl(&s);
		else if (k < 88)
			raw_ioctl_method(&s);
		else
			raw_mmap(&s);
	}
	/* Half of the sessions end with their objects still there. */
	if (pct(50))
		close(s.fd);
	return 0;
}

/*
 * One raw session on @path in a child process; 0, or the errno of
 * opening the device. The child dies with the thread that forked it.
 */
static int fz_raw_session(const char *path)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(60);
		_exit(raw_session_run(path));
	}
	atomic_fetch_add(&fz_st->raw_sessions, 1);
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

#endif /* SWR_FUZZ_RAW_H */
