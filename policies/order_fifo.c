/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order_fifo.c — first come, first served.
 *
 * The queue arrives in arrival order (ties broken by the host's sequence
 * number), so FIFO is the identity: no sort function, no permutation, no cost.
 * Source: the first-come-first-served discipline of queueing theory and of
 * every batch scheduler.
 */
#include "place_int.h"

const place_order place__order_fifo = {
    .name = "fifo",
    .summary = "first come, first served (arrival order)",
};
