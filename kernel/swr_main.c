// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * swroce module: the "swroce" rdma_link type, device registration and
 * teardown, and the netdev events that drive the port.
 *
 * A device lives from "rdma link add <name> type swroce netdev <ndev>" until
 * whichever comes first of "rdma link del", the unregistration of <ndev>
 * (which includes the deletion of its network namespace) and module unload.
 * All three end in the RDMA core's unregistration, which calls
 * swr_dealloc_driver() exactly once.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/swroce-abi.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_crc.h"
#include "swr_mr.h"
#include "swr_net.h"
#include "swr_odp.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_raw.h"
#include "swr_rss.h"
#include "swr_steer.h"

/* The lockdep class of every device's qp_xa lock (swr_newlink()). */
static struct lock_class_key swr_qp_xa_key;
/* And of srq_xa's, taken in the same contexts (swr_xrc.c). */
static struct lock_class_key swr_srq_xa_key;

/*
 * Every swr_dev that has been created and not yet freed, so that module
 * unload can find devices whose unregistration is still pending.
 */
static LIST_HEAD(swr_dev_list);
static DEFINE_MUTEX(swr_dev_list_lock);

enum ib_port_state swr_port_state(struct swr_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;

	return netif_running(ndev) && netif_carrier_ok(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/* The device of a sysfs attribute's struct device. */
static struct swr_dev *swr_attr_sdev(struct device *device)
{
	return rdma_device_to_drv_device(device, struct swr_dev, ibdev);
}

static ssize_t netdev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct swr_dev *sdev = swr_attr_sdev(device);

	return sysfs_emit(buf, "%s\n", netdev_name(sdev->ndev));
}
static DEVICE_ATTR_RO(netdev);

static ssize_t abi_version_show(struct device *device,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SWROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

/* The poller's busy-poll time after its last work (swr_poll.c). */
#define SWR_POLL_IDLE_US_MAX	1000000

static ssize_t poll_idle_us_show(struct device *device,
				 struct device_attribute *attr, char *buf)
{
	struct swr_dev *sdev = swr_attr_sdev(device);

	return sysfs_emit(buf, "%u\n", READ_ONCE(sdev->poller->idle_us));
}

/* A sysfs write of a number from 0 to @max: 0 or -errno. */
static int swr_attr_u32(const char *buf, u32 max, u32 *val)
{
	int err = kstrtou32(buf, 0, val);

	if (err)
		return err;
	return *val > max ? -EINVAL : 0;
}

static ssize_t poll_idle_us_store(struct device *device,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct swr_dev *sdev = swr_attr_sdev(device);
	u32 val;
	int err;

	err = swr_attr_u32(buf, SWR_POLL_IDLE_US_MAX, &val);
	if (err)
		return err;
	WRITE_ONCE(sdev->poller->idle_us, val);
	return count;
}
static DEVICE_ATTR_RW(poll_idle_us);

/* The ring memory cap per user context (swr_mmap.c); K/M/G suffixes. */
static ssize_t ring_bytes_max_show(struct device *device,
				   struct device_attribute *attr, char *buf)
{
	struct swr_dev *sdev = swr_attr_sdev(device);

	return sysfs_emit(buf, "%llu\n", READ_ONCE(sdev->ring_bytes_max));
}

static ssize_t ring_bytes_max_store(struct device *device,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	struct swr_dev *sdev = swr_attr_sdev(device);
	char *end;
	u64 val;

	val = memparse(buf, &end);
	if (end == buf || (*end && *end != '\n'))
		return -EINVAL;
	WRITE_ONCE(sdev->ring_bytes_max, val);
	return count;
}
static DEVICE_ATTR_RW(ring_bytes_max);

/* The ICRC's CRC-32 implementation (swr_crc.c). */
static ssize_t icrc_show(struct device *device, struct device_attribute *attr,
			 char *buf)
{
	return swr_crc_mode_show(swr_attr_sdev(device), buf);
}

static ssize_t icrc_store(struct device *device, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	int err;

	err = swr_crc_mode_store(swr_attr_sdev(device), buf);
	return err ? err : count;
}
static DEVICE_ATTR_RW(icrc);

static ssize_t icrc_impl_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	return swr_crc_impl_show(swr_attr_sdev(device), buf);
}
static DEVICE_ATTR_RO(icrc_impl);

/* Receive steering (swr_steer.c): 1 on, 0 off. */
static ssize_t rx_steer_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct swr_dev *sdev = swr_attr_sdev(device);

	return sysfs_emit(buf, "%u\n", READ_ONCE(sdev->rx_steer));
}

