// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 packets: the opcode table and the invariant CRC (see swr_pkt.h).
 */
#include <linux/cache.h>
#include <linux/init.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "swr_crc.h"
#include "swr_pkt.h"

#define BTH	sizeof(struct swr_bth)
#define RETH	sizeof(struct swr_reth)
#define AETH	sizeof(struct swr_aeth)
#define ATMETH	sizeof(struct swr_atmeth)
#define ATMACK	sizeof(struct swr_atmack)
#define IMMDT	sizeof(struct swr_immdt)
#define IETH	sizeof(struct swr_ieth)
#define DETH	sizeof(struct swr_deth)
#define XRCETH	sizeof(struct swr_xrceth)

#define V	SWR_OPF_VALID
#define P	SWR_OPF_PAYLOAD
#define F	SWR_OPF_FIRST
#define M	SWR_OPF_MIDDLE
#define L	SWR_OPF_LAST
#define Q	SWR_OPF_REQ
#define S	(SWR_OPF_SEND | Q)
#define W	(SWR_OPF_WRITE | Q)

/* Indexed by the low five bits; the transport decides which are valid. */
static const struct swr_opinfo swr_rc_ops[32] = {
	[SWR_OP_SEND_FIRST] = { V | S | P | F, BTH },
	[SWR_OP_SEND_MIDDLE] = { V | S | P | M, BTH },
	[SWR_OP_SEND_LAST] = { V | S | P | L, BTH },
	[SWR_OP_SEND_LAST_IMM] = { V | S | P | L | SWR_OPF_IMMDT, BTH + IMMDT },
	[SWR_OP_SEND_ONLY] = { V | S | P | F | L, BTH },
	[SWR_OP_SEND_ONLY_IMM] = { V | S | P | F | L | SWR_OPF_IMMDT,
				   BTH + IMMDT },
	[SWR_OP_WRITE_FIRST] = { V | W | P | F | SWR_OPF_RETH, BTH + RETH },
	[SWR_OP_WRITE_MIDDLE] = { V | W | P | M, BTH },
	[SWR_OP_WRITE_LAST] = { V | W | P | L, BTH },
	[SWR_OP_WRITE_LAST_IMM] = { V | W | P | L | SWR_OPF_IMMDT,
				    BTH + IMMDT },
	[SWR_OP_WRITE_ONLY] = { V | W | P | F | L | SWR_OPF_RETH, BTH + RETH },
	[SWR_OP_WRITE_ONLY_IMM] = { V | W | P | F | L | SWR_OPF_RETH |
				    SWR_OPF_IMMDT, BTH + RETH + IMMDT },
	[SWR_OP_READ_REQ] = { V | Q | SWR_OPF_READ | F | L | SWR_OPF_RETH,
			      BTH + RETH },
	[SWR_OP_READ_RESP_FIRST] = { V | SWR_OPF_READ | P | F | SWR_OPF_AETH,
				     BTH + AETH },
	[SWR_OP_READ_RESP_MIDDLE] = { V | SWR_OPF_READ | P | M, BTH },
	[SWR_OP_READ_RESP_LAST] = { V | SWR_OPF_READ | P | L | SWR_OPF_AETH,
				    BTH + AETH },
	[SWR_OP_READ_RESP_ONLY] = { V | SWR_OPF_READ | P | F | L |
				    SWR_OPF_AETH, BTH + AETH },
	[SWR_OP_ACK] = { V | F | L | SWR_OPF_AETH, BTH + AETH },
	[SWR_OP_ATOMIC_ACK] = { V | F | L | SWR_OPF_AETH | SWR_OPF_ATMACK,
				BTH + AETH + ATMACK },
	[SWR_OP_CMP_SWAP] = { V | Q | SWR_OPF_ATOMIC | F | L | SWR_OPF_ATMETH,
			      BTH + ATMETH },
	[SWR_OP_FETCH_ADD] = { V | Q | SWR_OPF_ATOMIC | F | L | SWR_OPF_ATMETH,
			       BTH + ATMETH },
	[SWR_OP_SEND_LAST_INV] = { V | S | P | L | SWR_OPF_IETH, BTH + IETH },
	[SWR_OP_SEND_ONLY_INV] = { V | S | P | F | L | SWR_OPF_IETH,
				   BTH + IETH },
	/* 8 bytes of data after the RETH (IBTA 1.5). */
	[SWR_OP_ATOMIC_WRITE] = { V | W | P | F | L | SWR_OPF_RETH,
				  BTH + RETH },
};

