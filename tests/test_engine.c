/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_engine.c — the engine against hand-worked cases and queueing theory.
 *
 *  - FIFO by hand: three jobs on one 4-GPU node, strict order and greedy,
 *    waits and GPU-time worked out on paper.
 *  - Rejection: a gang larger than any node is rejected with its reason.
 *  - M/M/c: Poisson arrivals, exponential service, c single-GPU servers, FIFO:
 *    the mean wait matches Erlang C within the 99.9 % Student-t interval of 10
 *    independent replications, at (c, rho) = (1, 0.5), (8, 0.8), (64, 0.95).
 *  - Little's law on the sample path: with the queue empty at both ends, the
 *    time integral of the queue length equals the sum of the waits, exactly.
 *  - Conservation: allocated GPU-time equals the sum over jobs of GPUs x run.
 *  - Determinism: the same scenario and seed give identical job rows and
 *    bins; another seed gives different ones.
 * Every run here checks the engine's invariants after each event.
 */
#include "check.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* a sink that keeps what the tests need                                      */

typedef struct collect {
    int64_t *wait_us; /* by job id - 1 */
    int64_t *run_us;
    int32_t *state;
    int32_t *reason;
    size_t cap;
    size_t rows, bins;
    double gpu_s;  /* sum of GPUs x run over rows */
    uint64_t hash; /* FNV-1a over every row and bin */
} collect;

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 1099511628211ull;
    }
}

static int collect_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    collect *c = ud;
    c->rows++;
    /* field by field: the struct has padding */
    uint64_t u[] = {r->id,
                    r->trace_id,
                    r->cls,
                    r->tenant,
                    r->gpus,
                    r->gpu_milli,
                    (uint64_t)r->state,
                    (uint64_t)r->reject_reason,
                    (uint64_t)r->gpu_type,
                    r->first_node,
                    r->n_nodes,
                    r->interruptions,
                    (uint64_t)r->submit_us,
                    (uint64_t)r->start_us,
                    (uint64_t)r->end_us,
                    (uint64_t)r->wait_us,
                    (uint64_t)r->run_us,
                    (uint64_t)r->deadline_us};
    hash_bytes(&c->hash, u, sizeof u);
    double d[] = {r->busy_gpu_s, r->lost_gpu_s, r->value};
    hash_bytes(&c->hash, d, sizeof d);
    if (r->run_us > 0)
        c->gpu_s += (double)r->gpus * r->gpu_milli / 1000.0 * (double)r->run_us / 1e6;
    if (r->id >= 1 && r->id <= c->cap) {
        c->wait_us[r->id - 1] = r->wait_us;
        c->run_us[r->id - 1] = r->run_us;
        c->state[r->id - 1] = r->state;
        c->reason[r->id - 1] = r->reject_reason;
    }
    return TM_OK;
}

static int collect_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    (void)diag;
    collect *c = ud;
    c->bins++;
    int64_t t[] = {b->t0_us,
                   b->t1_us,
                   (int64_t)b->arrivals,
                   (int64_t)b->starts,
                   (int64_t)b->completions,
                   (int64_t)b->preemptions,
                   (int64_t)b->failures};
    hash_bytes(&c->hash, t, sizeof t);
    hash_bytes(&c->hash, b->avg, b->n_avg * sizeof *b->avg);
    hash_bytes(&c->hash, &b->lost_gpu_s, sizeof b->lost_gpu_s);
    return TM_OK;
}

static void collect_init(collect *c, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->cap = cap;
    c->wait_us = calloc(cap, sizeof *c->wait_us);
    c->run_us = calloc(cap, sizeof *c->run_us);
    c->state = calloc(cap, sizeof *c->state);
    c->reason = calloc(cap, sizeof *c->reason);
    c->hash = 14695981039346656037ull;
}

