/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_hetero.c — heterogeneity-aware: the GPU type on which this job runs
 * fastest, among the types that can take it now.
 *
 * place_job.speed[t] is the job's throughput on type t relative to the
 * reference (Gavel's "effective throughput" per GPU; for a gang the same
 * factor applies to all its GPUs, so comparing speed[t] compares the gang's
 * throughput); a speed <= 0 is unknown and counts as 1, as the engine runs it. Types are tried from
 * the fastest down (ties: lower type index); on the first type with room, the node is chosen
 * best-fit (fewest free GPUs, then lowest index), and a gang that may span does so within that
 * type. Without speeds every type is as good as another and the rule is best-fit over all types.
 * Gavel itself solves an allocation LP over time shares per round; this is
 * its placement-time greedy counterpart: each job, when placed, gets the
 * accelerator on which its effective throughput is highest.
 * Cost: O(types log types) to order the types, then best-fit's index lookups
 * per type tried.
 * Source: Narayanan et al., "Heterogeneity-aware cluster scheduling policies
 * for deep learning workloads", OSDI 2020 (Gavel).
 */
#include "place_int.h"

static int hetero_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                      const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    if (!j->speed)
        return place__fit_best.fit(NULL, v, j, d, ctx);
    /* types by speed, descending, lower index first among equals (insertion
     * sort: at most 64 types) */
    uint32_t order[PLACE_MAX_TYPES], n = 0;
    double sp[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        sp[t] = j->speed[t] > 0 ? j->speed[t] : 1.0;
        uint32_t k = n++;
        while (k > 0 && sp[order[k - 1]] < sp[t]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = t;
    }
    for (uint32_t i = 0; i < n; i++) {
        place_job one = *j;
        one.type_mask = 1ull << order[i];
        int rc = place__fit_best.fit(NULL, v, &one, d, ctx);
        if (rc != PLACE_ERR_NOFIT)
            return rc;
    }
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_hetero = {
    .name = "hetero",
    .summary = "fastest allowed GPU type for the job (Gavel), best-fit within the type",
    .flags = PLACE_FIT_PURE,
    .fit = hetero_fit,
};
