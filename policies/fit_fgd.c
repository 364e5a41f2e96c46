/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit_fgd.c — Fragmentation Gradient Descent: place where the expected
 * fragmentation of the cluster grows least.
 *
 * Definitions (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
 * Workloads with Fragmentation Gradient Descent", USENIX ATC 2023, section 3):
 *  - The target workload is a distribution of "typical pods" M: task shapes m
 *    (GPUs, share of each GPU, host CPU) with popularity p_m.
 *  - The fragmentation F_n(m) of node n for task m is the free GPU capacity of
 *    n that m cannot use: all of the node's free GPU share when m cannot run
 *    on n at all (too few usable GPUs, too little CPU, a type m may not use,
 *    or m needs no GPU), and otherwise the free share of the GPUs that cannot
 *    host m (a GPU with less free share than m asks per GPU).
 *  - The node's expected fragmentation is F_n(M) = sum_m p_m F_n(m); the
 *    cluster's is the sum over nodes.
 *  - FGD places a task where the increase of the cluster's expected
 *    fragmentation (the "gradient") is smallest. Only the chosen node changes,
 *    so the increase is F_n'(M) - F_n(M) on that node, for every node and,
 *    for a share, every GPU it could take.
 * Generalisations here: a GPU that has the share but not the GPU memory a
 * task needs cannot host it either (tarmac models GPU memory; the paper's
 * traces bind on share); host memory counts like host CPU. Arithmetic is in
 * integers (milli-GPU x integer weights), so ties are exact and go to the
 * lowest node index, then the lowest GPU index.
 *
 * The typical pods are an argument, "placement=fgd:0.5@30,1@50,8@20" (GPUs
 * per task, a fraction being a share of one GPU, optionally "/CORES" and
 * "^TYPES" (a mask of allowed type indices), then '@' and a weight; at most
 * 256 pods; 0 GPUs is a CPU-only pod, for which all of a node's free GPU is
 * fragment, as in the reference simulator), or learned each pass from the
 * jobs in the view (the
 * waiting queue and the running jobs, which is what a snapshot holds too):
 * "placement=fgd" or "placement=fgd:top=16" keeps the 16 most frequent shapes.
 * The pass's distribution is fixed at begin(), so a snapshot of the view
 * reproduces it.
 *
 * The openb packing experiment (sim/studies/pack.c) gives a bare "fgd" the pod
 * list's typical pods, computed as the reference simulator does.
 *
 * "placement=fgd:k8s[:PODS]" scores as the reference simulator
 * (hkust-adsl/kubernetes-scheduler-simulator, plugin/fgd_score.go) does
 * instead: a node's score is int(100 sigmoid(-gradient / 1000)), the
 * gradient in milli-GPU with the popularities summing to 1 (FGDScorePlugin
 * .Score and calculateGpuShareFragExtendScore: int64(sigmoid((F before -
 * F after) / 1000) x 100)), a share's GPU is the first with the node's best
 * score (allocateGpuIdBasedOnFGDScore), and equal node scores go to the
 * reference's node rank (fit_k8s.c: its selectHost keeps the first node
 * name, names numbered by one random permutation per run). Scores are
 * integers in 0..100, so nodes whose gradients differ by less than about
 * 40 milli-GPU (near 0) tie.
 *
 * FGD must score every candidate node (PLACE_FIT_SCANS), though without a
 * veto it finds the best one without visiting them (below). The fragmentation
 * after a candidate is derived from per-pod sums of the node (usable GPUs,
 * unusable share), so a share's candidate GPUs cost O(pods) each, not
 * O(pods x GPUs). A gang that fits no single node spans nodes first-fit if
 * the job allows it.
 *
 * Caching. Between two decisions only the nodes that took or gave back work
 * change, so the per-node work is kept:
 *  - per node, its per-pod sums, free share, host room and F_n(M), with a
 *    snapshot of everything they were computed from (host CPU and memory
 *    free, in service, type, first GPU and GPU count, and per GPU its free
 *    share, free memory and in service). A node is recomputed, and given a
 *    new stamp, when the snapshot differs: checking costs O(GPUs of the
 *    node), so any change the host makes to the cluster is seen, however it
 *    is made. Everything is dropped when the typical pods differ from those
 *    the cache was built for (compared pod by pod at each decision: learned
 *    pods change with the view), or the cluster (pointer, node, GPU or type
 *    count, type memory);
 *  - per job shape (GPUs, share, GPU memory, host CPU and memory; the
 *    FGD_SHAPES most recently used), each node's result for it (the least
 *    gradient and its GPU; in k8s mode the node's score and GPU) with the
 *    stamp of the node it was computed for. Used only when no backfilling
 *    veto is given, since a veto may depend on more than the node (then the
 *    per-node sums are still used and the veto is asked exactly as before).
 * A share's GPUs with the same (free share, free memory) have the same
 * gradient, and ties go to the lowest GPU, so each distinct state is scored
 * once. Results are those of scoring from scratch, decision for decision, and
 * k8s mode's node ranks are drawn in begin(), so its draws are the same too
 * (tests/test_fgd_cache.c checks both against the uncached algorithm). Cost per decision:
 * O(candidate nodes x GPUs) to check the snapshots; O(GPUs x pods) more for each node that changed
 * since the last decision; and for each node whose result for the job's shape is not kept, O(pods)
 * for a gang, O(pods) per distinct GPU state for a share. Memory: O(nodes x pods) sums, O(GPUs)
 * snapshots, O(FGD_SHAPES x nodes) results.
 *
 * Best node without a scan. Where no veto is given (and, in k8s mode, every
 * node has its rank), a decision does not visit the candidates at all: per
 * job shape and GPU type, a tree over the type's nodes (in index order)
 * keeps in every subtree its best candidate, ordered exactly as the scan's
 * consider() orders them (least gradient, then lowest node; k8s: highest
 * score, then lowest rank), a total order, so the root is the scan's choice
 * and the best of the allowed types' roots is the decision. A leaf is the
 * node when the scan would score it (in service, host room, enough free
 * GPUs or share, a GPU that takes the share) with its result as above, else
 * empty. The cluster's change journal (place.h) names the nodes changed since
 * the last decision; they go to a log, and a shape brings in, when next
 * used, the leaves of the nodes logged since its last use (each node once:
 * the latest entry) and their paths to the root. A shape whose trees are
 * absent, or behind a log that outgrew 4 x nodes entries, or a journal that
 * overflowed (another cluster), rebuilds them. Cost per decision: O(types)
 * to answer, plus O(pods + log nodes) per logged node the shape had not
 * seen (amortized, at most the shapes in use per change), O(nodes) per
 * rebuild. Memory: 2 x nodes node indices per shape seen. "placement=
 * fgd:scan[:ARGS]" scores every candidate as before, which the tests
 * (tests/test_fgd_cache.c, tests/test_packfast.c) check it against.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FGD_MAX_GIVEN 256

