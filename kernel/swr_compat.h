/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Differences between the kernel versions swroce builds against (Debian's
 * 6.1 and 6.12). Kbuild probes the headers for each feature and defines
 * SWR_HAVE_*; the rest of the driver calls only the shims below.
 */
#ifndef SWR_COMPAT_H
#define SWR_COMPAT_H

#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

/* get_unaligned_be64() and friends (asm/unaligned.h before 6.12). */
#ifdef SWR_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include "swr.h"

/*
 * The name given to "rdma link add" is the user's choice: the core must not
 * rename the device when it moves between network namespaces.
 */
static inline void swr_mark_name_assigned_by_user(struct ib_device *ibdev)
{
#ifdef SWR_HAVE_MARK_NAME_ASSIGNED_BY_USER
	ib_mark_name_assigned_by_user(ibdev);
#endif
}

/*
 * create_cq takes the uverbs attribute bundle on 6.12 (NULL from kernel
 * callers) and the driver udata on 6.1.
 */
#ifdef SWR_HAVE_CREATE_CQ_ATTRS
#include <rdma/uverbs_ioctl.h>

static inline int swr_create_cq_shim(struct ib_cq *ibcq,
				     const struct ib_cq_init_attr *attr,
				     struct uverbs_attr_bundle *attrs)
{
	return swr_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
static inline int swr_create_cq_shim(struct ib_cq *ibcq,
				     const struct ib_cq_init_attr *attr,
				     struct ib_udata *udata)
{
	return swr_create_cq(ibcq, attr, udata);
}
#endif

/*
 * In-place rereg of an MR's access flags: writable access needs pages that
 * were pinned writable. 6.12 has the core helper; 6.1 gets the same rule.
 */
static inline int swr_umem_check_rereg(struct ib_umem *umem, int flags,
				       int new_access)
{
#ifdef SWR_HAVE_UMEM_CHECK_REREG
	return ib_umem_check_rereg(umem, flags, new_access);
#else
	if (!umem)
		return 0;
	if ((flags & IB_MR_REREG_ACCESS) && !(flags & IB_MR_REREG_TRANS) &&
	    ib_access_writable(new_access) && !umem->writable)
		return -EACCES;
	return 0;
#endif
}

/* A kernel consumer's virt-DMA address (ib_uses_virt_dma()) as a pointer. */
static inline void *swr_virt_dma_to_ptr(u64 dma_addr)
{
#ifdef SWR_HAVE_VIRT_DMA_TO_PTR
	return ib_virt_dma_to_ptr(dma_addr);
#else
	return (void *)(uintptr_t)dma_addr;
#endif
}

/* Set VMA flags from an mmap handler (vm_flags_set() since 6.3). */
static inline void swr_vma_set_flags(struct vm_area_struct *vma,
				     unsigned long flags)
{
#ifdef SWR_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * A net_device that only owns NAPI contexts (swr_steer.c): 6.12 allocates
 * it with alloc_netdev_dummy(), 6.1 has the caller allocate it.
 */
static inline struct net_device *swr_alloc_dummy_netdev(void)
{
#ifdef SWR_HAVE_ALLOC_NETDEV_DUMMY
	return alloc_netdev_dummy(0);
#else
	struct net_device *ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);

	if (ndev)
		init_dummy_netdev(ndev);
	return ndev;
#endif
}

static inline void swr_free_dummy_netdev(struct net_device *ndev)
{
#ifdef SWR_HAVE_ALLOC_NETDEV_DUMMY
	free_netdev(ndev);
#else
	kfree(ndev);
#endif
}

#endif /* SWR_COMPAT_H */
