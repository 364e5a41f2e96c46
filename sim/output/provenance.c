/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provenance.c — the /provenance group of every tarmac HDF5 file
 * (provenance_int.h).
 *
 * How it works. A fixed sequence of h5io scalar writes, in the order a
 * reader listing the group by creation order sees them: the scenario (when
 * there is one), the run's replication, tarmac's version, the run's policy,
 * the command line that wrote the file (recorded once by the CLI), then one
 * string per library from a table. The library versions come from
 * the rooms that own each library (model: GSL, config: cJSON, traces: zlib,
 * h5io: HDF5), so no room reaches for another's library to ask.
 */
#include "output/provenance_int.h"

#include "trace.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The recorded command line: process-wide by nature (one process, one
 * command), set once before any file is written. */
static char *command_line;

/* A byte that a POSIX shell reads literally outside quotes. */
static int shell_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_./:=@%+,-", c));
}

void sim__provenance_command_line(int argc, char *const *argv)
{
    free(command_line);
    command_line = NULL;
    if (argc < 1 || !argv || !argv[0])
        return;
    /* Worst case per argument: every byte a quote ('\'' is 4 bytes), plus two
     * quotes and a space. */
    size_t cap = 1;
    for (int i = 0; i < argc; i++)
        cap += 4 * strlen(argv[i]) + 3;
    char *s = malloc(cap), *o = s;
    if (!s)
        return;
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    for (int i = 0; i < argc; i++) {
        const char *a = i ? argv[i] : base;
        size_t n = strlen(a), k = 0;
        while (k < n && shell_plain((unsigned char)a[k]))
            k++;
        if (i)
            *o++ = ' ';
        if (n && k == n) {
            memcpy(o, a, n);
            o += n;
            continue;
        }
        *o++ = '\'';
        for (const char *c = a; *c; c++)
            if (*c == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else
                *o++ = *c;
        *o++ = '\'';
    }
    *o = '\0';
    command_line = s;
}

static int write_scenario(sim__h5w *w, const sim_scenario *sc, tm_diag *diag)
{
    char *resolved = sim_scenario_resolved_json(sc);
    if (!resolved)
        return tm_diag_set(diag, TM_ERR_NOMEM, "provenance", "out of memory");
    int rc =
        sim__h5w_scalar_str(w, "/provenance/scenario_given", sc->json_given ? sc->json_given : "",
                            "the scenario text as given", diag);
    if (rc == TM_OK)
        rc = sim__h5w_scalar_str(w, "/provenance/scenario_resolved", resolved,
                                 "the scenario with every default filled in (JSON)", diag);
    free(resolved);
    if (rc ||
        (rc = sim__h5w_scalar_str(w, "/provenance/scenario_source", sc->source,
                                  "file the scenario came from", diag)) ||
        (rc = sim__h5w_scalar_str(w, "/provenance/scenario_name", sc->name, "the scenario's name",
                                  diag)) ||
        (rc = sim__h5w_scalar_i64(w, "/provenance/seed", (int64_t)sc->seed, "1",
                                  "scenario seed (random streams: docs/rng.md)", diag)))
        return rc;
    return TM_OK;
}

int sim__provenance_write(sim__h5w *w, const sim_scenario *sc, const sim__provenance_extra *x,
                          tm_diag *diag)
{
    int run = x && x->run && sc;
    int rc;
    if ((sc && (rc = write_scenario(w, sc, diag))) ||
        (run &&
         (rc = sim__h5w_scalar_i64(w, "/provenance/replication", (int64_t)x->replication, "1",
                                   "replication index (selects independent streams)", diag))) ||
        (rc = sim__h5w_scalar_str(w, "/provenance/tarmac_version", TARMAC_VERSION,
                                  "version of tarmac that wrote the file", diag)) ||
        (run && (rc = sim__h5w_scalar_str(w, "/provenance/policy", sc->policy,
                                          "placement-core specification", diag))) ||
        (command_line &&
         (rc = sim__h5w_scalar_str(w, "/provenance/command_line", command_line,
                                   "the command that wrote the file (shell-quoted)", diag))))
        return rc;
    char hdf5[64];
    sim__h5_version(hdf5, sizeof hdf5);
    const struct {
        const char *name, *version;
    } libs[] = {{"gsl", sim_lib_version_gsl()},
                {"hdf5", hdf5},
                {"cjson", sim_lib_version_cjson()},
                {"zlib", trace_zlib_version()}};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        char p[96];
        snprintf(p, sizeof p, "/provenance/libraries/%s", libs[i].name);
        if ((rc = sim__h5w_scalar_str(w, p, libs[i].version, "library version", diag)))
            return rc;
    }
    return TM_OK;
}
