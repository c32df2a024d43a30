// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging (ODP): user MRs whose pages are not pinned.
 *
 * An ODP MR (IB_ACCESS_ON_DEMAND) is an ib_umem_odp: the RDMA core keeps,
 * per page of the range, the page's address (dma_list; with virtual DMA
 * the kernel address of the page) and an mmu_interval_notifier that tells
 * us when the process's mapping of the range changes. Nothing is pinned
 * and nothing is charged to RLIMIT_MEMLOCK; "rdma res show mr" reports no
 * pinned pages. An implicit MR (address 0, length SIZE_MAX) covers the
 * registering process's address space, [0, TASK_SIZE): it is built of
 * children of SWR_ODP_CHILD_SIZE bytes each, made the first time a fault
 * needs them (at most SWR_ODP_MAX_CHILDREN), each an ib_umem_odp with its
 * own notifier.
 *
 * Access
 * ------
 * The engine copies through swr_mr_walk() (swr_mr.c) in the poller, in
 * softirq and under spinlocks. For an ODP MR each page-sized chunk is
 * mapped by swr_odp_map(), which never sleeps:
 *   1. under odp->lock, read the page's dma_list entry; if it is set (and
 *      allows writing, for a write), take a reference on the page;
 *   2. drop the lock, copy, put the page.
 * An entry that is not set is a miss: -EAGAIN, and nothing was touched.
 *
 * Invalidation (swr_odp_invalidate(), the notifier) runs before the core
 * mm changes or frees the pages of a range: under umem_mutex it clears
 * the range's entries with odp->lock held. So
 *   - after it returns no new access finds the old pages: the next one
 *     misses and faults the new ones in (munmap + mmap, MADV_DONTNEED,
 *     fork's COW: remote writes land in what the process maps now);
 *   - an access that took its page reference in step 1 before that keeps
 *     the page allocated until step 2 ends: the copy cannot reach freed
 *     memory. It lands in a page the process is dropping, as a CPU store
 *     racing munmap() would.
 * Entries are set only by ib_umem_odp_map_dma_and_lock() under umem_mutex
 * after mmu_interval_read_retry() said no invalidation ran meanwhile, and
 * invalidations take umem_mutex: an entry a reader sees set is a page the
 * range still maps. The entry is one aligned word: READ_ONCE() suffices.
 *
 * Faults
 * ------
 * Resolving a miss sleeps (hmm_range_fault() under mmap_lock), so it
 * happens only in process context, and only where waiting holds up
 * nobody but the MR's owner:
 *   - swr_mr_fault() where the engine may sleep (the requester, the local
 *     responder's copies, which run with no spinlock held, the READ
 *     responder's poller half): in the calling context when that is the
 *     MR's owner (a doorbell caller), else as swr_mr_fault_async(), and
 *     the engine comes back to the request after SWR_FAULT_WAIT_NS or at
 *     its next turn; never in the poller, which serves every QP of the
 *     device and must not wait for a fault a process can make slow (a
 *     FUSE or NFS mapping). advise_mr with IB_UVERBS_ADVISE_MR_FLAG_FLUSH
 *     faults in its caller;
 *   - swr_mr_fault_async(): from softirq or under a spinlock, the range
 *     goes to odp->work on swr_odp_wq. The wire responder answers the
 *     request with an RNR NAK meanwhile, as ODP hardware does; the
 *     requester's retry after the RNR timer finds the page. A UD datagram
 *     that misses cannot wait (its receive WQE is taken under the
 *     responder's spinlock): it completes with IB_WC_LOC_PROT_ERR, which
 *     is why UD receive is not in the ODP caps. One pending range
 *     per MR: a later miss elsewhere replaces it, and misses again if the
 *     work did not get to it.
 * A fault that fails (nothing mapped there, a read-only mapping for a
 * write, the process gone) fails the access: a synchronous one at once
 * (a remote access error), an asynchronous one is remembered in
 * odp->bad for SWR_ODP_BAD_TIME, so that the retry its RNR NAK asked for
 * fails with -EFAULT (NAK remote access error) instead of another RNR.
 *
 * Lock order: umem_mutex, then odp->lock (a spinlock, taken with _bh).
 */
#include <linux/hmm.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem_odp.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_mr.h"
#include "swr_odp.h"

/* Children of an implicit MR: 16 MiB each, 16 GiB of address space. */
#define SWR_ODP_CHILD_SHIFT	24
#define SWR_ODP_CHILD_SIZE	BIT_ULL(SWR_ODP_CHILD_SHIFT)
#define SWR_ODP_MAX_CHILDREN	1024
/* Bytes faulted per ib_umem_odp_map_dma_and_lock() call. */
#define SWR_ODP_FAULT_STEP	SZ_4M
/* How long a failed asynchronous fault fails the accesses it was for. */
#define SWR_ODP_BAD_TIME	HZ
/* Asynchronous advise_mr requests queued per device at most. */
#define SWR_ODP_MAX_ADVISE	64
/*
 * What the core allocates per page of an explicit ODP MR at registration
 * (ib_umem_odp_get(): a pfn_list and a dma_list entry), and the share of
 * the RAM one registration may have that way (swr_odp_too_big()).
 */
#define SWR_ODP_BYTES_PER_PAGE	(sizeof(unsigned long) + sizeof(dma_addr_t))
#define SWR_ODP_RAM_SHARE	8

struct swr_odp {
	struct swr_mr *mr;
	/* The core sets mr->ibmr.device only after registration. */
	struct ib_device *ibdev;
	/* Explicit: the range; implicit: the root, which maps nothing. */
	struct ib_umem_odp *umem;
	bool implicit;
	/* Explicit: the user address of the MR's first byte. */
	u64 start;
	/* Implicit: the registering process's mm (grabbed). */
	struct mm_struct *mm;
	/* Implicit: index va >> SWR_ODP_CHILD_SHIFT -> child ib_umem_odp. */
	struct xarray children;
	struct mutex child_mutex;	/* serialises making children */
	unsigned int nchildren;

	/*
	 * Protects the dma_list entries against readers (see above), and
	 * want_* and bad_* below.
	 */
	spinlock_t lock;
	struct work_struct work;
	u64 want_va, want_len;	/* the range odp->work is to fault */
	bool want_write;
	u64 bad_va, bad_len;	/* the last asynchronous fault that failed */
	unsigned long bad_at;	/* jiffies */
};

static struct workqueue_struct *swr_odp_wq;

int swr_odp_init(void)
{
	swr_odp_wq = alloc_workqueue("swr_odp", WQ_UNBOUND, 0);
	return swr_odp_wq ? 0 : -ENOMEM;
}

void swr_odp_exit(void)
{
	destroy_workqueue(swr_odp_wq);
}

/* Invalidation ----------------------------------------------------------- */

static bool swr_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ib_umem_odp *umem =
		container_of(mni, struct ib_umem_odp, notifier);
	struct swr_odp *odp = READ_ONCE(umem->private);
	u64 start, end;

	/* umem_mutex sleeps; the OOM reaper tries again later. */
	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(umem), range->start);
	end = min_t(u64, ib_umem_end(umem), range->end);
	/* Not yet ours: nothing has been mapped. */
	if (odp && start < end) {
		spin_lock_bh(&odp->lock);
		ib_umem_odp_unmap_dma_pages(umem, start, end);
		spin_unlock_bh(&odp->lock);
	}
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops swr_odp_mni_ops = {
	.invalidate = swr_odp_invalidate,
};

/* Translation ------------------------------------------------------------- */

/* The user address of byte @iova of @mr. */
static u64 swr_odp_va(const struct swr_mr *mr, u64 iova)
{
	return mr->odp->implicit ? iova : mr->odp->start + (iova - mr->iova);
}

/* The ib_umem_odp that maps @va, or NULL (an implicit MR's missing child). */
static struct ib_umem_odp *swr_odp_umem(struct swr_odp *odp, u64 va)
{
	if (!odp->implicit)
		return odp->umem;
	return xa_load(&odp->children, va >> SWR_ODP_CHILD_SHIFT);
}

void *swr_odp_map(struct swr_mr *mr, u64 iova, u64 *len, bool write)
{
	struct swr_odp *odp = mr->odp;
	u64 va = swr_odp_va(mr, iova);
	struct ib_umem_odp *umem;
	void *kaddr = NULL;
	dma_addr_t dma;
	size_t idx;

	umem = swr_odp_umem(odp, va);
	if (!umem)
		return ERR_PTR(-EAGAIN);
	idx = (va - ib_umem_start(umem)) >> umem->page_shift;

	spin_lock_bh(&odp->lock);
	dma = READ_ONCE(umem->dma_list[idx]);
	if (dma && (!write || (dma & ODP_WRITE_ALLOWED_BIT))) {
		kaddr = swr_virt_dma_to_ptr(dma & ODP_DMA_ADDR_MASK) +
			(va & (BIT_ULL(umem->page_shift) - 1));
		get_page(virt_to_page(kaddr));
	}
	spin_unlock_bh(&odp->lock);
	if (!kaddr)
		return ERR_PTR(-EAGAIN);
	*len = min_t(u64, *len, PAGE_SIZE - offset_in_page(va));
	return kaddr;
}

void swr_odp_unmap(void *kaddr)
{
	put_page(virt_to_page(kaddr));
}

/* Faults ------------------------------------------------------------------ */

/* The child of an implicit MR for @va, made if missing. */
static struct ib_umem_odp *swr_odp_child(struct swr_odp *odp, u64 va)
{
	unsigned long index = va >> SWR_ODP_CHILD_SHIFT;
	struct ib_umem_odp *child;
	int err;

	child = xa_load(&odp->children, index);
	if (child)
		return child;

	mutex_lock(&odp->child_mutex);
	child = xa_load(&odp->children, index);
	if (child)
		goto out_unlock;
	if (odp->nchildren >= SWR_ODP_MAX_CHILDREN) {
		child = ERR_PTR(-ENOSPC);
		goto out_unlock;
	}
	child = ib_umem_odp_alloc_child(odp->umem,
					(unsigned long)index << SWR_ODP_CHILD_SHIFT,
					SWR_ODP_CHILD_SIZE, &swr_odp_mni_ops);
	if (IS_ERR(child))
		goto out_unlock;
	WRITE_ONCE(child->private, odp);
	/* Readers find it only once it is complete: xa_store() orders. */
	err = xa_err(xa_store(&odp->children, index, child, GFP_KERNEL));
	if (err) {
		ib_umem_odp_release(child);
		child = ERR_PTR(err);
		goto out_unlock;
	}
	odp->nchildren++;
out_unlock:
	mutex_unlock(&odp->child_mutex);
	return child;
}

/* Fault [va, va + len) of one ib_umem_odp in (@fault false: map what is). */
static int swr_odp_fault_umem(struct ib_umem_odp *umem, u64 va, u64 len,
			      bool write, bool fault)
{
	u64 access = ODP_READ_ALLOWED_BIT;
	u64 n;
	int ret;

	if (write)
		access |= ODP_WRITE_ALLOWED_BIT;
	while (len) {
		n = min_t(u64, len, SWR_ODP_FAULT_STEP);
		ret = ib_umem_odp_map_dma_and_lock(umem, va, n, access, fault);
		if (ret < 0)
			return ret;
		mutex_unlock(&umem->umem_mutex);
		va += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

/* Fault user range [va, va + len) of @odp in, child by child. */
static int swr_odp_fault_va(struct swr_odp *odp, u64 va, u64 len, bool write,
			    bool fault)
{
	struct ib_umem_odp *umem;
	u64 n;
	int err;

	if (!odp->implicit)
		return swr_odp_fault_umem(odp->umem, va, len, write, fault);
	while (len) {
		n = min_t(u64, len, SWR_ODP_CHILD_SIZE -
			  (va & (SWR_ODP_CHILD_SIZE - 1)));
		umem = fault ? swr_odp_child(odp, va) : swr_odp_umem(odp, va);
		if (IS_ERR(umem))
			return PTR_ERR(umem);
		if (umem) {
			err = swr_odp_fault_umem(umem, va, n, write, fault);
			if (err)
				return err;
		}
		va += n;
		len -= n;
	}
	return 0;
}

/*
 * The MR range [iova, iova + len) in, for writing with @write. The caller
 * has checked the range against the MR (swr_mr_lookup()).
 */
static int swr_odp_fault(struct swr_mr *mr, u64 iova, u64 len, bool write,
			 bool fault)
{
	if (!len)
		return 0;
	return swr_odp_fault_va(mr->odp, swr_odp_va(mr, iova), len, write,
				fault);
}

/* Is all of [iova, iova + len) of @mr mapped (for writing)? Never sleeps. */
static bool swr_odp_present(struct swr_mr *mr, u64 iova, u64 len, bool write)
{
	void *kaddr;
	u64 n;

	while (len) {
		n = len;
		kaddr = swr_odp_map(mr, iova, &n, write);
		if (IS_ERR(kaddr))
			return false;
		swr_odp_unmap(kaddr);
		iova += n;
		len -= n;
	}
	return true;
}

int swr_mr_fault(struct swr_mr *mr, u64 iova, u64 len, bool write)
{
	int err;

	if (mr->kind != SWR_MR_ODP)
		return 0;
	/*
	 * Only the owner waits for its own memory. Elsewhere (the poller,
	 * which serves every QP of the device; another process) a fault the
	 * owner can make slow (a FUSE mapping) would hold others up.
	 */
	if (current->mm != mr->odp->umem->umem.owning_mm)
		return swr_odp_present(mr, iova, len, write) ? 0 :
		       swr_mr_fault_async(mr, iova, len, write);
	err = swr_odp_fault(mr, iova, len, write, true);
	if (err)
		ibdev_dbg(mr->odp->ibdev, "odp: mr %#x fault %#llx+%#llx: %d\n",
			  mr->mkey.key, iova, len, err);
	return err ? -EFAULT : 0;
}

static void swr_odp_work(struct work_struct *work)
{
	struct swr_odp *odp = container_of(work, struct swr_odp, work);
	struct swr_mr *mr = odp->mr;
	u64 va, len;
	bool write;
	int err;

	spin_lock_bh(&odp->lock);
	va = odp->want_va;
	len = odp->want_len;
	write = odp->want_write;
	odp->want_len = 0;
	spin_unlock_bh(&odp->lock);

	if (len) {
		err = swr_odp_fault(mr, va, len, write, true);
		if (err) {
			ibdev_dbg(mr->odp->ibdev,
				  "odp: mr %#x async fault %#llx+%#llx: %d\n",
				  mr->mkey.key, va, len, err);
			spin_lock_bh(&odp->lock);
			odp->bad_va = va;
			odp->bad_len = len;
			odp->bad_at = jiffies;
			spin_unlock_bh(&odp->lock);
		}
	}
	/* The reference swr_mr_fault_async() took for us. */
	swr_mr_put(mr);
}

int swr_mr_fault_async(struct swr_mr *mr, u64 iova, u64 len, bool write)
{
	struct swr_odp *odp = mr->odp;
	int err = -EAGAIN;

	if (mr->kind != SWR_MR_ODP)
		return -EAGAIN;
	/* Callers may ask ahead of the access: no further than the MR. */
	len = min_t(u64, len, mr->length - (iova - mr->iova));
	spin_lock_bh(&odp->lock);
	if (odp->bad_len && iova < odp->bad_va + odp->bad_len &&
	    odp->bad_va < iova + len) {
		odp->bad_len = 0;
		if (time_before(jiffies, odp->bad_at + SWR_ODP_BAD_TIME))
			err = -EFAULT;
	}
	if (err == -EAGAIN) {
		odp->want_write = write ||
			(odp->want_write && odp->want_len &&
			 odp->want_va == iova && odp->want_len == len);
		odp->want_va = iova;
		odp->want_len = len;
	}
	spin_unlock_bh(&odp->lock);
	if (err != -EAGAIN)
		return err;

	/* For the work; the caller holds one, so this cannot be the first. */
	refcount_inc(&mr->mkey.ref);
	if (!queue_work(swr_odp_wq, &odp->work))
		swr_mr_put(mr);
	return -EAGAIN;
}

/* Registration ------------------------------------------------------------ */

static struct swr_odp *swr_odp_alloc(struct swr_mr *mr)
{
	struct swr_odp *odp = kzalloc(sizeof(*odp), GFP_KERNEL);

	if (!odp)
		return NULL;
	odp->mr = mr;
	xa_init(&odp->children);
	mutex_init(&odp->child_mutex);
	spin_lock_init(&odp->lock);
	INIT_WORK(&odp->work, swr_odp_work);
	return odp;
}

/*
 * An explicit ODP MR pins nothing and is charged to nothing, but the core
 * allocates SWR_ODP_BYTES_PER_PAGE for every page of it when it is
 * registered (kvcalloc): the length a process asks for is a kernel
 * allocation of 1/256th of it. Under the uverbs fuzzer two such
 * registrations in a 2 GiB guest, tables of up to INT_MAX bytes each
 * (kvcalloc()'s own limit), kept both CPUs in the page allocator for
 * over a minute: soft lockups, an RCU stall. So an explicit ODP MR whose
 * arrays would exceed 1/SWR_ODP_RAM_SHARE of the RAM, or INT_MAX bytes,
 * is refused with -ENOMEM, as an allocation that could not be made. An
 * implicit MR covers any address space with arrays made as faults need
 * them.
 */
static bool swr_odp_too_big(u64 start, u64 length)
{
	u64 pages = (round_up(start + length, PAGE_SIZE) -
		     round_down(start, PAGE_SIZE)) >> PAGE_SHIFT;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	return pages > INT_MAX / SWR_ODP_BYTES_PER_PAGE ||
	       pages * SWR_ODP_BYTES_PER_PAGE > ram / SWR_ODP_RAM_SHARE;
}

int swr_odp_reg(struct ib_device *ibdev, struct swr_mr *mr, u64 start,
		u64 length, u64 iova, int access)
{
	struct swr_odp *odp;
	int err;

	odp = swr_odp_alloc(mr);
	if (!odp)
		return -ENOMEM;
	odp->ibdev = ibdev;
	if (!start && length == U64_MAX) {
		/* Implicit: the iova is the address, as the core asks. */
		if (iova || (access & IB_ACCESS_HUGETLB)) {
			err = -EINVAL;
			goto err_free;
		}
		odp->umem = ib_umem_odp_alloc_implicit(ibdev, access);
		if (IS_ERR(odp->umem)) {
			err = PTR_ERR(odp->umem);
			goto err_free;
		}
		odp->implicit = true;
		odp->mm = current->mm;
		mmgrab(odp->mm);
		mr->iova = 0;
		mr->length = TASK_SIZE;
	} else {
		/* The core checks only that start + length does not wrap. */
		if (start >= TASK_SIZE || length > TASK_SIZE - start) {
			err = -EINVAL;
			goto err_free;
		}
		if (swr_odp_too_big(start, length)) {
			err = -ENOMEM;
			goto err_free;
		}
		odp->umem = ib_umem_odp_get(ibdev, start, length, access,
					    &swr_odp_mni_ops);
		if (IS_ERR(odp->umem)) {
			err = PTR_ERR(odp->umem);
			goto err_free;
		}
		odp->start = start;
		mr->iova = iova;
		mr->length = length;
	}
	WRITE_ONCE(odp->umem->private, odp);
	mr->odp = odp;
	mr->page_shift = PAGE_SHIFT;
	return 0;

err_free:
	ibdev_dbg(ibdev, "reg_mr: odp %#llx+%#llx: %d\n", start, length, err);
	kfree(odp);
	return err;
}

/* After the last reference: no access, no work pending. */
void swr_odp_release(struct swr_mr *mr)
{
	struct swr_odp *odp = mr->odp;
	struct ib_umem_odp *child;
	unsigned long index;

	if (!odp)
		return;
	xa_for_each(&odp->children, index, child)
		ib_umem_odp_release(child);
	xa_destroy(&odp->children);
	ib_umem_odp_release(odp->umem);
	if (odp->mm)
		mmdrop(odp->mm);
	kfree(odp);
	mr->odp = NULL;
}

/* advise_mr -------------------------------------------------------------- */

struct swr_advise_work {
	struct work_struct work;
	struct swr_dev *sdev;
	bool write, fault;
	u32 num;
	struct swr_mr **mr;	/* referenced */
	u64 *iova;
	u32 *len;
};

/* Look up @num SGEs in @pd: only ODP MRs with the access advice needs. */
static int swr_advise_lookup(struct swr_dev *sdev, struct ib_pd *pd,
			     const struct ib_sge *sg, u32 num, bool write,
			     struct swr_mr **mr, u64 *iova, u32 *len)
{
	u32 i;

	for (i = 0; i < num; i++) {
		iova[i] = sg[i].addr;
		len[i] = sg[i].length;
		mr[i] = swr_mr_lookup(sdev, SWR_LKEY, sg[i].lkey, pd, 0,
				      write ? IB_ACCESS_LOCAL_WRITE : 0,
				      &iova[i], len[i]);
		if (!IS_ERR(mr[i]) && mr[i]->kind != SWR_MR_ODP) {
			swr_mr_put(mr[i]);
			mr[i] = ERR_PTR(-EINVAL);
		}
		if (IS_ERR(mr[i])) {
			ibdev_dbg(&sdev->ibdev,
				  "advise_mr: sge %u lkey %#x: %ld\n", i,
				  sg[i].lkey, PTR_ERR(mr[i]));
			/* -ENOENT, -EACCES (another PD, read-only), -EINVAL */
			return PTR_ERR(mr[i]) == -ERANGE ? -EINVAL :
							   (int)PTR_ERR(mr[i]);
		}
	}
	return 0;
}

static int swr_advise_run(struct swr_advise_work *aw)
{
	int err = 0;
	u32 i;

	for (i = 0; i < aw->num && !err; i++)
		err = swr_odp_fault(aw->mr[i], aw->iova[i], aw->len[i],
				    aw->write, aw->fault);
	return err ? -EFAULT : 0;
}

static void swr_advise_free(struct swr_advise_work *aw, u32 nmr)
{
	while (nmr--)
		swr_mr_put(aw->mr[nmr]);
	kvfree(aw->mr);
	kvfree(aw->iova);
	kvfree(aw->len);
	kfree(aw);
}

static void swr_advise_work(struct work_struct *work)
{
	struct swr_advise_work *aw =
		container_of(work, struct swr_advise_work, work);
	struct swr_dev *sdev = aw->sdev;

	/* Nobody waits for the answer: a prefetch is a hint. */
	swr_advise_run(aw);
	/* Before the MRs: their last reference may let the device go. */
	atomic_dec(&sdev->odp_advise);
	swr_advise_free(aw, aw->num);
}

int swr_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		  u32 flags, struct ib_sge *sg_list, u32 num_sge,
		  struct uverbs_attr_bundle *attrs)
{
	struct swr_dev *sdev = to_swr_dev(pd->device);
	struct swr_advise_work *aw;
	bool sync = flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH;
	int err;

	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	if (!num_sge || num_sge > SWR_ODP_MAX_ADVISE_SGE)
		return -EINVAL;
	aw = kzalloc(sizeof(*aw), GFP_KERNEL);
	if (!aw)
		return -ENOMEM;
	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
		aw->fault = true;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		aw->fault = true;
		aw->write = true;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		kfree(aw);
		return -EOPNOTSUPP;
	}
	aw->mr = kvcalloc(num_sge, sizeof(*aw->mr), GFP_KERNEL);
	aw->iova = kvcalloc(num_sge, sizeof(*aw->iova), GFP_KERNEL);
	aw->len = kvcalloc(num_sge, sizeof(*aw->len), GFP_KERNEL);
	if (!aw->mr || !aw->iova || !aw->len) {
		swr_advise_free(aw, 0);
		return -ENOMEM;
	}
	err = swr_advise_lookup(sdev, pd, sg_list, num_sge, aw->write, aw->mr,
				aw->iova, aw->len);
	if (err) {
		/* Entries before the failed one are referenced. */
		while (num_sge && IS_ERR_OR_NULL(aw->mr[num_sge - 1]))
			num_sge--;
		swr_advise_free(aw, num_sge);
		return err;
	}
	aw->num = num_sge;

	/* Too many queued already: this caller waits for its own. */
	if (!sync && atomic_inc_return(&sdev->odp_advise) > SWR_ODP_MAX_ADVISE) {
		atomic_dec(&sdev->odp_advise);
		sync = true;
	}
	if (sync) {
		err = swr_advise_run(aw);
		swr_advise_free(aw, aw->num);
		return err;
	}
	aw->sdev = sdev;
	INIT_WORK(&aw->work, swr_advise_work);
	queue_work(swr_odp_wq, &aw->work);
	return 0;
}
