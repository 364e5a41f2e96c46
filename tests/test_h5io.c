/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_h5io.c — the HDF5 writer and reader (sim/output/h5io*.c).
 * (One executable per module, as every test here; the writer, tables and
 * reader share their sample file and fault set-ups, so they stay together.)
 *
 * With no argument: unit tests in a fresh temporary folder each (safe under
 * ctest -j): a sample file written, committed and read back exactly, written
 * twice to the same bytes; abort, a missing or non-directory parent, a commit
 * whose rename fails, a file-size limit hit mid-run (EFBIG), misuse of every
 * kind; none may leave a file behind.
 *
 * Modes the script tests drive:
 *   --write FILE      write the sample file (h5io_check.py reads it with h5py)
 *   --write-bad FILE  the sample with one value and one unit wrong, so the
 *                     Python check can show it fails
 *   --enospc FILE     FILE is on a tiny file system: the run must fail with
 *                     ENOSPC and leave nothing
 *   --erofs FILE      FILE is on a read-only file system: open must fail
 */
#include "output/h5io_int.h"

#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NROWS   100003u /* six full chunks of 16384 and a partial one */
#define NPUT    50000u  /* rows written with put/row_end; the rest with append */
#define NBIG    40000u  /* a fixed array large enough to be chunked */
#define BAD_ROW 77777u

/* ------------------------------------------------------------------------- */
/* Expected values                                                            */

static double row_t_s(uint64_t i)
{
    return (double)i * 0.5;
}
static int64_t row_id(uint64_t i)
{
    return 3 * (int64_t)i - 7;
}
static int32_t row_gpus(uint64_t i)
{
    return (int32_t)(i % 17) - 8;
}
static uint8_t row_flag(uint64_t i)
{
    return (uint8_t)((i * 7) % 251);
}

static const double EDGES_S[5] = {0.0, 1.5, 60.0, 3600.0, 86400.25};

static const sim__h5_col JOB_COLS[4] = {
    {"t_s", SIM__H5_F64, "s", "arrival time since the start of the run"},
    {"id", SIM__H5_I64, "1", "job id"},
    {"gpus", SIM__H5_I32, "GPU", "GPUs requested (signed on purpose)"},
    {"flag", SIM__H5_U8, "1", "a small code"},
};
enum { C_T, C_ID, C_GPUS, C_FLAG };

/* ------------------------------------------------------------------------- */
/* Folders                                                                    */

static char *make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/tarmac-h5io.XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    if (!d) {
        fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
        exit(1);
    }
    return strdup(d);
}

/* Number of entries of `dir` (not . and ..); the first one's name into first. */
static int count_entries(const char *dir, char *first, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (first && cap)
        first[0] = '\0';
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n++ == 0 && first)
            snprintf(first, cap, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

/* Remove dir and what is in it (one level of subfolders is enough here). */
static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            char p[1024];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0)
                rm_tree(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    if (snprintf(out, cap, "%s/%s", dir, name) >= (int)cap) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(1);
    }
}

#define CHECK_DIAG_HAS(d, s)                                                                       \
    do {                                                                                           \
        if (!strstr((d).msg, (s)) && !strstr((d).where, (s)))                                      \
            check_fail(__FILE__, __LINE__, "diag \"%s: %s\" does not mention \"%s\"", (d).where,   \
                       (d).msg, (s));                                                              \
    } while (0)

/* ------------------------------------------------------------------------- */
/* The sample file                                                            */

/* Write everything but commit. Checks every status; returns the first failure. */
static int write_sample(sim__h5w *w, int bad, tm_diag *dg)
{
    int rc;
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((rc = (call)) != 0) {                                                                  \
            check_fail(__FILE__, __LINE__, "%s: got %s (%s: %s), want TM_OK", #call,               \
                       tm_status_name(rc), dg->where, dg->msg);                                    \
            return rc;                                                                             \
        }                                                                                          \
    } while (0)
    TRY(sim__h5w_attr_str(w, "/", "title", "tarmac h5io test", dg));
    TRY(sim__h5w_attr_i64(w, "/", "schema_version", 1, dg));
    TRY(sim__h5w_scalar_str(w, "/provenance/version", "0.1.0-test", "tarmac version", dg));
    TRY(sim__h5w_scalar_str(w, "/provenance/libraries/hdf5", "1.10", "HDF5 version", dg));
    TRY(sim__h5w_group(w, "/provenance/empty", dg));
    TRY(sim__h5w_attr_str(w, "/provenance/empty", "note", "caf\xc3\xa9 \xc2\xb5s", dg));
    TRY(sim__h5w_scalar_f64(w, "/summary/wait_mean_s", 12.5, "s", "mean wait", dg));
    TRY(sim__h5w_scalar_i64(w, "/summary/jobs", (int64_t)NROWS, "1", "jobs finished", dg));
    TRY(sim__h5w_scalar_i64(w, "/summary/min_i64", INT64_MIN, "1", "extreme value", dg));
    TRY(sim__h5w_scalar_f64(w, "/summary/utilization", 0.75, "1", "allocation utilization", dg));
    TRY(sim__h5w_attr_f64(w, "/summary", "horizon_s", 3600.0, dg));
    TRY(sim__h5w_attr_str(w, "/summary/wait_mean_s", "method", "arithmetic", dg));
    TRY(sim__h5w_attr_str(w, "/summary/wait_mean_s", "method", "arithmetic mean", dg));

    TRY(sim__h5w_array_f64(w, "/arrays/edges_s", EDGES_S, 5, "s", "bin edges", dg));
    TRY(sim__h5w_array_i64(w, "/arrays/empty_i64", NULL, 0, "1", "nothing", dg));
    double *big = malloc(NBIG * sizeof *big);
    if (!big)
        return TM_ERR_NOMEM;
    for (uint64_t i = 0; i < NBIG; i++)
        big[i] = (double)i * 0.25;
    rc = sim__h5w_array_f64(w, "/arrays/big", big, NBIG, "s", "a chunked array", dg);
    free(big);
    TRY(rc);

    sim__h5t *t = NULL, *e = NULL;
    TRY(sim__h5t_create(&t, w, "/jobs", "one row per job", JOB_COLS, 4, dg));
    for (uint64_t i = 0; i < NPUT; i++) {
        /* columns in a varying order: a row is complete whatever the order */
        if (i % 2) {
            sim__h5t_put_u8(t, C_FLAG, row_flag(i));
            sim__h5t_put_i32(t, C_GPUS, row_gpus(i));
            sim__h5t_put_i64(t, C_ID, row_id(i));
            sim__h5t_put_f64(t, C_T, row_t_s(i));
        } else {
            sim__h5t_put_f64(t, C_T, row_t_s(i));
            sim__h5t_put_i64(t, C_ID, row_id(i));
            sim__h5t_put_i32(t, C_GPUS, row_gpus(i));
            sim__h5t_put_u8(t, C_FLAG, row_flag(i));
        }
        TRY(sim__h5t_row_end(t, dg));
    }
    CHECK_EQ_U64(sim__h5t_rows(t), NPUT);
    /* The rest in batches that do not line up with chunks. */
    enum { BATCH = 7777 };
    double *bt = malloc(BATCH * sizeof *bt);
    int64_t *bi = malloc(BATCH * sizeof *bi);
    int32_t *bg = malloc(BATCH * sizeof *bg);
    uint8_t *bf = malloc(BATCH);
    rc = (bt && bi && bg && bf) ? 0 : TM_ERR_NOMEM;
    for (uint64_t i0 = NPUT; !rc && i0 < NROWS; i0 += BATCH) {
        size_t k = NROWS - i0 < BATCH ? (size_t)(NROWS - i0) : BATCH;
        for (size_t j = 0; j < k; j++) {
            uint64_t i = i0 + j;
            bt[j] = row_t_s(i);
            bi[j] = row_id(i) + ((bad && i == BAD_ROW) ? 1 : 0);
            bg[j] = row_gpus(i);
            bf[j] = row_flag(i);
        }
        const void *cols[4] = {bt, bi, bg, bf};
        rc = sim__h5t_append(t, cols, k, dg);
    }
    free(bt);
    free(bi);
    free(bg);
    free(bf);
    TRY(rc);
    CHECK_EQ_U64(sim__h5t_rows(t), NROWS);
    if (bad)
        TRY(sim__h5w_attr_str(w, "/jobs/t_s", "units", "ms", dg));

    static const sim__h5_col EMPTY_COLS[2] = {
        {"x", SIM__H5_F64, "s", "nothing"},
        {"n", SIM__H5_I64, "1", "nothing either"},
    };
    TRY(sim__h5t_create(&e, w, "/tables/empty", "a table with no rows", EMPTY_COLS, 2, dg));
    TRY(sim__h5t_append(e, NULL, 0, dg)); /* zero rows is fine, even with no data */
    TRY(sim__h5t_close(e, dg));           /* /jobs stays open until commit */

    /* A table that ends inside its first chunk is chunked by its length
     * (3 rows); one with something put under its group while open (a label
     * list) keeps whole chunks and its columns first in creation order. */
    static const sim__h5_col SMALL_COLS[2] = {
        {"v", SIM__H5_F64, "s", "three values"},
        {"k", SIM__H5_I32, "1", "three codes"},
    };
    static const char *const KLAB[2] = {"zero", "one"};
    sim__h5t *sm = NULL, *lb = NULL;
    TRY(sim__h5t_create(&sm, w, "/tables/small", "three rows", SMALL_COLS, 2, dg));
    TRY(sim__h5t_create(&lb, w, "/tables/labelled", "five rows, labelled", SMALL_COLS, 2, dg));
    TRY(sim__h5w_attr_str(w, "/tables/small", "note", "an attribute of the group", dg));
    TRY(sim__h5w_labels(w, "/tables/labelled/k", KLAB, 2, dg));
    for (int i = 0; i < 5; i++) {
        if (i < 3) {
            sim__h5t_put_f64(sm, 0, 1.5 * i);
            sim__h5t_put_i32(sm, 1, i % 2);
            TRY(sim__h5t_row_end(sm, dg));
        }
        sim__h5t_put_f64(lb, 0, -1.0 * i);
        sim__h5t_put_i32(lb, 1, (i + 1) % 2);
        TRY(sim__h5t_row_end(lb, dg));
    }
    TRY(sim__h5t_close(sm, dg));
    TRY(sim__h5w_labels(w, "/tables/small/k", KLAB, 2, dg)); /* after the close */
    TRY(sim__h5t_close(lb, dg));
