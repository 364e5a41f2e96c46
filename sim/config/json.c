/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.c — what every config loader reads JSON with.
 *
 * cJSON parses with allocation hooks that note a failure, so that out of
 * memory is reported as such (cJSON reports it as a syntax error). The rest
 * reads one member of an object into a typed value: the member is looked up,
 * its kind and range checked, and a failure is written to the loader's
 * diagnostic as "file: json.path" and "expected ..., got ...". A missing
 * optional member leaves the output at its default, so a caller sets the
 * defaults first and then reads over them. JSON paths are built in fixed
 * buffers of SIM__PATH_MAX_LEN and cut short with "..." when too long.
 */
#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void sim__json_track_oom(void)
{
    static cJSON_Hooks hooks = {json_malloc, json_free};
    cJSON_InitHooks(&hooks);
    json_oom = 0;
}

int sim__json_oom_seen(void)
{
    return json_oom;
}

cJSON *sim__json_parse(const char *text, size_t len, const char **end, int *oom)
{
    sim__json_track_oom();
    cJSON *root =
        end ? cJSON_ParseWithLengthOpts(text, len, end, 1) : cJSON_ParseWithLength(text, len);
    *oom = !root && json_oom;
    return root;
}

int sim__cfg_fail(sim__loader *L, const char *path, const char *fmt, ...)
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
    if (written >= SIM__PATH_MAX_LEN)
        memcpy(out + SIM__PATH_MAX_LEN - 4, "...", 4);
}

void sim__json_child(char *out, const char *path, const char *key)
{
    path_cut(out, path[0] ? snprintf(out, SIM__PATH_MAX_LEN, "%s.%s", path, key)
                          : snprintf(out, SIM__PATH_MAX_LEN, "%s", key));
}

void sim__json_element(char *out, const char *path, int i)
{
    path_cut(out, snprintf(out, SIM__PATH_MAX_LEN, "%s[%d]", path, i));
}

/* A short description of a JSON value for "got ..." messages. */
const char *sim__json_kind(const cJSON *v)
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

int sim__cfg_check_object(sim__loader *L, const cJSON *o, const char *path, const char *const *keys)
{
    if (!cJSON_IsObject(o))
        return sim__cfg_fail(L, path[0] ? path : "(top level)", "expected an object, got %s",
                             sim__json_kind(o));
    for (const cJSON *m = o->child; m; m = m->next) {
        int ok = 0;
        for (const char *const *k = keys; *k; k++)
            if (strcmp(m->string, *k) == 0)
                ok = 1;
        if (!ok) {
            char p[SIM__PATH_MAX_LEN];
            sim__json_child(p, path, m->string);
            char list[400] = "";
            size_t len = 0;
            for (const char *const *k = keys; *k && len < sizeof list - 40; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        k == keys ? "" : ", ", *k);
            return sim__cfg_fail(L, p, "unknown key (allowed here: %s)", list);
        }
        /* a duplicate key would silently shadow the first one */
        for (const cJSON *n = m->next; n; n = n->next)
            if (strcmp(m->string, n->string) == 0) {
                char p[SIM__PATH_MAX_LEN];
                sim__json_child(p, path, m->string);
                return sim__cfg_fail(L, p, "key given twice");
            }
    }
    return TM_OK;
}

/* cJSON decodes the escape \u0000 into a NUL byte inside its C string, so
 * "name": "a\u0000b" would be read as "a" without a word, by every reader of
 * a string (this file's getters, and those that read valuestring), in
 * scenarios, fleet files and `tarmac place` snapshots alike. So the
 * text itself is checked once, after cJSON accepted it (well formed, at most
 * CJSON_NESTING_LIMIT deep): a memchr for each backslash finds whether the
 * escape is there at all, and only then is the text walked, with a stack of
 * the containers around each string, to name where. O(text). */
typedef struct nul_frame {
    const char *key; /* an object's current key, as written (escapes kept) */
    uint32_t key_len;
    int index; /* an array's current element */
    int is_object;
} nul_frame;

static void nul_path(const nul_frame *f, int depth, char *out)
{
    char tmp[SIM__PATH_MAX_LEN];
    out[0] = '\0';
    for (int d = 0; d < depth; d++) {
        if (f[d].is_object && f[d].key) {
            char key[SIM__PATH_MAX_LEN];
            uint32_t n = f[d].key_len < sizeof key - 1 ? f[d].key_len : sizeof key - 1;
            memcpy(key, f[d].key, n);
            key[n] = '\0';
            sim__json_child(tmp, out, key);
        } else if (!f[d].is_object) {
            sim__json_element(tmp, out, f[d].index);
        } else {
            continue;
        }
        memcpy(out, tmp, sizeof tmp);
    }
}

