/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compose.c — the composed policy: a queue order, a placement rule, a
 * backfilling rule, a preemption rule and a service rule, named in one
 * specification:
 *
 *     order=fifo placement=best-fit backfill=easy preempt=none service=none
 *     partition=none
 *
 * Each value is a component name from registry.c, optionally followed by ':'
 * and the component's own arguments ("placement=fgd:1@70,8@30").
 *
 * begin() asks the order for a permutation of the queue (none for arrival
 * order) and lets the other components set up for the pass; decide() walks
 * the permutation from a cursor. A job that fits is returned as a START. One
 * that does not is offered to the preemption rule (while the backfilling rule
 * holds no reservation: a reservation protects a job ahead, and preempting
 * for a job behind it would only reshuffle the order the reservation keeps);
 * when victims are found, their PREEMPT decisions come one per call, and
 * then the START on the capacity they freed. Otherwise the backfilling rule
 * either ends the pass (strict order) or lets the cursor move on, after it
 * may have made a reservation that later placements must respect (its
 * allow() vetoes their parts). The cursor only moves forward, so a pass costs
 * O(queue) placement attempts at most, and O(1) when the head of a strict
 * queue does not fit. (EASY over a pure fit and no partition rule: once its
 * reservation is made, the jobs hopeless() refuses are stepped over by the
 * backfilling rule in one loop, place__bf_skip_hopeless, not visited.)
 *
 * Victims are remembered by job id, not by running index: the host removes a
 * preempted job by swap-remove, which moves another entry into its index.
 * (The index each victim is expected at is kept too, moved as the
 * swap-removes move it and checked against the id, so that finding a victim
 * costs no search of the running set.)
 *
 * The partition rule (docs/partition.md) adds its veto to the backfilling
 * rule's in every fit: a job is placed at home first (its tenant's nodes and
 * shared ones) and, when the rule lends and the job is preemptible, on
 * borrowed nodes next. Before the preemption rule, the partition rule may
 * plan a reclaim (borrowers evicted from the job's own nodes), carried out as
 * a preemption plan. With one queue per tenant, a job the backfilling rule
 * would stop the pass for stops only its tenant: that tenant's later jobs are
 * stepped over (O(queue x blocked tenants) per pass then, instead of O(1)).
 * partition=none installs no veto and changes nothing.
 */
#include "place.h"
#include "place_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct slot {
    void *state;
    void (*destroy)(void *state);
} slot;

typedef struct compose {
    place_env env;
    const place_order *order;
    const place_fit *fit;
    const place_backfill *backfill;
    const place_preempt *preempt;
    const place_service *service;
    const place_partition *partition;
    slot s_order, s_fit, s_backfill, s_preempt, s_service, s_partition;
    int phase;         /* PLACE_PHASE_* of the fit in progress */
    int bf_skip;       /* refused jobs may be stepped over (place__bf_skip_hopeless) */
    uint32_t *blocked; /* tenants whose queue is stopped in this pass */
    uint32_t n_blocked, cap_blocked;
    uint32_t *perm;
    uint32_t cap, n, cursor;

    /* a preemption in progress: victims by id, then the START of plan_queue */
    int plan_active;
    uint32_t plan_queue, plan_n, plan_next;
    uint64_t *plan_ids;
    uint32_t plan_ids_cap;
    uint32_t *victims;
    uint32_t victims_cap;
    place_part *plan_parts;
    uint32_t plan_parts_cap, plan_n_parts;
} compose;

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || !err_len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Build the component named `val` ("name" or "name:args") of one kind. */
static int make(compose *s, const char *key, const char *val, slot *sl, char *err, size_t err_len)
{
    char name[64];
    const char *colon = strchr(val, ':');
    size_t len = colon ? (size_t)(colon - val) : strlen(val);
    const char *args = colon ? colon + 1 : "";
    if (len >= sizeof name) {
        set_err(err, err_len, "%s: component name too long: '%s'", key, val);
        return PLACE_ERR_SPEC;
    }
    memcpy(name, val, len);
    name[len] = '\0';
    place_create_fn create = NULL;
    void (*destroy)(void *) = NULL;
    int found = 1;
    if (strcmp(key, "order") == 0) {
        found = (s->order = place_order_find(name)) != NULL;
        if (found) {
            create = s->order->create;
            destroy = s->order->destroy;
        }
    } else if (strcmp(key, "placement") == 0) {
        found = (s->fit = place_fit_find(name)) != NULL;
        if (found) {
            create = s->fit->create;
            destroy = s->fit->destroy;
        }
    } else if (strcmp(key, "backfill") == 0) {
        found = (s->backfill = place_backfill_find(name)) != NULL;
        if (found) {
            create = s->backfill->create;
            destroy = s->backfill->destroy;
        }
    } else if (strcmp(key, "preempt") == 0) {
        found = (s->preempt = place_preempt_find(name)) != NULL;
        if (found) {
            create = s->preempt->create;
            destroy = s->preempt->destroy;
        }
    } else if (strcmp(key, "service") == 0) {
        found = (s->service = place_service_find(name)) != NULL;
        if (found) {
            create = s->service->create;
            destroy = s->service->destroy;
        }
    } else if (strcmp(key, "partition") == 0) {
        found = (s->partition = place_partition_find(name)) != NULL;
        if (found) {
            create = s->partition->create;
            destroy = s->partition->destroy;
        }
    }
    if (!found) {
        set_err(err, err_len, "unknown %s '%s'", key, name);
        return PLACE_ERR_NOTFOUND;
    }
    if (sl->destroy)
        sl->destroy(sl->state);
    sl->state = NULL;
    sl->destroy = NULL;
    if (!create) {
        if (*args) {
            set_err(err, err_len, "%s '%s' takes no arguments", key, name);
            return PLACE_ERR_SPEC;
        }
        return PLACE_OK;
    }
    int rc = create(&s->env, args, &sl->state, err, err_len);
    if (rc != PLACE_OK) {
        sl->state = NULL;
        return rc;
    }
    sl->destroy = destroy;
    return PLACE_OK;
}

