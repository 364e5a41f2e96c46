/*
 * engine.c — one simulated run: events, job lifecycle, scheduling passes.
 *
 * The loop pops events in (time, kind, sequence) order. Kinds are ordered so
 * that at equal times completions run first (their GPUs are free for the
 * jobs that arrive at the same instant), then fleet changes, then arrivals.
 * After all events of one instant, if anything changed, the engine runs one
 * scheduling pass through the placement core (place_pass_run): the same loop
 * `tarmac place` runs. The policy decides; the library checks; apply() here
 * allocates, starts the job and schedules its completion.
 *
 * Jobs live in a slot table of fixed pages (addresses never move, so the
 * running set can point at a job's parts) recycled through a free list: the
 * table holds jobs in flight only. The queue is an array of place_job in
 * arrival order, [q_head, q_tail) live, compacted after a pass that started a
 * job behind the head; the running set is a dense array with swap-remove.
 * Sources are pulled one job ahead: each has at most one pending ARRIVAL.
 *
 * Costs per event: O(log pending events) for the queue, O(1) bookkeeping, and
 * the policy's own cost for a pass (O(1) for a strict FIFO whose head does not
 * fit; first-fit and best-fit answer from the cluster's index).
 */
#include "sim.h"

#include "evq_int.h"
#include "metrics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Event kinds; the value is the priority at equal time (lower first). */
enum {
    EV_JOB_END = 0,
    EV_POOL_RETIRE = 1,
    EV_POOL_DELIVER = 2,
    EV_ARRIVAL = 3,
};

#define PAGE_SHIFT      10u
#define PAGE_JOBS       (1u << PAGE_SHIFT)
#define NO_SLOT         UINT32_MAX
#define SLOWDOWN_TAU_US (10 * SIM_US_PER_S)

typedef struct job {
    place_job pj; /* what the policy sees; pj.id is the arrival sequence */
    uint64_t trace_id;
    int64_t duration_us; /* at reference speed */
    int64_t start_us, end_us;
    uint32_t state; /* sim_job_state, or NO_SLOT on the free list */
    uint32_t pos;   /* index in the queue or the running set */
    uint32_t next_free;
    uint32_t gen;      /* bumped when the slot is reused */
    uint64_t end_ev;   /* handle of the completion event */
    place_part part0;  /* storage for a one-part placement */
    place_part *parts; /* &part0, or a pooled block for a gang that spans */
    uint32_t n_parts, cap_parts;
    uint32_t gpus_on_down; /* GPUs in use on out-of-service nodes (for the GPU count) */
} job;

typedef struct source {
    trace_source src;
    int owned; /* close it at the end (the engine opened it) */
    trace_job next;
    int has_next;
    int64_t last_submit_us;
    gsl_rng *r[3];
} source;

/* Free lists of part blocks by power-of-two size class: spanning gangs are
 * rare, and after warm-up their blocks come back without malloc. */
#define PART_CLASSES 20
typedef struct part_pool {
    void *free[PART_CLASSES];
} part_pool;

typedef struct engine {
    const sim_scenario *sc;
    const sim_run_opts *opts;
    const sim_sink *sink;
    tm_diag *diag;

    sim__evq evq;
    place_cluster cluster;
    place_instance policy;
    gsl_rng *r_policy;

    source *sources;
    size_t n_sources;

    job **pages;
    uint32_t n_pages, n_slots, free_head;

    place_job *q_jobs;
    uint32_t *q_slot;
    uint8_t *q_state;
    uint32_t q_head, q_tail, q_cap;

    place_running *r_run;
    uint32_t *r_slot;
    uint32_t n_run, r_cap;

    place_part *scratch;
    uint32_t scratch_cap;
    part_pool parts;

    /* what the fleet can ever offer, per type, for rejecting impossible jobs */
    uint32_t type_max_node_gpus[PLACE_MAX_TYPES];
    uint64_t type_total_gpus[PLACE_MAX_TYPES];
    int64_t type_max_cpu[PLACE_MAX_TYPES], type_max_mem[PLACE_MAX_TYPES];
    int64_t max_cpu, max_mem;
    uint64_t fleet_types; /* bit t: the fleet has type t */
    uint32_t *pool_first_node;

    int64_t now_us;
    uint64_t arrivals;
    int dirty;
    sim__series series;
    sim_quantiles *quant; /* n_classes + 1 */
    sim_result *res;
    uint64_t gpus_busy_down; /* GPUs still in use on nodes out of service */
    int apply_rc;            /* a TM_ERR_* from apply(), which the pass reports as a PLACE_ERR */
    uint32_t pass_prefix;    /* queue entries from q_head started so far in this pass */
    place_decision *hook_d;  /* decisions of the pass, for opts->pass_hook */
    place_part *hook_parts;
    size_t hook_n, hook_cap, hook_parts_n, hook_parts_cap;
    int pass_holes; /* a job behind a waiting one started in this pass */
} engine;

/* ------------------------------------------------------------------------- */
/* small helpers                                                              */

static int nomem(engine *e)
{
    return tm_diag_set(e->diag, TM_ERR_NOMEM, "engine", "out of memory");
}

static job *slot_job(engine *e, uint32_t slot)
{
    return &e->pages[slot >> PAGE_SHIFT][slot & (PAGE_JOBS - 1)];
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem, uint32_t first)
{
    if (need <= *cap)
        return TM_OK;
    uint32_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return TM_ERR_NOMEM;
    *p = q;
    *cap = c;
    return TM_OK;
}

static uint64_t policy_rand(void *ud)
{
    gsl_rng *r = ud;
    uint64_t hi = gsl_rng_get(r) & 0xffffffffu;
    uint64_t lo = gsl_rng_get(r) & 0xffffffffu;
    return (hi << 32) | lo;
}

