/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gavel_round.c — Gavel's round-based mechanism (Narayanan et al., "Heterogeneity-
 * Aware Cluster Scheduling Policies for Deep Learning Workloads", OSDI 2020).
 *
 * Time is cut into rounds (multiples of the round length, 360 s by default).
 * The host solves the policy's allocation X (jobs x GPU types, fractions of
 * time) and shows it in place_view.timeshare with the time each job has
 * received per type; this file only realises it. At a round boundary every
 * job, queued or running, gets a priority per type
 *     priority = X[j][t] / (time received on t / time in the allocation)
 * (X x 1e9 when it has received nothing there yet, as Gavel's source does,
 * so that 2 x a new priority still exceeds it). Types are taken one after
 * another (fastest first; shuffled with the host's random source for the
 * heterogeneity-agnostic objective, as Gavel shuffles worker types for
 * policies that ignore throughput); within a type jobs go in decreasing
 * priority and each job is scheduled on at most one type while it fits the
 * type's GPUs left (a GPU share counts its fraction: shares are a job's
 * shape here, not Gavel's space sharing of two jobs). A job with X = 0 on a type may still take
 * GPUs left over (except under fifo). Then the running jobs chosen again on the type they run on
 * keep their GPUs (lease renewal: no decision, no cost); the other preemptible running jobs are
 * preempted; the chosen queued jobs start on their type (one node when it fits, else spanning nodes
 * of that type when the job may span). A running job chosen for another type
 * is preempted in the pass and started on its new type in the next pass of the
 * same instant (the host queues it again after the first; the engine runs a
 * pass again whenever one stopped a job). Between boundaries a pass decides
 * nothing (a job arriving or GPUs freed mid-round wait for the next round, as
 * in Gavel) and wake() asks for a pass at the next boundary.
 *
 * Without a timeshare (a host that solves none and is given none) every
 * job counts as X = 1 on its fastest allowed type, so the rounds run FIFO.
 *
 * Arguments: "[OBJECTIVE][@ROUND_SECONDS]", objectives max-min (default),
 * max-min-wf (realised as max-min: only the host's solve differs), max-min-agnostic,
 * ftf, makespan, fifo, read by place_gavel_args (place.h),
 * which the host (sim/model/gavel_alloc.c) calls too to know what to solve.
 * Cost per boundary pass: O((queue + running) x types) to compute the
 * priorities, each entry of positive priority going straight into its
 * type's list and one of priority 0 (X = 0) only noted by job; a type whose
 * unchosen jobs all fit takes them unordered, otherwise it takes the longest
 * prefix that fits by a selection on GPUs (O(n) expected), drops the entry
 * after it and all as large, and repeats, at most once per job size (take:
 * the one-by-one rule's choices while rounding cannot change a test), else
 * they come off one heap per job size (O(log) a pop) until none left fits;
 * the entries of priority 0 are built only when one of them fits the GPUs
 * the positive ones left.
 * tests/test_gavel_round.c holds a boundary's choices to the plain rule.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const OBJ[PLACE_GAVEL_N_OBJECTIVES] = {
    [PLACE_GAVEL_MAXMIN] = "max-min", [PLACE_GAVEL_MAXMIN_AGNOSTIC] = "max-min-agnostic",
    [PLACE_GAVEL_FTF] = "ftf",        [PLACE_GAVEL_MAKESPAN] = "makespan",
    [PLACE_GAVEL_FIFO] = "fifo",      [PLACE_GAVEL_MAXMIN_WF] = "max-min-wf",
};

const char *place_gavel_objective_name(int objective)
{
    return objective >= 0 && objective < PLACE_GAVEL_N_OBJECTIVES ? OBJ[objective] : NULL;
}

int place_gavel_args(const char *args, int *objective, int64_t *round_us, char *err, size_t err_len)
{
    int obj = PLACE_GAVEL_MAXMIN;
    int64_t r_us = PLACE_GAVEL_ROUND_US;
    const char *a = args ? args : "";
    while (*a == ' ' || *a == '\t')
        a++;
    size_t alen = strcspn(a, " \t");
    if (alen) {
        const char *rest = a + alen;
        while (*rest == ' ' || *rest == '\t')
            rest++;
        const char *at = memchr(a, '@', alen);
        size_t nlen = at ? (size_t)(at - a) : alen;
        obj = -1;
        for (int k = 0; k < PLACE_GAVEL_N_OBJECTIVES; k++)
            if (strlen(OBJ[k]) == nlen && strncmp(a, OBJ[k], nlen) == 0)
                obj = k;
        if (obj < 0 || *rest)
            goto bad;
        if (at) {
            char buf[32];
            size_t l = alen - nlen - 1;
            if (l == 0 || l >= sizeof buf)
                goto bad;
            memcpy(buf, at + 1, l);
            buf[l] = '\0';
            char *end;
            double s = strtod(buf, &end);
            if (*end || !(s >= 1e-3) || s > 1e9)
                goto bad;
            r_us = (int64_t)llround(s * 1e6);
        }
    }
    *objective = obj;
    *round_us = r_us;
    return PLACE_OK;
bad:
    if (err && err_len)
        snprintf(err, err_len,
                 "policy 'gavel': expected [OBJECTIVE][@ROUND_SECONDS] with OBJECTIVE one of "
                 "max-min, max-min-wf, max-min-agnostic, ftf, makespan, fifo, got '%.60s'",
                 a);
    return PLACE_ERR_SPEC;
}

/* The most distinct job sizes take_by_size handles */
enum { GV_SIZES = 16 };

/* Slots of the memo of allowed types (types_ok), a power of 2 */
enum { GV_OKMEMO = 64 };

/* Where a candidate's X comes from (cand_entry) */
enum { X_SOLVED, X_UNSOLVED, X_FASTEST };

typedef struct cand {
    const place_job *j;
    const double *xr, *rr; /* X_SOLVED: the job's row of X and its received time */
    double act;            /* X_SOLVED: its time in the allocation */
    uint64_t id;
    uint32_t qi;      /* queue index, or PLACE_NONE for a running job */
    uint32_t k;       /* a running job's index in view->running */
    uint32_t cur;     /* the type it runs on, or PLACE_NONE */
    uint32_t fastest; /* X_FASTEST: its fastest allowed type */
    uint8_t mode;     /* X_SOLVED, X_UNSOLVED or X_FASTEST */
    uint8_t pinned;   /* running and not preemptible: keeps its GPUs */
} cand;

/* What the types' turns read of a candidate, kept apart and small (a
 * turn visits candidates in no order, and cands[k] is five cache lines'
 * worth of them fewer per line). */
typedef struct cstate {
    double need;   /* need_of(j), computed once a round */
    uint32_t sel;  /* the type chosen for the next round, or PLACE_NONE */
    uint32_t size; /* its class among the round's distinct needs (take_by_size) */
} cstate;

/* A (job, type) entry: the type is the list's, the job a candidate index. */
typedef struct entry {
    double prio, x;
    uint64_t id;
    uint32_t c;
    uint32_t size; /* candidate c's size class (cstate.size) */
} entry;

typedef struct gv {
    place_env env;
    int objective;
    int64_t round_us;
    cand *cands;
    cstate *cs; /* per candidate, as cands */
    uint32_t cap_cands, cap_cs;
    /* the round's entries by type: type t's of positive priority at
     * pos[t * n_cands ..], the candidates with an entry of priority 0 at
     * zero[t * n_cands ..]; heap is take_by_size's scratch */
    entry *pos, *heap;
    uint32_t *zero;
    uint32_t cap_pos, cap_heap, cap_zero;
    struct gv_pre {
        uint64_t id; /* a job to preempt */
        uint32_t k;  /* where it was in view->running when chosen */
    } * pre;
    uint32_t n_pre, i_pre, cap_pre;
    /* where the jobs to preempt are now: the host swap-removes each one
     * preempted (place.h), which moves view->running's last entry into its
     * place; pre_at[k] is the pre index of the job at k (PLACE_NONE: none),
     * for the n_tracked entries of view->running, and last_k where the
     * previous decision preempted (PLACE_NONE: it did not) */
    uint32_t *pre_at;
    uint32_t cap_pre_at, n_tracked, last_k;
    uint32_t order[PLACE_MAX_TYPES]; /* the types' order in the round that starts at order_us */
    uint32_t n_order;
    int64_t order_us;
    /* the round chosen at sel_us, by job id: a second pass of the same
     * instant starts the jobs that moved type without choosing again */
    struct gv_sel {
        uint64_t id;
        uint32_t t;
    } * sel;
    uint32_t n_sel, cap_sel;
    int sel_hashed;
    uint32_t *hash; /* sel_find's table: n_hash slots, each 0 or a sel index + 1 */
    uint32_t n_hash, cap_hash;
    uint32_t *rhash; /* row_of's table (rows_index) */
    uint32_t n_rhash, cap_rhash;
    int64_t sel_us;
    uint32_t *starts; /* candidate indices to start */
    uint32_t n_starts, i_starts, cap_starts;
    double sizes[GV_SIZES]; /* the round's distinct needs (n_sizes > GV_SIZES: too many) */
    uint32_t n_sizes;
    int milli_sizes;  /* every one of them whole thousandths of a GPU */
    double gpus_max;  /* the most GPUs of a type, this boundary */
    uint32_t n_round; /* candidates this boundary */
    /* the types present a job may use, by (type_mask, gpu_mem_mib): jobs of
     * a class share them (types_ok), cleared at each boundary */
    struct gv_okmemo {
        uint64_t type_mask, ok;
        uint32_t mem_mib, used;
    } okmemo[GV_OKMEMO];
} gv;

static int gv_create(const place_env *env, const char *args, void **state, char *err,
                     size_t err_len)
{
    int obj;
    int64_t round_us;
    int rc = place_gavel_args(args, &obj, &round_us, err, err_len);
    if (rc != PLACE_OK)
        return rc;
    gv *g = place__realloc(env, NULL, 0, sizeof *g);
    if (!g)
        return PLACE_ERR_NOMEM;
    memset(g, 0, sizeof *g);
    g->env = *env;
    g->objective = obj;
    g->round_us = round_us;
    g->order_us = -1;
    g->sel_us = -1;
    *state = g;
    return PLACE_OK;
}

static void gv_destroy(void *state)
{
    gv *g = state;
    if (!g)
        return;
    place_env env = g->env;
    place__free(&env, g->cands, g->cap_cands * sizeof *g->cands);
    place__free(&env, g->cs, g->cap_cs * sizeof *g->cs);
    place__free(&env, g->pos, g->cap_pos * sizeof *g->pos);
    place__free(&env, g->zero, g->cap_zero * sizeof *g->zero);
    place__free(&env, g->heap, g->cap_heap * sizeof *g->heap);
    place__free(&env, g->pre, g->cap_pre * sizeof *g->pre);
    place__free(&env, g->pre_at, g->cap_pre_at * sizeof *g->pre_at);
    place__free(&env, g->starts, g->cap_starts * sizeof *g->starts);
    place__free(&env, g->sel, g->cap_sel * sizeof *g->sel);
    place__free(&env, g->hash, g->cap_hash * sizeof *g->hash);
    place__free(&env, g->rhash, g->cap_rhash * sizeof *g->rhash);
    place__free(&env, g, sizeof *g);
}

static int grow(const place_env *env, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return PLACE_OK;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c = c > UINT32_MAX / 2 ? need : c * 2;
    void *q = place__realloc(env, *p, (size_t)*cap * elem, (size_t)c * elem);
    if (!q)
        return PLACE_ERR_NOMEM;
    *p = q;
    *cap = c;
    return PLACE_OK;
}

/* The rows of the view's timeshare by job id: an open-addressing table of
 * row + 1 (0: empty) over n_rhash slots, built at each boundary (O(rows)),
 * so that each candidate's row costs O(1), not a binary search. */
static uint64_t id_mix(uint64_t id)
{
    return (id * 0x9e3779b97f4a7c15ull) >> 32;
}

static int rows_index(gv *g, const place_timeshare *ts)
{
    uint32_t slots = 16;
    while (slots < 2 * ts->n_rows)
        slots *= 2;
    if (grow(&g->env, (void **)&g->rhash, &g->cap_rhash, slots, sizeof *g->rhash))
        return PLACE_ERR_NOMEM;
    g->n_rhash = slots;
    memset(g->rhash, 0, slots * sizeof *g->rhash);
    for (uint32_t r = 0; r < ts->n_rows; r++) {
        uint32_t s = (uint32_t)id_mix(ts->job_id[r]) & (slots - 1);
        while (g->rhash[s])
            s = (s + 1) & (slots - 1);
        g->rhash[s] = r + 1;
    }
    return PLACE_OK;
}

static uint32_t row_of(const gv *g, const place_timeshare *ts, uint64_t id)
{
    uint32_t mask = g->n_rhash - 1;
    for (uint32_t s = (uint32_t)id_mix(id) & mask;; s = (s + 1) & mask) {
        uint32_t r = g->rhash[s];
        if (r == 0)
            return PLACE_NONE;
        if (ts->job_id[r - 1] == id)
            return r - 1;
    }
}

static double speed_of(const place_job *j, uint32_t t)
{
    double s = j->speed ? j->speed[t] : 1.0;
    return s > 0 ? s : 1.0;
}

/* The GPUs a job holds: a share counts its fraction of one. */
static double need_of(const place_job *j)
{
    return (double)j->gpus * j->gpu_milli / PLACE_MILLI_WHOLE;
}

/* The types present that job j may use (place_type_ok), as a bit mask:
 * computed once per (type_mask, gpu_mem_mib) a boundary, which jobs of a
 * class share; a full memo slot's key is computed each time. */
static uint64_t types_ok(gv *g, const place_cluster *c, const place_job *j)
{
    uint64_t h = (j->type_mask ^ ((uint64_t)j->gpu_mem_mib << 20)) * 0x9e3779b97f4a7c15ull;
    struct gv_okmemo *m = &g->okmemo[h >> 58 & (GV_OKMEMO - 1)];
    if (m->used && m->type_mask == j->type_mask && m->mem_mib == j->gpu_mem_mib)
        return m->ok;
    uint64_t ok = 0;
    for (uint32_t t = 0; t < c->n_types; t++)
        if (((c->types_present >> t) & 1u) && place_type_ok(c, j, t))
            ok |= 1ull << t;
    if (!m->used) {
        *m = (struct gv_okmemo){j->type_mask, ok, j->gpu_mem_mib, 1};
    }
    return ok;
}

/* Candidate c's X and priority on type t (an entry exists only for a type
 * the job may use; the caller checks). */
static inline void cand_entry(const cand *x, uint32_t t, double *xv, double *prio)
{
    if (x->mode == X_SOLVED) {
        *xv = x->xr[t];
        if (!(*xv > 0)) {
            *prio = 0;
            return;
        }
        double frac = x->act > 0 ? x->rr[t] / x->act : 0;
        *prio = frac > 0 ? *xv / frac : *xv * 1e9;
    } else if (x->mode == X_UNSOLVED) {
        *xv = 0; /* solved for another job set: it waits for the next solve */
        *prio = 0;
    } else {
        *xv = t == x->fastest ? 1.0 : 0.0;
        *prio = *xv * 1e9;
    }
}

/* The order of a type's entries: priority descending, then X descending,
 * then job id ascending (a total order: one entry per job and type): a
 * comes strictly before b on type t. Equal priorities (jobs that have not
 * run on t) look X up again. */
static inline int ent_before(entry a, entry b)
{
    if (a.prio != b.prio)
        return a.prio > b.prio;
    if (a.x != b.x)
        return a.x > b.x;
    return a.id < b.id;
}

/* A heap whose top is the entry ent_before puts first: popping gives what
 * sorting the type's entries would, without sorting those that never get
 * their turn. */
static void heap_down(entry *h, uint32_t n, uint32_t k)
{
    entry v = h[k];
    for (;;) {
        uint32_t c = 2 * k + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ent_before(h[c + 1], h[c]))
            c++;
        if (!ent_before(h[c], v))
            break;
        h[k] = h[c];
        k = c;
    }
    h[k] = v;
}