#undef TRY
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Round trip                                                                 */

static void check_list(sim__h5r *r, const char *group, sim__h5_order order, const char *const *want,
                       size_t nwant)
{
    tm_diag dg = {0};
    char **names = NULL;
    size_t n = 0;
    int rc = sim__h5r_list(r, group, order, &names, &n, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "  list %s: %s: %s\n", group, dg.where, dg.msg);
        return;
    }
    CHECK_EQ_U64(n, nwant);
    for (size_t i = 0; i < n && i < nwant; i++)
        CHECK_STR(names[i], want[i]);
    free(names);
}

static void check_attr_str(sim__h5r *r, const char *obj, const char *name, const char *want)
{
    tm_diag dg = {0};
    char *s = NULL;
    int rc = sim__h5r_attr_str(r, obj, name, &s, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        fprintf(stderr, "  attr %s@%s: %s: %s\n", obj, name, dg.where, dg.msg);
    else
        CHECK_STR(s, want);
    free(s);
}

static void check_info(sim__h5r *r, const char *path, sim__h5_kind kind, sim__h5_type type,
                       int rank, uint64_t len)
{
    tm_diag dg = {0};
    sim__h5_info in;
    CHECK_EQ_INT(sim__h5r_info(r, path, &in, &dg), TM_OK);
    CHECK_EQ_INT(in.kind, kind);
    if (kind == SIM__H5_DATASET) {
        CHECK_EQ_INT(in.type, type);
        CHECK_EQ_INT(in.rank, rank);
        CHECK_EQ_U64(in.len, len);
    }
}

static void read_back(const char *path)
{
    tm_diag dg = {0};
    sim__h5r *r = NULL;
    int rc = sim__h5r_open(&r, path, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "  open %s: %s: %s\n", path, dg.where, dg.msg);
        return;
    }

    /* existence */
    CHECK_EQ_INT(sim__h5r_exists(r, "/"), 1);
    CHECK_EQ_INT(sim__h5r_exists(r, "/jobs/t_s"), 1);
    CHECK_EQ_INT(sim__h5r_exists(r, "/provenance/libraries"), 1);
    CHECK_EQ_INT(sim__h5r_exists(r, "/nope"), 0);
    CHECK_EQ_INT(sim__h5r_exists(r, "/nope/deeper"), 0);
    CHECK_EQ_INT(sim__h5r_exists(r, "/summary/jobs/below_a_dataset"), 0);
    CHECK_EQ_INT(sim__h5r_exists(r, "relative"), 0);

    /* scalars */
    double f = 0;
    int64_t i64 = 0;
    char *s = NULL;
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/summary/wait_mean_s", &f, &dg), TM_OK);
    CHECK(f == 12.5);
    CHECK_NEAR(f, 12.5, 0);
    CHECK_EQ_INT(sim__h5r_scalar_i64(r, "/summary/jobs", &i64, &dg), TM_OK);
    CHECK_EQ_INT(i64, NROWS);
    CHECK_EQ_INT(sim__h5r_scalar_i64(r, "/summary/min_i64", &i64, &dg), TM_OK);
    CHECK(i64 == INT64_MIN);
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/summary/jobs", &f, &dg), TM_OK); /* int as double */
    CHECK_NEAR(f, (double)NROWS, 0);
    CHECK_EQ_INT(sim__h5r_scalar_str(r, "/provenance/version", &s, &dg), TM_OK);
    CHECK_STR(s, "0.1.0-test");
    free(s);
    s = NULL;

    /* attributes */
    check_attr_str(r, "/", "title", "tarmac h5io test");
    check_attr_str(r, "/summary/wait_mean_s", "units", "s");
    check_attr_str(r, "/summary/wait_mean_s", "description", "mean wait");
    check_attr_str(r, "/summary/wait_mean_s", "method", "arithmetic mean"); /* replaced */
    check_attr_str(r, "/summary/utilization", "units", "1");
    check_attr_str(r, "/provenance/empty", "note", "caf\xc3\xa9 \xc2\xb5s");
    check_attr_str(r, "/provenance/version", "description", "tarmac version");
    check_attr_str(r, "/jobs", "description", "one row per job");
    for (size_t c = 0; c < 4; c++) {
        char p[64];
        snprintf(p, sizeof p, "/jobs/%s", JOB_COLS[c].name);
        /* UDUNITS has no GPU: the file says 1, long_name keeps the unit */
        int gpu = !strcmp(JOB_COLS[c].units, "GPU");
        check_attr_str(r, p, "units", gpu ? "1" : JOB_COLS[c].units);
        check_attr_str(r, p, "description", JOB_COLS[c].description);
        if (gpu)
            check_attr_str(r, p, "long_name", "GPUs requested (signed on purpose) (GPU)");
    }
    CHECK_EQ_INT(sim__h5r_attr_i64(r, "/", "schema_version", &i64, &dg), TM_OK);
    CHECK_EQ_INT(i64, 1);
    CHECK_EQ_INT(sim__h5r_attr_f64(r, "/summary", "horizon_s", &f, &dg), TM_OK);
    CHECK_NEAR(f, 3600.0, 0);
    /* string datasets carry no units */
    CHECK_EQ_INT(sim__h5r_attr_str(r, "/provenance/version", "units", &s, &dg), TM_ERR_NOTFOUND);
    CHECK(s == NULL);

    /* listings */
    static const char *const root_crt[] = {"provenance", "summary", "arrays", "jobs", "tables"};
    static const char *const root_name[] = {"arrays", "jobs", "provenance", "summary", "tables"};
    static const char *const jobs_crt[] = {"t_s", "id", "gpus", "flag"};
    static const char *const jobs_name[] = {"flag", "gpus", "id", "t_s"};
    static const char *const none[1] = {NULL};
    check_list(r, "/", SIM__H5_ORDER_CREATION, root_crt, 5);
    check_list(r, "/", SIM__H5_ORDER_NAME, root_name, 5);
    check_list(r, "/jobs", SIM__H5_ORDER_CREATION, jobs_crt, 4);
    check_list(r, "/jobs", SIM__H5_ORDER_NAME, jobs_name, 4);
    check_list(r, "/provenance/empty", SIM__H5_ORDER_CREATION, none, 0);
    static const char *const small_crt[] = {"v", "k"};
    check_list(r, "/tables/small", SIM__H5_ORDER_CREATION, small_crt, 2);
    check_list(r, "/tables/labelled", SIM__H5_ORDER_CREATION, small_crt, 2);

    /* info */
    check_info(r, "/summary", SIM__H5_GROUP, SIM__H5_OTHER, 0, 0);
    check_info(r, "/summary/jobs", SIM__H5_DATASET, SIM__H5_I64, 0, 1);
    check_info(r, "/provenance/version", SIM__H5_DATASET, SIM__H5_STR, 0, 1);
    check_info(r, "/jobs/t_s", SIM__H5_DATASET, SIM__H5_F64, 1, NROWS);
    check_info(r, "/jobs/id", SIM__H5_DATASET, SIM__H5_I64, 1, NROWS);
    check_info(r, "/jobs/gpus", SIM__H5_DATASET, SIM__H5_I32, 1, NROWS);
    check_info(r, "/jobs/flag", SIM__H5_DATASET, SIM__H5_U8, 1, NROWS);
    check_info(r, "/tables/empty/x", SIM__H5_DATASET, SIM__H5_F64, 1, 0);

    /* the table, exactly */
    double *t = NULL, *gd = NULL;
    int64_t *id = NULL, *gi = NULL, *fl = NULL;
    size_t nt = 0, nid = 0, ngd = 0, ngi = 0, nfl = 0;
    CHECK_EQ_INT(sim__h5r_array_f64(r, "/jobs/t_s", &t, &nt, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5r_array_i64(r, "/jobs/id", &id, &nid, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5r_array_f64(r, "/jobs/gpus", &gd, &ngd, &dg), TM_OK); /* i32 as double */
    CHECK_EQ_INT(sim__h5r_array_i64(r, "/jobs/gpus", &gi, &ngi, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5r_array_i64(r, "/jobs/flag", &fl, &nfl, &dg), TM_OK);
    CHECK_EQ_U64(nt, NROWS);
    CHECK_EQ_U64(nid, NROWS);
    CHECK_EQ_U64(ngd, NROWS);
    CHECK_EQ_U64(ngi, NROWS);
    CHECK_EQ_U64(nfl, NROWS);
    if (t && id && gd && gi && fl && nt == NROWS && nid == NROWS && ngd == NROWS && ngi == NROWS &&
        nfl == NROWS) {
        int bad = 0; /* report the first few mismatches only */
        for (uint64_t i = 0; i < NROWS && bad < 5; i++) {
            if (t[i] != row_t_s(i) || id[i] != row_id(i) || gi[i] != row_gpus(i) ||
                gd[i] != (double)row_gpus(i) || fl[i] != row_flag(i)) {
                check_fail(__FILE__, __LINE__,
                           "row %" PRIu64 ": got (%.17g, %" PRId64 ", %" PRId64 ", %" PRId64
                           "), want (%.17g, %" PRId64 ", %d, %d)",
                           i, t[i], id[i], gi[i], fl[i], row_t_s(i), row_id(i), row_gpus(i),
                           row_flag(i));
                bad++;
            }
        }
    }
    free(t);
    free(id);
    free(gd);
    free(gi);
    free(fl);

    /* arrays */
    double *a = NULL;
    int64_t *ai = NULL;
    size_t na = 99;
    CHECK_EQ_INT(sim__h5r_array_f64(r, "/arrays/edges_s", &a, &na, &dg), TM_OK);
    CHECK_EQ_U64(na, 5);
    for (size_t k = 0; a && k < na && k < 5; k++)
        CHECK_NEAR(a[k], EDGES_S[k], 0);
    free(a);
    a = NULL;
    CHECK_EQ_INT(sim__h5r_array_f64(r, "/arrays/big", &a, &na, &dg), TM_OK);
    CHECK_EQ_U64(na, NBIG);
    for (size_t k = 0; a && k < na; k++)
        if (a[k] != (double)k * 0.25) {
            check_fail(__FILE__, __LINE__, "big[%zu]: got %.17g, want %.17g", k, a[k],
                       (double)k * 0.25);
            break;
        }
    free(a);
    a = NULL;
    na = 99;
    CHECK_EQ_INT(sim__h5r_array_i64(r, "/arrays/empty_i64", &ai, &na, &dg), TM_OK);
    CHECK_EQ_U64(na, 0);
    CHECK(ai != NULL); /* never NULL on success */
    free(ai);
    ai = NULL;
    CHECK_EQ_INT(sim__h5r_array_f64(r, "/tables/empty/x", &a, &na, &dg), TM_OK);
    CHECK_EQ_U64(na, 0);
    free(a);
    a = NULL;
    CHECK_EQ_INT(sim__h5r_array_i64(r, "/tables/empty/n", &ai, &na, &dg), TM_OK);
    CHECK_EQ_U64(na, 0);
    free(ai);
    ai = NULL;

    /* reader errors: each must say where */
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/summary/nope", &f, &dg), TM_ERR_NOTFOUND);
    CHECK_DIAG_HAS(dg, "/summary/nope");
    CHECK_EQ_INT(sim__h5r_scalar_i64(r, "/summary/wait_mean_s", &i64, &dg), TM_ERR_DATA);
    CHECK_DIAG_HAS(dg, "floating point");
    CHECK_EQ_INT(sim__h5r_array_i64(r, "/jobs/t_s", &ai, &na, &dg), TM_ERR_DATA);
    CHECK(ai == NULL);
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/arrays/edges_s", &f, &dg), TM_ERR_DATA);
    CHECK_DIAG_HAS(dg, "want one");
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/provenance/version", &f, &dg), TM_ERR_DATA);
    CHECK_DIAG_HAS(dg, "not a number");
    CHECK_EQ_INT(sim__h5r_scalar_str(r, "/summary/jobs", &s, &dg), TM_ERR_DATA);
    CHECK_DIAG_HAS(dg, "not a string");
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/summary", &f, &dg), TM_ERR_DATA);
    CHECK_DIAG_HAS(dg, "not a dataset");
    CHECK_EQ_INT(sim__h5r_attr_str(r, "/jobs", "nope", &s, &dg), TM_ERR_NOTFOUND);
    CHECK_DIAG_HAS(dg, "/jobs@nope");
    CHECK_EQ_INT(sim__h5r_attr_f64(r, "/nope", "x", &f, &dg), TM_ERR_NOTFOUND);
    char **names = NULL;
    size_t nn = 0;
    CHECK_EQ_INT(sim__h5r_list(r, "/summary/jobs", SIM__H5_ORDER_NAME, &names, &nn, &dg),
                 TM_ERR_DATA);
    CHECK(names == NULL);
    sim__h5r_close(r);
}

/* Identical input, identical bytes: no timestamps in the file. */
static void check_same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    CHECK(fa && fb);
    if (fa && fb) {
        long off = 0;
        int ca, cb;
        do {
            ca = fgetc(fa);
            cb = fgetc(fb);
            off++;
        } while (ca == cb && ca != EOF);
        if (ca != cb)
            check_fail(__FILE__, __LINE__, "%s and %s differ at byte %ld: got %d, want %d", a, b,
                       off - 1, cb, ca);
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
}

static void test_roundtrip(void)
{
    char *dir = make_tmpdir();
    char path[1024], path2[1024], first[256];
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    join(path, sizeof path, dir, "out.h5");
    join(path2, sizeof path2, dir, "again.h5");

    int rc = sim__h5w_open(&w, path, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "  open: %s: %s\n", dg.where, dg.msg);
        goto out;
    }
    CHECK_EQ_INT(write_sample(w, 0, &dg), TM_OK);
    /* Before commit only the temporary file exists. */
    CHECK(!file_exists(path));
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 1);
    CHECK(strncmp(first, "out.h5.tmp.", 11) == 0);
    rc = sim__h5w_commit(w, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc)
        fprintf(stderr, "  commit: %s: %s\n", dg.where, dg.msg);
    CHECK(file_exists(path));
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 1);
    CHECK_STR(first, "out.h5");
    read_back(path);

    /* Once more into another name: the same bytes. */
    rc = sim__h5w_open(&w, path2, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (!rc) {
        CHECK_EQ_INT(write_sample(w, 0, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5w_commit(w, &dg), TM_OK);
        check_same_bytes(path, path2);
    }
out:
    rm_tree(dir);
    free(dir);
}

/* ------------------------------------------------------------------------- */
/* Atomicity                                                                  */

static void write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(s, f);
        fclose(f);
    }
}

