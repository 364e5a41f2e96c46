/* SPDX-License-Identifier: Apache-2.0 */
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
 * A gang that fits no single node spans nodes first-fit if the job allows it.
 *
 * Best node without a scan: a node's best rank (and GPU) depends only on the
 * job's shape and the node's state, so where no backfilling veto is given
 * the fit keeps per job shape (fit_shapes.h) every node's best (class, tie)
 * and a tournament tree over the nodes whose every subtree knows its best
 * node by (class, tie, node index): the root is the scan's answer. A shape,
 * when next used, redoes the nodes the cluster's change journal logged
 * since its last use (O(GPUs + log nodes) each), or rebuilds when the
 * journal cannot say. With a veto, or "placement=gpu-packing:scan" (kept to
 * test against), the scan looks at every candidate node, stopping early
 * where a later node cannot win: O(candidate nodes x GPUs per node) per
 * decision.
 * Source: the GpuPacking baseline of Weng et al., USENIX ATC 2023 (section
 * 6), with the three tiers of its simulator's score.
 *
 * "placement=gpu-packing:k8s" scores as that simulator does (hkust-adsl/
 * kubernetes-scheduler-simulator, pkg/simulator/plugin/gpu_packing_score.go,
 * getPackingScore), integer scores, highest first:
 *   idle node (every GPU fully free, F of them): max(33 - F, F);
 *   the pod would take a fully free GPU of a busy node (the GPUs it takes
 *     are the ones with the least free share that hold it): max(50 - the
 *     fully free GPUs taken, 33);
 *   else (a share on a used GPU): max(100 - (sum of the GPUs' free share
 *     in percent, each truncated) / 10, 50);
 *   a pod without GPU: 0 on every node.
 * Ties (many: every busy node scores the same for a whole-GPU pod, and a
 * share's score moves in steps of 100 milli) go to the reference's node
 * rank (fit_k8s.c); a share takes the node's tightest GPU ("-gpusel best").
 */
#include "fit_shapes.h"
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct packing {
    int k8s;
    int scan; /* "gpu-packing:scan": look at every candidate at every decision */
    place__k8s k;
    place__shapes shapes;
} packing;

static int packing_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len)
{
    int k8s = strcmp(args, "k8s") == 0, scan = strcmp(args, "scan") == 0;
    if (*args && !k8s && !scan) {
        if (err && err_len)
            snprintf(err, err_len,
                     "placement 'gpu-packing': expected no argument, 'k8s' or 'scan', got '%.60s'",
                     args);
        return PLACE_ERR_SPEC;
    }
    packing *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->k8s = k8s;
    s->scan = scan;
    s->k.env = *env;
    *state = s;
    return PLACE_OK;
}

static void packing_destroy(void *state)
{
    packing *s = state;
    if (!s)
        return;
    place_env env = s->k.env;
    place__k8s_fini(&s->k);
    place__shapes_free(&env, &s->shapes);
    place__free(&env, s, sizeof *s);
}

static int packing_begin(void *state, const place_view *v)
{
    packing *s = state;
    return s->k8s ? place__k8s_begin(&s->k, &s->k.env, v->cluster) : PLACE_OK;
}

typedef struct k8s_walk {
    const packing *s;
    const place_cluster *c;
    const place_job *j;
    place__k8s_best b;
} k8s_walk;

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The reference's score of node n for job j (see the header). Cost O(GPUs^2)
 * at most (a selection of the least free GPUs, GPUs <= 64). */
