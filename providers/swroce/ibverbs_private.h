/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * swroce: the libibverbs provider-private ABI, declared locally.
 *
 * libibverbs exports a second, unstable interface for its providers
 * (symbol version IBVERBS_PRIVATE_<n>), but rdma-core never installs the
 * headers describing it.  A provider built out of the rdma-core tree
 * therefore has to describe that interface itself.  This file does so for
 * IBVERBS_PRIVATE_34, i.e. rdma-core 44.x as shipped by Debian 12.
 *
 * Rules followed here:
 *  - Everything the installed public headers already provide
 *    (<infiniband/verbs.h>, <rdma/ib_user_verbs.h>, ...) is reused, not
 *    redeclared.  struct verbs_context, verbs_get_ctx(), struct ibv_cq_ex,
 *    struct ibv_qp_ex and enum rdma_driver_id are all public.
 *  - Only the layouts and prototypes libibverbs relies on are declared.
 *    Members are the same types in the same order as in rdma-core v44, so
 *    the binary layout matches; the layout is then pinned by the static
 *    assertions at the bottom, which fail the build with a message naming
 *    the struct/member if the installed libibverbs headers disagree.
 *  - The private ABI number is wired into the registration symbol name
 *    (verbs_register_driver_34), so a mismatching libibverbs refuses to
 *    load the provider instead of silently corrupting memory.
 *
 * Include after <infiniband/verbs.h> (it is included here too, so the
 * order is not strictly required).
 */
#ifndef SWROCE_IBVERBS_PRIVATE_H
#define SWROCE_IBVERBS_PRIVATE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <time.h>
#include <sys/types.h>

#include <linux/types.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>	/* enum rdma_driver_id */
#include <rdma/rdma_user_ioctl_cmds.h>

/*
 * The IBVERBS_PRIVATE_<n> generation this header describes.  libibverbs
 * bumps <n> whenever any structure below changes, and the provider file
 * name carries it too (lib<name>-rdmav34.so), so every consumer (the
 * Makefile, check-libibverbs.sh) keys off this one number.
 */
#define SWROCE_IBVERBS_PRIVATE_ABI	34

/* Kernel uverbs write() ABI range libibverbs v44 itself accepts. */
#define IB_USER_VERBS_MIN_ABI_VERSION	3
#define IB_USER_VERBS_MAX_ABI_VERSION	6

/* Via uintptr_t so that const-taking helpers don't trip -Wcast-qual. */
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((uintptr_t)(ptr) - offsetof(type, member)))
#endif

/*
 * libibverbs links its devices and drivers with ccan's intrusive list.
 * We never walk those lists, we only need the two-pointer node to take up
 * the right space inside the structs below.
 */
struct verbs_list_node {
	struct verbs_list_node *next;
	struct verbs_list_node *prev;
};

/* Opaque: the ioctl command builder.  Providers here always pass NULL. */
struct ibv_command_buffer;

/* Defined further down, but already named by verbs_context_ops. */
struct verbs_mr;

/* ------------------------------------------------------------------ */
/* Logging (exported as __verbs_log; level set by VERBS_LOG_LEVEL env). */

enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefix with device and call site; never clobber errno for the caller. */
#define verbs_log(ctx, level, fmt, ...)					\
	do {								\
		int __saved_errno = errno;				\
		__verbs_log(ctx, level, "%s: %s:%d: " fmt,		\
			    (ctx)->context.device->name, __func__,	\
			    __LINE__, ##__VA_ARGS__);			\
		errno = __saved_errno;					\
	} while (0)

#define verbs_err(ctx, fmt, ...)   verbs_log(ctx, VERBS_LOG_ERR, fmt, ##__VA_ARGS__)
#define verbs_warn(ctx, fmt, ...)  verbs_log(ctx, VERBS_LOG_WARN, fmt, ##__VA_ARGS__)
#define verbs_info(ctx, fmt, ...)  verbs_log(ctx, VERBS_LOG_INFO, fmt, ##__VA_ARGS__)
#define verbs_debug(ctx, fmt, ...) verbs_log(ctx, VERBS_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Device discovery and driver registration                            */

/* How a verbs_match_ent entry is compared against a sysfs device. */
enum {
	VERBS_MATCH_SENTINEL	= 0,	/* terminates a match table */
	VERBS_MATCH_PCI		= 1,	/* vendor/device against modalias */
	VERBS_MATCH_MODALIAS	= 2,	/* fnmatch() pattern on modalias */
	VERBS_MATCH_DRIVER_ID	= 3,	/* enum rdma_driver_id via netlink */
};

struct verbs_match_ent {
	void *driver_data;		/* handed back via sysfs_dev->match */
	union {
		const char *modalias;	/* VERBS_MATCH_MODALIAS pattern */
		uint64_t driver_id;	/* VERBS_MATCH_DRIVER_ID value */
	} u;
	uint16_t vendor;		/* VERBS_MATCH_PCI */
	uint16_t device;
	uint8_t kind;			/* VERBS_MATCH_* */
};

/* Match by the kernel-reported driver id (preferred when not UNKNOWN). */
#define VERBS_DRIVER_ID(_id)						\
	{ .u.driver_id = (_id), .kind = VERBS_MATCH_DRIVER_ID }

#define VERBS_PCI_MATCH(_vendor, _device, _data)			\
	{ .driver_data = (void *)(_data), .vendor = (_vendor),		\
	  .device = (_device), .kind = VERBS_MATCH_PCI }

#define VERBS_MODALIAS_MATCH(_pattern, _data)				\
	{ .driver_data = (void *)(_data), .u.modalias = (_pattern),	\
	  .kind = VERBS_MATCH_MODALIAS }

/*
 * Match on the ib device name: when no driver-id entry matched,
 * libibverbs runs every pattern against "rdma_device:N<ibdev name>".
 * An out-of-tree kernel driver cannot add a value to enum rdma_driver_id
 * (and must not borrow another driver's, or that provider claims the
 * device), so it reports RDMA_DRIVER_UNKNOWN and is found this way.
 */
#define VERBS_NAME_MATCH(_name_prefix, _data)				\
	{ .driver_data = (void *)(_data),				\
	  .u.modalias = "rdma_device:*N" _name_prefix "*",		\
	  .kind = VERBS_MATCH_MODALIAS }

/* verbs_sysfs_dev.flags: which lazily read fields are valid */
enum {
	VSYSFS_READ_MODALIAS	= 1 << 0,
	VSYSFS_READ_NODE_GUID	= 1 << 1,
};

/* One uverbs device as discovered by libibverbs (netlink or sysfs). */
struct verbs_sysfs_dev {
	struct verbs_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;	/* table entry that matched */
	unsigned int flags;			/* VSYSFS_READ_* */
	char sysfs_name[IBV_SYSFS_NAME_MAX];	/* "uverbs0" */
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];	/* "swroce0" */
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;			/* enum rdma_driver_id */
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;	/* the kernel driver's uverbs_abi_ver */
	struct timespec time_created;
};

