/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster.c — the free-capacity state of a cluster and its index.
 *
 * State is structure-of-arrays (one array per field, indexed by node or GPU) so
 * that a policy's view is a set of pointers, not a copy. The index keeps, per GPU
 * type, one hierarchical bit set per count of fully free GPUs: "nodes of type t
 * with exactly f free GPUs". First-fit asks each bucket f >= g for its first
 * node and keeps the lowest; best-fit takes the first non-empty bucket. Either
 * costs a few word operations per bucket, whatever the number of nodes.
 *
 * Invariants (checked by tests after every step):
 *   node_free[n] == popcount(node_free_mask[n]), and 0 unless node_up[n];
 *   node n is in exactly one by_free[type][f] set, f == node_free[n], iff up;
 *   gpu_free_milli == 1000 for exactly the GPUs of node_free_mask;
 *   gpus_free == sum of node_free; gpus_up == GPUs in service.
 *
 * One file of more than 1000 lines: the bit sets, the node and GPU arrays,
 * the index and check / take / give (with their paths for one-GPU nodes:
 * take_unit, give_unit, unit_range) keep one set of invariants, which
 * place_cluster_verify at the end states once; split, each part would
 * need the others' internals.
 */
#include "place.h"
#include "place_int.h"

#include <stdatomic.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* memory                                                                     */

void *place__realloc(const place_env *env, void *p, size_t old_size, size_t new_size)
{
    if (new_size == 0) {
        if (p)
            env->alloc(env->alloc_ud, p, old_size, 0);
        return NULL;
    }
    return env->alloc(env->alloc_ud, p, old_size, new_size);
}

void place__free(const place_env *env, void *p, size_t size)
{
    if (p)
        env->alloc(env->alloc_ud, p, size, 0);
}

int place__grow(const place_env *env, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return PLACE_OK;
    uint64_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    if (c > UINT32_MAX || c * elem / elem != c)
        return PLACE_ERR_NOMEM;
    void *q = place__realloc(env, *p, (size_t)*cap * elem, (size_t)c * elem);
    if (!q)
        return PLACE_ERR_NOMEM;
    *p = q;
    *cap = (uint32_t)c;
    return PLACE_OK;
}

void *place_alloc(const place_env *env, size_t size)
{
    return size ? place__realloc(env, NULL, 0, size) : NULL;
}

int place_realloc(const place_env *env, void **p, size_t old_size, size_t new_size)
{
    if (new_size == 0) {
        place__free(env, *p, old_size);
        *p = NULL;
        return PLACE_OK;
    }
    void *q = place__realloc(env, *p, old_size, new_size);
    if (!q)
        return PLACE_ERR_NOMEM;
    *p = q;
    return PLACE_OK;
}

void place_free(const place_env *env, void *p, size_t size)
{
    if (env && p)
        place__free(env, p, size);
}

/* The 128-bit product of a and b as (hi, lo), in portable C. */
static void mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Lemire's multiply-and-reject: the high half of x * n is uniform in [0, n)
 * once the low half is outside the short range that would favour some values. */
uint64_t place_rand_below(const place_env *env, uint64_t n)
{
    if (!env || !env->rand || n <= 1)
        return 0;
    uint64_t hi, lo;
    mul_64x64(env->rand(env->rand_ud), n, &hi, &lo);
    if (lo < n) {
        uint64_t t = (0 - n) % n;
        while (lo < t)
            mul_64x64(env->rand(env->rand_ud), n, &hi, &lo);
    }
    return hi;
}

/* ------------------------------------------------------------------------- */
/* bit sets                                                                   */

static uint32_t words_for(uint32_t bits)
{
    return (bits + 63u) / 64u;
}

static int bits_alloc_levels(place_bits *b, const place_env *env, uint32_t n)
{
    uint32_t n0 = words_for(n ? n : 1), n1 = words_for(n0), n2 = words_for(n1);
    uint64_t *w0 = place__realloc(env, NULL, 0, n0 * sizeof *w0);
    uint64_t *w1 = place__realloc(env, NULL, 0, n1 * sizeof *w1);
    uint64_t *w2 = place__realloc(env, NULL, 0, n2 * sizeof *w2);
    if (!w0 || !w1 || !w2) {
        place__free(env, w0, n0 * sizeof *w0);
        place__free(env, w1, n1 * sizeof *w1);
        place__free(env, w2, n2 * sizeof *w2);
        return PLACE_ERR_NOMEM;
    }
    memset(w0, 0, n0 * sizeof *w0);
    memset(w1, 0, n1 * sizeof *w1);
    memset(w2, 0, n2 * sizeof *w2);
    b->w0 = w0;
    b->w1 = w1;
    b->w2 = w2;
    b->n = n;
    b->n0 = n0;
    b->n1 = n1;
    b->n2 = n2;
    return PLACE_OK;
}

int place__bits_init(place_bits *b, const place_env *env, uint32_t n)
{
    memset(b, 0, sizeof *b);
    return bits_alloc_levels(b, env, n);
}

void place__bits_fini(place_bits *b, const place_env *env)
{
    if (!b->w0)
        return;
    place__free(env, b->w0, b->n0 * sizeof *b->w0);
    place__free(env, b->w1, b->n1 * sizeof *b->w1);
    place__free(env, b->w2, b->n2 * sizeof *b->w2);
    memset(b, 0, sizeof *b);
}

void place__bits_set(place_bits *b, uint32_t i)
{
    uint32_t i0 = i >> 6, i1 = i0 >> 6;
    b->w0[i0] |= 1ull << (i & 63u);
    b->w1[i1] |= 1ull << (i0 & 63u);
    b->w2[i1 >> 6] |= 1ull << (i1 & 63u);
}

void place__bits_clear(place_bits *b, uint32_t i)
{
    uint32_t i0 = i >> 6, i1 = i0 >> 6;
    b->w0[i0] &= ~(1ull << (i & 63u));
    if (b->w0[i0])
        return;
    b->w1[i1] &= ~(1ull << (i0 & 63u));
    if (b->w1[i1])
        return;
    b->w2[i1 >> 6] &= ~(1ull << (i1 & 63u));
}

