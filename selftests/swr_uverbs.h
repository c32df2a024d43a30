/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw uverbs commands for the selftests that must get past the provider's
 * own checks: legacy write() commands with arbitrary driver data, and
 * RDMA_VERBS_IOCTL calls of the driver's doorbell method. Both return 0 or
 * a negative errno and never assert.
 */
#ifndef SWR_UVERBS_H
#define SWR_UVERBS_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/swroce-abi.h>

/*
 * Send one legacy write() command: header, @core_len bytes of core command,
 * then @drv_len bytes of driver data. With a response buffer, the core
 * command's first field (the response pointer) is set to @resp.
 */
static inline int swr_write_cmd(int fd, uint32_t command, void *core,
				size_t core_len, const void *drv,
				size_t drv_len, void *resp, size_t resp_len)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (sizeof(hdr) + core_len + drv_len) / 4,
		.out_words = resp_len / 4,
	};
	uint8_t buf[512];
	uint64_t rp = (uintptr_t)resp;
	size_t len = sizeof(hdr) + core_len + drv_len;

	if (len > sizeof(buf) || (len | resp_len) % 4)
		return -EINVAL;
	if (resp && core_len >= sizeof(rp))
		memcpy(core, &rp, sizeof(rp));
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), core, core_len);
	if (drv_len)
		memcpy(buf + sizeof(hdr) + core_len, drv, drv_len);
	return write(fd, buf, len) == (ssize_t)len ? 0 : -errno;
}

/*
 * SWROCE_METHOD_QP_DOORBELL through RDMA_VERBS_IOCTL, @num_attrs 0 or 1
 * (the QP handle @handle), @method the method id. Returns 0 or -errno.
 */
static inline int swr_doorbell_raw(int fd, uint16_t method,
				   uint16_t num_attrs, uint64_t handle)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      sizeof(struct ib_uverbs_attr)) / sizeof(uint64_t)] = { 0 };
	struct ib_uverbs_ioctl_hdr *hdr = (struct ib_uverbs_ioctl_hdr *)buf;

	hdr->length = sizeof(*hdr) + num_attrs * sizeof(hdr->attrs[0]);
	hdr->object_id = UVERBS_OBJECT_QP;
	hdr->method_id = method;
	hdr->num_attrs = num_attrs;
	hdr->driver_id = RDMA_DRIVER_UNKNOWN;
	hdr->attrs[0].attr_id = SWROCE_ATTR_QP_DOORBELL_HANDLE;
	hdr->attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	hdr->attrs[0].data = handle;
	return ioctl(fd, RDMA_VERBS_IOCTL, hdr) ? -errno : 0;
}

/*
 * SWROCE_METHOD_SRQ_TM_OP on SRQ @handle with the command @op (@op_len
 * bytes: more than the struct to test trailing bytes) and the answer in
 * @resp. Returns 0 or -errno.
 */
static inline int swr_tm_op_raw(int fd, uint32_t handle, const void *op,
				size_t op_len, struct swroce_tm_op_resp *resp)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      3 * sizeof(struct ib_uverbs_attr)) / sizeof(uint64_t)] = { 0 };
	struct ib_uverbs_ioctl_hdr *hdr = (struct ib_uverbs_ioctl_hdr *)buf;

	hdr->length = sizeof(*hdr) + 3 * sizeof(hdr->attrs[0]);
	hdr->object_id = UVERBS_OBJECT_SRQ;
	hdr->method_id = SWROCE_METHOD_SRQ_TM_OP;
	hdr->num_attrs = 3;
	hdr->driver_id = RDMA_DRIVER_UNKNOWN;
	hdr->attrs[0].attr_id = SWROCE_ATTR_SRQ_TM_OP_HANDLE;
	hdr->attrs[0].data = handle;
	hdr->attrs[1].attr_id = SWROCE_ATTR_SRQ_TM_OP_CMD;
	hdr->attrs[1].len = op_len;
	hdr->attrs[1].data = (uintptr_t)op;
	hdr->attrs[2].attr_id = SWROCE_ATTR_SRQ_TM_OP_RESP;
	hdr->attrs[2].len = sizeof(*resp);
	hdr->attrs[2].data = (uintptr_t)resp;
	return ioctl(fd, RDMA_VERBS_IOCTL, hdr) ? -errno : 0;
}

#endif /* SWR_UVERBS_H */
