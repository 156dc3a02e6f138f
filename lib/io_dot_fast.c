/* The fast DOT reader: the plain subset of DOT in one pass over the text, giving exactly the
 * poset that libcgraph's reading gives (lib/io_dot.c), and giving up on everything else.
 *
 * The subset: one `digraph` or `strict digraph` with an optional name; node statements and node
 * lists (`a, b`), edge statements and chains (`a -> b, c -> d`), attribute lists on both, `node`,
 * `edge` and `graph` default attribute statements and `key = value` graph attributes; IDs bare,
 * numerals and double-quoted (with `+` concatenation); comments and `;` `,` separators. Node
 * attributes focus, thread, obj and access are read as the libcgraph path reads them (a node
 * default applies to the nodes made after it; an attribute list applies to every node of its
 * statement; the last value wins); every other attribute is ignored.
 *
 * It gives up (HF_EUNSUPPORTED, and the caller reads the text with libcgraph) on anything else:
 * subgraphs and braces, ports, <...> strings, undirected graphs, several graphs, attribute
 * macros, an edge `key`, NUL bytes, numbers run into letters (which Graphviz warns about), names
 * starting with '%', self-loops, IDs longer than HF_MAX_NAME, very long edge chains, and every
 * input that the libcgraph path would refuse (bad attribute values, no events, cycles...), so
 * that messages stay those of the libcgraph path.
 *
 * Events are numbered by first appearance in the text, which is libcgraph's node creation order.
 * Names are resolved by guesses (the event named last in the same place, and the next one), then
 * by the builder's table until references turn random, from then on by the reader's own table,
 * which holds every event: a name it does not hold is new and is appended to the builder without a
 * lookup. A numbered name (e17) is looked up by its number in an array of the events of its
 * prefix, and one past every number of its prefix so far is new: neither asks a table. The
 * builder's table places appended names when next asked; the finished poset, when a name is first
 * looked up (hf_poset_find, reading a family), so that `gen` and `stats`, which never look one up,
 * never place them. Memory: the builder's tables, where each name is in the input (8 bytes per
 * event), the reader's table (12 bytes a slot, at least 24 per event, only for random references),
 * the array of numbered events (4 bytes a number, at most about 4 numbers an event), the
 * per-event values of the attributes that occur, and the node lists of the statement being read;
 * no allocation per event. */
#include <string.h>

#include "io_dot_i.h"
#include "io_dot_lex.h"
#include "poset_finish_i.h"
#include "strtab.h"

/* ---------------------------------------------------------------------------------------- */
/* Attribute values: interned, index 0 is ""                                                 */

/* The index of s[0..n) (n <= HF_MAX_NAME), added when new. */
static hf_status values_intern(hf_ctx *ctx, hf_i_strtab *vt, const char *s, size_t n,
                               uint32_t *index)
{
    uint32_t empty;
    hf_status st;
    if (vt->count == 0 && (st = hf_i_strtab_intern(ctx, vt, "", 0, &empty)))
        return st;
    return hf_i_strtab_intern(ctx, vt, s, n, index);
}

/* ---------------------------------------------------------------------------------------- */
/* Reader                                                                                     */

/* The node attributes hitfam reads; every other key is ignored. */
enum { ATTR_FOCUS, ATTR_THREAD, ATTR_OBJ, ATTR_ACCESS, ATTR_COUNT, ATTR_OTHER, ATTR_KEY };

/* Edge chains longer than this are left to the libcgraph path, which checks its parser's stack
 * (lib/io_dot_scan.c, PARSER_STACK_BUDGET: about 2,200 arrows in one statement). */
#define MAX_ARROWS 2000u

/* A statement's node attribute assignments, applied once the statement is read. */
typedef struct assignment {
    int attr;
    uint32_t value;
} assignment;

#define NUM_PREFIX_MAX 16 /* bytes of a numbered name's prefix */

/* What numbered says of a name: whether it is a prefix then a number (is), the prefix's length
 * and the number; parsed: whether it was asked (a token the scout did not parse is asked by the
 * reader). */
typedef struct numname {
    uint64_t num;
    uint8_t plen;
    bool is, parsed;
} numname;

#define SCOUT_LAG  32u  /* names */
#define SCOUT_RING 512u /* tokens (a power of two) */