struct verbs_device;

/*
 * What a provider registers.  libibverbs matches sysfs devices against
 * match_table (and/or match_device), rejects abi_ver outside
 * [match_min_abi_version, match_max_abi_version], then calls
 * alloc_device once per device and alloc_context per ibv_open_device().
 */
struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;	/* SENTINEL ended */
	const struct verbs_device_ops **static_providers;

	/* Optional; if set it has the final word after table matching. */
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/*
 * The provider allocates this (usually embedded first in its own device
 * struct) from alloc_device; libibverbs fills everything but the
 * provider's own tail.
 */
struct verbs_device {
	struct ibv_device device;		/* must stay first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct verbs_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

static inline struct verbs_device *
verbs_get_device(const struct ibv_device *dev)
{
	return container_of(dev, struct verbs_device, device);
}

/*
 * The registration entry point has the private ABI number pasted into
 * its name, so linking against another generation fails at dlopen().
 * Note the ops pointer is const: the table may live in .rodata.
 */
#define __swroce_reg_sym2(n)		verbs_register_driver_ ## n
#define __swroce_reg_sym(n)		__swroce_reg_sym2(n)
#define verbs_register_driver		__swroce_reg_sym(SWROCE_IBVERBS_PRIVATE_ABI)

void verbs_register_driver(const struct verbs_device_ops *ops);

/*
 * libibverbs dlopen()s lib<name>-rdmav34.so and expects it to register
 * itself from an ELF constructor.  (rdma-core's macro additionally emits
 * a verbs_provider_<name> alias for static linking; we never link
 * statically into libibverbs, so that is left out.)
 */
#define PROVIDER_DRIVER(provider_name, drv_ops)				\
	static void __attribute__((constructor))			\
	provider_name##_register_verbs_driver(void)			\
	{								\
		verbs_register_driver(&(drv_ops));			\
	}

/* ------------------------------------------------------------------ */
/* Contexts                                                            */

/*
 * Every verb libibverbs may dispatch to a provider, in libibverbs' own
 * (alphabetical) order.  verbs_set_ops() reads this table with the
 * layout libibverbs was compiled with, so order and types must match v44
 * exactly.  NULL entries keep the EOPNOTSUPP stubs installed when the
 * context was initialised.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
							  struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);	/* note: the verbs_mr wrapper */
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp,
				      enum ibv_wr_opcode op, uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * Allocate alloc_size zeroed bytes (the provider's context struct) and
 * initialise the struct verbs_context found context_offset bytes into it
 * (the "pointer" argument is really an offset, see the macro).  driver_id
 * is copied into every ioctl() header.  Returns the start of the
 * allocation, or NULL with errno set -- and cmd_fd already closed, so the
 * caller must not close it again.  Only this allocating variant is
 * exported; verbs_init_context() is not.
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

/*
 * drv_ctx_ptr is the (uninitialised) pointer variable that receives the
 * allocation; only its type is used.  ctx_memb names its struct
 * verbs_context member.  E.g.:
 *	ctx = verbs_init_and_alloc_context(ibdev, fd, ctx, vctx, drv_id);
 */
#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb, \
				     driver_id)				     \
	((__typeof__(drv_ctx_ptr))_verbs_init_and_alloc_context(	     \
		(ibdev), (cmd_fd), sizeof(*(drv_ctx_ptr)),		     \
		&((__typeof__(drv_ctx_ptr))NULL)->ctx_memb, (driver_id)))

/* Undo the init half; the provider frees its own allocation after. */
void verbs_uninit_context(struct verbs_context *context);

/* Install the non-NULL entries of ops; may be called more than once. */
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* ibv_open_device() with private_data forwarded to alloc_context. */
struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data);

/* Fill the core part of a CQ the provider allocated itself. */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);

/* Set from RDMAV_ALLOW_DISASSOC_DESTROY: treat EIO on destroy as success. */
extern bool verbs_allow_disassociate_destroy;

/* GID type as reported by sysfs (RoCE v1 and IB share a value). */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);

/* Read <ibdev_path>/<printf(fnfmt, ...)>; returns bytes read or -1. */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline bool check_comp_mask(uint64_t input, uint64_t supported)
{
	return (input & ~supported) == 0;
}

/* ------------------------------------------------------------------ */
/* Object wrappers: public object first, core bookkeeping after it.    */

enum verbs_xrcd_mask {
	VERBS_XRCD_HANDLE	= 1 << 0,
	VERBS_XRCD_RESERVED	= 1 << 1,
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;		/* VERBS_XRCD_* */
	uint32_t handle;
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

/* dereg_mr/rereg_mr hand this wrapper, not the ibv_mr, to the provider. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

static inline struct verbs_mr *verbs_get_mr(struct ibv_mr *mr)
{
	return container_of(mr, struct verbs_mr, ibv_mr);
}

enum verbs_qp_mask {
	VERBS_QP_XRCD		= 1 << 0,
	VERBS_QP_EX		= 1 << 1,
};

/* ibv_qp_ex begins with its ibv_qp (qp_base), hence the union. */
struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;		/* VERBS_QP_* */
	struct verbs_xrcd *xrcd;
};

/* Likewise ibv_cq_ex is laid out as a superset of ibv_cq. */
struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

enum ibv_flow_action_type {
	IBV_FLOW_ACTION_UNSPECIFIED,
	IBV_FLOW_ACTION_ESP = 1,
};

struct verbs_flow_action {
	struct ibv_flow_action action;
	uint32_t handle;
	enum ibv_flow_action_type type;
};

struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

struct verbs_counters {
	struct ibv_counters counters;
	uint32_t handle;
};

/* cmd_flags argument of ibv_cmd_create_cq_ex() */
enum create_cq_cmd_flags {
	/*
	 * Timestamp wc_flags were requested but the provider produces the
	 * timestamps itself, so the kernel need not support them.
	 */
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
};

