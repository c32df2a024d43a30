/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 packets: the InfiniBand transport headers as IBTA lays them out
 * (volume 1, chapter 9; annex A17 for RoCEv2), the opcode table and the
 * invariant CRC.
 *
 * A RoCEv2 packet is IP | UDP (destination port 4791) | BTH | extended
 * headers | payload | pad (0-3 bytes, to a multiple of 4) | ICRC. All
 * header fields are big-endian; the ICRC is stored as the CRC engine
 * produces it (little-endian on the wire, as rdma_rxe and hardware do).
 */
#ifndef SWR_PKT_H
#define SWR_PKT_H

#include <linux/string.h>
#include <linux/types.h>

#include "swr_compat.h"

struct swr_dev;

#define SWR_ROCE_UDP_PORT	4791
/* UDP source ports: 0xc000 | a 14-bit hash of the flow (RoCEv2 entropy). */
#define SWR_ROCE_SPORT_BASE	0xc000

#define SWR_PSN_BITS		24
#define SWR_QPN_MASK		0xffffffU
#define SWR_ICRC_BYTES		4

/* Base Transport Header, 12 bytes. */
struct swr_bth {
	u8 opcode;
	u8 flags;		/* SE | MigReq | PadCnt(2) | TVer(4) */
	__be16 pkey;
	__be32 qpn;		/* reserved (8) | destination QP (24) */
	__be32 apsn;		/* AckReq | reserved (7) | PSN (24) */
};

#define SWR_BTH_SE		0x80
#define SWR_BTH_MIG		0x40
#define SWR_BTH_PAD_SHIFT	4
#define SWR_BTH_PAD_MASK	0x30
#define SWR_BTH_TVER_MASK	0x0f
#define SWR_BTH_ACK_REQ		0x80000000U

/* RDMA Extended Transport Header, 16 bytes. */
struct swr_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

/* ACK Extended Transport Header, 4 bytes: syndrome (8) | MSN (24). */
struct swr_aeth {
	__be32 smsn;
};

#define SWR_AETH_SYN_SHIFT	24
#define SWR_AETH_MSN_MASK	0xffffffU
/* Syndrome classes (bits 6:5) and NAK codes. */
#define SWR_AETH_ACK		0x00
#define SWR_AETH_RNR_NAK	0x20
#define SWR_AETH_NAK		0x60
#define SWR_AETH_TYPE_MASK	0x60
#define SWR_AETH_NAK_PSN_SEQ	0x60
#define SWR_AETH_NAK_INV_REQ	0x61
#define SWR_AETH_NAK_REM_ACC	0x62
#define SWR_AETH_NAK_REM_OP	0x63
#define SWR_AETH_NAK_INV_RD_REQ	0x64

/* Atomic Extended Transport Header, 28 bytes. */
struct swr_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 comp;
} __packed;

/* Atomic ACK Extended Transport Header, 8 bytes. */
struct swr_atmack {
	__be64 orig;
} __packed;

/* Immediate data, 4 bytes. */
struct swr_immdt {
	__be32 imm;
};

/* Invalidate Extended Transport Header, 4 bytes. */
struct swr_ieth {
	__be32 rkey;
};

/* Datagram Extended Transport Header, 8 bytes. */
struct swr_deth {
	__be32 qkey;
	__be32 sqp;		/* reserved (8) | source QP (24) */
};

/*
 * XRC Extended Transport Header, 4 bytes: reserved (8) | XRC SRQ (24). In
 * every XRC request, right after the BTH (IBTA 9.2, table 38), so before
 * a RETH or AtomicETH; XRC responses carry none.
 */
struct swr_xrceth {
	__be32 srqn;
};

/* Opcode prefixes (bits 7:5): the transport. */
#define SWR_OP_RC		0x00
#define SWR_OP_UC		0x20
#define SWR_OP_UD		0x60
#define SWR_OP_CNP_PREFIX	0x80	/* RoCEv2 annex A17.9.3 */
#define SWR_OP_XRC		0xa0	/* the RC opcodes, in XRC's space */
#define SWR_OP_TRANSPORT_MASK	0xe0
/* Congestion Notification Packet: BTH, 16 reserved bytes, ICRC. */
#define SWR_OP_CNP		0x81
#define SWR_CNP_RSVD_BYTES	16
/* BTH: BECN, the bit a CNP sets in the byte before the QPN. */
#define SWR_BTH_BECN		0x40000000U