static ssize_t rx_steer_store(struct device *device,
			      struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct swr_dev *sdev = swr_attr_sdev(device);
	u32 val;
	int err;

	err = swr_attr_u32(buf, 1, &val);
	if (err)
		return err;
	WRITE_ONCE(sdev->rx_steer, val);
	return count;
}
static DEVICE_ATTR_RW(rx_steer);

static struct attribute *swr_attrs[] = {
	&dev_attr_netdev.attr,
	&dev_attr_abi_version.attr,
	&dev_attr_poll_idle_us.attr,
	&dev_attr_ring_bytes_max.attr,
	&dev_attr_icrc.attr,
	&dev_attr_icrc_impl.attr,
	&dev_attr_rx_steer.attr,
	&swr_cc_attrs[SWR_CC_ECN].da.attr,
	&swr_cc_attrs[SWR_CC_NP_ENABLE].da.attr,
	&swr_cc_attrs[SWR_CC_CNP_INTERVAL_US].da.attr,
	&swr_cc_attrs[SWR_CC_CNP_DSCP].da.attr,
	&swr_cc_attrs[SWR_CC_RP_ENABLE].da.attr,
	&swr_cc_attrs[SWR_CC_G_SHIFT].da.attr,
	&swr_cc_attrs[SWR_CC_ALPHA_US].da.attr,
	&swr_cc_attrs[SWR_CC_REDUCE_US].da.attr,
	&swr_cc_attrs[SWR_CC_TIMER_US].da.attr,
	&swr_cc_attrs[SWR_CC_BYTE_RESET].da.attr,
	&swr_cc_attrs[SWR_CC_FAST_RECOVERY].da.attr,
	&swr_cc_attrs[SWR_CC_AI_MBPS].da.attr,
	&swr_cc_attrs[SWR_CC_HAI_MBPS].da.attr,
	&swr_cc_attrs[SWR_CC_MIN_MBPS].da.attr,
	&swr_cc_attrs[SWR_CC_MAX_MBPS].da.attr,
	&swr_cc_attrs[SWR_CC_WINDOW_US].da.attr,
	&swr_cc_attrs[SWR_CC_LOSS_WINDOW].da.attr,
	NULL,
};

static const struct attribute_group swr_attr_group = {
	.name = SWROCE_SYSFS_GROUP,
	.attrs = swr_attrs,
};

static void swr_dealloc_driver(struct ib_device *ibdev)
{
	struct swr_dev *sdev = to_swr_dev(ibdev);

	/* Also reached from a failed newlink, possibly before list_add. */
	mutex_lock(&swr_dev_list_lock);
	list_del_init(&sdev->list);
	mutex_unlock(&swr_dev_list_lock);

	ib_unregister_event_handler(&sdev->gid_handler);
	/* Every QP is gone: the core destroys all objects first. */
	swr_net_detach(sdev);
	swr_poll_stop(sdev);
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->srq_xa);
	/* Every counter is gone too (rdma_counter_release()). */
	xa_destroy(&sdev->counter_xa);
	ida_destroy(&sdev->pd_ida);
	xa_destroy(&sdev->ah_xa);
	swr_mr_dev_cleanup(sdev);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
}

