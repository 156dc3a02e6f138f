/* The family writers: text, ids, JSON and bin, row by row to a stream (hf_writer, a sink for
 * the methods) or a whole family at once. Rows are assembled in blocks (lib/io_family_ids.c),
 * or, when a generator describes them by ranges (lib/family_rows_i.h), gathered from renders
 * and written with writev, or copied out of the renders on the generator's second thread and
 * written in one piece. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "family_i.h"
#include "family_rows_i.h"
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
    uint8_t *seen; /* n marks (is_permutation), below epoch between checks */
    uint8_t epoch;
    /* Rows are assembled in o and reach the stream in blocks (the header goes to the stream
     * directly first, except bin's, which the checksum covers). Each event's token (text: its
     * name, quoted if needed; ids and JSON: its index in decimal) is rendered once, token v
     * being tok[tok_off[v] .. tok_off[v + 1]), with HF_I_OUT_SLACK bytes after the last. */
    hf_i_out o;
    char *tok;
    size_t *tok_off;
    /* The tokens are made when the first row comes (make_tokens), on two threads when the row
     * description allows it, or ahead of it (hf_i_writer_reserve, hf_i_writer_prepare): tokens
     * says they are there, tok_total is the length of all of them, each with its separator (a
     * render's length). `filled`: the slots were filled, `fits`: every token fit in its slot.
     * Renders made from them, they are dropped (tokens_free) until a row of values needs them. */
    bool tokens, filled, fits;
    size_t tok_total;
    /* The slot filling's shared state (fill_chunks): the next event whose slot no thread took
     * yet, whether some token did not fit, the length of the tokens made */
    _Atomic uint32_t prep_next;
    atomic_bool prep_unfit;
    _Atomic size_t prep_total;
    /* When every token and its separator fit in SLOT - 1 bytes (text and ids of short names,
     * JSON's indices): token v and the format's separator at slot + SLOT * v, their length in
     * the slot's last byte, so that a row costs one fixed-size copy per event; tok and tok_off
     * are then not made. NULL otherwise. */
    char *slot;
    /* The renders of the sequences of the row descriptions (lib/family_rows_i.h) named by
     * render_id (0: none yet): render[s] holds the tokens of sequence s in order, each with the
     * format's separator (bin: each index in its width), render_at[s][i] where value i's token
     * starts (n + 1 offsets below 2^32; NULL for bin, where it is i times the width). */
    uint64_t render_id;
    char *render[HF_I_ROW_SOURCES];
    uint32_t *render_at[HF_I_ROW_SOURCES];
    /* Rows from the renders are gathered, not copied: vec[0 .. nvec-1] are the pieces waiting,
     * in order, each in a render or in o.buf (short pieces are copied there: o.len counts them
     * while nvec > 0; bin's checksum reads them when they are written). They reach the
     * stream's descriptor `fd` with writev (-1: the stream has none, each piece goes through
     * fwrite) before the renders change, before o.buf serves another row, and at the close. */
    struct iovec *vec;
    size_t nvec;
    int fd;
    uint32_t *row;      /* a described row as values, when the renders could not be made */
    uint64_t described; /* rows written from the renders (tests) */
    uint64_t assembled; /* of them, rows whose bytes came assembled (tests) */
};

/* Gathered pieces shorter than this are copied into o.buf (one piece of writev costs about as
 * much as copying a few hundred bytes); longer ones are written from the renders in place. */
enum { GATHER_COPY = 512, GATHER_MAX = 1024 };

#if defined(IOV_MAX) && IOV_MAX < GATHER_MAX
#define GATHER_CALL IOV_MAX
#else
#define GATHER_CALL GATHER_MAX
#endif

static bool gather_flush(hf_writer *w);

uint64_t hf_i_row_source_id(void)
{
    static _Atomic uint64_t last;
    return ++last;
}

enum { SLOT = 16 };

/* Whether s is a permutation of 0..n-1: each event's mark is set to the check's epoch, a mark
 * already there is a repeat. The marks are cleared once every 255 checks. */
static bool is_permutation(hf_writer *w, const uint32_t *s, uint32_t n)
{
    if (++w->epoch == 0) {
        memset(w->seen, 0, n);
        w->epoch = 1;
    }
    uint8_t *seen = w->seen, epoch = w->epoch;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = s[i];
        if (v >= n || seen[v] == epoch)
            return false;
        seen[v] = epoch;
    }
    return true;
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

