/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The contract between swroce.ko and libswroce (the rdma-core provider).
 *
 * Layout rules, which every structure below follows:
 *  - only fixed-width __u8/__u16/__u32/__aligned_u64 types, no pointers,
 *    no kernel types, no enums as field types: the layout is identical on
 *    32- and 64-bit user space;
 *  - every structure is a multiple of 8 bytes and has no implicit padding;
 *    holes are named reserved_* and must be zero;
 *  - command and response structures start with comp_mask. A bit in a
 *    command's comp_mask announces an optional field the provider filled
 *    in; a bit in a response's comp_mask announces a field the kernel
 *    filled in. The kernel rejects command bits it does not know with
 *    EOPNOTSUPP, and non-zero reserved fields or non-zero bytes beyond the
 *    structure it knows with EINVAL;
 *  - new fields are only ever appended. The kernel writes back at most the
 *    response length the provider passed, so an older provider keeps
 *    working against a newer kernel of the same SWROCE_ABI_VERSION.
 *
 * SWROCE_ABI_VERSION changes only for an incompatible change. It is
 * published as the uverbs device's abi_version (libibverbs refuses to bind
 * a provider whose supported range does not include it) and the provider
 * repeats it in swroce_alloc_ucontext_cmd, where the kernel checks it again.
 *
 * Driver-private command data follows the core uverbs command with no
 * padding; driver-private response data likewise follows the core response.
 */
#ifndef SWROCE_ABI_USER_H
#define SWROCE_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

#define SWROCE_ABI_VERSION 1

/*
 * Every swroce ib_device carries this sysfs attribute group
 * (/sys/class/infiniband/<ibdev>/swroce/): the provider recognises a swroce
 * device by it, whatever name the administrator gave the device.
 */
#define SWROCE_SYSFS_GROUP "swroce"

/* ibv_get_context(): no optional command fields are defined yet */
struct swroce_alloc_ucontext_cmd {
	__u32 comp_mask;
	__u32 abi_version;	/* the SWROCE_ABI_VERSION the provider speaks */
};

/* Set in swroce_alloc_ucontext_resp.device_caps */
enum swroce_device_cap {
	SWROCE_DEVICE_CAP_NONE = 0,
	/* The kernel has SWROCE_METHOD_QP_DOORBELL. */
	SWROCE_DEVICE_CAP_DOORBELL_METHOD = 1 << 0,
	/* Create commands take rings in user memory (struct swroce_user_ring). */
	SWROCE_DEVICE_CAP_USER_RINGS = 1 << 1,
};

/*
 * Driver methods (RDMA_VERBS_IOCTL on the uverbs command fd, header
 * driver_id RDMA_DRIVER_UNKNOWN), ids in the driver's namespace.
 *
 * SWROCE_METHOD_QP_DOORBELL on UVERBS_OBJECT_QP: the doorbell of a QP's
 * send queue (see "The doorbell protocol" below), with one attribute, the
 * QP's handle (an IDR attribute: data = handle, len 0). It does what a
 * post_send command with no work requests does, without that command's
 * request and response copies and allocation.
 */
enum swroce_qp_methods {
	SWROCE_METHOD_QP_DOORBELL = (1U << UVERBS_ID_NS_SHIFT),
};

