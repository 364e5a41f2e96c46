/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.c — one simulated run: events, job lifecycle, scheduling passes.
 *
 * The loop pops events in (time, kind, sequence) order. Kinds are ordered so
 * that at equal times completions run first (their GPUs are free for the jobs
 * that arrive at the same instant), then the end of restart overheads, repairs,
 * fleet changes and failures, then arrivals. After all events of one instant, if
 * anything changed, the engine runs one scheduling pass through the placement
 * core (place_pass_run): the same loop `tarmac place` runs. The policy decides;
 * the library checks; apply() here allocates, starts the job and schedules its
 * completion, or preempts a victim. A run of one-GPU jobs on one-GPU nodes
 * under FIFO first-fit and nothing else goes through a second, shorter loop
 * instead, which makes the same decisions without the placement core and
 * gives the same results to the bit (section "the lean loop").
 *
 * A job's size is reference work (run time at speed 1 on the reference GPU
 * type). A run on type t takes work / speed[t] (slower by the class's span
 * slowdown when the gang spans nodes), after a restart overhead if the job was
 * interrupted before. Preemption and GPU failures stop a run: the work since
 * its last checkpoint (checkpoints every `checkpoint` of work-time) is lost, the
 * rest is kept, and the job waits again in its arrival position (or fails, for
 * failures when the scenario asks so). Busy GPU-time excludes restart overhead;
 * goodput is busy time minus the work that was lost.
 *
 * Useful work (docs/output.md): what a stop keeps up to the last checkpoint
 * and what a completed run finishes is credited in reference microseconds
 * x milli-GPU to the job, its class, tenant, pools and types; a replica's
 * busy GPU-time x its type's speed to its service. The GPU-hour ledger puts
 * every owned milli-GPU-microsecond into one bucket (model.h
 * SIM_LEDGER_BUCKETS) through cells kept beside the levels: a job's
 * allocation and busy level move its GPU-time between its buckets where the
 * levels change, a node's down and free capacity follow the node, the free
 * capacity is classified at the end of each instant (ledger_idle), and the
 * buckets must add up to the owned GPU-time exactly at the end of the run.
 *
 * Jobs live in a slot table of fixed pages (addresses never move, so the
 * running set can point at a job's parts) recycled through a free list: the
 * table holds jobs in flight only. The queue is an array of place_job in
 * arrival order, [q_head, q_tail) live; the running set is a dense array with
 * swap-remove. Sources are pulled one job ahead: each has at most one pending
 * ARRIVAL. Memory grows with the jobs in flight, never with finished ones.
 *
 * Costs per event: O(log pending events) for the event queue, O(1) for the
 * metrics (a change to a level or ledger cell is one multiply-add,
 * metrics_int.h; a level that would change exactly as another, such as a
 * lone class's and the totals, mirrors it and is not touched; a batch run
 * that starts or ends at work moves its levels in one step,
 * levels_batch_run), O(parts) to allocate,
 * and the policy's own cost for a pass (O(1) for a strict FIFO whose head does
 * not fit; first-fit and best-fit answer from the cluster's index). A pass also
 * classifies idle GPUs (shape-blocked idle): O(GPU types with free GPUs x a few
 * waiting jobs). Rare events cost more: a failure scans the running set, a
 * requeue shifts the queue.
 *
 * One piece, although it is long: every section below (slots, queue, running
 * set, levels, services, failures, the pass) reads and writes the one engine
 * struct within one instant, and the invariants that keep a run exact (a
 * change to the running set updates the levels, the cluster's index and the
 * job's record in the same call; events of one instant run in kind order)
 * hold because queueing, starting, stopping and releasing a run are
 * file-static functions that every path shares: service replicas enter and
 * leave the queue and the running set through them, failures and preemption
 * stop runs through them. Split, that struct and about ninety helpers would
 * become a cross-file interface that each file could break.
 */
#include "model/model.h"

#include "model/cost_int.h"
#include "model/evq_int.h"
#include "model/gavel_int.h"
#include "model/gittins_int.h"
#include "model/metrics_int.h"
#include "model/service_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Event kinds; the value is the priority at equal time (lower first). */
enum {
    EV_JOB_END = 0,
    EV_OVERHEAD_END = 1, /* also: a service replica finished loading */
    EV_GPU_REPAIR = 2,
    EV_POOL_RETIRE = 3,
    EV_POOL_DELIVER = 4,
    EV_GPU_FAIL = 5,
    EV_SVC_SPECIAL = 6,
    EV_CLASS_SPECIAL = 7, /* a class's specialization begins: its snapshot */
    EV_SVC_TICK = 8,
    EV_POLICY_WAKE = 9, /* the policy asked for a pass (place_policy.wake) */
    /* arrivals come last at equal times, after every event of the heap; they
     * are not in the heap: each source's next arrival waits in the source, and
     * the loop takes the earliest (sources are few) */
    EV_ARRIVAL = 10,
};

/* A service replica's state. */
enum { REP_NONE = 0, REP_QUEUED, REP_LOADING, REP_READY };

#define PAGE_SHIFT      10u
#define PAGE_JOBS       (1u << PAGE_SHIFT)
#define NO_SLOT         UINT32_MAX
#define SLOWDOWN_TAU_US (10 * SIM_US_PER_S)
/* Slowdowns go into a quantile sketch of integers: micro-units. */
#define SLOWDOWN_SCALE 1e6
/* Waiting jobs looked at when judging why idle GPUs are idle. */
#define BLOCK_LOOKAHEAD 4u

/* STOP_ROUND: a round-based policy (Gavel) takes the GPUs back at a round
 * boundary; the job checkpoints at the end of its lease, so it keeps all its
 * work and pays only the restart overhead when it runs again. */
enum stop_cause { STOP_PREEMPT, STOP_FAILURE, STOP_ROUND };

typedef struct job {
    place_job pj; /* what the policy sees; pj.id is the arrival sequence */
    uint64_t trace_id;
    int64_t remaining_ref_us; /* reference work still to do */
    int64_t first_start_us, end_us;
    int64_t run_start_us;    /* start of the current run */
    int64_t run_overhead_us; /* restart overhead at the head of the current run */
    double run_speed;        /* work per wall microsecond in the current run */
    int64_t checkpoint_us, restart_us, deadline_us;
    double busy_gpu_s, lost_gpu_s, lost_work_gpu_s, alloc_gpu_s, value;
    uint32_t state; /* sim_job_state, or NO_SLOT on the free list */
    uint32_t pos;   /* index in the queue or the running set */
    uint32_t next_free;
    uint32_t gen; /* bumped when the slot is reused */
    uint32_t interruptions;
    int in_overhead;              /* the current run is still paying its restart overhead */
    int64_t busy_milli;           /* what it adds to the busy levels now */
    uint32_t svc;                 /* 0: a batch job; s + 1: a replica of service s */
    uint32_t rep_state;           /* REP_* for a replica */
    int warm;                     /* a replica of the start: ready when placed at t = 0 */
    uint64_t num;                 /* batch jobs: job number for the rows (from 1) */
    uint64_t end_ev, overhead_ev; /* event handles */
    /* useful work: reference progress that survived, in reference us (batch
     * jobs); what it adds to the work levels now (SIM_WORK_SCALE units); for
     * a replica, when its busy level last changed */
    int64_t work_ref_us;
    int64_t work_lv, value_lv;
    int64_t run_work_lv, run_value_lv; /* a batch run's work levels while it works */
    int64_t busy_t_us;
    place_part part0;  /* storage for a one-part placement */
    place_part *parts; /* &part0, or a pooled block for a gang that spans */
    uint32_t n_parts, cap_parts;
} job;

typedef struct source {
    trace_source src;
    int owned;    /* close it at the end (the engine opened it) */
    int has_next; /* `next` is an arrival still to come */
    trace_job next;
    int64_t last_submit_us;
} source;

/* Free lists of part blocks by power-of-two size class: spanning gangs are
 * rare, and after warm-up their blocks come back without malloc. */
#define PART_CLASSES 20
typedef struct part_pool {
    void *free[PART_CLASSES];
} part_pool;

/* The GPUs of one type, for drawing which one fails. */
typedef struct type_gpus {
    uint32_t *node;
    uint8_t *gpu;
    uint32_t n;
    gsl_rng *r_fail, *r_repair;
} type_gpus;

/* A service: its model state, its replicas, and what it has served. */
typedef struct svc {
    double speed[PLACE_MAX_TYPES]; /* replica throughput at the SLO per type / the reference's */
    const sim_service_spec *spec;
    const sim__svc_cfg *cfg; /* spec->cfg, or spec->special after the switch */
    sim__svc_scaler scaler;
    sim__svc_pool pool;
    sim__svc_acct acct;
    sim__svc_reqstate *rq; /* request mode: the queues carried between accountings */
    uint32_t ready_by_type[PLACE_MAX_TYPES];
    int64_t t_acct_us; /* acct covers [0, t_acct_us) */
    double util;       /* busy fraction of the ready replicas in the current piece */
    uint32_t *rep;     /* replica job slots, any state */
    uint32_t n_rep, cap_rep;
    uint64_t tick_ev;
    int64_t tick_at_us; /* pending tick (INT64_MAX none) */
    double loading_s;   /* replica-seconds spent loading */
    uint32_t ready_max;
    uint64_t started, lost;
    /* specialization snapshots: level integrals at the switch */
    int64_t special_t_us;
    sim__area snap_svc_alloc, snap_alloc, snap_up;
    /* and its shadow (docs/output.md, "Specialization"): from the switch on,
     * the GPUs the autoscaler sizes for under the old model and under the new
     * one for the same load, integrated in GPU-microseconds up to sh_t_us */
    double old_tps; /* the old model's replica throughput at the switch */
    uint32_t sh_old_gpus, sh_new_gpus;
    int64_t sh_t_us;
    double sh_old_gpu_us, sh_new_gpu_us;
} svc;

/* A class's specialization: what had been counted when it began (level
 * integrals and arrivals at the switch; its arrivals at that instant come
 * after it, as every arrival comes after the heap's events). */
typedef struct cls_special {
    int64_t t_us; /* -1: not begun (or none) */
    sim__area cls_alloc, all_alloc, up;
    uint64_t arrived;
} cls_special;

/* The GPU-hour ledger (model.h SIM_LEDGER_BUCKETS): cells that integrate a
 * piecewise-constant milli-GPU value exactly, as the levels do (value and
 * the time-weighted sum of its changes, metrics_int.h), without bins. Two attributions of the same
 * GPU-time: by pool (where the GPU is) and by consumer (class, service, or none). Down and free
 * capacity are kept per node as what the node last added to its pool (so a change to a node costs
 * O(1)); the free capacity is classified into the idle buckets at the end of
 * each instant in which it or the queue changed (ledger_idle), per GPU type
 * for the consumers and per pool for the pools. */
typedef struct ledger_cell {
    int64_t value;
    sim__area wsum; /* sum of delta x t: the integral to t is value x t - wsum */
} ledger_cell;

/* Where some idle GPU-time sits: its bucket, consumer and amount. */
typedef struct idle_place {
    uint8_t bucket;
    uint32_t cons;
    int64_t milli;
} idle_place;

typedef struct ledger {
    uint32_t n_cons; /* classes + services + 1 (none) */
    ledger_cell *pc; /* [pool][bucket] */
    ledger_cell *cc; /* [consumer][bucket] */
    uint8_t *phase;  /* per pool: 0 not delivered, 1 in service, 2 retired */
    /* per node: allocated milli-GPU, and what it adds to its pool's raw free
     * (whole GPUs, the free part of shared ones) and down cells */
    int32_t *n_alloc, *n_whole, *n_part, *n_down;
    uint8_t *n_down_b;
    /* per pool and per type: raw free milli-GPU, and where it is placed */
    int64_t *p_whole, *p_part, *t_whole, *t_part;
    idle_place *p_pw, *p_pp, *t_pw, *t_pp;
    uint8_t *t_bw, *t_bp;      /* per type: the idle buckets its pools use now */
    uint32_t *type_pools;      /* pools by type ... */
    uint32_t *type_pool_first; /* ... type t's are type_pools[first[t] .. first[t + 1]) */
    uint8_t *p_dirty;
    uint32_t *dirty, n_dirty;
    int stale; /* free capacity or the queue changed since the last ledger_idle */
} ledger;

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

    uint32_t *requeue; /* jobs preempted in the current pass, back in the queue after it */
    uint32_t n_requeue, requeue_cap;
    uint32_t *routed; /* replica requests routed to an API in the current pass */
    uint32_t n_routed, routed_cap;

    place_part *scratch;
    uint32_t scratch_cap;
    part_pool parts;

    /* what the fleet can ever offer, for rejecting impossible jobs (place.h) */
    place_capacity capacity;
    uint32_t *pool_first_node;
    uint32_t *node_pool;
    uint8_t *node_up_gpus; /* GPUs node n adds to the in-service levels */
    uint32_t *node_tenant; /* owner per node (PLACE_NONE shared); NULL when no pool has one */
    int64_t wake_us;       /* the pending EV_POLICY_WAKE, or PLACE_T_NEVER */
    type_gpus tgpus[PLACE_MAX_TYPES];

    svc *svcs;
    size_t n_svcs;
    cls_special *cspecial; /* [n_classes]; NULL when no class specializes */

    int64_t now_us;
    uint32_t arrivals_pending; /* sources with an arrival still to come */
    uint32_t next_source;      /* the source whose arrival comes first (UINT32_MAX none) */
    uint64_t batch_in_flight;  /* batch jobs queued or running */
    uint64_t arrivals;         /* batch jobs */
    uint64_t seq;              /* queue order of every job, replicas included */
    int dirty;
    sim__series series;
    /* levels and quantiles that mirror others (metrics_int.h), never changed
     * here: a GPU type's levels when one pool has that type (type_mirrors[t]),
     * a lone class's levels when there are no services (cls_mirrors), the
     * totals over classes when there is one class (q_all_mirrors), the lone
     * tenant entry's waits when the scenario names no tenants
     * (q_tenant_mirrors) */
    uint8_t type_mirrors[PLACE_MAX_TYPES];
    uint8_t cls_mirrors, q_all_mirrors, q_tenant_mirrors;
    int blocked_any; /* the shape-blocked levels may be non-zero (update_blocked) */
    /* passes with no whole GPU free are skipped (counted, not run): the policy
     * claims PLACE_POLICY_IDLE_WHEN_FULL, no pass hook or Gavel round watches
     * passes, and no job so far needed less than a whole GPU (cleared for good
     * by the first such job, before it is queued) */
    int skip_full;
    sim_quantiles *q_wait, *q_completion, *q_slowdown; /* n_classes + 1 each */
    sim_quantiles *q_tenant_wait;                      /* n_tenants + 1 */
    sim_result *res;
    /* useful work per class, tenant, pool and GPU type: batch jobs exactly
     * (milli-GPU x reference us), replicas in double (milli-GPU x us x speed) */
    sim__area *w_class, *w_tenant, *w_pool, *w_type;
    double *wv_class, *wv_tenant; /* value-weighted, milli-GPU x reference us */
    double *wr_pool, *wr_type, *wr_svc;
    ledger led;
    int apply_rc;           /* a TM_ERR_* from apply(), which the pass reports as a PLACE_ERR */
    uint32_t pass_prefix;   /* queue entries from q_head started so far in this pass */
    int pass_holes;         /* a job behind a waiting one started in this pass */
    sim__gavel *gavel;      /* Gavel's allocation and rounds (policy "gavel"); NULL otherwise */
    sim__gittins gittins;   /* per-class GPU service (tiresias-2dlas gittins=class); else empty */
    place_decision *hook_d; /* decisions of the pass, for opts->pass_hook */
    place_part *hook_parts;
    size_t hook_n, hook_cap, hook_parts_n, hook_parts_cap;
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

/* Ask for a job's record ahead of use: a completion's record is usually
 * cold (it was last touched when the job started, simulated hours ago). */
static void job_prefetch(engine *e, uint32_t slot)
{
    const char *p = (const char *)slot_job(e, slot);
    for (size_t off = 0; off < sizeof(job); off += 64)
        __builtin_prefetch(p + off);
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

static const sim_class_cfg *job_class(const engine *e, const job *j)
{
    return &e->sc->classes[j->pj.cls];
}

static sim_class_result *cls_res(engine *e, uint32_t cls)
{
    return &e->res->classes[cls];
}

static sim_class_result *all_res(engine *e)
{
    return &e->res->classes[e->res->n_classes];
}

/* Milli-GPU a part of a job holds. */
static int64_t part_milli(const job *j, const place_part *p)
{
    return (int64_t)p->gpus * j->pj.gpu_milli;
}

/* Milli-GPU a job holds. */
static int64_t job_milli(const job *j)
{
    return (int64_t)j->pj.gpus * j->pj.gpu_milli;
}

static double gpu_s(int64_t milli, int64_t us)
{
    return (double)milli / PLACE_MILLI_WHOLE * (double)us / SIM_US_PER_S;
}

/* llround(x), without the library call on the hot path: the integer part by
 * truncation, then one step away from zero when the fraction is at least a
 * half. Exact for |x| < 2^62 (the fraction x - trunc(x) of a double is itself
 * a double); anything else (NaN, huge) goes to llround. */
static int64_t round_half_away(double x)
{
    if (!(x > -0x1p62 && x < 0x1p62))
        return (int64_t)llround(x);
    int64_t i = (int64_t)x;
    double f = x - (double)i;
    if (f >= 0.5)
        i++;
    else if (f <= -0.5)
        i--;
    return i;
}

/* A job's entry in the tenant totals: the scenario's tenants, then one for
 * any other index (a trace's own user ids). */
static uint32_t tenant_slot(const engine *e, const job *j)
{
    return j->pj.tenant < e->sc->n_tenants ? j->pj.tenant : (uint32_t)e->sc->n_tenants;
}

/* Credit ref_us of surviving reference progress of batch job j (on its
 * current parts) to the job and to the work of its class, tenant, pools and
 * GPU types. Exact: milli-GPU x reference microseconds. */
static void work_credit(engine *e, job *j, int64_t ref_us)
{
    if (ref_us <= 0)
        return;
    j->work_ref_us += ref_us;
    sim__area a = (sim__area)ref_us * job_milli(j);
    uint32_t tn = tenant_slot(e, j);
    e->w_class[j->pj.cls] += a;
    e->w_tenant[tn] += a;
    if (j->value != 0) { /* adding a zero product would leave the sums as they are */
        e->wv_class[j->pj.cls] += (double)a * j->value;
        e->wv_tenant[tn] += (double)a * j->value;
    }
    /* consecutive parts on one pool and type credit their sum once: the
     * products are exact integers, so the sums are the per-part ones */
    uint32_t pool = 0, t = 0;
    int64_t run = 0;
    for (uint32_t k = 0; k < j->n_parts; k++) {
        const place_part *p = &j->parts[k];
        uint32_t pk = e->node_pool[p->node], tk = e->cluster.node_type[p->node];
        if (k > 0 && (pk != pool || tk != t)) {
            e->w_pool[pool] += (sim__area)ref_us * run;
            e->w_type[t] += (sim__area)ref_us * run;
            run = 0;
        }
        pool = pk;
        t = tk;
        run += part_milli(j, p);
    }
    if (j->n_parts > 0) {
        e->w_pool[pool] += (sim__area)ref_us * run;
        e->w_type[t] += (sim__area)ref_us * run;
    }
}

/* ------------------------------------------------------------------------- */
/* the GPU-hour ledger: cells                                                 */

static void cell_add(ledger_cell *c, int64_t now_us, int64_t delta)
{
    c->value += delta;
    c->wsum += (sim__area)delta * now_us;
}

/* A cell's integral from 0 to now_us (at or after its last change). */
static sim__area cell_total(const ledger_cell *c, int64_t now_us)
{
    return (sim__area)c->value * now_us - c->wsum;
}

static void led_pool_add(engine *e, uint32_t pool, int b, int64_t delta)
{
    if (delta)
        cell_add(&e->led.pc[(size_t)pool * SIM_LEDGER_COUNT + (size_t)b], e->now_us, delta);
}

static void led_cons_add(engine *e, uint32_t cons, int b, int64_t delta)
{
    if (delta)
        cell_add(&e->led.cc[(size_t)cons * SIM_LEDGER_COUNT + (size_t)b], e->now_us, delta);
}

/* GPU-time already integrated into bucket `from` that belongs in `to` (work
 * found lost when its run stops). */
static void led_move_area(engine *e, uint32_t pool, uint32_t cons, int from, int to, sim__area a)
{
    e->led.pc[(size_t)pool * SIM_LEDGER_COUNT + (size_t)from].wsum += a;
    e->led.pc[(size_t)pool * SIM_LEDGER_COUNT + (size_t)to].wsum -= a;
    e->led.cc[(size_t)cons * SIM_LEDGER_COUNT + (size_t)from].wsum += a;
    e->led.cc[(size_t)cons * SIM_LEDGER_COUNT + (size_t)to].wsum -= a;
}

/* The consumer a job's GPU-time is charged to: its class, or its service
 * after the classes. */
static uint32_t job_cons(const engine *e, const job *j)
{
    return j->svc ? (uint32_t)e->sc->n_classes + j->svc - 1 : j->pj.cls;
}

/* Where a job's busy GPUs sit: useful work, split by value (replicas count
 * as valued) ... */
static int job_busy_bucket(const job *j)
{
    return !j->svc && !(j->value > 0) ? SIM_LEDGER_USEFUL_NO_VALUE : SIM_LEDGER_USEFUL_VALUED;
}

/* ... and the rest of its allocation: a batch job's restart overhead, a
 * replica's model load, a ready replica's unused capacity. */
static int job_rest_bucket(const job *j)
{
    if (!j->svc)
        return SIM_LEDGER_RESTART;
    return j->rep_state == REP_READY ? SIM_LEDGER_HEADROOM : SIM_LEDGER_LOADING;
}

/* Node n's down and free capacity, from the cluster and the node's
 * allocation, into its pool's cells (down) and raw free counts (classified
 * by ledger_idle). Call after every change to the node. Cost O(1). */
/* Node n's down capacity into its pool's cells, and the change of its whole
 * and partial free milli-GPUs into *dw and *dp (1 returned when they
 * changed): node_ledger without the pool and type sums, for a run of nodes of
 * one pool and type whose sums change once (nodes_ledger_flush). */
static inline int node_ledger_own(engine *e, uint32_t n, uint32_t pool, int32_t *dw, int32_t *dp)
{
    ledger *L = &e->led;
    const place_cluster *c = &e->cluster;
    const int32_t k = (int32_t)PLACE_MILLI_WHOLE, free_milli = (int32_t)c->node_milli_free[n];
    int32_t whole = (int32_t)c->node_free[n] * k, part = free_milli - whole;
    int32_t down = (int32_t)c->node_gpus[n] * k - L->n_alloc[n] - free_milli;
    uint8_t db = c->node_up[n]         ? SIM_LEDGER_DOWN_FAILED
                 : L->phase[pool] == 2 ? SIM_LEDGER_DOWN_RETIRED
                                       : SIM_LEDGER_DOWN_UNDELIVERED;
    if (db != L->n_down_b[n] || down != L->n_down[n]) {
        uint32_t none = L->n_cons - 1;
        led_pool_add(e, pool, L->n_down_b[n], -L->n_down[n]);
        led_cons_add(e, none, L->n_down_b[n], -L->n_down[n]);
        led_pool_add(e, pool, db, down);
        led_cons_add(e, none, db, down);
        L->n_down[n] = down;
        L->n_down_b[n] = db;
    }
    if (whole == L->n_whole[n] && part == L->n_part[n])
        return 0;
    *dw += whole - L->n_whole[n];
    *dp += part - L->n_part[n];
    L->n_whole[n] = whole;
    L->n_part[n] = part;
    return 1;
}

/* The free sums of pool and type t change by dw and dp (changed: some node's
 * whole or partial free count changed). */
static inline void nodes_ledger_flush(engine *e, uint32_t pool, uint32_t t, int32_t dw, int32_t dp,
                                      int changed)
{
    ledger *L = &e->led;
    if (!changed)
        return;
    L->p_whole[pool] += dw;
    L->p_part[pool] += dp;
    L->t_whole[t] += dw;
    L->t_part[t] += dp;
    if (!L->p_dirty[pool]) {
        L->p_dirty[pool] = 1;
        L->dirty[L->n_dirty++] = pool;
    }
    L->stale = 1;
}

static void node_ledger(engine *e, uint32_t n)
{
    uint32_t pool = e->node_pool[n];
    int32_t dw = 0, dp = 0;
    int changed = node_ledger_own(e, n, pool, &dw, &dp);
    nodes_ledger_flush(e, pool, e->cluster.node_type[n], dw, dp, changed);
}

/* ------------------------------------------------------------------------- */
/* levels: what a job's allocation and work add to the time series            */

/* One pool's and GPU type's share m of a change to a job's allocation: the
 * two alloc levels and the ledger's "rest" cells. */
static void levels_alloc_part(engine *e, uint32_t pool, uint32_t t, int rest, uint32_t cons,
                              int64_t m)
{
    const sim_scenario *sc = e->sc;
    sim__level_add(&e->series, sim_level_pool(sc, pool, SIM_LV_K_ALLOC), e->now_us, m);
    if (!e->type_mirrors[t])
        sim__level_add(&e->series, sim_level_type(sc, t, SIM_LV_K_ALLOC), e->now_us, m);
    led_pool_add(e, pool, rest, m);
    led_cons_add(e, cons, rest, m);
}

/* One pool's and GPU type's share m of a batch run that starts at work or
 * ends while at work: the alloc and busy levels, and the ledger's busy cells
 * (levels_batch_run). */
static void levels_batch_part(engine *e, uint32_t pool, uint32_t t, int busy_b, uint32_t cons,
                              int64_t m)
{
    const sim_scenario *sc = e->sc;
    size_t lp = sim_level_pool(sc, pool, 0);
    sim__level_add(&e->series, lp + SIM_LV_K_ALLOC, e->now_us, m);
    sim__level_add(&e->series, lp + SIM_LV_K_BUSY, e->now_us, m);
    if (!e->type_mirrors[t]) {
        size_t lt = sim_level_type(sc, t, 0);
        sim__level_add(&e->series, lt + SIM_LV_K_ALLOC, e->now_us, m);
        sim__level_add(&e->series, lt + SIM_LV_K_BUSY, e->now_us, m);
    }
    led_pool_add(e, pool, busy_b, m);
    led_cons_add(e, cons, busy_b, m);
}

/* The per-part work of levels_alloc (batch 0: the alloc levels and the
 * bucket's "rest" cells) and levels_batch_run (batch 1: the alloc and busy
 * levels and the bucket's busy cells), one loop for both: each node's
 * allocation count and ledger (node_ledger) per part; consecutive parts on
 * one pool and GPU type (a gang over identical nodes: all of them) change the
 * levels, cells and the pool and type free sums once, by their sum (the adds
 * are linear at one instant, and the free sums are integers read only at the
 * next classification, ledger_idle). A job on one part (every job on
 * one-GPU nodes) takes the loop's first and only step and no comparison. */
static inline void levels_parts(engine *e, const job *j, int sign, int batch, int bucket,
                                uint32_t cons)
{
    uint32_t n = j->n_parts;
    if (n == 0)
        return;
    const place_part *p = &j->parts[0];
    uint32_t pool = e->node_pool[p->node], t = e->cluster.node_type[p->node];
    int64_t run = 0;
    int32_t dw = 0, dp = 0;
    int changed = 0;
    for (uint32_t k = 0;;) {
        int64_t m = sign * part_milli(j, p);
        run += m;
        e->led.n_alloc[p->node] += (int32_t)m;
        changed |= node_ledger_own(e, p->node, pool, &dw, &dp);
        uint32_t pk = 0, tk = 0;
        int last = ++k == n;
        if (!last) {
            p = &j->parts[k];
            pk = e->node_pool[p->node];
            tk = e->cluster.node_type[p->node];
        }
        if (last || pk != pool || tk != t) {
            if (batch)
                levels_batch_part(e, pool, t, bucket, cons, run);
            else
                levels_alloc_part(e, pool, t, bucket, cons, run);
            nodes_ledger_flush(e, pool, t, dw, dp, changed);
            if (last)
                return;
            run = 0;
            dw = dp = 0;
            changed = 0;
            pool = pk;
            t = tk;
        }
    }
}

static void levels_alloc(engine *e, const job *j, int sign)
{
    const sim_scenario *sc = e->sc;
    /* the ledger: a new allocation is all "rest" (busy comes after), and so
     * is one given back (its busy level went to 0 first) */
    levels_parts(e, j, sign, 0, job_rest_bucket(j), job_cons(e, j));
    int64_t m = sign * job_milli(j);
    sim__level_add(&e->series, SIM_LV_ALLOC, e->now_us, m);
    if (j->svc)
        sim__level_add(&e->series, sim_level_service(sc, j->svc - 1, SIM_LV_S_ALLOC), e->now_us, m);
    else if (!e->cls_mirrors)
        sim__level_add(&e->series, sim_level_class(sc, j->pj.cls, SIM_LV_C_ALLOC), e->now_us, m);
}

/* The speed a job's busy GPUs work at, relative to the reference type: a
 * batch job's applied speed in its current run, a replica's throughput on
 * its type over the reference type's. */
static double job_work_speed(const engine *e, const job *j)
{
    if (!j->svc)
        return j->run_speed;
    return e->svcs[j->svc - 1].speed[e->cluster.node_type[j->parts[0].node]];
}

/* A replica's useful work since its busy level last changed: busy GPU-time x
 * its speed, to its service, pools and GPU types. */
static void replica_work_flush(engine *e, job *j)
{
    int64_t dt = e->now_us - j->busy_t_us;
    j->busy_t_us = e->now_us;
    if (dt <= 0 || j->busy_milli == 0)
        return;
    double speed = job_work_speed(e, j), m = (double)job_milli(j);
    double area = (double)j->busy_milli * (double)dt * speed;
    e->wr_svc[j->svc - 1] += area;
    for (uint32_t k = 0; k < j->n_parts; k++) {
        const place_part *p = &j->parts[k];
        double a = area * (double)part_milli(j, p) / m;
        e->wr_pool[e->node_pool[p->node]] += a;
        e->wr_type[e->cluster.node_type[p->node]] += a;
    }
}

/* What a job adds to the work levels: its busy GPUs x its speed, and that x
 * its value (replicas count value 1). */
static void levels_work_set(engine *e, job *j)
{
    int64_t wl, vl;
    if (j->svc) {
        double w =
            (double)j->busy_milli * job_work_speed(e, j) * (SIM_WORK_SCALE / PLACE_MILLI_WHOLE);
        wl = vl = round_half_away(w);
    } else { /* all or nothing: computed once per run (run_begin) */
        wl = j->busy_milli ? j->run_work_lv : 0;
        vl = j->busy_milli ? j->run_value_lv : 0;
    }
    if (wl != j->work_lv)
        sim__level_add(&e->series, SIM_LV_WORK, e->now_us, wl - j->work_lv);
    if (vl != j->value_lv)
        sim__level_add(&e->series, SIM_LV_VALUE_WORK, e->now_us, vl - j->value_lv);
    j->work_lv = wl;
    j->value_lv = vl;
}

/* One pool's and GPU type's share m of a change to a job's busy GPUs: the
 * two busy levels, and m moved from the ledger's "rest" cells to "busy". */
static void levels_busy_part(engine *e, uint32_t pool, uint32_t t, int busy_b, int rest_b,
                             uint32_t cons, int64_t m)
{
    const sim_scenario *sc = e->sc;
    sim__level_add(&e->series, sim_level_pool(sc, pool, SIM_LV_K_BUSY), e->now_us, m);
    if (!e->type_mirrors[t])
        sim__level_add(&e->series, sim_level_type(sc, t, SIM_LV_K_BUSY), e->now_us, m);
    led_pool_add(e, pool, busy_b, m);
    led_pool_add(e, pool, rest_b, -m);
    led_cons_add(e, cons, busy_b, m);
    led_cons_add(e, cons, rest_b, -m);
}

/* Set what a job adds to the busy levels: all of its GPUs for a batch job at
 * work, none while it pays a restart overhead, the service's utilisation of
 * them for a ready replica (a replica is on one node). */
static void levels_busy_set(engine *e, job *j, int64_t milli)
{
    const sim_scenario *sc = e->sc;
    int64_t delta = milli - j->busy_milli;
    if (delta == 0)
        return;
    if (j->svc)
        replica_work_flush(e, j);
    int busy_b = job_busy_bucket(j), rest_b = job_rest_bucket(j);
    uint32_t cons = job_cons(e, j), pool = 0, t = 0;
    int64_t run = 0; /* consecutive parts on one pool and type: one add (as levels_alloc) */
    for (uint32_t k = 0; k < j->n_parts; k++) {
        const place_part *p = &j->parts[k];
        uint32_t pk = e->node_pool[p->node], tk = e->cluster.node_type[p->node];
        if (k > 0 && (pk != pool || tk != t)) {
            levels_busy_part(e, pool, t, busy_b, rest_b, cons, run);
            run = 0;
        }
        pool = pk;
        t = tk;
        run += j->n_parts == 1 ? delta : (delta > 0 ? 1 : -1) * part_milli(j, p);
    }
    if (j->n_parts > 0)
        levels_busy_part(e, pool, t, busy_b, rest_b, cons, run);
    sim__level_add(&e->series, SIM_LV_BUSY, e->now_us, delta);
    if (j->svc)
        sim__level_add(&e->series, sim_level_service(sc, j->svc - 1, SIM_LV_S_BUSY), e->now_us,
                       delta);
    j->busy_milli = milli;
    levels_work_set(e, j);
}

/* A batch run that starts without a restart overhead (sign 1: what
 * levels_alloc(+1) then levels_busy_set(all of it) do) or ends at work
 * (sign -1: levels_busy_set(0) then levels_alloc(-1)), in one go. The same
 * integers: the changes of one instant add up whatever their order, and the
 * ledger's "rest" cells, which the two steps change by +m and -m at the same
 * instant, are left alone. */
static void levels_batch_run(engine *e, job *j, int sign)
{
    const sim_scenario *sc = e->sc;
    levels_parts(e, j, sign, 1, job_busy_bucket(j), j->pj.cls);
    int64_t milli = job_milli(j), m = sign * milli;
    sim__level_add(&e->series, SIM_LV_ALLOC, e->now_us, m);
    sim__level_add(&e->series, SIM_LV_BUSY, e->now_us, m);
    if (!e->cls_mirrors)
        sim__level_add(&e->series, sim_level_class(sc, j->pj.cls, SIM_LV_C_ALLOC), e->now_us, m);
    j->busy_milli = sign > 0 ? milli : 0;
    levels_work_set(e, j);
}

static void levels_queue(engine *e, const job *j, int delta)
{
    e->led.stale = 1; /* the idle GPUs' bucket depends on what waits */
    sim__level_add(&e->series, SIM_LV_QUEUE, e->now_us, delta);
    if (!j->svc && !e->cls_mirrors)
        sim__level_add(&e->series, sim_level_class(e->sc, j->pj.cls, SIM_LV_C_QUEUE), e->now_us,
                       delta);
}

/* GPUs node n counts as in service: its GPUs in service while the node is, and
 * while it is out of service, those still holding work (a retiring node's GPUs
 * count until its jobs leave). Recomputed whenever the node changes. */
static void node_refresh_up(engine *e, uint32_t n)
{
    node_ledger(e, n);
    const place_cluster *c = &e->cluster;
    uint32_t k = 0, g0 = c->node_gpu0[n];
    for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
        if (c->node_up[n])
            k += c->gpu_up[g0 + g];
        else
            k += c->gpu_free_milli[g0 + g] < PLACE_MILLI_WHOLE;
    }
    int64_t d = ((int64_t)k - e->node_up_gpus[n]) * PLACE_MILLI_WHOLE;
    if (d == 0)
        return;
    e->node_up_gpus[n] = (uint8_t)k;
    const sim_scenario *sc = e->sc;
    sim__level_add(&e->series, SIM_LV_UP, e->now_us, d);
    sim__level_add(&e->series, sim_level_pool(sc, e->node_pool[n], SIM_LV_K_UP), e->now_us, d);
    if (!e->type_mirrors[c->node_type[n]])
        sim__level_add(&e->series, sim_level_type(sc, c->node_type[n], SIM_LV_K_UP), e->now_us, d);
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

/* A new page of free slots (zeroed records) onto the free list. */
static int slot_page_add(engine *e)
{
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
    return TM_OK;
}

static int slot_alloc(engine *e, uint32_t *slot_out)
{
    if (e->free_head == NO_SLOT) {
        int rc = slot_page_add(e);
        if (rc != TM_OK)
            return rc;
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

static int emit_row(engine *e, const job *j, int state, int reason)
{
    if (!e->sink || !e->sink->job || j->svc)
        return TM_OK;
    int started = j->first_start_us >= 0;
    int placed = started && j->n_parts > 0;
    int64_t end = j->end_us >= 0 ? j->end_us : e->now_us;
    sim_job_row row = {
        .id = j->num,
        .trace_id = j->trace_id,
        .cls = j->pj.cls,
        .tenant = j->pj.tenant,
        .gpus = j->pj.gpus,
        .gpu_milli = j->pj.gpu_milli,
        .state = state,
        .reject_reason = reason,
        .gpu_type = placed ? (int32_t)e->cluster.node_type[j->parts[0].node] : -1,
        .first_node = placed ? j->parts[0].node : PLACE_NONE,
        .n_nodes = placed ? j->n_parts : 0,
        .interruptions = j->interruptions,
        .submit_us = j->pj.submit_us,
        .start_us = j->first_start_us,
        .end_us = state == SIM_JOB_COMPLETED || state == SIM_JOB_FAILED ? j->end_us : -1,
        .wait_us = started ? j->first_start_us - j->pj.submit_us : e->now_us - j->pj.submit_us,
        .run_us = started ? end - j->first_start_us : -1,
        .deadline_us = j->deadline_us,
        .busy_gpu_s = j->busy_gpu_s,
        .lost_gpu_s = j->lost_gpu_s,
        .alloc_gpu_s = j->alloc_gpu_s,
        .value = j->value,
        .work_ref_gpu_s = gpu_s(job_milli(j), j->work_ref_us),
    };
    return e->sink->job(e->sink->ud, &row, e->diag);
}

/* ------------------------------------------------------------------------- */
/* admission                                                                  */

static int reject_reason(const engine *e, const place_job *pj)
{
    return place_job_never_fits(&e->capacity, pj); /* SIM_REJECT_* are its reasons */
}

static int queue_reserve(engine *e, uint32_t need)
{
    uint32_t cap = e->q_cap;
    if (grow((void **)&e->q_jobs, &cap, need, sizeof *e->q_jobs, 256) ||
        (cap = e->q_cap, grow((void **)&e->q_slot, &cap, need, sizeof *e->q_slot, 256)) ||
        (cap = e->q_cap, grow((void **)&e->q_state, &cap, need, sizeof *e->q_state, 256)))
        return nomem(e);
    e->q_cap = cap;
    return TM_OK;
}

/* Slide the live part of the queue to the front: amortised O(1) per job. */
static void queue_slide(engine *e)
{
    uint32_t n = e->q_tail - e->q_head;
    memmove(e->q_jobs, e->q_jobs + e->q_head, n * sizeof *e->q_jobs);
    memmove(e->q_slot, e->q_slot + e->q_head, n * sizeof *e->q_slot);
    memmove(e->q_state, e->q_state + e->q_head, n * sizeof *e->q_state);
    for (uint32_t i = 0; i < n; i++)
        slot_job(e, e->q_slot[i])->pos = i;
    e->q_head = 0;
    e->q_tail = n;
}

static void queue_set(engine *e, uint32_t i, uint32_t slot)
{
    job *j = slot_job(e, slot);
    e->q_jobs[i] = j->pj;
    e->q_slot[i] = slot;
    e->q_state[i] = PLACE_Q_WAITING;
    j->pos = i;
}

/* Put a job into the queue at its arrival position (by id). New arrivals go
 * to the end in O(1); a job coming back after an interruption is inserted,
 * shifting the entries behind it. */
static int queue_insert(engine *e, uint32_t slot)
{
    if (e->q_tail == e->q_cap && e->q_head > 0)
        queue_slide(e);
    int rc = queue_reserve(e, e->q_tail + 1);
    if (rc != TM_OK)
        return rc;
    job *j = slot_job(e, slot);
    uint32_t lo = e->q_head, hi = e->q_tail;
    if (lo == hi || e->q_jobs[hi - 1].id < j->pj.id)
        lo = hi;      /* a new arrival: the end, no search */
    while (lo < hi) { /* first entry with a larger id */
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->q_jobs[mid].id < j->pj.id)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t n = e->q_tail - lo;
    if (n) {
        memmove(e->q_jobs + lo + 1, e->q_jobs + lo, n * sizeof *e->q_jobs);
        memmove(e->q_slot + lo + 1, e->q_slot + lo, n * sizeof *e->q_slot);
        memmove(e->q_state + lo + 1, e->q_state + lo, n * sizeof *e->q_state);
        for (uint32_t i = lo + 1; i <= e->q_tail; i++)
            slot_job(e, e->q_slot[i])->pos = i;
    }
    e->q_tail++;
    queue_set(e, lo, slot);
    j->state = SIM_JOB_QUEUED;
    if (j->svc)
        j->rep_state = REP_QUEUED;
    levels_queue(e, j, 1);
    e->dirty = 1;
    return TM_OK;
}

/* Take queue entry i out (a replica request the autoscaler cancelled). */
static void queue_remove(engine *e, uint32_t i)
{
    job *j = slot_job(e, e->q_slot[i]);
    uint32_t n = e->q_tail - i - 1;
    memmove(e->q_jobs + i, e->q_jobs + i + 1, n * sizeof *e->q_jobs);
    memmove(e->q_slot + i, e->q_slot + i + 1, n * sizeof *e->q_slot);
    memmove(e->q_state + i, e->q_state + i + 1, n * sizeof *e->q_state);
    e->q_tail--;
    for (uint32_t k = i; k < e->q_tail; k++)
        slot_job(e, e->q_slot[k])->pos = k;
    if (e->q_head == e->q_tail)
        e->q_head = e->q_tail = 0;
    levels_queue(e, j, -1);
}

/* A new slot for arriving job tj, its record filled and its arrival counted
 * (admit; the lean loop's lean_admit). */
static int admit_record(engine *e, const trace_job *tj, uint32_t *slot_out)
{
    uint32_t slot;
    int rc = slot_alloc(e, &slot);
    if (rc != TM_OK)
        return rc;
    job *j = slot_job(e, slot);
    const sim_class_cfg *cc = &e->sc->classes[tj->cls];
    if (cc->special && tj->submit_us >= cc->special_at_us)
        cc = cc->special; /* its speeds, checkpoints and restart overhead */
    j->num = ++e->arrivals;
    j->pj.id = ++e->seq;
    j->pj.submit_us = tj->submit_us;
    j->pj.estimate_us = tj->estimate_us;
    j->pj.deadline_us = tj->deadline_us;
    j->pj.speed = tj->speed ? tj->speed : cc->speed;
    j->pj.type_mask = tj->type_mask;
    j->pj.gpus = tj->gpus;
    j->pj.gpu_milli = tj->gpu_milli;
    if (tj->gpus == 0 || tj->gpu_milli < PLACE_MILLI_WHOLE)
        e->skip_full = 0;
    j->pj.gpu_mem_mib = tj->gpu_mem_mib;
    j->pj.flags = tj->flags;
    j->pj.cpu_milli = tj->cpu_milli;
    j->pj.host_mem_mib = tj->host_mem_mib;
    j->pj.priority = tj->priority;
    j->pj.tenant = tj->tenant;
    j->pj.cls = tj->cls;
    j->pj.span_slowdown = cc->span_slowdown;
    j->pj.restart_us = 0; /* the overhead of its next start: none until interrupted */
    j->trace_id = tj->id;
    j->remaining_ref_us = tj->duration_us;
    j->first_start_us = -1;
    j->end_us = -1;
    j->checkpoint_us = cc->checkpoint_us;
    j->restart_us = cc->restart_us;
    j->deadline_us = tj->deadline_us;
    j->value = tj->value;
    cls_res(e, tj->cls)->arrived++;
    all_res(e)->arrived++;
    e->res->tenants[tenant_slot(e, j)].arrived++;
    e->series.b_arrivals++;
    *slot_out = slot;
    return TM_OK;
}

static int admit(engine *e, const trace_job *tj)
{
    uint32_t slot;
    int rc = admit_record(e, tj, &slot);
    if (rc != TM_OK)
        return rc;
    job *j = slot_job(e, slot);
    int reason = reject_reason(e, &j->pj);
    if (reason != SIM_REJECT_NONE) {
        cls_res(e, tj->cls)->rejected++;
        all_res(e)->rejected++;
        j->state = SIM_JOB_REJECTED;
        rc = emit_row(e, j, SIM_JOB_REJECTED, reason);
        slot_free(e, slot);
        return rc;
    }
    e->batch_in_flight++;
    return queue_insert(e, slot);
}

/* Pull the next job of source s and schedule its arrival. */
static int source_pull(engine *e, uint32_t s)
{
    source *src = &e->sources[s];
    int rc = src->src.next(src->src.ud, &src->next, e->diag);
    if (rc == TRACE_END)
        return TM_OK;
    if (rc != TM_OK)
        return rc;
    trace_job *tj = &src->next;
    if (tj->submit_us < src->last_submit_us)
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source",
                           "job %llu arrives at %lld us, before the previous job (%lld us): "
                           "sources must be in submit order",
                           (unsigned long long)tj->id, (long long)tj->submit_us,
                           (long long)src->last_submit_us);
    if (tj->submit_us > SIM_T_MAX_US)
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source",
                           "job %llu arrives at %lld us, past the end of simulated time (%lld us, "
                           "about 73,000 years)",
                           (unsigned long long)tj->id, (long long)tj->submit_us,
                           (long long)SIM_T_MAX_US);
    if (tj->cls >= e->sc->n_classes)
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source", "job %llu has class %u of %zu",
                           (unsigned long long)tj->id, tj->cls, e->sc->n_classes);
    if (tj->gpu_milli == 0 || tj->gpu_milli > PLACE_MILLI_WHOLE ||
        (tj->gpu_milli < PLACE_MILLI_WHOLE && tj->gpus != 1))
        return tm_diag_set(e->diag, TM_ERR_TRACE, "source",
                           "job %llu asks for %u GPUs at %u milli-GPU each: a share below 1000 "
                           "needs exactly one GPU",
                           (unsigned long long)tj->id, tj->gpus, tj->gpu_milli);
    /* tenants: the scenario's list names those of synthesized jobs; a trace may
     * carry its own ids (SWF user numbers), which pass through unnamed */
    src->last_submit_us = tj->submit_us;
    if (e->sc->stop == SIM_STOP_HORIZON && tj->submit_us > e->sc->horizon_us)
        return TM_OK; /* nothing after the horizon can matter */
    src->has_next = 1;
    e->arrivals_pending++;
    return TM_OK;
}

/* The source whose next arrival comes first (the lowest index among equal
 * times), or UINT32_MAX. Cost O(sources). */
static uint32_t source_first(const engine *e)
{
    if (e->n_sources == 1) /* one class: no comparison */
        return e->sources[0].has_next ? 0 : UINT32_MAX;
    uint32_t best = UINT32_MAX;
    for (uint32_t s = 0; s < e->n_sources; s++)
        if (e->sources[s].has_next &&
            (best == UINT32_MAX || e->sources[s].next.submit_us < e->sources[best].next.submit_us))
            best = s;
    return best;
}

/* ------------------------------------------------------------------------- */
/* running                                                                    */

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
    r->start_us = j->run_start_us;
    /* the same rule as every host, so that tarmac place sees what we see */
    r->end_estimate_us =
        place_end_estimate(&e->cluster, &j->pj, j->parts, j->n_parts, j->run_start_us);
    r->overhead_us = j->run_overhead_us;
    r->checkpoint_us = j->checkpoint_us;
    r->lost_gpu_s = -1; /* place_running_lost_gpu_s computes it when a policy asks */
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

/* Start a run of job j (placed: parts filled) at now. */
static int svc_replica_begin(engine *e, uint32_t slot);
static int svc_replica_ready(engine *e, uint32_t slot);
static double level_gpu_s(const engine *e, size_t i);

static void first_start(engine *e, job *j);

static int run_begin(engine *e, uint32_t slot)
{
    job *j = slot_job(e, slot);
    if (j->svc)
        return svc_replica_begin(e, slot);
    const sim_class_cfg *cc = job_class(e, j);
    uint32_t t = e->cluster.node_type[j->parts[0].node];
    double speed = j->pj.speed ? j->pj.speed[t] : 1.0;
    if (!(speed > 0))
        speed = 1.0;
    if (j->n_parts > 1 && cc->span_slowdown > 1)
        speed /= cc->span_slowdown;
    j->run_speed = speed;
    double w = (double)job_milli(j) * speed * (SIM_WORK_SCALE / PLACE_MILLI_WHOLE);
    j->run_work_lv = round_half_away(w);
    j->run_value_lv = round_half_away(w * j->value);
    j->run_start_us = e->now_us;
    j->run_overhead_us = j->interruptions ? j->restart_us : 0;
    double wall = ceil((double)j->remaining_ref_us / speed);
    int64_t run = j->run_overhead_us + (wall < (double)SIM_T_MAX_US ? (int64_t)wall : SIM_T_MAX_US);
    j->end_us = run > INT64_MAX - e->now_us ? INT64_MAX : e->now_us + run;
    if (sim__evq_push(&e->evq, j->end_us, EV_JOB_END, slot, j->gen, &j->end_ev) != TM_OK)
        return nomem(e);
    if (j->run_overhead_us > 0) {
        levels_alloc(e, j, 1);
        j->in_overhead = 1;
        if (sim__evq_push(&e->evq, e->now_us + j->run_overhead_us, EV_OVERHEAD_END, slot, j->gen,
                          &j->overhead_ev) != TM_OK)
            return nomem(e);
    } else {
        j->in_overhead = 0;
        levels_batch_run(e, j, 1);
    }
    if (j->first_start_us < 0)
        first_start(e, j);
    j->state = SIM_JOB_RUNNING;
    e->series.b_starts++;
    sim__level_add(&e->series, SIM_LV_RUNNING, e->now_us, 1);
    return running_add(e, slot);
}

/* A job's first start, now: its wait into the statistics. */
static void first_start(engine *e, job *j)
{
    j->first_start_us = e->now_us;
    int64_t wait = j->first_start_us - j->pj.submit_us;
    sim__quant_add(&e->q_wait[j->pj.cls], wait);
    if (!e->q_all_mirrors)
        sim__quant_add(&e->q_wait[e->sc->n_classes], wait);
    cls_res(e, j->pj.cls)->started++;
    all_res(e)->started++;
    cls_res(e, j->pj.cls)->wait_sum_s += (double)wait / SIM_US_PER_S;
    all_res(e)->wait_sum_s += (double)wait / SIM_US_PER_S;
    sim_tenant_result *tr = &e->res->tenants[tenant_slot(e, j)];
    tr->started++;
    tr->wait_sum_s += (double)wait / SIM_US_PER_S;
    if (!e->q_tenant_mirrors)
        sim__quant_add(&e->q_tenant_wait[tenant_slot(e, j)], wait);
}

/* Give back a job's GPUs and take it off the running set. */
static void run_release(engine *e, job *j)
{
    place_cluster_give(&e->cluster, &j->pj, j->parts, j->n_parts);
    for (uint32_t k = 0; k < j->n_parts; k++)
        if (!e->cluster.node_up[j->parts[k].node])
            node_refresh_up(e, j->parts[k].node);
    if (!j->svc && j->busy_milli == job_milli(j)) {
        levels_batch_run(e, j, -1);
    } else {
        levels_busy_set(e, j, 0);
        levels_alloc(e, j, -1);
    }
    running_remove(e, j);
    sim__level_add(&e->series, SIM_LV_RUNNING, e->now_us, -1);
}

static int apply_start(engine *e, place_view *v, place_decision *d)
{
    uint32_t qi = e->q_head + d->index, slot = e->q_slot[qi];
    job *j = slot_job(e, slot);
    if (d->n_parts > 1) {
        if (j->parts != &j->part0)
            parts_put(e, j->parts, j->cap_parts);
        uint32_t cap;
        place_part *p = parts_get(e, d->n_parts, &cap);
        if (!p)
            return nomem(e);
        j->parts = p;
        j->cap_parts = cap;
    }
    if (d->n_parts == 1)
        j->parts[0] = d->parts[0];
    else
        memcpy(j->parts, d->parts, d->n_parts * sizeof *d->parts);
    j->n_parts = d->n_parts;
    /* place_pass_run checked the decision against this very state */
    int rc = place_cluster_take_checked(&e->cluster, &j->pj, j->parts, j->n_parts);
    if (rc != PLACE_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "a checked decision failed to apply: %s", place_strerror(rc));
    e->q_state[qi] = PLACE_Q_STARTED;
    if (d->index == e->pass_prefix)
        e->pass_prefix++;
    else
        e->pass_holes = 1;
    levels_queue(e, j, -1);
    if ((rc = run_begin(e, slot)) != TM_OK)
        return rc;
    v->running = e->r_run;
    v->n_running = e->n_run;
    return TM_OK;
}

/* Stop the current run of a running job at now: keep the work up to its last
 * checkpoint, lose the rest (and the restart overhead paid), give back its
 * GPUs. The caller decides what happens to it next. */
static void run_stop(engine *e, uint32_t slot, int cause)
{
    job *j = slot_job(e, slot);
    int64_t el = e->now_us - j->run_start_us;
    int64_t ov = el < j->run_overhead_us ? el : j->run_overhead_us;
    int64_t work = el - ov;
    int64_t saved = cause == STOP_ROUND    ? work
                    : j->checkpoint_us > 0 ? work / j->checkpoint_us * j->checkpoint_us
                                           : 0;
    int64_t saved_ref = (int64_t)((double)saved * j->run_speed);
    work_credit(e, j, saved_ref < j->remaining_ref_us ? saved_ref : j->remaining_ref_us);
    j->remaining_ref_us = saved_ref < j->remaining_ref_us ? j->remaining_ref_us - saved_ref : 0;
    int64_t milli = job_milli(j);
    double lost_ref = (double)milli * (double)(work - saved) * j->run_speed;
    e->series.b_lost_work += lost_ref;
    e->series.b_lost_value_work += lost_ref * j->value;
    /* the ledger counted that work as useful while it was done */
    for (uint32_t k = 0; k < j->n_parts; k++)
        led_move_area(e, e->node_pool[j->parts[k].node], job_cons(e, j), job_busy_bucket(j),
                      SIM_LEDGER_LOST, (sim__area)part_milli(j, &j->parts[k]) * (work - saved));
    double lost_work = gpu_s(milli, work - saved), lost = gpu_s(milli, work - saved + ov);
    j->busy_gpu_s += gpu_s(milli, work);
    j->pj.attained_gpu_s += gpu_s(milli, el); /* service received, for LAS orders */
    j->lost_work_gpu_s += lost_work;
    j->lost_gpu_s += lost;
    sim_class_result *cr = cls_res(e, j->pj.cls), *ar = all_res(e);
    cr->gpu_s_lost += lost;
    ar->gpu_s_lost += lost;
    cr->gpu_s_alloc += gpu_s(milli, el);
    ar->gpu_s_alloc += gpu_s(milli, el);
    j->alloc_gpu_s += gpu_s(milli, el);
    sim__area lw = (sim__area)milli * (work - saved);
    e->series.b_lost += lw;
    e->series.lost += lw;
    e->res->gpu_s_lost += lost;
    if (cause != STOP_FAILURE) {
        cr->preemptions++;
        ar->preemptions++;
        e->res->preemptions++;
        e->series.b_preemptions++;
    } else {
        cr->killed++;
        ar->killed++;
    }
    sim__evq_cancel(&e->evq, j->end_ev);
    if (j->in_overhead)
        sim__evq_cancel(&e->evq, j->overhead_ev);
    run_release(e, j);
    j->in_overhead = 0;
    j->interruptions++;
    j->pj.restart_us = j->restart_us;
    j->end_us = -1;
    e->dirty = 1;
}

/* A job's lifetime totals, when it leaves for good. */
static void job_close(engine *e, job *j)
{
    sim_class_result *cr = cls_res(e, j->pj.cls), *ar = all_res(e);
    double good = j->busy_gpu_s - j->lost_work_gpu_s;
    cr->gpu_s_busy += j->busy_gpu_s;
    ar->gpu_s_busy += j->busy_gpu_s;
    cr->gpu_s_goodput += good;
    ar->gpu_s_goodput += good;
    cr->value_goodput += good * j->value;
    ar->value_goodput += good * j->value;
    e->res->tenants[tenant_slot(e, j)].gpu_s_alloc += j->alloc_gpu_s;
}

/* ------------------------------------------------------------------------- */
/* services (docs/services.md §8 is the contract with the model)              */

static int svc_err(engine *e, const svc *v, const tm_diag *sub)
{
    return tm_diag_set(e->diag, TM_ERR_INTERNAL, v->cfg->name, "service model: %s: %s", sub->where,
                       sub->msg);
}

/* Account [t_acct, now) at the ready replicas of the piece that ends now. */
static int svc_account(engine *e, svc *v)
{
    if (e->now_us <= v->t_acct_us)
        return TM_OK;
    tm_diag sub;
    tm_diag_clear(&sub);
    /* request mode (docs/llm-serving.md): the interval's requests simulated,
     * the queues carried in v->rq from the interval before */
    uint64_t seed = (e->sc->seed * 1000003u + (uint64_t)(v - e->svcs)) * 1000033u +
                    (e->opts ? e->opts->replication : 0);
    volatile int *stop = e->opts ? e->opts->stop_flag : NULL;
    int rc = v->cfg->request_mode
                 ? sim__svc_interval_request(&v->pool, e->sc->types, v->t_acct_us, e->now_us, seed,
                                             &v->rq, &v->acct, stop, &sub)
                 : sim__svc_interval(&v->pool, v->t_acct_us, e->now_us, &v->acct, &sub);
    if (rc == TM_ERR_LIMIT || rc == TM_ERR_INTERRUPTED) /* the input's or the user's, not a bug */
        return tm_diag_set(e->diag, rc, v->cfg->name, "%s", sub.msg);
    if (rc != TM_OK)
        return svc_err(e, v, &sub);
    v->t_acct_us = e->now_us;
    return TM_OK;
}

/* The end of the run (after the last svc_account): a request-mode service
 * serves what its queues still hold (docs/llm-serving.md). */
static int svc_account_last(engine *e, svc *v)
{
    int rc = svc_account(e, v);
    if (rc != TM_OK || !v->rq)
        return rc;
    tm_diag sub;
    tm_diag_clear(&sub);
    rc = sim__svc_request_finish(&v->rq, &v->acct, e->opts ? e->opts->stop_flag : NULL, &sub);
    if (rc == TM_ERR_INTERRUPTED)
        return tm_diag_set(e->diag, rc, v->cfg->name, "%s", sub.msg);
    return rc != TM_OK ? svc_err(e, v, &sub) : TM_OK;
}

/* Per-type speed of the service's replicas for placement rules: throughput at
 * the SLO relative to the reference type's (or to the best type when the
 * reference cannot host it); 0 where the type cannot serve it. */
static void svc_speeds(engine *e, svc *v)
{
    const sim__svc_cfg *cfg = v->cfg;
    double ref = cfg->tokens_per_s[e->sc->reference_type];
    for (uint32_t t = 0; t < e->sc->n_types; t++)
        if (!(ref > 0) && sim__svc_type_ok(cfg, t) && cfg->tokens_per_s[t] > ref)
            ref = cfg->tokens_per_s[t];
    for (uint32_t t = 0; t < e->sc->n_types; t++)
        v->speed[t] = sim__svc_type_ok(cfg, t) && ref > 0 ? cfg->tokens_per_s[t] / ref : 0.0;
}

static int svc_rebuild(engine *e, svc *v)
{
    tm_diag sub;
    tm_diag_clear(&sub);
    if (sim__svc_pool_init(&v->pool, v->cfg, v->ready_by_type, e->sc->n_types, &sub) != TM_OK)
        return svc_err(e, v, &sub);
    if (v->pool.replicas > v->ready_max)
        v->ready_max = v->pool.replicas;
    return TM_OK;
}

static void svc_levels_counts(engine *e, svc *v)
{
    size_t si = (size_t)(v - e->svcs);
    sim__level_set(&e->series, sim_level_service(e->sc, si, SIM_LV_S_READY), e->now_us,
                   v->scaler.ready);
    sim__level_set(&e->series, sim_level_service(e->sc, si, SIM_LV_S_LOADING), e->now_us,
                   v->scaler.loading);
}

/* The steady state of the piece that starts now: request rates and the busy
 * fraction of the ready replicas, into the levels. */
static int svc_apply_perf(engine *e, svc *v)
{
    size_t si = (size_t)(v - e->svcs);
    int64_t next = sim__svc_next_change_us(v->cfg, e->now_us);
    double load = sim__svc_load_mean(v->cfg, e->now_us, next == INT64_MAX ? e->now_us : next);
    sim__svc_perf perf;
    tm_diag sub;
    tm_diag_clear(&sub);
    if (sim__svc_perf_eval(&v->pool, load, &perf, &sub) != TM_OK)
        return svc_err(e, v, &sub);
    v->util = isfinite(perf.util) ? perf.util : 0.0;
    const double rates[5] = {perf.offered, perf.slo_ok, perf.late, perf.unserved, perf.api};
    for (int k = 0; k < 5; k++)
        sim__level_set(&e->series, sim_level_service(e->sc, si, SIM_LV_S_OFFERED + k), e->now_us,
                       (int64_t)llround(rates[k] * SIM_RATE_SCALE));
    for (uint32_t i = 0; i < v->n_rep; i++) {
        job *j = slot_job(e, v->rep[i]);
        if (j->rep_state == REP_READY)
            levels_busy_set(e, j, round_half_away(v->util * (double)job_milli(j)));
    }
    svc_levels_counts(e, v);
    return TM_OK;
}

/* Work tokens/s the autoscaler assumes per replica: the mean of the ready
 * ones, or the best type the service may use in the fleet before any is. */
static double svc_replica_tps(const engine *e, const svc *v)
{
    if (v->pool.replicas > 0) {
        double sum = 0;
        for (size_t k = 0; k < v->pool.n_sub; k++)
            sum += v->pool.sub[k].replicas * v->cfg->tokens_per_s[v->pool.sub[k].type];
        return sum / v->pool.replicas;
    }
    double best = 0;
    for (uint32_t t = 0; t < e->sc->n_types; t++)
        if (((e->capacity.types >> t) & 1u) && sim__svc_type_ok(v->cfg, t) &&
            v->cfg->tokens_per_s[t] > best)
            best = v->cfg->tokens_per_s[t];
    return best > 0 ? best : 1.0;
}

static int svc_request(engine *e, svc *v, uint32_t k)
{
    size_t si = (size_t)(v - e->svcs);
    uint64_t mask = 0;
    for (uint32_t t = 0; t < e->sc->n_types; t++)
        if (sim__svc_type_ok(v->cfg, t))
            mask |= 1ull << t;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t slot;
        int rc = slot_alloc(e, &slot);
        if (rc != TM_OK)
            return rc;
        if (grow((void **)&v->rep, &v->cap_rep, v->n_rep + 1, sizeof *v->rep, 16))
            return nomem(e);
        job *j = slot_job(e, slot);
        j->pj.id = ++e->seq;
        j->pj.submit_us = e->now_us;
        j->pj.estimate_us = -1;
        j->pj.deadline_us = -1;
        j->pj.type_mask = mask;
        j->pj.gpus = v->cfg->replica_gpus;
        j->pj.gpu_milli = PLACE_MILLI_WHOLE;
        if (j->pj.gpus == 0)
            e->skip_full = 0;
        j->pj.gpu_mem_mib = v->cfg->gpu_mem_mib;
        j->pj.flags =
            PLACE_JOB_SERVICE | (v->cfg->overflow == SIM__SVC_OVERFLOW_API ? PLACE_JOB_API_OK : 0u);
        j->pj.priority = v->spec->priority;
        j->pj.group = (uint32_t)si + 1;
        j->pj.speed = v->speed;
        j->pj.cls = (uint32_t)(e->sc->n_classes + si); /* classes, then services */
        j->svc = (uint32_t)si + 1;
        j->warm = e->now_us == 0; /* a run starts with its services warm */
        j->first_start_us = -1;
        j->end_us = -1;
        v->rep[v->n_rep++] = slot;
        if ((rc = queue_insert(e, slot)) != TM_OK)
            return rc;
    }
    return TM_OK;
}

static void svc_rep_forget(engine *e, svc *v, uint32_t slot)
{
    for (uint32_t i = 0; i < v->n_rep; i++)
        if (v->rep[i] == slot) {
            v->rep[i] = v->rep[--v->n_rep];
            break;
        }
    slot_free(e, slot);
}

/* Take replica `slot` away for good, whatever its state (placed ones give
 * their GPUs back). The caller accounts before and tells the scaler. */
static void svc_rep_drop(engine *e, svc *v, uint32_t slot)
{
    job *j = slot_job(e, slot);
    if (j->rep_state == REP_QUEUED) {
        queue_remove(e, j->pos);
    } else {
        if (j->rep_state == REP_LOADING) {
            v->loading_s += (double)(e->now_us - j->run_start_us) / SIM_US_PER_S;
            if (j->in_overhead)
                sim__evq_cancel(&e->evq, j->overhead_ev);
        } else {
            v->ready_by_type[e->cluster.node_type[j->parts[0].node]]--;
        }
        run_release(e, j);
    }
    svc_rep_forget(e, v, slot);
    e->dirty = 1;
}

/* Release what the autoscaler asked: loading replicas (those still waiting for
 * GPUs first, newest first), then ready ones (newest first). */
static int svc_release(engine *e, svc *v, uint32_t loading, uint32_t ready)
{
    for (int pass = 0; pass < 2 && loading > 0; pass++) {
        uint32_t want = pass == 0 ? REP_QUEUED : REP_LOADING;
        for (uint32_t i = v->n_rep; i-- > 0 && loading > 0;)
            if (slot_job(e, v->rep[i])->rep_state == want) {
                svc_rep_drop(e, v, v->rep[i]);
                loading--;
            }
    }
    int any = ready > 0;
    for (uint32_t i = v->n_rep; i-- > 0 && ready > 0;)
        if (slot_job(e, v->rep[i])->rep_state == REP_READY) {
            svc_rep_drop(e, v, v->rep[i]);
            ready--;
        }
    if (loading || ready)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, v->cfg->name,
                           "the autoscaler released replicas the service does not have");
    return any ? svc_rebuild(e, v) : TM_OK;
}

