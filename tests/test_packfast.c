/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_packfast.c — FGD's answers from its trees against FGD's scan.
 *
 * policies/fit_fgd.c ("Best node without a scan") answers a decision without
 * a veto from per-shape trees over each GPU type's nodes, brought up to date
 * from the cluster's change journal (place.h). "placement=fgd:scan" visits
 * every candidate instead (the code tests/test_fgd_cache.c checks against
 * the algorithm from before the caches). Two instances, "fgd:ARGS" and
 * "fgd:scan:ARGS", see the same worlds decision after decision and must
 * answer the same: status and parts.
 *
 * The worlds aim at what the trees depend on: 20 to 300 nodes of four
 * kinds (many alike, as in the openb lists), most decisions without a veto, bursts of more changes
 * than the journal remembers (PLACE_CHANGE_RING) and long runs of changes between two uses of a
 * shape (the log outgrows 4 x nodes), more job shapes than FGD keeps (256), nodes and GPUs leaving
 * service and coming back, k8s mode, and worlds that reuse the instances on a new cluster at the
 * same address. Reproduce a failure with TARMAC_TEST_SEED=<seed printed>.
 *
 *     test_packfast          the differential test (unit)
 *     test_packfast openb    openb_pod_list_default packed (sim/studies/pack.c)
 *                            by "fgd" and "fgd:scan", "fgd:k8s" and
 *                            "fgd:scan:k8s", two seeds: the curves must be
 *                            equal, double for double (integration, needs
 *                            TARMAC_DATA_DIR)
 */
#include "check.h"
#include "place.h"
#include "sim.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sm;

static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(mix64(&sm) % n);
}

static uint32_t pick(const uint32_t *v, uint32_t n)
{
    return v[below(n)];
}

static uint64_t stream_rand(void *ud)
{
    return mix64((uint64_t *)ud);
}

/* A veto that is a pure function of the part (both instances agree). */
static int veto_allow(void *ud, const place_view *v, const place_job *j, const place_part *p)
{
    (void)v;
    uint64_t h =
        *(const uint64_t *)ud ^ ((uint64_t)p->node << 32 ^ (uint64_t)p->gpu << 16 ^ j->id << 40);
    return mix64(&h) % 4 != 0;
}

typedef struct inst {
    void *state;
    uint64_t rs, salt;
    place_env env;
    place_fit_ctx ctx;
} inst;

static const place_fit *FGD;

static int inst_init(inst *x, const char *args, uint64_t seed, uint64_t salt)
{
    memset(x, 0, sizeof *x);
    x->rs = seed;
    x->salt = salt;
    x->env = (place_env){place_alloc_libc, NULL, stream_rand, &x->rs};
    x->ctx = (place_fit_ctx){&x->env, veto_allow, &x->salt};
    char err[256];
    int rc = FGD->create(&x->env, args, &x->state, err, sizeof err);
    if (rc != PLACE_OK)
        check_fail(__FILE__, __LINE__, "fgd '%s': %s", args, err);
    return rc;
}

static void inst_fini(inst *x)
{
    if (x->state)
        FGD->destroy(x->state);
    x->state = NULL;
}

#define W_NODES 300
#define W_RUN   4096
#define W_PARTS 40

typedef struct world {
    place_cluster c;
    uint32_t n_types;
    place_job job;
    uint8_t qstate;
    place_running run[W_RUN];
    place_part run_parts[W_RUN][W_PARTS];
    uint32_t n_run;
    int wide; /* jobs' host needs drawn from a wide range: many shapes */
} world;

static world Wd;
static uint64_t next_id = 1;

