/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_replay.c — the replay protocols on tiny hand-worked cases, the fleet
 * builders, and the fleet-only scenario loader.
 *
 * Window protocol, a 4-node machine (1 processor-"GPU" per node), SWF jobs
 * (submit, run, procs, estimate):
 *   J1 (100, 100, 2, 100)   J2 (100, 50, 4, 50)   J3 (110, 10, 2, 10)
 * Window K=0, N=3, shifted so J1 arrives at 0:
 *   FCFS, no backfill: J1 runs 0..100; J2 needs all 4, waits to 100, runs
 *   100..150; J3 (arrives 10) is behind J2: starts 150, ends 160.
 *     waits 0, 100, 140 -> mean 80
 *     bounded slowdowns max(1, (w + r) / max(r, 10)): 1, 150/50 = 3,
 *     150/10 = 15 -> mean 19/3
 *     utilization (2*100 + 4*50 + 2*10) / (4 * 160) = 420/640 = 0.65625
 *   A rule that lets J3 pass J2 (greedy or EASY backfilling: J3 ends at 20,
 *   before J2's reservation at 100): J3 runs 10..20.
 *     waits 0, 100, 0 -> mean 100/3; slowdowns 1, 3, 1 -> 5/3;
 *     utilization 420 / (4 * 150) = 0.7
 *   Shortest-estimate-first: J1 and J2 arrive together and J2's estimate (50)
 *   is the shorter, so J2 (all 4 GPUs) runs 0..50 and J1 waits; at 50 the
 *   queue is J1 (100) and J3 (10): J3 runs 50..60 and J1 50..150.
 *     waits 50, 0, 40 -> mean 30; slowdowns 150/100 = 1.5, 1, 50/10 = 5 ->
 *     7.5/3 = 2.5; utilization 420 / (4 * 150) = 0.7
 * Window K=1, N=2 (J2 at 0, J3 at 10), FCFS: J2 0..50, J3 waits to 50, ends 60.
 *     waits 0, 40 -> 20; slowdowns 1, 50/10 = 5 -> 3; util 220/240.
 *
 * Packing, in list order (keep_order), first-fit, nodes n0 (2 GPUs) and n1
 * (1 GPU), capacity 3000 milli-GPU; pods a 1x500, b 2x1000 (cannot fit: no
 * node has 2 whole free GPUs after a, and pods do not span), c 1x1000,
 * d 1x600. Arrived after each: 500, 2500, 3500, 4100 -> 16.7 %, 83.3 %,
 * 116.7 %, 136.7 %. Grid 0, 50, 100, 150 (the state after the last pod
 * whose arrived demand is at or below the point):
 *   0: nothing placed; 50: a on n0 GPU0; 100: a, b failed; 150: all, d on n1.
 *   alloc: 0, 16.667, 16.667, 70 (%); failed pods 0, 0, 1, 1;
 *   failed GPU 0, 0, 66.667, 66.667 (%).
 * Fragmentation, shapes a, b, c, d each with popularity 1/4 (CPU always fits):
 *   at 0: n0 free [1000, 1000]: every shape fits, no partial GPU: 0;
 *         n1 [1000]: b needs 2 GPUs -> 1000/4 = 250. frag 250 of idle 3000.
 *   at 50 and 100: n0 [500, 1000]: a 0; b 1500; c (partials < 1000) 500;
 *         d (< 600) 500 -> 2500/4 = 625; n1 as before 250. frag 875 / 2500.
 *   at 150: n0 [500, 0] -> a 0, b/c/d 500 each -> 375; n1 [400] -> every
 *         shape (a needs 500) 400 -> 400. frag 775 of idle 900.
 *   frag %: 8.333, 35, 35, 86.111; of capacity: 8.333, 29.167, 29.167, 25.833.
 */
#include "check.h"
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static const char *fixture(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static const char *swf_path;
static uint32_t swf_nodes = 4; /* the machine of window_case */

static int open_swf(void *ud, trace_source *src, tm_diag *d)
{
    (void)ud;
    return trace_swf_open(src, swf_path, NULL, NULL, d);
}

static int window_case(const char *spec, sim_window_result *r, sim_window *w, size_t n)
{
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "w", &d), TM_OK);
    trace_swf_info info;
    memset(&info, 0, sizeof info);
    info.nodes = swf_nodes;
    info.procs_per_node = 1;
    CHECK_EQ_INT(sim_scenario_add_swf_machine(&sc, &info, &d), TM_OK);
    snprintf(sc.policy, sizeof sc.policy, "%s", spec);
    int rc = sim_window_replay(&sc, open_swf, NULL, w, n, NULL, r, &d);
    if (rc)
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    sim_scenario_fini(&sc);
    return rc;
}

