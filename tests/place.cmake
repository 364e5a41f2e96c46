# SPDX-License-Identifier: Apache-2.0
# The placement core: unit tests against hand-built clusters, and the proof that
# policies/ compiles and links on the C standard library alone.
tarmac_test(test_place SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place.c
            LIBS tarmac_place LABELS unit)
tarmac_script_test(test_place_alone
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/place_alone.sh ${CMAKE_C_COMPILER}
          ${CMAKE_SOURCE_DIR}/policies ${CMAKE_CURRENT_BINARY_DIR}/place_alone
  LABELS unit)
# Takes and gives on one-GPU nodes (the folded and range paths of cluster.c)
# against the general per-part path on a twin cluster.
tarmac_test(test_place_units SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_units.c
            LIBS tarmac_place LABELS unit)
