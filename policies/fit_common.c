/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_common.c — what placement rules share: the per-job tests (type, host,
 * share of one GPU), filling in a decision, CPU-only jobs and gangs that span
 * nodes. Public (place.h) so that a new rule in one file needs nothing else.
 */
#include "place.h"
#include "place_int.h"

int place_type_ok(const place_cluster *c, const place_job *j, uint32_t t)
{
    if (j->type_mask != 0 && !((j->type_mask >> t) & 1u))
        return 0;
    return j->gpu_mem_mib <= c->type_mem_mib[t];
}

/* (The names in parentheses: place_int.h makes them macros for the library.) */
int(place_host_ok)(const place_cluster *c, uint32_t n, const place_job *j)
{
    return c->node_cpu_free_milli[n] >= j->cpu_milli && c->node_mem_free_mib[n] >= j->host_mem_mib;
}

void place_decide_whole(place_decision *d, const place_job *j, uint32_t node)
{
    place_part *p = &d->parts[0];
    p->node = node;
    p->gpus = (uint16_t)j->gpus;
    p->gpu = PLACE_GPU_ANY;
    p->milli = PLACE_MILLI_WHOLE;
    p->mem_mib = j->gpu_mem_mib;
    p->mask = 0;
    d->n_parts = 1;
}

void place_decide_share(place_decision *d, const place_job *j, uint32_t node, uint32_t g)
{
    place_part *p = &d->parts[0];
    p->node = node;
    p->gpus = 1;
    p->gpu = (uint16_t)g;
    p->milli = j->gpu_milli;
    p->mem_mib = j->gpu_mem_mib;
    p->mask = 0;
    d->n_parts = 1;
}

int(place_gpu_share_fits)(const place_cluster *c, uint32_t node, uint32_t g, const place_job *j)
{
    uint32_t k = c->node_gpu0[node] + g;
    return c->gpu_up[k] && c->gpu_free_milli[k] >= j->gpu_milli &&
           c->gpu_free_mem_mib[k] >= j->gpu_mem_mib;
}

/* Cost: O(nodes) in the worst case; CPU-only jobs are rare in GPU traces and
 * have no GPU index to use. */
int place_fit_cpu_only(const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        if (!c->node_up[n] || !place_host_ok(c, n, j))
            continue;
        place_part *p = &d->parts[0];
        p->node = n;
        p->gpus = 0;
        p->gpu = PLACE_GPU_ANY;
        p->milli = PLACE_MILLI_WHOLE;
        p->mem_mib = 0;
        p->mask = 0;
        if (!place_fit_allowed(ctx, v, j, p))
            continue;
        d->n_parts = 1;
        return PLACE_OK;
    }
    return PLACE_ERR_NOFIT;
}

/* A gang over several nodes of one type, lowest type index first, nodes in
 * index order, each giving all its free GPUs until the gang is complete. The
 * per-type free count refuses a gang that cannot fit without walking; when
 * it can, the walk visits at most `gpus` nodes that contribute (plus those
 * the backfilling rule vetoes). */
int place_fit_span_first(const place_view *v, const place_job *j, place_decision *d,
                         const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    /* Whole GPUs without a host share (an SWF gang): the parts built below
     * pass place_cluster_check() by construction, so it is not asked. They
     * are distinct nodes in increasing order, each in service and of type t
     * (the index files only nodes in service, by type), t passed
     * place_type_ok() (the job's type mask and GPU memory), each part takes
     * at least one and at most its node's fully free GPUs as whole GPUs, the
     * parts add up to the job's GPUs (need == 0), the job may span when there
     * are several, and with no host share to split the host test is "free
     * CPU and memory not negative", which the cluster's invariants keep. With
     * a host share the check tests the split, so it is asked. */
    int no_check = j->gpus > 0 && j->gpu_milli == PLACE_MILLI_WHOLE && j->cpu_milli == 0 &&
                   j->host_mem_mib == 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t) || c->type_gpus_free[t] < j->gpus)
            continue;
        uint32_t need = j->gpus, np = 0;
        if (c->type_max_gpus[t] == 1 && need > 0) {
            /* One-GPU nodes (SWF machines): the nodes with a free GPU are
             * the bits of one bucket, each gives one GPU; the same nodes in
             * the same order as the general walk below, a word at a time. */
            const place_bits *b = &c->by_free[t][1];
            place_part q = place__part_gpus(j, 0, 1);
            for (uint32_t n = place_bits_next(b, 0); n != PLACE_NONE && need > 0;
                 n = place_bits_next(b, (n | 63u) + 1)) {
                uint32_t base = n & ~63u;
                for (uint64_t w = b->w0[n >> 6] & (~0ull << (n & 63u)); w && need > 0; w &= w - 1) {
                    if (np == d->cap_parts)
                        goto walked;
                    place_part *p = &d->parts[np];
                    *p = q;
                    p->node = base + (uint32_t)__builtin_ctzll(w);
                    if (!place_fit_allowed(ctx, v, j, p))
                        continue;
                    np++;
                    need--;
                }
                if ((n | 63u) == UINT32_MAX)
                    break;
            }
        walked:;
        } else
            for (uint32_t n = place_cluster_next_free(c, t, 1, 0); n != PLACE_NONE && need > 0;
                 n = place_cluster_next_free(c, t, 1, n + 1)) {
                if (np == d->cap_parts)
                    break;
                uint32_t take = c->node_free[n] < need ? c->node_free[n] : need;
                place_part *p = &d->parts[np];
                *p = place__part_gpus(j, n, take);
                if (!place_fit_allowed(ctx, v, j, p))
                    continue;
                np++;
                need -= take;
            }
        if (need == 0 && np > 1 && !(j->flags & PLACE_JOB_CAN_SPAN))
            no_check = 0; /* the check refuses it (PLACE_ERR_SPAN) */
        if (need == 0) {
            d->n_parts = np;
            if (no_check || place_cluster_check(c, j, d->parts, np) == PLACE_OK)
                return PLACE_OK;
        }
    }
    return PLACE_ERR_NOFIT;
}
