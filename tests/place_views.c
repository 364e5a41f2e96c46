/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_views.c — see place_views.h. The host's apply() mirrors the protocol
 * documented at place_decision_kind in place.h.
 */
#include "place_views.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

place_env pv_env(void)
{
    place_env e = {place_alloc_libc, NULL, NULL, NULL};
    return e;
}

place_job pv_job(uint64_t id, uint32_t gpus)
{
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = id;
    j.gpus = gpus;
    j.gpu_milli = PLACE_MILLI_WHOLE;
    j.estimate_us = -1;
    j.deadline_us = -1;
    return j;
}

void pv_init(pv_host *h, uint32_t n_types, const uint32_t *mem_mib, const uint32_t *types,
             const uint32_t *gpus, uint32_t n_nodes)
{
    memset(h, 0, sizeof *h);
    uint32_t mem[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < n_types; t++)
        mem[t] = mem_mib ? mem_mib[t] : 80 * 1024;
    place_env env = pv_env();
    CHECK_EQ_INT(place_cluster_init(&h->c, &env, n_types, mem), PLACE_OK);
    for (uint32_t i = 0; i < n_nodes; i++) {
        uint32_t node;
        CHECK_EQ_INT(
            place_cluster_add_node(&h->c, types ? types[i] : 0, gpus[i], 64000, 512 * 1024, &node),
            PLACE_OK);
        CHECK_EQ_INT(place_cluster_set_node_up(&h->c, node, 1), PLACE_OK);
    }
}

void pv_fini(pv_host *h)
{
    place_cluster_fini(&h->c);
}

uint32_t pv_running(pv_host *h, place_job j, const place_part *parts, uint32_t n_parts,
                    int64_t start_us, int64_t end_estimate_us, double lost_gpu_s)
{
    uint32_t i = h->n_run++;
    memcpy(h->run_parts[i], parts, n_parts * sizeof *parts);
    int exact = 0;
    for (uint32_t k = 0; k < n_parts; k++)
        exact |= parts[k].mask != 0;
    int rc = exact ? place_cluster_take_exact(&h->c, &j, h->run_parts[i], n_parts)
                   : place_cluster_take(&h->c, &j, h->run_parts[i], n_parts);
    CHECK_EQ_INT(rc, PLACE_OK);
    place_running *r = &h->run[i];
    memset(r, 0, sizeof *r);
    r->job = j;
    r->start_us = start_us;
    r->end_estimate_us = end_estimate_us;
    r->lost_gpu_s = lost_gpu_s;
    r->parts = h->run_parts[i];
    r->n_parts = n_parts;
    return i;
}

uint32_t pv_running_whole(pv_host *h, uint64_t id, uint32_t n, uint32_t k, int64_t end_us)
{
    place_part p = {n, (uint16_t)k, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    return pv_running(h, pv_job(id, k), &p, 1, -1, end_us, 0);
}

void pv_queue(pv_host *h, place_job j)
{
    h->qstate[h->n_queue] = PLACE_Q_WAITING;
    h->queue[h->n_queue++] = j;
}

place_view pv_view(pv_host *h)
{
    place_view v = {h->now_us, &h->c,    h->queue, h->qstate, h->n_queue,
                    h->run,    h->n_run, NULL,     NULL,      0};
    return v;
}

static int apply(void *host, place_view *v, place_decision *d)
{
    pv_host *h = host;
    pv_logged *lg = &h->log[h->n_log++];
    lg->kind = d->kind;
    lg->index = d->index;
    lg->n_parts = 0;
    switch (d->kind) {
    case PLACE_START: {
        place_job *j = &h->queue[d->index];
        uint32_t i = h->n_run;
        if (i == PV_MAX || d->n_parts > PV_PARTS)
            return PLACE_ERR_NOMEM;
        memcpy(h->run_parts[i], d->parts, d->n_parts * sizeof *d->parts);
        int rc = place_cluster_take(&h->c, j, h->run_parts[i], d->n_parts);
        if (rc != PLACE_OK)
            return rc;
        h->qstate[d->index] = PLACE_Q_STARTED;
        place_running *r = &h->run[i];
        memset(r, 0, sizeof *r);
        r->job = *j;
        r->start_us = h->now_us;
        r->end_estimate_us = place_end_estimate(&h->c, j, h->run_parts[i], d->n_parts, h->now_us);
        r->overhead_us = j->restart_us;
        r->lost_gpu_s = -1;
        r->parts = h->run_parts[i];
        r->n_parts = d->n_parts;
        h->n_run++;
        lg->id = j->id;
        lg->n_parts = d->n_parts;
        memcpy(lg->parts, h->run_parts[i], d->n_parts * sizeof *d->parts);
        break;
    }
    case PLACE_PREEMPT: {
        uint32_t k = d->index, last = h->n_run - 1;
        place_running *r = &h->run[k];
        lg->id = r->job.id;
        place_cluster_give(&h->c, &r->job, r->parts, r->n_parts);
        if (k != last) {
            h->run[k] = h->run[last];
            memcpy(h->run_parts[k], h->run_parts[last], sizeof h->run_parts[k]);
            h->run[k].parts = h->run_parts[k];
        }
        h->n_run--;
        break;
    }
    case PLACE_ROUTE_API:
        lg->id = h->queue[d->index].id;
        h->qstate[d->index] = PLACE_Q_ROUTED;
        break;
    default:
        return PLACE_ERR_INVAL;
    }
    v->running = h->run;
    v->n_running = h->n_run;
    return PLACE_OK;
}

int pv_pass_instance(pv_host *h, const place_instance *pi)
{
    place_view v = pv_view(h);
    place_part parts[64];
    h->n_log = 0;
    int rc = place_pass_run(pi, &v, h->qstate, parts, 64, apply, h, &h->stats);
    if (place_cluster_verify(&h->c) != PLACE_OK)
        check_fail(__FILE__, __LINE__, "cluster invariants broken after a pass");
    return rc;
}

int pv_pass(pv_host *h, const char *spec)
{
    place_env env = pv_env();
    place_instance pi;
    char err[256];
    int rc = place_instance_init(&pi, &env, spec, err, sizeof err);
    if (rc != PLACE_OK) {
        check_fail(__FILE__, __LINE__, "policy '%s': %s", spec, err);
        return rc;
    }
    rc = pv_pass_instance(h, &pi);
    place_instance_fini(&pi);
    return rc;
}

const char *pv_started(const pv_host *h, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < h->n_log && len + 24 < n; k++)
        if (h->log[k].kind == PLACE_START)
            len += (size_t)snprintf(buf + len, n - len, "%s%llu", len ? " " : "",
                                    (unsigned long long)h->log[k].id);
    return buf;
}
