/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size.c — sizing by simulation, its targets: the metric table and the parser
 * of "wait_p95<=10m,slo>=0.99" into terms, checked against a scenario's
 * classes and services (the layers and the decision rule: size_int.h; the
 * method for users: docs/cost.md §6; the target syntax: docs/cli.md). The
 * other two layers are size_search.c (the monotone search over nodes per pool
 * and over mixes of pools, and growth) and size_eval.c (the evaluation that
 * runs the engine with replications).
 *
 * How it works: a term is METRIC[SCOPE]OP VALUE; the metric's row in
 * SIM__SIZE_METRICS gives its units (durations take a unit suffix, shares a
 * fraction or a percentage), the direction a larger fleet moves it (a term
 * asking for the other direction is refused, since adding nodes cannot help)
 * and whether its scope names a class or a service. Every error names the
 * term and what was expected.
 */
#include "studies/size_int.h"

#include "model/service_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *units;
    int lower_is_better, scope, pad;
    const char *desc;
} metrics[SIM__SIZE_N_METRICS] = {
#define SIM__SIZE_ROW_(id, name, units, lower, scope, desc) {name, units, lower, scope, 0, desc},
    SIM__SIZE_METRICS(SIM__SIZE_ROW_)
#undef SIM__SIZE_ROW_
};

const char *sim__size_metric_name(int m)
{
    return m >= 0 && m < SIM__SIZE_N_METRICS ? metrics[m].name : "?";
}

const char *sim__size_metric_units(int m)
{
    return m >= 0 && m < SIM__SIZE_N_METRICS ? metrics[m].units : "?";
}

/* ------------------------------------------------------------------------- */
/* targets                                                                    */

static int parse_duration_s(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1},        {"m", 60}, {"min", 60},
                 {"h", 3600},  {"d", 86400}, {"w", 604800.0}, {"", 1}};
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x) || x < 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = x * units[i].s;
            return 0;
        }
    return -1;
}

static int parse_ratio(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return -1;
    if (strcmp(end, "%") == 0)
        x /= 100;
    else if (*end)
        return -1;
    if (x < 0)
        return -1;
    *out = x;
    return 0;
}

void sim__size_term_format(char *buf, size_t n, const sim__size_term *t, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else if (strcmp(metrics[t->metric].units, "s") != 0)
        snprintf(buf, n, "%.4g", v);
    else if (v < 60)
        snprintf(buf, n, "%.3g s", v);
    else if (v < 3600)
        snprintf(buf, n, "%.3g min", v / 60);
    else if (v < 2 * 86400)
        snprintf(buf, n, "%.3g h", v / 3600);
    else
        snprintf(buf, n, "%.3g d", v / 86400);
}

static void trim(char *s)
{
    size_t a = 0, b = strlen(s);
    while (s[a] == ' ' || s[a] == '\t')
        a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
        b--;
    memmove(s, s + a, b - a);
    s[b - a] = '\0';
}

