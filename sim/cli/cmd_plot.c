/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_plot.c — `tarmac plot`: the figures of a result file (plot.c draws them).
 */
#include "cli/cli_int.h"
#include "plot/plot_int.h"

#include <stdio.h>
#include <string.h>

static const char plot_help[] =
    "Usage: tarmac plot RESULT.h5 [-o DIR] [--format png|svg|pdf] [--only NAME,...]\n"
    "       tarmac plot --list [RESULT.h5]\n"
    "\n"
    "Draw the figures of a result file (from `tarmac run` or `tarmac compare`) with\n"
    "gnuplot: for each, DIR/NAME.dat (the data), DIR/NAME.gp (the script: restyle it\n"
    "and redraw with `gnuplot NAME.gp` in DIR) and DIR/NAME.png (or .svg, .pdf).\n"
    "Only the figures whose datasets are in the file are drawn (docs/plots.md).\n"
    "\n"
    "  -o, --output DIR     folder for the figures (default: RESULT without .h5,\n"
    "                       followed by -plots); created if missing\n"
    "  --format FMT         png (default), svg or pdf\n"
    "  --only NAME,...      only these plots (names as --list prints them)\n"
    "  --list               list the plots and, given a file, which it has data for\n"
    "  -q, --quiet          print nothing but errors\n"
    "\n"
    "Exit status 69 when gnuplot is missing or fails: the data and scripts are written\n"
    "all the same, and the message says how to draw them.\n";

static int list_plots(const char *path)
{
    size_t n;
    const sim__plot_def *t = sim__plot_table(&n);
    sim__h5r *r = NULL;
    tm_diag d;
    tm_diag_clear(&d);
    if (path) {
        int rc = sim__h5r_open(&r, path, &d);
        if (rc != TM_OK)
            return sim__cli_error(rc, &d);
    }
    for (size_t i = 0; i < n; i++) {
        if (r)
            printf("%-18s %-4s %s\n", t[i].name, sim__plot_applies(&t[i], r) ? "yes" : "no",
                   t[i].summary);
        else
            printf("%-18s %s\n", t[i].name, t[i].summary);
        if (!r || !sim__plot_applies(&t[i], r)) {
            printf("%-18s %s", "", "needs");
            for (size_t k = 0; k < sizeof t[i].needs / sizeof t[i].needs[0] && t[i].needs[k]; k++)
                printf(" %s", t[i].needs[k]);
            putchar('\n');
        }
    }
    sim__h5r_close(r);
    return 0;
}

enum { O_FORMAT = 256, O_ONLY, O_LIST };

static const sim__cli_opt plot_opts[] = {
    {"format", O_FORMAT, 1, "png, svg or pdf"},
    {"only", O_ONLY, 1, "plot names"},
    {"list", O_LIST, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec plot_spec = {
    .cmd = &sim__cmd_plot,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_QUIET,
    .output_needs = "a folder",
    .no_stdout = "a folder of figures",
    .operand = "result file",
    .max_operands = 1,
    .opts = plot_opts,
};

static int cmd_plot(int argc, char **argv)
{
    const char *only = NULL;
    sim__plot_format fmt = SIM__PLOT_PNG;
    int list = 0;
    sim__cli_args a;
    sim__cli_args_init(&a, &plot_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        switch (key) {
        case O_FORMAT:
            if (strcmp(v, "png") == 0)
                fmt = SIM__PLOT_PNG;
            else if (strcmp(v, "svg") == 0)
                fmt = SIM__PLOT_SVG;
            else if (strcmp(v, "pdf") == 0)
                fmt = SIM__PLOT_PDF;
            else
                return sim__cli_usage("plot", "%s: '%s' is not png, svg or pdf", a.opt, v);
            break;
        case O_ONLY:
            if (!v[0])
                return sim__cli_bad_value(&a);
            only = v;
            break;
        case O_LIST:
            list = 1;
            break;
        }
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL, *dir = a.output;
    int quiet = a.quiet;
    if (list)
        return list_plots(path);
    if (!path)
        return sim__cli_usage("plot", "%s", "needs a result file");
    char def_dir[1024];
    if (!dir) {
        int bad = sim__cli_beside(def_dir, sizeof def_dir, path, "-plots", "plot", "-o DIR");
        if (bad)
            return bad;
        dir = def_dir;
    }
    /* SIGINT and SIGTERM stop it: gnuplot killed, no temporary left */
    sim__cli_install_signals();
    sim__plot_opts o = {dir, fmt, only, &sim__cli_stop};
    sim__plot_report rep;
    tm_diag d;
    int rc = sim__plot_file(path, &o, &rep, &d);
    if (!quiet && rc == TM_OK) {
        const char *ext = fmt == SIM__PLOT_SVG ? "svg" : fmt == SIM__PLOT_PDF ? "pdf" : "png";
        for (size_t i = 0; i < rep.n_figures; i++)
            printf("wrote %s/%s.%s (and .dat, .gp)\n", dir, rep.stems[i], ext);
    }
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_plot = {
    "plot",    cmd_plot, "draw the figures of a result file with gnuplot (PNG, SVG, PDF)",
    plot_help, NULL,
};
