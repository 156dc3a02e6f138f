/* DOT input and output: reads a Graphviz digraph through libcgraph into the public poset builder,
 * and writes a poset's Hasse diagram back as DOT that reads back to the same poset. */
#include <graphviz/cgraph.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io_dot_fast.h"
#include "poset_i.h"

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

/* Its error callback path formats a message into a 1024-byte static buffer and, when the message
 * is longer, retries with an already consumed va_list (reading garbage). The buffer only ever
 * grows, so one long message without conversions, sent once per process, makes it large enough
 * for every message a parse can produce: those quote one bare token (at most HF_MAX_NAME bytes)
 * and a `# line "file"` name (at most LINE_FILE_MAX bytes). */
#define LINE_FILE_MAX     1024u
#define PRIME_MESSAGE_LEN 16384u

/* One captured libcgraph message: the first error and the first warning of a read are kept. */
#define MESSAGE_CAP (HF_MAX_NAME + LINE_FILE_MAX + 512u)

/* ---------------------------------------------------------------------------------------- */
/* Pre-scan: a mirror of the rules of libcgraph's scanner (lib/cgraph/scan.l) that finds what it
 * would handle badly or report poorly, before it runs.                                       */

typedef struct dot_scan {
    bool any_token;
    int first_line;  /* line of the first token */
    bool undirected; /* the header is `[strict] graph` */
    int second_line; /* line of the first token after the first graph's closing brace */
} dot_scan;

enum { TOK_NONE, TOK_OPERAND, TOK_SUBGRAPH, TOK_SUBGRAPH_NAME, TOK_OTHER };

static bool is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

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

/* A numeral as libcgraph reads one, [-]?(digits(.digits*)?|.digits): its length, or 0. */
size_t hf_i_dot_numeral_len(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    size_t d = i;
    while (i < len && is_digit((unsigned char)s[i]))
        i++;
    if (i > d) {
        if (i < len && s[i] == '.') {
            i++;
            while (i < len && is_digit((unsigned char)s[i]))
                i++;
        }
    } else {
        if (!(i + 1 < len && s[i] == '.' && is_digit((unsigned char)s[i + 1])))
            return 0;
        i++;
        while (i < len && is_digit((unsigned char)s[i]))
            i++;
    }
    return i;
}

/* libcgraph's NUMBER: a numeral and the '.' or letter run into it (Graphviz warns of those as a
 * "badly delimited number"); its length or 0. */
