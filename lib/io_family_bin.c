/* The bin family format (docs/formats.md has the layout): its writer's header, rows and trailer,
 * and its reader, whole or through the streaming window. Reading checks what the text reader
 * checks: every index names an event, no event twice, every event in each schedule, and the
 * family belongs to the order (event count, and the names the file lists). */
#include <stdarg.h>
#include <string.h>

#include "family_i.h"
#include "family_stream_i.h"
#include "io_family_ids.h"
#include "poset_i.h"

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static unsigned le16(const unsigned char *b) { return (unsigned)b[0] | (unsigned)b[1] << 8; }

static void put_le16(unsigned char *b, unsigned v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
}

static void put_le32(unsigned char *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static void put_le64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}
/* ========================================================================================== */
/* bin: writing                                                                               */

/* The event-name table: each name and a NUL byte. */
static size_t names_bytes(const hf_poset *p)
{
    size_t t = 0;
    for (uint32_t v = 0; v < p->n; v++)
        t += strlen(hf_i_name(p, v)) + 1;
    return t;
}

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

bool hf_i_bin_write_header(hf_i_out *o, const hf_poset *p, unsigned d, const char *method,
                           uint64_t schedules, uint64_t row_first, uint64_t whole)
{
    size_t mlen = method ? strlen(method) : 0;
    if (mlen > HF_MAX_NAME) /* the reader's limit: such a method reads back as none */
        mlen = 0;
    size_t slice = row_first ? HF_I_BIN_SLICE : 0;
    size_t names_end = HF_I_BIN_HEADER + slice + mlen + names_bytes(p);
    size_t rows_at = align8(names_end);
    unsigned char h[HF_I_BIN_HEADER] = {0};
    memcpy(h, HF_I_BIN_MAGIC, HF_I_BIN_MAGIC_LEN);
    put_le16(h + 8, HF_I_BIN_VERSION);
    h[10] = (unsigned char)(d <= HF_MAX_D ? d : 0);
    h[11] = (unsigned char)hf_i_bin_width(p->n);
    put_le32(h + 12, HF_I_BIN_FLAG_NAMES | (row_first ? HF_I_BIN_FLAG_SLICE : 0u));
    put_le32(h + 16, p->n);
    put_le32(h + 20, (uint32_t)mlen);
    put_le64(h + 24, schedules);
    put_le64(h + 32, (uint64_t)rows_at);
    unsigned char rows[HF_I_BIN_SLICE];
    put_le64(rows, row_first);
    put_le64(rows + 8, whole);
    if (!hf_i_out_put(o, h, sizeof h) || !hf_i_out_put(o, rows, slice) ||
        !hf_i_out_put(o, method, mlen))
        return false;
    for (uint32_t v = 0; v < p->n; v++) {
        const char *name = hf_i_name(p, v);
        if (!hf_i_out_put(o, name, strlen(name) + 1))
            return false;
    }
    static const char zeros[8] = {0};
    return hf_i_out_put(o, zeros, rows_at - names_end);
}

bool hf_i_bin_write_row(hf_i_out *o, const uint32_t *s, uint32_t n)
{
    const unsigned width = hf_i_bin_width(n);
    const uint32_t chunk = 8192;
    for (uint32_t i = 0; i < n;) {
        uint32_t end = n - i > chunk ? i + chunk : n;
        unsigned char *b = (unsigned char *)hf_i_out_room(o, (size_t)(end - i) * width);
        if (!b)
            return false;
        if (width == 2)
            for (uint32_t j = i; j < end; j++, b += 2)
                put_le16(b, s[j]);
        else
            for (uint32_t j = i; j < end; j++, b += 4)
                put_le32(b, s[j]);
        o->len += (size_t)(end - i) * width;
        i = end;
    }
    return true;
}

bool hf_i_bin_write_trailer(hf_i_out *o, uint64_t count)
{
    unsigned char c[8];
    put_le64(c, count);
    if (!hf_i_out_put(o, c, sizeof c) || !hf_i_out_flush(o))
        return false;
    put_le64(c, hf_i_sum_final(&o->sum));
    o->summed = false;
    return hf_i_out_put(o, c, sizeof c) && hf_i_out_flush(o);
}

