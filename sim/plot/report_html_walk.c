/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html_walk.c — the tables of the HTML report (report_html_int.h).
 *
 * The tables are not a list per file kind: the walk goes through the file's
 * groups in the order they were written (sim__h5r_list) and shows what it
 * finds, which every kind tarmac writes is built from:
 *   - a table (a group with a `columns` attribute) as an HTML table, its code
 *     columns by their `labels` (or `values`), at most MAX_ROWS rows;
 *   - a group's scalars as a table of name, value, units and description;
 *   - a group's 1-D arrays of equal length (a packing policy's curves) as
 *     one table, one column per array;
 *   - a group of groups that hold scalars (the classes, pools, GPU types and
 *     services of a run summary) as one table with a column per member.
 * What a page cannot usefully show is named with its size and the command
 * that gives it: the job rows, the time series (the figures draw them), 2-D
 * curves, a merged sweep's links to its point files (never followed).
 */
#include "plot/report_html_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number for a cell: "n/a" for NaN, whole numbers of 1e5 and more without
 * an exponent (GPU-hours and dollars read better that way), else six
 * significant digits. tests/report_check.py formats the same way. */
void sim__rpt_num(char *b, size_t n, double v, int integer)
{
    if (isnan(v))
        snprintf(b, n, "n/a");
    else if (isinf(v))
        snprintf(b, n, "%s", v > 0 ? "inf" : "-inf");
    else if (integer || (fabs(v) >= 1e5 && fabs(v) < 1e15))
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.6g", v);
}

