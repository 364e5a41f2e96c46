/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ledger.c — the return on each installed GPU: useful work in reference
 * GPU-hours, work_util and value_util (docs/output.md, "Useful work").
 *
 *   work_exact        one job, hand-worked: on a type twice as fast as the
 *                     reference it runs half as long, is busy half the
 *                     GPU-hours and does the same reference work; work_util
 *                     exceeds 1 when the fast GPUs are all the fleet does
 *   work_lost         a preempted job's work since its last checkpoint is not
 *                     useful work, and repeated work is not counted twice:
 *                     a completed job's work is its reference size, however
 *                     often it ran
 *   hetero            a heterogeneity-aware placement and first-fit on a
 *                     fleet of slow and fast GPUs, same jobs: the same work
 *                     in fewer GPU-hours; first-fit ranks higher on busy and
 *                     goodput utilization, hetero on work_util
 *   filler            filling idle GPUs with value-0 jobs raises busy
 *                     utilization and work_util but not value_util
 *
 * The GPU-hour ledger:
 *   ledger_hand       a fleet with a pool delivered late and retired early,
 *                     strict FIFO, a gang that waits for GPUs, a GPU share:
 *                     every bucket of the fleet, each pool and each consumer
 *                     worked out by hand in GPU-minutes
 *   ledger_examples   every example scenario (the .json files of scenarios/) and the
 *                     embedded default: the buckets of the fleet, of each pool
 *                     and of each consumer add up to the owned GPU-time to
 *                     the microsecond, and agree with the figures the engine
 *                     keeps otherwise (allocated, busy, lost, goodput,
 *                     shape-blocked idle, services' GPU-hours); and
 *                     tests/ledger_mix.json, where all but two buckets are
 *                     filled, with the ledger checked after every event
 */
#include "check.h"

#include "config/config.h"
#include "model/model.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(sim_scenario *sc, const char *json)
{
    tm_diag d;
    int rc = sim_scenario_load_text(sc, json, strlen(json), "test", &d);
    if (rc != TM_OK)
        fprintf(stderr, "scenario: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* Job rows, kept for the per-job checks. */
typedef struct rows {
    sim_job_row r[64];
    size_t n;
} rows;

static int keep_job(void *ud, const sim_job_row *row, tm_diag *diag)
{
    (void)diag;
    rows *k = ud;
    if (k->n < 64)
        k->r[k->n++] = *row;
    return TM_OK;
}

static double gpu_min(sim_gpu_area a)
{
    return (double)a / (1000.0 * 60 * 1e6);
}

/* A source of explicit jobs. */
typedef struct vec {
    const trace_job *jobs;
    size_t n, i;
} vec;

static int vec_next(void *ud, trace_job *job, tm_diag *diag)
{
    (void)diag;
    vec *v = ud;
    if (v->i == v->n)
        return TRACE_END;
    *job = v->jobs[v->i++];
    return TM_OK;
}

static trace_job mk(uint32_t cls, double submit_s, uint32_t gpus, double dur_s)
{
    trace_job j;
    trace_job_defaults(&j);
    j.id = cls + 1;
    j.cls = cls;
    j.submit_us = (int64_t)llround(submit_s * 1e6);
    j.gpus = gpus;
    j.duration_us = (int64_t)llround(dur_s * 1e6);
    return j;
}

/* Run sc under `policy` (NULL: its own), with jobs[0..n) instead of its
 * synthesized classes when jobs is not NULL; rows into k when not NULL. */
static int run_jobs(const sim_scenario *sc, const char *policy, const trace_job *jobs, size_t n,
                    rows *k, sim_result *res)
{
    sim_scenario s2 = *sc; /* shallow: only the policy differs */
    if (policy)
        snprintf(s2.policy, sizeof s2.policy, "%s", policy);
    sim_sink sink = {keep_job, NULL, k};
    vec v = {jobs, n, 0};
    trace_source src = {vec_next, NULL, &v};
    sim_run_opts opts = {.check_invariants = 1};
    if (jobs) {
        opts.sources = &src;
        opts.n_sources = 1;
    }
    tm_diag d;
    int rc = sim_run(&s2, &opts, k ? &sink : NULL, res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "run: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

static int run(const sim_scenario *sc, const char *policy, sim_result *res)
{
    return run_jobs(sc, policy, NULL, 0, NULL, res);
}

/* ------------------------------------------------------------------------- */

static const char fast_json[] =
    "{\"name\": \"fast\", \"horizon\": \"10h\", \"stop\": \"drain\",\n"
    " \"fleet\": {\"pools\": [{\"name\": \"b200\", \"gpu_type\": \"B200\", \"nodes\": 1}]},\n"
    " \"workload\": {\"classes\": [{\"name\": \"one\", \"arrival\": {\"rate_per_s\": 0},\n"
    "   \"duration\": \"1h\", \"speeds\": {\"B200\": 2}}]}}";

static void test_work_exact(void)
{
    sim_scenario sc;
    if (load(&sc, fast_json) != TM_OK)
        return;
    trace_job jobs[1] = {mk(0, 0, 8, 3600)};
    rows k = {.n = 0};
    sim_result r;
    if (run_jobs(&sc, NULL, jobs, 1, &k, &r) == TM_OK) {
        const sim_class_result *c = &r.classes[0];
        CHECK_EQ_INT(c->completed, 1);
        CHECK_EQ_INT(r.t_end_us, 1800 * SIM_US_PER_S);   /* half an hour at speed 2 */
        CHECK_NEAR(c->gpu_s_busy / 3600, 4.0, 1e-9);     /* 8 GPUs x 0.5 h */
        CHECK_NEAR(c->work_ref_gpu_s / 3600, 8.0, 1e-9); /* 8 GPUs x 1 h on the reference */
        CHECK_NEAR(c->value_work_ref_gpu_s / 3600, 8.0, 1e-9);
        CHECK_NEAR(r.gpu_s_owned / 3600, 4.0, 1e-9);
        CHECK_NEAR(r.work_util, 2.0, 1e-9); /* above 1: faster than the reference */
        CHECK_NEAR(r.busy_util, 1.0, 1e-9);
        CHECK_NEAR(r.pools[0].work_ref / 3600, 8.0, 1e-9);
        CHECK_NEAR(r.tenants[0].work_ref_gpu_s / 3600, 8.0, 1e-9);
        CHECK_EQ_INT(k.n, 1);
        CHECK_NEAR(k.r[0].work_ref_gpu_s, 8 * 3600.0, 1e-6);
        sim_result_fini(&r);
    }
    sim_scenario_fini(&sc);
}

/* A low-priority job is preempted 40 minutes into its run (checkpoints every
 * 30 minutes: 10 minutes lost) by a high-priority one that takes the node for
 * an hour; then it resumes and finishes. Its work is its size, once. */
static const char lost_json[] =
    "{\"name\": \"lost\", \"horizon\": \"10h\", \"stop\": \"drain\",\n"
    " \"policy\": \"order=priority placement=first-fit preempt=priority\",\n"
    " \"fleet\": {\"pools\": [{\"name\": \"h100\", \"gpu_type\": \"H100\", \"nodes\": 1}]},\n"
    " \"workload\": {\"classes\": [\n"
    "  {\"name\": \"low\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": \"2h\",\n"
    "   \"checkpoint\": \"30m\", \"restart_overhead\": \"0s\"},\n"
    "  {\"name\": \"high\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": \"1h\"}]}}";

static void test_work_lost(void)
{
    sim_scenario sc;
    if (load(&sc, lost_json) != TM_OK)
        return;
    trace_job jobs[2] = {mk(0, 0, 8, 7200), mk(1, 2400, 8, 3600)};
    jobs[0].flags |= TRACE_JOB_PREEMPTIBLE;
    jobs[0].priority = 0;
    jobs[1].priority = 5;
    sim_result r;
    if (run_jobs(&sc, NULL, jobs, 2, NULL, &r) == TM_OK) {
        const sim_class_result *low = &r.classes[0], *high = &r.classes[1];
        CHECK_EQ_INT(low->preemptions, 1);
        CHECK_EQ_INT(low->completed, 1);
        /* low: busy 40 min + 90 min afterwards (2 h - the 30 min kept) */
        CHECK_NEAR(low->gpu_s_busy / 3600, 8 * (40 + 90) / 60.0, 1e-9);
        CHECK_NEAR(low->gpu_s_lost / 3600, 8 * 10 / 60.0, 1e-9);
        CHECK_NEAR(low->work_ref_gpu_s / 3600, 16.0, 1e-9); /* its size, once */
        CHECK_NEAR(high->work_ref_gpu_s / 3600, 8.0, 1e-9);
        CHECK_NEAR(r.work_ref_gpu_s / 3600, 24.0, 1e-9);
        /* on the reference type, useful work = goodput */
        CHECK_NEAR(r.work_ref_gpu_s, r.gpu_s_goodput, 1e-6);
        /* the ledger: 10 min x 8 GPUs lost, the rest useful; 8 GPUs x 3 h 10 min owned */
        CHECK_NEAR(gpu_min(r.ledger.a[SIM_LEDGER_LOST]), 80.0, 1e-9);
        CHECK_NEAR(gpu_min(r.ledger.a[SIM_LEDGER_USEFUL_VALUED]), 8.0 * 180, 1e-9);
        CHECK_NEAR(gpu_min(r.ledger_consumers[0].a[SIM_LEDGER_LOST]), 80.0, 1e-9);
        CHECK(r.owned_area == (sim_gpu_area)8 * 1000 * r.t_end_us);
        CHECK_EQ_INT(r.t_end_us, 190 * 60 * SIM_US_PER_S);
        sim_result_fini(&r);
    }
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* A fleet of two slow nodes (listed first: first-fit uses them) and two fast
 * ones; 8-GPU jobs of 1 h on the reference, arriving one every 2 h or so. */
static const char hetero_json[] =
    "{\"name\": \"hetero\", \"seed\": 7, \"horizon\": \"3d\", \"stop\": \"drain\",\n"
    " \"fleet\": {\"pools\": [\n"
    "   {\"name\": \"slow\", \"gpu_type\": \"A100-80GB\", \"nodes\": 2},\n"
    "   {\"name\": \"fast\", \"gpu_type\": \"H100\", \"nodes\": 2}]},\n"
    " \"workload\": {\"classes\": [{\"name\": \"train\", \"arrival\": {\"rate_per_s\": 0.000139},\n"
    "   \"gpus\": 8, \"duration\": \"1h\", \"speeds\": {\"H100\": 1, \"A100-80GB\": 0.4}}]}}";

static void test_hetero(void)
{
    sim_scenario sc;
    if (load(&sc, hetero_json) != TM_OK)
        return;
    sim_result ff, he;
    if (run(&sc, "order=fifo placement=first-fit", &ff) == TM_OK) {
        if (run(&sc, "order=fifo placement=hetero", &he) == TM_OK) {
            const sim_class_result *a = &ff.classes[1], *b = &he.classes[1];
            CHECK(a->completed > 20);
            CHECK_EQ_INT(a->completed, b->completed);
            CHECK_EQ_INT(a->completed, a->arrived);
            /* the same work, in fewer GPU-hours */
            CHECK_NEAR(b->work_ref_gpu_s, a->work_ref_gpu_s, 1e-6);
            CHECK_NEAR(a->work_ref_gpu_s / 3600, 8.0 * (double)a->completed, 1e-6);
            CHECK(b->gpu_s_busy < 0.6 * a->gpu_s_busy);
            /* the GPU-time figures rank first-fit higher, work_util hetero */
            CHECK(ff.busy_util > he.busy_util);
            CHECK(ff.goodput_util > he.goodput_util);
            CHECK(he.work_util > ff.work_util);
            CHECK(he.value_util > ff.value_util);
            printf("hetero: busy_util first-fit %.4f hetero %.4f; work_util first-fit %.4f hetero "
                   "%.4f\n",
                   ff.busy_util, he.busy_util, ff.work_util, he.work_util);
            sim_result_fini(&he);
        }
        sim_result_fini(&ff);
    }
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* Valued jobs leave GPUs idle; the same scenario with a class of value-0
 * jobs (after it, so the valued jobs' streams are the same) fills them. The
 * filler is preemptible and of low priority, so the valued jobs are served
 * as before. */
static const char valued_json[] =
    "{\"name\": \"valued\", \"seed\": 3, \"horizon\": \"5d\",\n"
    " \"policy\": \"order=priority placement=best-fit preempt=priority\",\n"
    " \"fleet\": {\"pools\": [{\"name\": \"h100\", \"gpu_type\": \"H100\", \"nodes\": 4}]},\n"
    " \"workload\": {\"classes\": [\n"
    "  {\"name\": \"prod\", \"arrival\": {\"rate_per_s\": 0.0005}, \"gpus\": 4,\n"
    "   \"duration\": \"1h\", \"priority\": 10, \"value\": 1}%s]}}";
static const char filler_class[] =
    ",\n  {\"name\": \"filler\", \"arrival\": {\"rate_per_s\": 0.002}, \"gpus\": 2,\n"
    "   \"duration\": \"1h\", \"priority\": 0, \"value\": 0, \"preemptible\": true,\n"
    "   \"checkpoint\": \"10m\"}";

static void test_filler(void)
{
    char a_json[2048], b_json[2048];
    snprintf(a_json, sizeof a_json, valued_json, "");
    snprintf(b_json, sizeof b_json, valued_json, filler_class);
    sim_scenario sa, sb;
    if (load(&sa, a_json) != TM_OK)
        return;
    if (load(&sb, b_json) != TM_OK) {
        sim_scenario_fini(&sa);
        return;
    }
    sim_result ra, rb;
    if (run(&sa, NULL, &ra) == TM_OK) {
        if (run(&sb, NULL, &rb) == TM_OK) {
            CHECK_EQ_INT(ra.classes[0].arrived, rb.classes[0].arrived);
            CHECK(rb.classes[1].completed > 0);
            CHECK(rb.busy_util > ra.busy_util + 0.2);
            CHECK(rb.work_util > ra.work_util + 0.2);
            CHECK(rb.value_util <= ra.value_util + 1e-12);
            CHECK_NEAR(rb.classes[1].value_work_ref_gpu_s, 0.0, 0.0);
            printf("filler: busy_util %.4f -> %.4f, work_util %.4f -> %.4f, value_util %.4f -> "
                   "%.4f\n",
                   ra.busy_util, rb.busy_util, ra.work_util, rb.work_util, ra.value_util,
                   rb.value_util);
            sim_result_fini(&rb);
        }
        sim_result_fini(&ra);
    }
    sim_scenario_fini(&sa);
    sim_scenario_fini(&sb);
}

/* ------------------------------------------------------------------------- */
/* the ledger by hand                                                         */

/* Pool a: 4 H100s from the start; pool b: 4 H100s delivered at 1 h and
 * retired at 3 h; strict FIFO, first-fit; 4 h. In minutes:
 *   J1 class 0,  4 GPUs, arrives 0, runs 0-120 on a
 *   J2 class 0,  2 GPUs, arrives 30: nothing free (a full, b not delivered)
 *                until b comes at 60; runs 60-120 on b
 *   J3 class 1,  4 GPUs, value 0, arrives 90: b has 2 free, too few for the
 *                gang (wait_gang, 90-120); runs 120-150 on a
 *   J4 class 2,  half a GPU, arrives 190, runs 190-210 on a
 *   J5 class 2,  4 GPUs, arrives 195: a has 3 whole GPUs free (gang) and
 *                half of one (share), b is retired; runs 210-220 on a */
static const char hand_json[] =
    "{\"name\": \"ledger-hand\", \"horizon\": \"4h\", \"sample\": \"10m\",\n"
    " \"policy\": \"order=fifo placement=first-fit backfill=none\",\n"
    " \"fleet\": {\"pools\": [\n"
    "   {\"name\": \"a\", \"gpu_type\": \"H100\", \"nodes\": 1, \"gpus_per_node\": 4},\n"
    "   {\"name\": \"b\", \"gpu_type\": \"H100\", \"nodes\": 1, \"gpus_per_node\": 4,\n"
    "    \"delivered\": \"1h\", \"retired\": \"3h\"}]},\n"
    " \"workload\": {\"classes\": [\n"
    "   {\"name\": \"c0\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": 1},\n"
    "   {\"name\": \"c1\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": 1},\n"
    "   {\"name\": \"c2\", \"arrival\": {\"rate_per_s\": 0}, \"duration\": 1}]}}";

static void test_ledger_hand(void)
{
    sim_scenario sc;
    if (load(&sc, hand_json) != TM_OK)
        return;
    trace_job jobs[5] = {mk(0, 0, 4, 7200), mk(0, 1800, 2, 3600), mk(1, 5400, 4, 1800),
                         mk(2, 11400, 1, 1200), mk(2, 11700, 4, 600)};
    jobs[2].value = 0;
    jobs[3].gpu_milli = 500;
    for (int k = 0; k < 5; k++)
        jobs[k].id = (uint64_t)k + 1;
    sim_result r;
    if (run_jobs(&sc, NULL, jobs, 5, NULL, &r) == TM_OK) {
        CHECK_EQ_INT(r.classes[3].completed, 5);
        CHECK(r.owned_area == (sim_gpu_area)8 * 1000 * 4 * 3600 * SIM_US_PER_S);
        const double want_a[SIM_LEDGER_COUNT] = {
            [SIM_LEDGER_USEFUL_VALUED] = 480 + 2.5 + 7.5 + 40,
            [SIM_LEDGER_USEFUL_NO_VALUE] = 120,
            [SIM_LEDGER_IDLE] = 160 + 17.5 + 80,
            [SIM_LEDGER_WAIT_GANG] = 45,
            [SIM_LEDGER_WAIT_SHARE] = 7.5,
        };
        const double want_b[SIM_LEDGER_COUNT] = {
            [SIM_LEDGER_DOWN_UNDELIVERED] = 240, [SIM_LEDGER_USEFUL_VALUED] = 120,
            [SIM_LEDGER_IDLE] = 60 + 240,        [SIM_LEDGER_WAIT_GANG] = 60,
            [SIM_LEDGER_DOWN_RETIRED] = 240,
        };
        /* consumers: c0, c1, c2, none */
        const double want_c[4][SIM_LEDGER_COUNT] = {
            {[SIM_LEDGER_USEFUL_VALUED] = 480 + 120},
            {[SIM_LEDGER_USEFUL_NO_VALUE] = 120, [SIM_LEDGER_WAIT_GANG] = 60},
            {[SIM_LEDGER_USEFUL_VALUED] = 10 + 40,
             [SIM_LEDGER_WAIT_GANG] = 45,
             [SIM_LEDGER_WAIT_SHARE] = 7.5},
            {[SIM_LEDGER_IDLE] = 557.5,
             [SIM_LEDGER_DOWN_UNDELIVERED] = 240,
             [SIM_LEDGER_DOWN_RETIRED] = 240},
        };
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            double got_a = gpu_min(r.ledger_pools[0].a[b]), got_b = gpu_min(r.ledger_pools[1].a[b]);
            if (fabs(got_a - want_a[b]) > 1e-9 || fabs(got_b - want_b[b]) > 1e-9)
                check_fail(__FILE__, __LINE__,
                           "pool buckets %s: a %.9g (want %.9g), b %.9g (want %.9g)",
                           sim_ledger_key(b), got_a, want_a[b], got_b, want_b[b]);
            CHECK_NEAR(gpu_min(r.ledger.a[b]), want_a[b] + want_b[b], 1e-9);
            for (int k = 0; k < 4; k++)
                if (fabs(gpu_min(r.ledger_consumers[k].a[b]) - want_c[k][b]) > 1e-9)
                    check_fail(__FILE__, __LINE__, "consumer %d's %s: %.9g, want %.9g", k,
                               sim_ledger_key(b), gpu_min(r.ledger_consumers[k].a[b]),
                               want_c[k][b]);
        }
        /* the shape-blocked idle of the run is the ledger's gang */
        CHECK_NEAR(r.gpu_s_blocked[SIM_BLOCK_GANG] / 60, 105.0, 1e-9);
        sim_result_fini(&r);
    }
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* conservation on every example scenario                                     */

static sim_gpu_area sum_ledger(const sim_ledger *l)
{
    sim_gpu_area s = 0;
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        s += l->a[b];
    return s;
}

static double ledger_h(const sim_ledger *l, int b)
{
    return (double)l->a[b] / SIM_AREA_PER_GPU_HOUR;
}

static double group_h(const sim_ledger *l, int g)
{
    double h = 0;
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        if (sim_ledger_group_of(b) == g)
            h += ledger_h(l, b);
    return h;
}

/* Relative closeness for sums of GPU-hours kept as doubles elsewhere. */
#define CHECK_CLOSE(got, want) CHECK_NEAR((got), (want), 1e-6 * (1 + fabs((double)(want))))

static void check_conservation(const char *name, const sim_scenario *sc, const sim_result *r)
{
    printf("ledger %s: %.0f GPU-h owned, %zu pools, %zu consumers\n", name,
           (double)r->owned_area / SIM_AREA_PER_GPU_HOUR, sc->n_pools,
           sc->n_classes + sc->n_services + 1);
    /* to the microsecond: each pool's buckets are its GPUs x the run */
    sim_gpu_area owned = 0, pools = 0, cons = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        sim_gpu_area want =
            (sim_gpu_area)sc->pools[p].nodes * sc->pools[p].gpus_per_node * 1000 * r->t_end_us;
        CHECK(sum_ledger(&r->ledger_pools[p]) == want);
        owned += want;
        pools += sum_ledger(&r->ledger_pools[p]);
    }
    for (size_t k = 0; k < sc->n_classes + sc->n_services + 1; k++)
        cons += sum_ledger(&r->ledger_consumers[k]);
    CHECK(r->owned_area == owned);
    CHECK(sum_ledger(&r->ledger) == owned);
    CHECK(pools == owned);
    CHECK(cons == owned);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        CHECK(r->ledger.a[b] >= 0);
    CHECK_CLOSE(r->gpu_s_owned / 3600, (double)owned / SIM_AREA_PER_GPU_HOUR);
    /* the other figures of the run, from the same GPU-time */
    const sim_ledger *L = &r->ledger;
    double alloc = group_h(L, SIM_LEDGER_G_ALLOC) + group_h(L, SIM_LEDGER_G_LOST) +
                   group_h(L, SIM_LEDGER_G_USEFUL);
    CHECK_CLOSE(alloc, r->gpu_s_alloc / 3600);
    CHECK_CLOSE(group_h(L, SIM_LEDGER_G_USEFUL), r->gpu_s_goodput / 3600);
    double blocked = 0;
    for (int k = 0; k < SIM_BLOCK_COUNT; k++)
        blocked += r->gpu_s_blocked[k] / 3600;
    CHECK_CLOSE(group_h(L, SIM_LEDGER_G_WAIT) - ledger_h(L, SIM_LEDGER_WAIT_SHARE), blocked);
    CHECK_CLOSE(ledger_h(L, SIM_LEDGER_WAIT_BEHIND) + ledger_h(L, SIM_LEDGER_WAIT_HELD),
                r->gpu_s_blocked[SIM_BLOCK_ORDER] / 3600);
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_ledger *l = &r->ledger_consumers[c];
        const sim_class_result *cr = &r->classes[c];
        CHECK_CLOSE(ledger_h(l, SIM_LEDGER_RESTART) + ledger_h(l, SIM_LEDGER_LOST) +
                        group_h(l, SIM_LEDGER_G_USEFUL),
                    cr->gpu_s_alloc / 3600);
        CHECK_CLOSE(ledger_h(l, SIM_LEDGER_RESTART) + ledger_h(l, SIM_LEDGER_LOST),
                    cr->gpu_s_lost / 3600);
        CHECK_CLOSE(group_h(l, SIM_LEDGER_G_USEFUL), cr->gpu_s_goodput / 3600);
        CHECK(l->a[SIM_LEDGER_LOADING] == 0 && l->a[SIM_LEDGER_HEADROOM] == 0);
    }
    for (size_t v = 0; v < sc->n_services; v++) {
        const sim_ledger *l = &r->ledger_consumers[sc->n_classes + v];
        const sim_service_result *sv = &r->services[v];
        CHECK_CLOSE(ledger_h(l, SIM_LEDGER_LOADING) + ledger_h(l, SIM_LEDGER_HEADROOM) +
                        ledger_h(l, SIM_LEDGER_USEFUL_VALUED),
                    sv->gpu_hours_alloc);
        CHECK_CLOSE(ledger_h(l, SIM_LEDGER_USEFUL_VALUED), sv->gpu_hours_busy);
    }
    /* down GPUs and idle ones with nothing waiting are no consumer's, and
     * nothing else is */
    const sim_ledger *none = &r->ledger_consumers[sc->n_classes + sc->n_services];
    sim_gpu_area down_idle = L->a[SIM_LEDGER_IDLE];
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        if (sim_ledger_group_of(b) == SIM_LEDGER_G_DOWN)
            down_idle += L->a[b];
    CHECK(sum_ledger(none) == down_idle);
    CHECK(none->a[SIM_LEDGER_IDLE] == L->a[SIM_LEDGER_IDLE]);
}

static void run_example(const char *name, sim_scenario *sc, int check)
{
    sim_result r;
    sim_run_opts opts = {.check_invariants = check};
    tm_diag d;
    int rc = sim_run(sc, &opts, NULL, &r, &d);
    if (rc != TM_OK)
        fprintf(stderr, "%s: %s: %s\n", name, d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        check_conservation(name, sc, &r);
        sim_result_fini(&r);
    }
}

static void test_ledger_examples(void)
{
    tm_diag d;
    sim_scenario sc;
    CHECK_EQ_INT(sim_scenario_load_default(&sc, &d), TM_OK);
    run_example("(embedded default)", &sc, 0);
    sim_scenario_fini(&sc);
    const char *src = getenv("TARMAC_SRC");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/scenarios", src ? src : ".");
    DIR *dp = opendir(dir);
    CHECK(dp != NULL);
    if (!dp)
        return;
    /* in name order, so that a failure reads the same every time */
    char names[64][256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL && n < 64) {
        size_t len = strlen(de->d_name);
        if (len > 5 && len < 256 && strcmp(de->d_name + len - 5, ".json") == 0)
            snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    CHECK(n >= 4);
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (sim_scenario_load_file(&sc, path, &d) != TM_OK) {
            check_fail(__FILE__, __LINE__, "%s: %s: %s", path, d.where, d.msg);
            continue;
        }
        run_example(names[i], &sc, 0);
        sim_scenario_fini(&sc);
    }
    /* every bucket but two in a week, with the ledger checked after every
     * event (tests/ledger_mix.json says what is in it) */
    char path[4400];
    snprintf(path, sizeof path, "%s/tests/ledger_mix.json", src ? src : ".");
    if (sim_scenario_load_file(&sc, path, &d) != TM_OK) {
        check_fail(__FILE__, __LINE__, "%s: %s: %s", path, d.where, d.msg);
        return;
    }
    sim_result r;
    sim_run_opts opts = {.check_invariants = 1};
    if (sim_run(&sc, &opts, NULL, &r, &d) == TM_OK) {
        check_conservation("ledger_mix.json", &sc, &r);
        for (int b = 0; b < SIM_LEDGER_COUNT; b++)
            if (b != SIM_LEDGER_WAIT_MEMORY && b != SIM_LEDGER_WAIT_HOST && !(r.ledger.a[b] > 0))
                check_fail(__FILE__, __LINE__, "ledger_mix.json: %s is empty", sim_ledger_key(b));
        sim_result_fini(&r);
    } else {
        check_fail(__FILE__, __LINE__, "ledger_mix.json: %s: %s", d.where, d.msg);
    }
    sim_scenario_fini(&sc);
}

int main(void)
{
    test_work_exact();
    test_work_lost();
    test_hetero();
    test_filler();
    test_ledger_hand();
    test_ledger_examples();
    return check_finish("test_ledger");
}
