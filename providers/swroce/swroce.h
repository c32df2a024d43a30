/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libswroce: the rdma-core provider for swroce devices.
 *
 * Object names mirror the kernel driver's (kernel/swr.h): swr_device is one
 * swroce ib_device as libibverbs sees it, swr_context an open ucontext.
 */
#ifndef SWROCE_PROVIDER_H
#define SWROCE_PROVIDER_H

#include <pthread.h>
#include <stdatomic.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/swroce-abi.h>

#ifdef SWR_RDMA_CORE
/*
 * Built against an rdma-core tree (make provider RDMA_CORE=...): its own
 * private headers, so every layout is that release's by construction.
 * swr_features.h says what its private API offers (probe-features.sh);
 * kernel-abi/swroce-abi.h is swroce-abi.h through the tree's
 * make_abi_structs.py, as DECLARE_DRV_CMD() wants it.
 */
#include "swr_features.h"
#include <infiniband/driver.h>
#include <kernel-abi/swroce-abi.h>
#else
/* Debian 12's libibverbs 44: declared here, layouts asserted. */
#include "ibverbs_private.h"
#define SWR_HAVE_GET_CONTEXT_FD_ARR	0
#define SWR_HAVE_CREATE_CQ_PROV_ATTR	0
#define SWR_HAVE_CREATE_QP_EX2_CMDBUF	0
#define SWR_HAVE_ATOMIC_WRITE		1
#endif

struct swr_device {
	struct verbs_device vdev;
};

struct swr_context {
	struct verbs_context vctx;
	uint32_t device_caps;	/* enum swroce_device_cap */
	/*
	 * Deferred doorbells (swr_qp.c): the QPs whose doorbell waits for
	 * the next poll or arm of a CQ, linked through db_next under
	 * db_lock; db_pending is set while the list may be non-empty.
	 */
	pthread_mutex_t db_lock;
	struct swr_qp *db_list;
	atomic_uint db_pending;
};

/* A thread domain: its resources are used by one thread at a time. */
struct swr_td {
	struct ibv_td ibtd;
	atomic_int refcount;	/* parent domains on it */
};

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain()):
 * a parent carries its protection domain's handle, so every command that
 * names it names that PD to the kernel, and adds a thread domain. A CQ, QP or SRQ created through a parent
 * with a thread domain takes no lock in its fast path.
 */
struct swr_pd {
	struct ibv_pd ibpd;
	uint32_t pdn;
	struct swr_pd *protection;	/* a parent's PD; NULL for a PD */
	struct swr_td *td;		/* a parent's thread domain, or NULL */
	/* A PD: the parents on it; a parent: the CQs, QPs, SRQs using it. */
	atomic_int refcount;
	/*
	 * A parent's custom allocators (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
	 * both or neither) and the context they are called with.
	 */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/*
 * A ring's memory as the create command names it: from a parent domain's
 * allocator (addr set, whole pages), or the kernel's, mapped after the
 * command (addr NULL).
 */
struct swr_ring_buf {
	void *addr;
	size_t size;
};

/*
 * A CQ: the kernel produces into the mapped ring, we consume. The lock
 * serialises pollers of this CQ with resize, which replaces the ring.
 */
struct swr_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct swroce_cq_ring *ring;
	size_t map_size;
	bool user_ring;		/* ring from the parent's allocator */
	uint32_t num_cqe;	/* ring slots, a power of two */
	uint32_t cons;		/* our consumer index; the ring's is a copy */
	uint32_t arm_seq;	/* sequence of the last arm request */
	uint32_t prod;		/* extended polling: producer index seen */
	struct swroce_cqe *cur;	/* extended polling: the current CQE */
	int ex_sends;		/* extended polling: send CQEs this pass */
	bool single_threaded;	/* IBV_CREATE_CQ_ATTR_SINGLE_THREADED, or
				 * a parent domain with a thread domain */
	struct swr_pd *parent;	/* IBV_CQ_INIT_ATTR_MASK_PD, or NULL */
	/*
	 * Signaled send WQEs posted to QPs that complete here and not yet
	 * polled (a lower bound: never below 0); swr_qp.c defers doorbells
	 * while it is not 0.
	 */
	atomic_int sig_out;
};

struct swr_ah {
	struct ibv_ah ibah;
	uint32_t ahn;		/* the kernel's AH number, for UD WQEs */
};

/*
 * A receive work queue ring (an SRQ or a QP's receive queue): we produce,
 * the kernel consumes. The lock serialises our producers.
 */
struct swr_wq {
	pthread_spinlock_t lock;
	bool single_threaded;	/* through a thread domain: no lock */
	struct swroce_wq_ring *ring;
	uint8_t *slots;
	size_t map_size;
	bool user_ring;		/* ring from the parent's allocator */
	uint32_t num_wqe;	/* a power of two */
	uint32_t wqe_stride;
	uint32_t max_sge;
	uint32_t prod;		/* our producer index; the ring's is a copy */
};

