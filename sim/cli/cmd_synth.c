/*
 * cmd_synth.c — `tarmac synth`: a scenario's synthesized workload written as
 * a tarmac trace (traces/FORMAT.md), so that it can be inspected, edited and
 * replayed with `tarmac replay --format tarmac`.
 *
 * Each class is synthesized with the random streams the engine uses for it
 * (docs/rng.md), and the classes are merged in submit order, ties by class
 * index: the jobs are the ones `tarmac run` would see for the same seed and
 * replication.
 */
#include "cli/cli_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char synth_help[] =
    "Usage: tarmac synth [SCENARIO] -o FILE [--seed N] [--replication R] [--quiet]\n"
    "\n"
    "Synthesize the workload of SCENARIO (the embedded default if none) up to its\n"
    "horizon and write it as a tarmac trace (CSV, traces/FORMAT.md; gzip when FILE\n"
    "ends in .gz). `tarmac replay FILE --format tarmac --fleet SCENARIO` replays it.\n"
    "\n"
    "  -o, --output FILE    the trace to write (required)\n"
    "  --seed N             override the scenario's seed\n"
    "  --replication R      use the random streams of replication R\n"
    "  -q, --quiet          print nothing but errors\n";

typedef struct cls_src {
    trace_source src;
    trace_job next;
    int has;
} cls_src;

static int cmd_synth(int argc, char **argv)
{
    const char *path = NULL, *out = NULL;
    uint64_t seed = 0, rep = 0;
    int have_seed = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(synth_help, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i >= argc)
                return sim__cli_usage("synth", "%s needs a file name", a);
            out = argv[i];
        } else if (strcmp(a, "--seed") == 0) {
            if (++i >= argc || sim__cli_parse_u64(argv[i], (1ull << 53) - 1, &seed))
                return sim__cli_usage("synth", "%s needs an integer in [0, 2^53)", a);
            have_seed = 1;
        } else if (strcmp(a, "--replication") == 0) {
            if (++i >= argc || sim__cli_parse_u64(argv[i], UINT32_MAX, &rep))
                return sim__cli_usage("synth", "%s needs an integer in [0, 2^32)", a);
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return sim__cli_usage("synth", "unknown option '%s'", a);
        } else if (!path) {
            path = a;
        } else {
            return sim__cli_usage("synth", "more than one scenario given ('%s')", a);
        }
    }
    if (!out)
        return sim__cli_usage("synth", "an output file is required (-o FILE)");
    tm_diag d;
    tm_diag_clear(&d);
    sim_scenario sc;
    int rc = sim__cli_load_scenario(&sc, path, &d);
    if (rc != TM_OK)
        return sim__cli_error(rc, &d);
    if (have_seed)
        sc.seed = seed;
    cls_src *cs = calloc(sc.n_classes, sizeof *cs);
    trace_tarmac_writer *w = NULL;
    uint64_t n = 0;
    if (!cs) {
        rc = tm_diag_set(&d, TM_ERR_NOMEM, "synth", "out of memory");
        goto out;
    }
    for (size_t c = 0; c < sc.n_classes; c++) {
        if ((rc = sim_class_source_open(&sc, c, (uint32_t)rep, &cs[c].src, &d)))
            goto out;
        rc = cs[c].src.next(cs[c].src.ud, &cs[c].next, &d);
        if (rc != TM_OK && rc != TRACE_END)
            goto out;
        cs[c].has = rc == TM_OK;
    }
    sim__cli_install_signals();
    if ((rc = trace_tarmac_writer_open(&w, out, &d)))
        goto out;
    /* merge: O(classes) per job, classes are few */
    for (;;) {
        size_t best = sc.n_classes;
        for (size_t c = 0; c < sc.n_classes; c++)
            if (cs[c].has &&
                (best == sc.n_classes || cs[c].next.submit_us < cs[best].next.submit_us))
                best = c;
        if (best == sc.n_classes)
            break;
        if ((rc = trace_tarmac_write(w, &cs[best].next, &d)))
            goto out;
        if (sim__cli_stop) {
            rc = tm_diag_set(&d, TM_ERR_INTERRUPTED, "synth", "interrupted; %s not written", out);
            goto out;
        }
        n++;
        rc = cs[best].src.next(cs[best].src.ud, &cs[best].next, &d);
        if (rc != TM_OK && rc != TRACE_END)
            goto out;
        cs[best].has = rc == TM_OK;
    }
    rc = trace_tarmac_writer_close(w, &d);
    w = NULL;
    if (rc == TM_OK && !quiet)
        printf("wrote %llu jobs of %zu classes to %s (scenario \"%s\", seed %llu, replication "
               "%llu)\n",
               (unsigned long long)n, sc.n_classes, out, sc.name, (unsigned long long)sc.seed,
               (unsigned long long)rep);
out:
    trace_tarmac_writer_abort(w); /* a failure: the temporary goes, `out` is untouched */
    for (size_t c = 0; cs && c < sc.n_classes; c++) {
        if (cs[c].src.close)
            cs[c].src.close(cs[c].src.ud);
    }
    free(cs);
    sim_scenario_fini(&sc);
    return rc == TM_OK ? 0 : sim__cli_error(rc, &d);
}

const sim__cli_command sim__cmd_synth = {
    "synth",
    cmd_synth,
    "synthesize a scenario's workload into a tarmac trace (CSV)",
    synth_help,
};
