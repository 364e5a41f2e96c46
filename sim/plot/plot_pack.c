/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_pack.c — the figures of the openb packing experiment: the GPU
 * allocation ratio against the arrived demand, one line per series with the
 * band from the lowest to the highest seed when there are several, y = x
 * (the line of perfect packing) and an inset magnifying the end of the
 * curves, where the policies part; on the right the fragmented share of the
 * idle GPUs and the demand of the pods that failed, over the same axis.
 *
 * Two sources, one drawing (draw_packing):
 *   packing        a packing file (`tarmac replay --protocol pack`,
 *                  docs/output.md "Packing experiment"): a series per policy
 *                  (the groups of /packing/policies in the order written,
 *                  labelled by their `spec`), curves float64[P] over the grid
 *                  /packing/arrived_pct, with min and max over the seeds;
 *   sweep_packing  a merged packing sweep (docs/output.md "Packing sweeps"):
 *                  a series per combination, the rows of the float64[C, G]
 *                  /sweep/curves_mean/<metric>, labelled by the combination's
 *                  parameter values from /sweep/params, with the band from
 *                  the lowest to the highest replication from the points'
 *                  own curves (/sweep/curves) where there are two or more.
 */
#include "plot/plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_ALLOC, K_FRAG, K_FAILED, K_N };
static const char *const metric[K_N] = {"alloc_pct", "frag_pct", "failed_gpu_pct"};
#define N_STATS 3
static const char *const stat[N_STATS] = {"mean", "min", "max"};
#define ZOOM_PCT 25 /* the inset shows the last ZOOM_PCT points of arrived demand */

/* One line of the figure: n points (x[i], v[k][s][i]); v[k][1..2] may be
 * NULL (no band). The arrays are borrowed. */
typedef struct pack_series {
    char label[256];
    const double *x;
    size_t n;
    const double *v[K_N][N_STATS];
} pack_series;

/* The inset: allocation over the last ZOOM_PCT points of demand, on a scale
 * from the lowest to the highest value there. Nothing when flat. */
static void write_inset(FILE *g, const char *stem, const pack_series *se, size_t n_se, int bands,
                        double xmax)
{
    double zx0 = xmax > ZOOM_PCT ? xmax - ZOOM_PCT : 0, zlo = INFINITY, zhi = -INFINITY;
    for (size_t p = 0; p < n_se; p++)
        for (size_t i = 0; i < se[p].n; i++) {
            if (!(se[p].x[i] >= zx0))
                continue;
            for (size_t s = 0; s < N_STATS; s++) {
                double v = se[p].v[K_ALLOC][s] ? se[p].v[K_ALLOC][s][i] : NAN;
                if (isfinite(v)) {
                    zlo = fmin(zlo, v);
                    zhi = fmax(zhi, v);
                }
            }
        }
    if (!isfinite(zlo) || !(zhi > zlo))
        return;
    double pad = fmax(0.5, (zhi - zlo) * 0.15);
    fprintf(g,
            "# inset: the end of the curves, magnified\n"
            "set lmargin at screen 0.13\nset rmargin at screen 0.34\n"
            "set tmargin at screen 0.80\nset bmargin at screen 0.59\n"
            "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n"
            "set xlabel ''\nset ylabel ''\nunset key\nset tics font ',9'\n"
            "set border 15 lc rgb '#888888'\n"
            "set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind "
            "fc rgb 'white' fs solid 1.0 noborder\n"
            "set title 'the last %d points of demand, magnified' font ',10'\n"
            "plot x with lines ls 9 lw 1.2",
            zx0, xmax, zlo - pad, zhi + pad, ZOOM_PCT);
    for (size_t p = 0; p < n_se; p++) {
        if (bands)
            fprintf(g, ", '%s.dat' index %zu using 1:3:4 with filledcurves ls %zu", stem, p,
                    p % 8 + 1);
        fprintf(g, ", '%s.dat' index %zu using 1:2 with lines ls %zu", stem, p, p % 8 + 1);
    }
    fputs("\nunset object 1\nset border 3 lc rgb '#555555'\nset tics font ',12'\n", g);
}