/* The token of a name at dst when it takes at most max bytes (render_name's bytes); else
 * nothing is written and max + 1 is returned. */
static size_t render_name_within(char *dst, const char *name, size_t max)
{
    size_t l = strnlen(name, max + 1);
    if (l > max) /* quoted, it would be longer still */
        return max + 1;
    if (hf_i_name_is_bare(name)) {
        memcpy(dst, name, l);
        return l;
    }
    if (render_name(NULL, name) > max)
        return max + 1;
    return render_name(dst, name);
}

/* Runs `fn` on a and b: b on a second thread when `two` and one can be started, else both on
 * the caller's thread, one after the other. The thread is joined before the return. Each call
 * only reads what the other reads and writes its own memory, so the result does not depend on
 * the threads. */
static void run_both(void *(*fn)(void *), void *a, void *b, bool two)
{
    pthread_t t;
    bool started = two && pthread_create(&t, NULL, fn, b) == 0;
    fn(a);
    if (started)
        pthread_join(t, NULL);
    else
        fn(b);
}

/* Below this many events the tokens and renders are made on the caller's thread alone. */
enum { SPLIT_EVENTS = 2048 };

/* Slots lo .. hi-1 (struct hf_writer), filled by one thread; fits false when some token and
 * its separator do not fit in a slot (the other slots are then left as they are). */
typedef struct slot_part {
    const hf_writer *w;
    uint32_t lo, hi;
    size_t total;
    bool fits;
} slot_part;

static void *fill_slots(void *arg)
{
    slot_part *sp = arg;
    const hf_writer *w = sp->w;
    bool names = w->format == HF_FORMAT_TEXT;
    char sep = w->format == HF_FORMAT_JSON ? ',' : ' ';
    size_t total = 0;
    sp->fits = false;
    for (uint32_t v = sp->lo; v < sp->hi; v++) {
        char *d = w->slot + (size_t)SLOT * v;
        memset(d, 0, SLOT);
        size_t l = names ? render_name_within(d, hf_i_name(w->p, v), SLOT - 2) : render_index(d, v);
        if (l > SLOT - 2)
            return NULL;
        d[l] = sep;
        d[SLOT - 1] = (char)(l + 1);
        total += l + 1;
    }
    sp->total = total;
    sp->fits = true;
    return NULL;
}

/* Events whose slots one thread fills at a time (fill_chunks). */
enum { PREP_CHUNK = 2048 };

/* The shared cursor of fill_chunks set to the first event, nothing made yet. */
static void chunks_reset(hf_writer *w)
{
    atomic_store(&w->prep_next, 0);
    atomic_store(&w->prep_unfit, false);
    atomic_store(&w->prep_total, 0);
}

/* Slots filled PREP_CHUNK events at a time, each chunk taken from the shared cursor, until none
 * is left: any number of threads may run it at once. */
static void *fill_chunks(void *arg)
{
    hf_writer *w = arg;
    uint32_t n = w->p->n;
    for (;;) {
        uint32_t lo = atomic_fetch_add(&w->prep_next, PREP_CHUNK);
        if (lo >= n) /* each thread overshoots once: n <= HF_MAX_EVENTS leaves room */
            break;
        slot_part sp = {w, lo, n - lo > PREP_CHUNK ? lo + PREP_CHUNK : n, 0, false};
        fill_slots(&sp);
        if (!sp.fits)
            atomic_store(&w->prep_unfit, true);
        atomic_fetch_add(&w->prep_total, sp.total);
    }
    return NULL;
}

/* What the threads of fill_chunks made, once they all returned. */
static void chunks_done(hf_writer *w)
{
    w->fits = !atomic_load(&w->prep_unfit);
    w->tok_total = atomic_load(&w->prep_total);
    w->filled = true;
}

/* The slots (struct hf_writer) filled, on two threads when `two`; no memory is allocated. */
static void fill_all_slots(hf_writer *w, bool two)
{
    chunks_reset(w);
    run_both(fill_chunks, w, w, two && w->p->n >= SPLIT_EVENTS);
    chunks_done(w);
}

/* Every event's token, rendered once (struct hf_writer says which): in slots when every token
 * and its separator fit in one (filled on two threads when `threads` >= 2, unless
 * hf_i_writer_prepare filled them already), else in tok and tok_off. Nothing to do for bin or
 * when they are made already. */