typedef struct pod {
    uint32_t gpus, milli, gpu_mem;
    int64_t cpu, mem;
    uint64_t type_mask;
    int64_t w;
} pod;

/* What FGD keeps of a node for each typical pod m, so that the fragmentation
 * after a candidate placement costs O(pods), not O(pods x GPUs):
 *   access   m may use the node's type (and needs GPUs at all);
 *   usable   GPUs in service that can host m (share and GPU memory);
 *   unusable the free share of the GPUs in service that cannot.
 * F_n(m) = unusable when access, host room for m and usable >= m's GPUs;
 * otherwise the node's whole free share. */
typedef struct podsum {
    int access;
    uint32_t usable;
    int64_t unusable;
} podsum;

/* A node's cached state: the snapshot it was computed from (the GPUs' part is
 * in fgd.gpu_snap) and what follows from it. stamp 0: nothing cached. */
typedef struct node_cache {
    uint64_t stamp;             /* unique per (node state, pods) computed */
    int64_t cpu_free, mem_free; /* snapshot: host room */
    int64_t total;              /* free share of the GPUs in service */
    int64_t f0;                 /* F_n(M) */
    uint32_t gpu0;              /* snapshot: first GPU, GPU count, type, in service */
    uint16_t type;
    uint8_t n_gpus, up;
} node_cache;

/* A node's result for one job shape, valid while the stamp in its upper 56
 * bits is the node's; the low 8 bits hold its GPU (0 for a gang; FGD_NO_GPU:
 * no GPU of the node can take the share). Stamps stay below FGD_STAMP_END. */
typedef struct shape_res {
    uint64_t stamp_gpu;
    int64_t val; /* the least gradient; k8s mode: the node's score */
} shape_res;

#define FGD_NO_GPU    0xffu
#define FGD_STAMP_END (1ull << 56)
/* Shapes whose results are kept: openb_pod_list_default has 151 (GPUs,
 * share, CPU, memory): 256 keep them all (at 128, each rare shape's return
 * rebuilt its trees, O(nodes): most of a 20,000-node packing run). Memory:
 * FGD_SHAPES x nodes x 24 bytes at most (results and trees: 59 MiB at
 * 10,000 nodes), allocated as shapes are seen. */
#define FGD_SHAPES 256

typedef struct shape_cache {
    int live;
    uint32_t gpus, milli, gpu_mem;
    int64_t cpu, mem;
    uint64_t used;  /* last decision that used it (the least is replaced) */
    shape_res *res; /* per node */
    uint32_t cap_res;
    /* the fast path ("Best node without a scan"): per GPU type t, a tree
     * over the type's nodes at tree[2 * toff[t]] holding the best candidate
     * node of every subtree (PLACE_NONE: none); valid while tree_ok and the
     * nodes changed since log_pos have been brought in */
    uint32_t *tree;
    uint32_t cap_tree;
    int tree_ok;
    uint64_t log_pos;
} shape_cache;

typedef struct fgd {
    place_env env;
    int learn;
    int k8s;      /* score and break ties as the reference simulator ("k8s:") */
    int fast;     /* answer from the trees where it may ("scan:" turns it off) */
    place__k8s k; /* k8s mode: node ranks */
    uint32_t top;
    pod given[FGD_MAX_GIVEN];
    uint32_t n_given;
    pod *pods; /* this pass's distribution */
    uint32_t n_pods, cap_pods;
    int64_t w_total; /* sum of the pods' weights */
    podsum *scratch; /* per-pod sums of a node after a candidate */
    uint32_t cap_scratch;

    /* the cache (see "Caching" above); valid = 0: rebuild at the next fit */
    int valid;
    const place_cluster *c_cluster; /* what the cache was built for */
    uint32_t c_nodes, c_gpus, c_types;
    uint32_t c_type_mem[PLACE_MAX_TYPES];
    pod *c_pods;
    uint32_t c_n_pods, cap_c_pods;
    node_cache *nodes;
    uint32_t cap_nodes;
    podsum *sums; /* c_nodes x c_n_pods: node n's at n * c_n_pods */
    uint32_t cap_sums;
    uint64_t *gpu_snap; /* per GPU: state_word() when its node was cached */
    uint32_t cap_gpu_snap;
    uint64_t next_stamp, tick;
    shape_cache shapes[FGD_SHAPES];

    /* the fast path: the cluster's change journal as far as read (serial,
     * changes), the nodes it named since (absolute positions log_base ..
     * log_base + n_log), and the nodes grouped by type in index order
     * (type t's at tnodes[toff[t] .. toff[t + 1]], node n at tpos[n]) */
    uint64_t j_serial, j_changes, log_base;
    uint32_t *log;
    uint32_t n_log, cap_log;
    uint64_t *last; /* per node: the position of its latest entry in the log */
    uint32_t cap_last;
    uint32_t *tnodes, *tpos;
    uint32_t cap_tnodes, cap_tpos;
    uint32_t toff[PLACE_MAX_TYPES + 1];
} fgd;