static int draw_packing(sim__plot_ctx *c, const char *stem, const char *what, const char *note,
                        const pack_series *se, size_t n_se, int bands, const char *series,
                        const char *over, tm_diag *diag)
{
    sim__plot_fig f;
    int rc = sim__plot_begin(c, &f, stem, 1400, 800, diag);
    if (rc)
        return rc;
    FILE *d = f.dat, *g = f.gp;
    fprintf(d,
            "# one block per %s: arrived_pct alloc_pct_mean alloc_pct_min alloc_pct_max "
            "frag_pct_mean frag_pct_min frag_pct_max failed_gpu_pct_mean failed_gpu_pct_min "
            "failed_gpu_pct_max (percent; min and max over %s, NaN without)\n",
            series, over);
    double amax = 0, xmax = 0;
    for (size_t p = 0; p < n_se; p++) {
        fprintf(d, "# %s\n", se[p].label);
        for (size_t i = 0; i < se[p].n; i++) {
            sim__plot_num(d, se[p].x[i]);
            if (isfinite(se[p].x[i]))
                xmax = fmax(xmax, se[p].x[i]);
            for (size_t k = 0; k < K_N; k++)
                for (size_t s = 0; s < N_STATS; s++) {
                    double v = se[p].v[k][s] ? se[p].v[k][s][i] : NAN;
                    fputc(' ', d);
                    sim__plot_num(d, v);
                    if (isfinite(v) && k == K_ALLOC)
                        amax = fmax(amax, v);
                }
            fputc('\n', d);
        }
        fputs("\n\n", d);
    }
    if (!(xmax > 0))
        xmax = 100;
    char title[512];
    snprintf(title, sizeof title, "Packing: GPU allocation against arrived demand — %s", what);
    fputs("set multiplot title ", g);
    sim__plot_str(g, title);
    fputs(" font ',15'\n", g);
    fprintf(g,
            "# left: allocation ratio\n"
            "set lmargin at screen 0.07\nset rmargin at screen 0.56\n"
            "set tmargin at screen 0.90\nset bmargin at screen 0.10\n"
            "set xrange [0:%.9g]\nset yrange [0:%.9g]\n"
            "set xlabel 'arrived demand: GPUs requested so far / GPUs of the cluster (%%)'\n"
            "set ylabel 'GPUs allocated / GPUs of the cluster (%%)'\n"
            "set key bottom right opaque box lc rgb '#cccccc' font ',10' samplen 2\n"
            "set style fill transparent solid 0.22 noborder\n",
            xmax, fmax(105.0, amax * 1.05));
    fputs("set label 1 ", g);
    sim__plot_str(g, note);
    fputs(" at graph 0.02, graph 0.97 left font ',10' tc rgb '#555555'\n"
          "plot x with lines ls 9 lw 1.5 title 'perfect packing (y = x)'",
          g);
    for (size_t p = 0; p < n_se; p++) {
        if (bands)
            fprintf(g, ", '%s.dat' index %zu using 1:3:4 with filledcurves ls %zu notitle", stem, p,
                    p % 8 + 1);
        fprintf(g, ", '%s.dat' index %zu using 1:2 with lines ls %zu title ", stem, p, p % 8 + 1);
        sim__plot_str(g, se[p].label);
    }
    fputs("\nunset label 1\n", g);
    write_inset(g, stem, se, n_se, bands, xmax);
    /* right: fragmentation (top) and failed demand (bottom), no key: the
     * colours are the left panel's */
    static const struct {
        int col;
        const char *head, *ylabel, *top, *bottom;
    } side[2] = {
        {5, "fragmentation: share of the idle GPUs the pods cannot use",
         "fragmented / idle GPUs (%)", "0.90", "0.56"},
        {8, "failed demand: GPUs requested by pods that found no place",
         "GPUs of failed pods / cluster (%)", "0.44", "0.10"},
    };
    for (size_t k = 0; k < 2; k++) {
        fputs("set title ", g);
        sim__plot_str(g, side[k].head);
        fprintf(g,
                " font ',11'\nset lmargin at screen 0.65\nset rmargin at screen 0.98\n"
                "set tmargin at screen %s\nset bmargin at screen %s\nunset key\n"
                "set xrange [0:%.9g]\nset yrange [0:*]\nset ylabel '%s'\nset xlabel %s\n"
                "set format x %s\nplot ",
                side[k].top, side[k].bottom, xmax, side[k].ylabel,
                k ? "'arrived demand (%)'" : "''", k ? "'%g'" : "''");
        for (size_t p = 0; p < n_se; p++) {
            if (bands)
                fprintf(g, "'%s.dat' index %zu using 1:%d:%d with filledcurves ls %zu, ", stem, p,
                        side[k].col + 1, side[k].col + 2, p % 8 + 1);
            fprintf(g, "'%s.dat' index %zu using 1:%d with lines ls %zu%s", stem, p, side[k].col,
                    p % 8 + 1, p + 1 < n_se ? ", " : "");
        }
        fputc('\n', g);
    }
    fputs("unset title\nunset multiplot\n", g);
    return sim__plot_end(c, &f, diag);
}

