/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html.c — `tarmac report`: a result file as one self-contained HTML
 * page (API in report_html_int.h).
 *
 * The figures are the plot writer's: sim__plot_file draws every plot that
 * applies to the file as SVG into a private folder made with mkdtemp, and
 * each picture is copied into the page by sim__report_html_svg, which drops
 * the XML prologue and prefixes every id (and every reference to one) with
 * "fN-", since gnuplot names the same ids (gnuplot_canvas, gpPt0, ...) in
 * every picture. The folder is emptied and removed whatever happens.
 *
 * The tables: report_html_walk.c. /provenance comes last, with the scenario
 * as given and as resolved, in full.
 *
 * Every text from the file goes through sim__report_html_esc. The page has
 * no script and loads nothing: its style is one <style> element.
 */
#include "plot/report_html_priv.h"

#include "base/afile_int.h"
#include "version.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* the figures                                                                */

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[PATH_CAP];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
                unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* A whole small file (a picture) into memory; NULL when unreadable. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 > cap) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* The summary line of the plot named stem, or of the plot whose name starts
 * it (ledger_pools is drawn by ledger). */
static const char *plot_summary(const char *stem)
{
    size_t n, best = 0;
    const sim__plot_def *t = sim__plot_table(&n);
    const char *s = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(t[i].name);
        if (strncmp(stem, t[i].name, l) == 0 && (stem[l] == '\0' || stem[l] == '_') && l > best) {
            best = l;
            s = t[i].summary;
        }
    }
    return s;
}

/* The figures, drawn and read back: the pictures are in memory before the
 * page is begun, so the private folder is gone before anything is written
 * (a reader of -o - that stops reading kills tarmac with SIGPIPE). */
typedef struct drawn {
    size_t n;
    char *svg[SIM__PLOT_MAX_FIGURES];
    size_t len[SIM__PLOT_MAX_FIGURES];
    char stems[SIM__PLOT_MAX_FIGURES][SIM__PLOT_STEM_MAX];
    int plot_rc; /* of sim__plot_file */
} drawn;

static void drawn_fini(drawn *dr)
{
    for (size_t i = 0; i < dr->n; i++)
        free(dr->svg[i]);
    dr->n = 0;
}

/* Draw the figures into dir (a private folder the caller made and removes)
 * and read them in. gnuplot missing or failing, or a figure's dataset
 * unreadable, is not a failure: the tables are still worth mailing, and the
 * page says what is missing (info->figures_note). */
static int draw(sim__rpt_page *p, const char *dir, drawn *dr, tm_diag *diag)
{
    sim__plot_opts o = {dir, SIM__PLOT_SVG, NULL, p->stop};
    sim__plot_report rep;
    tm_diag d;
    memset(dr, 0, sizeof *dr);
    dr->plot_rc = sim__plot_file(p->file, &o, &rep, &d);
    if (dr->plot_rc == TM_ERR_INTERRUPTED || dr->plot_rc == TM_ERR_NOMEM) {
        *diag = d;
        return dr->plot_rc;
    }
    if (dr->plot_rc != TM_OK && dr->plot_rc != TM_ERR_NOTFOUND) {
        p->info->gnuplot_missing = rep.gnuplot_missing;
        if (rep.gnuplot_missing) /* plot's message names the folder, which goes */
            snprintf(p->info->figures_note, sizeof p->info->figures_note,
                     "gnuplot is not installed (not found in PATH, or it cannot be run); "
                     "install it (Debian: apt-get install gnuplot-nox) and write the report "
                     "again");
        else
            snprintf(p->info->figures_note, sizeof p->info->figures_note, "%s%s%s", d.where,
                     d.where[0] ? ": " : "", d.msg);
    }
    for (size_t i = 0; i < rep.n_drawn && i < rep.n_figures; i++) {
        char path[PATH_CAP];
        if (snprintf(path, sizeof path, "%s/%s.svg", dir, rep.stems[i]) >= (int)sizeof path)
            continue;
        dr->svg[dr->n] = slurp(path, &dr->len[dr->n]);
        if (!dr->svg[dr->n])
            return tm_diag_set(diag, TM_ERR_IO, path, "cannot read the picture: %s",
                               strerror(errno));
        snprintf(dr->stems[dr->n], SIM__PLOT_STEM_MAX, "%s", rep.stems[i]);
        dr->n++;
    }
    return TM_OK;
}

