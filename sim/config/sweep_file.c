/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep_file.c — sweep files (docs/sweeps.md; the rest of the sweep
 * machinery is in studies/sweep.c).
 *
 * A sweep file names a base (a scenario, or a packing run), parameters as
 * JSON paths into it ("fleet.pools[0].nodes") and their values: a list of
 * combinations, a grid, or both. Loading expands every combination's values
 * into a table (values[combo * n_params + param]) of JSON texts; applying a
 * combination parses the base again and sets each value at its path.
 */
#include "config/config_int.h"

#include "base/fileio_int.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits that keep a typo from planning billions of points. */
#define SWEEP_MAX_POINTS 10000000u
#define SWEEP_MAX_PARAMS 64
/* Values held in memory: combinations x parameters (each a small struct and
 * two strings, about 100 bytes): 7 parameters of 10 values each are 10^7
 * combinations, 7 x 10^7 values and 7 GB; the bound keeps it under 0.5 GB. */
#define SWEEP_MAX_CELLS 4000000u
/* A sweep file, or the scenario file it names. A file too large, or memory
 * short for it, is reported as one invalid input: the sweep's messages have
 * always said "larger than 64 MiB or out of memory" (exit 65). */
static int sweep_read(const char *path, char **out, size_t *len, tm_diag *diag)
{
    int rc = sim__file_read(path, SIM__SCENARIO_MAX_BYTES, out, len, diag);
    if (rc == TM_ERR_LIMIT || rc == TM_ERR_NOMEM)
        rc = tm_diag_set(diag, TM_ERR_SCENARIO, path, "larger than %u MiB or out of memory",
                         SIM__SCENARIO_MAX_BYTES >> 20);
    return rc;
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
    sim__json_line_col(text, at, &line, &col);
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
    char key[SIM__PATH_MAX_LEN];
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
    char at[SIM__PATH_MAX_LEN] = "";
    for (size_t i = 0; i < ns; i++) {
        const path_step *s = &steps[i];
        int last = i + 1 == ns;
        cJSON *next;
        if (s->index < 0) {
            if (!cJSON_IsObject(cur)) {
                snprintf(msg, n, "%.200s is %s, not an object with the key \"%.100s\"",
                         at[0] ? at : "the top level", sim__json_kind(cur), s->key);
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
            char tmp[SIM__PATH_MAX_LEN];
            sim__json_child(tmp, at, s->key);
            memcpy(at, tmp, sizeof at);
        } else {
            int size = cJSON_IsArray(cur) ? cJSON_GetArraySize(cur) : 0;
            if (!cJSON_IsArray(cur) || s->index >= size) {
                if (cJSON_IsArray(cur))
                    snprintf(msg, n, "%.200s has %d element%s, no [%ld]", at, size,
                             size == 1 ? "" : "s", s->index);
                else
                    snprintf(msg, n, "%.200s is %s, not an array", at[0] ? at : "the top level",
                             sim__json_kind(cur));
                cJSON_Delete(value);
                return -1;
            }
            if (last) {
                cJSON_ReplaceItemInArray(cur, (int)s->index, value);
                return 0;
            }
            next = cJSON_GetArrayItem(cur, (int)s->index);
            char tmp[SIM__PATH_MAX_LEN];
            sim__json_element(tmp, at, (int)s->index);
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

static int sweep_add_param(sim__loader *L, sim_sweep_spec *s, const char *where, const char *path)
{
    if (sweep_param_index(s, path) >= 0)
        return TM_OK;
    path_step steps[32];
    size_t ns;
    if (path_split(path, steps, 32, &ns) != 0 || strchr(path, '/'))
        return sim__cfg_fail(
            L, where,
            "\"%s\" is not a parameter path: keys (no '/') and [index] joined by '.', "
            "like fleet.pools[0].nodes",
            path);
    if (s->n_params == SWEEP_MAX_PARAMS)
        return sim__cfg_fail(L, where, "more than %d parameters", SWEEP_MAX_PARAMS);
    char **np = realloc(s->params, (s->n_params + 1) * sizeof *np);
    if (!np)
        return sim__cfg_oom(L);
    s->params = np;
    if (!(s->params[s->n_params] = dup_str(path)))
        return sim__cfg_oom(L);
    s->n_params++;
    return TM_OK;
}

/* The value of one parameter of one combination (a copy of v). */
static int sweep_set_value(sim__loader *L, sim_sweep_value *out, const cJSON *v)
{
    out->json = cJSON_PrintUnformatted(v);
    if (!out->json)
        return sim__cfg_oom(L);
    out->text = dup_str(cJSON_IsString(v) ? v->valuestring : out->json);
    if (!out->text)
        return sim__cfg_oom(L);
    out->is_number = cJSON_IsNumber(v);
    out->number = out->is_number ? v->valuedouble : 0.0;
    return TM_OK;
}

static int sweep_expand(sim__loader *L, sim_sweep_spec *s, const cJSON *list, const cJSON *grid)
{
    int rc;
    size_t n_list = 1, n_grid = 1;
    if (list) {
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 1)
            return sim__cfg_fail(L, "list",
                                 "expected a non-empty array of objects {\"PATH\": value, ...}");
        n_list = (size_t)cJSON_GetArraySize(list);
        int i = 0;
        for (const cJSON *e = list->child; e; e = e->next, i++) {
            char p[SIM__PATH_MAX_LEN];
            sim__json_element(p, "list", i);
            if (!cJSON_IsObject(e))
                return sim__cfg_fail(L, p, "expected an object {\"PATH\": value, ...}, got %s",
                                     sim__json_kind(e));
            for (const cJSON *m = e->child; m; m = m->next)
                if ((rc = sweep_add_param(L, s, p, m->string)))
                    return rc;
        }
    }
    size_t n_list_params = s->n_params, n_grid_params = 0;
    const cJSON *grid_members[SWEEP_MAX_PARAMS];
    if (grid) {
        if (!cJSON_IsObject(grid))
            return sim__cfg_fail(L, "grid", "expected an object {\"PATH\": [values], ...}, got %s",
                                 sim__json_kind(grid));
        for (const cJSON *m = grid->child; m; m = m->next) {
            char p[SIM__PATH_MAX_LEN];
            sim__json_child(p, "grid", m->string);
            if (sweep_param_index(s, m->string) >= 0)
                return sim__cfg_fail(L, p,
                                     "the parameter is also set by the list (or given twice)");
            if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) < 1)
                return sim__cfg_fail(L, p, "expected a non-empty array of values, got %s",
                                     sim__json_kind(m));
            size_t k = (size_t)cJSON_GetArraySize(m);
            if (n_grid > SWEEP_MAX_POINTS / k)
                return sim__cfg_fail(L, "grid", "more than %u combinations", SWEEP_MAX_POINTS);
            n_grid *= k;
            if ((rc = sweep_add_param(L, s, "grid", m->string)))
                return rc;
            grid_members[n_grid_params++] = m;
        }
    }
    if (n_list > SWEEP_MAX_POINTS / n_grid ||
        n_list * n_grid > SWEEP_MAX_POINTS / (s->replications ? s->replications : 1))
        return sim__cfg_fail(L, "grid", "more than %u points", SWEEP_MAX_POINTS);
    s->n_combos = n_list * n_grid;
    if (s->n_params > 0 && s->n_combos > SWEEP_MAX_CELLS / s->n_params)
        return sim__cfg_fail(L, "grid",
                             "%zu combinations of %zu parameters: more than %u values to hold",
                             s->n_combos, s->n_params, SWEEP_MAX_CELLS);
    s->values = calloc(s->n_combos * (s->n_params ? s->n_params : 1), sizeof *s->values);
    if (!s->values)
        return sim__cfg_oom(L);
    /* the list's entries and each grid parameter's values by index (cJSON
     * finds the i-th item of an array by walking it: quadratic in a loop) */
    size_t n_items = list ? n_list : 0;
    for (size_t g = 0; g < n_grid_params; g++)
        n_items += (size_t)cJSON_GetArraySize(grid_members[g]);
    const cJSON **item = malloc((n_items ? n_items : 1) * sizeof *item);
    if (!item)
        return sim__cfg_oom(L);
    size_t at = 0, grid_at[SWEEP_MAX_PARAMS];
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next)
        item[at++] = e;
    for (size_t g = 0; g < n_grid_params; g++) {
        grid_at[g] = at;
        for (const cJSON *e = grid_members[g]->child; e; e = e->next)
            item[at++] = e;
    }
    rc = TM_OK;
    for (size_t c = 0; c < s->n_combos && rc == TM_OK; c++) {
        sim_sweep_value *row = &s->values[c * s->n_params];
        size_t li = c / n_grid, gi = c % n_grid;
        if (list)
            for (const cJSON *m = item[li]->child; m && rc == TM_OK; m = m->next)
                rc = sweep_set_value(L, &row[sweep_param_index(s, m->string)], m);
        /* the grid in row-major order: the last parameter varies fastest; the
         * grid's parameters come after the list's, in the order written */
        size_t rest = gi;
        for (size_t g = n_grid_params; g-- > 0 && rc == TM_OK;) {
            size_t k = (size_t)cJSON_GetArraySize(grid_members[g]);
            rc = sweep_set_value(L, &row[n_list_params + g], item[grid_at[g] + rest % k]);
            rest /= k;
        }
        for (size_t q = 0; q < s->n_params && rc == TM_OK; q++)
            if (!row[q].text && !(row[q].text = dup_str("")))
                rc = sim__cfg_oom(L);
    }
    free(item);
    return rc;
}

