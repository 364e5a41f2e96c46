/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack.c — the openb packing experiment of the FGD paper (Weng et al.,
 * "Beware of Fragmentation", USENIX ATC'23), run on the placement core alone.
 *
 * Per (policy, seed): the cluster is built from the scenario's pools; the
 * pods are shuffled (Fisher-Yates) and random copies drawn uniformly with
 * replacement are appended while the total requested GPU stays within
 * target_pct of the capacity; the pods are then placed one at a time, each
 * as a one-job queue through place_pass_run (the loop the engine and `tarmac
 * place` run). Pods never leave; one that fits nowhere is counted as failed
 * and the run goes on. No time passes.
 *
 * Fragmentation is the paper's measure, as its simulator computes it
 * (kubernetes-scheduler-simulator, pkg/utils/frag.go, NodeGpuShareFragAmount):
 * the target workload M is the GPU pods of the pod list, grouped by shape
 * (GPUs, milli-GPU, allowed types, CPU) with popularity p_m. For node n and
 * shape m, with R = the node's free GPU (milli):
 *   - m may not use the node's type, or the node lacks CPU for it, or fewer
 *     than m.gpus of its GPUs have m.milli free: all of R is fragmented;
 *   - otherwise the free shares of GPUs with less than m.milli free are.
 * F_n = sum_m p_m F_n(m) (M differs from the simulator's, which reuses FGD's
 * typical pods: top 95 % of shapes, CPU-only ones included, each counting
 * all of a node's free GPU); the cluster's fragmented GPU is sum_n F_n, and the
 * fragmentation ratio is that over the idle GPU (sum_n R_n), the ratio the
 * simulator reports as frag_gpu_milli; it is also given over the capacity.
 * FGD's target workload: a bare "placement=fgd" (or "fgd:k8s"; either
 * with "scan:" first, fit_fgd.c) is given
 * the typical pods of the pod list as the reference simulator computes them
 * (typical_pods_arg below); each placement sees a one-job view, from which
 * fgd would otherwise learn the pod being placed alone.
 * The pods placed so far are the view's running jobs (they never leave), so
 * a rule that looks at what runs where (gpu-clustering) sees them.
 * Allocation at 130 % arrived, tarmac's rules and the reference's (":k8s"
 * modes of the fits) against the reference's own results: the table in
 * docs/traces.md (Protocols, pack), with what still differs.
 * After a placement only the nodes it touched change, so F is kept per node
 * and updated there: O(shapes x GPUs per node) per pod, with the CPU test a
 * binary search over each shape's sorted CPU requests.
 */
#include "studies/studies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    uint32_t gpus, milli;
    uint64_t mask;
    double p;       /* popularity of the shape among GPU pods */
    size_t cpu0, n; /* its CPU requests: cpu_sorted[cpu0 .. cpu0 + n), ascending */
} shape;

typedef struct frag_model {
    shape *s;
    size_t n;
    int64_t *cpu_sorted;
    double *cpu_cum; /* cumulative popularity within the shape, aligned with cpu_sorted */
} frag_model;

static int cmp_shape_pod(const void *a, const void *b)
{
    const trace_job *x = *(const trace_job *const *)a, *y = *(const trace_job *const *)b;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    if (x->gpu_milli != y->gpu_milli)
        return x->gpu_milli < y->gpu_milli ? -1 : 1;
    if (x->type_mask != y->type_mask)
        return x->type_mask < y->type_mask ? -1 : 1;
    return (x->cpu_milli > y->cpu_milli) - (x->cpu_milli < y->cpu_milli);
}

static void frag_model_fini(frag_model *m)
{
    free(m->s);
    free(m->cpu_sorted);
    free(m->cpu_cum);
    memset(m, 0, sizeof *m);
}

/* Shapes of the GPU pods, sorted so each shape's CPU requests are contiguous
 * and ascending. Cost O(n log n), once. */
