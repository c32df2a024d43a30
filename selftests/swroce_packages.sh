#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Install from the Debian packages (issue 15), as a user of a test machine
# would: `apt-get install ./*.deb` of build/deb (make deb, run on the host
# by make check) onto the guest's root (the host's, read-only, under a
# tmpfs overlay), DKMS builds swroce.ko (four minutes and more per kernel
# under TCG), `rdma link add` loads it by its alias, libibverbs finds the
# provider without RDMAV_DRIVERS, ib_write_bw runs between two
# namespaces; then `apt-get remove` and `purge` leave nothing of swroce
# behind.
#
# SWROCE_PKG_KERNELS=running (the default, make check): DKMS sees only
# the running kernel, so it builds once. =all (make check-packages): it
# sees every kernel with headers, as on a real machine; the postinst
# builds for the running and the newest kernel, the kernel hook for the
# rest, and the step checks each got its module.
#
# Topology, built here and removed at the end:
#
#   netns swp-a: pk0 10.93.1.1/24, device swpk0 | veth |
#   netns swp-b: pk1 10.93.1.2/24, device swpk1
#
# Runs as root inside the test guest (selftests/run-guest.sh) with no
# swroce device and no provider installed; unloads the build's swroce.ko
# and loads it again at the end for the steps that follow. TAP on stdout.

set -u
# shellcheck source=selftests/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=selftests/net.sh
. "$(dirname "$0")/net.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
debs=$top/build/deb
kver=$(uname -r)
libdir=/usr/lib/$(gcc -print-multiarch)/libibverbs
T=300
log=/tmp/swr-pkg
mkdir -p $log
scope=${SWROCE_PKG_KERNELS:-running}
hidden=()

cleanup() {
	ip netns exec swp-a rdma link del swpk0 2>/dev/null
	ip netns exec swp-b rdma link del swpk1 2>/dev/null
	ip netns del swp-a 2>/dev/null
	ip netns del swp-b 2>/dev/null
}
# The steps after this one run on the build's module, as before it.
restore() {
	cleanup
	local c
	for c in ${hidden[@]+"${hidden[@]}"}; do
		umount "$c"
	done
	touch /var/lib/man-db/auto-update
	rmmod swroce 2>/dev/null
	insmod "${SWROCE_KO:-$top/build/kmod/$kver/swroce.ko}" ||
		echo "# could not load the build's swroce.ko again"
}
trap restore EXIT

# is_ours PATH: dpkg lists PATH as a file of one of our packages
is_ours() {
	dpkg -S "$1" 2>/dev/null |
		grep -Eq '^(swroce-dkms|ibverbs-providers-swroce)(:[a-z0-9]+)?: '
}
# leftovers: every file of swroce still on the system, one per line
leftovers() {
	find /lib/modules -name 'swroce.ko*' 2>/dev/null
	ls -d /usr/src/swroce-* /var/lib/dkms/swroce "$libdir"/libswroce* \
		2>/dev/null
}

dkms_deb=("$debs"/swroce-dkms_*_all.deb)
prov_deb=("$debs"/ibverbs-providers-swroce_*_"$(dpkg --print-architecture)".deb)
if [ ! -e "${dkms_deb[0]}" ] || [ ! -e "${prov_deb[0]}" ]; then
	tap_bail "no packages in $debs (make deb)"
fi

# A machine without swroce: nothing for modprobe to find, no provider.
cleanup
rmmod swroce 2>/dev/null
rm -f /etc/libibverbs.d/swroce.driver "$libdir"/libswroce-rdmav34.so
! modprobe -n -q swroce && ! lsmod | grep -q '^swroce '
tap_ok $? "before: no swroce module for modprobe to find, none loaded"

# apt_beside VERSION: simulate installing the provider package on this
# system as if every rdma-core package here were at VERSION (a copy of
# dpkg's status with the installed release's version replaced); apt's
# exit status. Nothing is installed.
apt_beside() {
	local st=$log/status-$1 ev
	ev=$(printf '%s' "$ibv_ver" | sed 's/[.[\*^$]/\\&/g')
	sed "s/$ev/$1/g" /var/lib/dpkg/status >"$st"
	apt-get -o Dir::State::status="$st" --simulate install \
		--no-install-recommends "${prov_deb[0]}" >"$log/apt-$1.log" 2>&1
}