/* Type t takes its unchosen entries h[0..nh) in ent_before's order while
 * they fit its GPUs left: one heap per job size (GPUs; the round's sizes,
 * g->sizes), and at each step the first of the tops whose size still fits.
 * That is what popping one heap and skipping the entries too big for what
 * is left gives (left only shrinks, so a skipped entry never fits later),
 * without popping those. The per-size heaps are built in g->heap. */
static void take_by_size(gv *g, uint32_t t, const entry *h, uint32_t nh, double *left)
{
    uint32_t nsz = g->n_sizes, cnt[GV_SIZES] = {0}, beg[GV_SIZES], fill[GV_SIZES];
    for (uint32_t e = 0; e < nh; e++)
        cnt[h[e].size]++;
    entry *q = g->heap;
    for (uint32_t s = 0, b = 0; s < nsz; s++) {
        beg[s] = fill[s] = b;
        b += cnt[s];
    }
    for (uint32_t e = 0; e < nh; e++)
        q[fill[h[e].size]++] = h[e];
    for (uint32_t s = 0; s < nsz; s++)
        for (uint32_t k = cnt[s] / 2; k-- > 0;)
            heap_down(q + beg[s], cnt[s], k);
    for (;;) {
        uint32_t best = GV_SIZES;
        for (uint32_t s = 0; s < nsz; s++)
            if (cnt[s] && !(g->sizes[s] > *left + 1e-9) &&
                (best == GV_SIZES || ent_before(q[beg[s]], q[beg[best]])))
                best = s;
        if (best == GV_SIZES)
            return;
        entry *top = q + beg[best];
        g->cs[top[0].c].sel = t;
        *left -= g->sizes[best];
        top[0] = top[--cnt[best]];
        heap_down(top, cnt[best], 0);
    }
}

