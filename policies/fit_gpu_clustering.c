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
 * It must look at every candidate node: cost O(candidate nodes x GPUs per
 * node) per decision (PLACE_FIT_SCANS), plus reading the running set, which
 * is kept between decisions (below). A gang that fits no single node spans nodes first-fit if
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
 *
 * Following the running set. What runs where is counted per node: tot[n],
 * the GPU parts of running jobs on node n, and per affinity seen (up to
 * CLUS_KEYS of them) cnt[key][n], those of jobs with that affinity; a node's
 * class for affinity k is then 2 if tot is 0, 0 if cnt[k] == tot, 1 if
 * cnt[k] > 0, else 3 (exactly what marking the running set gives). The
 * counts are brought up to date at each decision from the running jobs
 * appended since the last one, when the cluster's change journal proves that
 * nothing else happened: the nodes it logged since are, in order, exactly the
 * parts of those new entries (a take logs each part's node once, place.h
 * "Change journal"; a give, a node added or put out of service logs more),
 * the running array is where it was, no shorter, and its last entry read is
 * the same job. Anything else (a job ended or was preempted, another
 * cluster, a journal that overflowed, the array moved) recounts the running
 * set from scratch, O(running parts), as every decision did before. A host
 * that only appends (the packing protocol, a pass's starts) so pays
 * O(parts) per decision instead of O(running); more than CLUS_KEYS
 * affinities fall back to marking the running set at each decision.
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

enum { AFF_SAME = 1, AFF_OTHER = 2 };
#define CLUS_KEYS 64u

typedef struct clus {
    place_env env;
    int k8s;
    place__k8s k;
    uint8_t *aff; /* per node: AFF_* bits of what runs there (the fallback) */
    uint32_t cap;
    uint32_t *touched;
    uint32_t n_touched, cap_touched;
    /* the counts (see "Following the running set") */
    int idx_valid;                /* the counts describe the running set read so far */
    uint64_t j_serial, j_changes; /* the journal as far as read */
    const place_running *r_base;  /* the running array read */
    uint32_t r_seen;              /* its entries counted */
    uint64_t r_last_id;           /* job id and parts of entry r_seen - 1 */
    const place_part *r_last_parts;
    uint32_t n_nodes; /* nodes the counts cover */
    uint32_t *tot, cap_tot;
    uint32_t n_keys;
    uint32_t key_val[CLUS_KEYS];
    uint32_t *cnt[CLUS_KEYS], cap_cnt[CLUS_KEYS];
    /* this decision: use the counts (else aff), and its key's counts or NULL */
    int use_idx;
    const uint32_t *cnt_key;
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
    place__free(&s->env, s->tot, (size_t)s->cap_tot * sizeof *s->tot);
    for (uint32_t k = 0; k < s->n_keys; k++)
        place__free(&s->env, s->cnt[k], (size_t)s->cap_cnt[k] * sizeof *s->cnt[k]);
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

/* The counts of affinity key, or NULL if no running job has it yet. */
static uint32_t *key_counts(const clus *s, uint32_t key)
{
    for (uint32_t k = 0; k < s->n_keys; k++)
        if (s->key_val[k] == key)
            return s->cnt[k];
    return NULL;
}

/* Count running job rj: PLACE_OK, PLACE_ERR_NOMEM, or 1 when its affinity
 * would be the (CLUS_KEYS + 1)-th. */
static int idx_add(clus *s, const place_running *rj)
{
    if (rj->job.gpus == 0)
        return PLACE_OK; /* a pod without GPU has no affinity */
    uint32_t key = affinity(s, &rj->job);
    uint32_t *cnt = key_counts(s, key);
    if (!cnt) {
        if (s->n_keys == CLUS_KEYS)
            return 1;
        uint32_t k = s->n_keys;
        s->cnt[k] = NULL;
        s->cap_cnt[k] = 0;
        if (place__grow(&s->env, (void **)&s->cnt[k], &s->cap_cnt[k], s->n_nodes ? s->n_nodes : 1,
                        sizeof *cnt) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        cnt = s->cnt[k];
        memset(cnt, 0, (size_t)s->n_nodes * sizeof *cnt);
        s->key_val[k] = key;
        s->n_keys++;
    }
    for (uint32_t k = 0; k < rj->n_parts; k++) {
        uint32_t n = rj->parts[k].node;
        if (n >= s->n_nodes || rj->parts[k].gpus == 0)
            continue;
        s->tot[n]++;
        cnt[n]++;
    }
    return PLACE_OK;
}

/* Count the whole running set again: 1 done, 0 too many affinities (the
 * counts are left invalid), PLACE_ERR_NOMEM. */
static int idx_rebuild(clus *s, const place_view *v)
{
    const place_cluster *c = v->cluster;
    s->idx_valid = 0;
    uint32_t nn = c->n_nodes ? c->n_nodes : 1;
    if (place__grow(&s->env, (void **)&s->tot, &s->cap_tot, nn, sizeof *s->tot) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    for (uint32_t k = 0; k < s->n_keys; k++)
        if (place__grow(&s->env, (void **)&s->cnt[k], &s->cap_cnt[k], nn, sizeof *s->cnt[k]) !=
            PLACE_OK)
            return PLACE_ERR_NOMEM;
    s->n_nodes = c->n_nodes;
    memset(s->tot, 0, (size_t)s->n_nodes * sizeof *s->tot);
    for (uint32_t k = 0; k < s->n_keys; k++)
        memset(s->cnt[k], 0, (size_t)s->n_nodes * sizeof *s->cnt[k]);
    for (uint32_t r = 0; r < v->n_running; r++) {
        int rc = idx_add(s, &v->running[r]);
        if (rc != PLACE_OK)
            return rc > 0 ? 0 : rc;
    }
    return 1;
}

/* Entries [r_seen, n_running) are all that changed since the counts were
 * taken (see "Following the running set")? */
static int idx_appended_only(const clus *s, const place_view *v)
{
    const place_cluster *c = v->cluster;
    if (!s->idx_valid || s->j_serial != c->serial || c->changes < s->j_changes ||
        c->changes - s->j_changes > PLACE_CHANGE_RING || s->n_nodes != c->n_nodes ||
        v->running != s->r_base || v->n_running < s->r_seen)
        return 0;
    if (s->r_seen > 0) {
        const place_running *last = &v->running[s->r_seen - 1];
        if (last->job.id != s->r_last_id || last->parts != s->r_last_parts)
            return 0;
    }
    uint64_t q = s->j_changes;
    for (uint32_t r = s->r_seen; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        for (uint32_t k = 0; k < rj->n_parts; k++, q++)
            if (q == c->changes || c->change_ring[q % PLACE_CHANGE_RING] != rj->parts[k].node)
                return 0;
    }
    return q == c->changes;
}

/* Bring the counts up to date: 1 they are, 0 use marking for this decision,
 * or PLACE_ERR_NOMEM. */
static int idx_sync(clus *s, const place_view *v)
{
    int rc = 1;
    if (idx_appended_only(s, v)) {
        for (uint32_t r = s->r_seen; r < v->n_running && rc == 1; r++) {
            int a = idx_add(s, &v->running[r]);
            rc = a == PLACE_OK ? 1 : a > 0 ? 0 : a;
        }
        if (rc != 1)
            s->idx_valid = 0;
    } else {
        rc = idx_rebuild(s, v);
    }
    if (rc != 1)
        return rc;
    const place_cluster *c = v->cluster;
    s->idx_valid = 1;
    s->j_serial = c->serial;
    s->j_changes = c->changes;
    s->r_base = v->running;
    s->r_seen = v->n_running;
    s->r_last_id = v->n_running ? v->running[v->n_running - 1].job.id : 0;
    s->r_last_parts = v->n_running ? v->running[v->n_running - 1].parts : NULL;
    return 1;
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

/* Node n's class for this decision's affinity. */
static inline uint32_t node_class(const clus *s, uint32_t n)
{
    if (!s->use_idx)
        return class_of(s->aff[n]);
    uint32_t t = s->tot[n], k = s->cnt_key ? s->cnt_key[n] : 0;
    return t == 0 ? 2 : k == t ? 0 : k > 0 ? 1 : 3;
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
                    25 * (3 - (int64_t)node_class(w->s, n));
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
    s->use_idx = 0;
    int rc = PLACE_OK;
    if (j->gpus) {
        rc = idx_sync(s, v);
        if (rc == 1) {
            s->use_idx = 1;
            s->cnt_key = key_counts(s, affinity(s, j));
            rc = PLACE_OK;
        } else if (rc == 0) {
            rc = mark(s, v, affinity(s, j));
        }
    }
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
                rank r = {node_class(s, n), c->node_milli_free[n], n};
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
                rank r = {node_class(s, n), c->node_milli_free[n], n};
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
