/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_llm.c — the request-level LLM serving simulator (sim/model/llm_*.c):
 *
 *   mdc         batch size 1, fixed lengths, one central queue: M/D/c, mean
 *               wait against the exact value (the embedded chain at multiples
 *               of the service time) within 4.78 standard errors of 10
 *               replications (Student t, 9 d.f., two-sided 0.001)
 *   mmc         geometric output lengths (an exponential service time to a
 *               squared CV of 0.99), batch size 1: Erlang C, same rule
 *   saturation  offline throughput of the roofline against the TensorRT-LLM
 *               figures (cost-figures.md §4.1) within the stated +-30 %
 *   monotone    more KV memory never lowers throughput; a longer prompt never
 *               lowers TTFT at the same load
 *   profile     the CSV grid: interpolation, and malformed files named by line
 *   misc        conservation, preemption under tight memory, chunked prefill
 *               lowering the tail TPOT, API overflow cost
 *   cut         decode stretches cut back by arrivals: times by hand
 *   closed      decode stretches in closed form (the roofline) against the
 *               iteration-by-iteration sum of sim__llm_roof_time, through the
 *               compute/memory crossover and a cut, within 1e-12 relative
 *   counts      counts_only (a fleet run's accounting, no per-request arrays)
 *               against the rule applied to the per-request outcomes of the
 *               same run: met, late, API, dropped, API cost, iterations
 *   carry       the queue carried across a piece boundary (sim__llm_state),
 *               and a replica removed at one, by hand
 *   chain       the same requests as one piece, as hundreds of pieces and
 *               by sim__llm_run: equal counts, latency sums, iterations
 *               (blocks of 16, 12 and 128 tokens, with and without series)
 *   svc         a service's accounting: an overloaded hour's backlog
 *               counted in the next, every request once; arrivals drawn
 *               ahead in chunks equal to drawn at once
 *   grow        replicas added at a boundary, by hand: they start empty and
 *               take, by the routing rule, the central queue's waiting
 *               requests at once (central) or the next arrivals (least)
 *   special     a specialization between pieces: the old configuration's
 *               backlog served to the end and counted (at its tokens) in
 *               the piece of the switch; the new one starts empty (or
 *               without a ready replica: its arrivals unserved)
 *   noready     a GPU type left without a ready replica loses what it held,
 *               counted unserved in that piece; the other type starts
 *               empty; every request counted once
 *   winners     the route of up to 64 replicas (a mask of the least
 *               loaded) against the winner tree: the same outcomes to the
 *               bit, for 1 to 80 replicas, every routing, and a chain
 *               resized across 64 replicas
 *
 * (One piece past 1,000 lines: the cases share the hand-case deployments,
 * the flat profile and the service helpers, and run one by one by name:
 * test_llm CASE.)
 */
#include "model/llm_int.h"
#include "model/service_int.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#define T_CRIT 4.78
#define REPS   10

static sim__llm_profile flat_profile(double ms)
{
    char text[128];
    snprintf(text, sizeof text, "prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,%g\n", ms);
    sim__llm_profile p;
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim__llm_profile_parse(&p, "flat.csv", text, strlen(text), &d);
    CHECK_EQ_INT(rc, TM_OK);
    return p;
}

/* Exact mean number in system of M/D/c (load a = lambda D): Q(t + D) =
 * max(Q(t) - c, 0) + Poisson(a) holds at every t, so the chain's stationary
 * law is the time-average law; solved by iteration on 0..N. */
static double mdc_mean_in_system(uint32_t c, double a)
{
    enum { N = 4000 };
    static double p[N], q[N], pois[N];
    pois[0] = exp(-a);
    for (int k = 1; k < N; k++)
        pois[k] = pois[k - 1] * a / k;
    memset(p, 0, sizeof p);
    p[0] = 1.0;
    for (int it = 0; it < 200000; it++) {
        memset(q, 0, sizeof q);
        for (int i = 0; i < N; i++) {
            if (p[i] < 1e-300)
                continue;
            int base = i > (int)c ? i - (int)c : 0;
            for (int k = 0; base + k < N && k < N; k++) {
                q[base + k] += p[i] * pois[k];
                if (pois[k] < 1e-30 && k > a)
                    break;
            }
        }
        double diff = 0;
        for (int i = 0; i < N; i++) {
            diff += fabs(q[i] - p[i]);
            p[i] = q[i];
        }
        if (diff < 1e-14)
            break;
    }
    double m = 0;
    for (int i = 0; i < N; i++)
        m += i * p[i];
    return m;
}

/* Mean wait (E2E minus the service time) of `reps` replications. */
static void wait_reps(const sim__llm_cfg *c, size_t n, double rate, const sim__llm_dist *pd,
                      const sim__llm_dist *od, double iter_s, uint64_t seed, double *mean,
                      double *se)
{
    double s = 0, s2 = 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int k = 0; k < REPS; k++) {
        gsl_rng_set(r, (unsigned long)(seed + 101 * (uint64_t)k));
        sim__llm_req *q;
        tm_diag d;
        tm_diag_clear(&d);
        CHECK_EQ_INT(sim__llm_synth(&q, n, rate, pd, od, r, &d), TM_OK);
        sim__llm_cfg cc = *c;
        cc.warmup_s = q[n / 5].t_s;
        sim__llm_result res;
        int rc = sim__llm_run(&cc, q, n, &res, NULL, &d);
        CHECK_EQ_INT(rc, TM_OK);
        double w = 0;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (q[i].t_s >= cc.warmup_s) {
                w += res.e2e_s[i] - q[i].output * iter_s;
                m++;
            }
        w /= (double)m;
        s += w;
        s2 += w * w;
        sim__llm_result_fini(&res);
        free(q);
    }
    gsl_rng_free(r);
    *mean = s / REPS;
    *se = sqrt((s2 / REPS - *mean * *mean) * REPS / (REPS - 1) / REPS);
}

static void test_mdc(uint64_t seed)
{
    const double it = 0.010;
    sim__llm_profile p = flat_profile(it * 1000);
    uint32_t cs[3] = {1, 4, 16};
    double rhos[3] = {0.7, 0.8, 0.85};
    for (int k = 0; k < 3; k++) {
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        c.iter.profile = &p;
        c.kv_blocks = 1000;
        c.replicas = cs[k];
        c.max_batch = 1;
        c.route = SIM__LLM_ROUTE_CENTRAL;
        const uint32_t out = 10;
        double D = out * it, lambda = rhos[k] * cs[k] / D;
        sim__llm_dist pd = {SIM__LLM_DIST_FIXED, 1, 0, 0, NULL, 0};
        sim__llm_dist od = {SIM__LLM_DIST_FIXED, out, 0, 0, NULL, 0};
        double mean, se;
        wait_reps(&c, 100000, lambda, &pd, &od, it, seed + (uint64_t)k, &mean, &se);
        double want = mdc_mean_in_system(cs[k], lambda * D) / lambda - D;
        if (cs[k] == 1) /* Pollaczek-Khinchine, as a check of the chain */
            CHECK_NEAR(want, rhos[k] * D / (2 * (1 - rhos[k])), 1e-9);
        printf("M/D/%u rho %.2f: mean wait %.5f s (se %.5f), theory %.5f\n", cs[k], rhos[k], mean,
               se, want);
        CHECK_NEAR(mean, want, T_CRIT * se);
        CHECK(se < 0.03 * want);
    }
    sim__llm_profile_fini(&p);
}

static void test_mmc(uint64_t seed)
{
    const double it = 0.001;
    sim__llm_profile p = flat_profile(it * 1000);
    uint32_t cs[2] = {1, 8};
    double rhos[2] = {0.6, 0.85};
    for (int k = 0; k < 2; k++) {
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        c.iter.profile = &p;
        c.kv_blocks = 100000;
        c.replicas = cs[k];
        c.max_batch = 1;
        c.route = SIM__LLM_ROUTE_CENTRAL;
        sim__llm_dist pd = {SIM__LLM_DIST_FIXED, 1, 0, 0, NULL, 0};
        sim__llm_dist od = {SIM__LLM_DIST_EXP, 100, 0, 0, NULL, 0};
        double en = 1.0 / (1.0 - exp(-1.0 / 100)); /* mean of the geometric */
        double mu = 1.0 / (en * it), lambda = rhos[k] * cs[k] * mu;
        double mean, se;
        wait_reps(&c, 100000, lambda, &pd, &od, it, seed + 10 + (uint64_t)k, &mean, &se);
        double want = sim__svc_erlang_c(cs[k], lambda / mu) / (cs[k] * mu - lambda);
        printf("M/M/%u rho %.2f: mean wait %.5f s (se %.5f), Erlang C %.5f\n", cs[k], rhos[k], mean,
               se, want);
        CHECK_NEAR(mean, want, T_CRIT * se);
        CHECK(se < 0.03 * want);
    }
    sim__llm_profile_fini(&p);
}

