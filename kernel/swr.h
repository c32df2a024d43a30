/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * swroce: a software RoCEv2 device.
 *
 * Objects and their lifetimes
 * ---------------------------
 * struct swr_dev embeds the ib_device. It is created by the rdma_link
 * "newlink" operation, bound to one Ethernet netdev for its whole life, and
 * freed by the RDMA core through ib_device_ops.dealloc_driver once it has
 * been unregistered (rdma link del, the netdev going away, or module
 * unload). Every verbs object (ucontext, PD, ...) embeds its core object and
 * is allocated by the core (INIT_RDMA_OBJ_SIZE); the core guarantees that
 * all of them are destroyed before dealloc_driver runs.
 *
 * Lock order (outermost first)
 * ----------------------------
 *   rtnl_lock                  (netdev notifier, GID management)
 *   swr_dev_list_lock          (module-wide list of devices, swr_main.c)
 *
 * swr_dev_list_lock is never held across ib_register_device() or any other
 * call that may take rtnl_lock.
 */
#ifndef SWR_H
#define SWR_H

#include <linux/idr.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

/* Identity */
#define SWR_VENDOR_ID		0xffffff	/* no IEEE OUI: a software device */
#define SWR_VENDOR_PART_ID	0x5352		/* "SR" */
#define SWR_HW_VER		1

/*
 * Resource limits, reported by query_device. Each verb enforces its own
 * limit from here; none is below rdma_rxe's where rxe's is a capability
 * (SGEs, inline data, atomics in flight).
 */
#define SWR_MAX_PD		0x10000
#define SWR_MAX_MR		0x40000
#define SWR_MAX_MR_SIZE		U64_MAX
#define SWR_MAX_MW		0x10000
#define SWR_MAX_CQ		0x20000
#define SWR_MAX_CQE		0x1ffff
#define SWR_MAX_QP		0x20000
#define SWR_MAX_QP_WR		0x8000
#define SWR_MAX_SGE		32
#define SWR_MAX_SRQ		0x10000
#define SWR_MAX_SRQ_WR		0x8000
#define SWR_MAX_AH		0x8000
#define SWR_MAX_RD_ATOM		128		/* per QP, each direction */
#define SWR_MAX_MCAST_GRP	8192
#define SWR_MAX_MCAST_QP_ATTACH	56
#define SWR_GID_TABLE_LEN	128
#define SWR_PKEY_TABLE_LEN	1
#define SWR_DEFAULT_PKEY	0xffff
#define SWR_PORT_NUM		1

struct swr_dev {
	struct ib_device ibdev;

	/*
	 * The bound netdev. A reference is held from newlink until
	 * dealloc_driver; the pointer never changes.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	/* Entry in the module-wide device list, under swr_dev_list_lock. */
	struct list_head list;

	/* PD numbers; the IDA has its own lock. */
	struct ida pd_ida;

	/*
	 * Last port state reported through an async event, so that a
	 * netdev event that does not change the state stays silent.
	 * Written only from the netdev notifier (under rtnl_lock).
	 */
	enum ib_port_state last_port_state;

	/*
	 * MR and MW keys (swr_mr.c; see swr_mr.h). The xarray has its own
	 * lock, which also protects mkey_next, the cyclic allocation cursor.
	 */
	struct xarray mkeys;
	u32 mkey_next;
	atomic_t mkey_byte;	/* source of each new key's low byte */
	atomic_t num_mr;	/* against SWR_MAX_MR */
	atomic_t num_mw;	/* against SWR_MAX_MW */
};

struct swr_ucontext {
	struct ib_ucontext ibuc;
};

struct swr_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct swr_dev *to_swr_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct swr_dev, ibdev);
}

static inline struct swr_ucontext *to_swr_ucontext(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct swr_ucontext, ibuc);
}

static inline struct swr_pd *to_swr_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct swr_pd, ibpd);
}

/* swr_main.c */
enum ib_port_state swr_port_state(struct swr_dev *sdev);

/* swr_verbs.c: device, port, ucontext and PD verbs */
int swr_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata);
int swr_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *attr);
int swr_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
int swr_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
enum rdma_link_layer swr_get_link_layer(struct ib_device *ibdev, u32 port);
int swr_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void swr_dealloc_ucontext(struct ib_ucontext *ibuc);
int swr_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int swr_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* SWR_H */
