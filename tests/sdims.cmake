# SPDX-License-Identifier: Apache-2.0
# sdims: the HDF5 writer's string lists and matrix dimensions
# (sim/output/h5io_dims.c; docs/hdf5-io.md, "netCDF and xarray").
#   test_sdims   unit: sim__h5w_names / sim__h5w_array_str / sim__h5w_dim_axes
#                write a file the reader reads back (scales left out of a
#                group's members); a wrong rank, a scale of the wrong length,
#                an axis named after a non-scale or nothing, a bad name or a
#                NULL string fail with TM_ERR_INVAL and leave no file
tarmac_test(test_sdims SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sdims.c LIBS tarmac_sim LABELS unit)
