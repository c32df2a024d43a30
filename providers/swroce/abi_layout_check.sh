#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build abi_layout_check.c and compare its output with a layout dump of
# the real libibverbs v44 private structs.  Prints TAP.
#
#   abi_layout_check.sh [LAYOUT_FILE]
#
# LAYOUT_FILE defaults to $SWROCE_ABI_LAYOUT, then to the shared dump at
# ../shared/abi/libibverbs-v44-layout.txt beside the checkout.  If none
# exists (a fresh clone elsewhere) the program is still built and run -- compiling it already
# evaluates every static assertion in ibverbs_private.h -- and the diff
# is reported as skipped.  Exit status is non-zero on build failure or
# on any difference.  Honours $CC and $CFLAGS.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name="libibverbs v44 private layout matches"

layout=${1:-${SWROCE_ABI_LAYOUT:-$top/../shared/abi/libibverbs-v44-layout.txt}}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/swroce-abi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

echo "1..1"

# A layout file named explicitly (argument or environment) must exist.
if { [ $# -ge 1 ] || [ -n "${SWROCE_ABI_LAYOUT:-}" ]; } && [ ! -r "$layout" ]; then
	echo "not ok 1 - $name # layout file '$layout' not readable"
	exit 1
fi

# CFLAGS is deliberately word-split.
# shellcheck disable=SC2086
if ! ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror ${CFLAGS:-} \
	-I "$top/include" -I "$here" \
	-o "$tmp/abi_layout_check" "$here/abi_layout_check.c" \
	>"$tmp/build.log" 2>&1; then
	sed 's/^/# /' "$tmp/build.log"
	echo "not ok 1 - $name # build failed (see static assertions above)"
	exit 1
fi

if ! "$tmp/abi_layout_check" >"$tmp/actual"; then
	echo "not ok 1 - $name # abi_layout_check failed to run"
	exit 1
fi

if [ ! -r "$layout" ]; then
	echo "# $(wc -l <"$tmp/actual") layout items compiled and asserted"
	echo "ok 1 - $name # SKIP no reference layout file; static assertions passed"
	exit 0
fi

if diff -u "$layout" "$tmp/actual" >"$tmp/diff"; then
	echo "# compared $(wc -l <"$tmp/actual") lines with $layout"
	echo "ok 1 - $name"
	exit 0
fi

sed 's/^/# /' "$tmp/diff"
echo "not ok 1 - $name # differs from $layout"
exit 1
