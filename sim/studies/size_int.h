/* SPDX-License-Identifier: Apache-2.0 */
/*
 * size_int.h — the smallest fleet that meets targets, found by simulation
 * (internal to sim/; `tarmac size` is its command, docs/cli.md the target
 * syntax, docs/cost.md §6 the method).
 *
 * Three layers, kept apart so that candidates can be evaluated elsewhere (in
 * parallel) without touching the search:
 *
 *   targets     "wait_p95<=10m,slo>=0.99" parsed into terms (metric, scope,
 *               direction, limit), checked against a scenario's classes and
 *               services; a term whose direction a larger fleet cannot help
 *               ("wait_p95>=10m") is refused.
 *   evaluation  a function pointer: "simulate this fleet (nodes per searched
 *               pool) at this demand with R replications and say whether
 *               every target holds". sim__size_runner_eval is the one that
 *               runs sim_run; tests plug in closed forms.
 *   search      monotone: metrics improve as nodes are added (true in
 *               expectation for work-conserving policies; common random
 *               numbers keep it true in most replications, and the
 *               neighbours are reported so a violation shows). One pool: a
 *               galloping search from the floor (1, 2, 4, ... nodes added)
 *               then bisection, O(log n) evaluations. Several pools: the
 *               Pareto frontier of minimal mixes by a staircase walk over
 *               the last two pools (O(n_a + n_b) evaluations) for every
 *               combination of the others; every frontier mix is costed and
 *               the cheapest chosen. Evaluations are cached by (nodes, demand).
 *
 * Decision rule (per term, over the R replications): the one-sided upper
 * confidence bound of the mean, mean + t(c, R-1) sd / sqrt(R), must be at
 * most the limit of a "<=" term, and the lower bound at least the limit of a
 * ">=" term; t is Student's quantile at the confidence c (default 0.95). With
 * sd = 0, or R = 1, the bound is the mean. A replication whose metric is
 * undefined (NaN) fails the term, and a fleet on which any job is rejected
 * (can never fit) fails outright.
 */
#ifndef TARMAC_SIZE_INT_H
#define TARMAC_SIZE_INT_H

#include "studies/studies.h"

#include <stdio.h>

#define SIM__SIZE_MAX_TERMS 32
#define SIM__SIZE_MAX_VARY  4 /* pools searched at once */

/* name, units ("s" for durations), 1 when a larger fleet lowers it, scope
 * (0 job classes, 1 services), description */
#define SIM__SIZE_METRICS(X)                                                                       \
    X(SIM__SIZE_WAIT_MEAN, "wait_mean", "s", 1, 0, "mean wait")                                    \
    X(SIM__SIZE_WAIT_P50, "wait_p50", "s", 1, 0, "median wait")                                    \
    X(SIM__SIZE_WAIT_P95, "wait_p95", "s", 1, 0, "95th percentile wait")                           \
    X(SIM__SIZE_WAIT_P99, "wait_p99", "s", 1, 0, "99th percentile wait")                           \
    X(SIM__SIZE_SLOWDOWN, "slowdown_mean", "1", 1, 0, "mean bounded slowdown")                     \
    X(SIM__SIZE_DEADLINE, "deadline", "1", 0, 0, "share of deadlines met")                         \
    X(SIM__SIZE_SLO, "slo", "1", 0, 1, "SLO attainment")                                           \
    X(SIM__SIZE_API_SHARE, "api_share", "1", 1, 1, "share of requests sent to the API")

typedef enum sim__size_metric {
#define SIM__SIZE_ENUM_(id, name, units, lower, scope, desc) id,
    SIM__SIZE_METRICS(SIM__SIZE_ENUM_)
#undef SIM__SIZE_ENUM_
        SIM__SIZE_N_METRICS
} sim__size_metric;

const char *sim__size_metric_name(int m);
const char *sim__size_metric_units(int m);

