/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_arrival.c — arrival processes (traces/arrival.c) against theory.
 *
 * Counts of a Poisson process are compared to their expectation within 5
 * Poisson standard deviations (5 sqrt(E)) and a chi-square below its 0.001
 * quantile; gaps with a KS test at alpha = 0.001; the MMPP with its
 * asymptotic count variance T (lambda + 2 pi1 pi2 (l1 - l2)^2 / (q1 + q2)),
 * or with batch means where no formula is at hand. trace_arrival_expected is
 * checked against hand formulas and against a midpoint-rule integral of
 * trace_arrival_rate, with an error bound derived from the step and the
 * jumps at hour boundaries.
 */
#include "trace.h"

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#define Z     5.0 /* standard errors allowed */
#define HOUR  3600.0
#define DAY   86400.0
#define WEEK  (7.0 * DAY)
#define MONTH (365.25 / 12.0 * DAY)

static uint64_t base_seed;

static gsl_rng *rng_new(uint64_t k)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, (unsigned long)(base_seed + k));
    return r;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* KS distance of x (sorted in place) from Exp(mean); and the critical value
 * at alpha = 0.001 (asymptotic, Stephens' correction). */
static double ks_exponential(double *x, size_t n, double mean)
{
    qsort(x, n, sizeof *x, cmp_double);
    double dmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double f = gsl_cdf_exponential_P(x[i], mean);
        double hi = (double)(i + 1) / (double)n - f, lo = f - (double)i / (double)n;
        dmax = hi > dmax ? hi : dmax;
        dmax = lo > dmax ? lo : dmax;
    }
    return dmax;
}

static double ks_critical(size_t n)
{
    double sn = sqrt((double)n);
    return sqrt(-0.5 * log(0.001 / 2.0)) / (sn + 0.12 + 0.11 / sn);
}

/* The Poisson count check: |count - e| <= Z sqrt(e). */
static void check_poisson(double count, double e)
{
    CHECK_NEAR(count, e, Z * sqrt(e));
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    int64_t m = a % b;
    return m < 0 ? m + b : m;
}

/* ------------------------------------------------------------------------- */

static void test_poisson(void)
{
    const double rate = 2.0;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, rate);
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 0.0, NULL), TM_OK);
    CHECK_NEAR(a.hpp_rate_per_s, rate, 0.0); /* the fast path */
    gsl_rng *r = rng_new(1);

    const size_t n = 200000;
    double *gap = malloc(n * sizeof *gap);
    double prev = 0.0, sum = 0.0, t_end = 0.0;
    for (size_t i = 0; i < n; i++) {
        double t = trace_arrival_next(&a, r);
        gap[i] = t - prev;
        sum += gap[i];
        prev = t;
        t_end = t;
    }
    double mean = sum / (double)n, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (gap[i] - mean) * (gap[i] - mean);
    double theta = 1.0 / rate;
    CHECK_NEAR(mean, theta, Z * theta / sqrt((double)n));
    /* Exp: Var(s^2) = (mu4 - sigma^4) / n = 8 theta^4 / n */
    CHECK_NEAR(ss / (double)(n - 1), theta * theta,
               Z * sqrt(8.0) * theta * theta / sqrt((double)n));
    const size_t nks = 20000;
    double dn = ks_exponential(gap, nks, theta);
    CHECK_NEAR(dn, 0.0, ks_critical(nks));
    /* negative control: a 10% rate error is detected */
    for (size_t i = 0; i < nks; i++)
        gap[i] = gap[nks + i];
    CHECK(ks_exponential(gap, nks, 1.1 * theta) > ks_critical(nks));
    /* the number of arrivals in [0, t_end] */
    check_poisson((double)n, rate * t_end);
    CHECK_NEAR(trace_arrival_expected(&cfg, 0.0, 1000.0), 2000.0, 1e-9);
    free(gap);
    gsl_rng_free(r);
}

/* A profile that differs from flat by 1e-9 forces the windowed-thinning path
 * with its restarts at every hour boundary (and, with an offset, boundaries
 * not at multiples of an hour); the gaps must still be Exp(1 / rate). */
