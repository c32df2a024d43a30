/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory regions, memory windows and their keys.
 *
 * Keys
 * ----
 * MRs and MWs share one key space per device: sdev->mkeys maps a key's
 * index (key >> 8) to the struct swr_mkey embedded in the object. Indexes
 * are allocated cyclically, so a freed index is reused as late as
 * possible; the low byte of each new key is random (get_random_u8(), as
 * rxe does), so neither a stale key at a reused index nor the key of
 * another process's next MR can be predicted from the keys a process
 * has seen: the full 32-bit comparison tells a stale key from the new one
 * whenever the byte differs (255 times in 256). The index alone keeps keys
 * unique in sdev->mkeys. An MR's lkey and rkey are the same number. Kernel FRMRs and
 * bound MWs change only the low byte (ib_update_fast_reg_key(), bind).
 *
 * Lifetime
 * --------
 * A struct swr_mkey is reference-counted. The verbs object holds the first
 * reference; the engine takes one per lookup (under RCU, with
 * refcount_inc_not_zero()) and drops it with swr_mr_put(); a bound MW
 * holds one on its MR. Destruction removes the key from sdev->mkeys, drops
 * the first reference, waits for the last one (mkey.released) and frees
 * the memory after an RCU grace period, so a lookup that raced with the
 * removal touches only a zero refcount. The core frees struct ib_mw as soon
 * as dealloc_mw returns, so the part of an MW that lookups reach is a
 * separate allocation, struct swr_mwin.
 *
 * An MR with bound MWs cannot be deregistered, reregistered or invalidated
 * (EBUSY / EINVAL), so the reference a window holds never blocks dereg.
 *
 * Lock order (outermost first)
 * ----------------------------
 *   swr_mwin.lock
 *   swr_mr.lock
 * Both are taken with spin_lock_bh(): the engine may run in softirq.
 */
#ifndef SWR_MR_H
#define SWR_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

struct swr_dev;

/* Key = index << 8 | key byte; index 0 is never allocated. */
#define SWR_MKEY_INDEX_SHIFT	8
#define SWR_MKEY_BYTE_MASK	0xffU

/* Pages (blocks) of one kernel FRMR, as rxe offers. */
#define SWR_MAX_FAST_REG_PAGES	512

enum swr_mkey_type {
	SWR_MKEY_MR,
	SWR_MKEY_MW,
};

/* What sdev->mkeys points to: the common head of an MR and an MW window. */
struct swr_mkey {
	/*
	 * The current key (lkey = rkey). The index part never changes; the
	 * low byte changes under the owner's lock (FRMR registration, MW
	 * bind), and lookups compare it under that lock.
	 */
	u32 key;
	enum swr_mkey_type type;
	refcount_t ref;
	/* Completed when the last reference is dropped. */
	struct completion released;
	struct rcu_head rcu;
};

enum swr_mr_kind {
	SWR_MR_USER,	/* pinned user memory, PAGE_SIZE pages */
	SWR_MR_FAST,	/* kernel FRMR: kernel-virtual blocks of page_size */
	SWR_MR_DMA,	/* kernel DMA MR: iova is a kernel virtual address */
	SWR_MR_DM,	/* on device memory: zero-based, kaddr below */
	SWR_MR_ODP,	/* on-demand paging user memory (swr_odp.c) */
};

enum swr_mr_state {
	SWR_MR_INVALID,	/* being destroyed or reregistered: no access */
	SWR_MR_FREE,	/* FRMR not registered, or locally invalidated */
	SWR_MR_VALID,
};

struct swr_mr {
	struct ib_mr ibmr;
	struct swr_mkey mkey;
	enum swr_mr_kind kind;

	/*
	 * Protects state, pd, access, iova, length and num_mw, and for
	 * FRMRs the key byte in mkey.key. The translation below is written
	 * at creation, and for FRMRs by map_mr_sg(), which kernel consumers
	 * call only on an MR they have not registered or have invalidated.
	 */
	spinlock_t lock;
	enum swr_mr_state state;
	/* Our own copy: the core writes ibmr.pd after rereg returns. */
	struct ib_pd *pd;
	int access;
	u64 iova;
	u64 length;
	/* MWs bound to this MR; each holds a reference on mkey. */
	unsigned int num_mw;