struct swr_srq {
	struct verbs_srq vsrq;
	struct swr_wq wq;
	uint32_t srqn;		/* XRC: the number senders name; 0: basic */
	bool tm;		/* IBV_SRQT_TM: ibv_post_srq_ops() works */
};

/*
 * Tag matching (the kernel's swr_tm.c): ops are synchronous, so
 * ibv_srq_init_attr_ex.tm_cap.max_ops bounds nothing; this is what
 * query_device announces (SWR_TM_MAX_TAGS there).
 */
#define SWR_TM_MAX_OPS	256

/*
 * A send queue ring: we produce WQEs, the kernel's poller consumes them
 * (see struct swroce_sq_ring). The lock serialises our producers; an
 * ibv_wr_start() .. ibv_wr_complete() batch holds it throughout.
 */
struct swr_sq {
	pthread_spinlock_t lock;
	bool single_threaded;	/* through a thread domain: no lock */
	struct swroce_sq_ring *ring;
	uint8_t *slots;
	size_t map_size;
	bool user_ring;		/* ring from the parent's allocator */
	uint32_t num_wqe;	/* a power of two; 0: no send queue */
	uint32_t wqe_stride;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t prod;		/* our producer index; the ring's is a copy */
	uint32_t cons;		/* the kernel's consumer index, last read */
};

struct swr_qp {
	struct verbs_qp vqp;
	struct swr_sq sq;
	struct swr_wq rq;	/* rq.num_wqe 0: none (an SRQ, or no RQ) */
	uint32_t ops;		/* bit per enum ibv_wr_opcode allowed */
	/* The ibv_wr_*() batch being built, under sq.lock. */
	uint32_t cur;		/* the slot the next WQE goes to */
	struct swroce_send_wqe *wqe;	/* the last WQE built, or NULL */
	int err;		/* first error of the batch */
	bool sig_all;		/* sq_sig_all: every WQE is signaled */
	/*
	 * Deferred doorbells: on the context's list (written under its
	 * db_lock; read without it as a hint).
	 */
	atomic_bool db_queued;
	struct swr_qp *db_next;
};

/* A receive work queue (ibv_create_wq(), swr_rss.c). */
struct swr_rwq {
	struct ibv_wq ibwq;
	struct swr_wq wq;
};

/* Device memory, mapped (swr_dm.c). */
struct swr_dm {
	struct verbs_dm vdm;
	uint8_t *map;
	size_t map_size;	/* whole pages */
	uint64_t length;	/* as allocated: what copies may reach */
};

static inline struct swr_context *to_swr_context(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct swr_context, vctx.context);
}

static inline struct swr_pd *to_swr_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct swr_pd, ibpd);
}

/* @ibpd's parent domain, or NULL when it is a plain PD. */
static inline struct swr_pd *swr_parent_domain(struct ibv_pd *ibpd)
{
	struct swr_pd *pd = ibpd ? to_swr_pd(ibpd) : NULL;

	return pd && pd->protection ? pd : NULL;
}

static inline struct swr_ah *to_swr_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct swr_ah, ibah);
}

static inline struct swr_srq *to_swr_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct swr_srq, vsrq.srq);
}

static inline struct swr_qp *to_swr_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct swr_qp, vqp.qp);
}

static inline struct swr_cq *to_swr_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct swr_cq, vcq.cq);
}

/* Driver-private command and response layouts (see swroce-abi.h). */
DECLARE_DRV_CMD(swr_get_context_cmd, IB_USER_VERBS_CMD_GET_CONTEXT,
		swroce_alloc_ucontext_cmd, swroce_alloc_ucontext_resp);
DECLARE_DRV_CMD(swr_alloc_pd_cmd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, swroce_alloc_pd_resp);
DECLARE_DRV_CMD(swr_create_cq_cmd, IB_USER_VERBS_CMD_CREATE_CQ,
		swroce_create_cq_cmd, swroce_create_cq_resp);
DECLARE_DRV_CMD(swr_create_cq_ex_cmd, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		swroce_create_cq_cmd, swroce_create_cq_resp);
DECLARE_DRV_CMD(swr_resize_cq_cmd, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, swroce_resize_cq_resp);
DECLARE_DRV_CMD(swr_create_srq_cmd, IB_USER_VERBS_CMD_CREATE_SRQ,
		swroce_create_srq_cmd, swroce_create_srq_resp);
DECLARE_DRV_CMD(swr_create_xsrq_cmd, IB_USER_VERBS_CMD_CREATE_XSRQ,
		empty, swroce_create_srq_resp);
