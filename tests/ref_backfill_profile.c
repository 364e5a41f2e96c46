/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_backfill_profile.c — the capacity profile of the reserving backfill
 * rules as it was before it was kept across passes (policies/backfill_profile.c
 * at commit ad75c13): rebuilt from the view in every pass that needs it, a
 * sorted walk for every spanning search, no hopeless(). test_place_backfill_diff
 * runs it side by side with the library's profile and asserts the same
 * reservations, vetoes and decisions. The model is documented in
 * policies/backfill_profile.c; this copy is kept verbatim below the renames.
 */
#define place__profile          ref_profile
#define place__profile_create   ref_profile_create
#define place__profile_destroy  ref_profile_destroy
#define place__profile_begin    ref_profile_begin
#define place__profile_reserve  ref_profile_reserve
#define place__profile_allow    ref_profile_allow
#define place__profile_observe  ref_profile_observe
#define place__profile_n_resv   ref_profile_n_resv
#define place__profile_resv     ref_profile_resv
#define place__profile_hopeless ref_profile_hopeless
#include "ref_backfill_profile.h"
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

#define T_UNKNOWN INT64_MIN /* a GPU held by no listed job, while building */

typedef struct hev { /* host CPU and memory that return to a node at t */
    int64_t t, cpu, mem;
    uint32_t next;
} hev;

typedef struct seg { /* the profile's value from t until the next segment (or a change) */
    int64_t t, g, cpu, mem;
} seg;

typedef struct resv { /* capacity held on a node over [a, b) for queue entry qi */
    int64_t a, b, cpu, mem;
    uint32_t node, gpus, qi, next;
} resv;

struct place__profile {
    place_env env;
    uint32_t max_jobs, jobs_tried; /* jobs that may get a reservation per pass */
    int built;
    int64_t now;
    int64_t *free_at; /* per GPU: when it is fully free */
    uint32_t cap_gpus;
    uint32_t *hhead, *rhead; /* per node: host releases, reservations */
    uint32_t cap_hhead, cap_rhead, n_nodes;
    hev *hev;
    uint32_t n_hev, cap_hev;
    resv *rs;
    uint32_t n_rs, cap_rs;
    int64_t *cand; /* scratch: candidate start times */
    uint32_t cap_cand;
    uint32_t *cnodes; /* scratch: reserved nodes of a type (spanning search) */
    uint32_t cap_cnodes;
    int64_t *gtimes; /* scratch: when GPUs of unreserved nodes are free (spanning search) */
    uint32_t cap_gtimes;
    /* per GPU, per node: the node's free_at sorted (NEVER last), valid when
     * sorted_ok[n]: an unreserved node's earliest start is then one lookup */
    int64_t *sorted;
    uint32_t cap_sorted;
    struct seg *segs, *evs; /* scratch: a reserved node's profile as segments */
    uint32_t cap_segs, cap_evs;
    /* reserved nodes' timelines, kept until the node changes: pool[off..off+len) */
    struct seg *pool;
    uint32_t n_pool, cap_pool;
    uint32_t *tl_off, *tl_len;
    uint8_t *tl_ok;
    uint32_t cap_tl_off, cap_tl_len, cap_tl_ok;
    uint8_t *sorted_ok;
    uint32_t cap_sorted_ok;
};

static int64_t add_sat(int64_t a, int64_t b)
{
    if (a == PLACE_T_NEVER || b == PLACE_T_NEVER || a > PLACE_T_NEVER - b)
        return PLACE_T_NEVER;
    return a + b;
}

/* A job's estimated run from now; never 0, so that a reservation holds something. */
static int64_t duration_of(const place_job *j)
{
    if (j->estimate_us < 0)
        return PLACE_T_NEVER;
    return j->estimate_us > 0 ? j->estimate_us : 1;
}

int place__profile_create(const place_env *env, uint32_t max_jobs, place__profile **out)
{
    place__profile *p = place__realloc(env, NULL, 0, sizeof *p);
    if (!p)
        return PLACE_ERR_NOMEM;
    memset(p, 0, sizeof *p);
    p->env = *env;
    p->max_jobs = max_jobs;
    *out = p;
    return PLACE_OK;
}

