/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pass.c — the scheduling pass: policy instances, the one loop both hosts run,
 * and what the pass needs besides (status messages, the libc allocator).
 *
 * place_pass_run is the one loop both hosts run, so that the simulator and
 * `tarmac place` cannot drift apart: ask the policy for a decision, check it
 * against the cluster, let the host apply it, tell the policy, repeat. A
 * refused decision is counted and its job skipped for the rest of the pass,
 * so a policy with a bug cannot wedge the host; a policy that never says DONE
 * is stopped at a bound proportional to the work it was shown.
 */
#include "place.h"
#include "place_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *place_strerror(int status)
{
    switch (status) {
#define PLACE_MSG_(name, value, msg)                                                               \
    case value:                                                                                    \
        return msg;
        PLACE_ERRORS(PLACE_MSG_)
#undef PLACE_MSG_
    default:
        return "unknown placement status";
    }
}

const char *place_status_name(int status)
{
    switch (status) {
#define PLACE_NAME_(name, value, msg)                                                              \
    case value:                                                                                    \
        return #name;
        PLACE_ERRORS(PLACE_NAME_)
#undef PLACE_NAME_
    default:
        return "PLACE_UNKNOWN";
    }
}

void *place_alloc_libc(void *ud, void *ptr, size_t old_size, size_t new_size)
{
    (void)ud;
    (void)old_size;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, new_size);
}

double place_running_lost_gpu_s(const place_running *r, int64_t now_us)
{
    if (r->lost_gpu_s >= 0)
        return r->lost_gpu_s;
    int64_t el = now_us > r->start_us ? now_us - r->start_us : 0;
    int64_t ov = el < r->overhead_us ? el : r->overhead_us;
    int64_t work = el - ov;
    int64_t saved = r->checkpoint_us > 0 ? work / r->checkpoint_us * r->checkpoint_us : 0;
    double gpus = (double)r->job.gpus * (double)r->job.gpu_milli / PLACE_MILLI_WHOLE;
    return gpus * (double)(work - saved + ov) / 1e6;
}

int64_t place_end_estimate(const place_cluster *c, const place_job *j, const place_part *parts,
                           uint32_t n_parts, int64_t now_us)
{
    if (j->estimate_us < 0)
        return -1;
    double speed = 1.0;
    if (j->speed && n_parts > 0 && parts[0].node < c->n_nodes)
        speed = j->speed[c->node_type[parts[0].node]];
    if (!(speed > 0))
        speed = 1.0;
    if (n_parts > 1 && j->span_slowdown > 1)
        speed /= j->span_slowdown;
    double run = ceil((double)j->estimate_us / speed);
    int64_t r = run < 9.2e18 ? (int64_t)run : INT64_MAX / 4;
    int64_t ov = j->restart_us > 0 ? j->restart_us : 0;
    if (r > INT64_MAX / 2 - ov || now_us > INT64_MAX / 2 - r - ov)
        return INT64_MAX / 2;
    return now_us + ov + r;
}

int place_policy_check(const place_policy *p)
{
    if (!p || p->abi != PLACE_ABI_VERSION || p->size != sizeof(place_policy))
        return PLACE_ERR_ABI;
    if (!p->name || !p->create || !p->destroy || !p->decide)
        return PLACE_ERR_ABI;
    return PLACE_OK;
}

/* ------------------------------------------------------------------------- */
/* properties                                                                 */

/* Components of the composed policy that keep no state across passes and
 * cannot decide anything with no whole GPU free (see PLACE_POLICY_IDLE_WHEN_FULL
 * in place.h). "create == NULL" is the components' own "no state" contract. */
static int idle_order(const place_order *o)
{
    return !o->sort || !o->create;
}

static int idle_fit(const place_fit *f)
{
    /* a pure fit returns parts of at most each node's free GPUs: none here */
    return (f->flags & PLACE_FIT_PURE) && !f->begin;
}

static int idle_backfill(const place_backfill *b)
{
    if (b->flags & PLACE_BF_IDLE_WHEN_FULL)
        return 1; /* the rule's own declaration */
    return !b->create && !b->begin && !b->observe && !b->allow && !b->hopeless && !b->reserving;
}

static int idle_preempt(const place_preempt *r)
{
    return !r->plan && !r->create && !r->begin && !r->observe;
}

static int idle_service(const place_service *r)
{
    return !r->place && !r->create;
}

static int idle_partition(const place_partition *r)
{
    return !r->flags && !r->create && !r->begin && !r->allow && !r->reclaim && !r->wake &&
           !r->observe;
}

/* The composed policy's properties from its specification (one that its
 * create() accepted: key=name[:args] tokens, each key at most once). */
