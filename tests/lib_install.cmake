# SPDX-License-Identifier: Apache-2.0
# `cmake --install` into a temporary prefix, then the placement library linked
# as a scheduler would: pkg-config (shared and --static) and find_package
# (tests/lib_install.sh, tests/lib_consumer.c; docs/place-lib.md).
# (a sanitized build installs a sanitized library: the programs link the runtime too)
set(TARMAC_LIB_TEST_FLAGS "")
if(TARMAC_SANITIZE)
  set(TARMAC_LIB_TEST_FLAGS "-fsanitize=address,undefined")
endif()
tarmac_script_test(test_lib_install
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lib_install.sh ${CMAKE_C_COMPILER} ${CMAKE_BINARY_DIR}
          ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/lib_install "${TARMAC_LIB_TEST_FLAGS}"
  LABELS integration)
