# SPDX-License-Identifier: Apache-2.0
# The engine against queueing theory beyond Erlang C's mean: Pollaczek-Khinchine
# (M/D/1, M/U/1, M/lognormal/1), M/M/c's waiting-time tail and quantiles, gangs
# that pack into M/M/4, half speed as half the service rate, Cobham's non-preemptive priorities,
# preemptive-resume priorities, SJF (Phipps), deadline misses on M/M/1.
tarmac_test(test_queueing SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_queueing.c
            LIBS tarmac_sim LABELS validation)
