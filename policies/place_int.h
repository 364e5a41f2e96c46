/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_int.h — what the files of policies/ share and nobody else sees.
 *
 * The component interfaces are public (place.h); this header holds the
 * library's plumbing: memory, bit-set maintenance, the split of a job's host
 * resources over its parts, the sort helper the orders share, the capacity
 * profile the reserving backfill rules share, and the tables registry.c lists.
 */
#ifndef TARMAC_PLACE_INT_H
#define TARMAC_PLACE_INT_H

#include "place.h"

/* Inline copies of three public calls the scanning fits make per candidate
 * node or GPU (a third to a half of a packing run's time went to the calls
 * themselves): inside the library the names below expand to these, so the
 * compiler inlines them and keeps the cluster's arrays in registers across a
 * scan. The exported functions stay (fit_common.c, cluster.c define them
 * with the name in parentheses, which a function-like macro does not touch)
 * and answer exactly the same. */
static inline int place__host_ok_inline(const place_cluster *c, uint32_t n, const place_job *j)
{
    return c->node_cpu_free_milli[n] >= j->cpu_milli && c->node_mem_free_mib[n] >= j->host_mem_mib;
}
static inline int place__gpu_share_fits_inline(const place_cluster *c, uint32_t node, uint32_t g,
                                               const place_job *j)
{
    uint32_t k = c->node_gpu0[node] + g;
    return c->gpu_up[k] && c->gpu_free_milli[k] >= j->gpu_milli &&
           c->gpu_free_mem_mib[k] >= j->gpu_mem_mib;
}
/* The common case (a set bit in from's own word) inline, the rest a call. */
static inline uint32_t place__bits_next_inline(const place_bits *b, uint32_t from)
{
    if (from < b->n) {
        uint64_t w = b->w0[from >> 6] & (~0ull << (from & 63u));
        if (w)
            return (from & ~63u) + (uint32_t)__builtin_ctzll(w);
    }
    return (place_bits_next)(b, from);
}
/* The first node at or after `from` of type t with at least `gpus` fully free
 * GPUs (place_cluster_next_free): a spanning fit asks it once per node it
 * takes, so the bucket walk is inline too. */
static inline uint32_t place__next_free_inline(const place_cluster *c, uint32_t t, uint32_t gpus,
                                               uint32_t from)
{
    if (t >= c->n_types || !c->by_free[t])
        return PLACE_NONE;
    uint32_t best = PLACE_NONE;
    for (uint32_t f = gpus; f <= c->type_max_gpus[t]; f++) {
        uint32_t n = place__bits_next_inline(&c->by_free[t][f], from);
        if (n < best)
            best = n;
    }
    return best;
}
#define place_cluster_next_free(c, t, g, from) place__next_free_inline(c, t, g, from)
#define place_host_ok(c, n, j)                 place__host_ok_inline(c, n, j)
#define place_gpu_share_fits(c, n, g, j)       place__gpu_share_fits_inline(c, n, g, j)
#define place_bits_next(b, from)               place__bits_next_inline(b, from)

/* Memory through the host's allocator. */
void *place__realloc(const place_env *env, void *p, size_t old_size, size_t new_size);
void place__free(const place_env *env, void *p, size_t size);
/* Grow *p (elements of elem bytes) to hold at least `need`, doubling; PLACE_OK or NOMEM. */
int place__grow(const place_env *env, void **p, uint32_t *cap, uint32_t need, size_t elem);

/* Bit-set maintenance (cluster.c). */
int place__bits_init(place_bits *b, const place_env *env, uint32_t n);
void place__bits_fini(place_bits *b, const place_env *env);
int place__bits_resize(place_bits *b, const place_env *env, uint32_t n);
void place__bits_set(place_bits *b, uint32_t i);
void place__bits_clear(place_bits *b, uint32_t i);

/* The GPU types a whole-GPU gang of j could start on now without spanning: in
 * the cluster, allowed, with the memory, nodes big enough and enough free
 * GPUs in all. Fits loop over its bits instead of every type. */
