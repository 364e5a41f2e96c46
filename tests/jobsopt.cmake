# SPDX-License-Identifier: Apache-2.0
# --jobs full|summary|none on run and replay (docs/output.md, "What --jobs
# keeps"): the modes agree on everything but the per-job table,
# /jobs_summary is /jobs folded by shape, a bad mode is a usage error, and
# plot, export, report and the Python package read a file without /jobs.
tarmac_script_test(test_jobsopt
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/jobsopt_check.py LABELS integration)
# partition=borrow with its index of borrowers by owner decides as the walk
# over the running set did: scenarios/teams.json under four borrowing
# policies, every figure of run --json against the recorded ones
tarmac_script_test(test_jobsopt_borrow
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/jobsopt_borrow_check.py LABELS integration)
