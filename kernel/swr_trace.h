/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints (tracefs events/swroce/): what the engine does to one QP,
 * one WQE or one packet, where the counters only say how often.
 *
 * Each event sits where the matching counter is bumped or the state
 * changes, and costs a static branch while it is disabled: the arguments
 * are pointers the engine holds anyway, and anything derived from them
 * (a WQE's length, the device name) is computed only when the event is
 * recorded. Nothing here is ever printed to the kernel log, so an event a
 * user can cause at will (a hostile packet, an overflowing CQ) costs that
 * user nothing but the tracer's ring when someone has enabled it.
 * Documentation/admin-guide.rst lists every event and its fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM swroce

#if !defined(SWR_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SWR_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "swr.h"
#include "swr_net.h"
#include "swr_pkt.h"
#include "swr_qp.h"
#include "swr_wire.h"

/* The device's name, in a fixed field: __string() differs in 6.1. */
#define swr_trace_dev(dst, ibdev)					\
	strscpy(dst, (ibdev)->name, IB_DEVICE_NAME_MAX)

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);

#define swr_show_qp_state(s)						\
	__print_symbolic(s,						\
			 { IB_QPS_RESET, "RESET" },			\
			 { IB_QPS_INIT, "INIT" },			\
			 { IB_QPS_RTR, "RTR" },				\
			 { IB_QPS_RTS, "RTS" },				\
			 { IB_QPS_SQD, "SQD" },				\
			 { IB_QPS_SQE, "SQE" },				\
			 { IB_QPS_ERR, "ERR" })

TRACE_DEFINE_ENUM(SWR_QP_BY_USER);
TRACE_DEFINE_ENUM(SWR_QP_BY_ERROR);
TRACE_DEFINE_ENUM(SWR_QP_BY_FATAL);

#define swr_show_qp_by(b)						\
	__print_symbolic(b,						\
			 { SWR_QP_BY_USER, "modify_qp" },		\
			 { SWR_QP_BY_ERROR, "error" },			\
			 { SWR_QP_BY_FATAL, "fatal" })

TRACE_DEFINE_ENUM(SWROCE_WR_RDMA_WRITE);
TRACE_DEFINE_ENUM(SWROCE_WR_RDMA_WRITE_WITH_IMM);
TRACE_DEFINE_ENUM(SWROCE_WR_SEND);
TRACE_DEFINE_ENUM(SWROCE_WR_SEND_WITH_IMM);
TRACE_DEFINE_ENUM(SWROCE_WR_RDMA_READ);
TRACE_DEFINE_ENUM(SWROCE_WR_ATOMIC_CMP_AND_SWP);
TRACE_DEFINE_ENUM(SWROCE_WR_ATOMIC_FETCH_AND_ADD);
TRACE_DEFINE_ENUM(SWROCE_WR_LOCAL_INV);
TRACE_DEFINE_ENUM(SWROCE_WR_BIND_MW);
TRACE_DEFINE_ENUM(SWROCE_WR_SEND_WITH_INV);
TRACE_DEFINE_ENUM(SWROCE_WR_ATOMIC_WRITE);

/* The names are ibv_wr_opcode's, without the IBV_WR_ prefix. */
#define swr_show_wr_opcode(op)						\
	__print_symbolic(op,						\
			 { SWROCE_WR_RDMA_WRITE, "RDMA_WRITE" },	\
			 { SWROCE_WR_RDMA_WRITE_WITH_IMM,		\
			   "RDMA_WRITE_WITH_IMM" },			\
			 { SWROCE_WR_SEND, "SEND" },			\
			 { SWROCE_WR_SEND_WITH_IMM, "SEND_WITH_IMM" },	\
			 { SWROCE_WR_RDMA_READ, "RDMA_READ" },		\
			 { SWROCE_WR_ATOMIC_CMP_AND_SWP,		\
			   "ATOMIC_CMP_AND_SWP" },			\
			 { SWROCE_WR_ATOMIC_FETCH_AND_ADD,		\
			   "ATOMIC_FETCH_AND_ADD" },			\
			 { SWROCE_WR_LOCAL_INV, "LOCAL_INV" },		\
			 { SWROCE_WR_BIND_MW, "BIND_MW" },		\
			 { SWROCE_WR_SEND_WITH_INV, "SEND_WITH_INV" },	\
			 { SWROCE_WR_ATOMIC_WRITE, "ATOMIC_WRITE" },	\
			 { SWR_WR_REG_MR, "REG_MR" })

