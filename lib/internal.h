/* Internal declarations shared by the library's modules: context, allocation, bitsets, the poset
 * layout, and error formatting. Nothing here is part of the public API. */
#ifndef HITFAM_INTERNAL_H
#define HITFAM_INTERNAL_H

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hitfam/hitfam.h"

#if defined(__GNUC__)
#define HF_I_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define HF_I_PRINTF(f, a)
#endif

struct hf_ctx {
    hf_allocator alloc;
    hf_log_fn log;
    void *log_user;
    hf_progress_fn progress;
    void *progress_user;
};

/* Report progress (hf_ctx_set_progress): HF_OK to go on; HF_EABORTED, explained in err, when the
 * callback asks to stop. Costs a test when no callback is set. */
hf_status hf_i_progress_report(hf_ctx *ctx, const char *task, uint64_t done, uint64_t total,
                               hf_error *err);
static inline hf_status hf_i_progress(hf_ctx *ctx, const char *task, uint64_t done, uint64_t total,
                                      hf_error *err)
{
    return ctx && ctx->progress ? hf_i_progress_report(ctx, task, done, total, err) : HF_OK;
}

/* Allocation through the context (NULL ctx: the C allocator). Sizes are checked for overflow:
 * hf_i_alloc_array returns NULL when count * size overflows. */
void *hf_i_malloc(hf_ctx *ctx, size_t size);
void *hf_i_calloc(hf_ctx *ctx, size_t count, size_t size);
void *hf_i_alloc_array(hf_ctx *ctx, size_t count, size_t size);
void *hf_i_realloc_array(hf_ctx *ctx, void *ptr, size_t count, size_t size);
void hf_i_free(hf_ctx *ctx, void *ptr);
char *hf_i_strdup(hf_ctx *ctx, const char *s);
/* Ask the system to back the 2 MiB pages lying wholly inside p[0..bytes) by huge pages: a table
 * probed at random then costs far fewer TLB misses. Only advice (the memory comes from the
 * context's allocator, and may be no anonymous mapping): an error changes nothing. */
void hf_i_advise_huge(void *p, size_t bytes);
void hf_i_log(hf_ctx *ctx, hf_log_level level, const char *fmt, ...) HF_I_PRINTF(3, 4);

/* Grow the dynamic array `arr` (an lvalue of any object-pointer type, NULL when empty) so that
 * it holds at least `need` items, doubling the capacity `*cap`; the item size is the array's own
 * (sizeof *arr). On failure arr and *cap are untouched and HF_ENOMEM is returned. */
#define HF_I_GROW(ctx, arr, cap, need)                                                             \
    hf_i_grow_slot((ctx), (void *)&(arr), (cap), (need), sizeof *(arr))
hf_status hf_i_grow_slot(hf_ctx *ctx, void *slot, size_t *cap, size_t need, size_t item_size);
/* The capacity an array of `cap` items of item_size bytes grows to for `need` items: doubled
 * from cap (8 when 0) until it holds them; 0 when its bytes would pass SIZE_MAX / 2. */
size_t hf_i_grown_cap(size_t cap, size_t need, size_t item_size);

/* Read all of `in` into a new buffer (*buf, freed with hf_i_free; *len bytes). HF_ENOMEM or
 * HF_EIO (a read error) leave nothing allocated; the caller words the message. */
hf_status hf_i_read_all(hf_ctx *ctx, FILE *in, char **buf, size_t *len);

/* Error text: set err (may be NULL) and return status. */
hf_status hf_i_fail(hf_error *err, hf_status status, int line, int column, const char *fmt, ...)
    HF_I_PRINTF(5, 6);
void hf_i_error_clear(hf_error *err);

/* Names: DOT identifiers and numerals are written bare, everything else quoted with \" \\ \n
 * escapes. hf_i_name_quote writes into buf (always NUL-terminated, truncated with "..." when it
 * does not fit) and returns buf: for messages. */
bool hf_i_name_is_bare(const char *name);
const char *hf_i_name_quote(const char *name, char *buf, size_t cap);

