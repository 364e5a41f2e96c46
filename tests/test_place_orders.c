/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_orders.c — every queue order against hand-built queues, the
 * permutation worked out by hand in the comments (ties included: equal keys
 * keep arrival order), and the order component's arguments. Each order is
 * called through its public table, as the composed policy calls it.
 */
#include "check.h"
#include "place_views.h"

#include <string.h>

static pv_host H;

/* Sort H's queue with order `spec` ("name" or "name:args"); perm gets the result. */
static int sort_with(const char *name, const char *args, uint32_t *perm)
{
    const place_order *o = place_order_find(name);
    CHECK(o != NULL);
    if (!o)
        return -1;
    place_env env = pv_env();
    void *state = NULL;
    char err[200] = "";
    if (o->create) {
        int rc = o->create(&env, args, &state, err, sizeof err);
        if (rc != PLACE_OK)
            return rc;
    }
    place_view v = pv_view(&H);
    for (uint32_t i = 0; i < H.n_queue; i++)
        perm[i] = i;
    int rc = o->sort ? o->sort(state, &v, perm, H.n_queue) : PLACE_OK;
    if (o->destroy)
        o->destroy(state);
    return rc;
}

static void check_perm(const uint32_t *got, const uint32_t *want, uint32_t n, const char *what)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            check_fail(__FILE__, __LINE__, "%s: position %u: got queue index %u, want %u", what, i,
                       got[i], want[i]);
            return;
        }
}

static void queue_of(uint32_t n)
{
    uint32_t gpus[1] = {64};
    pv_init(&H, 1, NULL, NULL, gpus, 1);
    for (uint32_t i = 0; i < n; i++)
        pv_queue(&H, pv_job(i + 1, 1));
}

static void test_fifo(void)
{
    queue_of(4);
    uint32_t perm[4], want[4] = {0, 1, 2, 3};
    CHECK_EQ_INT(sort_with("fifo", "", perm), PLACE_OK);
    check_perm(perm, want, 4, "fifo");
    CHECK(place_order_find("fifo")->sort == NULL); /* no permutation is built at all */
    pv_fini(&H);
}

static void test_priority(void)
{
    /* priorities 1, 5, 3, 5, 1: the two 5s in arrival order, then 3, then the 1s */
    queue_of(5);
    int32_t pr[5] = {1, 5, 3, 5, 1};
    for (int i = 0; i < 5; i++)
        H.queue[i].priority = pr[i];
    uint32_t perm[5], want[5] = {1, 3, 2, 0, 4};
    CHECK_EQ_INT(sort_with("priority", "", perm), PLACE_OK);
    check_perm(perm, want, 5, "priority");
    /* negative priorities sort below zero */
    H.queue[2].priority = -7;
    uint32_t want2[5] = {1, 3, 0, 4, 2};
    CHECK_EQ_INT(sort_with("priority", "", perm), PLACE_OK);
    check_perm(perm, want2, 5, "priority, negative");
    pv_fini(&H);
}

static void test_sjf(void)
{
    /* estimates 100, unknown, 50, 100, 10 s: 10, 50, the two 100s in arrival
     * order, the unknown last */
    queue_of(5);
    int64_t est[5] = {100, -1, 50, 100, 10};
    for (int i = 0; i < 5; i++)
        H.queue[i].estimate_us = est[i] < 0 ? -1 : est[i] * 1000000;
    uint32_t perm[5], want[5] = {4, 2, 0, 3, 1};
    CHECK_EQ_INT(sort_with("sjf", "", perm), PLACE_OK);
    check_perm(perm, want, 5, "sjf");
    CHECK_EQ_INT(sort_with("sjf", "x", perm), PLACE_ERR_SPEC);
    pv_fini(&H);
}

static void test_edf(void)
{
    /* deadlines none, 500, 200, none, 200: the 200s in arrival order, 500,
     * then the jobs without deadline in arrival order */
    queue_of(5);
    int64_t dl[5] = {-1, 500, 200, -1, 200};
    for (int i = 0; i < 5; i++)
        H.queue[i].deadline_us = dl[i];
    uint32_t perm[5], want[5] = {2, 4, 1, 0, 3};
    CHECK_EQ_INT(sort_with("edf", "", perm), PLACE_OK);
    check_perm(perm, want, 5, "edf");
    pv_fini(&H);
}

