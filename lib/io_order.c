/* The compact order format (docs/order-format.md): a little-endian binary file with the events'
 * names in id order, the Hasse edges as id pairs, and the focus marks, threads and objects. The
 * reader checks every count against the bytes present before it trusts it, and builds the poset
 * through the public builder, so that a compact file and the DOT it came from read alike. */
#include <string.h>

#include "hitfam/order.h"
#include "internal.h"
#include "poset_i.h"

/* Header: magic[8], version u32, flags u32, n u32, reserved u32, edges u64, name bytes u64. */
#define HEADER_BYTES 40u

enum { HAS_FOCUS = 1u, HAS_THREADS = 2u, HAS_OBJECTS = 4u, KNOWN_FLAGS = 7u };

bool hf_order_is_compact(const char *data, size_t len)
{
    return data && len >= 8 && memcmp(data, HF_ORDER_MAGIC, 8) == 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing                                                                                    */

static bool put_u32(FILE *out, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return fwrite(b, 1, 4, out) == 4;
}

static bool put_u64(FILE *out, uint64_t v)
{
    return put_u32(out, (uint32_t)v) && put_u32(out, (uint32_t)(v >> 32));
}

/* A label table: its names, then each event's index (or HF_NO_EVENT). */
static bool put_labels(FILE *out, const hf_i_labels *l, uint32_t n)
{
    uint64_t bytes = 0;
    for (uint32_t k = 0; k < l->count; k++)
        bytes += strlen(hf_i_label_name(l, k)) + 1;
    if (!put_u32(out, l->count) || !put_u64(out, bytes))
        return false;
    for (uint32_t k = 0; k < l->count; k++) {
        const char *s = hf_i_label_name(l, k);
        if (fwrite(s, 1, strlen(s) + 1, out) != strlen(s) + 1)
            return false;
    }
    for (uint32_t v = 0; v < n; v++)
        if (!put_u32(out, l->of ? l->of[v] : HF_NO_EVENT))
            return false;
    return true;
}

hf_status hf_order_write(const hf_poset *p, FILE *out)
{
    if (!p || !out)
        return HF_EINVAL;
    uint32_t n = p->n;
    uint64_t name_bytes = 0;
    for (uint32_t v = 0; v < n; v++)
        name_bytes += strlen(hf_i_name(p, v)) + 1;
    uint32_t flags = (p->focus_count ? HAS_FOCUS : 0u) | (p->threads.count ? HAS_THREADS : 0u) |
                     (p->objects.count ? HAS_OBJECTS : 0u);
    bool ok = fwrite(HF_ORDER_MAGIC, 1, 8, out) == 8 && put_u32(out, HF_ORDER_VERSION) &&
              put_u32(out, flags) && put_u32(out, n) && put_u32(out, 0) &&
              put_u64(out, p->edge_count) && put_u64(out, name_bytes);
    for (uint32_t v = 0; v < n && ok; v++) {
        const char *s = hf_i_name(p, v);
        size_t len = strlen(s) + 1;
        ok = fwrite(s, 1, len, out) == len;
    }
    for (uint32_t u = 0; u < n && ok; u++)
        for (size_t i = p->succ_off[u]; i < p->succ_off[u + 1] && ok; i++)
            ok = put_u32(out, u) && put_u32(out, p->succ[i]);
    if (ok && (flags & HAS_FOCUS)) {
        ok = put_u32(out, p->focus_count);
        for (uint32_t k = 0; k < p->focus_count && ok; k++)
            ok = put_u32(out, p->focus[k]);
    }
    if (ok && (flags & HAS_THREADS))
        ok = put_labels(out, &p->threads, n);
    if (ok && (flags & HAS_OBJECTS)) {
        ok = put_labels(out, &p->objects, n);
        for (uint32_t v = 0; v < n && ok; v++)
            ok = putc(p->access ? p->access[v] : HF_ACCESS_NONE, out) != EOF;
    }
    return ok && !ferror(out) ? HF_OK : HF_EIO;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading                                                                                    */

typedef struct input {
    const unsigned char *s;
    size_t len, at;
} input;

static bool get_u32(input *in, uint32_t *v)
{
    if (in->len - in->at < 4)
        return false;
    const unsigned char *b = in->s + in->at;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    in->at += 4;
    return true;
}

static bool get_u64(input *in, uint64_t *v)
{
    uint32_t lo, hi;
    if (!get_u32(in, &lo) || !get_u32(in, &hi))
        return false;
    *v = (uint64_t)hi << 32 | lo;
    return true;
}

static hf_status truncated(hf_error *err, const char *what)
{
    return hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: truncated in its %s", what);
}

/* `count` NUL-terminated names in exactly `bytes` bytes at the input's position: calls add for
 * each (index, name). */
static hf_status names(input *in, uint32_t count, uint64_t bytes, const char *what,
                       hf_status (*add)(void *user, uint32_t k, const char *name, hf_error *err),
                       void *user, hf_error *err)
{
    if (bytes > in->len - in->at)
        return truncated(err, what);
    const char *s = (const char *)in->s + in->at, *end = s + bytes;
    for (uint32_t k = 0; k < count; k++) {
        const char *nul = memchr(s, '\0', (size_t)(end - s));
        if (!nul)
            return hf_i_fail(err, HF_EPARSE, 0, 0,
                             "compact order: %s: %" PRIu32 " names announced, %" PRIu32 " found",
                             what, count, k);
        if ((size_t)(nul - s) > HF_MAX_NAME)
            return hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: %s: a name longer than %u bytes",
                             what, HF_MAX_NAME);
        hf_status st = add(user, k, s, err);
        if (st)
            return st;
        s = nul + 1;
    }
    if (s != end)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: %s: bytes after the last name",
                         what);
    in->at += (size_t)bytes;
    return HF_OK;
}

