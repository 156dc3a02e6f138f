/* Method chains for any partial order: the chain decomposition it works on (minimum, or the
 * order's threads) and its limits, shared with the white-box tests. */
#ifndef HITFAM_GEN_CHAINS_H
#define HITFAM_GEN_CHAINS_H

#include "gen.h"

/* generate() and predict() refuse (HF_ETOOLARGE) when more (chain, tuple) pairs than this would
 * be built: each is one schedule before deduplication, and the dedup set holds 32 bytes per
 * schedule at most (128 MiB at the limit). */
#define HF_I_CHAINS_MAX_SCHEDULES ((uint64_t)1 << 22)
/* predict() runs the construction: it refuses (HF_ETOOLARGE) when (chain, tuple) pairs times
 * the number of events exceeds this (about a tenth of a second of work), so that auto, which
 * predicts every method, stays fast (it then leaves chains out). */
#define HF_I_CHAINS_PREDICT_MAX_WORK ((uint64_t)30000000)

/* When chains * events is at most this, every chain's completion order is kept (4 bytes each)
 * and the tuples are enumerated once, schedules coming tuple by tuple (chains in turn for each);
 * beyond it they come chain by chain, the tuples enumerated again for each chain. */
#define HF_I_CHAINS_SIGMA_BUDGET ((uint64_t)1 << 22)

/* A partition of a set S of events into chains. */
typedef struct hf_i_chains {
    uint32_t count;     /* number of chains */
    uint32_t threads;   /* the first `threads` chains come from thread attributes */
    uint32_t *chain_of; /* n: the chain of each event, HF_NO_EVENT for events outside S */
    uint32_t *off;      /* count + 1 offsets into ev */
    uint32_t *ev;       /* |S| events, chain by chain, each chain in increasing order */
} hf_i_chains;

/* Partition S (the events v with in_set[v] != 0; in_set NULL: every event) into chains.
 * With use_threads and some event of S having a thread: each thread's events in S form one
 * chain (threads numbered in their order, empty ones skipped), and the events of S without a
 * thread are split by a minimum decomposition of the order they induce. Every thread must be a
 * chain (all its events, in S or not): otherwise HF_EINVAL naming the thread and two
 * incomparable events of it. Without threads the decomposition of S is minimum (Dilworth):
 * on forests and in-forests the nearest-S-ancestor tree's leaves each start one chain, O(n);
 * on other orders a maximum matching of the comparability graph (x below y) by Hopcroft-Karp
 * on the closure's bitset rows, O(sqrt(|S|) * |S| * n / 64) word operations plus one step per
 * comparable pair scanned per phase, memory O(n). Caller frees with hf_i_chains_free. */
hf_status hf_i_chains_decompose(const hf_poset *p, const uint8_t *in_set, bool use_threads,
                                hf_i_chains *out, hf_error *err);
void hf_i_chains_free(hf_ctx *ctx, hf_i_chains *c);

/* The method's generation with another sigma budget (0: chain by chain), for tests. */
hf_status hf_i_chains_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink,
                               uint64_t sigma_budget, hf_error *err);

/* Validate the threads of p (each one a chain) before a method uses them; `why` ends the
 * message ("method chains needs the events of a thread to happen one after another"). */
hf_status hf_i_chains_check_threads(const hf_poset *p, const char *why, hf_error *err);

#endif