/* A NAK's kind: its syndrome; every RNR NAK (low bits: its timer) as one. */
#define swr_show_nak(syn)						\
	__print_symbolic(syn,						\
			 { SWR_AETH_RNR_NAK, "rnr" },			\
			 { SWR_AETH_NAK_PSN_SEQ, "psn_seq" },		\
			 { SWR_AETH_NAK_INV_REQ, "inv_req" },		\
			 { SWR_AETH_NAK_REM_ACC, "rem_access" },	\
			 { SWR_AETH_NAK_REM_OP, "rem_op" },		\
			 { SWR_AETH_NAK_INV_RD_REQ, "inv_rd_req" })

TRACE_DEFINE_ENUM(SWR_CNT_TX_DROPPED);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_ICRC);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_MALFORMED);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_PKEY);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_QP);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_QKEY);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_NO_RECV);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_NOMEM);
TRACE_DEFINE_ENUM(SWR_CNT_RX_DROP_DUP_BAD);

/* The reasons are the names of the counters each drop is counted in. */
#define swr_show_drop(r)						\
	__print_symbolic(r,						\
			 { SWR_CNT_TX_DROPPED, "tx_dropped" },		\
			 { SWR_CNT_RX_DROP_ICRC, "rx_drop_icrc" },	\
			 { SWR_CNT_RX_DROP_MALFORMED,			\
			   "rx_drop_malformed" },			\
			 { SWR_CNT_RX_DROP_PKEY, "rx_drop_pkey" },	\
			 { SWR_CNT_RX_DROP_QP, "rx_drop_qp" },		\
			 { SWR_CNT_RX_DROP_QKEY, "rx_drop_qkey" },	\
			 { SWR_CNT_RX_DROP_NO_RECV, "rx_drop_no_recv" },	\
			 { SWR_CNT_RX_DROP_NOMEM, "rx_drop_nomem" },	\
			 { SWR_CNT_RX_DROP_DUP_BAD, "rx_drop_dup_bad" })

/* A QP changed state: by modify_qp, or by the engine on an error. */
TRACE_EVENT(swr_qp_state,
	    TP_PROTO(const struct swr_qp *qp, enum ib_qp_state old,
		     enum ib_qp_state new, enum swr_qp_by by),
	    TP_ARGS(qp, old, new, by),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u8, old)
			     __field(u8, new)
			     __field(u8, by)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, qp->ibqp.device);
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->old = old;
			   __entry->new = new;
			   __entry->by = by),
	    TP_printk("dev=%s qpn=%u %s->%s by=%s", __entry->dev,
		      __entry->qpn, swr_show_qp_state(__entry->old),
		      swr_show_qp_state(__entry->new),
		      swr_show_qp_by(__entry->by))
);

/*
 * A send WQE copied out of the SQ ring to be executed: @idx is its free
 * running ring index (the slot is idx % ring size), len the bytes of its
 * SGEs or inline data.
 */
TRACE_EVENT(swr_send_wqe,
	    TP_PROTO(const struct swr_qp *qp, u32 idx,
		     const struct swr_send_wqe *w),
	    TP_ARGS(qp, idx, w),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, idx)
			     __field(u64, wr_id)
			     __field(u64, len)
			     __field(u8, opcode)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, qp->ibqp.device);
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->idx = idx;
			   __entry->wr_id = w->hdr.wr_id;
			   __entry->len = w->hdr.flags & SWROCE_WQE_INLINE ?
					  w->hdr.inline_len :
					  swr_sge_total(w->sge,
							w->hdr.num_sge);
			   __entry->opcode = w->hdr.opcode),
	    TP_printk("dev=%s qpn=%u idx=%u wr_id=%#llx opcode=%s len=%llu",
		      __entry->dev, __entry->qpn, __entry->idx,
		      __entry->wr_id, swr_show_wr_opcode(__entry->opcode),
		      __entry->len)
);

