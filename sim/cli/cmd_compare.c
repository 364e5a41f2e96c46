/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_compare.c — `tarmac compare`: policies side by side, a table of means,
 * intervals and paired differences, an HDF5 file (compare.c does the work).
 *
 * Policies come from --policies (a comma-separated list of preset names or
 * specifications without commas) and --policy (one specification, repeatable,
 * optionally "LABEL: SPEC"), in the order given; the first is the baseline of
 * the differences.
 */
#include "cli/cli_int.h"
#include "config/json_out.h"
#include "studies/compare_int.h"
#include "studies/work_int.h"
#include "version.h"

#include <ctype.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POLICIES 32

static const char compare_help[] =
    "Usage: tarmac compare [SCENARIO] --policies A,B,... [--policy [LABEL:]SPEC]...\n"
    "                      [--replications R] [--warmup DURATION] [--confidence C]\n"
    "                      [--seed N] [-j N] [-o FILE] [--per-class] [--quiet] [--json]\n"
    "                      [--set LABEL:PATH=VALUE]... [--limit NAME=VALUE]...\n"
    "\n"
    "Run SCENARIO (the embedded default without one) under every policy, R times\n"
    "each with independent random streams. Every policy sees the same jobs in the\n"
    "same replication (common random numbers), so the paired difference to the\n"
    "first policy carries only the policy's effect. The warm-up is removed: jobs\n"
    "that arrived before it and time-series bins that start before it. Prints, per\n"
    "metric, the mean over the replications, its Student-t confidence interval and\n"
    "the paired difference to the first policy with its interval; writes the same\n"
    "to FILE (layout: docs/output.md, \"Comparison files\"). The job metrics (waits,\n"
    "slowdown, jobs arrived) are also computed per workload class, with the same\n"
    "intervals: in FILE and --json always, in the table with --per-class. A policy\n"
    "may also change the scenario (--set): a bigger fleet, a specialized model, on\n"
    "the same arrivals.\n"
    "\n"
    "  --policies A,B,...   policies separated by commas: preset names\n"
    "                       (fifo-first-fit, fifo-best-fit) or specifications\n"
    "                       without commas (\"order=fifo placement=best-fit\")\n"
    "  --policy [LABEL:]SPEC  one more policy, any specification; LABEL (no spaces\n"
    "                       or '=') names it in the table; repeatable\n"
    "  --replications R     replications per policy, >= 2 (default 10)\n"
    "  --warmup DURATION    simulated time removed from the start, as in scenarios\n"
    "                       (\"3d\", \"12h\", seconds); default a tenth of the horizon\n"
    "  --confidence C       confidence level of the intervals (default 0.95)\n"
    "  --seed N             override the scenario's seed\n"
    "  -j, --jobs N         run on N worker processes (default: the online cores);\n"
    "                       the results are the same for any N\n"
    "  -o, --output FILE    HDF5 output (default tarmac-compare.h5)\n"
    "  --per-class          the table also shows the job metrics of every workload\n"
    "                       class\n"
    "  --set LABEL:PATH=VALUE  the policy labelled LABEL runs the scenario with\n"
    "                       VALUE (JSON; other text is a string) at PATH (keys and\n"
    "                       [index] joined by '.', as in sweep files); the classes\n"
    "                       and the horizon must stay; repeatable\n"
    "  -q, --quiet          no table and no progress bar\n"
    "  --json               print a JSON summary on stdout instead of the table\n"
    "  --limit NAME=VALUE   raise a limit the scenario is held to before it runs\n"
    "                       (docs/cli.md, \"Limits\"; repeatable)\n";

typedef struct prog_adapter {
    sim__cli_progress bar;
    const sim__cmp_policy *pol;
    size_t n_pol, last_run;
    uint64_t events_done, last_events;
} prog_adapter;

static void on_progress(void *ud, size_t run, size_t n_runs, int64_t now_us, uint64_t events)
{
    (void)n_runs;
    prog_adapter *a = ud;
    if (run != a->last_run) {
        a->events_done += a->last_events;
        a->last_run = run;
    }
    a->last_events = events;
    char label[96];
    snprintf(label, sizeof label, "%s, rep %zu", a->pol[run % a->n_pol].label, run / a->n_pol);
    sim__cli_progress_run(&a->bar, run, a->events_done, label);
    sim__cli_progress_cb(&a->bar, now_us, events);
}

