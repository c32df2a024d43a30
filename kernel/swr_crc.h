/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CRC-32 behind the ICRC, the faster of two (swr_crc.c). */
#ifndef SWR_CRC_H
#define SWR_CRC_H

#include <linux/types.h>

struct swr_dev;

/* A device's choice (sysfs swroce/icrc); AUTO is the measured fastest. */
enum swr_crc_impl {
	SWR_CRC_AUTO,
	SWR_CRC_LIB,		/* crc32_le() */
	SWR_CRC_CRYPTO,		/* the crypto API's "crc32" */
	SWR_CRC_NR,
};

void swr_crc_init(void);
void swr_crc_exit(void);

/*
 * The CRC-32 of @a then @b from the ICRC's seed (not inverted), by the
 * implementation @sdev uses.
 */
u32 swr_crc_icrc(const struct swr_dev *sdev, const void *a, size_t alen,
		 const void *b, size_t blen);
enum swr_crc_impl swr_crc_impl(const struct swr_dev *sdev);

ssize_t swr_crc_mode_show(const struct swr_dev *sdev, char *buf);
int swr_crc_mode_store(struct swr_dev *sdev, const char *buf);
ssize_t swr_crc_impl_show(const struct swr_dev *sdev, char *buf);

#endif /* SWR_CRC_H */