/* ------------------------------------------------------------------ */
/* write()-ABI command buffers                                         */
/*
 * Providers pass these to ibv_cmd_*() with their own driver data
 * appended directly after (cmd_size covers both).  libibverbs only looks
 * at sizeof(core command) bytes, and everything past that is forwarded to
 * the kernel driver as udata (UVERBS_ATTR_UHW_IN), so sizeof() of each
 * struct below is ABI.  Each is
 *
 *	header, then a union of
 *	  - the kernel request's fields, unnamed so cmd.foo works, and
 *	  - the kernel request itself as core_payload
 *
 * The flattened copies leave out the kernel structs' trailing
 * driver_data[]/send_wr[] flexible arrays: they add no size and the
 * core_payload twin already gives the union its size and alignment.
 * Every flattened field's offset is checked against core_payload below.
 *
 * Legacy verbs use the 8-byte struct ib_uverbs_cmd_hdr; "extended"
 * verbs (IB_USER_VERBS_EX_CMD_*) use the 24-byte struct ex_hdr.
 */

struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

/* Driver payload placeholder when a command carries no private data. */
struct empty {};

struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
		};
		struct ib_uverbs_get_context core_payload;
	};
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
		};
		struct ib_uverbs_alloc_pd core_payload;
	};
};

struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 pd_handle;
			__u8 mw_type;
			__u8 reserved[3];
		};
		struct ib_uverbs_alloc_mw core_payload;
	};
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 start;
			__aligned_u64 length;
			__aligned_u64 hca_va;
			__u32 pd_handle;
			__u32 access_flags;
		};
		struct ib_uverbs_reg_mr core_payload;
	};
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 mr_handle;
			__u32 flags;
			__aligned_u64 start;
			__aligned_u64 length;
			__aligned_u64 hca_va;
			__u32 pd_handle;
			__u32 access_flags;
		};
		struct ib_uverbs_rereg_mr core_payload;
	};
};

struct ibv_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 cqe;
			__u32 comp_vector;
			__s32 comp_channel;
			__u32 reserved;
		};
		struct ib_uverbs_create_cq core_payload;
	};
};

struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	union {
		struct {
			__aligned_u64 user_handle;
			__u32 cqe;
			__u32 comp_vector;
			__s32 comp_channel;
			__u32 comp_mask;
			__u32 flags;
			__u32 reserved;
		};
		struct ib_uverbs_ex_create_cq core_payload;
	};
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 cq_handle;
			__u32 cqe;
		};
		struct ib_uverbs_resize_cq core_payload;
	};
};

struct ibv_modify_cq {
	struct ex_hdr hdr;
	union {
		struct {
			__u32 cq_handle;
			__u32 attr_mask;
			struct ib_uverbs_cq_moderation attr;
			__u32 reserved;
		};
		struct ib_uverbs_ex_modify_cq core_payload;
	};
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 send_cq_handle;
			__u32 recv_cq_handle;
			__u32 srq_handle;
			__u32 max_send_wr;
			__u32 max_recv_wr;
			__u32 max_send_sge;
			__u32 max_recv_sge;
			__u32 max_inline_data;
			__u8 sq_sig_all;
			__u8 qp_type;
			__u8 is_srq;
			__u8 reserved;
		};
		struct ib_uverbs_create_qp core_payload;
	};
};

/* No response pointer here: extended commands carry it in ex_hdr. */
struct ibv_create_qp_ex {
	struct ex_hdr hdr;
	union {
		struct {
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 send_cq_handle;
			__u32 recv_cq_handle;
			__u32 srq_handle;
			__u32 max_send_wr;
			__u32 max_recv_wr;
			__u32 max_send_sge;
			__u32 max_recv_sge;
			__u32 max_inline_data;
			__u8 sq_sig_all;
			__u8 qp_type;
			__u8 is_srq;
			__u8 reserved;
			__u32 comp_mask;
			__u32 create_flags;
			__u32 rwq_ind_tbl_handle;
			__u32 source_qpn;
		};
		struct ib_uverbs_ex_create_qp core_payload;
	};
};

struct ibv_open_qp {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 qpn;
			__u8 qp_type;
			__u8 reserved[7];
		};
		struct ib_uverbs_open_qp core_payload;
	};
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			struct ib_uverbs_qp_dest dest;
			struct ib_uverbs_qp_dest alt_dest;
			__u32 qp_handle;
			__u32 attr_mask;
			__u32 qkey;
			__u32 rq_psn;
			__u32 sq_psn;
			__u32 dest_qp_num;
			__u32 qp_access_flags;
			__u16 pkey_index;
			__u16 alt_pkey_index;
			__u8 qp_state;
			__u8 cur_qp_state;
			__u8 path_mtu;
			__u8 path_mig_state;
			__u8 en_sqd_async_notify;
			__u8 max_rd_atomic;
			__u8 max_dest_rd_atomic;
			__u8 min_rnr_timer;
			__u8 port_num;
			__u8 timeout;
			__u8 retry_cnt;
			__u8 rnr_retry;
			__u8 alt_port_num;
			__u8 alt_timeout;
			__u8 reserved[2];
		};
		struct ib_uverbs_modify_qp core_payload;
	};
};

struct ibv_modify_qp_ex {
	struct ex_hdr hdr;
	union {
		struct {
			struct ib_uverbs_modify_qp base;
			__u32 rate_limit;
			__u32 reserved;
		};
		struct ib_uverbs_ex_modify_qp core_payload;
	};
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 qp_handle;
			__u32 attr_mask;
		};
		struct ib_uverbs_query_qp core_payload;
	};
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 max_wr;
			__u32 max_sge;
			__u32 srq_limit;
		};
		struct ib_uverbs_create_srq core_payload;
	};
};

/* The SRQ-with-type command used by ibv_cmd_create_srq_ex(). */
struct ibv_create_xsrq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 srq_type;
			__u32 pd_handle;
			__u32 max_wr;
			__u32 max_sge;
			__u32 srq_limit;
			__u32 max_num_tags;
			__u32 xrcd_handle;
			__u32 cq_handle;
		};
		struct ib_uverbs_create_xsrq core_payload;
	};
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__u32 srq_handle;
			__u32 attr_mask;
			__u32 max_wr;
			__u32 srq_limit;
		};
		struct ib_uverbs_modify_srq core_payload;
	};
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 srq_handle;
			__u32 reserved;
		};
		struct ib_uverbs_query_srq core_payload;
	};
};

