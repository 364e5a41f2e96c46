/*
 * status.h — status codes and diagnostics shared by traces/ and sim/.
 *
 * Every function of traces/ and sim/ that can fail returns an int: 0 on
 * success, a negative TM_ERR_* otherwise. One X-macro table gives the enum,
 * the name and the message. Detail goes into a caller-owned tm_diag: `where`
 * names the file and line or the JSON path, `msg` says what was expected and
 * what was found. The CLI prints "where: msg" and exits with the status's
 * exit code (docs/cli.md lists them).
 *
 * It lives in traces/, the lower of the two layers that use it, and its names
 * carry the project-wide prefix tm_ because they belong to neither layer alone.
 */
#ifndef TARMAC_STATUS_H
#define TARMAC_STATUS_H

#include <stddef.h>

/* name, value, process exit code, message */
#define TM_ERRORS(X)                                                                               \
    X(TM_OK, 0, 0, "ok")                                                                           \
    X(TM_ERR_NOMEM, -1, 70, "out of memory")                                                       \
    X(TM_ERR_INVAL, -2, 70, "invalid argument")                                                    \
    X(TM_ERR_USAGE, -3, 64, "bad command line")                                                    \
    X(TM_ERR_IO, -4, 74, "input/output error")                                                     \
    X(TM_ERR_NOTFOUND, -5, 66, "file not found")                                                   \
    X(TM_ERR_JSON, -6, 65, "malformed JSON")                                                       \
    X(TM_ERR_SCENARIO, -7, 65, "invalid scenario")                                                 \
    X(TM_ERR_TRACE, -8, 65, "invalid trace")                                                       \
    X(TM_ERR_POLICY, -9, 65, "policy error")                                                       \
    X(TM_ERR_HDF5, -10, 74, "HDF5 error")                                                          \
    X(TM_ERR_GSL, -11, 70, "GSL error")                                                            \
    X(TM_ERR_STALE, -12, 70, "stale event handle")                                                 \
    X(TM_ERR_INTERRUPTED, -13, 130, "interrupted")                                                 \
    X(TM_ERR_LIMIT, -14, 65, "a limit was exceeded")                                               \
    X(TM_ERR_INTERNAL, -15, 70, "internal error")                                                  \
    X(TM_ERR_UNAVAILABLE, -16, 69, "a program tarmac runs is not installed")

typedef enum tm_status {
#define TM_ENUM_(name, value, exit_code, msg) name = value,
    TM_ERRORS(TM_ENUM_)
#undef TM_ENUM_
} tm_status;

/* The message, enum name and process exit code of a status; never NULL. */
const char *tm_strerror(int status);
const char *tm_status_name(int status);
int tm_status_exit_code(int status);

/* Caller-owned detail of a failure. */
typedef struct tm_diag {
    char where[512]; /* "scenarios/x.json: fleet.pools[2].gpus" or "trace.swf:1234" */
    char msg[512];   /* "expected an integer >= 1, got -2" */
} tm_diag;

/* Clear a diagnostic (NULL is allowed). */
void tm_diag_clear(tm_diag *d);
/* Fill a diagnostic (NULL is allowed) and return `status`, so that a failure
 * reads `return tm_diag_set(d, TM_ERR_TRACE, path, "line %d: ...", n);` */
int tm_diag_set(tm_diag *d, int status, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
