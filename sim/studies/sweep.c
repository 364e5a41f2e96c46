/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.c — the points of a sweep: running one, checking its file, recording
 * its failure, running a share of them on local workers (API and rules:
 * sweep_int.h; format: docs/sweeps.md).
 *
 * A point of kind scenario is `tarmac run` of the base scenario with the
 * point's parameters set, at the point's replication: sim_study_run writes
 * the normal run report under a private name, then h5io reopens it as the
 * temporary file of the point's final name (sim__h5w_open_edit), adds
 * /sweep_point and commits. A point of kind pack is one seed of `tarmac
 * replay --protocol pack` (sim_pack_run_reps at the point's replication, so
 * it equals seed k of a full replay), written the same way. Either way the
 * final name only ever holds a complete file.
 *
 * Merging lives in sweep_merge.c; MPI in sweep_mpi.c.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "studies/sweep_int.h"

#include "base/afile_int.h"
#include "output/h5io_int.h"
#include "version.h"
#include "studies/work_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sim__sweep_open(sim__sweep *sw, const char *path, const char *dir, tm_diag *diag)
{
    memset(sw, 0, sizeof *sw);
    int rc = sim_sweep_load(&sw->spec, path, diag);
    if (rc)
        return rc;
    sw->n_points = sw->spec.n_combos * sw->spec.replications;
    if (dir && *dir) {
        snprintf(sw->dir, sizeof sw->dir, "%s", dir);
    } else if (sw->spec.output[0]) {
        snprintf(sw->dir, sizeof sw->dir, "%s", sw->spec.output);
    } else {
        size_t n = strlen(path);
        if (n > 5 && strcmp(path + n - 5, ".json") == 0)
            n -= 5;
        snprintf(sw->dir, sizeof sw->dir, "%.*s.points", (int)n, path);
    }
    size_t n = strlen(sw->dir);
    while (n > 1 && sw->dir[n - 1] == '/')
        sw->dir[--n] = '\0';
    /* a parameter path the base does not have is the sweep file's mistake:
     * found now, before any point runs (a bad value fails its points only) */
    for (size_t c = 0; c < sw->spec.n_combos; c++) {
        char *json = NULL;
        rc = sim_sweep_apply(&sw->spec, c, &json, NULL, diag);
        free(json);
        if (rc) {
            sim__sweep_close(sw);
            return rc;
        }
    }
    return TM_OK;
}

void sim__sweep_close(sim__sweep *sw)
{
    if (!sw)
        return;
    sim_sweep_fini(&sw->spec);
    free(sw->pods);
    if (sw->have_fleet)
        sim_scenario_fini(&sw->fleet);
    memset(sw, 0, sizeof *sw);
}

int sim__sweep_mkdir(const sim__sweep *sw, tm_diag *diag)
{
    if (mkdir(sw->dir, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(sw->dir, &st) == 0 && S_ISDIR(st.st_mode))
            return TM_OK;
        return tm_diag_set(diag, TM_ERR_CANTCREAT, sw->dir, "exists and is not a folder");
    }
    return tm_diag_set(diag, TM_ERR_CANTCREAT, sw->dir, "cannot create the points folder: %s",
                       strerror(errno));
}

void sim__sweep_point_of(const sim__sweep *sw, size_t i, size_t *combo, uint32_t *rep)
{
    *combo = i / sw->spec.replications;
    *rep = (uint32_t)(i % sw->spec.replications);
}

int sim__sweep_in_shard(size_t i, uint32_t k, uint32_t n)
{
    return n <= 1 || i % n == k;
}

void sim__sweep_point_path(const sim__sweep *sw, size_t i, char *buf, size_t n)
{
    snprintf(buf, n, "%s/p%06zu.h5", sw->dir, i);
}

void sim__sweep_failed_path(const sim__sweep *sw, size_t i, char *buf, size_t n)
{
    snprintf(buf, n, "%s/p%06zu.failed", sw->dir, i);
}

