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
void hf_i_dot_lex(hf_i_dot_lexer *lx);

#endif /* HITFAM_IO_DOT_LEX_H */
