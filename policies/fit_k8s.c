/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_k8s.c — what the "k8s" modes of the packing fits share: the rules of
 * the FGD paper's simulator (hkust-adsl/kubernetes-scheduler-simulator, a
 * fork of the Kubernetes scheduler framework) that are not any one plugin's.
 *
 *  - Ties. The vendored scheduler's selectHost (vendor/k8s.io/kubernetes/pkg/
 *    scheduler/core/generic_scheduler.go) keeps, among the nodes with the
 *    highest score, the one whose name sorts first; the simulator names
 *    nodes "%04d-" + name with the numbers of one rand.Perm per run
 *    (pkg/simulator/simulator.go, syncClusterResourceList). So a tie goes to
 *    the node of lowest rank in a random permutation drawn once per run.
 *    Here: rank[] is a Fisher-Yates permutation of the nodes drawn with
 *    env->rand when begin() first sees the cluster (again only when its node
 *    count changes), so an instance keeps its ranks for the whole run; with
 *    env->rand NULL the rank is the node index.
 *  - Candidates. Every node that passes the filters is scored, CPU-only pods
 *    included (kube-scheduler scores every feasible node; the Open-Gpu-Share
 *    filter passes a pod without GPU on every node, the CPU filter decides).
 *  - Normalisers. The plugins divide by MaxSpecCpu = 128 cores and
 *    MaxSpecGpu = 8 GPUs (pkg/type/open-gpu-share/utils/const.go), openb's
 *    largest node; here: the largest CPU and GPU capacity of any node.
 *  - GPU choice. Open-Gpu-Share's Reserve takes, for a share, the GPU of the
 *    node that holds it most tightly (allocateGpuIdBasedOnBestFit, the
 *    artifact's default "-gpusel best"; the first among equals) and, for
 *    whole GPUs, the lowest fully free ones (AllocateExclusiveGpuId).
 * Cost: the candidate walk is O(candidate nodes x GPUs per node); drawing the
 * ranks O(nodes), once.
 */
#include "place_int.h"

#include <string.h>

int place__k8s_begin(place__k8s *k, const place_env *env, const place_cluster *c)
{
    k->env = *env;
    int64_t mc = 0, mg = 0;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        if (c->node_cpu_milli[n] > mc)
            mc = c->node_cpu_milli[n];
        if ((int64_t)c->node_gpus[n] * PLACE_MILLI_WHOLE > mg)
            mg = (int64_t)c->node_gpus[n] * PLACE_MILLI_WHOLE;
    }
    k->max_cpu_milli = mc;
    k->max_gpu_milli = mg;
    if (k->n_rank == c->n_nodes && k->rank)
        return PLACE_OK;
    if (place__grow(env, (void **)&k->rank, &k->cap_rank, c->n_nodes ? c->n_nodes : 1,
                    sizeof *k->rank) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    for (uint32_t n = 0; n < c->n_nodes; n++)
        k->rank[n] = n;
    for (uint32_t i = env->rand ? c->n_nodes : 0; i > 1; i--) {
        uint32_t x = (uint32_t)place_rand_below(env, i);
        uint32_t t = k->rank[i - 1];
        k->rank[i - 1] = k->rank[x];
        k->rank[x] = t;
    }
    k->n_rank = c->n_nodes;
    return PLACE_OK;
}

void place__k8s_fini(place__k8s *k)
{
    if (k->rank)
        place__free(&k->env, k->rank, k->cap_rank * sizeof *k->rank);
    memset(k, 0, sizeof *k);
}

uint32_t place__k8s_tightest_gpu(const place_view *v, const place_job *j, uint32_t n,
                                 const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    uint32_t g0 = c->node_gpu0[n], pick = PLACE_NONE, pick_free = 0;
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        if (place__share_ok(v, j, n, g, ctx) &&
            (pick == PLACE_NONE || c->gpu_free_milli[g0 + g] < pick_free)) {
            pick = g;
            pick_free = c->gpu_free_milli[g0 + g];
        }
    return pick;
}

void place__k8s_walk(const place_view *v, const place_job *j, const place_fit_ctx *ctx,
                     void (*fn)(void *ud, uint32_t node, uint32_t gpu), void *ud)
{
    const place_cluster *c = v->cluster;
    if (j->gpus == 0) {
        for (uint32_t n = 0; n < c->n_nodes; n++) {
            if (!c->node_up[n] || !place_host_ok(c, n, j))
                continue;
            place_part p = {n, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
            if (place_fit_allowed(ctx, v, j, &p))
                fn(ud, n, 0);
        }
        return;
    }
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                uint32_t g = place__k8s_tightest_gpu(v, j, n, ctx);
                if (g != PLACE_NONE)
                    fn(ud, n, g);
            }
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1))
                if (place__whole_ok(v, j, n, ctx))
                    fn(ud, n, 0);
    }
}

int place__k8s_decide(const place_view *v, const place_job *j, const place__k8s_best *b,
                      place_decision *d, const place_fit_ctx *ctx)
{
    if (b->node == PLACE_NONE) {
        if (j->gpus > 0 && (j->flags & PLACE_JOB_CAN_SPAN))
            return place_fit_span_first(v, j, d, ctx);
        return PLACE_ERR_NOFIT;
    }
    if (j->gpus == 0) {
        d->parts[0] = (place_part){b->node, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
        d->n_parts = 1;
    } else if (j->gpu_milli < PLACE_MILLI_WHOLE) {
        place_decide_share(d, j, b->node, b->gpu);
    } else {
        place_decide_whole(d, j, b->node);
    }
    return PLACE_OK;
}
