/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_ledger.c — the GPU-hour ledger of a run (/ledger, docs/output.md) as
 * stacked bars: where every owned GPU-hour went.
 *
 * Left panel: the fleet and each pool, one bar each, as shares of its owned
 * GPU-hours (so a small pool reads as well as a large one), stacked by
 * bucket from down at the bottom to useful work at the top. Right panel:
 * each class and service, its GPU-hours by bucket (what it held, and the idle
 * GPU-time while it had the first waiting job); down GPUs and idle ones with
 * nothing waiting are no consumer's and are in the left panel only. One
 * colour per bucket, in hues by group (greys down, sand idle, oranges idle
 * while work waits, purples allocated but not working, red lost, greens
 * useful); buckets empty in the whole run are left out of the key.
 *
 * Labels from the file go into the data file as gnuplot strings with their
 * double quotes replaced, and into scripts only through sim__plot_str.
 */
#include "plot/plot_int.h"

#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The colour of each bucket, and a short name for the key. */
static const struct {
    const char *rgb, *label;
} style[SIM_LEDGER_COUNT] = {
    [SIM_LEDGER_DOWN_FAILED] = {"#6e6e6e", "down: failed"},
    [SIM_LEDGER_DOWN_UNDELIVERED] = {"#a0a0a0", "down: not delivered"},
    [SIM_LEDGER_DOWN_RETIRED] = {"#c8c8c8", "down: retired"},
    [SIM_LEDGER_IDLE] = {"#ede3c7", "idle, nothing waiting"},
    [SIM_LEDGER_WAIT_TYPE] = {"#fdd0a2", "waiting: GPU type"},
    [SIM_LEDGER_WAIT_MEMORY] = {"#fdb57a", "waiting: memory"},
    [SIM_LEDGER_WAIT_FRAGMENTATION] = {"#fd9a52", "waiting: fragmentation"},
    [SIM_LEDGER_WAIT_GANG] = {"#f67f2b", "waiting: gang"},
    [SIM_LEDGER_WAIT_HOST] = {"#e5620f", "waiting: host"},
    [SIM_LEDGER_WAIT_BEHIND] = {"#c44b05", "waiting: behind a blocked job"},
    [SIM_LEDGER_WAIT_HELD] = {"#943603", "waiting: held by the policy"},
    [SIM_LEDGER_WAIT_SHARE] = {"#f9e0c4", "waiting: free part of shared GPUs"},
    [SIM_LEDGER_RESTART] = {"#8c7fc0", "allocated: restart"},
    [SIM_LEDGER_LOADING] = {"#ada3d3", "allocated: model load"},
    [SIM_LEDGER_HEADROOM] = {"#d4cfe8", "allocated: replica headroom"},
    [SIM_LEDGER_LOST] = {"#d7191c", "working, lost"},
    [SIM_LEDGER_USEFUL_NO_VALUE] = {"#a6d96a", "useful, value 0"},
    [SIM_LEDGER_USEFUL_VALUED] = {"#1a9641", "useful, valued"},
};

/* A label as a double-quoted field of a data file (quotes become '). */
static void dat_label(FILE *dat, const char *s)
{
    fputc('"', dat);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : (*s == '\n' || *s == '\r') ? ' ' : *s, dat);
    fputc('"', dat);
}

/* The bucket columns of table `tab` (/ledger/pools or /ledger/consumers):
 * col[b] of n rows each (NULL where a column is missing: read as zeros). */
static int read_buckets(sim__plot_ctx *c, const char *tab, double **col, size_t *n, tm_diag *diag)
{
    char p[160];
    *n = 0;
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        snprintf(p, sizeof p, "%s/%s_gpu_hours", tab, sim_ledger_key(b));
        if (!sim__h5r_exists(c->r, p))
            continue;
        size_t m;
        int rc = sim__plot_read_f64(c, p, &col[b], &m, diag);
        if (rc != TM_OK)
            return rc;
        if (*n && m != *n)
            return tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: columns of unequal length", tab);
        *n = m;
    }
    return TM_OK;
}

