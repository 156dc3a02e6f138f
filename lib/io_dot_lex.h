/* The fast DOT reader's scanner (lib/io_dot_lex.c): the rules of libcgraph's scanner, restricted
 * to the plain subset that lib/io_dot_fast.c reads. Internal. */
#ifndef HITFAM_IO_DOT_LEX_H
#define HITFAM_IO_DOT_LEX_H

#include "internal.h"

enum {
    TK_END,
    TK_ID,   /* a bare name or numeral: text [start, end) */
    TK_QSTR, /* a quoted string: raw text between the quotes [start, end) */
    TK_ARROW,
    TK_LBRACE,
    TK_RBRACE,
    TK_LBRACK,
    TK_RBRACK,
    TK_EQ,
    TK_SEMI,
    TK_COMMA,
    TK_PLUS,
    TK_NODE,
    TK_EDGE,
    TK_GRAPH,
    TK_DIGRAPH,
    TK_STRICT,
    TK_BAD /* outside the subset: give up */
};

typedef struct hf_i_dot_lexer {
    const char *s;
    size_t len, i;
    int tok;
    size_t start, end;
    bool escaped; /* TK_QSTR holds a backslash */
} hf_i_dot_lexer;

/* The next token into lx->tok (and its text into [lx->start, lx->end) for TK_ID and TK_QSTR);
 * TK_BAD for anything outside the subset, TK_END at the end of the input. */
void hf_i_dot_lex_rules(hf_i_dot_lexer *lx);

/* The class of each byte by libcgraph's scanner rules: a blank (space, tab, newline, carriage
 * return), a digit, or a letter (ASCII letters, '_' and every byte from 0x80 on: see
 * hf_i_dot_is_letter in lib/io_dot_i.h). */
enum { HF_I_DOT_BLANK = 1, HF_I_DOT_DIGIT = 2, HF_I_DOT_LETTER = 4 };
extern const unsigned char hf_i_dot_char_class[256];

/* hf_i_dot_lex_rules, with the tokens that make up most of a large file read here (inline, for
 * the reader's loops): blanks, then a numeral of digits alone or a name that cannot be a keyword
 * or a byte order mark, followed by a byte that ends it, or an arrow. Everything else, and every
 * token at the end of the input, is left to hf_i_dot_lex_rules. */
static inline void hf_i_dot_lex(hf_i_dot_lexer *lx)
{
    const unsigned char *s = (const unsigned char *)lx->s, *cls = hf_i_dot_char_class;
    size_t len = lx->len, i = lx->i;
    while (i < len && (cls[s[i]] & HF_I_DOT_BLANK))
        i++;
    lx->i = i;
    if (i + 1 >= len) {
        hf_i_dot_lex_rules(lx);
        return;
    }
    unsigned c = cls[s[i]];
    size_t j = i + 1;
    if (c & HF_I_DOT_DIGIT) {
        while (j < len && (cls[s[j]] & HF_I_DOT_DIGIT))
            j++;
        /* a letter right after is Graphviz's "badly delimited number"; a '.' goes on */
        if (j < len && !(cls[s[j]] & HF_I_DOT_LETTER) && s[j] != '.') {
            lx->start = i;
            lx->end = lx->i = j;
            lx->tok = TK_ID;
            return;
        }
    } else if (c & HF_I_DOT_LETTER) {
        while (j < len && (cls[s[j]] & (HF_I_DOT_LETTER | HF_I_DOT_DIGIT)))
            j++;
        /* keywords, by length: node and edge (4), graph (5), strict (6), digraph (7), subgraph
         * (8); a byte order mark: 3 bytes */
        unsigned f = s[i] | 0x20;
        size_t n = j - i;
        bool maybe_keyword = n == 4   ? f == 'n' || f == 'e'
                             : n == 5 ? f == 'g'
                             : n == 6 ? f == 's'
                             : n == 7 ? f == 'd'
                                      : n == 8 && f == 's';
        if (j < len && !(j - i == 3 && s[i] == 0xEF) && !maybe_keyword) {
            lx->start = i;
            lx->end = lx->i = j;
            lx->tok = TK_ID;
            return;
        }
    } else if (s[i] == '-' && s[i + 1] == '>') {
        lx->start = i;
        lx->i = i + 2;
        lx->tok = TK_ARROW;
        return;
    }
    hf_i_dot_lex_rules(lx);
}

#endif /* HITFAM_IO_DOT_LEX_H */