static void swap_ent(entry *a, entry *b)
{
    entry tmp = *a;
    *a = *b;
    *b = tmp;
}

/* The longest prefix of h[0..nh) in ent_before's order whose GPUs fit in
 * left, found without ordering it (a selection by GPUs, O(nh) expected):
 * h is permuted so that the prefix is h[0..returned), its entries in no
 * particular order, and *used gets their GPUs ("fit": within left + 1e-9,
 * the one-by-one test). Under take's condition on rounding this is the run
 * of entries a one-by-one pass takes before its first skip. */
static uint32_t fit_prefix(const gv *g, entry *h, uint32_t nh, double left, double *used)
{
    uint32_t lo = 0, hi = nh;
    double acc = 0;
    while (lo < hi) {
        /* median of three as the pivot, moved to h[hi - 1] */
        uint32_t mid = lo + (hi - lo) / 2, last = hi - 1;
        if (ent_before(h[mid], h[lo]))
            swap_ent(&h[mid], &h[lo]);
        if (ent_before(h[last], h[lo]))
            swap_ent(&h[last], &h[lo]);
        if (ent_before(h[mid], h[last]))
            swap_ent(&h[mid], &h[last]);
        entry pv = h[last];
        uint32_t w = lo;
        double sb = 0; /* the GPUs of the entries before the pivot */
        for (uint32_t e = lo; e < last; e++)
            if (ent_before(h[e], pv)) {
                sb += g->sizes[h[e].size];
                swap_ent(&h[e], &h[w++]);
            }
        swap_ent(&h[w], &h[last]); /* the pivot at w: h[lo..w) before it, the rest after */
        if (acc + sb > left + 1e-9) {
            hi = w; /* the prefix ends before the pivot */
        } else if (acc + sb + g->sizes[pv.size] > left + 1e-9) {
            acc += sb; /* it ends just before the pivot */
            lo = w;
            break;
        } else {
            acc += sb + g->sizes[pv.size];
            lo = w + 1;
        }
    }
    *used = acc;
    return lo;
}

