/* SPDX-License-Identifier: Apache-2.0 */
/*
 * label.c — the one rule that makes a label read from a trace safe to use as
 * a name (docs/traces.md, "Labels").
 *
 * A trace's labels (Gavel's job types, node names and GPU models, ...) come
 * from files anyone can write. Where such a label becomes a name in the
 * model it ends up as an HDF5 group, part of a file name, a label in tables
 * and figures, and text on a terminal; the scenario loader refuses names
 * that break its rule (scenarios/SCHEMA.md, "names"). A trace is not refused
 * for its labels: each is rewritten, byte by byte, into a name that follows
 * that rule:
 *
 *   - a control character (bytes 0x00-0x1f and 0x7f, and the C1 controls
 *     U+0080-U+009F, which some terminals obey) or a '/' becomes '_';
 *   - a byte that is not part of valid UTF-8 (a stray continuation byte, a
 *     truncated, overlong or surrogate sequence, a code point past
 *     U+10FFFF) becomes '?';
 *   - an empty label becomes "-"; "." and ".." become "_." and "_..";
 *   - the result is cut to TRACE_LABEL_MAX bytes at a UTF-8 boundary.
 *
 * Labels that follow the rule already are kept as they are. Distinct labels
 * can meet in one name (a '/' and a '_', two long labels alike in their
 * first 63 bytes): a reader that builds a set of names (Gavel's job types,
 * which become classes) refuses the second one, naming both, rather than
 * merge or rename them silently. One pass over the label, no allocation.
 */
#include "trace_int.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s[0..n) (n >= 1), or 0 when s[0]
 * does not start one: the rule of scenarios/SCHEMA.md (no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len = c < 0x80             ? 1
                 : (c & 0xe0) == 0xc0 ? 2
                 : (c & 0xf0) == 0xe0 ? 3
                 : (c & 0xf8) == 0xf0 ? 4
                                      : 0;
    if (len == 0 || len > n || (len == 2 && c < 0xc2) || (len == 4 && c > 0xf4))
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if ((len == 3 && c == 0xe0 && s[1] < 0xa0) || (len == 3 && c == 0xed && s[1] >= 0xa0) ||
        (len == 4 && c == 0xf0 && s[1] < 0x90) || (len == 4 && c == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

int trace_label_safe(char *out, const char *raw, size_t len)
{
    const unsigned char *s = (const unsigned char *)raw;
    size_t used = 0, i = 0;
    int changed = 0;
    while (i < len) {
        size_t n = utf8_len(s + i, len - i);
        const char *put = (const char *)s + i;
        size_t put_len = n;
        if (n == 0) {
            put = "?"; /* not UTF-8 */
            put_len = 1;
            n = 1;
        } else if ((n == 1 && (s[i] < 0x20 || s[i] == 0x7f || s[i] == '/')) ||
                   (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
            put = "_"; /* a control character (C0, DEL, C1) or a '/' */
            put_len = 1;
        }
        if (put != (const char *)s + i)
            changed = 1;
        if (used + put_len > TRACE_LABEL_MAX) {
            changed = 1; /* cut at the last whole character that fits */
            break;
        }
        memcpy(out + used, put, put_len);
        used += put_len;
        i += n;
    }
    out[used] = '\0';
    if (used == 0) {
        memcpy(out, "-", 2);
        return 1;
    }
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0) {
        memmove(out + 1, out, used + 1);
        out[0] = '_';
        return 1;
    }
    return changed;
}

void trace__msg_scrub(char *msg)
{
    unsigned char *s = (unsigned char *)msg;
    size_t len = strlen(msg);
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len(s + i, len - i);
        if (n == 0 || (n == 1 && (s[i] < 0x20 || s[i] == 0x7f)) ||
            (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
            /* one '?' per byte keeps the length, so the loop stays in place */
            size_t bad = n ? n : 1;
            memset(s + i, '?', bad);
            i += bad;
        } else {
            i += n;
        }
    }
}
