# SPDX-License-Identifier: Apache-2.0
# `tarmac place`: its decisions equal the simulator's on snapshots taken from
# real runs (several policies), the preemption/API-routing protocol by hand,
# and malformed snapshots answered with an error object and exit 65.
tarmac_test(test_place_json SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_json.c
            LIBS tarmac_sim LABELS integration)
tarmac_script_test(test_place_json_bad
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/place_json_bad.sh LABELS integration)
