# SPDX-License-Identifier: Apache-2.0
# LLM serving at request level (sim/model/llm_*.c): M/D/c and M/M/c limits,
# throughput at saturation against the sourced figures, monotonicity, the
# measured-profile CSV, conservation and overflow, the fleet accounting's
# counts against the per-request outcomes (tests/test_llm.c).
tarmac_test(test_llm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_llm.c
            LIBS tarmac_sim LABELS validation)
set_tests_properties(test_llm PROPERTIES TIMEOUT 900)
tarmac_script_test(llm_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/llm_cli.sh LABELS integration)
tarmac_script_test(llm_scale COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/llm_scale.sh LABELS integration)