static void test_abort(void)
{
    char *dir = make_tmpdir();
    char path[1024], first[256], buf[16] = {0};
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    join(path, sizeof path, dir, "out.h5");

    sim__h5w_abort(NULL); /* a no-op */

    /* Abort leaves nothing. */
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a/b", 1.0, "1", "x", &dg), TM_OK);
    sim__h5t *t = NULL;
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "open table", JOB_COLS, 4, &dg), TM_OK);
    sim__h5t_put_f64(t, C_T, 1.0); /* an open row, an open table */
    sim__h5w_abort(w);
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);

    /* An older file under the final name survives an abort... */
    write_text(path, "old");
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a", 1.0, "1", "x", &dg), TM_OK);
    sim__h5w_abort(w);
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 1);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        CHECK(fgets(buf, sizeof buf, f) != NULL);
        fclose(f);
    }
    CHECK_STR(buf, "old");

    /* ...and a commit replaces it. */
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a", 2.0, "1", "x", &dg), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &dg), TM_OK);
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 1);
    sim__h5r *r = NULL;
    double v = 0;
    CHECK_EQ_INT(sim__h5r_open(&r, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5r_scalar_f64(r, "/a", &v, &dg), TM_OK);
    CHECK_NEAR(v, 2.0, 0);
    sim__h5r_close(r);
    sim__h5r_close(NULL);

    rm_tree(dir);
    free(dir);
}

static void test_bad_dir(void)
{
    char *dir = make_tmpdir();
    char path[1024], file[1024], first[256];
    tm_diag dg = {0};
    sim__h5w *w = (sim__h5w *)&dg; /* must be reset to NULL */

    join(path, sizeof path, dir, "missing/out.h5");
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_ERR_CANTCREAT);
    CHECK(w == NULL);
    CHECK_DIAG_HAS(dg, strerror(ENOENT));
    CHECK_DIAG_HAS(dg, "missing/out.h5");
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);

    join(file, sizeof file, dir, "plain");
    write_text(file, "x");
    join(path, sizeof path, dir, "plain/out.h5");
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_ERR_CANTCREAT);
    CHECK_DIAG_HAS(dg, strerror(ENOTDIR));
    unlink(file);

    /* Permissions stop everyone but root (the tmpfs test covers a read-only
     * file system for root). */
    if (geteuid() != 0) {
        join(path, sizeof path, dir, "out.h5");
        chmod(dir, 0500);
        CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_ERR_CANTCREAT);
        CHECK_DIAG_HAS(dg, strerror(EACCES));
        chmod(dir, 0700);
    }
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
    rm_tree(dir);
    free(dir);
}

