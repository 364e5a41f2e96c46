# SPDX-License-Identifier: Apache-2.0
"""backfill_rules.py — an independent replay of EASY and conservative
backfilling, as Mu'alem and Feitelson state the rules (IEEE TPDS 12(6), 2001,
section 2; EASY after Lifka, JSSPP 1995), on a pool of identical processors
with FIFO order. Shared by tests/bfpin_check.py (a generated log, start by
start) and tests/backfill_count_check.py (SWF windows, the mean wait).

  EASY: start queued jobs in order while they fit. The first that does not
  gets the shadow time (sort the running jobs by estimated end; accumulate
  their processors onto the free ones until it fits) and the extra
  processors (free at the shadow time beyond its need). A later job starts
  if it fits now and either ends by the shadow time or needs no more than
  the extra processors (which it then takes from the extra count).

  Conservative: every queued job, in order, either starts now (it fits in
  the availability profile over [now, now + estimate)) or is reserved at the
  earliest time the profile holds it for its estimate; the profile is built
  afresh from the running jobs in every pass.

A pass runs after every instant at which jobs end or arrive, as the engine
does; a job that runs 0 s ends at the instant it starts (and its processors
are free for another pass at that instant), one estimated at 0 s holds its
processors for 1 us.
"""

INF = float("inf")


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
    """Start time per job id under rule ("easy" or "conservative") on n
    processors. jobs: (id, submit, run, processors, estimate) in submit
    order; a job wider than n is never queued (and has no start).
    Running entries: (actual end, estimated end, processors)."""
    running, queue, start_of = [], [], {}
    nxt, t = 0, 0

    def dur(j):
        return j[4] if j[4] > 0 else 1e-6  # a zero estimate holds 1 us

    def start(j):
        queue.remove(j)
        running.append((t + j[2], t + j[4], j[3]))
        start_of[j[0]] = t

    def by_estimate():
        return sorted(running, key=lambda r: (r[1], r[2]))

    def one_pass():
        free = n - sum(r[2] for r in running)
        if rule == "easy":
            shadow, extra = None, 0
            for j in list(queue):
                k, d = j[3], dur(j)
                if shadow is None:
                    if k <= free:
                        start(j)
                        free -= k
                        continue
                    acc, shadow = free, INF
                    for _, e, kk in by_estimate():
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
        for _, e, k in by_estimate():
            prof = take(prof, e, INF, -k)
        for j in list(queue):
            k, d = j[3], dur(j)
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
        cand = [jobs[nxt][1]] if nxt < len(jobs) else []
        if running:
            cand.append(min(r[0] for r in running))
        t = min(cand)
        while True:  # zero-length jobs end at the instant they start
            running[:] = [r for r in running if r[0] > t]
            while nxt < len(jobs) and jobs[nxt][1] <= t:
                if jobs[nxt][3] <= n:
                    queue.append(jobs[nxt])
                nxt += 1
            one_pass()
            if not any(r[0] <= t for r in running):
                break
    return start_of
