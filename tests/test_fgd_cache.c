/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fgd_cache.c — FGD with its caches against FGD without them.
 * (One piece past 1,000 lines: most of it is the reference copy, which must
 * stay whole to be the code it checks against.)
 *
 * policies/fit_fgd.c keeps, between decisions, each node's per-pod sums and
 * fragmentation (checked against a snapshot of the node) and each node's
 * result per job shape. Below is a verbatim copy of the file as it was
 * before those caches (only its table renamed, and k8s ties given to the
 * lowest node rank of fit_k8s.c, drawn in begin(), as the library now does),
 * the reference. Two instances, the library's and the reference, see the
 * same random worlds decision after decision and must answer the same: the
 * same status and the same parts, the same number of env->rand draws (k8s
 * mode draws its node ranks with them) and the same calls of the backfilling veto, in the same
 * order.
 *
 * A world: 1 to 3 GPU types of different memory, nodes of 0 to 8 GPUs and
 * binding host CPU and memory; typical pods given (shares, whole GPUs,
 * CPU-only pods, cores, type masks, weights) or learned from the view, with
 * or without "k8s:"; with or without a veto. Between decisions jobs arrive
 * (shares, gangs, spanning gangs, CPU-only jobs, GPU memory, type masks,
 * host CPU and memory) and are placed where the library says, jobs leave,
 * nodes and GPUs go out of service and come back, and capacity is taken and
 * given back behind the view's back. Some decisions follow others in the
 * same pass (no begin() between them); half of the worlds keep the instances
 * of the world before (same cluster address, different cluster).
 * Reproduce a failure with TARMAC_TEST_SEED=<seed printed>.
 *
 *     test_fgd_cache           the differential test (unit)
 *     test_fgd_cache openb     openb_pod_list_default packed by "fgd" and
 *                              "fgd:k8s" (sim/studies/pack.c): the curves must be
 *                              those of the uncached algorithm, bit for bit
 *                              (FNV-1a digests recorded from it; integration,
 *                              needs TARMAC_DATA_DIR)
 */
#include "check.h"
#include "place_int.h" /* the reference uses the library's internals, as fit_fgd.c did */
#include "sim.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== the reference: policies/fit_fgd.c before the caches ================ */

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

typedef struct fgd {
    place_env env;
    int learn;
    int k8s;      /* score and break ties as the reference simulator ("k8s:") */
    place__k8s k; /* k8s mode: node ranks (fit_k8s.c) */
    uint32_t top;
    pod given[FGD_MAX_GIVEN];
    uint32_t n_given;
    pod *pods; /* this pass's distribution */
    uint32_t n_pods, cap_pods;
    podsum *scratch; /* per-pod sums of a node, before and after */
    uint32_t cap_scratch;
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
    return PLACE_OK;
}

typedef struct best {
    int64_t delta;
    uint32_t node, gpu;
    int64_t score; /* k8s mode: the node's integer score */
    uint32_t rank; /* k8s mode: the node's rank */
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
    int64_t w = 0;
    for (uint32_t k = 0; k < s->n_pods; k++)
        w += s->pods[k].w;
    double x = w > 0 ? (double)delta / (double)w / 1000.0 : 0.0;
    return (int64_t)(100.0 / (1.0 + exp(x)));
}

/* k8s mode, one node's best (its GPU: the highest score, the first GPU among
 * equals): the highest score wins; equal scores go to the lowest node rank. */
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

/* Score node n for job j: every GPU a share could take, or the whole gang.
 * ps and after are scratch of s->n_pods entries. */
