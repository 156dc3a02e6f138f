/* Family text and JSON formats: a streaming writer for both, and one reader that detects the
 * format, resolves event names through the poset and checks that each schedule is a permutation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "family_i.h"
#include "family_stream_i.h"
#include "io_family_ids.h"
#include "names.h"
#include "poset_i.h"

/* ========================================================================================== */
/* Writer                                                                                     */

struct hf_writer {
    const hf_poset *p;
    FILE *out;
    hf_format format;
    uint64_t count;
    bool failed;   /* a write failed: every later put and the close report HF_EIO */
    hf_word *seen; /* n bits, all clear between puts */
    /* Rows are assembled in o and reach the stream in blocks (the header goes to the stream
     * directly first, except bin's, which the checksum covers). Each event's token (text: its
     * name, quoted if needed; ids and JSON: its index in decimal) is rendered once, token v
     * being tok[tok_off[v] .. tok_off[v + 1]), with HF_I_OUT_SLACK bytes after the last. */
    hf_i_out o;
    char *tok;
    size_t *tok_off;
};

/* The bits of `seen` are left clear whatever the outcome, so the next call can reuse them. */
static bool is_permutation(hf_word *seen, const uint32_t *s, uint32_t n)
{
    uint32_t i = 0;
    bool ok = true;
    for (; i < n; i++) {
        if (s[i] >= n || hf_i_bit_test(seen, s[i])) {
            ok = false;
            break;
        }
        hf_i_bit_set(seen, s[i]);
    }
    for (uint32_t j = 0; j < i; j++)
        hf_i_bit_clear(seen, s[j]);
    return ok;
}

static bool json_write_string(FILE *out, const char *s)
{
    if (putc('"', out) == EOF)
        return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *e = NULL;
        char hex[8];
        switch (c) {
        case '"':
            e = "\\\"";
            break;
        case '\\':
            e = "\\\\";
            break;
        case '\n':
            e = "\\n";
            break;
        case '\t':
            e = "\\t";
            break;
        case '\r':
            e = "\\r";
            break;
        case '\b':
            e = "\\b";
            break;
        case '\f':
            e = "\\f";
            break;
        default:
            if (c < 0x20) {
                snprintf(hex, sizeof hex, "\\u%04x", (unsigned)c);
                e = hex;
            }
            break;
        }
        /* Bytes >= 0x80 go out unchanged: names are byte strings, usually UTF-8 already. */
        if (e ? fputs(e, out) < 0 : putc(c, out) == EOF)
            return false;
    }
    return putc('"', out) != EOF;
}

/* A method name goes into the text header bare unless it would break the key=value tokens. */
static bool text_write_method(FILE *out, const char *m)
{
    bool plain = *m != '\0';
    for (const char *c = m; *c && plain; c++) {
        unsigned char b = (unsigned char)*c;
        plain = b > 0x20 && b != '"' && b != '\\' && b != 0x7f;
    }
    return plain ? fputs(m, out) >= 0 : hf_i_name_write(out, m);
}

static bool write_header(const hf_poset *p, FILE *out, hf_format format, const hf_family_header *h)
{
    const char *method = h->method ? h->method : "unknown";
    /* d is written only when it is a tuple length: 0 means the family's d is not known */
    bool has_d = h->d >= 1 && h->d <= HF_MAX_D;
    if (format == HF_FORMAT_TEXT || format == HF_FORMAT_IDS) {
        if (fprintf(out, "# hitfam %s", hf_version_string()) < 0 ||
            (has_d && fprintf(out, " d=%u", h->d) < 0) || fputs(" method=", out) < 0 ||
            !text_write_method(out, method) || fprintf(out, " events=%" PRIu32, p->n) < 0)
            return false;
        if (h->schedules_known && fprintf(out, " schedules=%" PRIu64, h->schedules) < 0)
            return false;
        /* a slice of the family: rows=A:B (A: to an end not known when the header is written) */
        if (h->row_first && (fprintf(out, " rows=%" PRIu64 ":", h->row_first) < 0 ||
                             (h->row_last && fprintf(out, "%" PRIu64, h->row_last) < 0)))
            return false;
        if (format == HF_FORMAT_TEXT)
            return putc('\n', out) != EOF;
        /* ids: the key, then the names of event indices 0..n-1 */
        if (fputs(" format=ids\n# events", out) < 0)
            return false;
        for (uint32_t v = 0; v < p->n; v++)
            if (putc(' ', out) == EOF || !hf_i_name_write(out, hf_i_name(p, v)))
                return false;
        return putc('\n', out) != EOF;
    }
    if (fputs("{\"hitfam\": ", out) < 0 || !json_write_string(out, hf_version_string()) ||
        (has_d && fprintf(out, ", \"d\": %u", h->d) < 0) || fputs(", \"method\": ", out) < 0 ||
        !json_write_string(out, method))
        return false;
    if (h->row_first &&
        (fprintf(out, ", \"rows\": [%" PRIu64 ", ", h->row_first) < 0 ||
         (h->row_last ? fprintf(out, "%" PRIu64 "]", h->row_last) < 0 : fputs("null]", out) < 0)))
        return false;
    if (fputs(", \"events\": [", out) < 0)
        return false;
    for (uint32_t v = 0; v < p->n; v++)
        if ((v > 0 && fputs(", ", out) < 0) || !json_write_string(out, hf_i_name(p, v)))
            return false;
    return fputs("], \"schedules\": [", out) >= 0;
}

/* The family text form of a name, the bytes hf_i_name_write writes: bare when it may be, else
 * quoted with \" \\ and \n escapes. dst NULL: only count. Returns the length. */
static size_t render_name(char *dst, const char *name)
{
    size_t l = strlen(name);
    if (hf_i_name_is_bare(name)) {
        if (dst)
            memcpy(dst, name, l);
        return l;
    }
    size_t k = 0;
    if (!dst) {
        for (; *name; name++)
            k += (*name == '"' || *name == '\\' || *name == '\n') ? 2 : 1;
        return k + 2;
    }
    dst[k++] = '"';
    for (; *name; name++) {
        char c = *name;
        if (c == '"' || c == '\\' || c == '\n') {
            dst[k++] = '\\';
            c = c == '\n' ? 'n' : c;
        }
        dst[k++] = c;
    }
    dst[k++] = '"';
    return k;
}

/* v in decimal at dst (at most 10 bytes). Returns the length. */
static size_t render_index(char *dst, uint32_t v)
{
    char digits[10];
    size_t k = 0;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < k; i++)
        dst[i] = digits[k - 1 - i];
    return k;
}

/* Every event's token, rendered once (struct hf_writer says which). */
static hf_status make_tokens(hf_writer *w)
{
    const hf_poset *p = w->p;
    bool names = w->format == HF_FORMAT_TEXT;
    size_t total = 0;
    for (uint32_t v = 0; v < p->n; v++) {
        size_t l = names ? render_name(NULL, hf_i_name(p, v)) : 10;
        if (total > SIZE_MAX - l - HF_I_OUT_SLACK)
            return HF_ENOMEM;
        total += l;
    }
    w->tok_off = hf_i_alloc_array(p->ctx, (size_t)p->n + 1, sizeof *w->tok_off);
    w->tok = hf_i_malloc(p->ctx, total + HF_I_OUT_SLACK);
    if (!w->tok_off || !w->tok)
        return HF_ENOMEM;
    size_t k = 0;
    for (uint32_t v = 0; v < p->n; v++) {
        w->tok_off[v] = k;
        k += names ? render_name(w->tok + k, hf_i_name(p, v)) : render_index(w->tok + k, v);
    }
    w->tok_off[p->n] = k;
    memset(w->tok + k, 0, HF_I_OUT_SLACK);
    return HF_OK;
}

