/* Interned strings (lib/strtab.h): one copy of each, an index by first addition, and an
 * open-addressing table with linear probing that doubles when half full. */
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

uint32_t hf_i_strtab_find(const hf_i_strtab *t, const char *s, size_t n, size_t *slot)
{
    if (!t->slots)
        return HF_NO_EVENT;
    size_t i = (size_t)hf_i_strtab_hash(s, n) & t->mask;
    for (;; i = (i + 1) & t->mask) {
        uint32_t k = t->slots[i];
        if (k == HF_NO_EVENT)
            break;
        const char *v = t->data + t->off[k];
        if (strncmp(v, s, n) == 0 && v[n] == '\0')
            break;
    }
    if (slot)
        *slot = i;
    return t->slots[i];
}

/* Replace the slots by `size` of them (a power of two), every string placed again. */
static hf_status rehash(hf_ctx *ctx, hf_i_strtab *t, size_t size)
{
    uint32_t *slots = hf_i_alloc_array(ctx, size, sizeof *slots);
    if (!slots)
        return HF_ENOMEM;
    memset(slots, 0xff, size * sizeof *slots);
    for (uint32_t k = 0; k < t->count; k++) {
        const char *v = t->data + t->off[k];
        size_t i = (size_t)hf_i_strtab_hash(v, strlen(v)) & (size - 1);
        while (slots[i] != HF_NO_EVENT)
            i = (i + 1) & (size - 1);
        slots[i] = k;
    }
    hf_i_free(ctx, t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return HF_OK;
}

hf_status hf_i_strtab_add(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, size_t slot)
{
    hf_status st;
    if ((st = HF_I_GROW(ctx, t->data, &t->data_cap, t->data_len + n + 1)) ||
        (st = HF_I_GROW(ctx, t->off, &t->off_cap, (size_t)t->count + 1)))
        return st;
    if (!t->slots || 2 * ((size_t)t->count + 1) > t->mask + 1) {
        if ((st = rehash(ctx, t, t->slots ? 2 * (t->mask + 1) : 16)))
            return st;
        hf_i_strtab_find(t, s, n, &slot);
    }
    memcpy(t->data + t->data_len, s, n);
    t->data[t->data_len + n] = '\0';
    t->off[t->count] = t->data_len;
    t->data_len += n + 1;
    t->slots[slot] = t->count++;
    return HF_OK;
}

hf_status hf_i_strtab_intern(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, uint32_t *index)
{
    size_t slot = 0;
    uint32_t k = hf_i_strtab_find(t, s, n, &slot);
    if (k != HF_NO_EVENT) {
        *index = k;
        return HF_OK;
    }
    hf_status st = hf_i_strtab_add(ctx, t, s, n, slot);
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