static size_t number_len(const char *s, size_t len)
{
    size_t i = hf_i_dot_numeral_len(s, len);
    if (i > 0 && i < len && (s[i] == '.' || is_letter((unsigned char)s[i])))
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
    if (i >= len || !is_digit((unsigned char)s[i]))
        return HF_OK;
    long v = 0;
    for (; i < len && is_digit((unsigned char)s[i]); i++)
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
        if (e - i - 1 > LINE_FILE_MAX)
            return hf_i_fail(err, HF_ETOOLARGE, at, 0,
                             "line directive names a file longer than %u bytes", LINE_FILE_MAX);
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

static hf_status prescan(const char *s, size_t len, dot_scan *sc, chain_state *cs, hf_error *err)
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
        } else if (is_letter(c) || number_len(s + i, len - i) > 0) {
            size_t n = number_len(s + i, len - i);
            if (n == 0) {
                n = 1;
                while (i + n < len &&
                       (is_letter((unsigned char)s[i + n]) || is_digit((unsigned char)s[i + n])))
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

/* ---------------------------------------------------------------------------------------- */
/* libcgraph's process-wide error state                                                      */

typedef struct capture {
    int expect; /* 0: a level word or text, 1: the ": " after a level word, 2: text */
    int level;  /* level of the message being received: 0 warning, 1 error */
    unsigned errors, warnings;
    bool recording; /* the current message is the first of its level */
    char first[2][MESSAGE_CAP];
    size_t first_len[2];
} capture;

/* libcgraph's handler takes no user pointer: the one read in progress (under dot_lock) is here.
 * Together with `dot_primed` this is the module's only global state, both guarded by dot_lock. */
static pthread_mutex_t dot_lock = PTHREAD_MUTEX_INITIALIZER;
static capture *dot_capture;
static bool dot_primed;

/* libcgraph sends a message as "Error" or "Warning", then ": ", then the text (continuations
 * come as text alone). */
static int capture_message(char *msg)
{
    capture *c = dot_capture;
    if (!c || !msg)
        return 0;
    if (c->expect == 1) {
        c->expect = 2;
        if (strcmp(msg, ": ") == 0)
            return 0;
    }
    if (c->expect != 2 && (strcmp(msg, "Error") == 0 || strcmp(msg, "Warning") == 0)) {
        c->level = msg[0] == 'E';
        unsigned *count = c->level ? &c->errors : &c->warnings;
        c->recording = (*count)++ == 0;
        c->expect = 1;
        return 0;
    }
    c->expect = 0;
    if (c->recording) {
        size_t *n = &c->first_len[c->level];
        size_t add = strlen(msg);
        if (add > MESSAGE_CAP - 1 - *n)
            add = MESSAGE_CAP - 1 - *n;
        memcpy(c->first[c->level] + *n, msg, add);
        *n += add;
        c->first[c->level][*n] = '\0';
    }
    return 0;
}

static void capture_reset(capture *c)
{
    c->expect = 0;
    c->level = 0;
    c->errors = c->warnings = 0;
    c->recording = false;
    c->first_len[0] = c->first_len[1] = 0;
    c->first[0][0] = c->first[1][0] = '\0';
}

/* See PRIME_MESSAGE_LEN. Called with dot_lock held and no capture attached. */
static hf_status prime_libcgraph(hf_ctx *ctx)
{
    if (dot_primed)
        return HF_OK;
    char *msg = hf_i_malloc(ctx, PRIME_MESSAGE_LEN + 1);
    if (!msg)
        return HF_ENOMEM;
    memset(msg, 'x', PRIME_MESSAGE_LEN);
    msg[PRIME_MESSAGE_LEN] = '\0';
    agerr(AGWARN, msg);
    hf_i_free(ctx, msg);
    dot_primed = true;
    return HF_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading                                                                                    */

typedef struct mem_chan {
    const char *data;
    size_t len, pos;
} mem_chan;

static int chan_read(void *chan, char *buf, int bufsize)
{
    mem_chan *m = chan;
    size_t n = m->len - m->pos;
    if (bufsize <= 0)
        return 0;
    if (n > (size_t)bufsize)
        n = (size_t)bufsize;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return (int)n;
}

static int chan_putstr(void *chan, const char *str)
{
    (void)chan;
    (void)str;
    return EOF;
}

static int chan_flush(void *chan)
{
    (void)chan;
    return 0;
}

/* Read graphs until libcgraph reports the end; only that path empties its scanner's buffer,
 * which would otherwise feed the next read, whoever makes it. */
static void drain(mem_chan *chan, Agdisc_t *disc, unsigned *graphs)
{
    Agraph_t *g;
    while ((g = agread(chan, disc)) != NULL) {
        if (graphs)
            (*graphs)++;
        agclose(g);
    }
}

/* Find "in line N" in a libcgraph message; 0 when absent. The phrase is msg[at, at + span). */
static int message_line(const char *msg, size_t *at, size_t *span)
{
    const char *p = strstr(msg, " in line ");
    if (!p)
        return 0;
    const char *q = p + 9;
    bool neg = *q == '-';
    if (neg)
        q++;
    if (!is_digit((unsigned char)*q))
        return 0;
    long v = 0;
    for (; is_digit((unsigned char)*q); q++)
        if (v < 1000000000L)
            v = v * 10 + (*q - '0');
    *at = (size_t)(p - msg);
    *span = (size_t)(q - p);
    return (int)(neg ? -v : v);
}

/* Copy s[0..n) for a message: control bytes become \xNN, long text ends in "...". */
static void quote_for_message(const char *s, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (k + 8 >= cap || i >= 48) {
            memcpy(buf + k, "...", 4);
            return;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(buf + k, cap - k, "\\x%02x", c);
            k += 4;
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k] = '\0';
}

/* Turn libcgraph's message into hitfam's: the line goes to err->line, the text says what is
 * wrong without the position (the CLI prints "FILE:LINE: text"). */
static hf_status explain(char *msg, bool warning, hf_error *err)
{
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = '\0';
    if (!*msg)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "Graphviz could not read the input");
    size_t at = 0, span = 0;
    int line = message_line(msg, &at, &span);
    char tok[80];
    const char *p;
    if ((p = strstr(msg, "memory exhausted")) != NULL) /* the pre-scan should prevent this */
        return hf_i_fail(err, HF_ETOOLARGE, line, 0,
                         "the Graphviz parser ran out of stack (subgraphs nested too deeply or "
                         "edge chain too long)");
    if (warning && (p = strstr(msg, "badly delimited number '")) != NULL) {
        p += strlen("badly delimited number '");
        const char *e = strstr(p, "' in line");
        quote_for_message(p, e ? (size_t)(e - p) : strlen(p), tok, sizeof tok);
        return hf_i_fail(err, HF_EPARSE, line, 0,
                         "ambiguous name '%s': a number directly followed by letters; put it in "
                         "quotes or separate the parts",
                         tok);
    }
    if ((p = strstr(msg, "syntax error")) != NULL) {
        const char *rest = span && msg + at >= p ? msg + at + span : p + strlen("syntax error");
        if (strncmp(rest, " near '", 7) == 0) {
            const char *t = rest + 7;
            size_t n = strlen(t);
            if (n > 0 && t[n - 1] == '\'')
                n--;
            quote_for_message(t, n, tok, sizeof tok);
            return hf_i_fail(err, HF_EPARSE, line, 0, "syntax error near '%s'", tok);
        }
        if (!*rest)
            return hf_i_fail(err, HF_EPARSE, line, 0, "syntax error at end of input");
        quote_for_message(rest, strlen(rest), tok, sizeof tok);
        return hf_i_fail(err, HF_EPARSE, line, 0, "syntax error%s", tok);
    }
    if (span)
        memmove(msg + at, msg + at + span, strlen(msg + at + span) + 1);
    char text[200];
    size_t n = strlen(msg);
    quote_for_message(msg, n, text, sizeof text);
    return hf_i_fail(err, HF_EPARSE, line, 0, "%s%s", warning ? "Graphviz warns: " : "", text);
}

bool hf_i_dot_truth_value(const char *v, bool *on)
{
    size_t n = strlen(v);
    if (n == 0 || hf_i_dot_word_is(v, n, "false") || hf_i_dot_word_is(v, n, "0") ||
        hf_i_dot_word_is(v, n, "no")) {
        *on = false;
        return true;
    }
    if (hf_i_dot_word_is(v, n, "true") || hf_i_dot_word_is(v, n, "1") ||
        hf_i_dot_word_is(v, n, "yes")) {
        *on = true;
        return true;
    }
    return false;
}

/* The line of the first `key = value` in the text whose key and value read as @p key and
 * @p value (0 if none): attribute values come from libcgraph without a position, so a message
 * about a bad one finds it again. Comments, quoted and <...> strings are skipped as the
 * scanner skips them. */
hf_status hf_i_dot_attr_find(hf_ctx *ctx, const char *s, size_t len, const char *key,
                             const char *value, int *line_out, char *owner, size_t owner_cap)
{
    char *buf = hf_i_malloc(ctx, 2 * len + 2);
    *line_out = 0;
    if (owner_cap)
        owner[0] = '\0';
    if (!buf)
        return HF_ENOMEM;
    int line = 1, found = 0;
    bool in_brackets = false, edge_statement = false, node_list = false, prev_id = false;
    size_t last_len = 0;
    char last[80] = ""; /* the last ID outside brackets: the owner of the next '[' list */
    int state = 0;      /* 0: nothing, 1: saw the key, 2: saw key and '=' */
    bool bol = true;
    for (size_t i = 0; i < len && !found;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line++;
            bol = true;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (c == '#' && bol) {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        bol = false;
        if (c == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*')) {
            if (s[i + 1] == '/') {
                while (i < len && s[i] != '\n')
                    i++;
            } else {
                for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
                    line += s[i] == '\n';
                i += 2;
            }
            continue;
        }
        int tok_line = line;
        size_t tok_len = 0;
        bool is_id = true;
        if (c == '"') {
            size_t used = hf_i_dot_quoted_value(s + i + 1, len - i - 1, buf, &tok_len);
            if (used == 0)
                break;
            for (size_t k = i + 1; k < i + 1 + used; k++)
                line += s[k] == '\n';
            i += 1 + used;
        } else if (c == '<') {
            size_t k = i + 1, depth = 1;
            for (; k < len && depth > 0; k++) {
                depth += s[k] == '<';
                depth -= s[k] == '>';
                line += s[k] == '\n';
            }
            tok_len = k - i - 2 < len ? k - i - 2 : 0;
            memcpy(buf, s + i + 1, tok_len);
            i = k;
        } else if (is_letter(c) || is_digit(c) || c == '-' || c == '.') {
            size_t k = i;
            while (k < len && (is_letter((unsigned char)s[k]) || is_digit((unsigned char)s[k]) ||
                               s[k] == '-' || s[k] == '.'))
                k++;
            if (k == i + 1 && c == '-' && k < len && (s[k] == '>' || s[k] == '-')) {
                is_id = false;
                k++;
            }
            tok_len = k - i;
            memcpy(buf, s + i, tok_len);
            i = k;
        } else {
            is_id = false;
            buf[0] = (char)c;
            tok_len = 1;
            i++;
        }
        buf[tok_len] = '\0';
        if (!in_brackets && is_id && prev_id)
            edge_statement = false; /* two IDs in a row: a new statement began */
        if (!in_brackets)
            prev_id = is_id;
        if (!in_brackets && is_id) {
            last_len = tok_len < sizeof last - 1 ? tok_len : sizeof last - 1;
            memcpy(last, buf, last_len);
            last[last_len] = '\0';
        }
        if (!is_id && !in_brackets && tok_len == 2 && buf[0] == '-')
            edge_statement = true; /* -> or -- */
        if (!is_id && buf[0] == '[' && !in_brackets) {
            /* the attributes of a node, or of every node: not of edges or graphs */
            in_brackets = true;
            node_list = !edge_statement && !hf_i_dot_word_is(last, last_len, "edge") &&
                        !hf_i_dot_word_is(last, last_len, "graph");
            if (owner_cap)
                snprintf(owner, owner_cap, "%s", last);
        } else if (!is_id && (buf[0] == ']' || buf[0] == ';' || buf[0] == '{' || buf[0] == '}')) {
            in_brackets = false;
            edge_statement = false;
        }
        if (state == 2 && is_id && tok_len == strlen(value) && memcmp(buf, value, tok_len) == 0 &&
            in_brackets && node_list)
            found = tok_line;
        else if (state == 1 && !is_id && buf[0] == '=')
            state = 2;
        else
            state = is_id && strcmp(buf, key) == 0 ? 1 : 0;
    }
    hf_i_free(ctx, buf);
    if (!found && owner_cap)
        owner[0] = '\0';
    *line_out = found;
    return HF_OK;
}

/* A message about the value of attribute `key` of an event, at the value's line when the text
 * shows it (out of memory instead when looking for it fails). */
static hf_status attr_fail(hf_ctx *ctx, const char *text, size_t text_len, const char *key,
                           const char *value, hf_error *err, const char *fmt, ...)
    HF_I_PRINTF(7, 8);
static hf_status attr_fail(hf_ctx *ctx, const char *text, size_t text_len, const char *key,
                           const char *value, hf_error *err, const char *fmt, ...)
{
    int line;
    if (hf_i_dot_attr_find(ctx, text, text_len, key, value, &line, NULL, 0))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    char msg[sizeof err->text];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return hf_i_fail(err, HF_EPARSE, line, 0, "%s", msg);
}

/* The event's `obj=` and `access=` attributes (either may be absent: NULL or ""). */
static hf_status read_object(hf_ctx *ctx, hf_poset_builder *b, uint32_t id, const char *name,
                             const char *ov, const char *av, const char *text, size_t text_len,
                             hf_error *err)
{
    char q[80], qv[80];
    hf_access access = HF_ACCESS_WRITE;
    if (av && av[0]) {
        size_t n = strlen(av);
        if (hf_i_dot_word_is(av, n, "r") || hf_i_dot_word_is(av, n, "read"))
            access = HF_ACCESS_READ;
        else if (!hf_i_dot_word_is(av, n, "w") && !hf_i_dot_word_is(av, n, "write"))
            return attr_fail(ctx, text, text_len, "access", av, err,
                             "event %s: access=%s is not r or w (read or write)",
                             hf_i_name_quote(name, q, sizeof q),
                             hf_i_name_quote(av, qv, sizeof qv));
        if (!ov || !ov[0])
            return attr_fail(ctx, text, text_len, "access", av, err,
                             "event %s: access=%s without obj=NAME (the object it %s)",
                             hf_i_name_quote(name, q, sizeof q), hf_i_name_quote(av, qv, sizeof qv),
                             access == HF_ACCESS_READ ? "reads" : "writes");
    }
    if (!ov || !ov[0])
        return HF_OK;
    hf_status st = hf_poset_builder_set_object(b, id, ov, access);
    if (st == HF_ETOOLARGE)
        return hf_i_fail(err, st, 0, 0, "event %s: object name longer than %u bytes",
                         hf_i_name_quote(name, q, sizeof q), HF_MAX_NAME);
    if (st)
        return hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
    return HF_OK;
}

/* Events in libcgraph's node order (first appearance), then every edge of the root graph (it
 * holds the edges of all subgraphs). */
static hf_status build_from_graph(hf_ctx *ctx, Agraph_t *g, const char *text, size_t text_len,
                                  hf_poset_builder *b, hf_error *err)
{
    uint64_t max_seq = 0;
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
        if ((uint64_t)AGSEQ(n) > max_seq)
            max_seq = AGSEQ(n);
    if (max_seq >= SIZE_MAX / sizeof(uint32_t))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    uint32_t *ids = hf_i_alloc_array(ctx, (size_t)max_seq + 1, sizeof *ids);
    hf_status st = HF_OK;
    char q[80], qv[80];
    if (!ids) {
        st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        goto done;
    }
    char focus_attr[] = "focus", thread_attr[] = "thread", obj_attr[] = "obj",
         access_attr[] = "access";
    Agsym_t *focus = agattr(g, AGNODE, focus_attr, NULL);
    Agsym_t *thread = agattr(g, AGNODE, thread_attr, NULL);
    Agsym_t *obj = agattr(g, AGNODE, obj_attr, NULL);
    Agsym_t *access = agattr(g, AGNODE, access_attr, NULL);
    if (obj) {
        /* libcgraph gives "" for an event without the attribute and for an explicit obj="": the
         * text tells them apart */
        char owner[80];
        int line;
        if ((st = hf_i_dot_attr_find(ctx, text, text_len, "obj", "", &line, owner, sizeof owner))) {
            hf_i_fail(err, st, 0, 0, "out of memory");
            goto done;
        }
        if (line) {
            st = hf_i_fail(err, HF_EPARSE, line, 0,
                           "%s%s: obj= is empty (name the object the event touches, or leave "
                           "the attribute out)",
                           hf_i_dot_word_is(owner, strlen(owner), "node") ? "node defaults"
                                                                          : "event ",
                           hf_i_dot_word_is(owner, strlen(owner), "node")
                               ? ""
                               : hf_i_name_quote(owner, q, sizeof q));
            goto done;
        }
    }
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const char *raw = agnameof(n);
        if (!raw)
            raw = "";
        if (raw[0] == '%') {
            /* libcgraph keeps such names as anonymous ids and prints its own "%N" */
            st = hf_i_fail(err, HF_EPARSE, 0, 0,
                           "a node name starts with '%%', which Graphviz reserves (it reads back "
                           "as %s); rename the node",
                           hf_i_name_quote(raw, q, sizeof q));
            goto done;
        }
        /* the name is what Graphviz made of the ID, byte for byte (its own escapes undone,
         * nothing more), so that hitfam and Graphviz's tools agree on every event */
        const char *name = raw;
        size_t len = strlen(raw);
        if (len > HF_MAX_NAME) {
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0, "event name longer than %u bytes (%zu): %s",
                           HF_MAX_NAME, len, hf_i_name_quote(name, q, 48));
            goto done;
        }
        uint32_t id;
        st = hf_poset_builder_add_event(b, name, &id);
        if (st == HF_ETOOLARGE) {
            hf_i_fail(err, st, 0, 0, "the graph has more than %u events", HF_MAX_EVENTS);
            goto done;
        }
        if (st) {
            hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
            goto done;
        }
        ids[AGSEQ(n)] = id;
        if (focus) {
            const char *v = agxget(n, focus);
            bool on = false;
            if (v && !hf_i_dot_truth_value(v, &on)) {
                st = attr_fail(ctx, text, text_len, "focus", v, err,
                               "event %s: focus=%s is not a truth value (use true, false, yes, "
                               "no, 1 or 0)",
                               hf_i_name_quote(name, q, sizeof q),
                               hf_i_name_quote(v, qv, sizeof qv));
                goto done;
            }
            if (on && (st = hf_poset_builder_set_focus(b, id))) {
                hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
                goto done;
            }
        }
        const char *tv = thread ? agxget(n, thread) : NULL;
        if (tv && tv[0]) {
            hf_i_name_quote(name, q, sizeof q);
            st = hf_poset_builder_set_thread(b, id, tv);
            if (st == HF_ETOOLARGE) {
                hf_i_fail(err, st, 0, 0, "event %s: thread name longer than %u bytes", q,
                          HF_MAX_NAME);
                goto done;
            }
            if (st) {
                hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
                goto done;
            }
        }
        if ((st = read_object(ctx, b, id, name, obj ? agxget(n, obj) : NULL,
                              access ? agxget(n, access) : NULL, text, text_len, err)))
            goto done;
    }
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
        for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
            st = hf_poset_builder_add_order(b, ids[AGSEQ(agtail(e))], ids[AGSEQ(aghead(e))]);
            if (st) {
                hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
                goto done;
            }
        }
done:
    hf_i_free(ctx, ids);
    return st;
}