enum swroce_qp_doorbell_attrs {
	SWROCE_ATTR_QP_DOORBELL_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

/*
 * SWROCE_METHOD_DM_MAP on UVERBS_OBJECT_DM: where to mmap() a device memory
 * allocation (ibv_alloc_dm), by its handle (an IDR attribute), for the
 * context that allocated it or one that imported its handle. The answer
 * is one struct swroce_dm_map_resp. The mapping is the DM's memory itself:
 * ibv_memcpy_to_dm() and ibv_memcpy_from_dm() are memcpy() on it.
 */
enum swroce_dm_methods {
	SWROCE_METHOD_DM_MAP = (1U << UVERBS_ID_NS_SHIFT),
};

enum swroce_dm_map_attrs {
	SWROCE_ATTR_DM_MAP_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SWROCE_ATTR_DM_MAP_RESP,
};

struct swroce_dm_map_resp {
	__u32 comp_mask;
	__u32 reserved_0;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;	/* whole pages, >= length */
	__aligned_u64 length;		/* as allocated */
};

/*
 * Importing objects into a second context on the same command file
 * (ibv_import_device(), ibv_import_pd(), ibv_import_mr(), ibv_import_dm()):
 *  - UVERBS_METHOD_QUERY_CONTEXT takes one more attribute,
 *    SWROCE_ATTR_QUERY_CONTEXT_RESP: the swroce_alloc_ucontext_resp that
 *    ibv_get_context() received;
 *  - SWROCE_METHOD_PD_QUERY on UVERBS_OBJECT_PD, by handle (an IDR
 *    attribute), answers a swroce_alloc_pd_resp: that the handle is a PD,
 *    and its number;
 *  - an MR is queried with the core's UVERBS_METHOD_QUERY_MR, a DM mapped
 *    through SWROCE_METHOD_DM_MAP.
 */
enum swroce_query_context_attrs {
	SWROCE_ATTR_QUERY_CONTEXT_RESP = (1U << UVERBS_ID_NS_SHIFT),
};

enum swroce_pd_methods {
	SWROCE_METHOD_PD_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum swroce_pd_query_attrs {
	SWROCE_ATTR_PD_QUERY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SWROCE_ATTR_PD_QUERY_RESP,
};

struct swroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 abi_version;	/* the SWROCE_ABI_VERSION of the kernel */
	__u32 device_caps;	/* enum swroce_device_cap */
	__u32 reserved_0;
};

/* ibv_alloc_pd(): no command data; the response names the PD */
struct swroce_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;		/* device-wide PD number, for diagnostics */
};

/*
 * Mapped rings
 * ============
 *
 * Every queue the kernel and the provider share is one mapping, handed out
 * by the command that creates it as (mmap_offset, mmap_size): pass them to
 * mmap() on the uverbs command fd. Offsets are opaque cookies.
 *
 * Rings in user memory: where the kernel announces
 * SWROCE_DEVICE_CAP_USER_RINGS, the create commands of CQs, QPs and SRQs
 * may instead name memory of the process for a ring (a struct
 * swroce_user_ring, announced by a comp_mask bit of the command); that is
 * how custom allocators of a parent domain place rings. The kernel pins
 * the memory and uses it exactly as a ring of its own, with the same
 * rules below; it answers mmap_offset and mmap_size 0 for such a ring,
 * there being nothing to map. The memory must be page aligned and its
 * length exactly the ring's size rounded up to whole pages, the size
 * computed by these rules (num_* a power of two, rounded up from the
 * request and at least 1; a stride the next power of two):
 *   CQ:       sizeof(struct swroce_cq_ring) +
 *             num_cqe * sizeof(struct swroce_cqe)
 *   RQ, SRQ:  sizeof(struct swroce_wq_ring) + num_wqe * stride, stride
 *             for sizeof(struct swroce_recv_wqe) + max(max_sge, 1) *
 *             sizeof(struct swroce_sge)
 *   SQ:       sizeof(struct swroce_sq_ring) + num_wqe * stride, stride
 *             for sizeof(struct swroce_send_wqe) + the larger of
 *             max_send_sge * sizeof(struct swroce_sge) and
 *             max_inline_data
 * Anything else is refused with EINVAL, memory the process cannot write
 * with EFAULT, more than RLIMIT_MEMLOCK allows with ENOMEM. The kernel
 * zeroes the ring when it takes it, and the pages stay pinned until the
 * queue is destroyed, even if the process unmaps them: the memory must
 * not be reused before then.
 *
 * Ring indices are free-running __u32 counters; a slot is
 * index & (num_slots - 1), num_slots a power of two. Each index lives on a
 * cache line of its own and has exactly one writer. The kernel keeps a
 * private copy of every index it relies on and reads what user space
 * writes only as a hint it validates: user space can corrupt only its own
 * queues.
 */
struct swroce_ring_idx {
	__u32 idx;
	__u32 reserved[15];
};

