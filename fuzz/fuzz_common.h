/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_common.h — what the libFuzzer targets of fuzz/ share.
 *
 * The readers take a path, not a buffer, so a target writes each input to
 * one temporary file of its own (created once per process, rewritten in
 * place for every input) and hands the reader its name. Standard input is
 * /dev/null, so that an input naming "/dev/stdin" cannot block the fuzzer.
 */
#ifndef TARMAC_FUZZ_COMMON_H
#define TARMAC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The temporary file of this process (ending in `suffix`, e.g. ".csv"),
 * created on the first call; aborts if it cannot be written, since a
 * fuzzer that silently tests nothing is worse than one that stops. */
const char *fuzz_tmp_path(const char *suffix);
/* Replace the temporary file's contents with data[0..size). */
void fuzz_tmp_write(const char *path, const uint8_t *data, size_t size);
/* Write a second, fixed file next to it (a Gavel matrix, ...). */
const char *fuzz_tmp_fixed(const char *suffix, const char *text);

#endif