static uint32_t compose_props(const char *spec)
{
    const place_order *o = &place__order_fifo;
    const place_fit *f = &place__fit_first;
    const place_backfill *b = &place__backfill_none;
    const place_preempt *pr = &place__preempt_none;
    const place_service *sv = &place__service_none;
    const place_partition *pt = &place__partition_none;
    const char *p = spec ? spec : "";
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        size_t len = strcspn(p, " \t");
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return 0;
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        const char *colon = memchr(eq + 1, ':', vlen);
        size_t nlen = colon ? (size_t)(colon - eq - 1) : vlen;
        char key[16], name[64];
        if (klen >= sizeof key || nlen >= sizeof name)
            return 0;
        memcpy(key, p, klen);
        key[klen] = '\0';
        memcpy(name, eq + 1, nlen);
        name[nlen] = '\0';
        p += len;
        int found;
        if (strcmp(key, "order") == 0)
            found = (o = place_order_find(name)) != NULL;
        else if (strcmp(key, "placement") == 0)
            found = (f = place_fit_find(name)) != NULL;
        else if (strcmp(key, "backfill") == 0)
            found = (b = place_backfill_find(name)) != NULL;
        else if (strcmp(key, "preempt") == 0)
            found = (pr = place_preempt_find(name)) != NULL;
        else if (strcmp(key, "service") == 0)
            found = (sv = place_service_find(name)) != NULL;
        else if (strcmp(key, "partition") == 0)
            found = (pt = place_partition_find(name)) != NULL;
        else
            found = 0;
        if (!found)
            return 0;
    }
    if (!(idle_order(o) && idle_fit(f) && idle_backfill(b) && idle_preempt(pr) &&
          idle_service(sv) && idle_partition(pt)))
        return 0;
    /* arrival order and the lowest node with room: one-GPU jobs on one-GPU
     * nodes go to the lowest free node, in queue order, while any is free */
    uint32_t props = PLACE_POLICY_IDLE_WHEN_FULL;
    if (o == &place__order_fifo && f == &place__fit_first && !b->create && !b->allow &&
        !b->hopeless && !b->reserving)
        props |= PLACE_POLICY_FIFO_FIRST_FREE;
    return props;
}

/* The first token of a specification when it names a policy or a preset
 * (place_instance_init's reading): copied into name (PLACE_SPEC_NAME bytes),
 * *rest set past it and its blanks. 1 when it names one; 0 when the
 * specification is composed (its first token is key=value, or it is empty);
 * -1 when the name is too long. */
#define PLACE_SPEC_NAME 64
static int spec_head(const char *spec, char *name, const char **rest)
{
    size_t len = strcspn(spec, " \t");
    if (len == 0 || memchr(spec, '=', len))
        return 0;
    if (len >= PLACE_SPEC_NAME)
        return -1;
    memcpy(name, spec, len);
    name[len] = '\0';
    const char *r = spec + len;
    while (*r == ' ' || *r == '\t')
        r++;
    *rest = r;
    return 1;
}

uint32_t place_spec_props(const char *spec)
{
    if (!spec)
        return 0;
    while (*spec == ' ' || *spec == '\t')
        spec++;
    char name[PLACE_SPEC_NAME]; /* a preset stands for a composed specification */
    const char *rest;
    int h = spec_head(spec, name, &rest);
    if (h == 0)
        return compose_props(spec);
    if (h < 0)
        return 0;
    const char *preset = place__preset_find(name);
    if (preset && !*rest)
        return place_spec_props(preset);
    if (strcmp(name, "compose") == 0)
        return compose_props(rest);
    return 0;
}

/* ------------------------------------------------------------------------- */
/* instances                                                                  */

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

int place_instance_init_policy(place_instance *pi, const place_env *env, const place_policy *p,
                               const char *args, char *err, size_t err_len)
{
    memset(pi, 0, sizeof *pi);
    if (err && err_len)
        err[0] = '\0';
    if (!env || !env->alloc)
        return PLACE_ERR_INVAL;
    int rc = place_policy_check(p);
    if (rc != PLACE_OK) {
        set_err(err, err_len, "policy '%s' was built for another ABI",
                p && p->name ? p->name : "?");
        return rc;
    }
    pi->env = *env;
    rc = p->create(&pi->env, args ? args : "", &pi->state, err, err_len);
    if (rc != PLACE_OK) {
        pi->state = NULL;
        return rc;
    }
    pi->policy = p;
    return PLACE_OK;
}

