/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_queueing.c — the engine and the placement core against queueing
 * results beyond Erlang C's mean (test_engine.c has M/M/c's mean wait,
 * Little's law and conservation):
 *
 *  - M/G/1, Pollaczek-Khinchine: Wq = lambda E[S^2] / (2 (1 - rho)), with
 *    constant (M/D/1), uniform and lognormal service: the wait depends on
 *    the service's second moment, not its mean alone.
 *  - M/M/c's waiting-time distribution: P(Wq > t) = C(c, a) e^-(c mu - lambda) t
 *    at several t, and its quantiles; the run's reported p95 and p99 against
 *    the exact nearest-rank quantiles of its own rows (the log-bucketed
 *    histogram's stated error, 1/256 relative).
 *  - Gangs that pack exactly: jobs of 2 GPUs on one node of 8 GPUs, and on
 *    four nodes of 2, are M/M/4 (Erlang C again, through the packing).
 *  - Relative speed: jobs at half the reference type's speed on their GPU
 *    type are an M/M/4 of half the service rate.
 *  - Non-preemptive priority, M/G/1 with classes (Cobham 1954):
 *    W_k = W0 / ((1 - s_(k-1)) (1 - s_k)), W0 = sum_i lambda_i E[S_i^2] / 2,
 *    s_k the load of classes 1..k (highest priority first), with
 *    `order=priority` and the classes' "priority".
 *  - Preemptive-resume priority, M/M/1 with two classes (`preempt=priority`,
 *    the low class preemptible with a checkpoint every microsecond): each
 *    class's mean time in the system against the textbook formula.
 *  - Deadlines on M/M/1: the fraction of jobs that end after their deadline
 *    against P(T > d) = e^-(mu - lambda) d (the engine's own counters).
 *  - Non-preemptive shortest job first with exact estimates (`order=sjf`) on
 *    three job sizes: Cobham's formula with the sizes as classes, shortest
 *    first (Phipps, "Machine repair as a priority waiting-line problem",
 *    Operations Research 4(1), 1956), equal sizes first come, first served.
 *
 * Each case runs R = 10 independent replications (their own random streams)
 * and keeps each one's jobs 10 % to 90 % in arrival order (the first as
 * warm-up; the last because with several classes, each with its own number
 * of jobs, one class's arrivals can end before another's); the replication means
 * are independent, so their spread is an honest standard error, and the
 * theory must lie within 4.8 of them (Student t, 9 degrees of freedom,
 * two-sided 0.001). Each case also asks that the estimate be sharp enough
 * for the comparison to mean something (a standard error below a few % of
 * the value). A discipline the engine got wrong (FIFO in place of priority
 * or SJF, a gang that did not pack, a wait measured from the wrong instant)
 * is many standard errors away in every case.
 */
#include "check.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { R = 10, MAXC = 4, MAXT = 4 };

/* ------------------------------------------------------------------------- */
/* a sink that keeps each job's class and wait                                */

typedef struct rows {
    size_t cap, n;
    int64_t *wait_us; /* by job id - 1; -1 never started */
    int64_t *resp_us; /* end - submit; -1 never ended */
    uint32_t *cls;
} rows;

static int rows_job(void *ud, const sim_job_row *r, tm_diag *diag)
{
    (void)diag;
    rows *c = ud;
    if (r->id >= 1 && r->id <= c->cap) {
        c->wait_us[r->id - 1] = r->start_us >= 0 ? r->wait_us : -1;
        c->resp_us[r->id - 1] = r->end_us >= 0 ? r->end_us - r->submit_us : -1;
        c->cls[r->id - 1] = r->cls;
        c->n++;
    }
    return TM_OK;
}

static int rows_bin(void *ud, const sim_bin_row *b, tm_diag *diag)
{
    (void)ud;
    (void)b;
    (void)diag;
    return TM_OK;
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

/* Mean and standard error of R replication values. */
typedef struct est {
    double mean, m2;
    uint32_t n;
} est;

static void est_add(est *e, double x)
{
    e->n++;
    double delta = x - e->mean;
    e->mean += delta / e->n;
    e->m2 += delta * (x - e->mean);
}

static double est_se(const est *e)
{
    return e->n > 1 ? sqrt(e->m2 / (e->n - 1) / e->n) : INFINITY;
}

/* The theory within 4.8 standard errors, and the estimate sharp: its
 * standard error below `sharp` of the value. */
static void compare(const char *name, const char *what, const est *e, double want, double sharp)
{
    double se = est_se(e);
    printf("%-34s %-22s %.5f (SE %.5f), theory %.5f: %+.2f SE\n", name, what, e->mean, se, want,
           se > 0 ? (e->mean - want) / se : 0.0);
    if (fabs(e->mean - want) > 4.8 * se)
        check_fail(__FILE__, __LINE__, "%s, %s: %.6f is %.1f SE from the theory's %.6f", name, what,
                   e->mean, (e->mean - want) / se, want);
    if (!(se < sharp * fabs(want)))
        check_fail(__FILE__, __LINE__, "%s, %s: SE %.6f is not below %.0f %% of %.6f", name, what,
                   se, 100 * sharp, want);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank q-quantile of n sorted values (metrics.c's rule). */
static double nearest_rank(const int64_t *v, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    if (k < 1)
        k = 1;
    return (double)v[k - 1];
}

/* A case: a scenario text, n jobs in all. Per
 * replication: each class's mean wait (s) over the jobs from 10 % to 90 %
 * in arrival order, and (tail != NULL) the fraction of those jobs waiting longer than
 * each of the tail's t (s). The reported p95 and p99 of class 0 are
 * checked against the run's own rows in every replication. */
typedef struct qcase {
    const char *name;
    const char *json;
    size_t n_jobs;
    uint32_t n_cls;
    double want[MAXC]; /* the theory's mean wait per class, s */
    double sharp;      /* the SE below this fraction of each value */
    int sojourn;       /* compare the mean time in the system (end - arrival), not the wait */
    const double *tail_t;
    const double *tail_want; /* P(Wq > t) */
    size_t n_tail;
} qcase;

static void run_case(const qcase *k)
{
    sim_scenario sc;
    if (load(&sc, k->json))
        return;
    rows c = {.cap = k->n_jobs};
    c.wait_us = malloc(k->n_jobs * sizeof *c.wait_us);
    c.resp_us = malloc(k->n_jobs * sizeof *c.resp_us);
    c.cls = malloc(k->n_jobs * sizeof *c.cls);
    int64_t *sorted = malloc(k->n_jobs * sizeof *sorted);
    CHECK(c.wait_us && c.resp_us && c.cls && sorted);
    est cls[MAXC] = {{0}}, tail[MAXT] = {{0}};
    for (uint32_t r = 0; r < R && c.wait_us && c.resp_us && c.cls && sorted; r++) {
        c.n = 0;
        sim_run_opts opts = {.replication = r};
        sim_result res;
        sim_sink sink = {rows_job, rows_bin, &c};
        tm_diag d;
        int rc = sim_run(&sc, &opts, &sink, &res, &d);
        if (rc != TM_OK)
            fprintf(stderr, "%s: %s: %s\n", k->name, d.where, d.msg);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc != TM_OK)
            break;
        CHECK_EQ_U64(c.n, k->n_jobs);
        size_t skip = k->n_jobs / 10, cnt[MAXC] = {0}, over[MAXT] = {0}, all = 0;
        double sum[MAXC] = {0};
        for (size_t j = skip; j < k->n_jobs - skip; j++) {
            CHECK(c.wait_us[j] >= 0 && c.resp_us[j] >= 0 && c.cls[j] < k->n_cls);
            if (c.wait_us[j] < 0 || c.resp_us[j] < 0 || c.cls[j] >= k->n_cls)
                continue;
            double w = (double)(k->sojourn ? c.resp_us[j] : c.wait_us[j]) / 1e6;
            sum[c.cls[j]] += w;
            cnt[c.cls[j]]++;
            all++;
            for (size_t i = 0; i < k->n_tail; i++)
                over[i] += w > k->tail_t[i];
        }
        for (uint32_t q = 0; q < k->n_cls; q++)
            est_add(&cls[q], cnt[q] ? sum[q] / (double)cnt[q] : NAN);
        for (size_t i = 0; i < k->n_tail; i++)
            est_add(&tail[i], (double)over[i] / (double)all);
        /* the reported quantiles of class 0 against its rows (every job, no
         * warm-up: the run's own figure) */
        size_t m = 0;
        for (size_t j = 0; j < k->n_jobs; j++)
            if (c.cls[j] == 0 && c.wait_us[j] >= 0)
                sorted[m++] = c.wait_us[j];
        qsort(sorted, m, sizeof *sorted, cmp_i64);
        const double qs[2] = {0.95, 0.99};
        const double got[2] = {res.classes[0].wait_p95_s, res.classes[0].wait_p99_s};
        for (int i = 0; i < 2; i++) {
            double exact = nearest_rank(sorted, m, qs[i]) / 1e6;
            if (fabs(got[i] - exact) > exact / 256 + 1e-6)
                check_fail(__FILE__, __LINE__,
                           "%s, replication %u: p%.0f %.6f s, the rows' nearest rank %.6f s",
                           k->name, r, 100 * qs[i], got[i], exact);
        }
        sim_result_fini(&res);
    }
    for (uint32_t q = 0; q < k->n_cls; q++) {
        char what[48];
        snprintf(what, sizeof what, "%s, class %u", k->sojourn ? "mean sojourn" : "mean wait", q);
        compare(k->name, what, &cls[q], k->want[q], k->sharp);
    }
    for (size_t i = 0; i < k->n_tail; i++) {
        char what[48];
        snprintf(what, sizeof what, "P(Wq > %.3g s)", k->tail_t[i]);
        compare(k->name, what, &tail[i], k->tail_want[i], k->sharp);
    }
    free(c.wait_us);
    free(c.resp_us);
    free(c.cls);
    free(sorted);
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* the theory                                                                 */

/* Erlang C: the probability an arrival waits, c servers, offered load a. */
static double erlang_c(int c, double a)
{
    double b = 1.0;
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    double rho = a / c;
    return b / (1.0 - rho * (1.0 - b));
}

/* Cobham's non-preemptive priority M/G/1: classes in priority order (0
 * first), arrival rates lam, service first and second moments s1, s2. */
static void cobham(size_t n, const double *lam, const double *s1, const double *s2, double *w)
{
    double w0 = 0;
    for (size_t i = 0; i < n; i++)
        w0 += lam[i] * s2[i] / 2;
    double sig = 0;
    for (size_t i = 0; i < n; i++) {
        double before = sig;
        sig += lam[i] * s1[i];
        w[i] = w0 / ((1 - before) * (1 - sig));
    }
}

#define SCEN_HEAD                                                                                  \
    "{\"name\":\"q\",\"seed\":%llu,\"horizon\":\"10000d\",\"stop\":\"drain\","                     \
    "\"sample\":\"1d\",\"policy\":\"order=%s placement=first-fit %s\","                            \
    "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":%d,\"gpus_per_node\":%d}]},"           \
    "\"workload\":{\"classes\":["

/* M/G/1 with the given service (a JSON distribution), mean s1 and second
 * moment s2, at utilization rho. */
static void test_pk(const char *name, const char *dist, double s1, double s2, double rho, size_t n,
                    uint64_t seed)
{
    char json[2048];
    double lam = rho / s1;
    snprintf(json, sizeof json,
             SCEN_HEAD "{\"name\":\"q\",\"arrival\":{\"rate_per_s\":%.17g},\"duration\":%s,"
                       "\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, "fifo", "backfill=none", 1, 1, lam, dist, n);
    qcase k = {.name = name, .json = json, .n_jobs = n, .n_cls = 1, .sharp = 0.04};
    k.want[0] = lam * s2 / (2 * (1 - rho));
    run_case(&k);
}

/* M/M/c's waiting-time tail, and the same queue made of gangs. */
static void test_mmc_tail(const char *name, int nodes, int gpus_per_node, int gpus, int c,
                          double rho, size_t n, uint64_t seed)
{
    char json[2048];
    double lam = rho * c; /* service mean 1 s */
    snprintf(json, sizeof json,
             SCEN_HEAD "{\"name\":\"q\",\"arrival\":{\"rate_per_s\":%.17g},\"gpus\":%d,"
                       "\"duration\":{\"dist\":\"exponential\",\"mean\":1},\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, "fifo", "backfill=none", nodes, gpus_per_node, lam, gpus, n);
    double pc = erlang_c(c, lam), gap = c - lam;
    /* P(Wq > t) = C e^(-(c mu - lambda) t), at the t where it is 1/2, 1/4
     * and 1/10 of C */
    double t[3], want[3];
    const double frac[3] = {0.5, 0.25, 0.1};
    for (int i = 0; i < 3; i++) {
        t[i] = log(1 / frac[i]) / gap;
        want[i] = pc * frac[i];
    }
    qcase k = {.name = name,
               .json = json,
               .n_jobs = n,
               .n_cls = 1,
               .sharp = 0.05,
               .tail_t = t,
               .tail_want = want,
               .n_tail = 3};
    k.want[0] = pc / gap;
    run_case(&k);
}

/* Speed: an M/M/4 of A100-80GB servers where the jobs run at half the
 * reference type's speed ("speeds"), so the service rate is mu = 1/2 for a
 * reference duration of mean 1 s: Erlang C at a = lambda / mu. */
static void test_speed(size_t n, uint64_t seed)
{
    const int c = 4;
    const double mu = 0.5, lam = 0.8 * c * mu;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\":\"q\",\"seed\":%llu,\"horizon\":\"10000d\",\"stop\":\"drain\","
             "\"sample\":\"1d\",\"policy\":\"order=fifo placement=first-fit backfill=none\","
             "\"fleet\":{\"pools\":[{\"gpu_type\":\"A100-80GB\",\"nodes\":%d,"
             "\"gpus_per_node\":1}]},\"workload\":{\"classes\":[{\"name\":\"q\","
             "\"arrival\":{\"rate_per_s\":%.17g},\"speeds\":{\"A100-80GB\":%.17g},"
             "\"duration\":{\"dist\":\"exponential\",\"mean\":1},\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, c, lam, mu, n);
    qcase k = {.name = "M/M/4 at half speed (Erlang C)", .json = json, .n_jobs = n, .n_cls = 1};
    k.sharp = 0.04;
    k.want[0] = erlang_c(c, lam / mu) / (c * mu - lam);
    run_case(&k);
}

/* Two priority classes on one server: "hi" (priority 10, exponential mean
 * 0.5 s) and "lo" (priority 0, constant 1.5 s). */
static void test_priority(size_t n, uint64_t seed)
{
    const double lam[2] = {0.6, 0.3}, s1[2] = {0.5, 1.5}, s2[2] = {2 * 0.25, 1.5 * 1.5};
    char json[2048];
    snprintf(json, sizeof json,
             SCEN_HEAD "{\"name\":\"hi\",\"priority\":10,\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"exponential\",\"mean\":0.5},\"max_jobs\":%zu},"
                       "{\"name\":\"lo\",\"priority\":0,\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"constant\",\"value\":1.5},\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, "priority", "backfill=none", 1, 1, lam[0],
             (size_t)(n * 2 / 3), lam[1], n - (size_t)(n * 2 / 3));
    qcase k = {.name = "priority M/G/1 (Cobham)", .json = json, .n_jobs = n, .n_cls = 2};
    k.sharp = 0.04;
    cobham(2, lam, s1, s2, k.want);
    run_case(&k);
}

/* Preemptive-resume priority on one server: "hi" (priority 10, exponential
 * mean 0.5 s, rho 0.3) stops "lo" (priority 0, preemptible, exponential mean
 * 1 s, rho 0.4), which resumes where it stopped (a checkpoint every
 * microsecond, no restart overhead). The mean time in the system of class
 * k (preemptive-resume priority, e.g. Harchol-Balter, Performance Modeling
 * and Design of Computer Systems, 2013, on preemptive priority): E[T_k] = E[S_k] / (1 - s_(k-1)) +
 * sum_(i<=k) lambda_i E[S_i^2] / 2 / ((1 - s_(k-1)) (1 - s_k)). The class "lo" is exponential, so
 * its mean does not depend on where a stopped job goes back in its class's queue. */
static void test_preemptive(size_t n, uint64_t seed)
{
    const double lam[2] = {0.6, 0.4}, s1[2] = {0.5, 1}, s2[2] = {2 * 0.25, 2};
    char json[2048];
    snprintf(json, sizeof json,
             SCEN_HEAD "{\"name\":\"hi\",\"priority\":10,\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"exponential\",\"mean\":0.5},\"max_jobs\":%zu},"
                       "{\"name\":\"lo\",\"priority\":0,\"preemptible\":true,"
                       "\"checkpoint\":0.000001,\"restart_overhead\":0,"
                       "\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"exponential\",\"mean\":1},\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, "priority", "preempt=priority", 1, 1, lam[0], n * 3 / 5,
             lam[1], n - n * 3 / 5);
    qcase k = {.name = "preemptive priority M/M/1", .json = json, .n_jobs = n, .n_cls = 2};
    k.sharp = 0.04;
    k.sojourn = 1;
    double r = 0, sig = 0;
    for (int i = 0; i < 2; i++) {
        double before = sig;
        sig += lam[i] * s1[i];
        r += lam[i] * s2[i] / 2;
        k.want[i] = s1[i] / (1 - before) + r / ((1 - before) * (1 - sig));
    }
    run_case(&k);
}

/* Deadlines on M/M/1 FIFO: the time in the system is exponential of rate
 * mu - lambda, so a job misses a deadline d after its arrival with
 * probability e^-(mu - lambda) d. The engine's own counters (deadline_met,
 * deadline_missed) are compared, over every job of each replication, at
 * rho 0.5 (the start from empty fades within seconds of 10^5). */
static void test_deadline(size_t n, uint64_t seed)
{
    const double lam = 0.5, d = log(4.0) / (1 - lam); /* P(miss) = 1/4 */
    char json[2048];
    snprintf(json, sizeof json,
             SCEN_HEAD "{\"name\":\"q\",\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"exponential\",\"mean\":1},"
                       "\"deadline\":%.17g,\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, "fifo", "backfill=none", 1, 1, lam, d, n);
    sim_scenario sc;
    if (load(&sc, json))
        return;
    est miss = {0};
    for (uint32_t r = 0; r < R; r++) {
        sim_run_opts opts = {.replication = r};
        sim_result res;
        tm_diag dg;
        int rc = sim_run(&sc, &opts, NULL, &res, &dg);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc != TM_OK)
            break;
        const sim_class_result *c = &res.classes[0];
        CHECK_EQ_U64(c->deadline_met + c->deadline_missed, n);
        est_add(&miss, (double)c->deadline_missed / (double)n);
        sim_result_fini(&res);
    }
    compare("deadlines on M/M/1", "P(T > d)", &miss, 0.25, 0.03);
    sim_scenario_fini(&sc);
}

/* Shortest job first on one server with exact estimates (the default):
 * service 0.5 s, 1.5 s or 4 s with weights 0.5, 0.3 and 0.2, at rho 0.8.
 * A Poisson stream whose jobs take a size at random is three independent
 * Poisson streams, one per size, so the scenario has a class per size and
 * the rows' class is the job's size: under SJF the sizes are Cobham's
 * priority classes, the shortest first. */
static void test_sjf(size_t n, uint64_t seed)
{
    const double x[3] = {0.5, 1.5, 4}, p[3] = {0.5, 0.3, 0.2};
    const double lam = 0.8 / 1.5; /* E[S] = 1.5 s */
    double lk[3], s2[3];
    for (int i = 0; i < 3; i++) {
        lk[i] = lam * p[i];
        s2[i] = x[i] * x[i];
    }
    size_t n0 = (size_t)((double)n * p[0]), n1 = (size_t)((double)n * p[1]);
    char json[2048];
    snprintf(json, sizeof json,
             SCEN_HEAD "{\"name\":\"s\",\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"constant\",\"value\":0.5},\"max_jobs\":%zu},"
                       "{\"name\":\"m\",\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"constant\",\"value\":1.5},\"max_jobs\":%zu},"
                       "{\"name\":\"l\",\"arrival\":{\"rate_per_s\":%.17g},"
                       "\"duration\":{\"dist\":\"constant\",\"value\":4},\"max_jobs\":%zu}]}}",
             (unsigned long long)seed, "sjf", "backfill=none", 1, 1, lk[0], n0, lk[1], n1, lk[2],
             n - n0 - n1);
    qcase k = {.name = "SJF M/G/1 (Phipps)", .json = json, .n_jobs = n, .n_cls = 3};
    k.sharp = 0.05;
    cobham(3, lk, x, s2, k.want);
    run_case(&k);
}

int main(void)
{
    /* M/G/1, Pollaczek-Khinchine; E[S^2] of U(a, b) is (a^2 + ab + b^2) / 3,
     * of a lognormal of mean m and sigma s, m^2 e^(s^2) */
    test_pk("M/D/1 (Pollaczek-Khinchine)", "{\"dist\":\"constant\",\"value\":1}", 1, 1, 0.8, 100000,
            21);
    test_pk("M/U/1 (Pollaczek-Khinchine)", "{\"dist\":\"uniform\",\"low\":0.5,\"high\":2.5}", 1.5,
            (0.25 + 1.25 + 6.25) / 3, 0.75, 100000, 22);
    test_pk("M/lognormal/1 (Pollaczek-Khinchine)",
            "{\"dist\":\"lognormal\",\"mean\":1,\"sigma\":0.8}", 1, exp(0.64), 0.6, 200000, 23);
    /* M/M/c's tail; then the same M/M/4 as 2-GPU gangs on one 8-GPU node
     * and on four 2-GPU nodes */
    test_mmc_tail("M/M/8 tail (Erlang C)", 8, 1, 1, 8, 0.85, 100000, 24);
    test_mmc_tail("M/M/4 as 2-GPU jobs on 1 x 8 GPUs", 1, 8, 2, 4, 0.8, 100000, 25);
    test_mmc_tail("M/M/4 as 2-GPU jobs on 4 x 2 GPUs", 4, 2, 2, 4, 0.8, 100000, 26);
    test_speed(100000, 31);
    test_priority(150000, 27);
    test_sjf(150000, 28);
    test_preemptive(150000, 40);
    test_deadline(100000, 30);
    return check_finish("test_queueing");
}
