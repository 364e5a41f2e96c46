/*
 * fit_gpu_packing.c — GPU packing: fill GPUs that are already in use, then
 * nodes that are already in use, and only then idle nodes.
 *
 * A candidate is ranked by (class, tie, node, GPU), smallest first:
 *   class 0  a share on a GPU that is already partly used; tie: the GPU's free
 *            share (the fullest GPU first);
 *   class 1  fully free GPUs of a node that already runs something; tie: none
 *            (lowest node index);
 *   class 2  an idle node (every GPU in service fully free); tie: the node's
 *            GPU count (smaller nodes first, keeping big ones whole).
 * So shares stack on shared GPUs, gangs go where work already is, and idle
 * nodes stay idle as long as possible.
 * It must look at every candidate node: cost O(candidate nodes x GPUs per
 * node) per decision (PLACE_FIT_SCANS). A gang that fits no single node spans
 * nodes first-fit if the job allows it.
 * Source: the GpuPacking baseline of Weng et al., USENIX ATC 2023 (section
 * 6), with the three tiers of its simulator's score.
 */
#include "place_int.h"

typedef struct rank {
    uint32_t cls, tie, node, gpu;
} rank;

static int better(const rank *a, const rank *b)
{
    if (b->node == PLACE_NONE)
        return 1;
    if (a->cls != b->cls)
        return a->cls < b->cls;
    if (a->tie != b->tie)
        return a->tie < b->tie;
    if (a->node != b->node)
        return a->node < b->node;
    return a->gpu < b->gpu;
}

/* Every GPU of node n that is in service is fully free. */
static int node_idle(const place_cluster *c, uint32_t n)
{
    uint32_t up = 0, g0 = c->node_gpu0[n];
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        up += c->gpu_up[g0 + g];
    return c->node_free[n] == up;
}

static int packing_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    rank b = {0, 0, PLACE_NONE, 0};
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                int idle = node_idle(c, n);
                uint32_t g0 = c->node_gpu0[n];
                for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                    uint32_t f = c->gpu_free_milli[g0 + g];
                    rank r = {f < PLACE_MILLI_WHOLE ? 0u
                              : idle                ? 2u
                                                    : 1u,
                              f < PLACE_MILLI_WHOLE ? f
                              : idle                ? c->node_gpus[n]
                                                    : 0u,
                              n, g};
                    if (better(&r, &b) && place__share_ok(v, j, n, g, ctx))
                        b = r;
                }
            }
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1)) {
                int idle = node_idle(c, n);
                rank r = {idle ? 2u : 1u, idle ? c->node_gpus[n] : 0u, n, 0};
                if (better(&r, &b) && place__whole_ok(v, j, n, ctx))
                    b = r;
            }
    }
    if (b.node != PLACE_NONE) {
        if (j->gpu_milli < PLACE_MILLI_WHOLE)
            place_decide_share(d, j, b.node, b.gpu);
        else
            place_decide_whole(d, j, b.node);
        return PLACE_OK;
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place_fit_span_first(v, j, d, ctx);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_gpu_packing = {
    .name = "gpu-packing",
    .summary = "shared GPUs first, then busy nodes, then idle nodes (smallest first)",
    .flags = PLACE_FIT_SCANS,
    .fit = packing_fit,
};