static hf_status make_tokens(hf_writer *w, unsigned threads)
{
    if (w->tokens || w->format == HF_FORMAT_BIN)
        return HF_OK;
    const hf_poset *p = w->p;
    uint32_t n = p->n;
    if (n > 0) {
        if (!w->slot && !(w->slot = hf_i_alloc_array(p->ctx, n, SLOT)))
            return HF_ENOMEM;
        if (!w->filled)
            fill_all_slots(w, threads >= 2);
        if (w->fits) {
            w->tokens = true;
            return HF_OK;
        }
        hf_i_free(p->ctx, w->slot); /* a long token: the tokens one after the other */
        w->slot = NULL;
    }
    bool names = w->format == HF_FORMAT_TEXT;
    size_t total = 0;
    for (uint32_t v = 0; v < n; v++) {
        size_t l = names ? render_name(NULL, hf_i_name(p, v)) : 10;
        if (total > SIZE_MAX - l - HF_I_OUT_SLACK)
            return HF_ENOMEM;
        total += l;
    }
    w->tok_off = hf_i_alloc_array(p->ctx, (size_t)n + 1, sizeof *w->tok_off);
    w->tok = hf_i_malloc(p->ctx, total + HF_I_OUT_SLACK);
    if (!w->tok_off || !w->tok) {
        hf_i_free(p->ctx, w->tok);
        hf_i_free(p->ctx, w->tok_off);
        w->tok = NULL;
        w->tok_off = NULL;
        return HF_ENOMEM;
    }
    size_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        w->tok_off[v] = k;
        k += names ? render_name(w->tok + k, hf_i_name(p, v)) : render_index(w->tok + k, v);
    }
    w->tok_off[n] = k;
    memset(w->tok + k, 0, HF_I_OUT_SLACK);
    w->tok_total = k + n;
    w->tokens = true;
    return HF_OK;
}

/* The tokens dropped (make_tokens makes them again when a row needs them); tok_total stays. */
static void tokens_free(hf_writer *w)
{
    hf_ctx *ctx = w->p->ctx;
    hf_i_free(ctx, w->tok);
    hf_i_free(ctx, w->tok_off);
    hf_i_free(ctx, w->slot);
    w->tok = NULL;
    w->tok_off = NULL;
    w->slot = NULL;
    w->tokens = w->filled = false;
}

static void renders_free(hf_writer *w)
{
    for (int i = 0; i < HF_I_ROW_SOURCES; i++) {
        hf_i_free(w->p->ctx, w->render[i]);
        hf_i_free(w->p->ctx, w->render_at[i]);
        w->render[i] = NULL;
        w->render_at[i] = NULL;
    }
    w->render_id = 0;
}

