/* Interned strings (lib/strtab.h): one copy of each, an index by first addition, and an
 * open-addressing table with linear probing that doubles when half full, its slots keeping
 * hash bits beside the index. */
#include <string.h>

#include "strtab.h"

static inline uint64_t load64(const char *s)
{
    uint64_t v;
    memcpy(&v, s, sizeof v);
    return v;
}

static inline uint64_t load32(const char *s)
{
    uint32_t v;
    memcpy(&v, s, sizeof v);
    return v;
}

uint64_t hf_i_strtab_hash(const char *s, size_t n)
{
    /* eight bytes at a time: most names fit in one word, read with two loads that may overlap
     * (the length, mixed in first, tells such words apart) */
    const uint64_t m = 0x9e3779b97f4a7c15u;
    uint64_t h = (uint64_t)n * m;
    size_t i = 0;
    for (; n - i > 8; i += 8) {
        h = (h ^ load64(s + i)) * m;
        h ^= h >> 29;
    }
    size_t r = n - i;
    uint64_t w;
    if (r >= 4)
        w = load32(s + i) | load32(s + i + r - 4) << 32;
    else if (r > 0)
        w = (uint64_t)(unsigned char)s[i] | (uint64_t)(unsigned char)s[i + r / 2] << 8 |
            (uint64_t)(unsigned char)s[i + r - 1] << 16;
    else
        w = 0;
    h = (h ^ w) * m;
    /* a full avalanche (MurmurHash3's finaliser): names that differ in their last bytes (e1,
     * e2, ...) would otherwise fall in runs of neighbouring slots */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 33);
}

/* A slot: the string's index, and the low half of its hash (which also places it, tables having
 * at most 2^32 slots). */
static inline uint64_t slot_of(uint32_t k, uint64_t h) { return (uint64_t)(uint32_t)h << 32 | k; }

uint32_t hf_i_strtab_find(const hf_i_strtab *t, const char *s, size_t n, size_t *slot)
{
    return t->slots ? hf_i_strtab_find_hashed(t, s, n, hf_i_strtab_hash(s, n), slot) : HF_NO_EVENT;
}

uint32_t hf_i_strtab_find_hashed(const hf_i_strtab *t, const char *s, size_t n, uint64_t h,
                                 size_t *slot)
{
    if (!t->slots)
        return HF_NO_EVENT;
    uint32_t tag = (uint32_t)h;
    size_t i = (size_t)h & t->mask;
    uint32_t k;
    for (;; i = (i + 1) & t->mask) {
        uint64_t e = t->slots[i];
        k = (uint32_t)e;
        if (k == HF_NO_EVENT)
            break;
        if ((uint32_t)(e >> 32) != tag)
            continue;
        /* string k ends where string k + 1 starts, or where the data does */
        size_t at = t->off[k], end = k + 1 < t->count ? t->off[k + 1] : t->data_len;
        if (end - at == n + 1 && memcmp(t->data + at, s, n) == 0)
            break;
    }
    if (slot)
        *slot = i;
    return k;
}

/* Replace the slots by `size` of them (a power of two, at most 2^32), every string placed again
 * by the hash bits its slot keeps. */