/* Make p ready for lookups by name (lib/poset_query.c, hf_i_poset_names_index): HF_OK, or
 * HF_ENOMEM. Readers of names call it before their first lookup, so that a failure is reported as
 * out of memory rather than as an unknown name. */
hf_status hf_i_poset_index_names(const hf_poset *p);
/* Write the name, quoted if needed, to a stream. Returns false on a write error. */
bool hf_i_name_write(FILE *out, const char *name);
/* Write s as a DOT ID that Graphviz reads back as exactly s (bare, "quoted" or <angled>).
 * node_name: also refuse a leading '%' (Graphviz renames such nodes). HF_EUNSUPPORTED (nothing
 * written) when no form reads back as s; HF_EIO; HF_ENOMEM. hf_i_dot_id_check: the same test
 * without writing. O(|s|). */
hf_status hf_i_dot_id_write(hf_ctx *ctx, FILE *out, const char *s, bool node_name);
hf_status hf_i_dot_id_check(hf_ctx *ctx, const char *s, bool node_name);
/* Graphviz's value of the quoted string whose text starts at t, after the opening quote: the
 * bytes consumed through the closing quote (0 when it is missing), the value in out (room for
 * 2 * len + 1 bytes) and its length in *out_len. */
size_t hf_i_dot_quoted_value(const char *t, size_t len, char *out, size_t *out_len);

/* The one "no id" value of every uint32_t index of the library (an event, a row, a slot, a
 * down-set): HF_NO_EVENT. */
#define NONE HF_NO_EVENT

/* Bitsets of 64-bit words. */
typedef uint64_t hf_word;
#define HF_WORD_BITS 64u
static inline size_t hf_i_words(size_t nbits) { return (nbits + HF_WORD_BITS - 1) / HF_WORD_BITS; }
static inline void hf_i_bit_set(hf_word *w, size_t i) { w[i / 64] |= (hf_word)1 << (i % 64); }
static inline void hf_i_bit_clear(hf_word *w, size_t i) { w[i / 64] &= ~((hf_word)1 << (i % 64)); }
static inline bool hf_i_bit_test(const hf_word *w, size_t i)
{
    return (w[i / 64] >> (i % 64)) & 1u;
}

/* Number of set bits, and index of the lowest set bit (x != 0). */
static inline unsigned hf_i_popcount(hf_word x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_popcountll(x);
#else
    unsigned c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
#endif
}

static inline unsigned hf_i_ctz(hf_word x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned c = 0;
    for (; !(x & 1u); x >>= 1)
        c++;
    return c;
#endif
}

/* Unordered, and (hf_poset_conflict) touching one object with at least one write; every
 * unordered pair when no event has an object. O(1). */
bool hf_i_conflict(const hf_poset *p, uint32_t a, uint32_t b);

/* Strictly below, O(1) (every finished poset has forest views or a closure). */
bool hf_i_less(const hf_poset *p, uint32_t a, uint32_t b);

/* OR the strict down-set of v ({u : u < v}) into the bitset `set` (n bits). `set` must be
 * down-closed already (for forests the walk stops at the first bit already set).
 * O(depth) for forests, O(n/64) with a closure, O(|down-set| + edges) for in-forests. */
void hf_i_or_down_set(const hf_poset *p, uint32_t v, hf_word *set);

/* The arguments most entry points share: d in 1..HF_MAX_D, and focus_count ids below the order's
 * size in focus (NULL only when focus_count is 0). HF_EINVAL with the message, else HF_OK. */
hf_status hf_i_check_d_focus(const hf_poset *p, unsigned d, const uint32_t *focus,
                             size_t focus_count, hf_error *err);

/* Check that s is a permutation of 0..n-1 and respects the order; explains in err. The schedule
 * is named "schedule <index+1>" and, if line > 0, located at that line. */
hf_status hf_i_schedule_check(const hf_poset *p, const uint32_t *s, size_t index, int line,
                              hf_error *err);

#endif /* HITFAM_INTERNAL_H */
