/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fmt_openb.c — the Alibaba GPU cluster trace v2023 ("openb", the traces of
 * the ATC'23 FGD paper): node lists (a fleet) and pod lists (jobs).
 *
 * Both are CSV with a header; columns are found by name. Node models map
 * onto catalog types through one table (model_map below); G1..G3 are
 * Alibaba's undisclosed internal models, carried in the catalog as types of
 * unknown specification. A pod's gpu_spec ("V100M16|V100M32") becomes a
 * type mask over the caller's type names (trace_read_opts.type_names).
 * docs/traces.md lists the edge cases: CPU-only pods, pending pods (no
 * scheduled_time), the 5-column multigpu lists (no times).
 */
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *model, *type;
} model_map[] = {
    {"P100", "P100"},         {"T4", "T4"}, {"A10", "A10"}, {"V100M16", "V100"},
    {"V100M32", "V100-32GB"}, {"G1", "G1"}, {"G2", "G2"},   {"G3", "G3"},
};

const char *trace_openb_model_type(const char *model)
{
    for (size_t i = 0; i < sizeof model_map / sizeof model_map[0]; i++)
        if (trace__same_name(model_map[i].model, model))
            return model_map[i].type;
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* node list                                                                  */

enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_N };
static const char *const node_cols[N_N] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

typedef struct nodes_rd {
    trace__rd rd;
    int col[N_N];
    size_t ncols;
} nodes_rd;

static int nodes_next(void *ud, trace_node *node, tm_diag *diag)
{
    nodes_rd *s = ud;
    trace__rd *r = &s->rd;
    char *f[TRACE__MAX_COLS + 1];
    for (;;) {
        int rc = trace__rd_csv_row(r, f, s->ncols, diag);
        if (rc == TRACE__SKIP)
            continue;
        if (rc != TM_OK)
            return rc;
        int64_t cpu, mem, gpus;
        const char *model = f[s->col[N_MODEL]];
        if (trace__parse_i64(f[s->col[N_CPU]], &cpu) || trace__parse_i64(f[s->col[N_MEM]], &mem) ||
            trace__parse_i64(f[s->col[N_GPU]], &gpus)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected integers in cpu_milli, memory_mib and gpu, got "
                                    "\"%.30s\", \"%.30s\", \"%.30s\"",
                                    f[s->col[N_CPU]], f[s->col[N_MEM]], f[s->col[N_GPU]])))
                return rc;
            continue;
        }
        const char *type = model[0] ? trace_openb_model_type(model) : "";
        if (cpu < 0 || mem < 0 || gpus < 0 || gpus > PLACE_MAX_GPUS_PER_NODE ||
            (gpus > 0 && !model[0]) || !type) {
            if ((rc = trace__rd_bad(
                     r, diag,
                     "expected cpu_milli >= 0, memory_mib >= 0, 0 <= gpu <= %u and a known "
                     "model for a GPU node, got %lld, %lld, %lld, \"%.30s\"",
                     PLACE_MAX_GPUS_PER_NODE, (long long)cpu, (long long)mem, (long long)gpus,
                     model)))
                return rc;
            continue;
        }
        memset(node, 0, sizeof *node);
        /* a name from the file: made safe (label.c), as every trace label */
        trace_label_safe(node->name, f[s->col[N_SN]], strlen(f[s->col[N_SN]]));
        trace__copy(node->model, sizeof node->model, model);
        trace__copy(node->type_name, sizeof node->type_name, gpus > 0 ? type : "");
        node->gpus = (uint32_t)gpus;
        node->cpu_milli = cpu;
        node->mem_mib = mem;
        r->st->records++;
        return TM_OK;
    }
}

int trace_openb_nodes_open(trace_node_source *src, const char *path, const trace_read_opts *o,
                           tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    nodes_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc == TM_OK)
        rc = trace__rd_header(&s->rd, node_cols, N_N, N_N, "an openb node list header", s->col,
                              &s->ncols, diag);
    if (rc != TM_OK) {
        trace__rd_free(s);
        return rc;
    }
    src->next = nodes_next;
    src->close = trace__rd_free;
    src->ud = s;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* pod list                                                                   */

enum { P_NAME, P_CPU, P_MEM, P_NGPU, P_MILLI, P_SPEC, P_CREATE, P_DELETE, P_SCHED, P_N };
static const char *const pod_cols[P_N] = {"name",          "cpu_milli",     "memory_mib",
                                          "num_gpu",       "gpu_milli",     "gpu_spec",
                                          "creation_time", "deletion_time", "scheduled_time"};

typedef struct pods_rd {
    trace__rd rd;
    int col[P_N];
    size_t ncols;
    int timed; /* the 11-column form */
    uint64_t seq;
} pods_rd;

/* gpu_spec to a type mask; -1 (with the bad model in *bad) when a model is
 * unknown or its type is not in the caller's table. */
static int spec_mask(const trace_read_opts *o, char *spec, uint64_t *mask, const char **bad)
{
    *mask = 0;
    if (!spec[0] || !o->type_names)
        return 0;
    for (char *tok = spec; tok;) {
        char *bar = strchr(tok, '|');
        if (bar)
            *bar = '\0';
        if (tok[0]) {
            const char *type = trace_openb_model_type(tok);
            int t = type ? trace_type_index(o, type) : -1;
            if (t < 0) {
                *bad = tok;
                return -1;
            }
            *mask |= 1ull << t;
        }
        tok = bar ? bar + 1 : NULL;
    }
    return 0;
}

