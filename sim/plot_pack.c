/*
 * plot_pack.c — the figure of an openb packing experiment (`tarmac replay
 * --protocol pack`, docs/output.md "Packing experiment"): the GPU allocation
 * ratio against the arrived demand, one line per policy (the mean over seeds)
 * with the band from the lowest to the highest seed when there are several,
 * and y = x, the line of perfect packing; on the right the fragmented share
 * of the idle GPUs and the demand of the pods that failed, over the same
 * axis.
 *
 * Every curve is a float64[P] over the grid /packing/arrived_pct; the
 * policies are the groups of /packing/policies in the order written, labelled
 * by their `spec` attribute.
 */
#include "plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_ALLOC, K_FRAG, K_FAILED, K_N };
static const char *const metric[K_N] = {"alloc_pct", "frag_pct", "failed_gpu_pct"};
#define N_STATS 3
static const char *const stat[N_STATS] = {"mean", "min", "max"};

int sim__plot_packing(sim__plot_ctx *c, tm_diag *diag)
{
    double *grid = NULL, *cur[K_N][N_STATS] = {{0}};
    char **pol = NULL;
    size_t n = 0, n_pol = 0;
    int64_t n_seeds = 1;
    sim__plot_fig f = {0};
    int rc;
    tm_diag quiet;
    if ((rc = sim__plot_read_f64(c, "/packing/arrived_pct", &grid, &n, diag)) ||
        (rc = sim__h5r_list(c->r, "/packing/policies", SIM__H5_ORDER_CREATION, &pol, &n_pol, diag)))
        goto out;
    if (n == 0 || n_pol == 0)
        goto out;
    if (sim__h5r_exists(c->r, "/packing/config/n_seeds") &&
        sim__h5r_scalar_i64(c->r, "/packing/config/n_seeds", &n_seeds, &quiet) != TM_OK)
        n_seeds = 1;
    if ((rc = sim__plot_begin(c, &f, "packing", 1400, 800, diag)))
        goto out;
    FILE *d = f.dat, *g = f.gp;
    fputs("# one block per policy: arrived_pct alloc_pct_mean alloc_pct_min alloc_pct_max "
          "frag_pct_mean frag_pct_min frag_pct_max failed_gpu_pct_mean failed_gpu_pct_min "
          "failed_gpu_pct_max (percent; min and max over the seeds)\n",
          d);
    double amax = grid[n - 1], xmax = grid[n - 1];
    for (size_t p = 0; p < n_pol; p++) {
        for (size_t k = 0; k < K_N; k++)
            for (size_t s = 0; s < N_STATS; s++) {
                char path[512];
                size_t m = 0;
                snprintf(path, sizeof path, "/packing/policies/%s/%s_%s", pol[p], metric[k],
                         stat[s]);
                free(cur[k][s]);
                cur[k][s] = NULL;
                if (!sim__h5r_exists(c->r, path))
                    continue;
                if ((rc = sim__plot_read_f64(c, path, &cur[k][s], &m, diag)))
                    goto out;
                if (m != n) {
                    rc = tm_diag_set(diag, TM_ERR_HDF5, c->file, "%s: %zu points, the grid has %zu",
                                     path, m, n);
                    goto out;
                }
            }
        fprintf(d, "# policy %s\n", pol[p]);
        for (size_t i = 0; i < n; i++) {
            sim__plot_num(d, grid[i]);
            for (size_t k = 0; k < K_N; k++)
                for (size_t s = 0; s < N_STATS; s++) {
                    double v = cur[k][s] ? cur[k][s][i] : NAN;
                    fputc(' ', d);
                    sim__plot_num(d, v);
                    if (isfinite(v) && k == K_ALLOC)
                        amax = fmax(amax, v);
                }
            fputc('\n', d);
        }
        fputs("\n\n", d);
    }
    /* a packing file has no scenario: the pod list names the experiment */
    char title[512], *pods = NULL;
    const char *what = c->subject;
    if (sim__h5r_exists(c->r, "/packing/config/pods_file") &&
        sim__h5r_scalar_str(c->r, "/packing/config/pods_file", &pods, &quiet) == TM_OK && pods[0])
        what = strrchr(pods, '/') ? strrchr(pods, '/') + 1 : pods;
    snprintf(title, sizeof title, "Packing: GPU allocation against arrived demand — %s", what);
    free(pods);
    fputs("set multiplot title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    char band[96];
    if (n_seeds > 1)
        snprintf(band, sizeof band, "lines: mean over %lld seeds; bands: lowest to highest seed",
                 (long long)n_seeds);
    else
        snprintf(band, sizeof band, "one seed");
    fprintf(g,
            "# left: allocation ratio\n"
            "set lmargin at screen 0.07\nset rmargin at screen 0.56\n"
            "set tmargin at screen 0.90\nset bmargin at screen 0.10\n"
            "set xrange [0:%.9g]\nset yrange [0:%.9g]\n"
            "set xlabel 'arrived demand: GPUs requested so far / GPUs of the cluster (%%)'\n"
            "set ylabel 'GPUs allocated / GPUs of the cluster (%%)'\n"
            "set key top left opaque box lc rgb '#cccccc' font ',11' samplen 2\n"
            "set style fill transparent solid 0.22 noborder\n",
            xmax, fmax(105.0, amax * 1.05));
    fputs("set label 1 ", g);
    sim__plot_str(g, band);
    fputs(" at graph 0.98, graph 0.04 right font ',10' tc rgb '#555555'\n"
          "plot x with lines ls 9 lw 1.5 title 'perfect packing (y = x)'",
          g);
    for (size_t p = 0; p < n_pol; p++) {
        char path[512], *spec = NULL;
        snprintf(path, sizeof path, "/packing/policies/%s", pol[p]);
        if (n_seeds > 1)
            fprintf(g, ", 'packing.dat' index %zu using 1:3:4 with filledcurves ls %zu notitle", p,
                    p % 8 + 1);
        fprintf(g, ", 'packing.dat' index %zu using 1:2 with lines ls %zu title ", p, p % 8 + 1);
        if (sim__h5r_attr_str(c->r, path, "spec", &spec, &quiet) == TM_OK && spec[0])
            sim__plot_str(g, spec);
        else
            sim__plot_str(g, pol[p]);
        free(spec);
    }
    fputs("\nunset label 1\n", g);
    /* right: fragmentation (top) and failed demand (bottom), no key: the colours
     * are the left panel's */
    static const struct {
        int col;
        const char *ylabel, *top, *bottom;
    } side[2] = {
        {5, "fragmented / idle GPUs (%)", "0.90", "0.56"},
        {8, "GPUs of failed pods / cluster (%)", "0.44", "0.10"},
    };
    static const char *const heads[2] = {
        "fragmentation: share of the idle GPUs the pods cannot use",
        "failed demand: GPUs requested by pods that found no place"};
    for (size_t k = 0; k < 2; k++) {
        fputs("set title ", g);
        sim__plot_str(g, heads[k]);
        fputs(" font ',11'\n", g);
        fprintf(g,
                "set lmargin at screen 0.65\nset rmargin at screen 0.98\n"
                "set tmargin at screen %s\nset bmargin at screen %s\nunset key\n"
                "set yrange [0:*]\nset ylabel '%s'\nset xlabel %s\nset format x %s\nplot ",
                side[k].top, side[k].bottom, side[k].ylabel, k ? "'arrived demand (%)'" : "''",
                k ? "'%g'" : "''");
        for (size_t p = 0; p < n_pol; p++) {
            if (n_seeds > 1)
                fprintf(g, "'packing.dat' index %zu using 1:%d:%d with filledcurves ls %zu, ", p,
                        side[k].col + 1, side[k].col + 2, p % 8 + 1);
            fprintf(g, "'packing.dat' index %zu using 1:%d with lines ls %zu%s", p, side[k].col,
                    p % 8 + 1, p + 1 < n_pol ? ", " : "");
        }
        fputc('\n', g);
    }
    fputs("unset title\nunset multiplot\n", g);
    rc = sim__plot_end(c, &f, diag);
out:
    if (rc)
        sim__plot_abandon(&f);
    for (size_t k = 0; k < K_N; k++)
        for (size_t s = 0; s < N_STATS; s++)
            free(cur[k][s]);
    free(grid);
    free(pol);
    return rc;
}
