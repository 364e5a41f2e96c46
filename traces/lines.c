/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lines.c — lines of a text file that may be gzip-compressed.
 *
 * zlib's gzread reads plain files unchanged and gzip files decompressed, so
 * one reader serves .swf and .swf.gz alike. The buffer grows to the longest
 * line seen (up to TRACE_MAX_LINE) and is reused: constant memory in the
 * number of lines. A NUL byte inside a line is an error (a binary file read
 * by mistake), as is a corrupt gzip stream; both name path:line.
 *
 * Runs of empty lines are skipped in bulk (trace__lines_skip_empty): a few
 * MB of gzip can hold billions of them (deflate compresses a run of newlines
 * about 1000:1), and taking them one line at a time cost more than the
 * decompression itself. The skip reads the buffer a machine word at a time,
 * so such a file costs what inflating it costs (about 2 s per GB here).
 */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct trace_lines {
    gzFile gz;
    char *path;
    char *buf; /* the current line */
    size_t cap;
    char *in; /* raw read buffer */
    size_t in_len, in_pos;
    uint64_t line;
    int eof;
    long long size; /* of a regular file, for trailing bytes after a gzip stream; -1 else */
    int fd;         /* the file (zlib reads it; pread here leaves its offset alone) */
    uint64_t total; /* bytes decompressed */
};

#define IN_SIZE (256u * 1024u)

const char *trace_zlib_version(void)
{
    return zlibVersion();
}

/* Open on `fd` when fd >= 0 (taken over: closed with the reader, or here on
 * failure), else on `path`. */