/* ------------------------------------------------------------------------- */
/* part blocks                                                                */

static uint32_t part_class(uint32_t n)
{
    uint32_t k = 1;
    while ((1u << k) < n)
        k++;
    return k;
}

static place_part *parts_get(engine *e, uint32_t n, uint32_t *cap)
{
    uint32_t k = part_class(n);
    if (k >= PART_CLASSES)
        return NULL;
    *cap = 1u << k;
    void *b = e->parts.free[k];
    if (b) {
        memcpy(&e->parts.free[k], b, sizeof(void *));
        return b;
    }
    return malloc((size_t)*cap * sizeof(place_part));
}

static void parts_put(engine *e, place_part *p, uint32_t cap)
{
    uint32_t k = part_class(cap);
    memcpy(p, &e->parts.free[k], sizeof(void *));
    e->parts.free[k] = p;
}

static void parts_pool_fini(part_pool *pp)
{
    for (int k = 0; k < PART_CLASSES; k++) {
        void *b = pp->free[k];
        while (b) {
            void *next;
            memcpy(&next, b, sizeof next);
            free(b);
            b = next;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* job slots                                                                  */

static int slot_alloc(engine *e, uint32_t *slot_out)
{
    if (e->free_head == NO_SLOT) {
        job **pages = realloc(e->pages, (e->n_pages + 1) * sizeof *pages);
        if (!pages)
            return nomem(e);
        e->pages = pages;
        job *page = calloc(PAGE_JOBS, sizeof *page);
        if (!page)
            return nomem(e);
        pages[e->n_pages++] = page;
        for (uint32_t i = PAGE_JOBS; i-- > 0;) {
            page[i].state = NO_SLOT;
            page[i].next_free = e->free_head;
            e->free_head = e->n_slots + i;
        }
        e->n_slots += PAGE_JOBS;
    }
    uint32_t s = e->free_head;
    job *j = slot_job(e, s);
    e->free_head = j->next_free;
    uint32_t gen = j->gen + 1;
    memset(j, 0, sizeof *j);
    j->gen = gen;
    j->parts = &j->part0;
    j->cap_parts = 1;
    *slot_out = s;
    return TM_OK;
}

static void slot_free(engine *e, uint32_t s)
{
    job *j = slot_job(e, s);
    if (j->parts != &j->part0)
        parts_put(e, j->parts, j->cap_parts);
    j->parts = &j->part0;
    j->state = NO_SLOT;
    j->next_free = e->free_head;
    e->free_head = s;
}

/* ------------------------------------------------------------------------- */
/* rows and statistics                                                        */

static int type_of_node(const engine *e, uint32_t node)
{
    return node == PLACE_NONE ? -1 : (int)e->cluster.node_type[node];
}

static int emit_row(engine *e, const job *j, int state, int reason)
{
    if (!e->sink || !e->sink->job)
        return TM_OK;
    int started = j->start_us >= 0;
    sim_job_row row = {
        .id = j->pj.id,
        .trace_id = j->trace_id,
        .cls = j->pj.cls,
        .gpus = j->pj.gpus,
        .gpu_milli = j->pj.gpu_milli,
        .state = state,
        .reject_reason = reason,
        .gpu_type = started ? type_of_node(e, j->parts[0].node) : -1,
        .first_node = started ? j->parts[0].node : PLACE_NONE,
        .n_nodes = started ? j->n_parts : 0,
        .submit_us = j->pj.submit_us,
        .start_us = j->start_us,
        .end_us = j->end_us,
        .wait_us = started ? j->start_us - j->pj.submit_us : e->now_us - j->pj.submit_us,
        .run_us = started ? (j->end_us >= 0 ? j->end_us : e->now_us) - j->start_us : -1,
    };
    return e->sink->job(e->sink->ud, &row, e->diag);
}

static sim_class_result *cls_res(engine *e, uint32_t cls)
{
    return &e->res->classes[cls];
}

static sim_class_result *all_res(engine *e)
{
    return &e->res->classes[e->res->n_classes];
}

/* GPUs a job holds, in milli-GPU. */
static int64_t job_milli(const job *j)
{
    return (int64_t)j->pj.gpus * j->pj.gpu_milli;
}

/* ------------------------------------------------------------------------- */
/* admission                                                                  */

static int reject_reason(const engine *e, const place_job *pj)
{
    if (pj->cpu_milli > e->max_cpu || pj->host_mem_mib > e->max_mem)
        return SIM_REJECT_HOST;
    if (pj->gpus == 0)
        return SIM_REJECT_NONE;
    uint64_t allowed = pj->type_mask ? pj->type_mask & e->fleet_types : e->fleet_types;
    if (!allowed)
        return SIM_REJECT_TYPE;
    int mem_ok = 0, reason = SIM_REJECT_GANG;
    for (uint32_t t = 0; t < e->cluster.n_types; t++) {
        if (!((allowed >> t) & 1u) || pj->gpu_mem_mib > e->cluster.type_mem_mib[t])
            continue;
        mem_ok = 1;
        if (pj->cpu_milli > e->type_max_cpu[t] || pj->host_mem_mib > e->type_max_mem[t]) {
            reason = SIM_REJECT_HOST;
            continue;
        }
        if (pj->gpus <= e->type_max_node_gpus[t])
            return SIM_REJECT_NONE;
        if (pj->flags & PLACE_JOB_CAN_SPAN) {
            if (pj->gpus <= e->type_total_gpus[t])
                return SIM_REJECT_NONE;
            reason = SIM_REJECT_TOTAL;
        }
    }
    return mem_ok ? reason : SIM_REJECT_MEMORY;
}

static int queue_push(engine *e, uint32_t slot)
{
    if (e->q_tail == e->q_cap && e->q_head > 0) {
        /* slide the live part down: amortised O(1) per job */
        uint32_t n = e->q_tail - e->q_head;
        memmove(e->q_jobs, e->q_jobs + e->q_head, n * sizeof *e->q_jobs);
        memmove(e->q_slot, e->q_slot + e->q_head, n * sizeof *e->q_slot);
        memmove(e->q_state, e->q_state + e->q_head, n * sizeof *e->q_state);
        for (uint32_t i = 0; i < n; i++)
            slot_job(e, e->q_slot[i])->pos = i;
        e->q_head = 0;
        e->q_tail = n;
    }
    uint32_t cap = e->q_cap;
    if (grow((void **)&e->q_jobs, &cap, e->q_tail + 1, sizeof *e->q_jobs, 256) ||
        (cap = e->q_cap, grow((void **)&e->q_slot, &cap, e->q_tail + 1, sizeof *e->q_slot, 256)) ||
        (cap = e->q_cap, grow((void **)&e->q_state, &cap, e->q_tail + 1, sizeof *e->q_state, 256)))
        return nomem(e);
    e->q_cap = cap;
    job *j = slot_job(e, slot);
    uint32_t i = e->q_tail++;
    e->q_jobs[i] = j->pj;
    e->q_slot[i] = slot;
    e->q_state[i] = PLACE_Q_WAITING;
    j->state = SIM_JOB_QUEUED;
    j->pos = i;
    e->series.queue_len++;
    return TM_OK;
}

static int admit(engine *e, const trace_job *tj)
{
    uint32_t slot;
    int rc = slot_alloc(e, &slot);
    if (rc != TM_OK)
        return rc;
    job *j = slot_job(e, slot);
    e->arrivals++;
    j->pj.id = e->arrivals;
    j->pj.submit_us = tj->submit_us;
    j->pj.estimate_us = tj->estimate_us;
    j->pj.deadline_us = tj->deadline_us;
    j->pj.type_mask = tj->type_mask;
    j->pj.gpus = tj->gpus;
    j->pj.gpu_milli = tj->gpu_milli;
    j->pj.gpu_mem_mib = tj->gpu_mem_mib;
    j->pj.flags = tj->flags;
    j->pj.cpu_milli = tj->cpu_milli;
    j->pj.host_mem_mib = tj->host_mem_mib;
    j->pj.priority = tj->priority;
    j->pj.tenant = tj->tenant;
    j->pj.cls = tj->cls;
    j->trace_id = tj->id;
    j->duration_us = tj->duration_us;
    j->start_us = -1;
    j->end_us = -1;
    cls_res(e, tj->cls)->arrived++;
    all_res(e)->arrived++;
    e->series.b_arrivals++;
    int reason = reject_reason(e, &j->pj);
    if (reason != SIM_REJECT_NONE) {
        cls_res(e, tj->cls)->rejected++;
        all_res(e)->rejected++;
        j->state = SIM_JOB_REJECTED;
        rc = emit_row(e, j, SIM_JOB_REJECTED, reason);
        slot_free(e, slot);
        return rc;
    }
    e->dirty = 1;
    return queue_push(e, slot);
}

/* Pull the next job of source s and schedule its arrival. */
static int source_pull(engine *e, uint32_t s)
{
    source *src = &e->sources[s];
    int rc = src->src.next(src->src.ud, &src->next, e->diag);
    if (rc == TRACE_END) {
        src->has_next = 0;
        return TM_OK;
    }
    if (rc != TM_OK)
        return rc;
    trace_job *tj = &src->next;
    if (tj->submit_us < src->last_submit_us)
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source",
                           "job %llu arrives at %lld us, before the previous job (%lld us): "
                           "sources must be in submit order",
                           (unsigned long long)tj->id, (long long)tj->submit_us,
                           (long long)src->last_submit_us);
    if (tj->cls >= e->sc->n_classes)
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source", "job %llu has class %u of %zu",
                           (unsigned long long)tj->id, tj->cls, e->sc->n_classes);
    if (tj->gpu_milli == 0 || tj->gpu_milli > PLACE_MILLI_WHOLE ||
        (tj->gpu_milli < PLACE_MILLI_WHOLE && tj->gpus != 1))
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source",
                           "job %llu asks for %u GPUs at %u milli-GPU each: a share below 1000 "
                           "needs exactly one GPU",
                           (unsigned long long)tj->id, tj->gpus, tj->gpu_milli);
    src->last_submit_us = tj->submit_us;
    src->has_next = 1;
    if (e->sc->stop == SIM_STOP_HORIZON && tj->submit_us > e->sc->horizon_us) {
        src->has_next = 0; /* nothing after the horizon can matter */
        return TM_OK;
    }
    rc = sim__evq_push(&e->evq, tj->submit_us, EV_ARRIVAL, s, 0, NULL);
    return rc == TM_OK ? TM_OK : nomem(e);
}

