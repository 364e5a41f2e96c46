/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_cost.c — the cost figures: a run's cost by pool and category from
 * /cost/breakdown (cost), and the curves of a breakeven file (breakeven):
 * monthly cost of the API, owning, renting reserved and on demand against
 * the monthly token volume on log-log axes with the volumes where each
 * starts to beat the API marked, and the cost per useful GPU-hour against
 * busy utilization with the simulated fleets as points.
 *
 * Labels from the file go into the data file as gnuplot strings with their
 * double quotes replaced, and into scripts only through sim__plot_str.
 */
#include "plot/plot_int.h"

#include "model/cost_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A label as a double-quoted field of a data file (quotes become '). */
static void dat_label(FILE *dat, const char *s)
{
    fputc('"', dat);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : (*s == '\n' || *s == '\r') ? ' ' : *s, dat);
    fputc('"', dat);
}

int sim__plot_cost(sim__plot_ctx *c, tm_diag *diag)
{
    double *cat = NULL, *pool = NULL, *usd = NULL, *table = NULL;
    char **pools = NULL;
    size_t n = 0, n2 = 0, n3 = 0, np = 0;
    int rc;
    if ((rc = sim__plot_read_f64(c, "/cost/breakdown/category", &cat, &n, diag)) ||
        (rc = sim__plot_read_f64(c, "/cost/breakdown/pool", &pool, &n2, diag)) ||
        (rc = sim__plot_read_f64(c, "/cost/breakdown/usd", &usd, &n3, diag)) ||
        (rc = sim__plot_labels(c, "/cost/breakdown/pool", &pools, &np, diag)))
        goto out;
    if (n == 0 || n2 != n || n3 != n) {
        rc = n2 == n && n3 == n ? TM_OK
                                : tm_diag_set(diag, TM_ERR_DATA, c->file,
                                              "/cost/breakdown: columns of unequal length");
        goto out;
    }
    /* rows: the pools, then the API; columns: the categories */
    size_t rows = np + 1, nc = SIM__COST_N_CATEGORIES;
    table = calloc(rows * nc, sizeof *table);
    if (!table) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, c->file, "out of memory");
        goto out;
    }
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        long k = lround(cat[i]), p = lround(pool[i]);
        size_t row = p >= 0 && (size_t)p < np ? (size_t)p : np;
        if (k >= 0 && (size_t)k < nc && isfinite(usd[i])) {
            table[row * nc + (size_t)k] += usd[i];
            total += usd[i];
        }
    }
    double mult;
    const char *prefix;
    sim__plot_count_unit(total, &mult, &prefix);
    double scale = 1 / mult;
    char unit[16];
    snprintf(unit, sizeof unit, "%sUSD", prefix);
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "cost", 1100, 620, diag)))
        goto out;
    fputs("\"row\"", f.dat); /* the header line: gnuplot's columnhead reads it */
    for (size_t k = 0; k < nc; k++) {
        fputc(' ', f.dat);
        dat_label(f.dat, sim__cost_category_label((int)k));
    }
    fputc('\n', f.dat);
    for (size_t r = 0; r < rows; r++) {
        dat_label(f.dat, r < np ? pools[r] : "API");
        for (size_t k = 0; k < nc; k++) {
            fputc(' ', f.dat);
            sim__plot_num(f.dat, table[r * nc + k] / scale);
        }
        fputc('\n', f.dat);
    }
    char title[512];
    snprintf(title, sizeof title, "Cost over the run by pool: %s (%.4g %s in all)", c->subject,
             total / scale, unit);
    fputs("set title ", f.gp);
    sim__plot_str(f.gp, title);
    fprintf(f.gp,
            "\nset ylabel 'cost over the run (%s)'\n"
            "set style data histograms\n"
            "set style histogram rowstacked\n"
            "set style fill solid 0.85 border rgb '#555555'\n"
            "set boxwidth 0.6\n"
            "set yrange [0:*]\n"
            "set key outside right top vertical Left reverse noautotitle\n"
            "set xtics nomirror rotate by -30\n"
            "# categories: owned used, owned idle, reserved used, reserved idle, on-demand, API\n"
            "plot for [k=2:%zu] 'cost.dat' using k:xtic(1) ls (k-1) title columnhead(k)\n",
            unit, nc + 1);
    rc = sim__plot_end(c, &f, diag);