int sim_sweep_load(sim_sweep_spec *s, const char *path, tm_diag *diag)
{
    memset(s, 0, sizeof *s);
    tm_diag_clear(diag);
    static const char *const keys[] = {"name",         "description", "kind", "scenario", "pack",
                                       "replications", "grid",        "list", "output",   NULL};
    sim__loader L = {path, "", diag, NULL};
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof L.dir)
        snprintf(L.dir, sizeof L.dir, "%.*s", (int)(slash - path), path);
    snprintf(s->path, sizeof s->path, "%s", path);
    size_t len;
    cJSON *root = NULL;
    int rc = sweep_read(path, &s->text, &len, diag);
    if (rc || (rc = parse_json(s->text, len, path, &root, diag)))
        goto out;
    if ((rc = sim__cfg_check_object(&L, root, "", keys)))
        goto out;
    char kind[16], out_dir[1024];
    int64_t reps = 1;
    if ((rc = sim__cfg_get_string(&L, root, "", "kind", kind, sizeof kind, "scenario")) ||
        (rc = sim__cfg_get_int(&L, root, "", "replications", &reps, 1, 1000000, 0)) ||
        (rc = sim__cfg_get_string(&L, root, "", "output", out_dir, sizeof out_dir, "")))
        goto out;
    s->replications = (uint32_t)reps;
    if (out_dir[0])
        sim__cfg_resolve_path(&L, out_dir, s->output, sizeof s->output);
    const cJSON *scen = sim__json_member(root, "scenario"), *pack = sim__json_member(root, "pack");
    if (strcmp(kind, "scenario") == 0) {
        s->kind = SIM_SWEEP_SCENARIO;
        if (pack) {
            rc = sim__cfg_fail(&L, "pack", "only for \"kind\": \"pack\"");
            goto out;
        }
        if (cJSON_IsString(scen)) {
            sim__cfg_resolve_path(&L, scen->valuestring, s->base_name, sizeof s->base_name);
            size_t blen;
            tm_diag sub;
            if ((rc = sweep_read(s->base_name, &s->base, &blen, &sub))) {
                sim__cfg_fail(&L, "scenario", "%s: %s", sub.where, sub.msg);
                goto out;
            }
        } else if (cJSON_IsObject(scen)) {
            snprintf(s->base_name, sizeof s->base_name, "%s", path);
            if (!(s->base = cJSON_PrintUnformatted(scen))) {
                rc = sim__cfg_oom(&L);
                goto out;
            }
        } else {
            rc = sim__cfg_fail(&L, "scenario",
                               "required: a scenario file (a path relative to the sweep file) or a "
                               "scenario object, got %s",
                               sim__json_kind(scen));
            goto out;
        }
    } else if (strcmp(kind, "pack") == 0) {
        s->kind = SIM_SWEEP_PACK;
        if (scen) {
            rc = sim__cfg_fail(&L, "scenario", "only for \"kind\": \"scenario\"");
            goto out;
        }
        if (!cJSON_IsObject(pack)) {
            rc = sim__cfg_fail(&L, "pack",
                               "required: the packing run {\"pods\": ..., \"nodes\": ...}, got %s",
                               sim__json_kind(pack));
            goto out;
        }
        snprintf(s->base_name, sizeof s->base_name, "%s", path);
        if (!(s->base = cJSON_PrintUnformatted(pack))) {
            rc = sim__cfg_oom(&L);
            goto out;
        }
    } else {
        rc = sim__cfg_fail(&L, "kind", "expected \"scenario\" or \"pack\", got \"%s\"", kind);
        goto out;
    }
    rc = sweep_expand(&L, s, sim__json_member(root, "list"), sim__json_member(root, "grid"));
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
                           sim__json_kind(root));
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
        const cJSON *sv = sim__json_member(root, "seed");
        double x = cJSON_IsNumber(sv) ? sv->valuedouble : 1;
        *seed = x >= 0 && x < 9007199254740992.0 ? (uint64_t)x : 1;
    }
    *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!*json)
        return tm_diag_set(diag, TM_ERR_NOMEM, s->path, "out of memory");
    return TM_OK;
}

