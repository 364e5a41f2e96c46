# SPDX-License-Identifier: Apache-2.0
# Trace readers against hostile input (docs/hardening.md, "Traces"; docs/traces.md,
# "Labels" and "Memory and limits").
#   test_traces_hostile      unit: the label rule, case by case and over random
#                            bytes; runs of empty lines (line numbers across read
#                            buffers, the stop flag); what a Gavel matrix may
#                            declare; the readers' live bytes (failalloc's count)
#                            for a 20,000-node openb list and a Gavel trace of
#                            65,536 (job type, scale) pairs
#   test_traces_hostile_cli  integration: 1 GB of gzip-compressed blank lines
#                            replayed in bounded time, a 200,000-type Gavel
#                            matrix refused, hostile labels replayed and plotted
tarmac_test(test_traces_hostile SOURCES test_traces_hostile.c failalloc.c
            LIBS tarmac_traces LABELS unit)
target_link_options(test_traces_hostile PRIVATE
                    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
tarmac_script_test(test_traces_hostile_cli
                   COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/traces_hostile.sh LABELS integration)
