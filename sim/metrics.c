/*
 * metrics.c — streaming quantiles and exact time integrals.
 *
 * Quantiles: bucket k >= 1 holds values v (microseconds) with
 * gamma^(k-1) < v <= gamma^k, gamma = (1 + a) / (1 - a), a = SIM_QUANT_REL_ERR;
 * values below 1 us count as zero. A quantile is answered with the bucket's
 * representative 2 gamma^k / (gamma + 1), which is within a relative error a
 * of every value in the bucket (DDSketch, Masson et al., VLDB 2019). 4096
 * buckets at a = 0.5 % cover 1 us to beyond 10^17 us.
 *
 * Series: between events a level is constant, so its integral is a sum of
 * value x duration over the intervals between its changes; each level adds
 * its own piece when it changes (sim__level_add), and closing a bin brings
 * every level up to the bin's edge. Bins are fixed-width windows [t0, t0 + w);
 * a bin's averages are its integrals divided by its width (the last bin by
 * its actual length).
 */
#include "metrics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double quant_log_gamma(void)
{
    const double a = SIM_QUANT_REL_ERR;
    return log((1.0 + a) / (1.0 - a));
}

int sim__quant_init(sim_quantiles *q)
{
    memset(q, 0, sizeof *q);
    q->counts = calloc(SIM_QUANT_BUCKETS, sizeof *q->counts);
    return q->counts ? TM_OK : TM_ERR_NOMEM;
}

void sim__quant_fini(sim_quantiles *q)
{
    if (!q)
        return;
    free(q->counts);
    memset(q, 0, sizeof *q);
}

void sim__quant_add(sim_quantiles *q, int64_t v_us)
{
    q->n++;
    q->sum += (double)v_us;
    if (v_us > q->max)
        q->max = v_us;
    if (v_us < 1) {
        q->zeros++;
        return;
    }
    double k = ceil(log((double)v_us) / quant_log_gamma());
    size_t b = k < 1 ? 1 : (size_t)k;
    if (b >= SIM_QUANT_BUCKETS)
        b = SIM_QUANT_BUCKETS - 1;
    q->counts[b]++;
}

double sim__quant_get(const sim_quantiles *q, double quantile)
{
    if (q->n == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(quantile * (double)q->n);
    if (rank < 1)
        rank = 1;
    if (rank <= q->zeros)
        return 0.0;
    uint64_t seen = q->zeros;
    double lg = quant_log_gamma(), gamma = exp(lg);
    for (size_t b = 1; b < SIM_QUANT_BUCKETS; b++) {
        seen += q->counts[b];
        if (seen >= rank) {
            double rep = 2.0 * exp(lg * (double)b) / (gamma + 1.0);
            /* never report more than the largest value seen */
            return rep > (double)q->max ? (double)q->max : rep;
        }
    }
    return (double)q->max;
}

int sim__series_init(sim__series *s, size_t n_levels, int64_t bin_us)
{
    memset(s, 0, sizeof *s);
    s->bin_us = bin_us > 0 ? bin_us : 1;
    s->n = n_levels;
    s->lv = calloc(n_levels ? n_levels : 1, sizeof *s->lv);
    s->avg = calloc(n_levels ? n_levels : 1, sizeof *s->avg);
    return s->lv && s->avg ? TM_OK : TM_ERR_NOMEM;
}

void sim__series_fini(sim__series *s)
{
    if (!s)
        return;
    free(s->lv);
    free(s->avg);
    memset(s, 0, sizeof *s);
}

/* Bring every level to `edge`, emit the bin [bin_t0, edge) and open the next. */
static int close_bin(sim__series *s, int64_t edge, const sim_sink *sink, tm_diag *diag)
{
    int64_t w = edge - s->bin_t0_us;
    double dw = w > 0 ? (double)w : 1.0;
    for (size_t i = 0; i < s->n; i++) {
        sim__level_add(s, i, edge, 0);
        s->avg[i] = (double)s->lv[i].bin / dw;
        s->lv[i].bin = 0;
    }
    int rc = TM_OK;
    if (sink && sink->bin && w > 0) {
        sim_bin_row row = {
            .t0_us = s->bin_t0_us,
            .t1_us = edge,
            .avg = s->avg,
            .n_avg = s->n,
            .arrivals = s->b_arrivals,
            .starts = s->b_starts,
            .completions = s->b_completions,
            .preemptions = s->b_preemptions,
            .failures = s->b_failures,
            .lost_gpu_s = (double)s->b_lost / 1000.0 / SIM_US_PER_S,
        };
        rc = sink->bin(sink->ud, &row, diag);
    }
    s->b_arrivals = s->b_starts = s->b_completions = s->b_preemptions = s->b_failures = 0;
    s->b_lost = 0;
    s->bin_t0_us = edge;
    return rc;
}

int sim__series_advance(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag)
{
    while (t_us >= s->bin_t0_us + s->bin_us) {
        int rc = close_bin(s, s->bin_t0_us + s->bin_us, sink, diag);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

int sim__series_finish(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag)
{
    int rc = sim__series_advance(s, t_us, sink, diag);
    if (rc == TM_OK && t_us > s->bin_t0_us)
        rc = close_bin(s, t_us, sink, diag);
    for (size_t i = 0; i < s->n; i++)
        sim__level_add(s, i, t_us, 0);
    return rc;
}

sim__area sim__level_total(const sim__series *s, size_t i)
{
    return s->lv[i].total;
}