struct ibv_create_ah {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 reserved;
			struct ib_uverbs_ah_attr attr;
		};
		struct ib_uverbs_create_ah core_payload;
	};
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u8 port_num;
			__u8 reserved[7];
		};
		struct ib_uverbs_query_port core_payload;
	};
};

/*
 * Only used directly: a provider may write() a zero-WR post_send to the
 * cmd_fd as a doorbell (the send_wr[] array simply stays empty).
 */
struct ibv_post_send {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 qp_handle;
			__u32 wr_count;
			__u32 sge_count;
			__u32 wqe_size;
		};
		struct ib_uverbs_post_send core_payload;
	};
};

struct ibv_open_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 fd;
			__u32 oflags;
		};
		struct ib_uverbs_open_xrcd core_payload;
	};
};

struct ibv_create_wq {
	struct ex_hdr hdr;
	union {
		struct {
			__u32 comp_mask;
			__u32 wq_type;
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 cq_handle;
			__u32 max_wr;
			__u32 max_sge;
			__u32 create_flags;
			__u32 reserved;
		};
		struct ib_uverbs_ex_create_wq core_payload;
	};
};

struct ibv_modify_wq {
	struct ex_hdr hdr;
	union {
		struct {
			__u32 attr_mask;
			__u32 wq_handle;
			__u32 wq_state;
			__u32 curr_wq_state;
			__u32 flags;
			__u32 flags_mask;
		};
		struct ib_uverbs_ex_modify_wq core_payload;
	};
};

/*
 * Command enum -> (request wrapper, kernel response, required alignment).
 * Legacy commands count their length in 4-byte words, extended ones need
 * the provider part in 8-byte units, hence the differing alignment.
 */
#define SWROCE_CMD_BIND(_enum, _req, _resp, _align)			\
	typedef struct _req swroce_cmd_req_##_enum;			\
	typedef struct _resp swroce_cmd_resp_##_enum;			\
	enum { swroce_cmd_align_##_enum = (_align) };			\
	_Static_assert(sizeof(struct _resp) % (_align) == 0,		\
		       "libibverbs ABI: " #_resp " not a multiple of "	\
		       #_align " bytes")

SWROCE_CMD_BIND(IB_USER_VERBS_CMD_GET_CONTEXT, ibv_get_context, ib_uverbs_get_context_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_ALLOC_PD, ibv_alloc_pd, ib_uverbs_alloc_pd_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_ALLOC_MW, ibv_alloc_mw, ib_uverbs_alloc_mw_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_REG_MR, ibv_reg_mr, ib_uverbs_reg_mr_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_REREG_MR, ibv_rereg_mr, ib_uverbs_rereg_mr_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_CREATE_CQ, ibv_create_cq, ib_uverbs_create_cq_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_RESIZE_CQ, ibv_resize_cq, ib_uverbs_resize_cq_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_CREATE_QP, ibv_create_qp, ib_uverbs_create_qp_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_OPEN_QP, ibv_open_qp, ib_uverbs_create_qp_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_MODIFY_QP, ibv_modify_qp, empty, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_QUERY_QP, ibv_query_qp, ib_uverbs_query_qp_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_CREATE_SRQ, ibv_create_srq, ib_uverbs_create_srq_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_CREATE_XSRQ, ibv_create_xsrq, ib_uverbs_create_srq_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_MODIFY_SRQ, ibv_modify_srq, empty, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_QUERY_SRQ, ibv_query_srq, ib_uverbs_query_srq_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_CREATE_AH, ibv_create_ah, ib_uverbs_create_ah_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_QUERY_PORT, ibv_query_port, ib_uverbs_query_port_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_POST_SEND, ibv_post_send, ib_uverbs_post_send_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_CMD_OPEN_XRCD, ibv_open_xrcd, ib_uverbs_open_xrcd_resp, 4);
SWROCE_CMD_BIND(IB_USER_VERBS_EX_CMD_CREATE_CQ, ibv_create_cq_ex, ib_uverbs_ex_create_cq_resp, 8);
SWROCE_CMD_BIND(IB_USER_VERBS_EX_CMD_MODIFY_CQ, ibv_modify_cq, empty, 8);
SWROCE_CMD_BIND(IB_USER_VERBS_EX_CMD_CREATE_QP, ibv_create_qp_ex, ib_uverbs_ex_create_qp_resp, 8);
SWROCE_CMD_BIND(IB_USER_VERBS_EX_CMD_MODIFY_QP, ibv_modify_qp_ex, ib_uverbs_ex_modify_qp_resp, 8);
SWROCE_CMD_BIND(IB_USER_VERBS_EX_CMD_CREATE_WQ, ibv_create_wq, ib_uverbs_ex_create_wq_resp, 8);
SWROCE_CMD_BIND(IB_USER_VERBS_EX_CMD_MODIFY_WQ, ibv_modify_wq, empty, 8);

/*
 * Provider command/response pair, same call shape as rdma-core's macro:
 *
 *	DECLARE_DRV_CMD(uswroce_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
 *			empty, swroce_create_cq_resp);
 *
 * gives
 *	struct uswroce_create_cq      { struct ibv_create_cq ibv_cmd;
 *					struct empty drv_payload; };
 *	struct uswroce_create_cq_resp { struct ib_uverbs_create_cq_resp ibv_resp;
 *					struct swroce_create_cq_resp drv_payload; };
 *
 * Unlike rdma-core (which has generated per-struct field lists), the
 * driver's fields are reached through .drv_payload, not flattened.  The
 * asserts reject any padding between or after the two halves: the kernel
 * locates the driver data purely by the core size.
 */
#define DECLARE_DRV_CMD(_name, _enum, _drv_req, _drv_resp)		\
	struct _name {							\
		swroce_cmd_req_##_enum ibv_cmd;				\
		struct _drv_req drv_payload;				\
	};								\
	struct _name##_resp {						\
		swroce_cmd_resp_##_enum ibv_resp;			\
		struct _drv_resp drv_payload;				\
	};								\
	_Static_assert(sizeof(struct _name) ==				\
		       sizeof(swroce_cmd_req_##_enum) +			\
		       sizeof(struct _drv_req),				\
		       #_name ": padding between core and " #_drv_req);	\
	_Static_assert(sizeof(struct _name) %				\
		       swroce_cmd_align_##_enum == 0,			\
		       #_name ": size not a multiple of the "		\
		       "command alignment");				\
	_Static_assert(sizeof(struct _name##_resp) ==			\
		       sizeof(swroce_cmd_resp_##_enum) +		\
		       sizeof(struct _drv_resp),			\
		       #_name "_resp: padding between core and "	\
		       #_drv_resp);					\
	_Static_assert(sizeof(struct _name##_resp) %			\
		       swroce_cmd_align_##_enum == 0,			\
		       #_name "_resp: size not a multiple of the "	\
		       "command alignment")

/* ------------------------------------------------------------------ */
/* ibv_cmd_*: the core's kernel-command helpers (IBVERBS_PRIVATE_34).  */
/*
 * Conventions: cmd/cmd_size is the provider's wrapper (core + driver
 * part) and resp/resp_size likewise; both may simply be the core struct.
 * They try the ioctl() interface first and fall back to write() (the
 * command header is then filled in inside the caller's cmd buffer).
 * They return 0 or a positive errno value, except ibv_cmd_poll_cq(),
 * which returns a completion count or -1 like ibv_poll_cq().
 */

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);

int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);

int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
/* Note flags is uint32_t here but int in verbs_context_ops.rereg_mr. */
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);

int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
/*
 * Takes the attr struct and a struct verbs_cq, the extended (ex_hdr)
 * command and response, and cmd_flags (CREATE_CQ_CMD_FLAGS_*).
 */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size);

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct ibv_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
/*
 * _ex takes the extended attrs (PD/XRCD/SEND_OPS_FLAGS only) but the
 * legacy create_qp command/response; _ex2 additionally accepts
 * CREATE_FLAGS/MAX_TSO_HEADER/IND_TABLE/RX_HASH and uses the ex_hdr
 * command struct ibv_create_qp_ex and the ex response.
 */
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);

/* Kernel-executed data path (software devices can route WRs via uverbs). */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);

/* No command struct: the AH command is built internally. */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
		      struct ibv_create_wq *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);