static void trim(char *s)
{
    size_t n = strlen(s), i = 0;
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    while (isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, n - i + 1);
}

/* Add one policy; "LABEL: SPEC" when allow_label and the text before the
 * first ':' is a word without '='. 0 or -1 (too many, empty, too long). */
static int add_policy(sim__cmp_policy *pol, size_t *n, const char *text, int allow_label)
{
    if (*n >= MAX_POLICIES)
        return -1;
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", text);
    char *spec = buf, *label = NULL, *colon = allow_label ? strchr(buf, ':') : NULL;
    if (colon) {
        int word = colon > buf;
        for (char *c = buf; c < colon; c++)
            if (isspace((unsigned char)*c) || *c == '=')
                word = 0;
        if (word) {
            *colon = '\0';
            label = buf;
            spec = colon + 1;
        }
    }
    trim(spec);
    if (!*spec || strlen(spec) >= sizeof pol[*n].spec)
        return -1;
    sim__cmp_policy *p = &pol[*n];
    memcpy(p->spec, spec, strlen(spec) + 1);
    if (label)
        trim(label);
    const char *name = label ? label : spec;
    size_t len = strlen(name);
    if (len < sizeof p->label) {
        memcpy(p->label, name, len + 1);
    } else { /* shortened, and says so */
        memcpy(p->label, name, sizeof p->label - 4);
        memcpy(p->label + sizeof p->label - 4, "...", 4);
    }
    /* labels name rows and files: keep them unique */
    for (size_t i = 0; i < *n; i++)
        if (strcmp(pol[i].label, p->label) == 0) {
            char base[48];
            snprintf(base, sizeof base, "%.40s", p->label);
            snprintf(p->label, sizeof p->label, "%s #%zu", base, *n + 1);
            break;
        }
    (*n)++;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* the table                                                                  */

/* How a metric's block is shown: a unit and a scale chosen from its values,
 * and decimals for about three significant digits. */
typedef struct show {
    const char *unit;
    double scale;
    int dec;
} show;

/* st[p * stride] for the n_pol policies: the statistics of one metric. */
static show choose_show(const char *units, int pct, const sim__cmp_stat *st, size_t stride,
                        size_t n_pol)
{
    double big = 0;
    for (size_t p = 0; p < n_pol; p++) {
        double v = fabs(st[p * stride].mean);
        if (isfinite(v) && v > big)
            big = v;
    }
    show s = {"", 1, 0};
    if (strcmp(units, "s") == 0) {
        if (big < 120)
            s.unit = "s";
        else if (big < 7200)
            s = (show){"min", 1.0 / 60, 0};
        else if (big < 2 * 86400)
            s = (show){"h", 1.0 / 3600, 0};
        else
            s = (show){"d", 1.0 / 86400, 0};
    } else if (pct) {
        s = (show){"%", 100, 0};
    }
    big *= s.scale;
    int mag = big > 0 ? (int)floor(log10(big)) : 0;
    s.dec = 2 - mag;
    if (s.dec < 0)
        s.dec = 0;
    if (s.dec > 4)
        s.dec = 4;
    return s;
}

static void fmt_num(char *buf, size_t n, double v, const show *s, int sign)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, sign ? "%+.*f" : "%.*f", s->dec, v * s->scale);
}

/* The rows of one metric, st[p * stride] for each policy; 1 when an interval
 * of a difference excludes 0. */
static int print_metric(const sim__cmp_metric *mt, int pct, const sim__cmp_stat *st0, size_t stride,
                        const sim__cmp_policy *pol, size_t n_pol, int wm, int wp)
{
    int starred = 0;
    show s = choose_show(mt->units, pct, st0, stride, n_pol);
    char head[96];
    if (s.unit[0])
        snprintf(head, sizeof head, "%s (%s)", mt->label, s.unit);
    else
        snprintf(head, sizeof head, "%s", mt->label);
    for (size_t p = 0; p < n_pol; p++) {
        const sim__cmp_stat *st = &st0[p * stride];
        char mean[32], lo[32], hi[32], ci[72];
        /* every metric compared is at least 0, and a share (pct) at most 1: the
         * interval (Student t, symmetric around the mean) is cut at those
         * bounds, as the plots cut it; the file keeps both ends as computed */
        double ci_lo = st->ci_lo < 0 ? 0 : st->ci_lo;
        double ci_hi = pct && st->ci_hi > 1 ? 1 : st->ci_hi;
        fmt_num(mean, sizeof mean, st->mean, &s, 0);
        fmt_num(lo, sizeof lo, ci_lo, &s, 0);
        fmt_num(hi, sizeof hi, ci_hi, &s, 0);
        snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
        printf("%-*s  %-*s %10s  %-*s", wm, p == 0 ? head : "", wp, pol[p].label, mean,
               p > 0 ? 22 : 0, ci);
        if (p > 0) {
            char d[32], dlo[32], dhi[32], dci[72];
            fmt_num(d, sizeof d, st->d_mean, &s, 1);
            fmt_num(dlo, sizeof dlo, st->d_lo, &s, 1);
            fmt_num(dhi, sizeof dhi, st->d_hi, &s, 1);
            snprintf(dci, sizeof dci, "[%s, %s]", dlo, dhi);
            int sig = st->d_lo > 0 || st->d_hi < 0;
            starred |= sig;
            printf(" %10s  %s%s", d, dci, sig ? " *" : "");
        }
        putchar('\n');
    }
    return starred;
}

