/* The machine family formats (docs/formats.md): `ids` (the text header, then schedules as
 * decimal event indices, lib/io_family_ids.c) and `bin` (a binary layout with a checksum,
 * lib/io_family_bin.c), and the block output buffer every family writer fills. The writers
 * (lib/io_family_write.c) and the reader (lib/io_family.c, lib/io_family_text.c) call these. */
#ifndef HITFAM_IO_FAMILY_IDS_H
#define HITFAM_IO_FAMILY_IDS_H

#include <stdio.h>

#include "family_stream_i.h"
#include "names.h"

/* ------------------------------------------------------------------------------------------ */
/* The bin checksum: 64 bits over a byte stream fed in pieces (docs/formats.md defines it).    */

/* The little-endian 64-bit word at b (the checksum's words, bin's counts and offsets). */
static inline uint64_t hf_i_le64(const unsigned char *b)
{
    /* spelt out, which compilers read as one load on little-endian machines */
    return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
           (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
           (uint64_t)b[7] << 56;
}

typedef struct hf_i_sum {
    uint64_t h;
    uint64_t total;        /* bytes fed */
    unsigned char tail[8]; /* the bytes of an unfinished 8-byte word */
    unsigned tailed;       /* how many */
} hf_i_sum;

void hf_i_sum_init(hf_i_sum *s);
void hf_i_sum_add(hf_i_sum *s, const void *data, size_t len);
uint64_t hf_i_sum_final(const hf_i_sum *s);

/* ------------------------------------------------------------------------------------------ */
/* Output assembled in large blocks and handed to fwrite whole.                               */

/* Bytes past `cap` that a writer may scribble on (fixed-size copies of short tokens). */
#define HF_I_OUT_SLACK 64u
/* The block size: writes of this size go from the buffer to the file without stdio copying. */
#define HF_I_OUT_BLOCK ((size_t)1 << 20)

typedef struct hf_i_out {
    FILE *stream;
    char *buf;   /* cap + HF_I_OUT_SLACK bytes */
    size_t len;  /* bytes waiting in buf */
    size_t cap;  /* flush before len would pass it */
    bool summed; /* feed every byte written to sum (bin) */
    hf_i_sum sum;
    bool failed; /* a write failed: nothing more is written */
} hf_i_out;

/* A buffer of HF_I_OUT_BLOCK bytes (or min_cap if larger). HF_ENOMEM. */
hf_status hf_i_out_init(hf_ctx *ctx, hf_i_out *o, FILE *stream, size_t min_cap);
void hf_i_out_free(hf_ctx *ctx, hf_i_out *o);
/* Write what is waiting. false when the stream failed (now or before). */
bool hf_i_out_flush(hf_i_out *o);
/* Room for `need` bytes (need <= cap) at buf + len, flushing first if needed: NULL on failure. */
static inline char *hf_i_out_room(hf_i_out *o, size_t need)
{
    if (o->len + need > o->cap && !hf_i_out_flush(o))
        return NULL;
    return o->buf + o->len;
}
/* Append len bytes (any length). false on failure. */
bool hf_i_out_put(hf_i_out *o, const void *data, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* bin                                                                                        */

#define HF_I_BIN_MAGIC      "\x89HFB\r\n\x1a\n"
#define HF_I_BIN_MAGIC_LEN  8u
#define HF_I_BIN_VERSION    1u
#define HF_I_BIN_HEADER     40u /* the fixed part of the header */
#define HF_I_BIN_FLAG_NAMES 1u  /* the event-name table follows the method */
#define HF_I_BIN_FLAG_SLICE 2u  /* a slice: first row and the whole family's size follow */
#define HF_I_BIN_SLICE      16u /* bytes of a slice's two fields */
#define HF_I_BIN_TRAILER    16u /* count and checksum */
#define HF_I_BIN_UNKNOWN    UINT64_MAX

/* Bytes per index for n events: 2 below 65,536 events, else 4. */
static inline unsigned hf_i_bin_width(uint32_t n) { return n < 65536u ? 2u : 4u; }

/* Header, event names and padding (everything before the first schedule) to o. The file holds
 * `schedules` schedules (HF_I_BIN_UNKNOWN: not known yet). row_first > 0: they are rows
 * row_first.. of a family of `whole` schedules (HF_I_BIN_UNKNOWN: not known). */
bool hf_i_bin_write_header(hf_i_out *o, const hf_poset *p, unsigned d, const char *method,
                           uint64_t schedules, uint64_t row_first, uint64_t whole);
/* One schedule (n indices) to o. */
bool hf_i_bin_write_row(hf_i_out *o, const uint32_t *s, uint32_t n);
/* The trailer (count, checksum), then flush. */
bool hf_i_bin_write_trailer(hf_i_out *o, uint64_t count);

/* Whether data starts as a bin family does (its first four magic bytes). */
bool hf_i_bin_detect(const char *data, size_t len);
/* Read a whole bin family of p into the empty family f (same validation as the text reader);
 * *d gets the header's d (0 when unknown), *row_first the slice's first row (0: the whole
 * family). Errors name the byte offset in the message (err's line and column are 0). */
hf_status hf_i_bin_read(const hf_poset *p, const char *data, size_t len, hf_family *f, unsigned *d,
                        uint64_t *row_first, hf_error *err);
/* The same through the streaming window (lib/family_stream.c), which holds the input's first
 * bytes: each schedule goes to emit as it is read (f->m counts them), the window holding the
 * header and one schedule at a time. The status and message are hf_i_bin_read's on the same
 * bytes (checks whose refusal the whole reader would make first wait for the input's end), or
 * emit's refusal, or the window's failure. */
hf_status hf_i_bin_stream(const hf_poset *p, hf_i_window *win, hf_schedule_fn emit, void *user,
                          hf_family *f, unsigned *d, uint64_t *row_first, hf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* ids: the pieces the text reader delegates                                                   */

/* Where the text reader is: a line starts at line_start, line is 1-based. */
typedef struct hf_i_text_at {
    const char *s;
    size_t len;
    size_t pos;
    size_t line;
    size_t line_start;
} hf_i_text_at;

/* The schedule line at at->pos: indices separated by blanks, up to the end of the line (left
 * there). Each is checked (< n, not repeated) and appended to row, its bit set in seen; *k gets
 * how many were read. sched is the schedule's 1-based number for messages. */
hf_status hf_i_ids_row(const hf_poset *p, hf_i_text_at *at, uint32_t *row, hf_word *seen,
                       uint32_t *k, size_t sched, hf_error *err);
/* The `# events NAME...` line at at->pos (at its '#'): every name must be the order's event of
 * that index, all n of them. Leaves at->pos at the end of the line. name: a decoding buffer. */
hf_status hf_i_ids_events(const hf_poset *p, hf_i_text_at *at, hf_i_name_buf *name, hf_error *err);
/* Whether the comment at s[pos] is an events line: `# events` then a blank or the line's end. */
bool hf_i_ids_is_events(const char *s, size_t len, size_t pos);

#endif /* HITFAM_IO_FAMILY_IDS_H */
