/* SPDX-License-Identifier: Apache-2.0 */
/*
 * preempt_none.c — no preemption: a job that does not fit waits.
 * Source: the non-preemptive default of batch schedulers.
 */
#include "place_int.h"

const place_preempt place__preempt_none = {
    .name = "none",
    .summary = "never preempt",
};