/* The rename fails (the final name is a non-empty folder): commit reports it
 * and removes the temporary file. */
static void test_commit_fails(void)
{
    char *dir = make_tmpdir();
    char path[1024], inner[1024], first[256];
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    join(path, sizeof path, dir, "out.h5");
    CHECK_EQ_INT(mkdir(path, 0700), 0);
    join(inner, sizeof inner, path, "keep");
    write_text(inner, "x");

    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a", 1.0, "1", "x", &dg), TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &dg), TM_ERR_CANTCREAT);
    CHECK_DIAG_HAS(dg, "rename");
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 1);
    CHECK_STR(first, "out.h5");
    CHECK_EQ_INT(count_entries(path, first, sizeof first), 1);
    rm_tree(dir);
    free(dir);
}

/* Values that deflate cannot shrink, so the bytes really reach the disk. */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A file-size limit that bites once: the first write past it fails with
 * EFBIG, and the SIGXFSZ it raises lifts the limit, so that the clean-up
 * afterwards (diverted to shared memory) can write, as on a full disk. */
static struct rlimit fsize_saved;
static volatile sig_atomic_t fsize_hit;

static void fsize_lift(int sig)
{
    (void)sig;
    fsize_hit = 1;
    setrlimit(RLIMIT_FSIZE, &fsize_saved); /* a bare system call on Linux */
}

static void fsize_limit_once(rlim_t bytes, struct sigaction *prev)
{
    struct sigaction sa;
    struct rlimit lim;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fsize_lift;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ_INT(getrlimit(RLIMIT_FSIZE, &fsize_saved), 0);
    CHECK_EQ_INT(sigaction(SIGXFSZ, &sa, prev), 0);
    lim = fsize_saved;
    lim.rlim_cur = bytes;
    fsize_hit = 0;
    CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void fsize_restore(const struct sigaction *prev)
{
    CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &fsize_saved), 0);
    CHECK_EQ_INT(sigaction(SIGXFSZ, prev, NULL), 0);
    CHECK_EQ_INT(fsize_hit, 1);
}

/* Write a large incompressible table, going on after the first failure
 * (errors are sticky), then commit: the write that hit the limit and the
 * commit must fail with `want_errno`, and nothing may be left at `path`. */
static void fill_and_fail(const char *path, int want_errno)
{
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    sim__h5t *t = NULL;
    uint64_t seed = check_seed(20240601);
    int rc = sim__h5w_open(&w, path, &dg);
    CHECK_EQ_INT(rc, TM_OK);
    if (rc) {
        fprintf(stderr, "  open: %s: %s\n", dg.where, dg.msg);
        return;
    }
    sim__h5t_create(&t, w, "/noise", "random", JOB_COLS, 2, &dg);
    int first_fail = 0;
    for (uint64_t i = 0; i < NROWS; i++) {
        sim__h5t_put_f64(t, 0, (double)(splitmix(&seed) >> 11) * 0x1p-53);
        sim__h5t_put_i64(t, 1, (int64_t)splitmix(&seed));
        rc = sim__h5t_row_end(t, &dg);
        if (rc && !first_fail)
            first_fail = rc;
    }
    rc = sim__h5w_commit(w, &dg);
    CHECK_EQ_INT(rc, TM_ERR_IO);
    CHECK_EQ_INT(first_fail, TM_ERR_IO); /* reported by the write that hit it */
    CHECK_DIAG_HAS(dg, strerror(want_errno));
    printf("  expected failure: %s: %s\n", dg.where, dg.msg);
    CHECK(!file_exists(path));
    CHECK_EQ_INT(sim__h5_open_ids(), 0); /* the failed file was closed after all */
}

static void test_file_size_limit(void)
{
    char *dir = make_tmpdir();
    char path[1024], first[256];
    struct sigaction prev;
    join(path, sizeof path, dir, "out.h5");
    fsize_limit_once(64 * 1024, &prev);
    fill_and_fail(path, EFBIG);
    fsize_restore(&prev);
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
    if (first[0])
        fprintf(stderr, "  left behind: %s\n", first);
    rm_tree(dir);
    free(dir);
}

/* The disk fills during commit: with a table still open, when its last
 * partial chunk is written; with none, when HDF5 flushes the metadata it held
 * back. Commit fails, cleans up and leaves no open file. */
static void test_commit_flush_fails(void)
{
    for (int with_table = 1; with_table >= 0; with_table--) {
        char *dir = make_tmpdir();
        char path[1024], tmp[1024], first[256];
        tm_diag dg = {0};
        sim__h5w *w = NULL;
        struct stat st;
        struct sigaction prev;
        join(path, sizeof path, dir, "out.h5");
        CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
        if (with_table) {
            CHECK_EQ_INT(write_sample(w, 0, &dg), TM_OK);
        } else {
            CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a/b", 1.0, "1", "d", &dg), TM_OK);
            CHECK_EQ_INT(sim__h5w_attr_str(w, "/a", "k", "v", &dg), TM_OK);
        }
        CHECK_EQ_INT(count_entries(dir, first, sizeof first), 1);
        join(tmp, sizeof tmp, dir, first);
        CHECK_EQ_INT(stat(tmp, &st), 0);
        fsize_limit_once((rlim_t)st.st_size, &prev); /* not one byte more */
        int rc = sim__h5w_commit(w, &dg);
        fsize_restore(&prev);
        CHECK_EQ_INT(rc, TM_ERR_IO);
        CHECK_DIAG_HAS(dg, strerror(EFBIG));
        printf("  expected failure: %s: %s\n", dg.where, dg.msg);
        CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
        CHECK_EQ_INT(sim__h5_open_ids(), 0);
        rm_tree(dir);
        free(dir);
    }
}

/* ------------------------------------------------------------------------- */
/* The compression pipeline (worker thread, direct chunk writes)             */

/* A table shaped like the jobs table of a run: 15 columns, 86 bytes a row. */
static const sim__h5_col J15_COLS[15] = {
    {"id", SIM__H5_I64, "1", "job number"},
    {"trace_id", SIM__H5_I64, "1", "id in the source"},
    {"class", SIM__H5_I32, "1", "class index"},
    {"state", SIM__H5_U8, "1", "state code"},
    {"reject_reason", SIM__H5_U8, "1", "reason code"},
    {"gpus", SIM__H5_I32, "GPU", "GPUs"},
    {"gpu_milli", SIM__H5_I32, "1", "share"},
    {"gpu_type", SIM__H5_I32, "1", "type index"},
    {"first_node", SIM__H5_I64, "1", "first node"},
    {"n_nodes", SIM__H5_I32, "1", "nodes"},
    {"submit_s", SIM__H5_F64, "s", "arrival"},
    {"start_s", SIM__H5_F64, "s", "start"},
    {"end_s", SIM__H5_F64, "s", "end"},
    {"wait_s", SIM__H5_F64, "s", "wait"},
    {"run_s", SIM__H5_F64, "s", "run"},
};

/* Value of column c at row i (as a double: every one is exact in a double).
 * `salt` makes different tables differ. */
static double j15_value(size_t c, uint64_t i, uint64_t salt)
{
    double x = (double)i + (double)salt;
    switch (c) {
    case 0:
        return x + 1;
    case 1:
        return (double)((i * 7919 + salt) % 1000003);
    case 2:
        return (double)(i % 5);
    case 3:
        return (double)(i % 4);
    case 4:
        return (double)((i / 3) % 3);
    case 5:
        return (double)(1 << (i % 4));
    case 6:
        return (i % 9) ? 1000.0 : 250.0;
    case 7:
        return (double)((int)(i % 3) - 1);
    case 8:
        return (i % 11) ? (double)(i % 4096) : -1.0;
    case 9:
        return (double)(i % 3);
    default:
        return x * 0.125 + (double)c;
    }
}

static void j15_put(sim__h5t *t, uint64_t i, uint64_t salt)
{
    for (size_t c = 0; c < 15; c++) {
        double v = j15_value(c, i, salt);
        switch (J15_COLS[c].type) {
        case SIM__H5_F64:
            sim__h5t_put_f64(t, c, v);
            break;
        case SIM__H5_I64:
            sim__h5t_put_i64(t, c, (int64_t)v);
            break;
        case SIM__H5_I32:
            sim__h5t_put_i32(t, c, (int32_t)v);
            break;
        default:
            sim__h5t_put_u8(t, c, (uint8_t)v);
            break;
        }
    }
}

