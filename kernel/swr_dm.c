// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory (ibv_alloc_dm): memory "on the device" that a process
 * reads and writes through a mapping and registers as a zero-based MR
 * (ibv_reg_dm_mr), which work requests then name by lkey and rkey.
 *
 * A software device's memory is kernel memory: a DM is a ring-like
 * allocation (swr_ring_alloc(): zeroed, charged to the memory cgroup of
 * the allocating process, counted against the context's ring cap) that
 * the process maps once through SWROCE_METHOD_DM_MAP (swroce-abi.h) and
 * the engine reaches through the kernel address of a DM MR (SWR_MR_DM in
 * swr_mr.c).
 *
 * Bounds: one DM is at most SWR_DM_MAX bytes, and the DMs of one user
 * context together at most SWR_DM_MAX too (dm_bytes); query_device
 * reports it as max_dm_size, the "maximum amount of allocated memory" of
 * ibv_alloc_dm(3).
 *
 * Lifetime: the core refuses to free a DM while an MR uses it
 * (ib_dm.usecnt), so a DM MR's kernel address stays valid for the MR's
 * life. The mapping holds page references of its own (swr_mmap.c), so a
 * process that frees a DM and keeps it mapped keeps valid, unused memory.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>

#define UVERBS_MODULE_NAME swroce
#include <rdma/uverbs_named_ioctl.h>

#include "swr.h"
#include "swr_mr.h"

static int swr_dm_charge(struct swr_ucontext *uc, u64 size)
{
	if (atomic64_add_return(size, &uc->dm_bytes) <= SWR_DM_MAX)
		return 0;
	atomic64_sub(size, &uc->dm_bytes);
	return -ENOMEM;
}

struct ib_dm *swr_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *uctx,
			   struct ib_dm_alloc_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	struct swr_ucontext *uc = to_swr_ucontext(uctx);
	size_t size = PAGE_ALIGN(attr->length);
	struct swr_dm *dm;
	int err;

	/* A DM starts on a page: any alignment up to a page holds. */
	if (!attr->length || attr->length > SWR_DM_MAX ||
	    attr->alignment > PAGE_SHIFT || attr->flags) {
		ibdev_dbg(ibdev, "alloc_dm: length %llu, log alignment %u, flags %#x refused (max %u bytes)\n",
			  attr->length, attr->alignment, attr->flags,
			  SWR_DM_MAX);
		return ERR_PTR(-EINVAL);
	}
	err = swr_dm_charge(uc, size);
	if (err) {
		ibdev_dbg(ibdev, "alloc_dm: context holds %lld bytes of DM, cap %u\n",
			  (long long)atomic64_read(&uc->dm_bytes), SWR_DM_MAX);
		return ERR_PTR(err);
	}
	dm = kzalloc(sizeof(*dm), GFP_KERNEL_ACCOUNT);
	if (!dm) {
		err = -ENOMEM;
		goto err_uncharge;
	}
	dm->size = size;
	dm->vaddr = swr_ring_alloc(uctx, dm->size, NULL, &dm->mem);
	if (IS_ERR(dm->vaddr)) {
		err = PTR_ERR(dm->vaddr);
		goto err_free;
	}
	return &dm->ibdm;

err_free:
	kfree(dm);
err_uncharge:
	atomic64_sub(size, &uc->dm_bytes);
	return ERR_PTR(err);
}

int swr_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct swr_dm *dm = to_swr_dm(ibdm);
	struct swr_ucontext *uc = to_swr_ucontext(swr_ring_ucontext(dm->mem));

	atomic64_sub(dm->size, &uc->dm_bytes);
	swr_ring_free(dm->vaddr, dm->mem);
	kfree(dm);
	return 0;
}

/*
 * SWROCE_METHOD_DM_MAP (swroce-abi.h): where to mmap() a DM. Also what a
 * context that imported the DM's handle (ibv_import_dm) maps it by. The
 * DM's uobject is locked for reading, so the DM outlives the call.
 */
static int UVERBS_HANDLER(SWROCE_METHOD_DM_MAP)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs,
						 SWROCE_ATTR_DM_MAP_HANDLE);
	struct swroce_dm_map_resp resp = {};
	struct swr_dm *dm;

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	dm = to_swr_dm(ibdm);
	resp.mmap_offset = swr_ring_mmap_offset(dm->mem);
	resp.mmap_size = dm->size;
	resp.length = ibdm->length;
	return uverbs_copy_to_struct_or_zero(attrs, SWROCE_ATTR_DM_MAP_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(SWROCE_METHOD_DM_MAP,
			    UVERBS_ATTR_IDR(SWROCE_ATTR_DM_MAP_HANDLE,
					    UVERBS_OBJECT_DM,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(SWROCE_ATTR_DM_MAP_RESP,
						UVERBS_ATTR_STRUCT(struct swroce_dm_map_resp,
								   length),
						UA_MANDATORY));

ADD_UVERBS_METHODS(swr_dm_methods, UVERBS_OBJECT_DM,
		   &UVERBS_METHOD(SWROCE_METHOD_DM_MAP));

const struct uapi_definition swr_dm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &swr_dm_methods),
	{},
};
