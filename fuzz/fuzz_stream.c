/* Fuzz target: the streaming family reader (hitfam/stream.h) against the whole-input reader
 * (hf_family_read_mem). stream.h promises the same checks, messages and line numbers, so on
 * every input both must give the same status, error (text, line, column), and on success the
 * same header (d, count, rows) and the same schedules, in order, read from the same lines. The
 * streaming read runs at a chunk size drawn from the input (1 byte up to a few hundred, sometimes
 * large or 0, the whole buffer in place), after a read in place, and now and then from a
 * seekable FILE (fmemopen) at that chunk size, and then read whole from it by
 * hf_family_read_file (which reads through the same window into a family).
 *
 * Layout: byte 0 and 1 pick the chunk size; byte 2 picks the order (bits 0-1), whether a bin
 * input's trailer checksum is made right first (bit 2, as fuzz_family_bin does, so that the checks
 * behind it are reached), whether the FILE path runs too (bit 3) and after how many schedules
 * (bits 4-7, 15: never) the consumer stops the streaming read; the rest is the family, in
 * whatever format its first bytes say (text, ids, JSON or bin), as both readers decide it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/stream.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one read gave. The schedules are kept in a family of the order's size. */
typedef struct fuzz_outcome {
    hf_status st;
    hf_error err;
    hf_family_header h;
    hf_family *f;
    size_t *lines;
    size_t lines_cap;
    size_t stop_at; /* the consumer refuses schedule stop_at (SIZE_MAX: never) */
} fuzz_outcome;

static void fuzz_outcome_init(fuzz_outcome *o, uint32_t n, size_t stop_at)
{
    memset(o, 0, sizeof *o);
    if (hf_family_new(NULL, n, &o->f) != HF_OK)
        abort();
    o->stop_at = stop_at;
}

static void fuzz_outcome_free(fuzz_outcome *o)
{
    hf_family_free(o->f);
    free(o->lines);
}

static hf_status fuzz_collect(void *user, const uint32_t *s, uint32_t n, size_t index, size_t line)
{
    fuzz_outcome *o = user;
    if (n != hf_family_events(o->f) || index != hf_family_size(o->f))
        abort(); /* every schedule has n events, and they come in order */
    if (index == o->stop_at)
        return HF_EABORTED;
    if (index == o->lines_cap) {
        size_t cap = o->lines_cap ? 2 * o->lines_cap : 16;
        size_t *grown = realloc(o->lines, cap * sizeof *grown);
        if (grown == NULL)
            abort();
        o->lines = grown;
        o->lines_cap = cap;
    }
    o->lines[index] = line;
    if (hf_family_append(o->f, s) != HF_OK)
        abort();
    return HF_OK;
}

static void fuzz_same_error(const fuzz_outcome *a, const fuzz_outcome *b)
{
    if (strcmp(a->err.text, b->err.text) != 0 || a->err.line != b->err.line ||
        a->err.column != b->err.column)
        abort();
}

/* The schedules of `whole` (read by hf_family_read_mem) up to `count`, with their lines. */
static void fuzz_same_schedules(const hf_family *whole, const fuzz_outcome *part, size_t count)
{
    uint32_t n = hf_family_events(whole);
    if (hf_family_size(part->f) != count || count > hf_family_size(whole))
        abort();
    for (size_t i = 0; i < count; i++) {
        if (memcmp(hf_family_schedule(whole, i), hf_family_schedule(part->f, i),
                   n * sizeof(uint32_t)) != 0)
            abort();
        if (hf_family_schedule_line(whole, i) != part->lines[i])
            abort();
    }
}

static size_t fuzz_min(size_t a, size_t b) { return a < b ? a : b; }

/* The first `count` schedules of two streaming reads, with their lines. */
static void fuzz_same_prefix(const fuzz_outcome *a, const fuzz_outcome *b, size_t count)
{
    uint32_t n = hf_family_events(a->f);
    if (hf_family_size(a->f) < count || hf_family_size(b->f) < count)
        abort();
    for (size_t i = 0; i < count; i++)
        if (memcmp(hf_family_schedule(a->f, i), hf_family_schedule(b->f, i),
                   n * sizeof(uint32_t)) != 0 ||
            a->lines[i] != b->lines[i])
            abort();
}

/* Compare a streaming read with the whole read (and, before an error, with the streaming read
 * `ref` of the buffer in place, when given). A consumer that stops the reading at schedule k
 * makes the stream return its status (HF_EABORTED, which neither reader gives of its own) after
 * handing out k schedules: when the whole read succeeds they are its first k, and the family has
 * more than k. Otherwise the status, message, line and column must be the whole read's, and on
 * success the same header (d, count, rows; method NULL) and every schedule with its line. Schedules
 * handed out before an error have no counterpart in the whole read (it keeps none: stream.h allows
 * them), and how many come out depends on the chunk (in place, a bin family's truncation is seen
 * before its first row; read in chunks, only at the row that is missing), so of two such reads the
 * shorter must be the start of the longer. */