/* Rows [i0, i0 + n) of a J15 table; returns the first failure. */
static int j15_rows(sim__h5t *t, uint64_t i0, uint64_t n, uint64_t salt, tm_diag *dg)
{
    int first = 0;
    for (uint64_t i = i0; i < i0 + n; i++) {
        j15_put(t, i, salt);
        int rc = sim__h5t_row_end(t, dg);
        if (rc && !first)
            first = rc;
    }
    return first;
}

/* The J15 table at `path` of an open reader holds rows [0, n) of `salt`. */
static void j15_check(sim__h5r *r, const char *path, uint64_t n, uint64_t salt)
{
    for (size_t c = 0; c < 15; c++) {
        char p[256];
        tm_diag dg = {0};
        double *v = NULL;
        size_t got = 0;
        snprintf(p, sizeof p, "%s/%s", path, J15_COLS[c].name);
        int rc = sim__h5r_array_f64(r, p, &v, &got, &dg);
        if (rc != TM_OK) {
            check_fail(__FILE__, __LINE__, "read %s: %s: %s", p, dg.where, dg.msg);
            continue;
        }
        if (got != n)
            check_fail(__FILE__, __LINE__, "%s: got %zu rows, want %" PRIu64, p, got, n);
        for (uint64_t i = 0; i < n && i < got; i++)
            if (v[i] != j15_value(c, i, salt)) {
                check_fail(__FILE__, __LINE__, "%s[%" PRIu64 "]: got %.17g, want %.17g", p, i, v[i],
                           j15_value(c, i, salt));
                break;
            }
        free(v);
    }
}

static const char *pipe_name(sim__h5_pipe p)
{
    switch (p) {
    case SIM__H5_PIPE_WORKER:
        return "worker";
    case SIM__H5_PIPE_INLINE:
        return "inline";
    case SIM__H5_PIPE_FILTER:
        return "filter";
    default:
        return "none";
    }
}

/* A table whose chunks repeat: "b" is "a" (random doubles: noise planes),
 * "k" and "k2" are the constant 7, "nan" and "one" constant doubles, "id"
 * the row number. Chunks of a repeated column reuse the stream of the
 * first; constant chunks come from the compressor's cache after the first;
 * the last chunk is partial, padded with zeros, so no longer constant. */
#define REP_ROWS (3 * SIM__H5_CHUNK_ROWS + 123)
static const sim__h5_col REP_COLS[7] = {
    {"a", SIM__H5_F64, "s", "random"},      {"b", SIM__H5_F64, "s", "a again"},
    {"k", SIM__H5_I32, "1", "seven"},       {"nan", SIM__H5_F64, "s", "NaN"},
    {"one", SIM__H5_F64, "1", "one"},       {"k2", SIM__H5_I32, "1", "seven again"},
    {"id", SIM__H5_I64, "1", "row number"},
};

static double rep_a(uint64_t i)
{
    uint64_t s = i * 0x9E3779B97F4A7C15ull + 1;
    return (double)(splitmix(&s) >> 11) * 0x1p-53 * 1000.0;
}

static int write_repeated(const char *path, sim__h5_pipe pipe)
{
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    sim__h5t *t = NULL;
    int rc = sim__h5w_open(&w, path, &dg);
    if (!rc && !(rc = sim__h5w_set_pipe(w, pipe, &dg)))
        rc = sim__h5t_create(&t, w, "/rep", "repeated columns", REP_COLS, 7, &dg);
    for (uint64_t i = 0; !rc && i < REP_ROWS; i++) {
        sim__h5t_put_f64(t, 0, rep_a(i));
        sim__h5t_put_f64(t, 1, rep_a(i));
        sim__h5t_put_i32(t, 2, 7);
        sim__h5t_put_f64(t, 3, NAN);
        sim__h5t_put_f64(t, 4, 1.0);
        sim__h5t_put_i32(t, 5, 7);
        sim__h5t_put_i64(t, 6, (int64_t)i);
        rc = sim__h5t_row_end(t, &dg);
    }
    if (!rc)
        return sim__h5w_commit(w, &dg) == TM_OK
                   ? 0
                   : (check_fail(__FILE__, __LINE__, "%s: %s", dg.where, dg.msg), -1);
    check_fail(__FILE__, __LINE__, "%s: %s", dg.where, dg.msg);
    sim__h5w_abort(w);
    return -1;
}

static void test_repeated_columns(void)
{
    static const sim__h5_pipe pipes[] = {SIM__H5_PIPE_WORKER, SIM__H5_PIPE_INLINE,
                                         SIM__H5_PIPE_FILTER};
    char *dir = make_tmpdir();
    char path[3][1024];
    tm_diag dg = {0};
    for (size_t p = 0; p < 3; p++) {
        join(path[p], sizeof path[p], dir, pipe_name(pipes[p]));
        if (write_repeated(path[p], pipes[p]) != 0)
            continue;
        sim__h5r *r = NULL;
        CHECK_EQ_INT(sim__h5r_open(&r, path[p], &dg), TM_OK);
        for (size_t c = 0; r && c < 7; c++) {
            char where[64];
            snprintf(where, sizeof where, "/rep/%s", REP_COLS[c].name);
            double *f = NULL;
            int64_t *v = NULL;
            size_t n = 0;
            int rc = REP_COLS[c].type == SIM__H5_F64 ? sim__h5r_array_f64(r, where, &f, &n, &dg)
                                                     : sim__h5r_array_i64(r, where, &v, &n, &dg);
            CHECK_EQ_INT(rc, TM_OK);
            CHECK_EQ_U64(n, REP_ROWS);
            for (size_t i = 0; !rc && i < n; i++) {
                double want = c < 2 ? rep_a(i) : c == 4 ? 1.0 : c == 6 ? (double)i : 7.0;
                int ok = c == 3 ? isnan(f[i]) : f ? f[i] == want : (double)v[i] == want;
                if (!ok) {
                    check_fail(__FILE__, __LINE__, "%s %s[%zu] is not %g", pipe_name(pipes[p]),
                               where, i, want);
                    break;
                }
            }
            free(f);
            free(v);
        }
        sim__h5r_close(r);
    }
    check_same_bytes(path[0], path[1]);
    rm_tree(dir);
    free(dir);
}

/* One table, nothing else written while it is open: rows by put and by
 * append, random (incompressible) values in one column, a partial last
 * chunk. Commits; returns the status. */
static int write_one_table(const char *path, sim__h5_pipe pipe, uint64_t nrows)
{
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    sim__h5t *t = NULL;
    uint64_t seed = 42;
    int rc = sim__h5w_open(&w, path, &dg);
    if (rc)
        goto fail;
    if ((rc = sim__h5w_set_pipe(w, pipe, &dg)) ||
        (rc = sim__h5t_create(&t, w, "/jobs", "one row per job", JOB_COLS, 4, &dg)))
        goto fail;
    enum { BATCH = 5000 };
    double bt[BATCH];
    int64_t bi[BATCH];
    int32_t bg[BATCH];
    uint8_t bf[BATCH];
    for (uint64_t i0 = 0; i0 < nrows; i0 += BATCH) {
        size_t k = nrows - i0 < BATCH ? (size_t)(nrows - i0) : BATCH;
        for (size_t j = 0; j < k; j++) {
            bt[j] = row_t_s(i0 + j);
            bi[j] = (int64_t)splitmix(&seed);
            bg[j] = row_gpus(i0 + j);
            bf[j] = row_flag(i0 + j);
        }
        if ((i0 / BATCH) % 2) {
            const void *cols[4] = {bt, bi, bg, bf};
            if ((rc = sim__h5t_append(t, cols, k, &dg)))
                goto fail;
        } else {
            for (size_t j = 0; j < k; j++) {
                sim__h5t_put_f64(t, C_T, bt[j]);
                sim__h5t_put_i64(t, C_ID, bi[j]);
                sim__h5t_put_i32(t, C_GPUS, bg[j]);
                sim__h5t_put_u8(t, C_FLAG, bf[j]);
                if ((rc = sim__h5t_row_end(t, &dg)))
                    goto fail;
            }
        }
    }
    rc = sim__h5w_commit(w, &dg);
    w = NULL;
    if (rc)
        goto fail;
    return 0;
fail:
    check_fail(__FILE__, __LINE__, "write_one_table %s (%s): %s: %s: %s", path, pipe_name(pipe),
               tm_status_name(rc), dg.where, dg.msg);
    sim__h5w_abort(w);
    return rc;
}