static int figures(sim__rpt_page *p, const drawn *dr, tm_diag *diag)
{
    fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", p->f);
    if (dr->plot_rc == TM_ERR_NOTFOUND)
        fputs("<p class=\"note\">This file has nothing <code>tarmac plot</code> draws.</p>\n",
              p->f);
    if (p->info->figures_note[0]) {
        fputs("<p class=\"note\">Figures missing: ", p->f);
        sim__report_html_esc(p->f, p->info->figures_note);
        fputs("</p>\n", p->f);
    }
    for (size_t i = 0; i < dr->n; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "f%zu-", i + 1);
        fprintf(p->f, "<figure id=\"fig-%zu\">\n", i + 1);
        int bad = sim__report_html_svg(p->f, dr->svg[i], dr->len[i], prefix);
        if (bad == -2)
            return tm_diag_set(diag, TM_ERR_NOMEM, dr->stems[i], "out of memory");
        if (bad)
            return tm_diag_set(diag, TM_ERR_DATA, dr->stems[i],
                               "gnuplot wrote a picture without an <svg> element");
        fprintf(p->f, "\n<figcaption><b>Figure %zu</b> (<code>", i + 1);
        sim__report_html_esc(p->f, dr->stems[i]);
        fputs("</code>)", p->f);
        const char *sum = plot_summary(dr->stems[i]);
        if (sum) {
            fputs(": ", p->f);
            sim__report_html_esc(p->f, sum);
        }
        fputs("</figcaption>\n</figure>\n", p->f);
        p->info->n_figures++;
    }
    fputs("</section>\n", p->f);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* the page                                                                   */

