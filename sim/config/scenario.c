/*
 * scenario.c — the scenario loader: JSON text to a resolved sim_scenario.
 *
 * The only file that includes cJSON. The tree is converted to typed structs
 * at once and freed; nothing keeps a pointer into it. Every object's keys are
 * checked against the keys it may have, so a typo is an error, not a silent
 * default. Errors name the JSON path ("workload.classes[1].gpus") and say what
 * was expected and what was found; a syntax error names the line and column.
 *
 * Conventions (scenarios/SCHEMA.md is the user's reference):
 *   durations   a number of seconds, or a string with a unit: "90s", "15m",
 *               "2.5h", "30d", "1w" (also "us", "ms");
 *   rates       "rate_per_s" | "rate_per_hour" | "rate_per_day", or
 *               "offered_load" (fraction of the fleet's GPUs at time 0);
 *   memory      GiB in names ending in _gib;
 *   policy      a specification string ("order=fifo placement=best-fit"), or an
 *               object {"order": ..., "placement": ..., "backfill": ...}.
 */
#include "config/config.h"

#include "model/cost_int.h"
#include "model/service_int.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char sim__default_scenario[];
extern const size_t sim__default_scenario_len;

#define PATH_MAX_LEN 256
/* Scenario files are small; a bound keeps a hostile input from eating memory. */
#define SCENARIO_MAX_BYTES (64u << 20)

/* cJSON allocates through these, so that a parse that failed for want of
 * memory says so: cJSON itself reports an allocation failure as a syntax
 * error. The hooks are process-wide, and every cJSON user frees what it
 * parsed before it returns, so setting them before each parse is harmless. */
static _Thread_local int json_oom;

static void *json_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        json_oom = 1;
    return p;
}

static void json_free(void *p)
{
    free(p);
}

/* Parse `len` bytes (the terminating NUL included); *oom tells whether a
 * failure was for want of memory. */
static cJSON *json_parse(const char *text, size_t len, const char **end, int *oom)
{
    static cJSON_Hooks hooks = {json_malloc, json_free};
    cJSON_InitHooks(&hooks);
    json_oom = 0;
    cJSON *root =
        end ? cJSON_ParseWithLengthOpts(text, len, end, 1) : cJSON_ParseWithLength(text, len);
    *oom = !root && json_oom;
    return root;
}

typedef struct loader {
    const char *file; /* for messages */
    char dir[512];    /* folder of the file, for relative paths */
    tm_diag *diag;
    sim_scenario *sc;
} loader;

static int fail(loader *L, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(loader *L, const char *path, const char *fmt, ...)
{
    if (L->diag) {
        snprintf(L->diag->where, sizeof L->diag->where, "%s: %s", L->file, path);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->diag->msg, sizeof L->diag->msg, fmt, ap);
        va_end(ap);
    }
    return TM_ERR_SCENARIO;
}

/* JSON paths are for messages: one that does not fit is cut short with "...". */
static void path_cut(char *out, int written)
{
    if (written >= PATH_MAX_LEN)
        memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

static void child(char *out, const char *path, const char *key)
{
    path_cut(out, path[0] ? snprintf(out, PATH_MAX_LEN, "%s.%s", path, key)
                          : snprintf(out, PATH_MAX_LEN, "%s", key));
}

static void element(char *out, const char *path, int i)
{
    path_cut(out, snprintf(out, PATH_MAX_LEN, "%s[%d]", path, i));
}

/* A short description of a JSON value for "got ..." messages. */
static const char *kind_of(const cJSON *v)
{
    if (!v)
        return "nothing";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "an invalid value";
}

static int check_object(loader *L, const cJSON *o, const char *path, const char *const *keys)
{
    if (!cJSON_IsObject(o))
        return fail(L, path[0] ? path : "(top level)", "expected an object, got %s", kind_of(o));
    for (const cJSON *m = o->child; m; m = m->next) {
        int ok = 0;
        for (const char *const *k = keys; *k; k++)
            if (strcmp(m->string, *k) == 0)
                ok = 1;
        if (!ok) {
            char p[PATH_MAX_LEN];
            child(p, path, m->string);
            char list[400] = "";
            size_t len = 0;
            for (const char *const *k = keys; *k && len < sizeof list - 40; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        k == keys ? "" : ", ", *k);
            return fail(L, p, "unknown key (allowed here: %s)", list);
        }
        /* a duplicate key would silently shadow the first one */
        for (const cJSON *n = m->next; n; n = n->next)
            if (strcmp(m->string, n->string) == 0) {
                char p[PATH_MAX_LEN];
                child(p, path, m->string);
                return fail(L, p, "key given twice");
            }
    }
    return TM_OK;
}

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static int get_string(loader *L, const cJSON *o, const char *path, const char *key, char *out,
                      size_t n, const char *def)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v) {
        if (!def)
            return fail(L, p, "required: expected a string");
        if (def != out) /* the value kept as its own default: copying it onto itself is UB */
            snprintf(out, n, "%s", def);
        return TM_OK;
    }
    if (!cJSON_IsString(v))
        return fail(L, p, "expected a string, got %s", kind_of(v));
    if (strlen(v->valuestring) >= n)
        return fail(L, p, "string longer than %zu bytes", n - 1);
    snprintf(out, n, "%s", v->valuestring);
    return TM_OK;
}

/* A finite number in [lo, hi]; `required` or else *out keeps its default. */
static int get_number(loader *L, const cJSON *o, const char *path, const char *key, double *out,
                      double lo, double hi, int required)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v) {
        if (required)
            return fail(L, p, "required: expected a number in [%g, %g]", lo, hi);
        return TM_OK;
    }
    if (!cJSON_IsNumber(v))
        return fail(L, p, "expected a number in [%g, %g], got %s", lo, hi, kind_of(v));
    double x = v->valuedouble;
    if (!isfinite(x) || x < lo || x > hi)
        return fail(L, p, "expected a number in [%g, %g], got %g", lo, hi, x);
    *out = x;
    return TM_OK;
}

static int get_int(loader *L, const cJSON *o, const char *path, const char *key, int64_t *out,
                   int64_t lo, int64_t hi, int required)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v) {
        if (required)
            return fail(L, p, "required: expected an integer in [%lld, %lld]", (long long)lo,
                        (long long)hi);
        return TM_OK;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!cJSON_IsNumber(v) || !isfinite(x) || x != floor(x) || x < (double)lo || x > (double)hi) {
        if (cJSON_IsNumber(v))
            return fail(L, p, "expected an integer in [%lld, %lld], got %g", (long long)lo,
                        (long long)hi, x);
        return fail(L, p, "expected an integer in [%lld, %lld], got %s", (long long)lo,
                    (long long)hi, kind_of(v));
    }
    *out = (int64_t)x;
    return TM_OK;
}

static int get_bool(loader *L, const cJSON *o, const char *path, const char *key, int *out)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v)
        return TM_OK;
    if (!cJSON_IsBool(v))
        return fail(L, p, "expected true or false, got %s", kind_of(v));
    *out = cJSON_IsTrue(v);
    return TM_OK;
}

/* "90s", "15m", "2.5h", "30d", "1w", "500ms", "10us", or a number of seconds. */
static int parse_duration_value(loader *L, const cJSON *v, const char *p, double *seconds)
{
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble) || v->valuedouble < 0)
            return fail(L, p, "expected a duration >= 0, got %g", v->valuedouble);
        *seconds = v->valuedouble;
        return TM_OK;
    }
    if (!cJSON_IsString(v))
        return fail(L, p, "expected a duration (seconds, or a string like \"15m\"), got %s",
                    kind_of(v));
    const char *s = v->valuestring;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(x) || x < 0)
        return fail(L, p, "expected a duration like \"90s\", \"15m\", \"2h\", \"30d\", got \"%s\"",
                    s);
    while (*end == ' ')
        end++;
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1},        {"m", 60}, {"min", 60},
                 {"h", 3600},  {"d", 86400}, {"w", 604800.0}, {"", 1}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *seconds = x * units[i].s;
            return TM_OK;
        }
    return fail(L, p, "unknown time unit in \"%s\" (us, ms, s, m, h, d, w)", s);
}

static int seconds_to_us(loader *L, const char *p, double s, int64_t *us)
{
    double x = s * 1e6;
    if (!(x < 9.2e18))
        return fail(L, p, "duration of %g s is beyond the int64 microsecond clock (292,000 years)",
                    s);
    *us = (int64_t)llround(x);
    return TM_OK;
}

static int get_duration(loader *L, const cJSON *o, const char *path, const char *key, int64_t *us,
                        int required)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v) {
        if (required)
            return fail(L, p, "required: expected a duration");
        return TM_OK;
    }
    double s;
    int rc = parse_duration_value(L, v, p, &s);
    return rc == TM_OK ? seconds_to_us(L, p, s, us) : rc;
}

/* ------------------------------------------------------------------------- */
/* GPU types                                                                  */

static const char *const type_keys[] = {"name",
                                        "base",
                                        "mem_gib",
                                        "bf16_tflops",
                                        "mem_bw_gbs",
                                        "power_idle_w",
                                        "power_peak_w",
                                        "purchase_usd",
                                        "ondemand_usd_per_h",
                                        "reserved_usd_per_h",
                                        "partition_slices",
                                        NULL};

static int load_types(loader *L, const cJSON *arr)
{
    sim_scenario *sc = L->sc;
    size_t nb;
    const sim_gpu_type *b = sim_catalog_builtin(&nb);
    sc->types = calloc(PLACE_MAX_TYPES, sizeof *sc->types);
    if (!sc->types)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    memcpy(sc->types, b, nb * sizeof *b);
    sc->n_types = nb;
    if (!arr)
        return TM_OK;
    if (!cJSON_IsArray(arr))
        return fail(L, "gpu_types", "expected an array, got %s", kind_of(arr));
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        element(p, "gpu_types", i);
        int rc = check_object(L, o, p, type_keys);
        if (rc)
            return rc;
        char name[SIM_NAME_MAX], base[SIM_NAME_MAX];
        if ((rc = get_string(L, o, p, "name", name, sizeof name, NULL)) ||
            (rc = get_string(L, o, p, "base", base, sizeof base, "")))
            return rc;
        int idx = sim_catalog_find(sc->types, sc->n_types, name);
        sim_gpu_type *t;
        if (idx >= 0) {
            if (base[0]) {
                char q[PATH_MAX_LEN];
                child(q, p, "base");
                return fail(L, q, "type \"%s\" already exists; \"base\" is for new types", name);
            }
            t = &sc->types[idx];
        } else {
            if (sc->n_types == PLACE_MAX_TYPES)
                return fail(L, p, "more than %u GPU types", PLACE_MAX_TYPES);
            t = &sc->types[sc->n_types++];
            memset(t, 0, sizeof *t);
            t->purchase_usd = t->ondemand_usd_per_h = t->reserved_usd_per_h = NAN;
            if (base[0]) {
                int bi = sim_catalog_find(sc->types, sc->n_types - 1, base);
                if (bi < 0) {
                    char q[PATH_MAX_LEN];
                    child(q, p, "base");
                    return fail(L, q, "no GPU type named \"%s\"", base);
                }
                *t = sc->types[bi];
            } else if (!member(o, "mem_gib")) {
                return fail(L, p, "a new GPU type needs \"mem_gib\" (or a \"base\" type)");
            }
            snprintf(t->name, sizeof t->name, "%s", name);
        }
        double mem = (double)t->mem_mib / 1024.0, slices = t->partition_slices;
        if ((rc = get_number(L, o, p, "mem_gib", &mem, 0.001, 65536, 0)) ||
            (rc = get_number(L, o, p, "bf16_tflops", &t->bf16_tflops, 0, 1e6, 0)) ||
            (rc = get_number(L, o, p, "mem_bw_gbs", &t->mem_bw_gbs, 0, 1e7, 0)) ||
            (rc = get_number(L, o, p, "power_idle_w", &t->power_idle_w, 0, 1e5, 0)) ||
            (rc = get_number(L, o, p, "power_peak_w", &t->power_peak_w, 0, 1e5, 0)) ||
            (rc = get_number(L, o, p, "purchase_usd", &t->purchase_usd, 0, 1e9, 0)) ||
            (rc = get_number(L, o, p, "ondemand_usd_per_h", &t->ondemand_usd_per_h, 0, 1e6, 0)) ||
            (rc = get_number(L, o, p, "reserved_usd_per_h", &t->reserved_usd_per_h, 0, 1e6, 0)) ||
            (rc = get_number(L, o, p, "partition_slices", &slices, 0, 64, 0)))
            return rc;
        t->mem_mib = (uint32_t)llround(mem * 1024.0);
        t->partition_slices = (uint32_t)slices;
    }
    return TM_OK;
}

static int find_type(loader *L, const char *p, const char *name, uint32_t *out)
{
    int t = sim_catalog_find(L->sc->types, L->sc->n_types, name);
    if (t < 0)
        return fail(
            L, p, "no GPU type named \"%s\" (see docs/catalog.md or add it under gpu_types)", name);
    *out = (uint32_t)t;
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* fleet                                                                      */

static const char *const pool_keys[] = {
    "name",         "gpu_type",  "nodes",     "gpus_per_node", "cpu_cores",
    "host_mem_gib", "ownership", "delivered", "retired",       NULL};

static int load_fleet(loader *L, const cJSON *fleet)
{
    static const char *const fleet_keys[] = {"pools", NULL};
    int rc = check_object(L, fleet, "fleet", fleet_keys);
    if (rc)
        return rc;
    const cJSON *arr = member(fleet, "pools");
    if (!cJSON_IsArray(arr))
        return fail(L, "fleet.pools", "expected an array of pools, got %s", kind_of(arr));
    int n = cJSON_GetArraySize(arr);
    if (n < 1)
        return fail(L, "fleet.pools", "expected at least one pool");
    sim_scenario *sc = L->sc;
    sc->pools = calloc((size_t)n, sizeof *sc->pools);
    if (!sc->pools)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        element(p, "fleet.pools", i);
        if ((rc = check_object(L, o, p, pool_keys)))
            return rc;
        sim_pool_cfg *pc = &sc->pools[i];
        char tname[SIM_NAME_MAX], own[32], defname[SIM_NAME_MAX];
        snprintf(defname, sizeof defname, "pool%d", i);
        int64_t nodes = 0, gpn = 8;
        double cores = 0, mem_gib = 0;
        pc->retired_us = -1;
        if ((rc = get_string(L, o, p, "name", pc->name, sizeof pc->name, defname)) ||
            (rc = get_string(L, o, p, "gpu_type", tname, sizeof tname, NULL)) ||
            (rc = get_int(L, o, p, "nodes", &nodes, 0, 10000000, 1)) ||
            (rc = get_int(L, o, p, "gpus_per_node", &gpn, 1, PLACE_MAX_GPUS_PER_NODE, 0)) ||
            (rc = get_number(L, o, p, "cpu_cores", &cores, 0, 1e6, 0)) ||
            (rc = get_number(L, o, p, "host_mem_gib", &mem_gib, 0, 1e9, 0)) ||
            (rc = get_string(L, o, p, "ownership", own, sizeof own, "owned")) ||
            (rc = get_duration(L, o, p, "delivered", &pc->delivered_us, 0)) ||
            (rc = get_duration(L, o, p, "retired", &pc->retired_us, 0)))
            return rc;
        child(q, p, "gpu_type");
        if ((rc = find_type(L, q, tname, &pc->type)))
            return rc;
        pc->nodes = (uint32_t)nodes;
        pc->gpus_per_node = (uint32_t)gpn;
        /* no host limits given: the node's CPU and memory never constrain */
        pc->cpu_milli = cores > 0 ? (int64_t)llround(cores * 1000) : INT64_MAX / 4;
        pc->mem_mib = mem_gib > 0 ? (int64_t)llround(mem_gib * 1024) : INT64_MAX / 4;
        if (strcmp(own, "owned") == 0)
            pc->ownership = SIM_OWNED;
        else if (strcmp(own, "reserved") == 0)
            pc->ownership = SIM_RESERVED;
        else if (strcmp(own, "on-demand") == 0)
            pc->ownership = SIM_ONDEMAND;
        else {
            child(q, p, "ownership");
            return fail(L, q, "expected \"owned\", \"reserved\" or \"on-demand\", got \"%s\"", own);
        }
        if (pc->retired_us >= 0 && pc->retired_us <= pc->delivered_us) {
            child(q, p, "retired");
            return fail(L, q, "retired at %.0f s, not after delivery at %.0f s",
                        (double)pc->retired_us / 1e6, (double)pc->delivered_us / 1e6);
        }
        for (int k = 0; k < i; k++)
            if (strcmp(sc->pools[k].name, pc->name) == 0) {
                child(q, p, "name");
                return fail(L, q, "pool name \"%s\" used twice", pc->name);
            }
    }
    sc->n_pools = (size_t)n;
    uint64_t nodes_total = 0;
    for (size_t k = 0; k < sc->n_pools; k++)
        nodes_total += sc->pools[k].nodes;
    if (nodes_total > PLACE_NONE / 2)
        return fail(L, "fleet.pools", "more than %u nodes in all", PLACE_NONE / 2);
    return TM_OK;
}

/* GPUs in service at time 0 (for offered_load). */
static double gpus_at_start(const sim_scenario *sc)
{
    double g = 0;
    for (size_t p = 0; p < sc->n_pools; p++)
        if (sc->pools[p].delivered_us <= 0)
            g += (double)sc->pools[p].nodes * sc->pools[p].gpus_per_node;
    return g;
}

/* ------------------------------------------------------------------------- */
/* distributions                                                              */

enum { VAL_NUMBER, VAL_DURATION };

static int value_of(loader *L, const cJSON *v, const char *p, int kind, double *x)
{
    if (kind == VAL_DURATION)
        return parse_duration_value(L, v, p, x);
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return fail(L, p, "expected a finite number, got %g", v->valuedouble);
    if (!cJSON_IsNumber(v))
        return fail(L, p, "expected a number, got %s", kind_of(v));
    *x = v->valuedouble;
    return TM_OK;
}

static int get_value(loader *L, const cJSON *o, const char *path, const char *key, int kind,
                     double *x, int required)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v) {
        if (required)
            return fail(L, p, "required");
        return TM_OK;
    }
    return value_of(L, v, p, kind, x);
}

/* Resolve a data path: "data:REL" is relative to TARMAC_DATA_DIR (default
 * ../shared/data), an absolute path is itself, anything else is relative to
 * the scenario's folder. */
static void resolve_path(const loader *L, const char *in, char *out, size_t n)
{
    if (strncmp(in, "data:", 5) == 0) {
        const char *d = getenv("TARMAC_DATA_DIR");
        snprintf(out, n, "%s/%s", d && *d ? d : "../shared/data", in + 5);
    } else if (in[0] == '/' || !L->dir[0]) {
        snprintf(out, n, "%s", in);
    } else {
        snprintf(out, n, "%s/%s", L->dir, in);
    }
}

static int dist_diag(loader *L, const char *p, int rc, tm_diag *sub)
{
    if (rc == TM_OK)
        return rc;
    if (rc == TM_ERR_NOMEM)
        return tm_diag_set(L->diag, rc, L->file, "out of memory");
    if (rc == TM_ERR_SCENARIO)
        return rc;
    /* a sampler's own message, placed at the JSON path */
    fail(L, p, "%s%s%s", sub->where[0] ? sub->where : "", sub->where[0] ? ": " : "", sub->msg);
    return rc == TM_ERR_INVAL ? TM_ERR_SCENARIO : rc;
}

