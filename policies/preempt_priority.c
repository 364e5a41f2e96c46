/* SPDX-License-Identifier: Apache-2.0 */
/*
 * preempt_priority.c — priority preemption that prefers the victims that
 * lose the least work.
 *
 * A job that does not fit may stop running jobs that are PLACE_JOB_PREEMPTIBLE,
 * of strictly lower priority, and started before this instant (a job started
 * in this very pass has done no work, and stopping it only churns). For each
 * node the job could use, the candidate victims on it are taken in order of
 * the work they would lose (place_running_lost_gpu_s: the GPU-seconds since
 * their last checkpoint plus the restart overhead paid in this run, or what
 * the host gave in lost_gpu_s), then lower priority, then lower id,
 * until the node holds the job; then every victim that turns out not to be
 * needed is put back (latest first), so the set is minimal. The node whose
 * set loses the least work wins; ties go to fewer victims, then the lower
 * node index. Choosing a minimum-loss set is a knapsack problem; this greedy
 * with pruning is exact when victims are alike and close otherwise.
 * The job starts on that node (whole GPUs: any fully free ones; a share: the
 * GPU it fills best). Gangs that would have to span nodes are not placed by
 * preemption. The host stops the victims (PREEMPT decisions) before the START
 * (see place_decision_kind in place.h).
 *
 * How a pass stays fast when thousands of queued jobs ask (a long queue of
 * high-priority jobs on a full cluster: 50,000 jobs on 5,000 nodes):
 *
 *  - The candidates are gathered and sorted once per pass, at its first
 *    plan() (every running job that could ever be a victim in the pass, its
 *    parts sorted by node, lost work, priority and id), and followed through
 *    the pass by observe(): a START appends a job that is never a victim, a
 *    PREEMPT removes one (the host's swap-remove moves another entry, whose
 *    index the record follows). A job's candidates on a node are the node's
 *    entries below its priority that still run, in that order: the order the
 *    gather-and-sort per job produced before.
 *  - What a node answers for a job (its victim set and the work it loses)
 *    depends only on the node, the victims on it and the job's class (its
 *    priority, GPUs, share, GPU memory, host CPU and memory and allowed
 *    types). Each class seen in the pass keeps the nodes that can hold it,
 *    with their answers, and its place in a log of the nodes decisions have
 *    changed since; asking again re-examines only the nodes logged since. A
 *    class that fits nowhere (most of a long queue) then costs a walk over a
 *    few logged nodes instead of every node.
 *  - A node is examined only if stopping all its candidates would free the
 *    job's whole GPUs and host CPU and memory (a bound: holds() only grows
 *    with the victim set); only then the greedy runs its holds() tests.
 *
 * The choice is the one the per-job gather made (tests/test_place_preempt.c
 * compares it with that algorithm on random views). Cost: O(R log R) per pass
 * for R running parts; per plan() O(nodes with candidates) for a class not
 * seen in the pass, else O(nodes changed since it was last asked + nodes
 * that can hold it), plus O(victims^2 x parts) for each node examined. The
 * kept answers are bounded (PRE_MAX_KEPT); past that they are dropped and
 * found again.
 *
 * Source: priority preemption as in Borg (Verma et al., "Large-scale cluster
 * management at Google with Borg", EuroSys 2015: higher-priority tasks evict
 * lower-priority ones), with the checkpoint-cost awareness of preemptive GPU
 * schedulers that pick victims by lost progress (e.g. Tiresias, NSDI 2019,
 * and the cost-aware victim selection of Gandiva, OSDI 2018).
 */
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

/* Kept answers (classes plus nodes that hold them) per pass, at most: 16 MiB. */
#define PRE_MAX_KEPT (1u << 20)

/* A candidate: one part of an eligible victim, on its node. */
typedef struct cand {
    uint32_t node, e; /* the node; the victim's record */
    double lost;
    int32_t prio;
    uint32_t gpus; /* GPUs of the node the part holds (wholly or a share of) */
    uint64_t id;
    int64_t cpu, mem; /* its host share on the node */
} cand;