void place__profile_destroy(place__profile *p)
{
    if (!p)
        return;
    place__free(&p->env, p->free_at, p->cap_gpus * sizeof *p->free_at);
    place__free(&p->env, p->hhead, p->cap_hhead * sizeof *p->hhead);
    place__free(&p->env, p->rhead, p->cap_rhead * sizeof *p->rhead);
    place__free(&p->env, p->gtimes, p->cap_gtimes * sizeof *p->gtimes);
    place__free(&p->env, p->sorted, p->cap_sorted * sizeof *p->sorted);
    place__free(&p->env, p->segs, p->cap_segs * sizeof *p->segs);
    place__free(&p->env, p->evs, p->cap_evs * sizeof *p->evs);
    place__free(&p->env, p->pool, p->cap_pool * sizeof *p->pool);
    place__free(&p->env, p->tl_off, p->cap_tl_off * sizeof *p->tl_off);
    place__free(&p->env, p->tl_len, p->cap_tl_len * sizeof *p->tl_len);
    place__free(&p->env, p->tl_ok, p->cap_tl_ok);
    place__free(&p->env, p->sorted_ok, p->cap_sorted_ok);
    place__free(&p->env, p->hev, p->cap_hev * sizeof *p->hev);
    place__free(&p->env, p->rs, p->cap_rs * sizeof *p->rs);
    place__free(&p->env, p->cand, p->cap_cand * sizeof *p->cand);
    place__free(&p->env, p->cnodes, p->cap_cnodes * sizeof *p->cnodes);
    place_env env = p->env;
    place__free(&env, p, sizeof *p);
}