/* ------------------------------------------------------------------------- */
/* starting and ending                                                        */

/* GPUs of node n holding some allocation (for nodes out of service). */
static uint32_t node_gpus_in_use(const place_cluster *c, uint32_t n)
{
    uint32_t k = 0, g0 = c->node_gpu0[n];
    for (uint32_t g = 0; g < c->node_gpus[n]; g++)
        k += c->gpu_free_milli[g0 + g] < PLACE_MILLI_WHOLE;
    return k;
}

/* Run time of a job on its placement. The reference speed is 1 everywhere
 * until per-type speeds are modelled. */
static int64_t run_time_us(const engine *e, const job *j)
{
    (void)e;
    return j->duration_us;
}

static int running_add(engine *e, uint32_t slot)
{
    uint32_t cap = e->r_cap;
    if (grow((void **)&e->r_run, &cap, e->n_run + 1, sizeof *e->r_run, 256) ||
        (cap = e->r_cap, grow((void **)&e->r_slot, &cap, e->n_run + 1, sizeof *e->r_slot, 256)))
        return nomem(e);
    e->r_cap = cap;
    job *j = slot_job(e, slot);
    uint32_t i = e->n_run++;
    place_running *r = &e->r_run[i];
    r->job = j->pj;
    r->start_us = j->start_us;
    r->end_estimate_us = j->pj.estimate_us >= 0 ? j->start_us + j->pj.estimate_us : -1;
    r->lost_gpu_s = 0;
    r->parts = j->parts;
    r->n_parts = j->n_parts;
    e->r_slot[i] = slot;
    j->pos = i;
    return TM_OK;
}

