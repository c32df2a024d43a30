#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Minimal TAP producer for the shell selftests (kselftest's format:
# "ok N - name", "not ok N - name", a plan at the end).
#
#   tap_ok STATUS NAME                pass when STATUS is 0
#   tap_ok GOT = WANT NAME            pass when GOT equals WANT
#   tap_skip NAME REASON
#   tap_bail REASON                   abort the whole script
#   tap_done                          print the plan; exit 1 on any failure
#   tap_c_test WHERE BIN [VAR=VALUE...] run a TAP program (a kselftest) in
#                                     that environment: each of its results
#                                     one of ours, "WHERE: " before the
#                                     name, its output shown on failure

tap_n=0
tap_failed=0
# Where the time goes: a result that took TAP_SLOW_S seconds or more since
# the previous one is followed by a "# N s" line.
tap_last=$SECONDS
TAP_SLOW_S=${TAP_SLOW_S:-10}

tap_time() {
	local took=$((SECONDS - tap_last))
	tap_last=$SECONDS
	[ "$took" -lt "$TAP_SLOW_S" ] || echo "# $took s"
}

tap_ok() {
	local ok name
	if [ $# -ge 4 ] && [ "$2" = "=" ]; then
		name=$4
		if [ "$1" = "$3" ]; then ok=1; else ok=0; fi
		[ $ok -eq 1 ] || echo "# got '$1', want '$3'"
	else
		name=$2
		if [ "$1" -eq 0 ] 2>/dev/null; then ok=1; else ok=0; fi
	fi
	tap_n=$((tap_n + 1))
	if [ $ok -eq 1 ]; then
		echo "ok $tap_n - $name"
	else
		echo "not ok $tap_n - $name"
		tap_failed=$((tap_failed + 1))
	fi
	tap_time
}

tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
	tap_time
}

tap_bail() {
	echo "Bail out! $1"
	exit 1
}

# tap_c_test WHERE BIN [VAR=VALUE...]: run the kselftest program BIN with
# the given environment; each of its results becomes one of ours, prefixed
# with WHERE, then its exit status (its output as comments on failure).
tap_c_test() {
	local where=$1 bin=$2 log rc line
	shift 2
	log=$(mktemp)
	env "$@" timeout 600 "$bin" >"$log" 2>&1
	rc=$?
	while read -r line; do
		case $line in
		"ok "*) tap_ok 0 "$where: ${line#ok * }" ;;
		"not ok "*) tap_ok 1 "$where: ${line#not ok * }" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$log")
	[ $rc -eq 0 ] || sed 's/^/# /' "$log"
	rm -f "$log"
	tap_ok $rc "$where: $(basename "$bin") exit status"
}

tap_done() {
	echo "1..$tap_n"
	[ $tap_failed -eq 0 ]
}