static void print_table(const sim_scenario *sc, const sim__cmp_policy *pol,
                        const sim__cmp_result *res, const char *out, int per_class)
{
    const sim__cmp_metric *mt = sim__compare_metrics();
    char warm[32], hor[32];
    sim__cli_fmt_duration(warm, sizeof warm, (double)res->warmup_us / SIM_US_PER_S);
    sim__cli_fmt_duration(hor, sizeof hor, (double)res->horizon_us / SIM_US_PER_S);
    printf("tarmac %s compare: scenario \"%s\" (%s), seed %llu\n", TARMAC_VERSION, sc->name,
           sc->source, (unsigned long long)sc->seed);
    printf("%u replications per policy with common random numbers; warm-up %s of %s removed\n",
           res->replications, warm, hor);
    printf("%g %% confidence intervals (Student t, %u d.o.f.); differences are paired, "
           "to %s\n",
           100 * res->confidence, res->replications - 1, pol[0].label);
    printf("%zu runs, %llu events in %.2f s of wall time\n\n", res->n_policies * res->replications,
           (unsigned long long)res->events, res->wall_s);
    int wm = 6, wp = 6;
    for (size_t m = 0; m < SIM__CMP_N_METRICS; m++) {
        int l = (int)strlen(mt[m].label) + 6;
        wm = l > wm ? l : wm;
    }
    for (size_t p = 0; p < res->n_policies; p++) {
        int l = (int)strlen(pol[p].label);
        wp = l > wp ? l : wp;
    }
    char ci_head[32], dci_head[40];
    snprintf(ci_head, sizeof ci_head, "%g %% CI", 100 * res->confidence);
    snprintf(dci_head, sizeof dci_head, "%g %% CI of diff", 100 * res->confidence);
    printf("%-*s  %-*s %10s  %-22s %10s  %s\n", wm, "metric", wp, "policy", "mean", ci_head, "diff",
           dci_head);
    int starred = 0;
    for (size_t m = 0; m < SIM__CMP_N_METRICS; m++)
        starred |= print_metric(&mt[m], m == SIM__CMP_ALLOC_UTIL, &res->stats[m],
                                SIM__CMP_N_METRICS, pol, res->n_policies, wm, wp);
    const sim__cmp_metric *cm = sim__compare_class_metrics();
    for (size_t k = 0; per_class && k < res->n_classes; k++) {
        printf("\nclass %s\n", sc->classes[k].name);
        for (size_t m = 0; m < SIM__CMPC_N_METRICS; m++)
            starred |=
                print_metric(&cm[m], 0, sim__cmp_class_stat(res, 0, k, m),
                             res->n_classes * SIM__CMPC_N_METRICS, pol, res->n_policies, wm, wp);
    }
    if (starred)
        puts("\n* the interval of the difference excludes 0");
    if (out)
        printf("\nwrote %s\n", out);
}

/* "NAME": {"units", "label", "policies": [...]} of metric m over all jobs
 * (k == SIZE_MAX) or of class metric m of class k, in object o. */