/* Grow (or shrink) to n bits, keeping the bits below min(old n, n). */
int place__bits_resize(place_bits *b, const place_env *env, uint32_t n)
{
    place_bits nb;
    if (bits_alloc_levels(&nb, env, n) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    uint32_t keep = b->n < n ? b->n : n;
    for (uint32_t i = place_bits_next(b, 0); i != PLACE_NONE && i < keep;
         i = place_bits_next(b, i + 1))
        place__bits_set(&nb, i);
    place__bits_fini(b, env);
    *b = nb;
    return PLACE_OK;
}

static inline uint32_t ctz64(uint64_t w)
{
    return (uint32_t)__builtin_ctzll(w);
}

uint32_t(place_bits_next)(const place_bits *b, uint32_t from)
{
    if (from >= b->n)
        return PLACE_NONE;
    uint32_t i0 = from >> 6;
    uint64_t w = b->w0[i0] & (~0ull << (from & 63u));
    if (w)
        return (i0 << 6) + ctz64(w);
    /* next non-empty level-0 word after i0, through level 1 */
    uint32_t k = i0 + 1;
    if (k >= b->n0)
        return PLACE_NONE;
    uint32_t i1 = k >> 6;
    w = b->w1[i1] & (~0ull << (k & 63u));
    if (!w) {
        /* next non-empty level-1 word after i1, through level 2 (a short scan) */
        uint32_t m = i1 + 1;
        if (m >= b->n1)
            return PLACE_NONE;
        uint32_t i2 = m >> 6;
        uint64_t w2 = b->w2[i2] & (~0ull << (m & 63u));
        while (!w2) {
            if (++i2 >= b->n2)
                return PLACE_NONE;
            w2 = b->w2[i2];
        }
        i1 = (i2 << 6) + ctz64(w2);
        w = b->w1[i1];
    }
    uint32_t j0 = (i1 << 6) + ctz64(w);
    return (j0 << 6) + ctz64(b->w0[j0]);
}

/* ------------------------------------------------------------------------- */
/* cluster                                                                    */

/* Clusters set up in this process: each gets its own serial. */
static _Atomic uint64_t cluster_serial;

/* Node n's state changed: journal it (place.h, "Change journal"). */
static inline void note_change(place_cluster *c, uint32_t n)
{
    c->change_ring[c->changes++ % PLACE_CHANGE_RING] = n;
}

int place_cluster_init(place_cluster *c, const place_env *env, uint32_t n_types,
                       const uint32_t *type_mem_mib)
{
    memset(c, 0, sizeof *c);
    if (!env || !env->alloc || n_types == 0 || n_types > PLACE_MAX_TYPES || !type_mem_mib)
        return PLACE_ERR_INVAL;
    c->env = *env;
    c->n_types = n_types;
    c->serial = atomic_fetch_add(&cluster_serial, 1) + 1;
    memcpy(c->type_mem_mib, type_mem_mib, n_types * sizeof *type_mem_mib);
    return PLACE_OK;
}

#define NODE_ARRAYS(X)                                                                             \
    X(node_type)                                                                                   \
    X(node_gpus)                                                                                   \
    X(node_free)                                                                                   \
    X(node_up)                                                                                     \
    X(node_gpu0)                                                                                   \
    X(node_free_mask)                                                                              \
    X(node_cpu_milli)                                                                              \
    X(node_cpu_free_milli)                                                                         \
    X(node_mem_mib)                                                                                \
    X(node_mem_free_mib)                                                                           \
    X(node_milli_free)
#define GPU_ARRAYS(X)                                                                              \
    X(gpu_free_milli)                                                                              \
    X(gpu_free_mem_mib)                                                                            \
    X(gpu_up)

static void index_fini(place_cluster *c)
{
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (c->by_free[t]) {
            for (uint32_t f = 0; f <= PLACE_MAX_GPUS_PER_NODE; f++)
                place__bits_fini(&c->by_free[t][f], &c->env);
            place__free(&c->env, c->by_free[t], (PLACE_MAX_GPUS_PER_NODE + 1) * sizeof(place_bits));
            c->by_free[t] = NULL;
        }
        place__bits_fini(&c->any_share[t], &c->env);
        place__bits_fini(&c->up[t], &c->env);
    }
}

void place_cluster_fini(place_cluster *c)
{
    if (!c || !c->env.alloc)
        return;
#define FREE_NODE_(f) place__free(&c->env, c->f, c->cap_nodes * sizeof *c->f);
    NODE_ARRAYS(FREE_NODE_)
#undef FREE_NODE_
#define FREE_GPU_(f) place__free(&c->env, c->f, c->cap_gpus * sizeof *c->f);
    GPU_ARRAYS(FREE_GPU_)
#undef FREE_GPU_
    index_fini(c);
    memset(c, 0, sizeof *c);
}

static int grow_nodes(place_cluster *c, uint32_t need)
{
    if (need <= c->cap_nodes)
        return PLACE_OK;
    uint32_t cap = c->cap_nodes ? c->cap_nodes : 16;
    while (cap < need)
        cap *= 2;
#define GROW_NODE_(f)                                                                              \
    {                                                                                              \
        void *p_ = place__realloc(&c->env, c->f, c->cap_nodes * sizeof *c->f, cap * sizeof *c->f); \
        if (!p_)                                                                                   \
            return PLACE_ERR_NOMEM;                                                                \
        c->f = p_;                                                                                 \
    }
    NODE_ARRAYS(GROW_NODE_)
#undef GROW_NODE_
    c->cap_nodes = cap;
    return PLACE_OK;
}

static int grow_gpus(place_cluster *c, uint32_t need)
{
    if (need <= c->cap_gpus)
        return PLACE_OK;
    uint32_t cap = c->cap_gpus ? c->cap_gpus : 64;
    while (cap < need)
        cap *= 2;
#define GROW_GPU_(f)                                                                               \
    {                                                                                              \
        void *p_ = place__realloc(&c->env, c->f, c->cap_gpus * sizeof *c->f, cap * sizeof *c->f);  \
        if (!p_)                                                                                   \
            return PLACE_ERR_NOMEM;                                                                \
        c->f = p_;                                                                                 \
    }
    GPU_ARRAYS(GROW_GPU_)
#undef GROW_GPU_
    c->cap_gpus = cap;
    return PLACE_OK;
}

