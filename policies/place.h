/*
 * place.h — tarmac's placement core: the one public header of policies/.
 *
 * This is the library a production scheduler links and the simulator calls,
 * through exactly the same functions (../shared/DESIGN.md §6). It depends on
 * the C standard library only: no globals, no I/O, no clock, no abort. Memory
 * comes from an allocator the host hands in; randomness from a function the
 * host hands in.
 *
 * The pieces:
 *   place_cluster   free capacity per GPU, node and GPU type, as structure-of-
 *                   arrays plus an index (per type and free-GPU count) so that
 *                   first-fit and best-fit need no scan of all nodes. The host
 *                   owns it and changes it only through place_cluster_take/give/
 *                   set_up, which keep the index true.
 *   place_job       a job waiting to start (or running, inside place_running).
 *   place_view      what a policy sees: the cluster, the queue in arrival order,
 *                   the running jobs, the current time. Read-only to policies.
 *   place_decision  what a policy answers: start queue entry i on these parts,
 *                   or preempt running entry k. One decision per call.
 *   place_policy    a table of function pointers with an ABI version and size.
 *   place_pass_run  the loop both hosts run: ask, validate, apply, repeat.
 *
 * Decisions are asked for one at a time and applied by the host before the next
 * call, so a policy always sees the cluster as it is, never a stale copy, and
 * the index answers every query. A policy that needs per-pass state (a sorted
 * queue, an EASY reservation) builds it in begin() and keeps it up to date
 * from observe(), which reports each decision's fate.
 */
#ifndef TARMAC_PLACE_H
#define TARMAC_PLACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version of the policy table and of the structs below; bumped on any change. */
#define PLACE_ABI_VERSION 1u

/* Limits. A GPU type is a bit in a 64-bit mask; a node's GPUs are bits in one too. */
#define PLACE_MAX_TYPES         64u
#define PLACE_MAX_GPUS_PER_NODE 64u
#define PLACE_MILLI_WHOLE       1000u       /* a whole GPU, in milli-GPU */
#define PLACE_GPU_ANY           0xffffu     /* place_part.gpu: "any fully free GPUs" */
#define PLACE_NONE              0xffffffffu /* "no node" / "no index" */

/* Status codes: 0 is success, everything else negative. One table gives the enum,
 * the name and the message (place_strerror). */
#define PLACE_ERRORS(X)                                                                            \
    X(PLACE_OK, 0, "ok")                                                                           \
    X(PLACE_DONE, 1, "no further decision")                                                        \
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
    X(PLACE_ERR_PREEMPT, -15, "job is not preemptible")

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

/* Structure-of-arrays state of every node and GPU. Policies read these fields
 * directly (they are the view); only the place_cluster_* functions write them.
 * Node indices are dense, 0..n_nodes-1, in the order the host added them;
 * "first" always means lowest index. */
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

    /* index: by_free[t][f] = nodes of type t in service with exactly f fully free
     * GPUs; any_share[t] = nodes of type t in service with some GPU partly or
     * fully free (candidates for a GPU share); up[t] = nodes of type t in service. */
    place_bits *by_free[PLACE_MAX_TYPES]; /* type_max_gpus[t] + 1 bit sets each */
    place_bits any_share[PLACE_MAX_TYPES];
    place_bits up[PLACE_MAX_TYPES];
    uint32_t index_nodes; /* capacity the index was built for */

    place_env env;
} place_cluster;

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
};

/* A job as a policy sees it. Times in microseconds of simulated (or wall) time. */
typedef struct place_job {
    uint64_t id;           /* the host's id, echoed in diagnostics */
    int64_t submit_us;     /* arrival */
    int64_t estimate_us;   /* run-time estimate (user's or trace's); -1 unknown */
    int64_t deadline_us;   /* -1 none */
    double attained_gpu_s; /* GPU-seconds of service received so far (for LAS orders) */
    const double *speed;   /* relative speed per GPU type (n_types), NULL = 1 everywhere */
    uint64_t type_mask;    /* allowed GPU types (bit t); 0 = any type */
    uint32_t gpus;         /* gang size in GPUs; 0 = a CPU-only job */
    uint32_t gpu_milli;    /* share of each GPU, 1..1000; < 1000 only when gpus == 1 */
    uint32_t gpu_mem_mib;  /* memory needed on each GPU */
    uint32_t flags;        /* place_job_flags */
    int64_t cpu_milli;     /* host CPU for the whole job */
    int64_t host_mem_mib;  /* host memory for the whole job */
    int32_t priority;      /* larger = more important */
    uint32_t tenant;
    uint32_t cls; /* workload class index */
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

/* Per queue entry state, maintained by the host during a pass. */
enum place_queue_state {
    PLACE_Q_WAITING = 0,
    PLACE_Q_STARTED = 1, /* started during this pass */
    PLACE_Q_SKIPPED = 2, /* an invalid decision named it; not offered again this pass */
};

typedef struct place_view {
    int64_t now_us;
    const place_cluster *cluster;
    const place_job *queue;     /* in arrival order (ties by the host's sequence) */
    const uint8_t *queue_state; /* place_queue_state per entry */
    uint32_t n_queue;
    const place_running *running;
    uint32_t n_running;
} place_view;

enum place_decision_kind {
    PLACE_START = 1,   /* start view->queue[index] on parts */
    PLACE_PREEMPT = 2, /* preempt view->running[index] */
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
    /* A pass starts: the view is what the policy will be asked about. */
    int (*begin)(void *state, const place_view *v);
    /* The next decision, or PLACE_DONE. */
    int (*decide)(void *state, const place_view *v, place_decision *d);
    /* The host applied (status PLACE_OK) or refused (a PLACE_ERR_*) decision d;
     * the view already reflects it. May be NULL. */
    void (*observe)(void *state, const place_view *v, const place_decision *d, int status);
} place_policy;

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
void place_instance_fini(place_instance *pi);

/* ------------------------------------------------------------------------- */
/* The pass: the loop both the simulator and `tarmac place` run.              */

/* The host applies a decision the library already checked: for START it calls
 * place_cluster_take and marks the queue entry STARTED; for PREEMPT it calls
 * place_cluster_give and removes the running entry. It returns PLACE_OK or an
 * error, which ends the pass with that error. */
typedef int (*place_apply_fn)(void *host, place_view *v, place_decision *d);

typedef struct place_pass_stats {
    uint32_t started, preempted, invalid;
    int last_invalid; /* status of the last refused decision */
} place_pass_stats;

/* Run one pass: begin, then decide/check/apply until the policy says DONE.
 * `queue_state` is the host's writable array behind v->queue_state. Invalid
 * decisions are refused (counted in stats, the queue entry marked SKIPPED) and
 * the pass goes on; a policy that keeps deciding beyond a bound proportional
 * to the queue and running set ends the pass with PLACE_ERR_LOOP. `parts` is
 * a scratch buffer of cap_parts entries for decisions. */
int place_pass_run(const place_instance *pi, place_view *v, uint8_t *queue_state, place_part *parts,
                   uint32_t cap_parts, place_apply_fn apply, void *host, place_pass_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