static void writer_free(hf_writer *w)
{
    hf_ctx *ctx = w->p->ctx;
    hf_i_out_free(ctx, &w->o);
    hf_i_free(ctx, w->tok);
    hf_i_free(ctx, w->tok_off);
    hf_i_free(ctx, w->seen);
    hf_i_free(ctx, w);
}

hf_status hf_writer_new(const hf_poset *p, FILE *out, hf_format format,
                        const hf_family_header *header, hf_writer **w)
{
    if (!w)
        return HF_EINVAL;
    *w = NULL;
    if (!p || !out || format < HF_FORMAT_TEXT || format > HF_FORMAT_BIN ||
        (header && header->d > HF_MAX_D))
        return HF_EINVAL;
    hf_writer *wr = hf_i_calloc(p->ctx, 1, sizeof *wr);
    if (!wr)
        return HF_ENOMEM;
    wr->p = p;
    wr->out = out;
    wr->format = format;
    hf_status st = HF_OK;
    wr->seen = hf_i_calloc(p->ctx, hf_i_words(p->n), sizeof *wr->seen);
    /* A token is at most a quoted name of HF_MAX_NAME escaped bytes, and its separator. */
    if (!wr->seen || hf_i_out_init(p->ctx, &wr->o, out, 2 * (size_t)HF_MAX_NAME + 4) ||
        (format != HF_FORMAT_BIN && make_tokens(wr)))
        st = HF_ENOMEM;
    const hf_family_header none = {0};
    const hf_family_header *h = header ? header : &none;
    if (!st && format == HF_FORMAT_BIN) {
        wr->o.summed = true;
        /* a slice (rows=) is written as a stream of unknown length: bin's header has no rows */
        if (!hf_i_bin_write_header(&wr->o, p, h->d, h->method, h->schedules_known && !h->row_first,
                                   h->schedules))
            st = HF_EIO;
    } else if (!st && !write_header(p, out, format, h)) {
        st = HF_EIO;
    }
    if (st) {
        writer_free(wr);
        return st;
    }
    *w = wr;
    return HF_OK;
}

/* A row of tokens: prefix, the tokens joined by sep, then end. */
static bool write_token_row(hf_writer *w, const uint32_t *s, uint32_t n, const char *prefix,
                            char sep, char end)
{
    hf_i_out *o = &w->o;
    size_t plen = strlen(prefix);
    if (plen && !hf_i_out_put(o, prefix, plen))
        return false;
    const char *tok = w->tok;
    const size_t *off = w->tok_off;
    for (uint32_t i = 0; i < n; i++) {
        size_t a = off[s[i]], l = off[s[i] + 1] - a;
        char *d = hf_i_out_room(o, l + 1);
        if (!d)
            return false;
        /* short tokens: one fixed-size copy (both buffers have slack after their ends) */
        if (l <= 16)
            memcpy(d, tok + a, 16);
        else
            memcpy(d, tok + a, l);
        d[l] = sep;
        o->len += l + 1;
    }
    if (n > 0) { /* the last separator, written with its token, becomes the end */
        o->buf[o->len - 1] = end;
        return true;
    }
    return hf_i_out_put(o, &end, 1);
}

static hf_status writer_put(void *user, const uint32_t *s, uint32_t n)
{
    hf_writer *w = user;
    if (!w || (!s && n > 0))
        return HF_EINVAL;
    if (w->failed)
        return HF_EIO;
    if (n != w->p->n || !is_permutation(w->seen, s, n))
        return HF_ESCHEDULE;
    bool ok;
    switch (w->format) {
    case HF_FORMAT_BIN:
        ok = hf_i_bin_write_row(&w->o, s, n);
        break;
    case HF_FORMAT_JSON:
        ok = write_token_row(w, s, n, w->count == 0 ? "\n[" : ",\n[", ',', ']');
        break;
    default: /* text and ids */
        ok = write_token_row(w, s, n, "", ' ', '\n');
        break;
    }
    if (!ok || ferror(w->out)) {
        w->failed = true;
        return HF_EIO;
    }
    w->count++;
    return HF_OK;
}

hf_sink hf_writer_sink(hf_writer *w) { return (hf_sink){.put = writer_put, .user = w}; }

uint64_t hf_writer_count(const hf_writer *w) { return w ? w->count : 0; }

hf_status hf_writer_close(hf_writer *w)
{
    if (!w)
        return HF_OK;
    bool ok = !w->failed;
    if (ok && w->format == HF_FORMAT_BIN)
        ok = hf_i_bin_write_trailer(&w->o, w->count);
    else if (ok)
        ok = hf_i_out_flush(&w->o);
    if (ok && w->format == HF_FORMAT_JSON)
        ok = fputs(w->count ? "\n]}\n" : "]}\n", w->out) >= 0;
    if (fflush(w->out) != 0 || ferror(w->out))
        ok = false;
    writer_free(w);
    return ok ? HF_OK : HF_EIO;
}

hf_status hf_family_write(const hf_poset *p, const hf_family *f, FILE *out, hf_format format,
                          const hf_family_header *header)
{
    if (!p || !f || !out)
        return HF_EINVAL;
    if (f->n != p->n)
        return HF_EMISMATCH;
    /* The count is known here, and writing it lets a reader detect a truncated file. */
    hf_family_header h = header ? *header : (hf_family_header){0};
    /* a slice's header gives the whole family's size, which the caller knows */
    if (!h.row_first) {
        h.schedules_known = true;
        h.schedules = f->m;
    }
    hf_writer *w = NULL;
    hf_status st = hf_writer_new(p, out, format, &h, &w);
    if (st)
        return st;
    /* Check every schedule before the first is written, so a bad family leaves no output but
     * the header. */
    for (size_t i = 0; i < f->m && !st; i++)
        if (!is_permutation(w->seen, hf_family_schedule(f, i), f->n))
            st = HF_ESCHEDULE;
    for (size_t i = 0; i < f->m && !st; i++)
        st = writer_put(w, hf_family_schedule(f, i), f->n);
    hf_status cst = hf_writer_close(w);
    return st ? st : cst;
}

/* ========================================================================================== */
/* Reader: shared state                                                                       */

typedef struct reader {
    const hf_poset *p;
    hf_ctx *ctx;
    const char *s;
    size_t len;
    size_t pos;
    size_t line;       /* 1-based line of pos */
    size_t line_start; /* offset of the first byte of that line */
    hf_error *err;
    hf_i_name_buf name; /* the last decoded name */
    uint32_t *row;      /* the schedule being read */
    hf_word *seen;      /* ids already in row */
    uint32_t *map;      /* JSON "events": index -> id */
    bool have_map;
    hf_family *f;
    size_t lines_cap; /* of f->lines */
    unsigned d;
    /* Streaming (lib/family_stream.c): s holds the bytes [base, base + len) of the input, and
     * need() extends it before each line or JSON value; each schedule goes to emit instead of
     * into f (which then only counts them). NULL win: s is the whole input. */
    hf_i_window *win;
    uint64_t base;
    hf_schedule_fn emit;
    void *emit_user;
    bool json;
    uint64_t row_first, row_last; /* text header rows=A:B (a slice of a family) */
    bool ids;                     /* the header says format=ids: schedules are event indices */
    /* Text names are first guessed from earlier schedules: guess[2v] is the event that followed
     * v most recently, guess[2v + 1] the one that followed it before that (when different), and
     * likewise first[] for the first event; key[v] holds v's name for a quick compare.
     * Allocated at the first text schedule. */
    uint32_t *guess;
    uint32_t first[2];
    struct name_key *key;
} reader;

