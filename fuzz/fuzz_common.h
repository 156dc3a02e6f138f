/* Shared by the family and verify fuzz targets: a small fixed order with awkward names.
 * Built once per input through the public builder, so every run is independent. */
#ifndef HITFAM_FUZZ_COMMON_H
#define HITFAM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/hitfam.h>

/* Six events: names that need quoting, a keyword, a numeral, the empty name and UTF-8. The order
 * is a small non-forest (x below both "a b" and "node"; both below "\"q\"") plus an isolated pair.
 */
static hf_poset *fuzz_fixed_poset(void)
{
    static const char *const names[] = {"x", "a b", "node", "\"q\"\\n", "", "\xc3\xa9\x31"};
    static const uint32_t edges[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {4, 5}};
    hf_poset_builder *b = NULL;
    hf_poset *p = NULL;
    if (hf_poset_builder_new(NULL, &b) != HF_OK)
        abort();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (hf_poset_builder_add_event(b, names[i], NULL) != HF_OK)
            abort();
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        if (hf_poset_builder_add_order(b, edges[i][0], edges[i][1]) != HF_OK)
            abort();
    if (hf_poset_builder_finish(b, &p, NULL) != HF_OK)
        abort();
    hf_poset_builder_free(b);
    return p;
}

/* The reader promises that every schedule lists each event exactly once. */
static void fuzz_check_permutations(const hf_poset *p, const hf_family *f)
{
    uint32_t n = hf_poset_size(p);
    if (hf_family_events(f) != n)
        abort();
    unsigned char *seen = malloc(n ? n : 1);
    if (seen == NULL)
        abort();
    for (size_t i = 0; i < hf_family_size(f); i++) {
        const uint32_t *s = hf_family_schedule(f, i);
        memset(seen, 0, n ? n : 1);
        for (uint32_t k = 0; k < n; k++) {
            if (s[k] >= n || seen[s[k]])
                abort();
            seen[s[k]] = 1;
        }
    }
    free(seen);
}

/* The bin checksum as docs/formats.md defines it, written into the last 8 of @p len >= 8 bytes
 * (the bin targets fix it so that their inputs get past the check). */
static inline void fuzz_fix_checksum(uint8_t *b, size_t len)
{
    uint64_t h = 0x6a09e667f3bcc908u;
    size_t body = len - 8;
    for (size_t i = 0; i < body; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++)
            w |= (uint64_t)(i + k < body ? b[i + k] : 0) << (8 * k);
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
        h ^= h >> 29;
    }
    h = (h ^ (uint64_t)body) * 0xd6e8feb86659fd93u;
    h ^= h >> 32;
    for (int k = 0; k < 8; k++)
        b[body + (size_t)k] = (uint8_t)(h >> (8 * k));
}

#endif