static void score_node(const fgd *s, const place_view *v, const place_job *j, uint32_t n,
                       const place_fit_ctx *ctx, podsum *ps, podsum *after, best *b)
{
    const place_cluster *c = v->cluster;
    uint32_t g0 = c->node_gpu0[n], ng = c->node_gpus[n], t = c->node_type[n];
    nsum ns = {0, c->node_cpu_free_milli[n], c->node_mem_free_mib[n]};
    for (uint32_t g = 0; g < ng; g++)
        if (c->gpu_up[g0 + g])
            ns.total += c->gpu_free_milli[g0 + g];
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
    int64_t f0 = frag_of(s, &ns, ps);
    nsum na = ns;
    na.cpu -= j->cpu_milli;
    na.mem -= j->host_mem_mib;
    if (j->gpus > 0 && j->gpu_milli < PLACE_MILLI_WHOLE) {
        int64_t nb_score = 0;
        uint32_t nb_gpu = PLACE_NONE;
        na.total -= j->gpu_milli;
        for (uint32_t g = 0; g < ng; g++) {
            if (!place__share_ok(v, j, n, g, ctx))
                continue;
            uint32_t x = g0 + g, mi = c->gpu_free_milli[x], me = c->gpu_free_mem_mib[x];
            uint32_t mi2 = mi - j->gpu_milli, me2 = me - j->gpu_mem_mib;
            for (uint32_t k = 0; k < s->n_pods; k++) {
                const pod *m = &s->pods[k];
                int ub = gpu_hosts(m, mi, me), ua = gpu_hosts(m, mi2, me2);
                after[k] = ps[k];
                after[k].usable = after[k].usable - (uint32_t)ub + (uint32_t)ua;
                after[k].unusable += (ub ? 0 : -(int64_t)mi) + (ua ? 0 : (int64_t)mi2);
            }
            int64_t dl = frag_of(s, &na, after) - f0;
            if (!s->k8s) {
                consider(b, dl, n, g);
                continue;
            }
            int64_t sc = k8s_score(s, dl);
            if (nb_gpu == PLACE_NONE || sc > nb_score) {
                nb_score = sc;
                nb_gpu = g;
            }
        }
        if (s->k8s && nb_gpu != PLACE_NONE)
            consider_k8s(s, b, nb_score, n, nb_gpu);
        return;
    }
    /* whole GPUs (or none): the gang takes fully free GPUs, which host every
     * pod whose GPU memory fits the type, and leaves them at 0 */
    na.total -= (int64_t)j->gpus * PLACE_MILLI_WHOLE;
    for (uint32_t k = 0; k < s->n_pods; k++) {
        const pod *m = &s->pods[k];
        after[k] = ps[k];
        if (gpu_hosts(m, PLACE_MILLI_WHOLE, c->type_mem_mib[t]))
            after[k].usable -= j->gpus;
        else
            after[k].unusable -= (int64_t)j->gpus * PLACE_MILLI_WHOLE;
    }
    if (s->k8s)
        consider_k8s(s, b, k8s_score(s, frag_of(s, &na, after) - f0), n, 0);
    else
        consider(b, frag_of(s, &na, after) - f0, n, 0);
}

static int fgd_fit(void *state, const place_view *v, const place_job *j, place_decision *d,
                   const place_fit_ctx *ctx)
{
    fgd *s = state;
    const place_cluster *c = v->cluster;
    best b = {0, PLACE_NONE, 0, 0, 0};
    if (place__grow(&s->env, (void **)&s->scratch, &s->cap_scratch, 2 * (s->n_pods + 1),
                    sizeof *s->scratch) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    podsum *ps = s->scratch, *after = s->scratch + s->n_pods + 1;
    if (j->gpus == 0) {
        for (uint32_t n = 0; n < c->n_nodes; n++) {
            if (!c->node_up[n] || !place_host_ok(c, n, j))
                continue;
            place_part p = {n, 0, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
            if (place_fit_allowed(ctx, v, j, &p))
                score_node(s, v, j, n, ctx, ps, after, &b);
        }
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
                    score_node(s, v, j, n, ctx, ps, after, &b);
            continue;
        }
        for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
            for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
                 n = place_bits_next(&c->by_free[t][f], n + 1))
                if (place__whole_ok(v, j, n, ctx))
                    score_node(s, v, j, n, ctx, ps, after, &b);
    }
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

static const place_fit ref_fgd = {
    "fgd",
    "least growth of expected fragmentation for the typical pods (Weng et al., ATC'23)",
    PLACE_FIT_SCANS,
    fgd_create,
    fgd_destroy,
    fgd_begin,
    fgd_fit,
};

/* ==== the differential test =============================================== */

static uint64_t sm;

static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(mix64(&sm) % n);
}