/* A ring in the process's memory: page aligned, whole pages (above). */
struct swroce_user_ring {
	__aligned_u64 addr;
	__aligned_u64 length;
};

/*
 * Not a kernel interface, but the provider's to applications: the
 * resource_type the provider passes to a parent domain's custom allocator
 * (ibv_alloc_parent_domain(3)) for each ring, numbered as the low bits of
 * mlx5dv's MLX5DV_RES_TYPE_*; libibverbs defines no common values.
 */
#define SWROCE_RES_TYPE_QP	1	/* a QP's send or receive ring */
#define SWROCE_RES_TYPE_SRQ	4
#define SWROCE_RES_TYPE_CQ	5

/* Completion queue ------------------------------------------------------ */

/* swroce_cqe.flags */
enum swroce_cqe_flags {
	SWROCE_CQE_WITH_IMM = 1 << 0,	/* ex_data holds immediate data */
	SWROCE_CQE_WITH_INV = 1 << 1,	/* ex_data holds the invalidated rkey */
	SWROCE_CQE_GRH = 1 << 2,	/* UD receive: a GRH precedes the data */
	/*
	 * Tag matching (IBV_WC_TM_MATCH): the message matched a tag posted
	 * with SWROCE_TM_OP_ADD. src_qp and ex_data2 hold the tag (high and
	 * low 32 bits), ex_data the TMH's app_ctx (host byte order); such a
	 * completion carries no immediate data.
	 */
	SWROCE_CQE_TM_MATCH = 1 << 3,
	/* IBV_WC_TM_DATA_VALID: the whole message is in the tag's buffer */
	SWROCE_CQE_TM_DATA_VALID = 1 << 4,
};

/* One completion, written by the kernel only. */
struct swroce_cqe {
	__aligned_u64 wr_id;
	__aligned_u64 timestamp;	/* ns, CLOCK_MONOTONIC_RAW base */
	__u32 byte_len;
	__u32 ex_data;		/* big-endian immediate data, or an rkey */
	__u32 qp_num;
	__u32 src_qp;		/* UD receives */
	__u8 status;		/* enum ibv_wc_status */
	__u8 opcode;		/* enum ibv_wc_opcode */
	__u8 flags;		/* enum swroce_cqe_flags */
	__u8 sl;		/* UD receives: the RoCE packet type, bit 3
				 * RoCEv2, bits 2:0 1 IPv6 / 2 IPv4 (as on
				 * ConnectX; a RoCE packet carries no SL)
				 */
	__u32 ex_data2;		/* SWROCE_CQE_TM_MATCH: the tag's low half;
				 * else 0 (reserved_0 before tag matching)
				 */
};

/*
 * swroce_cq_ring.arm: written by user space to request one completion
 * event. The value is (sequence << 2) | kind; every request uses a new
 * sequence number. The kernel fires at most one event per sequence: for
 * the next completion (NEXT), or the next solicited or error completion
 * (SOLICITED), written after it has seen the request.
 */
#define SWROCE_CQ_ARM_NEXT	1
#define SWROCE_CQ_ARM_SOLICITED	2
#define SWROCE_CQ_ARM_KIND_MASK	3
#define SWROCE_CQ_ARM_SEQ_SHIFT	2

/* swroce_cq_ring.status, written by the kernel only */
enum swroce_cq_status {
	/* The ring was full (or its consumer index invalid): completions
	 * were lost and the CQ is in error; IB_EVENT_CQ_ERR was raised.
	 */
	SWROCE_CQ_STATUS_OVERFLOW = 1 << 0,
};

/*
 * The mapping of a CQ: this header, then num_cqe completions. Ordering
 * (the kernel's side in kernel/swr_cq.c):
 *  - the kernel writes a CQE, then publishes prod with a release store;
 *    the provider reads prod with an acquire load before reading CQEs;
 *  - the provider stores cons (release) after it has read a CQE; the slot
 *    is then the kernel's again;
 *  - arming: the provider stores arm, then issues a full fence before it
 *    polls again; the kernel publishes prod, then a full fence, then reads
 *    arm. So either the kernel sees the request or the provider sees the
 *    completion: no completion is missed between arming and sleeping.
 */
