/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sensitivity_int.h — one-at-a-time sensitivity of a scenario's cost to its
 * main inputs (internal to sim/; `tarmac sensitivity` is its command,
 * docs/cost.md "Sensitivity" the method, docs/output.md "Sensitivity files"
 * the file).
 *
 * One base run of the scenario (replication 0). Each input is moved to
 * (1 - delta) and (1 + delta) times its value, the others held at base:
 *   GPU price        every GPU type's purchase price (and a server price per
 *                    GPU where the cost model gives one): re-accounted
 *   power price      the electricity price: re-accounted
 *   API price        every API's input and output prices and the services'
 *                    own: re-accounted
 *   staff cost       the loaded cost of a staff FTE-year: re-accounted
 *   utilization target  every service autoscaler's target utilization
 *                    (clamped to 1): re-simulated
 *   growth rate      every class's and service's arrival growth per month
 *                    (those that have one; clamped above -1): re-simulated
 * The simulation reads no price, so a price input needs no run: the base
 * run's result is re-accounted (sim__cost_account) with the changed scenario,
 * exact and instant. An input the scenario does not have (no service, no
 * growth, no owned pool for staff) is reported absent, never invented.
 * Outputs: the fleet cost per useful reference GPU-hour (fleet_usd / work)
 * and the total cost per month (fleet plus API). Rows are sorted by the
 * swing (|high - low|) of the first output, largest first; absent inputs
 * last.
 *
 * Replications: with R > 1 the base is run R times (replications 0 .. R-1),
 * a price end re-accounts each of them, a simulated end is run R times
 * (common random numbers: replication r at every end uses the same
 * streams). An end is the mean over the R values and carries a two-sided
 * 95 % Student-t interval of that mean (NaN when R = 1).
 *
 * Optional, each a search of many runs per end (docs/cost.md §6b):
 *   breakeven   the volume (tokens/month) from which owning the fleet sized
 *               for it costs less than the API (sim__be_run, owning option),
 *               at base and at each end of every input present; a moved
 *               copy of be_runner (its base replaced) per end;
 *   size        the cheapest fleet that meets size_runner's targets
 *               (sim__size_search), at base and at each end of the simulated
 *               inputs; a price moves no fleet, so a price end is the base
 *               size, marked as such, not searched again.
 */
#ifndef TARMAC_SENSITIVITY_INT_H
#define TARMAC_SENSITIVITY_INT_H

#include "model/model.h"
#include "studies/breakeven_int.h"
#include "studies/size_int.h"

#include <stdio.h>

enum {
    SIM__SENS_GPU_PRICE = 0,
    SIM__SENS_POWER_PRICE,
    SIM__SENS_API_PRICE,
    SIM__SENS_STAFF_COST,
    SIM__SENS_UTIL_TARGET,
    SIM__SENS_GROWTH,
    SIM__SENS_N_INPUTS
};
enum { SIM__SENS_USD_PER_USEFUL_GPU_H = 0, SIM__SENS_USD_PER_MONTH, SIM__SENS_N_OUTPUTS };

/* "gpu_price", ... (the file's names) and "GPU price", ... (the table's). */
const char *sim__sens_input_key(int input);
const char *sim__sens_input_label(int input);
/* "usd_per_useful_gpu_h", "usd_per_month" and their labels. */
const char *sim__sens_output_key(int output);
const char *sim__sens_output_label(int output);

/* The breakeven at one end: what sim__be_run said of owning. */
enum {
    SIM__SENS_BE_NONE = 0,  /* not computed (input absent, or no --breakeven) */
    SIM__SENS_BE_CROSSES,   /* owning beats the API from `tokens_per_month` */
    SIM__SENS_BE_AT_BOTTOM, /* ... already at the lowest volume of the range */
    SIM__SENS_BE_NEVER,     /* owning does not beat the API in the range */
    SIM__SENS_BE_N_STATES
};
const char *sim__sens_be_state_key(int state); /* "none", "crosses", "at_lowest", "never" */