int sim_scenario_load_set(sim_scenario *sc, const char *path, const char *const *paths,
                          const char *const *values, size_t n, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    const char *name = path ? path : "(embedded default)";
    char *buf = NULL;
    size_t len = sim__default_scenario_len;
    int rc = path ? sim__file_read(path, SIM__SCENARIO_MAX_BYTES, &buf, &len, diag) : TM_OK;
    if (rc != TM_OK)
        return rc;
    cJSON *root = NULL;
    rc = parse_json(path ? buf : sim__default_scenario, len, name, &root, diag);
    free(buf);
    if (rc != TM_OK)
        return rc;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return tm_diag_set(diag, TM_ERR_SCENARIO, name, "expected an object, got %s",
                           sim__json_kind(root));
    }
    for (size_t i = 0; i < n; i++) {
        cJSON *v = cJSON_Parse(values[i]);
        if (!v)
            v = cJSON_CreateString(values[i]);
        char msg[400];
        if (!v || path_set(root, paths[i], v, msg, sizeof msg) != 0) {
            if (!v)
                snprintf(msg, sizeof msg, "out of memory");
            cJSON_Delete(root);
            char where[1200];
            snprintf(where, sizeof where, "%s: %s", name, paths[i]);
            return tm_diag_set(diag, TM_ERR_SCENARIO, where, "%s", msg);
        }
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        return tm_diag_set(diag, TM_ERR_NOMEM, name, "out of memory");
    rc = sim_scenario_load_text(sc, text, strlen(text), name, diag);
    free(text);
    return rc;
}

