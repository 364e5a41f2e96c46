/* SPDX-License-Identifier: Apache-2.0 */
/*
 * studies.h — the studies room of sim/ (docs/architecture.md): what drives
 * one or many runs of the model and hands the results to output/: a run into
 * its report (run.c), the SWF window protocol (replay.c), the packing
 * experiment (pack.c), compare, size, breakeven and sweeps (their APIs in
 * their *_int.h), and the worker pool they share (work.c).
 */
#ifndef TARMAC_SIM_STUDIES_H
#define TARMAC_SIM_STUDIES_H

#include "output/output.h"

/* Run a scenario and write its results to an HDF5 file at `path` (atomically:
 * written under a temporary name and renamed when complete). */
int sim_study_run(const sim_scenario *sc, const sim_run_opts *opts, const char *path,
                  sim_result *res, tm_diag *diag);
/* The same, keeping of the jobs what `jobs` says (`--jobs`, docs/output.md). */
int sim_study_run_jobs(const sim_scenario *sc, const sim_run_opts *opts, const char *path,
                       sim_jobs_table jobs, sim_result *res, tm_diag *diag);

/* SWF window protocol: replay `count` consecutive jobs from job index
 * `first` (0-based, counting jobs the reader hands out), the machine empty at
 * the first job's submit time (times shifted to 0), until every job is done. */
typedef struct sim_window {
    uint64_t first, count;
} sim_window;

typedef struct sim_window_result {
    uint64_t first, count; /* as asked */
    uint64_t jobs;         /* jobs that arrived (fewer than count at the end of a trace) */
    uint64_t completed, rejected;
    double wait_mean_s; /* mean wait of started jobs */
    double bsld_mean;   /* mean bounded slowdown max(1, (wait + run) / max(run, 10 s)) */
    double util;        /* GPU-time allocated / GPU-time available, first submit .. last end */
    /* the same GPU-time / (GPUs x (last start - first submit)), as RLScheduler
     * reports utilization; may exceed 1; 0 when every job starts at once */
    double util_rlsched;
    double makespan_s; /* first submit .. last completion */
    uint64_t policy_errors;
} sim_window_result;

/* Opens a fresh source over the trace (called once per window). */
typedef int (*sim_source_open_fn)(void *ud, trace_source *src, tm_diag *diag);

/* Run n windows with the scenario's fleet and policy (stop is forced to
 * drain); out[i] for w[i]. stop (or NULL), set by a signal handler, stops
 * the window being simulated: TM_ERR_INTERRUPTED. */
int sim_window_replay(const sim_scenario *sc, sim_source_open_fn open, void *ud,
                      const sim_window *w, size_t n, volatile int *stop, sim_window_result *out,
                      tm_diag *diag);

int sim_pack_run(const sim_scenario *sc, const trace_job *pods, size_t n_pods,
                 const sim_pack_cfg *cfg, sim_pack_result *res, tm_diag *diag);

/* sim_pack_run with the seeds of replications first_rep .. first_rep +
 * cfg->n_seeds - 1 (sim_pack_run is first_rep 0): a sweep point runs seed k
 * alone and gets what seed k of a full run gets. Once *stop is set (a
 * SIGINT/SIGTERM handler; NULL: never) it stops within 64 pods with
 * TM_ERR_INTERRUPTED. (sim/pack.c) */
int sim_pack_run_reps(const sim_scenario *sc, const trace_job *pods, size_t n_pods,
                      const sim_pack_cfg *cfg, uint32_t first_rep, volatile int *stop,
                      sim_pack_result *res, tm_diag *diag);
#endif