/* Parse "key=value key=value" (separated by spaces or tabs). */
static int parse_spec(compose *s, const char *args, char *err, size_t err_len)
{
    static const char *const keys[] = {"order",   "placement", "backfill",
                                       "preempt", "service",   "partition"};
    slot *slots[] = {&s->s_order,   &s->s_fit,     &s->s_backfill,
                     &s->s_preempt, &s->s_service, &s->s_partition};
    int seen[6] = {0};
    const char *p = args;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            return PLACE_OK;
        size_t len = strcspn(p, " \t");
        char tok[8192]; /* a typical-pod list for fgd runs to a few KB */
        if (len >= sizeof tok) {
            set_err(err, err_len, "policy token too long: '%.40s...'", p);
            return PLACE_ERR_SPEC;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        p += len;
        char *eq = strchr(tok, '=');
        if (!eq) {
            set_err(err, err_len, "expected key=value, got '%s'", tok);
            return PLACE_ERR_SPEC;
        }
        *eq = '\0';
        int k;
        for (k = 0; k < 6; k++)
            if (strcmp(tok, keys[k]) == 0)
                break;
        if (k == 6) {
            set_err(err, err_len,
                    "unknown policy key '%s' (order, placement, backfill, preempt, service, "
                    "partition)",
                    tok);
            return PLACE_ERR_SPEC;
        }
        if (seen[k]++) {
            set_err(err, err_len, "policy key '%s' given twice", tok);
            return PLACE_ERR_SPEC;
        }
        int rc = make(s, keys[k], eq + 1, slots[k], err, err_len);
        if (rc != PLACE_OK)
            return rc;
    }
}

