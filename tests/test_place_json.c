/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place_json.c — `tarmac place` decides as the simulator does.
 *
 * A simulation runs with a pass hook: at the start of sampled scheduling
 * passes the view the policy is about to see is written as a snapshot
 * (docs/place-json.md) by a small serialiser here, and at the end the
 * decisions the engine applied are formatted as `tarmac place` writes them.
 * Each snapshot is then fed to the real binary ($TARMAC_BIN place FILE), and
 * its decision lines must equal the simulator's, character for character
 * (parts, GPU ids and all). Policies: first-fit and best-fit (strict FIFO),
 * greedy, EASY and conservative backfilling with estimates, FGD with learned
 * and given typical pods, DRF with topology on tenants, and priority
 * preemption (the engine's preemption, victims by lost work), and Gavel's
 * rounds (max-min and fifo) with the engine's allocation X in the snapshot,
 * and max-min with X solved again by tarmac place (the first pass of each
 * instant only: a second pass of a boundary starts what the first chose,
 * which is the policy instance's state). The workload
 * mixes gangs, GPU shares, gangs that may span, type constraints and unknown
 * estimates, on a fleet of two GPU types.
 *
 * Also, by hand: a snapshot with preemptible jobs and priority preemption,
 * and one with a service replica routed to an API (which the engine does not
 * apply yet), against expected output.
 *
 * Random policies are not compared: the simulator's random stream at a
 * pass is not part of a snapshot.
 */
#include "check.h"
#include "sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* a growable text buffer                                                     */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void tput(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->n;
        int k = vsnprintf(t->s ? t->s + t->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0)
            return;
        if ((size_t)k < room) {
            t->n += (size_t)k;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->n + (size_t)k + 1)
            cap *= 2;
        char *p = realloc(t->s, cap);
        if (!p)
            return;
        t->s = p;
        t->cap = cap;
    }
}

/* ------------------------------------------------------------------------- */
/* the serialiser of a view, and of decisions in tarmac place's form          */

static void put_job_fields(text *t, const place_job *j, uint32_t n_types)
{
    tput(t,
         "\"id\":%llu,\"submit_us\":%lld,\"estimate_us\":%lld,\"deadline_us\":%lld,"
         "\"attained_gpu_s\":%.17g,\"gpus\":%u,\"gpu_milli\":%u,\"gpu_mem_mib\":%u,"
         "\"cpu_milli\":%lld,\"host_mem_mib\":%lld,\"priority\":%d,\"tenant\":%u,\"class\":%u,"
         "\"group\":%u,\"restart_us\":%lld,\"span_slowdown\":%.17g",
         (unsigned long long)j->id, (long long)j->submit_us, (long long)j->estimate_us,
         (long long)j->deadline_us, j->attained_gpu_s, j->gpus, j->gpu_milli, j->gpu_mem_mib,
         (long long)j->cpu_milli, (long long)j->host_mem_mib, j->priority, j->tenant, j->cls,
         j->group, (long long)j->restart_us, j->span_slowdown > 1 ? j->span_slowdown : 1.0);
    if (j->type_mask) {
        tput(t, ",\"gpu_types\":[");
        int first = 1;
        for (uint32_t k = 0; k < 64; k++)
            if ((j->type_mask >> k) & 1u) {
                tput(t, "%s%u", first ? "" : ",", k);
                first = 0;
            }
        tput(t, "]");
    }
    static const char *const names[] = {"can_span", "preemptible", "service", "api_ok"};
    tput(t, ",\"flags\":[");
    int first = 1;
    for (int k = 0; k < 4; k++)
        if ((j->flags >> k) & 1u) {
            tput(t, "%s\"%s\"", first ? "" : ",", names[k]);
            first = 0;
        }
    tput(t, "]");
    if (j->speed) {
        tput(t, ",\"speed\":[");
        for (uint32_t k = 0; k < n_types; k++)
            tput(t, "%s%.17g", k ? "," : "", j->speed[k]);
        tput(t, "]");
    }
}

