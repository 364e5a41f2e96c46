/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html_priv.h — what the files of the HTML report share (report_html.c
 * the page, report_html_walk.c its tables, report_html_svg.c the inlined
 * pictures); the API is report_html_int.h.
 */
#ifndef TARMAC_REPORT_HTML_PRIV_H
#define TARMAC_REPORT_HTML_PRIV_H

#include "plot/report_html_int.h"

#include <stdio.h>

#define MAX_ROWS      200     /* rows of a table shown */
#define MAX_READ_ROWS 1000000 /* a longer table is named, not read */
#define MAX_DEPTH     8       /* of groups walked */
#define PATH_CAP      1024

/* The page being written. */
typedef struct sim__rpt_page {
    FILE *f;
    sim__h5r *r;
    const char *file;
    volatile int *stop;
    sim__report_html_info *info;
} sim__rpt_page;

/* What a member of a group is, for the walk. */
enum {
    SIM__RPT_SCALAR,
    SIM__RPT_STRING,
    SIM__RPT_ARRAY,
    SIM__RPT_MATRIX,
    SIM__RPT_GROUP,
    SIM__RPT_OTHER
};

typedef struct sim__rpt_member {
    char path[PATH_CAP];
    const char *name;
    int kind;
    sim__h5_info info;
} sim__rpt_member;

/* A number for a cell: "n/a" for NaN, whole numbers of 1e5 and more without
 * an exponent (GPU-hours and dollars read better that way), else six
 * significant digits; integer: always whole. tests/report_check.py formats
 * the same way. */
void sim__rpt_num(char *b, size_t n, double v, int integer);
/* The part of an HDF5 path after its last '/'. */
const char *sim__rpt_last_name(const char *path);
/* An attribute of obj as text: a string, or a number (sim__rpt_num); NULL
 * when absent (malloc'd). */
char *sim__rpt_attr(sim__rpt_page *p, const char *obj, const char *name);
/* Units as a cell shows them: nothing for "1" (a count or a ratio). */
void sim__rpt_units(sim__rpt_page *p, const char *units);
/* The value of a scalar member (a number or a string) as cell text. */
int sim__rpt_scalar_cell(sim__rpt_page *p, const sim__rpt_member *m, tm_diag *diag);
/* A column heading: the name, its units below it and its description as the
 * tooltip, from the dataset or group at path. */
/* ` title="DESC"` (escaped) when desc is not NULL: a column's or row's meaning on hover. */
void sim__rpt_title(sim__rpt_page *p, const char *desc);
void sim__rpt_col_head(sim__rpt_page *p, const char *path, const char *name);
/* The members of a group in creation order, classified: *names one block
 * (free it) and *ms an array (free it). */
int sim__rpt_members(sim__rpt_page *p, const char *group, char ***names, sim__rpt_member **ms,
                     size_t *n, tm_diag *diag);
/* The scalars and strings among ms[0..n) as a table: name, value, units,
 * description. */
int sim__rpt_scalars(sim__rpt_page *p, sim__rpt_member *ms, size_t n, tm_diag *diag);
/* Write group and what it holds as headings and tables (report_html_walk.c
 * says how); depth: of the heading. */
int sim__rpt_walk(sim__rpt_page *p, const char *group, int depth, tm_diag *diag);

#endif