static int load_dist(loader *L, const cJSON *v, const char *p, int kind, trace_dist *d)
{
    tm_diag sub;
    tm_diag_clear(&sub);
    memset(d, 0, sizeof *d);
    if (cJSON_IsNumber(v) || cJSON_IsString(v)) {
        double x;
        int rc = value_of(L, v, p, kind, &x);
        if (rc)
            return rc;
        return dist_diag(L, p, trace_dist_init(d, TRACE_DIST_CONSTANT, x, 0, &sub), &sub);
    }
    static const char *const keys[] = {"dist",   "value",   "mean", "median", "sigma",    "scale",
                                       "shape",  "alpha",   "low",  "high",   "min",      "max",
                                       "values", "weights", "file", "column", "multiply", NULL};
    int rc = check_object(L, v, p, keys);
    if (rc)
        return rc;
    char name[32];
    if ((rc = get_string(L, v, p, "dist", name, sizeof name, NULL)))
        return rc;
    double a = NAN, b = NAN, lo = 0, hi = INFINITY;
    if ((rc = get_value(L, v, p, "min", kind, &lo, 0)) ||
        (rc = get_value(L, v, p, "max", kind, &hi, 0)))
        return rc;
    char q[PATH_MAX_LEN];
    if (strcmp(name, "constant") == 0) {
        if ((rc = get_value(L, v, p, "value", kind, &a, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_CONSTANT, a, 0, &sub);
    } else if (strcmp(name, "exponential") == 0) {
        if ((rc = get_value(L, v, p, "mean", kind, &a, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_EXPONENTIAL, a, 0, &sub);
    } else if (strcmp(name, "lognormal") == 0) {
        double sigma = NAN;
        if ((rc = get_number(L, v, p, "sigma", &sigma, 0, 20, 1)))
            return rc;
        if (member(v, "mean") && member(v, "median"))
            return fail(L, p, "give \"mean\" or \"median\", not both");
        if (member(v, "median")) {
            if ((rc = get_value(L, v, p, "median", kind, &a, 1)))
                return rc;
            if (!(a > 0)) {
                child(q, p, "median");
                return fail(L, q, "expected a median > 0, got %g", a);
            }
            rc = trace_dist_init(d, TRACE_DIST_LOGNORMAL, log(a), sigma, &sub);
        } else {
            if ((rc = get_value(L, v, p, "mean", kind, &a, 1)))
                return rc;
            rc = trace_dist_init_lognormal_mean(d, a, sigma, &sub);
        }
    } else if (strcmp(name, "weibull") == 0) {
        if ((rc = get_value(L, v, p, "scale", kind, &a, 1)) ||
            (rc = get_number(L, v, p, "shape", &b, 1e-6, 1e6, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_WEIBULL, a, b, &sub);
    } else if (strcmp(name, "pareto") == 0) {
        if ((rc = get_value(L, v, p, "scale", kind, &a, 1)) ||
            (rc = get_number(L, v, p, "alpha", &b, 1e-6, 1e6, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_PARETO, a, b, &sub);
    } else if (strcmp(name, "uniform") == 0) {
        if ((rc = get_value(L, v, p, "low", kind, &a, 1)) ||
            (rc = get_value(L, v, p, "high", kind, &b, 1)))
            return rc;
        rc = trace_dist_init(d, TRACE_DIST_UNIFORM, a, b, &sub);
    } else if (strcmp(name, "discrete") == 0) {
        const cJSON *vals = member(v, "values"), *w = member(v, "weights");
        child(q, p, "values");
        if (!cJSON_IsArray(vals) || cJSON_GetArraySize(vals) < 1)
            return fail(L, q, "expected a non-empty array, got %s", kind_of(vals));
        int n = cJSON_GetArraySize(vals);
        if (w && (!cJSON_IsArray(w) || cJSON_GetArraySize(w) != n)) {
            child(q, p, "weights");
            return fail(L, q, "expected an array of %d weights, got %s", n, kind_of(w));
        }
        double *xv = malloc((size_t)n * sizeof *xv), *wv = malloc((size_t)n * sizeof *wv);
        if (!xv || !wv) {
            free(xv);
            free(wv);
            return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
        }
        int k = 0;
        rc = TM_OK;
        for (const cJSON *e = vals->child; e && rc == TM_OK; e = e->next, k++) {
            char r[PATH_MAX_LEN], vp[PATH_MAX_LEN];
            child(vp, p, "values");
            element(r, vp, k);
            rc = value_of(L, e, r, kind, &xv[k]);
            wv[k] = 1.0;
        }
        k = 0;
        for (const cJSON *e = w ? w->child : NULL; e && rc == TM_OK; e = e->next, k++) {
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0) {
                char r[PATH_MAX_LEN], wp[PATH_MAX_LEN];
                child(wp, p, "weights");
                element(r, wp, k);
                rc = fail(L, r, "expected a weight >= 0, got %s", kind_of(e));
            } else {
                wv[k] = e->valuedouble;
            }
        }
        if (rc == TM_OK)
            rc = trace_dist_init_discrete(d, xv, wv, (size_t)n, &sub);
        free(xv);
        free(wv);
    } else if (strcmp(name, "empirical") == 0) {
        char file[400], column[64], path[1024];
        double mult = 1.0;
        if ((rc = get_string(L, v, p, "file", file, sizeof file, NULL)) ||
            (rc = get_string(L, v, p, "column", column, sizeof column, NULL)) ||
            (rc = get_number(L, v, p, "multiply", &mult, 0, 1e12, 0)))
            return rc;
        resolve_path(L, file, path, sizeof path);
        double *vals = NULL;
        size_t n = 0;
        rc = trace_csv_column(path, column, &vals, &n, &sub);
        if (rc != TM_OK) {
            child(q, p, "file");
            fail(L, q, "%s: %s", sub.where, sub.msg);
            return rc;
        }
        for (size_t k = 0; k < n; k++)
            vals[k] *= mult;
        rc = trace_dist_init_empirical(d, vals, n, &sub);
    } else {
        child(q, p, "dist");
        return fail(L, q,
                    "unknown distribution \"%s\" (constant, exponential, lognormal, weibull, "
                    "pareto, uniform, discrete, empirical)",
                    name);
    }
    if (rc != TM_OK)
        return dist_diag(L, p, rc, &sub);
    if (lo > hi)
        return fail(L, p, "min (%g) is above max (%g)", lo, hi);
    return dist_diag(L, p, trace_dist_set_clamp(d, lo, hi, &sub), &sub);
}

/* ------------------------------------------------------------------------- */
/* workload                                                                   */

static int load_profile(loader *L, const cJSON *o, const char *path, const char *key, double *out,
                        int n)
{
    char p[PATH_MAX_LEN];
    child(p, path, key);
    const cJSON *v = member(o, key);
    if (!v)
        return TM_OK;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return fail(L, p, "expected an array of %d multipliers, got %s", n, kind_of(v));
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0) {
            char q[PATH_MAX_LEN];
            element(q, p, i);
            return fail(L, q, "expected a multiplier >= 0, got %s", kind_of(e));
        }
        out[i] = e->valuedouble;
    }
    return TM_OK;
}

static int load_arrival(loader *L, const cJSON *o, const char *p, trace_arrival_cfg *a,
                        double *offered_load)
{
    static const char *const keys[] = {
        "process", "rate_per_s", "rate_per_hour",    "rate_per_day", "offered_load",
        "daily",   "weekly",     "growth_per_month", "start_offset", "mmpp",
        NULL};
    int rc = check_object(L, o, p, keys);
    if (rc)
        return rc;
    char proc[32];
    if ((rc = get_string(L, o, p, "process", proc, sizeof proc, "poisson")))
        return rc;
    char q[PATH_MAX_LEN];
    if (strcmp(proc, "poisson") != 0) {
        child(q, p, "process");
        return fail(L, q,
                    "expected \"poisson\" (profiles, growth and bursts are options of it), got "
                    "\"%s\"",
                    proc);
    }
    trace_arrival_cfg_poisson(a, 0);
    int given = 0;
    double r;
    static const struct {
        const char *key;
        double per_s;
    } rates[] = {{"rate_per_s", 1}, {"rate_per_hour", 1.0 / 3600}, {"rate_per_day", 1.0 / 86400}};
    for (size_t k = 0; k < 3; k++) {
        if (!member(o, rates[k].key))
            continue;
        if ((rc = get_number(L, o, p, rates[k].key, &r, 0, 1e9, 1)))
            return rc;
        a->rate_per_s = r * rates[k].per_s;
        given++;
    }
    *offered_load = NAN;
    if (member(o, "offered_load")) {
        if ((rc = get_number(L, o, p, "offered_load", offered_load, 0, 100, 1)))
            return rc;
        given++;
    }
    if (given != 1)
        return fail(L, p,
                    "give exactly one of rate_per_s, rate_per_hour, rate_per_day, offered_load");
    int64_t off = 0;
    if ((rc = load_profile(L, o, p, "daily", a->daily, 24)) ||
        (rc = load_profile(L, o, p, "weekly", a->weekly, 7)) ||
        (rc = get_number(L, o, p, "growth_per_month", &a->growth_per_month, -0.999, 100, 0)) ||
        (rc = get_duration(L, o, p, "start_offset", &off, 0)))
        return rc;
    a->t0_offset_s = (double)off / SIM_US_PER_S;
    const cJSON *m = member(o, "mmpp");
    if (m) {
        child(q, p, "mmpp");
        static const char *const mkeys[] = {"multipliers", "sojourn", NULL};
        if ((rc = check_object(L, m, q, mkeys)))
            return rc;
        const cJSON *mult = member(m, "multipliers"), *soj = member(m, "sojourn");
        char r1[PATH_MAX_LEN];
        child(r1, q, "multipliers");
        int n = cJSON_IsArray(mult) ? cJSON_GetArraySize(mult) : 0;
        if (n < 2 || n > TRACE_MMPP_MAX_STATES)
            return fail(L, r1, "expected an array of 2 to %d multipliers", TRACE_MMPP_MAX_STATES);
        if (!cJSON_IsArray(soj) || cJSON_GetArraySize(soj) != n) {
            child(r1, q, "sojourn");
            return fail(L, r1, "expected an array of %d mean sojourn durations", n);
        }
        a->mmpp_states = (uint32_t)n;
        int i = 0;
        for (const cJSON *e = mult->child; e; e = e->next, i++) {
            char r2[PATH_MAX_LEN];
            element(r2, r1, i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
                return fail(L, r2, "expected a multiplier >= 0, got %s", kind_of(e));
            a->mmpp_mult[i] = e->valuedouble;
        }
        i = 0;
        child(r1, q, "sojourn");
        for (const cJSON *e = soj->child; e; e = e->next, i++) {
            char r2[PATH_MAX_LEN];
            element(r2, r1, i);
            double s;
            if ((rc = parse_duration_value(L, e, r2, &s)))
                return rc;
            if (!(s > 0))
                return fail(L, r2, "expected a sojourn > 0");
            a->mmpp_sojourn_s[i] = s;
        }
    }
    return TM_OK;
}

/* Defaults per kind of work. These are starting points for a scenario, not
 * measurements: scenarios/SCHEMA.md lists them, and the figures that have a
 * source say so there (restart cost: cost-figures.md §5). */
typedef struct kind_defaults {
    int n_gpus;
    double gpus[4], gpus_w[4];
    int dur_exponential; /* exponential of the mean instead of lognormal */
    double dur_mean_s, dur_sigma;
    double mem_gib;
    int preemptible;
    double checkpoint_s, restart_s;
    int priority;
    sim_speed_basis basis;
    double scaling;
    int can_span;
    double span_slowdown;
    double deadline_s;  /* < 0: none */
    double share_milli; /* 0: whole GPUs */
} kind_defaults;

static const kind_defaults kind_table[SIM_KIND_COUNT] = {
    [SIM_KIND_GENERIC] = {1, {1}, {1}, 0, 0, 0, 0, 0, 0, 0, 0, SIM_SPEED_COMPUTE, 1, 0, 1, -1, 0},
    [SIM_KIND_TRAINING] = {4,
                           {8, 16, 32, 64},
                           {0.4, 0.3, 0.2, 0.1},
                           0,
                           24 * 3600.0,
                           1.2,
                           40,
                           1,
                           3600,
                           1200,
                           0,
                           SIM_SPEED_COMPUTE,
                           0.95,
                           1,
                           1.1,
                           -1,
                           0},
    [SIM_KIND_FINE_TUNING] = {4,
                              {1, 2, 4, 8},
                              {0.3, 0.3, 0.3, 0.1},
                              0,
                              4 * 3600.0,
                              1.0,
                              24,
                              1,
                              1800,
                              300,
                              1,
                              SIM_SPEED_COMPUTE,
                              0.9,
                              0,
                              1,
                              -1,
                              0},
    [SIM_KIND_QUANTIZATION] =
        {1, {1}, {1}, 0, 1800, 0.7, 60, 0, 0, 0, 2, SIM_SPEED_MEMORY, 1, 0, 1, -1, 0},
    [SIM_KIND_BATCH_INFERENCE] = {3,
                                  {1, 2, 4},
                                  {0.6, 0.3, 0.1},
                                  0,
                                  2 * 3600.0,
                                  1.0,
                                  20,
                                  1,
                                  900,
                                  120,
                                  1,
                                  SIM_SPEED_MEMORY,
                                  0.95,
                                  0,
                                  1,
                                  24 * 3600.0,
                                  0},
    [SIM_KIND_EMBEDDING] =
        {1, {1}, {1}, 0, 3600, 0.8, 8, 1, 600, 60, 0, SIM_SPEED_COMPUTE, 1, 0, 1, -1, 500},
    [SIM_KIND_EVALUATION] =
        {1, {1}, {1}, 1, 1200, 0, 16, 0, 0, 0, 3, SIM_SPEED_COMPUTE, 1, 0, 1, -1, 0},
};

static const char *const kind_names[SIM_KIND_COUNT] = {
#define SIM_KIND_NAME_(name, str) str,
    SIM_KINDS(SIM_KIND_NAME_)
#undef SIM_KIND_NAME_
};

const char *sim_kind_name(int kind)
{
    return kind >= 0 && kind < SIM_KIND_COUNT ? kind_names[kind] : "unknown";
}

static int oom(loader *L)
{
    return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
}

static const char *const class_keys[] = {"name",
                                         "kind",
                                         "arrival",
                                         "gpus",
                                         "duration",
                                         "work_gpu_hours",
                                         "scaling_per_doubling",
                                         "gpu_milli",
                                         "gpu_slices",
                                         "gpu_mem_gib",
                                         "gpu_types",
                                         "can_span",
                                         "span_slowdown",
                                         "preemptible",
                                         "checkpoint",
                                         "restart_overhead",
                                         "priority",
                                         "value",
                                         "deadline",
                                         "estimate",
                                         "tenants",
                                         "speeds",
                                         "speed_basis",
                                         "max_jobs",
                                         NULL};

/* Mean GPU-time per job at reference speed, for offered_load. */
static double mean_gpu_s(const sim_class_cfg *cc)
{
    double eg = trace_dist_mean(&cc->gpus);
    double share = cc->has_share ? trace_dist_mean(&cc->share_milli) / 1000.0 : 1.0;
    if (!cc->use_work)
        return eg * share * trace_dist_mean(&cc->duration_s);
    /* work / e(g): exact over a discrete GPU count, e(E[g]) otherwise */
    double inv_e = 0;
    if (cc->gpus.kind == TRACE_DIST_DISCRETE) {
        for (size_t i = 0; i < cc->gpus.n; i++) {
            double g = floor(cc->gpus.values[i] + 0.5);
            inv_e += cc->gpus.weights[i] / pow(cc->scaling_per_doubling, log2(g < 1 ? 1 : g));
        }
    } else {
        inv_e = 1.0 / pow(cc->scaling_per_doubling, log2(eg < 1 ? 1 : eg));
    }
    return trace_dist_mean(&cc->work_gpu_s) * share * inv_e;
}

/* Relative speed of type t for a class: from the matrix if given, else the
 * catalog figure the class's basis names, relative to the reference type. A
 * type without the figure runs at speed 1. */
static double derived_speed(const sim_scenario *sc, sim_speed_basis basis, uint32_t t)
{
    const sim_gpu_type *g = &sc->types[t], *r = &sc->types[sc->reference_type];
    double a = basis == SIM_SPEED_MEMORY ? g->mem_bw_gbs : g->bf16_tflops;
    double b = basis == SIM_SPEED_MEMORY ? r->mem_bw_gbs : r->bf16_tflops;
    if (!(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
        return 1.0;
    return a / b;
}

static int load_speeds(loader *L, const cJSON *o, const char *p, sim_class_cfg *cc)
{
    for (size_t t = 0; t < L->sc->n_types; t++)
        cc->speed[t] = derived_speed(L->sc, cc->speed_basis, (uint32_t)t);
    const cJSON *m = member(o, "speeds");
    if (!m)
        return TM_OK;
    char q[PATH_MAX_LEN];
    child(q, p, "speeds");
    if (!cJSON_IsObject(m))
        return fail(L, q, "expected an object {\"GPU type\": speed, ...}, got %s", kind_of(m));
    for (const cJSON *e = m->child; e; e = e->next) {
        char r[PATH_MAX_LEN];
        child(r, q, e->string);
        uint32_t t = 0;
        int rc = find_type(L, r, e->string, &t);
        if (rc)
            return rc;
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !(e->valuedouble > 0))
            return fail(L, r, "expected a speed > 0, got %s", kind_of(e));
        cc->speed[t] = e->valuedouble;
    }
    return TM_OK;
}

static int load_tenant_mix(loader *L, const cJSON *o, const char *p, sim_class_cfg *cc)
{
    const sim_scenario *sc = L->sc;
    const cJSON *m = member(o, "tenants");
    if (!m && sc->n_tenants <= 1)
        return TM_OK;
    double *w = calloc(sc->n_tenants, sizeof *w), *v = calloc(sc->n_tenants, sizeof *v);
    if (!w || !v) {
        free(w);
        free(v);
        return oom(L);
    }
    int rc = TM_OK;
    for (size_t k = 0; k < sc->n_tenants; k++) {
        v[k] = (double)k;
        w[k] = m ? 0.0 : sc->tenant_share[k];
    }
    char q[PATH_MAX_LEN];
    child(q, p, "tenants");
    if (m && !cJSON_IsObject(m))
        rc = fail(L, q, "expected an object {\"tenant\": weight, ...}, got %s", kind_of(m));
    for (const cJSON *e = m ? m->child : NULL; e && rc == TM_OK; e = e->next) {
        char r[PATH_MAX_LEN];
        child(r, q, e->string);
        size_t k;
        for (k = 0; k < sc->n_tenants; k++)
            if (strcmp(sc->tenants[k], e->string) == 0)
                break;
        if (k == sc->n_tenants)
            rc = fail(L, r, "no tenant named \"%s\" in the top-level \"tenants\"", e->string);
        else if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
            rc = fail(L, r, "expected a weight >= 0, got %s", kind_of(e));
        else
            w[k] = e->valuedouble;
    }
    if (rc == TM_OK) {
        tm_diag sub;
        tm_diag_clear(&sub);
        rc = trace_dist_init_discrete(&cc->tenant, v, w, sc->n_tenants, &sub);
        if (rc != TM_OK)
            rc = dist_diag(L, q, rc, &sub);
        else
            cc->has_tenants = 1;
    }
    free(w);
    free(v);
    return rc;
}

/* gpu_slices: k MIG-style slices of a GPU type partitioned into S: a share of
 * floor(1000 k / S) milli-GPU and k/S of its memory. Every allowed type must
 * have the same S. */
static int load_slices(loader *L, const char *p, sim_class_cfg *cc, int64_t k)
{
    const sim_scenario *sc = L->sc;
    char q[PATH_MAX_LEN];
    child(q, p, "gpu_slices");
    uint32_t S = 0, mem = 0;
    for (size_t t = 0; t < sc->n_types; t++) {
        if (cc->type_mask && !((cc->type_mask >> t) & 1u))
            continue;
        if (!cc->type_mask && sc->types[t].partition_slices == 0)
            continue;
        uint32_t st = sc->types[t].partition_slices;
        if (st == 0)
            return fail(L, q, "GPU type %s cannot be partitioned", sc->types[t].name);
        if (S && st != S)
            return fail(L, q,
                        "the allowed GPU types split into %u and %u slices; list types with one "
                        "partition geometry in gpu_types",
                        S, st);
        S = st;
        uint32_t m = (uint32_t)((uint64_t)sc->types[t].mem_mib * (uint64_t)k / st);
        if (!mem || m < mem)
            mem = m;
        if (!cc->type_mask)
            continue;
    }
    if (!cc->type_mask)
        return fail(L, q, "needs gpu_types: the partitioned types it may use");
    if (!S)
        return fail(L, q, "no allowed GPU type can be partitioned");
    if (k > S)
        return fail(L, q, "%lld slices of a GPU that has %u", (long long)k, S);
    cc->slices = (uint32_t)k;
    tm_diag sub;
    int rc = trace_dist_init(&cc->share_milli, TRACE_DIST_CONSTANT, floor(1000.0 * (double)k / S),
                             0, &sub);
    if (rc != TM_OK)
        return dist_diag(L, q, rc, &sub);
    cc->has_share = 1;
    if (cc->gpu_mem_mib == 0)
        cc->gpu_mem_mib = mem;
    return TM_OK;
}

static int load_class(loader *L, const cJSON *o, const char *p, sim_class_cfg *cc, int index)
{
    int rc = check_object(L, o, p, class_keys);
    if (rc)
        return rc;
    char defname[SIM_NAME_MAX], q[PATH_MAX_LEN], kind[32];
    snprintf(defname, sizeof defname, "class%d", index);
    if ((rc = get_string(L, o, p, "name", cc->name, sizeof cc->name, defname)) ||
        (rc = get_string(L, o, p, "kind", kind, sizeof kind, "generic")))
        return rc;
    int ki;
    for (ki = 0; ki < SIM_KIND_COUNT; ki++)
        if (strcmp(kind, kind_names[ki]) == 0)
            break;
    if (ki == SIM_KIND_COUNT) {
        child(q, p, "kind");
        return fail(L, q,
                    "unknown kind \"%s\" (generic, training, fine-tuning, quantization, "
                    "batch-inference, embedding, evaluation; real-time inference is a service)",
                    kind);
    }
    cc->kind = (sim_job_kind)ki;
    const kind_defaults *kd = &kind_table[ki];
    tm_diag sub;
    tm_diag_clear(&sub);

    const cJSON *arr = member(o, "arrival");
    child(q, p, "arrival");
    if (!arr)
        return fail(L, q, "required: an arrival process");
    double load;
    if ((rc = load_arrival(L, arr, q, &cc->arrival, &load)))
        return rc;

    child(q, p, "gpus");
    const cJSON *g = member(o, "gpus");
    if (g) {
        if ((rc = load_dist(L, g, q, VAL_NUMBER, &cc->gpus)))
            return rc;
    } else if ((kd->n_gpus == 1
                    ? trace_dist_init(&cc->gpus, TRACE_DIST_CONSTANT, kd->gpus[0], 0, &sub)
                    : trace_dist_init_discrete(&cc->gpus, kd->gpus, kd->gpus_w, (size_t)kd->n_gpus,
                                               &sub)) != TM_OK) {
        return oom(L);
    }
    if (cc->gpus.kind == TRACE_DIST_CONSTANT && !(cc->gpus.p[0] >= 0.5))
        return fail(L, q, "expected at least 1 GPU, got %g", cc->gpus.p[0]);

    /* size: a duration, or work and a scaling efficiency */
    const cJSON *d = member(o, "duration"), *w = member(o, "work_gpu_hours");
    cc->scaling_per_doubling = kd->scaling;
    if ((rc = get_number(L, o, p, "scaling_per_doubling", &cc->scaling_per_doubling, 0.01, 1, 0)))
        return rc;
    if (d && w)
        return fail(L, p, "give \"duration\" or \"work_gpu_hours\", not both");
    if (w) {
        child(q, p, "work_gpu_hours");
        if ((rc = load_dist(L, w, q, VAL_NUMBER, &cc->work_gpu_s)))
            return rc;
        /* GPU-hours to GPU-seconds: scale the distribution by sampling in hours
         * and converting in the synthesizer would hide the unit; rebuild it */
        trace_dist hours = cc->work_gpu_s;
        memset(&cc->work_gpu_s, 0, sizeof cc->work_gpu_s);
        rc = trace_dist_scaled(&cc->work_gpu_s, &hours, 3600.0, &sub);
        trace_dist_fini(&hours);
        if (rc != TM_OK)
            return dist_diag(L, q, rc, &sub);
        cc->use_work = 1;
    } else if (d) {
        child(q, p, "duration");
        if ((rc = load_dist(L, d, q, VAL_DURATION, &cc->duration_s)))
            return rc;
    } else if (ki != SIM_KIND_GENERIC) {
        rc = kd->dur_exponential
                 ? trace_dist_init(&cc->duration_s, TRACE_DIST_EXPONENTIAL, kd->dur_mean_s, 0, &sub)
                 : trace_dist_init_lognormal_mean(&cc->duration_s, kd->dur_mean_s, kd->dur_sigma,
                                                  &sub);
        if (rc != TM_OK)
            return oom(L);
    } else {
        child(q, p, "duration");
        return fail(L, q, "required: a duration distribution (or work_gpu_hours, or a kind)");
    }

    double mem_gib = kd->mem_gib, slowdown = kd->span_slowdown, value = 1.0;
    int span = kd->can_span, preempt = kd->preemptible;
    int64_t prio = kd->priority, maxj = 0, slices = 0;
    cc->checkpoint_us = (int64_t)(kd->checkpoint_s * SIM_US_PER_S);
    cc->restart_us = (int64_t)(kd->restart_s * SIM_US_PER_S);
    cc->deadline_us = kd->deadline_s < 0 ? -1 : (int64_t)(kd->deadline_s * SIM_US_PER_S);
    if ((rc = get_number(L, o, p, "gpu_mem_gib", &mem_gib, 0, 65536, 0)) ||
        (rc = get_bool(L, o, p, "can_span", &span)) ||
        (rc = get_number(L, o, p, "span_slowdown", &slowdown, 1, 1000, 0)) ||
        (rc = get_bool(L, o, p, "preemptible", &preempt)) ||
        (rc = get_duration(L, o, p, "checkpoint", &cc->checkpoint_us, 0)) ||
        (rc = get_duration(L, o, p, "restart_overhead", &cc->restart_us, 0)) ||
        (rc = get_int(L, o, p, "priority", &prio, -1000000, 1000000, 0)) ||
        (rc = get_number(L, o, p, "value", &value, 0, 1e12, 0)) ||
        (rc = get_int(L, o, p, "gpu_slices", &slices, 1, 64, 0)) ||
        (rc = get_int(L, o, p, "max_jobs", &maxj, 0, INT64_MAX / 2, 0)))
        return rc;
    if (member(o, "deadline")) {
        const cJSON *dl = member(o, "deadline");
        child(q, p, "deadline");
        if (cJSON_IsNull(dl))
            cc->deadline_us = -1;
        else if ((rc = get_duration(L, o, p, "deadline", &cc->deadline_us, 1)))
            return rc;
    }
    cc->gpu_mem_mib = (uint32_t)llround(mem_gib * 1024);
    cc->flags = (span ? TRACE_JOB_CAN_SPAN : 0u) | (preempt ? TRACE_JOB_PREEMPTIBLE : 0u);
    cc->span_slowdown = slowdown;
    cc->priority = (int32_t)prio;
    cc->value = value;
    cc->max_jobs = (uint64_t)maxj;

    const cJSON *types = member(o, "gpu_types");
    if (types) {
        child(q, p, "gpu_types");
        if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) < 1)
            return fail(L, q, "expected a non-empty array of GPU type names, got %s",
                        kind_of(types));
        int i = 0;
        for (const cJSON *e = types->child; e; e = e->next, i++) {
            char r[PATH_MAX_LEN];
            element(r, q, i);
            if (!cJSON_IsString(e))
                return fail(L, r, "expected a GPU type name, got %s", kind_of(e));
            uint32_t t = 0;
            if ((rc = find_type(L, r, e->valuestring, &t)))
                return rc;
            cc->type_mask |= 1ull << t;
        }
    }

    /* shares: a milli-GPU share, partition slices, or whole GPUs */
    const cJSON *gm = member(o, "gpu_milli");
    if (gm && slices)
        return fail(L, p, "give \"gpu_milli\" or \"gpu_slices\", not both");
    if (gm) {
        child(q, p, "gpu_milli");
        if ((rc = load_dist(L, gm, q, VAL_NUMBER, &cc->share_milli)))
            return rc;
        cc->has_share = 1;
        double m = trace_dist_mean(&cc->share_milli);
        if (!(m >= 1 && m <= 1000))
            return fail(L, q, "expected a share in milli-GPU within [1, 1000], mean %g", m);
    } else if (slices) {
        if ((rc = load_slices(L, p, cc, slices)))
            return rc;
    } else if (kd->share_milli > 0 && !g) {
        if (trace_dist_init(&cc->share_milli, TRACE_DIST_CONSTANT, kd->share_milli, 0, &sub))
            return oom(L);
        cc->has_share = 1;
    }
    if (cc->has_share &&
        !(cc->gpus.kind == TRACE_DIST_CONSTANT && cc->gpus.p[0] >= 0.5 && cc->gpus.p[0] < 1.5)) {
        child(q, p, "gpus");
        return fail(L, q, "a job with a GPU share (gpu_milli, gpu_slices) uses exactly 1 GPU");
    }

    /* estimates: exact by default; a factor, a distribution of factors, or "none" */
    const cJSON *est = member(o, "estimate");
    child(q, p, "estimate");
    cc->has_estimate = 1;
    if (est && cJSON_IsString(est) && strcmp(est->valuestring, "none") == 0) {
        cc->has_estimate = 0;
    } else if (!est || (cJSON_IsString(est) && strcmp(est->valuestring, "exact") == 0)) {
        if (trace_dist_init(&cc->estimate_factor, TRACE_DIST_CONSTANT, 1.0, 0, &sub) != TM_OK)
            return oom(L);
    } else if ((rc = load_dist(L, est, q, VAL_NUMBER, &cc->estimate_factor))) {
        return rc;
    }

    char basis[16];
    if ((rc = get_string(L, o, p, "speed_basis", basis, sizeof basis,
                         kd->basis == SIM_SPEED_MEMORY ? "memory" : "compute")))
        return rc;
    if (strcmp(basis, "compute") == 0)
        cc->speed_basis = SIM_SPEED_COMPUTE;
    else if (strcmp(basis, "memory") == 0)
        cc->speed_basis = SIM_SPEED_MEMORY;
    else {
        child(q, p, "speed_basis");
        return fail(L, q, "expected \"compute\" or \"memory\", got \"%s\"", basis);
    }
    if ((rc = load_speeds(L, o, p, cc)) || (rc = load_tenant_mix(L, o, p, cc)))
        return rc;

    if (!isnan(load)) {
        /* offered load = rate x mean GPU-time per job / GPUs at time 0 */
        double gs = mean_gpu_s(cc), cap = gpus_at_start(L->sc);
        child(q, p, "arrival.offered_load");
        if (!(gs > 0 && isfinite(gs)))
            return fail(L, q, "needs GPU-count and duration distributions with finite means");
        if (!(cap > 0))
            return fail(L, q, "needs GPUs in service at time 0");
        cc->arrival.rate_per_s = load * cap / gs;
    }
    trace_arrival probe;
    child(q, p, "arrival");
    rc = trace_arrival_init(&probe, &cc->arrival, 0, &sub);
    if (rc == TM_ERR_NOMEM)
        return tm_diag_set(L->diag, rc, L->file, "out of memory");
    if (rc != TM_OK)
        return fail(L, q, "%s", sub.msg);
    return TM_OK;
}

/* A copy of object `base` with the members of `over` (but `skip`) replacing
 * its own, and without `drop`. Used for specializations, which are the class
 * or service they specialize with some fields replaced. NULL on out of memory. */
static cJSON *merged_object(const cJSON *base, const cJSON *over, const char *skip,
                            const char *drop)
{
    cJSON *m = cJSON_Duplicate(base, 1);
    if (!m)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(m, drop);
    for (const cJSON *e = over->child; e; e = e->next) {
        if (strcmp(e->string, skip) == 0)
            continue;
        cJSON *d = cJSON_Duplicate(e, 1);
        if (!d) {
            cJSON_Delete(m);
            return NULL;
        }
        if (cJSON_GetObjectItemCaseSensitive(m, e->string))
            cJSON_ReplaceItemInObjectCaseSensitive(m, e->string, d);
        else
            cJSON_AddItemToObject(m, e->string, d);
    }
    return m;
}

/* Keys of `over` that replace one of a pair in the base (a class gives
 * duration or work, a share or slices): the other goes. */
static void drop_rivals(cJSON *m, const cJSON *over, const char *a, const char *b)
{
    if (member(over, a))
        cJSON_DeleteItemFromObjectCaseSensitive(m, b);
    if (member(over, b))
        cJSON_DeleteItemFromObjectCaseSensitive(m, a);
}

static void class_fini(sim_class_cfg *cc);

static int load_class_special(loader *L, const cJSON *o, const char *p, sim_class_cfg *cc,
                              int index)
{
    cc->special_at_us = -1;
    const cJSON *sp = member(o, "specialize");
    if (!sp)
        return TM_OK;
    char q[PATH_MAX_LEN];
    child(q, p, "specialize");
    static const char *const keys[] = {"at",
                                       "gpus",
                                       "duration",
                                       "work_gpu_hours",
                                       "scaling_per_doubling",
                                       "gpu_milli",
                                       "gpu_slices",
                                       "gpu_mem_gib",
                                       "gpu_types",
                                       "can_span",
                                       "span_slowdown",
                                       "speeds",
                                       "speed_basis",
                                       "estimate",
                                       "value",
                                       NULL};
    int rc = check_object(L, sp, q, keys);
    if (rc || (rc = get_duration(L, sp, q, "at", &cc->special_at_us, 1)))
        return rc;
    cJSON *m = merged_object(o, sp, "at", "specialize");
    if (!m)
        return oom(L);
    drop_rivals(m, sp, "duration", "work_gpu_hours");
    drop_rivals(m, sp, "gpu_milli", "gpu_slices");
    cc->special = calloc(1, sizeof *cc->special);
    if (!cc->special) {
        cJSON_Delete(m);
        return oom(L);
    }
    rc = load_class(L, m, q, cc->special, index);
    cJSON_Delete(m);
    if (rc)
        return rc;
    /* the same arrivals: a specialization changes what the jobs are, not when
     * they come (offered_load would otherwise rescale the rate) */
    cc->special->arrival = cc->arrival;
    return TM_OK;
}

static void class_fini(sim_class_cfg *cc)
{
    trace_dist_fini(&cc->gpus);
    trace_dist_fini(&cc->duration_s);
    trace_dist_fini(&cc->work_gpu_s);
    trace_dist_fini(&cc->share_milli);
    trace_dist_fini(&cc->estimate_factor);
    trace_dist_fini(&cc->tenant);
    if (cc->special) {
        class_fini(cc->special);
        free(cc->special);
        cc->special = NULL;
    }
}

/* ------------------------------------------------------------------------- */
/* services                                                                   */

static const char *const service_keys[] = {"name",
                                           "preset",
                                           "model",
                                           "replica_gpus",
                                           "gpu_mem_gib",
                                           "gpu_types",
                                           "tokens_per_s",
                                           "concurrency",
                                           "tokens_in",
                                           "tokens_out",
                                           "prefill_weight",
                                           "load",
                                           "slo",
                                           "overflow",
                                           "autoscale",
                                           "priority",
                                           "api_price",
                                           "specialize",
                                           NULL};

/* The shape and throughput of a service's model (also what a specialization
 * may change). */
static int load_service_model(loader *L, const cJSON *o, const char *p, sim__svc_cfg *cfg,
                              sim_service_spec *spec)
{
    char q[PATH_MAX_LEN], preset[SIM_NAME_MAX];
    tm_diag sub;
    tm_diag_clear(&sub);
    int rc = get_string(L, o, p, "preset", preset, sizeof preset, "");
    if (rc)
        return rc;
    if (preset[0]) {
        child(q, p, "preset");
        const sim__svc_preset *ps = sim__svc_preset_find(preset);
        if (!ps) {
            size_t n;
            const sim__svc_preset *all = sim__svc_presets(&n);
            char list[300] = "";
            size_t len = 0;
            for (size_t i = 0; i < n && len < sizeof list - 60; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                        all[i].name);
            return fail(L, q, "no service preset \"%s\" (%s)", preset, list);
        }
        if (sim__svc_cfg_apply_preset(cfg, ps, L->sc->types, L->sc->n_types, &sub) != TM_OK)
            return fail(L, q, "%s", sub.msg);
    }
    int64_t rg = cfg->replica_gpus;
    double mem = cfg->gpu_mem_mib / 1024.0;
    if ((rc = get_string(L, o, p, "model", cfg->model, sizeof cfg->model, cfg->model)) ||
        (rc = get_int(L, o, p, "replica_gpus", &rg, 1, PLACE_MAX_GPUS_PER_NODE, 0)) ||
        (rc = get_number(L, o, p, "gpu_mem_gib", &mem, 0, 65536, 0)) ||
        (rc = get_number(L, o, p, "tokens_in", &cfg->tokens_in_per_req, 0, 1e9, 0)) ||
        (rc = get_number(L, o, p, "tokens_out", &cfg->tokens_out_per_req, 0, 1e9, 0)) ||
        (rc = get_number(L, o, p, "prefill_weight", &cfg->prefill_weight, 0, 1e3, 0)))
        return rc;
    cfg->replica_gpus = (uint32_t)rg;
    cfg->gpu_mem_mib = (uint32_t)llround(mem * 1024);
    const cJSON *tps = member(o, "tokens_per_s");
    if (tps) {
        child(q, p, "tokens_per_s");
        if (!cJSON_IsObject(tps))
            return fail(L, q, "expected {\"GPU type\": tokens/s of one replica at the SLO}, got %s",
                        kind_of(tps));
        for (const cJSON *e = tps->child; e; e = e->next) {
            char r[PATH_MAX_LEN];
            child(r, q, e->string);
            uint32_t t = 0;
            if ((rc = find_type(L, r, e->string, &t)))
                return rc;
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
                return fail(L, r, "expected tokens/s >= 0, got %s", kind_of(e));
            cfg->tokens_per_s[t] = e->valuedouble;
            if (e->valuedouble > 0 && cfg->type_mask)
                cfg->type_mask |= 1ull << t;
        }
    }
    const cJSON *conc = member(o, "concurrency");
    if (cJSON_IsNumber(conc)) {
        int64_t c;
        if ((rc = get_int(L, o, p, "concurrency", &c, 1, 1 << 20, 1)))
            return rc;
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            cfg->concurrency[t] = (uint32_t)c;
    } else if (conc) {
        child(q, p, "concurrency");
        if (!cJSON_IsObject(conc))
            return fail(L, q, "expected a number or {\"GPU type\": slots}, got %s", kind_of(conc));
        for (const cJSON *e = conc->child; e; e = e->next) {
            char r[PATH_MAX_LEN];
            child(r, q, e->string);
            uint32_t t = 0;
            if ((rc = find_type(L, r, e->string, &t)))
                return rc;
            if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > (1 << 20) ||
                e->valuedouble != floor(e->valuedouble))
                return fail(L, r, "expected an integer number of slots >= 1, got %s", kind_of(e));
            cfg->concurrency[t] = (uint32_t)e->valuedouble;
        }
    }
    const cJSON *types = member(o, "gpu_types");
    if (types) {
        child(q, p, "gpu_types");
        if (!cJSON_IsArray(types) || cJSON_GetArraySize(types) < 1)
            return fail(L, q, "expected a non-empty array of GPU type names, got %s",
                        kind_of(types));
        uint64_t mask = 0;
        int i = 0;
        for (const cJSON *e = types->child; e; e = e->next, i++) {
            char r[PATH_MAX_LEN];
            element(r, q, i);
            uint32_t t = 0;
            if (!cJSON_IsString(e))
                return fail(L, r, "expected a GPU type name, got %s", kind_of(e));
            if ((rc = find_type(L, r, e->valuestring, &t)))
                return rc;
            mask |= 1ull << t;
        }
        cfg->type_mask = mask;
    }
    const cJSON *api = member(o, "api_price");
    if (api) {
        child(q, p, "api_price");
        static const char *const keys[] = {"input_usd_per_mtok", "output_usd_per_mtok", NULL};
        if ((rc = check_object(L, api, q, keys)) ||
            (rc = get_number(L, api, q, "input_usd_per_mtok", &spec->api_in_usd_per_mtok, 0, 1e6,
                             1)) ||
            (rc = get_number(L, api, q, "output_usd_per_mtok", &spec->api_out_usd_per_mtok, 0, 1e6,
                             1)))
            return rc;
    }
    return TM_OK;
}

static int load_service(loader *L, const cJSON *o, const char *p, sim_service_spec *spec, int index)
{
    int rc = check_object(L, o, p, service_keys);
    if (rc)
        return rc;
    sim__svc_cfg *cfg = &spec->cfg;
    sim__svc_cfg_defaults(cfg);
    spec->priority = 100;
    spec->special_at_us = -1;
    char defname[SIM_NAME_MAX], q[PATH_MAX_LEN];
    snprintf(defname, sizeof defname, "service%d", index);
    if ((rc = get_string(L, o, p, "name", cfg->name, sizeof cfg->name, defname)) ||
        (rc = load_service_model(L, o, p, cfg, spec)))
        return rc;
    child(q, p, "load");
    const cJSON *ld = member(o, "load");
    if (!ld)
        return fail(L, q, "required: the request load (requests/s, with its profile)");
    double offered;
    if ((rc = load_arrival(L, ld, q, &cfg->load, &offered)))
        return rc;
    if (!isnan(offered))
        return fail(L, q, "a service's load is a request rate (rate_per_s, ...), not offered_load");
    const cJSON *slo = member(o, "slo");
    if (slo) {
        child(q, p, "slo");
        static const char *const keys[] = {"latency", "kind", "target", NULL};
        int64_t lat_us = (int64_t)(cfg->slo_s * SIM_US_PER_S);
        char kind[16];
        if ((rc = check_object(L, slo, q, keys)) ||
            (rc = get_duration(L, slo, q, "latency", &lat_us, 0)) ||
            (rc = get_string(L, slo, q, "kind", kind, sizeof kind, "wait")) ||
            (rc = get_number(L, slo, q, "target", &cfg->slo_target, 1e-6, 0.999999, 0)))
            return rc;
        cfg->slo_s = (double)lat_us / SIM_US_PER_S;
        if (strcmp(kind, "wait") == 0)
            cfg->slo_kind = SIM__SVC_SLO_WAIT;
        else if (strcmp(kind, "response") == 0)
            cfg->slo_kind = SIM__SVC_SLO_RESPONSE;
        else {
            char r[PATH_MAX_LEN];
            child(r, q, "kind");
            return fail(L, r, "expected \"wait\" (time to first token) or \"response\", got \"%s\"",
                        kind);
        }
    }
    char ov[16];
    if ((rc = get_string(L, o, p, "overflow", ov, sizeof ov, "miss")))
        return rc;
    if (strcmp(ov, "miss") == 0)
        cfg->overflow = SIM__SVC_OVERFLOW_MISS;
    else if (strcmp(ov, "api") == 0)
        cfg->overflow = SIM__SVC_OVERFLOW_API;
    else {
        child(q, p, "overflow");
        return fail(L, q, "expected \"miss\" or \"api\", got \"%s\"", ov);
    }
    const cJSON *as = member(o, "autoscale");
    if (as) {
        child(q, p, "autoscale");
        static const char *const keys[] = {
            "min", "max", "target_util", "scale_up_delay", "scale_down_window", NULL};
        int64_t mn = cfg->min_replicas, mx = cfg->max_replicas;
        int64_t up = (int64_t)(cfg->scale_up_delay_s * SIM_US_PER_S);
        int64_t down = (int64_t)(cfg->scale_down_window_s * SIM_US_PER_S);
        if ((rc = check_object(L, as, q, keys)) ||
            (rc = get_int(L, as, q, "min", &mn, 0, 1000000, 0)) ||
            (rc = get_int(L, as, q, "max", &mx, 1, 1000000, 0)) ||
            (rc = get_number(L, as, q, "target_util", &cfg->target_util, 0.01, 1, 0)) ||
            (rc = get_duration(L, as, q, "scale_up_delay", &up, 0)) ||
            (rc = get_duration(L, as, q, "scale_down_window", &down, 0)))
            return rc;
        if (mn > mx)
            return fail(L, q, "min (%lld) is above max (%lld)", (long long)mn, (long long)mx);
        cfg->min_replicas = (uint32_t)mn;
        cfg->max_replicas = (uint32_t)mx;
        cfg->scale_up_delay_s = (double)up / SIM_US_PER_S;
        cfg->scale_down_window_s = (double)down / SIM_US_PER_S;
    }
    int64_t prio = spec->priority;
    if ((rc = get_int(L, o, p, "priority", &prio, -1000000, 1000000, 0)))
        return rc;
    spec->priority = (int32_t)prio;
    tm_diag sub;
    tm_diag_clear(&sub);
    if (sim__svc_cfg_check(cfg, L->sc->n_types, &sub) != TM_OK)
        return fail(L, p, "%s: %s", sub.where, sub.msg);
    const cJSON *sp = member(o, "specialize");
    if (sp) {
        child(q, p, "specialize");
        static const char *const keys[] = {
            "at",          "preset",     "model",          "replica_gpus",
            "gpu_mem_gib", "gpu_types",  "tokens_per_s",   "concurrency",
            "tokens_in",   "tokens_out", "prefill_weight", "api_price",
            NULL};
        if ((rc = check_object(L, sp, q, keys)) ||
            (rc = get_duration(L, sp, q, "at", &spec->special_at_us, 1)))
            return rc;
        /* the same service from the same defaults, its model fields replaced */
        spec->special = *cfg;
        if (member(sp, "preset") || member(sp, "tokens_per_s")) {
            memset(spec->special.tokens_per_s, 0, sizeof spec->special.tokens_per_s);
            memset(spec->special.concurrency, 0, sizeof spec->special.concurrency);
            spec->special.type_mask = 0;
        }
        if ((rc = load_service_model(L, sp, q, &spec->special, spec)))
            return rc;
        if (sim__svc_cfg_check(&spec->special, L->sc->n_types, &sub) != TM_OK)
            return fail(L, q, "%s: %s", sub.where, sub.msg);
    }
    return TM_OK;
}

static int load_services(loader *L, const cJSON *arr)
{
    sim_scenario *sc = L->sc;
    if (!arr)
        return TM_OK;
    if (!cJSON_IsArray(arr))
        return fail(L, "workload.services", "expected an array of services, got %s", kind_of(arr));
    int n = cJSON_GetArraySize(arr);
    sc->services = calloc(n ? (size_t)n : 1, sizeof *sc->services);
    if (!sc->services)
        return oom(L);
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        element(p, "workload.services", i);
        sc->n_services = (size_t)i + 1;
        int rc = load_service(L, o, p, &sc->services[i], i);
        if (rc)
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(sc->services[k].cfg.name, sc->services[i].cfg.name) == 0)
                return fail(L, p, "service name \"%s\" used twice", sc->services[i].cfg.name);
    }
    return TM_OK;
}

static int load_workload(loader *L, const cJSON *w)
{
    static const char *const keys[] = {"classes", "services", NULL};
    int rc = check_object(L, w, "workload", keys);
    if (rc || (rc = load_services(L, member(w, "services"))))
        return rc;
    const cJSON *arr = member(w, "classes");
    sim_scenario *sc = L->sc;
    if (!arr && sc->n_services > 0)
        return TM_OK;
    if (!cJSON_IsArray(arr) || (cJSON_GetArraySize(arr) < 1 && sc->n_services == 0))
        return fail(L, "workload.classes", "expected a non-empty array of classes, got %s",
                    kind_of(arr));
    int n = cJSON_GetArraySize(arr);
    sc->classes = calloc(n ? (size_t)n : 1, sizeof *sc->classes);
    if (!sc->classes)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        element(p, "workload.classes", i);
        sc->n_classes = (size_t)i + 1; /* so that fini frees what was loaded */
        if ((rc = load_class(L, o, p, &sc->classes[i], i)) ||
            (rc = load_class_special(L, o, p, &sc->classes[i], i)))
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(sc->classes[k].name, sc->classes[i].name) == 0) {
                char q[PATH_MAX_LEN];
                child(q, p, "name");
                return fail(L, q, "class name \"%s\" used twice", sc->classes[i].name);
            }
    }
    return TM_OK;
}