static int64_t k8s_packing_score(const place_cluster *c, uint32_t n, const place_job *j)
{
    if (j->gpus == 0)
        return 0;
    uint32_t g0 = c->node_gpu0[n], ng = c->node_gpus[n], full = 0;
    uint32_t left[PLACE_MAX_GPUS_PER_NODE];
    for (uint32_t g = 0; g < ng; g++) {
        left[g] = c->gpu_up[g0 + g] ? c->gpu_free_milli[g0 + g] : 0;
        full += left[g] == PLACE_MILLI_WHOLE;
    }
    if (full == ng)
        return max64(100 / 3 - (int64_t)full, (int64_t)full);
    /* take GPUs in ascending free share (stable), those that hold the share */
    uint64_t used = 0;
    uint32_t need = j->gpus, full_used = 0;
    int64_t pct = 0;
    while (need > 0) {
        uint32_t pick = PLACE_NONE;
        for (uint32_t g = 0; g < ng; g++)
            if (!((used >> g) & 1u) && left[g] >= j->gpu_milli &&
                (pick == PLACE_NONE || left[g] < left[pick]))
                pick = g;
        if (pick == PLACE_NONE)
            return 0; /* cannot happen for a candidate */
        used |= 1ull << pick;
        need--;
        full_used += left[pick] == PLACE_MILLI_WHOLE;
        pct += (int64_t)left[pick] * 100 / PLACE_MILLI_WHOLE;
    }
    if (full_used > 0)
        return max64(100 / 2 - (int64_t)full_used, 100 / 3);
    return max64(100 - pct / 10, 100 / 2);
}

static void k8s_score(void *ud, uint32_t n, uint32_t g)
{
    k8s_walk *w = ud;
    place__k8s_consider(&w->s->k, &w->b, k8s_packing_score(w->c, n, w->j), n, g);
}

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

/* One shape's kept results over n nodes: key[n] = class << 32 | tie and
 * gpu[n] of the node's best candidate, and win[1 .. 2 p), the tree (p a
 * power of two >= n; leaf of node i at p + i; PLACE_NONE: no candidate). */
typedef struct kept {
    uint64_t *key;
    uint32_t *win;
    uint8_t *gpu;
    uint32_t p;
} kept;

static kept kept_of(void *data, uint32_t n)
{
    kept k;
    k.p = place__tree_width(n);
    k.key = data;
    k.win = (uint32_t *)(k.key + n);
    k.gpu = (uint8_t *)(k.win + 2 * (size_t)k.p);
    return k;
}

static uint32_t tree_better(const kept *k, uint32_t a, uint32_t b)
{
    if (a == PLACE_NONE)
        return b;
    if (b == PLACE_NONE)
        return a;
    return k->key[b] < k->key[a] || (k->key[b] == k->key[a] && b < a) ? b : a;
}

/* Node n's best rank for job j as the scan ranks it, alone, with no veto
 * (the scan's tests of the node included); PLACE_NONE: no candidate. */
static uint32_t leaf(kept *k, const place_cluster *c, const place_job *j, uint32_t n)
{
    uint32_t t = c->node_type[n];
    if (!place_type_ok(c, j, t) || !place_host_ok(c, n, j))
        return PLACE_NONE;
    rank b = {0, 0, PLACE_NONE, 0};
    if (j->gpu_milli < PLACE_MILLI_WHOLE) {
        if (!place_bits_test(&c->any_share[t], n) || c->node_milli_free[n] < j->gpu_milli)
            return PLACE_NONE;
        int idle = -1;
        uint32_t g0 = c->node_gpu0[n];
        for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
            uint32_t f = c->gpu_free_milli[g0 + g];
            if (f < j->gpu_milli)
                continue;
            rank r = {0, f, n, g};
            if (f >= PLACE_MILLI_WHOLE) {
                if (idle < 0)
                    idle = node_idle(c, n);
                r.cls = idle ? 2u : 1u;
                r.tie = idle ? c->node_gpus[n] : 0u;
            }
            if (better(&r, &b) && place_gpu_share_fits(c, n, g, j))
                b = r;
        }
    } else {
        uint32_t f = c->node_free[n];
        if (f < j->gpus || f > c->type_max_gpus[t] || !place_bits_test(&c->by_free[t][f], n))
            return PLACE_NONE;
        int idle = node_idle(c, n);
        b = (rank){idle ? 2u : 1u, idle ? c->node_gpus[n] : 0u, n, 0};
    }
    if (b.node == PLACE_NONE)
        return PLACE_NONE;
    k->key[n] = (uint64_t)b.cls << 32 | b.tie;
    k->gpu[n] = (uint8_t)b.gpu;
    return n;
}

/* The tree of job j's shape, up to date; its root's node (PLACE_NONE: no
 * candidate) in *node, its GPU in *gpu. 0: out of memory. */