/* Rest of the exported set; link may be NULL. */
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link);
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);

/* ------------------------------------------------------------------ */
/* Layout pins                                                         */
/*
 * The table below is rdma-core v44's own layout on LP64 (the values a
 * real v44 build produces).  It is an X-macro so that the same list both
 * becomes compile-time assertions here and is printed, computed afresh,
 * by abi_layout_check.c in exactly this order for diffing against a
 * reference dump.  S(type, size), O(type, member, offset).
 */
#define SWROCE_IBVERBS_V44_LAYOUT(S, O)					\
	S(struct verbs_match_ent, 24)					\
	O(struct verbs_match_ent, driver_data, 0)			\
	O(struct verbs_match_ent, u, 8)					\
	O(struct verbs_match_ent, vendor, 16)				\
	O(struct verbs_match_ent, device, 18)				\
	O(struct verbs_match_ent, kind, 20)				\
	S(struct verbs_sysfs_dev, 992)					\
	O(struct verbs_sysfs_dev, entry, 0)				\
	O(struct verbs_sysfs_dev, provider_data, 16)			\
	O(struct verbs_sysfs_dev, match, 24)				\
	O(struct verbs_sysfs_dev, flags, 32)				\
	O(struct verbs_sysfs_dev, sysfs_name, 36)			\
	O(struct verbs_sysfs_dev, sysfs_cdev, 104)			\
	O(struct verbs_sysfs_dev, ibdev_name, 112)			\
	O(struct verbs_sysfs_dev, ibdev_path, 176)			\
	O(struct verbs_sysfs_dev, modalias, 432)			\
	O(struct verbs_sysfs_dev, node_guid, 944)			\
	O(struct verbs_sysfs_dev, driver_id, 952)			\
	O(struct verbs_sysfs_dev, node_type, 956)			\
	O(struct verbs_sysfs_dev, ibdev_idx, 960)			\
	O(struct verbs_sysfs_dev, num_ports, 964)			\
	O(struct verbs_sysfs_dev, abi_ver, 968)				\
	O(struct verbs_sysfs_dev, time_created, 976)			\
	S(struct verbs_device_ops, 72)					\
	O(struct verbs_device_ops, name, 0)				\
	O(struct verbs_device_ops, match_min_abi_version, 8)		\
	O(struct verbs_device_ops, match_max_abi_version, 12)		\
	O(struct verbs_device_ops, match_table, 16)			\
	O(struct verbs_device_ops, static_providers, 24)		\
	O(struct verbs_device_ops, match_device, 32)			\
	O(struct verbs_device_ops, alloc_context, 40)			\
	O(struct verbs_device_ops, import_context, 48)			\
	O(struct verbs_device_ops, alloc_device, 56)			\
	O(struct verbs_device_ops, uninit_device, 64)			\
	S(struct ibv_device, 664)					\
	S(struct verbs_device, 712)					\
	O(struct verbs_device, device, 0)				\
	O(struct verbs_device, ops, 664)				\
	O(struct verbs_device, refcount, 672)				\
	O(struct verbs_device, entry, 680)				\
	O(struct verbs_device, sysfs, 696)				\
	O(struct verbs_device, core_support, 704)			\
	S(struct verbs_context, 648)					\
	O(struct verbs_context, priv, 208)				\
	O(struct verbs_context, sz, 312)				\
	O(struct verbs_context, context, 320)				\
	S(struct ibv_context, 328)					\
	S(struct verbs_context_ops, 608)				\
	O(struct verbs_context_ops, advise_mr, 0)			\
	O(struct verbs_context_ops, alloc_dm, 8)			\
	O(struct verbs_context_ops, alloc_mw, 16)			\
	O(struct verbs_context_ops, alloc_null_mr, 24)			\
	O(struct verbs_context_ops, alloc_parent_domain, 32)		\
	O(struct verbs_context_ops, alloc_pd, 40)			\
	O(struct verbs_context_ops, alloc_td, 48)			\
	O(struct verbs_context_ops, async_event, 56)			\
	O(struct verbs_context_ops, attach_counters_point_flow, 64)	\
	O(struct verbs_context_ops, attach_mcast, 72)			\
	O(struct verbs_context_ops, bind_mw, 80)			\
	O(struct verbs_context_ops, close_xrcd, 88)			\
	O(struct verbs_context_ops, cq_event, 96)			\
	O(struct verbs_context_ops, create_ah, 104)			\
	O(struct verbs_context_ops, create_counters, 112)		\
	O(struct verbs_context_ops, create_cq, 120)			\
	O(struct verbs_context_ops, create_cq_ex, 128)			\
	O(struct verbs_context_ops, create_flow, 136)			\
	O(struct verbs_context_ops, create_flow_action_esp, 144)	\
	O(struct verbs_context_ops, create_qp, 152)			\
	O(struct verbs_context_ops, create_qp_ex, 160)			\
	O(struct verbs_context_ops, create_rwq_ind_table, 168)		\
	O(struct verbs_context_ops, create_srq, 176)			\
	O(struct verbs_context_ops, create_srq_ex, 184)			\
	O(struct verbs_context_ops, create_wq, 192)			\
	O(struct verbs_context_ops, dealloc_mw, 200)			\
	O(struct verbs_context_ops, dealloc_pd, 208)			\
	O(struct verbs_context_ops, dealloc_td, 216)			\
	O(struct verbs_context_ops, dereg_mr, 224)			\
	O(struct verbs_context_ops, destroy_ah, 232)			\
	O(struct verbs_context_ops, destroy_counters, 240)		\
	O(struct verbs_context_ops, destroy_cq, 248)			\
	O(struct verbs_context_ops, destroy_flow, 256)			\
	O(struct verbs_context_ops, destroy_flow_action, 264)		\
	O(struct verbs_context_ops, destroy_qp, 272)			\
	O(struct verbs_context_ops, destroy_rwq_ind_table, 280)		\
	O(struct verbs_context_ops, destroy_srq, 288)			\
	O(struct verbs_context_ops, destroy_wq, 296)			\
	O(struct verbs_context_ops, detach_mcast, 304)			\
	O(struct verbs_context_ops, free_context, 312)			\
	O(struct verbs_context_ops, free_dm, 320)			\
	O(struct verbs_context_ops, get_srq_num, 328)			\
	O(struct verbs_context_ops, import_dm, 336)			\
	O(struct verbs_context_ops, import_mr, 344)			\
	O(struct verbs_context_ops, import_pd, 352)			\
	O(struct verbs_context_ops, modify_cq, 360)			\
	O(struct verbs_context_ops, modify_flow_action_esp, 368)	\
	O(struct verbs_context_ops, modify_qp, 376)			\
	O(struct verbs_context_ops, modify_qp_rate_limit, 384)		\
	O(struct verbs_context_ops, modify_srq, 392)			\
	O(struct verbs_context_ops, modify_wq, 400)			\
	O(struct verbs_context_ops, open_qp, 408)			\
	O(struct verbs_context_ops, open_xrcd, 416)			\
	O(struct verbs_context_ops, poll_cq, 424)			\
	O(struct verbs_context_ops, post_recv, 432)			\
	O(struct verbs_context_ops, post_send, 440)			\
	O(struct verbs_context_ops, post_srq_ops, 448)			\
	O(struct verbs_context_ops, post_srq_recv, 456)			\
	O(struct verbs_context_ops, query_device_ex, 464)		\
	O(struct verbs_context_ops, query_ece, 472)			\
	O(struct verbs_context_ops, query_port, 480)			\
	O(struct verbs_context_ops, query_qp, 488)			\
	O(struct verbs_context_ops, query_qp_data_in_order, 496)	\
	O(struct verbs_context_ops, query_rt_values, 504)		\
	O(struct verbs_context_ops, query_srq, 512)			\
	O(struct verbs_context_ops, read_counters, 520)			\
	O(struct verbs_context_ops, reg_dm_mr, 528)			\
	O(struct verbs_context_ops, reg_dmabuf_mr, 536)			\
	O(struct verbs_context_ops, reg_mr, 544)			\
	O(struct verbs_context_ops, req_notify_cq, 552)			\
	O(struct verbs_context_ops, rereg_mr, 560)			\
	O(struct verbs_context_ops, resize_cq, 568)			\
	O(struct verbs_context_ops, set_ece, 576)			\
	O(struct verbs_context_ops, unimport_dm, 584)			\
	O(struct verbs_context_ops, unimport_mr, 592)			\
	O(struct verbs_context_ops, unimport_pd, 600)			\
	S(struct verbs_xrcd, 16)					\
	O(struct verbs_xrcd, comp_mask, 8)				\
	O(struct verbs_xrcd, handle, 12)				\
	S(struct verbs_srq, 160)					\
	O(struct verbs_srq, srq_type, 128)				\
	O(struct verbs_srq, xrcd, 136)					\
	O(struct verbs_srq, cq, 144)					\
	O(struct verbs_srq, srq_num, 152)				\
	S(struct verbs_mr, 56)						\
	O(struct verbs_mr, mr_type, 48)					\
	O(struct verbs_mr, access, 52)					\
	S(struct verbs_qp, 368)						\
	O(struct verbs_qp, qp, 0)					\
	O(struct verbs_qp, qp_ex, 0)					\
	O(struct verbs_qp, comp_mask, 352)				\
	O(struct verbs_qp, xrcd, 360)					\
	S(struct ibv_qp, 160)						\
	S(struct ibv_qp_ex, 352)					\
	S(struct verbs_cq, 288)						\
	S(struct ibv_cq, 128)						\
	S(struct ibv_cq_ex, 288)					\
	S(struct verbs_flow_action, 16)					\
	S(struct verbs_dm, 40)						\
	S(struct verbs_counters, 16)					\
	S(struct ex_hdr, 24)						\
	S(struct ibv_alloc_mw, 24)					\
	S(struct ibv_alloc_pd, 16)					\
	S(struct ibv_create_ah, 64)					\
	S(struct ibv_create_cq, 40)					\
	S(struct ibv_create_qp, 64)					\
	S(struct ibv_create_srq, 40)					\
	S(struct ibv_create_xsrq, 56)					\
	S(struct ibv_get_context, 16)					\
	S(struct ibv_modify_qp, 120)					\
	S(struct ibv_modify_srq, 24)					\
	S(struct ibv_open_qp, 40)					\
	S(struct ibv_open_xrcd, 24)					\
	S(struct ibv_post_send, 32)					\
	S(struct ibv_query_port, 24)					\
	S(struct ibv_query_qp, 24)					\
	S(struct ibv_query_srq, 24)					\
	S(struct ibv_reg_mr, 48)					\
	S(struct ibv_rereg_mr, 56)					\
	S(struct ibv_resize_cq, 24)					\
	S(struct ibv_create_cq_ex, 56)					\
	S(struct ibv_create_qp_ex, 88)					\
	S(struct ibv_create_wq, 64)					\
	S(struct ibv_modify_qp_ex, 144)					\
	S(struct ibv_modify_wq, 48)					\
	S(struct ibv_modify_cq, 40)					\
	O(struct ibv_create_cq, core_payload, 8)			\
	O(struct ibv_create_cq_ex, core_payload, 24)			\
	O(struct ibv_create_qp_ex, core_payload, 24)			\
	O(struct ibv_post_send, core_payload, 8)			\
	S(struct ib_uverbs_get_context_resp, 8)				\
	S(struct ib_uverbs_create_cq_resp, 8)				\
	S(struct ib_uverbs_ex_create_cq_resp, 16)			\
	S(struct ib_uverbs_create_qp_resp, 32)				\
	S(struct ib_uverbs_ex_create_qp_resp, 40)			\
	S(struct ib_uverbs_create_srq_resp, 16)				\
	S(struct ib_uverbs_reg_mr_resp, 12)				\
	S(struct ib_uverbs_alloc_pd_resp, 4)				\
	S(struct ib_uverbs_create_ah_resp, 4)				\
	S(struct ib_uverbs_ex_query_device_resp, 304)			\
	S(struct ib_uverbs_resize_cq_resp, 8)				\
	S(struct ib_uverbs_post_send_resp, 4)

