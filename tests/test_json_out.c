/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_json_out.c — the JSON output helper (sim/config/json_out.c) and
 * `tarmac run --json` under failing allocations.
 *
 * 1. Numbers: the fewest of 15, 16, 17 digits that read back exactly (random
 *    doubles, seeded), null for NaN and the infinities, integers exact past
 *    2^53. 2. Strings: escapes, control characters, bytes that are not UTF-8
 *    replaced by U+FFFD. 3. The place layout, byte for byte. 4. For every k,
 *    the k-th allocation of building and printing a run's --json (the run
 *    itself done before, unarmed) fails: the call returns TM_ERR_NOMEM and
 *    prints nothing, or succeeds with the very same text; nothing is left
 *    allocated.
 */
#include "check.h"
#include "cli/json_run.h"
#include "config/json_out.h"
#include "failalloc.h"
#include "sim.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The document printed in layout `layout`, as a string (free it). */
static char *printed(sim__jout *j, int layout, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tm_diag d;
    tm_diag_clear(&d);
    *rc = sim__jout_print(j, f, layout, &d);
    fclose(f);
    return buf;
}

static void expect_text(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        check_fail(__FILE__, __LINE__, "%s: got [%s], want [%s]", what, got, want);
}

static void test_numbers(void)
{
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jnode *a = sim__jout_array(j, root, "a");
    sim__jout_num(j, a, NULL, 0.1);
    sim__jout_num(j, a, NULL, 1.0 / 3);
    sim__jout_num(j, a, NULL, 0.1 + 0.2);
    sim__jout_num(j, a, NULL, NAN);
    sim__jout_num(j, a, NULL, INFINITY);
    sim__jout_num(j, a, NULL, -INFINITY);
    sim__jout_num(j, a, NULL, 604800);
    sim__jout_uint(j, a, NULL, UINT64_MAX);
    sim__jout_int(j, a, NULL, INT64_MIN);
    sim__jout_int(j, a, NULL, (1ll << 53) + 1);
    sim__jout_num(j, a, NULL, 9007199254740992.0); /* cJSON 1.7.15: 9.00719925474099e+15 */
    int rc;
    char *s = printed(j, SIM__JOUT_LINES, &rc);
    CHECK_EQ_INT(rc, TM_OK);
    expect_text("numbers", s,
                "{\"a\":[\n0.1,\n0.3333333333333333,\n0.30000000000000004,\nnull,\nnull,\nnull,\n"
                "604800,\n18446744073709551615,\n-9223372036854775808,\n9007199254740993,\n"
                "9007199254740992\n]}\n");
    free(s);
    sim__jout_free(j);
    /* random doubles over many magnitudes read back exactly */
    uint64_t x = check_seed(12345) | 1;
    char buf[40];
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        uint64_t bits = x & ~(0x7ffull << 52); /* any mantissa and sign */
        bits |= (uint64_t)(0x3ff - 300 + (int)(x % 600)) << 52;
        memcpy(&v, &bits, sizeof v);
        sim__jout_fmt_double(buf, sizeof buf, v);
        if (strtod(buf, NULL) != v) {
            check_fail(__FILE__, __LINE__, "%.17g printed as %s (seed %" PRIu64 ")", v, buf,
                       check_current_seed);
            break;
        }
    }
}

