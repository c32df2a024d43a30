// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registration: user MRs, kernel DMA MRs and FRMRs, memory windows,
 * the key space they share, and the functions the engine reaches
 * registered memory through. swr_mr.h describes keys, lifetimes and locks.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_mr.h"
#include "swr_odp.h"
#include "swr_udata.h"

#define SWR_MAX_MKEY_INDEX	(SWR_MAX_MR + SWR_MAX_MW)

/*
 * Access flags of an MR. IB_ACCESS_HUGETLB and the optional range are
 * hints we have no use for (ODP takes HUGETLB as "the range is in huge
 * pages"); FLUSH is not offered, ODP only at registration (swr_odp.c), and
 * only MRs on device memory are zero-based (the core requires
 * IB_ZERO_BASED there).
 */
#define SWR_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_MW_BIND | IB_ACCESS_HUGETLB | \
			 IB_ACCESS_OPTIONAL)

/*
 * Access flags of a window. Local write means nothing for a window, but
 * applications pass it (rdma-core's own tests do), as they may to rxe.
 */
#define SWR_MW_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ZERO_BASED)

#define SWR_MR_REREG	(IB_MR_REREG_TRANS | IB_MR_REREG_PD | \
			 IB_MR_REREG_ACCESS)

void swr_mr_dev_init(struct swr_dev *sdev)
{
	xa_init_flags(&sdev->mkeys, XA_FLAGS_ALLOC1);
	sdev->mkey_next = 1;
	atomic_set(&sdev->num_mr, 0);
	atomic_set(&sdev->odp_advise, 0);
	atomic_set(&sdev->num_mw, 0);
}

void swr_mr_dev_cleanup(struct swr_dev *sdev)
{
	/* The core has destroyed every MR and MW before dealloc_driver. */
	xa_destroy(&sdev->mkeys);
}

/* [iova, iova + len) inside [start, start + size), without overflow. */
static bool swr_range_ok(u64 start, u64 size, u64 iova, u64 len)
{
	return iova >= start && iova - start <= size &&
	       len <= size - (iova - start);
}

/* Keys ---------------------------------------------------------------- */

/*
 * Reserve an index and compute the key; the object is not reachable
 * until swr_mkey_publish().
 */
static int swr_mkey_reserve(struct swr_dev *sdev, struct swr_mkey *mk,
			    enum swr_mkey_type type)
{
	u32 index;
	int err;

	mk->type = type;
	refcount_set(&mk->ref, 1);
	init_completion(&mk->released);

	err = xa_alloc_cyclic(&sdev->mkeys, &index, NULL,
			      XA_LIMIT(1, SWR_MAX_MKEY_INDEX), &sdev->mkey_next,
			      GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	/* The index makes the key unique; the byte makes it hard to guess. */
	mk->key = index << SWR_MKEY_INDEX_SHIFT | get_random_u8();
	return 0;
}

static u32 swr_mkey_index(u32 key)
{
	return key >> SWR_MKEY_INDEX_SHIFT;
}

/* Make a reserved key findable; the store orders the initialisation. */
static void swr_mkey_publish(struct swr_dev *sdev, struct swr_mkey *mk)
{
	xa_store(&sdev->mkeys, swr_mkey_index(mk->key), mk, GFP_KERNEL);
}

/* Find the object @key's index names, with a reference. */
static struct swr_mkey *swr_mkey_get(struct swr_dev *sdev, u32 key)
{
	struct swr_mkey *mk;

	rcu_read_lock();
	mk = xa_load(&sdev->mkeys, swr_mkey_index(key));
	if (mk && !refcount_inc_not_zero(&mk->ref))
		mk = NULL;
	rcu_read_unlock();
	return mk;
}

static void swr_mkey_put(struct swr_mkey *mk)
{
	if (refcount_dec_and_test(&mk->ref))
		complete(&mk->released);
}

/*
 * Unpublish the key and wait until nobody holds the object. The caller
 * frees it with kfree_rcu(): a lookup may still be looking at the refcount.
 */
static void swr_mkey_kill(struct swr_dev *sdev, struct swr_mkey *mk)
{
	xa_erase(&sdev->mkeys, swr_mkey_index(mk->key));
	swr_mkey_put(mk);
	wait_for_completion(&mk->released);
}

/* MR creation and destruction ----------------------------------------- */

static struct swr_mr *swr_mr_alloc(struct swr_dev *sdev, struct ib_pd *pd,
				   enum swr_mr_kind kind, int access)
{
	struct swr_mr *mr;
	int err;

