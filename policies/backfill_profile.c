/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backfill_profile.c — the future free capacity of each node, for the
 * reserving backfill rules (EASY and conservative).
 *
 * The classic statement (Mu'alem and Feitelson, "Utilization, predictability,
 * workloads, and user runtime estimates in scheduling the IBM SP2 with
 * backfilling", IEEE TPDS 12(6), 2001, section 2) is on a pool of identical
 * processors: sort the running jobs by their expected end; the time at which
 * enough processors are free for the first queued job is its "shadow time",
 * and the processors free at that time beyond its need are the "extra"
 * processors. A later job may start now if it fits now and either ends before
 * the shadow time or uses no more than the extra processors. Conservative
 * backfilling gives every queued job such a reservation, in order, and lets a
 * job start only if it delays none of them.
 *
 * Which model decides a pass. Where the nodes a job may use are identical
 * (one GPU type, one GPU count per node, whole-node jobs, host resources not
 * binding: an SWF machine; the exact condition is in backfill_count.c), the
 * rules above are applied as stated, on a count of nodes in an availability
 * profile (backfill_count.c); this file's reservations are not used in such
 * a pass. Reserving node identities there would be wrong, not just slow: a
 * spanning gang would get the lowest-numbered nodes free at its shadow time,
 * idle ones included, and a later job that the count's "extra" admits would
 * be refused on them (tests/test_place_backfill.c, test_count_idle_nodes).
 * This file decides every other pass: heterogeneous GPU types or node sizes,
 * GPU shares, jobs smaller than a node, host CPU or memory that bind, GPUs
 * out of service on nodes in service, or nodes partly held by something no
 * view lists. There node identity matters and the count has no meaning.
 *
 * Generalisation to GPU nodes (documented in place.h and README.md):
 *
 *  - A gang runs on one node (unless it may span), so the pool is per node.
 *    For node n and future time t, the profile is
 *        gpus(t) = #GPUs of n fully free by t  - GPUs reserved at t
 *        cpu(t)  = host CPU free now + CPU of running parts ending by t - reserved
 *        mem(t)  = the same for host memory,
 *    where a GPU is fully free at the latest end estimate of the running jobs
 *    on it (never, for a GPU out of service or held by a job of unknown end).
 *    Without reservations every dimension only grows with t, which is what
 *    makes the processor rule exact: a placement that fits now can only hurt
 *    a node that carries a reservation.
 *  - A reservation is made where the job would start earliest: the node (of an
 *    allowed type, with the GPU memory and host capacity the job needs) whose
 *    profile first holds the job's GPUs, CPU and memory for its whole
 *    estimated run; ties go to the lowest node index. Its "shadow time" is
 *    that start, and its "extra" capacity is what that node holds at the
 *    shadow time beyond the reservation. A gang that may span nodes may
 *    instead reserve GPUs on several nodes of one type, at the earliest time
 *    their sum suffices (GPUs only: host resources of spanning reservations
 *    are split by GPUs and not searched).
 *  - allow() checks a candidate part against the profile of its node over
 *    [now, now + estimate): for EASY this is exactly "ends before the shadow
 *    time, or uses only the extra capacity"; for conservative it protects
 *    every reservation.
 *  - A GPU share is reserved as one whole GPU (safe: a fully free GPU holds
 *    any share; pessimistic when the share could have started earlier on a
 *    partly used GPU). A share placed now on a partly used GPU takes that GPU
 *    from the time it would have become fully free until the share's end.
 *  - Unknown estimates (-1) are infinite. A running job already past its
 *    estimate is expected to end at any moment (now + 1 us). A job whose
 *    start cannot be bounded (everything it could use is held by jobs of
 *    unknown end) gets no reservation; without estimates, EASY is greedy.
 *
 * Costs. The profile is kept across passes: the running jobs it accounts
 * (found by id) and each GPU's latest end estimate, stored unclamped so that
 * end_of()'s "already past: now + 1 us" is applied when read (a monotone map,
 * so the per-node sorted GPU times stay sorted). A pass that needs it first
 * brings it up to the view: O(running) to match the running jobs by id, word
 * comparisons of the cluster's service and free-share arrays against a
 * snapshot (O(nodes + GPUs) bytes, which catches failures, repairs and
 * capacity the view does not list), and O(GPUs + parts) only for the nodes
 * that changed. A job started in the pass raises its GPUs' times at once.
 * The first pass of a profile accounts every running job (a record, its
 * parts on per-node lists) and builds the id table only at the next one, so
 * a one-pass host (`tarmac place`) never builds it; that first pass still
 * costs more than a flat rebuild did (bench/README.md, "Placement core").
 * A reservation searches every eligible node: O(nodes x b log b) for b
 * breakpoints on a node (its GPUs, host releases and reservations; b is
 * small). A pass that searches for more than a few jobs (conservative, a
 * long queue) builds an index instead (the lb_* functions): per GPU type and
 * gang size k, the maximal runs of each node's profile that hold k GPUs, in
 * a treap by length whose subtrees know their earliest run, kept up to date
 * wherever a node's timeline changes (O(runs of the node x log) each). A job
 * without host needs then gets its start from one query, O(log runs); one
 * with them evaluates nodes best lower bound first. 50,000 queued jobs on
 * 20,000 nodes: 60 s of walks became 2.7 s (bench/README.md). A gang larger
 * than any node skips the search, and a spanning gang's
 * earliest start before any reservation (EASY) comes from the GPUs grouped
 * by free time (about one group per running job on an SWF log, kept up to
 * date at every change of free_at): a walk over the type's first groups,
 * and the reservation itself is the GPU lists of the groups free by its
 * start, counted per node and given in node order, instead of two walks
 * over every node of the type (the first such search of a profile still
 * takes those walks, so a one-pass host never builds the groups). allow()
 * is O(1) on a node without reservations and O(b^2) on one with them. hopeless()
 * bounds what allow() can accept, per GPU type, from a summary of the
 * reserved nodes (their free GPUs beyond the profile at their first
 * reservation start), so that a queued gang that cannot fit is refused in
 * O(types x log starts) instead of a fit's walk over the free nodes with a
 * veto per node; on one-GPU nodes (SWF logs) the bound is exact; the
 * summary keeps its list of reserved nodes with free GPUs through a pass
 * (free GPUs only go within it), so renewing it after a reservation is
 * O(those nodes), not O(reservations). A spanning gang's search once
 * reservations exist gathers the type's GPU free times and the reserved
 * nodes' events into binary heaps (O(GPUs + events)) and walks them in time
 * order, evaluating a reserved node only after one of its events, at the
 * next time something can rise: O(events met x log) instead of O(candidate
 * times x reserved nodes x reservations).
 *
 * One piece, although it is long: it is one data structure. free_at and the
 * caches derived from it (per-node sorted times, reserved nodes' timelines,
 * the free-time groups, hopeless()'s summary) are invalidated together at
 * every change, by the same few functions, and the sync, the reservation
 * search and allow() all read them; split into files, the struct and its
 * thirty-odd helpers would become an internal interface and the
 * invalidation rule would be spread over them. tests/ref_backfill_profile.c
 * checks the whole against a flat rebuild.
 */
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

#define T_UNKNOWN INT64_MIN       /* a GPU held by no listed job, while recomputing */
#define T_FREE    (INT64_MIN + 1) /* a GPU fully free now (free_at: before any now) */

/* A running job the profile accounts, kept across passes and found by id. */
typedef struct rjob {
    uint64_t id;
    int64_t end;   /* end_estimate_us, PLACE_T_NEVER when unknown; end_of() per pass */
    int64_t start; /* with parts and n_parts: tells a new run of the id from the old */
    const place_part *parts;
    uint32_t n_parts;
    uint64_t fp;    /* fingerprint of the placement (parts_fp) */
    uint32_t part0; /* its first part in pt[] (chained by rnext); free list link */
    uint32_t seen;  /* sync stamp; UINT32_MAX: a free slot */
    uint32_t vidx;  /* its index in view->running at that sync */
    uint32_t vseen; /* the last sync that checked its placement */
} rjob;

/* One part of an accounted job: its node's GPUs and host share. */
typedef struct rpart {
    uint64_t mask;
    int64_t end; /* its job's (rjob.end), read without the indirection */
    int64_t cpu, mem;
    uint32_t node, job;
    uint32_t nnext, nprev; /* the node's parts */
    uint32_t rnext;        /* the job's parts; also the free list */
} rpart;

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
    int synced;                    /* the accounted jobs and free_at match the view of this pass */
    int inited;                    /* free_at, nhead and the snapshots describe n_nodes, n_gpus */
    int64_t now;
    /* per GPU: the latest end estimate of the accounted jobs on it, T_FREE when
     * none and fully free, PLACE_T_NEVER when out of service or held by no
     * accounted job; read through fat(), which applies end_of()'s clamp */
    int64_t *free_at;
    uint32_t cap_gpus, n_gpus;
    uint32_t *nhead, *rhead; /* per node: accounted parts, reservations */
    uint32_t cap_nhead, cap_rhead, n_nodes;
    /* accounted jobs (by id through an open-addressing table) and their parts */
    rjob *rj;
    uint32_t n_rj, cap_rj, free_rj, live_rj;
    rpart *pt;
    uint32_t n_pt, cap_pt, free_pt;
    uint32_t *hash; /* rj index or PLACE_NONE; hcap a power of two, at most half full */
    uint32_t hcap, sync_stamp;
    int hash_stale; /* the table lists no job: rebuild it from the records first */
    /* what free_at was computed from: per node in service, per GPU in service
     * and its free share; a node whose state differs (or whose parts changed)
     * is dirty */
    uint16_t *snap_milli;
    uint8_t *snap_up, *snap_gup, *dirty;
    uint32_t cap_snap_milli, cap_snap_up, cap_snap_gup, cap_dirty;
    uint32_t *dlist;
    uint32_t n_dlist, cap_dlist;
    resv *rs;
    uint32_t n_rs, cap_rs;
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
    /* hopeless(): per GPU type, what the reservations take from the GPUs free
     * now, by reservation start; valid while loss_ok (a start, a preemption or
     * a new reservation clears it) */
    struct loss *loss;
    uint32_t n_loss, cap_loss, loss_ok;
    uint32_t loss_off[PLACE_MAX_TYPES + 1]; /* type t: loss[loss_off[t]..loss_off[t + 1]) */
    uint32_t *seen; /* per node: the stamp of the last summary that counted it */
    uint32_t cap_seen, stamp;
    uint32_t *lfree; /* the reserved nodes that had free GPUs, valid while lfree_ok */
    uint32_t n_lfree, cap_lfree;
    int lfree_ok;
    /* spanning searches without reservations (EASY): the GPUs grouped by
     * (type, stored free time), groups sorted, each with a list of its GPUs
     * (gnext/gprev). On SWF logs there are about as many groups as running
     * jobs, so the k-th free time of a type is a walk over a few groups and
     * the GPUs free by a time are the lists of its first groups. Kept while
     * ord_on: built at the second such search (a one-pass host never builds
     * it) and updated at every change of free_at; given up for good
     * (ord_dead) on a cluster with more than ORD_MAX_GROUPS distinct times */
    int ord_on, ord_dead;
    uint32_t ord_uses;
    struct ogrp *grp;
    uint32_t n_grp, cap_grp, grp_hint[2];
    uint32_t *gnext, *gprev, *gnode; /* per GPU: its group list links, its node */
    uint32_t cap_gnext, cap_gprev, cap_gnode;
    uint32_t *ncount; /* per node: scratch GPU count, zero between uses */
    uint32_t cap_ncount;
    uint64_t *nbits; /* per node: scratch bit, zero between uses */
    uint32_t cap_nbits;
    /* The reservation search's index (lb_*), built in a pass that searches
     * for many jobs: for each GPU type t and gang size k, the maximal runs of
     * every node's profile that hold k GPUs (host CPU and memory not below
     * zero), in a treap ordered by length whose subtrees know their earliest
     * run. Valid for the pass while lb_ok (it depends on now), rebuilt for a
     * node wherever its timeline changes (a reservation, a start, a sync) */
    int lb_ok;
    uint32_t searches;  /* reservation searches in this pass */
    struct lbrun *runs; /* the runs, free ones chained by nnext */
    uint32_t n_runs, cap_runs, free_runs;
    uint32_t *lbroot; /* per (type, k): its treap, PLACE_NONE when empty */
    uint32_t cap_lbroot;
    uint32_t *lbhead; /* per node: its runs (all k), chained by nnext */
    uint32_t cap_lbhead;
    uint32_t *lbseen; /* per node: the search that evaluated it last */
    uint32_t cap_lbseen, lbstamp;
    uint64_t lbrand; /* treap priorities: a counter through a mixer */
    uint32_t *undo;  /* runs taken out during a search */
    uint32_t n_undo, cap_undo;
    /* scratch of the spanning search: the reserved nodes' events, values and
     * the step that last recomputed each */
    struct spev *spev;
    uint32_t cap_spev;
    int64_t *spval;
    uint32_t cap_spval;
    uint32_t *spstamp; /* per reserved node: 1 while dirty */
    uint32_t cap_spstamp;
    uint32_t *spdirty; /* the dirty nodes */
    uint32_t cap_spdirty;
    int64_t *splast; /* per reserved node: its latest event taken */
    uint32_t cap_splast;
};

