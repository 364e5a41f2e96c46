/*
 * fit_dotprod.c — dot-product packing: the node whose free resources, as a
 * vector, have the smallest dot product with the job's demand.
 *
 * Dimensions are host CPU, host memory and GPU, each normalised by the node's
 * capacity: score = sum_d (free_d / cap_d) x (demand_d / cap_d). A small
 * score means the node has little of what the job asks for left, so the job
 * packs tightly where its shape matches the hole. Whole-GPU gangs count the
 * GPU dimension as the node's total free share; a GPU share is scored per GPU
 * (the GPU dimension is that GPU's free share), which also picks the GPU.
 * Ties go to the lowest node index, then GPU index.
 * It must score every candidate node: cost O(candidate nodes x GPUs per node)
 * per decision (PLACE_FIT_SCANS). A gang that fits no single node spans nodes
 * first-fit if the job allows it.
 * Source: the DotProd baseline of Weng et al., USENIX ATC 2023 (section 6,
 * after Tetris: Grandl et al., "Multi-resource packing for cluster
 * schedulers", SIGCOMM 2014), in the form their simulator scores it (the
 * smaller the dot product of free and demanded resources, the better).
 */
#include "place_int.h"

static double ratio(int64_t a, int64_t cap)
{
    return cap > 0 ? (double)a / (double)cap : 0.0;
}

/* The host part of the score of node n for job j. */
static double host_score(const place_cluster *c, uint32_t n, const place_job *j)
{
    int64_t cc = c->node_cpu_milli[n], mc = c->node_mem_mib[n];
    return ratio(c->node_cpu_free_milli[n], cc) * ratio(j->cpu_milli, cc) +
           ratio(c->node_mem_free_mib[n], mc) * ratio(j->host_mem_mib, mc);
}

typedef struct best {
    double score;
    uint32_t node, gpu;
} best;

static void consider(best *b, double score, uint32_t node, uint32_t gpu)
{
    if (b->node == PLACE_NONE || score < b->score ||
        (score == b->score && (node < b->node || (node == b->node && gpu < b->gpu)))) {
        b->score = score;
        b->node = node;
        b->gpu = gpu;
    }
}

static int dotprod_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    best b = {0, PLACE_NONE, 0};
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                double h = host_score(c, n, j);
                uint32_t g0 = c->node_gpu0[n];
                for (uint32_t g = 0; g < c->node_gpus[n]; g++)
                    if (place__share_ok(v, j, n, g, ctx))
                        consider(&b,
                                 h + ratio(c->gpu_free_milli[g0 + g], PLACE_MILLI_WHOLE) *
                                         ratio(j->gpu_milli, PLACE_MILLI_WHOLE),
                                 n, g);
            }
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1)) {
                if (!place__whole_ok(v, j, n, ctx))
                    continue;
                int64_t cap = (int64_t)c->node_gpus[n] * PLACE_MILLI_WHOLE;
                consider(&b,
                         host_score(c, n, j) + ratio(c->node_milli_free[n], cap) *
                                                   ratio((int64_t)j->gpus * j->gpu_milli, cap),
                         n, 0);
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

const place_fit place__fit_dotprod = {
    "dotprod",
    "smallest dot product of free resources and demand (Tetris-style packing)",
    PLACE_FIT_SCANS,
    NULL,
    NULL,
    NULL,
    dotprod_fit,
};
