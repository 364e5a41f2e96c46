/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.h — the model room of sim/ (docs/architecture.md): scenarios as typed
 * structs, the GPU catalog, one run of the engine, its results, the random
 * streams, the cost model's inputs and the packing experiment's curves.
 *
 * Pure computation: a run takes a resolved scenario (sim_scenario, filled by
 * config/ or built in code), streams jobs from its sources through the event
 * engine and the placement core, and reports per-job rows and time-series
 * bins to a sink as they happen (so memory does not grow with finished jobs),
 * then fills a sim_result with the summary. The model includes nothing of the
 * rooms above it: it reads no file, writes no file and knows no JSON, HDF5 or
 * gnuplot; output/report.c is one sink, tests use their own.
 */
#ifndef TARMAC_SIM_MODEL_H
#define TARMAC_SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "place.h"
#include "status.h"
#include "trace.h"

#define SIM_US_PER_S 1000000ll
/* The end of simulated time: 2^61 us, about 73,000 years. A job arriving
 * later is an error; run times are capped there, so that a time plus a
 * duration never overflows int64. */
#define SIM_T_MAX_US (INT64_MAX / 4)
#define SIM_NAME_MAX 64

/* ------------------------------------------------------------------------- */
/* GPU catalog                                                                */

/* One GPU type. Figures and their sources: docs/catalog.md. */
typedef struct sim_gpu_type {
    char name[SIM_NAME_MAX];
    uint32_t mem_mib;   /* GPU memory */
    double bf16_tflops; /* dense BF16 (FP16 for types without BF16) */
    double mem_bw_gbs;  /* memory bandwidth, GB/s */
    double power_idle_w, power_peak_w;
    double purchase_usd;       /* per GPU */
    double ondemand_usd_per_h; /* cloud on-demand, per GPU-hour */
    double reserved_usd_per_h; /* cloud 1-year reserved, per GPU-hour */
    uint32_t partition_slices; /* MIG-style slices per GPU; 0 = not partitionable */
} sim_gpu_type;

/* The built-in catalog: *n gets the number of types. */
const sim_gpu_type *sim_catalog_builtin(size_t *n);
/* Index of `name` (case-insensitive) in types[0..n), or -1. */
int sim_catalog_find(const sim_gpu_type *types, size_t n, const char *name);

/* ------------------------------------------------------------------------- */
/* Scenario                                                                   */

typedef enum sim_ownership {
    SIM_OWNED = 0,
    SIM_RESERVED = 1,
    SIM_ONDEMAND = 2,
} sim_ownership;

/* A pool of identical nodes. */
typedef struct sim_pool_cfg {
    char name[SIM_NAME_MAX];
    uint32_t type; /* index into sim_scenario.types */
    uint32_t nodes;
    uint32_t gpus_per_node; /* 1..64 */
    int64_t cpu_milli;      /* host CPU per node */
    int64_t mem_mib;        /* host memory per node */
    sim_ownership ownership;
    int64_t delivered_us; /* in service from (0 = from the start) */
    int64_t retired_us;   /* out of service from (-1 = never) */
    int has_tenant;       /* owned by a tenant (docs/partition.md); 0 = shared */
    uint32_t tenant;      /* the owner: index into sim_scenario.tenants */
} sim_pool_cfg;

/* The kinds of batch-like work (DESIGN §4.3); each has defaults a class can
 * override (scenarios/SCHEMA.md). Real-time inference is a service, not a
 * class of jobs. */
#define SIM_KINDS(X)                                                                               \
    X(SIM_KIND_GENERIC, "generic")                                                                 \
    X(SIM_KIND_TRAINING, "training")                                                               \
    X(SIM_KIND_FINE_TUNING, "fine-tuning")                                                         \
    X(SIM_KIND_QUANTIZATION, "quantization")                                                       \
    X(SIM_KIND_BATCH_INFERENCE, "batch-inference")                                                 \
    X(SIM_KIND_EMBEDDING, "embedding")                                                             \
    X(SIM_KIND_EVALUATION, "evaluation")

typedef enum sim_job_kind {
#define SIM_KIND_ENUM_(name, str) name,
    SIM_KINDS(SIM_KIND_ENUM_)
#undef SIM_KIND_ENUM_
        SIM_KIND_COUNT
} sim_job_kind;
const char *sim_kind_name(int kind);

/* What a class's speed on a GPU type follows when no matrix gives it. */
typedef enum sim_speed_basis {
    SIM_SPEED_COMPUTE = 0, /* dense BF16 TFLOPS (training, fine-tuning, embedding, evaluation) */
    SIM_SPEED_MEMORY = 1,  /* memory bandwidth (decode-bound inference, quantization) */
} sim_speed_basis;

/* A workload class of batch-like jobs, synthesized. */
typedef struct sim_class_cfg {
    char name[SIM_NAME_MAX];
    sim_job_kind kind;
    trace_arrival_cfg arrival;
    trace_dist gpus; /* GPUs per job (rounded to an integer >= 1) */
    /* the size of a job: a run time on the reference GPU type (duration_s), or
     * work in reference GPU-seconds (work_gpu_s, when use_work) whose run time
     * also depends on the gang's scaling efficiency */
    trace_dist duration_s;
    trace_dist work_gpu_s;
    int use_work;
    double scaling_per_doubling; /* gang efficiency e(g) = this ^ log2(g) */
    int has_share;
    trace_dist share_milli; /* per-GPU share (1-GPU jobs), milli-GPU */
    uint32_t slices;        /* partition slices per job (0 = whole GPUs or a share) */
    int has_estimate;
    trace_dist estimate_factor; /* run-time estimate = run time x factor */
    uint32_t gpu_mem_mib;       /* per GPU */
    uint64_t type_mask;         /* allowed GPU types (bits of sim_scenario.types); 0 = any */
    uint32_t flags;             /* trace_job_flags */
    double span_slowdown;       /* run-time factor when a gang spans nodes (>= 1) */
    int32_t priority;
    double value;          /* goodput weight of its GPU-time */
    int64_t deadline_us;   /* relative to arrival; -1 none */
    int64_t checkpoint_us; /* checkpoint interval of running jobs; 0 = never */
    int64_t restart_us;    /* overhead of every restart after a preemption or failure */
    int has_tenants;
    trace_dist tenant; /* tenant index per job */
    sim_speed_basis speed_basis;
    double speed[PLACE_MAX_TYPES]; /* resolved relative speed on each GPU type */
    uint64_t max_jobs;             /* stop generating after this many (0 = no limit) */
    /* specialization: jobs arriving from special_at_us on take their size,
     * shape and speeds from *special (the same arrivals); -1 never */
    int64_t special_at_us;
    struct sim_class_cfg *special;
    /* expected GPU-seconds of one job on the reference type (its GPUs x share
     * x duration, or its work over the scaling); NaN for trace classes */
    double mean_ref_gpu_s;
} sim_class_cfg;

