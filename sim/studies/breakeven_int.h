/* SPDX-License-Identifier: Apache-2.0 */
/*
 * breakeven_int.h — owning versus renting versus paying per token (internal
 * to sim/; `tarmac breakeven` is its command, docs/cost.md §5 the method,
 * docs/output.md "Breakeven files" the layout).
 *
 * The workload is the scenario's services (batch classes are left out: their
 * work has no token volume the API would bill unless mapped, and no SLO to
 * size for). Their demanded tokens per month at the scenario's load are the
 * reference volume V0; a volume V scales every service's request rate by
 * V / V0, keeping the mix, the daily and weekly profile and the tokens per
 * request. At each volume:
 *   API        the demanded tokens at each service's API price (linear in V);
 *   own        the cheapest fleet that meets every service's SLO (attainment
 *              >= its target, overflow counted as missed, the autoscaler's cap
 *              lifted so the fleet is what limits), found by sim__size_search,
 *              priced with every pool owned;
 *   rent       the same search's frontier priced reserved (calendar hours);
 *   on-demand  ... priced on-demand (the replicas' allocated hours).
 * The volume where each starts to beat the API: the first grid interval
 * where it does, narrowed by bisection on log V (each step sizes again) and
 * finished by linear interpolation of the difference. Months to pay back:
 * the owned fleet's capex over the monthly saving (API, at its yearly price
 * factor, or rent, minus the owned running costs), up to the depreciation
 * life. As a function of utilization: the fleet sized for V0, its cost per
 * useful GPU-hour at busy utilization u against what the API would charge for
 * the tokens one useful GPU-hour serves.
 */
#ifndef TARMAC_BREAKEVEN_INT_H
#define TARMAC_BREAKEVEN_INT_H

#include "studies/size_int.h"

enum { SIM__BE_OWN = 0, SIM__BE_RENT, SIM__BE_ONDEMAND, SIM__BE_N_OPTIONS };

typedef struct sim__be_point {
    double tokens_per_month, demand;
    int found;                          /* 0: no fleet within max_nodes meets the SLOs */
    uint32_t nodes[SIM__SIZE_MAX_VARY]; /* the owned option's fleet */
    double gpus;
    double api_usd, usd[SIM__BE_N_OPTIONS]; /* per month */
    double capex_usd, own_opex_usd;         /* owned option */
    double payback_months, payback_vs_rent_months;
    double alloc_util, busy_util, own_usd_per_useful_gpu_h, slo_worst;
} sim__be_point;

typedef struct sim__be_cfg {
    size_t n_points;                                 /* log-spaced volumes */
    double lo_tokens_per_month, hi_tokens_per_month; /* 0: V0 / 100 .. V0 x 10 */
    uint32_t refine;                                 /* bisection steps per crossing */
    uint32_t max_nodes;
    sim__size_runner *runner; /* terms, pools, replications set by sim__be_setup */
} sim__be_cfg;

typedef struct sim__be_result {
    double v0_tokens_per_month; /* the scenario's own volume */
    double api_usd_per_mtok;    /* blended over the services at V0 */
    size_t n_points;
    sim__be_point *pts;
    double beats_tokens_per_month[SIM__BE_N_OPTIONS]; /* NaN: never in the range */
    int beats_at_bottom[SIM__BE_N_OPTIONS];           /* 1: already at the lowest volume */
    sim__be_point ref;                                /* at V0 */
    size_t n_util;
    double *util, *own_usd_per_useful_h, *rent_usd_per_useful_h, *api_usd_per_useful_h;
    double util_beats[2];           /* own, rent: the utilization where it beats the API */
    double tokens_per_useful_gpu_h; /* the first service on the first pool's type */
    size_t fleets_simulated;
} sim__be_result;

/* The terms every service's SLO gives (slo[s] >= slo_target), into terms[]
 * (SIM__SIZE_MAX_TERMS). TM_ERR_SCENARIO without services. */
int sim__be_terms(const sim_scenario *sc, sim__size_term *terms, size_t *n, tm_diag *diag);

int sim__be_run(const sim__be_cfg *cfg, sim__be_result *res, tm_diag *diag);
void sim__be_result_fini(sim__be_result *res);

/* Write the curves (docs/output.md "Breakeven files") to path, atomically. */
int sim__be_write(const char *path, const sim_scenario *sc, const sim__be_cfg *cfg,
                  const sim__be_result *res, tm_diag *diag);

/* Months until `capex` is paid back by the monthly saving income_m - opex,
 * income_m = income0 x factor^(m / 12) in month m = 0, 1, ... (the API bill
 * avoided, at its yearly price factor; a rent bill with factor 1), linear
 * within the last month. NaN when it is not paid back within max_months. */
double sim__be_payback_months(double capex, double income0, double factor, double opex,
                              double max_months);

#endif