static hf_status add_event(void *user, uint32_t k, const char *name, hf_error *err)
{
    (void)k;
    char q[80];
    hf_status st = hf_poset_builder_add_event(user, name, NULL);
    if (st == HF_EDUPLICATE)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: event name %s given twice",
                         hf_i_name_quote(name, q, sizeof q));
    if (st)
        return hf_i_fail(err, st, 0, 0, "%s", st == HF_ENOMEM ? "out of memory" : hf_strerror(st));
    return HF_OK;
}

typedef struct label_names {
    const char **name;
} label_names;

static hf_status keep_name(void *user, uint32_t k, const char *name, hf_error *err)
{
    (void)err;
    ((label_names *)user)->name[k] = name;
    return HF_OK;
}

/* A label table (threads or objects), applied to the builder. */
static hf_status labels(hf_ctx *ctx, input *in, hf_poset_builder *b, uint32_t n, bool objects,
                        hf_error *err)
{
    const char *what = objects ? "objects" : "threads";
    uint32_t count;
    uint64_t bytes;
    /* the names' bytes must be there before their table is allocated: a few bytes claiming
     * millions of names are refused as truncated, not asked for gigabytes */
    if (!get_u32(in, &count) || !get_u64(in, &bytes) || bytes > in->len - in->at)
        return truncated(err, what);
    if (count > bytes)
        return hf_i_fail(err, HF_EPARSE, 0, 0,
                         "compact order: %s: %" PRIu32 " names in %" PRIu64 " bytes", what, count,
                         bytes);
    label_names ln = {hf_i_alloc_array(ctx, count ? count : 1, sizeof *ln.name)};
    if (!ln.name)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    hf_status st = names(in, count, bytes, what, keep_name, &ln, err);
    size_t access_at = in->at + 4 * (size_t)n;
    if (!st && (in->len - in->at) / 4 < n)
        st = truncated(err, what);
    if (!st && objects && (in->len - access_at) < n)
        st = truncated(err, "accesses");
    for (uint32_t v = 0; v < n && !st; v++) {
        uint32_t k;
        get_u32(in, &k);
        if (k == HF_NO_EVENT) {
            if (objects && in->s[access_at + v] != HF_ACCESS_NONE)
                st = hf_i_fail(err, HF_EPARSE, 0, 0,
                               "compact order: event %" PRIu32 " has an access but no object", v);
            continue;
        }
        if (k >= count) {
            st = hf_i_fail(err, HF_EPARSE, 0, 0,
                           "compact order: event %" PRIu32 " has %s %" PRIu32 " of %" PRIu32, v,
                           objects ? "object" : "thread", k, count);
            break;
        }
        if (objects) {
            unsigned a = in->s[access_at + v];
            if (a != HF_ACCESS_READ && a != HF_ACCESS_WRITE)
                st = hf_i_fail(err, HF_EPARSE, 0, 0,
                               "compact order: event %" PRIu32 " has access %u (1 read, 2 write)",
                               v, a);
            else
                st = hf_poset_builder_set_object(b, v, ln.name[k], (hf_access)a);
        } else {
            st = hf_poset_builder_set_thread(b, v, ln.name[k]);
        }
        if (st == HF_ENOMEM)
            hf_i_fail(err, st, 0, 0, "out of memory");
        else if (st && st != HF_EPARSE)
            st = hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: event %" PRIu32 ": empty %s name",
                           v, objects ? "object" : "thread");
    }
    if (!st && objects)
        in->at += n;
    hf_i_free(ctx, ln.name);
    return st;
}

