/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_report_int.h — the outputs of a request-level LLM serving run
 * (sim/model/llm_int.h): an HDF5 file with /provenance (layout in
 * docs/llm-serving.md, "Outputs") and the text summary.
 */
#ifndef TARMAC_LLM_REPORT_INT_H
#define TARMAC_LLM_REPORT_INT_H

#include "model/llm_int.h"

#include <stdio.h>

/* What the run was: the deployment and where its requests came from. */
typedef struct sim__llm_report {
    const sim__llm_cfg *cfg;
    const sim__llm_result *res;
    const sim__llm_req *reqs; /* res->n_reqs of them */
    const char *trace;        /* the request file, or a description of synthetic requests */
    const char *model, *gpu;
    uint32_t tp;
    const char *kv_dtype;      /* "bf16" or "fp8" */
    const char *iter_source;   /* "roofline" or the profile file */
    double load_scale;         /* arrival rate x this (times / this) */
    const sim_scenario *fleet; /* for /provenance; NULL without a fleet file */
} sim__llm_report;

/* Names of the policy and routing values. */
const char *sim__llm_policy_name(sim__llm_policy p);
const char *sim__llm_route_name(sim__llm_route r);

/* Write the HDF5 file at path (complete or not at all). */
int sim__llm_report_h5(const sim__llm_report *r, const char *path, tm_diag *diag);
/* The text summary: deployment, service figures, one line per replica. */
void sim__llm_report_text(const sim__llm_report *r, FILE *f);

#endif
