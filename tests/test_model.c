/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_model.c — the fleet and workload model, one mechanism at a time, each
 * on a case small enough to work out by hand (the working is in the comments):
 *
 *  - a job that fits only one GPU type runs there, at that type's speed;
 *  - work and gang scaling: run time = work / (GPUs x e(GPUs));
 *  - a gang that spans nodes pays the span slowdown;
 *  - partition slices: seven 1-slice jobs share one H100, the eighth waits;
 *  - milli-GPU shares pack several jobs onto one GPU without exceeding it;
 *  - preemption loses exactly the work since the last checkpoint and pays the
 *    restart overhead (a priority policy written in this file, through the
 *    public placement API);
 *  - GPU failures: a lone job on a lone GPU, with exact identities between its
 *    busy time, lost time, restarts and repairs;
 *  - pools delivered and retired during the run;
 *  - GPU-time conservation and shape-blocked idle never exceeding idle;
 *  - random-stream purposes: one number per use of randomness.
 * Every run checks the engine's invariants after each event.
 */
#include "check.h"
#include "model/service_int.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

typedef struct rows {
    sim_job_row r[64];
    size_t n;
} rows;

static int keep_row(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    rows *k = ud;
    if (r->id >= 1 && r->id <= 64)
        k->r[r->id - 1] = *r;
    k->n++;
    return TM_OK;
}

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

static trace_job mk(double submit_s, uint32_t gpus, double dur_s)
{
    trace_job j;
    trace_job_defaults(&j);
    j.submit_us = (int64_t)llround(submit_s * 1e6);
    j.gpus = gpus;
    j.duration_us = (int64_t)llround(dur_s * 1e6);
    return j;
}