typedef struct reader {
    hf_ctx *ctx;
    hf_i_dot_lexer lx;
    hf_poset_builder *b;
    const hf_i_strtab *names; /* the builder's */
    uint32_t n;
    /* the current ID, NUL-terminated (room for hf_i_dot_quoted_value's contract); when it is
     * one token whose bytes are the name's, where they are in the input */
    char text[2 * HF_MAX_NAME + 2];
    size_t text_len;
    /* the current ID's bytes (text_len of them): a bare token's in the input, not copied, text
     * otherwise */
    const char *name;
    bool in_input;
    size_t input_at;
    /* the hash of text when the scout computed it (text_hashed), and that of the current token
     * (the scout hashes the plain tokens it reads: those whose bytes are the text) */
    bool text_hashed, tok_hashed;
    uint64_t text_hash, tok_hash;
    /* what numbered says of text and of the current token, when the scout parsed it
     * (text_num.parsed) */
    numname text_num, tok_num;
    /* Where each event's name is in the input (length UINT32_MAX: nowhere as is), and the last
     * event named first in a statement and after an edge operator: an ID is compared with that
     * event and the next before the builder's table is asked, as DOT written out in id order
     * names the same or the next event again and again. */
    struct place {
        uint32_t at, len;
    } * place;
    size_t place_cap;
    uint32_t last[2];
    int score[2]; /* how the guesses of each place did lately: skipped (mostly) when low */
    unsigned tick;
    /* Events by name hash, made once names seen before mostly escape the guesses (random
     * references), while every event's name is in the input as is (tab_off once one is not): a
     * slot holds a short name whole, a long one as where it is in the input (name_word); the
     * scout prefetches the slots of the names to come. The builder is still told of every
     * event, but its table is no longer asked: new names are appended to it. Its memory is
     * advised to huge pages (a random probe then rarely misses the TLB). */
    struct slot {
        uint32_t id, lo, hi; /* lo, hi: the name's word (name_word) */
    } * tab;
    size_t tab_mask, tab_count;
    bool tab_off;
    /* Numbered names: once an event is named by a prefix (at most 16 bytes) and a decimal
     * number (numbered), a name of that prefix and a number of num_next or more, num_next being
     * one more than the largest number of an event of that prefix so far, cannot be an event's:
     * it is made without a lookup. DOT that numbers its events (e0 -> e1) names each new event
     * so. */
    bool num_on;
    uint8_t num_plen;
    char num_prefix[NUM_PREFIX_MAX];
    uint64_t num_next;
    /* And the events of the prefix spelled without a leading zero (the spelling and the number
     * then determine each other) by number, below num_cap (HF_NO_EVENT: no such event): every
     * such event made with a number below num_cap is there, so the array answers those names
     * without a table, known or new. It grows (to at most about 4 numbers an event) while no
     * such event was made past it; once one is (num_frozen), it keeps its size. */
    uint32_t *num_id;
    size_t num_cap;
    bool num_frozen;
    size_t misses; /* names seen before that no guess found (the table starts when many) */
    uint32_t made_after_arrow; /* events first named after an edge operator */
    /* the events made and the text read at the first miss, then at each making or growth of
     * the table: the rate of new names since then sizes the table (tab_size) */
    size_t mark_n, mark_at;
    /* The scout: a second scanner running ahead of the reader, from the start, which hashes the
     * names to come and prefetches their slots: in the builder's table until the reader's table
     * is made, in the reader's table after (and, for a long name, its bytes: see lag). */
    hf_i_dot_lexer scout;
    /* the tokens the scout read and the reader has not taken yet, ring[ring_tail..ring_head)
     * (indices mod SCOUT_RING): while the scout runs, the text is scanned once */
    struct scouted {
        size_t i, start, end; /* the lexer's fields after the token */
        uint64_t hash;
        numname num; /* what numbered says of a plain token */
        int tok;
        bool escaped, hashed;
    } ring[SCOUT_RING];
    size_t ring_head, ring_tail;
    /* the slots of the reader's table the scout prefetched lately for long names: once
     * SCOUT_LAG long names later the slot is in the cache, and where it holds the name, the
     * name's bytes it points to are prefetched in turn */
    struct lagging {
        uint32_t slot, hi; /* hi: the name's word's */
    } lag[SCOUT_LAG];
    unsigned lag_len, lag_at;
    /* node attributes: the value of each event (NULL until the attribute occurs) and the
     * current node default */
    uint32_t *of[ATTR_COUNT];
    bool any_of; /* some of[a] is not NULL */
    size_t of_cap[ATTR_COUNT];
    uint32_t dflt[ATTR_COUNT];
    hf_i_strtab vals;
    /* the node lists on both sides of the edge operator being read */
    uint32_t *list[2];
    size_t list_len[2], list_cap[2];
    assignment *assign;
    size_t assign_len, assign_cap;
} reader;

static void next(reader *r);

/* Statuses inside the reader: HF_OK, GIVE_UP, HF_ENOMEM. */
#define GIVE_UP HF_EUNSUPPORTED

/* Append the value of the current quoted token to text. */
static hf_status take_quoted(reader *r)
{
    const hf_i_dot_lexer *lx = &r->lx;
    size_t raw = lx->end - lx->start;
    if (raw > HF_MAX_NAME)
        return GIVE_UP; /* (backslash-newlines could make it shorter: rare, left to libcgraph) */
    size_t n;
    if (!lx->escaped) {
        /* one run of plain bytes: the scanner drops it when it is a newline alone */
        n = raw == 1 && lx->s[lx->start] == '\n' ? 0 : raw;
        if (r->text_len + n > HF_MAX_NAME)
            return GIVE_UP;
        memcpy(r->text + r->text_len, lx->s + lx->start, n);
    } else {
        char piece[2 * HF_MAX_NAME + 2];
        size_t used = hf_i_dot_quoted_value(lx->s + lx->start, raw + 1, piece, &n);
        if (used != raw + 1 || r->text_len + n > HF_MAX_NAME)
            return GIVE_UP;
        memcpy(r->text + r->text_len, piece, n);
    }
    r->text_len += n;
    r->text[r->text_len] = '\0';
    return HF_OK;
}

