/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_traces_hostile.c — trace readers against hostile input: the label
 * rule (traces/label.c) case by case and over random bytes; runs of empty
 * lines (line numbers across read buffers, the stop flag); what a Gavel
 * matrix may declare; and the readers' memory, measured through failalloc's
 * count of live bytes (tests/failalloc.h), for a 20,000-node openb list and
 * a Gavel trace that meets 65,536 (job type, scale) pairs.
 *
 * Inputs are generated into a temporary folder; nothing big is stored.
 */
#include "check.h"
#include "failalloc.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
    return path[k];
}

static const char *write_file_n(const char *name, const char *data, size_t len)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len)
        check_fail(__FILE__, __LINE__, "cannot write %s", path);
    if (f)
        fclose(f);
    return path;
}

static const char *write_file(const char *name, const char *text)
{
    return write_file_n(name, text, strlen(text));
}

/* ------------------------------------------------------------------------- */
/* the label rule                                                             */

/* The scenario name rule (sim/config/json.c name_problem, scenarios/SCHEMA.md
 * "names"), restated here: NULL when name follows it, else why not. */
static const char *name_problem(const char *name)
{
    if (!*name)
        return "empty";
    if (strlen(name) > TRACE_LABEL_MAX)
        return "longer than 63 bytes";
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return ". or ..";
    const unsigned char *u = (const unsigned char *)name;
    while (*u) {
        if (*u == '/')
            return "a '/'";
        if (*u < 0x20 || *u == 0x7f)
            return "a control character";
        size_t len = *u < 0x80             ? 1
                     : (*u & 0xe0) == 0xc0 ? 2
                     : (*u & 0xf0) == 0xe0 ? 3
                     : (*u & 0xf8) == 0xf0 ? 4
                                           : 0;
        if (len == 0 || (len == 2 && *u < 0xc2) || (len == 4 && *u > 0xf4))
            return "not UTF-8";
        for (size_t k = 1; k < len; k++)
            if ((u[k] & 0xc0) != 0x80)
                return "not UTF-8";
        if ((len == 3 && *u == 0xe0 && u[1] < 0xa0) || (len == 3 && *u == 0xed && u[1] >= 0xa0) ||
            (len == 4 && *u == 0xf0 && u[1] < 0x90) || (len == 4 && *u == 0xf4 && u[1] >= 0x90))
            return "not UTF-8";
        if (len == 2 && u[0] == 0xc2 && u[1] < 0xa0)
            return "a C1 control character";
        u += len;
    }
    return NULL;
}

static void test_label_cases(void)
{
    static const struct {
        const char *raw;
        size_t len; /* 0: strlen */
        const char *want;
        int changed;
    } cases[] = {
        {"ResNet-50 (batch size 64)", 0, "ResNet-50 (batch size 64)", 0},
        {"it's \"quoted\"", 0, "it's \"quoted\"", 0},
        {"'lead", 0, "'lead", 0},
        {"a/b", 0, "a_b", 1},
        {"/", 0, "_", 1},
        {"..", 0, "_..", 1},
        {".", 0, "_.", 1},
        {"...", 0, "...", 0},
        {"../x", 0, ".._x", 1},
        {"", 0, "-", 1},
        {"tab\there", 0, "tab_here", 1},
        {"esc\x1b[31mred", 0, "esc_[31mred", 1},
        {"del\x7f", 0, "del_", 1},
        {"nul\0byte", 8, "nul_byte", 1},
        {"bad\xff\xfeutf8", 0, "bad??utf8", 1},
        {"cut\xe2\x82", 0, "cut??", 1},           /* a truncated sequence */
        {"over\xc0\xaflong", 0, "over??long", 1}, /* overlong '/' */
        {"sur\xed\xa0\x80", 0, "sur???", 1},      /* a surrogate */
        {"big\xf4\x90\x80\x80", 0, "big????", 1}, /* past U+10FFFF */
        {"c1\xc2\x9b"
         "31m",
         0, "c1_31m", 1}, /* C1 CSI */
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", 0,
         "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", 0},
        {"nbsp\xc2\xa0", 0, "nbsp\xc2\xa0", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[TRACE_LABEL_MAX + 1];
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].raw);
        int changed = trace_label_safe(out, cases[i].raw, len);
        CHECK_STR(out, cases[i].want);
        CHECK_EQ_INT(changed, cases[i].changed);
        CHECK(name_problem(out) == NULL);
    }
    /* 10 KB: cut to 63 bytes; at a character boundary (a 3-byte character
     * straddling byte 63 is left out whole) */
    char big[10240];
    memset(big, 'L', sizeof big);
    char out[TRACE_LABEL_MAX + 1];
    CHECK_EQ_INT(trace_label_safe(out, big, sizeof big), 1);
    CHECK_EQ_U64(strlen(out), TRACE_LABEL_MAX);
    memset(big, 'a', 62);
    memcpy(big + 62, "\xe2\x82\xac", 3);
    CHECK_EQ_INT(trace_label_safe(out, big, 65), 1);
    CHECK_EQ_U64(strlen(out), 62);
    CHECK_EQ_INT(trace_label_safe(out, big, 62), 0);
    /* exactly 63 bytes ending in a whole character: kept */
    memset(big, 'a', 60);
    memcpy(big + 60, "\xe2\x82\xac", 3);
    CHECK_EQ_INT(trace_label_safe(out, big, 63), 0);
    CHECK_EQ_U64(strlen(out), 63);
}

