// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive side scaling: receive work queues (ibv_create_wq, IBV_WQT_RQ),
 * their indirection tables, and the RSS QPs that spread received frames
 * over a table (kernel/swr_rss.c). A WQ is a mapped receive ring like a
 * QP's receive queue: ibv_post_wq_recv() writes it without a system call.
 * RSS QPs themselves are created in swr_qp.c (the hash configuration is
 * struct swroce_create_qp_cmd).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swroce.h"

/* The uAPI's hash bits are libibverbs'. */
#define SWR_SAME_HASH(f) \
	_Static_assert((int)SWROCE_RX_HASH_##f == (int)IBV_RX_HASH_##f, \
		       "swroce_rx_hash_fields: " #f " is not libibverbs'")
SWR_SAME_HASH(SRC_IPV4);
SWR_SAME_HASH(DST_IPV4);
SWR_SAME_HASH(SRC_IPV6);
SWR_SAME_HASH(DST_IPV6);
SWR_SAME_HASH(SRC_PORT_TCP);
SWR_SAME_HASH(DST_PORT_TCP);
SWR_SAME_HASH(SRC_PORT_UDP);
SWR_SAME_HASH(DST_PORT_UDP);
SWR_SAME_HASH(FUNC_TOEPLITZ);

static struct swr_rwq *to_swr_rwq(struct ibv_wq *ibwq)
{
	return container_of(ibwq, struct swr_rwq, ibwq);
}

static int swr_post_wq_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	return swr_wq_post_recv(&to_swr_rwq(ibwq)->wq, wr, bad_wr);
}

struct ibv_wq *swr_create_wq(struct ibv_context *ibctx,
			     struct ibv_wq_init_attr *attr)
{
	struct swr_create_wq_cmd cmd = {};
	struct swr_create_wq_cmd_resp resp = {};
	struct swroce_create_wq_resp *r = &resp.drv_payload;
	uint32_t max_sge = attr->max_sge;
	struct swr_rwq *rwq;
	int err;

	rwq = calloc(1, sizeof(*rwq));
	if (!rwq)
		return NULL;
	err = ibv_cmd_create_wq(ibctx, attr, &rwq->ibwq, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	/* What we enforce: what the caller asked for, and what fits. */
	if (r->max_sge < max_sge)
		max_sge = r->max_sge;
	/* Always the kernel's ring: a parent domain's allocator is not asked. */
	err = swr_wq_map(&rwq->wq, ibctx->cmd_fd, r->num_wqe, r->wqe_stride,
			 max_sge, r->mmap_offset, r->mmap_size, NULL);
	if (err)
		goto err_destroy;
	rwq->ibwq.state = IBV_WQS_RESET;
	rwq->ibwq.post_recv = swr_post_wq_recv;
	return &rwq->ibwq;

err_destroy:
	ibv_cmd_destroy_wq(&rwq->ibwq);
err_free:
	free(rwq);
	errno = err;
	return NULL;
}

int swr_modify_wq(struct ibv_wq *ibwq, struct ibv_wq_attr *attr)
{
	struct ibv_modify_wq cmd = {};
	int err;

	err = ibv_cmd_modify_wq(ibwq, attr, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (!(attr->attr_mask & IBV_WQ_ATTR_STATE))
		return 0;
	ibwq->state = attr->wq_state;
	/* Back in RESET, the WQ leaves no completion behind (as libmlx5). */
	if (attr->wq_state == IBV_WQS_RESET)
		swr_cq_clean(to_swr_cq(ibwq->cq), ibwq->wq_num);
	return 0;
}

int swr_destroy_wq(struct ibv_wq *ibwq)
{
	struct swr_rwq *rwq = to_swr_rwq(ibwq);
	int err;

	err = ibv_cmd_destroy_wq(ibwq);
	if (err)
		return err;
	swr_wq_unmap(&rwq->wq, ibwq->pd, 0);	/* the kernel's ring: unmapped */
	free(rwq);
	return 0;
}

struct ibv_rwq_ind_table *
swr_create_rwq_ind_table(struct ibv_context *ibctx,
			 struct ibv_rwq_ind_table_init_attr *attr)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp = {};
	struct ibv_rwq_ind_table *tbl;
	int err;

	tbl = calloc(1, sizeof(*tbl));
	if (!tbl)
		return NULL;
	err = ibv_cmd_create_rwq_ind_table(ibctx, attr, tbl, &resp,
					   sizeof(resp));
	if (err) {
		free(tbl);
		errno = err;
		return NULL;
	}
	return tbl;
}

int swr_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl)
{
	int err;

	err = ibv_cmd_destroy_rwq_ind_table(tbl);
	if (err)
		return err;
	free(tbl);
	return 0;
}

/* The hash configuration of an RSS QP, into the create_qp command. */
int swr_rss_cmd(struct swroce_create_qp_cmd *cmd,
		const struct ibv_qp_init_attr_ex *attr)
{
	const struct ibv_rx_hash_conf *conf = &attr->rx_hash_conf;
	bool hash = attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH;
	bool tbl = attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE;

	if (!hash && !tbl)
		return 0;
	/* As libmlx5: both or neither. */
	if (!hash || !tbl || !attr->rwq_ind_tbl)
		return EINVAL;
	if (conf->rx_hash_key_len > sizeof(cmd->rx_hash_key) ||
	    (conf->rx_hash_key_len && !conf->rx_hash_key))
		return EINVAL;
	cmd->comp_mask |= SWROCE_CREATE_QP_RX_HASH;
	cmd->rx_hash_function = conf->rx_hash_function;
	cmd->rx_hash_key_len = conf->rx_hash_key_len;
	cmd->rx_hash_fields_mask = conf->rx_hash_fields_mask;
	if (conf->rx_hash_key_len)
		memcpy(cmd->rx_hash_key, conf->rx_hash_key,
		       conf->rx_hash_key_len);
	return 0;
}