/* Offline: n requests at t = 0, the deployment's output tokens/s. */
static double offline(const sim__llm_model *m0, const char *gpu, uint32_t tp, uint32_t isl,
                      uint32_t osl, int kv_fp8, uint64_t blocks_override, uint32_t max_batch)
{
    size_t nt;
    const sim_gpu_type *types = sim_catalog_builtin(&nt);
    int gi = sim_catalog_find(types, nt, gpu);
    CHECK(gi >= 0);
    sim__llm_model m = *m0;
    if (kv_fp8)
        m.kv_bytes_per_elem = 1.0;
    sim__llm_cfg c;
    sim__llm_cfg_defaults(&c);
    tm_diag d;
    tm_diag_clear(&d);
    CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, &m, &types[gi], tp, &d), TM_OK);
    CHECK_EQ_INT(sim__llm_kv_blocks(&m, &types[gi], tp, 0.9, 16, &c.kv_blocks, &d), TM_OK);
    if (blocks_override)
        c.kv_blocks = blocks_override;
    c.max_batch = max_batch;
    size_t n = 3000;
    sim__llm_req *q = malloc(n * sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i] = (sim__llm_req){0.0, isl, osl};
    sim__llm_result res;
    CHECK_EQ_INT(sim__llm_run(&c, q, n, &res, NULL, &d), TM_OK);
    CHECK_EQ_U64(res.service.counted, n);
    double x = res.out_tok_per_s;
    sim__llm_result_fini(&res);
    free(q);
    return x;
}

static void test_saturation(void)
{
    /* cost-figures.md §4.1 (TensorRT-LLM v1.0 perf overview, offline, FP8
     * checkpoints with an FP8 KV cache) ✅: ISL/OSL 128/128, 1000/1000,
     * 2048/2048, 2048/128, 5000/500 */
    static const struct {
        const char *model, *gpu;
        uint32_t tp;
        double tok_s[5];
    } rows[] = {
        {"llama-3.1-8b-fp8", "H100", 1, {28312, 15220, 9305, 3450, 3459}},
        {"llama-3.1-8b-fp8", "H200", 1, {27911, 17744, 12194, 3538, 3902}},
        {"llama-3.1-70b-fp8", "H100", 2, {6378, 4205, 3082, 762, 898}},
        {"llama-3.1-70b-fp8", "H200", 1, {3803, 2909, 2003, 442, 566}},
        {"llama-3.1-405b-fp8", "H100", 8, {3627, 2919, 2296, 453, 610}},
    };
    static const uint32_t len[5][2] = {
        {128, 128}, {1000, 1000}, {2048, 2048}, {2048, 128}, {5000, 500}};
    double logsum = 0;
    int n = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int k = 0; k < 5; k++) {
            const sim__llm_model *m = sim__llm_model_find(rows[r].model);
            CHECK(m != NULL);
            double x = offline(m, rows[r].gpu, rows[r].tp, len[k][0], len[k][1], 1, 0, 2048);
            double ratio = x / rows[r].tok_s[k];
            printf("saturation %s %s TP%u %u/%u: %.0f tok/s, figure %.0f, ratio %.3f\n",
                   rows[r].model, rows[r].gpu, rows[r].tp, len[k][0], len[k][1], x,
                   rows[r].tok_s[k], ratio);
            if (!(ratio > 1 / 1.3 && ratio < 1.3))
                check_fail(__FILE__, __LINE__, "%s %s %u/%u: ratio %.3f outside 1/1.3..1.3",
                           rows[r].model, rows[r].gpu, len[k][0], len[k][1], ratio);
            logsum += log(ratio);
            n++;
        }
    printf("saturation: geometric mean ratio %.3f over %d figures\n", exp(logsum / n), n);
}

/* A GPU type of the built-in catalog by name. */
static const sim_gpu_type *builtin_type(const char *name)
{
    size_t nt;
    const sim_gpu_type *types = sim_catalog_builtin(&nt);
    return &types[sim_catalog_find(types, nt, name)];
}

static void test_monotone(uint64_t seed)
{
    const sim__llm_model *m = sim__llm_model_find("llama-3.1-8b-fp8");
    double prev = 0;
    uint64_t blocks[] = {700, 1500, 3000, 6000, 12000, 24000, 33000};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        double x = offline(m, "H100", 1, 1000, 1000, 0, blocks[k], 256);
        printf("monotone KV: %llu blocks -> %.0f tok/s\n", (unsigned long long)blocks[k], x);
        CHECK(x >= prev);
        prev = x;
    }
    /* longer prompts at the same request rate: TTFT mean and p99 grow */
    const sim_gpu_type *g = builtin_type("H100");
    for (int pol = 0; pol < 2; pol++) {
        double pm = 0, p99 = 0;
        uint32_t lens[] = {128, 512, 1024, 2048, 4096};
        for (size_t k = 0; k < 5; k++) {
            sim__llm_cfg c;
            sim__llm_cfg_defaults(&c);
            c.policy = (sim__llm_policy)pol;
            c.replicas = 2;
            tm_diag d;
            tm_diag_clear(&d);
            CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
            CHECK_EQ_INT(sim__llm_kv_blocks(m, g, 1, 0.9, 16, &c.kv_blocks, &d), TM_OK);
            gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(r, (unsigned long)seed);
            sim__llm_dist pd = {SIM__LLM_DIST_FIXED, lens[k], 0, 0, NULL, 0};
            sim__llm_dist od = {SIM__LLM_DIST_FIXED, 200, 0, 0, NULL, 0};
            sim__llm_req *q;
            CHECK_EQ_INT(sim__llm_synth(&q, 20000, 10.0, &pd, &od, r, &d), TM_OK);
            sim__llm_result res;
            CHECK_EQ_INT(sim__llm_run(&c, q, 20000, &res, NULL, &d), TM_OK);
            printf("monotone prompt %s %u: TTFT mean %.4f p99 %.4f\n", pol ? "sarathi" : "vllm",
                   lens[k], res.service.ttft.mean, res.service.ttft.p99);
            CHECK(res.service.ttft.mean >= pm);
            CHECK(res.service.ttft.p99 >= p99);
            pm = res.service.ttft.mean;
            p99 = res.service.ttft.p99;
            sim__llm_result_fini(&res);
            free(q);
            gsl_rng_free(r);
        }
    }
}

static int parse_err(const char *text, char *where, size_t n)
{
    sim__llm_profile p;
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim__llm_profile_parse(&p, "p.csv", text, strlen(text), &d);
    snprintf(where, n, "%s: %s", d.where, d.msg);
    sim__llm_profile_fini(&p);
    return rc;
}

static void test_profile(void)
{
    /* t = 1 + 0.01 p + 0.5 d + 0.001 k (ms) on a 3 x 2 x 2 grid: trilinear
     * interpolation and extrapolation reproduce it exactly */
    char text[4096] = "# a comment\ntime_ms,kv_tokens,decode_seqs,prefill_tokens\n";
    double ps[3] = {0, 512, 2048}, ds[2] = {1, 64}, ks[2] = {0, 100000};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) {
                char line[128];
                snprintf(line, sizeof line, "%.6f,%.0f,%.0f,%.0f\r\n",
                         1 + 0.01 * ps[i] + 0.5 * ds[j] + 0.001 * ks[k], ks[k], ds[j], ps[i]);
                strcat(text, line);
            }
    sim__llm_profile p;
    tm_diag d;
    tm_diag_clear(&d);
    CHECK_EQ_INT(sim__llm_profile_parse(&p, "g.csv", text, strlen(text), &d), TM_OK);
    sim__llm_iter it = {.profile = &p};
    uint32_t bp[4] = {0, 300, 1000, 4096}, bd[3] = {1, 20, 100};
    uint64_t bk[3] = {0, 5000, 200000};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                sim__llm_batch b = {bp[i], bd[j], 0, bk[k], 0};
                double want = (1 + 0.01 * bp[i] + 0.5 * bd[j] + 0.001 * (double)bk[k]) / 1000;
                CHECK_NEAR(sim__llm_iter_time(&it, &b), want, 1e-12);
            }
    /* below the first point of an axis: the first */
    sim__llm_batch b0 = {0, 0, 0, 0, 0};
    CHECK_NEAR(sim__llm_iter_time(&it, &b0), (1 + 0.5) / 1000, 1e-12);
    sim__llm_profile_fini(&p);

    char w[1200];
    static const struct {
        const char *text, *where;
    } bad[] = {
        {"", "p.csv: empty"},
        {"prefill_tokens,decode_seqs,time_ms\n1,2,3\n", "p.csv:1: expected the header"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,5\n0,x,0,5\n",
         "p.csv:3: decode_seqs: expected an integer"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,5\n0,1,0\n",
         "p.csv:3: expected 4 fields, got 3"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,0\n", "p.csv:2: time_ms"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,5\n0,2,0,6\n1,1,0,7\n",
         "p.csv: expected a full grid (2 x 2 x 1 rows for the distinct values of prefill_tokens, "
         "decode_seqs and kv_tokens), got no row for 1, 2, 0"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,5\n0,1,0,6\n",
         "p.csv:3: a second row"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n", "p.csv: no rows"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n-1,1,0,5\n", "p.csv:2: prefill_tokens"},
        {"prefill_tokens,decode_seqs,kv_tokens,time_ms\n0,1,0,nan\n", "p.csv:2: time_ms"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_err(bad[i].text, w, sizeof w);
        CHECK_EQ_INT(rc, TM_ERR_DATA);
        if (!strstr(w, bad[i].where))
            check_fail(__FILE__, __LINE__, "case %zu: got \"%s\", want \"%s\"", i, w, bad[i].where);
    }
}

