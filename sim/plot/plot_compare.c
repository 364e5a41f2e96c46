/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_compare.c — the figures of a comparison file (`tarmac compare`):
 * every metric of /compare/metrics as a panel with each policy's mean and
 * confidence interval (compare.STEM), and the paired differences to the first
 * policy with their intervals and a zero line (compare_diff).
 *
 * The metrics are whatever groups /compare/metrics holds, in the order they
 * were written, so a metric added to compare_int.h appears here unchanged.
 * compare_classes and compare_classes_diff draw the same per workload class
 * from /compare/class_metrics: a row of panels per class (mean wait, p95
 * wait, mean bounded slowdown).
 * Values are shown in a unit chosen from their size: seconds as s, min, h or
 * d; ratios whose name ends in "_util" as %. Long policy labels become the
 * letters A, B, ... with a legend underneath.
 */
#include "plot/plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cmp_metric {
    char name[96], label[256], unit[16];
    double scale;
    size_t n; /* policies */
    double *mean, *lo, *hi, *dmean, *dlo, *dhi;
} cmp_metric;

static void metric_free(cmp_metric *m)
{
    free(m->mean);
    free(m->lo);
    free(m->hi);
    free(m->dmean);
    free(m->dlo);
    free(m->dhi);
}

static void choose_unit(cmp_metric *m, const char *name, const char *units);
static double metric_cap(const cmp_metric *m);

static int read_metric(sim__plot_ctx *c, const char *name, cmp_metric *m, tm_diag *diag)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    char p[256], *s = NULL;
    const struct {
        const char *col;
        double **v;
    } cols[] = {{"mean", &m->mean},       {"ci_low", &m->lo},       {"ci_high", &m->hi},
                {"diff_mean", &m->dmean}, {"diff_ci_low", &m->dlo}, {"diff_ci_high", &m->dhi}};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        size_t n;
        snprintf(p, sizeof p, "/compare/metrics/%s/%s", name, cols[i].col);
        int rc = sim__plot_read_f64(c, p, cols[i].v, &n, diag);
        if (rc)
            return rc;
        if (i > 0 && n != m->n)
            return tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", p);
        m->n = n;
    }
    snprintf(p, sizeof p, "/compare/metrics/%s", name);
    snprintf(m->label, sizeof m->label, "%s", name);
    if (sim__h5r_attr_str(c->r, p, "label", &s, diag) == TM_OK)
        snprintf(m->label, sizeof m->label, "%s", s);
    free(s);
    s = NULL;
    char units[16] = "1";
    if (sim__h5r_attr_str(c->r, p, "units", &s, diag) == TM_OK)
        snprintf(units, sizeof units, "%s", s);
    free(s);
    tm_diag_clear(diag);
    choose_unit(m, name, units);
    return TM_OK;
}

/* The unit of a panel from its values: seconds as s, min, h or d; ratios
 * named "*_util" as %. */
static void choose_unit(cmp_metric *m, const char *name, const char *units)
{
    double big = 0;
    for (size_t i = 0; i < m->n; i++)
        if (isfinite(m->mean[i]) && fabs(m->mean[i]) > big)
            big = fabs(m->mean[i]);
    m->scale = 1;
    size_t nl = strlen(name);
    if (strcmp(units, "s") == 0) {
        if (big < 120)
            snprintf(m->unit, sizeof m->unit, "s");
        else if (big < 7200)
            snprintf(m->unit, sizeof m->unit, "min"), m->scale = 1.0 / 60;
        else if (big < 2 * 86400)
            snprintf(m->unit, sizeof m->unit, "h"), m->scale = 1.0 / 3600;
        else
            snprintf(m->unit, sizeof m->unit, "d"), m->scale = 1.0 / 86400;
    } else if (strcmp(units, "1") == 0 && nl > 5 && strcmp(name + nl - 5, "_util") == 0) {
        snprintf(m->unit, sizeof m->unit, "%%");
        m->scale = 100;
    } else {
        /* counts and GPU-hours: thousands or millions past 10^4 */
        const char *prefix;
        sim__plot_count_unit(big, &m->scale, &prefix);
        if (strcmp(units, "1") != 0)
            snprintf(m->unit, sizeof m->unit, "%s%s", prefix, units);
        else if (prefix[0])
            snprintf(m->unit, sizeof m->unit, "%.1s", prefix);
    }
}