/* A real-time inference service (layout: service_int.h; model: docs/services.md). */
typedef struct sim_service_spec sim_service_spec;

/* GPU failures (DESIGN §4.4): each GPU of a type fails after an exponential
 * time of mean mtbf_h[type] while in service and is repaired after repair_s;
 * the jobs on it lose their work since their last checkpoint. */
typedef struct sim_failure_cfg {
    int enabled;
    double mtbf_h[PLACE_MAX_TYPES]; /* per-GPU mean time between job-interrupting failures */
    trace_dist repair_s;            /* time out of service */
    int restart;                    /* 1: a killed job goes back to the queue; 0: it fails */
} sim_failure_cfg;

typedef enum sim_stop {
    SIM_STOP_HORIZON = 0, /* stop at the horizon; report what is still queued or running */
    SIM_STOP_DRAIN = 1,   /* arrivals stop at the horizon; run until every job is done */
} sim_stop;

typedef struct sim_scenario {
    char name[128];
    char source[512]; /* file the scenario came from, or "(embedded default)" */
    uint64_t seed;
    int64_t horizon_us;
    sim_stop stop;
    int64_t sample_us; /* time-series bin width */
    char policy[256];  /* placement-core specification */

    sim_gpu_type *types;
    size_t n_types;
    uint32_t reference_type; /* the GPU type of speed 1 (default H100) */
    sim_pool_cfg *pools;
    size_t n_pools;
    sim_class_cfg *classes;
    size_t n_classes;
    sim_service_spec *services;
    size_t n_services;
    char (*tenants)[SIM_NAME_MAX]; /* tenant names (at least one: "default") */
    double *tenant_share;          /* fair shares, summing to 1 */
    size_t n_tenants;
    sim_failure_cfg failures;

    char *json_given;          /* the scenario text as given */
    struct sim_cost_cfg *cost; /* the "cost" section (malloc'd); NULL: the defaults */
} sim_scenario;

/* ------------------------------------------------------------------------- */
/* Running                                                                    */

typedef enum sim_job_state {
    SIM_JOB_QUEUED = 0,
    SIM_JOB_RUNNING = 1,
    SIM_JOB_COMPLETED = 2,
    SIM_JOB_REJECTED = 3,
    SIM_JOB_FAILED = 4, /* killed by a GPU failure with failures.restart off */
} sim_job_state;

/* Why a job can never run on the fleet (reported, never silently dropped). */
/* Why a job is rejected at arrival: the placement core's reasons
 * (place.h, PLACE_NEVER_REASONS, which place_job_never_fits gives), under
 * the simulator's names; sim_reject_reason_str is place_never_reason_str. */
typedef enum sim_reject_reason {
    SIM_REJECT_NONE = PLACE_NEVER_NONE,
    SIM_REJECT_GANG = PLACE_NEVER_GANG,
    SIM_REJECT_TYPE = PLACE_NEVER_TYPE,
    SIM_REJECT_MEMORY = PLACE_NEVER_MEMORY,
    SIM_REJECT_HOST = PLACE_NEVER_HOST,
    SIM_REJECT_TOTAL = PLACE_NEVER_TOTAL,
} sim_reject_reason;
const char *sim_reject_reason_str(int reason);

/* Why idle GPUs sit idle while jobs wait (shape-blocked idle, DESIGN §5),
 * judged after each scheduling pass for the whole free GPUs of each type:
 * ORDER when some waiting job could use them now but the policy did not start
 * it (strict order, a reservation); otherwise the reason the first waiting
 * job (in arrival order) cannot use them. */
#define SIM_BLOCK_REASONS(X)                                                                       \
    X(SIM_BLOCK_TYPE, 0, "type", "the waiting job does not allow this GPU type")                   \
    X(SIM_BLOCK_MEMORY, 1, "memory", "the GPUs have too little memory for the waiting job")        \
    X(SIM_BLOCK_FRAGMENTATION, 2, "fragmentation",                                                 \
      "enough free GPUs of the type in all, but not on one node")                                  \
    X(SIM_BLOCK_GANG, 3, "gang", "too few free GPUs of the type for the waiting gang")             \
    X(SIM_BLOCK_HOST, 4, "host", "the nodes lack the host CPU or memory the job needs")            \
    X(SIM_BLOCK_ORDER, 5, "order", "a waiting job could use them; the policy did not start it")

typedef enum sim_block_reason {
#define SIM_BLOCK_ENUM_(name, value, key, msg) name = value,
    SIM_BLOCK_REASONS(SIM_BLOCK_ENUM_)
#undef SIM_BLOCK_ENUM_
        SIM_BLOCK_COUNT
} sim_block_reason;
const char *sim_block_reason_key(int reason);
const char *sim_block_reason_str(int reason);

/* The GPU-hour ledger (docs/output.md "/ledger"): every owned GPU-microsecond
 * in exactly one bucket. X(ID, key, group, description), in the order of the
 * files; the groups are SIM_LEDGER_GROUPS. Idle GPUs while work waits are
 * split by the reason the engine judges after each scheduling pass (the
 * shape-blocked reasons, with "order" split in two by where the job that
 * could use them waits, and the free part of shared GPUs). */
