/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place.c — the placement core against hand-built clusters, without the
 * engine: the index against a brute-force scan, first-fit and best-fit answers
 * worked out by hand (ties included), shares, gangs that span, host limits,
 * and the pass runner refusing a broken policy's decisions.
 */
#include "check.h"
#include "place.h"
#include "place_int.h" /* the bit-set internals are tested directly */

#include <stdlib.h>
#include <string.h>

static place_env env_libc(void)
{
    place_env e = {place_alloc_libc, NULL, NULL, NULL};
    return e;
}

static place_job whole_job(uint32_t gpus)
{
    place_job j;
    memset(&j, 0, sizeof j);
    j.gpus = gpus;
    j.gpu_milli = PLACE_MILLI_WHOLE;
    j.estimate_us = -1;
    j.deadline_us = -1;
    return j;
}

/* A cluster of n nodes of `gpus` GPUs each, all of type t, all in service. */
static void build(place_cluster *c, uint32_t n_types, const uint32_t *types, const uint32_t *gpus,
                  uint32_t n)
{
    uint32_t mem[4] = {80 * 1024, 48 * 1024, 24 * 1024, 16 * 1024};
    place_env env = env_libc();
    CHECK_EQ_INT(place_cluster_init(c, &env, n_types, mem), PLACE_OK);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t node;
        CHECK_EQ_INT(place_cluster_add_node(c, types[i], gpus[i], 64000, 512 * 1024, &node),
                     PLACE_OK);
        CHECK_EQ_INT(node, i);
        CHECK_EQ_INT(place_cluster_set_node_up(c, node, 1), PLACE_OK);
    }
    CHECK_EQ_INT(place_cluster_verify(c), PLACE_OK);
}

