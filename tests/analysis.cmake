# Analysis (issue 7): compare, plot, export, progress and --json, the man pages
# and the Python example.
#   test_compare            unit: interval arithmetic, common random numbers,
#                           identical policies, warm-up removal
#   test_compare_coverage   validation, slow: 95 % intervals cover the M/M/1
#                           truth at the nominal rate over 200 seeds
tarmac_test(test_compare SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.c LIBS tarmac_sim
            LABELS unit)
add_test(NAME test_compare_coverage COMMAND test_compare coverage)
set_tests_properties(test_compare_coverage PROPERTIES LABELS "validation;slow" TIMEOUT 1500)
