/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_export.c — `tarmac export`: a table of a result file as CSV, for
 * spreadsheets.
 *
 * A table is a group of 1-D columns of one length (docs/hdf5-io.md); its
 * columns come out in the order they were written, with a header line.
 * Columns are read one at a time through the HDF5 reader (each whole, so
 * memory is the table's size in 8-byte values), then rows are written.
 * Integers are printed as integers, floats with the fewest digits (15 to 17)
 * that read back to the same double, and NaN as an empty cell. With --labels, a
 * column carrying a `labels` attribute (class, state, reject_reason,
 * gpu_type, policy) is written as its label text instead of its code. A file
 * given with -o appears only when complete (sim__afile: an exclusive
 * temporary, synced and renamed); -o - or no -o is standard output.
 * SIGINT and SIGTERM stop it between columns while reading and every 4096
 * rows while writing (exit 130; the temporary of -o FILE is removed).
 */
#include "cli/cli_int.h"
#include "base/afile_int.h"
#include "output/h5io_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char export_help[] =
    "Usage: tarmac export RESULT.h5 --table NAME [--csv] [--labels] [-o FILE]\n"
    "       tarmac export RESULT.h5 --list\n"
    "\n"
    "Write one table of a result file as CSV (a header line, then one line per\n"
    "row), to FILE or to stdout. Tables: jobs, timeseries in run files;\n"
    "compare/runs and compare/metrics/METRIC in comparison files (--list shows\n"
    "them all).\n"
    "\n"
    "  --table NAME         the table's group (\"jobs\", \"/timeseries\", ...)\n"
    "  --csv                comma-separated values (the default and only format)\n"
    "  --labels             write coded columns (class, state, ...) as their labels\n"
    "  -o, --output FILE    write FILE (atomically) instead of stdout (- is stdout)\n"
    "  --list               list the tables of the file with their rows and columns\n";

typedef struct col {
    const char *name;
    int is_int;
    double *f;
    int64_t *i;
    char **labels; /* one block, or NULL */
    size_t n_labels;
} col;

static void csv_field(FILE *f, const char *s)
{
    int quote = s[0] == ' ' || (s[0] && s[strlen(s) - 1] == ' ');
    for (const char *p = s; *p && !quote; p++)
        quote = *p == ',' || *p == '"' || *p == '\n' || *p == '\r';
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

/* The "labels" attribute of a column, split on newlines (one block). */
static int read_labels(sim__h5r *r, const char *obj, char ***out, size_t *n, tm_diag *diag)
{
    char *s = NULL;
    *out = NULL;
    *n = 0;
    int rc = sim__h5r_attr_str(r, obj, "labels", &s, diag);
    if (rc == TM_ERR_NOTFOUND) {
        tm_diag_clear(diag);
        return TM_OK;
    }
    if (rc)
        return rc;
    size_t len = strlen(s), count = 1;
    for (size_t i = 0; i < len; i++)
        count += s[i] == '\n';
    char **v = malloc(count * sizeof *v + len + 1);
    if (!v) {
        free(s);
        return tm_diag_set(diag, TM_ERR_NOMEM, obj, "out of memory");
    }
    char *text = (char *)(v + count);
    memcpy(text, s, len + 1);
    free(s);
    size_t k = 0;
    v[k++] = text;
    for (char *p = text; *p; p++)
        if (*p == '\n') {
            *p = '\0';
            v[k++] = p + 1;
        }
    *out = v;
    *n = count;
    return TM_OK;
}

/* 1 when `path` is a group whose members are 1-D datasets of one length. */
static int is_table(sim__h5r *r, const char *path, size_t *rows, size_t *ncols)
{
    tm_diag d;
    sim__h5_info info;
    if (sim__h5r_info(r, path, &info, &d) != TM_OK || info.kind != SIM__H5_GROUP)
        return 0;
    char **names;
    size_t n;
    if (sim__h5r_list(r, path, SIM__H5_ORDER_CREATION, &names, &n, &d) != TM_OK)
        return 0;
    int ok = n > 0;
    uint64_t len = 0;
    for (size_t i = 0; ok && i < n; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", strcmp(path, "/") ? path : "", names[i]);
        if (sim__h5r_info(r, p, &info, &d) != TM_OK || info.kind != SIM__H5_DATASET ||
            info.rank != 1 || info.type == SIM__H5_STR || info.type == SIM__H5_OTHER ||
            (i && info.len != len))
            ok = 0;
        len = info.len;
    }
    free(names);
    *rows = (size_t)len;
    *ncols = n;
    return ok;
}

static void list_tables(sim__h5r *r, const char *group)
{
    size_t rows, ncols;
    if (is_table(r, group, &rows, &ncols)) {
        printf("%-36s %10zu rows %4zu columns\n", group + 1, rows, ncols);
        return;
    }
    tm_diag d;
    char **names;
    size_t n;
    sim__h5_info info;
    if (sim__h5r_info(r, group, &info, &d) != TM_OK || info.kind != SIM__H5_GROUP ||
        sim__h5r_list(r, group, SIM__H5_ORDER_CREATION, &names, &n, &d) != TM_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", strcmp(group, "/") ? group : "", names[i]);
        list_tables(r, p);
    }
    free(names);
}

/* 0 written, -1 a write failed (errno), 1 stopped by a signal (SIGINT,
 * SIGTERM: a look at the flag every 4096 rows, a few milliseconds) */
static int write_csv(FILE *f, const col *cols, size_t ncols, size_t rows, int labels,
                     size_t *rows_done)
{
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, cols[c].name);
    }
    fputc('\n', f);
    for (size_t i = 0; i < rows; i++) {
        *rows_done = i;
        if ((i & 4095) == 0 && sim__cli_stop)
            return 1;
        for (size_t c = 0; c < ncols; c++) {
            const col *k = &cols[c];
            if (c)
                fputc(',', f);
            if (k->is_int) {
                int64_t v = k->i[i];
                if (labels && k->labels && v >= 0 && (uint64_t)v < k->n_labels)
                    csv_field(f, k->labels[v]);
                else if (labels && k->labels && v < 0)
                    ; /* "none" (never started): an empty cell */
                else
                    fprintf(f, "%lld", (long long)v);
            } else if (!isnan(k->f[i])) {
                char buf[32];
                sim__cli_fmt_double(buf, sizeof buf, k->f[i]);
                fputs(buf, f);
            }
        }
        fputc('\n', f);
        if (ferror(f))
            return -1;
    }
    *rows_done = rows;
    return ferror(f) ? -1 : 0;
}

