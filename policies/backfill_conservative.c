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
 * recomputed when jobs end early. Model: backfill_profile.c.
 * Cost: one reservation search per blocked job, O(queue x nodes) per pass in
 * the worst case.
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
    return place__profile_create(env, UINT32_MAX, (place__profile **)state);
}

static void cons_destroy(void *state)
{
    place__profile_destroy(state);
}

static int cons_begin(void *state, const place_view *v)
{
    place__profile_begin(state, v);
    return PLACE_OK;
}

static int cons_blocked(void *state, const place_view *v, uint32_t i)
{
    int rc = place__profile_reserve(state, v, i);
    return rc < 0 ? rc : PLACE_BF_SKIP;
}

static int cons_allow(void *state, const place_view *v, const place_job *j, const place_part *p)
{
    return place__profile_allow(state, v, j, p);
}

static void cons_observe(void *state, const place_view *v, const place_decision *d)
{
    place__profile_observe(state, v, d);
}

static int cons_hopeless(void *state, const place_view *v, const place_job *j)
{
    return place__profile_hopeless(state, v, j);
}

static int cons_reserving(const void *state)
{
    return place__profile_n_resv(state) > 0;
}

const place_backfill place__backfill_conservative = {
    .name = "conservative",
    .summary = "reserve for every blocked job; backfill only what delays none",
    .create = cons_create,
    .destroy = cons_destroy,
    .begin = cons_begin,
    .blocked = cons_blocked,
    .allow = cons_allow,
    .observe = cons_observe,
    .reserving = cons_reserving,
    .hopeless = cons_hopeless,
};
