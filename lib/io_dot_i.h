/* What the DOT files share: lib/io_dot.c (reading through libcgraph), lib/io_dot_scan.c (its
 * pre-scan), lib/io_dot_attr.c (node attributes), lib/io_dot_fast.c (the fast reader) and
 * lib/io_dot_write.c. Internal. */
#ifndef HITFAM_IO_DOT_I_H
#define HITFAM_IO_DOT_I_H

#include "internal.h"
#include "io_dot_fast.h"

/* The longest file name a `# line "file"` directive may give: libcgraph puts it in its
 * messages, which must fit its buffer (lib/io_dot.c, PRIME_MESSAGE_LEN). */
#define HF_I_DOT_LINE_FILE_MAX 1024u

/* libcgraph's scanner's letters (bytes from 0x80 on included) and digits. */
static inline bool hf_i_dot_is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static inline bool hf_i_dot_is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* ASCII case-insensitive equality of s[0..len) and the lowercase word w. */
bool hf_i_dot_word_is(const char *s, size_t len, const char *w);

/* The length of the numeral at s, [-]?(digits(.digits*)?|.digits) as libcgraph reads one, or 0
 * (inline: the fast scanner reads every numeral name with it). */
static inline size_t hf_i_dot_numeral_len(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    size_t d = i;
    while (i < len && hf_i_dot_is_digit((unsigned char)s[i]))
        i++;
    if (i > d) {
        if (i < len && s[i] == '.') {
            i++;
            while (i < len && hf_i_dot_is_digit((unsigned char)s[i]))
                i++;
        }
    } else {
        if (!(i + 1 < len && s[i] == '.' && hf_i_dot_is_digit((unsigned char)s[i + 1])))
            return 0;
        i++;
        while (i < len && hf_i_dot_is_digit((unsigned char)s[i]))
            i++;
    }
    return i;
}

/* What the pre-scan learns of the input. */
typedef struct hf_i_dot_scan {
    bool any_token;
    int first_line;  /* line of the first token */
    bool undirected; /* the header is `[strict] graph` */
    int second_line; /* line of the first token after the first graph's closing brace */
} hf_i_dot_scan;

/* The pre-scan (lib/io_dot_scan.c): fills *sc, or refuses what libcgraph would handle badly
 * (a parser stack overflow, an absurd line directive, a NUL byte...) with a message. */
hf_status hf_i_dot_prescan(hf_ctx *ctx, const char *s, size_t len, hf_i_dot_scan *sc,
                           hf_error *err);

/* A truth value as hitfam reads focus=: "", false, 0, no (*on false) or true, 1, yes (true),
 * in any case; false for anything else. */
bool hf_i_dot_truth_value(const char *v, bool *on);

/* An access= value as hitfam reads it: r or read (HF_ACCESS_READ), w or write (HF_ACCESS_WRITE),
 * in any case; false for anything else. */
bool hf_i_dot_access_value(const char *v, hf_access *access);

/* The line of the first node attribute `key = value` in the text (0 if none), and the name of
 * its owner (the node, or "node" for the defaults) in owner[0..owner_cap); HF_ENOMEM. */
hf_status hf_i_dot_attr_find(hf_ctx *ctx, const char *s, size_t len, const char *key,
                             const char *value, int *line_out, char *owner, size_t owner_cap);

/* HF_EPARSE with the message fmt, at the line of `key = value` in the text when it is there. */
hf_status hf_i_dot_attr_fail(hf_ctx *ctx, const char *text, size_t text_len, const char *key,
                             const char *value, hf_error *err, const char *fmt, ...)
    HF_I_PRINTF(7, 8);

/* Event id's obj= (ov) and access= (av) values into the builder (either may be NULL or ""). */
hf_status hf_i_dot_read_object(hf_ctx *ctx, hf_poset_builder *b, uint32_t id, const char *name,
                               const char *ov, const char *av, const char *text, size_t text_len,
                               hf_error *err);

#endif /* HITFAM_IO_DOT_I_H */