/* Per-node heads for n nodes; new entries empty. */
static int nodes_reserve(place__profile *p, uint32_t n)
{
    uint32_t old = p->cap_hhead;
    if (place__grow(&p->env, (void **)&p->hhead, &p->cap_hhead, n, sizeof *p->hhead) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    for (uint32_t k = old; k < p->cap_hhead; k++)
        p->hhead[k] = PLACE_NONE;
    old = p->cap_rhead;
    if (place__grow(&p->env, (void **)&p->rhead, &p->cap_rhead, n, sizeof *p->rhead) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    for (uint32_t k = old; k < p->cap_rhead; k++)
        p->rhead[k] = PLACE_NONE;
    return PLACE_OK;
}

void place__profile_begin(place__profile *p, const place_view *v)
{
    for (uint32_t k = 0; k < p->n_rs; k++)
        p->rhead[p->rs[k].node] = PLACE_NONE;
    p->n_rs = 0;
    p->jobs_tried = 0;
    p->built = 0;
    p->now = v->now_us;
}

static int push_hev(place__profile *p, uint32_t node, int64_t t, int64_t cpu, int64_t mem)
{
    if (t == PLACE_T_NEVER || (cpu == 0 && mem == 0))
        return PLACE_OK;
    if (place__grow(&p->env, (void **)&p->hev, &p->cap_hev, p->n_hev + 1, sizeof *p->hev))
        return PLACE_ERR_NOMEM;
    hev *h = &p->hev[p->n_hev];
    h->t = t;
    h->cpu = cpu;
    h->mem = mem;
    h->next = p->hhead[node];
    p->hhead[node] = p->n_hev++;
    return PLACE_OK;
}

/* When running job r is expected to end, as the profile counts it. */
static int64_t end_of(const place__profile *p, const place_running *r)
{
    if (r->end_estimate_us < 0)
        return PLACE_T_NEVER;
    return r->end_estimate_us > p->now ? r->end_estimate_us : p->now + 1;
}

/* Record running job r's hold on its GPUs and host resources. */
static int add_running(place__profile *p, const place_cluster *c, const place_running *r)
{
    int64_t end = end_of(p, r);
    for (uint32_t k = 0; k < r->n_parts; k++) {
        const place_part *pt = &r->parts[k];
        if (pt->node >= c->n_nodes)
            continue;
        p->sorted_ok[pt->node] = 0;
        p->tl_ok[pt->node] = 0;
        uint32_t g0 = c->node_gpu0[pt->node];
        for (uint64_t m = pt->mask; m; m &= m - 1) {
            uint32_t x = g0 + (uint32_t)__builtin_ctzll(m);
            /* the latest end of the jobs on a GPU is when it is fully free;
             * a GPU out of service stays never */
            if (x < c->n_gpus && p->free_at[x] != PLACE_T_NEVER && p->free_at[x] < end)
                p->free_at[x] = end;
        }
        int64_t cpu, mem;
        place__part_host_share(&r->job, r->parts, r->n_parts, k, &cpu, &mem);
        if (push_hev(p, pt->node, end, cpu, mem) != PLACE_OK)
            return PLACE_ERR_NOMEM;
    }
    return PLACE_OK;
}

/* Build the profile from the view: O(GPUs + running parts). */
static int build(place__profile *p, const place_view *v)
{
    const place_cluster *c = v->cluster;
    if (nodes_reserve(p, c->n_nodes) != PLACE_OK ||
        place__grow(&p->env, (void **)&p->free_at, &p->cap_gpus, c->n_gpus ? c->n_gpus : 1,
                    sizeof *p->free_at) != PLACE_OK ||
        place__grow(&p->env, (void **)&p->sorted, &p->cap_sorted, c->n_gpus ? c->n_gpus : 1,
                    sizeof *p->sorted) != PLACE_OK ||
        place__grow(&p->env, (void **)&p->sorted_ok, &p->cap_sorted_ok, c->n_nodes ? c->n_nodes : 1,
                    1) != PLACE_OK ||
        place__grow(&p->env, (void **)&p->tl_ok, &p->cap_tl_ok, c->n_nodes ? c->n_nodes : 1, 1) !=
            PLACE_OK ||
        place__grow(&p->env, (void **)&p->tl_off, &p->cap_tl_off, c->n_nodes ? c->n_nodes : 1,
                    sizeof *p->tl_off) != PLACE_OK ||
        place__grow(&p->env, (void **)&p->tl_len, &p->cap_tl_len, c->n_nodes ? c->n_nodes : 1,
                    sizeof *p->tl_len) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    memset(p->sorted_ok, 0, c->n_nodes);
    memset(p->tl_ok, 0, c->n_nodes);
    p->n_pool = 0;
    p->n_nodes = c->n_nodes;
    p->n_hev = 0;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        p->hhead[n] = PLACE_NONE;
        uint32_t g0 = c->node_gpu0[n];
        for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
            uint32_t x = g0 + g;
            if (!c->node_up[n] || !c->gpu_up[x])
                p->free_at[x] = PLACE_T_NEVER;
            else if (c->gpu_free_milli[x] == PLACE_MILLI_WHOLE)
                p->free_at[x] = p->now;
            else
                p->free_at[x] = T_UNKNOWN;
        }
    }
    for (uint32_t k = 0; k < v->n_running; k++)
        if (add_running(p, c, &v->running[k]) != PLACE_OK)
            return PLACE_ERR_NOMEM;
    for (uint32_t x = 0; x < c->n_gpus; x++)
        if (p->free_at[x] == T_UNKNOWN)
            p->free_at[x] = PLACE_T_NEVER; /* held by something the view does not list */
    p->built = 1;
    return PLACE_OK;
}

static int ensure_built(place__profile *p, const place_view *v)
{
    return p->built ? PLACE_OK : build(p, v);
}

/* The profile of node n at time t. */
static void eval(const place__profile *p, const place_cluster *c, uint32_t n, int64_t t,
                 int64_t *gpus, int64_t *cpu, int64_t *mem)
{
    int64_t g = 0, cp = c->node_cpu_free_milli[n], me = c->node_mem_free_mib[n];
    uint32_t g0 = c->node_gpu0[n];
    for (uint32_t k = 0; k < c->node_gpus[n]; k++)
        g += p->free_at[g0 + k] <= t;
    for (uint32_t h = p->hhead[n]; h != PLACE_NONE; h = p->hev[h].next)
        if (p->hev[h].t <= t) {
            cp += p->hev[h].cpu;
            me += p->hev[h].mem;
        }
    for (uint32_t r = p->rhead[n]; r != PLACE_NONE; r = p->rs[r].next)
        if (p->rs[r].a <= t && t < p->rs[r].b) {
            g -= p->rs[r].gpus;
            cp -= p->rs[r].cpu;
            me -= p->rs[r].mem;
        }
    *gpus = g;
    *cpu = cp;
    *mem = me;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cand_push(place__profile *p, uint32_t *n, int64_t t)
{
    if (t <= p->now || t == PLACE_T_NEVER)
        return PLACE_OK;
    if (place__grow(&p->env, (void **)&p->cand, &p->cap_cand, *n + 1, sizeof *p->cand))
        return PLACE_ERR_NOMEM;
    p->cand[(*n)++] = t;
    return PLACE_OK;
}

/* The times at which node n's profile can rise, after now, sorted, into
 * p->cand[first..); returns the new end, or PLACE_NONE on out of memory. */
static uint32_t node_breaks(place__profile *p, const place_cluster *c, uint32_t n, uint32_t first)
{
    uint32_t m = first, g0 = c->node_gpu0[n];
    for (uint32_t k = 0; k < c->node_gpus[n]; k++)
        if (cand_push(p, &m, p->free_at[g0 + k]))
            return PLACE_NONE;
    for (uint32_t h = p->hhead[n]; h != PLACE_NONE; h = p->hev[h].next)
        if (cand_push(p, &m, p->hev[h].t))
            return PLACE_NONE;
    for (uint32_t r = p->rhead[n]; r != PLACE_NONE; r = p->rs[r].next)
        if (cand_push(p, &m, p->rs[r].b))
            return PLACE_NONE;
    if (m - first > 1)
        qsort(p->cand + first, m - first, sizeof *p->cand, cmp_i64);
    return m;
}

static int cmp_seg(const void *a, const void *b)
{
    int64_t x = ((const seg *)a)->t, y = ((const seg *)b)->t;
    return x < y ? -1 : x > y;
}

static int push_ev(place__profile *p, uint32_t *m, int64_t t, int64_t g, int64_t cpu, int64_t mem)
{
    if (place__grow(&p->env, (void **)&p->evs, &p->cap_evs, *m + 1, sizeof *p->evs))
        return PLACE_ERR_NOMEM;
    p->evs[(*m)++] = (seg){t, g, cpu, mem};
    return PLACE_OK;
}

/* Node n's profile from now on as segments p->segs[0..*count): segment i holds
 * from segs[i].t until segs[i + 1].t (the last one forever). O(b log b) for
 * b breakpoints (GPU free times, host releases, reservation ends). */
static int timeline(place__profile *p, const place_cluster *c, uint32_t n, uint32_t *count)
{
    seg cur = {p->now, 0, c->node_cpu_free_milli[n], c->node_mem_free_mib[n]};
    uint32_t m = 0, g0 = c->node_gpu0[n];
    for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
        int64_t f = p->free_at[g0 + g];
        if (f <= p->now)
            cur.g++;
        else if (f != PLACE_T_NEVER && push_ev(p, &m, f, 1, 0, 0))
            return PLACE_ERR_NOMEM;
    }
    for (uint32_t h = p->hhead[n]; h != PLACE_NONE; h = p->hev[h].next)
        if (push_ev(p, &m, p->hev[h].t, 0, p->hev[h].cpu, p->hev[h].mem))
            return PLACE_ERR_NOMEM;
    for (uint32_t r = p->rhead[n]; r != PLACE_NONE; r = p->rs[r].next) {
        const resv *x = &p->rs[r];
        if (x->b <= p->now)
            continue;
        if (x->a <= p->now) {
            cur.g -= x->gpus;
            cur.cpu -= x->cpu;
            cur.mem -= x->mem;
        } else if (push_ev(p, &m, x->a, -(int64_t)x->gpus, -x->cpu, -x->mem)) {
            return PLACE_ERR_NOMEM;
        }
        if (x->b != PLACE_T_NEVER && push_ev(p, &m, x->b, x->gpus, x->cpu, x->mem))
            return PLACE_ERR_NOMEM;
    }
    if (m > 1)
        qsort(p->evs, m, sizeof *p->evs, cmp_seg);
    if (place__grow(&p->env, (void **)&p->segs, &p->cap_segs, m + 1, sizeof *p->segs))
        return PLACE_ERR_NOMEM;
    uint32_t k = 0;
    p->segs[k++] = cur;
    for (uint32_t i = 0; i < m; i++) {
        cur.t = p->evs[i].t;
        cur.g += p->evs[i].g;
        cur.cpu += p->evs[i].cpu;
        cur.mem += p->evs[i].mem;
        if (p->segs[k - 1].t == cur.t)
            p->segs[k - 1] = cur;
        else
            p->segs[k++] = cur;
    }
    *count = k;
    return PLACE_OK;
}

/* Node n's timeline, built once and kept until the node changes (a
 * reservation on it, or a job started on it). The pointer is good until the
 * next call. */
static const seg *timeline_of(place__profile *p, const place_cluster *c, uint32_t n,
                              uint32_t *count)
{
    if (!p->tl_ok[n]) {
        uint32_t k;
        if (timeline(p, c, n, &k) != PLACE_OK ||
            place__grow(&p->env, (void **)&p->pool, &p->cap_pool, p->n_pool + k, sizeof *p->pool) !=
                PLACE_OK)
            return NULL;
        memcpy(p->pool + p->n_pool, p->segs, k * sizeof *p->segs);
        p->tl_off[n] = p->n_pool;
        p->tl_len[n] = k;
        p->n_pool += k;
        p->tl_ok[n] = 1;
    }
    *count = p->tl_len[n];
    return p->pool + p->tl_off[n];
}

/* The same for a node without reservations, where every dimension only grows
 * with time: the latest of the times each dimension first suffices. The
 * node's GPU free times are sorted once per pass (and again after a job
 * starts on it), so this is O(1) plus the node's host releases when host
 * resources are short now. */
static int64_t free_earliest(const place__profile *p, const place_cluster *c, uint32_t n, int64_t k,
                             int64_t cpu, int64_t mem)
{
    int64_t t = p->now;
    if (k > 0) {
        uint32_t g0 = c->node_gpu0[n], ng = c->node_gpus[n];
        int64_t *a = p->sorted + g0;
        if (!p->sorted_ok[n]) {
            for (uint32_t g = 0; g < ng; g++) { /* insertion sort: a node's few GPUs */
                int64_t f = p->free_at[g0 + g];
                uint32_t i = g;
                for (; i > 0 && a[i - 1] > f; i--)
                    a[i] = a[i - 1];
                a[i] = f;
            }
            p->sorted_ok[n] = 1;
        }
        if ((uint32_t)k > ng || a[k - 1] == PLACE_T_NEVER)
            return PLACE_T_NEVER;
        if (a[k - 1] > t)
            t = a[k - 1];
    }
    int64_t cp = c->node_cpu_free_milli[n], me = c->node_mem_free_mib[n];
    if (cp < cpu || me < mem) {
        /* host short now: walk the releases in time order (few per node) */
        int64_t last = p->now;
        for (;;) {
            int64_t next = PLACE_T_NEVER;
            for (uint32_t h = p->hhead[n]; h != PLACE_NONE; h = p->hev[h].next)
                if (p->hev[h].t > last && p->hev[h].t < next)
                    next = p->hev[h].t;
            if (next == PLACE_T_NEVER)
                return PLACE_T_NEVER;
            for (uint32_t h = p->hhead[n]; h != PLACE_NONE; h = p->hev[h].next)
                if (p->hev[h].t == next) {
                    cp += p->hev[h].cpu;
                    me += p->hev[h].mem;
                }
            last = next;
            if (cp >= cpu && me >= mem)
                break;
        }
        if (last > t)
            t = last;
    }
    return t;
}

/* Earliest start >= now at which node n holds (k, cpu, mem) for d; PLACE_T_NEVER if none. */
static int64_t node_earliest(place__profile *p, const place_cluster *c, uint32_t n, int64_t k,
                             int64_t cpu, int64_t mem, int64_t d, int *nomem)
{
    if (p->rhead[n] == PLACE_NONE)
        return free_earliest(p, c, n, k, cpu, mem);
    uint32_t ns;
    const seg *sg = timeline_of(p, c, n, &ns);
    if (!sg) {
        *nomem = 1;
        return PLACE_T_NEVER;
    }
    /* a start is a segment start; from a feasible segment, extend while the
     * segments are feasible; an infeasible one inside the run rules out every
     * start up to it */
    for (uint32_t i = 0; i < ns;) {
        if (sg[i].g < k || sg[i].cpu < cpu || sg[i].mem < mem) {
            i++;
            continue;
        }
        int64_t end = add_sat(sg[i].t, d);
        uint32_t j = i + 1;
        while (j < ns && sg[j].t < end && sg[j].g >= k && sg[j].cpu >= cpu && sg[j].mem >= mem)
            j++;
        if (j == ns || sg[j].t >= end)
            return sg[i].t;
        i = j + 1;
    }
    return PLACE_T_NEVER;
}

static int add_resv(place__profile *p, uint32_t node, int64_t a, int64_t b, uint32_t gpus,
                    int64_t cpu, int64_t mem, uint32_t qi)
{
    if (place__grow(&p->env, (void **)&p->rs, &p->cap_rs, p->n_rs + 1, sizeof *p->rs))
        return PLACE_ERR_NOMEM;
    resv *r = &p->rs[p->n_rs];
    r->a = a;
    r->b = b;
    r->gpus = gpus;
    r->cpu = cpu;
    r->mem = mem;
    r->node = node;
    r->qi = qi;
    r->next = p->rhead[node];
    p->rhead[node] = p->n_rs++;
    p->tl_ok[node] = 0;
    return PLACE_OK;
}

/* GPUs node n (of the spanning type) can give over all of [t, t + d). */
static int64_t span_avail(const place__profile *p, const place_cluster *c, uint32_t n, int64_t t,
                          int64_t d)
{
    int64_t g, cp, me, low;
    eval(p, c, n, t, &low, &cp, &me);
    int64_t end = add_sat(t, d);
    for (uint32_t r = p->rhead[n]; r != PLACE_NONE; r = p->rs[r].next) {
        int64_t a = p->rs[r].a;
        if (a <= t || a >= end)
            continue;
        eval(p, c, n, a, &g, &cp, &me);
        if (g < low)
            low = g;
    }
    return low > 0 ? low : 0;
}

/* A spanning gang on nodes of type t: the earliest time the sum of what the
 * nodes can give holds k GPUs for d. Nodes without reservations give
 * #GPUs free by then, so their sum is a count over one sorted array; only
 * nodes with reservations are evaluated at each candidate time. */
static int64_t span_earliest(place__profile *p, const place_cluster *c, uint32_t t, int64_t k,
                             int64_t d, int *nomem)
{
    uint32_t m = 0, nr = 0, ng = 0;
    for (uint32_t n = place_bits_next(&c->up[t], 0); n != PLACE_NONE;
         n = place_bits_next(&c->up[t], n + 1)) {
        if (p->rhead[n] != PLACE_NONE) {
            if (place__grow(&p->env, (void **)&p->cnodes, &p->cap_cnodes, nr + 1,
                            sizeof *p->cnodes)) {
                *nomem = 1;
                return PLACE_T_NEVER;
            }
            p->cnodes[nr++] = n;
            uint32_t e = node_breaks(p, c, n, m);
            if (e == PLACE_NONE) {
                *nomem = 1;
                return PLACE_T_NEVER;
            }
            m = e;
            continue;
        }
        uint32_t g0 = c->node_gpu0[n];
        for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
            int64_t f = p->free_at[g0 + g];
            if (f == PLACE_T_NEVER)
                continue;
            if (place__grow(&p->env, (void **)&p->gtimes, &p->cap_gtimes, ng + 1,
                            sizeof *p->gtimes)) {
                *nomem = 1;
                return PLACE_T_NEVER;
            }
            p->gtimes[ng++] = f > p->now ? f : p->now;
        }
    }
    if (m > 1)
        qsort(p->cand, m, sizeof *p->cand, cmp_i64);
    if (ng > 1)
        qsort(p->gtimes, ng, sizeof *p->gtimes, cmp_i64);
    /* walk the candidate times (now, GPUs of unreserved nodes, breakpoints of
     * reserved ones) in order; unreserved nodes give what is free by then */
    uint32_t ia = 0, ib = 0;
    int64_t time = p->now;
    for (;;) {
        while (ib < ng && p->gtimes[ib] <= time)
            ib++;
        int64_t sum = ib;
        for (uint32_t r = 0; r < nr && sum < k; r++)
            sum += span_avail(p, c, p->cnodes[r], time, d);
        if (sum >= k)
            return time;
        while (ia < m && p->cand[ia] <= time)
            ia++;
        int64_t next = PLACE_T_NEVER;
        if (ia < m)
            next = p->cand[ia];
        if (ib < ng && p->gtimes[ib] < next)
            next = p->gtimes[ib];
        if (next == PLACE_T_NEVER)
            return PLACE_T_NEVER;
        time = next;
    }
}

