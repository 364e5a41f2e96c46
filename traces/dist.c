/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dist.c — the distributions the synthesizer samples sizes and durations from.
 *
 * A trace_dist is a tagged struct: the parametric kinds keep their two
 * parameters in p[], DISCRETE keeps its values, the weights normalised to
 * probabilities and a GSL Walker table (O(1) per sample), EMPIRICAL keeps the
 * values sorted so that its step CDF is a binary search. Every sample is one
 * GSL call on the caller's generator (CONSTANT draws nothing), then a clamp
 * to [min, max]. The mean is computed once at init and cached.
 *
 * GSL parameter order differs from ours: gsl_ran_exponential takes the mean,
 * gsl_ran_weibull (a = scale, b = shape), gsl_ran_pareto (a = shape,
 * b = scale); the calls below translate.
 *
 * Parameters are validated before GSL sees them, so GSL's error handler can
 * only fire for out-of-memory in gsl_ran_discrete_preproc (reported as
 * TM_ERR_NOMEM when the host has turned the aborting handler off).
 */
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

static void dist_reset(trace_dist *d)
{
    memset(d, 0, sizeof *d);
    d->min = 0.0;
    d->max = INFINITY;
}

static int bad_param(tm_diag *diag, const char *where, const char *expected, double got)
{
    return tm_diag_set(diag, TM_ERR_INVAL, where, "expected %s, got %.17g", expected, got);
}

/* Validates and sets the mean; p[] is already stored. */
static int dist_check_parametric(trace_dist *d, tm_diag *diag)
{
    double a = d->p[0], b = d->p[1];
    switch (d->kind) {
    case TRACE_DIST_CONSTANT:
        if (!(isfinite(a) && a >= 0.0))
            return bad_param(diag, "constant.value", "a finite value >= 0", a);
        d->mean = a;
        return TM_OK;
    case TRACE_DIST_EXPONENTIAL:
        if (!(isfinite(a) && a > 0.0))
            return bad_param(diag, "exponential.mean", "a finite mean > 0", a);
        d->mean = a;
        return TM_OK;
    case TRACE_DIST_LOGNORMAL:
        if (!isfinite(a))
            return bad_param(diag, "lognormal.mu", "a finite mu", a);
        if (!(isfinite(b) && b >= 0.0))
            return bad_param(diag, "lognormal.sigma", "a finite sigma >= 0", b);
        d->mean = exp(a + 0.5 * b * b);
        return TM_OK;
    case TRACE_DIST_WEIBULL:
        if (!(isfinite(a) && a > 0.0))
            return bad_param(diag, "weibull.scale", "a finite scale > 0", a);
        if (!(isfinite(b) && b > 0.0))
            return bad_param(diag, "weibull.shape", "a finite shape > 0", b);
        /* lambda * Gamma(1 + 1/k), in logs so that a small shape overflows to
         * +inf instead of failing inside gsl_sf_gamma. */
        d->mean = exp(log(a) + gsl_sf_lngamma(1.0 + 1.0 / b));
        return TM_OK;
    case TRACE_DIST_PARETO:
        if (!(isfinite(a) && a > 0.0))
            return bad_param(diag, "pareto.scale", "a finite scale x_m > 0", a);
        if (!(isfinite(b) && b > 0.0))
            return bad_param(diag, "pareto.alpha", "a finite shape alpha > 0", b);
        d->mean = b <= 1.0 ? INFINITY : b * a / (b - 1.0);
        return TM_OK;
    case TRACE_DIST_UNIFORM:
        if (!(isfinite(a) && a >= 0.0))
            return bad_param(diag, "uniform.low", "a finite low >= 0", a);
        if (!(isfinite(b) && b >= a))
            return tm_diag_set(diag, TM_ERR_INVAL, "uniform.high",
                               "expected a finite high >= low (%.17g), got %.17g", a, b);
        d->mean = 0.5 * (a + b);
        return TM_OK;
    case TRACE_DIST_DISCRETE:
        return tm_diag_set(diag, TM_ERR_INVAL, "dist.kind",
                           "expected a parametric kind, got DISCRETE "
                           "(use trace_dist_init_discrete)");
    case TRACE_DIST_EMPIRICAL:
        return tm_diag_set(diag, TM_ERR_INVAL, "dist.kind",
                           "expected a parametric kind, got EMPIRICAL "
                           "(use trace_dist_init_empirical)");
    }
    return tm_diag_set(diag, TM_ERR_INVAL, "dist.kind", "expected a known kind, got %d",
                       (int)d->kind);
}

int trace_dist_init(trace_dist *d, trace_dist_kind kind, double p0, double p1, tm_diag *diag)
{
    dist_reset(d);
    d->kind = kind;
    d->p[0] = p0;
    d->p[1] = p1;
    int rc = dist_check_parametric(d, diag);
    if (rc != TM_OK)
        dist_reset(d);
    return rc;
}

