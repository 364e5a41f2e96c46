/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare_int.h — policies side by side with confidence intervals (internal
 * to sim/; `tarmac compare` is its command, docs/output.md its file layout).
 *
 * One scenario runs under every policy for replications 0..R-1 (an arm may
 * also set keys of the scenario: sim__cmp_policy). The workload
 * streams depend on the seed and the replication only (docs/rng.md), so
 * policy p and policy q see the same jobs in replication r: common random
 * numbers, and the paired difference m(q, r) - m(p, r) carries only the
 * policy's effect. Each run's metrics come from the job rows and bins the
 * engine streams to a sink here, with everything before the warm-up removed:
 * jobs that arrived before it, bins that start before it.
 *
 * Intervals are Student t over the R replication values (which are
 * independent: each replication has its own streams), at the confidence
 * asked for; the difference to the first policy gets the paired interval.
 * The job metrics are also kept per workload class (SIM__CMP_CLASS_METRICS),
 * with the same intervals and paired differences.
 */
#ifndef TARMAC_COMPARE_INT_H
#define TARMAC_COMPARE_INT_H

#include "studies/studies.h"

/* The metrics of one run: name (dataset name), units, short label for tables
 * and plots, description. Adding a metric is one line here and its value in
 * compare.c's run_metrics. */
#define SIM__CMP_METRICS(X)                                                                        \
    X(SIM__CMP_WAIT_MEAN, "wait_mean_s", "s", "mean wait",                                         \
      "mean wait (first start - arrival) of the jobs that arrived after the warm-up and started")  \
    X(SIM__CMP_WAIT_P50, "wait_p50_s", "s", "median wait",                                         \
      "median wait of those jobs (0.5 % relative error)")                                          \
    X(SIM__CMP_WAIT_P95, "wait_p95_s", "s", "p95 wait",                                            \
      "95th percentile wait of those jobs (0.5 % relative error)")                                 \
    X(SIM__CMP_WAIT_P99, "wait_p99_s", "s", "p99 wait",                                            \
      "99th percentile wait of those jobs (0.5 % relative error)")                                 \
    X(SIM__CMP_SLOWDOWN, "slowdown_mean", "1", "mean bounded slowdown",                            \
      "mean of max(1, (wait + run) / max(run, 10 s)) over the jobs that arrived after the "        \
      "warm-up and completed")                                                                     \
    X(SIM__CMP_ALLOC_UTIL, "alloc_util", "1", "allocation utilization",                            \
      "GPU-time allocated / GPU-time in service over the bins inside the measurement window")      \
    X(SIM__CMP_QUEUE_LEN, "queue_len_mean", "1", "mean queue length",                              \
      "time-average number of jobs waiting over the bins inside the measurement window")           \
    X(SIM__CMP_ARRIVED, "jobs_arrived", "1", "jobs arrived",                                       \
      "jobs that arrived after the warm-up (the same for every policy: common random numbers)")    \
    X(SIM__CMP_COMPLETED, "jobs_completed", "1", "jobs completed",                                 \
      "jobs that completed between the end of the warm-up and the horizon")                        \
    X(SIM__CMP_WAITING_END, "jobs_waiting_end", "1", "jobs waiting at the end",                    \
      "jobs that arrived after the warm-up and had not started when the run stopped")              \
    X(SIM__CMP_WORK_UTIL, "work_util", "1", "work utilization",                                    \
      "useful reference GPU-hours / GPU-hours owned over the bins inside the measurement window")  \
    X(SIM__CMP_VALUE_UTIL, "value_util", "1", "value utilization",                                 \
      "value-weighted useful reference GPU-hours / GPU-hours owned over the bins inside the "      \
      "measurement window")

/* The metrics of one workload class in one run, over the class's jobs that
 * arrived after the warm-up (the same definitions as above). */
#define SIM__CMP_CLASS_METRICS(X)                                                                  \
    X(SIM__CMPC_WAIT_MEAN, "wait_mean_s", "s", "mean wait",                                        \
      "mean wait (first start - arrival) of the class's jobs that arrived after the warm-up and "  \
      "started")                                                                                   \
    X(SIM__CMPC_WAIT_P50, "wait_p50_s", "s", "median wait",                                        \
      "median wait of those jobs (0.5 % relative error)")                                          \
    X(SIM__CMPC_WAIT_P95, "wait_p95_s", "s", "p95 wait",                                           \
      "95th percentile wait of those jobs (0.5 % relative error)")                                 \
    X(SIM__CMPC_SLOWDOWN, "slowdown_mean", "1", "mean bounded slowdown",                           \
      "mean of max(1, (wait + run) / max(run, 10 s)) over the class's jobs that arrived after "    \
      "the warm-up and completed")                                                                 \
    X(SIM__CMPC_ARRIVED, "jobs_arrived", "1", "jobs arrived",                                      \
      "the class's jobs that arrived after the warm-up")                                           \
    X(SIM__CMPC_GPU_HOURS, "gpu_hours", "GPU h", "GPU-hours held",                                 \
      "GPU-hours the class's jobs that arrived after the warm-up held, over all their runs (to "   \
      "the end of the run for those still running)")                                               \
    X(SIM__CMPC_WORK, "work_gpu_hours", "GPU h", "useful work",                                    \
      "useful work of those jobs: reference GPU-hours of the progress that survived")

typedef enum sim__cmp_class_metric_id {
#define SIM__CMP_ENUM_(id, name, units, label, desc) id,
    SIM__CMP_CLASS_METRICS(SIM__CMP_ENUM_)
#undef SIM__CMP_ENUM_
        SIM__CMPC_N_METRICS
} sim__cmp_class_metric_id;