static void running_remove(engine *e, job *j)
{
    uint32_t i = j->pos, last = --e->n_run;
    if (i != last) {
        e->r_run[i] = e->r_run[last];
        e->r_slot[i] = e->r_slot[last];
        slot_job(e, e->r_slot[i])->pos = i;
    }
}

static int apply_start(engine *e, place_view *v, place_decision *d);

/* place_apply_fn: the library checked the decision; make it so. A failure
 * here is the engine's (memory, an internal error), kept in e->apply_rc. */
static int hook_record(engine *e, const place_decision *d);

static int apply(void *host, place_view *v, place_decision *d)
{
    engine *e = host;
    e->apply_rc = apply_start(e, v, d);
    if (e->apply_rc == TM_OK && e->opts && e->opts->pass_hook)
        e->apply_rc = hook_record(e, d);
    return e->apply_rc == TM_OK ? PLACE_OK : PLACE_ERR_INVAL;
}

/* Keep a copy of an applied decision for the pass hook (parts with the GPU
 * masks place_cluster_take chose). Only when a hook is set: never per event
 * otherwise. */
static int hook_record(engine *e, const place_decision *d)
{
    if (e->hook_n == e->hook_cap) {
        size_t cap = e->hook_cap ? 2 * e->hook_cap : 64;
        place_decision *p = realloc(e->hook_d, cap * sizeof *p);
        if (!p)
            return nomem(e);
        e->hook_d = p;
        e->hook_cap = cap;
    }
    if (e->hook_parts_n + d->n_parts > e->hook_parts_cap) {
        size_t cap = e->hook_parts_cap ? 2 * e->hook_parts_cap : 256;
        while (cap < e->hook_parts_n + d->n_parts)
            cap *= 2;
        place_part *p = realloc(e->hook_parts, cap * sizeof *p);
        if (!p)
            return nomem(e);
        e->hook_parts = p;
        e->hook_parts_cap = cap;
    }
    const job *j = slot_job(e, e->q_slot[e->q_head + d->index]);
    memcpy(e->hook_parts + e->hook_parts_n, j->parts, d->n_parts * sizeof *j->parts);
    place_decision *c = &e->hook_d[e->hook_n++];
    *c = *d;
    c->parts = NULL; /* pointers are set when the pass ends (the buffer may move) */
    c->cap_parts = (uint32_t)e->hook_parts_n;
    e->hook_parts_n += d->n_parts;
    return TM_OK;
}

static int apply_start(engine *e, place_view *v, place_decision *d)
{
    if (d->kind != PLACE_START)
        return tm_diag_set(e->diag, TM_ERR_POLICY, "policy",
                           "preemption is not modelled yet; decision kind %u refused", d->kind);
    uint32_t qi = e->q_head + d->index, slot = e->q_slot[qi];
    job *j = slot_job(e, slot);
    if (d->n_parts > 1) {
        uint32_t cap;
        place_part *p = parts_get(e, d->n_parts, &cap);
        if (!p)
            return nomem(e);
        j->parts = p;
        j->cap_parts = cap;
    }
    memcpy(j->parts, d->parts, d->n_parts * sizeof *d->parts);
    j->n_parts = d->n_parts;
    int rc = place_cluster_take(&e->cluster, &j->pj, j->parts, j->n_parts);
    if (rc != PLACE_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "a checked decision failed to apply: %s", place_strerror(rc));
    e->q_state[qi] = PLACE_Q_STARTED;
    if (d->index == e->pass_prefix)
        e->pass_prefix++;
    else
        e->pass_holes = 1;
    j->state = SIM_JOB_RUNNING;
    j->start_us = e->now_us;
    int64_t run = run_time_us(e, j);
    j->end_us = run > INT64_MAX - e->now_us ? INT64_MAX : e->now_us + run;
    rc = sim__evq_push(&e->evq, j->end_us, EV_JOB_END, slot, j->gen, &j->end_ev);
    if (rc != TM_OK)
        return nomem(e);
    rc = running_add(e, slot);
    if (rc != TM_OK)
        return rc;
    int64_t wait = j->start_us - j->pj.submit_us;
    sim__quant_add(&e->quant[j->pj.cls], wait);
    sim__quant_add(&e->quant[e->sc->n_classes], wait);
    cls_res(e, j->pj.cls)->started++;
    all_res(e)->started++;
    cls_res(e, j->pj.cls)->wait_sum_s += (double)wait / SIM_US_PER_S;
    all_res(e)->wait_sum_s += (double)wait / SIM_US_PER_S;
    e->series.queue_len--;
    e->series.running++;
    e->series.alloc_milli += job_milli(j);
    e->series.b_starts++;
    v->running = e->r_run;
    v->n_running = e->n_run;
    return TM_OK;
}

