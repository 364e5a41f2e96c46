/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.h — the config room of sim/ (docs/architecture.md): scenario JSON
 * into the model's typed structs (every default resolved, every error naming
 * the file and the JSON path), the resolved scenario back as JSON, the
 * fleet-only files and scenarios built from traces, cluster snapshots for
 * `tarmac place`, and sweep files. The only room that includes cJSON.
 */
#ifndef TARMAC_SIM_CONFIG_H
#define TARMAC_SIM_CONFIG_H

#include "model/model.h"

/* Load a scenario from a file (path) or from text (text != NULL, path names
 * it in messages). Unknown keys and wrong types are errors naming the JSON
 * path. The result is resolved: every default filled in. */
int sim_scenario_load_file(sim_scenario *sc, const char *path, tm_diag *diag);
int sim_scenario_load_text(sim_scenario *sc, const char *text, size_t len, const char *name,
                           tm_diag *diag);
/* The embedded default scenario. */
int sim_scenario_load_default(sim_scenario *sc, tm_diag *diag);
/* A scenario file (path; NULL: the embedded default) with n values replaced
 * before it is loaded: the JSON text values[i] (a text that is not JSON is
 * taken as a string) at paths[i], keys and [index] joined by '.' as in sweep
 * files (docs/sweeps.md, "Parameters"). A bad path is an error naming it.
 * (config/sweep_file.c, which owns the paths) */
int sim_scenario_load_set(sim_scenario *sc, const char *path, const char *const *paths,
                          const char *const *values, size_t n, tm_diag *diag);
void sim_scenario_fini(sim_scenario *sc);
/* A scenario to fill in code (trace replay): the catalog, the H100 reference,
 * one default tenant, no failures, no pools, no classes. */
int sim_scenario_init_code(sim_scenario *sc, const char *name, tm_diag *diag);
/* A class with every default the loader would give it (generic kind, speeds
 * derived from the scenario's types), no arrivals. */
void sim_scenario_class_defaults(const sim_scenario *sc, sim_class_cfg *cc, const char *name);
/* The resolved scenario as JSON text (malloc'd; NULL on out of memory). */
char *sim_scenario_resolved_json(const sim_scenario *sc);
/* The resolved cost section as JSON text (malloc'd; NULL on out of memory). */
char *sim__scenario_cost_json(const sim_scenario *sc);
/* The cJSON version tarmac runs with, for provenance. */
const char *sim_lib_version_cjson(void);

/* Load the fleet (and policy, types) of a scenario file, or of a fleet-only
 * file: {"pools": [...]} or {"fleet": {...}, "gpu_types": [...], "policy": ...}
 * without a workload. A missing workload becomes one placeholder class
 * "trace" (rate 0) that replay replaces. (config/fleet.c) */
int sim_scenario_load_fleet_file(sim_scenario *sc, const char *path, tm_diag *diag);

/* An empty scenario for replay built in code: the built-in catalog, no pools,
 * one class "trace", policy FCFS first-fit, stop = drain, seed 1. */
int sim_scenario_init_replay(sim_scenario *sc, const char *name, tm_diag *diag);
/* Add pools from a node list (consecutive identical nodes share a pool, so
 * node order is kept; CPU-only nodes are skipped and counted in *cpu_only).
 * Consumes the source (does not close it). */
int sim_scenario_add_nodes(sim_scenario *sc, trace_node_source *nodes, uint64_t *cpu_only,
                           tm_diag *diag);
/* Add the machine of an SWF header: info->nodes nodes of procs_per_node
 * processors, each processor a GPU of the type "SWF-PROC" (added to the
 * scenario's types; no GPU memory, no prices). */
int sim_scenario_add_swf_machine(sim_scenario *sc, const trace_swf_info *info, tm_diag *diag);
/* Replace the scenario's classes by n named classes (trace jobs carry class
 * indices 0..n-1). */
int sim_scenario_set_classes(sim_scenario *sc, const char *const *names, size_t n, tm_diag *diag);
/* The scenario's type names in type order into names[PLACE_MAX_TYPES]; returns
 * n_types. For trace_read_opts.type_names. */
size_t sim_scenario_type_names(const sim_scenario *sc, const char **names);

/* ------------------------------------------------------------------------- */
/* Admission (config/admit.c; docs/cli.md, "Limits")                        */

/* What a run may cost before it is refused. Each limit has a name for
 * --limit NAME=VALUE, a default that every example scenario passes with a
 * wide margin, and the most it may be raised to (past it the run's own
 * arithmetic would fail). */