/* Take `k` whole GPUs on node n directly (to shape the free state). */
static void occupy(place_cluster *c, uint32_t n, uint32_t k, place_part *keep)
{
    place_job j = whole_job(k);
    place_part p = {n, (uint16_t)k, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    CHECK_EQ_INT(place_cluster_take(c, &j, &p, 1), PLACE_OK);
    if (keep)
        *keep = p;
}

/* Decide with a fit through the composed policy on a one-job queue: PLACE_OK
 * with the parts, or PLACE_DONE when the job does not fit. */
static int decide_one(place_cluster *c, const char *spec, const place_job *j, place_part *out,
                      uint32_t *n_out)
{
    place_env env = env_libc();
    place_instance pi;
    char err[128];
    int rc = place_instance_init(&pi, &env, spec, err, sizeof err);
    CHECK_EQ_INT(rc, PLACE_OK);
    if (rc)
        return rc;
    uint8_t qs[1] = {PLACE_Q_WAITING};
    place_view v = {0, c, j, qs, 1, NULL, 0, NULL, NULL, 0};
    place_part parts[16];
    place_decision d = {0, PLACE_NONE, 0, 16, parts};
    pi.policy->begin(pi.state, &v);
    rc = pi.policy->decide(pi.state, &v, &d);
    if (rc == PLACE_OK) {
        CHECK_EQ_INT(d.kind, PLACE_START);
        CHECK_EQ_INT(d.index, 0);
        CHECK_EQ_INT(place_cluster_check(c, j, parts, d.n_parts), PLACE_OK);
        memcpy(out, parts, d.n_parts * sizeof *parts);
        *n_out = d.n_parts;
    }
    place_instance_fini(&pi);
    return rc;
}

static void test_bits(void)
{
    place_env env = env_libc();
    uint64_t seed = check_seed(11);
    srand((unsigned)seed);
    /* sizes around the level boundaries: 64, 4096 and beyond */
    uint32_t sizes[] = {1, 63, 64, 65, 4095, 4096, 4097, 300000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        place_bits b;
        CHECK_EQ_INT(place__bits_init(&b, &env, n), PLACE_OK);
        uint8_t *ref = calloc(n, 1);
        for (uint32_t k = 0; k < 3 * n + 100; k++) {
            uint32_t i = (uint32_t)rand() % n;
            if (rand() & 1) {
                place__bits_set(&b, i);
                ref[i] = 1;
            } else {
                place__bits_clear(&b, i);
                ref[i] = 0;
            }
        }
        /* next() from every start position agrees with a scan (sampled for big n) */
        uint32_t step = n > 5000 ? 97 : 1;
        for (uint32_t from = 0; from < n; from += step) {
            uint32_t want = PLACE_NONE;
            for (uint32_t i = from; i < n; i++)
                if (ref[i]) {
                    want = i;
                    break;
                }
            uint32_t got = place_bits_next(&b, from);
            if (got != want) {
                CHECK_EQ_INT(got, want);
                break;
            }
        }
        CHECK_EQ_INT(place_bits_next(&b, n), PLACE_NONE);
        /* resize keeps the content */
        CHECK_EQ_INT(place__bits_resize(&b, &env, n * 2 + 1), PLACE_OK);
        for (uint32_t i = 0; i < n; i += step)
            if (place_bits_test(&b, i) != ref[i]) {
                CHECK_EQ_INT(place_bits_test(&b, i), ref[i]);
                break;
            }
        place__bits_fini(&b, &env);
        free(ref);
    }
}

static void test_first_and_best_fit(void)
{
    /* four 8-GPU nodes of one type; free GPUs made 8, 3, 5, 3 */
    uint32_t types[4] = {0, 0, 0, 0}, gpus[4] = {8, 8, 8, 8};
    place_cluster c;
    build(&c, 1, types, gpus, 4);
    occupy(&c, 1, 5, NULL);
    occupy(&c, 2, 3, NULL);
    occupy(&c, 3, 5, NULL);
    CHECK_EQ_INT(place_cluster_verify(&c), PLACE_OK);
    CHECK_EQ_U64(c.gpus_free, 19);
    place_part p[16];
    uint32_t n;
    place_job j = whole_job(3);
    /* first-fit: lowest index with >= 3 free is node 0 */
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    /* best-fit: exactly 3 free on nodes 1 and 3: the tie goes to the lower index */
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 1);
    /* 4 GPUs: first-fit node 0, best-fit node 2 (5 free) */
    j = whole_job(4);
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 2);
    /* 9 GPUs cannot fit one node and the job may not span */
    j = whole_job(9);
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_DONE);
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &j, p, &n), PLACE_DONE);
    /* allowed to span: nodes in index order, each giving what it has: 8 + 1 */
    j.flags = PLACE_JOB_CAN_SPAN;
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(p[0].gpus, 8);
    CHECK_EQ_INT(p[1].node, 1);
    CHECK_EQ_INT(p[1].gpus, 1);
    /* 20 GPUs: more than the 19 free, refused without a walk */
    j = whole_job(20);
    j.flags = PLACE_JOB_CAN_SPAN;
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_DONE);
    place_cluster_fini(&c);
}

