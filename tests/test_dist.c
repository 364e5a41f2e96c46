/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dist.c — distributions (traces/dist.c) and CSV columns (traces/csvcol.c).
 *
 * Statistical checks run at fixed seeds with tolerances derived from the
 * sample size: sample means within 5 standard errors (sigma / sqrt(N)),
 * sample variances within 5 standard errors (sqrt((mu4 - sigma^4) / N), from
 * the analytic fourth central moment), Kolmogorov–Smirnov distances below the
 * asymptotic critical value at alpha = 0.001, discrete frequencies within 5
 * binomial standard deviations and a chi-square below its 0.001 quantile.
 * A negative control shows the KS check can fail. The CSV reader is checked
 * on fixtures written to a temporary folder and on two public traces, whose
 * row counts and means were computed independently with awk.
 */
#include "trace.h"

#include "check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

#define Z 5.0 /* standard errors allowed */

static uint64_t base_seed;

static gsl_rng *rng_new(uint64_t k)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, (unsigned long)(base_seed + k));
    return r;
}

/* ------------------------------------------------------------------------- */
/* The synthesizer's rounding to microseconds                                 */

/* One job of a synthesized class with constant duration d: its duration_us. */
static int64_t synth_duration_us(double d)
{
    trace_arrival_cfg ac;
    trace_arrival_cfg_poisson(&ac, 1.0);
    trace_dist gpus, dur;
    CHECK_EQ_INT(trace_dist_init(&gpus, TRACE_DIST_CONSTANT, 1.0, 0.0, NULL), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&dur, TRACE_DIST_CONSTANT, d, 0.0, NULL), TM_OK);
    gsl_rng *ra = rng_new(901), *rg = rng_new(902), *rd = rng_new(903);
    trace_synth_cfg cfg = {.arrival = &ac,
                           .gpus = &gpus,
                           .duration_s = &dur,
                           .deadline_us = -1,
                           .value = 1.0,
                           .t_end_s = 1e9,
                           .max_jobs = 1,
                           .r_arrival = ra,
                           .r_gpus = rg,
                           .r_duration = rd};
    trace_source src;
    tm_diag diag;
    int64_t us = -7;
    if (trace_synth_open(&src, &cfg, &diag) == TM_OK) {
        trace_job j;
        if (src.next(src.ud, &j, &diag) == TM_OK)
            us = j.duration_us;
        src.close(src.ud);
    }
    gsl_rng_free(ra);
    gsl_rng_free(rg);
    gsl_rng_free(rd);
    return us;
}

/* Durations round to whole microseconds half away from zero, as llround:
 * exact halves, the doubles next to them, fractions just under 0.5, values
 * past 2^52 us (already integers), 0 and the clamp at 9.2e18 us. */
static void test_synth_rounding(void)
{
    const double us_cases[] = {0.5,
                               1.5,
                               2.5,
                               1e6 + 0.5,
                               0.49999999999999994,
                               4503599627370495.5, /* 2^52 - 0.5 */
                               4503599627370497.0, /* 2^52 + 1 */
                               9007199254740993.0,
                               1234567.4999999998,
                               1234567.5000000002,
                               3.0,
                               1e-3};
    for (size_t i = 0; i < sizeof us_cases / sizeof us_cases[0]; i++) {
        double us = us_cases[i];
        double lo = nextafter(us, 0.0), hi = nextafter(us, INFINITY);
        const double v[3] = {lo, us, hi};
        for (int k = 0; k < 3; k++) {
            double d = v[k] / 1e6; /* seconds; the synthesizer multiplies back */
            double back = d * 1e6;
            CHECK_EQ_INT(synth_duration_us(d), (int64_t)llround(back));
        }
    }
    /* randomized: many magnitudes, each compared with llround */
    gsl_rng *r = rng_new(904);
    for (int i = 0; i < 2000; i++) {
        double d = ldexp(gsl_rng_uniform(r) + 0.5, (int)gsl_rng_uniform_int(r, 80) - 40);
        CHECK_EQ_INT(synth_duration_us(d), (int64_t)llround(d * 1e6));
    }
    gsl_rng_free(r);
    CHECK_EQ_INT(synth_duration_us(0.0), 0);
    CHECK_EQ_INT(synth_duration_us(1e13), INT64_MAX);
}

/* ------------------------------------------------------------------------- */
/* Moments                                                                    */