	/*
	 * Translation: byte @iova of the MR is byte (iova - self.iova +
	 * offset) of the concatenated blocks of (1 << page_shift) bytes.
	 */
	unsigned int page_shift;
	u64 offset;
	u32 nblocks;		/* blocks in use */
	u32 max_blocks;		/* FRMR: capacity of blocks[] */
	struct ib_umem *umem;	/* SWR_MR_USER */
	struct page **pages;	/* SWR_MR_USER: one per PAGE_SIZE page */
	u64 *blocks;		/* SWR_MR_FAST: virt-DMA address per block */
	void *kaddr;		/* SWR_MR_DM: kernel address of iova 0 */
	struct swr_odp *odp;	/* SWR_MR_ODP */
};

/*
 * Device memory (swr_dm.c): SWR_DM_MAX bytes at most per DM, and per user
 * context in all (max_dm_size).
 */
#define SWR_DM_MAX	SZ_1M

struct swr_dm {
	struct ib_dm ibdm;
	void *vaddr;		/* vmalloc memory, mapped by the owner */
	size_t size;		/* bytes allocated: whole pages */
	struct swr_ring_mem *mem;	/* its mapping (swr_mmap.c) */
};

static inline struct swr_dm *to_swr_dm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct swr_dm, ibdm);
}

enum swr_mw_state {
	SWR_MW_INVALID,	/* deallocated */
	SWR_MW_FREE,	/* type 2: not bound */
	SWR_MW_VALID,	/* type 1: always (bound or not); type 2: bound */
};

/* The part of an MW that rkey lookups reach; outlives the ib_mw by RCU. */
struct swr_mwin {
	struct swr_mkey mkey;
	enum ib_mw_type type;
	/* The MW's PD; valid while the MW exists, which lookups ensure. */
	struct ib_pd *pd;

	/* Protects everything below and the key byte in mkey.key. */
	spinlock_t lock;
	enum swr_mw_state state;
	struct swr_mr *mr;	/* bound MR, referenced; NULL when unbound */
	u32 qpn;		/* type 2: the QP it was bound through */
	int access;
	u64 addr;		/* MR iova where the window starts */
	u64 length;
};

struct swr_mw {
	struct ib_mw ibmw;
	struct swr_mwin *win;
};

static inline struct swr_mr *to_swr_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct swr_mr, ibmr);
}

static inline struct swr_mw *to_swr_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct swr_mw, ibmw);
}

/* swr_dm.c: ib_device_ops and the driver's DM methods */
struct ib_dm *swr_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *uctx,
			   struct ib_dm_alloc_attr *attr,
			   struct uverbs_attr_bundle *attrs);
int swr_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition swr_dm_uapi_defs[];

/* Device setup and teardown (swr_main.c). */
int swr_umem_pages(struct ib_umem *umem, struct page **pages, size_t npages);
void swr_mr_dev_init(struct swr_dev *sdev);
void swr_mr_dev_cleanup(struct swr_dev *sdev);

/* ib_device_ops */
struct ib_mr *swr_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *swr_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *swr_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *ibpd, struct ib_udata *udata);
int swr_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *swr_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int swr_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
struct ib_mr *swr_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			    struct ib_dm_mr_attr *attr,
			    struct uverbs_attr_bundle *attrs);
int swr_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int swr_dealloc_mw(struct ib_mw *ibmw);

/*
 * Engine-facing API. None of these sleeps unless it says so; the others
 * may be called from process or softirq context.
 *
 * An ODP MR's page that is not mapped makes swr_mr_copy(), swr_mr_walk()
 * and swr_mr_atomic() fail with -EAGAIN, having faulted nothing in: the
 * caller faults the range in with swr_mr_fault() where it may sleep, or
 * has swr_mr_fault_async() do it and retries later (swr_odp.c).
 */

/** enum swr_key_use - how a work request names memory */
enum swr_key_use {
	SWR_LKEY,	/* local access: an MR's lkey */
	SWR_RKEY,	/* remote access: an MR's rkey or a bound MW's rkey */
};

/**
 * swr_mr_lookup() - find the MR a key grants access through
 * @sdev: the device
 * @use: SWR_LKEY for a local SGE, SWR_RKEY for an incoming RDMA/atomic
 * @key: the lkey or rkey from the wire or the work request
 * @pd: the PD of the QP doing the access; must be the MR's (or MW's) PD
 * @qpn: the QP number doing the access (type 2 MWs are bound to one QP)
 * @access: IB_ACCESS_* the access needs: 0 for a local read,
 *	IB_ACCESS_LOCAL_WRITE for a local write, IB_ACCESS_REMOTE_READ /
 *	_WRITE / _ATOMIC for remote operations
 * @iova: in: the address as the requester gave it; out: the address in
 *	the returned MR (differs for a zero-based MW)
 * @len: bytes to access; [iova, iova + len) must lie inside the MR or MW
 *	without overflow
 *
 * Return: the MR, with a reference the caller drops with swr_mr_put(), or
 * ERR_PTR(-ENOENT) for an unknown or stale key, ERR_PTR(-EACCES) for a PD,
 * access-flag, QP or state mismatch, ERR_PTR(-ERANGE) when the range does
 * not fit.
 */