static void compose_destroy(void *state)
{
    compose *s = state;
    if (!s)
        return;
    slot *slots[] = {&s->s_order,   &s->s_fit,     &s->s_backfill,
                     &s->s_preempt, &s->s_service, &s->s_partition};
    for (int k = 0; k < 6; k++)
        if (slots[k]->destroy)
            slots[k]->destroy(slots[k]->state);
    place__free(&s->env, s->blocked, s->cap_blocked * sizeof *s->blocked);
    place__free(&s->env, s->perm, s->cap * sizeof *s->perm);
    place__free(&s->env, s->plan_ids, s->plan_ids_cap * sizeof *s->plan_ids);
    place__free(&s->env, s->victims, s->victims_cap * sizeof *s->victims);
    place__free(&s->env, s->plan_parts, s->plan_parts_cap * sizeof *s->plan_parts);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

static int compose_create(const place_env *env, const char *args, void **state, char *err,
                          size_t err_len)
{
    compose *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->order = &place__order_fifo;
    s->fit = &place__fit_first;
    s->backfill = &place__backfill_none;
    s->preempt = &place__preempt_none;
    s->service = &place__service_none;
    s->partition = &place__partition_none;
    int rc = parse_spec(s, args ? args : "", err, err_len);
    if (rc != PLACE_OK) {
        compose_destroy(s);
        return rc;
    }
    *state = s;
    return PLACE_OK;
}

static int compose_begin(void *state, const place_view *v)
{
    compose *s = state;
    s->n = v->n_queue;
    s->cursor = 0;
    s->plan_active = 0;
    s->n_blocked = 0;
    int rc;
    if (s->partition->begin && (rc = s->partition->begin(s->s_partition.state, v)) != PLACE_OK)
        return rc;
    if (s->fit->begin && (rc = s->fit->begin(s->s_fit.state, v)) != PLACE_OK)
        return rc;
    if (s->backfill->begin && (rc = s->backfill->begin(s->s_backfill.state, v)) != PLACE_OK)
        return rc;
    if (s->preempt->begin && (rc = s->preempt->begin(s->s_preempt.state, v)) != PLACE_OK)
        return rc;
    /* EASY over a PLACE_FIT_PURE fit with no partition rule: a job hopeless()
     * refuses has no path but blocked() (no reclaim; preemption only while no
     * reservation is held, which place__bf_skip_hopeless checks) */
    s->bf_skip = s->backfill->hopeless == place__bf_hopeless && (s->fit->flags & PLACE_FIT_PURE) &&
                 s->partition == &place__partition_none && place__bf_one_resv(s->s_backfill.state);
    if (!s->order->sort)
        return PLACE_OK; /* arrival order: the cursor indexes the queue itself */
    rc = place__grow(&s->env, (void **)&s->perm, &s->cap, v->n_queue, sizeof *s->perm);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t i = 0; i < s->n; i++)
        s->perm[i] = i;
    return s->order->sort(s->s_order.state, v, s->perm, s->n);
}

static uint32_t running_by_id(const place_view *v, uint64_t id)
{
    for (uint32_t k = 0; k < v->n_running; k++) /* O(running): once per victim */
        if (v->running[k].job.id == id)
            return k;
    return PLACE_NONE;
}

/* Drop a preemption plan that cannot go on; its job stays queued. */
static void plan_abort(compose *s)
{
    s->plan_active = 0;
    s->cursor++;
}

/* The next decision of a preemption in progress, or PLACE_DONE when the plan
 * had to be dropped (a victim vanished). */
static int plan_next(compose *s, const place_view *v, place_decision *d)
{
    if (s->plan_next < s->plan_n) {
        /* where the victim is now: s->victims follows the host's swap-removes
         * (checked by id; a host that moved it otherwise costs a search) */
        uint64_t id = s->plan_ids[s->plan_next];
        uint32_t k = s->victims[s->plan_next];
        if (k >= v->n_running || v->running[k].job.id != id)
            k = running_by_id(v, id);
        if (k == PLACE_NONE) {
            plan_abort(s);
            return PLACE_DONE;
        }
        uint32_t last = v->n_running - 1; /* moves into k when k is removed */
        for (uint32_t q = s->plan_next + 1; q < s->plan_n; q++)
            if (s->victims[q] == last)
                s->victims[q] = k;
        s->plan_next++;
        d->kind = PLACE_PREEMPT;
        d->index = k;
        d->n_parts = 0;
        return PLACE_OK;
    }
    if (s->plan_n_parts > d->cap_parts) {
        plan_abort(s);
        return PLACE_DONE;
    }
    memcpy(d->parts, s->plan_parts, s->plan_n_parts * sizeof *d->parts);
    d->n_parts = s->plan_n_parts;
    d->kind = PLACE_START;
    d->index = s->plan_queue;
    s->plan_active = 0;
    s->cursor++;
    return PLACE_OK;
}

typedef int (*plan_fn)(void *state, const place_view *v, uint32_t i, uint32_t *victims,
                       uint32_t cap_victims, uint32_t *n_victims, place_decision *d);

/* The phase in which job j may use the most capacity under the partition rule. */
static int widest_phase(const compose *s, const place_job *j)
{
    return (s->partition->flags & PLACE_PARTITION_LENDS) && (j->flags & PLACE_JOB_PREEMPTIBLE)
               ? PLACE_PHASE_BORROW
               : PLACE_PHASE_HOME;
}

/* Ask a planning rule (the preemption rule, or the partition rule's reclaim)
 * for job i; PLACE_OK when a plan was made. A plan whose START the partition
 * rule vetoes is refused. */
