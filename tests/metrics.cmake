# SPDX-License-Identifier: Apache-2.0
# test_metrics: the engine's accumulators (sim/model/metrics.c): level
# integrals and bins on hand-worked cases, 128-bit exactness, mirrored levels
# (aliases), and quantile copies.
tarmac_test(test_metrics SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_metrics.c LIBS tarmac_sim
            LABELS unit)