static const char style[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;font-size:14px;color:#222;"
    "max-width:1100px;margin:1.5em auto;padding:0 1em;line-height:1.4}\n"
    "h1{font-size:1.6em;border-bottom:2px solid #0072B2;padding-bottom:.2em}\n"
    "h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #ccc}\n"
    "h3,h4,h5,h6{font-size:1.05em;margin-top:1.4em}\n"
    "table{border-collapse:collapse;margin:.5em 0;font-size:13px}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top}\n"
    "thead th{background:#eef3f8;position:sticky;top:0}\n"
    "td{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.t,td.desc,table.kv td{text-align:left}\n"
    "tbody th{text-align:left;white-space:nowrap;font-weight:normal}\n"
    "dl.attrs{margin:.3em 0;font-size:13px}dl.attrs dt{float:left;clear:left;width:9em;"
    "font-weight:bold}dl.attrs dd{margin-left:9.5em;white-space:pre-wrap}\n"
    "tbody tr:nth-child(even){background:#fafafa}\n"
    ".scroll{overflow-x:auto}\n"
    ".note,.desc,figcaption{color:#555}\n"
    "figure{margin:1.5em 0;border:1px solid #eee;padding:.5em}\n"
    "figure svg{max-width:100%;height:auto;display:block}\n"
    "pre{background:#f6f8fa;padding:.7em;overflow-x:auto;font-size:12px}\n"
    "code{font-size:.95em}\n"
    "dl.meta{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}\n"
    "dl.meta dt{font-weight:bold}dl.meta dd{margin:0}\n";

/* What the file is, from its root attribute `kind` and its groups. */
static const char *file_kind(sim__rpt_page *p)
{
    char *kind = sim__rpt_attr(p, "/", "kind");
    const char *k = NULL;
    if (kind) {
        if (strcmp(kind, "compare") == 0)
            k = "comparison of policies (tarmac compare)";
        else if (strcmp(kind, "breakeven") == 0)
            k = "breakeven study (tarmac breakeven)";
        else if (strcmp(kind, "sweep") == 0)
            k = "merged sweep (tarmac sweep merge)";
        else if (strcmp(kind, "openb-packing") == 0)
            k = "packing experiment (tarmac replay --protocol pack)";
    }
    free(kind);
    if (k)
        return k;
    if (sim__h5r_exists(p->r, "/sweep_point"))
        return sim__h5r_exists(p->r, "/packing") ? "sweep point (packing run)"
                                                 : "sweep point (run)";
    if (sim__h5r_exists(p->r, "/summary"))
        return "run (tarmac run, tarmac replay)";
    return "tarmac result";
}

static int read_str(sim__rpt_page *p, const char *path, char **s)
{
    tm_diag d;
    *s = NULL;
    return sim__h5r_exists(p->r, path) && sim__h5r_scalar_str(p->r, path, s, &d) == TM_OK;
}

static void header(sim__rpt_page *p)
{
    char *name = NULL, *policy = NULL, *created = sim__rpt_attr(p, "/", "created_by");
    read_str(p, "/provenance/scenario_name", &name);
    read_str(p, "/provenance/policy", &policy);
    FILE *f = p->f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"tarmac " TARMAC_VERSION "\">\n<title>tarmac report: ",
          f);
    sim__report_html_esc(f, name && name[0] ? name : sim__rpt_last_name(p->file));
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    sim__report_html_esc(f, name && name[0] ? name : sim__rpt_last_name(p->file));
    fputs("</h1>\n<dl class=\"meta\">\n<dt>file</dt><dd><code>", f);
    sim__report_html_esc(f, p->file);
    fputs("</code></dd>\n<dt>kind</dt><dd>", f);
    sim__report_html_esc(f, p->info->kind);
    fputs("</dd>\n", f);
    if (policy && policy[0]) {
        fputs("<dt>policy</dt><dd><code>", f);
        sim__report_html_esc(f, policy);
        fputs("</code></dd>\n", f);
    }
    fputs("<dt>written by</dt><dd>", f);
    sim__report_html_esc(f, created);
    fputs("</dd>\n<dt>report by</dt><dd>tarmac " TARMAC_VERSION
          " (<code>tarmac report</code>)</dd>\n</dl>\n"
          "<p class=\"note\">Every value below is read from the file; names and units are "
          "those of the file's layout (docs/output.md). Hover over a column's name for its "
          "meaning.</p>\n",
          f);
    free(name);
    free(policy);
    free(created);
}

static int provenance(sim__rpt_page *p, tm_diag *diag)
{
    fputs("<section id=\"provenance\">\n<h2>Provenance</h2>\n", p->f);
    if (!sim__h5r_exists(p->r, "/provenance")) {
        fputs("<p class=\"note\">The file has no <code>/provenance</code>.</p>\n</section>\n",
              p->f);
        return TM_OK;
    }
    char **names = NULL;
    sim__rpt_member *ms = NULL;
    size_t n = 0;
    int rc = sim__rpt_members(p, "/provenance", &names, &ms, &n, diag);
    if (rc != TM_OK)
        return rc;
    /* the scenario texts get their own blocks below */
    for (size_t i = 0; i < n; i++)
        if (strcmp(ms[i].name, "scenario_given") == 0 ||
            strcmp(ms[i].name, "scenario_resolved") == 0)
            ms[i].kind = SIM__RPT_OTHER;
    rc = sim__rpt_scalars(p, ms, n, diag);
    for (size_t i = 0; i < n && rc == TM_OK; i++)
        if (ms[i].kind == SIM__RPT_GROUP)
            rc = sim__rpt_walk(p, ms[i].path, 1, diag);
    free(names);
    free(ms);
    if (rc != TM_OK)
        return rc;
    static const struct {
        const char *path, *title;
        int open;
    } texts[] = {
        {"/provenance/scenario_given", "The scenario as given", 1},
        {"/provenance/scenario_resolved", "The scenario with every default filled in", 0},
        {"/sweep/sweep_given", "The sweep file as given", 1},
        {"/sweep/base", "The sweep's base", 0},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *s = NULL;
        if (!read_str(p, texts[i].path, &s))
            continue;
        fprintf(p->f, "<details%s><summary><b>%s</b> (<code>%s</code>)</summary>\n<pre>",
                texts[i].open ? " open" : "", texts[i].title, texts[i].path);
        sim__report_html_esc(p->f, s);
        fputs("</pre>\n</details>\n", p->f);
        free(s);
    }
    fputs("</section>\n", p->f);
    return TM_OK;
}