/* An event's name as a bare token reads it: its length (0: it never reads as a bare token, so
 * it is never guessed) and its first bytes, which are the whole name when len <= KEY_HEAD. */
#define KEY_HEAD 12
struct name_key {
    uint32_t len;
    char head[KEY_HEAD];
};

/* A saved position, to come back to a JSON value after the whole object is known. */
typedef struct mark {
    bool set;
    size_t pos, line, line_start;
} mark;

static int clamp_int(size_t v) { return v > (size_t)INT_MAX ? INT_MAX : (int)v; }

static size_t column_of(const reader *r, size_t pos) { return pos - r->line_start + 1; }

static hf_status fail_at(reader *r, hf_status st, size_t line, size_t column, const char *fmt, ...)
    HF_I_PRINTF(5, 6);

static hf_status fail_at(reader *r, hf_status st, size_t line, size_t column, const char *fmt, ...)
{
    char msg[280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int l = clamp_int(line), c = clamp_int(column);
    return hf_i_fail(r->err, st, l, c, "%s", msg);
}

static hf_status fail_here(reader *r, hf_status st, const char *what)
{
    return fail_at(r, st, r->line, column_of(r, r->pos), "%s", what);
}

static hf_status fail_nomem(reader *r)
{
    return hf_i_fail(r->err, HF_ENOMEM, 0, 0, "out of memory");
}

/* Streaming: make the window hold what the parser reads next (a no-op on a whole input). */
static hf_status need(reader *r, hf_i_need kind)
{
    if (!r->win)
        return HF_OK;
    hf_status st =
        hf_i_window_need(r->win, kind, &r->s, &r->len, &r->pos, &r->line_start, &r->base);
    if (st == HF_ENOMEM)
        return fail_nomem(r);
    return st ? hf_i_fail(r->err, st, 0, 0, "reading the family failed") : HF_OK;
}

static void name_push(reader *r, char c) { hf_i_name_buf_push(&r->name, c); }

static bool name_is(const reader *r, const char *lit)
{
    return !r->name.bad && strcmp(r->name.text, lit) == 0;
}

static bool name_find(const reader *r, uint32_t *id)
{
    return hf_i_name_buf_find(&r->name, r->p, id);
}

static hf_status unknown_name(reader *r, size_t line, size_t column)
{
    char q[96];
    return fail_at(r, HF_ENOTFOUND, line, column, "unknown event %s%s",
                   hf_i_name_quote(r->name.text, q, sizeof q),
                   r->name.bad ? " (too long or holds a NUL byte)" : "");
}

/* The header's method (in r->name) becomes the family's: none for "unknown", which is how the
 * writer spells a NULL method, and none for a name that is too long or holds a NUL byte. */
static hf_status keep_method(reader *r)
{
    hf_i_free(r->ctx, r->f->method);
    r->f->method = NULL;
    if (r->name.bad || strcmp(r->name.text, "unknown") == 0)
        return HF_OK;
    r->f->method = hf_i_strdup(r->ctx, r->name.text);
    return r->f->method ? HF_OK : fail_nomem(r);
}

/* Add id at position *k of the schedule numbered sched (1-based) unless it is already there. */
static hf_status row_add(reader *r, uint32_t *k, uint32_t id, size_t sched, size_t line,
                         size_t column)
{
    if (hf_i_bit_test(r->seen, id)) {
        char q[96];
        return fail_at(r, HF_ESCHEDULE, line, column, "schedule %zu repeats event %s", sched,
                       hf_i_name_quote(hf_i_name(r->p, id), q, sizeof q));
    }
    hf_i_bit_set(r->seen, id);
    r->row[(*k)++] = id;
    return HF_OK;
}

/* A schedule ends: it must hold every event (k distinct ids were added). */
static hf_status row_end(reader *r, uint32_t k, size_t sched, size_t line, size_t column)
{
    uint32_t n = r->p->n;
    if (k < n) {
        uint32_t v = 0;
        while (hf_i_bit_test(r->seen, v))
            v++;
        char q[96];
        return fail_at(r, HF_ESCHEDULE, line, column,
                       "schedule %zu misses event %s (it lists %" PRIu32 " of %" PRIu32 " events)",
                       sched, hf_i_name_quote(hf_i_name(r->p, v), q, sizeof q), k, n);
    }
    for (uint32_t i = 0; i < k; i++)
        hf_i_bit_clear(r->seen, r->row[i]);
    if (r->emit) {
        hf_status st = r->emit(r->emit_user, r->row, n, r->f->m, r->json ? 0 : line);
        r->f->m++;
        return st ? hf_i_fail(r->err, st, clamp_int(line), 0, "%s", hf_strerror(st)) : HF_OK;
    }
    if (hf_family_append(r->f, r->row))
        return fail_nomem(r);
    return HF_OK;
}

/* Digits only, no sign, no overflow. */
static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
    if (len == 0)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i];
        if (c < '0' || c > '9')
            return false;
        if (x > (UINT64_MAX - (c - '0')) / 10)
            return false;
        x = x * 10 + (c - '0');
    }
    *v = x;
    return true;
}

/* ========================================================================================== */
/* Reader: text                                                                               */

/* A line ends at LF, CR LF, a CR that ends the input, or the end of the input. */
static bool at_eol(const reader *r, size_t i)
{
    if (i >= r->len || r->s[i] == '\n')
        return true;
    return r->s[i] == '\r' && (i + 1 >= r->len || r->s[i + 1] == '\n');
}

static void new_line(reader *r, size_t next)
{
    r->pos = next;
    r->line++;
    r->line_start = next;
}

static void skip_eol(reader *r)
{
    if (r->pos < r->len && r->s[r->pos] == '\r')
        r->pos++;
    if (r->pos < r->len && r->s[r->pos] == '\n')
        new_line(r, r->pos + 1);
}

static void skip_blanks(reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t'))
        r->pos++;
}

static void skip_line(reader *r)
{
    while (!at_eol(r, r->pos))
        r->pos++;
    skip_eol(r);
}

/* A quoted name (lib/names.c has the rules). A raw newline inside the quotes is an error: a
 * schedule is one line, and the writer always escapes newlines. */
static hf_status text_quoted(reader *r)
{
    size_t ql = r->line, qc = column_of(r, r->pos);
    hf_i_unquoted where;
    if (!hf_i_name_unquote(r->s, r->len, r->pos, &r->name, &where))
        return fail_at(r, HF_EPARSE, ql, qc, "unterminated quoted name");
    if (where.lines > 0) {
        r->line += where.lines;
        r->line_start = where.line_start;
    }
    r->pos = where.end;
    return HF_OK;
}

static void text_bare(reader *r)
{
    /* The common case in one pass: a token of at most HF_MAX_NAME bytes and no NUL. */
    size_t start = r->pos, end = start;
    while (!at_eol(r, end) && r->s[end] != ' ' && r->s[end] != '\t' && r->s[end] != '"')
        end++;
    if (end - start <= HF_MAX_NAME && !memchr(r->s + start, '\0', end - start)) {
        memcpy(r->name.text, r->s + start, end - start);
        r->name.text[end - start] = '\0';
        r->name.len = end - start;
        r->name.bad = false;
        r->pos = end;
        return;
    }
    hf_i_name_buf_reset(&r->name);
    while (!at_eol(r, r->pos)) {
        char c = r->s[r->pos];
        if (c == ' ' || c == '\t' || c == '"')
            break;
        name_push(r, c);
        r->pos++;
    }
}

