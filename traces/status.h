/* SPDX-License-Identifier: Apache-2.0 */
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
 * Exit codes follow sysexits.h, and a status is chosen by who is at fault:
 *   64 EX_USAGE     the command line;
 *   65 EX_DATAERR   the content of an input (a scenario, a trace row, a
 *                   snapshot, an HDF5 file of the wrong shape), a limit hit;
 *   66 EX_NOINPUT   an input file, or an object a command needs in it, missing;
 *   69 EX_UNAVAILABLE  a program tarmac runs (gnuplot) missing or failing;
 *   71 EX_OSERR     the system refused a resource: memory, a process, a pipe
 *                   (not 70: running out of memory is no bug of tarmac's, and a
 *                   smaller input or a larger machine is the remedy);
 *   73 EX_CANTCREAT an output file (or its temporary, or its folder) cannot be
 *                   created, opened or renamed into place;
 *   74 EX_IOERR     a read or write failed part-way (ENOSPC, EFBIG, EIO);
 *   70 EX_SOFTWARE  a bug only: an invariant broken, an API misused
 *                   (TM_ERR_INVAL: a caller broke a function's contract; a
 *                   value from the user is checked before and gets a 65).
 * 130 is interrupted (SIGINT or SIGTERM), as a shell reports it.
 *
 * It lives in traces/, the lower of the two layers that use it, and its names
 * carry the project-wide prefix tm_ because they belong to neither layer alone.
 */
#ifndef TARMAC_STATUS_H
#define TARMAC_STATUS_H

#include <stddef.h>

/* name, value, process exit code, message.
 * TM_ERR_HDF5 is a failure inside HDF5 without an errno while writing (74);
 * the reader reports a file it cannot make sense of as TM_ERR_DATA (65).
 * TM_ERR_GSL is a GSL routine failing on values tarmac computed (70); a
 * distribution parameter from the user that GSL could not take is refused
 * before it reaches GSL, as TM_ERR_SCENARIO (65).
 * TM_ERR_DATA is bad content in an input file that is not a scenario, trace or
 * snapshot: an HDF5 file that is not one, or lacks the right types or shapes. */
#define TM_ERRORS(X)                                                                               \
    X(TM_OK, 0, 0, "ok")                                                                           \
    X(TM_ERR_NOMEM, -1, 71, "out of memory")                                                       \
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
    X(TM_ERR_UNAVAILABLE, -16, 69, "a program tarmac runs is missing or failed")                   \
    X(TM_ERR_CANTCREAT, -17, 73, "cannot create the output file")                                  \
    X(TM_ERR_DATA, -18, 65, "invalid input file")                                                  \
    X(TM_ERR_SYSTEM, -19, 71, "system error")

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