static void test_thinning_restarts(void)
{
    const double rate = 1.0 / 300.0;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, rate);
    for (int h = 1; h < 24; h += 2)
        cfg.daily[h] = 1.0 + 1e-9;
    cfg.t0_offset_s = 1234.5;
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 100.0, NULL), TM_OK);
    CHECK(a.hpp_rate_per_s < 0.0);
    gsl_rng *r = rng_new(2);
    const size_t n = 20000;
    double *gap = malloc(n * sizeof *gap);
    double prev = 100.0, sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double t = trace_arrival_next(&a, r);
        gap[i] = t - prev;
        sum += gap[i];
        prev = t;
    }
    CHECK_NEAR(sum / (double)n, 300.0, Z * 300.0 / sqrt((double)n));
    CHECK_NEAR(ks_exponential(gap, n, 300.0), 0.0, ks_critical(n));
    free(gap);
    gsl_rng_free(r);
}

/* Counts per hour of day under a daily profile (with a zero hour and an
 * offset of 5.5 h, so hour windows are not aligned with t = 0). */
static void test_daily(void)
{
    static const double daily[24] = {0.3, 0.2, 0.2, 0.0, 0.2, 0.3, 0.5, 0.8, 1.2, 1.6, 2.0, 2.0,
                                     1.8, 1.8, 2.0, 2.0, 1.6, 1.4, 1.2, 1.0, 0.8, 0.6, 0.5, 0.4};
    const double rate = 0.01, off = 5.5 * HOUR, t_end = 200.0 * DAY;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, rate);
    memcpy(cfg.daily, daily, sizeof daily);
    cfg.t0_offset_s = off;
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(3);
    double count[24] = {0};
    for (;;) {
        double t = trace_arrival_next(&a, r);
        if (t >= t_end)
            break;
        count[floor_mod((int64_t)floor((t + off) / HOUR), 24)] += 1.0;
    }
    /* expectation per hour of day, window by window */
    double e[24] = {0};
    for (int64_t j = (int64_t)floor(off / HOUR);; j++) {
        double lo = (double)j * HOUR - off, hi = lo + HOUR;
        if (lo >= t_end)
            break;
        lo = lo < 0.0 ? 0.0 : lo;
        hi = hi > t_end ? t_end : hi;
        e[floor_mod(j, 24)] += trace_arrival_expected(&cfg, lo, hi);
    }
    double chi2 = 0.0;
    int bins = 0;
    for (int h = 0; h < 24; h++) {
        /* [0, 200 days) covers every hour of day for 200 hours exactly */
        CHECK_NEAR(e[h], rate * daily[h] * HOUR * 200.0, 1e-9 * (1.0 + e[h]));
        if (daily[h] == 0.0) {
            CHECK_NEAR(count[h], 0.0, 0.0);
            continue;
        }
        check_poisson(count[h], e[h]);
        chi2 += (count[h] - e[h]) * (count[h] - e[h]) / e[h];
        bins++;
    }
    CHECK_NEAR(chi2, 0.0, gsl_cdf_chisq_Qinv(0.001, (double)(bins - 1)));
    gsl_rng_free(r);
}

/* Counts per day of week (t = 0 is Wednesday 03:00). */
static void test_weekly(void)
{
    static const double weekly[7] = {1.0, 1.0, 1.0, 1.0, 0.8, 0.3, 0.1};
    const double rate = 0.005, off = 2.0 * DAY + 3.0 * HOUR, t_end = 70.0 * WEEK;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, rate);
    memcpy(cfg.weekly, weekly, sizeof weekly);
    cfg.t0_offset_s = off;
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(4);
    double count[7] = {0};
    for (;;) {
        double t = trace_arrival_next(&a, r);
        if (t >= t_end)
            break;
        count[floor_mod((int64_t)floor((t + off) / DAY), 7)] += 1.0;
    }
    double chi2 = 0.0, total = 0.0;
    for (int d = 0; d < 7; d++) {
        double e = rate * weekly[d] * DAY * 70.0;
        check_poisson(count[d], e);
        chi2 += (count[d] - e) * (count[d] - e) / e;
        total += e;
    }
    CHECK_NEAR(chi2, 0.0, gsl_cdf_chisq_Qinv(0.001, 6.0));
    CHECK_NEAR(trace_arrival_expected(&cfg, 0.0, t_end), total, 1e-9 * total);
    gsl_rng_free(r);
}

/* Growth: counts per month against rate * month / ln(1+g) * ((1+g)^(m+1) - (1+g)^m)
 * and the ratio of month 12 to month 1 against (1+g)^11. */
