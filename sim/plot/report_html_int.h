/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html_int.h — one self-contained HTML page of a result file
 * (internal to sim/; `tarmac report`, docs/cli.md).
 *
 * The page holds the file's figures as inline SVG (drawn by the plot writer,
 * plot_int.h, into a private temporary folder, then copied in with their ids
 * prefixed so that several pictures can share a page), its tables and
 * scalars as HTML tables, the provenance and the scenario as given. It
 * refers to nothing outside itself: no script, no stylesheet, no image file,
 * no link to the network, so it can be mailed around and read years later.
 */
#ifndef TARMAC_REPORT_HTML_INT_H
#define TARMAC_REPORT_HTML_INT_H

#include "plot/plot_int.h"

/* What a call of sim__report_html_write did. */
typedef struct sim__report_html_info {
    const char *kind;        /* what the file is: "run", "comparison", ... (static) */
    size_t n_figures;        /* figures inlined */
    size_t n_tables;         /* HTML tables written */
    int gnuplot_missing;     /* 1: no figures, as gnuplot is not installed (the page says so) */
    char figures_note[1100]; /* why a figure is missing, when one is ("" otherwise) */
} sim__report_html_info;

/* Write the report of the result file h5path to out (NULL or "-": standard
 * output, written as it goes; otherwise a file that appears only when
 * complete, base/afile_int.h). stop: set by a SIGINT/SIGTERM handler (NULL:
 * never); the call then returns TM_ERR_INTERRUPTED and leaves no file and no
 * temporary. Returns TM_OK; TM_ERR_NOTFOUND (66) when h5path is missing or
 * unreadable; TM_ERR_DATA (65) when it is not an HDF5 file, not a tarmac
 * file, or a dataset has the wrong type or shape; TM_ERR_CANTCREAT (73) when
 * out cannot be created; TM_ERR_IO (74) when a write fails. gnuplot missing
 * or failing is not an error: the page says the figures are missing and
 * info->figures_note says why. */
int sim__report_html_write(const char *h5path, const char *out, volatile int *stop,
                           sim__report_html_info *info, tm_diag *diag);

/* Copy the SVG document svg (len bytes; gnuplot's svg terminal) to f as an
 * element for an HTML page: the XML prologue, doctype and comments before the
 * <svg> element dropped, and every id, url(#id) and href="#id" prefixed with
 * `prefix` so that ids of several pictures on one page cannot collide, and
 * the xmlns attributes dropped (HTML needs none); an id repeated within the
 * picture (gnuplot's multiplot panels) gets "-2", "-3", ... appended. Text
 * between tags is copied unchanged. Returns 0, -1 when there is no <svg>
 * element, -2 when out of memory. */
int sim__report_html_svg(FILE *f, const char *svg, size_t len, const char *prefix);

/* Write s to f with HTML's special characters as entities (& < > " ') and
 * control characters other than tab and newline as U+FFFD. NULL writes
 * nothing. */
void sim__report_html_esc(FILE *f, const char *s);

#endif
