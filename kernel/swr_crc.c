// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CRC-32 behind the ICRC (swr_icrc()): the library's crc32_le(), or
 * the crypto API's "crc32", which on x86 with PCLMULQDQ is crc32-pclmul.
 * Which one is faster depends on the CPU, and under an emulator the
 * accelerated one can lose (QEMU's TCG emulates PCLMULQDQ instruction by
 * instruction): as the kernel's xor and raid6 code do for theirs, the
 * module measures both when it loads and uses the faster, and says so in
 * the kernel log. A device can be switched to either (sysfs swroce/icrc);
 * both compute the same CRC, so peers never notice.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "swr.h"
#include "swr_compat.h"
#include "swr_crc.h"

/* CRC-32 of a masked LRH (8 bytes of 0xff) from the seed 0xffffffff. */
#define SWR_ICRC_SEED		0xdebb20e3U

/* The measurement: best of SWR_CRC_ROUNDS runs over SWR_CRC_LOOPS x 4 KiB. */
#define SWR_CRC_BUF		4096
#define SWR_CRC_LOOPS		16
#define SWR_CRC_ROUNDS		3

static const char *const swr_crc_names[] = {
	[SWR_CRC_AUTO] = "auto",
	[SWR_CRC_LIB] = "library",
	[SWR_CRC_CRYPTO] = "crypto",
};

/* Set once at module load, read-only afterwards. */
static struct crypto_shash *swr_crc_tfm;	/* NULL: no "crc32" */
static enum swr_crc_impl swr_crc_fastest = SWR_CRC_LIB;
static u32 swr_crc_mbps[SWR_CRC_NR];

static u32 swr_crc_lib(const void *a, size_t alen, const void *b, size_t blen)
{
	return crc32_le(crc32_le(SWR_ICRC_SEED, a, alen), b, blen);
}

static u32 swr_crc_crypto(const void *a, size_t alen, const void *b,
			  size_t blen)
{
	SHASH_DESC_ON_STACK(desc, swr_crc_tfm);
	u8 out[4];

	desc->tfm = swr_crc_tfm;
	/* "crc32" starts from its key (the seed) and neither fails. */
	if (crypto_shash_init(desc) || crypto_shash_update(desc, a, alen) ||
	    crypto_shash_update(desc, b, blen) ||
	    crypto_shash_final(desc, out))
		return swr_crc_lib(a, alen, b, blen);
	return get_unaligned_le32(out);
}

static u32 swr_crc_run(enum swr_crc_impl impl, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	if (impl == SWR_CRC_CRYPTO)
		return swr_crc_crypto(a, alen, b, blen);
	return swr_crc_lib(a, alen, b, blen);
}

enum swr_crc_impl swr_crc_impl(const struct swr_dev *sdev)
{
	enum swr_crc_impl mode = READ_ONCE(sdev->icrc_mode);

	return mode == SWR_CRC_AUTO ? swr_crc_fastest : mode;
}

u32 swr_crc_icrc(const struct swr_dev *sdev, const void *a, size_t alen,
		 const void *b, size_t blen)
{
	return swr_crc_run(swr_crc_impl(sdev), a, alen, b, blen);
}

/* Where the measured CRCs go, so that none can be optimised away. */
static u32 swr_crc_sink;

/*
 * MB/s of @impl over @buf (SWR_CRC_BUF bytes), the best of a few rounds.
 * crc32_le() is __pure: each call gets other bytes and its result is
 * used, or the compiler may compute it once or not at all.
 */
static u32 swr_crc_measure(enum swr_crc_impl impl, const u8 *buf)
{
	const u32 len = SWR_CRC_BUF - SWR_CRC_LOOPS;
	u64 best = U64_MAX, t;
	u32 acc = 0;
	int r, i;

	for (r = 0; r < SWR_CRC_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < SWR_CRC_LOOPS; i++)
			acc ^= swr_crc_run(impl, buf + i, 64, buf + i + 64,
					   len - 64);
		best = min(best, ktime_get_ns() - t);
	}
	WRITE_ONCE(swr_crc_sink, acc);
	/* bytes per ns x 1000 = MB/s */
	return (u32)div64_u64((u64)SWR_CRC_LOOPS * len * 1000,
			      max_t(u64, best, 1));
}

