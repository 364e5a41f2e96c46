# SPDX-License-Identifier: Apache-2.0
# tarmac plan: a purchase schedule over periods of growing demand (docs/plan.md).
#   test_plan_gap    greedy against the exact search on a tiny case (the gap
#                    docs/plan.md reports, with and without the look-ahead)
#   test_plan_cost   the cost per period checked by hand, orders and lead times
#   test_plan_bad    bad input: exit codes, messages, no file left
#   test_plan_file   the HDF5 file read back with h5py; `tarmac plot` on it
#   test_plan_sigint SIGINT: exit 130, what was planned printed and written
#   test_plan_cut    the staircase's cuts by the cost bound: the bound by hand,
#                    the schedule unchanged (with and without a budget)
#   test_plan_rollout the look-ahead roll-out within the budget (its costs by
#                    hand, ordering earlier, no path within it)
foreach(part gap cost bad file sigint cut rollout)
  tarmac_script_test(test_plan_${part}
                     COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/plan_check.py ${part}
                     LABELS integration)
  set_tests_properties(test_plan_${part} PROPERTIES TIMEOUT 300)
endforeach()
