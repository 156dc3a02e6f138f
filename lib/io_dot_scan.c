/* The pre-scan of DOT input before libcgraph reads it: a mirror of the rules of its scanner that
 * finds what it would handle badly or report poorly (parser stack, line directives, several
 * graphs); and the scanner rules the DOT files share. */
#include <string.h>

#include "io_dot_i.h"

/* ---------------------------------------------------------------------------------------- */
/* Limits that keep libcgraph (Graphviz 2.4x) on its safe paths                               */

/* Its bison parser has a fixed stack of 10000 entries. When that overflows it aborts without
 * its error actions: the half-built graph is returned anyway, its statement stack is left
 * behind for the next parse to walk, and the scanner keeps the rest of the input. So inputs
 * that could come near the limit are refused before the parser sees them. Measured stack use:
 * 4 entries per open brace (with the statement list around it), 4 per pending `->` of an edge
 * chain plus 1 for the chain's first operand; a few more for the innermost statement. */
#define PARSER_STACK_BUDGET 9000
#define PARSER_COST_BRACE   4
#define PARSER_COST_ARROW   4
#define PARSER_MAX_LEVELS   (PARSER_STACK_BUDGET / PARSER_COST_BRACE + 2)

/* ---------------------------------------------------------------------------------------- */
/* Pre-scan: a mirror of the rules of libcgraph's scanner (lib/cgraph/scan.l) that finds what it
 * would handle badly or report poorly, before it runs.                                       */

enum { TOK_NONE, TOK_OPERAND, TOK_SUBGRAPH, TOK_SUBGRAPH_NAME, TOK_OTHER };

/* ASCII case-insensitive equality of s[0..len) and the lowercase word w (DOT keywords and
 * truth values are case-independent). */
bool hf_i_dot_word_is(const char *s, size_t len, const char *w)
{
    size_t i = 0;
    for (; i < len && w[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)w[i])
            return false;
    }
    return i == len && !w[i];
}

/* libcgraph's NUMBER: a numeral and the '.' or letter run into it (Graphviz warns of those as a
 * "badly delimited number"); its length or 0. */
static size_t number_len(const char *s, size_t len)
{
    size_t i = hf_i_dot_numeral_len(s, len);
    if (i > 0 && i < len && (s[i] == '.' || hf_i_dot_is_letter((unsigned char)s[i])))
        i++;
    return i;
}

/* `#` at the start of a line is a preprocessor line directive for libcgraph: `# N "file"` makes
 * the next line number N and names the file in its messages. Mirror the line change so that
 * both count alike; refuse absurd file names (they would end up inside its messages). */
static hf_status line_directive(const char *s, size_t len, int *line, hf_error *err)
{
    size_t i = 1;
    if (len >= 5 && memcmp(s + 1, "line", 4) == 0)
        i = 5;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f'))
        i++;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i >= len || !hf_i_dot_is_digit((unsigned char)s[i]))
        return HF_OK;
    long v = 0;
    for (; i < len && hf_i_dot_is_digit((unsigned char)s[i]); i++)
        if (v < 1000000000L)
            v = v * 10 + (s[i] - '0');
    int at = *line;
    *line = (int)((neg ? -v : v) - 1);
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f'))
        i++;
    if (i < len && s[i] == '"') {
        size_t e = i + 1;
        while (e < len && s[e] != '"')
            e++;
        if (e - i - 1 > HF_I_DOT_LINE_FILE_MAX)
            return hf_i_fail(err, HF_ETOOLARGE, at, 0,
                             "line directive names a file longer than %u bytes",
                             HF_I_DOT_LINE_FILE_MAX);
    }
    return HF_OK;
}

typedef struct chain_state {
    int depth;                          /* open braces */
    uint16_t arrows[PARSER_MAX_LEVELS]; /* pending `->` of the statement at each depth */
    long cost;                          /* estimated parser stack use */
} chain_state;

static long level_cost(unsigned arrows)
{
    return arrows ? 1 + (long)PARSER_COST_ARROW * arrows : 0;
}