/* Random bytes (biased towards the interesting ones): the result always
 * follows the name rule, and the rule is idempotent. */
static void test_label_random(void)
{
    uint64_t seed = check_seed(20261203);
    uint64_t x = seed | 1;
    static const unsigned char pick[] = {'/',  '.',  0,    0x1b, '\n', 0x7f, 0x80, 0xc2, 0x9b,
                                         0xe2, 0x82, 0xac, 0xed, 0xa0, 0xf4, 0x90, 0xff, 'a'};
    for (int round = 0; round < 20000; round++) {
        char raw[200], out[TRACE_LABEL_MAX + 1], again[TRACE_LABEL_MAX + 1];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = (size_t)(x % sizeof raw);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            raw[i] = (char)((x >> 8) % 3 == 0 ? pick[(x >> 16) % sizeof pick] : (x >> 24) & 0xff);
        }
        trace_label_safe(out, raw, len);
        const char *why = name_problem(out);
        if (why) {
            check_fail(__FILE__, __LINE__, "round %d: \"%s\": %s", round, out, why);
            break;
        }
        if (trace_label_safe(again, out, strlen(out)) != 0 || strcmp(again, out) != 0) {
            check_fail(__FILE__, __LINE__, "round %d: not idempotent: \"%s\" -> \"%s\"", round, out,
                       again);
            break;
        }
    }
}

/* ------------------------------------------------------------------------- */
/* empty lines                                                                */

/* A tarmac trace: its header, `blanks` empty lines ending in `eol` ("\n" or
 * "\r\n"), after `pad` bytes of a first job, then a malformed row: the error
 * names the malformed row's line. */
static void test_blank_runs(void)
{
    static const size_t counts[] = {0, 1, 7, 8, 9, 131071, 131072, 262143, 262144, 300001};
    for (int crlf = 0; crlf < 2; crlf++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            size_t blanks = counts[c];
            const char *head = "id,submit_us,duration_us\n1,0,5\n";
            size_t eol = crlf ? 2 : 1, hl = strlen(head);
            size_t len = hl + blanks * eol + strlen("2,x,5\n");
            char *buf = malloc(len);
            memcpy(buf, head, hl);
            for (size_t i = 0; i < blanks; i++)
                memcpy(buf + hl + i * eol, crlf ? "\r\n" : "\n", eol);
            memcpy(buf + hl + blanks * eol, "2,x,5\n", 6);
            const char *path = write_file_n("blanks.csv", buf, len);
            free(buf);
            trace_source s;
            tm_diag d = {0};
            trace_read_stats st;
            trace_read_opts o;
            trace_read_opts_init(&o);
            o.stats = &st;
            CHECK_EQ_INT(trace_tarmac_open(&s, path, &o, &d), TM_OK);
            trace_job j;
            CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
            CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_ERR_TRACE);
            char want[600];
            snprintf(want, sizeof want, "%s:%zu", path, blanks + 3);
            CHECK_STR(d.where, want);
            CHECK_EQ_U64(st.lines, blanks + 3);
            s.close(s.ud);
        }
}

