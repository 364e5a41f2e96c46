/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_gpu_clustering.c — GPU clustering: put jobs with the same GPU request
 * on the same nodes.
 *
 * A job's "affinity" is its per-GPU request (its share in milli-GPU; 1000 for
 * whole GPUs): tasks of one kind pack into each other's holes, and nodes do
 * not mix shapes that fragment each other. Candidate nodes are ranked by
 * class, smallest first:
 *   0  the node runs only jobs of the same affinity;
 *   1  it runs jobs of this affinity among others;
 *   2  it runs nothing;
 *   3  it runs only jobs of other affinities;
 * then by the node's free GPU share (the fuller node first), then by index.
 * On the chosen node a share takes the GPU it fills best (least free share
 * left, lowest index among equals). What runs where comes from the view's
 * running jobs.
 * It must look at every candidate node and the running set: cost
 * O(running parts + candidate nodes x GPUs per node) per decision
 * (PLACE_FIT_SCANS). A gang that fits no single node spans nodes first-fit if
 * the job allows it.
 * Source: the GpuClustering baseline of Weng et al., USENIX ATC 2023
 * (section 6), with the four tiers of its simulator's score.
 *
 * "placement=gpu-clustering:k8s" scores as that simulator does (hkust-adsl/
 * kubernetes-scheduler-simulator, pkg/simulator/plugin/
 * gpu_clustering_score.go, Score): the affinity is the pod's kind, not its
 * share (pkg/type/open-gpu-share/utils/pod.go, GetGpuAffinityFromPodAnnotation:
 * "share-gpu" for every share, "N-gpu" for N whole GPUs, none for a pod
 * without GPU), a node's affinities are those of the pods on it
 * (pkg/utils/utils.go, GetNodeResourceViaNodeInfo), and the score is
 * 25 (G - free) / G (integer division, G the largest node's GPU capacity:
 * the reference's MaxSpecGpu, 8 GPUs) plus 75 for a node running only this
 * affinity, 50 for this among others, 25 for a node running no GPU pod,
 * 0 for others only; a pod without GPU scores 0 everywhere. The highest
 * score wins, ties by the reference's node rank (fit_k8s.c); a share takes
 * the node's tightest GPU ("-gpusel best").
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

enum { AFF_SAME = 1, AFF_OTHER = 2 };

typedef struct clus {
    place_env env;
    int k8s;
    place__k8s k;
    uint8_t *aff; /* per node: AFF_* bits of what runs there */
    uint32_t cap;
    uint32_t *touched;
    uint32_t n_touched, cap_touched;
} clus;

static int clus_create(const place_env *env, const char *args, void **state, char *err,
                       size_t err_len)
{
    int k8s = strcmp(args, "k8s") == 0;
    if (*args && !k8s) {
        if (err && err_len)
            snprintf(err, err_len,
                     "placement 'gpu-clustering': expected no argument or 'k8s', got '%.60s'",
                     args);
        return PLACE_ERR_SPEC;
    }
    clus *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->k8s = k8s;
    s->k.env = *env;
    *state = s;
    return PLACE_OK;
}

static void clus_destroy(void *state)
{
    clus *s = state;
    if (!s)
        return;
    place__free(&s->env, s->aff, s->cap);
    place__free(&s->env, s->touched, s->cap_touched * sizeof *s->touched);
    place__k8s_fini(&s->k);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

/* A job's affinity: its share (tarmac's rule), or in k8s mode its kind (0
 * for every share, the GPU count for whole GPUs). */
static uint32_t affinity(const clus *s, const place_job *j)
{
    if (!s->k8s)
        return j->gpu_milli;
    return j->gpu_milli < PLACE_MILLI_WHOLE ? 0 : j->gpus;
}

static int clus_begin(void *state, const place_view *v)
{
    clus *s = state;
    return s->k8s ? place__k8s_begin(&s->k, &s->env, v->cluster) : PLACE_OK;
}

/* Mark every node with what runs on it, relative to affinity `key`. */
static int mark(clus *s, const place_view *v, uint32_t key)
{
    const place_cluster *c = v->cluster;
    if (c->n_nodes > s->cap) {
        uint32_t old = s->cap;
        if (place__grow(&s->env, (void **)&s->aff, &s->cap, c->n_nodes, 1) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        memset(s->aff + old, 0, s->cap - old);
    }
    s->n_touched = 0;
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        if (rj->job.gpus == 0)
            continue; /* a pod without GPU has no affinity */
        uint8_t bit = affinity(s, &rj->job) == key ? AFF_SAME : AFF_OTHER;
        for (uint32_t k = 0; k < rj->n_parts; k++) {
            uint32_t n = rj->parts[k].node;
            if (n >= c->n_nodes || rj->parts[k].gpus == 0)
                continue;
            if (!s->aff[n]) {
                if (place__grow(&s->env, (void **)&s->touched, &s->cap_touched, s->n_touched + 1,
                                sizeof *s->touched))
                    return PLACE_ERR_NOMEM;
                s->touched[s->n_touched++] = n;
            }
            s->aff[n] |= bit;
        }
    }
    return PLACE_OK;
}

static void unmark(clus *s)
{
    for (uint32_t k = 0; k < s->n_touched; k++)
        s->aff[s->touched[k]] = 0;
    s->n_touched = 0;
}

static uint32_t class_of(uint8_t a)
{
    switch (a) {
    case AFF_SAME:
        return 0;
    case AFF_SAME | AFF_OTHER:
        return 1;
    case 0:
        return 2;
    default:
        return 3;
    }
}

typedef struct rank {
    uint32_t cls, free, node;
} rank;

static int better(const rank *a, const rank *b)
{
    if (b->node == PLACE_NONE)
        return 1;
    if (a->cls != b->cls)
        return a->cls < b->cls;
    if (a->free != b->free)
        return a->free < b->free;
    return a->node < b->node;
}

/* The GPU of node n a share fills best; PLACE_NONE if none may take it. */
static uint32_t best_gpu(const place_view *v, const place_job *j, uint32_t n,
                         const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    uint32_t g0 = c->node_gpu0[n], bg = PLACE_NONE, left = 0;
    for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
        if (!place_gpu_share_fits(c, n, g, j))
            continue;
        uint32_t l = c->gpu_free_milli[g0 + g] - j->gpu_milli;
        if ((bg == PLACE_NONE || l < left) && place__share_ok(v, j, n, g, ctx)) {
            bg = g;
            left = l;
        }
    }
    return bg;
}

typedef struct k8s_walk {
    const clus *s;
    const place_cluster *c;
    place__k8s_best b;
} k8s_walk;

static void k8s_score(void *ud, uint32_t n, uint32_t g)
{
    k8s_walk *w = ud;
    int64_t max = w->s->k.max_gpu_milli > 0 ? w->s->k.max_gpu_milli : 1;
    int64_t score = 25 * (max - (int64_t)w->c->node_milli_free[n]) / max +
                    25 * (3 - (int64_t)class_of(w->s->aff[n]));
    place__k8s_consider(&w->s->k, &w->b, score, n, g);
}

static void k8s_zero(void *ud, uint32_t n, uint32_t g)
{
    k8s_walk *w = ud;
    place__k8s_consider(&w->s->k, &w->b, 0, n, g);
}

static int clus_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                    const place_fit_ctx *ctx)
{
    clus *s = state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0 && !s->k8s)
        return place_fit_cpu_only(v, j, d, ctx);
    int rc = j->gpus ? mark(s, v, affinity(s, j)) : PLACE_OK;
    if (rc != PLACE_OK) {
        unmark(s);
        return rc;
    }
    if (s->k8s) {
        /* a pod without GPU scores 0 everywhere: the node rank decides */
        k8s_walk w = {s, c, PLACE__K8S_BEST_NONE};
        if (j->gpus)
            place__k8s_walk(v, j, ctx, k8s_score, &w);
        else
            place__k8s_walk(v, j, ctx, k8s_zero, &w);
        unmark(s);
        return place__k8s_decide(v, j, &w.b, d, ctx);
    }
    rank b = {0, 0, PLACE_NONE};
    uint32_t b_gpu = 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                rank r = {class_of(s->aff[n]), c->node_milli_free[n], n};
                if (!better(&r, &b))
                    continue;
                uint32_t g = best_gpu(v, j, n, ctx);
                if (g != PLACE_NONE) {
                    b = r;
                    b_gpu = g;
                }
            }
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1)) {
                rank r = {class_of(s->aff[n]), c->node_milli_free[n], n};
                if (better(&r, &b) && place__whole_ok(v, j, n, ctx))
                    b = r;
            }
    }
    unmark(s);
    if (b.node != PLACE_NONE) {
        if (j->gpu_milli < PLACE_MILLI_WHOLE)
            place_decide_share(d, j, b.node, b_gpu);
        else
            place_decide_whole(d, j, b.node);
        return PLACE_OK;
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place_fit_span_first(v, j, d, ctx);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_gpu_clustering = {
    .name = "gpu-clustering",
    .summary = "nodes running jobs of the same GPU request first, then mixed, idle, other",
    .flags = PLACE_FIT_SCANS,
    .create = clus_create,
    .destroy = clus_destroy,
    .begin = clus_begin,
    .fit = clus_fit,
};
