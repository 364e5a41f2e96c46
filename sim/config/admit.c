/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admit.c — admission: what a run of a scenario would cost, estimated before
 * anything runs, and held to limits.
 *
 * The loader bounds every number a scenario holds one at a time
 * (scenarios/SCHEMA.md, "Ranges"); products of them still run away: a rate of
 * 10^6 jobs/s is a range's end, and so is a horizon of 70,000 years, but not
 * both. This file multiplies them out from the resolved scenario:
 *
 *   arrivals      per class, trace_arrival_expected over [0, horizon] (the
 *                 profiles and growth integrated exactly, the MMPP at its
 *                 stationary mean), at most max_jobs;
 *   request rate  per service, the highest hourly offered load over the
 *                 horizon (the fluid service model evaluates load per hour
 *                 piece: requests enter arithmetic, never events, so what is
 *                 bounded is the rate the time series stores, in
 *                 micro-requests/s in an int64);
 *   fleet         nodes and GPUs in all pools;
 *   time series   bins over the horizon x the run's levels, and one table per
 *                 pool, GPU type in the fleet, class and service (each table is
 *                 an HDF5 object of its own: about 6 ms and 90 KB);
 *   events        2 per job (arrival, end), 2 per GPU failure (failure,
 *                 repair), one per MMPP state change and per hour window that a
 *                 generator or service steps through, one per bin, 2 per pool.
 *
 * Each figure is checked against a limit (sim_limit_table; raised with
 * --limit NAME=VALUE), and the first one over names its JSON path. The same
 * function runs in `tarmac validate` and before every command runs a
 * scenario, so a scenario that validates is never refused later.
 */
#include "config/config_int.h"

#include "model/service_int.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_S  3600.0
#define MONTH_S (365.25 / 12.0 * 86400.0)

/* The defaults leave every example scenario and the embedded default a
 * margin of 100 or more (docs/cli.md, "Limits", has their estimates).
 * request_rate cannot pass TRACE_ARRIVAL_PEAK_MAX_PER_S (1e12), the bound
 * traces/arrival.c owns for every caller: the time series holds rates as
 * int64 micro-requests/s (SIM_RATE_SCALE), and 1e12 x 1e6 stays below 2^63. */
const sim_limit_info sim_limit_table[SIM_LIMIT_COUNT] = {
    [SIM_LIMIT_ARRIVALS] = {"arrivals", 1e8, DBL_MAX, "job arrivals"},
    [SIM_LIMIT_REQUEST_RATE] = {"request_rate", 1e9, TRACE_ARRIVAL_PEAK_MAX_PER_S, "requests/s"},
    [SIM_LIMIT_NODES] = {"nodes", 2e6, DBL_MAX, "nodes"},
    [SIM_LIMIT_GPUS] = {"gpus", 1.6e7, DBL_MAX, "GPUs"},
    [SIM_LIMIT_TABLES] = {"tables", 2000, DBL_MAX, "time-series tables"},
    [SIM_LIMIT_SERIES] = {"series", 2.5e8, DBL_MAX, "time-series values"},
    [SIM_LIMIT_EVENTS] = {"events", 1e9, DBL_MAX, "events"},
};

void sim_limits_default(sim_limits *l)
{
    for (int k = 0; k < SIM_LIMIT_COUNT; k++)
        l->max[k] = sim_limit_table[k].def;
}

int sim_limits_set(sim_limits *l, const char *spec, char *err, size_t n)
{
    const char *eq = strchr(spec, '=');
    size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
    int k;
    for (k = 0; k < SIM_LIMIT_COUNT; k++)
        if (strlen(sim_limit_table[k].name) == len &&
            strncmp(spec, sim_limit_table[k].name, len) == 0)
            break;
    if (!eq || k == SIM_LIMIT_COUNT) {
        char names[200] = "";
        size_t used = 0;
        for (int i = 0; i < SIM_LIMIT_COUNT; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     sim_limit_table[i].name);
        snprintf(err, n, "NAME=VALUE with NAME one of %s, got '%s'", names, spec);
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno == ERANGE || !isfinite(v) || !(v > 0) ||
        v > sim_limit_table[k].most) {
        char most[32];
        sim_estimate_fmt(most, sizeof most, sim_limit_table[k].most, 0);
        if (sim_limit_table[k].most < DBL_MAX)
            snprintf(err, n, "%s=VALUE with VALUE a number in (0, %s], got '%s'",
                     sim_limit_table[k].name, most, eq + 1);
        else
            snprintf(err, n, "%s=VALUE with VALUE a number > 0, got '%s'", sim_limit_table[k].name,
                     eq + 1);
        return -1;
    }
    l->max[k] = v;
    return 0;
}

