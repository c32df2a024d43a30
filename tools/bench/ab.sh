#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ab.sh NEW_KO [RE]: A/B of two swroce modules in one guest boot, for
# iterating on the data path. Run in the guest (tools/vm/vm.sh -m OLD_KO
# -- tools/bench/ab.sh NEW_KO): measures the loaded module (A), replaces
# it by NEW_KO (B) and measures again; tools/bench/guest.sh --only RE
# (default: the 2-byte latencies), results in build/ab/{a,b}/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
new=$1
only=${2:-'ib_(write|send|read)_lat 2 '}
mkdir -p build/ab
rm -rf build/ab/a build/ab/b
tools/bench/guest.sh --only "$only" -o build/ab/a >/dev/null 2>build/ab/a.err
rmmod swroce || exit 1
insmod "$new" || exit 1
tools/bench/guest.sh --only "$only" -o build/ab/b >/dev/null 2>build/ab/b.err
echo "== A (loaded at boot)"
cat build/ab/a/results.md
echo "== B ($new)"
cat build/ab/b/results.md
