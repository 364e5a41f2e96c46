/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sdims.c — the writer's string lists and matrix dimensions
 * (sim/output/h5io_dims.c: sim__h5w_names, sim__h5w_array_str,
 * sim__h5w_dim_axes), which the studies' files use (docs/hdf5-io.md,
 * "netCDF and xarray"; tests/h5cf_check.py opens the real files in xarray).
 *
 * A good file: a string coordinate, a string array along it, a matrix
 * attached on both axes; committed, read back: the reader leaves the scales
 * out of a group's members and keeps the rest. Misuse: a wrong number of
 * axes, an axis longer than its scale, an axis named after a dataset that is
 * not a scale, a bad dimension name, a NULL string; each fails (at the call
 * or at commit) with TM_ERR_INVAL and leaves no file.
 */
#include "output/h5io_int.h"

#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[512];

/* Files left in dir (not . and ..). */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static const char *const POOLS[2] = {"h100", "a pool\nwith a newline"};
static const double M[6] = {1, 2, 3, 4, 5, 6}; /* 3 x 2 */

/* The common part: /g/pool_name (2), /g/spec along it, /g/cand (3 rows, no
 * values), /g/m[3, 2]. */
static int write_base(sim__h5w *w, tm_diag *d)
{
    static const char *const spec[2] = {"x", "y"};
    static const char *const none[] = {NULL};
    static const char *const along[] = {"spec", NULL};
    int rc;
    if ((rc = sim__h5w_names(w, "/g/pool_name", POOLS, 2, "the pools", d)) ||
        (rc = sim__h5w_array_str(w, "/g/spec", spec, 2, "a string per pool", d)) ||
        (rc = sim__h5w_dim(w, "/g", "pool_name", 2, NULL, along, "the pools", d)) ||
        (rc = sim__h5w_dim(w, "/g", "cand", 3, NULL, none, "candidates (no values)", d)) ||
        (rc = sim__h5w_matrix_f64(w, "/g/m", M, 3, 2, "1", "a matrix", d)))
        return rc;
    return TM_OK;
}

static void test_good(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/good.h5", dir);
    tm_diag d;
    tm_diag_clear(&d);
    sim__h5w *w;
    CHECK_EQ_INT(sim__h5w_open(&w, path, &d), TM_OK);
    CHECK_EQ_INT(write_base(w, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_dim_axes(w, "/g/m", (const char *const[]){"cand", "pool_name"}, 2, &d),
                 TM_OK);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_OK);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);

    sim__h5r *r;
    CHECK_EQ_INT(sim__h5r_open(&r, path, &d), TM_OK);
    if (!r)
        return;
    char **names = NULL;
    size_t n = 0;
    CHECK_EQ_INT(sim__h5r_list(r, "/g", SIM__H5_ORDER_CREATION, &names, &n, &d), TM_OK);
    CHECK_EQ_INT(n, 2); /* spec and m; the scales pool_name and cand are left out */
    if (n == 2) {
        CHECK_STR(names[0], "spec");
        CHECK_STR(names[1], "m");
    }
    free(names);
    sim__h5_info info;
    CHECK_EQ_INT(sim__h5r_info(r, "/g/pool_name", &info, &d), TM_OK);
    CHECK_EQ_INT(info.type, SIM__H5_STR);
    CHECK_EQ_INT(info.len, 2);
    CHECK_EQ_INT(sim__h5r_info(r, "/g/cand", &info, &d), TM_OK);
    CHECK_EQ_INT(info.len, 3);
    double *v = NULL;
    size_t rows = 0, cols = 0;
    CHECK_EQ_INT(sim__h5r_matrix_f64(r, "/g/m", &v, &rows, &cols, &d), TM_OK);
    CHECK_EQ_INT(rows, 3);
    CHECK_EQ_INT(cols, 2);
    CHECK(v && !memcmp(v, M, sizeof M));
    free(v);
    sim__h5r_close(r);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
    unlink(path);
}

/* A file whose commit must fail with TM_ERR_INVAL naming `where`. */
static void bad_axes(const char *const *axes, size_t rank, const char *where, int line)
{
    char path[600];
    snprintf(path, sizeof path, "%s/bad.h5", dir);
    tm_diag d;
    tm_diag_clear(&d);
    sim__h5w *w;
    if (sim__h5w_open(&w, path, &d) != TM_OK) {
        check_fail(__FILE__, line, "open: %s", d.msg);
        return;
    }
    int rc = write_base(w, &d);
    if (rc == TM_OK)
        rc = sim__h5w_dim_axes(w, "/g/m", axes, rank, &d);
    if (rc == TM_OK)
        rc = sim__h5w_commit(w, &d);
    else
        sim__h5w_abort(w);
    if (rc != TM_ERR_INVAL)
        check_fail(__FILE__, line, "got status %d (%s), want TM_ERR_INVAL", rc, d.msg);
    if (!strstr(d.where, where) && !strstr(d.msg, where))
        check_fail(__FILE__, line, "'%s: %s' does not name %s", d.where, d.msg, where);
    if (entries() != 0)
        check_fail(__FILE__, line, "a file was left behind");
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
}

static void test_misuse(void)
{
    /* three names for a matrix: at commit */
    bad_axes((const char *const[]){"cand", "pool_name", "cand"}, 3, "/g/m", __LINE__);
    /* the axes swapped: 3 rows against the 2 pool names */
    bad_axes((const char *const[]){"pool_name", "cand"}, 2, "pool_name", __LINE__);
    /* an axis named after a dataset that is not a scale */
    bad_axes((const char *const[]){"cand", "spec"}, 2, "spec", __LINE__);
    /* an axis named after nothing */
    bad_axes((const char *const[]){"cand", "nothing"}, 2, "nothing", __LINE__);
    /* a bad name: at the call */
    bad_axes((const char *const[]){"cand", "a/b"}, 2, "a/b", __LINE__);
    bad_axes((const char *const[]){"cand", NULL}, 2, "(null)", __LINE__);

    /* a NULL string in a list */
    char path[600];
    snprintf(path, sizeof path, "%s/null.h5", dir);
    tm_diag d;
    tm_diag_clear(&d);
    sim__h5w *w;
    CHECK_EQ_INT(sim__h5w_open(&w, path, &d), TM_OK);
    const char *with_null[2] = {"a", NULL};
    CHECK_EQ_INT(sim__h5w_names(w, "/x_name", with_null, 2, "names", &d), TM_ERR_INVAL);
    CHECK(strstr(d.msg, "string 1 is NULL") != NULL);
    CHECK_EQ_INT(sim__h5w_commit(w, &d), TM_ERR_INVAL); /* sticky */
    CHECK_EQ_INT(entries(), 0);
    /* no description */
    CHECK_EQ_INT(sim__h5w_open(&w, path, &d), TM_OK);
    CHECK_EQ_INT(sim__h5w_array_str(w, "/x", POOLS, 2, NULL, &d), TM_ERR_INVAL);
    sim__h5w_abort(w);
    CHECK_EQ_INT(entries(), 0);
    CHECK_EQ_INT(sim__h5_open_ids(), 0);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/tarmac-sdims.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    test_good();
    test_misuse();
    rmdir(dir);
    return check_finish("test_sdims");
}