static int bad_args(char *err, size_t err_len, const char *args)
{
    if (err && err_len)
        snprintf(err, err_len,
                 "placement 'fgd': expected typical pods GPUS[/CORES][^TYPES]@WEIGHT,... (e.g. "
                 "0.5@30,1@50,8@20), or top=N, got '%.60s'",
                 args);
    return PLACE_ERR_SPEC;
}

static int parse_pods(fgd *s, const char *args)
{
    const char *p = args;
    while (*p) {
        char *end;
        double g = strtod(p, &end);
        if (end == p || !isfinite(g) || g < 0 || g > PLACE_MAX_GPUS_PER_NODE)
            return PLACE_ERR_SPEC;
        double cores = 0;
        p = end;
        if (*p == '/') {
            cores = strtod(p + 1, &end);
            if (end == p + 1 || !isfinite(cores) || cores < 0 || cores > 1e9)
                return PLACE_ERR_SPEC;
            p = end;
        }
        uint64_t mask = 0;
        if (*p == '^') {
            unsigned long long mk = strtoull(p + 1, &end, 10);
            if (end == p + 1 || mk == 0)
                return PLACE_ERR_SPEC;
            mask = (uint64_t)mk;
            p = end;
        }
        if (*p != '@')
            return PLACE_ERR_SPEC;
        double w = strtod(p + 1, &end);
        if (end == p + 1 || !isfinite(w) || !(w > 0) || w > 1e6)
            return PLACE_ERR_SPEC;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return PLACE_ERR_SPEC;
        if (s->n_given == FGD_MAX_GIVEN)
            return PLACE_ERR_SPEC;
        pod *m = &s->given[s->n_given++];
        memset(m, 0, sizeof *m);
        if (g > 0 && g < 1) {
            m->gpus = 1;
            m->milli = (uint32_t)llround(g * PLACE_MILLI_WHOLE);
            if (m->milli == 0 || m->milli >= PLACE_MILLI_WHOLE)
                return PLACE_ERR_SPEC;
        } else {
            if (g != floor(g))
                return PLACE_ERR_SPEC;
            m->gpus = (uint32_t)g;
            m->milli = PLACE_MILLI_WHOLE;
        }
        m->cpu = (int64_t)llround(cores * 1000);
        m->type_mask = mask;
        m->w = (int64_t)llround(w * 1000);
        if (m->w < 1)
            m->w = 1;
    }
    return s->n_given ? PLACE_OK : PLACE_ERR_SPEC;
}

static int fgd_create(const place_env *env, const char *args, void **state, char *err,
                      size_t err_len)
{
    fgd *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->k.env = *env;
    s->learn = 1;
    s->top = 16;
    s->fast = 1;
    if (strncmp(args, "scan", 4) == 0 && (args[4] == '\0' || args[4] == ':')) {
        s->fast = 0;
        args += args[4] ? 5 : 4;
    }
    if (strncmp(args, "k8s", 3) == 0 && (args[3] == '\0' || args[3] == ':')) {
        s->k8s = 1;
        args += args[3] ? 4 : 3;
    }
    if (strncmp(args, "top=", 4) == 0) {
        char *end;
        long k = strtol(args + 4, &end, 10);
        if (*end || k < 1 || k > 4096) {
            place__free(env, s, sizeof *s);
            return bad_args(err, err_len, args);
        }
        s->top = (uint32_t)k;
    } else if (*args) {
        s->learn = 0;
        if (parse_pods(s, args) != PLACE_OK) {
            place__free(env, s, sizeof *s);
            return bad_args(err, err_len, args);
        }
    }
    *state = s;
    return PLACE_OK;
}

