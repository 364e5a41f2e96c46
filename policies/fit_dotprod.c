/* SPDX-License-Identifier: Apache-2.0 */
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
 * Ties go to the lowest node index, then GPU index. A gang that fits no
 * single node spans nodes first-fit if the job allows it.
 *
 * Best node without a scan: a node's score (and best GPU) depends only on
 * the job's shape and the node's state, so where no backfilling veto is
 * given the fit keeps per job shape (fit_shapes.h) every node's score and a
 * tournament tree over the nodes whose every subtree knows its best node by
 * (score, node index): the root is the scan's answer. A shape, when next
 * used, rescores the nodes the cluster's change journal logged since its
 * last use and replays their paths (O(GPUs + log nodes) each), or rebuilds
 * when the journal cannot say. With a veto, or "placement=dotprod:scan"
 * (kept to test against), every candidate node is scored: O(candidate
 * nodes x GPUs per node) per decision.
 * Source: the DotProd baseline of Weng et al., USENIX ATC 2023 (section 6,
 * after Tetris: Grandl et al., "Multi-resource packing for cluster
 * schedulers", SIGCOMM 2014), in the form their simulator scores it (the
 * smaller the dot product of free and demanded resources, the better).
 *
 * "placement=dotprod:k8s" scores as that simulator's experiments do instead
 * (hkust-adsl/kubernetes-scheduler-simulator, plugin/dot_product_score.go
 * with the artifact's settings "-gpusel best -dimext merge -norm max"): two
 * dimensions, host CPU and the node's total free GPU share, both divided by
 * the largest node's (here: the largest CPU and GPU capacity of any node of
 * the cluster; the simulator's constants, 128 cores and 8 GPUs, are openb's
 * largest node), and the node's score is int(100 (1 - dot / 2)); the highest
 * score wins and equal scores go to the reference's node rank (fit_k8s.c:
 * the simulator's selectHost keeps the first node name, and names come from
 * one random permutation per run). A share goes to the node's tightest GPU
 * that holds it ("best"), whole GPUs to the lowest fully free ones. A pod
 * without GPU is scored too, its GPU dimension 0 (the reference scores every
 * feasible node for every pod; tarmac's own rule places it first-fit). Host
 * memory is not scored (the reference has no memory dimension); it still
 * must fit.
 */
#include "fit_shapes.h"
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct dotprod {
    place_env env;
    int k8s;
    int scan; /* "dotprod:scan": score every candidate at every decision */
    place__k8s k;
    place__shapes shapes;
} dotprod;

static int dotprod_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len)
{
    int k8s = strcmp(args, "k8s") == 0, scan = strcmp(args, "scan") == 0;
    if (*args && !k8s && !scan) {
        if (err && err_len)
            snprintf(err, err_len,
                     "placement 'dotprod': expected no argument, 'k8s' or 'scan', got '%.60s'",
                     args);
        return PLACE_ERR_SPEC;
    }
    dotprod *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->k8s = k8s;
    s->scan = scan;
    s->k.env = *env;
    *state = s;
    return PLACE_OK;
}

static void dotprod_destroy(void *state)
{
    dotprod *s = state;
    if (!s)
        return;
    place_env env = s->env;
    place__k8s_fini(&s->k);
    place__shapes_free(&env, &s->shapes);
    place__free(&env, s, sizeof *s);
}

static int dotprod_begin(void *state, const place_view *v)
{
    dotprod *s = state;
    return s->k8s ? place__k8s_begin(&s->k, &s->env, v->cluster) : PLACE_OK;
}

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

static int64_t k8s_score(double cpu_free, double gpu_free, double cpu_req, double gpu_req,
                         double max_cpu, double max_gpu)
{
    /* the reference's order of operations: normalise each vector, dot, mean
     * over the two dimensions, 1 - it, times 100, truncated */
    double nc = max_cpu > 0 ? cpu_free / max_cpu : 0, ng = max_gpu > 0 ? gpu_free / max_gpu : 0;
    double pc = max_cpu > 0 ? cpu_req / max_cpu : 0, pg = max_gpu > 0 ? gpu_req / max_gpu : 0;
    double dot = nc * pc + ng * pg;
    return (int64_t)(100.0 * (1.0 - dot / 2.0));
}