/* Empty lines in gzip: a billion-line file is not needed to see the bulk
 * skip at work; 64 MB of them read with a stop flag already set stop at the
 * first buffer, and read without one end at the right line. */
static void test_blank_gzip(void)
{
    const char *path = tmp_path("blanks.swf.gz");
    gzFile gz = gzopen(path, "wb9");
    static char nl[1 << 20];
    memset(nl, '\n', sizeof nl);
    gzputs(gz, "; MaxProcs: 4\n");
    for (int i = 0; i < 64; i++)
        gzwrite(gz, nl, sizeof nl);
    gzputs(gz, "1 0 -1 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n");
    gzclose(gz);
    trace_source s;
    tm_diag d = {0};
    trace_read_opts o;
    trace_read_opts_init(&o);
    trace_read_stats st;
    o.stats = &st;
    volatile int stop = 1;
    o.stop_flag = &stop;
    CHECK_EQ_INT(trace_swf_open(&s, path, &o, NULL, &d), TM_ERR_INTERRUPTED);
    CHECK(st.lines < (1u << 20));
    if (s.close)
        s.close(s.ud);
    stop = 0;
    CHECK_EQ_INT(trace_swf_open(&s, path, &o, NULL, &d), TM_OK);
    trace_job j;
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
    CHECK_EQ_U64(j.duration_us, 10000000);
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END);
    CHECK_EQ_U64(st.lines, 64u * (1u << 20) + 2);
    s.close(s.ud);

    /* a CSV column: blank lines at the end are fine; before data, an error
     * at the first of them */
    const char *csv = write_file("col.csv", "x\n1\n2\n\n\r\n\n");
    double *v;
    size_t n;
    CHECK_EQ_INT(trace_csv_column(csv, "x", &v, &n, &d), TM_OK);
    CHECK_EQ_U64(n, 2);
    free(v);
    csv = write_file("col2.csv", "x\n1\n\n\r\n\n3\n");
    CHECK_EQ_INT(trace_csv_column(csv, "x", &v, &n, &d), TM_ERR_TRACE);
    char want[600];
    snprintf(want, sizeof want, "%s:3", csv);
    CHECK_STR(d.where, want);
    CHECK(strstr(d.msg, "data follows at line 6") != NULL);
    /* a line past TRACE_MAX_LINE: refused at its line (getline took any
     * length; "1" and 17 MiB of blanks read as 1) */
    size_t big = TRACE_MAX_LINE + (1u << 20);
    char *text = malloc(big + 8);
    memcpy(text, "x\n1", 4);
    memset(text + 4, ' ', big);
    memcpy(text + 4 + big, "\n", 2);
    csv = write_file_n("long.csv", text, big + 6);
    free(text);
    CHECK_EQ_INT(trace_csv_column(csv, "x", &v, &n, &d), TM_ERR_TRACE);
    snprintf(want, sizeof want, "%s:2", csv);
    CHECK_STR(d.where, want);
    CHECK(strstr(d.msg, "line longer than") != NULL);
}

/* ------------------------------------------------------------------------- */
/* Gavel matrices                                                             */

/* Write a matrix of `workers` worker types and `types` job types at scale 1
 * (names "w%d", "t%d"); returns its path. */
static const char *gavel_matrix(const char *name, int workers, int types)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    fputs("{\n", f);
    for (int w = 0; w < workers; w++) {
        fprintf(f, "%s\"%s%d\": {\n", w ? ",\n" : "", w == 0 ? "v" : "w", w == 0 ? 100 : w);
        for (int t = 0; t < types; t++)
            fprintf(f, "%s\"('t%d', 1)\": {\"null\": %d.5}", t ? ",\n" : "", t, t + 1);
        fputs("}", f);
    }
    fputs("\n}\n", f);
    fclose(f);
    return path;
}

