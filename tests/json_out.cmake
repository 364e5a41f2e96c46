# SPDX-License-Identifier: Apache-2.0
# --json: every command's output is strict JSON (no NaN), written through
# cJSON (sim/config/json_out.c); `tarmac run --json` carries every figure of
# the run's file (/summary, /tenants, /ledger, /cost) with equal values; a
# name that is not valid UTF-8 or holds a control character is refused.
tarmac_script_test(test_json_out COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/json_out.py
                   LABELS integration)
set_tests_properties(test_json_out PROPERTIES TIMEOUT 600)
# the helper itself (numbers, strings, the place layout) and run --json with
# each of its allocations made to fail (tests/failalloc.c)
tarmac_test(test_json_out_unit SOURCES test_json_out.c failalloc.c LIBS tarmac_sim LABELS unit)
target_link_options(test_json_out_unit PRIVATE
                    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
