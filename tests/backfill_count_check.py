#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""backfill_count_check.py — EASY and conservative backfilling on SWF
windows against an independent statement of the rules.

The rules as Mu'alem and Feitelson state them (IEEE TPDS 12(6), 2001,
section 2; EASY after Lifka, JSSPP 1995), on a pool of identical
processors, with FIFO order and exact estimates (--estimates runtime):

  EASY: start queued jobs in order while they fit. The first that does not
  gets the shadow time (sort the running jobs by end; accumulate their
  processors onto the free ones until it fits) and the extra processors
  (free at the shadow time beyond its need). A later job starts if it fits
  now and either ends by the shadow time or needs no more than the extra
  processors (which it then takes from the extra count).

  Conservative: every queued job, in order, either starts now (it fits in
  the availability profile over [now, now + estimate)) or is reserved at the
  earliest time the profile holds it for its estimate; the profile is built
  afresh from the running jobs in every pass.

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

INF = float("inf")


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


def value_at(prof, x):
    v = None
    for s, f in prof:
        if s <= x:
            v = f
    return v


def take(prof, a, b, k):
    """The profile with k processors taken over [a, b)."""
    pts = sorted(set([p[0] for p in prof] + [a] + ([b] if b != INF else [])))
    return [(x, value_at(prof, x) - (k if a <= x < b else 0)) for x in pts]


def holds(prof, a, b, k):
    for i, (s, f) in enumerate(prof):
        e = prof[i + 1][0] if i + 1 < len(prof) else INF
        if e > a and s < b and f < k:
            return False
    return True


def replay(jobs, n, rule):
    running, queue, waits = [], [], []
    nxt, t = 0, 0

    def dur(j):
        return j[1] if j[1] > 0 else 1e-6  # a zero estimate holds 1 us

    def start(j):
        queue.remove(j)
        running.append((t + j[1], j[2]))
        waits.append(t - j[0])

    def one_pass():
        free = n - sum(k for _, k in running)
        if rule == "easy":
            shadow, extra = None, 0
            for j in list(queue):
                k, d = j[2], dur(j)
                if shadow is None:
                    if k <= free:
                        start(j)
                        free -= k
                        continue
                    acc, shadow = free, INF
                    for e, kk in sorted(running):
                        acc += kk
                        if acc >= k:
                            shadow, extra = e, acc - k
                            break
                    continue
                if k <= free and (t + d <= shadow or k <= extra):
                    if t + d > shadow:
                        extra -= k
                    start(j)
                    free -= k
            return
        prof = [(t, free)]
        for e, k in sorted(running):
            prof = take(prof, e, INF, -k)
        for j in list(queue):
            k, d = j[2], dur(j)
            if k <= free and holds(prof, t, t + d, k):
                start(j)
                free -= k
                prof = take(prof, t, t + d, k)
                continue
            for a in sorted(set(p[0] for p in prof)):
                if holds(prof, a, a + d, k):
                    prof = take(prof, a, a + d, k)
                    break

    while nxt < len(jobs) or queue or running:
        cand = [jobs[nxt][0]] if nxt < len(jobs) else []
        if running:
            cand.append(min(e for e, _ in running))
        t = min(cand)
        while True:  # zero-length jobs end at the instant they start
            running[:] = [(e, k) for e, k in running if e > t]
            while nxt < len(jobs) and jobs[nxt][0] <= t:
                if jobs[nxt][2] <= n:
                    queue.append(jobs[nxt])
                nxt += 1
            one_pass()
            if not any(e <= t for e, _ in running):
                break
    return sum(waits) / len(waits)


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
            want = "%.1f" % replay(jobs, procs, rule)
            ok = got == want
            bad += not ok
            print("%s %s %s %d:1024: mean wait %s s, the rule's %s s"
                  % ("ok:" if ok else "FAIL:", rule, name, first, got, want))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