/* The bounds of a metric's values: every metric compared is at least 0
 * (waits, slowdowns, counts, GPU-hours, ratios); allocation, busy and
 * goodput utilization and SLO attainment are at most 100 % (useful work
 * and its value-weighted form can pass 100 %, on GPUs faster than the
 * reference). */
static double metric_cap(const cmp_metric *m)
{
    const char *base = strrchr(m->name, '/');
    base = base ? base + 1 : m->name;
    static const char *const bounded[] = {"alloc_util", "busy_util", "goodput_util"};
    for (size_t i = 0; i < sizeof bounded / sizeof bounded[0]; i++)
        if (strcmp(base, bounded[i]) == 0)
            return m->scale == 100 ? 100 : 1;
    if (strstr(base, "attainment"))
        return strcmp(m->unit, "%") == 0 ? 100 : 1;
    return INFINITY;
}

/* The y range of a panel from its values and intervals, padded, with about
 * five ticks at 1, 2 or 5 times a power of ten; a panel whose values are all
 * equal (a difference of exactly 0) gets a range around them. Every metric
 * compared is at least 0 (waits, slowdowns, counts, GPU-hours, ratios) and
 * allocation utilization at most 100 %: a panel of means stops there, and an
 * interval that reaches past the bound (Student t around a mean near it) is
 * cut at the axis instead of claiming impossible values. */
static void panel_range(FILE *g, const cmp_metric *m, size_t first, int diff)
{
    int nonneg = !diff;
    double cap = diff ? INFINITY : metric_cap(m);
    for (size_t p = first; nonneg && p < m->n; p++)
        nonneg = !(m->mean[p] < 0);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t p = first; p < m->n; p++) {
        const double v[] = {diff ? m->dmean[p] : m->mean[p], diff ? m->dlo[p] : m->lo[p],
                            diff ? m->dhi[p] : m->hi[p], diff ? 0 : m->mean[p]};
        for (size_t k = 0; k < 4; k++)
            if (isfinite(v[k])) {
                lo = v[k] * m->scale < lo ? v[k] * m->scale : lo;
                hi = v[k] * m->scale > hi ? v[k] * m->scale : hi;
            }
    }
    if (!(lo <= hi))
        return; /* nothing finite: leave it to gnuplot */
    double span = hi - lo;
    if (span <= 1e-12 * (fabs(hi) + 1)) {
        double pad = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
        lo -= pad;
        hi += pad;
        span = hi - lo;
    }
    double raw = span / 4, mag = pow(10, floor(log10(raw))), step = mag;
    if (raw / mag > 5)
        step = 10 * mag;
    else if (raw / mag > 2)
        step = 5 * mag;
    else if (raw / mag > 1)
        step = 2 * mag;
    lo = floor((lo - 0.08 * span) / step) * step;
    hi = ceil((hi + 0.08 * span) / step) * step;
    if (nonneg && lo < 0)
        lo = 0;
    if (hi > cap)
        hi = cap;
    fprintf(g, "set yrange [%.9g:%.9g]\nset ytics %.9g\n", lo, hi, step);
}

/* A multiplot grid of one panel per metric; diff = 0 the means, 1 the paired
 * differences (policies 1..n-1). */