static inline uint64_t place__gang_types(const place_cluster *c, const place_job *j)
{
    uint64_t m = c->types_present & (j->type_mask ? j->type_mask : ~0ull), ok = 0;
    for (; m; m &= m - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(m);
        if (j->gpu_mem_mib <= c->type_mem_mib[t] && c->type_max_gpus[t] >= j->gpus &&
            c->type_gpus_free[t] >= j->gpus)
            ok |= 1ull << t;
    }
    return ok;
}

/* Host CPU and memory a part takes: a job's totals split by GPUs across the parts
 * of a spanning gang (the first part takes the remainder), all of it on the
 * single part otherwise. */
void place__part_host_share(const place_job *j, const place_part *parts, uint32_t n_parts,
                            uint32_t k, int64_t *cpu_milli, int64_t *mem_mib);

/* A part of g whole GPUs of node for job j (one part of a gang). */
static inline place_part place__part_gpus(const place_job *j, uint32_t node, uint32_t g)
{
    place_part p = {node, (uint16_t)g, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, j->gpu_mem_mib, 0};
    return p;
}
/* The one part of a whole-GPU placement on node, or of a share on GPU g of it. */
static inline place_part place__part_whole(const place_job *j, uint32_t node)
{
    return place__part_gpus(j, node, j->gpus);
}
static inline place_part place__part_share(const place_job *j, uint32_t node, uint32_t g)
{
    place_part p = {node, 1, (uint16_t)g, j->gpu_milli, j->gpu_mem_mib, 0};
    return p;
}
/* Node n can take the whole-GPU job now (enough free GPUs is the caller's
 * business): host resources and the backfilling veto. */
static inline int place__whole_ok(const place_view *v, const place_job *j, uint32_t n,
                                  const place_fit_ctx *ctx)
{
    if (!place_host_ok(v->cluster, n, j))
        return 0;
    place_part p = place__part_whole(j, n);
    return place_fit_allowed(ctx, v, j, &p);
}
/* GPU g of node n can take the share job now (host, room on the GPU, veto). */
static inline int place__share_ok(const place_view *v, const place_job *j, uint32_t n, uint32_t g,
                                  const place_fit_ctx *ctx)
{
    if (!place_gpu_share_fits(v->cluster, n, g, j))
        return 0;
    place_part p = place__part_share(j, n, g);
    return place_fit_allowed(ctx, v, j, &p);
}

/* ------------------------------------------------------------------------- */
/* The reference simulator's shared rules, for the fits' "k8s" modes (fit_k8s.c) */

/* Node ranks (ties go to the lowest) and the normalisers of the scores. */
typedef struct place__k8s {
    place_env env;
    uint32_t *rank; /* per node: its rank in a permutation drawn once */
    uint32_t n_rank, cap_rank;
    int64_t max_cpu_milli, max_gpu_milli; /* the largest node's CPU and GPU capacity */
} place__k8s;
/* From a fit's begin(): draw the ranks when the node count differs from the
 * one they were drawn for (env->rand; identity without it) and take the
 * normalisers. k zeroed before the first call. PLACE_OK or NOMEM. */
int place__k8s_begin(place__k8s *k, const place_env *env, const place_cluster *c);
void place__k8s_fini(place__k8s *k);

/* The best node so far: the highest score, then the lowest rank. */
typedef struct place__k8s_best {
    int64_t score;
    uint32_t node, gpu, rank;
} place__k8s_best;
#define PLACE__K8S_BEST_NONE                                                                       \
    {                                                                                              \
        0, PLACE_NONE, 0, 0                                                                        \
    }
static inline void place__k8s_consider(const place__k8s *k, place__k8s_best *b, int64_t score,
                                       uint32_t node, uint32_t gpu)
{
    uint32_t r = k && node < k->n_rank ? k->rank[node] : node;
    if (b->node == PLACE_NONE || score > b->score || (score == b->score && r < b->rank)) {
        b->score = score;
        b->node = node;
        b->gpu = gpu;
        b->rank = r;
    }
}
/* The GPU of node n that holds j's share most tightly (first among equals),
 * or PLACE_NONE. */
uint32_t place__k8s_tightest_gpu(const place_view *v, const place_job *j, uint32_t n,
                                 const place_fit_ctx *ctx);