static place_job rand_job(const world *wd)
{
    static const uint32_t milli[] = {100, 200, 250, 300, 500, 500, 700, 900};
    static const uint32_t gangs[] = {1, 1, 1, 2, 2, 4, 8};
    static const uint32_t cpu[] = {0, 0, 1000, 4000, 16000};
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = next_id++;
    j.estimate_us = -1;
    j.deadline_us = -1;
    uint32_t r = below(100);
    if (r < 6) {
        j.gpus = 0;
        j.gpu_milli = PLACE_MILLI_WHOLE;
    } else if (r < 60) {
        j.gpus = 1;
        j.gpu_milli = below(10) == 0 ? 1 + below(999) : pick(milli, 8);
    } else {
        j.gpus = pick(gangs, 7);
        j.gpu_milli = PLACE_MILLI_WHOLE;
        if (below(10) == 0) {
            j.flags |= PLACE_JOB_CAN_SPAN;
            j.gpus += below(12);
        }
    }
    if (j.gpus > 0 && below(6) == 0)
        j.gpu_mem_mib = below(2) ? 8192 : 30000;
    j.cpu_milli = wd->wide ? 500 * below(200) : pick(cpu, 5);
    j.host_mem_mib = below(3) == 0 ? 1024 * below(wd->wide ? 64 : 4) : 0;
    if (j.gpus > 0 && below(6) == 0)
        j.type_mask = 1 + below((1u << wd->n_types) - 1);
    return j;
}

static void world_init(world *wd)
{
    static const uint32_t tmem[] = {16384, 24576, 32768, 81920};
    static const uint32_t gpus[] = {0, 1, 2, 4, 4, 8, 8, 8};
    static const int64_t cpu[] = {32000, 96000, 128000};
    static const int64_t mem[] = {65536, 262144};
    place_cluster_fini(&wd->c);
    memset(wd, 0, sizeof *wd);
    wd->n_types = 1 + below(3);
    wd->wide = below(3) == 0;
    uint32_t m[PLACE_MAX_TYPES];
    for (uint32_t t = 0; t < wd->n_types; t++)
        m[t] = pick(tmem, 4);
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    CHECK_EQ_INT(place_cluster_init(&wd->c, &env, wd->n_types, m), PLACE_OK);
    /* few node kinds, so that many nodes are alike, as in the openb lists */
    uint32_t n_nodes = 20 + below(W_NODES - 19);
    for (uint32_t i = 0; i < n_nodes; i++) {
        uint32_t node, k = below(4);
        CHECK_EQ_INT(place_cluster_add_node(&wd->c, k % wd->n_types, gpus[(k * 3 + 1) % 8],
                                            cpu[k % 3], mem[k % 2], &node),
                     PLACE_OK);
        CHECK_EQ_INT(place_cluster_set_node_up(&wd->c, node, below(20) != 0), PLACE_OK);
    }
}

static void world_leave(world *wd, uint32_t k)
{
    place_running *r = &wd->run[k];
    place_cluster_give(&wd->c, &r->job, r->parts, r->n_parts);
    uint32_t last = --wd->n_run;
    if (k != last) {
        wd->run[k] = wd->run[last];
        memcpy(wd->run_parts[k], wd->run_parts[last], sizeof wd->run_parts[k]);
    }
    wd->run[k].parts = wd->run_parts[k];
}

typedef struct tally {
    uint64_t decisions, placed, no_veto, shares, gangs, cpu_only, spans, k8s, overflows, long_gaps,
        many_shapes, reused;
} tally;

static int same(int ra, int rb, const place_decision *a, const place_decision *b)
{
    if (ra != rb)
        return 0;
    if (ra != PLACE_OK)
        return 1;
    if (a->n_parts != b->n_parts)
        return 0;
    for (uint32_t k = 0; k < a->n_parts; k++) {
        const place_part *p = &a->parts[k], *q = &b->parts[k];
        if (p->node != q->node || p->gpus != q->gpus || p->gpu != q->gpu || p->milli != q->milli ||
            p->mem_mib != q->mem_mib)
            return 0;
    }
    return 1;
}

/* One decision by both (a: trees, b: scan); the answer applied. 0 when they
 * differ. */
