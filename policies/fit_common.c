/*
 * fit_common.c — what placement rules share: CPU-only jobs, gangs that span
 * nodes, filling in a decision, and the share test of one GPU.
 */
#include "place_int.h"

void place__decide_whole(place_decision *d, const place_job *j, uint32_t node)
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

void place__decide_share(place_decision *d, const place_job *j, uint32_t node, uint32_t g)
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

int place__gpu_share_fits(const place_cluster *c, uint32_t node, uint32_t g, const place_job *j)
{
    uint32_t k = c->node_gpu0[node] + g;
    return c->gpu_up[k] && c->gpu_free_milli[k] >= j->gpu_milli &&
           c->gpu_free_mem_mib[k] >= j->gpu_mem_mib;
}

/* Cost: O(nodes) in the worst case; CPU-only jobs are rare in GPU traces and
 * have no GPU index to use. */
int place__fit_cpu_only(const place_view *v, const place_job *j, place_decision *d)
{
    const place_cluster *c = v->cluster;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        if (c->node_up[n] && c->node_cpu_free_milli[n] >= j->cpu_milli &&
            c->node_mem_free_mib[n] >= j->host_mem_mib) {
            place_part *p = &d->parts[0];
            p->node = n;
            p->gpus = 0;
            p->gpu = PLACE_GPU_ANY;
            p->milli = PLACE_MILLI_WHOLE;
            p->mem_mib = 0;
            p->mask = 0;
            d->n_parts = 1;
            return PLACE_OK;
        }
    }
    return PLACE_ERR_NOFIT;
}

/* A gang over several nodes of one type, lowest type index first, nodes in
 * index order, each giving all its free GPUs until the gang is complete. The
 * per-type free count refuses a gang that cannot fit without walking; when
 * it can, the walk visits at most `gpus` nodes that contribute. */
int place__fit_span_first(const place_view *v, const place_job *j, place_decision *d)
{
    const place_cluster *c = v->cluster;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place__type_ok(c, j, t) || c->type_gpus_free[t] < j->gpus)
            continue;
        uint32_t need = j->gpus, np = 0;
        for (uint32_t n = place_cluster_next_free(c, t, 1, 0); n != PLACE_NONE && need > 0;
             n = place_cluster_next_free(c, t, 1, n + 1)) {
            if (np == d->cap_parts)
                break;
            uint32_t take = c->node_free[n] < need ? c->node_free[n] : need;
            place_part *p = &d->parts[np++];
            p->node = n;
            p->gpus = (uint16_t)take;
            p->gpu = PLACE_GPU_ANY;
            p->milli = PLACE_MILLI_WHOLE;
            p->mem_mib = j->gpu_mem_mib;
            p->mask = 0;
            need -= take;
        }
        if (need == 0) {
            d->n_parts = np;
            if (place_cluster_check(c, j, d->parts, np) == PLACE_OK)
                return PLACE_OK;
        }
    }
    return PLACE_ERR_NOFIT;
}