struct swroce_cq_ring {
	struct swroce_ring_idx prod;	/* kernel writes */
	struct swroce_ring_idx cons;	/* user writes */
	struct swroce_ring_idx arm;	/* user writes */
	struct swroce_ring_idx status;	/* kernel writes */
	struct swroce_cqe cqe[];
};

/* swroce_create_cq_cmd.comp_mask */
enum swroce_create_cq_cmd_mask {
	SWROCE_CREATE_CQ_USER_RING = 1 << 0,	/* ring is set */
};

/* ibv_create_cq(): optional (an older provider sends none) */
struct swroce_create_cq_cmd {
	__u32 comp_mask;
	__u32 reserved_0;
	struct swroce_user_ring ring;
};

/* mmap_offset and mmap_size are 0 for a ring in user memory */
struct swroce_create_cq_resp {
	__u32 comp_mask;
	__u32 num_cqe;		/* slots in the ring: a power of two */
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
};

/*
 * ibv_resize_cq(): no command data; the ring is replaced by a new one,
 * always a ring of the kernel's (one in user memory is released)
 */
struct swroce_resize_cq_resp {
	__u32 comp_mask;
	__u32 num_cqe;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
};

/* Work queues (receive queues and SRQs) ---------------------------------- */

struct swroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* A receive WQE: this header, then num_sge scatter entries. */
struct swroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved_0;
	struct swroce_sge sge[];
};

/*
 * The mapping of a work queue: this header, then num_wqe slots of
 * wqe_stride bytes each (a power of two), starting at
 * sizeof(struct swroce_wq_ring). User space writes a WQE into slot
 * prod & (num_wqe - 1), then publishes prod with a release store; the
 * kernel copies each WQE out of the ring once, validates the copy, and
 * publishes cons (release) when the slot may be reused. The kernel takes
 * prod as a hint: a value more than num_wqe ahead of its own consumer
 * index puts the queue in error.
 */
struct swroce_wq_ring {
	struct swroce_ring_idx prod;	/* user writes */
	struct swroce_ring_idx cons;	/* kernel writes */
};

/* swroce_create_srq_cmd.comp_mask */
enum swroce_create_srq_cmd_mask {
	SWROCE_CREATE_SRQ_USER_RING = 1 << 0,	/* ring is set */
};

/* ibv_create_srq(): optional (an older provider sends none) */
struct swroce_create_srq_cmd {
	__u32 comp_mask;
	__u32 reserved_0;
	struct swroce_user_ring ring;
};

/* mmap_offset and mmap_size are 0 for a ring in user memory */
struct swroce_create_srq_resp {
	__u32 comp_mask;
	__u32 num_wqe;		/* ring slots, a power of two */
	__u32 wqe_stride;	/* bytes per slot, a power of two */
	__u32 max_sge;		/* scatter entries a WQE may carry */
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
};

/* Tag matching SRQs ------------------------------------------------------ */

/*
 * SWROCE_METHOD_SRQ_TM_OP on UVERBS_OBJECT_SRQ: one operation on the tag
 * list of a tag matching SRQ (ibv_post_srq_ops(), IBV_SRQT_TM), by the
 * SRQ's handle (an IDR attribute), with one struct swroce_tm_op in and
 * one struct swroce_tm_op_resp out. The operation is done when the call
 * returns; a SWROCE_TM_OP_SIGNALED one has also written its completion
 * (IBV_WC_TM_ADD, _DEL, _SYNC, wr_id the op's) to the SRQ's CQ. Errors,
 * and nothing changes: EINVAL for an unknown opcode or flag, non-zero
 * reserved fields, num_sge above 1, an lkey that does not name local
 * write access to the range in the SRQ's PD, a handle never returned,
 * an unexpected_cnt outside what the SRQ has delivered since the last
 * SWROCE_TM_OP_SYNC; ENOENT to delete a tag no longer listed (deleted,
 * or consumed by a message); ENOMEM when max_num_tags tags are listed;
 * EOPNOTSUPP on an SRQ of another type, or unknown comp_mask bits.
 * See Documentation/overview.rst, "Tag matching".
 */