/* The numbers above are LP64 ones; refuse other ABIs outright. */
_Static_assert(sizeof(void *) == 8 && sizeof(long) == 8,
	       "swroce ibverbs_private.h: only the LP64 layout is pinned");

#define SWROCE_ASSERT_SIZE(type, n)					\
	_Static_assert(sizeof(type) == (n),				\
		       "libibverbs IBVERBS_PRIVATE_34 ABI mismatch: "	\
		       "sizeof(" #type ") != " #n);
#define SWROCE_ASSERT_OFFSET(type, memb, n)				\
	_Static_assert(offsetof(type, memb) == (n),			\
		       "libibverbs IBVERBS_PRIVATE_34 ABI mismatch: "	\
		       "offsetof(" #type ", " #memb ") != " #n);

SWROCE_IBVERBS_V44_LAYOUT(SWROCE_ASSERT_SIZE, SWROCE_ASSERT_OFFSET)

/* libibverbs casts between these freely. */
_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0,
	       "struct ibv_qp_ex: qp_base must be first");
_Static_assert(offsetof(struct verbs_cq, cq) == 0 &&
	       offsetof(struct verbs_cq, cq_ex) == 0,
	       "struct verbs_cq: cq and cq_ex must overlay");
_Static_assert(offsetof(struct verbs_device, device) == 0,
	       "struct verbs_device: device must be first");
_Static_assert(offsetof(struct verbs_context, context) +
	       sizeof(struct ibv_context) == sizeof(struct verbs_context),
	       "struct verbs_context: context must be the last member");
_Static_assert(offsetof(struct verbs_context, sz) + sizeof(size_t) ==
	       offsetof(struct verbs_context, context),
	       "struct verbs_context: sz must sit right before context");
_Static_assert(sizeof(struct verbs_context_ops) == 76 * sizeof(void *),
	       "struct verbs_context_ops: v44 has exactly 76 ops");

/*
 * Each command = header + kernel request, nothing else; and every
 * flattened field sits exactly where the kernel struct has it.
 */
#define SWROCE_ASSERT_CMD(type, hdr_size)				\
	_Static_assert(offsetof(type, core_payload) == (hdr_size) &&	\
		       sizeof(type) == (hdr_size) +			\
		       sizeof(((type *)0)->core_payload),		\
		       #type ": must be header + core_payload exactly")
#define SWROCE_ASSERT_FIELD(type, memb)					\
	_Static_assert(offsetof(type, memb) ==				\
		       offsetof(type, core_payload) +			\
		       offsetof(__typeof__(((type *)0)->core_payload), memb), \
		       #type "." #memb ": differs from the kernel struct")

SWROCE_ASSERT_CMD(struct ibv_get_context, 8);
SWROCE_ASSERT_FIELD(struct ibv_get_context, response);

SWROCE_ASSERT_CMD(struct ibv_alloc_pd, 8);
SWROCE_ASSERT_FIELD(struct ibv_alloc_pd, response);

SWROCE_ASSERT_CMD(struct ibv_alloc_mw, 8);
SWROCE_ASSERT_FIELD(struct ibv_alloc_mw, response);
SWROCE_ASSERT_FIELD(struct ibv_alloc_mw, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_alloc_mw, mw_type);
SWROCE_ASSERT_FIELD(struct ibv_alloc_mw, reserved);

SWROCE_ASSERT_CMD(struct ibv_reg_mr, 8);
SWROCE_ASSERT_FIELD(struct ibv_reg_mr, response);
SWROCE_ASSERT_FIELD(struct ibv_reg_mr, start);
SWROCE_ASSERT_FIELD(struct ibv_reg_mr, length);
SWROCE_ASSERT_FIELD(struct ibv_reg_mr, hca_va);
SWROCE_ASSERT_FIELD(struct ibv_reg_mr, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_reg_mr, access_flags);

SWROCE_ASSERT_CMD(struct ibv_rereg_mr, 8);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, response);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, mr_handle);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, flags);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, start);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, length);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, hca_va);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_rereg_mr, access_flags);

