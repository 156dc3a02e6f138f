/* The family JSON reader: one object whose "schedules" (and "events", when present) are read
 * after the whole object was checked, each schedule an array of event indices or names. */
#include <stdio.h>
#include <string.h>

#include "io_family_read_i.h"
#include "poset_i.h"

/* A saved position, to come back to a JSON value after the whole object is known. */
typedef struct mark {
    bool set;
    size_t pos, line, line_start;
} mark;

static hf_status fail_here(hf_i_reader *r, hf_status st, const char *what)
{
    return hf_i_read_fail_at(r, st, r->line, hf_i_read_column(r, r->pos), "%s", what);
}

static bool name_is(const hf_i_reader *r, const char *lit)
{
    return !r->name.bad && strcmp(r->name.text, lit) == 0;
}

/* ========================================================================================== */
/* Reader: JSON                                                                               */

/* Deeper nesting can only be in values the reader skips; the limit bounds the recursion. */
#define JSON_MAX_DEPTH 256

static void json_ws(hf_i_reader *r)
{
    while (r->pos < r->len) {
        char c = r->s[r->pos];
        if (c == ' ' || c == '\t' || c == '\r')
            r->pos++;
        else if (c == '\n')
            hf_i_read_new_line(r, r->pos + 1);
        else
            break;
    }
}

static bool json_at(const hf_i_reader *r, char c) { return r->pos < r->len && r->s[r->pos] == c; }

static hf_status json_expected(hf_i_reader *r, const char *what)
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

static hf_status json_expect(hf_i_reader *r, char c, const char *what)
{
    if (!json_at(r, c))
        return json_expected(r, what);
    r->pos++;
    return HF_OK;
}

/* Blanks, then whether the closing bracket `close` follows (then stepped over). */
static bool json_close(hf_i_reader *r, char close)
{
    json_ws(r);
    if (!json_at(r, close))
        return false;
    r->pos++;
    return true;
}

/* After a member or an element: the blanks, then the closing bracket (*done: stepped over) or a
 * comma and the blanks after it. */
static hf_status json_next(hf_i_reader *r, char close, bool *done)
{
    *done = json_close(r, close);
    if (*done)
        return HF_OK;
    hf_status st = json_expect(r, ',', close == '}' ? "',' or '}'" : "',' or ']'");
    if (!st)
        json_ws(r);
    return st;
}

static bool hex4(const hf_i_reader *r, size_t i, uint32_t *v)
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