/* Run libcgraph on the input under the lock, with its error state captured and restored, and
 * feed the builder. */
static hf_status parse_locked(hf_ctx *ctx, const char *data, size_t len, const dot_scan *sc,
                              capture *cap, hf_poset_builder *b, hf_error *err)
{
    Agiodisc_t io = {chan_read, chan_putstr, chan_flush};
    Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &io};
    mem_chan none = {"", 0, 0};
    mem_chan chan = {data, len, 0};
    hf_status st = HF_OK;

    pthread_mutex_lock(&dot_lock);
    agusererrf old_fn = agseterrf(capture_message);
    agerrlevel_t old_level = agseterr(AGWARN);
    int old_max = agerrors();
    dot_capture = NULL;
    if ((st = prime_libcgraph(ctx))) {
        hf_i_fail(err, st, 0, 0, "out of memory");
        goto restore;
    }
    drain(&none, &disc, NULL); /* someone else's unread input must not become ours */
    agsetfile(NULL);           /* no file name from an earlier `# line` directive; line 1 */

    capture_reset(cap);
    dot_capture = cap;
    Agraph_t *g = agread(&chan, &disc);
    if (!g || cap->errors || cap->warnings) {
        bool warning = cap->errors == 0 && cap->warnings > 0;
        if (g) {
            agclose(g);
            dot_capture = NULL;
            drain(&chan, &disc, NULL);
        }
        if (cap->errors || cap->warnings)
            st = explain(cap->first[warning ? 0 : 1], warning, err);
        else
            st = hf_i_fail(err, HF_EPARSE, 0, 0, "empty input: no graph");
        goto restore;
    }

    capture_reset(cap);
    unsigned more = 0;
    drain(&chan, &disc, &more);
    dot_capture = NULL;
    if (more > 0)
        st = hf_i_fail(err, HF_EPARSE, sc->second_line, 0,
                       "several graphs in one input (graph 2 starts at line %d)", sc->second_line);
    else if (cap->errors || cap->warnings)
        st = explain(cap->first[cap->errors ? 1 : 0], cap->errors == 0, err);
    else if (!agisdirected(g))
        st = hf_i_fail(err, HF_EPARSE, sc->first_line, 0, "undirected graph: use digraph and ->");
    else if (agnnodes(g) == 0)
        st = hf_i_fail(err, HF_EPARSE, sc->first_line, 0, "the graph has no events");
    else
        st = build_from_graph(ctx, g, data, len, b, err);
    agclose(g);

