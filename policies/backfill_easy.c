/*
 * backfill_easy.c — EASY (aggressive) backfilling.
 *
 * The first job of the pass that cannot start gets a reservation where it
 * would start earliest (its shadow time, on the node or nodes that give it
 * soonest); every later job may start now only if it fits now and either ends
 * before the shadow time or uses only the extra capacity of the reserved
 * node(s), so the first job is never delayed (jobs behind it may be). The
 * capacity model and its generalisation from processors to GPU nodes are in
 * backfill_profile.c. Estimates come from place_job.estimate_us (-1 =
 * unknown = infinite): without estimates EASY reserves nothing and is greedy.
 * Cost: see backfill_profile.c; one reservation search per pass.
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
    return place__profile_create(env, 1, (place__profile **)state);
}

static void easy_destroy(void *state)
{
    place__profile_destroy(state);
}

static int easy_begin(void *state, const place_view *v)
{
    place__profile_begin(state, v);
    return PLACE_OK;
}

static int easy_blocked(void *state, const place_view *v, uint32_t i)
{
    int rc = place__profile_reserve(state, v, i);
    return rc < 0 ? rc : PLACE_BF_SKIP;
}

static int easy_allow(void *state, const place_view *v, const place_job *j, const place_part *p)
{
    return place__profile_allow(state, v, j, p);
}

static void easy_observe(void *state, const place_view *v, const place_decision *d)
{
    place__profile_observe(state, v, d);
}

static int easy_hopeless(void *state, const place_view *v, const place_job *j)
{
    return place__profile_hopeless(state, v, j);
}

static int easy_reserving(const void *state)
{
    return place__profile_n_resv(state) > 0;
}

const place_backfill place__backfill_easy = {
    .name = "easy",
    .summary = "reserve for the first blocked job; backfill what does not delay it",
    .create = easy_create,
    .destroy = easy_destroy,
    .begin = easy_begin,
    .blocked = easy_blocked,
    .allow = easy_allow,
    .observe = easy_observe,
    .reserving = easy_reserving,
    .hopeless = easy_hopeless,
};
