/*
 * fit_first.c — first-fit: the lowest-index node that can take the job.
 *
 * Whole-GPU gangs: for each allowed type, the index gives the first node with
 * enough fully free GPUs (one bit-set search per free-count bucket); the lowest
 * across types wins. Nodes whose host CPU or memory is short are stepped over.
 * Cost: O(types x buckets) word operations, no scan of the nodes.
 * GPU shares: the first node with any free share, then its first GPU with room
 * for the share and its memory. Cost: O(candidate nodes x GPUs per node).
 * A gang that fits no single node spans nodes if the job allows it.
 * Source: the classic first-fit of bin packing (Johnson, 1973), as used for node
 * selection by batch schedulers.
 */
#include "place_int.h"

static int host_ok(const place_cluster *c, uint32_t n, const place_job *j)
{
    return c->node_cpu_free_milli[n] >= j->cpu_milli && c->node_mem_free_mib[n] >= j->host_mem_mib;
}

static int first_fit(const place_view *v, const place_job *j, place_decision *d,
                     const place_env *env)
{
    (void)env;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place__fit_cpu_only(v, j, d);
    uint32_t best = PLACE_NONE, best_gpu = 0;
    if (j->gpu_milli < PLACE_MILLI_WHOLE) {
        for (uint32_t t = 0; t < c->n_types; t++) {
            if (!place__type_ok(c, j, t))
                continue;
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE && n < best;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (!host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                uint32_t g;
                for (g = 0; g < c->node_gpus[n]; g++)
                    if (place__gpu_share_fits(c, n, g, j))
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
        place__decide_share(d, j, best, best_gpu);
        return PLACE_OK;
    }
    for (uint64_t m = place__gang_types(c, j); m; m &= m - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(m);
        uint32_t n = place_cluster_next_free(c, t, j->gpus, 0);
        while (n != PLACE_NONE && n < best && !host_ok(c, n, j))
            n = place_cluster_next_free(c, t, j->gpus, n + 1);
        if (n < best)
            best = n;
    }
    if (best != PLACE_NONE) {
        place__decide_whole(d, j, best);
        return PLACE_OK;
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place__fit_span_first(v, j, d);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_first = {
    "first-fit",
    "lowest-index node (and GPU) with room for the job",
    first_fit,
};
