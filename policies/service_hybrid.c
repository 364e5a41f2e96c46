/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service_hybrid.c — hybrid serving: SLO-aware replica placement on owned
 * capacity, and overflow to an API when owned capacity cannot meet the SLO.
 *
 * A waiting replica is placed as service_slo.c places it. When no node of an
 * SLO-meeting type can take it, and the replica's service allows API
 * overflow (PLACE_JOB_API_OK), and it has waited at least `wait` seconds
 * (default 0: at once; a longer wait lets a replica ride out a short
 * capacity dip, at the cost of SLO misses meanwhile), the rule answers
 * PLACE_ROUTE_API: the host takes the replica out of the queue and sends the
 * load it would have served to the API (see place_decision_kind in place.h).
 * Replicas that do not allow overflow stay queued.
 * Arguments: "service=hybrid:wait=SECONDS".
 * Cost: as service_slo.c.
 * Source: the hybrid owned-plus-API serving of cloud bursting (e.g. the
 * "burst to public cloud when the private pool cannot meet the deadline"
 * rule of Van den Bossche et al., "Cost-optimal scheduling in hybrid IaaS
 * clouds for deadline constrained workloads", IEEE CLOUD 2010), applied to
 * model serving with an API as the overflow tier.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hybrid_create(const place_env *env, const char *args, void **state, char *err,
                         size_t err_len)
{
    double wait_s = 0;
    if (*args) {
        char *end = NULL;
        if (strncmp(args, "wait=", 5) == 0)
            wait_s = strtod(args + 5, &end);
        if (!end || *end || end == args + 5 || !isfinite(wait_s) || wait_s < 0 || wait_s > 1e12) {
            if (err && err_len)
                snprintf(err, err_len, "service 'hybrid': expected wait=SECONDS, got '%.60s'",
                         args);
            return PLACE_ERR_SPEC;
        }
    }
    return place__service_slo_create(env, (int64_t)llround(wait_s * 1e6), state);
}

static int hybrid_place(void *state, const place_view *v, uint32_t i, place_decision *d,
                        const place_fit_ctx *ctx)
{
    int rc = place__service_slo_place(state, v, i, d, ctx);
    if (rc != PLACE_ERR_NOFIT)
        return rc;
    const place_job *j = &v->queue[i];
    uint32_t need = PLACE_JOB_SERVICE | PLACE_JOB_API_OK;
    if ((j->flags & need) == need && v->now_us - j->submit_us >= place__service_slo_wait(state))
        return PLACE_ROUTED;
    return PLACE_ERR_NOFIT;
}

const place_service place__service_hybrid = {
    .name = "hybrid",
    .summary = "SLO-aware placement; overflow to an API when owned capacity cannot meet the SLO",
    .create = hybrid_create,
    .destroy = place__service_slo_destroy,
    .place = hybrid_place,
};