static int try_plan(compose *s, const place_view *v, uint32_t i, place_decision *d, plan_fn plan,
                    void *plan_state)
{
    if (!plan || v->n_running == 0)
        return PLACE_ERR_NOFIT;
    int rc = place__grow(&s->env, (void **)&s->victims, &s->victims_cap, v->n_running,
                         sizeof *s->victims);
    if (rc != PLACE_OK)
        return rc;
    uint32_t nv = 0;
    d->n_parts = 0;
    rc = plan(plan_state, v, i, s->victims, v->n_running, &nv, d);
    if (rc != PLACE_OK)
        return rc;
    if (nv == 0 || nv > v->n_running || d->n_parts == 0 || d->n_parts > d->cap_parts)
        return PLACE_ERR_NOFIT;
    if (s->partition->allow) {
        int phase = widest_phase(s, &v->queue[i]);
        for (uint32_t k = 0; k < d->n_parts; k++)
            if (!s->partition->allow(s->s_partition.state, v, &v->queue[i], d->parts[k].node,
                                     phase))
                return PLACE_ERR_NOFIT;
    }
    if ((rc = place__grow(&s->env, (void **)&s->plan_ids, &s->plan_ids_cap, nv,
                          sizeof *s->plan_ids)) != PLACE_OK ||
        (rc = place__grow(&s->env, (void **)&s->plan_parts, &s->plan_parts_cap, d->n_parts,
                          sizeof *s->plan_parts)) != PLACE_OK)
        return rc;
    for (uint32_t k = 0; k < nv; k++) {
        if (s->victims[k] >= v->n_running)
            return PLACE_ERR_NOFIT;
        s->plan_ids[k] = v->running[s->victims[k]].job.id;
    }
    memcpy(s->plan_parts, d->parts, d->n_parts * sizeof *d->parts);
    s->plan_n_parts = d->n_parts;
    s->plan_n = nv;
    s->plan_next = 0;
    s->plan_queue = i;
    s->plan_active = 1;
    return PLACE_OK;
}

/* Ask the preemption rule for job i (not while a reservation is held). */
static int try_preempt(compose *s, const place_view *v, uint32_t i, place_decision *d)
{
    if (s->backfill->reserving && s->backfill->reserving(s->s_backfill.state))
        return PLACE_ERR_NOFIT;
    return try_plan(s, v, i, d, s->preempt->plan, s->s_preempt.state);
}

/* The veto every fit consults: the partition rule's in the current phase,
 * then the backfilling rule's. Installed only when the partition rule has one. */
static int partition_allow(void *ud, const place_view *v, const place_job *j, const place_part *p)
{
    compose *s = ud;
    if (!s->partition->allow(s->s_partition.state, v, j, p->node, s->phase))
        return 0;
    return !s->backfill->allow || s->backfill->allow(s->s_backfill.state, v, j, p);
}

static int tenant_blocked(const compose *s, uint32_t tenant)
{
    for (uint32_t k = 0; k < s->n_blocked; k++) /* O(blocked tenants) */
        if (s->blocked[k] == tenant)
            return 1;
    return 0;
}

/* Place job i now (START parts in d), route it (PLACE_ROUTED) or PLACE_ERR_NOFIT. */
static int place_now(compose *s, const place_view *v, uint32_t i, place_decision *d,
                     const place_fit_ctx *ctx)
{
    const place_job *j = &v->queue[i];
    if ((j->flags & PLACE_JOB_SERVICE) && s->service->place)
        return s->service->place(s->s_service.state, v, i, d, ctx);
    if ((s->fit->flags & PLACE_FIT_PURE) && s->backfill->hopeless) {
        if (s->backfill->hopeless(s->s_backfill.state, v, j))
            return PLACE_ERR_NOFIT; /* what the fit would answer, without its walk */
        /* EASY or conservative counting nodes: allow() answers per job, and
         * hopeless() has just said it answers yes (place__bf_allows_job), so
         * the fit asks no veto per part (a spanning gang: one per node) */
        if (ctx->allow == s->backfill->allow && s->backfill->hopeless == place__bf_hopeless &&
            place__bf_allows_job(s->s_backfill.state)) {
            place_fit_ctx bare = *ctx;
            bare.allow = NULL;
            return s->fit->fit(s->s_fit.state, v, j, d, &bare);
        }
    }
    return s->fit->fit(s->s_fit.state, v, j, d, ctx);
}

