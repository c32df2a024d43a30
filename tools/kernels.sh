#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The one place that names the Debian kernel series swroce is tested on.
#
# Debian publishes new ABI numbers (6.1.0-NN, 6.12.NN+deb12) and withdraws
# old ones, so we pin the *series* and resolve the newest version at the
# time it is needed:
#
#   tools/kernels.sh series            the series, default first
#   tools/kernels.sh apt SERIES        newest installable image+headers pair
#                                      (package version string), from apt
#   tools/kernels.sh installed SERIES  newest installed kernel of SERIES that
#                                      has both /boot/vmlinuz and headers
#   tools/kernels.sh resolve NAME      NAME is a series or a full version;
#                                      prints the installed full version
#   tools/kernels.sh root VERSION      the directory holding VERSION's
#                                      boot/ and lib/modules/: / for Debian's
#
# "debug" is one more name for installed/resolve, not a pinned series: the
# KASAN/lockdep kernel built from Debian's 6.12 source by
# tools/debug-kernel/build.sh (make debug-kernel) into a cache of its own.

set -eu
debug_kernel=$(dirname "$0")/debug-kernel/build.sh

KERNEL_SERIES="6.1 6.12"

# apt package-name pattern and uname pattern for a series
series_pkg_re() {
	case "$1" in
	6.1)  echo '6\.1\.0-[0-9]+-amd64' ;;
	6.12) echo '6\.12\.[0-9]+\+deb12-amd64' ;;
	*) echo "kernels.sh: unknown kernel series '$1' (known: $KERNEL_SERIES)" >&2
	   return 1 ;;
	esac
}

has_candidate() {
	apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'
}

apt_newest() {
	local re ver
	re=$(series_pkg_re "$1")
	for ver in $(apt-cache pkgnames linux-image- 2>/dev/null |
		     sed -nE "s/^linux-image-($re)\$/\\1/p" | sort -rV); do
		if has_candidate "linux-image-$ver" &&
		   has_candidate "linux-headers-$ver"; then
			echo "$ver"
			return 0
		fi
	done
	echo "kernels.sh: no installable linux-image/headers pair for series $1" >&2
	return 1
}

installed_newest() {
	local re ver
	re=$(series_pkg_re "$1")
	for ver in $(ls /boot 2>/dev/null |
		     sed -nE "s/^vmlinuz-($re)\$/\\1/p" | sort -rV); do
		if [ -d "/usr/src/linux-headers-$ver" ] &&
		   [ -d "/lib/modules/$ver/kernel" ]; then
			echo "$ver"
			return 0
		fi
	done
	echo "kernels.sh: no installed kernel of series $1 (run 'make deps')" >&2
	return 1
}

case "${1:-}" in
series)
	echo "$KERNEL_SERIES" ;;
apt)
	apt_newest "$2" ;;
installed)
	case "$2" in
	debug) bash "$debug_kernel" --release ;;
	*) installed_newest "$2" ;;
	esac ;;
resolve)
	case "$2" in
	debug) bash "$debug_kernel" --release ;;
	*-swroce-debug)
		[ "$2" = "$(bash "$debug_kernel" --release)" ] || {
			echo "kernels.sh: the cached debug kernel is not $2" >&2; exit 1; }
		echo "$2" ;;
	*-amd64) [ -e "/boot/vmlinuz-$2" ] || {
			echo "kernels.sh: /boot/vmlinuz-$2 not found" >&2; exit 1; }
		 echo "$2" ;;
	*) installed_newest "$2" ;;
	esac ;;
root)
	case "$2" in
	*-swroce-debug)
		d=$(bash "$debug_kernel" --dir)
		echo "$d/root" ;;
	*) echo / ;;
	esac ;;
*)
	sed -n '4,23p' "$0" >&2
	exit 2 ;;
esac
