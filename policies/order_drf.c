/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_drf.c — fair share across tenants by dominant resource fairness.
 *
 * Resources are the GPUs of each type (an H100 and an L4 are different
 * resources), host CPU and host memory, each normalised by what the cluster
 * has in service. A tenant's dominant share is the largest of its normalised
 * usages; the running jobs give the starting usage. The order is DRF's
 * progressive filling: repeatedly take the tenant with the smallest dominant
 * share, emit its oldest waiting job, and add that job's demand to the
 * tenant's usage as if it had started. Ties (equal shares) go to the tenant
 * whose next job arrived first. A waiting job's GPU demand is counted on the
 * allowed type with the most GPUs in service (its type is not chosen until it
 * is placed; that type is where the demand is least noticeable, which is
 * the optimistic reading).
 *
 * Cost per pass: O(queue + running parts) to gather, O(queue x log tenants)
 * for the filling (a binary heap of tenants), O(tenants x types) memory.
 * Source: Ghodsi et al., "Dominant resource fairness: fair allocation of
 * multiple resource types", NSDI 2011.
 */
#include "place_int.h"

#include <string.h>

typedef struct tenant {
    uint32_t id;
    uint32_t head, tail; /* its waiting jobs (queue indices), linked through next[] */
    double share;
} tenant;

typedef struct drf {
    place_env env;
    tenant *t;
    uint32_t n_t, cap_t;
    uint32_t *slot; /* open-addressing hash: tenant id -> index in t, PLACE_NONE empty */
    uint32_t cap_slot;
    double *use; /* n_t x (n_types + 2): usage per resource */
    uint32_t cap_use;
    uint32_t *next; /* per queue entry: next waiting job of the same tenant */
    uint32_t cap_next;
    uint32_t *heap;
    uint32_t cap_heap;
} drf;

static int drf_create(const place_env *env, const char *args, void **state, char *err,
                      size_t err_len)
{
    if (*args)
        return place__keysort_create(env, args, state, err, err_len); /* reports the error */
    drf *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    *state = s;
    return PLACE_OK;
}

static void drf_destroy(void *state)
{
    drf *s = state;
    if (!s)
        return;
    place__free(&s->env, s->t, s->cap_t * sizeof *s->t);
    place__free(&s->env, s->slot, s->cap_slot * sizeof *s->slot);
    place__free(&s->env, s->use, s->cap_use * sizeof *s->use);
    place__free(&s->env, s->next, s->cap_next * sizeof *s->next);
    place__free(&s->env, s->heap, s->cap_heap * sizeof *s->heap);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

static uint32_t hash_u32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x45d9f3bu;
    x ^= x >> 16;
    return x;
}

/* The index of tenant `id`, adding it when new; PLACE_NONE on out of memory. */
static uint32_t tenant_of(drf *s, uint32_t id, uint32_t n_res)
{
    uint32_t mask = s->cap_slot - 1, h = hash_u32(id) & mask;
    while (s->slot[h] != PLACE_NONE) {
        if (s->t[s->slot[h]].id == id)
            return s->slot[h];
        h = (h + 1) & mask;
    }
    uint32_t k = s->n_t;
    if (place__grow(&s->env, (void **)&s->t, &s->cap_t, k + 1, sizeof *s->t) != PLACE_OK)
        return PLACE_NONE;
    uint32_t cap = s->cap_use;
    if (place__grow(&s->env, (void **)&s->use, &cap, (k + 1) * n_res, sizeof *s->use) != PLACE_OK)
        return PLACE_NONE;
    s->cap_use = cap;
    memset(&s->use[k * n_res], 0, n_res * sizeof *s->use);
    s->t[k] = (tenant){id, PLACE_NONE, PLACE_NONE, 0.0};
    s->slot[h] = k;
    s->n_t++;
    return k;
}

static double dominant(const drf *s, const place_cluster *c, uint32_t k, uint32_t n_res)
{
    const double *u = &s->use[k * n_res];
    double d = 0;
    for (uint32_t t = 0; t < c->n_types; t++)
        if (c->type_gpus_up[t] > 0 && u[t] / (double)c->type_gpus_up[t] > d)
            d = u[t] / (double)c->type_gpus_up[t];
    if (c->cpu_up_milli > 0 && u[c->n_types] / (double)c->cpu_up_milli > d)
        d = u[c->n_types] / (double)c->cpu_up_milli;
    if (c->mem_up_mib > 0 && u[c->n_types + 1] / (double)c->mem_up_mib > d)
        d = u[c->n_types + 1] / (double)c->mem_up_mib;
    return d;
}