static int svc_schedule_tick(engine *e, svc *v, int64_t at)
{
    if (at > e->sc->horizon_us)
        at = e->sc->horizon_us; /* services stop at the horizon */
    if (at < e->now_us || (v->tick_at_us <= at && v->tick_at_us >= e->now_us))
        return TM_OK;
    if (v->tick_at_us != INT64_MAX)
        sim__evq_cancel(&e->evq, v->tick_ev);
    v->tick_at_us = at;
    if (sim__evq_push(&e->evq, at, EV_SVC_TICK, (uint32_t)(v - e->svcs), 0, &v->tick_ev))
        return nomem(e);
    return TM_OK;
}

/* One autoscaler decision at now, carried out. */
/* The specialization's shadow: what each model's sizing asks for from now
 * on (GPUs), the piece before it integrated. */
static void svc_shadow(engine *e, svc *v, uint32_t old_gpus, uint32_t new_gpus)
{
    double dt = (double)(e->now_us - v->sh_t_us);
    v->sh_old_gpu_us += dt * v->sh_old_gpus;
    v->sh_new_gpu_us += dt * v->sh_new_gpus;
    v->sh_old_gpus = old_gpus;
    v->sh_new_gpus = new_gpus;
    v->sh_t_us = e->now_us;
}

static int svc_step(engine *e, svc *v)
{
    int64_t next = sim__svc_next_change_us(v->cfg, e->now_us);
    double load = sim__svc_load_mean(v->cfg, e->now_us, next == INT64_MAX ? e->now_us : next);
    sim__svc_action act;
    tm_diag sub;
    tm_diag_clear(&sub);
    sim__svc_scaler_signal(&v->scaler, v->cfg, &v->acct); /* request mode's signal, if any */
    if (sim__svc_scaler_step(&v->scaler, v->cfg, e->now_us, load, svc_replica_tps(e, v), &act,
                             &sub) != TM_OK)
        return svc_err(e, v, &sub);
    if (v->special_t_us >= 0) { /* the old model sized on the hardware it had at the switch */
        const sim__svc_cfg *old = &v->spec->cfg;
        svc_shadow(e, v, sim__svc_desired(old, load, v->old_tps) * old->replica_gpus,
                   act.desired * v->cfg->replica_gpus);
    }
    int rc = svc_release(e, v, act.release_loading, act.release_ready);
    if (rc == TM_OK)
        rc = svc_request(e, v, act.request);
    if (rc == TM_OK)
        rc = svc_schedule_tick(e, v, next < act.next_eval_us ? next : act.next_eval_us);
    return rc;
}

