/* SPDX-License-Identifier: Apache-2.0 */
/*
 * status.c — messages, names and exit codes of the shared status table, and
 * the diagnostic helpers.
 */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *tm_strerror(int status)
{
    switch (status) {
#define TM_MSG_(name, value, exit_code, msg)                                                       \
    case value:                                                                                    \
        return msg;
        TM_ERRORS(TM_MSG_)
#undef TM_MSG_
    default:
        return "unknown error";
    }
}

const char *tm_status_name(int status)
{
    switch (status) {
#define TM_NAME_(name, value, exit_code, msg)                                                      \
    case value:                                                                                    \
        return #name;
        TM_ERRORS(TM_NAME_)
#undef TM_NAME_
    default:
        return "TM_UNKNOWN";
    }
}

int tm_status_exit_code(int status)
{
    switch (status) {
#define TM_EXIT_(name, value, exit_code, msg)                                                      \
    case value:                                                                                    \
        return exit_code;
        TM_ERRORS(TM_EXIT_)
#undef TM_EXIT_
    default:
        return 70;
    }
}

void tm_diag_clear(tm_diag *d)
{
    if (d) {
        d->where[0] = '\0';
        d->msg[0] = '\0';
    }
}

int tm_diag_set(tm_diag *d, int status, const char *where, const char *fmt, ...)
{
    if (!d)
        return status;
    snprintf(d->where, sizeof d->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return status;
}