/* The ID at the current token (a bare name or numeral, or quoted strings joined by '+') into
 * text when @p keep, skipped otherwise; the token after it is current. */
static hf_status id(reader *r, bool keep)
{
    hf_i_dot_lexer *lx = &r->lx;
    r->text_len = 0;
    r->text[0] = '\0';
    r->name = r->text;
    r->in_input = false;
    r->text_hashed = false;
    r->text_num.parsed = false;
    if (lx->tok == TK_ID) {
        size_t n = lx->end - lx->start;
        if (n > HF_MAX_NAME)
            return GIVE_UP;
        if (keep) {
            r->name = lx->s + lx->start;
            r->text_len = n;
            r->in_input = true;
            r->input_at = lx->start;
            r->text_hashed = r->tok_hashed;
            r->text_hash = r->tok_hash;
            r->text_num = r->tok_num;
        }
        next(r);
        return HF_OK;
    }
    if (lx->tok != TK_QSTR)
        return GIVE_UP;
    size_t start = lx->start;
    bool plain = !lx->escaped && !(lx->end == start + 1 && lx->s[start] == '\n');
    bool hashed = r->tok_hashed;
    uint64_t hash = r->tok_hash;
    numname num = r->tok_num;
    for (bool first = true;; first = false) {
        hf_status st;
        if (keep && (st = take_quoted(r)))
            return st;
        next(r);
        if (lx->tok != TK_PLUS) {
            r->in_input = keep && first && plain;
            r->input_at = start;
            r->text_hashed = r->in_input && hashed;
            r->text_hash = hash;
            if (r->in_input)
                r->text_num = num;
            return HF_OK;
        }
        next(r);
        if (lx->tok != TK_QSTR)
            return GIVE_UP;
    }
}

static bool is_id(int tok) { return tok == TK_ID || tok == TK_QSTR; }

static hf_status push(hf_ctx *ctx, uint32_t **a, size_t *len, size_t *cap, uint32_t v)
{
    hf_status st;
    if (*len >= *cap && (st = HF_I_GROW(ctx, *a, cap, *len + 1)))
        return st;
    (*a)[(*len)++] = v;
    return HF_OK;
}

/* Give events 0..n-1 a value for attribute a ("" for those already made). */
static hf_status declare(reader *r, int a)
{
    if (r->of[a])
        return HF_OK;
    size_t cap = r->n ? r->n : 16;
    r->of[a] = hf_i_calloc(r->ctx, cap, sizeof *r->of[a]);
    if (!r->of[a])
        return HF_ENOMEM;
    r->any_of = true;
    r->of_cap[a] = cap;
    return HF_OK;
}

/* Whether s[0..n) is a prefix of at most NUM_PREFIX_MAX bytes then 1 to 18 decimal digits
 * (is), the prefix's length and the number. Spellings of one number (5, 05) are alike: a name
 * numbered num_next or more is new because every made name of the prefix has a smaller number,
 * whatever its spelling. */
static inline numname numbered(const char *s, size_t n)
{
    numname nm = {.parsed = true};
    size_t d = n;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    if (d == n || n - d > 18 || d > NUM_PREFIX_MAX)
        return nm;
    uint64_t v = 0;
    for (size_t k = d; k < n; k++)
        v = v * 10 + (uint64_t)(s[k] - '0');
    nm.num = v;
    nm.plen = (uint8_t)d;
    nm.is = true;
    return nm;
}

static inline bool same_prefix(const reader *r, const char *s, size_t plen)
{
    if (plen != r->num_plen)
        return false;
    for (size_t k = 0; k < plen; k++)
        if (s[k] != r->num_prefix[k])
            return false;
    return true;
}

/* Whether s[0..n) (its number without a leading zero: digits at plen) is spelled canonically. */
static inline bool canonical(const char *s, size_t n, size_t plen)
{
    return n - plen == 1 || s[plen] != '0';
}

/* What the numbered names say of s[0..n) (nm: numbered's answer): NUM_KNOWN (event *id),
 * NUM_NEW (no event has that name) or NUM_ASK (the tables must be asked). */
enum { NUM_ASK, NUM_NEW, NUM_KNOWN };
static inline int numbered_lookup(const reader *r, const char *s, size_t n, numname nm,
                                  uint32_t *id)
{
    if (!r->num_on || !nm.is || !same_prefix(r, s, nm.plen))
        return NUM_ASK;
    uint64_t num = nm.num;
    if (num < r->num_cap && canonical(s, n, nm.plen)) {
        *id = r->num_id[num];
        return *id == HF_NO_EVENT ? NUM_NEW : NUM_KNOWN;
    }
    return num >= r->num_next ? NUM_NEW : NUM_ASK;
}

