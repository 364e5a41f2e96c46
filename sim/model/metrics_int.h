/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics_int.h — accumulators the engine feeds (internal to sim/).
 *
 * Two kinds:
 *   sim_quantiles   a log-bucketed histogram: percentiles with a relative
 *                   error of at most SIM_QUANT_REL_ERR, in constant memory
 *                   whatever the number of samples.
 *   sim__series     piecewise-constant quantities of the fleet ("levels": GPUs
 *                   in service, allocated, busy, queue length, ... in total and
 *                   per pool, type and class), each integrated exactly over time
 *                   (integer microseconds, 128-bit sums) and cut into
 *                   fixed-width bins for the time series. A level integrates
 *                   itself when it changes, so a change costs O(1) however many
 *                   levels there are; closing a bin costs O(levels).
 */
#ifndef TARMAC_METRICS_INT_H
#define TARMAC_METRICS_INT_H

#include "model/model.h"

#define SIM_QUANT_BUCKETS (128 + 56 * 128) /* exact below 128; 128 per octave up to 2^63 */

int sim__quant_init(sim_quantiles *q);
void sim__quant_fini(sim_quantiles *q);
/* Add a value (microseconds, or any non-negative integer unit, >= 0).
 * Inline: below (the engine adds a few per job). */
static inline void sim__quant_add(sim_quantiles *q, int64_t v_us);
/* Make dst (initialised) hold what src holds: the same values added in the
 * same order would give it. */
void sim__quant_copy(sim_quantiles *dst, const sim_quantiles *src);
/* The nearest-rank q-quantile (0 < q <= 1): the smallest recorded value x
 * with at least ceil(q n) values <= x, to within the relative error. 0 when
 * empty. */
double sim__quant_get(const sim_quantiles *q, double quantile);

/* 128-bit integer area (value x microseconds); a 64-bit product of milli-GPUs
 * and microseconds overflows within a year on a 10,000-GPU fleet. */
typedef __int128 sim__area;

/* A level keeps its value and the sum of its changes weighted by their times,
 * wsum = sum of delta x t: its integral from 0 to any t at or after its last
 * change is value x t - wsum (it starts at 0 at time 0). A change is then one
 * multiply-add that reads neither the time of the last change nor the
 * integral so far; the integral is formed only when a bin closes. Exact:
 * 128-bit integers throughout. */
typedef struct sim__level {
    int64_t value;       /* current value (milli-GPU, or a count) */
    sim__area wsum;      /* sum of delta x t over its changes */
    sim__area bin_start; /* integral when the open bin started */
} sim__level;

/* A level that reads as another (sim__series_alias). */
typedef struct sim__level_alias {
    uint32_t level, source;
} sim__level_alias;

typedef struct sim__series {
    int64_t bin_t0_us; /* start of the open bin */
    int64_t bin_us;    /* bin width */
    int64_t total_us;  /* the last bin edge or finish: where sim__level_total reads */
    size_t n;          /* levels (sim_level_count) */
    sim__level *lv;
    sim__level_alias *alias; /* levels that mirror another, copied when read */
    size_t n_alias;
    double *avg; /* scratch for a bin's averages */
    /* events in the open bin */
    uint64_t b_arrivals, b_starts, b_completions, b_preemptions, b_failures;
    sim__area b_lost; /* milli-GPU x us of work lost in the open bin */
    sim__area lost;   /* ... over the whole run */
    /* work lost in the open bin: milli-GPU x reference us, and x value */
    double b_lost_work, b_lost_value_work;
    uint64_t n_bins;          /* bins closed so far */
    const volatile int *stop; /* the run's stop flag (may be NULL), seen in long advances */
} sim__series;

/* At most this many bins in a run (as the scenario loader allows over a
 * horizon): a trace whose times jump far ahead fails with TM_ERR_LIMIT
 * instead of writing bins for hours. */
#define SIM__SERIES_MAX_BINS 10000000u

int sim__series_init(sim__series *s, size_t n_levels, int64_t bin_us);
void sim__series_fini(sim__series *s);

/* Change level i by delta at time t (>= its last change). Not for a level
 * that mirrors another. */
static inline void sim__level_add(sim__series *s, size_t i, int64_t t_us, int64_t delta)
{
    sim__level *l = &s->lv[i];
    l->value += delta;
    l->wsum += (sim__area)delta * t_us;
}

/* Set level i to value at time t. */
static inline void sim__level_set(sim__series *s, size_t i, int64_t t_us, int64_t value)
{
    sim__level_add(s, i, t_us, value - s->lv[i].value);
}

/* The integral of level i from 0 to t_us (at or after its last change). */
static inline sim__area sim__level_integral(const sim__series *s, size_t i, int64_t t_us)
{
    const sim__level *l = &s->lv[i];
    return (sim__area)l->value * t_us - l->wsum;
}

/* From now on level i reads as level source: the caller stops changing i
 * (the two would change identically: a class's levels when it is the only
 * class, a GPU type's when one pool has that type), and i is copied from
 * source whenever it is read (bins, totals). Levels that mirrored i now
 * mirror source. Call before any change. Refused: i or source out of range,
 * i already a mirror, or source reading as i (a cycle). */
int sim__series_alias(sim__series *s, size_t i, size_t source);
/* The level whose value and integral level i has now (i, or its source). */
size_t sim__level_source(const sim__series *s, size_t i);

/* Close every bin that ends at or before t_us, handing each to sink->bin.
 * Call before changing any level at time t_us. Cost: O(1) when no bin ends
 * (inline: the engine asks at every instant). */
int sim__series_advance_bins(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag);
static inline int sim__series_advance(sim__series *s, int64_t t_us, const sim_sink *sink,
                                      tm_diag *diag)
{
    if (t_us < s->bin_t0_us + s->bin_us)
        return TM_OK; /* the common case: still in the open bin */
    return sim__series_advance_bins(s, t_us, sink, diag);
}
/* Close the open bin at t_us (the end of the run), even if it is partial, and
 * bring every level's total up to t_us. */
int sim__series_finish(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag);
/* The integral of level i from the start to the last finish or closed bin. */
sim__area sim__level_total(const sim__series *s, size_t i);

/* Bucket of a value: exact below 2^SIM__QUANT_SUB_BITS; above, the octave
 * (floor log2) and the next SIM__QUANT_SUB_BITS bits below the leading one
 * (metrics.c). */
#define SIM__QUANT_SUB_BITS 7u
#define SIM__QUANT_SUB      (1u << SIM__QUANT_SUB_BITS)

static inline size_t sim__quant_bucket(uint64_t v)
{
    if (v < SIM__QUANT_SUB)
        return (size_t)v;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(v); /* floor(log2 v) >= SUB_BITS */
    uint64_t m = (v >> (e - SIM__QUANT_SUB_BITS)) & (SIM__QUANT_SUB - 1u);
    return SIM__QUANT_SUB + (size_t)(e - SIM__QUANT_SUB_BITS) * SIM__QUANT_SUB + (size_t)m;
}

static inline void sim__quant_add(sim_quantiles *q, int64_t v_us)
{
    q->n++;
    q->sum += (double)v_us;
    if (v_us > q->max)
        q->max = v_us;
    if (v_us < 1) {
        q->zeros++;
        return;
    }
    q->counts[sim__quant_bucket((uint64_t)v_us)]++;
}

#endif