static int load_policy(loader *L, const cJSON *v)
{
    sim_scenario *sc = L->sc;
    if (!v) {
        snprintf(sc->policy, sizeof sc->policy, "order=fifo placement=first-fit backfill=none");
        return TM_OK;
    }
    if (cJSON_IsString(v)) {
        if (strlen(v->valuestring) >= sizeof sc->policy)
            return fail(L, "policy", "longer than %zu bytes", sizeof sc->policy - 1);
        snprintf(sc->policy, sizeof sc->policy, "%s", v->valuestring);
        return TM_OK;
    }
    static const char *const keys[] = {"order",   "placement", "backfill",
                                       "preempt", "service",   NULL};
    int rc = check_object(L, v, "policy", keys);
    if (rc)
        return rc;
    char order[64], placement[64], backfill[64], preempt[64], service[64];
    if ((rc = get_string(L, v, "policy", "order", order, sizeof order, "fifo")) ||
        (rc = get_string(L, v, "policy", "placement", placement, sizeof placement, "first-fit")) ||
        (rc = get_string(L, v, "policy", "backfill", backfill, sizeof backfill, "none")) ||
        (rc = get_string(L, v, "policy", "preempt", preempt, sizeof preempt, "")) ||
        (rc = get_string(L, v, "policy", "service", service, sizeof service, "")))
        return rc;
    int n = snprintf(sc->policy, sizeof sc->policy, "order=%s placement=%s backfill=%s", order,
                     placement, backfill);
    if (preempt[0] && n >= 0 && (size_t)n < sizeof sc->policy)
        n += snprintf(sc->policy + n, sizeof sc->policy - (size_t)n, " preempt=%s", preempt);
    if (service[0] && n >= 0 && (size_t)n < sizeof sc->policy)
        n += snprintf(sc->policy + n, sizeof sc->policy - (size_t)n, " service=%s", service);
    if (n < 0 || (size_t)n >= sizeof sc->policy)
        return fail(L, "policy", "specification longer than %zu bytes", sizeof sc->policy - 1);
    return TM_OK;
}

