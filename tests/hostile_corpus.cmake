# SPDX-License-Identifier: Apache-2.0
# The hostile-input corpus (tests/hostile/*.case, docs/hardening.md "Proof").
#   test_hostile_corpus   integration: every case run under its memory limit
#                         (ulimit -v; left out under AddressSanitizer, which
#                         reserves terabytes of virtual memory) and time
#                         limit; exit status, stderr and stdout checked, and
#                         nothing left behind by a failing command
tarmac_script_test(test_hostile_corpus COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hostile_corpus.sh
                   LABELS integration)
set_property(TEST test_hostile_corpus APPEND PROPERTY ENVIRONMENT
             "TARMAC_SANITIZE=$<IF:$<BOOL:${TARMAC_SANITIZE}>,ON,OFF>")
