#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# uapi-layout.sh: every struct of include/uapi/rdma/swroce-abi.h must lay
# out identically for 64-bit and 32-bit user space (a 32-bit process on a
# 64-bit kernel speaks the same ABI). clang dumps the record layouts for
# x86_64 and i386; any difference is printed and fails the check.

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hdr=$top/include/uapi/rdma/swroce-abi.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v clang >/dev/null || { echo "uapi-layout: clang not installed"; exit 1; }

# Taking sizeof() of every struct makes clang lay each of them out.
{
	echo '#include <rdma/swroce-abi.h>'
	echo 'unsigned long swr_uapi_sizes[] = {'
	grep -o 'struct swroce_[a-z0-9_]*' "$hdr" | sort -u | sed 's/.*/\tsizeof(&),/'
	echo '};'
} >"$tmp/layout.c"

# One record per paragraph, sorted, so that the dump order does not matter.
for target in x86_64-linux-gnu i386-linux-gnu; do
	clang -target "$target" -I"$top/include/uapi" \
		-I/usr/include/x86_64-linux-gnu -fsyntax-only \
		-Xclang -fdump-record-layouts "$tmp/layout.c" |
		awk '/Dumping AST Record Layout/ { if (r != "") print r; r = ""; next }
		     NF { r = r $0 "\\n" } END { if (r != "") print r }' |
		sort >"$tmp/$target"
done
n=$(grep -c . "$tmp/x86_64-linux-gnu")
[ "$n" -gt 0 ] || { echo "uapi-layout: no records dumped"; exit 1; }
if ! diff "$tmp/x86_64-linux-gnu" "$tmp/i386-linux-gnu" >"$tmp/diff"; then
	sed 's/\\n/\n/g' "$tmp/diff"
	exit 1
fi
