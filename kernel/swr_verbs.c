// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device, port, user-context and protection-domain verbs.
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/swroce-abi.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>

#define UVERBS_MODULE_NAME swroce
#include <rdma/uverbs_named_ioctl.h>

#include "swr.h"
#include "swr_mr.h"
#include "swr_rss.h"
#include "swr_udata.h"

/* IB_UVERBS_DEVICE_ATOMIC_WRITE (uAPI, unnamed in 6.1's headers) */
#define SWR_DEVICE_ATOMIC_WRITE	BIT_ULL(40)

/*
 * On-demand paging (swr_odp.c), explicit and implicit: RC and XRC with
 * every operation, SRQs included; UD sends from ODP memory. A UD
 * datagram that arrives at an ODP page not mapped yet is dropped (the
 * page is faulted in for the next), so UD receive is not offered.
 */
static void swr_odp_caps(struct ib_odp_caps *caps)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		 IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;

	caps->general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	caps->per_transport_caps.rc_odp_caps = rc;
	caps->per_transport_caps.xrc_odp_caps = rc;
	caps->per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND;
}

int swr_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata)
{
	/* No driver-private query data is defined, in either direction. */
	if (udata && (udata->inlen || udata->outlen)) {
		ibdev_dbg(ibdev, "query_device: unexpected udata %zu/%zu\n",
			  udata->inlen, udata->outlen);
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	/* One port per device: the system image is the node itself. */
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = SWR_VENDOR_ID;
	attr->vendor_part_id = SWR_VENDOR_PART_ID;
	attr->hw_ver = SWR_HW_VER;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_mr_size = SWR_MAX_MR_SIZE;
	attr->max_qp = SWR_MAX_QP;
	attr->max_qp_wr = SWR_MAX_QP_WR;
	attr->max_send_sge = SWR_MAX_SGE;
	attr->max_recv_sge = SWR_MAX_SGE;
	attr->max_sge_rd = SWR_MAX_SGE;
	attr->max_cq = SWR_MAX_CQ;
	attr->max_cqe = SWR_MAX_CQE;
	attr->max_mr = SWR_MAX_MR;
	attr->max_mw = SWR_MAX_MW;
	attr->max_fast_reg_page_list_len = SWR_MAX_FAST_REG_PAGES;
	attr->max_pd = SWR_MAX_PD;
	attr->max_qp_rd_atom = SWR_MAX_RD_ATOM;
	attr->max_qp_init_rd_atom = SWR_MAX_RD_ATOM;
	attr->max_res_rd_atom = SWR_MAX_RD_ATOM * SWR_MAX_QP;
	attr->max_srq = SWR_MAX_SRQ;
	attr->max_srq_wr = SWR_MAX_SRQ_WR;
	attr->max_srq_sge = SWR_MAX_SGE;
	attr->max_ah = SWR_MAX_AH;
	attr->max_mcast_grp = SWR_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SWR_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SWR_MAX_MCAST_GRP *
					  SWR_MAX_MCAST_QP_ATTACH;
	attr->max_pkeys = SWR_PKEY_TABLE_LEN;
	attr->local_ca_ack_delay = 15;
	/*
	 * The core queries into ibdev->attrs at registration, so flags the
	 * core itself reads from there are set here: "rdma link del".
	 */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_ON_DEMAND_PAGING;
	swr_odp_caps(&attr->odp_caps);
	/*
	 * What the engine (swr_engine.c) executes: memory windows of both
	 * types bound by work requests, FRMRs (REG_MR, LOCAL_INV,
	 * SEND_WITH_INV), RNR NAKs and atomics (CPU atomics on the target
	 * word, so IB_ATOMIC_HCA holds as rxe's does). ATOMIC_WRITE is bit
	 * 40 of the uAPI's
	 * ib_uverbs_device_cap_flags; 6.1's headers have no name for it, and
	 * its uverbs passes the whole 64-bit word to user space. XRC: XRC
	 * domains, SRQs and INI/TGT QPs (swr_xrc.c).
	 */
	attr->device_cap_flags = IB_DEVICE_XRC | IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 SWR_DEVICE_ATOMIC_WRITE;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	/* CQE timestamps: CLOCK_MONOTONIC_RAW in ns, i.e. a 1 GHz clock. */
	attr->hca_core_clock = 1000000;	/* kHz */
	attr->timestamp_mask = U64_MAX;
	attr->max_dm_size = SWR_DM_MAX;
	/*
	 * Tag matching SRQs on RC QPs (swr_tm.c): eager and rendezvous
	 * messages, the latter at most SWR_TM_MAX_RNDV_HDR bytes; one SGE a
	 * tag; ops are done when post_srq_ops returns, so max_ops bounds
	 * nothing.
	 */
	attr->tm_caps.flags = IB_TM_CAP_RNDV_RC;
	attr->tm_caps.max_rndv_hdr_size = SWR_TM_MAX_RNDV_HDR;
	attr->tm_caps.max_num_tags = SWR_TM_MAX_TAGS;
	attr->tm_caps.max_ops = SWR_TM_MAX_TAGS;
	attr->tm_caps.max_sge = 1;
	/* RSS (swr_rss.c) is for raw packet QPs: an Ethernet netdev's. */
	if (to_swr_dev(ibdev)->ndev->type == ARPHRD_ETHER) {
		attr->rss_caps.supported_qpts = BIT(IB_QPT_RAW_PACKET);
		attr->rss_caps.max_rwq_indirection_tables = SWR_MAX_RWQ_IND_TBL;
		attr->rss_caps.max_rwq_indirection_table_size =
			BIT(SWR_LOG_MAX_RWQ_IND_TBL);
		attr->max_wq_type_rq = SWR_MAX_WQ;
	}
	return 0;
}

enum rdma_link_layer swr_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int swr_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *attr)
{
	struct swr_dev *sdev = to_swr_dev(ibdev);
	int err;

