/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_report.c — `tarmac report`: a result file as one self-contained HTML
 * page (plot/report_html.c writes it).
 */
#include "cli/cli_int.h"
#include "plot/report_html_int.h"

#include <stdio.h>
#include <string.h>

static const char report_help[] =
    "Usage: tarmac report RESULT.h5 [-o REPORT.html] [--quiet]\n"
    "\n"
    "Write one self-contained HTML page of a result file (run, replay, compare,\n"
    "breakeven, sweep point or merged sweep, packing experiment): its figures as\n"
    "inline SVG (those of `tarmac plot`, drawn with gnuplot), its summaries and\n"
    "tables as HTML tables, its provenance and the scenario as given. The page\n"
    "loads nothing (no script, no stylesheet, no image file): mail it around.\n"
    "\n"
    "  -o, --output FILE    the page (default: RESULT without .h5, then .html);\n"
    "                       written atomically; - is standard output\n"
    "  -q, --quiet          print nothing but errors and warnings\n"
    "\n"
    "Without gnuplot the page is written without its figures, and says so\n"
    "(a warning on stderr; exit status 0).\n";

static const sim__cli_spec report_spec = {
    .cmd = &sim__cmd_report,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_QUIET,
    .operand = "result file",
    .max_operands = 1,
    .opts = NULL,
};

static int cmd_report(int argc, char **argv)
{
    sim__cli_args a;
    if (sim__cli_parse(&a, &report_spec, argc, argv) == SIM__CLI_STOP)
        return a.code;
    if (!a.n_operands)
        return sim__cli_usage("report", "%s", "needs a result file");
    const char *path = a.operands[0], *out = a.output;
    char def_out[1024];
    if (!out) {
        int bad = sim__cli_beside(def_out, sizeof def_out, path, ".html", "report", "-o FILE");
        if (bad)
            return bad;
        out = def_out;
    }
    /* SIGINT and SIGTERM stop it: gnuplot killed, no temporary left */
    sim__cli_install_signals();
    sim__report_html_info info;
    tm_diag d;
    int rc = sim__report_html_write(path, out, &sim__cli_stop, &info, &d);
    if (rc != TM_OK)
        return sim__cli_error(rc, &d);
    if (info.figures_note[0])
        fprintf(stderr, "tarmac report: warning: the page has no figures: %s\n", info.figures_note);
    if (!a.quiet && strcmp(out, "-") != 0)
        printf("wrote %s (%s: %zu figures, %zu tables)\n", out, info.kind, info.n_figures,
               info.n_tables);
    return 0;
}

const sim__cli_command sim__cmd_report = {
    "report",
    cmd_report,
    "write one self-contained HTML page of a result file (figures, tables)",
    report_help,
    NULL,
};
