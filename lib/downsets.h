/* A table of down-sets keyed by their bitsets: the one open-addressing table behind the dynamic
 * programs over down-sets (linear extensions, uniform sampling, hit probabilities, traces and
 * preemption counts). Each set gets an index in the order of insertion, and optionally a value
 * of the user's choosing (a big number, a double, ...) stored beside its key. */
#ifndef HITFAM_DOWNSETS_H
#define HITFAM_DOWNSETS_H

#include <stdio.h> /* before gmp.h, which declares its FILE functions only after it */

#include <gmp.h>

#include "internal.h"
#include "poset_i.h"

typedef struct hf_i_downsets {
    size_t words;    /* words of a key: the bitset, then any extra state the user keys on */
    size_t val_size; /* bytes of a set's value (0: no values) */
    size_t count, cap;
    hf_word *keys;  /* cap * words: key i at keys + i * words */
    void *vals;     /* cap * val_size bytes: the user initialises and clears the values */
    uint64_t *slot; /* (high half of the hash) | index; UINT64_MAX when empty */
    size_t mask;    /* slots - 1 (0 without slots) */
} hf_i_downsets;

/* An empty table of keys of `words` words (at least 1), values of val_size bytes. */
void hf_i_downsets_init(hf_i_downsets *t, size_t words, size_t val_size);
/* Free the keys, values and slots (the values' own resources are the user's to release first);
 * the table is then empty, with the same sizes. */
void hf_i_downsets_clear(hf_ctx *ctx, hf_i_downsets *t);
/* The index of `key`, or SIZE_MAX when absent. O(words) expected. */
size_t hf_i_downsets_find(const hf_i_downsets *t, const hf_word *key);
/* The index of `key` in *at, adding it when absent (*fresh then true, and its value is left for
 * the user to initialise). A set is added only while *room is non-zero, which each addition
 * decrements (one budget may serve several tables); HF_ETOOLARGE otherwise, or past 2^32 - 1
 * sets. HF_ENOMEM when the table cannot grow (it is unchanged). O(words) amortised; at most
 * half the slots are used. */
hf_status hf_i_downsets_add(hf_ctx *ctx, hf_i_downsets *t, const hf_word *key, size_t *room,
                            size_t *at, bool *fresh);

static inline const hf_word *hf_i_downsets_key(const hf_i_downsets *t, size_t i)
{
    return t->keys + i * t->words;
}

/* Whether x is outside the down-set `set` with all its predecessors inside: set + x is a
 * down-set too. O(predecessors of x). */
static inline bool hf_i_downsets_minimal_outside(const hf_poset *p, const hf_word *set, uint32_t x)
{
    if (hf_i_bit_test(set, x))
        return false;
    for (size_t i = p->pred_off[x]; i < p->pred_off[x + 1]; i++)
        if (!hf_i_bit_test(set, p->pred[i]))
            return false;
    return true;
}

/* Tables whose values are big numbers (val_size sizeof(mpz_t)). */
static inline mpz_t *hf_i_downsets_mpz(const hf_i_downsets *t) { return t->vals; }
/* Add v (negate: subtract it) to the value of key, the set added as by hf_i_downsets_add with
 * the value 0 when absent. */
hf_status hf_i_downsets_add_mpz(hf_ctx *ctx, hf_i_downsets *t, const hf_word *key, const mpz_t v,
                                bool negate, size_t *room);
/* Clear every value, then the table as hf_i_downsets_clear. */
void hf_i_downsets_clear_mpz(hf_ctx *ctx, hf_i_downsets *t);

#endif
