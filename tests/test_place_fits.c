/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_fits.c — every placement rule against hand-built clusters, the
 * answer worked out by hand in the comments, ties included (they go to the
 * lowest node index, then GPU index, unless the rule says otherwise).
 * Each case runs one pass of the composed policy with that placement over a
 * one-job queue, through the same host protocol the engine follows, and
 * checks the part the job was started on.
 */
#include "check.h"
#include "place_views.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static pv_host H;

#define GIB 1024u

/* Place job j with `placement` (a component value, e.g. "fgd:0.3@1") on H;
 * returns the node (PLACE_NONE when it did not start), *gpu the GPU of a
 * share, *n_parts the parts. The queue is reset to just j. */
static uint32_t place1(const char *placement, place_job j, uint32_t *gpu, uint32_t *n_parts)
{
    char spec[256];
    snprintf(spec, sizeof spec, "order=fifo placement=%s backfill=none", placement);
    H.n_queue = 0;
    pv_queue(&H, j);
    /* run the pass on a copy, so that one case does not change the next */
    static pv_host copy;
    copy = H;
    place_env env = pv_env();
    uint32_t mem[PLACE_MAX_TYPES];
    memcpy(mem, H.c.type_mem_mib, sizeof mem);
    /* the copy must own its cluster: rebuild it from H's arrays */
    CHECK_EQ_INT(place_cluster_init(&copy.c, &env, H.c.n_types, mem), PLACE_OK);
    for (uint32_t n = 0; n < H.c.n_nodes; n++) {
        place_cluster_add_node(&copy.c, H.c.node_type[n], H.c.node_gpus[n], H.c.node_cpu_milli[n],
                               H.c.node_mem_mib[n], NULL);
        place_cluster_set_node_up(&copy.c, n, 1);
    }
    for (uint32_t r = 0; r < H.n_run; r++) {
        memcpy(copy.run_parts[r], H.run_parts[r], sizeof copy.run_parts[r]);
        copy.run[r].parts = copy.run_parts[r];
        CHECK_EQ_INT(
            place_cluster_take_exact(&copy.c, &H.run[r].job, copy.run_parts[r], H.run[r].n_parts),
            PLACE_OK);
    }
    for (uint32_t n = 0; n < H.c.n_nodes; n++)
        if (!H.c.node_up[n])
            place_cluster_set_node_up(&copy.c, n, 0);
    int rc = pv_pass(&copy, spec);
    CHECK_EQ_INT(rc, PLACE_OK);
    uint32_t node = PLACE_NONE;
    if (copy.n_log == 1 && copy.log[0].kind == PLACE_START) {
        node = copy.log[0].parts[0].node;
        if (gpu)
            *gpu = copy.log[0].parts[0].gpu;
        if (n_parts)
            *n_parts = copy.log[0].n_parts;
    }
    if (n_parts && node == PLACE_NONE)
        *n_parts = 0;
    place_cluster_fini(&copy.c);
    return node;
}

/* A share of `milli` with `mem_gib` GiB of GPU memory. */
static place_job share(uint64_t id, uint32_t milli, uint32_t mem_gib)
{
    place_job j = pv_job(id, 1);
    j.gpu_milli = milli;
    j.gpu_mem_mib = mem_gib * GIB;
    return j;
}

/* Put a running share of `milli` on GPU g of node n. */
static void run_share(uint64_t id, uint32_t n, uint32_t g, uint32_t milli)
{
    place_part p = {n, 1, (uint16_t)g, milli, 0, 1ull << g};
    place_job j = share(id, milli, 0);
    pv_running(&H, j, &p, 1, 0, -1, 0);
}

static void test_worst(void)
{
    /* four 8-GPU nodes with 8, 3, 5, 8 free: worst-fit takes the most free
     * (nodes 0 and 3 tie at 8: node 0); first-fit also 0; best-fit 1 */
    uint32_t g[4] = {8, 8, 8, 8};
    pv_init(&H, 1, NULL, NULL, g, 4);
    pv_running_whole(&H, 100, 1, 5, -1);
    pv_running_whole(&H, 101, 2, 3, -1);
    CHECK_EQ_INT(place1("worst-fit", pv_job(1, 3), NULL, NULL), 0);
    CHECK_EQ_INT(place1("best-fit", pv_job(1, 3), NULL, NULL), 1);
    /* with node 0 busy too, the 8 of node 3 wins */
    pv_running_whole(&H, 102, 0, 1, -1);
    CHECK_EQ_INT(place1("worst-fit", pv_job(1, 3), NULL, NULL), 3);
    /* shares: the GPU with the most free share: every fully free GPU has 1000,
     * so the lowest node, then the lowest GPU: node 0, whose GPU 0 is taken,
     * GPU 1 */
    uint32_t gpu = 99;
    CHECK_EQ_INT(place1("worst-fit", share(2, 300, 0), &gpu, NULL), 0);
    CHECK_EQ_INT(gpu, 1);
    pv_fini(&H);
    /* shares only: GPUs with 400, 700, 600 free -> the 700 (node 0 GPU 1) */
    uint32_t g2[2] = {2, 2};
    pv_init(&H, 1, NULL, NULL, g2, 2);
    run_share(100, 0, 0, 600);
    run_share(101, 0, 1, 300);
    run_share(102, 1, 0, 400);
    run_share(103, 1, 1, 1000 - 1);
    CHECK_EQ_INT(place1("worst-fit", share(1, 200, 0), &gpu, NULL), 0);
    CHECK_EQ_INT(gpu, 1);
    pv_fini(&H);
}

