/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_compare.c — the comparison of policies (sim/studies/compare.c).
 *
 *   test_compare            unit: the interval arithmetic against closed
 *                           forms; common random numbers (every policy sees
 *                           the same arrivals); two identical policies give a
 *                           difference of exactly zero with an interval that
 *                           contains it; the warm-up removes what it should.
 *   test_compare coverage   validation, slow: the 95 % intervals cover the
 *                           true mean of an M/M/1 queue at the nominal rate.
 *
 * The coverage case. M/M/1 with lambda = 0.5/s, mu = 1/s (rho = 0.5): the
 * mean wait in queue is Wq = rho / (mu - lambda) = 1 s, the mean queue length
 * Lq = rho^2 / (1 - rho) = 0.5 and the utilization rho. For each of N_SEEDS
 * seeds, a comparison of one policy with R replications gives a Student-t
 * interval for each; the count that contain the truth must be a plausible
 * Binomial(N_SEEDS, 0.95) draw (two-sided 99.9 % bounds from GSL's binomial
 * CDF), which rules out intervals that are too narrow and too wide alike.
 *
 * Bias. The queue starts empty; the warm-up removes that: M/M/1's relaxation
 * time is 1 / (mu (1 - sqrt(rho))^2) = 11.7 s, and the 500 s warm-up is 43 of
 * them, so what is left of the initial transient is of order e^-43. The mean
 * wait of a run is a ratio (sum of waits / number of jobs, ~2000 jobs), biased
 * by O(1/n), far below the interval half-width of ~8 %; runs drain after the
 * horizon, so no wait is censored. The test measures the
 * remaining bias from the grand mean of all N_SEEDS x R replications and
 * checks it is within 4 standard errors of zero, so "negligible" is a
 * measurement, not a claim.
 */
#include "check.h"
#include "studies/compare_int.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
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

static sim__cmp_policy policy(const char *label, const char *spec)
{
    sim__cmp_policy p;
    memset(&p, 0, sizeof p);
    snprintf(p.label, sizeof p.label, "%s", label);
    snprintf(p.spec, sizeof p.spec, "%s", spec);
    return p;
}

/* ------------------------------------------------------------------------- */
/* interval arithmetic                                                        */

static void test_intervals(void)
{
    /* Student t closed forms: 1 d.o.f. is Cauchy, t = tan(pi (p - 1/2));
     * 2 d.o.f.: F(t) = 1/2 + t / (2 sqrt(2 + t^2)), so t = a sqrt(2 / (1 - a^2))
     * with a = 2p - 1 */
    for (double conf = 0.5; conf < 0.999; conf += 0.05) {
        double p = 0.5 + conf / 2, a = 2 * p - 1;
        CHECK_NEAR(sim__t_quantile(conf, 2), tan(acos(-1.0) * (p - 0.5)), 1e-9);
        CHECK_NEAR(sim__t_quantile(conf, 3), a * sqrt(2 / (1 - a * a)), 1e-9);
    }
    CHECK(isnan(sim__t_quantile(0.95, 1)));
    /* many d.o.f.: the normal quantile */
    CHECK_NEAR(sim__t_quantile(0.95, 1000000), gsl_cdf_ugaussian_Pinv(0.975), 1e-5);

    /* mean, sd, interval of 1..4: mean 5/2, variance 5/3 */
    const double x[] = {1, 9, 2, 9, 3, 9, 4, 9}; /* stride 2 skips the 9s */
    double m, sd, lo, hi, t = 3.0;
    sim__stat_interval(x, 4, 2, t, &m, &sd, &lo, &hi);
    CHECK_NEAR(m, 2.5, 1e-12);
    CHECK_NEAR(sd, sqrt(5.0 / 3.0), 1e-12);
    CHECK_NEAR(hi - m, t * sqrt(5.0 / 3.0) / 2, 1e-12);
    CHECK_NEAR(m - lo, hi - m, 1e-12);
    /* constant values: zero width, exactly */
    const double k[] = {7, 7, 7};
    sim__stat_interval(k, 3, 1, 4.3, &m, &sd, &lo, &hi);
    CHECK(m == 7 && sd == 0 && lo == 7 && hi == 7);
    /* one value: no interval */
    sim__stat_interval(k, 1, 1, 4.3, &m, &sd, &lo, &hi);
    CHECK(m == 7 && isnan(sd) && isnan(lo) && isnan(hi));
    /* large values close together: no cancellation */
    const double big[] = {1e12 + 1, 1e12 + 2, 1e12 + 3};
    sim__stat_interval(big, 3, 1, 1, &m, &sd, &lo, &hi);
    CHECK_NEAR(sd, 1.0, 1e-6);
}

/* ------------------------------------------------------------------------- */
/* common random numbers, identical policies, warm-up                         */