typedef enum sim__cmp_metric_id {
#define SIM__CMP_ENUM_(id, name, units, label, desc) id,
    SIM__CMP_METRICS(SIM__CMP_ENUM_)
#undef SIM__CMP_ENUM_
        SIM__CMP_N_METRICS
} sim__cmp_metric_id;

typedef struct sim__cmp_metric {
    const char *name, *units, *label, *description;
} sim__cmp_metric;

/* The metric table, SIM__CMP_N_METRICS entries in enum order. */
const sim__cmp_metric *sim__compare_metrics(void);
/* The per-class metric table, SIM__CMPC_N_METRICS entries in enum order. */
const sim__cmp_metric *sim__compare_class_metrics(void);

/* A policy to compare (an arm): a label for tables and plots, a placement-core
 * specification (a preset name or "order=... placement=... backfill=..."),
 * and optionally a scenario of its own: the compared one with some keys set
 * (`tarmac compare --set`), which must keep the classes (names, order) and
 * the horizon, so that the arms stay paired. */
typedef struct sim__cmp_policy {
    char label[64];
    char spec[256];
    const sim_scenario *sc; /* NULL: the compared scenario */
    char set[1024];         /* the keys set, "PATH=VALUE" joined by "; "; "" for none */
} sim__cmp_policy;

typedef struct sim__cmp_opts {
    uint32_t replications; /* R >= 2: replications 0..R-1 */
    int64_t warmup_us;     /* removed from the start; < the scenario's horizon */
    double confidence;     /* of the intervals, in (0, 1); 0 means 0.95 */
    volatile int *stop_flag;
    /* Worker processes for the runs (work_int.h: forked, results through
     * shared memory); 0 or 1: every run in this process. The results are the
     * same for any number. */
    unsigned workers;
    /* progress(ud, run, n_runs, now_us, events): run k of n_runs (policy-major
     * within a replication), with sim_run's progress arguments. May be NULL.
     * With workers > 1 it is called once per run as runs finish (run = how
     * many finished before, now_us = the horizon). */
    void (*progress)(void *ud, size_t run, size_t n_runs, int64_t now_us, uint64_t events);
    void *progress_ud;
} sim__cmp_opts;

/* Mean and interval of one metric under one policy over the replications, and
 * the paired difference to the first policy (all zero for the first). With
 * fewer than two values sd and the intervals are NaN. */
typedef struct sim__cmp_stat {
    uint32_t n;
    double mean, sd, ci_lo, ci_hi;
    double d_mean, d_sd, d_lo, d_hi;
} sim__cmp_stat;

typedef struct sim__cmp_result {
    size_t n_policies;
    uint32_t replications;
    double confidence, t_quantile; /* t quantile at (1 + confidence) / 2, R - 1 d.o.f. */
    int64_t warmup_us, horizon_us;
    double *values;       /* [policy][replication][metric] */
    sim__cmp_stat *stats; /* [policy][metric] */
    /* per workload class (the scenario's classes, in order) */
    size_t n_classes;
    double *class_values;       /* [policy][replication][class][class metric] */
    sim__cmp_stat *class_stats; /* [policy][class][class metric] */
    uint64_t events;            /* over all runs */
    double wall_s;
} sim__cmp_result;

/* The value of metric m of policy p in replication r. */
static inline double sim__cmp_value(const sim__cmp_result *res, size_t p, uint32_t r, size_t m)
{
    return res->values[(p * res->replications + r) * SIM__CMP_N_METRICS + m];
}

/* The value of class metric m of class k of policy p in replication r. */
static inline double sim__cmp_class_value(const sim__cmp_result *res, size_t p, uint32_t r,
                                          size_t k, size_t m)
{
    return res
        ->class_values[((p * res->replications + r) * res->n_classes + k) * SIM__CMPC_N_METRICS +
                       m];
}

/* The statistics of class metric m of class k under policy p. */
static inline const sim__cmp_stat *sim__cmp_class_stat(const sim__cmp_result *res, size_t p,
                                                       size_t k, size_t m)
{
    return &res->class_stats[(p * res->n_classes + k) * SIM__CMPC_N_METRICS + m];
}

/* Check that every specification names a policy the placement core knows
 * (before any run starts). TM_ERR_POLICY naming the bad one otherwise. */
int sim__compare_check_policies(const sim__cmp_policy *pol, size_t n, tm_diag *diag);

/* Run the comparison: n_pol policies x opts->replications runs of sc (its
 * policy replaced by each). *res is filled on success (sim__compare_fini
 * frees it) and left empty on failure. */
int sim__compare_run(const sim_scenario *sc, const sim__cmp_policy *pol, size_t n_pol,
                     const sim__cmp_opts *opts, sim__cmp_result *res, tm_diag *diag);
void sim__compare_fini(sim__cmp_result *res);

/* Write a comparison as HDF5 at path (atomically; layout: docs/output.md,
 * "Comparison files"). Once *stop is set (NULL: never), the write stops with
 * TM_ERR_INTERRUPTED and no file (sim__h5w_set_stop). */
int sim__compare_write(const char *path, const sim_scenario *sc, const sim__cmp_policy *pol,
                       size_t n_pol, const sim__cmp_result *res, volatile int *stop, tm_diag *diag);

/* Mean, standard deviation and two-sided Student-t interval of x[0], x[stride],
 * ... (n values) at quantile t (from sim__t_quantile). sd and the interval
 * are NaN when n < 2. */
void sim__stat_interval(const double *x, size_t n, size_t stride, double t, double *mean,
                        double *sd, double *lo, double *hi);
/* The two-sided Student-t quantile for `confidence` with n - 1 degrees of
 * freedom (GSL's gsl_cdf_tdist_Pinv); NaN when n < 2. */
double sim__t_quantile(double confidence, size_t n);

#endif