restore:
    dot_capture = NULL;
    if (old_max < AGERR && agerrors() >= AGERR)
        agreseterrors();
    agseterr(old_level);
    agseterrf(old_fn);
    pthread_mutex_unlock(&dot_lock);
    return st;
}

hf_status hf_dot_read_mem(hf_ctx *ctx, const char *data, size_t len, hf_poset **out, hf_error *err)
{
    hf_i_dot_path path = HF_I_DOT_AUTO;
    const char *env = getenv("HITFAM_DOT_READER");
    if (env && strcmp(env, "fast") == 0)
        path = HF_I_DOT_FAST;
    else if (env && strcmp(env, "libcgraph") == 0)
        path = HF_I_DOT_CGRAPH;
    return hf_i_dot_read_path(ctx, data, len, path, out, err);
}

hf_status hf_i_dot_read_path(hf_ctx *ctx, const char *data, size_t len, hf_i_dot_path path,
                             hf_poset **out, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!out || (!data && len))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (!data)
        data = "";
    /* libcgraph skips a byte order mark only when a blank follows it */
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        len -= 3;
    }
    if (path != HF_I_DOT_CGRAPH) {
        /* the plain subset in one pass; libcgraph reads (and explains) everything else */
        hf_status st = hf_i_dot_read_fast(ctx, data, len, out, err);
        if (st != HF_EUNSUPPORTED)
            return st;
        if (path == HF_I_DOT_FAST)
            return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                             "the input is not in the plain DOT subset of the fast reader");
    }
    return hf_i_dot_read_cgraph(ctx, data, len, out, err);
}