static hf_status too_deep(int line, hf_error *err)
{
    return hf_i_fail(err, HF_ETOOLARGE, line, 0,
                     "subgraphs nested too deeply or edge chain too long for the Graphviz parser "
                     "(split long a -> b -> c chains into several statements)");
}

/* A new statement starts when a token that cannot continue the previous one follows a complete
 * operand; the chain it held is then reduced off the parser stack. */
static void statement_end(chain_state *cs)
{
    cs->cost -= level_cost(cs->arrows[cs->depth]);
    cs->arrows[cs->depth] = 0;
}

static hf_status prescan(const char *s, size_t len, hf_i_dot_scan *sc, chain_state *cs,
                         hf_error *err)
{
    memset(sc, 0, sizeof *sc);
    cs->depth = 0;
    cs->arrows[0] = 0;
    cs->cost = 0;
    int line = 1;
    bool bol = true, in_brackets = false, first_closed = false;
    int prev = TOK_NONE, header_tokens = 0;
    hf_status st;
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line++;
            bol = true;
            i++;
            continue;
        }
        if (c == '\0')
            return hf_i_fail(err, HF_EPARSE, line, 0,
                             "binary data: NUL byte in the input (not a DOT file?)");
        if (c == ' ' || c == '\t' || c == '\r') {
            bol = false;
            i++;
            continue;
        }
        if (c == '#' || (c == '/' && i + 1 < len && s[i + 1] == '/')) {
            size_t e = i;
            while (e < len && s[e] != '\n' && s[e] != '\0')
                e++;
            if (c == '#' && bol && (st = line_directive(s + i, e - i, &line, err)))
                return st;
            bol = false;
            i = e;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            int at = line;
            for (i += 2; i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'); i++) {
                if (s[i] == '\n')
                    line++;
                else if (s[i] == '\0')
                    return hf_i_fail(err, HF_EPARSE, line, 0,
                                     "binary data: NUL byte in the input (not a DOT file?)");
            }
            if (i >= len)
                return hf_i_fail(err, HF_EPARSE, at, 0, "unterminated /* comment");
            i += 2;
            bol = false;
            continue;
        }
        bol = false;

        /* a token */
        int tok_line = line;
        int kind = TOK_OTHER;
        bool keyword = false, is_open = false, is_close = false, is_arrow = false;
        size_t word = 0; /* bare word length, for keywords */
        const char *w = s + i;
        if (c == '"') {
            /* libcgraph's rules: \" and \\ pairs, backslash-newline (counted), a lone
             * backslash, and runs of other bytes in which it counts no newline unless the run
             * is that newline alone. */
            for (i++;;) {
                if (i >= len)
                    return hf_i_fail(err, HF_EPARSE, tok_line, 0, "unterminated quoted string");
                if (s[i] == '"') {
                    i++;
                    break;
                }
                if (s[i] == '\\') {
                    if (i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\'))
                        i += 2;
                    else if (i + 1 < len && s[i + 1] == '\n') {
                        line++;
                        i += 2;
                    } else
                        i++;
                    continue;
                }
                size_t e = i;
                while (e < len && s[e] != '"' && s[e] != '\\') {
                    if (s[e] == '\0')
                        return hf_i_fail(err, HF_EPARSE, line, 0,
                                         "binary data: NUL byte in the input (not a DOT file?)");
                    e++;
                }
                if (e == i + 1 && s[i] == '\n')
                    line++;
                i = e;
            }
            kind = TOK_OPERAND;
        } else if (c == '<') {
            unsigned long nest = 1;
            for (i++; nest > 0; i++) {
                if (i >= len)
                    return hf_i_fail(err, HF_EPARSE, tok_line, 0,
                                     "unterminated <...> string (missing '>')");
                if (s[i] == '>')
                    nest--;
                else if (s[i] == '<')
                    nest++;
                else if (s[i] == '\n')
                    line++;
                else if (s[i] == '\0')
                    return hf_i_fail(err, HF_EPARSE, line, 0,
                                     "binary data: NUL byte in the input (not a DOT file?)");
            }
            kind = TOK_OPERAND;
        } else if (hf_i_dot_is_letter(c) || number_len(s + i, len - i) > 0) {
            size_t n = number_len(s + i, len - i);
            if (n == 0) {
                n = 1;
                while (i + n < len && (hf_i_dot_is_letter((unsigned char)s[i + n]) ||
                                       hf_i_dot_is_digit((unsigned char)s[i + n])))
                    n++;
                if (n == 3 && memcmp(s + i, "\xEF\xBB\xBF", 3) == 0) {
                    i += 3; /* a byte order mark alone is skipped, like whitespace */
                    continue;
                }
                word = n;
            }
            if (n > HF_MAX_NAME)
                return hf_i_fail(err, HF_ETOOLARGE, tok_line, 0,
                                 "name longer than %u bytes: starts with %.24s...", HF_MAX_NAME,
                                 s + i);
            i += n;
            kind = TOK_OPERAND;
            if (word) {
                static const char *const kw[] = {"graph",    "digraph", "strict",
                                                 "subgraph", "node",    "edge"};
                for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
                    if (hf_i_dot_word_is(w, word, kw[k])) {
                        keyword = true;
                        kind = k == 3 ? TOK_SUBGRAPH : TOK_OTHER;
                    }
            }
        } else if (c == '-' && i + 1 < len && (s[i + 1] == '>' || s[i + 1] == '-')) {
            is_arrow = s[i + 1] == '>';
            i += 2;
        } else if (c == '@') {
            /* libcgraph's end-of-graph marker: the rest of the input would be ignored */
            return hf_i_fail(err, HF_EPARSE, tok_line, 0, "syntax error near '@'");
        } else {
            is_open = c == '{';
            is_close = c == '}';
            i++;
        }

        if (!sc->any_token) {
            sc->any_token = true;
            sc->first_line = tok_line;
        }
        if (header_tokens < 2) {
            header_tokens++;
            if (keyword && hf_i_dot_word_is(w, word, "graph"))
                sc->undirected = true;
            if (!(keyword && hf_i_dot_word_is(w, word, "strict")))
                header_tokens = 2;
        }
        if (first_closed && sc->second_line == 0)
            sc->second_line = tok_line;

        if (in_brackets) {
            /* attribute lists are flat; they only end */
            if (c == ']') {
                in_brackets = false;
                prev = TOK_OPERAND;
            }
            continue;
        }
        bool starts_statement = kind == TOK_OPERAND || keyword || is_open;
        if (prev == TOK_SUBGRAPH && kind == TOK_OPERAND && !keyword) {
            kind = TOK_SUBGRAPH_NAME;
        } else if (prev == TOK_OPERAND && starts_statement) {
            statement_end(cs);
        }
        if (c == ';' && !is_arrow)
            statement_end(cs);
        if (c == '[' && kind == TOK_OTHER && !keyword && !is_arrow)
            in_brackets = true;
        if (is_arrow) {
            cs->cost += (long)PARSER_COST_ARROW + (cs->arrows[cs->depth] == 0);
            cs->arrows[cs->depth]++;
            if (cs->cost > PARSER_STACK_BUDGET)
                return too_deep(tok_line, err);
        } else if (is_open) {
            if (cs->depth + 1 >= PARSER_MAX_LEVELS ||
                cs->cost + PARSER_COST_BRACE > PARSER_STACK_BUDGET)
                return too_deep(tok_line, err);
            cs->cost += PARSER_COST_BRACE;
            cs->depth++;
            cs->arrows[cs->depth] = 0;
        } else if (is_close && cs->depth > 0) {
            statement_end(cs);
            cs->cost -= PARSER_COST_BRACE;
            cs->depth--;
            if (cs->depth == 0)
                first_closed = true;
            kind = TOK_OPERAND; /* a subgraph may be followed by -> */
        }
        prev = kind == TOK_SUBGRAPH_NAME ? TOK_OTHER : kind;
    }
    return HF_OK;
}

hf_status hf_i_dot_prescan(hf_ctx *ctx, const char *s, size_t len, hf_i_dot_scan *sc, hf_error *err)
{
    chain_state *cs = hf_i_malloc(ctx, sizeof *cs);
    if (!cs)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_status st = prescan(s, len, sc, cs, err);
    hf_i_free(ctx, cs);
    return st;
}
