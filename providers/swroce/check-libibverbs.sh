#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Make sure the installed libibverbs exports the provider-private ABI
# generation that ibverbs_private.h describes (IBVERBS_PRIVATE_34 for
# rdma-core 44).  Any other generation would load the provider with
# mismatching struct layouts, so refuse to build against it.
#
#   check-libibverbs.sh [PATH/TO/libibverbs.so.1]
#
# Without an argument the library is looked for in the compiler's
# multiarch directory, then via ldconfig.  Exit 0 if fine, 1 with a
# message if not.

set -u

here=$(cd "$(dirname "$0")" && pwd)

abi=$(sed -n 's/^#define[[:space:]]*SWROCE_IBVERBS_PRIVATE_ABI[[:space:]]*\([0-9][0-9]*\).*/\1/p' \
	"$here/ibverbs_private.h")
if [ -z "$abi" ]; then
	echo "check-libibverbs: cannot read SWROCE_IBVERBS_PRIVATE_ABI from $here/ibverbs_private.h" >&2
	exit 1
fi
ver="IBVERBS_PRIVATE_$abi"

lib=${1:-}
if [ -z "$lib" ]; then
	ma=$(${CC:-cc} -print-multiarch 2>/dev/null)
	for d in ${ma:+"/usr/lib/$ma" "/lib/$ma"} /usr/lib64 /usr/lib; do
		if [ -e "$d/libibverbs.so.1" ]; then
			lib="$d/libibverbs.so.1"
			break
		fi
	done
fi
if [ -z "$lib" ]; then
	lib=$(/sbin/ldconfig -p 2>/dev/null |
		sed -n 's/^[[:space:]]*libibverbs\.so\.1 (.*) => //p' |
		head -n 1)
fi
if [ -z "$lib" ] || [ ! -e "$lib" ]; then
	echo "check-libibverbs: ${lib:-libibverbs.so.1} not found;" \
	     "install libibverbs-dev from rdma-core 44" >&2
	exit 1
fi

if command -v objdump >/dev/null 2>&1; then
	syms=$(objdump -T "$lib" 2>/dev/null)
elif command -v readelf >/dev/null 2>&1; then
	syms=$(readelf --dyn-syms -W "$lib" 2>/dev/null)
else
	echo "check-libibverbs: need objdump or readelf (binutils)" >&2
	exit 1
fi

if ! printf '%s\n' "$syms" | grep -q "verbs_register_driver_$abi\$" ||
   ! printf '%s\n' "$syms" | grep -q "$ver"; then
	have=$(printf '%s\n' "$syms" | grep -o 'IBVERBS_PRIVATE_[0-9A-Za-z_]*' | sort -u | tr '\n' ' ')
	echo "check-libibverbs: $lib does not export $ver (found: ${have:-none})." >&2
	echo "check-libibverbs: swroce's ibverbs_private.h matches rdma-core 44 only;" \
	     "build against libibverbs from rdma-core 44.x (Debian 12)." >&2
	exit 1
fi

echo "check-libibverbs: $lib exports $ver"
exit 0