static void test_misc(uint64_t seed)
{
    const sim__llm_model *m = sim__llm_model_find("llama-3.1-8b-fp8");
    const sim_gpu_type *g = builtin_type("H100");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, (unsigned long)seed);
    sim__llm_dist pd = {SIM__LLM_DIST_EXP, 1000, 0, 0, NULL, 0};
    sim__llm_dist od = {SIM__LLM_DIST_EXP, 200, 0, 0, NULL, 0};
    sim__llm_req *q;
    tm_diag d;
    tm_diag_clear(&d);
    size_t n = 20000;
    CHECK_EQ_INT(sim__llm_synth(&q, n, 20.0, &pd, &od, r, &d), TM_OK);
    double p99[2];
    for (int pol = 0; pol < 2; pol++) {
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        c.policy = (sim__llm_policy)pol;
        c.replicas = 1;
        CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
        c.kv_blocks = 3000; /* tight: 48k tokens, preemption */
        sim__llm_result res;
        CHECK_EQ_INT(sim__llm_run(&c, q, n, &res, NULL, &d), TM_OK);
        const sim__llm_stats *s = &res.service;
        CHECK_EQ_U64(s->counted + s->dropped + s->api, n);
        CHECK(s->preemptions > 0);
        uint64_t sum = 0;
        for (uint32_t k = 0; k < res.replicas; k++)
            sum += res.per_replica[k].counted;
        CHECK_EQ_U64(sum, s->counted);
        p99[pol] = s->tpot.p99;
        printf("%s, 3000 blocks, 20 req/s: TTFT p50 %.3f p99 %.3f, TPOT p50 %.4f p99 %.4f, "
               "%llu preemptions, %llu dropped, %.0f tok/s\n",
               pol ? "sarathi" : "vllm", s->ttft.p50, s->ttft.p99, s->tpot.p50, s->tpot.p99,
               (unsigned long long)s->preemptions, (unsigned long long)s->dropped,
               res.out_tok_per_s);
        sim__llm_result_fini(&res);
    }
    /* chunked prefill: decodes are not stalled behind whole prompts */
    CHECK(p99[1] < p99[0]);
    /* API overflow: a replica with a queue of 4 sends the rest to the API */
    {
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
        CHECK_EQ_INT(sim__llm_kv_blocks(m, g, 1, 0.9, 16, &c.kv_blocks, &d), TM_OK);
        c.max_batch = 8;
        c.max_queue = 4;
        c.api_in_usd_per_mtok = 1.0;
        c.api_out_usd_per_mtok = 3.0;
        sim__llm_result res;
        CHECK_EQ_INT(sim__llm_run(&c, q, n, &res, NULL, &d), TM_OK);
        CHECK(res.service.api > 0);
        double want = 0;
        for (size_t i = 0; i < n; i++)
            if (res.replica[i] == -1)
                want += (q[i].prompt * 1.0 + q[i].output * 3.0) / 1e6;
        CHECK_NEAR(res.api_usd, want, 1e-9 * want);
        CHECK_EQ_U64(res.service.counted + res.service.api + res.service.dropped, n);
        sim__llm_result_fini(&res);
    }
    /* a request longer than the whole cache is dropped, not looped on */
    {
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
        c.kv_blocks = 10;
        sim__llm_req two[2] = {{0.0, 500, 10}, {0.1, 50, 10}};
        sim__llm_result res;
        CHECK_EQ_INT(sim__llm_run(&c, two, 2, &res, NULL, &d), TM_OK);
        CHECK_EQ_INT(res.replica[0], -2);
        CHECK_EQ_INT(res.replica[1], 0);
        CHECK_EQ_U64(res.service.dropped, 1);
        sim__llm_result_fini(&res);
    }
    /* unsorted arrivals are refused with the request named */
    {
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
        c.kv_blocks = 1000;
        sim__llm_req two[2] = {{1.0, 5, 10}, {0.5, 5, 10}};
        sim__llm_result res;
        CHECK_EQ_INT(sim__llm_run(&c, two, 2, &res, NULL, &d), TM_ERR_INVAL);
        CHECK_STR(d.where, "llm.reqs[1]");
        sim__llm_result_fini(&res);
    }
    free(q);
    gsl_rng_free(r);
}

/* Decode stretches cut back by arrivals, by hand: one replica, a flat 10 ms
 * iteration, vLLM. A (t 0, output 5) prefills in [0, 10 ms) and decodes;
 * B (t 25 ms, output 3) arrives inside A's stretch, which ends at 30 ms;
 * B prefills in [30, 40) while A waits; C (t 40.5 ms, output 2) arrives
 * inside the first iteration of the next stretch, which ends at 50 ms; C
 * prefills in [50, 60); all three decode in [60, 70) and finish at 70 ms
 * (A: tokens at 10, 20, 30, 50, 70; B: 40, 50, 70; C: 60, 70). */
static void test_cut(void)
{
    sim__llm_profile p = flat_profile(10);
    sim__llm_cfg c;
    sim__llm_cfg_defaults(&c);
    c.iter.profile = &p;
    c.kv_blocks = 1000;
    c.block_tokens = 2;
    sim__llm_req q[3] = {{0.0, 1, 5}, {0.025, 1, 3}, {0.0405, 1, 2}};
    double ttft[3] = {0.010, 0.015, 0.0195}, e2e[3] = {0.070, 0.045, 0.0295},
           tpot[3] = {0.015, 0.015, 0.010};
    sim__llm_result res;
    tm_diag d;
    tm_diag_clear(&d);
    CHECK_EQ_INT(sim__llm_run(&c, q, 3, &res, NULL, &d), TM_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(res.ttft_s[i], ttft[i], 1e-12);
        CHECK_NEAR(res.e2e_s[i], e2e[i], 1e-12);
        CHECK_NEAR(res.tpot_s[i], tpot[i], 1e-12);
    }
    /* iterations: 3 prefills, A's 2 + 1 + 1 decodes with B's and C's */
    CHECK(res.service.iterations == 7.0);
    sim__llm_result_fini(&res);
    sim__llm_profile_fini(&p);
}

/* The roofline batch of a decode-only iteration: n sequences reading kv
 * context tokens in all (each its context plus the new token). */
static double decode_time(const sim__llm_roofline *r, uint32_t n, uint64_t kv)
{
    sim__llm_batch b = {0, n, n, kv, (double)kv};
    return sim__llm_roof_time(r, &b);
}

/* A whole-prompt prefill iteration of prompts p[0..n). */
static double prefill_time(const sim__llm_roofline *r, const uint32_t *p, uint32_t n)
{
    sim__llm_batch b = {0, 0, n, 0, 0.0};
    for (uint32_t i = 0; i < n; i++) {
        b.prefill_tokens += p[i];
        b.attn_pairs += (double)p[i] * ((double)p[i] + 1.0) / 2.0;
    }
    return sim__llm_roof_time(r, &b);
}