/* A node that can hold a class: its group, its victims' count and loss. */
typedef struct hit {
    uint32_t g, k;
    double lost;
} hit;

/* A job class: what holds() and the node tests read of the job. */
typedef struct pclass {
    int32_t prio;
    uint32_t gpus, milli, mem;
    int64_t cpu, hmem;
    uint64_t type_mask;
    uint32_t log_pos; /* the log is examined up to here */
    hit *h;           /* the nodes that hold it, in no order */
    uint32_t n_h, cap_h;
} pclass;

typedef struct pre {
    place_env env;
    int built;
    int64_t now;
    uint32_t n_run; /* view->n_running as the index knows it */
    /* candidates, grouped by node: group g is c[grp[g]..grp[g + 1]) */
    cand *c;
    uint32_t n_c, cap;
    uint32_t *grp;
    uint32_t n_grp, cap_grp;
    int32_t *grp_prio; /* the lowest priority in the group (a bound: victims only leave) */
    uint32_t cap_grp_prio;
    uint32_t *ngrp; /* per node: its group, PLACE_NONE without candidates */
    uint32_t cap_ngrp;
    /* victims: one record per eligible running job */
    uint32_t *rec_r; /* per record: its running index now, PLACE_NONE once preempted */
    uint32_t n_rec, cap_rec;
    uint32_t *slot; /* per running index: its record, PLACE_NONE for none */
    uint32_t cap_slot;
    uint32_t *rnode; /* per record: the nodes of its parts, rnode[rfirst[e]..rfirst[e + 1]) */
    uint32_t *rfirst;
    uint32_t cap_rnode, cap_rfirst;
    /* the groups whose node a decision of the pass changed, in order */
    uint32_t *log;
    uint32_t n_log, cap_log;
    /* the classes asked about in the pass, found through an open-addressing
     * table of indices (hcap a power of two, at most half full) */
    pclass *cls;
    uint32_t n_cls, cap_cls;
    uint32_t *hash;
    uint32_t hcap, kept;
    /* scratch */
    uint32_t *gstamp; /* per group: the last log walk that examined it */
    uint32_t cap_gstamp, stamp;
    uint32_t *list, *set;
    uint32_t cap_list, cap_set;
} pre;

static int pre_create(const place_env *env, const char *args, void **state, char *err,
                      size_t err_len)
{
    if (*args)
        return place__keysort_create(env, args, state, err, err_len); /* reports the error */
    pre *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    *state = s;
    return PLACE_OK;
}

static void pre_destroy(void *state)
{
    pre *s = state;
    if (!s)
        return;
    for (uint32_t k = 0; k < s->cap_cls; k++)
        place__free(&s->env, s->cls[k].h, s->cls[k].cap_h * sizeof *s->cls[k].h);
    place__free(&s->env, s->cls, s->cap_cls * sizeof *s->cls);
    place__free(&s->env, s->hash, s->hcap * sizeof *s->hash);
    place__free(&s->env, s->c, s->cap * sizeof *s->c);
    place__free(&s->env, s->grp, s->cap_grp * sizeof *s->grp);
    place__free(&s->env, s->grp_prio, s->cap_grp_prio * sizeof *s->grp_prio);
    place__free(&s->env, s->ngrp, s->cap_ngrp * sizeof *s->ngrp);
    place__free(&s->env, s->rec_r, s->cap_rec * sizeof *s->rec_r);
    place__free(&s->env, s->slot, s->cap_slot * sizeof *s->slot);
    place__free(&s->env, s->rnode, s->cap_rnode * sizeof *s->rnode);
    place__free(&s->env, s->rfirst, s->cap_rfirst * sizeof *s->rfirst);
    place__free(&s->env, s->log, s->cap_log * sizeof *s->log);
    place__free(&s->env, s->gstamp, s->cap_gstamp * sizeof *s->gstamp);
    place__free(&s->env, s->list, s->cap_list * sizeof *s->list);
    place__free(&s->env, s->set, s->cap_set * sizeof *s->set);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->lost != y->lost)
        return x->lost < y->lost ? -1 : 1;
    if (x->prio != y->prio)
        return x->prio < y->prio ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e; /* (one job's two parts on one node) */
}