/* The driver's own uverbs methods (swroce-abi.h). */
static const struct uapi_definition swr_uapi_defs[] = {
	UAPI_DEF_CHAIN(swr_qp_uapi_defs),
	UAPI_DEF_CHAIN(swr_dm_uapi_defs),
	UAPI_DEF_CHAIN(swr_tm_uapi_defs),
	UAPI_DEF_CHAIN(swr_verbs_uapi_defs),
	{},
};

static const struct ib_device_ops swr_dev_ops = {
	.owner = THIS_MODULE,
	/*
	 * An out-of-tree driver has no rdma_driver_id of its own. The
	 * provider matches the sysfs group instead (see swroce-abi.h); we
	 * never look devices up by driver id, because other out-of-tree
	 * drivers share RDMA_DRIVER_UNKNOWN.
	 */
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SWROCE_ABI_VERSION,

	.alloc_dm = swr_alloc_dm,
	.alloc_hw_port_stats = swr_alloc_hw_port_stats,
	.advise_mr = swr_advise_mr,
	.alloc_mr = swr_alloc_mr,
	.alloc_mw = swr_alloc_mw,
	.alloc_pd = swr_alloc_pd,
	.alloc_ucontext = swr_alloc_ucontext,
	.alloc_xrcd = swr_alloc_xrcd,
	.attach_mcast = swr_attach_mcast,
	.counter_alloc_stats = swr_counter_alloc_stats,
	.counter_bind_qp = swr_counter_bind_qp,
	.counter_dealloc = swr_counter_dealloc,
	.counter_unbind_qp = swr_counter_unbind_qp,
	.counter_update_stats = swr_counter_update_stats,
	.create_ah = swr_create_ah,
	.create_cq = swr_create_cq_shim,
	.create_flow = swr_create_flow,
	.create_qp = swr_create_qp,
	.create_rwq_ind_table = swr_create_rwq_ind_table,
	.create_srq = swr_create_srq,
	.create_user_ah = swr_create_ah,
	.create_wq = swr_create_wq,
	.dealloc_dm = swr_dealloc_dm,
	.dealloc_driver = swr_dealloc_driver,
	.dealloc_mw = swr_dealloc_mw,
	.dealloc_pd = swr_dealloc_pd,
	.dealloc_ucontext = swr_dealloc_ucontext,
	.dealloc_xrcd = swr_dealloc_xrcd,
	.dereg_mr = swr_dereg_mr,
	.destroy_ah = swr_destroy_ah,
	.destroy_cq = swr_destroy_cq,
	.destroy_flow = swr_destroy_flow,
	.destroy_qp = swr_destroy_qp,
	.destroy_rwq_ind_table = swr_destroy_rwq_ind_table,
	.destroy_srq = swr_destroy_srq,
	.destroy_wq = swr_destroy_wq,
	.detach_mcast = swr_detach_mcast,
	.device_group = &swr_attr_group,
	.disassociate_ucontext = swr_disassociate_ucontext,
	.fill_res_cq_entry = swr_fill_res_cq_entry,
	.fill_res_mr_entry = swr_fill_res_mr_entry,
	.fill_res_qp_entry = swr_fill_res_qp_entry,
	.get_dma_mr = swr_get_dma_mr,
	.get_hw_stats = swr_get_hw_stats,
	.process_mad = swr_process_mad,
	.get_link_layer = swr_get_link_layer,
	.get_port_immutable = swr_get_port_immutable,
	.map_mr_sg = swr_map_mr_sg,
	.mmap = swr_mmap,
	.mmap_free = swr_mmap_free,
	.modify_qp = swr_modify_qp,
	.modify_srq = swr_modify_srq,
	.modify_wq = swr_modify_wq,
	.poll_cq = swr_poll_cq,
	.post_recv = swr_post_recv,
	.post_send = swr_post_send,
	.post_srq_recv = swr_post_srq_recv,
	.query_ah = swr_query_ah,
	.query_device = swr_query_device,
	.query_pkey = swr_query_pkey,
	.query_port = swr_query_port,
	.query_qp = swr_query_qp,
	.query_srq = swr_query_srq,
	.query_ucontext = swr_query_ucontext,
	.reg_dm_mr = swr_reg_dm_mr,
	.reg_user_mr = swr_reg_user_mr,
	.req_notify_cq = swr_req_notify_cq,
	.rereg_user_mr = swr_rereg_user_mr,
	.resize_cq = swr_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, swr_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, swr_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, swr_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, swr_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, swr_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_rwq_ind_table, swr_rwq_ind_table, ibtbl),
	INIT_RDMA_OBJ_SIZE(ib_srq, swr_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, swr_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, swr_xrcd, ibxrcd),
};

