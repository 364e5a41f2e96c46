/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backfill_count.c — count-based reservations for EASY and conservative
 * backfilling on identical nodes, and the choice between them and the
 * node-identity reservations of backfill_profile.c.
 *
 * The rules as stated by Lifka (JSSPP 1995) and by Mu'alem and Feitelson
 * (IEEE TPDS 12(6), 2001, section 2) count processors: a job needs k of a
 * pool of identical ones, and a reservation holds k of them over an interval,
 * not particular ones. Here that pool is an availability profile: a step
 * function of the free units over future time, kept as a sorted array of
 * steps (t, free) — free units on [t, next t), the last step until forever.
 *
 *  - Built from the view at the first use in a pass: the units free now,
 *    then each running part's unit back at its job's end estimate (already
 *    passed: now + 1 us; unknown: never, as in backfill_profile.c).
 *  - EASY (one reservation): the first blocked job gets the earliest interval
 *    [s, s + estimate) in which the profile holds its units — s is the shadow
 *    time, and what the profile holds at s beyond its need is the "extra"
 *    count. A later job may start now iff the profile still holds its units
 *    over [now, now + estimate). Without reservations the profile never
 *    decreases, so that is exactly "ends by the shadow time, or takes no
 *    more than the extra units" (the minimum over the interval is at s), and
 *    subtracting the started job from the profile is exactly "the extra count
 *    is reduced by what it takes".
 *  - Conservative (every blocked job, in queue order): each gets the earliest
 *    interval that holds it, given the reservations ahead of it; a job starts
 *    now iff its earliest interval starts now, which is the same test as
 *    EASY's allow(). Reservations are rebuilt in queue order in every pass,
 *    so a job that ends before its estimate compresses the schedule.
 *
 * When it applies (count_applies(); checked once per pass, at the first use):
 *   the cluster has one GPU type; every node has the same GPU count G; every
 *   GPU of every node in service is in service; every node in service is
 *   either fully free or fully held (no GPU held by something the view does
 *   not list beside free ones); every running part holds G whole GPUs (a
 *   whole node); every waiting job asks for whole GPUs, a
 *   multiple of G of them (one node, or several with PLACE_JOB_CAN_SPAN), of
 *   the one type and its GPU memory, is no service replica, and asks for host
 *   CPU and memory that the smallest node holds in full (so host resources
 *   never bind: a node runs one job). A unit is then a node (a GPU when G is
 *   1, as on SWF machines), and any free unit is as good as another. In any
 *   other pass the node-identity profile of backfill_profile.c decides. The
 *   mode holds for the whole pass: a start in it keeps the condition (the
 *   job was a waiting whole-node job). The node part is cached per cluster
 *   and rechecked for nodes added since (place_cluster has no removal; a
 *   state serves one host's cluster); hopeless() is exact in a count pass
 *   (fewer free units now than the job needs, or allow() refuses).
 *
 * Costs, with S steps (at most 1 + running jobs + 2 x (reservations and
 * starts of the pass)) and Q
 * waiting jobs: building O(R log R + parts + nodes / 64) per pass that
 * needs it (R running jobs); the applicability test O(Q + parts), the node
 * uniformity cached (O(1) unless nodes were added); a point lookup O(log S)
 * (bisection); "holds k over [a, b)" O(log S + steps in [a, b)); the earliest
 * interval O(S) (each step visited at most twice); adding a reservation or a
 * start O(log S) to find the bounds and O(S) to insert them (memmove of a
 * sorted array, cheap at these sizes). allow() answers are cached per job
 * until the profile changes, so a fit that asks once per part of a spanning
 * gang costs one test (the composed policy does not even ask: a count pass
 * answers per job, place__bf_allows_job). Once EASY's reservation is made,
 * the composed policy steps over the jobs hopeless() refuses in one loop
 * here (place__bf_skip_hopeless) instead of visiting each. Conservative's
 * hopeless() searches a job's earliest interval while reservations are
 * still made and keeps it for blocked(), which inserts it at the indexes
 * found. A conservative pass is O(Q x S) in the worst case.
 */
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

/* The count profile and its pass state. */
typedef struct cprof {
    place_env env;
    uint32_t max_resv, tried; /* reservations per pass (1: EASY); blocked jobs seen */
    int mode;                 /* this pass: -1 undecided, 0 identity, 1 count */
    int built;                /* steps describe the view of this pass */
    int64_t now;
    uint32_t gpn, type; /* the unit: gpn GPUs of type `type` */
    /* node uniformity, cached for the first uni_nodes nodes of uni_cluster */
    const place_cluster *uni_cluster;
    uint32_t uni_nodes, uni_gpn, uni_type;
    int uni_ok;
    int all_up;               /* this pass (count mode): every node is in service */
    int64_t min_k;            /* this pass (count mode): fewest units a waiting job needs */
    int64_t uni_cpu, uni_mem; /* smallest host CPU and memory */
    int64_t *st, *sf;         /* steps: time and free units */
    uint32_t n, cap_st, cap_sf;
    int64_t *pm; /* pm[x]: the least of sf[0..x], valid at profile version pm_version */
    uint32_t cap_pm;
    uint64_t pm_version;
    struct crel {
        int64_t t, k;
    } * rel; /* scratch: releases of running jobs */
    uint32_t cap_rel;
    struct cres {
        int64_t a, b, k;
        uint32_t qi;
    } * rs;
    uint32_t n_rs, cap_rs;
    /* allow() cache: the answer for (id, estimate, GPUs) at a profile version */
    uint64_t version, memo_id, memo_version;
    int64_t memo_est;
    uint32_t memo_gpus;
    int memo;
    /* hopeless()'s earliest interval for blocked(), while reservations are
     * still made: (id, estimate, GPUs) at a profile version -> start a at
     * step ea_x, ea_y the first step at or after its end (profile_earliest) */
    uint64_t ea_id, ea_version;
    int64_t ea_est, ea_a;
    uint32_t ea_gpus, ea_x, ea_y;
} cprof;

/* The combined state of EASY and conservative: both profiles, one used per pass. */
typedef struct bfstate {
    place__profile *id;
    cprof cp;
} bfstate;

static int64_t add_sat(int64_t a, int64_t b)
{
    if (a == PLACE_T_NEVER || b == PLACE_T_NEVER || a > PLACE_T_NEVER - b)
        return PLACE_T_NEVER;
    return a + b;
}

/* A job's estimated run from now; never 0 (as backfill_profile.c). */
static int64_t duration_of(const place_job *j)
{
    if (j->estimate_us < 0)
        return PLACE_T_NEVER;
    return j->estimate_us > 0 ? j->estimate_us : 1;
}

static uint32_t bits_count(const place_bits *b)
{
    uint32_t n = 0;
    for (uint32_t w = 0; w < b->n0; w++)
        n += (uint32_t)__builtin_popcountll(b->w0[w]);
    return n;
}

/* Nodes all of one type and GPU count; cached, rechecked only for new nodes. */
static int nodes_uniform(cprof *p, const place_cluster *c)
{
    if (p->uni_cluster != c || c->n_nodes < p->uni_nodes) {
        p->uni_cluster = c;
        p->uni_nodes = 0;
        p->uni_ok = 1;
        p->uni_cpu = p->uni_mem = INT64_MAX;
    }
    for (uint32_t n = p->uni_nodes; n < c->n_nodes && p->uni_ok; n++) {
        if (n == 0) {
            p->uni_gpn = c->node_gpus[0];
            p->uni_type = c->node_type[0];
        }
        if (c->node_gpus[n] != p->uni_gpn || c->node_type[n] != p->uni_type)
            p->uni_ok = 0;
        if (c->node_cpu_milli[n] < p->uni_cpu)
            p->uni_cpu = c->node_cpu_milli[n];
        if (c->node_mem_mib[n] < p->uni_mem)
            p->uni_mem = c->node_mem_mib[n];
    }
    p->uni_nodes = c->n_nodes;
    return p->uni_ok && c->n_nodes > 0 && p->uni_gpn > 0;
}

/* Can waiting job j be counted in units of gpn GPUs of type t? (The type
 * test is place_type_ok()'s, inline: every waiting job, every pass.) */
static inline int job_counts(const cprof *p, const place_cluster *c, const place_job *j)
{
    uint32_t g = p->uni_gpn, t = p->uni_type;
    return j->gpus > 0 && j->gpu_milli == PLACE_MILLI_WHOLE && (g == 1 || j->gpus % g == 0) &&
           (j->gpus == g || (j->flags & PLACE_JOB_CAN_SPAN)) && !(j->flags & PLACE_JOB_SERVICE) &&
           (j->type_mask == 0 || ((j->type_mask >> t) & 1u)) &&
           j->gpu_mem_mib <= c->type_mem_mib[t] && j->cpu_milli <= p->uni_cpu &&
           j->host_mem_mib <= p->uni_mem;
}

/* The exact condition of the top comment, for this view. O(Q + parts). */
static int count_applies(cprof *p, const place_view *v)
{
    const place_cluster *c = v->cluster;
    if (!nodes_uniform(p, c) || c->types_present != (1ull << p->uni_type) ||
        c->type_max_gpus[p->uni_type] != p->uni_gpn)
        return 0;
    uint32_t t = p->uni_type, g = p->uni_gpn, up = bits_count(&c->up[t]);
    if (c->gpus_up != (uint64_t)g * up)
        return 0; /* a GPU out of service on a node in service */
    if (g > 1 && c->type_gpus_free[t] != (uint64_t)g * bits_count(c->by_free[t] + g))
        return 0; /* a node partly free: held in part by something no view lists */
    /* A running job's parts are a placement the cluster took (place_cluster_take
     * or _take_exact, which check it: each part at least one GPU and at most its
     * node's g, whole GPUs where the job asks for whole ones, the parts adding up
     * to the job's GPUs), so "every part is one whole node" is, per job, "whole
     * GPUs, g per part": O(running jobs), not O(parts). */
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *x = &v->running[r];
        if (x->job.gpu_milli != PLACE_MILLI_WHOLE || x->n_parts == 0 ||
            x->job.gpus != (uint64_t)g * x->n_parts)
            return 0;
    }
    int64_t min_k = INT64_MAX;
    for (uint32_t i = 0; i < v->n_queue; i++)
        if (v->queue_state[i] == PLACE_Q_WAITING) {
            if (!job_counts(p, c, &v->queue[i]))
                return 0;
            if (v->queue[i].gpus < min_k)
                min_k = v->queue[i].gpus;
        }
    p->min_k = min_k == INT64_MAX ? min_k : min_k / g;
    p->gpn = g;
    p->type = t;
    p->all_up = up == c->n_nodes;
    return 1;
}