#define SMALL                                                                                      \
    "{\"name\":\"small\",\"seed\":5,\"horizon\":\"4d\",\"sample\":\"1h\","                         \
    "\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":4,\"gpus_per_node\":8},"               \
    "{\"gpu_type\":\"L40S\",\"nodes\":4,\"gpus_per_node\":4}]},"                                   \
    "\"workload\":{\"classes\":["                                                                  \
    "{\"name\":\"big\",\"arrival\":{\"offered_load\":0.5},"                                        \
    "\"gpus\":{\"dist\":\"discrete\",\"values\":[2,4,8]},"                                         \
    "\"duration\":{\"dist\":\"lognormal\",\"mean\":\"3h\",\"sigma\":1},\"gpu_types\":[\"H100\"]}," \
    "{\"name\":\"small\",\"arrival\":{\"offered_load\":0.35},\"gpus\":1,"                          \
    "\"duration\":{\"dist\":\"exponential\",\"mean\":\"20m\"}}]}}"

static void test_crn_and_identical(void)
{
    sim_scenario sc;
    if (load(&sc, SMALL))
        return;
    sim__cmp_policy pol[3] = {
        policy("first", "fifo-first-fit"),
        policy("best", "order=fifo placement=best-fit backfill=none"),
        policy("first-again", "order=fifo placement=first-fit backfill=none"),
    };
    sim__cmp_opts o = {.replications = 4, .warmup_us = 12 * 3600 * SIM_US_PER_S};
    sim__cmp_result res;
    tm_diag d;
    int rc = sim__compare_run(&sc, pol, 3, &o, &res, &d);
    if (rc != TM_OK)
        fprintf(stderr, "compare: %s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        CHECK_EQ_U64(res.n_policies, 3);
        CHECK_NEAR(res.confidence, 0.95, 0);
        CHECK_NEAR(res.t_quantile, gsl_cdf_tdist_Pinv(0.975, 3), 1e-12);
        int differs = 0;
        for (uint32_t r = 0; r < 4; r++) {
            /* the same jobs arrive whatever the policy */
            double a0 = sim__cmp_value(&res, 0, r, SIM__CMP_ARRIVED);
            CHECK(a0 > 100);
            CHECK_NEAR(sim__cmp_value(&res, 1, r, SIM__CMP_ARRIVED), a0, 0);
            CHECK_NEAR(sim__cmp_value(&res, 2, r, SIM__CMP_ARRIVED), a0, 0);
            /* and the replications differ from each other */
            if (r && a0 != sim__cmp_value(&res, 0, 0, SIM__CMP_ARRIVED))
                differs = 1;
            /* a preset and its specification are the same policy: identical runs */
            for (size_t m = 0; m < SIM__CMP_N_METRICS; m++) {
                double v0 = sim__cmp_value(&res, 0, r, m), v2 = sim__cmp_value(&res, 2, r, m);
                CHECK(v0 == v2 || (isnan(v0) && isnan(v2)));
            }
            double u = sim__cmp_value(&res, 0, r, SIM__CMP_ALLOC_UTIL);
            CHECK(u > 0.2 && u < 1.0);
        }
        CHECK(differs);
        for (size_t m = 0; m < SIM__CMP_N_METRICS; m++) {
            const sim__cmp_stat *s2 = &res.stats[2 * SIM__CMP_N_METRICS + m];
            const sim__cmp_stat *s0 = &res.stats[0 * SIM__CMP_N_METRICS + m];
            CHECK_EQ_U64(s2->n, 4);
            CHECK(s2->d_mean == 0 && s2->d_sd == 0);
            CHECK(s2->d_lo <= 0 && s2->d_hi >= 0);
            CHECK(s0->d_mean == 0 && s0->d_lo == 0 && s0->d_hi == 0);
            /* the interval is mean +- t sd / sqrt(n) */
            if (isfinite(s2->sd))
                CHECK_NEAR(s2->ci_hi - s2->mean, res.t_quantile * s2->sd / 2,
                           1e-9 * (1 + fabs(s2->mean)));
        }
        /* arrivals are common, so their paired difference is exactly 0 too */
        const sim__cmp_stat *a1 = &res.stats[1 * SIM__CMP_N_METRICS + SIM__CMP_ARRIVED];
        CHECK(a1->d_mean == 0 && a1->d_lo == 0 && a1->d_hi == 0);
        sim__compare_fini(&res);
    }

    /* the warm-up removes jobs: fewer arrivals counted with a longer one, and
     * exactly the same jobs as with no warm-up minus those before it */
    sim__cmp_opts o0 = {.replications = 2, .warmup_us = 0};
    sim__cmp_opts o2 = {.replications = 2, .warmup_us = 2 * 86400 * SIM_US_PER_S};
    sim__cmp_result r0, r2;
    if (sim__compare_run(&sc, pol, 1, &o0, &r0, &d) == TM_OK) {
        if (sim__compare_run(&sc, pol, 1, &o2, &r2, &d) == TM_OK) {
            double n0 = sim__cmp_value(&r0, 0, 0, SIM__CMP_ARRIVED);
            double n2 = sim__cmp_value(&r2, 0, 0, SIM__CMP_ARRIVED);
            /* Poisson arrivals at a constant rate: about half remain */
            CHECK(n2 < n0 && n2 > 0.35 * n0 && n2 < 0.65 * n0);
            sim__compare_fini(&r2);
        } else {
            CHECK(0);
        }
        sim__compare_fini(&r0);
    } else {
        CHECK(0);
    }

    /* bad input */
    sim__cmp_policy bad = policy("bad", "order=fifo placement=nowhere");
    CHECK_EQ_INT(sim__compare_run(&sc, &bad, 1, &o, &res, &d), TM_ERR_POLICY);
    CHECK(strstr(d.msg, "nowhere") != NULL);
    sim__cmp_opts late = {.replications = 2, .warmup_us = sc.horizon_us};
    CHECK_EQ_INT(sim__compare_run(&sc, pol, 1, &late, &res, &d), TM_ERR_INVAL);
    sim__cmp_opts one = {.replications = 1};
    CHECK_EQ_INT(sim__compare_run(&sc, pol, 1, &one, &res, &d), TM_ERR_INVAL);
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* coverage on M/M/1                                                          */

#define N_SEEDS 200
#define REPS    10

static void coverage_bounds(int n, double p, int *lo, int *hi)
{
    /* the plausible counts of X ~ Binomial(n, p): [lo, hi] with
     * P(X < lo) < 0.0005 and P(X > hi) < 0.0005 (two-sided 99.9 %) */
    *lo = 0;
    while (*lo < n && gsl_cdf_binomial_P((unsigned)*lo, p, (unsigned)n) < 0.0005)
        (*lo)++;
    *hi = n;
    while (*hi > 0 && gsl_cdf_binomial_Q((unsigned)(*hi - 1), p, (unsigned)n) < 0.0005)
        (*hi)--;
}

static void test_coverage(uint64_t seed0)
{
    const double lambda = 0.5, mu = 1.0, rho = lambda / mu;
    const struct {
        size_t metric;
        const char *name;
        double truth;
    } want[] = {
        {SIM__CMP_WAIT_MEAN, "mean wait Wq", rho / (mu - lambda)},
        {SIM__CMP_QUEUE_LEN, "mean queue Lq", rho * rho / (1 - rho)},
        {SIM__CMP_ALLOC_UTIL, "utilization", rho},
    };
    enum { N_WANT = sizeof want / sizeof want[0] };
    int covered[N_WANT] = {0};
    double grand[N_WANT] = {0}, grand2[N_WANT] = {0};
    size_t n_values = 0;
    int lo, hi;
    coverage_bounds(N_SEEDS, 0.95, &lo, &hi);
    sim__cmp_policy pol = policy("fifo", "order=fifo placement=first-fit");
    for (int s = 0; s < N_SEEDS; s++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"name\":\"mm1\",\"seed\":%llu,\"horizon\":4500,\"stop\":\"drain\","
                 "\"sample\":10,\"fleet\":{\"pools\":[{\"gpu_type\":\"H100\",\"nodes\":1,"
                 "\"gpus_per_node\":1}]},\"workload\":{\"classes\":[{\"name\":\"q\","
                 "\"arrival\":{\"rate_per_s\":%.17g},"
                 "\"duration\":{\"dist\":\"exponential\",\"mean\":%.17g}}]}}",
                 (unsigned long long)(seed0 + (uint64_t)s), lambda, 1 / mu);
        sim_scenario sc;
        if (load(&sc, json))
            return;
        sim__cmp_opts o = {.replications = REPS, .warmup_us = 500 * SIM_US_PER_S};
        sim__cmp_result res;
        tm_diag d;
        int rc = sim__compare_run(&sc, &pol, 1, &o, &res, &d);
        CHECK_EQ_INT(rc, TM_OK);
        sim_scenario_fini(&sc);
        if (rc != TM_OK)
            return;
        for (size_t k = 0; k < N_WANT; k++) {
            const sim__cmp_stat *st = &res.stats[want[k].metric];
            covered[k] += st->ci_lo <= want[k].truth && want[k].truth <= st->ci_hi;
            for (uint32_t r = 0; r < REPS; r++) {
                double v = sim__cmp_value(&res, 0, r, want[k].metric);
                grand[k] += v;
                grand2[k] += v * v;
            }
        }
        n_values += REPS;
        sim__compare_fini(&res);
    }
    for (size_t k = 0; k < N_WANT; k++) {
        double nv = (double)n_values, m = grand[k] / nv;
        double se = sqrt((grand2[k] / nv - m * m) / (nv - 1));
        printf("M/M/1 rho=%.2f %-14s: %d of %d intervals cover %.4f (plausible %d..%d); "
               "grand mean %.5f, bias %+.5f = %+.2f SE (seeds %llu..%llu, %d replications)\n",
               rho, want[k].name, covered[k], N_SEEDS, want[k].truth, lo, hi, m, m - want[k].truth,
               (m - want[k].truth) / se, (unsigned long long)seed0,
               (unsigned long long)(seed0 + N_SEEDS - 1), REPS);
        CHECK(covered[k] >= lo && covered[k] <= hi);
        CHECK_NEAR(m, want[k].truth, 4 * se);
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = check_seed(1000);
    if (argc > 1 && strcmp(argv[1], "coverage") == 0) {
        test_coverage(seed);
        return check_finish("test_compare coverage");
    }
    test_intervals();
    test_crn_and_identical();
    return check_finish("test_compare");
}
