/* The bin checksum, the block output buffer of the family writers, and the `ids` format's rows and
 * events line (docs/formats.md has the layouts; lib/io_family_bin.c has bin). Reading ids checks
 * what the text reader checks: every index names an event, no event twice, every event in each
 * schedule, and the family belongs to the order (the names the events line lists). */
#include <stdarg.h>
#include <string.h>

#include "io_family_ids.h"
#include "poset_i.h"

/* ========================================================================================== */
/* Checksum                                                                                   */

#define SUM_SEED 0x6a09e667f3bcc908u
#define SUM_MUL  0x9e3779b97f4a7c15u
#define SUM_FIN  0xd6e8feb86659fd93u

static inline uint64_t sum_step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * SUM_MUL;
    return h ^ (h >> 29);
}

void hf_i_sum_init(hf_i_sum *s) { *s = (hf_i_sum){.h = SUM_SEED}; }

void hf_i_sum_add(hf_i_sum *s, const void *data, size_t len)
{
    const unsigned char *b = data;
    s->total += len;
    while (s->tailed > 0 && len > 0) {
        s->tail[s->tailed++] = *b++;
        len--;
        if (s->tailed == 8) {
            s->h = sum_step(s->h, hf_i_le64(s->tail));
            s->tailed = 0;
        }
    }
    if (s->tailed > 0)
        return; /* the piece ended before the word did */
    uint64_t h = s->h;
    for (; len >= 8; b += 8, len -= 8)
        h = sum_step(h, hf_i_le64(b));
    s->h = h;
    memcpy(s->tail, b, len);
    s->tailed = (unsigned)len;
}

uint64_t hf_i_sum_final(const hf_i_sum *s)
{
    uint64_t h = s->h;
    if (s->tailed > 0) {
        unsigned char last[8] = {0};
        memcpy(last, s->tail, s->tailed);
        h = sum_step(h, hf_i_le64(last));
    }
    h = (h ^ s->total) * SUM_FIN;
    return h ^ (h >> 32);
}

/* ========================================================================================== */
/* Output buffer                                                                              */

hf_status hf_i_out_init(hf_ctx *ctx, hf_i_out *o, FILE *stream, size_t min_cap)
{
    *o = (hf_i_out){.stream = stream};
    size_t cap = min_cap > HF_I_OUT_BLOCK ? min_cap : HF_I_OUT_BLOCK;
    if (cap > SIZE_MAX - HF_I_OUT_SLACK || !(o->buf = hf_i_malloc(ctx, cap + HF_I_OUT_SLACK)))
        return HF_ENOMEM;
    o->cap = cap;
    hf_i_sum_init(&o->sum);
    return HF_OK;
}

void hf_i_out_free(hf_ctx *ctx, hf_i_out *o)
{
    hf_i_free(ctx, o->buf);
    o->buf = NULL;
}

bool hf_i_out_flush(hf_i_out *o)
{
    if (o->failed)
        return false;
    if (o->len == 0)
        return true;
    if (o->summed)
        hf_i_sum_add(&o->sum, o->buf, o->len);
    if (fwrite(o->buf, 1, o->len, o->stream) != o->len) {
        o->failed = true;
        return false;
    }
    o->len = 0;
    return true;
}

bool hf_i_out_put(hf_i_out *o, const void *data, size_t len)
{
    const char *b = data;
    while (len > 0) {
        if (o->len == o->cap && !hf_i_out_flush(o))
            return false;
        size_t take = o->cap - o->len < len ? o->cap - o->len : len;
        memcpy(o->buf + o->len, b, take);
        o->len += take;
        b += take;
        len -= take;
    }
    return !o->failed;
}

/* ========================================================================================== */
/* ids                                                                                        */

/* A line ends at LF, CR LF, a CR that ends the input, or the end of the input (as in text). */
static bool at_eol(const hf_i_text_at *at, size_t i)
{
    if (i >= at->len || at->s[i] == '\n')
        return true;
    return at->s[i] == '\r' && (i + 1 >= at->len || at->s[i + 1] == '\n');
}

static hf_status at_fail(const hf_i_text_at *at, hf_error *err, hf_status st, size_t pos,
                         const char *fmt, ...) HF_I_PRINTF(5, 6);