/* Decode stretches in closed form against the sum iteration by iteration. */
static void test_closed(void)
{
    const sim__llm_model *m = sim__llm_model_find("llama-3.1-8b-fp8");
    const sim_gpu_type *g = builtin_type("H100");
    tm_diag d;
    tm_diag_clear(&d);
    sim__llm_cfg c;
    sim__llm_cfg_defaults(&c);
    CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
    CHECK_EQ_INT(sim__llm_kv_blocks(m, g, 1, 0.9, 16, &c.kv_blocks, &d), TM_OK);
    const sim__llm_roofline *r = &c.iter.roof;
    /* 250 requests at t 0, prompt 16, output 400: the first starts the idle
     * replica alone (a prefill of 1), the other 249 are prefilled next, then
     * one stretch of 399 decodes of all 250 (the same context each);
     * compute-bound at first, memory-bound at the end (the two pieces) */
    {
        enum { N = 250, P = 16, O = 400 };
        sim__llm_req *q = malloc(N * sizeof *q);
        uint32_t pr[N];
        for (int i = 0; i < N; i++) {
            q[i] = (sim__llm_req){0.0, P, O};
            pr[i] = P;
        }
        double t1 = prefill_time(r, pr, 1), t2 = t1 + prefill_time(r, pr, N - 1), t = t2;
        for (uint32_t j = 1; j < O; j++)
            t += decode_time(r, N, (uint64_t)N * (P + j));
        /* the crossover is inside the stretch */
        double tc1 =
            (r->flops_per_token * N + r->attn_flops_per_pair * N * (P + 1.0)) / r->flops_per_s;
        double tm1 = (r->weight_bytes + r->kv_bytes_per_token * N * (P + 1.0)) / r->bytes_per_s;
        double tcn =
            (r->flops_per_token * N + r->attn_flops_per_pair * N * (P + O - 1.0)) / r->flops_per_s;
        double tmn = (r->weight_bytes + r->kv_bytes_per_token * N * (P + O - 1.0)) / r->bytes_per_s;
        CHECK(tc1 > tm1);
        CHECK(tcn < tmn);
        sim__llm_result res;
        CHECK_EQ_INT(sim__llm_run(&c, q, N, &res, NULL, &d), TM_OK);
        for (int i = 0; i < N; i++) {
            CHECK(res.ttft_s[i] == (i ? t2 : t1));
            CHECK_NEAR(res.e2e_s[i], t, 1e-12 * t);
        }
        CHECK(res.service.iterations == (double)(2 + O - 1));
        printf("closed: 250 x 399 decodes, e2e %.9f s (sum by iteration %.9f s)\n", res.e2e_s[0],
               t);
        sim__llm_result_fini(&res);
        free(q);
    }
    /* a cut: A (t 0, prompt 100, output 300) decodes alone; B (prompt 50,
     * output 20) arrives at the middle of A's 101st decode, which ends A's
     * stretch; B prefills alone, then both decode until B's last token, then
     * A alone */
    {
        uint32_t pa = 100, oa = 300, pb = 50, ob = 20;
        double ta = prefill_time(r, &pa, 1), t = ta, end = t;
        uint32_t ka = 0; /* A's decodes run */
        for (; ka < 101; ka++) {
            t = end;
            end = t + decode_time(r, 1, pa + ka + 1);
        }
        double arr = t + 0.5 * (end - t);
        sim__llm_req q[2] = {{0.0, pa, oa}, {arr, pb, ob}};
        t = end + prefill_time(r, &pb, 1); /* B's first token */
        double b_first = t;
        for (uint32_t kb = 1; kb < ob; kb++, ka++)
            t += decode_time(r, 2, (uint64_t)(pa + ka + 1) + (pb + kb));
        double b_end = t;
        for (; ka < oa - 1; ka++)
            t += decode_time(r, 1, pa + ka + 1);
        sim__llm_result res;
        CHECK_EQ_INT(sim__llm_run(&c, q, 2, &res, NULL, &d), TM_OK);
        CHECK(res.ttft_s[0] == ta);
        CHECK_NEAR(res.e2e_s[0], t, 1e-12 * t);
        CHECK_NEAR(res.ttft_s[1], b_first - arr, 1e-12 * b_first);
        CHECK_NEAR(res.e2e_s[1], b_end - arr, 1e-12 * b_end);
        CHECK(res.service.iterations == (double)(2 + (oa - 1)));
        sim__llm_result_fini(&res);
    }
}

/* counts_only against the per-request outcomes of the same run, under
 * preemption, drops, API overflow, both policies, all routings, the TTFT and
 * the end-to-end rule, fixed and geometric lengths. The slots of requests in
 * flight are reused thousands of times here: a request's outcome written to
 * another's index, or a slot given back twice, moves these counts. */
static void test_counts(uint64_t seed)
{
    const sim__llm_model *m = sim__llm_model_find("llama-3.1-8b-fp8");
    const sim_gpu_type *g = builtin_type("H100");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, (unsigned long)seed);
    tm_diag d;
    tm_diag_clear(&d);
    for (int k = 0; k < 6; k++) {
        int fixed = k % 2;
        sim__llm_dist pd = {fixed ? SIM__LLM_DIST_FIXED : SIM__LLM_DIST_EXP, 1000, 0, 0, NULL, 0};
        sim__llm_dist od = {fixed ? SIM__LLM_DIST_FIXED : SIM__LLM_DIST_EXP, 200, 0, 0, NULL, 0};
        if (k == 4) /* some prompts longer than the whole cache: dropped */
            pd = (sim__llm_dist){SIM__LLM_DIST_EXP, 12000, 0, 0, NULL, 0};
        size_t n = 8000;
        sim__llm_req *q;
        CHECK_EQ_INT(sim__llm_synth(&q, n, 30.0, &pd, &od, r, &d), TM_OK);
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        c.replicas = 1 + (uint32_t)k % 3;
        c.policy = k >= 3 ? SIM__LLM_SARATHI : SIM__LLM_VLLM;
        c.route = (sim__llm_route)(k % 3);
        CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
        c.kv_blocks = k == 1 ? 100000 : 3000; /* tight: preemption */
        if (k == 2 || k == 5) {               /* overflow: at most 16 in a batch, 5 waiting */
            c.max_batch = 16;
            c.max_queue = 5;
        }
        c.api_in_usd_per_mtok = 1.0;
        c.api_out_usd_per_mtok = 3.0;
        c.outcomes_only = 1;
        c.count_e2e = k % 2 == 0;
        sim__llm_result a, b;
        CHECK_EQ_INT(sim__llm_run(&c, q, n, &a, NULL, &d), TM_OK);
        /* the SLOs at the median latency and the median TPOT of the served
         * (neither is an input of the run): both halves of the rule bite */
        double *lv = malloc(n * sizeof *lv), *pv = malloc(n * sizeof *pv);
        size_t nl = 0, np = 0;
        for (size_t i = 0; i < n; i++)
            if (a.replica[i] >= 0) {
                lv[nl++] = c.count_e2e ? a.e2e_s[i] : a.ttft_s[i];
                if (!isnan(a.tpot_s[i]))
                    pv[np++] = a.tpot_s[i];
            }
        gsl_sort(lv, 1, nl);
        gsl_sort(pv, 1, np);
        c.count_slo_s = lv[nl / 2];
        c.slo_tpot_s = pv[np / 2];
        free(lv);
        free(pv);
        c.counts_only = 1;
        CHECK_EQ_INT(sim__llm_run(&c, q, n, &b, NULL, &d), TM_OK);
        CHECK(b.ttft_s == NULL && b.replica == NULL);
        uint64_t met = 0, late = 0, api = 0, lost = 0;
        double usd = 0;
        for (size_t i = 0; i < n; i++) {
            if (a.replica[i] == -1) {
                api++;
                usd += (q[i].prompt * 1.0 + q[i].output * 3.0) / 1e6;
            } else if (a.replica[i] < 0) {
                lost++;
            } else {
                double lat = c.count_e2e ? a.e2e_s[i] : a.ttft_s[i];
                if (lat <= c.count_slo_s && !(a.tpot_s[i] > c.slo_tpot_s))
                    met++;
                else
                    late++;
            }
        }
        printf("counts %d: %u replicas, %s, met %llu late %llu api %llu dropped %llu, "
               "%llu preemptions\n",
               k, c.replicas, k >= 3 ? "sarathi" : "vllm", (unsigned long long)b.n_met,
               (unsigned long long)b.n_late, (unsigned long long)b.service.api,
               (unsigned long long)b.service.dropped, (unsigned long long)b.service.preemptions);
        CHECK_EQ_U64(b.n_met, met);
        CHECK_EQ_U64(b.n_late, late);
        CHECK_EQ_U64(b.service.api, api);
        CHECK_EQ_U64(b.service.dropped, lost);
        CHECK_EQ_U64(met + late + api + lost, n);
        CHECK(met > 0 && late > 0); /* the rule splits them */
        uint64_t late_tpot = 0;     /* within the latency SLO, late by TPOT alone */
        for (size_t i = 0; i < n; i++)
            if (a.replica[i] >= 0 && (c.count_e2e ? a.e2e_s[i] : a.ttft_s[i]) <= c.count_slo_s &&
                a.tpot_s[i] > c.slo_tpot_s)
                late_tpot++;
        CHECK(late_tpot > 0);
        CHECK_NEAR(b.api_usd, usd, 1e-9 * usd);
        CHECK(b.service.iterations == a.service.iterations);
        CHECK(b.service.busy_s == a.service.busy_s);
        CHECK_EQ_U64(b.service.preemptions, a.service.preemptions);
        if (k == 0 || k == 3)
            CHECK(b.service.preemptions > 0);
        if (k == 4)
            CHECK(lost > 0);
        if (k == 2 || k == 5)
            CHECK(api > 0);
        sim__llm_result_fini(&a);
        sim__llm_result_fini(&b);
        free(q);
    }
    gsl_rng_free(r);
}

/* The flat-profile deployment of the hand cases below: one iteration takes
 * 10 ms, one sequence at a time (a request of 1 + 10 tokens: 0.1 s). */
static sim__llm_cfg chain_cfg(const sim__llm_profile *p, uint32_t replicas, double slo_s)
{
    sim__llm_cfg c;
    sim__llm_cfg_defaults(&c);
    c.replicas = replicas;
    c.iter.profile = p;
    c.kv_blocks = 1000;
    c.max_batch = 1;
    c.outcomes_only = c.counts_only = 1;
    c.count_slo_s = slo_s;
    return c;
}

/* The queue carried across a piece boundary, by hand: 20 requests of 1 + 10
 * tokens arrive together at 3599.05 s, 0.95 s before the end of an hour,
 * at one replica serving one at a time (0.1 s each). Request i has its
 * first token at 0.1 i + 0.01 s after arriving and its last at 0.1 (i + 1):
 * 9 finish in the first hour, 11 in the second (idle: no arrival), counted
 * there with their latency from their arrival (e2e sum 0.1 (10 + ... + 20)
 * = 16.5 s, TTFT sum 15.51 s); with a TTFT SLO of 1.5 s, 6 of those meet it
 * (i = 9..14). Then a replica removed at a boundary: two requests on two
 * replicas, the second replica goes at 0.055 s (5 tokens made, its
 * iteration in progress lost); its request waits for the first replica's
 * (done at 0.1), recomputes its 1 + 5 tokens in one iteration (token 6 at
 * 0.11) and finishes at 0.15, its TTFT still 0.01. */
