/* Families read in chunks (never the whole input): the window that lib/io_family.c's reader
 * parses, refilled before each text line, JSON value or bin schedule; the store of schedules for
 * verify, on the heap or in a mapped temporary file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "family_stream_i.h"
#include "poset_i.h"

static int temp_fd(size_t bytes);

/* ========================================================================================== */
/* The window                                                                                 */

struct hf_i_window {
    hf_ctx *ctx;
    FILE *in;        /* the input, or NULL for mem */
    const char *mem; /* or this buffer */
    size_t mem_len;
    uint64_t mem_off; /* next byte of mem to copy */
    uint64_t start;   /* offset of the input's first byte in its file */
    bool seekable;
    FILE *spool; /* a pipe's copy (owned) */
    /* A pipe is made rewindable by keeping all of it in buf (keep_all) instead of a copy in a
     * temporary file (hf_family_read_file, which read whole inputs into memory before and
     * needs no temporary directory). */
    bool rewind_in_memory, keep_all;
    size_t chunk;
    char *buf;
    size_t cap, len;
    uint64_t base; /* input offset of buf[0] */
    bool eof;
};

/* Append up to one chunk to the window; sets eof at the end of the input. */
static hf_status window_read(hf_i_window *w)
{
    if (w->len > SIZE_MAX - w->chunk)
        return HF_ENOMEM;
    if (HF_I_GROW(w->ctx, w->buf, &w->cap, w->len + w->chunk))
        return HF_ENOMEM;
    size_t got;
    if (w->in) {
        got = fread(w->buf + w->len, 1, w->chunk, w->in);
        if (got == 0 && ferror(w->in))
            return HF_EIO;
    } else {
        size_t left = w->mem_len - (size_t)w->mem_off;
        got = left < w->chunk ? left : w->chunk;
        if (got)
            memcpy(w->buf + w->len, w->mem + w->mem_off, got);
        w->mem_off += got;
    }
    w->len += got;
    if (got == 0)
        w->eof = true;
    return HF_OK;
}

static bool json_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Scanners: each runs from *i over buf[0..len) with its state, and returns true once the unit
 * is complete; false when it needs more bytes (then *i and the state are where it stopped). */
enum { LEAD, BOM, STRING, CONTAINER, SCALAR, TRAIL, DONE };

typedef struct scan {
    int phase;
    int inner;    /* LINE: in quotes; VALUE: the phase a string returns to */
    size_t depth; /* VALUE: open brackets */
} scan;

static bool scan_line(scan *sc, const char *b, size_t len, size_t *at)
{
    size_t i = *at;
    bool quoted = sc->inner;
    bool done = false;
    while (i < len && !done) {
        char c = b[i];
        if (c == '\n') {
            done = true; /* outside quotes the line ends; inside, the quoted name fails here */
        } else if (quoted && c == '\\') {
            /* an escape: two bytes, three for a backslash before CR LF (lib/names.c) */
            if (i + 1 >= len || (b[i + 1] == '\r' && i + 2 >= len))
                break; /* not all here yet */
            i += (b[i + 1] == '\r' && b[i + 2] == '\n') ? 2 : 1;
        } else if (c == '"') {
            quoted = !quoted;
        }
        i++;
    }
    sc->inner = quoted;
    *at = i;
    return done;
}

static bool scan_value(scan *sc, const char *b, size_t len, size_t *at, hf_i_need kind)
{
    size_t i = *at;
    while (i < len) {
        char c = b[i];
        switch (sc->phase) {
        case BOM: /* four bytes: bin's magic is told by them */
            if (len - i < 4)
                goto more;
            if (memcmp(b + i, "\xef\xbb\xbf", 3) == 0)
                i += 3;
            sc->phase = LEAD;
            continue;
        case LEAD:
        case TRAIL:
            if (json_blank(c)) {
                i++;
                continue;
            }
            if (sc->phase == TRAIL || kind != HF_I_NEED_VALUE) {
                *at = i;
                return true;
            }
            sc->phase = c == '"' ? STRING : (c == '[' || c == '{') ? CONTAINER : SCALAR;
            sc->inner = TRAIL;
            sc->depth = sc->phase == CONTAINER;
            i += sc->phase != SCALAR;
            continue;
        case STRING:
            if (c == '\\') {
                if (i + 1 >= len)
                    goto more;
                i += 2;
                continue;
            }
            if (c == '"')
                sc->phase = sc->inner;
            i++;
            continue;
        case CONTAINER:
            if (c == '"') {
                sc->phase = STRING;
                sc->inner = CONTAINER;
            } else if (c == '[' || c == '{') {
                sc->depth++;
            } else if ((c == ']' || c == '}') && --sc->depth == 0) {
                sc->phase = TRAIL;
            }
            i++;
            continue;
        default: /* SCALAR: up to a delimiter */
            if (json_blank(c) || (c != '\0' && strchr(",]}[{\":", c)))
                sc->phase = TRAIL;
            else
                i++;
            continue;
        }
    }
more:
    *at = i;
    return false;
}

