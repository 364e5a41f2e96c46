# SPDX-License-Identifier: Apache-2.0
# The sequential rule of sizing's evaluation (docs/cost.md §6, "Early
# rejection", 3): a fleet stops being simulated once it fails whatever its
# remaining replications show.
#   test_size_sequential  unit: hand cases and a brute-force check over the
#                         remaining replications' values
tarmac_test(test_size_sequential SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_size_sequential.c
            LIBS tarmac_sim LABELS unit)