static void test_growth(void)
{
    const double rate = 0.002, g = 0.1;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, rate);
    cfg.growth_per_month = g;
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(5);
    double count[12] = {0};
    for (;;) {
        double t = trace_arrival_next(&a, r);
        if (t >= 12.0 * MONTH)
            break;
        count[(int)(t / MONTH)] += 1.0;
    }
    double e[12];
    for (int m = 0; m < 12; m++) {
        e[m] = rate * MONTH / log1p(g) * (pow(1.0 + g, m + 1) - pow(1.0 + g, m));
        double got = trace_arrival_expected(&cfg, m * MONTH, (m + 1) * MONTH);
        CHECK_NEAR(got, e[m], 1e-9 * e[m]);
        check_poisson(count[m], e[m]);
    }
    double ratio = count[11] / count[0], want = pow(1.0 + g, 11);
    /* delta method: Var(R) / R^2 = 1/E1 + 1/E12 */
    CHECK_NEAR(ratio, want, Z * want * sqrt(1.0 / e[0] + 1.0 / e[11]));
    gsl_rng_free(r);
}

/* Daily and weekly profiles with growth, thinned together: counts per week. */
static void test_profiles_with_growth(void)
{
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, 0.003);
    for (int h = 0; h < 24; h++)
        cfg.daily[h] = h >= 8 && h < 20 ? 2.0 : 0.25;
    cfg.weekly[5] = 0.4;
    cfg.weekly[6] = 0.0;
    cfg.growth_per_month = 0.25;
    cfg.t0_offset_s = 1000.0;
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(6);
    enum { NW = 26 };
    double count[NW] = {0};
    for (;;) {
        double t = trace_arrival_next(&a, r);
        if (t >= NW * WEEK)
            break;
        count[(int)(t / WEEK)] += 1.0;
    }
    double chi2 = 0.0;
    for (int w = 0; w < NW; w++) {
        double e = trace_arrival_expected(&cfg, w * WEEK, (w + 1) * WEEK);
        check_poisson(count[w], e);
        chi2 += (count[w] - e) * (count[w] - e) / e;
    }
    CHECK_NEAR(chi2, 0.0, gsl_cdf_chisq_Qinv(0.001, NW));
    gsl_rng_free(r);
}

/* Declining load (g < 0): the total is finite, next() must end with +inf,
 * and the mean total over replications must match trace_arrival_expected
 * over [0, inf). The standard error is sqrt(E / reps) for a Poisson total;
 * with an MMPP the total is over-dispersed, so the replications' own sample
 * variance gives it. */
static void check_declining(const trace_arrival_cfg *cfg, double e_total, int poisson, uint64_t k)
{
    enum { REPS = 300 };
    gsl_rng *r = rng_new(k);
    double total[REPS] = {0};
    int ended = 0;
    for (int i = 0; i < REPS; i++) {
        trace_arrival a;
        CHECK_EQ_INT(trace_arrival_init(&a, cfg, 0.0, NULL), TM_OK);
        for (int j = 0; j < 100000; j++) {
            double t = trace_arrival_next(&a, r);
            if (isinf(t)) {
                ended++;
                CHECK(isinf(trace_arrival_next(&a, r))); /* and stays ended */
                break;
            }
            total[i] += 1.0;
        }
    }
    CHECK_EQ_INT(ended, REPS);
    double mean = 0.0, ss = 0.0;
    for (int i = 0; i < REPS; i++)
        mean += total[i] / REPS;
    for (int i = 0; i < REPS; i++)
        ss += (total[i] - mean) * (total[i] - mean);
    double var = poisson ? e_total : ss / (REPS - 1);
    CHECK_NEAR(mean, e_total, Z * sqrt(var / REPS));
    if (poisson) /* Var = E for a Poisson total; Var(s^2) ~ (2 E^2 + E) / reps */
        CHECK_NEAR(ss / (REPS - 1), e_total, Z * sqrt((2.0 * e_total * e_total + e_total) / REPS));
    gsl_rng_free(r);
}