static void test_strings(void)
{
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jout_str(j, root, "quote", "a\"b\\c");
    sim__jout_str(j, root, "ctrl", "x\n\x01y");
    sim__jout_str(j, root, "bad",
                  "a\xff"
                  "b\xc3(c\xed\xa0\x80"
                  "d\xf0\x9f\x98");
    sim__jout_str(j, root, "ok", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
    sim__jout_str(j, root, "null", NULL);
    sim__jout_bool(j, root, "t", 1);
    int rc;
    char *s = printed(j, SIM__JOUT_LINES, &rc);
    CHECK_EQ_INT(rc, TM_OK);
    expect_text("strings", s,
                "{\"quote\":\"a\\\"b\\\\c\",\n\"ctrl\":\"x\\n\\u0001y\",\n"
                "\"bad\":\"a\xef\xbf\xbd"
                "b\xef\xbf\xbd(c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\n"
                "\"ok\":\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80\",\n\"null\":null,\n"
                "\"t\":true}\n");
    free(s);
    sim__jout_free(j);
}

/* The place protocol's layout, as docs/place-json.md shows it. */
static void test_lines(void)
{
    sim__jnode *root;
    sim__jout *j = sim__jout_new(&root);
    sim__jnode *d = sim__jout_array(j, root, "decisions");
    sim__jnode *o = sim__jout_object(j, d, NULL);
    sim__jout_str(j, o, "kind", "preempt");
    sim__jout_uint(j, o, "running_index", 0);
    o = sim__jout_object(j, d, NULL);
    sim__jout_str(j, o, "kind", "route_api");
    sim__jnode *st = sim__jout_object(j, root, "stats");
    sim__jout_uint(j, st, "started", 1);
    sim__jout_null(j, st, "last_invalid");
    sim__jout_str(j, root, "policy", "fifo");
    sim__jout_array(j, root, "unplaceable");
    int rc;
    char *s = printed(j, SIM__JOUT_LINES, &rc);
    CHECK_EQ_INT(rc, TM_OK);
    expect_text("lines", s,
                "{\"decisions\":[\n{\"kind\":\"preempt\",\"running_index\":0},\n"
                "{\"kind\":\"route_api\"}\n],\n\"stats\":{\"started\":1,\"last_invalid\":null},\n"
                "\"policy\":\"fifo\",\n\"unplaceable\":[]}\n");
    free(s);
    sim__jout_free(j);
}

/* run --json of a run of tests/golden/small.json, with allocation k failing
 * (0: none); *text gets what was printed. */
static int run_json_k(const sim_scenario *sc, const sim_result *res, uint64_t k, char **text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tm_diag d;
    tm_diag_clear(&d);
    failalloc_arm(k);
    int rc = sim__cli_run_json(f, sc, res, "out.h5", 0, &d);
    failalloc_disarm();
    fclose(f);
    *text = buf;
    return rc;
}

static void test_run_failalloc(void)
{
    const char *src = getenv("TARMAC_SRC");
    char path[1024], out[1100];
    snprintf(path, sizeof path, "%s/tests/golden/small.json", src ? src : ".");
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    if (sim_scenario_load_file(&sc, path, &d) != TM_OK) {
        check_fail(__FILE__, __LINE__, "%s: %s: %s", path, d.where, d.msg);
        return;
    }
    snprintf(out, sizeof out, "/tmp/test_json_out-%ld.h5", (long)getpid());
    sim_run_opts opts = {.replication = 0};
    sim_result res;
    if (sim_study_run(&sc, &opts, out, &res, &d) != TM_OK) {
        check_fail(__FILE__, __LINE__, "run: %s: %s", d.where, d.msg);
        sim_scenario_fini(&sc);
        return;
    }
    remove(out);
    char *want = NULL;
    run_json_k(&sc, &res, 0, &want); /* warm-up */
    free(want);
    failalloc_arm(0);
    int rc = run_json_k(&sc, &res, 0, &want);
    uint64_t n = failalloc_disarm();
    CHECK_EQ_INT(rc, TM_OK);
    uint64_t n_nomem = 0, n_ok = 0;
    for (uint64_t k = 1; k <= n; k++) {
        char *got = NULL;
        rc = run_json_k(&sc, &res, k, &got);
        size_t bytes = 0, live = failalloc_live(&bytes);
        if (live)
            check_fail(__FILE__, __LINE__, "allocation %" PRIu64 " failing: %zu allocations left",
                       k, live);
        if (rc == TM_ERR_NOMEM) {
            n_nomem++;
            if (got && got[0])
                check_fail(__FILE__, __LINE__, "allocation %" PRIu64 " failing: printed %.60s", k,
                           got);
        } else if (rc == TM_OK) {
            n_ok++;
            if (strcmp(got, want) != 0) {
                size_t at = 0;
                while (got[at] && got[at] == want[at])
                    at++;
                check_fail(__FILE__, __LINE__,
                           "allocation %" PRIu64
                           " failing: succeeded with another text, from byte %zu: [%.40s], want "
                           "[%.40s]",
                           k, at, got + at, want + at);
            }
        } else {
            check_fail(__FILE__, __LINE__, "allocation %" PRIu64 " failing: status %d", k, rc);
        }
        free(got);
    }
    printf("run --json: %" PRIu64 " allocations: %" PRIu64 " out of memory, %" PRIu64
           " recovered\n",
           n, n_nomem, n_ok);
    if (n < 100)
        check_fail(__FILE__, __LINE__, "only %" PRIu64 " allocations counted", n);
    free(want);
    sim_result_fini(&res);
    sim_scenario_fini(&sc);
}

int main(void)
{
    gsl_set_error_handler_off();
    test_numbers();
    test_strings();
    test_lines();
    test_run_failalloc();
    return check_finish("test_json_out");
}
