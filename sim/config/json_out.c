/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_out.c — the JSON output helper (json_out.h): a cJSON tree that
 * remembers a failed allocation, numbers printed by us as raw members,
 * strings made valid UTF-8, and two layouts.
 *
 * cJSON allocates through the hooks json.c installs (sim__json_track_oom):
 * plain malloc and free that note a failure; we check every return here
 * anyway, since cJSON_AddItemTo* report a failed key copy only by their
 * return value. A sim__jnode is a cJSON node; the cast is kept to this file.
 */
#include "config/json_out.h"

#include "config/config_int.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sim__jout {
    cJSON *root;
    int lost; /* a member could not be added: the document is incomplete */
};

static cJSON *node(sim__jnode *n)
{
    return (cJSON *)(void *)n;
}

sim__jout *sim__jout_new(sim__jnode **root)
{
    sim__json_track_oom();
    sim__jout *j = calloc(1, sizeof *j);
    if (j && !(j->root = cJSON_CreateObject())) {
        free(j);
        j = NULL;
    }
    *root = j ? (sim__jnode *)(void *)j->root : NULL;
    return j;
}

void sim__jout_free(sim__jout *j)
{
    if (!j)
        return;
    cJSON_Delete(j->root);
    free(j);
}

/* Add item (NULL: its creation failed) to parent under key (NULL for an
 * array); a failure is noted and the item freed. The item, or NULL. */
static cJSON *add(sim__jout *j, sim__jnode *parent, const char *key, cJSON *item)
{
    if (!j)
        return NULL;
    cJSON *p = node(parent);
    if (!p || !item) {
        j->lost = 1;
        cJSON_Delete(item);
        return NULL;
    }
    cJSON_bool ok = key ? cJSON_AddItemToObject(p, key, item) : cJSON_AddItemToArray(p, item);
    if (!ok) {
        j->lost = 1;
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

sim__jnode *sim__jout_object(sim__jout *j, sim__jnode *parent, const char *key)
{
    return (sim__jnode *)(void *)add(j, parent, key, parent ? cJSON_CreateObject() : NULL);
}

sim__jnode *sim__jout_array(sim__jout *j, sim__jnode *parent, const char *key)
{
    return (sim__jnode *)(void *)add(j, parent, key, parent ? cJSON_CreateArray() : NULL);
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the bytes
 * there are not one (overlong forms, surrogates and code points past
 * U+10FFFF are not). s[0] is not NUL. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned cp;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        cp = cp << 6 | (s[k] & 0x3fu);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* s, or a copy of it with every byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD (*copy set, to be freed); NULL when out of
 * memory. */
static const char *utf8_clean(const char *s, char **copy)
{
    *copy = NULL;
    const unsigned char *u = (const unsigned char *)s;
    size_t bad = 0, len = 0;
    while (u[len]) {
        size_t n = utf8_len(u + len);
        bad += n == 0;
        len += n ? n : 1;
    }
    if (!bad)
        return s;
    char *out = malloc(len + 2 * bad + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len(u + i);
        if (n) {
            memcpy(out + o, u + i, n);
            o += n;
            i += n;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    *copy = out;
    return out;
}

void sim__jout_str(sim__jout *j, sim__jnode *parent, const char *key, const char *s)
{
    if (!s) {
        sim__jout_null(j, parent, key);
        return;
    }
    char *copy;
    const char *clean = parent ? utf8_clean(s, &copy) : NULL;
    add(j, parent, key, clean ? cJSON_CreateString(clean) : NULL);
    if (clean)
        free(copy);
}

void sim__jout_fmt_double(char *buf, size_t n, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            return;
    }
}

static void raw(sim__jout *j, sim__jnode *parent, const char *key, const char *text)
{
    add(j, parent, key, parent ? cJSON_CreateRaw(text) : NULL);
}

void sim__jout_num(sim__jout *j, sim__jnode *parent, const char *key, double v)
{
    char buf[40];
    if (isfinite(v))
        sim__jout_fmt_double(buf, sizeof buf, v);
    else
        snprintf(buf, sizeof buf, "null");
    raw(j, parent, key, buf);
}

void sim__jout_int(sim__jout *j, sim__jnode *parent, const char *key, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    raw(j, parent, key, buf);
}

void sim__jout_uint(sim__jout *j, sim__jnode *parent, const char *key, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    raw(j, parent, key, buf);
}

void sim__jout_bool(sim__jout *j, sim__jnode *parent, const char *key, int v)
{
    add(j, parent, key, parent ? cJSON_CreateBool(v != 0) : NULL);
}

void sim__jout_null(sim__jout *j, sim__jnode *parent, const char *key)
{
    add(j, parent, key, parent ? cJSON_CreateNull() : NULL);
}

void sim__jout_parsed(sim__jout *j, sim__jnode *parent, const char *key, const char *text)
{
    add(j, parent, key, parent && text ? cJSON_Parse(text) : NULL);
}

/* A growing string for print_lines. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
} sbuf;

/* Append s; when s_owned, s was allocated (by cJSON) and is freed here, so
 * that no failure path leaks it. A NULL s (cJSON out of memory) fails. */
static void put(sbuf *b, char *s, int s_owned)
{
    if (!s || b->failed) {
        b->failed = 1;
        if (s_owned)
            free(s);
        return;
    }
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            if (s_owned)
                free(s);
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
    if (s_owned)
        free(s);
}

/* The place protocol's layout: compact members, one top-level member a line,
 * and one element a line inside a non-empty top-level array. */
static char *print_lines(const cJSON *root)
{
    sbuf b = {NULL, 0, 0, 0};
    put(&b, "{", 0);
    for (const cJSON *m = root->child; m; m = m->next) {
        put(&b, m == root->child ? "" : ",\n", 0);
        /* the key as cJSON writes a string: print a string item of it */
        cJSON *k = cJSON_CreateString(m->string);
        put(&b, k ? cJSON_PrintUnformatted(k) : NULL, 1);
        cJSON_Delete(k);
        put(&b, ":", 0);
        if (cJSON_IsArray(m) && m->child) {
            put(&b, "[\n", 0);
            for (const cJSON *e = m->child; e; e = e->next) {
                put(&b, cJSON_PrintUnformatted(e), 1);
                put(&b, e->next ? ",\n" : "\n", 0);
            }
            put(&b, "]", 0);
        } else {
            put(&b, cJSON_PrintUnformatted(m), 1);
        }
    }
    put(&b, "}", 0);
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

int sim__jout_print(sim__jout *j, FILE *f, int layout, tm_diag *diag)
{
    if (!j || j->lost)
        return tm_diag_set(diag, TM_ERR_NOMEM, "json", "out of memory");
    char *text = layout == SIM__JOUT_LINES ? print_lines(j->root) : cJSON_Print(j->root);
    if (!text)
        return tm_diag_set(diag, TM_ERR_NOMEM, "json", "out of memory");
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    free(text);
    if (fflush(f) != 0 || ferror(f) || bad)
        return tm_diag_set(diag, TM_ERR_IO, "stdout", "write error: %s", strerror(errno));
    return TM_OK;
}