static uint32_t pick(const uint32_t *v, uint32_t n)
{
    return v[below(n)];
}

/* env->rand of one instance: its own stream, counted */
typedef struct stream {
    uint64_t state, draws;
} stream;

static uint64_t draws_total; /* both instances' */

static uint64_t stream_rand(void *ud)
{
    stream *r = ud;
    r->draws++;
    draws_total++;
    return mix64(&r->state);
}

/* The veto: a pure function of the part and a salt, and a record of the
 * calls (count and a digest of their order). */
typedef struct veto {
    uint64_t salt, calls, trail;
} veto;

static int veto_allow(void *ud, const place_view *v, const place_job *j, const place_part *p)
{
    (void)v;
    veto *x = ud;
    x->calls++;
    uint64_t key = (uint64_t)p->node << 32 ^ (uint64_t)p->gpu << 16 ^ p->gpus ^ j->id << 40;
    x->trail = x->trail * 1099511628211ull ^ key;
    uint64_t h = x->salt ^ key;
    return mix64(&h) % 4 != 0;
}

/* One instance of a fit with its stream and veto record. */
typedef struct inst {
    const place_fit *fit;
    void *state;
    stream rs;
    place_env env;
    veto vt;
    place_fit_ctx ctx;
} inst;

static int inst_init(inst *x, const place_fit *f, const char *args, uint64_t seed, uint64_t salt)
{
    memset(x, 0, sizeof *x);
    x->fit = f;
    x->rs.state = seed;
    x->env = (place_env){place_alloc_libc, NULL, stream_rand, &x->rs};
    x->vt.salt = salt;
    x->ctx = (place_fit_ctx){&x->env, veto_allow, &x->vt};
    char err[256];
    int rc = f->create(&x->env, args, &x->state, err, sizeof err);
    if (rc != PLACE_OK)
        check_fail(__FILE__, __LINE__, "%s '%s': %s", f->name, args, err);
    return rc;
}

static void inst_fini(inst *x)
{
    if (x->fit && x->state)
        x->fit->destroy(x->state);
    x->state = NULL;
}

#define W_NODES 24
#define W_RUN   1024
#define W_QUEUE 4

typedef struct world {
    place_cluster c;
    uint32_t n_types;
    place_job queue[W_QUEUE + 1];
    uint8_t qstate[W_QUEUE + 1];
    uint32_t n_wait; /* queue[0..n_wait) wait forever; the job to place is queue[n_wait] */
    place_running run[W_RUN];
    place_part run_parts[W_RUN][W_NODES];
    uint32_t n_run;
    place_job ph_job[16]; /* capacity taken behind the view's back */
    place_part ph_part[16];
    uint32_t n_ph;
} world;

static world Wd;
static uint64_t next_id = 1;