struct swr_mr *swr_mr_lookup(struct swr_dev *sdev, enum swr_key_use use,
			     u32 key, struct ib_pd *pd, u32 qpn, int access,
			     u64 *iova, u64 len);

/**
 * swr_mr_put() - drop a reference taken by swr_mr_lookup()
 * @mr: the MR
 */
void swr_mr_put(struct swr_mr *mr);

/**
 * swr_mr_fault() - map an ODP MR's range, faulting it in; may sleep
 * @mr: a referenced MR; nothing happens for MRs of other kinds
 * @iova: the first MR address; [iova, iova + len) checked against the MR
 * @len: bytes
 * @write: map for writing
 *
 * Only the MR's owner faults synchronously; any other context gets the
 * work item of swr_mr_fault_async() and -EAGAIN (retry later).
 *
 * Return: 0, -EAGAIN, or -EFAULT when the process cannot provide the
 * pages.
 */
int swr_mr_fault(struct swr_mr *mr, u64 iova, u64 len, bool write);

/**
 * swr_mr_fault_async() - have an ODP MR's range faulted in, in a work item
 * @mr: a referenced ODP MR
 * @iova: the first MR address; [iova, iova + len) checked against the MR
 * @len: bytes
 * @write: map for writing
 *
 * Never sleeps. Return: -EAGAIN (retry later), or -EFAULT when a recent
 * asynchronous fault of an overlapping range failed: the access fails.
 */
int swr_mr_fault_async(struct swr_mr *mr, u64 iova, u64 len, bool write);

/** enum swr_copy_dir - direction of swr_mr_copy() */
enum swr_copy_dir {
	SWR_COPY_TO_MR,		/* kernel buffer -> MR */
	SWR_COPY_FROM_MR,	/* MR -> kernel buffer */
};

/**
 * swr_mr_copy() - copy between an MR range and a kernel buffer
 * @mr: a referenced MR (from swr_mr_lookup())
 * @iova: the first MR address
 * @buf: the kernel buffer
 * @len: bytes to copy
 * @dir: SWR_COPY_TO_MR or SWR_COPY_FROM_MR
 *
 * Return: 0, -ERANGE when [iova, iova + len) is not inside the MR, or
 * -EAGAIN for an ODP page that is not mapped.
 */
int swr_mr_copy(struct swr_mr *mr, u64 iova, void *buf, u64 len,
		enum swr_copy_dir dir);

/**
 * swr_mr_copy_fault() - swr_mr_copy() that faults ODP pages in; may sleep
 * @mr: a referenced MR
 * @iova: the first MR address
 * @buf: the kernel buffer
 * @len: bytes to copy
 * @dir: SWR_COPY_TO_MR or SWR_COPY_FROM_MR
 *
 * Return: 0, -ERANGE, -EAGAIN (a work item faults the pages in: retry
 * later; see swr_mr_fault()), or -EFAULT when the pages cannot be had.
 */
int swr_mr_copy_fault(struct swr_mr *mr, u64 iova, void *buf, u64 len,
		      enum swr_copy_dir dir);

/**
 * typedef swr_mr_chunk_fn - called by swr_mr_walk()
 * @kaddr: kernel address of the chunk, mapped only for this call
 * @len: bytes at @kaddr; a chunk never crosses a page
 * @ctx: the caller's context
 *
 * Return: 0 to continue, anything else to stop the walk with that value.
 */
typedef int (*swr_mr_chunk_fn)(void *kaddr, size_t len, void *ctx);

/**
 * swr_mr_walk() - walk an MR range page by page
 * @mr: a referenced MR
 * @iova: the first MR address
 * @len: bytes to walk
 * @fn: called for each chunk, in address order
 * @ctx: passed to @fn
 *
 * An MR-to-MR copy walks the source and calls swr_mr_copy(dst, ...,
 * SWR_COPY_TO_MR) from @fn, with no bounce buffer.
 *
 * Return: 0, -ERANGE for a range outside the MR, -EAGAIN for an ODP page
 * that is not mapped, or what @fn returned.
 */