typedef struct sim__size_term {
    int metric;
    int scope;      /* class or service index; -1: all jobs pooled (job metrics) */
    int le;         /* 1: "<=" or "<"; 0: ">=" or ">" */
    int strict;     /* "<" or ">" */
    double limit;   /* in the metric's units (seconds, or a ratio) */
    char text[320]; /* the term as written, with a service scope filled in */
} sim__size_term;

/* Parse `spec` (comma-separated terms METRIC[SCOPE]OP VALUE; docs/cli.md)
 * against sc. A service metric without a scope becomes one term per service.
 * TM_ERR_USAGE with diag naming the term on a malformed one. */
int sim__size_parse_targets(const char *spec, const sim_scenario *sc, sim__size_term *out,
                            size_t max, size_t *n, tm_diag *diag);
/* "wait_p95 <= 10.0 min" for messages. */
void sim__size_term_format(char *buf, size_t n, const sim__size_term *t, double v);

/* Costs under one ownership: as the scenario has it, or every pool priced as
 * owned, reserved or on-demand. */
enum {
    SIM__SIZE_AS_GIVEN = 0,
    SIM__SIZE_AS_OWNED,
    SIM__SIZE_AS_RESERVED,
    SIM__SIZE_AS_ONDEMAND,
    SIM__SIZE_N_AS
};

/* What one evaluation found (means over the replications). */
typedef struct sim__size_eval {
    int pass;
    int why; /* the first failing term; -1 passed; -2 jobs were rejected; -3 the queue grew
              * without bound */
    size_t n_terms;
    double mean[SIM__SIZE_MAX_TERMS], bound[SIM__SIZE_MAX_TERMS];
    uint64_t rejected; /* over all replications */
    double gpus;
    double usd_per_month[SIM__SIZE_N_AS]; /* fleet + API */
    double api_usd_per_month;             /* overflow, as given */
    double capex_usd;                     /* every pool owned: its purchase */
    double owned_opex_usd_per_month;      /* every pool owned: energy, colo, maintenance, staff */
    double alloc_util, busy_util;
    double tokens_per_month;       /* demanded by the services (input + output) */
    double api_list_usd_per_month; /* those tokens at the services' API prices */
    uint32_t replications;
    /* replications that meet every target on their own (each term's value
     * within its limit, no job rejected): the spread behind the decision */
    uint32_t reps_meeting;
    /* early rejection (see "Early rejection" above): replications stopped by
     * the backlog monitor, the first one's evidence (mean waiting jobs of the
     * first and last window, the span of the windows, the fitted slope, the
     * simulated hour it stopped at), and whether the fleet was judged on
     * fewer replications than asked */
    uint32_t unstable;
    int early;
    double backlog_first, backlog_last, backlog_span_h, backlog_slope_per_h, backlog_at_h;
} sim__size_eval;

/* "fails: its queue grows without bound: waiting jobs grew 412 -> 1,893 over
 * 6 d ..." for an evaluation with why -3. */
void sim__size_unstable_format(char *buf, size_t n, const sim__size_eval *e);

/* Evaluate the fleet with nodes[i] nodes in searched pool i at `demand` x the
 * scenario's arrival and load rates. */
typedef int (*sim__size_eval_fn)(void *ud, const uint32_t *nodes, double demand,
                                 sim__size_eval *out, tm_diag *diag);

/* Evaluations already made, shared by searches over one problem. */
typedef struct sim__size_cache_entry {
    uint32_t nodes[SIM__SIZE_MAX_VARY];
    double demand;
    sim__size_eval eval;
} sim__size_cache_entry;
typedef struct sim__size_cache {
    sim__size_cache_entry *e;
    size_t n, cap;
    size_t max_evals; /* budget: TM_ERR_LIMIT beyond it (0: 10000) */
} sim__size_cache;
void sim__size_cache_fini(sim__size_cache *c);

/* What the screen decided and what the full evaluation confirmed (see
 * "Screening" below), over every screened search of one problem. */
