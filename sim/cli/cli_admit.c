/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_admit.c — admission on the command line: every command that runs a
 * scenario holds it to the limits (the defaults, raised with --limit
 * NAME=VALUE) before it runs anything, and `validate -v` prints the
 * estimate the limits are held against (config/admit.c computes both).
 */
#include "cli/cli_int.h"
#include "model/service_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim__cli_admit(const sim_scenario *sc, const sim__cli_args *a)
{
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim_scenario_admit(sc, a ? &a->limits : NULL, NULL, &d);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

/* Put `pre` before d's message ("at --volumes 1e15 (...): an offered load
 * ..."). */
static void prefix(tm_diag *d, const char *pre)
{
    char msg[sizeof d->msg];
    snprintf(msg, sizeof msg, "%s", d->msg);
    snprintf(d->msg, sizeof d->msg, "%s: %.400s", pre, msg);
}

int sim__cli_admit_scaled(const sim_scenario *sc, const sim__cli_args *a, double demand,
                          const char *why)
{
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario s = *sc; /* shallow: the classes and services are copied to scale them */
    s.classes = sc->n_classes ? malloc(sc->n_classes * sizeof *s.classes) : NULL;
    s.services = sc->n_services ? malloc(sc->n_services * sizeof *s.services) : NULL;
    int rc = TM_OK;
    if ((sc->n_classes && !s.classes) || (sc->n_services && !s.services)) {
        rc = tm_diag_set(&d, TM_ERR_NOMEM, "admission", "out of memory");
    } else {
        if (sc->n_classes)
            memcpy(s.classes, sc->classes, sc->n_classes * sizeof *s.classes);
        if (sc->n_services)
            memcpy(s.services, sc->services, sc->n_services * sizeof *s.services);
        for (size_t c = 0; c < s.n_classes; c++)
            s.classes[c].arrival.rate_per_s *= demand;
        for (size_t v = 0; v < s.n_services; v++) {
            s.services[v].cfg.load.rate_per_s *= demand;
            s.services[v].special.load.rate_per_s *= demand;
        }
        rc = sim_scenario_admit(&s, a ? &a->limits : NULL, NULL, &d);
        if (rc != TM_OK && why)
            prefix(&d, why);
    }
    free(s.classes);
    free(s.services);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

/* Tokens (input + output) per request of a service's model. */
static double tokens_per_req(const sim__svc_cfg *c)
{
    return c->tokens_in_per_req + c->tokens_out_per_req;
}

double sim__cli_tokens_per_month(const sim_scenario *sc)
{
    double horizon_s = (double)sc->horizon_us / SIM_US_PER_S, tok = 0;
    if (!(horizon_s > 0))
        return 0;
    for (size_t v = 0; v < sc->n_services; v++) {
        const sim_service_spec *sp = &sc->services[v];
        const trace_arrival_cfg *l = &sp->cfg.load;
        double at = sp->special_at_us >= 0 && sp->special_at_us < sc->horizon_us
                        ? (double)sp->special_at_us / SIM_US_PER_S
                        : horizon_s;
        tok += trace_arrival_expected(l, 0, at) * tokens_per_req(&sp->cfg);
        if (at < horizon_s)
            tok += trace_arrival_expected(l, at, horizon_s) * tokens_per_req(&sp->special);
    }
    return tok * SIM_HOURS_PER_MONTH / (horizon_s / 3600.0);
}

/* "LIMIT" of limit k, as the estimate lines end: "limit 1e8". */
static const char *lim(char *buf, size_t n, const sim_limits *l, int k)
{
    sim_estimate_fmt(buf, n, l->max[k], 0);
    return buf;
}

void sim__cli_print_estimate(FILE *f, const sim_estimate *e, const sim_limits *l,
                             const char *indent)
{
    char x[40], y[40], z[40], w[40], u[40];
    sim_estimate_fmt(x, sizeof x, e->arrivals, 1);
    fprintf(f, "%sarrivals: %s jobs over the horizon", indent, x);
    if (e->arrivals_class != (size_t)-1) {
        sim_estimate_fmt(y, sizeof y, e->class_arrivals, 1);
        fprintf(f, ", %s in workload.classes[%zu]", y, e->arrivals_class);
    }
    fprintf(f, " (limit %s per class and in all)\n", lim(u, sizeof u, l, SIM_LIMIT_ARRIVALS));

    sim_estimate_fmt(x, sizeof x, e->requests, 1);
    fprintf(f, "%srequests: %s over the horizon", indent, x);
    if (e->request_service != (size_t)-1) {
        sim_estimate_fmt(y, sizeof y, e->request_rate, 0);
        fprintf(f, ", at most %s/s in workload.services[%zu]", y, e->request_service);
    }
    fprintf(f, " (limit %s requests/s per service)\n", lim(u, sizeof u, l, SIM_LIMIT_REQUEST_RATE));

    sim_estimate_fmt(x, sizeof x, e->nodes, 0);
    sim_estimate_fmt(y, sizeof y, e->gpus, 0);
    fprintf(f, "%sfleet: %zu pools, %s nodes, %s GPUs (limits %s nodes, ", indent, e->pools, x, y,
            lim(u, sizeof u, l, SIM_LIMIT_NODES));
    fprintf(f, "%s GPUs)\n", lim(u, sizeof u, l, SIM_LIMIT_GPUS));

    sim_estimate_fmt(x, sizeof x, e->bins, 0);
    sim_estimate_fmt(y, sizeof y, e->columns, 0);
    sim_estimate_fmt(z, sizeof z, e->series, 0);
    sim_estimate_fmt(w, sizeof w, e->tables, 0);
    fprintf(f, "%stime series: %s bins x %s columns = %s values in %s tables (limits %s values, ",
            indent, x, y, z, w, lim(u, sizeof u, l, SIM_LIMIT_SERIES));
    fprintf(f, "%s tables)\n", lim(u, sizeof u, l, SIM_LIMIT_TABLES));

    sim_estimate_fmt(x, sizeof x, e->events, 1);
    sim_estimate_fmt(y, sizeof y, e->failures, 1);
    fprintf(f, "%sevents: %s (GPU failures: %s) (limit %s)\n", indent, x, y,
            lim(u, sizeof u, l, SIM_LIMIT_EVENTS));
}

int sim__cli_pools(const char *cmd, const sim_scenario *sc, const char *list, uint32_t *vary,
                   size_t *n_vary, size_t max)
{
    return sim__cli_pools_opt(cmd, "--pools", sc, list, vary, n_vary, max);
}

int sim__cli_pools_opt(const char *cmd, const char *opt, const sim_scenario *sc, const char *list,
                       uint32_t *vary, size_t *n_vary, size_t max)
{
    *n_vary = 0;
    if (!list) {
        if (sc->n_pools > max)
            return sim__cli_usage(cmd, "the scenario has %zu pools; name at most %zu with %s",
                                  sc->n_pools, max, opt);
        for (size_t p = 0; p < sc->n_pools; p++)
            vary[(*n_vary)++] = (uint32_t)p;
        return 0;
    }
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        size_t k;
        for (k = 0; k < sc->n_pools; k++)
            if (strlen(sc->pools[k].name) == len && strncmp(sc->pools[k].name, p, len) == 0)
                break;
        if (k == sc->n_pools)
            return sim__cli_usage(cmd, "%s: no pool named '%.*s' in the scenario", opt, (int)len,
                                  p);
        for (size_t j = 0; j < *n_vary; j++)
            if (vary[j] == k)
                return sim__cli_usage(cmd, "%s: '%.*s' given twice", opt, (int)len, p);
        if (*n_vary == max)
            return sim__cli_usage(cmd, "%s: at most %zu pools", opt, max);
        vary[(*n_vary)++] = (uint32_t)k;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

int sim__cli_open_scenario(sim_scenario *sc, const char *path, const sim__cli_args *a)
{
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim__cli_load_scenario(sc, path, &d);
    if (rc != TM_OK)
        return sim__cli_error(rc, &d);
    int code = sim__cli_admit(sc, a);
    if (code) {
        sim_scenario_fini(sc);
        return code;
    }
    if (a->have_seed)
        sc->seed = a->seed;
    return 0;
}