SWROCE_ASSERT_CMD(struct ibv_create_cq, 8);
SWROCE_ASSERT_FIELD(struct ibv_create_cq, response);
SWROCE_ASSERT_FIELD(struct ibv_create_cq, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_cq, cqe);
SWROCE_ASSERT_FIELD(struct ibv_create_cq, comp_vector);
SWROCE_ASSERT_FIELD(struct ibv_create_cq, comp_channel);
SWROCE_ASSERT_FIELD(struct ibv_create_cq, reserved);

SWROCE_ASSERT_CMD(struct ibv_create_cq_ex, 24);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, cqe);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, comp_vector);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, comp_channel);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, comp_mask);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, flags);
SWROCE_ASSERT_FIELD(struct ibv_create_cq_ex, reserved);

SWROCE_ASSERT_CMD(struct ibv_resize_cq, 8);
SWROCE_ASSERT_FIELD(struct ibv_resize_cq, response);
SWROCE_ASSERT_FIELD(struct ibv_resize_cq, cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_resize_cq, cqe);

SWROCE_ASSERT_CMD(struct ibv_modify_cq, 24);
SWROCE_ASSERT_FIELD(struct ibv_modify_cq, cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_modify_cq, attr_mask);
SWROCE_ASSERT_FIELD(struct ibv_modify_cq, attr);
SWROCE_ASSERT_FIELD(struct ibv_modify_cq, reserved);

