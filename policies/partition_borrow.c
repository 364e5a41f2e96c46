/* SPDX-License-Identifier: Apache-2.0 */
/*
 * partition_borrow.c — quotas with borrowing: "borrow[:RECLAIM]".
 *
 * Each tenant's guarantee is the GPUs of the nodes it owns
 * (place_cluster.node_tenant). A job is placed at home first (its tenant's
 * nodes and shared ones); if it does not fit there and it is preemptible, it
 * may borrow idle nodes of other tenants. A job that is not preemptible never
 * borrows: lent capacity must be returnable. Each tenant has its own queue
 * (PLACE_PARTITION_QUEUES), as in strict mode.
 *
 * Reclaim: when a job does not fit anywhere, it has waited at least RECLAIM
 * (a duration, default 0) since it was submitted, and one node its tenant owns
 * would hold it once borrowers there were evicted, the rule plans that
 * eviction: the PREEMPT of each chosen borrower, then the job's START on the
 * freed GPUs. The borrowers pay their checkpoint and restart cost through the
 * host's ordinary preemption path. On a node, borrowers are chosen by lowest
 * priority, then least work lost, then the most recently started (Kueue's
 * candidate order); among nodes, the one needing the fewest victims, then the
 * least lost work, then the lowest index. A job whose RECLAIM has not run out
 * asks for a wake-up then (place_policy.wake), so a host that only runs passes
 * on change still reclaims on time.
 *
 * A gang that may span nodes and that no single node of its tenant can hold
 * even with the borrowers gone is reclaimed over several of its tenant's
 * nodes of one GPU type (reclaim_span): the GPUs free there now count first;
 * then borrowers are evicted, lowest priority first and, among equals, the
 * one freeing the most GPUs there (fewest victims), then the least work lost,
 * the most recently started, until the gang's GPUs are there; the gang takes
 * the nodes the evictions freed first, then nodes already free, in index
 * order, and a victim none of whose GPUs it takes is spared.
 *
 * What it does not do (docs/partition.md): only whole GPUs of borrowers are
 * counted as freed (a GPU share held by a borrower is not reclaimed); free
 * GPUs on shared nodes do not complete a spanning reclaim; owners are never
 * preempted for one another.
 *
 * Cost: the borrowers are indexed by the tenant owning the node they borrow
 * (built at the first reclaim of a pass, O(running), then kept through the
 * pass's decisions: a START adds the new job's borrowed parts, a PREEMPT
 * follows the host's swap-remove), so a reclaim reads only the b borrowers
 * on its tenant's nodes and sorts them: O(b log b), only for jobs that do not
 * fit; a spanning one also walks the nodes once per GPU type:
 * O(types x nodes). Each running index carries a token that changes when
 * another job takes the index, so an entry of a job gone or moved is known
 * stale and dropped when met.
 * Sources: Kueue cohorts (borrowingLimit, preemption.reclaimWithinCohort),
 * YARN's capacity scheduler (guaranteed capacity, elasticity, preemption of
 * over-capacity queues after max_wait_before_kill), Slurm partitions with
 * PreemptMode=REQUEUE.
 */
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct cand {
    uint32_t node, run; /* node of the part, running index */
    int32_t priority;
    uint64_t mask; /* the part's GPUs on the node */
    double lost_gpu_s;
    int64_t start_us;
    uint64_t id;
    int64_t cpu_milli, mem_mib; /* host resources the part holds on the node */
} cand;

/* A borrower as a whole, for a spanning reclaim: the GPUs it frees on the
 * tenant's nodes of one type. */
typedef struct vict {
    uint32_t run, gpus;
    int32_t priority;
    double lost_gpu_s;
    int64_t start_us;
    uint64_t id;
} vict;

/* A borrowed part in the index: part `part` of running[run], valid while the
 * index's token of run is still tok. */
typedef struct bent {
    uint32_t run, part;
    uint64_t tok;
} bent;

/* The borrowed parts on the nodes of one owner tenant. */
typedef struct owner_list {
    uint32_t tenant;
    uint32_t n, cap;
    bent *e;
} owner_list;