#define SIM_LEDGER_BUCKETS(X)                                                                      \
    X(SIM_LEDGER_DOWN_FAILED, "down_failed", SIM_LEDGER_G_DOWN,                                    \
      "down: out of service after a GPU failure, until repaired")                                  \
    X(SIM_LEDGER_DOWN_UNDELIVERED, "down_undelivered", SIM_LEDGER_G_DOWN,                          \
      "down: not delivered yet (before the pool's delivery)")                                      \
    X(SIM_LEDGER_DOWN_RETIRED, "down_retired", SIM_LEDGER_G_DOWN,                                  \
      "down: retired (from the pool's retirement on)")                                             \
    X(SIM_LEDGER_IDLE, "idle_no_wait", SIM_LEDGER_G_IDLE,                                          \
      "idle: in service and free, nothing waiting")                                                \
    X(SIM_LEDGER_WAIT_TYPE, "wait_type", SIM_LEDGER_G_WAIT,                                        \
      "idle while work waits: the first waiting job does not allow the GPU type")                  \
    X(SIM_LEDGER_WAIT_MEMORY, "wait_memory", SIM_LEDGER_G_WAIT,                                    \
      "idle while work waits: the GPUs have too little memory for the first waiting job")          \
    X(SIM_LEDGER_WAIT_FRAGMENTATION, "wait_fragmentation", SIM_LEDGER_G_WAIT,                      \
      "idle while work waits: enough free GPUs of the type in all, not on one node")               \
    X(SIM_LEDGER_WAIT_GANG, "wait_gang", SIM_LEDGER_G_WAIT,                                        \
      "idle while work waits: too few free GPUs of the type for the first waiting gang")           \
    X(SIM_LEDGER_WAIT_HOST, "wait_host", SIM_LEDGER_G_WAIT,                                        \
      "idle while work waits: the nodes lack the host CPU or memory the first waiting job "        \
      "needs")                                                                                     \
    X(SIM_LEDGER_WAIT_BEHIND, "wait_behind", SIM_LEDGER_G_WAIT,                                    \
      "idle while work waits: a waiting job could use them but waits behind one that cannot "      \
      "start (strict order, or a reservation held for a backfilling head)")                        \
    X(SIM_LEDGER_WAIT_HELD, "wait_held", SIM_LEDGER_G_WAIT,                                        \
      "idle while work waits: the first waiting job could use them and the policy did not "        \
      "start it (its order, a fair share or quota, a wait for a better GPU type)")                 \
    X(SIM_LEDGER_WAIT_SHARE, "wait_share", SIM_LEDGER_G_WAIT,                                      \
      "idle while work waits: the free part of GPUs shared with running jobs")                     \
    X(SIM_LEDGER_RESTART, "alloc_restart", SIM_LEDGER_G_ALLOC,                                     \
      "allocated, not working: restart overhead after a preemption or failure")                    \
    X(SIM_LEDGER_LOADING, "alloc_loading", SIM_LEDGER_G_ALLOC,                                     \
      "allocated, not working: a service replica loading its model")                               \
    X(SIM_LEDGER_HEADROOM, "alloc_headroom", SIM_LEDGER_G_ALLOC,                                   \
      "allocated, not working: the unused part of ready replicas (load below their "               \
      "throughput)")                                                                               \
    X(SIM_LEDGER_LOST, "work_lost", SIM_LEDGER_G_LOST,                                             \
      "working, lost: work since the last checkpoint of runs a preemption or failure stopped")     \
    X(SIM_LEDGER_USEFUL_NO_VALUE, "useful_no_value", SIM_LEDGER_G_USEFUL,                          \
      "useful: working, the work survived; jobs of value 0")                                       \
    X(SIM_LEDGER_USEFUL_VALUED, "useful_valued", SIM_LEDGER_G_USEFUL,                              \
      "useful: working, the work survived; jobs of value above 0 and service replicas")

#define SIM_LEDGER_GROUPS(X)                                                                       \
    X(SIM_LEDGER_G_DOWN, "down")                                                                   \
    X(SIM_LEDGER_G_IDLE, "idle")                                                                   \
    X(SIM_LEDGER_G_WAIT, "idle_waiting")                                                           \
    X(SIM_LEDGER_G_ALLOC, "allocated_not_working")                                                 \
    X(SIM_LEDGER_G_LOST, "working_lost")                                                           \
    X(SIM_LEDGER_G_USEFUL, "useful")

typedef enum sim_ledger_group {
#define SIM_LEDGER_G_ENUM_(id, key) id,
    SIM_LEDGER_GROUPS(SIM_LEDGER_G_ENUM_)
#undef SIM_LEDGER_G_ENUM_
        SIM_LEDGER_GROUP_COUNT
} sim_ledger_group;

typedef enum sim_ledger_bucket {
#define SIM_LEDGER_ENUM_(id, key, group, desc) id,
    SIM_LEDGER_BUCKETS(SIM_LEDGER_ENUM_)
#undef SIM_LEDGER_ENUM_
        SIM_LEDGER_COUNT
} sim_ledger_bucket;

const char *sim_ledger_key(int bucket);
const char *sim_ledger_desc(int bucket);
int sim_ledger_group_of(int bucket);
const char *sim_ledger_group_key(int group);

/* GPU-time exactly: milli-GPU x microseconds (a 64-bit product overflows
 * within a year on a 10,000-GPU fleet). */
typedef __int128 sim_gpu_area;
/* milli-GPU x microseconds as GPU-hours */
#define SIM_AREA_PER_GPU_HOUR (1000.0 * 3600.0 * 1e6)

/* One ledger: the GPU-time of each bucket. */
typedef struct sim_ledger {
    sim_gpu_area a[SIM_LEDGER_COUNT];
} sim_ledger;

/* The levels of the time series (sim_bin_row.avg): time averages over a bin.
 * GPU levels are in milli-GPU (a share counts its fraction). In order:
 * the fleet's totals, shape-blocked idle GPUs by reason, then three levels per
 * pool and per GPU type (in service, allocated, busy), then two per class
 * (allocated, jobs waiting). */
enum {
    SIM_LV_UP = 0,  /* GPUs in service (plus GPUs still busy on nodes leaving service) */
    SIM_LV_ALLOC,   /* GPUs allocated to jobs */
    SIM_LV_BUSY,    /* GPUs doing work: allocated, minus restart overhead */
    SIM_LV_QUEUE,   /* jobs waiting (a count) */
    SIM_LV_RUNNING, /* jobs running (a count) */
    SIM_LV_BLOCKED, /* + reason: GPUs shape-blocked idle */
    /* GPUs owned: every GPU of every pool, in service or not (constant) */
    SIM_LV_OWNED = SIM_LV_BLOCKED + SIM_BLOCK_COUNT,
    SIM_LV_WORK,       /* work being done, reference GPUs x SIM_WORK_SCALE (docs/output.md) */
    SIM_LV_VALUE_WORK, /* the same weighted by job value (replicas: value 1) */
    SIM_LV_FIXED
};
enum { SIM_LV_K_UP = 0, SIM_LV_K_ALLOC = 1, SIM_LV_K_BUSY = 2 };
enum { SIM_LV_C_ALLOC = 0, SIM_LV_C_QUEUE = 1 };
/* Per service (after the classes): replicas ready and loading (counts), GPUs
 * allocated and busy (milli-GPU), and request rates in micro-requests/s:
 * offered, served within the SLO, served late, unserved, sent to the API. */
enum {
    SIM_LV_S_READY = 0,
    SIM_LV_S_LOADING,
    SIM_LV_S_ALLOC,
    SIM_LV_S_BUSY,
    SIM_LV_S_OFFERED,
    SIM_LV_S_SLO_OK,
    SIM_LV_S_LATE,
    SIM_LV_S_UNSERVED,
    SIM_LV_S_API,
    SIM_LV_S_COUNT
};
#define SIM_RATE_SCALE 1e6 /* service rate levels are micro-requests/s */
/* The work levels are in millionths of a reference GPU: a job on g GPUs at
 * applied speed s (its speed on the type, over the span slowdown) adds
 * g x s x 1e6 while it works; a ready replica its busy GPUs x its type's
 * throughput over the reference type's. */
#define SIM_WORK_SCALE 1e6

/* One finished (or, at the end, unfinished) job. Times in microseconds; -1
 * where the job never got there. */