int trace_dist_init_lognormal_mean(trace_dist *d, double mean, double sigma, tm_diag *diag)
{
    dist_reset(d);
    if (!(isfinite(mean) && mean > 0.0))
        return bad_param(diag, "lognormal.mean", "a finite mean > 0", mean);
    if (!(isfinite(sigma) && sigma >= 0.0))
        return bad_param(diag, "lognormal.sigma", "a finite sigma >= 0", sigma);
    return trace_dist_init(d, TRACE_DIST_LOGNORMAL, log(mean) - 0.5 * sigma * sigma, sigma, diag);
}

/* Each value finite and >= 0; `what` names the array in the diag. */
static int check_values(const double *v, size_t n, const char *what, tm_diag *diag)
{
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(v[i]) && v[i] >= 0.0)) {
            char where[64];
            snprintf(where, sizeof where, "%s[%zu]", what, i);
            return bad_param(diag, where, "a finite value >= 0", v[i]);
        }
    }
    return TM_OK;
}

int trace_dist_init_discrete(trace_dist *d, const double *values, const double *weights, size_t n,
                             tm_diag *diag)
{
    int rc = TM_OK;
    dist_reset(d);
    if (n == 0 || !values || !weights) {
        rc = tm_diag_set(diag, TM_ERR_INVAL, "discrete.n",
                         "expected n >= 1 values and weights, got n = %zu%s", n,
                         (!values || !weights) ? " or a NULL array" : "");
        goto out;
    }
    rc = check_values(values, n, "discrete.values", diag);
    if (rc != TM_OK)
        goto out;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(weights[i]) && weights[i] >= 0.0)) {
            char where[64];
            snprintf(where, sizeof where, "discrete.weights[%zu]", i);
            rc = bad_param(diag, where, "a finite weight >= 0", weights[i]);
            goto out;
        }
        sum += weights[i];
    }
    if (!(sum > 0.0 && isfinite(sum))) {
        rc = tm_diag_set(diag, TM_ERR_INVAL, "discrete.weights",
                         "expected weights with a finite positive sum, got sum %.17g", sum);
        goto out;
    }
    d->kind = TRACE_DIST_DISCRETE;
    d->n = n;
    d->values = malloc(n * sizeof *d->values);
    d->weights = malloc(n * sizeof *d->weights);
    if (!d->values || !d->weights) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "discrete", "cannot allocate %zu values", n);
        goto out;
    }
    memcpy(d->values, values, n * sizeof *values);
    double mean = 0.0;
    for (size_t i = 0; i < n; i++) {
        d->weights[i] = weights[i] / sum;
        mean += d->weights[i] * values[i];
    }
    d->mean = mean;
    d->table = gsl_ran_discrete_preproc(n, d->weights);
    if (!d->table) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "discrete", "cannot build the GSL alias table");
        goto out;
    }