/* FNV-1a, 64 bits: a fingerprint, not a defence against forgery. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static int point_json(const sim__sweep *sw, size_t i, char **json, sim__sweep_point_info *pi,
                      tm_diag *diag)
{
    memset(pi, 0, sizeof *pi);
    if (i >= sw->n_points)
        return tm_diag_set(diag, TM_ERR_USAGE, sw->spec.path, "no point %zu (the sweep has %zu)", i,
                           sw->n_points);
    sim__sweep_point_of(sw, i, &pi->combo, &pi->replication);
    int rc = sim_sweep_apply(&sw->spec, pi->combo, json, &pi->seed, diag);
    if (rc)
        return rc;
    uint32_t purpose =
        sw->spec.kind == SIM_SWEEP_PACK ? SIM_STREAM_PACK_ORDER : SIM_STREAM_ARRIVALS;
    pi->stream_seed = sim_rng_seed(pi->seed, pi->replication, purpose, 0);
    char head[160];
    int hn = snprintf(head, sizeof head, "tarmac %s\nkind %d\nreplication %u\n", TARMAC_VERSION,
                      (int)sw->spec.kind, pi->replication);
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, head, (size_t)hn);
    h = fnv(h, *json, strlen(*json) + 1);
    /* the base's file as it resolves, so that the sweep file named by another
     * path (absolute, or from another folder) finds its points valid */
    char *real = realpath(sw->spec.base_name, NULL);
    const char *base = real ? real : sw->spec.base_name;
    h = fnv(h, base, strlen(base) + 1);
    free(real);
    snprintf(pi->fingerprint, sizeof pi->fingerprint, "%016llx", (unsigned long long)h);
    return TM_OK;
}

int sim__sweep_point_info_get(const sim__sweep *sw, size_t i, sim__sweep_point_info *pi,
                              tm_diag *diag)
{
    char *json = NULL;
    int rc = point_json(sw, i, &json, pi, diag);
    free(json);
    return rc;
}

int sim__sweep_point_valid(const sim__sweep *sw, size_t i)
{
    char path[1100];
    sim__sweep_point_path(sw, i, path, sizeof path);
    sim__sweep_point_info pi;
    if (sim__sweep_point_info_get(sw, i, &pi, NULL) != TM_OK)
        return 0;
    sim__h5r *r;
    if (sim__h5r_open(&r, path, NULL) != TM_OK)
        return 0;
    char *fp = NULL;
    int64_t idx = -1;
    const char *key = sw->spec.kind == SIM_SWEEP_PACK ? "/packing/arrived_pct" : "/summary/events";
    int ok = sim__h5r_scalar_str(r, "/sweep_point/fingerprint", &fp, NULL) == TM_OK &&
             strcmp(fp, pi.fingerprint) == 0 &&
             sim__h5r_scalar_i64(r, "/sweep_point/point", &idx, NULL) == TM_OK &&
             idx == (int64_t)i && sim__h5r_exists(r, key);
    free(fp);
    sim__h5r_close(r);
    return ok;
}

void sim__sweep_clean_temps(const sim__sweep *sw, size_t i)
{
    char h5[32], failed[32];
    int nh = snprintf(h5, sizeof h5, "p%06zu.h5.", i);
    int nf = snprintf(failed, sizeof failed, "p%06zu.failed.", i);
    DIR *d = opendir(sw->dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, h5, (size_t)nh) != 0 && strncmp(e->d_name, failed, (size_t)nf) != 0)
            continue;
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", sw->dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

/* ------------------------------------------------------------------------- */
/* one point                                                                  */

