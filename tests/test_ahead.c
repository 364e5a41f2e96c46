/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ahead.c — sources read ahead on a thread (traces/ahead.c).
 *
 * A source read ahead must return what the source itself returns, in order:
 * every job, then the end or the error with its diagnostic, again on every
 * later call. The sources here are counters that can fail at a chosen job
 * and count their calls and closes: lanes of 0, 1, a block less one, a block,
 * a block and one and many blocks of jobs; a failure at job 0 and in the
 * middle of a block; many lanes read in a random interleaving; and lanes
 * closed early, while the thread is blocked or filling (no hang, each source
 * closed once, never called after its close). The engine's use
 * (sim_run_opts.read_ahead) is checked against runs without it in test_lean.
 */
#include "check.h"
#include "trace.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

/* SplitMix64: the interleaving and the lanes' lengths */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct counter {
    uint64_t n, fail_at; /* jobs to give; fail at this job (UINT64_MAX: end) */
    uint64_t given;
    atomic_int closed, called_after_close;
} counter;

static int counter_next(void *ud, trace_job *job, tm_diag *diag)
{
    counter *c = ud;
    if (atomic_load(&c->closed))
        atomic_store(&c->called_after_close, 1);
    if (c->given == c->fail_at)
        return tm_diag_set(diag, TM_ERR_TRACE, "counter", "failed at job %llu",
                           (unsigned long long)c->given);
    if (c->given >= c->n)
        return TRACE_END;
    trace_job_defaults(job);
    job->id = ++c->given;
    job->submit_us = (int64_t)(c->given * 7);
    job->duration_us = (int64_t)(c->given % 13);
    job->value = (double)c->given / 3.0;
    return TM_OK;
}

static void counter_close(void *ud)
{
    counter *c = ud;
    atomic_fetch_add(&c->closed, 1);
}

static trace_source counter_source(counter *c, uint64_t n, uint64_t fail_at)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->fail_at = fail_at;
    return (trace_source){counter_next, counter_close, c};
}

/* Read lane l's next job and check it against what counter c would give. */
static int read_one(trace_source *s, uint64_t *got, uint64_t n, uint64_t fail_at, int lane)
{
    trace_job j;
    tm_diag d;
    tm_diag_clear(&d);
    int rc = s->next(s->ud, &j, &d);
    if (*got == fail_at) {
        if (rc != TM_ERR_TRACE || strcmp(d.where, "counter") != 0 ||
            strstr(d.msg, "failed at job") == NULL)
            check_fail(__FILE__, __LINE__,
                       "lane %d: job %llu: want the source's error, got %d (%s)", lane,
                       (unsigned long long)*got, rc, d.msg);
        return 0;
    }
    if (*got >= n) {
        if (rc != TRACE_END)
            check_fail(__FILE__, __LINE__, "lane %d: after %llu jobs: want the end, got %d", lane,
                       (unsigned long long)*got, rc);
        return 0;
    }
    (*got)++;
    if (rc != TM_OK || j.id != *got || j.submit_us != (int64_t)(*got * 7) ||
        j.duration_us != (int64_t)(*got % 13) || j.value != (double)*got / 3.0 ||
        j.gpu_milli != 1000 || j.estimate_us != -1) {
        check_fail(__FILE__, __LINE__, "lane %d: job %llu: rc %d, id %llu", lane,
                   (unsigned long long)*got, rc, (unsigned long long)j.id);
        return 0;
    }
    return 1;
}

/* Lanes of the given lengths and failures, read in a random interleaving to
 * their ends (each end read three times), or closed after `stop_after` reads
 * of the whole group. */
static void run_group(const uint64_t *n, const uint64_t *fail_at, int lanes, uint64_t stop_after)
{
    counter *c = calloc((size_t)lanes, sizeof *c);
    trace_source *s = calloc((size_t)lanes, sizeof *s);
    uint64_t *got = calloc((size_t)lanes, sizeof *got);
    int *ends = calloc((size_t)lanes, sizeof *ends);
    CHECK(c && s && got && ends);
    if (!c || !s || !got || !ends)
        goto out;
    for (int i = 0; i < lanes; i++)
        s[i] = counter_source(&c[i], n[i], fail_at[i]);
    CHECK_EQ_INT(trace_ahead_open(s, (size_t)lanes), 1);
    int open = lanes;
    uint64_t reads = 0;
    while (open > 0 && reads < stop_after) {
        int i = (int)(rnd() % (uint64_t)lanes);
        if (ends[i] >= 3)
            continue;
        if (!read_one(&s[i], &got[i], n[i], fail_at[i], i) && ++ends[i] == 3)
            open--;
        reads++;
    }
    for (int i = 0; i < lanes; i++) {
        if (stop_after == UINT64_MAX) {
            uint64_t want = fail_at[i] < n[i] ? fail_at[i] : n[i];
            CHECK_EQ_U64(got[i], want);
        }
        CHECK_EQ_INT(atomic_load(&c[i].closed), 0);
        s[i].close(s[i].ud);
    }
    for (int i = 0; i < lanes; i++) {
        CHECK_EQ_INT(atomic_load(&c[i].closed), 1);
        CHECK_EQ_INT(atomic_load(&c[i].called_after_close), 0);
    }
out:
    free(c);
    free(s);
    free(got);
    free(ends);
}

int main(void)
{
    rng_state = check_seed(20261205);
    const uint64_t none = UINT64_MAX;
    /* one lane: blocks are 4,096 jobs for a lone lane */
    const uint64_t lengths[] = {0, 1, 4095, 4096, 4097, 3 * 4096, 3 * 4096 + 1, 50000};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
        run_group(&lengths[k], &none, 1, UINT64_MAX);
    /* failures: at the first job, inside a block, at a block's edge */
    const uint64_t fails[] = {0, 17, 4096, 9000};
    for (size_t k = 0; k < sizeof fails / sizeof fails[0]; k++) {
        uint64_t n = 20000;
        run_group(&n, &fails[k], 1, UINT64_MAX);
    }
    /* many lanes (smaller blocks), some failing, some empty, interleaved */
    enum { L = 40 };
    uint64_t n[L], f[L];
    for (int i = 0; i < L; i++) {
        n[i] = rnd() % 3000;
        f[i] = i % 7 == 3 ? rnd() % 3000 : none;
    }
    n[0] = 0;
    run_group(n, f, L, UINT64_MAX);
    /* closed early: before any read, after a few, and partway */
    uint64_t big[3] = {1000000, 1000000, 1000000}, nf[3] = {none, none, none};
    run_group(big, nf, 3, 0);
    run_group(big, nf, 3, 5);
    run_group(big, nf, 3, 30000);
    /* no lanes: nothing to do */
    CHECK_EQ_INT(trace_ahead_open(NULL, 0), 0);
    return check_finish("test_ahead");
}