typedef struct sim_job_row {
    uint64_t id;       /* arrival sequence, from 1 */
    uint64_t trace_id; /* the source's id */
    uint32_t cls;
    uint32_t tenant;
    uint32_t gpus;
    uint32_t gpu_milli;
    int32_t state; /* sim_job_state */
    int32_t reject_reason;
    int32_t gpu_type; /* type of its last placement; -1 if it never started */
    uint32_t first_node;
    uint32_t n_nodes;                    /* nodes of its last placement */
    uint32_t interruptions;              /* preemptions and failures that stopped it */
    int64_t submit_us, start_us, end_us; /* start: its first start */
    int64_t wait_us;     /* first start - submit, or end of run - submit if it never started */
    int64_t run_us;      /* end - first start (restarts included); to the end of run if running */
    int64_t deadline_us; /* absolute; -1 none */
    double busy_gpu_s;   /* GPU-seconds doing work (restart overhead excluded) */
    double lost_gpu_s;  /* GPU-seconds lost: work since the last checkpoint, and restart overhead */
    double alloc_gpu_s; /* GPU-seconds it held, over all its runs (to the end of run if running) */
    double value;
    /* useful work: the reference GPU-seconds of the progress that survived (its
     * run time on the reference GPU type x GPUs x share; docs/output.md) */
    double work_ref_gpu_s;
} sim_job_row;

/* One time-series bin [t0_us, t1_us). */
typedef struct sim_bin_row {
    int64_t t0_us, t1_us;
    const double *avg; /* n_avg time averages, laid out as the SIM_LV_* levels */
    size_t n_avg;
    uint64_t arrivals, starts, completions, preemptions, failures;
    double lost_gpu_s; /* work lost in the bin, GPU-seconds */
    /* the same work lost in reference GPU-seconds (x speed), and weighted by value */
    double lost_work_ref_gpu_s, lost_value_work_ref_gpu_s;
} sim_bin_row;

/* Number of levels of a scenario's time series, and where a pool's, type's or
 * class's levels are. */
size_t sim_level_count(const sim_scenario *sc);
size_t sim_level_pool(const sim_scenario *sc, size_t pool, int k);
size_t sim_level_type(const sim_scenario *sc, size_t type, int k);
size_t sim_level_class(const sim_scenario *sc, size_t cls, int k);
size_t sim_level_service(const sim_scenario *sc, size_t svc, int k);

/* Where a run's rows go as they are produced (both may be NULL). */
typedef struct sim_sink {
    int (*job)(void *ud, const sim_job_row *row, tm_diag *diag);
    int (*bin)(void *ud, const sim_bin_row *row, tm_diag *diag);
    void *ud;
} sim_sink;

/* Streaming quantiles with bounded relative error: a log-linear histogram of
 * non-negative integer values (microseconds), metrics.c. */
typedef struct sim_quantiles {
    uint64_t n, zeros;
    uint64_t *counts; /* SIM_QUANT_BUCKETS */
    double sum;
    int64_t max;
} sim_quantiles;
#define SIM_QUANT_REL_ERR (1.0 / 256) /* metrics.c */

/* Totals per class (and, at index n_classes, over all classes). */
typedef struct sim_class_result {
    uint64_t arrived, started, completed, rejected, failed, queued_end, running_end;
    uint64_t preemptions;                   /* times a policy preempted one of its jobs */
    uint64_t killed;                        /* times a GPU failure stopped one of its jobs */
    uint64_t deadline_met, deadline_missed; /* completed jobs with a deadline */
    double wait_sum_s;                      /* over started jobs */
    double wait_mean_s, wait_p50_s, wait_p95_s, wait_p99_s, wait_max_s;
    double completion_mean_s, completion_p50_s, completion_p95_s, completion_p99_s;
    double slowdown_mean; /* bounded slowdown, completed jobs, tau = 10 s */
    double slowdown_p50, slowdown_p95, slowdown_p99;
    double gpu_s_alloc;   /* GPU-seconds allocated to the class's jobs */
    double gpu_s_busy;    /* ... doing work */
    double gpu_s_lost;    /* ... lost to preemption and failure (work and restart overhead) */
    double gpu_s_goodput; /* busy minus lost work */
    double value_goodput; /* goodput weighted by job value */
    /* useful work in reference GPU-seconds: the reference run time of the
     * progress that survived x GPUs (x share), and the same weighted by value */
    double work_ref_gpu_s, value_work_ref_gpu_s;
    /* A class's specialization, over the window from its switch to the end of
     * the run (docs/output.md, "Specialization"); at_s is NaN without one.
     * GPU-hours: old and new are the expected reference GPU-hours of the jobs
     * that arrived in the window under each shape; class, others and
     * capacity are measured (held by the class, held by everything else, in
     * service); reclaimed is what other work held beyond the room the old
     * shape would have left it, at most freed. */
    struct {
        double at_s;
        uint64_t jobs;
        double old_gpu_h, new_gpu_h, freed_gpu_h;
        double class_gpu_h, others_gpu_h, capacity_gpu_h, reclaimed_gpu_h;
    } special;
} sim_class_result;

/* A service's specialization report over the window from its switch to the
 * end of the run (docs/output.md, "Specialization"), in GPU-hours: old and
 * new are what the autoscaler's sizing asks for under each model for the
 * same load (the old one on the replica types it held at the switch);
 * service, others and capacity are measured; reclaimed is what other work
 * held beyond the room the old model would have left it, at most freed. */
typedef struct sim_service_special {
    double old_gpu_h, new_gpu_h, freed_gpu_h;
    double service_gpu_h, others_gpu_h, capacity_gpu_h, reclaimed_gpu_h;
} sim_service_special;

/* Totals of one service. Requests and tokens: demanded = served within the
 * SLO + served late + unserved + sent to the API (docs/services.md §3). */
typedef struct sim_service_result {
    double req_demanded, req_slo_ok, req_late, req_unserved, req_api;
    double tok_in_demanded, tok_out_demanded;
    double tok_in_owned, tok_out_owned; /* served on owned replicas (in the SLO or late) */
    double tok_in_api, tok_out_api;
    double attainment; /* slo_ok / (demanded - api) */
    double api_usd;    /* the API tokens at the service's API price */
    double replica_hours_ready, replica_hours_loading;
    double gpu_hours_alloc, gpu_hours_busy;
    double ready_mean; /* time-average ready replicas */
    uint32_t ready_max;
    uint64_t replicas_started, replicas_lost;
    /* specialization (NaN when none): mean GPUs of the service and of everything
     * else (batch work, other services) before and after the switch */
    double special_at_s;
    double gpus_before, gpus_after, others_before, others_after;
    sim_service_special special; /* zeros when special_at_s is NaN */
    /* useful work: busy replica GPU-hours x the replica type's throughput over
     * the reference type's (reference GPU-hours) */
    double work_ref_gpu_hours;
} sim_service_result;

