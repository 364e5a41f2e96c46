/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_tornado.c — the tornado chart of a sensitivity file (`tarmac
 * sensitivity`; docs/output.md "Sensitivity files"): one panel per output,
 * one horizontal bar per input present, from the base value to the output
 * with the input low and to the output with it high, the input with the
 * largest swing on top. With replications, each end carries its 95 %
 * interval as an error bar; when the file has them, a panel for the
 * breakeven volume and one for the size follow (an end without a value, a
 * breakeven never reached in the range, draws no bar).
 */
#include "plot/plot_int.h"

#include "output/h5io_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim__plot_tornado(sim__plot_ctx *c, tm_diag *diag); /* the plot table, plot.c */

#define NPANEL 4

/* A panel: the values at each end, the base, and the intervals (NULL: none). */
typedef struct panel {
    const char *title;
    double *lo, *hi, base;
    double *ci[4]; /* low's lower, low's upper, high's lower, high's upper */
    int log;       /* a logarithmic axis (volumes) */
} panel;

static int read_n(sim__plot_ctx *c, const char *p, double **v, size_t n, tm_diag *diag)
{
    size_t m;
    int rc = sim__plot_read_f64(c, p, v, &m, diag);
    if (rc == TM_OK && m != n)
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: not %zu values", p, n);
    return rc;
}

/* The output panel `key` (usd_per_useful_gpu_h, usd_per_month). */
static int read_output(sim__plot_ctx *c, panel *pn, const char *key, const char *title, size_t n,
                       tm_diag *diag)
{
    char p[160];
    pn->title = title;
    snprintf(p, sizeof p, "/sensitivity/%s_low", key);
    int rc = read_n(c, p, &pn->lo, n, diag);
    snprintf(p, sizeof p, "/sensitivity/%s_high", key);
    if (rc == TM_OK)
        rc = read_n(c, p, &pn->hi, n, diag);
    snprintf(p, sizeof p, "/sensitivity/base/%s", key);
    if (rc == TM_OK)
        rc = sim__h5r_scalar_f64(c->r, p, &pn->base, diag);
    /* intervals: files from before replications have none */
    static const char *const ci[4] = {"low_ci_lo", "low_ci_hi", "high_ci_lo", "high_ci_hi"};
    for (int k = 0; k < 4 && rc == TM_OK; k++) {
        snprintf(p, sizeof p, "/sensitivity/%s_%s", key, ci[k]);
        if (sim__h5r_exists(c->r, p))
            rc = read_n(c, p, &pn->ci[k], n, diag);
    }
    return rc;
}

/* The breakeven or size panel, when the file has the group. */
static int read_study(sim__plot_ctx *c, panel *pn, const char *lo, const char *hi, const char *base,
                      const char *title, int log, size_t n, int *have, tm_diag *diag)
{
    *have = 0;
    if (!sim__h5r_exists(c->r, lo))
        return TM_OK;
    pn->title = title;
    pn->log = log;
    int rc = read_n(c, lo, &pn->lo, n, diag);
    if (rc == TM_OK)
        rc = read_n(c, hi, &pn->hi, n, diag);
    if (rc == TM_OK)
        rc = sim__h5r_scalar_f64(c->r, base, &pn->base, diag);
    *have = rc == TM_OK && isfinite(pn->base);
    return rc;
}

static double ci_at(const panel *pn, int k, size_t i)
{
    return pn->ci[k] ? pn->ci[k][i] : NAN;
}

