/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_out.h — the JSON output helper: every --json of the CLI (and the
 * place protocol) is built as a tree here and printed by cJSON (internal to
 * sim/; cJSON itself stays in config/, docs/architecture.md).
 *
 * A document (sim__jout) owns a tree of objects and arrays (sim__jnode). The
 * add functions never fail in the caller's eyes: an allocation that fails is
 * noted in the document and the member is dropped, and every later add to a
 * NULL parent (an object that could not be made) is a no-op; sim__jout_print
 * then refuses to print a document that lost a member and returns
 * TM_ERR_NOMEM, so a run out of memory never prints a JSON that silently
 * lacks figures. A member's key is NULL when the parent is an array.
 *
 * Numbers are printed by us, not by cJSON (as raw members): cJSON 1.7.15
 * (Debian's) prints %1.15g and falls back to %1.17g only when the 15 digits
 * do not read back within a relative DBL_EPSILON, so it loses the last bit:
 * 0.1 + 0.2 comes out "0.3", 2^53 comes out "9.00719925474099e+15" (which
 * reads back as 9007199254740990). We print the fewest of 15, 16 or 17
 * significant digits that read back to the very same double
 * ("0.30000000000000004"), and null for NaN and the infinities (JSON has
 * neither; cJSON 1.7.15 prints null too, but we do not depend on it).
 * Integers (counts, seeds, ids) are printed exactly as integers, past 2^53
 * too.
 *
 * Strings: cJSON escapes quotes, backslashes and control characters; bytes
 * that are not valid UTF-8 (a file name from the command line can hold
 * anything) are replaced by U+FFFD here, so the output is always valid JSON.
 */
#ifndef TARMAC_JSON_OUT_H
#define TARMAC_JSON_OUT_H

#include "base/base.h"

#include <stdint.h>
#include <stdio.h>

typedef struct sim__jout sim__jout;
typedef struct sim__jnode sim__jnode;

/* A new document whose root is an object (*root; NULL with the document when
 * out of memory). Free with sim__jout_free (NULL: no-op). */
sim__jout *sim__jout_new(sim__jnode **root);
void sim__jout_free(sim__jout *j);

/* An object or an array as a member of parent (NULL when out of memory, or
 * when parent is NULL). */
sim__jnode *sim__jout_object(sim__jout *j, sim__jnode *parent, const char *key);
sim__jnode *sim__jout_array(sim__jout *j, sim__jnode *parent, const char *key);

/* Scalars. str: NULL prints null. num: null for NaN and the infinities. */
void sim__jout_str(sim__jout *j, sim__jnode *parent, const char *key, const char *s);
void sim__jout_num(sim__jout *j, sim__jnode *parent, const char *key, double v);
void sim__jout_int(sim__jout *j, sim__jnode *parent, const char *key, int64_t v);
void sim__jout_uint(sim__jout *j, sim__jnode *parent, const char *key, uint64_t v);
void sim__jout_bool(sim__jout *j, sim__jnode *parent, const char *key, int v);
void sim__jout_null(sim__jout *j, sim__jnode *parent, const char *key);
/* A JSON text (one value, as cJSON accepts it) parsed and added as a member;
 * text that does not parse is an internal error noted like out of memory. */
void sim__jout_parsed(sim__jout *j, sim__jnode *parent, const char *key, const char *text);

/* The layouts of sim__jout_print. */
enum {
    SIM__JOUT_PRETTY = 0, /* cJSON_Print: one member per line, tab-indented */
    SIM__JOUT_LINES = 1,  /* the place protocol: compact, one top-level member per line and
                             one element per line in the top-level arrays */
};

/* Print the document and a newline on f. TM_OK; TM_ERR_NOMEM when a member
 * was lost or printing ran out of memory (nothing is printed then);
 * TM_ERR_IO when f reports a write error. diag gets "json" and the message. */
int sim__jout_print(sim__jout *j, FILE *f, int layout, tm_diag *diag);

/* The shortest of %.15g, %.16g and %.17g that reads back to v (v finite). */
void sim__jout_fmt_double(char *buf, size_t n, double v);

#endif