/* What the reader sees of the window: its bytes and the input offset of the first. */
static void window_view(const hf_i_window *w, const char **s, size_t *len, uint64_t *base)
{
    *s = w->buf;
    *len = w->len;
    *base = w->base;
}

/* Drop what the reader is done with (the bytes before *pos, which becomes 0); returns how many. */
static size_t window_drop(hf_i_window *w, size_t *pos)
{
    size_t k = *pos;
    if (k > 0 && !w->keep_all) {
        memmove(w->buf, w->buf + k, w->len - k);
        w->len -= k;
        w->base += k;
        *pos = 0;
        return k;
    }
    return 0;
}

hf_status hf_i_window_need(hf_i_window *w, hf_i_need kind, const char **s, size_t *len, size_t *pos,
                           size_t *line_start, uint64_t *base)
{
    scan sc = {kind == HF_I_NEED_START ? BOM : LEAD, 0, 0};
    size_t at = *pos;
    for (;;) {
        bool done = kind == HF_I_NEED_LINE ? scan_line(&sc, w->buf, w->len, &at)
                                           : scan_value(&sc, w->buf, w->len, &at, kind);
        if (done || w->eof)
            break;
        size_t k = window_drop(w, pos);
        at -= k;
        *line_start -= k;
        hf_status st = window_read(w);
        if (st)
            return st;
    }
    window_view(w, s, len, base);
    return HF_OK;
}

hf_status hf_i_window_bytes(hf_i_window *w, size_t want, const char **s, size_t *len, size_t *pos,
                            uint64_t *base)
{
    while (w->len - *pos < want && !w->eof) {
        window_drop(w, pos);
        hf_status st = window_read(w);
        if (st)
            return st;
    }
    window_view(w, s, len, base);
    return HF_OK;
}

hf_status hf_i_window_seek(hf_i_window *w, uint64_t off, const char **s, size_t *len, size_t *pos,
                           uint64_t *base)
{
    if (off >= w->base && off <= w->base + w->len) {
        *pos = (size_t)(off - w->base); /* still in the window */
    } else {
        if (w->in) {
            if (!w->seekable || off > (uint64_t)INT64_MAX - w->start ||
                fseeko(w->in, (off_t)(w->start + off), SEEK_SET) != 0)
                return HF_EIO;
        } else {
            w->mem_off = off;
        }
        w->len = 0;
        w->base = off;
        w->eof = false;
        *pos = 0;
    }
    window_view(w, s, len, base);
    return HF_OK;
}

hf_status hf_i_window_rewindable(hf_i_window *w)
{
    if (!w->in || w->seekable)
        return HF_OK;
    /* called at the start, before anything was dropped: buf holds the input's first bytes */
    if (w->rewind_in_memory) {
        w->keep_all = true; /* offset 0 stays in the window: every seek lands there */
        return HF_OK;
    }
    int fd = temp_fd(0);
    FILE *t = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!t) {
        if (fd >= 0)
            close(fd);
        return HF_EIO;
    }
    bool ok = fwrite(w->buf, 1, w->len, t) == w->len;
    char *chunk = hf_i_malloc(w->ctx, w->chunk);
    if (!chunk) {
        fclose(t);
        return HF_ENOMEM;
    }
    size_t got;
    while (ok && (got = fread(chunk, 1, w->chunk, w->in)) > 0)
        ok = fwrite(chunk, 1, got, t) == got;
    hf_i_free(w->ctx, chunk);
    if (ok && ferror(w->in))
        ok = false;
    if (!ok || fflush(t) != 0 || fseeko(t, (off_t)w->len, SEEK_SET) != 0) {
        fclose(t);
        return HF_EIO;
    }
    w->spool = w->in = t;
    w->start = 0;
    w->seekable = true;
    return HF_OK;
}

/* ========================================================================================== */
/* Streaming reads                                                                            */

/* The window over a stream from where it stands (struct hf_i_window). */
static hf_i_window window_of(const hf_poset *p, FILE *in, size_t chunk)
{
    hf_i_window w = {.ctx = p->ctx, .in = in, .chunk = chunk ? chunk : HF_STREAM_CHUNK};
    off_t at = ftello(in);
    w.seekable = at >= 0 && fseeko(in, at, SEEK_SET) == 0;
    w.start = at >= 0 ? (uint64_t)at : 0;
    clearerr(in);
    return w;
}

