/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_slo.c — SLO-aware placement of service replicas.
 *
 * The interface with the host (services are modelled by the engine): a
 * replica is a place_job with PLACE_JOB_SERVICE, its replica shape (GPUs,
 * share, memory, host resources), `group` naming its service, and `speed[t]`
 * its throughput at the latency SLO on GPU type t relative to the reference,
 * 0 where type t cannot meet the SLO at all (the host derives both from its
 * queueing model of the service and the type's per-replica throughput).
 *
 * The rule, for each waiting replica:
 *   1. only types that meet the SLO (allowed by type_mask, enough GPU memory,
 *      and, when speeds are given, a speed above 0);
 *   2. the type with the highest throughput at the SLO first (fewer replicas
 *      carry the load; ties: lower type index);
 *   3. on that type, the node that hosts the fewest replicas of the same
 *      service (a node failure then takes down as few of them as possible),
 *      then the fullest such node (best-fit: fewest free GPUs, or for a share
 *      the least share left on the GPU), then the lowest index.
 * A replica that no SLO-meeting node can take stays queued (the hybrid rule,
 * service_hybrid.c, may send its load to an API instead). Replicas do not
 * span nodes.
 * Cost: O(running parts) to count the service's replicas per node, plus
 * O(candidate nodes x GPUs per node) per type tried.
 * Source: SLO-aware replica placement in model serving, after Clipper
 * (Crankshaw et al., NSDI 2017) and the throughput-per-accelerator choice
 * of INFaaS (Romero et al., USENIX ATC 2021); anti-affinity of replicas as in
 * Kubernetes topology spread constraints.
 */
#include "place_int.h"

#include <stdio.h>
#include <string.h>

typedef struct slo {
    place_env env;
    uint32_t *cnt; /* per node: replicas of the service being placed */
    uint32_t cap;
    uint32_t *touched;
    uint32_t n_touched, cap_touched;
    int64_t wait_us; /* hybrid only: route after waiting this long */
} slo;

int place__service_slo_create(const place_env *env, int64_t wait_us, void **state)
{
    slo *s = place__realloc(env, NULL, 0, sizeof *s);
    if (!s)
        return PLACE_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->env = *env;
    s->wait_us = wait_us;
    *state = s;
    return PLACE_OK;
}

void place__service_slo_destroy(void *state)
{
    slo *s = state;
    if (!s)
        return;
    place__free(&s->env, s->cnt, s->cap * sizeof *s->cnt);
    place__free(&s->env, s->touched, s->cap_touched * sizeof *s->touched);
    place_env env = s->env;
    place__free(&env, s, sizeof *s);
}

int64_t place__service_slo_wait(const void *state)
{
    return ((const slo *)state)->wait_us;
}

static int slo_create(const place_env *env, const char *args, void **state, char *err,
                      size_t err_len)
{
    if (*args) {
        if (err && err_len)
            snprintf(err, err_len, "service 'slo' takes no arguments, got '%.60s'", args);
        return PLACE_ERR_SPEC;
    }
    return place__service_slo_create(env, 0, state);
}

static int count_replicas(slo *s, const place_view *v, uint32_t group)
{
    const place_cluster *c = v->cluster;
    if (c->n_nodes > s->cap) {
        uint32_t old = s->cap;
        if (place__grow(&s->env, (void **)&s->cnt, &s->cap, c->n_nodes, sizeof *s->cnt))
            return PLACE_ERR_NOMEM;
        memset(s->cnt + old, 0, (s->cap - old) * sizeof *s->cnt);
    }
    s->n_touched = 0;
    if (group == 0)
        return PLACE_OK; /* no service named: nothing to spread */
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        if (!(rj->job.flags & PLACE_JOB_SERVICE) || rj->job.group != group)
            continue;
        for (uint32_t k = 0; k < rj->n_parts; k++) {
            uint32_t n = rj->parts[k].node;
            if (n >= c->n_nodes)
                continue;
            if (s->cnt[n] == 0) {
                if (place__grow(&s->env, (void **)&s->touched, &s->cap_touched, s->n_touched + 1,
                                sizeof *s->touched))
                    return PLACE_ERR_NOMEM;
                s->touched[s->n_touched++] = n;
            }
            s->cnt[n]++;
        }
    }
    return PLACE_OK;
}