static void put_parts(text *t, const place_part *p, uint32_t n)
{
    tput(t, "[");
    for (uint32_t k = 0; k < n; k++) {
        tput(t, "%s{\"node\":%u,\"gpus\":%u,\"gpu\":", k ? "," : "", p[k].node,
             (unsigned)p[k].gpus);
        if (p[k].gpu == PLACE_GPU_ANY)
            tput(t, "null");
        else
            tput(t, "%u", (unsigned)p[k].gpu);
        tput(t, ",\"milli\":%u,\"mem_mib\":%u,\"gpu_ids\":[", p[k].milli, p[k].mem_mib);
        int first = 1;
        for (uint64_t m = p[k].mask; m; m &= m - 1) {
            tput(t, "%s%d", first ? "" : ",", __builtin_ctzll(m));
            first = 0;
        }
        tput(t, "]}");
    }
    tput(t, "]");
}

/* How a snapshot carries Gavel's round state (the view's timeshare). */
enum { TS_NONE, TS_X, TS_SOLVE };

/* Job id is running or queued in the view. */
static int view_has_job(const place_view *v, uint64_t id)
{
    for (uint32_t k = 0; k < v->n_running; k++)
        if (v->running[k].job.id == id)
            return 1;
    for (uint32_t i = 0; i < v->n_queue; i++)
        if (v->queue[i].id == id)
            return 1;
    return 0;
}

/* The view's timeshare rows of the jobs in the view (a row of a job that has
 * ended is left out: a snapshot names only its own jobs): with "x" (TS_X),
 * or only the seconds received and active, for tarmac place to solve X
 * (TS_SOLVE). */
static void put_timeshare(text *t, const place_view *v, int mode)
{
    const place_timeshare *ts = v->timeshare;
    if (mode == TS_NONE || !ts)
        return;
    tput(t, ",\n\"timeshare\":[");
    int first = 1;
    for (uint32_t r = 0; r < ts->n_rows; r++) {
        if (!view_has_job(v, ts->job_id[r]))
            continue;
        tput(t, "%s{\"id\":%llu,\"active_s\":%.17g,\"received_s\":[", first ? "" : ",\n",
             (unsigned long long)ts->job_id[r], ts->active_s[r]);
        for (uint32_t k = 0; k < ts->n_types; k++)
            tput(t, "%s%.17g", k ? "," : "", ts->recv_s[(size_t)r * ts->n_types + k]);
        tput(t, "]");
        if (mode == TS_X) {
            tput(t, ",\"x\":[");
            for (uint32_t k = 0; k < ts->n_types; k++)
                tput(t, "%s%.17g", k ? "," : "", ts->x[(size_t)r * ts->n_types + k]);
            tput(t, "]");
        }
        tput(t, "}");
        first = 0;
    }
    tput(t, "]");
}

static void snapshot_of(text *t, const place_view *v, int ts_mode)
{
    const place_cluster *c = v->cluster;
    tput(t, "{\"now_us\":%lld,\"gpu_types\":[", (long long)v->now_us);
    for (uint32_t k = 0; k < c->n_types; k++)
        tput(t, "%s{\"name\":\"t%u\",\"mem_mib\":%u}", k ? "," : "", k, c->type_mem_mib[k]);
    tput(t, "],\n\"nodes\":[");
    for (uint32_t n = 0; n < c->n_nodes; n++) {
        tput(t, "%s{\"type\":%u,\"gpus\":%u", n ? ",\n" : "", c->node_type[n], c->node_gpus[n]);
        if (c->node_cpu_milli[n] != INT64_MAX / 4)
            tput(t, ",\"cpu_milli\":%lld", (long long)c->node_cpu_milli[n]);
        if (c->node_mem_mib[n] != INT64_MAX / 4)
            tput(t, ",\"mem_mib\":%lld", (long long)c->node_mem_mib[n]);
        tput(t, ",\"up\":%s,\"gpus_down\":[", c->node_up[n] ? "true" : "false");
        int first = 1;
        for (uint32_t g = 0; g < c->node_gpus[n]; g++)
            if (!c->gpu_up[c->node_gpu0[n] + g]) {
                tput(t, "%s%u", first ? "" : ",", g);
                first = 0;
            }
        tput(t, "]}");
    }
    tput(t, "],\n\"running\":[");
    for (uint32_t r = 0; r < v->n_running; r++) {
        const place_running *rj = &v->running[r];
        tput(t, "%s{", r ? ",\n" : "");
        put_job_fields(t, &rj->job, c->n_types);
        tput(t,
             ",\"start_us\":%lld,\"end_estimate_us\":%lld,\"lost_gpu_s\":%.17g,"
             "\"overhead_us\":%lld,\"checkpoint_us\":%lld,\"parts\":",
             (long long)rj->start_us, (long long)rj->end_estimate_us,
             rj->lost_gpu_s < 0 ? -1.0 : rj->lost_gpu_s, (long long)rj->overhead_us,
             (long long)rj->checkpoint_us);
        put_parts(t, rj->parts, rj->n_parts);
        tput(t, "}");
    }
    tput(t, "],\n\"queue\":[");
    for (uint32_t i = 0; i < v->n_queue; i++) {
        tput(t, "%s{", i ? ",\n" : "");
        put_job_fields(t, &v->queue[i], c->n_types);
        tput(t, "}");
    }
    tput(t, "]");
    put_timeshare(t, v, ts_mode);
    tput(t, "}\n");
}