static void test_carry(void)
{
    sim__llm_profile p = flat_profile(10);
    tm_diag d;
    tm_diag_clear(&d);
    sim__llm_cfg c = chain_cfg(&p, 1, 1.5);
    sim__llm_req q[20];
    for (int i = 0; i < 20; i++)
        q[i] = (sim__llm_req){3599.05, 1, 10};
    sim__llm_state *st;
    sim__llm_counts k1, k2;
    CHECK_EQ_INT(sim__llm_state_new(&st, &c, 0.0, &d), TM_OK);
    CHECK_EQ_INT(sim__llm_state_advance(st, q, 20, 3600.0, &k1, NULL, &d), TM_OK);
    CHECK_EQ_U64(k1.met, 9);
    CHECK_EQ_U64(k1.late, 0);
    CHECK_EQ_U64(k1.in_flight, 11);
    CHECK_NEAR(k1.sum_e2e_s, 4.5, 1e-9);
    CHECK_NEAR(k1.sum_ttft_s, 3.69, 1e-9); /* 0.1 (0 + ... + 8) + 9 x 0.01 */
    /* the busy time booked in the hour: the 95 iterations started before
     * its end */
    CHECK_NEAR(k1.busy_s, 0.95, 1e-9);
    CHECK_EQ_INT(sim__llm_state_advance(st, NULL, 0, 7200.0, &k2, NULL, &d), TM_OK);
    CHECK_EQ_U64(k2.met, 6);
    CHECK_EQ_U64(k2.late, 5);
    CHECK_EQ_U64(k2.in_flight, 0);
    CHECK_NEAR(k2.sum_e2e_s, 16.5, 1e-9);
    CHECK_NEAR(k2.sum_ttft_s, 15.51, 1e-9);
    CHECK_NEAR(k2.busy_s, 1.05, 1e-9);
    CHECK_NEAR(k1.iterations + k2.iterations, 200.0, 0.0);
    /* the queue signal (sampled at iteration starts): 19 waiting from
     * 3599.06 s (the first iteration began when the first request arrived,
     * alone), one fewer each 0.1 s, 10 in the last 0.05 s */
    CHECK_NEAR(k1.queue_sum * 3600.0,
               0.1 * (19 + 18 + 17 + 16 + 15 + 14 + 13 + 12 + 11) + 0.05 * 10 - 0.01 * 19, 1e-9);
    sim__llm_state_free(st);

    /* a replica removed at a boundary */
    c = chain_cfg(&p, 2, 1.0);
    sim__llm_req two[2] = {{0.0, 1, 10}, {0.0, 1, 10}};
    CHECK_EQ_INT(sim__llm_state_new(&st, &c, 0.0, &d), TM_OK);
    CHECK_EQ_INT(sim__llm_state_advance(st, two, 2, 0.055, &k1, NULL, &d), TM_OK);
    CHECK_EQ_U64(k1.met + k1.late, 0);
    CHECK_EQ_U64(k1.in_flight, 2);
    CHECK_EQ_INT(sim__llm_state_resize(st, 1, &d), TM_OK);
    CHECK_EQ_INT(sim__llm_state_replicas(st), 1);
    CHECK_EQ_INT(sim__llm_state_advance(st, NULL, 0, INFINITY, &k2, NULL, &d), TM_OK);
    CHECK_EQ_U64(k2.met, 2);
    CHECK_EQ_U64(k2.in_flight, 0);
    CHECK_EQ_U64(k1.preemptions + k2.preemptions, 1);
    CHECK_NEAR(k2.sum_e2e_s, 0.1 + 0.15, 1e-9);
    CHECK_NEAR(k2.sum_ttft_s, 0.01 + 0.01, 1e-9);
    /* a replica added: it starts empty and takes the next arrival */
    CHECK_EQ_INT(sim__llm_state_resize(st, 3, &d), TM_OK);
    sim__llm_state_free(st);
    /* bad calls: a piece that goes back, an arrival outside the piece */
    CHECK_EQ_INT(sim__llm_state_new(&st, &c, 10.0, &d), TM_OK);
    CHECK_EQ_INT(sim__llm_state_advance(st, NULL, 0, 9.0, &k1, NULL, &d), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__llm_state_advance(st, two, 2, 11.0, &k1, NULL, &d), TM_ERR_INVAL);
    sim__llm_state_free(st);
    c.counts_only = 0;
    CHECK_EQ_INT(sim__llm_state_new(&st, &c, 0.0, &d), TM_ERR_INVAL);
    sim__llm_profile_fini(&p);
}

/* Piecing is invisible: the same requests run as one piece, as hundreds of
 * pieces (cut at fixed steps, and at arrival times) and by sim__llm_run
 * give the same counts, latency sums, iterations and preemptions, to the
 * bit (the events happen in the same order on the same state), on loads
 * that queue at the cuts (both policies, tight memory with preemptions,
 * all routings, API overflow; the roofline's closed stretches and a
 * measured profile's walked ones). A chain that served its backlog in its own
 * piece, or started a piece with empty replicas, fails it. */
static void test_chain(uint64_t seed)
{
    const sim__llm_model *m = sim__llm_model_find("llama-3.1-8b-fp8");
    const sim_gpu_type *g = builtin_type("H100");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, (unsigned long)seed);
    tm_diag d;
    tm_diag_clear(&d);
    /* k = 4: a measured profile (decode stretches walked, not closed) */
    const char *grid = "prefill_tokens,decode_seqs,kv_tokens,time_ms\n"
                       "0,1,0,5\n0,1,200000,15\n0,256,0,10\n0,256,200000,20\n"
                       "4096,1,0,25\n4096,1,200000,35\n4096,256,0,30\n4096,256,200000,40\n";
    sim__llm_profile prof;
    CHECK_EQ_INT(sim__llm_profile_parse(&prof, "grid.csv", grid, strlen(grid), &d), TM_OK);
    for (int k = 0; k < 5; k++) {
        sim__llm_dist pd = {SIM__LLM_DIST_EXP, 800, 0, 0, NULL, 0};
        sim__llm_dist od = {k % 2 ? SIM__LLM_DIST_FIXED : SIM__LLM_DIST_EXP, 200, 0, 0, NULL, 0};
        size_t n = 6000;
        sim__llm_req *q;
        /* about 1.3 times what the replicas serve: a queue at every cut */
        CHECK_EQ_INT(sim__llm_synth(&q, n, 40.0 + 10.0 * k, &pd, &od, r, &d), TM_OK);
        sim__llm_cfg c;
        sim__llm_cfg_defaults(&c);
        c.replicas = 2 + (uint32_t)k;
        c.policy = k % 2 ? SIM__LLM_SARATHI : SIM__LLM_VLLM;
        c.route = (sim__llm_route)(k % 3);
        CHECK_EQ_INT(sim__llm_roofline_init(&c.iter.roof, m, g, 1, &d), TM_OK);
        if (k == 4)
            c.iter.profile = &prof;
        /* tight: preemption; block phases of 16, 12 (no mask) and 128 */
        c.block_tokens = k == 1 ? 12 : k == 2 ? 128 : 16;
        c.kv_blocks = 1500 * 16 / c.block_tokens;
        if (k == 3) {
            c.max_batch = 24;
            c.max_queue = 40;
            c.api_in_usd_per_mtok = 1.0;
        }
        c.outcomes_only = c.counts_only = 1;
        c.count_slo_s = 2.0;
        sim__llm_result ref;
        CHECK_EQ_INT(sim__llm_run(&c, q, n, &ref, NULL, &d), TM_OK);
        CHECK(ref.service.preemptions > 0);
        sim__llm_counts one[3];
        for (int cut = 0; cut < 3; cut++) {
            /* cut 0: one piece; 1: every 0.7 s; 2: at every 37th arrival */
            sim__llm_state *st;
            sim__llm_cfg cs = c;
            cs.no_series = cut == 2; /* without series: the same outcomes */
            CHECK_EQ_INT(sim__llm_state_new(&st, &cs, 0.0, &d), TM_OK);
            sim__llm_counts *s = &one[cut];
            memset(s, 0, sizeof *s);
            size_t i = 0, pieces = 0;
            uint64_t carried = 0;
            while (i < n) {
                double t1 = cut == 0   ? INFINITY
                            : cut == 1 ? 0.7 * (double)(pieces + 1)
                                       : q[i + 37 < n ? i + 37 : n - 1].t_s;
                if (cut == 2 && i + 37 >= n)
                    t1 = INFINITY;
                size_t j = i;
                while (j < n && q[j].t_s < t1)
                    j++;
                CHECK_EQ_INT(sim__llm_state_resize(st, c.replicas, &d), TM_OK);
                sim__llm_counts x;
                CHECK_EQ_INT(sim__llm_state_advance(st, q + i, j - i, t1, &x, NULL, &d), TM_OK);
                s->met += x.met, s->late += x.late, s->api += x.api, s->dropped += x.dropped;
                s->sum_ttft_s += x.sum_ttft_s, s->sum_e2e_s += x.sum_e2e_s;
                s->iterations += x.iterations, s->busy_s += x.busy_s;
                s->preemptions += x.preemptions, s->api_usd += x.api_usd;
                carried += x.in_flight;
                i = j;
                pieces++;
            }
            sim__llm_counts x;
            CHECK_EQ_INT(sim__llm_state_advance(st, NULL, 0, INFINITY, &x, NULL, &d), TM_OK);
            s->met += x.met, s->late += x.late, s->api += x.api, s->dropped += x.dropped;
            s->iterations += x.iterations, s->preemptions += x.preemptions;
            s->sum_ttft_s += x.sum_ttft_s, s->sum_e2e_s += x.sum_e2e_s, s->busy_s += x.busy_s;
            CHECK_EQ_U64(sim__llm_state_in_flight(st), 0);
            sim__llm_state_free(st);
            if (cut) {
                CHECK(pieces > 100);
                CHECK(carried > 1000); /* requests in flight at the cuts */
            }
            /* against the single run: the counts and sums to the bit (the
             * latency sums only for the pieces that add one by one) */
            CHECK_EQ_U64(s->met, ref.n_met);
            CHECK_EQ_U64(s->late, ref.n_late);
            CHECK_EQ_U64(s->api, ref.service.api);
            CHECK_EQ_U64(s->dropped, ref.service.dropped);
            CHECK_EQ_U64(s->preemptions, ref.service.preemptions);
            CHECK(s->iterations == ref.service.iterations);
            CHECK_NEAR(s->busy_s, ref.service.busy_s, 1e-9 * ref.service.busy_s);
            CHECK_NEAR(s->sum_e2e_s, ref.sum_e2e_s, 1e-9 * ref.sum_e2e_s);
            CHECK_NEAR(s->sum_ttft_s, ref.sum_ttft_s, 1e-9 * ref.sum_ttft_s);
            CHECK_NEAR(s->api_usd, ref.api_usd, 1e-9 * (ref.api_usd + 1e-300));
        }
        CHECK(one[0].sum_e2e_s == ref.sum_e2e_s);
        CHECK(one[0].sum_ttft_s == ref.sum_ttft_s);
        sim__llm_result_fini(&ref);
        free(q);
    }
    sim__llm_profile_fini(&prof);
    gsl_rng_free(r);
}

