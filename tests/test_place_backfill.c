/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_backfill.c — EASY and conservative backfilling against worked
 * examples.
 *
 * The first two examples are on one node of 10 GPUs, where a gang on one
 * node is exactly a job on a pool of processors: the setting of the
 * algorithm statement in Mu'alem and Feitelson, "Utilization, predictability,
 * workloads, and user runtime estimates in scheduling the IBM SP2 with
 * backfilling", IEEE TPDS 12(6), 2001, section 2:
 *   EASY: 1. find the shadow time and the extra processors: sort the running
 *   jobs by expected end, accumulate their processors until the first queued
 *   job fits (the shadow time); the processors left over then are "extra".
 *   2. a queued job may be backfilled if it fits now and either ends by the
 *   shadow time or uses no more than the extra processors (which it then
 *   consumes).
 *   Conservative: every queued job gets a reservation in order; a job is
 *   backfilled only if it delays none.
 * The instances are worked by hand below. The others check the
 * generalisation to several nodes and types, gangs that span, unknown
 * estimates and GPU shares (backfill_profile.c describes it).
 * Times are in seconds in the comments, microseconds in the code.
 */
#include "check.h"
#include "place_int.h" /* the profile is inspected directly */
#include "place_views.h"

#include <string.h>

#define S 1000000ll

static pv_host H;

static place_job job(uint64_t id, uint32_t gpus, int64_t est_s)
{
    place_job j = pv_job(id, gpus);
    j.estimate_us = est_s < 0 ? -1 : est_s * S;
    return j;
}

/* One node of 10 GPUs, now = 0. Running: R1 6 GPUs to t = 4, R2 2 GPUs to
 * t = 7; 2 GPUs free. Queue: J1 7 GPUs 5 s; J2 1 GPU 10 s; J3 1 GPU 10 s;
 * J4 1 GPU 2 s; J5 1 GPU 1 s.
 *
 * EASY: J1 does not fit (2 free). Shadow time: R1 ends at 4, then 8 GPUs are
 * free >= 7: shadow 4, extra 8 - 7 = 1.
 *   J2: fits (2 free), ends at 10 > 4, but 1 <= extra 1: backfilled; extra 0.
 *   J3: fits (1 free), ends at 10 > 4, extra 0: not backfilled (it would
 *       leave 8 - 1 - 1 = 6 < 7 GPUs for J1 at 4).
 *   J4: fits (1 free), ends at 2 <= 4: backfilled.
 *   J5: no GPU free.
 *   -> starts J2, J4. J1 still starts at 4: R1 and J4 gone, R2 and J2 hold 3.
 * Conservative: J1 reserved [4, 9). Free profile: [0,4) 2; [4,7) 8-7 = 1;
 * [7,9) 3; [9,inf) 10.
 *   J2 (1 GPU over [0,10)): [0,4) 1, [4,7) 0, [7,9) 2: fits: started.
 *   J3 (1 over [0,10)): [4,7) would be -1: reserved at the earliest time 1 GPU
 *       holds for 10 s: 7 ([7,9) 2, [9,10) 9, then 10): [7, 17).
 *   J4 (1 over [0,2)): [0,2) 1 - 1 = 0: started.
 *   J5: no GPU free; reserved at 2 (when J4 ends): [2, 3).
 *   -> starts J2, J4, as EASY does here.
 * Greedy (no reservation): J2, J3. Strict FIFO: nothing. */
static void setup_example1(void)
{
    uint32_t g[1] = {10};
    pv_init(&H, 1, NULL, NULL, g, 1);
    pv_running_whole(&H, 101, 0, 6, 4 * S);
    pv_running_whole(&H, 102, 0, 2, 7 * S);
    pv_queue(&H, job(1, 7, 5));
    pv_queue(&H, job(2, 1, 10));
    pv_queue(&H, job(3, 1, 10));
    pv_queue(&H, job(4, 1, 2));
    pv_queue(&H, job(5, 1, 1));
}

