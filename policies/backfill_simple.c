/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backfill_simple.c — the two rules that need no reservation.
 *
 * none:   strict order. When the job at the head of the (ordered) queue does not
 *         fit, nothing behind it starts: the classic FCFS of batch schedulers,
 *         and the discipline the M/M/c formulas assume.
 * greedy: list scheduling. A job that does not fit is passed over and the next
 *         one is tried; large jobs can starve (no reservation protects them).
 *         This is how the Kubernetes-style simulators of the openb experiments
 *         place pods.
 * Source: FCFS and list scheduling (Graham, "Bounds for certain multiprocessing
 * anomalies", Bell System Technical Journal 45(9), 1966).
 */
#include "place_int.h"

static int stop_blocked(void *state, const place_view *v, uint32_t i)
{
    (void)state;
    (void)v;
    (void)i;
    return PLACE_BF_STOP;
}

static int skip_blocked(void *state, const place_view *v, uint32_t i)
{
    (void)state;
    (void)v;
    (void)i;
    return PLACE_BF_SKIP;
}

const place_backfill place__backfill_none = {
    .name = "none",
    .summary = "strict order: a job that does not fit blocks the jobs behind it",
    .blocked = stop_blocked,
};

const place_backfill place__backfill_greedy = {
    .name = "greedy",
    .summary = "skip a job that does not fit and try the next (no reservation)",
    .blocked = skip_blocked,
};