static void write_panels(FILE *g, const char *stem, const cmp_metric *mt, size_t n_m, size_t n_pol,
                         char **pol, int letters, int diff, const char *title, int rows, int cols,
                         double bottom, double top, double vspace)
{
    fputs("set multiplot layout ", g);
    fprintf(g, "%d,%d title ", rows, cols);
    sim__plot_str(g, title);
    /* the gap between rows in pixels (77: the tic labels and the next
     * title), whatever the number of rows */
    fprintf(g, " font ',15' margins 0.07,0.98,%.3f,%.3f spacing 0.08,%.4f\n", bottom, top, vspace);
    size_t first = diff ? 1 : 0;
    fprintf(g, "set xrange [%g:%g]\n", (double)first - 0.5, (double)n_pol - 0.5);
    fputs("set xtics (", g);
    for (size_t p = first; p < n_pol; p++) {
        char l[8];
        snprintf(l, sizeof l, "%c", (char)('A' + p % 26));
        fprintf(g, "%s", p > first ? ", " : "");
        sim__plot_str(g, letters ? l : pol[p]);
        fprintf(g, " %zu", p);
    }
    fputs(")\nset key off\nset grid ytics\n", g);
    fputs("set bars 2\nset pointsize 1.4\n", g);
    for (size_t m = 0; m < n_m; m++) {
        char t[300];
        if (mt[m].unit[0])
            snprintf(t, sizeof t, "%s (%s)", mt[m].label, mt[m].unit);
        else
            snprintf(t, sizeof t, "%s", mt[m].label);
        fputs("set title ", g);
        sim__plot_str(g, t);
        fputs(" font ',11'\n", g);
        panel_range(g, &mt[m], first, diff);
        if (diff)
            fprintf(g,
                    "plot 0 with lines ls 9 lw 1.5, '%s.dat' index %zu every ::1 using "
                    "1:5:6:7:($1+1) with yerrorbars lc variable lw 2 pt 7\n",
                    stem, m);
        else
            fprintf(g,
                    "plot '%s.dat' index %zu using 1:2:3:4:($1+1) with yerrorbars lc variable "
                    "lw 2 pt 7\n",
                    stem, m);
        if (m == 0 && letters)
            fputs("unset label # the legend of the letters: drawn once\n", g);
    }
    fputs("unset multiplot\n", g);
}

static int one_figure(sim__plot_ctx *c, const char *stem, const cmp_metric *mt, size_t n_m,
                      char **pol, size_t n_pol, int diff, double conf, const char *scope,
                      tm_diag *diag)
{
    int cols = n_m <= 4 ? 2 : 3, rows = (int)((n_m + (size_t)cols - 1) / (size_t)cols);
    /* the policies' names under each panel, or letters and a legend when a
     * name is long or the names together (about 9 px a character, with a
     * gap) do not fit a panel's width */
    int letters = 0;
    size_t chars = 0;
    for (size_t p = diff ? 1 : 0; p < n_pol; p++) {
        letters |= strlen(pol[p]) > 16;
        chars += strlen(pol[p]) + 3;
    }
    letters |= 9.0 * (double)chars > 0.85 * 1200.0 / cols;
    int height = 90 + 250 * rows + (letters ? 24 * (int)n_pol + 40 : 0);
    sim__plot_fig f;
    int rc = sim__plot_begin(c, &f, stem, 1200, height, diag);
    if (rc)
        return rc;
    fputs("# one block per metric: policy mean ci_low ci_high diff_mean diff_ci_low "
          "diff_ci_high (in the unit of the panel)\n",
          f.dat);
    for (size_t m = 0; m < n_m; m++) {
        fprintf(f.dat, "# %s (%s)\n", mt[m].name, mt[m].unit[0] ? mt[m].unit : "1");
        for (size_t p = 0; p < mt[m].n; p++) {
            fprintf(f.dat, "%zu", p);
            double v[] = {mt[m].mean[p],  mt[m].lo[p],  mt[m].hi[p],
                          mt[m].dmean[p], mt[m].dlo[p], mt[m].dhi[p]};
            for (size_t k = 0; k < 6; k++)
                v[k] *= mt[m].scale;
            /* an interval (Student t, symmetric) is cut at the bounds of
             * the quantity: no wait below 0, no utilization above 100 % */
            double cap = metric_cap(&mt[m]);
            for (size_t k = 1; k < 3; k++)
                if (isfinite(v[k]))
                    v[k] = fmin(fmax(v[k], 0), cap);
            for (size_t k = 0; k < 6; k++) {
                fputc(' ', f.dat);
                sim__plot_num(f.dat, v[k]);
            }
            fputc('\n', f.dat);
        }
        fputs("\n\n", f.dat);
    }
    FILE *g = f.gp;
    /* colours by policy, the same in both figures (lc variable uses linetypes) */
    static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                          "#E69F00", "#56B4E9", "#000000", "#F0E442"};
    for (size_t i = 0; i < 8; i++)
        fprintf(g, "set linetype %zu lc rgb '%s' lw 2 pt 7\n", i + 1, colours[i]);
    fputs("set linetype cycle 8\n", g);
    char title[600];
    if (diff)
        snprintf(title, sizeof title, "%sPaired difference to %s, mean and %g %% interval — %s",
                 scope, pol[0], 100 * conf, c->subject);
    else
        snprintf(title, sizeof title, "%sPolicies side by side, mean and %g %% interval — %s",
                 scope, 100 * conf, c->subject);
    if (letters) {
        double y = 0.02;
        for (size_t p = n_pol; p-- > (size_t)(diff ? 1 : 0);) {
            char l[300];
            snprintf(l, sizeof l, "%c = %s", (char)('A' + p % 26), pol[p]);
            fprintf(g, "set label %zu ", 100 + p);
            sim__plot_str(g, l);
            fprintf(g, " at screen 0.07, screen %.4f tc lt %zu\n", y, p % 8 + 1);
            y += 24.0 / height;
        }
    }
    double bottom = (letters ? 24.0 * (double)n_pol + 75 : 40) / height;
    /* room for the title and the first row's panel titles: 80 px */
    double top = 1 - 80.0 / height;
    write_panels(g, stem, mt, n_m, n_pol, pol, letters, diff, title, rows, cols, bottom, top,
                 77.0 / height);
    return sim__plot_end(c, &f, diag);
}

