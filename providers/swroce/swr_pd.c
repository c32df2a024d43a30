// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains (one kernel command each), and what the provider
 * builds on them without the kernel: parent domains and thread domains
 * (ibv_alloc_parent_domain(3), ibv_alloc_td(3)).
 *
 * A parent domain carries its PD's handle, so the commands that create
 * objects through it (QPs, SRQs, MRs, MWs, AHs) name that PD to the
 * kernel. With a thread domain the application promises to use the CQs,
 * QPs and SRQs created through the parent from one thread at a time, and
 * their posting and polling take no lock. Custom allocators
 * (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) are refused: our queue memory
 * is the kernel's, mapped into the process, not memory the provider
 * allocates.
 *
 * Reference counts: a PD counts its parent domains, a parent domain the
 * CQs, QPs and SRQs created through it, a thread domain its parent
 * domains; none can be freed while counted (EBUSY), as with mlx5.
 */
#include <errno.h>
#include <stdlib.h>

#include "swroce.h"

struct ibv_pd *swr_alloc_pd(struct ibv_context *ibctx)
{
	struct swr_alloc_pd_cmd cmd = {};
	struct swr_alloc_pd_cmd_resp resp = {};
	struct swr_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	err = ibv_cmd_alloc_pd(ibctx, &pd->ibpd, &cmd.ibv_cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->pdn = resp.drv_payload.pdn;
	return &pd->ibpd;
}

int swr_dealloc_pd(struct ibv_pd *ibpd)
{
	struct swr_pd *pd = to_swr_pd(ibpd);
	int err;

	if (atomic_load(&pd->refcount))
		return EBUSY;
	if (pd->protection) {
		/* a parent domain: nothing of it is in the kernel */
		atomic_fetch_sub(&pd->protection->refcount, 1);
		if (pd->td)
			atomic_fetch_sub(&pd->td->refcount, 1);
		free(pd);
		return 0;
	}
	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;
	free(pd);
	return 0;
}

struct ibv_pd *swr_alloc_parent_domain(struct ibv_context *ibctx,
				       struct ibv_parent_domain_init_attr *attr)
{
	struct swr_pd *parent, *pd;

	/*
	 * The PD context is accepted: it is only ever handed to custom
	 * allocators, which are refused, so nothing keeps it.
	 */
	if (attr->comp_mask & ~(uint32_t)IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* a PD of this context, not another parent domain */
	if (!attr->pd || attr->pd->context != ibctx ||
	    swr_parent_domain(attr->pd) ||
	    (attr->td && attr->td->context != ibctx)) {
		errno = EINVAL;
		return NULL;
	}
	pd = to_swr_pd(attr->pd);
	parent = calloc(1, sizeof(*parent));
	if (!parent)
		return NULL;
	parent->ibpd.context = ibctx;
	parent->ibpd.handle = pd->ibpd.handle;
	parent->pdn = pd->pdn;
	parent->protection = pd;
	if (attr->td) {
		parent->td = container_of(attr->td, struct swr_td, ibtd);
		atomic_fetch_add(&parent->td->refcount, 1);
	}
	atomic_fetch_add(&pd->refcount, 1);
	return &parent->ibpd;
}

struct ibv_td *swr_alloc_td(struct ibv_context *ibctx,
			    struct ibv_td_init_attr *attr)
{
	struct swr_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibtd.context = ibctx;
	return &td->ibtd;
}

int swr_dealloc_td(struct ibv_td *ibtd)
{
	struct swr_td *td = container_of(ibtd, struct swr_td, ibtd);

	if (atomic_load(&td->refcount))
		return EBUSY;
	free(td);
	return 0;
}

/*
 * A CQ, QP or SRQ is being created through @ibpd: if that is a parent
 * domain, count the object on it. True when the object may go without
 * locks (the parent has a thread domain).
 */
bool swr_parent_get(struct ibv_pd *ibpd)
{
	struct swr_pd *parent = swr_parent_domain(ibpd);

	if (!parent)
		return false;
	atomic_fetch_add(&parent->refcount, 1);
	return parent->td;
}

/* The object created through @ibpd is gone. */
void swr_parent_put(struct ibv_pd *ibpd)
{
	struct swr_pd *parent = swr_parent_domain(ibpd);

	if (parent)
		atomic_fetch_sub(&parent->refcount, 1);
}