static void test_declining(void)
{
    const double g = -0.5, e_want = 50.0;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, e_want * -log1p(g) / MONTH);
    cfg.growth_per_month = g;
    double e = trace_arrival_expected(&cfg, 0.0, INFINITY);
    CHECK_NEAR(e, e_want, 1e-9 * e_want); /* rate * month / -ln(1+g) */
    check_declining(&cfg, e, 1, 20);

    /* with profiles the envelope thinning rejects candidates */
    for (int h = 0; h < 24; h++)
        cfg.daily[h] = h < 12 ? 0.2 : 1.8;
    cfg.weekly[0] = 3.0;
    e = trace_arrival_expected(&cfg, 0.0, INFINITY);
    check_declining(&cfg, e, 1, 21);

    /* and with an MMPP (stationary from the start, so E holds from t = 0) */
    cfg.mmpp_states = 2;
    cfg.mmpp_mult[0] = 0.5;
    cfg.mmpp_mult[1] = 2.0;
    cfg.mmpp_sojourn_s[0] = 2.0 * DAY;
    cfg.mmpp_sojourn_s[1] = 1.0 * DAY;
    e = trace_arrival_expected(&cfg, 0.0, INFINITY);
    check_declining(&cfg, e, 0, 22);

    /* Envelope thinning from the start: the envelope's mass is 0.9 < 1, so
     * every arrival comes from the envelope sampler. The total must match E
     * (about 0.2 per run) and the arrivals must fall in the busy half-days
     * (daily 1.8 vs 0.2) with the probability E_busy / E. */
    trace_arrival_cfg env;
    trace_arrival_cfg_poisson(&env, 1.0);
    env.growth_per_month = g;
    for (int h = 0; h < 24; h++)
        env.daily[h] = h < 12 ? 0.2 : 1.8;
    env.weekly[0] = 3.0;
    env.rate_per_s = 0.9 * -log1p(g) / (MONTH * 1.8 * 3.0);
    double e_all = trace_arrival_expected(&env, 0.0, INFINITY), e_busy = 0.0;
    for (int d = 0; d < 2000; d++) /* G(2000 days) ~ 2^-66 */
        e_busy += trace_arrival_expected(&env, d * DAY + 12.0 * HOUR, (d + 1) * DAY);
    enum { RUNS = 30000 };
    gsl_rng *r = rng_new(23);
    double n_all = 0.0;
    size_t n_busy = 0;
    for (int i = 0; i < RUNS; i++) {
        trace_arrival a;
        CHECK_EQ_INT(trace_arrival_init(&a, &env, 0.0, NULL), TM_OK);
        for (double t = trace_arrival_next(&a, r); !isinf(t); t = trace_arrival_next(&a, r)) {
            n_all += 1.0;
            n_busy += fmod(t, DAY) >= 12.0 * HOUR;
        }
    }
    check_poisson(n_all, RUNS * e_all);
    double p = e_busy / e_all;
    CHECK_NEAR((double)n_busy, n_all * p, Z * sqrt(n_all * p * (1.0 - p)));
    gsl_rng_free(r);
}

/* Very strong growth (x 2.2e6 per month: +2% per hour), where the thinning
 * step inside each hour window matters: without the acceptance step the
 * count is about 1% high, against a tolerance of 0.4%. */
static void test_strong_growth(void)
{
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, 4.0);
    cfg.growth_per_month = expm1(0.02 * MONTH / HOUR); /* G = e^(0.02 t / hour) */
    cfg.daily[0] = 0.5;
    const double t_end = 60.0 * HOUR; /* E ~ 1.7e6: 5 sqrt(E) / E = 0.4% */
    double e = trace_arrival_expected(&cfg, 0.0, t_end);
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &cfg, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(24);
    double n = 0.0;
    while (trace_arrival_next(&a, r) < t_end)
        n += 1.0;
    check_poisson(n, e);
    gsl_rng_free(r);
}

/* ------------------------------------------------------------------------- */
/* MMPP                                                                       */

/* Mean, variance and fourth central moment of c[0..n). */
static void moments(const double *c, size_t n, double *mean, double *var, double *m4)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += c[i];
    *mean = s / (double)n;
    double s2 = 0.0, s4 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = c[i] - *mean;
        s2 += d * d;
        s4 += d * d * d * d;
    }
    *var = s2 / (double)(n - 1);
    *m4 = s4 / (double)n;
}

/* Index of dispersion of counts in windows of w seconds over [0, t_end),
 * with its standard error from the sample fourth moment. */
static void dispersion(const trace_arrival_cfg *cfg, double w, double t_end, uint64_t k,
                       double *idc, double *se, double *total)
{
    size_t nw = (size_t)(t_end / w);
    double *c = calloc(nw, sizeof *c);
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, cfg, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(k);
    *total = 0.0;
    for (;;) {
        double t = trace_arrival_next(&a, r);
        if (t >= (double)nw * w)
            break;
        c[(size_t)(t / w)] += 1.0;
        *total += 1.0;
    }
    double mean, var, m4;
    moments(c, nw, &mean, &var, &m4);
    *idc = var / mean;
    *se = sqrt((m4 - var * var) / (double)nw) / mean;
    free(c);
    gsl_rng_free(r);
}

