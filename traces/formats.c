/* SPDX-License-Identifier: Apache-2.0 */
/*
 * formats.c — the table of trace formats: a format is a reader file
 * (fmt_*.c) plus a line here.
 *
 * Whoever lists formats (help texts) or picks one by name (`tarmac replay
 * --format`) goes through this table, so a new reader appears everywhere at
 * once. The readers' signatures differ (SWF also reads its header, Gavel
 * needs a throughput matrix, Azure hands out requests, not jobs); the small
 * wrappers below give the jobs readers one signature, and the flags say what
 * a format can do and what it needs. A format is picked by name only:
 * nothing is detected from a file's name or content (gzip excepted, which
 * every reader detects by its magic bytes, trace_lines).
 */
#include "trace.h"

#include <stddef.h>
#include <string.h>

static int open_tarmac(trace_source *src, const char *path, const trace_read_opts *o,
                       const trace_open_args *a, tm_diag *diag)
{
    (void)a;
    return trace_tarmac_open(src, path, o, diag);
}

static int open_swf(trace_source *src, const char *path, const trace_read_opts *o,
                    const trace_open_args *a, tm_diag *diag)
{
    (void)a;
    return trace_swf_open(src, path, o, NULL, diag);
}

static int open_openb(trace_source *src, const char *path, const trace_read_opts *o,
                      const trace_open_args *a, tm_diag *diag)
{
    (void)a;
    return trace_openb_pods_open(src, path, o, diag);
}

static int open_pai(trace_source *src, const char *path, const trace_read_opts *o,
                    const trace_open_args *a, tm_diag *diag)
{
    (void)a;
    return trace_pai_tasks_open(src, path, o, diag);
}

static int open_helios(trace_source *src, const char *path, const trace_read_opts *o,
                       const trace_open_args *a, tm_diag *diag)
{
    (void)a;
    return trace_helios_open(src, path, o, diag);
}

static int open_philly(trace_source *src, const char *path, const trace_read_opts *o,
                       const trace_open_args *a, tm_diag *diag)
{
    (void)a;
    return trace_philly_open(src, path, o, diag);
}

static int open_gavel(trace_source *src, const char *path, const trace_read_opts *o,
                      const trace_open_args *a, tm_diag *diag)
{
    if (!a || !a->gavel_matrix)
        return tm_diag_set(diag, TM_ERR_USAGE, path, "a Gavel trace needs its throughput matrix");
    return trace_gavel_open(src, path, a->gavel_matrix,
                            a->gavel_reference ? a->gavel_reference : "v100", o, NULL, diag);
}

/* The machine of an SWF log: its header, read by opening it. */
static int swf_machine(const char *path, const trace_read_opts *o, trace_swf_info *info,
                       tm_diag *diag)
{
    trace_source s;
    int rc = trace_swf_open(&s, path, o, info, diag);
    if (rc == TM_OK)
        s.close(s.ud);
    return rc;
}

/* In the order help texts list them. */
static const trace_format formats[] = {
    {"tarmac", "tarmac's own CSV (traces/FORMAT.md; `tarmac synth` writes it)",
     TRACE_FORMAT_NEEDS_FLEET | TRACE_FORMAT_WINDOWS | TRACE_FORMAT_SCENARIO_CLASSES, open_tarmac,
     NULL, NULL},
    {"swf", "Standard Workload Format (Parallel Workloads Archive)",
     TRACE_FORMAT_WINDOWS | TRACE_FORMAT_ESTIMATES, open_swf, NULL, swf_machine},
    {"openb", "Alibaba GPU v2023 pod list (openb_pod_list_*.csv)",
     TRACE_FORMAT_NEEDS_FLEET | TRACE_FORMAT_POD_LIST, open_openb, NULL, NULL},
    {"pai-tasks", "Alibaba PAI 2020 task table", TRACE_FORMAT_NEEDS_FLEET, open_pai, NULL, NULL},
    {"helios", "Helios cluster_log.csv", TRACE_FORMAT_NEEDS_FLEET, open_helios, NULL, NULL},
    {"philly", "Philly cluster_job_log (JSON)", TRACE_FORMAT_NEEDS_FLEET, open_philly, NULL, NULL},
    {"gavel", "Gavel trace", TRACE_FORMAT_NEEDS_FLEET | TRACE_FORMAT_NEEDS_MATRIX, open_gavel, NULL,
     NULL},
    {"azure-llm", "Azure LLM inference trace 2023", TRACE_FORMAT_REQUESTS, NULL,
     trace_azure_llm_open, NULL},
};

const trace_format *trace_formats(size_t *n)
{
    *n = sizeof formats / sizeof formats[0];
    return formats;
}

const trace_format *trace_format_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

static const trace_node_format node_formats[] = {
    {"openb", "Alibaba GPU v2023 node list (openb_node_list_*.csv)", trace_openb_nodes_open},
    {"pai", "Alibaba PAI 2020 machine table", trace_pai_machines_open},
};

const trace_node_format *trace_node_formats(size_t *n)
{
    *n = sizeof node_formats / sizeof node_formats[0];
    return node_formats;
}

const trace_node_format *trace_node_format_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof node_formats / sizeof node_formats[0]; i++)
        if (strcmp(node_formats[i].name, name) == 0)
            return &node_formats[i];
    return NULL;
}