static uint64_t name_number(const char *name, uint64_t fallback)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k == n || n - k > 18)
        return fallback;
    return strtoull(name + k, NULL, 10);
}

static int pods_next(void *ud, trace_job *j, tm_diag *diag)
{
    pods_rd *s = ud;
    trace__rd *r = &s->rd;
    char *f[TRACE__MAX_COLS + 1];
    for (;;) {
        int rc = trace__rd_csv_row(r, f, s->ncols, diag);
        if (rc != TM_OK && rc != TRACE__SKIP)
            return rc;
        s->seq++; /* a pod without a number in its name is numbered by its row */
        if (rc == TRACE__SKIP)
            continue;
        int64_t cpu, mem, ngpu, milli;
        const char *num_names[4] = {"cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
        int64_t *nums[4] = {&cpu, &mem, &ngpu, &milli};
        int cols[4] = {P_CPU, P_MEM, P_NGPU, P_MILLI};
        int k;
        for (k = 0; k < 4; k++)
            if (trace__parse_i64(f[s->col[cols[k]]], nums[k]))
                break;
        if (k < 4) {
            if ((rc = trace__rd_bad(r, diag, "expected an integer in column \"%s\", got \"%.60s\"",
                                    num_names[k], f[s->col[cols[k]]])))
                return rc;
            continue;
        }
        if (cpu < 0 || mem < 0 || ngpu < 0 || ngpu > 4096 || milli < 0 || milli > 1000 ||
            (ngpu > 0 && milli == 0) || (ngpu > 1 && milli < 1000)) {
            if ((rc = trace__rd_bad(r, diag,
                                    "expected cpu_milli >= 0, memory_mib >= 0, 0 <= num_gpu <= "
                                    "4096 and gpu_milli in 1..1000 (1000 when num_gpu > 1), got "
                                    "%lld, %lld, %lld, %lld",
                                    (long long)cpu, (long long)mem, (long long)ngpu,
                                    (long long)milli)))
                return rc;
            continue;
        }
        trace_job_defaults(j);
        j->id = name_number(f[s->col[P_NAME]], s->seq);
        j->cls = r->o.cls;
        j->cpu_milli = cpu;
        j->host_mem_mib = mem;
        j->gpus = (uint32_t)ngpu;
        j->gpu_milli = ngpu > 0 ? (uint32_t)milli : PLACE_MILLI_WHOLE;
        if (s->col[P_SPEC] >= 0) {
            const char *badm = NULL;
            if (spec_mask(&r->o, f[s->col[P_SPEC]], &j->type_mask, &badm)) {
                if ((rc = trace__rd_bad(r, diag,
                                        "expected GPU models of the openb model table in "
                                        "gpu_spec, got \"%.40s\" (or its type is not in the "
                                        "fleet's type table)",
                                        badm)))
                    return rc;
                continue;
            }
        }
        if (s->timed) {
            const char *cs = f[s->col[P_CREATE]], *ds = f[s->col[P_DELETE]],
                       *ss = f[s->col[P_SCHED]];
            double c, d = 0, sc = 0;
            if (trace__parse_f64(cs, &c) || (ds[0] && trace__parse_f64(ds, &d)) ||
                (ss[0] && trace__parse_f64(ss, &sc)) || c < 0) {
                if ((rc = trace__rd_bad(r, diag,
                                        "expected times >= 0 in creation_time, deletion_time, "
                                        "scheduled_time, got \"%.30s\", \"%.30s\", \"%.30s\"",
                                        cs, ds, ss)))
                    return rc;
                continue;
            }
            double start = ss[0] ? sc : c;
            if ((ds[0] && d < start) || (ss[0] && sc < c)) {
                if ((rc = trace__rd_bad(r, diag,
                                        "expected creation <= scheduled <= deletion, got %.0f, "
                                        "%s, %.0f",
                                        c, ss[0] ? ss : "(none)", d)))
                    return rc;
                continue;
            }
            int bad;
            rc = trace__rd_order(r, trace__s_to_us(c), &bad, diag);
            if (rc != TM_OK)
                return rc;
            if (bad)
                continue;
            if (!ds[0]) {
                trace__rd_drop(r); /* still alive at the end of the trace: no lifetime */
                continue;
            }
            j->submit_us = trace__s_to_us(c);
            j->duration_us = trace__s_to_us(d - start);
        }
        r->st->records++;
        return TM_OK;
    }
}

int trace_openb_pods_open(trace_source *src, const char *path, const trace_read_opts *o,
                          tm_diag *diag)
{
    memset(src, 0, sizeof *src);
    int rc;
    pods_rd *s = trace__rd_new(sizeof *s, path, o, &rc, diag);
    if (rc == TM_OK)
        rc = trace__rd_header(&s->rd, pod_cols, P_N, 5, "an openb pod list header", s->col,
                              &s->ncols, diag);
    if (rc == TM_OK) {
        int any = s->col[P_CREATE] >= 0 || s->col[P_DELETE] >= 0 || s->col[P_SCHED] >= 0;
        s->timed = s->col[P_CREATE] >= 0 && s->col[P_DELETE] >= 0 && s->col[P_SCHED] >= 0;
        if (any && !s->timed)
            rc = tm_diag_set(diag, TM_ERR_TRACE, trace__rd_where(&s->rd),
                             "expected all of creation_time, deletion_time, scheduled_time or "
                             "none of them");
    }
    if (rc != TM_OK) {
        trace__rd_free(s);
        return rc;
    }
    src->next = pods_next;
    src->close = trace__rd_free;
    src->ud = s;
    return TM_OK;
}