int sim__plot_ledger(sim__plot_ctx *c, tm_diag *diag)
{
    double *fleet = NULL, *owned = NULL, *kind = NULL, *wsum = NULL;
    size_t *sel = NULL, *order = NULL;
    double *pc[SIM_LEDGER_COUNT] = {0}, *cc[SIM_LEDGER_COUNT] = {0};
    char **pools = NULL, **cons = NULL;
    size_t nf = 0, np = 0, nc = 0, npl = 0, ncl = 0, no = 0, nk = 0;
    sim__plot_fig f = {0};
    int rc;
    if ((rc = sim__plot_read_f64(c, "/ledger/fleet/gpu_hours", &fleet, &nf, diag)) ||
        (rc = read_buckets(c, "/ledger/pools", pc, &np, diag)) ||
        (rc = sim__plot_read_f64(c, "/ledger/pools/gpu_hours_owned", &owned, &no, diag)) ||
        (rc = sim__plot_labels(c, "/ledger/pools/pool", &pools, &npl, diag)) ||
        (rc = read_buckets(c, "/ledger/consumers", cc, &nc, diag)) ||
        (rc = sim__plot_read_f64(c, "/ledger/consumers/kind", &kind, &nk, diag)) ||
        (rc = sim__plot_labels(c, "/ledger/consumers/consumer", &cons, &ncl, diag)))
        goto out;
    if (nf != SIM_LEDGER_COUNT || no != np || nk != nc) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file,
                         "/ledger: %zu buckets (want %d), or columns of unequal length", nf,
                         SIM_LEDGER_COUNT);
        goto out;
    }
    double total = 0;
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        total += isfinite(fleet[b]) ? fleet[b] : 0;
    if (!(total > 0))
        goto out; /* an empty run: nothing to draw */
    /* the consumers drawn: every class and service but "(none)"; past
     * SIM__PLOT_MAX_CLASSES, the heaviest by GPU-hours and one bar of the
     * others (docs/plots.md, "Many classes") */
    sel = malloc((nc ? nc : 1) * sizeof *sel);
    order = malloc((nc ? nc : 1) * sizeof *order);
    wsum = malloc((nc ? nc : 1) * sizeof *wsum);
    if (!sel || !order || !wsum) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    size_t n_shown = 0;
    for (size_t i = 0; i < nc; i++) {
        if (lround(kind[i]) == 2)
            continue; /* (none): in the left panel */
        double s = 0;
        for (int b = 0; b < SIM_LEDGER_COUNT; b++)
            s += cc[b] && isfinite(cc[b][i]) ? cc[b][i] : 0;
        sel[n_shown] = i;
        wsum[n_shown++] = s;
    }
    int others = sim__plot_top(wsum, n_shown, SIM__PLOT_MAX_CLASSES, order);
    size_t kept = others ? SIM__PLOT_MAX_CLASSES - 1 : n_shown;
    /* the consumers' GPU-hours in a unit their size asks for */
    double cmax = 0, rest = 0;
    for (size_t j = 0; j < n_shown; j++) {
        if (j < kept)
            cmax = fmax(cmax, wsum[order[j]]);
        else
            rest += wsum[order[j]];
    }
    cmax = fmax(cmax, rest);
    double scale;
    const char *prefix;
    sim__plot_count_unit(cmax, &scale, &prefix);
    if ((rc = sim__plot_begin(c, &f, "ledger", 1400, 720, diag)))
        goto out;
    /* block 0: the fleet and the pools, percent of owned; block 1: consumers */
    fputs("# block 0: row, then each bucket's share of the row's owned GPU-hours (%):", f.dat);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        fprintf(f.dat, " %s", sim_ledger_key(b));
    fputs("\n\"fleet\"", f.dat);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        fputc(' ', f.dat);
        sim__plot_num(f.dat, 100 * fleet[b] / total);
    }
    fputc('\n', f.dat);
    for (size_t p = 0; p < np; p++) {
        dat_label(f.dat, p < npl ? pools[p] : "?");
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            fputc(' ', f.dat);
            sim__plot_num(f.dat, pc[b] && owned[p] > 0 ? 100 * pc[b][p] / owned[p] : 0);
        }
        fputc('\n', f.dat);
    }
    fprintf(f.dat, "\n\n# block 1: consumer, then each bucket's %sGPU-hours:", prefix);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        fprintf(f.dat, " %s", sim_ledger_key(b));
    fputc('\n', f.dat);
    for (size_t j = 0; j < kept; j++) {
        size_t i = sel[order[j]];
        char l[128];
        sim__plot_short_name(l, sizeof l, i < ncl ? cons[i] : "?", SIM__PLOT_LABEL_CHARS);
        dat_label(f.dat, l);
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            fputc(' ', f.dat);
            sim__plot_num(f.dat, cc[b] && isfinite(cc[b][i]) ? cc[b][i] * scale : 0);
        }
        fputc('\n', f.dat);
    }
    if (others) {
        char l[64];
        snprintf(l, sizeof l, "other %zu", n_shown - kept);
        dat_label(f.dat, l);
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            double v = 0;
            for (size_t j = kept; j < n_shown; j++) {
                size_t i = sel[order[j]];
                v += cc[b] && isfinite(cc[b][i]) ? cc[b][i] : 0;
            }
            fputc(' ', f.dat);
            sim__plot_num(f.dat, v * scale);
        }
        fputc('\n', f.dat);
    }
    FILE *g = f.gp;
    char title[512];
    double tscale;
    const char *tprefix;
    sim__plot_count_unit(total, &tscale, &tprefix);
    snprintf(title, sizeof title, "Where every owned GPU-hour went (%.4g %sGPU-hours) — %s",
             total * tscale, tprefix, c->subject);
    fputs("set multiplot title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n"
          "set style data histograms\n"
          "set style histogram rowstacked\n"
          "set style fill solid 0.9 border rgb '#555555'\n"
          "set boxwidth 0.7\n"
          "set xtics nomirror rotate by -30\n"
          "set grid noxtics\n"
          "# left: the fleet and its pools, percent of each one's owned GPU-hours\n"
          "set lmargin at screen 0.06\nset rmargin at screen 0.40\n"
          "set tmargin at screen 0.90\nset bmargin at screen 0.20\n"
          "set ylabel 'share of the GPU-hours owned (%)'\n"
          "set yrange [0:100]\n"
          "set key at screen 0.995, screen 0.88 right top vertical Left reverse "
          "samplen 1.5 spacing 1.1 font ',10'\n",
          g);
    /* data columns: 1 the label, 2.. the buckets; top of the stack last */
    int first = 1;
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        if (!(fleet[b] > 0))
            continue;
        fputs(first ? "plot " : ", \\\n     ", g);
        fprintf(g, "'ledger.dat' index 0 using %d:xtic(1) lc rgb '%s' title ", b + 2, style[b].rgb);
        sim__plot_str(g, style[b].label);
        first = 0;
    }
    fputs("\n# right: the consumers, their GPU-hours (no key: the colours of the left)\n"
          "set lmargin at screen 0.47\nset rmargin at screen 0.78\n",
          g);
    if (n_shown > 0) {
        fprintf(g,
                "set ylabel '%sGPU-hours'\n"
                "set yrange [0:*]\n"
                "unset key\n"
                "set title 'by class and service (down, and idle with nothing waiting, are no "
                "one''s)' font ',11'\n",
                prefix);
        first = 1;
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            if (!(fleet[b] > 0))
                continue;
            fputs(first ? "plot " : ", \\\n     ", g);
            fprintf(g, "'ledger.dat' index 1 using %d:xtic(1) lc rgb '%s' notitle", b + 2,
                    style[b].rgb);
            first = 0;
        }
        fputc('\n', g);
    }
    fputs("unset multiplot\n", g);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    free(fleet);
    free(owned);
    free(wsum);
    free(sel);
    free(order);
    free(kind);
    for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
        free(pc[b]);
        free(cc[b]);
    }
    free(pools);
    free(cons);
    return rc;
}
