# SPDX-License-Identifier: Apache-2.0
# h5cf: tarmac's HDF5 result files as netCDF-4 (docs/hdf5-io.md, "netCDF and
# xarray").
#   test_h5cf   integration: a run, compare, breakeven, size, sweep point and
#               merge (and, with the data folder, a replay, packing file and
#               packing sweep) each opened with xarray (h5netcdf) and
#               netCDF4: every group without phony dimensions, every array
#               on named dimension scales (a study's never the default 'row'),
#               every label list attribute also a variable-length UTF-8
#               string dataset, UDUNITS-2 units and long_name everywhere
#               (skips, exit 77, without the Python modules or libudunits2
#               outside CI)
tarmac_script_test(test_h5cf COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/h5cf_check.py
                   LABELS integration)