/* Forget every class (a new index, or too much kept). */
static void classes_clear(pre *s)
{
    for (uint32_t k = 0; k < s->n_cls; k++)
        s->cls[k].n_h = 0;
    s->n_cls = 0;
    s->kept = 0;
    for (uint32_t k = 0; k < s->hcap; k++)
        s->hash[k] = PLACE_NONE;
}

/* The candidates of the pass: O(running parts x log). */
static int index_build(pre *s, const place_view *v)
{
    const place_cluster *cl = v->cluster;
    s->built = 0;
    s->n_c = s->n_rec = s->n_grp = s->n_log = 0;
    classes_clear(s);
    uint32_t nr = v->n_running ? v->n_running : 1, nn = cl->n_nodes ? cl->n_nodes : 1;
    if (place__grow(&s->env, (void **)&s->slot, &s->cap_slot, nr, sizeof *s->slot) ||
        place__grow(&s->env, (void **)&s->rec_r, &s->cap_rec, nr, sizeof *s->rec_r) ||
        place__grow(&s->env, (void **)&s->rfirst, &s->cap_rfirst, nr + 1, sizeof *s->rfirst) ||
        place__grow(&s->env, (void **)&s->ngrp, &s->cap_ngrp, nn, sizeof *s->ngrp))
        return PLACE_ERR_NOMEM;
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        s->slot[r] = PLACE_NONE;
        if (!(rj->job.flags & PLACE_JOB_PREEMPTIBLE) || rj->start_us >= v->now_us)
            continue;
        uint32_t e = s->n_rec++;
        s->rec_r[e] = r;
        s->slot[r] = e;
        s->rfirst[e] = s->n_c;
        double lost = place_running_lost_gpu_s(rj, v->now_us);
        for (uint32_t p = 0; p < rj->n_parts; p++) {
            const place_part *pt = &rj->parts[p];
            if (pt->node >= cl->n_nodes)
                continue;
            if (place__grow(&s->env, (void **)&s->c, &s->cap, s->n_c + 1, sizeof *s->c))
                return PLACE_ERR_NOMEM;
            uint32_t ng = cl->node_gpus[pt->node];
            uint64_t mask = ng < 64 ? pt->mask & ((1ull << ng) - 1) : pt->mask;
            cand *x = &s->c[s->n_c++];
            *x = (cand){pt->node,   e, lost, rj->job.priority, (uint32_t)__builtin_popcountll(mask),
                        rj->job.id, 0, 0};
            place__part_host_share(&rj->job, rj->parts, rj->n_parts, p, &x->cpu, &x->mem);
        }
    }
    s->rfirst[s->n_rec] = s->n_c;
    uint32_t nc = s->n_c ? s->n_c : 1;
    if (place__grow(&s->env, (void **)&s->rnode, &s->cap_rnode, nc, sizeof *s->rnode) ||
        place__grow(&s->env, (void **)&s->list, &s->cap_list, nc, sizeof *s->list) ||
        place__grow(&s->env, (void **)&s->set, &s->cap_set, nc, sizeof *s->set))
        return PLACE_ERR_NOMEM;
    for (uint32_t x = 0; x < s->n_c; x++)
        s->rnode[x] = s->c[x].node; /* in record order, before the sort */
    if (s->n_c > 1)
        qsort(s->c, s->n_c, sizeof *s->c, cand_cmp);
    for (uint32_t n = 0; n < cl->n_nodes; n++)
        s->ngrp[n] = PLACE_NONE;
    for (uint32_t a = 0; a < s->n_c;) {
        uint32_t b = a;
        int32_t low = s->c[a].prio;
        while (b < s->n_c && s->c[b].node == s->c[a].node) {
            if (s->c[b].prio < low)
                low = s->c[b].prio;
            b++;
        }
        if (place__grow(&s->env, (void **)&s->grp, &s->cap_grp, s->n_grp + 2, sizeof *s->grp) ||
            place__grow(&s->env, (void **)&s->grp_prio, &s->cap_grp_prio, s->n_grp + 1,
                        sizeof *s->grp_prio))
            return PLACE_ERR_NOMEM;
        s->ngrp[s->c[a].node] = s->n_grp;
        s->grp[s->n_grp] = a;
        s->grp_prio[s->n_grp++] = low;
        a = b;
    }
    uint32_t ng = s->n_grp ? s->n_grp : 1, old = s->cap_gstamp;
    if (place__grow(&s->env, (void **)&s->grp, &s->cap_grp, s->n_grp + 1, sizeof *s->grp) ||
        place__grow(&s->env, (void **)&s->gstamp, &s->cap_gstamp, ng, sizeof *s->gstamp))
        return PLACE_ERR_NOMEM;
    memset(s->gstamp + old, 0, (s->cap_gstamp - old) * sizeof *s->gstamp);
    s->grp[s->n_grp] = s->n_c;
    s->now = v->now_us;
    s->n_run = v->n_running;
    s->built = 1;
    return PLACE_OK;
}