/* Make every bit set of type t hold at least `nodes` bits. */
static int index_reserve(place_cluster *c, uint32_t t, uint32_t nodes)
{
    if (!c->by_free[t]) {
        size_t sz = (PLACE_MAX_GPUS_PER_NODE + 1) * sizeof(place_bits);
        c->by_free[t] = place__realloc(&c->env, NULL, 0, sz);
        if (!c->by_free[t])
            return PLACE_ERR_NOMEM;
        memset(c->by_free[t], 0, sz);
    }
    if (c->up[t].n >= nodes)
        return PLACE_OK;
    uint32_t n = c->up[t].n ? c->up[t].n : 64;
    while (n < nodes)
        n *= 2;
    for (uint32_t f = 0; f <= PLACE_MAX_GPUS_PER_NODE; f++)
        if (place__bits_resize(&c->by_free[t][f], &c->env, n) != PLACE_OK)
            return PLACE_ERR_NOMEM;
    if (place__bits_resize(&c->any_share[t], &c->env, n) != PLACE_OK ||
        place__bits_resize(&c->up[t], &c->env, n) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    return PLACE_OK;
}

int place_cluster_add_node(place_cluster *c, uint32_t type, uint32_t gpus, int64_t cpu_milli,
                           int64_t mem_mib, uint32_t *node_out)
{
    if (!c || type >= c->n_types || gpus > PLACE_MAX_GPUS_PER_NODE || cpu_milli < 0 || mem_mib < 0)
        return PLACE_ERR_INVAL;
    if (c->n_nodes == PLACE_NONE - 1 || c->n_gpus > UINT32_MAX - gpus)
        return PLACE_ERR_INVAL;
    int rc = grow_nodes(c, c->n_nodes + 1);
    if (rc == PLACE_OK)
        rc = grow_gpus(c, c->n_gpus + gpus);
    if (rc == PLACE_OK)
        rc = index_reserve(c, type, c->n_nodes + 1);
    if (rc != PLACE_OK)
        return rc;
    uint32_t n = c->n_nodes++;
    c->node_type[n] = (uint16_t)type;
    c->node_gpus[n] = (uint8_t)gpus;
    c->node_free[n] = 0;
    c->node_up[n] = 0;
    c->node_gpu0[n] = c->n_gpus;
    c->node_free_mask[n] = 0;
    c->node_cpu_milli[n] = cpu_milli;
    c->node_cpu_free_milli[n] = cpu_milli;
    c->node_mem_mib[n] = mem_mib;
    c->node_mem_free_mib[n] = mem_mib;
    c->node_milli_free[n] = 0;
    for (uint32_t g = 0; g < gpus; g++) {
        uint32_t k = c->n_gpus + g;
        c->gpu_free_milli[k] = PLACE_MILLI_WHOLE;
        c->gpu_free_mem_mib[k] = c->type_mem_mib[type];
        c->gpu_up[k] = 1;
    }
    c->n_gpus += gpus;
    if (gpus > c->type_max_gpus[type])
        c->type_max_gpus[type] = gpus;
    c->types_present |= 1ull << type;
    note_change(c, n);
    if (node_out)
        *node_out = n;
    return PLACE_OK;
}

/* Remove node n from the index (its current bucket). */
static void index_remove(place_cluster *c, uint32_t n)
{
    uint32_t t = c->node_type[n];
    place__bits_clear(&c->by_free[t][c->node_free[n]], n);
    place__bits_clear(&c->any_share[t], n);
}

/* Bits set in m; one-GPU nodes (SWF machines) move one bit at a time, and
 * without a popcount instruction in the target the builtin is a call. */
static inline uint32_t bits_count(uint64_t m)
{
    return (m & (m - 1)) == 0 ? (uint32_t)(m != 0) : (uint32_t)__builtin_popcountll(m);
}

/* Recompute node n's derived fields from its GPUs and file it in the index. */
static void node_refresh(place_cluster *c, uint32_t n)
{
    note_change(c, n);
    uint32_t t = c->node_type[n], g0 = c->node_gpu0[n], ng = c->node_gpus[n];
    uint64_t mask = 0;
    uint32_t milli = 0;
    if (c->node_up[n]) {
        for (uint32_t g = 0; g < ng; g++) {
            if (!c->gpu_up[g0 + g])
                continue;
            milli += c->gpu_free_milli[g0 + g];
            if (c->gpu_free_milli[g0 + g] == PLACE_MILLI_WHOLE)
                mask |= 1ull << g;
        }
    }
    uint32_t free = bits_count(mask);
    c->gpus_free = c->gpus_free - c->node_free[n] + free;
    c->type_gpus_free[t] = c->type_gpus_free[t] - c->node_free[n] + free;
    c->node_free_mask[n] = mask;
    c->node_free[n] = (uint8_t)free;
    c->node_milli_free[n] = milli;
    if (c->node_up[n]) {
        place__bits_set(&c->by_free[t][free], n);
        if (milli > 0)
            place__bits_set(&c->any_share[t], n);
    }
}

/* A node's host capacity as it counts in the totals (see PLACE_HOST_CAP). */
static uint64_t host_capped(int64_t v)
{
    return (uint64_t)(v < PLACE_HOST_CAP ? v : PLACE_HOST_CAP);
}

static uint32_t node_gpus_in_service(const place_cluster *c, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        k += c->gpu_up[c->node_gpu0[n] + g];
    return k;
}

int place_cluster_set_node_up(place_cluster *c, uint32_t node, int up)
{
    if (!c || node >= c->n_nodes)
        return PLACE_ERR_INVAL;
    uint8_t u = up ? 1 : 0;
    if (c->node_up[node] == u)
        return PLACE_OK;
    uint32_t t = c->node_type[node];
    if (c->node_up[node])
        index_remove(c, node);
    uint32_t in_service = node_gpus_in_service(c, node);
    c->node_up[node] = u;
    uint64_t cpu = host_capped(c->node_cpu_milli[node]), mem = host_capped(c->node_mem_mib[node]);
    if (u) {
        c->gpus_up += in_service;
        c->type_gpus_up[t] += in_service;
        c->cpu_up_milli += cpu;
        c->mem_up_mib += mem;
        place__bits_set(&c->up[t], node);
    } else {
        c->gpus_up -= in_service;
        c->type_gpus_up[t] -= in_service;
        c->cpu_up_milli -= cpu;
        c->mem_up_mib -= mem;
        place__bits_clear(&c->up[t], node);
    }
    node_refresh(c, node);
    return PLACE_OK;
}

int place_cluster_set_gpu_up(place_cluster *c, uint32_t node, uint32_t gpu, int up)
{
    if (!c || node >= c->n_nodes || gpu >= c->node_gpus[node])
        return PLACE_ERR_INVAL;
    uint32_t k = c->node_gpu0[node] + gpu;
    uint8_t u = up ? 1 : 0;
    if (c->gpu_up[k] == u)
        return PLACE_OK;
    if (c->node_up[node]) {
        uint32_t t = c->node_type[node];
        index_remove(c, node);
        if (u) {
            c->gpus_up++;
            c->type_gpus_up[t]++;
        } else {
            c->gpus_up--;
            c->type_gpus_up[t]--;
        }
    }
    c->gpu_up[k] = u;
    node_refresh(c, node);
    return PLACE_OK;
}

int place_cluster_node_fits(const place_cluster *c, uint32_t node, uint32_t gpus, uint32_t milli,
                            uint32_t mem_mib, int64_t cpu_milli, int64_t host_mem_mib)
{
    if (!c->node_up[node] || c->node_cpu_free_milli[node] < cpu_milli ||
        c->node_mem_free_mib[node] < host_mem_mib)
        return 0;
    if (gpus == 0)
        return 1;
    if (mem_mib > c->type_mem_mib[c->node_type[node]])
        return 0;
    if (milli >= PLACE_MILLI_WHOLE)
        return c->node_free[node] >= gpus;
    uint32_t g0 = c->node_gpu0[node];
    for (uint32_t g = 0; g < c->node_gpus[node]; g++)
        if (c->gpu_up[g0 + g] && c->gpu_free_milli[g0 + g] >= milli &&
            c->gpu_free_mem_mib[g0 + g] >= mem_mib)
            return 1;
    return 0;
}

uint32_t(place_cluster_next_free)(const place_cluster *c, uint32_t t, uint32_t gpus, uint32_t from)
{
    if (t >= c->n_types || !c->by_free[t])
        return PLACE_NONE;
    uint32_t best = PLACE_NONE;
    for (uint32_t f = gpus; f <= c->type_max_gpus[t]; f++) {
        uint32_t n = place_bits_next(&c->by_free[t][f], from);
        if (n < best)
            best = n;
    }
    return best;
}

/* ------------------------------------------------------------------------- */
/* check / take / give                                                        */

void place__part_host_share(const place_job *j, const place_part *parts, uint32_t n_parts,
                            uint32_t k, int64_t *cpu_milli, int64_t *mem_mib)
{
    if (n_parts <= 1 || j->gpus == 0 || (j->cpu_milli == 0 && j->host_mem_mib == 0)) {
        *cpu_milli = k == 0 ? j->cpu_milli : 0;
        *mem_mib = k == 0 ? j->host_mem_mib : 0;
        return;
    }
    /* proportional to GPUs; the remainder of the integer division goes to part 0.
     * A part k >= 1 needs only its own GPUs (O(1)); part 0 sums the others
     * (O(parts)), so a walk over all parts stays O(parts), not O(parts^2): SWF
     * gangs span up to a thousand single-GPU nodes. */
    if (k > 0) {
        *cpu_milli = j->cpu_milli * parts[k].gpus / (int64_t)j->gpus;
        *mem_mib = j->host_mem_mib * parts[k].gpus / (int64_t)j->gpus;
        return;
    }
    int64_t cpu = 0, mem = 0;
    if (j->cpu_milli != 0 || j->host_mem_mib != 0)
        for (uint32_t i = 1; i < n_parts; i++) {
            cpu += j->cpu_milli * parts[i].gpus / (int64_t)j->gpus;
            mem += j->host_mem_mib * parts[i].gpus / (int64_t)j->gpus;
        }
    *cpu_milli = j->cpu_milli - cpu;
    *mem_mib = j->host_mem_mib - mem;
}

int place_cluster_check(const place_cluster *c, const place_job *j, const place_part *parts,
                        uint32_t n_parts)
{
    if (!c || !j || !parts || n_parts == 0)
        return PLACE_ERR_INVAL;
    if (j->gpu_milli == 0 || j->gpu_milli > PLACE_MILLI_WHOLE ||
        (j->gpu_milli < PLACE_MILLI_WHOLE && j->gpus > 1))
        return PLACE_ERR_INVAL;
    if (n_parts > 1 && !(j->flags & PLACE_JOB_CAN_SPAN))
        return PLACE_ERR_SPAN;
    uint32_t type = PLACE_NONE;
    uint64_t sum = 0;
    int increasing = 1;
    uint32_t k = 0;
    if (j->gpus > 0 && j->gpu_milli == PLACE_MILLI_WHOLE && j->cpu_milli == 0 &&
        j->host_mem_mib == 0) {
        /* Whole GPUs, no host share (an SWF gang): the loop below with its
         * branches for shares and host splits taken out, and the type's
         * mask and memory tested once, since every part must be on the first
         * part's type. The same tests in the same order per part, so the same
         * answer; it hands over to the loop below at the first part not in
         * increasing node order. */
        for (; k < n_parts; k++) {
            const place_part *p = &parts[k];
            uint32_t n = p->node;
            if (n >= c->n_nodes)
                return PLACE_ERR_INVAL;
            if (k > 0 && n <= parts[k - 1].node)
                break;
            uint32_t t = c->node_type[n];
            if (!c->node_up[n])
                return PLACE_ERR_DOWN;
            if (type == PLACE_NONE) {
                type = t;
                if (j->type_mask != 0 && !((j->type_mask >> t) & 1u))
                    return PLACE_ERR_TYPE;
                if (j->gpu_mem_mib > c->type_mem_mib[t])
                    return PLACE_ERR_MEMORY;
            } else if (t != type) {
                return PLACE_ERR_SPAN;
            }
            if (c->node_cpu_free_milli[n] < 0 || c->node_mem_free_mib[n] < 0)
                return PLACE_ERR_CAPACITY;
            sum += p->gpus;
            if (p->gpus == 0)
                return PLACE_ERR_GANG;
            if (p->gpu != PLACE_GPU_ANY || p->milli != PLACE_MILLI_WHOLE)
                return PLACE_ERR_INVAL;
            if (c->node_free[n] < p->gpus)
                return PLACE_ERR_CAPACITY;
        }
        if (k < n_parts)
            increasing = 0; /* parts[0..k) are distinct: the loop below compares k on */
    }
    for (; k < n_parts; k++) {
        const place_part *p = &parts[k];
        if (p->node >= c->n_nodes)
            return PLACE_ERR_INVAL;
        /* Parts in increasing node order (what the fits produce) cannot repeat
         * a node: O(1). Otherwise compare with every earlier part: O(parts^2). */
        if (k > 0 && !(increasing && p->node > parts[k - 1].node)) {
            increasing = 0;
            for (uint32_t i = 0; i < k; i++)
                if (parts[i].node == p->node)
                    return PLACE_ERR_SPAN;
        }
        uint32_t t = c->node_type[p->node];
        if (!c->node_up[p->node])
            return PLACE_ERR_DOWN;
        if (j->gpus > 0) {
            if (type == PLACE_NONE)
                type = t;
            else if (t != type)
                return PLACE_ERR_SPAN;
            if (j->type_mask != 0 && !((j->type_mask >> t) & 1u))
                return PLACE_ERR_TYPE;
            if (j->gpu_mem_mib > c->type_mem_mib[t])
                return PLACE_ERR_MEMORY;
        }
        int64_t cpu = 0, mem = 0; /* (no host share to split: SWF gangs) */
        if (j->cpu_milli != 0 || j->host_mem_mib != 0)
            place__part_host_share(j, parts, n_parts, k, &cpu, &mem);
        if (c->node_cpu_free_milli[p->node] < cpu || c->node_mem_free_mib[p->node] < mem)
            return PLACE_ERR_CAPACITY;
        sum += p->gpus;
        if (j->gpus == 0) {
            if (p->gpus != 0)
                return PLACE_ERR_GANG;
            continue;
        }
        if (p->gpus == 0)
            return PLACE_ERR_GANG;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            if (p->gpus != 1 || p->gpu >= c->node_gpus[p->node] || p->milli != j->gpu_milli)
                return PLACE_ERR_INVAL;
            uint32_t g = c->node_gpu0[p->node] + p->gpu;
            if (!c->gpu_up[g])
                return PLACE_ERR_DOWN;
            if (c->gpu_free_milli[g] < j->gpu_milli)
                return PLACE_ERR_CAPACITY;
            if (c->gpu_free_mem_mib[g] < j->gpu_mem_mib)
                return PLACE_ERR_MEMORY;
        } else {
            if (p->gpu != PLACE_GPU_ANY || p->milli != PLACE_MILLI_WHOLE)
                return PLACE_ERR_INVAL;
            if (c->node_free[p->node] < p->gpus)
                return PLACE_ERR_CAPACITY;
        }
    }
    if (sum != j->gpus)
        return PLACE_ERR_GANG;
    return PLACE_OK;
}