static void test_window_fcfs(void)
{
    swf_path = fixture("w.swf", "; MaxNodes: 4\n"
                                "1 100 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                "2 100 -1  50 4 -1 -1 4  50 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                "3 110 -1  10 2 -1 -1 2  10 -1 1 1 1 -1 -1 -1 -1 -1\n");
    sim_window w[2] = {{0, 3}, {1, 2}};
    sim_window_result r[2];
    int rc = window_case("order=fifo placement=first-fit backfill=none", r, w, 2);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return;
    CHECK_EQ_U64(r[0].jobs, 3);
    CHECK_NEAR(r[0].wait_mean_s, 80, 1e-9);
    CHECK_NEAR(r[0].bsld_mean, 19.0 / 3, 1e-9);
    CHECK_NEAR(r[0].util, 0.65625, 1e-12);
    /* RLScheduler's: 420 GPU-s / (4 GPUs x last start 150 s) */
    CHECK_NEAR(r[0].util_rlsched, 0.7, 1e-12);
    CHECK_NEAR(r[0].makespan_s, 160, 1e-9);
    CHECK_EQ_U64(r[1].jobs, 2);
    CHECK_NEAR(r[1].wait_mean_s, 20, 1e-9);
    CHECK_NEAR(r[1].bsld_mean, 3, 1e-9);
    CHECK_NEAR(r[1].util, 220.0 / 240, 1e-12);
    CHECK_NEAR(r[1].util_rlsched, 220.0 / 200, 1e-12); /* J3 starts at 50: above 1 */
    /* greedy backfilling (no reservation) lets J3 pass */
    rc = window_case("order=fifo placement=first-fit backfill=greedy", r, w, 1);
    CHECK_EQ_INT(rc, TM_OK);
    CHECK_NEAR(r[0].wait_mean_s, 100.0 / 3, 1e-9);
    CHECK_NEAR(r[0].bsld_mean, 5.0 / 3, 1e-9);
    CHECK_NEAR(r[0].util, 0.7, 1e-12);
    CHECK_NEAR(r[0].util_rlsched, 420.0 / 400, 1e-12); /* J2 starts last, at 100 */
}

/* EASY backfilling and shortest-estimate-first come from policies/, written
 * in parallel. They run when the placement core knows them; until then the
 * test says so loudly (it is not a silent skip). */
static int policy_exists(const char *spec)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    int rc = place_instance_init(&pi, &env, spec, NULL, 0);
    place_instance_fini(&pi);
    return rc == PLACE_OK;
}

static void test_window_easy_sjf(void)
{
    const char *easy[] = {"order=fifo placement=first-fit backfill=easy"};
    const char *sjf[] = {"order=sjf placement=first-fit backfill=none",
                         "order=shortest-estimate placement=first-fit backfill=none",
                         "order=sef placement=first-fit backfill=none",
                         "order=spf placement=first-fit backfill=none"};
    struct {
        const char *what;
        const char *const *specs;
        size_t n;
        double wait, bsld; /* worked out in the comment at the top */
    } groups[] = {{"EASY backfilling", easy, 1, 100.0 / 3, 5.0 / 3},
                  {"shortest-estimate-first", sjf, 4, 30, 2.5}};
    for (size_t g = 0; g < 2; g++) {
        const char *spec = NULL;
        for (size_t k = 0; k < groups[g].n && !spec; k++)
            if (policy_exists(groups[g].specs[k]))
                spec = groups[g].specs[k];
        if (!spec) {
            printf("NOT RUN: %s is not in the placement core yet (tried \"%s\"%s); this check "
                   "runs once policies/ has it\n",
                   groups[g].what, groups[g].specs[0], groups[g].n > 1 ? " and aliases" : "");
            continue;
        }
        printf("running the window case with %s: \"%s\"\n", groups[g].what, spec);
        sim_window w = {0, 3};
        sim_window_result r;
        CHECK_EQ_INT(window_case(spec, &r, &w, 1), TM_OK);
        CHECK_NEAR(r.wait_mean_s, groups[g].wait, 1e-9);
        CHECK_NEAR(r.bsld_mean, groups[g].bsld, 1e-9);
        CHECK_NEAR(r.util, 0.7, 1e-12);
    }
}

