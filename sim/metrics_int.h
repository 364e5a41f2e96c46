/*
 * metrics_int.h — accumulators the engine feeds (internal to sim/).
 *
 * Two kinds:
 *   sim_quantiles   a log-bucketed histogram: p50/p95/p99 of waits with a
 *                   relative error of at most SIM_QUANT_REL_ERR, in constant
 *                   memory whatever the number of jobs.
 *   sim__series     the piecewise-constant state of the fleet (GPUs in service,
 *                   GPUs allocated, queue length, running jobs), integrated
 *                   exactly over time (integer microseconds, 128-bit sums) and
 *                   cut into fixed-width bins for the time series.
 */
#ifndef TARMAC_METRICS_INT_H
#define TARMAC_METRICS_INT_H

#include "sim.h"

#define SIM_QUANT_BUCKETS 4096

int sim__quant_init(sim_quantiles *q);
void sim__quant_fini(sim_quantiles *q);
/* Add a value (microseconds, >= 0). */
void sim__quant_add(sim_quantiles *q, int64_t v_us);
/* The nearest-rank q-quantile (0 < q <= 1) in microseconds: the smallest
 * recorded value x with at least ceil(q n) values <= x, to within the
 * relative error. 0 when empty. */
double sim__quant_get(const sim_quantiles *q, double quantile);

/* 128-bit integer area (value x microseconds); a 64-bit product of milli-GPUs
 * and microseconds overflows within a year on a 10,000-GPU fleet. */
typedef __int128 sim__area;

typedef struct sim__series {
    int64_t t_us;      /* time the current values hold from */
    int64_t bin_t0_us; /* start of the open bin */
    int64_t bin_us;    /* bin width */
    /* current values */
    int64_t up_milli, alloc_milli, queue_len, running;
    /* integrals since the start, and within the open bin */
    sim__area up_area, alloc_area, queue_area, running_area;
    sim__area b_up, b_alloc, b_queue, b_running;
    uint64_t b_arrivals, b_starts, b_completions;
} sim__series;

void sim__series_init(sim__series *s, int64_t bin_us);
/* Move time forward to t_us (>= s->t_us), closing every bin that ends on the
 * way and handing it to sink->bin. */
int sim__series_advance(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag);
/* Close the open bin at t_us (the end of the run), even if it is partial. */
int sim__series_finish(sim__series *s, int64_t t_us, const sim_sink *sink, tm_diag *diag);

#endif