	if (atomic_inc_return(&sdev->num_mr) > SWR_MAX_MR) {
		err = -ENOMEM;
		goto err_count;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_count;
	}
	err = swr_mkey_reserve(sdev, &mr->mkey, SWR_MKEY_MR);
	if (err)
		goto err_free;

	spin_lock_init(&mr->lock);
	mr->kind = kind;
	mr->pd = pd;
	mr->access = access;
	mr->state = SWR_MR_INVALID;
	mr->ibmr.lkey = mr->mkey.key;
	mr->ibmr.rkey = mr->mkey.key;
	return mr;

err_free:
	kfree(mr);
err_count:
	atomic_dec(&sdev->num_mr);
	return ERR_PTR(err);
}

/* Free an MR that is unpublished and unreferenced (or never published). */
static void swr_mr_free(struct swr_dev *sdev, struct swr_mr *mr)
{
	swr_odp_release(mr);
	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kvfree(mr->blocks);
	atomic_dec(&sdev->num_mr);
	kfree_rcu(mr, mkey.rcu);
}

/* Unpublished MR: release the reserved index, then free. */
static void swr_mr_abort(struct swr_dev *sdev, struct swr_mr *mr)
{
	xa_erase(&sdev->mkeys, swr_mkey_index(mr->mkey.key));
	swr_mr_free(sdev, mr);
}

/**
 * swr_umem_pages - the PAGE_SIZE pages of pinned user memory, in order
 * @umem: from ib_umem_get()
 * @pages: out: @npages pointers
 * @npages: ib_umem_num_pages(@umem)
 *
 * The sg table may coalesce pages (a huge page is one entry): walked page
 * by page. Return: 0, or -EFAULT when it holds fewer pages.
 */
int swr_umem_pages(struct ib_umem *umem, struct page **pages, size_t npages)
{
	struct sg_page_iter it;
	size_t i = 0;

	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (i == npages)
			break;
		pages[i++] = sg_page_iter_page(&it);
	}
	return i == npages ? 0 : -EFAULT;
}

/* The O(1) iova -> page table of a user MR: one pointer per page. */
static int swr_mr_fill_pages(struct swr_mr *mr)
{
	size_t npages = ib_umem_num_pages(mr->umem);
	int err;

	/*
	 * ib_umem_get() refuses more than UINT_MAX pages. The array scales
	 * with the user's request: charge it to the user's memory cgroup.
	 */
	mr->pages = kvmalloc_array(npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT);
	if (!mr->pages)
		return -ENOMEM;
	err = swr_umem_pages(mr->umem, mr->pages, npages);
	if (err)
		return err;
	mr->nblocks = npages;
	return 0;
}

