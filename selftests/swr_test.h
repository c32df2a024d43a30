/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the swroce selftests.
 *
 * The device under test is $SWROCE_DEV (default swroce0); its netdev is read
 * from the device's own sysfs group, so the tests work on whatever netdev
 * the setup script bound.
 */
#ifndef SWR_TEST_H
#define SWR_TEST_H

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include <infiniband/verbs.h>

static inline const char *swr_test_dev(void)
{
	const char *d = getenv("SWROCE_DEV");

	return d && *d ? d : "swroce0";
}

/* Read a one-line sysfs file into @buf without the newline; -errno on error. */
static inline int swr_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Port counter @name (sysfs hw_counters) of RDMA device @dev, or -1. */
static inline long long swr_port_counter(const char *dev, const char *name)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	if (swr_read_line(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	return strtoll(buf, NULL, 10);
}

static inline int swr_ibdev_attr(const char *attr, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s",
		 swr_test_dev(), attr);
	return swr_read_line(path, buf, len);
}

/*
 * Port counters @names of the device under test (hw_counters) into @v: 0,
 * or -1 when one is missing. The core refreshes all of them at once and
 * serves the values cached within one jiffy: wait out a jiffy first, once.
 */
static inline int swr_counters(const char *const *names, long long *v,
			       int n)
{
	int i;

	usleep(20000);
	for (i = 0; i < n; i++) {
		v[i] = swr_port_counter(swr_test_dev(), names[i]);
		if (v[i] < 0)
			return -1;
	}
	return 0;
}

/* One port counter of the device under test, or -1. */
static inline long long swr_counter(const char *name)
{
	long long v;

	return swr_counters(&name, &v, 1) ? -1 : v;
}

/* The netdev the device under test is bound to. */
static inline int swr_test_netdev(char *buf, size_t len)
{
	return swr_ibdev_attr("swroce/netdev", buf, len);
}

static inline long swr_netdev_long(const char *ndev, const char *attr)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ndev, attr);
	if (swr_read_line(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/* /dev/infiniband/uverbsN of the device under test, into @path. */
static inline int swr_uverbs_path(char *path, size_t len)
{
	struct dirent *de;
	char p[600], name[64];
	DIR *d;
	int ret = -ENOENT;

	d = opendir("/sys/class/infiniband_verbs");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		snprintf(p, sizeof(p), "/sys/class/infiniband_verbs/%s/ibdev",
			 de->d_name);
		if (swr_read_line(p, name, sizeof(name)))
			continue;
		if (!strcmp(name, swr_test_dev())) {
			snprintf(path, len, "/dev/infiniband/%s", de->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

static inline struct ibv_context *swr_open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

static inline struct ibv_context *swr_open_test_dev(void)
{
	return swr_open_dev(swr_test_dev());
}

/* The number of the first line of @path that @fmt (one %ld) matches, or -1. */
static inline long swr_file_long(const char *path, const char *fmt)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &v) == 1)
			break;
	fclose(f);
	return v;
}

/* VmallocUsed from /proc/meminfo in kB, or -1. */
static inline long swr_vmalloc_used_kb(void)
{
	return swr_file_long("/proc/meminfo", "VmallocUsed: %ld kB");
}

/* Drop capability @cap from every set, keep the others; 0 or -1. */
static inline int swr_drop_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	uint32_t bit = 1U << (cap % 32);

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[cap / 32].effective &= ~bit;
	d[cap / 32].permitted &= ~bit;
	d[cap / 32].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d);
}

/* TAP lines for the programs that do not use the kselftest harness. */
static struct {
	int n;		/* tests reported */
	int fail;	/* of which failed */
} swr_tap_st __attribute__((unused));

static inline __attribute__((format(printf, 2, 3)))
void swr_tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++swr_tap_st.n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		swr_tap_st.fail++;
}

#endif /* SWR_TEST_H */
