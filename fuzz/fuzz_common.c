/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_common.c — temporary files for the fuzz targets (fuzz_common.h).
 */
#include "fuzz_common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char paths[4][512];
static int n_paths;

static void remove_paths(void)
{
    for (int i = 0; i < n_paths; i++)
        unlink(paths[i]);
}

static const char *make_path(const char *suffix)
{
    if (n_paths == 4)
        abort();
    const char *dir = getenv("TMPDIR");
    snprintf(paths[n_paths], sizeof paths[n_paths], "%s/tarmac-fuzz.%ld.%d%s",
             dir && *dir ? dir : "/tmp", (long)getpid(), n_paths, suffix);
    if (n_paths == 0) {
        atexit(remove_paths);
        /* an input that names /dev/stdin must not wait for a terminal */
        if (!freopen("/dev/null", "r", stdin))
            abort();
    }
    return paths[n_paths++];
}

const char *fuzz_tmp_path(const char *suffix)
{
    static const char *p;
    if (!p)
        p = make_path(suffix);
    return p;
}

void fuzz_tmp_write(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    close(fd);
}

const char *fuzz_tmp_fixed(const char *suffix, const char *text)
{
    const char *p = make_path(suffix);
    fuzz_tmp_write(p, (const uint8_t *)text, strlen(text));
    return p;
}
