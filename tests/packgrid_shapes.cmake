# SPDX-License-Identifier: Apache-2.0
# packgrid_shapes: dotprod's, gpu-packing's and random's per-shape node results, kept from
# the change journal (policies/fit_shapes.h), against their scans and a
# fresh instance at every decision (random worlds with starts, ends, nodes
# and GPUs out of service, nodes added, bursts longer than the journal,
# evictions, a new cluster under the same instances).
tarmac_test(packgrid_shapes SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/packgrid_shapes.c
            LIBS tarmac_place LABELS unit)
