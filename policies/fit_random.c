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
 * counted, one is drawn (place_rand_below of the count), and the walk is
 * repeated to it. A gang that fits no single node spans nodes first-fit if the job
 * allows it (deterministically).
 *
 * Candidates without a walk: where no backfilling veto is given, the fit
 * keeps per job shape a bit set over the nodes, bit n set when node n is a
 * candidate (fit_shapes.h: brought up to date from the cluster's change
 * journal, once per node named since the shape's last use) and its count.
 * The count is read, and the drawn candidate is found by walking the set's words in the walk's
 * order (type, then for whole GPUs the node's free GPUs, then node index),
 * ANDed with the cluster's index words: the same count, the same draw and
 * the same node as the walk, the random stream consumed the same way.
 * Cost: O(nodes / 64) words per decision plus O(GPUs) per changed node and
 * shape in use; two walks over the candidate nodes with a veto, or with
 * "placement=random:scan" (kept to test against).
 * Source: the Random-fit baseline of Weng et al., USENIX ATC 2023 (section 6).
 *
 * "placement=random:k8s" is the same rule: the FGD paper's simulator
 * (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/
 * random_score.go) draws one feasible node uniformly in PreScore and scores
 * it 100, every other 0, so no tie arises, pods without GPU included; its
 * GPU for a share is drawn uniformly among those that hold it
 * (allocateGpuIdBasedOnRandomFit, "-gpusel random"). The argument is
 * accepted so that every packing fit has a "k8s" mode (it keeps the same
 * per-shape sets).
 */
#include "fit_shapes.h"
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct randfit {
    place_env env;
    int scan; /* "random:scan": always walk */
    place__shapes shapes;
} randfit;

static int random_create(const place_env *env, const char *args, void **state, char *err,
                         size_t err_len)
{
    *state = NULL;
    int scan = strcmp(args, "scan") == 0;
    if (*args && strcmp(args, "k8s") != 0 && !scan) {
        if (err && err_len)
            snprintf(err, err_len,
                     "placement 'random': expected no argument, 'k8s' or 'scan', got '%.60s'",
                     args);
        return PLACE_ERR_SPEC;
    }
    randfit *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->scan = scan;
    *state = s;
    return PLACE_OK;
}

static void random_destroy(void *state)
{
    randfit *s = state;
    if (!s)
        return;
    place_env env = s->env;
    place__shapes_free(&env, &s->shapes);
    place__free(&env, s, sizeof *s);
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

/* Node n is a candidate for job j (the walk's test without the veto). */
static int candidate(const place_cluster *c, const place_job *j, uint32_t n)
{
    if (j->gpus == 0)
        return c->node_up[n] && place_host_ok(c, n, j);
    uint32_t t = c->node_type[n];
    if (!place_type_ok(c, j, t) || !place_host_ok(c, n, j))
        return 0;
    if (j->gpu_milli < PLACE_MILLI_WHOLE) {
        if (!place_bits_test(&c->any_share[t], n) || c->node_milli_free[n] < j->gpu_milli)
            return 0;
        for (uint32_t g = 0; g < c->node_gpus[n]; g++)
            if (place_gpu_share_fits(c, n, g, j))
                return 1;
        return 0;
    }
    uint32_t f = c->node_free[n];
    return f >= j->gpus && f <= c->type_max_gpus[t] && place_bits_test(&c->by_free[t][f], n);
}

/* The candidate set of job j's shape, up to date, its size in *count
 * (NULL: out of memory). A slot's data: the count, then the set's words. */
static const uint64_t *candidates(randfit *s, const place_cluster *c, const place_job *j,
                                  uint64_t *count)
{
    place__shape *sh = place__shape_slot(&s->shapes, j);
    uint64_t *w = sh->data;
    if (place__shape_can_follow(sh, c)) {
        int dedupe = place__shape_catchup(&s->env, &s->shapes, c->n_nodes);
        for (uint64_t q = sh->changes; q < c->changes; q++) {
            uint32_t n = c->change_ring[q % PLACE_CHANGE_RING];
            if (!place__shape_first(&s->shapes, dedupe, n))
                continue;
            uint64_t bit = 1ull << (n & 63u), *x = &w[1 + (n >> 6)];
            int was = (*x & bit) != 0, now = candidate(c, j, n);
            if (was != now) {
                *x ^= bit;
                w[0] = now ? w[0] + 1 : w[0] - 1;
            }
        }
    } else {
        size_t words = ((size_t)c->n_nodes + 63) / 64;
        if (!place__shape_reserve(&s->env, sh, (1 + words) * sizeof *w)) {
            sh->used = 0;
            return NULL;
        }
        w = sh->data;
        memset(w, 0, (1 + words) * sizeof *w);
        for (uint32_t n = 0; n < c->n_nodes; n++)
            if (candidate(c, j, n)) {
                w[1 + (n >> 6)] |= 1ull << (n & 63u);
                w[0]++;
            }
    }
    place__shape_synced(sh, c);
    *count = w[0];
    return w + 1;
}

/* The index of the k-th (from 0) set bit of x. */
static uint32_t select_bit(uint64_t x, uint64_t k)
{
    while (k--)
        x &= x - 1;
    return (uint32_t)__builtin_ctzll(x);
}

/* Walk `cand` ANDed with `order` (NULL: all nodes) for the k-th candidate;
 * *k is decreased by those passed. */
static uint32_t kth_in(const uint64_t *cand, const place_bits *order, uint32_t words, uint64_t *k)
{
    if (order && order->n0 < words)
        words = order->n0; /* an index set's bits past its size are clear */
    for (uint32_t i = 0; i < words; i++) {
        uint64_t x = cand[i] & (order ? order->w0[i] : ~0ull);
        uint64_t m = place__popcount64(x);
        if (*k < m)
            return i * 64 + select_bit(x, *k);
        *k -= m;
    }
    return PLACE_NONE;
}

/* The k-th candidate of the set in the walk's order. */
static uint32_t kth(const place_cluster *c, const place_job *j, const uint64_t *cand, uint64_t k)
{
    uint32_t words = (c->n_nodes + 63) / 64;
    if (j->gpus == 0)
        return kth_in(cand, NULL, words, &k);
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        uint32_t n;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            if ((n = kth_in(cand, &c->any_share[t], words, &k)) != PLACE_NONE)
                return n;
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            if ((n = kth_in(cand, &c->by_free[t][f], words, &k)) != PLACE_NONE)
                return n;
    }
    return PLACE_NONE;
}

static int random_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                      const place_fit_ctx *ctx)
{
    randfit *s = state;
    const place_env *env = ctx ? ctx->env : NULL;
    const place_cluster *c = v->cluster;
    const uint64_t *cand = NULL;
    uint64_t count = 0;
    if (!s->scan && (!ctx || !ctx->allow) && c->n_nodes > 0)
        cand = candidates(s, c, j, &count);
    if (!cand)
        walk(v, j, ctx, UINT64_MAX, &count);
    if (count == 0) {
        if (j->gpus > 0 && (j->flags & PLACE_JOB_CAN_SPAN))
            return place_fit_span_first(v, j, d, ctx);
        return PLACE_ERR_NOFIT;
    }
    uint64_t pick = place_rand_below(env, count), unused;
    uint32_t n = cand ? kth(c, j, cand, pick) : walk(v, j, ctx, pick, &unused);
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
    .destroy = random_destroy,
    .fit = random_fit,
};
