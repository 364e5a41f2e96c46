/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_llm.h — the request-level LLM serving mode of `tarmac replay` (a
 * request trace such as azure-llm with --fleet or --protocol serve): its
 * options, their parsing and the run (cli_llm.c; docs/llm-serving.md).
 * cmd_replay.c holds the option table and hands these keys over.
 */
#ifndef TARMAC_CLI_LLM_H
#define TARMAC_CLI_LLM_H

#include "cli/cli_int.h"
#include "model/llm_int.h"

enum {
    O_LLM_MODEL = 3000,
    O_LLM_GPU,
    O_LLM_REPLICAS,
    O_LLM_TP,
    O_LLM_BATCHING,
    O_LLM_MAX_BATCH,
    O_LLM_MAX_TOKENS,
    O_LLM_CHUNK,
    O_LLM_BLOCK,
    O_LLM_KV_DTYPE,
    O_LLM_MEM_FRAC,
    O_LLM_ROUTE,
    O_LLM_SLO_TTFT,
    O_LLM_SLO_TPOT,
    O_LLM_ITER_PROFILE,
    O_LLM_MAX_QUEUE,
    O_LLM_API_PRICE,
    O_LLM_LOAD_SCALE,
    O_LLM_WARMUP,
};

/* The rows of the option table (no terminator), for cmd_replay.c's table. */
#define SIM__CLI_LLM_OPTS                                                                          \
    {"model", O_LLM_MODEL, 1, "a model (llama-3.1-8b-fp8, ...)"},                                  \
        {"gpu", O_LLM_GPU, 1, "a GPU type of the catalog"},                                        \
        {"replicas", O_LLM_REPLICAS, 1, "an integer in [1, 4096]"},                                \
        {"tp", O_LLM_TP, 1, "1, 2, 4 or 8"}, {"batching", O_LLM_BATCHING, 1, "vllm or sarathi"},   \
        {"max-batch", O_LLM_MAX_BATCH, 1, "an integer in [1, 65536]"},                             \
        {"max-tokens", O_LLM_MAX_TOKENS, 1, "an integer in [1, 10^7]"},                            \
        {"chunk", O_LLM_CHUNK, 1, "an integer in [1, 10^7]"},                                      \
        {"block", O_LLM_BLOCK, 1, "an integer in [1, 65536]"},                                     \
        {"kv-dtype", O_LLM_KV_DTYPE, 1, "bf16 or fp8"},                                            \
        {"mem-frac", O_LLM_MEM_FRAC, 1, "a fraction in (0, 1]"},                                   \
        {"route", O_LLM_ROUTE, 1, "least, rr or central"},                                         \
        {"slo-ttft", O_LLM_SLO_TTFT, 1, "seconds > 0"},                                            \
        {"slo-tpot", O_LLM_SLO_TPOT, 1, "seconds > 0"},                                            \
        {"iter-profile", O_LLM_ITER_PROFILE, 1, "a profile CSV file"},                             \
        {"max-queue", O_LLM_MAX_QUEUE, 1, "an integer in [0, 10^9]"},                              \
        {"api-price", O_LLM_API_PRICE, 1, "IN:OUT dollars per million tokens"},                    \
        {"load-scale", O_LLM_LOAD_SCALE, 1, "a factor in [1e-3, 1e3]"},                            \
    {                                                                                              \
        "warmup", O_LLM_WARMUP, 1, "seconds >= 0"                                                  \
    }

#define SIM__CLI_LLM_HELP                                                                          \
    "\n"                                                                                           \
    "Request-level serving (request traces with --fleet, or --protocol serve;\n"                   \
    "docs/llm-serving.md):\n"                                                                      \
    "  --model M               llama-3.1-8b-fp8 (default), llama-3.1-8b, llama-3.1-70b-fp8,\n"     \
    "                          llama-3.1-70b, llama-3.1-405b-fp8\n"                                \
    "  --gpu TYPE              GPU type (default: the fleet's first that fits, else H100)\n"       \
    "  --replicas N            replicas (default: as many as the fleet's GPUs hold, else 1)\n"     \
    "  --tp N                  GPUs per replica, tensor parallel: 1, 2, 4, 8 (1)\n"                \
    "  --batching P            vllm (default) or sarathi (chunked prefill)\n"                      \
    "  --max-batch N           sequences per iteration (256); --max-tokens N: vLLM token\n"        \
    "                          budget (8192); --chunk N: Sarathi chunk (512)\n"                    \
    "  --block N               tokens per KV block (16); --kv-dtype bf16|fp8 (bf16);\n"            \
    "                          --mem-frac F: GPU memory for weights and KV (0.9)\n"                \
    "  --route R               least (outstanding requests, default), rr, central\n"               \
    "  --slo-ttft S, --slo-tpot S  SLOs (2 s, 0.2 s)\n"                                            \
    "  --iter-profile FILE     measured iteration times (CSV) instead of the roofline\n"           \
    "  --max-queue N           a request finding N waiting goes to the API (0: never)\n"           \
    "  --api-price IN:OUT      API $ per million input:output tokens (0:0)\n"                      \
    "  --load-scale X          arrival rate x X (times / X); --warmup S: not counted\n"            \
    "  --bin S                 series bin (10 s for serve)\n"

typedef struct sim__cli_llm {
    const char *model, *gpu, *profile;
    uint32_t replicas, tp; /* 0: not given */
    int kv_fp8;
    double mem_frac, load_scale;
    sim__llm_cfg cfg;
    int given; /* an option of this mode was given */
} sim__cli_llm;

void sim__cli_llm_init(sim__cli_llm *l);
/* Take option `key` with value v: 0, or -1 for a bad value. */
int sim__cli_llm_opt(sim__cli_llm *l, int key, const char *v);
/* Read the request trace, build the deployment (types and GPU counts from
 * fleet when not NULL, else the built-in catalog), run, print the summary
 * (unless quiet) and write the HDF5 file `out` (default tarmac-serve.h5). */
int sim__cli_llm_run(sim__cli_llm *l, const trace_format *fmt, const char *trace,
                     const trace_read_opts *o, const sim_scenario *fleet, double bin_s,
                     const char *out, int quiet, tm_diag *d);

#endif
