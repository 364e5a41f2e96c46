/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_services.c — the figure of a run's services (real-time inference,
 * docs/services.md): per service, a column of three panels over time,
 *
 *   1. requests per second offered, stacked by what became of them: served
 *      within the SLO, served late, sent to the API, unserved (the four add
 *      up to the offered rate, docs/output.md);
 *   2. replicas serving and replicas requested but still loading (stacked);
 *   3. SLO attainment per bin with the service's target as a dashed line.
 *
 * The columns come from /timeseries_service/<service> (bins as /timeseries);
 * the SLO (slo_s, slo_target, slo_kind) and the run's attainment from the
 * attributes and scalars of /summary/services/<service>, when present. At
 * most MAX_COLS services share a figure: the next ones go to services_2,
 * services_3, ...
 */
#include "plot/plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 3

enum { C_OFFERED, C_OK, C_LATE, C_API, C_UNSERVED, C_READY, C_LOADING, C_ATTAIN, C_N };
static const char *const col_names[C_N] = {"offered_rps",      "slo_ok_rps",    "late_rps",
                                           "api_rps",          "unserved_rps",  "replicas_ready",
                                           "replicas_loading", "slo_attainment"};

typedef struct svc {
    const char *name;
    double *v[C_N];
    double slo_s, target, run_attain;
    char kind[16];
} svc;

static void svc_free(svc *s)
{
    for (size_t k = 0; k < C_N; k++)
        free(s->v[k]);
}

static int svc_read(sim__plot_ctx *c, const char *name, size_t n, svc *s, tm_diag *diag)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->slo_s = s->target = s->run_attain = NAN;
    for (size_t k = 0; k < C_N; k++) {
        char p[512];
        size_t m;
        snprintf(p, sizeof p, "/timeseries_service/%s/%s", name, col_names[k]);
        int rc = sim__plot_read_f64(c, p, &s->v[k], &m, diag);
        if (rc)
            return rc;
        if (m != n)
            return tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: %zu rows, /timeseries has %zu bins",
                               p, m, n);
    }
    char g[512], *kind = NULL;
    tm_diag d;
    snprintf(g, sizeof g, "/summary/services/%s", name);
    if (sim__h5r_exists(c->r, g)) {
        if (sim__h5r_attr_f64(c->r, g, "slo_s", &s->slo_s, &d) != TM_OK)
            s->slo_s = NAN;
        if (sim__h5r_attr_f64(c->r, g, "slo_target", &s->target, &d) != TM_OK)
            s->target = NAN;
        if (sim__h5r_attr_str(c->r, g, "slo_kind", &kind, &d) == TM_OK)
            snprintf(s->kind, sizeof s->kind, "%s", kind);
        free(kind);
        snprintf(g, sizeof g, "/summary/services/%s/slo_attainment", name);
        if (sim__h5r_exists(c->r, g) && sim__h5r_scalar_f64(c->r, g, &s->run_attain, &d) != TM_OK)
            s->run_attain = NAN;
    }
    return TM_OK;
}

