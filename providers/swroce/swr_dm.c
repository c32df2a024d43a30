// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory (ibv_alloc_dm): kernel memory of the device that this
 * process maps (SWROCE_METHOD_DM_MAP, swroce-abi.h). ibv_memcpy_to_dm()
 * and ibv_memcpy_from_dm() are memcpy() on the mapping, in whole 32-bit
 * words at 32-bit aligned offsets, as on RoCE NICs' device memory;
 * ibv_reg_dm_mr() registers part of it as a zero-based MR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "swroce.h"

/* Offsets and lengths of DM copies: multiples of this. */
#define SWR_DM_WORD	4u

static struct swr_dm *to_swr_dm(struct ibv_dm *ibdm)
{
	return container_of(ibdm, struct swr_dm, vdm.dm);
}

/* Where the kernel lets us map DM @handle. */
static int swr_dm_query_map(struct ibv_context *ibctx, uint32_t handle,
			    struct swroce_dm_map_resp *resp)
{
	struct ib_uverbs_attr attrs[] = {
		{ .attr_id = SWROCE_ATTR_DM_MAP_HANDLE, .data = handle,
		  .flags = UVERBS_ATTR_F_MANDATORY },
		{ .attr_id = SWROCE_ATTR_DM_MAP_RESP, .len = sizeof(*resp),
		  .data = (uintptr_t)resp, .flags = UVERBS_ATTR_F_MANDATORY },
	};

	return swr_ioctl(ibctx, UVERBS_OBJECT_DM, SWROCE_METHOD_DM_MAP, attrs,
			 2);
}

/* A copy the device takes: whole words, inside the DM. */
static bool swr_dm_range_ok(const struct swr_dm *dm, uint64_t offset,
			    size_t length)
{
	return !(offset % SWR_DM_WORD) && !(length % SWR_DM_WORD) &&
	       offset <= dm->length && length <= dm->length - offset;
}

static int swr_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			    const void *host_addr, size_t length)
{
	struct swr_dm *dm = to_swr_dm(ibdm);

	if (!swr_dm_range_ok(dm, dm_offset, length))
		return EINVAL;
	memcpy(dm->map + dm_offset, host_addr, length);
	return 0;
}

static int swr_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length)
{
	struct swr_dm *dm = to_swr_dm(ibdm);

	if (!swr_dm_range_ok(dm, dm_offset, length))
		return EINVAL;
	memcpy(host_addr, dm->map + dm_offset, length);
	return 0;
}

/* Map @dm (its handle set) and fill in the copy functions. */
static int swr_dm_map(struct ibv_context *ibctx, struct swr_dm *dm)
{
	struct swroce_dm_map_resp resp = {};
	void *map;
	int err;

	err = swr_dm_query_map(ibctx, dm->vdm.handle, &resp);
	if (err)
		return err;
	if (resp.length > resp.mmap_size)
		return EPROTO;
	map = mmap(NULL, resp.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, resp.mmap_offset);
	if (map == MAP_FAILED)
		return errno;
	dm->map = map;
	dm->map_size = resp.mmap_size;
	dm->length = resp.length;
	dm->vdm.dm.context = ibctx;
	dm->vdm.dm.memcpy_to_dm = swr_memcpy_to_dm;
	dm->vdm.dm.memcpy_from_dm = swr_memcpy_from_dm;
	return 0;
}

struct ibv_dm *swr_alloc_dm(struct ibv_context *ibctx,
			    struct ibv_alloc_dm_attr *attr)
{
	struct swr_dm *dm;
	int err;

	/* No optional fields are defined. */
	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	err = ibv_cmd_alloc_dm(ibctx, attr, &dm->vdm, NULL);
	if (err)
		goto err_free;
	err = swr_dm_map(ibctx, dm);
	if (err)
		goto err_dealloc;
	return &dm->vdm.dm;

err_dealloc:
	ibv_cmd_free_dm(&dm->vdm);
err_free:
	free(dm);
	errno = err;
	return NULL;
}

/* Fails (EBUSY) while an MR is registered on the DM; the DM stays. */
int swr_free_dm(struct ibv_dm *ibdm)
{
	struct swr_dm *dm = to_swr_dm(ibdm);
	int err;

	err = ibv_cmd_free_dm(&dm->vdm);
	if (err)
		return err;
	munmap(dm->map, dm->map_size);
	free(dm);
	return 0;
}

/*
 * A DM of another context on this command file (ibv_import_dm()): the
 * kernel's map query is also the check that @dm_handle names a DM.
 */
struct ibv_dm *swr_import_dm(struct ibv_context *ibctx, uint32_t dm_handle)
{
	struct swr_dm *dm;
	int err;

	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	dm->vdm.handle = dm_handle;
	err = swr_dm_map(ibctx, dm);
	if (err) {
		free(dm);
		errno = err;
		return NULL;
	}
	return &dm->vdm.dm;
}

/* The DM stays; only this context's mapping of it goes. */
void swr_unimport_dm(struct ibv_dm *ibdm)
{
	struct swr_dm *dm = to_swr_dm(ibdm);

	munmap(dm->map, dm->map_size);
	free(dm);
}

struct ibv_mr *swr_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			     uint64_t dm_offset, size_t length,
			     unsigned int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_dm_mr(pd, &to_swr_dm(ibdm)->vdm, dm_offset, length,
				access, vmr, NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}
