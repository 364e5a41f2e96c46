/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_traces.c — the trace readers: each against its real file in
 * ../shared/data (TARMAC_DATA_DIR), against malformed fixtures (the reported
 * file:line, strict vs lenient), and round trips of tarmac's own format.
 *
 * Expected figures on real files were computed independently with
 * /usr/bin/python3 (csv, gzip, json modules) applying the documented rules of
 * docs/traces.md; each block says what was computed. For example SWF:
 *   for each non-';' line: f = line.split(); size = f[4] if > 0 else f[7];
 *   drop if run < 0, size <= 0, or status 5 with run <= 0; else count,
 *   sum(run), sum(size).
 */
#include "check.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

static const char *fixture(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        check_fail(__FILE__, __LINE__, "cannot write %s", path);
        return path;
    }
    fputs(text, f);
    fclose(f);
    return path;
}

typedef struct sums {
    uint64_t n;
    double run_s, gpus, milli, cpu, mem, submit_max_s;
    uint64_t spans, est, cls_max, shares, cpu_only, masked;
} sums;

/* Read a whole job source; returns the final status (TRACE_END on success). */
static int drain(trace_source *s, sums *m, tm_diag *d)
{
    memset(m, 0, sizeof *m);
    trace_job j;
    int rc;
    while ((rc = s->next(s->ud, &j, d)) == TM_OK) {
        m->n++;
        m->run_s += (double)j.duration_us / 1e6;
        m->gpus += j.gpus;
        m->milli += (double)j.gpus * j.gpu_milli;
        m->cpu += (double)j.cpu_milli;
        m->mem += (double)j.host_mem_mib;
        if ((double)j.submit_us / 1e6 > m->submit_max_s)
            m->submit_max_s = (double)j.submit_us / 1e6;
        m->spans += (j.flags & TRACE_JOB_CAN_SPAN) != 0;
        m->est += j.estimate_us >= 0;
        m->cls_max = j.cls > m->cls_max ? j.cls : m->cls_max;
        m->shares += j.gpu_milli < 1000;
        m->cpu_only += j.gpus == 0;
        m->masked += j.type_mask != 0;
    }
    s->close(s->ud);
    return rc;
}

static const char *data_path(const char *dir, const char *rel)
{
    static char p[4][1024];
    static int k;
    k = (k + 1) & 3;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, rel);
    return p[k];
}

/* ------------------------------------------------------------------------- */
/* real files                                                                 */

static void test_swf_real(const char *dir)
{
    struct {
        const char *file;
        uint64_t n, dropped;
        double run, size, submit_max;
        uint64_t est;
        uint32_t nodes;
    } want[] = {
        /* python: count, dropped, sum(run), sum(size), jobs with field 9 > 0, max submit */
        {"pwa-swf-logs/KTH-SP2-1996-2.1-cln.swf.gz", 28475, 1, 252634874, 218053, 29363618, 28475,
         100},
        {"pwa-swf-logs/LANL-CM5-1994-4.1-cln.swf.gz", 122057, 3, 315102736, 12369728, 62288828,
         110770, 1024},
        {"pwa-swf-logs/NASA-iPSC-1993-3.1-cln.swf.gz", 18239, 0, 13950781, 309953, 7948936, 0, 128},
        {"rlscheduler-lublin-swf/lublin_256.swf", 10000, 0, 48627667, 221010, 7711701, 0, 256},
        {"rlscheduler-lublin-swf/lublin_256_new2", 10000, 0, 16959554, 390073, 4602313, 0, 256},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        trace_source s;
        trace_swf_info info;
        trace_read_stats st;
        trace_read_opts o;
        trace_read_opts_init(&o);
        o.stats = &st;
        tm_diag d;
        int rc = trace_swf_open(&s, data_path(dir, want[i].file), &o, &info, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc != TM_OK) {
            fprintf(stderr, "%s: %s\n", d.where, d.msg);
            continue;
        }
        CHECK_EQ_U64(info.nodes, want[i].nodes);
        CHECK_EQ_U64(info.procs_per_node, 1);
        sums m;
        rc = drain(&s, &m, &d);
        CHECK_EQ_INT(rc, TRACE_END);
        CHECK_EQ_U64(m.n, want[i].n);
        CHECK_EQ_U64(st.dropped, want[i].dropped);
        CHECK_EQ_U64(st.bad, 0);
        CHECK_NEAR(m.run_s, want[i].run, 0.5);
        CHECK_NEAR(m.gpus, want[i].size, 0.5);
        CHECK_NEAR(m.submit_max_s, want[i].submit_max, 0.5);
        CHECK_EQ_U64(m.est, want[i].est);
        CHECK_EQ_U64(m.spans, want[i].n);
    }
}

static const char *const catalog_like[] = {"H100", "V100", "V100-32GB", "P100", "T4",
                                           "K80",  "A10",  "G1",        "G2",   "G3"};

static void opts_types(trace_read_opts *o)
{
    trace_read_opts_init(o);
    o->type_names = catalog_like;
    o->n_types = sizeof catalog_like / sizeof catalog_like[0];
}