static void fgd_destroy(void *state)
{
    fgd *s = state;
    if (!s)
        return;
    place__free(&s->env, s->pods, s->cap_pods * sizeof *s->pods);
    place__free(&s->env, s->scratch, s->cap_scratch * sizeof *s->scratch);
    place__free(&s->env, s->c_pods, s->cap_c_pods * sizeof *s->c_pods);
    place__free(&s->env, s->nodes, s->cap_nodes * sizeof *s->nodes);
    place__free(&s->env, s->sums, s->cap_sums * sizeof *s->sums);
    place__free(&s->env, s->gpu_snap, s->cap_gpu_snap * sizeof *s->gpu_snap);
    for (uint32_t k = 0; k < FGD_SHAPES; k++) {
        place__free(&s->env, s->shapes[k].res, s->shapes[k].cap_res * sizeof *s->shapes[k].res);
        place__free(&s->env, s->shapes[k].tree, s->shapes[k].cap_tree * sizeof *s->shapes[k].tree);
    }
    place__free(&s->env, s->log, s->cap_log * sizeof *s->log);
    place__free(&s->env, s->last, s->cap_last * sizeof *s->last);
    place__free(&s->env, s->tnodes, s->cap_tnodes * sizeof *s->tnodes);
    place__free(&s->env, s->tpos, s->cap_tpos * sizeof *s->tpos);
    place__k8s_fini(&s->k);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

static int shape_cmp(const void *a, const void *b)
{
    const pod *x = a, *y = b;
#define CMP_(f)                                                                                    \
    if (x->f != y->f)                                                                              \
        return x->f < y->f ? -1 : 1;
    CMP_(gpus)
    CMP_(milli)
    CMP_(gpu_mem)
    CMP_(cpu)
    CMP_(mem)
    CMP_(type_mask)
#undef CMP_
    return 0;
}

static int count_cmp(const void *a, const void *b)
{
    const pod *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return shape_cmp(a, b);
}

static pod shape_of(const place_job *j)
{
    pod m = {j->gpus, j->gpu_milli, j->gpu_mem_mib, j->cpu_milli, j->host_mem_mib, j->type_mask, 1};
    return m;
}

static void weigh_pods(fgd *s)
{
    s->w_total = 0;
    for (uint32_t k = 0; k < s->n_pods; k++)
        s->w_total += s->pods[k].w;
}

/* The pass's typical pods: given, or the most frequent shapes in the view. */
static int fgd_begin(void *state, const place_view *v)
{
    fgd *s = state;
    if (s->k8s && place__k8s_begin(&s->k, &s->env, v->cluster) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    if (!s->learn) {
        if (place__grow(&s->env, (void **)&s->pods, &s->cap_pods, s->n_given, sizeof *s->pods))
            return PLACE_ERR_NOMEM;
        memcpy(s->pods, s->given, s->n_given * sizeof *s->pods);
        s->n_pods = s->n_given;
        weigh_pods(s);
        return PLACE_OK;
    }
    uint32_t n = 0, want = v->n_queue + v->n_running;
    if (place__grow(&s->env, (void **)&s->pods, &s->cap_pods, want ? want : 1, sizeof *s->pods))
        return PLACE_ERR_NOMEM;
    for (uint32_t i = 0; i < v->n_queue; i++)
        if (v->queue_state[i] == PLACE_Q_WAITING)
            s->pods[n++] = shape_of(&v->queue[i]);
    for (uint32_t r = 0; r < v->n_running; r++)
        s->pods[n++] = shape_of(&v->running[r].job);
    qsort(s->pods, n, sizeof *s->pods, shape_cmp);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m > 0 && shape_cmp(&s->pods[m - 1], &s->pods[i]) == 0)
            s->pods[m - 1].w++;
        else
            s->pods[m++] = s->pods[i];
    }
    qsort(s->pods, m, sizeof *s->pods, count_cmp);
    s->n_pods = m < s->top ? m : s->top;
    weigh_pods(s);
    return PLACE_OK;
}

typedef struct best {
    int64_t delta;
    uint32_t node, gpu;
    int64_t score; /* k8s mode: the node's integer score */
    uint32_t rank; /* k8s mode: the node's rank (fit_k8s.c) */
} best;

static void consider(best *b, int64_t delta, uint32_t node, uint32_t gpu)
{
    if (b->node == PLACE_NONE || delta < b->delta ||
        (delta == b->delta && (node < b->node || (node == b->node && gpu < b->gpu)))) {
        b->delta = delta;
        b->node = node;
        b->gpu = gpu;
    }
}

/* The reference simulator's node score for a fragmentation change delta
 * (weighted milli-GPU): int(100 * sigmoid(-(delta / W) / 1000)), W the total
 * weight, so the typical pods' popularities sum to 1. */
static int64_t k8s_score(const fgd *s, int64_t delta)
{
    double x = s->w_total > 0 ? (double)delta / (double)s->w_total / 1000.0 : 0.0;
    return (int64_t)(100.0 / (1.0 + exp(x)));
}

/* k8s mode, one node's best (its GPU: the highest score, the first GPU among
 * equals): the highest score wins; among equal scores the lowest node rank
 * (fit_k8s.c), as the reference's selectHost keeps the first node name. */
static void consider_k8s(const fgd *s, best *b, int64_t score, uint32_t node, uint32_t gpu)
{
    uint32_t r = node < s->k.n_rank ? s->k.rank[node] : node;
    if (b->node == PLACE_NONE || score > b->score || (score == b->score && r < b->rank)) {
        b->score = score;
        b->node = node;
        b->gpu = gpu;
        b->rank = r;
    }
}

typedef struct nsum {
    int64_t total, cpu, mem; /* free share of GPUs in service; host room */
} nsum;

static int64_t frag_of(const fgd *s, const nsum *ns, const podsum *ps)
{
    if (ns->total == 0)
        return 0;
    int64_t sum = 0;
    for (uint32_t k = 0; k < s->n_pods; k++) {
        const pod *m = &s->pods[k];
        int fits =
            ps[k].access && ns->cpu >= m->cpu && ns->mem >= m->mem && ps[k].usable >= m->gpus;
        sum += m->w * (fits ? ps[k].unusable : ns->total);
    }
    return sum;
}

static int gpu_hosts(const pod *m, uint32_t milli, uint32_t mem)
{
    return milli >= m->milli && mem >= m->gpu_mem;
}

/* What the snapshot keeps of GPU x: free memory, free share, in service. */
static inline uint64_t state_word(const place_cluster *c, uint32_t x)
{
    return (uint64_t)c->gpu_free_mem_mib[x] << 32 | (uint64_t)c->gpu_free_milli[x] << 1 |
           (uint64_t)(c->gpu_up[x] != 0);
}

static int pods_equal(const pod *a, const pod *b, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (shape_cmp(&a[k], &b[k]) != 0 || a[k].w != b[k].w)
            return 0;
    return 1;
}

