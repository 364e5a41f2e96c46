/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_run.c — the figures of a run's result file (`tarmac run`): utilization
 * over time with the queue, per pool and per GPU type, the shape-blocked idle
 * GPUs by reason, the wait-time distribution and the bounded-slowdown
 * distribution per workload class (the services have plot_services.c).
 *
 * Each function reads whole columns through the HDF5 reader, writes STEM.dat
 * (whitespace-separated, one block per series, blocks separated by two blank
 * lines for gnuplot's `index`) and STEM.gp through plot.c's helpers. Long
 * distributions are thinned to at most CDF_POINTS points chosen by rank, so a
 * million jobs make a data file of a few hundred kilobytes; the curve stays
 * within 1/CDF_POINTS of the exact one.
 *
 * One file, just past a thousand lines: every figure here reads the run's
 * columns through the same helpers (opt_read, the rank thinning) and writes
 * through the same plot.c calls. The seam for a split is the per-class
 * distributions (per_class_*, cap_classes, wait_cdf, slowdown), which share
 * their class capping with nothing above them.
 */
#include "plot/plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CDF_POINTS  2000
#define MAX_WINDOWS 180 /* points per line of the per-pool and per-type figures */

static int opt_read(sim__plot_ctx *c, const char *path, double **v, size_t *n, tm_diag *diag)
{
    *v = NULL;
    *n = 0;
    if (!sim__h5r_exists(c->r, path))
        return TM_OK;
    return sim__plot_read_f64(c, path, v, n, diag);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The scale's ticks that fall in [lo, hi], as a gnuplot xtics list. */
static void time_tics(FILE *g, double lo, double hi)
{
    static const struct {
        double s;
        const char *label;
    } tics[] = {{1, "1 s"},           {10, "10 s"},        {60, "1 min"},  {600, "10 min"},
                {3600, "1 h"},        {6 * 3600, "6 h"},   {86400, "1 d"}, {7 * 86400, "1 w"},
                {30 * 86400, "30 d"}, {365 * 86400, "1 y"}};
    fputs("set xtics (", g);
    int first = 1;
    for (size_t i = 0; i < sizeof tics / sizeof tics[0]; i++)
        if (tics[i].s >= lo && tics[i].s <= hi) {
            fprintf(g, "%s'%s' %g", first ? "" : ", ", tics[i].label, tics[i].s);
            first = 0;
        }
    fputs(")\n", g);
}

static void write_point(FILE *dat, double v, double p, double x)
{
    sim__plot_num(dat, v);
    fputc(' ', dat);
    sim__plot_num(dat, p);
    fputc(' ', dat);
    sim__plot_num(dat, x);
    fputc('\n', dat);
}

/* Write one distribution block: sorted values x[0..n) as (max(x, floor), P)
 * where P is the empirical CDF (ccdf = 0) or the complementary CDF, thinned
 * by rank. Of the values at or below the floor only the last is written, so
 * the curve starts at (floor, P(x <= floor)) instead of climbing the axis. */
static void write_dist(FILE *dat, const double *x, size_t n, double floor_v, int ccdf)
{
    size_t nf = 0; /* values at or below the floor: one point */
    while (nf < n && x[nf] <= floor_v)
        nf++;
    if (nf)
        write_point(dat, floor_v, ccdf ? (double)(n - nf) / (double)n : (double)nf / (double)n,
                    x[nf - 1]);
    size_t step = n > CDF_POINTS ? (n + CDF_POINTS - 1) / CDF_POINTS : 1;
    for (size_t i = nf; i < n; i += step) {
        /* the last rank of the step, so the top of each step is exact */
        size_t k = i + step - 1 < n ? i + step - 1 : n - 1;
        double p = ccdf ? (double)(n - 1 - k) / (double)n : (double)(k + 1) / (double)n;
        if (ccdf && p <= 0)
            break; /* the largest value: P(S > max) = 0 has no place on a log scale */
        write_point(dat, x[k], p, x[k]);
    }
    fputs("\n\n", dat);
}

/* The fraction of sorted x[0..n) at or below v. */
static double frac_at_most(const double *x, size_t n, double v)
{
    size_t lo = 0, hi = n; /* first index with x > v, by bisection */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return n ? (double)lo / (double)n : 0;
}

/* ------------------------------------------------------------------------- */
/* utilization over time                                                      */

int sim__plot_utilization(sim__plot_ctx *c, tm_diag *diag)
{
    double *t0 = NULL, *t1 = NULL, *util = NULL, *queue = NULL, *up = NULL, *busy = NULL,
           *good = NULL, *work = NULL, *value = NULL;
    size_t n = 0, n1, n2, n3, n4, n5, n6, n7 = 0, n8 = 0;
    sim__plot_fig f = {0};
    int rc;
    if ((rc = sim__plot_read_f64(c, "/timeseries/t_s", &t0, &n, diag)) ||
        (rc = sim__plot_read_f64(c, "/timeseries/t_end_s", &t1, &n1, diag)) ||
        (rc = sim__plot_read_f64(c, "/timeseries/alloc_util", &util, &n2, diag)) ||
        (rc = sim__plot_read_f64(c, "/timeseries/queue_len", &queue, &n3, diag)) ||
        (rc = opt_read(c, "/timeseries/gpus_up", &up, &n4, diag)) ||
        (rc = opt_read(c, "/timeseries/gpus_busy", &busy, &n5, diag)) ||
        (rc = opt_read(c, "/timeseries/gpus_goodput", &good, &n6, diag)) ||
        (rc = opt_read(c, "/timeseries/work_util", &work, &n7, diag)) ||
        (rc = opt_read(c, "/timeseries/value_util", &value, &n8, diag)))
        goto out;
    if (n1 != n || n2 != n || n3 != n || (up && n4 != n) || (busy && n5 != n) ||
        (good && n6 != n) || (work && n7 != n) || (value && n8 != n)) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/timeseries: columns of unequal length");
        goto out;
    }
    if (n == 0)
        goto out; /* an empty run: nothing to draw */
    if (!up)
        busy = good = NULL; /* busy and goodput are shown as shares of the GPUs up */
    const char *unit;
    double unit_s, span = t1[n - 1];
    sim__plot_time_unit(span, &unit, &unit_s);
    /* the run's mean: allocated GPU-time over GPU-time up, from the bins */
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double w = (t1[i] - t0[i]) * (up ? up[i] : 1);
        num += util[i] * w;
        den += w;
    }
    double mean = den > 0 ? 100 * num / den : NAN;
    if ((rc = sim__plot_begin(c, &f, "utilization", 1100, 720, diag)))
        goto out;
    fprintf(f.dat, "# bins of %.0f s; time at the middle of each bin\n", n ? t1[0] - t0[0] : 0.0);
    fprintf(f.dat,
            "# t_%s alloc_util_pct busy_util_pct goodput_util_pct queue_len work_util_pct "
            "value_util_pct\n",
            unit);
    double ytop = 100; /* useful work can exceed the GPUs owned (faster GPUs) */
    for (size_t i = 0; i < n; i++) {
        sim__plot_num(f.dat, (t0[i] + t1[i]) / 2 / unit_s);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, 100 * util[i]);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, busy ? (up[i] > 0 ? 100 * busy[i] / up[i] : 0) : NAN);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, good ? (up[i] > 0 ? 100 * good[i] / up[i] : 0) : NAN);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, queue[i]);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, work ? 100 * work[i] : NAN);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, value ? 100 * value[i] : NAN);
        fputc('\n', f.dat);
        if (work && isfinite(work[i]) && 100 * work[i] > ytop)
            ytop = 100 * work[i];
        if (value && isfinite(value[i]) && 100 * value[i] > ytop)
            ytop = 100 * value[i];
    }
    FILE *g = f.gp;
    char bin[32];
    double bw = t1[0] - t0[0];
    if (bw >= 3600)
        snprintf(bin, sizeof bin, "%g h", bw / 3600);
    else if (bw >= 60)
        snprintf(bin, sizeof bin, "%g min", bw / 60);
    else
        snprintf(bin, sizeof bin, "%g s", bw);
    fputs("set multiplot title ", g);
    char title[512];
    snprintf(title, sizeof title, "GPU utilization and queue over time — %s", c->subject);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    fprintf(g, "MEAN = %.9g\n", mean);
    fputs("set lmargin at screen 0.08\nset rmargin at screen 0.97\n"
          "# upper panel: utilization\n"
          "set tmargin at screen 0.90\nset bmargin at screen 0.45\n",
          g);
    fprintf(g, "set xrange [0:%.9g]\n", span / unit_s);
    /* with the work lines the key needs the top right corner and three rows:
     * the mean goes into the key instead of a label there, and the panel
     * gets the head room */
    int mean_in_key = work || value;
    double yhi = ytop * (mean_in_key ? 1.34 : 1.19);
    fprintf(g,
            "set format x ''\n"
            "set ylabel 'GPU utilization (%%)'\n"
            "set yrange [0:%.9g]\nset ytics 0,20,%.9g\n"
            "set key top left horizontal samplen 2\n",
            yhi, 20 * floor((mean_in_key ? ytop * 1.19 : yhi) / 20));
    if (isfinite(mean) && !mean_in_key)
        fputs("set label 1 sprintf('- - -  mean allocated %.1f %%', MEAN) at graph 0.99, "
              "graph 0.935 right tc rgb '#333333'\n",
              g);
    fputs("plot 'utilization.dat' using 1:2 with lines ls 1 title 'allocated'", g);
    if (busy)
        fputs(", '' using 1:3 with lines ls 2 title 'busy'", g);
    if (good)
        fputs(", '' using 1:4 with lines ls 3 title 'goodput'", g);
    /* useful work and its value in reference GPUs, per GPU owned */
    if (work)
        fputs(", '' using 1:6 with lines ls 4 title 'useful work (ref. GPUs / GPUs owned)'", g);
    if (value)
        fputs(", '' using 1:7 with lines ls 5 dt 2 title 'value-weighted'", g);
    if (isfinite(mean))
        fputs(mean_in_key ? ", MEAN with lines ls 9 lw 1.5 title sprintf('mean allocated %.1f %%', "
                            "MEAN)"
                          : ", MEAN with lines ls 9 lw 1.5 notitle",
              g);
    fputs("\n# lower panel: queue length\n"
          "set tmargin at screen 0.40\nset bmargin at screen 0.10\n"
          "set format x '%g'\n",
          g);
    fprintf(g, "set xlabel 'simulated time (%s)'\n", unit);
    /* head room above the highest bin for the key */
    double qmax = 0;
    for (size_t i = 0; i < n; i++)
        qmax = queue[i] > qmax ? queue[i] : qmax;
    double qs;
    const char *qp;
    sim__plot_count_unit(qmax, &qs, &qp);
    fprintf(g, "set ylabel '%sjobs waiting'\nset yrange [0:%.9g]\nset ytics autofreq\n", qp,
            qmax > 0 ? qmax * qs * 1.3 : 1.0);
    fputs("unset label 1\nset key top left opaque\n", g);
    char qcol[32] = "5";
    if (qs != 1)
        snprintf(qcol, sizeof qcol, "($5*%g)", qs);
    fprintf(g,
            "plot 'utilization.dat' using 1:%s with filledcurves y=0 fs solid 0.3 noborder "
            "ls 2 title 'queue length (time average over bins of %s)', '' using 1:%s with "
            "lines ls 2 lw 1 notitle\n",
            qcol, bin, qcol);
    fputs("unset multiplot\n", g);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    free(t0);
    free(t1);
    free(util);
    free(queue);
    free(work);
    free(value);
    free(up);
    free(busy);
    free(good);
    return rc;
}

