// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC domains: one kernel command each way. The kernel shares a domain
 * between the processes that open it through the same file (an inode);
 * the SRQs and XRC_RECV QPs created in it are what they share.
 */
#include <errno.h>
#include <stdlib.h>

#include "swroce.h"

struct ibv_xrcd *swr_open_xrcd(struct ibv_context *ibctx,
			       struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	err = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int swr_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;
	free(xrcd);
	return 0;
}