static int decide(world *wd, inst *a, inst *b, int with_veto, int begin, tally *t, int round,
                  int step, const char *args)
{
    place_view v = {0, &wd->c, &wd->job, &wd->qstate, 1, wd->run, wd->n_run, NULL, NULL, 0};
    const place_job *j = &wd->job;
    wd->qstate = PLACE_Q_WAITING;
    if (begin) {
        int ba = FGD->begin(a->state, &v), bb = FGD->begin(b->state, &v);
        if (ba != PLACE_OK || bb != PLACE_OK) {
            check_fail(__FILE__, __LINE__, "round %d: begin %d / %d", round, ba, bb);
            return 0;
        }
    }
    place_part pa[W_PARTS], pb[W_PARTS];
    memset(pa, 0, sizeof pa);
    memset(pb, 0, sizeof pb);
    place_decision da = {PLACE_START, 0, 0, W_PARTS, pa};
    place_decision db = {PLACE_START, 0, 0, W_PARTS, pb};
    int ra = FGD->fit(a->state, &v, j, &da, with_veto ? &a->ctx : NULL);
    int rb = FGD->fit(b->state, &v, j, &db, with_veto ? &b->ctx : NULL);
    t->decisions++;
    t->no_veto += !with_veto;
    if (!same(ra, rb, &da, &db)) {
        check_fail(__FILE__, __LINE__,
                   "round %d step %d, placement=fgd:%s%s: job %u GPUs x %u milli, GPU mem %u, "
                   "CPU %lld, mem %lld, types %llx: trees %d node %u gpu %u, scan %d node %u "
                   "gpu %u",
                   round, step, args, with_veto ? " with a veto" : "", j->gpus, j->gpu_milli,
                   j->gpu_mem_mib, (long long)j->cpu_milli, (long long)j->host_mem_mib,
                   (unsigned long long)j->type_mask, ra, pa[0].node, pa[0].gpu, rb, pb[0].node,
                   pb[0].gpu);
        return 0;
    }
    if (ra != PLACE_OK)
        return 1;
    t->placed++;
    t->shares += j->gpus == 1 && j->gpu_milli < PLACE_MILLI_WHOLE;
    t->gangs += j->gpus > 0 && j->gpu_milli == PLACE_MILLI_WHOLE;
    t->cpu_only += j->gpus == 0;
    t->spans += da.n_parts > 1;
    if (wd->n_run == W_RUN)
        world_leave(wd, below(W_RUN));
    uint32_t i = wd->n_run;
    memcpy(wd->run_parts[i], pa, da.n_parts * sizeof *pa);
    int rc = place_cluster_take(&wd->c, j, wd->run_parts[i], da.n_parts);
    if (rc != PLACE_OK) {
        check_fail(__FILE__, __LINE__, "round %d step %d: the decision does not take: %d", round,
                   step, rc);
        return 0;
    }
    place_running *r = &wd->run[i];
    memset(r, 0, sizeof *r);
    r->job = *j;
    r->end_estimate_us = -1;
    r->lost_gpu_s = -1;
    r->parts = wd->run_parts[i];
    r->n_parts = da.n_parts;
    wd->n_run++;
    return 1;
}

/* Place jobs with the scan instance's answer only (the trees' instance does
 * not see them): the cluster changes behind the trees' back. */
static void burst(world *wd, inst *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (wd->n_run > 0 && below(2) == 0) {
            world_leave(wd, below(wd->n_run));
            continue;
        }
        wd->job = rand_job(wd);
        place_view v = {0, &wd->c, &wd->job, &wd->qstate, 1, wd->run, wd->n_run, NULL, NULL, 0};
        place_part p[W_PARTS];
        place_decision d = {PLACE_START, 0, 0, W_PARTS, p};
        if (wd->n_run == W_RUN || FGD->fit(b->state, &v, &wd->job, &d, NULL) != PLACE_OK)
            continue;
        uint32_t k = wd->n_run;
        memcpy(wd->run_parts[k], p, d.n_parts * sizeof *p);
        if (place_cluster_take(&wd->c, &wd->job, wd->run_parts[k], d.n_parts) != PLACE_OK)
            continue;
        place_running *r = &wd->run[k];
        memset(r, 0, sizeof *r);
        r->job = wd->job;
        r->end_estimate_us = -1;
        r->lost_gpu_s = -1;
        r->parts = wd->run_parts[k];
        r->n_parts = d.n_parts;
        wd->n_run++;
    }
}