int sim__json_no_nul(sim__loader *L, const char *text, size_t len)
{
    const char *end = text + len, *p;
    for (p = text; (p = memchr(p, '\\', (size_t)(end - p))) != NULL; p++)
        if (end - p >= 6 && memcmp(p, "\\u0000", 6) == 0)
            break;
    if (!p)
        return TM_OK; /* (an escaped backslash before "u0000" is told apart below) */
    nul_frame f[CJSON_NESTING_LIMIT + 2];
    int depth = 0, want_key = 0;
    for (p = text; p < end && *p;) {
        char ch = *p;
        if (ch == '{' || ch == '[') {
            if (depth == CJSON_NESTING_LIMIT + 2)
                break; /* (cJSON refuses such a text before this is reached) */
            f[depth++] = (nul_frame){NULL, 0, 0, ch == '{'};
            want_key = ch == '{';
            p++;
        } else if (ch == '}' || ch == ']') {
            if (depth > 0)
                depth--;
            p++;
        } else if (ch == ',') {
            if (depth > 0 && f[depth - 1].is_object)
                want_key = 1;
            else if (depth > 0)
                f[depth - 1].index++;
            p++;
        } else if (ch == '"') {
            const char *q = p + 1;
            int nul = 0;
            while (q < end && *q && *q != '"') {
                if (*q == '\\') {
                    if (end - q >= 6 && memcmp(q, "\\u0000", 6) == 0)
                        nul = 1;
                    q += 2; /* the escaped character (\" included) */
                } else {
                    q++;
                }
            }
            if (q > end)
                q = end;
            int is_key = depth > 0 && f[depth - 1].is_object && want_key;
            if (is_key) {
                f[depth - 1].key = p + 1;
                f[depth - 1].key_len = (uint32_t)(q - p - 1);
                want_key = 0;
            }
            if (nul) {
                char path[SIM__PATH_MAX_LEN];
                /* a key is named by the object that holds it */
                nul_path(f, is_key ? depth - 1 : depth, path);
                if (is_key)
                    return sim__cfg_fail(L, path[0] ? path : "(top level)",
                                         "a key holds the character U+0000 (\"\\u0000\"), "
                                         "which would cut it short: \"%.*s\"",
                                         (int)(q - p - 1 < 60 ? q - p - 1 : 60), p + 1);
                return sim__cfg_fail(L, path[0] ? path : "(top level)",
                                     "the string holds the character U+0000 (\"\\u0000\"), which "
                                     "would cut it short: refused");
            }
            p = q + 1;
        } else {
            p++; /* blanks, ':', numbers, true, false, null */
        }
    }
    return TM_OK;
}

const cJSON *sim__json_member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

int sim__cfg_get_string(sim__loader *L, const cJSON *o, const char *path, const char *key,
                        char *out, size_t n, const char *def)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v) {
        if (!def)
            return sim__cfg_fail(L, p, "required: expected a string");
        if (def != out) /* the value kept as its own default: copying it onto itself is UB */
            snprintf(out, n, "%s", def);
        return TM_OK;
    }
    if (!cJSON_IsString(v))
        return sim__cfg_fail(L, p, "expected a string, got %s", sim__json_kind(v));
    if (strlen(v->valuestring) >= n)
        return sim__cfg_fail(L, p, "string longer than %zu bytes", n - 1);
    snprintf(out, n, "%s", v->valuestring);
    return TM_OK;
}

/* The name rule (scenarios/SCHEMA.md, "Names"): a name becomes an HDF5 group
 * (/summary/classes/NAME), a file name (plot's pictures), a label in tables
 * and figures. So: not empty, valid UTF-8, no '/', no control character
 * (newline, tab, ...), not "." or "..". NULL when name follows it, else what
 * is wrong. */
/* Why text is not printable UTF-8: NULL when it is. A control character
 * (C0 or DEL) is refused, but for newline and tab when `lines` (free text,
 * such as a description). What the rule keeps out of names and labels: bytes
 * that are not UTF-8 reach JSON output, HDF5 attributes and plots (which
 * would print invalid JSON or garbage), a newline splits a table's line. */
