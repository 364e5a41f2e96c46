/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place.h — tarmac's placement core: the one public header of policies/.
 *
 * This is the library a production scheduler links and the simulator calls,
 * through exactly the same functions (../shared/DESIGN.md §6). It depends on
 * the C standard library only: no globals, no I/O, no clock, no abort. Memory
 * comes from an allocator the host hands in; randomness from a function the
 * host hands in. Install it with `cmake --install` and find it with
 * `pkg-config --cflags --libs tarmac-place`.
 *
 * The pieces, in the order this header declares them:
 *   place_env       the host's services: an allocator and a random source.
 *   place_cluster   free capacity per GPU, node and GPU type, as structure-of-
 *                   arrays plus an index (per type and free-GPU count) so that
 *                   first-fit and best-fit need no scan of all nodes. The host
 *                   owns it and changes it only through place_cluster_take/give/
 *                   set_up, which keep the index true.
 *   place_job       a job waiting to start (or running, inside place_running).
 *   place_view      what a policy sees: the cluster, the queue in arrival order,
 *                   the running jobs, the current time. Read-only to policies.
 *   place_decision  what a policy answers: start queue entry i on these parts,
 *                   preempt running entry k, or route a service replica to an
 *                   API. One decision per call.
 *   place_policy    a table of function pointers with an ABI version and size.
 *   components      the parts the composed policy is built from: a queue order,
 *                   a placement rule ("fit"), a backfilling rule, a preemption
 *                   rule and a service rule. Each is one table in one file.
 *   place_pass_run  the loop both hosts run: ask, validate, apply, repeat.
 *
 * Decisions are asked for one at a time and applied by the host before the next
 * call, so a policy always sees the cluster as it is, never a stale copy, and
 * the index answers every query. A policy that needs per-pass state (a sorted
 * queue, an EASY reservation) builds it in begin() and keeps it up to date
 * from observe(), which reports each decision's fate.
 *
 * Writing your own policy: see README.md "Write your own policy" and
 * policies/fit_example.c, a complete placement rule in one file.
 */