/* A request-mode service's accounting (sim__svc_interval_request) over an
 * overloaded hour (80 requests/s of 1,000 + 200 tokens at one H100 replica
 * of 8B FP8) and an idle one: the backlog at the end of the first hour is
 * served in the second and counted there (the demand is counted where it
 * arrives), the rest at the end of the run (sim__svc_request_finish): every
 * request is counted once. The same service with a request-level signal
 * draws each hour at once instead of in chunks ahead of the simulation:
 * the same counts to the bit. */
static void test_svc(uint64_t seed)
{
    size_t nt;
    const sim_gpu_type *types = sim_catalog_builtin(&nt);
    int h100 = sim_catalog_find(types, nt, "H100");
    tm_diag d;
    tm_diag_clear(&d);
    sim__svc_cfg c;
    sim__svc_cfg_defaults(&c);
    c.request_mode = 1;
    snprintf(c.llm_model, sizeof c.llm_model, "llama-3.1-8b-fp8");
    c.tokens_in_per_req = 1000.0;
    c.tokens_out_per_req = 200.0;
    c.tokens_per_s[h100] = 3400.0;
    c.concurrency[h100] = 64;
    c.load.rate_per_s = 80.0;
    for (int h = 0; h < 24; h++)
        c.load.daily[h] = h == 0 ? 1.0 : 0.0;
    uint32_t ready[PLACE_MAX_TYPES] = {0};
    ready[h100] = 1;
    const int64_t H = 3600 * SIM_US_PER_S;
    sim__svc_acct got[2][3];
    for (int sig = 0; sig < 2; sig++) {
        sim__svc_cfg cc = c;
        if (sig) {
            cc.scale_signal = SIM__SVC_SIGNAL_KV;
            cc.scale_target = 0.5;
        }
        sim__svc_pool p;
        CHECK_EQ_INT(sim__svc_pool_init(&p, &cc, ready, nt, &d), TM_OK);
        sim__svc_acct a;
        memset(&a, 0, sizeof a);
        sim__svc_reqstate *rq = NULL;
        CHECK_EQ_INT(sim__svc_interval_request(&p, types, 0, H, seed, &rq, &a, NULL, &d), TM_OK);
        got[sig][0] = a;
        CHECK_EQ_INT(sim__svc_interval_request(&p, types, H, 2 * H, seed, &rq, &a, NULL, &d),
                     TM_OK);
        got[sig][1] = a;
        CHECK_EQ_INT(sim__svc_request_finish(&rq, &a, NULL, &d), TM_OK);
        CHECK(rq == NULL);
        got[sig][2] = a;
    }
    const sim__svc_acct *h1 = &got[0][0], *h2 = &got[0][1], *end = &got[0][2];
    double done1 = h1->slo_ok.req + h1->late.req, done2 = h2->slo_ok.req + h2->late.req;
    double done3 = end->slo_ok.req + end->late.req;
    CHECK(h1->demanded.req > 250000.0);          /* about 288,000 */
    CHECK(done1 < 0.8 * h1->demanded.req);       /* a backlog at the end of the hour */
    CHECK(h2->demanded.req == h1->demanded.req); /* nothing arrives in the second */
    CHECK(done2 > done1 + 10000.0);              /* served and counted there */
    CHECK(h2->late.req > h1->late.req);          /* late: they waited since hour 1 */
    CHECK(done3 + end->unserved.req + end->api.req == end->demanded.req);
    CHECK(end->unserved.req == 0.0 && end->api.req == 0.0);
    for (int k = 0; k < 3; k++) {
        CHECK(got[1][k].slo_ok.req == got[0][k].slo_ok.req);
        CHECK(got[1][k].late.req == got[0][k].late.req);
        CHECK(got[1][k].demanded.req == got[0][k].demanded.req);
    }
}

/* Replicas added at a boundary, by hand (a flat 10 ms iteration, one
 * sequence at a time, requests of 1 + 10 tokens: 0.1 s each). A, B, C
 * arrive at 0 at one replica; at 0.05 s (A running, B and C waiting) a
 * second replica is added; D arrives at 0.07 s.
 * central: the new replica takes the queue's front at once: B starts at
 *   0.05 (TTFT 0.06, done 0.15); D waits behind C; A ends at 0.1 and
 *   replica 0 takes C (TTFT 0.11, done 0.2); B ends at 0.15 and replica 1
 *   takes D (first token 0.16: TTFT 0.09; done 0.25: e2e 0.18).
 * least: B and C stay where they were routed (replica 0: TTFT 0.11 and
 *   0.21, done 0.2 and 0.3); D goes to the new replica, the fewest
 *   outstanding (TTFT 0.01, e2e 0.1).
 * With a TTFT SLO of 0.1 s: central 3 met (A, B, D), 1 late (C); least 2
 * met (A, D), 2 late. Nothing ends in the first piece. */
static void test_grow(void)
{
    sim__llm_profile p = flat_profile(10);
    tm_diag d;
    tm_diag_clear(&d);
    for (int central = 0; central < 2; central++) {
        sim__llm_cfg c = chain_cfg(&p, 1, 0.1);
        c.route = central ? SIM__LLM_ROUTE_CENTRAL : SIM__LLM_ROUTE_LEAST;
        sim__llm_req abc[3] = {{0.0, 1, 10}, {0.0, 1, 10}, {0.0, 1, 10}};
        sim__llm_req dd = {0.07, 1, 10};
        sim__llm_state *st;
        sim__llm_counts k1, k2;
        CHECK_EQ_INT(sim__llm_state_new(&st, &c, 0.0, &d), TM_OK);
        CHECK_EQ_INT(sim__llm_state_advance(st, abc, 3, 0.05, &k1, NULL, &d), TM_OK);
        CHECK_EQ_U64(k1.met + k1.late, 0);
        CHECK_EQ_U64(k1.in_flight, 3);
        CHECK_EQ_INT(sim__llm_state_resize(st, 2, &d), TM_OK);
        CHECK_EQ_INT(sim__llm_state_advance(st, &dd, 1, INFINITY, &k2, NULL, &d), TM_OK);
        CHECK_EQ_U64(k2.in_flight, 0);
        CHECK_EQ_U64(k1.preemptions + k2.preemptions, 0);
        /* 4 requests of 1 prefill and 9 decodes, one at a time */
        CHECK_NEAR(k1.iterations + k2.iterations, 40.0, 0.0);
        if (central) {
            CHECK_EQ_U64(k2.met, 3);
            CHECK_EQ_U64(k2.late, 1);
            CHECK_NEAR(k2.sum_ttft_s, 0.01 + 0.06 + 0.11 + 0.09, 1e-9);
            CHECK_NEAR(k2.sum_e2e_s, 0.1 + 0.15 + 0.2 + 0.18, 1e-9);
        } else {
            CHECK_EQ_U64(k2.met, 2);
            CHECK_EQ_U64(k2.late, 2);
            CHECK_NEAR(k2.sum_ttft_s, 0.01 + 0.11 + 0.21 + 0.01, 1e-9);
            CHECK_NEAR(k2.sum_e2e_s, 0.1 + 0.2 + 0.3 + 0.1, 1e-9);
        }
        printf("grow %s: met %llu late %llu, TTFT sum %.4f s, e2e sum %.4f s\n",
               central ? "central" : "least", (unsigned long long)k2.met,
               (unsigned long long)k2.late, k2.sum_ttft_s, k2.sum_e2e_s);
        sim__llm_state_free(st);
    }
    sim__llm_profile_fini(&p);
}