static int compose_decide(void *state, const place_view *v, place_decision *d)
{
    compose *s = state;
    if (s->plan_active) {
        int rc = plan_next(s, v, d);
        if (rc != PLACE_DONE)
            return rc;
    }
    place_fit_ctx ctx = {&s->env, s->backfill->allow ? s->backfill->allow : NULL,
                         s->s_backfill.state};
    if (s->partition->allow) {
        ctx.allow = partition_allow;
        ctx.allow_ud = s;
    }
    const uint32_t *perm = s->order->sort ? s->perm : NULL;
    if (s->bf_skip) /* resuming after a start */
        s->cursor = place__bf_skip_hopeless(s->s_backfill.state, v, perm, s->cursor, s->n,
                                            s->preempt->plan != NULL);
    while (s->cursor < s->n) {
        uint32_t i = perm ? perm[s->cursor] : s->cursor;
        if (v->queue_state[i] != PLACE_Q_WAITING) {
            s->cursor++;
            continue;
        }
        const place_job *j = &v->queue[i];
        if (s->n_blocked && tenant_blocked(s, j->tenant)) {
            s->cursor++; /* its tenant's queue is stopped for this pass */
            continue;
        }
        s->phase = PLACE_PHASE_HOME;
        int rc = place_now(s, v, i, d, &ctx);
        if (rc == PLACE_ERR_NOFIT && widest_phase(s, j) == PLACE_PHASE_BORROW) {
            s->phase = PLACE_PHASE_BORROW;
            rc = place_now(s, v, i, d, &ctx);
            s->phase = PLACE_PHASE_HOME;
        }
        if (rc == PLACE_ROUTED) {
            d->kind = PLACE_ROUTE_API;
            d->index = i;
            d->n_parts = 0;
            s->cursor++;
            return PLACE_OK;
        }
        if (rc == PLACE_OK) {
            d->kind = PLACE_START;
            d->index = i;
            s->cursor++;
            return PLACE_OK;
        }
        if (rc != PLACE_ERR_NOFIT)
            return rc;
        rc = try_plan(s, v, i, d, s->partition->reclaim, s->s_partition.state);
        if (rc == PLACE_ERR_NOFIT)
            rc = try_preempt(s, v, i, d);
        if (rc == PLACE_OK) {
            rc = plan_next(s, v, d);
            if (rc != PLACE_DONE)
                return rc;
            continue;
        }
        if (rc != PLACE_ERR_NOFIT)
            return rc;
        rc = s->backfill->blocked(s->s_backfill.state, v, i);
        if (rc < 0)
            return rc;
        if (rc == PLACE_BF_STOP && (s->partition->flags & PLACE_PARTITION_QUEUES)) {
            /* only this tenant's queue stops */
            rc = place__grow(&s->env, (void **)&s->blocked, &s->cap_blocked, s->n_blocked + 1,
                             sizeof *s->blocked);
            if (rc != PLACE_OK)
                return rc;
            s->blocked[s->n_blocked++] = j->tenant;
        } else if (rc == PLACE_BF_STOP ||
                   (rc == PLACE_BF_DONE && s->partition == &place__partition_none &&
                    s->backfill->reserving && s->backfill->reserving(s->s_backfill.state))) {
            /* DONE: no later job can start now, no partition rule acts on
             * one, and a held reservation keeps preemption out (try_preempt) */
            s->cursor = s->n;
            break;
        }
        s->cursor++;
        if (s->bf_skip)
            s->cursor = place__bf_skip_hopeless(s->s_backfill.state, v, perm, s->cursor, s->n,
                                                s->preempt->plan != NULL);
    }
    return PLACE_DONE;
}

static void compose_observe(void *state, const place_view *v, const place_decision *d, int status)
{
    compose *s = state;
    if (s->partition->observe)
        s->partition->observe(s->s_partition.state, v, d, status);
    if (status == PLACE_OK) {
        if (s->backfill->observe)
            s->backfill->observe(s->s_backfill.state, v, d);
        if (s->preempt->observe)
            s->preempt->observe(s->s_preempt.state, v, d);
        return;
    }
    /* a refused step breaks a preemption in progress: its job stays queued */
    if (s->plan_active)
        plan_abort(s);
}

static int64_t compose_wake(void *state, const place_view *v)
{
    compose *s = state;
    return s->partition->wake ? s->partition->wake(s->s_partition.state, v) : PLACE_T_NEVER;
}

const place_policy place__policy_compose = {
    .abi = PLACE_ABI_VERSION,
    .size = sizeof(place_policy),
    .name = "compose",
    .summary =
        "order=ORDER placement=FIT backfill=RULE preempt=RULE service=RULE partition=RULE, from "
        "the registry",
    .create = compose_create,
    .destroy = compose_destroy,
    .begin = compose_begin,
    .decide = compose_decide,
    .observe = compose_observe,
    .wake = compose_wake,
};
