/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_int.h — what the files of config/ share: the loader state, the
 * JSON readers (json.c) and the sections one file reads for another.
 *
 * Every reader takes the loader, writes a failure into its diagnostic as
 * "file: json.path" and "what was expected, what was found", and returns
 * the status (TM_ERR_SCENARIO for a wrong value, TM_ERR_NOMEM...), so that
 * a section reads as a chain of `(rc = sim__cfg_get_...(...)) ||`. A
 * missing optional member leaves the output as it was: callers set
 * defaults first. The cJSON tree is read and freed by the public function
 * that parsed it; nothing keeps a pointer into it.
 *
 * Only config/ includes this header, and only config/ includes cJSON.
 */
#ifndef TARMAC_CONFIG_INT_H
#define TARMAC_CONFIG_INT_H

#include "config/config.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cJSON cJSON;

/* A JSON path in messages ("workload.classes[1].arrival.daily[3]"): one
 * that does not fit is cut short with "...". */
#define SIM__PATH_MAX_LEN 256
/* Scenario (and fleet and sweep) files are small; a bound keeps a hostile
 * input from eating memory. */
#define SIM__SCENARIO_MAX_BYTES (64u << 20)

/* How many of each a scenario may have (scenarios/SCHEMA.md, "Ranges"): the
 * loader's memory and time are near-linear in each, and these keep a small
 * hostile file from asking for gigabytes (a class keeps a distribution over
 * the tenants). Admission (admit.c) bounds the work a run would do. */
#define SIM__MAX_POOLS    1000000
#define SIM__MAX_CLASSES  1000
#define SIM__MAX_SERVICES 1000
#define SIM__MAX_TENANTS  1000
/* The longest horizon: 100 years of 365.25 days (36525 days). */
#define SIM__HORIZON_MAX_US ((int64_t)36525 * 86400 * SIM_US_PER_S)

/* The state of one load: where messages go and what is being filled. */
typedef struct sim__loader {
    const char *file; /* for messages */
    char dir[512];    /* folder of the file, for relative paths */
    tm_diag *diag;
    sim_scenario *sc; /* NULL for snapshots and sweep files */
} sim__loader;

/* ------------------------------------------------------------------------- */
/* json.c: parsing, paths, messages, typed readers                           */

/* Parse `len` bytes (the terminating NUL included) through the allocation
 * hooks; *oom tells whether a failure was for want of memory. With `end`,
 * the text must hold one value and nothing after it, and *end points where
 * the parse stopped. */
cJSON *sim__json_parse(const char *text, size_t len, const char **end, int *oom);
/* Install the allocation hooks and forget earlier failures; then
 * sim__json_oom_seen tells whether any cJSON allocation since has failed
 * (for trees built without checking each call). */
void sim__json_track_oom(void);
int sim__json_oom_seen(void);
/* TM_OK, or TM_ERR_SCENARIO naming the JSON path of the first string or key
 * of text (len bytes, as cJSON accepted it) that holds the escape \u0000,
 * which cJSON's C strings would cut short. */
int sim__json_no_nul(sim__loader *L, const char *text, size_t len);
/* Line and column (from 1) of `at` in text, for syntax errors. */
void sim__json_line_col(const char *text, const char *at, int *line, int *col);

/* path + "." + key, and path + "[i]", into out[SIM__PATH_MAX_LEN]. */
void sim__json_child(char *out, const char *path, const char *key);
void sim__json_element(char *out, const char *path, int i);
/* "a string", "a number", ... "nothing" for NULL: for "got ..." messages. */
const char *sim__json_kind(const cJSON *v);
/* The member `key` of object o (case-sensitive), or NULL. */
const cJSON *sim__json_member(const cJSON *o, const char *key);

