/* The key-value writer of cli/kv.h: the same sequence of calls gives the text record or the JSON
 * object, so that a command states each field once. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
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

/* "3.8e+5294567": two significant digits of the number whose decimal logarithm is l (>= 0);
 * "0" for l < 0 (the count 0). */
static void approx_text(char *buf, size_t size, double l)
{
    if (!(l >= 0)) {
        snprintf(buf, size, "0");
        return;
    }
    double e = floor(l);
    double mant = round(pow(10.0, l - e) * 10.0) / 10.0;
    if (mant >= 10.0) {
        mant /= 10.0;
        e += 1.0;
    }
    snprintf(buf, size, "%.1fe+%.0f", mant, e);
}

/* log10 of v > 0 from its leading bits. */
static double mpz_log10(const mpz_t v)
{
    long exp2;
    double d = mpz_get_d_2exp(&exp2, v);
    return log10(d) + (double)exp2 * log10(2.0);
}

static void approx_field(kv *w, const char *k, double l)
{
    char name[128], text[64];
    snprintf(name, sizeof name, "%s_approx", k);
    approx_text(text, sizeof text, l);
    kv_str(w, name, text);
}

void kv_count(kv *w, const char *k, const mpz_t v)
{
    size_t digits = mpz_sizeinbase(v, 10);
    double l = mpz_sgn(v) > 0 ? mpz_log10(v) : -1.0;
    if (digits > KV_EXACT_DIGITS + 1 || (digits == KV_EXACT_DIGITS + 1 && l >= KV_EXACT_DIGITS)) {
        if (!w->exact) {
            kv_count_log10(w, k, l);
            return;
        }
    }
    kv_mpz(w, k, v);
    if (w->json)
        approx_field(w, k, l);
}

void kv_count_log10(kv *w, const char *k, double l)
{
    if (w->json) {
        kv_none(w, k, "");
        approx_field(w, k, l);
        return;
    }
    char text[64];
    approx_text(text, sizeof text, l);
    key(w, k);
    fprintf(w->out, "%s (about; %.0f digits with --exact)", text, floor(l) + 1);
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
