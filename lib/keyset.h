/* A set of 128-bit keys (hashes of schedules), open addressing with linear probing: how methods
 * pattern and chains tell a schedule they already emitted from a new one without keeping it. */
#ifndef HITFAM_KEYSET_H
#define HITFAM_KEYSET_H

#include "internal.h"

/* a == 0 marks an empty slot: callers never produce it */
typedef struct hf_i_key {
    uint64_t a, b;
} hf_i_key;

typedef struct hf_i_keyset {
    hf_i_key *slot;
    size_t cap, used;
} hf_i_keyset;

/* Insert k (k.a != 0); *fresh tells whether it was new. HF_ENOMEM when the table cannot grow
 * (the set is unchanged). Amortised O(1); at most half the slots are used. */
hf_status hf_i_keyset_add(hf_ctx *ctx, hf_i_keyset *s, hf_i_key k, bool *fresh);
void hf_i_keyset_free(hf_ctx *ctx, hf_i_keyset *s);

/* The 64-bit finaliser of MurmurHash3: a bijection that spreads every input bit. */
static inline uint64_t hf_i_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

#endif
