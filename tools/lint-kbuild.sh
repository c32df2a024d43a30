#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# lint-kbuild.sh OUTDIR KVER: swroce.ko for kernel KVER built from scratch
# in OUTDIR/KVER with W=1 and sparse on every file (C=2), its findings
# (warnings, sparse's reports, a failed build) in OUTDIR/KVER/lint-kbuild.out,
# empty when there are none. tools/lint.sh reports that file; make check
# builds the guests' modules this way (tools/check.sh), so that lint reads
# the findings instead of compiling a second time. W=1 and C=2 add
# warnings and a checker: the module is the one a plain build makes.
# Exit status: the build's.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1 kver=$2
rm -rf "${out:?}/$kver"
mkdir -p "$out/$kver"
KBUILD_ARGS="W=1 C=2" "$top/tools/build-kmod.sh" "$out" "$kver" \
	>"$out/$kver/lint-kbuild.log" 2>&1
rc=$?
# Kbuild's progress lines and the BTF note (no vmlinux in Debian's
# headers) are not findings; everything else is.
grep -v -e '^build-kmod: ' -e '^Skipping BTF generation' \
	"$out/$kver/lint-kbuild.log" >"$out/$kver/lint-kbuild.out"
[ $rc -eq 0 ] || echo "build failed ($rc)" >>"$out/$kver/lint-kbuild.out"
exit $rc