static void writer_free(hf_writer *w)
{
    hf_ctx *ctx = w->p->ctx;
    renders_free(w);
    hf_i_free(ctx, w->vec);
    hf_i_free(ctx, w->row);
    hf_i_out_free(ctx, &w->o);
    tokens_free(w);
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
    wr->fd = fileno(out);
    hf_status st = HF_OK;
    wr->seen = hf_i_calloc(p->ctx, p->n ? p->n : 1, 1);
    /* A token is at most a quoted name of HF_MAX_NAME escaped bytes, and its separator. */
    if (!wr->seen || hf_i_out_init(p->ctx, &wr->o, out, 2 * (size_t)HF_MAX_NAME + 4))
        st = HF_ENOMEM;
    const hf_family_header none = {0};
    const hf_family_header *h = header ? header : &none;
    if (!st && format == HF_FORMAT_BIN) {
        wr->o.summed = true;
        /* a slice: its length when its last row is known, its first row and the whole size */
        bool count = h->row_first ? h->row_last >= h->row_first : h->schedules_known;
        uint64_t known = h->row_first ? h->row_last - h->row_first + 1 : h->schedules;
        if (!hf_i_bin_write_header(&wr->o, p, h->d, h->method, count ? known : HF_I_BIN_UNKNOWN,
                                   h->row_first,
                                   h->schedules_known ? h->schedules : HF_I_BIN_UNKNOWN))
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

/* Tokens of s[0..n-1] from the slots, each with its separator, as many as fit in one block at
 * a time. */
static bool write_slots(hf_writer *w, const uint32_t *s, uint32_t n)
{
    hf_i_out *o = &w->o;
    const char *slot = w->slot;
    for (uint32_t i = 0; i < n;) {
        /* a slot copy writes SLOT bytes (the buffer's slack covers the last one's excess) */
        size_t fit = (o->cap - o->len) / (SLOT - 1);
        if (fit == 0) {
            if (!hf_i_out_flush(o))
                return false;
            continue;
        }
        uint32_t end = n - i > fit ? i + (uint32_t)fit : n;
        char *d = o->buf + o->len, *d0 = d;
        for (; i < end; i++) {
            const char *t = slot + (size_t)SLOT * s[i];
            memcpy(d, t, SLOT);
            d += (unsigned char)t[SLOT - 1];
        }
        o->len += (size_t)(d - d0);
    }
    return true;
}

/* A row of tokens: prefix, the tokens joined by sep, then end. */
static bool write_token_row(hf_writer *w, const uint32_t *s, uint32_t n, const char *prefix,
                            char sep, char end)
{
    hf_i_out *o = &w->o;
    size_t plen = strlen(prefix);
    if (plen && !hf_i_out_put(o, prefix, plen))
        return false;
    if (w->slot && n > 0) { /* the slots hold this format's separator */
        if (!write_slots(w, s, n))
            return false;
        o->buf[o->len - 1] = end; /* the last separator, written with its token */
        return true;
    }
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

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif
enum { RENDER_AHEAD = 16 };

/* Token of event v with the separator sep after it, at dst (dst NULL: only counted). Returns
 * the length. */
static size_t put_token(const hf_writer *w, uint32_t v, char sep, char *dst)
{
    if (w->slot) { /* the slot holds the separator of the format */
        const char *t = w->slot + (size_t)SLOT * v;
        size_t l = (unsigned char)t[SLOT - 1];
        if (dst)
            memcpy(dst, t, l);
        return l;
    }
    size_t a = w->tok_off[v], l = w->tok_off[v + 1] - a;
    if (dst) {
        memcpy(dst, w->tok + a, l);
        dst[l] = sep;
    }
    return l + 1;
}

/* One render of make_renders: sequence val's tokens into r (bin: its indices in width bytes
 * each), where each starts into at (NULL for bin). Reads the writer, writes r and at only. */
typedef struct render_job {
    const hf_writer *w;
    const uint32_t *val;
    char *r;
    uint32_t *at;
    char sep;
} render_job;

static void *render_one(void *arg)
{
    const render_job *j = arg;
    const hf_writer *w = j->w;
    const uint32_t *val = j->val;
    uint32_t n = w->p->n;
    if (w->format == HF_FORMAT_BIN) {
        unsigned width = hf_i_bin_width(n);
        unsigned char *b = (unsigned char *)j->r;
        for (uint32_t i = 0; i < n; i++)
            for (unsigned k = 0; k < width; k++)
                b[(size_t)i * width + k] = (unsigned char)(val[i] >> (8 * k));
        memset(b + (size_t)n * width, 0, HF_I_OUT_SLACK);
        return NULL;
    }
    /* the tokens are read in the sequence's order, scattered over the table: the ones a few
     * steps ahead are fetched while these are copied */
    char *r = j->r;
    uint32_t *at = j->at;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i + RENDER_AHEAD < n)
            PREFETCH(w->slot ? (const void *)(w->slot + (size_t)SLOT * val[i + RENDER_AHEAD])
                             : (const void *)(w->tok_off + val[i + RENDER_AHEAD]));
        at[i] = (uint32_t)k;
        k += put_token(w, val[i], j->sep, r + k);
    }
    at[n] = (uint32_t)k;
    memset(r + k, 0, HF_I_OUT_SLACK);
    return NULL;
}

/* The bytes of a row from the renders: every token once, each with its separator (bin: every
 * index in its width). */
static size_t row_bytes(const hf_writer *w)
{
    return w->format == HF_FORMAT_BIN ? (size_t)w->p->n * hf_i_bin_width(w->p->n) : w->tok_total;
}

/* The renders of h's sequences (struct hf_writer), made when h names others than the last,
 * on two threads (one sequence each) when h->threads >= 2, from the tokens, which are dropped
 * once the renders hold them (a row of values makes them again). false when a sequence is not a
 * permutation of the events or memory ran out: the row is then written token by token. */
static bool make_renders(hf_writer *w, const hf_i_rows *h, char sep)
{
    if (h->id == w->render_id)
        return true;
    /* the waiting pieces may lie in the renders about to go */
    if (w->nvec > 0 && !gather_flush(w))
        return false;
    renders_free(w);
    hf_ctx *ctx = w->p->ctx;
    if (!w->vec && !(w->vec = hf_i_alloc_array(ctx, GATHER_MAX, sizeof *w->vec)))
        return false;
    if (make_tokens(w, h->threads))
        return false;
    uint32_t n = w->p->n;
    unsigned width = hf_i_bin_width(n);
    /* a render's offsets take 32 bits (half the memory to clear and to read at random in
     * write_ranges); rows of 4 GiB or more go token by token */
    bool over = w->format == HF_FORMAT_BIN ? (size_t)n > (SIZE_MAX - HF_I_OUT_SLACK) / width
                                           : w->tok_total > UINT32_MAX;
    size_t bytes = over ? 0 : row_bytes(w); /* every sequence holds every token once */
    _Static_assert(HF_I_ROW_SOURCES == 2, "one render per thread");
    render_job job[HF_I_ROW_SOURCES];
    for (int s = 0; s < HF_I_ROW_SOURCES; s++) {
        const uint32_t *val = h->src[s];
        if (!val || !is_permutation(w, val, n)) {
            renders_free(w);
            return false;
        }
        char *r = over ? NULL : hf_i_malloc(ctx, bytes + HF_I_OUT_SLACK);
        uint32_t *at =
            w->format == HF_FORMAT_BIN ? NULL : hf_i_alloc_array(ctx, (size_t)n + 1, sizeof *at);
        w->render[s] = r; /* slack: write_ranges */
        w->render_at[s] = at;
        if (!r || (w->format != HF_FORMAT_BIN && !at)) {
            renders_free(w);
            return false;
        }
        job[s] = (render_job){w, val, r, at, sep};
    }
    run_both(render_one, &job[0], &job[1], h->threads >= 2 && n >= SPLIT_EVENTS);
    w->render_id = h->id;
    tokens_free(w); /* the renders hold every token: their memory serves the rows */
    return true;
}

/* Whether the ranges of h make a row of n values within its sequences. */
static bool rows_fit(const hf_i_rows *h, uint32_t n)
{
    if (h->n != n || n == 0)
        return false;
    uint64_t total = 0;
    for (size_t i = 0; i < h->count; i++) {
        const hf_i_row_range *r = &h->ranges[i];
        if (r->src >= HF_I_ROW_SOURCES || r->a > r->b || r->b > n)
            return false;
        total += r->b - r->a;
    }
    return total == n;
}

/* The waiting pieces to the stream (struct hf_writer): writev on its descriptor, restarted
 * after a partial write or a signal, at most GATHER_CALL pieces a call; through fwrite when it
 * has none. false when a write failed (the writer then writes nothing more). */
static bool gather_flush(hf_writer *w)
{
    hf_i_out *o = &w->o;
    struct iovec *v = w->vec;
    size_t left = w->nvec;
    if (left == 0) /* o.buf's bytes, if any, are a row's of its own: not these */
        return !o->failed;
    w->nvec = 0;
    o->len = 0;
    if (o->failed)
        return false;
    for (size_t i = 0; i < left && o->summed; i++) /* bin's checksum, in the file's order */
        hf_i_sum_add(&o->sum, v[i].iov_base, v[i].iov_len);
    if (w->fd < 0) {
        for (size_t i = 0; i < left; i++)
            if (fwrite(v[i].iov_base, 1, v[i].iov_len, w->out) != v[i].iov_len) {
                o->failed = true;
                return false;
            }
        return true;
    }
    /* what stdio holds (the text header) goes first */
    if (fflush(w->out) != 0) {
        o->failed = true;
        return false;
    }
    while (left > 0) {
        ssize_t done = writev(w->fd, v, left < GATHER_CALL ? (int)left : GATHER_CALL);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0) {
            if (done == 0)
                errno = EIO;
            o->failed = true;
            return false;
        }
        size_t d = (size_t)done;
        while (left > 0 && d >= v->iov_len) {
            d -= v->iov_len;
            v++;
            left--;
        }
        if (left > 0) { /* a partial write: the rest of this piece, then the others */
            v->iov_base = (char *)v->iov_base + d;
            v->iov_len -= d;
        }
    }
    return true;
}

