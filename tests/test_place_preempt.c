/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_preempt.c — priority preemption, the service rules and decision
 * validation, against hand-built views.
 *
 * Preemption follows the protocol of place.h: PREEMPT decisions come first,
 * the host removes each victim from the running set by swap-remove before
 * the next decision, then the START uses the freed capacity. The host here
 * (place_views.c) does exactly that, so the running indices in the log are
 * those at the time of each decision, and a victim is identified by id.
 */
#include "check.h"
#include "place_views.h"

#include <stdio.h>
#include <string.h>

static pv_host H;

static uint32_t victim(uint64_t id, uint32_t node, uint32_t gpus, int32_t prio, double lost)
{
    place_job j = pv_job(id, gpus);
    j.priority = prio;
    j.flags = PLACE_JOB_PREEMPTIBLE;
    place_part p = {node, (uint16_t)gpus, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    return pv_running(&H, j, &p, 1, -1000000, -1, lost);
}

static place_job urgent(uint64_t id, uint32_t gpus, int32_t prio)
{
    place_job j = pv_job(id, gpus);
    j.priority = prio;
    return j;
}

/* Two 4-GPU nodes, full. Node 0: V1 (2 GPUs, 100 GPU-s lost if stopped),
 * V2 (2 GPUs, 10 lost); node 1: V3 (4 GPUs, 50 lost). All priority 1.
 *   H (priority 5, 2 GPUs): node 0 needs one of V1, V2: V2 (10) < V3 (50):
 *     PREEMPT V2, START H on node 0.
 *   H (priority 5, 4 GPUs): node 0 needs V2 and V1 (110); node 1 needs V3
 *     (50): PREEMPT V3, START on node 1. */
static void test_least_lost(void)
{
    uint32_t g[2] = {4, 4};
    pv_init(&H, 1, NULL, NULL, g, 2);
    victim(11, 0, 2, 1, 100);
    victim(12, 0, 2, 1, 10);
    victim(13, 1, 4, 1, 50);
    pv_queue(&H, urgent(1, 2, 5));
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].kind, PLACE_PREEMPT);
    CHECK_EQ_INT(H.log[0].id, 12);
    CHECK_EQ_INT(H.log[0].index, 1); /* V2 was running entry 1 */
    CHECK_EQ_INT(H.log[1].kind, PLACE_START);
    CHECK_EQ_INT(H.log[1].id, 1);
    CHECK_EQ_INT(H.log[1].parts[0].node, 0);
    CHECK_EQ_INT(H.stats.preempted, 1);
    CHECK_EQ_INT(H.stats.started, 1);
    pv_fini(&H);

    pv_init(&H, 1, NULL, NULL, g, 2);
    victim(11, 0, 2, 1, 100);
    victim(12, 0, 2, 1, 10);
    victim(13, 1, 4, 1, 50);
    pv_queue(&H, urgent(1, 4, 5));
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].id, 13);
    CHECK_EQ_INT(H.log[1].parts[0].node, 1);
    pv_fini(&H);
}

/* Two victims in one plan, and indices that move: node 0 (4 GPUs) runs V1
 * (2 GPUs, lost 5) and V2 (2 GPUs, lost 7); node 1 (4 GPUs) runs W, which is
 * not preemptible. Running order: V1, W, V2. H needs 4 GPUs: only node 0, by
 * stopping both V1 and V2 (lost 5 first). After V1 (index 0) is removed, the
 * host moves V2 (last) into index 0: the second PREEMPT names index 0. */
static void test_two_victims_swap_remove(void)
{
    uint32_t g[2] = {4, 4};
    pv_init(&H, 1, NULL, NULL, g, 2);
    victim(21, 0, 2, 1, 5);
    place_job w = pv_job(22, 4);
    place_part wp = {1, 4, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    pv_running(&H, w, &wp, 1, -1000000, -1, 0);
    victim(23, 0, 2, 1, 7);
    pv_queue(&H, urgent(1, 4, 9));
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 3);
    CHECK_EQ_INT(H.log[0].kind, PLACE_PREEMPT);
    CHECK_EQ_INT(H.log[0].id, 21);
    CHECK_EQ_INT(H.log[0].index, 0);
    CHECK_EQ_INT(H.log[1].kind, PLACE_PREEMPT);
    CHECK_EQ_INT(H.log[1].id, 23);
    CHECK_EQ_INT(H.log[1].index, 0); /* moved from 2 to 0 by the swap-remove */
    CHECK_EQ_INT(H.log[2].kind, PLACE_START);
    CHECK_EQ_INT(H.log[2].parts[0].node, 0);
    CHECK_EQ_INT(H.n_run, 2); /* W and H */
    pv_fini(&H);
}

