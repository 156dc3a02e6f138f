/* Event names in text. Two quotings: the family formats' (double quotes with \" \\ \n escapes, any
 * byte string reads back as itself; this file holds the one reader of them) and DOT's as
 * Graphviz reads it (inside double quotes only \" is an escape, so a backslash stays a
 * backslash); bare DOT identifiers and numerals are common to both. */
#include <string.h>

#include "names.h"

static bool is_id_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static bool is_keyword(const char *s)
{
    static const char *const kw[] = {"node", "edge", "graph", "digraph", "subgraph", "strict"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
        const char *k = kw[i];
        const char *t = s;
        while (*k && *t && (*t | 0x20) == *k) {
            k++;
            t++;
        }
        if (!*k && !*t)
            return true;
    }
    return false;
}

/* DOT numeral: [-]?(.[0-9]+|[0-9]+(.[0-9]*)?) */
static bool is_numeral(const char *s)
{
    if (*s == '-')
        s++;
    size_t before = 0, after = 0;
    while (is_digit((unsigned char)*s)) {
        s++;
        before++;
    }
    if (*s == '.') {
        s++;
        while (is_digit((unsigned char)*s)) {
            s++;
            after++;
        }
        return !*s && (before > 0 || after > 0);
    }
    return !*s && before > 0;
}

bool hf_i_name_is_bare(const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    /* a leading UTF-8 byte order mark would be skipped by readers at the start of a file */
    if (!*s || strncmp(name, "\xEF\xBB\xBF", 3) == 0)
        return false;
    if (is_id_start(*s)) {
        for (s++; *s; s++)
            if (!is_id_start(*s) && !is_digit(*s))
                return false;
        size_t len = (size_t)((const char *)s - name); /* the keywords have 4 to 8 letters */
        return len < 4 || len > 8 || !is_keyword(name);
    }
    return is_numeral(name);
}

/* Escape table shared by both quoting functions. */
static const char *escape_of(char c)
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    default:
        return NULL;
    }
}

const char *hf_i_name_quote(const char *name, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    if (hf_i_name_is_bare(name) && strlen(name) < cap) {
        memcpy(buf, name, strlen(name) + 1);
        return buf;
    }
    size_t k = 0;
    const size_t room = cap > 6 ? cap - 5 : 0; /* keep space for `..."` and NUL */
    if (k < room)
        buf[k++] = '"';
    bool cut = false;
    for (const char *s = name; *s; s++) {
        const char *e = escape_of(*s);
        size_t len = e ? strlen(e) : 1;
        if (k + len > room) {
            cut = true;
            break;
        }
        if (e) {
            memcpy(buf + k, e, len);
            k += len;
        } else {
            buf[k++] = *s;
        }
    }
    if (cut && cap > 6) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    if (k + 1 < cap)
        buf[k++] = '"';
    buf[k < cap ? k : cap - 1] = '\0';
    return buf;
}

bool hf_i_name_write(FILE *out, const char *name)
{
    /* the common case in one pass: an identifier of letters, '_' and digits (not starting with
     * a byte order mark's first byte), written with its length once known */
    const unsigned char *u = (const unsigned char *)name;
    if (is_id_start(u[0]) && u[0] != 0xEF) {
        size_t k = 1;
        while (is_id_start(u[k]) || is_digit(u[k]))
            k++;
        if (!u[k] && (k < 4 || k > 8 || !is_keyword(name)))
            return fwrite(name, 1, k, out) == k;
    }
    if (hf_i_name_is_bare(name))
        return fputs(name, out) >= 0;
    if (putc('"', out) == EOF)
        return false;
    for (const char *s = name; *s; s++) {
        const char *e = escape_of(*s);
        if (e ? fputs(e, out) < 0 : putc(*s, out) == EOF)
            return false;
    }
    return putc('"', out) != EOF;
}