static int load(sim_scenario *sc, const char *json)
{
    tm_diag d;
    int rc = sim_scenario_load_text(sc, json, strlen(json), "test", &d);
    if (rc != TM_OK)
        fprintf(stderr, "scenario: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* Run sc on explicit jobs (or its own classes when jobs is NULL). */
static int run_jobs(const sim_scenario *sc, const trace_job *jobs, size_t n, rows *k,
                    sim_result *res, const place_policy *policy)
{
    for (size_t i = 0; i < n; i++)
        ((trace_job *)jobs)[i].id = i + 1;
    vec v = {jobs, n, 0};
    trace_source src = {vec_next, NULL, &v};
    sim_run_opts opts = {.check_invariants = 1, .policy_table = policy};
    if (jobs) {
        opts.sources = &src;
        opts.n_sources = 1;
    }
    memset(k, 0, sizeof *k);
    sim_sink sink = {keep_row, NULL, k};
    tm_diag d;
    int rc = sim_run(sc, &opts, &sink, res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "run: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

#define FLEET_2TYPES                                                                               \
    "\"fleet\":{\"pools\":[{\"name\":\"a100\",\"gpu_type\":\"A100-80GB\",\"nodes\":1,"             \
    "\"gpus_per_node\":8},{\"name\":\"l4\",\"gpu_type\":\"L4\",\"nodes\":1,\"gpus_per_node\":8}]}"

static void test_type_and_speed(void)
{
    /* A 40 GiB-per-GPU job cannot use an L4 (24 GiB): it runs on the A100, whose
     * compute speed relative to the H100 reference is 312 / 989 TFLOPS, so a job of
     * 1000 s at reference speed takes 1000 * 989 / 312 = 3169.87 s there. */
    const char *json = "{\"name\":\"t\",\"horizon\":\"1d\",\"stop\":\"drain\"," FLEET_2TYPES
                       ",\"workload\":{\"classes\":[{\"name\":\"c\",\"arrival\":{\"rate_per_s\":0},"
                       "\"duration\":1,\"gpu_mem_gib\":40}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    int a100 = sim_catalog_find(sc.types, sc.n_types, "A100-80GB");
    CHECK_NEAR(sc.classes[0].speed[a100], 312.0 / 989.0, 1e-6);
    trace_job j[2] = {mk(0, 4, 1000), mk(0, 4, 1000)};
    j[0].gpu_mem_mib = 40 * 1024;
    j[1].gpu_mem_mib = 0; /* the second fits anywhere: best placement by first-fit is node 0 */
    rows k;
    sim_result res;
    if (run_jobs(&sc, j, 2, &k, &res, NULL) == TM_OK) {
        CHECK_EQ_INT(k.r[0].gpu_type, a100);
        double want = 1000.0 * 989.0 / 312.0;
        CHECK_NEAR((double)k.r[0].run_us / 1e6, want, 1e-6);
        /* both on the A100 node (first fit, 4 + 4 GPUs), none on the L4 */
        CHECK_EQ_INT(k.r[1].gpu_type, a100);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);

    /* speeds given as a matrix override the derived ones */
    const char *json2 =
        "{\"name\":\"t\",\"horizon\":\"1d\",\"stop\":\"drain\"," FLEET_2TYPES
        ",\"workload\":{\"classes\":[{\"name\":\"c\",\"arrival\":{\"rate_per_s\":0},"
        "\"duration\":1,\"gpu_types\":[\"L4\"],\"speeds\":{\"L4\":0.25}}]}}";
    if (load(&sc, json2))
        return;
    trace_job m = mk(0, 2, 100);
    m.type_mask = sc.classes[0].type_mask;
    if (run_jobs(&sc, &m, 1, &k, &res, NULL) == TM_OK) {
        CHECK_NEAR((double)k.r[0].run_us / 1e6, 400.0, 1e-6);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

static void test_work_and_span(void)
{
    /* work mode: 8 GPU-hours of work on 4 GPUs with 0.9 efficiency per doubling:
     * e(4) = 0.81, run = 8 h / (4 x 0.81) = 2.469136 h on the H100 reference */
    const char *json =
        "{\"name\":\"w\",\"horizon\":\"2h\",\"seed\":5,\"stop\":\"drain\","
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":2,\"gpus_per_node\":8}]},"
        "\"workload\":{\"classes\":[{\"name\":\"w\",\"arrival\":{\"rate_per_hour\":1},"
        "\"gpus\":4,\"work_gpu_hours\":8,\"scaling_per_doubling\":0.9,\"max_jobs\":1},"
        "{\"name\":\"s\",\"arrival\":{\"rate_per_hour\":1},\"gpus\":16,\"duration\":\"1h\","
        "\"can_span\":true,\"span_slowdown\":1.5,\"max_jobs\":1}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    rows k;
    sim_result res;
    if (run_jobs(&sc, NULL, 0, &k, &res, NULL) == TM_OK) {
        CHECK(k.n == 2);
        for (size_t i = 0; i < 2; i++) {
            if (k.r[i].cls == 0) {
                CHECK_NEAR((double)k.r[i].run_us / 3.6e9, 8.0 / (4 * 0.81), 1e-6);
            } else {
                /* 16 GPUs on two 8-GPU nodes: spans, 1.5 x slower */
                CHECK_EQ_INT(k.r[i].n_nodes, 2);
                CHECK_NEAR((double)k.r[i].run_us / 3.6e9, 1.5, 1e-6);
            }
        }
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

static void test_slices_and_shares(void)
{
    /* an H100 splits into 7 slices: a 1-slice job gets floor(1000/7) = 142 milli-GPU
     * and 80/7 GiB; seven fill the GPU (994 milli), the eighth waits for one to end.
     * All eight arrive at t=0 and run 100 s: the eighth starts at 100 s. */
    const char *json =
        "{\"name\":\"mig\",\"horizon\":\"1d\",\"stop\":\"drain\","
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,\"gpus_per_node\":1}]},"
        "\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":{\"rate_per_s\":0},"
        "\"duration\":100,\"gpu_slices\":1,\"gpu_types\":[\"H100\"]}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    CHECK_EQ_INT(sc.classes[0].slices, 1);
    CHECK_NEAR(trace_dist_mean(&sc.classes[0].share_milli), 142, 0);
    trace_job j[8];
    for (int i = 0; i < 8; i++) {
        j[i] = mk(0, 1, 100);
        j[i].gpu_milli = 142;
        j[i].gpu_mem_mib = sc.classes[0].gpu_mem_mib;
    }
    rows k;
    sim_result res;
    if (run_jobs(&sc, j, 8, &k, &res, NULL) == TM_OK) {
        for (int i = 0; i < 7; i++)
            CHECK_EQ_INT(k.r[i].wait_us, 0);
        CHECK_EQ_INT(k.r[7].wait_us, 100000000);
        /* allocated GPU-time: 8 jobs x 0.142 GPU x 100 s */
        CHECK_NEAR(res.gpu_s_alloc, 8 * 0.142 * 100, 1e-9);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);

    /* milli shares with memory: on one 80 GiB GPU, 300 + 600 milli fit; a third of
     * 200 milli does not (only 100 left) and waits until the 300 one ends (50 s) */
    const char *json2 =
        "{\"name\":\"share\",\"horizon\":\"1d\",\"stop\":\"drain\","
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,\"gpus_per_node\":1}]},"
        "\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":{\"rate_per_s\":0},"
        "\"duration\":1}]}}";
    if (load(&sc, json2))
        return;
    trace_job s[3] = {mk(0, 1, 50), mk(0, 1, 200), mk(1, 1, 10)};
    s[0].gpu_milli = 300;
    s[1].gpu_milli = 600;
    s[2].gpu_milli = 200;
    if (run_jobs(&sc, s, 3, &k, &res, NULL) == TM_OK) {
        CHECK_EQ_INT(k.r[0].wait_us, 0);
        CHECK_EQ_INT(k.r[1].wait_us, 0);
        CHECK_EQ_INT(k.r[2].wait_us, 49000000);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* a priority-preempting policy, written against the public placement API    */

static int pp_create(const place_env *env, const char *args, void **state, char *err,
                     size_t err_len)
{
    (void)env;
    (void)args;
    (void)err;
    (void)err_len;
    *state = NULL;
    return PLACE_OK;
}

static void pp_destroy(void *state)
{
    (void)state;
}

/* Start waiting jobs in arrival order where they fit (first fit, whole GPUs);
 * when one does not fit and a running job of lower priority is preemptible,
 * preempt the one that would lose least, then try again. */
static int pp_decide(void *state, const place_view *v, place_decision *d)
{
    (void)state;
    const place_cluster *c = v->cluster;
    for (uint32_t i = 0; i < v->n_queue; i++) {
        const place_job *j = &v->queue[i];
        if (v->queue_state[i] != PLACE_Q_WAITING)
            continue;
        for (uint32_t t = 0; t < c->n_types; t++) {
            uint32_t n = place_cluster_next_free(c, t, j->gpus, 0);
            if (n != PLACE_NONE) {
                d->kind = PLACE_START;
                d->index = i;
                d->n_parts = 1;
                d->parts[0] =
                    (place_part){n, (uint16_t)j->gpus, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
                return PLACE_OK;
            }
        }
        uint32_t victim = PLACE_NONE;
        double least = 0;
        for (uint32_t r = 0; r < v->n_running; r++) {
            const place_running *run = &v->running[r];
            if (!(run->job.flags & PLACE_JOB_PREEMPTIBLE) || run->job.priority >= j->priority)
                continue;
            double lost = place_running_lost_gpu_s(run, v->now_us);
            if (victim == PLACE_NONE || lost < least) {
                victim = r;
                least = lost;
            }
        }
        if (victim != PLACE_NONE) {
            d->kind = PLACE_PREEMPT;
            d->index = victim;
            d->n_parts = 0;
            return PLACE_OK;
        }
    }
    return PLACE_DONE;
}

static const place_policy preempt_policy = {PLACE_ABI_VERSION,
                                            sizeof(place_policy),
                                            "test-priority-preempt",
                                            "for tests",
                                            pp_create,
                                            pp_destroy,
                                            NULL,
                                            pp_decide,
                                            NULL,
                                            NULL};

/* Priority, then arrival order; first fit; a job that does not fit is passed
 * over (no reservation). */
static int prio_decide(void *state, const place_view *v, place_decision *d)
{
    (void)state;
    const place_cluster *c = v->cluster;
    uint32_t best = PLACE_NONE, node = PLACE_NONE;
    for (uint32_t i = 0; i < v->n_queue; i++) {
        const place_job *j = &v->queue[i];
        if (v->queue_state[i] != PLACE_Q_WAITING ||
            (best != PLACE_NONE && j->priority <= v->queue[best].priority))
            continue;
        for (uint32_t t = 0; t < c->n_types; t++) {
            uint32_t n = place_cluster_next_free(c, t, j->gpus, 0);
            if (n != PLACE_NONE && (!j->type_mask || ((j->type_mask >> t) & 1u))) {
                best = i;
                node = n;
                break;
            }
        }
    }
    if (best == PLACE_NONE)
        return PLACE_DONE;
    d->kind = PLACE_START;
    d->index = best;
    d->n_parts = 1;
    d->parts[0] =
        (place_part){node, (uint16_t)v->queue[best].gpus, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    return PLACE_OK;
}

static const place_policy prio_policy = {PLACE_ABI_VERSION,
                                         sizeof(place_policy),
                                         "test-priority-greedy",
                                         "for tests",
                                         pp_create,
                                         pp_destroy,
                                         NULL,
                                         prio_decide,
                                         NULL,
                                         NULL};

static void test_preemption(void)
{
    /* One node of 8 GPUs. A: 8 GPUs, priority 0, preemptible, 10 h of work,
     * checkpoint every hour, restart overhead 6 min, at t = 0. B: 8 GPUs,
     * priority 5, 1 h, at t = 2.5 h. The policy preempts A at 2.5 h: A keeps 2 h
     * (two checkpoints) and loses 0.5 h. B runs 2.5 - 3.5 h. A restarts at 3.5 h,
     * pays 0.1 h of overhead and runs its remaining 8 h: it ends at 11.6 h.
     * A: busy 2.5 + 8 = 10.5 h x 8 GPUs = 84 GPU-h; lost 0.5 h of work + 0.1 h of
     * overhead = 0.6 h x 8 = 4.8 GPU-h; goodput 84 - 4 = 80 GPU-h = its work. */
    const char *json =
        "{\"name\":\"pre\",\"horizon\":\"1d\",\"stop\":\"drain\",\"sample\":\"1h\","
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,\"gpus_per_node\":"
        "8}]},\"workload\":{\"classes\":[{\"name\":\"c\",\"arrival\":{\"rate_per_s\":"
        "0},\"duration\":1,\"preemptible\":true,\"checkpoint\":\"1h\","
        "\"restart_overhead\":\"6m\"}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    trace_job j[2] = {mk(0, 8, 36000), mk(9000, 8, 3600)};
    j[0].flags = PLACE_JOB_PREEMPTIBLE;
    j[1].priority = 5;
    rows k;
    sim_result res;
    if (run_jobs(&sc, j, 2, &k, &res, &preempt_policy) == TM_OK) {
        const sim_job_row *a = &k.r[0], *b = &k.r[1];
        CHECK_EQ_INT(a->interruptions, 1);
        CHECK_EQ_INT(a->end_us, (int64_t)(11.6 * 3.6e9));
        CHECK_EQ_INT(b->start_us, 9000000000LL);
        CHECK_EQ_INT(b->end_us, 12600000000LL);
        CHECK_NEAR(a->busy_gpu_s / 3600, 84.0, 1e-9);
        CHECK_NEAR(a->lost_gpu_s / 3600, 4.8, 1e-9);
        CHECK_EQ_U64(res.preemptions, 1);
        CHECK_NEAR(res.classes[0].gpu_s_goodput / 3600, 80.0 + 8.0, 1e-9); /* A's 80 + B's 8 */
        CHECK_NEAR(res.classes[0].gpu_s_lost / 3600, 4.8, 1e-9);
        /* allocated = busy + overhead: 84 + 0.8 + B's 8 */
        CHECK_NEAR(res.gpu_s_alloc / 3600, 84.0 + 0.8 + 8.0, 1e-9);
        CHECK_NEAR(res.gpu_s_busy / 3600, 84.0 + 8.0, 1e-9);
        CHECK_NEAR(res.gpu_s_goodput / 3600, 88.0, 1e-9);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

static void test_failures(void)
{
    /* One GPU, one job of 20 h with checkpoints every 2 h and a 30 min restart
     * overhead; failures with a 5 h MTBF and a fixed 1 h repair. Whatever the
     * failure times, for k failures hitting it:
     *   busy (work done, lost work included)   = 20 h + lost work
     *   overhead paid = lost_gpu_s - lost work, at most k x 0.5 h (a failure can
     *   cut an overhead short; the next restart pays it again)
     *   end - start (nothing else to wait for)  = busy + overhead paid + k x 1 h
     *   each lost piece < one checkpoint interval: lost work < k x 2 h
     *   GPU-hours in service = end - (failures x 1 h): the GPU is out for each
     *   repair (failures only happen up to the horizon; all repaired by the end) */
    const char *json = "{\"name\":\"fail\",\"seed\":4,\"horizon\":\"1000d\",\"stop\":\"drain\","
                       "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,\"gpus_per_node\":"
                       "1}]},\"failures\":{\"mtbf_h\":5,\"repair\":\"1h\"},"
                       "\"workload\":{\"classes\":[{\"name\":\"c\",\"arrival\":{\"rate_per_s\":0},"
                       "\"duration\":1,\"checkpoint\":\"2h\",\"restart_overhead\":\"30m\"}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    trace_job j = mk(0, 1, 20 * 3600.0);
    rows k;
    sim_result res;
    if (run_jobs(&sc, &j, 1, &k, &res, NULL) == TM_OK) {
        const sim_job_row *a = &k.r[0];
        double n = a->interruptions, h = 3600;
        double lost_work = a->busy_gpu_s - 20 * h;
        printf("failures: %u interruptions, lost work %.3f h, %llu failures, %llu repairs\n",
               a->interruptions, lost_work / h, (unsigned long long)res.failures,
               (unsigned long long)res.repairs);
        CHECK(a->interruptions >= 2); /* 20 h of work against a 5 h MTBF */
        CHECK_EQ_INT(a->state, SIM_JOB_COMPLETED);
        CHECK(lost_work >= 0 && lost_work < n * 2 * h);
        double overhead = a->lost_gpu_s - lost_work;
        CHECK(overhead > 0 && overhead <= n * 0.5 * h + 1e-6);
        CHECK_NEAR((double)a->run_us / 1e6, a->busy_gpu_s + overhead + n * h, 1e-6);
        /* a failure of the idle GPU after the job ended does not interrupt it */
        CHECK(res.failures >= a->interruptions);
        CHECK_NEAR(res.gpu_s_up, (double)res.t_end_us / 1e6 - (double)res.failures * h,
                   1e-6 + (double)(res.failures - res.repairs) * h);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);

    /* without restarts, a killed job fails and is reported as such */
    const char *json2 = "{\"name\":\"fail\",\"seed\":4,\"horizon\":\"1000d\",\"stop\":\"drain\","
                        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,"
                        "\"gpus_per_node\":1}]},\"failures\":{\"mtbf_h\":5,\"repair\":\"1h\","
                        "\"restart\":false},\"workload\":{\"classes\":[{\"name\":\"c\","
                        "\"arrival\":{\"rate_per_s\":0},\"duration\":1}]}}";
    if (load(&sc, json2))
        return;
    if (run_jobs(&sc, &j, 1, &k, &res, NULL) == TM_OK) {
        CHECK_EQ_INT(k.r[0].state, SIM_JOB_FAILED);
        CHECK_EQ_U64(res.classes[0].failed, 1);
        CHECK_EQ_U64(res.classes[0].completed, 0);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

static void test_pools_over_time(void)
{
    /* pool a (8 GPUs) from the start; pool b (8 GPUs) delivered at 10 h, retired at
     * 30 h. A 16-GPU spanning job arriving at 1 h can start only at 10 h. Horizon
     * 40 h: GPU-hours in service = 8 x 40 + 8 x 20 = 480 (b's GPUs leave service at
     * 30 h: the job, 16 GPUs for 5 h, ended at 15 h). */
    const char *json = "{\"name\":\"grow\",\"horizon\":\"40h\",\"sample\":\"1h\","
                       "\"fleet\":{\"pools\":[{\"name\":\"a\",\"gpu_type\":\"H100\",\"nodes\":1},"
                       "{\"name\":\"b\",\"gpu_type\":\"H100\",\"nodes\":1,\"delivered\":\"10h\","
                       "\"retired\":\"30h\"}]},\"workload\":{\"classes\":[{\"name\":\"c\","
                       "\"arrival\":{\"rate_per_s\":0},\"duration\":1,\"can_span\":true}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    trace_job j = mk(3600, 16, 5 * 3600.0);
    j.flags = PLACE_JOB_CAN_SPAN;
    rows k;
    sim_result res;
    if (run_jobs(&sc, &j, 1, &k, &res, NULL) == TM_OK) {
        CHECK_EQ_INT(k.r[0].start_us, 10 * 3600000000LL);
        CHECK_NEAR(res.gpu_s_up / 3600, 480, 1e-9);
        CHECK_NEAR(res.pools[1].up / 3600, 160, 1e-9);
        CHECK_NEAR(res.gpu_s_alloc / 3600, 80, 1e-9);
        /* while the job waited (1 h to 10 h) its 8 free GPUs were shape-blocked: the
         * gang needs 16 and the type had only 8 free (gang), for 9 h */
        CHECK_NEAR(res.gpu_s_blocked[SIM_BLOCK_GANG] / 3600, 8 * 9, 1e-9);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

static void test_conservation(void)
{
    /* a busy mixed run with every mechanism on: the per-run accounting (class
     * totals) and the time integrals (levels) are computed independently and must
     * agree; shape-blocked idle never exceeds idle */
    const char *json =
        "{\"name\":\"mix\",\"seed\":9,\"horizon\":\"10d\","
        "\"tenants\":[{\"name\":\"a\",\"share\":2},{\"name\":\"b\"}],"
        "\"failures\":{\"mtbf_h\":2000,\"repair\":\"2h\"},"
        "\"fleet\":{\"pools\":[{\"name\":\"h\",\"gpu_type\":\"H100\",\"nodes\":4},"
        "{\"name\":\"l\",\"gpu_type\":\"L40S\",\"nodes\":4,\"gpus_per_node\":4}]},"
        "\"workload\":{\"classes\":["
        "{\"name\":\"train\",\"kind\":\"training\",\"arrival\":{\"offered_load\":0.4},"
        "\"gpus\":{\"dist\":\"discrete\",\"values\":[4,8,16]}},"
        "{\"name\":\"ft\",\"kind\":\"fine-tuning\",\"arrival\":{\"offered_load\":0.2}},"
        "{\"name\":\"emb\",\"kind\":\"embedding\",\"arrival\":{\"offered_load\":0.1}},"
        "{\"name\":\"eval\",\"kind\":\"evaluation\",\"arrival\":{\"offered_load\":0.1}}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    rows k;
    sim_result res;
    if (run_jobs(&sc, NULL, 0, &k, &res, NULL) == TM_OK) {
        const sim_class_result *all = &res.classes[res.n_classes];
        CHECK(all->completed > 100);
        CHECK(res.failures > 0);
        CHECK_NEAR(all->gpu_s_alloc, res.gpu_s_alloc, 1e-6 * res.gpu_s_alloc);
        CHECK_NEAR(all->gpu_s_busy, res.gpu_s_busy, 1e-6 * res.gpu_s_busy);
        CHECK_NEAR(all->gpu_s_goodput, res.gpu_s_goodput, 1e-6 * res.gpu_s_busy);
        double blocked = 0, pools_up = 0, types_up = 0;
        for (int r = 0; r < SIM_BLOCK_COUNT; r++)
            blocked += res.gpu_s_blocked[r];
        CHECK(blocked <= res.gpu_s_idle * (1 + 1e-9));
        for (size_t p = 0; p < res.n_pools; p++)
            pools_up += res.pools[p].up;
        for (size_t t = 0; t < res.n_types; t++)
            types_up += res.types[t].up;
        CHECK_NEAR(pools_up, res.gpu_s_up, 1e-6 * res.gpu_s_up);
        CHECK_NEAR(types_up, res.gpu_s_up, 1e-6 * res.gpu_s_up);
        CHECK(res.gpu_s_busy <= res.gpu_s_alloc * (1 + 1e-9));
        CHECK(res.gpu_s_goodput <= res.gpu_s_busy * (1 + 1e-9));
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

/* bins of one service's levels */
typedef struct svc_bins {
    const sim_scenario *sc;
    double ready[64 * 60];
    size_t n;
} svc_bins;

static int keep_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    (void)diag;
    svc_bins *k = ud;
    if (k->n < sizeof k->ready / sizeof k->ready[0])
        k->ready[k->n++] = b->avg[sim_level_service(k->sc, 0, SIM_LV_S_READY)];
    return TM_OK;
}

static void test_service_step(void)
{
    /* A Llama 3.1 8B service on one 8-GPU H100 node (preset: 3,400 output tokens/s
     * per 1-GPU replica at the SLO), 200 output tokens per request, target
     * utilisation 0.7, loading 5 min. The load is 10 req/s for hours 0-11 of each
     * day and 40 req/s for hours 12-23 (a daily profile of 1 and 4).
     * Desired replicas: ceil(10 x 200 / (0.7 x 3400)) = 1, ceil(40 x 200 / 2380) = 4.
     * At 12:00 three more are requested, placed at once (GPUs are free), ready at
     * 12:05: until then the one replica's SLO capacity lambda_max(1) is all there
     * is, so (40 - lambda_max(1)) x 300 s requests go to the API, and nothing else
     * ever does. The run starts warm: the first replica is ready at t = 0. */
    const char *json =
        "{\"name\":\"svc\",\"horizon\":\"1d\",\"sample\":\"1m\","
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1}]},"
        "\"workload\":{\"services\":[{\"name\":\"chat\",\"preset\":\"llama-3.1-8b-fp8\","
        "\"tokens_in\":1000,\"tokens_out\":200,\"overflow\":\"api\","
        "\"api_price\":{\"input_usd_per_mtok\":0.18,\"output_usd_per_mtok\":0.18},"
        "\"autoscale\":{\"min\":1,\"max\":8,\"target_util\":0.7,\"scale_up_delay\":\"5m\"},"
        "\"load\":{\"rate_per_s\":10,\"daily\":[1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4]}"
        "}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    svc_bins bins;
    memset(&bins, 0, sizeof bins);
    bins.sc = &sc;
    sim_sink sink = {NULL, keep_bin, &bins};
    sim_run_opts opts = {.check_invariants = 1};
    sim_result res;
    tm_diag d;
    int rc = sim_run(&sc, &opts, &sink, &res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "run: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc != TM_OK) {
        sim_scenario_fini(&sc);
        return;
    }
    const sim_service_result *r = &res.services[0];
    /* one ready replica until 12:05 (bins of 1 min: index 724 is 12:04-12:05), four after */
    CHECK_NEAR(bins.ready[0], 1, 1e-9);
    CHECK_NEAR(bins.ready[719], 1, 1e-9);
    CHECK_NEAR(bins.ready[724], 1, 1e-9);
    CHECK_NEAR(bins.ready[725], 4, 1e-9);
    CHECK_NEAR(bins.ready[1439], 4, 1e-9);
    CHECK_EQ_INT(r->ready_max, 4);
    CHECK_EQ_U64(r->replicas_started, 4);
    /* demand: 12 h at 10/s + 12 h at 40/s, exactly (expected counts) */
    CHECK_NEAR(r->req_demanded, 12 * 3600.0 * 10 + 12 * 3600.0 * 40, 1e-6);
    CHECK_NEAR(r->req_demanded, r->req_slo_ok + r->req_late + r->req_unserved + r->req_api, 1e-6);
    /* the API got exactly the excess over one replica's SLO capacity while loading */
    sim__svc_pool one;
    uint32_t ready[PLACE_MAX_TYPES] = {0};
    ready[sim_catalog_find(sc.types, sc.n_types, "H100")] = 1;
    CHECK_EQ_INT(sim__svc_pool_init(&one, &sc.services[0].cfg, ready, sc.n_types, &d), TM_OK);
    double want_api = (40 - one.slo_cap_req_per_s) * 300;
    printf("service: one replica serves %.3f req/s within the SLO; %.1f requests to the API, "
           "want %.1f; attainment %.6f\n",
           one.slo_cap_req_per_s, r->req_api, want_api, r->attainment);
    CHECK(one.slo_cap_req_per_s > 10 && one.slo_cap_req_per_s < 40);
    CHECK_NEAR(r->req_api, want_api, 1e-6 * want_api);
    CHECK_NEAR(r->tok_out_api, 200 * r->req_api, 1e-6 * r->tok_out_api);
    CHECK_NEAR(r->api_usd, (r->tok_in_api + r->tok_out_api) / 1e6 * 0.18, 1e-9);
    /* replica-hours: 1 replica for 24 h, 3 more from 12:05 (ready) */
    CHECK_NEAR(r->replica_hours_ready, 24 + 3 * (12 - 5.0 / 60), 1e-9);
    CHECK_NEAR(r->replica_hours_loading, 3 * 5.0 / 60, 1e-9); /* the first is warm at t = 0 */
    /* busy GPU-time is the utilisation of the ready replicas, below allocation */
    CHECK(r->gpu_hours_busy > 0 && r->gpu_hours_busy < r->gpu_hours_alloc);
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
}

static void test_specialization(void)
{
    /* A 70B service on 2-GPU replicas (preset tp2: 1,728 tokens/s per replica on
     * H100) switches at 12 h to an 8B model on 1 GPU (3,400 tokens/s). At 20 req/s
     * of 200 output tokens: ceil(4000 / (0.7 x 1728)) = 4 replicas x 2 GPUs = 8
     * GPUs before; ceil(4000 / 2380) = 2 replicas x 1 GPU = 2 GPUs after. A batch
     * class that always has work waiting (1-GPU jobs of 10 min at 0.05/s: twice the fleet)
     * takes the freed GPUs: the others' mean allocation rises by the GPUs freed.
     * The policy puts the replicas (priority 100) ahead of the batch jobs: under
     * plain FIFO the new model's replicas would wait behind every queued job. */
    const char *json =
        "{\"name\":\"spec\",\"horizon\":\"1d\",\"seed\":3,"
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":2}]},"
        "\"workload\":{\"classes\":[{\"name\":\"batch\",\"arrival\":{\"rate_per_s\":0.05},"
        "\"duration\":\"10m\"}],"
        "\"services\":[{\"name\":\"chat\",\"preset\":\"llama-3.1-70b-fp8-tp2\","
        "\"tokens_out\":200,\"autoscale\":{\"scale_up_delay\":0},\"priority\":100,"
        "\"load\":{\"rate_per_s\":20},"
        "\"specialize\":{\"at\":\"12h\",\"preset\":\"llama-3.1-8b-fp8\"}}]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    CHECK_EQ_INT(sc.services[0].cfg.replica_gpus, 2);
    CHECK_EQ_INT(sc.services[0].special.replica_gpus, 1);
    sim_run_opts opts = {.policy_table = &prio_policy};
    sim_result res;
    tm_diag d;
    int rc = sim_run(&sc, &opts, NULL, &res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "run: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        const sim_service_result *r = &res.services[0];
        printf("specialization: service %.2f -> %.2f GPUs, others %.2f -> %.2f GPUs\n",
               r->gpus_before, r->gpus_after, r->others_before, r->others_after);
        CHECK_NEAR(r->special_at_s, 12 * 3600, 1e-9);
        /* the service's replicas are placed before batch jobs (priority) */
        CHECK_NEAR(r->gpus_before, 8, 0.01);
        CHECK_NEAR(r->gpus_after, 2, 0.01);
        /* the fleet is full of batch work the whole time: it reclaims the 6 GPUs */
        CHECK_NEAR(r->others_before, 16 - 8, 0.05);
        CHECK_NEAR(r->others_after, 16 - 2, 0.05);
        /* the report: the autoscaler's sizing for 20 req/s from 12 h to the
         * horizon (24 h), when the service stops: 8 GPUs under the old model,
         * 2 under the new, 12 h each */
        const sim_service_special *p = &r->special;
        printf("specialization report: old %.3f new %.3f freed %.3f service %.3f others %.3f "
               "capacity %.3f reclaimed %.3f GPU-h\n",
               p->old_gpu_h, p->new_gpu_h, p->freed_gpu_h, p->service_gpu_h, p->others_gpu_h,
               p->capacity_gpu_h, p->reclaimed_gpu_h);
        CHECK_NEAR(p->old_gpu_h, 8 * 12, 1e-9);
        CHECK_NEAR(p->new_gpu_h, 2 * 12, 1e-9);
        CHECK_NEAR(p->freed_gpu_h, 6 * 12, 1e-9);
        /* the window's GPU-hours split: service + others <= capacity */
        CHECK(p->service_gpu_h + p->others_gpu_h <= p->capacity_gpu_h + 1e-6);
        CHECK_NEAR(p->service_gpu_h, 2 * 12, 0.05);
        /* batch work was always waiting: it took (nearly) all the freed GPU-time,
         * and never more than was freed */
        CHECK(p->reclaimed_gpu_h <= p->freed_gpu_h);
        CHECK(p->reclaimed_gpu_h > 0.97 * p->freed_gpu_h);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);

    /* The same switch with almost no batch work (one 10-minute job an hour):
     * the same GPUs are freed and nothing takes them. */
    char idle[2048];
    const char *at = strstr(json, "0.05");
    snprintf(idle, sizeof idle, "%.*s0.0003%s", (int)(at - json), json, at + 4);
    if (load(&sc, idle))
        return;
    rc = sim_run(&sc, &opts, NULL, &res, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        const sim_service_special *p = &res.services[0].special;
        printf("specialization, idle fleet: freed %.3f reclaimed %.3f GPU-h\n", p->freed_gpu_h,
               p->reclaimed_gpu_h);
        CHECK_NEAR(p->freed_gpu_h, 6 * 12, 1e-9);
        CHECK_NEAR(p->reclaimed_gpu_h, 0, 1e-9);
        sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
}

/* The random-stream purposes (model.h, SIM_STREAMS). Two uses with one
 * purpose number draw from the same seeds, silently correlated: the packing
 * experiment's shuffle once shared 5 with the share stream. The table lists
 * its lines in increasing number (append-only, hence distinct), its names are
 * distinct and look themselves up, and every purpose the code passes to
 * sim_rng_new or sim_rng_seed is a distinct number. */
static void test_stream_purposes(void)
{
    static const struct {
        uint32_t number;
        const char *name;
    } table[] = {
#define ROW_(id, number, name, index) {number, name},
        SIM_STREAMS(ROW_)
#undef ROW_
    };
    size_t n = sizeof table / sizeof table[0];
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            CHECK_EQ_U64(table[i].number, 1);
        else if (table[i].number <= table[i - 1].number)
            check_fail(__FILE__, __LINE__, "purpose %s: got number %u, want above %s's %u",
                       table[i].name, table[i].number, table[i - 1].name, table[i - 1].number);
        CHECK_STR(sim_stream_name(table[i].number), table[i].name);
        CHECK(sim_stream_index(table[i].number) != NULL);
        for (size_t k = 0; k < i; k++)
            if (strcmp(table[i].name, table[k].name) == 0)
                check_fail(__FILE__, __LINE__, "purpose name %s: lines %zu and %zu", table[i].name,
                           k, i);
    }
    CHECK(sim_stream_name(0) == NULL);
    CHECK(sim_stream_name(table[n - 1].number + 1) == NULL);

    /* the purposes in use: engine.c, workload.c, pack.c, sweep.c, cmd_place.c */
    static const struct {
        uint32_t number;
        const char *use;
    } used[] = {
        {SIM_STREAM_ARRIVALS, "arrivals"}, {SIM_STREAM_GPUS, "gpus"},
        {SIM_STREAM_DURATION, "duration"}, {SIM_STREAM_POLICY, "policy"},
        {SIM_STREAM_SHARE, "share"},       {SIM_STREAM_ESTIMATE, "estimate"},
        {SIM_STREAM_TENANT, "tenant"},     {SIM_STREAM_FAILURES, "failures"},
        {SIM_STREAM_REPAIR, "repair"},     {SIM_STREAM_PACK_ORDER, "pack-order"},
    };
    size_t n_used = sizeof used / sizeof used[0];
    for (size_t i = 0; i < n_used; i++) {
        CHECK_STR(sim_stream_name(used[i].number), used[i].use);
        for (size_t k = 0; k < i; k++)
            if (used[i].number == used[k].number)
                check_fail(__FILE__, __LINE__, "streams %s and %s: both purpose %u", used[k].use,
                           used[i].use, used[i].number);
    }
}

/* The streams' generator (rng.c, sim_rng_mt19937) against GSL's
 * gsl_rng_mt19937: from the same seed, the same words across several
 * twists, and so the same draws of every kind the engine makes (doubles,
 * integers, the inversions and rejection samplers built on them). Seeds: 0
 * (GSL's 4357), 4357 itself, the extremes of 32 bits, seeds with bits above
 * 32 (kept: the low 32; 2^32 is not 0, so not 4357), and streams' seeds. */
static void test_rng_words(void)
{
    const unsigned long seeds[] = {0,
                                   1,
                                   4357,
                                   0xffffffffUL,
                                   (unsigned long)0x100000000ULL,
                                   (unsigned long)0x123456789abcULL,
                                   sim_rng_seed(1, 0, SIM_STREAM_ARRIVALS, 0),
                                   sim_rng_seed(42, 3, SIM_STREAM_DURATION, 7)};
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        gsl_rng *a = gsl_rng_alloc(sim_rng_mt19937()), *b = gsl_rng_alloc(gsl_rng_mt19937);
        CHECK(a && b);
        gsl_rng_set(a, seeds[k]);
        gsl_rng_set(b, seeds[k]);
        CHECK_EQ_U64(gsl_rng_max(a), gsl_rng_max(b));
        CHECK_EQ_U64(gsl_rng_min(a), gsl_rng_min(b));
        size_t bad = 0;
        for (int i = 0; i < 5 * 624 + 17; i++) /* words, across five twists */
            bad += gsl_rng_get(a) != gsl_rng_get(b);
        for (int i = 0; i < 2000; i++) {
            bad += gsl_rng_uniform(a) != gsl_rng_uniform(b);
            bad += gsl_rng_uniform_pos(a) != gsl_rng_uniform_pos(b);
            bad += gsl_rng_uniform_int(a, 7 + (unsigned long)i) !=
                   gsl_rng_uniform_int(b, 7 + (unsigned long)i);
            bad += gsl_ran_exponential(a, 2.5) != gsl_ran_exponential(b, 2.5);
            bad += gsl_ran_gamma(a, 0.7, 1.3) != gsl_ran_gamma(b, 0.7, 1.3);
            bad += gsl_ran_lognormal(a, 0.1, 1.2) != gsl_ran_lognormal(b, 0.1, 1.2);
        }
        if (bad)
            check_fail(__FILE__, __LINE__, "seed %lu: %zu draws differ from GSL's mt19937",
                       seeds[k], bad);
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
    gsl_rng *r = sim_rng_new(1, 0, SIM_STREAM_ARRIVALS, 0);
    CHECK(r && r->type == sim_rng_mt19937());
    gsl_rng_free(r);
}

int main(void)
{
    check_seed(1);
    test_type_and_speed();
    test_work_and_span();
    test_slices_and_shares();
    test_preemption();
    test_failures();
    test_pools_over_time();
    test_conservation();
    test_service_step();
    test_specialization();
    test_stream_purposes();
    test_rng_words();
    return check_finish("test_model");
}