typedef struct sim__size_screen_stats {
    size_t searches;   /* screened searches (one per pool searched, staircase steps) */
    size_t agreed;     /* the full evaluation confirmed the screen's answer as it was */
    size_t corrected;  /* it moved the answer (the screen's verdict was wrong there) */
    size_t full_evals; /* full-evaluation calls the confirmations made (cached ones too) */
    /* the last screened search: its pool, the screen's answer and the confirmed one
     * (found 0: none within the range) */
    size_t k;
    uint32_t lo, screen_n, full_n;
    int screen_found, full_found;
} sim__size_screen_stats;

typedef struct sim__size_search_cfg {
    size_t n_vary;
    uint32_t floor[SIM__SIZE_MAX_VARY]; /* nodes at least (the current fleet, for growth) */
    uint32_t max[SIM__SIZE_MAX_VARY];   /* nodes at most */
    double demand;
    int cost_as; /* SIM__SIZE_AS_*: the cost the choice minimizes */
    sim__size_eval_fn eval;
    void *ud;
    sim__size_cache *cache; /* may be shared by several searches */
    /* Screening (NULL screen: none, every fleet evaluated in full). The
     * search runs on screen's verdicts, cached in screen_cache, and every
     * answer it reaches is confirmed with eval (sim__size_fewest_confirm): a
     * fleet is reported only when eval passes it and eval fails it with one
     * node fewer in the pool searched. */
    sim__size_eval_fn screen;
    void *screen_ud;
    sim__size_cache *screen_cache;
    sim__size_screen_stats *screen_stats; /* may be NULL */
    /* where the screen starts each pool's search (sim__size_fewest_guess;
     * 0: at the floor), e.g. the nodes that carry the offered load alone */
    uint32_t screen_guess[SIM__SIZE_MAX_VARY];
} sim__size_search_cfg;

typedef struct sim__size_fleet {
    uint32_t nodes[SIM__SIZE_MAX_VARY];
    sim__size_eval eval;
} sim__size_fleet;

typedef struct sim__size_answer {
    int found;                 /* 0: nothing up to max meets the targets */
    sim__size_fleet best;      /* the cheapest frontier mix (found) or the largest (not) */
    sim__size_fleet *frontier; /* minimal mixes that meet the targets, as walked */
    size_t n_frontier;
    sim__size_fleet *neighbours; /* best with one node more or less in one pool */
    size_t n_neighbours;
    size_t evaluations; /* distinct fleets simulated by this search */
} sim__size_answer;

/* Search. TM_OK with found = 0 when no fleet within max meets the targets
 * (best is then the largest fleet tried, with why it fails). */
int sim__size_search(const sim__size_search_cfg *cfg, sim__size_answer *ans, tm_diag *diag);
void sim__size_answer_fini(sim__size_answer *a);

/* Does the fleet nodes[] meet the targets? (*ok 1 or 0; a non-zero return is
 * an error). */
typedef int (*sim__size_pass_fn)(void *ud, const uint32_t *nodes, int *ok);

/* The fewest nodes of pool k in [lo, hi] that pass with the other pools as in
 * nodes[] (which it leaves with nodes[k] = the answer, or hi when none):
 * galloping from lo (lo, lo+1, lo+3, lo+7, ...) then bisection; *found 0
 * when even hi fails. O(log(answer - lo)) evaluations; size's search and
 * plan's periods both use it, so both assume the same monotonicity. */
int sim__size_fewest(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t lo,
                     uint32_t hi, int *found);