SWROCE_ASSERT_CMD(struct ibv_create_qp, 8);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, response);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, send_cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, recv_cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, srq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, max_send_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, max_recv_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, max_send_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, max_recv_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, max_inline_data);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, sq_sig_all);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, qp_type);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, is_srq);
SWROCE_ASSERT_FIELD(struct ibv_create_qp, reserved);

SWROCE_ASSERT_CMD(struct ibv_create_qp_ex, 24);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, send_cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, recv_cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, srq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, max_send_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, max_recv_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, max_send_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, max_recv_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, max_inline_data);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, sq_sig_all);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, qp_type);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, is_srq);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, reserved);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, comp_mask);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, create_flags);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, rwq_ind_tbl_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_qp_ex, source_qpn);

SWROCE_ASSERT_CMD(struct ibv_open_qp, 8);
SWROCE_ASSERT_FIELD(struct ibv_open_qp, response);
SWROCE_ASSERT_FIELD(struct ibv_open_qp, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_open_qp, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_open_qp, qpn);
SWROCE_ASSERT_FIELD(struct ibv_open_qp, qp_type);
SWROCE_ASSERT_FIELD(struct ibv_open_qp, reserved);

SWROCE_ASSERT_CMD(struct ibv_modify_qp, 8);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, dest);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, alt_dest);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, qp_handle);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, attr_mask);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, qkey);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, rq_psn);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, sq_psn);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, dest_qp_num);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, qp_access_flags);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, pkey_index);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, alt_pkey_index);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, qp_state);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, cur_qp_state);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, path_mtu);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, path_mig_state);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, en_sqd_async_notify);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, max_rd_atomic);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, max_dest_rd_atomic);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, min_rnr_timer);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, port_num);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, timeout);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, retry_cnt);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, rnr_retry);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, alt_port_num);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, alt_timeout);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp, reserved);

SWROCE_ASSERT_CMD(struct ibv_modify_qp_ex, 24);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp_ex, base);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp_ex, rate_limit);
SWROCE_ASSERT_FIELD(struct ibv_modify_qp_ex, reserved);

SWROCE_ASSERT_CMD(struct ibv_query_qp, 8);
SWROCE_ASSERT_FIELD(struct ibv_query_qp, response);
SWROCE_ASSERT_FIELD(struct ibv_query_qp, qp_handle);
SWROCE_ASSERT_FIELD(struct ibv_query_qp, attr_mask);

SWROCE_ASSERT_CMD(struct ibv_create_srq, 8);
SWROCE_ASSERT_FIELD(struct ibv_create_srq, response);
SWROCE_ASSERT_FIELD(struct ibv_create_srq, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_srq, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_srq, max_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_srq, max_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_srq, srq_limit);

SWROCE_ASSERT_CMD(struct ibv_create_xsrq, 8);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, response);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, srq_type);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, max_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, max_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, srq_limit);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, max_num_tags);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, xrcd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_xsrq, cq_handle);

SWROCE_ASSERT_CMD(struct ibv_modify_srq, 8);
SWROCE_ASSERT_FIELD(struct ibv_modify_srq, srq_handle);
SWROCE_ASSERT_FIELD(struct ibv_modify_srq, attr_mask);
SWROCE_ASSERT_FIELD(struct ibv_modify_srq, max_wr);
SWROCE_ASSERT_FIELD(struct ibv_modify_srq, srq_limit);

SWROCE_ASSERT_CMD(struct ibv_query_srq, 8);
SWROCE_ASSERT_FIELD(struct ibv_query_srq, response);
SWROCE_ASSERT_FIELD(struct ibv_query_srq, srq_handle);
SWROCE_ASSERT_FIELD(struct ibv_query_srq, reserved);

SWROCE_ASSERT_CMD(struct ibv_create_ah, 8);
SWROCE_ASSERT_FIELD(struct ibv_create_ah, response);
SWROCE_ASSERT_FIELD(struct ibv_create_ah, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_ah, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_ah, reserved);
SWROCE_ASSERT_FIELD(struct ibv_create_ah, attr);

SWROCE_ASSERT_CMD(struct ibv_query_port, 8);
SWROCE_ASSERT_FIELD(struct ibv_query_port, response);
SWROCE_ASSERT_FIELD(struct ibv_query_port, port_num);
SWROCE_ASSERT_FIELD(struct ibv_query_port, reserved);

SWROCE_ASSERT_CMD(struct ibv_post_send, 8);
SWROCE_ASSERT_FIELD(struct ibv_post_send, response);
SWROCE_ASSERT_FIELD(struct ibv_post_send, qp_handle);
SWROCE_ASSERT_FIELD(struct ibv_post_send, wr_count);
SWROCE_ASSERT_FIELD(struct ibv_post_send, sge_count);
SWROCE_ASSERT_FIELD(struct ibv_post_send, wqe_size);

SWROCE_ASSERT_CMD(struct ibv_open_xrcd, 8);
SWROCE_ASSERT_FIELD(struct ibv_open_xrcd, response);
SWROCE_ASSERT_FIELD(struct ibv_open_xrcd, fd);
SWROCE_ASSERT_FIELD(struct ibv_open_xrcd, oflags);

SWROCE_ASSERT_CMD(struct ibv_create_wq, 24);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, comp_mask);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, wq_type);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, user_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, pd_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, cq_handle);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, max_wr);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, max_sge);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, create_flags);
SWROCE_ASSERT_FIELD(struct ibv_create_wq, reserved);

SWROCE_ASSERT_CMD(struct ibv_modify_wq, 24);
SWROCE_ASSERT_FIELD(struct ibv_modify_wq, attr_mask);
SWROCE_ASSERT_FIELD(struct ibv_modify_wq, wq_handle);
SWROCE_ASSERT_FIELD(struct ibv_modify_wq, wq_state);
SWROCE_ASSERT_FIELD(struct ibv_modify_wq, curr_wq_state);
SWROCE_ASSERT_FIELD(struct ibv_modify_wq, flags);
SWROCE_ASSERT_FIELD(struct ibv_modify_wq, flags_mask);

#endif /* SWROCE_IBVERBS_PRIVATE_H */
