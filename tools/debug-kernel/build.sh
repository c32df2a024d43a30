#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# build.sh [--dir | --release]: the swroce debug kernel (KASAN, lockdep,
# kmemleak, UBSAN, debug objects; see swroce-debug.config), built once per
# machine from Debian's linux-source-6.12 and cached outside the clone:
#
#   $SWROCE_CACHE/debug-kernel/<source version>-<fragment hash>/
#     linux/        the configured tree; external modules build against it
#                   (make -C linux M=...): objects pruned, Module.symvers kept
#     root/         laid out like / for tools/vm/vm.sh and build-kmod.sh:
#       boot/vmlinuz-<release>, config-<release>, System.map-<release>
#       lib/modules/<release>/  make modules_install; build -> linux/
#     vmlinux       with symbols and line tables, for faddr2line and
#                   scripts/decode_stacktrace.sh
#     release       the kernel release; written last, it marks a finished build
#     build.log, build-time
#
# No argument: build unless cached, then print the directory (a second run
# is a no-op). An interrupted build resumes where it stopped.
#   --dir      print the directory of the finished build, fail if there is none
#   --release  print its kernel release (e.g. 6.12.117-swroce-debug)
# SWROCE_CACHE defaults to /var/cache/swroce. The build runs under nice.

set -eu
here=$(cd "$(dirname "$0")" && pwd)
series=6.12
srcpkg=linux-source-$series
tarball=/usr/src/$srcpkg.tar.xz
fragment=$here/swroce-debug.config

say() { echo "debug-kernel: $*" >&2; }
die() { say "$*"; exit 1; }

# The cache key: which kernel source, which configuration. The base
# (allnoconfig) is named in the fragment's header, so a change of recipe
# is a change of the fragment.
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
	die "$srcpkg is not installed (make deps)"
key=$srcver-$(sha256sum "$fragment" | cut -c1-12)
cache=${SWROCE_CACHE:-/var/cache/swroce}/debug-kernel
dir=$cache/$key
case "$dir" in *[[:space:]]*) die "cache path '$dir' contains blanks" ;; esac

case "${1:-}" in
--dir|--release)
	[ -f "$dir/release" ] ||
		die "not built for $srcpkg $srcver and this fragment: run 'make debug-kernel'"
	if [ "$1" = --dir ]; then echo "$dir"; else cat "$dir/release"; fi
	exit 0 ;;
"") ;;
*) sed -n '4,24p' "$0" >&2; exit 2 ;;
esac

if [ -f "$dir/release" ]; then
	say "cached: $(cat "$dir/release") in $dir"
	echo "$dir"
	exit 0
fi

# What building a kernel needs beyond `make deps` (only this target does).
tools=(flex bison bc gcc make perl cpio xz-utils libelf-dev libssl-dev)
missing=()
for p in "${tools[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "need root to install ${missing[*]}"
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >&2
fi

mkdir -p "$dir"
exec 9> "$dir.lock"
flock -n 9 || { say "another build of $key runs; waiting"; flock 9; }
if [ -f "$dir/release" ]; then	# the other build finished it
	echo "$dir"
	exit 0
fi

t0=$(date +%s)
log=$dir/build.log
src=$dir/linux
if [ ! -f "$src/Makefile" ]; then
	say "extracting $tarball"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

jobs=$(($(nproc) + 1))
kmake() { nice -n 10 make -C "$src" -j"$jobs" "$@"; }

# allnoconfig + fragment -> olddefconfig. merge_config.sh only warns when
# a value does not survive; we check every line ourselves below.
say "configuring (log: $log)"
{
	kmake allnoconfig
	(cd "$src" && KCONFIG_CONFIG=.config scripts/kconfig/merge_config.sh \
		-m .config "$fragment")
	kmake olddefconfig
} > "$log" 2>&1 || die "configuration failed, see $log"

bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$src/.config" && continue
		say "required '$line' is '$(grep -E "^(# )?${line%%=*}[= ]" "$src/.config" ||
			echo unset)' after olddefconfig" ;;
	"# CONFIG_"*" is not set")
		opt=${line#"# "}
		opt=${opt%% *}
		grep -qE "^$opt=" "$src/.config" || continue
		say "'$opt' must be unset, is '$(grep -E "^$opt=" "$src/.config")'" ;;
	*) continue ;;
	esac
	bad=1
done < "$fragment"
[ "$bad" = 0 ] || die "the configuration lost required options (fix $fragment)"

say "building with -j$jobs under nice (log: $log; about an hour on 2 cores)"
kmake all >> "$log" 2>&1 || die "build failed, see the end of $log"
rm -rf "$dir/root"
kmake modules_install INSTALL_MOD_PATH="$dir/root" >> "$log" 2>&1 ||
	die "modules_install failed, see $log"
release=$(make -s -C "$src" kernelrelease)
ln -sfn "$src" "$dir/root/lib/modules/$release/build"
ln -sfn "$src" "$dir/root/lib/modules/$release/source"
mkdir -p "$dir/root/boot"
cp "$src/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$release"
cp "$src/.config" "$dir/root/boot/config-$release"
cp "$src/System.map" "$dir/root/boot/System.map-$release"
cp "$src/vmlinux" "$dir/vmlinux"
# An external module needs the headers, the generated files, the scripts
# and tools (modpost, objtool) and Module.symvers; not the kernel's objects.
find "$src" \( -path "$src/scripts" -o -path "$src/tools" \) -prune -o \
	\( -name '*.o' -o -name '*.ko' -o -name '*.a' \) -type f -print0 |
	xargs -0 rm -f
echo "$(($(date +%s) - t0)) s on $(nproc) cores" > "$dir/build-time"
echo "$release" > "$dir/release"
say "built $release in $(cat "$dir/build-time"): $dir"
echo "$dir"