/* Whole GPUs `mask` of node n leave (sign -1) or rejoin (+1) the fully free
 * set: the node's derived fields and its index bucket change without a scan
 * of its GPUs (only for GPUs in service on a node in service). A run of such
 * changes over the parts of one job has the index's bit changes gathered per
 * 64-node word: a gang on one-GPU nodes (SWF machines,
 * parts in increasing node order) moves up to 64 nodes' bits between two
 * buckets with one word operation per bucket instead of one bit operation per
 * node. The node fields, totals and journal change per node; the bits pending are those of distinct
 * nodes of one word, type and (old, new) free count, the bit sets are disjoint per node, so the
 * index after the flush is the one the per-node calls leave. */
typedef struct whole_batch {
    uint64_t m;                    /* nodes of word i0 moving from f_old to f_new; 0: none */
    uint64_t share_set, share_clr; /* of those, nodes with / without a free share */
    uint64_t key;                  /* batch_key(i0, t, f_old, f_new) */
    uint32_t last;                 /* the last node added */
} whole_batch;

/* The word, type and bucket move of a batch in one integer: compared and
 * stored whole (fields stored apart and compared together make the compiler
 * load a word the CPU cannot forward from the two stores, a stall per node). */
static inline uint64_t batch_key(uint32_t i0, uint32_t t, uint32_t f_old, uint32_t f_new)
{
    return (uint64_t)i0 << 32 | (uint64_t)t << 16 | (uint64_t)f_old << 8 | f_new;
}