/* Fill the diagnostic ("file: path", the message) and return TM_ERR_SCENARIO. */
int sim__cfg_fail(sim__loader *L, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fill the diagnostic with out of memory and return TM_ERR_NOMEM. */
int sim__cfg_oom(sim__loader *L);
/* o is an object whose keys are all in the NULL-terminated `keys`, each
 * once; the message lists the keys allowed. */
int sim__cfg_check_object(sim__loader *L, const cJSON *o, const char *path,
                          const char *const *keys);

/* The readers of member `key` of o (at `path`). get_string: a string shorter
 * than n, or `def` when absent (NULL: required). get_number: a finite number
 * in [lo, hi]. get_int: an integer in [lo, hi]. get_bool: true or false.
 * get_duration: seconds or a string with a unit, into microseconds. */
int sim__cfg_get_string(sim__loader *L, const cJSON *o, const char *path, const char *key,
                        char *out, size_t n, const char *def);
/* sim__cfg_get_string of a name (a pool, type, class, service or tenant),
 * held to the name rule: not empty, valid UTF-8, no '/', no control
 * character, not "." or "..". */
int sim__cfg_get_name(sim__loader *L, const cJSON *o, const char *path, const char *key, char *out,
                      size_t n, const char *def);
/* sim__cfg_get_string of text that is printed (a scenario's name, a model):
 * valid UTF-8 without control characters, but newline and tab when `lines`
 * (a description). */
int sim__cfg_get_text(sim__loader *L, const cJSON *o, const char *path, const char *key, char *out,
                      size_t n, const char *def, int lines);
int sim__cfg_get_number(sim__loader *L, const cJSON *o, const char *path, const char *key,
                        double *out, double lo, double hi, int required);
int sim__cfg_get_int(sim__loader *L, const cJSON *o, const char *path, const char *key,
                     int64_t *out, int64_t lo, int64_t hi, int required);
int sim__cfg_get_bool(sim__loader *L, const cJSON *o, const char *path, const char *key, int *out);
int sim__cfg_get_duration(sim__loader *L, const cJSON *o, const char *path, const char *key,
                          int64_t *us, int required);
/* A duration value v (at path p) in seconds: "90s", "15m", "2.5h", "30d",
 * "1w", "500ms", "10us", or a number of seconds. */
int sim__cfg_duration_value(sim__loader *L, const cJSON *v, const char *p, double *seconds);
/* Names must differ (pools, classes, services, tenants): n names, the
 * first at `first` and each `stride` bytes after the one before (a name
 * member of an array of structs). *repeat gets the smallest index whose name
 * equals an earlier one's, or n when all differ. O(n log n): a fleet file may
 * hold 10^5 pools, and comparing each name with every earlier one took 20 s.
 * TM_ERR_NOMEM when the sort's array cannot be allocated. */
int sim__names_first_repeat(const char *first, size_t n, size_t stride, size_t *repeat);

/* A data path: "data:REL" is relative to TARMAC_DATA_DIR (default
 * ../shared/data), an absolute path is itself, anything else is relative to
 * the loaded file's folder. */
void sim__cfg_resolve_path(const sim__loader *L, const char *in, char *out, size_t n);

/* snapshot_sched.c: a snapshot's "timeshare" and "service_dist", read after
 * its jobs (a row names a job by id) */
int sim__snap_sched(sim__loader *L, sim_snapshot *s, const cJSON *root);
void sim__snap_sched_fini(sim_snapshot *s);

/* ------------------------------------------------------------------------- */
/* the sections, each read by its own file                                    */

/* fleet.c: the catalog plus "gpu_types" (arr may be NULL) into sc->types;
 * a type by name (the message names path p); the pools; the GPUs in service
 * at time 0 (for offered_load). */
int sim__cfg_load_types(sim__loader *L, const cJSON *arr);
int sim__cfg_find_type(sim__loader *L, const char *p, const char *name, uint32_t *out);
int sim__cfg_load_fleet(sim__loader *L, const cJSON *fleet);
double sim__cfg_gpus_at_start(const sim_scenario *sc);

/* dist.c: a distribution of numbers or of durations (in seconds) at path p;
 * a sampler's status and message `sub` placed at path p. */
enum { SIM__VAL_NUMBER, SIM__VAL_DURATION };
int sim__cfg_load_dist(sim__loader *L, const cJSON *v, const char *p, int kind, trace_dist *d);
int sim__cfg_dist_diag(sim__loader *L, const char *p, int rc, tm_diag *sub);

/* workload.c: "workload" (classes, and services through services.c); an
 * arrival process (offered_load NAN when a rate is given); the speed of
 * type t on a basis, relative to the reference type; a class's storage. */
int sim__cfg_load_workload(sim__loader *L, const cJSON *w);
int sim__cfg_load_arrival(sim__loader *L, const cJSON *o, const char *p, trace_arrival_cfg *a,
                          double *offered_load);
double sim__cfg_derived_speed(const sim_scenario *sc, sim_speed_basis basis, uint32_t t);
void sim__cfg_class_fini(sim_class_cfg *cc);

/* services.c: "workload.services" (arr may be NULL). */
int sim__cfg_load_services(sim__loader *L, const cJSON *arr);

/* cost_json.c: "cost" (o may be NULL: the defaults). */
int sim__cfg_load_cost(sim__loader *L, const cJSON *o);

/* The embedded default scenario (scenarios/enterprise.json, embedded at
 * build time): the text, and its length without the final NUL. */
extern const char sim__default_scenario[];
extern const size_t sim__default_scenario_len;

#endif
