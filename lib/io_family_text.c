/* The family text reader: the `# hitfam` header line, then one schedule a line of event names
 * (each first guessed from the schedules before) or, with format=ids, of event indices. */
#include <string.h>

#include "io_family_ids.h"
#include "io_family_read_i.h"
#include "poset_i.h"

/* An event's name as a bare token reads it: its length (0: it never reads as a bare token, so
 * it is never guessed) and its first bytes, which are the whole name when len <= KEY_HEAD. */
#define KEY_HEAD 12
struct name_key {
    uint32_t len;
    char head[KEY_HEAD];
};

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
static bool at_eol(const hf_i_reader *r, size_t i)
{
    if (i >= r->len || r->s[i] == '\n')
        return true;
    return r->s[i] == '\r' && (i + 1 >= r->len || r->s[i + 1] == '\n');
}

static void skip_eol(hf_i_reader *r)
{
    if (r->pos < r->len && r->s[r->pos] == '\r')
        r->pos++;
    if (r->pos < r->len && r->s[r->pos] == '\n')
        hf_i_read_new_line(r, r->pos + 1);
}

static void skip_blanks(hf_i_reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t'))
        r->pos++;
}

static void skip_line(hf_i_reader *r)
{
    while (!at_eol(r, r->pos))
        r->pos++;
    skip_eol(r);
}

/* A quoted name (lib/names.c has the rules). A raw newline inside the quotes is an error: a
 * schedule is one line, and the writer always escapes newlines. */
static hf_status text_quoted(hf_i_reader *r)
{
    size_t ql = r->line, qc = hf_i_read_column(r, r->pos);
    hf_i_unquoted where;
    if (!hf_i_name_unquote(r->s, r->len, r->pos, &r->name, &where))
        return hf_i_read_fail_at(r, HF_EPARSE, ql, qc, "unterminated quoted name");
    if (where.lines > 0) {
        r->line += where.lines;
        r->line_start = where.line_start;
    }
    r->pos = where.end;
    return HF_OK;
}

static void text_bare(hf_i_reader *r)
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
        hf_i_read_name_push(r, c);
        r->pos++;
    }
}

/* The guesses start as "the next event by id", which is right for many generated families. */
static hf_status guess_init(hf_i_reader *r)
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

/* Whether the bytes s[0..len) are exactly event id's name, from its key (the name's bytes from
 * the order only when it is longer than the key's head). */
static bool key_is(const hf_i_reader *r, uint32_t id, const char *s, size_t len)
{
    const struct name_key *k = &r->key[id];
    if (k->len != len || len == 0)
        return false;
    if (len <= KEY_HEAD)
        return memcmp(k->head, s, len) == 0;
    return memcmp(k->head, s, KEY_HEAD) == 0 &&
           memcmp(hf_i_name(r->p, id) + KEY_HEAD, s + KEY_HEAD, len - KEY_HEAD) == 0;
}

/* Whether the bare token at pos is the name of event g: its bytes and then the end of the
 * token, exactly where text_bare would stop. On a match pos moves past it. */
static bool guessed(hf_i_reader *r, uint32_t g)
{
    if (g >= r->p->n)
        return false;
    size_t l = r->key[g].len, at = r->pos;
    if (r->len - at < l || !key_is(r, g, r->s + at, l))
        return false;
    at += l;
    if (!(at_eol(r, at) || r->s[at] == ' ' || r->s[at] == '\t' || r->s[at] == '"'))
        return false;
    r->pos = at;
    return true;
}

/* After schedule row (k events) was read: what followed each event becomes its first guess. */
static void guess_learn(hf_i_reader *r, const uint32_t *row, uint32_t k)
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

/* Up to BATCH bare tokens from r->pos resolved together, so that their lookups overlap instead
 * of waiting for memory one after the other: every token's hash first (its slot prefetched),
 * then each slot's candidate (its key prefetched), then each token compared with its candidate,
 * and looked up in full when that is not it. The tokens are added in order; the batch stops
 * before a token that is no plain bare token (a quote, the end of the line, a name too long or
 * with a NUL byte) or no event's name, which the caller then reads one at a time as before, so
 * that every id, error and position is the one-at-a-time reading's. Returns the tokens added
 * (*st: an error adding one). */
