/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capacity.c — what a cluster's nodes can ever offer, and the jobs that no
 * state of them can hold.
 *
 * A job is impossible on a cluster when no node it may use could hold it even
 * empty and in service: more host CPU or memory than any node has, no node of
 * a GPU type it allows, more GPU memory than each allowed type has, or a gang
 * larger than every node of the allowed types (larger than all their GPUs,
 * for a gang that may span nodes). The simulator rejects such jobs when they
 * arrive (sim/model/engine.c); `tarmac place` lists the queued ones with
 * their reason. Both ask place_job_never_fits, so the two agree on the rule
 * and its wording. The capacity is taken once from the cluster's nodes
 * (O(nodes)); a question costs O(types).
 */
#include "place.h"

#include <string.h>

const char *place_never_reason_str(int reason)
{
    switch (reason) {
#define PLACE_NEVER_STR_(name, value, key, msg)                                                    \
    case value:                                                                                    \
        return msg;
        PLACE_NEVER_REASONS(PLACE_NEVER_STR_)
#undef PLACE_NEVER_STR_
    default:
        return "unknown";
    }
}

const char *place_never_reason_key(int reason)
{
    switch (reason) {
#define PLACE_NEVER_KEY_(name, value, key, msg)                                                    \
    case value:                                                                                    \
        return key;
        PLACE_NEVER_REASONS(PLACE_NEVER_KEY_)
#undef PLACE_NEVER_KEY_
    default:
        return "unknown";
    }
}

void place_capacity_init(place_capacity *cap, const place_cluster *c)
{
    memset(cap, 0, sizeof *cap);
    cap->n_types = c->n_types < PLACE_MAX_TYPES ? c->n_types : PLACE_MAX_TYPES;
    memcpy(cap->type_mem_mib, c->type_mem_mib, sizeof cap->type_mem_mib);
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        uint32_t t = c->node_type[n];
        if (t >= PLACE_MAX_TYPES)
            continue;
        cap->types |= 1ull << t;
        if (c->node_gpus[n] > cap->type_max_node_gpus[t])
            cap->type_max_node_gpus[t] = c->node_gpus[n];
        cap->type_total_gpus[t] += c->node_gpus[n];
        if (c->node_cpu_milli[n] > cap->type_max_cpu_milli[t])
            cap->type_max_cpu_milli[t] = c->node_cpu_milli[n];
        if (c->node_mem_mib[n] > cap->type_max_mem_mib[t])
            cap->type_max_mem_mib[t] = c->node_mem_mib[n];
        if (c->node_cpu_milli[n] > cap->max_cpu_milli)
            cap->max_cpu_milli = c->node_cpu_milli[n];
        if (c->node_mem_mib[n] > cap->max_mem_mib)
            cap->max_mem_mib = c->node_mem_mib[n];
    }
}

int place_job_never_fits(const place_capacity *cap, const place_job *j)
{
    if (j->cpu_milli > cap->max_cpu_milli || j->host_mem_mib > cap->max_mem_mib)
        return PLACE_NEVER_HOST;
    if (j->gpus == 0)
        return PLACE_NEVER_NONE;
    uint64_t allowed = j->type_mask ? j->type_mask & cap->types : cap->types;
    if (!allowed)
        return PLACE_NEVER_TYPE;
    int mem_ok = 0, reason = PLACE_NEVER_GANG;
    for (uint32_t t = 0; t < cap->n_types; t++) {
        if (!((allowed >> t) & 1u) || j->gpu_mem_mib > cap->type_mem_mib[t])
            continue;
        mem_ok = 1;
        if (j->cpu_milli > cap->type_max_cpu_milli[t] ||
            j->host_mem_mib > cap->type_max_mem_mib[t]) {
            reason = PLACE_NEVER_HOST;
            continue;
        }
        if (j->gpus <= cap->type_max_node_gpus[t])
            return PLACE_NEVER_NONE;
        if (j->flags & PLACE_JOB_CAN_SPAN) {
            if (j->gpus <= cap->type_total_gpus[t])
                return PLACE_NEVER_NONE;
            reason = PLACE_NEVER_TOTAL;
        }
    }
    return mem_ok ? reason : PLACE_NEVER_MEMORY;
}