int place_instance_init(place_instance *pi, const place_env *env, const char *spec, char *err,
                        size_t err_len)
{
    memset(pi, 0, sizeof *pi);
    if (err && err_len)
        err[0] = '\0';
    if (!env || !env->alloc || !spec)
        return PLACE_ERR_INVAL;
    while (*spec == ' ' || *spec == '\t')
        spec++;
    /* the first token names a policy unless it is already key=value */
    char name[PLACE_SPEC_NAME];
    const char *rest;
    int h = spec_head(spec, name, &rest);
    if (h == 0)
        return place_instance_init_policy(pi, env, &place__policy_compose, spec, err, err_len);
    if (h < 0) {
        set_err(err, err_len, "policy name too long: '%.40s...'", spec);
        return PLACE_ERR_NOTFOUND;
    }
    const char *preset = place__preset_find(name);
    if (preset) {
        /* a preset stands for a composed specification; no arguments of its own */
        if (*rest) {
            set_err(err, err_len, "preset '%s' takes no arguments", name);
            return PLACE_ERR_SPEC;
        }
        return place_instance_init(pi, env, preset, err, err_len);
    }
    const place_policy *p = place_policy_find(name);
    if (!p) {
        set_err(err, err_len, "no such policy: '%s'", name);
        return PLACE_ERR_NOTFOUND;
    }
    return place_instance_init_policy(pi, env, p, rest, err, err_len);
}

void place_instance_fini(place_instance *pi)
{
    if (!pi)
        return;
    if (pi->policy && pi->state)
        pi->policy->destroy(pi->state);
    memset(pi, 0, sizeof *pi);
}

/* ------------------------------------------------------------------------- */
/* the pass                                                                   */

static int check_decision(const place_view *v, const uint8_t *queue_state, const place_decision *d)
{
    switch (d->kind) {
    case PLACE_START:
        if (d->index >= v->n_queue || queue_state[d->index] != PLACE_Q_WAITING)
            return PLACE_ERR_STATE;
        if (d->n_parts == 0 || d->n_parts > d->cap_parts)
            return PLACE_ERR_INVAL;
        return place_cluster_check(v->cluster, &v->queue[d->index], d->parts, d->n_parts);
    case PLACE_PREEMPT:
        if (d->index >= v->n_running)
            return PLACE_ERR_STATE;
        if (!(v->running[d->index].job.flags & PLACE_JOB_PREEMPTIBLE))
            return PLACE_ERR_PREEMPT;
        return PLACE_OK;
    case PLACE_ROUTE_API: {
        if (d->index >= v->n_queue || queue_state[d->index] != PLACE_Q_WAITING)
            return PLACE_ERR_STATE;
        uint32_t need = PLACE_JOB_SERVICE | PLACE_JOB_API_OK;
        if ((v->queue[d->index].flags & need) != need)
            return PLACE_ERR_ROUTE;
        return PLACE_OK;
    }
    default:
        return PLACE_ERR_INVAL;
    }
}

int place_pass_run(const place_instance *pi, place_view *v, uint8_t *queue_state, place_part *parts,
                   uint32_t cap_parts, place_apply_fn apply, void *host, place_pass_stats *stats)
{
    place_pass_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    stats->wake_us = PLACE_T_NEVER;
    if (!pi || !pi->policy || !v || !apply || !parts || cap_parts == 0)
        return PLACE_ERR_INVAL;
    const place_policy *p = pi->policy;
    if (p->begin) {
        int rc = p->begin(pi->state, v);
        if (rc < 0)
            return rc;
    }
    /* every waiting job can start once and every running job be preempted once */
    uint64_t limit = 2ull * ((uint64_t)v->n_queue + v->n_running) + 2;
    for (uint64_t asked = 0;; asked++) {
        if (asked > limit)
            return PLACE_ERR_LOOP;
        place_decision d = {0, PLACE_NONE, 0, cap_parts, parts};
        int rc = p->decide(pi->state, v, &d);
        if (rc == PLACE_DONE) {
            if (p->wake)
                stats->wake_us = p->wake(pi->state, v);
            return PLACE_OK;
        }
        if (rc < 0)
            return rc;
        int st = check_decision(v, queue_state, &d);
        if (st != PLACE_OK) {
            stats->invalid++;
            stats->last_invalid = st;
            if ((d.kind == PLACE_START || d.kind == PLACE_ROUTE_API) && d.index < v->n_queue &&
                queue_state[d.index] == PLACE_Q_WAITING)
                queue_state[d.index] = PLACE_Q_SKIPPED;
            if (p->observe)
                p->observe(pi->state, v, &d, st);
            continue;
        }
        rc = apply(host, v, &d);
        if (rc < 0)
            return rc;
        if (d.kind == PLACE_START)
            stats->started++;
        else if (d.kind == PLACE_PREEMPT)
            stats->preempted++;
        else
            stats->routed++;
        if (p->observe)
            p->observe(pi->state, v, &d, PLACE_OK);
    }
}