/* IBTA opcodes (low five bits; OR a prefix above). */
enum swr_opcode {
	SWR_OP_SEND_FIRST = 0x00,
	SWR_OP_SEND_MIDDLE = 0x01,
	SWR_OP_SEND_LAST = 0x02,
	SWR_OP_SEND_LAST_IMM = 0x03,
	SWR_OP_SEND_ONLY = 0x04,
	SWR_OP_SEND_ONLY_IMM = 0x05,
	SWR_OP_WRITE_FIRST = 0x06,
	SWR_OP_WRITE_MIDDLE = 0x07,
	SWR_OP_WRITE_LAST = 0x08,
	SWR_OP_WRITE_LAST_IMM = 0x09,
	SWR_OP_WRITE_ONLY = 0x0a,
	SWR_OP_WRITE_ONLY_IMM = 0x0b,
	SWR_OP_READ_REQ = 0x0c,
	SWR_OP_READ_RESP_FIRST = 0x0d,
	SWR_OP_READ_RESP_MIDDLE = 0x0e,
	SWR_OP_READ_RESP_LAST = 0x0f,
	SWR_OP_READ_RESP_ONLY = 0x10,
	SWR_OP_ACK = 0x11,
	SWR_OP_ATOMIC_ACK = 0x12,
	SWR_OP_CMP_SWAP = 0x13,
	SWR_OP_FETCH_ADD = 0x14,
	SWR_OP_SEND_LAST_INV = 0x16,
	SWR_OP_SEND_ONLY_INV = 0x17,
	SWR_OP_ATOMIC_WRITE = 0x1d,
};

/* What an opcode carries: its extended headers and its place in a message. */
enum swr_op_flag {
	SWR_OPF_RETH = BIT(0),
	SWR_OPF_AETH = BIT(1),
	SWR_OPF_ATMETH = BIT(2),
	SWR_OPF_ATMACK = BIT(3),
	SWR_OPF_IMMDT = BIT(4),
	SWR_OPF_IETH = BIT(5),
	SWR_OPF_DETH = BIT(6),
	SWR_OPF_PAYLOAD = BIT(7),
	SWR_OPF_FIRST = BIT(8),
	SWR_OPF_MIDDLE = BIT(9),
	SWR_OPF_LAST = BIT(10),
	SWR_OPF_REQ = BIT(11),		/* a request (not a response) */
	SWR_OPF_SEND = BIT(12),
	SWR_OPF_WRITE = BIT(13),
	SWR_OPF_READ = BIT(14),
	SWR_OPF_ATOMIC = BIT(15),
	SWR_OPF_VALID = BIT(16),
	SWR_OPF_CNP = BIT(17),		/* a congestion notification */
	SWR_OPF_XRCETH = BIT(18),	/* an XRC request: XRCETH after BTH */
};

struct swr_opinfo {
	u32 flags;		/* enum swr_op_flag */
	u8 hdr_len;		/* BTH + extended headers, bytes */
};

/* The opcode's entry; flags is 0 for an opcode swroce does not know. */
const struct swr_opinfo *swr_opinfo(u8 opcode);
/* Fill the tables swr_opinfo() reads that are built (module load). */
void swr_pkt_init(void);

/*
 * The ICRC of a RoCEv2 packet: @iph is its IPv4 or IPv6 header (@ipv4
 * tells which; an IPv4 header has no options), immediately followed by the
 * UDP header and @roce_len bytes from the BTH up to, not including, the
 * ICRC. The variant fields are masked as IBTA annex A17 prescribes.
 * Return: the value to store (swr_icrc_put()) or compare.
 */
u32 swr_icrc(const struct swr_dev *sdev, const void *iph, bool ipv4,
	     const u8 *bth, u32 roce_len);

#endif /* SWR_PKT_H */