/* The columns of /jobs (JOB_COLS) hold the same values in both files. */
static void check_same_columns(const char *a, const char *b)
{
    tm_diag dg = {0};
    sim__h5r *ra = NULL, *rb = NULL;
    CHECK_EQ_INT(sim__h5r_open(&ra, a, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5r_open(&rb, b, &dg), TM_OK);
    for (size_t c = 0; ra && rb && c < 4; c++) {
        char p[64];
        snprintf(p, sizeof p, "/jobs/%s", JOB_COLS[c].name);
        int64_t *va = NULL, *vb = NULL;
        double *fa = NULL, *fb = NULL;
        size_t na = 0, nb = 0;
        if (JOB_COLS[c].type == SIM__H5_F64) {
            CHECK_EQ_INT(sim__h5r_array_f64(ra, p, &fa, &na, &dg), TM_OK);
            CHECK_EQ_INT(sim__h5r_array_f64(rb, p, &fb, &nb, &dg), TM_OK);
        } else {
            CHECK_EQ_INT(sim__h5r_array_i64(ra, p, &va, &na, &dg), TM_OK);
            CHECK_EQ_INT(sim__h5r_array_i64(rb, p, &vb, &nb, &dg), TM_OK);
        }
        CHECK_EQ_INT(na, nb);
        for (size_t i = 0; i < na && i < nb; i++) {
            int same = fa ? memcmp(&fa[i], &fb[i], sizeof fa[i]) == 0 : va[i] == vb[i];
            if (!same) {
                check_fail(__FILE__, __LINE__, "%s and %s: %s[%zu] differs", a, b, p, i);
                break;
            }
        }
        free(va);
        free(vb);
        free(fa);
        free(fb);
    }
    sim__h5r_close(ra);
    sim__h5r_close(rb);
}

/* Our shuffle + deflate: a table written through the worker and with no
 * thread gives the same file, byte for byte; through HDF5's own filter path
 * (deflate's default strategy, ours is Z_RLE) another file with the same
 * values; the sample (which writes other objects while /jobs is open) gives
 * the same bytes with and without the thread. Row counts end mid-chunk, on a
 * chunk boundary and inside the first chunk. */
static void test_pipes_same_bytes(void)
{
    static const uint64_t rows[] = {NROWS, 4 * SIM__H5_CHUNK_ROWS, 1000};
    static const sim__h5_pipe pipes[] = {SIM__H5_PIPE_WORKER, SIM__H5_PIPE_INLINE,
                                         SIM__H5_PIPE_FILTER};
    char *dir = make_tmpdir();
    char ref[1024], other[1024];
    tm_diag dg = {0};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        join(ref, sizeof ref, dir, "worker.h5");
        if (write_one_table(ref, SIM__H5_PIPE_WORKER, rows[r]))
            continue;
        for (size_t p = 1; p < sizeof pipes / sizeof pipes[0]; p++) {
            join(other, sizeof other, dir, pipe_name(pipes[p]));
            if (write_one_table(other, pipes[p], rows[r]) != 0)
                continue;
            if (pipes[p] == SIM__H5_PIPE_FILTER)
                check_same_columns(ref, other);
            else
                check_same_bytes(ref, other);
        }
    }
    /* Without compression the file is another one, but holds the same rows. */
    join(other, sizeof other, dir, "none.h5");
    CHECK_EQ_INT(write_one_table(other, SIM__H5_PIPE_NONE, 1000), TM_OK);

    for (size_t p = 0; p < 2; p++) {
        sim__h5w *w = NULL;
        join(other, sizeof other, dir, p ? "sample-inline.h5" : "sample-worker.h5");
        CHECK_EQ_INT(sim__h5w_open(&w, other, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5w_set_pipe(w, pipes[p], &dg), TM_OK);
        CHECK_EQ_INT(write_sample(w, 0, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5w_commit(w, &dg), TM_OK);
        if (p == 1) {
            join(ref, sizeof ref, dir, "sample-worker.h5");
            check_same_bytes(ref, other);
            read_back(other);
        }
    }
    /* The sample through HDF5's filters reads back the same. */
    {
        sim__h5w *w = NULL;
        join(other, sizeof other, dir, "sample-filter.h5");
        CHECK_EQ_INT(sim__h5w_open(&w, other, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5w_set_pipe(w, SIM__H5_PIPE_FILTER, &dg), TM_OK);
        CHECK_EQ_INT(write_sample(w, 0, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5w_commit(w, &dg), TM_OK);
        read_back(other);
    }
    rm_tree(dir);
    free(dir);
}

/* Many small tables (120; some with zero rows, three with a full chunk),
 * created and closed, some left to commit, while two large tables stream
 * side by side and keep the worker busy. */
static void test_many_tables(void)
{
    enum { NSMALL = 120 };
    char *dir = make_tmpdir();
    char path[1024], p[64];
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    sim__h5t *big = NULL, *side = NULL;
    join(path, sizeof path, dir, "many.h5");
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5t_create(&big, w, "/jobs", "big", J15_COLS, 15, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5t_create(&side, w, "/side", "side", J15_COLS, 15, &dg), TM_OK);
    uint64_t nbig = 0, nside = 0;
    for (unsigned k = 0; k < NSMALL; k++) {
        sim__h5t *s = NULL;
        snprintf(p, sizeof p, "/small/t%03u", k);
        CHECK_EQ_INT(sim__h5t_create(&s, w, p, "small", J15_COLS, 1 + k % 15, &dg), TM_OK);
        /* k % 7 == 0: zero rows; some cross a chunk boundary */
        uint64_t n = (k % 7 == 0) ? 0 : (k % 40 == 1) ? SIM__H5_CHUNK_ROWS + k : k;
        for (uint64_t i = 0; i < n; i++) {
            for (size_t c = 0; c < 1 + k % 15; c++) {
                double v = j15_value(c, i, k);
                if (J15_COLS[c].type == SIM__H5_F64)
                    sim__h5t_put_f64(s, c, v);
                else if (J15_COLS[c].type == SIM__H5_I64)
                    sim__h5t_put_i64(s, c, (int64_t)v);
                else if (J15_COLS[c].type == SIM__H5_I32)
                    sim__h5t_put_i32(s, c, (int32_t)v);
                else
                    sim__h5t_put_u8(s, c, (uint8_t)v);
            }
            CHECK_EQ_INT(sim__h5t_row_end(s, &dg), TM_OK);
        }
        if (k % 3 != 2) /* the others are left for commit to finish */
            CHECK_EQ_INT(sim__h5t_close(s, &dg), TM_OK);
        CHECK_EQ_INT(j15_rows(big, nbig, 600, 0, &dg), TM_OK); /* 4 full chunks in all */
        nbig += 600;
        CHECK_EQ_INT(j15_rows(side, nside, 250, 7, &dg), TM_OK); /* 1 full chunk */
        nside += 250;
    }
    CHECK_EQ_INT(sim__h5w_commit(w, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);

    sim__h5r *r = NULL;
    CHECK_EQ_INT(sim__h5r_open(&r, path, &dg), TM_OK);
    if (r) {
        j15_check(r, "/jobs", nbig, 0);
        j15_check(r, "/side", nside, 7);
        for (unsigned k = 0; k < NSMALL; k++) {
            uint64_t n = (k % 7 == 0) ? 0 : (k % 40 == 1) ? SIM__H5_CHUNK_ROWS + k : k;
            snprintf(p, sizeof p, "/small/t%03u/%s", k, J15_COLS[k % 15].name);
            double *v = NULL;
            size_t got = 0;
            CHECK_EQ_INT(sim__h5r_array_f64(r, p, &v, &got, &dg), TM_OK);
            CHECK_EQ_U64(got, n);
            for (uint64_t i = 0; v && i < got; i++)
                if (v[i] != j15_value(k % 15, i, k)) {
                    check_fail(__FILE__, __LINE__, "%s[%" PRIu64 "]: got %.17g, want %.17g", p, i,
                               v[i], j15_value(k % 15, i, k));
                    break;
                }
            free(v);
        }
        sim__h5r_close(r);
    }
    rm_tree(dir);
    free(dir);
}

/* Abort with chunks queued, being compressed and waiting to be written, in
 * every pipeline, right after the worker starts and much later: nothing is
 * left, no HDF5 handle stays open (and ASan / TSan see no leak or race). */
static void test_abort_in_flight(void)
{
    static const sim__h5_pipe pipes[] = {SIM__H5_PIPE_WORKER, SIM__H5_PIPE_INLINE,
                                         SIM__H5_PIPE_FILTER};
    static const uint64_t rows[] = {SIM__H5_CHUNK_ROWS, 2 * SIM__H5_CHUNK_ROWS + 5,
                                    4 * SIM__H5_CHUNK_ROWS};
    char *dir = make_tmpdir();
    char path[1024], first[256];
    join(path, sizeof path, dir, "out.h5");
    for (size_t p = 0; p < sizeof pipes / sizeof pipes[0]; p++)
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            tm_diag dg = {0};
            sim__h5w *w = NULL;
            sim__h5t *a = NULL, *b = NULL;
            CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
            CHECK_EQ_INT(sim__h5w_set_pipe(w, pipes[p], &dg), TM_OK);
            CHECK_EQ_INT(sim__h5t_create(&a, w, "/a", "a", J15_COLS, 15, &dg), TM_OK);
            CHECK_EQ_INT(sim__h5t_create(&b, w, "/b", "b", J15_COLS, 15, &dg), TM_OK);
            CHECK_EQ_INT(j15_rows(a, 0, rows[r], 1, &dg), TM_OK);
            CHECK_EQ_INT(j15_rows(b, 0, rows[r], 2, &dg), TM_OK);
            j15_put(b, rows[r], 2); /* and an open row */
            sim__h5w_abort(w);
            CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
            CHECK_EQ_INT(sim__h5_open_ids(), 0);
        }
    rm_tree(dir);
    free(dir);
}

/* A compression fails on the worker thread while the caller goes on with
 * other calls: the failure becomes the writer's on the caller's next call,
 * of whatever kind; it is sticky on every table; commit fails and leaves no
 * file. With no thread, the call that compressed it reports it. */
static void test_worker_failure(void)
{
    char *dir = make_tmpdir();
    char path[1024], first[256];
    join(path, sizeof path, dir, "out.h5");
    for (int inline_pipe = 0; inline_pipe <= 1; inline_pipe++) {
        tm_diag dg = {0}, again = {0};
        sim__h5w *w = NULL;
        sim__h5t *a = NULL, *b = NULL;
        CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
        if (inline_pipe)
            CHECK_EQ_INT(sim__h5w_set_pipe(w, SIM__H5_PIPE_INLINE, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5t_create(&a, w, "/a", "a", J15_COLS, 15, &dg), TM_OK);
        CHECK_EQ_INT(sim__h5t_create(&b, w, "/b", "b", J15_COLS, 3, &dg), TM_OK);
        /* Compressions count column chunks: the second chunk of column 2 fails. */
        sim__h5_test_fail_compress(15 + 3);
        int rc = j15_rows(a, 0, 2 * SIM__H5_CHUNK_ROWS, 0, &dg);
        if (inline_pipe) {
            /* Shipping two chunks writes none yet: nothing compressed so far. */
            CHECK_EQ_INT(rc, TM_OK);
            rc = sim__h5t_close(a, &dg); /* compresses both, the second fails */
            CHECK_EQ_INT(rc, TM_ERR_NOMEM);
        } else {
            CHECK_EQ_INT(rc, TM_OK); /* no write waited for the failed chunk */
            /* Other calls, not on the table, until the failure shows. */
            for (int i = 0; i < 20000 && rc == 0; i++) {
                rc = sim__h5w_attr_i64(w, "/", "probe", i, &dg);
                if (!rc)
                    nanosleep(&(struct timespec){0, 500000}, NULL);
            }
            CHECK_EQ_INT(rc, TM_ERR_NOMEM);
        }
        CHECK_DIAG_HAS(dg, "zlib deflate");
        CHECK_DIAG_HAS(dg, "/a/class");
        printf("  expected failure: %s: %s\n", dg.where, dg.msg);
        /* sticky everywhere */
        if (!inline_pipe)
            CHECK_EQ_INT(sim__h5t_row_end(a, &again), TM_ERR_NOMEM);
        CHECK_EQ_INT(j15_rows(b, 0, 10, 0, &again), TM_ERR_NOMEM);
        CHECK_STR(again.msg, dg.msg);
        CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/x", 1.0, "1", "d", &again), TM_ERR_NOMEM);
        CHECK_EQ_INT(sim__h5w_commit(w, &again), TM_ERR_NOMEM);
        CHECK_STR(again.msg, dg.msg);
        CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
        CHECK_EQ_INT(sim__h5_open_ids(), 0);
        sim__h5_test_fail_compress(0);
    }
    rm_tree(dir);
    free(dir);
}

/* The disk fills (a file-size limit) while the worker holds chunks of two
 * wide tables: the write that hits it reports EFBIG, every later call on
 * either table and the commit fail the same way, nothing is left. */
static void test_full_with_worker(void)
{
    char *dir = make_tmpdir();
    char path[1024], first[256];
    struct sigaction prev;
    tm_diag dg = {0}, again = {0};
    sim__h5w *w = NULL;
    sim__h5t *a = NULL, *b = NULL;
    join(path, sizeof path, dir, "out.h5");
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5t_create(&a, w, "/a", "a", J15_COLS, 15, &dg), TM_OK);
    CHECK_EQ_INT(sim__h5t_create(&b, w, "/b", "b", J15_COLS, 15, &dg), TM_OK);
    fsize_limit_once(512 * 1024, &prev);
    int first_fail = 0, rc;
    uint64_t i = 0;
    for (; i < 40 * SIM__H5_CHUNK_ROWS && !first_fail; i += 1000) {
        if ((rc = j15_rows(a, i, 1000, 1, &dg)) != 0 || (rc = j15_rows(b, i, 1000, 2, &dg)) != 0)
            first_fail = rc;
    }
    fsize_restore(&prev);
    CHECK_EQ_INT(first_fail, TM_ERR_IO);
    CHECK_DIAG_HAS(dg, strerror(EFBIG));
    CHECK_DIAG_HAS(dg, "H5Dwrite_chunk");
    printf("  expected failure: %s: %s\n", dg.where, dg.msg);
    CHECK_EQ_INT(j15_rows(a, i, 5, 1, &again), TM_ERR_IO);
    CHECK_STR(again.msg, dg.msg);
    CHECK_EQ_INT(j15_rows(b, i, 5, 2, &again), TM_ERR_IO);
    CHECK_EQ_INT(sim__h5t_close(b, &again), TM_ERR_IO);
    CHECK_EQ_INT(sim__h5w_commit(w, &again), TM_ERR_IO);
    CHECK_STR(again.msg, dg.msg);
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
    rm_tree(dir);
    free(dir);
}

/* ------------------------------------------------------------------------- */
/* Misuse                                                                     */

/* A fresh writer in dir for one misuse case. */
static sim__h5w *fresh(const char *dir)
{
    char path[1024];
    tm_diag dg;
    sim__h5w *w = NULL;
    join(path, sizeof path, dir, "m.h5");
    if (sim__h5w_open(&w, path, &dg) != 0)
        check_fail(__FILE__, __LINE__, "open %s: %s: %s", path, dg.where, dg.msg);
    return w;
}

/* The call failed with `want`; the failure is sticky (a valid call after it
 * fails the same way, with the same diag); commit fails; nothing is left. */
static void expect_sticky(sim__h5w *w, const char *dir, int got, int want, const tm_diag *dg,
                          const char *mention, int line)
{
    char first[256];
    tm_diag again = {0};
    if (got != want)
        check_fail(__FILE__, line, "got %s, want %s (%s: %s)", tm_status_name(got),
                   tm_status_name(want), dg->where, dg->msg);
    if (mention && !strstr(dg->msg, mention) && !strstr(dg->where, mention))
        check_fail(__FILE__, line, "diag \"%s: %s\" does not mention \"%s\"", dg->where, dg->msg,
                   mention);
    int rc = sim__h5w_scalar_f64(w, "/fine", 1.0, "1", "a valid call", &again);
    if (rc != want || strcmp(again.msg, dg->msg) != 0)
        check_fail(__FILE__, line, "after the failure: got %s \"%s\", want %s \"%s\"",
                   tm_status_name(rc), again.msg, tm_status_name(want), dg->msg);
    rc = sim__h5w_commit(w, &again);
    if (rc != want)
        check_fail(__FILE__, line, "commit: got %s, want %s", tm_status_name(rc),
                   tm_status_name(want));
    int n = count_entries(dir, first, sizeof first);
    if (n != 0)
        check_fail(__FILE__, line, "%d entries left (%s), want 0", n, first);
}

#define EXPECT_STICKY(w, dir, call, want, mention)                                                 \
    do {                                                                                           \
        tm_diag d_ = {0};                                                                          \
        tm_diag *dg = &d_;                                                                         \
        int r_ = (call);                                                                           \
        expect_sticky(w, dir, r_, want, dg, mention, __LINE__);                                    \
    } while (0)

static void test_misuse(void)
{
    char *dir = make_tmpdir();
    sim__h5w *w;
    sim__h5t *t;
    tm_diag d0 = {0};

    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/x", 1.0, NULL, "no units", dg), TM_ERR_INVAL,
                  "units");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_i64(w, "/x", 1, "1", NULL, dg), TM_ERR_INVAL,
                  "description");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "relative", 1.0, "1", "d", dg), TM_ERR_INVAL,
                  "absolute");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/a//b", 1.0, "1", "d", dg), TM_ERR_INVAL,
                  "/a//b");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/a/", 1.0, "1", "d", dg), TM_ERR_INVAL, NULL);
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/a/./b", 1.0, "1", "d", dg), TM_ERR_INVAL, NULL);
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/", 1.0, "1", "d", dg), TM_ERR_INVAL, NULL);
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_str(w, "/s", NULL, "d", dg), TM_ERR_INVAL, "NULL");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_array_f64(w, "/v", NULL, 3, "1", "d", dg), TM_ERR_INVAL, "NULL");

    /* the name is taken */
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a/x", 1.0, "1", "d", &d0), TM_OK);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/a/x", 2.0, "1", "d", dg), TM_ERR_INVAL,
                  "already exists");
    /* a dataset where a group must be */
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a", 1.0, "1", "d", &d0), TM_OK);
    EXPECT_STICKY(w, dir, sim__h5w_scalar_f64(w, "/a/b", 2.0, "1", "d", dg), TM_ERR_INVAL,
                  "not a group");
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5w_scalar_f64(w, "/a", 1.0, "1", "d", &d0), TM_OK);
    EXPECT_STICKY(w, dir, sim__h5w_group(w, "/a", dg), TM_ERR_INVAL, "not a group");
    /* an attribute on nothing */
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_attr_str(w, "/nope", "k", "v", dg), TM_ERR_INVAL,
                  "no such group");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_attr_f64(w, "/", "", 1.0, dg), TM_ERR_INVAL, "name");

    /* tables: bad column lists */
    static const sim__h5_col dup[2] = {{"a", SIM__H5_F64, "1", "d"}, {"a", SIM__H5_I64, "1", "d"}};
    static const sim__h5_col slash[1] = {{"a/b", SIM__H5_F64, "1", "d"}};
    static const sim__h5_col nounits[1] = {{"a", SIM__H5_F64, NULL, "d"}};
    static const sim__h5_col strcol[1] = {{"a", SIM__H5_STR, "1", "d"}};
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5t_create(&t, w, "/t", "d", dup, 2, dg), TM_ERR_INVAL, "twice");
    CHECK(t == NULL);
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5t_create(&t, w, "/t", "d", slash, 1, dg), TM_ERR_INVAL, "a/b");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5t_create(&t, w, "/t", "d", nounits, 1, dg), TM_ERR_INVAL, "units");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5t_create(&t, w, "/t", "d", strcol, 1, dg), TM_ERR_INVAL,
                  "not f64");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 0, dg), TM_ERR_INVAL,
                  "at least one column");

    /* tables: bad rows */
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    sim__h5t_put_i64(t, C_T, 1); /* t_s is f64 */
    sim__h5t_put_i64(t, C_ID, 1);
    sim__h5t_put_i32(t, C_GPUS, 1);
    sim__h5t_put_u8(t, C_FLAG, 1);
    EXPECT_STICKY(w, dir, sim__h5t_row_end(t, dg), TM_ERR_INVAL, "f64, put as i64");

    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    sim__h5t_put_f64(t, C_T, 1.0);
    sim__h5t_put_i64(t, C_ID, 1);
    sim__h5t_put_i32(t, C_GPUS, 1);
    EXPECT_STICKY(w, dir, sim__h5t_row_end(t, dg), TM_ERR_INVAL, "flag");

    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    sim__h5t_put_f64(t, C_T, 1.0);
    sim__h5t_put_f64(t, C_T, 2.0);
    EXPECT_STICKY(w, dir, sim__h5t_row_end(t, dg), TM_ERR_INVAL, "twice");

    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    sim__h5t_put_u8(t, 9, 1);
    EXPECT_STICKY(w, dir, sim__h5t_row_end(t, dg), TM_ERR_INVAL, "out of range");

    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    sim__h5t_put_f64(t, C_T, 1.0);
    EXPECT_STICKY(w, dir, sim__h5t_append(t, NULL, 0, dg), TM_ERR_INVAL, "middle of a row");

    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    EXPECT_STICKY(w, dir, sim__h5t_append(t, NULL, 3, dg), TM_ERR_INVAL, "no data");

    /* a row begun and never ended is not dropped silently */
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    sim__h5t_put_i32(t, C_GPUS, 1);
    EXPECT_STICKY(w, dir, sim__h5t_close(t, dg), TM_ERR_INVAL, "not ended");

    /* a bad row does not overrun the buffers after the failure */
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 1, &d0), TM_OK);
    sim__h5t_put_i64(t, 0, 1);
    for (int i = 0; i < 3 * SIM__H5_CHUNK_ROWS; i++) {
        sim__h5t_put_f64(t, 0, 1.0);
        sim__h5t_row_end(t, &d0);
    }
    EXPECT_STICKY(w, dir, sim__h5t_row_end(t, dg), TM_ERR_INVAL, "put as i64");

    /* the pipeline is chosen before any table, from the list */
    w = fresh(dir);
    CHECK_EQ_INT(sim__h5t_create(&t, w, "/t", "d", JOB_COLS, 4, &d0), TM_OK);
    EXPECT_STICKY(w, dir, sim__h5w_set_pipe(w, SIM__H5_PIPE_INLINE, dg), TM_ERR_INVAL,
                  "before the first table");
    w = fresh(dir);
    EXPECT_STICKY(w, dir, sim__h5w_set_pipe(w, (sim__h5_pipe)99, dg), TM_ERR_INVAL, "unknown");

    /* NULL handles */
    CHECK_EQ_INT(sim__h5w_commit(NULL, &d0), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__h5w_set_pipe(NULL, SIM__H5_PIPE_WORKER, &d0), TM_ERR_INVAL);
    sim__h5w_set_sync(NULL, 0);
    CHECK_EQ_INT(sim__h5t_row_end(NULL, &d0), TM_ERR_INVAL);
    CHECK_EQ_U64(sim__h5t_rows(NULL), 0);
    sim__h5t_put_f64(NULL, 0, 1.0);
    CHECK_EQ_INT(sim__h5w_open(NULL, "x", &d0), TM_ERR_INVAL);
    CHECK_EQ_INT(sim__h5w_open(&w, "", &d0), TM_ERR_CANTCREAT);
    CHECK(w == NULL);

    rm_tree(dir);
    free(dir);
}