static hf_status at_fail(const hf_i_text_at *at, hf_error *err, hf_status st, size_t pos,
                         const char *fmt, ...)
{
    char msg[280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = at->line, column = pos - at->line_start + 1;
    return hf_i_fail(err, st, line > INT_MAX ? INT_MAX : (int)line,
                     column > INT_MAX ? INT_MAX : (int)column, "%s", msg);
}

static hf_status found_byte(const hf_i_text_at *at, hf_error *err, size_t pos, const char *what)
{
    unsigned char c = (unsigned char)at->s[pos];
    if (c > 0x20 && c < 0x7f)
        return at_fail(at, err, HF_EPARSE, pos, "expected %s, found '%c'", what, c);
    return at_fail(at, err, HF_EPARSE, pos, "expected %s, found byte 0x%02x", what, (unsigned)c);
}

hf_status hf_i_ids_row(const hf_poset *p, hf_i_text_at *at, uint32_t *row, hf_word *seen,
                       uint32_t *k, size_t sched, hf_error *err)
{
    const char *s = at->s;
    const uint32_t n = p->n;
    size_t pos = at->pos;
    uint32_t got = 0;
    for (;;) {
        while (pos < at->len && (s[pos] == ' ' || s[pos] == '\t'))
            pos++;
        if (at_eol(at, pos))
            break;
        if (s[pos] < '0' || s[pos] > '9')
            return found_byte(at, err, pos, "an event index");
        size_t start = pos;
        uint64_t v = 0;
        for (; pos < at->len && s[pos] >= '0' && s[pos] <= '9'; pos++)
            v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(s[pos] - '0');
        if (!at_eol(at, pos) && s[pos] != ' ' && s[pos] != '\t')
            return found_byte(at, err, pos, "a blank after the event index");
        if (v >= n) {
            size_t len = pos - start; /* as written: a saturated value would misquote it */
            return at_fail(at, err, HF_ENOTFOUND, start,
                           "event index %.*s%s out of range (the order has %" PRIu32 " events)",
                           len > 44 ? 40 : (int)len, s + start, len > 44 ? "..." : "", n);
        }
        uint32_t id = (uint32_t)v;
        if (hf_i_bit_test(seen, id)) {
            char q[96];
            return at_fail(at, err, HF_ESCHEDULE, start, "schedule %zu repeats event %s", sched,
                           hf_i_name_quote(hf_i_name(p, id), q, sizeof q));
        }
        hf_i_bit_set(seen, id);
        row[got++] = id;
    }
    at->pos = pos;
    *k = got;
    return HF_OK;
}

bool hf_i_ids_is_events(const char *s, size_t len, size_t pos)
{
    static const char tag[] = "# events";
    const size_t tl = sizeof tag - 1;
    if (len - pos < tl || memcmp(s + pos, tag, tl) != 0)
        return false;
    size_t i = pos + tl;
    return i >= len || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
           (s[i] == '\r' && (i + 1 >= len || s[i + 1] == '\n'));
}

hf_status hf_i_ids_events(const hf_poset *p, hf_i_text_at *at, hf_i_name_buf *name, hf_error *err)
{
    const char *s = at->s;
    size_t line0 = at->line, start0 = at->line_start, col0 = at->pos;
    at->pos += strlen("# events");
    uint32_t count = 0;
    for (;;) {
        while (at->pos < at->len && (s[at->pos] == ' ' || s[at->pos] == '\t'))
            at->pos++;
        if (at_eol(at, at->pos))
            break;
        size_t tpos = at->pos, tline = at->line, tstart = at->line_start;
        if (s[at->pos] == '"') {
            hf_i_unquoted where;
            if (!hf_i_name_unquote(s, at->len, at->pos, name, &where))
                return at_fail(at, err, HF_EPARSE, at->pos, "unterminated quoted name");
            if (where.lines > 0) {
                at->line += where.lines;
                at->line_start = where.line_start;
            }
            at->pos = where.end;
        } else {
            hf_i_name_buf_reset(name);
            while (!at_eol(at, at->pos) && s[at->pos] != ' ' && s[at->pos] != '\t' &&
                   s[at->pos] != '"')
                hf_i_name_buf_push(name, s[at->pos++]);
        }
        hf_i_text_at token = {s, at->len, tpos, tline, tstart};
        if (count >= p->n)
            return at_fail(&token, err, HF_EMISMATCH, tpos,
                           "the events line lists more than the order's %" PRIu32 " events", p->n);
        const char *own = hf_i_name(p, count);
        if (name->bad || strcmp(name->text, own) != 0) {
            char q1[96], q2[96];
            return at_fail(&token, err, HF_EMISMATCH, tpos,
                           "event index %" PRIu32 " is %s in the family, %s in the order", count,
                           hf_i_name_quote(name->text, q1, sizeof q1),
                           hf_i_name_quote(own, q2, sizeof q2));
        }
        count++;
    }
    if (count != p->n) {
        hf_i_text_at first = {s, at->len, col0, line0, start0};
        return at_fail(&first, err, HF_EMISMATCH, col0,
                       "the events line lists %" PRIu32 " events, the order has %" PRIu32, count,
                       p->n);
    }
    return HF_OK;
}
