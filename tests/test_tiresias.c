/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tiresias.c — the Tiresias policy (policies/tiresias.c) over hand-built
 * views: queues and preemption, demotion at the wake-up the policy asks for,
 * starvation promotion at the stated time, the Gittins order on a
 * hand-computed distribution, consolidated versus relaxed placement, and the
 * property "no job of a lower queue runs while a job of a higher queue waits
 * and would fit if the lower-queue jobs were stopped" over random views.
 */
#include "check.h"
#include "place_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_ (1000000ll)

static pv_host H;

/* A running preemptible job of k whole GPUs on node n, started at start_s
 * with `att` GPU-seconds attained before this run. */
static void run_job(uint64_t id, uint32_t n, uint32_t k, double start_s, double att, int preempt)
{
    place_job j = pv_job(id, k);
    j.attained_gpu_s = att;
    j.flags = preempt ? PLACE_JOB_PREEMPTIBLE : 0;
    place_part p = {n, (uint16_t)k, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    pv_running(&H, j, &p, 1, (int64_t)(start_s * S_), -1, -1);
}

static void wait_job(uint64_t id, uint32_t k, double att, uint32_t flags)
{
    place_job j = pv_job(id, k);
    j.attained_gpu_s = att;
    j.flags = flags;
    pv_queue(&H, j);
}

static place_instance make(const char *spec)
{
    place_env env = pv_env();
    place_instance pi;
    char err[256];
    if (place_instance_init(&pi, &env, spec, err, sizeof err) != PLACE_OK)
        check_fail(__FILE__, __LINE__, "policy '%s': %s", spec, err);
    return pi;
}

/* Take job id out of the running set (it finished). */
static void finish(uint64_t id)
{
    for (uint32_t k = 0; k < H.n_run; k++)
        if (H.run[k].job.id == id) {
            place_cluster_give(&H.c, &H.run[k].job, H.run[k].parts, H.run[k].n_parts);
            uint32_t last = --H.n_run;
            if (k != last) {
                H.run[k] = H.run[last];
                memcpy(H.run_parts[k], H.run_parts[last], sizeof H.run_parts[k]);
                H.run[k].parts = H.run_parts[k];
            }
            return;
        }
    check_fail(__FILE__, __LINE__, "job %llu is not running", (unsigned long long)id);
}

/* Drop the queue entries that started (the host does after a pass). */
static void compact_queue(void)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < H.n_queue; i++)
        if (H.qstate[i] == PLACE_Q_WAITING) {
            H.queue[m] = H.queue[i];
            H.qstate[m++] = PLACE_Q_WAITING;
        }
    H.n_queue = m;
}

/* Two 4-GPU nodes, full: job 11 has 8,000 GPU-s (queue 2 of thresholds
 * 3250,7200), job 12 has 400 (queue 0). A new 4-GPU job preempts 11, not 12,
 * and starts on its node; the non-preemptive LAS order just waits. */