hf_status hf_name_write(FILE *out, const char *name)
{
    if (!out || !name)
        return HF_EINVAL;
    return hf_i_name_write(out, name) ? HF_OK : HF_EIO;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading names back                                                                         */

void hf_i_name_buf_reset(hf_i_name_buf *b)
{
    b->len = 0;
    b->bad = false;
    b->text[0] = '\0';
}

void hf_i_name_buf_push(hf_i_name_buf *b, char c)
{
    if (c == '\0' || b->len >= HF_MAX_NAME) {
        b->bad = true;
        return;
    }
    b->text[b->len++] = c;
    b->text[b->len] = '\0';
}

bool hf_i_name_buf_find(const hf_i_name_buf *b, const hf_poset *p, uint32_t *id)
{
    return !b->bad && hf_poset_find(p, b->text, id) == HF_OK;
}

bool hf_i_name_unquote(const char *s, size_t len, size_t start, hf_i_name_buf *b,
                       hf_i_unquoted *where)
{
    where->lines = 0;
    where->line_start = 0;
    hf_i_name_buf_reset(b);
    for (size_t i = start + 1;;) {
        if (i >= len || s[i] == '\n' || (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
            return false;
        char c = s[i];
        if (c == '"') {
            where->end = i + 1;
            return true;
        }
        if (c != '\\') {
            hf_i_name_buf_push(b, c);
            i++;
            continue;
        }
        if (i + 1 >= len)
            return false;
        char e = s[i + 1];
        size_t next = i + 2;
        if (e == '"' || e == '\\') {
            hf_i_name_buf_push(b, e);
        } else if (e == 'n') {
            hf_i_name_buf_push(b, '\n');
        } else if (e == '\n' || (e == '\r' && next < len && s[next] == '\n')) {
            next += e == '\r';
            where->lines++;
            where->line_start = next;
        } else {
            hf_i_name_buf_push(b, '\\');
            hf_i_name_buf_push(b, e);
        }
        i = next;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* DOT IDs as Graphviz reads them                                                            */

/* What Graphviz's scanner (libcgraph 2.4x) makes of the quoted string that starts after the
 * opening quote at t: \" is a quote, \\ stays two backslashes, backslash-newline is dropped, a
 * lone backslash stays, and a run of other bytes is copied except when the run is one newline
 * alone (then it is dropped: the scanner's line-counting rule wins the tie). Returns the number
 * of bytes of t consumed up to and including the closing quote (0 if there is none) and writes
 * the value to out (room for len bytes + NUL), its length to *out_len. */
size_t hf_i_dot_quoted_value(const char *t, size_t len, char *out, size_t *out_len)
{
    size_t i = 0, k = 0;
    while (i < len) {
        char c = t[i];
        if (c == '"') {
            out[k] = '\0';
            *out_len = k;
            return i + 1;
        }
        if (c == '\\') {
            char e = i + 1 < len ? t[i + 1] : '\0';
            if (e == '"') {
                out[k++] = '"';
                i += 2;
            } else if (e == '\\') {
                out[k++] = '\\';
                out[k++] = '\\';
                i += 2;
            } else if (e == '\n') {
                i += 2;
            } else {
                out[k++] = '\\';
                i++;
            }
            continue;
        }
        size_t j = i;
        while (j < len && t[j] != '"' && t[j] != '\\')
            j++;
        if (!(j == i + 1 && c == '\n')) {
            memcpy(out + k, t + i, j - i);
            k += j - i;
        }
        i = j;
    }
    return 0;
}

/* Angle brackets that nest properly: Graphviz then reads <s> as s. */
static bool angle_balanced(const char *s)
{
    long depth = 0;
    for (; *s; s++) {
        if (*s == '<')
            depth++;
        else if (*s == '>' && --depth < 0)
            return false;
    }
    return depth == 0;
}

/* How a string is written as a DOT ID: bare, in double quotes (with \" for quotes), in angle
 * brackets, or not at all. Quotes are tried by reading the quoted form back through the
 * scanner's rules; they fail for an odd run of backslashes before a quote, a newline or the end,
 * and for a newline between the opening quote or an escape and a quote or a backslash. */
typedef enum dot_form { DOT_BARE, DOT_QUOTED, DOT_ANGLE, DOT_NONE } dot_form;

static dot_form dot_form_of(hf_ctx *ctx, const char *s, bool node_name, hf_status *st)
{
    *st = HF_OK;
    if (node_name && s[0] == '%')
        return DOT_NONE; /* Graphviz gives such node names an anonymous id of its own */
    if (hf_i_name_is_bare(s))
        return DOT_BARE;
    size_t n = strlen(s), q = 0;
    for (const char *c = s; *c; c++)
        q += *c == '"';
    if (n > (SIZE_MAX - 2) / 2) {
        *st = HF_ENOMEM;
        return DOT_NONE;
    }
    char *enc = hf_i_malloc(ctx, n + q + 1), *back = hf_i_malloc(ctx, 2 * (n + q) + 2);
    if (!enc || !back) {
        hf_i_free(ctx, enc);
        hf_i_free(ctx, back);
        *st = HF_ENOMEM;
        return DOT_NONE;
    }
    size_t k = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            enc[k++] = '\\';
        enc[k++] = *c;
    }
    enc[k++] = '"';
    size_t back_len = 0;
    bool same = hf_i_dot_quoted_value(enc, k, back, &back_len) == k && back_len == n &&
                memcmp(back, s, n) == 0;
    hf_i_free(ctx, enc);
    hf_i_free(ctx, back);
    if (same)
        return DOT_QUOTED;
    return angle_balanced(s) ? DOT_ANGLE : DOT_NONE;
}

hf_status hf_i_dot_id_write(hf_ctx *ctx, FILE *out, const char *s, bool node_name)
{
    hf_status st;
    switch (dot_form_of(ctx, s, node_name, &st)) {
    case DOT_BARE:
        return fputs(s, out) >= 0 ? HF_OK : HF_EIO;
    case DOT_ANGLE:
        return putc('<', out) != EOF && fputs(s, out) >= 0 && putc('>', out) != EOF ? HF_OK
                                                                                    : HF_EIO;
    case DOT_QUOTED:
        if (putc('"', out) == EOF)
            return HF_EIO;
        for (const char *c = s; *c; c++)
            if ((*c == '"' && putc('\\', out) == EOF) || putc(*c, out) == EOF)
                return HF_EIO;
        return putc('"', out) != EOF ? HF_OK : HF_EIO;
    default:
        return st ? st : HF_EUNSUPPORTED;
    }
}

hf_status hf_i_dot_id_check(hf_ctx *ctx, const char *s, bool node_name)
{
    hf_status st;
    return dot_form_of(ctx, s, node_name, &st) == DOT_NONE ? (st ? st : HF_EUNSUPPORTED) : HF_OK;
}

hf_status hf_dot_write_name(FILE *out, const char *name)
{
    if (!out || !name)
        return HF_EINVAL;
    return hf_i_dot_id_write(NULL, out, name, true);
}

hf_status hf_dot_write_value(FILE *out, const char *value)
{
    if (!out || !value)
        return HF_EINVAL;
    return hf_i_dot_id_write(NULL, out, value, false);
}

hf_status hf_dot_check_name(const char *name)
{
    return name ? hf_i_dot_id_check(NULL, name, true) : HF_EINVAL;
}

hf_status hf_dot_check_value(const char *value)
{
    return value ? hf_i_dot_id_check(NULL, value, false) : HF_EINVAL;
}
