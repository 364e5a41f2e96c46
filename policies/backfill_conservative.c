/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backfill_conservative.c — conservative backfilling.
 *
 * Every job of the pass that cannot start gets a reservation, in queue order,
 * at the earliest time the capacity profile (with the reservations of the
 * jobs ahead of it) holds it for its estimated run; a job may start now only
 * if it delays none of the reservations made so far. So no job is ever
 * delayed by one behind it, at the price of fewer backfills than EASY. The
 * profile follows the running jobs from pass to pass; reservations are not
 * kept between passes: each pass recomputes them, as the schedule is
 * recomputed when jobs end early. Model: a count of nodes in an
 * availability profile where the nodes a job may use are identical
 * (backfill_count.c, which states the condition), node identities otherwise
 * (backfill_profile.c); both behind place__bf_*, shared with EASY.
 * Cost: one reservation search per blocked job: O(queue x steps) per pass on
 * identical nodes, O(queue x nodes) in the worst case otherwise.
 * Source: Mu'alem and Feitelson, IEEE TPDS 12(6), 2001, section 2
 * (conservative backfilling, after Feitelson and Weil, IPPS 1998).
 */
#include "place_int.h"

#include <stdio.h>

static int cons_create(const place_env *env, const char *args, void **state, char *err,
                       size_t err_len)
{
    if (*args) {
        if (err && err_len)
            snprintf(err, err_len, "backfill 'conservative' takes no arguments, got '%.60s'", args);
        return PLACE_ERR_SPEC;
    }
    return place__bf_create(env, UINT32_MAX, state);
}

const place_backfill place__backfill_conservative = {
    .name = "conservative",
    .summary = "reserve for every blocked job; backfill only what delays none",
    .create = cons_create,
    .destroy = place__bf_destroy,
    .begin = place__bf_begin,
    .blocked = place__bf_blocked,
    .allow = place__bf_allow,
    .observe = place__bf_observe,
    .reserving = place__bf_reserving,
    .hopeless = place__bf_hopeless,
    /* with no whole GPU free nothing starts, and begin() rebuilds what a
     * pass reads (the reservations, the count profile; the node-identity
     * profile syncs from the view): a full pass may be skipped */
    .flags = PLACE_BF_IDLE_WHEN_FULL,
};