static int frag_model_init(frag_model *m, const trace_job *pods, size_t n)
{
    memset(m, 0, sizeof *m);
    size_t g = 0;
    for (size_t i = 0; i < n; i++)
        g += pods[i].gpus > 0;
    if (g == 0)
        return TM_OK;
    const trace_job **v = malloc(g * sizeof *v);
    m->s = malloc(g * sizeof *m->s);
    m->cpu_sorted = malloc(g * sizeof *m->cpu_sorted);
    m->cpu_cum = malloc(g * sizeof *m->cpu_cum);
    if (!v || !m->s || !m->cpu_sorted || !m->cpu_cum) {
        free(v);
        frag_model_fini(m);
        return TM_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (pods[i].gpus > 0)
            v[k++] = &pods[i];
    qsort(v, g, sizeof *v, cmp_shape_pod);
    for (size_t i = 0; i < g; i++) {
        const trace_job *j = v[i];
        shape *last = m->n ? &m->s[m->n - 1] : NULL;
        if (!last || last->gpus != j->gpus || last->milli != j->gpu_milli ||
            last->mask != j->type_mask) {
            last = &m->s[m->n++];
            last->gpus = j->gpus;
            last->milli = j->gpu_milli;
            last->mask = j->type_mask;
            last->p = 0;
            last->cpu0 = i;
            last->n = 0;
        }
        last->n++;
        last->p += 1.0 / (double)g;
        m->cpu_sorted[i] = j->cpu_milli;
    }
    for (size_t s = 0; s < m->n; s++) {
        shape *sh = &m->s[s];
        for (size_t i = 0; i < sh->n; i++)
            m->cpu_cum[sh->cpu0 + i] = (double)(i + 1) / (double)sh->n;
    }
    free(v);
    return TM_OK;
}

/* Share of shape s's pods asking for at most cpu_free (binary search). */
static double cpu_fits(const frag_model *m, const shape *s, int64_t cpu_free)
{
    const int64_t *c = m->cpu_sorted + s->cpu0;
    size_t lo = 0, hi = s->n; /* first index with c > cpu_free */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c[mid] <= cpu_free)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? 0.0 : m->cpu_cum[s->cpu0 + lo - 1];
}

/* Free GPU (milli) of node n in service, and its fragmented part F_n. */
static void node_frag(const frag_model *m, const place_cluster *c, uint32_t n, double *idle,
                      double *frag)
{
    uint32_t g0 = c->node_gpu0[n], ng = c->node_gpus[n];
    double r = 0;
    for (uint32_t g = 0; g < ng; g++)
        if (c->gpu_up[g0 + g])
            r += c->gpu_free_milli[g0 + g];
    *idle = r;
    *frag = 0;
    if (r == 0 || !c->node_up[n])
        return;
    double f = 0;
    uint32_t t = c->node_type[n];
    for (size_t k = 0; k < m->n; k++) {
        const shape *s = &m->s[k];
        if (s->mask && !((s->mask >> t) & 1u)) {
            f += s->p * r;
            continue;
        }
        uint32_t fit = 0;
        double part = 0;
        for (uint32_t g = 0; g < ng; g++) {
            if (!c->gpu_up[g0 + g])
                continue;
            uint32_t fm = c->gpu_free_milli[g0 + g];
            if (fm >= s->milli)
                fit++;
            else
                part += fm;
        }
        if (fit < s->gpus) {
            f += s->p * r;
            continue;
        }
        double q = cpu_fits(m, s, c->node_cpu_free_milli[n]);
        f += s->p * (q * part + (1 - q) * r);
    }
    *frag = f;
}

/* The target workload FGD is given, as the paper's simulator computes it
 * (kubernetes-scheduler-simulator, GetTypicalPods with the artifact's
 * settings: CPU-only pods included, popularity threshold 95 %, step 1,
 * no GPU weighting): the pods of the original list (before copies) grouped
 * by (CPU, milli-GPU, GPUs, allowed types), most frequent first (equal counts:
 * the larger shape first, as its reverse sort does), and the shortest prefix
 * that holds at least 95 % of the pods. Written as fgd's argument
 * "G[/CORES][^TYPES]@COUNT,..." into *out (malloc'd; NULL when there are no
 * pods). Cost O(n log n), once per run. */
typedef struct tpod {
    int64_t cpu;
    uint32_t milli, gpus;
    uint64_t mask;
    size_t count;
} tpod;

static int tpod_cmp_shape(const tpod *x, const tpod *y)
{
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->milli != y->milli)
        return x->milli < y->milli ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return (x->mask > y->mask) - (x->mask < y->mask);
}

static int tpod_cmp_key(const void *a, const void *b)
{
    return tpod_cmp_shape(a, b);
}

static int tpod_cmp_count(const void *a, const void *b)
{
    const tpod *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return -tpod_cmp_shape(x, y);
}