static int join_path(char *out, const char *dir, const char *name)
{
    int k = snprintf(out, PATH_CAP, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
    return k > 0 && k < PATH_CAP ? 0 : -1;
}

const char *sim__rpt_last_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* An attribute as text: a string, or a number; NULL when absent or neither
 * (malloc'd). */
char *sim__rpt_attr(sim__rpt_page *p, const char *obj, const char *name)
{
    tm_diag d;
    char *s = NULL;
    if (sim__h5r_attr_str(p->r, obj, name, &s, &d) == TM_OK)
        return s;
    double v;
    if (sim__h5r_attr_f64(p->r, obj, name, &v, &d) == TM_OK) {
        char b[64];
        sim__rpt_num(b, sizeof b, v, 0);
        return strdup(b);
    }
    return NULL;
}

/* Units as shown: nothing for "1" (a count or a ratio). */
void sim__rpt_units(sim__rpt_page *p, const char *units)
{
    if (units && strcmp(units, "1") != 0)
        sim__report_html_esc(p->f, units);
}

/* A long or multi-line string folds away under its first words. */
static void put_string_value(sim__rpt_page *p, const char *s)
{
    if (strlen(s) > 120 || strchr(s, '\n')) {
        fputs("<details><summary>", p->f);
        char head[64];
        size_t k = 0;
        for (; s[k] && s[k] != '\n' && k + 1 < 60; k++)
            head[k] = s[k];
        head[k] = '\0';
        sim__report_html_esc(p->f, head);
        fputs(" &hellip;</summary><pre>", p->f);
        sim__report_html_esc(p->f, s);
        fputs("</pre></details>", p->f);
    } else {
        sim__report_html_esc(p->f, s);
    }
}

static void heading(sim__rpt_page *p, int depth, const char *path)
{
    int h = depth + 2 > 6 ? 6 : depth + 2;
    fprintf(p->f, "<h%d><code>", h);
    sim__report_html_esc(p->f, path);
    fprintf(p->f, "</code></h%d>\n", h);
    char *desc = sim__rpt_attr(p, path, "description");
    if (desc && desc[0]) {
        fputs("<p class=\"desc\">", p->f);
        sim__report_html_esc(p->f, desc);
        fputs("</p>\n", p->f);
    }
    free(desc);
    /* the attributes that say what a group is (docs/output.md) */
    static const char *const attrs[] = {
        "policies", "policy_specs", "policy_settings", "spec",  "sweep_kind", "kind",    "model",
        "slo_kind", "slo_s",        "slo_target",      "label", "units",      "messages"};
    int any = 0;
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        char *v = sim__rpt_attr(p, path, attrs[i]);
        if (v) {
            fputs(any ? "" : "<dl class=\"attrs\">", p->f);
            any = 1;
            fprintf(p->f, "<dt>%s</dt><dd>", attrs[i]);
            sim__report_html_esc(p->f, v);
            fputs("</dd>", p->f);
        }
        free(v);
    }
    if (any)
        fputs("</dl>\n", p->f);
}

static void note(sim__rpt_page *p, const char *path, const char *fmt_text)
{
    fputs("<p class=\"note\"><code>", p->f);
    sim__report_html_esc(p->f, path);
    fputs("</code>: ", p->f);
    sim__report_html_esc(p->f, fmt_text);
    fputs("</p>\n", p->f);
}

/* The groups and datasets the walk names instead of showing, with why. */
static const struct {
    const char *path;
    const char *why;
} not_shown[] = {
    {"/jobs", "one row per job, not listed here; `tarmac export FILE --table jobs --csv` writes "
              "them"},
    {"/timeseries", "time series, drawn in the figures; `tarmac export FILE --table timeseries "
                    "--csv` writes them"},
    {"/timeseries_pool", "time series per pool, drawn in the figures"},
    {"/timeseries_type", "time series per GPU type, drawn in the figures"},
    {"/timeseries_class", "time series per workload class"},
    {"/timeseries_service", "time series per service, drawn in the figures"},
    {"/sweep/files", "links to the point files, not followed"},
    {"/sweep/curves", "each point's packing curves, drawn in the figures as means"},
    {"/sweep/curves_mean", "the mean packing curves, drawn in the figures"},
    {"/provenance", NULL}, /* its own section */
};

static const char *why_not_shown(const char *path, int *skip)
{
    *skip = 0;
    for (size_t i = 0; i < sizeof not_shown / sizeof not_shown[0]; i++)
        if (strcmp(path, not_shown[i].path) == 0) {
            *skip = 1;
            return not_shown[i].why;
        }
    /* a packing file's per-seed curves */
    if (strcmp(sim__rpt_last_name(path), "seeds") == 0 && strstr(path, "/policies/")) {
        *skip = 1;
        return "the curve of every seed; the table above gives their statistics";
    }
    return NULL;
}

/* The names of a code column (its `labels`, or a sweep parameter's
 * `values`, *param set): one block, free(*labels). */
static void code_labels(sim__rpt_page *p, const char *col, char ***labels, size_t *n, int *param)
{
    *labels = NULL;
    *n = 0;
    *param = 0;
    char *s = sim__rpt_attr(p, col, "labels");
    if (!s && (s = sim__rpt_attr(p, col, "values")) != NULL)
        *param = 1;
    if (s) {
        *labels = sim__plot_split_lines(s, n);
        if (!*labels)
            *n = 0;
    }
    free(s);
}

/* A cell; a code by its name, and a sweep parameter's -1 (param) as the
 * base's value (docs/output.md, /sweep/params). */
static void cell_value(sim__rpt_page *p, double v, int integer, char **labels, size_t n_labels,
                       int param)
{
    char b[64];
    if (labels && v >= 0 && v < (double)n_labels && v == floor(v)) {
        sim__report_html_esc(p->f, labels[(size_t)v]);
    } else if (labels && param && v == -1) {
        fputs("(base)", p->f);
    } else {
        sim__rpt_num(b, sizeof b, v, integer);
        fputs(b, p->f);
    }
}

void sim__rpt_title(sim__rpt_page *p, const char *desc)
{
    if (!desc)
        return;
    fputs(" title=\"", p->f);
    sim__report_html_esc(p->f, desc);
    fputc('"', p->f);
}

void sim__rpt_col_head(sim__rpt_page *p, const char *path, const char *name)
{
    char *units = sim__rpt_attr(p, path, "units"), *desc = sim__rpt_attr(p, path, "description");
    fputs("<th", p->f);
    sim__rpt_title(p, desc);
    fputc('>', p->f);
    sim__report_html_esc(p->f, name);
    if (units && strcmp(units, "1") != 0) {
        fputs("<br><small>", p->f);
        sim__report_html_esc(p->f, units);
        fputs("</small>", p->f);
    }
    fputs("</th>", p->f);
    free(units);
    free(desc);
}

/* Columns (datasets named in `names`, under `group`) of one length as a
 * table. */
static int columns_table(sim__rpt_page *p, const char *group, char **names, size_t n, tm_diag *diag)
{
    int rc = TM_OK;
    double **vals = calloc(n ? n : 1, sizeof *vals);
    char ***labels = calloc(n ? n : 1, sizeof *labels);
    size_t *n_labels = calloc(n ? n : 1, sizeof *n_labels), rows = 0;
    int *integer = calloc(n ? n : 1, sizeof *integer), *param = calloc(n ? n : 1, sizeof *param);
    if (!vals || !labels || !n_labels || !integer || !param) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, group, "out of memory");
        goto out;
    }
    for (size_t c = 0; c < n; c++) {
        char path[PATH_CAP];
        sim__h5_info info;
        size_t len;
        if (join_path(path, group, names[c]) != 0)
            continue;
        if ((rc = sim__h5r_info(p->r, path, &info, diag)) != TM_OK)
            goto out;
        integer[c] =
            info.type == SIM__H5_I64 || info.type == SIM__H5_I32 || info.type == SIM__H5_U8;
        if (info.type == SIM__H5_STR || info.type == SIM__H5_OTHER || info.rank > 1)
            continue;
        if ((rc = sim__h5r_array_f64(p->r, path, &vals[c], &len, diag)) != TM_OK)
            goto out;
        if (c == 0 || len > rows)
            rows = len;
        code_labels(p, path, &labels[c], &n_labels[c], &param[c]);
    }
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", p->f);
    for (size_t c = 0; c < n; c++) {
        char path[PATH_CAP];
        if (join_path(path, group, names[c]) == 0)
            sim__rpt_col_head(p, path, names[c]);
    }
    fputs("</tr></thead>\n<tbody>\n", p->f);
    size_t shown = rows < MAX_ROWS ? rows : MAX_ROWS;
    for (size_t k = 0; k < shown; k++) {
        fputs("<tr>", p->f);
        for (size_t c = 0; c < n; c++) {
            int code = labels[c] != NULL;
            fputs(code ? "<td class=\"t\">" : "<td>", p->f);
            if (vals[c])
                cell_value(p, k < rows ? vals[c][k] : NAN, integer[c], labels[c], n_labels[c],
                           param[c]);
            fputs("</td>", p->f);
        }
        fputs("</tr>\n", p->f);
    }
    fputs("</tbody></table></div>\n", p->f);
    if (shown < rows)
        fprintf(p->f,
                "<p class=\"note\">The first %zu of %zu rows; <code>tarmac export</code> writes "
                "them all.</p>\n",
                shown, rows);
    p->info->n_tables++;
