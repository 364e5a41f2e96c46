/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_place.c — the cost of the placement core's decisions and passes.
 *
 *  1. One placement decision, for every placement rule, on clusters of 100,
 *     1,000 and 10,000 nodes of 8 GPUs in a realistic partly filled state
 *     (about 70 % of the GPUs allocated to a mix of gangs of 1, 2, 4 and 8
 *     GPUs and of GPU shares, placed first-fit in arrival order and then
 *     thinned by random completions, so the free capacity is fragmented). A
 *     decision is the fit component's answer for one job, not applied, so
 *     the state is the same for every call; two job mixes are timed: whole-
 *     GPU gangs (1, 2 and 4 GPUs in turn) and 0.5-GPU shares.
 *  2. One backfilling pass with 1,000 queued jobs (with estimates) on 1,000
 *     and 10,000 nodes about 90 % allocated: order=fifo placement=first-fit
 *     with backfill=greedy, easy and conservative, applied through a host
 *     like the engine's.
 * Every figure is the median of 7 runs of process CPU time (not wall time: the
 * benchmark machine is often shared); each run repeats the call enough times
 * to last a few milliseconds. Deterministic (fixed seeds); prints a
 * Markdown table for bench/README.md. Never run by ctest.
 */
#include "place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 7

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t sm_state;
static uint64_t splitmix(void *ud)
{
    (void)ud;
    uint64_t z = (sm_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_d);
    return x[n / 2];
}

/* ------------------------------------------------------------------------- */
/* a partly filled cluster                                                    */

typedef struct state {
    place_cluster c;
    place_running *run;
    place_part *parts; /* one part per running job (no spans here) */
    uint32_t n_run, cap_run;
} state;

static place_job mkjob(uint64_t id, uint32_t gpus, uint32_t milli)
{
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = id;
    j.gpus = gpus;
    j.gpu_milli = milli;
    j.estimate_us = -1;
    j.deadline_us = -1;
    return j;
}

/* Fill to ~(pct + 15) % first-fit, then end random jobs down to ~pct %. */
static void build(state *s, uint32_t nodes, uint64_t seed, uint32_t pct)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    uint32_t mem = 80 * 1024;
    memset(s, 0, sizeof *s);
    place_cluster_init(&s->c, &env, 1, &mem);
    for (uint32_t n = 0; n < nodes; n++) {
        place_cluster_add_node(&s->c, 0, 8, 192000, 2048 * 1024, NULL);
        place_cluster_set_node_up(&s->c, n, 1);
    }
    s->cap_run = nodes * 16;
    s->run = calloc(s->cap_run, sizeof *s->run);
    s->parts = calloc(s->cap_run, sizeof *s->parts);
    sm_state = seed;
    uint64_t total = (uint64_t)nodes * 8 * PLACE_MILLI_WHOLE, used = 0;
    static const uint32_t gang[8] = {1, 1, 1, 2, 2, 4, 4, 8};
    uint32_t cursor = 0, misses = 0;
    uint32_t fill = pct + 15 < 98 ? pct + 15 : 98;
    while (used < total * fill / 100 && s->n_run < s->cap_run) {
        uint64_t r = splitmix(NULL);
        place_job j = mkjob(s->n_run + 1, gang[r % 8], PLACE_MILLI_WHOLE);
        if ((r >> 8) % 4 == 0) {
            j.gpus = 1;
            j.gpu_milli = (r >> 16) % 2 ? 500 : 250;
        }
        j.estimate_us = (int64_t)(60 + (r >> 24) % 36000) * 1000000;
        /* first-fit from a moving cursor, so nodes fill unevenly */
        place_part *p = &s->parts[s->n_run];
        uint32_t placed = 0;
        for (uint32_t k = 0; k < nodes && !placed; k++) {
            uint32_t n = (cursor + k) % nodes;
            if (j.gpu_milli == PLACE_MILLI_WHOLE) {
                if (s->c.node_free[n] < j.gpus)
                    continue;
                *p = (place_part){n, (uint16_t)j.gpus, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
                placed = 1;
            } else {
                for (uint32_t g = 0; g < 8 && !placed; g++)
                    if (s->c.gpu_free_milli[s->c.node_gpu0[n] + g] >= j.gpu_milli) {
                        *p = (place_part){n, 1, (uint16_t)g, j.gpu_milli, 0, 0};
                        placed = 1;
                    }
            }
        }
        if (!placed) {
            if (++misses > 1000)
                break; /* nothing of this mix fits any more */
            continue;
        }
        misses = 0;
        cursor = (p->node + 1 + (uint32_t)((r >> 40) % 7)) % nodes;
        place_cluster_take(&s->c, &j, p, 1);
        place_running *rr = &s->run[s->n_run++];
        rr->job = j;
        rr->start_us = -(int64_t)((r >> 48) % 3600) * 1000000;
        rr->end_estimate_us = rr->start_us + j.estimate_us;
        rr->parts = p;
        rr->n_parts = 1;
        used += (uint64_t)j.gpus * j.gpu_milli;
    }
    /* random completions down to ~pct % */
    while (used > total * pct / 100 && s->n_run > 0) {
        uint32_t k = (uint32_t)(splitmix(NULL) % s->n_run);
        place_running *rr = &s->run[k];
        place_cluster_give(&s->c, &rr->job, rr->parts, 1);
        used -= (uint64_t)rr->job.gpus * rr->job.gpu_milli;
        uint32_t last = --s->n_run;
        s->run[k] = s->run[last];
        s->parts[k] = s->parts[last];
        s->run[k].parts = &s->parts[k];
    }
}