int sim__plot_compare(sim__plot_ctx *c, tm_diag *diag)
{
    char **names = NULL, **pol = NULL;
    size_t n_names = 0, n_pol = 0, n_m = 0;
    cmp_metric *mt = NULL;
    double conf = 0.95;
    int rc =
        sim__h5r_list(c->r, "/compare/metrics", SIM__H5_ORDER_CREATION, &names, &n_names, diag);
    if (rc)
        goto out;
    if (sim__h5r_exists(c->r, "/compare/confidence") &&
        (rc = sim__h5r_scalar_f64(c->r, "/compare/confidence", &conf, diag)))
        goto out;
    mt = calloc(n_names ? n_names : 1, sizeof *mt);
    if (!mt) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_names; i++) {
        if ((rc = read_metric(c, names[i], &mt[n_m], diag)))
            goto out;
        n_m++;
    }
    if (n_m == 0)
        goto out;
    size_t n = mt[0].n;
    for (size_t m = 1; m < n_m; m++)
        if (mt[m].n != n) {
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file,
                             "/compare/metrics: %s has %zu policies, %s %zu", mt[0].name, n,
                             mt[m].name, mt[m].n);
            goto out;
        }
    /* the policy labels: the first metric's policy column carries them */
    char lp[256];
    snprintf(lp, sizeof lp, "/compare/metrics/%s/policy", mt[0].name);
    if ((rc = sim__plot_labels(c, lp, &pol, &n_pol, diag)))
        goto out;
    if (n_pol != n) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: %zu labels for %zu policies", lp, n_pol,
                         n);
        goto out;
    }
    if (n == 0)
        goto out;
    if ((rc = one_figure(c, "compare", mt, n_m, pol, n, 0, conf, "", diag)))
        goto out;
    if (n >= 2 && (rc = one_figure(c, "compare_diff", mt, n_m, pol, n, 1, conf, "", diag)))
        goto out;
out:
    for (size_t m = 0; mt && m < n_m; m++)
        metric_free(&mt[m]);
    if (rc && mt && n_m < n_names)
        metric_free(&mt[n_m]);
    free(mt);
    free(names);
    free(pol);
    return rc;
}

/* The per-class figures (compare_classes, compare_classes_diff): a row of
 * panels per workload class, one panel per metric of CLASS_METRICS, from
 * /compare/class_metrics/<metric> (one row per (class, policy)). */
static const char *const class_metric_names[] = {"wait_mean_s", "wait_p95_s", "slowdown_mean"};
#define N_CLASS_PANELS (sizeof class_metric_names / sizeof class_metric_names[0])

/* The per-class figures, CLASSES_PER_PAGE classes (rows) to a figure:
 * compare_classes, compare_classes_2, ... and the same of
 * compare_classes_diff; past MAX_CLASS_PAGES pages, the classes with the
 * most GPU-hours under the first policy (/compare/class_metrics/gpu_hours)
 * and the title says how many are left out. Classes keep the file's order. */