/* A request-mode service of 8B FP8 with a TTFT SLO of 2 s: 80 requests/s of
 * 1,000 + 200 tokens in the hours whose factor is 1 (an overload of one
 * replica), 0.08/s in those at 0.001 (light: a request is served alone). */
static sim__svc_cfg svc_req_cfg(const sim_gpu_type *types, size_t nt)
{
    sim__svc_cfg c;
    sim__svc_cfg_defaults(&c);
    c.request_mode = 1;
    snprintf(c.llm_model, sizeof c.llm_model, "llama-3.1-8b-fp8");
    c.tokens_in_per_req = 1000.0;
    c.tokens_out_per_req = 200.0;
    const char *gpus[2] = {"H100", "H200"};
    for (int i = 0; i < 2; i++) {
        int g = sim_catalog_find(types, nt, gpus[i]);
        c.tokens_per_s[g] = 3400.0;
        c.concurrency[g] = 64;
    }
    c.load.rate_per_s = 80.0;
    return c;
}

static double svc_done(const sim__svc_acct *a)
{
    return a->slo_ok.req + a->late.req;
}

/* What a service holds (routed, not finished) after the pieces counted in a:
 * every arrival is counted once, where it ends (or unserved, or at the API). */
static double svc_held(const sim__svc_acct *a)
{
    return a->demanded.req - svc_done(a) - a->unserved.req - a->api.req;
}

/* A specialization between pieces (the pool's configuration changes:
 * another sim__svc_cfg): hour 0 overloads one H100 replica of
 * configuration A (1,000 + 200 tokens) and leaves a backlog b; hours 1 and
 * 2 run configuration B (500 + 100 tokens, 0.08/s) on a new replica, or
 * (loading) with no ready replica in hour 1, as in a fleet run where B's
 * replicas load first. The rule: the b requests of A are served to the end
 * on A's replicas and counted in hour 1 with A's tokens (the requests
 * counted there are b of 1,000 prompt tokens and the rest of 500:
 * b = (prompt tokens - 500 x requests) / 500); B starts empty, so each of
 * its requests is served alone and meets the SLO (in its hour, or at the
 * end of the run for one in flight at the last hour's end), or, loading,
 * hour 1's are unserved (at B's tokens); every request is counted once.
 * Requests meeting the SLO are told apart the same way by their tokens:
 * they are B's requests, all those served. */
static void test_special(uint64_t seed)
{
    size_t nt;
    const sim_gpu_type *types = sim_catalog_builtin(&nt);
    int h100 = sim_catalog_find(types, nt, "H100");
    tm_diag d;
    tm_diag_clear(&d);
    sim__svc_cfg ca = svc_req_cfg(types, nt), cb;
    for (int h = 0; h < 24; h++)
        ca.load.daily[h] = h == 0 ? 1.0 : 0.001;
    cb = ca;
    cb.tokens_in_per_req = 500.0;
    cb.tokens_out_per_req = 100.0;
    uint32_t ready[PLACE_MAX_TYPES] = {0}, none[PLACE_MAX_TYPES] = {0};
    ready[h100] = 1;
    sim__svc_pool pa, pb, pb0;
    CHECK_EQ_INT(sim__svc_pool_init(&pa, &ca, ready, nt, &d), TM_OK);
    CHECK_EQ_INT(sim__svc_pool_init(&pb, &cb, ready, nt, &d), TM_OK);
    CHECK_EQ_INT(sim__svc_pool_init(&pb0, &cb, none, nt, &d), TM_OK);
    const int64_t H = 3600 * SIM_US_PER_S;
    for (int loading = 0; loading < 2; loading++) {
        sim__svc_acct a, h[4];
        memset(&a, 0, sizeof a);
        memset(h, 0, sizeof h);
        const sim__svc_pool *pools[3] = {&pa, loading ? &pb0 : &pb, &pb};
        sim__svc_reqstate *rq = NULL;
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(sim__svc_interval_request(pools[k], types, k * H, (k + 1) * H, seed, &rq,
                                                   &a, NULL, &d),
                         TM_OK);
            h[k + 1] = a;
        }
        CHECK_EQ_INT(sim__svc_request_finish(&rq, &a, NULL, &d), TM_OK);
        CHECK(rq == NULL);
        const sim__svc_acct *a1 = &h[1], *a2 = &h[2], *fin = &a;
        double b = svc_held(a1);
        CHECK(b > 10000.0); /* a backlog at the switch */
        CHECK(a1->unserved.req == 0.0 && a1->api.req == 0.0);
        double nb1 = a2->demanded.req - a1->demanded.req; /* B's arrivals */
        double nb = fin->demanded.req - a1->demanded.req;
        CHECK(nb1 > 200.0 && nb > 2.0 * 200.0); /* 288 an hour expected */
        CHECK(fin->demanded.tok_in - a1->demanded.tok_in == 500.0 * nb);
        /* hour 1: A's backlog, whole, at A's tokens, and B's requests */
        double n2 = svc_done(a2) - svc_done(a1);
        double in2 = a2->slo_ok.tok_in + a2->late.tok_in - a1->slo_ok.tok_in - a1->late.tok_in;
        double old2 = (in2 - 500.0 * n2) / 500.0;
        CHECK(old2 == b);
        double lost = a2->unserved.req - a1->unserved.req;
        CHECK(lost == (loading ? nb1 : 0.0));
        CHECK(a2->unserved.tok_in - a1->unserved.tok_in == 500.0 * lost);
        if (loading)
            CHECK(n2 == b);
        /* after hour 1: B's requests only */
        double n3 = svc_done(fin) - svc_done(a2);
        double in3 = fin->slo_ok.tok_in + fin->late.tok_in - a2->slo_ok.tok_in - a2->late.tok_in;
        CHECK(in3 == 500.0 * n3);
        CHECK(svc_held(fin) == 0.0);
        CHECK(fin->unserved.req == a2->unserved.req && fin->api.req == 0.0);
        /* B's requests served all meet the SLO (they start empty); A's
         * backlog waited far beyond 2 s */
        double ok = fin->slo_ok.req - a1->slo_ok.req;
        double okin = fin->slo_ok.tok_in - a1->slo_ok.tok_in;
        CHECK((1000.0 * ok - okin) / 500.0 == nb - lost);
        CHECK(ok == nb - lost);
        printf("special%s: backlog %.0f of A counted at the switch, B %.0f requests (%.0f "
               "unserved), the served all within the SLO\n",
               loading ? " (loading)" : "", old2, nb, lost);
    }
}

/* A GPU type left without a ready replica, a service of one configuration
 * on H100 and H200. Hour 0: one H100, overloaded (a backlog b0). Hour 1:
 * one H200 only, overloaded: the H100's b0 are lost, unserved in hour 1
 * (none served there, so the H200 starts empty: nothing of b0 ever ends);
 * the H200's backlog b1 (hour 1's arrivals, unfinished). Hour 2: no ready
 * replica, 0.08/s: b1 lost, unserved, and the hour's arrivals unserved (or
 * at the API with "overflow": "api"). Hour 3: one H100 again, 0.08/s: it
 * starts empty, and every request of the hour meets the SLO (in the hour
 * or at the end of the run). Every request is counted once. */