/* Raw moments E[X^j], j = 1..4, of the parametric kinds. */
static void raw_moments(trace_dist_kind kind, double a, double b, double m[5])
{
    for (int j = 1; j <= 4; j++) {
        double dj = (double)j;
        switch (kind) {
        case TRACE_DIST_EXPONENTIAL:
            m[j] = gsl_sf_fact((unsigned)j) * pow(a, dj);
            break;
        case TRACE_DIST_LOGNORMAL:
            m[j] = exp(dj * a + 0.5 * dj * dj * b * b);
            break;
        case TRACE_DIST_WEIBULL:
            m[j] = pow(a, dj) * gsl_sf_gamma(1.0 + dj / b);
            break;
        case TRACE_DIST_PARETO:
            m[j] = b * pow(a, dj) / (b - dj);
            break;
        case TRACE_DIST_UNIFORM:
            m[j] = (pow(b, dj + 1.0) - pow(a, dj + 1.0)) / ((dj + 1.0) * (b - a));
            break;
        default:
            m[j] = NAN;
        }
    }
}

static void check_moments(const char *name, trace_dist_kind kind, double a, double b, uint64_t k)
{
    trace_dist d;
    tm_diag diag;
    int rc = trace_dist_init(&d, kind, a, b, &diag);
    CHECK_EQ_INT(rc, TM_OK);
    double m[5];
    raw_moments(kind, a, b, m);
    double mu = m[1];
    double var = m[2] - mu * mu;
    double mu4 = m[4] - 4.0 * mu * m[3] + 6.0 * mu * mu * m[2] - 3.0 * mu * mu * mu * mu;
    CHECK_NEAR(trace_dist_mean(&d), mu, 1e-12 * mu);

    const size_t n = 200000;
    gsl_rng *r = rng_new(k);
    double sum = 0.0;
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        x[i] = trace_dist_sample(&d, r);
        sum += x[i];
    }
    double mean = sum / (double)n, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    double svar = ss / (double)(n - 1);
    double se_mean = sqrt(var / (double)n);
    double se_var = sqrt((mu4 - var * var) / (double)n);
    if (fabs(mean - mu) > Z * se_mean || fabs(svar - var) > Z * se_var)
        fprintf(stderr, "%s: mean %.6g (want %.6g +- %.3g), var %.6g (want %.6g +- %.3g)\n", name,
                mean, mu, Z * se_mean, svar, var, Z * se_var);
    CHECK_NEAR(mean, mu, Z * se_mean);
    CHECK_NEAR(svar, var, Z * se_var);
    free(x);
    gsl_rng_free(r);
    trace_dist_fini(&d);
}

static void test_moments(void)
{
    check_moments("exponential(3)", TRACE_DIST_EXPONENTIAL, 3.0, 0.0, 1);
    check_moments("lognormal(1, 0.5)", TRACE_DIST_LOGNORMAL, 1.0, 0.5, 2);
    check_moments("weibull(2, 1.5)", TRACE_DIST_WEIBULL, 2.0, 1.5, 3);
    check_moments("weibull(100, 0.7)", TRACE_DIST_WEIBULL, 100.0, 0.7, 4);
    /* alpha = 9: the estimator of the variance needs E[X^8] for its CLT */
    check_moments("pareto(2, 9)", TRACE_DIST_PARETO, 2.0, 9.0, 5);
    check_moments("uniform(2, 5)", TRACE_DIST_UNIFORM, 2.0, 5.0, 6);
}

static void test_lognormal_mean(void)
{
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init_lognormal_mean(&d, 100.0, 0.8, NULL), TM_OK);
    CHECK_NEAR(d.p[0], log(100.0) - 0.32, 1e-12);
    CHECK_NEAR(d.p[1], 0.8, 0.0);
    CHECK_NEAR(trace_dist_mean(&d), 100.0, 1e-10);
    trace_dist_fini(&d);
    check_moments("lognormal(mean 100, 0.8)", TRACE_DIST_LOGNORMAL, log(100.0) - 0.32, 0.8, 7);

    /* sigma = 0: a point mass at exp(mu), with a step CDF */
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_LOGNORMAL, log(7.0), 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(8);
    CHECK_NEAR(trace_dist_sample(&d, r), 7.0, 1e-12);
    CHECK_NEAR(trace_dist_cdf(&d, 6.9), 0.0, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 7.1), 1.0, 0.0);
    gsl_rng_free(r);
    trace_dist_fini(&d);
}