static struct swr_mr *swr_mr_create_user(struct swr_dev *sdev,
					 struct ib_pd *pd, u64 start,
					 u64 length, u64 iova, int access)
{
	struct ib_device *ibdev = &sdev->ibdev;
	struct ib_umem *umem;
	struct swr_mr *mr;
	int err;

	/* The core has applied ib_check_mr_access() on both kernels. */
	if (access & ~SWR_MR_ACCESS) {
		ibdev_dbg(ibdev, "reg_mr: unsupported access %#x\n", access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* ib_umem_get() checks start + length; the iova is ours to check. */
	if (length > U64_MAX - iova) {
		ibdev_dbg(ibdev, "reg_mr: iova %#llx + length %#llx overflows\n",
			  iova, length);
		return ERR_PTR(-EINVAL);
	}

	mr = swr_mr_alloc(sdev, pd, SWR_MR_USER, access);
	if (IS_ERR(mr))
		return mr;

	/* Pins the pages and charges RLIMIT_MEMLOCK, as for any device. */
	umem = ib_umem_get(ibdev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		ibdev_dbg(ibdev, "reg_mr: ib_umem_get failed: %d\n", err);
		goto err_abort;
	}
	mr->umem = umem;

	err = swr_mr_fill_pages(mr);
	if (err)
		goto err_abort;

	mr->iova = iova;
	mr->length = length;
	mr->page_shift = PAGE_SHIFT;
	/* The core made start and iova share their offset in the page. */
	mr->offset = ib_umem_offset(umem);
	mr->state = SWR_MR_VALID;
	swr_mkey_publish(sdev, &mr->mkey);
	return mr;

err_abort:
	swr_mr_abort(sdev, mr);
	return ERR_PTR(err);
}

/* An on-demand paging MR: nothing pinned, pages found per access. */
static struct swr_mr *swr_mr_create_odp(struct swr_dev *sdev,
					struct ib_pd *pd, u64 start,
					u64 length, u64 iova, int access)
{
	struct swr_mr *mr;
	int err;

	access &= ~IB_ACCESS_ON_DEMAND;
	if (access & ~SWR_MR_ACCESS) {
		ibdev_dbg(&sdev->ibdev, "reg_mr: unsupported access %#x\n",
			  access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (length > U64_MAX - iova) {
		ibdev_dbg(&sdev->ibdev, "reg_mr: iova %#llx + length %#llx overflows\n",
			  iova, length);
		return ERR_PTR(-EINVAL);
	}
	mr = swr_mr_alloc(sdev, pd, SWR_MR_ODP, access);
	if (IS_ERR(mr))
		return mr;
	err = swr_odp_reg(&sdev->ibdev, mr, start, length, iova,
			  access | IB_ACCESS_ON_DEMAND);
	if (err) {
		swr_mr_abort(sdev, mr);
		return ERR_PTR(err);
	}
	mr->state = SWR_MR_VALID;
	swr_mkey_publish(sdev, &mr->mkey);
	return mr;
}

struct ib_mr *swr_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibpd->device);
	struct swr_mr *mr;

	if (udata && swr_udata_no_cmd(&sdev->ibdev, udata))
		return ERR_PTR(-EINVAL);
	if (access & IB_ACCESS_ON_DEMAND)
		mr = swr_mr_create_odp(sdev, ibpd, start, length, iova,
				       access);
	else
		mr = swr_mr_create_user(sdev, ibpd, start, length, iova,
					access);
	return IS_ERR(mr) ? ERR_CAST(mr) : &mr->ibmr;
}

/*
 * A new translation gets a new MR (the core swaps it in and destroys the
 * old one, so engine users of the old MR finish undisturbed); a new PD or
 * new access flags alone are changed in place and keep the keys.
 */
struct ib_mr *swr_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibmr->device);
	struct swr_mr *mr = to_swr_mr(ibmr);
	enum swr_mr_state old_state;
	struct swr_mr *new;
	int err;

	if (udata && swr_udata_no_cmd(&sdev->ibdev, udata))
		return ERR_PTR(-EINVAL);
	if (flags & ~SWR_MR_REREG)
		return ERR_PTR(-EOPNOTSUPP);
	if ((flags & IB_MR_REREG_ACCESS) && (access & ~SWR_MR_ACCESS)) {
		ibdev_dbg(&sdev->ibdev, "rereg_mr: unsupported access %#x\n",
			  access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (mr->kind != SWR_MR_USER)
		return ERR_PTR(-EINVAL);

	if (flags & IB_MR_REREG_TRANS) {
		if (!(flags & IB_MR_REREG_ACCESS))
			access = mr->access;
		/*
		 * The old MR is destroyed once the new one is in place; from
		 * here it grants nothing, and no window can bind to it, so
		 * that destruction cannot fail.
		 */
		spin_lock_bh(&mr->lock);
		if (mr->num_mw) {
			spin_unlock_bh(&mr->lock);
			ibdev_dbg(&sdev->ibdev, "rereg_mr: MR has bound MWs\n");
			return ERR_PTR(-EBUSY);
		}
		old_state = mr->state;
		mr->state = SWR_MR_INVALID;
		spin_unlock_bh(&mr->lock);

		new = swr_mr_create_user(sdev, ibpd, start, length, iova,
					 access);
		if (IS_ERR(new)) {
			spin_lock_bh(&mr->lock);
			mr->state = old_state;
			spin_unlock_bh(&mr->lock);
			return ERR_CAST(new);
		}
		return &new->ibmr;
	}

	/* Writable access needs pages pinned for writing. */
	err = swr_umem_check_rereg(mr->umem, flags, access);
	if (err) {
		ibdev_dbg(&sdev->ibdev, "rereg_mr: access %#x needs new pages\n",
			  access);
		return ERR_PTR(err);
	}

	spin_lock_bh(&mr->lock);
	if (mr->num_mw) {
		spin_unlock_bh(&mr->lock);
		ibdev_dbg(&sdev->ibdev, "rereg_mr: MR has bound MWs\n");
		return ERR_PTR(-EBUSY);
	}
	if (flags & IB_MR_REREG_PD)
		mr->pd = ibpd;
	if (flags & IB_MR_REREG_ACCESS)
		mr->access = access;
	spin_unlock_bh(&mr->lock);
	/* The core updates ibmr->pd and the PD use counts. */
	return NULL;
}

int swr_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibmr->device);
	struct swr_mr *mr = to_swr_mr(ibmr);

	spin_lock_bh(&mr->lock);
	if (mr->num_mw) {
		spin_unlock_bh(&mr->lock);
		ibdev_dbg(&sdev->ibdev, "dereg_mr: %u MWs still bound\n",
			  mr->num_mw);
		return -EBUSY;
	}
	mr->state = SWR_MR_INVALID;
	spin_unlock_bh(&mr->lock);

	/* Waits for engine users; the umem is released after them. */
	swr_mkey_kill(sdev, &mr->mkey);
	swr_mr_free(sdev, mr);
	return 0;
}