static void test_preempts_lower_queue(void)
{
    uint32_t g[2] = {4, 4};
    pv_init(&H, 1, NULL, NULL, g, 2);
    H.now_us = 2000 * S_;
    run_job(11, 0, 4, 0, 0, 1);    /* 4 x 2000 s */
    run_job(12, 1, 4, 1900, 0, 1); /* 4 x 100 s */
    wait_job(1, 4, 0, 0);
    CHECK_EQ_INT(pv_pass(&H, "tiresias"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].kind, PLACE_PREEMPT);
    CHECK_EQ_INT((int)H.log[0].id, 11);
    CHECK_EQ_INT(H.log[1].kind, PLACE_START);
    CHECK_EQ_INT((int)H.log[1].id, 1);
    CHECK_EQ_INT(H.log[1].parts[0].node, 0);
    pv_fini(&H);

    pv_init(&H, 1, NULL, NULL, g, 2);
    H.now_us = 2000 * S_;
    run_job(11, 0, 4, 0, 0, 1);
    run_job(12, 1, 4, 1900, 0, 1);
    wait_job(1, 4, 0, 0);
    CHECK_EQ_INT(pv_pass(&H, "las"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    pv_fini(&H);
}

/* Victims: lowest queue first, then least executed service, and only as
 * many as the job needs. One 8-GPU node: A (2 GPUs, queue 1, 200 GPU-s),
 * B (2 GPUs, queue 2, 9,000), C (2 GPUs, queue 2, 8,000), D (2 GPUs, queue
 * 0). A 4-GPU job stops C then B, not A or D. */
static void test_victim_order(void)
{
    uint32_t g[1] = {8};
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 100 * S_;
    run_job(21, 0, 2, 0, 3400, 1); /* 3,600 GPU-s: queue 1 */
    run_job(22, 0, 2, 0, 8800, 1); /* 9,000: queue 2 */
    run_job(23, 0, 2, 0, 7800, 1); /* 8,000: queue 2 */
    run_job(24, 0, 2, 90, 0, 1);   /* 20: queue 0 */
    wait_job(2, 4, 0, 0);
    CHECK_EQ_INT(pv_pass(&H, "tiresias"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 3);
    CHECK_EQ_INT((int)H.log[0].id, 23);
    CHECK_EQ_INT((int)H.log[1].id, 22);
    CHECK_EQ_INT(H.log[2].kind, PLACE_START);
    pv_fini(&H);
}

/* Demotion: job L (4 GPUs) runs from t = 0 with nothing attained; a new
 * 4-GPU job S waits from t = 10 s. With one threshold of 100 GPU-s, L is in
 * queue 0 until t = 25 s: the pass at 10 s starts nothing and asks for a wake
 * at exactly 25 s; the pass then preempts L for S. */
static void test_demotion_wake(void)
{
    uint32_t g[1] = {4};
    pv_init(&H, 1, NULL, NULL, g, 1);
    place_instance pi = make("tiresias-2dlas thresholds=100");
    run_job(31, 0, 4, 0, 0, 1);
    H.now_us = 10 * S_;
    wait_job(3, 4, 0, 0);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    CHECK_EQ_INT(H.stats.wake_us, 25 * S_);
    H.now_us = 25 * S_;
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].kind, PLACE_PREEMPT);
    CHECK_EQ_INT((int)H.log[0].id, 31);
    CHECK_EQ_INT((int)H.log[1].id, 3);
    /* S is in queue 0 until 125 s, L (waiting, queue 1) cannot take it back */
    compact_queue();
    wait_job(31, 4, 100, 0);
    H.now_us = 60 * S_;
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    place_instance_fini(&pi);
    pv_fini(&H);
}

/* Starvation: P (4 GPUs) ran 100 s (400 GPU-s: queue 1) and waits from
 * 1,000 s behind R, which holds the node and may not be preempted; N (queue
 * 0) arrives later. With starve=2 P goes back to queue 0 after 200 s of
 * waiting: at 1,200 s. R finishes at the pass: before 1,200 s N (queue 0)
 * goes first, at 1,200 s P does (queue 0, earlier). */
static void starve_case(double at_s, uint64_t expect)
{
    uint32_t g[1] = {4};
    pv_init(&H, 1, NULL, NULL, g, 1);
    place_instance pi = make("tiresias-2dlas thresholds=100 starve=2");
    run_job(41, 0, 4, 999, 0, 0);
    H.now_us = 1000 * S_;
    wait_job(4, 4, 400, 0);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    CHECK_EQ_INT(H.stats.wake_us, 1200 * S_);
    H.now_us = (int64_t)(at_s * S_);
    finish(41);
    wait_job(5, 4, 0, 0);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    CHECK_EQ_INT((int)H.log[0].id, (int)expect);
    place_instance_fini(&pi);
    pv_fini(&H);
}

static void test_starvation(void)
{
    starve_case(1199.9, 5);
    starve_case(1200, 4);
}

/* Gittins index over the distribution {10: 1, 100: 1} GPU-seconds with
 * D = 10, by hand: G(0) = 1 / (10 + 10) = 0.05, G(5) = 1 / (5 + 10) = 0.067,
 * G(50) = 0 (nothing completes in (50, 60]), G(95) = 1 / 5 = 0.2. So the
 * order is 95, 5, 0, 50 (arrival order A0, B5, C50, D95 under FIFO). */
static void test_gittins(void)
{
    uint32_t g[1] = {4};
    char buf[64];
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 1000 * S_;
    wait_job(1, 1, 0, 0);
    wait_job(2, 1, 5, 0);
    wait_job(3, 1, 50, 0);
    wait_job(4, 1, 95, 0);
    CHECK_EQ_INT(pv_pass(&H, "tiresias-2dlas thresholds=1e9 gittins=10:1,100:1 delta=10"),
                 PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "4 2 1 3");
    pv_fini(&H);
    pv_init(&H, 1, NULL, NULL, g, 1);
    H.now_us = 1000 * S_;
    wait_job(1, 1, 0, 0);
    wait_job(2, 1, 5, 0);
    wait_job(3, 1, 50, 0);
    wait_job(4, 1, 95, 0);
    CHECK_EQ_INT(pv_pass(&H, "tiresias-2dlas thresholds=1e9"), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "1 2 3 4");
    pv_fini(&H);
}

/* gittins=learn: the distribution is the service of the jobs seen to finish.
 * Two 1-GPU jobs run from t = 0 and finish at 10 s and 100 s (each seen at
 * the pass after): the distribution is then {10, 100}, and the order of the
 * four waiting jobs the one computed by hand above. Before any job
 * finished, there is no distribution: every index is 0, arrival order. */
static void test_gittins_learn(void)
{
    uint32_t g[1] = {4};
    char buf[64];
    pv_init(&H, 1, NULL, NULL, g, 1);
    place_instance pi = make("tiresias-2dlas thresholds=1e9 gittins=learn delta=10");
    run_job(61, 0, 1, 0, 0, 1);
    run_job(62, 0, 1, 0, 0, 1);
    H.now_us = 1 * S_;
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    H.now_us = 10 * S_;
    finish(61);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    H.now_us = 100 * S_;
    finish(62);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    H.now_us = 101 * S_;
    wait_job(1, 1, 0, 0);
    wait_job(2, 1, 5, 0);
    wait_job(3, 1, 50, 0);
    wait_job(4, 1, 95, 0);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "4 2 1 3");
    place_instance_fini(&pi);
    pv_fini(&H);

    pv_init(&H, 1, NULL, NULL, g, 1);
    pi = make("tiresias-2dlas thresholds=1e9 gittins=learn delta=10");
    H.now_us = 101 * S_;
    wait_job(1, 1, 0, 0);
    wait_job(2, 1, 5, 0);
    wait_job(3, 1, 50, 0);
    wait_job(4, 1, 95, 0);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "1 2 3 4");
    place_instance_fini(&pi);
    pv_fini(&H);
}