static void test_means(void)
{
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_PARETO, 1.0, 1.0, NULL), TM_OK);
    CHECK(isinf(trace_dist_mean(&d)) && trace_dist_mean(&d) > 0);
    trace_dist_fini(&d);
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_PARETO, 1.0, 0.5, NULL), TM_OK);
    CHECK(isinf(trace_dist_mean(&d)) && trace_dist_mean(&d) > 0);
    trace_dist_fini(&d);
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_PARETO, 3.0, 1.5, NULL), TM_OK);
    CHECK_NEAR(trace_dist_mean(&d), 9.0, 1e-12);
    trace_dist_fini(&d);
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_WEIBULL, 2.0, 0.5, NULL), TM_OK);
    CHECK_NEAR(trace_dist_mean(&d), 4.0, 1e-12); /* 2 * Gamma(3) */
    trace_dist_fini(&d);
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_WEIBULL, 2.0, 0.001, NULL), TM_OK);
    CHECK(isinf(trace_dist_mean(&d))); /* Gamma(1001) overflows: +inf, not an error */
    trace_dist_fini(&d);
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_CONSTANT, 42.0, 0.0, NULL), TM_OK);
    CHECK_NEAR(trace_dist_mean(&d), 42.0, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 41.9), 0.0, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 42.0), 1.0, 0.0);
    /* CONSTANT draws nothing: the generator is where an untouched one is */
    gsl_rng *r1 = rng_new(9), *r2 = rng_new(9);
    for (int i = 0; i < 10; i++)
        CHECK_NEAR(trace_dist_sample(&d, r1), 42.0, 0.0);
    CHECK_EQ_U64(gsl_rng_get(r1), gsl_rng_get(r2));
    gsl_rng_free(r1);
    gsl_rng_free(r2);
    trace_dist_fini(&d);
}

/* ------------------------------------------------------------------------- */
/* Kolmogorov–Smirnov                                                         */

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* sup |F_n - F| of sorted x against cdf. */
static double ks_distance(const double *x, size_t n, const trace_dist *cdf)
{
    double dmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double f = trace_dist_cdf(cdf, x[i]);
        double hi = (double)(i + 1) / (double)n - f, lo = f - (double)i / (double)n;
        if (hi > dmax)
            dmax = hi;
        if (lo > dmax)
            dmax = lo;
    }
    return dmax;
}

/* Asymptotic critical value of D_n at alpha = 0.001 (Stephens' correction). */
static double ks_critical(size_t n)
{
    double k = sqrt(-0.5 * log(0.001 / 2.0)); /* 1.9495 */
    double sn = sqrt((double)n);
    return k / (sn + 0.12 + 0.11 / sn);
}

static double ks_of(const trace_dist *sampler, const trace_dist *against, size_t n, uint64_t k)
{
    gsl_rng *r = rng_new(k);
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = trace_dist_sample(sampler, r);
    qsort(x, n, sizeof *x, cmp_double);
    double dn = ks_distance(x, n, against);
    free(x);
    gsl_rng_free(r);
    return dn;
}

static void check_ks(const char *name, trace_dist_kind kind, double a, double b, uint64_t k)
{
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init(&d, kind, a, b, NULL), TM_OK);
    const size_t n = 20000;
    double dn = ks_of(&d, &d, n, k), crit = ks_critical(n);
    if (!(dn < crit))
        fprintf(stderr, "%s: KS D = %.5f, critical %.5f\n", name, dn, crit);
    CHECK_NEAR(dn, 0.0, crit);
    trace_dist_fini(&d);
}

static void test_ks(void)
{
    check_ks("exponential(3)", TRACE_DIST_EXPONENTIAL, 3.0, 0.0, 11);
    check_ks("lognormal(1, 0.5)", TRACE_DIST_LOGNORMAL, 1.0, 0.5, 12);
    check_ks("lognormal(8, 2)", TRACE_DIST_LOGNORMAL, 8.0, 2.0, 13);
    check_ks("weibull(2, 1.5)", TRACE_DIST_WEIBULL, 2.0, 1.5, 14);
    check_ks("weibull(3600, 0.5)", TRACE_DIST_WEIBULL, 3600.0, 0.5, 15);
    check_ks("pareto(1, 1.5)", TRACE_DIST_PARETO, 1.0, 1.5, 16);
    check_ks("pareto(10, 0.8)", TRACE_DIST_PARETO, 10.0, 0.8, 17);
    check_ks("uniform(2, 5)", TRACE_DIST_UNIFORM, 2.0, 5.0, 18);

    /* Negative controls: a 10% scale error and swapped Weibull parameters
     * must be detected at this sample size. */
    trace_dist d, wrong;
    const size_t n = 20000;
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_EXPONENTIAL, 3.0, 0.0, NULL), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&wrong, TRACE_DIST_EXPONENTIAL, 3.3, 0.0, NULL), TM_OK);
    CHECK(ks_of(&d, &wrong, n, 19) > ks_critical(n));
    trace_dist_fini(&d);
    trace_dist_fini(&wrong);
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_WEIBULL, 2.0, 1.5, NULL), TM_OK);
    CHECK_EQ_INT(trace_dist_init(&wrong, TRACE_DIST_WEIBULL, 1.5, 2.0, NULL), TM_OK);
    CHECK(ks_of(&d, &wrong, n, 20) > ks_critical(n));
    trace_dist_fini(&d);
    trace_dist_fini(&wrong);
}

