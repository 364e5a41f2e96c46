/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_int.h — a purchase plan over time (internal to sim/; `tarmac plan` is
 * its command, docs/plan.md the method and the file layout).
 *
 * The question: demand grows by a rate per period (a quarter or a month)
 * over a horizon of periods; nodes of the candidate pools are bought, arrive
 * a lead time (whole periods) after they are ordered and then stay; the
 * orders of one period may cost at most a budget. Which nodes should arrive
 * when, so that every period's fleet meets the targets (size's grammar and
 * decision rule, size_int.h) at the cheapest total cost of owning the fleet
 * (capex as an annuity, plus opex, per period)?
 *
 * A period's fleet is judged by simulating it at that period's demand
 * (demand0 x (1 + growth)^t times the scenario's rates) with size's
 * evaluation (sim__size_runner_eval): the same replications, the same
 * bounds, the same cache of (nodes, demand) evaluations, so a fleet is
 * never simulated twice at one demand.
 *
 * Two searches over the same evaluations:
 *   greedy  period by period: the minimal mixes of at least last period's
 *           fleet that meet this period's targets (from the load bound,
 *           galloping then bisection in one pool, a staircase over two or
 *           more), the three cheapest scored by their own cost plus a
 *           roll-out of the next `lookahead` periods from them (each grows
 *           one pool, the cheapest way; on estimates with a screen); the
 *           cheapest that the
 *           budget allows. With a screen the mixes and their ranking are
 *           the screen's, and only the mix taken is confirmed in full
 *           (confirm_all below). When the budget cannot pay for a period's nodes
 *           in the periods they must be ordered in, they are ordered
 *           earlier (arriving earlier) where the budget has room, latest
 *           first. O(periods x (log range + mixes x lookahead)) searches.
 *   exact   every non-decreasing schedule on the grid of node counts up to
 *           max_nodes, depth first with a lower bound (the cheapest passing
 *           fleet of each remaining period): for small cases only, to
 *           measure the greedy's optimality gap (docs/plan.md).
 */
#ifndef TARMAC_PLAN_INT_H
#define TARMAC_PLAN_INT_H

#include "studies/size_int.h"

#include <stdio.h>

#define SIM__PLAN_MAX_PERIODS 240

typedef struct sim__plan_cfg {
    sim__size_runner *run;    /* the evaluation: searched pools, targets, replications */
    sim__size_cache *cache;   /* evaluations, shared by the searches */
    size_t n_periods;         /* 1 .. SIM__PLAN_MAX_PERIODS */
    double months_per_period; /* 3 (quarter) or 1 (month) */
    double growth;            /* demand growth per period, compounding; > -1 */
    double demand0;           /* demand in period 0, x the scenario's rates */
    uint32_t installed[SIM__SIZE_MAX_VARY]; /* nodes in service in period 0 */
    uint32_t lead[SIM__SIZE_MAX_VARY];      /* periods from order to arrival */
    uint32_t max_nodes[SIM__SIZE_MAX_VARY];
    double node_usd[SIM__SIZE_MAX_VARY]; /* one node's purchase (cost model capex) */
    double budget_usd;                   /* per period, on its orders; INFINITY: none */
    uint32_t lookahead;                  /* periods the greedy rolls out */
    size_t exact_max_fleets;             /* the exact search refuses larger grids (0: 4000) */
    FILE *log;                           /* progress, a line per period (NULL: quiet) */
    /* Screening (NULL screen: none): the greedy's per-period searches run on
     * the screen's verdicts and every fleet they return is confirmed with
     * `run` (sim__size_fewest_confirm: it passes in full, one node fewer in
     * the pool searched fails in full), the roll-outs' searches too (with
     * their growth bounded). The exact search never screens. */
    sim__size_runner *screen;
    sim__size_cache *screen_cache;
    sim__size_screen_stats *screen_stats; /* may be NULL */
    /* With a screen the roll-outs are scored on estimates (the memoised full
     * evaluation of a fleet at that demand, else the screen's verdict and
     * cost), never simulated in full: the periods' mixes are still confirmed
     * in full, but their ranking by roll-out is the estimate's (docs/plan.md,
     * "Roll-outs on estimates"). 1: roll-outs searched on the screen and
     * confirmed in full, as every other search (--full-rollouts). */
    int rollout_full;
    /* What the full evaluation confirms with a screen (docs/plan.md,
     * "Confirmation"). 0 (the default): lazily, the chosen fleet alone: the
     * period's searches and roll-outs run on the screen, the candidates are
     * ranked on estimates, and only the head of the ranking is confirmed in
     * full (sim__size_fewest_confirm in its pool: it passes in full with one
     * node fewer failing in full); one that fails in full is replaced by the
     * fewest nodes of that pool that pass in full, and the ranking is read
     * again. 1 (--confirm-all, implied by --full-rollouts): every search's
     * answer is confirmed in full as it is reached, so every minimal mix of
     * a period is minimal in full. */
    int confirm_all;
} sim__plan_cfg;

/* One candidate mix of a period, as the greedy saw it (the evidence of what
 * was confirmed in full and what was only screened). */
