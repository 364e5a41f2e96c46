/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gavel_int.h — Gavel's allocation solve and round bookkeeping (internal to
 * sim/; the code is model/gavel_alloc.c, the only user of GLPK).
 *
 * Gavel (Narayanan et al., OSDI 2020) schedules in rounds. A policy objective
 * gives an allocation X: for each active job and GPU type, the fraction of
 * time the job should run there (each job's row sums to at most 1; each
 * type's column, weighted by the jobs' GPU counts, to at most its GPUs). The
 * placement core (policies/gavel_round.c) realises X round by round from the
 * place_timeshare the engine puts in its view; this file solves X and keeps
 * the time each job has received, so the view can say so.
 *
 * docs/gavel.md describes the objectives, the rounds and where this differs
 * from Gavel's source.
 */
#ifndef TARMAC_SIM_GAVEL_INT_H
#define TARMAC_SIM_GAVEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "place.h"
#include "status.h"

/* The policy objectives (Gavel's policies without space sharing): the
 * placement core's (place.h, place_gavel_args), under the names sim/ uses.
 * "max-min-wf", max-min fairness water-filled (Gavel's
 * max_min_fairness_water_filling_perf), is realised by the rounds as they do
 * "max-min"; only the solve differs. */
typedef enum sim__gavel_objective {
    SIM_GAVEL_MAXMIN = PLACE_GAVEL_MAXMIN, /* one LP: the smallest level (max_min_fairness_perf) */
    SIM_GAVEL_MAXMIN_AGNOSTIC = PLACE_GAVEL_MAXMIN_AGNOSTIC, /* one LP, every type speed 1 */
    SIM_GAVEL_FTF = PLACE_GAVEL_FTF,
    SIM_GAVEL_MAKESPAN = PLACE_GAVEL_MAKESPAN,
    SIM_GAVEL_FIFO = PLACE_GAVEL_FIFO,
    SIM_GAVEL_MAXMIN_WF = PLACE_GAVEL_MAXMIN_WF, /* water-filling levels */
    SIM_GAVEL_N_OBJECTIVES = PLACE_GAVEL_N_OBJECTIVES
} sim__gavel_objective;

/* The name of a sim__gavel_objective ("max-min-wf" for SIM_GAVEL_MAXMIN_WF). */
const char *sim__gavel_objective_name(int objective);

/* Gavel's minimum_time_between_allocation_resets (scheduler.py, 1920 s, what
 * its simulations run with): X is solved again only at the first round
 * boundary at least this long after the last solve, and only when the job
 * set changed; in between a new job has no row (X = 0: it takes GPUs left
 * over) and the others keep theirs. */
#define SIM_GAVEL_RESOLVE_US (1920 * 1000000ll)

/* The default round: Gavel's time_per_iteration, 360 s. */
#define SIM_GAVEL_ROUND_US PLACE_GAVEL_ROUND_US

/* Read a policy specification: 1 when it names the Gavel policy ("gavel",
 * "gavel max-min", "gavel ftf@600"), with its objective and round length;
 * 0 when it names another policy; a negative TM_ERR_POLICY with a message in
 * diag when it names gavel with bad arguments. The arguments are read by
 * the placement core's parser, place_gavel_args (docs/gavel.md). */
int sim__gavel_spec(const char *spec, int *objective, int64_t *round_us, tm_diag *diag);

/* One allocation problem. Per job i and type t, thr[i * n_types + t] is the
 * job's throughput there (reference work per second; 0: it cannot run
 * there). A job with no type at all gets a zero row. */
typedef struct sim__gavel_problem {
    uint32_t n_jobs, n_types;
    const double *thr;
    const double *gpus;    /* GPUs per job (Gavel's scale factor; a share counts its fraction) */
    const double *cap;     /* GPUs per type */
    const double *weight;  /* priority weight per job (NULL: 1) */
    const double *left_s;  /* ftf, makespan: reference work left, seconds */
    const double *total_s; /* ftf: the job's whole reference work, seconds */
    const double *age_s;   /* ftf: time since arrival, seconds */
    const double *prev_x;  /* fifo: the previous allocation (rows kept), may be NULL */
    double rho_hint;       /* ftf: where to start, e.g. the last solve's rho (0: none) */
} sim__gavel_problem;

