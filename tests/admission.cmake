# SPDX-License-Identifier: Apache-2.0
# Admission (docs/cli.md "Limits", scenarios/SCHEMA.md "Ranges"): ranges of
# single numbers, the work estimate of a whole scenario held to limits before
# any command runs it, --limit, validate -v, sweeps admitted before a point
# runs, the near-linear loader (150,000 pools) and the empirical-file reader
# (regular files only, bounded, never quoted).
tarmac_script_test(test_admission COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/admission.sh
                   LABELS integration)