static void test_types_memory_host(void)
{
    /* node 0: type 0 (80 GiB), node 1: type 1 (48 GiB), node 2: type 2 (24 GiB) */
    uint32_t types[3] = {0, 1, 2}, gpus[3] = {8, 4, 4};
    place_cluster c;
    build(&c, 3, types, gpus, 3);
    place_part p[16];
    uint32_t n;
    place_job j = whole_job(2);
    j.type_mask = 1u << 2; /* only type 2 */
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 2);
    j.type_mask = 0;
    j.gpu_mem_mib = 40 * 1024; /* rules out type 2 */
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 1); /* 4 free beats 8 free */
    j.gpu_mem_mib = 60 * 1024;  /* only type 0 */
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    j.gpu_mem_mib = 90 * 1024; /* nothing has that much */
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &j, p, &n), PLACE_DONE);
    /* host CPU: every node has 64 cores; ask for more than remains on node 0 */
    j = whole_job(1);
    j.cpu_milli = 60000;
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(place_cluster_take(&c, &j, p, 1), PLACE_OK);
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &j, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 1); /* node 0 has 4 cores left */
    /* the checker names the first broken rule */
    place_job k = whole_job(2);
    place_part bad = {2, 2, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    k.type_mask = 1u << 0;
    CHECK_EQ_INT(place_cluster_check(&c, &k, &bad, 1), PLACE_ERR_TYPE);
    k.type_mask = 0;
    bad.gpus = 3;
    CHECK_EQ_INT(place_cluster_check(&c, &k, &bad, 1), PLACE_ERR_GANG);
    bad.gpus = 5;
    k = whole_job(5);
    CHECK_EQ_INT(place_cluster_check(&c, &k, &bad, 1), PLACE_ERR_CAPACITY);
    k = whole_job(2);
    k.gpu_mem_mib = 30 * 1024;
    bad.gpus = 2;
    CHECK_EQ_INT(place_cluster_check(&c, &k, &bad, 1), PLACE_ERR_MEMORY);
    place_part two[2] = {{1, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0},
                         {2, 1, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0}};
    k = whole_job(2);
    CHECK_EQ_INT(place_cluster_check(&c, &k, two, 2), PLACE_ERR_SPAN); /* may not span */
    k.flags = PLACE_JOB_CAN_SPAN;
    CHECK_EQ_INT(place_cluster_check(&c, &k, two, 2), PLACE_ERR_SPAN); /* two types */
    CHECK_EQ_INT(place_cluster_set_node_up(&c, 2, 0), PLACE_OK);
    k = whole_job(1);
    bad.gpus = 1;
    CHECK_EQ_INT(place_cluster_check(&c, &k, &bad, 1), PLACE_ERR_DOWN);
    CHECK_EQ_INT(place_cluster_verify(&c), PLACE_OK);
    place_cluster_fini(&c);
}