static int pre_begin(void *state, const place_view *v)
{
    (void)v;
    pre *s = state;
    s->built = 0; /* built at the first plan() of the pass, if any */
    return PLACE_OK;
}

/* Node n changed: log its group (nodes without candidates never hold a job
 * by preemption, so they need no record). */
static void node_changed(pre *s, uint32_t n)
{
    uint32_t g = s->ngrp[n];
    if (g == PLACE_NONE)
        return;
    if (place__grow(&s->env, (void **)&s->log, &s->cap_log, s->n_log + 1, sizeof *s->log)) {
        s->built = 0; /* out of memory: the answers kept cannot be trusted */
        return;
    }
    s->log[s->n_log++] = g;
}

/* Follow the host's running set (place_decision_kind): a START appends a job
 * that started now (never a victim in this pass), a PREEMPT removes its entry
 * by swap-remove. Anything else than that protocol drops the index. */
static void pre_observe(void *state, const place_view *v, const place_decision *d)
{
    pre *s = state;
    if (!s->built)
        return;
    const place_cluster *cl = v->cluster;
    if (d->kind == PLACE_START) {
        if (v->n_running != s->n_run + 1 ||
            place__grow(&s->env, (void **)&s->slot, &s->cap_slot, v->n_running, sizeof *s->slot)) {
            s->built = 0;
            return;
        }
        s->slot[s->n_run++] = PLACE_NONE;
        for (uint32_t p = 0; p < d->n_parts && s->built; p++)
            if (d->parts[p].node < cl->n_nodes)
                node_changed(s, d->parts[p].node);
    } else if (d->kind == PLACE_PREEMPT) {
        uint32_t last = v->n_running; /* the entry that moved into d->index */
        if (last + 1 != s->n_run || d->index > last || s->slot[d->index] == PLACE_NONE) {
            s->built = 0; /* (a victim the index does not know: its nodes are unknown) */
            return;
        }
        uint32_t e = s->slot[d->index];
        s->rec_r[e] = PLACE_NONE;
        if (d->index != last) {
            uint32_t m = s->slot[last];
            s->slot[d->index] = m;
            if (m != PLACE_NONE)
                s->rec_r[m] = d->index;
        }
        s->slot[last] = PLACE_NONE;
        s->n_run = last;
        for (uint32_t x = s->rfirst[e]; x < s->rfirst[e + 1] && s->built; x++)
            node_changed(s, s->rnode[x]);
    }
}

