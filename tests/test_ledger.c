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
 */
#include "check.h"

#include "config/config.h"
#include "model/model.h"

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

int main(void)
{
    test_work_exact();
    test_work_lost();
    test_hetero();
    test_filler();
    return check_finish("test_ledger");
}