/* The few numbers a reader looks for first, where the file has them; the
 * tables below repeat them with everything else. */
static const struct {
    const char *path, *label;
} key_figures[] = {
    {"/summary/jobs_arrived", "jobs arrived"},
    {"/summary/jobs_completed", "jobs completed"},
    {"/summary/jobs_rejected", "jobs rejected (can never fit the fleet)"},
    {"/summary/wait_mean_s", "mean wait"},
    {"/summary/wait_p95_s", "95th percentile wait"},
    {"/summary/slowdown_mean", "mean bounded slowdown"},
    {"/summary/alloc_util", "GPU allocation utilization (of GPU-time in service)"},
    {"/summary/work_util", "useful work / GPU-hours owned"},
    {"/summary/gpu_hours_owned", "GPU-hours owned"},
    {"/cost/total_usd", "total cost (USD)"},
    {"/cost/usd_per_month", "cost per month (USD)"},
    {"/cost/usd_per_work_ref_gpu_hour", "cost per useful reference GPU-hour (USD)"},
    {"/compare/replications", "replications per policy"},
    {"/compare/warmup_s", "warm-up removed from every run"},
    {"/compare/confidence", "confidence level of the intervals"},
    {"/breakeven/tokens_per_month_scenario", "tokens per month the scenario demands"},
    {"/breakeven/api_usd_per_mtok", "API price per million tokens (USD)"},
    {"/breakeven/own_beats_api_tokens_per_month", "owning beats the API from (tokens/month)"},
    {"/breakeven/rent_beats_api_tokens_per_month", "renting beats the API from (tokens/month)"},
    {"/breakeven/payback_months", "payback of the owned fleet (months)"},
    {"/sweep/n_points", "points of the sweep"},
    {"/sweep/n_ok", "points that ran"},
    {"/sweep/n_failed", "points that failed"},
    {"/sweep/n_missing", "points missing"},
    {"/packing/config/capacity_gpus", "GPUs of the cluster"},
    {"/packing/config/n_seeds", "seeds per policy"},
    {"/packing/config/target_pct", "target share of capacity requested (%)"},
};

static int key_table(sim__rpt_page *p, tm_diag *diag)
{
    int any = 0;
    for (size_t i = 0; i < sizeof key_figures / sizeof key_figures[0]; i++) {
        sim__rpt_member m;
        if (!sim__h5r_exists(p->r, key_figures[i].path))
            continue;
        snprintf(m.path, sizeof m.path, "%s", key_figures[i].path);
        m.name = sim__rpt_last_name(m.path);
        int rc = sim__h5r_info(p->r, m.path, &m.info, diag);
        if (rc != TM_OK)
            return rc;
        if (m.info.kind != SIM__H5_DATASET || m.info.len != 1 || m.info.type == SIM__H5_STR ||
            m.info.type == SIM__H5_OTHER)
            continue;
        m.kind = SIM__RPT_SCALAR;
        if (!any)
            fputs("<section id=\"key\">\n<h2>Key figures</h2>\n<table class=\"kv\">\n"
                  "<thead><tr><th>what</th><th>value</th><th>units</th><th>in the file"
                  "</th></tr></thead>\n<tbody>\n",
                  p->f);
        any = 1;
        fputs("<tr><th>", p->f);
        sim__report_html_esc(p->f, key_figures[i].label);
        fputs("</th><td>", p->f);
        if ((rc = sim__rpt_scalar_cell(p, &m, diag)) != TM_OK)
            return rc;
        char *units = sim__rpt_attr(p, m.path, "units");
        fputs("</td><td>", p->f);
        sim__rpt_units(p, units);
        free(units);
        fputs("</td><td><code>", p->f);
        sim__report_html_esc(p->f, m.path);
        fputs("</code></td></tr>\n", p->f);
    }
    if (any) {
        fputs("</tbody></table>\n</section>\n", p->f);
        p->info->n_tables++;
    }
    return TM_OK;
}