/* ------------------------------------------------------------------------- */
/* the hook: sampled passes, their snapshots and decisions                    */

#define MAX_SAMPLES 20

typedef struct sample {
    text snap, want;  /* want: the decision lines, one per line, no trailing commas */
    uint32_t with_ts; /* the view had a timeshare */
} sample;

typedef struct recorder {
    int count_only;    /* first run: count the passes that decide something */
    int taking;        /* the pass in progress was serialised */
    uint64_t passes;   /* passes seen */
    uint64_t deciding; /* passes with decisions seen */
    uint64_t stride;   /* keep every stride-th deciding pass */
    uint32_t n, n_empty;
    uint64_t *ids; /* queue ids of the pass in progress */
    uint32_t n_ids, cap_ids;
    uint64_t *run_ids; /* running ids, replayed through the pass's decisions */
    uint32_t n_run_ids, cap_run_ids;
    sample s[MAX_SAMPLES];
    int ts_mode;    /* how the snapshots carry Gavel's timeshare (TS_*) */
    int first_only; /* only the first pass of an instant (Gavel: a second pass
                       of a boundary reads the round its instance chose) */
    int64_t last_now_us;
    uint32_t ts_samples; /* kept snapshots that carry a timeshare */
    int eligible;        /* the pass in progress may be sampled (TS_SOLVE: see hook_before) */
    int bad_state;       /* a queue entry was not WAITING at the start of a pass */
    uint32_t preempts;   /* PREEMPT decisions among the samples */
} recorder;

/* The view's jobs (queued and running, with GPUs) are exactly the jobs of
 * its timeshare rows. */
static int same_jobs_as_rows(const place_view *v)
{
    const place_timeshare *ts = v->timeshare;
    if (!ts)
        return 0;
    uint32_t in_view = 0;
    for (uint32_t r = 0; r < ts->n_rows; r++) {
        if (!view_has_job(v, ts->job_id[r]))
            return 0;
        in_view++;
    }
    uint32_t jobs = 0;
    for (uint32_t k = 0; k < v->n_running; k++)
        jobs += v->running[k].job.gpus > 0;
    for (uint32_t i = 0; i < v->n_queue; i++)
        jobs += v->queue[i].gpus > 0;
    return jobs == in_view;
}