typedef struct scorer {
    const dotprod *s;
    const place_view *v;
    const place_job *j;
    const place_fit_ctx *ctx;
    int share;          /* a GPU share (else whole GPUs) */
    best b;             /* exact */
    place__k8s_best kb; /* k8s mode */
} scorer;

/* k8s mode: node n (its GPU g for a share) scored as the reference does. */
static void k8s_node(void *ud, uint32_t n, uint32_t g)
{
    scorer *sc = ud;
    const place_cluster *c = sc->v->cluster;
    const place_job *j = sc->j;
    int64_t score = k8s_score((double)c->node_cpu_free_milli[n], (double)c->node_milli_free[n],
                              (double)j->cpu_milli, (double)j->gpus * (double)j->gpu_milli,
                              (double)sc->s->k.max_cpu_milli, (double)sc->s->k.max_gpu_milli);
    place__k8s_consider(&sc->s->k, &sc->kb, score, n, g);
}

/* Score candidate node n (exact rule): per GPU a share could take. */
static void score_node(scorer *sc, uint32_t n)
{
    const place_cluster *c = sc->v->cluster;
    const place_job *j = sc->j;
    double h = host_score(c, n, j);
    if (sc->share) {
        uint32_t g0 = c->node_gpu0[n];
        for (uint32_t g = 0; g < c->node_gpus[n]; g++)
            if (place__share_ok(sc->v, j, n, g, sc->ctx))
                consider(&sc->b,
                         h + ratio(c->gpu_free_milli[g0 + g], PLACE_MILLI_WHOLE) *
                                 ratio(j->gpu_milli, PLACE_MILLI_WHOLE),
                         n, g);
        return;
    }
    int64_t cap = (int64_t)c->node_gpus[n] * PLACE_MILLI_WHOLE;
    consider(&sc->b,
             h + ratio(c->node_milli_free[n], cap) * ratio((int64_t)j->gpus * j->gpu_milli, cap), n,
             0);
}

/* One shape's kept results over n nodes: score[n] and gpu[n] (a node that
 * is no candidate has none in the tree), and win[1 .. 2 p), the tree (p a
 * power of two >= n; leaf of node i at p + i; PLACE_NONE: no candidate). */
typedef struct kept {
    double *score;
    uint32_t *win;
    uint8_t *gpu;
    uint32_t p;
} kept;

static kept kept_of(void *data, uint32_t n)
{
    kept k;
    k.p = place__tree_width(n);
    k.score = data;
    k.win = (uint32_t *)(k.score + n);
    k.gpu = (uint8_t *)(k.win + 2 * (size_t)k.p);
    return k;
}

static uint32_t better(const kept *k, uint32_t a, uint32_t b)
{
    if (a == PLACE_NONE)
        return b;
    if (b == PLACE_NONE)
        return a;
    return k->score[b] < k->score[a] || (k->score[b] == k->score[a] && b < a) ? b : a;
}

/* Node n's leaf for job j: what score_node would make of it, alone, with no
 * veto (the scan's tests of the node included). */
static uint32_t leaf(kept *k, const place_view *v, const place_job *j, uint32_t n)
{
    const place_cluster *c = v->cluster;
    uint32_t t = c->node_type[n];
    if (!place_type_ok(c, j, t) || !place_host_ok(c, n, j))
        return PLACE_NONE;
    scorer sc = {NULL,
                 v,
                 j,
                 NULL,
                 j->gpu_milli < PLACE_MILLI_WHOLE,
                 {0, PLACE_NONE, 0},
                 PLACE__K8S_BEST_NONE};
    if (sc.share) {
        if (!place_bits_test(&c->any_share[t], n) || c->node_milli_free[n] < j->gpu_milli)
            return PLACE_NONE;
    } else {
        uint32_t f = c->node_free[n];
        if (f < j->gpus || f > c->type_max_gpus[t] || !place_bits_test(&c->by_free[t][f], n))
            return PLACE_NONE;
    }
    score_node(&sc, n);
    if (sc.b.node == PLACE_NONE)
        return PLACE_NONE;
    k->score[n] = sc.b.score;
    k->gpu[n] = (uint8_t)sc.b.gpu;
    return n;
}