out:
    for (size_t c = 0; vals && labels && c < n; c++) {
        free(vals[c]);
        free(labels[c]);
    }
    free(vals);
    free(labels);
    free(n_labels);
    free(integer);
    free(param);
    return rc;
}

static int classify_member(sim__rpt_page *p, const char *group, const char *name,
                           sim__rpt_member *m, tm_diag *diag)
{
    m->name = name;
    m->kind = SIM__RPT_OTHER;
    if (join_path(m->path, group, name) != 0)
        return TM_OK;
    int skip;
    why_not_shown(m->path, &skip);
    if (skip) { /* not even looked at: /sweep/files holds external links */
        m->kind = SIM__RPT_GROUP;
        return TM_OK;
    }
    int rc = sim__h5r_info(p->r, m->path, &m->info, diag);
    if (rc != TM_OK)
        return rc;
    if (m->info.kind == SIM__H5_GROUP)
        m->kind = SIM__RPT_GROUP;
    else if (m->info.kind != SIM__H5_DATASET)
        m->kind = SIM__RPT_OTHER;
    else if (m->info.type == SIM__H5_STR)
        m->kind = m->info.len == 1 ? SIM__RPT_STRING : SIM__RPT_OTHER;
    else if (m->info.type == SIM__H5_OTHER)
        m->kind = SIM__RPT_OTHER;
    else if (m->info.rank > 1)
        m->kind = SIM__RPT_MATRIX;
    else if (m->info.len == 1)
        m->kind = SIM__RPT_SCALAR;
    else
        m->kind = SIM__RPT_ARRAY;
    return TM_OK;
}

int sim__rpt_members(sim__rpt_page *p, const char *group, char ***names, sim__rpt_member **ms,
                     size_t *n, tm_diag *diag)
{
    *ms = NULL;
    int rc = sim__h5r_list(p->r, group, SIM__H5_ORDER_CREATION, names, n, diag);
    if (rc != TM_OK && rc != TM_ERR_NOMEM) /* a group that does not track it: by name */
        rc = sim__h5r_list(p->r, group, SIM__H5_ORDER_NAME, names, n, diag);
    if (rc != TM_OK)
        return rc;
    *ms = calloc(*n ? *n : 1, sizeof **ms);
    if (!*ms) {
        free(*names);
        *names = NULL;
        return tm_diag_set(diag, TM_ERR_NOMEM, group, "out of memory");
    }
    for (size_t i = 0; i < *n && rc == TM_OK; i++)
        rc = classify_member(p, group, (*names)[i], &(*ms)[i], diag);
    if (rc != TM_OK) {
        free(*ms);
        free(*names);
        *ms = NULL;
        *names = NULL;
    }
    return rc;
}

