#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# spdx_check.sh — every source file of tarmac names its licence in an SPDX
# line near its top (LICENSE: Apache-2.0): C sources and headers, shell,
# Python, CMake and pkg-config templates, the Makefile and .ci/run. Test
# inputs (tests/hostile, tests/golden, the fuzz corpus) are data, not source.
set -u
SRC=${TARMAC_SRC:?}
cd "$SRC" || exit 1
missing=0 checked=0
for f in $(find . -path ./build -prune -o -path './build-*' -prune -o -path ./.git -prune \
    -o -path ./tests/hostile -prune -o -path ./tests/golden -prune -o -path ./fuzz/corpus -prune \
    -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.h.in' -o -name '*.sh' -o -name '*.py' \
    -o -name '*.cmake' -o -name '*.pc.in' -o -name '*.cmake.in' -o -name '*.sbatch' \
    -o -name CMakeLists.txt -o -name Makefile \) -print) ./.ci/run; do
    case $f in */__pycache__/*) continue ;; esac
    checked=$((checked + 1))
    if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
        echo "FAIL: $f has no SPDX-License-Identifier: Apache-2.0 line in its first 3 lines"
        missing=$((missing + 1))
    fi
done
echo "spdx_check: $checked files, $missing without the line"
[ "$checked" -gt 100 ] || { echo "FAIL: only $checked files found"; exit 1; }
[ "$missing" -eq 0 ]