#ifndef TARMAC_PLACE_H
#define TARMAC_PLACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The export list of libtarmac-place.so: the library is compiled with
 * -fvisibility=hidden, and every function this header declares is exported
 * (default visibility), so the shared object exports the place_* API and
 * nothing else; the internals of place_int.h stay hidden (docs/place-lib.md). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ABI version of the policy and component tables and of the structs below;
 * bumped on any change of their layout or meaning. 2: components public, job
 * groups, API routing, host totals in the cluster. 3: place_backfill.hopeless
 * and PLACE_FIT_PURE (a hopeless job's fit is skipped). 4: node owners
 * (place_cluster.node_tenant), the partition component, place_policy.wake and
 * place_pass_stats.wake_us. 5: place_preempt.begin and .observe;
 * place_capacity and place_job_never_fits. 6: the cluster's change journal
 * (place_cluster.serial, .changes, .change_ring) and place_view.timeshare.
 * 7: place_view.service_dist and .n_service_dist (place_service_dist). */
#define PLACE_ABI_VERSION 7u

/* Limits. A GPU type is a bit in a 64-bit mask; a node's GPUs are bits in one too. */
#define PLACE_MAX_TYPES         64u
#define PLACE_MAX_GPUS_PER_NODE 64u
#define PLACE_MILLI_WHOLE       1000u       /* a whole GPU, in milli-GPU */
#define PLACE_GPU_ANY           0xffffu     /* place_part.gpu: "any fully free GPUs" */
#define PLACE_NONE              0xffffffffu /* "no node" / "no index" */
#define PLACE_T_NEVER           INT64_MAX   /* a time that never comes (unknown end) */

/* Status codes: 0 is success, everything else negative (PLACE_DONE and
 * PLACE_ROUTED are positive answers of decide-like calls). One table gives the
 * enum, the name and the message (place_strerror). */
#define PLACE_ERRORS(X)                                                                            \
    X(PLACE_OK, 0, "ok")                                                                           \
    X(PLACE_DONE, 1, "no further decision")                                                        \
    X(PLACE_ROUTED, 2, "service replica routed to an API")                                         \
    X(PLACE_ERR_NOMEM, -1, "out of memory")                                                        \
    X(PLACE_ERR_INVAL, -2, "invalid argument")                                                     \
    X(PLACE_ERR_ABI, -3, "policy table has an unsupported ABI version or size")                    \
    X(PLACE_ERR_NOTFOUND, -4, "no such policy or component")                                       \
    X(PLACE_ERR_SPEC, -5, "malformed policy specification")                                        \
    X(PLACE_ERR_NOFIT, -6, "the job does not fit the free capacity")                               \
    X(PLACE_ERR_STATE, -7, "decision names a job that is not waiting (or not running)")            \
    X(PLACE_ERR_GANG, -8, "parts do not add up to the job's GPUs")                                 \
    X(PLACE_ERR_TYPE, -9, "GPU type not allowed for this job")                                     \
    X(PLACE_ERR_MEMORY, -10, "not enough GPU memory")                                              \
    X(PLACE_ERR_SPAN, -11, "job spans nodes but does not allow it, or spans GPU types")            \
    X(PLACE_ERR_CAPACITY, -12, "decision exceeds free capacity")                                   \
    X(PLACE_ERR_DOWN, -13, "node or GPU out of service")                                           \
    X(PLACE_ERR_LOOP, -14, "policy exceeded the decision limit of one pass")                       \
    X(PLACE_ERR_PREEMPT, -15, "job is not preemptible")                                            \
    X(PLACE_ERR_ROUTE, -16, "job is not a service replica that may be routed to an API")

typedef enum place_status {
#define PLACE_ENUM_(name, value, msg) name = value,
    PLACE_ERRORS(PLACE_ENUM_)
#undef PLACE_ENUM_
} place_status;

/* The message for a status code; never NULL. */
const char *place_strerror(int status);
/* The enum name for a status code ("PLACE_ERR_NOFIT"); never NULL. */
const char *place_status_name(int status);

/* ------------------------------------------------------------------------- */
/* Host services                                                              */

/* Lua-style allocator: new_size 0 frees (returns NULL); otherwise behaves like
 * realloc(ptr, new_size). old_size is the size of ptr's block (0 for NULL). */
typedef void *(*place_alloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);
/* A uniformly distributed 64-bit value from the host's random stream. */
typedef uint64_t (*place_rand_fn)(void *ud);

typedef struct place_env {
    place_alloc_fn alloc;
    void *alloc_ud;
    place_rand_fn rand; /* may be NULL for policies that use no randomness */
    void *rand_ud;
} place_env;

/* An allocator over the C library's malloc/realloc/free, for hosts that need
 * nothing else (tarmac place, tests). */
void *place_alloc_libc(void *ud, void *ptr, size_t old_size, size_t new_size);

/* Memory through env->alloc, for policies and components: place_alloc returns
 * NULL on failure or for size 0; place_realloc keeps *p on failure; place_free
 * accepts NULL. Sizes must be the ones the block was allocated with. */
void *place_alloc(const place_env *env, size_t size);
int place_realloc(const place_env *env, void **p, size_t old_size, size_t new_size);
void place_free(const place_env *env, void *p, size_t size);
/* A uniform integer in [0, n) from env->rand (n >= 1), without modulo bias;
 * 0 when env->rand is NULL. One call of env->rand, rarely more. */
uint64_t place_rand_below(const place_env *env, uint64_t n);

/* ------------------------------------------------------------------------- */
/* Hierarchical bit set: the building block of the free-capacity index.        */

/* Three levels of 64-bit words (bit i of level k+1 says word i of level k is
 * non-zero), so finding the next set bit costs a handful of word operations
 * whatever the size. */
typedef struct place_bits {
    uint64_t *w0, *w1, *w2;
    uint32_t n;          /* number of bits */
    uint32_t n0, n1, n2; /* words per level */
} place_bits;

/* Index of the first set bit >= from, or PLACE_NONE. */
uint32_t place_bits_next(const place_bits *b, uint32_t from);
static inline int place_bits_test(const place_bits *b, uint32_t i)
{
    return (int)((b->w0[i >> 6] >> (i & 63u)) & 1u);
}

/* ------------------------------------------------------------------------- */
/* The cluster                                                                */

/* Host CPU and memory of a node count at most this much in the cluster totals
 * (cpu_up_milli, mem_up_mib), so that a node with "no limit" (a huge value)
 * cannot overflow them. 2^32 milli-cores is four million cores. */
#define PLACE_HOST_CAP (1ll << 32)

/* Structure-of-arrays state of every node and GPU. Policies read these fields
 * directly (they are the view); only the place_cluster_* functions write them.
 * Node indices are dense, 0..n_nodes-1, in the order the host added them;
 * "first" always means lowest index. */
#define PLACE_CHANGE_RING 1024u /* nodes the change journal remembers */
typedef struct place_cluster {
    /* GPU types */
    uint32_t n_types;
    uint32_t type_mem_mib[PLACE_MAX_TYPES]; /* memory of one GPU of the type */
    uint64_t types_present; /* bit t: the cluster has a node of type t (fits loop over these) */
    uint32_t type_max_gpus[PLACE_MAX_TYPES]; /* most GPUs on any node of the type */

    /* nodes */
    uint32_t n_nodes, cap_nodes;
    uint16_t *node_type;      /* GPU type index (0 for CPU-only nodes too; see node_gpus) */
    uint8_t *node_gpus;       /* GPUs on the node (0..64) */
    uint8_t *node_free;       /* fully free GPUs that are in service */
    uint8_t *node_up;         /* 1 when the node is in service (delivered, not retired) */
    uint32_t *node_gpu0;      /* index of the node's first GPU in the gpu_* arrays */
    uint64_t *node_free_mask; /* bit g: GPU g of the node is fully free and in service */
    int64_t *node_cpu_milli, *node_cpu_free_milli; /* host CPU, milli-cores */
    int64_t *node_mem_mib, *node_mem_free_mib;     /* host memory, MiB */
    uint32_t *node_milli_free; /* sum of gpu_free_milli over the node's GPUs in service */

    /* GPUs */
    uint32_t n_gpus, cap_gpus;
    uint16_t *gpu_free_milli;   /* 0..1000 share still free (counts only while gpu_up) */
    uint32_t *gpu_free_mem_mib; /* memory still free */
    uint8_t *gpu_up;            /* 1 when in service */

    /* totals over nodes in service: whole GPUs in service / fully free, in all
     * and per type (so a gang that cannot fit is refused without a walk) */
    uint64_t gpus_up, gpus_free;
    uint64_t type_gpus_up[PLACE_MAX_TYPES], type_gpus_free[PLACE_MAX_TYPES];
    /* host capacity of the nodes in service, each node capped at PLACE_HOST_CAP
     * (for fair-share orders, which need the cluster's size in every resource) */
    uint64_t cpu_up_milli, mem_up_mib;

    /* index: by_free[t][f] = nodes of type t in service with exactly f fully free
     * GPUs; any_share[t] = nodes of type t in service with some GPU partly or
     * fully free (candidates for a GPU share); up[t] = nodes of type t in service. */
    place_bits *by_free[PLACE_MAX_TYPES]; /* type_max_gpus[t] + 1 bit sets each */
    place_bits any_share[PLACE_MAX_TYPES];
    place_bits up[PLACE_MAX_TYPES];
    uint32_t index_nodes; /* capacity the index was built for */

    place_env env;

    /* Owners: node_tenant[n] is the tenant (place_job.tenant) that owns node n,
     * or PLACE_NONE for a shared node. The array belongs to the host, which
     * sets the pointer after place_cluster_init (n_nodes entries, kept as
     * nodes are added); NULL means every node is shared. Only the partition
     * component reads it (docs/partition.md); place_cluster_* ignore it. */
    const uint32_t *node_tenant;

    /* Change journal, for rules that keep per-node results between calls
     * (fgd): every change of a node's state (service, host room, a GPU's
     * free share, memory or service; the node added) writes the node to
     * change_ring[changes % PLACE_CHANGE_RING] and counts it in changes (a
     * node may appear more than once). A reader that kept (serial, changes)
     * finds the nodes changed since in the ring, or learns that more than
     * PLACE_CHANGE_RING changes happened, or that this is another cluster
     * (serial is unique per place_cluster_init in the process): then it must
     * look at every node. */
    uint64_t serial, changes;
    uint32_t change_ring[PLACE_CHANGE_RING];
} place_cluster;

/* The owner of node n (PLACE_NONE: shared). */
static inline uint32_t place_node_tenant(const place_cluster *c, uint32_t n)
{
    return c->node_tenant ? c->node_tenant[n] : PLACE_NONE;
}

/* Set up an empty cluster for n_types GPU types of the given memory (MiB).
 * On failure the cluster is safe to pass to place_cluster_fini. */
int place_cluster_init(place_cluster *c, const place_env *env, uint32_t n_types,
                       const uint32_t *type_mem_mib);
void place_cluster_fini(place_cluster *c);

/* Add a node of `gpus` GPUs of type `type`, with host CPU and memory (0 = no
 * limit is NOT implied: a pod asking for CPU needs CPU). The node starts out of
 * service (up = 0); bring it in with place_cluster_set_up. *node_out gets its
 * index. */
int place_cluster_add_node(place_cluster *c, uint32_t type, uint32_t gpus, int64_t cpu_milli,
                           int64_t mem_mib, uint32_t *node_out);
/* Bring a node into service or take it out. Taking out a node that has work
 * on it is allowed (a failure or a retirement): its capacity stops counting
 * as free; what was allocated stays recorded until given back. */
int place_cluster_set_node_up(place_cluster *c, uint32_t node, int up);
/* The same for one GPU of a node (index within the node). */
int place_cluster_set_gpu_up(place_cluster *c, uint32_t node, uint32_t gpu, int up);

/* Does the whole-GPU or share request fit node `node` right now? (No index.) */
int place_cluster_node_fits(const place_cluster *c, uint32_t node, uint32_t gpus, uint32_t milli,
                            uint32_t mem_mib, int64_t cpu_milli, int64_t host_mem_mib);

/* The next node >= from, of type t, in service, with at least `gpus` fully free
 * GPUs, found through the index; PLACE_NONE when there is none. Cost: one
 * bit-set search per free-count bucket above `gpus` (at most 65). */
uint32_t place_cluster_next_free(const place_cluster *c, uint32_t t, uint32_t gpus, uint32_t from);

/* Check every invariant of the state and its index (see cluster.c); for tests
 * and cautious hosts. Cost O(nodes x (GPUs + buckets)). PLACE_OK or
 * PLACE_ERR_INVAL. */
int place_cluster_verify(const place_cluster *c);

/* ------------------------------------------------------------------------- */
/* Jobs, parts, decisions                                                     */

enum place_job_flags {
    PLACE_JOB_CAN_SPAN = 1u << 0,    /* a gang may span nodes (of one type) */
    PLACE_JOB_PREEMPTIBLE = 1u << 1, /* may be preempted (loses work since checkpoint) */
    PLACE_JOB_SERVICE = 1u << 2,     /* a replica of a real-time inference service */
    PLACE_JOB_API_OK = 1u << 3,      /* a replica whose load the host can send to an API */
};

/* A job as a policy sees it. Times in microseconds of simulated (or wall) time. */
typedef struct place_job {
    uint64_t id;           /* the host's id, echoed in diagnostics */
    int64_t submit_us;     /* arrival */
    int64_t estimate_us;   /* run-time estimate (user's or trace's); -1 unknown */
    int64_t deadline_us;   /* -1 none */
    double attained_gpu_s; /* GPU-seconds of service received so far (for LAS orders) */
    /* Relative speed per GPU type (n_types entries), NULL = 1 everywhere; a
     * value <= 0 means "not known" and counts as 1 (as the engine runs it). For
     * a service replica: its throughput at the latency SLO on that type
     * relative to the reference, and <= 0 where the type cannot meet the SLO
     * (the service rules skip such types; hosts also leave them out of
     * type_mask). */
    const double *speed;
    uint64_t type_mask;   /* allowed GPU types (bit t); 0 = any type */
    uint32_t gpus;        /* gang size in GPUs; 0 = a CPU-only job */
    uint32_t gpu_milli;   /* share of each GPU, 1..1000; < 1000 only when gpus == 1 */
    uint32_t gpu_mem_mib; /* memory needed on each GPU */
    uint32_t flags;       /* place_job_flags */
    int64_t cpu_milli;    /* host CPU for the whole job */
    int64_t host_mem_mib; /* host memory for the whole job */
    int32_t priority;     /* larger = more important */
    uint32_t tenant;
    uint32_t cls;   /* workload class index */
    uint32_t group; /* replicas of one service (or members of one group) share it; 0 = none */
    /* What a host needs to record a started job's end estimate the same way
     * as every other host (place_end_estimate): the restart overhead its next
     * run pays before doing work (0 for a job that never ran), and its
     * run-time factor when a gang spans nodes (0 or 1: none). */
    int64_t restart_us;
    double span_slowdown;
} place_job;

/* One node's share of a placement. For whole GPUs, `gpus` of them, gpu ==
 * PLACE_GPU_ANY and milli == 1000; place_cluster_take picks the lowest-index
 * fully free GPUs and records them in `mask`. For a GPU share, gpus == 1,
 * gpu = the GPU's index within the node and milli < 1000. A CPU-only job has
 * one part with gpus == 0. */
typedef struct place_part {
    uint32_t node;
    uint16_t gpus;
    uint16_t gpu;
    uint32_t milli;
    uint32_t mem_mib; /* per GPU */
    uint64_t mask;    /* output of place_cluster_take */
} place_part;

/* Check that `parts` is a valid placement of `job` on the cluster right now
 * (gang adds up, one type, type allowed, memory, span allowed, capacity free,
 * in service). Returns PLACE_OK or the first failing PLACE_ERR_*. */
int place_cluster_check(const place_cluster *c, const place_job *job, const place_part *parts,
                        uint32_t n_parts);
/* Allocate a checked placement (fills parts[].mask). Cost O(parts). */
int place_cluster_take(place_cluster *c, const place_job *job, place_part *parts, uint32_t n_parts);
/* The same for a placement place_cluster_check accepted with no change to the
 * cluster since (a host applying a decision of place_pass_run, which checked
 * it): saves the second check. */
int place_cluster_take_checked(place_cluster *c, const place_job *job, place_part *parts,
                               uint32_t n_parts);
/* Allocate exactly the GPUs named by parts[].mask (for whole GPUs, popcount
 * equal to gpus, every GPU fully free; for a share, the single bit of `gpu`).
 * For hosts that rebuild a cluster from a snapshot of its allocations
 * (`tarmac place`), where the GPUs were chosen long ago. Checks as
 * place_cluster_check and then the mask; PLACE_ERR_INVAL for a bad mask. */
int place_cluster_take_exact(place_cluster *c, const place_job *job, const place_part *parts,
                             uint32_t n_parts);
/* Give back what place_cluster_take allocated. GPUs that went out of service
 * meanwhile stay out of service. */
void place_cluster_give(place_cluster *c, const place_job *job, const place_part *parts,
                        uint32_t n_parts);

/* A running job, for policies that preempt or reserve (EASY backfilling). */
typedef struct place_running {
    place_job job;
    int64_t start_us;        /* start of the current run */
    int64_t end_estimate_us; /* start + estimate on its placement; -1 unknown */
    int64_t overhead_us;     /* restart overhead at the head of the current run */
    int64_t checkpoint_us;   /* checkpoint interval of its work; 0 = never */
    /* GPU-seconds a preemption would lose, when the host knows it directly
     * (tarmac place reads it from the snapshot); -1 when it is to be computed
     * from the fields above: use place_running_lost_gpu_s. */
    double lost_gpu_s;
    const place_part *parts;
    uint32_t n_parts;
} place_running;

/* GPU-seconds job r would lose if stopped at now_us: the work since its last
 * checkpoint plus the restart overhead it paid in this run (lost_gpu_s itself
 * when the host gave it). */
double place_running_lost_gpu_s(const place_running *r, int64_t now_us);

/* The end estimate a host records for job j started at now_us on parts
 * (PLACE_START): now + restart_us + estimate / speed, where speed is
 * j->speed[t] of the parts' type t (1 when absent or not positive), divided by
 * span_slowdown when the job spans nodes; rounded up to a microsecond. -1 when
 * the estimate is unknown. Both hosts (the engine and `tarmac place`) must use
 * it, so that a backfilling rule sees the same running set in both. */
int64_t place_end_estimate(const place_cluster *c, const place_job *j, const place_part *parts,
                           uint32_t n_parts, int64_t now_us);

/* ------------------------------------------------------------------------- */
/* Jobs that no state of the nodes can ever hold                               */

/* Why a job can never run on a cluster, whatever runs there and whatever is
 * in service: one table gives the enum, a short key (for JSON) and the
 * message. The simulator rejects such a job when it arrives, with this
 * reason; `tarmac place` lists the queued ones with theirs. */
#define PLACE_NEVER_REASONS(X)                                                                     \
    X(PLACE_NEVER_NONE, 0, "none", "none")                                                         \
    X(PLACE_NEVER_GANG, 1, "gang", "needs more GPUs on one node than any allowed node has")        \
    X(PLACE_NEVER_TYPE, 2, "type", "no GPU type it allows is in the fleet")                        \
    X(PLACE_NEVER_MEMORY, 3, "memory", "needs more GPU memory than any allowed type has")          \
    X(PLACE_NEVER_HOST, 4, "host", "needs more host CPU or memory than any node has")              \
    X(PLACE_NEVER_TOTAL, 5, "total", "needs more GPUs than the fleet has")

typedef enum place_never_reason {
#define PLACE_NEVER_ENUM_(name, value, key, msg) name = value,
    PLACE_NEVER_REASONS(PLACE_NEVER_ENUM_)
#undef PLACE_NEVER_ENUM_
} place_never_reason;

/* The message and the key of a reason; never NULL ("unknown" for others). */
const char *place_never_reason_str(int reason);
const char *place_never_reason_key(int reason);

/* What the nodes of a cluster can ever offer: every node counts, in service
 * or not (a node out of service may come back, one not yet delivered will
 * come), with all its GPUs and its host capacity. */
typedef struct place_capacity {
    uint32_t n_types;
    uint32_t type_mem_mib[PLACE_MAX_TYPES];
    uint64_t types; /* bit t: some node has type t */
    uint32_t type_max_node_gpus[PLACE_MAX_TYPES];
    uint64_t type_total_gpus[PLACE_MAX_TYPES];
    int64_t type_max_cpu_milli[PLACE_MAX_TYPES], type_max_mem_mib[PLACE_MAX_TYPES];
    int64_t max_cpu_milli, max_mem_mib;
} place_capacity;

/* Take the capacity of every node of c (O(nodes)); call it again after nodes
 * are added. */
void place_capacity_init(place_capacity *cap, const place_cluster *c);

/* Why job j can never run on the nodes cap describes (a PLACE_NEVER_*), or
 * PLACE_NEVER_NONE when some state of them could hold it. The first reason
 * that rules out every allowed type is given: host capacity beyond every
 * node, no allowed type present, not enough memory on any allowed type, then
 * per type host capacity, a gang larger than every node (a gang that may
 * span: larger than all the type's GPUs). O(types). */
int place_job_never_fits(const place_capacity *cap, const place_job *j);

/* Per queue entry state, maintained by the host during a pass. */
enum place_queue_state {
    PLACE_Q_WAITING = 0,
    PLACE_Q_STARTED = 1, /* started during this pass */
    PLACE_Q_SKIPPED = 2, /* an invalid decision named it; not offered again this pass */
    PLACE_Q_ROUTED = 3,  /* a service replica routed to an API during this pass */
};

/* A time-sharing allocation for round-based policies (Gavel's X, docs/gavel.md):
 * the host solves it and shows it in the view; the policy only reads it. Rows
 * are jobs (queued or running), job ids ascending; x[r * n_types + t] is the
 * fraction of time row r should run on type t, recv_s the seconds it has run
 * there and active_s[r] the seconds it has been in the allocation. Rounds
 * start at multiples of round_us. */
typedef struct place_timeshare {
    int64_t round_us;
    uint32_t n_rows, n_types;
    const uint64_t *job_id;
    const double *x;
    const double *recv_s;
    const double *active_s;
} place_timeshare;

/* A class's distribution of GPU service per job, discretised: n points,
 * value[] ascending (GPU-seconds, >= 0), prob[] > 0 summing to 1; n == 0
 * when the host knows no distribution for the class. The host computes it
 * from the class's configured duration and GPU distributions (Tiresias'
 * gittins=class, docs/tiresias.md). */
typedef struct place_service_dist {
    uint32_t n;
    const double *value;
    const double *prob;
} place_service_dist;

/* Policy "gavel" (policies/gavel_round.c, docs/gavel.md): its objectives
 * and its arguments "[OBJECTIVE][@ROUND_SECONDS]", read by this one parser
 * for the policy and for the host that solves its allocation. */
enum place_gavel_objective {
    PLACE_GAVEL_MAXMIN,          /* "max-min": max-min fairness of normalised throughput */
    PLACE_GAVEL_MAXMIN_AGNOSTIC, /* "max-min-agnostic": the same, every type speed 1 */
    PLACE_GAVEL_FTF,             /* "ftf": finish-time fairness (Themis' rho) */
    PLACE_GAVEL_MAKESPAN,        /* "makespan": every active job done soonest */
    PLACE_GAVEL_FIFO,            /* "fifo": arrival order, fastest type with room */
    PLACE_GAVEL_MAXMIN_WF,       /* "max-min-wf": max-min solved by water-filling levels; the
                                    rounds realise it as "max-min" (only the host's solve differs) */
    PLACE_GAVEL_N_OBJECTIVES
};
#define PLACE_GAVEL_ROUND_US (360 * 1000000ll) /* the default round (Gavel's) */
/* Read the arguments after the word "gavel" (leading blanks allowed; ""
 * gives max-min, 360 s). PLACE_OK with *objective and *round_us set, or
 * PLACE_ERR_SPEC with a message quoting args in err (may be NULL). */
int place_gavel_args(const char *args, int *objective, int64_t *round_us, char *err,
                     size_t err_len);
/* An objective's name ("max-min", ...), or NULL when out of range. */
const char *place_gavel_objective_name(int objective);

/* What a policy sees. The host may change `running` and `n_running` during a
 * pass (a START appends the new job, a PREEMPT removes the victim by
 * swap-remove: the last entry moves into the victim's index), so a policy must
 * not keep running indices across decisions; it keeps job ids instead. */
typedef struct place_view {
    int64_t now_us;
    const place_cluster *cluster;
    const place_job *queue;     /* in arrival order (ties by the host's sequence) */
    const uint8_t *queue_state; /* place_queue_state per entry */
    uint32_t n_queue;
    const place_running *running;
    uint32_t n_running;
    /* a solved time-sharing allocation, or NULL (hosts that solve none) */
    const place_timeshare *timeshare;
    /* per workload class (index place_job.cls), the distribution of a job's
     * GPU service (GPUs x run time, GPU-seconds), or NULL (hosts that know
     * none); the host keeps it unchanged for the whole run */
    const place_service_dist *service_dist;
    uint32_t n_service_dist;
} place_view;

/* The protocol of a pass, for hosts:
 *
 *  PLACE_START      start view->queue[index] on parts[0..n_parts). The host
 *                   allocates (place_cluster_take fills each part's mask), marks
 *                   the entry PLACE_Q_STARTED, and appends the job to
 *                   view->running (start_us = now, end_estimate_us =
 *                   place_end_estimate(), overhead_us = job.restart_us) before
 *                   the next decide().
 *  PLACE_PREEMPT    stop view->running[index] now. The host gives its capacity
 *                   back (place_cluster_give) and removes it from view->running
 *                   by swap-remove before the next decide(), so that START
 *                   decisions later in the same pass can use what it freed.
 *                   Only PLACE_JOB_PREEMPTIBLE jobs may be named. After the
 *                   pass the host puts the victim back in its queue (with the
 *                   work lost since its last checkpoint and its restart cost);
 *                   it does not appear in this pass's queue again.
 *  PLACE_ROUTE_API  serve view->queue[index], a replica of a service
 *                   (PLACE_JOB_SERVICE and PLACE_JOB_API_OK), through an API
 *                   instead of owned capacity. The host marks the entry
 *                   PLACE_Q_ROUTED, takes it out of the queue after the pass
 *                   and sends the load that replica would have served to the
 *                   API (at the API's per-token price) until the service's
 *                   autoscaler next changes the replica count.
 *
 * A policy returns PREEMPT decisions and then the START that uses the freed
 * capacity, one per decide() call (the composed policy does exactly that). */
enum place_decision_kind {
    PLACE_START = 1,
    PLACE_PREEMPT = 2,
    PLACE_ROUTE_API = 3,
};

/* A decision. The host sets `parts` to a buffer of `cap_parts` entries before
 * each decide() call; the policy fills kind, index, n_parts and parts. */
typedef struct place_decision {
    uint32_t kind;
    uint32_t index;
    uint32_t n_parts;
    uint32_t cap_parts;
    place_part *parts;
} place_decision;

/* ------------------------------------------------------------------------- */
/* Policies                                                                   */

/* A scheduling policy: a table with a version and a size, so a host can tell a
 * table built against another version of this header. Every function may be
 * called only from one thread at a time per state. */
typedef struct place_policy {
    uint32_t abi;  /* PLACE_ABI_VERSION */
    uint32_t size; /* sizeof(place_policy) */
    const char *name;
    const char *summary;
    /* Build a policy state from an argument string (may be NULL or ""). On
     * failure, err (err_len bytes, may be 0) says which argument is wrong. */
    int (*create)(const place_env *env, const char *args, void **state, char *err, size_t err_len);
    void (*destroy)(void *state);
    /* A pass starts: the view is what the policy will be asked about. May be NULL. */
    int (*begin)(void *state, const place_view *v);
    /* The next decision (PLACE_OK with *d filled), PLACE_DONE, or an error. */
    int (*decide)(void *state, const place_view *v, place_decision *d);
    /* The host applied (status PLACE_OK) or refused (a PLACE_ERR_*) decision d;
     * the view already reflects it. May be NULL. */
    void (*observe)(void *state, const place_view *v, const place_decision *d, int status);
    /* After a pass: the earliest time after v->now_us at which the policy
     * would decide differently even if nothing else changed (a reclaim delay
     * running out), or PLACE_T_NEVER. A host that runs passes only on change
     * runs one then. May be NULL (never). */
    int64_t (*wake)(void *state, const place_view *v);
} place_policy;

/* Properties of a policy a host may rely on to do less work
 * (place_spec_props).
 *
 * PLACE_POLICY_IDLE_WHEN_FULL: a pass whose view has no fully free GPU in
 * service (cluster->gpus_free == 0) and no waiting job that could use less
 * than a whole GPU (every queued job has gpus >= 1 and gpu_milli == 1000)
 * decides nothing, leaves the policy's state as if the pass had not run, and
 * ends with wake() answering PLACE_T_NEVER. A host may then skip the pass
 * (begin, decide and wake alike); its decisions stay the same.
 *
 * The composed policy claims it when every component is provably so: an
 * order without state (create == NULL) or arrival order; a PLACE_FIT_PURE fit
 * without begin(); a backfilling rule without state, begin(), observe(),
 * allow() or hopeless() (none, greedy) or one that declares
 * PLACE_BF_IDLE_WHEN_FULL (place_backfill.flags); preempt, service and
 * partition rules that do nothing (no plan, no place, partition=none). Preemption, services,
 * partitions and reservations may act with no GPU free, so they never claim
 * it by default.
 *
 * PLACE_POLICY_FIFO_FIRST_FREE: on a cluster of nodes of one GPU each, all
 * in service, with no tenant owners, and a queue whose jobs each ask one
 * whole GPU with no type, GPU-memory or host demand any node could refuse,
 * a pass starts the waiting jobs in queue order, each on the lowest-index
 * node whose GPU is free, until no GPU is free; it decides nothing else,
 * keeps no state across passes and wake() answers PLACE_T_NEVER. A host may
 * then make these decisions without running the pass. The composed policy
 * claims it for order=fifo placement=first-fit with a backfilling rule,
 * preempt, service and partition rules that claim
 * PLACE_POLICY_IDLE_WHEN_FULL's conditions (backfill=none or greedy). */
enum place_policy_props {
    PLACE_POLICY_IDLE_WHEN_FULL = 1u << 0,
    PLACE_POLICY_FIFO_FIRST_FREE = 1u << 1,
};

/* The properties (place_policy_props bits) of the policy a specification
 * names, as place_instance_init reads it (a composed specification, a preset,
 * or "NAME ARGS"); 0 when none is claimed or the specification is not one
 * place_instance_init accepts. Only the composed policy claims properties so
 * far (a policy table has no entry for them: adding one is an ABI change). */
uint32_t place_spec_props(const char *spec);

/* Check a table's ABI version and size and that its required entries exist. */
int place_policy_check(const place_policy *p);

/* Find a built-in policy by name ("compose", or a preset such as
 * "fifo-first-fit"); NULL when unknown. */
const place_policy *place_policy_find(const char *name);
/* Built-in policies, in registry order: *n gets their count. */
const place_policy *const *place_policy_list(size_t *n);

/* A policy instance: table + state + env, created from a specification:
 *   "order=fifo placement=best-fit backfill=none"   (the composed policy)
 *   "fifo-best-fit"                                  (a preset name)
 *   "NAME ARGS..."                                    (a whole policy and its args)
 * err (may be NULL) gets a message naming the bad token. */
typedef struct place_instance {
    const place_policy *policy;
    void *state;
    place_env env;
} place_instance;

int place_instance_init(place_instance *pi, const place_env *env, const char *spec, char *err,
                        size_t err_len);
/* The same for a policy table the host brings itself (not in the registry):
 * a production scheduler's own policy runs through the same pass loop. */
int place_instance_init_policy(place_instance *pi, const place_env *env, const place_policy *p,
                               const char *args, char *err, size_t err_len);
void place_instance_fini(place_instance *pi);

/* ------------------------------------------------------------------------- */
/* Components of the composed policy                                          */
/*
 * The composed policy ("compose", the default) reads a specification of
 * key=value tokens:
 *
 *     order=ORDER placement=FIT backfill=RULE preempt=RULE service=RULE
 *     partition=RULE
 *
 * each value a component name, optionally followed by ':' and arguments that
 * the component parses ("placement=fgd:0.5@30,1@50,8@20", "order=las:3600,36000").
 * Missing keys take the defaults fifo, first-fit, none, none, none, none.
 *
 * A pass of the composed policy:
 *   1. begin: every component's begin(); the order fills a permutation of the
 *      queue (none is built for FIFO).
 *   2. decide walks the permutation from a cursor. For each waiting job, the
 *      service rule places it when it is a replica (PLACE_JOB_SERVICE) and a
 *      service rule is set; otherwise the fit chooses parts. The backfilling
 *      rule's allow() is consulted for every candidate part, so reservations
 *      of jobs ahead are respected.
 *   3. A job that does not fit is offered to the preemption rule while no
 *      reservation is held: if it finds victims, decide returns their PREEMPT
 *      decisions one per call and then the job's START on the freed capacity.
 *      Otherwise the backfilling rule says whether the pass stops (strict
 *      order) or goes on, after it may have made a reservation for the job.
 *
 * Writing a component is one file with its table and one line in registry.c.
 * Components of ABI 2 are compiled with the library (they have no version of
 * their own); a component that keeps state allocates it in create() through
 * env and frees it in destroy(). A NULL create means "no state, no arguments".
 */

/* What a fit is given besides the view and the job. allow (may be NULL) is the
 * backfilling rule's veto: a fit must not return a part for which it answers
 * 0; place_fit_allowed() wraps the test. */
typedef struct place_fit_ctx {
    const place_env *env;
    int (*allow)(void *ud, const place_view *v, const place_job *j, const place_part *p);
    void *allow_ud;
} place_fit_ctx;

static inline int place_fit_allowed(const place_fit_ctx *x, const place_view *v, const place_job *j,
                                    const place_part *p)
{
    return !x || !x->allow || x->allow(x->allow_ud, v, j, p);
}

/* Component constructor: build state from args (never NULL; "" when none).
 * On a bad argument return PLACE_ERR_SPEC with a message in err. */
typedef int (*place_create_fn)(const place_env *env, const char *args, void **state, char *err,
                               size_t err_len);

/* Queue order: fill perm[0..n) with the queue indices in the order the policy
 * considers them. perm arrives holding 0..n-1. sort == NULL means arrival order
 * itself, and then no permutation is built at all (a pass stays O(1) when the
 * head of a strict queue does not fit). Ties must be broken deterministically
 * (the composed policy's orders keep arrival order among equals). */
typedef struct place_order {
    const char *name;
    const char *summary;
    place_create_fn create; /* may be NULL */
    void (*destroy)(void *state);
    int (*sort)(void *state, const place_view *v, uint32_t *perm, uint32_t n);
} place_order;

/* Placement: choose parts for job j now (d->parts has d->cap_parts room).
 * Returns PLACE_OK with d->n_parts set (kind and index are the caller's), or
 * PLACE_ERR_NOFIT. PLACE_FIT_SCANS says the rule scores every candidate node,
 * so its cost per decision is O(nodes), not an index lookup. PLACE_FIT_PURE
 * says a call changes nothing (no state, no randomness) and, for a whole-GPU
 * gang, returns only parts on distinct nodes, each of at most the node's free
 * GPUs and accepted by allow(): so when the backfilling rule finds the job
 * hopeless (place_backfill.hopeless), the composed policy may skip the call,
 * which could only have answered PLACE_ERR_NOFIT. */
enum place_fit_flags { PLACE_FIT_SCANS = 1u << 0, PLACE_FIT_PURE = 1u << 1 };
typedef struct place_fit {
    const char *name;
    const char *summary;
    uint32_t flags;
    place_create_fn create; /* may be NULL */
    void (*destroy)(void *state);
    int (*begin)(void *state, const place_view *v); /* may be NULL */
    int (*fit)(void *state, const place_view *v, const place_job *j, place_decision *d,
               const place_fit_ctx *ctx);
} place_fit;

/* Backfilling: what happens when the job at the cursor does not fit.
 * blocked() answers PLACE_BF_STOP (strict order: the pass ends) or
 * PLACE_BF_SKIP (go on with the next job), after it may have reserved capacity
 * for the job; or PLACE_BF_DONE: skip, and no later job of this pass can start
 * now (the rule's own bound: too few free units for any waiting job), so a host
 * in which nothing else acts on a job that cannot start (no partition rule, no
 * preemption while a reservation is held) may end the pass; a host that does
 * not know the answer treats it as PLACE_BF_SKIP, with the same decisions; allow() then vetoes
 * parts that would delay a reservation (NULL when the rule keeps none); observe() hears of every
 * applied decision. hopeless() (may be NULL) answers 1 only when no set of parts on distinct nodes,
 * each of at most the node's fully free GPUs and each accepted by allow(), adds up to whole-GPU job
 * j's gang: a bound the rule can answer without a walk over the free nodes (the composed policy
 * then skips the fit if it is PLACE_FIT_PURE). 0 means "perhaps". */
enum place_backfill_answer { PLACE_BF_STOP = 0, PLACE_BF_SKIP = 1, PLACE_BF_DONE = 2 };
typedef struct place_backfill {
    const char *name;
    const char *summary;
    place_create_fn create; /* may be NULL */
    void (*destroy)(void *state);
    int (*begin)(void *state, const place_view *v); /* may be NULL */
    int (*blocked)(void *state, const place_view *v, uint32_t i);
    int (*allow)(void *state, const place_view *v, const place_job *j, const place_part *p);
    void (*observe)(void *state, const place_view *v, const place_decision *d); /* may be NULL */
    int (*reserving)(const void *state); /* holds a reservation now? NULL = never */
    int (*hopeless)(void *state, const place_view *v, const place_job *j);
    /* PLACE_BF_IDLE_WHEN_FULL: the rule keeps state (a reservation, a
     * profile), but a pass with no whole GPU free and only whole-GPU jobs
     * waiting starts nothing through it and leaves nothing that a later pass
     * reads (its begin() rebuilds what the pass uses): the composed policy may
     * then claim PLACE_POLICY_IDLE_WHEN_FULL (test_place_idle checks it). A
     * rule without state, begin(), observe(), allow() or hopeless() needs no
     * flag. */
    uint32_t flags;
} place_backfill;
enum place_backfill_flags { PLACE_BF_IDLE_WHEN_FULL = 1u << 0 };

/* Preemption: queue entry i does not fit. Choose running jobs to stop so that
 * it does: write their running indices to victims (room for cap_victims),
 * their count to *n_victims (>= 1) and the job's placement on the capacity
 * they free to d (d->n_parts, d->parts), and return PLACE_OK; or return
 * PLACE_ERR_NOFIT. The rule must only name PLACE_JOB_PREEMPTIBLE jobs. */
typedef struct place_preempt {
    const char *name;
    const char *summary;
    place_create_fn create; /* may be NULL */
    void (*destroy)(void *state);
    int (*plan)(void *state, const place_view *v, uint32_t i, uint32_t *victims,
                uint32_t cap_victims, uint32_t *n_victims, place_decision *d);
    /* A pass starts (may be NULL): state the rule keeps for the pass (its
     * candidate victims, built once instead of at every plan()) is dropped
     * here. observe (may be NULL) hears of every applied decision, as the
     * backfilling rule's does, so that such state follows the running set. */
    int (*begin)(void *state, const place_view *v);
    void (*observe)(void *state, const place_view *v, const place_decision *d);
} place_preempt;

/* Service replicas (PLACE_JOB_SERVICE): place queue entry i. Returns PLACE_OK
 * with d->n_parts and d->parts set (a START), PLACE_ROUTED when the replica
 * should be served through an API instead (PLACE_ROUTE_API), or
 * PLACE_ERR_NOFIT to leave it queued. */
typedef struct place_service {
    const char *name;
    const char *summary;
    place_create_fn create; /* may be NULL */
    void (*destroy)(void *state);
    int (*place)(void *state, const place_view *v, uint32_t i, place_decision *d,
                 const place_fit_ctx *ctx);
} place_service;

/* Partition: how node owners (place_cluster.node_tenant) bound where a job
 * may run (docs/partition.md). allow() answers whether job j may take
 * capacity on node n in a phase: PLACE_PHASE_HOME (its tenant's own nodes and
 * shared ones) or PLACE_PHASE_BORROW (also idle nodes other tenants lend).
 * The composed policy places every job at home first and, when the rule has
 * PLACE_PARTITION_LENDS and the job is PLACE_JOB_PREEMPTIBLE, on borrowed
 * capacity next. With PLACE_PARTITION_QUEUES a job that does not fit stops
 * only its own tenant's queue (one queue per tenant, as Kueue's ClusterQueues
 * or YARN's leaf queues), not the pass. reclaim() (may be NULL) is asked,
 * before the preemption rule, for a job that does not fit: it may plan the
 * eviction of borrowers from the job's own nodes, as place_preempt.plan
 * does. begin() (may be NULL) starts a pass; wake() (may be NULL) gives
 * place_policy.wake. */
enum place_partition_phase { PLACE_PHASE_HOME = 0, PLACE_PHASE_BORROW = 1 };
enum place_partition_flags { PLACE_PARTITION_QUEUES = 1u << 0, PLACE_PARTITION_LENDS = 1u << 1 };
typedef struct place_partition {
    const char *name;
    const char *summary;
    uint32_t flags;
    place_create_fn create; /* may be NULL */
    void (*destroy)(void *state);
    int (*begin)(void *state, const place_view *v);
    int (*allow)(void *state, const place_view *v, const place_job *j, uint32_t node, int phase);
    int (*reclaim)(void *state, const place_view *v, uint32_t i, uint32_t *victims,
                   uint32_t cap_victims, uint32_t *n_victims, place_decision *d);
    int64_t (*wake)(void *state, const place_view *v);
    /* may be NULL: every decision of the pass once applied (status PLACE_OK) or
     * refused, as place_policy.observe; v is the view after it */
    void (*observe)(void *state, const place_view *v, const place_decision *d, int status);
} place_partition;

/* The registries (registry.c): find a component by name, NULL when unknown;
 * list all of a kind in registry order (*n gets the count). */
const place_order *place_order_find(const char *name);
const place_fit *place_fit_find(const char *name);
const place_backfill *place_backfill_find(const char *name);
const place_preempt *place_preempt_find(const char *name);
const place_service *place_service_find(const char *name);
const place_partition *place_partition_find(const char *name);
const place_order *const *place_order_list(size_t *n);
const place_fit *const *place_fit_list(size_t *n);
const place_backfill *const *place_backfill_list(size_t *n);
const place_preempt *const *place_preempt_list(size_t *n);
const place_service *const *place_service_list(size_t *n);
const place_partition *const *place_partition_list(size_t *n);

/* Helpers for writing fits (fit_common.c). */
/* Could a GPU of type t ever serve the job's per-GPU request (type allowed
 * and enough memory)? */
int place_type_ok(const place_cluster *c, const place_job *j, uint32_t t);
/* Host CPU and memory of node n suffice for the job (whole job on one node). */
int place_host_ok(const place_cluster *c, uint32_t n, const place_job *j);
/* Does GPU g (index within node) have room for the job's share and memory? */
int place_gpu_share_fits(const place_cluster *c, uint32_t node, uint32_t g, const place_job *j);
/* Fill d with a one-part whole-GPU placement on node (n_parts = 1). */
void place_decide_whole(place_decision *d, const place_job *j, uint32_t node);
/* Fill d with a one-part share placement on GPU g of node. */
void place_decide_share(place_decision *d, const place_job *j, uint32_t node, uint32_t g);
/* A CPU-only job (gpus == 0) on the first node in service with the host CPU
 * and memory. Cost O(nodes) in the worst case. */
int place_fit_cpu_only(const place_view *v, const place_job *j, place_decision *d,
                       const place_fit_ctx *ctx);
/* A gang over several nodes of one type, lowest type first, nodes in index
 * order, each giving all its free GPUs, until the gang is complete. */
int place_fit_span_first(const place_view *v, const place_job *j, place_decision *d,
                         const place_fit_ctx *ctx);

/* ------------------------------------------------------------------------- */
/* The pass: the loop both the simulator and `tarmac place` run.              */

/* The host applies a decision the library already checked (see the protocol
 * at place_decision_kind): START: place_cluster_take, mark the entry STARTED,
 * append to running; PREEMPT: place_cluster_give, swap-remove from running;
 * ROUTE_API: mark the entry ROUTED. It updates v->running and v->n_running.
 * It returns PLACE_OK or an error, which ends the pass with that error. */
typedef int (*place_apply_fn)(void *host, place_view *v, place_decision *d);

typedef struct place_pass_stats {
    uint32_t started, preempted, routed, invalid;
    int last_invalid; /* status of the last refused decision */
    int64_t wake_us;  /* the policy's wake() after a pass that ended well; else PLACE_T_NEVER */
} place_pass_stats;

/* Run one pass: begin, then decide/check/apply until the policy says DONE.
 * `queue_state` is the host's writable array behind v->queue_state. Invalid
 * decisions are refused (counted in stats, the queue entry marked SKIPPED) and
 * the pass goes on; a policy that keeps deciding beyond a bound proportional
 * to the queue and running set ends the pass with PLACE_ERR_LOOP. `parts` is
 * a scratch buffer of cap_parts entries for decisions. */
int place_pass_run(const place_instance *pi, place_view *v, uint8_t *queue_state, place_part *parts,
                   uint32_t cap_parts, place_apply_fn apply, void *host, place_pass_stats *stats);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