/* Would node n hold job j with the victims set[0..k) (indices into c) gone? */
static int holds(const pre *s, const place_view *v, const place_job *j, uint32_t n,
                 const uint32_t *set, uint32_t k)
{
    const place_cluster *cl = v->cluster;
    uint32_t ng = cl->node_gpus[n], g0 = cl->node_gpu0[n],
             tmem = cl->type_mem_mib[cl->node_type[n]];
    uint32_t milli[PLACE_MAX_GPUS_PER_NODE], mem[PLACE_MAX_GPUS_PER_NODE];
    for (uint32_t g = 0; g < ng; g++) {
        milli[g] = cl->gpu_free_milli[g0 + g];
        mem[g] = cl->gpu_free_mem_mib[g0 + g];
    }
    int64_t cpu = cl->node_cpu_free_milli[n], hmem = cl->node_mem_free_mib[n];
    for (uint32_t i = 0; i < k; i++) {
        const place_running *r = &v->running[s->rec_r[s->c[set[i]].e]];
        for (uint32_t p = 0; p < r->n_parts; p++) {
            const place_part *pt = &r->parts[p];
            if (pt->node != n)
                continue;
            int64_t pc, pm;
            place__part_host_share(&r->job, r->parts, r->n_parts, p, &pc, &pm);
            cpu += pc;
            hmem += pm;
            for (uint64_t m = pt->mask; m; m &= m - 1) {
                uint32_t g = (uint32_t)__builtin_ctzll(m);
                if (g >= ng)
                    continue;
                if (r->job.gpu_milli < PLACE_MILLI_WHOLE) {
                    milli[g] += pt->milli;
                    mem[g] += r->job.gpu_mem_mib;
                } else {
                    milli[g] = PLACE_MILLI_WHOLE;
                    mem[g] = tmem;
                }
            }
        }
    }
    if (cpu < j->cpu_milli || hmem < j->host_mem_mib)
        return 0;
    uint32_t whole = 0;
    for (uint32_t g = 0; g < ng; g++) {
        if (!cl->gpu_up[g0 + g])
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE) {
            if (milli[g] >= j->gpu_milli && mem[g] >= j->gpu_mem_mib)
                return 1;
        } else if (milli[g] >= PLACE_MILLI_WHOLE) {
            whole++;
        }
    }
    return j->gpu_milli == PLACE_MILLI_WHOLE && whole >= j->gpus;
}

/* The victims group g's node needs for job j: *k_out of them (0: the node
 * cannot hold the job) in s->set, losing *lost_out. Greedy in (lost,
 * priority, id) order until the node holds the job, then every victim it can
 * do without put back, latest first. O(victims^2 x parts). */