out:
    if (rc != TM_OK)
        trace_dist_fini(d);
    return rc;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int trace_dist_init_empirical(trace_dist *d, double *values, size_t n, tm_diag *diag)
{
    int rc = TM_OK;
    dist_reset(d);
    if (n == 0 || !values) {
        rc = tm_diag_set(diag, TM_ERR_INVAL, "empirical.n", "expected n >= 1 values, got n = %zu%s",
                         n, values ? "" : " (NULL)");
        goto out;
    }
    rc = check_values(values, n, "empirical.values", diag);
    if (rc != TM_OK)
        goto out;
    /* Sorting makes the CDF a binary search; the uniform pick does not care
     * about the order. O(n log n) once. */
    qsort(values, n, sizeof *values, cmp_double);
    /* Kahan summation: n may be in the millions. */
    double sum = 0.0, c = 0.0;
    for (size_t i = 0; i < n; i++) {
        double y = values[i] - c;
        double t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    d->kind = TRACE_DIST_EMPIRICAL;
    d->n = n;
    d->values = values;
    values = NULL;
    d->mean = sum / (double)n;
out:
    free(values); /* ours on failure; NULL on success */
    if (rc != TM_OK)
        dist_reset(d);
    return rc;
}

int trace_dist_set_clamp(trace_dist *d, double min, double max, tm_diag *diag)
{
    if (isnan(min) || isnan(max) || min > max)
        return tm_diag_set(diag, TM_ERR_INVAL, "dist.clamp",
                           "expected min <= max (not NaN), got min %.17g, max %.17g", min, max);
    d->min = min;
    d->max = max;
    return TM_OK;
}

int trace_dist_scaled(trace_dist *d, const trace_dist *src, double c, tm_diag *diag)
{
    if (!(c > 0) || !isfinite(c))
        return tm_diag_set(diag, TM_ERR_INVAL, "dist.scale", "expected a factor > 0, got %.17g", c);
    int rc;
    switch (src->kind) {
    case TRACE_DIST_LOGNORMAL: /* c X is lognormal with mu + ln c */
        rc = trace_dist_init(d, src->kind, src->p[0] + log(c), src->p[1], diag);
        break;
    case TRACE_DIST_WEIBULL: /* the scale scales, the shape does not */
    case TRACE_DIST_PARETO:
        rc = trace_dist_init(d, src->kind, src->p[0] * c, src->p[1], diag);
        break;
    case TRACE_DIST_CONSTANT:
    case TRACE_DIST_EXPONENTIAL:
    case TRACE_DIST_UNIFORM:
        rc = trace_dist_init(d, src->kind, src->p[0] * c, src->p[1] * c, diag);
        break;
    case TRACE_DIST_DISCRETE:
    case TRACE_DIST_EMPIRICAL: {
        double *v = malloc(src->n * sizeof *v);
        if (!v)
            return tm_diag_set(diag, TM_ERR_NOMEM, "dist", "out of memory");
        for (size_t i = 0; i < src->n; i++)
            v[i] = src->values[i] * c;
        if (src->kind == TRACE_DIST_DISCRETE) {
            rc = trace_dist_init_discrete(d, v, src->weights, src->n, diag);
            free(v);
        } else {
            rc = trace_dist_init_empirical(d, v, src->n, diag); /* takes v */
        }
        break;
    }
    default:
        return tm_diag_set(diag, TM_ERR_INVAL, "dist.scale", "unknown distribution kind %d",
                           (int)src->kind);
    }
    if (rc != TM_OK)
        return rc;
    return trace_dist_set_clamp(d, src->min * c, src->max * c, diag);
}

void trace_dist_fini(trace_dist *d)
{
    if (!d)
        return;
    free(d->values);
    free(d->weights);
    gsl_ran_discrete_free(d->table); /* accepts NULL */
    dist_reset(d);
}

/* An index uniform on [0, n). gsl_rng_uniform_int needs n <= max - min of
 * the generator (2^32 - 1 for mt19937); beyond that, scale a uniform. */
static size_t uniform_index(gsl_rng *r, size_t n)
{
    unsigned long range = gsl_rng_max(r) - gsl_rng_min(r);
    if ((unsigned long)n <= range && (size_t)(unsigned long)n == n)
        return (size_t)gsl_rng_uniform_int(r, (unsigned long)n);
    double u = gsl_rng_uniform(r);
    size_t i = (size_t)(u * (double)n);
    return i < n ? i : n - 1;
}

double trace_dist_sample(const trace_dist *d, gsl_rng *r)
{
    double x = 0.0;
    switch (d->kind) {
    case TRACE_DIST_CONSTANT:
        x = d->p[0];
        break;
    case TRACE_DIST_EXPONENTIAL:
        x = trace_exponential(r, d->p[0]);
        break;
    case TRACE_DIST_LOGNORMAL:
        x = gsl_ran_lognormal(r, d->p[0], d->p[1]);
        break;
    case TRACE_DIST_WEIBULL:
        x = gsl_ran_weibull(r, d->p[0], d->p[1]);
        break;
    case TRACE_DIST_PARETO:
        x = gsl_ran_pareto(r, d->p[1], d->p[0]);
        break;
    case TRACE_DIST_UNIFORM:
        x = gsl_ran_flat(r, d->p[0], d->p[1]);
        break;
    case TRACE_DIST_DISCRETE: {
        size_t i = gsl_ran_discrete(r, d->table);
        x = d->values[i];
        break;
    }
    case TRACE_DIST_EMPIRICAL: {
        size_t i = uniform_index(r, d->n);
        x = d->values[i];
        break;
    }
    }
    if (x < d->min)
        x = d->min;
    if (x > d->max)
        x = d->max;
    return x;
}

double trace_dist_mean(const trace_dist *d)
{
    return d->mean;
}

double trace_dist_cdf(const trace_dist *d, double x)
{
    double a = d->p[0], b = d->p[1];
    if (isnan(x))
        return NAN;
    switch (d->kind) {
    case TRACE_DIST_CONSTANT:
        return x >= a ? 1.0 : 0.0;
    case TRACE_DIST_EXPONENTIAL:
        return gsl_cdf_exponential_P(x, a);
    case TRACE_DIST_LOGNORMAL:
        if (b == 0.0) /* a point mass at exp(mu); GSL would divide by 0 */
            return x >= exp(a) ? 1.0 : 0.0;
        return x <= 0.0 ? 0.0 : gsl_cdf_lognormal_P(x, a, b);
    case TRACE_DIST_WEIBULL:
        return x <= 0.0 ? 0.0 : gsl_cdf_weibull_P(x, a, b);
    case TRACE_DIST_PARETO:
        return gsl_cdf_pareto_P(x, b, a);
    case TRACE_DIST_UNIFORM:
        if (x < a)
            return 0.0;
        if (x >= b)
            return 1.0;
        return (x - a) / (b - a);
    case TRACE_DIST_DISCRETE: {
        /* O(n): the values are kept in the caller's order. */
        double p = 0.0;
        for (size_t i = 0; i < d->n; i++)
            if (d->values[i] <= x)
                p += d->weights[i];
        return p > 1.0 ? 1.0 : p;
    }
    case TRACE_DIST_EMPIRICAL: {
        /* The number of values <= x, by binary search on the sorted values. */
        size_t lo = 0, hi = d->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (d->values[mid] <= x)
                lo = mid + 1;
            else
                hi = mid;
        }
        return d->n ? (double)lo / (double)d->n : 0.0;
    }
    }
    return NAN;
}
