#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# extract-ksrc.sh OUTDIR
#
# Extracts from Debian's linux-source package the few files the build uses:
# the kselftest harness headers and checkpatch with its data files. The
# newest pinned series' source is used (its checkpatch knows the newest
# rules; the harness header is plain user-space C).

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1")
series=$("$top/tools/kernels.sh" series | tr ' ' '\n' | sort -V | tail -n 1)
tarball=/usr/src/linux-source-$series.tar.xz
[ -r "$tarball" ] || {
	echo "extract-ksrc: $tarball missing (make deps)" >&2; exit 1; }

files=(
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
)
mkdir -p "$out"
tar -C "$out" -xJf "$tarball" --strip-components=1 \
	"${files[@]/#/linux-source-$series/}"
touch "$out/tools/testing/selftests/kselftest_harness.h"
echo "extract-ksrc: linux-source-$series -> $out"
