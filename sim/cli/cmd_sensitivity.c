/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sensitivity.c — `tarmac sensitivity`: how the cost per useful GPU-hour
 * and the cost per month move when each main input moves by ±delta
 * (sensitivity.c does the work; this file parses, prints and writes).
 */
#include "studies/sensitivity_int.h"
#include "cli/cli_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sensitivity_help[] =
    "Usage: tarmac sensitivity [SCENARIO] [--delta P%] [--seed N] [-o FILE]\n"
    "                          [--verbose] [--quiet] [--limit NAME=VALUE]...\n"
    "\n"
    "One-at-a-time sensitivity: each main input of the scenario (GPU price, power\n"
    "price, API price, staff cost, the services' utilization target, the arrival\n"
    "growth rate) moved to (1 - P) and (1 + P) times its value, the others held,\n"
    "and the fleet cost per useful reference GPU-hour and the total cost per month\n"
    "at each. Prices re-account the base run (exact, no run); the utilization\n"
    "target and the growth rate are simulated again (same seed). Inputs the\n"
    "scenario does not have are listed as not in this scenario. Prints a table\n"
    "sorted by swing, largest first, and writes FILE (layout: docs/output.md,\n"
    "\"Sensitivity files\"); `tarmac plot FILE` draws the tornado chart.\n"
    "\n"
    "  --delta P%           the move, a percentage in (0, 100) (default 20%; the\n"
    "                       % sign is optional)\n"
    "  --seed N             override the scenario's seed\n"
    "  -o, --output FILE    HDF5 output (default tarmac-sensitivity.h5)\n"
    "  -v, --verbose        one line per simulation on stderr\n"
    "  -q, --quiet          print nothing but errors\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; repeatable)\n";

enum { O_DELTA = 256 };

static const sim__cli_opt sensitivity_opts[] = {
    {"delta", O_DELTA, 1, "a percentage in (0, 100), e.g. 20%"},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec sensitivity_spec = {
    .cmd = &sim__cmd_sensitivity,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_VERBOSE | SIM__CLI_QUIET | SIM__CLI_LIMIT,
    .no_stdout = "an HDF5 file",
    .operand = "scenario",
    .max_operands = 1,
    .opts = sensitivity_opts,
};

/* "20%", "20" or "12.5 %": the percentage as a fraction in (0, 1). */
static int parse_delta(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return -1;
    while (*end == ' ')
        end++;
    if (*end == '%')
        end++;
    if (*end || !(x > 0 && x < 100))
        return -1;
    *out = x / 100;
    return 0;
}

static void fmt_value(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (fabs(v) >= 1000)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.4g", v);
}

static void print_table(const sim__sens_cfg *cfg, const sim__sens_result *r, const char *out)
{
    printf("tarmac sensitivity: scenario \"%s\" (%s), each input x %.3g and x %.3g\n",
           cfg->sc->name, cfg->sc->source, 1 - cfg->delta, 1 + cfg->delta);
    printf("base: %.4f USD per useful GPU-hour, %.0f USD per month; %u simulation%s\n\n",
           r->base[0], r->base[1], r->runs, r->runs == 1 ? "" : "s");
    printf("%-19s %12s %12s %12s  %-12s %10s %10s %9s %12s %12s\n", "input", "base", "low", "high",
           "unit", "USD/GPU-h lo", "hi", "swing", "USD/month lo", "hi");
    for (size_t i = 0; i < SIM__SENS_N_INPUTS; i++) {
        const sim__sens_row *w = &r->rows[i];
        if (!w->present) {
            printf("%-19s not in this scenario\n", sim__sens_input_label(w->input));
            continue;
        }
        char b[32], lo[32], hi[32];
        fmt_value(b, sizeof b, w->base_value);
        fmt_value(lo, sizeof lo, w->low_value);
        fmt_value(hi, sizeof hi, w->high_value);
        printf("%-19s %12s %12s %12s  %-12s %12.4f %10.4f %9.4f %12.0f %12.0f%s\n",
               sim__sens_input_label(w->input), b, lo, hi, w->unit, w->low[0], w->high[0], w->swing,
               w->low[1], w->high[1], w->resimulated ? " (simulated)" : "");
    }
    if (out)
        printf("\nwrote %s\n", out);
}

static int cmd_sensitivity(int argc, char **argv)
{
    double delta = 0.2;
    sim__cli_args a;
    sim__cli_args_init(&a, &sensitivity_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0)
        if (key == O_DELTA && parse_delta(v, &delta))
            return sim__cli_bad_value(&a);
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL;
    const char *out = a.output ? a.output : "tarmac-sensitivity.h5";
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int code = sim__cli_open_scenario(&sc, path, &a);
    if (code)
        return code;
    int rc = TM_OK;
    sim__cli_install_signals();
    sim__cli_warn_no_gpus(&sc, path ? path : "(embedded default)");
    sim__sens_cfg cfg = {
        .sc = &sc, .delta = delta, .stop = &sim__cli_stop, .log = a.verbose ? stderr : NULL};
    sim__sens_result res;
    rc = sim__sens_run(&cfg, &res, &d);
    if (rc == TM_OK)
        rc = sim__sens_write(out, &cfg, &res, &d);
    if (rc != TM_OK) {
        sim_scenario_fini(&sc);
        return sim__cli_error(rc, &d);
    }
    if (!a.quiet)
        print_table(&cfg, &res, out);
    sim_scenario_fini(&sc);
    return 0;
}

const sim__cli_command sim__cmd_sensitivity = {
    "sensitivity",
    cmd_sensitivity,
    "how the cost moves when each main input (prices, utilization target, growth) moves by +-20 %",
    sensitivity_help,
    NULL,
};
