/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot_int.h — the plot writer (internal to sim/; docs/plots.md).
 *
 * `tarmac plot` reads a result file through the HDF5 reader and, for every
 * entry of the plot table (plot.c) whose datasets are in the file, calls the
 * entry's function. The function reads what it needs and writes one or more
 * figures: for each, a data file STEM.dat and a gnuplot script STEM.gp into
 * the output folder, through sim__plot_begin / sim__plot_end. When every
 * function has run, plot.c runs gnuplot once per script, in the output
 * folder, without a shell, and checks that each picture appeared.
 *
 * Scripts name their data and picture by file name only, so the folder can be
 * moved and a script re-run by hand (`cd DIR && gnuplot STEM.gp`) after
 * restyling it. plot.c is the only file that runs gnuplot; plot_*.c write
 * data and scripts.
 *
 * Adding a plot: one function (in a plot_*.c file of its family) and one line
 * in plot.c's table naming the datasets it needs.
 */
#ifndef TARMAC_PLOT_INT_H
#define TARMAC_PLOT_INT_H

#include "base/afile_int.h"
#include "output/h5io_int.h"
#include "plot/plot.h"

#include <stdio.h>

typedef enum sim__plot_format { SIM__PLOT_PNG = 0, SIM__PLOT_SVG, SIM__PLOT_PDF } sim__plot_format;

#define SIM__PLOT_MAX_FIGURES 64
#define SIM__PLOT_STEM_MAX    64

typedef struct sim__plot_opts {
    const char *dir;         /* output folder; created (one level) if missing */
    sim__plot_format format; /* of the pictures */
    const char *only;        /* comma-separated plot names, or NULL for every plot */
    /* set by a SIGINT/SIGTERM handler (NULL: never): the figure in hand is
     * dropped (gnuplot killed, temporaries removed) and the call returns
     * TM_ERR_INTERRUPTED; figures completed before it stay, each whole */
    volatile int *stop;
} sim__plot_opts;

/* What a call of sim__plot_file did. */
typedef struct sim__plot_report {
    size_t n_figures; /* figures whose data and script were written */
    size_t n_drawn;   /* pictures gnuplot drew */
    char stems[SIM__PLOT_MAX_FIGURES][SIM__PLOT_STEM_MAX];
    int gnuplot_missing; /* 1: no gnuplot in PATH, or none that can be run (data and
                            scripts written) */
} sim__plot_report;

/* Plot every figure of the result file at h5path into o->dir. Returns TM_OK
 * when every picture was drawn; TM_ERR_UNAVAILABLE when gnuplot is not in PATH
 * (the data and scripts are written all the same; diag says how to draw
 * them), and when gnuplot failed on a script (diag carries its message);
 * TM_ERR_NOTFOUND when the file has nothing tarmac plots (or no plot of
 * o->only's names); TM_ERR_DATA when a dataset a plot reads has the wrong
 * type or shape; TM_ERR_CANTCREAT when the folder or a file in it cannot be
 * created; TM_ERR_IO when a write fails. */
int sim__plot_file(const char *h5path, const sim__plot_opts *o, sim__plot_report *rep,
                   tm_diag *diag);

/* The plot table, for `tarmac plot --list`: *n entries. */
typedef struct sim__plot_ctx sim__plot_ctx;
typedef struct sim__plot_def {
    const char *name;    /* as --only names it; also the stem of its first figure */
    const char *summary; /* one line */
    /* datasets or groups that must all exist in the file; NULL-terminated */
    const char *needs[6];
    int (*fn)(sim__plot_ctx *c, tm_diag *diag);
} sim__plot_def;
const sim__plot_def *sim__plot_table(size_t *n);
/* 1 when every dataset the entry needs is in the file. */
int sim__plot_applies(const sim__plot_def *def, sim__h5r *r);

/* ------------------------------------------------------------------------- */
/* For plot functions                                                         */

struct sim__plot_ctx {
    sim__h5r *r;
    const char *file;  /* the result file */
    char subject[256]; /* what the file is, for titles: "default (fifo-best-fit)" */
    const char *dir;   /* output folder */
    sim__plot_format format;
    sim__plot_report *rep;
    volatile int *stop; /* sim__plot_opts.stop */
};

/* One figure being written. */
typedef struct sim__plot_fig {
    FILE *dat, *gp; /* write here (the temporaries of the two afiles) */
    char stem[SIM__PLOT_STEM_MAX];
    sim__afile a_dat, a_gp;
} sim__plot_fig;

/* Start figure STEM of width x height pixels (SVG: the same; PDF: scaled to
 * inches): opens STEM.dat and STEM.gp (as temporaries that take their names
 * only when complete, afile_int.h) and writes the script's preamble
 * (terminal, output file, fonts, line styles 1..8, grid, noenhanced text). */
int sim__plot_begin(sim__plot_ctx *c, sim__plot_fig *f, const char *stem, int width, int height,
                    tm_diag *diag);
/* Commit both files (checking every write; each appears under its name only
 * when complete) and queue the script for gnuplot. On failure neither is
 * left. */
int sim__plot_end(sim__plot_ctx *c, sim__plot_fig *f, tm_diag *diag);
/* Close and remove a figure's files after a failure elsewhere. NULL-safe. */
void sim__plot_abandon(sim__plot_fig *f);