/* Type t takes entries h[0..nh): all of them when they all fit, else by
 * selections (fit_prefix) when rounding cannot change a test, else as
 * take_by_size does, or, when the round has more sizes than it handles,
 * from one heap, skipping the entries too big for what is left (the same
 * choices every way). */
static void take(gv *g, uint32_t t, entry *h, uint32_t nh, double *left)
{
    double total = 0;
    for (uint32_t e = 0; e < nh; e++)
        total += g->cs[h[e].c].need;
    if (total <= *left) { /* all fit, whatever the order (as in gv_begin) */
        for (uint32_t e = 0; e < nh; e++) {
            g->cs[h[e].c].sel = t;
            *left -= g->cs[h[e].c].need;
        }
        return;
    }
    /* the bound on the rounding of every sum of GPUs and of left (half an
     * ulp of the largest a step, over the boundary's steps before and these) */
    double err = ((double)g->n_round + nh) * (g->gpus_max + total) * 0x1p-53;
    if (g->n_sizes <= GV_SIZES && g->milli_sizes && err < 5e-10) {
        /* the longest prefix that fits is taken unordered; then every
         * entry left that no longer fits is dropped (the entry after the
         * prefix among them), as left only shrinks and it never will, and
         * the others go on (still in their order) the same way. The sizes skipped fall strictly
         * from one step to the next (each is above what is left, which bounds every size kept), so
         * there are at most as many steps as sizes. Sums in another order round otherwise, but
         * every GPU count here is whole thousandths: an exact margin is 0 or above, or -0.001 or
         * below, and rounding within err keeps each test (need <= left +
         * 1e-9) on the same side in either order. */
        while (nh > 0) {
            double used;
            uint32_t np = fit_prefix(g, h, nh, *left, &used);
            for (uint32_t e = 0; e < np; e++)
                g->cs[h[e].c].sel = t;
            *left -= used;
            uint32_t nr = 0;
            for (uint32_t e = np; e < nh; e++)
                if (!(g->sizes[h[e].size] > *left + 1e-9))
                    h[nr++] = h[e];
            nh = nr;
        }
        return;
    }
    if (g->n_sizes <= GV_SIZES) {
        take_by_size(g, t, h, nh, left);
        return;
    }
    double least = INFINITY;
    for (uint32_t e = 0; e < nh; e++)
        least = g->cs[h[e].c].need < least ? g->cs[h[e].c].need : least;
    for (uint32_t k = nh / 2; k-- > 0;)
        heap_down(h, nh, k);
    while (nh > 0 && !(least > *left + 1e-9)) {
        entry en = h[0];
        h[0] = h[--nh];
        heap_down(h, nh, 0);
        cstate *x = &g->cs[en.c];
        if (x->need > *left + 1e-9)
            continue;
        x->sel = t;
        *left -= x->need;
    }
}

