#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check-rdma-core: the provider with each rdma-core release, not only
# Debian 12's. For each tag in RDMA_CORE_RELEASES (default below): build
# the release from source (tools/rdma-core/build.sh, cached in
# build/rdma-core/<tag>), build the provider against it (make provider
# RDMA_CORE=...) and put it in the tree's in-place lib/ and
# etc/libibverbs.d/, where that libibverbs looks for providers; then one
# guest (RDMA_CORE_KERNEL, default the first pinned series) runs
# tools/rdma-core/guest.sh on every release that built. The table goes to
# build/results/<kver>/rdma-core/results.md: a row for each release of this
# run, and for each other release of the default list the row of its last
# run (a run of a few releases leaves the others' results). Exit status 1
# when a release of this run failed a column. Not part of make check.
#
# RDMA_CORE_PROVIDER=debian: instead of a provider built against each
# release, the one `make provider` builds against Debian 12's libibverbs
# (what the ibverbs-providers-swroce package ships), put beside every
# release of the same private ABI (IBVERBS_PRIVATE_34: v39..v56); the
# others are skipped. It shows whether one build serves several releases
# (it does not: the package depends on the release it was built against,
# debian/rules says why). Its table goes to
# build/results/<kver>/rdma-core-debian/.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
cd "$top" || exit 1
all_releases="v39.0 v44.0 v50.0 v56.0 v57.0 v59.0 v64.0"
releases=${RDMA_CORE_RELEASES:-$all_releases}
kver=$(tools/kernels.sh resolve "${RDMA_CORE_KERNEL:-$(tools/kernels.sh series | awk '{print $1}')}") ||
	{ echo "check-rdma-core: no installed kernel" >&2; exit 1; }
mode=${RDMA_CORE_PROVIDER:-release}
case "$mode" in
release) out=$top/build/results/$kver/rdma-core ;;
debian) out=$top/build/results/$kver/rdma-core-debian
	nice -n 19 make -s provider >/dev/null ||
		{ echo "check-rdma-core: make provider failed" >&2; exit 1; } ;;
*) echo "check-rdma-core: RDMA_CORE_PROVIDER is release or debian" >&2; exit 1 ;;
esac
mkdir -p "$out"
start=$(date +%s)

# build_one TAG: the release and our provider in it; "PABI yes|no" to
# $out/TAG/build.tsv
build_one() {
	local tag=$1 tree=build/rdma-core/$1 log=$out/$1/build.log pabi='?' so src
	echo "? no" >"$out/$tag/build.tsv"
	if ! nice -n 19 tools/rdma-core/build.sh "$tag" >"$log" 2>&1; then
		echo "check-rdma-core: rdma-core $tag does not build ($log)"
		return 1
	fi
	pabi=$(sed -n 's/^#define IBVERBS_PABI_VERSION \([0-9]*\).*/\1/p' \
		"$tree/build/include/config.h")
	echo "$pabi no" >"$out/$tag/build.tsv"
	so=libswroce-rdmav$pabi.so
	if [ "$mode" = debian ]; then
		if [ "$pabi" != 34 ]; then
			echo "check-rdma-core: $tag has private ABI $pabi, not Debian 12's 34: skipped"
			rm -rf "${out:?}/$tag"
			return 1
		fi
		src=providers/swroce/$so
	elif nice -n 19 make -s provider RDMA_CORE="$tree" >>"$log" 2>&1; then
		src=build/provider/$tag/$so
	else
		echo "check-rdma-core: the provider does not build against $tag ($log)"
		return 1
	fi
	install -m 0644 "$src" "$tree/build/lib/$so" &&
		echo "driver swroce" >"$tree/build/etc/libibverbs.d/swroce.driver" ||
		return 1
	echo "$pabi yes" >"$out/$tag/build.tsv"
	echo "check-rdma-core: $tag (PABI $pabi): $(grep -m1 "^rdma-core $tag: built" "$log"), provider $src"
}

ok_tags=()
for tag in $releases; do
	rm -rf "${out:?}/$tag"
	mkdir -p "$out/$tag"
	build_one "$tag" && ok_tags+=("$tag")
done

if [ ${#ok_tags[@]} -gt 0 ]; then
	nice -n 19 tools/build-kmod.sh build/kmod "$kver" >"$out/kmod.log" 2>&1 ||
		{ echo "check-rdma-core: swroce.ko for $kver does not build" >&2; exit 1; }
	nice -n 19 tools/vm/vm.sh -k "$kver" -n hub \
		-t $((600 + 900 * ${#ok_tags[@]})) -l "$out/console.log" \
		-- tools/rdma-core/guest.sh -o "$out" "${ok_tags[@]}" |
		tee "$out/guest.log"
	guest_rc=${PIPESTATUS[0]}
	[ "$guest_rc" = 0 ] || echo "check-rdma-core: guest exit $guest_rc (console: $out/console.log)"
fi

# The table: a release passes when every column does and its suite has
# no failure.
rc=0
this_run=''
{
	if [ "$mode" = debian ]; then
		echo "# Debian 12's provider (built against libibverbs 44) with each rdma-core release of its private ABI ($kver)"
	else
		echo "# The provider with each rdma-core release ($kver)"
	fi
	echo
	echo "| release | PABI | builds | loads | pingpong | suite passed | failed | skipped |"
	echo "|---|---|---|---|---|---|---|---|"
	for tag in $all_releases $releases; do
		case " $this_run " in *" $tag "*) continue ;; esac
		this_run+=" $tag"
		[ -f "$out/$tag/build.tsv" ] || continue
		read -r pabi built <"$out/$tag/build.tsv"
		loads=- pp=- suite=''
		if [ -f "$out/$tag/result.tsv" ]; then
			IFS=$'\t' read -r loads pp suite <"$out/$tag/result.tsv"
		fi
		bad=0
		if [[ "$suite" =~ ^suite:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped(,\ ([0-9]+)\ xfail)? ]]; then
			cols="${BASH_REMATCH[1]} | ${BASH_REMATCH[2]} | ${BASH_REMATCH[3]}"
			# expected failures (xfail-TAG.txt), each with its reason
			[ "${BASH_REMATCH[5]:-0}" = 0 ] ||
				cols+=" (+${BASH_REMATCH[5]} expected failure)"
			[ "${BASH_REMATCH[2]}" = 0 ] || bad=1
		else
			cols="${suite:--} | - | -"
			bad=1
		fi
		[ "$built" = yes ] && [ "$loads" = yes ] && [ "$pp" = yes ] || bad=1
		case " $releases " in
		*" $tag "*) [ $bad = 0 ] || rc=1 ;;
		*) cols="$cols (earlier run)" ;;
		esac
		echo "| $tag | $pabi | $built | $loads | $pp | $cols |"
	done
	echo
	echo "$(($(date +%s) - start)) s in all; logs in $out"
} >"$out/results.md"
cat "$out/results.md"
exit $rc