/* GPU-seconds of one pool or GPU type. */
typedef struct sim_gpu_time {
    double up, alloc, busy;
    double owned;    /* its GPUs x the run's length (in service or not) */
    double work_ref; /* useful work done on it, reference GPU-seconds (jobs and replicas) */
} sim_gpu_time;

/* Totals of one tenant (sim_result.tenants). */
typedef struct sim_tenant_result {
    uint64_t arrived, started, completed;
    double wait_sum_s; /* over its started jobs */
    double wait_mean_s, wait_p50_s, wait_p95_s;
    double gpu_s_alloc; /* GPU-seconds its jobs held */
    double work_ref_gpu_s, value_work_ref_gpu_s;
} sim_tenant_result;

typedef struct sim_result {
    int64_t t_end_us; /* simulated time the run stopped at */
    uint64_t events;
    uint64_t passes;        /* scheduling passes */
    uint64_t policy_errors; /* invalid decisions refused */
    uint64_t preemptions, failures, repairs;
    double gpu_s_up;                       /* GPU-seconds in service */
    double gpu_s_alloc;                    /* GPU-seconds allocated */
    double gpu_s_busy;                     /* GPU-seconds doing work */
    double gpu_s_lost;                     /* GPU-seconds of work lost (and restart overhead) */
    double gpu_s_goodput;                  /* busy - lost */
    double gpu_s_idle;                     /* up - alloc */
    double gpu_s_blocked[SIM_BLOCK_COUNT]; /* shape-blocked idle, by reason */
    double alloc_util, busy_util, goodput_util; /* each / gpu_s_up */
    double queue_len_mean;                      /* time average */
    double running_mean;
    size_t n_classes;
    sim_class_result *classes; /* n_classes + 1 entries, the last is the total */
    size_t n_pools, n_types, n_services;
    sim_gpu_time *pools; /* per pool */
    sim_gpu_time *types; /* per GPU type */
    sim_service_result *services;
    double wall_s; /* wall-clock time of the run (not written to results) */
    /* work-normalised figures (docs/output.md, "useful work") */
    double gpu_s_owned;                          /* every pool's GPUs x the run's length */
    double work_ref_gpu_s, value_work_ref_gpu_s; /* jobs and service replicas */
    double work_util, value_util;                /* each / gpu_s_owned */
    /* per tenant: the scenario's tenants, then one entry for the jobs whose
     * tenant index is beyond them (trace user ids): n_tenants + 1 entries */
    size_t n_tenants;
    sim_tenant_result *tenants;
    /* The GPU-hour ledger: of the fleet, of each pool, and of each consumer
     * (the classes, the services, then one entry for what no consumer is
     * charged: down and idle with nothing waiting). Idle GPUs while work
     * waits go to the consumer of the first waiting job. Each adds up to
     * owned_area exactly: every pool's GPUs x 1000 x t_end_us. */
    sim_gpu_area owned_area;
    sim_ledger ledger;
    sim_ledger *ledger_pools;     /* n_pools */
    sim_ledger *ledger_consumers; /* n_classes + n_services + 1 */
} sim_result;

void sim_result_fini(sim_result *r);

/* GPUs of the pools that are in service at some time of the run (delivered
 * before the horizon, not retired on delivery). 0 means every job will be
 * rejected: the commands say so before they run. */
uint64_t sim_fleet_gpus_ever(const sim_scenario *sc);

/* ------------------------------------------------------------------------- */
/* The summary metrics (model/summary_metrics.c)                              */

/* Every summary figure of a run, one line each: the run report's /summary
 * (docs/output.md), `tarmac run --json`, the key results of sweep points and
 * the metric list of the docs (checked by test_docs) read these tables, so a
 * new metric is one line here plus its computation in the engine. The naming rule: units in the
 * name (_s seconds, gpu_hours_ GPU-hours, _util a ratio of GPU-time, jobs_
 * a count); "count" marks an integer.
 *
 * X(ID, name, units, flags, description, value) where value is an expression
 * of `c` (const sim_class_result *) for class metrics, of `r` (const
 * sim_result *) for the fleet's. Flags: SIM_METRIC_KEY, a key result of a
 * sweep point (a column of the merged table, docs/sweeps.md). */
#define SIM_METRIC_KEY 1u