/* Screening. A screen is a cheaper evaluation (the runner with a shorter
 * horizon and fewer replications, size_eval.c) whose verdicts steer the
 * search but decide nothing on their own: sim__size_fewest_confirm takes the
 * screen's answer `cand` for pool k (cand_found 0: the screen passed nothing
 * up to hi) and returns, with `full`, an n in [lo, hi] that full passes and
 * that full fails with n - 1 (or n = lo), *found 0 only when full fails hi:
 * it checks cand and cand - 1, gallops from there (down when cand - 1
 * passes, up when cand fails) and bisects. Under the monotonicity the
 * unscreened search assumes (full passes n implies it passes n + 1) that is
 * exactly the answer sim__size_fewest(full, ...) gives, whatever the screen
 * said; a wrong screen costs evaluations, never the answer. Two full
 * evaluations when the screen was right. st (may be NULL) counts. */
int sim__size_fewest_confirm(sim__size_pass_fn full, void *ud, uint32_t *nodes, size_t k,
                             uint32_t lo, uint32_t hi, uint32_t cand, int cand_found, int *found,
                             sim__size_screen_stats *st);
/* sim__size_fewest on screen's verdicts, then sim__size_fewest_confirm. */
int sim__size_fewest_screened(sim__size_pass_fn screen, sim__size_pass_fn full, void *ud,
                              uint32_t *nodes, size_t k, uint32_t lo, uint32_t hi, int *found,
                              sim__size_screen_stats *st);
/* sim__size_fewest started at `guess` in [lo, hi] instead of lo: when the
 * guess passes, gallop down from it (guess - 1, guess - 3, ...) to a failing
 * count, else up; then bisect. The same answer under monotonicity; cheaper
 * when fleets far below the answer are slow to simulate (a long queue) and
 * the guess is near it. */
int sim__size_fewest_guess(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t lo,
                           uint32_t hi, uint32_t guess, int *found);
/* The fewest nodes of pool k in [lo, hi] by walking down from hi (known or
 * assumed to pass): hi - 1, hi - 2, hi - 4, ... to a failing one, then
 * bisection (the staircase's step, where the answer is near hi). */
int sim__size_fewest_down(sim__size_pass_fn pass, void *ud, uint32_t *nodes, size_t k, uint32_t lo,
                          uint32_t hi);

/* Growth: the fleet `current` (nodes per searched pool) under demand growing
 * by `rate_per_month`, compounding. The first month m in 0..max_months at
 * which it fails the targets (galloping then bisection on m: the metrics get
 * worse as demand grows), and the cheapest fleet of at least `current` that
 * meets them at month m. */
typedef struct sim__size_growth {
    int fails;                   /* 0: meets the targets through max_months */
    uint32_t month;              /* the first failing month */
    double demand;               /* (1 + rate)^month */
    sim__size_eval current_eval; /* the current fleet at that month (or at max_months) */
    sim__size_answer add;        /* what meets them then (found = 0: nothing within max) */
} sim__size_growth;
int sim__size_growth_run(const sim__size_search_cfg *cfg, const uint32_t *current,
                         double rate_per_month, uint32_t max_months, sim__size_growth *out,
                         tm_diag *diag);
void sim__size_growth_fini(sim__size_growth *g);

/* ------------------------------------------------------------------------- */
/* The evaluation that simulates                                              */

typedef struct sim__size_runner {
    const sim_scenario *base;
    const sim__size_term *terms;
    size_t n_terms;
    size_t n_vary;
    uint32_t vary[SIM__SIZE_MAX_VARY]; /* pool indices of the searched pools */
    uint32_t replications;             /* >= 1 */
    double confidence;                 /* of the one-sided bounds, in (0.5, 1) */
    int64_t warmup_us;                 /* jobs arriving earlier are not counted */
    int services_elastic;              /* breakeven: overflow to "miss", autoscaler max lifted */
    int no_early;                      /* 1: no early rejection (every replication runs whole) */
    unsigned workers;                  /* processes for the replications (-j); 0 or 1: this one */
    volatile int *stop_flag;
    FILE *log; /* one line per evaluation (NULL: quiet) */
    uint64_t runs, events;
    /* > 0: every run ends at this simulated time instead of the scenario's
     * horizon (a screen: the warm-up and the first days after it) */
    int64_t horizon_us;
    int screen;    /* 1: this runner is a screen (its log lines say "screened") */
    int mean_only; /* 1: a term holds when its mean does (no confidence margin) */
} sim__size_runner;