/* Bring the cache to this cluster and these pods: when either differs from
 * what it was built for, forget every node (and every shape's results). Cost
 * O(pods + types) when nothing changed, O(nodes + GPUs) otherwise. */
static int cache_sync(fgd *s, const place_cluster *c)
{
    if (s->valid && s->c_cluster == c && s->c_nodes == c->n_nodes && s->c_gpus == c->n_gpus &&
        s->c_types == c->n_types &&
        memcmp(s->c_type_mem, c->type_mem_mib, c->n_types * sizeof *c->type_mem_mib) == 0 &&
        s->c_n_pods == s->n_pods && pods_equal(s->c_pods, s->pods, s->n_pods))
        return PLACE_OK;
    s->valid = 0;
    uint64_t n_sums = (uint64_t)c->n_nodes * s->n_pods; /* at least one: never a NULL base */
    if (n_sums > UINT32_MAX || c->n_types > PLACE_MAX_TYPES ||
        place__grow(&s->env, (void **)&s->c_pods, &s->cap_c_pods, s->n_pods, sizeof *s->c_pods) ||
        place__grow(&s->env, (void **)&s->nodes, &s->cap_nodes, c->n_nodes, sizeof *s->nodes) ||
        place__grow(&s->env, (void **)&s->sums, &s->cap_sums, n_sums ? (uint32_t)n_sums : 1,
                    sizeof *s->sums) ||
        place__grow(&s->env, (void **)&s->gpu_snap, &s->cap_gpu_snap, c->n_gpus,
                    sizeof *s->gpu_snap) ||
        place__grow(&s->env, (void **)&s->tnodes, &s->cap_tnodes, c->n_nodes + 1,
                    sizeof *s->tnodes) ||
        place__grow(&s->env, (void **)&s->tpos, &s->cap_tpos, c->n_nodes + 1, sizeof *s->tpos) ||
        place__grow(&s->env, (void **)&s->last, &s->cap_last, c->n_nodes + 1, sizeof *s->last))
        return PLACE_ERR_NOMEM;
    /* nodes grouped by type, each group in index order (a counting sort) */
    memset(s->toff, 0, sizeof s->toff);
    for (uint32_t n = 0; n < c->n_nodes; n++)
        s->toff[c->node_type[n] + 1]++;
    for (uint32_t t = 0; t < c->n_types; t++)
        s->toff[t + 1] += s->toff[t];
    for (uint32_t t = c->n_types; t < PLACE_MAX_TYPES; t++)
        s->toff[t + 1] = s->toff[t];
    {
        uint32_t fill[PLACE_MAX_TYPES];
        memcpy(fill, s->toff, sizeof fill);
        for (uint32_t n = 0; n < c->n_nodes; n++) {
            uint32_t q = fill[c->node_type[n]]++;
            s->tnodes[q] = n;
            s->tpos[n] = q;
        }
    }
    s->j_serial = c->serial;
    s->j_changes = c->changes;
    s->log_base += s->n_log;
    s->n_log = 0;
    if (s->n_pods)
        memcpy(s->c_pods, s->pods, s->n_pods * sizeof *s->pods);
    s->c_n_pods = s->n_pods;
    for (uint32_t n = 0; n < c->n_nodes; n++)
        s->nodes[n].stamp = 0;
    for (uint32_t k = 0; k < FGD_SHAPES; k++)
        s->shapes[k].live = 0;
    s->c_cluster = c;
    s->c_nodes = c->n_nodes;
    s->c_gpus = c->n_gpus;
    s->c_types = c->n_types;
    memset(s->c_type_mem, 0, sizeof s->c_type_mem);
    memcpy(s->c_type_mem, c->type_mem_mib, c->n_types * sizeof *c->type_mem_mib);
    s->valid = 1;
    return PLACE_OK;
}

/* Node n's cache entry, recomputed when its snapshot differs from the node.
 * Cost O(GPUs) to check, O(GPUs x pods) to recompute. */
static const node_cache *node_get(fgd *s, const place_cluster *c, uint32_t n)
{
    node_cache *e = &s->nodes[n];
    uint32_t g0 = c->node_gpu0[n], ng = c->node_gpus[n], t = c->node_type[n];
    if (e->stamp && e->gpu0 == g0 && e->n_gpus == ng && e->type == t && e->up == c->node_up[n] &&
        e->cpu_free == c->node_cpu_free_milli[n] && e->mem_free == c->node_mem_free_mib[n]) {
        uint32_t g = 0;
        while (g < ng && s->gpu_snap[g0 + g] == state_word(c, g0 + g))
            g++;
        if (g == ng)
            return e;
    }
    e->gpu0 = g0;
    e->n_gpus = (uint8_t)ng;
    e->type = (uint16_t)t;
    e->up = c->node_up[n];
    e->cpu_free = c->node_cpu_free_milli[n];
    e->mem_free = c->node_mem_free_mib[n];
    for (uint32_t g = 0; g < ng; g++)
        s->gpu_snap[g0 + g] = state_word(c, g0 + g);
    nsum ns = {0, e->cpu_free, e->mem_free};
    for (uint32_t g = 0; g < ng; g++)
        if (c->gpu_up[g0 + g])
            ns.total += c->gpu_free_milli[g0 + g];
    podsum *ps = s->sums + (size_t)n * s->n_pods;
    for (uint32_t k = 0; k < s->n_pods; k++) {
        const pod *m = &s->pods[k];
        ps[k].access = m->gpus > 0 && (!m->type_mask || ((m->type_mask >> t) & 1u)) &&
                       m->gpu_mem <= c->type_mem_mib[t];
        ps[k].usable = 0;
        ps[k].unusable = 0;
        for (uint32_t g = 0; g < ng; g++) {
            uint32_t x = g0 + g;
            if (!c->gpu_up[x])
                continue;
            if (gpu_hosts(m, c->gpu_free_milli[x], c->gpu_free_mem_mib[x]))
                ps[k].usable++;
            else
                ps[k].unusable += c->gpu_free_milli[x];
        }
    }
    e->total = ns.total;
    e->f0 = frag_of(s, &ns, ps);
    e->stamp = ++s->next_stamp;
    return e;
}