/* EASY and conservative count processors on an SWF machine (Lifka 1995;
 * Mu'alem and Feitelson 2001, section 2), through the window protocol.
 * Five one-processor nodes; estimates = requested times = run times.
 *   X  submit 0, 3 procs, 5 s: nodes 0-2, [0, 5)
 *   R  submit 0, 2 procs, 10 s: nodes 3-4, [0, 10)
 *   J1 submit 5, 4 procs, 10 s
 *   J2 submit 5, 1 proc, 20 s
 * At 5, X is gone: nodes 0-2 idle. J1 does not fit (3 free); its shadow
 * time is 10 (R ends: 5 free), extra 5 - 4 = 1. J2 fits now, ends at 25 >
 * 10, but takes 1 <= extra: it starts at 5 (EASY). Conservative: J1 holds 4
 * over [10, 20), leaving [5,10) 3, [10,20) 1: J2 fits [5, 25): it starts at
 * 5. J1 starts at 10 under both. Waits 0, 0, 5, 0: mean 1.25; bounded
 * slowdowns 1, 1, 1.5, 1: mean 1.125; GPU-time 15 + 20 + 40 + 20 = 95 over
 * 5 x 25 (last end 25): util 0.76; over 5 x 10 (last start 10): 1.9.
 * The node-identity reservations gave J1 nodes 0-3 (the lowest free at 10,
 * three of them idle at 5), so J2 waited for node 4 until 10: mean wait
 * 2.5, last end 30, util 95 / 150. */