# The provider is built for one libibverbs release (its private structs'
# layouts change between releases, even under one private ABI version):
# apt refuses it beside the next release and accepts it beside a later
# Debian revision of the same release. (An older release cannot be faked:
# other packages here depend on ibverbs-providers >= 43.)
ibv_ver=$(dpkg-query -W -f='${Version}' libibverbs1)
ibv_major=${ibv_ver%%.*}
dep=$(dpkg-deb -f "${prov_deb[0]}" Depends)
echo "# Depends: $dep"
[[ "$dep" == *"libibverbs1 (>= $ibv_major), libibverbs1 (<< $((ibv_major + 1))~)"* ]]
tap_ok $? "the provider package depends on libibverbs1 $ibv_major.x (>= $ibv_major, << $((ibv_major + 1))~)"
v=$((ibv_major + 1)).0-1
if ! apt_beside "$v" && grep -q "ibverbs-providers-swroce : Depends: libibverbs1 .* but $v" \
		"$log/apt-$v.log"; then
	tap_ok 0 "apt refuses the provider beside libibverbs1 $v"
else
	sed 's/^/# /' "$log/apt-$v.log" | tail -n 8
	tap_ok 1 "apt refuses the provider beside libibverbs1 $v"
fi
v=$ibv_ver+swroce1
apt_beside "$v"
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$log/apt-$v.log" | tail -n 8
tap_ok $rc "apt accepts it beside libibverbs1 $v (the same release)"

# Debian's dkms postinst builds for the running kernel and the newest one
# it finds by /boot/config-*: with the scope "running", the other kernels'
# config files read as absent (a bind mount of /dev/null, undone at the
# end), so it builds once. man-db's trigger (an index rebuild of every
# page, minutes under TCG) is switched off as its debconf question does;
# the page itself is checked below.
if [ "$scope" != all ]; then
	for c in /boot/config-*; do
		[ "$c" = "/boot/config-$kver" ] && continue
		mount --bind /dev/null "$c" && hidden+=("$c")
	done
fi
rm -f /var/lib/man-db/auto-update

# Install: DKMS builds inside this TCG guest, minutes, not seconds.
start=$(date +%s)
DEBIAN_FRONTEND=noninteractive timeout 5400 apt-get install -y -q \
	--no-install-recommends "${dkms_deb[0]}" "${prov_deb[0]}" >$log/install.log 2>&1
rc=$?
echo "# apt-get install took $(($(date +%s) - start)) s"
[ $rc -eq 0 ] || sed 's/^/# /' $log/install.log | tail -n 30
tap_ok $rc "apt-get install ./swroce-dkms ./ibverbs-providers-swroce"
dkms status swroce -k "$kver" 2>/dev/null | grep -q ': installed'
tap_ok $? "dkms built and installed swroce for the running kernel $kver"
mod=$(modinfo -F filename swroce 2>/dev/null)
[[ "$mod" == /lib/modules/$kver/updates/dkms/swroce.ko* ]] && is_ours "/usr/src/swroce-*"
tap_ok $? "modprobe finds the DKMS build ($mod)"

page=$(man -w swroce 2>/dev/null)
[ -n "$page" ] && is_ours "$page" && [ "$(man -w 7 swroce)" = "$page" ]
tap_ok $? "man 7 swroce is the page of swroce-dkms (${page:-none})"

# Every other kernel with headers gets the module when Debian installs or
# upgrades it: its kernel hook runs dkms autoinstall (run here by hand for
# the pinned kernels the postinst did not build for).
other_ok=0
[ "$scope" = all ] || tap_skip "every other kernel with headers gets swroce.ko" \
	"scope $scope (SWROCE_PKG_KERNELS=all: make check-packages)"