static int bad_term(tm_diag *diag, const char *term, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_term(tm_diag *diag, const char *term, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tm_diag_set(diag, TM_ERR_USAGE, "--target", "'%s': %s", term, msg);
}

static int parse_term(const char *text, const sim_scenario *sc, sim__size_term *out, size_t max,
                      size_t *n, tm_diag *diag)
{
    char t[256];
    snprintf(t, sizeof t, "%s", text);
    trim(t);
    if (!t[0])
        return tm_diag_set(diag, TM_ERR_USAGE, "--target", "an empty term (two commas?)");
    size_t i = 0;
    while (t[i] && (islower((unsigned char)t[i]) || isdigit((unsigned char)t[i]) || t[i] == '_'))
        i++;
    char name[64];
    if (i == 0 || i >= sizeof name)
        return bad_term(diag, t, "expected METRIC[SCOPE]OP VALUE, e.g. wait_p95<=10m");
    memcpy(name, t, i);
    name[i] = '\0';
    int m = -1;
    for (int k = 0; k < SIM__SIZE_N_METRICS; k++)
        if (strcmp(name, metrics[k].name) == 0)
            m = k;
    if (m < 0) {
        char list[256] = "";
        size_t len = 0;
        for (int k = 0; k < SIM__SIZE_N_METRICS; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
                                    metrics[k].name);
        return tm_diag_set(diag, TM_ERR_USAGE, "--target", "'%s': unknown metric '%s' (one of %s)",
                           t, name, list);
    }
    char scope[SIM_NAME_MAX] = "";
    int has_scope = 0;
    if (t[i] == '[') {
        const char *close = strchr(t + i, ']');
        size_t len = close ? (size_t)(close - (t + i + 1)) : 0;
        if (!close || len == 0 || len >= sizeof scope)
            return bad_term(diag, t, "a scope is a class or service name in brackets");
        memcpy(scope, t + i + 1, len);
        scope[len] = '\0';
        has_scope = 1;
        i = (size_t)(close - t) + 1;
    }
    while (t[i] == ' ')
        i++;
    int le, strict;
    if (strncmp(t + i, "<=", 2) == 0) {
        le = 1, strict = 0, i += 2;
    } else if (strncmp(t + i, ">=", 2) == 0) {
        le = 0, strict = 0, i += 2;
    } else if (t[i] == '<') {
        le = 1, strict = 1, i += 1;
    } else if (t[i] == '>') {
        le = 0, strict = 1, i += 1;
    } else {
        return bad_term(diag, t, "expected an operator <=, >=, < or > after the metric");
    }
    char val[64];
    snprintf(val, sizeof val, "%s", t + i);
    trim(val);
    double limit;
    int is_s = strcmp(metrics[m].units, "s") == 0;
    if (is_s && parse_duration_s(val, &limit))
        return bad_term(diag, t,
                        "expected a duration (\"10m\", \"90s\", \"2h\", seconds), got '%s'", val);
    if (!is_s && parse_ratio(val, &limit))
        return bad_term(
            diag, t, "expected a number >= 0 or a percentage (\"0.99\", \"99%%\"), got '%s'", val);
    if (!is_s && m != SIM__SIZE_SLOWDOWN && limit > 1)
        return bad_term(diag, t, "a share is at most 1 (100%%), got '%s'", val);
    if (le != metrics[m].lower_is_better)
        return tm_diag_set(diag, TM_ERR_USAGE, "--target",
                           "'%s': %s %s as the fleet grows, so the target must be '%s': with '%s' "
                           "a larger fleet could not help",
                           t, name, le ? "rises" : "falls", le ? ">=" : "<=", le ? "<=" : ">=");
    int sc_scope = metrics[m].scope;
    size_t first = 0, last = 0; /* service terms expand over services */
    int idx = -1;
    if (sc_scope == 0) {
        if (sc->n_classes == 0)
            return bad_term(diag, t, "the scenario has no job classes");
        if (has_scope) {
            for (size_t k = 0; k < sc->n_classes; k++)
                if (strcmp(sc->classes[k].name, scope) == 0)
                    idx = (int)k;
            if (idx < 0)
                return bad_term(diag, t, "no class named '%s' in the scenario", scope);
        }
        first = last = 0;
    } else {
        if (sc->n_services == 0)
            return bad_term(diag, t, "the scenario has no services");
        if (has_scope) {
            for (size_t k = 0; k < sc->n_services; k++)
                if (strcmp(sc->services[k].cfg.name, scope) == 0)
                    idx = (int)k;
            if (idx < 0)
                return bad_term(diag, t, "no service named '%s' in the scenario", scope);
            first = last = (size_t)idx;
        } else {
            first = 0;
            last = sc->n_services - 1;
        }
    }
    for (size_t k = first; k <= last; k++) {
        if (*n == max)
            return tm_diag_set(diag, TM_ERR_USAGE, "--target", "more than %zu terms", max);
        sim__size_term *o = &out[(*n)++];
        memset(o, 0, sizeof *o);
        o->metric = m;
        o->le = le;
        o->strict = strict;
        o->limit = limit;
        o->scope = sc_scope == 0 ? idx : (int)k;
        if (sc_scope == 1 && !has_scope)
            snprintf(o->text, sizeof o->text, "%s[%s]%s%s", name, sc->services[k].cfg.name,
                     le ? (strict ? "<" : "<=") : (strict ? ">" : ">="), val);
        else
            snprintf(o->text, sizeof o->text, "%s", t);
    }
    return TM_OK;
}

int sim__size_parse_targets(const char *spec, const sim_scenario *sc, sim__size_term *out,
                            size_t max, size_t *n, tm_diag *diag)
{
    *n = 0;
    if (!spec || !*spec)
        return tm_diag_set(diag, TM_ERR_USAGE, "--target", "no targets given");
    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char term[256];
        if (len >= sizeof term)
            return tm_diag_set(diag, TM_ERR_USAGE, "--target", "a term longer than %zu bytes",
                               sizeof term - 1);
        memcpy(term, p, len);
        term[len] = '\0';
        int rc = parse_term(term, sc, out, max, n, diag);
        if (rc != TM_OK)
            return rc;
        if (!comma)
            break;
        p = comma + 1;
    }
    return TM_OK;
}