/* The screen of runner r: a copy that runs only to warm-up + after_us,
 * min(2, R) replications, and judges each term by its mean (no confidence
 * margin: a guess at the full verdict, neither strict nor lenient by design). 0 (and *scr
 * untouched) when that would not be shorter than r's own runs (the horizon is already that short).
 */
int sim__size_screen_runner(const sim__size_runner *r, int64_t after_us, sim__size_runner *scr);

/* After n of R replications of a fleet (vals[k * n_terms + i]: term i's
 * value in replication k), does the fleet fail the decision rule whatever
 * the other R - n replications show? 1 when some value is undefined (NaN
 * fails its term), or when for some term no values of the remaining
 * replications within the metric's range (waits from 0, bounded slowdown
 * from 1, shares in [0, 1]) bring the term's bound within its limit. Exact,
 * not a confidence argument: a fleet it declares failing fails on all R,
 * so the evaluation stops there (the *sequential rule*, docs/cost.md §6:
 * after the first two replications, then every two). */
int sim__size_decided_fail(const sim__size_term *terms, size_t n_terms, double confidence,
                           int mean_only, const double *vals, uint32_t n, uint32_t R);

/* The sim__size_eval_fn of a runner (ud is the runner). */
int sim__size_runner_eval(void *ud, const uint32_t *nodes, double demand, sim__size_eval *out,
                          tm_diag *diag);

/* The load bound (size_bound.c): the mean GPUs the offered load needs over
 * the horizon at `demand` x the scenario's rates, on the fastest GPU types it
 * may use; and, per searched pool, the fewest nodes that give the fleet that
 * many GPUs with every other searched pool at max[] (0 when the rest covers
 * it). A fleet below it does less work than arrives. */
double sim__size_need_gpus(const sim_scenario *sc, double demand);
void sim__size_load_floor(const sim__size_runner *r, const uint32_t *max, double demand,
                          uint32_t *floor, double *need_gpus);
/* The same floor, sharpened per set of GPU types: for every set S of the
 * fleet's types, the load that can run only on S must fit in the GPUs of S
 * (so a pool whose type alone serves some classes gets the floor those
 * classes need even when the rest of the fleet covers the total). why[k]
 * (may be NULL) says which set binds pool k's floor (types 0: no set does). */
typedef struct sim__size_bound_why {
    uint64_t types;    /* bits of sc->types */
    double need_gpus;  /* the load that can run only on them */
    double other_gpus; /* the GPUs of those types outside pool k at the other pools' max */
} sim__size_bound_why;
void sim__size_load_floor_why(const sim__size_runner *r, const uint32_t *max, double demand,
                              uint32_t *floor, sim__size_bound_why *why);
/* "the load that can run only on H100 needs 40.2 GPUs, the rest of the fleet
 * has 64 of them" */
void sim__size_bound_format(char *buf, size_t n, const sim_scenario *sc,
                            const sim__size_bound_why *why);

/* Write the sizing's HDF5 file (size_write.c; docs/output.md, "Size
 * files"): every candidate of `cache` in order, the answer's chosen fleet,
 * frontier and neighbours as rows of it, and growth (gr, at growth_rate; NULL:
 * none). The file appears whole under `path` or not at all. */
int sim__size_write(const char *path, const sim_scenario *sc, const sim__size_runner *r,
                    const sim__size_cache *cache, const sim__size_answer *ans,
                    const sim__size_growth *gr, double growth_rate, volatile int *stop,
                    tm_diag *diag);

/* "h100 12 (96 H100), l40s 0" for a fleet of the runner's searched pools. */
void sim__size_fleet_format(char *buf, size_t n, const sim__size_runner *r, const uint32_t *nodes);

#endif