static int typical_pods_arg(const trace_job *pods, size_t n, char **out)
{
    *out = NULL;
    if (n == 0)
        return TM_OK;
    tpod *t = malloc(n * sizeof *t);
    if (!t)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const trace_job *j = &pods[i];
        t[i] = (tpod){j->cpu_milli, j->gpus ? j->gpu_milli : 0, j->gpus, j->type_mask, 1};
    }
    qsort(t, n, sizeof *t, tpod_cmp_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && tpod_cmp_shape(&t[m - 1], &t[i]) == 0)
            t[m - 1].count++;
        else
            t[m++] = t[i];
    }
    qsort(t, m, sizeof *t, tpod_cmp_count);
    size_t k = 0, cum = 0;
    while (k < m && (double)cum < 0.95 * (double)n)
        cum += t[k++].count;
    size_t cap = k * 64 + 1;
    char *buf = malloc(cap), *p = buf;
    if (!buf) {
        free(t);
        return TM_ERR_NOMEM;
    }
    for (size_t i = 0; i < k; i++) {
        const tpod *x = &t[i];
        int64_t cpu = x->cpu > 0 ? x->cpu : 0;
        if (i)
            *p++ = ',';
        if (x->gpus == 1 && x->milli < PLACE_MILLI_WHOLE)
            p += sprintf(p, "0.%03u", x->milli);
        else
            p += sprintf(p, "%u", x->gpus);
        p += sprintf(p, "/%lld.%03lld", (long long)(cpu / 1000), (long long)(cpu % 1000));
        if (x->mask)
            p += sprintf(p, "^%llu", (unsigned long long)x->mask);
        p += sprintf(p, "@%zu", x->count);
    }
    *p = '\0';
    free(t);
    *out = buf;
    return TM_OK;
}

/* spec with a bare "placement=fgd" (or "fgd:k8s", "fgd:scan", "fgd:scan:k8s") given the target
 * workload: *out is a malloc'd copy, or NULL when spec has no bare fgd (it is used as it is). */
static int spec_with_typical(const char *spec, const char *typical, char **out)
{
    static const char key[] = "placement=fgd";
    size_t kl = sizeof key - 1;
    *out = NULL;
    for (const char *q = strstr(spec, key); q && typical; q = strstr(q + 1, key)) {
        int at_start = q == spec || q[-1] == ' ' || q[-1] == '\t';
        size_t end = kl + (strncmp(q + kl, ":scan", 5) == 0 ? 5 : 0);
        end += strncmp(q + end, ":k8s", 4) == 0 ? 4 : 0;
        int at_end = q[end] == '\0' || q[end] == ' ' || q[end] == '\t';
        if (!at_start || !at_end)
            continue;
        kl = end;
        size_t pre = (size_t)(q - spec) + kl, len = strlen(spec) + strlen(typical) + 2;
        char *s = malloc(len);
        if (!s)
            return TM_ERR_NOMEM;
        snprintf(s, len, "%.*s:%s%s", (int)pre, spec, typical, q + kl);
        *out = s;
        return TM_OK;
    }
    return TM_OK;
}

/* The host of one run: the cluster, and the pods placed so far as the
 * view's running jobs (pods never leave), so that a rule that looks at what
 * runs where (gpu-clustering) sees them, as the reference's plugins see the
 * pods bound to each node. Their parts live in one pool; the running
 * entries point into it and are re-pointed when it moves. */
typedef struct host {
    place_cluster *c;
    uint8_t started;
    uint32_t touched[64];
    uint32_t n_touched;
    place_running *run;
    uint32_t n_run, cap_run;
    place_part *pool;
    size_t n_pool, cap_pool;
    size_t *run_part0; /* per running entry: its first part in pool */
} host;

static int host_grow(host *h, uint32_t n_parts)
{
    if (h->n_run == h->cap_run) {
        uint32_t nc = h->cap_run ? h->cap_run * 2 : 1024;
        place_running *r = realloc(h->run, nc * sizeof *r);
        if (!r)
            return PLACE_ERR_NOMEM;
        h->run = r;
        size_t *p0 = realloc(h->run_part0, nc * sizeof *p0);
        if (!p0)
            return PLACE_ERR_NOMEM;
        h->run_part0 = p0;
        h->cap_run = nc;
    }
    if (h->n_pool + n_parts > h->cap_pool) {
        size_t nc = h->cap_pool ? h->cap_pool * 2 : 1024;
        while (nc < h->n_pool + n_parts)
            nc *= 2;
        place_part *p = realloc(h->pool, nc * sizeof *p);
        if (!p)
            return PLACE_ERR_NOMEM;
        h->pool = p;
        h->cap_pool = nc;
        for (uint32_t r = 0; r < h->n_run; r++) /* O(running), on doubling only */
            h->run[r].parts = h->pool + h->run_part0[r];
    }
    return PLACE_OK;
}