/* Check the policy specification now, so that `tarmac validate` catches it. */
static int check_policy(loader *L)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    char err[256];
    int rc = place_instance_init(&pi, &env, L->sc->policy, err, sizeof err);
    place_instance_fini(&pi);
    if (rc == PLACE_ERR_NOMEM)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    if (rc != PLACE_OK)
        return fail(L, "policy", "%s", err[0] ? err : place_strerror(rc));
    return TM_OK;
}

/* ------------------------------------------------------------------------- */
/* tenants and failures                                                       */

static int load_tenants(loader *L, const cJSON *arr)
{
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (arr && (!cJSON_IsArray(arr) || n < 1))
        return fail(L, "tenants", "expected a non-empty array of tenants, got %s", kind_of(arr));
    size_t m = n ? (size_t)n : 1;
    sc->tenants = calloc(m, sizeof *sc->tenants);
    sc->tenant_share = calloc(m, sizeof *sc->tenant_share);
    if (!sc->tenants || !sc->tenant_share)
        return oom(L);
    sc->n_tenants = m;
    if (!arr) {
        snprintf(sc->tenants[0], SIM_NAME_MAX, "default");
        sc->tenant_share[0] = 1.0;
        return TM_OK;
    }
    static const char *const keys[] = {"name", "share", NULL};
    double total = 0;
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        element(p, "tenants", i);
        int rc = check_object(L, o, p, keys);
        double share = 1.0;
        if (rc || (rc = get_string(L, o, p, "name", sc->tenants[i], SIM_NAME_MAX, NULL)) ||
            (rc = get_number(L, o, p, "share", &share, 0, 1e12, 0)))
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(sc->tenants[k], sc->tenants[i]) == 0)
                return fail(L, p, "tenant name \"%s\" used twice", sc->tenants[i]);
        sc->tenant_share[i] = share;
        total += share;
    }
    if (!(total > 0))
        return fail(L, "tenants", "the shares add up to 0");
    for (size_t k = 0; k < m; k++)
        sc->tenant_share[k] /= total;
    return TM_OK;
}

/* Default MTBF: one job-interrupting failure per 50,700 GPU-hours, from Meta's
 * Llama 3 405B run (419 unexpected interruptions over 16,384 H100 for 54 days;
 * cost-figures.md §5, solid). Only H100s were measured: the same figure is
 * used for every type unless the scenario gives its own. The repair time is an
 * assumption (exponential, mean 8 h): no source gives one. */
#define DEFAULT_MTBF_H   50700.0
#define DEFAULT_REPAIR_S (8 * 3600.0)

static int load_failures(loader *L, const cJSON *o)
{
    sim_failure_cfg *f = &L->sc->failures;
    for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
        f->mtbf_h[t] = DEFAULT_MTBF_H;
    f->restart = 1;
    if (!o)
        return TM_OK;
    static const char *const keys[] = {"mtbf_h", "repair", "restart", NULL};
    int rc = check_object(L, o, "failures", keys);
    if (rc)
        return rc;
    f->enabled = 1;
    const cJSON *m = member(o, "mtbf_h");
    if (cJSON_IsNumber(m)) {
        double x;
        if ((rc = get_number(L, o, "failures", "mtbf_h", &x, 1e-3, 1e12, 1)))
            return rc;
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            f->mtbf_h[t] = x;
    } else if (cJSON_IsObject(m)) {
        for (const cJSON *e = m->child; e; e = e->next) {
            char p[PATH_MAX_LEN];
            child(p, "failures.mtbf_h", e->string);
            uint32_t t = 0;
            if ((rc = find_type(L, p, e->string, &t)))
                return rc;
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !(e->valuedouble > 0))
                return fail(L, p, "expected an MTBF in hours > 0, got %s", kind_of(e));
            f->mtbf_h[t] = e->valuedouble;
        }
    } else if (m) {
        return fail(L, "failures.mtbf_h", "expected hours, or {\"GPU type\": hours}, got %s",
                    kind_of(m));
    }
    const cJSON *r = member(o, "repair");
    if (r) {
        if ((rc = load_dist(L, r, "failures.repair", VAL_DURATION, &f->repair_s)))
            return rc;
    } else {
        tm_diag sub;
        if (trace_dist_init(&f->repair_s, TRACE_DIST_EXPONENTIAL, DEFAULT_REPAIR_S, 0, &sub))
            return oom(L);
    }
    return get_bool(L, o, "failures", "restart", &f->restart);
}

/* ------------------------------------------------------------------------- */
/* top level                                                                  */

static void line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int load_cost(loader *L, const cJSON *o); /* at the end of the file */

static int load_tree(loader *L, const cJSON *root)
{
    static const char *const keys[] = {"name",          "description", "seed",     "horizon",
                                       "stop",          "sample",      "policy",   "gpu_types",
                                       "reference_gpu", "tenants",     "failures", "fleet",
                                       "workload",      "cost",        NULL};
    int rc = check_object(L, root, "", keys);
    if (rc)
        return rc;
    sim_scenario *sc = L->sc;
    char stop[16], desc[1024];
    int64_t seed = 1;
    sc->horizon_us = 30 * 86400 * SIM_US_PER_S;
    sc->sample_us = 0;
    if ((rc = get_string(L, root, "", "name", sc->name, sizeof sc->name, "unnamed")) ||
        (rc = get_string(L, root, "", "description", desc, sizeof desc, "")) ||
        (rc = get_int(L, root, "", "seed", &seed, 0, (1ll << 53) - 1, 0)) ||
        (rc = get_duration(L, root, "", "horizon", &sc->horizon_us, 0)) ||
        (rc = get_string(L, root, "", "stop", stop, sizeof stop, "horizon")) ||
        (rc = get_duration(L, root, "", "sample", &sc->sample_us, 0)))
        return rc;
    sc->seed = (uint64_t)seed;
    if (sc->horizon_us <= 0)
        return fail(L, "horizon", "expected a horizon > 0");
    if (strcmp(stop, "horizon") == 0)
        sc->stop = SIM_STOP_HORIZON;
    else if (strcmp(stop, "drain") == 0)
        sc->stop = SIM_STOP_DRAIN;
    else
        return fail(L, "stop", "expected \"horizon\" or \"drain\", got \"%s\"", stop);
    if (sc->sample_us == 0) {
        /* about 500 bins over the horizon, rounded to a whole minute */
        int64_t s = sc->horizon_us / 500 / (60 * SIM_US_PER_S) * (60 * SIM_US_PER_S);
        sc->sample_us = s > 0 ? s : 60 * SIM_US_PER_S;
    }
    if (sc->horizon_us / sc->sample_us > 10000000)
        return fail(L, "sample", "more than 10 million time-series bins over the horizon");
    if ((rc = load_types(L, member(root, "gpu_types"))))
        return rc;
    char ref[SIM_NAME_MAX];
    if ((rc = get_string(L, root, "", "reference_gpu", ref, sizeof ref, "H100")) ||
        (rc = find_type(L, "reference_gpu", ref, &sc->reference_type)) ||
        (rc = load_tenants(L, member(root, "tenants"))))
        return rc;
    const cJSON *fleet = member(root, "fleet");
    if (!fleet)
        return fail(L, "fleet", "required: the fleet");
    if ((rc = load_fleet(L, fleet)))
        return rc;
    const cJSON *w = member(root, "workload");
    if (!w)
        return fail(L, "workload", "required: the workload");
    if ((rc = load_workload(L, w)) || (rc = load_policy(L, member(root, "policy"))) ||
        (rc = check_policy(L)) || (rc = load_failures(L, member(root, "failures"))) ||
        (rc = load_cost(L, member(root, "cost"))))
        return rc;
    return TM_OK;
}