int sim__rpt_scalar_cell(sim__rpt_page *p, const sim__rpt_member *m, tm_diag *diag)
{
    if (m->kind == SIM__RPT_STRING) {
        char *s = NULL;
        int rc = sim__h5r_scalar_str(p->r, m->path, &s, diag);
        if (rc != TM_OK)
            return rc;
        put_string_value(p, s);
        free(s);
        return TM_OK;
    }
    double v;
    int rc = sim__h5r_scalar_f64(p->r, m->path, &v, diag);
    if (rc != TM_OK)
        return rc;
    char b[64];
    sim__rpt_num(b, sizeof b, v, m->info.type != SIM__H5_F64);
    fputs(b, p->f);
    return TM_OK;
}

/* The scalars of a group: name, value, units, description. */
int sim__rpt_scalars(sim__rpt_page *p, sim__rpt_member *ms, size_t n, tm_diag *diag)
{
    fputs("<table class=\"kv\">\n<thead><tr><th>name</th><th>value</th><th>units</th>"
          "<th>meaning</th></tr></thead>\n<tbody>\n",
          p->f);
    for (size_t i = 0; i < n; i++) {
        if (ms[i].kind != SIM__RPT_SCALAR && ms[i].kind != SIM__RPT_STRING)
            continue;
        fputs("<tr><th><code>", p->f);
        sim__report_html_esc(p->f, ms[i].name);
        fputs("</code></th><td>", p->f);
        int rc = sim__rpt_scalar_cell(p, &ms[i], diag);
        if (rc != TM_OK)
            return rc;
        char *units = sim__rpt_attr(p, ms[i].path, "units"),
             *desc = sim__rpt_attr(p, ms[i].path, "description");
        fputs("</td><td>", p->f);
        sim__rpt_units(p, units);
        fputs("</td><td class=\"desc\">", p->f);
        sim__report_html_esc(p->f, desc);
        fputs("</td></tr>\n", p->f);
        free(units);
        free(desc);
    }
    fputs("</tbody></table>\n", p->f);
    p->info->n_tables++;
    return TM_OK;
}

/* A group whose members are groups that each hold scalars and no arrays
 * (classes, pools, services of a run summary): one table, a column per
 * member group, a row per scalar name. */
static int pivot_table(sim__rpt_page *p, const char *group, sim__rpt_member *gs, size_t ng,
                       tm_diag *diag)
{
    char **names[64], **pnames = NULL;
    sim__rpt_member *subs[64], *pm = NULL;
    size_t nsub[64], npm = 0;
    int rc = TM_OK;
    size_t loaded = 0;
    if (ng > 64)
        ng = 64;
    for (; loaded < ng && rc == TM_OK; loaded++)
        rc = sim__rpt_members(p, gs[loaded].path, &names[loaded], &subs[loaded], &nsub[loaded],
                              diag);
    if (rc != TM_OK) {
        loaded--;
        goto out;
    }
    /* the classes of a run summary: the run's figures over all of them are
     * the same names one level up (docs/output.md, "/summary") */
    int all = strcmp(group, "/summary/classes") == 0;
    if (all && (rc = sim__rpt_members(p, "/summary", &pnames, &pm, &npm, diag)) != TM_OK)
        goto out;
    fputs("<div class=\"scroll\"><table>\n<thead><tr><th></th><th>units</th>", p->f);
    if (all)
        fputs("<th>(all classes)</th>", p->f);
    for (size_t g = 0; g < ng; g++) {
        fputs("<th>", p->f);
        sim__report_html_esc(p->f, gs[g].name);
        fputs("</th>", p->f);
    }
    fputs("</tr></thead>\n<tbody>\n", p->f);
    /* rows: the scalar names in the order of their first appearance */
    for (size_t g = 0; g < ng; g++) {
        for (size_t i = 0; i < nsub[g]; i++) {
            sim__rpt_member *m = &subs[g][i];
            if (m->kind != SIM__RPT_SCALAR && m->kind != SIM__RPT_STRING)
                continue;
            int seen = 0;
            for (size_t h = 0; h < g && !seen; h++)
                for (size_t j = 0; j < nsub[h] && !seen; j++)
                    seen = (subs[h][j].kind == SIM__RPT_SCALAR ||
                            subs[h][j].kind == SIM__RPT_STRING) &&
                           strcmp(subs[h][j].name, m->name) == 0;
            if (seen)
                continue;
            char *desc = sim__rpt_attr(p, m->path, "description"),
                 *units = sim__rpt_attr(p, m->path, "units");
            fputs("<tr><th", p->f);
            sim__rpt_title(p, desc);
            fputs("><code>", p->f);
            sim__report_html_esc(p->f, m->name);
            fputs("</code></th><td>", p->f);
            sim__rpt_units(p, units);
            fputs("</td>", p->f);
            free(desc);
            free(units);
            if (all) {
                fputs("<td>", p->f);
                for (size_t j = 0; j < npm; j++)
                    if (pm[j].kind == SIM__RPT_SCALAR && strcmp(pm[j].name, m->name) == 0) {
                        if ((rc = sim__rpt_scalar_cell(p, &pm[j], diag)) != TM_OK)
                            goto out;
                        break;
                    }
                fputs("</td>", p->f);
            }
            for (size_t h = 0; h < ng; h++) {
                fputs("<td>", p->f);
                for (size_t j = 0; j < nsub[h]; j++)
                    if ((subs[h][j].kind == SIM__RPT_SCALAR ||
                         subs[h][j].kind == SIM__RPT_STRING) &&
                        strcmp(subs[h][j].name, m->name) == 0) {
                        if ((rc = sim__rpt_scalar_cell(p, &subs[h][j], diag)) != TM_OK)
                            goto out;
                        break;
                    }
                fputs("</td>", p->f);
            }
            fputs("</tr>\n", p->f);
        }
    }
    fputs("</tbody></table></div>\n", p->f);
    p->info->n_tables++;
out:
    for (size_t g = 0; g < loaded; g++) {
        free(names[g]);
        free(subs[g]);
    }
    free(pnames);
    free(pm);
    return rc;
}

