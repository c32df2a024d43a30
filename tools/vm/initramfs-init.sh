#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# /init of the tiny busybox initramfs built by tools/vm/vm.sh.
#
# Its only job is to assemble the guest root and hand over to
# tools/vm/guest-init.sh:
#   host /         9p tag "hostroot", read-only  -> overlay lower
#   tmpfs          (writable /etc, /var, ...)    -> overlay upper
#   host work tree 9p tag "work", read-write     -> same path in the guest
# The kernel passes unknown "name=value" boot parameters to us as
# environment variables: vm_work (work tree path), vm_run (per-run
# directory inside the work tree), vm_probe (KVM probe boot: stop at once),
# vm_modroot (a kernel not installed on the host, such as the debug kernel:
# the directory whose lib/modules/<release> to show at /lib/modules).

/bin/busybox --install -s /bin
export PATH=/bin

# The cpio may lack /dev/console (built without root), so mount devtmpfs
# first and (re)attach our stdio to the console ourselves.
mkdir -p /dev /proc /sys
mount -t devtmpfs devtmpfs /dev
exec 0<>/dev/console 1>&0 2>&0
mount -t proc proc /proc

fail() {
	echo "vm-initramfs: $*"
	# panic=-1 is on the command line; a power-off ends qemu with
	# -no-reboot either way, and the host notices the missing status.
	poweroff -f
	sleep 5
}

if [ -n "${vm_probe:-}" ]; then
	echo "VM_PROBE_OK"
	poweroff -f
fi

# modules.list is in dependency order (modprobe --show-depends)
while read -r ko; do
	insmod "/lib/modules/$ko" || fail "insmod $ko failed"
done < /lib/modules/modules.list

# 9p over virtio: a large msize makes file reads much faster than the
# 8 KiB default of 6.1; the read-only root can use the page cache freely.
p9="trans=virtio,version=9p2000.L,msize=262144"
mkdir -p /lower /rw /newroot
mount -t 9p -o "$p9,cache=loose,ro" hostroot /lower || fail "mount hostroot"
mount -t tmpfs -o mode=0755 rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot || fail "mount overlay"

[ -n "${vm_work:-}" ] || fail "no vm_work= on the kernel command line"
mount -t 9p -o "$p9" work "/newroot$vm_work" || fail "mount work tree"

if [ -n "${vm_modroot:-}" ]; then
	m=/lib/modules/$(uname -r)
	mkdir -p "/newroot$m"
	mount --bind "/newroot$vm_modroot$m" "/newroot$m" ||
		fail "bind-mount $vm_modroot$m"
fi

# Set up the API file systems and the rest of the basic environment here,
# with busybox from RAM: under TCG every exec of a host binary over 9p
# costs 0.1-0.2 s, and guest-init.sh would need a dozen of them.
n=/newroot
mount --move /dev $n/dev
mount --move /proc $n/proc
mount -t sysfs sysfs $n/sys
mkdir -p $n/dev/pts $n/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=0666 devpts $n/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $n/dev/shm
ln -sfn /proc/self/fd $n/dev/fd
ln -sfn /proc/self/fd/0 $n/dev/stdin
ln -sfn /proc/self/fd/1 $n/dev/stdout
ln -sfn /proc/self/fd/2 $n/dev/stderr
mount -t tmpfs -o mode=0755 tmpfs $n/run
# a work tree under /tmp is mounted there already: keep it visible
case "$vm_work" in /tmp/*) ;; *) mount -t tmpfs -o mode=1777 tmpfs $n/tmp ;; esac
hostname swroce-vm
ip link set lo up
# ttyS1 carries the command's output to the host: raw, so "\n" stays "\n"
stty -F $n/dev/ttyS1 raw -echo 2>/dev/null

exec switch_root /newroot /bin/bash "$vm_work/tools/vm/guest-init.sh"