static double pos(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

/* One figure of services s[0..m). */
static int services_figure(sim__plot_ctx *c, const char *stem, const svc *s, size_t m,
                           const double *t0, const double *t1, size_t n, tm_diag *diag)
{
    sim__plot_fig f;
    int rc = sim__plot_begin(c, &f, stem, m == 1 ? 1100 : 1500, 940, diag);
    if (rc)
        return rc;
    const char *unit;
    double unit_s, span = t1[n - 1];
    sim__plot_time_unit(span, &unit, &unit_s);
    FILE *d = f.dat, *g = f.gp;
    fprintf(d,
            "# one block per service: t_%s offered_rps, then the served rates stacked "
            "(slo_ok, +late, +api, +unserved), replicas_ready, ready+loading, "
            "slo_attainment_pct\n",
            unit);
    for (size_t j = 0; j < m; j++) {
        fprintf(d, "# service %s\n", s[j].name);
        for (size_t i = 0; i < n; i++) {
            sim__plot_num(d, (t0[i] + t1[i]) / 2 / unit_s);
            fputc(' ', d);
            sim__plot_num(d, s[j].v[C_OFFERED][i]);
            double cum = 0;
            for (size_t k = C_OK; k <= C_UNSERVED; k++) {
                cum += pos(s[j].v[k][i]);
                fputc(' ', d);
                sim__plot_num(d, cum);
            }
            fputc(' ', d);
            sim__plot_num(d, pos(s[j].v[C_READY][i]));
            fputc(' ', d);
            sim__plot_num(d, pos(s[j].v[C_READY][i]) + pos(s[j].v[C_LOADING][i]));
            fputc(' ', d);
            double a = s[j].v[C_ATTAIN][i];
            sim__plot_num(d, isfinite(a) ? 100 * a : NAN);
            fputc('\n', d);
        }
        fputs("\n\n", d);
    }
    char title[512];
    snprintf(title, sizeof title, "Services: load, replicas and SLO attainment — %s", c->subject);
    fputs("set multiplot title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\nset style fill solid 0.8 noborder\n", g);
    fprintf(g, "set xrange [0:%.9g]\n", span / unit_s);
    double colw = 0.92 / (double)m;
    for (size_t j = 0; j < m; j++) {
        const svc *v = &s[j];
        double x0 = 0.065 + colw * (double)j, x1 = x0 + colw - 0.075;
        double omax = 0, rmax = 0, amin = 100;
        for (size_t i = 0; i < n; i++) {
            double tot = pos(v->v[C_OK][i]) + pos(v->v[C_LATE][i]) + pos(v->v[C_API][i]) +
                         pos(v->v[C_UNSERVED][i]);
            omax = fmax(omax, fmax(pos(v->v[C_OFFERED][i]), tot));
            rmax = fmax(rmax, pos(v->v[C_READY][i]) + pos(v->v[C_LOADING][i]));
            if (isfinite(v->v[C_ATTAIN][i]))
                amin = fmin(amin, 100 * v->v[C_ATTAIN][i]);
        }
        if (isfinite(v->target))
            amin = fmin(amin, 100 * v->target);
        /* the attainment axis: from a round value below the lowest bin */
        double alo = amin >= 99 ? 98 : amin >= 95 ? 90 : amin >= 80 ? 75 : 0;
        char head[256];
        if (isfinite(v->slo_s) && isfinite(v->target))
            snprintf(head, sizeof head, "%s — SLO: %s %s %g s for %g %% of requests", v->name,
                     v->kind[0] ? v->kind : "latency", "<=", v->slo_s, 100 * v->target);
        else
            snprintf(head, sizeof head, "%s", v->name);
        fprintf(g, "# service %s\nset lmargin at screen %.4f\nset rmargin at screen %.4f\n", "", x0,
                x1);
        /* panel 1: requests */
        fputs("set tmargin at screen 0.89\nset bmargin at screen 0.60\nset format x ''\n"
              "unset xlabel\nset title ",
              g);
        sim__plot_str(g, head);
        fprintf(g,
                " font ',12'\nset ylabel 'requests per second (1/s)'\nset yrange [0:%.9g]\n"
                "set ytics autofreq\n",
                omax > 0 ? omax * 1.45 : 1.0);
        fputs("set key top left horizontal maxcols 3 samplen 1.5 opaque font ',10'\n", g);
        fprintf(g,
                "plot '%s.dat' index %zu using 1:(0):3 with filledcurves ls 3 title 'within the "
                "SLO', '' index %zu using 1:3:4 with filledcurves ls 5 title 'late', '' index %zu "
                "using 1:4:5 with filledcurves ls 6 title 'to the API', '' index %zu using 1:5:6 "
                "with filledcurves ls 2 title 'unserved', '' index %zu using 1:2 with lines ls 8 "
                "lw 1 title 'offered'\n",
                stem, j, j, j, j, j);
        /* panel 2: replicas */
        fprintf(g,
                "unset title\nset tmargin at screen 0.56\nset bmargin at screen 0.36\n"
                "set ylabel 'replicas'\nset yrange [0:%.9g]\n"
                "set key top left horizontal samplen 1.5 opaque font ',10'\n"
                "plot '%s.dat' index %zu using 1:(0):7 with filledcurves ls 1 title 'serving', "
                "'' index %zu using 1:7:8 with filledcurves ls 4 title 'loading (or waiting for "
                "GPUs)'\n",
                rmax > 0 ? ceil(rmax * 1.4) : 1.0, stem, j, j);
        /* panel 3: attainment */
        fprintf(g,
                "set tmargin at screen 0.32\nset bmargin at screen 0.09\nset format x '%%g'\n"
                "set xlabel 'simulated time (%s)'\nset ylabel 'SLO attainment (%%)'\n"
                "set yrange [%g:%g]\nset ytics autofreq\n"
                "set key bottom left horizontal samplen 1.5 opaque font ',10'\n",
                unit, alo, 100 + (100 - alo) * 0.04);
        char at[96];
        if (isfinite(v->run_attain))
            snprintf(at, sizeof at, "per bin (run: %.2f %%)", 100 * v->run_attain);
        else
            snprintf(at, sizeof at, "per bin");
        fprintf(g, "plot '%s.dat' index %zu using 1:9 with lines ls 1 lw 1.2 title ", stem, j);
        sim__plot_str(g, at);
        if (isfinite(v->target))
            fprintf(g, ", %.9g with lines ls 9 lw 1.5 title 'target %g %%'", 100 * v->target,
                    100 * v->target);
        fputc('\n', g);
    }
    fputs("unset multiplot\n", g);
    return sim__plot_end(c, &f, diag);
}

int sim__plot_services(sim__plot_ctx *c, tm_diag *diag)
{
    double *t0 = NULL, *t1 = NULL;
    char **names = NULL;
    size_t n = 0, n1, n_names = 0, n_svc = 0;
    svc *s = NULL;
    int rc;
    if ((rc = sim__plot_read_f64(c, "/timeseries/t_s", &t0, &n, diag)) ||
        (rc = sim__plot_read_f64(c, "/timeseries/t_end_s", &t1, &n1, diag)) ||
        (rc = sim__h5r_list(c->r, "/timeseries_service", SIM__H5_ORDER_CREATION, &names, &n_names,
                            diag)))
        goto out;
    if (n1 != n) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/timeseries: columns of unequal length");
        goto out;
    }
    if (n == 0 || n_names == 0)
        goto out;
    if (!(s = calloc(n_names, sizeof *s))) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    for (; n_svc < n_names; n_svc++)
        if ((rc = svc_read(c, names[n_svc], n, &s[n_svc], diag))) {
            n_svc++;
            goto out;
        }
    for (size_t first = 0; first < n_svc; first += MAX_COLS) {
        char stem[SIM__PLOT_STEM_MAX];
        if (first == 0)
            snprintf(stem, sizeof stem, "services");
        else
            snprintf(stem, sizeof stem, "services_%zu", first / MAX_COLS + 1);
        size_t m = n_svc - first < MAX_COLS ? n_svc - first : MAX_COLS;
        if ((rc = services_figure(c, stem, s + first, m, t0, t1, n, diag)))
            goto out;
    }
out:
    for (size_t k = 0; s && k < n_svc; k++)
        svc_free(&s[k]);
    free(s);
    free(names);
    free(t0);
    free(t1);
    return rc;
}