#define SIM_CLASS_METRICS(X)                                                                       \
    X(SIM_CM_JOBS_ARRIVED, "jobs_arrived", "count", SIM_METRIC_KEY, "jobs that arrived",           \
      (double)c->arrived)                                                                          \
    X(SIM_CM_JOBS_STARTED, "jobs_started", "count", 0u, "jobs that started", (double)c->started)   \
    X(SIM_CM_JOBS_COMPLETED, "jobs_completed", "count", SIM_METRIC_KEY, "jobs that completed",     \
      (double)c->completed)                                                                        \
    X(SIM_CM_JOBS_REJECTED, "jobs_rejected", "count", SIM_METRIC_KEY,                              \
      "jobs rejected because they can never fit the fleet", (double)c->rejected)                   \
    X(SIM_CM_JOBS_FAILED, "jobs_failed", "count", 0u,                                              \
      "jobs killed by a GPU failure, not restarted", (double)c->failed)                            \
    X(SIM_CM_JOBS_QUEUED_END, "jobs_queued_end", "count", SIM_METRIC_KEY,                          \
      "jobs still waiting at the end", (double)c->queued_end)                                      \
    X(SIM_CM_JOBS_RUNNING_END, "jobs_running_end", "count", 0u, "jobs still running at the end",   \
      (double)c->running_end)                                                                      \
    X(SIM_CM_PREEMPTIONS, "preemptions", "count", 0u, "runs preempted by the policy",              \
      (double)c->preemptions)                                                                      \
    X(SIM_CM_FAILURE_INTERRUPTIONS, "failure_interruptions", "count", 0u,                          \
      "runs stopped by a GPU failure", (double)c->killed)                                          \
    X(SIM_CM_DEADLINE_MET, "deadline_met", "count", 0u,                                            \
      "completed jobs with a deadline that met it", (double)c->deadline_met)                       \
    X(SIM_CM_DEADLINE_MISSED, "deadline_missed", "count", 0u,                                      \
      "completed jobs with a deadline that missed it", (double)c->deadline_missed)                 \
    X(SIM_CM_WAIT_MEAN_S, "wait_mean_s", "s", SIM_METRIC_KEY,                                      \
      "mean wait (first start - arrival) of started jobs", c->wait_mean_s)                         \
    X(SIM_CM_WAIT_P50_S, "wait_p50_s", "s", SIM_METRIC_KEY,                                        \
      "median wait of started jobs (0.4 % relative error)", c->wait_p50_s)                         \
    X(SIM_CM_WAIT_P95_S, "wait_p95_s", "s", SIM_METRIC_KEY,                                        \
      "95th percentile wait of started jobs", c->wait_p95_s)                                       \
    X(SIM_CM_WAIT_P99_S, "wait_p99_s", "s", SIM_METRIC_KEY,                                        \
      "99th percentile wait of started jobs", c->wait_p99_s)                                       \
    X(SIM_CM_WAIT_MAX_S, "wait_max_s", "s", 0u, "largest wait of a started job", c->wait_max_s)    \
    X(SIM_CM_COMPLETION_MEAN_S, "completion_mean_s", "s", 0u,                                      \
      "mean completion time (end - arrival) of completed jobs", c->completion_mean_s)              \
    X(SIM_CM_COMPLETION_P50_S, "completion_p50_s", "s", 0u, "median completion time",              \
      c->completion_p50_s)                                                                         \
    X(SIM_CM_COMPLETION_P95_S, "completion_p95_s", "s", 0u, "95th percentile completion time",     \
      c->completion_p95_s)                                                                         \
    X(SIM_CM_COMPLETION_P99_S, "completion_p99_s", "s", 0u, "99th percentile completion time",     \
      c->completion_p99_s)                                                                         \
    X(SIM_CM_SLOWDOWN_MEAN, "slowdown_mean", "1", SIM_METRIC_KEY,                                  \
      "mean bounded slowdown max(1, (wait + run) / max(run, 10 s)) of completed jobs",             \
      c->slowdown_mean)                                                                            \
    X(SIM_CM_SLOWDOWN_P50, "slowdown_p50", "1", 0u, "median bounded slowdown", c->slowdown_p50)    \
    X(SIM_CM_SLOWDOWN_P95, "slowdown_p95", "1", 0u, "95th percentile bounded slowdown",            \
      c->slowdown_p95)                                                                             \
    X(SIM_CM_SLOWDOWN_P99, "slowdown_p99", "1", 0u, "99th percentile bounded slowdown",            \
      c->slowdown_p99)                                                                             \
    X(SIM_CM_GPU_HOURS_ALLOC, "gpu_hours_alloc", "GPU h", 0u, "GPU-hours allocated to the jobs",   \
      c->gpu_s_alloc / 3600)                                                                       \
    X(SIM_CM_GPU_HOURS_BUSY, "gpu_hours_busy", "GPU h", 0u,                                        \
      "GPU-hours doing work (restart overhead excluded)", c->gpu_s_busy / 3600)                    \
    X(SIM_CM_GPU_HOURS_LOST, "gpu_hours_lost", "GPU h", 0u,                                        \
      "GPU-hours lost to preemption and failure (work and restart overhead)",                      \
      c->gpu_s_lost / 3600)                                                                        \
    X(SIM_CM_GPU_HOURS_GOODPUT, "gpu_hours_goodput", "GPU h", 0u,                                  \
      "busy GPU-hours whose work survived", c->gpu_s_goodput / 3600)                               \
    X(SIM_CM_VALUE_GOODPUT, "value_goodput", "GPU h", 0u, "goodput weighted by job value",         \
      c->value_goodput / 3600)                                                                     \
    X(SIM_CM_WORK_REF_GPU_HOURS, "work_ref_gpu_hours", "GPU h", 0u,                                \
      "useful work in reference GPU-hours: the reference GPU type's run time for the progress "    \
      "that survived x GPUs",                                                                      \
      c->work_ref_gpu_s / 3600)                                                                    \
    X(SIM_CM_VALUE_WORK_REF_GPU_HOURS, "value_work_ref_gpu_hours", "GPU h", 0u,                    \
      "useful work weighted by job value", c->value_work_ref_gpu_s / 3600)

#define SIM_RUN_METRICS(X)                                                                         \
    X(SIM_RM_T_END_S, "t_end_s", "s", SIM_METRIC_KEY, "simulated time at the end",                 \
      (double)r->t_end_us / SIM_US_PER_S)                                                          \
    X(SIM_RM_ALLOC_UTIL, "alloc_util", "1", SIM_METRIC_KEY,                                        \
      "GPU-time allocated / GPU-time in service", r->alloc_util)                                   \
    X(SIM_RM_BUSY_UTIL, "busy_util", "1", SIM_METRIC_KEY,                                          \
      "GPU-time doing work / GPU-time in service", r->busy_util)                                   \
    X(SIM_RM_GOODPUT_UTIL, "goodput_util", "1", SIM_METRIC_KEY,                                    \
      "GPU-time whose work survived / GPU-time in service", r->goodput_util)                       \
    X(SIM_RM_GPU_HOURS_UP, "gpu_hours_up", "GPU h", SIM_METRIC_KEY, "GPU-hours in service",        \
      r->gpu_s_up / 3600)                                                                          \
    X(SIM_RM_GPU_HOURS_IDLE, "gpu_hours_idle", "GPU h", SIM_METRIC_KEY,                            \
      "GPU-hours in service, not allocated", r->gpu_s_idle / 3600)                                 \
    X(SIM_RM_FLEET_GPU_HOURS_ALLOC, "fleet_gpu_hours_alloc", "GPU h", 0u,                          \
      "GPU-hours allocated to jobs and service replicas", r->gpu_s_alloc / 3600)                   \
    X(SIM_RM_FLEET_GPU_HOURS_BUSY, "fleet_gpu_hours_busy", "GPU h", 0u,                            \
      "GPU-hours doing work, jobs and service replicas", r->gpu_s_busy / 3600)                     \
    X(SIM_RM_FLEET_GPU_HOURS_GOODPUT, "fleet_gpu_hours_goodput", "GPU h", 0u,                      \
      "busy GPU-hours whose work survived, jobs and service replicas", r->gpu_s_goodput / 3600)    \
    X(SIM_RM_QUEUE_LEN_MEAN, "queue_len_mean", "1", SIM_METRIC_KEY,                                \
      "time-average number of jobs waiting", r->queue_len_mean)                                    \
    X(SIM_RM_RUNNING_MEAN, "running_mean", "1", 0u, "time-average number of jobs running",         \
      r->running_mean)                                                                             \
    X(SIM_RM_EVENTS, "events", "count", SIM_METRIC_KEY, "events processed", (double)r->events)     \
    X(SIM_RM_PASSES, "passes", "count", 0u, "scheduling passes run", (double)r->passes)            \
    X(SIM_RM_POLICY_ERRORS, "policy_errors", "count", 0u,                                          \
      "invalid policy decisions refused by the engine", (double)r->policy_errors)                  \
    X(SIM_RM_GPU_FAILURES, "gpu_failures", "count", 0u, "GPU failures", (double)r->failures)       \
    X(SIM_RM_GPU_REPAIRS, "gpu_repairs", "count", 0u, "GPU repairs", (double)r->repairs)           \
    X(SIM_RM_GPU_HOURS_OWNED, "gpu_hours_owned", "GPU h", 0u,                                      \
      "GPU-hours owned: every GPU of every pool over the run, in service or not",                  \
      r->gpu_s_owned / 3600)                                                                       \
    X(SIM_RM_FLEET_WORK_REF_GPU_HOURS, "fleet_work_ref_gpu_hours", "GPU h", 0u,                    \
      "useful work in reference GPU-hours, jobs and service replicas", r->work_ref_gpu_s / 3600)   \
    X(SIM_RM_FLEET_VALUE_WORK_REF_GPU_HOURS, "fleet_value_work_ref_gpu_hours", "GPU h", 0u,        \
      "useful work weighted by value, jobs and service replicas (replicas at value 1)",            \
      r->value_work_ref_gpu_s / 3600)                                                              \
    X(SIM_RM_WORK_UTIL, "work_util", "1", SIM_METRIC_KEY,                                          \
      "useful reference GPU-hours / GPU-hours owned (above 1 on GPUs faster than the reference)",  \
      r->work_util)                                                                                \
    X(SIM_RM_VALUE_UTIL, "value_util", "1", SIM_METRIC_KEY,                                        \
      "value-weighted useful reference GPU-hours / GPU-hours owned", r->value_util)