/* The swroce device bound to @ndev, with a registration reference. */
static struct swr_dev *swr_get_dev_by_netdev(struct net_device *ndev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return NULL;
	if (ibdev->ops.dealloc_driver != swr_dealloc_driver) {
		ib_device_put(ibdev);
		return NULL;
	}
	return to_swr_dev(ibdev);
}

static bool swr_netdev_is_bound(struct net_device *ndev)
{
	struct swr_dev *sdev;

	lockdep_assert_held(&swr_dev_list_lock);
	list_for_each_entry(sdev, &swr_dev_list, list)
		if (sdev->ndev == ndev)
			return true;
	return false;
}

/*
 * What a device can bind to: an Ethernet netdev (physical, veth, VLAN,
 * macvlan, ipvlan, bond master, dummy) or an L3 one without a link-layer
 * header (tun, wireguard), with room for a 256-byte IB MTU. NULL if it
 * qualifies, else why not (for the log: rdma link add has no extack).
 */
static const char *swr_netdev_refusal(struct net_device *ndev)
{
	if (ndev->flags & IFF_LOOPBACK)
		return "a loopback device (local QPs need no device under them)";
	if (ndev->type != ARPHRD_ETHER && ndev->type != ARPHRD_NONE)
		return "a device neither Ethernet nor an L3 tunnel (ARPHRD_ETHER/NONE)";
	if (netif_is_lag_port(ndev))
		return "a bond or team port (bind to the bond or team device)";
	/*
	 * The RDMA core fills a RoCE device's GID table from its netdev and
	 * that netdev's VLAN uppers (roce_gid_mgmt.c), never from the
	 * addresses of a VLAN netdev it is bound to: such a device would
	 * have no IP GIDs. Bound under the VLAN, it has them.
	 */
	if (is_vlan_dev(ndev))
		return "a VLAN device (bind under it: its addresses become GIDs there)";
	if (!iboe_get_mtu(ndev->mtu))
		return "an MTU too small for RoCE's 256-byte minimum";
	return NULL;
}

static bool swr_node_guid_taken(__be64 guid)
{
	struct swr_dev *sdev;

	lockdep_assert_held(&swr_dev_list_lock);
	list_for_each_entry(sdev, &swr_dev_list, list)
		if (sdev->ibdev.node_guid == guid)
			return true;
	return false;
}

/*
 * The node GUID, under swr_dev_list_lock: the EUI-64 of the netdev's
 * MAC, as RoCE NICs and rxe make it; of a random MAC for an L3 device, or
 * when another swroce device has that GUID already (ipvlans share their
 * parent's MAC). It must be unique: the IB CM tells connections apart by
 * the remote CA GUID and QP number in one table for the whole host.
 */
static void swr_node_guid(struct swr_dev *sdev, struct net_device *ndev)
{
	__be64 *guid = &sdev->ibdev.node_guid;
	u8 mac[ETH_ALEN];

	if (ndev->addr_len == ETH_ALEN && is_valid_ether_addr(ndev->dev_addr)) {
		ether_addr_copy(mac, ndev->dev_addr);
		addrconf_addr_eui48((unsigned char *)guid, mac);
		if (!swr_node_guid_taken(*guid))
			return;
	}
	do {
		eth_random_addr(mac);
		addrconf_addr_eui48((unsigned char *)guid, mac);
	} while (swr_node_guid_taken(*guid));
}