static void test_topology(void)
{
    /* four 8-GPU nodes with 2, 6, 3, 5 free. A 4-GPU gang fits one node:
     * best-fit, node 3 (5 free). A 9-GPU gang that may span: fewest nodes:
     * the 6 of node 1, then the remainder 3 on the fullest node that holds
     * it: node 2 (3 free, not node 3 with 5) -> 2 parts. first-fit spans in
     * index order: 2 + 6 + 1 -> 3 parts. */
    uint32_t g[4] = {8, 8, 8, 8};
    pv_init(&H, 1, NULL, NULL, g, 4);
    pv_running_whole(&H, 100, 0, 6, -1);
    pv_running_whole(&H, 101, 1, 2, -1);
    pv_running_whole(&H, 102, 2, 5, -1);
    pv_running_whole(&H, 103, 3, 3, -1);
    uint32_t np = 0;
    CHECK_EQ_INT(place1("topology", pv_job(1, 4), NULL, &np), 3);
    CHECK_EQ_INT(np, 1);
    place_job big = pv_job(2, 9);
    big.flags = PLACE_JOB_CAN_SPAN;
    H.n_queue = 0;
    pv_queue(&H, big);
    CHECK_EQ_INT(pv_pass(&H, "placement=topology"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 1);
    CHECK_EQ_INT(H.log[0].n_parts, 2);
    CHECK_EQ_INT(H.log[0].parts[0].node, 1);
    CHECK_EQ_INT(H.log[0].parts[0].gpus, 6);
    CHECK_EQ_INT(H.log[0].parts[1].node, 2);
    CHECK_EQ_INT(H.log[0].parts[1].gpus, 3);
    pv_fini(&H);
    pv_init(&H, 1, NULL, NULL, g, 4);
    pv_running_whole(&H, 100, 0, 6, -1);
    pv_running_whole(&H, 101, 1, 2, -1);
    pv_running_whole(&H, 102, 2, 5, -1);
    pv_running_whole(&H, 103, 3, 3, -1);
    CHECK_EQ_INT(place1("first-fit", big, NULL, &np), 0);
    CHECK_EQ_INT(np, 3);
    /* 14 GPUs: 6 + 5 + 3 = three nodes (nodes 1, 3, then 3 more on node 2) */
    big.gpus = 14;
    H.n_queue = 0;
    pv_queue(&H, big);
    CHECK_EQ_INT(pv_pass(&H, "placement=topology"), PLACE_OK);
    CHECK_EQ_INT(H.log[0].n_parts, 3);
    CHECK_EQ_INT(H.log[0].parts[0].node, 1);
    CHECK_EQ_INT(H.log[0].parts[1].node, 3);
    CHECK_EQ_INT(H.log[0].parts[2].node, 2);
    CHECK_EQ_INT(H.log[0].parts[2].gpus, 3);
    pv_fini(&H);
}

static void test_hetero(void)
{
    /* types 0, 1, 2 on nodes 0, 1, 2 (8 GPUs each); the job runs 1.0x, 2.5x,
     * 2.5x on them: type 1 (the tie with 2 goes to the lower type). A speed
     * of 0 is "not known" and counts as 1, as the engine runs it. */
    uint32_t types[3] = {0, 1, 2}, g[3] = {8, 8, 8};
    pv_init(&H, 3, NULL, types, g, 3);
    double speed[3] = {1.0, 2.5, 2.5};
    place_job j = pv_job(1, 4);
    j.speed = speed;
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 1);
    /* type 1 full: type 2 */
    pv_running_whole(&H, 100, 1, 6, -1);
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 2);
    /* types 1 and 2 full: back to the slow type 0 */
    pv_running_whole(&H, 101, 2, 6, -1);
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 0);
    /* a speed of 0 on type 0 is unknown, not forbidden: type 0 still takes it;
     * and with speeds 0 (counts as 1), 0.5, 0.5 the unknown type is first */
    speed[0] = 0;
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 0);
    pv_fini(&H);
    pv_init(&H, 3, NULL, types, g, 3);
    speed[1] = speed[2] = 0.5;
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 0);
    speed[0] = 0.25;
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 1);
    /* no speeds: best-fit over all types (node 1 and 2 have 2 free, too few
     * for 4; node 0 has 8) */
    j.speed = NULL;
    CHECK_EQ_INT(place1("hetero", j, NULL, NULL), 0);
    pv_fini(&H);
}

