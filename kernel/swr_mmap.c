// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue memory shared with user space.
 *
 * A ring is vmalloc_user() memory (zeroed, page aligned) published to one
 * ucontext as an rdma_user_mmap_entry. The entry owns the memory: the
 * queue that created it drops its reference with swr_mmap_remove() when
 * it is destroyed, every mapping holds one of its own, and the memory is
 * freed by mmap_free once the last of them is gone. So a process that
 * still has a ring mapped after destroying its queue keeps valid (if
 * useless) memory, never freed pages.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "swr.h"

struct swr_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
};

static struct swr_mmap_entry *to_swr_mmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct swr_mmap_entry, rdma);
}

/**
 * swr_ring_alloc - allocate ring memory and publish it to a ucontext
 * @uctx: the owner; NULL for a kernel consumer's queue (no mapping)
 * @size: bytes; rounded up to whole pages
 * @entry: out: the mmap entry (NULL for kernel queues)
 *
 * Return: the zeroed memory, or an ERR_PTR.
 */
void *swr_ring_alloc(struct ib_ucontext *uctx, size_t size,
		     struct rdma_user_mmap_entry **entry)
{
	struct swr_mmap_entry *e;
	void *vaddr;
	int err;

	size = PAGE_ALIGN(size);
	*entry = NULL;
	if (!uctx) {
		vaddr = vzalloc(size);
		return vaddr ?: ERR_PTR(-ENOMEM);
	}

	vaddr = vmalloc_user(size);
	if (!vaddr)
		return ERR_PTR(-ENOMEM);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		err = -ENOMEM;
		goto err_free_ring;
	}
	e->vaddr = vaddr;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, size);
	if (err)
		goto err_free_entry;
	*entry = &e->rdma;
	return vaddr;

err_free_entry:
	kfree(e);
err_free_ring:
	vfree(vaddr);
	return ERR_PTR(err);
}

/**
 * swr_ring_free - the queue's side of swr_ring_alloc()
 * @vaddr: the memory
 * @entry: its mmap entry, or NULL for a kernel queue
 *
 * A published ring stays allocated until its last mapping is gone.
 */
void swr_ring_free(void *vaddr, struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	else
		vfree(vaddr);
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
	err = remap_vmalloc_range(vma, to_swr_mmap(entry)->vaddr, 0);
	rdma_user_mmap_entry_put(entry);
	return err;
}

void swr_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct swr_mmap_entry *e = to_swr_mmap(entry);

	vfree(e->vaddr);
	kfree(e);
}