/* The guesses start as "the next event by id", which is right for many generated families. */
static hf_status guess_init(reader *r)
{
    uint32_t n = r->p->n;
    r->guess = hf_i_alloc_array(r->ctx, n, 2 * sizeof *r->guess);
    r->key = hf_i_alloc_array(r->ctx, n, sizeof *r->key);
    if (!r->guess || !r->key)
        return HF_ENOMEM;
    for (uint32_t v = 0; v < n; v++) {
        const char *name = hf_i_name(r->p, v);
        size_t l = strcspn(name, " \t\"\r\n");
        bool bare = l > 0 && name[l] == '\0';
        r->guess[2 * (size_t)v] = v + 1 < n ? v + 1 : 0;
        r->guess[2 * (size_t)v + 1] = HF_NO_EVENT;
        r->key[v].len = bare ? (uint32_t)l : 0;
        memset(r->key[v].head, 0, KEY_HEAD);
        memcpy(r->key[v].head, name, bare && l < KEY_HEAD ? l : (bare ? KEY_HEAD : 0));
    }
    r->first[0] = 0;
    r->first[1] = HF_NO_EVENT;
    return HF_OK;
}

/* Whether the bare token at pos is the name of event g: its bytes and then the end of the
 * token, exactly where text_bare would stop. On a match pos moves past it. */
static bool guessed(reader *r, uint32_t g)
{
    if (g >= r->p->n)
        return false;
    const struct name_key *k = &r->key[g];
    size_t l = k->len, at = r->pos;
    if (l == 0 || r->len - at < l)
        return false;
    const char *t = r->s + at;
    if (memcmp(t, k->head, l < KEY_HEAD ? l : KEY_HEAD) != 0 ||
        (l > KEY_HEAD && memcmp(t + KEY_HEAD, hf_i_name(r->p, g) + KEY_HEAD, l - KEY_HEAD) != 0))
        return false;
    at += l;
    if (!(at_eol(r, at) || r->s[at] == ' ' || r->s[at] == '\t' || r->s[at] == '"'))
        return false;
    r->pos = at;
    return true;
}

/* After schedule row (k events) was read: what followed each event becomes its first guess. */
static void guess_learn(reader *r, const uint32_t *row, uint32_t k)
{
    if (k == 0)
        return;
    if (r->first[0] != row[0]) {
        r->first[1] = r->first[0];
        r->first[0] = row[0];
    }
    uint32_t *g = r->guess;
    for (uint32_t i = 0; i + 1 < k; i++) {
        size_t v = 2 * (size_t)row[i];
        if (g[v] != row[i + 1]) {
            g[v + 1] = g[v];
            g[v] = row[i + 1];
        }
    }
}

static hf_status text_schedule(reader *r)
{
    size_t sched = r->f->m + 1;
    size_t sl = r->line, sc = column_of(r, r->pos);
    uint32_t k = 0;
    if (r->ids) {
        hf_i_text_at at = {r->s, r->len, r->pos, r->line, r->line_start};
        hf_status st = hf_i_ids_row(r->p, &at, r->row, r->seen, &k, sched, r->err);
        if (st)
            return st;
        r->pos = at.pos;
    } else if (!r->guess && guess_init(r)) {
        return fail_nomem(r);
    }
    const uint32_t *guesses = r->first; /* the two guesses for the next name */
    while (!r->ids && !at_eol(r, r->pos)) {
        char c = r->s[r->pos];
        if (c == ' ' || c == '\t') {
            r->pos++;
            continue;
        }
        size_t tl = r->line, tc = column_of(r, r->pos);
        uint32_t id;
        if (c != '"' && guessed(r, guesses[0])) {
            id = guesses[0];
        } else if (c != '"' && guessed(r, guesses[1])) {
            id = guesses[1];
        } else {
            if (c == '"') {
                hf_status st = text_quoted(r);
                if (st)
                    return st;
            } else {
                text_bare(r);
            }
            if (!name_find(r, &id))
                return unknown_name(r, tl, tc);
        }
        hf_status st = row_add(r, &k, id, sched, tl, tc);
        if (st)
            return st;
        guesses = r->guess + 2 * (size_t)id;
    }
    hf_status st = row_end(r, k, sched, sl, sc);
    if (st)
        return st;
    if (!r->ids)
        guess_learn(r, r->row, k);
    hf_family *f = r->f;
    if (r->emit) {
        skip_eol(r);
        return HF_OK;
    }
    if (HF_I_GROW(r->ctx, f->lines, &r->lines_cap, f->lined + 1))
        return fail_nomem(r);
    f->lines[f->lined++] = sl;
    skip_eol(r);
    return HF_OK;
}

/* What the header line announced. */
typedef struct text_header {
    unsigned seen; /* bit k: keys[k] of text_header_line was read; 3: format=, 4: method= */
    bool have_count;
    uint64_t count;
    size_t count_line, count_column;
    size_t rows_line, rows_column; /* where rows= was read; 0: no rows= */
} text_header;

/* `rows=A:B` or `rows=A:` (the value from vs to r->pos): the schedules are rows A..B of a
 * family, counted from 1, whose size schedules= gives. */
static hf_status text_header_rows(reader *r, text_header *th, size_t vs)
{
    const char *s = r->s;
    size_t vc = column_of(r, vs), colon = vs;
    while (colon < r->pos && s[colon] >= '0' && s[colon] <= '9')
        colon++;
    size_t end = colon + 1;
    while (end < r->pos && s[end] >= '0' && s[end] <= '9')
        end++;
    if (th->rows_line)
        return fail_at(r, HF_EPARSE, r->line, vc - 5, "header: rows= appears twice");
    if (colon == vs || colon >= r->pos || s[colon] != ':' || end != r->pos ||
        !parse_u64(s + vs, colon - vs, &r->row_first) ||
        (end > colon + 1 && !parse_u64(s + colon + 1, end - colon - 1, &r->row_last)))
        return fail_at(r, HF_EPARSE, r->line, vc,
                       "header: rows= needs FIRST:LAST or FIRST: (numbers up to 2^64 - 1)");
    if (r->row_first == 0 || (end > colon + 1 && r->row_last < r->row_first))
        return fail_at(r, HF_EPARSE, r->line, vc,
                       "header: rows=%" PRIu64 ":%" PRIu64 " is no range of rows counted from 1",
                       r->row_first, r->row_last);
    th->rows_line = r->line;
    th->rows_column = vc;
    return HF_OK;
}

/* format=text or format=ids (bit 3 of th->seen), the value starting at vs. */
static hf_status header_format(reader *r, text_header *th, size_t vs)
{
    size_t len = r->pos - vs, vc = column_of(r, vs);
    if (th->seen & 8u)
        return fail_at(r, HF_EPARSE, r->line, column_of(r, vs - strlen("format=")),
                       "header: format= appears twice");
    th->seen |= 8u;
    if (len == 3 && memcmp(r->s + vs, "ids", 3) == 0)
        r->ids = true;
    else if (!(len == 4 && memcmp(r->s + vs, "text", 4) == 0))
        return fail_at(r, HF_EPARSE, r->line, vc, "header: format=%.*s%s is not text or ids",
                       len > 24 ? 20 : (int)len, r->s + vs, len > 24 ? "..." : "");
    return HF_OK;
}

/* `# hitfam VERSION key=value...`: the version and unknown keys are ignored; d=, events= and
 * schedules= must be numbers; method= is kept as written, unquoted when it is one quoted name
 * (method="a b"). A quoted value is one token, whatever blanks it holds. */