static void test_openb_real(const char *dir)
{
    /* nodes; python csv: rows, sum(gpu), sum(cpu_milli), sum(memory_mib), CPU-only rows */
    struct {
        const char *file;
        uint64_t n, cpu_only;
        double gpus, cpu, mem;
    } nw[] = {
        {"alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv", 1213, 0, 6212, 107018000,
         503828480},
        {"alibaba-gpu-v2023-openb/openb_node_list_all_node.csv", 1523, 310, 6212, 125514000,
         612028416},
    };
    for (size_t i = 0; i < 2; i++) {
        trace_node_source ns;
        trace_read_opts o;
        opts_types(&o);
        tm_diag d;
        int rc = trace_openb_nodes_open(&ns, data_path(dir, nw[i].file), &o, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc)
            continue;
        trace_node nd;
        uint64_t n = 0, cpu_only = 0, g2 = 0;
        double gpus = 0, cpu = 0, mem = 0;
        while ((rc = ns.next(ns.ud, &nd, &d)) == TM_OK) {
            n++;
            cpu_only += nd.gpus == 0;
            gpus += nd.gpus;
            cpu += (double)nd.cpu_milli;
            mem += (double)nd.mem_mib;
            if (strcmp(nd.type_name, "G2") == 0)
                g2 += nd.gpus;
        }
        ns.close(ns.ud);
        CHECK_EQ_INT(rc, TRACE_END);
        CHECK_EQ_U64(n, nw[i].n);
        CHECK_EQ_U64(cpu_only, nw[i].cpu_only);
        CHECK_NEAR(gpus, nw[i].gpus, 0);
        CHECK_NEAR(cpu, nw[i].cpu, 0);
        CHECK_NEAR(mem, nw[i].mem, 0);
        CHECK_EQ_U64(g2, 4392); /* SOURCE.md: GPUs by model, G2 4392 */
    }
    /* pods; python csv: rows, sum(num_gpu * gpu_milli), sum(cpu_milli),
     * sum(deletion - (scheduled or creation)), rows with num_gpu 0, rows with gpu_spec */
    struct {
        const char *file;
        uint64_t n;
        double milli, cpu, run;
        uint64_t cpu_only, masked;
    } pw[] = {
        {"alibaba-gpu-v2023-openb/openb_pod_list_default.csv", 8152, 6086800, 85436012, 210197755,
         1088, 0},
        {"alibaba-gpu-v2023-openb/openb_pod_list_gpuspec33.csv", 8152, 6086800, 85436012, 210197755,
         1088, 2388},
        {"alibaba-gpu-v2023-openb/openb_pod_list_multigpu50.csv", 9061, 11358800, 137776412, 0,
         1088, 0},
    };
    for (size_t i = 0; i < 3; i++) {
        trace_source s;
        trace_read_opts o;
        opts_types(&o);
        tm_diag d;
        int rc = trace_openb_pods_open(&s, data_path(dir, pw[i].file), &o, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc)
            continue;
        sums m;
        rc = drain(&s, &m, &d);
        if (rc != TRACE_END)
            fprintf(stderr, "%s: %s\n", d.where, d.msg);
        CHECK_EQ_INT(rc, TRACE_END);
        CHECK_EQ_U64(m.n, pw[i].n);
        CHECK_NEAR(m.milli, pw[i].milli, 0);
        CHECK_NEAR(m.cpu, pw[i].cpu, 0);
        CHECK_NEAR(m.run_s, pw[i].run, 0.001);
        CHECK_EQ_U64(m.cpu_only, pw[i].cpu_only);
        CHECK_EQ_U64(m.masked, pw[i].masked);
        CHECK_EQ_U64(m.shares, pw[i].n == 8152 ? 3078 : m.shares); /* SOURCE.md: 3078 sharing */
    }
    /* a re-sampled list is not in creation order: strict stops at the first
     * row out of order; any_order reads it all */
    trace_source s;
    trace_read_opts o;
    opts_types(&o);
    tm_diag d;
    const char *un = data_path(dir, "alibaba-gpu-v2023-openb/openb_pod_list_gpushare40.csv");
    CHECK_EQ_INT(trace_openb_pods_open(&s, un, &o, &d), TM_OK);
    sums m;
    CHECK_EQ_INT(drain(&s, &m, &d), TM_ERR_TRACE);
    CHECK(strstr(d.msg, "submit order") != NULL);
    o.any_order = 1;
    CHECK_EQ_INT(trace_openb_pods_open(&s, un, &o, &d), TM_OK);
    CHECK_EQ_INT(drain(&s, &m, &d), TRACE_END);
    CHECK_EQ_U64(m.n, 8152);
}

static void test_pai_real(const char *dir)
{
    /* python csv: 1897 lines (SOURCE.md says 1,896; wc -l and csv.reader count
     * 1897), sum(cap_gpu) 6742, sum(cap_cpu) 156576, sum(cap_mem) 948224 GB,
     * 83 CPU machines */
    trace_node_source ns;
    trace_read_opts o;
    opts_types(&o);
    tm_diag d;
    int rc = trace_pai_machines_open(
        &ns, data_path(dir, "alibaba-gpu-v2020-pai/pai_machine_spec.csv"), &o, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return;
    trace_node nd;
    uint64_t n = 0, cpu_only = 0, k80 = 0;
    double gpus = 0, cpu = 0, mem = 0;
    while ((rc = ns.next(ns.ud, &nd, &d)) == TM_OK) {
        n++;
        cpu_only += nd.gpus == 0;
        gpus += nd.gpus;
        cpu += (double)nd.cpu_milli;
        mem += (double)nd.mem_mib;
        k80 += strcmp(nd.type_name, "K80") == 0 ? nd.gpus : 0;
    }
    ns.close(ns.ud);
    CHECK_EQ_INT(rc, TRACE_END);
    CHECK_EQ_U64(n, 1897);
    CHECK_EQ_U64(cpu_only, 83);
    CHECK_NEAR(gpus, 6742, 0);
    CHECK_NEAR(cpu, 156576.0 * 1000, 0);
    CHECK_NEAR(mem, 948224.0 * 1024, 0);
    CHECK_EQ_U64(k80, 280 * 8); /* SOURCE.md: MISC 280 x 8 GPU */
}

static void test_azure_real(const char *dir)
{
    /* python csv: rows, sum(num_prefill_tokens), sum(num_decode_tokens); bins
     * of 60 s: count, requests in bin 0 */
    struct {
        const char *file;
        uint64_t n;
        double prompt, output;
        size_t bins;
        double bin0;
    } w[] = {
        {"azure-llm-inference-2023/splitwise_conv.csv", 19366, 22361870, 4088665, 59, 191},
        {"azure-llm-inference-2023/splitwise_code.csv", 8819, 18059974, 245896, 58, 63},
    };
    for (size_t i = 0; i < 2; i++) {
        trace_request_source rs;
        tm_diag d;
        int rc = trace_azure_llm_open(&rs, data_path(dir, w[i].file), NULL, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc)
            continue;
        trace_load_profile p;
        rc = trace_load_profile_build(&p, &rs, 60, &d);
        rs.close(rs.ud);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc)
            continue;
        CHECK_EQ_U64(p.requests, w[i].n);
        CHECK_NEAR(p.prompt_tokens, w[i].prompt, 0);
        CHECK_NEAR(p.output_tokens, w[i].output, 0);
        CHECK_EQ_U64(p.n_bins, w[i].bins);
        CHECK_NEAR(p.requests_per_s[0] * 60, w[i].bin0, 1e-9);
        double tot = 0;
        for (size_t b = 0; b < p.n_bins; b++)
            tot += p.prompt_tokens_per_s[b] * 60;
        CHECK_NEAR(tot, w[i].prompt, 1e-3);
        trace_load_profile_fini(&p);
    }
}