static int svc_tick(engine *e, svc *v)
{
    v->tick_at_us = INT64_MAX;
    int rc = svc_account(e, v);
    if (rc != TM_OK)
        return rc;
    if (e->now_us >= e->sc->horizon_us) {
        /* the horizon: the service stops, its GPUs go back (a drain run then
         * finishes the batch work alone) */
        while (v->n_rep)
            svc_rep_drop(e, v, v->rep[v->n_rep - 1]);
        sim__svc_scaler_init(&v->scaler, 0);
        if (v->special_t_us >= 0) /* no load, no need, under either model */
            svc_shadow(e, v, 0, 0);
        if ((rc = svc_rebuild(e, v)) != TM_OK)
            return rc;
    } else if ((rc = svc_step(e, v)) != TM_OK) {
        return rc;
    }
    return svc_apply_perf(e, v);
}

static int svc_replica_begin(engine *e, uint32_t slot)
{
    job *j = slot_job(e, slot);
    svc *v = &e->svcs[j->svc - 1];
    j->state = SIM_JOB_RUNNING;
    j->rep_state = REP_LOADING;
    j->run_start_us = e->now_us;
    j->run_speed = 1.0;
    j->run_overhead_us =
        j->warm && e->now_us == 0 ? 0 : (int64_t)llround(v->cfg->scale_up_delay_s * SIM_US_PER_S);
    if (j->first_start_us < 0)
        j->first_start_us = e->now_us;
    v->started++;
    levels_alloc(e, j, 1);
    sim__level_add(&e->series, SIM_LV_RUNNING, e->now_us, 1);
    int rc = running_add(e, slot);
    if (rc != TM_OK)
        return rc;
    if (j->run_overhead_us == 0)
        return svc_replica_ready(e, slot);
    j->in_overhead = 1;
    if (sim__evq_push(&e->evq, e->now_us + j->run_overhead_us, EV_OVERHEAD_END, slot, j->gen,
                      &j->overhead_ev) != TM_OK)
        return nomem(e);
    return TM_OK;
}