int swr_mr_walk(struct swr_mr *mr, u64 iova, u64 len, swr_mr_chunk_fn fn,
		void *ctx);

/* What swr_mr_atomic() does to the target word. */
enum swr_atomic_kind {
	SWR_ATOMIC_CMP_SWAP,	/* if (*p == @compare) *p = @value */
	SWR_ATOMIC_FETCH_ADD,	/* *p += @value */
	SWR_ATOMIC_WRITE,	/* *p = @value (IBTA 1.5 ATOMIC_WRITE) */
};

/**
 * swr_mr_atomic() - execute one 8-byte atomic operation on an MR's memory
 * @mr: a referenced MR, looked up with the access the operation needs
 * @iova: the target address; must be 8-byte aligned
 * @kind: the operation
 * @compare: the compare operand of SWR_ATOMIC_CMP_SWAP, else unused
 * @value: the swap, add or write operand
 * @orig: set to the word's value before the operation (0 for a write)
 *
 * The word is updated with a locked instruction, because user space may
 * access it at the same time. The local and the wire responder both come
 * here, so that both execute atomics the same way.
 *
 * Return: 0, -EINVAL when the address is misaligned (an invalid request),
 * -ERANGE when it lies outside the MR, -EAGAIN for an ODP page that is not
 * mapped for writing.
 */
int swr_mr_atomic(struct swr_mr *mr, u64 iova, enum swr_atomic_kind kind,
		  u64 compare, u64 value, u64 *orig);

/**
 * swr_mr_fast_reg() - execute an IB_WR_REG_MR work request
 * @ibmr: the FRMR, mapped with ib_map_mr_sg()
 * @pd: the PD of the posting QP; must be the MR's
 * @key: the new lkey/rkey; only its low byte may differ from the MR's
 * @access: IB_ACCESS_* for the registration
 *
 * The MR must be in the FREE state (just allocated, or invalidated).
 *
 * Return: 0 or -EINVAL.
 */
int swr_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key, int access);

/**
 * swr_key_invalidate() - LOCAL_INV, or the invalidation of SEND_WITH_INV
 * @sdev: the device
 * @key: an FRMR's key or a type 2 MW's rkey
 * @pd: the PD of the QP executing the invalidation
 * @qpn: that QP's number
 * @remote: true for SEND_WITH_INV (only MWs bound through @qpn, and FRMRs)
 *
 * Moves an FRMR to FREE (refused while MWs are bound to it) or unbinds a
 * type 2 MW. Type 1 MWs and user MRs cannot be invalidated this way.
 *
 * Return: 0 or -EINVAL.
 */
int swr_key_invalidate(struct swr_dev *sdev, u32 key, struct ib_pd *pd,
		       u32 qpn, bool remote);

/**
 * struct swr_mw_bind_req - a bind request, from ibv_bind_mw() (type 1) or
 * an IBV_WR_BIND_MW work request (type 2)
 * @mw_rkey: the MW's current rkey
 * @new_rkey: the rkey after the bind; only its low byte is used
 * @mr_lkey: the MR to bind to (ignored when @length is 0)
 * @addr: MR address where the window starts
 * @length: window length; 0 unbinds a type 1 MW
 * @access: IB_ACCESS_REMOTE_* and IB_ZERO_BASED
 */
struct swr_mw_bind_req {
	u32 mw_rkey;
	u32 new_rkey;
	u32 mr_lkey;
	u64 addr;
	u64 length;
	int access;
};

/**
 * swr_mw_bind() - bind (or, type 1 with length 0, unbind) a memory window
 * @sdev: the device
 * @req: the request
 * @pd: the PD of the posting QP
 * @qpn: the posting QP's number
 *
 * Applies the IBTA rules: the MW's and MR's PD are the QP's (C10-72),
 * the MR allows binding (C10-73) and local write if the window grants
 * remote write or atomics (C10-74), the window lies inside the MR
 * (C10-75); type 1 windows cannot be zero-based (o10-36.2.2); type 2
 * windows must be free (o10-37.2.30) and get a non-empty range
 * (o10-37.2.40).
 *
 * Return: 0, -EINVAL for a rule violation or unknown key, -EOPNOTSUPP for
 * unknown access flags.
 */
int swr_mw_bind(struct swr_dev *sdev, const struct swr_mw_bind_req *req,
		struct ib_pd *pd, u32 qpn);

#endif /* SWR_MR_H */