static void expect_load_error(const char *path, int line, const char *msg_part)
{
    trace_gavel_matrix *m = NULL;
    tm_diag d = {0};
    CHECK_EQ_INT(trace_gavel_matrix_load(&m, path, &d), TM_ERR_TRACE);
    CHECK(m == NULL);
    char want[600];
    snprintf(want, sizeof want, "%s:%d", path, line);
    CHECK_STR(d.where, want);
    if (!strstr(d.msg, msg_part))
        check_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", d.msg, msg_part);
}

static void test_gavel_bounds(void)
{
    trace_gavel_matrix *m = NULL;
    tm_diag d = {0};
    /* at the bounds: loads */
    CHECK_EQ_INT(trace_gavel_matrix_load(&m, gavel_matrix("g256.json", 1, 256), &d), TM_OK);
    const char *const *names;
    CHECK_EQ_U64(trace_gavel_matrix_job_types(m, &names), 256);
    CHECK(trace_gavel_matrix_tput(m, "v100", "t255", 1) == 256.5);
    trace_gavel_matrix_free(m);
    CHECK_EQ_INT(trace_gavel_matrix_load(&m, gavel_matrix("w64.json", 64, 1), &d), TM_OK);
    CHECK_EQ_U64(trace_gavel_matrix_workers(m, &names), 64);
    trace_gavel_matrix_free(m);
    /* one past: refused at the line that passes the bound (line 1 is "{",
     * line 2 the worker, then one job key a line) */
    expect_load_error(gavel_matrix("g257.json", 1, 257), 2 + 257,
                      "expected at most 256 job types in a throughput matrix, got another "
                      "(\"t256\")");
    expect_load_error(gavel_matrix("w65.json", 65, 1), 2 + 64 * 2,
                      "expected at most 64 worker types");
    /* 65 537 throughputs: 257 workers would pass the worker bound first, so
     * 64 workers x 256 types x 5 scales */
    {
        const char *path = tmp_path("e65537.json");
        FILE *f = fopen(path, "w");
        fputs("{", f);
        int n = 0, line = 1, over = 0;
        for (int w = 0; w < 64; w++) {
            fprintf(f, "%s\n\"w%d\": {", w ? "}," : "", w);
            line++;
            for (int t = 0; t < 256; t++)
                for (int sc = 1; sc <= 5 && n <= 65536; sc++, n++) {
                    fprintf(f, "%s\n\"('t%d', %d)\": {\"null\": 1}", t || sc > 1 ? "," : "", t, sc);
                    line++;
                    if (n == 65536)
                        over = line;
                }
        }
        fputs("}\n}\n", f);
        fclose(f);
        expect_load_error(path, over, "expected at most 65536 throughputs");
    }
    /* a throughput given twice */
    const char *dup =
        write_file("dup.json", "{\"v100\": {\n\"('a', 1)\": {\"null\": 1},\n"
                               "\"('b', 1)\": {\"null\": 2},\n\"('a', 1)\": {\"null\": 3}}}\n");
    expect_load_error(dup, 4, "first at line 2");
    /* two job types with one safe name */
    const char *clash = write_file("clash.json", "{\"v100\": {\n\"('a/b', 1)\": {\"null\": 1},\n"
                                                 "\"('a_b', 1)\": {\"null\": 2}}}\n");
    expect_load_error(clash, 3, "which are both named \"a_b\" once made safe");
    /* a non-finite throughput */
    const char *inf = write_file("inf.json", "{\"v100\": {\n\"('a', 1)\": {\"null\": 1e400}}}\n");
    expect_load_error(inf, 2, "expected a finite throughput");
}

/* Hostile job type names: kept whole for lookups, listed safe; a 10 KB name
 * works (it was cut at 511 bytes, which broke its key). */