/* A comparison at a glance: a row per policy, a column per metric, each
 * cell the mean and its interval (the tables below have the paired
 * differences). */
static int compare_glance(sim__rpt_page *p, tm_diag *diag)
{
    if (!sim__h5r_exists(p->r, "/compare/metrics"))
        return TM_OK;
    char **metrics = NULL, *pol = sim__rpt_attr(p, "/compare", "policies");
    size_t nm = 0, np = 0;
    char **policies = pol ? sim__plot_split_lines(pol, &np) : NULL;
    free(pol);
    int rc = sim__h5r_list(p->r, "/compare/metrics", SIM__H5_ORDER_CREATION, &metrics, &nm, diag);
    if (rc != TM_OK && rc != TM_ERR_NOMEM) /* a group that does not track it: by name */
        rc = sim__h5r_list(p->r, "/compare/metrics", SIM__H5_ORDER_NAME, &metrics, &nm, diag);
    if (rc != TM_OK)
        goto out;
    double *mean[64] = {0}, *lo[64] = {0}, *hi[64] = {0};
    size_t len[64] = {0};
    if (nm > 64)
        nm = 64;
    for (size_t m = 0; m < nm && rc == TM_OK; m++) {
        char path[PATH_CAP];
        size_t n1 = 0, n2 = 0, n3 = 0;
        snprintf(path, sizeof path, "/compare/metrics/%s/mean", metrics[m]);
        rc = sim__h5r_array_f64(p->r, path, &mean[m], &n1, diag);
        snprintf(path, sizeof path, "/compare/metrics/%s/ci_low", metrics[m]);
        if (rc == TM_OK)
            rc = sim__h5r_array_f64(p->r, path, &lo[m], &n2, diag);
        snprintf(path, sizeof path, "/compare/metrics/%s/ci_high", metrics[m]);
        if (rc == TM_OK)
            rc = sim__h5r_array_f64(p->r, path, &hi[m], &n3, diag);
        len[m] = n1 < n2 ? (n1 < n3 ? n1 : n3) : (n2 < n3 ? n2 : n3);
    }
    if (rc == TM_OK) {
        size_t rows = 0;
        for (size_t m = 0; m < nm; m++)
            rows = len[m] > rows ? len[m] : rows;
        fputs("<section id=\"glance\">\n<h2>Policies at a glance</h2>\n<p class=\"desc\">Mean "
              "over the replications, with its confidence interval below it; the paired "
              "differences to the first policy are in the tables of "
              "<code>/compare/metrics</code>.</p>\n<div class=\"scroll\"><table>\n<thead><tr>"
              "<th>metric</th><th>units</th>",
              p->f);
        for (size_t k = 0; k < rows && k < MAX_ROWS; k++) {
            fputs("<th>", p->f);
            if (k < np)
                sim__report_html_esc(p->f, policies[k]);
            else
                fprintf(p->f, "%zu", k);
            fputs("</th>", p->f);
        }
        fputs("</tr></thead>\n<tbody>\n", p->f);
        for (size_t m = 0; m < nm; m++) {
            char path[PATH_CAP];
            snprintf(path, sizeof path, "/compare/metrics/%s", metrics[m]);
            char *desc = sim__rpt_attr(p, path, "description"),
                 *units = sim__rpt_attr(p, path, "units");
            fputs("<tr><th", p->f);
            sim__rpt_title(p, desc);
            fputs("><code>", p->f);
            sim__report_html_esc(p->f, metrics[m]);
            fputs("</code></th><td>", p->f);
            sim__rpt_units(p, units);
            fputs("</td>", p->f);
            free(desc);
            free(units);
            for (size_t k = 0; k < rows && k < MAX_ROWS; k++) {
                char a[64], b[64], c[64];
                fputs("<td>", p->f);
                if (k < len[m]) {
                    sim__rpt_num(a, sizeof a, mean[m][k], 0);
                    sim__rpt_num(b, sizeof b, lo[m][k], 0);
                    sim__rpt_num(c, sizeof c, hi[m][k], 0);
                    fprintf(p->f, "%s<br><small>[%s, %s]</small>", a, b, c);
                }
                fputs("</td>", p->f);
            }
            fputs("</tr>\n", p->f);
        }
        fputs("</tbody></table></div>\n</section>\n", p->f);
        p->info->n_tables++;
    }
    for (size_t m = 0; m < nm; m++) {
        free(mean[m]);
        free(lo[m]);
        free(hi[m]);
    }
out:
    free(metrics);
    free(policies);
    return rc;
}