/* Node n's result for job j from its cache entry e: every GPU a share could
 * take (each distinct GPU state once: the first GPU in that state is the one
 * a tie keeps), or the whole gang. Exact mode: the least gradient in *val;
 * k8s mode: the highest score; *gpu the GPU (0 for a gang), PLACE_NONE when
 * no GPU of the node can take the share. after: scratch of s->n_pods. */
static void node_result(const fgd *s, const place_view *v, const place_job *j, uint32_t n,
                        const node_cache *e, const place_fit_ctx *ctx, podsum *after, int64_t *val,
                        uint32_t *gpu)
{
    const place_cluster *c = v->cluster;
    const podsum *ps = s->sums + (size_t)n * s->n_pods;
    uint32_t g0 = e->gpu0, ng = e->n_gpus;
    nsum na = {e->total, e->cpu_free - j->cpu_milli, e->mem_free - j->host_mem_mib};
    if (j->gpus > 0 && j->gpu_milli < PLACE_MILLI_WHOLE) {
        int64_t bv = 0;
        uint32_t bg = PLACE_NONE, n_seen = 0;
        uint64_t seen[PLACE_MAX_GPUS_PER_NODE];
        na.total -= j->gpu_milli;
        for (uint32_t g = 0; g < ng; g++) {
            if (!place__share_ok(v, j, n, g, ctx))
                continue;
            uint32_t x = g0 + g, mi = c->gpu_free_milli[x], me = c->gpu_free_mem_mib[x];
            uint64_t w = (uint64_t)me << 32 | mi;
            uint32_t q = 0;
            while (q < n_seen && seen[q] != w)
                q++;
            if (q < n_seen)
                continue; /* the same gradient as a lower GPU: that one wins a tie */
            if (n_seen < PLACE_MAX_GPUS_PER_NODE)
                seen[n_seen++] = w;
            uint32_t mi2 = mi - j->gpu_milli, me2 = me - j->gpu_mem_mib;
            for (uint32_t k = 0; k < s->n_pods; k++) {
                const pod *m = &s->pods[k];
                int ub = gpu_hosts(m, mi, me), ua = gpu_hosts(m, mi2, me2);
                after[k] = ps[k];
                after[k].usable = after[k].usable - (uint32_t)ub + (uint32_t)ua;
                after[k].unusable += (ub ? 0 : -(int64_t)mi) + (ua ? 0 : (int64_t)mi2);
            }
            int64_t dl = frag_of(s, &na, after) - e->f0;
            int64_t sc = s->k8s ? k8s_score(s, dl) : -dl; /* higher is better */
            if (bg == PLACE_NONE || sc > bv) {
                bv = sc;
                bg = g;
            }
        }
        *val = s->k8s ? bv : -bv;
        *gpu = bg;
        return;
    }
    /* whole GPUs (or none): the gang takes fully free GPUs, which host every
     * pod whose GPU memory fits the type, and leaves them at 0 */
    na.total -= (int64_t)j->gpus * PLACE_MILLI_WHOLE;
    for (uint32_t k = 0; k < s->n_pods; k++) {
        const pod *m = &s->pods[k];
        after[k] = ps[k];
        if (gpu_hosts(m, PLACE_MILLI_WHOLE, c->type_mem_mib[e->type]))
            after[k].usable -= j->gpus;
        else
            after[k].unusable -= (int64_t)j->gpus * PLACE_MILLI_WHOLE;
    }
    int64_t dl = frag_of(s, &na, after) - e->f0;
    *val = s->k8s ? k8s_score(s, dl) : dl;
    *gpu = 0;
}

/* The results of j's shape, or NULL when a veto is given (its answers may
 * depend on more than the node). A shape not seen takes an unused entry or
 * the least recently used one, its results cleared. */
static int shape_get(fgd *s, const place_cluster *c, const place_job *j, const place_fit_ctx *ctx,
                     shape_cache **out)
{
    *out = NULL;
    if (ctx && ctx->allow)
        return PLACE_OK;
    s->tick++;
    shape_cache *victim = NULL;
    for (uint32_t k = 0; k < FGD_SHAPES; k++) {
        shape_cache *h = &s->shapes[k];
        if (h->live && h->gpus == j->gpus && h->milli == j->gpu_milli &&
            h->gpu_mem == j->gpu_mem_mib && h->cpu == j->cpu_milli && h->mem == j->host_mem_mib) {
            h->used = s->tick;
            *out = h;
            return PLACE_OK;
        }
        if (!victim || (victim->live && (!h->live || h->used < victim->used)))
            victim = h;
    }
    victim->live = 0;
    if (place__grow(&s->env, (void **)&victim->res, &victim->cap_res, c->n_nodes ? c->n_nodes : 1,
                    sizeof *victim->res))
        return PLACE_ERR_NOMEM;
    for (uint32_t n = 0; n < c->n_nodes; n++)
        victim->res[n].stamp_gpu = 0;
    victim->live = 1;
    victim->tree_ok = 0;
    victim->gpus = j->gpus;
    victim->milli = j->gpu_milli;
    victim->gpu_mem = j->gpu_mem_mib;
    victim->cpu = j->cpu_milli;
    victim->mem = j->host_mem_mib;
    victim->used = s->tick;
    *out = victim;
    return PLACE_OK;
}

