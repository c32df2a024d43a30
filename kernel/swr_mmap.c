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
 *
 * Rings in user memory
 * --------------------
 * A custom allocator of a parent domain gives the provider memory for a
 * ring, which the create command names (struct swroce_user_ring). The
 * kernel pins it with ib_umem_get() (charged to RLIMIT_MEMLOCK like an MR,
 * and to the context's ring cap like any ring), maps the pinned pages into
 * kernel virtual space with vmap() and runs the ring there exactly as it
 * runs one of its own vmalloc'd rings; the process writes it through its
 * own mapping of the same pages. There is no mmap entry. The pin, not the
 * process's mapping, keeps the pages: a process that unmaps or frees the
 * memory before it destroys the queue loses its view of the ring, and the
 * kernel writes into pages that are still its until vunmap() and
 * ib_umem_release() on destroy. The memory must be page aligned and
 * exactly the ring's size in whole pages (the sizes are the uAPI's), so
 * that the ring starts where the process expects it and no page is
 * pinned for nothing; hugetlbfs memory works as any other (the sg table
 * is walked page by page). The kernel zeroes the ring when it takes it,
 * as a fresh ring of its own is zero.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_umem.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_mr.h"

/* A user ring: charged, zeroed, and a refusal is quiet (see above). */
#define SWR_RING_GFP	(GFP_KERNEL_ACCOUNT | __GFP_ZERO | \
			 __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/*
 * A user queue's ring: either memory we allocated, published through
 * rdma, or the process's own memory pinned in umem and mapped at vaddr.
 */
struct swr_ring_mem {
	struct rdma_user_mmap_entry rdma;	/* not inserted when pinned */
	struct ib_umem *umem;		/* a ring in user memory, or NULL */
	struct ib_ucontext *uctx;
	size_t size;			/* whole pages */
	void *vaddr;
};

static struct swr_ring_mem *to_swr_ring_mem(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct swr_ring_mem, rdma);
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

/* vmalloc memory published as an mmap entry of @m->uctx. */
static int swr_ring_publish(struct swr_ring_mem *m)
{
	int err;

	m->vaddr = __vmalloc(m->size, SWR_RING_GFP);
	if (!m->vaddr) {
		swr_count(to_swr_dev(m->uctx->device), SWR_CNT_RING_NOMEM);
		ibdev_dbg(m->uctx->device, "ring of %zu bytes: no memory\n",
			  m->size);
		return -ENOMEM;
	}
	err = rdma_user_mmap_entry_insert(m->uctx, &m->rdma, m->size);
	if (err)
		vfree(m->vaddr);
	return err;
}

/* The process's memory @user, pinned and mapped at @m->vaddr. */
static int swr_ring_pin(struct swr_ring_mem *m,
			const struct swroce_user_ring *user)
{
	struct ib_device *ibdev = m->uctx->device;
	size_t npages = m->size >> PAGE_SHIFT;
	struct page **pages;
	int err;

	if (!PAGE_ALIGNED(user->addr) || user->length != m->size) {
		swr_count(to_swr_dev(ibdev), SWR_CNT_UDATA_REJECTED);
		ibdev_dbg(ibdev, "user ring at %#llx, %llu bytes: want page aligned, %zu bytes\n",
			  user->addr, user->length, m->size);
		return -EINVAL;
	}
	m->umem = ib_umem_get(ibdev, user->addr, m->size,
			      IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(m->umem)) {
		err = PTR_ERR(m->umem);
		ibdev_dbg(ibdev, "user ring at %#llx: pinning failed: %d\n",
			  user->addr, err);
		goto err_no_umem;
	}
	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	err = pages ? swr_umem_pages(m->umem, pages, npages) : -ENOMEM;
	if (!err) {
		m->vaddr = vmap(pages, npages, VM_MAP, PAGE_KERNEL);
		err = m->vaddr ? 0 : -ENOMEM;
	}
	kvfree(pages);
	if (err)
		goto err_release;
	memset(m->vaddr, 0, m->size);
	return 0;

err_release:
	ib_umem_release(m->umem);
err_no_umem:
	m->umem = NULL;
	return err;
}

/**
 * swr_ring_alloc - ring memory for a queue
 * @uctx: the owner; NULL for a kernel consumer's queue (no mapping)
 * @size: bytes; rounded up to whole pages
 * @user: the process's memory for the ring, or NULL for ours (mapped
 *	through an mmap entry)
 * @mem: out: the handle for swr_ring_free() (NULL for kernel queues)
 *
 * Return: the zeroed memory, or an ERR_PTR: -ENOMEM when @uctx is at its
 * cap or its memory cgroup at its limit; for @user, -EINVAL when it is
 * not page aligned or not exactly @size in whole pages, and what
 * ib_umem_get() returns.
 */
void *swr_ring_alloc(struct ib_ucontext *uctx, size_t size,
		     const struct swroce_user_ring *user,
		     struct swr_ring_mem **mem)
{
	struct swr_ring_mem *m;
	int err;

	size = PAGE_ALIGN(size);
	*mem = NULL;
	if (!uctx) {
		void *vaddr = vzalloc(size);

		return vaddr ?: ERR_PTR(-ENOMEM);
	}

	err = swr_ring_charge(uctx, size);
	if (err)
		return ERR_PTR(err);
	m = kzalloc(sizeof(*m), SWR_RING_GFP);
	if (!m) {
		swr_count(to_swr_dev(uctx->device), SWR_CNT_RING_NOMEM);
		err = -ENOMEM;
		goto err_uncharge;
	}
	m->uctx = uctx;
	m->size = size;
	err = user ? swr_ring_pin(m, user) : swr_ring_publish(m);
	if (err)
		goto err_free;
	*mem = m;
	return m->vaddr;

err_free:
	kfree(m);
err_uncharge:
	swr_ring_uncharge(uctx, size);
	return ERR_PTR(err);
}

/**
 * swr_ring_free - the queue's side of swr_ring_alloc()
 * @vaddr: the memory
 * @mem: its handle, or NULL for a kernel queue
 *
 * A published ring's memory is freed by swr_mmap_free(); see "Mapping
 * references" above for when. A pinned ring is unmapped and unpinned
 * here: the queue no longer uses it.
 */
void swr_ring_free(void *vaddr, struct swr_ring_mem *mem)
{
	if (!mem) {
		vfree(vaddr);
		return;
	}
	swr_ring_uncharge(mem->uctx, mem->size);
	if (mem->umem) {
		vunmap(mem->vaddr);
		ib_umem_release(mem->umem);
		kfree(mem);
	} else {
		rdma_user_mmap_entry_remove(&mem->rdma);
	}
}

/* Where the process maps the ring: 0 and 0 for one in its own memory. */
u64 swr_ring_mmap_offset(const struct swr_ring_mem *mem)
{
	return mem->umem ? 0 : rdma_user_mmap_get_offset(&mem->rdma);
}

u64 swr_ring_mmap_size(const struct swr_ring_mem *mem)
{
	return mem->umem ? 0 : mem->size;
}

/* The user context that owns the ring. */
struct ib_ucontext *swr_ring_ucontext(const struct swr_ring_mem *mem)
{
	return mem->uctx;
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
	err = swr_mmap_pages(vma, to_swr_ring_mem(entry)->vaddr);
	rdma_user_mmap_entry_put(entry);
	return err;
}

void swr_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct swr_ring_mem *m = to_swr_ring_mem(entry);

	vfree(m->vaddr);
	kfree(m);
}
