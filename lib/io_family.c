/* The family reader's entry points and what its text and JSON parts share (the schedule rows,
 * errors, the window): it detects the format, resolves event names through the poset and checks
 * that each schedule is a permutation. lib/io_family_text.c and lib/io_family_json.c parse. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io_family_ids.h"
#include "io_family_read_i.h"
#include "poset_i.h"

/* ========================================================================================== */
/* Reader: shared state                                                                       */

static int clamp_int(size_t v) { return v > (size_t)INT_MAX ? INT_MAX : (int)v; }

hf_status hf_i_read_fail_at(hf_i_reader *r, hf_status st, size_t line, size_t column,
                            const char *fmt, ...)
{
    char msg[280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int l = clamp_int(line), c = clamp_int(column);
    return hf_i_fail(r->err, st, l, c, "%s", msg);
}

hf_status hf_i_read_nomem(hf_i_reader *r)
{
    return hf_i_fail(r->err, HF_ENOMEM, 0, 0, "out of memory");
}

/* Streaming: make the window hold what the parser reads next (a no-op on a whole input). */
hf_status hf_i_read_need(hf_i_reader *r, hf_i_need kind)
{
    if (!r->win)
        return HF_OK;
    hf_status st =
        hf_i_window_need(r->win, kind, &r->s, &r->len, &r->pos, &r->line_start, &r->base);
    if (st == HF_ENOMEM)
        return hf_i_read_nomem(r);
    return st ? hf_i_fail(r->err, st, 0, 0, "reading the family failed") : HF_OK;
}

hf_status hf_i_read_unknown_name(hf_i_reader *r, size_t line, size_t column)
{
    char q[96];
    return hf_i_read_fail_at(r, HF_ENOTFOUND, line, column, "unknown event %s%s",
                             hf_i_name_quote(r->name.text, q, sizeof q),
                             r->name.bad ? " (too long or holds a NUL byte)" : "");
}

/* The header's method (in r->name) becomes the family's: none for "unknown", which is how the
 * writer spells a NULL method, and none for a name that is too long or holds a NUL byte. */
hf_status hf_i_read_keep_method(hf_i_reader *r)
{
    hf_i_free(r->ctx, r->f->method);
    r->f->method = NULL;
    if (r->name.bad || strcmp(r->name.text, "unknown") == 0)
        return HF_OK;
    r->f->method = hf_i_strdup(r->ctx, r->name.text);
    return r->f->method ? HF_OK : hf_i_read_nomem(r);
}

/* Add id at position *k of the schedule numbered sched (1-based) unless it is already there. */
hf_status hf_i_read_row_add(hf_i_reader *r, uint32_t *k, uint32_t id, size_t sched, size_t line,
                            size_t column)
{
    if (hf_i_bit_test(r->seen, id)) {
        char q[96];
        return hf_i_read_fail_at(r, HF_ESCHEDULE, line, column, "schedule %zu repeats event %s",
                                 sched, hf_i_name_quote(hf_i_name(r->p, id), q, sizeof q));
    }
    hf_i_bit_set(r->seen, id);
    r->row[(*k)++] = id;
    return HF_OK;
}

/* A schedule ends: it must hold every event (k distinct ids were added). */
hf_status hf_i_read_row_end(hf_i_reader *r, uint32_t k, size_t sched, size_t line, size_t column)
{
    uint32_t n = r->p->n;
    if (k < n) {
        uint32_t v = 0;
        while (hf_i_bit_test(r->seen, v))
            v++;
        char q[96];
        return hf_i_read_fail_at(r, HF_ESCHEDULE, line, column,
                                 "schedule %zu misses event %s (it lists %" PRIu32 " of %" PRIu32
                                 " events)",
                                 sched, hf_i_name_quote(hf_i_name(r->p, v), q, sizeof q), k, n);
    }
    for (uint32_t i = 0; i < k; i++)
        hf_i_bit_clear(r->seen, r->row[i]);
    if (r->emit) {
        hf_status st = r->emit(r->emit_user, r->row, n, r->f->m, line);
        r->f->m++;
        return st ? hf_i_fail(r->err, st, clamp_int(line), 0, "%s", hf_strerror(st)) : HF_OK;
    }
    hf_family *f = r->f;
    if (hf_family_append(f, r->row))
        return hf_i_read_nomem(r);
    /* where it was read, for messages about it (hf_family_schedule_line) */
    if (HF_I_GROW(r->ctx, f->lines, &r->lines_cap, f->lined + 1))
        return hf_i_read_nomem(r);
    f->lines[f->lined++] = line;
    return HF_OK;
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
    hf_i_reader r = {.p = p, .ctx = p->ctx, .s = data, .len = len, .line = 1, .err = err};
    r.win = win;
    r.emit = emit;
    r.emit_user = user;
    hf_status st = HF_OK;
    r.names = hf_i_poset_names_index(p);
    r.name.text = hf_i_malloc(r.ctx, HF_MAX_NAME + 1);
    r.row = hf_i_alloc_array(r.ctx, p->n, sizeof *r.row);
    r.seen = hf_i_calloc(r.ctx, hf_i_words(p->n), sizeof *r.seen);
    if (!r.names || !r.name.text || !r.row || !r.seen || hf_family_new(r.ctx, p->n, &r.f))
        st = hf_i_read_nomem(&r);
    if (!st)
        st = hf_i_read_need(&r, HF_I_NEED_START);
    if (!st) {
        /* A UTF-8 byte order mark is not part of the first line's text. */
        if (r.len >= 3 && memcmp(r.s, "\xef\xbb\xbf", 3) == 0)
            r.pos = r.line_start = 3;
        size_t i = r.pos;
        while (i < r.len && (r.s[i] == ' ' || r.s[i] == '\t' || r.s[i] == '\r' || r.s[i] == '\n'))
            i++;
        bool json = i < r.len && r.s[i] == '{';
        if (hf_i_bin_detect(r.s, r.len) && win) { /* one schedule at a time */
            st = hf_i_bin_stream(p, win, emit, user, r.f, &r.d, &r.row_first, err);
        } else if (hf_i_bin_detect(r.s, r.len)) {
            st = hf_i_bin_read(p, r.s, r.len, r.f, &r.d, &r.row_first, err);
            for (size_t k = 0; !st && emit && k < r.f->m; k++)
                if ((st = emit(user, hf_family_schedule(r.f, k), p->n, k, 0)))
                    st = hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
        } else {
            /* JSON is read twice (its syntax, then events and schedules): a pipe is kept aside */
            if (json && win && (st = hf_i_window_rewindable(win)))
                st = st == HF_ENOMEM ? hf_i_read_nomem(&r)
                                     : hf_i_fail(err, st, 0, 0, "reading the family failed");
            if (!st)
                st = json ? hf_i_read_json(&r) : hf_i_read_text(&r);
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

const char *hf_family_method(const hf_family *f) { return f ? f->method : NULL; }

size_t hf_family_header_line(const hf_family *f) { return f ? f->header_line : 0; }

size_t hf_family_schedule_line(const hf_family *f, size_t index)
{
    return f && index < f->lined ? f->lines[index] : 0;
}
