#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Run a command (or a shell) inside a throw-away QEMU guest running a Debian
# kernel, with the host's root file system read-only plus a tmpfs overlay,
# and the work tree shared read-write at the same path.  swroce.ko is only
# ever loaded in such a guest, never into the host kernel.
#
# usage: tools/vm/vm.sh [-k KERNEL] [-t SECONDS] [-l CONSOLE_LOG]
#                       [-m MODULE_KO | -M] [-r MEM] [-i] [-e VAR=VAL]...
#                       [-n LPORT:RPORT | -n hub] [-- CMD [ARGS...]]
#   -k KERNEL   series (6.1, 6.12), full version, or "debug" (the KASAN/
#               lockdep kernel of make debug-kernel); default: first series
#   -t SECONDS  hard timeout, qemu is killed (default 600; none with -i)
#   -l LOG      console log (default build/vm/<ver>/console.log, or
#               console.<pid>.log while another run holds that)
#   -m KO       module to insmod (default build/kmod/<ver>/swroce.ko)
#   -M          load no swroce module
#   -r MEM      guest memory, as qemu -m takes it (default 2G)
#   -i          interactive: guest console on this terminal (Ctrl-A x quits)
#   -e VAR=VAL  export VAR in the guest for CMD (repeatable)
#   -n L:R      a virtio-net NIC whose wire is a UDP socket on host port L
#               of 127.0.0.1 sending to port R: two guests with -n A:B and
#               -n B:A share a link; its MAC is
#               52:54:00:5e:XX:YY, XXYY = L in hex
#   -n hub      a virtio-net NIC on a QEMU hub with no other port: a
#               NIC-backed netdev whose frames go nowhere (MAC
#               52:54:00:5e:00:00); tools/vm/nic.sh finds it in the guest
# Environment: VM_CPU the qemu -cpu model (default max; under TCG
# max,-cx16, see Documentation/testing.rst), VM_APPEND more kernel command
# line.
# CMD runs in the work tree; its stdout+stderr come out on our stdout.
# Exit status: CMD's status, or 124 timeout, 125 kernel splat / new taint /
# guest failure, 1 host-side error, 2 usage.  Messages go to stderr.

set -eu

usage() { sed -n '9,31p' "$0" >&2; exit 2; }
say() { echo "vm: $*" >&2; }
die() { say "$*"; exit 1; }

TOP=$(cd "$(dirname "$0")/../.." && pwd -P)
# run through bash: the file need not carry the x bit
KERNELS=(bash "$TOP/tools/kernels.sh")

kernel='' timeout_s='' console='' module='' no_module=0 interactive=0 own_console=0
mem=2G
envs=()
nic=()
while getopts "k:t:l:m:Mr:ie:n:h" opt; do
	case "$opt" in
	k) kernel=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	l) console=$OPTARG ;;
	m) module=$OPTARG ;;
	M) no_module=1 ;;
	r) [[ "$OPTARG" =~ ^[1-9][0-9]*[MG]$ ]] ||
		{ say "-r wants a size such as 4G or 3072M, got '$OPTARG'"; usage; }
	   mem=$OPTARG ;;
	i) interactive=1 ;;
	e) case "$OPTARG" in
	   [A-Za-z_]*=*) envs+=("$OPTARG") ;;
	   *) say "-e wants VAR=VAL, got '$OPTARG'"; usage ;;
	   esac ;;
	n) if [ "$OPTARG" = hub ]; then
		nic=(-netdev "hubport,id=wire,hubid=0"
		     -device "virtio-net-pci,netdev=wire,mac=52:54:00:5e:00:00")
		continue
	   fi
	   [[ "$OPTARG" =~ ^([0-9]{4,5}):([0-9]{4,5})$ ]] ||
		{ say "-n wants LPORT:RPORT or hub, got '$OPTARG'"; usage; }
	   lp=${BASH_REMATCH[1]} rp=${BASH_REMATCH[2]}
	   nic=(-netdev "dgram,id=wire,local.type=inet,local.host=127.0.0.1,local.port=$lp,remote.type=inet,remote.host=127.0.0.1,remote.port=$rp"
		-device "virtio-net-pci,netdev=wire,mac=$(printf '52:54:00:5e:%02x:%02x' $((lp >> 8)) $((lp & 255)))") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ -z "$module" ] || [ "$no_module" = 0 ] || { say "-m and -M exclude each other"; usage; }