/* "41000", "3.2e9" (two digits), "1e8"; infinity and NaN read as past a
 * double's range, which is what they mean here (an overflowed product). */
void sim_estimate_fmt(char *buf, size_t n, double x, int about)
{
    const char *pre = about ? "about " : "";
    if (!(x <= DBL_MAX)) {
        snprintf(buf, n, "more than 1e308");
        return;
    }
    if (x < 1e6) {
        snprintf(buf, n, "%s%.0f", pre, x);
        return;
    }
    int e = (int)floor(log10(x));
    double m = x / pow(10.0, e);
    if (m >= 9.95) { /* rounds up to 10.0 */
        m /= 10;
        e++;
    }
    char mant[16];
    snprintf(mant, sizeof mant, "%.1f", m);
    size_t l = strlen(mant);
    if (l > 2 && strcmp(mant + l - 2, ".0") == 0)
        mant[l - 2] = '\0';
    snprintf(buf, n, "%s%se%d", pre, mant, e);
}

/* The value to suggest for --limit: the estimate rounded up to one digit
 * ("4e9" for 3.2e9), or the estimate itself below a million. */
static void fmt_raise(char *buf, size_t n, double x)
{
    if (x < 1e6) {
        snprintf(buf, n, "%.0f", ceil(x));
        return;
    }
    int e = (int)floor(log10(x));
    double m = ceil(x / pow(10.0, e) * (1 - 1e-12));
    if (m >= 10) {
        m = 1;
        e++;
    }
    snprintf(buf, n, "%.0fe%d", m, e);
}

/* ------------------------------------------------------------------------- */
/* the estimate                                                               */

static int arrival_flat(const trace_arrival_cfg *a)
{
    for (int h = 1; h < 24; h++)
        if (a->daily[h] != a->daily[0])
            return 0;
    for (int d = 1; d < 7; d++)
        if (a->weekly[d] != a->weekly[0])
            return 0;
    for (uint32_t s = 1; s < a->mmpp_states; s++)
        if (a->mmpp_mult[s] != a->mmpp_mult[0])
            return 0;
    return a->growth_per_month == 0.0;
}

static double mmpp_mean(const trace_arrival_cfg *a)
{
    if (a->mmpp_states <= 1)
        return a->mmpp_mult[0];
    double num = 0, den = 0;
    for (uint32_t s = 0; s < a->mmpp_states && s < TRACE_MMPP_MAX_STATES; s++) {
        num += a->mmpp_mult[s] * a->mmpp_sojourn_s[s];
        den += a->mmpp_sojourn_s[s];
    }
    return den > 0 ? num / den : a->mmpp_mult[0];
}

/* The highest hourly rate of a service's load over [0, horizon]: the largest
 * rate x daily x weekly of the hours covered (a week at most: the profile
 * repeats), times the growth at the end (or 1 for a decline), times the MMPP's
 * stationary mean (the fluid model's multiplier). An upper bound of the
 * offered load of every hour piece the engine evaluates. */
static double peak_rate(const trace_arrival_cfg *a, double horizon_s)
{
    double h0 = floor(a->t0_offset_s / HOUR_S);
    double h1 = floor((horizon_s + a->t0_offset_s) / HOUR_S);
    if (h1 > h0 + 167)
        h1 = h0 + 167;
    double c = 0;
    for (double h = h0; h <= h1; h++) {
        double hd = fmod(h, 24.0), dw = fmod(floor(h / 24.0), 7.0);
        double x = a->rate_per_s * a->daily[(int)hd] * a->weekly[(int)dw];
        if (x > c)
            c = x;
    }
    double m = mmpp_mean(a);
    if (c == 0 || m == 0)
        return 0; /* no load, however much it grows */
    double g = a->growth_per_month > 0 ? exp(log1p(a->growth_per_month) * horizon_s / MONTH_S) : 1;
    return c * g * m;
}