static void test_gavel_real(const char *dir)
{
    trace_gavel_matrix *m = NULL;
    tm_diag d;
    int rc = trace_gavel_matrix_load(&m, data_path(dir, "gavel/simulation_throughputs.json"), &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        return;
    }
    const char *const *names;
    /* python json: 6 worker types; 83 keys each (SOURCE.md), 26 job types */
    CHECK_EQ_U64(trace_gavel_matrix_workers(m, &names), 6);
    CHECK_EQ_U64(trace_gavel_matrix_job_types(m, &names), 26);
    /* SOURCE.md: ResNet-50 (bs 64) 0.619 / 2.619 / 4.395 on k80 / p100 / v100 */
    CHECK_NEAR(trace_gavel_matrix_tput(m, "v100", "ResNet-50 (batch size 64)", 1), 4.395, 5e-4);
    CHECK_NEAR(trace_gavel_matrix_tput(m, "k80", "ResNet-50 (batch size 64)", 1), 0.619, 5e-4);
    CHECK(isnan(trace_gavel_matrix_tput(m, "v100", "ResNet-50 (batch size 64)", 16)));
    /* python: per trace, jobs, sum(total_steps / tput[v100][type, scale]) with
     * the largest-scale-below fallback, jobs that needed it, sum(scale) */
    struct {
        const char *file;
        uint64_t n;
        double run;
        uint64_t approx;
        double gpus;
    } w[] = {
        {"gavel/traces/msr/seed=0/0e4a51.trace", 1181, 173263307.075, 197, 3236},
        {"gavel/traces/msr/seed=0/ee9e8c.trace", 2000, 239398989.802, 373, 8587},
        {"gavel/traces/msr/seed=0/23dbec.trace", 9, 20114.731, 1, 58},
        {"gavel/traces/physical_cluster/small_test.trace", 20, 1163.624, 0, 0},
    };
    for (size_t i = 0; i < 4; i++) {
        trace_source s;
        uint64_t approx;
        rc = trace_gavel_open(&s, data_path(dir, w[i].file), m, "v100", NULL, &approx, &d);
        CHECK_EQ_INT(rc, TM_OK);
        if (rc)
            continue;
        sums t;
        rc = drain(&s, &t, &d);
        if (rc != TRACE_END)
            fprintf(stderr, "%s: %s\n", d.where, d.msg);
        CHECK_EQ_INT(rc, TRACE_END);
        CHECK_EQ_U64(t.n, w[i].n);
        CHECK_NEAR(t.run_s, w[i].run, 0.01 + 1e-6 * (double)w[i].n);
        CHECK_EQ_U64(approx, w[i].approx);
        if (w[i].gpus > 0)
            CHECK_NEAR(t.gpus, w[i].gpus, 0);
        CHECK(t.cls_max < 26);
    }
    /* per-type speeds: the caller's types V100, H100 (not in the matrix), K80,
     * P100. Every job's speed on type t is tput(t) / tput(v100) for its job
     * type and scale, H100 is never allowed, and the run time on P100 is
     * total_steps / tput(p100). First job of small_test: Transformer (batch
     * size 128), 346 steps, scale 2. */
    {
        static const char *const types[] = {"V100", "H100", "K80", "P100"};
        trace_read_opts o;
        trace_read_opts_init(&o);
        o.type_names = types;
        o.n_types = 4;
        trace_source s;
        rc = trace_gavel_open(&s, data_path(dir, "gavel/traces/physical_cluster/small_test.trace"),
                              m, "v100", &o, NULL, &d);
        CHECK_EQ_INT(rc, TM_OK);
        trace_job j;
        const char *const *jt;
        trace_gavel_matrix_job_types(m, &jt);
        uint64_t n = 0;
        while (rc == TM_OK && (rc = s.next(s.ud, &j, &d)) == TM_OK) {
            n++;
            const char *name = jt[j.cls];
            double ref = trace_gavel_matrix_tput(m, "v100", name, j.gpus);
            CHECK(j.speed != NULL);
            CHECK(!(j.type_mask & 2u));
            if (!j.speed || isnan(ref))
                continue;
            CHECK_NEAR(j.speed[0], 1.0, 1e-12);
            CHECK_NEAR(j.speed[1], 0.0, 0);
            const char *wk[4] = {"v100", NULL, "k80", "p100"};
            for (int t = 0; t < 4; t++) {
                if (!wk[t])
                    continue;
                double tp = trace_gavel_matrix_tput(m, wk[t], name, j.gpus);
                int allowed = !isnan(tp) && tp > 0;
                CHECK_EQ_INT((int)((j.type_mask >> t) & 1u), allowed);
                if (allowed)
                    CHECK_NEAR(j.speed[t], tp / ref, 1e-12);
            }
            if (n == 1) {
                CHECK(strcmp(name, "Transformer (batch size 128)") == 0);
                CHECK_EQ_U64(j.gpus, 2);
                double p100 = trace_gavel_matrix_tput(m, "p100", name, 2);
                CHECK_NEAR((double)j.duration_us / j.speed[3], 346 / p100 * 1e6, 1.0);
            }
        }
        CHECK_EQ_INT(rc, TRACE_END);
        CHECK_EQ_U64(n, 20);
        s.close(s.ud);
        /* a fleet of types the matrix does not name: no speeds, no mask */
        static const char *const other[] = {"H100", "A100-80GB"};
        o.type_names = other;
        o.n_types = 2;
        rc = trace_gavel_open(&s, data_path(dir, "gavel/traces/physical_cluster/small_test.trace"),
                              m, "v100", &o, NULL, &d);
        CHECK_EQ_INT(rc, TM_OK);
        rc = s.next(s.ud, &j, &d);
        CHECK_EQ_INT(rc, TM_OK);
        CHECK(j.speed == NULL);
        CHECK_EQ_U64(j.type_mask, 0);
        s.close(s.ud);
    }
    trace_gavel_matrix_free(m);
}

