# SPDX-License-Identifier: Apache-2.0
# bench_h5io: the cost of writing a 1,000,000-row, 15-column jobs table through
# each table pipeline of sim/output/h5io.c (bench/README.md, "HDF5 output").
add_executable(bench_h5io ${CMAKE_CURRENT_SOURCE_DIR}/bench_h5io.c)
target_link_libraries(bench_h5io PRIVATE tarmac_sim)
add_dependencies(benchmarks bench_h5io)
