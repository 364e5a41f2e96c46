/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_priority.c — priority classes: higher place_job.priority first,
 * arrival order within a class.
 *
 * The key is the priority, descending; the index breaks ties, so a class is
 * served first come, first served. Cost O(n log n) per pass.
 * Source: strict priority classes as in Kubernetes PriorityClass and the
 * priority tiers of Slurm partitions (PriorityTier); the head-of-line
 * priority discipline of queueing theory (Cobham, "Priority assignment in
 * waiting line problems", Operations Research 2(1), 1954).
 */
#include "place_int.h"

static int priority_sort(void *state, const place_view *v, uint32_t *perm, uint32_t n)
{
    place__keysort *ks = state;
    int rc = place__keysort_reserve(ks, n);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        ks->k[i].key = place__key_desc(v->queue[perm[i]].priority);
        ks->k[i].idx = perm[i];
    }
    place__keysort_run(ks, perm, n);
    return PLACE_OK;
}

const place_order place__order_priority = {
    .name = "priority",
    .summary = "higher priority first, first come first served within a priority",
    .create = place__keysort_create,
    .destroy = place__keysort_destroy,
    .sort = priority_sort,
};