static void test_gavel_labels(void)
{
    size_t big = 10240;
    char *name = malloc(big + 1);
    memset(name, 'L', big);
    name[big] = '\0';
    const char *raw[] = {"it's \"q\"", "'lead", "a/b", "..", "bad\xff", "esc\x1b[1m", name};
    const char *safe[] = {"it's \"q\"", "'lead", "a_b", "_..", "bad?", "esc_[1m", NULL};
    size_t n = sizeof raw / sizeof raw[0];
    const char *path = tmp_path("labels.json"), *tpath = tmp_path("labels.trace");
    FILE *f = fopen(path, "wb"), *t = fopen(tpath, "wb");
    fputs("{\"v100\": {", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n\"('" : "\n\"('", f);
        for (const char *c = raw[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                fputc('\\', f);
            if ((unsigned char)*c < 0x20)
                fprintf(f, "\\u%04x", *c);
            else
                fputc(*c, f);
        }
        fprintf(f, "', 1)\": {\"null\": %zu}", i + 1);
        fprintf(t, "%s\tcmd\t-n\tFalse\t100\t%zu\t1\n", raw[i], i);
    }
    fputs("\n}}\n", f);
    fclose(f);
    fclose(t);
    trace_gavel_matrix *m = NULL;
    tm_diag d = {0};
    CHECK_EQ_INT(trace_gavel_matrix_load(&m, path, &d), TM_OK);
    if (!m) {
        check_fail(__FILE__, __LINE__, "%s: %s", d.where, d.msg);
        free(name);
        return;
    }
    const char *const *jt;
    CHECK_EQ_U64(trace_gavel_matrix_job_types(m, &jt), n);
    for (size_t i = 0; i < n; i++) {
        CHECK(name_problem(jt[i]) == NULL);
        if (safe[i])
            CHECK_STR(jt[i], safe[i]);
        CHECK_EQ_INT(trace_gavel_matrix_job_type(m, raw[i]), (int)i);
        CHECK_EQ_INT(trace_gavel_matrix_job_type(m, jt[i]), (int)i);
        CHECK(trace_gavel_matrix_tput(m, "v100", raw[i], 1) == (double)(i + 1));
    }
    CHECK_EQ_U64(strlen(jt[n - 1]), TRACE_LABEL_MAX);
    trace_source s;
    CHECK_EQ_INT(trace_gavel_open(&s, tpath, m, "v100", NULL, NULL, &d), TM_OK);
    trace_job j;
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(s.next(s.ud, &j, &d), TM_OK);
        CHECK_EQ_U64(j.cls, i);
        CHECK_EQ_U64(j.duration_us, (uint64_t)(100e6 / (double)(i + 1) + 0.5));
    }
    CHECK_EQ_INT(s.next(s.ud, &j, &d), TRACE_END);
    s.close(s.ud);
    trace_gavel_matrix_free(m);
    free(name);
}

/* ------------------------------------------------------------------------- */
/* the readers' memory                                                        */

/* A Gavel trace of 16 job types x 4096 scales (65,536 distinct pairs, each
 * met once) on a fleet of the matrix's types: the speed rows a reader keeps
 * are bounded by the matrix (two per scale of a job type), not by the trace.
 * It kept one per pair before: 65,536 rows. */