static hf_status rehash(hf_ctx *ctx, hf_i_strtab *t, size_t size)
{
    uint64_t *slots = hf_i_alloc_array(ctx, size, sizeof *slots);
    if (!slots)
        return HF_ENOMEM;
    hf_i_advise_huge(slots, size * sizeof *slots);
    memset(slots, 0xff, size * sizeof *slots);
    for (size_t j = 0; t->slots && j <= t->mask; j++) {
        uint64_t e = t->slots[j];
        if ((uint32_t)e == HF_NO_EVENT)
            continue;
        size_t i = (size_t)(e >> 32) & (size - 1);
        while ((uint32_t)slots[i] != HF_NO_EVENT)
            i = (i + 1) & (size - 1);
        slots[i] = e;
    }
    hf_i_free(ctx, t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return HF_OK;
}

/* The table size (a power of two, at least 16) that keeps `count` strings at most half full;
 * 0 past 2^32 slots. */
static size_t size_for(size_t count)
{
    size_t size = 16;
    while (size < 2 * count) {
        if ((uint64_t)size >= (uint64_t)1 << 32 || size > SIZE_MAX / 2)
            return 0;
        size *= 2;
    }
    return size;
}

hf_status hf_i_strtab_index_borrowed(hf_ctx *ctx, const hf_i_strtab *t, hf_i_strtab *index)
{
    *index =
        (hf_i_strtab){.data = t->data, .data_len = t->data_len, .off = t->off, .count = t->count};
    hf_status st = hf_i_strtab_index(ctx, index);
    if (st)
        *index = (hf_i_strtab){0};
    return st;
}

void hf_i_strtab_free_borrowed(hf_ctx *ctx, hf_i_strtab *index)
{
    hf_i_free(ctx, index->slots);
    *index = (hf_i_strtab){0};
}

hf_status hf_i_strtab_reserve(hf_ctx *ctx, hf_i_strtab *t, size_t count)
{
    size_t size = size_for(count);
    if (!size)
        return HF_ENOMEM;
    if (t->indexed < t->count || (t->slots && size <= t->mask + 1))
        return HF_OK; /* (appended strings: hf_i_strtab_index sizes the slots itself) */
    return rehash(ctx, t, size);
}

hf_status hf_i_strtab_add(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, size_t slot)
{
    return hf_i_strtab_add_hashed(ctx, t, s, n, hf_i_strtab_hash(s, n), slot);
}

hf_status hf_i_strtab_add_hashed(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, uint64_t h,
                                 size_t slot)
{
    hf_status st;
    if (t->count >= UINT32_MAX - 1)
        return HF_ENOMEM; /* indices stop short of HF_NO_EVENT */
    if ((st = HF_I_GROW(ctx, t->data, &t->data_cap, t->data_len + n + 1)) ||
        (st = HF_I_GROW(ctx, t->off, &t->off_cap, (size_t)t->count + 1)))
        return st;
    if (!t->slots || 2 * ((size_t)t->count + 1) > t->mask + 1) {
        size_t size = size_for((size_t)t->count + 1);
        if (!size)
            return HF_ENOMEM;
        if ((st = rehash(ctx, t, size)))
            return st;
        hf_i_strtab_find_hashed(t, s, n, h, &slot);
    }
    memcpy(t->data + t->data_len, s, n);
    t->data[t->data_len + n] = '\0';
    t->off[t->count] = t->data_len;
    t->data_len += n + 1;
    t->slots[slot] = slot_of(t->count++, h);
    t->indexed = t->count;
    return HF_OK;
}

hf_status hf_i_strtab_append(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n)
{
    hf_status st;
    if (t->count >= UINT32_MAX - 1)
        return HF_ENOMEM;
    if ((st = HF_I_GROW(ctx, t->data, &t->data_cap, t->data_len + n + 1)) ||
        (st = HF_I_GROW(ctx, t->off, &t->off_cap, (size_t)t->count + 1)))
        return st;
    memcpy(t->data + t->data_len, s, n);
    t->data[t->data_len + n] = '\0';
    t->off[t->count++] = t->data_len;
    t->data_len += n + 1;
    return HF_OK;
}

hf_status hf_i_strtab_index(hf_ctx *ctx, hf_i_strtab *t)
{
    if (t->indexed == t->count)
        return HF_OK;
    hf_status st;
    size_t size = size_for(t->count);
    if (!size)
        return HF_ENOMEM;
    if ((!t->slots || size > t->mask + 1) && (st = rehash(ctx, t, size)))
        return st;
    /* in batches: the hashes of a batch first, its slots fetched, then placed */
    enum { BATCH = 16 };
    uint64_t h[BATCH];
    for (uint32_t k0 = t->indexed; k0 < t->count; k0 += BATCH) {
        uint32_t m = t->count - k0 < BATCH ? t->count - k0 : BATCH;
        for (uint32_t j = 0; j < m; j++) {
            uint32_t k = k0 + j;
            size_t end = k + 1 < t->count ? t->off[k + 1] : t->data_len;
            h[j] = hf_i_strtab_hash(t->data + t->off[k], end - t->off[k] - 1);
#if defined(__GNUC__)
            __builtin_prefetch(&t->slots[(size_t)h[j] & t->mask]);
#endif
        }
        for (uint32_t j = 0; j < m; j++) {
            size_t i = (size_t)h[j] & t->mask;
            while ((uint32_t)t->slots[i] != HF_NO_EVENT)
                i = (i + 1) & t->mask;
            t->slots[i] = slot_of(k0 + j, h[j]);
        }
    }
    t->indexed = t->count;
    return HF_OK;
}

hf_status hf_i_strtab_intern(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, uint32_t *index)
{
    size_t slot = 0;
    uint64_t h = hf_i_strtab_hash(s, n);
    uint32_t k = hf_i_strtab_find_hashed(t, s, n, h, &slot);
    if (k != HF_NO_EVENT) {
        *index = k;
        return HF_OK;
    }
    hf_status st = hf_i_strtab_add_hashed(ctx, t, s, n, h, slot);
    if (!st)
        *index = t->count - 1;
    return st;
}

void hf_i_strtab_free(hf_ctx *ctx, hf_i_strtab *t)
{
    hf_i_free(ctx, t->data);
    hf_i_free(ctx, t->off);
    hf_i_free(ctx, t->slots);
    *t = (hf_i_strtab){0};
}