/*
 * An MR on device memory (swr_dm.c): zero-based, so the work requests
 * that use it name bytes [0, length), which are bytes [offset, offset +
 * length) of the DM. The core has checked the range against the DM and
 * required IB_ZERO_BASED, and holds the DM (ib_dm.usecnt) until the MR
 * is deregistered, so the kernel address stays valid.
 */
struct ib_mr *swr_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			    struct ib_dm_mr_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	struct swr_dev *sdev = to_swr_dev(ibpd->device);
	int access = attr->access_flags & ~IB_ZERO_BASED;
	struct swr_mr *mr;

	if (access & ~SWR_MR_ACCESS) {
		ibdev_dbg(&sdev->ibdev, "reg_dm_mr: unsupported access %#x\n",
			  attr->access_flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = swr_mr_alloc(sdev, ibpd, SWR_MR_DM, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->kaddr = to_swr_dm(ibdm)->vaddr + attr->offset;
	mr->iova = 0;
	mr->length = attr->length;
	mr->page_shift = PAGE_SHIFT;
	mr->state = SWR_MR_VALID;
	swr_mkey_publish(sdev, &mr->mkey);
	return &mr->ibmr;
}

/*
 * The kernel's "all of memory" MR (ib_alloc_pd() uses it for the PD's
 * local_dma_lkey). Our device has no dma_device, so with
 * CONFIG_INFINIBAND_VIRT_DMA the DMA addresses kernel consumers put in
 * their SGEs are kernel virtual addresses (ib_uses_virt_dma()).
 */
struct ib_mr *swr_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct swr_dev *sdev = to_swr_dev(ibpd->device);
	struct swr_mr *mr;

	if (!ib_uses_virt_dma(&sdev->ibdev))
		return ERR_PTR(-EOPNOTSUPP);
	mr = swr_mr_alloc(sdev, ibpd, SWR_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->state = SWR_MR_VALID;
	swr_mkey_publish(sdev, &mr->mkey);
	return &mr->ibmr;
}

struct ib_mr *swr_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct swr_dev *sdev = to_swr_dev(ibpd->device);
	struct swr_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > SWR_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = swr_mr_alloc(sdev, ibpd, SWR_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->blocks = kvcalloc(max_num_sg, sizeof(*mr->blocks), GFP_KERNEL);
	if (!mr->blocks) {
		swr_mr_abort(sdev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_blocks = max_num_sg;
	/* Usable once an IB_WR_REG_MR has registered it. */
	mr->state = SWR_MR_FREE;
	swr_mkey_publish(sdev, &mr->mkey);
	return &mr->ibmr;
}

static int swr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct swr_mr *mr = to_swr_mr(ibmr);

	if (mr->nblocks == mr->max_blocks)
		return -ENOMEM;
	mr->blocks[mr->nblocks++] = addr;
	return 0;
}

int swr_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct swr_mr *mr = to_swr_mr(ibmr);
	int n;

	/* ib_map_mr_sg() has set ibmr->page_size. */
	mr->nblocks = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, swr_set_page);
	mr->page_shift = ilog2(ibmr->page_size);
	/* ib_sg_to_pages() set ibmr->iova to the first mapped byte. */
	mr->offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

int swr_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key, int access)
{
	struct swr_mr *mr = to_swr_mr(ibmr);
	u64 mapped = ((u64)mr->nblocks << mr->page_shift) - mr->offset;
	int err = 0;

	if (mr->kind != SWR_MR_FAST || (access & ~SWR_MR_ACCESS))
		return -EINVAL;
	/* The consumer may have moved the iova (ib_map_mr_sg_zbva()). */
	if (ibmr->length > mapped || ibmr->length > U64_MAX - ibmr->iova)
		return -EINVAL;

	spin_lock_bh(&mr->lock);
	if (mr->state != SWR_MR_FREE || mr->pd != pd ||
	    ((key ^ mr->mkey.key) & ~SWR_MKEY_BYTE_MASK)) {
		err = -EINVAL;
	} else {
		mr->mkey.key = key;
		mr->access = access;
		mr->iova = ibmr->iova;
		mr->length = ibmr->length;
		mr->state = SWR_MR_VALID;
	}
	spin_unlock_bh(&mr->lock);
	return err;
}

/* Memory windows -------------------------------------------------------- */

int swr_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibmw->device);
	struct swr_mw *mw = to_swr_mw(ibmw);
	struct swr_mwin *win;
	int err;

	if (udata && swr_udata_no_cmd(&sdev->ibdev, udata))
		return -EINVAL;
	/* The core accepts only types 1 and 2. */
	if (atomic_inc_return(&sdev->num_mw) > SWR_MAX_MW) {
		err = -ENOMEM;
		goto err_count;
	}
	win = kzalloc(sizeof(*win), GFP_KERNEL);
	if (!win) {
		err = -ENOMEM;
		goto err_count;
	}
	err = swr_mkey_reserve(sdev, &win->mkey, SWR_MKEY_MW);
	if (err)
		goto err_free;

	spin_lock_init(&win->lock);
	win->type = ibmw->type;
	win->pd = ibmw->pd;
	/* A type 1 window is valid (unbound) from the start. */
	win->state = win->type == IB_MW_TYPE_2 ? SWR_MW_FREE : SWR_MW_VALID;
	ibmw->rkey = win->mkey.key;
	mw->win = win;
	swr_mkey_publish(sdev, &win->mkey);
	return 0;