int sim_scenario_load_text(sim_scenario *sc, const char *text, size_t len, const char *name,
                           tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    tm_diag_clear(diag);
    loader L = {name ? name : "(scenario)", "", diag, sc};
    const char *slash = name ? strrchr(name, '/') : NULL;
    if (slash && (size_t)(slash - name) < sizeof L.dir)
        snprintf(L.dir, sizeof L.dir, "%.*s", (int)(slash - name), name);
    snprintf(sc->source, sizeof sc->source, "%s", L.file);
    if (len > SCENARIO_MAX_BYTES)
        return tm_diag_set(diag, TM_ERR_LIMIT, L.file, "larger than %u MiB",
                           SCENARIO_MAX_BYTES >> 20);
    sc->json_given = malloc(len + 1);
    if (!sc->json_given)
        return tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    memcpy(sc->json_given, text, len);
    sc->json_given[len] = '\0';
    if (memchr(text, '\0', len)) {
        int rc = tm_diag_set(diag, TM_ERR_JSON, L.file, "contains a NUL byte: not a JSON text");
        sim_scenario_fini(sc);
        return rc;
    }
    const char *end = NULL;
    int oom;
    /* the length includes the terminating NUL: cJSON checks for it after the value */
    cJSON *root = json_parse(sc->json_given, len + 1, &end, &oom);
    if (!root && oom) {
        sim_scenario_fini(sc);
        return tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    }
    if (!root) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at)
            at = sc->json_given + len;
        line_col(sc->json_given, at, &line, &col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d", L.file, line, col);
        int rc = tm_diag_set(diag, TM_ERR_JSON, where,
                             "malformed JSON near \"%.20s\" (a syntax error, or nesting deeper "
                             "than %d levels)",
                             at, CJSON_NESTING_LIMIT);
        sim_scenario_fini(sc);
        return rc;
    }
    int rc = load_tree(&L, root);
    cJSON_Delete(root);
    if (rc != TM_OK) {
        char keep[sizeof sc->source];
        snprintf(keep, sizeof keep, "%s", sc->source);
        sim_scenario_fini(sc);
        snprintf(sc->source, sizeof sc->source, "%s", keep);
    }
    return rc;
}

/* The whole of file `path`, NUL-terminated (malloc'd; *len excludes the NUL).
 * A file that reaches SCENARIO_MAX_BYTES is refused before it is all read. */
