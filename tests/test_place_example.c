/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_example.c — the worked example of README.md "Write your own
 * policy": placement=smallest-type (policies/fit_example.c), on the cluster of
 * the README's walkthrough, answers worked out by hand.
 */
#include "check.h"
#include "place_views.h"

#include <stdio.h>
#include <string.h>

#define GIB 1024u

static pv_host H;

/* Start job j alone with placement=smallest-type; the node it got, or PLACE_NONE. */
static uint32_t place_alone(place_job j)
{
    H.n_queue = 0;
    H.n_log = 0;
    pv_queue(&H, j);
    CHECK_EQ_INT(pv_pass(&H, "order=fifo placement=smallest-type"), PLACE_OK);
    return H.n_log == 1 ? H.log[0].parts[0].node : PLACE_NONE;
}

int main(void)
{
    /* the README's cluster: type 0 H100 (80 GiB) on node 0, type 1 L40S
     * (48 GiB) on node 3, type 2 L4 (24 GiB) on node 2, type 3 A6000 (48 GiB)
     * on node 1; 8 GPUs each */
    uint32_t mem[4] = {80 * GIB, 48 * GIB, 24 * GIB, 48 * GIB};
    uint32_t types[4] = {0, 3, 2, 1}, g[4] = {8, 8, 8, 8};
    pv_init(&H, 4, mem, types, g, 4);
    CHECK(place_fit_find("smallest-type") != NULL);
    /* 2 GPUs of 20 GiB: the L4s (24 GiB), node 2 */
    place_job j = pv_job(1, 2);
    j.gpu_mem_mib = 20 * GIB;
    CHECK_EQ_INT(place_alone(j), 2);
    /* 30 GiB: too much for an L4; 48 GiB types 1 and 3 tie: type 1, node 3 */
    j.id = 2;
    j.gpu_mem_mib = 30 * GIB;
    CHECK_EQ_INT(place_alone(j), 3);
    /* fill the L4s: a 20 GiB job moves up to the smallest type left, node 3 */
    place_job fill = pv_job(3, 6);
    fill.gpu_mem_mib = 20 * GIB;
    CHECK_EQ_INT(place_alone(fill), 2);
    j.id = 4;
    j.gpu_mem_mib = 20 * GIB;
    CHECK_EQ_INT(place_alone(j), 3);
    /* 60 GiB needs the H100s; 90 GiB fits nothing */
    j.id = 5;
    j.gpu_mem_mib = 60 * GIB;
    CHECK_EQ_INT(place_alone(j), 0);
    j.id = 6;
    j.gpu_mem_mib = 90 * GIB;
    CHECK_EQ_INT(place_alone(j), PLACE_NONE);
    /* best-fit within the type: node 3 now has 4 free, node 1 (the other
     * 48 GiB type) 8: a 4-GPU 40 GiB job takes type 1 (lower index): node 3 */
    j.id = 7;
    j.gpus = 4;
    j.gpu_mem_mib = 40 * GIB;
    CHECK_EQ_INT(place_alone(j), 3);
    /* a 1-GPU share uses the first-fit helper */
    place_job s = pv_job(8, 1);
    s.gpu_milli = 250;
    CHECK_EQ_INT(place_alone(s), 0);
    pv_fini(&H);
    return check_finish("test_place_example");
}
