#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# two.sh: `make bench-two`. Two guests joined by a virtio-net link
# (tools/vm/two-guests.sh; both boot KERNEL, default the newest of
# tools/kernels.sh series) run tools/bench/two-guest.sh: iperf3 TCP,
# swroce with its loss window off and on, rdma_rxe, across the link.
# Writes build/bench/two-<kernel>-<time>/ (the guests' output, report.md)
# and prints report.md: medians [min-max] of BENCH_RUNS runs (default 3)
# and their ratios to TCP and to rxe, all from the same two boots.
#
# usage: tools/bench/two.sh [-k KERNEL]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
read -r -a series <<<"$(tools/kernels.sh series)"
k=${series[${#series[@]} - 1]}
while getopts "k:h" opt; do
	case $opt in
	k) k=$OPTARG ;;
	*) sed -n '3,12p' "$0" >&2; exit 2 ;;
	esac
done
out=$top/build/bench/two-$k-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out"
export BENCH_RUNS=${BENCH_RUNS:-3}
tools/vm/two-guests.sh -a "$k" -b "$k" -t 2400 -o "$out" -- tools/bench/two-guest.sh
rc=$?
python3 - "$out" "$k" <<'PY' >"$out/report.md"
import re, statistics, sys
out, k = sys.argv[1], sys.argv[2]
vals, pkts = {}, {}
for line in open(f"{out}/a.tap"):
    m = re.match(r"RESULT (\S+) (\S+) (\S+)(.*)", line)
    if not m or m.group(3) == "na":
        continue
    key = (m.group(1), m.group(2))
    vals.setdefault(key, []).append(float(m.group(3)))
    t = re.search(r"tx_pkts=(\d+)", m.group(4))
    if t:
        pkts.setdefault(key, []).append(int(t.group(1)))
med = {key: statistics.median(v) for key, v in vals.items()}
def fmt(key):
    v = vals.get(key)
    if not v:
        return "–"
    return f"{statistics.median(v):.3g} [{min(v):.3g}–{max(v):.3g}]"
# packets a run needs: 64 KiB x 1000 and 1 MiB x 100 at 4096-byte packets
need = {"ib_write_bw-65536": 16000, "ib_write_bw-1048576": 25600}
print(f"Two guests booting {k}, joined by a virtio-net link (QEMU dgram "
      f"netdev), MTU 9000, {len(vals.get(('tcp', 'iperf3'), []))} run(s) "
      "per figure; median [min–max]. Gb/s for _bw and TCP, us for _lat.\n")
print("| figure | swroce, loss window off | swroce, loss window on | rxe | on / TCP | on / rxe | packets sent per packet needed, off / on |")
print("|---|---|---|---|---|---|---|")
tcp = med.get(("tcp", "iperf3"))
for fig in ("ib_write_bw-65536", "ib_write_bw-1048576"):
    on, rxe = med.get(("swroce-lw1", fig)), med.get(("rxe", fig))
    r_tcp = f"{on / tcp:.2f}" if on and tcp else "–"
    r_rxe = f"{on / rxe:.2f}" if on and rxe else "–"
    amp = " / ".join(f"{statistics.median(pkts[(w, fig)]) / need[fig]:.2f}"
                     if (w, fig) in pkts else "–"
                     for w in ("swroce-lw0", "swroce-lw1"))
    print(f"| {fig.replace('-', ' ')} | {fmt(('swroce-lw0', fig))} | "
          f"{fmt(('swroce-lw1', fig))} | {fmt(('rxe', fig))} | {r_tcp} | "
          f"{r_rxe} | {amp} |")
lat = "ib_write_lat-2"
s, r = med.get(("swroce", lat)), med.get(("rxe", lat))
ratio = f"{s / r:.2f}" if s and r else "–"
print(f"| ib_write_lat 2 B | – | {fmt(('swroce', lat))} | "
      f"{fmt(('rxe', lat))} | – | {ratio} | – |")
print(f"| iperf3 TCP | {fmt(('tcp', 'iperf3'))} | | | | | |")
PY
cat "$out/report.md"
echo "two.sh: results in $out"
exit $rc