static void uncount(slo *s)
{
    for (uint32_t k = 0; k < s->n_touched; k++)
        s->cnt[s->touched[k]] = 0;
    s->n_touched = 0;
}

typedef struct rank {
    uint32_t cnt, left, node, gpu;
} rank;

static int better(const rank *a, const rank *b)
{
    if (b->node == PLACE_NONE)
        return 1;
    if (a->cnt != b->cnt)
        return a->cnt < b->cnt;
    if (a->left != b->left)
        return a->left < b->left;
    if (a->node != b->node)
        return a->node < b->node;
    return a->gpu < b->gpu;
}

/* The best node (and GPU) of type t for replica j, or b.node == PLACE_NONE. */
static rank best_on_type(const slo *s, const place_view *v, const place_job *j, uint32_t t,
                         const place_fit_ctx *ctx)
{
    const place_cluster *c = v->cluster;
    rank b = {0, 0, PLACE_NONE, 0};
    if (j->gpu_milli < PLACE_MILLI_WHOLE) {
        for (uint32_t n = place_bits_next(&c->any_share[t], 0); n != PLACE_NONE;
             n = place_bits_next(&c->any_share[t], n + 1)) {
            if (!place_host_ok(c, n, j) || c->node_milli_free[n] < j->gpu_milli)
                continue;
            uint32_t g0 = c->node_gpu0[n];
            for (uint32_t g = 0; g < c->node_gpus[n]; g++) {
                if (!place_gpu_share_fits(c, n, g, j))
                    continue;
                rank r = {s->cnt[n], c->gpu_free_milli[g0 + g] - j->gpu_milli, n, g};
                if (better(&r, &b) && place__share_ok(v, j, n, g, ctx))
                    b = r;
            }
        }
        return b;
    }
    for (uint32_t f = j->gpus; f <= c->type_max_gpus[t]; f++)
        for (uint32_t n = place_bits_next(&c->by_free[t][f], 0); n != PLACE_NONE;
             n = place_bits_next(&c->by_free[t][f], n + 1)) {
            rank r = {s->cnt[n], f, n, 0};
            if (better(&r, &b) && place__whole_ok(v, j, n, ctx))
                b = r;
        }
    return b;
}

int place__service_slo_place(void *state, const place_view *v, uint32_t i, place_decision *d,
                             const place_fit_ctx *ctx)
{
    slo *s = state;
    const place_cluster *c = v->cluster;
    const place_job *j = &v->queue[i];
    if (j->gpus == 0)
        return place_fit_cpu_only(v, j, d, ctx);
    uint32_t order[PLACE_MAX_TYPES], n = 0;
    for (uint32_t t = 0; t < c->n_types; t++) {
        if (!place_type_ok(c, j, t) || c->type_max_gpus[t] < j->gpus)
            continue;
        if (j->speed && !(j->speed[t] > 0))
            continue; /* the type cannot meet the SLO */
        double sp = j->speed ? j->speed[t] : 1.0;
        uint32_t k = n++;
        while (k > 0 && (j->speed ? j->speed[order[k - 1]] : 1.0) < sp) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = t;
    }
    int rc = count_replicas(s, v, j->group);
    if (rc != PLACE_OK) {
        uncount(s);
        return rc;
    }
    rc = PLACE_ERR_NOFIT;
    for (uint32_t k = 0; k < n; k++) {
        rank b = best_on_type(s, v, j, order[k], ctx);
        if (b.node == PLACE_NONE)
            continue;
        if (j->gpu_milli < PLACE_MILLI_WHOLE)
            place_decide_share(d, j, b.node, b.gpu);
        else
            place_decide_whole(d, j, b.node);
        rc = PLACE_OK;
        break;
    }
    uncount(s);
    return rc;
}

const place_service place__service_slo = {
    .name = "slo",
    .summary = "replicas on SLO-meeting types, fastest first, spread across nodes",
    .create = slo_create,
    .destroy = place__service_slo_destroy,
    .place = place__service_slo_place,
};
