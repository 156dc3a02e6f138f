/* Event names read back: the decoded-name buffer and the family text format's quoted names, one
 * copy for every reader of that syntax (family text in io_family.c, focus files in focus.c). */
#ifndef HITFAM_NAMES_H
#define HITFAM_NAMES_H

#include "internal.h"

/* A name being decoded into `text` (HF_MAX_NAME + 1 bytes, NUL-terminated). A name longer than
 * HF_MAX_NAME or holding a NUL byte is marked bad (text then keeps at most HF_MAX_NAME of its
 * other bytes): no event can have it, and the reader still steps over all of it. */
typedef struct hf_i_name_buf {
    char *text;
    size_t len;
    bool bad;
} hf_i_name_buf;

void hf_i_name_buf_reset(hf_i_name_buf *b);
void hf_i_name_buf_push(hf_i_name_buf *b, char c);
/* The event named by b: false when there is none (or the name is bad). */
bool hf_i_name_buf_find(const hf_i_name_buf *b, const hf_poset *p, uint32_t *id);

/* Where a quoted name ended in its input. */
typedef struct hf_i_unquoted {
    size_t end;        /* offset just past the closing quote */
    size_t lines;      /* line breaks crossed by backslash continuations */
    size_t line_start; /* offset of the first byte after the last one crossed (if lines > 0) */
} hf_i_unquoted;

/* Decode into b the quoted name whose opening quote is s[start] (s has len bytes), by the rules
 * hf_i_name_write writes with: \" \\ and \n are escapes, a backslash before a line break (LF or
 * CR LF) continues the name on the next line, any other backslash stays with the byte after it.
 * A raw line break inside the quotes is not allowed, since a quoted name never holds one when
 * written. Returns false when the quote is not closed before a line break or the end of s; a
 * caller that reads only one token passes its end as len. O(bytes read). */
bool hf_i_name_unquote(const char *s, size_t len, size_t start, hf_i_name_buf *b,
                       hf_i_unquoted *where);

#endif /* HITFAM_NAMES_H */