/* The crypto API's "crc32" with the ICRC seed as its key, or NULL. */
static struct crypto_shash *swr_crc_tfm_alloc(void)
{
	struct crypto_shash *tfm;
	u8 key[4];

	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm))
		return NULL;
	put_unaligned_le32(SWR_ICRC_SEED, key);
	if (crypto_shash_setkey(tfm, key, sizeof(key))) {
		crypto_free_shash(tfm);
		return NULL;
	}
	return tfm;
}

void swr_crc_init(void)
{
	u32 lib, cr;
	u8 *buf;

	buf = kmalloc(SWR_CRC_BUF, GFP_KERNEL);
	if (!buf)
		return;		/* the library, and no crypto unchecked */
	swr_crc_tfm = swr_crc_tfm_alloc();
	get_random_bytes(buf, SWR_CRC_BUF);
	swr_crc_mbps[SWR_CRC_LIB] = swr_crc_measure(SWR_CRC_LIB, buf);
	if (swr_crc_tfm) {
		/* Both must agree before either is trusted with packets. */
		lib = swr_crc_run(SWR_CRC_LIB, buf, 64, buf + 64, 1000);
		cr = swr_crc_run(SWR_CRC_CRYPTO, buf, 64, buf + 64, 1000);
		if (lib == cr) {
			swr_crc_mbps[SWR_CRC_CRYPTO] =
				swr_crc_measure(SWR_CRC_CRYPTO, buf);
		} else {
			pr_warn("swroce: crypto crc32 (%s) disagrees with crc32_le, not used\n",
				crypto_shash_driver_name(swr_crc_tfm));
			crypto_free_shash(swr_crc_tfm);
			swr_crc_tfm = NULL;
		}
	}
	kfree(buf);
	swr_crc_fastest = swr_crc_mbps[SWR_CRC_CRYPTO] >
			  swr_crc_mbps[SWR_CRC_LIB] ? SWR_CRC_CRYPTO :
						      SWR_CRC_LIB;
	pr_info("swroce: ICRC by %s: crc32_le %u MB/s, crypto %s %u MB/s\n",
		swr_crc_fastest == SWR_CRC_CRYPTO ? "crypto" : "crc32_le",
		swr_crc_mbps[SWR_CRC_LIB],
		swr_crc_tfm ? crypto_shash_driver_name(swr_crc_tfm) : "(none)",
		swr_crc_mbps[SWR_CRC_CRYPTO]);
}

void swr_crc_exit(void)
{
	if (swr_crc_tfm)
		crypto_free_shash(swr_crc_tfm);
	swr_crc_tfm = NULL;
}

/*
 * sysfs swroce/icrc: "[auto] library crypto", the device's mode in
 * brackets; writing a name sets it (crypto only where there is one).
 */
ssize_t swr_crc_mode_show(const struct swr_dev *sdev, char *buf)
{
	enum swr_crc_impl mode = READ_ONCE(sdev->icrc_mode);
	int i, n = 0;

	for (i = 0; i < SWR_CRC_NR; i++)
		n += sysfs_emit_at(buf, n, i == mode ? "%s[%s]" : "%s%s",
				   i ? " " : "", swr_crc_names[i]);
	return n + sysfs_emit_at(buf, n, "\n");
}

int swr_crc_mode_store(struct swr_dev *sdev, const char *buf)
{
	int i = sysfs_match_string(swr_crc_names, buf);

	if (i < 0)
		return -EINVAL;
	if (i == SWR_CRC_CRYPTO && !swr_crc_tfm)
		return -EOPNOTSUPP;
	WRITE_ONCE(sdev->icrc_mode, i);
	return 0;
}

/* sysfs swroce/icrc_impl: what the device uses now, and how fast. */
ssize_t swr_crc_impl_show(const struct swr_dev *sdev, char *buf)
{
	enum swr_crc_impl impl = swr_crc_impl(sdev);

	return sysfs_emit(buf, "%s %u\n",
			  impl == SWR_CRC_CRYPTO ?
			  crypto_shash_driver_name(swr_crc_tfm) : "crc32_le",
			  swr_crc_mbps[impl]);
}
