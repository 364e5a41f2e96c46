# SPDX-License-Identifier: Apache-2.0
# README "Write your own policy": the worked example (policies/fit_example.c,
# placement=smallest-type), against the hand-built views of its walkthrough.
tarmac_test(test_place_example
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_example.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
  LIBS tarmac_place LABELS unit)