int sim__plot_tornado(sim__plot_ctx *c, tm_diag *diag)
{
    double *code = NULL, *present = NULL, delta = NAN;
    panel pn[NPANEL];
    memset(pn, 0, sizeof pn);
    char **labels = NULL;
    size_t n = 0, nl = 0, np = 2;
    int rc = sim__plot_read_f64(c, "/sensitivity/input_code", &code, &n, diag);
    if (rc == TM_OK)
        rc = read_n(c, "/sensitivity/present", &present, n, diag);
    if (rc == TM_OK)
        rc = read_output(c, &pn[0], "usd_per_useful_gpu_h", "cost per useful GPU-hour (USD)", n,
                         diag);
    if (rc == TM_OK)
        rc = read_output(c, &pn[1], "usd_per_month", "cost per month (USD)", n, diag);
    int have = 0;
    if (rc == TM_OK &&
        (rc = read_study(c, &pn[np], "/sensitivity/breakeven/tokens_per_month_low",
                         "/sensitivity/breakeven/tokens_per_month_high",
                         "/sensitivity/breakeven/base/tokens_per_month",
                         "breakeven: owning beats the API from (tokens/month)", 1, n, &have,
                         diag)) == TM_OK &&
        have)
        np++;
    if (rc == TM_OK &&
        (rc = read_study(c, &pn[np], "/sensitivity/size/gpus_low", "/sensitivity/size/gpus_high",
                         "/sensitivity/size/base/gpus", "size (GPUs of the cheapest fleet)", 0, n,
                         &have, diag)) == TM_OK &&
        have)
        np++;
    if (rc == TM_OK)
        rc = sim__h5r_scalar_f64(c->r, "/sensitivity/delta", &delta, diag);
    if (rc == TM_OK)
        rc = sim__plot_labels(c, "/sensitivity/input_code", &labels, &nl, diag);
    size_t shown = 0;
    for (size_t i = 0; rc == TM_OK && i < n; i++)
        shown += present[i] > 0 && isfinite(pn[0].lo[i]) && isfinite(pn[0].hi[i]);
    if (rc != TM_OK || shown == 0)
        goto out;
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "tornado", 900, 300 + 70 * (int)shown * (int)np, diag)))
        goto out;
    fputs("# y, then per panel: low bar (from, to), high bar (from, to), low end and its 95 % "
          "interval (value, lower, upper), high end and its interval (NaN: none)\n",
          f.dat);
    size_t y = shown;
    char ytics[2048] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(present[i] > 0 && isfinite(pn[0].lo[i]) && isfinite(pn[0].hi[i])))
            continue;
        y--;
        fprintf(f.dat, "%zu", y);
        for (size_t o = 0; o < np; o++) {
            double b = pn[o].base, l = pn[o].lo[i], h = pn[o].hi[i];
            const double v[10] = {l < b ? l : b,
                                  l < b ? b : l,
                                  h < b ? h : b,
                                  h < b ? b : h,
                                  l,
                                  ci_at(&pn[o], 0, i),
                                  ci_at(&pn[o], 1, i),
                                  h,
                                  ci_at(&pn[o], 2, i),
                                  ci_at(&pn[o], 3, i)};
            for (int k = 0; k < 10; k++) {
                fputc(' ', f.dat);
                /* a missing end (NaN) leaves its bar out */
                sim__plot_num(f.dat, isfinite(k < 2 ? l : k < 4 ? h : v[k]) ? v[k] : NAN);
            }
        }
        fputc('\n', f.dat);
        size_t k = (size_t)code[i];
        char name[64];
        snprintf(name, sizeof name, "%s", k < nl ? labels[k] : "?");
        for (char *q = name; *q; q++)
            if (*q == '_' || *q == '\'')
                *q = ' ';
        if (!strncmp(name, "gpu ", 4) || !strncmp(name, "api ", 4))
            for (int q = 0; q < 3; q++)
                name[q] = (char)(name[q] - 'a' + 'A');
        if (len < sizeof ytics)
            len += (size_t)snprintf(ytics + len, sizeof ytics - len, "%s'%s' %zu", len ? ", " : "",
                                    name, y);
    }
    char title[512];
    snprintf(title, sizeof title, "Sensitivity to each input at -/+%.3g %%: %s", 100 * delta,
             c->subject);
    fprintf(f.gp, "set multiplot layout %zu,1 title ", np);
    sim__plot_str(f.gp, title);
    fprintf(f.gp,
            "\nset style fill solid 0.8 border -1\n"
            "set datafile missing 'NaN'\n"
            "set yrange [-0.6:%zu.6]\n"
            "set ytics (%s)\n"
            "set key outside right top\n"
            "set grid x\n",
            shown - 1, ytics);
    for (size_t o = 0; o < np; o++) {
        int c0 = 2 + 10 * (int)o; /* the panel's first column */
        fputs("set xlabel ", f.gp);
        sim__plot_str(f.gp, pn[o].title);
        fprintf(f.gp, "\n%s\nunset arrow\n",
                pn[o].log ? "set logscale x 10\nset format x '%.0e'"
                          : "unset logscale x\n"
                            "set format x '%.1s%c'");
        fprintf(f.gp,
                "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead lc rgb '#000000' lw 1.5\n"
                "plot 'tornado.dat' using (($%d+$%d)/2):1:%d:%d:($1-0.35):($1+0.35) with "
                "boxxyerror lc rgb '#4472c4' title 'input low', \\\n"
                "     '' using (($%d+$%d)/2):1:%d:%d:($1-0.35):($1+0.35) with boxxyerror "
                "lc rgb '#ed7d31' title 'input high'",
                pn[o].base, pn[o].base, c0, c0 + 1, c0, c0 + 1, c0 + 2, c0 + 3, c0 + 2, c0 + 3);
        /* the intervals, where the file has them (replications) */
        int any = 0;
        for (size_t i = 0; pn[o].ci[0] && i < n; i++)
            any |= present[i] > 0 && isfinite(pn[o].ci[0][i]);
        if (any)
            fprintf(f.gp,
                    ", \\\n"
                    "     '' using %d:1:%d:%d with xerrorbars pt 0 lc rgb '#1f3864' lw 1.5 "
                    "title '95 %% interval (low)', \\\n"
                    "     '' using %d:1:%d:%d with xerrorbars pt 0 lc rgb '#843c0c' lw 1.5 "
                    "title '95 %% interval (high)'",
                    c0 + 4, c0 + 5, c0 + 6, c0 + 7, c0 + 8, c0 + 9);
        fputc('\n', f.gp);
    }
    fputs("unset multiplot\n", f.gp);
    rc = sim__plot_end(c, &f, diag);
out:
    free(code);
    free(present);
    for (int o = 0; o < NPANEL; o++) {
        free(pn[o].lo);
        free(pn[o].hi);
        for (int k = 0; k < 4; k++)
            free(pn[o].ci[k]);
    }
    free(labels);
    return rc;
}
