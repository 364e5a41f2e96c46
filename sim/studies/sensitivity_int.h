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
 */
#ifndef TARMAC_SENSITIVITY_INT_H
#define TARMAC_SENSITIVITY_INT_H

#include "model/model.h"

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

typedef struct sim__sens_row {
    int input;
    int present;     /* the scenario has it */
    int resimulated; /* 1: runs at low and high; 0: the base run re-accounted */
    /* a representative value of the input (the first type's price, the
     * first service's target, ...) at base, low and high; NaN when absent */
    double base_value, low_value, high_value;
    const char *unit;
    double low[SIM__SENS_N_OUTPUTS], high[SIM__SENS_N_OUTPUTS]; /* NaN when absent */
    double swing; /* |high - low| of the first output; -1 when absent */
} sim__sens_row;

typedef struct sim__sens_cfg {
    const sim_scenario *sc;
    double delta; /* fraction in (0, 1) */
    volatile int *stop;
    FILE *log; /* one line per run (NULL: none) */
} sim__sens_cfg;

typedef struct sim__sens_result {
    double base[SIM__SENS_N_OUTPUTS];
    /* the base run's owned cost by part, and the fleet and API totals (USD
     * over the run) */
    double depreciation_usd, capital_usd, maintenance_usd, colocation_usd, staff_usd, energy_usd;
    double fleet_usd, api_usd, hours;
    sim__sens_row rows[SIM__SENS_N_INPUTS]; /* sorted */
    unsigned runs;
} sim__sens_result;

int sim__sens_run(const sim__sens_cfg *cfg, sim__sens_result *res, tm_diag *diag);

/* Sort rows by swing, largest first, absent last (stable on input order). */
void sim__sens_sort(sim__sens_row *rows, size_t n);

/* Write the file (docs/output.md "Sensitivity files") atomically. */
int sim__sens_write(const char *path, const sim__sens_cfg *cfg, const sim__sens_result *res,
                    tm_diag *diag);

#endif