hf_status hf_i_dot_read_cgraph(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                               hf_error *err)
{
    hf_i_error_clear(err);
    *out = NULL;
    dot_scan sc;
    chain_state *cs = hf_i_malloc(ctx, sizeof *cs);
    if (!cs)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_status st = prescan(data, len, &sc, cs, err);
    hf_i_free(ctx, cs);
    if (st)
        return st;
    if (!sc.any_token)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "empty input: no graph");
    if (sc.undirected)
        return hf_i_fail(err, HF_EPARSE, sc.first_line, 0, "undirected graph: use digraph and ->");

    capture *cap = hf_i_malloc(ctx, sizeof *cap);
    hf_poset_builder *b = NULL;
    if (!cap || (st = hf_poset_builder_new(ctx, &b))) {
        hf_i_free(ctx, cap);
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    st = parse_locked(ctx, data, len, &sc, cap, b, err);
    hf_i_free(ctx, cap);
    if (!st)
        st = hf_poset_builder_finish(b, out, err);
    hf_poset_builder_free(b);
    return st;
}

hf_status hf_dot_read_file(hf_ctx *ctx, FILE *in, hf_poset **out, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!in || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (HF_I_GROW(ctx, buf, &cap, len + 65536)) {
            hf_i_free(ctx, buf);
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        }
        size_t got = fread(buf + len, 1, cap - len, in);
        len += got;
        if (got == 0 || feof(in) || ferror(in))
            break;
    }
    if (ferror(in)) {
        hf_i_free(ctx, buf);
        return hf_i_fail(err, HF_EIO, 0, 0, "reading the input failed");
    }
    hf_status st = hf_dot_read_mem(ctx, buf, len, out, err);
    hf_i_free(ctx, buf);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing                                                                                    */

