/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref_preempt_priority.c — the priority preemption rule as it was before its
 * candidates were kept for a pass (a verbatim copy of the old
 * policies/preempt_priority.c but for the table's name): every plan()
 * gathers the eligible victims of the whole running set, sorts them and
 * tries every node. test_place_preempt_diff.c holds the library's rule to
 * its choices. Not part of the library.
 *
 * The rule (unchanged): for each node the job could use, the candidate
 * victims on it (preemptible, lower priority, started before now) in order
 * of lost work, then priority, then id, until the node holds the job; every
 * victim the node can do without is put back, latest first; the node whose
 * set loses the least work wins, then fewer victims, then the lower node.
 */
#include "place_int.h"

extern const place_preempt ref__preempt_priority;

#include <stdlib.h>
#include <string.h>

typedef struct cand {
    uint32_t node, r;
    double lost;
    int32_t prio;
    uint64_t id;
} cand;

typedef struct pre {
    place_env env;
    cand *c;
    uint32_t cap;
    uint32_t *set, *best;
    uint32_t cap_set, cap_best;
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
    place__free(&s->env, s->c, s->cap * sizeof *s->c);
    place__free(&s->env, s->set, s->cap_set * sizeof *s->set);
    place__free(&s->env, s->best, s->cap_best * sizeof *s->best);
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
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Would node n hold job j with the victims set[0..k) gone? */
static int holds(const place_view *v, const place_job *j, uint32_t n, const cand *c,
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
        const place_running *r = &v->running[c[set[i]].r];
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

static int pre_plan(void *state, const place_view *v, uint32_t i, uint32_t *victims,
                    uint32_t cap_victims, uint32_t *n_victims, place_decision *d)
{
    pre *s = state;
    const place_cluster *cl = v->cluster;
    const place_job *j = &v->queue[i];
    *n_victims = 0;
    if (j->gpus == 0)
        return PLACE_ERR_NOFIT;
    /* candidates: (node, victim) for every part of every eligible victim */
    uint32_t m = 0;
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        if (!(rj->job.flags & PLACE_JOB_PREEMPTIBLE) || rj->job.priority >= j->priority ||
            rj->start_us >= v->now_us)
            continue;
        double lost = place_running_lost_gpu_s(rj, v->now_us);
        for (uint32_t p = 0; p < rj->n_parts; p++) {
            if (rj->parts[p].node >= cl->n_nodes)
                continue;
            if (place__grow(&s->env, (void **)&s->c, &s->cap, m + 1, sizeof *s->c))
                return PLACE_ERR_NOMEM;
            s->c[m++] = (cand){rj->parts[p].node, r, lost, rj->job.priority, rj->job.id};
        }
    }
    if (m == 0)
        return PLACE_ERR_NOFIT;
    qsort(s->c, m, sizeof *s->c, cand_cmp);
    if (place__grow(&s->env, (void **)&s->set, &s->cap_set, m, sizeof *s->set) ||
        place__grow(&s->env, (void **)&s->best, &s->cap_best, m, sizeof *s->best))
        return PLACE_ERR_NOMEM;
    uint32_t best_node = PLACE_NONE, best_k = 0;
    double best_lost = 0;
    for (uint32_t a = 0; a < m;) {
        uint32_t n = s->c[a].node, b = a;
        while (b < m && s->c[b].node == n)
            b++;
        uint32_t t = cl->node_type[n];
        int usable = cl->node_up[n] && place_type_ok(cl, j, t) && cl->node_gpus[n] >= j->gpus &&
                     cl->node_cpu_milli[n] >= j->cpu_milli &&
                     cl->node_mem_mib[n] >= j->host_mem_mib;
        uint32_t k = 0;
        if (usable) {
            for (uint32_t x = a; x < b; x++) {
                s->set[k++] = x;
                if (holds(v, j, n, s->c, s->set, k))
                    break;
            }
            if (!holds(v, j, n, s->c, s->set, k))
                k = 0;
        }
        /* put back, latest first, every victim the node can do without */
        for (uint32_t q = k; k > 0 && q-- > 0;) {
            uint32_t keep = s->set[q];
            memmove(&s->set[q], &s->set[q + 1], (k - q - 1) * sizeof *s->set);
            if (holds(v, j, n, s->c, s->set, k - 1)) {
                k--;
            } else {
                memmove(&s->set[q + 1], &s->set[q], (k - q - 1) * sizeof *s->set);
                s->set[q] = keep;
            }
        }
        if (k > 0) {
            double lost = 0;
            for (uint32_t q = 0; q < k; q++)
                lost += s->c[s->set[q]].lost;
            if (best_node == PLACE_NONE || lost < best_lost || (lost == best_lost && k < best_k)) {
                best_node = n;
                best_lost = lost;
                best_k = k;
                memcpy(s->best, s->set, k * sizeof *s->set);
            }
        }
        a = b;
    }
    if (best_node == PLACE_NONE || best_k > cap_victims)
        return PLACE_ERR_NOFIT;
    for (uint32_t q = 0; q < best_k; q++)
        victims[q] = s->c[s->best[q]].r;
    *n_victims = best_k;
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
        for (uint32_t q = 0; q < best_k; q++) {
            const place_running *r = &v->running[s->c[s->best[q]].r];
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

const place_preempt ref__preempt_priority = {
    .name = "priority",
    .summary = "stop lower-priority preemptible jobs, losing the least work since checkpoints",
    .create = pre_create,
    .destroy = pre_destroy,
    .plan = pre_plan,
};
