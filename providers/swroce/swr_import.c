// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Objects of another context on the same command file: a process (or one
 * it passed the fd to) opens a second context with ibv_import_device() on
 * a duplicate of the first one's command fd, then names the first one's
 * PDs and MRs by handle (ibv_import_pd(), ibv_import_mr()); DMs are in
 * swr_dm.c. Both contexts are one kernel ucontext, so an imported object
 * is the same kernel object: importing checks the handle and learns what
 * the provider keeps of it, and unimporting frees only that.
 */
#include <errno.h>
#include <stdlib.h>

#include "swroce.h"

struct ibv_pd *swr_import_pd(struct ibv_context *ibctx, uint32_t pd_handle)
{
	struct swroce_alloc_pd_resp resp = {};
	struct ib_uverbs_attr attrs[] = {
		{ .attr_id = SWROCE_ATTR_PD_QUERY_HANDLE, .data = pd_handle,
		  .flags = UVERBS_ATTR_F_MANDATORY },
		{ .attr_id = SWROCE_ATTR_PD_QUERY_RESP, .len = sizeof(resp),
		  .data = (uintptr_t)&resp, .flags = UVERBS_ATTR_F_MANDATORY },
	};
	struct swr_pd *pd;
	int err;

	err = swr_ioctl(ibctx, UVERBS_OBJECT_PD, SWROCE_METHOD_PD_QUERY, attrs,
			2);
	if (err) {
		errno = err;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibpd.context = ibctx;
	pd->ibpd.handle = pd_handle;
	pd->pdn = resp.pdn;
	return &pd->ibpd;
}

void swr_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_swr_pd(ibpd));
}

/*
 * The core's UVERBS_METHOD_QUERY_MR fills in the keys and the length; the
 * address stays NULL, as libibverbs leaves it (the kernel knows the MR's
 * iova, not the virtual address it was registered from).
 */
struct ibv_mr *swr_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_query_mr(pd, vmr, mr_handle);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

void swr_unimport_mr(struct ibv_mr *ibmr)
{
	free(container_of(ibmr, struct verbs_mr, ibv_mr));
}