typedef struct sim__gavel_stats {
    uint32_t lps;          /* LPs solved */
    uint32_t levels;       /* water-filling levels (max-min) */
    double objective;      /* max-min: the smallest normalised throughput; makespan: T (s);
                              ftf: the largest rho of x (an upper bound on the optimum) */
    double bound;          /* ftf: a certified lower bound on the optimal rho, within
                              1e-4 x objective of it */
    uint32_t bisect_steps; /* ftf: steps that fell back to bisection */
    int single;            /* in: solve max-min-wf as one LP (what max-min does) */
    int ungrouped; /* in: one LP row per job, even for interchangeable jobs (for the bench) */
} sim__gavel_stats;

/* Solve p for an objective into x (n_jobs x n_types, row-major). stats (may be
 * NULL) gets counts; stats->single on input asks max-min-wf for one LP instead of
 * the water-filling levels. TM_OK, TM_ERR_NOMEM, or TM_ERR_INTERNAL with a
 * message in diag when the solver fails. */
int sim__gavel_solve(int objective, const sim__gavel_problem *p, double *x, sim__gavel_stats *stats,
                     tm_diag *diag);

/* The engine's round state: the rows it shows the policy (job ids ascending)
 * and the time each has received per type. */
typedef struct sim__gavel {
    int objective;
    int64_t round_us;
    uint32_t n_types;
    int64_t t_acct_us;                      /* received time is counted up to here */
    uint64_t seen_arrivals, seen_in_flight; /* the job set solved for */
    int solved;
    int64_t solved_us; /* when X was last solved */
    uint32_t n_rows, cap_rows;
    uint64_t *id;
    double *x, *recv_s, *active_s; /* [row * n_types + t], [row] */
    place_timeshare ts;
    uint32_t *rhash; /* the rows by job id: open addressing, row + 1 (0 empty) */
    uint32_t n_rhash;
    /* scratch for the next solve */
    uint64_t *n_id;
    double *n_x, *n_recv, *n_active, *thr, *cap, *left, *total, *age, *prevx;
    double *gpus;
    uint32_t n_cap;
    double ftf_rho; /* ftf: the last solve's rho, where the next one starts */
    double solve_s; /* wall time spent solving, for the bench */
    uint64_t solves;
} sim__gavel;

void sim__gavel_init(sim__gavel *g, int objective, int64_t round_us, uint32_t n_types);
void sim__gavel_fini(sim__gavel *g);

/* Count received time up to now_us: each running job (ids[k], on type
 * types[k], running since start_us[k]) receives the time since the later of
 * its start and the last count; every row's active time grows. */
void sim__gavel_account(sim__gavel *g, int64_t now_us, const uint64_t *ids, const uint32_t *types,
                        const int64_t *start_us, uint32_t n);

/* A new job set (ids ascending, n jobs, with the problem's per-job fields):
 * rows of jobs already known keep their received time; solve X. */
typedef struct sim__gavel_jobs {
    uint32_t n;
    const uint64_t *id;
    const double *thr; /* n x n_types */
    const double *gpus;
    const double *weight, *left_s, *total_s, *age_s;
    const double *cap; /* n_types */
} sim__gavel_jobs;
/* Room for n jobs in the scratch arrays the caller fills (ids and fields),
 * then sim__gavel_resolve; TM_ERR_NOMEM on failure. */
int sim__gavel_reserve(sim__gavel *g, uint32_t n);
int sim__gavel_resolve(sim__gavel *g, const sim__gavel_jobs *jobs, tm_diag *diag);

#endif