/* Score node n for job j into b, through the caches. */
static void score_node(fgd *s, const place_view *v, const place_job *j, uint32_t n,
                       const place_fit_ctx *ctx, shape_cache *h, best *b)
{
    const node_cache *e = node_get(s, v->cluster, n);
    int64_t val;
    uint32_t gpu;
    if (h && h->res[n].stamp_gpu >> 8 == e->stamp) {
        val = h->res[n].val;
        gpu = (uint32_t)(h->res[n].stamp_gpu & 0xffu);
        gpu = gpu == FGD_NO_GPU ? PLACE_NONE : gpu;
    } else {
        node_result(s, v, j, n, e, ctx, s->scratch, &val, &gpu);
        if (h)
            h->res[n] = (shape_res){e->stamp << 8 | (gpu == PLACE_NONE ? FGD_NO_GPU : gpu), val};
    }
    if (gpu == PLACE_NONE)
        return;
    if (s->k8s)
        consider_k8s(s, b, val, n, gpu);
    else
        consider(b, val, n, gpu);
}

/* ------------------------------------------------------------------------- */
/* Best node without a scan                                                   */

/* Read the cluster's change journal (place.h): the nodes it names since the
 * last read join the log. When it cannot tell (another cluster, or more
 * changes than it remembers) every shape's trees are dropped; so is the log
 * when it outgrows 4 x nodes entries (a shape further behind rebuilds, which
 * costs less than bringing in that many nodes one by one). */
static void journal_sync(fgd *s, const place_cluster *c)
{
    uint64_t d = c->changes - s->j_changes;
    int lost = s->j_serial != c->serial || c->changes < s->j_changes || d > PLACE_CHANGE_RING;
    if (!lost && (uint64_t)s->n_log + d > 4ull * s->c_nodes + 1024u) {
        s->log_base += s->n_log;
        s->n_log = 0;
    }
    if (!lost && place__grow(&s->env, (void **)&s->log, &s->cap_log, s->n_log + (uint32_t)d + 1,
                             sizeof *s->log) != PLACE_OK)
        lost = 1;
    if (lost) {
        for (uint32_t k = 0; k < FGD_SHAPES; k++)
            s->shapes[k].tree_ok = 0;
        s->log_base += s->n_log;
        s->n_log = 0;
    } else {
        for (uint64_t q = s->j_changes; q < c->changes; q++) {
            uint32_t n = c->change_ring[q % PLACE_CHANGE_RING];
            if (n < s->c_nodes) {
                s->last[n] = s->log_base + s->n_log;
                s->log[s->n_log++] = n;
            }
        }
    }
    s->j_serial = c->serial;
    s->j_changes = c->changes;
}

/* Node n is a candidate for j (a GPU job) in the scan of fgd_fit, where no
 * veto is given: in service, host room, and enough free GPUs (a gang: the
 * by_free sets from j->gpus up) or free share (a share: the any_share set). */
static int fast_cand(const place_cluster *c, const place_job *j, uint32_t n)
{
    if (!c->node_up[n] || !place_host_ok(c, n, j))
        return 0;
    if (j->gpus == 0)
        return 1;
    if (j->gpu_milli < PLACE_MILLI_WHOLE)
        return c->node_milli_free[n] > 0 && c->node_milli_free[n] >= j->gpu_milli;
    return c->node_free[n] >= j->gpus;
}

/* Node n's leaf for shape h: n when it is a candidate with a GPU for j (its
 * result in h->res[n], through the caches), else PLACE_NONE. */
static uint32_t fast_leaf(fgd *s, const place_view *v, const place_job *j, shape_cache *h,
                          uint32_t n)
{
    if (!fast_cand(v->cluster, j, n)) {
        h->res[n].stamp_gpu = 0; /* no node has stamp 0 */
        return PLACE_NONE;
    }
    const node_cache *e = node_get(s, v->cluster, n);
    if (h->res[n].stamp_gpu >> 8 != e->stamp) {
        int64_t val;
        uint32_t gpu;
        node_result(s, v, j, n, e, NULL, s->scratch, &val, &gpu);
        h->res[n] = (shape_res){e->stamp << 8 | (gpu == PLACE_NONE ? FGD_NO_GPU : gpu), val};
    }
    return (h->res[n].stamp_gpu & 0xffu) == FGD_NO_GPU ? PLACE_NONE : n;
}

/* The better of two leaves, as the scan's consider() / consider_k8s()
 * order them: the least gradient, then the lowest node; k8s mode: the
 * highest score, then the lowest rank (distinct: fgd_fit takes this path
 * only when every node has one). A total order, so a tree finds the scan's
 * choice whatever the order of its leaves. */
static inline uint32_t fast_pick(const fgd *s, const shape_cache *h, uint32_t a, uint32_t b)
{
    if (a == PLACE_NONE)
        return b;
    if (b == PLACE_NONE)
        return a;
    int64_t va = h->res[a].val, vb = h->res[b].val;
    if (va != vb)
        return (s->k8s ? va > vb : va < vb) ? a : b;
    if (s->k8s)
        return s->k.rank[a] < s->k.rank[b] ? a : b;
    return a < b ? a : b;
}