/* b[0 .. len-1] to the waiting pieces: copied into o.buf when short (joined to the previous
 * piece when that one ends there), else referred to in place (b must then live until
 * gather_flush). */
/* The @p len bytes just copied to o.buf + o.len as a waiting piece: joined to the previous
 * piece when that one ends there (room for a piece and for the bytes is the caller's to check). */
static inline void gather_copied(hf_writer *w, size_t len)
{
    hf_i_out *o = &w->o;
    char *d = o->buf + o->len;
    o->len += len;
    struct iovec *last = w->nvec ? &w->vec[w->nvec - 1] : NULL;
    if (last && (char *)last->iov_base + last->iov_len == d)
        last->iov_len += len;
    else
        w->vec[w->nvec++] = (struct iovec){d, len};
}

static bool gather(hf_writer *w, const char *b, size_t len)
{
    hf_i_out *o = &w->o;
    if (len < GATHER_COPY) {
        if ((o->len + len > o->cap || w->nvec == GATHER_MAX) && !gather_flush(w))
            return false;
        memcpy(o->buf + o->len, b, len);
        gather_copied(w, len);
        return true;
    }
    if (w->nvec == GATHER_MAX && !gather_flush(w))
        return false;
    w->vec[w->nvec++] = (struct iovec){(void *)b, len};
    return true;
}