static void test_las(void)
{
    /* thresholds 100 and 1000 GPU-s: attained 0, 150, 5000, 50, 1000 fall in
     * queues 0, 1, 2, 0, 2 (1000 is not below the second threshold) */
    queue_of(5);
    double att[5] = {0, 150, 5000, 50, 1000};
    for (int i = 0; i < 5; i++) {
        H.queue[i].attained_gpu_s = att[i];
        H.queue[i].submit_us = 1000 * 1000000ll; /* all arrived at t = 1000 s */
    }
    H.now_us = 1030 * 1000000ll;
    uint32_t perm[5], want[5] = {0, 3, 1, 2, 4};
    CHECK_EQ_INT(sort_with("las", "100,1000", perm), PLACE_OK);
    check_perm(perm, want, 5, "las");
    /* the default: one threshold at 3600 GPU-s: 0, 150, 50, 1000 below, 5000 above */
    uint32_t want_def[5] = {0, 1, 3, 4, 2};
    CHECK_EQ_INT(sort_with("las", "", perm), PLACE_OK);
    check_perm(perm, want_def, 5, "las default");
    /* starvation: job 2 arrived at t = 0, has waited 1030 s >= 600 s: promoted
     * to the first queue, where arrival order puts it between 0 and 3 */
    H.queue[2].submit_us = 0;
    uint32_t want_st[5] = {0, 2, 3, 1, 4};
    CHECK_EQ_INT(sort_with("las", "100,1000,starve=600", perm), PLACE_OK);
    check_perm(perm, want_st, 5, "las starve");
    /* bad arguments name the order */
    char err[200];
    void *st = NULL;
    place_env env = pv_env();
    const place_order *o = place_order_find("las");
    CHECK_EQ_INT(o->create(&env, "1000,100", &st, err, sizeof err), PLACE_ERR_SPEC);
    CHECK(strstr(err, "las") != NULL);
    CHECK_EQ_INT(o->create(&env, "abc", &st, err, sizeof err), PLACE_ERR_SPEC);
    CHECK_EQ_INT(o->create(&env, "starve=-1", &st, err, sizeof err), PLACE_ERR_SPEC);
    pv_fini(&H);
}

static void test_drf(void)
{
    /* two 8-GPU nodes, type 0 and type 1 (resources: 8 type-0 GPUs, 8 type-1
     * GPUs, 128 cores, 1 TiB). Running: tenant A (1) holds 4 type-0 GPUs
     * (share 4/8 = 0.5), tenant B (2) one type-1 GPU (1/8). Tenant C (3) has
     * nothing. Queue in arrival order:
     *   0 a1: A, 1 GPU type 0     1 b1: B, 2 GPUs type 1    2 c1: C, 1 GPU type 0
     *   3 a2: A, 1 GPU type 0     4 c2: C, 4 GPUs type 0
     * Progressive filling:
     *   C at 0       -> c1, C = 1/8
     *   B 1/8 = C    -> tie: B's next job (1) arrived before C's (4) -> b1, B = 3/8
     *   C 1/8        -> c2, C = 5/8
     *   A 1/2        -> a1, A = 5/8 (B and C have no more jobs)
     *   A            -> a2
     */
    uint32_t types[2] = {0, 1}, gpus[2] = {8, 8};
    pv_init(&H, 2, NULL, types, gpus, 2);
    place_job ra = pv_job(100, 4), rb = pv_job(101, 1);
    ra.tenant = 1;
    rb.tenant = 2;
    place_part pa = {0, 4, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    place_part pb = {1, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    pv_running(&H, ra, &pa, 1, 0, -1, 0);
    pv_running(&H, rb, &pb, 1, 0, -1, 0);
    uint32_t ten[5] = {1, 2, 3, 1, 3}, g[5] = {1, 2, 1, 1, 4};
    uint64_t mask[5] = {1, 2, 1, 1, 1};
    for (uint32_t i = 0; i < 5; i++) {
        place_job j = pv_job(i + 1, g[i]);
        j.tenant = ten[i];
        j.type_mask = mask[i];
        pv_queue(&H, j);
    }
    uint32_t perm[5], want[5] = {2, 1, 4, 0, 3};
    CHECK_EQ_INT(sort_with("drf", "", perm), PLACE_OK);
    check_perm(perm, want, 5, "drf");
    /* host CPU is a resource too: give A's running job 96 of the 128 cores
     * (share 0.75 > 0.5): nothing changes for A (it was last already), but
     * B's CPU-heavy queued job now counts: b1 asks 64 cores -> B's share
     * after b1 is 64/128 = 0.5, and the order of the rest is unchanged */
    H.run[0].job.cpu_milli = 96000;
    H.queue[1].cpu_milli = 64000;
    CHECK_EQ_INT(sort_with("drf", "", perm), PLACE_OK);
    check_perm(perm, want, 5, "drf with cpu");
    /* a tenant with a dominant CPU share yields to one with a smaller GPU share:
     * B's running job takes 112 cores (share 0.875 > C's 0): C first, and B's
     * b1 comes after c2 now (C = 5/8 < 7/8), and a1 (A = 0.75) before b1 too */
    H.run[1].job.cpu_milli = 112000;
    uint32_t want3[5] = {2, 4, 0, 3, 1};
    CHECK_EQ_INT(sort_with("drf", "", perm), PLACE_OK);
    check_perm(perm, want3, 5, "drf, cpu-dominant tenant");
    pv_fini(&H);
}

int main(void)
{
    test_fifo();
    test_priority();
    test_sjf();
    test_edf();
    test_las();
    test_drf();
    return check_finish("test_place_orders");
}
