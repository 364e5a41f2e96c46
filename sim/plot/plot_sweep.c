/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_sweep.c — the parameters of a merged sweep's combinations
 * (/sweep/params, docs/output.md "Sweep files"), shared with sweep_packing,
 * and the `sweep` figure: the key results against a parameter.
 *
 * sweep: from /sweep/mean and /sweep/sd (one row per combination: the mean
 * and standard deviation of each key result over its ok replications, and
 * their number n), each panel a key result against the parameter on the x
 * axis, one line per combination of the other parameters, with its 95 %
 * confidence interval as error bars (Student t with n - 1 degrees of
 * freedom, GSL; none when n < 2). The x parameter is the numeric one with the
 * most distinct values; without one, the coded one with the most (its values
 * as tic labels, in order of first appearance). Panels: for a sweep of kind
 * scenario mean and p95 wait, mean bounded slowdown and allocation
 * utilization; for kind pack the allocation, fragmentation and failed GPU
 * share at the target and the failed pods; those present are drawn.
 */
#include "plot/plot_int.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *sim__plot_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

char **sim__plot_split_lines(const char *t, size_t *n)
{
    size_t cnt = 1, len = strlen(t);
    for (size_t q = 0; q < len; q++)
        cnt += t[q] == '\n';
    char **b = malloc(cnt * sizeof *b + len + 1);
    if (!b)
        return NULL;
    char *text = (char *)(b + cnt);
    memcpy(text, t, len + 1);
    size_t k = 0;
    b[k++] = text;
    for (char *q = text; *q; q++)
        if (*q == '\n') {
            *q = '\0';
            b[k++] = q + 1;
        }
    *n = cnt;
    return b;
}

void sim__plot_params_fini(sim__plot_params *p)
{
    for (size_t i = 0; i < p->n; i++) {
        if (p->col)
            free(p->col[i]);
        if (p->vals)
            free(p->vals[i]);
    }
    free(p->col);
    free(p->vals);
    free(p->n_vals);
    free(p->paths);
    memset(p, 0, sizeof *p);
}

int sim__plot_params_read(sim__plot_ctx *c, size_t rows, sim__plot_params *p, tm_diag *diag)
{
    memset(p, 0, sizeof *p);
    char *paths_s = NULL;
    tm_diag quiet;
    if (!sim__h5r_exists(c->r, "/sweep/params") ||
        sim__h5r_attr_str(c->r, "/sweep/params", "paths", &paths_s, &quiet) != TM_OK ||
        !paths_s[0]) {
        free(paths_s);
        return TM_OK; /* a sweep that varies nothing */
    }
    size_t n = 0;
    p->paths = sim__plot_split_lines(paths_s, &n);
    free(paths_s);
    p->col = calloc(n, sizeof *p->col);
    p->vals = calloc(n, sizeof *p->vals);
    p->n_vals = calloc(n, sizeof *p->n_vals);
    if (!p->paths || !p->col || !p->vals || !p->n_vals) {
        sim__plot_params_fini(p);
        return tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
    }
    p->n = n;
    for (size_t i = 0; i < n; i++) {
        char path[512], *t = NULL;
        size_t m = 0;
        snprintf(path, sizeof path, "/sweep/params/%s", p->paths[i]);
        if (!sim__h5r_exists(c->r, path) ||
            sim__h5r_array_f64(c->r, path, &p->col[i], &m, &quiet) != TM_OK || m < rows) {
            free(p->col[i]);
            p->col[i] = NULL;
            continue;
        }
        /* a coded column: its distinct values, one per line */
        if (sim__h5r_attr_str(c->r, path, "values", &t, &quiet) == TM_OK) {
            p->vals[i] = sim__plot_split_lines(t, &p->n_vals[i]);
            free(t);
            if (!p->vals[i]) {
                sim__plot_params_fini(p);
                return tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
            }
        }
    }
    return TM_OK;
}

