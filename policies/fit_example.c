/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_example.c — smallest-type: the worked example of README.md "Write your
 * own policy". Keep big GPUs for the jobs that need them.
 *
 * Among the GPU types the job may use, take the one with the least GPU memory
 * that still holds the job (ties: the lower type index), and on it the node
 * best-fit: the fewest fully free GPUs that are still enough, lowest index
 * among equals. A job that asks for 20 GiB per GPU then lands on 24 GiB L4s
 * while 80 GiB H100s stay free for the 70 GiB job behind it.
 * Cost: O(types x buckets) bit-set searches through the free-capacity index;
 * no scan of the nodes. GPU shares, CPU-only jobs and gangs that must span
 * use the library's first-fit helpers.
 * Source: "smallest sufficient resource first", the heterogeneous variant of
 * best-fit bin packing (e.g. Friesen and Langston, "Variable sized bin
 * packing", SIAM J. Computing 15(1), 1986: prefer the smallest bin type that
 * fits).
 *
 * It includes only the public header. A component is one table (name,
 * summary, flags, create, destroy, begin, fit) named place__<something> and
 * one line in registry.c's FITS list; then "placement=smallest-type"
 * selects it in any scenario or `tarmac place` input.
 */
#include "place.h"

/* Node n can take whole-GPU job j now: host room and no backfilling veto. */
static int node_ok(const place_view *v, const place_job *j, uint32_t n, const place_fit_ctx *ctx)
{
    place_part p = {n, (uint16_t)j->gpus, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, j->gpu_mem_mib, 0};
    return place_host_ok(v->cluster, n, j) && place_fit_allowed(ctx, v, j, &p);
}

static int smallest_type_fit(void *state, const place_view *v, const place_job *j,
                             place_decision *d, const place_fit_ctx *ctx)
{
    (void)state; /* a rule without state: create is NULL below */
    const place_cluster *c = v->cluster;
    if (j->gpus == 0 || j->gpu_milli < PLACE_MILLI_WHOLE) /* shares: first-fit */
        return place_fit_find("first-fit")->fit(NULL, v, j, d, ctx);
    uint32_t best_node = PLACE_NONE, best_mem = 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t) || c->type_gpus_free[t] < j->gpus)
            continue;
        if (best_node != PLACE_NONE && c->type_mem_mib[t] >= best_mem)
            continue; /* not smaller than the type already found */
        /* best-fit within t: the first non-empty free-count bucket from j->gpus up */
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++) {
            uint32_t n = place_bits_next(&c->by_free[t][f], 0);
            while (n != PLACE_NONE && !node_ok(v, j, n, ctx))
                n = place_bits_next(&c->by_free[t][f], n + 1);
            if (n != PLACE_NONE) {
                best_node = n;
                best_mem = c->type_mem_mib[t];
                break;
            }
        }
    }
    if (best_node == PLACE_NONE)
        return (j->flags & PLACE_JOB_CAN_SPAN) ? place_fit_span_first(v, j, d, ctx)
                                               : PLACE_ERR_NOFIT;
    place_decide_whole(d, j, best_node);
    return PLACE_OK;
}

const place_fit place__fit_example = {
    .name = "smallest-type",
    .summary = "the allowed GPU type with the least memory that holds the job",
    .flags = PLACE_FIT_PURE, /* no side effect; PLACE_FIT_SCANS if it scored every node */
    .create = NULL,          /* no state, no arguments (a rule with state allocates it here) */
    .destroy = NULL,         /* frees what create allocated */
    .begin = NULL,           /* nothing to prepare per pass */
    .fit = smallest_type_fit,
};