static void test_philly_dists_real(const char *dir)
{
    /* python csv: 33,192 rows, mean duration 117549.807; GPUs 1: 25304, 2: 665,
     * 4: 3076, 8: 4147 (also in SOURCE.md) */
    trace_dist dur, gpus;
    tm_diag d;
    int rc =
        trace_philly_dists(data_path(dir, "gavel/philly_job_distribution.csv"), &dur, &gpus, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        return;
    CHECK_EQ_U64(dur.n, 33192);
    CHECK_NEAR(trace_dist_mean(&dur), 117549.807, 1e-3);
    CHECK_EQ_U64(gpus.n, 4);
    CHECK_NEAR(gpus.weights[0], 25304.0 / 33192, 1e-12);
    CHECK_NEAR(gpus.weights[3], 4147.0 / 33192, 1e-12);
    CHECK_NEAR(trace_dist_mean(&gpus), (25304.0 + 2 * 665 + 4 * 3076 + 8 * 4147) / 33192, 1e-9);
    trace_dist_fini(&dur);
    trace_dist_fini(&gpus);
}

/* ------------------------------------------------------------------------- */
/* fixtures                                                                   */

static int count_bad_calls;
static char last_bad[512];
static void on_bad(void *ud, const tm_diag *d)
{
    (void)ud;
    count_bad_calls++;
    snprintf(last_bad, sizeof last_bad, "%s", d->where);
}

/* Strict: fails with where == path:line. Lenient: n_ok jobs, n_bad bad rows. */
static void expect_bad(const char *what,
                       int (*open)(trace_source *, const char *, const trace_read_opts *,
                                   tm_diag *),
                       const char *name, const char *text, int line, uint64_t n_ok, uint64_t n_bad)
{
    const char *path = fixture(name, text);
    char want[600];
    snprintf(want, sizeof want, "%s:%d", path, line);
    trace_source s;
    trace_read_opts o;
    opts_types(&o);
    tm_diag d;
    memset(&d, 0, sizeof d);
    int rc = open(&s, path, &o, &d);
    if (rc == TM_OK) {
        sums m;
        rc = drain(&s, &m, &d);
    }
    if (rc != TM_ERR_TRACE || strcmp(d.where, want) != 0)
        check_fail(__FILE__, __LINE__,
                   "%s strict: got rc %d at \"%s\" (%s), want TM_ERR_TRACE at %s", what, rc,
                   d.where, d.msg, want);
    o.mode = TRACE_LENIENT;
    trace_read_stats st;
    o.stats = &st;
    o.on_bad = on_bad;
    count_bad_calls = 0;
    rc = open(&s, path, &o, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc == TM_OK) {
        sums m;
        rc = drain(&s, &m, &d);
        if (rc != TRACE_END || m.n != n_ok || st.bad != n_bad)
            check_fail(__FILE__, __LINE__,
                       "%s lenient: rc %d, %llu jobs, %llu bad; want %llu, %llu", what, rc,
                       (unsigned long long)m.n, (unsigned long long)st.bad,
                       (unsigned long long)n_ok, (unsigned long long)n_bad);
        CHECK_EQ_U64((uint64_t)count_bad_calls, n_bad);
        CHECK_STR(st.first_bad.where, want);
    }
}

static int swf_open(trace_source *s, const char *p, const trace_read_opts *o, tm_diag *d)
{
    return trace_swf_open(s, p, o, NULL, d);
}

static void test_malformed(void)
{
    const char *swf_ok = "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
    char buf[2048];
    /* a truncated line (field count), at line 3 */
    snprintf(buf, sizeof buf, "; MaxNodes: 4\n%s2 5 -1 10 2 -1 -1 2 20\n%s", swf_ok, swf_ok);
    expect_bad("swf truncated", swf_open, "t1.swf", buf, 3, 2, 1);
    /* a non-numeric field, at line 2 */
    snprintf(buf, sizeof buf, "; MaxNodes: 4\n2 5 -1 1x 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n%s",
             swf_ok);
    expect_bad("swf non-numeric", swf_open, "t2.swf", buf, 2, 1, 1);
    /* a negative size, at line 3 */
    snprintf(buf, sizeof buf, "%s2 5 -1 10 -4 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n", swf_ok);
    expect_bad("swf negative size", swf_open, "t3.swf", buf, 2, 1, 1);
    /* too many columns, at line 1 */
    snprintf(buf, sizeof buf, "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1 7\n%s", swf_ok);
    expect_bad("swf wrong columns", swf_open, "t4.swf", buf, 1, 1, 1);
    /* out of submit order, at line 2 */
    expect_bad("swf order", swf_open, "t5.swf",
               "1 50 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
               "2 40 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n",
               2, 1, 1);

    const char *hdr = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                      "creation_time,deletion_time,scheduled_time\n";
    const char *pod = "p-1,1000,100,1,500,,LS,Running,0,100,0\n";
    snprintf(buf, sizeof buf, "%s%sp-2,1000,100,1,500,,LS\n%s", hdr, pod, pod);
    expect_bad("openb truncated", trace_openb_pods_open, "p1.csv", buf, 3, 2, 1);
    snprintf(buf, sizeof buf, "%s%sp-2,lots,100,1,500,,LS,Running,0,100,0\n", hdr, pod);
    expect_bad("openb non-numeric", trace_openb_pods_open, "p2.csv", buf, 3, 1, 1);
    snprintf(buf, sizeof buf, "%sp-2,-5,100,1,500,,LS,Running,0,100,0\n%s", hdr, pod);
    expect_bad("openb negative size", trace_openb_pods_open, "p3.csv", buf, 2, 1, 1);
    snprintf(buf, sizeof buf, "%s%sp-2,1000,100,1,500,X9,LS,Running,0,100,0\n", hdr, pod);
    expect_bad("openb unknown model", trace_openb_pods_open, "p4.csv", buf, 3, 1, 1);
    snprintf(buf, sizeof buf, "%s%sp-2,1000,100,2,500,,LS,Running,0,100,0\n", hdr, pod);
    expect_bad("openb share gang", trace_openb_pods_open, "p5.csv", buf, 3, 1, 1);

    const char *th = trace_tarmac_header();
    snprintf(buf, sizeof buf, "%s\n1,0,5,-1,-1,1,1000,0,0,0,0,0,0,0,0,0,1\n1,7,5\n", th);
    expect_bad("tarmac truncated", trace_tarmac_open, "m1.csv", buf, 3, 1, 1);
    snprintf(buf, sizeof buf, "%s\n1,0,5,-1,-1,-2,1000,0,0,0,0,0,0,0,0,0,1\n", th);
    expect_bad("tarmac negative size", trace_tarmac_open, "m2.csv", buf, 2, 0, 1);
    snprintf(buf, sizeof buf, "%s\n1,0,5,-1,-1,1,1000,0,0,0,0,0,0,0,0,0,one\n", th);
    expect_bad("tarmac non-numeric", trace_tarmac_open, "m3.csv", buf, 2, 0, 1);

    /* Helios, to its published schema (HeliosData README) */
    const char *hh = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,"
                     "end_time,duration,queue\n";
    snprintf(buf, sizeof buf,
             "%s1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,"
             "2020-06-10 04:55:09,36848,0\n"
             "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:2x,2020-06-09 18:41:27,"
             "2020-06-09 18:45:36,249,0\n",
             hh);
    expect_bad("helios bad time", trace_helios_open, "h1.csv", buf, 3, 1, 1);
    snprintf(buf, sizeof buf, "%s1,u,v,-1,1,1,COMPLETED,2020-06-09 18:41:01,,,5,0\n", hh);
    expect_bad("helios negative", trace_helios_open, "h2.csv", buf, 2, 0, 1);

    /* PAI task table, to the documented schema */
    snprintf(buf, sizeof buf,
             "j1,worker,2,Terminated,100,160,600,29.0,50,V100\n"
             "j2,worker,1,Terminated,120,abc,600,29.0,50,V100\n");
    expect_bad("pai non-numeric", trace_pai_tasks_open, "k1.csv", buf, 2, 2, 1);
    snprintf(buf, sizeof buf, "j1,worker,1,Terminated,100,160,600,29.0\n");
    expect_bad("pai truncated", trace_pai_tasks_open, "k2.csv", buf, 1, 0, 1);
}

/* ------------------------------------------------------------------------- */
/* fixtures read back: the mappings                                           */

static void test_small_fixtures(void)
{
    tm_diag d;
    trace_read_opts o;
    opts_types(&o);
    trace_source s;
    trace_job j;
    /* Helios: the README's three example rows (the CANCELLED one ran 675233 s) */
    const char *p = fixture(
        "helios.csv",
        "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
        "queue\n"
        "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 "
        "04:55:09,36848,0\n"
        "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 "
        "18:45:36,249,0\n"
        "1425513,uzqls,vcpDC,16,64,2,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 "
        "14:15:21,675233,0\n"
        "1425514,uzqls,vcpDC,1,1,1,CANCELLED,2020-06-09 18:41:30,,,0,0\n");
    CHECK_EQ_INT(trace_helios_open(&s, p, &o, &d), TM_OK);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.id, 1425511);
    CHECK_EQ_INT(j.submit_us, 0);
    CHECK_EQ_INT(j.duration_us, 36848 * 1000000ll);
    CHECK_EQ_INT(j.status, 1);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_INT(j.submit_us, 26 * 1000000ll);
    CHECK_EQ_INT(j.gpus, 4);
    CHECK_EQ_INT(j.cpu_milli, 16000);
    CHECK_EQ_INT(j.status, 0);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_INT(j.gpus, 16);
    CHECK(j.flags & TRACE_JOB_CAN_SPAN);
    CHECK_EQ_INT(j.status, 5);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END); /* cancelled before running: dropped */
    s.close(s.ud);

    /* Philly cluster_job_log, to its published schema: one job of two
     * attempts on 2 machines x 2 GPUs, one job that never ran (no attempt),
     * one job whose times are "None" (dropped), one in compact JSON */
    p = fixture("philly.json",
                "[\n"
                "  {\"status\": \"Pass\", \"vc\": \"ee9e8c\", \"jobid\": \"application_1\",\n"
                "   \"attempts\": [\n"
                "     {\"start_time\": \"2017-10-03 10:00:05\", \"end_time\": \"2017-10-03 "
                "10:10:05\",\n"
                "      \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\", \"gpu1\"]},\n"
                "                   {\"ip\": \"m2\", \"gpus\": [\"gpu3\", \"gpu4\"]}]},\n"
                "     {\"start_time\": \"2017-10-03 10:20:00\", \"end_time\": \"2017-10-03 "
                "11:00:05\",\n"
                "      \"detail\": [{\"ip\": \"m3\", \"gpus\": [\"gpu0\"]}]}],\n"
                "   \"submitted_time\": \"2017-10-03 10:00:00\", \"user\": \"u1\"},\n"
                "  {\"status\": \"Killed\", \"vc\": \"x\", \"jobid\": \"application_2\", "
                "\"attempts\": [],\n"
                "   \"submitted_time\": \"2017-10-03 10:05:00\", \"user\": \"u2\"},\n"
                "  {\"status\": \"Failed\", \"vc\": \"x\", \"jobid\": \"application_3\",\n"
                "   \"attempts\": [{\"start_time\": \"None\", \"end_time\": null, \"detail\": "
                "[]}],\n"
                "   \"submitted_time\": \"2017-10-03 10:06:00\", \"user\": \"u2\"},\n"
                "  {\"status\":\"Failed\",\"vc\":\"x\",\"jobid\":\"application_4\",\"attempts\":[{"
                "\"start_time\":\"2017-10-03 11:00:00\",\"end_time\":\"2017-10-03 "
                "11:00:30\",\"detail\":[{\"ip\":\"m9\",\"gpus\":[\"gpu7\"]}]}],\"submitted_time\":"
                "\"2017-10-03 10:59:00\",\"user\":\"u\\u00e9\"}\n"
                "]\n");
    trace_read_stats st;
    o.stats = &st;
    CHECK_EQ_INT(trace_philly_open(&s, p, &o, &d), TM_OK);
    int rc = s.next(s.ud, &j, &d);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
    CHECK_EQ_INT(j.submit_us, 0);
    CHECK_EQ_INT(j.duration_us, 3600 * 1000000ll); /* 10:00:05 .. 11:00:05 */
    CHECK_EQ_INT(j.gpus, 4);                       /* first attempt: 2 machines x 2 */
    CHECK(j.flags & TRACE_JOB_CAN_SPAN);
    CHECK_EQ_INT(j.status, 1);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_INT(j.submit_us, 3540 * 1000000ll); /* 10:59:00 */
    CHECK_EQ_INT(j.duration_us, 30 * 1000000ll);
    CHECK_EQ_INT(j.gpus, 1);
    CHECK_EQ_INT(j.status, 0);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END);
    s.close(s.ud);
    CHECK_EQ_U64(st.rows, 4);
    CHECK_EQ_U64(st.dropped, 2);
    /* a broken JSON is fatal, with its line */
    p = fixture("philly-bad.json", "[\n {\"status\": \"Pass\",\n  \"attempts\": [}\n]\n");
    o.stats = NULL;
    CHECK_EQ_INT(trace_philly_open(&s, p, &o, &d), TM_OK);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_ERR_TRACE);
    char want[600];
    snprintf(want, sizeof want, "%s:3", p);
    CHECK_STR(d.where, want);
    s.close(s.ud);

    /* PAI task table: 2 instances of half a GPU; one of 8 GPUs on MISC
     * (-> K80); a Running task without end time (dropped) */
    p = fixture("pai_task.csv", "j1,worker,2,Terminated,100,160,600,29.5,50,V100\n"
                                "j2,ps,1,Failed,130,200,1200,10,800,MISC\n"
                                "j3,worker,1,Running,140,,100,2,100,\n");
    o.stats = &st;
    CHECK_EQ_INT(trace_pai_tasks_open(&s, p, &o, &d), TM_OK);
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
        CHECK_EQ_INT(j.submit_us, 100 * 1000000ll);
        CHECK_EQ_INT(j.duration_us, 60 * 1000000ll);
        CHECK_EQ_INT(j.gpus, 1);
        CHECK_EQ_INT(j.gpu_milli, 500);
        CHECK_EQ_INT(j.cpu_milli, 6000);
        CHECK_EQ_INT(j.host_mem_mib, 29.5 * 1024);
        CHECK_EQ_U64(j.type_mask, 1u << 1); /* V100 is catalog_like[1] */
    }
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_INT(j.gpus, 8);
    CHECK_EQ_INT(j.gpu_milli, 1000);
    CHECK_EQ_U64(j.type_mask, 1u << 5); /* K80 */
    CHECK_EQ_INT(j.status, 0);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END);
    s.close(s.ud);
    CHECK_EQ_U64(st.dropped, 1);

    /* SWF edge cases: cancelled that ran (kept), cancelled that did not
     * (dropped), run time -1 (dropped), size from field 8, zero run time
     * (kept), estimate -1; a header with 4 procs per node */
    p = fixture("edge.swf", "; MaxNodes: 2\n; MaxProcs: 8\n"
                            "1 0 -1 30 5 -1 -1 5 60 -1 5 3 1 -1 -1 -1 -1 -1\n"
                            "2 1 -1 0 4 -1 -1 4 60 -1 5 3 1 -1 -1 -1 -1 -1\n"
                            "3 2 -1 -1 4 -1 -1 4 60 -1 1 3 1 -1 -1 -1 -1 -1\n"
                            "4 3 -1 12 -1 -1 -1 3 -1 -1 1 3 1 -1 -1 -1 -1 -1\n"
                            "5 4 -1 0 1 -1 -1 1 10 -1 1 3 1 -1 -1 -1 -1 -1\n");
    trace_swf_info info;
    CHECK_EQ_INT(trace_swf_open(&s, p, &o, &info, &d), TM_OK);
    CHECK_EQ_U64(info.nodes, 2);
    CHECK_EQ_U64(info.procs_per_node, 4);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.id, 1);
    CHECK_EQ_INT(j.gpus, 8); /* 5 processors take 2 whole nodes of 4 */
    CHECK_EQ_INT(j.status, 5);
    CHECK_EQ_INT(j.estimate_us, 60 * 1000000ll);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.id, 4);
    CHECK_EQ_INT(j.gpus, 4);
    CHECK_EQ_INT(j.estimate_us, -1);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.id, 5);
    CHECK_EQ_INT(j.duration_us, 0);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END);
    s.close(s.ud);
    CHECK_EQ_U64(st.dropped, 2);
    o.swf_drop_cancelled = 1;
    CHECK_EQ_INT(trace_swf_open(&s, p, &o, &info, &d), TM_OK);
    sums m;
    CHECK_EQ_INT(drain(&s, &m, &d), TRACE_END);
    CHECK_EQ_U64(m.n, 2);
    CHECK_EQ_U64(st.dropped, 3);
    o.swf_drop_cancelled = 0;

    /* where estimates come from: job 1 asked for 60 s and ran 30; job 4
     * asked for nothing (-1) and ran 12; job 5 asked for 10 and ran 0 */
    static const struct {
        trace_estimate_source src;
        int64_t est_s[3];
        uint64_t no_estimate;
    } est_cases[] = {
        {TRACE_EST_REQUESTED, {60, -1, 10}, 1},
        {TRACE_EST_RUNTIME, {30, 12, 0}, 0},
        {TRACE_EST_REQUESTED_ELSE, {60, 12, 10}, 0},
    };
    for (size_t c = 0; c < sizeof est_cases / sizeof est_cases[0]; c++) {
        o.swf_estimates = est_cases[c].src;
        memset(&st, 0, sizeof st);
        CHECK_EQ_INT(trace_swf_open(&s, p, &o, &info, &d), TM_OK);
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
            int64_t want_s = est_cases[c].est_s[k];
            CHECK_EQ_INT(j.estimate_us, want_s < 0 ? -1 : want_s * 1000000ll);
        }
        CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END);
        s.close(s.ud);
        CHECK_EQ_U64(st.no_estimate, est_cases[c].no_estimate);
        const char *name = trace_estimate_source_name((int)est_cases[c].src);
        CHECK(name != NULL);
        CHECK_EQ_INT(trace_estimate_source_find(name), (int)est_cases[c].src);
    }
    CHECK_EQ_INT(trace_estimate_source_find("exact"), -1);
    o.swf_estimates = TRACE_EST_REQUESTED;

    /* headers: a machine past the bound is refused before a node is built;
     * a value that is not a whole number is malformed, at its line */
    static const struct {
        const char *head;
        int rc;
        const char *where_suffix;
    } heads[] = {
        {"; MaxProcs: 4294967294\n", TM_ERR_LIMIT, NULL},
        {"; MaxNodes: 3000000\n; MaxProcs: 3000000\n", TM_ERR_LIMIT, NULL},
        {"; MaxProcs: 1e30\n", TM_ERR_TRACE, ":1"},
        {"; Version: 2\n; MaxNodes: 12.5\n", TM_ERR_TRACE, ":2"},
        {"; MaxNodes: -4\n", TM_ERR_TRACE, ":1"},
        {"; MaxNodes: 2097152\n", TM_OK, NULL},
    };
    for (size_t c = 0; c < sizeof heads / sizeof heads[0]; c++) {
        char text[256];
        snprintf(text, sizeof text, "%s1 0 -1 30 1 -1 -1 1 60 -1 1 3 1 -1 -1 -1 -1 -1\n",
                 heads[c].head);
        const char *hp = fixture("head.swf", text);
        memset(&d, 0, sizeof d);
        int hrc = trace_swf_open(&s, hp, &o, &info, &d);
        CHECK_EQ_INT(hrc, heads[c].rc);
        if (hrc == TM_OK) {
            CHECK_EQ_U64(info.nodes, 2097152);
            s.close(s.ud);
        } else if (heads[c].where_suffix) {
            char want_where[600];
            snprintf(want_where, sizeof want_where, "%s%s", hp, heads[c].where_suffix);
            if (strcmp(d.where, want_where) != 0)
                check_fail(__FILE__, __LINE__, "header %zu: at \"%s\", want \"%s\" (%s)", c,
                           d.where, want_where, d.msg);
        }
    }
}