/* Add node n (key as batch_key) to the batch, flushing it first when n
 * belongs to another word, type or move, or is not after the last node. */
static inline void whole_batch_flush(place_cluster *c, whole_batch *wb);
static inline void whole_batch_add(place_cluster *c, whole_batch *wb, uint64_t key, uint32_t n,
                                   int share)
{
    if (wb->m && (key != wb->key || n <= wb->last))
        whole_batch_flush(c, wb);
    wb->key = key;
    uint64_t bit = 1ull << (n & 63u);
    wb->m |= bit;
    wb->last = n;
    if (share)
        wb->share_set |= bit;
    else
        wb->share_clr |= bit;
}

static inline void bits_word_set(place_bits *b, uint32_t i0, uint64_t m)
{
    uint32_t i1 = i0 >> 6;
    b->w0[i0] |= m;
    b->w1[i1] |= 1ull << (i0 & 63u);
    b->w2[i1 >> 6] |= 1ull << (i1 & 63u);
}

static inline void bits_word_clear(place_bits *b, uint32_t i0, uint64_t m)
{
    uint32_t i1 = i0 >> 6;
    b->w0[i0] &= ~m;
    if (b->w0[i0])
        return;
    b->w1[i1] &= ~(1ull << (i0 & 63u));
    if (b->w1[i1])
        return;
    b->w2[i1 >> 6] &= ~(1ull << (i1 & 63u));
}

static inline void whole_batch_flush(place_cluster *c, whole_batch *wb)
{
    if (!wb->m)
        return;
    uint32_t i0 = (uint32_t)(wb->key >> 32), t = (uint32_t)(wb->key >> 16) & 0xffffu;
    uint32_t f_old = (uint32_t)(wb->key >> 8) & 0xffu, f_new = (uint32_t)wb->key & 0xffu;
    place_bits *by = c->by_free[t];
    bits_word_clear(&by[f_old], i0, wb->m);
    bits_word_set(&by[f_new], i0, wb->m);
    if (wb->share_set)
        bits_word_set(&c->any_share[t], i0, wb->share_set);
    if (wb->share_clr)
        bits_word_clear(&c->any_share[t], i0, wb->share_clr);
    wb->m = wb->share_set = wb->share_clr = 0;
}

/* One-GPU node n of type t moves between buckets f_old and f_new, and into
 * or out of any_share: the index changes whole_batch_add() and
 * whole_batch_flush() make for a batch of this one node, without the batch
 * (a job on one part: every job of an M/M/c queue). */
static inline void unit_bits_one(place_cluster *c, uint32_t n, uint32_t t, uint32_t f_old,
                                 uint32_t f_new)
{
    uint32_t i0 = n >> 6;
    uint64_t bit = 1ull << (n & 63u);
    place_bits *by = c->by_free[t];
    bits_word_clear(&by[f_old], i0, bit);
    bits_word_set(&by[f_new], i0, bit);
    if (c->node_milli_free[n] > 0)
        bits_word_set(&c->any_share[t], i0, bit);
    else
        bits_word_clear(&c->any_share[t], i0, bit);
}

