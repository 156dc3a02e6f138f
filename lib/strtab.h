/* Interned strings: each distinct string stored once, numbered in the order it was first added,
 * found again through an open-addressing table. Internal: the poset builder's names and labels
 * and the fast DOT reader's attribute values use it. */
#ifndef HITFAM_STRTAB_H
#define HITFAM_STRTAB_H

#include "internal.h"

/* All zero is an empty table. String k is NUL-terminated at data + off[k]; slots (mask + 1 of
 * them, a power of two, at most half full) hold an index in their low 32 bits (HF_NO_EVENT
 * where empty) and the low 32 bits of the string's hash in their high ones, so that a probe
 * reads the bytes of a string only when their hashes agree, and a resize reads no string; they
 * stay NULL until the first string is added. */
typedef struct hf_i_strtab {
    char *data;
    size_t data_len, data_cap;
    size_t *off;
    size_t off_cap;
    uint32_t count;
    uint32_t indexed; /* strings 0..indexed-1 are in the slots (all, but after an append) */
    uint64_t *slots;
    size_t mask;
} hf_i_strtab;

static inline const char *hf_i_strtab_str(const hf_i_strtab *t, uint32_t k)
{
    return t->data + t->off[k];
}

/* The index of s[0..n) (no NUL byte in it), or HF_NO_EVENT; *slot (may be NULL) receives where
 * it is or would go, for hf_i_strtab_add. O(1) expected. */
uint32_t hf_i_strtab_find(const hf_i_strtab *t, const char *s, size_t n, size_t *slot);

/* Add s[0..n), which hf_i_strtab_find just did not find at *slot, as index t->count. Every
 * allocation comes first: HF_ENOMEM leaves the table as it was. */
hf_status hf_i_strtab_add(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, size_t slot);

/* hf_i_strtab_find and hf_i_strtab_add for a caller that has the hash h of s[0..n) already
 * (hf_i_strtab_hash). */
uint32_t hf_i_strtab_find_hashed(const hf_i_strtab *t, const char *s, size_t n, uint64_t h,
                                 size_t *slot);
hf_status hf_i_strtab_add_hashed(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, uint64_t h,
                                 size_t slot);

/* Ask for the slot where a string of hash h would be looked up first, ahead of the lookup: a
 * caller reading names from a text prefetches those it is about to look up. */
static inline void hf_i_strtab_prefetch(const hf_i_strtab *t, uint64_t h)
{
#if defined(__GNUC__)
    if (t->slots)
        __builtin_prefetch(&t->slots[(size_t)h & t->mask]);
#else
    (void)t;
    (void)h;
#endif
}

/* Append s[0..n), which the caller knows is not in the table, as index t->count, without placing
 * it in the slots: a reader with a table of its own over the same names adds them at the cost of
 * a copy, and hf_i_strtab_index places them all at once later. Until then the find, add and
 * intern functions must not be called. HF_ENOMEM leaves the table as it was. */
hf_status hf_i_strtab_append(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n);

/* Place the appended strings in the slots (the table grown first when they need room), reading
 * their bytes in order and the slots in batches fetched ahead. HF_ENOMEM leaves the table as it
 * was. O(strings appended) expected, plus the table's size when it grows. */
hf_status hf_i_strtab_index(hf_ctx *ctx, hf_i_strtab *t);

/* The first string whose slot keeps the low 32 bits of hash h, on the probe path of h, or
 * HF_NO_EVENT at the first empty slot: the string hf_i_strtab_find_hashed would compare first,
 * without reading any string's bytes (a caller resolving many names prefetches the records it
 * keeps for these candidates, then compares). */
static inline uint32_t hf_i_strtab_candidate(const hf_i_strtab *t, uint64_t h)
{
    if (!t->slots)
        return HF_NO_EVENT;
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        uint64_t e = t->slots[i];
        if ((uint32_t)e == HF_NO_EVENT || (uint32_t)(e >> 32) == (uint32_t)h)
            return (uint32_t)e;
    }
}

/* A new table in *index over the strings of t, borrowed (its data and off are t's, which must
 * outlive it and not change), every one placed in slots of its own: a lookup index for a table
 * whose appended strings wait (hf_i_strtab_append) and which is not to change, as a finished
 * poset's names read from several threads. Free it with hf_i_strtab_free_borrowed. HF_ENOMEM
 * leaves *index empty. O(strings). */
hf_status hf_i_strtab_index_borrowed(hf_ctx *ctx, const hf_i_strtab *t, hf_i_strtab *index);

/* Frees what hf_i_strtab_index_borrowed made (the slots: the strings are t's) and empties it. */
void hf_i_strtab_free_borrowed(hf_ctx *ctx, hf_i_strtab *index);

/* Room in the slots for `count` strings at once (the table grown to the size that many need,
 * never shrunk), for a caller that expects them: the table skips the steps of growth between.
 * Does nothing while appended strings wait to be placed. HF_ENOMEM leaves the table as it was.
 * O(strings in the table + the new size). */
hf_status hf_i_strtab_reserve(hf_ctx *ctx, hf_i_strtab *t, size_t count);

/* The index of s[0..n) in *index, added when new. */
hf_status hf_i_strtab_intern(hf_ctx *ctx, hf_i_strtab *t, const char *s, size_t n, uint32_t *index);

/* Frees the arrays and empties the table. */
void hf_i_strtab_free(hf_ctx *ctx, hf_i_strtab *t);

/* The hash the table uses, for callers keeping tables of their own over the same strings. */
uint64_t hf_i_strtab_hash(const char *s, size_t n);

#endif /* HITFAM_STRTAB_H */
