# SPDX-License-Identifier: Apache-2.0
# bench_gavel: Gavel's allocation solve (sim/model/gavel_alloc.c, GLPK) for N
# active jobs on 3 GPU types with Gavel's throughputs, per objective. Built by
# `make bench`, never run by ctest; figures in bench/README.md.
add_executable(bench_gavel ${CMAKE_CURRENT_SOURCE_DIR}/gavel_bench.c)
target_link_libraries(bench_gavel PRIVATE tarmac_sim)
target_compile_options(bench_gavel PRIVATE -O2)
add_dependencies(benchmarks bench_gavel)