static int job_end(engine *e, uint32_t slot, uint64_t gen)
{
    job *j = slot_job(e, slot);
    if (j->state != SIM_JOB_RUNNING || j->gen != gen)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "completion of a job not running");
    /* GPUs on out-of-service nodes stop counting when the job leaves them */
    uint32_t before = 0, after = 0;
    for (uint32_t k = 0; k < j->n_parts; k++)
        if (!e->cluster.node_up[j->parts[k].node])
            before += node_gpus_in_use(&e->cluster, j->parts[k].node);
    place_cluster_give(&e->cluster, &j->pj, j->parts, j->n_parts);
    for (uint32_t k = 0; k < j->n_parts; k++)
        if (!e->cluster.node_up[j->parts[k].node])
            after += node_gpus_in_use(&e->cluster, j->parts[k].node);
    e->gpus_busy_down -= before - after;
    e->series.up_milli = (int64_t)(e->cluster.gpus_up + e->gpus_busy_down) * PLACE_MILLI_WHOLE;
    running_remove(e, j);
    e->series.running--;
    e->series.alloc_milli -= job_milli(j);
    e->series.b_completions++;
    int64_t run = j->end_us - j->start_us, wait = j->start_us - j->pj.submit_us;
    double gpu_s = (double)job_milli(j) / PLACE_MILLI_WHOLE * (double)run / SIM_US_PER_S;
    int64_t denom = run > SLOWDOWN_TAU_US ? run : SLOWDOWN_TAU_US;
    double slow = (double)(wait + run) / (double)denom;
    if (slow < 1)
        slow = 1;
    sim_class_result *cr = cls_res(e, j->pj.cls), *ar = all_res(e);
    cr->completed++;
    ar->completed++;
    cr->slowdown_mean += slow; /* a sum until the end */
    ar->slowdown_mean += slow;
    cr->gpu_s_alloc += gpu_s;
    ar->gpu_s_alloc += gpu_s;
    int rc = emit_row(e, j, SIM_JOB_COMPLETED, SIM_REJECT_NONE);
    slot_free(e, slot);
    e->dirty = 1;
    return rc;
}

/* ------------------------------------------------------------------------- */
/* fleet changes                                                              */

static void pool_set_up(engine *e, uint32_t pool, int up)
{
    const sim_pool_cfg *p = &e->sc->pools[pool];
    for (uint32_t k = 0; k < p->nodes; k++) {
        uint32_t n = e->pool_first_node[pool] + k;
        if (e->cluster.node_up[n] == (up ? 1 : 0))
            continue;
        if (!up)
            e->gpus_busy_down += node_gpus_in_use(&e->cluster, n);
        else
            e->gpus_busy_down -= node_gpus_in_use(&e->cluster, n);
        place_cluster_set_node_up(&e->cluster, n, up);
    }
    e->series.up_milli = (int64_t)(e->cluster.gpus_up + e->gpus_busy_down) * PLACE_MILLI_WHOLE;
    e->dirty = 1;
}

/* ------------------------------------------------------------------------- */
/* the pass                                                                   */

/* After a pass: drop started entries and clear SKIPPED marks. When only a
 * prefix started (always so for a strict queue) this is O(started); a pass
 * that started jobs behind waiting ones, or refused a decision, costs a sweep
 * of the queue. */
static void queue_compact(engine *e, int full)
{
    while (e->q_head < e->q_tail && e->q_state[e->q_head] == PLACE_Q_STARTED)
        e->q_head++;
    if (!full) {
        if (e->q_head == e->q_tail)
            e->q_head = e->q_tail = 0;
        return;
    }
    uint32_t w = e->q_head;
    int holes = 0;
    for (uint32_t i = e->q_head; i < e->q_tail; i++) {
        if (e->q_state[i] == PLACE_Q_STARTED) {
            holes = 1;
            continue;
        }
        e->q_state[i] = PLACE_Q_WAITING; /* SKIPPED lasts one pass */
        if (holes) {
            e->q_jobs[w] = e->q_jobs[i];
            e->q_slot[w] = e->q_slot[i];
            e->q_state[w] = PLACE_Q_WAITING;
            slot_job(e, e->q_slot[w])->pos = w;
        }
        w++;
    }
    e->q_tail = w;
    if (e->q_head == e->q_tail)
        e->q_head = e->q_tail = 0;
}

