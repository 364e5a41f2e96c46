/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dist.c — probability distributions written in a scenario.
 *
 * A number (or a duration string) is a constant; an object names the
 * distribution in "dist" and gives its parameters by name, in seconds or in
 * the unit of the value (SIM__VAL_DURATION or SIM__VAL_NUMBER), with an
 * optional clamp (min, max). traces/ builds and checks the sampler; its
 * message is placed at the JSON path. An "empirical" distribution reads a
 * CSV column, from a path relative to the scenario (or "data:REL").
 *
 * Arrival processes (sim__cfg_load_arrival) are here too, for classes and
 * services alike: Poisson with daily and weekly profiles, growth and MMPP
 * bursts.
 */
#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int value_of(sim__loader *L, const cJSON *v, const char *p, int kind, double *x)
{
    if (kind == SIM__VAL_DURATION)
        return sim__cfg_duration_value(L, v, p, x);
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return sim__cfg_fail(L, p, "expected a finite number, got %g", v->valuedouble);
    if (!cJSON_IsNumber(v))
        return sim__cfg_fail(L, p, "expected a number, got %s", sim__json_kind(v));
    *x = v->valuedouble;
    return TM_OK;
}

static int get_value(sim__loader *L, const cJSON *o, const char *path, const char *key, int kind,
                     double *x, int required)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v) {
        if (required)
            return sim__cfg_fail(L, p, "required");
        return TM_OK;
    }
    return value_of(L, v, p, kind, x);
}

int sim__cfg_dist_diag(sim__loader *L, const char *p, int rc, tm_diag *sub)
{
    if (rc == TM_OK)
        return rc;
    if (rc == TM_ERR_NOMEM)
        return tm_diag_set(L->diag, rc, L->file, "out of memory");
    if (rc == TM_ERR_SCENARIO)
        return rc;
    /* a sampler's own message, placed at the JSON path */
    sim__cfg_fail(L, p, "%s%s%s", sub->where[0] ? sub->where : "", sub->where[0] ? ": " : "",
                  sub->msg);
    return rc == TM_ERR_INVAL ? TM_ERR_SCENARIO : rc;
}