static int swr_newlink(const char *ibdev_name, struct net_device *ndev)
{
	const char *refusal = swr_netdev_refusal(ndev);
	struct swr_dev *sdev;
	int err;

	if (refusal) {
		/* Only CAP_NET_ADMIN gets here; still, a bounded burst. */
		static DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 10);

		if (__ratelimit(&rs))
			pr_info("swroce: %s: cannot bind to %s\n",
				netdev_name(ndev), refusal);
		return -EOPNOTSUPP;
	}

	sdev = ib_alloc_device(swr_dev, ibdev);
	if (!sdev)
		return -ENOMEM;

	sdev->ndev = ndev;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	ida_init(&sdev->pd_ida);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1);
	/*
	 * Irq-safe: swr_qp_get() may run in any context (swr.h). A class of
	 * its own for lockdep: the xa_lock of every xarray initialised in
	 * one file shares one, and the AH and counter xarrays are taken
	 * with softirqs on.
	 */
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	lockdep_set_class(&sdev->qp_xa.xa_lock, &swr_qp_xa_key);
	xa_init_flags(&sdev->srq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	lockdep_set_class(&sdev->srq_xa.xa_lock, &swr_srq_xa_key);
	xa_init_flags(&sdev->counter_xa, XA_FLAGS_ALLOC1);
	swr_mr_dev_init(sdev);
	sdev->ring_bytes_max = SWR_RING_BYTES_MAX;
	sdev->rx_steer = true;
	swr_cc_init(sdev);
	INIT_LIST_HEAD(&sdev->list);
	INIT_LIST_HEAD(&sdev->wire_node);
	swr_raw_dev_init(sdev);
	sdev->last_port_state = swr_port_state(sdev);

	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = SWR_PORT_NUM;
	sdev->ibdev.num_comp_vectors = 1;
	strscpy(sdev->ibdev.node_desc, "swroce", sizeof(sdev->ibdev.node_desc));
	/* A user QP's post_send is its doorbell (swroce-abi.h). */
	sdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	/* From here on ib_dealloc_device() undoes the above. */
	ib_set_device_ops(&sdev->ibdev, &swr_dev_ops);
	/* Before the GID table fills; swr_dealloc_driver() removes it. */
	INIT_IB_EVENT_HANDLER(&sdev->gid_handler, &sdev->ibdev, swr_gid_event);
	ib_register_event_handler(&sdev->gid_handler);
	sdev->ibdev.driver_def = swr_uapi_defs;
	swr_mark_name_assigned_by_user(&sdev->ibdev);

	/*
	 * Claim the netdev under the list lock, so two racing newlinks on
	 * one netdev cannot both succeed; the lock is dropped before
	 * registration, which takes rtnl_lock (see the lock order in swr.h).
	 */
	mutex_lock(&swr_dev_list_lock);
	if (swr_netdev_is_bound(ndev)) {
		mutex_unlock(&swr_dev_list_lock);
		err = -EEXIST;
		goto err_dealloc;
	}
	swr_node_guid(sdev, ndev);
	list_add_tail(&sdev->list, &swr_dev_list);
	mutex_unlock(&swr_dev_list_lock);

	err = ib_device_set_netdev(&sdev->ibdev, ndev, SWR_PORT_NUM);
	if (err)
		goto err_dealloc;

	/* Before registration: ib_mad creates the GSI QP during it. */
	err = swr_poll_start(sdev);
	if (err)
		goto err_dealloc;

	/*
	 * Under the NIC's bus device, as a hardware RoCE device would be:
	 * sysfs then links <ibdev>/device/net/<netdev>, where rdma-core's
	 * tests and tools look for the device's netdev. A virtual netdev
	 * (veth, VLAN, bond) has no parent: the device stays virtual. No
	 * DMA is done for it either way (dma_device NULL).
	 */
	sdev->ibdev.dev.parent = ndev->dev.parent;
	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;

	/*
	 * On the wire from the start, as rdma_rxe is: a passive rdma_cm
	 * side (an NVMe-oF target) creates no QP before a peer's CM REQ
	 * has arrived on the GSI QP. If the namespace's port 4791 is
	 * taken, the device works locally and each QP reaching RTR tries
	 * again.
	 */
	swr_net_attach(sdev);

	/*
	 * If @ndev started to unregister before we were registered, the
	 * notifier could not find us; both the check and the notifier run
	 * under rtnl_lock, so exactly one of them queues the unregistration.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED)
		ib_unregister_device_queued(&sdev->ibdev);
	rtnl_unlock();
	return 0;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

static struct rdma_link_ops swr_link_ops = {
	.type = "swroce",
	.newlink = swr_newlink,
};

static void swr_port_event(struct swr_dev *sdev)
{
	enum ib_port_state state = swr_port_state(sdev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SWR_PORT_NUM,
	};

	if (state == sdev->last_port_state)
		return;
	sdev->last_port_state = state;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

static int swr_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct swr_dev *sdev;

	sdev = swr_get_dev_by_netdev(ndev);
	if (!sdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		swr_port_event(sdev);
		break;
	default:
		/* MTU and addresses are read when they are needed. */
		break;
	}

	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block swr_netdev_notifier = {
	.notifier_call = swr_netdev_event,
};