static int schedule_pass(engine *e)
{
    e->dirty = 0;
    if (e->q_head == e->q_tail)
        return TM_OK;
    e->res->passes++;
    place_view v = {
        .now_us = e->now_us,
        .cluster = &e->cluster,
        .queue = e->q_jobs + e->q_head,
        .queue_state = e->q_state + e->q_head,
        .n_queue = e->q_tail - e->q_head,
        .running = e->r_run,
        .n_running = e->n_run,
    };
    place_pass_stats st;
    e->pass_prefix = 0;
    e->pass_holes = 0;
    const sim_pass_hook *hook = e->opts ? e->opts->pass_hook : NULL;
    if (hook) {
        e->hook_n = e->hook_parts_n = 0;
        if (hook->before)
            hook->before(hook->ud, &v);
    }
    int rc = place_pass_run(&e->policy, &v, e->q_state + e->q_head, e->scratch, e->scratch_cap,
                            apply, e, &st);
    if (hook && hook->after && rc >= 0 && e->apply_rc == TM_OK) {
        for (size_t i = 0; i < e->hook_n; i++) {
            e->hook_d[i].parts = e->hook_parts + e->hook_d[i].cap_parts;
            e->hook_d[i].cap_parts = e->hook_d[i].n_parts;
        }
        hook->after(hook->ud, e->hook_d, e->hook_n);
    }
    e->res->policy_errors += st.invalid;
    if (e->apply_rc != TM_OK)
        return e->apply_rc;
    if (rc == PLACE_ERR_NOMEM)
        return nomem(e);
    if (rc < 0)
        return tm_diag_set(e->diag, TM_ERR_POLICY, "policy", "policy '%s' failed: %s",
                           e->sc->policy, place_strerror(rc));
    if (st.started || st.invalid)
        queue_compact(e, e->pass_holes || st.invalid);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* set-up and tear-down                                                       */

static int build_fleet(engine *e)
{
    const sim_scenario *sc = e->sc;
    uint32_t mem[PLACE_MAX_TYPES];
    if (sc->n_types == 0 || sc->n_types > PLACE_MAX_TYPES)
        return tm_diag_set(e->diag, TM_ERR_SCENARIO, "fleet", "between 1 and %u GPU types needed",
                           PLACE_MAX_TYPES);
    for (size_t t = 0; t < sc->n_types; t++)
        mem[t] = sc->types[t].mem_mib;
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    if (place_cluster_init(&e->cluster, &env, (uint32_t)sc->n_types, mem) != PLACE_OK)
        return nomem(e);
    e->pool_first_node = calloc(sc->n_pools ? sc->n_pools : 1, sizeof *e->pool_first_node);
    if (!e->pool_first_node)
        return nomem(e);
    uint32_t max_gpn = 1;
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        e->pool_first_node[p] = e->cluster.n_nodes;
        for (uint32_t k = 0; k < pc->nodes; k++) {
            int rc = place_cluster_add_node(&e->cluster, pc->type, pc->gpus_per_node, pc->cpu_milli,
                                            pc->mem_mib, NULL);
            if (rc != PLACE_OK)
                return rc == PLACE_ERR_NOMEM
                           ? nomem(e)
                           : tm_diag_set(e->diag, TM_ERR_SCENARIO, pc->name, "cannot add node: %s",
                                         place_strerror(rc));
        }
        uint32_t t = pc->type;
        if (pc->nodes == 0)
            continue;
        e->fleet_types |= 1ull << t;
        if (pc->gpus_per_node > e->type_max_node_gpus[t])
            e->type_max_node_gpus[t] = pc->gpus_per_node;
        e->type_total_gpus[t] += (uint64_t)pc->nodes * pc->gpus_per_node;
        if (pc->cpu_milli > e->type_max_cpu[t])
            e->type_max_cpu[t] = pc->cpu_milli;
        if (pc->mem_mib > e->type_max_mem[t])
            e->type_max_mem[t] = pc->mem_mib;
        if (pc->cpu_milli > e->max_cpu)
            e->max_cpu = pc->cpu_milli;
        if (pc->mem_mib > e->max_mem)
            e->max_mem = pc->mem_mib;
        if (pc->gpus_per_node > max_gpn)
            max_gpn = pc->gpus_per_node;
        if (pc->delivered_us <= 0)
            pool_set_up(e, (uint32_t)p, 1);
        else if (sim__evq_push(&e->evq, pc->delivered_us, EV_POOL_DELIVER, (uint32_t)p, 0, NULL))
            return nomem(e);
        if (pc->retired_us >= 0 &&
            sim__evq_push(&e->evq, pc->retired_us, EV_POOL_RETIRE, (uint32_t)p, 0, NULL))
            return nomem(e);
    }
    /* a decision has at most one part per node of the largest type */
    uint64_t cap = e->cluster.n_nodes ? e->cluster.n_nodes : 1;
    e->scratch_cap = (uint32_t)(cap < 65536 ? cap : 65536);
    e->scratch = calloc(e->scratch_cap, sizeof *e->scratch);
    if (!e->scratch)
        return nomem(e);
    return TM_OK;
}