static hf_status text_header_line(reader *r, text_header *th)
{
    const char *s = r->s;
    r->pos += strlen("# hitfam ");
    for (;;) {
        skip_blanks(r);
        if (at_eol(r, r->pos))
            break;
        size_t ts = r->pos;
        while (!at_eol(r, r->pos) && s[r->pos] != ' ' && s[r->pos] != '\t') {
            if (s[r->pos] != '"') {
                r->pos++;
                continue;
            }
            r->pos++;
            while (!at_eol(r, r->pos) && s[r->pos] != '"')
                r->pos += (s[r->pos] == '\\' && !at_eol(r, r->pos + 1)) ? 2 : 1;
            if (!at_eol(r, r->pos))
                r->pos++;
        }
        static const char method[] = "method=";
        size_t vm = ts + sizeof method - 1;
        if (r->pos >= vm && memcmp(s + ts, method, sizeof method - 1) == 0) {
            if (th->seen & 16u) /* bit 4: method= */
                return fail_at(r, HF_EPARSE, r->line, column_of(r, ts),
                               "header: method= appears twice");
            th->seen |= 16u;
            hf_i_unquoted where;
            if (!(vm < r->pos && s[vm] == '"' &&
                  hf_i_name_unquote(s, r->pos, vm, &r->name, &where) && where.end == r->pos)) {
                hf_i_name_buf_reset(&r->name);
                for (size_t i = vm; i < r->pos; i++)
                    name_push(r, s[i]);
            }
            hf_status st = keep_method(r);
            if (st)
                return st;
        }
        static const char rows[] = "rows=";
        if (r->pos - ts >= sizeof rows - 1 && memcmp(s + ts, rows, sizeof rows - 1) == 0) {
            hf_status st = text_header_rows(r, th, ts + sizeof rows - 1);
            if (st)
                return st;
        }
        static const char format[] = "format=";
        size_t fl = sizeof format - 1;
        if (r->pos - ts >= fl && memcmp(s + ts, format, fl) == 0) {
            hf_status st = header_format(r, th, ts + fl);
            if (st)
                return st;
        }
        static const char *const keys[] = {"d=", "events=", "schedules="};
        for (int key = 0; key < 3; key++) {
            size_t kl = strlen(keys[key]);
            if (r->pos - ts < kl || memcmp(s + ts, keys[key], kl) != 0)
                continue;
            size_t vs = ts + kl, vc = column_of(r, vs);
            if (th->seen & (1u << key))
                return fail_at(r, HF_EPARSE, r->line, column_of(r, ts), "header: %s appears twice",
                               keys[key]);
            th->seen |= 1u << key;
            uint64_t v;
            bool digits = r->pos > vs;
            for (size_t i = vs; i < r->pos && digits; i++)
                digits = s[i] >= '0' && s[i] <= '9';
            if (!digits)
                return fail_at(r, HF_EPARSE, r->line, vc, "header: %s needs a number", keys[key]);
            if (!parse_u64(s + vs, r->pos - vs, &v))
                return fail_at(r, HF_EPARSE, r->line, vc,
                               "header: %s%.*s%s is larger than 2^64 - 1", keys[key],
                               r->pos - vs > 24 ? 20 : (int)(r->pos - vs), s + vs,
                               r->pos - vs > 24 ? "..." : "");
            if (key == 0 && (v < 1 || v > HF_MAX_D))
                return fail_at(r, HF_EPARSE, r->line, vc,
                               "header: d=%" PRIu64 " is out of range (1 to %u)", v, HF_MAX_D);
            if (key == 0) {
                r->d = (unsigned)v;
            } else if (key == 1) {
                if (v != r->p->n)
                    return fail_at(r, HF_EMISMATCH, r->line, vc,
                                   "family has %" PRIu64 " events, the order has %" PRIu32, v,
                                   r->p->n);
            } else {
                th->have_count = true;
                th->count = v;
                th->count_line = r->line;
                th->count_column = vc;
            }
        }
    }
    skip_eol(r);
    return HF_OK;
}

static hf_status text_read(reader *r)
{
    static const char magic[] = "# hitfam ";
    const size_t mlen = sizeof magic - 1;
    text_header th = {0};
    bool first_comment = true, schedule_seen = false, events_seen = false;
    for (;;) {
        hf_status nst = need(r, HF_I_NEED_LINE);
        if (nst)
            return nst;
        if (r->pos >= r->len)
            break;
        skip_blanks(r);
        if (at_eol(r, r->pos)) {
            if (r->pos >= r->len)
                break;
            skip_eol(r);
            continue;
        }
        if (r->s[r->pos] == '#') {
            bool header = first_comment && !schedule_seen && r->len - r->pos >= mlen &&
                          memcmp(r->s + r->pos, magic, mlen) == 0;
            first_comment = false;
            if (header)
                r->f->header_line = r->line;
            hf_status st = header ? text_header_line(r, &th) : HF_OK;
            if (st)
                return st;
            if (!header && r->ids && !events_seen && !schedule_seen &&
                hf_i_ids_is_events(r->s, r->len, r->pos)) {
                events_seen = true;
                hf_i_text_at at = {r->s, r->len, r->pos, r->line, r->line_start};
                if ((st = hf_i_ids_events(r->p, &at, &r->name, r->err)))
                    return st;
                r->pos = at.pos;
                r->line = at.line;
                r->line_start = at.line_start;
            }
            if (!header)
                skip_line(r);
            continue;
        }
        schedule_seen = true;
        hf_status st = text_schedule(r);
        if (st)
            return st;
    }
    if (th.rows_line) {
        /* a slice: schedules= is the whole family's size, rows= says which of its rows follow */
        if (th.have_count && (r->row_first > th.count || r->row_last > th.count))
            return fail_at(r, HF_EPARSE, th.rows_line, th.rows_column,
                           "header: rows=%" PRIu64 ":%" PRIu64 " go beyond the %" PRIu64
                           " schedules of the family",
                           r->row_first, r->row_last ? r->row_last : r->row_first, th.count);
        if (!r->row_last && !th.have_count)
            return HF_OK;
        th.have_count = true;
        th.count = (r->row_last ? r->row_last : th.count) - r->row_first + 1;
        th.count_line = th.rows_line;
        th.count_column = th.rows_column;
    }
    if (!th.have_count)
        return HF_OK;
    /* Over zero events every schedule is an empty line, which the format ignores: the header's
     * count is the only record of how many there are. */
    if (r->p->n == 0 && r->f->m == 0) {
        if (th.count > SIZE_MAX)
            return fail_at(r, HF_ETOOLARGE, th.count_line, th.count_column,
                           "header says %" PRIu64 " schedules, more than can be stored", th.count);
        r->f->m = (size_t)th.count;
        return HF_OK;
    }
    if (th.count != r->f->m)
        return fail_at(r, HF_ESCHEDULE, th.count_line, th.count_column,
                       "header says %" PRIu64 " schedules, found %zu (truncated file?)", th.count,
                       r->f->m);
    return HF_OK;
}

/* ========================================================================================== */
/* Reader: JSON                                                                               */

/* Deeper nesting can only be in values the reader skips; the limit bounds the recursion. */
#define JSON_MAX_DEPTH 256

static void json_ws(reader *r)
{
    while (r->pos < r->len) {
        char c = r->s[r->pos];
        if (c == ' ' || c == '\t' || c == '\r')
            r->pos++;
        else if (c == '\n')
            new_line(r, r->pos + 1);
        else
            break;
    }
}

static bool json_at(const reader *r, char c) { return r->pos < r->len && r->s[r->pos] == c; }