/* Write s as a gnuplot single-quoted string ('' for a quote; newlines become
 * spaces), so no text from a file can leave the string; double-quoted (\"
 * and \\) when it starts with a quote or has two in a row, which gnuplot
 * 5.4 misreads in single quotes. */
void sim__plot_str(FILE *gp, const char *s);
/* A value for a data file: %.9g, or NaN. */
void sim__plot_num(FILE *dat, double v);

/* The longest series a figure reads (points): a longer one is refused with
 * a message (TM_ERR_LIMIT) instead of read into memory. 2e7 doubles is
 * 160 MB, far more than a picture can show. */
#define SIM__PLOT_MAX_POINTS 20000000u

/* Read a whole column or array (sim__h5r_array_f64), diag naming the file;
 * one longer than SIM__PLOT_MAX_POINTS is refused unread. */
int sim__plot_read_f64(sim__plot_ctx *c, const char *path, double **v, size_t *n, tm_diag *diag);
/* The "labels" attribute of obj split on newlines: *labels is one malloc'd
 * block (free it); 0 labels when the attribute is absent. */
int sim__plot_labels(sim__plot_ctx *c, const char *obj, char ***labels, size_t *n, tm_diag *diag);

/* The parameters of a merged sweep's combinations (/sweep/params): per
 * parameter its JSON path, its column over the combinations (NULL when
 * unreadable; NaN or -1 where a combination keeps the base's value) and, for
 * a coded column, its values. */
typedef struct sim__plot_params {
    size_t n;
    char **paths; /* one block (sim__plot_split_lines) */
    double **col; /* [n][rows] */
    char ***vals; /* [n]: NULL for a numeric column */
    size_t *n_vals;
} sim__plot_params;
/* Read them for `rows` combinations; an empty set when the sweep varies
 * nothing. */
int sim__plot_params_read(sim__plot_ctx *c, size_t rows, sim__plot_params *p, tm_diag *diag);
void sim__plot_params_fini(sim__plot_params *p);
/* The label of combination k: "path=value; ..." over the parameters whose
 * skip[i] is 0 (skip may be NULL); a coded value by its text, a file by its
 * name, "(base)" where it keeps the base's value, and a value of the form
 * "key=..." (a policy) alone. shorten: each path by its last component where
 * that is unambiguous. */
void sim__plot_params_label(const sim__plot_params *p, size_t k, const int *skip, int shorten,
                            char *out, size_t cap);
/* A newline-separated list as one block: the pointers, then the text (free
 * the block); NULL when out of memory. */
char **sim__plot_split_lines(const char *t, size_t *n);
/* The part of a path after its last '/'. */
const char *sim__plot_base_name(const char *p);

/* A time axis for simulated seconds: the unit ("min", "h" or "d") and its
 * length in seconds, chosen from the span. */
void sim__plot_time_unit(double span_s, const char **unit, double *unit_s);

/* Counts, GPU-hours and money on a linear axis: divide by 1 / *scale (1,
 * 1e3 or 1e6 from the largest value, max) and put *prefix ("", "k ", "M ")
 * before the unit in the axis label, so tick labels stay short numbers. */
void sim__plot_count_unit(double max, double *scale, const char **prefix);
/* Explicit tics of a log axis ("x" or "y") at every power of ten from lo to
 * hi, labelled with k, M, B, T suffixes (1, 10, 100, 1k, ..., 1M, 10B),
 * between `before` and `after` (e.g. "$", ""), and unlabelled minor tics.
 * Nothing when the range is not positive. */
void sim__plot_log_tics(FILE *gp, const char *axis, double lo, double hi, const char *before,
                        const char *after);
/* A name as a label of at most max_chars characters (UTF-8 code points):
 * a longer one keeps its start and its end around an ellipsis, so names that
 * differ in a numbered suffix stay apart ("a workload cl…ong name 07"). */
void sim__plot_short_name(char *out, size_t cap, const char *s, size_t max_chars);
/* Labels longer than this are shortened (sim__plot_short_name) in keys and
 * tics. */
#define SIM__PLOT_LABEL_CHARS 28
/* At most this many classes or consumers are drawn on their own in a figure
 * of one curve or bar per class; the rest share one "other N classes" entry
 * (docs/plots.md, "Many classes"). */
#define SIM__PLOT_MAX_CLASSES 10
/* order[0..n) gets the indices 0..n-1; when n > max_shown, the heaviest
 * max_shown - 1 by weight (NaN as 0; ties: the earlier) come first, in their
 * original order, and the rest after them; returns 1 then (an "others"
 * entry is needed), else 0. */
int sim__plot_top(const double *weight, size_t n, size_t max_shown, size_t *order);

/* The plots, by family. */
int sim__plot_utilization(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_utilization_pools(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_utilization_types(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_shape_blocked(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_ledger(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_services(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_packing(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_sweep_packing(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_sweep(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_wait_cdf(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_llm(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_slowdown(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_compare(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_compare_classes(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_cost(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_breakeven(sim__plot_ctx *c, tm_diag *diag);
int sim__plot_fleet_breakeven(sim__plot_ctx *c, tm_diag *diag); /* fleetbe_plot.c */

#endif
