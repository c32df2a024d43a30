/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receive work queues, their indirection tables and RSS QPs (swr_rss.c).
 */
#ifndef SWR_RSS_H
#define SWR_RSS_H

#include <rdma/ib_verbs.h>

#include "swr.h"
#include "swr_qp.h"
#include "swr_raw.h"

/* Limits, reported by query_device (rss_caps, max_wq_type_rq). */
#define SWR_MAX_WQ		0x10000
#define SWR_MAX_RWQ_IND_TBL	0x1000
#define SWR_LOG_MAX_RWQ_IND_TBL	8	/* entries: 256 */

/*
 * A receive WQ (IB_WQT_RQ): a ring like a QP's receive queue, completing
 * into its own CQ. Numbered from the QPN space (reserved there, never
 * found as a QP), so that its completions' qp_num is unique.
 */
struct swr_rwq {
	struct ib_wq ibwq;
	/*
	 * Protects the consumer side of wq, state and rwqe: receives (any
	 * context) against modify_wq. ibwq.state mirrors state for the
	 * core, written under the lock too.
	 */
	spinlock_t lock;
	enum ib_wq_state state;
	struct swr_wq wq;
	struct swr_recv_wqe rwqe;	/* the WQE being completed */
};

/* What an RSS QP hashes; immutable from creation on. */
struct swr_rss {
	struct ib_rwq_ind_table *tbl;
	u64 fields;			/* enum swroce_rx_hash_fields */
	u8 key[SWROCE_RX_HASH_KEY_LEN];
};

struct swr_rwq_ind_table {
	struct ib_rwq_ind_table ibtbl;
};

static inline struct swr_rwq *to_swr_rwq(struct ib_wq *ibwq)
{
	return container_of(ibwq, struct swr_rwq, ibwq);
}

struct ib_wq *swr_create_wq(struct ib_pd *pd, struct ib_wq_init_attr *init,
			    struct ib_udata *udata);
int swr_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		  struct ib_udata *udata);
int swr_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata);
int swr_create_rwq_ind_table(struct ib_rwq_ind_table *ibtbl,
			     struct ib_rwq_ind_table_init_attr *init,
			     struct ib_udata *udata);
int swr_destroy_rwq_ind_table(struct ib_rwq_ind_table *ibtbl);

/*
 * create_qp of a QP with an indirection table: check @init and the
 * hash configuration @cmd (copied from user space), and give @qp its
 * struct swr_rss. Freed by swr_rss_qp_fini().
 */
int swr_rss_qp_init(struct swr_qp *qp, const struct ib_qp_init_attr *init,
		    const struct swroce_create_qp_cmd *cmd);
void swr_rss_qp_fini(struct swr_qp *qp);

/*
 * A frame (@h its parsed headers) steered to the RSS QP @qp: into the
 * next receive WQE of the WQ its hash picks (any context, under RCU).
 */
void swr_rss_recv(struct swr_qp *qp, const u8 *frame, u32 len,
		  const struct swr_raw_hdrs *h);

#endif /* SWR_RSS_H */