/* ------------------------------------------------------------------------- */
/* tarmac format round trip                                                   */

static void test_roundtrip(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rt.csv.gz", tmpdir);
    for (int gz = 0; gz < 2; gz++) {
        if (!gz)
            path[strlen(path) - 3] = '\0';
        else
            strcat(path, ".gz");
        trace_tarmac_writer *w;
        tm_diag d;
        CHECK_EQ_INT(trace_tarmac_writer_open(&w, path, &d), TM_OK);
        trace_job in[64];
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < 64; i++) {
            trace_job *j = &in[i];
            trace_job_defaults(j);
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            j->id = x;
            j->submit_us = (int64_t)i * 1234567 + (int64_t)(x % 1000);
            j->duration_us = (int64_t)(x >> 20);
            j->estimate_us = i % 3 ? -1 : (int64_t)(x >> 30);
            j->deadline_us = i % 5 ? -1 : j->submit_us + 7;
            j->gpus = i % 4 ? (uint32_t)(x % 64) : 1;
            j->gpu_milli = i % 4 ? 1000 : (uint32_t)(x % 999) + 1;
            j->gpu_mem_mib = (uint32_t)(x % 81920);
            j->flags = (uint32_t)(x % 4);
            j->cpu_milli = (int64_t)(x % 100000);
            j->host_mem_mib = INT64_MAX - (int64_t)i;
            j->type_mask = x;
            j->cls = (uint32_t)i % 3;
            j->tenant = UINT32_MAX - (uint32_t)i;
            j->priority = i % 2 ? INT32_MIN : INT32_MAX;
            j->status = -i;
            j->value = 1.0 / (i + 3) * 1e-7 * (double)(x % 1000);
            CHECK_EQ_INT(trace_tarmac_write(w, j, &d), TM_OK);
        }
        CHECK_EQ_INT(trace_tarmac_writer_close(w, &d), TM_OK);
        trace_source s;
        CHECK_EQ_INT(trace_tarmac_open(&s, path, NULL, &d), TM_OK);
        trace_job out;
        for (int i = 0; i < 64; i++) {
            int rc = s.next(s.ud, &out, &d);
            CHECK_EQ_INT(rc, TM_OK);
            if (rc) {
                fprintf(stderr, "%s: %s\n", d.where, d.msg);
                break;
            }
            if (memcmp(&out, &in[i], sizeof out) != 0)
                check_fail(__FILE__, __LINE__, "round trip (gzip %d): job %d differs", gz, i);
        }
        CHECK_EQ_INT(s.next(s.ud, &out, &d), TRACE_END);
        s.close(s.ud);
    }
}