static place_job rand_job(uint32_t n_types)
{
    static const uint32_t milli[] = {100, 200, 250, 300, 500, 500, 700, 900};
    static const uint32_t gangs[] = {1, 1, 1, 2, 2, 3, 4, 8};
    static const uint32_t gmem[] = {1024, 8192, 20000, 40000};
    static const uint32_t cpu[] = {0, 0, 1000, 4000, 16000, 48000};
    static const uint32_t mem[] = {0, 0, 1024, 65536};
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = next_id++;
    j.estimate_us = -1;
    j.deadline_us = -1;
    uint32_t r = below(100);
    if (r < 5) {
        j.gpus = 0;
        j.gpu_milli = PLACE_MILLI_WHOLE;
    } else if (r < 60) {
        j.gpus = 1;
        j.gpu_milli = below(10) == 0 ? 1 + below(999) : pick(milli, 8);
    } else {
        j.gpus = pick(gangs, 8);
        j.gpu_milli = PLACE_MILLI_WHOLE;
        if (below(8) == 0) {
            j.flags |= PLACE_JOB_CAN_SPAN;
            j.gpus += below(12);
        }
    }
    if (j.gpus > 0 && below(4) == 0)
        j.gpu_mem_mib = pick(gmem, 4);
    j.cpu_milli = pick(cpu, 6);
    j.host_mem_mib = pick(mem, 4);
    if (j.gpus > 0 && below(5) == 0)
        j.type_mask = 1 + below((1u << n_types) - 1);
    return j;
}

/* "k8s:"? then given pods, "top=N" or nothing (learned) */
static void rand_args(char *buf, size_t n, uint32_t n_types)
{
    static const char *frac[] = {"0.1", "0.25", "0.3", "0.5", "0.7", "0.9"};
    static const char *whole[] = {"0", "1", "2", "4", "8"};
    static const uint32_t cores[] = {2, 8, 40};
    static const uint32_t w[] = {1, 2, 5, 30};
    size_t len = 0;
    if (below(3) == 0)
        len += (size_t)snprintf(buf + len, n - len, "k8s:");
    uint32_t r = below(4);
    if (r == 0) {
        if (len)
            buf[len - 1] = '\0'; /* "k8s" alone */
        else
            buf[0] = '\0';
        return;
    }
    if (r == 1) {
        snprintf(buf + len, n - len, "top=%u", 1 + below(6));
        return;
    }
    uint32_t k = 1 + below(8);
    for (uint32_t i = 0; i < k; i++) {
        const char *g = below(2) ? frac[below(6)] : whole[below(5)];
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", g);
        if (below(3) == 0)
            len += (size_t)snprintf(buf + len, n - len, "/%u", pick(cores, 3));
        if (below(4) == 0)
            len += (size_t)snprintf(buf + len, n - len, "^%u", 1 + below((1u << n_types) - 1));
        len += (size_t)snprintf(buf + len, n - len, "@%u", pick(w, 4));
    }
}

static void world_init(world *wd)
{
    static const uint32_t tmem[] = {16384, 24576, 32768, 81920};
    static const uint32_t gpus[] = {0, 1, 2, 2, 4, 4, 8, 8};
    static const int64_t cpu[] = {8000, 32000, 96000};
    static const int64_t mem[] = {32768, 262144};
    memset(wd, 0, sizeof *wd);
    wd->n_types = 1 + below(3);
    uint32_t m[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < wd->n_types; t++)
        m[t] = pick(tmem, 4);
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    CHECK_EQ_INT(place_cluster_init(&wd->c, &env, wd->n_types, m), PLACE_OK);
    uint32_t n_nodes = 3 + below(W_NODES - 2);
    for (uint32_t i = 0; i < n_nodes; i++) {
        uint32_t node;
        CHECK_EQ_INT(place_cluster_add_node(&wd->c, below(wd->n_types), pick(gpus, 8),
                                            cpu[below(3)], mem[below(2)], &node),
                     PLACE_OK);
        CHECK_EQ_INT(place_cluster_set_node_up(&wd->c, node, 1), PLACE_OK);
    }
    wd->n_wait = below(W_QUEUE + 1);
    for (uint32_t q = 0; q < wd->n_wait; q++) {
        wd->queue[q] = rand_job(wd->n_types);
        wd->qstate[q] = PLACE_Q_WAITING;
    }
}

