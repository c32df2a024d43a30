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
#   tracefs_no_cmdline T
#                      stop event tracing in tracefs T from hooking the
#                      scheduler to record task names; prints the old
#                      setting for tracefs_cmdline_restore
#   tracefs_cmdline_restore T OLD
#                      put it back (after the events are off)

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

# With the "record-cmd" option on (the default), enabling any trace event
# also attaches the task-name recorder to the sched_switch and
# sched_wakeup tracepoints, and disabling the last one detaches it. Each
# is a live patch of __schedule() and try_to_wake_up(), code the other
# vCPU is running; under QEMU's TCG such a patch can crash the guest with
# an "Oops: int3" in __schedule() (seen in CI; Documentation/testing.rst).
# The swroce events' own switches patch only the module's text.
tracefs_no_cmdline() {
	local o=$1/options/record-cmd
	[ -e "$o" ] || return 0
	cat "$o"
	echo 0 >"$o"
}

tracefs_cmdline_restore() {
	[ -n "$2" ] && [ -e "$1/options/record-cmd" ] || return 0
	echo "$2" >"$1/options/record-cmd"
}