static void test_fgd(void)
{
    /* Two one-GPU nodes with 400 (node 0) and 600 (node 1) milli-GPU free;
     * a 300 share.
     *  typical pods {0.3}: node 0 after: 100 free, which no 0.3 pod can use:
     *    F goes 0 -> 100 (gradient +100); node 1 after: 300 free, usable:
     *    F stays 0 (gradient 0): FGD picks node 1. best-fit picks node 0.
     *  typical pods {0.1}: both gradients 0 (100 and 300 are both usable by a
     *    0.1 pod): the tie goes to node 0. */
    uint32_t g[2] = {1, 1};
    pv_init(&H, 1, NULL, NULL, g, 2);
    run_share(100, 0, 0, 600);
    run_share(101, 1, 0, 400);
    CHECK_EQ_INT(place1("fgd:0.3@1", share(1, 300, 0), NULL, NULL), 1);
    CHECK_EQ_INT(place1("best-fit", share(1, 300, 0), NULL, NULL), 0);
    CHECK_EQ_INT(place1("fgd:0.1@1", share(1, 300, 0), NULL, NULL), 0);
    /* k8s scoring: int(100 sigmoid(-gradient / 1000)): node 0 100 / (1 +
     * e^0.1) = 47, node 1 50: node 1 (exact scores too). For {0.1} both
     * would score 50 and the node rank would decide (test_k8s_modes). */
    CHECK_EQ_INT(place1("fgd:k8s:0.3@1", share(1, 300, 0), NULL, NULL), 1);
    /* learned from the view: the queue holds 0.3, 0.3, 0.1 and the running jobs
     * are 0.6 and 0.4 pods: weights 0.3 x2, 0.1, 0.4, 0.6 x1. Placing the
     * first 0.3: node 0 after (100 free) is unusable by 0.3 (x2), 0.4, 0.6
     * pods: 4 x 100; node 0 before (400) was unusable by 0.6 only: 1 x 400.
     * Gradient node 0: 400 - 400 = 0. Node 1 after (300): unusable by 0.4 and
     * 0.6: 2 x 300 = 600; before (600): usable by all: 0. Gradient node 1:
     * +600. FGD picks node 0. */
    H.n_queue = 0;
    pv_queue(&H, share(1, 300, 0));
    pv_queue(&H, share(2, 300, 0));
    pv_queue(&H, share(3, 100, 0));
    CHECK_EQ_INT(pv_pass(&H, "order=fifo placement=fgd backfill=none"), PLACE_OK);
    CHECK(H.n_log >= 1);
    CHECK_EQ_INT(H.log[0].parts[0].node, 0);
    pv_fini(&H);
    /* GPU memory: two one-GPU nodes of 80 GiB. Node 0 runs a 0.5 share with no
     * memory (500 free, 80 GiB); node 1 a 0.5 share holding 60 GiB (500 free,
     * 20 GiB). Queue: job 1, a 0.5 share with no memory, then job 2, a 0.5
     * share with 40 GiB. Learned pods: (0.5, 0 GiB) x2 (job 1 and node 0's),
     * (0.5, 40 GiB) x1, (0.5, 60 GiB) x1. Placing job 1:
     *  node 0: before, every pod fits its GPU: F = 0; after, nothing free: 0.
     *    Gradient 0.
     *  node 1: before, the 40 and 60 GiB pods cannot use the GPU (memory):
     *    500 each, F = 1000; after: 0. Gradient -1000.
     * FGD picks node 1, where the share nobody else can use goes; without the
     * memory rule both gradients would be 0 and the tie would take node 0
     * (so does best-fit: both GPUs are left at 0). Job 2 then takes node 0. */
    uint32_t g1[2] = {1, 1};
    pv_init(&H, 1, NULL, NULL, g1, 2);
    place_part p0 = {0, 1, 0, 500, 0, 1};
    place_part p1 = {1, 1, 0, 500, 60 * GIB, 1};
    pv_running(&H, share(100, 500, 0), &p0, 1, 0, -1, 0);
    pv_running(&H, share(101, 500, 60), &p1, 1, 0, -1, 0);
    CHECK_EQ_INT(place1("best-fit", share(1, 500, 0), NULL, NULL), 0);
    H.n_queue = 0;
    pv_queue(&H, share(1, 500, 0));
    pv_queue(&H, share(2, 500, 40));
    CHECK_EQ_INT(pv_pass(&H, "placement=fgd"), PLACE_OK);
    CHECK_EQ_INT(H.n_log, 2);
    CHECK_EQ_INT(H.log[0].id, 1);
    CHECK_EQ_INT(H.log[0].parts[0].node, 1);
    CHECK_EQ_INT(H.log[1].id, 2);
    CHECK_EQ_INT(H.log[1].parts[0].node, 0);
    /* bad arguments */
    place_env env = pv_env();
    void *st = NULL;
    char err[200];
    const place_fit *f = place_fit_find("fgd");
    CHECK_EQ_INT(f->create(&env, "0.5", &st, err, sizeof err), PLACE_ERR_SPEC);
    CHECK(strstr(err, "fgd") != NULL);
    CHECK_EQ_INT(f->create(&env, "1.5@3", &st, err, sizeof err), PLACE_ERR_SPEC);
    CHECK_EQ_INT(f->create(&env, "top=0", &st, err, sizeof err), PLACE_ERR_SPEC);
    CHECK_EQ_INT(f->create(&env, "2/8@1,0.25@3", &st, err, sizeof err), PLACE_OK);
    f->destroy(st);
    CHECK(f->flags & PLACE_FIT_SCANS);
    pv_fini(&H);
}