int sim__plot_packing(sim__plot_ctx *c, tm_diag *diag)
{
    double *grid = NULL, **cur = NULL;
    char **pol = NULL, *pods = NULL;
    size_t n = 0, n_pol = 0;
    int64_t n_seeds = 1;
    pack_series *se = NULL;
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
    se = calloc(n_pol, sizeof *se);
    cur = calloc(n_pol * K_N * N_STATS, sizeof *cur);
    if (!se || !cur) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    for (size_t p = 0; p < n_pol; p++) {
        char path[512], *spec = NULL;
        snprintf(path, sizeof path, "/packing/policies/%s", pol[p]);
        if (sim__h5r_attr_str(c->r, path, "spec", &spec, &quiet) == TM_OK && spec[0])
            snprintf(se[p].label, sizeof se[p].label, "%s", spec);
        else
            snprintf(se[p].label, sizeof se[p].label, "%s", pol[p]);
        free(spec);
        se[p].x = grid;
        se[p].n = n;
        for (size_t k = 0; k < K_N; k++)
            for (size_t s = 0; s < N_STATS; s++) {
                double **v = &cur[(p * K_N + k) * N_STATS + s];
                size_t m = 0;
                snprintf(path, sizeof path, "/packing/policies/%s/%s_%s", pol[p], metric[k],
                         stat[s]);
                if (!sim__h5r_exists(c->r, path))
                    continue;
                if ((rc = sim__plot_read_f64(c, path, v, &m, diag)))
                    goto out;
                if (m != n) {
                    rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: %zu points, the grid has %zu",
                                     path, m, n);
                    goto out;
                }
                se[p].v[k][s] = *v;
            }
    }
    /* a packing file has no scenario: the pod list names the experiment */
    const char *what = c->subject;
    if (sim__h5r_exists(c->r, "/packing/config/pods_file") &&
        sim__h5r_scalar_str(c->r, "/packing/config/pods_file", &pods, &quiet) == TM_OK && pods[0])
        what = sim__plot_base_name(pods);
    char note[96];
    if (n_seeds > 1)
        snprintf(note, sizeof note, "lines: mean over %lld seeds; bands: lowest to highest seed",
                 (long long)n_seeds);
    else
        snprintf(note, sizeof note, "one seed");
    rc =
        draw_packing(c, "packing", what, note, se, n_pol, n_seeds > 1, "policy", "the seeds", diag);
out:
    for (size_t i = 0; cur && i < n_pol * K_N * N_STATS; i++)
        free(cur[i]);
    free(cur);
    free(se);
    free(grid);
    free(pol);
    free(pods);
    return rc;
}

/* The bands of a packing sweep: for combination k and metric m, the lowest
 * (band[((2m) rows + k) cols + g]) and highest (2m + 1) value at grid point g
 * over its ok points (status 0 in /sweep/points) whose grid is the
 * combination's, NaN where none. *bands = 1 when some combination has two
 * such points. Nothing (and TM_OK) when the file has no per-point curves. */
static int sweep_bands(sim__plot_ctx *c, const double *grid, size_t rows, size_t cols, double **pts,
                       double **pgrid, double **pcombo, double **pstatus, size_t *n_pts,
                       double **band, int *bands, tm_diag *diag)
{
    *bands = 0;
    size_t r = 0, cc = 0, n1 = 0, n2 = 0;
    if (!sim__h5r_exists(c->r, "/sweep/curves/arrived_pct") ||
        !sim__h5r_exists(c->r, "/sweep/points/combo") ||
        !sim__h5r_exists(c->r, "/sweep/points/status"))
        return TM_OK;
    int rc;
    if ((rc = sim__h5r_matrix_f64(c->r, "/sweep/curves/arrived_pct", pgrid, n_pts, &cc, diag)) ||
        (rc = sim__plot_read_f64(c, "/sweep/points/combo", pcombo, &n1, diag)) ||
        (rc = sim__plot_read_f64(c, "/sweep/points/status", pstatus, &n2, diag)))
        return rc;
    if (cc != cols || n1 != *n_pts || n2 != *n_pts)
        return TM_OK; /* not the shape of the mean curves: no bands */
    for (size_t m = 0; m < K_N; m++) {
        char path[128];
        snprintf(path, sizeof path, "/sweep/curves/%s", metric[m]);
        if (!sim__h5r_exists(c->r, path))
            continue;
        if ((rc = sim__h5r_matrix_f64(c->r, path, &pts[m], &r, &cc, diag)))
            return rc;
        if (r != *n_pts || cc != cols) {
            free(pts[m]);
            pts[m] = NULL;
        }
    }
    *band = malloc(2 * K_N * rows * cols * sizeof **band);
    size_t *count = calloc(rows ? rows : 1, sizeof *count);
    if (!*band || !count) {
        free(count);
        return tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
    }
    for (size_t q = 0; q < 2 * K_N * rows * cols; q++)
        (*band)[q] = NAN;
    for (size_t i = 0; i < *n_pts; i++) {
        double ck = (*pcombo)[i];
        if ((*pstatus)[i] != 0 || !(ck >= 0 && ck < (double)rows))
            continue;
        size_t k = (size_t)ck;
        const double *pg = *pgrid + i * cols, *mg = grid + k * cols;
        int same = 1;
        for (size_t g = 0; g < cols && same; g++)
            same = pg[g] == mg[g] || (isnan(pg[g]) && isnan(mg[g]));
        if (!same)
            continue;
        count[k]++;
        for (size_t m = 0; m < K_N; m++) {
            if (!pts[m])
                continue;
            double *lo = *band + ((2 * m) * rows + k) * cols;
            double *hi = *band + ((2 * m + 1) * rows + k) * cols;
            for (size_t g = 0; g < cols; g++) {
                double v = pts[m][i * cols + g];
                if (!isfinite(v))
                    continue;
                lo[g] = isnan(lo[g]) ? v : fmin(lo[g], v);
                hi[g] = isnan(hi[g]) ? v : fmax(hi[g], v);
            }
        }
    }
    for (size_t k = 0; k < rows; k++)
        *bands |= count[k] >= 2;
    free(count);
    return TM_OK;
}

