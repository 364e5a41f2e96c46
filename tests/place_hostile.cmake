# SPDX-License-Identifier: Apache-2.0
# `tarmac place` against hostile requests (docs/hardening.md, "`tarmac place`
# requests"): U+0000 in any string, queued jobs no node could ever hold (the
# "unplaceable" list), and large snapshots that used to run for minutes
# (priority preemption at 5,000 nodes and 50,000 queued jobs, conservative
# backfilling at 20,000 nodes), answered within --timeout.
tarmac_script_test(test_place_hostile
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/place_hostile.sh LABELS integration)
# Priority preemption, which now keeps its candidates for a pass and each job
# class's answers until a decision changes a node, against the rule that
# gathered and sorted them for every job (a verbatim copy of the old code),
# over random worlds: the same victims, in the same order, on the same node.
tarmac_test(test_place_preempt_diff
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_place_preempt_diff.c
    ${CMAKE_CURRENT_SOURCE_DIR}/ref_preempt_priority.c
  LIBS tarmac_place ${MATH_LIBRARY} LABELS unit)
# The reserving backfill rules against their reference (the random
# simulations of test_place_backfill_diff) with the library built so that
# every reservation search goes through the index of backfill_profile.c
# (PLACE_LB_MIN_SEARCHES=0; the library itself uses it only in passes that
# search for more than 8 jobs, which the simulations rarely make).
get_target_property(TARMAC_PLACE_SOURCES tarmac_place SOURCES)
list(TRANSFORM TARMAC_PLACE_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/policies/)
add_executable(test_place_backfill_index
  ${CMAKE_CURRENT_SOURCE_DIR}/test_place_backfill_diff.c ${CMAKE_CURRENT_SOURCE_DIR}/place_views.c
  ${CMAKE_CURRENT_SOURCE_DIR}/ref_backfill_profile.c ${CMAKE_CURRENT_SOURCE_DIR}/check.c
  ${TARMAC_PLACE_SOURCES})
target_include_directories(test_place_backfill_index PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/policies)
target_compile_definitions(test_place_backfill_index PRIVATE PLACE_LB_MIN_SEARCHES=0)
target_link_libraries(test_place_backfill_index PRIVATE ${MATH_LIBRARY})
add_test(NAME test_place_backfill_index COMMAND test_place_backfill_index)
set_tests_properties(test_place_backfill_index PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