/* The expected number of arrivals over [0, horizon]; +inf where the integral
 * is not a number (it overflowed). */
static double expected(const trace_arrival_cfg *a, double horizon_s)
{
    double x = trace_arrival_expected(a, 0.0, horizon_s);
    return isnan(x) ? INFINITY : x;
}

void sim_scenario_estimate(const sim_scenario *sc, sim_estimate *e)
{
    memset(e, 0, sizeof *e);
    e->arrivals_class = e->request_service = e->mmpp_class = SIZE_MAX;
    double horizon_s = (double)sc->horizon_us / SIM_US_PER_S;
    double hours = ceil(horizon_s / HOUR_S), mmpp_top = 0;

    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_cfg *cc = &sc->classes[c];
        const trace_arrival_cfg *a = &cc->arrival;
        double n = expected(a, horizon_s);
        if (cc->max_jobs > 0 && n > (double)cc->max_jobs)
            n = (double)cc->max_jobs;
        e->arrivals += n;
        if (e->arrivals_class == SIZE_MAX || n > e->class_arrivals) {
            e->class_arrivals = n;
            e->arrivals_class = c;
        }
        if (!(a->rate_per_s > 0) || arrival_flat(a))
            continue; /* a homogeneous generator draws one gap per arrival */
        e->profile_steps += hours;
        if (a->mmpp_states > 1) {
            /* the chain cycles through its states: n changes per cycle of
             * mean length sum(sojourn) */
            double cycle = 0;
            for (uint32_t s = 0; s < a->mmpp_states && s < TRACE_MMPP_MAX_STATES; s++)
                cycle += a->mmpp_sojourn_s[s];
            double m = horizon_s * a->mmpp_states / cycle;
            e->mmpp_changes += m;
            if (e->mmpp_class == SIZE_MAX || m > mmpp_top) {
                mmpp_top = m;
                e->mmpp_class = c;
            }
        }
    }

    for (size_t v = 0; v < sc->n_services; v++) {
        const trace_arrival_cfg *a = &sc->services[v].cfg.load;
        e->requests += expected(a, horizon_s);
        double r = peak_rate(a, horizon_s);
        if (isnan(r))
            r = INFINITY;
        if (e->request_service == SIZE_MAX || r > e->request_rate) {
            e->request_rate = r;
            e->request_service = v;
        }
        /* an hourly piece (accounting, autoscaler, levels) for a varying load */
        e->profile_steps += arrival_flat(a) ? 1 : 2 * hours;
    }

    uint64_t type_used = 0;
    double gpus_of_type[PLACE_MAX_TYPES] = {0};
    e->pools = sc->n_pools;
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        double g = (double)pc->nodes * pc->gpus_per_node;
        e->nodes += pc->nodes;
        e->gpus += g;
        if (pc->type < PLACE_MAX_TYPES) {
            gpus_of_type[pc->type] += g;
            type_used |= 1ull << pc->type;
        }
    }
    double types = 0;
    for (size_t t = 0; t < PLACE_MAX_TYPES; t++) {
        if (!((type_used >> t) & 1u))
            continue;
        types++;
        /* the engine draws failures of a type at GPUs / MTBF up to the horizon */
        if (sc->failures.enabled && sc->failures.mtbf_h[t] > 0)
            e->failures += gpus_of_type[t] * (horizon_s / HOUR_S) / sc->failures.mtbf_h[t];
    }
    e->tables = (double)sc->n_pools + types + (double)sc->n_classes + (double)sc->n_services;
    e->bins = ceil(horizon_s / ((double)sc->sample_us / SIM_US_PER_S));
    e->columns = (double)sim_level_count(sc);
    e->series = e->bins * e->columns;
    e->events = 2 * e->arrivals + 2 * e->failures + e->mmpp_changes + e->profile_steps + e->bins +
                2 * (double)sc->n_pools;
}

/* ------------------------------------------------------------------------- */
/* the limits                                                                 */

