/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cost_int.h — what a run costs (internal to sim/; the model: docs/cost.md,
 * the file layout: docs/output.md "/cost").
 *
 * A GPU costs by the calendar hour and earns by the useful hour. From a
 * scenario (its pools, GPU types and "cost" section) and a run's sim_result
 * (the GPU-seconds in service, allocated and busy per pool that the engine
 * integrates, the services' API tokens), sim__cost_account computes:
 *
 *   owned pools     capex per GPU (server price x (1 + spares) x (1 + network
 *                   + storage + install)) recovered as an annuity over the
 *                   depreciation life at the cost of capital, less the
 *                   residual value (split into depreciation and capital
 *                   cost); maintenance; colocation per provisioned kW; staff
 *                   per 1000 GPUs (with a minimum); all by the calendar hour
 *                   from delivery to retirement, clipped to the run. Energy
 *                   from the simulated draw: idle watts while in service plus
 *                   (peak - idle) watts while busy, x the server power factor
 *                   x PUE x the electricity price.
 *   reserved pools  the reserved rate by the calendar hour, plus the cloud
 *                   overhead share.
 *   on-demand pools the on-demand rate by the allocated GPU-hour (the engine's
 *                   pools are fixed in size: an on-demand pool is modelled as
 *                   elastic, paying for the GPUs its jobs and replicas hold),
 *                   plus the cloud overhead share.
 *   API             the services' overflow tokens at their API price (the
 *                   service's own, a mapped one, or the default), times the
 *                   average of the yearly price factor over the run.
 *
 * Chargeback allocates the fleet cost to classes and services in proportion
 * to their allocated GPU-hours (full absorption: idle cost is shared too),
 * and a class's charge to tenants by the class's tenant mix (the engine keeps
 * no per-tenant integrals: the mix is the expected share, docs/cost.md §4).
 * Everything is O(pools^2 + classes x tenants + services).
 */
#ifndef TARMAC_COST_INT_H
#define TARMAC_COST_INT_H

#include "model/model.h"

#include <stdio.h>

/* The categories of /cost/breakdown (they add up to the total). */
#define SIM__COST_CATEGORIES(X)                                                                    \
    X(SIM__COST_OWNED_USED, "owned used")                                                          \
    X(SIM__COST_OWNED_IDLE, "owned idle")                                                          \
    X(SIM__COST_RESERVED_USED, "reserved used")                                                    \
    X(SIM__COST_RESERVED_IDLE, "reserved idle")                                                    \
    X(SIM__COST_ONDEMAND, "on-demand")                                                             \
    X(SIM__COST_API, "API")

typedef enum sim__cost_category {
#define SIM__COST_CAT_ENUM_(id, label) id,
    SIM__COST_CATEGORIES(SIM__COST_CAT_ENUM_)
#undef SIM__COST_CAT_ENUM_
        SIM__COST_N_CATEGORIES
} sim__cost_category;
const char *sim__cost_category_label(int category);

/* The owned cost of one GPU of a type, per hour (docs/cost.md §2). */
typedef struct sim__cost_owned_rates {
    double capex_usd_per_gpu;      /* what one GPU's share of the fleet costs to buy */
    double depreciation_usd_per_h; /* (capex - residual) / life, by the calendar hour */
    double capital_usd_per_h;      /* the annuity's interest part */
    double maintenance_usd_per_h;
    double colocation_usd_per_h;   /* provisioned kW (server peak) x rate */
    double staff_usd_per_h;        /* at fte_per_1000_gpus, before the fleet minimum */
    double idle_kw, busy_extra_kw; /* at the meter (x PUE): in service, and on top when busy */
} sim__cost_owned_rates;

/* The rates of type t; fields are NaN when the type has no price. */
void sim__cost_owned_rates_get(const sim_cost_cfg *c, const sim_gpu_type *types, uint32_t t,
                               sim__cost_owned_rates *r);
/* The fixed part of those rates (all but energy), per GPU-hour. */
double sim__cost_owned_fixed_usd_per_h(const sim__cost_owned_rates *r);

/* The average of the API price factor (c->api_price_factor_per_year ^ years)
 * over [t0_h, t1_h] hours from the start: 1 for constant prices. */
double sim__cost_api_factor(const sim_cost_cfg *c, double t0_h, double t1_h);

/* The API price of service s: its own api_price when given (non-zero), else
 * the mapped API, else the API whose `serves` is the service's model, else the
 * default. *api is the table index (-1 for the service's own price). */
void sim__cost_service_price(const sim_scenario *sc, size_t s, double *in_usd_per_mtok,
                             double *out_usd_per_mtok, int *api);

/* One pool over the run. */
typedef struct sim__cost_pool {
    double gpus;
    double calendar_gpu_h; /* delivery .. retirement, clipped to the run */
    double up_gpu_h, alloc_gpu_h, busy_gpu_h;
    double capex_usd; /* owned: the purchase of the pool's share of the fleet */
    double depreciation_usd, capital_usd, maintenance_usd, colocation_usd, staff_usd;
    double energy_usd, energy_kwh; /* owned: at the meter */
    double cloud_usd, cloud_overhead_usd;
    double total_usd;
    double idle_usd; /* the cost of GPU-hours not allocated (0 for on-demand) */
} sim__cost_pool;

typedef struct sim__cost_report {
    double hours; /* run length */
    size_t n_pools, n_types, n_classes, n_services, n_tenants;
    sim__cost_pool *pools;
    double *type_usd;        /* per GPU type: its pools */
    double *class_usd;       /* chargeback of the fleet cost */
    double *service_usd;     /* chargeback of the fleet cost (API spend apart) */
    double *service_api_usd; /* overflow sent to the API */
    double *class_tokens;    /* API-equivalent tokens of mapped batch classes, else 0 */
    double *class_api_equivalent_usd;
    double *tenant_usd; /* the classes' charges by their tenant mixes */
    double owned_usd, reserved_usd, ondemand_usd, fleet_usd, api_usd, total_usd;
    double idle_usd;
    double capex_usd;      /* owned pools' purchase */
    double owned_opex_usd; /* owned: energy, colocation, maintenance, staff */
    double energy_kwh, power_kw_mean;
    double category_usd[SIM__COST_N_CATEGORIES];
    double usd_per_goodput_gpu_h, usd_per_alloc_gpu_h;
    /* fleet_usd per useful reference GPU-hour, and per value-weighted one
     * (jobs and replicas; NaN without any) */
    double usd_per_work_ref_gpu_h, usd_per_value_work_ref_gpu_h;
    /* tokens served on the fleet (services' owned tokens, mapped batch classes) */
    double tokens_served, usd_per_mtok_served, api_equivalent_usd;
    double usd_per_month; /* total x (month / run length) */
} sim__cost_report;

/* Account the cost of a run. *out is filled (sim__cost_report_fini frees it).
 * Pools of a type without a price get NaN costs (and so do the totals they
 * enter); that is not an error here, callers that must compare check it. */
int sim__cost_account(const sim_scenario *sc, const sim_result *res, sim__cost_report *out,
                      tm_diag *diag);
void sim__cost_report_fini(sim__cost_report *r);

#endif