enum swroce_srq_methods {
	SWROCE_METHOD_SRQ_TM_OP = (1U << UVERBS_ID_NS_SHIFT),
};

enum swroce_srq_tm_op_attrs {
	SWROCE_ATTR_SRQ_TM_OP_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SWROCE_ATTR_SRQ_TM_OP_CMD,
	SWROCE_ATTR_SRQ_TM_OP_RESP,
};

/* swroce_tm_op.opcode: ibv_ops_wr_opcode's order */
enum swroce_tm_opcode {
	SWROCE_TM_OP_ADD = 0,
	SWROCE_TM_OP_DEL = 1,
	SWROCE_TM_OP_SYNC = 2,
};

/* swroce_tm_op.flags: ibv_ops_flags' values */
enum swroce_tm_op_flags {
	SWROCE_TM_OP_SIGNALED = 1 << 0,	/* write a completion */
	SWROCE_TM_OP_FLAG_SYNC = 1 << 1,	/* unexpected_cnt is set */
};

/*
 * A SEND to a tag matching SRQ starts with this header (struct ibv_tmh,
 * big-endian): opcode (ibv_tmh_op), 3 reserved bytes, app_ctx, tag.
 */
#define SWROCE_TMH_BYTES	16

struct swroce_tm_op {
	__u32 comp_mask;
	__u8 opcode;		/* enum swroce_tm_opcode */
	__u8 flags;		/* enum swroce_tm_op_flags */
	__u16 reserved_0;
	__aligned_u64 wr_id;	/* of the op's completion */
	__u32 unexpected_cnt;	/* SWROCE_TM_OP_FLAG_SYNC */
	__u32 handle;		/* DEL: what ADD returned */
	/* ADD: the tagged buffer */
	__aligned_u64 recv_wr_id;	/* of the message's completion */
	__aligned_u64 tag;
	__aligned_u64 mask;	/* matches when TMH.tag & mask == tag */
	__u32 num_sge;		/* 0 or 1 */
	__u32 reserved_1;
	struct swroce_sge sge;
};

struct swroce_tm_op_resp {
	__u32 comp_mask;
	__u32 handle;		/* ADD: names the tag for DEL */
};

/*
 * ibv_create_wq() (IBV_WQT_RQ): a receive work queue of its own, a ring
 * like a QP's receive queue (struct swroce_wq_ring, posted to the same
 * way). No command data. Its receive completions carry the WQ's number
 * (wq_num) as qp_num; WQ numbers and QP numbers never collide.
 */
struct swroce_create_wq_resp {
	__u32 comp_mask;
	__u32 num_wqe;		/* ring slots, a power of two */
	__u32 wqe_stride;	/* bytes per slot, a power of two */
	__u32 max_sge;		/* scatter entries a WQE may carry */
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
};

/* Queue pairs ------------------------------------------------------------ */

/*
 * Send work request opcodes, numbered as enum ibv_wr_opcode numbers them
 * (so are enum ib_uverbs_wr_opcode's). Anything else in a user WQE fails
 * that WQE with a local QP operation error.
 */
enum swroce_wr_opcode {
	SWROCE_WR_RDMA_WRITE = 0,
	SWROCE_WR_RDMA_WRITE_WITH_IMM = 1,
	SWROCE_WR_SEND = 2,
	SWROCE_WR_SEND_WITH_IMM = 3,
	SWROCE_WR_RDMA_READ = 4,
	SWROCE_WR_ATOMIC_CMP_AND_SWP = 5,
	SWROCE_WR_ATOMIC_FETCH_AND_ADD = 6,
	SWROCE_WR_LOCAL_INV = 7,
	SWROCE_WR_BIND_MW = 8,
	SWROCE_WR_SEND_WITH_INV = 9,
	SWROCE_WR_ATOMIC_WRITE = 15,
};

