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
 *
 * "placement=dotprod:k8s" scores as that simulator's experiments do instead
 * (hkust-adsl/kubernetes-scheduler-simulator, plugin/dot_product_score.go
 * with the artifact's settings "-gpusel best -dimext merge -norm max"): two
 * dimensions, host CPU and the node's total free GPU share, both divided by
 * the largest node's (here: the largest CPU and GPU capacity of any node of
 * the cluster; the simulator's constants, 128 cores and 8 GPUs, are openb's
 * largest node), and the node's score is int(100 (1 - dot / 2)); the highest
 * score wins and equal scores are drawn uniformly among the nodes that have
 * them (env->rand; the Kubernetes scheduler's selectHost). A share goes to
 * the node's tightest GPU that holds it ("best"), whole GPUs to the lowest
 * fully free ones. Host memory is not scored (the reference has no memory
 * dimension); it still must fit.
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct dotprod {
    place_env env;
    int k8s;
} dotprod;

static int dotprod_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len)
{
    int k8s = strcmp(args, "k8s") == 0;
    if (*args && !k8s) {
        if (err && err_len)
            snprintf(err, err_len,
                     "placement 'dotprod': expected no argument or 'k8s', got '%.60s'", args);
        return PLACE_ERR_SPEC;
    }
    dotprod *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    s->env = *env;
    s->k8s = k8s;
    *state = s;
    return PLACE_OK;
}

static void dotprod_destroy(void *state)
{
    dotprod *s = state;
    if (!s)
        return;
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
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

/* k8s mode: the largest CPU and GPU capacity of a node, the normalisers */
typedef struct k8s_best {
    int64_t score;
    uint32_t node, gpu;
    uint64_t n_top; /* nodes seen with that score */
} k8s_best;

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

static void k8s_consider(const dotprod *s, k8s_best *b, int64_t score, uint32_t node, uint32_t gpu)
{
    if (b->node == PLACE_NONE || score > b->score) {
        *b = (k8s_best){score, node, gpu, 1};
        return;
    }
    /* without a random source the first seen stays */
    if (score == b->score && s->env.rand && place_rand_below(&s->env, ++b->n_top) == 0) {
        b->node = node;
        b->gpu = gpu;
    }
}

/* The tightest GPU of node n with room for the share (the lowest index among
 * equals), or PLACE_NONE. */
static uint32_t tightest_gpu(const place_view *v, const place_job *j, uint32_t n,
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

/* The largest CPU and whole-GPU capacity of any node (k8s mode's normalisers). */
static void largest_node(const place_cluster *c, double *max_cpu, double *max_gpu)
{
    int64_t mc = 0, mg = 0;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        if (c->node_cpu_milli[n] > mc)
            mc = c->node_cpu_milli[n];
        if ((int64_t)c->node_gpus[n] * PLACE_MILLI_WHOLE > mg)
            mg = (int64_t)c->node_gpus[n] * PLACE_MILLI_WHOLE;
    }
    *max_cpu = (double)mc;
    *max_gpu = (double)mg;
}

typedef struct scorer {
    const dotprod *s;
    const place_view *v;
    const place_job *j;
    const place_fit_ctx *ctx;
    int share;               /* a GPU share (else whole GPUs) */
    double max_cpu, max_gpu; /* k8s mode */
    best b;                  /* exact */
    k8s_best kb;             /* k8s mode */
} scorer;

/* Score candidate node n: per GPU a share could take (exact), or the node
 * with its tightest GPU for a share (k8s). */
static void score_node(scorer *sc, uint32_t n)
{
    const place_cluster *c = sc->v->cluster;
    const place_job *j = sc->j;
    if (sc->s->k8s) {
        uint32_t g = sc->share ? tightest_gpu(sc->v, j, n, sc->ctx) : 0;
        if (g != PLACE_NONE)
            k8s_consider(sc->s, &sc->kb,
                         k8s_score((double)c->node_cpu_free_milli[n], (double)c->node_milli_free[n],
                                   (double)j->cpu_milli, (double)j->gpus * (double)j->gpu_milli,
                                   sc->max_cpu, sc->max_gpu),
                         n, g);
        return;
    }
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

static int dotprod_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    const dotprod *s = state;
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    scorer sc = {s,
                 v,
                 j,
                 ctx,
                 j->gpu_milli < PLACE_MILLI_WHOLE,
                 0,
                 0,
                 {0, PLACE_NONE, 0},
                 {0, PLACE_NONE, 0, 0}};
    if (s->k8s)
        largest_node(c, &sc.max_cpu, &sc.max_gpu);
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
    uint32_t node = s->k8s ? sc.kb.node : sc.b.node, gpu = s->k8s ? sc.kb.gpu : sc.b.gpu;
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
    .fit = dotprod_fit,
};