typedef enum sim_class_metric {
#define SIM_METRIC_ENUM_(id, name, units, flags, desc, value) id,
    SIM_CLASS_METRICS(SIM_METRIC_ENUM_) SIM_CLASS_METRIC_COUNT
} sim_class_metric;
typedef enum sim_run_metric {
    SIM_RUN_METRICS(SIM_METRIC_ENUM_) SIM_RUN_METRIC_COUNT
#undef SIM_METRIC_ENUM_
} sim_run_metric;

/* A metric's name (as in files), units ("count": an integer of units "1"),
 * flags and description. */
typedef struct sim_metric_desc {
    const char *name, *units;
    unsigned flags;
    const char *desc;
} sim_metric_desc;
extern const sim_metric_desc sim_class_metric_info[SIM_CLASS_METRIC_COUNT];
extern const sim_metric_desc sim_run_metric_info[SIM_RUN_METRIC_COUNT];
/* The value of class metric m of c, and of fleet metric m of r. */
double sim_class_metric_value(const sim_class_result *c, int m);
double sim_run_metric_value(const sim_result *r, int m);

/* Called at the start of a scheduling pass with the view the policy is about to
 * see, and after it with the decisions the engine applied (in order): the
 * snapshots `tarmac place` is tested against. Either may be NULL. */
typedef struct sim_pass_hook {
    void (*before)(void *ud, const place_view *v);
    void (*after)(void *ud, const place_decision *d, size_t n);
    void *ud;
} sim_pass_hook;

typedef struct sim_run_opts {
    uint32_t replication; /* selects independent random streams */
    /* Job sources to use instead of the scenario's synthesized classes (trace
     * replay, tests): borrowed, not closed by the run. Jobs' cls must index
     * the scenario's classes. */
    const trace_source *sources;
    size_t n_sources;
    int check_invariants;    /* tests: check the fleet and queue after every event */
    volatile int *stop_flag; /* set by a signal handler to stop the run */
    /* progress(ud, now_us, events) about every progress_every events (default
     * 65536 when progress is set); for progress bars. */
    void (*progress)(void *ud, int64_t now_us, uint64_t events);
    void *progress_ud;
    uint64_t progress_every;
    const sim_pass_hook *pass_hook;
    /* A policy table to use instead of the scenario's specification (a policy
     * written outside the registry), with its argument string. */
    const place_policy *policy_table;
    const char *policy_args;
    /* Which event loop runs (tests; the results are the same either way):
     * SIM_LOOP_AUTO the lean one where the run qualifies (engine.c, "the
     * lean loop"), SIM_LOOP_GENERAL the general one always, SIM_LOOP_LEAN
     * the lean one, or TM_ERR_INVAL when the run does not qualify. */
    int loop;
    /* Nonzero: the scenario's classes' jobs are synthesized on a thread of
     * their own, ahead of the simulation (trace_ahead_open), when there are
     * at most SIM_READ_AHEAD_MAX_CLASSES classes. The results are the same;
     * the run takes a second core. For one run on a machine with a core to
     * spare (tarmac run), not for runs that already fill the cores. */
    int read_ahead;
} sim_run_opts;

#define SIM_READ_AHEAD_MAX_CLASSES 64

enum { SIM_LOOP_AUTO = 0, SIM_LOOP_GENERAL = 1, SIM_LOOP_LEAN = 2 };

/* Class `cls` of a scenario as a stream of synthesized jobs, with the class's
 * random streams of replication `rep` (what a run would generate). Close with
 * out->close(out->ud). */
int sim_class_source_open(const sim_scenario *sc, size_t cls, uint32_t rep, trace_source *out,
                          tm_diag *diag);

/* Run a scenario. Job rows and bins go to sink (may be NULL); the summary to
 * *res (sim_result_fini frees it). */
int sim_run(const sim_scenario *sc, const sim_run_opts *opts, const sim_sink *sink, sim_result *res,
            tm_diag *diag);

/* ------------------------------------------------------------------------- */
/* Random streams (documented in docs/rng.md)                                 */

/* Every purpose of a random stream, one line each in number order:
 * X(ID, number, "name", "what the stream's index counts"). The table is
 * append-only: a new use of randomness is a new line with the next free
 * number; a number is never reused or renumbered, since a stream's seed
 * derives from it and existing results must stay reproducible (docs/rng.md
 * has the same table). 5 was once also the packing experiment's shuffle,
 * which thus shared seeds with the share stream; that use is now 10. */
#define SIM_STREAMS(X)                                                                             \
    X(ARRIVALS, 1, "arrivals", "workload class")                                                   \
    X(GPUS, 2, "gpus", "workload class")                                                           \
    X(DURATION, 3, "duration", "workload class")                                                   \
    X(POLICY, 4, "policy", "0")                                                                    \
    X(SHARE, 5, "share", "workload class")                                                         \
    X(ESTIMATE, 6, "estimate", "workload class")                                                   \
    X(TENANT, 7, "tenant", "workload class")                                                       \
    X(FAILURES, 8, "failures", "GPU type")                                                         \
    X(REPAIR, 9, "repair", "GPU type")                                                             \
    X(PACK_ORDER, 10, "pack-order", "0")

typedef enum sim_stream_purpose {
#define SIM_STREAM_ENUM_(id, number, name, index) SIM_STREAM_##id = number,
    SIM_STREAMS(SIM_STREAM_ENUM_)
#undef SIM_STREAM_ENUM_
} sim_stream_purpose;

/* The name of a purpose ("arrivals", ...); NULL for a number not in the table. */
const char *sim_stream_name(uint32_t purpose);
/* What the index of a purpose's streams counts ("workload class", ...); NULL
 * for a number not in the table. */
