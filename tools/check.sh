#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# check.sh: everything `make check` promises, in order:
#   deps, build (provider, selftests, swroce.ko for every pinned kernel),
#   lint, then for every pinned kernel one guest boot that runs
#   selftests/run-guest.sh (selftests + rdma-core suite).
# Every step leaves TAP under build/results/; the closing line counts it:
#   "N passed, N failed" (skips and expected failures are listed, not
#   counted as passes). Exit status is non-zero on any failure, on a guest
#   that timed out, or on a kernel splat in a guest console log.
#
# CHECK_KERNELS="6.1" limits the kernels (CHECK_KERNELS=two, make
# check-two: two guests joined by a virtio-net link, two-guests.sh);
# CHECK_STEPS="device udata" the guest steps (see selftests/run-guest.sh). CHECK_KERNELS=debug (make
# check-debug) runs the same plan on the KASAN/lockdep/kmemleak kernel of
# tools/debug-kernel/build.sh, building it first if it is not cached, with
# a kmemleak scan after every step. CHECK_HOGS=N keeps N CPU hogs
# (stress-ng --cpu N) running on the host from the build to the last
# guest, to show that the tests hold on a loaded machine ("make
# check-loaded" is CHECK_HOGS=2). CHECK_FULL=1 (make check-full) runs the
# first-kernel-only steps on every kernel (once_steps, below).
# CHECK_TIMEOUT the seconds one guest may
# take (default 3600: a hang guard, a loaded host makes a run take a few
# times longer; 4x that on the debug kernel; plus SWROCE_FUZZ_SECONDS).
# SWROCE_FUZZ_*, SWR_FUZZ_SECS, SWROCE_LIFECYCLE_ITERS and
# SWROCE_PKG_KERNELS are passed on to the guest:
# e.g. a long run
#   CHECK_STEPS="uverbs-fuzz lifecycle" SWROCE_FUZZ_SECONDS=600 \
#   SWROCE_LIFECYCLE_ITERS=100 CHECK_TIMEOUT=14400 make check

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
results=$top/build/results
start=$(date +%s)

say() { echo "check: $*"; }
# shellcheck source=tools/vm/splat.sh
. tools/vm/splat.sh

tools/deps.sh || { say "make deps failed"; echo "0 passed, 1 failed"; exit 1; }

hogs=${CHECK_HOGS:-0}
case $hogs in
''|*[!0-9]*) say "CHECK_HOGS wants a number, got '$hogs'"; exit 2 ;;
esac
if [ "$hogs" -gt 0 ]; then
	# --timeout: gone by itself should this script be killed before
	# its trap runs.
	stress-ng --cpu "$hogs" --timeout 4h --quiet &
	hog_pid=$!
	trap 'kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null' EXIT
	say "$hogs CPU hogs on the host for the whole run (stress-ng, pid $hog_pid)"
fi

