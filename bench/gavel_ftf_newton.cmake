# SPDX-License-Identifier: Apache-2.0
# bench_gavel_ftf_newton: the LPs finish-time fairness needs, bisection on rho
# (sim/model/gavel_alloc.c) against a Dinkelbach-type iteration on the same
# problem (bench/README.md, "Finish-time fairness in fewer LPs"). Built by
# `make bench`, never run by ctest.
add_executable(bench_gavel_ftf_newton ${CMAKE_CURRENT_SOURCE_DIR}/gavel_ftf_newton.c)
target_link_libraries(bench_gavel_ftf_newton PRIVATE tarmac_sim)
target_compile_options(bench_gavel_ftf_newton PRIVATE -O2)
add_dependencies(benchmarks bench_gavel_ftf_newton)