static hf_status json_expected(reader *r, const char *what)
{
    if (r->pos >= r->len)
        return fail_here(r, HF_EPARSE, "unexpected end of input");
    unsigned char c = (unsigned char)r->s[r->pos];
    char msg[96];
    if (c > 0x20 && c < 0x7f)
        snprintf(msg, sizeof msg, "expected %s, found '%c'", what, c);
    else
        snprintf(msg, sizeof msg, "expected %s, found byte 0x%02x", what, (unsigned)c);
    return fail_here(r, HF_EPARSE, msg);
}

static hf_status json_expect(reader *r, char c, const char *what)
{
    if (!json_at(r, c))
        return json_expected(r, what);
    r->pos++;
    return HF_OK;
}

static bool hex4(const reader *r, size_t i, uint32_t *v)
{
    if (i + 4 > r->len)
        return false;
    uint32_t x = 0;
    for (size_t k = i; k < i + 4; k++) {
        char c = r->s[k];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return false;
        x = x * 16 + d;
    }
    *v = x;
    return true;
}

static void push_utf8(reader *r, uint32_t cp)
{
    if (cp < 0x80) {
        name_push(r, (char)cp);
    } else if (cp < 0x800) {
        name_push(r, (char)(0xc0 | (cp >> 6)));
        name_push(r, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        name_push(r, (char)(0xe0 | (cp >> 12)));
        name_push(r, (char)(0x80 | ((cp >> 6) & 0x3f)));
        name_push(r, (char)(0x80 | (cp & 0x3f)));
    } else {
        name_push(r, (char)(0xf0 | (cp >> 18)));
        name_push(r, (char)(0x80 | ((cp >> 12) & 0x3f)));
        name_push(r, (char)(0x80 | ((cp >> 6) & 0x3f)));
        name_push(r, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A JSON string at pos, decoded into r->name. */
static hf_status json_string(reader *r)
{
    size_t sl = r->line, sc = column_of(r, r->pos);
    const char *s = r->s;
    r->pos++;
    hf_i_name_buf_reset(&r->name);
    for (;;) {
        size_t i = r->pos;
        if (i >= r->len)
            return fail_at(r, HF_EPARSE, sl, sc, "unterminated string");
        unsigned char c = (unsigned char)s[i];
        if (c == '"') {
            r->pos = i + 1;
            return HF_OK;
        }
        if (c < 0x20)
            return fail_here(r, HF_EPARSE, "control character in a string (escape it)");
        if (c != '\\') {
            name_push(r, (char)c);
            r->pos = i + 1;
            continue;
        }
        if (i + 1 >= r->len)
            return fail_at(r, HF_EPARSE, sl, sc, "unterminated string");
        char e = s[i + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            name_push(r, decoded[simple - "\"\\/bfnrt"]);
            r->pos = i + 2;
            continue;
        }
        if (e != 'u')
            return fail_here(r, HF_EPARSE, "invalid escape in a string");
        uint32_t cp;
        if (!hex4(r, i + 2, &cp))
            return fail_here(r, HF_EPARSE, "\\u needs four hexadecimal digits");
        r->pos = i + 6;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return fail_at(r, HF_EPARSE, r->line, column_of(r, i),
                           "unpaired low surrogate \\u%04" PRIx32, cp);
        if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t lo;
            size_t j = r->pos;
            if (j + 1 >= r->len || s[j] != '\\' || s[j + 1] != 'u' || !hex4(r, j + 2, &lo) ||
                lo < 0xdc00 || lo > 0xdfff)
                return fail_at(r, HF_EPARSE, r->line, column_of(r, i),
                               "unpaired high surrogate \\u%04" PRIx32, cp);
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            r->pos = j + 6;
        }
        push_utf8(r, cp);
    }
}

/* A JSON number at pos. *is_index tells whether it is a non-negative integer; *index is then
 * its value, saturated at UINT64_MAX. */
static hf_status json_number(reader *r, uint64_t *index, bool *is_index)
{
    const char *s = r->s;
    bool neg = false, frac = false;
    uint64_t v = 0;
    if (json_at(r, '-')) {
        neg = true;
        r->pos++;
    }
    if (r->pos >= r->len || s[r->pos] < '0' || s[r->pos] > '9')
        return json_expected(r, "a digit");
    if (s[r->pos] == '0') {
        r->pos++;
        if (r->pos < r->len && s[r->pos] >= '0' && s[r->pos] <= '9')
            return fail_here(r, HF_EPARSE, "leading zeros are not allowed in numbers");
    } else {
        while (r->pos < r->len && s[r->pos] >= '0' && s[r->pos] <= '9') {
            unsigned dgt = (unsigned)(s[r->pos] - '0');
            /* Too large for 64 bits: saturate, so it reads as out of range, not malformed. */
            v = v > (UINT64_MAX - dgt) / 10 ? UINT64_MAX : v * 10 + dgt;
            r->pos++;
        }
    }
    if (json_at(r, '.')) {
        frac = true;
        r->pos++;
        if (r->pos >= r->len || s[r->pos] < '0' || s[r->pos] > '9')
            return json_expected(r, "a digit after '.'");
        while (r->pos < r->len && s[r->pos] >= '0' && s[r->pos] <= '9')
            r->pos++;
    }
    if (json_at(r, 'e') || json_at(r, 'E')) {
        frac = true;
        r->pos++;
        if (json_at(r, '+') || json_at(r, '-'))
            r->pos++;
        if (r->pos >= r->len || s[r->pos] < '0' || s[r->pos] > '9')
            return json_expected(r, "a digit in the exponent");
        while (r->pos < r->len && s[r->pos] >= '0' && s[r->pos] <= '9')
            r->pos++;
    }
    *is_index = !neg && !frac;
    *index = v;
    return HF_OK;
}

static hf_status json_literal(reader *r, const char *lit)
{
    size_t n = strlen(lit);
    if (r->len - r->pos < n || memcmp(r->s + r->pos, lit, n) != 0)
        return json_expected(r, "a value");
    r->pos += n;
    return HF_OK;
}

/* Check the syntax of one value and step over it. */
static hf_status json_skip(reader *r, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return fail_here(r, HF_EPARSE, "values nested too deeply");
    if (r->pos >= r->len)
        return json_expected(r, "a value");
    hf_status st;
    uint64_t num;
    bool is_index;
    switch (r->s[r->pos]) {
    case '{':
        r->pos++;
        json_ws(r);
        if (json_at(r, '}')) {
            r->pos++;
            return HF_OK;
        }
        for (;;) {
            if (!json_at(r, '"'))
                return json_expected(r, "a key string");
            if ((st = json_string(r)))
                return st;
            json_ws(r);
            if ((st = json_expect(r, ':', "':'")))
                return st;
            json_ws(r);
            if ((st = json_skip(r, depth + 1)))
                return st;
            json_ws(r);
            if (json_at(r, '}')) {
                r->pos++;
                return HF_OK;
            }
            if ((st = json_expect(r, ',', "',' or '}'")))
                return st;
            json_ws(r);
        }
    case '[':
        r->pos++;
        if (depth == 1 && (st = need(r, HF_I_NEED_WS1)))
            return st;
        json_ws(r);
        if (json_at(r, ']')) {
            r->pos++;
            return HF_OK;
        }
        for (;;) {
            if (depth == 1) {
                /* the blanks before the element may have gone beyond the window */
                if ((st = need(r, HF_I_NEED_VALUE)))
                    return st;
                json_ws(r);
            }
            if ((st = json_skip(r, depth + 1)))
                return st;
            json_ws(r);
            if (json_at(r, ']')) {
                r->pos++;
                return HF_OK;
            }
            if ((st = json_expect(r, ',', "',' or ']'")))
                return st;
            json_ws(r);
        }
    case '"':
        return json_string(r);
    case 't':
        return json_literal(r, "true");
    case 'f':
        return json_literal(r, "false");
    case 'n':
        return json_literal(r, "null");
    default:
        if (r->s[r->pos] == '-' || (r->s[r->pos] >= '0' && r->s[r->pos] <= '9'))
            return json_number(r, &num, &is_index);
        return json_expected(r, "a value");
    }
}

/* Offsets from the start of the input (r->base is 0 unless streaming; line_start may lie before
 * the window, which the modular arithmetic of size_t keeps exact). */
static void mark_here(const reader *r, mark *m)
{
    m->set = true;
    m->pos = (size_t)r->base + r->pos;
    m->line = r->line;
    m->line_start = (size_t)r->base + r->line_start;
}

static hf_status mark_go(reader *r, const mark *m)
{
    if (r->win) {
        hf_status st = hf_i_window_seek(r->win, m->pos, &r->s, &r->len, &r->pos, &r->base);
        if (st == HF_ENOMEM)
            return fail_nomem(r);
        if (st)
            return hf_i_fail(r->err, st, 0, 0, "reading the family failed");
    }
    r->pos = m->pos - (size_t)r->base;
    r->line = m->line;
    r->line_start = m->line_start - (size_t)r->base;
    return HF_OK;
}

/* "events": every event of the poset, each once; index i of the array becomes map[i]. */
static hf_status json_events(reader *r)
{
    uint32_t n = r->p->n;
    hf_status st = need(r, HF_I_NEED_VALUE);
    if (st)
        return st;
    size_t al = r->line, ac = column_of(r, r->pos);
    if (!json_at(r, '['))
        return fail_here(r, HF_EPARSE, "\"events\" must be an array of event names");
    r->pos++;
    r->map = hf_i_alloc_array(r->ctx, n, sizeof *r->map);
    if (!r->map)
        return fail_nomem(r);
    r->have_map = true;
    uint32_t count = 0;
    json_ws(r);
    if (json_at(r, ']'))
        r->pos++;
    else
        for (;;) {
            size_t el = r->line, ec = column_of(r, r->pos);
            if (!json_at(r, '"'))
                return fail_here(r, HF_EPARSE, "\"events\" must hold event names (strings)");
            if ((st = json_string(r)))
                return st;
            uint32_t id;
            if (!name_find(r, &id))
                return unknown_name(r, el, ec);
            if (hf_i_bit_test(r->seen, id)) {
                char q[96];
                return fail_at(r, HF_ESCHEDULE, el, ec, "event %s is listed twice in \"events\"",
                               hf_i_name_quote(r->name.text, q, sizeof q));
            }
            hf_i_bit_set(r->seen, id);
            r->map[count++] = id;
            json_ws(r);
            if (json_at(r, ']')) {
                r->pos++;
                break;
            }
            if ((st = json_expect(r, ',', "',' or ']'")))
                return st;
            json_ws(r);
        }
    if (count != n)
        return fail_at(r, HF_EMISMATCH, al, ac,
                       "family has %" PRIu32 " events, the order has %" PRIu32, count, n);
    for (uint32_t i = 0; i < count; i++)
        hf_i_bit_clear(r->seen, r->map[i]);
    return HF_OK;
}

/* One event of a schedule: an index (into "events", or an id without it) or a name. */
static hf_status json_entry(reader *r, uint32_t *id)
{
    uint32_t n = r->p->n;
    size_t el = r->line, ec = column_of(r, r->pos);
    hf_status st;
    if (json_at(r, '"')) {
        if ((st = json_string(r)))
            return st;
        if (!name_find(r, id))
            return unknown_name(r, el, ec);
        return HF_OK;
    }
    if (r->pos < r->len && (r->s[r->pos] == '-' || (r->s[r->pos] >= '0' && r->s[r->pos] <= '9'))) {
        uint64_t index;
        bool is_index;
        size_t at = r->pos;
        if ((st = json_number(r, &index, &is_index)))
            return st;
        if (!is_index)
            return fail_at(r, HF_EPARSE, el, ec, "an event index must be a non-negative integer");
        if (index >= n) {
            size_t len = r->pos - at; /* as written: a saturated value would misquote it */
            return fail_at(r, HF_ENOTFOUND, el, ec,
                           "event index %.*s%s out of range (the order has %" PRIu32 " events)",
                           len > 44 ? 40 : (int)len, r->s + at, len > 44 ? "..." : "", n);
        }
        *id = r->have_map ? r->map[index] : (uint32_t)index;
        return HF_OK;
    }
    return json_expected(r, "an event index or name");
}

static hf_status json_schedules(reader *r)
{
    hf_status st = need(r, HF_I_NEED_WS1);
    if (st)
        return st;
    if (!json_at(r, '['))
        return fail_here(r, HF_EPARSE, "\"schedules\" must be an array of schedules");
    r->pos++;
    if ((st = need(r, HF_I_NEED_WS1)))
        return st;
    json_ws(r);
    if (json_at(r, ']')) {
        r->pos++;
        return HF_OK;
    }
    for (;;) {
        if ((st = need(r, HF_I_NEED_VALUE)))
            return st;
        json_ws(r);
        size_t sched = r->f->m + 1;
        size_t sl = r->line, sc = column_of(r, r->pos);
        if (!json_at(r, '['))
            return json_expected(r, "a schedule (an array of events)");
        r->pos++;
        uint32_t k = 0;
        json_ws(r);
        if (json_at(r, ']'))
            r->pos++;
        else
            for (;;) {
                size_t el = r->line, ec = column_of(r, r->pos);
                uint32_t id;
                if ((st = json_entry(r, &id)) || (st = row_add(r, &k, id, sched, el, ec)))
                    return st;
                json_ws(r);
                if (json_at(r, ']')) {
                    r->pos++;
                    break;
                }
                if ((st = json_expect(r, ',', "',' or ']'")))
                    return st;
                json_ws(r);
            }
        if ((st = row_end(r, k, sched, sl, sc)))
            return st;
        json_ws(r);
        if (json_at(r, ']')) {
            r->pos++;
            return HF_OK;
        }
        if ((st = json_expect(r, ',', "',' or ']'")))
            return st;
        json_ws(r);
    }
}

/* The object is read once for its syntax and its small fields, remembering where "events" and
 * "schedules" start; they are then read in that order, whatever order the keys came in. */
static hf_status json_read(reader *r)
{
    hf_status st;
    mark events = {0}, schedules = {0};
    bool have_d = false, have_method = false;
    r->json = true;
    json_ws(r);
    size_t ol = r->line, oc = column_of(r, r->pos);
    if ((st = json_expect(r, '{', "'{'")) || (st = need(r, HF_I_NEED_WS1)))
        return st;
    json_ws(r);
    if (json_at(r, '}'))
        r->pos++;
    else
        for (;;) {
            if ((st = need(r, HF_I_NEED_VALUE)))
                return st;
            json_ws(r);
            size_t kl = r->line, kc = column_of(r, r->pos);
            if (!json_at(r, '"'))
                return json_expected(r, "a key string");
            if ((st = json_string(r)))
                return st;
            int key = name_is(r, "d")           ? 1
                      : name_is(r, "events")    ? 2
                      : name_is(r, "schedules") ? 3
                      : name_is(r, "method")    ? 4
                                                : 0;
            json_ws(r);
            if ((st = json_expect(r, ':', "':'")) || (st = need(r, HF_I_NEED_WS1)))
                return st;
            /* the schedules are read one at a time (json_skip), anything else whole */
            json_ws(r);
            if ((key != 3 || !json_at(r, '[')) && (st = need(r, HF_I_NEED_VALUE)))
                return st;
            if ((key == 1 && have_d) || (key == 2 && events.set) || (key == 3 && schedules.set) ||
                (key == 4 && have_method))
                return fail_at(r, HF_EPARSE, kl, kc, "duplicate key \"%s\"", r->name.text);
            if (key == 1) {
                size_t vl = r->line, vc = column_of(r, r->pos), at = r->pos;
                uint64_t d = 0;
                bool is_index = false;
                if (r->pos < r->len &&
                    (r->s[r->pos] == '-' || (r->s[r->pos] >= '0' && r->s[r->pos] <= '9'))) {
                    if ((st = json_number(r, &d, &is_index)))
                        return st;
                }
                if (!is_index)
                    return fail_at(r, HF_EPARSE, vl, vc, "\"d\" must be a non-negative integer");
                if (d < 1 || d > HF_MAX_D) {
                    size_t len = r->pos - at;
                    return fail_at(r, HF_EPARSE, vl, vc, "\"d\": %.*s%s is out of range (1 to %u)",
                                   len > 24 ? 20 : (int)len, r->s + at, len > 24 ? "..." : "",
                                   HF_MAX_D);
                }
                r->d = (unsigned)d;
                have_d = true;
            } else if (key == 4 && json_at(r, '"')) {
                if ((st = json_string(r)) || (st = keep_method(r)))
                    return st;
                have_method = true;
            } else {
                have_method |= key == 4; /* any other value: no method */
                if (key == 2)
                    mark_here(r, &events);
                else if (key == 3)
                    mark_here(r, &schedules);
                if ((st = json_skip(r, 1)))
                    return st;
            }
            if ((st = need(r, HF_I_NEED_WS1)))
                return st;
            json_ws(r);
            if (json_at(r, '}')) {
                r->pos++;
                break;
            }
            if ((st = json_expect(r, ',', "',' or '}'")))
                return st;
            json_ws(r);
        }
    if ((st = need(r, HF_I_NEED_WS1)))
        return st;
    json_ws(r);
    if (r->pos < r->len)
        return fail_here(r, HF_EPARSE, "unexpected data after the JSON object");
    if (!schedules.set)
        return fail_at(r, HF_EPARSE, ol, oc, "the JSON object has no \"schedules\"");
    if (events.set) {
        if ((st = mark_go(r, &events)) || (st = json_events(r)))
            return st;
    }
    if ((st = mark_go(r, &schedules)))
        return st;
    return json_schedules(r);
}

/* ========================================================================================== */
/* Reader: entry points                                                                       */

hf_status hf_family_read_mem(const hf_poset *p, const char *data, size_t len, hf_family **out,
                             hf_family_header *header, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (header)
        *header = (hf_family_header){0};
    if (!p || !out || (!data && len > 0))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    return hf_i_family_read(p, data, len, NULL, NULL, NULL, out, header, err);
}

hf_status hf_i_family_read(const hf_poset *p, const char *data, size_t len, hf_i_window *win,
                           hf_schedule_fn emit, void *user, hf_family **out,
                           hf_family_header *header, hf_error *err)
{
    reader r = {.p = p, .ctx = p->ctx, .s = data, .len = len, .line = 1, .err = err};
    r.win = win;
    r.emit = emit;
    r.emit_user = user;
    hf_status st = HF_OK;
    r.name.text = hf_i_malloc(r.ctx, HF_MAX_NAME + 1);
    r.row = hf_i_alloc_array(r.ctx, p->n, sizeof *r.row);
    r.seen = hf_i_calloc(r.ctx, hf_i_words(p->n), sizeof *r.seen);
    if (!r.name.text || !r.row || !r.seen || hf_family_new(r.ctx, p->n, &r.f))
        st = fail_nomem(&r);
    if (!st)
        st = need(&r, HF_I_NEED_START);
    if (!st) {
        /* A UTF-8 byte order mark is not part of the first line's text. */
        if (r.len >= 3 && memcmp(r.s, "\xef\xbb\xbf", 3) == 0)
            r.pos = r.line_start = 3;
        size_t i = r.pos;
        while (i < r.len && (r.s[i] == ' ' || r.s[i] == '\t' || r.s[i] == '\r' || r.s[i] == '\n'))
            i++;
        bool json = i < r.len && r.s[i] == '{';
        if (hf_i_bin_detect(r.s, r.len)) {
            /* bin is read whole (its rows are compact): a stream is read to its end first */
            if (win && (st = hf_i_window_all(win, &r.s, &r.len)))
                st = st == HF_ENOMEM ? fail_nomem(&r)
                                     : hf_i_fail(err, st, 0, 0, "reading the family failed");
            if (!st)
                st = hf_i_bin_read(p, r.s, r.len, r.f, &r.d, err);
            for (size_t k = 0; !st && emit && k < r.f->m; k++)
                if ((st = emit(user, hf_family_schedule(r.f, k), p->n, k, 0)))
                    st = hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
        } else {
            /* JSON is read twice (its syntax, then events and schedules): a pipe is kept aside */
            if (json && win && (st = hf_i_window_rewindable(win)))
                st = st == HF_ENOMEM ? fail_nomem(&r)
                                     : hf_i_fail(err, st, 0, 0, "reading the family failed");
            if (!st)
                st = json ? json_read(&r) : text_read(&r);
        }
    }
    hf_i_free(r.ctx, r.name.text);
    hf_i_free(r.ctx, r.row);
    hf_i_free(r.ctx, r.seen);
    hf_i_free(r.ctx, r.map);
    hf_i_free(r.ctx, r.guess);
    hf_i_free(r.ctx, r.key);
    if (st) {
        hf_family_free(r.f);
        return st;
    }
    if (header) {
        header->d = r.d;
        header->schedules_known = true;
        header->schedules = r.f->m;
        header->row_first = r.row_first;
        header->row_last = r.row_first && !r.row_last ? r.row_first + r.f->m - 1 : r.row_last;
    }
    *out = r.f;
    return HF_OK;
}

hf_status hf_family_read_file(const hf_poset *p, FILE *in, hf_family **out,
                              hf_family_header *header, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (header)
        *header = (hf_family_header){0};
    if (!p || !in || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    char *buf = NULL;
    size_t cap = 0, len = 0;
    const size_t chunk = 1u << 16;
    for (;;) {
        if (len > SIZE_MAX - chunk || HF_I_GROW(p->ctx, buf, &cap, len + chunk) != HF_OK) {
            hf_i_free(p->ctx, buf);
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
        }
        size_t got = fread(buf + len, 1, cap - len, in);
        len += got;
        if (got == 0 || feof(in) || ferror(in))
            break;
    }
    if (ferror(in)) {
        hf_i_free(p->ctx, buf);
        return hf_i_fail(err, HF_EIO, 0, 0, "reading the family failed");
    }
    hf_status st = hf_family_read_mem(p, buf, len, out, header, err);
    hf_i_free(p->ctx, buf);
    return st;
}

const char *hf_family_method(const hf_family *f) { return f ? f->method : NULL; }

size_t hf_family_header_line(const hf_family *f) { return f ? f->header_line : 0; }

size_t hf_family_schedule_line(const hf_family *f, size_t index)
{
    return f && index < f->lined ? f->lines[index] : 0;
}
