/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_tornado.c — the tornado chart of a sensitivity file (`tarmac
 * sensitivity`; docs/output.md "Sensitivity files"): one panel per output,
 * one horizontal bar per input present, from the base value to the output
 * with the input low and to the output with it high, the input with the
 * largest swing on top.
 */
#include "plot/plot_int.h"

#include "output/h5io_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim__plot_tornado(sim__plot_ctx *c, tm_diag *diag); /* the plot table, plot.c */

#define NOUT 2

static const char *const outs[NOUT] = {"usd_per_useful_gpu_h", "usd_per_month"};
static const char *const out_titles[NOUT] = {"cost per useful GPU-hour (USD)",
                                             "cost per month (USD)"};

int sim__plot_tornado(sim__plot_ctx *c, tm_diag *diag)
{
    double *code = NULL, *present = NULL, *lo[NOUT] = {0}, *hi[NOUT] = {0};
    double base[NOUT] = {0}, delta = NAN;
    char **labels = NULL;
    size_t n = 0, m, nl = 0;
    char p[128];
    int rc = sim__plot_read_f64(c, "/sensitivity/input_code", &code, &n, diag);
    if (rc == TM_OK &&
        (rc = sim__plot_read_f64(c, "/sensitivity/present", &present, &m, diag)) == TM_OK && m != n)
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/sensitivity: arrays of unequal length");
    for (int o = 0; o < NOUT && rc == TM_OK; o++) {
        snprintf(p, sizeof p, "/sensitivity/%s_low", outs[o]);
        if ((rc = sim__plot_read_f64(c, p, &lo[o], &m, diag)) == TM_OK && m != n)
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: not %zu values", p, n);
        snprintf(p, sizeof p, "/sensitivity/%s_high", outs[o]);
        if (rc == TM_OK && (rc = sim__plot_read_f64(c, p, &hi[o], &m, diag)) == TM_OK && m != n)
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: not %zu values", p, n);
        snprintf(p, sizeof p, "/sensitivity/base/%s", outs[o]);
        if (rc == TM_OK)
            rc = sim__h5r_scalar_f64(c->r, p, &base[o], diag);
    }
    if (rc == TM_OK)
        rc = sim__h5r_scalar_f64(c->r, "/sensitivity/delta", &delta, diag);
    if (rc == TM_OK)
        rc = sim__plot_labels(c, "/sensitivity/input_code", &labels, &nl, diag);
    size_t shown = 0;
    for (size_t i = 0; rc == TM_OK && i < n; i++)
        shown += present[i] > 0 && isfinite(lo[0][i]) && isfinite(hi[0][i]);
    if (rc != TM_OK || shown == 0)
        goto out;
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "tornado", 900, 300 + 70 * (int)shown * NOUT, diag)))
        goto out;
    fputs("# y, then per output: low bar (from, to), high bar (from, to)\n", f.dat);
    size_t y = shown;
    char ytics[2048] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(present[i] > 0 && isfinite(lo[0][i]) && isfinite(hi[0][i])))
            continue;
        y--;
        fprintf(f.dat, "%zu", y);
        for (int o = 0; o < NOUT; o++) {
            double b = base[o], l = lo[o][i], h = hi[o][i];
            fputc(' ', f.dat);
            sim__plot_num(f.dat, l < b ? l : b);
            fputc(' ', f.dat);
            sim__plot_num(f.dat, l < b ? b : l);
            fputc(' ', f.dat);
            sim__plot_num(f.dat, h < b ? h : b);
            fputc(' ', f.dat);
            sim__plot_num(f.dat, h < b ? b : h);
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
    fprintf(f.gp, "set multiplot layout %d,1 title ", NOUT);
    sim__plot_str(f.gp, title);
    fprintf(f.gp,
            "\nset style fill solid 0.8 border -1\n"
            "set yrange [-0.6:%zu.6]\n"
            "set ytics (%s)\n"
            "set key outside right top\n"
            "set grid x\n",
            shown - 1, ytics);
    for (int o = 0; o < NOUT; o++) {
        fputs("set xlabel ", f.gp);
        sim__plot_str(f.gp, out_titles[o]);
        fprintf(f.gp,
                "\nunset arrow\n"
                "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead lc rgb '#000000' lw 1.5\n"
                "plot 'tornado.dat' using (($%d+$%d)/2):1:%d:%d:($1-0.35):($1+0.35) with "
                "boxxyerror lc rgb '#4472c4' title 'input low', \\\n"
                "     '' using (($%d+$%d)/2):1:%d:%d:($1-0.35):($1+0.35) with boxxyerror "
                "lc rgb '#ed7d31' title 'input high'\n",
                base[o], base[o], 2 + 4 * o, 3 + 4 * o, 2 + 4 * o, 3 + 4 * o, 4 + 4 * o, 5 + 4 * o,
                4 + 4 * o, 5 + 4 * o);
    }
    fputs("unset multiplot\n", f.gp);
    rc = sim__plot_end(c, &f, diag);
out:
    free(code);
    free(present);
    for (int o = 0; o < NOUT; o++) {
        free(lo[o]);
        free(hi[o]);
    }
    free(labels);
    return rc;
}
