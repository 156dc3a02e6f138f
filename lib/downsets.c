/* The table of down-sets of lib/downsets.h: linear probing over slots that keep the high half
 * of each key's hash, so that most mismatches are told without reading the key. */
#include <string.h>

#include "downsets.h"

#define SLOT_EMPTY  UINT64_MAX
#define TAG_MASK    UINT64_C(0xffffffff00000000)
#define FIRST_SLOTS 64u

/* The probe loop is the hot path of every dynamic program over down-sets: inlined into both
 * callers it costs a few percent less on the preemption counts. */
#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

void hf_i_downsets_init(hf_i_downsets *t, size_t words, size_t val_size)
{
    memset(t, 0, sizeof *t);
    t->words = words ? words : 1;
    t->val_size = val_size;
}

void hf_i_downsets_clear(hf_ctx *ctx, hf_i_downsets *t)
{
    hf_i_free(ctx, t->keys);
    hf_i_free(ctx, t->vals);
    hf_i_free(ctx, t->slot);
    hf_i_downsets_init(t, t->words, t->val_size);
}

static uint64_t hash_key(const hf_word *w, size_t words)
{
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < words; i++) {
        h ^= w[i];
        h *= UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 29;
    }
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    return h ^ (h >> 32);
}

static bool same_key(const hf_word *a, const hf_word *b, size_t words)
{
    size_t w = 0;
    while (w < words && a[w] == b[w])
        w++;
    return w == words;
}

/* The slot holding `key`, or the empty slot where it would go. */
ALWAYS_INLINE size_t probe(const hf_i_downsets *t, const hf_word *key, uint64_t h)
{
    size_t i = (size_t)h & t->mask;
    for (; t->slot[i] != SLOT_EMPTY; i = (i + 1) & t->mask) {
        if ((t->slot[i] ^ h) & TAG_MASK)
            continue;
        if (same_key(hf_i_downsets_key(t, (size_t)(t->slot[i] & ~TAG_MASK)), key, t->words))
            break;
    }
    return i;
}

static hf_status rehash(hf_ctx *ctx, hf_i_downsets *t, size_t size)
{
    uint64_t *slot = hf_i_alloc_array(ctx, size, sizeof *slot);
    if (!slot)
        return HF_ENOMEM;
    memset(slot, 0xff, size * sizeof *slot);
    for (size_t e = 0; e < t->count; e++) {
        uint64_t h = hash_key(hf_i_downsets_key(t, e), t->words);
        size_t i = (size_t)h & (size - 1);
        while (slot[i] != SLOT_EMPTY)
            i = (i + 1) & (size - 1);
        slot[i] = (h & TAG_MASK) | e;
    }
    hf_i_free(ctx, t->slot);
    t->slot = slot;
    t->mask = size - 1;
    return HF_OK;
}

size_t hf_i_downsets_find(const hf_i_downsets *t, const hf_word *key)
{
    if (!t->slot)
        return SIZE_MAX;
    size_t i = probe(t, key, hash_key(key, t->words));
    return t->slot[i] == SLOT_EMPTY ? SIZE_MAX : (size_t)(t->slot[i] & ~TAG_MASK);
}

static hf_status grow(hf_ctx *ctx, hf_i_downsets *t)
{
    size_t cap = t->cap ? 2 * t->cap : 64;
    if (cap > SIZE_MAX / t->words)
        return HF_ENOMEM;
    hf_word *keys = hf_i_realloc_array(ctx, t->keys, cap * t->words, sizeof *keys);
    if (!keys)
        return HF_ENOMEM;
    t->keys = keys;
    if (t->val_size) {
        /* values move by their bytes: big numbers (mpz_t) may, as long as the old copy is
         * not used again */
        void *vals = hf_i_realloc_array(ctx, t->vals, cap, t->val_size);
        if (!vals)
            return HF_ENOMEM;
        t->vals = vals;
    }
    t->cap = cap;
    return HF_OK;
}

/* hf_i_downsets_add, inlined into both adders: the mpz one is the inner loop of the counts. */
ALWAYS_INLINE hf_status add(hf_ctx *ctx, hf_i_downsets *t, const hf_word *key, size_t *room,
                            size_t *at, bool *fresh)
{
    if (!t->slot || 2 * (t->count + 1) > t->mask + 1) {
        hf_status st = rehash(ctx, t, t->slot ? 2 * (t->mask + 1) : FIRST_SLOTS);
        if (st)
            return st;
    }
    uint64_t h = hash_key(key, t->words);
    size_t i = probe(t, key, h);
    if (t->slot[i] != SLOT_EMPTY) {
        *at = (size_t)(t->slot[i] & ~TAG_MASK);
        *fresh = false;
        return HF_OK;
    }
    if (!*room || t->count >= UINT32_MAX)
        return HF_ETOOLARGE;
    if (t->count == t->cap) {
        hf_status st = grow(ctx, t);
        if (st)
            return st;
    }
    memcpy(t->keys + t->count * t->words, key, t->words * sizeof *key);
    t->slot[i] = (h & TAG_MASK) | t->count;
    *at = t->count++;
    (*room)--;
    *fresh = true;
    return HF_OK;
}

hf_status hf_i_downsets_add(hf_ctx *ctx, hf_i_downsets *t, const hf_word *key, size_t *room,
                            size_t *at, bool *fresh)
{
    return add(ctx, t, key, room, at, fresh);
}

hf_status hf_i_downsets_add_mpz(hf_ctx *ctx, hf_i_downsets *t, const hf_word *key, const mpz_t v,
                                bool negate, size_t *room)
{
    size_t i;
    bool fresh;
    hf_status st = add(ctx, t, key, room, &i, &fresh);
    if (st)
        return st;
    mpz_t *val = hf_i_downsets_mpz(t);
    if (fresh) {
        mpz_init_set(val[i], v);
        if (negate)
            mpz_neg(val[i], val[i]);
    } else if (negate)
        mpz_sub(val[i], val[i], v);
    else
        mpz_add(val[i], val[i], v);
    return HF_OK;
}

void hf_i_downsets_clear_mpz(hf_ctx *ctx, hf_i_downsets *t)
{
    mpz_t *val = hf_i_downsets_mpz(t);
    for (size_t i = 0; i < t->count; i++)
        mpz_clear(val[i]);
    hf_i_downsets_clear(ctx, t);
}