/* Searches in a pass before the index is built: a pass that reserves for a
 * few jobs keeps the plain walk over the nodes. (A test builds the library
 * with 0, so that every search it makes goes through the index.) */
#ifndef PLACE_LB_MIN_SEARCHES
#define PLACE_LB_MIN_SEARCHES 8
#endif
#define LB_K (PLACE_MAX_GPUS_PER_NODE + 1) /* k = 0..64 per type */

/* An event of a reserved node in the spanning search: what it can give may
 * change at t. */
typedef struct spev {
    int64_t t;
    uint32_t r;    /* the node's place in p->cnodes */
    uint32_t rise; /* what it can give may rise (a GPU comes free, a reservation ends) */
} spev;

/* A maximal run of node `node`'s profile holding k GPUs: from start for len
 * (INT64_MAX: for ever). In the treap of (type, k) ordered by (len, node,
 * start); best is the run of least (start, node) in its subtree. */
typedef struct lbrun {
    int64_t start, len;
    uint32_t node, k;
    uint32_t left, right, best;
    uint32_t prio;
    uint32_t nnext; /* the node's next run; the free list */
} lbrun;

#define ORD_MAX_GROUPS 1024

typedef struct ogrp { /* the GPUs of one type whose stored free time is t */
    int64_t t;
    uint32_t type, count, head;
} ogrp;

typedef struct loss { /* reserved nodes of one type whose first reservation starts at a */
    int64_t a;
    uint32_t type;
    int64_t gpus; /* free GPUs now that a part ending after a cannot use, summed;
                   * after sorting, summed over this entry and every earlier one of the type */
} loss;

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
    place__free(&p->env, p->nhead, p->cap_nhead * sizeof *p->nhead);
    place__free(&p->env, p->rj, p->cap_rj * sizeof *p->rj);
    place__free(&p->env, p->pt, p->cap_pt * sizeof *p->pt);
    place__free(&p->env, p->hash, p->hcap * sizeof *p->hash);
    place__free(&p->env, p->snap_milli, p->cap_snap_milli * sizeof *p->snap_milli);
    place__free(&p->env, p->snap_up, p->cap_snap_up);
    place__free(&p->env, p->snap_gup, p->cap_snap_gup);
    place__free(&p->env, p->dirty, p->cap_dirty);
    place__free(&p->env, p->dlist, p->cap_dlist * sizeof *p->dlist);
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
    place__free(&p->env, p->rs, p->cap_rs * sizeof *p->rs);
    place__free(&p->env, p->cnodes, p->cap_cnodes * sizeof *p->cnodes);
    place__free(&p->env, p->loss, p->cap_loss * sizeof *p->loss);
    place__free(&p->env, p->seen, p->cap_seen * sizeof *p->seen);
    place__free(&p->env, p->lfree, p->cap_lfree * sizeof *p->lfree);
    place__free(&p->env, p->grp, p->cap_grp * sizeof *p->grp);
    place__free(&p->env, p->gnext, p->cap_gnext * sizeof *p->gnext);
    place__free(&p->env, p->gprev, p->cap_gprev * sizeof *p->gprev);
    place__free(&p->env, p->gnode, p->cap_gnode * sizeof *p->gnode);
    place__free(&p->env, p->ncount, p->cap_ncount * sizeof *p->ncount);
    place__free(&p->env, p->nbits, p->cap_nbits * sizeof *p->nbits);
    place__free(&p->env, p->runs, p->cap_runs * sizeof *p->runs);
    place__free(&p->env, p->lbroot, p->cap_lbroot * sizeof *p->lbroot);
    place__free(&p->env, p->lbhead, p->cap_lbhead * sizeof *p->lbhead);
    place__free(&p->env, p->lbseen, p->cap_lbseen * sizeof *p->lbseen);
    place__free(&p->env, p->undo, p->cap_undo * sizeof *p->undo);
    place__free(&p->env, p->spev, p->cap_spev * sizeof *p->spev);
    place__free(&p->env, p->spval, p->cap_spval * sizeof *p->spval);
    place__free(&p->env, p->spstamp, p->cap_spstamp * sizeof *p->spstamp);
    place__free(&p->env, p->spdirty, p->cap_spdirty * sizeof *p->spdirty);
    place__free(&p->env, p->splast, p->cap_splast * sizeof *p->splast);
    place_env env = p->env;
    place__free(&env, p, sizeof *p);
}