/* Over a limit: "FILE: PATH: WHAT, more than the limit L (raise it with
 * --limit NAME=V)", or, past the most a limit may be, what the run cannot
 * hold. */
static int over(const sim_scenario *sc, tm_diag *diag, const char *path, int k, double x,
                const char *what, double lim)
{
    char where[sizeof sc->source + SIM__PATH_MAX_LEN + 4], l[32], r[32];
    snprintf(where, sizeof where, "%s: %s", sc->source[0] ? sc->source : "(scenario)", path);
    sim_estimate_fmt(l, sizeof l, lim, 0);
    const sim_limit_info *li = &sim_limit_table[k];
    if (!(x <= li->most)) {
        char m[32];
        sim_estimate_fmt(m, sizeof m, li->most, 0);
        return tm_diag_set(diag, TM_ERR_LIMIT, where,
                           "%s, more than the limit %s; a run cannot hold more than %s %s", what, l,
                           m, li->units);
    }
    fmt_raise(r, sizeof r, x);
    return tm_diag_set(diag, TM_ERR_LIMIT, where,
                       "%s, more than the limit %s (raise it with --limit %s=%s)", what, l,
                       li->name, r);
}

/* The bound on a peak arrival or request rate (trace_arrival_check_peak)
 * over [0, horizon]: growth compounding over a long horizon passes it even
 * when each factor is in range. Past it: TM_ERR_LIMIT naming the key under
 * `path` ("workload.services[0].load"). */
static int peak_bound(const sim_scenario *sc, const trace_arrival_cfg *a, const char *path,
                      tm_diag *diag)
{
    tm_diag sub;
    tm_diag_clear(&sub);
    double horizon_s = (double)sc->horizon_us / SIM_US_PER_S;
    if (trace_arrival_check_peak(a, 0.0, horizon_s, &sub) == TM_OK)
        return TM_OK;
    const char *key = strncmp(sub.where, "arrival.", 8) == 0 ? sub.where + 8 : "rate_per_s";
    char where[sizeof sc->source + SIM__PATH_MAX_LEN + 48];
    snprintf(where, sizeof where, "%s: %s.%.32s", sc->source[0] ? sc->source : "(scenario)", path,
             key);
    return tm_diag_set(diag, TM_ERR_LIMIT, where, "%s", sub.msg);
}