/* Two 4-GPU nodes with 2 GPUs free on each: a 4-GPU gang that may span waits
 * under consolidated placement (one node could hold it) and spans both nodes
 * under relaxed; skewed=7 consolidates only class 7. An 8-GPU gang on two
 * empty nodes spans both under consolidated placement (the fewest nodes). */
static void test_placement(void)
{
    uint32_t g[2] = {4, 4};
    const char *specs[] = {"tiresias", "tiresias-2dlas placement=relaxed",
                           "tiresias-2dlas skewed=7"};
    int started[] = {0, 1, 1};
    for (int k = 0; k < 3; k++) {
        pv_init(&H, 1, NULL, NULL, g, 2);
        H.now_us = 10 * S_;
        run_job(51, 0, 2, 0, 0, 0);
        run_job(52, 1, 2, 0, 0, 0);
        wait_job(6, 4, 0, PLACE_JOB_CAN_SPAN);
        CHECK_EQ_INT(pv_pass(&H, specs[k]), PLACE_OK);
        CHECK_EQ_INT(H.stats.started, (uint32_t)started[k]);
        if (started[k])
            CHECK_EQ_INT(H.log[0].n_parts, 2);
        pv_fini(&H);
    }
    pv_init(&H, 1, NULL, NULL, g, 2);
    wait_job(7, 8, 0, PLACE_JOB_CAN_SPAN);
    CHECK_EQ_INT(pv_pass(&H, "tiresias"), PLACE_OK);
    CHECK_EQ_INT(H.stats.started, 1);
    CHECK_EQ_INT(H.log[0].n_parts, 2);
    pv_fini(&H);
}

/* The queue of a job of `att` GPU-seconds under thresholds 100,1000. */
static uint32_t level(double att)
{
    return att >= 1000 ? 2 : att >= 100 ? 1 : 0;
}

static uint64_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rnd_state >> 33) % n);
}

/* After any pass: for every waiting job of queue q, no node holds it with
 * the running jobs of queues below q (the preemptible ones, here all)
 * stopped. Random views: 6 nodes of 4 or 8 GPUs, random running jobs and
 * queues. */