static int build_sources(engine *e)
{
    const sim_scenario *sc = e->sc;
    if (e->opts && e->opts->sources) {
        e->n_sources = e->opts->n_sources;
        e->sources = calloc(e->n_sources ? e->n_sources : 1, sizeof *e->sources);
        if (!e->sources)
            return nomem(e);
        for (size_t s = 0; s < e->n_sources; s++) {
            e->sources[s].src = e->opts->sources[s];
            int rc = source_pull(e, (uint32_t)s);
            if (rc != TM_OK)
                return rc;
        }
        return TM_OK;
    }
    e->n_sources = sc->n_classes;
    e->sources = calloc(e->n_sources ? e->n_sources : 1, sizeof *e->sources);
    if (!e->sources)
        return nomem(e);
    uint32_t rep = e->opts ? e->opts->replication : 0;
    for (size_t c = 0; c < sc->n_classes; c++) {
        source *s = &e->sources[c];
        const sim_class_cfg *cc = &sc->classes[c];
        uint32_t purpose[3] = {SIM_STREAM_ARRIVALS, SIM_STREAM_GPUS, SIM_STREAM_DURATION};
        for (int k = 0; k < 3; k++)
            if (!(s->r[k] = sim_rng_new(sc->seed, rep, purpose[k], (uint32_t)c)))
                return nomem(e);
        trace_synth_cfg cfg = {
            .cls = (uint32_t)c,
            .arrival = &cc->arrival,
            .gpus = &cc->gpus,
            .duration_s = &cc->duration_s,
            .gpu_mem_mib = cc->gpu_mem_mib,
            .flags = cc->flags,
            .type_mask = cc->type_mask,
            .priority = cc->priority,
            .t_end_s = (double)sc->horizon_us / SIM_US_PER_S,
            .max_jobs = cc->max_jobs,
            .r_arrival = s->r[0],
            .r_gpus = s->r[1],
            .r_duration = s->r[2],
        };
        int rc = trace_synth_open(&s->src, &cfg, e->diag);
        if (rc != TM_OK)
            return rc;
        s->owned = 1;
        rc = source_pull(e, (uint32_t)c);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

static void engine_fini(engine *e)
{
    for (size_t s = 0; s < e->n_sources; s++) {
        if (e->sources[s].owned && e->sources[s].src.close)
            e->sources[s].src.close(e->sources[s].src.ud);
        for (int k = 0; k < 3; k++)
            if (e->sources[s].r[k])
                gsl_rng_free(e->sources[s].r[k]);
    }
    free(e->sources);
    for (uint32_t p = 0; p < e->n_pages; p++) {
        for (uint32_t i = 0; i < PAGE_JOBS; i++) {
            job *j = &e->pages[p][i];
            if (j->state != NO_SLOT && j->parts && j->parts != &j->part0)
                free(j->parts);
        }
        free(e->pages[p]);
    }
    free(e->pages);
    parts_pool_fini(&e->parts);
    free(e->q_jobs);
    free(e->q_slot);
    free(e->q_state);
    free(e->r_run);
    free(e->r_slot);
    free(e->scratch);
    free(e->pool_first_node);
    if (e->quant)
        for (size_t c = 0; c <= e->sc->n_classes; c++)
            sim__quant_fini(&e->quant[c]);
    free(e->quant);
    place_instance_fini(&e->policy);
    if (e->r_policy)
        gsl_rng_free(e->r_policy);
    place_cluster_fini(&e->cluster);
    sim__evq_fini(&e->evq);
    free(e->hook_d);
    free(e->hook_parts);
}

/* Rows for the jobs still in flight at the end, in arrival order within each
 * state (queue order, then running by id) so that output is deterministic. */
static int emit_unfinished(engine *e)
{
    for (uint32_t i = e->q_head; i < e->q_tail; i++) {
        job *j = slot_job(e, e->q_slot[i]);
        cls_res(e, j->pj.cls)->queued_end++;
        all_res(e)->queued_end++;
        int rc = emit_row(e, j, SIM_JOB_QUEUED, SIM_REJECT_NONE);
        if (rc != TM_OK)
            return rc;
    }
    /* the running set is in swap-remove order; sort its slots by job id */
    uint32_t n = e->n_run;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return nomem(e);
    memcpy(order, e->r_slot, n * sizeof *order);
    /* insertion sort is O(n^2) only on the unfinished set, run once; use a
     * heap sort would matter only for huge end states */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t s = order[i], k = i;
        uint64_t id = slot_job(e, s)->pj.id;
        while (k > 0 && slot_job(e, order[k - 1])->pj.id > id) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = s;
    }
    int rc = TM_OK;
    for (uint32_t i = 0; i < n && rc == TM_OK; i++) {
        job *j = slot_job(e, order[i]);
        cls_res(e, j->pj.cls)->running_end++;
        all_res(e)->running_end++;
        /* accounted up to the end of the run */
        double gpu_s = (double)job_milli(j) / PLACE_MILLI_WHOLE *
                       (double)(e->now_us - j->start_us) / SIM_US_PER_S;
        cls_res(e, j->pj.cls)->gpu_s_alloc += gpu_s;
        all_res(e)->gpu_s_alloc += gpu_s;
        int64_t end = j->end_us;
        j->end_us = -1;
        rc = emit_row(e, j, SIM_JOB_RUNNING, SIM_REJECT_NONE);
        j->end_us = end;
    }
    free(order);
    return rc;
}

static void finish_results(engine *e)
{
    sim_result *r = e->res;
    r->t_end_us = e->now_us;
    r->gpu_s_up = (double)e->series.up_area / 1000.0 / SIM_US_PER_S;
    r->gpu_s_alloc = (double)e->series.alloc_area / 1000.0 / SIM_US_PER_S;
    r->alloc_util = r->gpu_s_up > 0 ? r->gpu_s_alloc / r->gpu_s_up : 0.0;
    double span = (double)e->now_us;
    r->queue_len_mean = span > 0 ? (double)e->series.queue_area / span : 0.0;
    r->running_mean = span > 0 ? (double)e->series.running_area / span : 0.0;
    for (size_t c = 0; c <= r->n_classes; c++) {
        sim_class_result *cr = &r->classes[c];
        const sim_quantiles *q = &e->quant[c];
        cr->wait_mean_s = cr->started ? cr->wait_sum_s / (double)cr->started : 0.0;
        cr->wait_p50_s = sim__quant_get(q, 0.50) / SIM_US_PER_S;
        cr->wait_p95_s = sim__quant_get(q, 0.95) / SIM_US_PER_S;
        cr->wait_p99_s = sim__quant_get(q, 0.99) / SIM_US_PER_S;
        cr->wait_max_s = (double)q->max / SIM_US_PER_S;
        cr->slowdown_mean = cr->completed ? cr->slowdown_mean / (double)cr->completed : 0.0;
    }
}

static int check_state(engine *e)
{
    if (place_cluster_verify(&e->cluster) != PLACE_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "cluster invariant broken at %lld us", (long long)e->now_us);
    int64_t milli = 0;
    for (uint32_t i = 0; i < e->n_run; i++) {
        const job *j = slot_job(e, e->r_slot[i]);
        if (j->state != SIM_JOB_RUNNING || j->pos != i)
            return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "running set broken");
        milli += job_milli(j);
    }
    if (milli != e->series.alloc_milli || e->series.running != (int64_t)e->n_run ||
        e->series.queue_len != (int64_t)(e->q_tail - e->q_head))
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "counters broken: alloc %lld milli-GPU vs %lld, running %lld vs %u, "
                           "queue %lld vs %u",
                           (long long)e->series.alloc_milli, (long long)milli,
                           (long long)e->series.running, e->n_run, (long long)e->series.queue_len,
                           e->q_tail - e->q_head);
    if (sim__evq_check(&e->evq) != TM_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "event queue invariant broken");
    return TM_OK;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------- */
