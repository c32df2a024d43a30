// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Control verbs: device and port queries, each one command to the kernel,
 * and the ioctl helper of the driver's own methods.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <rdma/rdma_user_ioctl_cmds.h>

#include "swroce.h"

/*
 * One ioctl (RDMA_VERBS_IOCTL) with @n attributes: a method of the
 * driver's (swroce-abi.h), or a core method with the driver's attributes.
 */
int swr_ioctl(struct ibv_context *ibctx, uint16_t object, uint16_t method,
	      const struct ib_uverbs_attr *attrs, unsigned int n)
{
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      SWR_IOCTL_MAX_ATTRS * sizeof(struct ib_uverbs_attr)) /
		     sizeof(uint64_t)] = {};
	struct ib_uverbs_ioctl_hdr *hdr = (struct ib_uverbs_ioctl_hdr *)buf;

	if (n > SWR_IOCTL_MAX_ATTRS)
		return EINVAL;
	hdr->length = sizeof(*hdr) + n * sizeof(*attrs);
	hdr->object_id = object;
	hdr->method_id = method;
	hdr->num_attrs = n;
	hdr->driver_id = RDMA_DRIVER_UNKNOWN;
	memcpy(hdr->attrs, attrs, n * sizeof(*attrs));
	return ioctl(ibctx->cmd_fd, RDMA_VERBS_IOCTL, hdr) ? errno : 0;
}

int swr_query_device_ex(struct ibv_context *ibctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;

	/* The kernel announced RSS (an Ethernet device): what it hashes. */
	if (attr_size >= offsetof(struct ibv_device_attr_ex, max_wq_type_rq) &&
	    attr->rss_caps.supported_qpts) {
		attr->rss_caps.rx_hash_fields_mask = SWROCE_RX_HASH_FIELDS;
		attr->rss_caps.rx_hash_function = SWROCE_RX_HASH_FUNC_TOEPLITZ;
	}

	/* major.minor.sub_minor, as the kernel's fw_ver packs it */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32),
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

/*
 * The device clock (hca_core_clock 1 GHz) is CLOCK_MONOTONIC_RAW: CQE
 * timestamps are its nanoseconds, written by the kernel
 * (ktime_get_raw_ns()). Reading it here needs no system call (vDSO).
 */
int swr_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *values)
{
	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK &&
	    clock_gettime(CLOCK_MONOTONIC_RAW, &values->raw_clock))
		return errno;
	return 0;
}

int swr_query_port(struct ibv_context *ibctx, uint8_t port,
		   struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}