/* Utilization per member of a fleet group (/timeseries_pool/<pool> or
 * /timeseries_type/<type>, bins as /timeseries): allocated and busy GPUs as
 * shares of the member's GPUs in service, one line per member, allocation in
 * the upper panel and busy in the lower one, the same colour for a member in
 * both. Members with no GPU in service over the whole run are left out. */
static int fleet_util(sim__plot_ctx *c, const char *group, const char *stem, const char *what,
                      tm_diag *diag)
{
    double *t0 = NULL, *t1 = NULL;
    double **up = NULL, **alloc = NULL, **busy = NULL;
    char **names = NULL;
    size_t n = 0, n1, n_names = 0, n_drawn = 0;
    sim__plot_fig f = {0};
    int rc;
    if ((rc = sim__plot_read_f64(c, "/timeseries/t_s", &t0, &n, diag)) ||
        (rc = sim__plot_read_f64(c, "/timeseries/t_end_s", &t1, &n1, diag)) ||
        (rc = sim__h5r_list(c->r, group, SIM__H5_ORDER_CREATION, &names, &n_names, diag)))
        goto out;
    if (n1 != n) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/timeseries: columns of unequal length");
        goto out;
    }
    up = calloc(n_names + 1, sizeof *up);
    alloc = calloc(n_names + 1, sizeof *alloc);
    busy = calloc(n_names + 1, sizeof *busy);
    if (!up || !alloc || !busy) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    for (size_t k = 0; k < n_names; k++) {
        char p[512];
        size_t m1 = 0, m2 = 0, m3 = 0;
        snprintf(p, sizeof p, "%s/%s/gpus_up", group, names[k]);
        if ((rc = opt_read(c, p, &up[k], &m1, diag)))
            goto out;
        snprintf(p, sizeof p, "%s/%s/gpus_alloc", group, names[k]);
        if ((rc = opt_read(c, p, &alloc[k], &m2, diag)))
            goto out;
        snprintf(p, sizeof p, "%s/%s/gpus_busy", group, names[k]);
        if ((rc = opt_read(c, p, &busy[k], &m3, diag)))
            goto out;
        if (!up[k] || !alloc[k] || m1 != n || m2 != n || (busy[k] && m3 != n)) {
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file,
                             "%s/%s: gpus_up and gpus_alloc must have a row per /timeseries bin",
                             group, names[k]);
            goto out;
        }
        double any = 0;
        for (size_t i = 0; i < n; i++)
            any += up[k][i];
        if (any > 0)
            n_drawn++;
        else
            up[k][0] = NAN; /* marks a member never in service: not drawn */
    }
    if (n == 0 || n_drawn == 0)
        goto out;
    const char *unit;
    double unit_s, span = t1[n - 1];
    sim__plot_time_unit(span, &unit, &unit_s);
    if ((rc = sim__plot_begin(c, &f, stem, 1100, 760, diag)))
        goto out;
    /* several lines over hundreds of bins are a tangle: consecutive bins are
     * merged into windows of `step` bins, at most MAX_WINDOWS of them, each
     * the ratio of the GPU-time integrals over the window (exact averages) */
    size_t step = n > MAX_WINDOWS ? (n + MAX_WINDOWS - 1) / MAX_WINDOWS : 1;
    double win_s = (t1[0] - t0[0]) * (double)step;
    char win[64];
    if (win_s >= 3600)
        snprintf(win, sizeof win, "%g-h", win_s / 3600);
    else
        snprintf(win, sizeof win, "%g-min", win_s / 60);
    fprintf(f.dat,
            "# one block per %s, averages over windows of %zu bin(s) (%s): t_%s alloc_util_pct "
            "busy_util_pct gpus_up\n",
            what, step, win, unit);
    for (size_t k = 0; k < n_names; k++) {
        if (isnan(up[k][0]))
            continue;
        fprintf(f.dat, "# %s %s\n", what, names[k]);
        for (size_t i = 0; i < n; i += step) {
            size_t e = i + step < n ? i + step : n;
            double u = 0, a = 0, b = 0, w_all = 0;
            for (size_t j = i; j < e; j++) {
                double w = t1[j] - t0[j], uj = j == 0 && isnan(up[k][0]) ? 0 : up[k][j];
                u += uj * w;
                a += alloc[k][j] * w;
                b += busy[k] ? busy[k][j] * w : 0;
                w_all += w;
            }
            sim__plot_num(f.dat, (t0[i] + t1[e - 1]) / 2 / unit_s);
            fputc(' ', f.dat);
            sim__plot_num(f.dat, u > 0 ? 100 * a / u : NAN);
            fputc(' ', f.dat);
            sim__plot_num(f.dat, busy[k] && u > 0 ? 100 * b / u : NAN);
            fputc(' ', f.dat);
            sim__plot_num(f.dat, w_all > 0 ? u / w_all : NAN);
            fputc('\n', f.dat);
        }
        fputs("\n\n", f.dat);
    }
    FILE *g = f.gp;
    char title[512];
    snprintf(title, sizeof title, "GPU utilization per %s — %s", what, c->subject);
    fputs("set multiplot title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    fprintf(g, "set lmargin at screen 0.08\nset rmargin at screen 0.97\nset xrange [0:%.9g]\n",
            span / unit_s);
    fputs("set yrange [0:124]\nset ytics 0,20,100\n"
          "set key top left horizontal samplen 2 maxrows 2 opaque\n"
          "# upper panel: allocation\n"
          "set tmargin at screen 0.90\nset bmargin at screen 0.53\nset format x ''\n",
          g);
    fprintf(g, "set ylabel 'allocated / in service (%%, %s averages)'\n", win);
    for (int panel = 0; panel < 2; panel++) {
        if (panel == 1) {
            fprintf(g,
                    "# lower panel: busy\n"
                    "set tmargin at screen 0.48\nset bmargin at screen 0.10\nset format x '%%g'\n"
                    "set xlabel 'simulated time (%s)'\n"
                    "set ylabel 'busy / in service (%%, %s averages)'\nunset key\n",
                    unit, win);
        }
        fputs("plot ", g);
        size_t j = 0;
        for (size_t k = 0; k < n_names; k++) {
            if (isnan(up[k][0]))
                continue;
            fprintf(g, "%s'%s.dat' index %zu using 1:%d with lines ls %zu lw 1.5 title ",
                    j ? ", " : "", stem, j, panel ? 3 : 2, j % 8 + 1);
            sim__plot_str(g, names[k]);
            j++;
        }
        fputc('\n', g);
    }
    fputs("unset multiplot\n", g);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    for (size_t k = 0; k < n_names; k++) {
        if (up)
            free(up[k]);
        if (alloc)
            free(alloc[k]);
        if (busy)
            free(busy[k]);
    }
    free(up);
    free(alloc);
    free(busy);
    free(t0);
    free(t1);
    free(names);
    return rc;
}

