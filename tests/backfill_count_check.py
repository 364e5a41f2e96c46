#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""backfill_count_check.py — EASY and conservative backfilling on SWF
windows against an independent statement of the rules.

The rules as Mu'alem and Feitelson state them (IEEE TPDS 12(6), 2001,
section 2; EASY after Lifka, JSSPP 1995), on a pool of identical
processors, with FIFO order and exact estimates (--estimates runtime),
replayed by tests/backfill_rules.py (which states them).

The Lublin machines have one processor a node, so a processor here is a
node there. This file replays the windows that way (a pass after every instant at which
jobs end or arrive, as the engine does) and compares the mean wait with the
one `tarmac replay --protocol window` prints: they must be equal to the
printed decimal. The policies count processors on such a machine
(policies/backfill_count.c); before they did, the node-identity
reservations gave other waits on every window below.
Skipped (77) when the public traces are absent.
"""
import os
import subprocess
import sys

from backfill_rules import replay


def read_swf(path, first, count):
    jobs, procs = [], None
    with open(path) as f:
        for line in f:
            if line.startswith(";"):
                if "MaxProcs" in line or ("MaxNodes" in line and procs is None):
                    procs = int(line.split(":")[1])
                continue
            x = line.split()
            if len(x) != 18:
                continue
            run = int(float(x[3]))
            size = int(x[4]) if int(x[4]) != -1 else int(x[7])
            if run == -1 or size == -1 or (int(x[10]) == 5 and run == 0):
                continue
            jobs.append([int(float(x[1])), run, size])
    jobs = jobs[first : first + count]
    t0 = jobs[0][0]
    for j in jobs:
        j[0] -= t0
    return jobs, procs


def mean_wait(jobs, n, rule):
    """The mean wait of the window's jobs (submit, run, size) under rule, with
    exact estimates; jobs wider than the machine never start and do not count."""
    start = replay([(i, s, r, k, r) for i, (s, r, k) in enumerate(jobs)], n, rule)
    return sum(start[i] - jobs[i][0] for i in start) / len(start)


def main():
    data = os.environ.get("TARMAC_DATA_DIR", "")
    binary = os.environ.get("TARMAC_BIN", "tarmac")
    d = os.path.join(data, "rlscheduler-lublin-swf")
    if not os.path.isdir(d):
        print("SKIP: no", d)
        return 77
    cases = [("lublin_256.swf", 0), ("lublin_256.swf", 3000), ("lublin_256_new2", 5000)]
    bad = 0
    for name, first in cases:
        path = os.path.join(d, name)
        jobs, procs = read_swf(path, first, 1024)
        for rule in ("easy", "conservative"):
            out = subprocess.run(
                [binary, "replay", path, "--format", "swf", "--protocol", "window",
                 "--window", "%d:1024" % first, "--estimates", "runtime", "--policy", rule],
                capture_output=True, text=True, check=True).stdout
            got = [l.split()[1] for l in out.splitlines() if l.split()[:1] == ["mean"]][0]
            want = "%.1f" % mean_wait(jobs, procs, rule)
            ok = got == want
            bad += not ok
            print("%s %s %s %d:1024: mean wait %s s, the rule's %s s"
                  % ("ok:" if ok else "FAIL:", rule, name, first, got, want))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
