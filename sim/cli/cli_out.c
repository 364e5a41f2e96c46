/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_out.c — what the commands print besides their tables: the progress bar
 * on a terminal (the JSON of --json is built with config/json_out.h).
 *
 * The bar is one line on stderr, redrawn in place with "\r" and erased with
 * "\r\033[K" at the end, so the terminal is left as it was. It is drawn only
 * when the command enabled it (stderr is a terminal and no --quiet), never on
 * a pipe or a file, and at most every 0.1 s of wall time, so its cost is one
 * clock read per progress callback (every 4096 events). The ETA assumes the
 * rest of the simulated time costs what the part done did; for a run that
 * drains past its horizon it shows the time simulated beyond it instead.
 *
 * The wall clock is read here, in the CLI, for the display only; nothing it
 * reads reaches a result.
 */
#include "cli/cli_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int sim__cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO) == 1;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sim__cli_progress_init(sim__cli_progress *p, int enabled, int64_t horizon_us, size_t n_runs)
{
    memset(p, 0, sizeof *p);
    p->enabled = enabled;
    p->horizon_us = horizon_us > 0 ? horizon_us : 1;
    p->n_runs = n_runs ? n_runs : 1;
    p->t0_wall = wall_s();
    p->last_draw = -1;
}

void sim__cli_progress_run(sim__cli_progress *p, size_t run, uint64_t events_before,
                           const char *label)
{
    p->run = run;
    p->events_done = events_before;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

static void fmt_eta(char *buf, size_t n, double s)
{
    if (!(s >= 0) || s > 360000)
        snprintf(buf, n, "--:--");
    else if (s >= 3600)
        snprintf(buf, n, "%d:%02d:%02d", (int)(s / 3600), (int)fmod(s / 60, 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%d:%02d", (int)(s / 60), (int)fmod(s, 60));
}

void sim__cli_progress_cb(void *ud, int64_t now_us, uint64_t events)
{
    sim__cli_progress *p = ud;
    if (!p->enabled)
        return;
    double now = wall_s(), elapsed = now - p->t0_wall;
    if (p->last_draw >= 0 && now - p->last_draw < 0.1)
        return;
    p->last_draw = now;
    double in_run = (double)now_us / (double)p->horizon_us;
    double frac = ((double)p->run + (in_run < 1 ? in_run : 1)) / (double)p->n_runs;
    enum { BAR = 24 };
    char bar[BAR + 1];
    int full = (int)(frac * BAR + 0.5);
    for (int i = 0; i < BAR; i++)
        bar[i] = i < full ? '#' : '.';
    bar[BAR] = '\0';
    char simt[32], hor[32], eta[32];
    sim__cli_fmt_duration(simt, sizeof simt, (double)now_us / SIM_US_PER_S);
    sim__cli_fmt_duration(hor, sizeof hor, (double)p->horizon_us / SIM_US_PER_S);
    if (in_run > 1 && p->n_runs == 1)
        snprintf(eta, sizeof eta, "draining");
    else
        fmt_eta(eta, sizeof eta, frac > 0 ? elapsed * (1 - frac) / frac : -1);
    double evs = elapsed > 0 ? (double)(p->events_done + events) / elapsed : 0;
    fprintf(stderr, "\r[%s] %3d %%  %s%s%s / %s  %.2f M events/s  ETA %s\033[K", bar,
            (int)(100 * frac), p->label, p->label[0] ? "  " : "", simt, hor, evs / 1e6, eta);
    fflush(stderr);
    p->drawn = 1;
}

void sim__cli_progress_end(sim__cli_progress *p)
{
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}

void sim__cli_fmt_double(char *buf, size_t n, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            return;
    }
}

int sim__cli_beside(char *buf, size_t n, const char *result, const char *suffix, const char *cmd,
                    const char *flag)
{
    size_t l = strlen(result);
    if (l > 3 && strcmp(result + l - 3, ".h5") == 0)
        l -= 3;
    if (l + strlen(suffix) >= n)
        return sim__cli_usage(cmd, "result file name too long; give %s", flag);
    snprintf(buf, n, "%.*s%s", (int)l, result, suffix);
    return 0;
}