mkdir -p "$results"
rm -f "$results"/*.tap
kernels=${CHECK_KERNELS:-$(tools/kernels.sh series)}
# The guests of this run: only their results are counted, not those an
# earlier run left for other kernels.
ran=()
# The debug kernel is built (once per machine) before anything else.
debug_ver=
if [[ " $kernels " == *" debug "* ]]; then
	say "debug kernel"
	if tools/debug-kernel/build.sh >/dev/null; then
		debug_ver=$(tools/kernels.sh resolve debug)
	else
		echo "not ok 1 - debug kernel built (make debug-kernel)" >"$results/debug-kernel.tap"
	fi
fi
build() {
	local s
	make -s provider selftests || return 1
	# swroce.ko for each kernel, from scratch with W=1 and sparse (the
	# same module): lint reads these builds' findings (LINT_KBUILD_DIR)
	# instead of compiling twice
	for s in $(tools/kernels.sh series); do
		tools/lint-kbuild.sh build/kmod "$(tools/kernels.sh installed "$s")" ||
			return 1
	done
	# the packages step installs these in the guest
	tools/make-deb.sh >/dev/null || return 1
	[ -z "$debug_ver" ] || tools/build-kmod.sh build/kmod "$debug_ver"
}
if ! build >"$results/build.log" 2>&1; then
	cat "$results/build.log"
	echo "not ok 1 - build" >"$results/build.tap"
else
	echo "ok 1 - build (provider, selftests, swroce.ko for each kernel)" \
		>"$results/build.tap"
fi
cat "$results/build.tap"

say "lint"
LINT_KBUILD_DIR=build/kmod tools/lint.sh | tee "$results/lint.tap"
# what tells the emulator's crash from the code's (the retry in guest())
tools/vm/splat_test.sh | tee "$results/splat.tap"

# guest S KVER: one boot of kernel series S (version KVER) running the
# guest plan; its verdict goes to build/results/KVER/vm.tap.
guest() {
	local s=$1 kver=$2 tmo=3600 envs v rc
	[ "$s" != debug ] || tmo=14400
	envs=(-e "SWROCE_KO=$top/build/kmod/$kver/swroce.ko" "${@:3}")
	for v in SWROCE_FUZZ_SECONDS SWROCE_FUZZ_SEED SWROCE_FUZZ_ARGS \
		 SWR_FUZZ_SECS SWROCE_LIFECYCLE_ITERS SWROCE_PKG_KERNELS; do
		[ -z "${!v:-}" ] || envs+=(-e "$v=${!v}")
	done
	boot() {
		rm -f "$results/$kver"/*.tap "$results/$kver/timings.tsv"
		# -n hub: a NIC for the suite's rdmacm tests (run-guest.sh)
		# shellcheck disable=SC2086 # CHECK_STEPS is a list of words
		tools/vm/vm.sh -k "$kver" -n hub \
			-t $((${CHECK_TIMEOUT:-$tmo} + ${SWROCE_FUZZ_SECONDS:-0})) \
			-l "$results/$kver/console.log" "${envs[@]}" \
			-- selftests/run-guest.sh ${CHECK_STEPS:-}
	}
	rm -f "$results/$kver/console.log.int3"
	boot
	rc=$?
	# The one crash that is the emulator's and not the code's (an int3
	# trap whose int3 is no longer in memory, tools/vm/splat.sh): boot
	# again, once, and say so. The first console is kept.
	retried=
	if [ $rc = 125 ] &&
	   splat_tcg_int3 "$results/$kver/console.log"; then
		mv "$results/$kver/console.log" "$results/$kver/console.log.int3"
		say "guest $kver: the TCG text-patching race (an int3 trap with no int3 in memory, console.log.int3); booting again"
		retried=" (second boot: the first hit the TCG text-patching race, console.log.int3)"
		boot
		rc=$?
	fi
	# run-guest.sh exits 0 once it has run every step (the steps' TAP
	# counts their failures); anything else is the harness's verdict.
	case $rc in
	0)   echo "ok 1 - vm/$kver: guest ran to the end with a clean console$retried" ;;
	124) echo "not ok 1 - vm/$kver: guest timed out" ;;
	125) echo "not ok 1 - vm/$kver: kernel splat, taint or guest failure (see console.log)$retried" ;;
	*)   echo "not ok 1 - vm/$kver: guest run failed ($rc)" ;;
	esac >"$results/$kver/vm.tap"
	cat "$results/$kver/vm.tap"
}

# make check runs every guest step on every kernel but five. Two test
# what sits on top of the kernel's verbs rather than the driver: the
# packages step (Debian packages, DKMS, minutes of compiling in the guest)
# and the clients step (UCX, Open MPI, libfabric). Two depend on the
# driver's code, not on the kernel's: the packet fuzzer (fuzz: the
# driver's parser, fed through the same UDP socket on both kernels; the
# uverbs fuzzer, which goes through each kernel's uverbs, runs on both)
# and bench-smoke (make bench's plumbing). They run on the first kernel
# only, which keeps make check inside CI's time; CHECK_FULL=1 (make
# check-full) runs them on every kernel, as a resolving session does. The
# kernel-dependent part of a DKMS build, compiling swroce.ko against each
# kernel's headers, is the build step's. The cc step (flows through a
# marking bottleneck, about 130 s a kernel) runs on the first kernel
# only too: cc-basic tests the same mechanism piece by piece on both, and
# make check-cc, which names it, runs the flows on both.
once_steps="packages clients fuzz bench-smoke cc"
# The two fuzzers (packets: SWR_FUZZ_SECS, uverbs: SWROCE_FUZZ_SECONDS) run
# 30 s each in make check, their scripts' 60 s in make check-full and on
# the debug kernel; either variable set by hand wins.
if [ "${CHECK_FULL:-0}" != 1 ] && [[ " $kernels " != *" debug "* ]]; then
	: "${SWR_FUZZ_SECS:=30}" "${SWROCE_FUZZ_SECONDS:=30}"
fi
first=1
for s in $kernels; do
	# two: two guests, two kernels, one virtio-net link (make check-two)
	if [ "$s" = two ]; then
		say "two guests"
		ran+=(two)
		tools/vm/two-guests.sh -t "${CHECK_TIMEOUT:-3600}" -o "$results/two" \
			-- selftests/swroce_two_host.sh
		continue
	fi
	kver=$(tools/kernels.sh installed "$s") || {
		echo "not ok 1 - kernel $s installed" >"$results/kernel-$s.tap"; continue; }
	ran+=("$kver")
	mkdir -p "$results/$kver"
	extra=()
	if [ $first = 0 ] && [ "${CHECK_FULL:-0}" != 1 ] && [ "$s" != debug ]; then
		extra+=(-e "SWROCE_SKIP_STEPS=$once_steps")
	fi
	first=0
	say "guest $kver"
	guest "$s" "$kver" ${extra[@]+"${extra[@]}"}
done

# Count every TAP result line; keep the names of skips and failures.
pass=0 fail=0 skip=0 xfail=0
failures=() skips=()
while IFS= read -r -d '' f; do
	rel=${f#"$results"/}
	while IFS= read -r line; do
		case "$line" in
		"not ok "*"# TODO"*|"not ok "*"# xfail"*)
			xfail=$((xfail + 1)) ;;
		"not ok "*)
			fail=$((fail + 1)); failures+=("$rel: $line") ;;
		"ok "*"# SKIP"*|"ok "*"# skip"*)
			skip=$((skip + 1)); skips+=("$rel: $line") ;;
		"ok "*)
			pass=$((pass + 1)) ;;
		esac
	done <"$f"
done < <({ find "$results" -maxdepth 1 -name '*.tap' -print0
	     for d in "${ran[@]}"; do
		     find "$results/$d" -name '*.tap' -print0
	     done; } | sort -z)

echo
if [ ${#skips[@]} -gt 0 ]; then
	say "skipped (${#skips[@]}), not counted:"
	printf '  %s\n' "${skips[@]}" | head -n 400
fi
for s in $kernels; do
	kver=$(tools/kernels.sh installed "$s" 2>/dev/null) || continue
	[ -f "$results/$kver/suite/results.md" ] &&
		say "suite table: build/results/$kver/suite/results.md"
	# where the guest's time went, slowest steps first
	[ -f "$results/$kver/timings.tsv" ] &&
		say "$kver seconds per step: $(sort -t"$(printf '\t')" -k2,2nr \
			"$results/$kver/timings.tsv" | awk -F'\t' '{printf "%s %s, ", $1, $2}' |
			sed 's/, $//')"
done
if [ ${#failures[@]} -gt 0 ]; then
	say "FAILED:"
	printf '  %s\n' "${failures[@]}"
fi
say "kernels: $(for s in $kernels; do
	if [ "$s" = two ]; then echo "two guests"; else tools/kernels.sh installed "$s" 2>/dev/null; fi
done | tr '\n' ' ')"
[ "$hogs" -gt 0 ] && say "ran with $hogs CPU hogs on the host (CHECK_HOGS)"
say "$skip skipped, $xfail expected failures, $(($(date +%s) - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