static const char *text_problem(const char *text, int lines)
{
    const unsigned char *u = (const unsigned char *)text;
    while (*u) {
        if ((*u < 0x20 || *u == 0x7f) && !(lines && (*u == '\n' || *u == '\t')))
            return "a control character (newline, tab, ...)";
        size_t len = *u < 0x80             ? 1
                     : (*u & 0xe0) == 0xc0 ? 2
                     : (*u & 0xf0) == 0xe0 ? 3
                     : (*u & 0xf8) == 0xf0 ? 4
                                           : 0;
        if (len == 0 || (len == 2 && *u < 0xc2) || (len == 4 && *u > 0xf4))
            return "bytes that are not valid UTF-8";
        for (size_t k = 1; k < len; k++)
            if ((u[k] & 0xc0) != 0x80)
                return "bytes that are not valid UTF-8";
        if ((len == 3 && *u == 0xe0 && u[1] < 0xa0) || (len == 3 && *u == 0xed && u[1] >= 0xa0) ||
            (len == 4 && *u == 0xf0 && u[1] < 0x90) || (len == 4 && *u == 0xf4 && u[1] >= 0x90))
            return "bytes that are not valid UTF-8"; /* overlong, surrogate, past U+10FFFF */
        u += len;
    }
    return NULL;
}

static const char *name_problem(const char *name)
{
    if (!*name)
        return "an empty name";
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return "\".\" and \"..\" are not names";
    if (strchr(name, '/'))
        return "a '/' in a name";
    const char *why = text_problem(name, 0);
    if (why && why[0] == 'a')
        return "a control character (newline, tab, ...) in a name";
    return why ? "a name that is not valid UTF-8" : NULL;
}

int sim__cfg_get_text(sim__loader *L, const cJSON *o, const char *path, const char *key, char *out,
                      size_t n, const char *def, int lines)
{
    int rc = sim__cfg_get_string(L, o, path, key, out, n, def);
    if (rc != TM_OK)
        return rc;
    const char *why = text_problem(out, lines);
    if (why) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_child(p, path, key);
        return sim__cfg_fail(L, p, "%s: this text is valid UTF-8 without control characters%s", why,
                             lines ? " (newline and tab allowed)" : "");
    }
    return TM_OK;
}

int sim__cfg_get_name(sim__loader *L, const cJSON *o, const char *path, const char *key, char *out,
                      size_t n, const char *def)
{
    int rc = sim__cfg_get_string(L, o, path, key, out, n, def);
    if (rc != TM_OK)
        return rc;
    const char *why = name_problem(out);
    if (why) {
        char p[SIM__PATH_MAX_LEN];
        sim__json_child(p, path, key);
        return sim__cfg_fail(L, p,
                             "%s: a name is not empty, has no '/' and no control character, is "
                             "valid UTF-8 and not \".\" or \"..\"",
                             why);
    }
    return TM_OK;
}

/* A finite number in [lo, hi]; `required` or else *out keeps its default. */
int sim__cfg_get_number(sim__loader *L, const cJSON *o, const char *path, const char *key,
                        double *out, double lo, double hi, int required)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v) {
        if (required)
            return sim__cfg_fail(L, p, "required: expected a number in [%g, %g]", lo, hi);
        return TM_OK;
    }
    if (!cJSON_IsNumber(v))
        return sim__cfg_fail(L, p, "expected a number in [%g, %g], got %s", lo, hi,
                             sim__json_kind(v));
    double x = v->valuedouble;
    if (!isfinite(x) || x < lo || x > hi)
        return sim__cfg_fail(L, p, "expected a number in [%g, %g], got %g", lo, hi, x);
    *out = x;
    return TM_OK;
}

int sim__cfg_get_int(sim__loader *L, const cJSON *o, const char *path, const char *key,
                     int64_t *out, int64_t lo, int64_t hi, int required)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v) {
        if (required)
            return sim__cfg_fail(L, p, "required: expected an integer in [%lld, %lld]",
                                 (long long)lo, (long long)hi);
        return TM_OK;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!cJSON_IsNumber(v) || !isfinite(x) || x != floor(x) || x < (double)lo || x > (double)hi) {
        if (cJSON_IsNumber(v))
            return sim__cfg_fail(L, p, "expected an integer in [%lld, %lld], got %g", (long long)lo,
                                 (long long)hi, x);
        return sim__cfg_fail(L, p, "expected an integer in [%lld, %lld], got %s", (long long)lo,
                             (long long)hi, sim__json_kind(v));
    }
    *out = (int64_t)x;
    return TM_OK;
}

int sim__cfg_get_bool(sim__loader *L, const cJSON *o, const char *path, const char *key, int *out)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v)
        return TM_OK;
    if (!cJSON_IsBool(v))
        return sim__cfg_fail(L, p, "expected true or false, got %s", sim__json_kind(v));
    *out = cJSON_IsTrue(v);
    return TM_OK;
}