/* ------------------------------------------------------------------------- */
/* Discrete, empirical, clamping                                              */

/* |count - n p| within Z binomial standard deviations. */
static void check_binomial(size_t count, size_t n, double p)
{
    double want = (double)n * p, sd = sqrt((double)n * p * (1.0 - p));
    CHECK_NEAR((double)count, want, Z * sd);
}

static void test_discrete(void)
{
    const double values[4] = {1.0, 2.0, 4.0, 8.0};
    const double weights[4] = {1.0, 0.0, 3.0, 6.0}; /* not normalised; one zero */
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init_discrete(&d, values, weights, 4, NULL), TM_OK);
    CHECK_NEAR(trace_dist_mean(&d), 6.1, 1e-12);
    CHECK_NEAR(trace_dist_cdf(&d, 0.5), 0.0, 1e-15);
    CHECK_NEAR(trace_dist_cdf(&d, 1.0), 0.1, 1e-15);
    CHECK_NEAR(trace_dist_cdf(&d, 3.9), 0.1, 1e-15);
    CHECK_NEAR(trace_dist_cdf(&d, 4.0), 0.4, 1e-15);
    CHECK_NEAR(trace_dist_cdf(&d, 8.0), 1.0, 1e-15);

    const size_t n = 100000;
    size_t count[4] = {0, 0, 0, 0}, other = 0;
    gsl_rng *r = rng_new(21);
    for (size_t i = 0; i < n; i++) {
        double x = trace_dist_sample(&d, r);
        int hit = 0;
        for (int j = 0; j < 4; j++)
            if (x == values[j]) {
                count[j]++;
                hit = 1;
            }
        other += !hit;
    }
    CHECK_EQ_U64(other, 0);
    CHECK_EQ_U64(count[1], 0); /* weight 0: never */
    double chi2 = 0.0;
    for (int j = 0; j < 4; j++) {
        double p = weights[j] / 10.0;
        if (p == 0.0)
            continue;
        check_binomial(count[j], n, p);
        double e = (double)n * p;
        chi2 += ((double)count[j] - e) * ((double)count[j] - e) / e;
    }
    double chi2_crit = gsl_cdf_chisq_Qinv(0.001, 2.0); /* 3 bins with p > 0 */
    CHECK_NEAR(chi2, 0.0, chi2_crit);
    gsl_rng_free(r);
    trace_dist_fini(&d);
}

static void test_empirical(void)
{
    double *v = malloc(4 * sizeof *v);
    v[0] = 5.0;
    v[1] = 1.0;
    v[2] = 3.0;
    v[3] = 3.0;
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init_empirical(&d, v, 4, NULL), TM_OK);
    CHECK_NEAR(trace_dist_mean(&d), 3.0, 1e-15);
    CHECK_NEAR(d.values[0], 1.0, 0.0); /* sorted */
    CHECK_NEAR(d.values[3], 5.0, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 0.5), 0.0, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 2.9), 0.25, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 3.0), 0.75, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 5.0), 1.0, 0.0);
    const size_t n = 80000;
    size_t c1 = 0, c3 = 0, c5 = 0;
    gsl_rng *r = rng_new(22);
    for (size_t i = 0; i < n; i++) {
        double x = trace_dist_sample(&d, r);
        c1 += x == 1.0;
        c3 += x == 3.0;
        c5 += x == 5.0;
    }
    CHECK_EQ_U64(c1 + c3 + c5, n);
    check_binomial(c1, n, 0.25);
    check_binomial(c3, n, 0.5);
    check_binomial(c5, n, 0.25);
    gsl_rng_free(r);
    trace_dist_fini(&d);
}