	/* The core has zeroed *attr and checked the port number. */
	attr->state = swr_port_state(sdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = iboe_get_mtu(READ_ONCE(sdev->ndev->mtu));
	attr->gid_tbl_len = SWR_GID_TABLE_LEN;
	attr->pkey_tbl_len = SWR_PKEY_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SZ_2G;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;

	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (err)
		ibdev_dbg(ibdev, "no link speed from %s: %d\n",
			  netdev_name(sdev->ndev), err);
	return 0;
}

int swr_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable)
{
	/* RoCEv2 only: we never speak RoCEv1 (Ethertype 0x8915). */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = SWR_PKEY_TABLE_LEN;
	immutable->gid_tbl_len = SWR_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

int swr_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index >= SWR_PKEY_TABLE_LEN)
		return -EINVAL;
	*pkey = SWR_DEFAULT_PKEY;
	return 0;
}

static void swr_ucontext_resp(struct swroce_alloc_ucontext_resp *resp)
{
	resp->abi_version = SWROCE_ABI_VERSION;
	resp->device_caps = SWROCE_DEVICE_CAP_DOORBELL_METHOD |
			    SWROCE_DEVICE_CAP_USER_RINGS;
}

int swr_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct ib_device *ibdev = ibuc->device;
	struct swroce_alloc_ucontext_resp resp = {};
	struct swroce_alloc_ucontext_cmd cmd;
	int err;

	err = swr_udata_get_cmd(ibdev, udata, &cmd, sizeof(cmd),
				offsetofend(typeof(cmd), abi_version));
	if (err)
		return err;
	if (cmd.comp_mask) {
		ibdev_dbg(ibdev, "alloc_ucontext: unknown comp_mask %#x\n",
			  cmd.comp_mask);
		return -EOPNOTSUPP;
	}
	if (cmd.abi_version != SWROCE_ABI_VERSION) {
		swr_count(to_swr_dev(ibdev), SWR_CNT_ABI_MISMATCH);
		ibdev_dbg(ibdev, "alloc_ucontext: provider ABI %u, kernel ABI %u\n",
			  cmd.abi_version, SWROCE_ABI_VERSION);
		return -EPROTONOSUPPORT;
	}

	swr_ucontext_resp(&resp);
	return swr_udata_put_resp(udata, &resp, sizeof(resp));
}