enum { O_TABLE = 256, O_CSV, O_LABELS, O_LIST };

static const sim__cli_opt export_opts[] = {
    {"table", O_TABLE, 1, "a table name"},
    {"csv", O_CSV, 0, NULL},
    {"labels", O_LABELS, 0, NULL},
    {"list", O_LIST, 0, NULL},
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec export_spec = {
    .cmd = &sim__cmd_export,
    .shared = SIM__CLI_OUTPUT,
    .operand = "result file",
    .max_operands = 1,
    .opts = export_opts,
};

static int cmd_export(int argc, char **argv)
{
    const char *table = NULL;
    int labels = 0, list = 0;
    sim__cli_args a;
    sim__cli_args_init(&a, &export_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        switch (key) {
        case O_TABLE:
            if (!v[0])
                return sim__cli_bad_value(&a);
            table = v;
            break;
        case O_CSV: /* the only format */
            break;
        case O_LABELS:
            labels = 1;
            break;
        case O_LIST:
            list = 1;
            break;
        }
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL;
    /* NULL or "-": standard output */
    const char *out = a.output && strcmp(a.output, "-") != 0 ? a.output : NULL;
    if (!path)
        return sim__cli_usage("export", "%s", "needs a result file");
    if (!list && !table)
        return sim__cli_usage("export", "%s", "needs --table NAME (or --list)");
    tm_diag d;
    tm_diag_clear(&d);
    /* SIGINT and SIGTERM stop the reading and the writing (the temporary of
     * -o FILE is removed) */
    sim__cli_install_signals();
    sim__h5r *r = NULL;
    int rc = sim__h5r_open(&r, path, &d);
    if (rc != TM_OK)
        return sim__cli_error(rc, &d);
    if (list) {
        list_tables(r, "/");
        sim__h5r_close(r);
        return 0;
    }
    char group[512];
    snprintf(group, sizeof group, "%s%s", table[0] == '/' ? "" : "/", table);
    size_t glen = strlen(group);
    while (glen > 1 && group[glen - 1] == '/')
        group[--glen] = '\0';
    char **names = NULL;
    col *cols = NULL;
    size_t ncols = 0, rows = 0;
    sim__afile af = {0};
    if (!is_table(r, group, &rows, &ncols)) {
        rc = tm_diag_set(&d, TM_ERR_NOTFOUND, path,
                         "no table %s (a group of equal-length columns); "
                         "`tarmac export %s --list` shows the tables",
                         group, path);
        goto out;
    }
    if ((rc = sim__h5r_list(r, group, SIM__H5_ORDER_CREATION, &names, &ncols, &d)))
        goto out;
    cols = calloc(ncols, sizeof *cols);
    if (!cols) {
        rc = tm_diag_set(&d, TM_ERR_NOMEM, "export", "out of memory");
        goto out;
    }
    for (size_t c = 0; c < ncols; c++) {
        if (sim__cli_stop) {
            rc = tm_diag_set(&d, TM_ERR_INTERRUPTED, "export",
                             "interrupted while reading the table %s (%zu of %zu columns); "
                             "nothing written",
                             group, c, ncols);
            goto out;
        }
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", group, names[c]);
        sim__h5_info info;
        size_t n;
        cols[c].name = names[c];
        if ((rc = sim__h5r_info(r, p, &info, &d)))
            goto out;
        cols[c].is_int = info.type != SIM__H5_F64;
        rc = cols[c].is_int ? sim__h5r_array_i64(r, p, &cols[c].i, &n, &d)
                            : sim__h5r_array_f64(r, p, &cols[c].f, &n, &d);
        if (rc)
            goto out;
        if (n != rows) {
            rc = tm_diag_set(&d, TM_ERR_DATA, p, "has %zu rows, the table %zu", n, rows);
            goto out;
        }
        if (labels && cols[c].is_int &&
            (rc = read_labels(r, p, &cols[c].labels, &cols[c].n_labels, &d)))
            goto out;
    }
    if (out && (rc = sim__afile_open(&af, out, &d)) != TM_OK)
        goto out;
    size_t done = 0;
    int wr = write_csv(out ? af.f : stdout, cols, ncols, rows, labels, &done);
    if (wr > 0) {
        rc = tm_diag_set(&d, TM_ERR_INTERRUPTED, "export",
                         "interrupted while writing %s (%zu of %zu rows)%s", out ? out : "stdout",
                         done, rows, out ? "; not written" : "");
        goto out;
    }
    if (wr < 0) {
        rc = tm_diag_set(&d, TM_ERR_IO, out ? out : "stdout", "write failed: %s", strerror(errno));
        goto out;
    }
    if (out)
        rc = sim__afile_commit(&af, &d); /* releases af, whatever it returns */
    else if (fflush(stdout) != 0)
        rc = tm_diag_set(&d, TM_ERR_IO, "stdout", "write failed: %s", strerror(errno));
out:
    sim__afile_abort(&af); /* after a failure: the temporary goes, FILE is untouched */
    for (size_t c = 0; cols && c < ncols; c++) {
        free(cols[c].f);
        free(cols[c].i);
        free(cols[c].labels);
    }
    free(cols);
    free(names);
    sim__h5r_close(r);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_export = {
    "export", cmd_export, "write a table of a result file as CSV", export_help, NULL,
};
