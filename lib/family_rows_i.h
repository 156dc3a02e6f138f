/* Rows described by ranges: a generator whose rows are runs of a few fixed sequences of the
 * events (doubletree's two preorders) hands such a row to its sink as that description, and the
 * family writer writes it from renders of the sequences (each sequence's text made once) with
 * writev, without building the row or copying its bytes (issue 16 item 1). With a second
 * thread, the generator has that thread copy each row's bytes out of the renders while its own
 * thread writes the row before (hf_i_writer_assemble): the caller's thread then only writes,
 * instead of also walking the row's ranges, a few million on a large tree; but a row the
 * caller's thread already waits for goes to it as ranges (lib/gen_doubletree.c, assemble_row).
 *
 * The description goes through the sinks as a call of its own beside `put`: the public hf_sink
 * is unchanged, and the library knows which of its sinks take the call (hf_i_sink_takes_rows):
 * the writer's, and the wrappers of lib/gen.c (progress, slices, the name guard) and the public
 * hf_sink_watch when what they pass rows on to takes it. A generator asks once, and then either
 * describes every row (no row of event ids is built) or hands rows to `put` as before. The rows
 * are the library's own, so the writer skips its permutation check of them (each sequence is
 * checked once when it is rendered); rows that callers build keep being checked. */
#ifndef HITFAM_FAMILY_ROWS_I_H
#define HITFAM_FAMILY_ROWS_I_H

#include "internal.h"

/* Values val[a .. b-1] of sequence src. */
typedef struct hf_i_row_range {
    uint32_t src, a, b;
} hf_i_row_range;

enum { HF_I_ROW_SOURCES = 2 };

typedef struct hf_i_rows {
    uint32_t n; /* values in the row */
    /* The sequences, each a permutation of the events 0..n-1, fixed while `id` names them:
     * hf_i_row_source_id gives a new id to every set of sequences. */
    uint64_t id;
    const uint32_t *src[HF_I_ROW_SOURCES];
    const hf_i_row_range *ranges; /* the row is these ranges one after the other */
    size_t count;
    /* The threads the writer may use while it renders the sequences (hf_gen_options.threads:
     * 0 or 1, the caller's alone); the bytes do not depend on it. */
    unsigned threads;
    /* The row's bytes as hf_i_writer_assemble made them from this description (then written
     * as they are, the ranges not read again), or NULL: the writer gathers them itself. */
    const char *bytes;
} hf_i_rows;

/* A new id for a set of sequences (never 0, never given twice in a process). */
uint64_t hf_i_row_source_id(void);

/* Whether s takes rows as descriptions (hf_i_sink_put_rows). O(wrappers). */
bool hf_i_sink_takes_rows(hf_sink s);
/* The row r describes, to s (only when hf_i_sink_takes_rows(s)): the same as s.put of the row
 * of values; HF_ESCHEDULE when the ranges do not make a row of r->n values within the
 * sequences. */
hf_status hf_i_sink_put_rows(hf_sink s, const hf_i_rows *r);

/* The family writer that s's rows reach through the library's wrappers, NULL when they reach
 * none (a caller's sink). O(wrappers). */
hf_writer *hf_i_sink_writer(hf_sink s);

/* The writer's two calls (lib/io_family_write.c). */
hf_status hf_i_writer_put(void *user, const uint32_t *s, uint32_t n);
hf_status hf_i_writer_put_rows(void *user, const hf_i_rows *r);
/* w's tokens ahead of its first row, in three steps: hf_i_writer_reserve allocates what they
 * need (false: nothing to make ahead, or no memory: the first row makes them, and reports
 * HF_ENOMEM if it still lacks memory); hf_i_writer_prepare makes them without allocating, on
 * any threads at once, each taking the events no other took yet until none is left, while
 * nothing else uses w; once every such call returned, hf_i_writer_prepared on one thread
 * (doubletree starts them on its second thread while it prepares its rows, then makes the
 * rest on its own). */
bool hf_i_writer_reserve(hf_writer *w);
void hf_i_writer_prepare(hf_writer *w);
void hf_i_writer_prepared(hf_writer *w);
/* Rows assembled on another thread (doubletree's second thread, while the caller's writes the
 * row before): the writer keeps the renders of its last sequences, so any thread may copy a
 * row's bytes out of them while the caller's thread writes, and the caller's thread then writes
 * them in one piece instead of gathering the row range by range.
 * hf_i_writer_ready_rows makes the renders of h's sequences (h's ranges are not read), on the
 * caller's thread, before any row of them, as the first row would: false when it could not (no
 * memory, a failed write, a sequence not a permutation): rows then go as descriptions alone,
 * and their put reports the failure. hf_i_writer_assembly_size is the size of a buffer for a
 * row, and hf_i_writer_assemble copies the row h describes into dst, reading w's renders only
 * (any thread, while the caller's thread puts rows of the same sequences): false when h is not
 * a row of the renders' sequences (dst is then not a row's). O(bytes of a row). */
bool hf_i_writer_ready_rows(hf_writer *w, const hf_i_rows *h);
size_t hf_i_writer_assembly_size(const hf_writer *w);
bool hf_i_writer_assemble(const hf_writer *w, const hf_i_rows *h, char *dst);
/* Rows w wrote from its renders (the rest went token by token). */
uint64_t hf_i_writer_described(const hf_writer *w);
/* Of them, rows whose bytes came assembled (hf_i_writer_assemble). */
uint64_t hf_i_writer_assembled(const hf_writer *w);

#endif /* HITFAM_FAMILY_ROWS_I_H */