static void node_plan(pre *s, const place_view *v, const place_job *j, uint32_t g, uint32_t *k_out,
                      double *lost_out)
{
    const place_cluster *cl = v->cluster;
    uint32_t a = s->grp[g], b = s->grp[g + 1], n = s->c[a].node;
    *k_out = 0;
    *lost_out = 0;
    if (s->grp_prio[g] >= j->priority)
        return; /* no victim of lower priority on the node */
    if (!cl->node_up[n] || !place_type_ok(cl, j, cl->node_type[n]) || cl->node_gpus[n] < j->gpus ||
        cl->node_cpu_milli[n] < j->cpu_milli || cl->node_mem_mib[n] < j->host_mem_mib)
        return; /* the node could never hold the job */
    /* the node's candidates for j, in (lost, priority, id) order, and a bound
     * on what stopping all of them frees: the node holds the job with some
     * of them gone only if it does with all of them gone (holds() grows
     * with the set), which needs at least the job's whole GPUs among the
     * free ones and theirs, and its host CPU and memory */
    uint32_t m = 0, whole = cl->node_free[n];
    int64_t cpu = cl->node_cpu_free_milli[n], mem = cl->node_mem_free_mib[n];
    for (uint32_t x = a; x < b; x++)
        if (s->c[x].prio < j->priority && s->rec_r[s->c[x].e] != PLACE_NONE) {
            s->list[m++] = x;
            whole += s->c[x].gpus;
            cpu += s->c[x].cpu;
            mem += s->c[x].mem;
        }
    if (m == 0 || cpu < j->cpu_milli || mem < j->host_mem_mib ||
        (j->gpu_milli == PLACE_MILLI_WHOLE && whole < j->gpus))
        return;
    uint32_t k = 0;
    for (uint32_t x = 0; x < m; x++) {
        s->set[k++] = s->list[x];
        if (holds(s, v, j, n, s->set, k))
            break;
    }
    if (!holds(s, v, j, n, s->set, k))
        return;
    for (uint32_t q = k; k > 0 && q-- > 0;) {
        uint32_t keep = s->set[q];
        memmove(&s->set[q], &s->set[q + 1], (k - q - 1) * sizeof *s->set);
        if (holds(s, v, j, n, s->set, k - 1)) {
            k--;
        } else {
            memmove(&s->set[q + 1], &s->set[q], (k - q - 1) * sizeof *s->set);
            s->set[q] = keep;
        }
    }
    double lost = 0;
    for (uint32_t q = 0; q < k; q++)
        lost += s->c[s->set[q]].lost;
    *k_out = k;
    *lost_out = lost;
}

static uint32_t class_slot(const pre *s, const place_job *j)
{
    uint64_t h = (uint64_t)(uint32_t)j->priority * 0x9e3779b97f4a7c15ull;
    h = (h ^ j->gpus ^ ((uint64_t)j->gpu_milli << 20) ^ ((uint64_t)j->gpu_mem_mib << 32)) *
        0xff51afd7ed558ccdull;
    h = (h ^ (uint64_t)j->cpu_milli ^ ((uint64_t)j->host_mem_mib << 17) ^ j->type_mask) *
        0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32) & (s->hcap - 1);
}

static int class_is(const pclass *x, const place_job *j)
{
    return x->prio == j->priority && x->gpus == j->gpus && x->milli == j->gpu_milli &&
           x->mem == j->gpu_mem_mib && x->cpu == j->cpu_milli && x->hmem == j->host_mem_mib &&
           x->type_mask == j->type_mask;
}

/* Job j's class, *fresh set when it is new in the pass; NULL when out of
 * memory. */
static pclass *class_of(pre *s, const place_job *j, int *fresh)
{
    *fresh = 0;
    if (s->hcap) {
        for (uint32_t h = class_slot(s, j);; h = (h + 1) & (s->hcap - 1)) {
            uint32_t k = s->hash[h];
            if (k == PLACE_NONE)
                break;
            if (class_is(&s->cls[k], j))
                return &s->cls[k];
        }
    }
    if (s->kept >= PRE_MAX_KEPT)
        classes_clear(s);
    uint32_t old_cap = s->cap_cls;
    if (place__grow(&s->env, (void **)&s->cls, &s->cap_cls, s->n_cls + 1, sizeof *s->cls))
        return NULL;
    memset(s->cls + old_cap, 0, (s->cap_cls - old_cap) * sizeof *s->cls);
    if (2 * (s->n_cls + 1) > s->hcap) {
        uint32_t cap = s->hcap ? 2 * s->hcap : 64;
        uint32_t *h = place__realloc(&s->env, NULL, 0, cap * sizeof *h);
        if (!h)
            return NULL;
        place__free(&s->env, s->hash, s->hcap * sizeof *s->hash);
        s->hash = h;
        s->hcap = cap;
        for (uint32_t k = 0; k < cap; k++)
            h[k] = PLACE_NONE;
        for (uint32_t k = 0; k < s->n_cls; k++) {
            uint32_t x = class_slot(s, &(place_job){.priority = s->cls[k].prio,
                                                    .gpus = s->cls[k].gpus,
                                                    .gpu_milli = s->cls[k].milli,
                                                    .gpu_mem_mib = s->cls[k].mem,
                                                    .cpu_milli = s->cls[k].cpu,
                                                    .host_mem_mib = s->cls[k].hmem,
                                                    .type_mask = s->cls[k].type_mask});
            while (h[x] != PLACE_NONE)
                x = (x + 1) & (cap - 1);
            h[x] = k;
        }
    }
    uint32_t k = s->n_cls++, x = class_slot(s, j);
    while (s->hash[x] != PLACE_NONE)
        x = (x + 1) & (s->hcap - 1);
    s->hash[x] = k;
    pclass *c = &s->cls[k];
    c->prio = j->priority;
    c->gpus = j->gpus;
    c->milli = j->gpu_milli;
    c->mem = j->gpu_mem_mib;
    c->cpu = j->cpu_milli;
    c->hmem = j->host_mem_mib;
    c->type_mask = j->type_mask;
    c->n_h = 0;
    s->kept++;
    *fresh = 1;
    return c;
}