typedef enum sim_limit_kind {
    SIM_LIMIT_ARRIVALS = 0, /* expected job arrivals over the horizon, per class and in all */
    SIM_LIMIT_REQUEST_RATE, /* peak offered load of one service, requests/s */
    SIM_LIMIT_NODES,        /* nodes in all pools */
    SIM_LIMIT_GPUS,         /* GPUs in all pools */
    SIM_LIMIT_TABLES, /* time-series tables: pools, GPU types in the fleet, classes, services */
    SIM_LIMIT_SERIES, /* time-series values: bins x columns */
    SIM_LIMIT_EVENTS, /* events and generator steps of a run */
    SIM_LIMIT_COUNT
} sim_limit_kind;

typedef struct sim_limit_info {
    const char *name;  /* as --limit takes it */
    double def, most;  /* default; the most it may be raised to */
    const char *units; /* what is counted, for messages and help */
} sim_limit_info;
extern const sim_limit_info sim_limit_table[SIM_LIMIT_COUNT];

typedef struct sim_limits {
    double max[SIM_LIMIT_COUNT];
} sim_limits;

/* Every limit at its default. */
void sim_limits_default(sim_limits *l);
/* Set one limit from "NAME=VALUE" (VALUE a number > 0, at most the limit's
 * `most`): 0, or -1 with what is wrong in err. */
int sim_limits_set(sim_limits *l, const char *spec, char *err, size_t n);

/* The work a run of a scenario would do, estimated from the resolved
 * scenario alone (nothing runs): closed forms and exact integrals of the
 * arrival intensities over the horizon. Indices are SIZE_MAX where there is
 * none. */
typedef struct sim_estimate {
    double arrivals;        /* expected job arrivals in all classes (max_jobs applied) */
    double class_arrivals;  /* ... in the class with the most */
    size_t arrivals_class;  /* that class */
    double requests;        /* expected requests offered to all services */
    double request_rate;    /* the highest offered load of a service over the horizon, 1/s */
    size_t request_service; /* that service */
    size_t pools;           /* pools */
    double nodes, gpus;     /* in all pools */
    double tables;          /* time-series tables of the run file */
    double bins, columns;   /* time-series bins over the horizon, columns (levels) per bin */
    double series;          /* bins x columns */
    double failures;        /* expected GPU failures over the horizon */
    double mmpp_changes;    /* expected MMPP state changes of the classes' generators */
    size_t mmpp_class;      /* the class with the most */
    double profile_steps;   /* hour windows the generators and services step through */
    double events;          /* 2 x arrivals + 2 x failures + the above + bins + 2 x pools */
} sim_estimate;

/* The estimate of scenario sc (any scenario the loader accepted). */
void sim_scenario_estimate(const sim_scenario *sc, sim_estimate *e);
/* Estimate sc (into *e when e is not NULL) and hold it to lim (NULL: the
 * defaults). TM_ERR_LIMIT over a limit, with diag "FILE: json.path" and a
 * message saying the estimate, the limit and the --limit that raises it. */
int sim_scenario_admit(const sim_scenario *sc, const sim_limits *lim, sim_estimate *e,
                       tm_diag *diag);
/* A count for people: "41000", "3.2e9"; "about " first when `about`; a value
 * past a double's range reads "more than 1e308". */
void sim_estimate_fmt(char *buf, size_t n, double x, int about);

/* ------------------------------------------------------------------------- */
/* Cluster snapshots for `tarmac place` (docs/place-json.md)                  */

/* Snapshots are read whole; a bound keeps a hostile input from eating memory. */
#define SIM_SNAPSHOT_MAX_BYTES (256u << 20)

typedef struct sim_snapshot_node {
    uint32_t type, gpus;
    int64_t cpu_milli, mem_mib; /* INT64_MAX / 4 when not given: no limit */
    int up;
    uint64_t gpus_down; /* bit g: GPU g of the node is out of service */
} sim_snapshot_node;

/* A cluster snapshot and pending work, as typed arrays (no pointer into the
 * JSON tree survives the parse). The running jobs' parts point into `parts`
 * and the jobs' speeds into `speeds`, both owned by the snapshot. */