int sim_sweep_pack_parse(const char *json, const char *name, sim_sweep_pack *out, tm_diag *diag)
{
    static const char *const keys[] = {"pods",     "nodes", "policy", "target_pct",
                                       "step_pct", "seed",  NULL};
    memset(out, 0, sizeof *out);
    sim__loader L = {name, "", diag, NULL};
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
    if ((rc = sim__cfg_check_object(&L, root, "pack", keys)) ||
        (rc = sim__cfg_get_string(&L, root, "pack", "pods", pods, sizeof pods, NULL)) ||
        (rc = sim__cfg_get_string(&L, root, "pack", "nodes", nodes, sizeof nodes, NULL)) ||
        (rc = sim__cfg_get_string(&L, root, "pack", "policy", out->policy, sizeof out->policy,
                                  "order=fifo placement=first-fit backfill=none")) ||
        (rc = sim__cfg_get_number(&L, root, "pack", "target_pct", &out->target_pct, 1, 10000, 0)) ||
        (rc = sim__cfg_get_number(&L, root, "pack", "step_pct", &out->step_pct, 0.001, 100, 0)) ||
        (rc = sim__cfg_get_int(&L, root, "pack", "seed", &seed, 0, (1ll << 53) - 1, 0)))
        goto out;
    sim__cfg_resolve_path(&L, pods, out->pods, sizeof out->pods);
    sim__cfg_resolve_path(&L, nodes, out->nodes, sizeof out->nodes);
    out->seed = (uint64_t)seed;
out:
    cJSON_Delete(root);
    return rc;
}