typedef struct sim__plan_cand {
    uint32_t period; /* from 0 */
    uint32_t nodes[SIM__SIZE_MAX_VARY];
    int pool;   /* the pool its count was searched (and confirmed) in */
    int origin; /* 0: a minimal mix of the period's search; 1: the full evaluation's
                 * step from a candidate that failed in full (or had a node to spare) */
    int screen; /* the screen's verdict: 1 pass, 0 fail, -1 not screened */
    uint32_t screen_runs, screen_meeting;
    double screen_usd; /* its own cost for the period on the screen (NAN: not screened) */
    int full;          /* the full evaluation's verdict: 1 pass, 0 fail, -1 not simulated in full */
    uint32_t full_runs, full_meeting;
    double usd;   /* the own cost it was ranked by: the full one when simulated in full */
    double ahead; /* its roll-out's cost (NAN: not rolled out; INFINITY: no future) */
    int chosen;
} sim__plan_cand;

/* Is the greedy's confirmation lazy (the chosen fleet only)? */
int sim__plan_lazy(const sim__plan_cfg *cfg);
/* What the full evaluation confirmed, for the outputs: "chosen" (lazily, the
 * chosen fleets), "every search" (--confirm-all, --full-rollouts) or "every
 * fleet" (no screen: everything is simulated in full). */
const char *sim__plan_confirmation(const sim__plan_cfg *cfg);

typedef struct sim__plan_period {
    double demand;
    uint32_t nodes[SIM__SIZE_MAX_VARY];  /* in service during the period */
    uint32_t arrive[SIM__SIZE_MAX_VARY]; /* arriving at its start */
    uint32_t order[SIM__SIZE_MAX_VARY];  /* ordered in it (arriving lead[k] later) */
    double order_usd;                    /* what those orders cost */
    double own_usd;                      /* the fleet owned, over the period (+ API overflow) */
    sim__size_eval eval;
    /* the fleet with one node fewer in its most costly pool that can lose
     * one, when it was simulated (its spread shows how close the choice
     * is); fewer_pool -1: none simulated */
    int fewer_pool;
    uint32_t fewer_meeting;
    uint32_t fewer_runs; /* its replications (fewer than R: stopped, failing) */
    int conf_pool;       /* the pool the chosen fleet was confirmed in (lazily); -1: none */
    /* lazily: 1 when no candidate was left and the period was searched
     * again with every answer confirmed in full (as --confirm-all) */
    int searched_again;
} sim__plan_period;

typedef struct sim__plan {
    int found;           /* 0: no schedule meets the targets (fail_* say why) */
    int exact;           /* which search made it */
    size_t n_periods;    /* planned so far (all of them when found) */
    sim__plan_period *p; /* n_periods */
    double own_usd;      /* the objective: own_usd over the periods */
    size_t evaluations;  /* fleets simulated by this search (not found in the cache) */
    size_t schedules;    /* exact: schedules visited */
    size_t implied;      /* roll-outs' verdicts implied, not screened (plan.c, implied) */
    /* the full evaluations this search made or looked up (the greedy's
     * roll-outs on estimates reuse these, not the shared cache) */
    sim__size_cache memo;
    /* per searched pool, the full evaluation's correction to the screen's
     * last answer (confirmed - screened nodes): where the next confirmation
     * starts (plan.c, confirm) */
    int64_t screen_shift[SIM__SIZE_MAX_VARY];
    /* the candidates of every period planned, in the order they were ranked
     * and confirmed (sim__plan_cand) */
    sim__plan_cand *cand;
    size_t n_cand, cap_cand;
    int64_t fail_period; /* -1 none */
    char why[1400];
} sim__plan;

/* The demand of period t. */
double sim__plan_demand(const sim__plan_cfg *cfg, size_t t);

/* The searches. TM_OK with found = 0 when no schedule meets the targets
 * (why says which period and what stops it: the lead time, the budget, the
 * node limit); TM_ERR_INTERRUPTED with the periods planned so far in *out;
 * the exact search: TM_ERR_USAGE when the grid is larger than
 * exact_max_fleets. sim__plan_fini frees *out. */
int sim__plan_greedy(const sim__plan_cfg *cfg, sim__plan *out, tm_diag *diag);
int sim__plan_exact(const sim__plan_cfg *cfg, sim__plan *out, tm_diag *diag);
void sim__plan_fini(sim__plan *p);

/* Write the plan's HDF5 file (plan_write.c; docs/output.md, "Plan files"):
 * the schedule pl and its costs per period, every fleet simulated (the
 * cache), and provenance; with --exact, pl is the exact plan and ex the
 * greedy one (its nodes, its cost and the gap; NULL: none). complete = 0
 * marks a file written after an interruption (the periods planned so far).
 * The file appears whole under `path` or not at all. */
int sim__plan_write(const char *path, const sim_scenario *sc, const sim__plan_cfg *cfg,
                    const sim__plan *pl, const sim__plan *ex, int complete, const char *targets,
                    volatile int *stop, tm_diag *diag);

#endif