/*
 * UVERBS_METHOD_QUERY_CONTEXT: what a provider that imports a context
 * (ibv_import_device(), on a duplicate of the command fd) needs to know,
 * the same answer alloc_ucontext gave, in SWROCE_ATTR_QUERY_CONTEXT_RESP
 * when it asks for it.
 */
int swr_query_ucontext(struct ib_ucontext *ibuc,
		       struct uverbs_attr_bundle *attrs)
{
	struct swroce_alloc_ucontext_resp resp = {};

	if (!uverbs_attr_is_valid(attrs, SWROCE_ATTR_QUERY_CONTEXT_RESP))
		return 0;
	swr_ucontext_resp(&resp);
	return uverbs_copy_to_struct_or_zero(attrs,
					     SWROCE_ATTR_QUERY_CONTEXT_RESP,
					     &resp, sizeof(resp));
}

void swr_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * The device is going away (rdma link del, netdev removal, module unload)
 * while a process still has it open. The core has already destroyed every
 * object of the context through the usual verbs; all that is left of ours
 * are ring mappings, and their pages stay valid (each mapping holds page
 * references) until the process unmaps them, without any of our code. So
 * there is nothing to do here: providing the op is what lets the core
 * remove the device without waiting for every user to exit.
 */
void swr_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

int swr_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibpd->device);
	struct swr_pd *pd = to_swr_pd(ibpd);
	struct swroce_alloc_pd_resp resp = {};
	int pdn, err;

	if (udata) {
		err = swr_udata_no_cmd(&sdev->ibdev, udata);
		if (err)
			return err;
	}

	pdn = ida_alloc_max(&sdev->pd_ida, SWR_MAX_PD - 1, GFP_KERNEL);
	if (pdn < 0)
		return pdn == -ENOSPC ? -ENOMEM : pdn;
	pd->pdn = pdn;

	if (udata) {
		resp.pdn = pd->pdn;
		err = swr_udata_put_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_pdn;
	}
	return 0;

err_free_pdn:
	ida_free(&sdev->pd_ida, pd->pdn);
	return err;
}

int swr_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibpd->device);

	ida_free(&sdev->pd_ida, to_swr_pd(ibpd)->pdn);
	return 0;
}

/*
 * SWROCE_METHOD_PD_QUERY (swroce-abi.h): a PD's number, by handle; what
 * ibv_import_pd() asks to check that the handle names a PD. The PD's
 * uobject is locked for reading, so the PD outlives the call.
 */
static int UVERBS_HANDLER(SWROCE_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *ibpd = uverbs_attr_get_obj(attrs, SWROCE_ATTR_PD_QUERY_HANDLE);
	struct swroce_alloc_pd_resp resp = {};

	if (IS_ERR(ibpd))
		return PTR_ERR(ibpd);
	resp.pdn = to_swr_pd(ibpd)->pdn;
	return uverbs_copy_to_struct_or_zero(attrs, SWROCE_ATTR_PD_QUERY_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(SWROCE_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(SWROCE_ATTR_PD_QUERY_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(SWROCE_ATTR_PD_QUERY_RESP,
						UVERBS_ATTR_STRUCT(struct swroce_alloc_pd_resp,
								   pdn),
						UA_MANDATORY));

ADD_UVERBS_METHODS(swr_pd_methods, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(SWROCE_METHOD_PD_QUERY));

#define SWR_QUERY_CONTEXT_RESP \
	UVERBS_ATTR_STRUCT(struct swroce_alloc_ucontext_resp, reserved_0)

ADD_UVERBS_ATTRIBUTES_SIMPLE(swr_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(SWROCE_ATTR_QUERY_CONTEXT_RESP,
						 SWR_QUERY_CONTEXT_RESP));

const struct uapi_definition swr_verbs_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &swr_pd_methods),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &swr_query_context),
	{},
};