/* Event id named s[0..n) (nm: numbered's answer) made: the first numbered name chooses the
 * prefix; num_next follows the largest number of the prefix, num_id the canonical spellings.
 * HF_ENOMEM when num_id cannot grow. */
static hf_status numbered_made(reader *r, const char *s, size_t n, numname nm, uint32_t id)
{
    if (!nm.is)
        return HF_OK;
    size_t plen = nm.plen;
    uint64_t num = nm.num;
    if (!r->num_on) {
        r->num_on = true;
        r->num_plen = (uint8_t)plen;
        memcpy(r->num_prefix, s, plen);
    } else if (!same_prefix(r, s, plen)) {
        return HF_OK;
    }
    if (num >= r->num_next)
        r->num_next = num + 1;
    if (!canonical(s, n, plen))
        return HF_OK;
    if (num >= r->num_cap && !r->num_frozen) {
        if (num >= 4 * ((uint64_t)r->n + 1) + 1024) {
            r->num_frozen = true; /* sparse numbers: left to the tables */
            return HF_OK;
        }
        size_t old = r->num_cap;
        hf_status st = HF_I_GROW(r->ctx, r->num_id, &r->num_cap, (size_t)num + 1);
        if (st)
            return st;
        for (size_t k = old; k < r->num_cap; k++)
            r->num_id[k] = HF_NO_EVENT;
    }
    if (num < r->num_cap)
        r->num_id[num] = id;
    return HF_OK;
}

#define EMPTY_SLOT  UINT32_MAX
#define SCOUT_AHEAD 1024u /* bytes */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* What a slot of the reader's table keeps of a name (len <= HF_MAX_NAME bytes at input offset
 * at, of hash h), as two words lo and hi: a name of at most 7 bytes whole (its bytes, the length
 * in the top byte of hi, whose top bit is then clear), so that a lookup reads the slot alone;
 * a longer one as where it is in the input (lo) and, in hi, its length and 16 bits of its hash
 * (top bit set), so that a probe passes over other names without reading their bytes. */
#define LONG_NAME 0x80000000u
static inline void name_word(const char *s, size_t len, uint64_t h, uint32_t at, uint32_t *lo,
                             uint32_t *hi)
{
    if (len <= 7) {
        uint64_t w = (uint64_t)len << 56;
        for (size_t k = 0; k < len; k++)
            w |= (uint64_t)(unsigned char)s[k] << (8 * k);
        *lo = (uint32_t)w;
        *hi = (uint32_t)(w >> 32);
    } else {
        *lo = at;
        *hi = LONG_NAME | (uint32_t)len << 16 | (uint32_t)(h >> 48);
    }
}

/* Whether slot t holds the name s[0..len) whose word is lo, hi. */
static inline bool slot_holds(const reader *r, const struct slot *t, const char *s, size_t len,
                              uint32_t lo, uint32_t hi)
{
    if (t->hi != hi)
        return false;
    return !(hi & LONG_NAME) ? t->lo == lo : memcmp(r->lx.s + t->lo, s, len) == 0;
}

static hf_status tab_resize(reader *r, size_t size)
{
    struct slot *tab = hf_i_alloc_array(r->ctx, size, sizeof *tab);
    if (!tab)
        return HF_ENOMEM;
    hf_i_advise_huge(tab, size * sizeof *tab);
    for (size_t i = 0; i < size; i++)
        tab[i].id = EMPTY_SLOT;
    /* the events in batches, the slots of a batch prefetched before it is placed */
    enum { BATCH = 16 };
    uint64_t h[BATCH];
    for (uint32_t v0 = 0; v0 < r->n; v0 += BATCH) {
        uint32_t m = r->n - v0 < BATCH ? r->n - v0 : BATCH;
        for (uint32_t k = 0; k < m; k++) {
            const struct place *pl = &r->place[v0 + k];
            h[k] = hf_i_strtab_hash(r->lx.s + pl->at, pl->len);
            PREFETCH(&tab[(size_t)h[k] & (size - 1)]);
        }
        for (uint32_t k = 0; k < m; k++) {
            const struct place *pl = &r->place[v0 + k];
            size_t i = (size_t)h[k] & (size - 1);
            while (tab[i].id != EMPTY_SLOT)
                i = (i + 1) & (size - 1);
            tab[i].id = v0 + k;
            name_word(r->lx.s + pl->at, pl->len, h[k], pl->at, &tab[i].lo, &tab[i].hi);
        }
    }
    hf_i_free(r->ctx, r->tab);
    r->tab = tab;
    r->tab_mask = size - 1;
    r->lag_len = 0;
    return HF_OK;
}

/* A size for the reader's table (a power of two, at least twice the events so far plus one):
 * room for the events the rest of the text will likely name, as many per byte as since the mark
 * (a text that names its events first and then only refers to them, as hf_dot_write's does, adds
 * none), but at most `most` times the events so far, so that the table grows in few steps (each
 * places every name again) and is never far too big. */
