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
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

enum { AFF_SAME = 1, AFF_OTHER = 2 };

typedef struct clus {
    place_env env;
    uint8_t *aff; /* per node: AFF_* bits of what runs there */
    uint32_t cap;
    uint32_t *touched;
    uint32_t n_touched, cap_touched;
} clus;

static int clus_create(const place_env *env, const char *args, void **state, char *err,
                       size_t err_len)
{
    if (*args) {
        if (err && err_len)
            snprintf(err, err_len, "placement 'gpu-clustering' takes no arguments, got '%.60s'",
                     args);
        return PLACE_ERR_SPEC;
    }
    clus *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
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
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
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
        uint8_t bit = rj->job.gpu_milli == key ? AFF_SAME : AFF_OTHER;
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

static int clus_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                    const place_fit_ctx *ctx)
{
    clus *s = state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    int rc = mark(s, v, j->gpu_milli);
    if (rc != PLACE_OK) {
        unmark(s);
        return rc;
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
    .fit = clus_fit,
};