int sim__plot_utilization_pools(sim__plot_ctx *c, tm_diag *diag)
{
    return fleet_util(c, "/timeseries_pool", "utilization_pools", "pool", diag);
}

int sim__plot_utilization_types(sim__plot_ctx *c, tm_diag *diag)
{
    return fleet_util(c, "/timeseries_type", "utilization_types", "GPU type", diag);
}

/* ------------------------------------------------------------------------- */
/* shape-blocked idle GPUs                                                    */

#define N_REASONS 6
static const struct {
    const char *key, *label;
} reasons[N_REASONS] = {
    {"type", "wrong GPU type"},
    {"memory", "too little GPU memory"},
    {"fragmentation", "fragmented (not on one node)"},
    {"gang", "too few free GPUs for the gang"},
    {"host", "host CPU or memory short"},
    {"order", "held by the policy's order"},
};

/* Bars of the idle GPU-hours by reason (/summary/shape_blocked) and, when
 * /timeseries has the blocked_* columns, the blocked GPUs per reason over
 * time as stacked areas under the idle GPUs (in service, not allocated). */
int sim__plot_shape_blocked(sim__plot_ctx *c, tm_diag *diag)
{
    double hours[N_REASONS], idle_h = NAN, total = 0, hmax = 0;
    double *t0 = NULL, *t1 = NULL, *up = NULL, *alloc = NULL, *blk[N_REASONS] = {0};
    size_t n = 0;
    sim__plot_fig f = {0};
    int rc = TM_OK, series = 1;
    for (size_t k = 0; k < N_REASONS; k++) {
        char p[128];
        snprintf(p, sizeof p, "/summary/shape_blocked/%s_gpu_hours", reasons[k].key);
        hours[k] = 0;
        if (sim__h5r_exists(c->r, p) &&
            (rc = sim__h5r_scalar_f64(c->r, p, &hours[k], diag)) != TM_OK)
            goto out;
        if (!isfinite(hours[k]) || hours[k] < 0)
            hours[k] = 0;
        total += hours[k];
        hmax = hours[k] > hmax ? hours[k] : hmax;
    }
    if (sim__h5r_exists(c->r, "/summary/gpu_hours_idle") &&
        (rc = sim__h5r_scalar_f64(c->r, "/summary/gpu_hours_idle", &idle_h, diag)) != TM_OK)
        goto out;
    /* the time series: every column present, all of one length */
    static const char *const base[] = {"/timeseries/t_s", "/timeseries/t_end_s",
                                       "/timeseries/gpus_up", "/timeseries/gpus_alloc"};
    for (size_t i = 0; i < 4; i++)
        series &= sim__h5r_exists(c->r, base[i]);
    for (size_t k = 0; k < N_REASONS && series; k++) {
        char p[128];
        snprintf(p, sizeof p, "/timeseries/blocked_%s", reasons[k].key);
        series &= sim__h5r_exists(c->r, p);
    }
    if (series) {
        size_t m[4 + N_REASONS];
        double **cols[4] = {&t0, &t1, &up, &alloc};
        for (size_t i = 0; i < 4; i++)
            if ((rc = sim__plot_read_f64(c, base[i], cols[i], &m[i], diag)))
                goto out;
        for (size_t k = 0; k < N_REASONS; k++) {
            char p[128];
            snprintf(p, sizeof p, "/timeseries/blocked_%s", reasons[k].key);
            if ((rc = sim__plot_read_f64(c, p, &blk[k], &m[4 + k], diag)))
                goto out;
        }
        n = m[0];
        for (size_t i = 1; i < 4 + N_REASONS; i++)
            if (m[i] != n) {
                rc = tm_diag_set(diag, TM_ERR_DATA, c->file,
                                 "/timeseries: columns of unequal length");
                goto out;
            }
        series = n > 0;
    }
    if ((rc = sim__plot_begin(c, &f, "shape_blocked", 1100, series ? 800 : 480, diag)))
        goto out;
    FILE *d = f.dat, *g = f.gp;
    /* block 0: the bars; y from the top, so the first reason is drawn first */
    fputs("# block 0: the bars: y idle_gpu_hours share_of_idle_pct reason\n", d);
    for (size_t k = 0; k < N_REASONS; k++) {
        fprintf(d, "%zu ", N_REASONS - 1 - k);
        sim__plot_num(d, hours[k]);
        fputc(' ', d);
        sim__plot_num(d, idle_h > 0 ? 100 * hours[k] / idle_h : NAN);
        fprintf(d, " %s\n", reasons[k].key);
    }
    fputs("\n\n", d);
    const char *unit = "h";
    double unit_s = 3600, span = series ? t1[n - 1] : 0;
    if (series) {
        sim__plot_time_unit(span, &unit, &unit_s);
        fprintf(d,
                "# block 1: t_%s idle_gpus, then the blocked GPUs stacked by reason "
                "(cumulative: type, +memory, +fragmentation, +gang, +host, +order)\n",
                unit);
        for (size_t i = 0; i < n; i++) {
            sim__plot_num(d, (t0[i] + t1[i]) / 2 / unit_s);
            fputc(' ', d);
            double idle = up[i] - alloc[i];
            sim__plot_num(d, idle > 0 ? idle : 0);
            double cum = 0;
            for (size_t k = 0; k < N_REASONS; k++) {
                cum += isfinite(blk[k][i]) && blk[k][i] > 0 ? blk[k][i] : 0;
                fputc(' ', d);
                sim__plot_num(d, cum);
            }
            fputc('\n', d);
        }
    }
    char title[512];
    snprintf(title, sizeof title, "Shape-blocked idle GPUs by reason — %s", c->subject);
    fputs("set multiplot title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    double ybar_top = series ? 0.38 : 0.86;
    if (series) {
        double bw = t1[0] - t0[0];
        fputs("# upper panel: blocked GPUs over time, stacked, under the idle GPUs\n"
              "set lmargin at screen 0.08\nset rmargin at screen 0.97\n"
              "set tmargin at screen 0.91\nset bmargin at screen 0.50\n",
              g);
        double ymax = 0;
        for (size_t i = 0; i < n; i++)
            ymax = up[i] - alloc[i] > ymax ? up[i] - alloc[i] : ymax;
        char bin[32];
        if (bw >= 3600)
            snprintf(bin, sizeof bin, "%g-h", bw / 3600);
        else
            snprintf(bin, sizeof bin, "%g-min", bw / 60);
        fprintf(g,
                "set xrange [0:%.9g]\nset xlabel 'simulated time (%s)' offset 0,0.5\n"
                "set ylabel 'idle GPUs (time average over %s bins)'\n"
                "set yrange [0:%.9g]\nset key top left horizontal maxrows 2 samplen 1.5 opaque "
                "font ',11'\n",
                span / unit_s, unit, bin, ymax > 0 ? ymax * 1.45 : 1.0);
        fputs("set style fill solid 0.75 noborder\nplot ", g);
        for (size_t k = 0; k < N_REASONS; k++) {
            /* band k lies between the cumulative columns k + 2 and k + 3
             * (column 2 is the idle GPUs: the first band starts at zero) */
            if (k == 0)
                fputs("'shape_blocked.dat' index 1 using 1:(0):3", g);
            else
                fprintf(g, "'' index 1 using 1:%zu:%zu", k + 2, k + 3);
            fprintf(g, " with filledcurves ls %zu title ", k + 1);
            sim__plot_str(g, reasons[k].label);
            fputs(", ", g);
        }
        fputs("'' index 1 using 1:2 with lines ls 8 lw 1.2 title 'idle GPUs (in service, not "
              "allocated)'\n",
              g);
    }
    double hs;
    const char *hp;
    sim__plot_count_unit(hmax, &hs, &hp);
    fprintf(g,
            "# %s panel: idle GPU-hours by reason\n"
            "set lmargin at screen 0.27\nset rmargin at screen 0.86\n"
            "set tmargin at screen %.2f\nset bmargin at screen 0.%s\n"
            "unset key\nset xrange [0:%.9g]\nset yrange [-0.6:%.1f]\n"
            "set xlabel 'shape-blocked idle GPU-hours over the run (%sGPU-hours)' offset 0,0\n"
            "set ylabel ''\nset grid x\nset grid noy\n",
            series ? "lower" : "the", ybar_top, series ? "09" : "15",
            hmax > 0 ? hmax * hs * 1.05 : 1.0, N_REASONS - 0.4, hp);
    fputs("set ytics (", g);
    for (size_t k = 0; k < N_REASONS; k++) {
        fprintf(g, "%s", k ? ", " : "");
        sim__plot_str(g, reasons[k].label);
        fprintf(g, " %zu", N_REASONS - 1 - k);
    }
    fputs(") scale 0\nset style fill solid 0.8 noborder\n", g);
    /* the value at the end of each bar, outside the frame's right side when long */
    for (size_t k = 0; k < N_REASONS; k++) {
        char v[96];
        if (!(hours[k] > 0))
            snprintf(v, sizeof v, "0");
        else if (idle_h > 0)
            snprintf(v, sizeof v, "%.1f%.1s (%.1f %% of idle)", hours[k] * hs, hp,
                     100 * hours[k] / idle_h);
        else
            snprintf(v, sizeof v, "%.1f%.1s", hours[k] * hs, hp);
        fprintf(g, "set label %zu ", 20 + k);
        sim__plot_str(g, v);
        fprintf(g, " at first %.9g, first %zu offset 0.6,0 left font ',10' tc rgb '#333333'\n",
                hours[k] * hs, N_REASONS - 1 - k);
    }
    if (total <= 0)
        fputs("set label 30 'no shape-blocked idle time in this run' at graph 0.5, graph 0.5 "
              "center tc rgb '#555555'\n",
              g);
    fputs("plot ", g);
    for (size_t k = 0; k < N_REASONS; k++)
        fprintf(g,
                "%s'shape_blocked.dat' index 0 every ::%zu::%zu using ($2*%g/2):1:(0):($2*%g):"
                "($1-0.35):($1+0.35) with boxxyerror ls %zu",
                k ? ", " : "", k, k, hs, hs, k + 1);
    fputs("\nunset multiplot\n", g);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    free(t0);
    free(t1);
    free(up);
    free(alloc);
    for (size_t k = 0; k < N_REASONS; k++)
        free(blk[k]);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* distributions per class                                                    */

/* Values per class: x[cls] arrays of n[cls], and the union at index n_cls. */
typedef struct per_class {
    size_t n_cls;
    double **x;
    size_t *n;
} per_class;

static void per_class_free(per_class *pc)
{
    for (size_t k = 0; pc->x && k <= pc->n_cls; k++)
        free(pc->x[k]);
    free(pc->x);
    free(pc->n);
    memset(pc, 0, sizeof *pc);
}

/* Split v[i] for rows with keep[i] by class cls[i] (classes >= n_cls are
 * counted in the union only); each array sorted. */
static int per_class_split(per_class *pc, size_t n_cls, const double *cls, const double *v,
                           const unsigned char *keep, size_t rows, tm_diag *diag)
{
    memset(pc, 0, sizeof *pc);
    pc->n_cls = n_cls;
    pc->x = calloc(n_cls + 1, sizeof *pc->x);
    pc->n = calloc(n_cls + 1, sizeof *pc->n);
    size_t *cap = calloc(n_cls + 1, sizeof *cap);
    if (!pc->x || !pc->n || !cap)
        goto nomem;
    for (size_t i = 0; i < rows; i++) {
        if (!keep[i])
            continue;
        size_t k = cls[i] >= 0 && cls[i] < (double)n_cls ? (size_t)cls[i] : n_cls;
        cap[k]++;
        if (k != n_cls)
            cap[n_cls]++;
    }
    for (size_t k = 0; k <= n_cls; k++)
        if (!(pc->x[k] = malloc((cap[k] ? cap[k] : 1) * sizeof(double))))
            goto nomem;
    for (size_t i = 0; i < rows; i++) {
        if (!keep[i])
            continue;
        size_t k = cls[i] >= 0 && cls[i] < (double)n_cls ? (size_t)cls[i] : n_cls;
        pc->x[k][pc->n[k]++] = v[i];
        if (k != n_cls)
            pc->x[n_cls][pc->n[n_cls]++] = v[i];
    }
    for (size_t k = 0; k <= n_cls; k++)
        qsort(pc->x[k], pc->n[k], sizeof(double), cmp_double);
    free(cap);
    return TM_OK;
nomem:
    free(cap);
    per_class_free(pc);
    return tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
}

/* The blocks to draw: every class with values, then "all classes" when more
 * than one class has values. Returns the count; idx[] gets the indices. */
static size_t drawn_classes(const per_class *pc, size_t *idx)
{
    size_t m = 0, with = 0;
    for (size_t k = 0; k < pc->n_cls; k++)
        if (pc->n[k]) {
            idx[m++] = k;
            with++;
        }
    if (with != 1 && pc->n[pc->n_cls])
        idx[m++] = pc->n_cls;
    return m;
}

/* The label of each drawn class: names shortened to SIM__PLOT_LABEL_CHARS. */
typedef char class_label[128];

static void class_title(char *buf, size_t n, const per_class *pc, size_t k, const class_label *lab,
                        const char *what)
{
    if (k == pc->n_cls)
        snprintf(buf, n, "all classes (%zu %s)", pc->n[k], what);
    else
        snprintf(buf, n, "%s (%zu %s)", lab[k], pc->n[k], what);
}

/* The plot command's curves, one a drawn class (idx[0..m) into pc; data
 * block j of `dat`), as steps: seven colours, then the same dashed; "all
 * classes" dashed and thicker, the shared "other N classes" grey. */
static void plot_class_steps(FILE *g, const char *dat, const per_class *pc, const size_t *idx,
                             size_t m, const class_label *lab, int others)
{
    for (size_t j = 0; j < m; j++) {
        char t[160];
        class_title(t, sizeof t, pc, idx[j], lab, "jobs");
        int all = idx[j] == pc->n_cls, rest = others && idx[j] == pc->n_cls - 1;
        fprintf(g, "%s'%s' index %zu using 1:2 with steps ls %zu%s title ", j ? ", " : "", dat, j,
                all ? (size_t)8 : j % 7 + 1,
                all      ? " lw 1.5 dt (6,4)"
                : rest   ? " lc rgb '#999999' lw 2.5"
                : j >= 7 ? " dt (9,4)"
                         : "");
        sim__plot_str(g, t);
    }
    fputc('\n', g);
}

/* Many classes: the SIM__PLOT_MAX_CLASSES - 1 with the most GPU-hours
 * (gpus x run_s over /jobs; jobs when /jobs/gpus is absent) keep their own
 * curve and the rest share one, "other N classes". Renumbers cls[] in place
 * to the drawn classes, *n_cls becomes their count; *lab (malloc'd, one per
 * drawn class) their labels. */
static int cap_classes(sim__plot_ctx *c, double *cls, size_t n, size_t *n_cls, char **names,
                       size_t n_names, class_label **lab, int *others_drawn, tm_diag *diag)
{
    double *gpus = NULL, *run = NULL, *w = calloc(*n_cls + 1, sizeof *w);
    size_t *order = malloc((*n_cls + 1) * sizeof *order), *to = malloc((*n_cls + 1) * sizeof *to),
           ng = 0, nr = 0;
    int rc = TM_OK;
    *lab = NULL;
    if (!w || !order || !to) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    if (sim__h5r_exists(c->r, "/jobs/gpus") && sim__h5r_exists(c->r, "/jobs/run_s") &&
        ((rc = sim__plot_read_f64(c, "/jobs/gpus", &gpus, &ng, diag)) ||
         (rc = sim__plot_read_f64(c, "/jobs/run_s", &run, &nr, diag))))
        goto out;
    int by_gpu_h = gpus && run && ng == n && nr == n;
    for (size_t i = 0; i < n; i++)
        if (cls[i] >= 0 && cls[i] < (double)*n_cls) {
            double v = by_gpu_h ? gpus[i] * run[i] / 3600 : 1;
            w[(size_t)cls[i]] += isfinite(v) && v > 0 ? v : 0;
        }
    int others = sim__plot_top(w, *n_cls, SIM__PLOT_MAX_CLASSES, order);
    *others_drawn = others;
    size_t kept = others ? SIM__PLOT_MAX_CLASSES - 1 : *n_cls;
    if (!(*lab = calloc(kept + 1, sizeof **lab))) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    for (size_t j = 0; j < *n_cls; j++)
        to[order[j]] = j < kept ? j : kept;
    for (size_t j = 0; j < kept; j++) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "class %zu", order[j]);
        sim__plot_short_name((*lab)[j], sizeof(class_label),
                             order[j] < n_names ? names[order[j]] : tmp, SIM__PLOT_LABEL_CHARS);
    }
    if (others) {
        snprintf((*lab)[kept], sizeof(class_label), "other %zu classes", *n_cls - kept);
        for (size_t i = 0; i < n; i++)
            if (cls[i] >= 0 && cls[i] < (double)*n_cls)
                cls[i] = (double)to[(size_t)cls[i]];
        *n_cls = kept + 1;
    }
out:
    free(gpus);
    free(run);
    free(w);
    free(order);
    free(to);
    return rc;
}

