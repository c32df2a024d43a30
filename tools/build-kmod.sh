#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# build-kmod.sh OUTDIR [KVER...]
#
# Builds swroce.ko for each given kernel (default: the newest installed
# kernel of every pinned series; the debug kernel only when named) into OUTDIR/<kver>/kernel/swroce.ko, and
# copies it to OUTDIR/<kver>/swroce.ko. Kbuild of these kernels builds an
# external module inside its source directory, so each kernel gets a
# mirror of the tree made of symlinks; the objects of one kernel never
# mix with another's or with an in-place 'make kmod'.
#
# Extra arguments for Kbuild come from KBUILD_ARGS (e.g. "W=1 C=1").

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1")
shift
kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	for s in $("$top/tools/kernels.sh" series); do
		kvers+=("$("$top/tools/kernels.sh" installed "$s")")
	done
fi

for kver in "${kvers[@]}"; do
	# the debug kernel's tree is in its cache, not under /lib/modules
	root=$("$top/tools/kernels.sh" root "$kver")
	kdir=${root%/}/lib/modules/$kver/build
	[ -d "$kdir" ] || { echo "build-kmod: no $kdir (make deps)" >&2; exit 1; }
	d=$out/$kver
	mkdir -p "$d/kernel"
	ln -sfn "$top/Kbuild" "$d/Kbuild"
	ln -sfn "$top/include" "$d/include"
	# Drop links to files that no longer exist, then link the current ones.
	find "$d/kernel" -maxdepth 1 -xtype l -delete
	for f in "$top"/kernel/Kbuild "$top"/kernel/*.[ch]; do
		# An in-place 'make kmod' leaves its generated swroce.mod.c
		# in kernel/: a link to it would make this kernel build the
		# other kernel's file (a module without vermagic). Drop such
		# a link, and Module.symvers so that modpost writes our own.
		l=$d/kernel/$(basename "$f")
		case "$f" in
		*.mod.c)
			if [ -L "$l" ]; then rm -f "$l" "$d/Module.symvers"; fi
			continue ;;
		esac
		ln -sfn "$f" "$l"
	done
	# shellcheck disable=SC2086 # KBUILD_ARGS is a list of words
	make -s -j"$(nproc)" -C "$kdir" M="$d" ${KBUILD_ARGS:-} modules
	cp "$d/kernel/swroce.ko" "$d/swroce.ko"
	echo "build-kmod: $d/swroce.ko"
done
