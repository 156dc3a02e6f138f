/* The fast DOT reader's scanner: tokens of the plain subset of DOT by the rules of libcgraph's
 * scanner (blanks, comments, keywords, numerals, names and quoted strings), and TK_BAD for
 * everything the fast reader leaves to libcgraph. */
#include <string.h>

#include "io_dot_i.h"
#include "io_dot_lex.h"

const unsigned char hf_i_dot_char_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0,
    0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 4,
    0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

static inline unsigned cc(const char *s, size_t i)
{
    return hf_i_dot_char_class[(unsigned char)s[i]];
}

static int keyword(const char *w, size_t n)
{
    if (n < 4 || n > 8)
        return TK_ID;
    /* most names start with none of the keywords' first letters */
    switch (w[0] | 0x20) {
    case 'n':
        return hf_i_dot_word_is(w, n, "node") ? TK_NODE : TK_ID;
    case 'e':
        return hf_i_dot_word_is(w, n, "edge") ? TK_EDGE : TK_ID;
    case 'g':
        return hf_i_dot_word_is(w, n, "graph") ? TK_GRAPH : TK_ID;
    case 'd':
        return hf_i_dot_word_is(w, n, "digraph") ? TK_DIGRAPH : TK_ID;
    case 's':
        return hf_i_dot_word_is(w, n, "strict")     ? TK_STRICT
               : hf_i_dot_word_is(w, n, "subgraph") ? TK_BAD
                                                    : TK_ID;
    default:
        return TK_ID;
    }
}

void hf_i_dot_lex_rules(hf_i_dot_lexer *lx)
{
    const char *s = lx->s;
    size_t len = lx->len, i = lx->i;
    for (;;) {
        if (i >= len) {
            lx->i = i;
            lx->tok = TK_END;
            return;
        }
        if (cc(s, i) & HF_I_DOT_BLANK) {
            do
                i++;
            while (i < len && (cc(s, i) & HF_I_DOT_BLANK));
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '#' || (c == '/' && i + 1 < len && s[i + 1] == '/')) {
            /* to the end of the line. A `#` line may be a line directive, which changes only
             * line numbers (no message of this reader has one), but the libcgraph path refuses
             * one naming a file of more than a kilobyte: long `#` lines are left to it. */
            const char *nl = memchr(s + i, '\n', len - i);
            size_t e = nl ? (size_t)(nl - s) : len;
            if (c == '#' && e - i > 1000) {
                lx->tok = TK_BAD;
                return;
            }
            i = e;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t j = i + 2;
            for (;;) {
                const char *star = j < len ? memchr(s + j, '*', len - j) : NULL;
                if (!star) {
                    lx->tok = TK_BAD; /* unterminated */
                    return;
                }
                j = (size_t)(star - s) + 1;
                if (j < len && s[j] == '/')
                    break;
            }
            i = j + 1;
            continue;
        }
        break;
    }
    unsigned char c = (unsigned char)s[i];
    unsigned cls = hf_i_dot_char_class[c];
    lx->start = i;
    if (cls & HF_I_DOT_DIGIT) {
        /* the common numeral, digits alone: a letter right after is Graphviz's "badly delimited
         * number" warning; a '.' is read by the general rule below */
        size_t j = i + 1;
        while (j < len && (cc(s, j) & HF_I_DOT_DIGIT))
            j++;
        if (j >= len || (!(cc(s, j) & HF_I_DOT_LETTER) && s[j] != '.')) {
            lx->end = lx->i = j;
            lx->tok = TK_ID;
            return;
        }
        if (s[j] != '.') {
            lx->tok = TK_BAD;
            return;
        }
    }
    if (cls & HF_I_DOT_LETTER) {
        size_t j = i + 1;
        while (j < len && (cc(s, j) & (HF_I_DOT_LETTER | HF_I_DOT_DIGIT)))
            j++;
        if (j - i == 3 && memcmp(s + i, "\xEF\xBB\xBF", 3) == 0) {
            lx->i = j; /* a byte order mark alone is skipped like a blank */
            hf_i_dot_lex_rules(lx);
            return;
        }
        lx->end = lx->i = j;
        lx->tok = keyword(s + i, j - i);
        return;
    }
    if (c == '-' && i + 1 < len && s[i + 1] == '>') {
        lx->i = i + 2;
        lx->tok = TK_ARROW;
        return;
    }
    if (hf_i_dot_is_digit(c) || c == '.' || c == '-') {
        /* a '.' or letter right after is Graphviz's "badly delimited number" warning */
        size_t j = i + hf_i_dot_numeral_len(s + i, len - i);
        if (j == i || (j < len && (s[j] == '.' || hf_i_dot_is_letter((unsigned char)s[j])))) {
            lx->tok = TK_BAD;
            return;
        }
        lx->end = lx->i = j;
        lx->tok = TK_ID;
        return;
    }
    if (c == '"') {
        size_t j = i + 1;
        const char *q = memchr(s + j, '"', len - j);
        if (q && !memchr(s + j, '\\', (size_t)(q - s) - j)) {
            lx->escaped = false;
            lx->start = j;
            lx->end = (size_t)(q - s);
            lx->i = lx->end + 1;
            lx->tok = TK_QSTR;
            return;
        }
        /* \" and \\ pairs, backslash-newline, a lone backslash */
        while (j < len && s[j] != '"') {
            if (s[j] == '\\' && j + 1 < len &&
                (s[j + 1] == '"' || s[j + 1] == '\\' || s[j + 1] == '\n'))
                j += 2;
            else
                j++;
        }
        if (j >= len) {
            lx->tok = TK_BAD;
            return;
        }
        lx->escaped = true;
        lx->start = i + 1;
        lx->end = j;
        lx->i = j + 1;
        lx->tok = TK_QSTR;
        return;
    }
    lx->i = i + 1;
    switch (c) {
    case '{':
        lx->tok = TK_LBRACE;
        return;
    case '}':
        lx->tok = TK_RBRACE;
        return;
    case '[':
        lx->tok = TK_LBRACK;
        return;
    case ']':
        lx->tok = TK_RBRACK;
        return;
    case '=':
        lx->tok = TK_EQ;
        return;
    case ';':
        lx->tok = TK_SEMI;
        return;
    case ',':
        lx->tok = TK_COMMA;
        return;
    case '+':
        lx->tok = TK_PLUS;
        return;
    default:
        lx->tok = TK_BAD; /* '<', ':', '@', '--' and every other byte */
        return;
    }
}