typedef struct sim__sens_be {
    int state;
    double tokens_per_month;    /* the crossover (or the lowest volume); NaN otherwise */
    double v0_tokens_per_month; /* the services' own volume at this end */
    double lo_tokens_per_month, hi_tokens_per_month; /* the range searched */
    double own_usd, api_usd; /* per month, at the end of the range that says by how much */
    size_t fleets_simulated;
} sim__sens_be;

/* The size at one end. */
enum {
    SIM__SENS_SIZE_NONE = 0,  /* not computed (input absent, or no --size-target) */
    SIM__SENS_SIZE_FOUND,     /* nodes[] meets the targets */
    SIM__SENS_SIZE_NOT_FOUND, /* nothing within max_nodes does */
    SIM__SENS_SIZE_UNCHANGED, /* a price: the base size, not searched again */
    SIM__SENS_SIZE_N_STATES
};
const char *sim__sens_size_state_key(int state); /* "none", "found", "not_found", "unchanged" */

typedef struct sim__sens_size {
    int state;
    uint32_t nodes[SIM__SIZE_MAX_VARY]; /* per searched pool */
    double gpus, usd_per_month;
    uint32_t reps_meeting, replications;
    size_t evaluations;
} sim__sens_size;

typedef struct sim__sens_row {
    int input;
    int present;     /* the scenario has it */
    int resimulated; /* 1: runs at low and high; 0: the base run re-accounted */
    /* a representative value of the input (the first type's price, the
     * first service's target, ...) at base, low and high; NaN when absent */
    double base_value, low_value, high_value;
    const char *unit;
    /* means over the replications; NaN when absent */
    double low[SIM__SENS_N_OUTPUTS], high[SIM__SENS_N_OUTPUTS];
    /* the 95 % intervals of those means; NaN when absent or R = 1 */
    double low_ci[SIM__SENS_N_OUTPUTS][2], high_ci[SIM__SENS_N_OUTPUTS][2];
    /* every replication's value: reps[(side * N_OUTPUTS + o) * R + r], side
     * 0 low, 1 high (NULL when absent) */
    double *reps;
    double swing;           /* |high - low| of the first output; -1 when absent */
    sim__sens_be be[2];     /* low, high */
    sim__sens_size size[2]; /* low, high */
} sim__sens_row;

typedef struct sim__sens_cfg {
    const sim_scenario *sc;
    double delta;          /* fraction in (0, 1) */
    uint32_t replications; /* >= 1 (0: 1) */
    volatile int *stop;
    FILE *log; /* one line per run (NULL: none) */
    /* breakeven at every end (NULL: not computed): the runner's terms
     * (sim__be_terms), pools, replications, ...; its base is replaced by
     * each end's scenario, services only; be_cfg's runner is ignored */
    const sim__size_runner *be_runner;
    const sim__be_cfg *be_cfg;
    /* size at base and at the simulated ends (NULL: not computed): its
     * base is replaced by each end's scenario */
    const sim__size_runner *size_runner;
    uint32_t size_max_nodes;
    const char *size_target; /* as given, for the file */
} sim__sens_cfg;

typedef struct sim__sens_result {
    uint32_t replications;
    double base[SIM__SENS_N_OUTPUTS];
    double base_ci[SIM__SENS_N_OUTPUTS][2];
    double *base_reps; /* base_reps[o * R + r] */
    /* the base run's owned cost by part, and the fleet and API totals (USD
     * over the run; means over the replications) */
    double depreciation_usd, capital_usd, maintenance_usd, colocation_usd, staff_usd, energy_usd;
    double fleet_usd, api_usd, hours;
    sim__sens_row rows[SIM__SENS_N_INPUTS]; /* sorted */
    unsigned runs;
    sim__sens_be base_be;
    sim__sens_size base_size;
} sim__sens_result;

int sim__sens_run(const sim__sens_cfg *cfg, sim__sens_result *res, tm_diag *diag);
void sim__sens_result_fini(sim__sens_result *res);

/* Sort rows by swing, largest first, absent last (stable on input order). */
void sim__sens_sort(sim__sens_row *rows, size_t n);

/* Write the file (docs/output.md "Sensitivity files") atomically. */
int sim__sens_write(const char *path, const sim__sens_cfg *cfg, const sim__sens_result *res,
                    tm_diag *diag);

#endif