static int write_page(sim__rpt_page *p, const drawn *dr, tm_diag *diag)
{
    header(p);
    int rc = key_table(p, diag);
    if (rc == TM_OK)
        rc = compare_glance(p, diag);
    if (rc == TM_OK)
        rc = figures(p, dr, diag);
    if (rc != TM_OK)
        return rc;
    fputs("<section id=\"tables\">\n<h2>Tables</h2>\n", p->f);
    if ((rc = sim__rpt_walk(p, "/", 0, diag)) != TM_OK)
        return rc;
    fputs("</section>\n", p->f);
    if ((rc = provenance(p, diag)) != TM_OK)
        return rc;
    fputs("</body>\n</html>\n", p->f);
    return TM_OK;
}

int sim__report_html_write(const char *h5path, const char *out, volatile int *stop,
                           sim__report_html_info *info, tm_diag *diag)
{
    memset(info, 0, sizeof *info);
    tm_diag_clear(diag);
    sim__rpt_page p = {NULL, NULL, h5path, stop, info};
    sim__afile af = {0};
    drawn dr = {0};
    char tmpdir[PATH_CAP] = "";
    int to_stdout = !out || strcmp(out, "-") == 0;
    int rc = sim__h5r_open(&p.r, h5path, diag);
    if (rc != TM_OK)
        return rc;
    char *created = sim__rpt_attr(&p, "/", "created_by");
    int ours = created && strncmp(created, "tarmac", 6) == 0;
    free(created);
    if (!ours) {
        rc = tm_diag_set(diag, TM_ERR_DATA, h5path,
                         "an HDF5 file, but not one tarmac wrote (no root attribute created_by "
                         "= \"tarmac ...\")");
        goto out;
    }
    info->kind = file_kind(&p);
    if (!to_stdout && (rc = sim__afile_open(&af, out, diag)) != TM_OK)
        goto out;
    /* the figures' private folder */
    const char *td = getenv("TMPDIR");
    if (!td || !*td)
        td = "/tmp";
    if (snprintf(tmpdir, sizeof tmpdir, "%s/tarmac-report.XXXXXX", td) >= (int)sizeof tmpdir ||
        !mkdtemp(tmpdir)) {
        rc = tm_diag_set(diag, TM_ERR_CANTCREAT, td,
                         "cannot create a temporary folder for the figures: %s", strerror(errno));
        tmpdir[0] = '\0';
        goto out;
    }
    rc = draw(&p, tmpdir, &dr, diag);
    remove_dir(tmpdir);
    tmpdir[0] = '\0';
    if (rc != TM_OK)
        goto out;
    p.f = to_stdout ? stdout : af.f;
    rc = write_page(&p, &dr, diag);
    if (rc == TM_OK && stop && *stop)
        rc = tm_diag_set(diag, TM_ERR_INTERRUPTED, "report", "interrupted while writing %s",
                         to_stdout ? "stdout" : out);
    if (rc == TM_OK) {
        if (!to_stdout)
            rc = sim__afile_commit(&af, diag); /* releases af */
        else if (fflush(stdout) != 0 || ferror(stdout))
            rc = tm_diag_set(diag, TM_ERR_IO, "stdout", "write failed: %s", strerror(errno));
    }
out:
    sim__afile_abort(&af); /* after a failure: the temporary goes, out is untouched */
    if (tmpdir[0])
        remove_dir(tmpdir);
    drawn_fini(&dr);
    sim__h5r_close(p.r);
    return rc;
}