for d in /lib/modules/*/build; do
	[ "$scope" = all ] || break
	k=$(basename "$(dirname "$d")")
	[ "$k" = "$kver" ] && continue
	[ -e "$d/Makefile" ] || continue
	if ! dkms status swroce -k "$k" 2>/dev/null | grep -q ': installed'; then
		start=$(date +%s)
		timeout 3600 /etc/kernel/postinst.d/dkms "$k" >"$log/hook-$k.log" 2>&1
		echo "# kernel hook for $k took $(($(date +%s) - start)) s"
	fi
	if [ -e "/lib/modules/$k/updates/dkms/swroce.ko" ] ||
	   [ -e "/lib/modules/$k/updates/dkms/swroce.ko.xz" ]; then
		echo "# $k: $(dkms status swroce -k "$k" 2>/dev/null)"
	else
		other_ok=1
		sed 's/^/# /' "$log/hook-$k.log" 2>/dev/null | tail -n 20
	fi
done
[ "$scope" != all ] ||
	tap_ok $other_ok "every other installed kernel with headers has swroce.ko (kernel hook)"

# The module loads by its rdma-link alias on the first device.
ns_pair swp-a swp-b pk0 pk1 93.1 93 swpk0 swpk1
tap_ok $? "rdma link add ... type swroce loads the module (alias rdma-link-swroce)"
lsmod | grep -q '^swroce '
tap_ok $? "swroce is loaded"

# The provider, found through /etc/libibverbs.d without RDMAV_DRIVERS.
is_ours "$libdir/libswroce-rdmav34.so" && is_ours /etc/libibverbs.d/swroce.driver
tap_ok $? "the provider and its driver file belong to ibverbs-providers-swroce"
ip netns exec swp-a env -u RDMAV_DRIVERS ibv_devinfo -d swpk0 >$log/devinfo.log 2>&1 &&
	grep -q PORT_ACTIVE $log/devinfo.log
tap_ok $? "ibv_devinfo -d swpk0 without RDMAV_DRIVERS"

# Traffic between the two namespaces.
ga=$(gid_index swpk0 "$(v4gid 10.93.1.1)")
gb=$(gid_index swpk1 "$(v4gid 10.93.1.2)")
ip netns exec swp-b env -u RDMAV_DRIVERS timeout $T ib_write_bw -d swpk1 \
	-x "$gb" -s 65536 -n 200 -F >$log/bw-srv.log 2>&1 &
spid=$!
wait_for 60 listening swp-b 18515
ip netns exec swp-a env -u RDMAV_DRIVERS timeout $T ib_write_bw -d swpk0 \
	-x "$ga" -s 65536 -n 200 -F 10.93.1.2 >$log/bw-cli.log 2>&1
rc=$?
wait $spid || rc=1
grep -E '^ *65536 +200 ' $log/bw-cli.log | sed 's/^/# /'
grep -Eq '^ *65536 +200 ' $log/bw-cli.log || rc=1
[ $rc -eq 0 ] || sed 's/^/# /' $log/bw-srv.log $log/bw-cli.log
tap_ok $rc "ib_write_bw 64 KiB x 200 between two namespaces"

# Remove: no module, no source, no provider left. The driver file is a
# conffile: dpkg keeps it on remove, purge deletes it; libibverbs must not
# complain about it meanwhile.
cleanup
rmmod swroce
tap_ok $? "rmmod swroce after its devices are gone"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q swroce-dkms \
	ibverbs-providers-swroce >$log/remove.log 2>&1
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' $log/remove.log | tail -n 20
tap_ok $rc "apt-get remove swroce-dkms ibverbs-providers-swroce"
left=$(leftovers)
[ -z "$left" ] && ! modprobe -n -q swroce
tap_ok $? "nothing of swroce left after remove${left:+: ${left//$'\n'/ }}"
ibv_devices >$log/devices.log 2>&1
! grep -qi swroce $log/devices.log
tap_ok $? "libibverbs says nothing about swroce after remove"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q swroce-dkms \
	ibverbs-providers-swroce >$log/purge.log 2>&1 &&
	[ ! -e /etc/libibverbs.d/swroce.driver ] &&
	! dpkg -l swroce-dkms ibverbs-providers-swroce 2>/dev/null | grep -q '^[ir]'
tap_ok $? "apt-get purge removes the driver file and the packages' records"
tap_done