err_free:
	kfree(win);
err_count:
	atomic_dec(&sdev->num_mw);
	return err;
}

/* Release the window's MR. Called with win->lock held. */
static void swr_mw_release_mr(struct swr_mwin *win)
{
	struct swr_mr *mr = win->mr;

	if (!mr)
		return;
	win->mr = NULL;
	spin_lock(&mr->lock);
	mr->num_mw--;
	spin_unlock(&mr->lock);
	swr_mkey_put(&mr->mkey);
}

int swr_dealloc_mw(struct ib_mw *ibmw)
{
	struct swr_dev *sdev = to_swr_dev(ibmw->device);
	struct swr_mwin *win = to_swr_mw(ibmw)->win;

	spin_lock_bh(&win->lock);
	win->state = SWR_MW_INVALID;
	swr_mw_release_mr(win);
	spin_unlock_bh(&win->lock);

	swr_mkey_kill(sdev, &win->mkey);
	atomic_dec(&sdev->num_mw);
	kfree_rcu(win, mkey.rcu);
	return 0;
}

/* IBTA bind rules; called with win->lock held. */
static int swr_mw_check_bind(struct swr_mwin *win, struct swr_mr *mr,
			     const struct swr_mw_bind_req *req,
			     struct ib_pd *pd)
{
	int err = 0;

	if (win->mkey.key != req->mw_rkey)
		return -EINVAL;
	if (win->type == IB_MW_TYPE_1) {
		if (win->state != SWR_MW_VALID)
			return -EINVAL;
		/* o10-36.2.2 */
		if (req->access & IB_ZERO_BASED)
			return -EINVAL;
	} else {
		/* o10-37.2.30 */
		if (win->state != SWR_MW_FREE)
			return -EINVAL;
		/* o10-37.2.40 */
		if (!mr)
			return -EINVAL;
	}
	/* C10-72 */
	if (win->pd != pd)
		return -EINVAL;
	if (!mr)
		return 0;