static void test_gavel_rows_memory(void)
{
    const char *path = tmp_path("rows.json");
    FILE *f = fopen(path, "w");
    fputs("{", f);
    const char *workers[] = {"v100", "p100"};
    for (int w = 0; w < 2; w++) {
        fprintf(f, "%s\n\"%s\": {", w ? "}," : "", workers[w]);
        for (int t = 0; t < 16; t++)
            fprintf(f, "%s\n\"('t%d', 1)\": {\"null\": %d}", t ? "," : "", t, (t + 1) * (w + 1));
    }
    fputs("}\n}\n", f);
    fclose(f);
    const char *tpath = tmp_path("rows.trace");
    f = fopen(tpath, "w");
    for (int sc = 1; sc <= 4096; sc++)
        for (int t = 0; t < 16; t++)
            fprintf(f, "t%d\tc\t-n\tFalse\t1000\t%d\t%d\n", t, sc, sc);
    fclose(f);
    trace_gavel_matrix *m = NULL;
    tm_diag d = {0};
    CHECK_EQ_INT(trace_gavel_matrix_load(&m, path, &d), TM_OK);
    if (!m)
        return;
    static const char *const types[] = {"V100", "P100"};
    trace_read_opts o;
    trace_read_opts_init(&o);
    o.type_names = types;
    o.n_types = 2;
    trace_source s;
    failalloc_arm(0);
    CHECK_EQ_INT(trace_gavel_open(&s, tpath, m, "v100", &o, NULL, &d), TM_OK);
    size_t open_bytes = 0;
    failalloc_live(&open_bytes);
    trace_job j;
    uint64_t n = 0;
    int rc;
    while ((rc = s.next(s.ud, &j, &d)) == TM_OK) {
        n++;
        /* p100 runs every job type at twice v100's throughput */
        if (j.type_mask != 3u || j.speed[0] != 1.0 || j.speed[1] != 2.0) {
            check_fail(__FILE__, __LINE__, "job %llu: mask %llu, speeds %g %g",
                       (unsigned long long)j.id, (unsigned long long)j.type_mask, j.speed[0],
                       j.speed[1]);
            break;
        }
    }
    CHECK_EQ_INT(rc, TRACE_END);
    CHECK_EQ_U64(n, 65536);
    size_t bytes = 0;
    failalloc_live(&bytes);
    failalloc_disarm();
    /* 32 rows of 24 bytes at most; it was 65,536 rows (about 3 MB) */
    if (bytes > open_bytes + 4096)
        check_fail(__FILE__, __LINE__, "the reader grew from %zu to %zu bytes", open_bytes, bytes);
    s.close(s.ud);
    trace_gavel_matrix_free(m);
}

/* The openb node list copied 17 times with renamed nodes (20,621 nodes): a
 * node reader holds one line, whatever the list's length, and hostile node
 * names come out safe. */
static void test_openb_nodes_memory(void)
{
    const char *path = tmp_path("nodes.csv");
    FILE *f = fopen(path, "w");
    fputs("sn,cpu_milli,memory_mib,gpu,model\n", f);
    static const char *const models[] = {"P100", "T4", "G2", "V100M32"};
    for (int c = 0; c < 17; c++)
        for (int k = 0; k < 1213; k++)
            fprintf(f, "openb-node-c%d-%04d,%d,%d,%d,%s\n", c, k, 32000 + 1000 * (k % 7),
                    131072 * (1 + k % 3), 1 + k % 8, models[k % 4]);
    fputs("\"evil/\x1b[2J\xff..\",1000,1024,1,T4\n", f);
    fclose(f);
    trace_node_source s;
    tm_diag d = {0};
    failalloc_arm(0);
    CHECK_EQ_INT(trace_openb_nodes_open(&s, path, NULL, &d), TM_OK);
    trace_node nd;
    uint64_t n = 0;
    size_t most = 0, bytes;
    int rc;
    while ((rc = s.next(s.ud, &nd, &d)) == TM_OK) {
        n++;
        failalloc_live(&bytes);
        if (bytes > most)
            most = bytes;
    }
    failalloc_disarm();
    CHECK_EQ_INT(rc, TRACE_END);
    CHECK_EQ_U64(n, 17 * 1213 + 1);
    CHECK_STR(nd.name, "evil__[2J?..");
    /* the read buffer and the line buffer; zlib's own buffers are not seen */
    if (most > 300 * 1024)
        check_fail(__FILE__, __LINE__, "the node reader held %zu bytes", most);
    s.close(s.ud);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/tarmac-traces-hostile.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_label_cases();
    test_label_random();
    test_blank_runs();
    test_blank_gzip();
    test_gavel_bounds();
    test_gavel_labels();
    test_gavel_rows_memory();
    test_openb_nodes_memory();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_finish("test_traces_hostile");
}