static void host_fini(host *h)
{
    free(h->run);
    free(h->pool);
    free(h->run_part0);
}

static int apply(void *ud, place_view *v, place_decision *d)
{
    host *h = ud;
    if (d->kind != PLACE_START)
        return PLACE_ERR_INVAL;
    int rc = place_cluster_take(h->c, &v->queue[d->index], d->parts, d->n_parts);
    if (rc != PLACE_OK)
        return rc;
    if (host_grow(h, d->n_parts) != PLACE_OK)
        return PLACE_ERR_NOMEM;
    place_running *r = &h->run[h->n_run];
    memset(r, 0, sizeof *r);
    r->job = v->queue[d->index];
    r->end_estimate_us = -1;
    r->lost_gpu_s = -1;
    memcpy(h->pool + h->n_pool, d->parts, d->n_parts * sizeof *d->parts);
    h->run_part0[h->n_run] = h->n_pool;
    r->parts = h->pool + h->n_pool;
    r->n_parts = d->n_parts;
    h->n_pool += d->n_parts;
    h->n_run++;
    v->running = h->run;
    v->n_running = h->n_run;
    h->started = 1;
    h->n_touched = 0;
    for (uint32_t k = 0; k < d->n_parts && k < 64; k++)
        h->touched[h->n_touched++] = d->parts[k].node;
    return PLACE_OK;
}

static uint64_t pack_rand(void *ud)
{
    gsl_rng *r = ud;
    uint64_t hi = gsl_rng_get(r) & 0xffffffffu;
    uint64_t lo = gsl_rng_get(r) & 0xffffffffu;
    return (hi << 32) | lo;
}

static int build_cluster(place_cluster *c, const sim_scenario *sc, double *cap_milli, tm_diag *diag)
{
    uint32_t mem[PLACE_MAX_TYPES];
    for (size_t t = 0; t < sc->n_types; t++)
        mem[t] = sc->types[t].mem_mib;
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    if (place_cluster_init(c, &env, (uint32_t)sc->n_types, mem) != PLACE_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
    *cap_milli = 0;
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        for (uint32_t k = 0; k < pc->nodes; k++) {
            uint32_t node;
            int rc = place_cluster_add_node(c, pc->type, pc->gpus_per_node, pc->cpu_milli,
                                            pc->mem_mib, &node);
            if (rc == PLACE_OK)
                rc = place_cluster_set_node_up(c, node, 1);
            if (rc != PLACE_OK)
                return tm_diag_set(diag, rc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_SCENARIO,
                                   pc->name, "cannot add node: %s", place_strerror(rc));
            *cap_milli += (double)pc->gpus_per_node * PLACE_MILLI_WHOLE;
        }
    }
    return TM_OK;
}

static double demand(const trace_job *j)
{
    return (double)j->gpus * j->gpu_milli;
}

