#!/bin/sh
# place_pkgconfig.sh CC BUILD_DIR WORK_DIR [CFLAGS] — the installed placement core is
# usable by a scheduler that knows nothing of tarmac but pkg-config: install
# into a temporary prefix, compile and link a program with
# `pkg-config --cflags --libs tarmac-place` (the installed header and static
# library only), run one pass with it.
set -eu
CC=$1
BUILD=$2
WORK=$3
EXTRA=${4:-}
rm -rf "$WORK"
mkdir -p "$WORK"
cmake --install "$BUILD" --prefix "$WORK/prefix" > "$WORK/install.log"
PC=$(find "$WORK/prefix" -name tarmac-place.pc | head -1)
[ -n "$PC" ] || { echo "FAIL: tarmac-place.pc not installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$PC")"
[ -f "$WORK/prefix/include/tarmac/place.h" ] || { echo "FAIL: place.h not installed"; exit 1; }
cat > "$WORK/sched.c" <<'C'
#include <place.h>
#include <stdio.h>
#include <string.h>
static place_part kept[4];
static int apply(void *host, place_view *v, place_decision *d)
{
    place_cluster *c = host;
    memcpy(kept, d->parts, d->n_parts * sizeof *d->parts);
    (void)v;
    return place_cluster_take(c, &v->queue[d->index], kept, d->n_parts);
}
int main(void)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    uint32_t mem = 81920, node;
    place_cluster c;
    if (place_cluster_init(&c, &env, 1, &mem) || place_cluster_add_node(&c, 0, 8, 64000, 1 << 20, &node) ||
        place_cluster_set_node_up(&c, node, 1))
        return 1;
    place_job j;
    memset(&j, 0, sizeof j);
    j.id = 7;
    j.gpus = 4;
    j.gpu_milli = PLACE_MILLI_WHOLE;
    j.estimate_us = -1;
    j.deadline_us = -1;
    uint8_t qs[1] = {PLACE_Q_WAITING};
    place_view v = {0, &c, &j, qs, 1, NULL, 0};
    place_instance pi;
    char err[128];
    if (place_instance_init(&pi, &env, "order=fifo placement=best-fit backfill=easy", err, sizeof err))
        return 1;
    place_part parts[8];
    place_pass_stats st;
    int rc = place_pass_run(&pi, &v, qs, parts, 8, apply, &c, &st);
    printf("installed tarmac-place: %s, %u started, %llu GPUs free\n", place_strerror(rc),
           st.started, (unsigned long long)c.gpus_free);
    int ok = rc == PLACE_OK && st.started == 1 && c.gpus_free == 4;
    place_instance_fini(&pi);
    place_cluster_fini(&c);
    return ok ? 0 : 1;
}
C
# shellcheck disable=SC2046
# shellcheck disable=SC2086
"$CC" -std=c17 -Wall -Wextra -Werror $EXTRA -o "$WORK/sched" "$WORK/sched.c" \
    $(pkg-config --cflags --libs --static tarmac-place)
"$WORK/sched"