static int is_boundary(const gv *g, const place_view *v)
{
    return v->now_us >= 0 && v->now_us % g->round_us == 0;
}

static uint32_t sel_hash(uint64_t id, uint32_t mask)
{
    return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* The round's choices by job id (an open-addressing table of indices into
 * g->sel, built by the first second pass of the boundary). */
static const struct gv_sel *sel_find(const gv *g, uint64_t id)
{
    uint32_t mask = g->n_hash - 1;
    for (uint32_t s = sel_hash(id, mask);; s = (s + 1) & mask) {
        uint32_t k = g->hash[s];
        if (k == 0)
            return NULL;
        if (g->sel[k - 1].id == id)
            return &g->sel[k - 1];
    }
}

/* A second pass at the boundary whose round is already chosen: start the
 * chosen jobs that wait (those the first pass moved), preempt nothing. */
static int begin_again(gv *g, const place_view *v)
{
    uint32_t n = 0;
    if (!g->sel_hashed) {
        uint32_t slots = 16;
        while (slots < 2 * g->n_sel)
            slots *= 2;
        if (grow(&g->env, (void **)&g->hash, &g->cap_hash, slots, sizeof *g->hash))
            return PLACE_ERR_NOMEM;
        g->n_hash = slots;
        memset(g->hash, 0, slots * sizeof *g->hash);
        for (uint32_t k = 0; k < g->n_sel; k++) {
            uint32_t s = sel_hash(g->sel[k].id, slots - 1);
            while (g->hash[s])
                s = (s + 1) & (slots - 1);
            g->hash[s] = k + 1;
        }
        g->sel_hashed = 1;
    }
    for (uint32_t i = 0; i < v->n_queue; i++) {
        if (v->queue_state[i] != PLACE_Q_WAITING)
            continue;
        const struct gv_sel *f = sel_find(g, v->queue[i].id);
        if (!f)
            continue;
        cand *x = &g->cands[n];
        x->j = &v->queue[i];
        x->id = x->j->id;
        x->qi = i;
        x->k = PLACE_NONE;
        x->cur = PLACE_NONE;
        g->cs[n].sel = f->t;
        x->pinned = 0;
        g->cs[n].need = need_of(x->j);
        g->starts[g->n_starts++] = n++;
    }
    return PLACE_OK;
}