/* One (policy, seed) run; writes the curves at out[metric * n_points + k]. */
static int pack_one(const sim_scenario *sc, const frag_model *fm, const char *typical,
                    const trace_job *pods, size_t n_pods, const sim_pack_cfg *cfg, const char *spec,
                    uint32_t rep, volatile int *stop, const sim_pack_result *res, double *out,
                    uint64_t *n_run, uint64_t *n_failed, tm_diag *diag)
{
    int rc = TM_OK;
    place_cluster c;
    place_instance pi;
    memset(&pi, 0, sizeof pi);
    gsl_rng *r_order = sim_rng_new(cfg->seed, rep, SIM_STREAM_PACK_ORDER, 0);
    gsl_rng *r_policy = sim_rng_new(cfg->seed, rep, SIM_STREAM_POLICY, 0);
    size_t cap_list = n_pods * 4 + 16, n_list = 0;
    const trace_job **list = malloc(cap_list * sizeof *list);
    double *fr = NULL, *idle = NULL;
    place_part *parts = NULL;
    char *spec_fgd = NULL;
    double cap_milli = 0;
    host h;
    memset(&h, 0, sizeof h);
    memset(&c, 0, sizeof c);
    if (!r_order || !r_policy || !list) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
        goto out;
    }
    if ((rc = build_cluster(&c, sc, &cap_milli, diag)))
        goto out;
    if (spec_with_typical(spec, typical, &spec_fgd) != TM_OK) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
        goto out;
    }
    place_env env = {place_alloc_libc, NULL, pack_rand, r_policy};
    char perr[256] = "";
    int prc = place_instance_init(&pi, &env, spec_fgd ? spec_fgd : spec, perr, sizeof perr);
    if (prc != PLACE_OK) {
        rc = tm_diag_set(diag, prc == PLACE_ERR_NOMEM ? TM_ERR_NOMEM : TM_ERR_SCENARIO, "policy",
                         "%s: %s", spec, perr[0] ? perr : place_strerror(prc));
        goto out;
    }
    /* the order: a shuffle, then copies up to the target */
    double total = 0, target = cfg->target_pct / 100.0 * cap_milli;
    for (size_t i = 0; i < n_pods; i++) {
        list[n_list++] = &pods[i];
        total += demand(&pods[i]);
    }
    for (size_t i = n_list; !cfg->keep_order && i > 1; i--) {
        size_t k = (size_t)gsl_rng_uniform_int(r_order, (unsigned long)i);
        const trace_job *t = list[i - 1];
        list[i - 1] = list[k];
        list[k] = t;
    }
    while (n_pods > 0 && !cfg->keep_order) {
        size_t k = (size_t)gsl_rng_uniform_int(r_order, (unsigned long)n_pods);
        if (total + demand(&pods[k]) > target)
            break;
        if (n_list == cap_list) {
            size_t nc = cap_list * 2;
            const trace_job **l = realloc(list, nc * sizeof *l);
            if (!l) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
                goto out;
            }
            list = l;
            cap_list = nc;
        }
        list[n_list++] = &pods[k];
        total += demand(&pods[k]);
    }
    /* fragmentation per node */
    fr = malloc((c.n_nodes ? c.n_nodes : 1) * sizeof *fr);
    idle = malloc((c.n_nodes ? c.n_nodes : 1) * sizeof *idle);
    parts = calloc(c.n_nodes ? c.n_nodes : 1, sizeof *parts);
    if (!fr || !idle || !parts) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
        goto out;
    }
    double frag_sum = 0, idle_sum = 0;
    for (uint32_t n = 0; n < c.n_nodes; n++) {
        node_frag(fm, &c, n, &idle[n], &fr[n]);
        frag_sum += fr[n];
        idle_sum += idle[n];
    }
    double arrived = 0, alloc = 0, failed_milli = 0;
    uint64_t failed = 0;
    size_t kpt = 0, np = res->n_points;
    h.c = &c;
#define RECORD_()                                                                                  \
    do {                                                                                           \
        out[SIM_PACK_ALLOC * np + kpt] = 100.0 * alloc / cap_milli;                                \
        out[SIM_PACK_FRAG * np + kpt] = idle_sum > 0 ? 100.0 * frag_sum / idle_sum : 0.0;          \
        out[SIM_PACK_FRAG_CAP * np + kpt] = 100.0 * frag_sum / cap_milli;                          \
        out[SIM_PACK_FAILED * np + kpt] = (double)failed;                                          \
        out[SIM_PACK_FAILED_GPU * np + kpt] = 100.0 * failed_milli / cap_milli;                    \
        kpt++;                                                                                     \
    } while (0)
    for (size_t i = 0; i < n_list; i++) {
        /* a look at the stop flag every 64 pods (a pass is well under a
         * millisecond, so this stops within a few) */
        if ((i & 63) == 0 && stop && *stop) {
            rc = tm_diag_set(diag, TM_ERR_INTERRUPTED, "pack",
                             "interrupted while placing the pods (policy '%s', seed %u: %zu of "
                             "%zu placed)",
                             spec, rep, i, n_list);
            goto out;
        }
        const trace_job *t = list[i];
        double a_next = arrived + demand(t);
        while (kpt < np && res->arrived_pct[kpt] < 100.0 * a_next / cap_milli)
            RECORD_();
        arrived = a_next;
        place_job pj;
        memset(&pj, 0, sizeof pj);
        pj.id = t->id;
        pj.estimate_us = -1;
        pj.deadline_us = -1;
        pj.type_mask = t->type_mask;
        pj.gpus = t->gpus;
        pj.gpu_milli = t->gpu_milli;
        pj.gpu_mem_mib = t->gpu_mem_mib;
        pj.flags = t->flags;
        pj.cpu_milli = t->cpu_milli;
        pj.host_mem_mib = t->host_mem_mib;
        pj.cls = t->cls;
        uint8_t qs = PLACE_Q_WAITING;
        place_view v = {0, &c, &pj, &qs, 1, h.run, h.n_run, NULL, NULL, 0};
        place_pass_stats st;
        h.started = 0;
        h.n_touched = 0;
        prc = place_pass_run(&pi, &v, &qs, parts, c.n_nodes ? c.n_nodes : 1, apply, &h, &st);
        if (prc < 0 && prc != PLACE_ERR_NOFIT) {
            rc = tm_diag_set(diag, TM_ERR_POLICY, "policy", "policy '%s' failed: %s", spec,
                             place_strerror(prc));
            goto out;
        }
        if (!h.started) {
            failed++;
            failed_milli += demand(t);
            continue;
        }
        alloc += demand(t);
        for (uint32_t k = 0; k < h.n_touched; k++) {
            uint32_t n = h.touched[k];
            frag_sum -= fr[n];
            idle_sum -= idle[n];
            node_frag(fm, &c, n, &idle[n], &fr[n]);
            frag_sum += fr[n];
            idle_sum += idle[n];
        }
    }
    while (kpt < np)
        RECORD_();