static void test_clamp(void)
{
    trace_dist d;
    tm_diag diag;
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_EXPONENTIAL, 10.0, 0.0, NULL), TM_OK);
    CHECK_NEAR(d.min, 0.0, 0.0);
    CHECK(isinf(d.max));
    CHECK_EQ_INT(trace_dist_set_clamp(&d, 2.0, 15.0, &diag), TM_OK);
    const size_t n = 100000;
    size_t lo = 0, hi = 0, outside = 0;
    gsl_rng *r = rng_new(23);
    for (size_t i = 0; i < n; i++) {
        double x = trace_dist_sample(&d, r);
        lo += x == 2.0;
        hi += x == 15.0;
        outside += x < 2.0 || x > 15.0;
    }
    CHECK_EQ_U64(outside, 0);
    check_binomial(lo, n, 1.0 - exp(-0.2));
    check_binomial(hi, n, exp(-1.5));
    /* the mean and the CDF are those before clamping */
    CHECK_NEAR(trace_dist_mean(&d), 10.0, 0.0);
    CHECK_NEAR(trace_dist_cdf(&d, 1.0), 1.0 - exp(-0.1), 1e-15);

    CHECK_EQ_INT(trace_dist_set_clamp(&d, 5.0, 4.0, &diag), TM_ERR_INVAL);
    CHECK(strstr(diag.msg, "got min 5") != NULL);
    CHECK_EQ_INT(trace_dist_set_clamp(&d, NAN, 4.0, &diag), TM_ERR_INVAL);
    CHECK_NEAR(d.min, 2.0, 0.0); /* unchanged by a rejected clamp */
    CHECK_NEAR(d.max, 15.0, 0.0);
    CHECK_EQ_INT(trace_dist_set_clamp(&d, 7.0, 7.0, &diag), TM_OK);
    CHECK_NEAR(trace_dist_sample(&d, r), 7.0, 0.0);
    gsl_rng_free(r);
    trace_dist_fini(&d);
}

static void test_determinism(void)
{
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init(&d, TRACE_DIST_WEIBULL, 5.0, 0.8, NULL), TM_OK);
    gsl_rng *r1 = rng_new(24), *r2 = rng_new(24);
    int same = 1;
    for (int i = 0; i < 1000; i++) {
        double a = trace_dist_sample(&d, r1);
        double b = trace_dist_sample(&d, r2);
        same &= a == b;
    }
    CHECK(same);
    gsl_rng_free(r1);
    gsl_rng_free(r2);
    trace_dist_fini(&d);
}

/* ------------------------------------------------------------------------- */
/* Bad parameters                                                             */

static int struct_is_zeroed(const trace_dist *d)
{
    return d->n == 0 && !d->values && !d->weights && !d->table && d->min == 0.0 && isinf(d->max);
}

static void check_bad(const char *what, int rc, const trace_dist *d, const tm_diag *diag,
                      const char *where)
{
    if (rc != TM_ERR_INVAL || !strstr(diag->where, where))
        fprintf(stderr, "bad parameter case %s: rc %d, diag \"%s: %s\"\n", what, rc, diag->where,
                diag->msg);
    CHECK_EQ_INT(rc, TM_ERR_INVAL);
    CHECK(strstr(diag->where, where) != NULL);
    CHECK(strstr(diag->msg, "expected") != NULL && strstr(diag->msg, "got") != NULL);
    CHECK(struct_is_zeroed(d));
}