/* "90s", "15m", "2.5h", "30d", "1w", "500ms", "10us", or a number of seconds. */
int sim__cfg_duration_value(sim__loader *L, const cJSON *v, const char *p, double *seconds)
{
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble) || v->valuedouble < 0)
            return sim__cfg_fail(L, p, "expected a duration >= 0, got %g", v->valuedouble);
        *seconds = v->valuedouble;
        return TM_OK;
    }
    if (!cJSON_IsString(v))
        return sim__cfg_fail(L, p,
                             "expected a duration (seconds, or a string like \"15m\"), got %s",
                             sim__json_kind(v));
    const char *s = v->valuestring;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    /* strtod also reads hexadecimal ("0x10h" was 16 hours), "inf" and
     * "nan": a duration is written in decimal */
    int decimal = 1;
    for (const char *q = s; q < end; q++)
        decimal &= (*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' ||
                   *q == '-' || *q == ' ';
    if (end == s || !decimal || errno == ERANGE || !isfinite(x) || x < 0)
        return sim__cfg_fail(
            L, p, "expected a duration like \"90s\", \"15m\", \"2h\", \"30d\", got \"%s\"", s);
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
    return sim__cfg_fail(L, p, "unknown time unit in \"%s\" (us, ms, s, m, h, d, w)", s);
}

/* A duration in a scenario is at most the end of simulated time (2^61 us,
 * SIM_T_MAX_US): a time plus a duration (a submit time plus a deadline, a
 * delivery plus a run) then stays within int64. */
static int seconds_to_us(sim__loader *L, const char *p, double s, int64_t *us)
{
    double x = s * 1e6;
    if (!(x <= (double)SIM_T_MAX_US))
        return sim__cfg_fail(L, p,
                             "duration of %g s is beyond the end of simulated time (2^61 us, about "
                             "73,000 years)",
                             s);
    *us = (int64_t)llround(x);
    if (*us > SIM_T_MAX_US) /* 2^61 as a double is one past INT64_MAX / 4 */
        *us = SIM_T_MAX_US;
    return TM_OK;
}

int sim__cfg_get_duration(sim__loader *L, const cJSON *o, const char *path, const char *key,
                          int64_t *us, int required)
{
    char p[SIM__PATH_MAX_LEN];
    sim__json_child(p, path, key);
    const cJSON *v = sim__json_member(o, key);
    if (!v) {
        if (required)
            return sim__cfg_fail(L, p, "required: expected a duration");
        return TM_OK;
    }
    double s;
    int rc = sim__cfg_duration_value(L, v, p, &s);
    return rc == TM_OK ? seconds_to_us(L, p, s, us) : rc;
}

typedef struct named {
    const char *name;
    size_t i;
} named;

/* By name, then by index: equal names sit together, in file order. */
static int named_cmp(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

int sim__names_first_repeat(const char *first, size_t n, size_t stride, size_t *repeat)
{
    *repeat = n;
    if (n <= 32) { /* a few names (most scenarios): compare them all, allocate nothing */
        for (size_t i = 1; i < n && *repeat == n; i++)
            for (size_t k = 0; k < i; k++)
                if (strcmp(first + k * stride, first + i * stride) == 0) {
                    *repeat = i;
                    break;
                }
        return TM_OK;
    }
    named *v = malloc(n * sizeof *v);
    if (!v)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = (named){first + i * stride, i};
    qsort(v, n, sizeof *v, named_cmp);
    /* in a run of equal names the first is the earliest; each later one is a
     * repeat, and the answer is the earliest repeat of all runs */
    for (size_t k = 1; k < n; k++)
        if (v[k].i < *repeat && strcmp(v[k - 1].name, v[k].name) == 0)
            *repeat = v[k].i;
    free(v);
    return TM_OK;
}

int sim__cfg_oom(sim__loader *L)
{
    return tm_diag_set(L->diag, TM_ERR_NOMEM, L->file, "out of memory");
}

/* Resolve a data path: "data:REL" is relative to TARMAC_DATA_DIR (default
 * ../shared/data), an absolute path is itself, anything else is relative to
 * the scenario's folder. */
void sim__cfg_resolve_path(const sim__loader *L, const char *in, char *out, size_t n)
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

void sim__json_line_col(const char *text, const char *at, int *line, int *col)
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

const char *sim_lib_version_cjson(void)
{
    return cJSON_Version();
}
