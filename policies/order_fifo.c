/*
 * order_fifo.c — first come, first served.
 *
 * The queue arrives in arrival order (ties broken by the host's sequence
 * number), so FIFO is the identity permutation and costs nothing.
 */
#include "place_int.h"

static int fifo_sort(const place_view *v, uint32_t *perm, uint32_t n)
{
    (void)v;
    (void)perm;
    (void)n;
    return PLACE_OK;
}

const place_order place__order_fifo = {
    "fifo",
    "first come, first served (arrival order)",
    fifo_sort,
};