static void test_bad_params(void)
{
    struct {
        trace_dist_kind kind;
        double a, b;
        const char *where;
    } cases[] = {
        {TRACE_DIST_CONSTANT, -1.0, 0.0, "constant.value"},
        {TRACE_DIST_CONSTANT, NAN, 0.0, "constant.value"},
        {TRACE_DIST_EXPONENTIAL, 0.0, 0.0, "exponential.mean"},
        {TRACE_DIST_EXPONENTIAL, -2.0, 0.0, "exponential.mean"},
        {TRACE_DIST_EXPONENTIAL, INFINITY, 0.0, "exponential.mean"},
        {TRACE_DIST_LOGNORMAL, NAN, 1.0, "lognormal.mu"},
        {TRACE_DIST_LOGNORMAL, 1.0, -0.1, "lognormal.sigma"},
        {TRACE_DIST_LOGNORMAL, 1.0, INFINITY, "lognormal.sigma"},
        {TRACE_DIST_WEIBULL, -1.0, 1.0, "weibull.scale"},
        {TRACE_DIST_WEIBULL, 0.0, 1.0, "weibull.scale"},
        {TRACE_DIST_WEIBULL, 1.0, 0.0, "weibull.shape"},
        {TRACE_DIST_WEIBULL, 1.0, NAN, "weibull.shape"},
        {TRACE_DIST_PARETO, 0.0, 2.0, "pareto.scale"},
        {TRACE_DIST_PARETO, 1.0, 0.0, "pareto.alpha"},
        {TRACE_DIST_PARETO, 1.0, -3.0, "pareto.alpha"},
        {TRACE_DIST_UNIFORM, 3.0, 2.0, "uniform.high"},
        {TRACE_DIST_UNIFORM, -1.0, 2.0, "uniform.low"},
        {TRACE_DIST_UNIFORM, 0.0, INFINITY, "uniform.high"},
        {TRACE_DIST_DISCRETE, 1.0, 1.0, "dist.kind"},
        {TRACE_DIST_EMPIRICAL, 1.0, 1.0, "dist.kind"},
        {(trace_dist_kind)99, 1.0, 1.0, "dist.kind"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_dist d;
        tm_diag diag;
        tm_diag_clear(&diag);
        int rc = trace_dist_init(&d, cases[i].kind, cases[i].a, cases[i].b, &diag);
        check_bad(cases[i].where, rc, &d, &diag, cases[i].where);
        trace_dist_fini(&d); /* safe after a failed init */
    }

    trace_dist d;
    tm_diag diag;
    int rc = trace_dist_init_lognormal_mean(&d, 0.0, 1.0, &diag);
    check_bad("lognormal mean 0", rc, &d, &diag, "lognormal.mean");
    rc = trace_dist_init_lognormal_mean(&d, 10.0, -1.0, &diag);
    check_bad("lognormal mean sigma", rc, &d, &diag, "lognormal.sigma");

    const double v[3] = {1.0, 2.0, 3.0};
    const double w_zero[3] = {0.0, 0.0, 0.0};
    const double w_neg[3] = {1.0, -0.5, 1.0};
    const double w_nan[3] = {1.0, NAN, 1.0};
    const double w_ok[3] = {1.0, 1.0, 1.0};
    const double v_nan[3] = {1.0, 2.0, NAN};
    const double v_neg[3] = {1.0, -2.0, 3.0};
    rc = trace_dist_init_discrete(&d, v, w_ok, 0, &diag);
    check_bad("discrete n 0", rc, &d, &diag, "discrete.n");
    rc = trace_dist_init_discrete(&d, NULL, w_ok, 3, &diag);
    check_bad("discrete NULL", rc, &d, &diag, "discrete.n");
    rc = trace_dist_init_discrete(&d, v, w_zero, 3, &diag);
    check_bad("discrete all zero", rc, &d, &diag, "discrete.weights");
    rc = trace_dist_init_discrete(&d, v, w_neg, 3, &diag);
    check_bad("discrete negative", rc, &d, &diag, "discrete.weights[1]");
    rc = trace_dist_init_discrete(&d, v, w_nan, 3, &diag);
    check_bad("discrete NaN weight", rc, &d, &diag, "discrete.weights[1]");
    rc = trace_dist_init_discrete(&d, v_nan, w_ok, 3, &diag);
    check_bad("discrete NaN value", rc, &d, &diag, "discrete.values[2]");
    rc = trace_dist_init_discrete(&d, v_neg, w_ok, 3, &diag);
    check_bad("discrete negative value", rc, &d, &diag, "discrete.values[1]");

    /* empirical takes ownership even when it fails (ASan reports a leak otherwise) */
    double *e = malloc(2 * sizeof *e);
    e[0] = 1.0;
    e[1] = INFINITY;
    rc = trace_dist_init_empirical(&d, e, 2, &diag);
    check_bad("empirical inf", rc, &d, &diag, "empirical.values[1]");
    e = malloc(sizeof *e);
    rc = trace_dist_init_empirical(&d, e, 0, &diag);
    check_bad("empirical n 0", rc, &d, &diag, "empirical.n");

    /* fini on a zeroed struct, and twice */
    trace_dist z;
    memset(&z, 0, sizeof z);
    trace_dist_fini(&z);
    trace_dist_fini(&z);
    trace_dist_fini(NULL);
    CHECK_EQ_INT(trace_dist_init_discrete(&z, v, w_ok, 3, NULL), TM_OK);
    trace_dist_fini(&z);
    trace_dist_fini(&z);
    CHECK(struct_is_zeroed(&z));
}

/* ------------------------------------------------------------------------- */
/* CSV columns: fixtures                                                      */

static char tmpdir[256];

static const char *fixture(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        check_fail(__FILE__, __LINE__, "cannot write %s: %s", path, strerror(errno));
        return path;
    }
    fputs(text, f);
    fclose(f);
    return path;
}

