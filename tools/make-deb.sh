#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make-deb.sh [OUTDIR]: `make deb`. Builds the Debian packages swroce-dkms
# and ibverbs-providers-swroce with Debian's own tooling (dpkg-buildpackage,
# debhelper, dh-dkms) from a copy of the tree's tracked files, so that no
# build output of the work tree ends up in them. The .debs go to OUTDIR
# (default build/deb); the build log to OUTDIR/build.log.

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/swroce-$ver

rm -rf "$out"
mkdir -p "$src"
# The files git tracks (and their working copies); every file but build/
# when the tree is not a git checkout (a release tarball).
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src"
else
	tar -C "$top" --exclude=./build -cf - . | tar -xf - -C "$src"
fi
echo "deb: building swroce $ver in $src"
if ! (cd "$src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed, log in $out/build.log" >&2
	exit 1
fi
rm -rf "$src"
ls -1 "$out"/*.deb