static void test_example1(void)
{
    char buf[128];
    const char *spec[4] = {"backfill=easy", "backfill=conservative", "backfill=greedy",
                           "backfill=none"};
    const char *want[4] = {"2 4", "2 4", "2 3", ""};
    for (int k = 0; k < 4; k++) {
        setup_example1();
        CHECK_EQ_INT(pv_pass(&H, spec[k]), PLACE_OK);
        CHECK_STR(pv_started(&H, buf, sizeof buf), want[k]);
        CHECK_EQ_INT(H.stats.invalid, 0);
        pv_fini(&H);
    }
    /* the EASY reservation itself: node 0, shadow 4 s, 7 GPUs, for queue entry 0 */
    setup_example1();
    place_env env = pv_env();
    place__profile *p;
    CHECK_EQ_INT(place__profile_create(&env, 1, &p), PLACE_OK);
    place_view v = pv_view(&H);
    place__profile_begin(p, &v);
    CHECK_EQ_INT(place__profile_reserve(p, &v, 0), PLACE_OK);
    CHECK_EQ_INT(place__profile_n_resv(p), 1);
    uint32_t node, gpus, qi;
    int64_t a, b;
    place__profile_resv(p, 0, &node, &a, &b, &gpus, &qi);
    CHECK_EQ_INT(node, 0);
    CHECK_EQ_INT(a, 4 * S);
    CHECK_EQ_INT(b, 9 * S);
    CHECK_EQ_INT(gpus, 7);
    CHECK_EQ_INT(qi, 0);
    /* EASY keeps one reservation: a second blocked job gets none */
    CHECK_EQ_INT(place__profile_reserve(p, &v, 2), PLACE_OK);
    CHECK_EQ_INT(place__profile_n_resv(p), 1);
    /* allow(): J2's GPU is within the extra; J3's would not be after it (as
     * one check of J3 alone it is: extra is 1 until J2 takes it) */
    place_part part = {0, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    CHECK_EQ_INT(place__profile_allow(p, &v, &H.queue[1], &part), 1);
    place_part two = {0, 2, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    place_job j2 = job(9, 2, 10);
    CHECK_EQ_INT(place__profile_allow(p, &v, &j2, &two), 0); /* 2 > extra 1 */
    j2.estimate_us = 4 * S;
    CHECK_EQ_INT(place__profile_allow(p, &v, &j2, &two), 1); /* ends at the shadow time */
    j2.estimate_us = -1;
    CHECK_EQ_INT(place__profile_allow(p, &v, &j2, &two), 0); /* unknown = infinite */
    place__profile_destroy(p);
    pv_fini(&H);
}

/* Conservative through the profile, step by step, to see its reservations. */
static void test_example1_conservative_reservations(void)
{
    setup_example1();
    place_env env = pv_env();
    place__profile *p;
    CHECK_EQ_INT(place__profile_create(&env, UINT32_MAX, &p), PLACE_OK);
    place_view v = pv_view(&H);
    place__profile_begin(p, &v);
    CHECK_EQ_INT(place__profile_reserve(p, &v, 0), PLACE_OK); /* J1 */
    place_part one = {0, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    CHECK_EQ_INT(place__profile_allow(p, &v, &H.queue[1], &one), 1); /* J2 */
    /* start J2 as the host would, and tell the profile */
    place_part jp = one;
    CHECK_EQ_INT(place_cluster_take(&H.c, &H.queue[1], &jp, 1), PLACE_OK);
    H.qstate[1] = PLACE_Q_STARTED;
    H.run[H.n_run] = (place_running){.job = H.queue[1],
                                     .end_estimate_us = 10 * S,
                                     .parts = &H.run_parts[H.n_run][0],
                                     .n_parts = 1};
    H.run_parts[H.n_run][0] = jp;
    H.n_run++;
    v = pv_view(&H);
    place_decision d = {PLACE_START, 1, 1, 1, &jp};
    place__profile_observe(p, &v, &d);
    CHECK_EQ_INT(place__profile_allow(p, &v, &H.queue[2], &one), 0); /* J3 */
    CHECK_EQ_INT(place__profile_reserve(p, &v, 2), PLACE_OK);
    CHECK_EQ_INT(place__profile_n_resv(p), 2);
    uint32_t node, gpus, qi;
    int64_t a, b;
    place__profile_resv(p, 1, &node, &a, &b, &gpus, &qi);
    CHECK_EQ_INT(a, 7 * S);
    CHECK_EQ_INT(b, 17 * S);
    CHECK_EQ_INT(gpus, 1);
    CHECK_EQ_INT(qi, 2);
    CHECK_EQ_INT(place__profile_allow(p, &v, &H.queue[3], &one), 1); /* J4: [0,2) */
    place__profile_destroy(p);
    pv_fini(&H);
}

/* EASY may delay jobs behind the first; conservative never does. One node of
 * 10 GPUs; R1 holds 8 to t = 5. Queue: A 4 GPUs 5 s; B 6 GPUs 5 s; C 2 GPUs
 * 20 s.
 * EASY: A reserved at 5 (10 free), extra 10 - 4 = 6. B blocked, no
 *   reservation. C fits now (2 free), ends at 20 > 5, but 2 <= extra 6:
 *   started. (It delays B: at 5 only 10 - 4 - 2 = 4 < 6 are left for B, who
 *   now waits for A to end at 10.)
 * Conservative: A [5,10) 4; B at 5: 10 - 4 = 6 >= 6: [5,10) 6; C over [0,20)
 *   would leave -2 at [5,10): not started, reserved at 10: [10,30). */
static void test_easy_vs_conservative(void)
{
    char buf[64];
    const char *spec[2] = {"backfill=easy", "backfill=conservative"};
    const char *want[2] = {"3", ""};
    for (int k = 0; k < 2; k++) {
        uint32_t g[1] = {10};
        pv_init(&H, 1, NULL, NULL, g, 1);
        pv_running_whole(&H, 101, 0, 8, 5 * S);
        pv_queue(&H, job(1, 4, 5));
        pv_queue(&H, job(2, 6, 5));
        pv_queue(&H, job(3, 2, 20));
        CHECK_EQ_INT(pv_pass(&H, spec[k]), PLACE_OK);
        CHECK_STR(pv_started(&H, buf, sizeof buf), want[k]);
        pv_fini(&H);
    }
}

/* Several nodes: the reservation goes where the head starts earliest.
 * Two 8-GPU nodes. Node 0: R1 holds 8 GPUs to t = 10. Node 1: R2 holds 6 to
 * t = 3 (2 free). Head J1: 8 GPUs, 5 s: node 0 at 10, node 1 at 3: reserved
 * on node 1 at 3, extra 8 - 8 = 0.
 *   J2: 2 GPUs 5 s: fits now only on node 1, ends at 5 > 3, extra 0: refused.
 *   J3: 2 GPUs 2 s: ends at 2 <= 3: started on node 1.
 * Then the same with J1 allowed on type 1 only, and node 1 of type 0: J1's
 * reservation must be on node 0 (type 1) at 10; J2 (any type) on node 1 is no
 * threat to it and starts. */
static void test_nodes_and_types(void)
{
    char buf[64];
    uint32_t g[2] = {8, 8};
    pv_init(&H, 1, NULL, NULL, g, 2);
    pv_running_whole(&H, 101, 0, 8, 10 * S);
    pv_running_whole(&H, 102, 1, 6, 3 * S);
    pv_queue(&H, job(1, 8, 5));
    pv_queue(&H, job(2, 2, 5));
    pv_queue(&H, job(3, 2, 2));
    CHECK_EQ_INT(pv_pass(&H, "backfill=easy"), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "3");
    CHECK_EQ_INT(H.log[0].parts[0].node, 1);
    pv_fini(&H);

    uint32_t types[2] = {1, 0};
    pv_init(&H, 2, NULL, types, g, 2);
    pv_running_whole(&H, 101, 0, 8, 10 * S);
    pv_running_whole(&H, 102, 1, 6, 3 * S);
    place_job j1 = job(1, 8, 5);
    j1.type_mask = 1u << 1;
    pv_queue(&H, j1);
    pv_queue(&H, job(2, 2, 5));
    pv_queue(&H, job(3, 2, 2));
    CHECK_EQ_INT(pv_pass(&H, "backfill=easy"), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "2");
    pv_fini(&H);
}

/* A gang that must span: three 4-GPU nodes. Node 0: 4 GPUs to t = 10;
 * node 1: 4 GPUs to t = 20; node 2: 2 GPUs to t = 5 (2 free). Head: 8 GPUs,
 * may span, 10 s. GPUs free over time: 2 now, 4 at 5, 8 at 10: reserved at
 * 10, 4 on node 0 and 4 on node 2 (node 1 has none then).
 *   J2: 1 GPU 3 s: on node 2, ends at 3 <= 10: started.
 *   J3: 1 GPU 100 s: only node 2 has a GPU free, and at 10 node 2's four are
 *       all reserved: refused. */
static void test_spanning(void)
{
    char buf[64];
    uint32_t g[3] = {4, 4, 4};
    pv_init(&H, 1, NULL, NULL, g, 3);
    pv_running_whole(&H, 101, 0, 4, 10 * S);
    pv_running_whole(&H, 102, 1, 4, 20 * S);
    pv_running_whole(&H, 103, 2, 2, 5 * S);
    place_job head = job(1, 8, 10);
    head.flags = PLACE_JOB_CAN_SPAN;
    pv_queue(&H, head);
    pv_queue(&H, job(2, 1, 3));
    pv_queue(&H, job(3, 1, 100));
    place_env env = pv_env();
    place__profile *p;
    CHECK_EQ_INT(place__profile_create(&env, 1, &p), PLACE_OK);
    place_view v = pv_view(&H);
    place__profile_begin(p, &v);
    CHECK_EQ_INT(place__profile_reserve(p, &v, 0), PLACE_OK);
    CHECK_EQ_INT(place__profile_n_resv(p), 2);
    uint32_t seen_gpus = 0;
    for (uint32_t k = 0; k < place__profile_n_resv(p); k++) {
        uint32_t node, gpus, qi;
        int64_t a, b;
        place__profile_resv(p, k, &node, &a, &b, &gpus, &qi);
        CHECK_EQ_INT(a, 10 * S);
        CHECK_EQ_INT(b, 20 * S);
        CHECK(node == 0 || node == 2);
        CHECK_EQ_INT(gpus, 4);
        seen_gpus += gpus;
    }
    CHECK_EQ_INT(seen_gpus, 8);
    place__profile_destroy(p);
    CHECK_EQ_INT(pv_pass(&H, "backfill=easy"), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "2");
    pv_fini(&H);
}

/* Unknown estimates: with R1's end unknown, the head's start cannot be
 * bounded, no reservation is made and EASY behaves as greedy. */
static void test_unknown_estimates(void)
{
    char buf[64];
    uint32_t g[1] = {10};
    const char *spec[2] = {"backfill=easy", "backfill=greedy"};
    for (int k = 0; k < 2; k++) {
        pv_init(&H, 1, NULL, NULL, g, 1);
        pv_running_whole(&H, 101, 0, 8, -1);
        pv_queue(&H, job(1, 4, 5));
        pv_queue(&H, job(2, 2, -1));
        CHECK_EQ_INT(pv_pass(&H, spec[k]), PLACE_OK);
        CHECK_STR(pv_started(&H, buf, sizeof buf), "2");
        pv_fini(&H);
    }
    /* a running job past its estimate is expected to end at any moment: the
     * 9-GPU head is reserved at now + 1 us with extra 10 - 9 = 1, so a 2-GPU
     * job of unknown length, which would eat into it, is refused */
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 100 * S;
    pv_running_whole(&H, 101, 0, 8, 50 * S); /* overran its estimate */
    pv_queue(&H, job(1, 9, 5));
    pv_queue(&H, job(2, 2, -1));
    CHECK_EQ_INT(pv_pass(&H, "backfill=easy"), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "");
    pv_fini(&H);
}

/* GPU shares: a share on a partly used GPU holds that GPU only from when it
 * would have been fully free. One node of 2 GPUs: GPU 0 runs a 0.5 share to
 * t = 10, GPU 1 a whole-GPU job to t = 4. Head: 2 GPUs 5 s: both GPUs free at
 * 10: reserved [10, 15), extra 0.
 *   J2: a 0.4 share for 3 s: fits on GPU 0 now; GPU 0 is busy until 10
 *       anyway and J2 ends at 3: allowed.
 *   J3: a 0.1 share for 20 s: on GPU 0 it would hold the GPU past 10:
 *       refused. */
static void test_shares(void)
{
    char buf[64];
    uint32_t g[1] = {2};
    pv_init(&H, 1, NULL, NULL, g, 1);
    place_part sp = {0, 1, 0, 500, 0, 1};
    place_job s = pv_job(101, 1);
    s.gpu_milli = 500;
    pv_running(&H, s, &sp, 1, 0, 10 * S, 0);
    place_part wp = {0, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 2};
    pv_running(&H, pv_job(102, 1), &wp, 1, 0, 4 * S, 0);
    pv_queue(&H, job(1, 2, 5));
    place_job j2 = job(2, 1, 3), j3 = job(3, 1, 20);
    j2.gpu_milli = 400;
    j3.gpu_milli = 100;
    pv_queue(&H, j2);
    pv_queue(&H, j3);
    CHECK_EQ_INT(pv_pass(&H, "backfill=easy"), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "2");
    pv_fini(&H);
}

/* A random check of EASY's promise: the first job a pass leaves waiting can
 * start, if every running job ends at its estimate, exactly when it could
 * have without the jobs backfilled behind it. Both times are computed by
 * brute force: per node, the GPUs held by the jobs considered become free at
 * their estimated ends; the earliest time some node has enough. */
static uint64_t sm;
static uint64_t next_rand(void)
{
    uint64_t z = (sm += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Earliest start of a `need`-GPU gang given the running jobs H.run[k] for
 * which use[k] is set (all whole-GPU, one part, end estimate known). */
static int64_t brute_earliest(uint32_t need, const int *use)
{
    int64_t best = PLACE_T_NEVER;
    for (uint32_t n = 0; n < H.c.n_nodes; n++) {
        int64_t ends[64];
        uint32_t ne = 0, held = 0;
        for (uint32_t r = 0; r < H.n_run; r++)
            if (use[r] && H.run[r].parts[0].node == n)
                for (uint32_t k = 0; k < H.run[r].parts[0].gpus; k++) {
                    ends[ne++] = H.run[r].end_estimate_us;
                    held++;
                }
        uint32_t free_now = H.c.node_gpus[n] - held;
        if (need > H.c.node_gpus[n])
            continue;
        if (free_now >= need)
            return H.now_us;
        for (uint32_t a = 1; a < ne; a++)
            for (uint32_t b = a; b > 0 && ends[b - 1] > ends[b]; b--) {
                int64_t t = ends[b];
                ends[b] = ends[b - 1];
                ends[b - 1] = t;
            }
        int64_t t = ends[need - free_now - 1];
        if (t < best)
            best = t;
    }
    return best;
}

static void test_promise_random(void)
{
    uint64_t seed = check_seed(99);
    sm = seed;
    uint32_t checked = 0;
    for (int round = 0; round < 300 && !check_failures; round++) {
        uint32_t g[3] = {8, 8, 8};
        pv_init(&H, 1, NULL, NULL, g, 3);
        for (uint32_t n = 0; n < 3; n++) {
            uint32_t left = 8;
            while (left > 0 && next_rand() % 4 != 0) {
                uint32_t k = 1 + (uint32_t)(next_rand() % left);
                pv_running_whole(&H, 100 + H.n_run, n, k, (int64_t)(1 + next_rand() % 20) * S);
                left -= k;
            }
        }
        for (int q = 0; q < 8; q++)
            pv_queue(&H, job((uint64_t)q + 1, 1 + (uint32_t)(next_rand() % 8),
                             1 + (int64_t)(next_rand() % 15)));
        uint32_t n_before = H.n_run;
        CHECK_EQ_INT(pv_pass(&H, "backfill=easy"), PLACE_OK);
        uint32_t head = PLACE_NONE;
        for (uint32_t i = 0; i < H.n_queue && head == PLACE_NONE; i++)
            if (H.qstate[i] == PLACE_Q_WAITING)
                head = i;
        if (head != PLACE_NONE) {
            /* without backfill: what ran before the pass, plus what started
             * ahead of the head (queue index below it) */
            int use_mid[PV_MAX] = {0}, use_all[PV_MAX] = {0};
            for (uint32_t r = 0; r < H.n_run; r++) {
                use_all[r] = 1;
                use_mid[r] = r < n_before;
            }
            for (uint32_t k = 0; k < H.n_log; k++)
                if (H.log[k].kind == PLACE_START && H.log[k].id - 1 < head)
                    for (uint32_t r = n_before; r < H.n_run; r++)
                        if (H.run[r].job.id == H.log[k].id)
                            use_mid[r] = 1;
            int64_t t_mid = brute_earliest(H.queue[head].gpus, use_mid);
            int64_t t_all = brute_earliest(H.queue[head].gpus, use_all);
            if (t_all != t_mid)
                check_fail(__FILE__, __LINE__,
                           "round %d: head job %llu could start at %lld us, after backfilling "
                           "at %lld us (seed %llu)",
                           round, (unsigned long long)H.queue[head].id, (long long)t_mid,
                           (long long)t_all, (unsigned long long)seed);
            checked++;
        }
        pv_fini(&H);
    }
    CHECK(checked > 100); /* most rounds leave a job waiting */
}

/* Count-based rules on identical nodes (backfill_count.c): where the nodes a
 * job may use are identical, a reservation holds a count of nodes, not
 * particular ones, as in the rules' statement (Lifka 1995; Mu'alem and
 * Feitelson 2001, section 2).
 *
 * Five one-GPU nodes (as on an SWF machine), now = 0. Running: R1 on node 3
 * and R2 on node 4, both to t = 10; nodes 0, 1, 2 idle. Queue: J1 4 GPUs
 * (spanning) 10 s; J2 1 GPU 20 s; J3 1 GPU 20 s.
 *
 * EASY: J1 does not fit (3 free). Shadow time 10 (R1 and R2 end: 5 free),
 * extra 5 - 4 = 1.
 *   J2: fits now, ends at 20 > 10, but 1 <= extra 1: backfilled; extra 0.
 *   J3: fits now (2 free), ends at 20 > 10, extra 0: not backfilled.
 *   -> starts J2. At 10, nodes 1..4 are free: J1 starts on time.
 * Conservative: J1 reserved [10, 20) x 4. Profile of free nodes:
 *   [0,10) 3; [10,20) 5 - 4 = 1; [20,inf) 5.
 *   J2 (1 over [0,20)): 3 and 1 hold it: started; profile [0,10) 2, [10,20) 0.
 *   J3 (1 over [0,20)): [10,20) has 0: reserved at the earliest time one
 *       node holds for 20 s: 20, so [20, 40).
 *   -> starts J2.
 * The node-identity reservation (backfill_profile.c) took the lowest-numbered
 * nodes free at the shadow time for J1, nodes 0..3, three of them idle now,
 * so J2 (which would hold its node past 10) was refused on each idle node and
 * started at 10 on node 4: nothing started now, under both rules.
 *
 * The same on nodes of 4 GPUs with whole-node jobs (R1, R2 4 GPUs on nodes
 * 3 and 4; J1 16 GPUs spanning; J2, J3 4 GPUs): the unit is a node, and the
 * decisions are the same. A GPU share in the queue breaks the condition (the
 * nodes are no longer interchangeable for every job): the pass is decided
 * by node identity again, and nothing starts. */
static void setup_idle(uint32_t gpn, int share)
{
    uint32_t g[5] = {gpn, gpn, gpn, gpn, gpn};
    pv_init(&H, 1, NULL, NULL, g, 5);
    pv_running_whole(&H, 101, 3, gpn, 10 * S);
    pv_running_whole(&H, 102, 4, gpn, 10 * S);
    place_job head = job(1, 4 * gpn, 10);
    head.flags = PLACE_JOB_CAN_SPAN;
    pv_queue(&H, head);
    pv_queue(&H, job(2, gpn, 20));
    pv_queue(&H, job(3, gpn, 20));
    if (share) {
        place_job s = job(4, 1, 20);
        s.gpu_milli = 500;
        pv_queue(&H, s);
    }
}

static void test_count_idle_nodes(void)
{
    char buf[64];
    const char *spec[2] = {"backfill=easy", "backfill=conservative"};
    for (uint32_t gpn = 1; gpn <= 4; gpn *= 4)
        for (int k = 0; k < 2; k++) {
            setup_idle(gpn, 0);
            CHECK_EQ_INT(pv_pass(&H, spec[k]), PLACE_OK);
            CHECK_STR(pv_started(&H, buf, sizeof buf), "2");
            CHECK_EQ_INT(H.stats.invalid, 0);
            pv_fini(&H);
            setup_idle(gpn, 1); /* a share queued: node identity decides */
            CHECK_EQ_INT(pv_pass(&H, spec[k]), PLACE_OK);
            CHECK_STR(pv_started(&H, buf, sizeof buf), "");
            pv_fini(&H);
        }
    /* the reservations themselves, driven through the rule's functions */
    const place_backfill *rule[2] = {place_backfill_find("easy"),
                                     place_backfill_find("conservative")};
    for (int k = 0; k < 2; k++) {
        setup_idle(1, 0);
        place_env env = pv_env();
        char err[64];
        void *st;
        CHECK_EQ_INT(rule[k]->create(&env, "", &st, err, sizeof err), PLACE_OK);
        place_view v = pv_view(&H);
        rule[k]->begin(st, &v);
        CHECK_EQ_INT(rule[k]->blocked(st, &v, 0), PLACE_BF_SKIP);
        CHECK_EQ_INT(place__bf_counting(st), 1);
        int64_t a, b;
        uint32_t units, qi;
        CHECK_EQ_INT(place__bf_count_resv(st, 0, &a, &b, &units, &qi), 1);
        CHECK_EQ_INT(a, 10 * S); /* the shadow time */
        CHECK_EQ_INT(b, 20 * S);
        CHECK_EQ_INT(units, 4);
        CHECK_EQ_INT(qi, 0);
        place_part part = {0, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
        CHECK_EQ_INT(rule[k]->allow(st, &v, &H.queue[1], &part), 1); /* J2: within extra */
        place_job two = job(9, 2, 20);
        two.flags = PLACE_JOB_CAN_SPAN;
        CHECK_EQ_INT(rule[k]->allow(st, &v, &two, &part), 0); /* 2 > extra 1 */
        two.estimate_us = 10 * S;
        CHECK_EQ_INT(rule[k]->allow(st, &v, &two, &part), 1); /* ends at the shadow time */
        CHECK_EQ_INT(rule[k]->hopeless(st, &v, &two), 0);
        place_job four = job(8, 4, 1);
        four.flags = PLACE_JOB_CAN_SPAN;
        CHECK_EQ_INT(rule[k]->hopeless(st, &v, &four), 1); /* 3 nodes free now */
        /* a second blocked job: EASY keeps one reservation; conservative
         * gives J3 the earliest interval that holds it beside J1's: J2 was
         * not started here, so [0, 20) (3 free, then the 1 node left over J1) */
        CHECK_EQ_INT(rule[k]->blocked(st, &v, 2), PLACE_BF_SKIP);
        CHECK_EQ_INT(place__bf_count_resv(st, 1, &a, &b, &units, &qi), k == 0 ? 1u : 2u);
        if (k == 1) {
            CHECK_EQ_INT(a, 0);
            CHECK_EQ_INT(b, 20 * S);
            CHECK_EQ_INT(qi, 2);
        }
        rule[k]->destroy(st);
        pv_fini(&H);
    }
}

int main(void)
{
    test_example1();
    test_example1_conservative_reservations();
    test_easy_vs_conservative();
    test_nodes_and_types();
    test_spanning();
    test_unknown_estimates();
    test_shares();
    test_promise_random();
    test_count_idle_nodes();
    return check_finish("test_place_backfill");
}