static size_t tab_size(const reader *r, size_t most)
{
    double read = (double)(r->lx.i > r->mark_at ? r->lx.i - r->mark_at : 1);
    double rate = (double)(r->n - r->mark_n) / read;
    double expect = (double)r->n + rate * (double)(r->lx.len - r->lx.i);
    double cap = (double)r->n * (double)most;
    expect = expect > cap ? cap : expect;
    size_t size = 1024;
    while ((double)size < 2.0 * (expect + 1.0) || size < 2 * ((size_t)r->n + 1))
        size *= 2;
    return size;
}

/* Before the builder's table of names grows (it doubles when half full, placing every name again
 * and clearing the new slots each time), room for the names the rest of the text will likely
 * bring, at the rate of new names per byte so far: a large text naming new events all along (a
 * tree written parent -> child) gets its final table in one or two steps instead of one per
 * doubling. Only while most events were first named after an edge operator: a text that
 * declares its events first (hf_dot_write's) and then only refers to them would be taken for one
 * with new names to its end. The size is rounded down to a power of two (the table's last
 * doubling, if needed, comes as before) and at most 4 times the present one, so that a text
 * whose new names stop early gets at most twice the table plain doubling gives it. */
#define RESERVE_FROM 8192u /* events */
static hf_status reserve_names(reader *r)
{
    const hf_i_strtab *t = r->names;
    size_t slots = t->slots ? t->mask + 1 : 0;
    if (r->n < RESERVE_FROM || !slots || 2 * ((size_t)t->count + 1) <= slots || r->lx.i == 0 ||
        r->made_after_arrow < r->n / 2)
        return HF_OK;
    double expect = (double)r->n * ((double)r->lx.len / (double)r->lx.i);
    size_t size = slots;
    while (size < 4 * slots && (double)size <= expect)
        size *= 2;
    return size > 2 * slots ? hf_i_poset_builder_reserve(r->b, size / 2) : HF_OK;
}

/* Move the scout on to SCOUT_AHEAD bytes past the reader, prefetching the slots of the names it
 * passes: the builder's until the reader's table is made, then the reader's and, for a long name,
 * SCOUT_LAG long names later, the bytes of the name the slot points to. */
static void scout(reader *r)
{
    hf_i_dot_lexer *sc = &r->scout;
    while (sc->tok != TK_BAD && sc->tok != TK_END && sc->i < r->lx.i + SCOUT_AHEAD &&
           r->ring_head - r->ring_tail < SCOUT_RING) {
        hf_i_dot_lex(sc);
        struct scouted *t = &r->ring[r->ring_head++ % SCOUT_RING];
        t->i = sc->i;
        t->start = sc->start;
        t->end = sc->end;
        t->tok = sc->tok;
        t->escaped = sc->escaped;
        bool plain = sc->tok == TK_ID || (sc->tok == TK_QSTR && !sc->escaped &&
                                          !(sc->end == sc->start + 1 && sc->s[sc->start] == '\n'));
        t->hashed = plain;
        t->num.parsed = false;
        if (!plain)
            continue;
        size_t len = sc->end - sc->start;
        uint32_t known;
        t->num = numbered(sc->s + sc->start, len);
        if (!r->tab && numbered_lookup(r, sc->s + sc->start, len, t->num, &known) != NUM_ASK) {
            t->hashed = false; /* no table is asked (the reader hashes it if one is) */
            continue;
        }
        uint64_t h = t->hash = hf_i_strtab_hash(sc->s + sc->start, len);
        if (!r->tab) {
            hf_i_strtab_prefetch(r->names, h);
            continue;
        }
        size_t i = (size_t)h & r->tab_mask;
        PREFETCH(&r->tab[i]);
        if (len <= 7)
            continue; /* the slot holds the whole name */
        struct lagging *lag = &r->lag[r->lag_at];
        if (r->lag_len == SCOUT_LAG) {
            size_t j = lag->slot;
            while (r->tab[j].id != EMPTY_SLOT && r->tab[j].hi != lag->hi)
                j = (j + 1) & r->tab_mask;
            if (r->tab[j].id != EMPTY_SLOT)
                PREFETCH(r->lx.s + r->tab[j].lo);
        } else {
            r->lag_len++;
        }
        uint32_t lo;
        lag->slot = (uint32_t)i;
        name_word(sc->s + sc->start, len, h, 0, &lo, &lag->hi);
        r->lag_at = (r->lag_at + 1) % SCOUT_LAG;
    }
}

/* The next token into r->lx: the scout's while it runs (so that the reader and the scout never
 * part), read here once it stopped (at the end, or at a token outside the subset). */
static void next(reader *r)
{
    if (r->ring_tail == r->ring_head)
        scout(r);
    if (r->ring_tail < r->ring_head) {
        const struct scouted *t = &r->ring[r->ring_tail++ % SCOUT_RING];
        r->lx.i = t->i;
        r->lx.start = t->start;
        r->lx.end = t->end;
        r->lx.tok = t->tok;
        r->lx.escaped = t->escaped;
        r->tok_hashed = t->hashed;
        r->tok_hash = t->hash;
        r->tok_num = t->num;
    } else {
        hf_i_dot_lex(&r->lx);
        r->tok_hashed = false;
        r->tok_num.parsed = false;
    }
}

