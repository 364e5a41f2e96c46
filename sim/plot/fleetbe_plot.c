/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleetbe_plot.c — the figure of a whole-fleet breakeven file (`tarmac
 * breakeven --fleet`; docs/output.md "Fleet breakeven files"): the monthly
 * cost of owning, renting reserved, renting on demand and the API for the
 * services against the load scale, log-log, a dotted line at every crossover.
 */
#include "plot/plot_int.h"

#include "output/h5io_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int sim__plot_fleet_breakeven(sim__plot_ctx *c, tm_diag *diag)
{
    static const char *const cols[] = {"scale", "own_usd_per_month", "reserved_usd_per_month",
                                       "ondemand_usd_per_month", "api_usd_per_month"};
    enum { NC = sizeof cols / sizeof cols[0] };
    double *v[NC] = {0}, *cs = NULL;
    size_t n = 0, ncs = 0;
    int rc = TM_OK;
    char p[160];
    for (size_t k = 0; k < NC && rc == TM_OK; k++) {
        size_t m;
        snprintf(p, sizeof p, "/fleet_breakeven/scale/%s", cols[k]);
        rc = sim__plot_read_f64(c, p, &v[k], &m, diag);
        if (rc == TM_OK && k > 0 && m != n)
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", p);
        n = m;
    }
    if (rc == TM_OK && sim__h5r_exists(c->r, "/fleet_breakeven/crossovers/scale"))
        rc = sim__plot_read_f64(c, "/fleet_breakeven/crossovers/scale", &cs, &ncs, diag);
    if (rc != TM_OK || n == 0)
        goto out;
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "fleet_breakeven", 900, 600, diag)))
        goto out;
    fputs("# scale own reserved ondemand api (USD/month)\n", f.dat);
    double ylo = INFINITY, yhi = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < NC; k++) {
            sim__plot_num(f.dat, v[k][i]);
            fputc(k + 1 < NC ? ' ' : '\n', f.dat);
            if (k > 0 && isfinite(v[k][i]) && v[k][i] > 0) {
                ylo = v[k][i] < ylo ? v[k][i] : ylo;
                yhi = v[k][i] > yhi ? v[k][i] : yhi;
            }
        }
    char title[512];
    snprintf(title, sizeof title, "The whole fleet: own, rent or the API: %s", c->subject);
    fputs("set title ", f.gp);
    sim__plot_str(f.gp, title);
    fputs("\nset logscale xy 10\n"
          "set xlabel 'load (x the scenario''s)'\n"
          "set ylabel 'cost per month (USD)'\n"
          "set key left top\n"
          "set format x 'x%g'\n",
          f.gp);
    if (ylo <= yhi && ylo > 0) {
        fprintf(f.gp, "set yrange [%.6g:%.6g]\n", ylo / 1.5, yhi * 1.5);
        sim__plot_log_tics(f.gp, "y", ylo / 1.5, yhi * 1.5, "$", "");
    }
    double x0 = v[0][0], x1 = v[0][n - 1];
    if (x0 > 0 && x1 > x0)
        fprintf(f.gp, "set xrange [%.6g:%.6g]\n", x0 / 1.2, x1 * 1.2);
    fputs("set xtics (", f.gp);
    for (size_t i = 0; i < n; i++)
        fprintf(f.gp, "%s'x%.3g' %.9g", i ? ", " : "", v[0][i], v[0][i]);
    fputs(")\nset mxtics 1\n", f.gp);
    for (size_t i = 0; i < ncs; i++)
        if (isfinite(cs[i]) && cs[i] > 0)
            fprintf(f.gp,
                    "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead lc rgb '#888888' "
                    "dt 3 lw 1.2\n",
                    cs[i], cs[i]);
    fputs("plot 'fleet_breakeven.dat' using 1:2 with linespoints ls 1 title 'own', \\\n"
          "     '' using 1:3 with linespoints ls 2 title 'rent (reserved)', \\\n"
          "     '' using 1:4 with linespoints ls 3 title 'rent (on demand)', \\\n"
          "     '' using 1:5 with linespoints ls 8 title 'API for the services + own fleet for "
          "the jobs'\n",
          f.gp);
    rc = sim__plot_end(c, &f, diag);
out:
    for (size_t k = 0; k < NC; k++)
        free(v[k]);
    free(cs);
    return rc;
}