static int gv_begin(void *state, const place_view *v)
{
    gv *g = state;
    g->n_pre = g->i_pre = g->n_starts = g->i_starts = 0;
    g->last_k = PLACE_NONE;
    if (!is_boundary(g, v))
        return PLACE_OK;
    const place_cluster *c = v->cluster;
    const place_timeshare *ts = v->timeshare;
    uint32_t nt = c->n_types, nc = v->n_queue + v->n_running;
    if (grow(&g->env, (void **)&g->cands, &g->cap_cands, nc, sizeof *g->cands) ||
        grow(&g->env, (void **)&g->cs, &g->cap_cs, nc, sizeof *g->cs) ||
        grow(&g->env, (void **)&g->pos, &g->cap_pos, nc * nt, sizeof *g->pos) ||
        grow(&g->env, (void **)&g->zero, &g->cap_zero, nc * nt, sizeof *g->zero) ||
        grow(&g->env, (void **)&g->heap, &g->cap_heap, nc, sizeof *g->heap) ||
        grow(&g->env, (void **)&g->pre, &g->cap_pre, v->n_running, sizeof *g->pre) ||
        grow(&g->env, (void **)&g->pre_at, &g->cap_pre_at, v->n_running, sizeof *g->pre_at) ||
        grow(&g->env, (void **)&g->starts, &g->cap_starts, v->n_queue, sizeof *g->starts) ||
        grow(&g->env, (void **)&g->sel, &g->cap_sel, nc, sizeof *g->sel))
        return PLACE_ERR_NOMEM;
    if (g->sel_us == v->now_us)
        return begin_again(g, v);
    double left[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < nt; t++)
        left[t] = (double)c->type_gpus_up[t];
    uint32_t n = 0;
    for (uint32_t k = 0; k < v->n_running; k++) {
        const place_running *r = &v->running[k];
        cand *x = &g->cands[n++];
        x->j = &r->job;
        x->id = r->job.id;
        x->qi = PLACE_NONE;
        x->k = k;
        x->cur = r->n_parts ? c->node_type[r->parts[0].node] : PLACE_NONE;
        cstate *xs = &g->cs[n - 1];
        xs->sel = PLACE_NONE;
        xs->need = need_of(&r->job);
        x->pinned = !(r->job.flags & PLACE_JOB_PREEMPTIBLE) || (r->job.flags & PLACE_JOB_SERVICE) ||
                    r->job.gpus == 0 || x->cur == PLACE_NONE;
        if (x->pinned) {
            xs->sel = x->cur;
            if (x->cur != PLACE_NONE)
                left[x->cur] -= xs->need;
        }
    }
    for (uint32_t i = 0; i < v->n_queue; i++) {
        if (v->queue_state[i] != PLACE_Q_WAITING)
            continue;
        cand *x = &g->cands[n++];
        x->j = &v->queue[i];
        x->id = x->j->id;
        x->qi = i;
        x->k = PLACE_NONE;
        x->cur = g->cs[n - 1].sel = PLACE_NONE;
        x->pinned = 0;
        g->cs[n - 1].need = need_of(x->j);
    }
    if (ts && rows_index(g, ts) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    /* the priorities: an entry per job and type it may use (none of X = 0
     * under fifo), those of positive priority into the type's list, the
     * others (X = 0: GPUs left over) only noted, O(candidates x types) */
    uint32_t npos[PLACE_MAX_TYPES] = {0}, nzero[PLACE_MAX_TYPES] = {0};
    double tspeed[PLACE_MAX_TYPES] = {0};
    g->n_sizes = 0;
    memset(g->okmemo, 0, sizeof g->okmemo);
    int fifo = g->objective == PLACE_GAVEL_FIFO;
    for (uint32_t k = 0; k < n; k++) {
        cand *x = &g->cands[k];
        if (x->pinned)
            continue;
        const place_job *j = x->j;
        uint32_t r = ts ? row_of(g, ts, j->id) : PLACE_NONE;
        int solved = r != PLACE_NONE && ts->n_types == nt;
        int unsolved = !solved && ts && ts->n_types == nt && !(j->flags & PLACE_JOB_SERVICE);
        x->mode = solved ? X_SOLVED : unsolved ? X_UNSOLVED : X_FASTEST;
        x->fastest = PLACE_NONE;
        if (solved) {
            x->xr = ts->x + (size_t)r * nt;
            x->rr = ts->recv_s + (size_t)r * nt;
            x->act = ts->active_s[r];
        }
        uint64_t ok = types_ok(g, c, j);
        if (!ok)
            continue;
        cstate *xs = &g->cs[k];
        uint32_t s = 0;
        while (s < g->n_sizes && s < GV_SIZES && g->sizes[s] != xs->need)
            s++;
        if (s == g->n_sizes && s < GV_SIZES)
            g->sizes[s] = xs->need;
        if (s == g->n_sizes)
            g->n_sizes++;
        xs->size = s;
        if (x->mode == X_FASTEST)
            for (uint64_t m = ok; m; m &= m - 1) {
                uint32_t t = (uint32_t)__builtin_ctzll(m);
                if (x->fastest == PLACE_NONE || speed_of(j, t) > speed_of(j, x->fastest))
                    x->fastest = t;
            }
        for (uint64_t m = ok; m; m &= m - 1) {
            uint32_t t = (uint32_t)__builtin_ctzll(m);
            tspeed[t] += speed_of(j, t);
            double xv, prio;
            cand_entry(x, t, &xv, &prio);
            /* appended without a branch (which priorities are 0 follows no
             * pattern): the slot written is free, and counts when it is kept */
            int is_pos = prio > 0;
            g->pos[(size_t)t * n + npos[t]] = (entry){prio, xv, x->id, k, s};
            g->zero[(size_t)t * n + nzero[t]] = k;
            npos[t] += (uint32_t)is_pos;
            nzero[t] += (uint32_t)(!is_pos & (xv > 0 || !fifo));
        }
    }
    g->milli_sizes = 1;
    for (uint32_t s = 0; s < g->n_sizes && s < GV_SIZES; s++) {
        double k = g->sizes[s] * 1000;
        g->milli_sizes &= g->sizes[s] >= 0 && g->sizes[s] < 0x1p32 && fabs(k - nearbyint(k)) < 1e-6;
    }
    g->n_round = n;
    g->gpus_max = 0;
    for (uint32_t t = 0; t < nt; t++) {
        double up = (double)c->type_gpus_up[t];
        g->gpus_max = up > g->gpus_max ? up : g->gpus_max;
    }
    /* the order of the types: fastest first (by the candidates' mean speed),
     * or shuffled for the objective that ignores speed */
    uint32_t *order = g->order, no = 0;
    for (uint32_t t = 0; t < nt; t++)
        if ((c->types_present >> t) & 1u)
            no++;
    if (g->objective == PLACE_GAVEL_MAXMIN_AGNOSTIC && g->order_us == v->now_us &&
        g->n_order == no) {
        /* a second pass of the same boundary (it starts the jobs that move
         * type, which the host queues again after the first): same order */
    } else if (g->objective == PLACE_GAVEL_MAXMIN_AGNOSTIC) {
        no = 0;
        for (uint32_t t = 0; t < nt; t++)
            if ((c->types_present >> t) & 1u)
                order[no++] = t;
        for (uint32_t k = no; k > 1; k--) {
            uint32_t s = (uint32_t)place_rand_below(&g->env, k);
            uint32_t tmp = order[k - 1];
            order[k - 1] = order[s];
            order[s] = tmp;
        }
        g->order_us = v->now_us;
        g->n_order = no;
    } else {
        no = 0;
        for (uint32_t t = 0; t < nt; t++)
            if ((c->types_present >> t) & 1u)
                order[no++] = t;
        for (uint32_t a = 1; a < no; a++)
            for (uint32_t b = a; b > 0 && tspeed[order[b]] > tspeed[order[b - 1]]; b--) {
                uint32_t tmp = order[b];
                order[b] = order[b - 1];
                order[b - 1] = tmp;
            }
    }
    /* each type in that order takes its unchosen jobs by decreasing priority
     * while they fit: those of positive priority first, then, while GPUs are
     * left, those of priority 0 (after every positive one in ent_before's
     * order; a vertex X has many zeros, and few are ever taken) */
    for (uint32_t oi = 0; oi < no; oi++) {
        uint32_t t = order[oi];
        entry *h = g->pos + (size_t)t * n;
        uint32_t *z = g->zero + (size_t)t * n;
        uint32_t nh = 0, nz = 0;
        double total = 0, ztotal = 0, zleast = INFINITY;
        for (uint32_t e = 0; e < npos[t]; e++) {
            const cstate *x = &g->cs[h[e].c];
            if (x->sel != PLACE_NONE)
                continue;
            total += x->need;
            h[nh++] = h[e];
        }
        for (uint32_t e = 0; e < nzero[t]; e++) {
            const cstate *x = &g->cs[z[e]];
            if (x->sel != PLACE_NONE)
                continue;
            ztotal += x->need;
            zleast = x->need < zleast ? x->need : zleast;
            z[nz++] = z[e];
        }
        if (total + ztotal <= left[t]) {
            /* every one fits whatever the order (the sum's rounding is far
             * below the 1e-9 the sequential test allows) */
            for (uint32_t e = 0; e < nh; e++)
                g->cs[h[e].c].sel = t;
            for (uint32_t e = 0; e < nz; e++)
                g->cs[z[e]].sel = t;
            continue;
        }
        take(g, t, h, nh, &left[t]);
        if (nz == 0 || zleast > left[t] + 1e-9)
            continue; /* none of them fits what is left */
        for (uint32_t e = 0; e < nz; e++) {
            cand_entry(&g->cands[z[e]], t, &h[e].x, &h[e].prio);
            h[e].id = g->cands[z[e]].id;
            h[e].c = z[e];
            h[e].size = g->cs[z[e]].size;
        }
        take(g, t, h, nz, &left[t]);
    }
    /* leases: keep, preempt, start */
    g->n_sel = 0;
    for (uint32_t k = 0; k < n; k++) {
        cand *x = &g->cands[k];
        if (x->pinned)
            continue;
        uint32_t sel = g->cs[k].sel;
        if (sel != PLACE_NONE)
            g->sel[g->n_sel++] = (struct gv_sel){x->id, sel};
        if (x->qi == PLACE_NONE) {
            if (sel != x->cur)
                g->pre[g->n_pre++] = (struct gv_pre){x->id, x->k};
        } else if (sel != PLACE_NONE) {
            g->starts[g->n_starts++] = k;
        }
    }
    for (uint32_t k = 0; k < v->n_running; k++)
        g->pre_at[k] = PLACE_NONE;
    for (uint32_t p = 0; p < g->n_pre; p++)
        g->pre_at[g->pre[p].k] = p;
    g->n_tracked = v->n_running;
    g->sel_hashed = 0; /* hashed by begin_again, at a boundary where a job moves type */
    g->sel_us = v->now_us;
    return PLACE_OK;
}

/* Place job j on type t: one node when it fits, else across nodes of t. */
static int place_on(const place_view *v, const place_job *j, uint32_t t, place_decision *d)
{
    const place_cluster *c = v->cluster;
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, NULL);
    if (j->gpu_milli < PLACE_MILLI_WHOLE) { /* a share: the first GPU of t with room */
        for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
             n = place_bits_next(&c->any_share[t], n + 1)) {
            if (!place_host_ok(c, n, j))
                continue;
            for (uint32_t g = 0; g < c->node_gpus[n]; g++)
                if (place_gpu_share_fits(c, n, g, j)) {
                    place_decide_share(d, j, n, g);
                    return PLACE_OK;
                }
        }
        return PLACE_ERR_NOFIT;
    }
    if (c->type_gpus_free[t] < j->gpus)
        return PLACE_ERR_NOFIT;
    for (uint32_t n = place_cluster_next_free(c, t, j->gpus, 0); n != PLACE_NONE;
         n = place_cluster_next_free(c, t, j->gpus, n + 1)) {
        if (!place_host_ok(c, n, j))
            continue;
        place_decide_whole(d, j, n);
        return PLACE_OK;
    }
    if (!(j->flags & PLACE_JOB_CAN_SPAN))
        return PLACE_ERR_NOFIT;
    place_job one = *j;
    one.type_mask = 1ull << t;
    return place_fit_span_first(v, &one, d, NULL);
}

