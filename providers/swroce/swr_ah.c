// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles: one command each way; the kernel resolves the
 * destination MAC and hands back the AH number UD WQEs carry.
 */
#include <errno.h>
#include <stdlib.h>

#include "swroce.h"

struct swr_create_ah_resp {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct swroce_create_ah_resp drv;
};

struct ibv_ah *swr_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct swr_create_ah_resp resp = {};
	struct swr_ah *ah;
	int err;

	/* RoCE routes by GID: without a GRH there is nowhere to send. */
	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	err = ibv_cmd_create_ah(ibpd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->ahn = resp.drv.ahn;
	return &ah->ibah;
}

int swr_destroy_ah(struct ibv_ah *ibah)
{
	int err = ibv_cmd_destroy_ah(ibah);

	if (err)
		return err;
	free(to_swr_ah(ibah));
	return 0;
}
