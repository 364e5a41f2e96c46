/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_first.c — first-fit: the lowest-index node that can take the job.
 *
 * Whole-GPU gangs: for each allowed type, the index gives the first node with
 * enough fully free GPUs (one bit-set search per free-count bucket); the lowest
 * across types wins. Nodes whose host CPU or memory is short, or that the
 * backfilling rule vetoes, are stepped over. Cost: O(types x buckets) word
 * operations, no scan of the nodes.
 * GPU shares: the first node with any free share, then its first GPU with room
 * for the share and its memory. Cost: O(candidate nodes x GPUs per node).
 * A gang that fits no single node spans nodes if the job allows it.
 * Source: the classic first-fit of bin packing (Johnson, "Near-optimal bin
 * packing algorithms", MIT, 1973), as used for node selection by batch schedulers.
 */
#include "place_int.h"

static int first_share(const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    uint32_t best = PLACE_NONE, best_gpu = 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE && n < best;
             n = place_bits_next(&c->any_share[t], n + 1)) {
            if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                continue;
            uint32_t g;
            for (g = 0; g < c->node_gpus[n]; g++)
                if (place__share_ok(v, j, n, g, ctx))
                    break;
            if (g < c->node_gpus[n]) {
                best = n;
                best_gpu = g;
                break;
            }
        }
    }
    if (best == PLACE_NONE)
        return PLACE_ERR_NOFIT;
    place_decide_share(d, j, best, best_gpu);
    return PLACE_OK;
}

static int first_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                     const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    if (j->gpu_milli < PLACE_MILLI_WHOLE)
        return first_share(v, j, d, ctx);
    uint32_t best = PLACE_NONE;
    for (uint64_t m = place__gang_types(c, j); m; m &= m - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(m);
        uint32_t n = place_cluster_next_free(c, t, j->gpus, 0);
        while (n != PLACE_NONE && n < best && !place__whole_ok(v, j, n, ctx))
            n = place_cluster_next_free(c, t, j->gpus, n + 1);
        if (n < best)
            best = n;
    }
    if (best != PLACE_NONE) {
        place_decide_whole(d, j, best);
        return PLACE_OK;
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place_fit_span_first(v, j, d, ctx);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_first = {
    .name = "first-fit",
    .summary = "lowest-index node (and GPU) with room for the job",
    .flags = PLACE_FIT_PURE,
    .fit = first_fit,
};