/* Whether event v (< n) is named by the current ID. */
static bool named(const reader *r, uint32_t v)
{
    const struct place *pl = &r->place[v];
    return pl->len == r->text_len && (pl->len == 0 || r->lx.s[pl->at] == r->name[0]) &&
           memcmp(r->lx.s + pl->at, r->name, r->text_len) == 0;
}

/* The event named by text, made (with the current node defaults) when new; role 0 for the
 * first ID of a statement, 1 after an edge operator. */
static hf_status event(reader *r, int role, uint32_t *id_out)
{
    if (r->text_len > 0 && r->name[0] == '%')
        return GIVE_UP; /* libcgraph keeps such names as anonymous ids */
    /* a failed guess costs cache misses (a random reference): where they mostly fail they are
     * tried only now and then */
    if (r->score[role] > -32 || (++r->tick & 63) == 0) {
        uint32_t guess[2] = {r->last[role], r->last[role] + 1};
        for (int k = 0; k < 2; k++)
            if (guess[k] < r->n && named(r, guess[k])) {
                *id_out = r->last[role] = guess[k];
                r->score[role] = r->score[role] < 32 ? r->score[role] + 4 : 35;
                return HF_OK;
            }
        if (r->score[role] > -64)
            r->score[role]--;
    }
    uint64_t h = 0;
    uint32_t known;
    numname nm = r->text_num.parsed ? r->text_num : numbered(r->name, r->text_len);
    int said = numbered_lookup(r, r->name, r->text_len, nm, &known);
    if (said == NUM_KNOWN) {
        *id_out = r->last[role] = known;
        return HF_OK;
    }
    bool fresh = said == NUM_NEW;
    if (r->tab)
        h = r->text_hashed ? r->text_hash : hf_i_strtab_hash(r->name, r->text_len);
    if (r->tab && !fresh) {
        scout(r);
        uint32_t lo, hi;
        name_word(r->name, r->text_len, h, 0, &lo, &hi);
        for (size_t i = (size_t)h & r->tab_mask; r->tab[i].id != EMPTY_SLOT;
             i = (i + 1) & r->tab_mask)
            if (slot_holds(r, &r->tab[i], r->name, r->text_len, lo, hi)) {
                *id_out = r->last[role] = r->tab[i].id;
                return HF_OK;
            }
    }
    hf_status st;
    if (r->tab || fresh) {
        /* new (the reader's table holds every event, or the numbered names say so):
         * the builder's table places it with the others when asked next (the finished poset
         * when a name is first looked up) */
        st = hf_i_poset_builder_add_new(r->b, r->name, r->text_len, id_out);
    } else {
        h = r->text_hashed ? r->text_hash : hf_i_strtab_hash(r->name, r->text_len);
        if ((st = reserve_names(r)))
            return st;
        st = hf_i_poset_builder_add_hashed(r->b, r->name, r->text_len, h, id_out);
    }
    if (st == HF_EDUPLICATE) {
        r->last[role] = *id_out;
        if (!r->tab && !r->tab_off && ++r->misses == 1) {
            r->mark_n = r->n;
            r->mark_at = r->lx.i;
        }
        if (!r->tab && !r->tab_off && r->misses > 4096 && r->misses > r->n / 8) {
            size_t size = tab_size(r, 16);
            if ((st = tab_resize(r, size)))
                return st;
            r->tab_count = r->n;
            r->mark_n = r->n;
            r->mark_at = r->lx.i;
        }
        return HF_OK;
    }
    if (st)
        return st == HF_ENOMEM ? st : GIVE_UP;
    if (r->n >= r->place_cap && (st = HF_I_GROW(r->ctx, r->place, &r->place_cap, (size_t)r->n + 1)))
        return st;
    bool at = r->in_input && r->input_at <= UINT32_MAX;
    r->place[r->n] =
        (struct place){at ? (uint32_t)r->input_at : 0, at ? (uint32_t)r->text_len : UINT32_MAX};
    r->last[role] = r->n;
    if (!at && !r->tab_off) {
        r->tab_off = true; /* the table cannot hold this name: it answers no more */
        hf_i_free(r->ctx, r->tab);
        r->tab = NULL;
    }
    if (r->tab) {
        if (2 * (r->tab_count + 1) > r->tab_mask + 1) {
            if ((st = tab_resize(r, tab_size(r, 4))))
                return st;
            r->mark_n = r->n;
            r->mark_at = r->lx.i;
            h = hf_i_strtab_hash(r->name, r->text_len);
        }
        size_t i = (size_t)h & r->tab_mask;
        while (r->tab[i].id != EMPTY_SLOT)
            i = (i + 1) & r->tab_mask;
        r->tab[i].id = r->n;
        name_word(r->name, r->text_len, h, (uint32_t)r->input_at, &r->tab[i].lo, &r->tab[i].hi);
        r->tab_count++;
    }
    for (int a = 0; r->any_of && a < ATTR_COUNT; a++)
        if (r->of[a]) {
            if (r->n >= r->of_cap[a] &&
                (st = HF_I_GROW(r->ctx, r->of[a], &r->of_cap[a], (size_t)r->n + 1)))
                return st;
            r->of[a][r->n] = r->dflt[a];
        }
    if ((st = numbered_made(r, r->name, r->text_len, nm, r->n)))
        return st;
    r->made_after_arrow += role;
    r->n++;
    return HF_OK;
}