static void test_mmpp(void)
{
    /* two states: quiet (0.2 x, mean 300 s) and burst (5 x, mean 60 s) */
    const double rate = 0.1, t_end = 1e7, w = HOUR;
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, rate);
    cfg.mmpp_states = 2;
    cfg.mmpp_mult[0] = 0.2;
    cfg.mmpp_mult[1] = 5.0;
    cfg.mmpp_sojourn_s[0] = 300.0;
    cfg.mmpp_sojourn_s[1] = 60.0;
    double p1 = 300.0 / 360.0, p2 = 60.0 / 360.0;
    double lbar = rate * (p1 * 0.2 + p2 * 5.0); /* = 0.1 */
    double dl = rate * (5.0 - 0.2), theta = 1.0 / 300.0 + 1.0 / 60.0;
    double cov = p1 * p2 * dl * dl; /* Cov(l(0), l(s)) = cov * exp(-theta s) */
    CHECK_NEAR(trace_arrival_expected(&cfg, 0.0, t_end), lbar * t_end, 1e-9 * lbar * t_end);

    double idc, se, total;
    dispersion(&cfg, w, t_end, 9, &idc, &se, &total);
    double nw = floor(t_end / w);
    /* long-run rate: Var N(T) <= T (lbar + 2 cov / theta) */
    double var_total = nw * w * (lbar + 2.0 * cov / theta);
    CHECK_NEAR(total, lbar * nw * w, Z * sqrt(var_total));
    /* IDC of a window: 1 + 2 cov / lbar * (1/theta - (1 - e^{-theta w}) / (theta^2 w)) */
    double idc_want =
        1.0 + 2.0 * cov / lbar * (1.0 / theta - (-expm1(-theta * w)) / (theta * theta * w));
    CHECK_NEAR(idc, idc_want, Z * se);
    CHECK(idc - Z * se > 1.0); /* bursty, significantly */

    /* control: the Poisson process of the same mean rate has IDC 1 */
    trace_arrival_cfg flat;
    trace_arrival_cfg_poisson(&flat, lbar);
    dispersion(&flat, w, t_end, 10, &idc, &se, &total);
    CHECK_NEAR(idc, 1.0, Z * se);

    /* three states with a silent one: the long-run rate, with the standard
     * error of the total from 50 batch means (batches of 2e5 s >> the
     * correlation time of the chain, ~100 s) */
    trace_arrival_cfg c3;
    trace_arrival_cfg_poisson(&c3, 0.05);
    c3.mmpp_states = 3;
    c3.mmpp_mult[0] = 0.0;
    c3.mmpp_mult[1] = 1.0;
    c3.mmpp_mult[2] = 4.0;
    c3.mmpp_sojourn_s[0] = 100.0;
    c3.mmpp_sojourn_s[1] = 200.0;
    c3.mmpp_sojourn_s[2] = 50.0;
    double l3 = 0.05 * (0.0 * 100.0 + 1.0 * 200.0 + 4.0 * 50.0) / 350.0;
    CHECK_NEAR(trace_arrival_expected(&c3, 0.0, t_end), l3 * t_end, 1e-9 * l3 * t_end);
    double batch[50] = {0};
    trace_arrival a;
    CHECK_EQ_INT(trace_arrival_init(&a, &c3, 0.0, NULL), TM_OK);
    gsl_rng *r = rng_new(11);
    for (;;) {
        double t = trace_arrival_next(&a, r);
        if (t >= t_end)
            break;
        batch[(int)(t / (t_end / 50.0))] += 1.0;
    }
    double mean, var, m4;
    moments(batch, 50, &mean, &var, &m4);
    CHECK_NEAR(mean * 50.0, l3 * t_end, Z * sqrt(50.0 * var));
    gsl_rng_free(r);

    /* Stationary from the start: over the first 100 s (sojourns of 3000 s
     * and 1000 s) the mean count of many short runs is the stationary one,
     * 0.01 * 100 * (0.1 * 3000 + 10 * 1000) / 4000 = 2.575; starting in
     * state 0 would give ~0.4, an even pick of the first state ~5. The
     * standard error comes from the runs' sample variance. */
    trace_arrival_cfg st;
    trace_arrival_cfg_poisson(&st, 0.01);
    st.mmpp_states = 2;
    st.mmpp_mult[0] = 0.1;
    st.mmpp_mult[1] = 10.0;
    st.mmpp_sojourn_s[0] = 3000.0;
    st.mmpp_sojourn_s[1] = 1000.0;
    enum { RUNS = 4000 };
    double *runs = calloc(RUNS, sizeof *runs);
    r = rng_new(25);
    for (int i = 0; i < RUNS; i++) {
        CHECK_EQ_INT(trace_arrival_init(&a, &st, 0.0, NULL), TM_OK);
        while (trace_arrival_next(&a, r) < 100.0)
            runs[i] += 1.0;
    }
    moments(runs, RUNS, &mean, &var, &m4);
    double e_st = trace_arrival_expected(&st, 0.0, 100.0);
    CHECK_NEAR(e_st, 2.575, 1e-12);
    CHECK_NEAR(mean, e_st, Z * sqrt(var / RUNS));
    free(runs);
    gsl_rng_free(r);
}

