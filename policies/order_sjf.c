/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_sjf.c — shortest job first, on run-time estimates.
 *
 * The key is place_job.estimate_us; an unknown estimate (-1) counts as
 * infinite, so such jobs come after every job with an estimate, in arrival
 * order. Equal estimates keep arrival order. Cost O(n log n) per pass.
 * Source: Smith, "Various optimizers for single-stage production", Naval
 * Research Logistics Quarterly 3, 1956 (shortest processing time first);
 * with user estimates in parallel job scheduling, e.g. Tsafrir, Etsion and
 * Feitelson, "Backfilling using system-generated predictions rather than user
 * runtime estimates", IEEE TPDS 18(6), 2007 (SJF-backfilling).
 */
#include "place_int.h"

static int sjf_sort(void *state, const place_view *v, uint32_t *perm, uint32_t n)
{
    place__keysort *ks = state;
    int rc = place__keysort_reserve(ks, n);
    if (rc != PLACE_OK)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        int64_t e = v->queue[perm[i]].estimate_us;
        ks->k[i].key = e < 0 ? UINT64_MAX : (uint64_t)e;
        ks->k[i].idx = perm[i];
    }
    place__keysort_run(ks, perm, n);
    return PLACE_OK;
}

const place_order place__order_sjf = {
    .name = "sjf",
    .summary = "shortest run-time estimate first (unknown estimates last)",
    .create = place__keysort_create,
    .destroy = place__keysort_destroy,
    .sort = sjf_sort,
};