static void test_noready(uint64_t seed)
{
    size_t nt;
    const sim_gpu_type *types = sim_catalog_builtin(&nt);
    int h100 = sim_catalog_find(types, nt, "H100"), h200 = sim_catalog_find(types, nt, "H200");
    tm_diag d;
    tm_diag_clear(&d);
    for (int api = 0; api < 2; api++) {
        sim__svc_cfg c = svc_req_cfg(types, nt);
        for (int h = 0; h < 24; h++)
            c.load.daily[h] = h < 2 ? 1.0 : 0.001;
        if (api)
            c.overflow = SIM__SVC_OVERFLOW_API;
        uint32_t rh100[PLACE_MAX_TYPES] = {0}, rh200[PLACE_MAX_TYPES] = {0},
                 none[PLACE_MAX_TYPES] = {0};
        rh100[h100] = 1;
        rh200[h200] = 1;
        sim__svc_pool p100, p200, p0;
        CHECK_EQ_INT(sim__svc_pool_init(&p100, &c, rh100, nt, &d), TM_OK);
        CHECK_EQ_INT(sim__svc_pool_init(&p200, &c, rh200, nt, &d), TM_OK);
        CHECK_EQ_INT(sim__svc_pool_init(&p0, &c, none, nt, &d), TM_OK);
        const sim__svc_pool *pools[4] = {&p100, &p200, &p0, &p100};
        const int64_t H = 3600 * SIM_US_PER_S;
        sim__svc_acct a, h[5];
        memset(&a, 0, sizeof a);
        memset(h, 0, sizeof h);
        sim__svc_reqstate *rq = NULL;
        for (int k = 0; k < 4; k++) {
            CHECK_EQ_INT(sim__svc_interval_request(pools[k], types, k * H, (k + 1) * H, seed, &rq,
                                                   &a, NULL, &d),
                         TM_OK);
            h[k + 1] = a;
        }
        CHECK_EQ_INT(sim__svc_request_finish(&rq, &a, NULL, &d), TM_OK);
        CHECK(rq == NULL);
        sim__svc_acct fin = a;
#define D(f, k) (h[(k) + 1].f - h[k].f)
        double b0 = svc_held(&h[1]);
        CHECK(b0 > 100.0); /* 64 wait at most with the API */
        CHECK(h[1].unserved.req == 0.0);
        /* hour 1: the H100's requests lost, the H200's own hour */
        CHECK(D(unserved.req, 1) == b0);
        CHECK(D(unserved.tok_in, 1) == 1000.0 * b0);
        double b1 = svc_held(&h[2]);
        CHECK(b1 > 100.0);
        CHECK(D(demanded.req, 1) == svc_done(&h[2]) - svc_done(&h[1]) + D(api.req, 1) + b1);
        /* hour 2: nothing ready */
        CHECK(svc_done(&h[3]) == svc_done(&h[2]));
        CHECK(D(demanded.req, 2) > 200.0);
        CHECK(D(unserved.req, 2) == b1 + (api ? 0.0 : D(demanded.req, 2)));
        CHECK(D(api.req, 2) == (api ? D(demanded.req, 2) : 0.0));
        CHECK(svc_held(&h[3]) == 0.0);
        /* hour 3: an H100 again, empty */
        CHECK(D(unserved.req, 3) == 0.0 && D(api.req, 3) == 0.0);
        CHECK(fin.slo_ok.req - h[3].slo_ok.req == D(demanded.req, 3));
        CHECK(fin.late.req == h[3].late.req);
        CHECK(svc_held(&fin) == 0.0);
        CHECK(fin.unserved.req == h[4].unserved.req);
        if (!api)
            CHECK(fin.api.req == 0.0);
        printf("noready %s: lost %.0f (H100, hour 1) and %.0f (H200, hour 2), hour 2's %.0f "
               "arrivals %s\n",
               api ? "api" : "miss", b0, b1, D(demanded.req, 2), api ? "to the API" : "unserved");
#undef D
    }
}

/* The deployment of test_winners: r replicas, tight memory (preemptions). */
static void winners_cfg(sim__llm_cfg *c, uint32_t r, int k, const sim__llm_model *m,
                        const sim_gpu_type *g, tm_diag *d)
{
    sim__llm_cfg_defaults(c);
    c->replicas = r;
    c->route = (sim__llm_route)(k % 3);
    c->policy = k % 2 ? SIM__LLM_SARATHI : SIM__LLM_VLLM;
    CHECK_EQ_INT(sim__llm_roofline_init(&c->iter.roof, m, g, 1, d), TM_OK);
    c->kv_blocks = 1500;
}

static void test_winners(uint64_t seed)
{
    const sim__llm_model *m = sim__llm_model_find("llama-3.1-8b-fp8");
    const sim_gpu_type *g = builtin_type("H100");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    tm_diag d;
    tm_diag_clear(&d);
    static const uint32_t reps[] = {1, 2, 3, 5, 8, 13, 16, 17, 33, 64, 65, 80};
    for (size_t ri = 0; ri < sizeof reps / sizeof *reps; ri++) {
        for (int k = 0; k < 3; k++) {
            uint32_t r = reps[ri];
            sim__llm_dist pd = {SIM__LLM_DIST_EXP, 600, 0, 0, NULL, 0};
            sim__llm_dist od = {SIM__LLM_DIST_EXP, 150, 0, 0, NULL, 0};
            size_t n = 3000;
            sim__llm_req *q;
            /* about what the replicas serve: idle ones, ties, queues */
            CHECK_EQ_INT(sim__llm_synth(&q, n, 9.0 * r, &pd, &od, rng, &d), TM_OK);
            sim__llm_result a, b;
            sim__llm_cfg c;
            winners_cfg(&c, r, k, m, g, &d);
            CHECK_EQ_INT(sim__llm_run(&c, q, n, &a, NULL, &d), TM_OK);
            c.trees_always = 1;
            CHECK_EQ_INT(sim__llm_run(&c, q, n, &b, NULL, &d), TM_OK);
            size_t differ = 0;
            for (size_t i = 0; i < n; i++)
                differ += a.replica[i] != b.replica[i] ||
                          memcmp(&a.ttft_s[i], &b.ttft_s[i], sizeof(double)) ||
                          memcmp(&a.tpot_s[i], &b.tpot_s[i], sizeof(double)) ||
                          memcmp(&a.e2e_s[i], &b.e2e_s[i], sizeof(double));
            if (differ)
                fprintf(stderr, "winners: %u replicas, route %d: %zu requests differ\n",
                        (unsigned)r, k, differ);
            CHECK_EQ_U64(differ, 0);
            CHECK(a.service.iterations == b.service.iterations);
            sim__llm_result_fini(&a);
            sim__llm_result_fini(&b);
            free(q);
        }
    }
    /* a chain resized across the thresholds, piece by piece */
    static const uint32_t sizes[] = {10, 20, 70, 3, 16, 17, 65, 64, 1, 40, 12};
    size_t ns = sizeof sizes / sizeof *sizes;
    for (int k = 0; k < 3; k++) {
        sim__llm_dist pd = {SIM__LLM_DIST_EXP, 600, 0, 0, NULL, 0};
        sim__llm_dist od = {SIM__LLM_DIST_EXP, 150, 0, 0, NULL, 0};
        size_t n = 20000;
        sim__llm_req *q;
        CHECK_EQ_INT(sim__llm_synth(&q, n, 200.0, &pd, &od, rng, &d), TM_OK);
        sim__llm_counts tot[2];
        for (int t = 0; t < 2; t++) {
            sim__llm_cfg c;
            winners_cfg(&c, sizes[0], k, m, g, &d);
            c.outcomes_only = c.counts_only = c.no_series = 1;
            c.count_slo_s = 2.0;
            c.trees_always = t;
            sim__llm_state *st;
            CHECK_EQ_INT(sim__llm_state_new(&st, &c, 0.0, &d), TM_OK);
            memset(&tot[t], 0, sizeof tot[t]);
            double span = q[n - 1].t_s / (double)ns;
            size_t i = 0;
            for (size_t p = 0; p <= ns; p++) {
                double t1 = p == ns ? INFINITY : span * (double)(p + 1);
                size_t j = i;
                while (j < n && q[j].t_s < t1)
                    j++;
                if (p < ns)
                    CHECK_EQ_INT(sim__llm_state_resize(st, sizes[p], &d), TM_OK);
                sim__llm_counts x;
                CHECK_EQ_INT(sim__llm_state_advance(st, q + i, j - i, t1, &x, NULL, &d), TM_OK);
                sim__llm_counts *s = &tot[t];
                s->met += x.met, s->late += x.late, s->api += x.api, s->dropped += x.dropped;
                s->sum_ttft_s += x.sum_ttft_s, s->sum_e2e_s += x.sum_e2e_s;
                s->iterations += x.iterations, s->busy_s += x.busy_s;
                s->preemptions += x.preemptions;
                i = j;
            }
            sim__llm_state_free(st);
        }
        CHECK_EQ_U64(tot[0].met, tot[1].met);
        CHECK_EQ_U64(tot[0].late, tot[1].late);
        CHECK_EQ_U64(tot[0].dropped, tot[1].dropped);
        CHECK_EQ_U64(tot[0].preemptions, tot[1].preemptions);
        CHECK(tot[0].preemptions > 0);
        CHECK(tot[0].sum_ttft_s == tot[1].sum_ttft_s);
        CHECK(tot[0].sum_e2e_s == tot[1].sum_e2e_s);
        CHECK(tot[0].iterations == tot[1].iterations);
        CHECK(tot[0].busy_s == tot[1].busy_s);
        free(q);
    }
    gsl_rng_free(rng);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    uint64_t seed = check_seed(20261203);
    const char *only = argc > 1 ? argv[1] : NULL;
#define RUN(name, call)                                                                            \
    if (!only || strcmp(only, name) == 0)                                                          \
    call
    RUN("mdc", test_mdc(seed));
    RUN("mmc", test_mmc(seed));
    RUN("saturation", test_saturation());
    RUN("monotone", test_monotone(seed));
    RUN("profile", test_profile());
    RUN("misc", test_misc(seed));
    RUN("cut", test_cut());
    RUN("closed", test_closed());
    RUN("counts", test_counts(seed));
    RUN("carry", test_carry());
    RUN("chain", test_chain(seed));
    RUN("svc", test_svc(seed));
    RUN("grow", test_grow());
    RUN("special", test_special(seed));
    RUN("noready", test_noready(seed));
    RUN("winners", test_winners(seed));
    return check_finish("test_llm");
}