/*
 * A receive WQE taken from the QP's RQ or its SRQ (@srq) by a request of
 * @opcode; @idx is its free running index in that ring, len the bytes its
 * SGEs can hold.
 */
TRACE_EVENT(swr_recv_wqe,
	    TP_PROTO(const struct swr_qp *qp, bool srq, u32 idx,
		     const struct swr_recv_wqe *rwqe, u8 opcode),
	    TP_ARGS(qp, srq, idx, rwqe, opcode),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, idx)
			     __field(u64, wr_id)
			     __field(u64, len)
			     __field(u8, opcode)
			     __field(bool, srq)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, qp->ibqp.device);
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->idx = idx;
			   __entry->wr_id = rwqe->wr_id;
			   __entry->len = swr_sge_total(rwqe->sge,
							rwqe->num_sge);
			   __entry->opcode = opcode;
			   __entry->srq = srq),
	    TP_printk("dev=%s qpn=%u %s idx=%u wr_id=%#llx opcode=%s len=%llu",
		      __entry->dev, __entry->qpn,
		      __entry->srq ? "srq" : "rq", __entry->idx,
		      __entry->wr_id, swr_show_wr_opcode(__entry->opcode),
		      __entry->len)
);

/* An RC request packet sent again (@retry_left: transport retries left). */
TRACE_EVENT(swr_retransmit,
	    TP_PROTO(const struct swr_qp *qp, u32 psn, u8 retry_left),
	    TP_ARGS(qp, psn, retry_left),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, psn)
			     __field(u8, retry_left)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, qp->ibqp.device);
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->psn = psn;
			   __entry->retry_left = retry_left),
	    TP_printk("dev=%s qpn=%u psn=%u retry_left=%u", __entry->dev,
		      __entry->qpn, __entry->psn, __entry->retry_left)
);

/*
 * The retransmission timer of an RC requester expired with @psn the
 * oldest PSN unanswered: it goes back to it with @retry_left retries left
 * after this one, or (@exhausted) fails the WQE with IB_WC_RETRY_EXC_ERR.
 * Why it expired: out (PSNs sent and not answered) and heard_us (since
 * the last response of any kind arrived; 0: none yet) tell a lost packet
 * from a late one.
 */
TRACE_EVENT(swr_ack_timeout,
	    TP_PROTO(const struct swr_qp *qp, u32 psn, u8 retry_left,
		     bool exhausted, u64 now),
	    TP_ARGS(qp, psn, retry_left, exhausted, now),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, psn)
			     __field(u32, out)
			     __field(u64, heard_us)
			     __field(u8, retry_left)
			     __field(bool, exhausted)),
	    TP_fast_assign(const struct swr_wire_req *wr = &qp->wire->req;

			   swr_trace_dev(__entry->dev, qp->ibqp.device);
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->psn = psn;
			   __entry->out = (wr->sent_hi - psn) & SWR_PSN_MASK;
			   __entry->heard_us = wr->heard_ns ?
				div_u64(now - wr->heard_ns, NSEC_PER_USEC) : 0;
			   __entry->retry_left = retry_left;
			   __entry->exhausted = exhausted),
	    TP_printk("dev=%s qpn=%u psn=%u out=%u heard_us=%llu retry_left=%u%s",
		      __entry->dev, __entry->qpn, __entry->psn, __entry->out,
		      __entry->heard_us, __entry->retry_left,
		      __entry->exhausted ? " exhausted" : "")
);

/*
 * The retransmission timer of an RC requester was found expired @late_ns
 * after its time (the host stalled): extended once instead of counting
 * (swr_wire.c, SWR_WIRE_LATE_DIV), @psn the oldest PSN unanswered.
 */