const char *sim_stream_index(uint32_t purpose);

/* The 32-bit seed of stream (purpose, index) of replication `rep` of a run
 * with scenario seed `seed` (never 0; see docs/rng.md). */
unsigned long sim_rng_seed(uint64_t seed, uint32_t rep, uint32_t purpose, uint32_t index);
/* MT19937 as a GSL generator type: the words of GSL's gsl_rng_mt19937 from
 * the same seed, drawn faster (rng.c). */
const gsl_rng_type *sim_rng_mt19937(void);
/* A new mt19937 generator (sim_rng_mt19937) seeded for that stream; NULL on
 * out of memory. */
gsl_rng *sim_rng_new(uint64_t seed, uint32_t rep, uint32_t purpose, uint32_t index);
/* The GSL version tarmac runs with, for provenance. */
const char *sim_lib_version_gsl(void);

/* The packing experiment of the FGD paper (Weng et al., ATC'23). The cluster
 * is the scenario's nodes; per seed the pods are shuffled, random copies
 * (uniform, with replacement) appended while the requested GPU stays within
 * target_pct of capacity, and placed one by one through the placement core;
 * pods never leave and a pod that fits nowhere fails. Curves over arrived
 * demand (requested GPU so far / capacity, percent) on a grid. */
typedef struct sim_pack_cfg {
    double target_pct;    /* e.g. 130 */
    double grid_step_pct; /* curve resolution, e.g. 1 */
    uint64_t seed;        /* base seed; seed k uses replication k */
    uint32_t n_seeds;
    const char *const *policies; /* placement-core specifications */
    size_t n_policies;
    int keep_order; /* 1: the pods in list order, no shuffle and no copies (tests, "as listed") */
} sim_pack_cfg;

enum sim_pack_metric {
    SIM_PACK_ALLOC = 0,  /* allocated GPU / capacity, percent */
    SIM_PACK_FRAG,       /* fragmented GPU / idle GPU, percent (the FGD simulator's ratio) */
    SIM_PACK_FRAG_CAP,   /* fragmented GPU / capacity, percent */
    SIM_PACK_FAILED,     /* pods failed so far */
    SIM_PACK_FAILED_GPU, /* GPU requested by failed pods / capacity, percent */
    SIM_PACK_METRICS
};

typedef struct sim_pack_result {
    size_t n_policies, n_seeds, n_points;
    double *arrived_pct; /* n_points grid values */
    double *v;           /* [policy][seed][metric][point] */
    uint64_t *pods;      /* [policy][seed] pods placed or failed */
    uint64_t *failed;    /* [policy][seed] */
    double capacity_gpus;
    size_t n_classes; /* pod shapes of the target workload of the fragmentation measure */
} sim_pack_result;

/* Name (as in files), units and description of each metric. */
typedef struct sim_pack_metric_desc {
    const char *name, *units, *desc;
} sim_pack_metric_desc;
extern const sim_pack_metric_desc sim_pack_metric_info[SIM_PACK_METRICS];

/* The value of a metric at grid point k for (policy, seed). */
double sim_pack_value(const sim_pack_result *r, size_t policy, size_t seed, int metric, size_t k);
/* Mean, standard deviation (n - 1), min and max over seeds. */
void sim_pack_stats(const sim_pack_result *r, size_t policy, int metric, size_t k, double *mean,
                    double *sd, double *min, double *max);

void sim_pack_result_fini(sim_pack_result *r);

/* ------------------------------------------------------------------------- */
/* Cost model (sim/cost.c; docs/cost.md gives every default, its source and
 * its confidence mark)                                                       */

#define SIM_COST_API_MAX    48     /* API prices in a scenario's table */
#define SIM_COST_MAP_MAX    32     /* services mapped to an API, batch classes priced */
#define SIM_HOURS_PER_YEAR  8766.0 /* 365.25 days */
#define SIM_HOURS_PER_MONTH (SIM_HOURS_PER_YEAR / 12)

/* An API's price list entry. */
typedef struct sim_cost_api_price {
    char id[SIM_NAME_MAX];     /* "provider/model" */
    char serves[SIM_NAME_MAX]; /* the self-hosted model it stands in for ("" none) */
    double in_usd_per_mtok, out_usd_per_mtok;
    double batch_discount; /* fraction off for batch (asynchronous) work */
} sim_cost_api_price;

/* What the work of a batch-like class stands for in API tokens: tokens per
 * goodput GPU-second, priced at an API's batch rate. */
typedef struct sim_cost_batch {
    uint32_t cls;
    double tok_in_per_gpu_s, tok_out_per_gpu_s;
    int api; /* index into sim_cost_cfg.api */
} sim_cost_batch;

/* A service priced at an API of the table (instead of the default). */
typedef struct sim_cost_service_api {
    uint32_t svc;
    int api;
} sim_cost_service_api;

typedef struct sim_cost_cfg {
    /* owned: capital */
    double server_usd_per_gpu[PLACE_MAX_TYPES];       /* NaN: purchase_usd / the GPU's share */
    double gpu_share_of_server;                       /* GPU price / server price per GPU */
    double gpu_share_of_server_type[PLACE_MAX_TYPES]; /* per type; NaN: the above */
    double spares_fraction;                           /* extra servers bought as spares */
    double network_fraction, storage_fraction, install_fraction; /* of server capex */
    double depreciation_years, residual_fraction, capital_rate_per_year;
    double maintenance_fraction_per_year; /* of capex, per year */
    /* owned: power and space */
    double server_power_factor; /* server wall power / GPU power (host, fans, NICs) */
    double pue, electricity_usd_per_kwh, colocation_usd_per_kw_month;
    /* owned: people */
    double staff_fte_per_1000_gpus, staff_min_fte, staff_usd_per_fte_year;
    /* cloud */
    double cloud_overhead_fraction; /* egress, storage, CPU VMs, support on top of GPU-hours */
    /* API */
    sim_cost_api_price api[SIM_COST_API_MAX];
    size_t n_api;
    int api_default;                  /* index of the API used where nothing else says */
    double api_price_factor_per_year; /* prices x this per year (1 = constant) */
    sim_cost_service_api service_api[SIM_COST_MAP_MAX];
    size_t n_service_api;
    sim_cost_batch batch[SIM_COST_MAP_MAX];
    size_t n_batch;
} sim_cost_cfg;

/* The defaults (docs/cost.md). */
void sim_cost_defaults(sim_cost_cfg *c);
/* The cost model of a scenario: its "cost" section, or the defaults. */
const sim_cost_cfg *sim_scenario_cost(const sim_scenario *sc);
/* Index of API `id` (case-insensitive) in c->api, or -1. */
int sim_cost_api_find(const sim_cost_cfg *c, const char *id);

#endif