typedef struct borrow {
    place_env env;
    /* the index of borrowers by owner (the file's comment, "Cost") */
    int idx_ok;     /* it describes the view's running set */
    uint32_t idx_n; /* the view's n_running it describes */
    uint64_t *tok;  /* per running index: its occupant's token */
    uint32_t cap_tok;
    uint64_t next_tok;
    owner_list *own; /* sorted by tenant */
    uint32_t n_own, cap_own;
    int64_t reclaim_us;
    int64_t wake_us; /* the earliest reclaim that was not due yet in this pass */
    cand *c;
    uint32_t cap;
    vict *v;
    uint32_t cap_v;
    struct freed {
        uint64_t mask;              /* GPUs the victims free on the node */
        int64_t cpu_milli, mem_mib; /* and host resources */
    } * freed;                      /* per node, for a spanning reclaim */
    uint32_t cap_n;
} borrow;

/* "": 0; otherwise a number of seconds with an optional unit s, m, h or d. */
static int parse_duration(const char *s, int64_t *out_us)
{
    if (!*s) {
        *out_us = 0;
        return PLACE_OK;
    }
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s)
        return PLACE_ERR_SPEC;
    double unit = 1;
    if (*end == 's')
        end++;
    else if (*end == 'm')
        unit = 60, end++;
    else if (*end == 'h')
        unit = 3600, end++;
    else if (*end == 'd')
        unit = 86400, end++;
    x *= unit;
    if (*end || !(x >= 0) || x > 1e12) /* also refuses NaN */
        return PLACE_ERR_SPEC;
    *out_us = (int64_t)(x * 1e6 + 0.5);
    return PLACE_OK;
}

static int borrow_create(const place_env *env, const char *args, void **state, char *err,
                         size_t err_len)
{
    int64_t r;
    if (parse_duration(args, &r) != PLACE_OK) {
        if (err && err_len) {
            const char *msg = "partition 'borrow': expected a reclaim delay such as 600, 90s, 10m "
                              "or 1h, got '";
            size_t k = 0;
            for (const char *p = msg; *p && k + 1 < err_len; p++)
                err[k++] = *p;
            for (const char *p = args; *p && k + 2 < err_len && k < 200; p++)
                err[k++] = *p;
            if (k + 1 < err_len)
                err[k++] = '\'';
            err[k] = '\0';
        }
        return PLACE_ERR_SPEC;
    }
    borrow *b = place__realloc(env, NULL, 0, sizeof *b);
    if (!b)
        return PLACE_ERR_NOMEM;
    memset(b, 0, sizeof *b);
    b->env = *env;
    b->reclaim_us = r;
    b->wake_us = PLACE_T_NEVER;
    *state = b;
    return PLACE_OK;
}

static void borrow_destroy(void *state)
{
    borrow *b = state;
    if (!b)
        return;
    place__free(&b->env, b->c, b->cap * sizeof *b->c);
    place__free(&b->env, b->v, b->cap_v * sizeof *b->v);
    place__free(&b->env, b->freed, b->cap_n * sizeof *b->freed);
    place__free(&b->env, b->tok, b->cap_tok * sizeof *b->tok);
    for (uint32_t k = 0; k < b->n_own; k++)
        place__free(&b->env, b->own[k].e, b->own[k].cap * sizeof *b->own[k].e);
    place__free(&b->env, b->own, b->cap_own * sizeof *b->own);
    place_env env = b->env;
    place__free(&env, b, sizeof *b);
}

static int borrow_begin(void *state, const place_view *v)
{
    (void)v;
    borrow *b = state;
    b->wake_us = PLACE_T_NEVER;
    b->idx_ok = 0; /* the running set changed between passes: built again when needed */
    return PLACE_OK;
}

/* The list of owner `tenant`: NULL when it has none and create is 0, or when
 * memory runs out (*rc says which). */
static owner_list *owner_find(borrow *b, uint32_t tenant, int create, int *rc)
{
    uint32_t lo = 0, hi = b->n_own;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->own[mid].tenant < tenant)
            lo = mid + 1;
        else
            hi = mid;
    }
    *rc = PLACE_OK;
    if (lo < b->n_own && b->own[lo].tenant == tenant)
        return &b->own[lo];
    if (!create)
        return NULL;
    if ((*rc = place__grow(&b->env, (void **)&b->own, &b->cap_own, b->n_own + 1, sizeof *b->own)) !=
        PLACE_OK)
        return NULL;
    memmove(&b->own[lo + 1], &b->own[lo], (b->n_own - lo) * sizeof *b->own);
    b->own[lo] = (owner_list){tenant, 0, 0, NULL};
    b->n_own++;
    return &b->own[lo];
}