out:
    free(cat);
    free(pool);
    free(usd);
    free(table);
    free(pools);
    return rc;
}

static int opt_scalar(sim__plot_ctx *c, const char *path, double *v)
{
    tm_diag d;
    *v = NAN;
    if (!sim__h5r_exists(c->r, path))
        return TM_OK;
    if (sim__h5r_scalar_f64(c->r, path, v, &d) != TM_OK)
        *v = NAN; /* a marker is optional: without it the curves are drawn all the same */
    return TM_OK;
}

int sim__plot_breakeven(sim__plot_ctx *c, tm_diag *diag)
{
    static const char *const vol_cols[] = {"tokens_per_month",           "api_usd_per_month",
                                           "own_usd_per_month",          "rent_usd_per_month",
                                           "ondemand_usd_per_month",     "busy_util",
                                           "own_usd_per_useful_gpu_hour"};
    static const char *const util_cols[] = {"utilization", "own_usd_per_useful_gpu_hour",
                                            "rent_usd_per_useful_gpu_hour",
                                            "api_usd_per_useful_gpu_hour"};
    enum { NV = sizeof vol_cols / sizeof vol_cols[0], NU = sizeof util_cols / sizeof util_cols[0] };
    double *v[NV] = {0}, *u[NU] = {0};
    size_t nv = 0, nu = 0;
    int rc = TM_OK;
    char p[160];
    for (size_t k = 0; k < NV && rc == TM_OK; k++) {
        size_t m;
        snprintf(p, sizeof p, "/breakeven/volume/%s", vol_cols[k]);
        rc = sim__plot_read_f64(c, p, &v[k], &m, diag);
        if (rc == TM_OK && k > 0 && m != nv)
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", p);
        nv = m;
    }
    for (size_t k = 0; k < NU && rc == TM_OK; k++) {
        size_t m;
        snprintf(p, sizeof p, "/breakeven/utilization/%s", util_cols[k]);
        rc = sim__plot_read_f64(c, p, &u[k], &m, diag);
        if (rc == TM_OK && k > 0 && m != nu)
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", p);
        nu = m;
    }
    double beats[3];
    opt_scalar(c, "/breakeven/own_beats_api_tokens_per_month", &beats[0]);
    opt_scalar(c, "/breakeven/rent_beats_api_tokens_per_month", &beats[1]);
    opt_scalar(c, "/breakeven/ondemand_beats_api_tokens_per_month", &beats[2]);
    if (rc != TM_OK || nv == 0)
        goto out;
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "breakeven", 1300, 620, diag)))
        goto out;
    /* block 0: volumes; block 1: the utilization curve; block 2: the
     * simulated fleets, busy utilization in percent */
    fputs("# tokens_per_month api own rent ondemand (USD/month)\n", f.dat);
    double ylo = INFINITY, yhi = 0;
    for (size_t i = 0; i < nv; i++) {
        for (size_t k = 0; k < 5; k++) {
            sim__plot_num(f.dat, v[k][i]);
            fputc(k < 4 ? ' ' : '\n', f.dat);
            if (k > 0 && isfinite(v[k][i]) && v[k][i] > 0) {
                ylo = v[k][i] < ylo ? v[k][i] : ylo;
                yhi = v[k][i] > yhi ? v[k][i] : yhi;
            }
        }
    }
    fputs("\n\n# utilization_pct own rent api (USD per useful GPU-hour)\n", f.dat);
    double uhi = 0;
    for (size_t i = 0; i < nu; i++) {
        sim__plot_num(f.dat, 100 * u[0][i]);
        for (size_t k = 1; k < NU; k++) {
            fputc(' ', f.dat);
            sim__plot_num(f.dat, u[k][i]);
            if (isfinite(u[k][i]) && u[k][i] > uhi && u[0][i] >= 0.2)
                uhi = u[k][i];
        }
        fputc('\n', f.dat);
    }
    fputs("\n\n# busy_util_pct own_usd_per_useful_gpu_hour (the sized fleets)\n", f.dat);
    for (size_t i = 0; i < nv; i++) {
        sim__plot_num(f.dat, 100 * v[5][i]);
        fputc(' ', f.dat);
        sim__plot_num(f.dat, v[6][i]);
        fputc('\n', f.dat);
    }
    char title[512];
    snprintf(title, sizeof title, "Owning, renting or the API: %s", c->subject);
    fputs("set multiplot layout 1,2 title ", f.gp);
    sim__plot_str(f.gp, title);
    /* decades labelled with k, M, B, T: 10B tokens, $100k */
    fputs("\nset logscale xy 10\n"
          "set xlabel 'tokens per month (input + output; k, M, B, T = 10^3, 10^6, 10^9, "
          "10^12)'\n"
          "set ylabel 'cost per month (USD)'\n"
          "set key left top\n",
          f.gp);
    if (ylo <= yhi && ylo > 0) {
        fprintf(f.gp, "set yrange [%.6g:%.6g]\n", ylo / 2, yhi * 2);
        sim__plot_log_tics(f.gp, "y", ylo / 2, yhi * 2, "$", "");
    }
    fprintf(f.gp, "set xrange [%.6g:%.6g]\n", v[0][0] / 1.5, v[0][nv - 1] * 1.5);
    sim__plot_log_tics(f.gp, "x", v[0][0] / 1.5, v[0][nv - 1] * 1.5, "", "");
    static const char *const beat_label[3] = {"own", "rent", "on-demand"};
    for (int k = 0; k < 3; k++)
        if (isfinite(beats[k]) && beats[k] > 0) {
            fprintf(f.gp,
                    "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead ls %d dt 3 lw 1.5\n",
                    beats[k], beats[k], k + 1); /* the style of its series */
            fprintf(f.gp,
                    "set label %d '%s beats API' at %.9g, graph 0.03 rotate by 90 left "
                    "offset -0.6,0 tc rgb '#444444'\n",
                    k + 1, beat_label[k], beats[k]);
        }
    fputs("plot 'breakeven.dat' index 0 using 1:2 with lines ls 8 title 'API', \\\n"
          "     '' index 0 using 1:3 with linespoints ls 1 title 'own', \\\n"
          "     '' index 0 using 1:4 with linespoints ls 2 title 'rent (reserved)', \\\n"
          "     '' index 0 using 1:5 with linespoints ls 3 title 'rent (on demand)'\n"
          "unset arrow\n"
          "unset label\n"
          "unset logscale\n"
          "set xtics autofreq\n"
          "set ytics autofreq\n"
          "set mxtics default\n"
          "set format x '%g'\n"
          "set format y '$%g'\n"
          "set logscale y 10\n"
          "set xlabel 'busy utilization (%)'\n"
          "set ylabel 'cost per useful GPU-hour (USD)'\n"
          "set xrange [0:100]\n"
          "set key right top\n",
          f.gp);
    if (uhi > 0)
        fprintf(f.gp, "set yrange [*:%.6g]\n", uhi * 1.5);
    else
        fputs("set yrange [*:*]\n", f.gp);
    fputs(
        "plot 'breakeven.dat' index 1 using 1:4 with lines ls 8 title 'API for those tokens', \\\n"
        "     '' index 1 using 1:2 with lines ls 1 title 'own (fleet for the scenario)', \\\n"
        "     '' index 1 using 1:3 with lines ls 2 title 'rent (reserved)', \\\n"
        "     '' index 2 using 1:2 with points ls 1 pt 6 ps 1.4 title 'own, simulated fleets'\n"
        "unset multiplot\n",
        f.gp);
    rc = sim__plot_end(c, &f, diag);
out:
    for (size_t k = 0; k < NV; k++)
        free(v[k]);
    for (size_t k = 0; k < NU; k++)
        free(u[k]);
    return rc;
}