static void test_window(void)
{
    const char *p = fixture("w.csv", "id,submit_us,duration_us\n1,10,1\n2,20,1\n3,30,1\n4,40,1\n");
    trace_source raw, w;
    tm_diag d;
    CHECK_EQ_INT(trace_tarmac_open(&raw, p, NULL, &d), TM_OK);
    CHECK_EQ_INT(trace_window_open(&w, raw, 1, 2, 1, &d), TM_OK);
    trace_job j;
    CHECK_EQ_INT(w.next(w.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.id, 2);
    CHECK_EQ_INT(j.submit_us, 0);
    CHECK_EQ_INT(w.next(w.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.id, 3);
    CHECK_EQ_INT(j.submit_us, 10);
    CHECK_EQ_INT(w.next(w.ud, &j, &d), TRACE_END);
    w.close(w.ud);
    int64_t t;
    CHECK_EQ_INT(trace_parse_datetime("1970-01-02 00:00:01", &t), 0);
    CHECK_EQ_INT(t, 86401);
    CHECK_EQ_INT(trace_parse_datetime("2020-02-30 00:00:00", &t), -1);
}

/* ------------------------------------------------------------------------- */
/* a truncated gzip file                                                      */

/* A gzip file of `lines` whose stream stops right after a full flush that
 * falls on a line boundary (no end of stream, no trailer): every line that
 * decompresses is whole, so only zlib's end-of-input status tells. */
static void test_truncated_gzip(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cut.csv.gz", tmpdir);
    static const char head[] = "id,submit_us,duration_us\n1,0,5\n2,10,5\n";
    static const char rest[] = "3,20,5\n";
    unsigned char out[4096];
    z_stream z;
    memset(&z, 0, sizeof z);
    CHECK_EQ_INT(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)head;
    z.avail_in = (uInt)strlen(head);
    z.next_out = out;
    z.avail_out = sizeof out;
    CHECK_EQ_INT(deflate(&z, Z_FULL_FLUSH), Z_OK);
    size_t cut = sizeof out - z.avail_out; /* the stream up to here: the head, whole */
    z.next_in = (unsigned char *)rest;
    z.avail_in = (uInt)strlen(rest);
    CHECK_EQ_INT(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t whole = sizeof out - z.avail_out;
    deflateEnd(&z);
    for (int truncated = 0; truncated < 2; truncated++) {
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (!f)
            return;
        fwrite(out, 1, truncated ? cut : whole, f);
        fclose(f);
        trace_source s;
        tm_diag d;
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(trace_tarmac_open(&s, path, NULL, &d), TM_OK);
        sums m;
        int rc = drain(&s, &m, &d);
        if (truncated) {
            /* the two whole lines come out, then the error, naming the line */
            CHECK_EQ_INT(rc, TM_ERR_TRACE);
            CHECK_EQ_U64(m.n, 2);
            CHECK(strstr(d.msg, "truncated") != NULL);
        } else {
            CHECK_EQ_INT(rc, TRACE_END);
            CHECK_EQ_U64(m.n, 3);
        }
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tarmac-test-traces-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_malformed();
    test_small_fixtures();
    test_roundtrip();
    test_window();
    test_truncated_gzip();
    const char *dir = check_data_dir();
    if (!dir) {
        int r = check_finish("test_traces (fixtures)");
        return r ? r : check_skip("TARMAC_DATA_DIR not found: real-trace checks not run");
    }
    test_swf_real(dir);
    test_openb_real(dir);
    test_pai_real(dir);
    test_azure_real(dir);
    test_gavel_real(dir);
    test_philly_dists_real(dir);
    return check_finish("test_traces");
}