case "$timeout_s" in
"") [ "$interactive" = 1 ] || timeout_s=600 ;;
*[!0-9]*|0) say "-t wants a positive number of seconds"; usage ;;
esac

[ -n "$kernel" ] || kernel=$("${KERNELS[@]}" series | awk '{print $1}')
ver=$("${KERNELS[@]}" resolve "$kernel") || exit 1
# where boot/ and lib/modules/ of $ver are: / for Debian's kernels
kroot=$("${KERNELS[@]}" root "$ver") || exit 1
say "kernel $ver"

# The kernel command line carries paths as name=value words.
case "$TOP" in *[[:space:]]*) die "work tree path '$TOP' contains blanks" ;; esac

vmdir="$TOP/build/vm/$ver"
mkdir -p "$vmdir"
if [ -z "$console" ]; then
	console="$vmdir/console.log"
	# Runs in parallel (several people, make -j) must not share a log: the
	# splat scan would read the other run's.  Hold a lock on the default
	# log for this run's lifetime (fd 8); if taken, use a per-run name.
	exec 8> "$console.lock"
	if ! flock -n 8; then
		console="$vmdir/console.$$.log"
		own_console=1	# removed again after a clean run
		say "console.log is in use by another run, logging to $console"
	fi
fi
mkdir -p "$(dirname "$console")"
console=$(realpath "$console")

if [ "$no_module" = 0 ]; then
	[ -n "$module" ] || module="$TOP/build/kmod/$ver/swroce.ko"
	[ -f "$module" ] || die "module $module not found (build it for $ver, or pass -M to run without swroce)"
fi

# ---------------------------------------------------------------- initramfs
# Modules needed to reach the 9p root, in load order.  modprobe prints
# "insmod PATH" lines (deps first) or "builtin NAME"; duplicates are removed
# keeping the first, which preserves dependency order.  None for a kernel
# that has them all built in (the debug kernel).
initramfs_modules() {
	local m
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$kroot" -S "$ver" --show-depends "$m" || return 1
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
	return "${PIPESTATUS[0]}"
}

build_initramfs() {
	local out="$vmdir/initramfs.cpio" stamp mods ko base stage
	mods=$(initramfs_modules) || die "modprobe -S $ver --show-depends failed"
	# Rebuild when this script, the initramfs /init or the module files change.
	# shellcheck disable=SC2086 # $mods is a newline-separated path list
	stamp=$( { sha256sum "$0" "$TOP/tools/vm/initramfs-init.sh" /usr/bin/busybox
		   [ -z "$mods" ] || stat -c '%n %s %Y' $mods; } | sha256sum | cut -c1-16)
	if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
		echo "$out"; return
	fi
	say "building initramfs for $ver"
	stage=$(mktemp -d "$vmdir/initramfs.XXXXXX")
	mkdir -p "$stage/bin" "$stage/dev" "$stage/lib/modules"
	cp /usr/bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"	# the interpreter of /init
	install -m 0755 "$TOP/tools/vm/initramfs-init.sh" "$stage/init"
	# Without root the node is missing; /init copes by mounting devtmpfs.
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
	: > "$stage/lib/modules/modules.list"
	for ko in $mods; do
		base=$(basename "$ko")
		case "$ko" in
		# busybox insmod cannot decompress; 6.12 ships .ko.xz
		*.ko.xz) base=${base%.xz}; xz -dc "$ko" > "$stage/lib/modules/$base" ;;
		*.ko)    cp "$ko" "$stage/lib/modules/$base" ;;
		*)       die "unexpected module file $ko" ;;
		esac
		echo "$base" >> "$stage/lib/modules/modules.list"
	done
	# Uncompressed: the kernel unpacks it faster than it would gunzip it.
	(cd "$stage" && find . -print | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out.tmp"
	rm -rf "$stage"
	mv "$out.tmp" "$out"
	echo "$stamp" > "$out.stamp"
	echo "$out"
}