/* One `key=value` of a node's attribute list: " [" before the first, ", " before the others. */
static hf_status write_attr(hf_ctx *ctx, FILE *out, bool *first, const char *key, const char *value)
{
    if (fputs(*first ? " [" : ", ", out) < 0 || fputs(key, out) < 0 || putc('=', out) == EOF)
        return HF_EIO;
    *first = false;
    return hf_i_dot_id_write(ctx, out, value, false);
}

hf_status hf_dot_write(const hf_poset *p, FILE *out)
{
    if (!p || !out)
        return HF_EINVAL;
    /* every name and label must read back as itself before anything is written */
    for (uint32_t v = 0; v < p->n; v++) {
        hf_status st = hf_i_dot_id_check(p->ctx, hf_i_name(p, v), true);
        if (st)
            return st;
    }
    const hf_i_labels *labels[] = {&p->threads, &p->objects};
    for (size_t l = 0; l < 2; l++)
        for (uint32_t k = 0; k < labels[l]->count; k++) {
            hf_status st = hf_i_dot_id_check(p->ctx, hf_i_label_name(labels[l], k), false);
            if (st)
                return st;
        }
    hf_status st = fputs("digraph {\n", out) >= 0 ? HF_OK : HF_EIO;
    uint32_t f = 0;
    for (uint32_t v = 0; v < p->n && !st; v++) {
        bool focus = f < p->focus_count && p->focus[f] == v, first = true;
        if (focus)
            f++;
        uint32_t t = p->threads.of ? p->threads.of[v] : HF_NO_EVENT;
        uint32_t o = p->objects.of ? p->objects.of[v] : HF_NO_EVENT;
        st = fputs("  ", out) >= 0 ? hf_i_dot_id_write(p->ctx, out, hf_i_name(p, v), true) : HF_EIO;
        if (!st && focus)
            st = write_attr(p->ctx, out, &first, "focus", "true");
        if (!st && t != HF_NO_EVENT)
            st = write_attr(p->ctx, out, &first, "thread", hf_i_label_name(&p->threads, t));
        if (!st && o != HF_NO_EVENT)
            st = write_attr(p->ctx, out, &first, "obj", hf_i_label_name(&p->objects, o));
        if (!st && o != HF_NO_EVENT && p->access[v] == HF_ACCESS_READ)
            st = write_attr(p->ctx, out, &first, "access", "r");
        if (!st && !first && putc(']', out) == EOF)
            st = HF_EIO;
        if (!st && putc('\n', out) == EOF)
            st = HF_EIO;
    }
    for (uint32_t u = 0; u < p->n && !st; u++)
        for (size_t i = p->succ_off[u]; i < p->succ_off[u + 1] && !st; i++) {
            st = fputs("  ", out) >= 0 ? hf_i_dot_id_write(p->ctx, out, hf_i_name(p, u), true)
                                       : HF_EIO;
            if (!st)
                st = fputs(" -> ", out) >= 0
                         ? hf_i_dot_id_write(p->ctx, out, hf_i_name(p, p->succ[i]), true)
                         : HF_EIO;
            if (!st && putc('\n', out) == EOF)
                st = HF_EIO;
        }
    if (!st && fputs("}\n", out) < 0)
        st = HF_EIO;
    if (!st && ferror(out))
        st = HF_EIO;
    return st;
}
