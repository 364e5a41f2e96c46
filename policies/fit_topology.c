/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_topology.c — topology-aware: a gang on as few nodes as possible.
 *
 * tarmac models one level of topology: GPUs in a node share a fast
 * interconnect, nodes talk over the network. So a gang that fits one node
 * gets one node, chosen best-fit (the fullest node that still holds it),
 * which keeps wholly free nodes for the gangs that need them. A gang that
 * must span (PLACE_JOB_CAN_SPAN, larger than any free node) takes the nodes
 * with the most free GPUs first, which needs the fewest nodes, and its last
 * part goes to the emptiest-fitting node: the one with the fewest free GPUs
 * that still hold the remainder (best-fit again, for the same reason). The
 * type that needs the fewest nodes wins; ties go to the lower type index, and
 * within a bucket to the lower node index.
 * Cost: single node as best-fit (index, no scan); a span walks the buckets
 * from the top, O(parts + buckets) bit-set searches per type.
 * Source: consolidation in Tiresias (Gu et al., NSDI 2019, section 4: place
 * skewed models on as few machines as possible); Amaral et al.,
 * "Topology-aware GPU scheduling for learning workloads in cloud
 * environments", SC 2017.
 */
#include "place_int.h"

/* Span job j over nodes of type t with the fewest parts; PLACE_OK with d set. */
static int span_type(const place_view *v, const place_job *j, uint32_t t, place_decision *d,
                     const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    uint32_t need = j->gpus, np = 0;
    for (uint32_t f = c->type_max_gpus[t]; f >= 1 && need > 0; f--) {
        for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE && need > 0;
             n = place_bits_next(&c->by_free[t][f], n + 1)) {
            if (np == d->cap_parts)
                return PLACE_ERR_NOFIT;
            uint32_t node = n, take = f < need ? f : need;
            if (f > need) {
                /* the last part: the node with the fewest free GPUs >= need; the
                 * buckets below f hold no node taken so far */
                for (uint32_t g = need; g < f && node == n; g++)
                    for (uint32_t m = place_bits_next(&c->by_free[t][g], 0); m != PLACE_NONE;
                         m = place_bits_next(&c->by_free[t][g], m + 1)) {
                        place_part q = {
                            m, (uint16_t)need, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, j->gpu_mem_mib, 0};
                        if (place_fit_allowed(ctx, v, j, &q)) {
                            node = m;
                            break;
                        }
                    }
            }
            place_part *p = &d->parts[np];
            *p = (place_part){
                node, (uint16_t)take, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, j->gpu_mem_mib, 0};
            if (!place_fit_allowed(ctx, v, j, p))
                continue;
            np++;
            need -= take;
        }
    }
    if (need > 0)
        return PLACE_ERR_NOFIT;
    d->n_parts = np;
    return place_cluster_check(c, j, d->parts, np) == PLACE_OK ? PLACE_OK : PLACE_ERR_NOFIT;
}

static int topology_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                        const place_fit_ctx *ctx)
{
    (void)state;
    const place_cluster *c = v->cluster;
    place_job one = *j;
    one.flags &= ~(uint32_t)PLACE_JOB_CAN_SPAN;
    int rc = place__fit_best.fit(NULL, v, &one, d, ctx);
    if (rc != PLACE_ERR_NOFIT || !(j->flags & PLACE_JOB_CAN_SPAN) || j->gpus < 2 ||
        j->gpu_milli < PLACE_MILLI_WHOLE)
        return rc;
    uint32_t best_parts = PLACE_NONE, best_type = PLACE_NONE;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t) || c->type_gpus_free[t] < j->gpus)
            continue;
        if (span_type(v, j, t, d, ctx) == PLACE_OK && d->n_parts < best_parts) {
            best_parts = d->n_parts;
            best_type = t;
        }
    }
    if (best_type == PLACE_NONE)
        return PLACE_ERR_NOFIT;
    return span_type(v, j, best_type, d, ctx);
}

const place_fit place__fit_topology = {
    .name = "topology",
    .summary = "gang on one node (best-fit), else on the fewest nodes of one type",
    .flags = PLACE_FIT_PURE,
    .fit = topology_fit,
};