static int read_whole_file(const char *path, char **out, size_t *len_out, tm_diag *diag)
{
    *out = NULL;
    *len_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tm_diag_set(diag, errno == ENOENT ? TM_ERR_NOTFOUND : TM_ERR_IO, path,
                           "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = TM_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > SCENARIO_MAX_BYTES + 1) {
                rc = tm_diag_set(diag, TM_ERR_LIMIT, path, "larger than %u MiB",
                                 SCENARIO_MAX_BYTES >> 20);
                break;
            }
            char *nb = realloc(buf, cap + 1); /* + 1: the NUL */
            if (!nb) {
                rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = tm_diag_set(diag, TM_ERR_IO, path, "read error: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc == TM_OK && !buf && !(buf = malloc(1)))
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    if (rc != TM_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    *len_out = len;
    return TM_OK;
}

int sim_scenario_load_file(sim_scenario *sc, const char *path, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    char *buf;
    size_t len;
    int rc = read_whole_file(path, &buf, &len, diag);
    if (rc != TM_OK)
        return rc;
    rc = sim_scenario_load_text(sc, buf, len, path, diag);
    free(buf);
    return rc;
}

int sim_scenario_load_default(sim_scenario *sc, tm_diag *diag)
{
    int rc = sim_scenario_load_text(sc, sim__default_scenario, sim__default_scenario_len,
                                    "(embedded default)", diag);
    return rc;
}

void sim_scenario_fini(sim_scenario *sc)
{
    if (!sc)
        return;
    for (size_t c = 0; c < sc->n_classes; c++)
        class_fini(&sc->classes[c]);
    free(sc->classes);
    free(sc->services);
    free(sc->tenants);
    free(sc->tenant_share);
    trace_dist_fini(&sc->failures.repair_s);
    free(sc->pools);
    free(sc->types);
    free(sc->json_given);
    free(sc->cost);
    memset(sc, 0, sizeof *sc);
}

/* ------------------------------------------------------------------------- */
/* scenarios built in code (trace replay)                                     */

void sim_scenario_class_defaults(const sim_scenario *sc, sim_class_cfg *cc, const char *name)
{
    memset(cc, 0, sizeof *cc);
    snprintf(cc->name, sizeof cc->name, "%s", name);
    cc->kind = SIM_KIND_GENERIC;
    trace_arrival_cfg_poisson(&cc->arrival, 0.0);
    cc->scaling_per_doubling = 1.0;
    cc->span_slowdown = 1.0;
    cc->value = 1.0;
    cc->deadline_us = -1;
    cc->special_at_us = -1;
    cc->speed_basis = SIM_SPEED_COMPUTE;
    for (size_t t = 0; t < sc->n_types; t++)
        cc->speed[t] = derived_speed(sc, cc->speed_basis, (uint32_t)t);
}

int sim_scenario_init_code(sim_scenario *sc, const char *name, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    loader L = {"(scenario)", "", diag, sc};
    snprintf(sc->name, sizeof sc->name, "%s", name ? name : "unnamed");
    snprintf(sc->source, sizeof sc->source, "(built in code)");
    sc->seed = 1;
    sc->horizon_us = 30 * 86400 * SIM_US_PER_S;
    sc->sample_us = 3600 * SIM_US_PER_S;
    snprintf(sc->policy, sizeof sc->policy, "order=fifo placement=first-fit backfill=none");
    int rc = load_types(&L, NULL);
    if (rc == TM_OK)
        rc = find_type(&L, "reference_gpu", "H100", &sc->reference_type);
    if (rc == TM_OK)
        rc = load_tenants(&L, NULL);
    if (rc == TM_OK)
        rc = load_failures(&L, NULL);
    if (rc != TM_OK)
        sim_scenario_fini(sc);
    return rc;
}

const char *sim_lib_version_cjson(void)
{
    return cJSON_Version();
}

/* ------------------------------------------------------------------------- */
/* the resolved scenario, as JSON                                             */

static cJSON *num_or_null(double x)
{
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static const char *dist_name(trace_dist_kind k)
{
    static const char *const names[] = {"constant", "exponential", "lognormal", "weibull",
                                        "pareto",   "uniform",     "discrete",  "empirical"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static cJSON *dist_json(const trace_dist *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dist", dist_name(d->kind));
    switch (d->kind) {
    case TRACE_DIST_CONSTANT:
        cJSON_AddNumberToObject(o, "value", d->p[0]);
        break;
    case TRACE_DIST_EXPONENTIAL:
        cJSON_AddNumberToObject(o, "mean", d->p[0]);
        break;
    case TRACE_DIST_LOGNORMAL:
        cJSON_AddNumberToObject(o, "mu", d->p[0]);
        cJSON_AddNumberToObject(o, "sigma", d->p[1]);
        break;
    case TRACE_DIST_WEIBULL:
        cJSON_AddNumberToObject(o, "scale", d->p[0]);
        cJSON_AddNumberToObject(o, "shape", d->p[1]);
        break;
    case TRACE_DIST_PARETO:
        cJSON_AddNumberToObject(o, "scale", d->p[0]);
        cJSON_AddNumberToObject(o, "alpha", d->p[1]);
        break;
    case TRACE_DIST_UNIFORM:
        cJSON_AddNumberToObject(o, "low", d->p[0]);
        cJSON_AddNumberToObject(o, "high", d->p[1]);
        break;
    case TRACE_DIST_DISCRETE:
        cJSON_AddItemToObject(o, "values", cJSON_CreateDoubleArray(d->values, (int)d->n));
        cJSON_AddItemToObject(o, "weights", cJSON_CreateDoubleArray(d->weights, (int)d->n));
        break;
    case TRACE_DIST_EMPIRICAL:
        cJSON_AddNumberToObject(o, "n_values", (double)d->n);
        break;
    }
    cJSON_AddItemToObject(o, "mean", num_or_null(trace_dist_mean(d)));
    cJSON_AddNumberToObject(o, "min", d->min);
    cJSON_AddItemToObject(o, "max", num_or_null(d->max));
    return o;
}

/* What a class's jobs are (also its specialization's). */
static void class_json(cJSON *o, const sim_scenario *sc, const sim_class_cfg *cc)
{
    cJSON_AddItemToObject(o, "gpus", dist_json(&cc->gpus));
    if (cc->use_work) {
        cJSON_AddItemToObject(o, "work_gpu_s", dist_json(&cc->work_gpu_s));
        cJSON_AddNumberToObject(o, "scaling_per_doubling", cc->scaling_per_doubling);
    } else {
        cJSON_AddItemToObject(o, "duration_s", dist_json(&cc->duration_s));
    }
    if (cc->has_share)
        cJSON_AddItemToObject(o, "gpu_milli", dist_json(&cc->share_milli));
    if (cc->slices)
        cJSON_AddNumberToObject(o, "gpu_slices", cc->slices);
    if (cc->has_estimate)
        cJSON_AddItemToObject(o, "estimate_factor", dist_json(&cc->estimate_factor));
    else
        cJSON_AddStringToObject(o, "estimate", "none");
    cJSON_AddBoolToObject(o, "preemptible", (cc->flags & TRACE_JOB_PREEMPTIBLE) != 0);
    cJSON_AddNumberToObject(o, "checkpoint_s", (double)cc->checkpoint_us / SIM_US_PER_S);
    cJSON_AddNumberToObject(o, "restart_overhead_s", (double)cc->restart_us / SIM_US_PER_S);
    cJSON_AddNumberToObject(o, "span_slowdown", cc->span_slowdown);
    cJSON_AddNumberToObject(o, "value", cc->value);
    if (cc->deadline_us >= 0)
        cJSON_AddNumberToObject(o, "deadline_s", (double)cc->deadline_us / SIM_US_PER_S);
    cJSON_AddStringToObject(o, "speed_basis",
                            cc->speed_basis == SIM_SPEED_MEMORY ? "memory" : "compute");
    cJSON *sp = cJSON_AddObjectToObject(o, "speeds");
    for (size_t t = 0; t < sc->n_types; t++)
        cJSON_AddNumberToObject(sp, sc->types[t].name, cc->speed[t]);
}

static void service_model_json(cJSON *o, const sim_scenario *sc, const sim__svc_cfg *cfg)
{
    cJSON_AddStringToObject(o, "model", cfg->model);
    cJSON_AddNumberToObject(o, "replica_gpus", cfg->replica_gpus);
    cJSON_AddNumberToObject(o, "gpu_mem_gib", cfg->gpu_mem_mib / 1024.0);
    cJSON *tps = cJSON_AddObjectToObject(o, "tokens_per_s");
    cJSON *conc = cJSON_AddObjectToObject(o, "concurrency");
    for (uint32_t t = 0; t < sc->n_types; t++)
        if (sim__svc_type_ok(cfg, t)) {
            cJSON_AddNumberToObject(tps, sc->types[t].name, cfg->tokens_per_s[t]);
            cJSON_AddNumberToObject(conc, sc->types[t].name, sim__svc_concurrency(cfg, t));
        }
    cJSON_AddNumberToObject(o, "tokens_in", cfg->tokens_in_per_req);
    cJSON_AddNumberToObject(o, "tokens_out", cfg->tokens_out_per_req);
    cJSON_AddNumberToObject(o, "prefill_weight", cfg->prefill_weight);
}

char *sim_scenario_resolved_json(const sim_scenario *sc)
{
    static const char *const own[] = {"owned", "reserved", "on-demand"};
    /* The tree is built without checking each call: any allocation that
     * fails on the way sets json_oom (the loader's hooks), and then the whole
     * text is refused rather than written with pieces missing. */
    static cJSON_Hooks hooks = {json_malloc, json_free};
    cJSON_InitHooks(&hooks);
    json_oom = 0;
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return NULL;
    cJSON_AddStringToObject(r, "name", sc->name);
    cJSON_AddNumberToObject(r, "seed", (double)sc->seed);
    cJSON_AddNumberToObject(r, "horizon_s", (double)sc->horizon_us / SIM_US_PER_S);
    cJSON_AddStringToObject(r, "stop", sc->stop == SIM_STOP_DRAIN ? "drain" : "horizon");
    cJSON_AddNumberToObject(r, "sample_s", (double)sc->sample_us / SIM_US_PER_S);
    cJSON_AddStringToObject(r, "policy", sc->policy);
    cJSON_AddStringToObject(r, "reference_gpu", sc->types[sc->reference_type].name);
    cJSON *tenants = cJSON_AddArrayToObject(r, "tenants");
    for (size_t k = 0; k < sc->n_tenants; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sc->tenants[k]);
        cJSON_AddNumberToObject(o, "share", sc->tenant_share[k]);
        cJSON_AddItemToArray(tenants, o);
    }
    if (sc->failures.enabled) {
        cJSON *f = cJSON_AddObjectToObject(r, "failures");
        cJSON *m = cJSON_AddObjectToObject(f, "mtbf_h");
        for (size_t t = 0; t < sc->n_types; t++)
            cJSON_AddNumberToObject(m, sc->types[t].name, sc->failures.mtbf_h[t]);
        cJSON_AddItemToObject(f, "repair_s", dist_json(&sc->failures.repair_s));
        cJSON_AddBoolToObject(f, "restart", sc->failures.restart);
    }
    cJSON *types = cJSON_AddArrayToObject(r, "gpu_types");
    for (size_t t = 0; t < sc->n_types; t++) {
        const sim_gpu_type *g = &sc->types[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", g->name);
        cJSON_AddNumberToObject(o, "mem_gib", g->mem_mib / 1024.0);
        cJSON_AddItemToObject(o, "bf16_tflops", num_or_null(g->bf16_tflops));
        cJSON_AddItemToObject(o, "mem_bw_gbs", num_or_null(g->mem_bw_gbs));
        cJSON_AddItemToObject(o, "power_idle_w", num_or_null(g->power_idle_w));
        cJSON_AddItemToObject(o, "power_peak_w", num_or_null(g->power_peak_w));
        cJSON_AddItemToObject(o, "purchase_usd", num_or_null(g->purchase_usd));
        cJSON_AddItemToObject(o, "ondemand_usd_per_h", num_or_null(g->ondemand_usd_per_h));
        cJSON_AddItemToObject(o, "reserved_usd_per_h", num_or_null(g->reserved_usd_per_h));
        cJSON_AddNumberToObject(o, "partition_slices", g->partition_slices);
        cJSON_AddItemToArray(types, o);
    }
    cJSON *pools = cJSON_AddArrayToObject(cJSON_AddObjectToObject(r, "fleet"), "pools");
    for (size_t p = 0; p < sc->n_pools; p++) {
        const sim_pool_cfg *pc = &sc->pools[p];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", pc->name);
        cJSON_AddStringToObject(o, "gpu_type", sc->types[pc->type].name);
        cJSON_AddNumberToObject(o, "nodes", pc->nodes);
        cJSON_AddNumberToObject(o, "gpus_per_node", pc->gpus_per_node);
        if (pc->cpu_milli < INT64_MAX / 4)
            cJSON_AddNumberToObject(o, "cpu_cores", (double)pc->cpu_milli / 1000.0);
        if (pc->mem_mib < INT64_MAX / 4)
            cJSON_AddNumberToObject(o, "host_mem_gib", (double)pc->mem_mib / 1024.0);
        cJSON_AddStringToObject(o, "ownership", own[pc->ownership]);
        cJSON_AddNumberToObject(o, "delivered_s", (double)pc->delivered_us / SIM_US_PER_S);
        if (pc->retired_us >= 0)
            cJSON_AddNumberToObject(o, "retired_s", (double)pc->retired_us / SIM_US_PER_S);
        cJSON_AddItemToArray(pools, o);
    }
    cJSON *workload = cJSON_AddObjectToObject(r, "workload");
    cJSON *classes = cJSON_AddArrayToObject(workload, "classes");
    for (size_t c = 0; c < sc->n_classes; c++) {
        const sim_class_cfg *cc = &sc->classes[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", cc->name);
        cJSON_AddStringToObject(o, "kind", sim_kind_name((int)cc->kind));
        cJSON *a = cJSON_AddObjectToObject(o, "arrival");
        cJSON_AddStringToObject(a, "process", "poisson");
        cJSON_AddNumberToObject(a, "rate_per_s", cc->arrival.rate_per_s);
        cJSON_AddItemToObject(a, "daily", cJSON_CreateDoubleArray(cc->arrival.daily, 24));
        cJSON_AddItemToObject(a, "weekly", cJSON_CreateDoubleArray(cc->arrival.weekly, 7));
        cJSON_AddNumberToObject(a, "growth_per_month", cc->arrival.growth_per_month);
        cJSON_AddNumberToObject(a, "start_offset_s", cc->arrival.t0_offset_s);
        if (cc->arrival.mmpp_states > 1) {
            cJSON *m = cJSON_AddObjectToObject(a, "mmpp");
            cJSON_AddItemToObject(
                m, "multipliers",
                cJSON_CreateDoubleArray(cc->arrival.mmpp_mult, (int)cc->arrival.mmpp_states));
            cJSON_AddItemToObject(
                m, "sojourn_s",
                cJSON_CreateDoubleArray(cc->arrival.mmpp_sojourn_s, (int)cc->arrival.mmpp_states));
        }
        class_json(o, sc, cc);
        cJSON_AddNumberToObject(o, "gpu_mem_gib", cc->gpu_mem_mib / 1024.0);
        cJSON *tl = cJSON_AddArrayToObject(o, "gpu_types");
        for (size_t t = 0; t < sc->n_types; t++)
            if ((cc->type_mask >> t) & 1u)
                cJSON_AddItemToArray(tl, cJSON_CreateString(sc->types[t].name));
        cJSON_AddBoolToObject(o, "can_span", (cc->flags & TRACE_JOB_CAN_SPAN) != 0);
        cJSON_AddNumberToObject(o, "priority", cc->priority);
        cJSON_AddNumberToObject(o, "max_jobs", (double)cc->max_jobs);
        if (cc->special) {
            cJSON *sp = cJSON_AddObjectToObject(o, "specialize");
            cJSON_AddNumberToObject(sp, "at_s", (double)cc->special_at_us / SIM_US_PER_S);
            class_json(sp, sc, cc->special);
        }
        cJSON_AddItemToArray(classes, o);
    }
    cJSON *services = cJSON_AddArrayToObject(workload, "services");
    for (size_t v = 0; v < sc->n_services; v++) {
        const sim_service_spec *sp = &sc->services[v];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sp->cfg.name);
        service_model_json(o, sc, &sp->cfg);
        const sim__svc_cfg *cfg = &sp->cfg;
        cJSON *ld = cJSON_AddObjectToObject(o, "load");
        cJSON_AddNumberToObject(ld, "rate_per_s", cfg->load.rate_per_s);
        cJSON_AddItemToObject(ld, "daily", cJSON_CreateDoubleArray(cfg->load.daily, 24));
        cJSON_AddItemToObject(ld, "weekly", cJSON_CreateDoubleArray(cfg->load.weekly, 7));
        cJSON_AddNumberToObject(ld, "growth_per_month", cfg->load.growth_per_month);
        cJSON_AddNumberToObject(ld, "start_offset_s", cfg->load.t0_offset_s);
        cJSON *slo = cJSON_AddObjectToObject(o, "slo");
        cJSON_AddNumberToObject(slo, "latency_s", cfg->slo_s);
        cJSON_AddStringToObject(slo, "kind",
                                cfg->slo_kind == SIM__SVC_SLO_WAIT ? "wait" : "response");
        cJSON_AddNumberToObject(slo, "target", cfg->slo_target);
        cJSON_AddStringToObject(o, "overflow",
                                cfg->overflow == SIM__SVC_OVERFLOW_API ? "api" : "miss");
        cJSON *as = cJSON_AddObjectToObject(o, "autoscale");
        cJSON_AddNumberToObject(as, "min", cfg->min_replicas);
        cJSON_AddNumberToObject(as, "max", cfg->max_replicas);
        cJSON_AddNumberToObject(as, "target_util", cfg->target_util);
        cJSON_AddNumberToObject(as, "scale_up_delay_s", cfg->scale_up_delay_s);
        cJSON_AddNumberToObject(as, "scale_down_window_s", cfg->scale_down_window_s);
        cJSON_AddNumberToObject(o, "priority", sp->priority);
        cJSON *api = cJSON_AddObjectToObject(o, "api_price");
        cJSON_AddNumberToObject(api, "input_usd_per_mtok", sp->api_in_usd_per_mtok);
        cJSON_AddNumberToObject(api, "output_usd_per_mtok", sp->api_out_usd_per_mtok);
        if (sp->special_at_us >= 0) {
            cJSON *s2 = cJSON_AddObjectToObject(o, "specialize");
            cJSON_AddNumberToObject(s2, "at_s", (double)sp->special_at_us / SIM_US_PER_S);
            service_model_json(s2, sc, &sp->special);
        }
        cJSON_AddItemToArray(services, o);
    }
    char *s = json_oom ? NULL : cJSON_Print(r);
    cJSON_Delete(r);
    if (s && json_oom) {
        json_free(s);
        s = NULL;
    }
    return s;
}

/* ------------------------------------------------------------------------- */
/* Fleet-only files, for `tarmac replay --fleet` (declared at the end of
 * sim.h). The file is parsed once here to see what it holds; a bare
 * {"pools": [...]} is wrapped as a fleet, and a missing workload gets one
 * placeholder class, then the text goes through the full loader above, so
 * every check and message is the loader's own. */

int sim_scenario_load_fleet_file(sim_scenario *sc, const char *path, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    char *given;
    size_t len;
    int rc = read_whole_file(path, &given, &len, diag);
    if (rc != TM_OK)
        return rc;
    int oom;
    cJSON *root = json_parse(given, len + 1, NULL, &oom);
    if (!root && oom) {
        free(given);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    if (!root || !cJSON_IsObject(root) ||
        (cJSON_GetObjectItemCaseSensitive(root, "workload") &&
         cJSON_GetObjectItemCaseSensitive(root, "fleet"))) {
        /* a whole scenario, or not an object: the loader says what is wrong */
        cJSON_Delete(root);
        rc = sim_scenario_load_text(sc, given, len, path, diag);
        free(given);
        return rc;
    }
    /* Wrap it into a scenario. Every cJSON call that allocates is checked: a
     * piece missing for want of memory would make a different scenario. An
     * item not attached to the tree is still ours to delete. */
    int ok = 1;
    if (cJSON_GetObjectItemCaseSensitive(root, "pools") &&
        !cJSON_GetObjectItemCaseSensitive(root, "fleet")) {
        cJSON *pools = cJSON_DetachItemFromObjectCaseSensitive(root, "pools");
        cJSON *fleet = cJSON_AddObjectToObject(root, "fleet");
        ok = fleet && cJSON_AddItemToObject(fleet, "pools", pools);
        if (!ok)
            cJSON_Delete(pools);
    }
    if (ok && !cJSON_GetObjectItemCaseSensitive(root, "workload")) {
        cJSON *w = cJSON_AddObjectToObject(root, "workload");
        cJSON *arr = w ? cJSON_AddArrayToObject(w, "classes") : NULL;
        cJSON *cls = cJSON_CreateObject();
        cJSON *a = cls ? cJSON_AddObjectToObject(cls, "arrival") : NULL;
        ok = arr && a && cJSON_AddStringToObject(cls, "name", "trace") &&
             cJSON_AddNumberToObject(a, "rate_per_s", 0) &&
             cJSON_AddNumberToObject(cls, "duration", 0) && cJSON_AddItemToArray(arr, cls);
        if (!ok)
            cJSON_Delete(cls);
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        free(given);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    rc = sim_scenario_load_text(sc, text, strlen(text), path, diag);
    free(text);
    if (rc == TM_OK) {
        free(sc->json_given); /* keep the file as given, not the wrapped text */
        sc->json_given = given;
    } else {
        free(given);
    }
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Cluster snapshots for `tarmac place` (docs/place-json.md)                  */
/*
 * The same loader discipline as scenarios: every object's keys are checked,
 * every number is range-checked, errors name the JSON path, and the tree is
 * converted to typed arrays at once (sim_snapshot) and freed. Integers are
 * read through doubles, so they are bounded by 2^53 (285 years of
 * microseconds; ids beyond that are refused rather than rounded).
 */

#define SNAP_INT_MAX ((1ll << 53) - 1)
/* Bounds that keep a hostile snapshot from asking for absurd memory. */
#define SNAP_MAX_ITEMS 10000000
#define SNAP_MAX_PARTS 4096

/* snap_child() and snap_element() for the snapshot reader: a path longer than the
 * buffer ends in "..." (the result of snprintf is checked, not ignored). */
static void snap_child(char *out, const char *path, const char *key)
{
    int n = path[0] ? snprintf(out, PATH_MAX_LEN, "%s.%s", path, key)
                    : snprintf(out, PATH_MAX_LEN, "%s", key);
    if (n < 0 || n >= PATH_MAX_LEN)
        memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

static void snap_element(char *out, const char *path, int i)
{
    int n = snprintf(out, PATH_MAX_LEN, "%s[%d]", path, i);
    if (n < 0 || n >= PATH_MAX_LEN)
        memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

/* The keys of a job; the ones from "start_us" on belong to running jobs only. */
static const char *const snap_job_keys[] = {"id",
                                            "submit_us",
                                            "estimate_us",
                                            "deadline_us",
                                            "attained_gpu_s",
                                            "speed",
                                            "gpu_types",
                                            "gpus",
                                            "gpu_milli",
                                            "gpu_mem_mib",
                                            "cpu_milli",
                                            "host_mem_mib",
                                            "priority",
                                            "tenant",
                                            "class",
                                            "group",
                                            "flags",
                                            "restart_us",
                                            "span_slowdown",
                                            "start_us",
                                            "end_estimate_us",
                                            "lost_gpu_s",
                                            "overhead_us",
                                            "checkpoint_us",
                                            "parts",
                                            NULL};
#define SNAP_RUNNING_KEYS 19 /* index of "start_us" */

/* An array member (required or not); *n gets its size, checked against max. */
static int snap_array(loader *L, const cJSON *o, const char *path, const char *key, int required,
                      int max, const cJSON **arr, int *n)
{
    char p[PATH_MAX_LEN];
    snap_child(p, path, key);
    const cJSON *v = member(o, key);
    *arr = NULL;
    *n = 0;
    if (!v) {
        if (required)
            return fail(L, p, "required: expected an array");
        return TM_OK;
    }
    if (!cJSON_IsArray(v))
        return fail(L, p, "expected an array, got %s", kind_of(v));
    int k = cJSON_GetArraySize(v);
    if (k > max)
        return fail(L, p, "more than %d entries", max);
    *arr = v;
    *n = k;
    return TM_OK;
}

static int snap_type_index(loader *L, const sim_snapshot *s, const cJSON *v, const char *p,
                           uint32_t *out)
{
    if (cJSON_IsString(v)) {
        for (uint32_t t = 0; t < s->n_types; t++)
            if (strcmp(s->type_name[t], v->valuestring) == 0) {
                *out = t;
                return TM_OK;
            }
        return fail(L, p, "no GPU type named \"%s\" in gpu_types", v->valuestring);
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (!cJSON_IsNumber(v) || x != floor(x) || x < 0 || x >= s->n_types)
        return fail(L, p, "expected a GPU type name or an index below %u, got %s", s->n_types,
                    kind_of(v));
    *out = (uint32_t)x;
    return TM_OK;
}

/* A job (queue entry, or the job of a running entry). */
static int snap_job(loader *L, sim_snapshot *s, const cJSON *o, const char *p, place_job *j,
                    int running)
{
    int rc = check_object(L, o, p, snap_job_keys);
    if (rc)
        return rc;
    if (!running)
        for (const char *const *k = snap_job_keys + SNAP_RUNNING_KEYS; *k; k++)
            if (member(o, *k)) {
                char q[PATH_MAX_LEN];
                snap_child(q, p, *k);
                return fail(L, q, "only a running job has this key");
            }
    memset(j, 0, sizeof *j);
    int64_t id = 0, submit = 0, est = -1, dl = -1, gpus = 1, milli = PLACE_MILLI_WHOLE, mem = 0,
            cpu = 0, hmem = 0, prio = 0, tenant = 0, cls = 0, group = 0, restart = 0;
    double att = 0, span = 1;
    if ((rc = get_int(L, o, p, "id", &id, 0, SNAP_INT_MAX, 1)) ||
        (rc = get_int(L, o, p, "submit_us", &submit, -SNAP_INT_MAX, SNAP_INT_MAX, 0)) ||
        (rc = get_int(L, o, p, "estimate_us", &est, -1, SNAP_INT_MAX, 0)) ||
        (rc = get_int(L, o, p, "deadline_us", &dl, -1, SNAP_INT_MAX, 0)) ||
        (rc = get_number(L, o, p, "attained_gpu_s", &att, 0, 1e18, 0)) ||
        (rc = get_int(L, o, p, "gpus", &gpus, 0, 1 << 20, 0)) ||
        (rc = get_int(L, o, p, "gpu_milli", &milli, 1, PLACE_MILLI_WHOLE, 0)) ||
        (rc = get_int(L, o, p, "gpu_mem_mib", &mem, 0, UINT32_MAX, 0)) ||
        (rc = get_int(L, o, p, "cpu_milli", &cpu, 0, SNAP_INT_MAX, 0)) ||
        (rc = get_int(L, o, p, "host_mem_mib", &hmem, 0, SNAP_INT_MAX, 0)) ||
        (rc = get_int(L, o, p, "priority", &prio, INT32_MIN, INT32_MAX, 0)) ||
        (rc = get_int(L, o, p, "tenant", &tenant, 0, UINT32_MAX, 0)) ||
        (rc = get_int(L, o, p, "class", &cls, 0, UINT32_MAX, 0)) ||
        (rc = get_int(L, o, p, "group", &group, 0, UINT32_MAX, 0)) ||
        (rc = get_int(L, o, p, "restart_us", &restart, 0, SNAP_INT_MAX, 0)) ||
        (rc = get_number(L, o, p, "span_slowdown", &span, 1, 1000, 0)))
        return rc;
    char q[PATH_MAX_LEN];
    if (milli < PLACE_MILLI_WHOLE && gpus != 1) {
        snap_child(q, p, "gpu_milli");
        return fail(L, q, "a share below 1000 milli-GPU needs \"gpus\": 1, got %lld GPUs",
                    (long long)gpus);
    }
    j->id = (uint64_t)id;
    j->submit_us = submit;
    j->estimate_us = est;
    j->deadline_us = dl;
    j->attained_gpu_s = att;
    j->gpus = (uint32_t)gpus;
    j->gpu_milli = (uint32_t)milli;
    j->gpu_mem_mib = (uint32_t)mem;
    j->cpu_milli = cpu;
    j->host_mem_mib = hmem;
    j->priority = (int32_t)prio;
    j->tenant = (uint32_t)tenant;
    j->cls = (uint32_t)cls;
    j->group = (uint32_t)group;
    j->restart_us = restart;
    j->span_slowdown = span;
    const cJSON *arr;
    int n;
    if ((rc = snap_array(L, o, p, "gpu_types", 0, PLACE_MAX_TYPES, &arr, &n)))
        return rc;
    int i = 0;
    for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next, i++) {
        char e[PATH_MAX_LEN];
        snap_child(q, p, "gpu_types");
        snap_element(e, q, i);
        uint32_t t;
        if ((rc = snap_type_index(L, s, v, e, &t)))
            return rc;
        j->type_mask |= 1ull << t;
    }
    if ((rc = snap_array(L, o, p, "flags", 0, 8, &arr, &n)))
        return rc;
    static const struct {
        const char *name;
        uint32_t bit;
    } flags[] = {{"can_span", PLACE_JOB_CAN_SPAN},
                 {"preemptible", PLACE_JOB_PREEMPTIBLE},
                 {"service", PLACE_JOB_SERVICE},
                 {"api_ok", PLACE_JOB_API_OK}};
    i = 0;
    for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next, i++) {
        char e[PATH_MAX_LEN];
        snap_child(q, p, "flags");
        snap_element(e, q, i);
        size_t f;
        for (f = 0; f < sizeof flags / sizeof flags[0]; f++)
            if (cJSON_IsString(v) && strcmp(v->valuestring, flags[f].name) == 0)
                break;
        if (f == sizeof flags / sizeof flags[0])
            return fail(L, e, "expected \"can_span\", \"preemptible\", \"service\" or \"api_ok\"");
        j->flags |= flags[f].bit;
    }
    if ((rc = snap_array(L, o, p, "speed", 0, PLACE_MAX_TYPES, &arr, &n)))
        return rc;
    if (arr) {
        snap_child(q, p, "speed");
        if ((uint32_t)n != s->n_types)
            return fail(L, q, "expected one speed per GPU type (%u), got %d", s->n_types, n);
        if (s->n_speeds + s->n_types > s->cap_speeds)
            return fail(L, q, "internal: speed storage exhausted");
        double *sp = s->speeds + s->n_speeds;
        i = 0;
        for (const cJSON *v = arr->child; v; v = v->next, i++) {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
                v->valuedouble > 1e6) {
                char e[PATH_MAX_LEN];
                snap_element(e, q, i);
                return fail(L, e, "expected a speed in [0, 1e6], got %s", kind_of(v));
            }
            sp[i] = v->valuedouble;
        }
        j->speed = sp;
        s->n_speeds += s->n_types;
    }
    return TM_OK;
}

static int snap_parts(loader *L, sim_snapshot *s, const cJSON *o, const char *p, place_running *r)
{
    static const char *const part_keys[] = {"node",    "gpus",    "gpu", "milli",
                                            "mem_mib", "gpu_ids", NULL};
    const cJSON *arr;
    int n, rc;
    if ((rc = snap_array(L, o, p, "parts", 1, SNAP_MAX_PARTS, &arr, &n)))
        return rc;
    char q[PATH_MAX_LEN];
    snap_child(q, p, "parts");
    if (n < 1)
        return fail(L, q, "a running job needs at least one part");
    if (s->n_parts + (size_t)n > s->cap_parts)
        return fail(L, q, "internal: part storage exhausted");
    place_part *pt = s->parts + s->n_parts;
    int i = 0;
    for (const cJSON *v = arr->child; v; v = v->next, i++) {
        char e[PATH_MAX_LEN];
        snap_element(e, q, i);
        if ((rc = check_object(L, v, e, part_keys)))
            return rc;
        int64_t node = 0, gpus = 0, milli = r->job.gpu_milli, mem = r->job.gpu_mem_mib;
        if ((rc = get_int(L, v, e, "node", &node, 0, (int64_t)s->n_nodes - 1, 1)) ||
            (rc = get_int(L, v, e, "gpus", &gpus, 0, PLACE_MAX_GPUS_PER_NODE, 1)) ||
            (rc = get_int(L, v, e, "milli", &milli, 1, PLACE_MILLI_WHOLE, 0)) ||
            (rc = get_int(L, v, e, "mem_mib", &mem, 0, UINT32_MAX, 0)))
            return rc;
        place_part *x = &pt[i];
        memset(x, 0, sizeof *x);
        x->node = (uint32_t)node;
        x->gpus = (uint16_t)gpus;
        x->milli = (uint32_t)milli;
        x->mem_mib = (uint32_t)mem;
        x->gpu = PLACE_GPU_ANY;
        const cJSON *g = member(v, "gpu");
        if (g && !cJSON_IsNull(g)) {
            int64_t gi = 0;
            if ((rc = get_int(L, v, e, "gpu", &gi, 0, PLACE_MAX_GPUS_PER_NODE - 1, 0)))
                return rc;
            x->gpu = (uint16_t)gi;
        }
        const cJSON *ids;
        int nid;
        if ((rc = snap_array(L, v, e, "gpu_ids", 1, PLACE_MAX_GPUS_PER_NODE, &ids, &nid)))
            return rc;
        int k = 0;
        for (const cJSON *id = ids->child; id; id = id->next, k++) {
            double y = cJSON_IsNumber(id) ? id->valuedouble : -1;
            char f[PATH_MAX_LEN], h[PATH_MAX_LEN];
            snap_child(f, e, "gpu_ids");
            snap_element(h, f, k);
            if (!cJSON_IsNumber(id) || y != floor(y) || y < 0 || y >= PLACE_MAX_GPUS_PER_NODE)
                return fail(L, h, "expected a GPU index in [0, %u)", PLACE_MAX_GPUS_PER_NODE);
            uint64_t bit = 1ull << (uint32_t)y;
            if (x->mask & bit)
                return fail(L, h, "GPU %d given twice", (int)y);
            x->mask |= bit;
        }
    }
    r->parts = pt;
    r->n_parts = (uint32_t)n;
    s->n_parts += (size_t)n;
    return TM_OK;
}

static int snap_tree(loader *L, sim_snapshot *s, const cJSON *root)
{
    static const char *const keys[] = {"now_us", "policy",  "seed",  "gpu_types",
                                       "nodes",  "running", "queue", NULL};
    int rc = check_object(L, root, "", keys);
    if (rc)
        return rc;
    int64_t now = 0, seed = 1;
    if ((rc = get_int(L, root, "", "now_us", &now, 0, SNAP_INT_MAX, 1)) ||
        (rc = get_int(L, root, "", "seed", &seed, 0, SNAP_INT_MAX, 0)) ||
        (rc = get_string(L, root, "", "policy", s->policy, sizeof s->policy, "")))
        return rc;
    s->now_us = now;
    s->seed = (uint64_t)seed;
    const cJSON *types, *nodes, *running, *queue;
    int nt, nn, nr, nq;
    if ((rc = snap_array(L, root, "", "gpu_types", 1, PLACE_MAX_TYPES, &types, &nt)) ||
        (rc = snap_array(L, root, "", "nodes", 1, SNAP_MAX_ITEMS, &nodes, &nn)) ||
        (rc = snap_array(L, root, "", "running", 0, SNAP_MAX_ITEMS, &running, &nr)) ||
        (rc = snap_array(L, root, "", "queue", 0, SNAP_MAX_ITEMS, &queue, &nq)))
        return rc;
    if (nt < 1)
        return fail(L, "gpu_types", "expected at least one GPU type");
    static const char *const type_keys_snap[] = {"name", "mem_mib", NULL};
    int i = 0;
    for (const cJSON *o = types->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        snap_element(p, "gpu_types", i);
        int64_t mem = 0;
        if ((rc = check_object(L, o, p, type_keys_snap)) ||
            (rc = get_string(L, o, p, "name", s->type_name[i], SIM_NAME_MAX, NULL)) ||
            (rc = get_int(L, o, p, "mem_mib", &mem, 0, UINT32_MAX, 1)))
            return rc;
        for (int k = 0; k < i; k++)
            if (strcmp(s->type_name[k], s->type_name[i]) == 0)
                return fail(L, p, "GPU type \"%s\" given twice", s->type_name[i]);
        s->type_mem_mib[i] = (uint32_t)mem;
    }
    s->n_types = (uint32_t)nt;
    /* storage, sized from the counts: parts and speeds bounded per entry */
    s->nodes = calloc(nn ? (size_t)nn : 1, sizeof *s->nodes);
    s->queue = calloc(nq ? (size_t)nq : 1, sizeof *s->queue);
    s->running = calloc(nr ? (size_t)nr : 1, sizeof *s->running);
    s->cap_speeds = (size_t)(nq + nr) * s->n_types;
    s->speeds = calloc(s->cap_speeds ? s->cap_speeds : 1, sizeof *s->speeds);
    size_t parts = 0;
    for (const cJSON *o = running ? running->child : NULL; o; o = o->next) {
        const cJSON *pa = cJSON_IsObject(o) ? member(o, "parts") : NULL;
        int k = cJSON_IsArray(pa) ? cJSON_GetArraySize(pa) : 0;
        parts += (size_t)(k < SNAP_MAX_PARTS ? k : SNAP_MAX_PARTS);
    }
    s->cap_parts = parts;
    s->parts = calloc(parts ? parts : 1, sizeof *s->parts);
    if (!s->nodes || !s->queue || !s->running || !s->speeds || !s->parts)
        return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
    static const char *const node_keys[] = {"type", "gpus",      "cpu_milli", "mem_mib",
                                            "up",   "gpus_down", NULL};
    i = 0;
    for (const cJSON *o = nodes->child; o; o = o->next, i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        snap_element(p, "nodes", i);
        if ((rc = check_object(L, o, p, node_keys)))
            return rc;
        sim_snapshot_node *nd = &s->nodes[i];
        int64_t gpus = 8;
        nd->cpu_milli = INT64_MAX / 4; /* absent: no limit, as in a scenario */
        nd->mem_mib = INT64_MAX / 4;
        nd->up = 1;
        snap_child(q, p, "type");
        const cJSON *tv = member(o, "type");
        if (!tv)
            return fail(L, q, "required: a GPU type name or index");
        if ((rc = snap_type_index(L, s, tv, q, &nd->type)) ||
            (rc = get_int(L, o, p, "gpus", &gpus, 0, PLACE_MAX_GPUS_PER_NODE, 0)) ||
            (rc = get_int(L, o, p, "cpu_milli", &nd->cpu_milli, 0, SNAP_INT_MAX, 0)) ||
            (rc = get_int(L, o, p, "mem_mib", &nd->mem_mib, 0, SNAP_INT_MAX, 0)) ||
            (rc = get_bool(L, o, p, "up", &nd->up)))
            return rc;
        nd->gpus = (uint32_t)gpus;
        const cJSON *down;
        int ndown;
        if ((rc = snap_array(L, o, p, "gpus_down", 0, PLACE_MAX_GPUS_PER_NODE, &down, &ndown)))
            return rc;
        int k = 0;
        for (const cJSON *v = down ? down->child : NULL; v; v = v->next, k++) {
            double y = cJSON_IsNumber(v) ? v->valuedouble : -1;
            char e[PATH_MAX_LEN];
            snap_child(q, p, "gpus_down");
            snap_element(e, q, k);
            if (!cJSON_IsNumber(v) || y != floor(y) || y < 0 || y >= (double)nd->gpus)
                return fail(L, e, "expected a GPU index below the node's %u GPUs", nd->gpus);
            nd->gpus_down |= 1ull << (uint32_t)y;
        }
    }
    s->n_nodes = (uint32_t)nn;
    i = 0;
    for (const cJSON *o = running ? running->child : NULL; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        snap_element(p, "running", i);
        place_running *r = &s->running[i];
        int64_t start = 0, end = -1, overhead = 0, checkpoint = 0;
        double lost = -1;
        if ((rc = snap_job(L, s, o, p, &r->job, 1)) ||
            (rc = get_int(L, o, p, "start_us", &start, -SNAP_INT_MAX, SNAP_INT_MAX, 0)) ||
            (rc = get_int(L, o, p, "end_estimate_us", &end, -1, SNAP_INT_MAX, 0)) ||
            (rc = get_number(L, o, p, "lost_gpu_s", &lost, -1, 1e18, 0)) ||
            (rc = get_int(L, o, p, "overhead_us", &overhead, 0, SNAP_INT_MAX, 0)) ||
            (rc = get_int(L, o, p, "checkpoint_us", &checkpoint, 0, SNAP_INT_MAX, 0)) ||
            (rc = snap_parts(L, s, o, p, r)))
            return rc;
        r->start_us = start;
        r->end_estimate_us = end;
        r->lost_gpu_s = lost < 0 ? -1 : lost;
        r->overhead_us = overhead;
        r->checkpoint_us = checkpoint;
        s->n_running++;
    }
    i = 0;
    for (const cJSON *o = queue ? queue->child : NULL; o; o = o->next, i++) {
        char p[PATH_MAX_LEN];
        snap_element(p, "queue", i);
        if ((rc = snap_job(L, s, o, p, &s->queue[i], 0)))
            return rc;
        s->n_queue++;
    }
    return TM_OK;
}

int sim_snapshot_parse(sim_snapshot *s, const char *text, size_t len, const char *name,
                       tm_diag *diag)
{
    memset(s, 0, sizeof *s);
    tm_diag_clear(diag);
    loader L = {name ? name : "(snapshot)", "", diag, NULL};
    if (len > SIM_SNAPSHOT_MAX_BYTES)
        return tm_diag_set(diag, TM_ERR_LIMIT, L.file, "larger than %u MiB",
                           (unsigned)(SIM_SNAPSHOT_MAX_BYTES >> 20));
    if (memchr(text, '\0', len))
        return tm_diag_set(diag, TM_ERR_JSON, L.file, "contains a NUL byte: not a JSON text");
    char *copy = malloc(len + 1);
    if (!copy)
        return tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    const char *end = NULL;
    int oom, rc;
    cJSON *root = json_parse(copy, len + 1, &end, &oom);
    if (!root && oom) {
        rc = tm_diag_set(diag, TM_ERR_NOMEM, L.file, "out of memory");
    } else if (!root) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at || at < copy || at > copy + len)
            at = copy + len;
        line_col(copy, at, &line, &col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d", L.file, line, col);
        rc = tm_diag_set(diag, TM_ERR_JSON, where,
                         "malformed JSON near \"%.20s\" (a syntax error, or nesting deeper "
                         "than %d levels)",
                         at, CJSON_NESTING_LIMIT);
    } else {
        rc = snap_tree(&L, s, root);
        cJSON_Delete(root);
    }
    free(copy);
    if (rc != TM_OK)
        sim_snapshot_fini(s);
    return rc;
}

void sim_snapshot_fini(sim_snapshot *s)
{
    if (!s)
        return;
    free(s->nodes);
    free(s->queue);
    free(s->running);
    free(s->parts);
    free(s->speeds);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------------- */
/* Sweep files (docs/sweeps.md; the rest of the sweep machinery: sweep.c)     */

/* Limits that keep a typo from planning billions of points. */
#define SWEEP_MAX_POINTS 10000000u
#define SWEEP_MAX_PARAMS 64

static int read_whole(const char *path, char **out, size_t *len, tm_diag *diag)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tm_diag_set(diag, errno == ENOENT ? TM_ERR_NOTFOUND : TM_ERR_IO, path,
                           "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = TM_OK;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = cap <= SCENARIO_MAX_BYTES + 1 ? realloc(buf, cap + 1) : NULL;
            if (!nb) {
                rc = tm_diag_set(diag, TM_ERR_SCENARIO, path, "larger than %u MiB or out of memory",
                                 SCENARIO_MAX_BYTES >> 20);
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = tm_diag_set(diag, TM_ERR_IO, path, "read error: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc == TM_OK && !buf && !(buf = malloc(1)))
        rc = tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    if (rc != TM_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return TM_OK;
}

/* Parse JSON text, with the line and column of a syntax error. */
static int parse_json(const char *text, size_t len, const char *name, cJSON **root, tm_diag *diag)
{
    const char *end = NULL;
    if (memchr(text, '\0', len))
        return tm_diag_set(diag, TM_ERR_JSON, name, "contains a NUL byte: not a JSON text");
    *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (*root)
        return TM_OK;
    int line, col;
    const char *at = end ? end : cJSON_GetErrorPtr();
    if (!at)
        at = text + len;
    line_col(text, at, &line, &col);
    char where[600];
    snprintf(where, sizeof where, "%s:%d:%d", name, line, col);
    return tm_diag_set(diag, TM_ERR_JSON, where, "malformed JSON near \"%.20s\"", at);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* One step of a parameter path: a key, or an array index. */
typedef struct path_step {
    char key[PATH_MAX_LEN];
    long index; /* -1 for a key */
} path_step;

/* Split "fleet.pools[0].nodes" into steps. -1 on a malformed path. */
static int path_split(const char *p, path_step *steps, size_t max, size_t *n)
{
    *n = 0;
    if (!*p || *p == '.' || *p == '[')
        return -1;
    while (*p) {
        if (*n == max)
            return -1;
        path_step *s = &steps[(*n)++];
        if (*p == '[') {
            char *end;
            errno = 0;
            long i = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || errno || i < 0 || p[1] == '-' || p[1] == '+')
                return -1;
            s->key[0] = '\0';
            s->index = i;
            p = end + 1;
        } else {
            size_t k = strcspn(p, ".[]");
            if (k == 0 || k >= sizeof s->key || p[k] == ']')
                return -1;
            memcpy(s->key, p, k);
            s->key[k] = '\0';
            s->index = -1;
            p += k;
        }
        if (*p == '.') {
            p++;
            if (!*p || *p == '.' || *p == '[')
                return -1;
        } else if (*p && *p != '[') {
            return -1;
        }
    }
    return 0;
}

/* Put `value` (owned: consumed on success and on failure) at `path` of root.
 * Missing object keys are created (objects on the way); array elements must
 * exist. msg gets the reason on failure. */
static int path_set(cJSON *root, const char *path, cJSON *value, char *msg, size_t n)
{
    path_step steps[32];
    size_t ns;
    if (path_split(path, steps, 32, &ns) != 0) {
        snprintf(msg, n, "not a parameter path (keys and [index] joined by '.')");
        cJSON_Delete(value);
        return -1;
    }
    cJSON *cur = root;
    char at[PATH_MAX_LEN] = "";
    for (size_t i = 0; i < ns; i++) {
        const path_step *s = &steps[i];
        int last = i + 1 == ns;
        cJSON *next;
        if (s->index < 0) {
            if (!cJSON_IsObject(cur)) {
                snprintf(msg, n, "%.200s is %s, not an object with the key \"%.100s\"",
                         at[0] ? at : "the top level", kind_of(cur), s->key);
                cJSON_Delete(value);
                return -1;
            }
            next = cJSON_GetObjectItemCaseSensitive(cur, s->key);
            if (last) {
                if (next)
                    cJSON_ReplaceItemInObjectCaseSensitive(cur, s->key, value);
                else
                    cJSON_AddItemToObject(cur, s->key, value);
                return 0;
            }
            if (!next) {
                next = cJSON_AddObjectToObject(cur, s->key);
                if (!next) {
                    snprintf(msg, n, "out of memory");
                    cJSON_Delete(value);
                    return -1;
                }
            }
            char tmp[PATH_MAX_LEN];
            child(tmp, at, s->key);
            memcpy(at, tmp, sizeof at);
        } else {
            int size = cJSON_IsArray(cur) ? cJSON_GetArraySize(cur) : 0;
            if (!cJSON_IsArray(cur) || s->index >= size) {
                if (cJSON_IsArray(cur))
                    snprintf(msg, n, "%.200s has %d element%s, no [%ld]", at, size,
                             size == 1 ? "" : "s", s->index);
                else
                    snprintf(msg, n, "%.200s is %s, not an array", at[0] ? at : "the top level",
                             kind_of(cur));
                cJSON_Delete(value);
                return -1;
            }
            if (last) {
                cJSON_ReplaceItemInArray(cur, (int)s->index, value);
                return 0;
            }
            next = cJSON_GetArrayItem(cur, (int)s->index);
            char tmp[PATH_MAX_LEN];
            element(tmp, at, (int)s->index);
            memcpy(at, tmp, sizeof at);
        }
        cur = next;
    }
    cJSON_Delete(value);
    return -1;
}

void sim_sweep_fini(sim_sweep_spec *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->values && i < s->n_combos * s->n_params; i++) {
        free(s->values[i].json);
        free(s->values[i].text);
    }
    free(s->values);
    for (size_t i = 0; s->params && i < s->n_params; i++)
        free(s->params[i]);
    free(s->params);
    free(s->text);
    free(s->base);
    memset(s, 0, sizeof *s);
}

static int sweep_param_index(sim_sweep_spec *s, const char *path)
{
    for (size_t i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i], path) == 0)
            return (int)i;
    return -1;
}

static int sweep_add_param(loader *L, sim_sweep_spec *s, const char *where, const char *path)
{
    if (sweep_param_index(s, path) >= 0)
        return TM_OK;
    path_step steps[32];
    size_t ns;
    if (path_split(path, steps, 32, &ns) != 0 || strchr(path, '/'))
        return fail(L, where,
                    "\"%s\" is not a parameter path: keys (no '/') and [index] joined by '.', "
                    "like fleet.pools[0].nodes",
                    path);
    if (s->n_params == SWEEP_MAX_PARAMS)
        return fail(L, where, "more than %d parameters", SWEEP_MAX_PARAMS);
    char **np = realloc(s->params, (s->n_params + 1) * sizeof *np);
    if (!np)
        return oom(L);
    s->params = np;
    if (!(s->params[s->n_params] = dup_str(path)))
        return oom(L);
    s->n_params++;
    return TM_OK;
}

/* The value of one parameter of one combination (a copy of v). */
static int sweep_set_value(loader *L, sim_sweep_value *out, const cJSON *v)
{
    out->json = cJSON_PrintUnformatted(v);
    if (!out->json)
        return oom(L);
    out->text = dup_str(cJSON_IsString(v) ? v->valuestring : out->json);
    if (!out->text)
        return oom(L);
    out->is_number = cJSON_IsNumber(v);
    out->number = out->is_number ? v->valuedouble : 0.0;
    return TM_OK;
}

static int sweep_expand(loader *L, sim_sweep_spec *s, const cJSON *list, const cJSON *grid)
{
    int rc;
    size_t n_list = 1, n_grid = 1;
    if (list) {
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 1)
            return fail(L, "list", "expected a non-empty array of objects {\"PATH\": value, ...}");
        n_list = (size_t)cJSON_GetArraySize(list);
        int i = 0;
        for (const cJSON *e = list->child; e; e = e->next, i++) {
            char p[PATH_MAX_LEN];
            element(p, "list", i);
            if (!cJSON_IsObject(e))
                return fail(L, p, "expected an object {\"PATH\": value, ...}, got %s", kind_of(e));
            for (const cJSON *m = e->child; m; m = m->next)
                if ((rc = sweep_add_param(L, s, p, m->string)))
                    return rc;
        }
    }
    size_t n_list_params = s->n_params, n_grid_params = 0;
    const cJSON *grid_members[SWEEP_MAX_PARAMS];
    if (grid) {
        if (!cJSON_IsObject(grid))
            return fail(L, "grid", "expected an object {\"PATH\": [values], ...}, got %s",
                        kind_of(grid));
        for (const cJSON *m = grid->child; m; m = m->next) {
            char p[PATH_MAX_LEN];
            child(p, "grid", m->string);
            if (sweep_param_index(s, m->string) >= 0)
                return fail(L, p, "the parameter is also set by the list (or given twice)");
            if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) < 1)
                return fail(L, p, "expected a non-empty array of values, got %s", kind_of(m));
            size_t k = (size_t)cJSON_GetArraySize(m);
            if (n_grid > SWEEP_MAX_POINTS / k)
                return fail(L, "grid", "more than %u combinations", SWEEP_MAX_POINTS);
            n_grid *= k;
            if ((rc = sweep_add_param(L, s, "grid", m->string)))
                return rc;
            grid_members[n_grid_params++] = m;
        }
    }
    if (n_list > SWEEP_MAX_POINTS / n_grid ||
        n_list * n_grid > SWEEP_MAX_POINTS / (s->replications ? s->replications : 1))
        return fail(L, "grid", "more than %u points", SWEEP_MAX_POINTS);
    s->n_combos = n_list * n_grid;
    s->values = calloc(s->n_combos * (s->n_params ? s->n_params : 1), sizeof *s->values);
    if (!s->values)
        return oom(L);
    for (size_t c = 0; c < s->n_combos; c++) {
        sim_sweep_value *row = &s->values[c * s->n_params];
        size_t li = c / n_grid, gi = c % n_grid;
        if (list) {
            const cJSON *e = cJSON_GetArrayItem(list, (int)li);
            for (const cJSON *m = e->child; m; m = m->next)
                if ((rc = sweep_set_value(L, &row[sweep_param_index(s, m->string)], m)))
                    return rc;
        }
        /* the grid in row-major order: the last parameter varies fastest; the
         * grid's parameters come after the list's, in the order written */
        size_t rest = gi;
        for (size_t g = n_grid_params; g-- > 0;) {
            const cJSON *m = grid_members[g];
            size_t k = (size_t)cJSON_GetArraySize(m);
            if ((rc = sweep_set_value(L, &row[n_list_params + g],
                                      cJSON_GetArrayItem(m, (int)(rest % k)))))
                return rc;
            rest /= k;
        }
        for (size_t q = 0; q < s->n_params; q++)
            if (!row[q].text && !(row[q].text = dup_str("")))
                return oom(L);
    }
    return TM_OK;
}

int sim_sweep_load(sim_sweep_spec *s, const char *path, tm_diag *diag)
{
    memset(s, 0, sizeof *s);
    tm_diag_clear(diag);
    static const char *const keys[] = {"name",         "description", "kind", "scenario", "pack",
                                       "replications", "grid",        "list", "output",   NULL};
    loader L = {path, "", diag, NULL};
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof L.dir)
        snprintf(L.dir, sizeof L.dir, "%.*s", (int)(slash - path), path);
    snprintf(s->path, sizeof s->path, "%s", path);
    size_t len;
    cJSON *root = NULL;
    int rc = read_whole(path, &s->text, &len, diag);
    if (rc || (rc = parse_json(s->text, len, path, &root, diag)))
        goto out;
    if ((rc = check_object(&L, root, "", keys)))
        goto out;
    char kind[16], out_dir[1024];
    int64_t reps = 1;
    if ((rc = get_string(&L, root, "", "kind", kind, sizeof kind, "scenario")) ||
        (rc = get_int(&L, root, "", "replications", &reps, 1, 1000000, 0)) ||
        (rc = get_string(&L, root, "", "output", out_dir, sizeof out_dir, "")))
        goto out;
    s->replications = (uint32_t)reps;
    if (out_dir[0])
        resolve_path(&L, out_dir, s->output, sizeof s->output);
    const cJSON *scen = member(root, "scenario"), *pack = member(root, "pack");
    if (strcmp(kind, "scenario") == 0) {
        s->kind = SIM_SWEEP_SCENARIO;
        if (pack) {
            rc = fail(&L, "pack", "only for \"kind\": \"pack\"");
            goto out;
        }
        if (cJSON_IsString(scen)) {
            resolve_path(&L, scen->valuestring, s->base_name, sizeof s->base_name);
            size_t blen;
            tm_diag sub;
            if ((rc = read_whole(s->base_name, &s->base, &blen, &sub))) {
                fail(&L, "scenario", "%s: %s", sub.where, sub.msg);
                goto out;
            }
        } else if (cJSON_IsObject(scen)) {
            snprintf(s->base_name, sizeof s->base_name, "%s", path);
            if (!(s->base = cJSON_PrintUnformatted(scen))) {
                rc = oom(&L);
                goto out;
            }
        } else {
            rc = fail(&L, "scenario",
                      "required: a scenario file (a path relative to the sweep file) or a "
                      "scenario object, got %s",
                      kind_of(scen));
            goto out;
        }
    } else if (strcmp(kind, "pack") == 0) {
        s->kind = SIM_SWEEP_PACK;
        if (scen) {
            rc = fail(&L, "scenario", "only for \"kind\": \"scenario\"");
            goto out;
        }
        if (!cJSON_IsObject(pack)) {
            rc = fail(&L, "pack",
                      "required: the packing run {\"pods\": ..., \"nodes\": ...}, got %s",
                      kind_of(pack));
            goto out;
        }
        snprintf(s->base_name, sizeof s->base_name, "%s", path);
        if (!(s->base = cJSON_PrintUnformatted(pack))) {
            rc = oom(&L);
            goto out;
        }
    } else {
        rc = fail(&L, "kind", "expected \"scenario\" or \"pack\", got \"%s\"", kind);
        goto out;
    }
    rc = sweep_expand(&L, s, member(root, "list"), member(root, "grid"));
out:
    cJSON_Delete(root);
    if (rc != TM_OK)
        sim_sweep_fini(s);
    return rc;
}

int sim_sweep_apply(const sim_sweep_spec *s, size_t combo, char **json, uint64_t *seed,
                    tm_diag *diag)
{
    *json = NULL;
    if (combo >= s->n_combos)
        return tm_diag_set(diag, TM_ERR_INVAL, s->path, "no combination %zu (%zu)", combo,
                           s->n_combos);
    cJSON *root = NULL;
    int rc = parse_json(s->base, strlen(s->base), s->base_name, &root, diag);
    if (rc)
        return rc;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return tm_diag_set(diag, TM_ERR_SCENARIO, s->base_name, "expected an object, got %s",
                           kind_of(root));
    }
    const sim_sweep_value *row = &s->values[combo * s->n_params];
    for (size_t p = 0; p < s->n_params; p++) {
        if (!row[p].json)
            continue;
        cJSON *v = cJSON_Parse(row[p].json);
        char msg[400];
        if (!v || path_set(root, s->params[p], v, msg, sizeof msg) != 0) {
            if (!v)
                snprintf(msg, sizeof msg, "out of memory");
            cJSON_Delete(root);
            char where[1200];
            snprintf(where, sizeof where, "%s: %s", s->path, s->params[p]);
            return tm_diag_set(diag, TM_ERR_SCENARIO, where, "%s", msg);
        }
    }
    if (seed) {
        const cJSON *sv = member(root, "seed");
        double x = cJSON_IsNumber(sv) ? sv->valuedouble : 1;
        *seed = x >= 0 && x < 9007199254740992.0 ? (uint64_t)x : 1;
    }
    *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!*json)
        return tm_diag_set(diag, TM_ERR_NOMEM, s->path, "out of memory");
    return TM_OK;
}

int sim_sweep_pack_parse(const char *json, const char *name, sim_sweep_pack *out, tm_diag *diag)
{
    static const char *const keys[] = {"pods",     "nodes", "policy", "target_pct",
                                       "step_pct", "seed",  NULL};
    memset(out, 0, sizeof *out);
    loader L = {name, "", diag, NULL};
    const char *slash = strrchr(name, '/');
    if (slash && (size_t)(slash - name) < sizeof L.dir)
        snprintf(L.dir, sizeof L.dir, "%.*s", (int)(slash - name), name);
    cJSON *root = NULL;
    int rc = parse_json(json, strlen(json), name, &root, diag);
    if (rc)
        return rc;
    char pods[sizeof out->pods], nodes[sizeof out->nodes];
    int64_t seed = 1;
    out->target_pct = 130;
    out->step_pct = 1;
    if ((rc = check_object(&L, root, "pack", keys)) ||
        (rc = get_string(&L, root, "pack", "pods", pods, sizeof pods, NULL)) ||
        (rc = get_string(&L, root, "pack", "nodes", nodes, sizeof nodes, NULL)) ||
        (rc = get_string(&L, root, "pack", "policy", out->policy, sizeof out->policy,
                         "order=fifo placement=first-fit backfill=none")) ||
        (rc = get_number(&L, root, "pack", "target_pct", &out->target_pct, 1, 10000, 0)) ||
        (rc = get_number(&L, root, "pack", "step_pct", &out->step_pct, 0.001, 100, 0)) ||
        (rc = get_int(&L, root, "pack", "seed", &seed, 0, (1ll << 53) - 1, 0)))
        goto out;
    resolve_path(&L, pods, out->pods, sizeof out->pods);
    resolve_path(&L, nodes, out->nodes, sizeof out->nodes);
    out->seed = (uint64_t)seed;
out:
    cJSON_Delete(root);
    return rc;
}

/* The "cost" section (the model: docs/cost.md; keys: scenarios/SCHEMA.md).
 * Parsed after the fleet and the workload, so GPU types, classes and
 * services can be named. Every key is optional: what is not given keeps the
 * default of sim_cost_defaults. */

static int load_cost_api(loader *L, const cJSON *o, sim_cost_cfg *c)
{
    static const char *const keys[] = {"model", "prices", "services", "yearly_price_factor", NULL};
    const char *p = "cost.api";
    char q[PATH_MAX_LEN], id[SIM_NAME_MAX];
    int rc = check_object(L, o, p, keys);
    if (rc || (rc = get_number(L, o, p, "yearly_price_factor", &c->api_price_factor_per_year, 1e-6,
                               1e6, 0)))
        return rc;
    const cJSON *prices = member(o, "prices");
    child(q, p, "prices");
    if (prices && !cJSON_IsArray(prices))
        return fail(L, q, "expected an array of prices, got %s", kind_of(prices));
    int i = 0;
    for (const cJSON *e = prices ? prices->child : NULL; e; e = e->next, i++) {
        static const char *const pk[] = {
            "id", "input_usd_per_mtok", "output_usd_per_mtok", "batch_discount", "serves", NULL};
        char r[PATH_MAX_LEN];
        element(r, q, i);
        if ((rc = check_object(L, e, r, pk)) ||
            (rc = get_string(L, e, r, "id", id, sizeof id, NULL)))
            return rc;
        int k = sim_cost_api_find(c, id);
        sim_cost_api_price *a;
        if (k >= 0) {
            a = &c->api[k];
        } else {
            if (c->n_api == SIM_COST_API_MAX)
                return fail(L, r, "more than %d API prices", SIM_COST_API_MAX);
            a = &c->api[c->n_api++];
            memset(a, 0, sizeof *a);
            snprintf(a->id, sizeof a->id, "%s", id);
        }
        if ((rc = get_number(L, e, r, "input_usd_per_mtok", &a->in_usd_per_mtok, 0, 1e6, k < 0)) ||
            (rc =
                 get_number(L, e, r, "output_usd_per_mtok", &a->out_usd_per_mtok, 0, 1e6, k < 0)) ||
            (rc = get_number(L, e, r, "batch_discount", &a->batch_discount, 0, 1, 0)) ||
            (rc = get_string(L, e, r, "serves", a->serves, sizeof a->serves, a->serves)))
            return rc;
    }
    if (member(o, "model")) {
        if ((rc = get_string(L, o, p, "model", id, sizeof id, NULL)))
            return rc;
        child(q, p, "model");
        if ((c->api_default = sim_cost_api_find(c, id)) < 0)
            return fail(L, q,
                        "no API \"%s\" in the price list (docs/cost.md, or add it under "
                        "cost.api.prices)",
                        id);
    }
    const cJSON *svc = member(o, "services");
    child(q, p, "services");
    if (svc && !cJSON_IsObject(svc))
        return fail(L, q, "expected {\"service\": \"API id\"}, got %s", kind_of(svc));
    for (const cJSON *e = svc ? svc->child : NULL; e; e = e->next) {
        char r[PATH_MAX_LEN];
        child(r, q, e->string);
        size_t s;
        for (s = 0; s < L->sc->n_services; s++)
            if (strcmp(L->sc->services[s].cfg.name, e->string) == 0)
                break;
        if (s == L->sc->n_services)
            return fail(L, r, "no service named \"%s\" in workload.services", e->string);
        if (!cJSON_IsString(e))
            return fail(L, r, "expected an API id, got %s", kind_of(e));
        int k = sim_cost_api_find(c, e->valuestring);
        if (k < 0)
            return fail(L, r, "no API \"%s\" in the price list", e->valuestring);
        if (c->n_service_api == SIM_COST_MAP_MAX)
            return fail(L, r, "more than %d services mapped", SIM_COST_MAP_MAX);
        c->service_api[c->n_service_api++] = (sim_cost_service_api){(uint32_t)s, k};
    }
    return TM_OK;
}

static int load_cost_batch(loader *L, const cJSON *arr, sim_cost_cfg *c)
{
    const char *p = "cost.batch";
    if (!cJSON_IsArray(arr))
        return fail(L, p, "expected an array of {\"class\", \"tokens_in_per_gpu_s\", ...}, got %s",
                    kind_of(arr));
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        static const char *const keys[] = {"class", "tokens_in_per_gpu_s", "tokens_out_per_gpu_s",
                                           "api", NULL};
        char r[PATH_MAX_LEN], q[PATH_MAX_LEN], name[SIM_NAME_MAX], api[SIM_NAME_MAX];
        element(r, p, i);
        if (c->n_batch == SIM_COST_MAP_MAX)
            return fail(L, r, "more than %d batch classes", SIM_COST_MAP_MAX);
        sim_cost_batch *b = &c->batch[c->n_batch];
        memset(b, 0, sizeof *b);
        int rc = check_object(L, e, r, keys);
        if (rc || (rc = get_string(L, e, r, "class", name, sizeof name, NULL)) ||
            (rc = get_number(L, e, r, "tokens_in_per_gpu_s", &b->tok_in_per_gpu_s, 0, 1e12, 0)) ||
            (rc = get_number(L, e, r, "tokens_out_per_gpu_s", &b->tok_out_per_gpu_s, 0, 1e12, 0)) ||
            (rc = get_string(L, e, r, "api", api, sizeof api, "")))
            return rc;
        size_t k;
        for (k = 0; k < L->sc->n_classes; k++)
            if (strcmp(L->sc->classes[k].name, name) == 0)
                break;
        child(q, r, "class");
        if (k == L->sc->n_classes)
            return fail(L, q, "no class named \"%s\" in workload.classes", name);
        b->cls = (uint32_t)k;
        b->api = api[0] ? sim_cost_api_find(c, api) : c->api_default;
        child(q, r, "api");
        if (b->api < 0)
            return fail(L, q, "no API \"%s\" in the price list", api);
        if (!(b->tok_in_per_gpu_s + b->tok_out_per_gpu_s > 0))
            return fail(L, r, "give tokens_in_per_gpu_s or tokens_out_per_gpu_s (> 0)");
        c->n_batch++;
    }
    return TM_OK;
}

static int load_cost_owned(loader *L, const cJSON *o, sim_cost_cfg *c)
{
    static const char *const keys[] = {"server_usd_per_gpu",
                                       "gpu_share_of_server",
                                       "spares",
                                       "network",
                                       "storage",
                                       "install",
                                       "depreciation_years",
                                       "residual",
                                       "cost_of_capital",
                                       "maintenance_per_year",
                                       "server_power_factor",
                                       "pue",
                                       "electricity_usd_per_kwh",
                                       "colocation_usd_per_kw_month",
                                       "staff_fte_per_1000_gpus",
                                       "staff_min_fte",
                                       "staff_usd_per_fte_year",
                                       NULL};
    const char *p = "cost.owned";
    int rc = check_object(L, o, p, keys);
    if (rc ||
        (rc = get_number(L, o, p, "gpu_share_of_server", &c->gpu_share_of_server, 1e-3, 1, 0)) ||
        (rc = get_number(L, o, p, "spares", &c->spares_fraction, 0, 10, 0)) ||
        (rc = get_number(L, o, p, "network", &c->network_fraction, 0, 10, 0)) ||
        (rc = get_number(L, o, p, "storage", &c->storage_fraction, 0, 10, 0)) ||
        (rc = get_number(L, o, p, "install", &c->install_fraction, 0, 10, 0)) ||
        (rc = get_number(L, o, p, "depreciation_years", &c->depreciation_years, 0.01, 100, 0)) ||
        (rc = get_number(L, o, p, "residual", &c->residual_fraction, 0, 1, 0)) ||
        (rc = get_number(L, o, p, "cost_of_capital", &c->capital_rate_per_year, 0, 10, 0)) ||
        (rc = get_number(L, o, p, "maintenance_per_year", &c->maintenance_fraction_per_year, 0, 10,
                         0)) ||
        (rc = get_number(L, o, p, "server_power_factor", &c->server_power_factor, 1, 100, 0)) ||
        (rc = get_number(L, o, p, "pue", &c->pue, 1, 10, 0)) ||
        (rc = get_number(L, o, p, "electricity_usd_per_kwh", &c->electricity_usd_per_kwh, 0, 1e3,
                         0)) ||
        (rc = get_number(L, o, p, "colocation_usd_per_kw_month", &c->colocation_usd_per_kw_month, 0,
                         1e6, 0)) ||
        (rc = get_number(L, o, p, "staff_fte_per_1000_gpus", &c->staff_fte_per_1000_gpus, 0, 1e6,
                         0)) ||
        (rc = get_number(L, o, p, "staff_min_fte", &c->staff_min_fte, 0, 1e6, 0)) ||
        (rc = get_number(L, o, p, "staff_usd_per_fte_year", &c->staff_usd_per_fte_year, 0, 1e9, 0)))
        return rc;
    if (member(o, "gpu_share_of_server"))
        for (size_t t = 0; t < PLACE_MAX_TYPES; t++)
            c->gpu_share_of_server_type[t] = NAN; /* one share for every type, as given */
    const cJSON *srv = member(o, "server_usd_per_gpu");
    char q[PATH_MAX_LEN];
    child(q, p, "server_usd_per_gpu");
    if (srv && !cJSON_IsObject(srv))
        return fail(L, q, "expected {\"GPU type\": USD per GPU of a server}, got %s", kind_of(srv));
    for (const cJSON *e = srv ? srv->child : NULL; e; e = e->next) {
        char r[PATH_MAX_LEN];
        child(r, q, e->string);
        uint32_t t = 0;
        if ((rc = find_type(L, r, e->string, &t)))
            return rc;
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > 1e9)
            return fail(L, r, "expected a price in [0, 1e9] USD, got %s", kind_of(e));
        c->server_usd_per_gpu[t] = e->valuedouble;
    }
    return TM_OK;
}

static int load_cost(loader *L, const cJSON *o)
{
    if (!o)
        return TM_OK;
    static const char *const keys[] = {"owned", "cloud", "api", "batch", NULL};
    int rc = check_object(L, o, "cost", keys);
    if (rc)
        return rc;
    sim_cost_cfg *c = malloc(sizeof *c);
    if (!c)
        return oom(L);
    sim_cost_defaults(c);
    L->sc->cost = c; /* owned by the scenario from here: fini frees it */
    const cJSON *cl = member(o, "cloud");
    if (member(o, "owned") && (rc = load_cost_owned(L, member(o, "owned"), c)))
        return rc;
    if (cl) {
        static const char *const ck[] = {"overhead", NULL};
        if ((rc = check_object(L, cl, "cost.cloud", ck)) ||
            (rc = get_number(L, cl, "cost.cloud", "overhead", &c->cloud_overhead_fraction, 0, 10,
                             0)))
            return rc;
    }
    if (member(o, "api") && (rc = load_cost_api(L, member(o, "api"), c)))
        return rc;
    if (member(o, "batch") && (rc = load_cost_batch(L, member(o, "batch"), c)))
        return rc;
    return TM_OK;
}

char *sim__scenario_cost_json(const sim_scenario *sc)
{
    const sim_cost_cfg *c = sim_scenario_cost(sc);
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return NULL;
    cJSON *o = cJSON_AddObjectToObject(r, "owned");
    cJSON *srv = cJSON_AddObjectToObject(o, "server_usd_per_gpu");
    for (size_t t = 0; t < sc->n_types; t++)
        if (isfinite(c->server_usd_per_gpu[t]))
            cJSON_AddNumberToObject(srv, sc->types[t].name, c->server_usd_per_gpu[t]);
    const struct {
        const char *k;
        double v;
    } f[] = {{"gpu_share_of_server", c->gpu_share_of_server},
             {"spares", c->spares_fraction},
             {"network", c->network_fraction},
             {"storage", c->storage_fraction},
             {"install", c->install_fraction},
             {"depreciation_years", c->depreciation_years},
             {"residual", c->residual_fraction},
             {"cost_of_capital", c->capital_rate_per_year},
             {"maintenance_per_year", c->maintenance_fraction_per_year},
             {"server_power_factor", c->server_power_factor},
             {"pue", c->pue},
             {"electricity_usd_per_kwh", c->electricity_usd_per_kwh},
             {"colocation_usd_per_kw_month", c->colocation_usd_per_kw_month},
             {"staff_fte_per_1000_gpus", c->staff_fte_per_1000_gpus},
             {"staff_min_fte", c->staff_min_fte},
             {"staff_usd_per_fte_year", c->staff_usd_per_fte_year}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        cJSON_AddNumberToObject(o, f[i].k, f[i].v);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(r, "cloud"), "overhead",
                            c->cloud_overhead_fraction);
    cJSON *api = cJSON_AddObjectToObject(r, "api");
    cJSON_AddStringToObject(api, "model", c->api_default >= 0 ? c->api[c->api_default].id : "");
    cJSON_AddNumberToObject(api, "yearly_price_factor", c->api_price_factor_per_year);
    cJSON *prices = cJSON_AddArrayToObject(api, "prices");
    for (size_t i = 0; i < c->n_api; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "id", c->api[i].id);
        cJSON_AddNumberToObject(e, "input_usd_per_mtok", c->api[i].in_usd_per_mtok);
        cJSON_AddNumberToObject(e, "output_usd_per_mtok", c->api[i].out_usd_per_mtok);
        cJSON_AddNumberToObject(e, "batch_discount", c->api[i].batch_discount);
        if (c->api[i].serves[0])
            cJSON_AddStringToObject(e, "serves", c->api[i].serves);
        cJSON_AddItemToArray(prices, e);
    }
    cJSON *svc = cJSON_AddObjectToObject(api, "services");
    for (size_t i = 0; i < c->n_service_api; i++)
        cJSON_AddStringToObject(svc, sc->services[c->service_api[i].svc].cfg.name,
                                c->api[c->service_api[i].api].id);
    cJSON *batch = cJSON_AddArrayToObject(r, "batch");
    for (size_t i = 0; i < c->n_batch; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "class", sc->classes[c->batch[i].cls].name);
        cJSON_AddNumberToObject(e, "tokens_in_per_gpu_s", c->batch[i].tok_in_per_gpu_s);
        cJSON_AddNumberToObject(e, "tokens_out_per_gpu_s", c->batch[i].tok_out_per_gpu_s);
        cJSON_AddStringToObject(e, "api", c->api[c->batch[i].api].id);
        cJSON_AddItemToArray(batch, e);
    }
    char *s = cJSON_Print(r);
    cJSON_Delete(r);
    return s;
}