/* ========================================================================================== */
/* bin: reading                                                                               */

bool hf_i_bin_detect(const char *data, size_t len)
{
    return len >= 4 && memcmp(data, HF_I_BIN_MAGIC, 4) == 0;
}

static hf_status bin_fail(hf_error *err, hf_status st, size_t at, const char *fmt, ...)
    HF_I_PRINTF(4, 5);

static hf_status bin_fail(hf_error *err, hf_status st, size_t at, const char *fmt, ...)
{
    char msg[280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return hf_i_fail(err, st, 0, 0, "byte %zu: %s", at, msg);
}

static hf_status bin_truncated(hf_error *err, size_t len, const char *where)
{
    return bin_fail(err, HF_EPARSE, len, "truncated binary family (%s)", where);
}

/* The method of the header: none when empty, "unknown" or holding a NUL byte. */
static hf_status bin_method(const hf_poset *p, hf_family *f, const char *m, size_t len)
{
    if (len == 0 || memchr(m, '\0', len) || (len == 7 && memcmp(m, "unknown", 7) == 0))
        return HF_OK;
    f->method = hf_i_malloc(p->ctx, len + 1);
    if (!f->method)
        return HF_ENOMEM;
    memcpy(f->method, m, len);
    f->method[len] = '\0';
    return HF_OK;
}

/* What the header says; names_at: where the event names start. */
typedef struct bin_head {
    unsigned dv, width;
    uint32_t flags, n, mlen;
    uint64_t m, rows_at;
    uint64_t row_first, whole; /* a slice (flag HF_I_BIN_FLAG_SLICE); else 0 and unknown */
    size_t method_at, names_at;
} bin_head;

/* The part before the schedules ends early: refused at the end of the input; before it (a stream
 * whose window holds only the input's start), *more asks for more bytes. */
static hf_status bin_short(hf_error *err, size_t len, const char *where, bool eof, bool *more)
{
    if (eof)
        return bin_truncated(err, len, where);
    *more = true;
    return HF_OK;
}

/* A slice's rows against the whole family: rows row_first .. row_first + count - 1 of it. */
static hf_status bin_rows_within(const bin_head *h, uint64_t count, hf_error *err)
{
    if (h->whole == HF_I_BIN_UNKNOWN || count == 0 ||
        (h->row_first - 1 < h->whole && count <= h->whole - (h->row_first - 1)))
        return HF_OK;
    uint64_t last = h->row_first - 1 + count; /* wraps only past 2^64 - 1: then saturated */
    return bin_fail(err, HF_EPARSE, HF_I_BIN_HEADER,
                    "rows %" PRIu64 ":%" PRIu64 " go beyond the %" PRIu64
                    " schedules of the family",
                    h->row_first, last < h->row_first ? UINT64_MAX : last, h->whole);
}

/* The header, the method, the event names and the padding, from data[0..len): the whole input
 * when eof, else its start (then *more may ask for more, and the call is made again). */
static hf_status bin_head_read(const char *data, size_t len, bool eof, bin_head *h, bool *more,
                               hf_error *err)
{
    const unsigned char *b = (const unsigned char *)data;
    hf_status st;
    *more = false;
    if (len < HF_I_BIN_MAGIC_LEN || memcmp(b, HF_I_BIN_MAGIC, HF_I_BIN_MAGIC_LEN) != 0) {
        size_t at = 0;
        while (at < len && at < HF_I_BIN_MAGIC_LEN && b[at] == (unsigned char)HF_I_BIN_MAGIC[at])
            at++;
        return at == len ? bin_short(err, len, "in the header", eof, more)
                         : bin_fail(err, HF_EPARSE, at, "not a hitfam binary family (magic bytes)");
    }
    if (len < HF_I_BIN_HEADER)
        return bin_short(err, len, "in the header", eof, more);
    unsigned version = le16(b + 8);
    h->dv = b[10];
    h->width = b[11];
    h->flags = le32(b + 12);
    h->n = le32(b + 16);
    h->mlen = le32(b + 20);
    h->m = hf_i_le64(b + 24);
    h->rows_at = hf_i_le64(b + 32);
    if (version != HF_I_BIN_VERSION)
        return bin_fail(err, HF_EUNSUPPORTED, 8,
                        "binary family version %u, this hitfam reads version %u", version,
                        HF_I_BIN_VERSION);
    if (h->width != 2 && h->width != 4)
        return bin_fail(err, HF_EPARSE, 11, "index width %u (must be 2 or 4 bytes)", h->width);
    if (h->flags & ~(HF_I_BIN_FLAG_NAMES | HF_I_BIN_FLAG_SLICE))
        return bin_fail(err, HF_EPARSE, 12, "unknown flags 0x%" PRIx32, h->flags);
    if (h->mlen > HF_MAX_NAME)
        return bin_fail(err, HF_EPARSE, 20, "method of %" PRIu32 " bytes (at most %u)", h->mlen,
                        HF_MAX_NAME);
    /* A slice: its first row and the whole family's size, checked as text's rows=A:B. */
    size_t pos = HF_I_BIN_HEADER;
    h->row_first = 0;
    h->whole = HF_I_BIN_UNKNOWN;
    if (h->flags & HF_I_BIN_FLAG_SLICE) {
        if (len < HF_I_BIN_HEADER + HF_I_BIN_SLICE)
            return bin_short(err, len, "in the rows", eof, more);
        h->row_first = hf_i_le64(b + HF_I_BIN_HEADER);
        h->whole = hf_i_le64(b + HF_I_BIN_HEADER + 8);
        if (h->row_first == 0)
            return bin_fail(err, HF_EPARSE, HF_I_BIN_HEADER,
                            "first row 0 (rows are counted from 1)");
        if (h->m != HF_I_BIN_UNKNOWN && (st = bin_rows_within(h, h->m, err)))
            return st;
        pos += HF_I_BIN_SLICE;
    }
    h->method_at = pos;
    pos += h->mlen;
    if (pos > len)
        return bin_short(err, len, "in the method", eof, more);
    h->names_at = pos;
    if (h->flags & 1u)
        for (uint32_t v = 0; v < h->n; v++) {
            const char *z = pos < len ? memchr(data + pos, '\0', len - pos) : NULL;
            if (!z)
                return bin_short(err, len, "in the event names", eof, more);
            pos = (size_t)(z - data) + 1;
        }
    if (h->rows_at != align8(pos))
        return bin_fail(err, HF_EPARSE, 32, "rows at byte %" PRIu64 ", expected %zu", h->rows_at,
                        align8(pos));
    if (h->rows_at > len)
        return bin_short(err, len, "in the padding", eof, more);
    for (size_t i = pos; i < h->rows_at; i++)
        if (b[i] != 0)
            return bin_fail(err, HF_EPARSE, i, "padding byte is not zero");
    return HF_OK;
}

/* The input's length (whole schedules, then the trailer), its checksum and the trailer's count,
 * for len bytes whose head is h: trailer is their last 16 bytes (read only when the head leaves
 * room for them), sum the checksum of all but the last 8. *count gets the trailer's count. */
static hf_status bin_tail(const bin_head *h, size_t len, const unsigned char *trailer, uint64_t sum,
                          uint64_t *count, hf_error *err)
{
    uint64_t m = h->m, rows_at = h->rows_at;
    size_t body = len - (size_t)rows_at, row_bytes = (size_t)h->n * h->width;
    if (body < HF_I_BIN_TRAILER)
        return bin_truncated(err, len, "no trailer");
    size_t rows_len = body - HF_I_BIN_TRAILER;
    if (row_bytes == 0 && rows_len > 0)
        return bin_fail(err, HF_EPARSE, (size_t)rows_at, "%zu bytes of schedules over zero events",
                        rows_len);
    if (m != HF_I_BIN_UNKNOWN && row_bytes > 0) {
        size_t room = rows_len / row_bytes;
        if (m > room)
            return bin_fail(err, HF_EPARSE, len,
                            "truncated binary family (the header announces %" PRIu64
                            " schedules, the file has room for %zu)",
                            m, room);
        if (rows_len != (size_t)m * row_bytes)
            return bin_fail(err, HF_EPARSE, (size_t)rows_at + (size_t)m * row_bytes,
                            "%zu bytes after the header's %" PRIu64 " schedules",
                            rows_len - (size_t)m * row_bytes, m);
    } else if (row_bytes > 0 && rows_len % row_bytes != 0) {
        return bin_fail(err, HF_EPARSE, len,
                        "truncated binary family (%zu bytes of schedules is not a whole number "
                        "of %zu-byte schedules)",
                        rows_len, row_bytes);
    }
    if (sum != hf_i_le64(trailer + 8))
        return bin_fail(err, HF_EPARSE, len - 8,
                        "checksum mismatch (the file is damaged or truncated)");
    uint64_t c = hf_i_le64(trailer);
    if (m != HF_I_BIN_UNKNOWN && c != m)
        return bin_fail(err, HF_EPARSE, len - 16,
                        "the trailer counts %" PRIu64 " schedules, the header %" PRIu64, c, m);
    if (row_bytes > 0 && c != rows_len / row_bytes)
        return bin_fail(err, HF_EPARSE, len - 16,
                        "the trailer counts %" PRIu64 " schedules, the file holds %zu", c,
                        rows_len / row_bytes);
    *count = c;
    return HF_OK;
}

/* What the header says about the family against the order: d, the index width, the events. */
static hf_status bin_meta(const hf_poset *p, const bin_head *h, hf_error *err)
{
    if (h->dv > HF_MAX_D)
        return bin_fail(err, HF_EPARSE, 10, "d=%u is out of range (0 for unknown, 1 to %u)", h->dv,
                        HF_MAX_D);
    if (h->width == 2 && h->n > 65536u)
        return bin_fail(err, HF_EPARSE, 11, "2-byte indices cannot name %" PRIu32 " events", h->n);
    if (h->n != p->n)
        return bin_fail(err, HF_EMISMATCH, 16,
                        "family has %" PRIu32 " events, the order has %" PRIu32, h->n, p->n);
    return HF_OK;
}

static hf_status bin_too_large(const bin_head *h, size_t len, uint64_t count, hf_error *err)
{
    if (count > SIZE_MAX || (h->n > 0 && count > SIZE_MAX / h->n))
        return bin_fail(err, HF_ETOOLARGE, len - 16,
                        "%" PRIu64 " schedules, more than can be stored", count);
    return HF_OK;
}

/* The method (kept in f) and the event names, which must be the order's (data: the input from
 * its start, up to its rows at least). */
static hf_status bin_names(const hf_poset *p, hf_family *f, const char *data, const bin_head *h,
                           hf_error *err)
{
    if (bin_method(p, f, data + h->method_at, h->mlen))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    if (h->flags & 1u) {
        size_t pos = h->names_at;
        for (uint32_t v = 0; v < h->n; v++) {
            const char *name = data + pos, *own = hf_i_name(p, v);
            size_t nl = strlen(name);
            if (strcmp(name, own) != 0) {
                char q1[96], q2[96];
                return bin_fail(err, HF_EMISMATCH, pos,
                                "event index %" PRIu32 " is %s in the family, %s in the order", v,
                                hf_i_name_quote(name, q1, sizeof q1),
                                hf_i_name_quote(own, q2, sizeof q2));
            }
            pos += nl + 1;
        }
    }
    return HF_OK;
}

/* Schedule r (counted from 0) of n indices of `width` bytes at b (byte `at` of the input) into
 * row; seen: n clear bits, left clear. */
static hf_status bin_row(const hf_poset *p, const unsigned char *b, size_t at, uint64_t r,
                         unsigned width, uint32_t *row, hf_word *seen, hf_error *err)
{
    uint32_t n = p->n;
    hf_status st = HF_OK;
    uint32_t i = 0;
    for (; i < n; i++, b += width) {
        uint32_t v = width == 2 ? le16(b) : le32(b);
        size_t off = at + (size_t)i * width;
        if (v >= n) {
            st = bin_fail(err, HF_ENOTFOUND, off,
                          "event index %" PRIu32 " out of range (the order has %" PRIu32 " events)",
                          v, n);
            break;
        }
        if (hf_i_bit_test(seen, v)) {
            char q[96];
            st = bin_fail(err, HF_ESCHEDULE, off, "schedule %" PRIu64 " repeats event %s", r + 1,
                          hf_i_name_quote(hf_i_name(p, v), q, sizeof q));
            break;
        }
        hf_i_bit_set(seen, v);
        row[i] = v;
    }
    for (uint32_t j = 0; j < i; j++)
        hf_i_bit_clear(seen, row[j]);
    return st;
}

/* The schedules: m rows of n indices of `width` bytes at b (offset `at` in the file). */
static hf_status bin_rows(const hf_poset *p, hf_family *f, const unsigned char *b, size_t at,
                          uint64_t m, unsigned width, hf_error *err)
{
    uint32_t n = p->n;
    if (n == 0 || m == 0) {
        f->m = (size_t)m;
        return HF_OK;
    }
    if (HF_I_GROW(p->ctx, f->rows, &f->cap, (size_t)m * n))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_word *seen = hf_i_calloc(p->ctx, hf_i_words(n), sizeof *seen);
    if (!seen)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_status st = HF_OK;
    const size_t row_bytes = (size_t)n * width;
    for (uint64_t r = 0; r < m && !st; r++) {
        size_t skip = (size_t)r * row_bytes;
        st = bin_row(p, b + skip, at + skip, r, width, f->rows + (size_t)r * n, seen, err);
        if (!st)
            f->m++;
    }
    hf_i_free(p->ctx, seen);
    return st;
}

hf_status hf_i_bin_read(const hf_poset *p, const char *data, size_t len, hf_family *f, unsigned *d,
                        uint64_t *row_first, hf_error *err)
{
    bin_head h = {0};
    bool more;
    hf_status st = bin_head_read(data, len, true, &h, &more, err);
    if (st)
        return st;
    const unsigned char *b = (const unsigned char *)data;
    hf_i_sum sum;
    hf_i_sum_init(&sum);
    hf_i_sum_add(&sum, b, len - 8);
    uint64_t count = 0;
    if ((st = bin_tail(&h, len, b + len - 16, hf_i_sum_final(&sum), &count, err)) ||
        (st = bin_rows_within(&h, count, err)) || (st = bin_meta(p, &h, err)) ||
        (st = bin_too_large(&h, len, count, err)) || (st = bin_names(p, f, data, &h, err)))
        return st;
    *d = h.dv;
    *row_first = h.row_first;
    return bin_rows(p, f, b + h.rows_at, (size_t)h.rows_at, count, h.width, err);
}

/* ========================================================================================== */
/* bin: reading through the window                                                            */

/* A refusal kept for the input's end: the whole reader checks the length and the checksum
 * before the header against the order and the schedules, and a stream knows the length last. */
typedef struct bin_later {
    hf_status st;
    hf_error err;
} bin_later;

static hf_status bin_report(const bin_later *l, hf_error *err)
{
    if (l->st && err)
        *err = l->err;
    return l->st;
}

static hf_status bin_window_fail(hf_status st, hf_error *err)
{
    if (st == HF_ENOMEM)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    return hf_i_fail(err, st, 0, 0, "reading the family failed");
}

/* The part before the schedules, all in the window (nothing is dropped before it is read): a
 * window of twice the bytes each time the head reads as cut short, until the input ends. */
static hf_status bin_stream_head(hf_i_window *win, const char **s, size_t *len, size_t *pos,
                                 uint64_t *base, bin_head *h, hf_error *err)
{
    for (size_t want = HF_I_BIN_HEADER;; want *= 2) {
        hf_status st = hf_i_window_bytes(win, want, s, len, pos, base);
        if (st)
            return bin_window_fail(st, err);
        bool more;
        st = bin_head_read(*s, *len, *len < want, h, &more, err);
        if (st || !more)
            return st;
        if (want > SIZE_MAX / 2)
            return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
}

hf_status hf_i_bin_stream(const hf_poset *p, hf_i_window *win, hf_schedule_fn emit, void *user,
                          hf_family *f, unsigned *d, uint64_t *row_first, hf_error *err)
{
    const char *s = NULL;
    size_t len = 0, pos = 0;
    uint64_t base = 0;
    bin_head h = {0};
    hf_status st = bin_stream_head(win, &s, &len, &pos, &base, &h, err);
    if (st)
        return st;
    hf_i_sum sum;
    hf_i_sum_init(&sum);
    hf_i_sum_add(&sum, s, (size_t)h.rows_at);
    bin_later meta = {0}, names = {0}, bad = {0};
    meta.st = bin_meta(p, &h, &meta.err);
    /* the names only when the header fits the order (as the whole reader: meta is reported
     * first, and a family of more events than the order would name events it does not have) */
    if (!meta.st)
        names.st = bin_names(p, f, s, &h, &names.err);
    /* The schedules, one at a time, each with the trailer's 16 bytes after it at least (what is
     * left at the end is the trailer, after any bytes that make no whole schedule). When the
     * header does not fit the order, or a schedule was refused, the rest is only summed. */
    const size_t row_bytes = (size_t)h.n * h.width;
    bool check = !meta.st && !names.st && row_bytes > 0;
    uint32_t *row = NULL;
    hf_word *seen = NULL;
    if (check) {
        row = hf_i_alloc_array(p->ctx, p->n, sizeof *row);
        seen = hf_i_calloc(p->ctx, hf_i_words(p->n), sizeof *seen);
        if (!row || !seen)
            st = hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    }
    pos = (size_t)h.rows_at;
    while (!st) {
        size_t want = check ? row_bytes + HF_I_BIN_TRAILER : HF_I_BIN_TRAILER + 1;
        if ((st = hf_i_window_bytes(win, want, &s, &len, &pos, &base))) {
            st = bin_window_fail(st, err);
            break;
        }
        if (len - pos < want)
            break; /* the input's end */
        if (!check) {
            hf_i_sum_add(&sum, s + pos, len - pos - HF_I_BIN_TRAILER);
            pos = len - HF_I_BIN_TRAILER;
            continue;
        }
        for (; check && len - pos >= want; pos += row_bytes) {
            const unsigned char *b = (const unsigned char *)s + pos;
            hf_i_sum_add(&sum, b, row_bytes);
            if ((bad.st =
                     bin_row(p, b, (size_t)(base + pos), f->m, h.width, row, seen, &bad.err))) {
                check = false;
            } else if ((st = emit ? emit(user, row, p->n, f->m++, 0) : hf_family_append(f, row))) {
                st = hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
                break;
            }
        }
    }
    hf_i_free(p->ctx, row);
    hf_i_free(p->ctx, seen);
    if (st)
        return st;
    /* the end: the length, the checksum and the trailer, then what waited */
    size_t total = (size_t)(base + len), left = len - pos;
    if (left > 8)
        hf_i_sum_add(&sum, s + pos, left - 8);
    const unsigned char *trailer =
        left >= HF_I_BIN_TRAILER ? (const unsigned char *)s + len - HF_I_BIN_TRAILER : NULL;
    uint64_t count = 0;
    if ((st = bin_tail(&h, total, trailer, hf_i_sum_final(&sum), &count, err)) ||
        (st = bin_rows_within(&h, count, err)) || (st = bin_report(&meta, err)) ||
        (st = bin_too_large(&h, total, count, err)) || (st = bin_report(&names, err)) ||
        (st = bin_report(&bad, err)))
        return st;
    *d = h.dv;
    *row_first = h.row_first;
    if (row_bytes > 0)
        return HF_OK;
    /* over zero events the trailer's count is all there is */
    f->m = (size_t)count;
    for (size_t k = 0; !st && emit && k < f->m; k++)
        if ((st = emit(user, hf_family_schedule(f, k), 0, k, 0)))
            st = hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
    return st;
}