static void json_metric(sim__jout *j, sim__jnode *o, const sim__cmp_metric *mt,
                        const sim__cmp_result *res, size_t k, size_t m)
{
    sim__jnode *mo = sim__jout_object(j, o, mt->name);
    sim__jout_str(j, mo, "units", mt->units);
    sim__jout_str(j, mo, "label", mt->label);
    sim__jnode *pa = sim__jout_array(j, mo, "policies");
    for (size_t p = 0; p < res->n_policies; p++) {
        const sim__cmp_stat *st = k == SIZE_MAX ? &res->stats[p * SIM__CMP_N_METRICS + m]
                                                : sim__cmp_class_stat(res, p, k, m);
        const struct {
            const char *k;
            double v;
        } kv[] = {{"mean", st->mean},        {"sd", st->sd},
                  {"ci_low", st->ci_lo},     {"ci_high", st->ci_hi},
                  {"diff_mean", st->d_mean}, {"diff_sd", st->d_sd},
                  {"diff_ci_low", st->d_lo}, {"diff_ci_high", st->d_hi}};
        sim__jnode *po = sim__jout_object(j, pa, NULL);
        for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
            sim__jout_num(j, po, kv[i].k, kv[i].v);
        sim__jnode *va = sim__jout_array(j, po, "values");
        for (uint32_t r = 0; r < res->replications; r++)
            sim__jout_num(j, va, NULL,
                          k == SIZE_MAX ? sim__cmp_value(res, p, r, m)
                                        : sim__cmp_class_value(res, p, r, k, m));
    }
}

/* --json (docs/cli.md). */
static int print_json(const sim_scenario *sc, const sim__cmp_policy *pol,
                      const sim__cmp_result *res, const char *out, tm_diag *d)
{
    const sim__cmp_metric *mt = sim__compare_metrics();
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jout_str(j, root, "command", "compare");
    sim__jout_str(j, root, "tarmac_version", TARMAC_VERSION);
    sim__jout_str(j, root, "scenario", sc->name);
    sim__jout_str(j, root, "source", sc->source);
    sim__jout_uint(j, root, "seed", sc->seed);
    sim__jout_uint(j, root, "replications", res->replications);
    sim__jout_num(j, root, "warmup_s", (double)res->warmup_us / SIM_US_PER_S);
    sim__jout_num(j, root, "horizon_s", (double)res->horizon_us / SIM_US_PER_S);
    sim__jout_num(j, root, "confidence", res->confidence);
    sim__jout_num(j, root, "t_quantile", res->t_quantile);
    sim__jout_uint(j, root, "events", res->events);
    sim__jout_str(j, root, "output", out);
    sim__jnode *pa = sim__jout_array(j, root, "policies");
    for (size_t p = 0; p < res->n_policies; p++) {
        sim__jnode *po = sim__jout_object(j, pa, NULL);
        sim__jout_str(j, po, "label", pol[p].label);
        sim__jout_str(j, po, "spec", pol[p].spec);
    }
    sim__jnode *mo = sim__jout_object(j, root, "metrics");
    for (size_t m = 0; m < SIM__CMP_N_METRICS; m++)
        json_metric(j, mo, &mt[m], res, SIZE_MAX, m);
    sim__jnode *co = sim__jout_object(j, root, "classes");
    const sim__cmp_metric *cm = sim__compare_class_metrics();
    for (size_t k = 0; k < res->n_classes; k++) {
        sim__jnode *ko = sim__jout_object(j, co, sc->classes[k].name);
        for (size_t m = 0; m < SIM__CMPC_N_METRICS; m++)
            json_metric(j, ko, &cm[m], res, k, m);
    }
    int rc = sim__jout_print(j, stdout, SIM__JOUT_PRETTY, d);
    sim__jout_free(j);
    return rc;
}

enum { O_POLICIES = 256, O_POLICY, O_REPLICATIONS, O_WARMUP, O_CONFIDENCE, O_PER_CLASS, O_SET };

#define MAX_SETS 64

static const sim__cli_opt compare_opts[] = {
    {"policies", O_POLICIES, 1, "a comma-separated list"},
    {"policy", O_POLICY, 1, NULL}, /* its own message, below */
    {"replications", O_REPLICATIONS, 1, "an integer in [2, 1000000]"},
    {"warmup", O_WARMUP, 1, "a duration (\"3d\", \"12h\", seconds)"},
    {"confidence", O_CONFIDENCE, 1, "a number in (0, 1)"},
    {"per-class", O_PER_CLASS, 0, NULL},
    {"set", O_SET, 1, NULL}, /* its own message, below */
    {NULL, 0, 0, NULL},
};

