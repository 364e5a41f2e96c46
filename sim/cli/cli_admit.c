/*
 * cli_admit.c — admission on the command line: every command that runs a
 * scenario holds it to the limits (the defaults, raised with --limit
 * NAME=VALUE) before it runs anything, and `validate -v` prints the
 * estimate the limits are held against (config/admit.c computes both).
 */
#include "cli/cli_int.h"

#include <stdio.h>

int sim__cli_admit(const sim_scenario *sc, const sim__cli_args *a)
{
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim_scenario_admit(sc, a ? &a->limits : NULL, NULL, &d);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
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
