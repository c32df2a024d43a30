#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# hugepages.sh N: inside the QEMU guest, set the pool of 2 MiB huge pages
# to N pages and print the size it had, to give back afterwards with
# "hugepages.sh OLD". The rdma-core suite's huge page tests (parent
# domain rings, ODP over MAP_HUGETLB) and the parent step's huge page
# ring skip on an empty pool. A pool smaller than asked for (fragmented
# memory) is said on stderr; the tests that find no page then skip.

set -eu
pool=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
[ $# = 1 ] || { echo "usage: hugepages.sh PAGES" >&2; exit 2; }
if [ ! -w "$pool" ]; then
	echo "hugepages.sh: no 2 MiB huge pages on this kernel" >&2
	echo 0
	exit 0
fi
old=$(cat "$pool")
echo "$1" >"$pool"
got=$(cat "$pool")
[ "$got" -ge "$1" ] || echo "hugepages.sh: asked for $1 huge pages, got $got" >&2
echo "$old"
