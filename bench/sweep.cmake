# SPDX-License-Identifier: Apache-2.0
# Sweep benchmark (bench/README.md, "Sweeps"): a script over the tarmac binary
# (64-point sweep at -j 1, -j 2 and under mpirun; overhead per point; the FGD
# openb grid). Copied into the build as bench/bench_sweep with the source and
# build folders filled in. Run: build/bench/bench_sweep [--policies 'A;B;...']
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/bench_sweep.sh ${CMAKE_CURRENT_BINARY_DIR}/bench_sweep
               @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
               GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
add_custom_target(bench_sweep DEPENDS tarmac)
add_dependencies(benchmarks bench_sweep)
