/* Event names in text: which names DOT accepts bare, the quoting used by every writer and
 * every message, and the one reader of quoted names, so that a name always reads back as itself. */
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
        return !is_keyword(name);
    }
    return is_numeral(name);
}

/* Escape table shared by both quoting functions. */
static const char *escape_of(char c)
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    default: return NULL;
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
