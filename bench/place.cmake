# SPDX-License-Identifier: Apache-2.0
# The placement core: one decision per placement rule on 100 / 1,000 / 10,000
# nodes, one backfilling pass with 1,000 queued jobs. Not a ctest (tests never
# assert on wall time); bench/README.md "Placement core" records the figures.
add_executable(bench_place ${CMAKE_CURRENT_SOURCE_DIR}/bench_place.c)
target_link_libraries(bench_place PRIVATE tarmac_place)
add_dependencies(benchmarks bench_place)