/* What the window holds: its buffer and a pipe's copy. */
static void window_free(hf_i_window *w)
{
    hf_i_free(w->ctx, w->buf);
    if (w->spool)
        fclose(w->spool);
}

static hf_status stream(const hf_poset *p, FILE *in, const char *data, size_t len, size_t chunk,
                        hf_schedule_fn fn, void *user, hf_family_header *header, hf_error *err)
{
    hf_i_error_clear(err);
    if (header)
        *header = (hf_family_header){0};
    if (!p || !fn || (!in && !data && len > 0))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_family *f = NULL;
    if (!in && chunk == 0) {
        hf_status st = hf_i_family_read(p, data, len, NULL, fn, user, &f, header, err);
        hf_family_free(f);
        return st;
    }
    hf_i_window w = {.ctx = p->ctx, .mem = data, .mem_len = len};
    w.chunk = chunk ? chunk : HF_STREAM_CHUNK;
    if (in)
        w = window_of(p, in, chunk);
    hf_status st = hf_i_family_read(p, NULL, 0, &w, fn, user, &f, header, err);
    hf_family_free(f);
    window_free(&w);
    return st;
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
    /* through the window, so that the text is never all in memory beside the family (but for
     * JSON from a pipe, which is read twice) */
    hf_i_window w = window_of(p, in, 0);
    w.rewind_in_memory = true;
    hf_status st = hf_i_family_read(p, NULL, 0, &w, NULL, NULL, out, header, err);
    window_free(&w);
    return st;
}

hf_status hf_family_stream_file(const hf_poset *p, FILE *in, size_t chunk, hf_schedule_fn fn,
                                void *user, hf_family_header *header, hf_error *err)
{
    if (!in) {
        hf_i_error_clear(err);
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    }
    return stream(p, in, NULL, 0, chunk, fn, user, header, err);
}

hf_status hf_family_stream_mem(const hf_poset *p, const char *data, size_t len, size_t chunk,
                               hf_schedule_fn fn, void *user, hf_family_header *header,
                               hf_error *err)
{
    return stream(p, NULL, data, len, chunk, fn, user, header, err);
}

/* ========================================================================================== */
/* Arrays on the heap or in a mapped temporary file                                           */

