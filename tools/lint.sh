#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# lint.sh: every static check the project holds itself to. Prints TAP, one
# line per check, and exits non-zero when any check reports anything.
#
#   - checkpatch.pl --strict on the kernel sources and the uAPI header
#   - a W=1 build with sparse (C=2: every file) against every pinned kernel
#   - the uAPI header's layout, identical for 32- and 64-bit user space
#   - shellcheck on the shell scripts, when installed
#   - the man page renders without a warning (man --warnings)
#   - the reStructuredText documents parse without a warning (docutils)
# The provider and the selftests build with -Werror in any case.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
ksrc=$top/build/ksrc
[ -x "$ksrc/scripts/checkpatch.pl" ] || tools/extract-ksrc.sh "$ksrc" >/dev/null ||
	exit 1

n=0
failed=0
report() {	# report NAME OUTPUT-FILE: the check passed if the file is empty
	n=$((n + 1))
	if [ -s "$2" ]; then
		echo "not ok $n - lint/$1"
		sed 's/^/# /' "$2"
		failed=$((failed + 1))
	else
		echo "ok $n - lint/$1"
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# checkpatch: --no-tree because we are not inside a kernel tree; the uAPI
# header is checked as kernel code too.
# Tracked sources only: an in-place build leaves generated *.mod.c behind.
# LINT_KBUILD_DIR=DIR: the W=1 C=2 builds were made already, by
# tools/lint-kbuild.sh into DIR (make check builds the guests' swroce.ko
# so, tools/check.sh): lint reads their findings instead of compiling again.
mapfile -t ksources < <(git ls-files 'kernel/*.[ch]' 'include/uapi/rdma/*.h')
"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "${ksources[@]}" \
	>"$tmp/checkpatch" 2>&1
report checkpatch "$tmp/checkpatch"

for s in $(tools/kernels.sh series); do
	kver=$(tools/kernels.sh installed "$s") || { echo "not ok - lint/$s"; exit 1; }
	f=$tmp/findings.$kver
	if [ -n "${LINT_KBUILD_DIR:-}" ]; then
		cp "$LINT_KBUILD_DIR/$kver/lint-kbuild.out" "$f" 2>/dev/null ||
			echo "no W=1 C=2 build in $LINT_KBUILD_DIR/$kver" >"$f"
	else
		tools/lint-kbuild.sh build/lint "$kver"
		cp "build/lint/$kver/lint-kbuild.out" "$f"
	fi
	report "sparse-W1/$kver" "$f"
done

# The uAPI lays out the same for 32- and 64-bit user space.
tools/uapi-layout.sh >"$tmp/uapi" 2>&1
report uapi-32-64-layout "$tmp/uapi"

if command -v shellcheck >/dev/null; then
	mapfile -t scripts < <(git ls-files '*.sh')
	shellcheck -x -S warning "${scripts[@]}" >"$tmp/shellcheck" 2>&1
	report shellcheck "$tmp/shellcheck"
fi

# man prints groff's warnings on stderr; the rendered page goes nowhere
LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l Documentation/swroce.7 \
	2>"$tmp/man" >/dev/null || echo "man failed" >>"$tmp/man"
report man-swroce.7 "$tmp/man"

# Debian's docutils (python3-docutils), not another python3 on the PATH
: >"$tmp/rst"
for f in $(git ls-files '*.rst'); do
	/usr/bin/python3 -m docutils --halt=warning --report=warning "$f" \
		/dev/null >>"$tmp/rst" 2>&1
done
report rst "$tmp/rst"

echo "1..$n"
[ $failed -eq 0 ]
