/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backfill_easy.c — EASY (aggressive) backfilling.
 *
 * The first job of the pass that cannot start gets a reservation where it
 * would start earliest (its shadow time, on the node or nodes that give it
 * soonest); every later job may start now only if it fits now and either ends
 * before the shadow time or uses only the extra capacity of the reserved
 * node(s), so the first job is never delayed (jobs behind it may be). The
 * capacity model: where the nodes a job may use are identical (one GPU type,
 * one GPU count per node, whole-node jobs; the exact condition is in
 * backfill_count.c) the reservation is a count of nodes, exactly the rule's
 * statement; otherwise it names nodes (backfill_profile.c, the
 * generalisation from processors to GPU nodes). Estimates come from
 * place_job.estimate_us (-1 = unknown = infinite); a job with an unknown
 * estimate never ends, so without estimates EASY reserves behind nothing and
 * is greedy. Both models are behind place__bf_* (backfill_count.c), which
 * this table shares with conservative backfilling (one reservation here).
 * Cost: see those two files; one reservation search per pass.
 * Source: Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995 (the EASY
 * scheduler); the algorithm as stated by Mu'alem and Feitelson, IEEE TPDS
 * 12(6), 2001, section 2.
 */
#include "place_int.h"

#include <stdio.h>

static int easy_create(const place_env *env, const char *args, void **state, char *err,
                       size_t err_len)
{
    if (*args) {
        if (err && err_len)
            snprintf(err, err_len, "backfill 'easy' takes no arguments, got '%.60s'", args);
        return PLACE_ERR_SPEC;
    }
    return place__bf_create(env, 1, state);
}

const place_backfill place__backfill_easy = {
    .name = "easy",
    .summary = "reserve for the first blocked job; backfill what does not delay it",
    .create = easy_create,
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
