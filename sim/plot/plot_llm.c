/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_llm.c — the figure of a request-level LLM serving run
 * (docs/llm-serving.md): latency percentiles against load, two panels,
 *
 *   1. time to first token, median and 99th percentile (log scale);
 *   2. time per output token, median and 99th percentile;
 *
 * with the SLOs as dashed lines. The load of a request is the arrival rate of
 * the series bin it arrived in (/llm/series/bin_s); the bins are sorted by
 * that rate and cut into at most GROUPS groups of equally many bins, and
 * each group is one point: its mean rate and the percentiles of the requests
 * that arrived in its bins. A trace with bursts thus shows, from one run, how
 * latency grows with the load it met; a run at one steady rate gives points
 * close together (replay at several --load-scale values to span a range).
 */
#include "plot/plot_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GROUPS 16

typedef struct bin_rate {
    double rate;
    size_t bin;
} bin_rate;

static int cmp_rate(const void *a, const void *b)
{
    const bin_rate *x = a, *y = b;
    if (x->rate != y->rate)
        return x->rate < y->rate ? -1 : 1;
    return x->bin < y->bin ? -1 : x->bin > y->bin;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank on sorted v[0..n), NaN when empty. */
static double q_rank(const double *v, size_t n, double p)
{
    if (!n)
        return NAN;
    double k = ceil(p * (double)n);
    size_t i = k < 1 ? 0 : (size_t)k - 1;
    return v[i < n ? i : n - 1];
}

int sim__plot_llm(sim__plot_ctx *c, tm_diag *diag)
{
    double *arr = NULL, *ttft = NULL, *tpot = NULL, *va = NULL, *vb = NULL;
    size_t n = 0, n2 = 0, n3 = 0, *bin_of = NULL, *grp_of_bin = NULL, *cnt = NULL;
    bin_rate *br = NULL;
    double bin_s = NAN, t0 = NAN, slo_ttft = NAN, slo_tpot = NAN;
    tm_diag scratch;
    int rc;
    if ((rc = sim__plot_read_f64(c, "/llm/requests/arrival_s", &arr, &n, diag)) ||
        (rc = sim__plot_read_f64(c, "/llm/requests/ttft_s", &ttft, &n2, diag)) ||
        (rc = sim__plot_read_f64(c, "/llm/requests/tpot_s", &tpot, &n3, diag)))
        goto out;
    if (n2 != n || n3 != n) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file, "/llm/requests: arrays of %zu, %zu, %zu rows",
                         n, n2, n3);
        goto out;
    }
    if ((rc = sim__h5r_scalar_f64(c->r, "/llm/series/bin_s", &bin_s, diag)) ||
        (rc = sim__h5r_scalar_f64(c->r, "/llm/series/t0_s", &t0, diag)))
        goto out;
    if (sim__h5r_attr_f64(c->r, "/llm/deployment", "slo_ttft_s", &slo_ttft, &scratch))
        slo_ttft = NAN;
    if (sim__h5r_attr_f64(c->r, "/llm/deployment", "slo_tpot_s", &slo_tpot, &scratch))
        slo_tpot = NAN;
    if (!(bin_s > 0) || !isfinite(t0) || n == 0) {
        rc = tm_diag_set(diag, TM_ERR_DATA, c->file,
                         "/llm/series: expected a bin > 0 and requests, got bin %g, %zu requests",
                         bin_s, n);
        goto out;
    }
    /* bins of the arrivals */
    size_t nb = 0;
    bin_of = malloc(n * sizeof *bin_of);
    if (!bin_of)
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        double f = (arr[i] - t0) / bin_s;
        size_t b = f > 0 && f < (double)SIM__PLOT_MAX_POINTS ? (size_t)f : 0;
        bin_of[i] = b;
        if (b + 1 > nb)
            nb = b + 1;
    }
    br = calloc(nb, sizeof *br);
    grp_of_bin = malloc(nb * sizeof *grp_of_bin);
    if (!br || !grp_of_bin)
        goto nomem;
    for (size_t b = 0; b < nb; b++)
        br[b].bin = b;
    for (size_t i = 0; i < n; i++)
        br[bin_of[i]].rate += 1.0 / bin_s;
    qsort(br, nb, sizeof *br, cmp_rate);
    size_t ng = nb < GROUPS ? nb : GROUPS;
    for (size_t k = 0; k < nb; k++)
        grp_of_bin[br[k].bin] = k * ng / nb;
    /* per group: its requests' values (counting sort by group) */
    cnt = calloc(ng + 1, sizeof *cnt);
    va = malloc(n * sizeof *va);
    vb = malloc(n * sizeof *vb);
    if (!cnt || !va || !vb)
        goto nomem;
    sim__plot_fig f;
    if ((rc = sim__plot_begin(c, &f, "llm_latency", 1300, 560, diag)))
        goto out;
    FILE *d = f.dat, *g = f.gp;
    fputs("# load_rps ttft_p50_s ttft_p99_s tpot_p50_ms tpot_p99_ms requests\n", d);
    double ymin = INFINITY, ymax = 0, pmin = INFINITY, pmax = 0;
    for (size_t gi = 0; gi < ng; gi++) {
        double rate = 0;
        size_t bins = 0;
        for (size_t k = 0; k < nb; k++)
            if (k * ng / nb == gi) {
                rate += br[k].rate;
                bins++;
            }
        size_t na = 0, nv = 0;
        for (size_t i = 0; i < n; i++)
            if (grp_of_bin[bin_of[i]] == gi) {
                if (isfinite(ttft[i]))
                    va[na++] = ttft[i];
                if (isfinite(tpot[i]))
                    vb[nv++] = tpot[i];
            }
        if (na == 0)
            continue;
        qsort(va, na, sizeof *va, cmp_d);
        qsort(vb, nv, sizeof *vb, cmp_d);
        double x[5] = {rate / (double)bins, q_rank(va, na, 0.5), q_rank(va, na, 0.99),
                       1000 * q_rank(vb, nv, 0.5), 1000 * q_rank(vb, nv, 0.99)};
        for (int k = 0; k < 5; k++) {
            sim__plot_num(d, x[k]);
            fputc(' ', d);
        }
        fprintf(d, "%zu\n", na);
        if (x[1] > 0 && x[1] < ymin)
            ymin = x[1];
        if (x[2] > ymax)
            ymax = x[2];
        if (x[3] > 0 && x[3] < pmin)
            pmin = x[3];
        if (x[4] > pmax)
            pmax = x[4];
    }
    /* the title names the deployment (model, replicas of TP GPUs), which the
     * file's subject (its name, for a serving file) does not */
    char title[512], *model = NULL, *gpu = NULL;
    int64_t reps = 0, tp = 0;
    if (sim__h5r_attr_str(c->r, "/llm/deployment", "model", &model, &scratch) == TM_OK &&
        sim__h5r_attr_str(c->r, "/llm/deployment", "gpu_type", &gpu, &scratch) == TM_OK &&
        sim__h5r_attr_i64(c->r, "/llm/deployment", "replicas", &reps, &scratch) == TM_OK &&
        sim__h5r_attr_i64(c->r, "/llm/deployment", "tp", &tp, &scratch) == TM_OK)
        snprintf(title, sizeof title, "%s on %lld replica%s of %lld %s (TP): %s", model,
                 (long long)reps, reps == 1 ? "" : "s", (long long)tp, gpu, c->subject);
    else
        snprintf(title, sizeof title, "%s", c->subject);
    free(model);
    free(gpu);
    fputs("set multiplot layout 1,2 title ", g);
    sim__plot_str(g, title);
    fputs(" font ',13'\nset xlabel 'load: arrival rate of the requests'' bin (requests/s)'\n"
          "set key top left samplen 1.5 opaque font ',10'\nset logscale y\n",
          g);
    if (isfinite(slo_ttft) && slo_ttft > ymax)
        ymax = slo_ttft;
    if (isfinite(slo_tpot) && 1000 * slo_tpot > pmax)
        pmax = 1000 * slo_tpot;
    fprintf(g,
            "set title 'time to first token'\nset ylabel 'TTFT (s)'\nset yrange [%.9g:%.9g]\n"
            "plot 'llm_latency.dat' using 1:2 with linespoints ls 1 title 'p50', '' using 1:3 "
            "with linespoints ls 2 title 'p99'",
            isfinite(ymin) ? ymin / 2 : 1e-3, ymax > 0 ? ymax * 2 : 1.0);
    if (isfinite(slo_ttft))
        fprintf(g, ", %.9g with lines ls 9 lw 1.5 title 'SLO %g s'", slo_ttft, slo_ttft);
    fprintf(g,
            "\nset title 'time per output token'\nset ylabel 'TPOT (ms)'\nset yrange "
            "[%.9g:%.9g]\nplot 'llm_latency.dat' using 1:4 with linespoints ls 1 title 'p50', '' "
            "using 1:5 with linespoints ls 2 title 'p99'",
            isfinite(pmin) ? pmin / 2 : 1e-3, pmax > 0 ? pmax * 2 : 1.0);
    if (isfinite(slo_tpot))
        fprintf(g, ", %.9g with lines ls 9 lw 1.5 title 'SLO %g ms'", 1000 * slo_tpot,
                1000 * slo_tpot);
    fputs("\nunset multiplot\n", g);
    rc = sim__plot_end(c, &f, diag);
    goto out;
nomem:
    rc = tm_diag_set(diag, TM_ERR_NOMEM, c->file, "llm_latency: %zu requests", n);
out:
    free(arr);
    free(ttft);
    free(tpot);
    free(va);
    free(vb);
    free(bin_of);
    free(grp_of_bin);
    free(cnt);
    free(br);
    return rc;
}