static int svc_replica_ready(engine *e, uint32_t slot)
{
    job *j = slot_job(e, slot);
    svc *v = &e->svcs[j->svc - 1];
    int rc = svc_account(e, v);
    if (rc != TM_OK)
        return rc;
    tm_diag sub;
    tm_diag_clear(&sub);
    if (sim__svc_scaler_ready(&v->scaler, 1, &sub) != TM_OK)
        return svc_err(e, v, &sub);
    v->loading_s += (double)(e->now_us - j->run_start_us) / SIM_US_PER_S;
    j->in_overhead = 0;
    for (uint32_t k = 0; k < j->n_parts; k++) { /* loading -> headroom (not busy yet) */
        uint32_t pool = e->node_pool[j->parts[k].node], cons = job_cons(e, j);
        int64_t m = part_milli(j, &j->parts[k]);
        led_pool_add(e, pool, SIM_LEDGER_LOADING, -m);
        led_pool_add(e, pool, SIM_LEDGER_HEADROOM, m);
        led_cons_add(e, cons, SIM_LEDGER_LOADING, -m);
        led_cons_add(e, cons, SIM_LEDGER_HEADROOM, m);
    }
    j->rep_state = REP_READY;
    v->ready_by_type[e->cluster.node_type[j->parts[0].node]]++;
    if ((rc = svc_rebuild(e, v)) != TM_OK)
        return rc;
    return svc_apply_perf(e, v);
}

/* A placed replica went away without the autoscaler asking (a GPU failure, a
 * preemption): account, forget it, and let the autoscaler replace it. */
static int svc_replica_lost(engine *e, uint32_t slot)
{
    job *j = slot_job(e, slot);
    svc *v = &e->svcs[j->svc - 1];
    int rc = svc_account(e, v);
    if (rc != TM_OK)
        return rc;
    int was_ready = j->rep_state == REP_READY;
    svc_rep_drop(e, v, slot);
    v->lost++;
    tm_diag sub;
    tm_diag_clear(&sub);
    if (sim__svc_scaler_lost(&v->scaler, was_ready ? 1u : 0u, was_ready ? 0u : 1u, &sub) != TM_OK)
        return svc_err(e, v, &sub);
    if ((was_ready && (rc = svc_rebuild(e, v)) != TM_OK) || (rc = svc_step(e, v)) != TM_OK)
        return rc;
    return svc_apply_perf(e, v);
}

/* The integral of level i from the start to now. */
static sim__area level_integral_now(const engine *e, size_t i)
{
    return sim__level_integral(&e->series, sim__level_source(&e->series, i), e->now_us);
}

/* The switch to the specialized model: the old replicas go, the new model's
 * are requested (they load before they serve). */
static int svc_specialize(engine *e, svc *v)
{
    size_t si = (size_t)(v - e->svcs);
    v->special_t_us = e->now_us;
    v->snap_svc_alloc = level_integral_now(e, sim_level_service(e->sc, si, SIM_LV_S_ALLOC));
    v->snap_alloc = level_integral_now(e, SIM_LV_ALLOC);
    v->snap_up = level_integral_now(e, SIM_LV_UP);
    v->old_tps = svc_replica_tps(e, v);
    v->sh_t_us = e->now_us;
    int rc = svc_account(e, v);
    if (rc != TM_OK)
        return rc;
    while (v->n_rep)
        svc_rep_drop(e, v, v->rep[v->n_rep - 1]);
    v->cfg = &v->spec->special;
    svc_speeds(e, v);
    sim__svc_scaler_init(&v->scaler, 0);
    if ((rc = svc_rebuild(e, v)) != TM_OK || (rc = svc_step(e, v)) != TM_OK)
        return rc;
    return svc_apply_perf(e, v);
}

/* The switch of class k to its specialization: the snapshot its report
 * measures from. */
static void class_specialize(engine *e, size_t k)
{
    cls_special *cs = &e->cspecial[k];
    cs->t_us = e->now_us;
    cs->cls_alloc = level_integral_now(e, sim_level_class(e->sc, k, SIM_LV_C_ALLOC));
    cs->all_alloc = level_integral_now(e, SIM_LV_ALLOC);
    cs->up = level_integral_now(e, SIM_LV_UP);
    cs->arrived = e->res->classes[k].arrived;
}

/* A switch event for every class whose specialization begins within the
 * horizon. */
static int build_class_specials(engine *e)
{
    const sim_scenario *sc = e->sc;
    int any = 0;
    for (size_t k = 0; k < sc->n_classes; k++)
        any |= sc->classes[k].special && sc->classes[k].special_at_us <= sc->horizon_us;
    if (!any)
        return TM_OK;
    if (!(e->cspecial = calloc(sc->n_classes, sizeof *e->cspecial)))
        return nomem(e);
    for (size_t k = 0; k < sc->n_classes; k++) {
        const sim_class_cfg *cc = &sc->classes[k];
        e->cspecial[k].t_us = -1;
        if (cc->special && cc->special_at_us <= sc->horizon_us &&
            sim__evq_push(&e->evq, cc->special_at_us < 0 ? 0 : cc->special_at_us, EV_CLASS_SPECIAL,
                          (uint32_t)k, 0, NULL))
            return nomem(e);
    }
    return TM_OK;
}

/* The specialization reports (model.h, sim_class_result.special); the row
 * over all classes has none. */
static void class_special_results(engine *e)
{
    const sim_scenario *sc = e->sc;
    const double k = (double)PLACE_MILLI_WHOLE * SIM_US_PER_S * 3600; /* area per GPU-hour */
    for (size_t c = 0; c <= sc->n_classes; c++) {
        sim_class_result *cr = &e->res->classes[c];
        memset(&cr->special, 0, sizeof cr->special);
        cr->special.at_s = NAN;
        const cls_special *cs = e->cspecial && c < sc->n_classes ? &e->cspecial[c] : NULL;
        if (!cs || cs->t_us < 0)
            continue;
        const sim_class_cfg *cc = &sc->classes[c];
        size_t ic = sim_level_class(sc, c, SIM_LV_C_ALLOC);
        double n = (double)(cr->arrived - cs->arrived);
        double cls = (double)(sim__level_total(&e->series, ic) - cs->cls_alloc) / k;
        double all = (double)(sim__level_total(&e->series, SIM_LV_ALLOC) - cs->all_alloc) / k;
        double up = (double)(sim__level_total(&e->series, SIM_LV_UP) - cs->up) / k;
        cr->special.at_s = (double)cs->t_us / SIM_US_PER_S;
        cr->special.jobs = cr->arrived - cs->arrived;
        cr->special.old_gpu_h = n * cc->mean_ref_gpu_s / 3600;
        cr->special.new_gpu_h = n * cc->special->mean_ref_gpu_s / 3600;
        double freed = cr->special.old_gpu_h - cr->special.new_gpu_h;
        cr->special.freed_gpu_h = freed > 0 ? freed : 0;
        cr->special.class_gpu_h = cls;
        cr->special.others_gpu_h = all - cls;
        cr->special.capacity_gpu_h = up;
        /* with the old shape the class would have needed old_gpu_h of the
         * capacity: other work held at most the rest, and what it held beyond
         * that it held on capacity the specialization freed */
        double beyond = (all - cls) - (up - cr->special.old_gpu_h);
        cr->special.reclaimed_gpu_h = beyond < 0                         ? 0
                                      : beyond > cr->special.freed_gpu_h ? cr->special.freed_gpu_h
                                                                         : beyond;
    }
}

static int build_services(engine *e)
{
    const sim_scenario *sc = e->sc;
    if (!sc->n_services)
        return TM_OK;
    /* n_svcs is set only once the array exists: svcs_fini walks it */
    e->svcs = calloc(sc->n_services, sizeof *e->svcs);
    if (!e->svcs)
        return nomem(e);
    e->n_svcs = sc->n_services;
    for (size_t i = 0; i < e->n_svcs; i++) {
        svc *v = &e->svcs[i];
        v->spec = &sc->services[i];
        v->cfg = &v->spec->cfg;
        v->tick_at_us = INT64_MAX;
        v->special_t_us = -1;
        svc_speeds(e, v);
        sim__svc_scaler_init(&v->scaler, 0);
        int rc = svc_rebuild(e, v);
        if (rc == TM_OK)
            rc = svc_step(e, v);
        if (rc == TM_OK)
            rc = svc_apply_perf(e, v);
        if (rc != TM_OK)
            return rc;
        if (v->spec->special_at_us >= 0 && v->spec->special_at_us <= sc->horizon_us &&
            sim__evq_push(&e->evq, v->spec->special_at_us, EV_SVC_SPECIAL, (uint32_t)i, 0, NULL))
            return nomem(e);
    }
    return TM_OK;
}

static void svc_results(engine *e)
{
    const sim_scenario *sc = e->sc;
    for (size_t i = 0; i < e->n_svcs; i++) {
        svc *v = &e->svcs[i];
        sim_service_result *r = &e->res->services[i];
        const sim__svc_acct *a = &v->acct;
        r->req_demanded = a->demanded.req;
        r->req_slo_ok = a->slo_ok.req;
        r->req_late = a->late.req;
        r->req_unserved = a->unserved.req;
        r->req_api = a->api.req;
        r->tok_in_demanded = a->demanded.tok_in;
        r->tok_out_demanded = a->demanded.tok_out;
        sim__svc_vol owned = sim__svc_acct_owned(a);
        r->tok_in_owned = owned.tok_in;
        r->tok_out_owned = owned.tok_out;
        r->tok_in_api = a->api.tok_in;
        r->tok_out_api = a->api.tok_out;
        r->attainment = sim__svc_acct_attainment(a);
        /* the service's own API price, or the one the cost section gives it
         * (cost.api: by service, by model, the default): none is 0 */
        double pin, pout;
        int api;
        sim__cost_service_price(sc, i, &pin, &pout, &api);
        r->api_usd = (a->api.tok_in > 0 && isfinite(pin) ? a->api.tok_in / 1e6 * pin : 0) +
                     (a->api.tok_out > 0 && isfinite(pout) ? a->api.tok_out / 1e6 * pout : 0);
        double loading = v->loading_s;
        for (uint32_t k = 0; k < v->n_rep; k++) {
            const job *j = slot_job(e, v->rep[k]);
            if (j->rep_state == REP_LOADING)
                loading += (double)(e->now_us - j->run_start_us) / SIM_US_PER_S;
        }
        r->replica_hours_ready = a->replica_s / 3600;
        r->replica_hours_loading = loading / 3600;
        r->gpu_hours_alloc = level_gpu_s(e, sim_level_service(sc, i, SIM_LV_S_ALLOC)) / 3600;
        r->gpu_hours_busy = level_gpu_s(e, sim_level_service(sc, i, SIM_LV_S_BUSY)) / 3600;
        double span = (double)e->now_us;
        r->ready_mean =
            span > 0
                ? (double)sim__level_total(&e->series, sim_level_service(sc, i, SIM_LV_S_READY)) /
                      span
                : 0.0;
        r->ready_max = v->ready_max;
        r->replicas_started = v->started;
        r->replicas_lost = v->lost;
        r->special_at_s = r->gpus_before = r->gpus_after = r->others_before = r->others_after = NAN;
        if (v->special_t_us >= 0) {
            double t0 = (double)v->special_t_us, t1 = (double)e->now_us - t0;
            double k = PLACE_MILLI_WHOLE;
            sim__area svc_all =
                sim__level_total(&e->series, sim_level_service(sc, i, SIM_LV_S_ALLOC));
            sim__area all = sim__level_total(&e->series, SIM_LV_ALLOC);
            r->special_at_s = t0 / SIM_US_PER_S;
            r->gpus_before = t0 > 0 ? (double)v->snap_svc_alloc / t0 / k : NAN;
            r->others_before = t0 > 0 ? (double)(v->snap_alloc - v->snap_svc_alloc) / t0 / k : NAN;
            r->gpus_after = t1 > 0 ? (double)(svc_all - v->snap_svc_alloc) / t1 / k : NAN;
            r->others_after =
                t1 > 0 ? (double)((all - v->snap_alloc) - (svc_all - v->snap_svc_alloc)) / t1 / k
                       : NAN;
            /* the report, as a class's (class_special_results) with the
             * sizing of each model for the need */
            const double gh = k * SIM_US_PER_S * 3600; /* area per GPU-hour */
            double tail = (double)(e->now_us - v->sh_t_us);
            sim_service_special *sp = &r->special;
            sp->old_gpu_h = (v->sh_old_gpu_us + tail * v->sh_old_gpus) / SIM_US_PER_S / 3600;
            sp->new_gpu_h = (v->sh_new_gpu_us + tail * v->sh_new_gpus) / SIM_US_PER_S / 3600;
            sp->freed_gpu_h = sp->old_gpu_h > sp->new_gpu_h ? sp->old_gpu_h - sp->new_gpu_h : 0;
            sp->service_gpu_h = (double)(svc_all - v->snap_svc_alloc) / gh;
            sp->others_gpu_h = (double)((all - v->snap_alloc) - (svc_all - v->snap_svc_alloc)) / gh;
            sp->capacity_gpu_h =
                (double)(sim__level_total(&e->series, SIM_LV_UP) - v->snap_up) / gh;
            double beyond = sp->others_gpu_h - (sp->capacity_gpu_h - sp->old_gpu_h);
            sp->reclaimed_gpu_h = beyond < 0                 ? 0
                                  : beyond > sp->freed_gpu_h ? sp->freed_gpu_h
                                                             : beyond;
        }
    }
}

static void svcs_fini(engine *e)
{
    for (size_t i = 0; i < e->n_svcs; i++) {
        free(e->svcs[i].rep);
        sim__svc_reqstate_free(e->svcs[i].rq);
    }
    free(e->svcs);
}

static int apply_preempt(engine *e, place_view *v, place_decision *d)
{
    uint32_t slot = e->r_slot[d->index];
    if (slot_job(e, slot)->svc) {
        /* a preempted replica is gone; its service asks for another */
        e->res->preemptions++;
        e->series.b_preemptions++;
        int rc = svc_replica_lost(e, slot);
        v->running = e->r_run;
        v->n_running = e->n_run;
        return rc;
    }
    uint32_t need = e->n_requeue + 1;
    if (grow((void **)&e->requeue, &e->requeue_cap, need, sizeof *e->requeue, 16))
        return nomem(e);
    run_stop(e, slot, e->gavel ? STOP_ROUND : STOP_PREEMPT);
    slot_job(e, slot)->state = SIM_JOB_QUEUED;
    e->requeue[e->n_requeue++] = slot;
    v->running = e->r_run;
    v->n_running = e->n_run;
    return TM_OK;
}

/* PLACE_ROUTE_API: the replica request is served through the API instead; it
 * leaves the queue after the pass (marked ROUTED now). */
static int apply_route(engine *e, place_decision *d)
{
    uint32_t qi = e->q_head + d->index;
    if (!slot_job(e, e->q_slot[qi])->svc)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "a batch job routed to an API");
    if (grow((void **)&e->routed, &e->routed_cap, e->n_routed + 1, sizeof *e->routed, 16))
        return nomem(e);
    e->q_state[qi] = PLACE_Q_ROUTED;
    e->pass_holes = 1;
    e->routed[e->n_routed++] = e->q_slot[qi];
    return TM_OK;
}

/* After the pass: the routed requests are gone; their services serve the load
 * they were for through the API (the model's overflow) until the autoscaler's
 * next decision asks again. */
static int routed_drop(engine *e)
{
    for (uint32_t i = 0; i < e->n_routed; i++) {
        job *j = slot_job(e, e->routed[i]);
        svc *v = &e->svcs[j->svc - 1];
        levels_queue(e, j, -1);
        svc_rep_forget(e, v, e->routed[i]);
        tm_diag sub;
        tm_diag_clear(&sub);
        if (sim__svc_scaler_lost(&v->scaler, 0, 1, &sub) != TM_OK)
            return svc_err(e, v, &sub);
        svc_levels_counts(e, v);
    }
    e->n_routed = 0;
    return TM_OK;
}

static int hook_record(engine *e, const place_decision *d);

/* place_apply_fn: the library checked the decision; make it so. A failure
 * here is the engine's (memory, an internal error), kept in e->apply_rc. */
static int apply(void *host, place_view *v, place_decision *d)
{
    engine *e = host;
    switch (d->kind) {
    case PLACE_START:
        e->apply_rc = apply_start(e, v, d);
        break;
    case PLACE_PREEMPT:
        e->apply_rc = apply_preempt(e, v, d);
        break;
    case PLACE_ROUTE_API:
        e->apply_rc = apply_route(e, d);
        break;
    default:
        e->apply_rc =
            tm_diag_set(e->diag, TM_ERR_POLICY, "policy", "unknown decision kind %u", d->kind);
    }
    if (e->apply_rc == TM_OK && e->opts && e->opts->pass_hook)
        e->apply_rc = hook_record(e, d);
    return e->apply_rc == TM_OK ? PLACE_OK : PLACE_ERR_INVAL;
}

/* Keep a copy of an applied decision for the pass hook (a START's parts with
 * the GPU masks place_cluster_take chose). Only when a hook is set: never per
 * event otherwise. */
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
    uint32_t np = d->kind == PLACE_START ? d->n_parts : 0;
    if (e->hook_parts_n + np > e->hook_parts_cap) {
        size_t cap = e->hook_parts_cap ? 2 * e->hook_parts_cap : 256;
        while (cap < e->hook_parts_n + np)
            cap *= 2;
        place_part *p = realloc(e->hook_parts, cap * sizeof *p);
        if (!p)
            return nomem(e);
        e->hook_parts = p;
        e->hook_parts_cap = cap;
    }
    if (np) {
        const job *j = slot_job(e, e->q_slot[e->q_head + d->index]);
        memcpy(e->hook_parts + e->hook_parts_n, j->parts, np * sizeof *j->parts);
    }
    place_decision *c = &e->hook_d[e->hook_n++];
    *c = *d;
    c->n_parts = np;
    c->parts = NULL; /* pointers are set when the pass ends (the buffer may move) */
    c->cap_parts = (uint32_t)e->hook_parts_n;
    e->hook_parts_n += np;
    return TM_OK;
}

static int job_done(engine *e, job *j, uint32_t slot, double ov_gpu_s, double el_gpu_s);

static int job_end(engine *e, uint32_t slot, uint64_t gen)
{
    job *j = slot_job(e, slot);
    if (j->state != SIM_JOB_RUNNING || j->gen != gen)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "completion of a job not running");
    int64_t milli = job_milli(j), el = e->now_us - j->run_start_us;
    /* each product once (the same doubles as computing it at every use) */
    double ov_gpu_s = gpu_s(milli, j->run_overhead_us), el_gpu_s = gpu_s(milli, el);
    j->busy_gpu_s += gpu_s(milli, el - j->run_overhead_us);
    j->lost_gpu_s += ov_gpu_s; /* the last restart's overhead */
    work_credit(e, j, j->remaining_ref_us);
    j->remaining_ref_us = 0;
    run_release(e, j);
    return job_done(e, j, slot, ov_gpu_s, el_gpu_s);
}

/* A completed job's statistics and row, after its GPUs went back; frees its
 * slot (j is slot's record). ov_gpu_s and el_gpu_s: its last run's restart overhead and length. */
static int job_done(engine *e, job *j, uint32_t slot, double ov_gpu_s, double el_gpu_s)
{
    e->series.b_completions++;
    sim_class_result *cr = cls_res(e, j->pj.cls), *ar = all_res(e);
    cr->gpu_s_lost += ov_gpu_s;
    ar->gpu_s_lost += ov_gpu_s;
    e->res->gpu_s_lost += ov_gpu_s;
    cr->gpu_s_alloc += el_gpu_s;
    ar->gpu_s_alloc += el_gpu_s;
    j->alloc_gpu_s += el_gpu_s;
    int64_t total = j->end_us - j->first_start_us, wait = j->first_start_us - j->pj.submit_us;
    int64_t denom = total > SLOWDOWN_TAU_US ? total : SLOWDOWN_TAU_US;
    double slow = (double)(wait + total) / (double)denom;
    if (slow < 1)
        slow = 1;
    int64_t completion = j->end_us - j->pj.submit_us;
    int64_t slow_q = round_half_away(slow * SLOWDOWN_SCALE);
    sim__quant_add(&e->q_completion[j->pj.cls], completion);
    sim__quant_add(&e->q_slowdown[j->pj.cls], slow_q);
    if (!e->q_all_mirrors) {
        sim__quant_add(&e->q_completion[e->sc->n_classes], completion);
        sim__quant_add(&e->q_slowdown[e->sc->n_classes], slow_q);
    }
    cr->completed++;
    ar->completed++;
    e->res->tenants[tenant_slot(e, j)].completed++;
    cr->slowdown_mean += slow; /* sums until the end */
    ar->slowdown_mean += slow;
    cr->completion_mean_s += (double)completion / SIM_US_PER_S;
    ar->completion_mean_s += (double)completion / SIM_US_PER_S;
    if (j->deadline_us >= 0) {
        int met = j->end_us <= j->deadline_us;
        cr->deadline_met += (uint64_t)met;
        ar->deadline_met += (uint64_t)met;
        cr->deadline_missed += (uint64_t)!met;
        ar->deadline_missed += (uint64_t)!met;
    }
    job_close(e, j);
    e->batch_in_flight--;
    int rc = emit_row(e, j, SIM_JOB_COMPLETED, SIM_REJECT_NONE);
    slot_free(e, slot);
    e->dirty = 1;
    return rc;
}

static int overhead_end(engine *e, uint32_t slot, uint64_t gen)
{
    job *j = slot_job(e, slot);
    if (j->state != SIM_JOB_RUNNING || j->gen != gen || !j->in_overhead)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "overhead end of a job not loading");
    j->in_overhead = 0;
    if (j->svc)
        return svc_replica_ready(e, slot);
    levels_busy_set(e, j, job_milli(j));
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* fleet changes and failures                                                 */

static void pool_set_up(engine *e, uint32_t pool, int up)
{
    const sim_pool_cfg *p = &e->sc->pools[pool];
    e->led.phase[pool] = up ? 1 : 2;
    for (uint32_t k = 0; k < p->nodes; k++) {
        uint32_t n = e->pool_first_node[pool] + k;
        place_cluster_set_node_up(&e->cluster, n, up);
        node_refresh_up(e, n);
    }
    e->dirty = 1;
}

static double exp_us(gsl_rng *r, double mean_us)
{
    return gsl_ran_exponential(r, mean_us);
}

static int schedule_failure(engine *e, uint32_t t)
{
    type_gpus *tg = &e->tgpus[t];
    double mean_us = e->sc->failures.mtbf_h[t] * 3600.0 * SIM_US_PER_S / (double)tg->n;
    double dt = exp_us(tg->r_fail, mean_us);
    if (!(dt < 9e18) || e->now_us + (int64_t)dt < e->now_us)
        return TM_OK;
    int64_t at = e->now_us + (int64_t)dt;
    /* failures happen up to the horizon: in drain mode the run then finishes
     * the work in flight on a fleet that no longer fails (a drain would never end
     * otherwise) */
    if (at > e->sc->horizon_us)
        return TM_OK;
    return sim__evq_push(&e->evq, at, EV_GPU_FAIL, t, 0, NULL) == TM_OK ? TM_OK : nomem(e);
}

/* GPU `gpu` of `node` fails: the jobs on it stop, it leaves service until
 * repaired. The failure draws a GPU of the type uniformly; one out of
 * service cannot fail, so the rate is GPUs in service / MTBF, as it should be. */