static void world_leave(world *wd, uint32_t k)
{
    place_running *r = &wd->run[k];
    place_cluster_give(&wd->c, &r->job, r->parts, r->n_parts);
    uint32_t last = --wd->n_run;
    if (k != last) {
        wd->run[k] = wd->run[last];
        memcpy(wd->run_parts[k], wd->run_parts[last], sizeof wd->run_parts[k]);
    }
    wd->run[k].parts = wd->run_parts[k];
}

/* Take a share or a whole GPU of a random node without telling the view. */
static void world_phantom(world *wd)
{
    if (wd->n_ph == 16) {
        wd->n_ph--;
        place_cluster_give(&wd->c, &wd->ph_job[wd->n_ph], &wd->ph_part[wd->n_ph], 1);
        return;
    }
    uint32_t n = below(wd->c.n_nodes), ng = wd->c.node_gpus[n];
    if (ng == 0)
        return;
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = next_id++;
    j.gpus = 1;
    j.gpu_milli = below(2) ? PLACE_MILLI_WHOLE : 100 + 100 * below(8);
    j.cpu_milli = 500;
    place_part p = {n, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    if (j.gpu_milli < PLACE_MILLI_WHOLE)
        p = (place_part){n, 1, (uint16_t)below(ng), j.gpu_milli, 0, 0};
    if (place_cluster_take(&wd->c, &j, &p, 1) == PLACE_OK) {
        wd->ph_job[wd->n_ph] = j;
        wd->ph_part[wd->n_ph++] = p;
    }
}

typedef struct tally {
    uint64_t decisions, placed, shares, gangs, spans, cpu_only, vetoes, k8s_rounds, learned_rounds;
} tally;

static int same_decision(int ra, int rb, const place_decision *a, const place_decision *b)
{
    if (ra != rb)
        return 0;
    if (ra != PLACE_OK)
        return 1;
    if (a->n_parts != b->n_parts)
        return 0;
    for (uint32_t k = 0; k < a->n_parts; k++) {
        const place_part *p = &a->parts[k], *q = &b->parts[k];
        if (p->node != q->node || p->gpus != q->gpus || p->gpu != q->gpu || p->milli != q->milli ||
            p->mem_mib != q->mem_mib)
            return 0;
    }
    return 1;
}

static void print_decision(const char *who, int rc, const place_decision *d)
{
    fprintf(stderr, "  %s: status %d", who, rc);
    for (uint32_t k = 0; rc == PLACE_OK && k < d->n_parts; k++)
        fprintf(stderr, " [node %u gpus %u gpu %u milli %u]", d->parts[k].node, d->parts[k].gpus,
                d->parts[k].gpu, d->parts[k].milli);
    fputc('\n', stderr);
}

/* One decision by both; apply the library's. 0 when they differ. */
static int decide(world *wd, inst *a, inst *b, int with_veto, int begin, tally *t, int round,
                  int step, const char *args)
{
    place_view v = {0,       &wd->c,    wd->queue, wd->qstate, wd->n_wait + 1,
                    wd->run, wd->n_run, NULL,      NULL,       0};
    const place_job *j = &wd->queue[wd->n_wait];
    if (begin) {
        int ba = a->fit->begin(a->state, &v), bb = b->fit->begin(b->state, &v);
        if (ba != bb || ba != PLACE_OK) {
            check_fail(__FILE__, __LINE__, "round %d step %d: begin %d, reference %d", round, step,
                       ba, bb);
            return 0;
        }
    }
    place_part pa[W_NODES], pb[W_NODES];
    memset(pa, 0, sizeof pa);
    memset(pb, 0, sizeof pb);
    place_decision da = {PLACE_START, wd->n_wait, 0, W_NODES, pa};
    place_decision db = {PLACE_START, wd->n_wait, 0, W_NODES, pb};
    int ra = a->fit->fit(a->state, &v, j, &da, with_veto ? &a->ctx : NULL);
    int rb = b->fit->fit(b->state, &v, j, &db, with_veto ? &b->ctx : NULL);
    t->decisions++;
    if (!same_decision(ra, rb, &da, &db) || a->rs.draws != b->rs.draws ||
        a->rs.state != b->rs.state || a->vt.calls != b->vt.calls || a->vt.trail != b->vt.trail) {
        check_fail(
            __FILE__, __LINE__,
            "round %d step %d, placement=fgd%s%s%s: job %u GPUs x %u milli, GPU mem %u, CPU %lld, "
            "mem %lld, types %llx, flags %u: decisions differ (rand draws %llu vs %llu, "
            "veto calls %llu vs %llu)",
            round, step, *args ? ":" : "", args, with_veto ? " with a veto" : "", j->gpus,
            j->gpu_milli, j->gpu_mem_mib, (long long)j->cpu_milli, (long long)j->host_mem_mib,
            (unsigned long long)j->type_mask, j->flags, (unsigned long long)a->rs.draws,
            (unsigned long long)b->rs.draws, (unsigned long long)a->vt.calls,
            (unsigned long long)b->vt.calls);
        print_decision("cached   ", ra, &da);
        print_decision("reference", rb, &db);
        return 0;
    }
    if (ra != PLACE_OK)
        return 1;
    t->placed++;
    t->shares += j->gpus == 1 && j->gpu_milli < PLACE_MILLI_WHOLE;
    t->gangs += j->gpus > 0 && j->gpu_milli == PLACE_MILLI_WHOLE;
    t->spans += da.n_parts > 1;
    t->cpu_only += j->gpus == 0;
    if (wd->n_run == W_RUN)
        world_leave(wd, 0);
    uint32_t i = wd->n_run;
    memcpy(wd->run_parts[i], pa, da.n_parts * sizeof *pa);
    int rc = place_cluster_take(&wd->c, j, wd->run_parts[i], da.n_parts);
    if (rc != PLACE_OK) {
        check_fail(__FILE__, __LINE__, "round %d step %d: the decision does not take: %d", round,
                   step, rc);
        return 0;
    }
    place_running *r = &wd->run[i];
    memset(r, 0, sizeof *r);
    r->job = *j;
    r->end_estimate_us = -1;
    r->lost_gpu_s = -1;
    r->parts = wd->run_parts[i];
    r->n_parts = da.n_parts;
    wd->n_run++;
    return 1;
}

static void test_differential(void)
{
    uint64_t seed = check_seed(20261202);
    sm = seed;
    tally t;
    memset(&t, 0, sizeof t);
    const place_fit *lib = place_fit_find("fgd");
    CHECK(lib != NULL);
    if (!lib)
        return;
    inst a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    char args[256] = "";
    int have = 0;
    for (int round = 0; round < 150 && !check_failures; round++) {
        world_init(&Wd);
        if (!have || below(2) == 0) {
            inst_fini(&a);
            inst_fini(&b);
            rand_args(args, sizeof args, Wd.n_types);
            uint64_t rs = mix64(&sm), salt = mix64(&sm);
            if (inst_init(&a, lib, args, rs, salt) || inst_init(&b, &ref_fgd, args, rs, salt))
                break;
            have = 1;
        }
        int with_veto = below(3) == 0;
        t.k8s_rounds += strncmp(args, "k8s", 3) == 0;
        t.learned_rounds +=
            args[strncmp(args, "k8s", 3) == 0 ? 3 : 0] == '\0' || strstr(args, "top=") != NULL;
        int ok = 1;
        for (int step = 0; step < 300 && ok; step++) {
            uint32_t r = below(100);
            if (r < 55) {
                Wd.queue[Wd.n_wait] = rand_job(Wd.n_types);
                Wd.qstate[Wd.n_wait] = PLACE_Q_WAITING;
                ok = decide(&Wd, &a, &b, with_veto, 1, &t, round, step, args);
                /* more decisions in the same pass */
                while (ok && below(3) == 0) {
                    Wd.queue[Wd.n_wait] = rand_job(Wd.n_types);
                    ok = decide(&Wd, &a, &b, with_veto, 0, &t, round, step, args);
                }
            } else if (r < 80) {
                if (Wd.n_run)
                    world_leave(&Wd, below(Wd.n_run));
            } else if (r < 85) {
                uint32_t n = below(Wd.c.n_nodes);
                CHECK_EQ_INT(place_cluster_set_node_up(&Wd.c, n, !Wd.c.node_up[n]), PLACE_OK);
            } else if (r < 90) {
                uint32_t n = below(Wd.c.n_nodes), ng = Wd.c.node_gpus[n];
                if (ng) {
                    uint32_t g = below(ng);
                    CHECK_EQ_INT(
                        place_cluster_set_gpu_up(&Wd.c, n, g, !Wd.c.gpu_up[Wd.c.node_gpu0[n] + g]),
                        PLACE_OK);
                }
            } else if (r < 95) {
                world_phantom(&Wd);
            } else if (Wd.n_wait) {
                Wd.queue[below(Wd.n_wait)] = rand_job(Wd.n_types); /* the learned pods move */
            }
        }
        t.vetoes += a.vt.calls;
        if (place_cluster_verify(&Wd.c) != PLACE_OK)
            check_fail(__FILE__, __LINE__, "round %d: cluster invariants broken", round);
        place_cluster_fini(&Wd.c);
    }
    inst_fini(&a);
    inst_fini(&b);
    printf("differential: %llu decisions (%llu placed: %llu shares, %llu gangs, %llu spanning, "
           "%llu CPU-only), %llu k8s and %llu learned worlds, %llu veto calls, %llu rand draws "
           "(seed %llu)\n",
           (unsigned long long)t.decisions, (unsigned long long)t.placed,
           (unsigned long long)t.shares, (unsigned long long)t.gangs, (unsigned long long)t.spans,
           (unsigned long long)t.cpu_only, (unsigned long long)t.k8s_rounds,
           (unsigned long long)t.learned_rounds, (unsigned long long)t.vetoes,
           (unsigned long long)draws_total, (unsigned long long)seed);
    /* the worlds must exercise what they claim to */
    CHECK(t.decisions > 5000);
    CHECK(t.shares > 500 && t.gangs > 500 && t.spans > 0 && t.cpu_only > 0);
    CHECK(t.k8s_rounds > 0 && t.learned_rounds > 0 && t.vetoes > 0 && draws_total > 0);
}

/* ==== openb_pod_list_default, packed ====================================== */

static uint64_t fnv_doubles(uint64_t h, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char b[sizeof(double)];
        memcpy(b, &x[i], sizeof b); /* little-endian hosts, as the digests were taken on */
        for (size_t k = 0; k < sizeof b; k++)
            h = (h ^ b[k]) * 0x100000001b3ull;
    }
    return h;
}

