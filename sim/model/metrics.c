/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.c — streaming quantiles and exact time integrals.
 *
 * Quantiles: a log-linear histogram of the integer values (as HdrHistogram
 * and DDSketch do, Masson et al., VLDB 2019). Values below 128 have a bucket
 * each; above, a bucket is one of 128 equal slices of an octave [2^e, 2^(e+1)),
 * found from the integer's bits (its leading one and the next seven), with no
 * logarithm. A quantile is answered with its bucket's middle, within a relative
 * error of 1/256 (0.39 %) of every value in the bucket. 7,296 buckets cover
 * 1 to 2^63 - 1.
 *
 * Series: between events a level is constant, so its integral up to t is
 * the sum of each change times the time left after it, sum delta (t - t_k)
 * = value x t - sum delta t_k: a level keeps the second sum (wsum), so a
 * change costs one multiply-add and touches no clock, and closing a bin
 * forms every level's integral at the bin's edge. Bins are fixed-width
 * windows [t0, t0 + w); a bin's averages are its integrals divided by its
 * width (the last bin by its actual length). A mirrored level (an alias)
 * takes its source's value and sum before it is read.
 */
#include "model/metrics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_BITS SIM__QUANT_SUB_BITS
#define SUB      SIM__QUANT_SUB

/* The middle of bucket b: within a relative 1 / (2 SUB) of every value in it. */
static double quant_value(size_t b)
{
    if (b < SUB)
        return (double)b;
    size_t e = (b - SUB) / SUB, m = (b - SUB) % SUB;
    return ldexp((double)(SUB + m) + 0.5, (int)e);
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

void sim__quant_copy(sim_quantiles *dst, const sim_quantiles *src)
{
    memcpy(dst->counts, src->counts, SIM_QUANT_BUCKETS * sizeof *dst->counts);
    dst->n = src->n;
    dst->zeros = src->zeros;
    dst->sum = src->sum;
    dst->max = src->max;
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
    for (size_t b = 1; b < SIM_QUANT_BUCKETS; b++) {
        seen += q->counts[b];
        if (seen >= rank) {
            double rep = quant_value(b);
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
    free(s->alias);
    free(s->lv);
    free(s->avg);
    memset(s, 0, sizeof *s);
}

int sim__series_alias(sim__series *s, size_t i, size_t source)
{
    if (i >= s->n || source >= s->n || i == source)
        return TM_ERR_INTERNAL;
    source = sim__level_source(s, source);
    if (source == i)
        return TM_ERR_INTERNAL; /* source reads as i: a cycle */
    /* a level already mirrored stays as it is */
    for (size_t k = 0; k < s->n_alias; k++)
        if (s->alias[k].level == i)
            return TM_ERR_INTERNAL;
    sim__level_alias *a = realloc(s->alias, (s->n_alias + 1) * sizeof *a);
    if (!a)
        return TM_ERR_NOMEM;
    s->alias = a;
    /* the levels that mirrored i follow its source from now on: i itself is
     * no longer written */
    for (size_t k = 0; k < s->n_alias; k++)
        if (a[k].source == i)
            a[k].source = (uint32_t)source;
    a[s->n_alias++] = (sim__level_alias){(uint32_t)i, (uint32_t)source};
    return TM_OK;
}

size_t sim__level_source(const sim__series *s, size_t i)
{
    for (size_t k = 0; k < s->n_alias; k++)
        if (s->alias[k].level == i)
            return s->alias[k].source;
    return i;
}

/* Mirrored levels take their sources' value and sum. */
static void series_sync(sim__series *s)
{
    for (size_t k = 0; k < s->n_alias; k++) {
        const sim__level *src = &s->lv[s->alias[k].source];
        sim__level *l = &s->lv[s->alias[k].level];
        l->value = src->value;
        l->wsum = src->wsum;
    }
}

/* Form every level's integral at `edge`, emit the bin [bin_t0, edge) and open
 * the next. */
static int close_bin(sim__series *s, int64_t edge, const sim_sink *sink, tm_diag *diag)
{
    int64_t w = edge - s->bin_t0_us;
    double dw = w > 0 ? (double)w : 1.0;
    series_sync(s);
    for (size_t i = 0; i < s->n; i++) {
        sim__area total = sim__level_integral(s, i, edge);
        s->avg[i] = (double)(total - s->lv[i].bin_start) / dw;
        s->lv[i].bin_start = total;
    }
    s->total_us = edge;
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
            .lost_work_ref_gpu_s = s->b_lost_work / 1000.0 / SIM_US_PER_S,
            .lost_value_work_ref_gpu_s = s->b_lost_value_work / 1000.0 / SIM_US_PER_S,
        };
        rc = sink->bin(sink->ud, &row, diag);
    }
    s->b_arrivals = s->b_starts = s->b_completions = s->b_preemptions = s->b_failures = 0;
    s->b_lost = 0;
    s->b_lost_work = s->b_lost_value_work = 0;
    s->bin_t0_us = edge;
    s->n_bins++;
    return rc;
}

int sim__series_advance_bins(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag)
{
    if (t_us < s->bin_t0_us + s->bin_us)
        return TM_OK;
    uint64_t need = (uint64_t)(t_us - s->bin_t0_us) / (uint64_t)s->bin_us;
    if (need > SIM__SERIES_MAX_BINS - s->n_bins)
        return tm_diag_set(diag, TM_ERR_LIMIT, "time series",
                           "simulated time %.6g s needs more than %u bins of %.6g s; a larger "
                           "\"sample\" (or a trace without such a jump in time) is needed",
                           (double)t_us / SIM_US_PER_S, SIM__SERIES_MAX_BINS,
                           (double)s->bin_us / SIM_US_PER_S);
    while (t_us >= s->bin_t0_us + s->bin_us) {
        int rc = close_bin(s, s->bin_t0_us + s->bin_us, sink, diag);
        if (rc != TM_OK)
            return rc;
        /* a long run of empty bins still answers a signal promptly */
        if ((s->n_bins & 0xffff) == 0 && s->stop && *s->stop)
            return tm_diag_set(diag, TM_ERR_INTERRUPTED, "run",
                               "stopped by a signal at simulated time %.3f s",
                               (double)s->bin_t0_us / SIM_US_PER_S);
    }
    return TM_OK;
}

int sim__series_finish(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag)
{
    int rc = sim__series_advance(s, t_us, sink, diag);
    if (rc == TM_OK && t_us > s->bin_t0_us)
        rc = close_bin(s, t_us, sink, diag);
    series_sync(s);
    s->total_us = t_us;
    return rc;
}

sim__area sim__level_total(const sim__series *s, size_t i)
{
    return sim__level_integral(s, sim__level_source(s, i), s->total_us);
}