static void test_dotprod(void)
{
    /* two 8-GPU nodes, 64 cores each. Node 0: 2 GPUs free, all 64 cores free.
     * Node 1: 4 GPUs free, 8 cores free. A 2-GPU job asking 8 cores:
     *  node 0: (2000/8000)(2000/8000) + (64/64)(8/64) = 0.0625 + 0.125 = 0.1875
     *  node 1: (4000/8000)(2000/8000) + (8/64)(8/64)  = 0.125 + 0.015625 = 0.140625
     * -> node 1 (best-fit would take node 0, which has fewer free GPUs). Host
     * memory asks nothing and adds nothing. */
    uint32_t g[2] = {8, 8};
    pv_init(&H, 1, NULL, NULL, g, 2);
    pv_running_whole(&H, 100, 0, 6, -1);
    place_job hog = pv_job(101, 4);
    hog.cpu_milli = 56000;
    place_part hp = {1, 4, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    pv_running(&H, hog, &hp, 1, 0, -1, 0);
    place_job j = pv_job(1, 2);
    j.cpu_milli = 8000;
    CHECK_EQ_INT(place1("dotprod", j, NULL, NULL), 1);
    CHECK_EQ_INT(place1("best-fit", j, NULL, NULL), 0);
    /* without the CPU ask the GPU term decides: node 0 (0.0625 < 0.125) */
    j.cpu_milli = 0;
    CHECK_EQ_INT(place1("dotprod", j, NULL, NULL), 0);
    pv_fini(&H);
    /* shares are scored per GPU: GPUs with 900, 400 (node 0) and 1000 (node 1)
     * free, a 300 share: (free/1000)(300/1000) smallest on the 400 GPU */
    uint32_t g2[2] = {2, 1};
    pv_init(&H, 1, NULL, NULL, g2, 2);
    run_share(100, 0, 0, 100);
    run_share(101, 0, 1, 600);
    uint32_t gpu = 9;
    CHECK_EQ_INT(place1("dotprod", share(1, 300, 0), &gpu, NULL), 0);
    CHECK_EQ_INT(gpu, 1);
    pv_fini(&H);
}

/* the same with the reference simulator's scoring ("dotprod:k8s"): CPU and
 * the node's total free GPU over the largest node's (here 64 cores, 8 GPUs),
 * score int(100 (1 - dot / 2)), the highest wins, equal scores drawn. */
static uint32_t pick_with(const char *placement, place_rand_fn fn);
static uint64_t fixed_value, sm_state;
static uint64_t fixed_rand(void *ud);
static uint64_t splitmix(void *ud);

/* The node ranks a k8s-mode fit draws in its first begin() from a fresh
 * splitmix stream at `seed` (Fisher-Yates from the top, fit_k8s.c), and of
 * cands[0..n_c) the one ranked first. */
static uint32_t mirror_first(uint64_t seed, uint32_t n_nodes, const uint32_t *cands, uint32_t n_c)
{
    uint32_t rank[64];
    for (uint32_t k = 0; k < n_nodes; k++)
        rank[k] = k;
    sm_state = seed;
    place_env env = {place_alloc_libc, NULL, splitmix, NULL};
    for (uint32_t i = n_nodes; i > 1; i--) {
        uint32_t x = (uint32_t)place_rand_below(&env, i), t = rank[i - 1];
        rank[i - 1] = rank[x];
        rank[x] = t;
    }
    uint32_t best = cands[0];
    for (uint32_t k = 1; k < n_c; k++)
        if (rank[cands[k]] < rank[best])
            best = cands[k];
    return best;
}

static void test_dotprod_k8s(void)
{
    /* node 0: 8 GPUs, node 1: 2 GPUs, both free, 64 cores. A 1-GPU job, no CPU:
     *  exact (by the node): node 0 (8000/8000)(1000/8000) = 0.125,
     *                       node 1 (2000/2000)(1000/2000) = 0.5 -> node 0;
     *  k8s (by the largest node): node 0 1 x 0.125 / 2 = 0.0625 -> 93,
     *                       node 1 0.25 x 0.125 / 2 = 0.015625 -> 98 -> node 1 */
    uint32_t g[3] = {8, 2, 2};
    pv_init(&H, 1, NULL, NULL, g, 3);
    place_job j = pv_job(1, 1);
    pv_running_whole(&H, 100, 2, 2, -1); /* node 2 full for now */
    CHECK_EQ_INT(place1("dotprod", j, NULL, NULL), 0);
    CHECK_EQ_INT(place1("dotprod:k8s", j, NULL, NULL), 1);
    pv_fini(&H);
    /* nodes 1 and 2 both free: both 98, a tie. It goes to the node of lowest
     * rank in a permutation of the nodes the instance draws once (fit_k8s.c,
     * the reference's selectHost over names numbered by rand.Perm), not to a
     * draw per decision: for every seed, the node the mirror below ranks
     * first of {1, 2}; over seeds, both. Without a random source the rank
     * is the node index: node 1. */
    pv_init(&H, 1, NULL, NULL, g, 3);
    H.n_queue = 0;
    pv_queue(&H, j);
    CHECK_EQ_INT(pick_with("placement=dotprod:k8s", NULL), 1);
    uint32_t count[3] = {0}, tied[2] = {1, 2};
    for (uint64_t seed = 1; seed <= 400; seed++) {
        uint32_t want = mirror_first(seed, 3, tied, 2);
        sm_state = seed;
        uint32_t n = pick_with("placement=dotprod:k8s", splitmix);
        if (n != want)
            check_fail(__FILE__, __LINE__, "seed %llu: tie went to node %u, want %u",
                       (unsigned long long)seed, n, want);
        if (n < 3)
            count[n]++;
    }
    CHECK_EQ_INT(count[0], 0);
    CHECK_NEAR(count[1], 200, 5 * sqrt(400 * 0.25));
    CHECK_NEAR(count[2], 200, 5 * sqrt(400 * 0.25));
    pv_fini(&H);
    /* a share: node 0 has 900 and 400 free, node 1 one free GPU; largest
     * node 2 GPUs. A 300 share: node 0 (1300/2000)(300/2000) / 2 = 0.04875
     * -> 95, node 1 (1000/2000)(300/2000) / 2 = 0.0375 -> 96: node 1 (the
     * exact rule scores per GPU and takes node 0's 400). With node 1 busy,
     * node 0's tightest GPU that holds it: GPU 1. */
    uint32_t g2[2] = {2, 1};
    pv_init(&H, 1, NULL, NULL, g2, 2);
    run_share(100, 0, 0, 100);
    run_share(101, 0, 1, 600);
    uint32_t gpu = 9;
    CHECK_EQ_INT(place1("dotprod:k8s", share(1, 300, 0), &gpu, NULL), 1);
    CHECK_EQ_INT(gpu, 0);
    CHECK_EQ_INT(place1("dotprod", share(1, 300, 0), &gpu, NULL), 0);
    CHECK_EQ_INT(gpu, 1);
    run_share(102, 1, 0, 900);
    CHECK_EQ_INT(place1("dotprod:k8s", share(1, 300, 0), &gpu, NULL), 0);
    CHECK_EQ_INT(gpu, 1);
    pv_fini(&H);
    /* arguments */
    size_t nf;
    const place_fit *const *fits = place_fit_list(&nf);
    const place_fit *f = NULL;
    for (size_t k = 0; k < nf; k++)
        if (strcmp(fits[k]->name, "dotprod") == 0)
            f = fits[k];
    CHECK(f != NULL);
    if (f) {
        place_env env = pv_env();
        void *st = NULL;
        char err[200];
        CHECK_EQ_INT(f->create(&env, "k9s", &st, err, sizeof err), PLACE_ERR_SPEC);
        CHECK(strstr(err, "k9s") != NULL);
    }
}

static void test_gpu_packing(void)
{
    /* node 0: 8 GPUs idle; node 1: 4 GPUs idle; node 2: 8 GPUs, 2 taken;
     * node 3: 2 GPUs, GPU 0 with a 300 share (700 free), GPU 1 free.
     * A 0.5 share: class 0, the partly used GPU: node 3 GPU 0.
     * A 2-GPU job: class 1 (a busy node): node 2, not the idle ones.
     * With node 2 full: class 1 is node 3 (GPU 1 only: 1 whole GPU, too few
     * for 2), so class 2: the smaller idle node, node 1 (4 GPUs). */
    uint32_t g[4] = {8, 4, 8, 2};
    pv_init(&H, 1, NULL, NULL, g, 4);
    pv_running_whole(&H, 100, 2, 2, -1);
    run_share(101, 3, 0, 300);
    uint32_t gpu = 9;
    CHECK_EQ_INT(place1("gpu-packing", share(1, 500, 0), &gpu, NULL), 3);
    CHECK_EQ_INT(gpu, 0);
    CHECK_EQ_INT(place1("gpu-packing", pv_job(2, 2), NULL, NULL), 2);
    pv_running_whole(&H, 102, 2, 6, -1);
    CHECK_EQ_INT(place1("gpu-packing", pv_job(2, 2), NULL, NULL), 1);
    /* a 0.8 share does not fit GPU 0 of node 3 (700 free): class 1, a fully
     * free GPU of a busy node: node 3 GPU 1 */
    CHECK_EQ_INT(place1("gpu-packing", share(3, 800, 0), &gpu, NULL), 3);
    CHECK_EQ_INT(gpu, 1);
    pv_fini(&H);
}

static void test_gpu_clustering(void)
{
    /* four 2-GPU nodes. node 0 runs a 500 share; node 1 runs a 300 share and a
     * 500 share; node 2 runs nothing; node 3 runs a whole-GPU job.
     * A 500 share: class 0 (only 500s): node 0, on its free GPU 1 (GPU 0 has
     * 500 left too: best fill is GPU 0, 500 - 500 = 0 left). With node 0
     * full: class 1, node 1. A whole-GPU job: class 0 is node 3 (whole GPUs
     * only). A 300 share: class 1 (node 1 runs 300 and 500) beats idle node 2. */
    uint32_t g[4] = {2, 2, 2, 2};
    pv_init(&H, 1, NULL, NULL, g, 4);
    run_share(100, 0, 0, 500);
    run_share(101, 1, 0, 300);
    run_share(102, 1, 1, 500);
    pv_running_whole(&H, 103, 3, 1, -1);
    uint32_t gpu = 9;
    CHECK_EQ_INT(place1("gpu-clustering", share(1, 500, 0), &gpu, NULL), 0);
    CHECK_EQ_INT(gpu, 0);
    CHECK_EQ_INT(place1("gpu-clustering", pv_job(2, 1), NULL, NULL), 3);
    CHECK_EQ_INT(place1("gpu-clustering", share(3, 300, 0), &gpu, NULL), 1);
    CHECK_EQ_INT(gpu, 1); /* 400 left on GPU 0 vs 200 on GPU 1: GPU 1 fills best */
    pv_fini(&H);
}

/* a deterministic random source for the random fit */
static uint64_t fixed_rand(void *ud)
{
    (void)ud;
    return fixed_value;
}
static uint64_t splitmix(void *ud)
{
    (void)ud;
    uint64_t z = (sm_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* One decision of `placement` over H's queue with the random source fn. */
static uint32_t pick_with(const char *placement, place_rand_fn fn)
{
    place_env env = {place_alloc_libc, NULL, fn, NULL};
    place_instance pi;
    CHECK_EQ_INT(place_instance_init(&pi, &env, placement, NULL, 0), PLACE_OK);
    place_view v = pv_view(&H);
    place_part parts[4];
    place_decision d = {0, PLACE_NONE, 0, 4, parts};
    H.qstate[0] = PLACE_Q_WAITING;
    pi.policy->begin(pi.state, &v);
    int rc = pi.policy->decide(pi.state, &v, &d);
    place_instance_fini(&pi);
    return rc == PLACE_OK ? parts[0].node : PLACE_NONE;
}

/* Over seeds 1..n: placement (a k8s mode) puts H's queued job on the node
 * mirror_first ranks first among cands (a tie broken by the instance's node
 * ranks). */
static void check_rank_ties(const char *placement, const uint32_t *cands, uint32_t n_c, int line)
{
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint32_t want = mirror_first(seed, H.c.n_nodes, cands, n_c);
        sm_state = seed;
        uint32_t n = pick_with(placement, splitmix);
        if (n != want) {
            check_fail(__FILE__, line, "%s, seed %llu: node %u, want %u", placement,
                       (unsigned long long)seed, n, want);
            return;
        }
    }
}

/* The k8s modes of the packing fits: the reference simulator's scores, its
 * GPU choice, CPU-only pods scored like any other, ties by node rank. */
static void test_k8s_modes(void)
{
    /* A CPU-only pod (1 core) on nodes of 8, 2 and 2 free GPUs, 64 cores
     * each. tarmac's rules place it first-fit (node 0). The reference scores
     * it:
     *  best-fit:k8s: s = 1/2 (63/64) + 1/2 (G free / 8000): node 0 s = 0.992
     *    -> 0; nodes 1, 2 s = 0.617 -> 38, a tie: the first ranked of {1, 2};
     *  dotprod:k8s: dot = (64000/64000)(1000/64000) on every node: a tie of
     *    all three; gpu-packing:k8s and gpu-clustering:k8s: 0 everywhere;
     *  fgd:k8s with typical pods {1 GPU}: nothing changes for them, gradient
     *    0, score 50 everywhere. All: the first ranked of {0, 1, 2}. */
    uint32_t g[3] = {8, 2, 2};
    pv_init(&H, 1, NULL, NULL, g, 3);
    place_job cpu = pv_job(1, 0);
    cpu.cpu_milli = 1000;
    H.n_queue = 0;
    pv_queue(&H, cpu);
    uint32_t all[3] = {0, 1, 2}, small[2] = {1, 2};
    CHECK_EQ_INT(pick_with("placement=best-fit", splitmix), 0);
    CHECK_EQ_INT(pick_with("placement=gpu-packing", splitmix), 0);
    CHECK_EQ_INT(pick_with("placement=gpu-clustering", splitmix), 0);
    CHECK_EQ_INT(pick_with("placement=dotprod", splitmix), 0);
    check_rank_ties("placement=best-fit:k8s", small, 2, __LINE__);
    check_rank_ties("placement=dotprod:k8s", all, 3, __LINE__);
    check_rank_ties("placement=gpu-packing:k8s", all, 3, __LINE__);
    check_rank_ties("placement=gpu-clustering:k8s", all, 3, __LINE__);
    check_rank_ties("placement=fgd:k8s:1@1", all, 3, __LINE__);
    pv_fini(&H);

    /* gpu-packing:k8s (gpu_packing_score.go). Nodes of 2 GPUs: node 0 runs
     * a whole GPU, node 1 a 0.5 share on GPU 0, node 2 nothing.
     *  1 GPU: node 0 takes its fully free GPU 1: 50 - 1 = 49; node 1 too
     *    (the 500 left cannot hold it): 49; node 2 idle, F = 2:
     *    max(33 - 2, 2) = 31. Tie of {0, 1} (tarmac's rule: node 0).
     *  a 0.3 share: node 1's GPU 0 holds it: 100 - (500 x 100 / 1000) / 10
     *    = 95; node 0 must take a free GPU: 49: node 1, GPU 0. */
    uint32_t g2[3] = {2, 2, 2};
    pv_init(&H, 1, NULL, NULL, g2, 3);
    pv_running_whole(&H, 100, 0, 1, -1);
    run_share(101, 1, 0, 500);
    H.n_queue = 0;
    pv_queue(&H, pv_job(1, 1));
    uint32_t busy[2] = {0, 1};
    CHECK_EQ_INT(pick_with("placement=gpu-packing", splitmix), 0);
    check_rank_ties("placement=gpu-packing:k8s", busy, 2, __LINE__);
    uint32_t gpu = 9;
    CHECK_EQ_INT(place1("gpu-packing:k8s", share(1, 300, 0), &gpu, NULL), 1);
    CHECK_EQ_INT(gpu, 0);
    pv_fini(&H);
    /* Shares on used GPUs score in steps of 100 milli: one-GPU nodes with 600
     * (node 0) and 650 (node 1) left: (60 or 65) / 10 = 6: both 94, a tie;
     * tarmac's rule takes the fuller, node 0. */
    uint32_t g3[2] = {1, 1};
    pv_init(&H, 1, NULL, NULL, g3, 2);
    run_share(100, 0, 0, 400);
    run_share(101, 1, 0, 350);
    H.n_queue = 0;
    pv_queue(&H, share(1, 300, 0));
    uint32_t both[2] = {0, 1};
    CHECK_EQ_INT(pick_with("placement=gpu-packing", splitmix), 0);
    check_rank_ties("placement=gpu-packing:k8s", both, 2, __LINE__);
    pv_fini(&H);

    /* gpu-clustering:k8s (gpu_clustering_score.go): every share has the one
     * affinity "share-gpu". One-GPU nodes: node 0 runs a 0.2 share (800
     * left), node 1 a 0.5 share (500 left), node 2 nothing. A 0.3 share:
     * tarmac's rule keys by the share (300): nodes 0, 1 run only others
     * (class 3), node 2 is idle (class 2): node 2. The reference: nodes 0
     * and 1 run only its affinity: 25 (1000 - 800) / 1000 + 75 = 80 and
     * 25 x 500 / 1000 + 75 = 87; node 2: 25 x 0 + 25 = 25: node 1. */
    uint32_t g4[3] = {1, 1, 1};
    pv_init(&H, 1, NULL, NULL, g4, 3);
    run_share(100, 0, 0, 200);
    run_share(101, 1, 0, 500);
    CHECK_EQ_INT(place1("gpu-clustering", share(1, 300, 0), NULL, NULL), 2);
    CHECK_EQ_INT(place1("gpu-clustering:k8s", share(1, 300, 0), NULL, NULL), 1);
    pv_fini(&H);

    /* fgd:k8s scores int(100 sigmoid((F before - F after) / 1000)), the
     * popularities summing to 1 (fgd_score.go). Typical pods {0.36 x 1,
     * 0.01 x 99}: popularities 0.01 and 0.99. One-GPU nodes: node 0 fully
     * free, node 1 with 300 left. A 0.3 share:
     *  node 0: 1000 -> 700, usable by both pods before and after: F 0 -> 0,
     *    gradient 0, score int(50) = 50;
     *  node 1: 300 is below 0.36: F = 0.01 x 300 = 3 before, 0 after (nothing
     *    left): gradient -3, score int(100 sigmoid(0.003)) = int(50.07) = 50.
     * The exact rule takes node 1 (-3 < 0); the reference's integer scores
     * tie, and the tie goes by rank. */
    uint32_t g5[2] = {1, 1};
    pv_init(&H, 1, NULL, NULL, g5, 2);
    run_share(100, 1, 0, 700);
    H.n_queue = 0;
    pv_queue(&H, share(1, 300, 0));
    CHECK_EQ_INT(pick_with("placement=fgd:0.36@1,0.01@99", splitmix), 1);
    check_rank_ties("placement=fgd:k8s:0.36@1,0.01@99", both, 2, __LINE__);
    pv_fini(&H);
}

static uint32_t random_pick(place_rand_fn fn)
{
    return pick_with("placement=random", fn);
}

static void test_random(void)
{
    /* five 4-GPU nodes; node 2 full: candidates for 2 GPUs are 0, 1, 3, 4 */
    uint32_t g[5] = {4, 4, 4, 4, 4};
    pv_init(&H, 1, NULL, NULL, g, 5);
    pv_running_whole(&H, 100, 2, 4, -1);
    H.n_queue = 0;
    pv_queue(&H, pv_job(1, 2));
    /* x = 0 draws the first candidate, x = 2^64 - 1 the last; no rand: the first */
    fixed_value = 0;
    CHECK_EQ_INT(random_pick(fixed_rand), 0);
    fixed_value = UINT64_MAX;
    CHECK_EQ_INT(random_pick(fixed_rand), 4);
    fixed_value = 1ull << 63; /* half way: the third candidate, node 3 */
    CHECK_EQ_INT(random_pick(fixed_rand), 3);
    CHECK_EQ_INT(random_pick(NULL), 0);
    /* uniform: 8000 draws over 4 candidates, each within 5 sigma of 2000 */
    uint64_t seed = check_seed(42);
    sm_state = seed;
    uint32_t count[5] = {0};
    for (int k = 0; k < 8000; k++) {
        uint32_t n = random_pick(splitmix);
        if (n < 5)
            count[n]++;
    }
    double sigma = sqrt(8000 * 0.25 * 0.75);
    CHECK_EQ_INT(count[2], 0);
    for (int n = 0; n < 5; n++)
        if (n != 2)
            CHECK_NEAR(count[n], 2000, 5 * sigma);
    pv_fini(&H);
}

/* FGD against a brute force written from the paper's definitions: for every
 * candidate (node, GPU), copy the node, apply the job, compute F_n(M) before
 * and after pod by pod and GPU by GPU; the chosen candidate must have the
 * smallest increase (ties: lowest node, then GPU). Random fragmented states. */
typedef struct bf_pod {
    uint32_t gpus, milli;
    int64_t w;
} bf_pod;

static int64_t bf_frag(const uint32_t *milli, uint32_t ng, const bf_pod *m, uint32_t nm)
{
    int64_t total = 0, f = 0;
    for (uint32_t g = 0; g < ng; g++)
        total += milli[g];
    for (uint32_t k = 0; k < nm; k++) {
        uint32_t usable = 0;
        int64_t frag = 0;
        for (uint32_t g = 0; g < ng; g++) {
            if (milli[g] >= m[k].milli)
                usable++;
            else
                frag += milli[g];
        }
        f += m[k].w * (usable >= m[k].gpus ? frag : total);
    }
    return f;
}

static void test_fgd_brute_force(void)
{
    uint64_t seed = check_seed(31);
    sm_state = seed;
    const bf_pod pods[5] = {
        {1, 250, 1000}, {1, 500, 2000}, {1, 1000, 3000}, {2, 1000, 1000}, {4, 1000, 1000}};
    const char *spec = "fgd:0.25@1,0.5@2,1@3,2@1,4@1";
    for (int round = 0; round < 200 && !check_failures; round++) {
        uint32_t g[6];
        for (int k = 0; k < 6; k++)
            g[k] = 2 + (uint32_t)(splitmix(NULL) % 4) * 2;
        pv_init(&H, 1, NULL, NULL, g, 6);
        uint64_t id = 1000;
        /* each GPU: free, held whole, or holding a 0.25 or 0.5 share */
        for (uint32_t n = 0; n < 6; n++)
            for (uint32_t q = 0; q < g[n]; q++) {
                uint64_t r = splitmix(NULL) % 6;
                if (r < 2)
                    continue;
                if (r < 4) {
                    place_part p = {n, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 1ull << q};
                    pv_running(&H, pv_job(id++, 1), &p, 1, 0, -1, 0);
                } else {
                    run_share(id++, n, q, r == 4 ? 250 : 500);
                }
            }
        int share_job = splitmix(NULL) % 2 == 0;
        place_job j = share_job ? share(1, splitmix(NULL) % 2 ? 250 : 500, 0)
                                : pv_job(1, 1 + (uint32_t)(splitmix(NULL) % 2));
        /* brute force */
        int64_t best = 0;
        uint32_t bn = PLACE_NONE, bg = 0;
        for (uint32_t n = 0; n < 6; n++) {
            uint32_t m[64], ng = H.c.node_gpus[n], g0 = H.c.node_gpu0[n];
            for (uint32_t x = 0; x < ng; x++)
                m[x] = H.c.gpu_free_milli[g0 + x];
            int64_t f0 = bf_frag(m, ng, pods, 5);
            for (uint32_t x = 0; x < ng; x++) {
                uint32_t a[64];
                memcpy(a, m, ng * sizeof *a);
                if (share_job) {
                    if (m[x] < j.gpu_milli)
                        continue;
                    a[x] -= j.gpu_milli;
                } else {
                    if (x > 0)
                        break; /* a gang: one candidate per node */
                    uint32_t left = j.gpus;
                    for (uint32_t y = 0; y < ng && left; y++)
                        if (a[y] == PLACE_MILLI_WHOLE) {
                            a[y] = 0;
                            left--;
                        }
                    if (left)
                        continue;
                }
                int64_t dlt = bf_frag(a, ng, pods, 5) - f0;
                if (bn == PLACE_NONE || dlt < best) {
                    best = dlt;
                    bn = n;
                    bg = x;
                }
            }
        }
        uint32_t gpu = 99, got = place1(spec, j, &gpu, NULL);
        if (got != bn || (share_job && bn != PLACE_NONE && gpu != bg))
            check_fail(__FILE__, __LINE__,
                       "round %d: fgd chose node %u GPU %u, brute force node %u GPU %u (seed %llu)",
                       round, got, gpu, bn, bg, (unsigned long long)seed);
        pv_fini(&H);
    }
}

/* Every fit, on a random cluster: whatever it answers is a valid placement,
 * and it answers whenever first-fit does (same feasibility). */
static void test_all_fits_valid(void)
{
    uint64_t seed = check_seed(7);
    sm_state = seed;
    size_t nf;
    const place_fit *const *fits = place_fit_list(&nf);
    CHECK(nf >= 11);
    for (int round = 0; round < 40; round++) {
        uint32_t g[12];
        for (int k = 0; k < 12; k++)
            g[k] = 1u + (uint32_t)(splitmix(NULL) % 8);
        pv_init(&H, 1, NULL, NULL, g, 12);
        for (uint32_t n = 0; n < 12; n++) {
            uint32_t used = (uint32_t)(splitmix(NULL) % (g[n] + 1));
            if (used)
                pv_running_whole(&H, 1000 + n, n, used, -1);
        }
        place_job j = pv_job(1, 1 + (uint32_t)(splitmix(NULL) % 4));
        if (splitmix(NULL) % 3 == 0) {
            j = share(1, 100 + (uint32_t)(splitmix(NULL) % 900), 0);
        }
        uint32_t ff = place1("first-fit", j, NULL, NULL);
        for (size_t k = 0; k < nf; k++) {
            const char *name = fits[k]->name;
            char spec[64];
            snprintf(spec, sizeof spec, "%s", name);
            uint32_t got = place1(spec, j, NULL, NULL);
            if ((got == PLACE_NONE) != (ff == PLACE_NONE))
                check_fail(__FILE__, __LINE__, "%s: placed %s where first-fit %s (seed %llu)", name,
                           got == PLACE_NONE ? "nothing" : "a job",
                           ff == PLACE_NONE ? "did not" : "did", (unsigned long long)seed);
        }
        pv_fini(&H);
    }
}

int main(void)
{
    test_worst();
    test_topology();
    test_hetero();
    test_fgd();
    test_dotprod();
    test_dotprod_k8s();
    test_k8s_modes();
    test_gpu_packing();
    test_gpu_clustering();
    test_random();
    test_fgd_brute_force();
    test_all_fits_valid();
    return check_finish("test_place_fits");
}