int sim__plot_sweep_packing(sim__plot_ctx *c, tm_diag *diag)
{
    double *grid = NULL, *cur[K_N] = {0}, *pts[K_N] = {0}, *pgrid = NULL, *band = NULL;
    double *pcombo = NULL, *pstatus = NULL;
    char *file = NULL;
    size_t rows = 0, cols = 0, n_pts = 0;
    sim__plot_params pr = {0};
    pack_series *se = NULL;
    int bands = 0;
    int rc;
    tm_diag quiet;
    if ((rc = sim__h5r_matrix_f64(c->r, "/sweep/curves_mean/arrived_pct", &grid, &rows, &cols,
                                  diag)))
        goto out;
    for (size_t k = 0; k < K_N; k++) {
        char path[128];
        size_t r2 = 0, c2 = 0;
        snprintf(path, sizeof path, "/sweep/curves_mean/%s", metric[k]);
        if (!sim__h5r_exists(c->r, path))
            continue;
        if ((rc = sim__h5r_matrix_f64(c->r, path, &cur[k], &r2, &c2, diag)))
            goto out;
        if (r2 != rows || c2 != cols) {
            rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "%s: %zu x %zu, the grid is %zu x %zu",
                             path, r2, c2, rows, cols);
            goto out;
        }
    }
    if (rows == 0 || cols == 0 || !cur[K_ALLOC])
        goto out;
    /* the parameters of each combination, for the labels */
    if ((rc = sim__plot_params_read(c, rows, &pr, diag)))
        goto out;
    se = calloc(rows, sizeof *se);
    if (!se) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "plot", "out of memory");
        goto out;
    }
    /* the spread over each combination's replications, from every point's
     * own curve (/sweep/curves): a band from the lowest to the highest, where
     * a combination has two or more ok points on its grid */
    if ((rc = sweep_bands(c, grid, rows, cols, pts, &pgrid, &pcombo, &pstatus, &n_pts, &band,
                          &bands, diag)))
        goto out;
    for (size_t k = 0; k < rows; k++) {
        sim__plot_params_label(&pr, k, NULL, 0, se[k].label, sizeof se[k].label);
        if (!se[k].label[0])
            snprintf(se[k].label, sizeof se[k].label, "combination %zu", k);
        se[k].x = grid + k * cols;
        se[k].n = cols;
        for (size_t m = 0; m < K_N; m++) {
            se[k].v[m][0] = cur[m] ? cur[m] + k * cols : NULL;
            if (bands && cur[m] && pts[m]) {
                se[k].v[m][1] = band + ((m * 2 + 0) * rows + k) * cols;
                se[k].v[m][2] = band + ((m * 2 + 1) * rows + k) * cols;
            }
        }
    }
    /* a sweep has no scenario name: the sweep file names it */
    const char *what = c->subject;
    if (sim__h5r_exists(c->r, "/sweep/sweep_file") &&
        sim__h5r_scalar_str(c->r, "/sweep/sweep_file", &file, &quiet) == TM_OK && file[0])
        what = sim__plot_base_name(file);
    rc = draw_packing(c, "sweep_packing", what,
                      bands ? "lines: mean over each combination's replications; bands: lowest to "
                              "highest replication"
                            : "lines: mean over each combination's replications",
                      se, rows, bands, "combination", "its replications", diag);
out:
    sim__plot_params_fini(&pr);
    for (size_t k = 0; k < K_N; k++)
        free(pts[k]);
    free(pgrid);
    free(pcombo);
    free(pstatus);
    free(band);
    free(file);
    for (size_t k = 0; k < K_N; k++)
        free(cur[k]);
    free(grid);
    free(se);
    return rc;
}
