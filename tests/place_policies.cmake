# SPDX-License-Identifier: Apache-2.0
# The placement core's policies against hand-built views (orders, fits,
# backfilling, preemption, services, validation): C library and the placement
# core only, like every test of policies/.
foreach(t orders fits backfill preempt)
  tarmac_test(test_place_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_${t}.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
    LIBS tarmac_place ${MATH_LIBRARY} LABELS unit)
endforeach()
# The reserving rules against the profile they used to rebuild every pass
# (a verbatim copy of the old code), over random simulations.
tarmac_test(test_place_backfill_diff
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_backfill_diff.c
    ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c ${CMAKE_CURRENT_SOURCE_DIR}/ref_backfill_profile.c
  LIBS tarmac_place ${MATH_LIBRARY} LABELS unit)
