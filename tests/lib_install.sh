#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# lib_install.sh CC BUILD_DIR SRC_DIR WORK_DIR [CFLAGS] — `cmake --install` is
# complete and the installed placement library links the usual ways
# (docs/place-lib.md):
#
#  1. install the build into a temporary prefix; the tarmac binary, both man
#     pages, place.h, libtarmac-place.so.N (N = PLACE_ABI_VERSION of place.h,
#     with its soname and development links), libtarmac-place.a,
#     tarmac-place.pc and the CMake package files are there;
#  2. the shared object: soname libtarmac-place.so.N, links libm itself, every
#     place__ internal hidden and every dynamic symbol it defines a place_*
#     one; pkg-config's Libs has no -lm (it is in Libs.private);
#  3. tests/lib_consumer.c (a tiny cluster and queue, decisions checked) built
#     with `pkg-config --cflags --libs tarmac-place`: it needs the installed
#     libtarmac-place.so.N, does not start without LD_LIBRARY_PATH and passes
#     with it;
#  4. the same against the static archive with `pkg-config --static`: no
#     libtarmac-place dependency, runs without LD_LIBRARY_PATH; and, outside
#     the sanitizer builds, a fully static (-static) program;
#  5. a CMake project with find_package(tarmac-place) linking tarmac::place
#     and tarmac::place_static runs both;
#  6. the README's "Install and link" commands run as they are written.
#
# CFLAGS: extra compiler flags for the programs (a sanitized build installs a
# sanitized library, so its consumers link the sanitizer runtime too).
# Exit 77 (skipped) when pkg-config is missing, except under CI=true.
set -eu
CC=$1
BUILD=$(cd "$2" && pwd)
SRC=$(cd "$3" && pwd)
WORK=$4
EXTRA=${5:-}

if ! command -v pkg-config > /dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: pkg-config is not installed (scripts/deps.sh installs it)"
        exit 1
    fi
    echo "SKIP: pkg-config is not installed"
    exit 77
fi

fail() {
    echo "FAIL: $*"
    exit 1
}

rm -rf "$WORK"
mkdir -p "$WORK"
PREFIX=$WORK/prefix
cmake --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log"; fail "cmake --install $BUILD failed"; }

ABI=$(sed -n 's/^#define PLACE_ABI_VERSION *\([0-9][0-9]*\)u*$/\1/p' "$SRC/policies/place.h")
[ -n "$ABI" ] || fail "no PLACE_ABI_VERSION in $SRC/policies/place.h"

# --- 1. what is installed ---------------------------------------------------
PC=$(find "$PREFIX" -name tarmac-place.pc | head -1)
[ -n "$PC" ] || fail "tarmac-place.pc not installed"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$PC")
LIBDIR=$(pkg-config --variable=libdir tarmac-place)
INCDIR=$(pkg-config --variable=includedir tarmac-place)
[ "$(pkg-config --variable=abi tarmac-place)" = "$ABI" ] ||
    fail "tarmac-place.pc says abi=$(pkg-config --variable=abi tarmac-place), place.h $ABI"
SO=$LIBDIR/libtarmac-place.so.$ABI
for f in "$PREFIX/bin/tarmac" "$PREFIX/share/man/man1/tarmac.1" \
    "$PREFIX/share/man/man5/tarmac-output.5" "$INCDIR/tarmac/place.h" \
    "$LIBDIR/libtarmac-place.a" "$SO" "$LIBDIR/libtarmac-place.so" \
    "$LIBDIR/cmake/tarmac-place/tarmac-placeConfig.cmake" \
    "$LIBDIR/cmake/tarmac-place/tarmac-placeConfigVersion.cmake" \
    "$LIBDIR/cmake/tarmac-place/tarmac-placeTargets.cmake"; do
    [ -e "$f" ] || fail "not installed: ${f#"$PREFIX"/}"
done
if [ ! -L "$SO" ] || [ ! -L "$LIBDIR/libtarmac-place.so" ]; then
    fail "libtarmac-place.so and .so.$ABI are not links to the versioned file"
fi
"$PREFIX/bin/tarmac" --version > "$WORK/version.txt" 2>&1 ||
    { cat "$WORK/version.txt"; fail "the installed tarmac does not run"; }