/* Node n's whole GPUs `mask` leave (sign -1) or rejoin (+1), its bits gathered in wb. */
static inline void node_whole_batched(place_cluster *c, whole_batch *wb, uint32_t n, uint64_t mask,
                                      int sign)
{
    note_change(c, n);
    uint32_t t = c->node_type[n], k = bits_count(mask), f_old = c->node_free[n];
    if (sign < 0) {
        c->node_free_mask[n] &= ~mask;
        c->node_free[n] = (uint8_t)(f_old - k);
        c->node_milli_free[n] -= k * PLACE_MILLI_WHOLE;
        c->gpus_free -= k;
        c->type_gpus_free[t] -= k;
    } else {
        c->node_free_mask[n] |= mask;
        c->node_free[n] = (uint8_t)(f_old + k);
        c->node_milli_free[n] += k * PLACE_MILLI_WHOLE;
        c->gpus_free += k;
        c->type_gpus_free[t] += k;
    }
    uint32_t f_new = c->node_free[n];
    whole_batch_add(c, wb, batch_key(n >> 6, t, f_old, f_new), n, c->node_milli_free[n] > 0);
}

/* A one-GPU node's part of a whole-GPU job without a host share: what the
 * general paths below do for it, with the constants folded in. Take: its one
 * GPU is fully free (the decision was checked: node_free >= 1 of 1), so the
 * GPU, the node's fields and the totals go to zero held and the node moves
 * from bucket 1 to bucket 0 and leaves any_share (node_milli_free was the
 * GPU's 1000). Give: as place_cluster_give's whole-GPU branch with mask 1. */
static inline uint32_t take_unit_fields(place_cluster *c, place_part *p, uint32_t n)
{
    uint32_t g0 = c->node_gpu0[n];
    p->mask = 1;
    c->gpu_free_milli[g0] = 0;
    c->gpu_free_mem_mib[g0] = 0;
    note_change(c, n);
    uint32_t t = c->node_type[n];
    c->node_free_mask[n] = 0;
    c->node_free[n] = 0;
    c->node_milli_free[n] -= PLACE_MILLI_WHOLE;
    c->gpus_free--;
    c->type_gpus_free[t]--;
    return t;
}

static inline void take_unit(place_cluster *c, whole_batch *wb, place_part *p, uint32_t n)
{
    uint32_t t = take_unit_fields(c, p, n);
    whole_batch_add(c, wb, batch_key(n >> 6, t, 1, 0), n, c->node_milli_free[n] > 0);
}

/* The length of the run of parts from k on that take_range() or
 * give_range() may move at once (take: sign -1, give: +1): parts of one GPU
 * on consecutive one-GPU nodes of one type whose GPUs are consecutive too,
 * each GPU fully free (take; the decision was checked) or held and back in
 * service on a node in service (give), as take_unit() and give_unit() ask
 * per part. */
static uint32_t unit_run(const place_cluster *c, const place_part *parts, uint32_t k,
                         uint32_t n_parts, int sign)
{
    const uint32_t a = parts[k].node, g = c->node_gpu0[a], t = c->node_type[a];
    const uint32_t m = n_parts - k;
    const place_part *restrict pp = parts + k;
    const uint8_t *restrict ng = c->node_gpus + a, *restrict nu = c->node_up + a;
    const uint16_t *restrict nt = c->node_type + a;
    const uint32_t *restrict g0 = c->node_gpu0 + a;
    const uint64_t *restrict fm = c->node_free_mask + a;
    const uint8_t *restrict gu = c->gpu_up + g;
    uint32_t i = 0;
    /* (a + i < n_nodes: the parts name nodes of the cluster) */
    if (sign < 0) {
        for (; i < m; i++)
            if (pp[i].node != a + i || ng[i] != 1 || nt[i] != t || g0[i] != g + i ||
                pp[i].gpus != 1 || fm[i] != 1)
                break;
    } else {
        for (; i < m; i++)
            if (pp[i].node != a + i || ng[i] != 1 || nt[i] != t || g0[i] != g + i ||
                pp[i].mask != 1 || !gu[i] || !nu[i] || fm[i] != 0)
                break;
    }
    return i;
}

/* Nodes [a, a + len) of a unit_run() move between buckets 1 and 0 (take:
 * sign -1) or 0 and 1 (give: +1): the fields, totals, journal entries (in
 * node order) and index bits take_unit() or give_unit() leave for each, in
 * a loop per array and one operation per 64-node word of the index. */
static void unit_range(place_cluster *c, uint32_t a, uint32_t len, int sign)
{
    uint32_t t = c->node_type[a], g = c->node_gpu0[a];
    uint16_t milli = sign < 0 ? 0 : PLACE_MILLI_WHOLE;
    uint32_t mem = sign < 0 ? 0 : c->type_mem_mib[t];
    uint16_t *restrict gm = c->gpu_free_milli + g;
    uint32_t *restrict gmem = c->gpu_free_mem_mib + g;
    uint64_t *restrict fm = c->node_free_mask + a;
    uint8_t *restrict nf = c->node_free + a;
    uint32_t *restrict mf = c->node_milli_free + a;
    for (uint32_t i = 0; i < len; i++) {
        gm[i] = milli;
        gmem[i] = mem;
    }
    uint64_t mask = sign < 0 ? 0 : 1;
    uint8_t free = sign < 0 ? 0 : 1;
    uint32_t dm = sign < 0 ? 0u - PLACE_MILLI_WHOLE : PLACE_MILLI_WHOLE; /* modulo 2^32 */
    for (uint32_t i = 0; i < len; i++) {
        fm[i] = mask;
        nf[i] = free;
        mf[i] += dm;
    }
    /* the journal: entries changes .. changes + len - 1, wrapping at the ring's end */
    uint32_t *restrict ring = c->change_ring;
    for (uint32_t i = 0, r = (uint32_t)(c->changes % PLACE_CHANGE_RING); i < len;) {
        uint32_t run = PLACE_CHANGE_RING - r < len - i ? PLACE_CHANGE_RING - r : len - i;
        for (uint32_t q = 0; q < run; q++)
            ring[r + q] = a + i + q;
        i += run;
        r = 0;
    }
    c->changes += len;
    if (sign < 0) {
        c->gpus_free -= len;
        c->type_gpus_free[t] -= len;
    } else {
        c->gpus_free += len;
        c->type_gpus_free[t] += len;
    }
    place_bits *by = c->by_free[t];
    uint32_t f_old = sign < 0 ? 1u : 0u, f_new = sign < 0 ? 0u : 1u;
    for (uint32_t n = a, end = a + len; n < end;) {
        uint32_t i0 = n >> 6, stop = (i0 + 1) << 6 < end ? (i0 + 1) << 6 : end;
        uint32_t lo = n & 63u, w = stop - n; /* bits lo .. lo + w - 1 of word i0 */
        uint64_t m = (w == 64 ? ~0ull : (1ull << w) - 1) << lo;
        n = stop;
        /* A one-GPU node keeps a free share exactly when its GPU is free:
         * node_milli_free is 0 after a take (it was the free GPU's 1000)
         * and 1000 after a give (it was 0: the GPU was held). */
        uint64_t share = sign < 0 ? 0 : m;
        bits_word_clear(&by[f_old], i0, m);
        bits_word_set(&by[f_new], i0, m);
        if (share)
            bits_word_set(&c->any_share[t], i0, share);
        if (m & ~share)
            bits_word_clear(&c->any_share[t], i0, m & ~share);
    }
}

