/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_edf.c — earliest deadline first, for batch work with deadlines.
 *
 * The key is place_job.deadline_us (absolute); jobs without a deadline (-1)
 * come after every job with one, in arrival order. Equal deadlines keep
 * arrival order. Cost O(n log n) per pass.
 * Source: Liu and Layland, "Scheduling algorithms for multiprogramming in a
 * hard-real-time environment", JACM 20(1), 1973 (the deadline-driven rule).
 */
#include "place_int.h"

static int edf_sort(void *state, const place_view *v, uint32_t *perm, uint32_t n)
{
    place__keysort *ks = state;
    int rc = place__keysort_reserve(ks, n);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        int64_t dl = v->queue[perm[i]].deadline_us;
        ks->k[i].key = dl < 0 ? UINT64_MAX : place__key_asc(dl);
        ks->k[i].idx = perm[i];
    }
    place__keysort_run(ks, perm, n);
    return PLACE_OK;
}

const place_order place__order_edf = {
    .name = "edf",
    .summary = "earliest deadline first (jobs without a deadline last)",
    .create = place__keysort_create,
    .destroy = place__keysort_destroy,
    .sort = edf_sort,
};