DECLARE_DRV_CMD(swr_create_qp_cmd, IB_USER_VERBS_CMD_CREATE_QP,
		swroce_create_qp_cmd, swroce_create_qp_resp);
DECLARE_DRV_CMD(swr_create_qp_ex_cmd, IB_USER_VERBS_EX_CMD_CREATE_QP,
		swroce_create_qp_cmd, swroce_create_qp_resp);
DECLARE_DRV_CMD(swr_create_wq_cmd, IB_USER_VERBS_EX_CMD_CREATE_WQ,
		empty, swroce_create_wq_resp);

/*
 * The ibv_cmd_*() calls whose signature changed between releases, in the
 * shape of the oldest; the arguments added later are not used (NULL).
 */
static inline int swr_cmd_get_context(struct verbs_context *vctx,
				      struct ibv_get_context *cmd,
				      size_t cmd_size,
				      struct ib_uverbs_get_context_resp *resp,
				      size_t resp_size)
{
#if SWR_HAVE_GET_CONTEXT_FD_ARR
	return ibv_cmd_get_context(vctx, cmd, cmd_size, NULL, resp, resp_size);
#else
	return ibv_cmd_get_context(vctx, cmd, cmd_size, resp, resp_size);
#endif
}

static inline int
swr_cmd_create_cq_ex(struct ibv_context *ibctx,
		     const struct ibv_cq_init_attr_ex *attr,
		     struct verbs_cq *vcq, struct ibv_create_cq_ex *cmd,
		     size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp,
		     size_t resp_size)
{
#if SWR_HAVE_CREATE_CQ_PROV_ATTR
	return ibv_cmd_create_cq_ex(ibctx, attr, NULL, vcq, cmd, cmd_size, resp,
				    resp_size, 0);
#else
	return ibv_cmd_create_cq_ex(ibctx, attr, vcq, cmd, cmd_size, resp,
				    resp_size, 0);
#endif
}

static inline int
swr_cmd_create_qp_ex2(struct ibv_context *ibctx, struct verbs_qp *vqp,
		      struct ibv_qp_init_attr_ex *attr,
		      struct ibv_create_qp_ex *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_qp_resp *resp,
		      size_t resp_size)
{
#if SWR_HAVE_CREATE_QP_EX2_CMDBUF
	return ibv_cmd_create_qp_ex2(ibctx, vqp, attr, cmd, cmd_size, resp,
				     resp_size, NULL);
#else
	return ibv_cmd_create_qp_ex2(ibctx, vqp, attr, cmd, cmd_size, resp,
				     resp_size);
#endif
}

/* The producer locks of work queues; none through a thread domain. */
static inline void swr_sq_lock(struct swr_sq *sq)
{
	if (!sq->single_threaded)
		pthread_spin_lock(&sq->lock);
}

static inline void swr_sq_unlock(struct swr_sq *sq)
{
	if (!sq->single_threaded)
		pthread_spin_unlock(&sq->lock);
}

static inline void swr_wq_lock(struct swr_wq *wq)
{
	if (!wq->single_threaded)
		pthread_spin_lock(&wq->lock);
}

static inline void swr_wq_unlock(struct swr_wq *wq)
{
	if (!wq->single_threaded)
		pthread_spin_unlock(&wq->lock);
}

/* swr_pd.c */
struct ibv_pd *swr_alloc_pd(struct ibv_context *ibctx);
int swr_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_pd *swr_alloc_parent_domain(struct ibv_context *ibctx,
				       struct ibv_parent_domain_init_attr *attr);
struct ibv_td *swr_alloc_td(struct ibv_context *ibctx,
			    struct ibv_td_init_attr *attr);
int swr_dealloc_td(struct ibv_td *ibtd);
bool swr_parent_get(struct ibv_pd *ibpd);
void swr_parent_put(struct ibv_pd *ibpd);
uint32_t swr_ring_pow2(uint64_t n);
int swr_ring_buf_alloc(struct ibv_pd *ibpd, size_t bytes, uint64_t type,
		       struct swr_ring_buf *rb);
void swr_ring_buf_cmd(const struct swr_ring_buf *rb,
		      struct swroce_user_ring *user);
void *swr_ring_map(int cmd_fd, const struct swr_ring_buf *rb,
		   uint64_t offset, uint64_t size, size_t need,
		   size_t *map_size);
void swr_ring_release(struct ibv_pd *ibpd, void *ring, size_t map_size,
		      bool user_ring, uint64_t type);

/* swr_verbs.c */
#define SWR_IOCTL_MAX_ATTRS	4
int swr_ioctl(struct ibv_context *ibctx, uint16_t object, uint16_t method,
	      const struct ib_uverbs_attr *attrs, unsigned int n);