/* ------------------------------------------------------------------------- */
/* trace_arrival_expected                                                     */

/* The midpoint rule for trace_arrival_rate over [t0, t1] with step h; its
 * error is at most h * (jump) per hour boundary (the integrand is piecewise
 * smooth, jumping at hour boundaries) plus the smooth part's O(h^2). */
static double midpoint(const trace_arrival_cfg *cfg, double t0, double t1, double h)
{
    size_t n = (size_t)ceil((t1 - t0) / h);
    double step = (t1 - t0) / (double)n, sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += trace_arrival_rate(cfg, t0 + ((double)i + 0.5) * step);
    return sum * step;
}

static void test_expected(void)
{
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, 0.01);
    for (int h = 0; h < 24; h++)
        cfg.daily[h] = 0.5 + 0.05 * h;
    for (int d = 0; d < 7; d++)
        cfg.weekly[d] = 1.5 - 0.2 * d;
    cfg.growth_per_month = 0.05;
    cfg.t0_offset_s = 12345.6;

    /* against the midpoint rule over ~5 weeks (so the whole-week geometric
     * sum is used), step 0.5 s */
    const double t0 = 1000.25, t1 = 3e6 + 0.5, h = 0.5;
    double got = trace_arrival_expected(&cfg, t0, t1);
    double num = midpoint(&cfg, t0, t1, h);
    double max_rate = 0.01 * (0.5 + 0.05 * 23) * 1.5 * pow(1.05, t1 / MONTH);
    double boundaries = (t1 - t0) / HOUR + 2.0;
    double tol = boundaries * max_rate * h;
    CHECK_NEAR(got, num, tol);
    CHECK(tol < 1e-3 * got); /* the check is sharp enough to mean something */

    /* short intervals, where the phase of the profiles matters */
    const double shorts[3][2] = {{1000.25, 1000.25 + 5.0 * HOUR + 17.0},
                                 {2.0 * DAY + 100.0, 2.5 * DAY},
                                 {-5000.0, 7.0 * HOUR}};
    for (int i = 0; i < 3; i++) {
        double a = shorts[i][0], b = shorts[i][1];
        double e = trace_arrival_expected(&cfg, a, b);
        double stol = ((b - a) / HOUR + 2.0) * max_rate * 0.05;
        CHECK_NEAR(e, midpoint(&cfg, a, b, 0.05), stol);
        CHECK(stol < 1e-4 * e);
    }

    /* the rate itself at chosen instants: t + offset = Monday 10:30 and
     * Sunday 23:59 of the next week */
    double t_mon = 10.5 * HOUR - cfg.t0_offset_s;
    CHECK_NEAR(trace_arrival_rate(&cfg, t_mon), 0.01 * 1.0 * 1.5 * pow(1.05, t_mon / MONTH), 1e-15);
    double t_sun = 2.0 * WEEK - 60.0 - cfg.t0_offset_s;
    CHECK_NEAR(trace_arrival_rate(&cfg, t_sun), 0.01 * 1.65 * 0.3 * pow(1.05, t_sun / MONTH),
               1e-15);
    CHECK(isnan(trace_arrival_rate(&cfg, 1e20)));

    /* the same interval summed over one-day pieces (no whole weeks) */
    double pieces = 0.0;
    for (double a = t0; a < t1; a += DAY)
        pieces += trace_arrival_expected(&cfg, a, a + DAY < t1 ? a + DAY : t1);
    CHECK_NEAR(got, pieces, 1e-10 * got);

    /* 30 weeks: whole weeks against one-day pieces */
    double long_t1 = 30.0 * WEEK + 5000.0;
    double whole = trace_arrival_expected(&cfg, -777.0, long_t1);
    pieces = 0.0;
    for (double a = -777.0; a < long_t1; a += DAY)
        pieces += trace_arrival_expected(&cfg, a, a + DAY < long_t1 ? a + DAY : long_t1);
    CHECK_NEAR(whole, pieces, 1e-10 * whole);

    /* the MMPP only scales by its stationary mean */
    trace_arrival_cfg m = cfg;
    m.mmpp_states = 3;
    m.mmpp_mult[0] = 0.5;
    m.mmpp_mult[1] = 2.0;
    m.mmpp_mult[2] = 0.0;
    m.mmpp_sojourn_s[0] = 10.0;
    m.mmpp_sojourn_s[1] = 30.0;
    m.mmpp_sojourn_s[2] = 60.0;
    CHECK_NEAR(trace_arrival_expected(&m, t0, t1), got * (5.0 + 60.0) / 100.0, 1e-12 * got);

    /* to +inf: declining -> the infinite geometric sum (vs 2000 weeks of
     * pieces, after which (0.95)^460 months is ~1e-10); else +inf */
    trace_arrival_cfg dec = cfg;
    dec.growth_per_month = -0.05;
    double inf_sum = trace_arrival_expected(&dec, 0.0, INFINITY);
    double partial = 0.0;
    for (int w = 0; w < 2000; w++)
        partial += trace_arrival_expected(&dec, w * WEEK, (w + 1) * WEEK);
    CHECK_NEAR(inf_sum, partial, 1e-8 * inf_sum);
    CHECK(isinf(trace_arrival_expected(&cfg, 0.0, INFINITY)));
    trace_arrival_cfg zero;
    trace_arrival_cfg_poisson(&zero, 0.0);
    CHECK_NEAR(trace_arrival_expected(&zero, 0.0, INFINITY), 0.0, 0.0);

    /* degenerate and invalid */
    CHECK_NEAR(trace_arrival_expected(&cfg, 5.0, 5.0), 0.0, 0.0);
    CHECK_NEAR(trace_arrival_expected(&cfg, 5.0, 4.0), 0.0, 0.0);
    CHECK(isnan(trace_arrival_expected(&cfg, NAN, 4.0)));
    CHECK(isnan(trace_arrival_expected(&cfg, 0.0, 1e20)));
    trace_arrival_cfg bad = cfg;
    bad.rate_per_s = -1.0;
    CHECK(isnan(trace_arrival_expected(&bad, 0.0, 10.0)));
}

