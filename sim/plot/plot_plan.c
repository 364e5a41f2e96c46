/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_plan.c — the picture of a purchase plan (`tarmac plan -o FILE`, then
 * `tarmac plot FILE`; the file: docs/output.md, "Plan files"; the method:
 * docs/plan.md).
 *
 * How it works: one figure, two panels. Left, the fleet over time: nodes in
 * service per pool by period (steps, since nodes arrive at the start of a
 * period), demand on the right axis, and a cross on any period whose fleet
 * fails the targets. Right, the cost per period: owning (capex as an annuity
 * plus opex), renting the same fleet reserved and on demand, the services'
 * tokens at API prices, and the orders' cash as impulses. Everything is read
 * from /plan; pool names from the nodes matrix's `pools` attribute.
 */
#include "plot/plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim__plot_plan(sim__plot_ctx *c, tm_diag *diag); /* registered in plot.c */

int sim__plot_plan(sim__plot_ctx *c, tm_diag *diag)
{
    static const char *const cols[] = {"demand",       "own_usd", "reserved_usd",
                                       "ondemand_usd", "api_usd", "order_usd"};
    enum { NC = sizeof cols / sizeof cols[0] };
    double *v[NC] = {0}, *nodes = NULL, *pass = NULL;
    char *pools = NULL;
    char *names[8] = {0};
    size_t n = 0, rows = 0, np = 0, npass = 0;
    int rc = TM_OK;
    char p[96];
    for (size_t k = 0; k < NC && rc == TM_OK; k++) {
        size_t m;
        snprintf(p, sizeof p, "/plan/%s", cols[k]);
        rc = sim__plot_read_f64(c, p, &v[k], &m, diag);
        if (rc == TM_OK && k > 0 && m != n)
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", p);
        n = m;
    }
    if (rc == TM_OK)
        rc = sim__h5r_matrix_f64(c->r, "/plan/nodes", &nodes, &rows, &np, diag);
    if (rc == TM_OK && (rows != n || np < 1 || np > 8))
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file,
                         "/plan/nodes: %zu rows of %zu pools, expected %zu rows of 1 to 8", rows,
                         np, n);
    if (rc == TM_OK && sim__h5r_exists(c->r, "/plan/pass"))
        rc = sim__plot_read_f64(c, "/plan/pass", &pass, &npass, diag);
    if (rc == TM_OK && pass && npass != n)
        rc =
            tm_diag_set(diag, TM_ERR_DATA, c->file, "/plan/pass: %zu rows, expected %zu", npass, n);
    if (rc == TM_OK && sim__h5r_attr_str(c->r, "/plan/nodes", "pools", &pools, diag) != TM_OK)
        pools = NULL; /* the legend falls back to numbers */
    if (rc != TM_OK || n == 0)
        goto out;
    for (size_t k = 0, i = 0; pools && k < np; k++) {
        names[k] = pools + i;
        char *nl = strchr(pools + i, '\n');
        if (!nl)
            break;
        *nl = '\0';
        i = (size_t)(nl - pools) + 1;
    }
    double ymax = 0;
    for (size_t t = 0; t < n; t++)
        for (size_t k = 1; k < NC; k++)
            if (isfinite(v[k][t]) && v[k][t] > ymax)
                ymax = v[k][t];
    double mult;
    const char *prefix;
    sim__plot_count_unit(ymax, &mult, &prefix);
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "plan", 1300, 620, diag)))
        goto out;
    /* block 0: period, demand, nodes per pool, failing marker (the
     * largest pool's nodes, or NaN); block 1: period and the costs */
    fputs("# period demand nodes... fails\n", f.dat);
    for (size_t t = 0; t < n; t++) {
        fprintf(f.dat, "%zu ", t + 1);
        sim__plot_num(f.dat, v[0][t]);
        double top = 0;
        for (size_t k = 0; k < np; k++) {
            fputc(' ', f.dat);
            sim__plot_num(f.dat, nodes[t * np + k]);
            if (nodes[t * np + k] > top)
                top = nodes[t * np + k];
        }
        fputc(' ', f.dat);
        sim__plot_num(f.dat, pass && pass[t] == 0 ? top : NAN);
        fputc('\n', f.dat);
    }
    /* the last period's step ends half a period on */
    fprintf(f.dat, "%zu NaN", n + 1);
    for (size_t k = 0; k < np; k++) {
        fputc(' ', f.dat);
        sim__plot_num(f.dat, nodes[(n - 1) * np + k]);
    }
    fputs(" NaN\n", f.dat);
    fputs("\n\n# period own reserved ondemand api orders (scaled)\n", f.dat);
    for (size_t t = 0; t < n; t++) {
        fprintf(f.dat, "%zu", t + 1);
        for (size_t k = 1; k < NC; k++) {
            fputc(' ', f.dat);
            sim__plot_num(f.dat, v[k][t] * mult);
        }
        fputc('\n', f.dat);
    }
    char title[512];
    snprintf(title, sizeof title, "Purchase plan: %s", c->subject);
    fputs("set multiplot layout 1,2 title ", f.gp);
    sim__plot_str(f.gp, title);
    fprintf(f.gp,
            "\nset xlabel 'period'\n"
            "set xrange [0.5:%zu.5]\n"
            "set xtics 1\n"
            "set ylabel 'nodes in service'\n"
            "set yrange [0:*]\n"
            "set y2label 'demand (x the scenario)'\n"
            "set y2tics\n"
            "set y2range [0:*]\n"
            "set key left top\n"
            "plot ",
            n);
    for (size_t k = 0; k < np; k++) {
        fprintf(f.gp, "%s'plan.dat' index 0 using ($1-0.5):%zu with steps ls %zu title ",
                k ? ", \\\n     " : "", k + 3, k + 1);
        if (names[k]) {
            sim__plot_str(f.gp, names[k]);
        } else {
            char t[32];
            snprintf(t, sizeof t, "pool %zu", k + 1);
            sim__plot_str(f.gp, t);
        }
    }
    int fails = 0;
    for (size_t t = 0; pass && t < n; t++)
        fails |= pass[t] == 0;
    fputs(", \\\n     '' index 0 using 1:2 axes x1y2 with linespoints ls 9 title 'demand'", f.gp);
    if (fails) /* gnuplot warns about a series without a point */
        fprintf(f.gp,
                ", \\\n     '' index 0 using 1:%zu with points pt 2 ps 2.5 lc rgb '#CC0000' "
                "title 'fails the targets'",
                np + 3);
    fputc('\n', f.gp);
    fprintf(f.gp,
            "unset y2label\n"
            "unset y2tics\n"
            "set ylabel 'cost per period (%sUSD)'\n"
            "set yrange [0:*]\n"
            "set key outside bottom center horizontal maxrows 2\n"
            "plot 'plan.dat' index 1 using 1:2 with linespoints ls 1 title 'own (annuity + opex)', "
            "\\\n"
            "     '' index 1 using 1:3 with linespoints ls 2 title 'rent reserved', \\\n"
            "     '' index 1 using 1:4 with linespoints ls 3 title 'rent on demand', \\\n"
            "     '' index 1 using 1:5 with linespoints ls 8 title 'API (services)', \\\n"
            "     '' index 1 using 1:6 with impulses ls 5 lw 6 title 'orders (cash)'\n"
            "unset multiplot\n",
            prefix);
    rc = sim__plot_end(c, &f, diag);
out:
    for (size_t k = 0; k < NC; k++)
        free(v[k]);
    free(nodes);
    free(pass);
    free(pools);
    return rc;
}
