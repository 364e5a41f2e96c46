/*
 * fit_best.c — best-fit: the node the job fills most tightly ("pack").
 *
 * Whole-GPU gangs: the node with the fewest fully free GPUs that is still
 * enough, lowest index among equals (across allowed types too). The index
 * answers it directly: the first non-empty bucket f >= g of any allowed type.
 * Cost: O(buckets x types) word operations, no scan of the nodes.
 * GPU shares: the GPU left with the least free share after placing the job
 * (ties: lowest node, then lowest GPU). That needs every candidate node: cost
 * O(candidate nodes x GPUs per node).
 * A gang that fits no single node spans nodes if the job allows it.
 * Source: best-fit bin packing (Johnson, 1973); the "fewest free GPUs left on
 * the node" rule of GPU schedulers' bin-packing mode.
 */
#include "place_int.h"

static int best_share(const place_view *v, const place_job *j, place_decision *d,
                      const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    uint32_t best = PLACE_NONE, best_gpu = 0, best_left = PLACE_MILLI_WHOLE + 1;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
             n = place_bits_next(&c->any_share[t], n + 1)) {
            if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                continue;
            uint32_t g0 = c->node_gpu0[n];
            for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                if (!place_gpu_share_fits(c, n, g, j))
                    continue;
                uint32_t left = c->gpu_free_milli[g0 + g] - j->gpu_milli;
                if ((left < best_left || (left == best_left && n < best)) &&
                    place__share_ok(v, j, n, g, ctx)) {
                    best_left = left;
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

static int best_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                    const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    if (j->gpu_milli < PLACE_MILLI_WHOLE)
        return best_share(v, j, d, ctx);
    uint64_t types = place__gang_types(c, j);
    uint32_t max_f = 0;
    for (uint64_t m = types; m; m &= m - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(m);
        if (c->type_max_gpus[t] > max_f)
            max_f = c->type_max_gpus[t];
    }
    for (uint32_t f = j->gpus; f <= max_f; f++) {
        uint32_t best = PLACE_NONE;
        for (uint64_t m = types; m; m &= m - 1) {
            uint32_t t = (uint32_t)__builtin_ctzll(m);
            if (f > c->type_max_gpus[t])
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

const place_fit place__fit_best = {
    .name = "best-fit",
    .summary = "node (or GPU) left with the least free capacity after placing the job",
    .flags = PLACE_FIT_PURE,
    .fit = best_fit,
};