/* Runs shorter than this go part by part (take_unit, give_unit). */
#define UNIT_RUN_MIN 8u

int place_cluster_take_checked(place_cluster *c, const place_job *j, place_part *parts,
                               uint32_t n_parts)
{
    whole_batch wb = {0};
    int unit = j->gpu_milli == PLACE_MILLI_WHOLE && j->cpu_milli == 0 && j->host_mem_mib == 0;
    if (unit && n_parts == 1 && parts[0].gpus == 1 && c->node_gpus[parts[0].node] == 1 &&
        c->node_free_mask[parts[0].node] == 1) {
        /* one part on a one-GPU node: take_unit without the batch */
        uint32_t n = parts[0].node, t = take_unit_fields(c, &parts[0], n);
        unit_bits_one(c, n, t, 1, 0);
        return PLACE_OK;
    }
    for (uint32_t k = 0; k < n_parts; k++) {
        place_part *p = &parts[k];
        uint32_t n = p->node, g0 = c->node_gpu0[n];
        if (unit && p->gpus == 1 && c->node_gpus[n] == 1 && c->node_free_mask[n] == 1) {
            uint32_t len = unit_run(c, parts, k, n_parts, -1); /* >= 1: part k */
            if (len >= UNIT_RUN_MIN) {
                whole_batch_flush(c, &wb);
                for (uint32_t i = 0; i < len; i++)
                    parts[k + i].mask = 1;
                unit_range(c, n, len, -1);
            } else
                for (uint32_t i = 0; i < len; i++)
                    take_unit(c, &wb, &parts[k + i], n + i);
            k += len - 1;
            continue;
        }
        int64_t cpu = 0, mem = 0;
        if (j->cpu_milli != 0 || j->host_mem_mib != 0)
            place__part_host_share(j, parts, n_parts, k, &cpu, &mem);
        c->node_cpu_free_milli[n] -= cpu;
        c->node_mem_free_mib[n] -= mem;
        p->mask = 0;
        if (p->gpus == 0) {
            note_change(c, n);
            continue;
        }
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            whole_batch_flush(c, &wb);
            index_remove(c, n);
            c->gpu_free_milli[g0 + p->gpu] = (uint16_t)(c->gpu_free_milli[g0 + p->gpu] - p->milli);
            c->gpu_free_mem_mib[g0 + p->gpu] -= j->gpu_mem_mib;
            p->mask = 1ull << p->gpu;
            node_refresh(c, n);
        } else {
            /* the lowest-index fully free GPUs */
            uint64_t m = c->node_free_mask[n];
            for (uint32_t i = 0; i < p->gpus; i++) {
                uint32_t g = (uint32_t)__builtin_ctzll(m);
                m &= m - 1;
                p->mask |= 1ull << g;
                c->gpu_free_milli[g0 + g] = 0;
                c->gpu_free_mem_mib[g0 + g] = 0;
            }
            node_whole_batched(c, &wb, n, p->mask, -1);
        }
    }
    whole_batch_flush(c, &wb);
    return PLACE_OK;
}

int place_cluster_take(place_cluster *c, const place_job *j, place_part *parts, uint32_t n_parts)
{
    int rc = place_cluster_check(c, j, parts, n_parts);
    return rc == PLACE_OK ? place_cluster_take_checked(c, j, parts, n_parts) : rc;
}

int place_cluster_take_exact(place_cluster *c, const place_job *j, const place_part *parts,
                             uint32_t n_parts)
{
    int rc = place_cluster_check(c, j, parts, n_parts);
    if (rc != PLACE_OK)
        return rc;
    /* the masks must name free GPUs of the right count; checked for every part
     * before anything changes, so a refusal leaves the cluster as it was */
    for (uint32_t k = 0; k < n_parts; k++) {
        const place_part *p = &parts[k];
        uint32_t ng = c->node_gpus[p->node];
        uint64_t all = ng == 64 ? ~0ull : (1ull << ng) - 1;
        if (p->mask & ~all)
            return PLACE_ERR_INVAL;
        if (p->gpus == 0) {
            if (p->mask != 0)
                return PLACE_ERR_INVAL;
        } else if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            if (p->mask != 1ull << p->gpu)
                return PLACE_ERR_INVAL;
        } else if ((uint32_t)__builtin_popcountll(p->mask) != p->gpus ||
                   (p->mask & ~c->node_free_mask[p->node]) != 0) {
            return PLACE_ERR_INVAL;
        }
    }
    for (uint32_t k = 0; k < n_parts; k++) {
        const place_part *p = &parts[k];
        uint32_t n = p->node, g0 = c->node_gpu0[n];
        int64_t cpu, mem;
        place__part_host_share(j, parts, n_parts, k, &cpu, &mem);
        c->node_cpu_free_milli[n] -= cpu;
        c->node_mem_free_mib[n] -= mem;
        if (p->gpus == 0) {
            note_change(c, n);
            continue;
        }
        index_remove(c, n);
        for (uint64_t m = p->mask; m; m &= m - 1) {
            uint32_t g = g0 + (uint32_t)__builtin_ctzll(m);
            if (j->gpu_milli < PLACE_MILLI_WHOLE) {
                c->gpu_free_milli[g] = (uint16_t)(c->gpu_free_milli[g] - p->milli);
                c->gpu_free_mem_mib[g] -= j->gpu_mem_mib;
            } else {
                c->gpu_free_milli[g] = 0;
                c->gpu_free_mem_mib[g] = 0;
            }
        }
        node_refresh(c, n);
    }
    return PLACE_OK;
}

static inline uint32_t give_unit_fields(place_cluster *c, uint32_t n, uint32_t g0)
{
    uint32_t t = c->node_type[n];
    c->gpu_free_milli[g0] = PLACE_MILLI_WHOLE;
    c->gpu_free_mem_mib[g0] = c->type_mem_mib[t];
    note_change(c, n);
    c->node_free_mask[n] = 1;
    c->node_free[n] = 1;
    c->node_milli_free[n] += PLACE_MILLI_WHOLE;
    c->gpus_free++;
    c->type_gpus_free[t]++;
    return t;
}