# Under TCG, the bzImage stub decompressing itself costs seconds (6.1 is
# xz).  The kernels have CONFIG_PVH, so qemu can boot the ELF vmlinux
# directly: unpack it once per kernel.  Any trouble: use vmlinuz as is.
kernel_image() {
	local z="$kroot/boot/vmlinuz-$ver" out="$vmdir/vmlinux" magic tool off stamp
	stamp=$(stat -c '%s %Y' "$z")
	if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
		echo "$out"; return
	fi
	grep -qx 'CONFIG_PVH=y' "$kroot/boot/config-$ver" 2>/dev/null || { echo "$z"; return; }
	for magic in $'\xfd7zXZ\x00':xz $'\x28\xb5\x2f\xfd':zstd $'\x1f\x8b\x08':gzip; do
		tool=${magic##*:}
		command -v "$tool" >/dev/null || continue
		# the first hit can be a false one inside the setup code
		for off in $(LC_ALL=C grep -abo "${magic%:*}" "$z" | cut -d: -f1 | head -3); do
			tail -c "+$((off + 1))" "$z" | "$tool" -dc 2>/dev/null > "$out.tmp" || true
			if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
				mv "$out.tmp" "$out"
				echo "$stamp" > "$out.stamp"
				echo "$out"; return
			fi
		done
	done
	rm -f "$out.tmp"
	echo "$z"
}

# Concurrent runs for the same kernel must not build into each other.
exec 9> "$vmdir/.lock"
flock 9
initrd=$(build_initramfs)
kimage=$(kernel_image)
flock -u 9

# ------------------------------------------------------------------ qemu
# q35 boots ~1 s faster than the default i440fx under TCG: its PCI
# interrupts need no ACPI link-device setup for the virtio devices.
# Under TCG the guest CPU has no CMPXCHG16B: QEMU 7.2 runs it in a helper
# that computes the flags from a stale lazy-flags state, which can leave
# impossible bits (VM, reserved) in EFLAGS; the kernel then falls back to
# its locked paths (slub, this_cpu_cmpxchg128).
qemu_base() {	# $1 = accel; the rest of the machine is the same for all runs
	local cpu=max
	[ "$1" = tcg ] && cpu=max,-cx16
	echo -machine q35 -accel "$1" -cpu "${VM_CPU:-$cpu}" -smp 2 -m "$mem" -nodefaults -nographic -no-reboot
}
# Host / read-only (multidevs=remap: host / spans several file systems, keep
# inode numbers unique) and the work tree read-write.  security_model=none:
# files are created as the user running qemu, which need not be root.
QEMU_SHARES=(
	-fsdev "local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap"
	-device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot"
	-fsdev "local,id=work,path=$TOP,security_model=none,multidevs=remap"
	-device "virtio-9p-pci,fsdev=work,mount_tag=work"
)

# KVM only where the CPU has VT-x/AMD-V and a probe boot really comes up:
# on some hosts /dev/kvm exists but guests hang in early boot.
choose_accel() {
	local cache="$TOP/build/vm/kvm-probe" key probe_log res=tcg
	case "${VM_ACCEL:-auto}" in tcg|kvm) echo "$VM_ACCEL"; return ;; esac
	if ! grep -qwE 'vmx|svm' /proc/cpuinfo || [ ! -w /dev/kvm ]; then
		echo tcg; return
	fi
	key="$(uname -r) $ver"
	if [ -f "$cache" ] && [ "$(sed -n 1p "$cache")" = "$key" ]; then
		sed -n 2p "$cache"; return
	fi
	say "probing KVM"
	probe_log="$vmdir/kvm-probe.log"
	# shellcheck disable=SC2046 # qemu_base prints separate words
	timeout -k 5 30 qemu-system-x86_64 $(qemu_base kvm) \
		-kernel "$kimage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet vm_probe=1" \
		-serial "file:$probe_log" -monitor none </dev/null >/dev/null 2>&1 || true
	grep -q VM_PROBE_OK "$probe_log" 2>/dev/null && res=kvm
	printf '%s\n%s\n' "$key" "$res" > "$cache"
	echo "$res"
}
accel=$(choose_accel)