/* Index the borrowed whole-GPU parts of running[k] (a preemptible job's parts
 * on nodes another tenant owns), under the token tok[k]. */
static int idx_add(borrow *b, const place_view *v, uint32_t k)
{
    const place_running *r = &v->running[k];
    if (!(r->job.flags & PLACE_JOB_PREEMPTIBLE))
        return PLACE_OK;
    for (uint32_t q = 0; q < r->n_parts; q++) {
        const place_part *p = &r->parts[q];
        uint32_t owner = place_node_tenant(v->cluster, p->node);
        if (p->gpus == 0 || p->milli < PLACE_MILLI_WHOLE || owner == PLACE_NONE ||
            owner == r->job.tenant)
            continue;
        int rc;
        owner_list *l = owner_find(b, owner, 1, &rc);
        if (!l)
            return rc;
        if ((rc = place__grow(&b->env, (void **)&l->e, &l->cap, l->n + 1, sizeof *l->e)) !=
            PLACE_OK)
            return rc;
        l->e[l->n++] = (bent){k, q, b->tok[k]};
    }
    return PLACE_OK;
}

/* Index the whole running set: O(running). */
static int idx_build(borrow *b, const place_view *v)
{
    b->idx_ok = 0;
    for (uint32_t k = 0; k < b->n_own; k++)
        b->own[k].n = 0;
    int rc = place__grow(&b->env, (void **)&b->tok, &b->cap_tok, v->n_running, sizeof *b->tok);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t k = 0; k < v->n_running; k++) {
        b->tok[k] = ++b->next_tok;
        if ((rc = idx_add(b, v, k)) != PLACE_OK)
            return rc;
    }
    b->idx_n = v->n_running;
    b->idx_ok = 1;
    return PLACE_OK;
}

/* Keep the index through the pass's decisions (place.h: a START appends the
 * new job, a PREEMPT moves the last entry into the victim's index). Anything
 * else, or a view that does not match, drops the index; the next reclaim
 * builds it again. */
static void borrow_observe(void *state, const place_view *v, const place_decision *d, int status)
{
    borrow *b = state;
    if (!b->idx_ok || status != PLACE_OK)
        return;
    b->idx_ok = 0;
    if (d->kind == PLACE_START) {
        if (v->n_running != b->idx_n + 1 || place__grow(&b->env, (void **)&b->tok, &b->cap_tok,
                                                        v->n_running, sizeof *b->tok) != PLACE_OK)
            return;
        uint32_t k = b->idx_n++;
        b->tok[k] = ++b->next_tok;
        if (idx_add(b, v, k) != PLACE_OK)
            return;
    } else if (d->kind == PLACE_PREEMPT) {
        if (v->n_running + 1 != b->idx_n || d->index >= b->idx_n)
            return;
        uint32_t last = --b->idx_n;
        if (d->index < last) {
            b->tok[d->index] = b->tok[last]; /* the same job, at its new index */
            if (idx_add(b, v, d->index) != PLACE_OK)
                return;
        }
    } else if (d->kind != PLACE_ROUTE_API || v->n_running != b->idx_n) {
        return;
    }
    b->idx_ok = 1;
}

static int64_t borrow_wake(void *state, const place_view *v)
{
    const borrow *b = state;
    return b->wake_us > v->now_us ? b->wake_us : PLACE_T_NEVER;
}

/* Home: own and shared nodes. Borrowing: any node, for preemptible jobs. */
static int borrow_allow(void *state, const place_view *v, const place_job *j, uint32_t node,
                        int phase)
{
    (void)state;
    uint32_t owner = place_node_tenant(v->cluster, node);
    if (owner == PLACE_NONE || owner == j->tenant)
        return 1;
    return phase == PLACE_PHASE_BORROW && (j->flags & PLACE_JOB_PREEMPTIBLE);
}

/* Borrowers on one node first in the order they are evicted. */
static int cand_cmp(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->lost_gpu_s != b->lost_gpu_s)
        return a->lost_gpu_s < b->lost_gpu_s ? -1 : 1;
    if (a->start_us != b->start_us)
        return a->start_us > b->start_us ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

