/* SPDX-License-Identifier: Apache-2.0 */
/*
 * summary_metrics.c — the summary metrics of a run as tables (model.h,
 * SIM_CLASS_METRICS and SIM_RUN_METRICS): their descriptions and their values
 * from a finished result. The engine computes the quantities; this file only
 * names them, so that every writer (the run report, run --json, sweep key
 * results, the docs' list) shows the same name, units and meaning.
 */
#include "model/model.h"

#include <math.h>

#define SIM_METRIC_DESC_(id, name, units, flags, desc, value) [id] = {name, units, flags, desc},
const sim_metric_desc sim_class_metric_info[SIM_CLASS_METRIC_COUNT] = {
    SIM_CLASS_METRICS(SIM_METRIC_DESC_)};
const sim_metric_desc sim_run_metric_info[SIM_RUN_METRIC_COUNT] = {
    SIM_RUN_METRICS(SIM_METRIC_DESC_)};
#undef SIM_METRIC_DESC_

double sim_class_metric_value(const sim_class_result *c, int m)
{
    switch (m) {
#define SIM_METRIC_CASE_(id, name, units, flags, desc, value)                                      \
    case id:                                                                                       \
        return value;
        SIM_CLASS_METRICS(SIM_METRIC_CASE_)
#undef SIM_METRIC_CASE_
    default:
        return NAN;
    }
}

double sim_run_metric_value(const sim_result *r, int m)
{
    switch (m) {
#define SIM_METRIC_CASE_(id, name, units, flags, desc, value)                                      \
    case id:                                                                                       \
        return value;
        SIM_RUN_METRICS(SIM_METRIC_CASE_)
#undef SIM_METRIC_CASE_
    default:
        return NAN;
    }
}
