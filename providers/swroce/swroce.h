/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libswroce: the rdma-core provider for swroce devices.
 *
 * Object names mirror the kernel driver's (kernel/swr.h): swr_device is one
 * swroce ib_device as libibverbs sees it, swr_context an open ucontext.
 */
#ifndef SWROCE_PROVIDER_H
#define SWROCE_PROVIDER_H

#include <infiniband/verbs.h>
#include <rdma/swroce-abi.h>

#include "ibverbs_private.h"

struct swr_device {
	struct verbs_device vdev;
};

struct swr_context {
	struct verbs_context vctx;
	uint32_t device_caps;	/* enum swroce_device_cap */
};

struct swr_pd {
	struct ibv_pd ibpd;
	uint32_t pdn;
};

static inline struct swr_context *to_swr_context(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct swr_context, vctx.context);
}

static inline struct swr_pd *to_swr_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct swr_pd, ibpd);
}

/* Driver-private command and response layouts (see swroce-abi.h). */
DECLARE_DRV_CMD(swr_get_context_cmd, IB_USER_VERBS_CMD_GET_CONTEXT,
		swroce_alloc_ucontext_cmd, swroce_alloc_ucontext_resp);
DECLARE_DRV_CMD(swr_alloc_pd_cmd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, swroce_alloc_pd_resp);

/* swr_verbs.c */
int swr_query_device_ex(struct ibv_context *ibctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size);
int swr_query_port(struct ibv_context *ibctx, uint8_t port,
		   struct ibv_port_attr *attr);
struct ibv_pd *swr_alloc_pd(struct ibv_context *ibctx);
int swr_dealloc_pd(struct ibv_pd *ibpd);

/* swr_mr.c */
struct ibv_mr *swr_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  uint64_t hca_va, int access);
int swr_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		 void *addr, size_t length, int access);
int swr_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *swr_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int swr_dealloc_mw(struct ibv_mw *mw);

#endif /* SWROCE_PROVIDER_H */