static void hook_before(void *ud, const place_view *v)
{
    recorder *r = ud;
    r->passes++;
    /* X solved again from a snapshot is the engine's X only where the engine's
     * was solved for the same jobs: it re-solves when the job set changed and
     * its last solve is old enough (docs/gavel.md), so between solves it
     * holds an X of an earlier job set. Only such passes count, in the
     * counting run too, so that the stride spreads the samples over them. */
    r->eligible = r->ts_mode != TS_SOLVE ||
                  ((r->passes == 1 || v->now_us != r->last_now_us) && same_jobs_as_rows(v));
    /* serialise only a pass that may be kept: the next deciding one of the
     * stride, or one of the few empty ones */
    r->taking = !r->count_only && r->eligible && r->n < MAX_SAMPLES &&
                (r->deciding % r->stride == 0 || (r->n_empty < 4 && r->passes % 101 == 0));
    if (r->first_only && r->passes > 1 && v->now_us == r->last_now_us)
        r->taking = 0;
    r->last_now_us = v->now_us;
    if (!r->taking)
        return;
    for (uint32_t i = 0; i < v->n_queue; i++)
        if (v->queue_state[i] != PLACE_Q_WAITING)
            r->bad_state = 1;
    if (v->n_queue > r->cap_ids) {
        free(r->ids);
        r->cap_ids = v->n_queue;
        r->ids = malloc(r->cap_ids * sizeof *r->ids);
    }
    r->n_ids = v->n_queue;
    for (uint32_t i = 0; i < v->n_queue; i++)
        r->ids[i] = v->queue[i].id;
    uint32_t need = v->n_running + v->n_queue + 1;
    if (need > r->cap_run_ids) {
        free(r->run_ids);
        r->cap_run_ids = need;
        r->run_ids = malloc(need * sizeof *r->run_ids);
    }
    r->n_run_ids = v->n_running;
    for (uint32_t k = 0; k < v->n_running; k++)
        r->run_ids[k] = v->running[k].job.id;
    r->s[r->n].snap.n = 0;
    snapshot_of(&r->s[r->n].snap, v, r->ts_mode);
    r->s[r->n].with_ts = v->timeshare != NULL ? 1u : 0u;
}

static void hook_after(void *ud, const place_decision *d, size_t n)
{
    recorder *r = ud;
    if (n > 0 && r->eligible)
        r->deciding++;
    if (!r->taking)
        return;
    if (n == 0) {
        /* keep a few passes that decide nothing (a blocked head must block in
         * tarmac place too), spread out */
        if (r->n_empty >= 4 || r->passes % 101 != 0)
            return;
        r->n_empty++;
        r->s[r->n].want.n = 0;
        tput(&r->s[r->n].want, "%s", "");
        r->ts_samples += r->s[r->n].with_ts;
        r->n++;
        return;
    }
    if ((r->deciding - 1) % r->stride != 0)
        return;
    text *t = &r->s[r->n].want;
    t->n = 0;
    for (size_t k = 0; k < n; k++) {
        if (d[k].kind == PLACE_PREEMPT) {
            /* the victim's id: replay the running set (swap-remove, as the
             * protocol says) through the decisions so far */
            uint64_t id = d[k].index < r->n_run_ids ? r->run_ids[d[k].index] : 0;
            if (d[k].index < r->n_run_ids)
                r->run_ids[d[k].index] = r->run_ids[--r->n_run_ids];
            tput(t, "{\"kind\":\"preempt\",\"running_index\":%u,\"job_id\":%llu}\n", d[k].index,
                 (unsigned long long)id);
            r->preempts++;
            continue;
        }
        uint64_t id = d[k].index < r->n_ids ? r->ids[d[k].index] : 0;
        if (r->n_run_ids < r->cap_run_ids)
            r->run_ids[r->n_run_ids++] = id;
        tput(t, "{\"kind\":\"start\",\"queue_index\":%u,\"job_id\":%llu,\"parts\":", d[k].index,
             (unsigned long long)id);
        put_parts(t, d[k].parts, d[k].n_parts);
        tput(t, "}\n");
    }
    r->ts_samples += r->s[r->n].with_ts;
    r->n++;
}

/* ------------------------------------------------------------------------- */
/* running the binary                                                         */

/* Run `tarmac place --policy SPEC FILE` on snapshot text; the decision lines of
 * its output (trailing commas removed) into out; returns the exit status. */
static int run_place(const char *bin, const char *spec, const char *snap, text *out, text *all)
{
    char path[] = "/tmp/tarmac_place_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    fputs(snap, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' place --policy '%s' '%s'", bin, spec, path);
    FILE *p = popen(cmd, "r");
    if (!p) {
        remove(path);
        return -1;
    }
    char line[65536];
    while (fgets(line, sizeof line, p)) {
        if (all)
            tput(all, "%s", line);
        if (strncmp(line, "{\"kind\"", 7) != 0)
            continue;
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ','))
            line[--n] = '\0';
        tput(out, "%s\n", line);
    }
    int st = pclose(p);
    remove(path);
    return st;
}

