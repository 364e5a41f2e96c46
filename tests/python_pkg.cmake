# SPDX-License-Identifier: Apache-2.0
# python_pkg: the Python package python/tarmac (docs/python.md).
#   test_python_pkg   integration: every kind of result file (run, replay,
#                     compare, breakeven, sweep points and merge, size --json,
#                     and with TARMAC_DATA_DIR packing and a packing sweep)
#                     opened with tarmac.open and checked against h5py and
#                     the run summary; the error cases; the example scripts
#                     (read_results.py, compare_figure.py's PNG); the README's
#                     Python snippet and docs/python.md's example output; the
#                     package as `cmake --install` puts it. Skips (exit 77)
#                     without h5py, pandas, xarray, h5netcdf or matplotlib
#                     outside CI.
tarmac_script_test(test_python_pkg
  COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/python_pkg_check.py ${CMAKE_BINARY_DIR} ${CMAKE_COMMAND}
  LABELS integration)