static void test_reader_errors(void)
{
    char *dir = make_tmpdir();
    char path[1024];
    tm_diag dg = {0};
    sim__h5r *r = (sim__h5r *)&dg;
    join(path, sizeof path, dir, "none.h5");
    CHECK_EQ_INT(sim__h5r_open(&r, path, &dg), TM_ERR_NOTFOUND);
    CHECK(r == NULL);
    CHECK_DIAG_HAS(dg, "none.h5");
    join(path, sizeof path, dir, "text.h5");
    write_text(path, "not hdf5\n");
    CHECK_EQ_INT(sim__h5r_open(&r, path, &dg), TM_ERR_DATA);
    CHECK_DIAG_HAS(dg, "not an HDF5 file");
    CHECK_EQ_INT(sim__h5r_open(&r, dir, &dg), TM_ERR_NOTFOUND);
    CHECK_DIAG_HAS(dg, "is a folder");
    CHECK_EQ_INT(sim__h5r_open(&r, "", &dg), TM_ERR_NOTFOUND);
    CHECK_EQ_INT(sim__h5r_exists(NULL, "/"), 0);
    rm_tree(dir);
    free(dir);
}

/* ------------------------------------------------------------------------- */

static int mode_write(const char *path, int bad, sim__h5_pipe pipe)
{
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    int rc = sim__h5w_open(&w, path, &dg);
    if (!rc && (rc = sim__h5w_set_pipe(w, pipe, &dg)) != 0)
        sim__h5w_abort(w);
    else if (!rc && (rc = write_sample(w, bad, &dg)) != 0)
        sim__h5w_abort(w);
    else if (!rc)
        rc = sim__h5w_commit(w, &dg);
    if (rc) {
        fprintf(stderr, "%s: %s: %s\n", tm_strerror(rc), dg.where, dg.msg);
        return 1;
    }
    return check_finish("test_h5io --write");
}