run="$TOP/build/vm/run.$$"
rm -rf "$run"
mkdir -p "$run"
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() { [ -n "${VM_KEEP_RUN:-}" ] || rm -rf "$run"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Copy the module: the guest has its own /tmp, and a rebuild on the host
# during the run must not change what the guest loads.
guest_module=
if [ "$no_module" = 0 ]; then
	cp "$module" "$run/swroce.ko"
	guest_module="$run/swroce.ko"
fi
rows='' cols=''
if [ "$interactive" = 1 ] && [ -t 0 ]; then
	read -r rows cols < <(stty size 2>/dev/null) || true
fi
{
	printf 'vm_module=%q\n' "$guest_module"
	printf 'vm_interactive=%q\n' "$interactive"
	printf 'vm_kver=%q\n' "$ver"
	printf 'vm_term=%q\n' "${TERM:-}"
	printf 'vm_rows=%q\nvm_cols=%q\n' "$rows" "$cols"
} > "$run/conf"
: > "$run/args"
[ $# -eq 0 ] || printf '%s\0' "$@" > "$run/args"
: > "$run/env"
[ ${#envs[@]} -eq 0 ] || printf '%s\0' "${envs[@]}" > "$run/env"

# quiet: fewer console bytes under TCG; guest-init raises the console level
# for the command, and dumps the whole dmesg at the end anyway.
# tsc=reliable: on a busy host the clocksource watchdog sees the TCG TSC
# skew against the HPET, marks it unstable and flips the sched_clock static
# key.  That live-patches kernel text while the other vCPU runs it, and
# TCG (QEMU 7.2) then crashes the guest with an "Oops: int3" or a double
# fault at a patched site.  The TCG TSC follows the host clock and is the
# same on both vCPUs, so telling the kernel it is reliable is true here.
append="console=ttyS0 panic=-1 quiet loglevel=4 tsc=reliable"
append+=" vm_work=$TOP vm_run=$run ${VM_APPEND:-}"
# a kernel from outside /boot: the guest bind-mounts its modules from there
[ "$kroot" = / ] || append+=" vm_modroot=$kroot"
if [ "$interactive" = 1 ]; then
	# console (with monitor, Ctrl-A x / Ctrl-A c) on the terminal, logged
	io=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$console"
	    -serial chardev:con -mon chardev=con)
else
	# ttyS0 = kernel console -> log file; ttyS1 = command output -> stdout.
	# stdin is /dev/null, so qemu leaves the caller's terminal alone.
	io=(-serial "file:$console" -chardev "stdio,id=out,signal=off"
	    -serial chardev:out -monitor none)
fi
tmo=()
# --foreground keeps qemu in the terminal's process group (-i, ^C)
[ -z "$timeout_s" ] || tmo=(timeout --foreground -k 10 "$timeout_s")

[ "$accel" = tcg ] || say "accel $accel"
run_qemu() {
	local stdin=/dev/stdin
	[ "$interactive" = 1 ] || stdin=/dev/null
	# shellcheck disable=SC2046 # qemu_base prints separate words
	${tmo[@]+"${tmo[@]}"} qemu-system-x86_64 $(qemu_base "$accel") \
		-kernel "$kimage" -initrd "$initrd" -append "$append" \
		"${QEMU_SHARES[@]}" ${nic[@]+"${nic[@]}"} "${io[@]}" < "$stdin"
}

t0=$(date +%s.%N)
qrc=0
run_qemu || qrc=$?
# A crash before the guest reached insmod cannot be swroce's doing.  Seen
# here: a rare (~1 in 50 boots) "Oops: int3" when the kernel live-patches
# a static key while the other TCG vCPU runs that code.  Boot once more.
if [ "$interactive" = 0 ] && [ "$qrc" != 124 ] && [ "$qrc" != 137 ] &&
   [ ! -f "$run/modules" ] && [ ! -f "$run/rc" ]; then
	mv "$console" "$console.boot1"
	say "guest died before loading modules (qemu exit $qrc, see $console.boot1); booting again"
	rm -f "$run/dmesg"
	t0=$(date +%s.%N)
	qrc=0
	run_qemu || qrc=$?
fi
t1=$(date +%s.%N)

# ------------------------------------------------------------- verdict
# The guest creates "started" right before the command; its mtime is set by
# the host file system, so it is on the host clock like t0.
if [ -f "$run/started" ]; then
	say "$(awk -v a="$t0" -v b="$(stat -c %.3Y "$run/started")" -v c="$t1" \
		'BEGIN { printf "boot-to-command %.1f s, total %.1f s", b - a, c - a }')"
fi

# For printing: no CRs, no SeaBIOS terminal escapes.
clean_log() { tr -d '\r' | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g'; }

# Kernel reports that mean the run is broken even if CMD said it was fine.
# shellcheck source=tools/vm/splat.sh
. "$TOP/tools/vm/splat.sh"

status=0
logs=("$console")
[ ! -f "$run/dmesg" ] || logs+=("$run/dmesg")
if grep -qE "$SPLAT_RE" "${logs[@]}" 2>/dev/null; then
	say "kernel splat detected; offending lines (full log: $console):"
	# The dmesg dump repeats console lines; print each report line once.
	grep -hE "$SPLAT_RE" "${logs[@]}" | clean_log | awk '!seen[$0]++' | head -40 >&2
	# a few lines before the match carry the CPU/process header
	first=$(grep -nE "$SPLAT_RE" "$console" | head -1 | cut -d: -f1)
	if [ -n "$first" ]; then
		say "console from the first report:"
		tail -n "+$(( first > 5 ? first - 5 : 1 ))" "$console" | clean_log | head -45 >&2
	fi
	if grep -q 'Oops: int3' "${logs[@]}"; then
		say "hint: an 'Oops: int3' in core kernel code can be the TCG text-patching race"
		say "      (splat_tcg_int3 in tools/vm/splat.sh tells; make check boots again then)"
	fi
	status=125
fi

# Taint letters by bit number (Documentation/admin-guide/tainted-kernels.rst)
taint_letters() {
	local v=$1 i s='' L=PFSRMBUDAWCIOELKXTNJ
	for ((i = 0; i < ${#L}; i++)); do
		(( (v >> i) & 1 )) && s+=${L:i:1}
	done
	echo "$s"
}
if [ -f "$run/taint.base" ] && [ -f "$run/taint.after" ]; then
	base=$(cat "$run/taint.base") after=$(cat "$run/taint.after")
	new=$(( after & ~base ))
	if [ "$new" != 0 ]; then
		say "kernel taint grew: $base -> $after (new: $(taint_letters "$new"))"
		status=125
	fi
fi

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	say "timeout: killed qemu after $timeout_s s; last console lines ($console):"
	tail -n 15 "$console" | clean_log >&2
	exit 124
fi
if [ ! -f "$run/rc" ]; then
	say "guest ended without reporting a status (qemu exit $qrc)"
	if [ "$status" = 0 ]; then
		say "last console lines ($console):"
		tail -n 25 "$console" | clean_log >&2
	fi
	exit 125
fi
rc=$(cat "$run/rc")
[ "$status" = 0 ] || exit "$status"
[ "$own_console" = 0 ] || rm -f "$console"
exit "$rc"