/*
 * XRC's opcodes are RC's (transport prefix 101b); its requests carry an
 * XRCETH between the BTH and the rest (IBTA 9.2). Filled from swr_rc_ops
 * once, at module load (swr_pkt_init()).
 */
static struct swr_opinfo swr_xrc_ops[32] __ro_after_init;

static const struct swr_opinfo swr_ud_ops[32] = {
	[SWR_OP_SEND_ONLY] = { V | S | P | F | L | SWR_OPF_DETH, BTH + DETH },
	[SWR_OP_SEND_ONLY_IMM] = { V | S | P | F | L | SWR_OPF_DETH |
				   SWR_OPF_IMMDT, BTH + DETH + IMMDT },
};

static const struct swr_opinfo swr_no_op;
static const struct swr_opinfo swr_cnp_op = {
	V | SWR_OPF_CNP | F | L, BTH + SWR_CNP_RSVD_BYTES
};

/* UC: the SEND and WRITE opcodes of RC, nothing else. */
static bool swr_uc_op_ok(u8 op)
{
	return op <= SWR_OP_WRITE_ONLY_IMM;
}

const struct swr_opinfo *swr_opinfo(u8 opcode)
{
	u8 op = opcode & ~SWR_OP_TRANSPORT_MASK;

	switch (opcode & SWR_OP_TRANSPORT_MASK) {
	case SWR_OP_RC:
		return &swr_rc_ops[op];
	case SWR_OP_UC:
		return swr_uc_op_ok(op) ? &swr_rc_ops[op] : &swr_no_op;
	case SWR_OP_UD:
		return &swr_ud_ops[op];
	case SWR_OP_XRC:
		return &swr_xrc_ops[op];
	case SWR_OP_CNP_PREFIX:
		return opcode == SWR_OP_CNP ? &swr_cnp_op : &swr_no_op;
	default:
		return &swr_no_op;
	}
}

void __init swr_pkt_init(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(swr_xrc_ops); i++) {
		swr_xrc_ops[i] = swr_rc_ops[i];
		if (!(swr_rc_ops[i].flags & SWR_OPF_REQ))
			continue;
		swr_xrc_ops[i].flags |= SWR_OPF_XRCETH;
		swr_xrc_ops[i].hdr_len += XRCETH;
	}
}

u32 swr_icrc(const struct swr_dev *sdev, const void *iph, bool ipv4,
	     const u8 *bth, u32 roce_len)
{
	u8 ps[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + BTH];
	size_t iplen = ipv4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	struct udphdr *udph = (struct udphdr *)(ps + iplen);
	struct swr_bth *b = (struct swr_bth *)(ps + iplen + sizeof(*udph));
	u32 crc;

	memcpy(ps, iph, iplen + sizeof(*udph));
	memcpy(b, bth, BTH);
	if (ipv4) {
		struct iphdr *ip4 = (struct iphdr *)ps;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		ip4->check = (__force __sum16)0xffff;
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)ps;

		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	}
	udph->check = (__force __sum16)0xffff;
	/* BTH: the reserved byte before the QPN (resv8a) is masked. */
	b->qpn |= cpu_to_be32(~SWR_QPN_MASK);

	crc = swr_crc_icrc(sdev, ps, iplen + sizeof(*udph) + BTH, bth + BTH,
			   roce_len - BTH);
	return ~crc;
}