/* the run                                                                    */

static int run_loop(engine *e)
{
    const sim_scenario *sc = e->sc;
    int check = e->opts && e->opts->check_invariants;
    int rc = TM_OK;
    uint64_t every = 0, next_progress = UINT64_MAX;
    if (e->opts && e->opts->progress) {
        every = e->opts->progress_every ? e->opts->progress_every : 65536;
        next_progress = every;
    }
    for (;;) {
        if (e->opts && e->opts->stop_flag && *e->opts->stop_flag)
            return tm_diag_set(e->diag, TM_ERR_INTERRUPTED, "run",
                               "stopped by a signal at simulated time %.3f s",
                               (double)e->now_us / SIM_US_PER_S);
        sim__event ev;
        int have = sim__evq_peek(&e->evq, &ev) == TM_OK;
        if (!have || ev.t_us > e->now_us) {
            if (e->dirty) {
                rc = schedule_pass(e);
                if (rc != TM_OK)
                    return rc;
                if (check && (rc = check_state(e)) != TM_OK)
                    return rc;
                continue; /* a zero-length job may have ended at this instant */
            }
            if (!have)
                break;
            if (sc->stop == SIM_STOP_HORIZON && ev.t_us > sc->horizon_us)
                break;
            rc = sim__series_advance(&e->series, ev.t_us, e->sink, e->diag);
            if (rc != TM_OK)
                return rc;
            e->now_us = ev.t_us;
        }
        sim__evq_pop(&e->evq, &ev);
        if (++e->res->events >= next_progress) {
            e->opts->progress(e->opts->progress_ud, e->now_us, e->res->events);
            next_progress += every;
        }
        switch (ev.kind) {
        case EV_JOB_END:
            rc = job_end(e, ev.a, ev.b);
            break;
        case EV_POOL_RETIRE:
            pool_set_up(e, ev.a, 0);
            break;
        case EV_POOL_DELIVER:
            pool_set_up(e, ev.a, 1);
            break;
        case EV_ARRIVAL: {
            source *s = &e->sources[ev.a];
            rc = admit(e, &s->next);
            if (rc == TM_OK)
                rc = source_pull(e, ev.a);
            break;
        }
        default:
            rc = tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "unknown event kind %u", ev.kind);
        }
        if (rc != TM_OK)
            return rc;
        if (check && (rc = check_state(e)) != TM_OK)
            return rc;
    }
    if (sc->stop == SIM_STOP_HORIZON && e->now_us < sc->horizon_us) {
        rc = sim__series_advance(&e->series, sc->horizon_us, e->sink, e->diag);
        if (rc != TM_OK)
            return rc;
        e->now_us = sc->horizon_us;
    }
    return TM_OK;
}

int sim_run(const sim_scenario *sc, const sim_run_opts *opts, const sim_sink *sink, sim_result *res,
            tm_diag *diag)
{
    double t0 = wall_now();
    engine e;
    memset(&e, 0, sizeof e);
    memset(res, 0, sizeof *res);
    e.sc = sc;
    e.opts = opts;
    e.sink = sink;
    e.diag = diag;
    e.res = res;
    e.free_head = NO_SLOT;
    tm_diag_clear(diag);
    int rc = TM_OK;
    res->n_classes = sc->n_classes;
    res->classes = calloc(sc->n_classes + 1, sizeof *res->classes);
    e.quant = calloc(sc->n_classes + 1, sizeof *e.quant);
    if (!res->classes || !e.quant) {
        rc = nomem(&e);
        goto out;
    }
    for (size_t c = 0; c <= sc->n_classes; c++)
        if (sim__quant_init(&e.quant[c]) != TM_OK) {
            rc = nomem(&e);
            goto out;
        }
    if (sim__evq_init(&e.evq, 1024) != TM_OK) {
        rc = nomem(&e);
        goto out;
    }
    sim__series_init(&e.series, sc->sample_us);
    uint32_t rep = opts ? opts->replication : 0;
    e.r_policy = sim_rng_new(sc->seed, rep, SIM_STREAM_POLICY, 0);
    if (!e.r_policy) {
        rc = nomem(&e);
        goto out;
    }
    place_env env = {place_alloc_libc, NULL, policy_rand, e.r_policy};
    char perr[256];
    int prc = place_instance_init(&e.policy, &env, sc->policy, perr, sizeof perr);
    if (prc != PLACE_OK) {
        rc = tm_diag_set(diag, TM_ERR_SCENARIO, "policy", "%s",
                         perr[0] ? perr : place_strerror(prc));
        goto out;
    }
    if ((rc = build_fleet(&e)) != TM_OK || (rc = build_sources(&e)) != TM_OK)
        goto out;
    if ((rc = run_loop(&e)) != TM_OK)
        goto out;
    if ((rc = sim__series_finish(&e.series, e.now_us, sink, diag)) != TM_OK)
        goto out;
    if ((rc = emit_unfinished(&e)) != TM_OK)
        goto out;
    finish_results(&e);
out:
    engine_fini(&e);
    res->wall_s = wall_now() - t0;
    if (rc != TM_OK)
        sim_result_fini(res);
    return rc;
}

void sim_result_fini(sim_result *r)
{
    if (!r)
        return;
    free(r->classes);
    r->classes = NULL;
}

const char *sim_reject_reason_str(int reason)
{
    switch (reason) {
#define SIM_REJECT_STR_(name, value, msg)                                                          \
    case value:                                                                                    \
        return msg;
        SIM_REJECT_REASONS(SIM_REJECT_STR_)
#undef SIM_REJECT_STR_
    default:
        return "unknown";
    }
}