static int gpu_fail(engine *e, uint32_t t)
{
    type_gpus *tg = &e->tgpus[t];
    size_t k = gsl_rng_uniform_int(tg->r_fail, tg->n);
    uint32_t node = tg->node[k], g = tg->gpu[k];
    place_cluster *c = &e->cluster;
    int rc = schedule_failure(e, t);
    if (rc != TM_OK)
        return rc;
    if (!c->node_up[node] || !c->gpu_up[c->node_gpu0[node] + g])
        return TM_OK;
    e->res->failures++;
    e->series.b_failures++;
    /* the running jobs on that GPU: a scan, failures being rare */
    for (uint32_t i = 0; i < e->n_run;) {
        const place_running *r = &e->r_run[i];
        int hit = 0;
        for (uint32_t p = 0; p < r->n_parts; p++)
            if (r->parts[p].node == node && ((r->parts[p].mask >> g) & 1u))
                hit = 1;
        if (!hit) {
            i++;
            continue;
        }
        uint32_t slot = e->r_slot[i];
        if (slot_job(e, slot)->svc) {
            if ((rc = svc_replica_lost(e, slot)) != TM_OK)
                return rc;
            i = 0; /* its service may have released others too: scan again */
            continue;
        }
        run_stop(e, slot, STOP_FAILURE); /* swap-remove: entry i is another job now */
        job *j = slot_job(e, slot);
        if (e->sc->failures.restart) {
            if ((rc = queue_insert(e, slot)) != TM_OK)
                return rc;
        } else {
            sim_class_result *cr = cls_res(e, j->pj.cls), *ar = all_res(e);
            cr->failed++;
            ar->failed++;
            j->end_us = e->now_us;
            job_close(e, j);
            e->batch_in_flight--;
            rc = emit_row(e, j, SIM_JOB_FAILED, SIM_REJECT_NONE);
            slot_free(e, slot);
            if (rc != TM_OK)
                return rc;
        }
    }
    place_cluster_set_gpu_up(c, node, g, 0);
    node_refresh_up(e, node);
    double rep = trace_dist_sample(&e->sc->failures.repair_s, tg->r_repair) * SIM_US_PER_S;
    int64_t at =
        rep < 9e18 && e->now_us + (int64_t)rep >= e->now_us ? e->now_us + (int64_t)rep : INT64_MAX;
    e->dirty = 1;
    return sim__evq_push(&e->evq, at, EV_GPU_REPAIR, node, g, NULL) == TM_OK ? TM_OK : nomem(e);
}

static void gpu_repair(engine *e, uint32_t node, uint32_t g)
{
    place_cluster_set_gpu_up(&e->cluster, node, g, 1);
    node_refresh_up(e, node);
    e->res->repairs++;
    e->dirty = 1;
}

/* ------------------------------------------------------------------------- */
/* shape-blocked idle                                                         */

static int host_fits(const place_cluster *c, uint32_t n, const place_job *j)
{
    return c->node_cpu_free_milli[n] >= j->cpu_milli && c->node_mem_free_mib[n] >= j->host_mem_mib;
}

/* Could job j start on free GPUs of type t right now? SIM_BLOCK_COUNT if yes,
 * else the reason it cannot. Looks at a few candidate nodes only: cost
 * O(buckets + a few host checks). */
static int why_not_on_type(const place_cluster *c, const place_job *j, uint32_t t)
{
    if (j->gpus == 0)
        return SIM_BLOCK_HOST;
    if (j->type_mask && !((j->type_mask >> t) & 1u))
        return SIM_BLOCK_TYPE;
    if (j->gpu_mem_mib > c->type_mem_mib[t])
        return SIM_BLOCK_MEMORY;
    uint32_t need = j->gpu_milli < PLACE_MILLI_WHOLE ? 1 : j->gpus;
    uint32_t n = place_cluster_next_free(c, t, need, 0);
    for (int tries = 0; n != PLACE_NONE && tries < 4; tries++) {
        if (host_fits(c, n, j))
            return SIM_BLOCK_COUNT;
        n = place_cluster_next_free(c, t, need, n + 1);
    }
    if (n != PLACE_NONE || place_cluster_next_free(c, t, need, 0) != PLACE_NONE)
        return SIM_BLOCK_HOST;
    if (c->type_gpus_free[t] >= need)
        return (j->flags & PLACE_JOB_CAN_SPAN) ? SIM_BLOCK_COUNT : SIM_BLOCK_FRAGMENTATION;
    return SIM_BLOCK_GANG;
}

/* Why the whole free GPUs of type t sit idle while jobs wait (DESIGN §5):
 * the shape-blocked reason (the return value) and the ledger's bucket, which
 * tells "order" apart by where the job that could use them waits: first
 * (the policy held it) or behind a job that cannot start. */
static int idle_reason(const engine *e, uint32_t t, int *ledger_bucket)
{
    const place_cluster *c = &e->cluster;
    int reason = SIM_BLOCK_COUNT, first = SIM_BLOCK_COUNT;
    uint32_t seen = 0;
    *ledger_bucket = SIM_LEDGER_WAIT_HELD;
    for (uint32_t i = e->q_head; i < e->q_tail && seen < BLOCK_LOOKAHEAD; i++) {
        if (e->q_state[i] != PLACE_Q_WAITING)
            continue;
        int r = why_not_on_type(c, &e->q_jobs[i], t);
        if (seen == 0)
            first = r;
        seen++;
        if (r == SIM_BLOCK_COUNT) {
            reason = SIM_BLOCK_ORDER;
            *ledger_bucket = seen == 1 ? SIM_LEDGER_WAIT_HELD : SIM_LEDGER_WAIT_BEHIND;
            break;
        }
    }
    if (reason == SIM_BLOCK_COUNT)
        reason = first == SIM_BLOCK_COUNT ? SIM_BLOCK_ORDER : first;
    if (reason != SIM_BLOCK_ORDER) {
        static const int to_ledger[SIM_BLOCK_COUNT] = {
            [SIM_BLOCK_TYPE] = SIM_LEDGER_WAIT_TYPE,
            [SIM_BLOCK_MEMORY] = SIM_LEDGER_WAIT_MEMORY,
            [SIM_BLOCK_FRAGMENTATION] = SIM_LEDGER_WAIT_FRAGMENTATION,
            [SIM_BLOCK_GANG] = SIM_LEDGER_WAIT_GANG,
            [SIM_BLOCK_HOST] = SIM_LEDGER_WAIT_HOST,
            [SIM_BLOCK_ORDER] = SIM_LEDGER_WAIT_HELD,
        };
        *ledger_bucket = to_ledger[reason];
    }
    return reason;
}

/* Move idle GPU-time placed at *pl to (bucket, cons, milli): in the pool's
 * cells when pool != UINT32_MAX, else in the consumer's. */
static inline void idle_move(engine *e, idle_place *pl, uint32_t pool, int bucket, uint32_t cons,
                             int64_t milli)
{
    if (pl->bucket == bucket && pl->cons == cons) {
        /* the same cell: one change by the difference (the same integers) */
        if (pool != UINT32_MAX)
            led_pool_add(e, pool, bucket, milli - pl->milli);
        else
            led_cons_add(e, cons, bucket, milli - pl->milli);
        pl->milli = milli;
        return;
    }
    if (pool != UINT32_MAX) {
        led_pool_add(e, pool, pl->bucket, -pl->milli);
        led_pool_add(e, pool, bucket, milli);
    } else {
        led_cons_add(e, pl->cons, pl->bucket, -pl->milli);
        led_cons_add(e, cons, bucket, milli);
    }
    pl->bucket = (uint8_t)bucket;
    pl->cons = cons;
    pl->milli = milli;
}

/* Classify the free GPU-time into the ledger's idle buckets, as it stands at
 * the end of an instant: with nothing waiting all of it is idle; while work
 * waits, the whole free GPUs of a type go to the reason idle_reason gives
 * (wb[t], computed here when wb is NULL) and the free parts of shared GPUs
 * to "share", charged to the consumer of the first waiting job. Per GPU type
 * for the consumers; per pool for the pools, only for pools whose free
 * capacity or type's bucket changed. Cost O(types + changed pools). */
static void ledger_idle(engine *e, const int *wb)
{
    ledger *L = &e->led;
    L->stale = 0;
    uint32_t head = L->n_cons - 1, i = e->q_head;
    while (i < e->q_tail && e->q_state[i] != PLACE_Q_WAITING)
        i++;
    int waiting = i < e->q_tail;
    if (waiting)
        head = job_cons(e, slot_job(e, e->q_slot[i]));
    for (uint64_t m = e->capacity.types; m; m &= m - 1) {
        uint32_t t = (uint32_t)__builtin_ctzll(m);
        if (!L->t_whole[t] && !L->t_part[t] && !L->t_pw[t].milli && !L->t_pp[t].milli)
            continue; /* nothing free, nothing placed: nothing to move */
        int bw = SIM_LEDGER_IDLE, bp = SIM_LEDGER_IDLE;
        if (waiting) {
            bp = SIM_LEDGER_WAIT_SHARE;
            if (L->t_whole[t] > 0) {
                if (wb)
                    bw = wb[t];
                else
                    idle_reason(e, t, &bw);
            }
        }
        uint32_t cons = waiting ? head : L->n_cons - 1;
        idle_move(e, &L->t_pw[t], UINT32_MAX, L->t_whole[t] ? bw : L->t_pw[t].bucket,
                  L->t_whole[t] ? cons : L->t_pw[t].cons, L->t_whole[t]);
        idle_move(e, &L->t_pp[t], UINT32_MAX, L->t_part[t] ? bp : L->t_pp[t].bucket,
                  L->t_part[t] ? cons : L->t_pp[t].cons, L->t_part[t]);
        /* the pools follow their type's buckets; a type without free GPUs
         * keeps its last ones (its pools hold nothing there) */
        int nbw = L->t_whole[t] ? bw : L->t_bw[t], nbp = L->t_part[t] ? bp : L->t_bp[t];
        if (nbw != L->t_bw[t] || nbp != L->t_bp[t]) {
            L->t_bw[t] = (uint8_t)nbw;
            L->t_bp[t] = (uint8_t)nbp;
            for (uint32_t k = L->type_pool_first[t]; k < L->type_pool_first[t + 1]; k++) {
                uint32_t p = L->type_pools[k];
                if (!L->p_dirty[p]) {
                    L->p_dirty[p] = 1;
                    L->dirty[L->n_dirty++] = p;
                }
            }
        }
    }
    for (uint32_t k = 0; k < L->n_dirty; k++) {
        uint32_t p = L->dirty[k], t = e->sc->pools[p].type;
        L->p_dirty[p] = 0;
        idle_move(e, &L->p_pw[p], p, L->t_bw[t], 0, L->p_whole[p]);
        idle_move(e, &L->p_pp[p], p, L->t_bp[t], 0, L->p_part[p]);
    }
    L->n_dirty = 0;
}

/* After a pass: classify the whole free GPUs of each type (DESIGN §5), into
 * the shape-blocked levels and the ledger. */
static void update_blocked(engine *e)
{
    int64_t blocked[SIM_BLOCK_COUNT] = {0};
    int wb[PLACE_MAX_TYPES];
    const place_cluster *c = &e->cluster;
    int any = 0;
    if (e->q_head < e->q_tail && c->gpus_free > 0) {
        any = 1;
        for (uint32_t t = 0; t < c->n_types; t++) {
            wb[t] = SIM_LEDGER_IDLE;
            if (!c->type_gpus_free[t])
                continue;
            int reason = idle_reason(e, t, &wb[t]);
            blocked[reason] += (int64_t)c->type_gpus_free[t] * PLACE_MILLI_WHOLE;
        }
    }
    /* all zero before and now (nothing waits, or nothing is free): no change */
    if (any || e->blocked_any)
        for (int r = 0; r < SIM_BLOCK_COUNT; r++)
            if (e->series.lv[SIM_LV_BLOCKED + r].value != blocked[r])
                sim__level_set(&e->series, (size_t)(SIM_LV_BLOCKED + r), e->now_us, blocked[r]);
    e->blocked_any = any;
    ledger_idle(e, wb);
}

/* ------------------------------------------------------------------------- */
/* the pass                                                                   */

/* After a pass: drop started entries and clear SKIPPED marks. When only a
 * prefix started (always so for a strict queue) this is O(started); a pass
 * that started jobs behind waiting ones, or refused a decision, costs a sweep
 * of the queue. */
static void queue_compact(engine *e, int full)
{
    while (e->q_head < e->q_tail &&
           (e->q_state[e->q_head] == PLACE_Q_STARTED || e->q_state[e->q_head] == PLACE_Q_ROUTED))
        e->q_head++;
    if (full) {
        uint32_t w = e->q_head;
        for (uint32_t i = e->q_head; i < e->q_tail; i++) {
            if (e->q_state[i] == PLACE_Q_STARTED || e->q_state[i] == PLACE_Q_ROUTED)
                continue;
            if (w != i) {
                e->q_jobs[w] = e->q_jobs[i];
                e->q_slot[w] = e->q_slot[i];
                slot_job(e, e->q_slot[w])->pos = w;
            }
            e->q_state[w] = PLACE_Q_WAITING; /* SKIPPED lasts one pass */
            w++;
        }
        e->q_tail = w;
    }
    if (e->q_head == e->q_tail)
        e->q_head = e->q_tail = 0;
}

/* Gavel's round boundary (model/gavel_int.h): count the time each job has
 * received since the last boundary and, when jobs arrived or left and the
 * last solve is at least SIM_GAVEL_RESOLVE_US old (Gavel's
 * minimum_time_between_allocation_resets), solve the allocation again for
 * the batch jobs queued or running. */
typedef struct gavel_key {
    uint64_t id;
    uint32_t slot;
} gavel_key;

/* Merge the id-ascending runs a[0..m) and a[m..n) into out[0..n). */
static void gavel_keys_merge(const gavel_key *a, uint32_t m, uint32_t n, gavel_key *out)
{
    uint32_t i = 0, j = m, o = 0;
    while (i < m && j < n)
        out[o++] = a[j].id < a[i].id ? a[j++] : a[i++];
    while (i < m)
        out[o++] = a[i++];
    while (j < n)
        out[o++] = a[j++];
}

/* Sort keys[0..n) by id, tmp[0..n) the scratch: runs of 8 by insertion,
 * then merged bottom-up, the comparison inline (qsort's callback cost more
 * than the sort; a boundary sorts hundreds). Ids are unique: one order. */
static void gavel_keys_sort(gavel_key *keys, gavel_key *tmp, uint32_t n)
{
    for (uint32_t a = 0; a < n; a += 8) {
        uint32_t b = n - a > 8 ? a + 8 : n;
        for (uint32_t i = a + 1; i < b; i++) {
            gavel_key v = keys[i];
            uint32_t j = i;
            for (; j > a && keys[j - 1].id > v.id; j--)
                keys[j] = keys[j - 1];
            keys[j] = v;
        }
    }
    gavel_key *src = keys, *dst = tmp;
    for (uint32_t w = 8; w < n; w *= 2) {
        for (uint32_t a = 0; a < n; a += 2 * w) {
            uint32_t m = n - a > w ? w : n - a, b = n - a > 2 * w ? 2 * w : n - a;
            gavel_keys_merge(src + a, m, b, dst + a);
        }
        gavel_key *x = src;
        src = dst;
        dst = x;
    }
    if (src != keys)
        memcpy(keys, src, (size_t)n * sizeof *keys);
}

static int gavel_round(engine *e)
{
    sim__gavel *g = e->gavel;
    uint32_t nt = e->cluster.n_types, n = 0, nr = e->n_run, nq = e->q_tail - e->q_head;
    uint64_t *ids = malloc(((size_t)nr + 1) * sizeof *ids);
    uint32_t *types = malloc(((size_t)nr + 1) * sizeof *types);
    int64_t *starts = malloc(((size_t)nr + 1) * sizeof *starts);
    gavel_key *keys = malloc(((size_t)nr + nq + 1) * sizeof *keys);
    gavel_key *tmp = malloc(((size_t)nr + nq + 1) * sizeof *tmp);
    int rc = TM_OK;
    if (!ids || !types || !starts || !keys || !tmp) {
        rc = nomem(e);
        goto out;
    }
    for (uint32_t k = 0; k < nr; k++) {
        const place_running *r = &e->r_run[k];
        ids[k] = r->job.id;
        types[k] = r->n_parts ? e->cluster.node_type[r->parts[0].node] : UINT32_MAX;
        starts[k] = r->start_us;
    }
    sim__gavel_account(g, e->now_us, ids, types, starts, nr);
    if (g->solved &&
        ((g->seen_arrivals == e->arrivals && g->seen_in_flight == e->batch_in_flight) ||
         e->now_us - g->solved_us < SIM_GAVEL_RESOLVE_US))
        goto out;
    for (uint32_t k = 0; k < nr; k++) {
        job *j = slot_job(e, e->r_slot[k]);
        if (!j->svc && j->pj.gpus > 0)
            keys[n++] = (gavel_key){j->pj.id, e->r_slot[k]};
    }
    /* the running jobs sorted, merged with the queue's (in id order) */
    uint32_t n_run_keys = n;
    int queue_sorted = 1;
    for (uint32_t i = e->q_head; i < e->q_tail; i++) {
        job *j = slot_job(e, e->q_slot[i]);
        if (!j->svc && j->pj.gpus > 0 && e->q_state[i] == PLACE_Q_WAITING) {
            keys[n] = (gavel_key){j->pj.id, e->q_slot[i]};
            queue_sorted &= n == n_run_keys || keys[n - 1].id < keys[n].id;
            n++;
        }
    }
    if (queue_sorted) {
        gavel_keys_sort(keys, tmp, n_run_keys);
        gavel_keys_merge(keys, n_run_keys, n, tmp);
        memcpy(keys, tmp, (size_t)n * sizeof *keys);
    } else {
        gavel_keys_sort(keys, tmp, n);
    }
    if (sim__gavel_reserve(g, n) != TM_OK) {
        rc = nomem(e);
        goto out;
    }
    for (uint32_t t = 0; t < nt; t++)
        g->cap[t] = (double)e->cluster.type_gpus_up[t];
    for (uint32_t i = 0; i < n; i++) {
        const job *j = slot_job(e, keys[i].slot);
        g->n_id[i] = keys[i].id;
        g->gpus[i] = (double)j->pj.gpus * j->pj.gpu_milli / PLACE_MILLI_WHOLE;
        for (uint32_t t = 0; t < nt; t++) {
            double sp = j->pj.speed ? j->pj.speed[t] : 1.0;
            if (!(sp > 0))
                sp = 1.0;
            g->thr[(size_t)i * nt + t] = place_type_ok(&e->cluster, &j->pj, t) ? sp : 0.0;
        }
        double left = (double)j->remaining_ref_us;
        if (j->state == SIM_JOB_RUNNING && !j->in_overhead) {
            double done = (double)(e->now_us - j->run_start_us - j->run_overhead_us) * j->run_speed;
            left = done < left ? left - done : 0;
        }
        g->left[i] = left / 1e6;
        g->total[i] = (double)(j->work_ref_us + j->remaining_ref_us) / 1e6;
        g->age[i] = (double)(e->now_us - j->pj.submit_us) / 1e6;
    }
    sim__gavel_jobs jobs = {
        .n = n,
        .id = g->n_id,
        .thr = g->thr,
        .gpus = g->gpus,
        .left_s = g->left,
        .total_s = g->total,
        .age_s = g->age,
        .cap = g->cap,
    };
    rc = sim__gavel_resolve(g, &jobs, e->diag);
    g->solved_us = e->now_us;
    g->seen_arrivals = e->arrivals;
    g->seen_in_flight = e->batch_in_flight;
out:
    free(ids);
    free(types);
    free(starts);
    free(keys);
    free(tmp);
    return rc;
}

/* Put the jobs a pass preempted (e->requeue) back into the queue at their
 * arrival positions: what queue_insert one by one gives (the queue is in id
 * order, so the result is the merge of the two by id), in one pass over the
 * queue's tail instead of a shift per job (a Gavel round preempts hundreds). */
static int queue_insert_requeued(engine *e)
{
    uint32_t k = e->n_requeue;
    if (k < 2)
        return k ? queue_insert(e, e->requeue[0]) : TM_OK;
    gavel_key *add = malloc(2 * (size_t)k * sizeof *add);
    if (!add)
        return nomem(e);
    for (uint32_t r = 0; r < k; r++)
        add[r] = (gavel_key){slot_job(e, e->requeue[r])->pj.id, e->requeue[r]};
    gavel_keys_sort(add, add + k, k);
    if (e->q_tail + k > e->q_cap && e->q_head > 0)
        queue_slide(e);
    int rc = queue_reserve(e, e->q_tail + k);
    if (rc != TM_OK) {
        free(add);
        return rc;
    }
    uint32_t i = e->q_tail, w = e->q_tail + k, r = k;
    while (r > 0) {
        w--;
        if (i > e->q_head && e->q_jobs[i - 1].id > add[r - 1].id) {
            i--;
            e->q_jobs[w] = e->q_jobs[i];
            e->q_slot[w] = e->q_slot[i];
            e->q_state[w] = e->q_state[i];
            slot_job(e, e->q_slot[w])->pos = w;
            continue;
        }
        r--;
        job *j = slot_job(e, add[r].slot);
        queue_set(e, w, add[r].slot);
        j->state = SIM_JOB_QUEUED;
        if (j->svc)
            j->rep_state = REP_QUEUED;
        levels_queue(e, j, 1);
    }
    e->q_tail += k;
    e->dirty = 1;
    free(add);
    return TM_OK;
}

