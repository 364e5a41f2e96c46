/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_trace.c — libFuzzer targets: the trace readers of traces/, one target
 * per reader, chosen at compile time by FUZZ_READER (fuzz/CMakeLists.txt
 * builds this file once per reader).
 *
 * An input is the file's bytes. Each is read to the end twice, strict and
 * lenient (the two paths through trace__rd_bad), with GPU type names given
 * (the type-mask mappings) and at most MAX_RECORDS records, so a small input
 * that expands (a PAI row of many instances) stays fast. The records are
 * checked against the job record's documented invariants: a reader must not
 * hand out a job that breaks them.
 */
#include "fuzz_common.h"
#include "trace.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>

#define MAX_RECORDS 20000

enum {
    R_TARMAC,
    R_SWF,
    R_OPENB_PODS,
    R_OPENB_NODES,
    R_PAI_TASKS,
    R_PAI_MACHINES,
    R_HELIOS,
    R_PHILLY,
    R_GAVEL,
    R_GAVEL_MATRIX,
    R_AZURE_LLM,
    R_CSV_COLUMN,
};

#ifndef FUZZ_READER
#error "define FUZZ_READER (fuzz/CMakeLists.txt)"
#endif

/* A small throughput matrix in Gavel's layout for the trace target: the job
 * types of the seed traces at scales 1, 2 and 4 (1 and 2 only for one). */
static const char gavel_matrix[] =
    "{\"v100\": {\"('Transformer (batch size 128)', 1)\": {\"null\": 10.5},\n"
    "  \"('Transformer (batch size 128)', 2)\": {\"null\": 19.0},\n"
    "  \"('Recommendation (batch size 8192)', 1)\": {\"null\": 3.25},\n"
    "  \"('Recommendation (batch size 8192)', 4)\": {\"null\": 11.0},\n"
    "  \"('ResNet-18 (batch size 16)', 1)\": {\"null\": 4.0}},\n"
    " \"k80\": {\"('Transformer (batch size 128)', 1)\": {\"null\": 2.5}}}\n";

static trace_gavel_matrix *matrix;
static const char *const type_names[] = {"H100", "A100-80GB", "V100", "V100-32GB", "P100",
                                         "T4",   "A10",       "K80",  "G1",        "G2"};

/* Invariants of trace_job (traces/trace.h) every reader promises. */
static void check_job(const trace_job *j)
{
    if (j->duration_us < 0 || j->estimate_us < -1 || j->deadline_us < -1 || j->gpu_milli < 1 ||
        j->gpu_milli > 1000 || (j->gpu_milli < 1000 && j->gpus > 1) || j->cpu_milli < 0 ||
        j->host_mem_mib < 0 || !isfinite(j->value))
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    fuzz_tmp_path(".trace");
    if (FUZZ_READER == R_GAVEL) {
        tm_diag d;
        if (trace_gavel_matrix_load(&matrix, fuzz_tmp_fixed(".json", gavel_matrix), &d) != TM_OK)
            abort();
    }
    return 0;
}

static void read_jobs(trace_source *s)
{
    trace_job j;
    tm_diag d;
    int64_t last = INT64_MIN;
    for (int k = 0; k < MAX_RECORDS && s->next(s->ud, &j, &d) == TM_OK; k++) {
        check_job(&j);
        if (FUZZ_READER != R_OPENB_PODS && j.submit_us < last)
            abort(); /* sources hand out jobs in submit order */
        last = j.submit_us;
    }
}

static void read_nodes(trace_node_source *s)
{
    trace_node n;
    tm_diag d;
    for (int k = 0; k < MAX_RECORDS && s->next(s->ud, &n, &d) == TM_OK; k++)
        if (n.cpu_milli < 0 || n.mem_mib < 0)
            abort();
}

static void one(const char *p, trace_mode mode)
{
    trace_read_opts o;
    trace_read_opts_init(&o);
    o.mode = mode;
    o.type_names = type_names;
    o.n_types = sizeof type_names / sizeof type_names[0];
    tm_diag d;
    trace_source s = {0};
    trace_node_source ns = {0};
    uint64_t approx = 0; /* counted by the Gavel reader while it reads */
    int rc = TM_OK;
    switch (FUZZ_READER) {
    case R_TARMAC:
        rc = trace_tarmac_open(&s, p, &o, &d);
        break;
    case R_SWF: {
        trace_swf_info info;
        rc = trace_swf_open(&s, p, &o, &info, &d);
        break;
    }
    case R_OPENB_PODS:
        rc = trace_openb_pods_open(&s, p, &o, &d);
        break;
    case R_OPENB_NODES:
        rc = trace_openb_nodes_open(&ns, p, &o, &d);
        break;
    case R_PAI_TASKS:
        rc = trace_pai_tasks_open(&s, p, &o, &d);
        break;
    case R_PAI_MACHINES:
        rc = trace_pai_machines_open(&ns, p, &o, &d);
        break;
    case R_HELIOS:
        rc = trace_helios_open(&s, p, &o, &d);
        break;
    case R_PHILLY:
        rc = trace_philly_open(&s, p, &o, &d);
        break;
    case R_GAVEL:
        rc = trace_gavel_open(&s, p, matrix, "v100", &o, &approx, &d);
        break;
    case R_GAVEL_MATRIX: {
        trace_gavel_matrix *m = NULL;
        if (mode == TRACE_STRICT && trace_gavel_matrix_load(&m, p, &d) == TM_OK) {
            const char *const *w, *const *jt;
            size_t nw = trace_gavel_matrix_workers(m, &w);
            size_t nj = trace_gavel_matrix_job_types(m, &jt);
            for (size_t a = 0; a < nw && a < 8; a++)
                for (size_t b = 0; b < nj && b < 8; b++)
                    (void)trace_gavel_matrix_tput(m, w[a], jt[b], 1);
        }
        trace_gavel_matrix_free(m);
        return;
    }
    case R_AZURE_LLM: {
        trace_request_source rs = {0};
        if (trace_azure_llm_open(&rs, p, &o, &d) != TM_OK)
            return;
        if (mode == TRACE_STRICT) {
            trace_request r;
            for (int k = 0; k < MAX_RECORDS && rs.next(rs.ud, &r, &d) == TM_OK; k++)
                ;
        } else {
            trace_load_profile lp;
            /* hour bins: a request years later still costs few bins (with
             * 60 s bins one 647-byte input took 5.4 million, corpus
             * crash-azure-llm-sparse-years) */
            if (trace_load_profile_build(&lp, &rs, 3600.0, &d) == TM_OK)
                trace_load_profile_fini(&lp);
        }
        rs.close(rs.ud);
        return;
    }
    case R_CSV_COLUMN: {
        double *v = NULL;
        size_t n = 0;
        if (mode == TRACE_STRICT) {
            if (trace_csv_column(p, "duration_s", &v, &n, &d) == TM_OK)
                free(v);
        } else {
            trace_dist dur, gpus;
            if (trace_philly_dists(p, &dur, &gpus, &d) == TM_OK) {
                trace_dist_fini(&dur);
                trace_dist_fini(&gpus);
            }
        }
        return;
    }
    }
    if (rc != TM_OK)
        return; /* a failed open has freed what it took */
    if (s.next) {
        read_jobs(&s);
        s.close(s.ud);
    } else {
        read_nodes(&ns);
        ns.close(ns.ud);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_tmp_path(".trace");
    fuzz_tmp_write(p, data, size);
    one(p, TRACE_STRICT);
    one(p, TRACE_LENIENT);
    return 0;
}