static inline void give_unit(place_cluster *c, whole_batch *wb, uint32_t n, uint32_t g0)
{
    uint32_t t = give_unit_fields(c, n, g0);
    whole_batch_add(c, wb, batch_key(n >> 6, t, 0, 1), n, c->node_milli_free[n] > 0);
}

void place_cluster_give(place_cluster *c, const place_job *j, const place_part *parts,
                        uint32_t n_parts)
{
    whole_batch wb = {0};
    int unit = j->gpu_milli == PLACE_MILLI_WHOLE && j->cpu_milli == 0 && j->host_mem_mib == 0;
    if (unit && n_parts == 1) {
        uint32_t n = parts[0].node, g0 = c->node_gpu0[n];
        if (parts[0].mask == 1 && c->node_gpus[n] == 1 && c->gpu_up[g0] && c->node_up[n] &&
            c->node_free_mask[n] == 0) {
            /* one part on a one-GPU node: give_unit without the batch */
            uint32_t t = give_unit_fields(c, n, g0);
            unit_bits_one(c, n, t, 0, 1);
            return;
        }
    }
    for (uint32_t k = 0; k < n_parts; k++) {
        const place_part *p = &parts[k];
        uint32_t n = p->node, g0 = c->node_gpu0[n];
        if (unit && p->mask == 1 && c->node_gpus[n] == 1 && c->gpu_up[g0] && c->node_up[n] &&
            c->node_free_mask[n] == 0) {
            uint32_t len = unit_run(c, parts, k, n_parts, +1); /* >= 1: part k */
            if (len >= UNIT_RUN_MIN) {
                whole_batch_flush(c, &wb);
                unit_range(c, n, len, +1);
            } else
                for (uint32_t i = 0; i < len; i++)
                    give_unit(c, &wb, n + i, g0 + i);
            k += len - 1;
            continue;
        }
        int64_t cpu = 0, mem = 0;
        if (j->cpu_milli != 0 || j->host_mem_mib != 0)
            place__part_host_share(j, parts, n_parts, k, &cpu, &mem);
        c->node_cpu_free_milli[n] += cpu;
        c->node_mem_free_mib[n] += mem;
        if (p->gpus == 0) {
            note_change(c, n);
            continue;
        }
        uint32_t tmem = c->type_mem_mib[c->node_type[n]];
        if (j->gpu_milli >= PLACE_MILLI_WHOLE) {
            /* whole GPUs come back fully free; those out of service meanwhile do
             * not rejoin the free set (they still count as free when repaired) */
            uint64_t back = 0;
            for (uint64_t m = p->mask; m; m &= m - 1) {
                uint32_t g = (uint32_t)__builtin_ctzll(m);
                c->gpu_free_milli[g0 + g] = PLACE_MILLI_WHOLE;
                c->gpu_free_mem_mib[g0 + g] = tmem;
                if (c->gpu_up[g0 + g])
                    back |= 1ull << g;
            }
            if (c->node_up[n] && back)
                node_whole_batched(c, &wb, n, back, +1);
            else
                note_change(c, n);
            continue;
        }
        whole_batch_flush(c, &wb);
        if (c->node_up[n])
            index_remove(c, n);
        for (uint64_t m = p->mask; m; m &= m - 1) {
            uint32_t g = g0 + (uint32_t)__builtin_ctzll(m);
            c->gpu_free_milli[g] = (uint16_t)(c->gpu_free_milli[g] + p->milli);
            c->gpu_free_mem_mib[g] += j->gpu_mem_mib;
        }
        node_refresh(c, n);
    }
    whole_batch_flush(c, &wb);
}

/* ------------------------------------------------------------------------- */
/* invariants                                                                 */

int place_cluster_verify(const place_cluster *c)
{
    uint64_t up = 0, free = 0, type_up[PLACE_MAX_TYPES] = {0}, type_free[PLACE_MAX_TYPES] = {0};
    uint64_t cpu_up = 0, mem_up = 0;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        uint32_t t = c->node_type[n], g0 = c->node_gpu0[n];
        uint64_t mask = 0;
        uint32_t milli = 0, in_service = 0;
        for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
            if (c->gpu_free_milli[g0 + g] > PLACE_MILLI_WHOLE ||
                c->gpu_free_mem_mib[g0 + g] > c->type_mem_mib[t])
                return PLACE_ERR_INVAL;
            if (!c->gpu_up[g0 + g])
                continue;
            in_service++;
            milli += c->gpu_free_milli[g0 + g];
            if (c->gpu_free_milli[g0 + g] == PLACE_MILLI_WHOLE)
                mask |= 1ull << g;
        }
        if (!c->node_up[n]) {
            mask = 0;
            milli = 0;
        } else {
            up += in_service;
            type_up[t] += in_service;
            cpu_up += host_capped(c->node_cpu_milli[n]);
            mem_up += host_capped(c->node_mem_mib[n]);
        }
        if (mask != c->node_free_mask[n] || c->node_free[n] != __builtin_popcountll(mask) ||
            milli != c->node_milli_free[n])
            return PLACE_ERR_INVAL;
        free += c->node_free[n];
        type_free[t] += c->node_free[n];
        if (c->node_cpu_free_milli[n] < 0 || c->node_cpu_free_milli[n] > c->node_cpu_milli[n] ||
            c->node_mem_free_mib[n] < 0 || c->node_mem_free_mib[n] > c->node_mem_mib[n])
            return PLACE_ERR_INVAL;
        if (place_bits_test(&c->up[t], n) != c->node_up[n])
            return PLACE_ERR_INVAL;
        for (uint32_t f = 0; f <= PLACE_MAX_GPUS_PER_NODE; f++) {
            int want = c->node_up[n] && f == c->node_free[n];
            if (place_bits_test(&c->by_free[t][f], n) != want)
                return PLACE_ERR_INVAL;
        }
        if (place_bits_test(&c->any_share[t], n) != (c->node_up[n] && milli > 0))
            return PLACE_ERR_INVAL;
    }
    if (up != c->gpus_up || free != c->gpus_free || cpu_up != c->cpu_up_milli ||
        mem_up != c->mem_up_mib)
        return PLACE_ERR_INVAL;
    for (uint32_t t = 0; t < c->n_types; t++)
        if (type_up[t] != c->type_gpus_up[t] || type_free[t] != c->type_gpus_free[t])
            return PLACE_ERR_INVAL;
    return PLACE_OK;
}