static void test_differential(void)
{
    uint64_t seed = check_seed(20261203);
    sm = seed;
    tally t;
    memset(&t, 0, sizeof t);
    FGD = place_fit_find("fgd");
    CHECK(FGD != NULL);
    if (!FGD)
        return;
    static const char *modes[] = {"0.25@30,0.5@20,1@40,2/8@5,8@10", "k8s:0.5@30,1@50,4@20",
                                  "top=12", "k8s", "0.1^1@3,0.7@4,1^2@2,4@1,0@1"};
    inst a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    char args[128] = "", scan[160];
    int have = 0;
    for (int round = 0; round < 40 && !check_failures; round++) {
        world_init(&Wd);
        if (!have || below(3) != 0) {
            inst_fini(&a);
            inst_fini(&b);
            snprintf(args, sizeof args, "%s", modes[below(5)]);
            snprintf(scan, sizeof scan, "scan:%s", args);
            uint64_t rs = mix64(&sm), salt = mix64(&sm);
            if (inst_init(&a, args, rs, salt) || inst_init(&b, scan, rs, salt))
                break;
            have = 1;
        } else {
            t.reused++;
        }
        t.k8s += strncmp(args, "k8s", 3) == 0;
        t.many_shapes += (uint64_t)(Wd.wide != 0);
        int ok = 1;
        for (int step = 0; step < 600 && ok; step++) {
            uint32_t r = below(1000);
            if (r < 600) {
                Wd.job = rand_job(&Wd);
                ok = decide(&Wd, &a, &b, below(8) == 0, (int)below(2), &t, round, step, args);
            } else if (r < 850) {
                if (Wd.n_run)
                    world_leave(&Wd, below(Wd.n_run));
            } else if (r < 900) {
                uint32_t n = below(Wd.c.n_nodes);
                CHECK_EQ_INT(place_cluster_set_node_up(&Wd.c, n, !Wd.c.node_up[n]), PLACE_OK);
            } else if (r < 950) {
                uint32_t n = below(Wd.c.n_nodes), ng = Wd.c.node_gpus[n];
                if (ng) {
                    uint32_t g = below(ng);
                    CHECK_EQ_INT(
                        place_cluster_set_gpu_up(&Wd.c, n, g, !Wd.c.gpu_up[Wd.c.node_gpu0[n] + g]),
                        PLACE_OK);
                }
            } else if (r < 990) {
                /* a run of changes: past the log's 4 x nodes, or the journal */
                uint64_t before = Wd.c.changes;
                burst(&Wd, &b, below(2) ? 4 * Wd.c.n_nodes + 1100 : 50 + below(500));
                if (Wd.c.changes - before > PLACE_CHANGE_RING)
                    t.overflows++;
                if (Wd.c.changes - before > 4ull * Wd.c.n_nodes + 1024)
                    t.long_gaps++;
            } else {
                for (uint32_t n = 0; n < Wd.c.n_nodes; n++) /* a wave of failures */
                    if (below(10) == 0)
                        CHECK_EQ_INT(place_cluster_set_node_up(&Wd.c, n, !Wd.c.node_up[n]),
                                     PLACE_OK);
            }
        }
        if (place_cluster_verify(&Wd.c) != PLACE_OK)
            check_fail(__FILE__, __LINE__, "round %d: cluster invariants broken", round);
    }
    inst_fini(&a);
    inst_fini(&b);
    place_cluster_fini(&Wd.c);
    printf("differential: %llu decisions (%llu without a veto; %llu placed: %llu shares, %llu "
           "gangs, %llu CPU-only, %llu spanning), %llu k8s worlds, %llu wide-shape worlds, %llu "
           "with instances reused, %llu journal overflows, %llu log overruns (seed %llu)\n",
           (unsigned long long)t.decisions, (unsigned long long)t.no_veto,
           (unsigned long long)t.placed, (unsigned long long)t.shares, (unsigned long long)t.gangs,
           (unsigned long long)t.cpu_only, (unsigned long long)t.spans, (unsigned long long)t.k8s,
           (unsigned long long)t.many_shapes, (unsigned long long)t.reused,
           (unsigned long long)t.overflows, (unsigned long long)t.long_gaps,
           (unsigned long long)seed);
    CHECK(t.decisions > 10000 && t.no_veto > 8000);
    CHECK(t.shares > 1000 && t.gangs > 1000 && t.cpu_only > 100 && t.spans > 0);
    CHECK(t.k8s > 0 && t.many_shapes > 0 && t.reused > 0 && t.overflows > 0 && t.long_gaps > 0);
}