/* Call fn for every node that can take j now, with the GPU a share would take
 * (place__k8s_tightest_gpu; 0 for whole GPUs and CPU-only jobs). */
void place__k8s_walk(const place_view *v, const place_job *j, const place_fit_ctx *ctx,
                     void (*fn)(void *ud, uint32_t node, uint32_t gpu), void *ud);
/* The decision for the best node b (a gang that fits no node spans nodes
 * first-fit if it may); PLACE_ERR_NOFIT when there is none. */
int place__k8s_decide(const place_view *v, const place_job *j, const place__k8s_best *b,
                      place_decision *d, const place_fit_ctx *ctx);

/* ------------------------------------------------------------------------- */
/* Orders: sorting by a key (order_common.c)                                   */

/* A reusable buffer of (key, index) pairs. Orders compute one 64-bit key per
 * queue entry and sort by (key, index): index order is arrival order, so ties
 * keep it, and the sort is deterministic whatever qsort does with equals. */
typedef struct place__keysort {
    place_env env;
    struct place__key {
        uint64_t key;
        uint32_t idx;
    } * k;
    uint32_t cap;
} place__keysort;

/* create/destroy for orders whose state is just a keysort (no arguments). */
int place__keysort_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len);
void place__keysort_destroy(void *state);
int place__keysort_reserve(place__keysort *ks, uint32_t n);
/* Sort ks->k[0..n) and write the indices to perm. */
void place__keysort_run(place__keysort *ks, uint32_t *perm, uint32_t n);
void place__keysort_fini(place__keysort *ks);
/* Keys that order signed quantities: ascending a, descending a. */
static inline uint64_t place__key_asc(int64_t a)
{
    return (uint64_t)a ^ (1ull << 63);
}
static inline uint64_t place__key_desc(int64_t a)
{
    return ~place__key_asc(a);
}

/* Parse a list of decimal numbers separated by commas ("3600,36000") into
 * out[0..cap); *n gets the count. PLACE_ERR_SPEC on anything else. */
int place__parse_numbers(const char *s, double *out, uint32_t cap, uint32_t *n);

/* ------------------------------------------------------------------------- */
/* The capacity profile of reserving backfill rules (backfill_profile.c)      */

/* Per node: when each GPU becomes fully free (from the running jobs' end
 * estimates, followed across passes), when host CPU and memory come back, and
 * the reservations made for queued jobs in this pass. Counts of fully free
 * GPUs, host CPU and memory over future time follow from those; a job's
 * occupation is checked against them, and the earliest start of a blocked job
 * is searched in them. See backfill_profile.c for the model and its
 * generalisation from processors to GPU nodes. */
typedef struct place__profile place__profile;

/* max_resv: reservations kept (1 for EASY, UINT32_MAX for conservative). */
int place__profile_create(const place_env *env, uint32_t max_resv, place__profile **out);
void place__profile_destroy(place__profile *p);
/* A new pass: forget the reservations (the profile is brought up to the view
 * when first used in the pass). */
void place__profile_begin(place__profile *p, const place_view *v);
/* Queue entry i cannot start now: reserve its earliest start. PLACE_OK (a
 * reservation was made, or none was possible), or PLACE_ERR_NOMEM. */
int place__profile_reserve(place__profile *p, const place_view *v, uint32_t i);
/* Would part p of job j, started now, delay any reservation? 1 = allowed. */
int place__profile_allow(place__profile *p, const place_view *v, const place_job *j,
                         const place_part *part);
/* 1 when no placement of whole-GPU job j on the GPUs free now passes allow()
 * (place_backfill.hopeless); O(types x log reservation starts), after a
 * summary of the reservations that a start or a new reservation renews. */
int place__profile_hopeless(place__profile *p, const place_view *v, const place_job *j);
/* A START or PREEMPT was applied. */
void place__profile_observe(place__profile *p, const place_view *v, const place_decision *d);
/* Reservations held now. */
uint32_t place__profile_n_resv(const place__profile *p);
/* Reservation k: node, start, end (PLACE_T_NEVER = open-ended), GPUs, and the
 * queue index it protects (for tests). */