/* Where range r's bytes lie in its sequence's render: [*a, *b). */
static inline void range_bytes(const hf_writer *w, const hf_i_row_range *r, unsigned width,
                               size_t *a, size_t *b)
{
    const uint32_t *at = w->render_at[r->src];
    *a = at ? at[r->a] : (size_t)r->a * width;
    *b = at ? at[r->b] : (size_t)r->b * width;
}

/* The row that h describes, from the renders: prefix, the ranges' bytes, and end in place of
 * the last separator (no end: bin, which has no separators). Gathered, not copied: the bytes
 * stay in the renders until gather_flush, except short pieces (gather), copied here inline
 * with one fixed-size copy when they are shorter than SHORT (the renders and o.buf have
 * HF_I_OUT_SLACK bytes of slack). A row assembled already (h->bytes) is one piece, written
 * before the call returns when it is not copied (the bytes are the caller's). */
enum { SHORT = 32 };
_Static_assert(SHORT <= HF_I_OUT_SLACK, "a short piece's fixed-size copy stays in the slack");

static bool write_ranges(hf_writer *w, const hf_i_rows *h, const char *prefix, char end)
{
    hf_i_out *o = &w->o;
    /* rows written token by token or the header before: their bytes go first, through stdio */
    if (w->nvec == 0 && o->len > 0 && !hf_i_out_flush(o))
        return false;
    size_t plen = strlen(prefix);
    if (plen && !gather(w, prefix, plen))
        return false;
    if (h->bytes) {
        size_t len = row_bytes(w) - (end ? 1 : 0);
        return (len == 0 || gather(w, h->bytes, len)) && (!end || gather(w, &end, 1)) &&
               (len < GATHER_COPY || gather_flush(w));
    }
    unsigned width = hf_i_bin_width(w->p->n);
    size_t last = h->count; /* the last range that holds values */
    while (last > 0 && h->ranges[last - 1].a == h->ranges[last - 1].b)
        last--;
    for (size_t i = 0; i < last; i++) {
        const hf_i_row_range *r = &h->ranges[i];
        size_t a, b;
        range_bytes(w, r, width, &a, &b);
        if (i + 1 == last && end)
            b--; /* the last separator */
        const char *src = w->render[r->src] + a;
        size_t len = b - a;
        if (len <= SHORT && o->len + SHORT <= o->cap && w->nvec < GATHER_MAX) {
            memcpy(o->buf + o->len, src, SHORT); /* one fixed-size copy, len of it kept */
            gather_copied(w, len);
        } else if (len > 0 && !gather(w, src, len)) {
            return false;
        }
    }
    return !end || gather(w, &end, 1);
}

bool hf_i_writer_ready_rows(hf_writer *w, const hf_i_rows *h)
{
    if (!w || !h || w->failed || h->n != w->p->n || h->n == 0)
        return false;
    return make_renders(w, h, w->format == HF_FORMAT_JSON ? ',' : ' ');
}

size_t hf_i_writer_assembly_size(const hf_writer *w) { return row_bytes(w) + HF_I_OUT_SLACK; }