static int cmp_rel(const void *a, const void *b)
{
    const struct crel *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* Sort releases by time: insertion sort for the few of a usual pass (a
 * handful of running jobs on an SWF machine), qsort beyond. The order of
 * equal times does not matter: profile_build() adds them into one step. */
static void rel_sort(struct crel *r, uint32_t m)
{
    if (m > 32) {
        qsort(r, m, sizeof *r, cmp_rel);
        return;
    }
    for (uint32_t i = 1; i < m; i++) {
        struct crel x = r[i];
        uint32_t k = i;
        for (; k > 0 && r[k - 1].t > x.t; k--)
            r[k] = r[k - 1];
        r[k] = x;
    }
}

/* The last step starting at or before t (t >= st[0]). O(log S). */
static uint32_t step_find(const cprof *p, int64_t t)
{
    uint32_t lo = 0, hi = p->n; /* st[lo] <= t < st[hi] */
    while (hi - lo > 1) {
        uint32_t m = lo + (hi - lo) / 2;
        if (p->st[m] <= t)
            lo = m;
        else
            hi = m;
    }
    return lo;
}

/* Make a step start at t (> st[0]); its index, or UINT32_MAX without memory. */
static uint32_t step_split(cprof *p, int64_t t)
{
    uint32_t k = step_find(p, t);
    if (p->st[k] == t)
        return k;
    if (place__grow(&p->env, (void **)&p->st, &p->cap_st, p->n + 1, sizeof *p->st) ||
        place__grow(&p->env, (void **)&p->sf, &p->cap_sf, p->n + 1, sizeof *p->sf))
        return UINT32_MAX;
    memmove(p->st + k + 2, p->st + k + 1, (p->n - k - 1) * sizeof *p->st);
    memmove(p->sf + k + 2, p->sf + k + 1, (p->n - k - 1) * sizeof *p->sf);
    p->st[k + 1] = t;
    p->sf[k + 1] = p->sf[k];
    p->n++;
    p->version++; /* the indexes moved */
    return k + 1;
}

/* Take k units over [a, b) (b may be PLACE_T_NEVER). */
static int profile_take(cprof *p, int64_t a, int64_t b, int64_t k)
{
    if (b <= a)
        return PLACE_OK;
    uint32_t ka = step_split(p, a < p->st[0] ? p->st[0] : a);
    uint32_t kb = b == PLACE_T_NEVER ? p->n : step_split(p, b);
    if (ka == UINT32_MAX || kb == UINT32_MAX)
        return PLACE_ERR_NOMEM;
    for (uint32_t x = ka; x < kb; x++)
        p->sf[x] -= k;
    p->version++;
    return PLACE_OK;
}

/* Does the profile hold k units over [a, b)? */
static int profile_holds(const cprof *p, int64_t a, int64_t b, int64_t k)
{
    for (uint32_t x = step_find(p, a); x < p->n && p->st[x] < b; x++)
        if (p->sf[x] < k)
            return 0;
    return 1;
}

/* The prefix minima of profile_holds_now() for this profile version; 0, or
 * PLACE_ERR_NOMEM. O(S). */
static int prefix_min_build(cprof *p)
{
    if (place__grow(&p->env, (void **)&p->pm, &p->cap_pm, p->n, sizeof *p->pm))
        return PLACE_ERR_NOMEM;
    int64_t m = INT64_MAX;
    for (uint32_t x = 0; x < p->n; x++)
        p->pm[x] = m = p->sf[x] < m ? p->sf[x] : m;
    p->pm_version = p->version;
    return PLACE_OK;
}

/* Does the profile hold k units over [now, b) (b > now = st[0])? As
 * profile_holds(p, now, b, k): the least free count from now up to the last
 * step before b, from the prefix minima, which are recomputed once per
 * profile version (O(S)); then a bisection (O(log S)). EASY asks this of
 * every queued job that fits now, between changes of the profile. */
static inline int profile_holds_now(cprof *p, int64_t b, int64_t k)
{
    if (p->pm_version != p->version && prefix_min_build(p) != PLACE_OK)
        return profile_holds(p, p->now, b, k); /* no memory: the walk */
    return p->pm[b == PLACE_T_NEVER ? p->n - 1 : step_find(p, b - 1)] >= k;
}

/* The earliest a at which the profile holds k units over [a, a + d);
 * PLACE_T_NEVER when it never does. O(S). When found, a is st[*xa] and
 * *yb is the first step at or after a + d (n: none; always n when a + d
 * is PLACE_T_NEVER), which profile_take_at() uses. */
static int64_t profile_earliest(const cprof *p, int64_t d, int64_t k, uint32_t *xa, uint32_t *yb)
{
    for (uint32_t x = 0; x < p->n; x++) {
        if (p->sf[x] < k)
            continue;
        int64_t a = p->st[x], b = add_sat(a, d);
        uint32_t y = x + 1;
        while (y < p->n && p->st[y] < b && p->sf[y] >= k)
            y++;
        if (y == p->n || p->st[y] >= b) {
            *xa = x;
            *yb = y;
            return a;
        }
        x = y; /* step y lacks units: the next candidate starts after it */
    }
    return PLACE_T_NEVER;
}

/* profile_take(p, st[x], b, k) for an interval profile_earliest() found
 * (x, y its indexes, b > st[x]): the start is a step already and the end
 * falls in step y - 1 or starts step y, so no search. */
static int profile_take_at(cprof *p, uint32_t x, uint32_t y, int64_t b, int64_t k)
{
    if (b != PLACE_T_NEVER && (y == p->n || p->st[y] != b)) {
        /* step_split(p, b): a step at b, as free as the one it splits */
        if (place__grow(&p->env, (void **)&p->st, &p->cap_st, p->n + 1, sizeof *p->st) ||
            place__grow(&p->env, (void **)&p->sf, &p->cap_sf, p->n + 1, sizeof *p->sf))
            return PLACE_ERR_NOMEM;
        memmove(p->st + y + 1, p->st + y, (p->n - y) * sizeof *p->st);
        memmove(p->sf + y + 1, p->sf + y, (p->n - y) * sizeof *p->sf);
        p->st[y] = b;
        p->sf[y] = p->sf[y - 1];
        p->n++;
        p->version++; /* the indexes moved */
    }
    for (uint32_t u = x; u < y; u++)
        p->sf[u] -= k;
    p->version++;
    return PLACE_OK;
}

/* Build the profile from the view (and re-apply this pass's reservations). */
static int profile_build(cprof *p, const place_view *v)
{
    const place_cluster *c = v->cluster;
    uint32_t m = 0;
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *x = &v->running[r];
        if (place__grow(&p->env, (void **)&p->rel, &p->cap_rel, m + 1, sizeof *p->rel))
            return PLACE_ERR_NOMEM;
        int64_t e = x->end_estimate_us < 0 ? PLACE_T_NEVER : x->end_estimate_us;
        if (e != PLACE_T_NEVER && e <= p->now)
            e = p->now + 1;                     /* past its estimate: expected at any moment */
        int64_t k = p->all_up ? x->n_parts : 0; /* one unit per part (count_applies) */
        for (uint32_t q = 0; q < x->n_parts && !p->all_up; q++)
            k += c->node_up[x->parts[q].node];
        if (k > 0 && e != PLACE_T_NEVER) {
            p->rel[m].t = e;
            p->rel[m].k = k;
            m++;
        }
    }
    if (m > 1) /* rel is NULL while nothing ever ran; qsort wants a pointer */
        rel_sort(p->rel, m);
    if (place__grow(&p->env, (void **)&p->st, &p->cap_st, m + 1, sizeof *p->st) ||
        place__grow(&p->env, (void **)&p->sf, &p->cap_sf, m + 1, sizeof *p->sf))
        return PLACE_ERR_NOMEM;
    p->st[0] = p->now;
    p->sf[0] = p->gpn == 1 ? (int64_t)c->type_gpus_free[p->type]
                           : (int64_t)bits_count(c->by_free[p->type] + p->gpn);
    p->n = 1;
    for (uint32_t r = 0; r < m; r++) {
        if (p->st[p->n - 1] != p->rel[r].t) {
            p->st[p->n] = p->rel[r].t;
            p->sf[p->n] = p->sf[p->n - 1];
            p->n++;
        }
        p->sf[p->n - 1] += p->rel[r].k;
    }
    p->built = 1;
    p->version++;
    for (uint32_t r = 0; r < p->n_rs; r++)
        if (profile_take(p, p->rs[r].a, p->rs[r].b, p->rs[r].k))
            return PLACE_ERR_NOMEM;
    return PLACE_OK;
}