static const sim__cli_spec compare_spec = {
    .cmd = &sim__cmd_compare,
    .shared = SIM__CLI_OUTPUT | SIM__CLI_SEED | SIM__CLI_JOBS | SIM__CLI_QUIET | SIM__CLI_JSON |
              SIM__CLI_LIMIT,
    .no_stdout = "an HDF5 file",
    .operand = "scenario",
    .max_operands = 1,
    .opts = compare_opts,
};

/* The arms with settings get a scenario of their own: the compared file (or
 * the embedded default) with their keys set, admitted as any scenario is,
 * with the seed override. The settings are recorded in pol[p].set. */
static int load_arms(sim__cmp_policy *pol, size_t n_pol, const char *const *sets, size_t n_sets,
                     const char *path, sim_scenario *arm_sc, size_t *n_arm_sc,
                     const sim__cli_args *a, int *admit, tm_diag *d)
{
    *admit = 0;
    for (size_t p = 0; p < n_pol; p++) {
        const char *paths[MAX_SETS], *values[MAX_SETS];
        char buf[MAX_SETS][512];
        size_t n = 0, o = 0;
        size_t l = strlen(pol[p].label);
        for (size_t i = 0; i < n_sets; i++) {
            if (strncmp(sets[i], pol[p].label, l) != 0 || sets[i][l] != ':')
                continue;
            const char *kv = sets[i] + l + 1;
            if (strlen(kv) >= sizeof buf[n])
                return tm_diag_set(d, TM_ERR_USAGE, "--set", "%.60s...: longer than %zu bytes", kv,
                                   sizeof buf[n] - 1);
            snprintf(buf[n], sizeof buf[n], "%s", kv);
            char *eq = strchr(buf[n], '=');
            *eq = '\0';
            paths[n] = buf[n];
            values[n] = eq + 1;
            int w = snprintf(pol[p].set + o, sizeof pol[p].set - o, "%s%s", o ? "; " : "", kv);
            if (w < 0 || (size_t)w >= sizeof pol[p].set - o)
                return tm_diag_set(d, TM_ERR_USAGE, "--set",
                                   "the settings of '%s' are longer than %zu bytes", pol[p].label,
                                   sizeof pol[p].set - 1);
            o += (size_t)w;
            n++;
        }
        if (!n)
            continue;
        sim_scenario *s = &arm_sc[*n_arm_sc];
        int rc = sim_scenario_load_set(s, path, paths, values, n, d);
        if (rc != TM_OK) {
            size_t wl = strlen(d->where);
            snprintf(d->where + wl, sizeof d->where - wl, " (--set for '%s')", pol[p].label);
            return rc;
        }
        (*n_arm_sc)++;
        if ((*admit = sim__cli_admit(s, a)) != 0)
            return TM_OK;
        if (a->have_seed)
            s->seed = a->seed;
        pol[p].sc = s;
    }
    return TM_OK;
}