typedef struct sim_snapshot {
    int64_t now_us;
    char policy[256]; /* "" when the input names none */
    uint64_t seed;
    uint32_t n_types;
    char type_name[PLACE_MAX_TYPES][SIM_NAME_MAX];
    uint32_t type_mem_mib[PLACE_MAX_TYPES];
    sim_snapshot_node *nodes;
    uint32_t n_nodes;
    place_running *running;
    uint32_t n_running;
    place_job *queue;
    uint32_t n_queue;
    place_part *parts;
    size_t n_parts, cap_parts;
    double *speeds;
    size_t n_speeds, cap_speeds;
    uint32_t *node_tenant; /* owner per node (PLACE_NONE shared); NULL when no node has one */
    /* "timeshare" (policy gavel): one row per job it names, ids ascending;
     * x is NULL when the rows give none (the caller solves X); left_s and
     * total_s are -1 where not given (config/snapshot_sched.c) */
    uint32_t n_ts;
    uint64_t *ts_id;
    uint32_t *ts_entry; /* the row's index in the JSON array, for messages */
    double *ts_x, *ts_recv_s, *ts_active_s, *ts_left_s, *ts_total_s;
    /* "service_dist" (tiresias-2dlas gittins=class): dist[k] for class k
     * (n == 0 where the snapshot gives none), pointing into sd_value/sd_prob */
    uint32_t n_service_dist;
    place_service_dist *service_dist;
    double *sd_value, *sd_prob;
} sim_snapshot;

/* Parse a snapshot (JSON text of len bytes; name for messages). Errors name
 * the JSON path and what was expected (TM_ERR_JSON, TM_ERR_SCENARIO,
 * TM_ERR_LIMIT, TM_ERR_NOMEM). On failure the snapshot is empty. Only the
 * form is checked here; whether the running jobs' allocations fit the nodes
 * is the caller's to check when it rebuilds the cluster. */
int sim_snapshot_parse(sim_snapshot *s, const char *text, size_t len, const char *name,
                       tm_diag *diag);
void sim_snapshot_fini(sim_snapshot *s);

/* ------------------------------------------------------------------------- */
/* Sweeps: the sweep file (config/sweep_file.c; format: docs/sweeps.md)      */

typedef enum sim_sweep_kind {
    SIM_SWEEP_SCENARIO = 0, /* a point is a run of a scenario (tarmac run) */
    SIM_SWEEP_PACK = 1,     /* a point is an openb packing run (tarmac replay --protocol pack) */
} sim_sweep_kind;

/* One parameter's value in one combination. */
typedef struct sim_sweep_value {
    char *json;    /* the value as JSON text; NULL where the combination keeps the base's */
    char *text;    /* for tables: a string's contents, else the JSON text; "" when json is NULL */
    int is_number; /* a JSON number, then also in `number` */
    double number;
} sim_sweep_value;

/* A sweep file, expanded: the base (a scenario, or a packing run), the
 * parameters (JSON paths into the base) and their values in every
 * combination. The combinations are the list's entries (one empty entry
 * without a list) times the grid in row-major order (the grid's last
 * parameter varies fastest); point i of the sweep is combination
 * i / replications, replication i % replications. */
typedef struct sim_sweep_spec {
    sim_sweep_kind kind;
    char path[1024];      /* the sweep file */
    char *text;           /* the sweep file as given */
    char *base;           /* the base as JSON text (a scenario file's text as given) */
    char base_name[1024]; /* the scenario file, or the sweep file when the base is embedded */
    uint32_t replications;
    char output[1024]; /* "output": the points folder, resolved; "" when not given */
    size_t n_params;
    char **params; /* JSON paths, list parameters first, then the grid's, as written */
    size_t n_combos;
    sim_sweep_value *values; /* [combo * n_params + param] */
} sim_sweep_spec;

/* Load and expand a sweep file. Errors name the file and the JSON path. */
int sim_sweep_load(sim_sweep_spec *s, const char *path, tm_diag *diag);
void sim_sweep_fini(sim_sweep_spec *s);
/* The base with combination `combo`'s values set at their paths, as JSON
 * text (malloc'd, the caller frees it), and its top-level "seed" (1 when
 * absent; seed may be NULL). A path through a missing object key creates it;
 * an array index must exist. */
int sim_sweep_apply(const sim_sweep_spec *s, size_t combo, char **json, uint64_t *seed,
                    tm_diag *diag);

/* A packing run of a sweep of kind pack, from the applied JSON; name (the
 * sweep file) is for messages and relative paths ("data:REL" is relative to
 * TARMAC_DATA_DIR, as in scenarios). */
typedef struct sim_sweep_pack {
    char pods[1024], nodes[1024]; /* openb pod list and node list, resolved */
    char policy[256];             /* placement-core specification */
    double target_pct, step_pct;  /* as sim_pack_cfg */
    uint64_t seed;                /* base seed; replication r uses streams of replication r */
} sim_sweep_pack;
int sim_sweep_pack_parse(const char *json, const char *name, sim_sweep_pack *out, tm_diag *diag);

#endif
