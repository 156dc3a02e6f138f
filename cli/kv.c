/* The key-value writer of cli/kv.h: the same sequence of calls gives the text record or the JSON
 * object, so that a command states each field once. */
#include <inttypes.h>
#include <string.h>

#include "kv.h"

static void json_string(FILE *out, const char *s)
{
    putc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            putc(c, out);
    }
    putc('"', out);
}

/* A key in text: indented, words separated by spaces. */
static void text_key(kv *w, const char *k)
{
    fprintf(w->out, "%*s", w->level[w->depth].indent, "");
    for (; *k; k++)
        putc(*k == '_' ? ' ' : *k, w->out);
}

/* The start of a field: JSON separator and key, or text indentation and key. */
static void key(kv *w, const char *k)
{
    if (w->json) {
        if (!w->level[w->depth].first)
            fputs(", ", w->out);
        w->level[w->depth].first = false;
        json_string(w->out, k);
        fputs(": ", w->out);
        return;
    }
    if (w->level[w->depth].table) {
        fprintf(w->out, "%*s%-10s ", w->level[w->depth].indent, "", k);
        return;
    }
    text_key(w, k);
    fputs(": ", w->out);
}

static void end_field(kv *w)
{
    if (!w->json)
        putc('\n', w->out);
}

static void push(kv *w, bool table, int indent)
{
    if (w->depth + 1 < KV_MAX_DEPTH)
        w->depth++;
    w->level[w->depth].first = true;
    w->level[w->depth].table = table;
    w->level[w->depth].indent = indent;
}

void kv_begin(kv *w, FILE *out, bool json)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->json = json;
    w->level[0].first = true;
    if (json)
        putc('{', out);
}

void kv_end(kv *w)
{
    if (w->json)
        fputs("}\n", w->out);
}

void kv_u64(kv *w, const char *k, uint64_t v)
{
    key(w, k);
    fprintf(w->out, "%" PRIu64, v);
    end_field(w);
}

void kv_mpz(kv *w, const char *k, const mpz_t v)
{
    key(w, k);
    gmp_fprintf(w->out, "%Zd", v);
    end_field(w);
}

void kv_str(kv *w, const char *k, const char *s)
{
    key(w, k);
    if (w->json)
        json_string(w->out, s);
    else
        fputs(s, w->out);
    end_field(w);
}

void kv_none(kv *w, const char *k, const char *text)
{
    key(w, k);
    fputs(w->json ? "null" : text, w->out);
    end_field(w);
}

void kv_json_bool(kv *w, const char *k, bool v)
{
    if (!w->json)
        return;
    key(w, k);
    fputs(v ? "true" : "false", w->out);
}

void kv_list_begin(kv *w, const char *k)
{
    if (w->json) {
        key(w, k);
        putc('[', w->out);
    }
    push(w, false, w->level[w->depth].indent);
}

void kv_list_end(kv *w)
{
    w->depth--;
    if (w->json)
        putc(']', w->out);
}

void kv_item_begin(kv *w, const char *k, uint64_t v)
{
    int indent = w->level[w->depth].indent;
    if (w->json) {
        if (!w->level[w->depth].first)
            fputs(", ", w->out);
        w->level[w->depth].first = false;
        putc('{', w->out);
        push(w, false, 0);
        kv_u64(w, k, v);
        return;
    }
    fprintf(w->out, "%*s%s=%" PRIu64 ":\n", indent, "", k, v);
    push(w, false, indent + 2);
}

void kv_item_end(kv *w)
{
    w->depth--;
    if (w->json)
        putc('}', w->out);
}

void kv_object_begin(kv *w, const char *k, bool table)
{
    int indent = w->level[w->depth].indent;
    if (w->json) {
        key(w, k);
        putc('{', w->out);
    } else {
        text_key(w, k);
        fputs(":\n", w->out);
    }
    push(w, table, indent + 2);
}

void kv_object_end(kv *w)
{
    w->depth--;
    if (w->json)
        putc('}', w->out);
}
