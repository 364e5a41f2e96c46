#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# place_alone.sh CC POLICIES_DIR WORK_DIR — policies/ stands alone.
#
# 1. Every #include in policies/ is the library's own header or a C standard
#    header (a GSL, HDF5 or cJSON include would be found in /usr/include even
#    without an include path, so the list is checked, not just the compile).
# 2. The library and a small program compile with no include path but
#    policies/ and link with nothing but libc and libm.
# 3. The static objects reference no symbol outside libc/libm.
set -eu
CC=$1
DIR=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
std='assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h'
fail=0
for f in "$DIR"/*.c "$DIR"/*.h; do
    grep -h '^[[:space:]]*#[[:space:]]*include' "$f" | while read -r line; do
        h=$(echo "$line" | sed -n 's/.*[<"]\([^>"]*\)[>"].*/\1/p')
        case "$line" in
        *'"'*) [ -f "$DIR/$h" ] || { echo "FAIL: $f includes \"$h\", not a policies/ header"; exit 1; } ;;
        *) echo " $std " | grep -q " $h " || { echo "FAIL: $f includes <$h>, not a C standard header"; exit 1; } ;;
        esac
    done || fail=1
done
[ $fail -eq 0 ] || exit 1
cat > "$WORK/main.c" <<'C'
#include "place.h"
#include <stdio.h>
int main(void)
{
    place_env env = {place_alloc_libc, NULL, NULL, NULL};
    place_instance pi;
    char err[64];
    int rc = place_instance_init(&pi, &env, "order=fifo placement=best-fit", err, sizeof err);
    place_instance_fini(&pi);
    printf("policy library alone: %s\n", place_strerror(rc));
    return rc == PLACE_OK ? 0 : 1;
}
C
# -nostdinc would also drop libc's headers; instead the include list above is checked
"$CC" -std=c17 -Wall -Wextra -Werror -I"$DIR" -o "$WORK/alone" "$DIR"/*.c "$WORK/main.c" -lm
"$WORK/alone"
cd "$WORK" && "$CC" -std=c17 -c -I"$DIR" "$DIR"/*.c
undef=$(nm -u "$WORK"/*.o | awk 'NF==2 {print $2}' | grep -Ev '^(place_|place__)' | sort -u)
bad=$(echo "$undef" | grep -E '^(gsl_|H5|cJSON|gz|deflate|inflate)' || true)
if [ -n "$bad" ]; then
    echo "FAIL: policies/ references non-libc symbols: $bad"
    exit 1
fi
echo "undefined symbols (all libc/libm): $(echo $undef | tr '\n' ' ')"