static void collect_fini(collect *c)
{
    free(c->wait_us);
    free(c->run_us);
    free(c->state);
    free(c->reason);
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

static int run(const sim_scenario *sc, sim_run_opts *opts, collect *c, sim_result *res)
{
    sim_sink sink = {collect_job, collect_bin, c};
    tm_diag d;
    opts->check_invariants = 1;
    int rc = sim_run(sc, opts, &sink, res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "run: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* a source of explicit jobs                                                  */

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

static trace_job mk(uint64_t id, double submit_s, uint32_t gpus, double dur_s)
{
    trace_job j;
    trace_job_defaults(&j);
    j.id = id;
    j.submit_us = (int64_t)llround(submit_s * 1e6);
    j.gpus = gpus;
    j.duration_us = (int64_t)llround(dur_s * 1e6);
    return j;
}

#define ONE_NODE_4                                                                                 \
    "{\"name\":\"hand\",\"horizon\":\"1d\",\"stop\":\"drain\",\"sample\":\"1s\","                  \
    "\"policy\":\"%s\","                                                                           \
    "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,\"gpus_per_node\":4}]},"             \
    "\"workload\":{\"classes\":[{\"name\":\"c\",\"arrival\":{\"rate_per_s\":0},"                   \
    "\"duration\":1}]}}"

static void test_fifo_by_hand(void)
{
    /* t=0: 2 GPUs for 10 s; t=1: 4 GPUs for 5 s; t=2: 1 GPU for 1 s.
     * Strict FIFO: J1 0-10, J2 waits for the whole node: 10-15, J3 behind it: 15-16.
     * Greedy: J3 passes J2 and runs 2-3 on the two free GPUs; J2 still 10-15. */
    trace_job jobs[3] = {mk(1, 0, 2, 10), mk(2, 1, 4, 5), mk(3, 2, 1, 1)};
    const char *pol[2] = {"order=fifo placement=first-fit backfill=none",
                          "order=fifo placement=first-fit backfill=greedy"};
    int64_t want_wait[2][3] = {{0, 9000000, 13000000}, {0, 9000000, 0}};
    int64_t want_end[2] = {16000000, 15000000};
    for (int p = 0; p < 2; p++) {
        char json[1024];
        snprintf(json, sizeof json, ONE_NODE_4, pol[p]);
        sim_scenario sc;
        if (load(&sc, json))
            return;
        vec v = {jobs, 3, 0};
        trace_source src = {vec_next, NULL, &v};
        sim_run_opts opts = {.sources = &src, .n_sources = 1};
        collect c;
        collect_init(&c, 3);
        sim_result res;
        if (run(&sc, &opts, &c, &res) == TM_OK) {
            for (int k = 0; k < 3; k++) {
                CHECK_EQ_INT(c.wait_us[k], want_wait[p][k]);
                CHECK_EQ_INT(c.state[k], SIM_JOB_COMPLETED);
            }
            CHECK_EQ_INT(res.t_end_us, want_end[p]);
            /* 2 x 10 + 4 x 5 + 1 x 1 = 41 GPU-s, whatever the order */
            CHECK_NEAR(res.gpu_s_alloc, 41.0, 1e-9);
            CHECK_NEAR(c.gpu_s, 41.0, 1e-9);
            /* queue area = sum of waits: 22 s strict, 9 s greedy */
            double qa = res.queue_len_mean * (double)res.t_end_us / 1e6;
            CHECK_NEAR(qa, (double)(want_wait[p][1] + want_wait[p][2]) / 1e6, 1e-9);
            CHECK_NEAR(res.classes[0].wait_sum_s, qa, 1e-9);
            /* 4 GPUs in service for the whole run */
            CHECK_NEAR(res.gpu_s_up, 4.0 * (double)res.t_end_us / 1e6, 1e-9);
            CHECK_EQ_U64(res.classes[0].completed, 3);
            sim_result_fini(&res);
        }
        collect_fini(&c);
        sim_scenario_fini(&sc);
    }
}

static void test_rejection(void)
{
    const char *json =
        "{\"name\":\"rej\",\"horizon\":\"10h\",\"seed\":3,"
        "\"fleet\":{\"pools\":[{\"gpu_type\":\"L4\",\"nodes\":2,\"gpus_per_node\":8}]},"
        "\"workload\":{\"classes\":["
        "{\"name\":\"big\",\"arrival\":{\"rate_per_hour\":2},\"gpus\":16,\"duration\":\"1h\"},"
        "{\"name\":\"fat\",\"arrival\":{\"rate_per_hour\":2},\"gpus\":1,\"duration\":\"1h\","
        "\"gpu_mem_gib\":40},"
        "{\"name\":\"wrong\",\"arrival\":{\"rate_per_hour\":2},\"gpus\":1,\"duration\":\"1h\","
        "\"gpu_types\":[\"H100\"]},"
        "{\"name\":\"ok\",\"arrival\":{\"rate_per_hour\":2},\"gpus\":8,\"duration\":\"1h\"}"
        "]}}";
    sim_scenario sc;
    if (load(&sc, json))
        return;
    sim_run_opts opts = {0};
    collect c;
    collect_init(&c, 10000);
    sim_result res;
    if (run(&sc, &opts, &c, &res) == TM_OK) {
        /* every job of the first three classes is rejected, none of the last */
        CHECK(res.classes[0].arrived > 5);
        CHECK_EQ_U64(res.classes[0].rejected, res.classes[0].arrived);
        CHECK_EQ_U64(res.classes[1].rejected, res.classes[1].arrived);
        CHECK_EQ_U64(res.classes[2].rejected, res.classes[2].arrived);
        CHECK_EQ_U64(res.classes[3].rejected, 0);
        CHECK(res.classes[3].started > 0);
        int seen[4] = {0};
        for (size_t i = 0; i < c.rows && i < c.cap; i++)
            if (c.state[i] == SIM_JOB_REJECTED && c.reason[i] >= 0 && c.reason[i] < 4)
                seen[c.reason[i]]++;
        CHECK(seen[SIM_REJECT_GANG] > 0);
        CHECK(seen[SIM_REJECT_MEMORY] > 0);
        CHECK(seen[SIM_REJECT_TYPE] > 0);
        CHECK_EQ_U64((uint64_t)(seen[1] + seen[2] + seen[3]),
                     res.classes[0].arrived + res.classes[1].arrived + res.classes[2].arrived);
        sim_result_fini(&res);
    }
    collect_fini(&c);
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* M/M/c                                                                      */

/* Erlang C: probability an arrival waits, for c servers at offered load a = lambda/mu. */
static double erlang_c(int c, double a)
{
    double b = 1.0; /* Erlang B by its recursion */
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    double rho = a / c;
    return b / (1.0 - rho * (1.0 - b));
}

/* R independent replications (their own random streams) of n jobs each; the
 * first 10 % of each is dropped as warm-up. The replication means are
 * independent, so their spread gives an honest standard error. */
static void test_mmc(int c, double rho, size_t n_jobs, uint32_t reps, uint64_t seed)
{
    /* service mean 1 s, so mu = 1 and lambda = rho c */
    double lambda = rho * c;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\":\"mmc\",\"seed\":%llu,\"horizon\":\"10000d\",\"stop\":\"drain\","
             "\"sample\":\"1d\",\"policy\":\"order=fifo placement=first-fit\","
             "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":%d,\"gpus_per_node\":1}]},"
             "\"workload\":{\"classes\":[{\"name\":\"q\",\"arrival\":{\"rate_per_s\":%.17g},"
             "\"duration\":{\"dist\":\"exponential\",\"mean\":1},\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, c, lambda, n_jobs);
    sim_scenario sc;
    if (load(&sc, json))
        return;
    double want = erlang_c(c, lambda) / (c - lambda); /* Wq = C(c, a) / (c mu - lambda) */
    double mean = 0, m2 = 0;
    collect col;
    collect_init(&col, n_jobs);
    for (uint32_t r = 0; r < reps; r++) {
        sim_run_opts opts = {.replication = r};
        sim_result res;
        sim_sink sink = {collect_job, collect_bin, &col};
        tm_diag d;
        /* no invariant checks here: millions of events; the hand cases cover them */
        int rc = sim_run(&sc, &opts, &sink, &res, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc != TM_OK)
            break;
        CHECK_EQ_U64(res.classes[0].completed, n_jobs);
        size_t skip = n_jobs / 10;
        double s = 0;
        for (size_t k = skip; k < n_jobs; k++)
            s += (double)col.wait_us[k] / 1e6;
        double rm = s / (double)(n_jobs - skip);
        double delta = rm - mean;
        mean += delta / (double)(r + 1);
        m2 += delta * (rm - mean);
        /* Little's law on the sample path (empty at start and end): exact */
        double qa = res.queue_len_mean * (double)res.t_end_us / 1e6;
        CHECK_NEAR(qa, res.classes[0].wait_sum_s, 1e-9 * (1 + qa));
        /* L = lambda W with the arrival rate of the run: the same identity, from
         * the time-average queue and the per-job mean */
        double lam_hat = (double)n_jobs / ((double)res.t_end_us / 1e6);
        CHECK_NEAR(res.queue_len_mean, lam_hat * res.classes[0].wait_mean_s,
                   1e-9 * (1 + res.queue_len_mean));
        /* utilization of c servers is rho (they are the only GPUs) */
        CHECK_NEAR(res.alloc_util, rho, 0.02);
        /* conservation: allocated GPU-time = sum of GPUs x run over the jobs */
        CHECK_NEAR(res.gpu_s_alloc, col.gpu_s, 1e-9 * col.gpu_s);
        col.gpu_s = 0;
        sim_result_fini(&res);
    }
    double se = sqrt(m2 / (double)(reps - 1) / (double)reps);
    printf("M/M/%d rho=%.2f: mean wait %.5f s, Erlang C %.5f s, SE %.5f s "
           "(%u replications of %zu jobs, seed %llu)\n",
           c, rho, mean, want, se, reps, n_jobs, (unsigned long long)seed);
    /* 4.8 SE: Student t with 9 degrees of freedom at two-sided 0.001 is 4.78 */
    CHECK_NEAR(mean, want, 4.8 * se);
    /* and the estimate is sharp enough for the comparison to mean something */
    CHECK(se < 0.04 * want);
    collect_fini(&col);
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* determinism                                                                */

static uint64_t run_hash(uint64_t seed, size_t *rows)
{
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_load_default(&sc, &d), TM_OK);
    sc.seed = seed;
    sim_run_opts opts = {0};
    collect c;
    collect_init(&c, 1);
    sim_result res;
    uint64_t h = 0;
    if (run(&sc, &opts, &c, &res) == TM_OK) {
        h = c.hash;
        hash_bytes(&h, &res.events, sizeof res.events);
        hash_bytes(&h, &res.gpu_s_alloc, sizeof res.gpu_s_alloc);
        *rows = c.rows;
        sim_result_fini(&res);
    }
    collect_fini(&c);
    sim_scenario_fini(&sc);
    return h;
}

static void test_determinism(void)
{
    size_t r1 = 0, r2 = 0, r3 = 0;
    uint64_t a = run_hash(7, &r1), b = run_hash(7, &r2), c = run_hash(8, &r3);
    CHECK(r1 > 100);
    CHECK_EQ_U64(a, b);
    CHECK_EQ_U64(r1, r2);
    CHECK(a != c);
}

int main(void)
{
    check_seed(1);
    test_fifo_by_hand();
    test_rejection();
    test_determinism();
    test_mmc(1, 0.5, 50000, 10, 11);
    test_mmc(8, 0.8, 100000, 10, 12);
    test_mmc(64, 0.95, 400000, 10, 13);
    return check_finish("test_engine");
}
