/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_las.c — least attained service, discretised (Tiresias' 2D-LAS).
 *
 * A job's attained service is place_job.attained_gpu_s: GPUs x time it has
 * run so far (Tiresias' "2D" measure: it weighs a gang by its width). Jobs
 * fall into K + 1 queues by K ascending thresholds; a lower queue goes first,
 * and within a queue jobs keep arrival order (Tiresias serves each queue
 * FIFO). A job that has waited longer than the starvation limit (from
 * submit_us, which a host re-queueing a preempted job may set to the re-queue
 * time) is promoted to the first queue, as Tiresias does to bound starvation.
 *
 * Arguments: thresholds in GPU-seconds and an optional starvation limit in
 * seconds, comma-separated: "order=las:3600,36000,starve=86400". Default: one
 * threshold of 3600 GPU-s (two queues; Tiresias reports two queues capture
 * most of the benefit) and no starvation limit.
 * This order never preempts, so in the simulator a waiting job's attained
 * service is what its earlier runs received (the engine adds each stopped
 * run's GPUs x length to attained_gpu_s) and, with no preemption rule, that
 * is 0 for every job: it is FIFO with whatever backfilling is composed. The
 * preset "las" is this order with topology placement and greedy backfilling
 * (what "tiresias" named before). Tiresias itself, with preemption of lower
 * queues, demotion as a job runs, starvation promotion by waiting versus
 * executed time and the Gittins index, is the whole policy tiresias-2dlas
 * (tiresias.c, docs/tiresias.md); its default thresholds are 3250,7200.
 * Cost O(n log n) per pass.
 * Source: Gu et al., "Tiresias: A GPU cluster manager for distributed deep
 * learning", NSDI 2019 (Discretized 2D-LAS); LAS/FB scheduling from
 * Kleinrock, Queueing Systems vol. 2, 1976.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAS_MAX_QUEUES 16

typedef struct las {
    place__keysort ks;
    double thr[LAS_MAX_QUEUES];
    uint32_t n_thr;
    int64_t starve_us; /* 0 = none */
} las;

static int las_create(const place_env *env, const char *args, void **state, char *err,
                      size_t err_len)
{
    las s;
    memset(&s, 0, sizeof s);
    s.ks.env = *env;
    s.thr[0] = 3600;
    s.n_thr = 1;
    if (*args) {
        s.n_thr = 0;
        const char *p = args;
        while (*p) {
            size_t len = strcspn(p, ",");
            char tok[64];
            if (len == 0 || len >= sizeof tok)
                goto bad;
            memcpy(tok, p, len);
            tok[len] = '\0';
            p += len + (p[len] == ',');
            char *end;
            if (strncmp(tok, "starve=", 7) == 0) {
                double x = strtod(tok + 7, &end);
                if (*end || !(x > 0) || x > 1e12)
                    goto bad;
                s.starve_us = (int64_t)llround(x * 1e6);
                continue;
            }
            double x = strtod(tok, &end);
            if (*end || !(x > 0) || !isfinite(x) || s.n_thr == LAS_MAX_QUEUES ||
                (s.n_thr > 0 && x <= s.thr[s.n_thr - 1]))
                goto bad;
            s.thr[s.n_thr++] = x;
        }
    }
    las *l = place__realloc(env, NULL, 0, sizeof *l);
    if (!l)
        return PLACE_ERR_NOMEM;
    *l = s;
    *state = l;
    return PLACE_OK;
bad:
    if (err && err_len)
        snprintf(err, err_len,
                 "order 'las': expected ascending thresholds in GPU-seconds and an optional "
                 "starve=SECONDS, comma-separated (at most %d), got '%.60s'",
                 LAS_MAX_QUEUES, args);
    return PLACE_ERR_SPEC;
}

static void las_destroy(void *state)
{
    las *l = state;
    if (!l)
        return;
    place__keysort_fini(&l->ks);
    place_env env = l->ks.env;
    place__free(&env, l, sizeof *l);
}

static int las_sort(void *state, const place_view *v, uint32_t *perm, uint32_t n)
{
    las *l = state;
    int rc = place__keysort_reserve(&l->ks, n);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        const place_job *j = &v->queue[perm[i]];
        uint32_t q = 0;
        while (q < l->n_thr && j->attained_gpu_s >= l->thr[q])
            q++;
        if (l->starve_us > 0 && v->now_us - j->submit_us >= l->starve_us)
            q = 0;
        l->ks.k[i].key = q;
        l->ks.k[i].idx = perm[i];
    }
    place__keysort_run(&l->ks, perm, n);
    return PLACE_OK;
}

const place_order place__order_las = {
    .name = "las",
    .summary = "least attained GPU service first, in discretised queues (Tiresias)",
    .create = las_create,
    .destroy = las_destroy,
    .sort = las_sort,
};