/* Keep node group g's answer for class c (a node that holds the job). */
static int class_note(pre *s, pclass *c, uint32_t g, uint32_t k, double lost)
{
    if (place__grow(&s->env, (void **)&c->h, &c->cap_h, c->n_h + 1, sizeof *c->h))
        return PLACE_ERR_NOMEM;
    c->h[c->n_h++] = (hit){g, k, lost};
    s->kept++;
    return PLACE_OK;
}

/* Bring class c's nodes up to the log: every node of a new class, else the
 * nodes logged since it was last asked (each once). */
static int class_update(pre *s, const place_view *v, const place_job *j, pclass *c, int fresh)
{
    uint32_t k;
    double lost;
    if (fresh) {
        c->n_h = 0;
        for (uint32_t g = 0; g < s->n_grp; g++) {
            node_plan(s, v, j, g, &k, &lost);
            if (k > 0 && class_note(s, c, g, k, lost) != PLACE_OK)
                return PLACE_ERR_NOMEM;
        }
    } else if (c->log_pos < s->n_log) {
        if (++s->stamp == 0) { /* wrapped: forget every old stamp */
            memset(s->gstamp, 0, s->cap_gstamp * sizeof *s->gstamp);
            s->stamp = 1;
        }
        for (uint32_t q = c->log_pos; q < s->n_log; q++)
            s->gstamp[s->log[q]] = s->stamp;
        /* drop the changed nodes' answers, then answer for each of them again */
        for (uint32_t q = 0; q < c->n_h;)
            if (s->gstamp[c->h[q].g] == s->stamp) {
                c->h[q] = c->h[--c->n_h];
                s->kept--;
            } else {
                q++;
            }
        for (uint32_t q = c->log_pos; q < s->n_log; q++) {
            uint32_t g = s->log[q];
            if (s->gstamp[g] != s->stamp)
                continue; /* (logged twice: done) */
            s->gstamp[g] = 0;
            node_plan(s, v, j, g, &k, &lost);
            if (k > 0 && class_note(s, c, g, k, lost) != PLACE_OK)
                return PLACE_ERR_NOMEM;
        }
    }
    c->log_pos = s->n_log;
    return PLACE_OK;
}

/* The plan on the index; PLACE_ERR_STATE when the index does not match the
 * view (a host off the protocol): the caller rebuilds it and asks again. */