/* The packing experiment of bench/README.md "Trace replay" (target 130 %,
 * grid 1 %), seeds 1 and 2, "fgd" (the list's typical pods) and "fgd:k8s":
 * per (policy, seed) an FNV-1a digest of the allocation, fragmentation and
 * failed-pods curves (131 doubles each, as /packing/policies/pP/seeds/sS
 * holds them). The digests were taken from the uncached algorithm: first
 * from the files `tarmac replay --protocol pack` wrote before FGD had its
 * caches; again, when the shuffle moved to its own random stream
 * (SIM_STREAM_PACK_ORDER, docs/rng.md), from a build whose fit_fgd.c was the
 * reference above. The "fgd:k8s" pair was taken again when k8s mode's ties
 * moved from a draw per decision to the node ranks of fit_k8s.c, from the
 * library's build, once the differential test above (which holds the
 * reference to the same rule) passed. The allocation at 130 % is checked as
 * a number too, for a readable failure. */
static int test_openb(void)
{
    const char *dir = check_data_dir();
    if (!dir)
        return check_skip("TARMAC_DATA_DIR is not a folder: the openb packing check did not run");
    char nodes[1024], list[1024];
    snprintf(nodes, sizeof nodes, "%s/alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv", dir);
    snprintf(list, sizeof list, "%s/alibaba-gpu-v2023-openb/openb_pod_list_default.csv", dir);
    FILE *probe = fopen(list, "r");
    if (!probe)
        return check_skip("openb_pod_list_default.csv not found under TARMAC_DATA_DIR");
    fclose(probe);
    tm_diag d;
    sim_scenario sc;
    trace_node_source ns;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "fgd", &d), TM_OK);
    int rc = trace_openb_nodes_open(&ns, nodes, NULL, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        sim_scenario_fini(&sc);
        return 1;
    }
    rc = sim_scenario_add_nodes(&sc, &ns, NULL, &d);
    ns.close(ns.ud);
    CHECK_EQ_INT(rc, TM_OK);
    const char *names[PLACE_MAX_TYPES];
    trace_read_opts opt;
    trace_read_opts_init(&opt);
    opt.n_types = sim_scenario_type_names(&sc, names);
    opt.type_names = names;
    opt.any_order = 1;
    trace_source s;
    size_t n = 0, cap = 16384;
    trace_job *pods = NULL;
    if (rc == TM_OK && trace_openb_pods_open(&s, list, &opt, &d) == TM_OK) {
        pods = malloc(cap * sizeof *pods);
        while (pods && s.next(s.ud, &pods[n], &d) == TM_OK)
            if (++n == cap) {
                trace_job *q = realloc(pods, (cap *= 2) * sizeof *pods);
                if (!q)
                    break;
                pods = q;
            }
        s.close(s.ud);
    }
    CHECK_EQ_U64(n, 8152);
    const char *pol[] = {"order=fifo placement=fgd backfill=none",
                         "order=fifo placement=fgd:k8s backfill=none"};
    sim_pack_cfg cfg = {130, 1, 1, 2, pol, 2, 0};
    sim_pack_result r;
    rc = pods ? sim_pack_run(&sc, pods, n, &cfg, &r, &d) : TM_ERR_NOMEM;
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        static const uint64_t want[2][2] = {{0xf6bacb469a017041ull, 0xfe3753d332a14250ull},
                                            {0x28efa90dc617c49dull, 0x83055a5d6defe078ull}};
        static const double want_alloc[2][2] = {{94.46538956857695, 94.08805537669028},
                                                {95.38409529942048, 95.23406310367031}};
        CHECK_EQ_U64(r.n_points, 131);
        for (size_t p = 0; p < 2; p++)
            for (size_t k = 0; k < 2; k++) {
                uint64_t h = 0xcbf29ce484222325ull;
                const int metric[3] = {SIM_PACK_ALLOC, SIM_PACK_FRAG, SIM_PACK_FAILED};
                for (int m = 0; m < 3; m++)
                    for (size_t i = 0; i < r.n_points; i++) {
                        double x = sim_pack_value(&r, p, k, metric[m], i);
                        h = fnv_doubles(h, &x, 1);
                    }
                double alloc = sim_pack_value(&r, p, k, SIM_PACK_ALLOC, r.n_points - 1);
                if (h != want[p][k] || alloc != want_alloc[p][k])
                    check_fail(__FILE__, __LINE__,
                               "%s, seed %zu: curves digest %016llx, want %016llx; allocation at "
                               "130 %% %.14f, want %.14f",
                               pol[p], k + 1, (unsigned long long)h, (unsigned long long)want[p][k],
                               alloc, want_alloc[p][k]);
            }
        sim_pack_result_fini(&r);
    } else {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    }
    free(pods);
    sim_scenario_fini(&sc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "openb") == 0) {
        int rc = test_openb();
        if (rc)
            return rc;
        return check_finish("test_fgd_cache openb");
    }
    test_differential();
    return check_finish("test_fgd_cache");
}
