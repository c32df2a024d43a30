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
 * their posting and polling take no lock.
 *
 * Custom allocators (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) place the
 * rings of the queues created through the parent, as on mlx5: the SQ and
 * RQ of a QP (SWROCE_RES_TYPE_QP each), an SRQ's ring (SWROCE_RES_TYPE_SRQ) and
 * the ring of an extended CQ created with IBV_CQ_INIT_ATTR_MASK_PD
 * (SWROCE_RES_TYPE_CQ). Each ring is asked for in whole pages, page
 * aligned, and handed to the kernel in the create command (struct
 * swroce_user_ring), which pins it and uses it instead of a ring of its
 * own; we use it in place of the mapping. The size is the kernel's (the
 * rules are the uAPI's), so each queue file computes its ring's. An
 * allocator that answers IBV_ALLOCATOR_USE_DEFAULT leaves that ring to
 * the kernel, mapped as usual, and is then not asked to free it; NULL
 * fails the create with ENOMEM. The free callback gets the ring back
 * after the kernel has destroyed the queue (it held the pages until
 * then). A kernel without SWROCE_DEVICE_CAP_USER_RINGS cannot take such
 * rings: there allocators are refused (EOPNOTSUPP). A resized CQ moves
 * to a kernel ring, and its allocator ring is freed then.
 *
 * Reference counts: a PD counts its parent domains, a parent domain the
 * CQs, QPs and SRQs created through it, a thread domain its parent
 * domains; none can be freed while counted (EBUSY), as with mlx5.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

	bool allocators = attr->comp_mask &
			  IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;

	if ((attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT |
					   IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS)) ||
	    (allocators && !(to_swr_context(ibctx)->device_caps &
			     SWROCE_DEVICE_CAP_USER_RINGS))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* a PD of this context, not another parent domain */
	if (!attr->pd || attr->pd->context != ibctx ||
	    swr_parent_domain(attr->pd) ||
	    (attr->td && attr->td->context != ibctx) ||
	    (allocators && (!attr->alloc || !attr->free))) {
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
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent->pd_context = attr->pd_context;
	if (allocators) {
		parent->alloc = attr->alloc;
		parent->free = attr->free;
	}
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

/*
 * The smallest power of two >= @n and >= 1 (the kernel's rounding of
 * ring slots and strides); 0 beyond 2^31, where the kernel refuses the
 * request anyway.
 */
uint32_t swr_ring_pow2(uint64_t n)
{
	uint32_t p = 1;

	if (n > 1U << 31)
		return 0;
	while (p < n)
		p <<= 1;
	return p;
}

/*
 * Ring memory of @bytes for a queue created through @ibpd: from the
 * parent domain's allocator in whole pages, page aligned. rb->addr stays
 * NULL (the kernel's ring) without allocators, when the allocator says
 * IBV_ALLOCATOR_USE_DEFAULT, or for @bytes 0 (a request the kernel will
 * refuse). 0 or an errno.
 */
int swr_ring_buf_alloc(struct ibv_pd *ibpd, size_t bytes, uint64_t type,
		       struct swr_ring_buf *rb)
{
	struct swr_pd *parent = swr_parent_domain(ibpd);
	size_t page = sysconf(_SC_PAGESIZE);
	void *addr;

	rb->addr = NULL;
	rb->size = 0;
	if (!parent || !parent->alloc || !bytes)
		return 0;
	rb->size = (bytes + page - 1) & ~(page - 1);
	addr = parent->alloc(ibpd, parent->pd_context, rb->size, page, type);
	if (addr == IBV_ALLOCATOR_USE_DEFAULT) {
		rb->size = 0;
		return 0;
	}
	if (!addr)
		return ENOMEM;
	rb->addr = addr;
	return 0;
}

/* Name @rb in a create command (all zero for the kernel's ring). */
void swr_ring_buf_cmd(const struct swr_ring_buf *rb,
		      struct swroce_user_ring *user)
{
	user->addr = (uintptr_t)rb->addr;
	user->length = rb->addr ? rb->size : 0;
}

/*
 * The ring a create command produced, of at least @need bytes: @rb's
 * memory, or the kernel's mapping at (@offset, @size). NULL with errno.
 */
void *swr_ring_map(int cmd_fd, const struct swr_ring_buf *rb,
		   uint64_t offset, uint64_t size, size_t need,
		   size_t *map_size)
{
	void *ring;

	if (rb && rb->addr) {
		size = rb->size;
		ring = rb->addr;
	} else {
		ring = NULL;
	}
	if (size < need) {
		errno = EPROTO;
		return NULL;
	}
	if (!ring) {
		ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			    cmd_fd, offset);
		if (ring == MAP_FAILED)
			return NULL;
	}
	*map_size = size;
	return ring;
}

/*
 * Give a ring back once the kernel is done with it: to the allocator of
 * the parent @ibpd it came from, or unmap the kernel's.
 */
void swr_ring_release(struct ibv_pd *ibpd, void *ring, size_t map_size,
		      bool user_ring, uint64_t type)
{
	struct swr_pd *parent;

	if (!user_ring) {
		munmap(ring, map_size);
		return;
	}
	parent = swr_parent_domain(ibpd);
	parent->free(ibpd, parent->pd_context, ring, type);
}