/* Add a waiting job's demand: GPUs on its allowed type with the most GPUs up. */
static void add_demand(drf *s, const place_cluster *c, uint32_t k, uint32_t n_res,
                       const place_job *j)
{
    double *u = &s->use[k * n_res];
    uint32_t best = PLACE_NONE;
    for (uint32_t t = 0; t < c->n_types && j->gpus > 0; t++)
        if (place_type_ok(c, j, t) &&
            (best == PLACE_NONE || c->type_gpus_up[t] > c->type_gpus_up[best]))
            best = t;
    if (best != PLACE_NONE)
        u[best] += (double)j->gpus * j->gpu_milli / PLACE_MILLI_WHOLE;
    u[c->n_types] += (double)(j->cpu_milli < PLACE_HOST_CAP ? j->cpu_milli : PLACE_HOST_CAP);
    u[c->n_types + 1] +=
        (double)(j->host_mem_mib < PLACE_HOST_CAP ? j->host_mem_mib : PLACE_HOST_CAP);
}

/* Heap order: smaller share first, then the earlier next job. */
static int before(const drf *s, uint32_t a, uint32_t b)
{
    if (s->t[a].share != s->t[b].share)
        return s->t[a].share < s->t[b].share;
    return s->t[a].head < s->t[b].head;
}

static void sift_down(drf *s, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < n && before(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            return;
        uint32_t x = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = x;
        i = m;
    }
}

static int drf_sort(void *state, const place_view *v, uint32_t *perm, uint32_t n)
{
    drf *s = state;
    const place_cluster *c = v->cluster;
    uint32_t n_res = c->n_types + 2;
    /* a hash with room for every tenant the pass can see, at most half full */
    uint32_t want = 16;
    while (want < 2 * (n + v->n_running + 1))
        want *= 2;
    if (want > s->cap_slot) {
        uint32_t *p = place__realloc(&s->env, s->slot, s->cap_slot * sizeof *p, want * sizeof *p);
        if (!p)
            return PLACE_ERR_NOMEM;
        s->slot = p;
        s->cap_slot = want;
    }
    for (uint32_t k = 0; k < s->cap_slot; k++)
        s->slot[k] = PLACE_NONE;
    s->n_t = 0;
    if (place__grow(&s->env, (void **)&s->next, &s->cap_next, n ? n : 1, sizeof *s->next))
        return PLACE_ERR_NOMEM;
    /* usage of the running jobs, on the types they run on */
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        uint32_t k = tenant_of(s, rj->job.tenant, n_res);
        if (k == PLACE_NONE)
            return PLACE_ERR_NOMEM;
        double *u = &s->use[k * n_res];
        for (uint32_t p = 0; p < rj->n_parts; p++) {
            if (rj->parts[p].node >= c->n_nodes || rj->parts[p].gpus == 0)
                continue;
            u[c->node_type[rj->parts[p].node]] +=
                (double)rj->parts[p].gpus * rj->job.gpu_milli / PLACE_MILLI_WHOLE;
        }
        int64_t cpu = rj->job.cpu_milli, mem = rj->job.host_mem_mib;
        u[c->n_types] += (double)(cpu < PLACE_HOST_CAP ? cpu : PLACE_HOST_CAP);
        u[c->n_types + 1] += (double)(mem < PLACE_HOST_CAP ? mem : PLACE_HOST_CAP);
    }
    /* each tenant's waiting jobs, in the order perm gives (arrival order) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t q = perm[i];
        uint32_t k = tenant_of(s, v->queue[q].tenant, n_res);
        if (k == PLACE_NONE)
            return PLACE_ERR_NOMEM;
        s->next[q] = PLACE_NONE;
        if (s->t[k].head == PLACE_NONE)
            s->t[k].head = q;
        else
            s->next[s->t[k].tail] = q;
        s->t[k].tail = q;
    }
    if (place__grow(&s->env, (void **)&s->heap, &s->cap_heap, s->n_t ? s->n_t : 1, sizeof *s->heap))
        return PLACE_ERR_NOMEM;
    uint32_t hn = 0;
    for (uint32_t k = 0; k < s->n_t; k++) {
        s->t[k].share = dominant(s, c, k, n_res);
        if (s->t[k].head != PLACE_NONE)
            s->heap[hn++] = k;
    }
    for (uint32_t i = hn / 2; i-- > 0;)
        sift_down(s, hn, i);
    /* progressive filling */
    for (uint32_t out = 0; out < n; out++) {
        uint32_t k = s->heap[0], q = s->t[k].head;
        perm[out] = q;
        add_demand(s, c, k, n_res, &v->queue[q]);
        s->t[k].share = dominant(s, c, k, n_res);
        s->t[k].head = s->next[q];
        if (s->t[k].head == PLACE_NONE)
            s->heap[0] = s->heap[--hn];
        sift_down(s, hn, 0);
    }
    return PLACE_OK;
}

const place_order place__order_drf = {
    .name = "drf",
    .summary = "fair share across tenants by dominant resource fairness (progressive filling)",
    .create = drf_create,
    .destroy = drf_destroy,
    .sort = drf_sort,
};