static void test_window_count(void)
{
    swf_path = fixture("c.swf", "; MaxNodes: 5\n"
                                "1 0 -1  5 3 -1 -1 3  5 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                "2 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                "3 5 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                "4 5 -1 20 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n");
    const char *spec[2] = {"order=fifo placement=first-fit backfill=easy",
                           "order=fifo placement=first-fit backfill=conservative"};
    swf_nodes = 5;
    for (int k = 0; k < 2; k++) {
        sim_window w = {0, 0};
        sim_window_result r;
        CHECK_EQ_INT(window_case(spec[k], &r, &w, 1), TM_OK);
        CHECK_EQ_U64(r.jobs, 4);
        CHECK_NEAR(r.wait_mean_s, 1.25, 1e-9);
        CHECK_NEAR(r.bsld_mean, 1.125, 1e-9);
        CHECK_NEAR(r.util, 0.76, 1e-12);
        CHECK_NEAR(r.util_rlsched, 1.9, 1e-12);
        CHECK_NEAR(r.makespan_s, 25, 1e-9);
    }
    swf_nodes = 4;
}

static void test_pack(void)
{
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "p", &d), TM_OK);
    const char *nodes = fixture("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                                             "n0,100000,100000,2,T4\n"
                                             "n1,100000,100000,1,T4\n"
                                             "c0,100000,100000,0,\n");
    trace_node_source ns;
    CHECK_EQ_INT(trace_openb_nodes_open(&ns, nodes, NULL, &d), TM_OK);
    uint64_t cpu_only = 0;
    CHECK_EQ_INT(sim_scenario_add_nodes(&sc, &ns, &cpu_only, &d), TM_OK);
    ns.close(ns.ud);
    CHECK_EQ_U64(cpu_only, 1);
    CHECK_EQ_U64(sc.n_pools, 2); /* n0 and n1 differ in GPUs: two pools, order kept */
    trace_job pods[4];
    uint32_t g[4] = {1, 2, 1, 1}, m[4] = {500, 1000, 1000, 600};
    for (int i = 0; i < 4; i++) {
        trace_job_defaults(&pods[i]);
        pods[i].id = (uint64_t)i + 1;
        pods[i].gpus = g[i];
        pods[i].gpu_milli = m[i];
    }
    pods[0].cpu_milli = 1000;
    const char *pol[] = {"order=fifo placement=first-fit backfill=none",
                         "order=fifo placement=best-fit backfill=none"};
    sim_pack_cfg cfg = {150, 50, 1, 2, pol, 2, 1};
    sim_pack_result r;
    int rc = sim_pack_run(&sc, pods, 4, &cfg, &r, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        sim_scenario_fini(&sc);
        return;
    }
    CHECK_EQ_U64(r.n_points, 4);
    CHECK_NEAR(r.capacity_gpus, 3, 0);
    CHECK_EQ_U64(r.n_classes, 4);
    double alloc[4] = {0, 100.0 / 6, 100.0 / 6, 70}, failed[4] = {0, 0, 1, 1},
           fgpu[4] = {0, 0, 200.0 / 3, 200.0 / 3},
           frag[4] = {25000.0 / 3000, 35, 35, 77500.0 / 900},
           fcap[4] = {25000.0 / 3000, 87500.0 / 3000, 87500.0 / 3000, 77500.0 / 3000};
    for (size_t p = 0; p < 2; p++)
        for (size_t s = 0; s < 2; s++)
            for (size_t k = 0; k < 4; k++) {
                CHECK_NEAR(sim_pack_value(&r, p, s, SIM_PACK_ALLOC, k), alloc[k], 1e-9);
                CHECK_NEAR(sim_pack_value(&r, p, s, SIM_PACK_FAILED, k), failed[k], 0);
                CHECK_NEAR(sim_pack_value(&r, p, s, SIM_PACK_FAILED_GPU, k), fgpu[k], 1e-9);
                CHECK_NEAR(sim_pack_value(&r, p, s, SIM_PACK_FRAG, k), frag[k], 1e-9);
                CHECK_NEAR(sim_pack_value(&r, p, s, SIM_PACK_FRAG_CAP, k), fcap[k], 1e-9);
            }
    double mean, sd, lo, hi;
    sim_pack_stats(&r, 0, SIM_PACK_ALLOC, 3, &mean, &sd, &lo, &hi);
    CHECK_NEAR(mean, 70, 1e-9);
    CHECK_NEAR(sd, 0, 1e-12);
    CHECK_EQ_U64(r.pods[0], 4);
    CHECK_EQ_U64(r.failed[0], 1);
    /* the HDF5 file and the plot table are written whole */
    char h5[600], dat[600];
    snprintf(h5, sizeof h5, "%s/pack.h5", tmpdir);
    snprintf(dat, sizeof dat, "%s/pack.dat", tmpdir);
    CHECK_EQ_INT(sim_pack_write_h5(&r, &cfg, "pods.csv", h5, &d), TM_OK);
    CHECK_EQ_INT(sim_pack_write_dat(&r, &cfg, dat, &d), TM_OK);
    CHECK(access(h5, R_OK) == 0);
    sim_pack_result_fini(&r);

    /* shuffled with copies: the requested GPU stays within the target, and the
     * same seed gives the same curves */
    cfg.keep_order = 0;
    cfg.target_pct = 130;
    cfg.grid_step_pct = 10;
    sim_pack_result r1, r2;
    CHECK_EQ_INT(sim_pack_run(&sc, pods, 4, &cfg, &r1, &d), TM_OK);
    CHECK_EQ_INT(sim_pack_run(&sc, pods, 4, &cfg, &r2, &d), TM_OK);
    CHECK(memcmp(r1.v, r2.v,
                 r1.n_policies * r1.n_seeds * SIM_PACK_METRICS * r1.n_points * sizeof *r1.v) == 0);
    CHECK(r1.pods[0] >= 4);
    for (size_t s = 0; s < 2; s++)
        CHECK(sim_pack_value(&r1, 0, s, SIM_PACK_ALLOC, r1.n_points - 1) <= 100 + 1e-9);
    sim_pack_result_fini(&r1);
    sim_pack_result_fini(&r2);
    sim_scenario_fini(&sc);
}

/* FGD in the packing experiment is given the pod list's typical pods, as the
 * paper's simulator does (sim/studies/pack.c, typical_pods_arg). Two one-GPU nodes
 * n0, n1 (capacity 2000 milli-GPU); pods in list order 0.2, 0.2, 0.7, 0.7,
 * all with the same CPU, so the typical pods are {0.2 @2, 0.7 @2}.
 *   pod 1 (0.2): the nodes are equal, the tie takes n0: n0 800 free.
 *   pod 2 (0.2): on n0 it leaves 600, which a 0.7 pod cannot use:
 *     F(n0) 0 -> 2 x 600 = 1200 (gradient +1200); on n1 it leaves 800, which
 *     both shapes can use: gradient 0. FGD takes n1. best-fit takes n0 (600
 *     left is tighter than 800), and so did FGD when it learned its typical
 *     pods from the one-pod view ({0.2}: both gradients 0, tie to n0).
 *   pods 3, 4 (0.7): FGD puts one on each node (800 free each): all placed,
 *     1800 of 2000 = 90 %. best-fit: n0 has 600, n1 1000: pod 3 takes n1,
 *     pod 4 fits nowhere: 1100 = 55 %, one failed.
 * Arrived 10, 20, 55, 90 %; grid 0, 50, 100. */