/* swroce_send_wqe.flags */
enum swroce_send_flags {
	SWROCE_WQE_SIGNALED = 1 << 0,	/* complete even without sq_sig_all */
	SWROCE_WQE_SOLICITED = 1 << 1,	/* solicited event at the responder */
	SWROCE_WQE_FENCE = 1 << 2,	/* wait for earlier READs/atomics */
	SWROCE_WQE_INLINE = 1 << 3,	/* data follows the header, no SGEs */
};

/*
 * One send WQE: this 64-byte header, then either num_sge struct
 * swroce_sge or (SWROCE_WQE_INLINE) inline_len bytes of data. The slot size
 * (wqe_stride) bounds both.
 *
 * ex is the immediate data (network byte order) of the *_WITH_IMM
 * opcodes, and the rkey to invalidate of SEND_WITH_INV. XRC_SEND QPs take
 * every opcode RC does but BIND_MW.
 * ATOMIC_WRITE carries its 8 bytes in atomic.compare_add.
 */
struct swroce_send_wqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* enum swroce_wr_opcode */
	__u8 flags;		/* enum swroce_send_flags */
	__u16 num_sge;
	__u32 inline_len;
	__u32 ex;
	/*
	 * XRC_SEND QPs: the XRC SRQ number of the remote end (the XRCETH of
	 * every packet), ibv_send_wr.qp_type.xrc.remote_srqn. Other QPs
	 * ignore it; providers before XRC wrote 0 here (reserved_0).
	 */
	__u32 xrc_srqn;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved_1;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved_1;
		} atomic;
		struct {
			__u32 ahn;	/* from swroce_create_ah_resp */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved_1;
		} ud;
		struct {
			__aligned_u64 addr;	/* MR address of the window */
			__aligned_u64 length;
			__u32 mw_rkey;	/* the MW's current rkey */
			__u32 new_rkey;	/* only the low byte may differ */
			__u32 mr_lkey;
			__u32 access;	/* IB_UVERBS_ACCESS_* */
		} bind;
		struct {
			__aligned_u64 reserved_2[5];
		} pad;
	};
};

/* swroce_sq_ring.flags, written by the kernel only */
enum swroce_sq_flags {
	/*
	 * The device's poller is asleep, or about to sleep: after
	 * publishing prod, user space must make a doorbell call
	 * (SWROCE_METHOD_QP_DOORBELL where the kernel offers it, else a
	 * post_send command with no work requests) for the WQEs to be seen.
	 */
	SWROCE_SQ_NEED_WAKEUP = 1 << 0,
	/*
	 * With NEED_WAKEUP: the poller sleeps because another task wants
	 * its CPU, and looks at every ring again within a millisecond on
	 * its own. User space may then put off the doorbell call, as long
	 * as it makes it before it waits for a completion (the provider:
	 * at its next poll or arm of a CQ). Never set alone.
	 */
	SWROCE_SQ_LAZY = 1 << 1,
};

/*
 * The mapping of a send queue: this header, then num_wqe slots of
 * wqe_stride bytes (a power of two) from offset sizeof(struct
 * swroce_sq_ring).
 *
 * The doorbell protocol (io_uring SQPOLL's NEED_WAKEUP, see
 * kernel/swr_poll.c):
 *  - user space writes WQEs, publishes prod with a release store, issues
 *    a full fence, then reads flags; only if SWROCE_SQ_NEED_WAKEUP is set
 *    does it make the doorbell call;
 *  - the poller, before it sleeps, sets SWROCE_SQ_NEED_WAKEUP in every
 *    queue it watches, issues a full fence, then reads every prod once
 *    more and stays awake if any has moved. So a WQE is never left
 *    unseen: either the poller sees prod, or user space sees the flag.
 * The kernel publishes cons (release) once it has copied a WQE out; the
 * slot is then user space's again. prod more than num_wqe ahead of the
 * kernel's own consumer index puts the QP in the error state.
 */
struct swroce_sq_ring {
	struct swroce_ring_idx prod;	/* user writes */
	struct swroce_ring_idx cons;	/* kernel writes */
	struct swroce_ring_idx flags;	/* kernel writes: swroce_sq_flags */
};