static void test_property_random(void)
{
    for (int it = 0; it < 400; it++) {
        uint32_t g[6];
        for (int n = 0; n < 6; n++)
            g[n] = rnd(2) ? 8 : 4;
        pv_init(&H, 1, NULL, NULL, g, 6);
        H.now_us = 1000 * S_;
        uint64_t id = 100;
        for (int n = 0; n < 6; n++) {
            uint32_t used = 0;
            while (used < g[n] && rnd(3)) {
                uint32_t k = 1u << rnd(3);
                if (used + k > g[n])
                    break;
                place_job j = pv_job(id++, k);
                j.flags = PLACE_JOB_PREEMPTIBLE;
                j.attained_gpu_s = (double)rnd(1500);
                place_part p = {(uint32_t)n, (uint16_t)k, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
                pv_running(&H, j, &p, 1, (int64_t)(999 - rnd(100)) * S_, -1, -1);
                used += k;
            }
        }
        uint32_t nq = 1 + rnd(10);
        for (uint32_t i = 0; i < nq; i++) {
            place_job j = pv_job(id++, 1u << rnd(4));
            j.attained_gpu_s = rnd(2) ? 0 : (double)rnd(1500);
            pv_queue(&H, j);
        }
        CHECK_EQ_INT(pv_pass(&H, "tiresias-2dlas thresholds=100,1000"), PLACE_OK);
        CHECK_EQ_INT(H.stats.invalid, 0);
        for (uint32_t i = 0; i < H.n_queue; i++) {
            if (H.qstate[i] != PLACE_Q_WAITING)
                continue;
            const place_job *w = &H.queue[i];
            uint32_t q = level(w->attained_gpu_s);
            for (uint32_t n = 0; n < H.c.n_nodes; n++) {
                uint32_t room = H.c.node_free[n];
                for (uint32_t r = 0; r < H.n_run; r++) {
                    const place_running *rr = &H.run[r];
                    double att = rr->job.attained_gpu_s +
                                 rr->job.gpus * (double)(H.now_us - rr->start_us) / S_;
                    if (rr->parts[0].node == n && level(att) > q)
                        room += rr->job.gpus;
                }
                if (room >= w->gpus) {
                    for (uint32_t k = 0; k < H.n_log; k++)
                        fprintf(stderr, "log %u: kind %u id %llu node %u\n", k, H.log[k].kind,
                                (unsigned long long)H.log[k].id, H.log[k].parts[0].node);
                    for (uint32_t r = 0; r < H.n_run; r++)
                        fprintf(stderr, "run %llu node %u gpus %u att %g start %lld\n",
                                (unsigned long long)H.run[r].job.id, H.run[r].parts[0].node,
                                H.run[r].job.gpus, H.run[r].job.attained_gpu_s,
                                (long long)H.run[r].start_us);
                    for (uint32_t k = 0; k < H.n_queue; k++)
                        fprintf(stderr, "q %llu gpus %u att %g state %u\n",
                                (unsigned long long)H.queue[k].id, H.queue[k].gpus,
                                H.queue[k].attained_gpu_s, H.qstate[k]);
                    check_fail(__FILE__, __LINE__,
                               "case %d: job %llu (queue %u, %u GPUs) waits but node %u has %u "
                               "GPUs free or held by lower queues",
                               it, (unsigned long long)w->id, q, w->gpus, n, room);
                }
            }
        }
        pv_fini(&H);
    }
}

static void test_spec_errors(void)
{
    place_env env = pv_env();
    place_instance pi;
    char err[512];
    const char *bad[] = {"tiresias-2dlas thresholds=100,50",
                         "tiresias-2dlas starve=-1",
                         "tiresias-2dlas placement=tight",
                         "tiresias-2dlas gittins=10:0",
                         "tiresias-2dlas color=red",
                         "tiresias-2dlas thresholds",
                         "tiresias-2dlas thresholds=3250,1e300",
                         "tiresias-2dlas delta=1e16",
                         "tiresias-2dlas gittins=1e300:1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = '\0';
        CHECK_EQ_INT(place_instance_init(&pi, &env, bad[k], err, sizeof err), PLACE_ERR_SPEC);
        if (!strstr(err, "tiresias-2dlas"))
            check_fail(__FILE__, __LINE__, "'%s': message '%s'", bad[k], err);
    }
    CHECK_EQ_INT(place_instance_init(&pi, &env,
                                     "tiresias-2dlas thresholds=10,20,30 starve=4 "
                                     "placement=relaxed skewed=1,2 gittins=learn",
                                     err, sizeof err),
                 PLACE_OK);
    place_instance_fini(&pi);
}

int main(void)
{
    test_preempts_lower_queue();
    test_victim_order();
    test_demotion_wake();
    test_starvation();
    test_gittins();
    test_gittins_learn();
    test_placement();
    test_property_random();
    test_spec_errors();
    return check_finish("test_tiresias");
}
