/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot.c — the plot writer: the table of plots, the figure files, and the only
 * place in tarmac that runs gnuplot (docs/plots.md; API in plot_int.h).
 *
 * sim__plot_file opens the result, tells each plot function of the table
 * whose datasets are present to write its figures (STEM.dat + STEM.gp, queued
 * by sim__plot_end), then runs `gnuplot STEM.gp` for each queued script with
 * the output folder as working directory. gnuplot is found by walking PATH
 * here (so "not installed" is known before anything is started) and started
 * with fork + execv and an argument vector: no shell ever sees a file name.
 * Its stdout and stderr are captured through a pipe: on failure the first
 * line goes into the diagnostic, on success any warning is passed on to
 * stderr. An exec failure in the child comes back through a close-on-exec
 * pipe as an errno. The exit status is checked, and so is the picture
 * (present, not empty).
 *
 * Stopping (sim__plot_opts.stop, set by the CLI's SIGINT/SIGTERM handler):
 * the flag is looked at before each plot's data, before each picture and,
 * while gnuplot draws, every 100 ms (a poll on its output): gnuplot is then
 * killed and reaped, and its temporary picture removed. What was completed
 * before stays, each file whole; nothing half-written is left.
 */
#include "plot/plot_int.h"

#include "base/afile_int.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int sim__plot_plan(sim__plot_ctx *c, tm_diag *diag);    /* plot_plan.c */
int sim__plot_tornado(sim__plot_ctx *c, tm_diag *diag); /* plot_tornado.c */

/* The plots, in the order they are drawn. A new plot is one line here and
 * one function (docs/plots.md). */
static const sim__plot_def plots[] = {
    {"utilization",
     "allocation utilization over time (busy and goodput when present), with the queue length",
     {"/timeseries/t_s", "/timeseries/t_end_s", "/timeseries/alloc_util", "/timeseries/queue_len",
      NULL},
     sim__plot_utilization},
    {"utilization_pools",
     "allocated and busy GPUs over time per pool, as shares of the pool's GPUs in service",
     {"/timeseries/t_s", "/timeseries/t_end_s", "/timeseries_pool", NULL},
     sim__plot_utilization_pools},
    {"utilization_types",
     "allocated and busy GPUs over time per GPU type, as shares of the type's GPUs in service",
     {"/timeseries/t_s", "/timeseries/t_end_s", "/timeseries_type", NULL},
     sim__plot_utilization_types},
    {"shape_blocked",
     "shape-blocked idle GPU-hours by reason, and the blocked GPUs over time under the idle ones",
     {"/summary/shape_blocked", NULL},
     sim__plot_shape_blocked},
    {"ledger",
     "the GPU-hour ledger: where every owned GPU-hour went, for the fleet, each pool, each class "
     "and service",
     {"/ledger/fleet/gpu_hours", "/ledger/pools", "/ledger/consumers", NULL},
     sim__plot_ledger},
    {"services",
     "per service: requests offered and how they were served, replicas, SLO attainment",
     {"/timeseries/t_s", "/timeseries/t_end_s", "/timeseries_service", NULL},
     sim__plot_services},
    {"wait_cdf",
     "distribution (CDF) of wait times per workload class",
     {"/jobs/wait_s", "/jobs/start_s", "/jobs/class", NULL},
     sim__plot_wait_cdf},
    {"slowdown",
     "bounded slowdown distribution (CCDF) per workload class",
     {"/jobs/wait_s", "/jobs/run_s", "/jobs/state", "/jobs/class", NULL},
     sim__plot_slowdown},
    {"compare",
     "policies side by side with confidence intervals, and paired differences to the first",
     {"/compare/metrics", NULL},
     sim__plot_compare},
    {"compare_classes",
     "per workload class: mean and p95 wait and mean slowdown of each policy with intervals, and "
     "the paired differences",
     {"/compare/class_metrics/wait_mean_s", "/compare/class_metrics/wait_p95_s",
      "/compare/class_metrics/slowdown_mean", NULL},
     sim__plot_compare_classes},
    {"cost",
     "cost by pool and category: owned (used, idle), reserved (used, idle), on-demand, API",
     {"/cost/breakdown/category", "/cost/breakdown/pool", "/cost/breakdown/usd", NULL},
     sim__plot_cost},
    {"packing",
     "openb packing: GPU allocation against arrived demand per policy (spread over seeds), "
     "fragmentation and failed demand",
     {"/packing/arrived_pct", "/packing/policies", NULL},
     sim__plot_packing},
    {"sweep_packing",
     "a merged packing sweep: mean GPU allocation against arrived demand per combination, "
     "fragmentation and failed demand",
     {"/sweep/curves_mean/arrived_pct", "/sweep/curves_mean/alloc_pct", NULL},
     sim__plot_sweep_packing},
    {"sweep",
     "a merged sweep: key results against a parameter, one line per combination of the others, "
     "with 95 % confidence intervals",
     {"/sweep/mean/combo", "/sweep/mean/n", "/sweep/params", NULL},
     sim__plot_sweep},
    {"llm_latency",
     "LLM serving: TTFT and TPOT percentiles against load",
     {"/llm/requests/ttft_s", "/llm/requests/tpot_s", "/llm/series/bin_s", NULL},
     sim__plot_llm},
    {"breakeven",
     "API versus owning and renting against monthly token volume, and cost per useful GPU-hour "
     "against utilization",
     {"/breakeven/volume/tokens_per_month", "/breakeven/volume/own_usd_per_month",
      "/breakeven/utilization/utilization", NULL},
     sim__plot_breakeven},
    {"fleet_breakeven",
     "the whole fleet owned, rented or the API against the load scale",
     {"/fleet_breakeven/scale/scale", "/fleet_breakeven/scale/own_usd_per_month", NULL},
     sim__plot_fleet_breakeven},
    {"plan",
     "a purchase plan: nodes per pool and demand by period, and the cost per period of owning, "
     "renting and the API",
     {"/plan/nodes", "/plan/own_usd", "/plan/demand", NULL},
     sim__plot_plan},
    {"tornado",
     "sensitivity: the outputs at each input low and high, largest swing on top",
     {"/sensitivity/input_code", "/sensitivity/base", NULL},
     sim__plot_tornado},
};

#define N_PLOTS (sizeof plots / sizeof plots[0])

const sim__plot_def *sim__plot_table(size_t *n)
{
    *n = N_PLOTS;
    return plots;
}

int sim__plot_applies(const sim__plot_def *def, sim__h5r *r)
{
    for (size_t i = 0; i < sizeof def->needs / sizeof def->needs[0] && def->needs[i]; i++)
        if (!sim__h5r_exists(r, def->needs[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------- */
/* helpers for plot functions                                                 */

static const char *format_ext(sim__plot_format f)
{
    return f == SIM__PLOT_SVG ? "svg" : f == SIM__PLOT_PDF ? "pdf" : "png";
}

void sim__plot_str(FILE *gp, const char *s)
{
    /* gnuplot 5.4 misreads '' (a quote) at the start of a single-quoted
     * string or right after another ('''a', 'a''''b'): such a string goes in
     * double quotes, with \" and \\ */
    char q = s && (s[0] == '\'' || strstr(s, "''")) ? '"' : '\'';
    fputc(q, gp);
    for (; s && *s; s++) {
        if (*s == q && q == '\'')
            fputs("''", gp);
        else if (q == '"' && (*s == '"' || *s == '\\'))
            fprintf(gp, "\\%c", *s);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', gp);
        else
            fputc(*s, gp);
    }
    fputc(q, gp);
}

void sim__plot_num(FILE *dat, double v)
{
    if (isnan(v))
        fputs("NaN", dat);
    else
        fprintf(dat, "%.9g", v);
}

void sim__plot_time_unit(double span_s, const char **unit, double *unit_s)
{
    if (span_s <= 3 * 3600) {
        *unit = "min";
        *unit_s = 60;
    } else if (span_s <= 3 * 86400) {
        *unit = "h";
        *unit_s = 3600;
    } else {
        *unit = "d";
        *unit_s = 86400;
    }
}

void sim__plot_count_unit(double max, double *scale, const char **prefix)
{
    if (max >= 1e7) {
        *scale = 1e-6;
        *prefix = "M ";
    } else if (max >= 1e4) {
        *scale = 1e-3;
        *prefix = "k ";
    } else {
        *scale = 1;
        *prefix = "";
    }
}

void sim__plot_log_tics(FILE *gp, const char *axis, double lo, double hi, const char *before,
                        const char *after)
{
    static const char *const suffix[] = {"", "k", "M", "B", "T", "P"};
    if (!(lo > 0) || !(hi >= lo) || !isfinite(hi))
        return;
    int e0 = (int)floor(log10(lo) + 1e-9), e1 = (int)ceil(log10(hi) - 1e-9);
    if (e0 < -3)
        e0 = -3;
    if (e1 > 17)
        e1 = 17;
    fprintf(gp, "set %stics (", axis);
    for (int e = e0; e <= e1; e++) {
        char l[64];
        if (e < 0)
            snprintf(l, sizeof l, "%s%g%s", before, pow(10, e), after);
        else
            snprintf(l, sizeof l, "%s%d%s%s", before,
                     e % 3 == 0   ? 1
                     : e % 3 == 1 ? 10
                                  : 100,
                     suffix[e / 3], after);
        fputs(e > e0 ? ", " : "", gp);
        sim__plot_str(gp, l);
        fprintf(gp, " 1e%d", e);
    }
    /* the minor tics between the decades, unlabelled */
    fputs(")\n", gp);
    fprintf(gp, "set m%stics 10\n", axis);
}

void sim__plot_short_name(char *out, size_t cap, const char *s, size_t max_chars)
{
    /* count UTF-8 code points (bytes that are not continuation bytes) */
    size_t n = 0;
    for (const unsigned char *q = (const unsigned char *)s; *q; q++)
        n += (*q & 0xC0) != 0x80;
    if (n <= max_chars || max_chars < 5) {
        snprintf(out, cap, "%s", s);
        return;
    }
    size_t head = (max_chars - 1) / 2, tail = max_chars - 1 - head, o = 0, k = 0;
    const unsigned char *q = (const unsigned char *)s;
    for (; *q; q++) {
        if ((*q & 0xC0) != 0x80 && k++ == head)
            break;
        if (o + 1 < cap)
            out[o++] = (char)*q;
    }
    static const char ell[] = "\xe2\x80\xa6"; /* … */
    for (size_t i = 0; ell[i] && o + 1 < cap; i++)
        out[o++] = ell[i];
    size_t skip = n - tail;
    k = 0;
    for (q = (const unsigned char *)s; *q; q++) {
        if ((*q & 0xC0) != 0x80)
            k++;
        if (k > skip && o + 1 < cap)
            out[o++] = (char)*q;
    }
    out[o < cap ? o : cap - 1] = '\0';
}

int sim__plot_top(const double *weight, size_t n, size_t max_shown, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    if (n <= max_shown)
        return 0;
    /* a stable selection sort of the heaviest max_shown - 1: the rest go to
     * one "others" entry, which takes the last place */
    size_t keep = max_shown - 1;
    for (size_t i = 0; i < keep; i++) {
        size_t b = i;
        for (size_t j = i + 1; j < n; j++) {
            double wj = isfinite(weight[order[j]]) ? weight[order[j]] : 0;
            double wb = isfinite(weight[order[b]]) ? weight[order[b]] : 0;
            if (wj > wb)
                b = j;
        }
        size_t t = order[b];
        memmove(order + i + 1, order + i, (b - i) * sizeof *order);
        order[i] = t;
    }
    /* the kept ones in their original order, so colours follow the file */
    for (size_t i = 1; i < keep; i++)
        for (size_t j = i; j > 0 && order[j - 1] > order[j]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return 1;
}

int sim__plot_read_f64(sim__plot_ctx *c, const char *path, double **v, size_t *n, tm_diag *diag)
{
    /* A series is read whole; one longer than a figure can show would only
     * eat memory (a small compressed file can hold 3e8 points: 2.4 GB of
     * doubles), so it is refused, by its size, before it is read. */
    sim__h5_info info;
    int rc = sim__h5r_info(c->r, path, &info, diag);
    if (rc == TM_OK && info.len > SIM__PLOT_MAX_POINTS) {
        *v = NULL;
        *n = 0;
        rc = tm_diag_set(diag, TM_ERR_LIMIT, path,
                         "%llu points, more than the %u a figure reads (tarmac export writes "
                         "the table as CSV)",
                         (unsigned long long)info.len, (unsigned)SIM__PLOT_MAX_POINTS);
    }
    if (rc == TM_OK)
        rc = sim__h5r_array_f64(c->r, path, v, n, diag);
    if (rc != TM_OK && !strstr(diag->where, c->file)) {
        /* "file:/path"; a long one loses its end */
        char where[sizeof diag->where];
        size_t lf = strlen(c->file), lw = strlen(diag->where), cap = sizeof where - 1;
        lf = lf < cap ? lf : cap;
        memcpy(where, c->file, lf);
        size_t o = lf;
        if (o < cap)
            where[o++] = ':';
        lw = lw < cap - o ? lw : cap - o;
        memcpy(where + o, diag->where, lw);
        where[o + lw] = '\0';
        memcpy(diag->where, where, o + lw + 1);
    }
    return rc;
}

int sim__plot_labels(sim__plot_ctx *c, const char *obj, char ***labels, size_t *n, tm_diag *diag)
{
    char *s = NULL;
    *labels = NULL;
    *n = 0;
    int rc = sim__h5r_attr_str(c->r, obj, "labels", &s, diag);
    if (rc == TM_ERR_NOTFOUND) {
        s = NULL;
        tm_diag_clear(diag);
    } else if (rc != TM_OK) {
        return rc;
    }
    size_t count = s && *s ? 1 : 0, len = s ? strlen(s) : 0;
    for (size_t i = 0; i < len; i++)
        count += s[i] == '\n';
    /* one block: the pointers, then the text */
    char **out = malloc(count * sizeof *out + len + 1);
    if (!out) {
        free(s);
        return tm_diag_set(diag, TM_ERR_NOMEM, obj, "out of memory");
    }
    char *text = (char *)(out + count);
    memcpy(text, s ? s : "", len + 1);
    free(s);
    size_t k = 0;
    if (count) {
        out[k++] = text;
        for (char *p = text; *p; p++)
            if (*p == '\n') {
                *p = '\0';
                out[k++] = p + 1;
            }
    }
    *labels = out;
    *n = count;
    return TM_OK;
}

/* The file name without control characters, for comments in scripts. */
static void clean_name(char *out, size_t n, const char *s)
{
    size_t o = 0;
    for (; s && *s && o + 1 < n; s++)
        out[o++] = (unsigned char)*s < 0x20 ? '?' : *s;
    out[o] = '\0';
}

int sim__plot_begin(sim__plot_ctx *c, sim__plot_fig *f, const char *stem, int width, int height,
                    tm_diag *diag)
{
    memset(f, 0, sizeof *f);
    if (c->rep->n_figures >= SIM__PLOT_MAX_FIGURES)
        return tm_diag_set(diag, TM_ERR_LIMIT, stem, "more than %d figures from one file",
                           SIM__PLOT_MAX_FIGURES);
    snprintf(f->stem, sizeof f->stem, "%s", stem);
    char path[1100];
    snprintf(path, sizeof path, "%s/%s.dat", c->dir, stem);
    int rc = sim__afile_open(&f->a_dat, path, diag);
    if (rc == TM_OK) {
        snprintf(path, sizeof path, "%s/%s.gp", c->dir, stem);
        rc = sim__afile_open(&f->a_gp, path, diag);
    }
    if (rc != TM_OK) {
        sim__plot_abandon(f);
        return rc;
    }
    f->dat = f->a_dat.f;
    f->gp = f->a_gp.f;
    char src[512];
    clean_name(src, sizeof src, c->file);
    fprintf(f->dat, "# %s.dat — data of %s.gp, written by tarmac %s from %s\n", stem, stem,
            TARMAC_VERSION, src);
    FILE *g = f->gp;
    fprintf(g,
            "# %s.gp — written by tarmac %s (`tarmac plot`) from %s.\n"
            "# Redraw with `gnuplot %s.gp` in this folder; the data is in %s.dat.\n"
            "# Restyle freely: for another format, change the two lines below (the\n"
            "# terminal and the picture's extension), e.g.\n"
            "#   set terminal svg size %d,%d dynamic font 'DejaVu Sans,12'\n"
            "#   set terminal pdfcairo size %.1fin,%.1fin font 'DejaVu Sans,12'\n",
            stem, TARMAC_VERSION, src, stem, stem, width, height, width / 150.0, height / 150.0);
    switch (c->format) {
    case SIM__PLOT_SVG:
        fprintf(g,
                "set terminal svg size %d,%d dynamic font 'DejaVu Sans,12' linewidth 1.2 "
                "background rgb 'white' noenhanced\n",
                width, height);
        break;
    case SIM__PLOT_PDF:
        fprintf(g,
                "set terminal pdfcairo size %.2fin,%.2fin font 'DejaVu Sans,12' linewidth 1.2 "
                "noenhanced\n",
                width / 150.0, height / 150.0);
        break;
    default:
        fprintf(g,
                "set terminal pngcairo size %d,%d font 'DejaVu Sans,12' linewidth 1.2 "
                "noenhanced\n",
                width, height);
    }
    /* tarmac plot draws into a temporary it names with -e and renames it when
     * gnuplot succeeds, so a picture under the final name is complete */
    fprintf(g, "set output (exists('tarmac_output') ? tarmac_output : '%s.%s')\n", stem,
            format_ext(c->format));
    fputs("set encoding utf8\n"
          "set datafile missing NaN\n"
          "set termoption noenhanced\n"
          "# colours: a colour-blind-safe qualitative palette (Okabe-Ito)\n"
          "set style line 1 lc rgb '#0072B2' lw 2 pt 7 ps 1.1\n"
          "set style line 2 lc rgb '#D55E00' lw 2 pt 5 ps 1.1\n"
          "set style line 3 lc rgb '#009E73' lw 2 pt 9 ps 1.2\n"
          "set style line 4 lc rgb '#CC79A7' lw 2 pt 11 ps 1.2\n"
          "set style line 5 lc rgb '#E69F00' lw 2 pt 13 ps 1.2\n"
          "set style line 6 lc rgb '#56B4E9' lw 2 pt 3 ps 1.1\n"
          "set style line 7 lc rgb '#F0E442' lw 2 pt 1 ps 1.1\n"
          "set style line 8 lc rgb '#000000' lw 2 pt 2 ps 1.1\n"
          "set style line 9 lc rgb '#444444' lw 2.5 dt 2\n"
          "set grid back lc rgb '#dddddd' lw 1 dt 1\n"
          "set border 3 lc rgb '#555555'\n"
          "set tics nomirror out\n"
          "set key noautotitle\n",
          g);
    return TM_OK;
}

void sim__plot_abandon(sim__plot_fig *f)
{
    if (!f)
        return;
    sim__afile_abort(&f->a_dat);
    sim__afile_abort(&f->a_gp);
    f->dat = f->gp = NULL;
}

int sim__plot_end(sim__plot_ctx *c, sim__plot_fig *f, tm_diag *diag)
{
    f->dat = f->gp = NULL;
    /* the script last: a script under its name always has its data */
    int rc = sim__afile_commit(&f->a_dat, diag);
    if (rc != TM_OK) {
        sim__afile_abort(&f->a_gp);
        return rc;
    }
    rc = sim__afile_commit(&f->a_gp, diag);
    if (rc != TM_OK) {
        char dat[1100];
        snprintf(dat, sizeof dat, "%s/%s.dat", c->dir, f->stem);
        remove(dat);
        return rc;
    }
    snprintf(c->rep->stems[c->rep->n_figures++], SIM__PLOT_STEM_MAX, "%s", f->stem);
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* running gnuplot                                                            */

/* The first executable `name` on PATH into out; 0 found, -1 not. */
static int find_program(const char *name, char *out, size_t n)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len == 0)
            snprintf(out, n, "./%s", name); /* an empty entry is the current folder */
        else
            snprintf(out, n, "%.*s/%s", (int)len, path, name);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        path += len + (colon ? 1 : 0);
    }
    return -1;
}

/* Run `exe -e "tarmac_output='output'" script` in folder dir (the script's
 * picture goes to output, a name of ours without quotes). *status gets the
 * wait status; msg the first kilobytes of its output. TM_OK when it ran
 * (whatever its status). */
static int spawn_gnuplot(const char *exe, const char *dir, const char *script, const char *output,
                         volatile int *stop, int *status, char *msg, size_t msg_n, tm_diag *diag)
{
    char set_output[SIM__PLOT_STEM_MAX + 64];
    snprintf(set_output, sizeof set_output, "tarmac_output='%s'", output);
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    msg[0] = '\0';
    /* nothing but the dup2'd ends reaches gnuplot; err[1] closing on exec
     * tells the parent the exec worked */
    int ok = pipe(out) == 0 && pipe(err) == 0 && fcntl(out[0], F_SETFD, FD_CLOEXEC) == 0 &&
             fcntl(out[1], F_SETFD, FD_CLOEXEC) == 0 && fcntl(err[0], F_SETFD, FD_CLOEXEC) == 0 &&
             fcntl(err[1], F_SETFD, FD_CLOEXEC) == 0;
    if (!ok) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (out[i] >= 0)
                close(out[i]);
            if (err[i] >= 0)
                close(err[i]);
        }
        return tm_diag_set(diag, TM_ERR_SYSTEM, "gnuplot", "pipe: %s", strerror(e));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        return tm_diag_set(diag, TM_ERR_SYSTEM, "gnuplot", "fork: %s", strerror(e));
    }
    if (pid == 0) {
        /* the child: only async-signal-safe calls until exec */
        char *const argv[] = {(char *)"gnuplot", (char *)"-e", set_output, (char *)script, NULL};
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int e = 0;
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
            dup2(out[1], STDERR_FILENO) < 0 || chdir(dir) != 0)
            e = errno;
        if (!e) {
            execv(exe, argv);
            e = errno;
        }
        ssize_t w = write(err[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    size_t got = 0;
    char buf[512];
    int killed = 0;
    for (;;) {
        /* gnuplot's output until it closes it (exits); every 100 ms, and on
         * a signal, a look at the stop flag: SIGKILL, as gnuplot may be deep
         * in a long picture, and nothing it would still write is wanted */
        if (stop && *stop && !killed) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        struct pollfd pfd = {out[0], POLLIN, 0};
        int pr = poll(&pfd, 1, 100);
        if (pr == 0 || (pr < 0 && errno == EINTR))
            continue;
        ssize_t k = read(out[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        for (ssize_t i = 0; i < k && got + 1 < msg_n; i++)
            msg[got++] = buf[i];
    }
    msg[got] = '\0';
    close(out[0]);
    int child_errno = 0;
    ssize_t k;
    do
        k = read(err[0], &child_errno, sizeof child_errno);
    while (k < 0 && errno == EINTR);
    close(err[0]);
    pid_t w;
    do
        w = waitpid(pid, status, 0);
    while (w < 0 && errno == EINTR);
    if (w < 0)
        return tm_diag_set(diag, TM_ERR_SYSTEM, "gnuplot", "waitpid: %s", strerror(errno));
    if (stop && *stop) /* killed by us, or by the same signal (a terminal's ^C) */
        return tm_diag_set(diag, TM_ERR_INTERRUPTED, "plot", "interrupted while gnuplot drew %s",
                           script);
    if (k == (ssize_t)sizeof child_errno)
        return tm_diag_set(diag, TM_ERR_UNAVAILABLE, exe, "cannot run gnuplot in %s: %s", dir,
                           strerror(child_errno));
    return TM_OK;
}

static void first_line(char *dst, size_t n, const char *s)
{
    /* gnuplot's messages start with the offending line and a caret: keep the
     * line that says what went wrong ("... line 12: undefined variable") */
    const char *best = s;
    for (const char *p = s; *p; p++) {
        if (p != s && p[-1] != '\n')
            continue;
        /* look within this line only */
        size_t len = strcspn(p, "\n");
        const char *l = strstr(p, "line "), *colon = strchr(p, ':');
        if (l && colon && l < p + len && colon < p + len) {
            best = p;
            break;
        }
    }
    while (*best == '\n' || *best == ' ')
        best++; /* not an empty first line */
    size_t o = 0;
    for (; *best && *best != '\n' && o + 1 < n; best++)
        dst[o++] = *best;
    dst[o] = '\0';
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Draw one figure. The picture is drawn under a temporary name (base/afile:
 * claimed with O_EXCL, next to the picture) and put in place once gnuplot
 * has succeeded and written something. */
static int draw_one(sim__plot_ctx *c, const char *exe, const char *stem, tm_diag *diag)
{
    char script[SIM__PLOT_STEM_MAX + 8], msg[4096], out[SIM__PLOT_STEM_MAX + 48], pic[1100];
    char *tmp = NULL;
    int fd, status = 0;
    snprintf(script, sizeof script, "%s.gp", stem);
    snprintf(pic, sizeof pic, "%s/%s.%s", c->dir, stem, format_ext(c->format));
    int rc = sim__afile_tmp_create(pic, &tmp, &fd, diag);
    if (rc != TM_OK)
        return rc;
    close(fd);
    snprintf(out, sizeof out, "%s", base_name(tmp));
    rc = spawn_gnuplot(exe, c->dir, script, out, c->stop, &status, msg, sizeof msg, diag);
    if (rc == TM_ERR_UNAVAILABLE) /* found in PATH, but it cannot be run */
        c->rep->gnuplot_missing = 1;
    if (rc != TM_OK)
        goto fail;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char line[400], where[1100];
        first_line(line, sizeof line, msg);
        snprintf(where, sizeof where, "%s/%s", c->dir, script);
        /* 69, not 70: what fails is the gnuplot installed (a terminal it
         * lacks, a library it cannot load), and its own message says why */
        if (WIFSIGNALED(status))
            rc = tm_diag_set(diag, TM_ERR_UNAVAILABLE, where, "gnuplot was killed by signal %d",
                             WTERMSIG(status));
        else
            rc = tm_diag_set(diag, TM_ERR_UNAVAILABLE, where, "gnuplot exited with status %d: %s",
                             WEXITSTATUS(status), line[0] ? line : "(no message)");
        goto fail;
    }
    if (msg[0])
        fprintf(stderr, "tarmac plot: gnuplot on %s/%s said:\n%s", c->dir, script, msg);
    struct stat st;
    if (stat(tmp, &st) != 0 || st.st_size == 0) {
        rc = tm_diag_set(diag, TM_ERR_UNAVAILABLE, pic,
                         "gnuplot exited normally but wrote no picture");
        goto fail;
    }
    rc = sim__afile_tmp_commit(tmp, pic, 1, diag); /* renamed, or removed on failure */
    if (rc == TM_OK)
        c->rep->n_drawn++;
    free(tmp);
    return rc;
fail:
    unlink(tmp);
    free(tmp);
    return rc;
}

static int draw_all(sim__plot_ctx *c, tm_diag *diag)
{
    char exe[1024];
    if (find_program("gnuplot", exe, sizeof exe) != 0) {
        c->rep->gnuplot_missing = 1;
        return tm_diag_set(diag, TM_ERR_UNAVAILABLE, "gnuplot",
                           "not found in PATH; wrote the data and scripts of %zu figure(s) to %s "
                           "(draw them there with `gnuplot NAME.gp` once gnuplot is installed; "
                           "Debian: apt-get install gnuplot-nox)",
                           c->rep->n_figures, c->dir);
    }
    for (size_t i = 0; i < c->rep->n_figures; i++) {
        if (c->stop && *c->stop)
            return tm_diag_set(diag, TM_ERR_INTERRUPTED, "plot",
                               "interrupted while drawing the pictures (%zu of %zu drawn)", i,
                               c->rep->n_figures);
        int rc = draw_one(c, exe, c->rep->stems[i], diag);
        if (rc == TM_ERR_INTERRUPTED) {
            size_t l = strlen(diag->msg);
            snprintf(diag->msg + l, sizeof diag->msg - l, " (%zu of %zu pictures drawn before it)",
                     i, c->rep->n_figures);
        }
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* the file                                                                   */

/* What the file is, for titles: the scenario's name (the file's name when
 * it has none), and the policy of a run. */
static void find_subject(sim__plot_ctx *c)
{
    tm_diag d;
    char *name = NULL, *policy = NULL;
    if (sim__h5r_exists(c->r, "/provenance/scenario_name") &&
        sim__h5r_scalar_str(c->r, "/provenance/scenario_name", &name, &d) == TM_OK && name[0])
        snprintf(c->subject, sizeof c->subject, "%s", name);
    else
        snprintf(c->subject, sizeof c->subject, "%s", base_name(c->file));
    if (sim__h5r_exists(c->r, "/provenance/policy") &&
        sim__h5r_scalar_str(c->r, "/provenance/policy", &policy, &d) == TM_OK && policy[0]) {
        size_t l = strlen(c->subject);
        snprintf(c->subject + l, sizeof c->subject - l, ", %s", policy);
    }
    free(name);
    free(policy);
}

static int wanted(const char *only, const char *name)
{
    if (!only)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

static int check_only(const char *only, tm_diag *diag)
{
    for (const char *p = only; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int found = 0;
        for (size_t i = 0; i < N_PLOTS; i++)
            found |= strlen(plots[i].name) == len && strncmp(p, plots[i].name, len) == 0;
        if (!found)
            return tm_diag_set(diag, TM_ERR_USAGE, "--only",
                               "no plot named '%.*s' (tarmac plot --list shows them)", (int)len, p);
        p += len + (comma ? 1 : 0);
    }
    return TM_OK;
}

/* The output folder; *made says whether this call created it. */
static int make_dir(const char *dir, int *made, tm_diag *diag)
{
    struct stat st;
    *made = 0;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return tm_diag_set(diag, TM_ERR_CANTCREAT, dir, "exists and is not a folder");
        return TM_OK;
    }
    if (mkdir(dir, 0777) != 0)
        return tm_diag_set(diag, TM_ERR_CANTCREAT, dir, "cannot create the folder: %s",
                           strerror(errno));
    *made = 1;
    return TM_OK;
}

int sim__plot_file(const char *h5path, const sim__plot_opts *o, sim__plot_report *rep,
                   tm_diag *diag)
{
    memset(rep, 0, sizeof *rep);
    tm_diag_clear(diag);
    int rc = check_only(o->only, diag);
    if (rc != TM_OK)
        return rc;
    sim__plot_ctx c;
    int made = 0;
    memset(&c, 0, sizeof c);
    c.file = h5path;
    c.dir = o->dir;
    c.format = o->format;
    c.rep = rep;
    c.stop = o->stop;
    if ((rc = sim__h5r_open(&c.r, h5path, diag)) != TM_OK)
        return rc;
    size_t applicable = 0;
    for (size_t i = 0; i < N_PLOTS; i++)
        applicable += wanted(o->only, plots[i].name) && sim__plot_applies(&plots[i], c.r);
    if (!applicable) {
        rc =
            tm_diag_set(diag, TM_ERR_NOTFOUND, h5path,
                        "nothing to plot: %s (tarmac plot --list shows what each plot needs)",
                        o->only ? "the file lacks the datasets of the plots asked for"
                                : "not a tarmac result (no /timeseries, /jobs, /compare, /packing, "
                                  "/sweep/curves_mean or /breakeven)");
        goto out;
    }
    if ((rc = make_dir(o->dir, &made, diag)) != TM_OK)
        goto out;
    find_subject(&c);
    for (size_t i = 0; i < N_PLOTS; i++) {
        if (!wanted(o->only, plots[i].name) || !sim__plot_applies(&plots[i], c.r))
            continue;
        if (c.stop && *c.stop) {
            rc = tm_diag_set(diag, TM_ERR_INTERRUPTED, "plot",
                             "interrupted while writing the figures' data and scripts (%zu "
                             "figures written)",
                             rep->n_figures);
            goto out;
        }
        if ((rc = plots[i].fn(&c, diag)) != TM_OK)
            goto out;
    }
    rc = draw_all(&c, diag);
out:
    /* A failure before anything was written (a dataset of the first figure
     * unreadable) leaves no empty folder behind; rmdir removes only that. */
    if (rc != TM_OK && made)
        rmdir(o->dir);
    sim__h5r_close(c.r);
    return rc;
}
