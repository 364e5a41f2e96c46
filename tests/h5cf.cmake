# SPDX-License-Identifier: Apache-2.0
# h5cf: tarmac's HDF5 result files as netCDF-4 (docs/hdf5-io.md, "netCDF and
# xarray").
#   test_h5cf   integration: a run, compare, breakeven, sweep point and merge,
#               replay and packing file each opened with xarray (h5netcdf) and
#               netCDF4: named dimensions on every table column, UDUNITS-2
#               units and long_name everywhere (skips, exit 77, without the
#               Python modules or libudunits2 outside CI)
tarmac_script_test(test_h5cf COMMAND ${TARMAC_PY} ${CMAKE_CURRENT_SOURCE_DIR}/h5cf_check.py
                   LABELS integration)
