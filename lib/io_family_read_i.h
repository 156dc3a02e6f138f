/* The family reader's state and the few helpers its parts share: lib/io_family.c (entry points,
 * schedule rows, errors), lib/io_family_text.c (text and ids) and lib/io_family_json.c (JSON). */
#ifndef HITFAM_IO_FAMILY_READ_I_H
#define HITFAM_IO_FAMILY_READ_I_H

#include "family_i.h"
#include "family_stream_i.h"
#include "names.h"
#include "poset_i.h"

typedef struct hf_i_reader {
    const hf_poset *p;
    const hf_i_strtab *names; /* p's names, placed for lookups (hf_i_poset_names_index) */
    hf_ctx *ctx;
    const char *s;
    size_t len;
    size_t pos;
    size_t line;       /* 1-based line of pos */
    size_t line_start; /* offset of the first byte of that line */
    hf_error *err;
    hf_i_name_buf name; /* the last decoded name */
    uint32_t *row;      /* the schedule being read */
    hf_word *seen;      /* ids already in row */
    uint32_t *map;      /* JSON "events": index -> id */
    bool have_map;
    hf_family *f;
    size_t lines_cap; /* of f->lines */
    unsigned d;
    /* Streaming (lib/family_stream.c): s holds the bytes [base, base + len) of the input, and
     * hf_i_read_need extends it before each line or JSON value; each schedule goes to emit instead
     * of into f (which then only counts them). NULL win: s is the whole input. */
    hf_i_window *win;
    uint64_t base;
    hf_schedule_fn emit;
    void *emit_user;
    uint64_t row_first, row_last; /* text header rows=A:B (a slice of a family) */
    bool ids;                     /* the header says format=ids: schedules are event indices */
    /* Text names are first guessed from earlier schedules: guess[2v] is the event that followed
     * v most recently, guess[2v + 1] the one that followed it before that (when different), and
     * likewise first[] for the first event; key[v] holds v's name for a quick compare
     * (lib/io_family_text.c). Allocated at the first text schedule. */
    uint32_t *guess;
    uint32_t first[2];
    struct name_key *key;
} hf_i_reader;

/* Whether text schedules may look their names up in batches (lib/io_family_text.c): true; tests
 * and the text fuzz target turn it off to compare with reading one name at a time. */
extern bool hf_i_text_batches;

/* The two formats, each from r->pos to the end of the input (lib/io_family.c has already
 * detected which it is). HF_OK or an error filled in r->err. */
hf_status hf_i_read_text(hf_i_reader *r);
hf_status hf_i_read_json(hf_i_reader *r);

/* Errors: at a 1-based line and column (clamped to int), or out of memory (no position). */
hf_status hf_i_read_fail_at(hf_i_reader *r, hf_status st, size_t line, size_t column,
                            const char *fmt, ...) HF_I_PRINTF(5, 6);
hf_status hf_i_read_nomem(hf_i_reader *r);
/* r->name is no event of the order; the token started at line, column. */
hf_status hf_i_read_unknown_name(hf_i_reader *r, size_t line, size_t column);

/* Streaming: make the window hold what the parser reads next (a no-op on a whole input). */
hf_status hf_i_read_need(hf_i_reader *r, hf_i_need kind);

/* The header's method (in r->name) becomes the family's. */
hf_status hf_i_read_keep_method(hf_i_reader *r);

/* A schedule, one event at a time: add id at position *k of the schedule numbered sched
 * (1-based; line and column locate the event for messages) unless it is already there; at its
 * end (line and column: the schedule's start), check it holds every event and hand it on with
 * its line (to the stream's callback, or appended to r->f with the line in f->lines). */
hf_status hf_i_read_row_add(hf_i_reader *r, uint32_t *k, uint32_t id, size_t sched, size_t line,
                            size_t column);
hf_status hf_i_read_row_end(hf_i_reader *r, uint32_t k, size_t sched, size_t line, size_t column);

static inline size_t hf_i_read_column(const hf_i_reader *r, size_t pos)
{
    return pos - r->line_start + 1;
}

static inline void hf_i_read_new_line(hf_i_reader *r, size_t next)
{
    r->pos = next;
    r->line++;
    r->line_start = next;
}

static inline void hf_i_read_name_push(hf_i_reader *r, char c) { hf_i_name_buf_push(&r->name, c); }

static inline bool hf_i_read_name_find(const hf_i_reader *r, uint32_t *id)
{
    return hf_i_name_buf_find(&r->name, r->p, id);
}

#endif /* HITFAM_IO_FAMILY_READ_I_H */