static int schedule_pass(engine *e)
{
    e->dirty = 0;
    if (e->q_head == e->q_tail) {
        update_blocked(e);
        return TM_OK;
    }
    e->res->passes++;
    if (e->skip_full && e->cluster.gpus_free == 0) {
        /* the policy would decide nothing and keep nothing (PLACE_POLICY_IDLE_WHEN_FULL):
         * what is left of a pass is the blocked levels' update */
        update_blocked(e);
        return TM_OK;
    }
    place_view v = {
        .now_us = e->now_us,
        .cluster = &e->cluster,
        .queue = e->q_jobs + e->q_head,
        .queue_state = e->q_state + e->q_head,
        .n_queue = e->q_tail - e->q_head,
        .running = e->r_run,
        .n_running = e->n_run,
    };
    if (e->gittins.n_classes) {
        v.service_dist = e->gittins.dist;
        v.n_service_dist = e->gittins.n_classes;
    }
    if (e->gavel && e->now_us % e->gavel->round_us == 0) {
        int grc = gavel_round(e);
        if (grc != TM_OK)
            return grc;
        if (e->gavel->solved)
            v.timeshare = &e->gavel->ts;
    }
    place_pass_stats st;
    e->pass_prefix = 0;
    e->pass_holes = 0;
    e->n_requeue = 0;
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
    /* a policy that will decide differently later without any change (a
     * reclaim delay running out) gets a pass then; one wake is pending at most */
    if (rc >= 0 && st.wake_us > e->now_us && st.wake_us < e->wake_us) {
        if (sim__evq_push(&e->evq, st.wake_us, EV_POLICY_WAKE, 0, 0, NULL) != TM_OK)
            return nomem(e);
        e->wake_us = st.wake_us;
    }
    if (rc == PLACE_ERR_NOMEM)
        return nomem(e);
    if (rc < 0)
        return tm_diag_set(e->diag, TM_ERR_POLICY, "policy", "policy '%s' failed: %s",
                           e->sc->policy, place_strerror(rc));
    if (st.started || st.invalid || e->n_routed)
        queue_compact(e, e->pass_holes || st.invalid);
    if ((rc = routed_drop(e)) != TM_OK)
        return rc;
    if ((rc = queue_insert_requeued(e)) != TM_OK)
        return rc;
    update_blocked(e);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* set-up and tear-down                                                       */

static int build_failures(engine *e)
{
    const sim_scenario *sc = e->sc;
    const place_cluster *c = &e->cluster;
    uint32_t rep = e->opts ? e->opts->replication : 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        type_gpus *tg = &e->tgpus[t];
        uint32_t n = 0;
        for (uint32_t node = 0; node < c->n_nodes; node++)
            if (c->node_type[node] == t)
                n += c->node_gpus[node];
        if (!n)
            continue;
        tg->node = malloc(n * sizeof *tg->node);
        tg->gpu = malloc(n * sizeof *tg->gpu);
        tg->r_fail = sim_rng_new(sc->seed, rep, SIM_STREAM_FAILURES, t);
        tg->r_repair = sim_rng_new(sc->seed, rep, SIM_STREAM_REPAIR, t);
        if (!tg->node || !tg->gpu || !tg->r_fail || !tg->r_repair)
            return nomem(e);
        for (uint32_t node = 0; node < c->n_nodes; node++)
            if (c->node_type[node] == t)
                for (uint32_t g = 0; g < c->node_gpus[node]; g++) {
                    tg->node[tg->n] = node;
                    tg->gpu[tg->n++] = (uint8_t)g;
                }
        int rc = schedule_failure(e, t);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

/* The ledger's arrays, for a fleet of `nodes` nodes (build_fleet). */
static int ledger_init(engine *e, uint64_t nodes)
{
    const sim_scenario *sc = e->sc;
    ledger *L = &e->led;
    size_t np = sc->n_pools ? sc->n_pools : 1, nt = sc->n_types + 1, nn = nodes ? nodes : 1;
    L->n_cons = (uint32_t)(sc->n_classes + sc->n_services + 1);
    L->pc = calloc(np * SIM_LEDGER_COUNT, sizeof *L->pc);
    L->cc = calloc((size_t)L->n_cons * SIM_LEDGER_COUNT, sizeof *L->cc);
    L->phase = calloc(np, sizeof *L->phase);
    L->n_alloc = calloc(nn, sizeof *L->n_alloc);
    L->n_whole = calloc(nn, sizeof *L->n_whole);
    L->n_part = calloc(nn, sizeof *L->n_part);
    L->n_down = calloc(nn, sizeof *L->n_down);
    L->n_down_b = calloc(nn, sizeof *L->n_down_b);
    L->p_whole = calloc(np, sizeof *L->p_whole);
    L->p_part = calloc(np, sizeof *L->p_part);
    L->t_whole = calloc(nt, sizeof *L->t_whole);
    L->t_part = calloc(nt, sizeof *L->t_part);
    L->p_pw = calloc(np, sizeof *L->p_pw);
    L->p_pp = calloc(np, sizeof *L->p_pp);
    L->t_pw = calloc(nt, sizeof *L->t_pw);
    L->t_pp = calloc(nt, sizeof *L->t_pp);
    L->t_bw = calloc(nt, sizeof *L->t_bw);
    L->t_bp = calloc(nt, sizeof *L->t_bp);
    L->type_pools = calloc(np, sizeof *L->type_pools);
    L->type_pool_first = calloc(nt + 1, sizeof *L->type_pool_first);
    L->p_dirty = calloc(np, sizeof *L->p_dirty);
    L->dirty = calloc(np, sizeof *L->dirty);
    if (!L->pc || !L->cc || !L->phase || !L->n_alloc || !L->n_whole || !L->n_part || !L->n_down ||
        !L->n_down_b || !L->p_whole || !L->p_part || !L->t_whole || !L->t_part || !L->p_pw ||
        !L->p_pp || !L->t_pw || !L->t_pp || !L->t_bw || !L->t_bp || !L->type_pools ||
        !L->type_pool_first || !L->p_dirty || !L->dirty)
        return TM_ERR_NOMEM;
    /* pools by type: a counting sort */
    for (size_t p = 0; p < sc->n_pools; p++)
        L->type_pool_first[sc->pools[p].type + 1]++;
    for (size_t t = 0; t < sc->n_types; t++)
        L->type_pool_first[t + 1] += L->type_pool_first[t];
    for (size_t p = 0; p < sc->n_pools; p++) {
        uint32_t t = sc->pools[p].type;
        L->type_pools[L->type_pool_first[t] + (uint32_t)L->t_whole[t]++] = (uint32_t)p;
    }
    for (size_t t = 0; t < nt; t++)
        L->t_whole[t] = 0; /* it counted pools above */
    return TM_OK;
}

static void ledger_fini(ledger *L)
{
    free(L->pc);
    free(L->cc);
    free(L->phase);
    free(L->n_alloc);
    free(L->n_whole);
    free(L->n_part);
    free(L->n_down);
    free(L->n_down_b);
    free(L->p_whole);
    free(L->p_part);
    free(L->t_whole);
    free(L->t_part);
    free(L->p_pw);
    free(L->p_pp);
    free(L->t_pw);
    free(L->t_pp);
    free(L->t_bw);
    free(L->t_bp);
    free(L->type_pools);
    free(L->type_pool_first);
    free(L->p_dirty);
    free(L->dirty);
}

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
    uint64_t nodes = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        nodes += sc->pools[p].nodes;
    e->node_pool = calloc(nodes ? nodes : 1, sizeof *e->node_pool);
    e->node_up_gpus = calloc(nodes ? nodes : 1, sizeof *e->node_up_gpus);
    if (!e->pool_first_node || !e->node_pool || !e->node_up_gpus || ledger_init(e, nodes) != TM_OK)
        return nomem(e);
    e->wake_us = PLACE_T_NEVER;
    for (size_t p = 0; p < sc->n_pools && !e->node_tenant; p++)
        if (sc->pools[p].has_tenant &&
            !(e->node_tenant = malloc((nodes ? nodes : 1) * sizeof *e->node_tenant)))
            return nomem(e);
    e->cluster.node_tenant = e->node_tenant; /* the partition rule reads the owners */
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        e->pool_first_node[p] = e->cluster.n_nodes;
        for (uint32_t k = 0; k < pc->nodes; k++) {
            uint32_t node;
            int rc = place_cluster_add_node(&e->cluster, pc->type, pc->gpus_per_node, pc->cpu_milli,
                                            pc->mem_mib, &node);
            if (rc != PLACE_OK)
                return rc == PLACE_ERR_NOMEM
                           ? nomem(e)
                           : tm_diag_set(e->diag, TM_ERR_SCENARIO, pc->name, "cannot add node: %s",
                                         place_strerror(rc));
            e->node_pool[node] = (uint32_t)p;
            if (e->node_tenant)
                e->node_tenant[node] = pc->has_tenant ? pc->tenant : PLACE_NONE;
            node_ledger(e, node); /* down: not delivered yet */
        }
        if (pc->nodes == 0)
            continue;
        if (pc->delivered_us <= 0)
            pool_set_up(e, (uint32_t)p, 1);
        else if (sim__evq_push(&e->evq, pc->delivered_us, EV_POOL_DELIVER, (uint32_t)p, 0, NULL))
            return nomem(e);
        if (pc->retired_us >= 0 &&
            sim__evq_push(&e->evq, pc->retired_us, EV_POOL_RETIRE, (uint32_t)p, 0, NULL))
            return nomem(e);
    }
    uint64_t owned = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        owned += (uint64_t)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
    sim__level_add(&e->series, SIM_LV_OWNED, e->now_us, (int64_t)owned * PLACE_MILLI_WHOLE);
    place_capacity_init(&e->capacity, &e->cluster); /* every node, delivered or not */
    /* a decision has at most one part per node */
    uint64_t cap = e->cluster.n_nodes ? e->cluster.n_nodes : 1;
    e->scratch_cap = (uint32_t)(cap < 65536 ? cap : 65536);
    e->scratch = calloc(e->scratch_cap, sizeof *e->scratch);
    if (!e->scratch)
        return nomem(e);
    return sc->failures.enabled ? build_failures(e) : TM_OK;
}

static int build_sources(engine *e)
{
    const sim_scenario *sc = e->sc;
    if (e->opts && e->opts->sources) {
        /* n_sources is set only once the array exists: engine_fini walks it */
        e->sources = calloc(e->opts->n_sources ? e->opts->n_sources : 1, sizeof *e->sources);
        if (!e->sources)
            return nomem(e);
        e->n_sources = e->opts->n_sources;
        for (size_t s = 0; s < e->n_sources; s++) {
            e->sources[s].src = e->opts->sources[s];
            int rc = source_pull(e, (uint32_t)s);
            if (rc != TM_OK)
                return rc;
        }
        return TM_OK;
    }
    e->sources = calloc(sc->n_classes ? sc->n_classes : 1, sizeof *e->sources);
    if (!e->sources)
        return nomem(e);
    e->n_sources = sc->n_classes;
    uint32_t rep = e->opts ? e->opts->replication : 0;
    for (size_t c = 0; c < sc->n_classes; c++) {
        int rc = sim_class_source_open(sc, c, rep, &e->sources[c].src, e->diag);
        if (rc != TM_OK)
            return rc;
        e->sources[c].owned = 1;
    }
    if (e->opts && e->opts->read_ahead && sc->n_classes <= SIM_READ_AHEAD_MAX_CLASSES) {
        /* the classes' jobs drawn on another core (trace_ahead_open: the
         * same jobs in the same order, so the same run); sources is an array
         * of the engine's source records, so the group takes copies */
        trace_source srcs[SIM_READ_AHEAD_MAX_CLASSES];
        for (size_t c = 0; c < sc->n_classes; c++)
            srcs[c] = e->sources[c].src;
        if (trace_ahead_open(srcs, sc->n_classes))
            for (size_t c = 0; c < sc->n_classes; c++)
                e->sources[c].src = srcs[c];
    }
    for (size_t c = 0; c < sc->n_classes; c++) {
        int rc = source_pull(e, (uint32_t)c);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

static void quant_free(sim_quantiles *q, size_t n)
{
    if (!q)
        return;
    for (size_t c = 0; c < n; c++)
        sim__quant_fini(&q[c]);
    free(q);
}

static void engine_fini(engine *e)
{
    for (size_t s = 0; s < e->n_sources; s++) {
        if (e->sources[s].owned && e->sources[s].src.close)
            e->sources[s].src.close(e->sources[s].src.ud);
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
    free(e->requeue);
    free(e->routed);
    free(e->scratch);
    free(e->pool_first_node);
    free(e->node_pool);
    free(e->node_tenant);
    free(e->node_up_gpus);
    for (uint32_t t = 0; t < PLACE_MAX_TYPES; t++) {
        free(e->tgpus[t].node);
        free(e->tgpus[t].gpu);
        if (e->tgpus[t].r_fail)
            gsl_rng_free(e->tgpus[t].r_fail);
        if (e->tgpus[t].r_repair)
            gsl_rng_free(e->tgpus[t].r_repair);
    }
    size_t nq = e->sc->n_classes + 1;
    quant_free(e->q_wait, nq);
    quant_free(e->q_tenant_wait, e->sc->n_tenants + 1);
    quant_free(e->q_completion, nq);
    quant_free(e->q_slowdown, nq);
    sim__series_fini(&e->series);
    place_instance_fini(&e->policy);
    sim__gittins_fini(&e->gittins);
    if (e->gavel) {
        sim__gavel_fini(e->gavel);
        free(e->gavel);
    }
    if (e->r_policy)
        gsl_rng_free(e->r_policy);
    place_cluster_fini(&e->cluster);
    sim__evq_fini(&e->evq);
    free(e->hook_d);
    free(e->hook_parts);
    free(e->w_class);
    free(e->w_tenant);
    free(e->w_pool);
    free(e->w_type);
    free(e->wv_class);
    free(e->wv_tenant);
    free(e->wr_pool);
    free(e->wr_type);
    free(e->wr_svc);
    ledger_fini(&e->led);
    svcs_fini(e);
    free(e->cspecial);
}

/* Rows for the jobs still in flight at the end: the queue in arrival order,
 * then the running jobs by id, so that output is deterministic. */
static int emit_unfinished(engine *e)
{
    for (uint32_t i = e->q_head; i < e->q_tail; i++) {
        job *j = slot_job(e, e->q_slot[i]);
        if (j->svc)
            continue;
        cls_res(e, j->pj.cls)->queued_end++;
        all_res(e)->queued_end++;
        job_close(e, j);
        int rc = emit_row(e, j, SIM_JOB_QUEUED, SIM_REJECT_NONE);
        if (rc != TM_OK)
            return rc;
    }
    uint32_t n = e->n_run;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return nomem(e);
    if (n)
        memcpy(order, e->r_slot, n * sizeof *order);
    /* insertion sort by id: the running set at the end is small next to the run */
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
        if (j->svc)
            continue;
        sim_class_result *cr = cls_res(e, j->pj.cls), *ar = all_res(e);
        cr->running_end++;
        ar->running_end++;
        /* accounted up to the end of the run, as if it stopped there */
        int64_t milli = job_milli(j), el = e->now_us - j->run_start_us;
        int64_t ov = el < j->run_overhead_us ? el : j->run_overhead_us;
        j->busy_gpu_s += gpu_s(milli, el - ov);
        j->lost_gpu_s += gpu_s(milli, ov);
        cr->gpu_s_alloc += gpu_s(milli, el);
        ar->gpu_s_alloc += gpu_s(milli, el);
        j->alloc_gpu_s += gpu_s(milli, el);
        cr->gpu_s_lost += gpu_s(milli, ov);
        ar->gpu_s_lost += gpu_s(milli, ov);
        e->res->gpu_s_lost += gpu_s(milli, ov);
        /* its progress so far survived to the end, as its goodput does */
        double done = (double)(el - ov) * j->run_speed;
        work_credit(e, j, done < (double)j->remaining_ref_us ? (int64_t)done : j->remaining_ref_us);
        job_close(e, j);
        int64_t end = j->end_us;
        j->end_us = -1;
        rc = emit_row(e, j, SIM_JOB_RUNNING, SIM_REJECT_NONE);
        j->end_us = end;
    }
    free(order);
    return rc;
}

static double level_gpu_s(const engine *e, size_t i)
{
    return (double)sim__level_total(&e->series, i) / PLACE_MILLI_WHOLE / SIM_US_PER_S;
}

/* milli-GPU x microseconds as GPU-seconds */
static double area_gpu_s(double a)
{
    return a / PLACE_MILLI_WHOLE / SIM_US_PER_S;
}

/* The useful work of the run (docs/output.md, "useful work"): replicas still
 * placed are brought up to the end first. */
static void finish_work(engine *e)
{
    sim_result *r = e->res;
    const sim_scenario *sc = e->sc;
    for (uint32_t i = 0; i < e->n_run; i++) {
        job *j = slot_job(e, e->r_slot[i]);
        if (j->svc)
            replica_work_flush(e, j);
    }
    double span_s = (double)e->now_us / SIM_US_PER_S;
    r->gpu_s_owned = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        double g = (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
        r->pools[p].owned = g * span_s;
        r->pools[p].work_ref = area_gpu_s((double)e->w_pool[p] + e->wr_pool[p]);
        r->types[sc->pools[p].type].owned += g * span_s;
        r->gpu_s_owned += g * span_s;
    }
    for (size_t t = 0; t < sc->n_types; t++)
        r->types[t].work_ref = area_gpu_s((double)e->w_type[t] + e->wr_type[t]);
    sim__area all = 0;
    double all_v = 0;
    for (size_t c = 0; c < sc->n_classes; c++) {
        r->classes[c].work_ref_gpu_s = area_gpu_s((double)e->w_class[c]);
        r->classes[c].value_work_ref_gpu_s = area_gpu_s(e->wv_class[c]);
        all += e->w_class[c];
        all_v += e->wv_class[c];
    }
    r->classes[sc->n_classes].work_ref_gpu_s = area_gpu_s((double)all);
    r->classes[sc->n_classes].value_work_ref_gpu_s = area_gpu_s(all_v);
    for (size_t k = 0; k <= sc->n_tenants; k++) {
        r->tenants[k].work_ref_gpu_s = area_gpu_s((double)e->w_tenant[k]);
        r->tenants[k].value_work_ref_gpu_s = area_gpu_s(e->wv_tenant[k]);
    }
    double svc_s = 0;
    for (size_t v = 0; v < sc->n_services; v++) {
        r->services[v].work_ref_gpu_hours = area_gpu_s(e->wr_svc[v]) / 3600;
        svc_s += area_gpu_s(e->wr_svc[v]);
    }
    r->work_ref_gpu_s = r->classes[sc->n_classes].work_ref_gpu_s + svc_s;
    r->value_work_ref_gpu_s = r->classes[sc->n_classes].value_work_ref_gpu_s + svc_s;
    r->work_util = r->gpu_s_owned > 0 ? r->work_ref_gpu_s / r->gpu_s_owned : 0.0;
    r->value_util = r->gpu_s_owned > 0 ? r->value_work_ref_gpu_s / r->gpu_s_owned : 0.0;
}

/* The ledger's cells up to now, into the result; TM_ERR_INTERNAL unless
 * every pool's and consumer's buckets add up to the owned GPU-time exactly. */
static int finish_ledger(engine *e)
{
    const sim_scenario *sc = e->sc;
    ledger *L = &e->led;
    sim_result *r = e->res;
    if (L->stale)
        ledger_idle(e, NULL);
    sim_ledger by_cons;
    memset(&r->ledger, 0, sizeof r->ledger);
    memset(&by_cons, 0, sizeof by_cons);
    r->owned_area = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        sim__area owned = (sim__area)sc->pools[p].nodes * sc->pools[p].gpus_per_node *
                          PLACE_MILLI_WHOLE * e->now_us,
                  sum = 0;
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            sim__area total = cell_total(&L->pc[p * SIM_LEDGER_COUNT + (size_t)b], e->now_us);
            r->ledger_pools[p].a[b] = total;
            r->ledger.a[b] += total;
            sum += total;
            if (total < 0)
                return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                                   "ledger: pool %zu's %s is negative", p, sim_ledger_key(b));
        }
        if (sum != owned)
            return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                               "ledger: pool %zu's buckets add up to %.9g GPU-h of %.9g owned", p,
                               (double)sum / SIM_AREA_PER_GPU_HOUR,
                               (double)owned / SIM_AREA_PER_GPU_HOUR);
        r->owned_area += owned;
    }
    for (uint32_t k = 0; k < L->n_cons; k++)
        for (int b = 0; b < SIM_LEDGER_COUNT; b++) {
            sim__area total =
                cell_total(&L->cc[(size_t)k * SIM_LEDGER_COUNT + (size_t)b], e->now_us);
            r->ledger_consumers[k].a[b] = total;
            by_cons.a[b] += total;
        }
    for (int b = 0; b < SIM_LEDGER_COUNT; b++)
        if (by_cons.a[b] != r->ledger.a[b])
            return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                               "ledger: %s is %.9g GPU-h by consumer, %.9g by pool",
                               sim_ledger_key(b), (double)by_cons.a[b] / SIM_AREA_PER_GPU_HOUR,
                               (double)r->ledger.a[b] / SIM_AREA_PER_GPU_HOUR);
    return TM_OK;
}

static void finish_results(engine *e)
{
    sim_result *r = e->res;
    const sim_scenario *sc = e->sc;
    r->t_end_us = e->now_us;
    r->gpu_s_up = level_gpu_s(e, SIM_LV_UP);
    r->gpu_s_alloc = level_gpu_s(e, SIM_LV_ALLOC);
    r->gpu_s_busy = level_gpu_s(e, SIM_LV_BUSY);
    r->gpu_s_goodput = r->gpu_s_busy - (double)e->series.lost / PLACE_MILLI_WHOLE / SIM_US_PER_S;
    r->gpu_s_idle = r->gpu_s_up - r->gpu_s_alloc;
    for (int k = 0; k < SIM_BLOCK_COUNT; k++)
        r->gpu_s_blocked[k] = level_gpu_s(e, (size_t)(SIM_LV_BLOCKED + k));
    double up = r->gpu_s_up;
    r->alloc_util = up > 0 ? r->gpu_s_alloc / up : 0.0;
    r->busy_util = up > 0 ? r->gpu_s_busy / up : 0.0;
    r->goodput_util = up > 0 ? r->gpu_s_goodput / up : 0.0;
    double span = (double)e->now_us;
    r->queue_len_mean = span > 0 ? (double)sim__level_total(&e->series, SIM_LV_QUEUE) / span : 0.0;
    r->running_mean = span > 0 ? (double)sim__level_total(&e->series, SIM_LV_RUNNING) / span : 0.0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        r->pools[p].up = level_gpu_s(e, sim_level_pool(sc, p, SIM_LV_K_UP));
        r->pools[p].alloc = level_gpu_s(e, sim_level_pool(sc, p, SIM_LV_K_ALLOC));
        r->pools[p].busy = level_gpu_s(e, sim_level_pool(sc, p, SIM_LV_K_BUSY));
    }
    for (size_t t = 0; t < sc->n_types; t++) {
        r->types[t].up = level_gpu_s(e, sim_level_type(sc, t, SIM_LV_K_UP));
        r->types[t].alloc = level_gpu_s(e, sim_level_type(sc, t, SIM_LV_K_ALLOC));
        r->types[t].busy = level_gpu_s(e, sim_level_type(sc, t, SIM_LV_K_BUSY));
    }
    finish_work(e);
    for (size_t c = 0; c <= r->n_classes; c++) {
        sim_class_result *cr = &r->classes[c];
        const double us = SIM_US_PER_S;
        cr->wait_mean_s = cr->started ? cr->wait_sum_s / (double)cr->started : 0.0;
        cr->wait_p50_s = sim__quant_get(&e->q_wait[c], 0.50) / us;
        cr->wait_p95_s = sim__quant_get(&e->q_wait[c], 0.95) / us;
        cr->wait_p99_s = sim__quant_get(&e->q_wait[c], 0.99) / us;
        cr->wait_max_s = (double)e->q_wait[c].max / us;
        double done = cr->completed ? (double)cr->completed : 1.0;
        cr->slowdown_mean /= done;
        cr->completion_mean_s /= done;
        cr->completion_p50_s = sim__quant_get(&e->q_completion[c], 0.50) / us;
        cr->completion_p95_s = sim__quant_get(&e->q_completion[c], 0.95) / us;
        cr->completion_p99_s = sim__quant_get(&e->q_completion[c], 0.99) / us;
        cr->slowdown_p50 = sim__quant_get(&e->q_slowdown[c], 0.50) / SLOWDOWN_SCALE;
        cr->slowdown_p95 = sim__quant_get(&e->q_slowdown[c], 0.95) / SLOWDOWN_SCALE;
        cr->slowdown_p99 = sim__quant_get(&e->q_slowdown[c], 0.99) / SLOWDOWN_SCALE;
    }
    for (size_t t = 0; t <= sc->n_tenants; t++) {
        sim_tenant_result *tr = &r->tenants[t];
        tr->wait_mean_s = tr->started ? tr->wait_sum_s / (double)tr->started : 0.0;
        tr->wait_p50_s = sim__quant_get(&e->q_tenant_wait[t], 0.50) / SIM_US_PER_S;
        tr->wait_p95_s = sim__quant_get(&e->q_tenant_wait[t], 0.95) / SIM_US_PER_S;
    }
}

