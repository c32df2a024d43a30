// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue memory shared with user space.
 *
 * Memory and accounting
 * ---------------------
 * A user queue's ring is zeroed vmalloc memory charged to the memory
 * cgroup of the process that creates the queue (__GFP_ACCOUNT), so that a
 * process cannot pin more kernel memory in rings than its cgroup allows.
 * __GFP_RETRY_MAYFAIL makes a charge over the limit fail the verb with
 * ENOMEM instead of invoking the OOM killer, and __GFP_NOWARN keeps a
 * refusal out of the log (it is counted: ring_nomem).
 *
 * On top of that each user context may hold at most sdev->ring_bytes_max
 * bytes of rings (sysfs swroce/ring_bytes_max): beyond it the verb fails
 * with ENOMEM and ring_cap_refused counts it. The cap holds where no memory
 * cgroup limit is set.
 *
 * vmalloc_user() allocates with plain GFP_KERNEL, and the flag it sets,
 * VM_USERMAP, is what remap_vmalloc_range() requires; neither
 * __vmalloc_node_range() nor find_vm_area() is exported to modules (6.1,
 * 6.12). So a ring comes from __vmalloc() and swr_mmap() inserts its pages
 * itself, as remap_vmalloc_range() would.
 *
 * Mapping references
 * ------------------
 * Each ring is published to its ucontext as an rdma_user_mmap_entry, which
 * is reference counted (drivers/infiniband/core/ib_core_uverbs.c, the same
 * in 6.1 and 6.12): rdma_user_mmap_entry_insert() holds the first
 * reference, which the queue drops with rdma_user_mmap_entry_remove() when
 * it is destroyed; rdma_user_mmap_entry_get() in swr_mmap() takes another
 * one only for the duration of the mmap() call. A mapping holds no
 * reference on the entry (only rdma_user_mmap_io() mappings do, through
 * their rdma_umap_priv, and rings are not I/O memory): mmap_free runs as
 * soon as the queue is destroyed and no mmap() of the ring is in
 * progress, and from the removal on the ring's offset cannot be mapped. What keeps a ring
 * that is still mapped valid is the pages: vm_insert_page() takes a
 * reference on each page inserted, so vfree() leaves them to the last
 * unmap. A process that destroys a queue and keeps its ring mapped keeps
 * valid (if useless) memory, never freed pages.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "swr.h"
#include "swr_compat.h"

/* A user ring: charged, zeroed, and a refusal is quiet (see above). */
#define SWR_RING_GFP	(GFP_KERNEL_ACCOUNT | __GFP_ZERO | \
			 __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

struct swr_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
};

static struct swr_mmap_entry *to_swr_mmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct swr_mmap_entry, rdma);
}

/* Count @size bytes against @uctx's cap; -ENOMEM beyond it. */
static int swr_ring_charge(struct ib_ucontext *uctx, size_t size)
{
	struct swr_ucontext *uc = to_swr_ucontext(uctx);
	struct swr_dev *sdev = to_swr_dev(uctx->device);
	u64 max = READ_ONCE(sdev->ring_bytes_max);

	if (atomic64_add_return(size, &uc->ring_bytes) <= max)
		return 0;
	atomic64_sub(size, &uc->ring_bytes);
	swr_count(sdev, SWR_CNT_RING_CAP_REFUSED);
	ibdev_dbg(uctx->device, "ring of %zu bytes: context at its cap of %llu\n",
		  size, max);
	return -ENOMEM;
}

static void swr_ring_uncharge(struct ib_ucontext *uctx, size_t size)
{
	atomic64_sub(size, &to_swr_ucontext(uctx)->ring_bytes);
}

/**
 * swr_ring_alloc - allocate ring memory and publish it to a ucontext
 * @uctx: the owner; NULL for a kernel consumer's queue (no mapping)
 * @size: bytes; rounded up to whole pages
 * @entry: out: the mmap entry (NULL for kernel queues)
 *
 * Return: the zeroed memory, or an ERR_PTR: -ENOMEM when @uctx is at its
 * cap or its memory cgroup at its limit.
 */
void *swr_ring_alloc(struct ib_ucontext *uctx, size_t size,
		     struct rdma_user_mmap_entry **entry)
{
	struct swr_mmap_entry *e;
	int err;

	size = PAGE_ALIGN(size);
	*entry = NULL;
	if (!uctx) {
		void *vaddr = vzalloc(size);

		return vaddr ?: ERR_PTR(-ENOMEM);
	}

	err = swr_ring_charge(uctx, size);
	if (err)
		return ERR_PTR(err);
	e = kzalloc(sizeof(*e), SWR_RING_GFP);
	if (e)
		e->vaddr = __vmalloc(size, SWR_RING_GFP);
	if (!e || !e->vaddr) {
		swr_count(to_swr_dev(uctx->device), SWR_CNT_RING_NOMEM);
		ibdev_dbg(uctx->device, "ring of %zu bytes: no memory\n", size);
		err = -ENOMEM;
		goto err_free_entry;
	}
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, size);
	if (err)
		goto err_free_ring;
	*entry = &e->rdma;
	return e->vaddr;

err_free_ring:
	vfree(e->vaddr);
err_free_entry:
	kfree(e);
	swr_ring_uncharge(uctx, size);
	return ERR_PTR(err);
}

/**
 * swr_ring_free - the queue's side of swr_ring_alloc()
 * @vaddr: the memory
 * @entry: its mmap entry, or NULL for a kernel queue
 *
 * A published ring's memory is freed by swr_mmap_free(); see "Mapping
 * references" above for when.
 */
void swr_ring_free(void *vaddr, struct rdma_user_mmap_entry *entry)
{
	if (entry) {
		swr_ring_uncharge(entry->ucontext, entry->npages << PAGE_SHIFT);
		rdma_user_mmap_entry_remove(entry);
	} else {
		vfree(vaddr);
	}
}

/*
 * Insert the ring's pages into @vma, which rdma_user_mmap_entry_get() has
 * checked to be exactly the ring's size: remap_vmalloc_range()'s work.
 */
static int swr_mmap_pages(struct vm_area_struct *vma, void *vaddr)
{
	unsigned long off, size = vma->vm_end - vma->vm_start;
	int err;

	for (off = 0; off < size; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(vaddr + off));
		if (err)
			return err;
	}
	swr_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int swr_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int err;

	/* Also refuses a mapping that is not the whole ring. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry) {
		swr_count(to_swr_dev(uctx->device), SWR_CNT_MMAP_REFUSED);
		ibdev_dbg(uctx->device, "mmap: no ring at offset %#lx, %lu bytes\n",
			  vma->vm_pgoff << PAGE_SHIFT,
			  vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	err = swr_mmap_pages(vma, to_swr_mmap(entry)->vaddr);
	rdma_user_mmap_entry_put(entry);
	return err;
}

void swr_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct swr_mmap_entry *e = to_swr_mmap(entry);

	vfree(e->vaddr);
	kfree(e);
}