/* Decide the pass's mode at the first use and build the count profile; the
 * mode (0 identity, 1 count) or PLACE_ERR_NOMEM. */
static int ensure_mode_slow(cprof *p, const place_view *v)
{
    if (p->mode < 0)
        p->mode = count_applies(p, v);
    if (p->mode == 1 && !p->built && profile_build(p, v) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    return p->mode;
}

/* ensure_mode_slow() once a pass; then a test (every allow and hopeless). */
static inline int ensure_mode(cprof *p, const place_view *v)
{
    if (p->mode == 0 || (p->mode == 1 && p->built))
        return p->mode;
    return ensure_mode_slow(p, v);
}

/* The count rule's allow() for job j started now. */
static int count_allow(cprof *p, const place_job *j)
{
    if (p->n_rs == 0)
        return 1; /* a profile without reservations never decreases */
    if (p->memo_version == p->version && p->memo_id == j->id && p->memo_est == j->estimate_us &&
        p->memo_gpus == j->gpus)
        return p->memo;
    int64_t k = j->gpus / p->gpn;
    p->memo = profile_holds_now(p, add_sat(p->now, duration_of(j)), k);
    p->memo_id = j->id;
    p->memo_est = j->estimate_us;
    p->memo_gpus = j->gpus;
    p->memo_version = p->version;
    return p->memo;
}

/* ------------------------------------------------------------------------- */
/* The backfill table functions EASY and conservative share                   */

int place__bf_create(const place_env *env, uint32_t max_resv, void **state)
{
    bfstate *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->cp.env = *env;
    s->cp.max_resv = max_resv;
    s->cp.mode = -1;
    s->cp.version = 1;
    int rc = place__profile_create(env, max_resv, &s->id);
    if (rc != PLACE_OK) {
        place__free(env, s, sizeof *s);
        return rc;
    }
    *state = s;
    return PLACE_OK;
}

void place__bf_destroy(void *state)
{
    bfstate *s = state;
    if (!s)
        return;
    cprof *p = &s->cp;
    place__profile_destroy(s->id);
    place__free(&p->env, p->st, p->cap_st * sizeof *p->st);
    place__free(&p->env, p->sf, p->cap_sf * sizeof *p->sf);
    place__free(&p->env, p->pm, p->cap_pm * sizeof *p->pm);
    place__free(&p->env, p->rel, p->cap_rel * sizeof *p->rel);
    place__free(&p->env, p->rs, p->cap_rs * sizeof *p->rs);
    place_env env = p->env;
    place__free(&env, s, sizeof *s);
}

int place__bf_begin(void *state, const place_view *v)
{
    bfstate *s = state;
    place__profile_begin(s->id, v);
    s->cp.mode = -1;
    s->cp.built = 0;
    s->cp.n_rs = 0;
    s->cp.tried = 0;
    s->cp.now = v->now_us;
    s->cp.version++;
    return PLACE_OK;
}

/* blocked()'s answer in a count pass after a blocked job: PLACE_BF_DONE once
 * the rule holds all the reservations it makes in a pass (EASY's one) and
 * fewer units are free now than any waiting job needs (sf[0] is the free
 * count now: starts are taken from it, nothing is given back within a pass,
 * and the waiting set only shrinks), so no later job can start in this pass;
 * PLACE_BF_SKIP otherwise. */
static int count_skip(const cprof *p)
{
    return p->n_rs > 0 && p->tried >= p->max_resv && p->sf[0] < p->min_k ? PLACE_BF_DONE
                                                                         : PLACE_BF_SKIP;
}

int place__bf_blocked(void *state, const place_view *v, uint32_t i)
{
    bfstate *s = state;
    cprof *p = &s->cp;
    int mode = ensure_mode(p, v);
    if (mode < 0)
        return mode;
    if (mode == 0) {
        int rc = place__profile_reserve(s->id, v, i);
        return rc < 0 ? rc : PLACE_BF_SKIP;
    }
    if (p->tried >= p->max_resv || i >= v->n_queue)
        return count_skip(p);
    p->tried++;
    const place_job *j = &v->queue[i];
    int64_t d = duration_of(j), k = j->gpus / p->gpn, a;
    uint32_t x, y;
    if (p->ea_version == p->version && p->ea_id == j->id && p->ea_est == j->estimate_us &&
        p->ea_gpus == j->gpus) {
        a = p->ea_a; /* hopeless() searched this profile for this job */
        x = p->ea_x;
        y = p->ea_y;
    } else
        a = profile_earliest(p, d, k, &x, &y);
    if (a == PLACE_T_NEVER)
        return count_skip(p); /* no bounded start: nothing to protect */
    if (place__grow(&p->env, (void **)&p->rs, &p->cap_rs, p->n_rs + 1, sizeof *p->rs))
        return PLACE_ERR_NOMEM;
    struct cres *r = &p->rs[p->n_rs];
    r->a = a;
    r->b = add_sat(a, d);
    r->k = k;
    r->qi = i;
    int rc = profile_take_at(p, x, y, r->b, k);
    if (rc != PLACE_OK)
        return rc;
    p->n_rs++;
    return count_skip(p);
}

int place__bf_allow(void *state, const place_view *v, const place_job *j, const place_part *part)
{
    bfstate *s = state;
    int mode = ensure_mode(&s->cp, v);
    if (mode < 0)
        return 0; /* out of memory: refuse rather than risk a reservation */
    return mode == 0 ? place__profile_allow(s->id, v, j, part) : count_allow(&s->cp, j);
}

void place__bf_observe(void *state, const place_view *v, const place_decision *d)
{
    bfstate *s = state;
    cprof *p = &s->cp;
    place__profile_observe(s->id, v, d);
    if (p->mode != 1 || !p->built)
        return; /* built from the view when next needed */
    if (d->kind == PLACE_START && d->index < v->n_queue && v->n_running > 0) {
        uint64_t id = v->queue[d->index].id;
        for (uint32_t r = v->n_running; r-- > 0;) /* the host appends: the last, as a rule */
            if (v->running[r].job.id == id) {
                const place_running *x = &v->running[r];
                int64_t e = x->end_estimate_us < 0 ? PLACE_T_NEVER : x->end_estimate_us;
                if (e != PLACE_T_NEVER && e <= p->now)
                    e = p->now + 1;
                /* every node in service, one GPU a node: one unit per GPU (the
                 * parts add up to the job's GPUs: place_cluster_check) */
                int64_t k = p->all_up && p->gpn == 1 ? (int64_t)x->job.gpus : 0;
                for (uint32_t q = 0; q < x->n_parts && !(p->all_up && p->gpn == 1); q++)
                    if (v->cluster->node_up[x->parts[q].node])
                        k += x->parts[q].gpus / p->gpn;
                /* counted free now and never as a release: held over [now, e) */
                if (profile_take(p, p->now, e, k) != PLACE_OK)
                    p->built = 0;
                return;
            }
    }
    if (d->kind != PLACE_ROUTE_API)
        p->built = 0; /* a preemption, or a start the host did not list */
}

int place__bf_hopeless(void *state, const place_view *v, const place_job *j)
{
    bfstate *s = state;
    int mode = ensure_mode(&s->cp, v);
    if (mode < 0)
        return 0;
    if (mode == 0)
        return place__profile_hopeless(s->id, v, j);
    cprof *p = &s->cp;
    int64_t k = j->gpus / p->gpn;
    if (p->sf[0] < k)
        return 1;
    if (p->n_rs == 0 || p->tried >= p->max_resv)
        return !count_allow(p, j);
    /* Conservative, reservations held and more to make: allow() is "the
     * earliest interval that holds the job starts now" (the interval from
     * now is the first candidate), and blocked() needs that interval when
     * the answer is no, so search once and keep it for blocked() (the profile
     * does not change in between: no decision is observed). */
    uint32_t x = 0, y = 0;
    int64_t a = profile_earliest(p, duration_of(j), k, &x, &y);
    p->ea_id = j->id;
    p->ea_est = j->estimate_us;
    p->ea_gpus = j->gpus;
    p->ea_version = p->version;
    p->ea_a = a;
    p->ea_x = x;
    p->ea_y = y;
    return a != p->now;
}

int place__bf_reserving(const void *state)
{
    const bfstate *s = state;
    return s->cp.mode == 1 ? s->cp.n_rs > 0 : place__profile_n_resv(s->id) > 0;
}

int place__bf_counting(const void *state)
{
    return ((const bfstate *)state)->cp.mode == 1;
}

int place__bf_one_resv(const void *state)
{
    return ((const bfstate *)state)->cp.max_resv == 1;
}

uint32_t place__bf_skip_hopeless(void *state, const place_view *v, const uint32_t *perm,
                                 uint32_t from, uint32_t n, int may_preempt)
{
    cprof *p = &((bfstate *)state)->cp;
    if (p->mode != 1 || !p->built || p->tried < p->max_resv || (may_preempt && p->n_rs == 0))
        return from; /* hopeless() or blocked() may act: every job is visited */
    if (count_skip(p) == PLACE_BF_DONE)
        return n; /* every waiting job needs more than is free: the pass ends at the next */
    int64_t free_now = p->sf[0];
    for (uint32_t c = from; c < n; c++) {
        uint32_t i = perm ? perm[c] : c;
        if (v->queue_state[i] != PLACE_Q_WAITING)
            continue;
        const place_job *j = &v->queue[i];
        int64_t k = p->gpn == 1 ? (int64_t)j->gpus : (int64_t)(j->gpus / p->gpn);
        /* hopeless(): fewer units free now than k, or allow() refuses */
        if (k > free_now)
            continue;
        if (p->n_rs == 0 || profile_holds_now(p, add_sat(p->now, duration_of(j)), k))
            return c;
    }
    return n;
}

int place__bf_allows_job(const void *state)
{
    const cprof *p = &((const bfstate *)state)->cp;
    return p->mode == 1 && p->built; /* place__bf_allow() is count_allow() then */
}

uint32_t place__bf_count_resv(const void *state, uint32_t k, int64_t *start_us, int64_t *end_us,
                              uint32_t *units, uint32_t *queue_index)
{
    const cprof *p = &((const bfstate *)state)->cp;
    if (k < p->n_rs) {
        *start_us = p->rs[k].a;
        *end_us = p->rs[k].b;
        *units = (uint32_t)p->rs[k].k;
        *queue_index = p->rs[k].qi;
    }
    return p->n_rs;
}