static int check_state(engine *e)
{
    if (place_cluster_verify(&e->cluster) != PLACE_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "cluster invariant broken at %lld us", (long long)e->now_us);
    int64_t milli = 0, busy = 0, work = 0, vwork = 0;
    for (uint32_t i = 0; i < e->n_run; i++) {
        const job *j = slot_job(e, e->r_slot[i]);
        if (j->state != SIM_JOB_RUNNING || j->pos != i)
            return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "running set broken");
        milli += job_milli(j);
        busy += j->busy_milli;
        work += j->work_lv;
        vwork += j->value_lv;
    }
    if (work != e->series.lv[SIM_LV_WORK].value || vwork != e->series.lv[SIM_LV_VALUE_WORK].value)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "work levels broken at %lld us: %lld vs %lld (value %lld vs %lld)",
                           (long long)e->now_us, (long long)e->series.lv[SIM_LV_WORK].value,
                           (long long)work, (long long)e->series.lv[SIM_LV_VALUE_WORK].value,
                           (long long)vwork);
    for (uint32_t i = e->q_head; i < e->q_tail; i++) {
        const job *j = slot_job(e, e->q_slot[i]);
        if (j->state != SIM_JOB_QUEUED || j->pos != i ||
            (i > e->q_head && e->q_jobs[i - 1].id >= e->q_jobs[i].id))
            return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "queue broken at %u", i);
    }
    /* GPU-time conservation: the allocated level is what the running jobs hold,
     * and the cluster agrees on how much is taken */
    uint64_t up_gpus = 0;
    for (uint32_t n = 0; n < e->cluster.n_nodes; n++)
        up_gpus += e->node_up_gpus[n];
    const sim__level *lv = e->series.lv;
    if (milli != lv[SIM_LV_ALLOC].value || busy != lv[SIM_LV_BUSY].value ||
        lv[SIM_LV_RUNNING].value != (int64_t)e->n_run ||
        lv[SIM_LV_QUEUE].value != (int64_t)(e->q_tail - e->q_head) ||
        lv[SIM_LV_UP].value != (int64_t)up_gpus * PLACE_MILLI_WHOLE)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "counters broken at %lld us: alloc %lld vs %lld milli-GPU, busy %lld vs "
                           "%lld, running %lld vs %u, queue %lld vs %u",
                           (long long)e->now_us, (long long)lv[SIM_LV_ALLOC].value,
                           (long long)milli, (long long)lv[SIM_LV_BUSY].value, (long long)busy,
                           (long long)lv[SIM_LV_RUNNING].value, e->n_run,
                           (long long)lv[SIM_LV_QUEUE].value, e->q_tail - e->q_head);
    if (sim__evq_check(&e->evq) != TM_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "event queue invariant broken");
    /* the ledger: once the idle GPU-time is classified, each pool's cells hold
     * exactly its GPUs, and the consumers' cells the same in all */
    if (!e->led.stale) {
        int64_t all = 0, by_cons = 0;
        for (size_t p = 0; p < e->sc->n_pools; p++) {
            int64_t sum = 0;
            for (int b = 0; b < SIM_LEDGER_COUNT; b++)
                sum += e->led.pc[p * SIM_LEDGER_COUNT + (size_t)b].value;
            int64_t want =
                (int64_t)e->sc->pools[p].nodes * e->sc->pools[p].gpus_per_node * PLACE_MILLI_WHOLE;
            if (sum != want)
                return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                                   "ledger of pool %zu holds %lld milli-GPU of %lld at %lld us", p,
                                   (long long)sum, (long long)want, (long long)e->now_us);
            all += sum;
        }
        for (size_t k = 0; k < (size_t)e->led.n_cons * SIM_LEDGER_COUNT; k++)
            by_cons += e->led.cc[k].value;
        if (by_cons != all)
            return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                               "ledger: consumers hold %lld milli-GPU, pools %lld at %lld us",
                               (long long)by_cons, (long long)all, (long long)e->now_us);
    }
    return TM_OK;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------- */
/* the lean loop                                                              */
/*
 * Most runs of a queueing model (an M/M/c queue, a FIFO fleet of one-GPU
 * servers) never use what makes the general loop general: gangs, shares,
 * preemption, failures, services, reservations. For those runs lean_qualifies
 * chooses a second loop, run_loop_lean, whose results are the general loop's
 * to the bit (test_lean runs both and compares every result, bin and row).
 *
 * It qualifies when (lean_qualifies): the policy claims
 * PLACE_POLICY_FIFO_FIRST_FREE (order=fifo placement=first-fit, backfill none
 * or greedy, nothing else); every node has one GPU and is in service from the
 * start to the end (no deliveries, retirements or failures); no pool has a
 * tenant owner; no services, no class that specializes, no Gavel or Gittins
 * state; the jobs come from the scenario's classes, each of a constant GPU
 * count of 1, no share or slices, and no GPU type or memory demand some node
 * could refuse; and the run has no invariant checks, pass hook, policy table
 * or forced general loop (sim_run_opts.loop). A job that breaks these (it
 * cannot come from such classes) stops the run with TM_ERR_INTERNAL.
 *
 * What it does differently, and why each is the same:
 * - The pass: such a policy starts the waiting jobs in queue order, each on
 *   the lowest-index free node, until no GPU is free (place.h,
 *   PLACE_POLICY_FIFO_FIRST_FREE). The loop makes exactly these decisions
 *   itself, from a two-level bit set of free nodes (lean_nodes), without
 *   calling the placement core: no view, no place_pass_run, no check, no
 *   place_cluster_take/give. The cluster keeps its initial state (nothing
 *   reads it after the run but the node types, which do not change).
 * - The GPU-hour ledger: with every node up, a node's down capacity stays 0;
 *   after a pass, either nothing waits (the free GPUs are idle, "no wait") or
 *   no GPU is free. So the free GPU-time is always in the idle bucket of its
 *   pool and of the "none" consumer, and a start or an end moves one GPU
 *   between that bucket and the job's busy bucket directly, where the general
 *   loop moves it through the per-node free counts and ledger_idle at the end
 *   of each instant. Changes of one instant add up whatever their order:
 *   cells hold integers, so the totals are the same. The per-node and per-pool
 *   free counts (n_whole, p_whole, ...) are not kept.
 * - The shape-blocked levels stay 0 (no GPU is free while a job waits), as
 *   update_blocked would leave them.
 * - The queue is q_slot alone (no place_job copies, no states are written;
 *   queue_reserve still grows their arrays alongside, unused); the running
 *   set is r_slot alone (no place_running entries, no end estimates); a job's
 *   record is filled, not cleared (lean_admit).
 * - The job ends wait in a heap of the loop's own (lean_nodes.ends), not in
 *   the engine's event queue: nothing else is ever pending (no failures,
 *   deliveries, wakes or ticks) and nothing is cancelled, so the queue's
 *   handles, payload slots and kinds are not needed. The heap orders ends by
 *   time, then by push, which is the order the event queue gives events of
 *   one kind; arrivals come from the sources and go after ends at equal
 *   times, as in loop_next.
 * Cost per job: O(log running) for the heap, O(nodes / 4096) for the
 * decision, O(1) for the rest.
 * Everything else (the job records, levels, quantiles, results, rows, the
 * order of every floating-point sum and of the ends' pushes) goes through the
 * same code or the same steps in the same order.
 */

/* A pending job end of the lean loop: the general loop's EV_JOB_END event
 * without its payload slot and handle (nothing cancels a lean run's ends).
 * key: the end's time (biased to unsigned) in the high 64 bits and the push's
 * number in the low 64, so ends are ordered by time, then by push: the order
 * the general event queue gives events of one kind. */
__extension__ typedef unsigned __int128 lean_key;
typedef struct lean_end {
    lean_key key;
    uint32_t slot;
} lean_end;

#define LEAN_KEY_NONE (~(lean_key)0) /* a sentinel: after every end */

typedef struct lean_nodes {
    uint64_t *w, *sum;
    uint32_t n_w, n_sum;
    lean_end *ends;
    uint32_t n_ends, cap_ends;
    uint64_t pushes; /* ends pushed so far: the next end's number */
    /* the level of all pools' allocated GPUs mirrors the one pool with
     * nodes (lean_aliases) */
    int one_pool;
    /* the work levels of the last start's speed and value (run_begin's
     * rounding, done again only when either changes) */
    double last_speed, last_value;
    int64_t last_work_lv, last_value_lv;
} lean_nodes;

static uint32_t lean_lowest(const lean_nodes *f)
{
    for (uint32_t k = 0; k < f->n_sum; k++)
        if (f->sum[k]) {
            uint32_t i = k * 64u + (uint32_t)__builtin_ctzll(f->sum[k]);
            return i * 64u + (uint32_t)__builtin_ctzll(f->w[i]);
        }
    return PLACE_NONE;
}

static void lean_take(lean_nodes *f, uint32_t n)
{
    uint32_t i = n >> 6;
    f->w[i] &= ~(1ull << (n & 63u));
    if (!f->w[i])
        f->sum[i >> 6] &= ~(1ull << (i & 63u));
}

static void lean_give(lean_nodes *f, uint32_t n)
{
    uint32_t i = n >> 6;
    if (!f->w[i])
        f->sum[i >> 6] |= 1ull << (i & 63u);
    f->w[i] |= 1ull << (n & 63u);
}

static inline int64_t lean_end_time(const lean_end *x)
{
    return (int64_t)((uint64_t)(x->key >> 64) ^ (UINT64_C(1) << 63));
}

/* The heap: ends[0, n_ends) with ends[i]'s children at 2i + 1 and 2i + 2;
 * ends[n_ends, cap_ends) hold LEAN_KEY_NONE, and cap_ends >= n_ends + 2, so a
 * parent's second child can be read without testing that it exists. The
 * choices between children are made without branches: the keys are random,
 * and a mispredicted branch costs more here than the few instructions saved. */
/* Put x at the hole h[i], or above it where its parents come after it. */
static inline void lean_end_up(lean_end *h, uint32_t i, lean_end x)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!(x.key < h[p].key))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static int lean_end_push(lean_nodes *f, int64_t t_us, uint32_t slot)
{
    if (f->n_ends + 2 >= f->cap_ends) {
        uint32_t old = f->cap_ends;
        if (grow((void **)&f->ends, &f->cap_ends, f->n_ends + 3, sizeof *f->ends, 64))
            return TM_ERR_NOMEM;
        for (uint32_t k = old; k < f->cap_ends; k++)
            f->ends[k].key = LEAN_KEY_NONE;
    }
    lean_end x = {.key = (lean_key)((uint64_t)t_us ^ (UINT64_C(1) << 63)) << 64 | f->pushes++,
                  .slot = slot};
    lean_end_up(f->ends, f->n_ends++, x);
    return TM_OK;
}

/* Remove the first end (there is one): the hole at the root goes down to a
 * leaf along the lesser children, and the last end goes up from there (it
 * seldom moves: it was a leaf). */
static inline void lean_end_pop(lean_nodes *f)
{
    lean_end *h = f->ends;
    uint32_t n = --f->n_ends, i = 0;
    lean_end x = h[n];
    h[n].key = LEAN_KEY_NONE;
    for (uint32_t c = 1; c < n; c = 2 * i + 1) {
        c += h[c + 1].key < h[c].key;
        h[i] = h[c];
        i = c;
    }
    lean_end_up(h, i, x);
}

/* Can job tj run in the lean loop: one whole GPU, nothing a node could
 * refuse (types: the fleet's GPU types; min_mem: their least memory). */
static int lean_job_ok(const trace_job *tj, uint64_t types, uint32_t min_mem)
{
    return tj->gpus == 1 && tj->gpu_milli == PLACE_MILLI_WHOLE && tj->cpu_milli == 0 &&
           tj->host_mem_mib == 0 && tj->gpu_mem_mib <= min_mem &&
           (!tj->type_mask || !(types & ~tj->type_mask)) && !(tj->flags & PLACE_JOB_SERVICE);
}

/* The fleet's least GPU memory over the types it has. */
static uint32_t lean_min_mem(const engine *e)
{
    uint32_t m = UINT32_MAX;
    for (uint64_t k = e->capacity.types; k; k &= k - 1)
        if (e->sc->types[__builtin_ctzll(k)].mem_mib < m)
            m = e->sc->types[__builtin_ctzll(k)].mem_mib;
    return m;
}

/* Does the run qualify for the lean loop (the conditions above)? */
static int lean_qualifies(const engine *e)
{
    const sim_scenario *sc = e->sc;
    const sim_run_opts *o = e->opts;
    if (o && (o->loop == SIM_LOOP_GENERAL || o->check_invariants || o->pass_hook ||
              o->policy_table || o->sources))
        return 0;
    if (!(place_spec_props(sc->policy) & PLACE_POLICY_FIFO_FIRST_FREE))
        return 0;
    if (e->gavel || e->gittins.n_classes || e->n_svcs || sc->n_services || e->cspecial ||
        sc->failures.enabled || e->node_tenant || e->cluster.n_nodes == 0 ||
        sim__evq_pending(&e->evq) != 0 || e->cluster.n_nodes > SIM__EVQ_CAP_MAX)
        return 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        if (pc->nodes && (pc->gpus_per_node != 1 || pc->delivered_us > 0 || pc->retired_us >= 0))
            return 0;
    }
    uint32_t min_mem = lean_min_mem(e);
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_cfg *cc = &sc->classes[c];
        if (cc->special || cc->has_share || cc->slices || cc->gpus.kind != TRACE_DIST_CONSTANT ||
            !(cc->gpus.p[0] < 1.5) || cc->gpu_mem_mib > min_mem ||
            (cc->type_mask && (e->capacity.types & ~cc->type_mask)) ||
            (cc->flags & PLACE_JOB_SERVICE))
            return 0;
    }
    return 1;
}

/* A change of m at the run's present instant, whose m x now is mt: a level's
 * or a ledger cell's (sim__level_add, cell_add) with the product formed once
 * for all the changes of one start or end. */
static inline void lean_level_add(sim__level *l, int64_t m, sim__area mt)
{
    l->value += m;
    l->wsum += mt;
}

static inline void lean_cell_add(ledger_cell *c, int64_t m, sim__area mt)
{
    c->value += m;
    c->wsum += mt;
}

/* A start or an end (sign 1 or -1) of job j's run on one-GPU node `node`:
 * levels_batch_run, with the node's GPU moved between the idle bucket and
 * the job's busy bucket (see above). */
static inline void lean_levels_run(engine *e, const lean_nodes *f, job *j, uint32_t node, int sign)
{
    const sim_scenario *sc = e->sc;
    sim__level *lv = e->series.lv;
    int64_t m = sign * (int64_t)PLACE_MILLI_WHOLE;
    sim__area mt = (sim__area)m * e->now_us;
    uint32_t pool = e->node_pool[node], t = e->cluster.node_type[node];
    size_t lp = sim_level_pool(sc, pool, 0);
    lean_level_add(&lv[lp + SIM_LV_K_ALLOC], m, mt);
    if (!e->type_mirrors[t])
        lean_level_add(&lv[sim_level_type(sc, t, SIM_LV_K_ALLOC)], m, mt);
    if (!f->one_pool)
        lean_level_add(&lv[SIM_LV_ALLOC], m, mt);
    if (!e->cls_mirrors)
        lean_level_add(&lv[sim_level_class(sc, j->pj.cls, SIM_LV_C_ALLOC)], m, mt);
    ledger *L = &e->led;
    size_t b = j->value > 0 ? SIM_LEDGER_USEFUL_VALUED : SIM_LEDGER_USEFUL_NO_VALUE;
    ledger_cell *pc = &L->pc[(size_t)pool * SIM_LEDGER_COUNT];
    lean_cell_add(&pc[b], m, mt);
    lean_cell_add(&pc[SIM_LEDGER_IDLE], -m, -mt);
    lean_cell_add(&L->cc[(size_t)j->pj.cls * SIM_LEDGER_COUNT + b], m, mt);
    lean_cell_add(&L->cc[(size_t)(L->n_cons - 1) * SIM_LEDGER_COUNT + SIM_LEDGER_IDLE], -m, -mt);
    /* levels_work_set: a batch run's work levels, all or nothing */
    int64_t wl = sign > 0 ? j->run_work_lv : 0, vl = sign > 0 ? j->run_value_lv : 0;
    if (wl != j->work_lv)
        sim__level_add(&e->series, SIM_LV_WORK, e->now_us, wl - j->work_lv);
    if (vl != j->value_lv)
        sim__level_add(&e->series, SIM_LV_VALUE_WORK, e->now_us, vl - j->value_lv);
    j->work_lv = wl;
    j->value_lv = vl;
    j->busy_milli = sign > 0 ? PLACE_MILLI_WHOLE : 0;
}

static void lean_levels_queue(engine *e, const job *j, int delta)
{
    sim__level_add(&e->series, SIM_LV_QUEUE, e->now_us, delta);
    if (!e->cls_mirrors)
        sim__level_add(&e->series, sim_level_class(e->sc, j->pj.cls, SIM_LV_C_QUEUE), e->now_us,
                       delta);
}

/* admit, for a job that qualifies (never rejected: some node fits it). The
 * record is not cleared: the fields the lean loop and the end of the run
 * read are set here or at its start, and the others stay as the zeroed page
 * left them (no other loop runs in this engine). */
static int lean_admit(engine *e, const trace_job *tj, uint64_t types, uint32_t min_mem)
{
    if (!lean_job_ok(tj, types, min_mem))
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine",
                           "job %llu does not fit the lean loop it was run in",
                           (unsigned long long)tj->id);
    int rc;
    if (e->free_head == NO_SLOT && (rc = slot_page_add(e)) != TM_OK)
        return rc;
    uint32_t slot = e->free_head;
    job *j = slot_job(e, slot);
    e->free_head = j->next_free;
    j->gen++;
    j->num = ++e->arrivals;
    j->pj.id = ++e->seq;
    j->pj.submit_us = tj->submit_us;
    j->pj.deadline_us = tj->deadline_us;
    j->pj.speed = tj->speed ? tj->speed : e->sc->classes[tj->cls].speed;
    j->pj.gpus = tj->gpus;
    j->pj.gpu_milli = tj->gpu_milli;
    j->pj.gpu_mem_mib = tj->gpu_mem_mib;
    j->pj.tenant = tj->tenant;
    j->pj.cls = tj->cls;
    j->trace_id = tj->id;
    j->remaining_ref_us = tj->duration_us;
    j->first_start_us = -1;
    j->end_us = -1;
    j->deadline_us = tj->deadline_us;
    j->value = tj->value;
    j->busy_gpu_s = j->lost_gpu_s = j->alloc_gpu_s = 0;
    j->work_ref_us = 0;
    j->parts = &j->part0;
    j->cap_parts = 1;
    cls_res(e, tj->cls)->arrived++;
    all_res(e)->arrived++;
    e->res->tenants[tenant_slot(e, j)].arrived++;
    e->series.b_arrivals++;
    e->batch_in_flight++;
    if (e->q_tail == e->q_cap && e->q_head > 0) {
        uint32_t n = e->q_tail - e->q_head;
        memmove(e->q_slot, e->q_slot + e->q_head, n * sizeof *e->q_slot);
        e->q_head = 0;
        e->q_tail = n;
    }
    if (e->q_tail == e->q_cap && (rc = queue_reserve(e, e->q_tail + 1)) != TM_OK)
        return rc;
    e->q_slot[e->q_tail++] = slot;
    j->state = SIM_JOB_QUEUED;
    lean_levels_queue(e, j, 1);
    e->dirty = 1;
    return TM_OK;
}

/* run_begin for a job of the lean loop, on node `node` (taken). */
static int lean_start(engine *e, lean_nodes *f, uint32_t slot, uint32_t node)
{
    job *j = slot_job(e, slot);
    j->parts[0] = (place_part){.node = node,
                               .gpus = 1,
                               .gpu = PLACE_GPU_ANY,
                               .milli = PLACE_MILLI_WHOLE,
                               .mem_mib = j->pj.gpu_mem_mib};
    j->n_parts = 1;
    lean_levels_queue(e, j, -1);
    uint32_t t = e->cluster.node_type[node];
    double speed = j->pj.speed ? j->pj.speed[t] : 1.0;
    if (!(speed > 0))
        speed = 1.0;
    j->run_speed = speed;
    if (speed != f->last_speed || j->value != f->last_value) {
        double w = (double)job_milli(j) * speed * (SIM_WORK_SCALE / PLACE_MILLI_WHOLE);
        f->last_speed = speed;
        f->last_value = j->value;
        f->last_work_lv = round_half_away(w);
        f->last_value_lv = round_half_away(w * j->value);
    }
    j->run_work_lv = f->last_work_lv;
    j->run_value_lv = f->last_value_lv;
    j->run_start_us = e->now_us;
    j->run_overhead_us = 0;
    /* run_begin's ceil(remaining / speed), without the division at speed 1
     * (x / 1 is x, and an integer's ceiling is itself) */
    double wall =
        speed == 1.0 ? (double)j->remaining_ref_us : ceil((double)j->remaining_ref_us / speed);
    int64_t run = wall < (double)SIM_T_MAX_US ? (int64_t)wall : SIM_T_MAX_US;
    j->end_us = run > INT64_MAX - e->now_us ? INT64_MAX : e->now_us + run;
    if (lean_end_push(f, j->end_us, slot) != TM_OK)
        return nomem(e);
    j->in_overhead = 0;
    lean_levels_run(e, f, j, node, 1);
    if (j->first_start_us < 0)
        first_start(e, j);
    j->state = SIM_JOB_RUNNING;
    e->series.b_starts++;
    sim__level_add(&e->series, SIM_LV_RUNNING, e->now_us, 1);
    uint32_t cap = e->r_cap;
    if (grow((void **)&e->r_slot, &cap, e->n_run + 1, sizeof *e->r_slot, 256))
        return nomem(e);
    e->r_cap = cap;
    e->r_slot[e->n_run] = slot;
    j->pos = e->n_run++;
    return TM_OK;
}

/* schedule_pass for the lean loop: the waiting jobs in order, each on the
 * lowest free node, while one is free. */
static int lean_pass(engine *e, lean_nodes *f)
{
    e->dirty = 0;
    if (e->q_head == e->q_tail)
        return TM_OK;
    e->res->passes++;
    while (e->q_head < e->q_tail) {
        uint32_t n = lean_lowest(f);
        if (n == PLACE_NONE)
            break;
        lean_take(f, n);
        int rc = lean_start(e, f, e->q_slot[e->q_head++], n);
        if (rc != TM_OK)
            return rc;
    }
    if (e->q_head == e->q_tail)
        e->q_head = e->q_tail = 0;
    return TM_OK;
}

/* job_end for the lean loop. */
static int lean_job_end(engine *e, lean_nodes *f, uint32_t slot)
{
    job *j = slot_job(e, slot);
    if (j->state != SIM_JOB_RUNNING)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "completion of a job not running");
    /* job_end's GPU-seconds for a whole GPU and no restart overhead, without
     * its divisions: gpu_s(1000, el) is (1.0 x el) / 10^6, which is el / 10^6
     * to the bit, and the overhead's gpu_s(1000, 0) is 0, which leaves
     * lost_gpu_s as it is */
    int64_t milli = PLACE_MILLI_WHOLE, el = e->now_us - j->run_start_us;
    double el_gpu_s = (double)el / SIM_US_PER_S;
    j->busy_gpu_s += el_gpu_s;
    uint32_t node = j->parts[0].node;
    if (j->remaining_ref_us > 0) { /* work_credit, for one part */
        int64_t ref_us = j->remaining_ref_us;
        j->work_ref_us += ref_us;
        sim__area a = (sim__area)ref_us * milli;
        uint32_t tn = tenant_slot(e, j);
        e->w_class[j->pj.cls] += a;
        e->w_tenant[tn] += a;
        if (j->value != 0) {
            /* (double)a without the 128-bit conversion's call where a fits
             * 64 bits: the same integer, so the same rounding */
            double ad =
                ref_us <= INT64_MAX / PLACE_MILLI_WHOLE ? (double)(ref_us * milli) : (double)a;
            e->wv_class[j->pj.cls] += ad * j->value;
            e->wv_tenant[tn] += ad * j->value;
        }
        e->w_pool[e->node_pool[node]] += a;
        e->w_type[e->cluster.node_type[node]] += a;
    }
    j->remaining_ref_us = 0;
    lean_give(f, node);
    lean_levels_run(e, f, j, node, -1);
    uint32_t i = j->pos, last = --e->n_run;
    if (i != last) {
        e->r_slot[i] = e->r_slot[last];
        slot_job(e, e->r_slot[i])->pos = i;
    }
    sim__level_add(&e->series, SIM_LV_RUNNING, e->now_us, -1);
    return job_done(e, j, slot, 0.0, el_gpu_s);
}

/* Both loops' steps that are the same: the stop flag's error, the next
 * event (the next arrival, when it comes before every heap event; at equal
 * times the heap's events go first: *src is then UINT32_MAX, and the event
 * is still in the heap), and the series carried to the horizon at the end. */
static int loop_interrupted(engine *e)
{
    return tm_diag_set(e->diag, TM_ERR_INTERRUPTED, "run",
                       "stopped by a signal at simulated time %.3f s",
                       (double)e->now_us / SIM_US_PER_S);
}

static inline int loop_next(engine *e, sim__event *ev, uint32_t *src)
{
    int have = sim__evq_peek(&e->evq, ev) == TM_OK;
    uint32_t s = e->next_source;
    if (s != UINT32_MAX && (!have || e->sources[s].next.submit_us < ev->t_us)) {
        have = 1;
        ev->t_us = e->sources[s].next.submit_us;
        ev->kind = EV_ARRIVAL;
        ev->a = s;
    } else if (have) {
        s = UINT32_MAX;
    }
    *src = s;
    return have;
}