int sim_scenario_admit(const sim_scenario *sc, const sim_limits *lim, sim_estimate *out,
                       tm_diag *diag)
{
    sim_limits def;
    if (!lim) {
        sim_limits_default(&def);
        lim = &def;
    }
    sim_estimate est, *e = out ? out : &est;
    sim_scenario_estimate(sc, e);
    const double *max = lim->max;
    char what[160], a[40], p[SIM__PATH_MAX_LEN];

    if (!(e->nodes <= max[SIM_LIMIT_NODES])) {
        sim_estimate_fmt(a, sizeof a, e->nodes, 0);
        snprintf(what, sizeof what, "%s nodes in all pools", a);
        return over(sc, diag, "fleet.pools", SIM_LIMIT_NODES, e->nodes, what, max[SIM_LIMIT_NODES]);
    }
    if (!(e->gpus <= max[SIM_LIMIT_GPUS])) {
        sim_estimate_fmt(a, sizeof a, e->gpus, 0);
        snprintf(what, sizeof what, "%s GPUs in all pools", a);
        return over(sc, diag, "fleet.pools", SIM_LIMIT_GPUS, e->gpus, what, max[SIM_LIMIT_GPUS]);
    }
    if (!(e->tables <= max[SIM_LIMIT_TABLES])) {
        /* named where most of them come from */
        const char *path = sc->n_pools >= sc->n_classes && sc->n_pools >= sc->n_services
                               ? "fleet.pools"
                           : sc->n_classes >= sc->n_services ? "workload.classes"
                                                             : "workload.services";
        sim_estimate_fmt(a, sizeof a, e->tables, 0);
        snprintf(what, sizeof what,
                 "%s time-series tables (one per pool, GPU type in the fleet, class and service)",
                 a);
        return over(sc, diag, path, SIM_LIMIT_TABLES, e->tables, what, max[SIM_LIMIT_TABLES]);
    }
    if (!(e->series <= max[SIM_LIMIT_SERIES])) {
        char b[40], c[40];
        sim_estimate_fmt(b, sizeof b, e->bins, 0);
        sim_estimate_fmt(c, sizeof c, e->columns, 0);
        sim_estimate_fmt(a, sizeof a, e->series, 0);
        snprintf(what, sizeof what, "%s time-series bins x %s columns = %s values", b, c, a);
        return over(sc, diag, "sample", SIM_LIMIT_SERIES, e->series, what, max[SIM_LIMIT_SERIES]);
    }
    for (size_t c = 0; c < sc->n_classes; c++) {
        /* max_jobs stops a class's generator whatever its intensity */
        if (sc->classes[c].max_jobs > 0)
            continue;
        char q[SIM__PATH_MAX_LEN];
        sim__json_element(q, "workload.classes", (int)c);
        sim__json_child(p, q, "arrival");
        int rc = peak_bound(sc, &sc->classes[c].arrival, p, diag);
        if (rc != TM_OK)
            return rc;
    }
    if (e->arrivals_class != SIZE_MAX && !(e->class_arrivals <= max[SIM_LIMIT_ARRIVALS])) {
        char q[SIM__PATH_MAX_LEN];
        sim__json_element(q, "workload.classes", (int)e->arrivals_class);
        sim__json_child(p, q, "arrival");
        sim_estimate_fmt(a, sizeof a, e->class_arrivals, 1);
        snprintf(what, sizeof what, "%s arrivals over the horizon", a);
        return over(sc, diag, p, SIM_LIMIT_ARRIVALS, e->class_arrivals, what,
                    max[SIM_LIMIT_ARRIVALS]);
    }
    if (!(e->arrivals <= max[SIM_LIMIT_ARRIVALS])) {
        sim_estimate_fmt(a, sizeof a, e->arrivals, 1);
        snprintf(what, sizeof what, "%s arrivals over the horizon in all classes", a);
        return over(sc, diag, "workload.classes", SIM_LIMIT_ARRIVALS, e->arrivals, what,
                    max[SIM_LIMIT_ARRIVALS]);
    }
    if (e->request_service != SIZE_MAX && !(e->request_rate <= max[SIM_LIMIT_REQUEST_RATE])) {
        char q[SIM__PATH_MAX_LEN];
        sim__json_element(q, "workload.services", (int)e->request_service);
        sim__json_child(p, q, "load");
        sim_estimate_fmt(a, sizeof a, e->request_rate, 0);
        snprintf(what, sizeof what, "an offered load of up to %s requests/s over the horizon", a);
        return over(sc, diag, p, SIM_LIMIT_REQUEST_RATE, e->request_rate, what,
                    max[SIM_LIMIT_REQUEST_RATE]);
    }
    /* past the request_rate limit's check, which says the same with the
     * offered load (MMPP at its mean) where that is over */
    for (size_t v = 0; v < sc->n_services; v++) {
        char q[SIM__PATH_MAX_LEN];
        sim__json_element(q, "workload.services", (int)v);
        sim__json_child(p, q, "load");
        int rc = peak_bound(sc, &sc->services[v].cfg.load, p, diag);
        if (rc != TM_OK)
            return rc;
    }
    if (!(e->events <= max[SIM_LIMIT_EVENTS])) {
        /* named where most of them come from */
        const char *path = "workload";
        double top = 2 * e->arrivals;
        if (2 * e->failures > top) {
            top = 2 * e->failures;
            path = "failures.mtbf_h";
        }
        if (e->mmpp_changes > top && e->mmpp_class != SIZE_MAX) {
            char q[SIM__PATH_MAX_LEN];
            top = e->mmpp_changes;
            sim__json_element(q, "workload.classes", (int)e->mmpp_class);
            sim__json_child(p, q, "arrival.mmpp.sojourn");
            path = p;
        }
        if (e->profile_steps > top || e->bins > top)
            path = "horizon";
        sim_estimate_fmt(a, sizeof a, e->events, 1);
        snprintf(what, sizeof what, "%s events over the horizon", a);
        return over(sc, diag, path, SIM_LIMIT_EVENTS, e->events, what, max[SIM_LIMIT_EVENTS]);
    }
    return TM_OK;
}