static hf_status read_body(hf_ctx *ctx, input *in, hf_poset_builder *b, hf_error *err)
{
    uint32_t version, flags, n, reserved;
    uint64_t m, name_bytes;
    in->at = 8;
    if (!get_u32(in, &version) || !get_u32(in, &flags) || !get_u32(in, &n) ||
        !get_u32(in, &reserved) || !get_u64(in, &m) || !get_u64(in, &name_bytes))
        return truncated(err, "header");
    if (version != HF_ORDER_VERSION)
        return hf_i_fail(err, HF_EPARSE, 0, 0,
                         "compact order: version %" PRIu32 " (this hitfam reads version %u)",
                         version, HF_ORDER_VERSION);
    if ((flags & ~KNOWN_FLAGS) || reserved)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: unknown flags in the header");
    if (n == 0 || n > HF_MAX_EVENTS)
        return hf_i_fail(err, n ? HF_ETOOLARGE : HF_EPARSE, 0, 0,
                         "compact order: %" PRIu32 " events (from 1 to %u)", n, HF_MAX_EVENTS);
    if (name_bytes < n)
        return hf_i_fail(err, HF_EPARSE, 0, 0,
                         "compact order: %" PRIu32 " names in %" PRIu64 " bytes", n, name_bytes);
    if (m > HF_MAX_ORDER_PAIRS)
        return hf_i_fail(err, HF_ETOOLARGE, 0, 0, "compact order: %" PRIu64 " edges (at most %u)",
                         m, HF_MAX_ORDER_PAIRS);
    hf_status st = names(in, n, name_bytes, "event names", add_event, b, err);
    if (st)
        return st;
    if (m > (in->len - in->at) / 8)
        return truncated(err, "edges");
    for (uint64_t i = 0; i < m; i++) {
        uint32_t u, v;
        get_u32(in, &u);
        get_u32(in, &v);
        if (u >= n || v >= n)
            return hf_i_fail(err, HF_EPARSE, 0, 0,
                             "compact order: edge %" PRIu64 " names event %" PRIu32 " of %" PRIu32,
                             i + 1, u >= n ? u : v, n);
        if ((st = hf_poset_builder_add_order(b, u, v)))
            return hf_i_fail(err, st, 0, 0, "out of memory");
    }
    if (flags & HAS_FOCUS) {
        uint32_t count;
        if (!get_u32(in, &count) || count > (in->len - in->at) / 4)
            return truncated(err, "focus marks");
        for (uint32_t k = 0; k < count; k++) {
            uint32_t v;
            get_u32(in, &v);
            if (v >= n)
                return hf_i_fail(err, HF_EPARSE, 0, 0,
                                 "compact order: focus mark on event %" PRIu32 " of %" PRIu32, v,
                                 n);
            if ((st = hf_poset_builder_set_focus(b, v)) != HF_OK)
                return hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
        }
    }
    if ((flags & HAS_THREADS) && (st = labels(ctx, in, b, n, false, err)))
        return st;
    if ((flags & HAS_OBJECTS) && (st = labels(ctx, in, b, n, true, err)))
        return st;
    if (in->at != in->len)
        return hf_i_fail(err, HF_EPARSE, 0, 0, "compact order: %zu bytes after its end",
                         in->len - in->at);
    return HF_OK;
}

hf_status hf_order_read_mem(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                            hf_error *err)
{
    hf_i_error_clear(err);
    if (out)
        *out = NULL;
    if (!out || (!data && len))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (!hf_order_is_compact(data, len))
        return hf_i_fail(err, HF_EPARSE, 0, 0, "not a compact order file (no HFORDER header)");
    hf_poset_builder *b = NULL;
    if (hf_poset_builder_new(ctx, &b))
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    input in = {(const unsigned char *)data, len, 0};
    hf_status st = read_body(ctx, &in, b, err);
    if (!st)
        st = hf_poset_builder_finish(b, out, err);
    hf_poset_builder_free(b);
    return st;
}