static void state_fini(state *s)
{
    place_cluster_fini(&s->c);
    free(s->run);
    free(s->parts);
}

/* ------------------------------------------------------------------------- */
/* one decision                                                               */

/* ns per decision of fit f over jobs js[0..nj) in turn, median of RUNS. */
static double time_fit(const place_fit *f, state *s, const place_job *js, int nj)
{
    place_env env = {place_alloc_libc, NULL, splitmix, NULL};
    void *st = NULL;
    if (f->create && f->create(&env, "", &st, NULL, 0) != PLACE_OK)
        return -1;
    place_job q[1] = {js[0]};
    uint8_t qs[1] = {PLACE_Q_WAITING};
    place_view v = {0, &s->c, q, qs, 1, s->run, s->n_run, NULL, NULL, 0};
    if (f->begin)
        f->begin(st, &v);
    place_part parts[64];
    place_fit_ctx ctx = {&env, NULL, NULL};
    /* calibrate: enough calls for ~5 ms */
    long reps = 1;
    for (;;) {
        double t0 = now_s();
        for (long i = 0; i < reps; i++) {
            place_decision d = {0, 0, 0, 64, parts};
            f->fit(st, &v, &js[i % nj], &d, &ctx);
        }
        if (now_s() - t0 > 0.005 || reps > (1l << 26))
            break;
        reps *= 2;
    }
    double r[RUNS];
    for (int k = 0; k < RUNS; k++) {
        double t0 = now_s();
        for (long i = 0; i < reps; i++) {
            place_decision d = {0, 0, 0, 64, parts};
            f->fit(st, &v, &js[i % nj], &d, &ctx);
        }
        r[k] = (now_s() - t0) / (double)reps * 1e9;
    }
    if (f->destroy)
        f->destroy(st);
    return median(r, RUNS);
}

static void fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 0)
        snprintf(buf, n, "n/a");
    else if (ns < 10000)
        snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e7)
        snprintf(buf, n, "%.1f us", ns / 1e3);
    else
        snprintf(buf, n, "%.1f ms", ns / 1e6);
}

/* ------------------------------------------------------------------------- */
/* one backfilling pass                                                       */

typedef struct host {
    place_cluster *c;
    place_job *queue;
    uint8_t *qs;
    place_running *run;
    place_part *parts;
    uint32_t n_run, cap;
} host;

static int apply(void *ud, place_view *v, place_decision *d)
{
    host *h = ud;
    if (d->kind != PLACE_START || h->n_run == h->cap || d->n_parts > 1)
        return PLACE_ERR_INVAL;
    place_part *p = &h->parts[h->n_run];
    *p = d->parts[0];
    int rc = place_cluster_take(h->c, &h->queue[d->index], p, 1);
    if (rc != PLACE_OK)
        return rc;
    h->qs[d->index] = PLACE_Q_STARTED;
    place_running *r = &h->run[h->n_run++];
    r->job = h->queue[d->index];
    r->start_us = 0;
    r->end_estimate_us = r->job.estimate_us;
    r->lost_gpu_s = 0;
    r->parts = p;
    r->n_parts = 1;
    v->running = h->run;
    v->n_running = h->n_run;
    return PLACE_OK;
}

/* ms per pass of spec with n_queue jobs on a fresh copy of s, median of RUNS;
 * *started gets the jobs the pass started. */
