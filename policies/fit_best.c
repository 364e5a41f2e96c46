/* SPDX-License-Identifier: Apache-2.0 */
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
 *
 * "placement=best-fit:k8s" scores as the FGD paper's simulator's BestFit
 * (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/
 * best_fit_score.go, getBestFitScore): over the whole node, CPU and total
 * GPU, s = 1/2 (CPU free - CPU asked) / max CPU + 1/2 (GPU free - GPU
 * asked) / max GPU (the largest node's, fit_k8s.c), score int(100 (1 - s)),
 * CPU-only pods too (GPU asked 0); the highest score wins, ties by the
 * reference's node rank (fit_k8s.c); a share takes the node's tightest GPU.
 * Its NormalizeScore (min-max over the nodes to 0..100) keeps the order and
 * the ties of integer scores in 0..100, so it is not repeated here.
 * Cost O(candidate nodes x GPUs per node).
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct bestfit {
    place__k8s k;
} bestfit;

static int best_create(const place_env *env, const char *args, void **state, char *err,
                       size_t err_len)
{
    if (strcmp(args, "k8s") != 0) {
        if (*args) {
            if (err && err_len)
                snprintf(err, err_len,
                         "placement 'best-fit': expected no argument or 'k8s', got '%.60s'", args);
            return PLACE_ERR_SPEC;
        }
        *state = NULL; /* tarmac's rule needs no state */
        return PLACE_OK;
    }
    bestfit *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->k.env = *env;
    *state = s;
    return PLACE_OK;
}

static void best_destroy(void *state)
{
    bestfit *s = state;
    if (!s)
        return;
    place_env env = s->k.env;
    place__k8s_fini(&s->k);
    place__free(&env, s, sizeof *s);
}

static int best_begin(void *state, const place_view *v)
{
    bestfit *s = state;
    return s ? place__k8s_begin(&s->k, &s->k.env, v->cluster) : PLACE_OK;
}

typedef struct k8s_walk {
    const bestfit *s;
    const place_cluster *c;
    const place_job *j;
    place__k8s_best b;
} k8s_walk;

static void k8s_score(void *ud, uint32_t n, uint32_t g)
{
    k8s_walk *w = ud;
    const place_cluster *c = w->c;
    double max_cpu = (double)w->s->k.max_cpu_milli, max_gpu = (double)w->s->k.max_gpu_milli;
    double free_v[2] = {(double)c->node_cpu_free_milli[n], (double)c->node_milli_free[n]};
    double req_v[2] = {(double)w->j->cpu_milli, (double)w->j->gpus * (double)w->j->gpu_milli};
    double max_v[2] = {max_cpu > 0 ? max_cpu : 1, max_gpu > 0 ? max_gpu : 1};
    double sum = 0;
    for (int d = 0; d < 2; d++)
        sum += (free_v[d] - req_v[d]) / max_v[d] * 0.5;
    place__k8s_consider(&w->s->k, &w->b, (int64_t)((1.0 - sum) * 100.0), n, g);
}

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
    const bestfit *s = state;
    const place_cluster *c = v->cluster;
    if (s) {
        k8s_walk w = {s, c, j, PLACE__K8S_BEST_NONE};
        place__k8s_walk(v, j, ctx, k8s_score, &w);
        return place__k8s_decide(v, j, &w.b, d, ctx);
    }
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
    .create = best_create,
    .destroy = best_destroy,
    .begin = best_begin,
    .fit = best_fit,
};