/* GPUs of node n that are in service (bit g). */
static uint64_t node_up_mask(const place_cluster *c, uint32_t n)
{
    uint64_t m = 0;
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        if (c->gpu_up[c->node_gpu0[n] + g])
            m |= 1ull << g;
    return m;
}

static int vict_run_cmp(const void *pa, const void *pb)
{
    const vict *a = pa, *b = pb;
    return (a->run > b->run) - (a->run < b->run);
}

/* The order in which a spanning reclaim evicts: lowest priority, most GPUs
 * freed, least work lost, most recently started, lowest id. */
static int vict_evict_cmp(const void *pa, const void *pb)
{
    const vict *a = pa, *b = pb;
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->gpus != b->gpus)
        return a->gpus > b->gpus ? -1 : 1;
    if (a->lost_gpu_s != b->lost_gpu_s)
        return a->lost_gpu_s < b->lost_gpu_s ? -1 : 1;
    if (a->start_us != b->start_us)
        return a->start_us > b->start_us ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int is_victim(const vict *v, uint32_t n, uint32_t run)
{
    for (uint32_t k = 0; k < n; k++)
        if (v[k].run == run)
            return 1;
    return 0;
}

/* Add node n's GPUs to a spanning plan: up to `need` of those free now or
 * freed by the victims. */
static void span_take(const place_cluster *c, const borrow *b, const place_job *j, uint32_t n,
                      uint32_t *need, place_decision *d)
{
    if (*need == 0 || d->n_parts == d->cap_parts)
        return;
    uint32_t avail = (uint32_t)__builtin_popcountll((c->node_free_mask[n] | b->freed[n].mask) &
                                                    node_up_mask(c, n));
    uint32_t take = avail < *need ? avail : *need;
    if (take == 0)
        return;
    place_part *p = &d->parts[d->n_parts++];
    *p = place__part_whole(j, n);
    p->gpus = (uint16_t)take;
    *need -= take;
}

/* A gang that may span nodes, over its tenant's nodes of one type (the file's
 * comment has the rule). The candidates b->c[0..n) are sorted by node. */
