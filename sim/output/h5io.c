/* SPDX-License-Identifier: Apache-2.0 */
/*
 * h5io.c — what every piece of the HDF5 I/O uses: error capture, path and
 * name checks, element types, and the library-wide queries of h5io_int.h.
 *
 * How it works. HDF5's automatic printing is off (sim__h5_init, before the
 * first call of every open). HDF5 clears its error stack at the start of
 * every API call, so each call is checked by H5CHK (h5io_priv.h), which walks
 * the stack at once (before any cleanup call) and keeps the innermost
 * message, the API function and any "errno = N" a file driver wrote. A
 * failure with an errno becomes TM_ERR_IO with strerror; others TM_ERR_HDF5.
 * The pieces: h5io_write.c (the writer), h5io_table.c (tables),
 * h5io_pool.c (the compression worker), h5io_read.c (the reader).
 */
#include "output/h5io_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* HDF5 error capture                                                         */

static herr_t err_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    h5err *x = data;
    if (n == 0)
        snprintf(x->inner, sizeof x->inner, "%s", e->desc ? e->desc : "");
    if (e->func_name)
        snprintf(x->api, sizeof x->api, "%s", e->func_name);
    if (!x->sys_errno && e->desc) {
        const char *p = strstr(e->desc, "errno = ");
        if (p)
            x->sys_errno = atoi(p + 8);
    }
    return 0;
}

/* Keep the first failure of an operation; call right after the failing call. */
void sim__h5_err_capture(h5err *x)
{
    if (x->set)
        return;
    x->set = 1;
    x->sys_errno = 0;
    x->api[0] = x->inner[0] = '\0';
    /* Upward: the innermost (most specific) entry first, the API call last. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, err_walk, x);
    if (!x->inner[0])
        snprintf(x->inner, sizeof x->inner, "unknown HDF5 failure");
}

/* Status and message of a captured failure. */
int sim__h5_err_format(const h5err *x, char *msg, size_t cap)
{
    if (x->sys_errno > 0) {
        snprintf(msg, cap, "%s: %s", x->api[0] ? x->api : "HDF5", strerror(x->sys_errno));
        return TM_ERR_IO;
    }
    snprintf(msg, cap, "%s: %s", x->api[0] ? x->api : "HDF5", x->inner);
    return TM_ERR_HDF5;
}

/* Before the first HDF5 call of the process (this is the only file that makes
 * any): no library shutdown at exit, where a file whose close failed would
 * crash HDF5 < 1.14.1 (we close every file ourselves); no error printing. */
void sim__h5_init(void)
{
    static int done;
    if (!done) {
        H5dont_atexit();
        done = 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void sim__h5_close_id(hid_t id)
{
    if (id < 0)
        return;
    switch (H5Iget_type(id)) {
    case H5I_FILE:
        H5Fclose(id);
        break;
    case H5I_GROUP:
        H5Gclose(id);
        break;
    case H5I_DATASET:
        H5Dclose(id);
        break;
    case H5I_DATATYPE:
        H5Tclose(id);
        break;
    case H5I_DATASPACE:
        H5Sclose(id);
        break;
    case H5I_ATTR:
        H5Aclose(id);
        break;
    case H5I_GENPROP_LST:
        H5Pclose(id);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------------- */
/* Paths, names, types                                                        */

/* An absolute HDF5 path without empty, "." or ".." components; "/" only if
 * allow_root. */
int sim__h5_path_ok(const char *p, int allow_root)
{
    if (!p || p[0] != '/')
        return 0;
    if (p[1] == '\0')
        return allow_root;
    const char *s = p + 1;
    for (;;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return 0;
        if (!e)
            return 1;
        s = e + 1;
    }
}

int sim__h5_name_ok(const char *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* 1 if every link on `path` exists (and the object it names), 0 if not, -1 on
 * an HDF5 failure. A prefix that is a dataset makes the rest "not there". */
int sim__h5_path_exists(hid_t file, const char *path, h5err *e)
{
    if (strcmp(path, "/") == 0)
        return 1;
    size_t len = strlen(path);
    char *buf = malloc(len + 1);
    int rc = -1;
    if (!buf) {
        *e = (h5err){.set = 1, .api = "malloc", .inner = "out of memory"};
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        htri_t ex = H5Lexists(file, buf, H5P_DEFAULT);
        buf[i] = c;
        if (ex < 0) {
            /* Fails when a prefix is not a group: then the path is not there. */
            rc = 0;
            goto out;
        }
        if (ex == 0) {
            rc = 0;
            goto out;
        }
    }
    htri_t ok = H5Oexists_by_name(file, path, H5P_DEFAULT);
    if (ok < 0) {
        sim__h5_err_capture(e);
        goto out;
    }
    rc = ok > 0;
out:
    free(buf);
    return rc;
}

size_t sim__h5_type_size(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
    case SIM__H5_I64:
        return 8;
    case SIM__H5_I32:
        return 4;
    case SIM__H5_U8:
        return 1;
    default:
        return 0;
    }
}

const char *sim__h5_type_name(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
        return "f64";
    case SIM__H5_I64:
        return "i64";
    case SIM__H5_I32:
        return "i32";
    case SIM__H5_U8:
        return "u8";
    case SIM__H5_STR:
        return "string";
    default:
        return "other";
    }
}

hid_t sim__h5_type_mem(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
        return H5T_NATIVE_DOUBLE;
    case SIM__H5_I64:
        return H5T_NATIVE_INT64;
    case SIM__H5_I32:
        return H5T_NATIVE_INT32;
    default:
        return H5T_NATIVE_UINT8;
    }
}

hid_t sim__h5_type_file(sim__h5_type t)
{
    switch (t) {
    case SIM__H5_F64:
        return H5T_IEEE_F64LE;
    case SIM__H5_I64:
        return H5T_STD_I64LE;
    case SIM__H5_I32:
        return H5T_STD_I32LE;
    default:
        return H5T_STD_U8LE;
    }
}

/* ------------------------------------------------------------------------- */
/* Checking                                                                   */

long sim__h5_open_ids(void)
{
    sim__h5_init();
    return (long)H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
}

void sim__h5_version(char *buf, size_t n)
{
    unsigned maj = 0, min = 0, rel = 0;
    if (H5get_libversion(&maj, &min, &rel) < 0)
        snprintf(buf, n, "unknown");
    else
        snprintf(buf, n, "%u.%u.%u", maj, min, rel);
}