int swr_query_device_ex(struct ibv_context *ibctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size);
int swr_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *values);
int swr_query_port(struct ibv_context *ibctx, uint8_t port,
		   struct ibv_port_attr *attr);

/* swr_ah.c */
struct ibv_ah *swr_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int swr_destroy_ah(struct ibv_ah *ibah);

/* swr_srq.c */
size_t swr_wq_ring_bytes(uint32_t max_wr, uint32_t max_sge);
int swr_wq_map(struct swr_wq *wq, int cmd_fd, uint32_t num_wqe,
	       uint32_t wqe_stride, uint32_t max_sge, uint64_t offset,
	       uint64_t size, const struct swr_ring_buf *rb);
void swr_wq_unmap(struct swr_wq *wq, struct ibv_pd *ibpd, uint64_t type);
int swr_wq_post_recv(struct swr_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
struct ibv_srq *swr_create_srq(struct ibv_pd *ibpd,
			       struct ibv_srq_init_attr *attr);
int swr_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int mask);
int swr_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int swr_destroy_srq(struct ibv_srq *ibsrq);
struct ibv_srq *swr_create_srq_ex(struct ibv_context *ibctx,
				  struct ibv_srq_init_attr_ex *attr);
int swr_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int swr_post_srq_ops(struct ibv_srq *ibsrq, struct ibv_ops_wr *wr,
		     struct ibv_ops_wr **bad_wr);

/* swr_xrcd.c */
struct ibv_xrcd *swr_open_xrcd(struct ibv_context *ibctx,
			       struct ibv_xrcd_init_attr *attr);
int swr_close_xrcd(struct ibv_xrcd *ibxrcd);
int swr_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

/* swr_cq.c */
struct ibv_cq *swr_create_cq(struct ibv_context *ibctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *swr_create_cq_ex(struct ibv_context *ibctx,
				   struct ibv_cq_init_attr_ex *attr);
int swr_destroy_cq(struct ibv_cq *ibcq);
int swr_resize_cq(struct ibv_cq *ibcq, int cqe);
int swr_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int swr_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);

/* swr_qp.c */
struct ibv_qp *swr_create_qp(struct ibv_pd *ibpd,
			     struct ibv_qp_init_attr *attr);
struct ibv_qp *swr_create_qp_ex(struct ibv_context *ibctx,
				struct ibv_qp_init_attr_ex *attr);
int swr_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask);
int swr_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr);
int swr_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *swr_open_qp(struct ibv_context *ibctx,
			   struct ibv_qp_open_attr *attr);
void swr_cq_clean(struct swr_cq *cq, uint32_t qpn);
void swr_db_flush(struct swr_context *ctx);
struct ibv_flow *swr_create_flow(struct ibv_qp *ibqp,
				 struct ibv_flow_attr *attr);
int swr_destroy_flow(struct ibv_flow *flow);
int swr_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int swr_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);

/* swr_rss.c */
struct ibv_wq *swr_create_wq(struct ibv_context *ibctx,
			     struct ibv_wq_init_attr *attr);
int swr_modify_wq(struct ibv_wq *ibwq, struct ibv_wq_attr *attr);
int swr_destroy_wq(struct ibv_wq *ibwq);
struct ibv_rwq_ind_table *
swr_create_rwq_ind_table(struct ibv_context *ibctx,
			 struct ibv_rwq_ind_table_init_attr *attr);
int swr_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl);
int swr_rss_cmd(struct swroce_create_qp_cmd *cmd,
		const struct ibv_qp_init_attr_ex *attr);

/* swr_mr.c */
struct ibv_mr *swr_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access);
int swr_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access);
int swr_dereg_mr(struct verbs_mr *vmr);
int swr_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		  uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
struct ibv_mw *swr_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int swr_dealloc_mw(struct ibv_mw *mw);
int swr_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind);

/* swr_dm.c */
struct ibv_dm *swr_alloc_dm(struct ibv_context *ibctx,
			    struct ibv_alloc_dm_attr *attr);
int swr_free_dm(struct ibv_dm *ibdm);
struct ibv_dm *swr_import_dm(struct ibv_context *ibctx, uint32_t dm_handle);
void swr_unimport_dm(struct ibv_dm *ibdm);
struct ibv_mr *swr_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			     uint64_t dm_offset, size_t length,
			     unsigned int access);

/* swr_import.c */
struct ibv_pd *swr_import_pd(struct ibv_context *ibctx, uint32_t pd_handle);
void swr_unimport_pd(struct ibv_pd *ibpd);
struct ibv_mr *swr_import_mr(struct ibv_pd *pd, uint32_t mr_handle);
void swr_unimport_mr(struct ibv_mr *ibmr);

#endif /* SWROCE_PROVIDER_H */