#undef RECORD_
    *n_run = n_list;
    *n_failed = failed;
out:
    place_instance_fini(&pi);
    place_cluster_fini(&c);
    host_fini(&h);
    if (r_order)
        gsl_rng_free(r_order);
    if (r_policy)
        gsl_rng_free(r_policy);
    free(list);
    free(fr);
    free(idle);
    free(parts);
    free(spec_fgd);
    return rc;
}

int sim_pack_run(const sim_scenario *sc, const trace_job *pods, size_t n_pods,
                 const sim_pack_cfg *cfg, sim_pack_result *res, tm_diag *diag)
{
    return sim_pack_run_reps(sc, pods, n_pods, cfg, 0, NULL, res, diag);
}

int sim_pack_run_reps(const sim_scenario *sc, const trace_job *pods, size_t n_pods,
                      const sim_pack_cfg *cfg, uint32_t first_rep, volatile int *stop,
                      sim_pack_result *res, tm_diag *diag)
{
    memset(res, 0, sizeof *res);
    if (!(cfg->target_pct > 0) || !(cfg->grid_step_pct > 0) || cfg->n_seeds == 0 ||
        cfg->n_policies == 0 || cfg->target_pct / cfg->grid_step_pct > 1e6)
        return tm_diag_set(diag, TM_ERR_INVAL, "pack",
                           "expected target > 0, step > 0, at least one seed and one policy");
    frag_model fm;
    char *typical = NULL;
    if (frag_model_init(&fm, pods, n_pods) != TM_OK)
        return tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
    if (typical_pods_arg(pods, n_pods, &typical) != TM_OK) {
        frag_model_fini(&fm);
        return tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
    }
    res->n_policies = cfg->n_policies;
    res->n_seeds = cfg->n_seeds;
    res->n_points = (size_t)floor(cfg->target_pct / cfg->grid_step_pct + 1e-9) + 1;
    res->n_classes = fm.n;
    res->arrived_pct = malloc(res->n_points * sizeof *res->arrived_pct);
    res->v =
        malloc(res->n_policies * res->n_seeds * SIM_PACK_METRICS * res->n_points * sizeof *res->v);
    res->pods = calloc(res->n_policies * res->n_seeds, sizeof *res->pods);
    res->failed = calloc(res->n_policies * res->n_seeds, sizeof *res->failed);
    int rc = TM_OK;
    if (!res->arrived_pct || !res->v || !res->pods || !res->failed) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, "pack", "out of memory");
        goto out;
    }
    for (size_t k = 0; k < res->n_points; k++)
        res->arrived_pct[k] = (double)k * cfg->grid_step_pct;
    for (size_t p = 0; p < sc->n_pools; p++)
        res->capacity_gpus += (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
    for (size_t p = 0; p < cfg->n_policies; p++)
        for (uint32_t s = 0; s < cfg->n_seeds; s++) {
            size_t i = p * res->n_seeds + s;
            double *out = res->v + i * SIM_PACK_METRICS * res->n_points;
            if ((rc = pack_one(sc, &fm, typical, pods, n_pods, cfg, cfg->policies[p], first_rep + s,
                               stop, res, out, &res->pods[i], &res->failed[i], diag)))
                goto out;
        }
out:
    frag_model_fini(&fm);
    free(typical);
    if (rc != TM_OK)
        sim_pack_result_fini(res);
    return rc;
}
