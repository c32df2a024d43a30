// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles. On RoCE an AH is a GRH (destination GID, source GID
 * index, traffic class, flow label, hop limit) plus the destination MAC the
 * core resolved for it. UD send WQEs in the mapped send queue name an AH by
 * its number, which the engine looks up and checks against the QP's PD.
 */
#include "swr.h"
#include "swr_udata.h"

int swr_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct swr_dev *sdev = to_swr_dev(ibah->device);
	struct rdma_ah_attr *attr = init->ah_attr;
	struct swr_ah *ah = to_swr_ah(ibah);
	struct swroce_create_ah_resp resp = {};
	gfp_t gfp;
	int err;

	/* RoCEv2 routes by GID: an AH without a GRH cannot be delivered. */
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH)) {
		ibdev_dbg(&sdev->ibdev, "create_ah: not a RoCE AH with a GRH\n");
		return -EINVAL;
	}
	if (udata) {
		err = swr_udata_no_cmd(ibah->device, udata);
		if (err)
			return err;
	}

	rdma_copy_ah_attr(&ah->attr, attr);
	gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL : GFP_ATOMIC;
	err = xa_alloc(&sdev->ah_xa, &ah->ahn, ah, XA_LIMIT(1, SWR_MAX_AH),
		       gfp);
	if (err) {
		if (err == -EBUSY)
			err = -ENOMEM;	/* all AH numbers in use */
		goto err_destroy_attr;
	}

	if (udata) {
		resp.ahn = ah->ahn;
		err = swr_udata_put_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}
	return 0;

err_erase:
	xa_erase(&sdev->ah_xa, ah->ahn);
err_destroy_attr:
	rdma_destroy_ah_attr(&ah->attr);
	return err;
}

int swr_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct swr_ah *ah = to_swr_ah(ibah);

	memset(attr, 0, sizeof(*attr));
	attr->type = ah->attr.type;
	rdma_ah_set_grh(attr, NULL, ah->attr.grh.flow_label,
			ah->attr.grh.sgid_index, ah->attr.grh.hop_limit,
			ah->attr.grh.traffic_class);
	rdma_ah_set_dgid_raw(attr, ah->attr.grh.dgid.raw);
	rdma_ah_set_sl(attr, rdma_ah_get_sl(&ah->attr));
	rdma_ah_set_port_num(attr, rdma_ah_get_port_num(&ah->attr));
	memcpy(attr->roce.dmac, ah->attr.roce.dmac, ETH_ALEN);
	return 0;
}

int swr_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct swr_dev *sdev = to_swr_dev(ibah->device);
	struct swr_ah *ah = to_swr_ah(ibah);

	/* After this no lookup can find the AH (see swr_dev.ah_xa). */
	xa_erase(&sdev->ah_xa, ah->ahn);
	rdma_destroy_ah_attr(&ah->attr);
	return 0;
}
