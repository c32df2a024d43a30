/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 packets as the selftests build them by hand: the ICRC (computed
 * exactly as kernel/swr_pkt.c swr_icrc() does), big- and little-endian
 * stores, and which headers each opcode carries. For programs that put
 * crafted packets on the wire (swroce_fuzz.c).
 */
#ifndef SWR_ROCE_PKT_H
#define SWR_ROCE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ICRC ------------------------------------------------------------------- */

static uint32_t crc_tab[256];

static inline void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
		crc_tab[i] = c;
	}
}

/* The kernel's crc32_le(): reflected, no pre- or post-inversion. */
static inline uint32_t crc32_le(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = crc_tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * @iph: the IP header, followed by the UDP header; @roce: BTH onwards,
 * @len bytes before the ICRC. IBTA A17's masks, as swr_icrc() applies them.
 */
static inline uint32_t icrc(const uint8_t *iph, bool v4, const uint8_t *udph,
		     const uint8_t *roce, size_t len)
{
	uint8_t ps[40 + 8 + 12];
	size_t il = v4 ? 20 : 40;
	uint32_t crc;

	memcpy(ps, iph, il);
	memcpy(ps + il, udph, 8);
	memcpy(ps + il + 8, roce, 12);
	if (v4) {
		ps[1] = 0xff;		/* TOS */
		ps[8] = 0xff;		/* TTL */
		ps[10] = ps[11] = 0xff;	/* header checksum */
	} else {
		ps[0] |= 0x0f;		/* traffic class, flow label */
		ps[1] = ps[2] = ps[3] = 0xff;
		ps[7] = 0xff;		/* hop limit */
	}
	ps[il + 6] = ps[il + 7] = 0xff;	/* UDP checksum */
	ps[il + 8 + 4] = 0xff;		/* BTH resv8a */
	crc = crc32_le(0xdebb20e3u, ps, il + 8 + 12);
	crc = crc32_le(crc, roce + 12, len - 12);
	return ~crc;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (uint32_t)v);
}

/* Opcodes ---------------------------------------------------------------- */

enum { RETH = 1, AETH = 2, ATMETH = 4, ATMACK = 8, IMM = 16, IETH = 32,
       DETH = 64, PAY = 128, REQ = 256, RESP = 512 };

/* What each low-five-bit opcode carries (IBTA; kernel/swr_pkt.c). */
static inline unsigned int op_flags(uint8_t op)
{
	switch (op & 0x1f) {
	case 0x00: case 0x01: case 0x02: case 0x04:
		return PAY | REQ;
	case 0x03: case 0x05:
		return PAY | REQ | IMM;
	case 0x06: case 0x0a:
		return PAY | REQ | RETH;
	case 0x07: case 0x08:
		return PAY | REQ;
	case 0x09:
		return PAY | REQ | IMM;
	case 0x0b:
		return PAY | REQ | RETH | IMM;
	case 0x0c:
		return REQ | RETH;
	case 0x0d: case 0x0f: case 0x10:
		return PAY | RESP | AETH;
	case 0x0e:
		return PAY | RESP;
	case 0x11:
		return RESP | AETH;
	case 0x12:
		return RESP | AETH | ATMACK;
	case 0x13: case 0x14:
		return REQ | ATMETH;
	case 0x16: case 0x17:
		return PAY | REQ | IETH;
	case 0x1d:
		return PAY | REQ | RETH;
	}
	return 0;
}

static const uint8_t rc_ops[] __attribute__((unused)) = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
	0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
	0x17, 0x1d,
};

#endif /* SWR_ROCE_PKT_H */
