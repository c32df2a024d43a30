/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * On-demand paging MRs (swr_odp.c): registration, the page lookup the
 * engine's copies use, faults and advise_mr. swr_odp.c's opening comment
 * says how accesses, faults and invalidations fit together.
 */
#ifndef SWR_ODP_H
#define SWR_ODP_H

#include <rdma/ib_verbs.h>

struct swr_mr;

/* SGEs one advise_mr call may name. */
#define SWR_ODP_MAX_ADVISE_SGE	64

/* The module's fault workqueue. */
int swr_odp_init(void);
void swr_odp_exit(void);

/**
 * swr_odp_reg() - set up @mr (allocated, unpublished) as an ODP MR
 * @ibdev: the device
 * @mr: the MR
 * @start: the user address; 0 with @length U64_MAX: implicit
 * @length: bytes
 * @iova: the MR's first address (0 for an implicit MR)
 * @access: IB_ACCESS_* with IB_ACCESS_ON_DEMAND
 *
 * Sets mr->odp, iova and length. Pins nothing. Return: 0 or -errno.
 */
int swr_odp_reg(struct ib_device *ibdev, struct swr_mr *mr, u64 start,
		u64 length, u64 iova, int access);

/* Free the ODP state of @mr, after its last reference (swr_mr_free()). */
void swr_odp_release(struct swr_mr *mr);

/**
 * swr_odp_map() - the kernel address of byte @iova of ODP MR @mr
 * @mr: a referenced ODP MR; [iova, iova + *len) checked against it
 * @iova: the MR address
 * @len: in: bytes wanted; out: trimmed to the page
 * @write: the access writes
 *
 * Never sleeps. Return: the address, with a page reference that
 * swr_odp_unmap() drops, or ERR_PTR(-EAGAIN) when the page is not mapped
 * (for writing, with @write): nothing is faulted in.
 */
void *swr_odp_map(struct swr_mr *mr, u64 iova, u64 *len, bool write);
void swr_odp_unmap(void *kaddr);

int swr_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		  u32 flags, struct ib_sge *sg_list, u32 num_sge,
		  struct uverbs_attr_bundle *attrs);

#endif /* SWR_ODP_H */