int sim__cfg_load_dist(sim__loader *L, const cJSON *v, const char *p, int kind, trace_dist *d)
{
    tm_diag sub;
    tm_diag_clear(&sub);
    memset(d, 0, sizeof *d);
    if (cJSON_IsNumber(v) || cJSON_IsString(v)) {
        double x;
        int rc = value_of(L, v, p, kind, &x);
        if (rc)
            return rc;
        return sim__cfg_dist_diag(L, p, trace_dist_init(d, TRACE_DIST_CONSTANT, x, 0, &sub), &sub);
    }
    static const char *const keys[] = {"dist",   "value",   "mean", "median", "sigma",    "scale",
                                       "shape",  "alpha",   "low",  "high",   "min",      "max",
                                       "values", "weights", "file", "column", "multiply", NULL};
    int rc = sim__cfg_check_object(L, v, p, keys);
    if (rc)
        return rc;
    char name[32];
    if ((rc = sim__cfg_get_string(L, v, p, "dist", name, sizeof name, NULL)))
        return rc;
    double a = NAN, b = NAN, lo = 0, hi = INFINITY;
    if ((rc = get_value(L, v, p, "min", kind, &lo, 0)) ||
        (rc = get_value(L, v, p, "max", kind, &hi, 0)))
        return rc;
    char q[SIM__PATH_MAX_LEN];
    if (strcmp(name, "constant") == 0) {
        if ((rc = get_value(L, v, p, "value", kind, &a, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_CONSTANT, a, 0, &sub);
    } else if (strcmp(name, "exponential") == 0) {
        if ((rc = get_value(L, v, p, "mean", kind, &a, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_EXPONENTIAL, a, 0, &sub);
    } else if (strcmp(name, "lognormal") == 0) {
        double sigma = NAN;
        if ((rc = sim__cfg_get_number(L, v, p, "sigma", &sigma, 0, 20, 1)))
            return rc;
        if (sim__json_member(v, "mean") && sim__json_member(v, "median"))
            return sim__cfg_fail(L, p, "give \"mean\" or \"median\", not both");
        if (sim__json_member(v, "median")) {
            if ((rc = get_value(L, v, p, "median", kind, &a, 1)))
                return rc;
            if (!(a > 0)) {
                sim__json_child(q, p, "median");
                return sim__cfg_fail(L, q, "expected a median > 0, got %g", a);
            }
            rc = trace_dist_init(d, TRACE_DIST_LOGNORMAL, log(a), sigma, &sub);
        } else {
            if ((rc = get_value(L, v, p, "mean", kind, &a, 1)))
                return rc;
            rc = trace_dist_init_lognormal_mean(d, a, sigma, &sub);
        }
    } else if (strcmp(name, "weibull") == 0) {
        if ((rc = get_value(L, v, p, "scale", kind, &a, 1)) ||
            (rc = sim__cfg_get_number(L, v, p, "shape", &b, 1e-6, 1e6, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_WEIBULL, a, b, &sub);
    } else if (strcmp(name, "pareto") == 0) {
        if ((rc = get_value(L, v, p, "scale", kind, &a, 1)) ||
            (rc = sim__cfg_get_number(L, v, p, "alpha", &b, 1e-6, 1e6, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_PARETO, a, b, &sub);
    } else if (strcmp(name, "uniform") == 0) {
        if ((rc = get_value(L, v, p, "low", kind, &a, 1)) ||
            (rc = get_value(L, v, p, "high", kind, &b, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_UNIFORM, a, b, &sub);
    } else if (strcmp(name, "discrete") == 0) {
        const cJSON *vals = sim__json_member(v, "values"), *w = sim__json_member(v, "weights");
        sim__json_child(q, p, "values");
        if (!cJSON_IsArray(vals) || cJSON_GetArraySize(vals) < 1)
            return sim__cfg_fail(L, q, "expected a non-empty array, got %s", sim__json_kind(vals));
        int n = cJSON_GetArraySize(vals);
        if (w && (!cJSON_IsArray(w) || cJSON_GetArraySize(w) != n)) {
            sim__json_child(q, p, "weights");
            return sim__cfg_fail(L, q, "expected an array of %d weights, got %s", n,
                                 sim__json_kind(w));
        }
        double *xv = malloc((size_t)n * sizeof *xv), *wv = malloc((size_t)n * sizeof *wv);
        if (!xv || !wv) {
            free(xv);
            free(wv);
            return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
        }
        int k = 0;
        rc = TM_OK;
        for (const cJSON *e = vals->child; e && rc == TM_OK; e = e->next, k++) {
            char r[SIM__PATH_MAX_LEN], vp[SIM__PATH_MAX_LEN];
            sim__json_child(vp, p, "values");
            sim__json_element(r, vp, k);
            rc = value_of(L, e, r, kind, &xv[k]);
            wv[k] = 1.0;
        }
        k = 0;
        for (const cJSON *e = w ? w->child : NULL; e && rc == TM_OK; e = e->next, k++) {
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0) {
                char r[SIM__PATH_MAX_LEN], wp[SIM__PATH_MAX_LEN];
                sim__json_child(wp, p, "weights");
                sim__json_element(r, wp, k);
                rc = sim__cfg_fail(L, r, "expected a weight >= 0, got %s", sim__json_kind(e));
            } else {
                wv[k] = e->valuedouble;
            }
        }
        if (rc == TM_OK)
            rc = trace_dist_init_discrete(d, xv, wv, (size_t)n, &sub);
        free(xv);
        free(wv);
    } else if (strcmp(name, "empirical") == 0) {
        char file[400], column[64], path[1024];
        double mult = 1.0;
        if ((rc = sim__cfg_get_string(L, v, p, "file", file, sizeof file, NULL)) ||
            (rc = sim__cfg_get_string(L, v, p, "column", column, sizeof column, NULL)) ||
            (rc = sim__cfg_get_number(L, v, p, "multiply", &mult, 0, 1e12, 0)))
            return rc;
        sim__cfg_resolve_path(L, file, path, sizeof path);
        double *vals = NULL;
        size_t n = 0;
        rc = trace_csv_column(path, column, &vals, &n, &sub);
        if (rc != TM_OK) {
            sim__json_child(q, p, "file");
            sim__cfg_fail(L, q, "%s: %s", sub.where, sub.msg);
            return rc;
        }
        for (size_t k = 0; k < n; k++)
            vals[k] *= mult;
        rc = trace_dist_init_empirical(d, vals, n, &sub);
    } else {
        sim__json_child(q, p, "dist");
        return sim__cfg_fail(
            L, q,
            "unknown distribution \"%s\" (constant, exponential, lognormal, weibull, "
            "pareto, uniform, discrete, empirical)",
            name);
    }
    if (rc != TM_OK)
        return sim__cfg_dist_diag(L, p, rc, &sub);
    if (lo > hi)
        return sim__cfg_fail(L, p, "min (%g) is above max (%g)", lo, hi);
    return sim__cfg_dist_diag(L, p, trace_dist_set_clamp(d, lo, hi, &sub), &sub);
}

/* ------------------------------------------------------------------------- */
/* arrivals                                                                   */

/* The ranges of an arrival process (scenarios/SCHEMA.md, "Ranges"). Each
 * bounds one factor of the intensity; their product over the horizon is
 * bounded by the admission estimate (admit.c), which sees them together. */
#define RATE_MAX_PER_S   1e6 /* a million jobs or requests a second */
#define RATE_MAX_IN_UNIT 1e9 /* rate_per_hour, rate_per_day */
#define MULT_MAX         1e6 /* daily, weekly and MMPP multipliers */
#define GROWTH_MIN       -0.999
#define GROWTH_MAX       10.0     /* x11 a month */
#define OFFSET_MAX_S     604800.0 /* start_offset: a place in the week */
#define SOJOURN_MIN_S    1.0

static int load_profile(sim__loader *L, const cJSON *o, const char *path, const char *key,
                        double *out, int n)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v)
        return TM_OK;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return sim__cfg_fail(L, p, "expected an array of %d multipliers, got %s", n,
                             sim__json_kind(v));
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > MULT_MAX) {
            char q[SIM__PATH_MAX_LEN];
            sim__json_element(q, p, i);
            if (cJSON_IsNumber(e))
                return sim__cfg_fail(L, q, "expected a multiplier in [0, %g], got %g", MULT_MAX,
                                     e->valuedouble);
            return sim__cfg_fail(L, q, "expected a multiplier in [0, %g], got %s", MULT_MAX,
                                 sim__json_kind(e));
        }
        out[i] = e->valuedouble;
    }
    return TM_OK;
}

int sim__cfg_load_arrival(sim__loader *L, const cJSON *o, const char *p, trace_arrival_cfg *a,
                          double *offered_load)
{
    static const char *const keys[] = {
        "process", "rate_per_s", "rate_per_hour",    "rate_per_day", "offered_load",
        "daily",   "weekly",     "growth_per_month", "start_offset", "mmpp",
        NULL};
    int rc = sim__cfg_check_object(L, o, p, keys);
    if (rc)
        return rc;
    char proc[32];
    if ((rc = sim__cfg_get_string(L, o, p, "process", proc, sizeof proc, "poisson")))
        return rc;
    char q[SIM__PATH_MAX_LEN];
    if (strcmp(proc, "poisson") != 0) {
        sim__json_child(q, p, "process");
        return sim__cfg_fail(
            L, q,
            "expected \"poisson\" (profiles, growth and bursts are options of it), got "
            "\"%s\"",
            proc);
    }
    trace_arrival_cfg_poisson(a, 0);
    int given = 0;
    double r;
    static const struct {
        const char *key;
        double per_s, max;
    } rates[] = {{"rate_per_s", 1, RATE_MAX_PER_S},
                 {"rate_per_hour", 1.0 / 3600, RATE_MAX_IN_UNIT},
                 {"rate_per_day", 1.0 / 86400, RATE_MAX_IN_UNIT}};
    for (size_t k = 0; k < 3; k++) {
        if (!sim__json_member(o, rates[k].key))
            continue;
        if ((rc = sim__cfg_get_number(L, o, p, rates[k].key, &r, 0, rates[k].max, 1)))
            return rc;
        a->rate_per_s = r * rates[k].per_s;
        given++;
    }
    *offered_load = NAN;
    if (sim__json_member(o, "offered_load")) {
        if ((rc = sim__cfg_get_number(L, o, p, "offered_load", offered_load, 0, 100, 1)))
            return rc;
        given++;
    }
    if (given != 1)
        return sim__cfg_fail(
            L, p, "give exactly one of rate_per_s, rate_per_hour, rate_per_day, offered_load");
    int64_t off = 0;
    if ((rc = load_profile(L, o, p, "daily", a->daily, 24)) ||
        (rc = load_profile(L, o, p, "weekly", a->weekly, 7)) ||
        (rc = sim__cfg_get_number(L, o, p, "growth_per_month", &a->growth_per_month, GROWTH_MIN,
                                  GROWTH_MAX, 0)) ||
        (rc = sim__cfg_get_duration(L, o, p, "start_offset", &off, 0)))
        return rc;
    a->t0_offset_s = (double)off / SIM_US_PER_S;
    if (a->t0_offset_s > OFFSET_MAX_S) {
        sim__json_child(q, p, "start_offset");
        return sim__cfg_fail(L, q, "expected a place in the week within [0, 7d], got %g s",
                             a->t0_offset_s);
    }
    const cJSON *m = sim__json_member(o, "mmpp");
    if (m) {
        sim__json_child(q, p, "mmpp");
        static const char *const mkeys[] = {"multipliers", "sojourn", NULL};
        if ((rc = sim__cfg_check_object(L, m, q, mkeys)))
            return rc;
        const cJSON *mult = sim__json_member(m, "multipliers"),
                    *soj = sim__json_member(m, "sojourn");
        char r1[SIM__PATH_MAX_LEN];
        sim__json_child(r1, q, "multipliers");
        int n = cJSON_IsArray(mult) ? cJSON_GetArraySize(mult) : 0;
        if (n < 2 || n > TRACE_MMPP_MAX_STATES)
            return sim__cfg_fail(L, r1, "expected an array of 2 to %d multipliers",
                                 TRACE_MMPP_MAX_STATES);
        if (!cJSON_IsArray(soj) || cJSON_GetArraySize(soj) != n) {
            sim__json_child(r1, q, "sojourn");
            return sim__cfg_fail(L, r1, "expected an array of %d mean sojourn durations", n);
        }
        a->mmpp_states = (uint32_t)n;
        int i = 0;
        for (const cJSON *e = mult->child; e; e = e->next, i++) {
            char r2[SIM__PATH_MAX_LEN];
            sim__json_element(r2, r1, i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
                e->valuedouble > MULT_MAX) {
                if (cJSON_IsNumber(e))
                    return sim__cfg_fail(L, r2, "expected a multiplier in [0, %g], got %g",
                                         MULT_MAX, e->valuedouble);
                return sim__cfg_fail(L, r2, "expected a multiplier in [0, %g], got %s", MULT_MAX,
                                     sim__json_kind(e));
            }
            a->mmpp_mult[i] = e->valuedouble;
        }
        i = 0;
        sim__json_child(r1, q, "sojourn");
        for (const cJSON *e = soj->child; e; e = e->next, i++) {
            char r2[SIM__PATH_MAX_LEN];
            sim__json_element(r2, r1, i);
            double s;
            if ((rc = sim__cfg_duration_value(L, e, r2, &s)))
                return rc;
            if (!(s >= SOJOURN_MIN_S) || !(s * 1e6 <= (double)SIM_T_MAX_US))
                return sim__cfg_fail(L, r2,
                                     "expected a mean sojourn within [1 s, 2^61 us], got %g s", s);
            a->mmpp_sojourn_s[i] = s;
        }
    }
    return TM_OK;
}