/*
 * Unregister every device, including those whose queued unregistration has
 * not run yet: ib_unregister_device() waits for a concurrent one, and once
 * it returns for the last device no code of ours can run any more.
 */
static void swr_unregister_all(void)
{
	struct swr_dev *sdev;

	mutex_lock(&swr_dev_list_lock);
	while (!list_empty(&swr_dev_list)) {
		sdev = list_first_entry(&swr_dev_list, struct swr_dev, list);
		/* Keep the memory while the list lock is dropped. */
		get_device(&sdev->ibdev.dev);
		mutex_unlock(&swr_dev_list_lock);

		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);

		mutex_lock(&swr_dev_list_lock);
	}
	mutex_unlock(&swr_dev_list_lock);
}

static int __init swr_init(void)
{
	int err;

	swr_pkt_init();
	swr_crc_init();
	err = swr_odp_init();
	if (err)
		goto err_crc;
	err = swr_wire_init();
	if (err)
		goto err_odp;
	err = swr_steer_init();
	if (err)
		goto err_wire;
	swr_txbuf_init();
	err = swr_net_init();
	if (err)
		goto err_txbuf;
	err = register_netdevice_notifier(&swr_netdev_notifier);
	if (err)
		goto err_net;
	rdma_link_register(&swr_link_ops);
	return 0;

err_net:
	swr_net_exit();
err_txbuf:
	swr_txbuf_exit();
	swr_steer_exit();
err_wire:
	swr_wire_exit();
err_odp:
	swr_odp_exit();
err_crc:
	swr_crc_exit();
	return err;
}

static void __exit swr_exit(void)
{
	/* Waits for every newlink in flight; no new device after this. */
	rdma_link_unregister(&swr_link_ops);
	swr_unregister_all();
	unregister_netdevice_notifier(&swr_netdev_notifier);
	swr_net_exit();
	/* Pages still in flight keep their pools until they return. */
	swr_txbuf_exit();
	/* After the devices: nothing is queued for another CPU. */
	swr_steer_exit();
	/* After the devices: no ODP MR or QP is left to queue work. */
	swr_wire_exit();
	swr_odp_exit();
	swr_crc_exit();
}

module_init(swr_init);
module_exit(swr_exit);

MODULE_AUTHOR("swroce developers");
MODULE_DESCRIPTION("swroce: software RoCEv2 RDMA device");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("swroce");
