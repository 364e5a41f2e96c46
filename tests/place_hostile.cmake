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