/* FILE's folder is a tiny tmpfs: the run fails with ENOSPC and leaves nothing. */
static int mode_enospc(const char *path)
{
    char dir[1024], first[256];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    fill_and_fail(path, ENOSPC);
    CHECK_EQ_INT(count_entries(dir, first, sizeof first), 0);
    if (first[0])
        fprintf(stderr, "  left behind: %s\n", first);
    return check_finish("test_h5io --enospc");
}

static int mode_erofs(const char *path)
{
    tm_diag dg = {0};
    sim__h5w *w = NULL;
    CHECK_EQ_INT(sim__h5w_open(&w, path, &dg), TM_ERR_CANTCREAT);
    CHECK_DIAG_HAS(dg, strerror(EROFS));
    printf("  expected failure: %s: %s\n", dg.where, dg.msg);
    CHECK(w == NULL);
    CHECK(!file_exists(path));
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
    return check_finish("test_h5io --erofs");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return mode_write(argv[2], 0, SIM__H5_PIPE_WORKER);
    if (argc == 3 && strcmp(argv[1], "--write-filter") == 0)
        return mode_write(argv[2], 0, SIM__H5_PIPE_FILTER);
    if (argc == 3 && strcmp(argv[1], "--write-bad") == 0)
        return mode_write(argv[2], 1, SIM__H5_PIPE_WORKER);
    if (argc == 3 && strcmp(argv[1], "--enospc") == 0)
        return mode_enospc(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--erofs") == 0)
        return mode_erofs(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--write|--write-filter|--write-bad|--enospc|--erofs FILE]\n",
                argv[0]);
        return 2;
    }
    /* After each, every HDF5 handle must be closed, the files included: a
     * file whose close failed would still count. */
    static void (*const tests[])(void) = {
        test_roundtrip,        test_abort,           test_bad_dir,         test_commit_fails,
        test_misuse,           test_reader_errors,   test_file_size_limit, test_commit_flush_fails,
        test_pipes_same_bytes, test_many_tables,     test_abort_in_flight, test_worker_failure,
        test_full_with_worker, test_repeated_columns};
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        tests[i]();
        CHECK_EQ_INT(sim__h5_open_ids(), 0);
    }
    return check_finish("test_h5io");
}