/* ------------------------------------------------------------------------- */
/* the workload                                                               */

typedef struct gen {
    uint64_t state, count, max;
    int64_t t_us;
    uint64_t l4_mask;
} gen;

static uint64_t lcg(gen *g)
{
    g->state = g->state * 6364136223846793005ull + 1442695040888963407ull;
    return g->state >> 33;
}

static int gen_next(void *ud, trace_job *j, tm_diag *diag)
{
    (void)diag;
    gen *g = ud;
    if (g->count == g->max)
        return TRACE_END;
    trace_job_defaults(j);
    j->id = ++g->count;
    g->t_us += (int64_t)(lcg(g) % 240) * 1000000; /* 0-4 min apart */
    j->submit_us = g->t_us;
    uint64_t kind = lcg(g) % 10;
    static const uint32_t gang[6] = {1, 1, 2, 4, 8, 8};
    if (kind < 3) {
        j->gpus = 1;
        static const uint32_t milli[4] = {250, 500, 700, 500};
        j->gpu_milli = milli[lcg(g) % 4];
        j->gpu_mem_mib = (uint32_t)(lcg(g) % 3) * 8192;
    } else if (kind < 9) {
        j->gpus = gang[lcg(g) % 6];
    } else {
        j->gpus = 12;
        j->flags = TRACE_JOB_CAN_SPAN;
    }
    if (lcg(g) % 5 == 0)
        j->type_mask = g->l4_mask;
    j->duration_us = (int64_t)(60 + lcg(g) % 7200) * 1000000;
    uint64_t e = lcg(g) % 4;
    j->estimate_us = e == 0 ? -1 : j->duration_us + (int64_t)(lcg(g) % 3600) * 1000000;
    j->tenant = (uint32_t)(lcg(g) % 3);
    j->cpu_milli = (int64_t)(lcg(g) % 4) * 4000;
    /* a third urgent; half of the rest may be preempted for them */
    if (lcg(g) % 3 == 0)
        j->priority = 5;
    else if (lcg(g) % 2 == 0)
        j->flags |= TRACE_JOB_PREEMPTIBLE;
    return TM_OK;
}

#define FLEET                                                                                      \
    "{\"name\":\"eq\",\"horizon\":\"3d\",\"stop\":\"horizon\",\"sample\":\"1h\","                  \
    "\"policy\":\"%s\",\"tenants\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}],"          \
    "\"fleet\":{\"pools\":["                                                                       \
    "{\"name\":\"big\",\"gpu_type\":\"H100\",\"nodes\":6,\"gpus_per_node\":8},"                    \
    "{\"name\":\"small\",\"gpu_type\":\"L4\",\"nodes\":4,\"gpus_per_node\":4,"                     \
    "\"cpu_cores\":48,\"host_mem_gib\":256,\"retired\":\"20h\"}]},"                                \
    "\"workload\":{\"classes\":[{\"name\":\"c\",\"arrival\":{\"rate_per_s\":0},"                   \
    "\"duration\":1}]}}"

