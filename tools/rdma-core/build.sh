#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# build.sh TAG [ROOT]: an rdma-core release built from source, in place,
# the way its own build.sh does it: the tree in ROOT/TAG (default
# build/rdma-core/TAG), cmake -DIN_PLACE=1 into ROOT/TAG/build. An in-place
# libibverbs reads its providers from build/lib and its driver files from
# build/etc/libibverbs.d, so a provider put there is found as if installed.
#
# Cached: a tree whose build finished (ROOT/TAG/.swroce-built) is left as
# it is. The sources come from RDMA_CORE_GIT (a git URL or directory;
# default the upstream repository), one shallow clone of the tag.
# Needs cmake, ninja-build, libnl-3-dev, libnl-route-3-dev, libudev-dev,
# python3-dev and cython3 (for pyverbs): tools/deps.sh installs them.

set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tag=${1:?usage: build.sh TAG [ROOT]}
root=${2:-$top/build/rdma-core}
src=$root/$tag
git_src=${RDMA_CORE_GIT:-https://github.com/linux-rdma/rdma-core.git}

if [ -e "$src/.swroce-built" ]; then
	echo "rdma-core $tag: built ($src/build)"
	exit 0
fi
if [ ! -e "$src/CMakeLists.txt" ]; then
	echo "rdma-core $tag: sources from $git_src"
	rm -rf "$src.tmp"
	git -c advice.detachedHead=false clone -q --depth 1 --branch "$tag" \
		"$git_src" "$src.tmp"
	rm -rf "$src.tmp/.git"
	mkdir -p "$root"
	rm -rf "$src"
	mv "$src.tmp" "$src"
fi

start=$(date +%s)
# (PYTHON_ for the older cmake logic of rdma-core, Python_ for FindPython)
py=${RDMA_CORE_PYTHON:-/usr/bin/python3}
mkdir -p "$src/build"
cd "$src/build"
# Man pages need pandoc; nothing here reads them. pyverbs needs the python
# that has Debian's cython3, not whichever python3 is first on PATH.
cmake -GNinja -DIN_PLACE=1 -DNO_MAN_PAGES=1 \
	-DPYTHON_EXECUTABLE="$py" -DPython_EXECUTABLE="$py" \
	.. >cmake.log 2>&1 ||
	{ tail -n 30 cmake.log >&2; exit 1; }
if ! grep -q '^#define IBVERBS_PABI_VERSION' include/config.h; then
	echo "rdma-core $tag: no IBVERBS_PABI_VERSION in config.h" >&2
	exit 1
fi
ninja -j "${RDMA_CORE_JOBS:-$(nproc)}" >ninja.log 2>&1 ||
	{ tail -n 30 ninja.log >&2; exit 1; }
touch "$src/.swroce-built"
if [ -d python/pyverbs ]; then
	pyverbs=yes
else
	pyverbs="no: $(grep -m1 -i 'cython\|pyverbs' cmake.log || echo '?')"
fi
echo "rdma-core $tag: built in $(($(date +%s) - start)) s, pyverbs $pyverbs"