/* Per-node reservation heads for n nodes; new entries empty. */
static int nodes_reserve(place__profile *p, uint32_t n)
{
    uint32_t old = p->cap_rhead;
    if (place__grow(&p->env, (void **)&p->rhead, &p->cap_rhead, n, sizeof *p->rhead) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    for (uint32_t k = old; k < p->cap_rhead; k++)
        p->rhead[k] = PLACE_NONE;
    return PLACE_OK;
}

void place__profile_begin(place__profile *p, const place_view *v)
{
    if (p->n_rs > p->n_nodes / 16 && p->n_rs > 64 && p->n_nodes <= p->cap_rhead &&
        p->n_nodes <= p->cap_tl_ok) {
        /* a reservation spanning many nodes (SWF gangs): two flat fills are
         * cheaper than one scattered store per reserved node */
        memset(p->rhead, 0xff, p->n_nodes * sizeof *p->rhead); /* PLACE_NONE */
        memset(p->tl_ok, 0, p->n_nodes);
    } else {
        for (uint32_t k = 0; k < p->n_rs; k++) {
            p->rhead[p->rs[k].node] = PLACE_NONE;
            p->tl_ok[p->rs[k].node] = 0; /* timelines start at now: only reserved nodes have one */
        }
    }
    p->n_rs = 0;
    p->n_pool = 0;
    p->jobs_tried = 0;
    p->synced = 0;
    p->loss_ok = 0;
    p->lfree_ok = 0;
    p->lb_ok = 0; /* (its bounds depend on now) */
    p->searches = 0;
    p->now = v->now_us;
}

/* A stored time as this pass counts it: a job's end estimate already passed
 * is expected at any moment (now + 1 us), as end_of() says; T_FREE and
 * PLACE_T_NEVER stay. Monotone, so an order of stored times is one of these. */
static inline int64_t eff(const place__profile *p, int64_t t)
{
    return (t > p->now || t == PLACE_T_NEVER || t == T_FREE) ? t : p->now + 1;
}

/* When GPU x (cluster index) is fully free, as this pass counts it. */
static inline int64_t fat(const place__profile *p, uint32_t x)
{
    return eff(p, p->free_at[x]);
}

/* The first group of key (type, t) or after it: a bisection over the groups. */
static uint32_t grp_find(const place__profile *p, uint32_t type, int64_t t)
{
    /* changes come in runs (a job's GPUs, from one time to another): try the
     * two groups of the last change first */
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t i = p->grp_hint[h];
        if (i < p->n_grp && p->grp[i].t == t && p->grp[i].type == type)
            return i;
    }
    uint32_t lo = 0, hi = p->n_grp;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const ogrp *g = &p->grp[mid];
        if (g->type < type || (g->type == type && g->t < t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* File GPU x (of type `type`) under stored time t; PLACE_ERR_NOMEM, or
 * PLACE_ERR_NOFIT past ORD_MAX_GROUPS. A new group costs O(groups). */
static int grp_add(place__profile *p, uint32_t x, uint32_t type, int64_t t)
{
    uint32_t i = grp_find(p, type, t);
    if (i == p->n_grp || p->grp[i].type != type || p->grp[i].t != t) {
        if (p->n_grp >= ORD_MAX_GROUPS)
            return PLACE_ERR_NOFIT;
        if (place__grow(&p->env, (void **)&p->grp, &p->cap_grp, p->n_grp + 1, sizeof *p->grp))
            return PLACE_ERR_NOMEM;
        memmove(p->grp + i + 1, p->grp + i, (p->n_grp - i) * sizeof *p->grp);
        p->grp[i] = (ogrp){t, type, 0, PLACE_NONE};
        p->n_grp++;
    }
    p->grp_hint[1] = i; /* (checked before use: a later insertion may move it) */
    ogrp *g = &p->grp[i];
    p->gprev[x] = PLACE_NONE;
    p->gnext[x] = g->head;
    if (g->head != PLACE_NONE)
        p->gprev[g->head] = x;
    g->head = x;
    g->count++;
    return PLACE_OK;
}

/* Take GPU x out of its group (type, t); PLACE_ERR_INVAL, changing nothing,
 * when there is no such group (free_at changed behind the groups' back: a
 * bug, which costs only the groups). */
static int grp_del(place__profile *p, uint32_t x, uint32_t type, int64_t t)
{
    uint32_t i = grp_find(p, type, t);
    if (i >= p->n_grp || p->grp[i].type != type || p->grp[i].t != t)
        return PLACE_ERR_INVAL;
    p->grp_hint[0] = i;
    ogrp *g = &p->grp[i];
    if (p->gprev[x] != PLACE_NONE)
        p->gnext[p->gprev[x]] = p->gnext[x];
    else
        g->head = p->gnext[x];
    if (p->gnext[x] != PLACE_NONE)
        p->gprev[p->gnext[x]] = p->gprev[x];
    if (--g->count == 0) {
        memmove(p->grp + i, p->grp + i + 1, (p->n_grp - i - 1) * sizeof *p->grp);
        p->n_grp--;
    }
    return PLACE_OK;
}

/* GPU x of type `type` goes from stored time `from` to `to`: move it between
 * groups (when kept). Out of memory, too many groups or a missing group
 * drops the groups: the searches fall back to free_at. */
static void ord_note(place__profile *p, uint32_t x, uint32_t type, int64_t from, int64_t to)
{
    if (!p->ord_on || from == to)
        return;
    int rc = grp_del(p, x, type, from);
    if (rc == PLACE_OK)
        rc = grp_add(p, x, type, to);
    if (rc != PLACE_OK) {
        p->ord_on = 0;
        p->ord_dead = rc == PLACE_ERR_NOFIT;
    }
}

/* Host CPU and memory of accounted part q come back at rel_t(q) (NEVER: no
 * release, or nothing to release). */
static inline int64_t rel_t(const place__profile *p, const rpart *q)
{
    if (q->cpu == 0 && q->mem == 0)
        return PLACE_T_NEVER;
    return eff(p, q->end);
}

static uint32_t hash_slot(const place__profile *p, uint64_t id)
{
    uint64_t h = (id ^ (id >> 31)) * 0x9e3779b97f4a7c15ull; /* ids are often sequential */
    return (uint32_t)(h >> 32) & (p->hcap - 1);
}

static uint32_t hash_find(const place__profile *p, uint64_t id)
{
    if (!p->hcap)
        return PLACE_NONE;
    for (uint32_t h = hash_slot(p, id);; h = (h + 1) & (p->hcap - 1)) {
        uint32_t r = p->hash[h];
        if (r == PLACE_NONE || p->rj[r].id == id)
            return r;
    }
}

static void hash_put(place__profile *p, uint32_t r);

/* Table of at least 2 x (live + 1) slots. */
static int hash_room(place__profile *p)
{
    if (2 * (p->live_rj + 1) <= p->hcap)
        return PLACE_OK;
    uint32_t cap = p->hcap ? p->hcap : 64;
    while (cap < 2 * (p->live_rj + 1))
        cap *= 2;
    uint32_t *h = place__realloc(&p->env, NULL, 0, cap * sizeof *h);
    if (!h)
        return PLACE_ERR_NOMEM;
    place__free(&p->env, p->hash, p->hcap * sizeof *p->hash);
    p->hash = h;
    p->hcap = cap;
    for (uint32_t k = 0; k < cap; k++)
        h[k] = PLACE_NONE;
    for (uint32_t r = 0; r < p->n_rj; r++)
        if (p->rj[r].seen != UINT32_MAX) /* a live record */
            hash_put(p, r);
    return PLACE_OK;
}

/* Build the table from the live records; PLACE_ERR_INVAL when two of them
 * have one id (the view listed it twice: the caller starts over). */
static int hash_rebuild(place__profile *p)
{
    uint32_t cap = 64;
    while (cap < 2 * (p->live_rj + 1))
        cap *= 2;
    if (cap != p->hcap) {
        uint32_t *h = place__realloc(&p->env, NULL, 0, cap * sizeof *h);
        if (!h)
            return PLACE_ERR_NOMEM;
        place__free(&p->env, p->hash, p->hcap * sizeof *p->hash);
        p->hash = h;
        p->hcap = cap;
    }
    for (uint32_t k = 0; k < cap; k++)
        p->hash[k] = PLACE_NONE;
    for (uint32_t r = 0; r < p->n_rj; r++) {
        if (p->rj[r].seen == UINT32_MAX)
            continue; /* a free slot */
        uint32_t h = hash_slot(p, p->rj[r].id);
        for (; p->hash[h] != PLACE_NONE; h = (h + 1) & (cap - 1))
            if (p->rj[p->hash[h]].id == p->rj[r].id)
                return PLACE_ERR_INVAL;
        p->hash[h] = r;
    }
    p->hash_stale = 0;
    return PLACE_OK;
}

static void hash_put(place__profile *p, uint32_t r)
{
    uint32_t h = hash_slot(p, p->rj[r].id);
    while (p->hash[h] != PLACE_NONE)
        h = (h + 1) & (p->hcap - 1);
    p->hash[h] = r;
}

/* Remove record r from the table (linear probing: shift the cluster back). */
static void hash_del(place__profile *p, uint32_t r)
{
    uint32_t m = p->hcap - 1, h = hash_slot(p, p->rj[r].id);
    while (p->hash[h] != r)
        h = (h + 1) & m;
    for (uint32_t j = (h + 1) & m; p->hash[j] != PLACE_NONE; j = (j + 1) & m) {
        uint32_t home = hash_slot(p, p->rj[p->hash[j]].id);
        /* move j into the hole h unless its home lies cyclically in (h, j] */
        if (((j - home) & m) >= ((j - h) & m)) {
            p->hash[h] = p->hash[j];
            h = j;
        }
    }
    p->hash[h] = PLACE_NONE;
}

static void mark_dirty(place__profile *p, uint32_t n)
{
    if (!p->dirty[n]) {
        p->dirty[n] = 1;
        p->dlist[p->n_dlist++] = n; /* room for every node: sized in sync() */
    }
}

/* A fingerprint of a placement: its parts' nodes, GPUs and masks. */
static uint64_t parts_fp(const place_part *pp, uint32_t n)
{
    uint64_t h = 0x243f6a8885a308d3ull ^ n;
    for (uint32_t k = 0; k < n; k++) {
        h = (h ^ pp[k].node ^ ((uint64_t)pp[k].gpus << 32) ^ ((uint64_t)pp[k].gpu << 48)) *
            0x100000001b3ull;
        h = (h ^ pp[k].mask ^ ((uint64_t)pp[k].milli << 40)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* Account running job r (not accounted yet); keyed by id when `keyed`. */
static int job_add(place__profile *p, const place_cluster *c, const place_running *r, int keyed,
                   uint32_t vidx)
{
    uint32_t ri;
    if (p->free_rj != PLACE_NONE) {
        ri = p->free_rj;
        p->free_rj = p->rj[ri].part0;
    } else {
        if (place__grow(&p->env, (void **)&p->rj, &p->cap_rj, p->n_rj + 1, sizeof *p->rj))
            return PLACE_ERR_NOMEM;
        ri = p->n_rj++;
    }
    rjob *q = &p->rj[ri];
    q->id = r->job.id;
    q->end = r->end_estimate_us < 0 ? PLACE_T_NEVER : r->end_estimate_us;
    q->start = r->start_us;
    q->parts = r->parts;
    q->n_parts = r->n_parts;
    q->part0 = PLACE_NONE;
    q->seen = q->vseen = p->sync_stamp;
    q->vidx = vidx;
    q->fp = parts_fp(r->parts, r->n_parts);
    p->live_rj++;
    for (uint32_t k = r->n_parts; k-- > 0;) {
        const place_part *pp = &r->parts[k];
        if (pp->node >= c->n_nodes)
            continue;
        uint32_t pi;
        if (p->free_pt != PLACE_NONE) {
            pi = p->free_pt;
            p->free_pt = p->pt[pi].rnext;
        } else {
            if (p->n_pt >= p->cap_pt &&
                place__grow(&p->env, (void **)&p->pt, &p->cap_pt, p->n_pt + 1, sizeof *p->pt))
                return PLACE_ERR_NOMEM; /* the record stays, with the parts so far */
            pi = p->n_pt++;
        }
        rpart *x = &p->pt[pi];
        x->mask = pp->mask;
        x->end = q->end;
        x->cpu = x->mem = 0;
        if (r->job.cpu_milli != 0 || r->job.host_mem_mib != 0)
            place__part_host_share(&r->job, r->parts, r->n_parts, k, &x->cpu, &x->mem);
        x->node = pp->node;
        x->job = ri;
        x->rnext = p->rj[ri].part0;
        p->rj[ri].part0 = pi;
        x->nprev = PLACE_NONE;
        x->nnext = p->nhead[pp->node];
        if (x->nnext != PLACE_NONE)
            p->pt[x->nnext].nprev = pi;
        p->nhead[pp->node] = pi;
        mark_dirty(p, pp->node);
    }
    if (keyed) {
        if (hash_room(p) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        hash_put(p, ri);
    }
    return PLACE_OK;
}

/* Stop accounting record ri (its job ended, was preempted or restarted). */
static void job_del(place__profile *p, uint32_t ri, int keyed)
{
    if (keyed)
        hash_del(p, ri);
    for (uint32_t pi = p->rj[ri].part0; pi != PLACE_NONE;) {
        rpart *x = &p->pt[pi];
        uint32_t next = x->rnext;
        if (x->nprev != PLACE_NONE)
            p->pt[x->nprev].nnext = x->nnext;
        else
            p->nhead[x->node] = x->nnext;
        if (x->nnext != PLACE_NONE)
            p->pt[x->nnext].nprev = x->nprev;
        mark_dirty(p, x->node);
        x->rnext = p->free_pt;
        p->free_pt = pi;
        pi = next;
    }
    p->rj[ri].seen = UINT32_MAX; /* free */
    p->rj[ri].part0 = p->free_rj;
    p->free_rj = ri;
    p->live_rj--;
}

static void lb_node_changed(place__profile *p, const place_cluster *c, uint32_t n);

/* Node n's free_at from the cluster and the accounted parts on it, as a
 * rebuild would compute it: out of service never; otherwise the latest end
 * of the accounted jobs on the GPU, fully free (T_FREE) when none holds it
 * and it is, never when something the view does not list holds it. Cost
 * O(GPUs of n + GPU bits of its parts). */
static void node_recompute(place__profile *p, const place_cluster *c, uint32_t n)
{
    uint32_t g0 = c->node_gpu0[n], ng = c->node_gpus[n];
    int64_t *f = p->free_at + g0, old[64];
    for (uint32_t g = 0; p->ord_on && g < ng && g < 64; g++)
        old[g] = f[g]; /* (a node's few GPUs: no memcpy call) */
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t x = g0 + g;
        if (!c->node_up[n] || !c->gpu_up[x])
            f[g] = PLACE_T_NEVER;
        else if (c->gpu_free_milli[x] == PLACE_MILLI_WHOLE)
            f[g] = T_FREE;
        else
            f[g] = T_UNKNOWN;
        p->snap_gup[x] = c->gpu_up[x];
        p->snap_milli[x] = c->gpu_free_milli[x];
    }
    for (uint32_t pi = p->nhead[n]; pi != PLACE_NONE; pi = p->pt[pi].nnext) {
        int64_t end = p->pt[pi].end;
        /* bits beyond the node's GPUs cannot come from place_cluster_take */
        for (uint64_t m = p->pt[pi].mask; m; m &= m - 1) {
            uint32_t g = (uint32_t)__builtin_ctzll(m);
            if (g < ng && f[g] != PLACE_T_NEVER && f[g] < end)
                f[g] = end;
        }
    }
    for (uint32_t g = 0; g < ng; g++)
        if (f[g] == T_UNKNOWN)
            f[g] = PLACE_T_NEVER; /* held by something the view does not list */
    if (p->ord_on)
        for (uint32_t g = 0; g < ng && g < 64; g++)
            ord_note(p, g0 + g, c->node_type[n], old[g], f[g]);
    if (ng > 64)
        p->ord_on = 0; /* (place_cluster_add_node allows at most 64) */
    p->snap_up[n] = c->node_up[n];
    p->sorted_ok[n] = 0;
    p->tl_ok[n] = 0;
    lb_node_changed(p, c, n);
}

static void dirty_flush(place__profile *p, const place_cluster *c)
{
    for (uint32_t k = 0; k < p->n_dlist; k++) {
        uint32_t n = p->dlist[k];
        node_recompute(p, c, n);
        p->dirty[n] = 0;
    }
    p->n_dlist = 0;
    p->loss_ok = 0;
    p->lfree_ok = 0; /* (a node may have free GPUs again) */
}

/* Forget every accounted job; every node dirty. */
static void reset_all(place__profile *p, const place_cluster *c)
{
    p->n_rj = p->live_rj = p->n_pt = 0;
    p->free_rj = p->free_pt = PLACE_NONE;
    p->hash_stale = 1;
    p->n_dlist = 0;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        p->nhead[n] = PLACE_NONE;
        p->dirty[n] = 1;
        p->dlist[p->n_dlist++] = n;
    }
    p->n_nodes = c->n_nodes;
    p->n_gpus = c->n_gpus;
    p->inited = 1;
    p->ord_on = 0; /* rebuilt from the new free_at when next needed */
    p->lb_ok = 0;  /* the same */
    p->lfree_ok = 0;
}

/* Bring the accounted jobs and free_at up to the view: O(running) to match
 * the running jobs by id, O(nodes + GPUs) word comparisons against the
 * snapshots (the cluster's own state may have changed: failures, repairs,
 * capacity the view does not list), and O(GPUs + parts) only for the nodes
 * where something changed. A fresh profile, or a cluster that grew, starts
 * over: every node dirty. */
static int sync(place__profile *p, const place_view *v)
{
    const place_cluster *c = v->cluster;
    uint32_t nn = c->n_nodes ? c->n_nodes : 1, ng = c->n_gpus ? c->n_gpus : 1;
    if (nodes_reserve(p, nn) != PLACE_OK ||
        place__grow(&p->env, (void **)&p->free_at, &p->cap_gpus, ng, sizeof *p->free_at) ||
        place__grow(&p->env, (void **)&p->sorted, &p->cap_sorted, ng, sizeof *p->sorted) ||
        place__grow(&p->env, (void **)&p->snap_gup, &p->cap_snap_gup, ng, 1) ||
        place__grow(&p->env, (void **)&p->snap_milli, &p->cap_snap_milli, ng,
                    sizeof *p->snap_milli) ||
        place__grow(&p->env, (void **)&p->sorted_ok, &p->cap_sorted_ok, nn, 1) ||
        place__grow(&p->env, (void **)&p->tl_ok, &p->cap_tl_ok, nn, 1) ||
        place__grow(&p->env, (void **)&p->tl_off, &p->cap_tl_off, nn, sizeof *p->tl_off) ||
        place__grow(&p->env, (void **)&p->tl_len, &p->cap_tl_len, nn, sizeof *p->tl_len) ||
        place__grow(&p->env, (void **)&p->nhead, &p->cap_nhead, nn, sizeof *p->nhead) ||
        place__grow(&p->env, (void **)&p->snap_up, &p->cap_snap_up, nn, 1) ||
        place__grow(&p->env, (void **)&p->dirty, &p->cap_dirty, nn, 1) ||
        place__grow(&p->env, (void **)&p->dlist, &p->cap_dlist, nn, sizeof *p->dlist)) {
        p->inited = 0;
        return PLACE_ERR_NOMEM;
    }
    int fresh = !p->inited || p->n_nodes != c->n_nodes || p->n_gpus != c->n_gpus;
    if (++p->sync_stamp == UINT32_MAX)
        p->sync_stamp = 1;
    int rc = PLACE_OK;
    if (!fresh && p->hash_stale && hash_rebuild(p) != PLACE_OK)
        fresh = 1; /* an id accounted twice (or out of memory): start over */
    if (!fresh) {
        /* the running jobs: same id, run and placement as accounted, or changed */
        for (uint32_t k = 0; k < v->n_running && rc == PLACE_OK; k++) {
            const place_running *r = &v->running[k];
            uint32_t ri = hash_find(p, r->job.id);
            if (ri != PLACE_NONE) {
                rjob *q = &p->rj[ri];
                int64_t end = r->end_estimate_us < 0 ? PLACE_T_NEVER : r->end_estimate_us;
                if (q->seen == p->sync_stamp) {
                    rc = PLACE_ERR_INVAL; /* an id listed twice: start over */
                    break;
                }
                if (q->end == end && q->start == r->start_us && q->parts == r->parts &&
                    q->n_parts == r->n_parts) {
                    q->seen = p->sync_stamp;
                    q->vidx = k;
                    continue;
                }
                job_del(p, ri, 1);
            }
            rc = job_add(p, c, r, 1, k);
        }
        if (rc == PLACE_OK) {
            for (uint32_t ri = 0; ri < p->n_rj; ri++)
                if (p->rj[ri].seen != UINT32_MAX && p->rj[ri].seen != p->sync_stamp)
                    job_del(p, ri, 1); /* ended, or preempted */
        } else if (rc == PLACE_ERR_INVAL) {
            rc = PLACE_OK;
            fresh = 1;
        }
    }
    if (fresh && rc == PLACE_OK) {
        /* every job new, none looked up: the id table is built at the next
         * sync (a host that runs one pass per instance never needs it) */
        memset(p->tl_ok, 0, nn);
        memset(p->dirty, 0, nn);
        reset_all(p, c);
        uint32_t n = v->n_running ? v->n_running : 1;
        if (place__grow(&p->env, (void **)&p->rj, &p->cap_rj, n, sizeof *p->rj) != PLACE_OK ||
            place__grow(&p->env, (void **)&p->pt, &p->cap_pt, n, sizeof *p->pt) != PLACE_OK)
            rc = PLACE_ERR_NOMEM;
        for (uint32_t k = 0; k < v->n_running && rc == PLACE_OK; k++)
            rc = job_add(p, c, &v->running[k], 0, k);
        p->hash_stale = 1;
    }
    if (rc != PLACE_OK) {
        p->inited = 0;
        return rc;
    }
    /* the cluster's own changes: whole-array comparisons first (cheap), then
     * the nodes that differ (after a reset every node is dirty already). A
     * node already dirty (a job started or ended on it) is recomputed and
     * snapshot anyway: snapshot it first, so that the usual pass, where
     * nothing else changed, passes the comparisons and skips the node walk */
    for (uint32_t k = 0; !fresh && k < p->n_dlist; k++) {
        uint32_t n = p->dlist[k], g0 = c->node_gpu0[n];
        p->snap_up[n] = c->node_up[n];
        for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
            p->snap_milli[g0 + g] = c->gpu_free_milli[g0 + g];
            p->snap_gup[g0 + g] = c->gpu_up[g0 + g];
        }
    }
    int unexplained = 0; /* a node changed without a start or an end on it */
    if (!fresh &&
        (memcmp(p->snap_milli, c->gpu_free_milli, c->n_gpus * sizeof *p->snap_milli) != 0 ||
         memcmp(p->snap_up, c->node_up, c->n_nodes) != 0 ||
         memcmp(p->snap_gup, c->gpu_up, c->n_gpus) != 0))
        for (uint32_t n = 0; n < c->n_nodes; n++) {
            uint32_t g0 = c->node_gpu0[n], g = 0, gn = c->node_gpus[n];
            if (p->snap_up[n] == c->node_up[n])
                for (; g < gn; g++) /* a node's few GPUs: no memcmp call */
                    if (p->snap_milli[g0 + g] != c->gpu_free_milli[g0 + g] ||
                        p->snap_gup[g0 + g] != c->gpu_up[g0 + g])
                        break;
            if (p->snap_up[n] != c->node_up[n] || g < gn) {
                mark_dirty(p, n);
                unexplained = 1;
            }
        }
    /* a job may have moved with the same id, start, estimate and parts array
     * (stopped and restarted at one instant elsewhere): check its placement
     * against the view, once per sync. When every change is a start or an
     * end the profile saw, only the jobs on those nodes; after any other
     * change of the cluster, every job, because the node a job left may look
     * unchanged (something unlisted took the GPUs it gave back) while the
     * node it went to changed. */
    if (unexplained)
        for (uint32_t ri = 0; ri < p->n_rj; ri++) {
            rjob *q = &p->rj[ri];
            if (q->seen == UINT32_MAX || q->vseen == p->sync_stamp)
                continue;
            q->vseen = p->sync_stamp;
            const place_running *r = &v->running[q->vidx];
            if (parts_fp(r->parts, r->n_parts) == q->fp)
                continue;
            job_del(p, ri, 1); /* marks the nodes it was on dirty */
            if (job_add(p, c, r, !p->hash_stale, q->vidx) != PLACE_OK) {
                p->inited = 0;
                return PLACE_ERR_NOMEM;
            }
        }
    uint32_t d1 = fresh ? 0 : p->n_dlist; /* after a reset every job is new */
    for (uint32_t k = 0; k < d1; k++) {
        uint32_t n = p->dlist[k];
        for (uint32_t pi = p->nhead[n]; pi != PLACE_NONE;) {
            uint32_t ri = p->pt[pi].job;
            pi = p->pt[pi].nnext;
            rjob *q = &p->rj[ri];
            if (q->vseen == p->sync_stamp)
                continue;
            q->vseen = p->sync_stamp;
            const place_running *r = &v->running[q->vidx];
            if (parts_fp(r->parts, r->n_parts) == q->fp)
                continue;
            job_del(p, ri, 1);
            if (job_add(p, c, r, !p->hash_stale, q->vidx) != PLACE_OK) {
                p->inited = 0;
                return PLACE_ERR_NOMEM;
            }
            pi = p->nhead[n]; /* the node's list changed: walk it again */
        }
    }
    dirty_flush(p, c);
    p->synced = 1;
    return PLACE_OK;
}

static int ensure_built(place__profile *p, const place_view *v)
{
    return p->synced ? PLACE_OK : sync(p, v);
}

static int cmp_seg(const void *a, const void *b)
{
    int64_t x = ((const seg *)a)->t, y = ((const seg *)b)->t;
    return x < y ? -1 : x > y;
}

static int push_ev(place__profile *p, uint32_t *m, int64_t t, int64_t g, int64_t cpu, int64_t mem)
{
    if (*m >= p->cap_evs &&
        place__grow(&p->env, (void **)&p->evs, &p->cap_evs, *m + 1, sizeof *p->evs))
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
        int64_t f = fat(p, g0 + g);
        if (f <= p->now)
            cur.g++;
        else if (f != PLACE_T_NEVER && push_ev(p, &m, f, 1, 0, 0))
            return PLACE_ERR_NOMEM;
    }
    for (uint32_t h = p->nhead[n]; h != PLACE_NONE; h = p->pt[h].nnext) {
        int64_t t = rel_t(p, &p->pt[h]);
        if (t != PLACE_T_NEVER && push_ev(p, &m, t, 0, p->pt[h].cpu, p->pt[h].mem))
            return PLACE_ERR_NOMEM;
    }
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

/* Segments the kept timelines may take (32 MiB) before they are dropped. */
#define POOL_MAX_SEGS (1u << 20)

/* Node n's timeline, built once and kept until the node changes (a
 * reservation on it, or a job started on it). The pointer is good until the
 * next call. */
static const seg *timeline_of(place__profile *p, const place_cluster *c, uint32_t n,
                              uint32_t *count)
{
    if (!p->tl_ok[n]) {
        uint32_t k;
        if (p->n_pool > POOL_MAX_SEGS) {
            /* timelines rebuilt after changes leave dead segments behind:
             * past this, forget them all (each is rebuilt when next read) */
            memset(p->tl_ok, 0, p->n_nodes);
            p->n_pool = 0;
        }
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

/* The earliest time >= now at which node n has k >= 1 GPUs fully free (its
 * k-th GPU free time, from the node's free_at sorted once per change),
 * PLACE_T_NEVER when it never has. Without reservations the node can start
 * a k-GPU job no earlier; with them, no earlier either (they only take
 * capacity away): the bound the reservation search orders nodes by. */
static int64_t node_kth(const place__profile *p, const place_cluster *c, uint32_t n, int64_t k)
{
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
    /* sorted by stored time, hence by eff() too */
    if ((uint64_t)k > ng || a[k - 1] == PLACE_T_NEVER)
        return PLACE_T_NEVER;
    return eff(p, a[k - 1]) > p->now ? eff(p, a[k - 1]) : p->now;
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
    if (k > 0 && (t = node_kth(p, c, n, k)) == PLACE_T_NEVER)
        return PLACE_T_NEVER;
    int64_t cp = c->node_cpu_free_milli[n], me = c->node_mem_free_mib[n];
    if (cp < cpu || me < mem) {
        /* host short now: walk the releases in time order (few per node) */
        int64_t last = p->now;
        for (;;) {
            int64_t next = PLACE_T_NEVER;
            for (uint32_t h = p->nhead[n]; h != PLACE_NONE; h = p->pt[h].nnext) {
                int64_t ht = rel_t(p, &p->pt[h]);
                if (ht > last && ht < next)
                    next = ht;
            }
            if (next == PLACE_T_NEVER)
                return PLACE_T_NEVER;
            for (uint32_t h = p->nhead[n]; h != PLACE_NONE; h = p->pt[h].nnext)
                if (rel_t(p, &p->pt[h]) == next) {
                    cp += p->pt[h].cpu;
                    me += p->pt[h].mem;
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

static int add_resv(place__profile *p, const place_cluster *c, uint32_t node, int64_t a, int64_t b,
                    uint32_t gpus, int64_t cpu, int64_t mem, uint32_t qi)
{
    if (p->n_rs >= p->cap_rs &&
        place__grow(&p->env, (void **)&p->rs, &p->cap_rs, p->n_rs + 1, sizeof *p->rs))
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
    p->loss_ok = 0;
    if (p->lfree_ok && r->next == PLACE_NONE && node < c->n_nodes && c->node_free[node] > 0)
        p->lfree[p->n_lfree++] = node; /* its first reservation (room: one per node) */
    lb_node_changed(p, c, node);
    return PLACE_OK;
}

/* The GPU count of node n's profile at t (eval() without the host side). */
static int64_t gpus_at(const place__profile *p, const place_cluster *c, uint32_t n, int64_t t)
{
    int64_t g = 0;
    uint32_t g0 = c->node_gpu0[n];
    for (uint32_t k = 0; k < c->node_gpus[n]; k++)
        g += fat(p, g0 + k) <= t;
    for (uint32_t r = p->rhead[n]; r != PLACE_NONE; r = p->rs[r].next)
        if (p->rs[r].a <= t && t < p->rs[r].b)
            g -= p->rs[r].gpus;
    return g;
}

/* GPUs node n (of the spanning type) can give over all of [t, t + d) (t >=
 * now): the least of its profile's GPU counts there, which only a
 * reservation's start lowers. A node without reservations gives what is
 * free by t (O(GPUs)); one with them reads its timeline (built once until
 * the node changes): a bisection and the segments in the window. *nomem set
 * when the timeline cannot be built. */
static int64_t span_avail(place__profile *p, const place_cluster *c, uint32_t n, int64_t t,
                          int64_t d, int *nomem)
{
    if (p->rhead[n] == PLACE_NONE) {
        int64_t g = gpus_at(p, c, n, t);
        return g > 0 ? g : 0;
    }
    uint32_t ns;
    const seg *sg = timeline_of(p, c, n, &ns);
    if (!sg) {
        *nomem = 1;
        return 0;
    }
    uint32_t lo = 0, hi = ns; /* the last segment starting at or before t */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sg[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    int64_t low = sg[lo].g, end = add_sat(t, d);
    for (uint32_t i = lo + 1; i < ns && sg[i].t < end; i++)
        if (sg[i].g < low)
            low = sg[i].g;
    return low > 0 ? low : 0;
}

/* The (r+1)-th smallest of a[0..n) (r < n), reordering a: Hoare's
 * quickselect, the middle element's value as pivot (which keeps the split
 * below hi, and sorted or equal runs cheap), O(n) expected. */
static int64_t select_kth(int64_t *a, uint32_t n, uint32_t r)
{
    uint32_t lo = 0, hi = n - 1;
    while (hi > lo) {
        int64_t piv = a[lo + (hi - lo) / 2];
        uint32_t i = lo, j = hi;
        for (;;) { /* a[lo..i) <= piv, a(j..hi] >= piv */
            while (a[i] < piv)
                i++;
            while (a[j] > piv)
                j--;
            if (i >= j)
                break;
            int64_t tmp = a[i];
            a[i] = a[j];
            a[j] = tmp;
            i++;
            j--;
        }
        /* now a[lo..j] <= piv <= a[j+1..hi] */
        if (r <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return a[r];
}

/* Build the groups from free_at: O(GPUs x log groups), plus O(groups) per
 * new group; once per profile (and again after the cluster grows). */
static int ord_build(place__profile *p, const place_cluster *c)
{
    uint32_t ng = c->n_gpus ? c->n_gpus : 1, nn = c->n_nodes ? c->n_nodes : 1;
    uint32_t old_nc = p->cap_ncount, old_nb = p->cap_nbits;
    if (place__grow(&p->env, (void **)&p->gnext, &p->cap_gnext, ng, sizeof *p->gnext) ||
        place__grow(&p->env, (void **)&p->gprev, &p->cap_gprev, ng, sizeof *p->gprev) ||
        place__grow(&p->env, (void **)&p->gnode, &p->cap_gnode, ng, sizeof *p->gnode) ||
        place__grow(&p->env, (void **)&p->ncount, &p->cap_ncount, nn, sizeof *p->ncount) ||
        place__grow(&p->env, (void **)&p->nbits, &p->cap_nbits, (nn + 63) / 64, sizeof *p->nbits))
        return PLACE_ERR_NOMEM;
    /* scratch that is zero between uses: new slots start at zero */
    memset(p->ncount + old_nc, 0, (size_t)(p->cap_ncount - old_nc) * sizeof *p->ncount);
    memset(p->nbits + old_nb, 0, (size_t)(p->cap_nbits - old_nb) * sizeof *p->nbits);
    p->n_grp = 0;
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        uint32_t g0 = c->node_gpu0[n];
        for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
            p->gnode[g0 + g] = n;
            int rc = grp_add(p, g0 + g, c->node_type[n], p->free_at[g0 + g]);
            if (rc != PLACE_OK) {
                p->ord_dead = rc == PLACE_ERR_NOFIT;
                return rc == PLACE_ERR_NOFIT ? PLACE_OK : rc;
            }
        }
    }
    p->ord_on = 1;
    return PLACE_OK;
}

/* span_earliest() before any reservation, from the groups: the k-th smallest
 * free time of the type's GPUs (now when k are free now), as the selection
 * over free_at finds it (eff() is monotone, so group order is the order of
 * the pass's times). O(log groups + the type's groups up to the k-th GPU). */
static int64_t ord_kth(const place__profile *p, uint32_t t, int64_t k)
{
    int64_t sum = 0;
    for (uint32_t i = grp_find(p, t, INT64_MIN); i < p->n_grp && p->grp[i].type == t; i++) {
        const ogrp *g = &p->grp[i];
        if (g->t == PLACE_T_NEVER)
            break;
        sum += g->count;
        if (sum >= k)
            return eff(p, g->t) <= p->now ? p->now : eff(p, g->t);
    }
    return PLACE_T_NEVER;
}

/* Binary min-heaps over an array: of times, and of events by (t, r). */
static void heap_down_i64(int64_t *a, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < n && a[l] < a[m])
            m = l;
        if (l + 1 < n && a[l + 1] < a[m])
            m = l + 1;
        if (m == i)
            return;
        int64_t x = a[i];
        a[i] = a[m];
        a[m] = x;
        i = m;
    }
}

static void heap_make_i64(int64_t *a, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        heap_down_i64(a, n, i);
}

static int64_t heap_pop_i64(int64_t *a, uint32_t *n)
{
    int64_t top = a[0];
    a[0] = a[--*n];
    heap_down_i64(a, *n, 0);
    return top;
}

static inline int spev_less(const spev *x, const spev *y)
{
    return x->t < y->t || (x->t == y->t && x->r < y->r);
}

static void heap_down_spev(spev *a, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < n && spev_less(&a[l], &a[m]))
            m = l;
        if (l + 1 < n && spev_less(&a[l + 1], &a[m]))
            m = l + 1;
        if (m == i)
            return;
        spev x = a[i];
        a[i] = a[m];
        a[m] = x;
        i = m;
    }
}

static void heap_make_spev(spev *a, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        heap_down_spev(a, n, i);
}

static spev heap_pop_spev(spev *a, uint32_t *n)
{
    spev top = a[0];
    a[0] = a[--*n];
    heap_down_spev(a, *n, 0);
    return top;
}

/* An event of reserved node top.r taken: the node is evaluated again at the
 * next time evaluated (and the one after, when the event is at that time). */
static void sp_dirty(place__profile *p, spev top, uint32_t *n_dirty)
{
    if (!p->spstamp[top.r]) {
        p->spstamp[top.r] = 1;
        p->spdirty[(*n_dirty)++] = top.r;
    }
    p->splast[top.r] = top.t; /* (taken in time order: the latest) */
}

static int spev_push(place__profile *p, uint32_t *n, int64_t t, uint32_t r, int rise)
{
    if (*n >= p->cap_spev &&
        place__grow(&p->env, (void **)&p->spev, &p->cap_spev, *n + 1, sizeof *p->spev))
        return PLACE_ERR_NOMEM;
    p->spev[(*n)++] = (spev){t, r, (uint32_t)rise};
    return PLACE_OK;
}

/* A spanning gang on nodes of type t: the earliest time the sum of what the
 * nodes can give holds k GPUs for d. Nodes without reservations give
 * #GPUs free by then, so their sum is a count over one sorted array; only
 * nodes with reservations are evaluated at each candidate time. A start at
 * or after `bound` (the best start the caller has already) is of no use to
 * it: the walk stops there with PLACE_T_NEVER. */
static int64_t span_earliest(place__profile *p, const place_cluster *c, uint32_t t, int64_t k,
                             int64_t d, int64_t bound, int *nomem)
{
    uint32_t nr = 0, ng = 0;
    if (p->n_rs == 0 && !p->ord_on && !p->ord_dead && p->ord_uses++ > 0 &&
        ord_build(p, c) != PLACE_OK) {
        *nomem = 1;
        return PLACE_T_NEVER;
    }
    if (p->n_rs == 0 && p->ord_on)
        return ord_kth(p, t, k);
    if (p->n_rs == 0) {
        /* no reservation yet (always so for EASY): the walk below would stop
         * at the k-th smallest free time of the type's GPUs, which a count of
         * the GPUs free now and a selection among the others find in
         * O(GPUs) instead of a sort's O(GPUs log GPUs) */
        if (place__grow(&p->env, (void **)&p->gtimes, &p->cap_gtimes, c->n_gpus ? c->n_gpus : 1,
                        sizeof *p->gtimes)) {
            *nomem = 1;
            return PLACE_T_NEVER;
        }
        int64_t at_now = 0;
        for (uint32_t n = 0; n < c->n_nodes; n++) { /* the nodes of up[t], in a plain loop */
            if (!c->node_up[n] || c->node_type[n] != t)
                continue;
            uint32_t g0 = c->node_gpu0[n];
            for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                int64_t f = fat(p, g0 + g);
                if (f <= p->now)
                    at_now++;
                else if (f != PLACE_T_NEVER)
                    p->gtimes[ng++] = f;
            }
        }
        if (k <= at_now)
            return p->now;
        if (k > at_now + ng)
            return PLACE_T_NEVER;
        return select_kth(p->gtimes, ng, (uint32_t)(k - at_now - 1));
    }
    /* Candidate times: now, the free times of the GPUs of unreserved nodes
     * (which give what is free by then), and the reserved nodes' events,
     * where what each can give (span_avail) may change: a GPU's free time, a
     * reservation's start and end, and the time a reservation's start comes
     * within d (it then bounds the window). The answer is the first of them
     * at which the sum holds k; what can be given rises only at now, at GPU
     * free times and at reservation ends, so a candidate where it does not
     * rise cannot come first. Both kinds of times are taken from binary
     * heaps in order, and the walk keeps every reserved node's value and
     * their sum, recomputing a node only at its own events (and at the
     * candidate after one, since a start coming within d counts from just
     * after that time). O(GPUs of the type + events) to gather, then
     * O(log) per time taken and one span_avail per event met: the walk
     * stops at the answer, usually a few dozen times in. */
    uint32_t ne = 0;
    for (uint32_t n = place_bits_next(&c->up[t], 0); n != PLACE_NONE;
         n = place_bits_next(&c->up[t], n + 1)) {
        uint32_t g0 = c->node_gpu0[n];
        if (p->rhead[n] == PLACE_NONE) {
            for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                int64_t f = fat(p, g0 + g);
                if (f == PLACE_T_NEVER)
                    continue;
                if (place__grow(&p->env, (void **)&p->gtimes, &p->cap_gtimes, ng + 1,
                                sizeof *p->gtimes)) {
                    *nomem = 1;
                    return PLACE_T_NEVER;
                }
                p->gtimes[ng++] = f > p->now ? f : p->now;
            }
            continue;
        }
        if (place__grow(&p->env, (void **)&p->cnodes, &p->cap_cnodes, nr + 1, sizeof *p->cnodes) ||
            place__grow(&p->env, (void **)&p->spval, &p->cap_spval, nr + 1, sizeof *p->spval) ||
            place__grow(&p->env, (void **)&p->spstamp, &p->cap_spstamp, nr + 1,
                        sizeof *p->spstamp) ||
            place__grow(&p->env, (void **)&p->spdirty, &p->cap_spdirty, nr + 1,
                        sizeof *p->spdirty) ||
            place__grow(&p->env, (void **)&p->splast, &p->cap_splast, nr + 1, sizeof *p->splast)) {
            *nomem = 1;
            return PLACE_T_NEVER;
        }
        uint32_t r = nr++;
        p->cnodes[r] = n;
        p->spstamp[r] = 0;
        int rc = PLACE_OK;
        for (uint32_t g = 0; g < c->node_gpus[n] && rc == PLACE_OK; g++) {
            int64_t f = fat(p, g0 + g);
            if (f > p->now && f != PLACE_T_NEVER)
                rc = spev_push(p, &ne, f, r, 1);
        }
        for (uint32_t x = p->rhead[n]; x != PLACE_NONE && rc == PLACE_OK; x = p->rs[x].next) {
            const resv *q = &p->rs[x];
            if (q->b <= p->now)
                continue;
            if (q->a > p->now)
                rc = spev_push(p, &ne, q->a, r, 0);
            if (rc == PLACE_OK && q->b != PLACE_T_NEVER)
                rc = spev_push(p, &ne, q->b, r, 1);
            if (rc == PLACE_OK && d != PLACE_T_NEVER && q->a > p->now && q->a - p->now >= d)
                rc = spev_push(p, &ne, q->a - d, r, 0);
        }
        if (rc != PLACE_OK) {
            *nomem = 1;
            return PLACE_T_NEVER;
        }
    }
    heap_make_i64(p->gtimes, ng);
    heap_make_spev(p->spev, ne);
    int64_t rsum = 0;
    for (uint32_t r = 0; r < nr; r++)
        rsum += p->spval[r] = span_avail(p, c, p->cnodes[r], p->now, d, nomem);
    /* the walk: evaluate at now, then at each time something can rise (a GPU
     * free time, a reservation's end); a node with an event since its last
     * evaluation is dirty and evaluated again at the next such time, and one
     * whose event fell on the time evaluated stays dirty for the next */
    uint32_t ib = 0, n_dirty = 0;
    int64_t time = p->now;
    for (int first = 1;; first = 0) {
        if (!first) {
            uint32_t keep = 0;
            for (uint32_t q = 0; q < n_dirty; q++) {
                uint32_t r = p->spdirty[q];
                rsum -= p->spval[r];
                rsum += p->spval[r] = span_avail(p, c, p->cnodes[r], time, d, nomem);
                if (p->splast[r] == time)
                    p->spdirty[keep++] = r; /* (an event at this very time) */
                else
                    p->spstamp[r] = 0;
            }
            n_dirty = keep;
        }
        if (*nomem)
            return PLACE_T_NEVER;
        while (ng > 0 && p->gtimes[0] <= time) {
            heap_pop_i64(p->gtimes, &ng);
            ib++;
        }
        if ((int64_t)ib + rsum >= k)
            return time;
        /* the next time something can rise: the first GPU free time of an
         * unreserved node, or the first rising event; the events before it
         * make their nodes dirty */
        int64_t next = ng > 0 ? p->gtimes[0] : PLACE_T_NEVER;
        while (ne > 0 && p->spev[0].t <= next) {
            spev top = heap_pop_spev(p->spev, &ne);
            sp_dirty(p, top, &n_dirty);
            if (top.rise) {
                next = top.t;
                break;
            }
        }
        if (next == PLACE_T_NEVER || next >= bound)
            return PLACE_T_NEVER; /* nothing rises any more, or too late */
        time = next;
        while (ne > 0 && p->spev[0].t <= time) /* the other events at that time */
            sp_dirty(p, heap_pop_spev(p->spev, &ne), &n_dirty);
    }
}

/* span_reserve() on a profile without reservations, from the groups: the
 * GPUs free by `at` are the lists of the type's first groups; count them per
 * node, then give in node order. O(those GPUs + nodes / 64). */
static int ord_reserve(place__profile *p, const place_cluster *c, const place_job *j, uint32_t t,
                       int64_t at, int64_t end, uint32_t qi)
{
    for (uint32_t i = grp_find(p, t, INT64_MIN);
         i < p->n_grp && p->grp[i].type == t && p->grp[i].t != PLACE_T_NEVER &&
         eff(p, p->grp[i].t) <= at;
         i++)
        for (uint32_t x = p->grp[i].head; x != PLACE_NONE; x = p->gnext[x]) {
            uint32_t n = p->gnode[x];
            if (!c->node_up[n])
                continue; /* (its GPUs are never free: not counted) */
            if (p->ncount[n]++ == 0)
                p->nbits[n >> 6] |= 1ull << (n & 63);
        }
    int64_t rem = j->gpus;
    int rc = PLACE_OK;
    for (uint32_t w = 0; w < (c->n_nodes + 63) / 64; w++) {
        for (uint64_t b = p->nbits[w]; b; b &= b - 1) {
            uint32_t n = w * 64 + (uint32_t)__builtin_ctzll(b);
            int64_t give = p->ncount[n];
            p->ncount[n] = 0;
            if (give > rem)
                give = rem;
            if (give <= 0 || rc != PLACE_OK)
                continue; /* (every node's count is still cleared) */
            int64_t cpu = j->cpu_milli ? j->cpu_milli * give / (int64_t)j->gpus : 0;
            int64_t mem = j->host_mem_mib ? j->host_mem_mib * give / (int64_t)j->gpus : 0;
            rc = add_resv(p, c, n, at, end, (uint32_t)give, cpu, mem, qi);
            rem -= give;
        }
        p->nbits[w] = 0;
    }
    return rc;
}

/* Reserve a spanning gang at time `at` on nodes of type t, lowest index first. */
static int span_reserve(place__profile *p, const place_cluster *c, const place_job *j, uint32_t t,
                        int64_t at, int64_t d, uint32_t qi)
{
    int64_t rem = j->gpus, end = add_sat(at, d);
    if (p->n_rs == 0 && p->ord_on)
        return ord_reserve(p, c, j, t, at, end, qi);
    for (uint32_t n = 0; n < c->n_nodes && rem > 0; n++) { /* up[t] in index order */
        if (!c->node_up[n] || c->node_type[n] != t)
            continue;
        int nomem = 0;
        int64_t give = span_avail(p, c, n, at, d, &nomem);
        if (nomem)
            return PLACE_ERR_NOMEM;
        if (give > rem)
            give = rem;
        if (give <= 0)
            continue;
        /* (no division for the host-free gangs of SWF logs) */
        int64_t cpu = j->cpu_milli ? j->cpu_milli * give / (int64_t)j->gpus : 0;
        int64_t mem = j->host_mem_mib ? j->host_mem_mib * give / (int64_t)j->gpus : 0;
        if (add_resv(p, c, n, at, end, (uint32_t)give, cpu, mem, qi) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        rem -= give;
    }
    return PLACE_OK;
}

/* ------------------------------------------------------------------------- */
/* The reservation search's index                                             */

/* Run a before run b in the treap: by (len, node, start). */
static inline int run_before(const lbrun *a, const lbrun *b)
{
    if (a->len != b->len)
        return a->len < b->len;
    if (a->node != b->node)
        return a->node < b->node;
    return a->start < b->start;
}

/* Of runs x and y (either PLACE_NONE), the one of least (start, node). */
static inline uint32_t run_earlier(const lbrun *r, uint32_t x, uint32_t y)
{
    if (x == PLACE_NONE)
        return y;
    if (y == PLACE_NONE)
        return x;
    return r[y].start < r[x].start || (r[y].start == r[x].start && r[y].node < r[x].node) ? y : x;
}

static void run_fix(lbrun *r, uint32_t x)
{
    uint32_t b = run_earlier(r, x, r[x].left == PLACE_NONE ? PLACE_NONE : r[r[x].left].best);
    r[x].best = run_earlier(r, b, r[x].right == PLACE_NONE ? PLACE_NONE : r[r[x].right].best);
}

/* Insert run x into the treap at t; the new root. O(log runs) expected. */
static uint32_t treap_insert(lbrun *r, uint32_t t, uint32_t x)
{
    if (t == PLACE_NONE) {
        r[x].left = r[x].right = PLACE_NONE;
        r[x].best = x;
        return x;
    }
    if (run_before(&r[x], &r[t])) {
        r[t].left = treap_insert(r, r[t].left, x);
        if (r[r[t].left].prio > r[t].prio) { /* rotate right */
            uint32_t l = r[t].left;
            r[t].left = r[l].right;
            run_fix(r, t);
            r[l].right = t;
            run_fix(r, l);
            return l;
        }
    } else {
        r[t].right = treap_insert(r, r[t].right, x);
        if (r[r[t].right].prio > r[t].prio) { /* rotate left */
            uint32_t q = r[t].right;
            r[t].right = r[q].left;
            run_fix(r, t);
            r[q].left = t;
            run_fix(r, q);
            return q;
        }
    }
    run_fix(r, t);
    return t;
}

static uint32_t treap_merge(lbrun *r, uint32_t a, uint32_t b)
{
    if (a == PLACE_NONE)
        return b;
    if (b == PLACE_NONE)
        return a;
    if (r[a].prio > r[b].prio) {
        r[a].right = treap_merge(r, r[a].right, b);
        run_fix(r, a);
        return a;
    }
    r[b].left = treap_merge(r, a, r[b].left);
    run_fix(r, b);
    return b;
}

/* Remove run x (which is in the treap at t); the new root. */
static uint32_t treap_remove(lbrun *r, uint32_t t, uint32_t x)
{
    if (t == x)
        return treap_merge(r, r[t].left, r[t].right);
    if (run_before(&r[x], &r[t]))
        r[t].left = treap_remove(r, r[t].left, x);
    else
        r[t].right = treap_remove(r, r[t].right, x);
    run_fix(r, t);
    return t;
}

/* The run of least (start, node) among those at least d long. O(log runs). */
static uint32_t treap_first(const lbrun *r, uint32_t t, int64_t d)
{
    uint32_t best = PLACE_NONE;
    while (t != PLACE_NONE) {
        if (r[t].len >= d) {
            best = run_earlier(r, best, t);
            if (r[t].right != PLACE_NONE)
                best = run_earlier(r, best, r[r[t].right].best);
            t = r[t].left;
        } else {
            t = r[t].right;
        }
    }
    return best;
}

static inline uint32_t *lb_root(place__profile *p, const place_cluster *c, uint32_t n, uint32_t k)
{
    return &p->lbroot[(size_t)c->node_type[n] * LB_K + k];
}

/* Add a run of node n for k GPUs. */
static int lb_run_add(place__profile *p, const place_cluster *c, uint32_t n, uint32_t k,
                      int64_t start, int64_t len)
{
    uint32_t x = p->free_runs;
    if (x != PLACE_NONE) {
        p->free_runs = p->runs[x].nnext;
    } else {
        if (place__grow(&p->env, (void **)&p->runs, &p->cap_runs, p->n_runs + 1, sizeof *p->runs))
            return PLACE_ERR_NOMEM;
        x = p->n_runs++;
    }
    uint64_t z = (p->lbrand += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    p->runs[x] =
        (lbrun){start, len, n, k, PLACE_NONE, PLACE_NONE, x, (uint32_t)(z >> 32), p->lbhead[n]};
    p->lbhead[n] = x;
    uint32_t *root = lb_root(p, c, n, k);
    *root = treap_insert(p->runs, *root, x);
    return PLACE_OK;
}

/* Rebuild node n's runs from its timeline: drop the old ones, then for each
 * k the maximal runs of segments holding k GPUs with host CPU and memory not
 * below zero (what node_earliest() accepts for a job without host needs).
 * O(runs x log + k x segments). */
static int lb_node_runs(place__profile *p, const place_cluster *c, uint32_t n)
{
    for (uint32_t x = p->lbhead[n]; x != PLACE_NONE;) {
        uint32_t next = p->runs[x].nnext;
        uint32_t *root = lb_root(p, c, n, p->runs[x].k);
        *root = treap_remove(p->runs, *root, x);
        p->runs[x].nnext = p->free_runs;
        p->free_runs = x;
        x = next;
    }
    p->lbhead[n] = PLACE_NONE;
    if (!c->node_up[n])
        return PLACE_OK;
    if (p->rhead[n] == PLACE_NONE) {
        /* no reservation: the profile only grows, so one run for each k,
         * from free_earliest() on, and no timeline (only reserved nodes have
         * one: a pass starts by forgetting theirs) */
        for (uint32_t k = 1; k <= c->node_gpus[n]; k++) {
            int64_t t = free_earliest(p, c, n, k, 0, 0);
            if (t != PLACE_T_NEVER && lb_run_add(p, c, n, k, t, INT64_MAX) != PLACE_OK)
                return PLACE_ERR_NOMEM;
        }
        return PLACE_OK;
    }
    uint32_t ns;
    const seg *sg = timeline_of(p, c, n, &ns);
    if (!sg)
        return PLACE_ERR_NOMEM;
    for (uint32_t k = 1; k <= c->node_gpus[n]; k++) {
        for (uint32_t i = 0; i < ns;) {
            if (sg[i].g < k || sg[i].cpu < 0 || sg[i].mem < 0) {
                i++;
                continue;
            }
            uint32_t j = i + 1;
            while (j < ns && sg[j].g >= k && sg[j].cpu >= 0 && sg[j].mem >= 0)
                j++;
            if (lb_run_add(p, c, n, k, sg[i].t, j == ns ? INT64_MAX : sg[j].t - sg[i].t))
                return PLACE_ERR_NOMEM;
            i = j;
        }
    }
    return PLACE_OK;
}

/* Node n's timeline changed: its runs again; nothing while the index is not
 * built (out of memory gives the index up for the pass). */
static void lb_node_changed(place__profile *p, const place_cluster *c, uint32_t n)
{
    if (p->lb_ok && n < c->n_nodes && lb_node_runs(p, c, n) != PLACE_OK)
        p->lb_ok = 0;
}

/* Build the index for this pass: every node's runs. O(nodes x (segments log
 * segments + runs log runs)). */
static int lb_start(place__profile *p, const place_cluster *c)
{
    uint32_t nn = c->n_nodes ? c->n_nodes : 1, nr = PLACE_MAX_TYPES * LB_K,
             old_seen = p->cap_lbseen;
    if (place__grow(&p->env, (void **)&p->lbroot, &p->cap_lbroot, nr, sizeof *p->lbroot) ||
        place__grow(&p->env, (void **)&p->lbhead, &p->cap_lbhead, nn, sizeof *p->lbhead) ||
        place__grow(&p->env, (void **)&p->lbseen, &p->cap_lbseen, nn, sizeof *p->lbseen))
        return PLACE_ERR_NOMEM;
    memset(p->lbseen + old_seen, 0, (p->cap_lbseen - old_seen) * sizeof *p->lbseen);
    for (uint32_t k = 0; k < nr; k++)
        p->lbroot[k] = PLACE_NONE;
    for (uint32_t n = 0; n < c->n_nodes; n++)
        p->lbhead[n] = PLACE_NONE;
    p->n_runs = 0;
    p->free_runs = PLACE_NONE;
    for (uint32_t n = 0; n < c->n_nodes; n++)
        if (lb_node_runs(p, c, n) != PLACE_OK)
            return PLACE_ERR_NOMEM;
    p->lb_ok = 1;
    return PLACE_OK;
}

/* The reservation search of place__profile_reserve over the index, for a job
 * of k >= 1 GPUs on one node: the runs of the allowed types at least d long,
 * earliest (start, node) first. A node's first such run starts where the
 * node could start a job without host needs (node_earliest()), and no later
 * than where it can start this one; so for a job without host needs the
 * first run is the answer, and otherwise each node met is evaluated until
 * the next run starts past the best (start, node) found. Either way the
 * answer is the plain walk's: the least (start, node). The runs taken are put
 * back after. O(nodes tried x (log runs + the node's evaluation)). */
static int lb_search(place__profile *p, const place_cluster *c, const place_job *j, int64_t k,
                     int64_t d, int64_t *best_out, uint32_t *best_node_out)
{
    uint32_t roots[PLACE_MAX_TYPES], nt = 0;
    for (uint32_t t = 0; t < c->n_types && t < PLACE_MAX_TYPES; t++)
        if (place_type_ok(c, j, t) && c->type_max_gpus[t] >= k)
            roots[nt++] = t * LB_K + (uint32_t)k;
    int64_t best = PLACE_T_NEVER;
    uint32_t best_node = PLACE_NONE;
    int nomem = 0, host = j->cpu_milli != 0 || j->host_mem_mib != 0;
    if (++p->lbstamp == 0) {
        memset(p->lbseen, 0, p->cap_lbseen * sizeof *p->lbseen);
        p->lbstamp = 1;
    }
    p->n_undo = 0;
    for (;;) {
        uint32_t x = PLACE_NONE, w = 0;
        for (uint32_t q = 0; q < nt; q++) {
            uint32_t y = treap_first(p->runs, p->lbroot[roots[q]], d);
            if (run_earlier(p->runs, x, y) == y && y != PLACE_NONE) {
                x = y;
                w = q;
            }
        }
        if (x == PLACE_NONE)
            break;
        const lbrun *r = &p->runs[x];
        uint32_t n = r->node;
        if (r->start > best || (r->start == best && n > best_node))
            break;
        if (place__grow(&p->env, (void **)&p->undo, &p->cap_undo, p->n_undo + 1, sizeof *p->undo)) {
            nomem = 1;
            break;
        }
        p->undo[p->n_undo++] = x;
        p->lbroot[roots[w]] = treap_remove(p->runs, p->lbroot[roots[w]], x);
        if (p->lbseen[n] == p->lbstamp)
            continue; /* (a later run of a node already evaluated) */
        p->lbseen[n] = p->lbstamp;
        if (c->node_cpu_milli[n] < j->cpu_milli || c->node_mem_mib[n] < j->host_mem_mib)
            continue;
        int64_t t = p->runs[x].start;
        if (host &&
            (t = node_earliest(p, c, n, k, j->cpu_milli, j->host_mem_mib, d, &nomem), nomem))
            break;
        if (t != PLACE_T_NEVER && (t < best || (t == best && n < best_node))) {
            best = t;
            best_node = n;
        }
        if (!host)
            break; /* the first run is the answer */
    }
    while (p->n_undo > 0) {
        uint32_t x = p->undo[--p->n_undo];
        uint32_t *root = lb_root(p, c, p->runs[x].node, p->runs[x].k);
        *root = treap_insert(p->runs, *root, x);
    }
    if (nomem)
        return PLACE_ERR_NOMEM;
    *best_out = best;
    *best_node_out = best_node;
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
    /* most GPUs on a node of an allowed type: a gang larger than every node
     * (SWF jobs on one-GPU nodes) needs no walk over the nodes */
    int64_t big = k > 0 ? 0 : INT64_MAX;
    for (uint32_t t = 0; t < c->n_types && big < k; t++)
        if (place_type_ok(c, j, t) && c->type_max_gpus[t] > big)
            big = c->type_max_gpus[t];
    /* a pass that reserves for many jobs asks the index instead of walking
     * every node (the same answer) */
    int walk = big >= k;
    if (walk && k > 0 && ++p->searches > PLACE_LB_MIN_SEARCHES) {
        if (!p->lb_ok && lb_start(p, c) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        if (lb_search(p, c, j, k, d, &best, &best_node) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        walk = 0;
    }
    for (uint32_t n = 0; n < c->n_nodes && best != p->now && walk; n++) {
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
        for (uint32_t t = 0; t < c->n_types && best > p->now; t++) {
            if (!place_type_ok(c, j, t) || c->type_gpus_up[t] < j->gpus)
                continue;
            int64_t s = span_earliest(p, c, t, k, d, best, &nomem); /* used if before best */
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
    return add_resv(p, c, best_node, best, add_sat(best, d), (uint32_t)k, j->cpu_milli,
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
        int64_t f = fat(p, c->node_gpu0[n] + part->gpu);
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

static int cmp_loss(const void *a, const void *b)
{
    const loss *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->a < y->a ? -1 : x->a > y->a;
}

/* The summary hopeless() reads: for each reserved node n with fully free GPUs,
 * a(n) = its earliest reservation start and loss(n) = its free GPUs beyond
 * what the profile holds at a(n) (a part that runs past a(n) meets that
 * segment in allow(), so it can use at most that many). Sorted by (type, a),
 * equal starts merged, losses summed cumulatively per type. O(R log R) for R
 * reservations; rebuilt only after a start, a preemption or a new reservation. */
static int loss_build(place__profile *p, const place_cluster *c)
{
    uint32_t old_cap = p->cap_seen;
    if (place__grow(&p->env, (void **)&p->seen, &p->cap_seen, p->n_nodes ? p->n_nodes : 1,
                    sizeof *p->seen) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    /* a new slot must not match a live stamp by chance, or its node would be
     * taken as counted and its loss dropped */
    memset(p->seen + old_cap, 0, (size_t)(p->cap_seen - old_cap) * sizeof *p->seen);
    if (++p->stamp == 0) { /* wrapped: forget every old stamp */
        memset(p->seen, 0, p->cap_seen * sizeof *p->seen);
        p->stamp = 1;
    }
    p->n_loss = 0;
    /* the reserved nodes with free GPUs: within a pass a node's free GPUs
     * only go (starts), so the list is kept from one summary to the next,
     * pruned of the nodes that have none left, and new reservations add
     * theirs; a sync (a preemption, the cluster's own changes) renews it */
    if (!p->lfree_ok) {
        if (place__grow(&p->env, (void **)&p->lfree, &p->cap_lfree, p->n_nodes ? p->n_nodes : 1,
                        sizeof *p->lfree) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        p->n_lfree = 0;
        for (uint32_t k = 0; k < p->n_rs; k++) {
            uint32_t n = p->rs[k].node;
            if (p->seen[n] == p->stamp)
                continue;
            p->seen[n] = p->stamp;
            if (n < c->n_nodes && c->node_free[n] > 0)
                p->lfree[p->n_lfree++] = n;
        }
        p->lfree_ok = 1;
    }
    uint32_t kept = 0;
    for (uint32_t q = 0; q < p->n_lfree; q++) {
        uint32_t n = p->lfree[q];
        int64_t fr = n < c->n_nodes ? c->node_free[n] : 0;
        if (fr == 0)
            continue; /* (for the rest of the pass, or until a sync) */
        p->lfree[kept++] = n;
        int64_t a = PLACE_T_NEVER;
        for (uint32_t r = p->rhead[n]; r != PLACE_NONE; r = p->rs[r].next)
            if (p->rs[r].a < a)
                a = p->rs[r].a;
        int64_t g = gpus_at(p, c, n, a);
        int64_t keep = g < 0 ? 0 : g > fr ? fr : g;
        if (keep == fr)
            continue;
        if (p->n_loss >= p->cap_loss &&
            place__grow(&p->env, (void **)&p->loss, &p->cap_loss, p->n_loss + 1, sizeof *p->loss))
            return PLACE_ERR_NOMEM;
        p->loss[p->n_loss++] = (loss){a, c->node_type[n], fr - keep};
    }
    p->n_lfree = kept;
    uint32_t sorted = 1;
    for (uint32_t i = 1; i < p->n_loss && sorted; i++)
        sorted = cmp_loss(&p->loss[i - 1], &p->loss[i]) <= 0;
    if (!sorted) /* one spanning reservation: one type, one start, already in order */
        qsort(p->loss, p->n_loss, sizeof *p->loss, cmp_loss);
    uint32_t w = 0;
    for (uint32_t i = 0; i < p->n_loss; i++) {
        loss x = p->loss[i];
        if (w > 0 && p->loss[w - 1].type == x.type) {
            x.gpus += p->loss[w - 1].gpus;
            if (p->loss[w - 1].a == x.a) {
                p->loss[w - 1] = x;
                continue;
            }
        }
        p->loss[w++] = x;
    }
    p->n_loss = w;
    for (uint32_t t = 0, i = 0; t <= PLACE_MAX_TYPES; t++) {
        while (i < w && p->loss[i].type < t)
            i++;
        p->loss_off[t] = i;
    }
    p->loss_ok = 1;
    return PLACE_OK;
}

int place__profile_hopeless(place__profile *p, const place_view *v, const place_job *j)
{
    if (p->n_rs == 0 || j->gpus == 0 || j->gpu_milli < PLACE_MILLI_WHOLE)
        return 0;
    const place_cluster *c = v->cluster;
    int64_t end = add_sat(p->now, j->estimate_us < 0 ? PLACE_T_NEVER : j->estimate_us);
    if (end <= p->now)
        return 0; /* allow() accepts everything */
    /* the allowed types with enough GPUs free now (place_type_ok): a gang
     * larger than what is free on each of them cannot fit whatever the
     * reservations, and is refused without the summary (most of a long
     * queue, each pass, on an SWF log) */
    uint64_t types = 0;
    for (uint32_t t = 0; t < c->n_types && t < PLACE_MAX_TYPES; t++)
        if (c->type_gpus_free[t] >= j->gpus && j->gpu_mem_mib <= c->type_mem_mib[t] &&
            (j->type_mask == 0 || ((j->type_mask >> t) & 1u)))
            types |= 1ull << t;
    if (types == 0)
        return 1;
    if (ensure_built(p, v) != PLACE_OK || (!p->loss_ok && loss_build(p, c) != PLACE_OK))
        return 0; /* out of memory: let the fit walk */
    for (uint32_t t = 0; t < c->n_types && t < PLACE_MAX_TYPES; t++) {
        if (!((types >> t) & 1u))
            continue;
        /* the losses of the reserved nodes whose first reservation starts
         * before the job would end: cumulative, so the last such entry */
        uint32_t lo = p->loss_off[t], hi = p->loss_off[t + 1];
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (p->loss[mid].a < end)
                lo = mid + 1;
            else
                hi = mid;
        }
        int64_t lost = lo > p->loss_off[t] ? p->loss[lo - 1].gpus : 0;
        if ((int64_t)c->type_gpus_free[t] - lost >= (int64_t)j->gpus)
            return 0;
    }
    return 1;
}

void place__profile_observe(place__profile *p, const place_view *v, const place_decision *d)
{
    p->loss_ok = 0;
    if (!p->synced)
        return; /* brought up to the view when next needed */
    if (d->kind == PLACE_START && d->index < v->n_queue && p->inited) {
        const place_cluster *c = v->cluster;
        uint64_t id = v->queue[d->index].id;
        for (uint32_t k = v->n_running; k-- > 0;)
            if (v->running[k].job.id == id) {
                const place_running *r = &v->running[k];
                if (p->hash_stale ? job_add(p, c, r, 0, k) != PLACE_OK
                                  : (hash_find(p, id) != PLACE_NONE || job_add(p, c, r, 1, k)))
                    break; /* (a duplicate id: the next sync finds it) */
                /* what a rebuild in the middle of the pass used to do: the
                 * job's end raises its GPUs' free times (a GPU held by
                 * something unlisted stays never); the nodes stay dirty, so
                 * the next pass recomputes them from the cluster */
                int64_t end = r->end_estimate_us < 0 ? PLACE_T_NEVER : r->end_estimate_us;
                for (uint32_t q = 0; q < r->n_parts; q++) {
                    const place_part *pt = &r->parts[q];
                    if (pt->node >= c->n_nodes)
                        continue;
                    p->sorted_ok[pt->node] = 0;
                    p->tl_ok[pt->node] = 0;
                    uint32_t g0 = c->node_gpu0[pt->node];
                    for (uint64_t m = pt->mask; m; m &= m - 1) {
                        uint32_t x = g0 + (uint32_t)__builtin_ctzll(m);
                        if (x < c->n_gpus && p->free_at[x] != PLACE_T_NEVER &&
                            p->free_at[x] < end) {
                            ord_note(p, x, c->node_type[pt->node], p->free_at[x], end);
                            p->free_at[x] = end;
                        }
                    }
                    lb_node_changed(p, c, pt->node);
                }
                return;
            }
    }
    if (d->kind != PLACE_ROUTE_API)
        p->synced = 0; /* a preemption, or a start the host did not list: sync again */
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