static int kept_best(packing *s, const place_cluster *c, const place_job *j, uint32_t *node,
                     uint32_t *gpu)
{
    uint32_t n = c->n_nodes;
    place__shape *sh = place__shape_slot(&s->shapes, j);
    kept k;
    if (place__shape_can_follow(sh, c)) {
        k = kept_of(sh->data, n);
        int dedupe = place__shape_catchup(&s->k.env, &s->shapes, n);
        for (uint64_t q = sh->changes; q < c->changes; q++) {
            uint32_t m = c->change_ring[q % PLACE_CHANGE_RING];
            if (!place__shape_first(&s->shapes, dedupe, m))
                continue;
            uint32_t i = k.p + m;
            k.win[i] = leaf(&k, c, j, m);
            for (i >>= 1; i >= 1; i >>= 1)
                k.win[i] = tree_better(&k, k.win[2 * i], k.win[2 * i + 1]);
        }
    } else {
        uint32_t p = place__tree_width(n);
        size_t size = (size_t)n * sizeof(uint64_t) + 2 * (size_t)p * sizeof(uint32_t) + n;
        if (!place__shape_reserve(&s->k.env, sh, size)) {
            sh->used = 0;
            return 0;
        }
        k = kept_of(sh->data, n);
        for (uint32_t i = 0; i < p; i++)
            k.win[p + i] = i < n ? leaf(&k, c, j, i) : PLACE_NONE;
        for (uint32_t i = p - 1; i >= 1; i--)
            k.win[i] = tree_better(&k, k.win[2 * i], k.win[2 * i + 1]);
        k.win[0] = PLACE_NONE;
    }
    place__shape_synced(sh, c);
    *node = k.win[1];
    *gpu = *node != PLACE_NONE ? k.gpu[*node] : 0;
    return 1;
}

static int packing_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    packing *s = state;
    const place_cluster *c = v->cluster;
    if (s->k8s) {
        k8s_walk w = {s, c, j, PLACE__K8S_BEST_NONE};
        place__k8s_walk(v, j, ctx, k8s_score, &w);
        return place__k8s_decide(v, j, &w.b, d, ctx);
    }
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    rank b = {0, 0, PLACE_NONE, 0};
    if (!s->scan && (!ctx || !ctx->allow) && c->n_nodes > 0 && kept_best(s, c, j, &b.node, &b.gpu))
        goto decided;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            /* Nodes in index order: once the best is a GPU the share fills
             * exactly (class 0, tie = the share), no later node of this type
             * can beat it. A GPU with less free share than the job's cannot
             * take it (place__share_ok), and fully free GPUs cannot beat a
             * class-0 best: neither is ranked. */
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1)) {
                if (b.node != PLACE_NONE && b.cls == 0 && b.tie == j->gpu_milli && n > b.node)
                    break;
                if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                    continue;
                int idle = -1; /* not yet known */
                uint32_t g0 = c->node_gpu0[n];
                for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                    uint32_t f = c->gpu_free_milli[g0 + g];
                    if (f < j->gpu_milli)
                        continue;
                    rank r = {0, f, n, g};
                    if (f >= PLACE_MILLI_WHOLE) {
                        if (b.node != PLACE_NONE && b.cls == 0)
                            continue;
                        if (idle < 0)
                            idle = node_idle(c, n);
                        r.cls = idle ? 2u : 1u;
                        r.tie = idle ? c->node_gpus[n] : 0u;
                    }
                    if (better(&r, &b) && place__share_ok(v, j, n, g, ctx))
                        b = r;
                }
            }
            continue;
        }
        /* a busy node (class 1, no tie) is beaten only by a busy node of
         * lower index: once one is found, the rest of each bucket is not */
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1)) {
                if (b.node != PLACE_NONE && b.cls == 1 && n > b.node)
                    break;
                int idle = node_idle(c, n);
                rank r = {idle ? 2u : 1u, idle ? c->node_gpus[n] : 0u, n, 0};
                if (better(&r, &b) && place__whole_ok(v, j, n, ctx))
                    b = r;
            }
    }
decided:
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
    .create = packing_create,
    .destroy = packing_destroy,
    .begin = packing_begin,
    .fit = packing_fit,
};