static void test_pack_fgd(void)
{
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "p", &d), TM_OK);
    const char *nodes = fixture("nodes2.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                                              "n0,100000,100000,1,T4\n"
                                              "n1,100000,100000,1,T4\n");
    trace_node_source ns;
    CHECK_EQ_INT(trace_openb_nodes_open(&ns, nodes, NULL, &d), TM_OK);
    uint64_t cpu_only = 0;
    CHECK_EQ_INT(sim_scenario_add_nodes(&sc, &ns, &cpu_only, &d), TM_OK);
    ns.close(ns.ud);
    trace_job pods[4];
    uint32_t m[4] = {200, 200, 700, 700};
    for (int i = 0; i < 4; i++) {
        trace_job_defaults(&pods[i]);
        pods[i].id = (uint64_t)i + 1;
        pods[i].gpus = 1;
        pods[i].gpu_milli = m[i];
        pods[i].cpu_milli = 2000;
    }
    const char *pol[] = {"order=fifo placement=fgd backfill=none",
                         "order=fifo placement=best-fit backfill=none"};
    sim_pack_cfg cfg = {100, 50, 1, 1, pol, 2, 1};
    sim_pack_result r;
    int rc = sim_pack_run(&sc, pods, 4, &cfg, &r, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        sim_scenario_fini(&sc);
        return;
    }
    CHECK_EQ_U64(r.n_points, 3);
    double want_alloc[2][3] = {{0, 20, 90}, {0, 20, 55}}, want_failed[2] = {0, 1};
    for (size_t p = 0; p < 2; p++) {
        for (size_t k = 0; k < 3; k++)
            CHECK_NEAR(sim_pack_value(&r, p, 0, SIM_PACK_ALLOC, k), want_alloc[p][k], 1e-9);
        CHECK_NEAR(sim_pack_value(&r, p, 0, SIM_PACK_FAILED, 2), want_failed[p], 0);
    }
    sim_pack_result_fini(&r);
    sim_scenario_fini(&sc);
}

/* gpu-clustering in the packing protocol sees the pods placed before (the
 * view's running jobs), as the reference's plugin sees the pods bound to
 * each node. Two nodes of 2 GPUs; pods in list order: a 0.5 share, a 1-GPU
 * pod, a 2-GPU pod.
 *   share: both nodes idle (class 2), equally free: node 0, GPU 0.
 *   1 GPU: node 0 runs only another affinity (class 3), node 1 nothing
 *     (class 2): node 1. Blind to the pods, both would be class 2 and the
 *     fuller node 0 would take it.
 *   2 GPUs: each node has one fully free GPU left: it fails. (Blind: node 1
 *     would still be idle and take it.)
 * Allocated 1500 of 4000 milli = 37.5 % at 100 % arrived, one pod failed
 * (blind: all three, 87.5 %). */
static void test_pack_clustering(void)
{
    sim_scenario sc;
    tm_diag d;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "p", &d), TM_OK);
    const char *nodes = fixture("nodes3.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                                              "n0,100000,100000,2,T4\n"
                                              "n1,100000,100000,2,T4\n");
    trace_node_source ns;
    CHECK_EQ_INT(trace_openb_nodes_open(&ns, nodes, NULL, &d), TM_OK);
    uint64_t cpu_only = 0;
    CHECK_EQ_INT(sim_scenario_add_nodes(&sc, &ns, &cpu_only, &d), TM_OK);
    ns.close(ns.ud);
    trace_job pods[3];
    uint32_t g[3] = {1, 1, 2}, m[3] = {500, 1000, 1000};
    for (int i = 0; i < 3; i++) {
        trace_job_defaults(&pods[i]);
        pods[i].id = (uint64_t)i + 1;
        pods[i].gpus = g[i];
        pods[i].gpu_milli = m[i];
    }
    const char *pol[] = {"order=fifo placement=gpu-clustering backfill=none"};
    sim_pack_cfg cfg = {100, 50, 1, 1, pol, 1, 1};
    sim_pack_result r;
    int rc = sim_pack_run(&sc, pods, 3, &cfg, &r, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        sim_scenario_fini(&sc);
        return;
    }
    CHECK_NEAR(sim_pack_value(&r, 0, 0, SIM_PACK_ALLOC, 2), 37.5, 1e-9);
    CHECK_NEAR(sim_pack_value(&r, 0, 0, SIM_PACK_FAILED, 2), 1, 0);
    sim_pack_result_fini(&r);
    sim_scenario_fini(&sc);
}

