#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Grade rdma-core test-suite runs (unittest -v logs) of several RDMA devices.

usage: report.py [--dir DIR] [--kernel KVER] [--xfail FILE] DEV [DEV...]

Reads DIR/DEV.log for each DEV (written by run-in-guest.sh) and writes
DIR/results.tsv and DIR/results.md.  The first DEV is the device under test
(DUT); the others are only compared with it.  Prints TAP for the DUT and
exits 1 when it has failures:
  ok                               passed
  FAIL/ERROR, not listed in FILE   failed
  FAIL/ERROR, listed               xfail (TAP TODO; neither pass nor failure)
  ok, listed by exact id           failed: XPASS, the list must only shrink
  skipped                          TAP SKIP, not counted as pass or failure
  skipped, listed by exact id      failed: STALE, the entry hides nothing
FILE: one "test.id  reason" per line, '#' comments, fnmatch wildcards
(tests.test_qp.*).  A wildcard entry that matches no failing test is
reported as XPASS too.  Stdlib only; runs on the host or in the guest.
"""

import argparse
import fnmatch
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# "test_foo (tests.test_mr.MRTest.test_foo)" (3.11) or "(tests.test_mr.MRTest)"
START = re.compile(r'^(?P<name>test\w*|setUpClass|tearDownClass|setUpModule|'
                   r'tearDownModule) \((?P<where>[\w.]+\.[\w.]+)\)(?P<rest>.*)$')
RESULT = re.compile(r'(?:^|\s)(?P<res>ok|FAIL|ERROR|expected failure|'
                    r'unexpected success|skipped (?P<q>[\'"])(?P<why>.*)(?P=q))\s*$')
DETAIL = re.compile(r'^(?P<kind>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<name>\w+) '
                    r'\((?P<where>[\w.]+)\)')
SEP1 = '=' * 70
SEP2 = '-' * 70

# normalised result words
OK, FAIL, ERROR, SKIP = 'ok', 'FAIL', 'ERROR', 'skip'


def test_id(name, where):
    """Python 3.11 prints the full id in parentheses, older ones the class."""
    if where.endswith('.' + name):
        return where
    return where + '.' + name


def one_line(text, limit=160):
    text = ' '.join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + '...'


def parse_log(path):
    """Return (results, complete): results maps id -> (result, reason)."""
    results = {}
    if not os.path.exists(path):
        return results, False
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().splitlines()

    def settle(res, why=''):
        results[cur] = (res, why)

    cur, dots, i = None, False, 0
    complete = False
    # Verbose phase: one start line per test, the result after " ... ",
    # possibly on a later line when the test printed something or has a
    # docstring (printed on the line after the name).
    while i < len(lines):
        line = lines[i]
        if line == SEP1 or re.match(r'^Ran \d+ tests? in ', line):
            break
        m = START.match(line)
        if m:
            if cur is not None and cur not in results:
                settle(ERROR, 'no result printed')
            cur = test_id(m['name'], m['where'])
            rest = m['rest']
            dots = ' ... ' in rest or rest.endswith(' ...')
            line = rest.split(' ... ', 1)[1] if ' ... ' in rest else ''
        elif cur is not None and not dots and ' ... ' in line:
            dots = True		# docstring line
            line = line.split(' ... ', 1)[1]
        if cur is not None and dots and cur not in results:
            r = RESULT.search(line)
            if r:
                res = r['res']
                if res.startswith('skipped'):
                    settle(SKIP, r['why'])
                elif res == 'expected failure':
                    settle(OK, 'expected failure (unittest)')
                elif res == 'unexpected success':
                    settle(FAIL, 'unexpected success (unittest)')
                else:
                    settle(res)
        i += 1
    if cur is not None and cur not in results:
        settle(ERROR, 'no result: run ended (timeout or crash?)')

    # Detail phase: "ERROR: name (id)" blocks; the traceback's last line
    # is the most useful one-line reason.
    while i < len(lines):
        line = lines[i]
        if re.match(r'^Ran \d+ tests? in ', line):
            complete = True
        m = DETAIL.match(line) if i > 0 and lines[i - 1] == SEP1 else None
        if m:
            tid = test_id(m['name'], m['where'])
            # the header may be followed by the test's docstring line
            j, last = i + 1, ''
            while j < min(i + 3, len(lines)) and lines[j] != SEP2:
                j += 1
            j += 1
            while j < len(lines) and lines[j] not in (SEP1, SEP2):
                if lines[j].strip():
                    last = lines[j]
                j += 1
            res = FAIL if m['kind'] != 'ERROR' else ERROR
            old = results.get(tid, (res, ''))[0]
            results[tid] = (old if old in (FAIL, ERROR) else res, one_line(last))
            i = j
            continue
        i += 1
    return results, complete


def load_xfail(path):
    """Return a list of (pattern, reason, lineno)."""
    entries = []
    if not path:
        return entries
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                # an expected failure without a reason is a hidden failure
                sys.exit('%s:%d: %s: no reason given' % (path, n, parts[0]))
            entries.append((parts[0], parts[1], n))
    return entries


def is_wild(pattern):
    return any(c in pattern for c in '*?[')


def cell(result):
    res, why = result
    if res == SKIP:
        return 'skip (%s)' % why if why else 'skip'
    if res in (FAIL, ERROR):
        return '%s: %s' % (res, why) if why else res
    return res


def md_escape(text):
    return text.replace('|', '\\|')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dir', help='logs and outputs (default build/suite/KVER)')
    ap.add_argument('--kernel', help='kernel version for names (default: '
                    'the name of --dir, else uname -r)')
    ap.add_argument('--xfail', help='expected failures of the first DEV')
    ap.add_argument('devs', nargs='+', metavar='DEV')
    a = ap.parse_args()
    kver = a.kernel or (os.path.basename(os.path.normpath(a.dir)) if a.dir
                        else os.uname().release)
    outdir = a.dir or os.path.join(TOP, 'build', 'suite', kver)
    dut, others = a.devs[0], a.devs[1:]

    runs = {d: parse_log(os.path.join(outdir, d + '.log')) for d in a.devs}
    order = list(runs[dut][0])
    for d in others:
        order += [t for t in runs[d][0] if t not in runs[dut][0] and t not in order]

    xfail = load_xfail(a.xfail)

    def listed(tid):
        return [e for e in xfail if fnmatch.fnmatchcase(tid, e[0])]

    # --- TAP for the device under test
    tap, npass, nfail, nskip, nxfail = [], 0, 0, 0, 0
    dres = runs[dut][0]
    for tid in dres:
        res, why = dres[tid]
        name = 'suite/%s/%s' % (kver, tid)
        hits = listed(tid)
        exact = [e for e in hits if not is_wild(e[0])]
        if res == SKIP and exact:
            # a stale entry would hide the test if it failed again later
            nfail += 1
            tap.append(('not ok', name, '', ['STALE: skipped, yet listed as an '
                                             'expected failure (line %d); '
                                             'remove it' % exact[0][2]]))
        elif res == SKIP:
            nskip += 1
            tap.append(('ok', name, '# SKIP ' + why, []))
        elif res in (FAIL, ERROR) and hits:
            nxfail += 1
            tap.append(('not ok', name, '# TODO xfail: ' + hits[0][1],
                        [cell(dres[tid])]))
        elif res in (FAIL, ERROR):
            nfail += 1
            tap.append(('not ok', name, '', [cell(dres[tid])]))
        elif exact:
            nfail += 1
            tap.append(('not ok', name, '', ['XPASS: remove from expected-failures'
                                             ' (line %d)' % exact[0][2]]))
        else:
            npass += 1
            tap.append(('ok', name, '', []))
    if not runs[dut][1]:
        nfail += 1
        tap.append(('not ok', 'suite/%s/%s/complete' % (kver, dut), '',
                    ['run incomplete: no "Ran N tests" line (timeout, crash, '
                     'or no device); see %s.log' % dut]))
    notes = []
    for pat, why, n in xfail:
        if not is_wild(pat):
            if pat not in dres:
                notes.append('expected-failures line %d matches no test: %s' % (n, pat))
            continue
        hits = [t for t in dres if fnmatch.fnmatchcase(t, pat)]
        if not any(dres[t][0] in (FAIL, ERROR) for t in hits):
            nfail += 1
            tap.append(('not ok', 'suite/%s/xfail/%s' % (kver, pat), '',
                        ['XPASS: wildcard (line %d) matches no failing test; '
                         'remove from expected-failures' % n]))

    print('1..%d' % len(tap))
    verdict = []	# the not-ok lines again, for results.md
    for k, (st, name, directive, diag) in enumerate(tap, 1):
        line = ' '.join(x for x in ('%s %d - %s' % (st, k, name), directive) if x)
        print(line)
        for d in diag:
            print('#   ' + d)
        if st != 'ok':
            verdict.append('- `%s`%s%s' % (name, ' ' + directive if directive else '',
                                            ''.join(': ' + d for d in diag)))
    for n in notes:
        print('# note: ' + n)

    # --- comparison devices
    info = {}
    for d in others:
        ores = runs[d][0]
        info[d] = {
            'ok_skip': [t for t in order if ores.get(t, ('',))[0] == OK
                        and dres.get(t, ('',))[0] == SKIP],
            'bad': [t for t in order if ores.get(t, ('',))[0] in (FAIL, ERROR)],
        }
        for t in info[d]['ok_skip']:
            print('# info: %s ok / %s skip: %s (%s)' % (d, dut, t, dres[t][1]))
        for t in info[d]['bad']:
            print('# info: %s %s: %s' % (d, cell(ores[t]), t))
        if not runs[d][1]:
            print('# info: %s run incomplete' % d)

    summary = 'suite: %d passed, %d failed, %d skipped, %d xfail' % (
        npass, nfail, nskip, nxfail)
    verdict = ['', '## verdict for %s' % dut, '', summary, ''] + \
        [md_escape(v) for v in verdict] + ['- ' + md_escape(n) for n in notes]
    write_tables(outdir, kver, a.devs, runs, order, info, verdict)
    print(summary)
    return 1 if nfail else 0


def totals(res):
    t = {k: 0 for k in (OK, FAIL, ERROR, SKIP)}
    for r, _ in res.values():
        t[r] += 1
    return t


# Skip reasons that no software device can remove, and why; any other
# skip is a feature still to build (Documentation/testing.rst).
OUT_OF_REACH = [
    ('non MLX5 device', 'mlx5 hardware and its direct-verbs API'),
    ('not an MLX5 device', 'mlx5 hardware and its direct-verbs API'),
    ('Converting timestamp to nanoseconds', "mlx5dv's clock conversion"),
    ('non EFA device', 'AWS EFA hardware (SRD)'),
    ('cuda', 'a CUDA GPU and cuda-python'),
    ('PCI device must be passed', 'a PCI device for VFIO'),
    ('Allocating dmabuf', 'a GPU whose DRM driver exports dma-bufs '
     '(pyverbs allocates through amdgpu or i915)'),
]


def skip_table(results):
    """Skips of one device by reason: count, and out of reach or not."""
    by = {}
    for res, why in results.values():
        if res == SKIP:
            by[why] = by.get(why, 0) + 1
    rows = []
    for why, n in sorted(by.items(), key=lambda kv: (-kv[1], kv[0])):
        reach = [r for k, r in OUT_OF_REACH if k.lower() in why.lower()]
        rows.append('| %d | %s | %s |' % (
            n, md_escape(why),
            'out of reach: needs ' + reach[0] if reach else 'to build'))
    return rows


def write_tables(outdir, kver, devs, runs, order, info, verdict):
    with open(os.path.join(outdir, 'results.tsv'), 'w', encoding='utf-8') as f:
        f.write('\t'.join(['test'] + devs) + '\n')
        for t in order:
            row = [cell(runs[d][0][t]) if t in runs[d][0] else '-' for d in devs]
            f.write('\t'.join([t] + [c.replace('\t', ' ') for c in row]) + '\n')

    md = ['# rdma-core test suite on %s' % kver, '',
          '| device | ok | FAIL | ERROR | skip | total | complete |',
          '|---|---|---|---|---|---|---|']
    for d in devs:
        t = totals(runs[d][0])
        md.append('| %s | %d | %d | %d | %d | %d | %s |' % (
            d, t[OK], t[FAIL], t[ERROR], t[SKIP], sum(t.values()),
            'yes' if runs[d][1] else '**no**'))
    md += verdict
    md += ['', '## skips on %s by reason' % devs[0], '',
           '| tests | reason | |', '|---|---|---|']
    md += skip_table(runs[devs[0]][0])
    for d, lists in info.items():
        md += ['', '## %s ok, %s skipped (%d)' % (d, devs[0], len(lists['ok_skip'])), '']
        md += ['- `%s`: %s' % (t, md_escape(runs[devs[0]][0][t][1]))
               for t in lists['ok_skip']]
        md += ['', '## failures on %s (%d)' % (d, len(lists['bad'])), '']
        md += ['- `%s`: %s' % (t, md_escape(cell(runs[d][0][t])))
               for t in lists['bad']]
    md += ['', '## all tests', '', '| test | ' + ' | '.join(devs) + ' |',
           '|---' * (len(devs) + 1) + '|']
    for t in order:
        cells = []
        for d in devs:
            c = md_escape(cell(runs[d][0][t])) if t in runs[d][0] else '-'
            cells.append('**%s**' % c if c.startswith(('FAIL', 'ERROR')) else c)
        md.append('| %s | %s |' % (t.replace('tests.', '', 1), ' | '.join(cells)))
    with open(os.path.join(outdir, 'results.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(md) + '\n')


if __name__ == '__main__':
    sys.exit(main())
