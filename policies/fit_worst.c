/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_worst.c — worst-fit: the node left with the most room ("spread").
 *
 * Whole-GPU gangs: the node with the most fully free GPUs, lowest index among
 * equals (across allowed types too). The index answers it: the highest
 * non-empty bucket of any allowed type. Cost: O(buckets x types) word
 * operations, no scan of the nodes.
 * GPU shares: the GPU with the most free share (ties: lowest node, then
 * lowest GPU); cost O(candidate nodes x GPUs per node).
 * Spreading keeps load (and heat, and the blast radius of a node failure)
 * even, at the price of fragmenting free capacity for large gangs.
 * A gang that fits no single node spans nodes if the job allows it.
 * Source: worst-fit bin packing (Johnson, "Fast algorithms for bin packing",
 * JCSS 8(3), 1974); the "spread" / LeastAllocated scoring of the Kubernetes
 * scheduler.
 */
#include "place_int.h"

static int worst_share(const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    uint32_t best = PLACE_NONE, best_gpu = 0, best_free = 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
             n = place_bits_next(&c->any_share[t], n + 1)) {
            if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                continue;
            uint32_t g0 = c->node_gpu0[n];
            for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                uint32_t f = c->gpu_free_milli[g0 + g];
                if ((best == PLACE_NONE || f > best_free || (f == best_free && n < best)) &&
                    place__share_ok(v, j, n, g, ctx)) {
                    best_free = f;
                    best = n;
                    best_gpu = g;
                }
            }
        }
    }
    if (best == PLACE_NONE)
        return PLACE_ERR_NOFIT;
    place_decide_share(d, j, best, best_gpu);
    return PLACE_OK;
}

static int worst_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                     const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    if (j->gpu_milli < PLACE_MILLI_WHOLE)
        return worst_share(v, j, d, ctx);
    uint32_t max_f = 0;
    for (uint32_t t = 0; t < c->n_types; t++)
        if (place_type_ok(c, j, t) && c->type_max_gpus[t] > max_f)
            max_f = c->type_max_gpus[t];
    for (uint32_t f = max_f; f >= j->gpus && f > 0; f--) {
        uint32_t best = PLACE_NONE;
        for (uint32_t t = 0; t < c->n_types; t++) {
            if (f > c->type_max_gpus[t] || !place_type_ok(c, j, t))
                continue;
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE && n < best;
                 n = place_bits_next(&c->by_free[t][f], n + 1))
                if (place__whole_ok(v, j, n, ctx)) {
                    best = n;
                    break;
                }
        }
        if (best != PLACE_NONE) {
            place_decide_whole(d, j, best);
            return PLACE_OK;
        }
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place_fit_span_first(v, j, d, ctx);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_worst = {
    .name = "worst-fit",
    .summary = "node (or GPU) left with the most free capacity (spread)",
    .flags = PLACE_FIT_PURE,
    .fit = worst_fit,
};
