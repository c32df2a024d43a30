// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * swr_tunpipe NETNS_A TUN_A NETNS_B TUN_B: the wire between two tun
 * devices (IFF_TUN, no packet information) in two network namespaces,
 * for the L3 netdev test of selftests/swroce_netdevs.sh: every IP packet
 * one device sends is written to the other, both ways, until killed.
 * The devices exist already (ip tuntap add); this attaches to them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Attach to tun device @name of the namespace /run/netns/@ns. */
static int tun_open(const char *ns, const char *name)
{
	char path[256];
	struct ifreq ifr;
	int nsfd, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET)) {
		perror(path);
		return -1;
	}
	close(nsfd);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/net/tun");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		perror(name);
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	struct pollfd p[2];
	int i;

	if (argc != 5) {
		fprintf(stderr, "usage: %s NETNS_A TUN_A NETNS_B TUN_B\n",
			argv[0]);
		return 2;
	}
	p[0].fd = tun_open(argv[1], argv[2]);
	p[1].fd = tun_open(argv[3], argv[4]);
	if (p[0].fd < 0 || p[1].fd < 0)
		return 1;
	p[0].events = POLLIN;
	p[1].events = POLLIN;
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			perror("poll");
			return 1;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (!(p[i].revents & POLLIN))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				perror("read");
				return 1;
			}
			/* A full queue on the other side drops, as a link does. */
			if (write(p[!i].fd, buf, n) != n)
				continue;
		}
	}
}