static uint32_t text_batch(hf_i_reader *r, uint32_t *k, size_t sched, hf_status *st)
{
    enum { BATCH = 16 };
    size_t start[BATCH], len[BATCH];
    uint64_t h[BATCH];
    uint32_t cand[BATCH], nt = 0;
    const hf_i_strtab *t = r->names;
    const char *s = r->s;
    for (size_t at = r->pos; nt < BATCH;) {
        while (at < r->len && (s[at] == ' ' || s[at] == '\t'))
            at++;
        if (at_eol(r, at) || s[at] == '"')
            break;
        size_t end = at;
        while (!at_eol(r, end) && s[end] != ' ' && s[end] != '\t' && s[end] != '"' &&
               s[end] != '\0')
            end++;
        /* a NUL byte inside (the token goes on past it) or a name too long: one at a time */
        if (end - at > HF_MAX_NAME || (end < r->len && s[end] == '\0'))
            break;
        start[nt] = at;
        len[nt] = end - at;
        h[nt] = hf_i_strtab_hash(s + at, end - at);
        hf_i_strtab_prefetch(t, h[nt]);
        nt++;
        at = end;
    }
    for (uint32_t i = 0; i < nt; i++) {
        cand[i] = hf_i_strtab_candidate(t, h[i]);
#if defined(__GNUC__)
        if (cand[i] != HF_NO_EVENT)
            __builtin_prefetch(&r->key[cand[i]]);
#endif
    }
    uint32_t done = 0;
    for (; done < nt; done++) {
        uint32_t id = cand[done];
        if (id == HF_NO_EVENT || !key_is(r, id, s + start[done], len[done]))
            id = hf_i_strtab_find_hashed(t, s + start[done], len[done], h[done], NULL);
        if (id == HF_NO_EVENT)
            break;
        if ((*st = hf_i_read_row_add(r, k, id, sched, r->line, hf_i_read_column(r, start[done]))))
            return done;
        r->pos = start[done] + len[done];
    }
    return done;
}

/* Guessing pays while the guesses are right and their records close to each other in memory.
 * Each schedule starts guessing; once fewer than 3 in 4 of its first 4, 8, 16, ... names (and
 * then of each multiple of 1024) were guessed right within NEAR ids of the name before them, the
 * rest of it is looked up in batches (text_batch), whose lookups overlap. */
enum { NEAR = 64 };

bool hf_i_text_batches = true;