static void check_csv_ok(const char *name, const char *text, const char *column, const double *want,
                         size_t nwant)
{
    const char *path = fixture(name, text);
    double *v = NULL;
    size_t n = 99;
    tm_diag diag;
    tm_diag_clear(&diag);
    int rc = trace_csv_column(path, column, &v, &n, &diag);
    if (rc != TM_OK)
        fprintf(stderr, "%s: %s: %s\n", name, diag.where, diag.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_U64(n, nwant);
    for (size_t i = 0; i < n && i < nwant; i++)
        CHECK_NEAR(v[i], want[i], 0.0);
    if (nwant == 0)
        CHECK(v == NULL);
    free(v);
    unlink(path);
}

/* Expect status `want_rc` with diag.where == "path:line" (line 0: == path). */
static void check_csv_err(const char *name, const char *text, const char *column, int want_rc,
                          int line, const char *msg_part)
{
    const char *path = fixture(name, text);
    double *v = (double *)&v; /* must be reset to NULL */
    size_t n = 99;
    tm_diag diag;
    tm_diag_clear(&diag);
    int rc = trace_csv_column(path, column, &v, &n, &diag);
    char want_where[600];
    if (line)
        snprintf(want_where, sizeof want_where, "%s:%d", path, line);
    else
        snprintf(want_where, sizeof want_where, "%s", path);
    if (rc != want_rc || strcmp(diag.where, want_where) != 0 || !strstr(diag.msg, msg_part))
        fprintf(stderr, "%s: rc %s, diag \"%s: %s\"\n", name, tm_status_name(rc), diag.where,
                diag.msg);
    CHECK_EQ_INT(rc, want_rc);
    CHECK_STR(diag.where, want_where);
    CHECK(strstr(diag.msg, msg_part) != NULL);
    CHECK(v == NULL);
    CHECK_EQ_U64(n, 0);
    unlink(path);
}

static void test_csv_fixtures(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/tarmac-csv-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        check_fail(__FILE__, __LINE__, "mkdtemp %s: %s", tmpdir, strerror(errno));
        return;
    }

    /* BOM, blanks around names, quotes, \r\n, trailing blank lines */
    const char *good = "\xEF\xBB\xBF a , b ,\"c\"\r\n1, 2 ,3\r\n4,\"5\",6e-1\r\n\r\n\n";
    const double a[2] = {1, 4}, b[2] = {2, 5}, c[2] = {3, 0.6};
    check_csv_ok("good_a.csv", good, "a", a, 2);
    check_csv_ok("good_b.csv", good, "b", b, 2);
    check_csv_ok("good_c.csv", good, "c", c, 2);
    const double x[3] = {1, 2, -1.5};
    check_csv_ok("noeol.csv", "x\n1\n2\n-1.5", "x", x, 3);
    const double q[2] = {2.5, -5};
    check_csv_ok("quoted.csv", "id,name,val\n1,\"a, \"\"b\"\"\",2.5\n2,plain,-0.5e1\n", "val", q,
                 2);
    check_csv_ok("header_only.csv", "a,b\n", "b", NULL, 0);
    const double extra[2] = {7, 8};
    check_csv_ok("extra_fields.csv", "a\n7,x,y\n8\n", "a", extra, 2);

    check_csv_err("nonnum.csv", "a,b\n1,2\n3,abc\n", "b", TM_ERR_TRACE, 3,
                  "expected a number in column \"b\" (field 2)");
    check_csv_err("junk.csv", "a\n1\n2x\n", "a", TM_ERR_TRACE, 3,
                  "expected a number in column \"a\"");
    check_csv_err("missing_col.csv", "a,b,c\n1,2,3\n", "z", TM_ERR_TRACE, 1,
                  "got 3 columns without it");
    check_csv_err("short.csv", "a,b,c\n1,2,3\n4,5,6\n7,8\n", "c", TM_ERR_TRACE, 4,
                  "expected at least 3 fields");
    check_csv_err("empty_field.csv", "a,b\n1,2\n1,\n", "b", TM_ERR_TRACE, 3, "empty field");
    check_csv_err("blank_field.csv", "a,b\n1,  \r\n", "b", TM_ERR_TRACE, 2, "empty field");
    check_csv_err("inf.csv", "a\n1\ninf\n", "a", TM_ERR_TRACE, 3, "finite");
    check_csv_err("nan.csv", "a\nnan\n", "a", TM_ERR_TRACE, 2, "finite");
    check_csv_err("overflow.csv", "a\n1\n2\n1e999\n", "a", TM_ERR_TRACE, 4, "finite");
    check_csv_err("blank_middle.csv", "a\n1\n\n2\n", "a", TM_ERR_TRACE, 3, "blank line");
    check_csv_err("empty.csv", "", "a", TM_ERR_TRACE, 1, "empty file");
    check_csv_err("dup.csv", "a,b,a\n1,2,3\n", "a", TM_ERR_TRACE, 1, "fields 1 and 3");
    check_csv_err("quote.csv", "a,b\n1,\"2\n", "b", TM_ERR_TRACE, 2, "closing quote");

    char missing[512];
    snprintf(missing, sizeof missing, "%s/no-such-file.csv", tmpdir);
    double *v = NULL;
    size_t n = 0;
    tm_diag diag;
    CHECK_EQ_INT(trace_csv_column(missing, "a", &v, &n, &diag), TM_ERR_NOTFOUND);
    CHECK_STR(diag.where, missing);
    CHECK(strstr(diag.msg, strerror(ENOENT)) != NULL);
    /* a folder is not a regular file: refused before it is read */
    CHECK_EQ_INT(trace_csv_column(tmpdir, "a", &v, &n, &diag), TM_ERR_TRACE);
    CHECK(v == NULL);

    if (rmdir(tmpdir) != 0)
        check_fail(__FILE__, __LINE__, "rmdir %s: %s (a fixture was left behind)", tmpdir,
                   strerror(errno));
}