static int read_jobs(sim__plot_ctx *c, const char *col, double **cls, double **v, size_t *n,
                     char ***names, size_t *n_names, tm_diag *diag)
{
    size_t n1;
    int rc;
    if ((rc = sim__plot_read_f64(c, "/jobs/class", cls, n, diag)) ||
        (rc = sim__plot_read_f64(c, col, v, &n1, diag)) ||
        (rc = sim__plot_labels(c, "/jobs/class", names, n_names, diag)))
        return rc;
    if (n1 != *n)
        return tm_diag_set(diag, TM_ERR_DATA, c->file, "/jobs: columns of unequal length");
    return TM_OK;
}

int sim__plot_wait_cdf(sim__plot_ctx *c, tm_diag *diag)
{
    double *cls = NULL, *wait = NULL, *start = NULL;
    char **names = NULL;
    class_label *lab = NULL;
    int others = 0;
    unsigned char *keep = NULL;
    size_t n = 0, n_names = 0, ns, *idx = NULL;
    per_class pc = {0};
    sim__plot_fig f = {0};
    int rc;
    if ((rc = read_jobs(c, "/jobs/wait_s", &cls, &wait, &n, &names, &n_names, diag)) ||
        (rc = sim__plot_read_f64(c, "/jobs/start_s", &start, &ns, diag)))
        goto out;
    if (ns != n) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/jobs: columns of unequal length");
        goto out;
    }
    size_t n_cls = n_names;
    for (size_t i = 0; i < n; i++)
        if (cls[i] >= 0 && cls[i] < 4096 && (size_t)cls[i] + 1 > n_cls)
            n_cls = (size_t)cls[i] + 1;
    if ((rc = cap_classes(c, cls, n, &n_cls, names, n_names, &lab, &others, diag)))
        goto out;
    keep = malloc(n ? n : 1);
    idx = malloc((n_cls + 1) * sizeof *idx);
    if (!keep || !idx) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    size_t waiting = 0;
    for (size_t i = 0; i < n; i++) {
        keep[i] = !isnan(start[i]) && !isnan(wait[i]); /* jobs that started */
        waiting += isnan(start[i]) && !isnan(wait[i]);
    }
    if ((rc = per_class_split(&pc, n_cls, cls, wait, keep, n, diag)))
        goto out;
    size_t m = drawn_classes(&pc, idx);
    if (m == 0)
        goto out; /* no job started */
    double hi = pc.x[pc.n_cls][pc.n[pc.n_cls] - 1];
    double xmax = hi > 10 ? hi * 1.5 : 15;
    if ((rc = sim__plot_begin(c, &f, "wait_cdf", 1100, 680, diag)))
        goto out;
    fputs("# one block per class: wait_s_drawn (at least 1 s) cdf wait_s\n", f.dat);
    for (size_t j = 0; j < m; j++) {
        char t[160];
        class_title(t, sizeof t, &pc, idx[j], lab, "jobs");
        fprintf(f.dat, "# %s\n", t);
        write_dist(f.dat, pc.x[idx[j]], pc.n[idx[j]], 1.0, 0);
    }
    FILE *g = f.gp;
    char title[512];
    snprintf(title, sizeof title, "Wait time distribution — %s", c->subject);
    fputs("set title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    if (waiting) {
        char note[160];
        snprintf(note, sizeof note, "%zu job(s) still waiting at the end are not counted", waiting);
        fputs("set label 2 ", g);
        sim__plot_str(g, note);
        fputs(" at graph 0.99, graph 0.04 right tc rgb '#555555'\n", g);
    }
    /* the y axis starts a little below the lowest curve's start: when most
     * jobs do not wait, the tail is what there is to see */
    double ymin = 1;
    for (size_t j = 0; j < m; j++) {
        double f1 = frac_at_most(pc.x[idx[j]], pc.n[idx[j]], 1.0);
        ymin = f1 < ymin ? f1 : ymin;
    }
    ymin = floor((ymin - 0.02) * 10) / 10;
    ymin = ymin > 0 ? ymin : 0;
    fputs("set logscale x\n", g);
    fprintf(g, "set xrange [1:%.9g]\n", xmax);
    time_tics(g, 1, xmax);
    fprintf(g, "set yrange [%.9g:1.005]\nset ytics %g,%g,1\n", ymin, ymin,
            ymin >= 0.7 ? 0.05 : 0.1);
    fputs(
        "set xlabel 'wait from arrival to first start (log scale; waits under 1 s drawn at 1 s)'\n"
        "set ylabel 'fraction of started jobs that waited at most this long'\n",
        g);
    static const double pct[] = {0.5, 0.9, 0.95, 0.99};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
        if (pct[i] > ymin)
            fprintf(g,
                    "set arrow %zu from graph 0, first %g to graph 1, first %g nohead dt 3 lc rgb "
                    "'#999999'\nset label %zu 'p%g' at graph 1.01, first %g left tc rgb "
                    "'#777777'\n",
                    i + 1, pct[i], pct[i], i + 10, 100 * pct[i], pct[i]);
    fputs("set rmargin 7\nset key bottom right opaque box lc rgb '#cccccc'\nplot ", g);
    plot_class_steps(g, "wait_cdf.dat", &pc, idx, m, lab, others);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    per_class_free(&pc);
    free(cls);
    free(wait);
    free(start);
    free(names);
    free(lab);
    free(keep);
    free(idx);
    return rc;
}