static void test_shares(void)
{
    /* two nodes of 2 GPUs (80 GiB each) */
    uint32_t types[2] = {0, 0}, gpus[2] = {2, 2};
    place_cluster c;
    build(&c, 1, types, gpus, 2);
    place_part p[16];
    uint32_t n;
    place_job s = whole_job(1);
    s.gpu_milli = 600;
    s.gpu_mem_mib = 30 * 1024;
    /* first share goes to node 0, GPU 0 */
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &s, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(p[0].gpu, 0);
    CHECK_EQ_INT(place_cluster_take(&c, &s, p, 1), PLACE_OK);
    CHECK_EQ_INT(c.gpu_free_milli[0], 400);
    CHECK_EQ_U64(c.gpus_free, 3); /* a shared GPU is no longer fully free */
    /* a 400-milli share: best-fit fills GPU 0 exactly; first-fit also finds GPU 0 */
    place_job t = whole_job(1);
    t.gpu_milli = 400;
    t.gpu_mem_mib = 10 * 1024;
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &t, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(p[0].gpu, 0);
    /* memory binds: 60 GiB does not fit next to 30 GiB on an 80 GiB GPU */
    t.gpu_mem_mib = 60 * 1024;
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &t, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(p[0].gpu, 1);
    /* best-fit of a 500 share: GPU 0 has 400 (too little), GPU 1 and node 1 have
     * 1000: the tie goes to node 0 GPU 1 */
    t.gpu_milli = 500;
    t.gpu_mem_mib = 0;
    CHECK_EQ_INT(decide_one(&c, "placement=best-fit", &t, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 0);
    CHECK_EQ_INT(p[0].gpu, 1);
    /* a whole-GPU job of 2 cannot use node 0 any more: best-fit and first-fit pick node 1 */
    place_job w = whole_job(2);
    CHECK_EQ_INT(decide_one(&c, "placement=first-fit", &w, p, &n), PLACE_OK);
    CHECK_EQ_INT(p[0].node, 1);
    /* give the share back: node 0 is whole again */
    place_part sp = {0, 1, 0, 600, 30 * 1024, 1};
    place_cluster_give(&c, &s, &sp, 1);
    CHECK_EQ_INT(c.gpu_free_milli[0], 1000);
    CHECK_EQ_U64(c.gpus_free, 4);
    CHECK_EQ_INT(place_cluster_verify(&c), PLACE_OK);
    place_cluster_fini(&c);
}

/* Random takes and gives on a heterogeneous cluster: after every step the
 * invariants hold and first-fit's answer equals a brute-force scan. */
static void test_index_random(void)
{
    uint64_t seed = check_seed(20260101);
    srand((unsigned)seed);
    enum { N = 300 };
    uint32_t types[N], gpus[N];
    for (uint32_t i = 0; i < N; i++) {
        types[i] = (uint32_t)rand() % 3;
        uint32_t opts[4] = {1, 2, 4, 8};
        gpus[i] = opts[rand() % 4];
    }
    place_cluster c;
    build(&c, 3, types, gpus, N);
    struct held {
        place_job j;
        place_part p;
    } *held = calloc(4096, sizeof *held);
    size_t nh = 0;
    for (int step = 0; step < 20000 && !check_failures; step++) {
        int r = rand() % 10;
        if (r < 6 && nh < 4096) {
            place_job j = whole_job(1u + (uint32_t)rand() % 8);
            if (rand() % 4 == 0)
                j.type_mask = 1u << (rand() % 3);
            /* brute force: lowest node of an allowed type with enough free GPUs */
            uint32_t want = PLACE_NONE;
            for (uint32_t n = 0; n < c.n_nodes; n++)
                if (c.node_up[n] && (!j.type_mask || ((j.type_mask >> c.node_type[n]) & 1)) &&
                    c.node_free[n] >= j.gpus) {
                    want = n;
                    break;
                }
            place_part p[16];
            uint32_t np;
            int rc = decide_one(&c, "placement=first-fit", &j, p, &np);
            CHECK_EQ_INT(rc == PLACE_OK ? p[0].node : PLACE_NONE, want);
            if (rc == PLACE_OK) {
                CHECK_EQ_INT(place_cluster_take(&c, &j, p, 1), PLACE_OK);
                held[nh].j = j;
                held[nh].p = p[0];
                nh++;
            }
        } else if (r < 9 && nh > 0) {
            size_t k = (size_t)rand() % nh;
            place_cluster_give(&c, &held[k].j, &held[k].p, 1);
            held[k] = held[--nh];
        } else {
            uint32_t n = (uint32_t)rand() % N;
            if (rand() % 2)
                place_cluster_set_node_up(&c, n, !c.node_up[n]);
            else
                place_cluster_set_gpu_up(&c, n, (uint32_t)rand() % c.node_gpus[n], rand() % 3 != 0);
        }
        if (place_cluster_verify(&c) != PLACE_OK) {
            CHECK_EQ_INT(place_cluster_verify(&c), PLACE_OK);
            break;
        }
    }
    free(held);
    place_cluster_fini(&c);
}

/* A policy that answers the same invalid decision forever. */
static int bad_create(const place_env *env, const char *args, void **state, char *err,
                      size_t err_len)
{
    (void)env;
    (void)args;
    (void)err;
    (void)err_len;
    *state = NULL;
    return PLACE_OK;
}
static void bad_destroy(void *state)
{
    (void)state;
}
static int bad_decide(void *state, const place_view *v, place_decision *d)
{
    (void)state;
    (void)v;
    d->kind = PLACE_START;
    d->index = 0;
    d->n_parts = 1;
    d->parts[0] = (place_part){0, 64, PLACE_GPU_ANY, PLACE_MILLI_WHOLE, 0, 0};
    return PLACE_OK;
}
static const place_policy bad_policy = {PLACE_ABI_VERSION,
                                        sizeof(place_policy),
                                        "bad",
                                        "always wrong",
                                        bad_create,
                                        bad_destroy,
                                        NULL,
                                        bad_decide,
                                        NULL,
                                        NULL};

static int applied;
static int count_apply(void *host, place_view *v, place_decision *d)
{
    (void)host;
    (void)v;
    (void)d;
    applied++;
    return PLACE_OK;
}

static void test_pass_validation(void)
{
    uint32_t types[1] = {0}, gpus[1] = {8};
    place_cluster c;
    build(&c, 1, types, gpus, 1);
    place_job q[2] = {whole_job(2), whole_job(2)};
    uint8_t qs[2] = {0, 0};
    place_view v = {0, &c, q, qs, 2, NULL, 0, NULL, NULL, 0};
    place_part parts[8];
    place_instance pi = {&bad_policy, NULL, env_libc()};
    place_pass_stats st;
    applied = 0;
    int rc = place_pass_run(&pi, &v, qs, parts, 8, count_apply, NULL, &st);
    /* the first refusal marks entry 0 skipped; then deciding entry 0 again is a
     * state error, every time, until the loop bound stops the pass */
    CHECK_EQ_INT(rc, PLACE_ERR_LOOP);
    CHECK_EQ_INT(applied, 0);
    CHECK(st.invalid >= 2);
    CHECK_EQ_INT(qs[0], PLACE_Q_SKIPPED);
    CHECK_EQ_INT(st.last_invalid, PLACE_ERR_STATE);
    /* ABI checks */
    place_policy wrong = bad_policy;
    wrong.abi = PLACE_ABI_VERSION + 1;
    CHECK_EQ_INT(place_policy_check(&wrong), PLACE_ERR_ABI);
    wrong = bad_policy;
    wrong.size = 8;
    CHECK_EQ_INT(place_policy_check(&wrong), PLACE_ERR_ABI);
    CHECK_EQ_INT(place_policy_check(&bad_policy), PLACE_OK);
    place_cluster_fini(&c);
}

/* FIFO: the head blocks; greedy passes over it. */
static void test_fifo_pass(void)
{
    uint32_t types[2] = {0, 0}, gpus[2] = {4, 4};
    place_cluster c;
    build(&c, 1, types, gpus, 2);
    occupy(&c, 0, 2, NULL);
    /* free: node 0 has 2, node 1 has 4. Queue: 2, 8 (never now), 1 */
    place_job q[3] = {whole_job(2), whole_job(8), whole_job(1)};
    const char *specs[2] = {"order=fifo placement=first-fit backfill=none",
                            "order=fifo placement=first-fit backfill=greedy"};
    uint32_t want_started[2] = {1, 2};
    for (int s = 0; s < 2; s++) {
        uint8_t qs[3] = {0, 0, 0};
        place_view v = {0, &c, q, qs, 3, NULL, 0, NULL, NULL, 0};
        place_part parts[8];
        place_instance pi;
        place_env env = env_libc();
        CHECK_EQ_INT(place_instance_init(&pi, &env, specs[s], NULL, 0), PLACE_OK);
        place_pass_stats st;
        applied = 0;
        CHECK_EQ_INT(place_pass_run(&pi, &v, qs, parts, 8, count_apply, NULL, &st), PLACE_OK);
        /* count_apply does not mark STARTED or take capacity, so each START is of a
         * still-waiting job; what matters is how many the policy asked for */
        CHECK_EQ_INT(st.started, want_started[s]);
        CHECK_EQ_INT(st.invalid, 0);
        place_instance_fini(&pi);
    }
    /* presets and errors */
    place_instance pi;
    place_env env = env_libc();
    char err[128];
    CHECK_EQ_INT(place_instance_init(&pi, &env, "fifo-best-fit", err, sizeof err), PLACE_OK);
    place_instance_fini(&pi);
    CHECK_EQ_INT(place_instance_init(&pi, &env, "placement=worst-ever", err, sizeof err),
                 PLACE_ERR_NOTFOUND);
    CHECK(strstr(err, "worst-ever") != NULL);
    CHECK_EQ_INT(place_instance_init(&pi, &env, "colour=blue", err, sizeof err), PLACE_ERR_SPEC);
    CHECK(strstr(err, "colour") != NULL);
    CHECK_EQ_INT(place_instance_init(&pi, &env, "no-such-policy", err, sizeof err),
                 PLACE_ERR_NOTFOUND);
    place_cluster_fini(&c);
}

int main(void)
{
    test_bits();
    test_first_and_best_fit();
    test_types_memory_host();
    test_shares();
    test_index_random();
    test_pass_validation();
    test_fifo_pass();
    return check_finish("test_place");
}