static int plan_indexed(pre *s, const place_view *v, uint32_t i, uint32_t *victims,
                        uint32_t cap_victims, uint32_t *n_victims, place_decision *d)
{
    const place_cluster *cl = v->cluster;
    const place_job *j = &v->queue[i];
    int fresh, rc;
    pclass *c = class_of(s, j, &fresh);
    if (!c)
        return PLACE_ERR_NOMEM;
    if ((rc = class_update(s, v, j, c, fresh)) != PLACE_OK) {
        classes_clear(s); /* a class may be half updated */
        return rc;
    }
    /* the node whose victims lose the least work; ties to fewer victims, then
     * to the lower node (groups are in node order) */
    const hit *best = NULL;
    for (uint32_t q = 0; q < c->n_h; q++) {
        const hit *x = &c->h[q];
        if (!best || x->lost < best->lost ||
            (x->lost == best->lost && (x->k < best->k || (x->k == best->k && x->g < best->g))))
            best = x;
    }
    if (!best || best->k > cap_victims)
        return PLACE_ERR_NOFIT;
    uint32_t k, best_node = s->c[s->grp[best->g]].node;
    double lost;
    node_plan(s, v, j, best->g, &k, &lost); /* its victims, into s->set */
    if (k != best->k)
        return PLACE_ERR_STATE; /* (cannot be: the node has not changed since) */
    for (uint32_t q = 0; q < k; q++) {
        const cand *x = &s->c[s->set[q]];
        uint32_t r = s->rec_r[x->e];
        if (r >= v->n_running || v->running[r].job.id != x->id)
            return PLACE_ERR_STATE;
        victims[q] = r;
    }
    *n_victims = k;
    if (j->gpu_milli == PLACE_MILLI_WHOLE) {
        place_decide_whole(d, j, best_node);
        return PLACE_OK;
    }
    /* a share: the GPU it fills best once the victims are gone */
    uint32_t bg = PLACE_NONE, left = 0;
    for (uint32_t g = 0; g < cl->node_gpus[best_node]; g++) {
        /* recompute the one GPU's room: freed share plus what is free now */
        uint32_t x = cl->node_gpu0[best_node] + g;
        if (!cl->gpu_up[x])
            continue;
        uint32_t mi = cl->gpu_free_milli[x], me = cl->gpu_free_mem_mib[x];
        for (uint32_t q = 0; q < k; q++) {
            const place_running *r = &v->running[victims[q]];
            for (uint32_t p = 0; p < r->n_parts; p++)
                if (r->parts[p].node == best_node && ((r->parts[p].mask >> g) & 1u)) {
                    if (r->job.gpu_milli < PLACE_MILLI_WHOLE) {
                        mi += r->parts[p].milli;
                        me += r->job.gpu_mem_mib;
                    } else {
                        mi = PLACE_MILLI_WHOLE;
                        me = cl->type_mem_mib[cl->node_type[best_node]];
                    }
                }
        }
        if (mi >= j->gpu_milli && me >= j->gpu_mem_mib &&
            (bg == PLACE_NONE || mi - j->gpu_milli < left)) {
            bg = g;
            left = mi - j->gpu_milli;
        }
    }
    if (bg == PLACE_NONE)
        return PLACE_ERR_NOFIT;
    place_decide_share(d, j, best_node, bg);
    return PLACE_OK;
}

static int pre_plan(void *state, const place_view *v, uint32_t i, uint32_t *victims,
                    uint32_t cap_victims, uint32_t *n_victims, place_decision *d)
{
    pre *s = state;
    *n_victims = 0;
    if (v->queue[i].gpus == 0)
        return PLACE_ERR_NOFIT;
    for (int attempt = 0; attempt < 2; attempt++) {
        int rc;
        if ((!s->built || s->now != v->now_us || s->n_run != v->n_running) &&
            (rc = index_build(s, v)) != PLACE_OK)
            return rc;
        rc = plan_indexed(s, v, i, victims, cap_victims, n_victims, d);
        if (rc != PLACE_ERR_STATE)
            return rc;
        s->built = 0; /* the view moved without telling observe(): start over */
        *n_victims = 0;
    }
    return PLACE_ERR_NOFIT;
}

const place_preempt place__preempt_priority = {
    .name = "priority",
    .summary = "stop lower-priority preemptible jobs, losing the least work since checkpoints",
    .create = pre_create,
    .destroy = pre_destroy,
    .begin = pre_begin,
    .plan = pre_plan,
    .observe = pre_observe,
};
