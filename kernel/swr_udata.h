/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Strict handling of driver-private uverbs data.
 *
 * A provider may be older or newer than the kernel. An older one sends a
 * shorter command: accepted when it reaches the last field the command
 * cannot do without. A newer one may send a longer command: accepted only
 * when every byte this kernel does not understand is zero, because a
 * non-zero byte there is a request this kernel would silently ignore.
 */
#ifndef SWR_UDATA_H
#define SWR_UDATA_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "swr.h"

/* Bytes of @udata's input from @known on must all be zero. */
static inline bool swr_udata_tail_clear(struct ib_udata *udata, size_t known)
{
	if (udata->inlen <= known)
		return true;
	return ib_is_udata_cleared(udata, known, udata->inlen - known);
}

/* Count and report a command refused for its driver data. */
static inline int swr_udata_reject(struct ib_device *ibdev,
				   struct ib_udata *udata, int err)
{
	swr_count(to_swr_dev(ibdev), SWR_CNT_UDATA_REJECTED);
	ibdev_dbg(ibdev, "driver data refused (%zu bytes in, %zu out): %d\n",
		  udata->inlen, udata->outlen, err);
	return err;
}

/*
 * Copy a command of @size bytes (zero-filled past what the provider sent)
 * whose fields up to @min_size are mandatory.
 */
static inline int swr_udata_get_cmd(struct ib_device *ibdev,
				    struct ib_udata *udata, void *cmd,
				    size_t size, size_t min_size)
{
	int err;

	memset(cmd, 0, size);
	if (udata->inlen < min_size || !swr_udata_tail_clear(udata, size))
		return swr_udata_reject(ibdev, udata, -EINVAL);
	err = ib_copy_from_udata(cmd, udata, min(size, udata->inlen));
	return err ? swr_udata_reject(ibdev, udata, err) : 0;
}

/*
 * A command's comp_mask may hold only the bits this kernel knows
 * (EOPNOTSUPP otherwise) and its reserved field must be zero.
 */
static inline int swr_udata_check_mask(struct ib_device *ibdev,
				       struct ib_udata *udata, u32 comp_mask,
				       u32 known, u32 reserved)
{
	if (comp_mask & ~known)
		return swr_udata_reject(ibdev, udata, -EOPNOTSUPP);
	if (reserved)
		return swr_udata_reject(ibdev, udata, -EINVAL);
	return 0;
}

/*
 * @ring if its comp_mask bit is @set, else NULL; a ring without its bit
 * must be all zero (a request this kernel would otherwise ignore).
 */
static inline int swr_udata_user_ring(struct ib_device *ibdev,
				      struct ib_udata *udata, bool set,
				      const struct swroce_user_ring *ring,
				      const struct swroce_user_ring **out)
{
	*out = set ? ring : NULL;
	if (!set && (ring->addr || ring->length))
		return swr_udata_reject(ibdev, udata, -EINVAL);
	return 0;
}

/* The checks of a command whose one optional field is a ring, bit @bit. */
static inline int swr_udata_one_ring(struct ib_device *ibdev,
				     struct ib_udata *udata, u32 comp_mask,
				     u32 reserved, u32 bit,
				     const struct swroce_user_ring *ring,
				     const struct swroce_user_ring **out)
{
	int err;

	err = swr_udata_check_mask(ibdev, udata, comp_mask, bit, reserved);
	return err ?: swr_udata_user_ring(ibdev, udata, comp_mask & bit, ring,
					  out);
}

/* For verbs that take no driver-private input. */
static inline int swr_udata_no_cmd(struct ib_device *ibdev,
				   struct ib_udata *udata)
{
	if (!swr_udata_tail_clear(udata, 0))
		return swr_udata_reject(ibdev, udata, -EINVAL);
	return 0;
}

/* Write back at most what the provider has room for. */
static inline int swr_udata_put_resp(struct ib_udata *udata, void *resp,
				     size_t size)
{
	return ib_copy_to_udata(udata, resp, min(size, udata->outlen));
}

/* The user context a command came from (the owner of its mappings). */
static inline struct ib_ucontext *swr_udata_uctx(struct ib_udata *udata)
{
	struct swr_ucontext *uctx;

	uctx = rdma_udata_to_drv_context(udata, struct swr_ucontext, ibuc);
	return uctx ? &uctx->ibuc : NULL;
}

#endif /* SWR_UDATA_H */