void place__profile_resv(const place__profile *p, uint32_t k, uint32_t *node, int64_t *start_us,
                         int64_t *end_us, uint32_t *gpus, uint32_t *queue_index);

/* ------------------------------------------------------------------------- */
/* EASY and conservative: count-based on identical nodes (backfill_count.c)   */

/* The state both reserving rules keep: a count-based availability profile,
 * used in a pass where the nodes a job may use are identical (the condition
 * is in backfill_count.c), and the node-identity profile above otherwise.
 * The functions are the place_backfill table's; max_resv as for
 * place__profile_create. */
int place__bf_create(const place_env *env, uint32_t max_resv, void **state);
void place__bf_destroy(void *state);
int place__bf_begin(void *state, const place_view *v);
int place__bf_blocked(void *state, const place_view *v, uint32_t i);
int place__bf_allow(void *state, const place_view *v, const place_job *j, const place_part *part);
void place__bf_observe(void *state, const place_view *v, const place_decision *d);
int place__bf_hopeless(void *state, const place_view *v, const place_job *j);
int place__bf_reserving(const void *state);
/* 1 when this pass counts nodes and its profile is built: allow() then
 * answers per job, not per part (count_allow(), the same answer for every
 * part until a decision is observed), so once hopeless() has said no for a
 * job, allow() says yes to each of its parts and a fit need not ask it
 * (compose.c). 0 otherwise. */
int place__bf_allows_job(const void *state);
/* 1 when the rule makes one reservation a pass (EASY), 0 otherwise. */
int place__bf_one_resv(const void *state);
/* The composed policy's walk over the rest of an EASY pass (compose.c): once
 * the count pass's reservation is made, a queued job is refused by
 * hopeless() alone and blocked() then only answers (no reservation left to
 * make), so the walk may step over such jobs here, in one loop, instead of
 * one visit each. Returns the first position c in [from, n) of the pass's
 * order (queue index perm[c], or c when perm is NULL) whose job is waiting
 * and not hopeless(); n when there is none, or when blocked() would end the
 * pass at the next waiting job (PLACE_BF_DONE); `from` itself when the pass
 * is not in that state, or when it holds no reservation and may_preempt (a
 * preemption rule may then act on a refused job), so the caller visits as
 * before. The caller guarantees that a refused job has no other path (no
 * partition rule, a PLACE_FIT_PURE fit). */
uint32_t place__bf_skip_hopeless(void *state, const place_view *v, const uint32_t *perm,
                                 uint32_t from, uint32_t n, int may_preempt);
/* For tests: 1 when this pass counts (decided at the first use in the pass);
 * the count reservations (returns their number; fills reservation k when
 * k < that number): start, end (PLACE_T_NEVER = open-ended), units (nodes,
 * or GPUs on one-GPU nodes) and the queue index it protects. */
int place__bf_counting(const void *state);
uint32_t place__bf_count_resv(const void *state, uint32_t k, int64_t *start_us, int64_t *end_us,
                              uint32_t *units, uint32_t *queue_index);

/* ------------------------------------------------------------------------- */
/* The SLO-aware replica placement both service rules use (service_slo.c)     */

/* wait_us: how long a replica waits before the hybrid rule routes it. */
int place__service_slo_create(const place_env *env, int64_t wait_us, void **state);
void place__service_slo_destroy(void *state);
int place__service_slo_place(void *state, const place_view *v, uint32_t i, place_decision *d,
                             const place_fit_ctx *ctx);
int64_t place__service_slo_wait(const void *state);

/* ------------------------------------------------------------------------- */
/* The registry                                                               */

/* The specification a preset name stands for, or NULL. */
const char *place__preset_find(const char *name);

/* The tables other files name directly (compose.c's defaults, and the fits
 * that build on best-fit); registry.c declares every table from its lists. */
extern const place_policy place__policy_compose;
extern const place_order place__order_fifo;
extern const place_fit place__fit_first;
extern const place_fit place__fit_best;
extern const place_backfill place__backfill_none;
extern const place_preempt place__preempt_none;
extern const place_service place__service_none;
extern const place_partition place__partition_none;

#endif