static void test_fleet_file(void)
{
    tm_diag d;
    sim_scenario sc;
    const char *p = fixture("fleet.json", "{\"pools\": [{\"gpu_type\": \"H100\", \"nodes\": 3}]}");
    int rc = sim_scenario_load_fleet_file(&sc, p, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        CHECK_EQ_U64(sc.n_pools, 1);
        CHECK_EQ_U64(sc.pools[0].nodes, 3);
        CHECK_EQ_U64(sc.n_classes, 1);
        CHECK_STR(sc.json_given, "{\"pools\": [{\"gpu_type\": \"H100\", \"nodes\": 3}]}");
        sim_scenario_fini(&sc);
    }
    p = fixture("fleet2.json", "{\"policy\": \"fifo-best-fit\", \"fleet\": {\"pools\": "
                               "[{\"gpu_type\": \"G2\", \"nodes\": 1}]}}");
    rc = sim_scenario_load_fleet_file(&sc, p, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        CHECK_STR(sc.policy, "fifo-best-fit");
        CHECK_STR(sc.types[sc.pools[0].type].name, "G2");
        sim_scenario_fini(&sc);
    }
    /* errors are the loader's, with the JSON path */
    p = fixture("fleet3.json", "{\"pools\": [{\"gpu_type\": \"H100\", \"nodes\": -3}]}");
    CHECK_EQ_INT(sim_scenario_load_fleet_file(&sc, p, &d), TM_ERR_SCENARIO);
    CHECK(strstr(d.where, "fleet.pools[0].nodes") != NULL);
}

/* Synthesized jobs written as a tarmac trace and replayed give the run of
 * the scenario itself: the same jobs, the same fleet and policy. */
static void test_synth_equivalence(void)
{
    tm_diag d;
    sim_scenario sc;
    const char *p = fixture(
        "s.json", "{\"seed\": 7, \"horizon\": \"2d\", \"stop\": \"drain\", \"fleet\": {\"pools\": "
                  "[{\"gpu_type\": \"H100\", \"nodes\": 2}]}, \"workload\": {\"classes\": "
                  "[{\"arrival\": {\"offered_load\": 0.8}, \"gpus\": {\"dist\": \"discrete\", "
                  "\"values\": [1, 2, 8]}, \"duration\": {\"dist\": \"exponential\", \"mean\": "
                  "\"2h\"}}]}}");
    CHECK_EQ_INT(sim_scenario_load_file(&sc, p, &d), TM_OK);
    sim_result a, b;
    CHECK_EQ_INT(sim_run(&sc, NULL, NULL, &a, &d), TM_OK);
    /* the class synthesized with the engine's streams, written and read back */
    char trace[600];
    snprintf(trace, sizeof trace, "%s/s.csv", tmpdir);
    trace_tarmac_writer *w;
    CHECK_EQ_INT(trace_tarmac_writer_open(&w, trace, &d), TM_OK);
    trace_source s;
    CHECK_EQ_INT(sim_class_source_open(&sc, 0, 0, &s, &d), TM_OK);
    trace_job j;
    uint64_t n = 0;
    while (s.next(s.ud, &j, &d) == TM_OK) {
        CHECK_EQ_INT(trace_tarmac_write(w, &j, &d), TM_OK);
        n++;
    }
    s.close(s.ud);
    CHECK_EQ_INT(trace_tarmac_writer_close(w, &d), TM_OK);
    CHECK_EQ_INT(trace_tarmac_open(&s, trace, NULL, &d), TM_OK);
    sim_run_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.sources = &s;
    opts.n_sources = 1;
    CHECK_EQ_INT(sim_run(&sc, &opts, NULL, &b, &d), TM_OK);
    s.close(s.ud);
    CHECK(n > 10);
    CHECK_EQ_U64(a.classes[1].arrived, n);
    CHECK_EQ_U64(b.classes[1].arrived, n);
    CHECK_NEAR(b.classes[1].wait_sum_s, a.classes[1].wait_sum_s, 0);
    CHECK_NEAR(b.gpu_s_alloc, a.gpu_s_alloc, 0);
    CHECK_EQ_INT(b.t_end_us, a.t_end_us);
    sim_result_fini(&a);
    sim_result_fini(&b);
    sim_scenario_fini(&sc);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tarmac-test-replay-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_window_fcfs();
    test_window_easy_sjf();
    test_window_count();
    test_pack();
    test_pack_fgd();
    test_pack_clustering();
    test_fleet_file();
    test_synth_equivalence();
    return check_finish("test_replay");
}