bool hf_i_writer_assemble(const hf_writer *w, const hf_i_rows *h, char *dst)
{
    if (!w || !h || !dst || w->render_id == 0 || h->id != w->render_id || !rows_fit(h, w->p->n))
        return false;
    unsigned width = hf_i_bin_width(w->p->n);
    size_t total = row_bytes(w), k = 0;
    for (size_t i = 0; i < h->count; i++) {
        const hf_i_row_range *r = &h->ranges[i];
        size_t a, b;
        range_bytes(w, r, width, &a, &b);
        size_t len = b - a;
        if (len > total - k)
            return false; /* not a permutation: more bytes than a row has */
        memcpy(dst + k, w->render[r->src] + a, len <= SHORT ? SHORT : len);
        k += len;
    }
    return k == total;
}

/* The rows of the library's own: from the renders, else (no memory for them) as values. */
hf_status hf_i_writer_put_rows(void *user, const hf_i_rows *h)
{
    hf_writer *w = user;
    if (!w || !h)
        return HF_EINVAL;
    if (w->failed)
        return HF_EIO;
    if (h->bytes && h->id != w->render_id)
        return HF_EINVAL; /* assembled from renders the writer no longer has */
    if (!h->bytes && !rows_fit(h, w->p->n))
        return HF_ESCHEDULE;
    char sep = w->format == HF_FORMAT_JSON ? ',' : ' ';
    if (!make_renders(w, h, sep)) {
        if (w->o.failed) {
            w->failed = true;
            return HF_EIO;
        }
        /* the row of values, then as any row */
        uint32_t n = w->p->n;
        if (!w->row && !(w->row = hf_i_alloc_array(w->p->ctx, n, sizeof *w->row)))
            return HF_ENOMEM;
        uint32_t len = 0;
        for (size_t i = 0; i < h->count; i++) {
            const hf_i_row_range *r = &h->ranges[i];
            memcpy(w->row + len, h->src[r->src] + r->a, (size_t)(r->b - r->a) * sizeof *w->row);
            len += r->b - r->a;
        }
        return hf_i_writer_put(w, w->row, n);
    }
    const char *prefix = w->format != HF_FORMAT_JSON ? "" : w->count == 0 ? "\n[" : ",\n[";
    char end = w->format == HF_FORMAT_BIN ? '\0' : w->format == HF_FORMAT_JSON ? ']' : '\n';
    if (!write_ranges(w, h, prefix, end) || ferror(w->out)) {
        w->failed = true;
        return HF_EIO;
    }
    w->count++;
    w->described++;
    w->assembled += h->bytes != NULL;
    return HF_OK;
}

uint64_t hf_i_writer_described(const hf_writer *w) { return w->described; }

uint64_t hf_i_writer_assembled(const hf_writer *w) { return w->assembled; }

bool hf_i_writer_reserve(hf_writer *w)
{
    if (!w || w->failed || w->tokens || w->filled || w->format == HF_FORMAT_BIN || w->p->n == 0)
        return false;
    if (!w->slot)
        w->slot = hf_i_alloc_array(w->p->ctx, w->p->n, SLOT);
    chunks_reset(w);
    return w->slot != NULL;
}

void hf_i_writer_prepare(hf_writer *w) { fill_chunks(w); }

void hf_i_writer_prepared(hf_writer *w) { chunks_done(w); }

hf_status hf_i_writer_put(void *user, const uint32_t *s, uint32_t n)
{
    hf_writer *w = user;
    if (!w || (!s && n > 0))
        return HF_EINVAL;
    if (w->failed)
        return HF_EIO;
    if (n != w->p->n || !is_permutation(w, s, n))
        return HF_ESCHEDULE;
    if (make_tokens(w, 1))
        return HF_ENOMEM;
    /* o.buf is about to take this row: the gathered pieces go first */
    if (w->nvec > 0 && !gather_flush(w)) {
        w->failed = true;
        return HF_EIO;
    }
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

hf_sink hf_writer_sink(hf_writer *w) { return (hf_sink){.put = hf_i_writer_put, .user = w}; }

uint64_t hf_writer_count(const hf_writer *w) { return w ? w->count : 0; }

hf_status hf_writer_close(hf_writer *w)
{
    if (!w)
        return HF_OK;
    bool ok = !w->failed && gather_flush(w);
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
        if (!is_permutation(w, hf_family_schedule(f, i), f->n))
            st = HF_ESCHEDULE;
    for (size_t i = 0; i < f->m && !st; i++)
        st = hf_i_writer_put(w, hf_family_schedule(f, i), f->n);
    hf_status cst = hf_writer_close(w);
    return st ? st : cst;
}