/* The previous decision preempted view->running[last_k]: when the host
 * took it off (one entry fewer), the entry that was last is at last_k now. */
static void follow_swap(gv *g, const place_view *v)
{
    uint32_t k = g->last_k;
    g->last_k = PLACE_NONE;
    if (v->n_running + 1 != g->n_tracked)
        return; /* not applied: nothing moved */
    uint32_t last = --g->n_tracked, p = g->pre_at[last];
    if (k < last) {
        g->pre_at[k] = p;
        if (p != PLACE_NONE)
            g->pre[p].k = k;
    }
}

static int gv_decide(void *state, const place_view *v, place_decision *d)
{
    gv *g = state;
    if (g->last_k != PLACE_NONE)
        follow_swap(g, v);
    while (g->i_pre < g->n_pre) {
        const struct gv_pre *p = &g->pre[g->i_pre++];
        uint64_t id = p->id;
        uint32_t at = PLACE_NONE;
        if (p->k < v->n_running && v->running[p->k].job.id == id)
            at = p->k;
        else /* the host moved it otherwise than place.h says: look */
            for (uint32_t k = 0; k < v->n_running && at == PLACE_NONE; k++)
                if (v->running[k].job.id == id)
                    at = k;
        if (at != PLACE_NONE) {
            d->kind = PLACE_PREEMPT;
            d->index = at;
            d->n_parts = 0;
            g->last_k = at;
            return PLACE_OK;
        }
    }
    while (g->i_starts < g->n_starts) {
        uint32_t k = g->starts[g->i_starts++];
        const cand *x = &g->cands[k];
        if (v->queue_state[x->qi] != PLACE_Q_WAITING)
            continue;
        if (place_on(v, x->j, g->cs[k].sel, d) == PLACE_OK) {
            d->kind = PLACE_START;
            d->index = x->qi;
            return PLACE_OK;
        }
    }
    return PLACE_DONE;
}

static int64_t gv_wake(void *state, const place_view *v)
{
    const gv *g = state;
    if (v->now_us < 0 || v->now_us > PLACE_T_NEVER - 2 * g->round_us)
        return PLACE_T_NEVER;
    return (v->now_us / g->round_us + 1) * g->round_us;
}

const place_policy place__policy_gavel = {
    .abi = PLACE_ABI_VERSION,
    .size = sizeof(place_policy),
    .name = "gavel",
    .summary = "Gavel's rounds: realise a solved time-sharing allocation by priority = X / "
               "time received, with lease renewal",
    .create = gv_create,
    .destroy = gv_destroy,
    .begin = gv_begin,
    .decide = gv_decide,
    .wake = gv_wake,
};
