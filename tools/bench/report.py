#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""report.py OUTDIR [--tap]: turn OUTDIR/raw.tsv (tools/bench/guest.sh)
into results.csv, results.md and PNG plots (gnuplot, when installed).

Each figure is the median of its runs with min and max. A figure with an
n/a run is reported n/a with the reason: a partial set of runs is not
passed off as a measurement. --tap also prints one TAP line per figure and
device, for make check's bench-smoke step: a swroce n/a is a skip (the
device may not have the verb yet); an n/a on rxe or plain TCP means the
harness itself broke, which is a failure.
"""
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys

DEVICES = [("swroce0", "swroce"), ("rxe0", "rxe")]
# every device column of raw.tsv: the same-device pair, swroce across the
# veth between two namespaces, rxe across a veth of its own, plain TCP
ALL_DEVS = [d for d, _ in DEVICES] + ["swroce-veth", "rxe-veth", "tcp"]
CTR_UNIT = "/1k WQEs"
# (figure, device) -> runs left out because perftest printed 0
ZEROS = {}
# one colour per device in every bar chart, whichever devices have data
COLOUR = {"swroce": "#9400d3", "rxe": "#009e73"}


def load(path):
    figures = []            # in order of first appearance
    units = {}
    vals = {}               # (figure, dev) -> [values]
    na = {}                 # (figure, dev) -> reason
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            fig, dev, _run, value, extra = parts
            if fig not in units:
                figures.append(fig)
                units[fig] = ""
            if value == "NA":
                na.setdefault((fig, dev), extra)
                continue
            units[fig] = extra
            try:
                v = float(value)
            except ValueError:
                na.setdefault((fig, dev), "unparsable value %r" % value)
                continue
            # perftest now and then prints 0 for every rate of a run
            # (either device): that run measured nothing; leave it out
            # and say so (guest.sh runs such a run once more)
            if v == 0 and extra in ("Gb/s", "Mpps"):
                ZEROS[(fig, dev)] = ZEROS.get((fig, dev), 0) + 1
                continue
            vals.setdefault((fig, dev), []).append(v)
    return figures, units, vals, na


def summary(vals, na, key):
    """(median, min, max, runs) or None, reason"""
    if key in na:
        return None, na[key]
    v = vals.get(key)
    if not v and key in ZEROS:
        return None, "perftest printed 0 in every run"
    if not v:
        return None, "not measured"
    return (statistics.median(v), min(v), max(v), len(v)), None


def fmt(x):
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.3g" % x


def cell(s, reason, key=None):
    if s is None:
        return "n/a (%s)" % reason.replace("|", "/")
    med, lo, hi, _ = s
    note = ""
    if key in ZEROS:
        note = " (%d run(s) printed 0, left out)" % ZEROS[key]
    return "%s [%s–%s]%s" % (fmt(med), fmt(lo), fmt(hi), note)


def main():
    out = sys.argv[1]
    tap = "--tap" in sys.argv[2:]
    figures, units, vals, na = load(os.path.join(out, "raw.tsv"))
    env = {}
    try:
        with open(os.path.join(out, "env.txt")) as f:
            for line in f:
                k, _, v = line.strip().partition(" ")
                env[k] = v
    except OSError:
        pass

    ctr = [f for f in figures if units[f] == CTR_UNIT]
    rdma = [f for f in figures if f not in ctr and
            any((f, d) in vals or (f, d) in na for d, _ in DEVICES)]
    other = [f for f in figures if f not in rdma and f not in ctr]

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["figure", "device", "unit", "median", "min", "max",
                    "runs", "note"])
        for fig in figures:
            for dev in ALL_DEVS:
                key = (fig, dev)
                if key not in vals and key not in na:
                    continue
                s, reason = summary(vals, na, key)
                if s is None:
                    w.writerow([fig, dev, units[fig], "", "", "", 0,
                                "n/a: " + reason])
                else:
                    w.writerow([fig, dev, units[fig], s[0], s[1], s[2], s[3],
                                "%d run(s) printed 0, left out" % ZEROS[key]
                                if key in ZEROS else ""])

    md = []
    md.append("Kernel %s, %s run(s) per figure, one guest boot; "
              "median [min–max]. Gb/s: higher is better; us, KiB: lower "
              "is better. Ratio = swroce / rxe." %
              (env.get("kernel", "?"), env.get("runs", "?")))
    md.append("")
    md.append("| figure | unit | swroce | rxe | ratio swroce/rxe |")
    md.append("|---|---|---|---|---|")
    for fig in rdma:
        ss = [summary(vals, na, (fig, d)) for d, _ in DEVICES]
        ratio = "–"
        if ss[0][0] and ss[1][0] and ss[1][0][0]:
            ratio = "%.2f" % (ss[0][0][0] / ss[1][0][0])
        md.append("| %s | %s | %s | %s | %s |" % (
            fig, units[fig] or "–", cell(*ss[0], key=(fig, "swroce0")),
            cell(*ss[1], key=(fig, "rxe0")), ratio))
    if ctr:
        md.append("")
        md.append("swroce's data path in each run: port counters "
                  "doorbells and poller_wakeups per 1,000 WQEs consumed "
                  "(both ends; a doorbell is a post_send system call).")
        md.append("")
        md.append("| run | doorbells /1k WQEs | poller wake-ups /1k WQEs |")
        md.append("|---|---|---|")
        runs = []
        for fig in ctr:
            base = fig.rsplit(": ", 1)[0]
            if base not in runs:
                runs.append(base)
        for base in runs:
            cells = []
            for what in ("doorbells", "poller wakeups"):
                key = ("%s: %s per 1,000 WQEs" % (base, what), None)
                devs = [d for (f, d) in list(vals) + list(na)
                        if f == key[0]]
                cells.append(cell(*summary(vals, na, (key[0], devs[0])))
                             if devs else "–")
            md.append("| %s | %s | %s |" % (base, cells[0], cells[1]))
    if other:
        md.append("")
        md.append("Across a veth: swroce with a device at each end of a "
                  "veth between two network namespaces, rxe with a device "
                  "at each end of a veth of its own, its traffic forced "
                  "across (tools/bench/guest.sh, rxe_veth_setup), and plain "
                  "TCP over swroce's veth:")
        md.append("")
        md.append("| figure | unit | swroce / TCP | rxe | ratio swroce/rxe |")
        md.append("|---|---|---|---|---|")
        for fig in other:
            devs = [d for (f, d) in list(vals) + list(na) if f == fig]
            first = "swroce-veth" if "swroce-veth" in devs else devs[0]
            s = summary(vals, na, (fig, first))
            r, ratio = "–", "–"
            if "rxe-veth" in devs:
                sr = summary(vals, na, (fig, "rxe-veth"))
                r = cell(*sr)
                if s[0] and sr[0] and sr[0][0]:
                    ratio = "%.2f" % (s[0][0] / sr[0][0])
            md.append("| %s | %s | %s | %s | %s |" % (
                fig, units[fig] or "–", cell(*s), r, ratio))
    md += targets(vals, na, figures, units)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    plots(out, figures, units, vals, na)

    if tap:
        n = 0
        bad = 0
        for fig in figures:
            for dev in ALL_DEVS:
                key = (fig, dev)
                if key not in vals and key not in na:
                    continue
                n += 1
                s, reason = summary(vals, na, key)
                name = "bench smoke: %s on %s" % (fig, dev)
                if s is not None:
                    print("ok %d - %s measured (%s %s)" %
                          (n, name, fmt(s[0]), units[fig]))
                elif dev in ("swroce0", "swroce-veth"):
                    print("ok %d - %s # SKIP n/a: %s" % (n, name, reason))
                else:
                    bad += 1
                    print("not ok %d - %s: n/a: %s" % (n, name, reason))
        print("1..%d" % n)
        return 1 if bad or not n else 0
    return 0


def targets(vals, na, figures, units):
    """The project's performance targets, each met or not, from this run's
    medians (Documentation/performance.rst)."""
    def med(fig, dev):
        s, _ = summary(vals, na, (fig, dev))
        return s[0] if s else None

    def ratio(fig):
        a, b = med(fig, "swroce0"), med(fig, "rxe0")
        return a / b if a is not None and b else None

    rows = []

    def row(what, value, goal, ok):
        rows.append("| %s | %s | %s | %s |" % (
            what, "n/a" if value is None else value, goal,
            "–" if ok is None else ("met" if ok else "**not met**")))

    def rtarget(fig, goal, higher):
        r = ratio(fig)
        row("%s, swroce/rxe" % fig, None if r is None else "%.2f" % r,
            ("≥ %g" if higher else "≤ %g") % goal,
            None if r is None else (r >= goal if higher else r <= goal))

    rtarget("ib_write_bw 64 KiB", 10, True)
    rtarget("ib_read_bw 64 KiB", 10, True)
    rtarget("ib_send_bw 64 B", 10, True)
    rtarget("ib_write_lat 2 B", 0.5, False)
    veth = med("ib_write_bw 64 KiB, veth between two netns", "swroce-veth")
    rxe = med("ib_write_bw 64 KiB", "rxe0")
    tcp = med("iperf3 TCP, veth between two netns", "tcp")
    r = veth / rxe if veth is not None and rxe else None
    row("ib_write_bw 64 KiB over the veth / rxe same device",
        None if r is None else "%.2f" % r, "≥ 3",
        None if r is None else r >= 3)
    r = veth / tcp if veth is not None and tcp else None
    row("ib_write_bw 64 KiB over the veth / iperf3 TCP, same veth",
        None if r is None else "%.2f" % r, "≥ 1",
        None if r is None else r >= 1)
    big = med("ib_write_bw 1 MiB, veth between two netns", "swroce-veth")
    r = big / tcp if big is not None and tcp else None
    row("ib_write_bw 1 MiB over the veth / iperf3 TCP, same veth",
        None if r is None else "%.2f" % r, "≥ 1.5",
        None if r is None else r >= 1.5)
    wfig = "ib_write_bw 64 KiB, veth between two netns"
    rv = med(wfig, "rxe-veth")
    r = veth / rv if veth is not None and rv else None
    row("ib_write_bw 64 KiB across the veth / rxe across a veth",
        None if r is None else "%.2f" % r, "≥ 5",
        None if r is None else r >= 5)
    lfig = "ib_write_lat 2 B, veth between two netns"
    a, b = med(lfig, "swroce-veth"), med(lfig, "rxe-veth")
    r = a / b if a is not None and b else None
    row("ib_write_lat 2 B across the veth / rxe across a veth",
        None if r is None else "%.2f" % r, "≤ 0.3",
        None if r is None else r <= 0.3)
    q4, q1 = (med("ib_write_bw 64 KiB -q 4", "swroce0"),
              med("ib_write_bw 64 KiB", "swroce0"))
    r = q4 / q1 if q4 is not None and q1 else None
    row("swroce ib_write_bw 64 KiB -q 4 / -q 1", None if r is None
        else "%.2f" % r, "≥ 1.5", None if r is None else r >= 1.5)
    dbs = [(f, med(f, "swroce0")) for f in figures
           if "_bw " in f and f.endswith(": doorbells per 1,000 WQEs")]
    dbs = [(f, v) for f, v in dbs if v is not None]
    if dbs:
        worst = max(dbs, key=lambda x: x[1])
        row("doorbells per 1,000 WQEs, streaming (_bw) runs, worst",
            "%s (%s)" % (fmt(worst[1]), worst[0].split(":")[0]), "0",
            worst[1] == 0)
    for fig in figures:
        if fig.startswith("ibv_"):
            rtarget(fig, 1, False)
    mem = {}
    for dev in ("swroce0", "rxe0"):
        parts = [med(f, dev) for f in figures
                 if f.startswith("kernel slab per RC QP") or
                 f.startswith("kernel vmalloc per RC QP")]
        mem[dev] = sum(parts) if parts and None not in parts else None
    if mem["swroce0"] is not None and mem["rxe0"]:
        r = mem["swroce0"] / mem["rxe0"]
        row("kernel memory per RC QP (slab + vmalloc), swroce/rxe",
            "%.2f (%s / %s KiB)" % (r, fmt(mem["swroce0"]),
                                    fmt(mem["rxe0"])), "≤ 1", r <= 1)
    if not rows:
        return []
    return ["", "Targets (medians of this run):", "",
            "| target | value | goal | |", "|---|---|---|---|"] + rows


def plots(out, figures, units, vals, na):
    """bw.png: bandwidth against message size; lat.png and reg_mr.png:
    median bars per device. Series without data are left out (gnuplot
    fails on an empty data file)."""
    if not shutil.which("gnuplot"):
        return
    d = os.path.join(out, "plot")
    os.makedirs(d, exist_ok=True)
    script = ['set terminal pngcairo size 900,540 noenhanced',
              'set grid', 'set key outside right']

    def med(fig, dev):
        v = vals.get((fig, dev))
        return statistics.median(v) if v and (fig, dev) not in na else None

    size_re = re.compile(r"^(ib_\w+_bw) (\d+) (B|KiB|MiB)$")
    mult = {"B": 1, "KiB": 1024, "MiB": 1048576}
    series = []
    # atomics are in Mpps and at one size: not on this plot
    tests = sorted({m.group(1) for m in map(size_re.match, figures)
                    if m and units[m.group(0)] == "Gb/s"})
    for t in tests:
        for dev, label in DEVICES:
            pts = []
            for fig in figures:
                m = size_re.match(fig)
                if m and m.group(1) == t and med(fig, dev) is not None:
                    pts.append((int(m.group(2)) * mult[m.group(3)],
                                med(fig, dev)))
            if pts:
                fn = os.path.join(d, "bw-%s-%s.dat" % (t, dev))
                with open(fn, "w") as f:
                    for x, y in sorted(pts):
                        f.write("%d %g\n" % (x, y))
                # colour per test, solid swroce, dashed rxe
                series.append('"%s" using 1:2 with linespoints lc %d dt %d '
                              'title "%s %s"' % (fn, tests.index(t) + 1,
                                                 1 if label == "swroce"
                                                 else 2, t, label))
    if series:
        script += ['set output "%s"' % os.path.join(out, "bw.png"),
                   'set title "bandwidth against message size"',
                   'set logscale x 2', 'set xrange [32:2097152]',
                   'set xtics ("64 B" 64, "1 KiB" 1024, "4 KiB" 4096, '
                   '"64 KiB" 65536, "1 MiB" 1048576)',
                   'set xlabel "message size"',
                   'set ylabel "Gb/s"', 'plot ' + ", ".join(series),
                   'unset logscale x', 'set xrange [*:*]',
                   'set xtics autofreq']

    def bars(name, title, ylabel, figs, logy=False):
        rows = [(f, med(f, "swroce0"), med(f, "rxe0")) for f in figs]
        rows = [r for r in rows if r[1] is not None or r[2] is not None]
        if not rows:
            return []
        fn = os.path.join(d, name + ".dat")
        with open(fn, "w") as f:
            for fig, a, b in rows:
                f.write('"%s" %s %s\n' % (fig, "?" if a is None else a,
                                          "?" if b is None else b))
        # a column with no number at all would lose the x labels (and
        # gnuplot complains): plot only the devices that have data, the
        # labels on the first of them
        plot = []
        for col, (i, label) in enumerate([(1, "swroce"), (2, "rxe")], 2):
            if any(r[i] is not None for r in rows):
                plot.append('"%s" using %d%s title "%s" lc rgb "%s"' % (
                    fn, col, "" if plot else ":xtic(1)", label,
                    COLOUR[label]))
        return ['set output "%s"' % os.path.join(out, name + ".png"),
                'set title "%s"' % title, 'set ylabel "%s"' % ylabel,
                'set xlabel ""', 'set style data histograms',
                'set style histogram clustered gap 1',
                'set style fill solid 0.8 border -1', 'set boxwidth 0.9',
                'set xtics rotate by -30',
                ('set logscale y' if logy else 'unset logscale y'),
                ('set yrange [*:*]' if logy else 'set yrange [0:*]'),
                'plot ' + ", ".join(plot), 'unset logscale y',
                'set yrange [*:*]', 'set xtics norotate']

    script += bars("lat", "latency (perftest t_typical)", "us",
                   [f for f in figures if "_lat " in f])
    script += bars("reg_mr", "memory registration, per operation",
                   "us (log)", [f for f in figures if f.startswith("ibv_")],
                   logy=True)
    gp = os.path.join(d, "plots.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write("report: gnuplot failed:\n" + r.stderr)


if __name__ == "__main__":
    sys.exit(main())
