/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_run.c — one scenario end to end: events per second, wall and CPU time,
 * peak memory.
 *
 *     bench_run SCENARIO [REPS] [OUT.h5]
 *
 * Each repetition runs in a child process (so peak RSS is its own): once with
 * no output at all (the engine and the placement core alone), and, when OUT.h5
 * is given, once writing the full HDF5 report as `tarmac run` does. Prints the
 * median over REPS (default 5) of each. As in `tarmac run`, the scenario's
 * jobs are synthesized on a second core when the machine has one
 * (sim_run_opts.read_ahead); BENCH_RUN_AHEAD=0 in the environment keeps the
 * run on one core.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct figures {
    double wall_s, cpu_s, events, rss_mb, jobs;
} figures;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run once in this process; the figures go back through a pipe. */
static int run_once(const char *path, const char *out, int fd)
{
    sim_scenario sc;
    tm_diag d;
    if (sim_scenario_load_file(&sc, path, &d) != TM_OK) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        return 1;
    }
    sim_result res;
    sim_run_opts opts = {0};
    /* as tarmac run: the jobs synthesized on a second core, if there is one */
    const char *ahead = getenv("BENCH_RUN_AHEAD");
    opts.read_ahead = sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !(ahead && strcmp(ahead, "0") == 0);
    double t0 = now_s();
    int rc = out ? sim_study_run(&sc, &opts, out, &res, &d) : sim_run(&sc, &opts, NULL, &res, &d);
    double wall = now_s() - t0;
    if (rc != TM_OK) {
        fprintf(stderr, "%s: %s\n", d.where, d.msg);
        sim_scenario_fini(&sc);
        return 1;
    }
    figures f = {wall, 0, (double)res.events, 0, (double)res.classes[res.n_classes].arrived};
    if (write(fd, &f, sizeof f) != (ssize_t)sizeof f)
        return 1;
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
    return 0;
}

static int measure(const char *path, const char *out, figures *f)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(p[0]);
        _exit(run_once(path, out, p[1]));
    }
    close(p[1]);
    ssize_t got = read(p[0], f, sizeof *f);
    close(p[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        got != (ssize_t)sizeof *f)
        return -1;
    f->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    f->rss_mb = (double)ru.ru_maxrss / 1024.0;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int report(const char *label, const char *path, const char *out, int reps)
{
    double wall[64], cpu[64], rss[64], ev = 0, jobs = 0;
    for (int r = 0; r < reps; r++) {
        figures f;
        if (measure(path, out, &f) != 0) {
            fprintf(stderr, "bench_run: %s failed\n", label);
            return 1;
        }
        wall[r] = f.wall_s;
        cpu[r] = f.cpu_s;
        rss[r] = f.rss_mb;
        ev = f.events;
        jobs = f.jobs;
    }
    double w = median(wall, reps), c = median(cpu, reps), m = median(rss, reps);
    printf("%-10s %10.0f jobs %11.0f events  wall %7.3f s  cpu %7.3f s  %6.2f M events/s  "
           "peak %6.1f MB\n",
           label, jobs, ev, w, c, ev / w / 1e6, m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_run SCENARIO [REPS] [OUT.h5]\n");
        return 64;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 64)
        reps = 5;
    printf("%s, median of %d runs\n", argv[1], reps);
    int rc = report("no output", argv[1], NULL, reps);
    if (argc > 3)
        rc |= report("HDF5", argv[1], argv[3], reps);
    return rc;
}