/* Who may not be a victim: equal priority, not preemptible, started in this
 * very instant. And the pruning: a victim that is not needed is put back. */
static void test_eligibility_and_pruning(void)
{
    uint32_t g[1] = {4};
    char buf[64];
    /* equal priority: nothing happens */
    pv_init(&H, 1, NULL, NULL, g, 1);
    victim(31, 0, 4, 5, 1);
    pv_queue(&H, urgent(1, 2, 5));
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    pv_fini(&H);
    /* started now: no work to lose, but stopping it only churns: not a victim */
    pv_init(&H, 1, NULL, NULL, g, 1);
    victim(31, 0, 4, 1, 0);
    H.run[0].start_us = H.now_us;
    pv_queue(&H, urgent(1, 2, 5));
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    pv_fini(&H);
    /* pruning: node of 4 with 1 GPU free; V1 (1 GPU, lost 1), V2 (2 GPUs, lost
     * 2). H needs 3: greedy takes V1 (1 + 1 = 2 free, not enough) then V2
     * (4 free); putting V1 back leaves 3 free: enough. Only V2 is stopped. */
    pv_init(&H, 1, NULL, NULL, g, 1);
    victim(41, 0, 1, 1, 1);
    victim(42, 0, 2, 1, 2);
    pv_queue(&H, urgent(1, 3, 5));
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].id, 42);
    CHECK_STR(pv_started(&H, buf, sizeof buf), "1");
    pv_fini(&H);
    /* without a preemption rule the job just waits */
    pv_init(&H, 1, NULL, NULL, g, 1);
    victim(41, 0, 4, 1, 1);
    pv_queue(&H, urgent(1, 3, 5));
    CHECK_EQ_INT(pv_pass(&H, "order=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    pv_fini(&H);
}

/* A share preempts shares: one GPU of 1000, shares of 600 (lost 3) and 400
 * (lost 9). A 0.5 share of higher priority: stopping the 600 frees 600 >= 500:
 * PREEMPT it, START on GPU 0. */
static void test_share_victims(void)
{
    uint32_t g[1] = {1};
    pv_init(&H, 1, NULL, NULL, g, 1);
    place_job a = pv_job(51, 1), b = pv_job(52, 1);
    a.gpu_milli = 600;
    b.gpu_milli = 400;
    a.flags = b.flags = PLACE_JOB_PREEMPTIBLE;
    place_part pa = {0, 1, 0, 600, 0, 1}, pb = {0, 1, 0, 400, 0, 1};
    pv_running(&H, a, &pa, 1, -1, -1, 3);
    pv_running(&H, b, &pb, 1, -1, -1, 9);
    place_job s = urgent(1, 1, 5);
    s.gpu_milli = 500;
    pv_queue(&H, s);
    CHECK_EQ_INT(pv_pass(&H, "preempt=priority"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].id, 51);
    CHECK_EQ_INT(H.log[1].parts[0].gpu, 0);
    pv_fini(&H);
}

/* ------------------------------------------------------------------------- */
/* services                                                                   */

static double SPEED[3] = {0.0, 1.0, 2.0};

static place_job replica(uint64_t id, uint32_t group, uint32_t gpus)
{
    place_job j = pv_job(id, gpus);
    j.flags = PLACE_JOB_SERVICE | PLACE_JOB_API_OK;
    j.group = group;
    j.speed = SPEED;
    return j;
}

/* Types 0 (cannot meet the SLO: speed 0), 1 (1x), 2 (2x). Nodes: 0 type 0,
 * 1 type 1, 2 and 3 type 2, 8 GPUs each. Node 2 runs a replica of service 7
 * and 4 GPUs of other work (3 free); node 3 runs 2 GPUs of other work (6 free).
 *   A replica of service 7 (1 GPU): type 2 (fastest); node 3, which has no
 *     replica of service 7, although node 2 is fuller.
 *   A replica of service 8: no replica anywhere: the fullest type-2 node,
 *     node 2.
 *   With both type-2 nodes full: type 1 (node 1), never type 0. */
static void test_slo(void)
{
    uint32_t types[4] = {0, 1, 2, 2}, g[4] = {8, 8, 8, 8};
    pv_init(&H, 3, NULL, types, g, 4);
    place_job r0 = replica(100, 7, 1);
    place_part p0 = {2, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    pv_running(&H, r0, &p0, 1, 0, -1, 0);
    pv_running_whole(&H, 101, 2, 4, -1);
    pv_running_whole(&H, 102, 3, 2, -1);
    pv_queue(&H, replica(1, 7, 1));
    pv_queue(&H, replica(2, 8, 1));
    CHECK_EQ_INT(pv_pass(&H, "service=slo backfill=greedy"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].parts[0].node, 3);
    CHECK_EQ_INT(H.log[1].parts[0].node, 2);
    /* fill both type-2 nodes: replicas go to type 1 */
    pv_running_whole(&H, 103, 2, 2, -1);
    pv_running_whole(&H, 104, 3, 5, -1);
    CHECK_EQ_INT(H.c.type_gpus_free[2], 0);
    H.n_queue = 0;
    H.n_log = 0;
    pv_queue(&H, replica(3, 7, 1));
    CHECK_EQ_INT(pv_pass(&H, "service=slo"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    CHECK_EQ_INT(H.log[0].parts[0].node, 1);
    /* with type 1 full too, the replica waits under service=slo (type 0 is
     * free but cannot meet the SLO), and is routed under service=hybrid */
    pv_running_whole(&H, 105, 1, 7, -1);
    H.n_queue = 0;
    pv_queue(&H, replica(4, 7, 1));
    CHECK_EQ_INT(pv_pass(&H, "service=slo"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    CHECK_EQ_INT(pv_pass(&H, "service=hybrid"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    CHECK_EQ_INT(H.log[0].kind, PLACE_ROUTE_API);
    CHECK_EQ_INT(H.log[0].id, 4);
    CHECK_EQ_INT(H.qstate[0], PLACE_Q_ROUTED);
    CHECK_EQ_INT(H.stats.routed, 1);
    /* a replica whose service does not allow overflow stays queued; a batch job
     * is placed by the placement rule (type 0 is fine for it) */
    H.n_queue = 0;
    place_job r5 = replica(5, 7, 1);
    r5.flags &= ~(uint32_t)PLACE_JOB_API_OK;
    pv_queue(&H, r5);
    pv_queue(&H, pv_job(6, 1));
    CHECK_EQ_INT(pv_pass(&H, "service=hybrid backfill=greedy"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    CHECK_EQ_INT(H.log[0].kind, PLACE_START);
    CHECK_EQ_INT(H.log[0].id, 6);
    CHECK_EQ_INT(H.log[0].parts[0].node, 0);
    /* the wait: a replica that arrived 10 s ago is routed with wait=5, not 30 */
    H.n_queue = 0;
    H.now_us = 100000000;
    place_job r7 = replica(7, 7, 1);
    r7.submit_us = H.now_us - 10000000;
    pv_queue(&H, r7);
    CHECK_EQ_INT(pv_pass(&H, "service=hybrid:wait=30"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 0);
    CHECK_EQ_INT(pv_pass(&H, "service=hybrid:wait=5"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    char err[200];
    place_env env = pv_env();
    place_instance pi;
    CHECK_EQ_INT(place_instance_init(&pi, &env, "service=hybrid:soon", err, sizeof err),
                 PLACE_ERR_SPEC);
    CHECK(strstr(err, "wait") != NULL);
    pv_fini(&H);
}

/* Shares of a service: on the fastest type, the GPU it fills best, spreading
 * first: one type-2 node (node 0) with a replica of service 3 on GPU 0 (0.5),
 * another (node 1) with a 0.7 batch share on GPU 0. A 0.25 replica of
 * service 3 goes to node 1 (no replica there), GPU 0 (0.05 left beats 0.75). */
static void test_slo_shares(void)
{
    uint32_t types[2] = {2, 2}, g[2] = {2, 2};
    pv_init(&H, 3, NULL, types, g, 2);
    place_job r = replica(100, 3, 1);
    r.gpu_milli = 500;
    place_part p = {0, 1, 0, 500, 0, 1};
    pv_running(&H, r, &p, 1, 0, -1, 0);
    place_job b = pv_job(101, 1);
    b.gpu_milli = 700;
    place_part q = {1, 1, 0, 700, 0, 1};
    pv_running(&H, b, &q, 1, 0, -1, 0);
    place_job s = replica(1, 3, 1);
    s.gpu_milli = 250;
    pv_queue(&H, s);
    CHECK_EQ_INT(pv_pass(&H, "service=slo"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    CHECK_EQ_INT(H.log[0].parts[0].node, 1);
    CHECK_EQ_INT(H.log[0].parts[0].gpu, 0);
    pv_fini(&H);
}

/* ------------------------------------------------------------------------- */
/* validation: the library refuses and counts what a broken policy answers    */

static uint32_t script_kind[8], script_index[8], script_n;
static place_part script_part[8];
static uint32_t script_at;

static int script_create(const place_env *env, const char *args, void **state, char *err,
                         size_t err_len)
{
    (void)env;
    (void)args;
    (void)err;
    (void)err_len;
    *state = NULL;
    return PLACE_OK;
}
static void script_destroy(void *state)
{
    (void)state;
}
static int script_decide(void *state, const place_view *v, place_decision *d)
{
    (void)state;
    (void)v;
    if (script_at == script_n)
        return PLACE_DONE;
    d->kind = script_kind[script_at];
    d->index = script_index[script_at];
    d->n_parts = d->kind == PLACE_START ? 1 : 0;
    d->parts[0] = script_part[script_at];
    script_at++;
    return PLACE_OK;
}
static int observed[8];
static uint32_t n_observed;
static void script_observe(void *state, const place_view *v, const place_decision *d, int status)
{
    (void)state;
    (void)v;
    (void)d;
    if (n_observed < 8)
        observed[n_observed++] = status;
}
static const place_policy script_policy = {PLACE_ABI_VERSION,
                                           sizeof(place_policy),
                                           "script",
                                           "answers a scripted list of decisions",
                                           script_create,
                                           script_destroy,
                                           NULL,
                                           script_decide,
                                           script_observe,
                                           NULL};

static void test_validation(void)
{
    /* one 4-GPU node, 2 taken by a job that is not preemptible; queue: a 1-GPU
     * batch job (0), a replica without API_OK (1), a 2-GPU job (2). Script:
     *   PREEMPT running 0        -> PLACE_ERR_PREEMPT (not preemptible)
     *   PREEMPT running 5        -> PLACE_ERR_STATE (no such entry)
     *   ROUTE_API queue 0        -> PLACE_ERR_ROUTE (a batch job)
     *   ROUTE_API queue 1        -> PLACE_ERR_ROUTE (no API_OK)
     *   START queue 2, 3 GPUs    -> PLACE_ERR_CAPACITY (3 > the 2 free; checked
     *                               before the gang's sum)
     *   START queue 2 again      -> PLACE_ERR_STATE (2 was skipped by the refusal)
     *   START queue 1            -> PLACE_ERR_STATE (skipped by its ROUTE refusal)
     *   kind 9                   -> PLACE_ERR_INVAL
     * Nothing is applied; every refusal is counted and observed. */
    uint32_t g[1] = {4};
    pv_init(&H, 1, NULL, NULL, g, 1);
    pv_running_whole(&H, 50, 0, 2, -1);
    pv_queue(&H, pv_job(1, 1));
    place_job rep = pv_job(2, 1);
    rep.flags = PLACE_JOB_SERVICE;
    pv_queue(&H, rep);
    pv_queue(&H, pv_job(3, 2));
    place_part three = {0, 3, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    uint32_t k[8] = {PLACE_PREEMPT, PLACE_PREEMPT, PLACE_ROUTE_API, PLACE_ROUTE_API,
                     PLACE_START,   PLACE_START,   PLACE_START,     9};
    uint32_t ix[8] = {0, 5, 0, 1, 2, 2, 1, 0};
    int want[8] = {PLACE_ERR_PREEMPT,  PLACE_ERR_STATE, PLACE_ERR_ROUTE, PLACE_ERR_ROUTE,
                   PLACE_ERR_CAPACITY, PLACE_ERR_STATE, PLACE_ERR_STATE, PLACE_ERR_INVAL};
    for (int i = 0; i < 8; i++) {
        script_kind[i] = k[i];
        script_index[i] = ix[i];
        script_part[i] = three;
    }
    script_n = 8;
    script_at = 0;
    n_observed = 0;
    place_instance pi;
    place_env env = pv_env();
    CHECK_EQ_INT(place_instance_init_policy(&pi, &env, &script_policy, "", NULL, 0), PLACE_OK);
    CHECK_EQ_INT(pv_pass_instance(&H, &pi), PLACE_OK);
    place_instance_fini(&pi);
    CHECK_EQ_INT(H.n_log, 0);
    CHECK_EQ_INT(H.stats.invalid, 8);
    CHECK_EQ_INT(H.stats.started + H.stats.preempted + H.stats.routed, 0);
    CHECK_EQ_INT(n_observed, 8);
    for (int i = 0; i < 8; i++)
        if (observed[i] != want[i])
            check_fail(__FILE__, __LINE__, "decision %d: got %s, want %s", i,
                       place_status_name(observed[i]), place_status_name(want[i]));
    CHECK_EQ_INT(H.stats.last_invalid, PLACE_ERR_INVAL);
    /* the entries named by refused START/ROUTE decisions are skipped for the pass */
    CHECK_EQ_INT(H.qstate[0], PLACE_Q_SKIPPED);
    CHECK_EQ_INT(H.qstate[1], PLACE_Q_SKIPPED);
    CHECK_EQ_INT(H.qstate[2], PLACE_Q_SKIPPED);
    CHECK_EQ_INT(place_cluster_verify(&H.c), PLACE_OK);
    CHECK_EQ_U64(H.c.gpus_free, 2);
    /* an external policy table with the wrong ABI is refused by name */
    place_policy old = script_policy;
    old.abi = 1;
    char err[128];
    CHECK_EQ_INT(place_instance_init_policy(&pi, &env, &old, "", err, sizeof err), PLACE_ERR_ABI);
    CHECK(strstr(err, "script") != NULL);
    pv_fini(&H);
}

/* The composed policy's specification errors name the bad token. */
static void test_spec_errors(void)
{
    place_env env = pv_env();
    place_instance pi;
    char err[256];
    struct {
        const char *spec, *needle;
        int rc;
    } cases[] = {
        {"order=fifo order=sjf", "twice", PLACE_ERR_SPEC},
        {"preempt=everyone", "everyone", PLACE_ERR_NOTFOUND},
        {"service=magic", "magic", PLACE_ERR_NOTFOUND},
        {"backfill=easy:7", "easy", PLACE_ERR_SPEC},
        {"placement=first-fit:3", "takes no arguments", PLACE_ERR_SPEC},
        {"order=las:5,1", "las", PLACE_ERR_SPEC},
        {"placement=fgd:x", "fgd", PLACE_ERR_SPEC},
        {"fgd extra", "takes no arguments", PLACE_ERR_SPEC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = '\0';
        CHECK_EQ_INT(place_instance_init(&pi, &env, cases[i].spec, err, sizeof err), cases[i].rc);
        if (!strstr(err, cases[i].needle))
            check_fail(__FILE__, __LINE__, "spec '%s': message '%s' lacks '%s'", cases[i].spec, err,
                       cases[i].needle);
    }
    /* every preset and every component name builds */
    const char *presets[] = {
        "fifo-first-fit", "fifo-best-fit",   "easy", "conservative", "fgd", "tiresias",
        "gavel",          "priority-preempt"};
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        CHECK_EQ_INT(place_instance_init(&pi, &env, presets[i], err, sizeof err), PLACE_OK);
        place_instance_fini(&pi);
    }
    size_t n;
    const place_fit *const *fits = place_fit_list(&n);
    for (size_t i = 0; i < n; i++) {
        char spec[128];
        snprintf(spec, sizeof spec, "placement=%s", fits[i]->name);
        CHECK_EQ_INT(place_instance_init(&pi, &env, spec, err, sizeof err), PLACE_OK);
        place_instance_fini(&pi);
        CHECK(fits[i]->summary && fits[i]->summary[0]);
    }
}

int main(void)
{
    test_least_lost();
    test_two_victims_swap_remove();
    test_eligibility_and_pruning();
    test_share_victims();
    test_slo();
    test_slo_shares();
    test_validation();
    test_spec_errors();
    return check_finish("test_place_preempt");
}
