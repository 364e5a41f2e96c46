# SPDX-License-Identifier: Apache-2.0
# PLACE_POLICY_IDLE_WHEN_FULL: every composed policy that claims it decides
# nothing on a full cluster and keeps nothing from such a pass.
tarmac_test(test_place_idle
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_idle.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
  LIBS tarmac_place LABELS unit)
