# SPDX-License-Identifier: Apache-2.0
# Hostile values (docs/hardening.md lists each case and its outcome).
#   test_hostile   integration: NaN, infinities and huge numbers in scenarios,
#                  traces and `tarmac place` input; nesting 100000 deep; a
#                  65 MiB scenario; 3 and 30 MB lines; an endless trace cut by
#                  --max-jobs; fleets of zero GPUs; jobs larger than any node;
#                  times past the end of simulated time; place's size and time
#                  limits
tarmac_script_test(test_hostile COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hostile.sh
                   LABELS integration)