/* ------------------------------------------------------------------------- */
/* CSV columns: the public traces                                             */

/* Row counts and means computed independently:
 *   awk -F, 'NR>1{n++; s+=$1} END{printf "%d %.10f\n", n, s/n}' FILE */
static void check_real_column(const char *dir, const char *file, const char *column, size_t n_want,
                              double mean_want, double tol)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    double *v = NULL;
    size_t n = 0;
    tm_diag diag;
    int rc = trace_csv_column(path, column, &v, &n, &diag);
    if (rc != TM_OK)
        fprintf(stderr, "%s: %s\n", diag.where, diag.msg);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_EQ_U64(n, n_want);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    CHECK_NEAR(n ? sum / (double)n : 0.0, mean_want, tol);
    free(v);
}

static void test_csv_real(const char *dir)
{
    check_real_column(dir, "philly-derived/philly_runtime.csv", "runtime", 83154, 14613.3278856098,
                      1e-6);
    check_real_column(dir, "gavel/philly_job_distribution.csv", "duration_s", 33192,
                      117549.8071824536, 1e-6);
    check_real_column(dir, "gavel/philly_job_distribution.csv", "num_gpus", 33192, 2.1726319595,
                      1e-9);

    /* The runtime column as an empirical distribution: its mean, and a
     * sample mean within Z standard errors (population variance by awk:
     * 8298456736.89). */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, "philly-derived/philly_runtime.csv");
    double *v = NULL;
    size_t n = 0;
    if (trace_csv_column(path, "runtime", &v, &n, NULL) != TM_OK)
        return;
    trace_dist d;
    CHECK_EQ_INT(trace_dist_init_empirical(&d, v, n, NULL), TM_OK);
    CHECK_NEAR(trace_dist_mean(&d), 14613.3278856098, 1e-6);
    const size_t ns = 200000;
    gsl_rng *r = rng_new(31);
    double sum = 0.0;
    for (size_t i = 0; i < ns; i++)
        sum += trace_dist_sample(&d, r);
    CHECK_NEAR(sum / (double)ns, 14613.3278856098, Z * sqrt(8298456736.89 / (double)ns));
    gsl_rng_free(r);
    trace_dist_fini(&d);
}

/* trace_exponential is gsl_ran_exponential inline: the same double, draw
 * for draw, from two generators of one seed, over means from subnormal-ish
 * to huge (and so the same runs as before it). */
static void test_exponential_inline(void)
{
    const double mus[] = {1.0, 1e-300, 3.5e-7, 0.75, 28.8, 1e6, 1e300};
    for (size_t k = 0; k < sizeof mus / sizeof mus[0]; k++) {
        gsl_rng *a = rng_new(40 + k), *b = rng_new(40 + k);
        size_t bad = 0;
        for (int i = 0; i < 20000; i++) {
            double x = trace_exponential(a, mus[k]), y = gsl_ran_exponential(b, mus[k]);
            bad += memcmp(&x, &y, sizeof x) != 0;
        }
        if (bad)
            check_fail(__FILE__, __LINE__, "mean %g: %zu of 20000 draws differ from GSL's", mus[k],
                       bad);
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
}

int main(void)
{
    base_seed = check_seed(20240611);
    test_moments();
    test_exponential_inline();
    test_synth_rounding();
    test_lognormal_mean();
    test_means();
    test_ks();
    test_discrete();
    test_empirical();
    test_clamp();
    test_determinism();
    test_bad_params();
    test_csv_fixtures();
    const char *dir = check_data_dir();
    if (!dir) {
        if (check_failures)
            return check_finish("test_dist");
        return check_skip("TARMAC_DATA_DIR is not a folder: the public-trace checks did not run");
    }
    test_csv_real(dir);
    return check_finish("test_dist");
}