static bool word_eq(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

static int attr_of(const char *key, size_t n)
{
    static const char *const names[] = {"focus", "thread", "obj", "access"};
    for (int a = 0; a < ATTR_COUNT; a++)
        if (word_eq(key, n, names[a]))
            return a;
    return word_eq(key, n, "key") ? ATTR_KEY : ATTR_OTHER;
}

enum { OF_NODES, OF_NODE_DEFAULTS, OF_EDGES, OF_GRAPH };

/* One or more attribute lists `[k = v, ...]` (the current token is '['), for the nodes of the
 * statement (kept in assign), the node defaults, edges or the graph. */
static hf_status attr_lists(reader *r, int owner)
{
    hf_i_dot_lexer *lx = &r->lx;
    hf_status st;
    r->assign_len = 0;
    while (lx->tok == TK_LBRACK) {
        next(r);
        while (lx->tok != TK_RBRACK) {
            if (!is_id(lx->tok))
                return GIVE_UP;
            if ((st = id(r, true)))
                return st;
            int a = attr_of(r->name, r->text_len);
            if (lx->tok != TK_EQ)
                return GIVE_UP;
            next(r);
            if (!is_id(lx->tok))
                return GIVE_UP;
            bool node = owner == OF_NODES || owner == OF_NODE_DEFAULTS;
            if (a == ATTR_KEY && owner == OF_EDGES)
                return GIVE_UP; /* an edge's identity: left to libcgraph */
            if ((st = id(r, node && a < ATTR_COUNT)))
                return st;
            if (node && a < ATTR_COUNT) {
                uint32_t v;
                if ((st = declare(r, a)) ||
                    (st = values_intern(r->ctx, &r->vals, r->name, r->text_len, &v)))
                    return st;
                if (owner == OF_NODE_DEFAULTS) {
                    r->dflt[a] = v;
                } else {
                    if ((st = HF_I_GROW(r->ctx, r->assign, &r->assign_cap, r->assign_len + 1)))
                        return st;
                    r->assign[r->assign_len++] = (assignment){a, v};
                }
            }
            if (lx->tok == TK_SEMI || lx->tok == TK_COMMA)
                next(r);
        }
        next(r);
    }
    return HF_OK;
}

/* A node list `a, b, ...` into list[k]; the first ID is already in text. */
static hf_status node_list(reader *r, int k, int role)
{
    hf_i_dot_lexer *lx = &r->lx;
    hf_status st;
    r->list_len[k] = 0;
    for (;;) {
        uint32_t v;
        if ((st = event(r, role, &v)) ||
            (st = push(r->ctx, &r->list[k], &r->list_len[k], &r->list_cap[k], v)))
            return st;
        if (lx->tok != TK_COMMA)
            return HF_OK;
        next(r);
        if (!is_id(lx->tok))
            return GIVE_UP;
        if ((st = id(r, true)))
            return st;
    }
}

static hf_status statement(reader *r)
{
    hf_i_dot_lexer *lx = &r->lx;
    hf_status st;
    int t = lx->tok;
    if (t == TK_NODE || t == TK_EDGE || t == TK_GRAPH) {
        next(r);
        if (lx->tok != TK_LBRACK)
            return GIVE_UP; /* (a macro name, or nothing) */
        if ((st = attr_lists(r, t == TK_NODE   ? OF_NODE_DEFAULTS
                                : t == TK_EDGE ? OF_EDGES
                                               : OF_GRAPH)))
            return st;
    } else if (is_id(t)) {
        if ((st = id(r, true)))
            return st;
        if (lx->tok == TK_EQ) { /* a graph attribute */
            next(r);
            if (!is_id(lx->tok))
                return GIVE_UP;
            if ((st = id(r, false)))
                return st;
        } else {
            int cur = 0;
            if ((st = node_list(r, cur, 0)))
                return st;
            unsigned arrows = 0;
            while (lx->tok == TK_ARROW) {
                if (++arrows > MAX_ARROWS)
                    return GIVE_UP;
                next(r);
                if (!is_id(lx->tok))
                    return GIVE_UP; /* a subgraph, or a syntax error */
                if ((st = id(r, true)) || (st = node_list(r, !cur, 1)))
                    return st;
                for (size_t i = 0; i < r->list_len[cur]; i++)
                    for (size_t j = 0; j < r->list_len[!cur]; j++) {
                        uint32_t u = r->list[cur][i], v = r->list[!cur][j];
                        if (u == v)
                            return GIVE_UP; /* a self-loop: the libcgraph path explains */
                        if ((st = hf_poset_builder_add_order(r->b, u, v)))
                            return st == HF_ENOMEM ? st : GIVE_UP;
                    }
                cur = !cur;
            }
            if (lx->tok == TK_LBRACK) {
                if ((st = attr_lists(r, arrows ? OF_EDGES : OF_NODES)))
                    return st;
                if (!arrows)
                    for (size_t i = 0; i < r->list_len[cur]; i++)
                        for (size_t k = 0; k < r->assign_len; k++)
                            r->of[r->assign[k].attr][r->list[cur][i]] = r->assign[k].value;
            }
        }
    } else {
        return GIVE_UP;
    }
    if (lx->tok == TK_SEMI)
        next(r);
    return HF_OK;
}

static const char *value_of(const reader *r, int a, uint32_t v)
{
    return r->of[a] ? hf_i_strtab_str(&r->vals, r->of[a][v]) : NULL;
}

/* The labels, as lib/io_dot.c's build_from_graph reads them; any value it refuses gives up. */
static hf_status labels(reader *r)
{
    hf_status st;
    for (uint32_t v = 0; v < r->n; v++) {
        const char *fv = value_of(r, ATTR_FOCUS, v);
        bool on = false;
        if (fv && !hf_i_dot_truth_value(fv, &on))
            return GIVE_UP;
        if (on && (st = hf_poset_builder_set_focus(r->b, v)))
            return st == HF_ENOMEM ? st : GIVE_UP;
        const char *tv = value_of(r, ATTR_THREAD, v);
        if (tv && tv[0] && (st = hf_poset_builder_set_thread(r->b, v, tv)))
            return st == HF_ENOMEM ? st : GIVE_UP;
        const char *ov = value_of(r, ATTR_OBJ, v), *av = value_of(r, ATTR_ACCESS, v);
        hf_access access = HF_ACCESS_WRITE;
        if (av && av[0] && (!hf_i_dot_access_value(av, &access) || !ov || !ov[0]))
            return GIVE_UP;
        if (ov && ov[0] && (st = hf_poset_builder_set_object(r->b, v, ov, access)))
            return st == HF_ENOMEM ? st : GIVE_UP;
    }
    if (r->of[ATTR_OBJ]) {
        /* the libcgraph path refuses an empty obj= found in the text */
        int line;
        if ((st = hf_i_dot_attr_find(r->ctx, r->lx.s, r->lx.len, "obj", "", &line, NULL, 0)))
            return st;
        if (line)
            return GIVE_UP;
    }
    return HF_OK;
}

static hf_status read_graph(reader *r, hf_poset **out, hf_error *err)
{
    hf_i_dot_lexer *lx = &r->lx;
    hf_status st;
    next(r);
    if (lx->tok == TK_STRICT)
        next(r);
    if (lx->tok != TK_DIGRAPH)
        return GIVE_UP;
    next(r);
    if (is_id(lx->tok) && (st = id(r, false)))
        return st;
    if (lx->tok != TK_LBRACE)
        return GIVE_UP;
    next(r);
    while (lx->tok != TK_RBRACE)
        if ((st = statement(r)))
            return st;
    next(r);
    if (lx->tok != TK_END || r->n == 0)
        return GIVE_UP; /* more after the graph, or no events */
    if ((st = labels(r)))
        return st;
    /* the reader's own tables have served: the finishing's peak does without them */
    hf_i_free(r->ctx, r->tab);
    hf_i_free(r->ctx, r->place);
    hf_i_free(r->ctx, r->num_id);
    r->tab = NULL;
    r->place = NULL;
    r->num_id = NULL;
    st = hf_poset_builder_finish(r->b, out, err);
    if (st && st != HF_ENOMEM)
        return GIVE_UP; /* a cycle or a size limit: the libcgraph path explains */
    return st;
}

hf_status hf_i_dot_read_fast(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                             hf_error *err)
{
    *out = NULL;
    if (!data || memchr(data, '\0', len))
        return GIVE_UP;
    reader *r = hf_i_calloc(ctx, 1, sizeof *r);
    if (!r)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    r->ctx = ctx;
    r->lx = (hf_i_dot_lexer){.s = data, .len = len};
    r->scout = r->lx;
    r->scout.tok = TK_ID; /* (not at its end) */
    hf_status st = hf_poset_builder_new(ctx, &r->b);
    if (!st)
        r->names = hf_i_poset_builder_names(r->b);
    if (!st)
        st = read_graph(r, out, err);
    hf_poset_builder_free(r->b);
    for (int a = 0; a < ATTR_COUNT; a++)
        hf_i_free(ctx, r->of[a]);
    hf_i_strtab_free(ctx, &r->vals);
    hf_i_free(ctx, r->list[0]);
    hf_i_free(ctx, r->list[1]);
    hf_i_free(ctx, r->assign);
    hf_i_free(ctx, r->place);
    hf_i_free(ctx, r->tab);
    hf_i_free(ctx, r->num_id);
    hf_i_free(ctx, r);
    if (st == HF_ENOMEM)
        return hf_i_fail(err, HF_ENOMEM, 0, 0, "out of memory");
    if (st)
        hf_i_error_clear(err);
    return st;
}