static int lines_open(trace_lines **out, int fd, const char *path, tm_diag *diag)
{
    *out = NULL;
    trace_lines *tl = calloc(1, sizeof *tl);
    if (!tl) {
        if (fd >= 0)
            close(fd);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    tl->path = malloc(strlen(path) + 1);
    tl->in = malloc(IN_SIZE);
    tl->cap = 4096;
    tl->buf = malloc(tl->cap);
    if (!tl->path || !tl->in || !tl->buf) {
        trace_lines_close(tl);
        if (fd >= 0)
            close(fd);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    strcpy(tl->path, path);
    if (fd < 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        int e = errno; /* missing or not readable: 66 (not a usable input file); else 74 */
        trace_lines_close(tl);
        int st = e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM || e == ELOOP ||
                         e == ENAMETOOLONG
                     ? TM_ERR_NOTFOUND
                     : TM_ERR_IO;
        return tm_diag_set(diag, st, path, "cannot open: %s", strerror(e));
    }
    /* a folder opens, then fails at the first read (EISDIR, 74): it is not a
     * file to read at all */
    struct stat sb;
    int st_ok = fstat(fd, &sb) == 0;
    tl->fd = fd;
    tl->size = st_ok && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
    if (st_ok && S_ISDIR(sb.st_mode)) {
        trace_lines_close(tl);
        close(fd);
        return tm_diag_set(diag, TM_ERR_NOTFOUND, path, "is a folder, not a file");
    }
    errno = 0;
    tl->gz = gzdopen(fd, "rb");
    if (!tl->gz) {
        int e = errno;
        trace_lines_close(tl);
        close(fd);
        return tm_diag_set(diag, e ? TM_ERR_IO : TM_ERR_NOMEM, path, "cannot open: %s",
                           e ? strerror(e) : "out of memory");
    }
    gzbuffer(tl->gz, IN_SIZE);
    *out = tl;
    return TM_OK;
}

int trace_lines_open(trace_lines **out, const char *path, tm_diag *diag)
{
    return lines_open(out, -1, path, diag);
}

int trace__lines_open_fd(trace_lines **out, int fd, const char *path, tm_diag *diag)
{
    return lines_open(out, fd, path, diag);
}

/* Where the gzip members of a regular file end (its size when they fill
 * it), or -1 when that cannot be told (an I/O error: the read itself would
 * have said so). A file of one member, most of them, is settled by its last
 * 8 bytes: the member's trailer holds the size of what it decompresses to
 * (mod 2^32), which is then all that was read. Otherwise (several members,
 * as bgzip and pigz write, or bytes after the last) the members are walked
 * once more with inflate, to find where the last one ends. */
static long long gz_end(const trace_lines *tl)
{
    unsigned char tail[8];
    if (tl->size >= 18 && pread(tl->fd, tail, 8, (off_t)(tl->size - 8)) == 8) {
        uint32_t isize = (uint32_t)tail[4] | (uint32_t)tail[5] << 8 | (uint32_t)tail[6] << 16 |
                         (uint32_t)tail[7] << 24;
        if (isize == (uint32_t)tl->total)
            return tl->size;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return -1;
    unsigned char *in = malloc(65536), *out = malloc(65536);
    long long pos = 0, end = -1; /* file bytes handed to inflate; where the last member ended */
    int rc = Z_OK;
    while (in && out) {
        if (z.avail_in == 0) {
            ssize_t n = pread(tl->fd, in, 65536, (off_t)pos);
            if (n <= 0)
                break; /* the end (a member cut short is refill's Z_BUF_ERROR) */
            pos += n;
            z.next_in = in;
            z.avail_in = (uInt)n;
        }
        z.next_out = out;
        z.avail_out = 65536;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            end = pos - z.avail_in;
            /* another member follows only where its magic bytes do */
            unsigned char m[2];
            if (pread(tl->fd, m, 2, (off_t)end) != 2 || m[0] != 0x1f || m[1] != 0x8b)
                break;
            inflateReset(&z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            break; /* bytes that do not inflate: where the last member ended stands */
        }
    }
    inflateEnd(&z);
    free(in);
    free(out);
    return in && out ? end : -1;
}

static int refill(trace_lines *tl, tm_diag *diag)
{
    int n = gzread(tl->gz, tl->in, IN_SIZE);
    if (n < 0) {
        int err;
        int e = errno;
        const char *msg = gzerror(tl->gz, &err);
        char where[600];
        snprintf(where, sizeof where, "%s:%llu", tl->path, (unsigned long long)tl->line + 1);
        /* A read cut by a signal handler (a FIFO or a slow device waiting for
         * data): tarmac's handlers are those of SIGINT and SIGTERM, installed
         * without SA_RESTART so that a blocked read returns; that is a stop,
         * not an I/O error, whichever caller's flag would see it next. */
        if (err == Z_ERRNO && e == EINTR)
            return tm_diag_set(diag, TM_ERR_INTERRUPTED, where, "interrupted while reading");
        return tm_diag_set(diag, err == Z_ERRNO ? TM_ERR_IO : TM_ERR_TRACE, where, "read error: %s",
                           err == Z_ERRNO ? strerror(e) : msg);
    }
    tl->in_len = (size_t)n;
    tl->in_pos = 0;
    tl->total += (uint64_t)n;
    if (n == 0) {
        /* zlib ends a gzip stream cut short like a whole one, but records
         * Z_BUF_ERROR ("the input file ended in the middle of a gzip
         * stream"): a truncated .gz is an error, even when the cut falls on
         * a line boundary and every line read so far looks whole */
        int err;
        (void)gzerror(tl->gz, &err);
        if (err == Z_BUF_ERROR) {
            char where[600];
            snprintf(where, sizeof where, "%s:%llu", tl->path, (unsigned long long)tl->line + 1);
            return tm_diag_set(diag, TM_ERR_TRACE, where,
                               "the compressed file ends in the middle of its stream "
                               "(truncated: the rest of the trace is missing)");
        }
        /* zlib also ends quietly where a gzip stream is followed by bytes
         * that are not another gzip member (gzread ignores "trailing
         * garbage"), and drops them unseen: whatever was appended there was
         * never read */
        if (!gzdirect(tl->gz) && tl->size >= 0) {
            long long at = gz_end(tl);
            if (at >= 0 && at < tl->size) {
                char where[600];
                snprintf(where, sizeof where, "%s:%llu", tl->path,
                         (unsigned long long)tl->line + 1);
                return tm_diag_set(
                    diag, TM_ERR_TRACE, where,
                    "%lld bytes after the end of the compressed stream (byte %lld of "
                    "%lld) that are not a gzip member: a damaged or appended-to file",
                    tl->size - at, at, tl->size);
            }
        }
        tl->eof = 1;
    }
    return TM_OK;
}

int trace_lines_next(trace_lines *tl, char **line, size_t *len, tm_diag *diag)
{
    size_t n = 0;
    int any = 0;
    for (;;) {
        if (tl->in_pos == tl->in_len) {
            if (tl->eof)
                break;
            int rc = refill(tl, diag);
            if (rc != TM_OK)
                return rc;
            if (tl->eof)
                break;
        }
        any = 1;
        char *start = tl->in + tl->in_pos;
        size_t avail = tl->in_len - tl->in_pos;
        char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) : avail;
        if (n + take + 1 > tl->cap) {
            if (n + take + 1 > TRACE_MAX_LINE) {
                char where[600];
                snprintf(where, sizeof where, "%s:%llu", tl->path,
                         (unsigned long long)tl->line + 1);
                return tm_diag_set(diag, TM_ERR_TRACE, where, "line longer than %u bytes",
                                   TRACE_MAX_LINE);
            }
            size_t cap = tl->cap;
            while (cap < n + take + 1)
                cap *= 2;
            char *b = realloc(tl->buf, cap);
            if (!b)
                return tm_diag_set(diag, TM_ERR_NOMEM, tl->path, "out of memory");
            tl->buf = b;
            tl->cap = cap;
        }
        memcpy(tl->buf + n, start, take);
        n += take;
        tl->in_pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!any && n == 0)
        return TRACE_END;
    tl->line++;
    if (n > 0 && tl->buf[n - 1] == '\r')
        n--;
    tl->buf[n] = '\0';
    if (memchr(tl->buf, '\0', n)) {
        char where[600];
        snprintf(where, sizeof where, "%s:%llu", tl->path, (unsigned long long)tl->line);
        return tm_diag_set(diag, TM_ERR_TRACE, where, "NUL byte in a text line (a binary file?)");
    }
    *line = tl->buf;
    *len = n;
    return TM_OK;
}

/* The number of '\n' bytes from p on before anything else (at most end - p). */
static size_t newline_run(const char *p, const char *end)
{
    const char *q = p;
    const uint64_t nl = 0x0a0a0a0a0a0a0a0aull;
    while ((size_t)(end - q) >= 8) {
        uint64_t w;
        memcpy(&w, q, 8);
        if (w != nl)
            break;
        q += 8;
    }
    while (q < end && *q == '\n')
        q++;
    return (size_t)(q - p);
}

int trace__lines_skip_empty(trace_lines *tl, uint64_t *skipped, volatile int *stop, tm_diag *diag)
{
    uint64_t first = tl->line;
    int rc = TM_OK;
    for (;;) {
        if (tl->in_pos == tl->in_len) {
            if (tl->eof)
                break;
            /* a look at the stop flag per buffer: a run of billions of
             * empty lines stops when asked */
            if (stop && *stop) {
                char where[600];
                snprintf(where, sizeof where, "%s:%llu", tl->path, (unsigned long long)tl->line);
                rc = tm_diag_set(diag, TM_ERR_INTERRUPTED, where, "interrupted while reading");
                break;
            }
            if ((rc = refill(tl, diag)) != TM_OK || tl->eof)
                break;
        }
        const char *p = tl->in + tl->in_pos, *end = tl->in + tl->in_len;
        size_t run = newline_run(p, end);
        tl->line += run;
        tl->in_pos += run;
        p += run;
        if (p == end)
            continue;
        /* "\r\n" is an empty line too; a '\r' at the end of the buffer is
         * left to trace_lines_next, which reads across buffers */
        if (*p == '\r' && p + 1 < end && p[1] == '\n') {
            tl->line++;
            tl->in_pos += 2;
            continue;
        }
        break;
    }
    *skipped = tl->line - first;
    return rc;
}

uint64_t trace_lines_number(const trace_lines *tl)
{
    return tl->line;
}

const char *trace_lines_path(const trace_lines *tl)
{
    return tl->path;
}

void trace_lines_close(trace_lines *tl)
{
    if (!tl)
        return;
    if (tl->gz)
        gzclose(tl->gz);
    free(tl->path);
    free(tl->buf);
    free(tl->in);
    free(tl);
}