static int reclaim_span(borrow *b, const place_view *v, const place_job *j, uint32_t n,
                        uint32_t *victims, uint32_t cap_victims, uint32_t *n_victims,
                        place_decision *d)
{
    const place_cluster *c = v->cluster;
    int rc = place__grow(&b->env, (void **)&b->v, &b->cap_v, n, sizeof *b->v);
    if (rc == PLACE_OK)
        rc = place__grow(&b->env, (void **)&b->freed, &b->cap_n, c->n_nodes, sizeof *b->freed);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        /* a type without borrowers to evict has nothing to reclaim */
        int any = 0;
        for (uint32_t k = 0; k < n && !any; k++)
            any = c->node_type[b->c[k].node] == t;
        if (!any)
            continue;
        uint32_t have = 0, owned = 0;
        for (uint32_t x = 0; x < c->n_nodes; x++)
            if (c->node_type[x] == t && c->node_up[x] && place_node_tenant(c, x) == j->tenant) {
                uint64_t up = node_up_mask(c, x);
                have += (uint32_t)__builtin_popcountll(c->node_free_mask[x] & up);
                owned += (uint32_t)__builtin_popcountll(up);
            }
        if (owned < j->gpus)
            continue; /* the tenant's nodes of this type could not hold it emptied */
        /* the borrowers on those nodes, each once with all the GPUs it frees there */
        uint32_t nv = 0;
        for (uint32_t k = 0; k < n; k++) {
            const cand *x = &b->c[k];
            if (c->node_type[x->node] != t || !c->node_up[x->node])
                continue;
            vict *w = &b->v[nv++];
            w->run = x->run;
            w->gpus = (uint32_t)__builtin_popcountll(x->mask & node_up_mask(c, x->node));
            w->priority = x->priority;
            w->lost_gpu_s = x->lost_gpu_s;
            w->start_us = x->start_us;
            w->id = x->id;
        }
        qsort(b->v, nv, sizeof *b->v, vict_run_cmp);
        uint32_t m = 0;
        for (uint32_t k = 0; k < nv; k++) {
            if (m > 0 && b->v[m - 1].run == b->v[k].run)
                b->v[m - 1].gpus += b->v[k].gpus;
            else
                b->v[m++] = b->v[k];
        }
        qsort(b->v, m, sizeof *b->v, vict_evict_cmp);
        uint32_t chosen = 0;
        while (have < j->gpus && chosen < m)
            have += b->v[chosen++].gpus;
        if (have < j->gpus || chosen == 0)
            continue;
        /* what the victims free, node by node */
        memset(b->freed, 0, c->n_nodes * sizeof *b->freed);
        for (uint32_t k = 0; k < n; k++) {
            const cand *x = &b->c[k];
            if (c->node_type[x->node] == t && is_victim(b->v, chosen, x->run)) {
                b->freed[x->node].mask |= x->mask;
                b->freed[x->node].cpu_milli += x->cpu_milli;
                b->freed[x->node].mem_mib += x->mem_mib;
            }
        }
        /* the nodes the evictions free first, then the free ones, by index */
        uint32_t need = j->gpus;
        d->n_parts = 0;
        for (uint32_t k = 0; k < n; k++)
            if (c->node_type[b->c[k].node] == t && b->freed[b->c[k].node].mask &&
                (k == 0 || b->c[k - 1].node != b->c[k].node))
                span_take(c, b, j, b->c[k].node, &need, d);
        for (uint32_t x = 0; x < c->n_nodes && need > 0; x++) {
            if (c->node_type[x] != t || !c->node_up[x] || place_node_tenant(c, x) != j->tenant)
                continue;
            int seen = 0;
            for (uint32_t k = 0; k < d->n_parts && !seen; k++)
                seen = d->parts[k].node == x;
            if (!seen)
                span_take(c, b, j, x, &need, d);
        }
        if (need > 0)
            continue; /* more parts than the decision holds */
        /* the host's CPU and memory for each part, with its victims gone */
        int host_ok = 1;
        for (uint32_t k = 0; k < d->n_parts && host_ok; k++) {
            int64_t cpu, mem;
            uint32_t x = d->parts[k].node;
            place__part_host_share(j, d->parts, d->n_parts, k, &cpu, &mem);
            host_ok = c->node_cpu_free_milli[x] + b->freed[x].cpu_milli >= cpu &&
                      c->node_mem_free_mib[x] + b->freed[x].mem_mib >= mem;
        }
        if (!host_ok)
            continue;
        /* the victims on a node the gang takes; the others are spared */
        uint32_t nvict = 0;
        for (uint32_t k = 0; k < chosen; k++) {
            int used = 0;
            for (uint32_t q = 0; q < n && !used; q++)
                if (b->c[q].run == b->v[k].run)
                    for (uint32_t p = 0; p < d->n_parts && !used; p++)
                        used = d->parts[p].node == b->c[q].node;
            if (used) {
                if (nvict == cap_victims)
                    return PLACE_ERR_NOFIT;
                victims[nvict++] = b->v[k].run;
            }
        }
        if (nvict == 0)
            continue;
        *n_victims = nvict;
        return PLACE_OK;
    }
    d->n_parts = 0;
    return PLACE_ERR_NOFIT;
}