/* The value of parameter i in combination k as text. */
static void param_value(const sim__plot_params *p, size_t i, size_t k, char *v, size_t cap)
{
    double x = p->col[i] ? p->col[i][k] : NAN;
    if (p->vals[i]) {
        long code = isfinite(x) ? (long)x : -1;
        snprintf(v, cap, "%s",
                 code >= 0 && (size_t)code < p->n_vals[i] ? sim__plot_base_name(p->vals[i][code])
                                                          : "(base)");
    } else if (isfinite(x)) {
        snprintf(v, cap, "%g", x);
    } else {
        snprintf(v, cap, "(base)");
    }
}

/* The last component of a JSON path ("workload.classes[0].arrival.rate" ->
 * "rate"), or the path when another parameter not skipped ends the same. */
static const char *short_name(const sim__plot_params *p, size_t i, const int *skip)
{
    const char *d = strrchr(p->paths[i], '.');
    const char *s = d ? d + 1 : p->paths[i];
    for (size_t j = 0; j < p->n; j++) {
        if (j == i || (skip && skip[j]))
            continue;
        const char *e = strrchr(p->paths[j], '.');
        if (strcmp(e ? e + 1 : p->paths[j], s) == 0)
            return p->paths[i];
    }
    return s;
}

void sim__plot_params_label(const sim__plot_params *p, size_t k, const int *skip, int shorten,
                            char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < p->n && o + 1 < cap; i++) {
        if (skip && skip[i])
            continue;
        char v[160];
        param_value(p, i, k, v, sizeof v);
        const char *name = shorten ? short_name(p, i, skip) : p->paths[i];
        int w = strchr(v, '=') ? snprintf(out + o, cap - o, "%s%s", o ? "; " : "", v)
                               : snprintf(out + o, cap - o, "%s%s=%s", o ? "; " : "", name, v);
        o += w > 0 ? (size_t)w : 0;
        if (o >= cap)
            o = cap - 1;
    }
}

/* ------------------------------------------------------------------------- */
/* the sweep figure                                                           */

typedef struct panel {
    const char *col;   /* column of /sweep/mean and /sweep/sd */
    const char *title; /* the panel's title and y label */
    int time;          /* seconds: drawn in the unit the span asks for */
    double scale;      /* otherwise: multiply by this */
    double cap;        /* the largest value the quantity can take (drawn) */
} panel;

static const panel scenario_panels[] = {
    {"wait_mean_s", "mean wait", 1, 1, INFINITY},
    {"wait_p95_s", "p95 wait", 1, 1, INFINITY},
    {"slowdown_mean", "mean bounded slowdown", 0, 1, INFINITY},
    {"alloc_util", "allocation utilization (%)", 0, 100, 100},
};
static const panel pack_panels[] = {
    {"alloc_pct", "GPU allocation at the target (%)", 0, 1, 100},
    {"frag_pct", "fragmented share of idle GPU (%)", 0, 1, 100},
    {"failed_gpu_pct", "failed pods' GPU / capacity (%)", 0, 1, 100},
    {"failed_pods", "failed pods", 0, 1, INFINITY},
};
#define N_PANELS 4

/* Value v of a coded parameter as a tic label: its space-separated words
 * that not every other value has ("order=fifo placement=best-fit
 * backfill=none" among policies that differ only in placement:
 * "placement=best-fit"); the whole value when that leaves nothing. */
static void tic_label(char **vals, size_t n, size_t v, char *out, size_t cap)
{
    const char *s = sim__plot_base_name(vals[v]);
    size_t o = 0;
    out[0] = '\0';
    for (const char *w = s; *w && n > 1;) {
        size_t len = strcspn(w, " ");
        int common = 1;
        for (size_t u = 0; u < n && common; u++) {
            if (u == v)
                continue;
            int found = 0;
            for (const char *x = vals[u]; *x && !found;) {
                size_t l2 = strcspn(x, " ");
                found = l2 == len && strncmp(x, w, len) == 0;
                x += l2;
                x += strspn(x, " ");
            }
            common = found;
        }
        if (!common && o + len + 2 < cap) {
            o += (size_t)snprintf(out + o, cap - o, "%s%.*s", o ? " " : "", (int)len, w);
        }
        w += len;
        w += strspn(w, " ");
    }
    if (!out[0])
        snprintf(out, cap, "%s", s);
}