static hf_status text_schedule(hf_i_reader *r)
{
    size_t sched = r->f->m + 1;
    size_t sl = r->line, sc = hf_i_read_column(r, r->pos);
    uint32_t k = 0;
    if (r->ids) {
        hf_i_text_at at = {r->s, r->len, r->pos, r->line, r->line_start};
        hf_status st = hf_i_ids_row(r->p, &at, r->row, r->seen, &k, sched, r->err);
        if (st)
            return st;
        r->pos = at.pos;
    } else if (!r->guess && guess_init(r)) {
        return hf_i_read_nomem(r);
    }
    const uint32_t *guesses = r->first; /* the two guesses for the next name */
    bool by_hash = false;
    uint32_t near = 0; /* names guessed right within NEAR ids of the name before */
    while (!r->ids && !at_eol(r, r->pos)) {
        char c = r->s[r->pos];
        if (c == ' ' || c == '\t') {
            r->pos++;
            continue;
        }
        if (by_hash && c != '"') {
            hf_status st = HF_OK;
            uint32_t added = text_batch(r, &k, sched, &st);
            if (st)
                return st;
            if (added > 0)
                continue; /* (no guess is read again in this schedule) */
        }
        size_t tl = r->line, tc = hf_i_read_column(r, r->pos);
        uint32_t id;
        bool hit = !by_hash && c != '"';
        if (hit && guessed(r, guesses[0])) {
            id = guesses[0];
        } else if (hit && guessed(r, guesses[1])) {
            id = guesses[1];
        } else {
            hit = false;
            if (c == '"') {
                hf_status st = text_quoted(r);
                if (st)
                    return st;
            } else {
                text_bare(r);
            }
            if (!hf_i_read_name_find(r, &id))
                return hf_i_read_unknown_name(r, tl, tc);
        }
        near += hit && k > 0 && id - r->row[k - 1] + NEAR < 2 * NEAR;
        hf_status st = hf_i_read_row_add(r, &k, id, sched, tl, tc);
        if (st)
            return st;
        guesses = r->guess + 2 * (size_t)id;
        if (k >= 4 && ((k & (k - 1)) == 0 || k % 1024 == 0) && 4 * (uint64_t)near < 3 * (uint64_t)k)
            by_hash = hf_i_text_batches;
    }
    hf_status st = hf_i_read_row_end(r, k, sched, sl, sc);
    if (st)
        return st;
    if (!r->ids)
        guess_learn(r, r->row, k);
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
static hf_status text_header_rows(hf_i_reader *r, text_header *th, size_t vs)
{
    const char *s = r->s;
    size_t vc = hf_i_read_column(r, vs), colon = vs;
    while (colon < r->pos && s[colon] >= '0' && s[colon] <= '9')
        colon++;
    size_t end = colon + 1;
    while (end < r->pos && s[end] >= '0' && s[end] <= '9')
        end++;
    if (th->rows_line)
        return hf_i_read_fail_at(r, HF_EPARSE, r->line, vc - 5, "header: rows= appears twice");
    if (colon == vs || colon >= r->pos || s[colon] != ':' || end != r->pos ||
        !parse_u64(s + vs, colon - vs, &r->row_first) ||
        (end > colon + 1 && !parse_u64(s + colon + 1, end - colon - 1, &r->row_last)))
        return hf_i_read_fail_at(
            r, HF_EPARSE, r->line, vc,
            "header: rows= needs FIRST:LAST or FIRST: (numbers up to 2^64 - 1)");
    if (r->row_first == 0 || (end > colon + 1 && r->row_last < r->row_first))
        return hf_i_read_fail_at(r, HF_EPARSE, r->line, vc,
                                 "header: rows=%" PRIu64 ":%" PRIu64
                                 " is no range of rows counted from 1",
                                 r->row_first, r->row_last);
    th->rows_line = r->line;
    th->rows_column = vc;
    return HF_OK;
}

/* format=text or format=ids (bit 3 of th->seen), the value starting at vs. */
static hf_status header_format(hf_i_reader *r, text_header *th, size_t vs)
{
    size_t len = r->pos - vs, vc = hf_i_read_column(r, vs);
    if (th->seen & 8u)
        return hf_i_read_fail_at(r, HF_EPARSE, r->line, hf_i_read_column(r, vs - strlen("format=")),
                                 "header: format= appears twice");
    th->seen |= 8u;
    if (len == 3 && memcmp(r->s + vs, "ids", 3) == 0)
        r->ids = true;
    else if (!(len == 4 && memcmp(r->s + vs, "text", 4) == 0))
        return hf_i_read_fail_at(r, HF_EPARSE, r->line, vc,
                                 "header: format=%.*s%s is not text or ids",
                                 len > 24 ? 20 : (int)len, r->s + vs, len > 24 ? "..." : "");
    return HF_OK;
}

/* `# hitfam VERSION key=value...`: the version and unknown keys are ignored; d=, events= and
 * schedules= must be numbers; method= is kept as written, unquoted when it is one quoted name
 * (method="a b"). A quoted value is one token, whatever blanks it holds. */
static hf_status text_header_line(hf_i_reader *r, text_header *th)
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
                return hf_i_read_fail_at(r, HF_EPARSE, r->line, hf_i_read_column(r, ts),
                                         "header: method= appears twice");
            th->seen |= 16u;
            hf_i_unquoted where;
            if (!(vm < r->pos && s[vm] == '"' &&
                  hf_i_name_unquote(s, r->pos, vm, &r->name, &where) && where.end == r->pos)) {
                hf_i_name_buf_reset(&r->name);
                for (size_t i = vm; i < r->pos; i++)
                    hf_i_read_name_push(r, s[i]);
            }
            hf_status st = hf_i_read_keep_method(r);
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
            size_t vs = ts + kl, vc = hf_i_read_column(r, vs);
            if (th->seen & (1u << key))
                return hf_i_read_fail_at(r, HF_EPARSE, r->line, hf_i_read_column(r, ts),
                                         "header: %s appears twice", keys[key]);
            th->seen |= 1u << key;
            uint64_t v;
            bool digits = r->pos > vs;
            for (size_t i = vs; i < r->pos && digits; i++)
                digits = s[i] >= '0' && s[i] <= '9';
            if (!digits)
                return hf_i_read_fail_at(r, HF_EPARSE, r->line, vc, "header: %s needs a number",
                                         keys[key]);
            if (!parse_u64(s + vs, r->pos - vs, &v))
                return hf_i_read_fail_at(r, HF_EPARSE, r->line, vc,
                                         "header: %s%.*s%s is larger than 2^64 - 1", keys[key],
                                         r->pos - vs > 24 ? 20 : (int)(r->pos - vs), s + vs,
                                         r->pos - vs > 24 ? "..." : "");
            if (key == 0 && (v < 1 || v > HF_MAX_D))
                return hf_i_read_fail_at(r, HF_EPARSE, r->line, vc,
                                         "header: d=%" PRIu64 " is out of range (1 to %u)", v,
                                         HF_MAX_D);
            if (key == 0) {
                r->d = (unsigned)v;
            } else if (key == 1) {
                if (v != r->p->n)
                    return hf_i_read_fail_at(
                        r, HF_EMISMATCH, r->line, vc,
                        "family has %" PRIu64 " events, the order has %" PRIu32, v, r->p->n);
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

hf_status hf_i_read_text(hf_i_reader *r)
{
    static const char magic[] = "# hitfam ";
    const size_t mlen = sizeof magic - 1;
    text_header th = {0};
    bool first_comment = true, schedule_seen = false, events_seen = false;
    for (;;) {
        hf_status nst = hf_i_read_need(r, HF_I_NEED_LINE);
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
            return hf_i_read_fail_at(r, HF_EPARSE, th.rows_line, th.rows_column,
                                     "header: rows=%" PRIu64 ":%" PRIu64 " go beyond the %" PRIu64
                                     " schedules of the family",
                                     r->row_first, r->row_last ? r->row_last : r->row_first,
                                     th.count);
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
            return hf_i_read_fail_at(r, HF_ETOOLARGE, th.count_line, th.count_column,
                                     "header says %" PRIu64 " schedules, more than can be stored",
                                     th.count);
        r->f->m = (size_t)th.count;
        return HF_OK;
    }
    if (th.count != r->f->m)
        return hf_i_read_fail_at(r, HF_ESCHEDULE, th.count_line, th.count_column,
                                 "header says %" PRIu64 " schedules, found %zu (truncated file?)",
                                 th.count, r->f->m);
    return HF_OK;
}