static void push_utf8(hf_i_reader *r, uint32_t cp)
{
    if (cp < 0x80) {
        hf_i_read_name_push(r, (char)cp);
    } else if (cp < 0x800) {
        hf_i_read_name_push(r, (char)(0xc0 | (cp >> 6)));
        hf_i_read_name_push(r, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        hf_i_read_name_push(r, (char)(0xe0 | (cp >> 12)));
        hf_i_read_name_push(r, (char)(0x80 | ((cp >> 6) & 0x3f)));
        hf_i_read_name_push(r, (char)(0x80 | (cp & 0x3f)));
    } else {
        hf_i_read_name_push(r, (char)(0xf0 | (cp >> 18)));
        hf_i_read_name_push(r, (char)(0x80 | ((cp >> 12) & 0x3f)));
        hf_i_read_name_push(r, (char)(0x80 | ((cp >> 6) & 0x3f)));
        hf_i_read_name_push(r, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A JSON string at pos, decoded into r->name. */
static hf_status json_string(hf_i_reader *r)
{
    size_t sl = r->line, sc = hf_i_read_column(r, r->pos);
    const char *s = r->s;
    r->pos++;
    hf_i_name_buf_reset(&r->name);
    for (;;) {
        size_t i = r->pos;
        if (i >= r->len)
            return hf_i_read_fail_at(r, HF_EPARSE, sl, sc, "unterminated string");
        unsigned char c = (unsigned char)s[i];
        if (c == '"') {
            r->pos = i + 1;
            return HF_OK;
        }
        if (c < 0x20)
            return fail_here(r, HF_EPARSE, "control character in a string (escape it)");
        if (c != '\\') {
            hf_i_read_name_push(r, (char)c);
            r->pos = i + 1;
            continue;
        }
        if (i + 1 >= r->len)
            return hf_i_read_fail_at(r, HF_EPARSE, sl, sc, "unterminated string");
        char e = s[i + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            hf_i_read_name_push(r, decoded[simple - "\"\\/bfnrt"]);
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
            return hf_i_read_fail_at(r, HF_EPARSE, r->line, hf_i_read_column(r, i),
                                     "unpaired low surrogate \\u%04" PRIx32, cp);
        if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t lo;
            size_t j = r->pos;
            if (j + 1 >= r->len || s[j] != '\\' || s[j + 1] != 'u' || !hex4(r, j + 2, &lo) ||
                lo < 0xdc00 || lo > 0xdfff)
                return hf_i_read_fail_at(r, HF_EPARSE, r->line, hf_i_read_column(r, i),
                                         "unpaired high surrogate \\u%04" PRIx32, cp);
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            r->pos = j + 6;
        }
        push_utf8(r, cp);
    }
}

/* A JSON number at pos. *is_index tells whether it is a non-negative integer; *index is then
 * its value, saturated at UINT64_MAX. */
static hf_status json_number(hf_i_reader *r, uint64_t *index, bool *is_index)
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

static hf_status json_literal(hf_i_reader *r, const char *lit)
{
    size_t n = strlen(lit);
    if (r->len - r->pos < n || memcmp(r->s + r->pos, lit, n) != 0)
        return json_expected(r, "a value");
    r->pos += n;
    return HF_OK;
}

/* Check the syntax of one value and step over it. */
static hf_status json_skip(hf_i_reader *r, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return fail_here(r, HF_EPARSE, "values nested too deeply");
    if (r->pos >= r->len)
        return json_expected(r, "a value");
    hf_status st;
    uint64_t num;
    bool is_index, done;
    switch (r->s[r->pos]) {
    case '{':
        r->pos++;
        if (json_close(r, '}'))
            return HF_OK;
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
            if ((st = json_next(r, '}', &done)) || done)
                return st;
        }
    case '[':
        r->pos++;
        if (depth == 1 && (st = hf_i_read_need(r, HF_I_NEED_WS1)))
            return st;
        if (json_close(r, ']'))
            return HF_OK;
        for (;;) {
            if (depth == 1) {
                /* the blanks before the element may have gone beyond the window */
                if ((st = hf_i_read_need(r, HF_I_NEED_VALUE)))
                    return st;
                json_ws(r);
            }
            if ((st = json_skip(r, depth + 1)))
                return st;
            if ((st = json_next(r, ']', &done)) || done)
                return st;
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
static void mark_here(const hf_i_reader *r, mark *m)
{
    m->set = true;
    m->pos = (size_t)r->base + r->pos;
    m->line = r->line;
    m->line_start = (size_t)r->base + r->line_start;
}

static hf_status mark_go(hf_i_reader *r, const mark *m)
{
    if (r->win) {
        hf_status st = hf_i_window_seek(r->win, m->pos, &r->s, &r->len, &r->pos, &r->base);
        if (st == HF_ENOMEM)
            return hf_i_read_nomem(r);
        if (st)
            return hf_i_fail(r->err, st, 0, 0, "reading the family failed");
    }
    r->pos = m->pos - (size_t)r->base;
    r->line = m->line;
    r->line_start = m->line_start - (size_t)r->base;
    return HF_OK;
}

/* "events": every event of the poset, each once; index i of the array becomes map[i]. */
static hf_status json_events(hf_i_reader *r)
{
    uint32_t n = r->p->n;
    hf_status st = hf_i_read_need(r, HF_I_NEED_VALUE);
    if (st)
        return st;
    size_t al = r->line, ac = hf_i_read_column(r, r->pos);
    if (!json_at(r, '['))
        return fail_here(r, HF_EPARSE, "\"events\" must be an array of event names");
    r->pos++;
    r->map = hf_i_alloc_array(r->ctx, n, sizeof *r->map);
    if (!r->map)
        return hf_i_read_nomem(r);
    r->have_map = true;
    uint32_t count = 0;
    bool done;
    if (!json_close(r, ']'))
        for (;;) {
            size_t el = r->line, ec = hf_i_read_column(r, r->pos);
            if (!json_at(r, '"'))
                return fail_here(r, HF_EPARSE, "\"events\" must hold event names (strings)");
            if ((st = json_string(r)))
                return st;
            uint32_t id;
            if (!hf_i_read_name_find(r, &id))
                return hf_i_read_unknown_name(r, el, ec);
            if (hf_i_bit_test(r->seen, id)) {
                char q[96];
                return hf_i_read_fail_at(r, HF_ESCHEDULE, el, ec,
                                         "event %s is listed twice in \"events\"",
                                         hf_i_name_quote(r->name.text, q, sizeof q));
            }
            hf_i_bit_set(r->seen, id);
            r->map[count++] = id;
            if ((st = json_next(r, ']', &done)))
                return st;
            if (done)
                break;
        }
    if (count != n)
        return hf_i_read_fail_at(r, HF_EMISMATCH, al, ac,
                                 "family has %" PRIu32 " events, the order has %" PRIu32, count, n);
    for (uint32_t i = 0; i < count; i++)
        hf_i_bit_clear(r->seen, r->map[i]);
    return HF_OK;
}

/* One event of a schedule: an index (into "events", or an id without it) or a name. */
static hf_status json_entry(hf_i_reader *r, uint32_t *id)
{
    uint32_t n = r->p->n;
    size_t el = r->line, ec = hf_i_read_column(r, r->pos);
    hf_status st;
    if (json_at(r, '"')) {
        if ((st = json_string(r)))
            return st;
        if (!hf_i_read_name_find(r, id))
            return hf_i_read_unknown_name(r, el, ec);
        return HF_OK;
    }
    if (r->pos < r->len && (r->s[r->pos] == '-' || (r->s[r->pos] >= '0' && r->s[r->pos] <= '9'))) {
        uint64_t index;
        bool is_index;
        size_t at = r->pos;
        if ((st = json_number(r, &index, &is_index)))
            return st;
        if (!is_index)
            return hf_i_read_fail_at(r, HF_EPARSE, el, ec,
                                     "an event index must be a non-negative integer");
        if (index >= n) {
            size_t len = r->pos - at; /* as written: a saturated value would misquote it */
            return hf_i_read_fail_at(r, HF_ENOTFOUND, el, ec,
                                     "event index %.*s%s out of range (the order has %" PRIu32
                                     " events)",
                                     len > 44 ? 40 : (int)len, r->s + at, len > 44 ? "..." : "", n);
        }
        *id = r->have_map ? r->map[index] : (uint32_t)index;
        return HF_OK;
    }
    return json_expected(r, "an event index or name");
}

static hf_status json_schedules(hf_i_reader *r)
{
    bool done;
    hf_status st = hf_i_read_need(r, HF_I_NEED_WS1);
    if (st)
        return st;
    if (!json_at(r, '['))
        return fail_here(r, HF_EPARSE, "\"schedules\" must be an array of schedules");
    r->pos++;
    if ((st = hf_i_read_need(r, HF_I_NEED_WS1)))
        return st;
    if (json_close(r, ']'))
        return HF_OK;
    for (;;) {
        if ((st = hf_i_read_need(r, HF_I_NEED_VALUE)))
            return st;
        json_ws(r);
        size_t sched = r->f->m + 1;
        size_t sl = r->line, sc = hf_i_read_column(r, r->pos);
        if (!json_at(r, '['))
            return json_expected(r, "a schedule (an array of events)");
        r->pos++;
        uint32_t k = 0;
        if (!json_close(r, ']'))
            for (;;) {
                size_t el = r->line, ec = hf_i_read_column(r, r->pos);
                uint32_t id;
                if ((st = json_entry(r, &id)) || (st = hf_i_read_row_add(r, &k, id, sched, el, ec)))
                    return st;
                if ((st = json_next(r, ']', &done)))
                    return st;
                if (done)
                    break;
            }
        if ((st = hf_i_read_row_end(r, k, sched, sl, sc)))
            return st;
        if ((st = json_next(r, ']', &done)) || done)
            return st;
    }
}

/* The object is read once for its syntax and its small fields, remembering where "events" and
 * "schedules" start; they are then read in that order, whatever order the keys came in. */
hf_status hf_i_read_json(hf_i_reader *r)
{
    hf_status st;
    mark events = {0}, schedules = {0};
    bool have_d = false, have_method = false, done;
    json_ws(r);
    size_t ol = r->line, oc = hf_i_read_column(r, r->pos);
    if ((st = json_expect(r, '{', "'{'")) || (st = hf_i_read_need(r, HF_I_NEED_WS1)))
        return st;
    if (!json_close(r, '}'))
        for (;;) {
            if ((st = hf_i_read_need(r, HF_I_NEED_VALUE)))
                return st;
            json_ws(r);
            size_t kl = r->line, kc = hf_i_read_column(r, r->pos);
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
            if ((st = json_expect(r, ':', "':'")) || (st = hf_i_read_need(r, HF_I_NEED_WS1)))
                return st;
            /* the schedules are read one at a time (json_skip), anything else whole */
            json_ws(r);
            if ((key != 3 || !json_at(r, '[')) && (st = hf_i_read_need(r, HF_I_NEED_VALUE)))
                return st;
            if ((key == 1 && have_d) || (key == 2 && events.set) || (key == 3 && schedules.set) ||
                (key == 4 && have_method))
                return hf_i_read_fail_at(r, HF_EPARSE, kl, kc, "duplicate key \"%s\"",
                                         r->name.text);
            if (key == 1) {
                size_t vl = r->line, vc = hf_i_read_column(r, r->pos), at = r->pos;
                uint64_t d = 0;
                bool is_index = false;
                if (r->pos < r->len &&
                    (r->s[r->pos] == '-' || (r->s[r->pos] >= '0' && r->s[r->pos] <= '9'))) {
                    if ((st = json_number(r, &d, &is_index)))
                        return st;
                }
                if (!is_index)
                    return hf_i_read_fail_at(r, HF_EPARSE, vl, vc,
                                             "\"d\" must be a non-negative integer");
                if (d < 1 || d > HF_MAX_D) {
                    size_t len = r->pos - at;
                    return hf_i_read_fail_at(
                        r, HF_EPARSE, vl, vc, "\"d\": %.*s%s is out of range (1 to %u)",
                        len > 24 ? 20 : (int)len, r->s + at, len > 24 ? "..." : "", HF_MAX_D);
                }
                r->d = (unsigned)d;
                have_d = true;
            } else if (key == 4 && json_at(r, '"')) {
                if ((st = json_string(r)) || (st = hf_i_read_keep_method(r)))
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
            if ((st = hf_i_read_need(r, HF_I_NEED_WS1)))
                return st;
            if ((st = json_next(r, '}', &done)))
                return st;
            if (done)
                break;
        }
    if ((st = hf_i_read_need(r, HF_I_NEED_WS1)))
        return st;
    json_ws(r);
    if (r->pos < r->len)
        return fail_here(r, HF_EPARSE, "unexpected data after the JSON object");
    if (!schedules.set)
        return hf_i_read_fail_at(r, HF_EPARSE, ol, oc, "the JSON object has no \"schedules\"");
    if (events.set) {
        if ((st = mark_go(r, &events)) || (st = json_events(r)))
            return st;
    }
    if ((st = mark_go(r, &schedules)))
        return st;
    return json_schedules(r);
}