/* Combination k's half-width of the 95 % interval of a mean with sd over n. */
static double ci95(double sd, double n)
{
    if (!(n >= 2) || !isfinite(sd))
        return NAN;
    return gsl_cdf_tdist_Pinv(0.975, n - 1) * sd / sqrt(n);
}

/* The combination (row of /sweep/params) of row k of /sweep/mean: its combo
 * column, or k when that is out of range. */
static size_t combo_of(const double *combo, size_t k, size_t rows)
{
    double c = combo[k];
    return c >= 0 && c < (double)rows ? (size_t)c : k;
}

/* Order of combinations within a line: by x. */
static const double *sort_x;
static int by_x(const void *a, const void *b)
{
    double x = sort_x[*(const size_t *)a], y = sort_x[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

int sim__plot_sweep(sim__plot_ctx *c, tm_diag *diag)
{
    sim__plot_params pr = {0};
    double *combo = NULL, *nrep = NULL, *mean[N_PANELS] = {0}, *sd[N_PANELS] = {0};
    double *xs = NULL;
    size_t rows = 0, *order = NULL, *line_of = NULL, *line_first = NULL;
    int *skip = NULL, rc;
    char *kind = NULL, *file = NULL;
    tm_diag quiet;
    sim__plot_fig f;
    int open = 0;
    if ((rc = sim__plot_read_f64(c, "/sweep/mean/combo", &combo, &rows, diag)) ||
        (rc = sim__plot_read_f64(c, "/sweep/mean/n", &nrep, &(size_t){0}, diag)))
        goto out;
    int is_pack = sim__h5r_attr_str(c->r, "/sweep", "sweep_kind", &kind, &quiet) == TM_OK &&
                  strcmp(kind, "pack") == 0;
    const panel *pl = is_pack ? pack_panels : scenario_panels;
    size_t n_have = 0;
    for (size_t k = 0; k < N_PANELS; k++) {
        char pm[128], ps[128];
        snprintf(pm, sizeof pm, "/sweep/mean/%s", pl[k].col);
        snprintf(ps, sizeof ps, "/sweep/sd/%s", pl[k].col);
        size_t m = 0, s = 0;
        if (!sim__h5r_exists(c->r, pm))
            continue;
        if ((rc = sim__plot_read_f64(c, pm, &mean[k], &m, diag)))
            goto out;
        if (sim__h5r_exists(c->r, ps) && (rc = sim__plot_read_f64(c, ps, &sd[k], &s, diag)))
            goto out;
        if (m != rows || (sd[k] && s != rows)) {
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: %zu rows, /sweep/mean has %zu", pm,
                             sd[k] && s != rows ? s : m, rows);
            goto out;
        }
        n_have++;
    }
    if (rows == 0 || n_have == 0)
        goto out;
    if ((rc = sim__plot_params_read(c, rows, &pr, diag)))
        goto out;
    /* the x parameter: numeric with the most distinct values, else coded */
    size_t best = SIZE_MAX, best_n = 1;
    int best_numeric = 0;
    for (int numeric = 1; numeric >= 0 && best == SIZE_MAX; numeric--)
        for (size_t i = 0; i < pr.n; i++) {
            if (!pr.col[i] || (!pr.vals[i]) != numeric)
                continue;
            size_t distinct = 0;
            for (size_t k = 0; k < rows; k++) {
                double x = pr.col[i][combo_of(combo, k, rows)];
                size_t q = 0;
                for (; q < k; q++) {
                    double y = pr.col[i][combo_of(combo, q, rows)];
                    if (x == y || (isnan(x) && isnan(y)))
                        break;
                }
                distinct += q == k;
            }
            if (distinct > best_n) {
                best = i;
                best_n = distinct;
                best_numeric = numeric;
            }
        }
    if (best == SIZE_MAX)
        goto out; /* nothing varies: no axis */
    /* lines: the combinations grouped by the values of the other parameters */
    skip = calloc(pr.n, sizeof *skip);
    xs = malloc(rows * sizeof *xs);
    order = malloc(rows * sizeof *order);
    line_of = malloc(rows * sizeof *line_of);
    line_first = malloc(rows * sizeof *line_first);
    if (!skip || !xs || !order || !line_of || !line_first) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    skip[best] = 1;
    size_t n_lines = 0;
    for (size_t k = 0; k < rows; k++) {
        size_t ck = combo_of(combo, k, rows);
        xs[k] = pr.col[best][ck];
        size_t l = 0;
        for (; l < n_lines; l++) {
            size_t cf = line_first[l];
            int same = 1;
            for (size_t i = 0; i < pr.n && same; i++) {
                if (skip[i] || !pr.col[i])
                    continue;
                double a = pr.col[i][ck], b = pr.col[i][cf];
                same = a == b || (isnan(a) && isnan(b));
            }
            if (same)
                break;
        }
        if (l == n_lines)
            line_first[n_lines++] = ck;
        line_of[k] = l;
    }
    /* the time unit of the wait panels, from the largest wait */
    double wmax = 0;
    for (size_t p = 0; p < N_PANELS; p++)
        for (size_t k = 0; pl[p].time && mean[p] && k < rows; k++)
            if (isfinite(mean[p][k]))
                wmax = fmax(wmax, mean[p][k]);
    const char *unit = "s";
    double unit_s = 1;
    if (wmax > 0)
        sim__plot_time_unit(wmax, &unit, &unit_s);

    if ((rc = sim__plot_begin(c, &f, "sweep", 1400, 900, diag)))
        goto out;
    open = 1;
    const char *what = c->subject;
    if (sim__h5r_exists(c->r, "/sweep/sweep_file") &&
        sim__h5r_scalar_str(c->r, "/sweep/sweep_file", &file, &quiet) == TM_OK && file[0])
        what = sim__plot_base_name(file);
    fprintf(f.dat, "# x = %s%s; per line of the other parameters, one block:\n# x", pr.paths[best],
            best_numeric ? "" : " (index of its value)");
    for (size_t p = 0; p < N_PANELS; p++)
        if (mean[p])
            fprintf(f.dat, " %s_mean %s_ci_low %s_ci_high", pl[p].col, pl[p].col, pl[p].col);
    fputs(" n\n", f.dat);
    for (size_t l = 0; l < n_lines; l++) {
        char label[512];
        sim__plot_params_label(&pr, line_first[l], skip, 1, label, sizeof label);
        fprintf(f.dat, "# %s\n", label[0] ? label : "all combinations");
        size_t m = 0;
        for (size_t k = 0; k < rows; k++)
            if (line_of[k] == l)
                order[m++] = k;
        sort_x = xs;
        qsort(order, m, sizeof *order, by_x);
        for (size_t q = 0; q < m; q++) {
            size_t k = order[q];
            sim__plot_num(f.dat, xs[k]);
            for (size_t p = 0; p < N_PANELS; p++) {
                if (!mean[p])
                    continue;
                double s = pl[p].time ? 1 / unit_s : pl[p].scale;
                double ci = sd[p] ? ci95(sd[p][k], nrep[k]) : NAN, v = mean[p][k];
                /* the interval cut at the quantity's bounds (0 and, for
                 * shares, 100 %); none (a bar of length 0) below n = 2 */
                ci = isfinite(ci) ? ci : 0;
                double lo = fmax(v - ci, 0) * s, hi = fmin((v + ci) * s, pl[p].cap);
                fputc(' ', f.dat);
                sim__plot_num(f.dat, v * s);
                fputc(' ', f.dat);
                sim__plot_num(f.dat, isfinite(v) ? lo : NAN);
                fputc(' ', f.dat);
                sim__plot_num(f.dat, isfinite(v) ? hi : NAN);
            }
            fputc(' ', f.dat);
            sim__plot_num(f.dat, nrep[k]);
            fputc('\n', f.dat);
        }
        fputs("\n\n", f.dat);
    }
    FILE *g = f.gp;
    fputs("set multiplot layout 2,2 rowsfirst title ", g);
    char title[600];
    snprintf(title, sizeof title, "%s — key results against %s (mean, 95 %% CI over replications)",
             what, pr.paths[best]);
    sim__plot_str(g, title);
    /* every key result is >= 0: a symmetric interval is cut at 0 */
    fputs(" font ',14'\nset key top right font ',10' box opaque\n", g);
    fputs("set xlabel ", g);
    sim__plot_str(g, pr.paths[best]);
    fputc('\n', g);
    if (!best_numeric) {
        fputs("set xtics (", g);
        for (size_t v = 0; v < pr.n_vals[best]; v++) {
            char tl[256];
            tic_label(pr.vals[best], pr.n_vals[best], v, tl, sizeof tl);
            fputs(v ? ", " : "", g);
            sim__plot_str(g, tl);
            fprintf(g, " %zu", v);
        }
        fprintf(g, ")\nset xrange [-0.5:%zu.5]\n", pr.n_vals[best] ? pr.n_vals[best] - 1 : 0);
    } else {
        fputs("set offsets graph 0.03, graph 0.03, 0, 0\n", g);
    }
    size_t colno = 2, drawn = 0;
    for (size_t p = 0; p < N_PANELS; p++) {
        if (!mean[p])
            continue;
        char yl[160];
        if (pl[p].time)
            snprintf(yl, sizeof yl, "%s (%s)", pl[p].title, unit);
        else
            snprintf(yl, sizeof yl, "%s", pl[p].title);
        /* every key result is >= 0: the axis from 0 to the highest interval */
        double top = 0, s = pl[p].time ? 1 / unit_s : pl[p].scale;
        for (size_t k = 0; k < rows; k++) {
            double ci = sd[p] ? ci95(sd[p][k], nrep[k]) : NAN;
            double v = mean[p][k] + (isfinite(ci) ? ci : 0);
            if (isfinite(v))
                top = fmax(top, fmin(v * s, pl[p].cap));
        }
        if (top > 0)
            fprintf(g, "set yrange [0:%.9g]\n", top * 1.08);
        else
            fputs("set yrange [0:*]\n", g);
        fputs("set title ", g);
        sim__plot_str(g, yl);
        fputs("\nset ylabel ", g);
        sim__plot_str(g, yl);
        fputc('\n', g);
        if (drawn == 1)
            fputs("unset key\n", g); /* the key once, in the first panel */
        fputs("plot ", g);
        for (size_t l = 0; l < n_lines; l++) {
            char label[512];
            sim__plot_params_label(&pr, line_first[l], skip, 1, label, sizeof label);
            /* values of a coded parameter are not on a scale: no lines between */
            fprintf(g, "%s'sweep.dat' index %zu using 1:%zu:%zu:%zu with %s ls %zu title ",
                    l ? ", " : "", l, colno, colno + 1, colno + 2,
                    best_numeric ? "yerrorlines" : "yerrorbars", l % 8 + 1);
            sim__plot_str(g, label[0] ? label : "all combinations");
        }
        fputc('\n', g);
        colno += 3;
        drawn++;
    }
    fputs("unset multiplot\n", g);
    open = 0;
    rc = sim__plot_end(c, &f, diag);
out:
    if (open)
        sim__plot_abandon(&f);
    sim__plot_params_fini(&pr);
    for (size_t p = 0; p < N_PANELS; p++) {
        free(mean[p]);
        free(sd[p]);
    }
    free(combo);
    free(nrep);
    free(xs);
    free(order);
    free(line_of);
    free(line_first);
    free(skip);
    free(kind);
    free(file);
    return rc;
}