/* An unlinked temporary file of `bytes` bytes (zeros), or -1. */
static int temp_fd(size_t bytes)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t dl = strlen(dir);
    static const char tail[] = "/hitfam-XXXXXX";
    char path[4096];
    if (dl + sizeof tail > sizeof path)
        return -1;
    memcpy(path, dir, dl);
    memcpy(path + dl, tail, sizeof tail);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    if (bytes > (size_t)INT64_MAX || ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void *hf_i_big_alloc(hf_ctx *ctx, size_t count, size_t size, bool mapped, hf_i_big *b)
{
    memset(b, 0, sizeof *b);
    if (size && count > SIZE_MAX / size)
        return NULL;
    b->bytes = count * size;
    if (!mapped) {
        b->p = hf_i_alloc_array(ctx, count, size);
        return b->p;
    }
    b->mapped = true;
    if (b->bytes == 0) {
        b->p = hf_i_malloc(ctx, 1);
        b->mapped = false;
        return b->p;
    }
    int fd = temp_fd(b->bytes);
    if (fd < 0)
        return NULL;
    void *q = mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (q == MAP_FAILED)
        return NULL;
    b->p = q;
    return q;
}

void hf_i_big_free(hf_ctx *ctx, hf_i_big *b)
{
    if (b->mapped && b->p)
        munmap(b->p, b->bytes);
    else
        hf_i_free(ctx, b->p);
    memset(b, 0, sizeof *b);
}

/* ========================================================================================== */
/* The store                                                                                  */

typedef struct store_fill {
    hf_family_store *s;
    FILE *spill; /* rows beyond the heap's share, or NULL */
    hf_status st;
} store_fill;

static hf_status store_put(void *user, const uint32_t *row, uint32_t n, size_t index, size_t line)
{
    store_fill *sf = user;
    hf_family_store *s = sf->s;
    (void)index;
    if (HF_I_GROW(s->ctx, s->lines, &s->lines_cap, s->m + 1))
        return sf->st = HF_ENOMEM;
    s->lines[s->m] = line;
    /* the rows stay on the heap while they take at most a quarter of the limit: the check's
     * tables take about three times as much again */
    size_t ids = (s->m + 1) * (size_t)n;
    if (!sf->spill && s->limit && ids > s->limit / 4 / sizeof(uint32_t)) {
        int fd = temp_fd(0);
        sf->spill = fd >= 0 ? fdopen(fd, "w+b") : NULL;
        if (!sf->spill) {
            if (fd >= 0)
                close(fd);
            return sf->st = HF_EIO;
        }
        size_t have = s->m * (size_t)n;
        if (have && fwrite(s->heap, sizeof *s->heap, have, sf->spill) != have)
            return sf->st = HF_EIO;
        hf_i_free(s->ctx, s->heap);
        s->heap = NULL;
        s->cap = 0;
    }
    if (sf->spill) {
        if (fwrite(row, sizeof *row, n, sf->spill) != n)
            return sf->st = HF_EIO;
    } else if (n) {
        if (HF_I_GROW(s->ctx, s->heap, &s->cap, ids))
            return sf->st = HF_ENOMEM;
        memcpy(s->heap + s->m * (size_t)n, row, n * sizeof *row);
    }
    s->m++;
    return HF_OK;
}

hf_status hf_family_store_read(const hf_poset *p, FILE *in, size_t memory_limit,
                               hf_family_store **out, hf_family_header *header, hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!p || !in || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    hf_family_store *s = hf_i_calloc(p->ctx, 1, sizeof *s);
    if (!s)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    s->ctx = p->ctx;
    s->n = p->n;
    s->limit = memory_limit;
    store_fill sf = {.s = s};
    hf_family_header h;
    hf_status st = hf_family_stream_file(p, in, 0, store_put, &sf, &h, err);
    if (st && sf.st == HF_ENOMEM)
        hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    else if (st && sf.st)
        hf_i_fail(err, sf.st, 0, 0, "cannot write the family's temporary file: %s",
                  strerror(errno));
    if (!st && p->n == 0)
        s->m = h.schedules; /* empty schedules: only the header counts them */
    if (!st && sf.spill) {
        size_t bytes = s->m * (size_t)s->n * sizeof(uint32_t);
        void *q = fflush(sf.spill) == 0
                      ? mmap(NULL, bytes, PROT_READ, MAP_SHARED, fileno(sf.spill), 0)
                      : MAP_FAILED;
        if (q == MAP_FAILED)
            st = hf_i_fail(err, HF_EIO, 0, 0, "cannot map the family's temporary file: %s",
                           strerror(errno));
        else
            s->big = (hf_i_big){.p = q, .bytes = bytes, .mapped = true};
    }
    if (sf.spill)
        fclose(sf.spill);
    if (st) {
        hf_family_store_free(s);
        return st;
    }
    s->rows = s->big.p ? s->big.p : s->heap;
    if (header)
        *header = h;
    *out = s;
    return HF_OK;
}

size_t hf_family_store_size(const hf_family_store *s) { return s ? s->m : 0; }

const uint32_t *hf_family_store_schedule(const hf_family_store *s, size_t index)
{
    static const uint32_t none[1] = {0};
    if (!s || index >= s->m)
        return NULL;
    return s->n ? s->rows + index * (size_t)s->n : none;
}

size_t hf_family_store_schedule_line(const hf_family_store *s, size_t index)
{
    return s && s->lines && index < s->m ? s->lines[index] : 0;
}

bool hf_family_store_mapped(const hf_family_store *s) { return s && s->big.mapped; }

void hf_family_store_free(hf_family_store *s)
{
    if (!s)
        return;
    hf_i_big_free(s->ctx, &s->big);
    hf_i_free(s->ctx, s->heap);
    hf_i_free(s->ctx, s->lines);
    hf_i_free(s->ctx, s);
}

hf_status hf_verify_store(const hf_poset *p, const hf_family_store *s, const hf_verify_options *opt,
                          hf_verify_result *result, hf_error *err)
{
    hf_i_error_clear(err);
    if (!s || !result)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    size_t heap = s->heap ? s->m * (size_t)s->n * sizeof(uint32_t) : 0;
    return hf_i_verify_rows(p, s->rows, s->n, s->m, heap, s->lines, opt, result, NULL, err);
}

hf_status hf_verify_store_count_uncovered(const hf_poset *p, const hf_family_store *s,
                                          const hf_verify_options *opt, mpz_t out, hf_error *err)
{
    hf_i_error_clear(err);
    if (!s || !out)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    size_t heap = s->heap ? s->m * (size_t)s->n * sizeof(uint32_t) : 0;
    return hf_i_verify_rows(p, s->rows, s->n, s->m, heap, s->lines, opt, NULL, out, err);
}