/* ------------------------------------------------------------------------- */
/* Validation, the zero rate, determinism                                     */

static void test_validation(void)
{
    trace_arrival_cfg ok;
    trace_arrival_cfg_poisson(&ok, 1.0);
    ok.mmpp_states = 2;
    ok.mmpp_sojourn_s[0] = 10.0;
    ok.mmpp_sojourn_s[1] = 10.0;
    trace_arrival a;
    tm_diag diag;
    CHECK_EQ_INT(trace_arrival_init(&a, &ok, 0.0, &diag), TM_OK);

    /* each case: one field made invalid, and the diag must name it */
    trace_arrival_cfg c;
#define BAD(where_, stmt_)                                                                         \
    do {                                                                                           \
        c = ok;                                                                                    \
        stmt_;                                                                                     \
        tm_diag_clear(&diag);                                                                      \
        int rc_ = trace_arrival_init(&a, &c, 0.0, &diag);                                          \
        if (rc_ != TM_ERR_INVAL || strcmp(diag.where, where_) != 0)                                \
            fprintf(stderr, "case %s: rc %d, diag \"%s: %s\"\n", #stmt_, rc_, diag.where,          \
                    diag.msg);                                                                     \
        CHECK_EQ_INT(rc_, TM_ERR_INVAL);                                                           \
        CHECK_STR(diag.where, where_);                                                             \
        CHECK(strstr(diag.msg, "expected") && strstr(diag.msg, "got"));                            \
    } while (0)
    BAD("arrival.rate_per_s", c.rate_per_s = -1.0);
    BAD("arrival.rate_per_s", c.rate_per_s = NAN);
    BAD("arrival.rate_per_s", c.rate_per_s = INFINITY);
    BAD("arrival.daily[3]", c.daily[3] = -0.5);
    BAD("arrival.daily[23]", c.daily[23] = NAN);
    BAD("arrival.daily", memset(c.daily, 0, sizeof c.daily));
    BAD("arrival.weekly[6]", c.weekly[6] = INFINITY);
    BAD("arrival.weekly", memset(c.weekly, 0, sizeof c.weekly));
    BAD("arrival.growth_per_month", c.growth_per_month = -1.0);
    BAD("arrival.growth_per_month", c.growth_per_month = NAN);
    BAD("arrival.t0_offset_s", c.t0_offset_s = INFINITY);
    BAD("arrival.mmpp_states", c.mmpp_states = 0);
    BAD("arrival.mmpp_states", c.mmpp_states = 5);
    BAD("arrival.mmpp_mult[1]", c.mmpp_mult[1] = -2.0);
    BAD("arrival.mmpp_mult", (c.mmpp_mult[0] = 0.0, c.mmpp_mult[1] = 0.0));
    BAD("arrival.mmpp_sojourn_s[1]", c.mmpp_sojourn_s[1] = 0.0);
    BAD("arrival.mmpp_sojourn_s[0]", c.mmpp_sojourn_s[0] = INFINITY);
    BAD("arrival.mmpp_sojourn_s[2]", c.mmpp_states = 3); /* forgot the third sojourn */
#undef BAD
    tm_diag_clear(&diag);
    CHECK_EQ_INT(trace_arrival_init(&a, &ok, NAN, &diag), TM_ERR_INVAL);
    CHECK_STR(diag.where, "arrival.t_start_s");

    /* one state: its sojourn is not used and may be 0 */
    c = ok;
    c.mmpp_states = 1;
    c.mmpp_sojourn_s[0] = 0.0;
    CHECK_EQ_INT(trace_arrival_init(&a, &c, 0.0, NULL), TM_OK);

    /* a zero rate is valid (with any profile) and never arrives */
    gsl_rng *r = rng_new(12);
    trace_arrival_cfg z;
    trace_arrival_cfg_poisson(&z, 0.0);
    memset(z.daily, 0, sizeof z.daily);
    z.growth_per_month = 0.5;
    CHECK_EQ_INT(trace_arrival_init(&a, &z, 0.0, NULL), TM_OK);
    CHECK(isinf(trace_arrival_next(&a, r)));
    CHECK(isinf(trace_arrival_next(&a, r)));

    /* subnormal rates: 1 / rate overflows, and GSL's exponential with an
     * infinite mean returns NaN when its uniform is 0; never NaN here */
    trace_arrival_cfg tiny;
    trace_arrival_cfg_poisson(&tiny, 1e-310);
    CHECK_EQ_INT(trace_arrival_init(&a, &tiny, 0.0, NULL), TM_OK);
    CHECK(isinf(trace_arrival_next(&a, r)));
    trace_arrival_cfg_poisson(&tiny, 1.0);
    tiny.daily[5] = 1e-310; /* thinning, with one subnormal hour */
    CHECK_EQ_INT(trace_arrival_init(&a, &tiny, -3.5 * HOUR, NULL), TM_OK);
    int bad = 0, in_hour5 = 0;
    for (int i = 0; i < 200000; i++) {
        double t = trace_arrival_next(&a, r);
        bad += !isfinite(t);
        in_hour5 += floor_mod((int64_t)floor(t / HOUR), 24) == 5;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(in_hour5, 0);
    gsl_rng_free(r);
}

static void test_determinism(void)
{
    trace_arrival_cfg cfg;
    trace_arrival_cfg_poisson(&cfg, 0.05);
    cfg.daily[2] = 3.0;
    cfg.growth_per_month = 0.1;
    cfg.mmpp_states = 2;
    cfg.mmpp_mult[1] = 4.0;
    cfg.mmpp_sojourn_s[0] = 500.0;
    cfg.mmpp_sojourn_s[1] = 100.0;
    trace_arrival a1, a2;
    CHECK_EQ_INT(trace_arrival_init(&a1, &cfg, 0.0, NULL), TM_OK);
    CHECK_EQ_INT(trace_arrival_init(&a2, &cfg, 0.0, NULL), TM_OK);
    gsl_rng *r1 = rng_new(13), *r2 = rng_new(13);
    int same = 1, increasing = 1;
    double prev = 0.0;
    for (int i = 0; i < 5000; i++) {
        double t1 = trace_arrival_next(&a1, r1);
        double t2 = trace_arrival_next(&a2, r2);
        same &= t1 == t2;
        increasing &= t1 >= prev;
        prev = t1;
    }
    CHECK(same);
    CHECK(increasing);
    gsl_rng_free(r1);
    gsl_rng_free(r2);
}

int main(void)
{
    base_seed = check_seed(20240611);
    test_poisson();
    test_thinning_restarts();
    test_daily();
    test_weekly();
    test_growth();
    test_profiles_with_growth();
    test_declining();
    test_strong_growth();
    test_mmpp();
    test_expected();
    test_validation();
    test_determinism();
    return check_finish("test_arrival");
}