#define CLASSES_PER_PAGE 6
#define MAX_CLASS_PAGES  4
static int class_pages(sim__plot_ctx *c, const cmp_metric *mt, size_t n_cls, char **pol,
                       size_t n_pol, double conf, tm_diag *diag)
{
    size_t max_cls = CLASSES_PER_PAGE * MAX_CLASS_PAGES, *order = malloc(n_cls * sizeof *order);
    double *w = calloc(n_cls, sizeof *w), *gh = NULL, *gc = NULL, *gp = NULL;
    cmp_metric *page = calloc(CLASSES_PER_PAGE * N_CLASS_PANELS, sizeof *page);
    int rc = TM_OK;
    if (!order || !w || !page) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    size_t shown = n_cls;
    if (n_cls > max_cls) {
        size_t n1 = 0, n2 = 0, n3 = 0;
        if (sim__h5r_exists(c->r, "/compare/class_metrics/gpu_hours/mean") &&
            ((rc =
                  sim__plot_read_f64(c, "/compare/class_metrics/gpu_hours/mean", &gh, &n1, diag)) ||
             (rc = sim__plot_read_f64(c, "/compare/class_metrics/gpu_hours/class", &gc, &n2,
                                      diag)) ||
             (rc = sim__plot_read_f64(c, "/compare/class_metrics/gpu_hours/policy", &gp, &n3,
                                      diag))))
            goto out;
        for (size_t i = 0; gh && i < n1 && i < n2 && i < n3; i++)
            if (gp[i] == 0 && gc[i] >= 0 && gc[i] < (double)n_cls)
                w[(size_t)gc[i]] = gh[i];
        /* max_cls + 1 places: the heaviest max_cls first, in file order */
        sim__plot_top(w, n_cls, max_cls + 1, order);
        shown = max_cls;
    } else {
        for (size_t k = 0; k < n_cls; k++)
            order[k] = k;
    }
    for (int diff = 0; diff <= (n_pol >= 2); diff++)
        for (size_t first = 0, pg = 0; first < shown; first += CLASSES_PER_PAGE, pg++) {
            size_t nk = shown - first < CLASSES_PER_PAGE ? shown - first : CLASSES_PER_PAGE;
            for (size_t k = 0; k < nk; k++)
                for (size_t j = 0; j < N_CLASS_PANELS; j++)
                    page[k * N_CLASS_PANELS + j] = mt[order[first + k] * N_CLASS_PANELS + j];
            char stem[SIM__PLOT_STEM_MAX], scope[160];
            const char *base = diff ? "compare_classes_diff" : "compare_classes";
            if (pg == 0)
                snprintf(stem, sizeof stem, "%s", base);
            else
                snprintf(stem, sizeof stem, "%s_%zu", base, pg + 1);
            if (shown < n_cls)
                snprintf(scope, sizeof scope,
                         "Classes %zu-%zu (top %zu of %zu by GPU-hours): ", first + 1, first + nk,
                         shown, n_cls);
            else if (n_cls > CLASSES_PER_PAGE)
                snprintf(scope, sizeof scope, "Classes %zu-%zu of %zu: ", first + 1, first + nk,
                         n_cls);
            else
                snprintf(scope, sizeof scope, "Per class: ");
            if ((rc = one_figure(c, stem, page, nk * N_CLASS_PANELS, pol, n_pol, diff, conf, scope,
                                 diag)))
                goto out;
        }
out:
    free(order);
    free(w);
    free(gh);
    free(gc);
    free(gp);
    free(page);
    return rc;
}