static double time_pass(const char *spec, uint32_t nodes, uint32_t n_queue, uint32_t *started)
{
    double r[RUNS];
    for (int k = 0; k < RUNS; k++) {
        state s;
        build(&s, nodes, 1234, 90);
        host h = {&s.c, NULL, NULL, NULL, NULL, 0, 0};
        h.cap = s.n_run + n_queue;
        h.run = calloc(h.cap, sizeof *h.run);
        h.parts = calloc(h.cap, sizeof *h.parts);
        for (uint32_t i = 0; i < s.n_run; i++) {
            h.run[i] = s.run[i];
            h.parts[i] = s.parts[i];
            h.run[i].parts = &h.parts[i];
        }
        h.n_run = s.n_run;
        h.queue = calloc(n_queue, sizeof *h.queue);
        h.qs = calloc(n_queue, 1);
        sm_state = 99;
        static const uint32_t gang[6] = {1, 2, 4, 8, 8, 8};
        for (uint32_t i = 0; i < n_queue; i++) {
            uint64_t x = splitmix(NULL);
            h.queue[i] = mkjob(100000 + i, gang[x % 6], PLACE_MILLI_WHOLE);
            h.queue[i].estimate_us = (int64_t)(60 + (x >> 8) % 36000) * 1000000;
        }
        place_env env = {place_alloc_libc, NULL, NULL, NULL};
        place_instance pi;
        place_instance_init(&pi, &env, spec, NULL, 0);
        place_view v = {0, &s.c, h.queue, h.qs, n_queue, h.run, h.n_run, NULL, NULL, 0};
        place_part scratch[64];
        place_pass_stats st;
        double t0 = now_s();
        int prc = place_pass_run(&pi, &v, h.qs, scratch, 64, apply, &h, &st);
        if (prc != PLACE_OK)
            fprintf(stderr, "%s: pass failed: %s\n", spec, place_strerror(prc));
        r[k] = (now_s() - t0) * 1e3;
        *started = st.started;
        place_instance_fini(&pi);
        free(h.run);
        free(h.parts);
        free(h.queue);
        free(h.qs);
        state_fini(&s);
    }
    return median(r, RUNS);
}

int main(int argc, char **argv)
{
    /* --backfill: only the backfilling passes (for profiling) */
    int only_backfill = argc > 1 && strcmp(argv[1], "--backfill") == 0;
    static const uint32_t sizes[3] = {100, 1000, 10000};
    place_job whole[3] = {mkjob(1, 1, PLACE_MILLI_WHOLE), mkjob(2, 2, PLACE_MILLI_WHOLE),
                          mkjob(3, 4, PLACE_MILLI_WHOLE)};
    place_job share[1] = {mkjob(4, 1, 500)};
    size_t nf;
    const place_fit *const *fits = place_fit_list(&nf);
    if (only_backfill)
        nf = 0;
    printf("### One placement decision (median of %d runs)\n\n", RUNS);
    printf("Nodes of 8 GPUs, ~70 %% allocated and fragmented. \"gang\": whole-GPU jobs "
           "of 1, 2 and 4 GPUs in turn; \"share\": a 0.5-GPU job. Scans = the rule scores "
           "every candidate node.\n\n");
    printf("| placement | scans |");
    for (int k = 0; k < 3; k++)
        printf(" gang, %u nodes | share, %u nodes |", sizes[k], sizes[k]);
    printf("\n|---|---|");
    for (int k = 0; k < 3; k++)
        printf("---|---|");
    printf("\n");
    state st[3];
    for (int k = 0; k < 3; k++)
        build(&st[k], only_backfill ? 8 : sizes[k], 42 + (uint64_t)k, 70);
    for (size_t i = 0; i < nf; i++) {
        printf("| %s | %s |", fits[i]->name, (fits[i]->flags & PLACE_FIT_SCANS) ? "yes" : "no");
        for (int k = 0; k < 3; k++) {
            char a[32], b[32];
            fmt_ns(a, sizeof a, time_fit(fits[i], &st[k], whole, 3));
            fmt_ns(b, sizeof b, time_fit(fits[i], &st[k], share, 1));
            printf(" %s | %s |", a, b);
        }
        printf("\n");
        fflush(stdout);
    }
    for (int k = 0; k < 3; k++) {
        uint64_t up = st[k].c.gpus_up, fr = st[k].c.gpus_free;
        fprintf(stderr, "%u nodes: %u running jobs, %llu of %llu GPUs fully free\n", sizes[k],
                st[k].n_run, (unsigned long long)fr, (unsigned long long)up);
        state_fini(&st[k]);
    }
    printf("\n### One backfilling pass, 1,000 queued jobs (median of %d runs)\n\n", RUNS);
    printf("order=fifo placement=first-fit on nodes ~90 %% allocated; the queue: gangs of "
           "1-8 GPUs with estimates; the running jobs have estimated ends.\n\n");
    printf(
        "| backfill | 1,000 nodes | started | 10,000 nodes | started |\n|---|---|---|---|---|\n");
    static const char *const bf[3] = {"greedy", "easy", "conservative"};
    for (int b = 0; b < 3; b++) {
        char spec[128];
        snprintf(spec, sizeof spec, "order=fifo placement=first-fit backfill=%s", bf[b]);
        uint32_t s1 = 0, s2 = 0;
        double t1 = time_pass(spec, 1000, 1000, &s1), t2 = time_pass(spec, 10000, 1000, &s2);
        printf("| %s | %.2f ms | %u | %.2f ms | %u |\n", bf[b], t1, s1, t2, s2);
        fflush(stdout);
    }
    return 0;
}
