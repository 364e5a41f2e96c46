# SPDX-License-Identifier: Apache-2.0
# Analysis (issue 7): compare, plot, export, progress and --json, the man pages
# and the Python example.
#   test_compare            unit: interval arithmetic, common random numbers,
#                           identical policies, warm-up removal
#   test_compare_coverage   validation, slow: 95 % intervals cover the M/M/1
#                           truth at the nominal rate over 200 seeds
tarmac_test(test_compare SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.c LIBS tarmac_sim
            LABELS unit)
add_test(NAME test_compare_coverage COMMAND test_compare coverage)
set_tests_properties(test_compare_coverage PROPERTIES LABELS "validation;slow" TIMEOUT 1500)
#   test_plot               unit: the plot writer on files built in the test
#                           (a run with every dataset, a packing experiment, a
#                           bare run: each figure present exactly when its
#                           data is), PNGs checked byte by byte, a hostile
#                           scenario name, no gnuplot in PATH
#   test_plot_cli           integration: `tarmac plot` on real run and compare
#                           files, PNG and SVG, scripts re-run by gnuplot,
#                           missing and failing gnuplot, exit codes; the
#                           default run's figures and a real openb packing
#                           replay's (with TARMAC_DATA_DIR)
#   test_compare_cli        integration: `tarmac compare` against `tarmac run`
#                           recomputed in Python, identical policies, CLI errors
tarmac_test(test_plot SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_plot.c LIBS tarmac_sim
            LABELS unit)
tarmac_script_test(test_plot_cli COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/plot_check.py
                   LABELS integration)
tarmac_script_test(test_compare_cli
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/compare_check.py LABELS integration)
#   test_export             integration: CSV round trip of jobs, timeseries,
#                           compare tables, labels, errors
#   test_progress           integration: the bar on a pseudo-terminal only,
#                           --quiet, --json against the HDF5 file
tarmac_script_test(test_export COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/export_check.py
                   LABELS integration)
tarmac_script_test(test_progress
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/progress_check.py LABELS integration)
#   test_docs               integration: docs/output.md against real files (both
#                           ways), the generated tarmac-output(5) and tarmac(1)
#                           against the files and --help, output.md's snippets run
#   test_python_example     integration: docs/examples/read_results.py (h5py +
#                           pandas) on a fresh result
tarmac_script_test(test_docs
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/docs_check.py
          $<TARGET_FILE_DIR:tarmac>/tarmac-output.5
  LABELS integration)
tarmac_script_test(test_python_example
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/python_example.py LABELS integration)