TRACE_EVENT(swr_ack_timer_late,
	    TP_PROTO(const struct swr_qp *qp, u32 psn, u64 late_ns),
	    TP_ARGS(qp, psn, late_ns),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, psn)
			     __field(u64, late_us)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, qp->ibqp.device);
			   __entry->qpn = qp->ibqp.qp_num;
			   __entry->psn = psn;
			   __entry->late_us = div_u64(late_ns, NSEC_PER_USEC)),
	    TP_printk("dev=%s qpn=%u psn=%u late_us=%llu", __entry->dev,
		      __entry->qpn, __entry->psn, __entry->late_us)
);

/* A NAK or RNR NAK for @psn, with its AETH syndrome. */
DECLARE_EVENT_CLASS(swr_nak_class,
		    TP_PROTO(const struct swr_qp *qp, u32 psn, u8 syndrome),
		    TP_ARGS(qp, psn, syndrome),
		    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
				     __field(u32, qpn)
				     __field(u32, psn)
				     __field(u8, syndrome)
				     __field(u8, kind)),
		    TP_fast_assign(swr_trace_dev(__entry->dev,
						 qp->ibqp.device);
				   __entry->qpn = qp->ibqp.qp_num;
				   __entry->psn = psn;
				   __entry->syndrome = syndrome;
				   __entry->kind = (syndrome &
						    SWR_AETH_TYPE_MASK) ==
						   SWR_AETH_RNR_NAK ?
						   SWR_AETH_RNR_NAK : syndrome),
		    TP_printk("dev=%s qpn=%u psn=%u syndrome=%#04x nak=%s",
			      __entry->dev, __entry->qpn, __entry->psn,
			      __entry->syndrome,
			      swr_show_nak(__entry->kind))
);

/* Sent by @qp's responder. */
DEFINE_EVENT(swr_nak_class, swr_nak_sent,
	     TP_PROTO(const struct swr_qp *qp, u32 psn, u8 syndrome),
	     TP_ARGS(qp, psn, syndrome));

/* Received by @qp's requester. */
DEFINE_EVENT(swr_nak_class, swr_nak_rcvd,
	     TP_PROTO(const struct swr_qp *qp, u32 psn, u8 syndrome),
	     TP_ARGS(qp, psn, syndrome));

/*
 * A packet dropped, counted in @reason (enum swr_counter): a received one
 * for QP @qpn (0 when it was dropped before its BTH was read), or one
 * that was not sent, to QP @qpn.
 */
TRACE_EVENT(swr_pkt_drop,
	    TP_PROTO(const struct swr_dev *sdev, enum swr_counter reason,
		     u32 qpn),
	    TP_ARGS(sdev, reason, qpn),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u8, reason)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, &sdev->ibdev);
			   __entry->qpn = qpn;
			   __entry->reason = reason),
	    TP_printk("dev=%s qpn=%u reason=%s", __entry->dev, __entry->qpn,
		      swr_show_drop(__entry->reason))
);

/*
 * A CQ overflowed and went to error: a completion found @used of its
 * slots taken. cqn is the CQ's number in "rdma res show cq".
 */
TRACE_EVENT(swr_cq_overflow,
	    TP_PROTO(const struct swr_cq *cq, u32 used),
	    TP_ARGS(cq, used),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, cqn)
			     __field(u32, used)
			     __field(u32, slots)),
	    TP_fast_assign(swr_trace_dev(__entry->dev, cq->ibcq.device);
			   __entry->cqn = cq->ibcq.res.id;
			   __entry->used = used;
			   __entry->slots = cq->num_cqe),
	    TP_printk("dev=%s cqn=%u used=%u slots=%u", __entry->dev,
		      __entry->cqn, __entry->used, __entry->slots)
);

#endif /* SWR_TRACE_H */

/* Out of tree: Kbuild adds this directory to swr_trace.o's include path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE swr_trace

#include <trace/define_trace.h>
