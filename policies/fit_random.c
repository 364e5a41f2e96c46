/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_random.c — random-fit: a node chosen uniformly among those that can
 * take the job now, and for a share a GPU chosen uniformly among the node's
 * GPUs that can take it.
 *
 * The baseline every placement study needs: what placement achieves with no
 * intelligence at all. Randomness comes only from the host's env->rand
 * (place_rand_below, unbiased), so a run is reproducible from the host's
 * seed; with env->rand NULL the first candidate is taken. Candidates are
 * counted, one is drawn, and the walk is repeated to it, so no memory is
 * needed. A gang that fits no single node spans nodes first-fit if the job
 * allows it (deterministically).
 * Cost: two walks over the candidate nodes per decision (PLACE_FIT_SCANS).
 * Source: the Random-fit baseline of Weng et al., USENIX ATC 2023 (section 6).
 *
 * "placement=random:k8s" is the same rule: the FGD paper's simulator
 * (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/
 * random_score.go) draws one feasible node uniformly in PreScore and scores
 * it 100, every other 0, so no tie arises, pods without GPU included; its
 * GPU for a share is drawn uniformly among those that hold it
 * (allocateGpuIdBasedOnRandomFit, "-gpusel random"). The argument is
 * accepted so that every packing fit has a "k8s" mode.
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

static int random_create(const place_env *env, const char *args, void **state, char *err,
                         size_t err_len)
{
    (void)env;
    *state = NULL;
    if (*args && strcmp(args, "k8s") != 0) {
        if (err && err_len)
            snprintf(err, err_len, "placement 'random': expected no argument or 'k8s', got '%.60s'",
                     args);
        return PLACE_ERR_SPEC;
    }
    return PLACE_OK;
}

/* Walk the candidate nodes of job j; return the count, or the (k+1)-th
 * candidate when stop_at == k (PLACE_NONE = count them all). */
static uint32_t walk(const place_view *v, const place_job *j, const place_fit_ctx *ctx,
                     uint64_t stop_at, uint64_t *count)
{
    const place_cluster *c = v->cluster;
    uint64_t k = 0;
    if (j->gpus == 0) {
        for (uint32_t n = 0; n < c->n_nodes; n++) {
            if (!c->node_up[n] || !place_host_ok(c, n, j))
                continue;
            place_part p = {n, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
            if (!place_fit_allowed(ctx, v, j, &p))
                continue;
            if (k++ == stop_at)
                return n;
        }
        *count = k;
        return PLACE_NONE;
    }
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                uint32_t g;
                for (g = 0; g < c->node_gpus[n]; g++)
                    if (place__share_ok(v, j, n, g, ctx))
                        break;
                if (g == c->node_gpus[n])
                    continue;
                if (k++ == stop_at)
                    return n;
            }
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1))
                if (place__whole_ok(v, j, n, ctx) && k++ == stop_at)
                    return n;
    }
    *count = k;
    return PLACE_NONE;
}

static int random_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                      const place_fit_ctx *ctx)
{
    (void)state;
    const place_env *env = ctx ? ctx->env : NULL;
    uint64_t count = 0;
    walk(v, j, ctx, UINT64_MAX, &count);
    if (count == 0) {
        if (j->gpus > 0 && (j->flags & PLACE_JOB_CAN_SPAN))
            return place_fit_span_first(v, j, d, ctx);
        return PLACE_ERR_NOFIT;
    }
    uint64_t pick = place_rand_below(env, count), unused;
    uint32_t n = walk(v, j, ctx, pick, &unused);
    if (n == PLACE_NONE)
        return PLACE_ERR_NOFIT;
    if (j->gpus == 0) {
        d->parts[0] = (place_part){n, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
        d->n_parts = 1;
        return PLACE_OK;
    }
    if (j->gpu_milli == PLACE_MILLI_WHOLE) {
        place_decide_whole(d, j, n);
        return PLACE_OK;
    }
    const place_cluster *c = v->cluster;
    uint32_t fits = 0;
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        fits += (uint32_t)place__share_ok(v, j, n, g, ctx);
    uint64_t gpick = place_rand_below(env, fits);
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        if (place__share_ok(v, j, n, g, ctx) && gpick-- == 0) {
            place_decide_share(d, j, n, g);
            return PLACE_OK;
        }
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_random = {
    .name = "random",
    .summary = "a node (and GPU) drawn uniformly among those with room (env->rand)",
    .flags = PLACE_FIT_SCANS,
    .create = random_create,
    .fit = random_fit,
};
