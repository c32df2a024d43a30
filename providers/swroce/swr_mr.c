// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions and memory windows: each verb is one kernel command with
 * no driver-private data, except binding a window (ibv_bind_mw(),
 * IBV_WR_BIND_MW), which is a send queue operation: a WQE in the SQ ring.
 * On-demand paging MRs (IBV_ACCESS_ON_DEMAND) are registered the same
 * way; ibv_advise_mr() prefetches their pages (kernel/swr_odp.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "swroce.h"

struct ibv_mr *swr_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * libibverbs treats any non-zero return as IBV_REREG_MR_ERR_CMD and
 * reports errno; it updates mr->pd, addr and length itself on success,
 * ibv_cmd_rereg_mr() the keys (a new translation gives new keys).
 */
int swr_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		errno = err;
		return err;
	}
	return 0;
}

int swr_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}

/* The kernel checks the keys, PD, ranges and flags; errno as it says. */
int swr_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		  uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

struct ibv_mw *swr_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;

	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int swr_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

/*
 * Bind a type 1 window: a BIND_MW WQE carrying the window's next rkey
 * (a new tag in the low byte). mw->rkey takes it once the WQE is posted,
 * as the verb requires; the application undoes that itself if the bind
 * completes in error.
 */
int swr_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int err;

	if (mw_bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED) {
		errno = EINVAL;
		return EINVAL;
	}
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	err = swr_post_send(ibqp, &wr, &bad_wr);
	if (err) {
		errno = err;
		return err;
	}
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