/* Bring shape h's trees to the cluster: rebuilt (O(nodes) leaves) when
 * absent or behind the log, else the leaves of the logged nodes and their
 * paths (O(log nodes) each). */

static int fast_sync(fgd *s, const place_view *v, const place_job *j, shape_cache *h)
{
    if (!h->tree_ok || h->log_pos < s->log_base) {
        if (place__grow(&s->env, (void **)&h->tree, &h->cap_tree, 2 * s->c_nodes + 1,
                        sizeof *h->tree) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        for (uint32_t t = 0; t < s->c_types; t++) {
            uint32_t m = s->toff[t + 1] - s->toff[t], *seg = h->tree + 2 * (size_t)s->toff[t];
            for (uint32_t i = 0; i < m; i++)
                seg[m + i] = fast_leaf(s, v, j, h, s->tnodes[s->toff[t] + i]);
            for (uint32_t i = m; i-- > 1;)
                seg[i] = fast_pick(s, h, seg[2 * i], seg[2 * i + 1]);
        }
        h->tree_ok = 1;
    } else {
        for (uint64_t q = h->log_pos - s->log_base; q < s->n_log; q++) {
            uint32_t n = s->log[q], t = v->cluster->node_type[n];
            if (s->last[n] != s->log_base + q)
                continue; /* the node comes again later in the log */
            uint32_t m = s->toff[t + 1] - s->toff[t], *seg = h->tree + 2 * (size_t)s->toff[t];
            uint32_t i = m + (s->tpos[n] - s->toff[t]);
            seg[i] = fast_leaf(s, v, j, h, n);
            for (i >>= 1; i >= 1; i >>= 1)
                seg[i] = fast_pick(s, h, seg[2 * i], seg[2 * i + 1]);
        }
    }
    h->log_pos = s->log_base + s->n_log;
    return PLACE_OK;
}

/* j's placement from the trees of its shape: each allowed type's best, the
 * best of those as the scan would choose. */
static int fast_fit(fgd *s, const place_view *v, const place_job *j, shape_cache *h, best *b)
{
    if (fast_sync(s, v, j, h) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    const place_cluster *c = v->cluster;
    for (uint32_t t = 0; t < c->n_types; t++) {
        uint32_t m = s->toff[t + 1] - s->toff[t];
        if (m == 0 || (j->gpus > 0 && !place_type_ok(c, j, t)))
            continue;
        uint32_t n = h->tree[2 * (size_t)s->toff[t] + 1];
        if (n == PLACE_NONE)
            continue;
        uint32_t gpu = (uint32_t)(h->res[n].stamp_gpu & 0xffu);
        if (s->k8s)
            consider_k8s(s, b, h->res[n].val, n, gpu);
        else
            consider(b, h->res[n].val, n, gpu);
    }
    return PLACE_OK;
}

static int fgd_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                   const place_fit_ctx *ctx)
{
    fgd *s = state;
    const place_cluster *c = v->cluster;
    best b = {0, PLACE_NONE, 0, 0, 0};
    shape_cache *h;
    /* a fit stamps at most every node once: start again before stamps could
     * reach FGD_STAMP_END (never in practice) */
    if (s->next_stamp >= FGD_STAMP_END - 1 - (uint64_t)c->n_nodes) {
        s->valid = 0;
        s->next_stamp = 0;
    }
    if (place__grow(&s->env, (void **)&s->scratch, &s->cap_scratch, s->n_pods + 1,
                    sizeof *s->scratch) != PLACE_OK ||
        cache_sync(s, c) != PLACE_OK || shape_get(s, c, j, ctx, &h) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    journal_sync(s, c);
    if (h && s->fast && (!s->k8s || s->k.n_rank >= c->n_nodes)) {
        if (fast_fit(s, v, j, h, &b) != PLACE_OK)
            return PLACE_ERR_NOMEM;
        if (j->gpus == 0)
            goto cpu_only;
        goto decided;
    }
    if (h)
        h->tree_ok = 0; /* the scan below rewrites its results under the trees */
    if (j->gpus == 0) {
        for (uint32_t n = 0; n < c->n_nodes; n++) {
            if (!c->node_up[n] || !place_host_ok(c, n, j))
                continue;
            place_part p = {n, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
            if (place_fit_allowed(ctx, v, j, &p))
                score_node(s, v, j, n, ctx, h, &b);
        }
    cpu_only:
        if (b.node == PLACE_NONE)
            return PLACE_ERR_NOFIT;
        d->parts[0] = (place_part){b.node, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
        d->n_parts = 1;
        return PLACE_OK;
    }
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t))
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->any_share[t], n + 1))
                if (place_host_ok(c, n, j) && c->node_milli_free[n] >= j->gpu_milli)
                    score_node(s, v, j, n, ctx, h, &b);
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1))
                if (place__whole_ok(v, j, n, ctx))
                    score_node(s, v, j, n, ctx, h, &b);
    }
decided:
    if (b.node != PLACE_NONE) {
        if (j->gpu_milli < PLACE_MILLI_WHOLE)
            place_decide_share(d, j, b.node, b.gpu);
        else
            place_decide_whole(d, j, b.node);
        return PLACE_OK;
    }
    if (j->flags & PLACE_JOB_CAN_SPAN)
        return place_fit_span_first(v, j, d, ctx);
    return PLACE_ERR_NOFIT;
}

const place_fit place__fit_fgd = {
    .name = "fgd",
    .summary = "least growth of expected fragmentation for the typical pods (Weng et al., ATC'23)",
    .flags = PLACE_FIT_SCANS,
    .create = fgd_create,
    .destroy = fgd_destroy,
    .begin = fgd_begin,
    .fit = fgd_fit,
};