	spin_lock(&mr->lock);
	if (mr->state != SWR_MR_VALID || mr->kind == SWR_MR_DMA ||
	    mr->mkey.key != req->mr_lkey || mr->pd != pd)
		err = -EINVAL;
	/* C10-73 */
	else if (!(mr->access & IB_ACCESS_MW_BIND))
		err = -EINVAL;
	/* C10-74 */
	else if ((req->access &
		  (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
		 !(mr->access & IB_ACCESS_LOCAL_WRITE))
		err = -EINVAL;
	/* C10-75 */
	else if (!swr_range_ok(mr->iova, mr->length, req->addr, req->length))
		err = -EINVAL;
	else
		mr->num_mw++;	/* the binding below takes it */
	spin_unlock(&mr->lock);
	return err;
}

int swr_mw_bind(struct swr_dev *sdev, const struct swr_mw_bind_req *req,
		struct ib_pd *pd, u32 qpn)
{
	struct swr_mkey *mwk, *mrk = NULL;
	struct swr_mr *mr = NULL;
	struct swr_mwin *win;
	int err;

	if (req->access & ~SWR_MW_ACCESS)
		return -EOPNOTSUPP;

	mwk = swr_mkey_get(sdev, req->mw_rkey);
	if (!mwk)
		return -EINVAL;
	if (mwk->type != SWR_MKEY_MW) {
		err = -EINVAL;
		goto out_put_mw;
	}
	win = container_of(mwk, struct swr_mwin, mkey);

	if (req->length) {
		mrk = swr_mkey_get(sdev, req->mr_lkey);
		if (!mrk || mrk->type != SWR_MKEY_MR) {
			err = -EINVAL;
			goto out_put_mr;
		}
		mr = container_of(mrk, struct swr_mr, mkey);
	}

	spin_lock_bh(&win->lock);
	err = swr_mw_check_bind(win, mr, req, pd);
	if (!err) {
		swr_mw_release_mr(win);
		if (mr) {
			/* num_mw was raised by the check; now the reference */
			refcount_inc(&mr->mkey.ref);
			win->mr = mr;
		}
		win->mkey.key = (win->mkey.key & ~SWR_MKEY_BYTE_MASK) |
				(req->new_rkey & SWR_MKEY_BYTE_MASK);
		win->access = req->access;
		win->addr = req->addr;
		win->length = req->length;
		win->qpn = qpn;
		win->state = SWR_MW_VALID;
	}
	spin_unlock_bh(&win->lock);

out_put_mr:
	if (mrk)
		swr_mkey_put(mrk);
out_put_mw:
	swr_mkey_put(mwk);
	return err;
}

static int swr_mr_invalidate(struct swr_mr *mr, u32 key, struct ib_pd *pd)
{
	int err = 0;

	spin_lock_bh(&mr->lock);
	if (mr->kind != SWR_MR_FAST || mr->mkey.key != key || mr->pd != pd ||
	    mr->state == SWR_MR_INVALID || mr->num_mw)
		err = -EINVAL;
	else
		mr->state = SWR_MR_FREE;
	spin_unlock_bh(&mr->lock);
	return err;
}

static int swr_mw_invalidate(struct swr_mwin *win, u32 key, struct ib_pd *pd,
			     u32 qpn, bool remote)
{
	int err = 0;

	spin_lock_bh(&win->lock);
	/* o10-37.2.26: type 1 windows are not invalidated by work requests */
	if (win->type != IB_MW_TYPE_2 || win->mkey.key != key ||
	    win->state != SWR_MW_VALID || win->pd != pd ||
	    (remote && win->qpn != qpn)) {
		err = -EINVAL;
	} else {
		swr_mw_release_mr(win);
		win->access = 0;
		win->addr = 0;
		win->length = 0;
		win->state = SWR_MW_FREE;
	}
	spin_unlock_bh(&win->lock);
	return err;
}

int swr_key_invalidate(struct swr_dev *sdev, u32 key, struct ib_pd *pd,
		       u32 qpn, bool remote)
{
	struct swr_mkey *mk = swr_mkey_get(sdev, key);
	int err;

	if (!mk)
		return -EINVAL;
	if (mk->type == SWR_MKEY_MR)
		err = swr_mr_invalidate(container_of(mk, struct swr_mr, mkey),
					key, pd);
	else
		err = swr_mw_invalidate(container_of(mk, struct swr_mwin, mkey),
					key, pd, qpn, remote);
	swr_mkey_put(mk);
	return err;
}

/* Engine access ----------------------------------------------------------- */

static int swr_mr_check(struct swr_mr *mr, u32 key, struct ib_pd *pd,
			int access, u64 iova, u64 len)
{
	int err = 0;

	spin_lock_bh(&mr->lock);
	if (mr->mkey.key != key)
		err = -ENOENT;
	else if (mr->state != SWR_MR_VALID || mr->pd != pd ||
		 (mr->access & access) != access)
		err = -EACCES;
	else if (!swr_range_ok(mr->iova, mr->length, iova, len))
		err = -ERANGE;
	spin_unlock_bh(&mr->lock);
	return err;
}

/* The MR behind a bound window, referenced, and the address in it. */
static struct swr_mr *swr_mw_resolve(struct swr_mwin *win, u32 key,
				     struct ib_pd *pd, u32 qpn, int access,
				     u64 *iova, u64 len)
{
	struct swr_mr *mr = ERR_PTR(-EACCES);
	u64 start;

	spin_lock_bh(&win->lock);
	if (win->mkey.key != key) {
		mr = ERR_PTR(-ENOENT);
	} else if (win->state == SWR_MW_VALID && win->mr && win->pd == pd &&
		   (win->type != IB_MW_TYPE_2 || win->qpn == qpn) &&
		   (win->access & access) == access) {
		start = win->access & IB_ZERO_BASED ? 0 : win->addr;
		if (!swr_range_ok(start, win->length, *iova, len)) {
			mr = ERR_PTR(-ERANGE);
		} else {
			mr = win->mr;
			/* The window's own reference keeps it above zero. */
			refcount_inc(&mr->mkey.ref);
			*iova = *iova - start + win->addr;
		}
	}
	spin_unlock_bh(&win->lock);
	return mr;
}

struct swr_mr *swr_mr_lookup(struct swr_dev *sdev, enum swr_key_use use,
			     u32 key, struct ib_pd *pd, u32 qpn, int access,
			     u64 *iova, u64 len)
{
	struct swr_mkey *mk = swr_mkey_get(sdev, key);
	struct swr_mr *mr;
	int err;

	if (!mk)
		return ERR_PTR(-ENOENT);

	if (mk->type == SWR_MKEY_MR) {
		mr = container_of(mk, struct swr_mr, mkey);
		err = swr_mr_check(mr, key, pd, access, *iova, len);
		if (err) {
			swr_mkey_put(mk);
			return ERR_PTR(err);
		}
		return mr;	/* keeps the lookup's reference */
	}

	/* Windows have no lkey. */
	if (use == SWR_RKEY)
		mr = swr_mw_resolve(container_of(mk, struct swr_mwin, mkey),
				    key, pd, qpn, access, iova, len);
	else
		mr = ERR_PTR(-ENOENT);
	swr_mkey_put(mk);
	return mr;
}

void swr_mr_put(struct swr_mr *mr)
{
	swr_mkey_put(&mr->mkey);
}

/*
 * Map the part of [iova, iova + *len) that lies in one page and trim *len
 * to it. The caller has checked the range against the MR. Only an ODP MR
 * can fail (ERR_PTR(-EAGAIN): the page is not mapped, for @write).
 */
static void *swr_mr_map_chunk(struct swr_mr *mr, u64 iova, u64 *len,
			      bool write)
{
	u64 off = iova - mr->iova + mr->offset;
	u64 bsize, boff, addr;
	unsigned int poff;

	switch (mr->kind) {
	case SWR_MR_USER:
		poff = offset_in_page(off);
		*len = min_t(u64, *len, PAGE_SIZE - poff);
		return kmap_local_page(mr->pages[off >> PAGE_SHIFT]) + poff;
	case SWR_MR_FAST:
		bsize = 1ULL << mr->page_shift;
		boff = off & (bsize - 1);
		addr = mr->blocks[off >> mr->page_shift] + boff;
		*len = min3(*len, bsize - boff,
			    (u64)(PAGE_SIZE - offset_in_page(addr)));
		return swr_virt_dma_to_ptr(addr);
	case SWR_MR_DM:
		/* vmalloc memory: virtually contiguous, one chunk */
		return mr->kaddr + off;
	case SWR_MR_ODP:
		return swr_odp_map(mr, iova, len, write);
	case SWR_MR_DMA:
	default:
		*len = min_t(u64, *len, PAGE_SIZE - offset_in_page(iova));
		return swr_virt_dma_to_ptr(iova);
	}
}

static void swr_mr_unmap_chunk(struct swr_mr *mr, void *kaddr)
{
	if (mr->kind == SWR_MR_USER)
		kunmap_local(kaddr);
	else if (mr->kind == SWR_MR_ODP)
		swr_odp_unmap(kaddr);
}

static int swr_mr_walk_dir(struct swr_mr *mr, u64 iova, u64 len, bool write,
			   swr_mr_chunk_fn fn, void *ctx)
{
	void *kaddr;
	u64 n;
	int err;

	if (!swr_range_ok(mr->iova, mr->length, iova, len))
		return -ERANGE;
	while (len) {
		n = len;
		kaddr = swr_mr_map_chunk(mr, iova, &n, write);
		if (IS_ERR(kaddr))
			return PTR_ERR(kaddr);
		err = fn(kaddr, n, ctx);
		swr_mr_unmap_chunk(mr, kaddr);
		if (err)
			return err;
		iova += n;
		len -= n;
	}
	return 0;
}

int swr_mr_walk(struct swr_mr *mr, u64 iova, u64 len, swr_mr_chunk_fn fn,
		void *ctx)
{
	return swr_mr_walk_dir(mr, iova, len, false, fn, ctx);
}

struct swr_copy_ctx {
	u8 *buf;
	enum swr_copy_dir dir;
};

static int swr_copy_chunk(void *kaddr, size_t len, void *ctx)
{
	struct swr_copy_ctx *c = ctx;

	if (c->dir == SWR_COPY_TO_MR)
		memcpy(kaddr, c->buf, len);
	else
		memcpy(c->buf, kaddr, len);
	c->buf += len;
	return 0;
}

int swr_mr_copy(struct swr_mr *mr, u64 iova, void *buf, u64 len,
		enum swr_copy_dir dir)
{
	struct swr_copy_ctx c = { .buf = buf, .dir = dir };

	return swr_mr_walk_dir(mr, iova, len, dir == SWR_COPY_TO_MR,
			       swr_copy_chunk, &c);
}

/* Tries of a fault and a copy: another invalidation may come in between. */
#define SWR_MR_FAULT_TRIES	4

int swr_mr_copy_fault(struct swr_mr *mr, u64 iova, void *buf, u64 len,
		      enum swr_copy_dir dir)
{
	int err, tries = 0;

	might_sleep();
	for (;;) {
		err = swr_mr_copy(mr, iova, buf, len, dir);
		if (err != -EAGAIN || tries++ == SWR_MR_FAULT_TRIES)
			return err == -EAGAIN ? -EFAULT : err;
		err = swr_mr_fault(mr, iova, len, dir == SWR_COPY_TO_MR);
		if (err)
			return err;
	}
}

int swr_mr_atomic(struct swr_mr *mr, u64 iova, enum swr_atomic_kind kind,
		  u64 compare, u64 value, u64 *orig)
{
	u64 n = sizeof(u64);
	atomic64_t *p;

	if (!IS_ALIGNED(iova, sizeof(u64)))
		return -EINVAL;
	if (!swr_range_ok(mr->iova, mr->length, iova, sizeof(u64)))
		return -ERANGE;
	p = swr_mr_map_chunk(mr, iova, &n, true);
	if (IS_ERR(p))
		return PTR_ERR(p);
	/* A zero-based FRMR may place an aligned iova at an odd address. */
	if (n < sizeof(u64) || !IS_ALIGNED((uintptr_t)p, sizeof(u64))) {
		swr_mr_unmap_chunk(mr, p);
		return -EINVAL;
	}
	switch (kind) {
	case SWR_ATOMIC_CMP_SWAP:
		*orig = atomic64_cmpxchg(p, compare, value);
		break;
	case SWR_ATOMIC_FETCH_ADD:
		*orig = atomic64_fetch_add(value, p);
		break;
	default:
		atomic64_set(p, value);
		*orig = 0;
		break;
	}
	swr_mr_unmap_chunk(mr, p);
	return 0;
}
