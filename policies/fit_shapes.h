/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_shapes.h — per-job-shape node results kept between decisions, for the
 * scanning fits (dotprod, random) of the library's own files.
 *
 * A scanning fit's answer for node n depends only on the job's shape (host
 * CPU and memory, GPUs, share, GPU memory, allowed types) and on node n's
 * state; between two decisions only the nodes the cluster's change journal
 * names (place_cluster.change_ring) changed. A fit keeps, per shape, what it
 * derived from every node, and when the shape is next asked for, redoes the
 * nodes logged since (each entry once per logged change), or everything when
 * the journal cannot say (first use, another cluster, nodes added, more than
 * PLACE_CHANGE_RING changes since, or the backlog outgrew the nodes).
 *
 * The slots are a set-associative cache: PLACE__SHAPE_SETS sets of
 * PLACE__SHAPE_WAYS shapes each, least recently used evicted (openb's default
 * pod list has 151 shapes; an evicted shape only costs a rebuild on return).
 * The fit owns what a slot's `data` points to (data_size bytes).
 */
#ifndef TARMAC_FIT_SHAPES_H
#define TARMAC_FIT_SHAPES_H

#include "place_int.h"

#include <string.h>

#define PLACE__SHAPE_SETS 128u
#define PLACE__SHAPE_WAYS 4u

typedef struct place__shape_key {
    int64_t cpu_milli, host_mem_mib;
    uint64_t type_mask;
    uint32_t gpus, gpu_milli, gpu_mem_mib;
} place__shape_key;

typedef struct place__shape {
    place__shape_key key;
    int used;      /* the slot holds a shape */
    int valid;     /* data matches the cluster as of (serial, changes) */
    uint64_t last; /* the decision that last used it (eviction) */
    uint64_t serial, changes;
    uint32_t n_nodes;
    void *data;
    size_t data_size;
} place__shape;

typedef struct place__shapes {
    place__shape slot[PLACE__SHAPE_SETS * PLACE__SHAPE_WAYS];
    uint64_t clock;
    /* seen[n] == epoch: node n was already redone in this catch-up (a node
     * the journal names many times, as when pods fill one node, is redone
     * once) */
    uint32_t *seen, seen_n, epoch;
} place__shapes;

static inline place__shape_key place__shape_key_of(const place_job *j)
{
    place__shape_key k;
    memset(&k, 0, sizeof k); /* no padding bytes left undefined */
    k.cpu_milli = j->cpu_milli;
    k.host_mem_mib = j->host_mem_mib;
    k.type_mask = j->type_mask;
    k.gpus = j->gpus;
    k.gpu_milli = j->gpu_milli;
    k.gpu_mem_mib = j->gpu_mem_mib;
    return k;
}

static inline int place__shape_key_eq(const place__shape_key *a, const place__shape_key *b)
{
    return a->cpu_milli == b->cpu_milli && a->host_mem_mib == b->host_mem_mib &&
           a->type_mask == b->type_mask && a->gpus == b->gpus && a->gpu_milli == b->gpu_milli &&
           a->gpu_mem_mib == b->gpu_mem_mib;
}

/* The slot of job j's shape: found, or a free or least recently used one of
 * its set taken over (its data kept for reuse, marked not valid). */
static inline place__shape *place__shape_slot(place__shapes *t, const place_job *j)
{
    place__shape_key k = place__shape_key_of(j);
    uint64_t h = (uint64_t)k.cpu_milli * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)k.host_mem_mib * 0xc2b2ae3d27d4eb4full;
    h ^= k.type_mask * 0x165667b19e3779f9ull;
    h ^= ((uint64_t)k.gpus << 40 ^ (uint64_t)k.gpu_milli << 20 ^ k.gpu_mem_mib) *
         0xd6e8feb86659fd93ull;
    h ^= h >> 29;
    place__shape *set = &t->slot[(h % PLACE__SHAPE_SETS) * PLACE__SHAPE_WAYS], *victim = set;
    t->clock++;
    for (uint32_t w = 0; w < PLACE__SHAPE_WAYS; w++) {
        place__shape *s = &set[w];
        if (s->used && place__shape_key_eq(&s->key, &k)) {
            s->last = t->clock;
            return s;
        }
        if (!s->used ? victim->used : (victim->used && s->last < victim->last))
            victim = s;
    }
    victim->key = k;
    victim->used = 1;
    victim->valid = 0;
    victim->last = t->clock;
    return victim;
}

/* 1 when slot s can catch up on cluster c from the journal alone: the
 * changed nodes are c->change_ring[q % PLACE_CHANGE_RING] for q from
 * s->changes to c->changes. A backlog longer than the cluster's nodes is
 * cheaper rebuilt. */
static inline int place__shape_can_follow(const place__shape *s, const place_cluster *c)
{
    return s->valid && s->serial == c->serial && s->n_nodes == c->n_nodes &&
           c->changes >= s->changes && c->changes - s->changes <= PLACE_CHANGE_RING &&
           c->changes - s->changes <= c->n_nodes;
}

/* Record that slot s is up to date with cluster c. */
static inline void place__shape_synced(place__shape *s, const place_cluster *c)
{
    s->valid = 1;
    s->serial = c->serial;
    s->changes = c->changes;
    s->n_nodes = c->n_nodes;
}

/* Make s->data at least `size` bytes (contents not kept); 0 on failure. */
static inline int place__shape_reserve(const place_env *env, place__shape *s, size_t size)
{
    if (s->data_size >= size)
        return 1;
    void *p = place__realloc(env, s->data, s->data_size, size);
    if (!p)
        return 0;
    s->data = p;
    s->data_size = size;
    return 1;
}

/* Start a catch-up on n nodes: place__shape_first then says whether a
 * node is named for the first time in it. 0 when out of memory (then every
 * node counts as first). */
static inline int place__shape_catchup(const place_env *env, place__shapes *t, uint32_t n)
{
    if (t->seen_n < n) {
        uint32_t *p = place__realloc(env, t->seen, t->seen_n * sizeof *p, n * sizeof *p);
        if (!p)
            return 0;
        memset(p + t->seen_n, 0, (n - t->seen_n) * sizeof *p);
        t->seen = p;
        t->seen_n = n;
    }
    if (++t->epoch == 0) { /* wrapped: forget every mark */
        memset(t->seen, 0, t->seen_n * sizeof *t->seen);
        t->epoch = 1;
    }
    return 1;
}

static inline int place__shape_first(place__shapes *t, int dedupe, uint32_t n)
{
    if (!dedupe)
        return 1;
    if (t->seen[n] == t->epoch)
        return 0;
    t->seen[n] = t->epoch;
    return 1;
}

/* The leaves of a tournament tree over n nodes: the least power of two >= n
 * (dotprod's and gpu-packing's kept trees). */
static inline uint32_t place__tree_width(uint32_t n)
{
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* Set bits of x, without relying on a popcount instruction. */
static inline uint32_t place__popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static inline void place__shapes_free(const place_env *env, place__shapes *t)
{
    if (t->seen)
        place__free(env, t->seen, t->seen_n * sizeof *t->seen);
    for (uint32_t i = 0; i < PLACE__SHAPE_SETS * PLACE__SHAPE_WAYS; i++)
        if (t->slot[i].data)
            place__free(env, t->slot[i].data, t->slot[i].data_size);
    memset(t, 0, sizeof *t);
}

#endif