static void fuzz_compare(hf_status whole_st, const hf_family *whole, const fuzz_outcome *whole_o,
                         const fuzz_outcome *part, const fuzz_outcome *ref)
{
    if (part->st == HF_EABORTED) {
        if (part->stop_at == SIZE_MAX || hf_family_size(part->f) != part->stop_at)
            abort();
        if (whole_st == HF_OK) {
            if (part->stop_at >= hf_family_size(whole))
                abort(); /* the stream got further than the whole read */
            fuzz_same_schedules(whole, part, part->stop_at);
        } else if (ref != NULL) {
            fuzz_same_prefix(part, ref, fuzz_min(part->stop_at, hf_family_size(ref->f)));
        }
        return;
    }
    if (part->st != whole_st)
        abort();
    if (whole_st != HF_OK) {
        fuzz_same_error(whole_o, part);
        if (ref != NULL)
            fuzz_same_prefix(part, ref, fuzz_min(hf_family_size(part->f), hf_family_size(ref->f)));
        return;
    }
    if (part->stop_at < hf_family_size(whole))
        abort(); /* the consumer should have been asked for that schedule */
    const hf_family_header *a = &whole_o->h, *b = &part->h;
    if (b->d != a->d || b->schedules_known != a->schedules_known || b->schedules != a->schedules ||
        b->row_first != a->row_first || b->row_last != a->row_last || b->method != NULL)
        abort();
    fuzz_same_schedules(whole, part, hf_family_size(whole));
}

/* Orders: the six awkward events of the other family targets, a chain of numerals (names that
 * the ids format could mistake for ids), and a single event. */
static hf_poset *fuzz_order(unsigned which)
{
    if (which % 3 == 0)
        return fuzz_fixed_poset();
    static const char *const chain[] = {"1", "0", "2", "10"};
    size_t count = which % 3 == 1 ? 4 : 1;
    hf_poset_builder *b = NULL;
    hf_poset *p = NULL;
    if (hf_poset_builder_new(NULL, &b) != HF_OK)
        abort();
    for (size_t i = 0; i < count; i++)
        if (hf_poset_builder_add_event(b, chain[i], NULL) != HF_OK)
            abort();
    for (size_t i = 1; i < count; i++)
        if (hf_poset_builder_add_order(b, (uint32_t)(i - 1), (uint32_t)i) != HF_OK)
            abort();
    if (hf_poset_builder_finish(b, &p, NULL) != HF_OK)
        abort();
    hf_poset_builder_free(b);
    return p;
}

/* 1..384 bytes mostly; one input in eight a large chunk or 0 (the buffer in place). */
static size_t fuzz_chunk(unsigned v)
{
    static const size_t large[] = {0, 4096, HF_STREAM_CHUNK, 1u << 20};
    if ((v >> 13) == 7)
        return large[v & 3];
    return 1 + v % 384;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t chunk = fuzz_chunk((unsigned)data[0] | (unsigned)data[1] << 8);
    unsigned flags = data[2];
    data += 3;
    size = size - 3;
    /* an exact-size copy (a checksum may be fixed in it; ASan sees a read past its end) */
    uint8_t *copy = malloc(size ? size : 1);
    if (copy == NULL)
        abort();
    if (size > 0)
        memcpy(copy, data, size);
    if ((flags & 4) && size >= 12 && memcmp(copy, "\x89HFB", 4) == 0)
        fuzz_fix_checksum(copy, size);
    size_t stop = (flags >> 4) == 15 ? SIZE_MAX : (flags >> 4);

    hf_poset *p = fuzz_order(flags & 3);
    uint32_t n = hf_poset_size(p);
    fuzz_outcome whole_o;
    memset(&whole_o, 0, sizeof whole_o);
    hf_family *whole = NULL;
    hf_status st =
        hf_family_read_mem(p, (const char *)copy, size, &whole, &whole_o.h, &whole_o.err);
    if ((st == HF_OK) != (whole != NULL))
        abort();
    if (st == HF_OK)
        fuzz_check_permutations(p, whole);

    /* the buffer in place first: the reference for what comes before an error */
    fuzz_outcome ref;
    fuzz_outcome_init(&ref, n, SIZE_MAX);
    ref.st =
        hf_family_stream_mem(p, (const char *)copy, size, 0, fuzz_collect, &ref, &ref.h, &ref.err);
    fuzz_compare(st, whole, &whole_o, &ref, NULL);

    fuzz_outcome part;
    fuzz_outcome_init(&part, n, stop);
    part.st = hf_family_stream_mem(p, (const char *)copy, size, chunk, fuzz_collect, &part, &part.h,
                                   &part.err);
    fuzz_compare(st, whole, &whole_o, &part, &ref);
    fuzz_outcome_free(&part);

    FILE *in = (flags & 8) && size > 0 ? fmemopen(copy, size, "rb") : NULL;
    if (in != NULL) {
        fuzz_outcome_init(&part, n, SIZE_MAX);
        part.st = hf_family_stream_file(p, in, chunk, fuzz_collect, &part, &part.h, &part.err);
        fuzz_compare(st, whole, &whole_o, &part, &ref);
        fuzz_outcome_free(&part);
        fclose(in);
        /* hf_family_read_file reads through the same window, into a family */
        in = fmemopen(copy, size, "rb");
        if (in == NULL)
            abort();
        memset(&part, 0, sizeof part);
        part.stop_at = SIZE_MAX;
        part.st = hf_family_read_file(p, in, &part.f, &part.h, &part.err);
        fclose(in);
        if (part.st == HF_OK) { /* as fuzz_collect would have noted them */
            const char *ma = hf_family_method(whole), *mb = hf_family_method(part.f);
            if ((ma == NULL) != (mb == NULL) || (ma && strcmp(ma, mb) != 0))
                abort();
            part.lines_cap = hf_family_size(part.f);
            if (part.lines_cap && !(part.lines = malloc(part.lines_cap * sizeof *part.lines)))
                abort();
            for (size_t i = 0; i < part.lines_cap; i++)
                part.lines[i] = hf_family_schedule_line(part.f, i);
        }
        fuzz_compare(st, whole, &whole_o, &part, NULL);
        fuzz_outcome_free(&part);
    }
    fuzz_outcome_free(&ref);

    hf_family_free(whole);
    hf_poset_free(p);
    free(copy);
    return 0;
}
