# SPDX-License-Identifier: Apache-2.0
# `tarmac report` (issue 19): one self-contained HTML page of a result file.
#   test_report      integration: the pages of a run and of a comparison whose
#                    names are markup: self-contained, tags balanced, ids unique,
#                    the numbers of the file (read with h5py) in the cells, as
#                    many inline SVG figures as `tarmac plot` draws; bad input
#                    (66, 65, 73) leaves nothing; headless Chromium renders the
#                    pages without a console error into screenshots that are not
#                    blank (kept in tests/report/ of the build folder). Skipped
#                    without Chromium, unless CI=true.
tarmac_script_test(test_report COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/report_check.py
                   LABELS integration)
set_tests_properties(test_report PROPERTIES TIMEOUT 600)