/* /sweep_point: who the point is, its parameters, its fingerprint. */
static int write_point_group(sim__h5w *w, const sim__sweep *sw, size_t i,
                             const sim__sweep_point_info *pi, tm_diag *diag)
{
    const sim_sweep_spec *s = &sw->spec;
    int rc;
    if ((rc = sim__h5w_group(w, "/sweep_point", diag)) ||
        (rc = sim__h5w_attr_str(w, "/sweep_point", "description",
                                "this file is one point of a sweep (docs/sweeps.md)", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep_point/point", (int64_t)i, "1",
                                  "the point's index in the sweep", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep_point/combo", (int64_t)pi->combo, "1",
                                  "its combination of parameter values", diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep_point/replication", pi->replication, "1",
                                  "its replication (selects the random streams, docs/rng.md)",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/sweep_point/seed", (int64_t)pi->seed, "1",
                                  "its seed: the base's seed after the parameters", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep_point/fingerprint", pi->fingerprint,
                                  "hash of what the result depends on (resume checks it)", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/sweep_point/sweep_file", s->path, "the sweep file", diag)) ||
        (rc = sim__h5w_group(w, "/sweep_point/params", diag)))
        return rc;
    const sim_sweep_value *row = &s->values[pi->combo * s->n_params];
    for (size_t p = 0; p < s->n_params; p++) {
        char path[400];
        snprintf(path, sizeof path, "/sweep_point/params/%s", s->params[p]);
        if ((rc = sim__h5w_scalar_str(w, path, row[p].text,
                                      "the parameter's value (a string's contents, else its JSON); "
                                      "empty: the base's own value",
                                      diag)) ||
            (rc = sim__h5w_attr_str(w, path, "json", row[p].json ? row[p].json : "", diag)))
            return rc;
    }
    return TM_OK;
}

/* The report at tmp becomes the point file: /sweep_point added, committed
 * under the final name. */
static int finish_point(const sim__sweep *sw, size_t i, const sim__sweep_point_info *pi,
                        const char *tmp, const char *final, volatile int *stop, tm_diag *diag)
{
    sim__h5w *w;
    int rc = sim__h5w_open_edit(&w, tmp, final, diag);
    if (rc)
        return rc;
    sim__h5w_set_stop(w, stop);
    if ((rc = write_point_group(w, sw, i, pi, diag))) {
        sim__h5w_abort(w);
        return rc;
    }
    return sim__h5w_commit(w, diag);
}

static int run_scenario_point(const sim__sweep *sw, const char *json, uint32_t rep,
                              volatile int *stop, const char *tmp, tm_diag *diag)
{
    sim_scenario sc;
    int rc = sim_scenario_load_text(&sc, json, strlen(json), sw->spec.base_name, diag);
    if (rc == TM_OK) {
        sim_run_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.replication = rep;
        ro.stop_flag = stop;
        sim_result res;
        rc = sim_study_run(&sc, &ro, tmp, &res, diag);
        if (rc == TM_OK)
            sim_result_fini(&res);
    }
    sim_scenario_fini(&sc);
    return rc;
}

/* The node list as a scenario and the pod list as jobs, as `tarmac replay
 * --format openb --protocol pack --nodes` reads them; kept for the next point
 * with the same files. */
static int load_pack_inputs(sim__sweep *sw, const sim_sweep_pack *pk, tm_diag *diag)
{
    int rc;
    trace_read_opts o;
    const char *types[PLACE_MAX_TYPES];
    if (!sw->have_fleet || strcmp(sw->nodes_path, pk->nodes) != 0) {
        if (sw->have_fleet)
            sim_scenario_fini(&sw->fleet);
        sw->have_fleet = 0;
        sw->pods_path[0] = '\0'; /* the pods' type masks follow the fleet's types */
        if ((rc = sim_scenario_init_replay(&sw->fleet, "openb", diag)))
            return rc;
        sw->have_fleet = 1;
        trace_node_source ns;
        trace_read_opts_init(&o);
        o.any_order = 1;
        o.n_types = sim_scenario_type_names(&sw->fleet, types);
        o.type_names = types;
        if ((rc = trace_openb_nodes_open(&ns, pk->nodes, &o, diag)))
            goto fail;
        uint64_t cpu_only = 0;
        rc = sim_scenario_add_nodes(&sw->fleet, &ns, &cpu_only, diag);
        ns.close(ns.ud);
        if (rc)
            goto fail;
        if (sw->fleet.n_pools == 0) {
            rc = tm_diag_set(diag, TM_ERR_TRACE, pk->nodes, "expected GPU nodes, got none");
            goto fail;
        }
        snprintf(sw->nodes_path, sizeof sw->nodes_path, "%s", pk->nodes);
    }
    if (strcmp(sw->pods_path, pk->pods) != 0) {
        free(sw->pods);
        sw->pods = NULL;
        sw->n_pods = 0;
        trace_read_opts_init(&o);
        o.any_order = 1;
        o.n_types = sim_scenario_type_names(&sw->fleet, types);
        o.type_names = types;
        trace_source src;
        if ((rc = trace_openb_pods_open(&src, pk->pods, &o, diag)))
            return rc;
        size_t cap = 0;
        trace_job j;
        while ((rc = src.next(src.ud, &j, diag)) == TM_OK) {
            if (sw->n_pods == cap) {
                size_t nc = cap ? 2 * cap : 1024;
                trace_job *p = realloc(sw->pods, nc * sizeof *p);
                if (!p) {
                    rc = tm_diag_set(diag, TM_ERR_NOMEM, pk->pods, "out of memory");
                    break;
                }
                sw->pods = p;
                cap = nc;
            }
            sw->pods[sw->n_pods++] = j;
        }
        src.close(src.ud);
        if (rc != TRACE_END) {
            free(sw->pods);
            sw->pods = NULL;
            sw->n_pods = 0;
            return rc;
        }
        snprintf(sw->pods_path, sizeof sw->pods_path, "%s", pk->pods);
    }
    return TM_OK;
fail:
    sim_scenario_fini(&sw->fleet);
    sw->have_fleet = 0;
    sw->nodes_path[0] = '\0';
    return rc;
}

static int run_pack_point(sim__sweep *sw, const char *json, uint32_t rep, volatile int *stop,
                          const char *tmp, tm_diag *diag)
{
    sim_sweep_pack pk;
    int rc = sim_sweep_pack_parse(json, sw->spec.base_name, &pk, diag);
    if (rc || (rc = load_pack_inputs(sw, &pk, diag)))
        return rc;
    const char *pol[1] = {pk.policy};
    sim_pack_cfg cfg = {pk.target_pct, pk.step_pct, pk.seed, 1, pol, 1, 0};
    sim_pack_result res;
    if ((rc = sim_pack_run_reps(&sw->fleet, sw->pods, sw->n_pods, &cfg, rep, stop, &res, diag)))
        return rc;
    rc = sim_pack_write_h5(&res, &cfg, pk.pods, tmp, diag);
    sim_pack_result_fini(&res);
    return rc;
}

int sim__sweep_run_point(sim__sweep *sw, size_t i, volatile int *stop, tm_diag *diag)
{
    tm_diag_clear(diag);
    char *json = NULL;
    sim__sweep_point_info pi;
    int rc = point_json(sw, i, &json, &pi, diag);
    if (rc)
        return rc;
    char final[1100], tmp[1200];
    sim__sweep_point_path(sw, i, final, sizeof final);
    /* a private name for the report before it gets /sweep_point: "p….h5.run.<pid>",
     * which clean_temps recognizes */
    snprintf(tmp, sizeof tmp, "%s.run.%ld", final, (long)getpid());
    if (sw->spec.kind == SIM_SWEEP_PACK)
        rc = run_pack_point(sw, json, pi.replication, stop, tmp, diag);
    else
        rc = run_scenario_point(sw, json, pi.replication, stop, tmp, diag);
    free(json);
    if (rc == TM_OK && stop && *stop) {
        unlink(tmp);
        return tm_diag_set(diag, TM_ERR_INTERRUPTED, final, "interrupted");
    }
    if (rc == TM_OK)
        rc = finish_point(sw, i, &pi, tmp, final, stop, diag);
    else
        unlink(tmp);
    return rc;
}

/* Write `text` to path atomically (base/afile: a temporary name, fsync,
 * rename). */
static int write_text_atomic(const char *path, const char *text, tm_diag *diag)
{
    sim__afile af;
    int rc = sim__afile_open(&af, path, diag);
    if (rc != TM_OK)
        return rc;
    fputs(text, af.f); /* a failure shows in commit's check of the stream */
    return sim__afile_commit(&af, diag);
}

int sim__sweep_record(const sim__sweep *sw, size_t i, int rc, const tm_diag *d, tm_diag *diag)
{
    char path[1100];
    sim__sweep_failed_path(sw, i, path, sizeof path);
    if (rc == TM_OK) {
        if (unlink(path) != 0 && errno != ENOENT)
            return tm_diag_set(diag, TM_ERR_IO, path, "cannot remove: %s", strerror(errno));
        return TM_OK;
    }
    if (rc == TM_ERR_INTERRUPTED)
        return TM_OK;
    size_t combo;
    uint32_t rep;
    sim__sweep_point_of(sw, i, &combo, &rep);
    char text[1400], msg[1100];
    snprintf(msg, sizeof msg, "%s%s%s", d && d->where[0] ? d->where : "",
             d && d->where[0] ? ": " : "", d && d->msg[0] ? d->msg : tm_strerror(rc));
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    snprintf(text, sizeof text,
             "point %zu\ncombination %zu\nreplication %u\nstatus %s %d\nerror %s\n", i, combo, rep,
             tm_status_name(rc), tm_status_exit_code(rc), msg);
    return write_text_atomic(path, text, diag);
}

/* ------------------------------------------------------------------------- */
/* a share of the points on local workers                                     */

int sim__sweep_todo(const sim__sweep *sw, const sim__sweep_run_opts *o, size_t **todo, size_t *n,
                    sim__sweep_counts *c, tm_diag *diag)
{
    *todo = NULL;
    *n = 0;
    memset(c, 0, sizeof *c);
    if (o->point >= 0 && (size_t)o->point >= sw->n_points)
        return tm_diag_set(diag, TM_ERR_USAGE, "--point",
                           "no point %ld: the sweep has %zu (0 .. %zu)", o->point, sw->n_points,
                           sw->n_points ? sw->n_points - 1 : 0);
    size_t cap = o->point >= 0 ? 1 : sw->n_points / (o->shard_n ? o->shard_n : 1) + 1;
    size_t *t = malloc(cap * sizeof *t);
    if (!t)
        return tm_diag_set(diag, TM_ERR_NOMEM, "sweep", "out of memory");
    for (size_t i = 0; i < sw->n_points; i++) {
        if (o->point >= 0 ? i != (size_t)o->point : !sim__sweep_in_shard(i, o->shard_k, o->shard_n))
            continue;
        if (o->resume && sim__sweep_point_valid(sw, i)) {
            c->skipped++;
            continue;
        }
        t[(*n)++] = i;
    }
    c->todo = *n;
    *todo = t;
    return TM_OK;
}

void sim__sweep_point_done(const sim__sweep *sw, size_t i, int rc, const tm_diag *d,
                           sim__sweep_counts *c, size_t n_todo, FILE *log)
{
    tm_diag rd;
    int rrc = sim__sweep_record(sw, i, rc, d, &rd);
    size_t done = c->ok + c->failed + c->interrupted + 1;
    if (rc == TM_OK)
        c->ok++;
    else if (rc == TM_ERR_INTERRUPTED)
        c->interrupted++;
    else
        c->failed++;
    if (log) {
        if (rc == TM_OK)
            fprintf(log, "[%zu/%zu] point %zu ok\n", done, n_todo, i);
        else if (rc == TM_ERR_INTERRUPTED)
            fprintf(log, "[%zu/%zu] point %zu interrupted\n", done, n_todo, i);
        else
            fprintf(log, "[%zu/%zu] point %zu FAILED: %s%s%s\n", done, n_todo, i,
                    d && d->where[0] ? d->where : "", d && d->where[0] ? ": " : "",
                    d && d->msg[0] ? d->msg : tm_strerror(rc));
        fflush(log);
    }
    if (rrc != TM_OK)
        fprintf(stderr, "tarmac: %s: %s\n", rd.where, rd.msg);
}

typedef struct local_ctx {
    sim__sweep *sw;
    const size_t *todo;
    size_t n;
    const sim__sweep_run_opts *o;
    sim__sweep_counts *c;
} local_ctx;

static int local_job(void *ud, size_t job, void *out, tm_diag *diag)
{
    (void)out;
    local_ctx *x = ud;
    return sim__sweep_run_point(x->sw, x->todo[job], x->o->stop_flag, diag);
}

static void local_done(void *ud, size_t job, int rc, const tm_diag *d, const void *out)
{
    (void)out;
    local_ctx *x = ud;
    sim__sweep_point_done(x->sw, x->todo[job], rc, d, x->c, x->n, x->o->log);
}

int sim__sweep_run_local(sim__sweep *sw, const size_t *todo, size_t n, const sim__sweep_run_opts *o,
                         sim__sweep_counts *c, tm_diag *diag)
{
    int rc = sim__sweep_mkdir(sw, diag);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++)
        sim__sweep_clean_temps(sw, todo[k]);
    local_ctx x = {sw, todo, n, o, c};
    sim__work_opts wo = {o->workers, 0, 0, o->stop_flag, local_done};
    rc = sim__work_run(n, local_job, &x, &wo, NULL, NULL, NULL, diag);
    if (rc == TM_ERR_INTERRUPTED)
        tm_diag_set(diag, rc, "sweep",
                    "interrupted while running the points (%zu of %zu done; `tarmac sweep run "
                    "--resume` runs the rest)",
                    c->ok + c->failed, n);
    /* failed points are recorded, not fatal */
    if (rc != TM_OK && rc != TM_ERR_INTERRUPTED && c->ok + c->failed + c->interrupted == n)
        rc = TM_OK;
    return rc;
}