/* A group whose members are groups of scalars only (and maybe groups). */
static int is_scalar_group(sim__rpt_page *p, const sim__rpt_member *m, tm_diag *diag, int *yes)
{
    char **names = NULL;
    sim__rpt_member *ms = NULL;
    size_t n = 0;
    *yes = 0;
    int skip;
    why_not_shown(m->path, &skip);
    if (skip || sim__h5r_exists(p->r, m->path) == 0)
        return TM_OK;
    char *cols = NULL;
    tm_diag d;
    int t = sim__h5r_attr_str(p->r, m->path, "columns", &cols, &d);
    free(cols);
    if (t != TM_ERR_NOTFOUND)
        return TM_OK; /* a table */
    int rc = sim__rpt_members(p, m->path, &names, &ms, &n, diag);
    if (rc != TM_OK)
        return rc;
    int scalars = 0, other = 0;
    for (size_t i = 0; i < n; i++) {
        scalars += ms[i].kind == SIM__RPT_SCALAR || ms[i].kind == SIM__RPT_STRING;
        other += ms[i].kind == SIM__RPT_ARRAY || ms[i].kind == SIM__RPT_MATRIX;
    }
    *yes = scalars > 0 && !other;
    free(names);
    free(ms);
    return TM_OK;
}

int sim__rpt_walk(sim__rpt_page *p, const char *group, int depth, tm_diag *diag)
{
    if (p->stop && *p->stop)
        return tm_diag_set(diag, TM_ERR_INTERRUPTED, "report", "interrupted while writing %s",
                           group);
    int skip;
    const char *why = why_not_shown(group, &skip);
    if (skip) {
        if (why) {
            sim__h5_info info;
            tm_diag d;
            char text[400];
            /* a table's rows, when it is one */
            char **cols = NULL, col[PATH_CAP];
            size_t nc = 0;
            text[0] = '\0';
            if (strcmp(group, "/sweep/files") != 0 &&
                sim__h5r_list(p->r, group, SIM__H5_ORDER_CREATION, &cols, &nc, &d) == TM_OK && nc &&
                join_path(col, group, cols[0]) == 0 &&
                sim__h5r_info(p->r, col, &info, &d) == TM_OK && info.kind == SIM__H5_DATASET)
                snprintf(text, sizeof text, "%llu rows; %s", (unsigned long long)info.len, why);
            else
                snprintf(text, sizeof text, "%s", why);
            free(cols);
            note(p, group, text);
        }
        return TM_OK;
    }
    if (depth > MAX_DEPTH)
        return TM_OK;
    if (strcmp(group, "/") != 0)
        heading(p, depth, group);
    char *cols = NULL;
    tm_diag d;
    int t = sim__h5r_attr_str(p->r, group, "columns", &cols, &d);
    free(cols);
    char **names = NULL;
    sim__rpt_member *ms = NULL;
    size_t n = 0;
    int rc = sim__rpt_members(p, group, &names, &ms, &n, diag);
    if (rc != TM_OK)
        return rc;
    if (t != TM_ERR_NOTFOUND) { /* a table: every member is a column */
        uint64_t rows = n ? ms[0].info.len : 0;
        if (rows > MAX_READ_ROWS) {
            char text[200];
            snprintf(text, sizeof text,
                     "%llu rows, too many for a page; `tarmac export` writes them",
                     (unsigned long long)rows);
            note(p, group, text);
        } else {
            rc = columns_table(p, group, names, n, diag);
        }
        goto out;
    }
    size_t n_scalar = 0, n_group = 0;
    for (size_t i = 0; i < n; i++) {
        n_scalar += ms[i].kind == SIM__RPT_SCALAR || ms[i].kind == SIM__RPT_STRING;
        n_group += ms[i].kind == SIM__RPT_GROUP;
    }
    if (n_scalar && (rc = sim__rpt_scalars(p, ms, n, diag)) != TM_OK)
        goto out;
    /* arrays of one length: one table each length, in order of appearance */
    for (size_t i = 0; i < n; i++) {
        if (ms[i].kind != SIM__RPT_ARRAY)
            continue;
        char **sel = malloc(n * sizeof *sel);
        size_t ns = 0;
        if (!sel) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, group, "out of memory");
            goto out;
        }
        uint64_t len = ms[i].info.len;
        for (size_t j = i; j < n; j++)
            if (ms[j].kind == SIM__RPT_ARRAY && ms[j].info.len == len) {
                sel[ns++] = names[j];
                ms[j].kind = SIM__RPT_OTHER; /* done */
            }
        if (len > MAX_READ_ROWS) {
            char text[200];
            snprintf(text, sizeof text, "arrays of %llu values, too long for a page",
                     (unsigned long long)len);
            note(p, group, text);
        } else {
            rc = columns_table(p, group, sel, ns, diag);
        }
        free(sel);
        if (rc != TM_OK)
            goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (ms[i].kind == SIM__RPT_MATRIX) {
            char text[200];
            snprintf(text, sizeof text, "a matrix of %llu values, not listed",
                     (unsigned long long)ms[i].info.len);
            note(p, ms[i].path, text);
        }
    /* member groups: one table over them when each holds only scalars */
    int all_scalar = n_group > 0;
    for (size_t i = 0; i < n && all_scalar; i++) {
        if (ms[i].kind != SIM__RPT_GROUP)
            continue;
        int yes;
        if ((rc = is_scalar_group(p, &ms[i], diag, &yes)) != TM_OK)
            goto out;
        all_scalar = yes;
    }
    const char *lname = sim__rpt_last_name(group);
    int collection = strcmp(lname, "classes") == 0 || strcmp(lname, "pools") == 0 ||
                     strcmp(lname, "types") == 0 || strcmp(lname, "services") == 0;
    if (all_scalar && (n_group > 1 || collection)) {
        sim__rpt_member *gs = malloc(n_group * sizeof *gs);
        size_t k = 0;
        if (!gs) {
            rc = tm_diag_set(diag, TM_ERR_NOMEM, group, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            if (ms[i].kind == SIM__RPT_GROUP)
                gs[k++] = ms[i];
        rc = pivot_table(p, group, gs, k, diag);
        /* and what the member groups hold besides scalars (a class's
         * specialization report) */
        for (size_t i = 0; i < k && rc == TM_OK; i++) {
            char **sn = NULL;
            sim__rpt_member *sm = NULL;
            size_t snn = 0;
            rc = sim__rpt_members(p, gs[i].path, &sn, &sm, &snn, diag);
            for (size_t j = 0; j < snn && rc == TM_OK; j++)
                if (sm[j].kind == SIM__RPT_GROUP)
                    rc = sim__rpt_walk(p, sm[j].path, depth + 1, diag);
            free(sn);
            free(sm);
        }
        free(gs);
        goto out;
    }
    for (size_t i = 0; i < n && rc == TM_OK; i++)
        if (ms[i].kind == SIM__RPT_GROUP)
            rc = sim__rpt_walk(p, ms[i].path, depth + 1, diag);
out:
    free(names);
    free(ms);
    return rc;
}
