#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The kernel log and tracefs of one shell step (sourced; root in the test
# guest):
#   kmsg_mark NAME     write a marker into the kernel log
#   kmsg_splats NAME   print the splat lines (tools/vm/splat.sh) logged
#                      since the marker, or since boot if it was lost;
#                      status 0 when there are none
#   tracefs_find FILE  print the tracefs directory that has
#                      events/swroce/FILE (mounting tracefs where the
#                      kernel has none mounted); status 1 when none has

# shellcheck source=tools/vm/splat.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/vm/splat.sh"

kmsg_mark() {
	echo "swroce-selftest: begin $1" >/dev/kmsg
}

kmsg_splats() {
	local mark="swroce-selftest: begin $1" log
	log=$(dmesg)
	# the ring buffer may have dropped the marker: then check it all
	if grep -qF "$mark" <<<"$log"; then
		log=$(sed -n "/$mark\$/,\$p" <<<"$log")
	fi
	! grep -E "$SPLAT_RE" <<<"$log"
}

tracefs_find() {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$d/events" ] || mount -t tracefs nodev "$d" 2>/dev/null
		if [ -e "$d/events/swroce/$1" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}
