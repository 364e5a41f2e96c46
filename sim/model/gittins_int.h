/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gittins_int.h — the per-class distributions of GPU service that Tiresias'
 * Gittins index reads with gittins=class (internal to sim/; the code is
 * model/gittins_dist.c, the policy policies/tiresias.c, the rules
 * docs/tiresias.md).
 *
 * A job's GPU service is its GPUs (times its share) times its run time at
 * reference speed, Tiresias' 2D attained service. For each class this
 * discretises the distribution of that product from the class's configured
 * distributions (GPUs, duration or work, share): quantiles of the exact CDF
 * (GSL's, through trace_dist_cdf) at the mid-points of equal-probability
 * bins, or the points themselves for discrete and small empirical ones. The
 * engine hands the result to the policy in place_view.service_dist; the
 * placement core never sees GSL.
 */
#ifndef TARMAC_SIM_GITTINS_INT_H
#define TARMAC_SIM_GITTINS_INT_H

#include <stdint.h>

#include "model/model.h"
#include "place.h"
#include "status.h"

/* Quantile points per parametric distribution, and at most per class. */
#define SIM_GITTINS_QUANTILES  256u
#define SIM_GITTINS_MAX_POINTS 1024u

/* The distributions of every class of a scenario: dist[k] for class k,
 * pointing into value and prob. */
typedef struct sim__gittins {
    uint32_t n_classes;
    place_service_dist *dist;
    double *value, *prob;
} sim__gittins;

/* 1 when a policy specification asks for the class distributions
 * ("tiresias-2dlas ... gittins=class ..."), 0 otherwise. */
int sim__gittins_spec(const char *spec);

/* One class's discretised GPU-service distribution: *n points (at most
 * SIM_GITTINS_MAX_POINTS), values ascending, probabilities summing to 1, in
 * malloc'd arrays the caller frees. TM_ERR_SCENARIO (with a message in diag)
 * for a class without a configured duration distribution (a replayed
 * trace's), TM_ERR_NOMEM. */
int sim__gittins_class(const sim_class_cfg *cc, double **value, double **prob, uint32_t *n,
                       tm_diag *diag);

/* Every class of sc into g (zeroed first); messages name the class. */
int sim__gittins_build(sim__gittins *g, const sim_scenario *sc, tm_diag *diag);
void sim__gittins_fini(sim__gittins *g);

#endif
