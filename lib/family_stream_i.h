/* Streaming family input (lib/family_stream.c) as the reader of lib/io_family.c uses it, and the
 * arrays of the verifier that may live in a mapped temporary file instead of the heap. */
#ifndef HITFAM_FAMILY_STREAM_I_H
#define HITFAM_FAMILY_STREAM_I_H

#include "hitfam/stream.h"
#include "internal.h"

/* The bytes of the input the reader sees: [base, base + len) of the whole input, refilled in
 * chunks. */
typedef struct hf_i_window hf_i_window;

/* What the reader parses next, so the window must hold it from *pos (or reach the end of the
 * input):
 * START: the first four bytes (a byte order mark, or the start of bin's magic), then past any
 *        byte order mark any blanks and line breaks and one more byte;
 * LINE: a text line up to and including its line feed, longer when a quoted name continues
 *       (backslash and line break) onto the next line;
 * VALUE: JSON blanks, one whole value (strings and brackets matched), blanks, one more byte;
 * WS1: JSON blanks and one more byte. */
typedef enum hf_i_need {
    HF_I_NEED_START,
    HF_I_NEED_LINE,
    HF_I_NEED_VALUE,
    HF_I_NEED_WS1
} hf_i_need;

/* Refill the window for @p kind. The bytes before *pos may be dropped: *s, *len, *pos,
 * *line_start (an offset into *s, possibly before it, in size_t's modular arithmetic) and *base
 * are updated. HF_OK, HF_ENOMEM or HF_EIO (the input failed). */
hf_status hf_i_window_need(hf_i_window *w, hf_i_need kind, const char **s, size_t *len, size_t *pos,
                           size_t *line_start, uint64_t *base);
/* Restart the window at offset @p off of the input (one read before): *pos becomes 0 and *base
 * off; the next need refills. HF_EIO when the input cannot go back there. */
hf_status hf_i_window_seek(hf_i_window *w, uint64_t off, const char **s, size_t *len, size_t *pos,
                           uint64_t *base);
/* Refill the window until it holds at least @p want bytes from *pos, or the rest of the input
 * (fewer only at its end); the bytes before *pos may be dropped, *s, *len, *pos and *base are
 * updated as by hf_i_window_need. For bin, read in whole schedules. HF_OK, HF_ENOMEM or HF_EIO. */
hf_status hf_i_window_bytes(hf_i_window *w, size_t want, const char **s, size_t *len, size_t *pos,
                            uint64_t *base);
/* Make sure the input can be read again from its start (hf_i_window_seek): an input that cannot
 * seek (a pipe) is copied to an unlinked temporary file first. */
hf_status hf_i_window_rewindable(hf_i_window *w);

/* The reader of lib/io_family.c: from data[0..len) (win NULL) or from a window; each schedule
 * to emit (then *out only counts them, in its m) or appended to *out. Arguments are checked by
 * the callers; err is filled as by hf_family_read_mem. */
hf_status hf_i_family_read(const hf_poset *p, const char *data, size_t len, hf_i_window *win,
                           hf_schedule_fn emit, void *user, hf_family **out,
                           hf_family_header *header, hf_error *err);

/* An array of the verifier: on the heap (hf_i_alloc), or, mapped, in an unlinked temporary file
 * of $TMPDIR (default /tmp) mapped shared, so the kernel writes its pages back and drops them
 * under memory pressure instead of keeping them resident. */
typedef struct hf_i_big {
    void *p;
    size_t bytes;
    bool mapped;
} hf_i_big;

/* count * size bytes (not zeroed on the heap; zero in a file), or NULL (out of memory, no
 * temporary file, or too large). */
void *hf_i_big_alloc(hf_ctx *ctx, size_t count, size_t size, bool mapped, hf_i_big *b);
void hf_i_big_free(hf_ctx *ctx, hf_i_big *b);

/* What hf_family_store holds: m schedules of n ids, row after row. */
struct hf_family_store {
    hf_ctx *ctx;
    uint32_t n;
    size_t m;
    const uint32_t *rows;
    hf_i_big big;   /* the rows when mapped */
    uint32_t *heap; /* the rows when on the heap */
    size_t cap;     /* ids room of heap */
    size_t *lines;  /* lines[k]: the line of schedule k (0 for bin) */
    size_t lines_cap;
    size_t limit; /* memory limit given to hf_family_store_read (0: none) */
    bool have_lines;
};

/* hf_verify and hf_verify_count_uncovered on m rows of n ids (row after row); with
 * opt->memory_limit the check's tables go to a mapped file when rows_bytes (the part of the
 * rows on the heap) and the tables would exceed it. lines (NULL: none): the text line of each
 * row, for a refused schedule's err->line. */
hf_status hf_i_verify_rows(const hf_poset *p, const uint32_t *rows, uint32_t n, size_t m,
                           size_t rows_bytes, const size_t *lines, const hf_verify_options *opt,
                           hf_verify_result *result, mpz_t count, hf_error *err);

#endif
