/* Rows described by ranges: a generator whose rows are runs of a few fixed sequences of the
 * events (doubletree's two preorders) says so to the family writer, which then renders each
 * sequence's text once and writes a row as a few copies of byte ranges of those renders instead
 * of one token per event (issue 16 item 1).
 *
 * The description travels beside the row, not through the sink: while a generator hands a row to
 * its sink it points hf_i_row_hint_now (one per thread) at the description, and puts the old
 * value back when the sink returns. The sinks in between (progress, slices, the CLI's stream)
 * pass the row pointer on unchanged; the writer uses the description only for that very row
 * pointer and length, and otherwise renders the row token by token as before. The rows are the
 * library's own, so the writer skips its permutation check of them (each sequence is checked
 * once when it is rendered); rows that callers build keep being checked. */
#ifndef HITFAM_FAMILY_ROWS_I_H
#define HITFAM_FAMILY_ROWS_I_H

#include "internal.h"

/* Values val[a .. b-1] of sequence src. */
typedef struct hf_i_row_range {
    uint32_t src, a, b;
} hf_i_row_range;

enum { HF_I_ROW_SOURCES = 2 };

typedef struct hf_i_row_hint {
    const uint32_t *row; /* the row described, n values */
    uint32_t n;
    /* The sequences, each a permutation of the events 0..n-1, fixed while `id` names them:
     * hf_i_row_source_id gives a new id to every set of sequences. */
    uint64_t id;
    const uint32_t *src[HF_I_ROW_SOURCES];
    const hf_i_row_range *ranges; /* the row is these ranges one after the other */
    size_t count;
} hf_i_row_hint;

/* The description of the row being handed to a sink on this thread, or NULL. */
extern _Thread_local const hf_i_row_hint *hf_i_row_hint_now;

/* A new id for a set of sequences (never 0, never given twice in a process). */
uint64_t hf_i_row_source_id(void);

#endif /* HITFAM_FAMILY_ROWS_I_H */
