/*
 * place_int.h — what the files of policies/ share and nobody else sees.
 *
 * The composed policy (compose.c) is built from components: a queue order, a
 * placement rule (a "fit") and a backfilling rule. Each component is one file
 * with one table; registry.c lists them. Adding one is one file and one line.
 */
#ifndef TARMAC_PLACE_INT_H
#define TARMAC_PLACE_INT_H

#include "place.h"

/* Memory through the host's allocator. */
void *place__realloc(const place_env *env, void *p, size_t old_size, size_t new_size);
void place__free(const place_env *env, void *p, size_t size);

/* Bit-set maintenance (cluster.c). */
int place__bits_init(place_bits *b, const place_env *env, uint32_t n);
void place__bits_fini(place_bits *b, const place_env *env);
int place__bits_resize(place_bits *b, const place_env *env, uint32_t n);
void place__bits_set(place_bits *b, uint32_t i);
void place__bits_clear(place_bits *b, uint32_t i);

/* Can a GPU of type t ever serve the job's per-GPU request (type allowed and memory)? */
static inline int place__type_ok(const place_cluster *c, const place_job *j, uint32_t t)
{
    if (j->type_mask != 0 && !((j->type_mask >> t) & 1u))
        return 0;
    return j->gpu_mem_mib <= c->type_mem_mib[t];
}

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

/* ------------------------------------------------------------------------- */
/* Components of the composed policy                                          */

/* Queue order: fill perm[0..n) with the queue indices in the order the policy
 * considers them. perm arrives holding 0..n-1. sort == NULL means arrival order
 * itself, and then no permutation is built at all (a pass stays O(1) when the
 * head of a strict queue does not fit). */
typedef struct place_order {
    const char *name;
    const char *summary;
    int (*sort)(const place_view *v, uint32_t *perm, uint32_t n);
} place_order;

/* Placement: choose parts for job j now (d->parts has d->cap_parts room).
 * Returns PLACE_OK with d->n_parts set, or PLACE_ERR_NOFIT. */
typedef struct place_fit {
    const char *name;
    const char *summary;
    int (*fit)(const place_view *v, const place_job *j, place_decision *d, const place_env *env);
} place_fit;

/* Backfilling: what happens when the job at the cursor does not fit.
 * PLACE_BF_STOP: strict order, the pass ends (head-of-line blocking).
 * PLACE_BF_SKIP: try the next job (list scheduling, no reservation). */
enum place_backfill_mode { PLACE_BF_STOP = 0, PLACE_BF_SKIP = 1 };
typedef struct place_backfill {
    const char *name;
    const char *summary;
    int mode;
} place_backfill;

/* The specification a preset name stands for, or NULL. */
const char *place__preset_find(const char *name);
const place_order *place__order_find(const char *name);
const place_fit *place__fit_find(const char *name);
const place_backfill *place__backfill_find(const char *name);

/* Shared helpers for fits (fit_common.c). */
/* Place a CPU-only job on the first node in service with the host CPU/memory. */
int place__fit_cpu_only(const place_view *v, const place_job *j, place_decision *d);
/* Span a gang over nodes of one type, taking nodes in index order. */
int place__fit_span_first(const place_view *v, const place_job *j, place_decision *d);
/* Fill d with a one-part whole-GPU placement on node. */
void place__decide_whole(place_decision *d, const place_job *j, uint32_t node);
/* Fill d with a one-part share placement on GPU g of node. */
void place__decide_share(place_decision *d, const place_job *j, uint32_t node, uint32_t g);
/* Does GPU g (index within node) have room for the job's share? */
int place__gpu_share_fits(const place_cluster *c, uint32_t node, uint32_t g, const place_job *j);

/* The components and policies of registry.c. */
extern const place_order place__order_fifo;
extern const place_fit place__fit_first;
extern const place_fit place__fit_best;
extern const place_backfill place__backfill_none;
extern const place_backfill place__backfill_greedy;
extern const place_policy place__policy_compose;

#endif