static void compare_policy(const char *bin, const char *spec, uint64_t seed, int ts_mode)
{
    char json[2048];
    snprintf(json, sizeof json, FLEET, spec);
    sim_scenario sc;
    tm_diag d;
    int rc = sim_scenario_load_text(&sc, json, strlen(json), "eq", &d);
    if (rc != TM_OK) {
        check_fail(__FILE__, __LINE__, "%s: %s: %s", spec, d.where, d.msg);
        return;
    }
    int l4 = sim_catalog_find(sc.types, sc.n_types, "L4");
    CHECK(l4 >= 0);
    static recorder rec;
    for (uint32_t k = 0; k < MAX_SAMPLES; k++) {
        free(rec.s[k].snap.s);
        free(rec.s[k].want.s);
    }
    free(rec.ids);
    free(rec.run_ids);
    memset(&rec, 0, sizeof rec);
    rec.ts_mode = ts_mode;
    rec.first_only = strncmp(spec, "gavel", 5) == 0;
    sim_pass_hook hook = {hook_before, hook_after, &rec};
    sim_result res;
    /* twice, the same run: first to count the passes that decide, then to
     * keep about MAX_SAMPLES of them spread over the whole run */
    for (int pass = 0; pass < 2; pass++) {
        gen g = {seed, 0, 900, 0, l4 >= 0 ? 1ull << l4 : 0};
        trace_source src = {gen_next, NULL, &g};
        sim_run_opts opts = {.sources = &src, .n_sources = 1, .pass_hook = &hook};
        rec.count_only = pass == 0;
        rec.stride = 1;
        if (pass == 1) {
            rec.stride = rec.deciding / (MAX_SAMPLES - 4);
            if (rec.stride == 0)
                rec.stride = 1;
            rec.passes = rec.deciding = 0;
            rec.last_now_us = 0;
        }
        rc = sim_run(&sc, &opts, NULL, &res, &d);
        if (rc != TM_OK) {
            check_fail(__FILE__, __LINE__, "%s: run: %s: %s", spec, d.where, d.msg);
            sim_scenario_fini(&sc);
            return;
        }
        if (pass == 0)
            sim_result_fini(&res);
    }
    CHECK_EQ_INT(rec.bad_state, 0);
    CHECK(rec.n >= 10);
    uint32_t with_decisions = 0, lines = 0;
    for (uint32_t k = 0; k < rec.n; k++) {
        text got = {0};
        int st = run_place(bin, spec, rec.s[k].snap.s, &got, NULL);
        if (st != 0) {
            check_fail(__FILE__, __LINE__, "%s: sample %u: tarmac place exited %d", spec, k, st);
            free(got.s);
            continue;
        }
        const char *want = rec.s[k].want.s ? rec.s[k].want.s : "";
        const char *have = got.s ? got.s : "";
        if (strcmp(want, have) != 0) {
            check_fail(__FILE__, __LINE__,
                       "%s: sample %u: decisions differ\n--- simulator:\n%s"
                       "--- tarmac place:\n%s(seed %llu)",
                       spec, k, want, have, (unsigned long long)seed);
        }
        for (const char *p = want; *p; p++)
            lines += *p == '\n';
        with_decisions += want[0] != '\0';
        free(got.s);
    }
    printf("%-62s %2u snapshots (of %llu passes), %2u with decisions, %3u decisions equal, "
           "%u preemptions%s\n",
           spec, rec.n, (unsigned long long)rec.passes, with_decisions, lines, rec.preempts,
           ts_mode == TS_X       ? ", X given"
           : ts_mode == TS_SOLVE ? ", X solved by tarmac place"
                                 : "");
    if (ts_mode != TS_NONE)
        CHECK(rec.ts_samples >= 10); /* the timeshare is compared, not only FIFO rounds */
    CHECK(with_decisions >= 10);     /* the comparison covers real decisions */
    if (strstr(spec, "preempt=priority"))
        CHECK(rec.preempts > 0); /* and preemptions, where the policy preempts */
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
}

/* ------------------------------------------------------------------------- */
/* the protocol the engine does not model yet, by hand                        */

static void expect_lines(const char *bin, const char *spec, const char *snap, const char *want)
{
    text got = {0}, all = {0};
    int st = run_place(bin, spec, snap, &got, &all);
    CHECK_EQ_INT(st, 0);
    if (!got.s || strcmp(got.s, want) != 0)
        check_fail(__FILE__, __LINE__, "%s:\n--- want:\n%s--- got:\n%s", spec, want,
                   all.s ? all.s : "(nothing)");
    free(got.s);
    free(all.s);
}