/* The tree of job j's shape, up to date; its root's node (PLACE_NONE: no
 * candidate) in *node, its GPU in *gpu. 0: out of memory. */
static int kept_best(dotprod *s, const place_view *v, const place_job *j, uint32_t *node,
                     uint32_t *gpu)
{
    const place_cluster *c = v->cluster;
    uint32_t n = c->n_nodes;
    place__shape *sh = place__shape_slot(&s->shapes, j);
    kept k;
    if (place__shape_can_follow(sh, c)) {
        k = kept_of(sh->data, n);
        int dedupe = place__shape_catchup(&s->env, &s->shapes, n);
        for (uint64_t q = sh->changes; q < c->changes; q++) {
            uint32_t m = c->change_ring[q % PLACE_CHANGE_RING];
            if (!place__shape_first(&s->shapes, dedupe, m))
                continue;
            uint32_t i = k.p + m;
            k.win[i] = leaf(&k, v, j, m);
            for (i >>= 1; i >= 1; i >>= 1)
                k.win[i] = better(&k, k.win[2 * i], k.win[2 * i + 1]);
        }
    } else {
        uint32_t p = place__tree_width(n);
        size_t size = (size_t)n * sizeof(double) + 2 * (size_t)p * sizeof(uint32_t) + n;
        if (!place__shape_reserve(&s->env, sh, size)) {
            sh->used = 0;
            return 0;
        }
        k = kept_of(sh->data, n);
        for (uint32_t i = 0; i < p; i++)
            k.win[p + i] = i < n ? leaf(&k, v, j, i) : PLACE_NONE;
        for (uint32_t i = p - 1; i >= 1; i--)
            k.win[i] = better(&k, k.win[2 * i], k.win[2 * i + 1]);
        k.win[0] = PLACE_NONE;
    }
    place__shape_synced(sh, c);
    *node = k.win[1];
    *gpu = *node != PLACE_NONE ? k.gpu[*node] : 0;
    return 1;
}

static int dotprod_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    dotprod *s = state;
    const place_cluster *c = v->cluster;
    scorer sc = {
        s, v, j, ctx, j->gpu_milli < PLACE_MILLI_WHOLE, {0, PLACE_NONE, 0}, PLACE__K8S_BEST_NONE};
    if (s->k8s) {
        place__k8s_walk(v, j, ctx, k8s_node, &sc);
        return place__k8s_decide(v, j, &sc.kb, d, ctx);
    }
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    if (!s->scan && (!ctx || !ctx->allow) && c->n_nodes > 0 &&
        kept_best(s, v, j, &sc.b.node, &sc.b.gpu))
        goto decided;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (sc.share) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1))
                if (place_host_ok(c, n, j) && c->node_milli_free[n] >= j->gpu_milli)
                    score_node(&sc, n);
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1))
                if (place__whole_ok(v, j, n, ctx))
                    score_node(&sc, n);
    }
decided:;
    uint32_t node = sc.b.node, gpu = sc.b.gpu;
    if (node != PLACE_NONE) {
        if (sc.share)
            place_decide_share(d, j, node, gpu);
        else
            place_decide_whole(d, j, node);
        return PLACE_OK;
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place_fit_span_first(v, j, d, ctx);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_dotprod = {
    .name = "dotprod",
    .summary = "smallest dot product of free resources and demand (Tetris-style packing)",
    .flags = PLACE_FIT_SCANS,
    .create = dotprod_create,
    .destroy = dotprod_destroy,
    .begin = dotprod_begin,
    .fit = dotprod_fit,
};