int sim__plot_slowdown(sim__plot_ctx *c, tm_diag *diag)
{
    double *cls = NULL, *wait = NULL, *run = NULL, *state = NULL;
    char **names = NULL;
    class_label *lab = NULL;
    int others = 0;
    unsigned char *keep = NULL;
    size_t n = 0, n_names = 0, nr, nst, *idx = NULL;
    per_class pc = {0};
    sim__plot_fig f = {0};
    int rc;
    if ((rc = read_jobs(c, "/jobs/wait_s", &cls, &wait, &n, &names, &n_names, diag)) ||
        (rc = sim__plot_read_f64(c, "/jobs/run_s", &run, &nr, diag)) ||
        (rc = sim__plot_read_f64(c, "/jobs/state", &state, &nst, diag)))
        goto out;
    if (nr != n || nst != n) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/jobs: columns of unequal length");
        goto out;
    }
    size_t n_cls = n_names;
    for (size_t i = 0; i < n; i++)
        if (cls[i] >= 0 && cls[i] < 4096 && (size_t)cls[i] + 1 > n_cls)
            n_cls = (size_t)cls[i] + 1;
    if ((rc = cap_classes(c, cls, n, &n_cls, names, n_names, &lab, &others, diag)))
        goto out;
    keep = malloc(n ? n : 1);
    idx = malloc((n_cls + 1) * sizeof *idx);
    if (!keep || !idx) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    /* bounded slowdown of completed jobs (state 2), tau = 10 s, in place of the wait */
    for (size_t i = 0; i < n; i++) {
        keep[i] = state[i] == 2 && !isnan(run[i]) && !isnan(wait[i]);
        if (keep[i]) {
            double sd = (wait[i] + run[i]) / (run[i] > 10 ? run[i] : 10);
            wait[i] = sd > 1 ? sd : 1;
        }
    }
    if ((rc = per_class_split(&pc, n_cls, cls, wait, keep, n, diag)))
        goto out;
    size_t m = drawn_classes(&pc, idx);
    if (m == 0)
        goto out; /* no job completed */
    size_t nmax = 0;
    for (size_t j = 0; j < m; j++)
        nmax = pc.n[idx[j]] > nmax ? pc.n[idx[j]] : nmax;
    double hi = pc.x[pc.n_cls][pc.n[pc.n_cls] - 1];
    if ((rc = sim__plot_begin(c, &f, "slowdown", 1100, 680, diag)))
        goto out;
    fputs("# one block per class: slowdown P(slowdown > x) slowdown\n", f.dat);
    for (size_t j = 0; j < m; j++) {
        char t[160];
        class_title(t, sizeof t, &pc, idx[j], lab, "jobs");
        fprintf(f.dat, "# %s\n", t);
        write_dist(f.dat, pc.x[idx[j]], pc.n[idx[j]], 1.0, 1);
    }
    FILE *g = f.gp;
    char title[512];
    snprintf(title, sizeof title, "Bounded slowdown — %s", c->subject);
    fputs("set title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    fprintf(g, "set logscale xy\nset xrange [1:%.9g]\nset yrange [%.9g:1]\n", hi > 2 ? hi * 1.3 : 3,
            0.8 / (double)nmax);
    fputs("set format y '%g'\n"
          "set xlabel 'bounded slowdown max(1, (wait + run) / max(run, 10 s))  (log scale)'\n"
          "set ylabel 'fraction of completed jobs with a larger slowdown  (log scale)'\n"
          "set key top right opaque box lc rgb '#cccccc'\nplot ",
          g);
    plot_class_steps(g, "slowdown.dat", &pc, idx, m, lab, others);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    per_class_free(&pc);
    free(cls);
    free(wait);
    free(run);
    free(state);
    free(names);
    free(lab);
    free(keep);
    free(idx);
    return rc;
}