int sim__plot_compare_classes(sim__plot_ctx *c, tm_diag *diag)
{
    char **cls = NULL, **pol = NULL;
    size_t n_cls = 0, n_pol = 0, n_m = 0, rows = 0;
    cmp_metric *mt = NULL;
    double *col[8] = {0};
    double conf = 0.95;
    int rc = TM_OK;
    static const char *const cols[] = {"class",   "policy",    "mean",        "ci_low",
                                       "ci_high", "diff_mean", "diff_ci_low", "diff_ci_high"};
    char first[128];
    snprintf(first, sizeof first, "/compare/class_metrics/%s/class", class_metric_names[0]);
    if (!sim__h5r_exists(c->r, first))
        return TM_OK;
    if ((rc = sim__plot_labels(c, first, &cls, &n_cls, diag)))
        goto out;
    snprintf(first, sizeof first, "/compare/class_metrics/%s/policy", class_metric_names[0]);
    if ((rc = sim__plot_labels(c, first, &pol, &n_pol, diag)))
        goto out;
    if (sim__h5r_exists(c->r, "/compare/confidence") &&
        (rc = sim__h5r_scalar_f64(c->r, "/compare/confidence", &conf, diag)))
        goto out;
    if (n_cls == 0 || n_pol == 0)
        goto out;
    mt = calloc(n_cls * N_CLASS_PANELS, sizeof *mt);
    if (!mt) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    for (size_t k = 0; k < n_cls; k++)
        for (size_t j = 0; j < N_CLASS_PANELS; j++) {
            cmp_metric *m = &mt[k * N_CLASS_PANELS + j];
            m->n = n_pol;
            double **dst[6] = {&m->mean, &m->lo, &m->hi, &m->dmean, &m->dlo, &m->dhi};
            for (size_t q = 0; q < 6; q++)
                if (!(*dst[q] = malloc(n_pol * sizeof(double)))) {
                    n_m = k * N_CLASS_PANELS + j + 1;
                    rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
                    goto out;
                }
            for (size_t p = 0; p < n_pol; p++)
                for (size_t q = 0; q < 6; q++)
                    (*dst[q])[p] = NAN;
        }
    n_m = n_cls * N_CLASS_PANELS;
    for (size_t j = 0; j < N_CLASS_PANELS; j++) {
        char p[256], *lab = NULL, units[16] = "1";
        for (size_t q = 0; q < 8; q++) {
            size_t len = 0;
            snprintf(p, sizeof p, "/compare/class_metrics/%s/%s", class_metric_names[j], cols[q]);
            free(col[q]);
            col[q] = NULL;
            if ((rc = sim__plot_read_f64(c, p, &col[q], &len, diag)))
                goto out;
            if (q > 0 && len != rows) {
                rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", p);
                goto out;
            }
            rows = len;
        }
        snprintf(p, sizeof p, "/compare/class_metrics/%s", class_metric_names[j]);
        tm_diag quiet;
        if (sim__h5r_attr_str(c->r, p, "units", &lab, &quiet) == TM_OK)
            snprintf(units, sizeof units, "%s", lab);
        free(lab);
        lab = NULL;
        char label[96];
        snprintf(label, sizeof label, "%s", class_metric_names[j]);
        if (sim__h5r_attr_str(c->r, p, "label", &lab, &quiet) == TM_OK)
            snprintf(label, sizeof label, "%s", lab);
        free(lab);
        for (size_t i = 0; i < rows; i++) {
            double k = col[0][i], q = col[1][i];
            if (!(k >= 0 && k < (double)n_cls && q >= 0 && q < (double)n_pol))
                continue;
            cmp_metric *m = &mt[(size_t)k * N_CLASS_PANELS + j];
            double *dst[6] = {m->mean, m->lo, m->hi, m->dmean, m->dlo, m->dhi};
            for (size_t v = 0; v < 6; v++)
                dst[v][(size_t)q] = col[2 + v][i];
        }
        for (size_t k = 0; k < n_cls; k++) {
            cmp_metric *m = &mt[k * N_CLASS_PANELS + j];
            snprintf(m->name, sizeof m->name, "%s/%s", cls[k], class_metric_names[j]);
            char sc[128];
            sim__plot_short_name(sc, sizeof sc, cls[k], 18);
            snprintf(m->label, sizeof m->label, "%s: %s", sc, label);
            choose_unit(m, class_metric_names[j], units);
        }
    }
    if ((rc = class_pages(c, mt, n_cls, pol, n_pol, conf, diag)))
        goto out;
out:
    for (size_t m = 0; mt && m < n_m; m++)
        metric_free(&mt[m]);
    free(mt);
    for (size_t q = 0; q < 8; q++)
        free(col[q]);
    free(cls);
    free(pol);
    return rc;
}