/* ==== openb_pod_list_default, packed ====================================== */

static int test_openb(void)
{
    const char *dir = check_data_dir();
    if (!dir)
        return check_skip("TARMAC_DATA_DIR is not a folder: the openb packing check did not run");
    char nodes[1024], list[1024];
    snprintf(nodes, sizeof nodes, "%s/alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv", dir);
    snprintf(list, sizeof list, "%s/alibaba-gpu-v2023-openb/openb_pod_list_default.csv", dir);
    FILE *probe = fopen(list, "r");
    if (!probe)
        return check_skip("openb_pod_list_default.csv not found under TARMAC_DATA_DIR");
    fclose(probe);
    tm_diag d;
    sim_scenario sc;
    trace_node_source ns;
    CHECK_EQ_INT(sim_scenario_init_replay(&sc, "packfast", &d), TM_OK);
    int rc = trace_openb_nodes_open(&ns, nodes, NULL, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        sim_scenario_fini(&sc);
        return 1;
    }
    rc = sim_scenario_add_nodes(&sc, &ns, NULL, &d);
    ns.close(ns.ud);
    CHECK_EQ_INT(rc, TM_OK);
    const char *names[PLACE_MAX_TYPES];
    trace_read_opts opt;
    trace_read_opts_init(&opt);
    opt.n_types = sim_scenario_type_names(&sc, names);
    opt.type_names = names;
    opt.any_order = 1;
    trace_source s;
    size_t n = 0, cap = 16384;
    trace_job *pods = NULL;
    if (rc == TM_OK && trace_openb_pods_open(&s, list, &opt, &d) == TM_OK) {
        pods = malloc(cap * sizeof *pods);
        while (pods && s.next(s.ud, &pods[n], &d) == TM_OK)
            if (++n == cap) {
                trace_job *q = realloc(pods, (cap *= 2) * sizeof *pods);
                if (!q)
                    break;
                pods = q;
            }
        s.close(s.ud);
    }
    CHECK_EQ_U64(n, 8152);
    const char *pol[] = {"order=fifo placement=fgd backfill=none",
                         "order=fifo placement=fgd:scan backfill=none",
                         "order=fifo placement=fgd:k8s backfill=none",
                         "order=fifo placement=fgd:scan:k8s backfill=none"};
    sim_pack_cfg cfg = {130, 1, 1, 2, pol, 4, 0};
    sim_pack_result r;
    rc = pods ? sim_pack_run(&sc, pods, n, &cfg, &r, &d) : TM_ERR_NOMEM;
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        CHECK_EQ_U64(r.n_points, 131);
        const int metric[4] = {SIM_PACK_ALLOC, SIM_PACK_FRAG, SIM_PACK_FAILED, SIM_PACK_ALLOC};
        size_t differ = 0;
        for (size_t p = 0; p < 4; p += 2)
            for (size_t k = 0; k < 2; k++)
                for (int m = 0; m < 3; m++)
                    for (size_t i = 0; i < r.n_points; i++) {
                        double x = sim_pack_value(&r, p, k, metric[m], i);
                        double y = sim_pack_value(&r, p + 1, k, metric[m], i);
                        if (memcmp(&x, &y, sizeof x) != 0 && differ++ == 0)
                            check_fail(__FILE__, __LINE__,
                                       "%s against %s, seed %zu, metric %d, point %zu: %.17g "
                                       "and %.17g",
                                       pol[p], pol[p + 1], k + 1, metric[m], i, x, y);
                    }
        double alloc = sim_pack_value(&r, 0, 0, SIM_PACK_ALLOC, r.n_points - 1);
        printf("openb: fgd and fgd:scan, fgd:k8s and fgd:scan:k8s, seeds 1 and 2: %zu values "
               "differ (allocation at 130 %%: %.4f)\n",
               differ, alloc);
        CHECK(alloc > 90.0);
        sim_pack_result_fini(&r);
    } else {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    }
    free(pods);
    sim_scenario_fini(&sc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "openb") == 0) {
        int rc = test_openb();
        if (rc)
            return rc;
        return check_finish("test_packfast openb");
    }
    test_differential();
    return check_finish("test_packfast");
}
