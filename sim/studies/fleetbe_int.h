/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleetbe_int.h — whole-fleet breakeven: owning the fleet that meets a
 * scenario's targets versus renting the same fleet (reserved, on demand)
 * versus sending the services to the API, as the load is scaled (internal to
 * sim/; `tarmac breakeven --fleet` is its command, docs/cost.md "Whole-fleet
 * breakeven" the method, docs/output.md "Fleet breakeven files" the file).
 *
 * At each scale s of a log-spaced range (every class's arrival rate and every
 * service's request rate times s):
 *   fleet      the scenario's fleet with every pool's nodes multiplied by the
 *              smallest factor k/steps (ceil per pool) that meets the targets
 *              (the job targets given and every service's SLO, overflow
 *              counted as missed), found by sim__size_search over k; the
 *              shape of the fleet stays the scenario's.
 *   own        that fleet's monthly cost with every pool owned (amortized
 *              purchase, energy, colocation, maintenance, staff);
 *   reserved   ... every pool rented reserved (calendar hours);
 *   on-demand  ... every pool rented on demand (allocated hours);
 *   api        the services' tokens at their API prices plus the owned fleet
 *              that meets the job targets without the services (sized the
 *              same way), since batch work has no API to go to.
 * Crossovers: wherever two options' costs change order between neighbouring
 * scales, the scale where they are equal, interpolated linearly in
 * log(scale) of the difference.
 */
#ifndef TARMAC_FLEETBE_INT_H
#define TARMAC_FLEETBE_INT_H

#include "studies/size_int.h"

enum { SIM__FBE_OWN = 0, SIM__FBE_RESERVED, SIM__FBE_ONDEMAND, SIM__FBE_API, SIM__FBE_N };

/* "own", "reserved", "on-demand", "api" */
const char *sim__fbe_option_name(int o);

typedef struct sim__fbe_point {
    double scale;
    int found;                     /* a fleet within the largest factor meets the targets */
    double factor;                 /* the fleet as a multiple of the scenario's */
    double gpus;                   /* its GPUs */
    double jobs_factor, jobs_gpus; /* the fleet for the jobs alone (api option) */
    double api_tokens_usd;         /* the services' tokens at their API prices, per month */
    double usd[SIM__FBE_N];        /* per month; NaN: no fleet found */
    double busy_util;              /* of the owned fleet */
    double own_usd_per_useful_gpu_h;
} sim__fbe_point;

typedef struct sim__fbe_cross {
    int a, b;            /* options (a < b) */
    double scale;        /* where their costs are equal */
    int a_cheaper_above; /* 1: a costs less above the scale, b below */
} sim__fbe_cross;

#define SIM__FBE_MAX_CROSS 64

typedef struct sim__fbe_cfg {
    const sim_scenario *sc;
    const sim__size_term *terms; /* job terms and service SLO terms */
    size_t n_terms;
    double scale_lo, scale_hi;
    size_t n_points;
    uint32_t steps;    /* factor resolution: k / steps of the scenario's fleet (default 8) */
    double max_factor; /* the largest factor tried (default 4 x scale_hi) */
    uint32_t replications;
    double confidence;
    int64_t warmup_us;
    unsigned workers;
    int no_early;
    volatile int *stop;
    FILE *log;
} sim__fbe_cfg;

typedef struct sim__fbe_result {
    size_t n;
    sim__fbe_point *pts;
    size_t n_cross;
    sim__fbe_cross cross[SIM__FBE_MAX_CROSS];
    size_t fleets_simulated;
    uint64_t runs;
} sim__fbe_result;

int sim__fbe_run(const sim__fbe_cfg *cfg, sim__fbe_result *res, tm_diag *diag);
void sim__fbe_result_fini(sim__fbe_result *res);

/* The crossovers of the options' costs over the points (usd[] per point,
 * scale ascending): pure, for tests. */
size_t sim__fbe_crossings(const sim__fbe_point *pts, size_t n, sim__fbe_cross *out, size_t max);

/* The verdict in words, one sentence per line, into buf: the cheapest
 * option at each end, every crossover, or that one option wins throughout
 * and by how much at each end. */
void sim__fbe_summary(char *buf, size_t n, const sim__fbe_result *res);

/* Write the file (docs/output.md "Fleet breakeven files") atomically. */
int sim__fbe_write(const char *path, const sim__fbe_cfg *cfg, const sim__fbe_result *res,
                   tm_diag *diag);

#endif