static int cmd_compare(int argc, char **argv)
{
    static sim__cmp_policy pol[MAX_POLICIES];
    memset(pol, 0, sizeof pol);
    size_t n_pol = 0;
    const char *sets[MAX_SETS];
    size_t n_sets = 0;
    uint64_t reps = 10;
    int64_t warm_us = -1;
    double conf = 0.95;
    int per_class = 0;
    sim__cli_args a;
    sim__cli_args_init(&a, &compare_spec, argc, argv);
    int key;
    const char *v;
    while ((key = sim__cli_next(&a, &v)) > 0) {
        switch (key) {
        case O_POLICIES: {
            char list[4096];
            if (strlen(v) >= sizeof list)
                return sim__cli_usage("compare", "%s: list too long", a.opt);
            snprintf(list, sizeof list, "%s", v);
            char *save = NULL;
            for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                if (add_policy(pol, &n_pol, tok, 0))
                    return sim__cli_usage("compare",
                                          "%s: bad policy '%s' (empty, too long, or more than "
                                          "%d policies)",
                                          a.opt, tok, MAX_POLICIES);
            break;
        }
        case O_POLICY:
            if (add_policy(pol, &n_pol, v, 1))
                return sim__cli_usage(
                    "compare", "%s needs a specification ([LABEL:]SPEC, at most %d policies)",
                    a.opt, MAX_POLICIES);
            break;
        case O_REPLICATIONS:
            if (sim__cli_parse_u64(v, 1000000, &reps) || reps < 2)
                return sim__cli_bad_value(&a);
            break;
        case O_WARMUP:
            if (sim__cli_parse_duration(v, &warm_us))
                return sim__cli_bad_value(&a);
            break;
        case O_CONFIDENCE: {
            char *end = NULL;
            conf = strtod(v, &end);
            if (end == v || *end || !(conf > 0 && conf < 1))
                return sim__cli_bad_value(&a);
            break;
        }
        case O_PER_CLASS:
            per_class = 1;
            break;
        case O_SET: {
            const char *colon = strchr(v, ':'), *eq = colon ? strchr(colon, '=') : NULL;
            if (!colon || colon == v || !eq || eq == colon + 1 || n_sets >= MAX_SETS)
                return sim__cli_usage("compare", "%s needs LABEL:PATH=VALUE (at most %d), not '%s'",
                                      a.opt, MAX_SETS, v);
            sets[n_sets++] = v;
            break;
        }
        }
    }
    if (key == SIM__CLI_STOP)
        return a.code;
    const char *path = a.n_operands ? a.operands[0] : NULL;
    const char *out = a.output ? a.output : "tarmac-compare.h5";
    uint64_t jobs = a.have_jobs ? a.jobs : sim__work_cores();
    int quiet = a.quiet, json = a.json;
    if (n_pol == 0)
        return sim__cli_usage("compare", "%s", "needs --policies or --policy");
    tm_diag d;
    tm_diag_clear(&d);
    int rc = sim__compare_check_policies(pol, n_pol, &d);
    if (rc != TM_OK)
        return sim__cli_error(rc, &d);
    /* the arms' settings name their arms */
    for (size_t i = 0; i < n_sets; i++) {
        size_t l = (size_t)(strchr(sets[i], ':') - sets[i]), p = 0;
        while (p < n_pol && (strlen(pol[p].label) != l || strncmp(pol[p].label, sets[i], l)))
            p++;
        if (p == n_pol)
            return sim__cli_usage("compare", "--set %s: no policy is labelled '%.*s'", sets[i],
                                  (int)l, sets[i]);
    }
    sim_scenario sc;
    int admit = sim__cli_open_scenario(&sc, path, &a);
    if (admit)
        return admit;
    static sim_scenario arm_sc[MAX_POLICIES];
    size_t n_arm_sc = 0;
    rc = load_arms(pol, n_pol, sets, n_sets, path, arm_sc, &n_arm_sc, &a, &admit, &d);
    if (rc != TM_OK || admit) {
        for (size_t i = 0; i < n_arm_sc; i++)
            sim_scenario_fini(&arm_sc[i]);
        sim_scenario_fini(&sc);
        return admit ? admit : sim__cli_error(rc, &d);
    }
    if (warm_us >= sc.horizon_us) {
        char h[32];
        sim__cli_fmt_duration(h, sizeof h, (double)sc.horizon_us / SIM_US_PER_S);
        sim_scenario_fini(&sc);
        return sim__cli_usage("compare", "--warmup must be shorter than the horizon (%s)", h);
    }
    sim__cli_install_signals();
    prog_adapter pa;
    memset(&pa, 0, sizeof pa);
    pa.pol = pol;
    pa.n_pol = n_pol;
    sim__cli_progress_init(&pa.bar, !quiet && sim__cli_stderr_is_tty(), sc.horizon_us,
                           n_pol * reps);
    sim__cmp_opts o = {
        .replications = (uint32_t)reps,
        .warmup_us = warm_us >= 0 ? warm_us : sc.horizon_us / 10,
        .confidence = conf,
        .stop_flag = &sim__cli_stop,
        .workers = (unsigned)jobs,
        .progress = on_progress,
        .progress_ud = &pa,
    };
    sim__cmp_result res;
    rc = sim__compare_run(&sc, pol, n_pol, &o, &res, &d);
    sim__cli_progress_end(&pa.bar);
    if (rc == TM_OK) {
        rc = sim__compare_write(out, &sc, pol, n_pol, &res, &sim__cli_stop, &d);
        if (rc == TM_OK) {
            if (json)
                rc = print_json(&sc, pol, &res, out, &d);
            else if (!quiet)
                print_table(&sc, pol, &res, out, per_class);
        }
        sim__compare_fini(&res);
    }
    for (size_t i = 0; i < n_arm_sc; i++)
        sim_scenario_fini(&arm_sc[i]);
    sim_scenario_fini(&sc);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_compare = {
    "compare",    cmd_compare, "policies side by side: replications, warm-up, confidence intervals",
    compare_help, NULL,
};