static int borrow_reclaim(void *state, const place_view *v, uint32_t i, uint32_t *victims,
                          uint32_t cap_victims, uint32_t *n_victims, place_decision *d)
{
    borrow *b = state;
    const place_cluster *c = v->cluster;
    const place_job *j = &v->queue[i];
    if (!c->node_tenant || j->gpus == 0 || d->cap_parts < 1)
        return PLACE_ERR_NOFIT;
    if (j->submit_us > v->now_us - b->reclaim_us) {
        /* not due yet: be woken when it is */
        int64_t due = j->submit_us + b->reclaim_us;
        if (due < b->wake_us)
            b->wake_us = due;
        return PLACE_ERR_NOFIT;
    }
    /* the borrowers' whole-GPU parts on nodes this job's tenant owns, from the
     * index (stale entries dropped as they are met) */
    int rc;
    if ((!b->idx_ok || b->idx_n != v->n_running) && (rc = idx_build(b, v)) != PLACE_OK)
        return rc;
    owner_list *l = owner_find(b, j->tenant, 0, &rc);
    if (!l)
        return PLACE_ERR_NOFIT;
    if ((rc = place__grow(&b->env, (void **)&b->c, &b->cap, l->n, sizeof *b->c)) != PLACE_OK)
        return rc;
    uint32_t n = 0, kept = 0;
    for (uint32_t e = 0; e < l->n; e++) {
        const bent *x0 = &l->e[e];
        if (x0->run >= v->n_running || b->tok[x0->run] != x0->tok)
            continue; /* its job ended or moved */
        l->e[kept++] = *x0;
        const place_running *r = &v->running[x0->run];
        const place_part *p = &r->parts[x0->part];
        cand *x = &b->c[n++];
        x->node = p->node;
        x->run = x0->run;
        x->priority = r->job.priority;
        x->mask = p->mask;
        x->lost_gpu_s = place_running_lost_gpu_s(r, v->now_us);
        x->start_us = r->start_us;
        x->id = r->job.id;
        place__part_host_share(&r->job, r->parts, r->n_parts, x0->part, &x->cpu_milli, &x->mem_mib);
    }
    l->n = kept;
    if (n == 0)
        return PLACE_ERR_NOFIT;
    qsort(b->c, n, sizeof *b->c, cand_cmp);
    uint32_t need = j->gpu_milli < PLACE_MILLI_WHOLE ? 1 : j->gpus;
    uint32_t best = PLACE_NONE, best_first = 0, best_n = 0;
    double best_lost = 0;
    for (uint32_t a = 0; a < n;) {
        uint32_t node = b->c[a].node, e = a;
        while (e < n && b->c[e].node == node)
            e++;
        uint32_t t = c->node_type[node];
        if (c->node_up[node] && place_type_ok(c, j, t) && c->node_gpus[node] >= need) {
            uint64_t up = node_up_mask(c, node), freed = c->node_free_mask[node];
            int64_t cpu = c->node_cpu_free_milli[node], mem = c->node_mem_free_mib[node];
            double lost = 0;
            uint32_t k = a;
            while (k < e && ((uint32_t)__builtin_popcountll(freed & up) < need ||
                             cpu < j->cpu_milli || mem < j->host_mem_mib)) {
                freed |= b->c[k].mask;
                cpu += b->c[k].cpu_milli;
                mem += b->c[k].mem_mib;
                lost += b->c[k].lost_gpu_s;
                k++;
            }
            int ok = (uint32_t)__builtin_popcountll(freed & up) >= need && cpu >= j->cpu_milli &&
                     mem >= j->host_mem_mib && k > a;
            uint32_t nv = k - a;
            if (ok && (best == PLACE_NONE || nv < best_n || (nv == best_n && lost < best_lost))) {
                best = node;
                best_first = a;
                best_n = nv;
                best_lost = lost;
            }
        }
        a = e;
    }
    if (best == PLACE_NONE)
        return (j->flags & PLACE_JOB_CAN_SPAN) && j->gpu_milli >= PLACE_MILLI_WHOLE && j->gpus > 1
                   ? reclaim_span(b, v, j, n, victims, cap_victims, n_victims, d)
                   : PLACE_ERR_NOFIT;
    /* a running job has at most one part per node: each victim once */
    if (best_n > cap_victims)
        return PLACE_ERR_NOFIT;
    uint32_t nv = 0;
    for (uint32_t k = best_first; k < best_first + best_n; k++)
        victims[nv++] = b->c[k].run;
    *n_victims = nv;
    if (j->gpu_milli < PLACE_MILLI_WHOLE) {
        /* a share goes on the lowest GPU the eviction frees (or one free already) */
        uint64_t freed = c->node_free_mask[best];
        for (uint32_t k = best_first; k < best_first + best_n; k++)
            freed |= b->c[k].mask;
        freed &= node_up_mask(c, best);
        d->parts[0] = place__part_share(j, best, (uint32_t)__builtin_ctzll(freed));
    } else {
        d->parts[0] = place__part_whole(j, best);
    }
    d->n_parts = 1;
    return PLACE_OK;
}

const place_partition place__partition_borrow = {
    .name = "borrow",
    .summary = "quotas with borrowing: owners' idle nodes are lent to preemptible jobs and "
               "reclaimed by preemption (borrow:RECLAIM waits RECLAIM first)",
    .flags = PLACE_PARTITION_QUEUES | PLACE_PARTITION_LENDS,
    .create = borrow_create,
    .destroy = borrow_destroy,
    .begin = borrow_begin,
    .allow = borrow_allow,
    .reclaim = borrow_reclaim,
    .wake = borrow_wake,
    .observe = borrow_observe,
};
