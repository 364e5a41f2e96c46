/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gavel_round.c — the choices of a Gavel round (policies/gavel_round.c)
 * against the rule written out plainly.
 *
 * Random hand-built views (3 GPU types of 8-GPU nodes, running and queued
 * jobs of 1 to 16 GPUs, some pinned, allowed types and memory that rule
 * types out, a timeshare whose X has zeros, ties and missing rows) go
 * through one boundary of the policy and a host that swap-removes as
 * place.h says (or, in one variant, shifts: the policy must still find its
 * victims). The reference is the rule of the file's top comment, without
 * any of the policy's shortcuts: every (job, type) entry with its priority
 * X / (received / active), X x 1e9 for nothing received, all sorted by
 * (priority desc, X desc, id asc); types fastest first by the candidates'
 * summed speed; each type takes its unchosen jobs in that order while they
 * fit its GPUs left (pinned jobs' GPUs taken off first). A round must
 * preempt exactly the running jobs the rule moves or drops, and start every
 * job it chooses on the type it chose (the movers in the second pass of the
 * same instant).
 */
#include "check.h"
#include "place.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NT = 3, MAXJ = 48, MAXP = 4 };

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint32_t below(uint32_t n)
{
    return (uint32_t)(next() % n);
}

typedef struct host {
    place_cluster c;
    place_job queue[MAXJ];
    uint8_t qstate[MAXJ];
    uint32_t n_queue;
    place_running run[MAXJ];
    place_part run_parts[MAXJ][MAXP];
    uint32_t n_run;
    int shift; /* remove preempted entries by shifting, not swap-remove */
    uint64_t preempted[MAXJ];
    uint32_t n_preempted;
    uint64_t started[MAXJ];
    uint32_t started_type[MAXJ], n_started;
} host;

static int host_apply(void *ud, place_view *v, place_decision *d)
{
    host *h = ud;
    if (d->kind == PLACE_START) {
        place_job j = h->queue[d->index];
        CHECK_EQ_INT(place_cluster_take(&h->c, &j, d->parts, d->n_parts), PLACE_OK);
        h->qstate[d->index] = PLACE_Q_STARTED;
        h->started[h->n_started] = j.id;
        h->started_type[h->n_started++] = h->c.node_type[d->parts[0].node];
        place_running *r = &h->run[h->n_run];
        memset(r, 0, sizeof *r);
        r->job = j;
        r->start_us = v->now_us;
        r->end_estimate_us = -1;
        memcpy(h->run_parts[h->n_run], d->parts, d->n_parts * sizeof *d->parts);
        r->parts = h->run_parts[h->n_run];
        r->n_parts = d->n_parts;
        h->n_run++;
    } else if (d->kind == PLACE_PREEMPT) {
        place_running *r = &h->run[d->index];
        place_cluster_give(&h->c, &r->job, r->parts, r->n_parts);
        h->preempted[h->n_preempted++] = r->job.id;
        uint32_t last = --h->n_run;
        for (uint32_t k = d->index; k < last && h->shift; k++) {
            h->run[k] = h->run[k + 1];
            memcpy(h->run_parts[k], h->run_parts[k + 1], sizeof h->run_parts[0]);
            h->run[k].parts = h->run_parts[k];
        }
        if (!h->shift && d->index != last) {
            h->run[d->index] = h->run[last];
            memcpy(h->run_parts[d->index], h->run_parts[last], sizeof h->run_parts[0]);
            h->run[d->index].parts = h->run_parts[d->index];
        }
    }
    v->running = h->run;
    v->n_running = h->n_run;
    return PLACE_OK;
}

/* One job of the reference: its GPUs, allowed types, and choice. */
typedef struct rjob {
    const place_job *j;
    int running, pinned;
    uint32_t cur, sel;
} rjob;

typedef struct rent {
    double prio, x;
    uint64_t id;
    uint32_t r;
} rent;

static int rent_cmp(const void *a, const void *b)
{
    const rent *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    if (x->x != y->x)
        return x->x > y->x ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static double need(const place_job *j)
{
    return (double)j->gpus * j->gpu_milli / PLACE_MILLI_WHOLE;
}

/* The rule: fills rj[].sel (PLACE_NONE: not chosen). */
static void reference(const place_view *v, int fifo, rjob *rj, uint32_t n)
{
    const place_cluster *c = v->cluster;
    const place_timeshare *ts = v->timeshare;
    double left[NT];
    for (uint32_t t = 0; t < NT; t++)
        left[t] = (double)c->type_gpus_up[t];
    for (uint32_t i = 0; i < n; i++)
        if (rj[i].pinned && rj[i].cur != PLACE_NONE)
            left[rj[i].cur] -= need(rj[i].j);
    static rent ents[NT][MAXJ];
    uint32_t ne[NT] = {0};
    double tspeed[NT] = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (rj[i].pinned)
            continue;
        const place_job *j = rj[i].j;
        uint32_t row = PLACE_NONE, fastest = PLACE_NONE;
        for (uint32_t r = 0; ts && r < ts->n_rows; r++)
            if (ts->job_id[r] == j->id)
                row = r;
        for (uint32_t t = 0; t < NT; t++)
            if (place_type_ok(c, j, t) &&
                (fastest == PLACE_NONE || j->speed[t] > j->speed[fastest]))
                fastest = t;
        for (uint32_t t = 0; t < NT; t++) {
            if (!place_type_ok(c, j, t))
                continue;
            tspeed[t] += j->speed[t];
            double x, prio;
            if (row != PLACE_NONE) {
                x = ts->x[row * NT + t];
                double frac =
                    ts->active_s[row] > 0 ? ts->recv_s[row * NT + t] / ts->active_s[row] : 0;
                prio = !(x > 0) ? 0 : frac > 0 ? x / frac : x * 1e9;
            } else if (ts) {
                x = prio = 0; /* no row: solved for another job set */
            } else {
                x = t == fastest ? 1 : 0;
                prio = x * 1e9;
            }
            if (fifo && !(x > 0))
                continue;
            ents[t][ne[t]++] = (rent){prio, x, j->id, i};
        }
    }
    uint32_t order[NT] = {0, 1, 2};
    for (uint32_t a = 1; a < NT; a++)
        for (uint32_t b = a; b > 0 && tspeed[order[b]] > tspeed[order[b - 1]]; b--) {
            uint32_t x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
    for (uint32_t oi = 0; oi < NT; oi++) {
        uint32_t t = order[oi];
        qsort(ents[t], ne[t], sizeof ents[t][0], rent_cmp);
        for (uint32_t e = 0; e < ne[t]; e++) {
            rjob *x = &rj[ents[t][e].r];
            if (x->sel == PLACE_NONE && need(x->j) <= left[t] + 1e-9) {
                x->sel = t;
                left[t] -= need(x->j);
            }
        }
    }
}

static int contains(const uint64_t *ids, uint32_t n, uint64_t id, uint32_t *at)
{
    for (uint32_t k = 0; k < n; k++)
        if (ids[k] == id) {
            if (at)
                *at = k;
            return 1;
        }
    return 0;
}

static void one_case(uint32_t seed_case, int shift, int fifo, int with_ts)
{
    static const double speeds[4] = {0.5, 1.0, 2.0, 3.0};
    static const uint32_t sizes[6] = {1, 1, 2, 4, 8, 16};
    static const double xs[5] = {0, 0, 0.25, 0.5, 1.0};
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    static host h;
    memset(&h, 0, sizeof h);
    h.shift = shift;
    uint32_t mem[NT] = {80000, 40000, 24000};
    CHECK_EQ_INT(place_cluster_init(&h.c, &env, NT, mem), PLACE_OK);
    for (uint32_t t = 0; t < NT; t++)
        for (uint32_t k = 0, nn = 1 + below(3); k < nn; k++) {
            uint32_t node;
            CHECK_EQ_INT(place_cluster_add_node(&h.c, t, 8, 0, 0, &node), PLACE_OK);
            CHECK_EQ_INT(place_cluster_set_node_up(&h.c, node, 1), PLACE_OK);
        }
    static place_job jobs[MAXJ];
    static double speed[MAXJ][NT];
    uint32_t nj = 8 + below(MAXJ - 8);
    place_part scratch[64];
    for (uint32_t i = 0; i < nj; i++) {
        place_job *j = &jobs[i];
        memset(j, 0, sizeof *j);
        j->id = 100 + 3 * i;
        j->estimate_us = -1;
        j->deadline_us = -1;
        for (uint32_t t = 0; t < NT; t++)
            speed[i][t] = speeds[below(4)];
        j->speed = speed[i];
        j->gpus = sizes[below(6)];
        j->gpu_milli = PLACE_MILLI_WHOLE;
        j->gpu_mem_mib = below(4) == 0 ? 30000 : 16000; /* 30000: not on type 2 */
        j->type_mask = below(5) == 0 ? (1ull << below(NT)) : 0;
        j->flags = PLACE_JOB_CAN_SPAN | (below(8) ? PLACE_JOB_PREEMPTIBLE : 0);
    }
    /* about half start running where they fit, on a random allowed type */
    h.n_run = h.n_queue = 0;
    for (uint32_t i = 0; i < nj; i++) {
        int placed = 0;
        uint32_t t = below(NT);
        if (below(2) && place_type_ok(&h.c, &jobs[i], t)) {
            place_job one = jobs[i];
            one.type_mask = 1ull << t;
            place_view pv = {0};
            pv.cluster = &h.c;
            place_decision d = {0};
            d.parts = scratch;
            d.cap_parts = 64;
            if (place_fit_span_first(&pv, &one, &d, NULL) == PLACE_OK && d.n_parts <= MAXP) {
                place_job j = jobs[i];
                CHECK_EQ_INT(place_cluster_take(&h.c, &j, d.parts, d.n_parts), PLACE_OK);
                place_running *r = &h.run[h.n_run];
                memset(r, 0, sizeof *r);
                r->job = j;
                r->start_us = 0;
                r->end_estimate_us = -1;
                memcpy(h.run_parts[h.n_run], d.parts, d.n_parts * sizeof *d.parts);
                r->parts = h.run_parts[h.n_run];
                r->n_parts = d.n_parts;
                h.n_run++;
                placed = 1;
            }
        }
        if (!placed) {
            h.queue[h.n_queue] = jobs[i];
            h.qstate[h.n_queue++] = PLACE_Q_WAITING;
        }
    }
    /* the timeshare: most jobs have a row (ids ascending), X with zeros and
     * ties, received time 0 for some types */
    static uint64_t ids[MAXJ];
    static double x[MAXJ * NT], recv[MAXJ * NT], act[MAXJ];
    uint32_t nr = 0;
    for (uint32_t i = 0; i < nj; i++) {
        if (below(6) == 0)
            continue;
        ids[nr] = jobs[i].id;
        act[nr] = below(4) ? 360.0 * (1 + below(20)) : 0;
        for (uint32_t t = 0; t < NT; t++) {
            x[nr * NT + t] = xs[below(5)];
            recv[nr * NT + t] = below(2) ? 360.0 * below(10) : 0;
        }
        nr++;
    }
    place_timeshare ts = {360 * 1000000ll, nr, NT, ids, x, recv, act};
    int64_t now = 7 * 360 * 1000000ll;
    place_view v = {now,  &h.c, h.queue, h.qstate, h.n_queue, h.run, h.n_run, with_ts ? &ts : NULL,
                    NULL, 0};
    /* the reference, on the view before the pass */
    static rjob rj[MAXJ];
    uint32_t n = 0;
    for (uint32_t k = 0; k < h.n_run; k++) {
        const place_job *j = &h.run[k].job;
        uint32_t cur = h.c.node_type[h.run[k].parts[0].node];
        int pinned = !(j->flags & PLACE_JOB_PREEMPTIBLE);
        rj[n++] = (rjob){j, 1, pinned, cur, pinned ? cur : PLACE_NONE};
    }
    for (uint32_t i = 0; i < h.n_queue; i++)
        rj[n++] = (rjob){&h.queue[i], 0, 0, PLACE_NONE, PLACE_NONE};
    reference(&v, fifo, rj, n);
    uint64_t want_pre[MAXJ], want_start[MAXJ];
    uint32_t want_type[MAXJ], n_want_pre = 0, n_want_start = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rj[i].pinned)
            continue;
        if (rj[i].running && rj[i].sel != rj[i].cur)
            want_pre[n_want_pre++] = rj[i].j->id;
        if (rj[i].sel != PLACE_NONE && !(rj[i].running && rj[i].sel == rj[i].cur)) {
            want_type[n_want_start] = rj[i].sel;
            want_start[n_want_start++] = rj[i].j->id;
        }
    }
    /* the policy: a pass, then (the movers queued again) a second one */
    place_instance pi;
    char err[200];
    CHECK_EQ_INT(
        place_instance_init(&pi, &env, fifo ? "gavel fifo" : "gavel max-min", err, sizeof err),
        PLACE_OK);
    place_pass_stats st;
    CHECK_EQ_INT(place_pass_run(&pi, &v, h.qstate, scratch, 64, host_apply, &h, &st), PLACE_OK);
    CHECK_EQ_INT((int)st.invalid, 0);
    if (h.n_preempted) {
        uint32_t nq = 0;
        for (uint32_t i = 0; i < h.n_queue; i++)
            if (h.qstate[i] == PLACE_Q_WAITING) {
                h.queue[nq] = h.queue[i];
                h.qstate[nq++] = PLACE_Q_WAITING;
            }
        for (uint32_t i = 0; i < nj; i++)
            if (contains(h.preempted, h.n_preempted, jobs[i].id, NULL)) {
                h.queue[nq] = jobs[i];
                h.qstate[nq++] = PLACE_Q_WAITING;
            }
        h.n_queue = nq;
        v = (place_view){
            now, &h.c, h.queue, h.qstate, h.n_queue, h.run, h.n_run, with_ts ? &ts : NULL, NULL, 0};
        CHECK_EQ_INT(place_pass_run(&pi, &v, h.qstate, scratch, 64, host_apply, &h, &st), PLACE_OK);
        CHECK_EQ_INT((int)st.preempted, 0);
    }
    place_instance_fini(&pi);
    char what[120];
    snprintf(what, sizeof what, "case %u (shift %d, fifo %d, timeshare %d, seed %llu)", seed_case,
             shift, fifo, with_ts, (unsigned long long)check_current_seed);
    if (h.n_preempted != n_want_pre)
        check_fail(__FILE__, __LINE__, "%s: preempted %u jobs, the rule %u", what, h.n_preempted,
                   n_want_pre);
    for (uint32_t k = 0; k < n_want_pre; k++)
        if (!contains(h.preempted, h.n_preempted, want_pre[k], NULL))
            check_fail(__FILE__, __LINE__, "%s: job %llu not preempted", what,
                       (unsigned long long)want_pre[k]);
    if (h.n_started != n_want_start)
        check_fail(__FILE__, __LINE__, "%s: started %u jobs, the rule %u", what, h.n_started,
                   n_want_start);
    for (uint32_t k = 0; k < n_want_start; k++) {
        uint32_t at;
        if (!contains(h.started, h.n_started, want_start[k], &at))
            check_fail(__FILE__, __LINE__, "%s: job %llu not started", what,
                       (unsigned long long)want_start[k]);
        else if (h.started_type[at] != want_type[k])
            check_fail(__FILE__, __LINE__, "%s: job %llu started on type %u, the rule says %u",
                       what, (unsigned long long)want_start[k], h.started_type[at], want_type[k]);
    }
    place_cluster_fini(&h.c);
}

int main(void)
{
    rng = check_seed(20261204);
    if (rng == 0)
        rng = 1;
    for (uint32_t k = 0; k < 400; k++)
        one_case(k, k % 4 == 3, k % 5 == 4, k % 7 != 6);
    return check_finish("test_gavel_round");
}