static void test_preempt_and_route(const char *bin)
{
    /* node 0 (4 GPUs) runs A (2 GPUs, lost 100) and B (2 GPUs, lost 10), both
     * preemptible priority 1; node 1 (4 GPUs) runs C (4 GPUs, lost 50). The
     * queue: H (priority 5, 4 GPUs). Stopping C loses less than A + B:
     * PREEMPT C (running index 2), START H on node 1 on the GPUs C freed. */
    const char *snap =
        "{\"now_us\":1000,\"gpu_types\":[{\"name\":\"H100\",\"mem_mib\":81920}],"
        "\"nodes\":[{\"type\":\"H100\",\"gpus\":4},{\"type\":\"H100\",\"gpus\":4}],"
        "\"running\":["
        "{\"id\":11,\"gpus\":2,\"priority\":1,\"flags\":[\"preemptible\"],\"lost_gpu_s\":100,"
        "\"parts\":[{\"node\":0,\"gpus\":2,\"gpu_ids\":[0,1]}]},"
        "{\"id\":12,\"gpus\":2,\"priority\":1,\"flags\":[\"preemptible\"],\"lost_gpu_s\":10,"
        "\"parts\":[{\"node\":0,\"gpus\":2,\"gpu_ids\":[2,3]}]},"
        "{\"id\":13,\"gpus\":4,\"priority\":1,\"flags\":[\"preemptible\"],\"lost_gpu_s\":50,"
        "\"parts\":[{\"node\":1,\"gpus\":4,\"gpu_ids\":[0,1,2,3]}]}],"
        "\"queue\":[{\"id\":1,\"gpus\":4,\"priority\":5}]}";
    expect_lines(bin, "order=priority placement=best-fit preempt=priority", snap,
                 "{\"kind\":\"preempt\",\"running_index\":2,\"job_id\":13}\n"
                 "{\"kind\":\"start\",\"queue_index\":0,\"job_id\":1,\"parts\":[{\"node\":1,"
                 "\"gpus\":4,\"gpu\":null,\"milli\":1000,\"mem_mib\":0,\"gpu_ids\":[0,1,2,3]}]}\n");
    /* a replica of service 7 that fits no SLO-meeting type (type 1, speed 0,
     * is free; type 0 is full) is routed to the API; a batch job takes type 1 */
    const char *snap2 = "{\"now_us\":0,\"gpu_types\":[{\"name\":\"A\",\"mem_mib\":81920},"
                        "{\"name\":\"B\",\"mem_mib\":24576}],"
                        "\"nodes\":[{\"type\":\"A\",\"gpus\":2},{\"type\":\"B\",\"gpus\":2}],"
                        "\"running\":[{\"id\":20,\"gpus\":2,\"parts\":[{\"node\":0,\"gpus\":2,"
                        "\"gpu_ids\":[0,1]}]}],"
                        "\"queue\":[{\"id\":1,\"gpus\":1,\"group\":7,\"speed\":[1.5,0],"
                        "\"flags\":[\"service\",\"api_ok\"]},{\"id\":2,\"gpus\":1}]}";
    expect_lines(bin, "service=hybrid backfill=greedy", snap2,
                 "{\"kind\":\"route_api\",\"queue_index\":0,\"job_id\":1}\n"
                 "{\"kind\":\"start\",\"queue_index\":1,\"job_id\":2,\"parts\":[{\"node\":1,"
                 "\"gpus\":1,\"gpu\":null,\"milli\":1000,\"mem_mib\":0,\"gpu_ids\":[0]}]}\n");
}

/* EASY in a count pass (identical one-GPU nodes), where the composed policy
 * steps over the jobs hopeless() refuses once its reservation is held
 * (place__bf_skip_hopeless), by hand. Nodes 0 and 1 run jobs ending (by
 * estimate) 100 s and 300 s from now; nodes 2 and 3 are free. Job 1 (3 GPUs)
 * is blocked: its reservation starts in 100 s, when 3 units are free, and
 * leaves no extra unit. Job 2 (4 GPUs) has fewer free units than it needs;
 * job 3 (1 GPU, 500 s) would still run at the shadow time and take a unit
 * job 1 needs; job 4 ends before the shadow time and starts; then job 5 (10
 * s) does too when a unit is left (second case) and job 6 (3 GPUs) never. */