/* loop_next for the lean loop, whose job ends are in lean_nodes.ends. */
static inline int lean_next(engine *e, const lean_nodes *f, sim__event *ev, uint32_t *src)
{
    int have = f->n_ends > 0;
    uint32_t s = e->next_source;
    if (s != UINT32_MAX && (!have || e->sources[s].next.submit_us < lean_end_time(&f->ends[0]))) {
        have = 1;
        ev->t_us = e->sources[s].next.submit_us;
        ev->kind = EV_ARRIVAL;
        ev->a = s;
    } else if (have) {
        ev->t_us = lean_end_time(&f->ends[0]);
        ev->kind = EV_JOB_END;
        ev->a = f->ends[0].slot;
        s = UINT32_MAX;
    }
    *src = s;
    return have;
}

static int loop_to_horizon(engine *e)
{
    if (e->sc->stop == SIM_STOP_HORIZON && e->now_us < e->sc->horizon_us) {
        int rc = sim__series_advance(&e->series, e->sc->horizon_us, e->sink, e->diag);
        if (rc != TM_OK)
            return rc;
        e->now_us = e->sc->horizon_us;
    }
    return TM_OK;
}

/* The levels a lean run changes together, made mirrors before it starts
 * (sim__series_alias), so that a start or an end changes one of each: no job
 * has a restart overhead, so every busy level (pools', types', the fleet's)
 * equals its allocated level; and with one pool of nodes the fleet's
 * allocated level equals that pool's. */
static int lean_alias(engine *e, size_t level, size_t mirrored)
{
    int rc = sim__series_alias(&e->series, level, mirrored);
    if (rc == TM_ERR_NOMEM)
        return nomem(e);
    if (rc != TM_OK)
        return tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "level %zu cannot mirror level %zu",
                           level, mirrored);
    return TM_OK;
}

static int lean_aliases(engine *e, lean_nodes *f)
{
    const sim_scenario *sc = e->sc;
    size_t with_nodes = 0, last = 0;
    int rc;
    for (size_t p = 0; p < sc->n_pools; p++) {
        if ((rc = lean_alias(e, sim_level_pool(sc, p, SIM_LV_K_BUSY),
                             sim_level_pool(sc, p, SIM_LV_K_ALLOC))) != TM_OK)
            return rc;
        if (sc->pools[p].nodes) {
            with_nodes++;
            last = p;
        }
    }
    for (size_t t = 0; t < sc->n_types && t < PLACE_MAX_TYPES; t++)
        if (!e->type_mirrors[t] &&
            (rc = lean_alias(e, sim_level_type(sc, t, SIM_LV_K_BUSY),
                             sim_level_type(sc, t, SIM_LV_K_ALLOC))) != TM_OK)
            return rc;
    if ((rc = lean_alias(e, SIM_LV_BUSY, SIM_LV_ALLOC)) != TM_OK)
        return rc;
    f->one_pool = with_nodes == 1;
    if (f->one_pool && (rc = lean_alias(e, SIM_LV_ALLOC, sim_level_pool(sc, last, SIM_LV_K_ALLOC))))
        return rc;
    return TM_OK;
}

/* run_loop for a run that qualifies (lean_qualifies): the same instants, the
 * same order of events within one, a pass at the end of each that changed
 * anything. */
static int run_loop_lean(engine *e)
{
    const sim_scenario *sc = e->sc;
    const volatile int *stop = e->opts ? e->opts->stop_flag : NULL;
    uint64_t every = 0, next_progress = UINT64_MAX;
    if (e->opts && e->opts->progress) {
        every = e->opts->progress_every ? e->opts->progress_every : 65536;
        next_progress = every;
    }
    uint64_t types = e->capacity.types;
    uint32_t min_mem = lean_min_mem(e);
    lean_nodes f = {0};
    f.last_speed = -1; /* no start yet: speeds are > 0 */
    f.n_w = (e->cluster.n_nodes + 63u) / 64u;
    f.n_sum = (f.n_w + 63u) / 64u;
    f.w = calloc(f.n_w, sizeof *f.w);
    f.sum = calloc(f.n_sum, sizeof *f.sum);
    if (!f.w || !f.sum) {
        free(f.w);
        free(f.sum);
        return nomem(e);
    }
    for (uint32_t n = 0; n < e->cluster.n_nodes; n++)
        lean_give(&f, n);
    int rc = lean_aliases(e, &f);
    if (rc != TM_OK) {
        free(f.w);
        free(f.sum);
        return rc;
    }
    /* the free capacity into the idle buckets once, at time 0; from here on
     * starts and ends move it (see above) */
    if (e->led.stale)
        ledger_idle(e, NULL);
    for (;;) {
        if (stop && *stop) {
            rc = loop_interrupted(e);
            break;
        }
        sim__event ev;
        uint32_t src;
        int have = lean_next(e, &f, &ev, &src);
        if (!have || ev.t_us > e->now_us) {
            if (e->dirty) {
                uint64_t pushes = f.pushes;
                if ((rc = lean_pass(e, &f)) != TM_OK)
                    break;
                if (f.pushes != pushes)
                    continue; /* a zero-length job may have ended at this instant */
            }
            if (!have)
                break;
            if (sc->stop == SIM_STOP_HORIZON && ev.t_us > sc->horizon_us)
                break;
            if (sc->stop == SIM_STOP_DRAIN && e->arrivals_pending == 0 && e->batch_in_flight == 0)
                break; /* no services: the general loop's drain */
            if ((rc = sim__series_advance(&e->series, ev.t_us, e->sink, e->diag)) != TM_OK)
                break;
            e->now_us = ev.t_us;
        }
        if (src == UINT32_MAX)
            lean_end_pop(&f);
        if (++e->res->events >= next_progress) {
            e->opts->progress(e->opts->progress_ud, e->now_us, e->res->events);
            next_progress += every;
        }
        if (ev.kind == EV_JOB_END) {
            if (f.n_ends)
                job_prefetch(e, f.ends[0].slot);
            rc = lean_job_end(e, &f, ev.a);
        } else if (ev.kind == EV_ARRIVAL) {
            source *s = &e->sources[ev.a];
            e->arrivals_pending--;
            s->has_next = 0;
            rc = lean_admit(e, &s->next, types, min_mem);
            if (rc == TM_OK)
                rc = source_pull(e, ev.a);
            e->next_source = source_first(e);
        } else {
            rc = tm_diag_set(e->diag, TM_ERR_INTERNAL, "engine", "event kind %u in the lean loop",
                             ev.kind);
        }
        if (rc != TM_OK)
            break;
    }
    free(f.w);
    free(f.sum);
    free(f.ends);
    return rc != TM_OK ? rc : loop_to_horizon(e);
}

/* ------------------------------------------------------------------------- */
/* the run                                                                    */

static int run_loop(engine *e)
{
    const sim_scenario *sc = e->sc;
    int check = e->opts && e->opts->check_invariants;
    const volatile int *stop = e->opts ? e->opts->stop_flag : NULL;
    int rc = TM_OK;
    uint64_t every = 0, next_progress = UINT64_MAX;
    if (e->opts && e->opts->progress) {
        every = e->opts->progress_every ? e->opts->progress_every : 65536;
        next_progress = every;
    }
    for (;;) {
        if (stop && *stop)
            return loop_interrupted(e);
        sim__event ev;
        uint32_t src;
        int have = loop_next(e, &ev, &src);
        if (!have || ev.t_us > e->now_us) {
            if (e->dirty) {
                /* what the event queue held before the pass: a pass only
                 * pushes and cancels (each push takes a sequence number, a
                 * cancel alone shrinks the queue), never pops, and sources
                 * move only at arrivals */
                uint64_t pushes = sim__evq_pushes(&e->evq);
                size_t pending = sim__evq_pending(&e->evq);
                rc = schedule_pass(e);
                if (rc != TM_OK)
                    return rc;
                if (check && (rc = check_state(e)) != TM_OK)
                    return rc;
                if (e->dirty || sim__evq_pushes(&e->evq) != pushes ||
                    sim__evq_pending(&e->evq) != pending)
                    continue; /* a zero-length job may have ended at this instant */
                /* the queue is as it was: the event found above is still the
                 * next one (the loop's next turn would find it again) */
            }
            if (e->led.stale)
                ledger_idle(e, NULL); /* free capacity changed without a pass */
            if (!have)
                break;
            if (sc->stop == SIM_STOP_HORIZON && ev.t_us > sc->horizon_us)
                break;
            /* a drain ends when the batch work is done and no more arrives: the
             * events left (failures, service ticks) would otherwise run on to a
             * horizon that may be unbounded (trace replay); a scenario of
             * services alone runs to its horizon */
            if (sc->stop == SIM_STOP_DRAIN && e->arrivals_pending == 0 && e->batch_in_flight == 0 &&
                (e->arrivals > 0 || e->n_svcs == 0))
                break;
            rc = sim__series_advance(&e->series, ev.t_us, e->sink, e->diag);
            if (rc != TM_OK)
                return rc;
            e->now_us = ev.t_us;
        }
        if (src == UINT32_MAX)
            sim__evq_pop(&e->evq, &ev);
        if (++e->res->events >= next_progress) {
            e->opts->progress(e->opts->progress_ud, e->now_us, e->res->events);
            next_progress += every;
        }
        switch (ev.kind) {
        case EV_JOB_END: {
            /* the next completion's record loads while this one is handled */
            sim__event nx;
            if (sim__evq_peek(&e->evq, &nx) == TM_OK && nx.kind == EV_JOB_END)
                job_prefetch(e, nx.a);
            rc = job_end(e, ev.a, ev.b);
            break;
        }
        case EV_OVERHEAD_END:
            rc = overhead_end(e, ev.a, ev.b);
            break;
        case EV_GPU_REPAIR:
            gpu_repair(e, ev.a, (uint32_t)ev.b);
            break;
        case EV_POOL_RETIRE:
            pool_set_up(e, ev.a, 0);
            break;
        case EV_POOL_DELIVER:
            pool_set_up(e, ev.a, 1);
            break;
        case EV_GPU_FAIL:
            rc = gpu_fail(e, ev.a);
            break;
        case EV_SVC_TICK:
            rc = svc_tick(e, &e->svcs[ev.a]);
            break;
        case EV_SVC_SPECIAL:
            rc = svc_specialize(e, &e->svcs[ev.a]);
            break;
        case EV_CLASS_SPECIAL:
            class_specialize(e, ev.a);
            break;
        case EV_POLICY_WAKE:
            if (ev.t_us == e->wake_us)
                e->wake_us = PLACE_T_NEVER;
            e->dirty = 1;
            break;
        case EV_ARRIVAL: {
            source *s = &e->sources[ev.a];
            e->arrivals_pending--;
            s->has_next = 0;
            rc = admit(e, &s->next);
            if (rc == TM_OK)
                rc = source_pull(e, ev.a);
            e->next_source = source_first(e);
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
    return loop_to_horizon(e);
}

/* Which levels and quantiles mirror others (engine.type_mirrors ...). */
static int mirrors_init(engine *e)
{
    const sim_scenario *sc = e->sc;
    uint32_t pools_of[PLACE_MAX_TYPES] = {0}, pool_of[PLACE_MAX_TYPES] = {0};
    for (size_t p = 0; p < sc->n_pools; p++) {
        if (sc->pools[p].type >= PLACE_MAX_TYPES)
            continue; /* build_fleet refuses the scenario */
        pools_of[sc->pools[p].type]++;
        pool_of[sc->pools[p].type] = (uint32_t)p;
    }
    for (size_t t = 0; t < sc->n_types && t < PLACE_MAX_TYPES; t++) {
        if (pools_of[t] != 1)
            continue;
        for (int k = 0; k < 3; k++)
            if (sim__series_alias(&e->series, sim_level_type(sc, t, k),
                                  sim_level_pool(sc, pool_of[t], k)) != TM_OK)
                return nomem(e);
        e->type_mirrors[t] = 1;
    }
    if (sc->n_classes == 1 && sc->n_services == 0) {
        if (sim__series_alias(&e->series, sim_level_class(sc, 0, SIM_LV_C_ALLOC), SIM_LV_ALLOC) !=
                TM_OK ||
            sim__series_alias(&e->series, sim_level_class(sc, 0, SIM_LV_C_QUEUE), SIM_LV_QUEUE) !=
                TM_OK)
            return nomem(e);
        e->cls_mirrors = 1;
    }
    e->q_all_mirrors = sc->n_classes == 1;
    e->q_tenant_mirrors = sc->n_tenants == 0;
    return TM_OK;
}

/* The mirrored quantiles take what their sources hold, before results are
 * read. */
static void mirrors_fill(engine *e)
{
    size_t all = e->sc->n_classes;
    if (e->q_all_mirrors) {
        sim__quant_copy(&e->q_wait[all], &e->q_wait[0]);
        sim__quant_copy(&e->q_completion[all], &e->q_completion[0]);
        sim__quant_copy(&e->q_slowdown[all], &e->q_slowdown[0]);
    }
    if (e->q_tenant_mirrors)
        sim__quant_copy(&e->q_tenant_wait[0], &e->q_wait[all]);
}

static sim_quantiles *quant_new(size_t n)
{
    sim_quantiles *q = calloc(n, sizeof *q);
    for (size_t c = 0; q && c < n; c++)
        if (sim__quant_init(&q[c]) != TM_OK) {
            quant_free(q, n);
            return NULL;
        }
    return q;
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
    size_t nq = sc->n_classes + 1;
    res->n_classes = sc->n_classes;
    res->n_pools = sc->n_pools;
    res->n_types = sc->n_types;
    res->n_services = sc->n_services;
    res->services = calloc(sc->n_services ? sc->n_services : 1, sizeof *res->services);
    res->classes = calloc(nq, sizeof *res->classes);
    res->pools = calloc(sc->n_pools ? sc->n_pools : 1, sizeof *res->pools);
    res->types = calloc(sc->n_types ? sc->n_types : 1, sizeof *res->types);
    res->n_tenants = sc->n_tenants;
    res->tenants = calloc(sc->n_tenants + 1, sizeof *res->tenants);
    res->ledger_pools = calloc(sc->n_pools ? sc->n_pools : 1, sizeof *res->ledger_pools);
    res->ledger_consumers = calloc(nq + sc->n_services, sizeof *res->ledger_consumers);
    e.w_class = calloc(nq, sizeof *e.w_class);
    e.wv_class = calloc(nq, sizeof *e.wv_class);
    e.w_tenant = calloc(sc->n_tenants + 1, sizeof *e.w_tenant);
    e.wv_tenant = calloc(sc->n_tenants + 1, sizeof *e.wv_tenant);
    e.w_pool = calloc(sc->n_pools ? sc->n_pools : 1, sizeof *e.w_pool);
    e.wr_pool = calloc(sc->n_pools ? sc->n_pools : 1, sizeof *e.wr_pool);
    e.w_type = calloc(sc->n_types ? sc->n_types : 1, sizeof *e.w_type);
    e.wr_type = calloc(sc->n_types ? sc->n_types : 1, sizeof *e.wr_type);
    e.wr_svc = calloc(sc->n_services ? sc->n_services : 1, sizeof *e.wr_svc);
    e.q_wait = quant_new(nq);
    e.q_tenant_wait = quant_new(sc->n_tenants + 1);
    e.q_completion = quant_new(nq);
    e.q_slowdown = quant_new(nq);
    if (!res->classes || !res->pools || !res->types || !res->services || !res->tenants ||
        !res->ledger_pools || !res->ledger_consumers || !e.w_class || !e.wv_class || !e.w_tenant ||
        !e.wv_tenant || !e.w_pool || !e.wr_pool || !e.w_type || !e.wr_type || !e.wr_svc ||
        !e.q_wait || !e.q_completion || !e.q_slowdown || !e.q_tenant_wait ||
        sim__evq_init(&e.evq, 1024) != TM_OK ||
        sim__series_init(&e.series, sim_level_count(sc), sc->sample_us) != TM_OK) {
        rc = nomem(&e);
        goto out;
    }
    e.series.stop = opts ? opts->stop_flag : NULL;
    if ((rc = mirrors_init(&e)) != TM_OK)
        goto out;
    uint32_t rep = opts ? opts->replication : 0;
    e.r_policy = sim_rng_new(sc->seed, rep, SIM_STREAM_POLICY, 0);
    if (!e.r_policy) {
        rc = nomem(&e);
        goto out;
    }
    place_env env = {place_alloc_libc, NULL, policy_rand, e.r_policy};
    char perr[256];
    perr[0] = '\0';
    int prc;
    if (opts && opts->policy_table) {
        prc = place_policy_check(opts->policy_table);
        if (prc == PLACE_OK) {
            e.policy.policy = opts->policy_table;
            e.policy.env = env;
            prc = opts->policy_table->create(&e.policy.env, opts->policy_args, &e.policy.state,
                                             perr, sizeof perr);
            if (prc != PLACE_OK)
                e.policy.policy = NULL;
        }
    } else {
        prc = place_instance_init(&e.policy, &env, sc->policy, perr, sizeof perr);
    }
    if (prc != PLACE_OK) {
        rc = tm_diag_set(diag, prc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_SCENARIO, "policy",
                         "%s", perr[0] ? perr : place_strerror(prc));
        goto out;
    }
    {
        int gobj;
        int64_t ground;
        int gs = sim__gavel_spec(sc->policy, &gobj, &ground, diag);
        if (gs < 0) {
            rc = gs;
            goto out;
        }
        if (gs == 1) {
            if (!(e.gavel = malloc(sizeof *e.gavel))) {
                rc = nomem(&e);
                goto out;
            }
            sim__gavel_init(e.gavel, gobj, ground, (uint32_t)sc->n_types);
        }
    }
    if (!(opts && opts->policy_table) && sim__gittins_spec(sc->policy) &&
        (rc = sim__gittins_build(&e.gittins, sc, diag)) != TM_OK)
        goto out;
    /* a host's own policy table claims nothing (place_spec_props) */
    e.skip_full = !(opts && opts->policy_table) &&
                  (place_spec_props(sc->policy) & PLACE_POLICY_IDLE_WHEN_FULL) && !e.gavel &&
                  !(opts && opts->pass_hook);
    if ((rc = build_fleet(&e)) != TM_OK || (rc = build_services(&e)) != TM_OK ||
        (rc = build_class_specials(&e)) != TM_OK || (rc = build_sources(&e)) != TM_OK)
        goto out;
    e.next_source = source_first(&e);
    if (opts && opts->loop != SIM_LOOP_AUTO && opts->loop != SIM_LOOP_GENERAL &&
        opts->loop != SIM_LOOP_LEAN) {
        rc = tm_diag_set(diag, TM_ERR_INVAL, "engine",
                         "unknown loop %d (auto 0, general 1, lean 2)", (int)opts->loop);
        goto out;
    }
    int lean = lean_qualifies(&e);
    if (!lean && opts && opts->loop == SIM_LOOP_LEAN) {
        rc =
            tm_diag_set(diag, TM_ERR_INVAL, "engine", "the run does not qualify for the lean loop");
        goto out;
    }
    if ((rc = lean ? run_loop_lean(&e) : run_loop(&e)) != TM_OK)
        goto out;
    if ((rc = sim__series_finish(&e.series, e.now_us, sink, diag)) != TM_OK)
        goto out;
    if ((rc = emit_unfinished(&e)) != TM_OK)
        goto out;
    for (size_t i = 0; i < e.n_svcs; i++)
        if ((rc = svc_account_last(&e, &e.svcs[i])) != TM_OK)
            goto out;
    mirrors_fill(&e);
    finish_results(&e);
    svc_results(&e);
    class_special_results(&e);
    rc = finish_ledger(&e);
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
    free(r->pools);
    free(r->types);
    free(r->services);
    free(r->tenants);
    free(r->ledger_pools);
    free(r->ledger_consumers);
    r->services = NULL;
    r->tenants = NULL;
    r->ledger_pools = NULL;
    r->ledger_consumers = NULL;
    r->classes = NULL;
    r->pools = NULL;
    r->types = NULL;
}

/* ------------------------------------------------------------------------- */
/* names and layouts                                                          */

const char *sim_reject_reason_str(int reason)
{
    return place_never_reason_str(reason);
}

const char *sim_ledger_key(int bucket)
{
    switch (bucket) {
#define SIM_LEDGER_KEY_(id, key, group, desc)                                                      \
    case id:                                                                                       \
        return key;
        SIM_LEDGER_BUCKETS(SIM_LEDGER_KEY_)
#undef SIM_LEDGER_KEY_
    default:
        return "unknown";
    }
}

const char *sim_ledger_desc(int bucket)
{
    switch (bucket) {
#define SIM_LEDGER_DESC_(id, key, group, desc)                                                     \
    case id:                                                                                       \
        return desc;
        SIM_LEDGER_BUCKETS(SIM_LEDGER_DESC_)
#undef SIM_LEDGER_DESC_
    default:
        return "unknown";
    }
}

int sim_ledger_group_of(int bucket)
{
    switch (bucket) {
#define SIM_LEDGER_GROUP_(id, key, group, desc)                                                    \
    case id:                                                                                       \
        return group;
        SIM_LEDGER_BUCKETS(SIM_LEDGER_GROUP_)
#undef SIM_LEDGER_GROUP_
    default:
        return -1;
    }
}

const char *sim_ledger_group_key(int group)
{
    switch (group) {
#define SIM_LEDGER_GKEY_(id, key)                                                                  \
    case id:                                                                                       \
        return key;
        SIM_LEDGER_GROUPS(SIM_LEDGER_GKEY_)
#undef SIM_LEDGER_GKEY_
    default:
        return "unknown";
    }
}

const char *sim_block_reason_key(int reason)
{
    switch (reason) {
#define SIM_BLOCK_KEY_(name, value, key, msg)                                                      \
    case value:                                                                                    \
        return key;
        SIM_BLOCK_REASONS(SIM_BLOCK_KEY_)
#undef SIM_BLOCK_KEY_
    default:
        return "unknown";
    }
}

const char *sim_block_reason_str(int reason)
{
    switch (reason) {
#define SIM_BLOCK_STR_(name, value, key, msg)                                                      \
    case value:                                                                                    \
        return msg;
        SIM_BLOCK_REASONS(SIM_BLOCK_STR_)
#undef SIM_BLOCK_STR_
    default:
        return "unknown";
    }
}

size_t sim_level_pool(const sim_scenario *sc, size_t pool, int k)
{
    (void)sc;
    return SIM_LV_FIXED + 3 * pool + (size_t)k;
}

size_t sim_level_type(const sim_scenario *sc, size_t type, int k)
{
    return SIM_LV_FIXED + 3 * sc->n_pools + 3 * type + (size_t)k;
}

size_t sim_level_class(const sim_scenario *sc, size_t cls, int k)
{
    return SIM_LV_FIXED + 3 * sc->n_pools + 3 * sc->n_types + 2 * cls + (size_t)k;
}

size_t sim_level_service(const sim_scenario *sc, size_t svc_index, int k)
{
    return SIM_LV_FIXED + 3 * sc->n_pools + 3 * sc->n_types + 2 * sc->n_classes +
           SIM_LV_S_COUNT * svc_index + (size_t)k;
}

size_t sim_level_count(const sim_scenario *sc)
{
    return SIM_LV_FIXED + 3 * sc->n_pools + 3 * sc->n_types + 2 * sc->n_classes +
           SIM_LV_S_COUNT * sc->n_services;
}

uint64_t sim_fleet_gpus_ever(const sim_scenario *sc)
{
    uint64_t g = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        int delivered = sc->stop == SIM_STOP_DRAIN || pc->delivered_us < sc->horizon_us;
        int retired_at_once = pc->retired_us >= 0 && pc->retired_us <= pc->delivered_us;
        if (delivered && !retired_at_once)
            g += (uint64_t)pc->nodes * pc->gpus_per_node;
    }
    return g;
}