/*
 * Receive side scaling: a raw packet QP created with a receive WQ
 * indirection table (IBV_QP_INIT_ATTR_IND_TABLE) and a hash
 * configuration (IBV_QP_INIT_ATTR_RX_HASH) has no queues of its own; a
 * frame its flows steer to it goes to the table entry hash % size. The
 * hash is Toeplitz over the selected fields, in this order: source and
 * destination address, source and destination port, in network byte
 * order. The field bits are ibv_rx_hash_fields'; IPv4 and IPv6 fields, or
 * TCP and UDP ports, do not mix. The device announces what it supports
 * in ibv_query_device_ex()'s rss_caps.
 */
#define SWROCE_RX_HASH_FUNC_TOEPLITZ	(1 << 0)	/* IBV_RX_HASH_FUNC_TOEPLITZ */
#define SWROCE_RX_HASH_KEY_LEN		40

enum swroce_rx_hash_fields {
	SWROCE_RX_HASH_SRC_IPV4 = 1 << 0,
	SWROCE_RX_HASH_DST_IPV4 = 1 << 1,
	SWROCE_RX_HASH_SRC_IPV6 = 1 << 2,
	SWROCE_RX_HASH_DST_IPV6 = 1 << 3,
	SWROCE_RX_HASH_SRC_PORT_TCP = 1 << 4,
	SWROCE_RX_HASH_DST_PORT_TCP = 1 << 5,
	SWROCE_RX_HASH_SRC_PORT_UDP = 1 << 6,
	SWROCE_RX_HASH_DST_PORT_UDP = 1 << 7,
	SWROCE_RX_HASH_FIELDS = (1 << 8) - 1,	/* all of the above */
};

/* swroce_create_qp_cmd.comp_mask */
enum swroce_create_qp_cmd_mask {
	SWROCE_CREATE_QP_USER_SQ = 1 << 0,	/* sq is set */
	SWROCE_CREATE_QP_USER_RQ = 1 << 1,	/* rq is set; not with an SRQ */
	/* rx_hash_*: an RSS QP's hash (only with an indirection table) */
	SWROCE_CREATE_QP_RX_HASH = 1 << 2,
};

/*
 * ibv_create_qp(), ibv_create_qp_ex(): optional (an older provider sends
 * none, or only the fields up to rq). The two rings must not overlap.
 * Every field comp_mask does not announce must be zero.
 */
struct swroce_create_qp_cmd {
	__u32 comp_mask;	/* enum swroce_create_qp_cmd_mask */
	__u32 reserved_0;
	struct swroce_user_ring sq;
	struct swroce_user_ring rq;
	__u8 rx_hash_function;	/* SWROCE_RX_HASH_FUNC_TOEPLITZ */
	__u8 rx_hash_key_len;	/* SWROCE_RX_HASH_KEY_LEN */
	__u16 reserved_1;
	__u32 reserved_2;
	__aligned_u64 rx_hash_fields_mask;	/* enum swroce_rx_hash_fields */
	__u8 rx_hash_key[SWROCE_RX_HASH_KEY_LEN];
};

/*
 * The receive queue is absent (all its fields 0) for a QP on an SRQ; both
 * queues are absent for an RSS QP. A ring in user memory has
 * *_mmap_offset and *_mmap_size 0.
 */
struct swroce_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u32 sq_num_wqe;	/* a power of two */
	__u32 sq_wqe_stride;	/* a power of two, >= 64 */
	__u32 sq_max_sge;
	__u32 sq_max_inline;
	__u32 rq_num_wqe;
	__u32 rq_wqe_stride;
	__u32 rq_max_sge;
	__u32 reserved_0;
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 sq_mmap_size;
	__aligned_u64 rq_mmap_offset;	/* a struct swroce_wq_ring */
	__aligned_u64 rq_mmap_size;
};

/* Address handle -------------------------------------------------------- */

/* ibv_create_ah(): no command data; UD send WQEs name the AH by ahn */
struct swroce_create_ah_resp {
	__u32 comp_mask;
	__u32 ahn;
};

#endif /* SWROCE_ABI_USER_H */