static void test_easy_count_skip(const char *bin)
{
    const char *head =
        "{\"now_us\":1000000,\"gpu_types\":[{\"name\":\"A\",\"mem_mib\":81920}],"
        "\"nodes\":[{\"type\":\"A\",\"gpus\":1},{\"type\":\"A\",\"gpus\":1},"
        "{\"type\":\"A\",\"gpus\":1},{\"type\":\"A\",\"gpus\":1}],"
        "\"running\":["
        "{\"id\":10,\"gpus\":1,\"estimate_us\":200000000,\"start_us\":0,"
        "\"end_estimate_us\":101000000,\"parts\":[{\"node\":0,\"gpus\":1,\"gpu_ids\":[0]}]},"
        "{\"id\":11,\"gpus\":1,\"estimate_us\":400000000,\"start_us\":0,"
        "\"end_estimate_us\":301000000,\"parts\":[{\"node\":1,\"gpus\":1,\"gpu_ids\":[0]}]}],"
        "\"queue\":["
        "{\"id\":1,\"gpus\":3,\"estimate_us\":1000000000,\"flags\":[\"can_span\"]},"
        "{\"id\":2,\"gpus\":4,\"estimate_us\":10000000,\"flags\":[\"can_span\"]},"
        "{\"id\":3,\"gpus\":1,\"estimate_us\":500000000},"
        "{\"id\":4,\"gpus\":";
    const char *tail = ",\"estimate_us\":50000000,\"flags\":[\"can_span\"]},"
                       "{\"id\":5,\"gpus\":1,\"estimate_us\":10000000},"
                       "{\"id\":6,\"gpus\":3,\"estimate_us\":10000000,\"flags\":[\"can_span\"]}]}";
    const char *spec = "order=fifo placement=first-fit backfill=easy";
    char snap[2048];
    /* job 4 takes both free units: jobs 5 and 6 are stepped over */
    snprintf(snap, sizeof snap, "%s%d%s", head, 2, tail);
    expect_lines(bin, spec, snap,
                 "{\"kind\":\"start\",\"queue_index\":3,\"job_id\":4,\"parts\":["
                 "{\"node\":2,\"gpus\":1,\"gpu\":null,\"milli\":1000,\"mem_mib\":0,"
                 "\"gpu_ids\":[0]},{\"node\":3,\"gpus\":1,\"gpu\":null,\"milli\":1000,"
                 "\"mem_mib\":0,\"gpu_ids\":[0]}]}\n");
    /* job 4 takes one: job 5 (ends before the shadow time) takes the other */
    snprintf(snap, sizeof snap, "%s%d%s", head, 1, tail);
    expect_lines(bin, spec, snap,
                 "{\"kind\":\"start\",\"queue_index\":3,\"job_id\":4,\"parts\":[{\"node\":2,"
                 "\"gpus\":1,\"gpu\":null,\"milli\":1000,\"mem_mib\":0,\"gpu_ids\":[0]}]}\n"
                 "{\"kind\":\"start\",\"queue_index\":4,\"job_id\":5,\"parts\":[{\"node\":3,"
                 "\"gpus\":1,\"gpu\":null,\"milli\":1000,\"mem_mib\":0,\"gpu_ids\":[0]}]}\n");
}

int main(void)
{
    const char *bin = getenv("TARMAC_BIN");
    if (!bin || !*bin)
        return check_skip("TARMAC_BIN is not set (run through ctest)");
    uint64_t seed = check_seed(2024);
    const char *specs[] = {
        "order=fifo placement=first-fit backfill=none",
        "order=fifo placement=best-fit backfill=none",
        "order=fifo placement=best-fit backfill=greedy",
        "order=fifo placement=first-fit backfill=easy",
        "order=sjf placement=best-fit backfill=conservative",
        "order=fifo placement=fgd backfill=greedy",
        "order=fifo placement=fgd:0.25@20,0.5@20,0.7@10,1@20,2@10,4@10,8@10 backfill=easy",
        "order=drf placement=topology backfill=greedy",
        "order=priority placement=best-fit backfill=greedy preempt=priority",
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++)
        compare_policy(bin, specs[k], seed, TS_NONE);
    /* Gavel's rounds: the engine's X handed over, and X solved again by
     * tarmac place from the jobs and the seconds they received (max-min
     * needs nothing more; fifo's solve keeps each job's previous row, which
     * a snapshot without X does not carry, so fifo is compared with X only) */
    compare_policy(bin, "gavel max-min@600", seed, TS_X);
    compare_policy(bin, "gavel fifo@600", seed, TS_X);
    compare_policy(bin, "gavel max-min@600", seed, TS_SOLVE);
    test_preempt_and_route(bin);
    test_easy_count_skip(bin);
    return check_finish("test_place_json");
}