/* Reserve a spanning gang at time `at` on nodes of type t, lowest index first. */
static int span_reserve(place__profile *p, const place_cluster *c, const place_job *j, uint32_t t,
                        int64_t at, int64_t d, uint32_t qi)
{
    int64_t rem = j->gpus, end = add_sat(at, d);
    for (uint32_t n = place_bits_next(&c->up[t], 0); n != PLACE_NONE && rem > 0;
         n = place_bits_next(&c->up[t], n + 1)) {
        int64_t give = span_avail(p, c, n, at, d);
        if (give > rem)
            give = rem;
        if (give <= 0)
            continue;
        int64_t cpu = j->cpu_milli * give / (int64_t)j->gpus;
        int64_t mem = j->host_mem_mib * give / (int64_t)j->gpus;
        if (add_resv(p, n, at, end, (uint32_t)give, cpu, mem, qi) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        rem -= give;
    }
    return PLACE_OK;
}

int place__profile_reserve(place__profile *p, const place_view *v, uint32_t i)
{
    if (p->jobs_tried >= p->max_jobs || i >= v->n_queue)
        return PLACE_OK;
    p->jobs_tried++;
    if (ensure_built(p, v) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    const place_cluster *c = v->cluster;
    const place_job *j = &v->queue[i];
    int64_t d = duration_of(j), k = j->gpus == 0                       ? 0
                                    : j->gpu_milli < PLACE_MILLI_WHOLE ? 1
                                                                       : j->gpus;
    int64_t best = PLACE_T_NEVER;
    uint32_t best_node = PLACE_NONE, best_type = PLACE_NONE;
    int nomem = 0;
    for (uint32_t n = 0; n < c->n_nodes && best != p->now; n++) {
        if (!c->node_up[n] || c->node_gpus[n] < k || c->node_cpu_milli[n] < j->cpu_milli ||
            c->node_mem_mib[n] < j->host_mem_mib)
            continue;
        if (k > 0 && !place_type_ok(c, j, c->node_type[n]))
            continue;
        int64_t t = node_earliest(p, c, n, k, j->cpu_milli, j->host_mem_mib, d, &nomem);
        if (nomem)
            return PLACE_ERR_NOMEM;
        if (t < best) {
            best = t;
            best_node = n;
        }
    }
    if ((j->flags & PLACE_JOB_CAN_SPAN) && j->gpus > 1 && j->gpu_milli == PLACE_MILLI_WHOLE) {
        for (uint32_t t = 0; t < c->n_types; t++) {
            if (!place_type_ok(c, j, t) || c->type_gpus_up[t] < j->gpus)
                continue;
            int64_t s = span_earliest(p, c, t, k, d, &nomem);
            if (nomem)
                return PLACE_ERR_NOMEM;
            if (s < best) {
                best = s;
                best_type = t;
            }
        }
    }
    if (best == PLACE_T_NEVER)
        return PLACE_OK; /* no bounded start: nothing to protect */
    if (best_type != PLACE_NONE)
        return span_reserve(p, c, j, best_type, best, d, i);
    return add_resv(p, best_node, best, add_sat(best, d), (uint32_t)k, j->cpu_milli,
                    j->host_mem_mib, i);
}

int place__profile_allow(place__profile *p, const place_view *v, const place_job *j,
                         const place_part *part)
{
    if (p->n_rs == 0 || part->node >= p->n_nodes || p->rhead[part->node] == PLACE_NONE)
        return 1;
    if (ensure_built(p, v) != PLACE_OK)
        return 0; /* out of memory: refuse rather than risk a reservation */
    const place_cluster *c = v->cluster;
    uint32_t n = part->node;
    int64_t end = add_sat(p->now, j->estimate_us < 0 ? PLACE_T_NEVER : j->estimate_us);
    if (end <= p->now)
        return 1; /* done before anything can change */
    /* what the part holds: GPUs from `from` on, host resources from now on */
    int64_t k = part->gpus, from = p->now;
    if (part->gpus == 1 && j->gpu_milli < PLACE_MILLI_WHOLE && part->gpu < c->node_gpus[n]) {
        int64_t f = p->free_at[c->node_gpu0[n] + part->gpu];
        if (f > p->now)
            from = f; /* a partly used GPU: held only from when it would be fully free */
        if (from >= end)
            k = 0;
    }
    int64_t cpu = j->cpu_milli, mem = j->host_mem_mib;
    if (j->gpus > 0 && part->gpus < j->gpus) {
        cpu = j->cpu_milli * part->gpus / (int64_t)j->gpus;
        mem = j->host_mem_mib * part->gpus / (int64_t)j->gpus;
    }
    /* profile - occupation must stay >= 0 on every segment before the end; a
     * partly used GPU's free time is a segment start, so `from` is one too */
    uint32_t ns;
    const seg *sg = timeline_of(p, c, n, &ns);
    if (!sg)
        return 0;
    for (uint32_t i = 0; i < ns && sg[i].t < end; i++)
        if (sg[i].g - (sg[i].t >= from ? k : 0) < 0 || sg[i].cpu < cpu || sg[i].mem < mem)
            return 0;
    return 1;
}

void place__profile_observe(place__profile *p, const place_view *v, const place_decision *d)
{
    if (!p->built)
        return; /* built from the view when first needed */
    if (d->kind == PLACE_START && d->index < v->n_queue) {
        uint64_t id = v->queue[d->index].id;
        for (uint32_t k = v->n_running; k-- > 0;)
            if (v->running[k].job.id == id) {
                if (add_running(p, v->cluster, &v->running[k]) != PLACE_OK)
                    p->built = 0;
                return;
            }
    }
    if (d->kind != PLACE_ROUTE_API)
        p->built = 0; /* a preemption, or a start the host did not list: rebuild */
}

uint32_t place__profile_n_resv(const place__profile *p)
{
    return p->n_rs;
}

void place__profile_resv(const place__profile *p, uint32_t k, uint32_t *node, int64_t *start_us,
                         int64_t *end_us, uint32_t *gpus, uint32_t *queue_index)
{
    const resv *r = &p->rs[k];
    *node = r->node;
    *start_us = r->a;
    *end_us = r->b;
    *gpus = r->gpus;
    *queue_index = r->qi;
}