grep -q 'Apache' "$PREFIX/share/man/man1/tarmac.1" || fail "tarmac.1 names no licence"
# every header the installed ones include is installed or a C standard one
sed -n 's/^#include "\([^"]*\)".*/\1/p' "$INCDIR"/tarmac/*.h | while read -r h; do
    [ -f "$INCDIR/tarmac/$h" ] || fail "installed header includes \"$h\", not installed"
done

# --- 2. the shared object ---------------------------------------------------
readelf -d "$SO" > "$WORK/dynamic.txt"
grep -q "Library soname: \[libtarmac-place.so.$ABI\]" "$WORK/dynamic.txt" ||
    { cat "$WORK/dynamic.txt"; fail "soname is not libtarmac-place.so.$ABI"; }
grep -q 'Shared library: \[libm\.so' "$WORK/dynamic.txt" ||
    fail "libtarmac-place.so does not link libm itself"
nm -D --defined-only "$SO" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' > "$WORK/exports.txt"
n_exports=$(wc -l < "$WORK/exports.txt")
[ "$n_exports" -gt 20 ] || fail "libtarmac-place.so exports $n_exports symbols"
if grep -v '^place_[a-z]' "$WORK/exports.txt" > "$WORK/strays.txt"; then
    echo "exported beyond the place_* API:"
    head -20 "$WORK/strays.txt"
    fail "libtarmac-place.so exports $(wc -l < "$WORK/strays.txt") symbols that are not place_*"
fi
for s in place_cluster_init place_instance_init place_pass_run place_strerror; do
    grep -qx "$s" "$WORK/exports.txt" || fail "libtarmac-place.so does not export $s"
done
libs=$(pkg-config --libs tarmac-place)
case " $libs " in *" -lm "*) fail "pkg-config --libs gives -lm ($libs): it belongs in Libs.private" ;; esac
case " $(pkg-config --libs --static tarmac-place) " in
*" -lm "*) ;;
*) fail "pkg-config --libs --static lacks -lm" ;;
esac

# --- 3. a program linked with pkg-config against the shared object ----------
# shellcheck disable=SC2046,SC2086
"$CC" -std=c17 -Wall -Wextra -Werror $EXTRA -o "$WORK/consumer_shared" "$SRC/tests/lib_consumer.c" \
    $(pkg-config --cflags --libs tarmac-place) || fail "linking with pkg-config --libs failed"
readelf -d "$WORK/consumer_shared" | grep -q "Shared library: \[libtarmac-place.so.$ABI\]" ||
    fail "consumer_shared does not need libtarmac-place.so.$ABI"
if env -u LD_LIBRARY_PATH "$WORK/consumer_shared" > "$WORK/noenv.txt" 2>&1; then
    fail "consumer_shared ran without LD_LIBRARY_PATH: it did not use the installed library"
fi
LD_LIBRARY_PATH=$LIBDIR ldd "$WORK/consumer_shared" | grep -q "=> $LIBDIR/libtarmac-place.so.$ABI" ||
    fail "consumer_shared does not load the installed libtarmac-place.so.$ABI"
LD_LIBRARY_PATH=$LIBDIR "$WORK/consumer_shared" || fail "consumer_shared (shared library)"

# --- 4. the static archive, with pkg-config --static ------------------------
# The linker takes libtarmac-place.so when both files sit in one folder, so
# the archive is asked for by name (-l:libtarmac-place.a) in a program that is
# otherwise dynamic; Libs.private brings the -lm it needs. A fully static
# program (-static, not with the sanitizers) takes the flags as they are.
static_libs=$(pkg-config --libs --static tarmac-place | sed 's/-ltarmac-place/-l:libtarmac-place.a/')
# shellcheck disable=SC2046,SC2086
"$CC" -std=c17 -Wall -Wextra -Werror $EXTRA -o "$WORK/consumer_static" "$SRC/tests/lib_consumer.c" \
    $(pkg-config --cflags tarmac-place) $static_libs ||
    fail "linking the archive with pkg-config --static failed"
if readelf -d "$WORK/consumer_static" | grep -q 'libtarmac-place'; then
    fail "consumer_static needs a shared libtarmac-place"
fi
env -u LD_LIBRARY_PATH "$WORK/consumer_static" || fail "consumer_static (static archive)"
if [ -z "$EXTRA" ]; then
    # shellcheck disable=SC2046
    "$CC" -std=c17 -Wall -Wextra -Werror -static -o "$WORK/consumer_allstatic" \
        "$SRC/tests/lib_consumer.c" $(pkg-config --cflags --libs --static tarmac-place) ||
        fail "linking a -static program with pkg-config --static failed"
    readelf -d "$WORK/consumer_allstatic" 2> /dev/null | grep -q NEEDED &&
        fail "consumer_allstatic has dynamic dependencies"
    env -u LD_LIBRARY_PATH "$WORK/consumer_allstatic" || fail "consumer_allstatic (-static)"
fi

# --- 5. CMake: find_package(tarmac-place) -----------------------------------
mkdir -p "$WORK/cmake-consumer"
cat > "$WORK/cmake-consumer/CMakeLists.txt" << EOF
cmake_minimum_required(VERSION 3.16)
project(lib_consumer C)
find_package(tarmac-place 0.1 REQUIRED)
if(NOT tarmac-place_ABI EQUAL $ABI)
  message(FATAL_ERROR "tarmac-place_ABI is '\${tarmac-place_ABI}', place.h says $ABI")
endif()
add_executable(consumer_shared "$SRC/tests/lib_consumer.c")
target_link_libraries(consumer_shared PRIVATE tarmac::place)
add_executable(consumer_static "$SRC/tests/lib_consumer.c")
target_link_libraries(consumer_static PRIVATE tarmac::place_static)
EOF
if ! cmake -S "$WORK/cmake-consumer" -B "$WORK/cmake-consumer/build" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_FLAGS="$EXTRA" -DCMAKE_BUILD_TYPE=Release \
    > "$WORK/cmake-consumer.log" 2>&1 ||
    ! cmake --build "$WORK/cmake-consumer/build" >> "$WORK/cmake-consumer.log" 2>&1; then
    cat "$WORK/cmake-consumer.log"
    fail "find_package(tarmac-place) consumer does not build"
fi
readelf -d "$WORK/cmake-consumer/build/consumer_shared" |
    grep -q "Shared library: \[libtarmac-place.so.$ABI\]" ||
    fail "tarmac::place does not link libtarmac-place.so.$ABI"
if readelf -d "$WORK/cmake-consumer/build/consumer_static" | grep -q 'libtarmac-place'; then
    fail "tarmac::place_static links a shared libtarmac-place"
fi
# the build tree's rpath finds the installed library
env -u LD_LIBRARY_PATH "$WORK/cmake-consumer/build/consumer_shared" || fail "tarmac::place consumer"
env -u LD_LIBRARY_PATH "$WORK/cmake-consumer/build/consumer_static" ||
    fail "tarmac::place_static consumer"
# --- 6. the README's "Install and link" commands, as they are ------------------
# run in a folder where `build` is the build and sched.c is lib_consumer.c,
# with HOME there; `cc` is $CC with the extra flags
R=$WORK/readme
mkdir -p "$R/home" "$R/bin"
ln -s "$BUILD" "$R/build"
cp "$SRC/tests/lib_consumer.c" "$R/sched.c"
CC_PATH=$(command -v "$CC") || fail "no compiler $CC"
printf '#!/bin/sh\nexec %s %s "$@"\n' "$CC_PATH" "$EXTRA" > "$R/bin/cc"
chmod +x "$R/bin/cc"
awk '/^## Install and link/ { on = 1; next }
     on && /^## / { exit }
     on && /^```sh$/ { code = 1; next }
     on && code && /^```$/ { exit }
     code { print }' "$SRC/README.md" > "$R/readme.sh"
[ -s "$R/readme.sh" ] || fail "README.md has no sh block under \"## Install and link\""
(cd "$R" && HOME=$R/home PATH=$R/bin:$PATH sh -eu readme.sh) > "$R/readme.log" 2>&1 ||
    { cat "$R/readme.sh" "$R/readme.log"; fail "the README's Install and link commands fail"; }
grep -q 'all decisions as expected' "$R/readme.log" ||
    { cat "$R/readme.log"; fail "the README's program did not run"; }

echo "lib_install: prefix complete; libtarmac-place.so.$ABI exports $n_exports place_* symbols;" \
    "pkg-config (shared, static), find_package and README consumers pass"
