/* The fast DOT reader (lib/io_dot_fast.c) against the libcgraph path it stands in for: whenever
 * the fast reader accepts a text, its poset is the one libcgraph's reading gives (events in the
 * same order, the same name bytes, Hasse diagram, focus marks, threads, objects and accesses),
 * and hf_dot_read_mem (fast path first) answers every text exactly as libcgraph alone does:
 * the same status, message and line. Checked on every DOT file of the project and on thousands
 * of random texts mixing the plain subset with what it leaves to libcgraph. */
#define _XOPEN_SOURCE   700 /* nftw */
#define _DEFAULT_SOURCE     /* MAP_ANONYMOUS */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hitfam/order.h>

#include "io_dot_fast.h"
#include "poset_i.h"
#include "strtab.h"
#include "util.h"

TU_SUITE(dot_fast);

/* ------------------------------------------------------------------------------------------ */
/* Comparison                                                                                 */

/* Why two posets differ, or NULL. */
static const char *poset_difference(const hf_poset *a, const hf_poset *b)
{
    uint32_t n = hf_poset_size(a);
    if (n != hf_poset_size(b))
        return "event count";
    for (uint32_t v = 0; v < n; v++) {
        if (strcmp(hf_poset_name(a, v), hf_poset_name(b, v)) != 0)
            return "names";
        /* each finds every name (the fast reader's are placed at the first lookup) */
        uint32_t ia = HF_NO_EVENT, ib = HF_NO_EVENT;
        if (hf_poset_find(a, hf_poset_name(a, v), &ia) != HF_OK || ia != v ||
            hf_poset_find(b, hf_poset_name(b, v), &ib) != HF_OK || ib != v)
            return "lookup by name";
        uint32_t ca, cb;
        const uint32_t *sa = hf_poset_hasse_succ(a, v, &ca), *sb = hf_poset_hasse_succ(b, v, &cb);
        if (ca != cb || (ca && memcmp(sa, sb, ca * sizeof *sa) != 0))
            return "Hasse successors";
        if (hf_poset_thread(a, v) != hf_poset_thread(b, v))
            return "threads";
        if (hf_poset_object(a, v) != hf_poset_object(b, v))
            return "objects";
        if (hf_poset_access(a, v) != hf_poset_access(b, v))
            return "accesses";
    }
    uint32_t fa, fb;
    const uint32_t *focus_a = hf_poset_focus(a, &fa), *focus_b = hf_poset_focus(b, &fb);
    if (fa != fb || (fa && memcmp(focus_a, focus_b, fa * sizeof *focus_a) != 0))
        return "focus";
    if (hf_poset_thread_count(a) != hf_poset_thread_count(b))
        return "thread count";
    for (uint32_t k = 0; k < hf_poset_thread_count(a); k++)
        if (strcmp(hf_poset_thread_name(a, k), hf_poset_thread_name(b, k)) != 0)
            return "thread names";
    if (hf_poset_object_count(a) != hf_poset_object_count(b))
        return "object count";
    for (uint32_t k = 0; k < hf_poset_object_count(a); k++)
        if (strcmp(hf_poset_object_name(a, k), hf_poset_object_name(b, k)) != 0)
            return "object names";
    if (hf_poset_shape(a) != hf_poset_shape(b) || hf_poset_height(a) != hf_poset_height(b))
        return "shape";
    return NULL;
}

/* A message with the numbers libcgraph gives '%' names masked: they come from a counter of its
 * own that every read advances. */
static void mask_anonymous(const char *msg, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; msg[i] && k + 1 < cap; i++) {
        out[k++] = msg[i];
        if (msg[i] == '%')
            while (msg[i + 1] >= '0' && msg[i + 1] <= '9')
                i++;
    }
    out[k] = '\0';
}

/* p in the compact order format: malloc'd, exactly *len bytes. */
static char *compact_bytes(const hf_poset *p, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    cr_assert_eq(hf_order_write(p, mem), HF_OK);
    fclose(mem);
    char *exact = malloc(size ? size : 1);
    memcpy(exact, buf, size);
    free(buf);
    *len = size;
    return exact;
}

/* p written in the compact format reads back as the same poset. */
static void round_trip(const hf_poset *p, const char *what)
{
    size_t len;
    char *bytes = compact_bytes(p, &len);
    cr_assert(hf_order_is_compact(bytes, len));
    hf_poset *q = NULL;
    hf_error err;
    cr_assert_eq(hf_order_read_mem(NULL, bytes, len, &q, &err), HF_OK, "%s: %s", what, err.text);
    const char *diff = poset_difference(p, q);
    cr_assert_null(diff, "%s: the compact format reads back with other %s", what, diff);
    hf_poset_free(q);
    free(bytes);
}

/* A read-only copy of text[0..len) that ends where a page without access starts: a reader that
 * looks at data[len] faults, in every build and in code the sanitizers do not see (libcgraph),
 * as it would on a mapped file whose size is a multiple of the page size (the CLI maps its
 * inputs). */
typedef struct page_end {
    char *map;
    size_t map_len;
    const char *data;
} page_end;

static page_end page_end_copy(const char *text, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (len + page - 1) / page * page;
    page_end pe = {.map_len = span + page};
    pe.map = mmap(NULL, pe.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(pe.map, MAP_FAILED);
    char *data = pe.map + span - len;
    if (len)
        memcpy(data, text, len);
    cr_assert_eq(mprotect(pe.map, span, PROT_READ), 0);
    cr_assert_eq(mprotect(pe.map + span, page, PROT_NONE), 0);
    pe.data = data;
    return pe;
}

static void page_end_free(page_end *pe) { munmap(pe->map, pe->map_len); }

typedef struct tally {
    size_t fast, fell_back, refused;
} tally;

/* Read `text` every way and check the promises; `what` names it in failures. */
static void compare(const char *text, size_t len, const char *what, tally *t)
{
    page_end pe = page_end_copy(text, len); /* any read past the end faults */
    const char *copy = pe.data;
    hf_poset *pf = NULL, *pc = NULL, *pa = NULL;
    hf_error ef, ec, ea;
    hf_status sf = hf_i_dot_read_path(NULL, copy, len, HF_I_DOT_FAST, &pf, &ef);
    hf_status sc = hf_i_dot_read_path(NULL, copy, len, HF_I_DOT_CGRAPH, &pc, &ec);
    hf_status sa = hf_i_dot_read_path(NULL, copy, len, HF_I_DOT_AUTO, &pa, &ea);
    cr_assert(sf == HF_OK || sf == HF_EUNSUPPORTED, "%s: fast reader: %s (%s)", what,
              hf_strerror(sf), ef.text);
    if (sf == HF_OK) {
        cr_assert_eq(sc, HF_OK, "%s: the fast reader accepts what libcgraph's path refuses: %s",
                     what, ec.text);
        const char *diff = poset_difference(pf, pc);
        cr_assert_null(diff, "%s: fast and libcgraph readings differ in %s", what, diff);
        t->fast++;
    } else {
        cr_assert_null(pf);
        if (sc == HF_OK)
            t->fell_back++;
        else
            t->refused++;
    }
    cr_assert_eq(sa, sc, "%s: %s, but libcgraph alone: %s", what, hf_strerror(sa), hf_strerror(sc));
    if (sc == HF_OK) {
        const char *diff = poset_difference(pa, pc);
        cr_assert_null(diff, "%s: readings differ in %s", what, diff);
        round_trip(pc, what);
    } else {
        char ma[sizeof ea.text], mc[sizeof ec.text];
        mask_anonymous(ea.text, ma, sizeof ma);
        mask_anonymous(ec.text, mc, sizeof mc);
        cr_assert_str_eq(ma, mc, "%s: %s / %s", what, ea.text, ec.text);
        cr_assert_eq(ea.line, ec.line, "%s: %s", what, ec.text);
    }
    hf_poset_free(pf);
    hf_poset_free(pc);
    hf_poset_free(pa);
    page_end_free(&pe);
}

static void compare_str(const char *text, tally *t) { compare(text, strlen(text), text, t); }

/* ------------------------------------------------------------------------------------------ */
/* Chosen texts                                                                               */

Test(dot_fast, plain_forms_take_the_fast_path)
{
    static const char *const texts[] = {
        "digraph { a -> b -> c }",
        "strict digraph G { a -> b; a -> b; b -> a -> c }",
        "DiGraph \"x\" + \"y\" { \"a\" + \"b\" -> c }",
        "digraph { a, b -> c, d [color=red]; e }",
        "digraph { 1 -> -2.5 -> .5 -> 3. -> -7 }",
        "digraph { \"a b\" -> \"\" -> \"q\\\"x\" -> \"back\\\\slash\" -> \"cont\\\ninued\" }",
        "digraph { \"\n\" -> \"\\\n\" -> \"a\\\\\" }",
        "digraph { a [focus=true]; b [focus=YES, thread=t1]; c [thread=t1; obj=x access=r] }",
        "digraph { node [thread=t]; a; node [thread=\"\"]; b; a -> b }",
        "digraph { a; node [focus=1]; b -> c; a [focus=0] }",
        "digraph { a [focus=perhaps]; a [focus=no] }",
        "digraph { a [access=r]; a [obj=o] }",
        "digraph { a [thread=t1]; b [thread=\"t1 and a long name after it\"] }",
        "digraph { a [focus=\"VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV\"] }",
        "digraph { rankdir = LR; graph [splines=true]; edge [color=blue]; a -> b [key2=1] }",
        "digraph { /* c */ a // d\n -> # e\n b }\n// after\n# after\n/* after */",
        ("\xEF\xBB\xBF"
         "digraph { a -> b }"),
        "digraph { \xEF\xBB\xBF a -> \xC3\xA9 }",
        "digraph { a [][x=1,][y=2;] }",
        "digraph { a-1 }",
        "digraph{a->b;b->c;}",
        "digraph { node -> b }",
        "digraph { a -> b -> a }",
        "digraph { a -> a }",
        "digraph { a [focus=maybe] }",
        "digraph { a [access=q, obj=o] }",
        "digraph { a [access=r] }",
        "digraph { a [obj=\"\"] }",
        "digraph { a [obj=x]; b [ # obj=\"\"\n ] }",
        "digraph { %1 -> b }",
        "digraph { \"%1\" -> b }",
        "digraph { }",
        "digraph { a } digraph { b }",
        "digraph { a } ;",
        "graph { a -- b }",
        "digraph { subgraph s { a } -> b }",
        "digraph { a:p -> b }",
        "digraph { <a> -> b }",
        "digraph { 1a -> b }",
        "digraph { 1.2.3 }",
        "digraph { a -> b [key=k] }",
        "digraph { node x = [a=b] }",
        "digraph { a \x0b b }",
        "digraph { a ; ; b }",
        "digraph { \"unterminated }",
        "digraph { a /* unterminated }",
        "digraph { a -- b }",
        "digraph { a - b }",
        "digraph { \"a\" + b }",
        "digraph { a @ b }",
        "digraph { a } @",
        "# 5 \"file\"\ndigraph { a -> }",
        "digraph { a -> b -> }",
        "",
        "   ",
    };
    tally t = {0};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        compare_str(texts[k], &t);
    cr_assert_geq(t.fast, 15, "only %zu texts took the fast path", t.fast);
    cr_assert_geq(t.fell_back, 3);
    cr_assert_geq(t.refused, 20);
}

Test(dot_fast, nul_bytes_and_long_ids_fall_back)
{
    tally t = {0};
    compare("digraph { a\0 -> b }", 19, "NUL", &t);
    char *long_text = malloc(3 * HF_MAX_NAME);
    for (int quoted = 0; quoted < 2; quoted++)
        for (size_t n = HF_MAX_NAME - 1; n <= HF_MAX_NAME + 1; n++) {
            size_t k = (size_t)sprintf(long_text, "digraph { %s", quoted ? "\"" : "");
            memset(long_text + k, 'x', n);
            k += n;
            k += (size_t)sprintf(long_text + k, "%s -> b }", quoted ? "\"" : "");
            compare(long_text, k, "long name", &t);
        }
    /* a line directive naming a long file (refused by the libcgraph path), and a long comment */
    for (int directive = 0; directive < 2; directive++)
        for (size_t n = 900; n <= 1300; n += 100) {
            size_t k = (size_t)sprintf(long_text, "%s", directive ? "# 1 \"" : "#");
            memset(long_text + k, 'f', n);
            k += n;
            k += (size_t)sprintf(long_text + k, "%s\ndigraph { a }", directive ? "\"" : "");
            compare(long_text, k, "long # line", &t);
        }
    free(long_text);
    cr_assert_eq(t.fast, 4 + 2);
}

/* The scanner reads the common tokens (blanks, numerals of digits alone, names that cannot be
 * keywords, arrows) by a shortcut and leaves the rest to its general rules: texts at the edges of
 * the shortcut read alike, including tokens that end the input (each text is read from a buffer
 * of its exact size). */
Test(dot_fast, scanner_shortcuts_read_alike)
{
    static const char *const texts[] = {
        "digraph { Node1 -> EDGEs -> graphs -> Digraph2 -> stricter -> subgraphs -> sub -> edg }",
        "digraph { nodes -> edges -> graph_ -> digraphs -> strict_ -> subgraph2 -> gnode }",
        "digraph { a -> NODE }",
        "digraph { a -> Edge }",
        "digraph { a -> STRICT }",
        "digraph { x -> SubGraph { y } }",
        "digraph { a -> \xEF\xBB\xBF b }",
        "digraph { a -> \xEF\xBB\xBE -> \xEF\xBB\xBFx -> \xEFx\xBF }",
        "digraph { 12 -> 345 -> 6.5 -> 7. -> .8 -> -9 -> 0 }",
        "digraph { 12e -> b }",
        "digraph { 1_ -> b }",
        "digraph { 12\xC3\xA9 -> b }",
        "digraph { 12.x -> b }",
        "digraph{a->b;12->c}",
        "digraph {\r\n\ta\t->\r\nb\n}\n",
        "digraph { a -> 12",
        "digraph { a -> bc",
        "digraph { a -> edge",
        "digraph { a ->",
        "digraph { a -",
        "digraph { a -> 1",
        "digraph { a } ",
        "digraph { abcdefgh -> abcdefghi -> abcdefghijklmnopq -> abcdefghijklmnop -> abcdefg }",
        "digraph { abc -> ab -> a -> abcd -> abcde -> 1234 -> 123456789 -> 12345678 }",
        /* names of 3 to 9 bytes starting with a keyword's first letter, and the keywords in
         * other cases (the shortcut tells them apart by length and first letter) */
        "digraph { e12 -> e123 -> e1234 -> e12345 -> e123456 -> e1234567 -> e12345678 }",
        "digraph { N12 -> n123 -> N1234 -> g123 -> G1234 -> g12345 -> s12345 -> S123456 }",
        "digraph { s1234567 -> d12345 -> D123456 -> d1234567 -> edges -> nodes -> graph1 }",
        "digraph { a -> nodE }",
        "digraph { a -> GRAPH }",
        "digraph { a -> Digraph }",
        "digraph { a -> sTrict }",
        "digraph { a -> subGRAPH { b } }",
    };
    tally t = {0};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        compare_str(texts[k], &t);
    cr_assert_geq(t.fast, 10, "only %zu texts took the fast path", t.fast);
    cr_assert_geq(t.refused, 12);
}

/* The names' hash (lib/strtab.c, which the reader's own table uses too) reads every byte: one
 * changed byte, at any place in a name of any length up to 40, or one more byte, changes it;
 * the same bytes at another address hash alike. */
Test(dot_fast, name_hash_sees_every_byte)
{
    char name[48], copy[48 + 7];
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            name[i] = (char)('a' + i % 26);
        uint64_t h = hf_i_strtab_hash(name, n);
        memcpy(copy + 3, name, n);
        cr_assert_eq(hf_i_strtab_hash(copy + 3, n), h, "length %zu: the address matters", n);
        name[n] = 'a';
        cr_assert_neq(hf_i_strtab_hash(name, n + 1), h, "length %zu and one byte more", n);
        for (size_t i = 0; i < n; i++) {
            char was = name[i];
            name[i] = (char)(was ^ 0x40);
            cr_assert_neq(hf_i_strtab_hash(name, n), h, "length %zu: byte %zu not read", n, i);
            name[i] = was;
        }
    }
}

Test(dot_fast, long_chains_stay_within_libcgraphs_limits)
{
    tally t = {0};
    for (size_t arrows = 1990; arrows <= 2260; arrows += 30) {
        char *text = malloc(16 * arrows + 64);
        size_t k = (size_t)sprintf(text, "digraph { v0");
        for (size_t i = 1; i <= arrows; i++)
            k += (size_t)sprintf(text + k, " -> v%zu", i);
        k += (size_t)sprintf(text + k, " }");
        compare(text, k, "chain", &t);
        free(text);
    }
    cr_assert_geq(t.fast, 1);
    cr_assert_geq(t.refused, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* The project's DOT files                                                                    */

static tally files_tally;

static bool is_dot_file(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && strcmp(path + n - 4, ".dot") == 0) || strstr(path, "/fuzz/corpus/dot/");
}

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type != FTW_F || !is_dot_file(path))
        return 0;
    FILE *in = fopen(path, "rb");
    cr_assert_not_null(in, "%s", path);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len, in)) > 0) {
        len += got;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(in);
    compare(buf, len, path, &files_tally);
    free(buf);
    return 0;
}

Test(dot_fast, every_dot_file_of_the_project)
{
    const char *root = getenv("HITFAM_SOURCE_ROOT");
    cr_assert_not_null(root, "HITFAM_SOURCE_ROOT is not set");
    static const char *const dirs[] = {"tests/data", "examples", "fuzz/corpus/dot", "papers"};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root, dirs[k]);
        cr_assert_eq(nftw(path, visit, 16, FTW_PHYS), 0, "%s", path);
    }
    size_t total = files_tally.fast + files_tally.fell_back + files_tally.refused;
    cr_log_info("%zu DOT files: %zu fast, %zu through libcgraph, %zu refused", total,
                files_tally.fast, files_tally.fell_back, files_tally.refused);
    cr_assert_geq(total, 150);
    cr_assert_geq(files_tally.fast, 40);
}

/* ------------------------------------------------------------------------------------------ */
/* Random texts                                                                               */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static const char *pick(uint64_t *rng, const char *const *items, size_t count)
{
    return items[tu_below(rng, (uint32_t)count)];
}
#define PICK(rng, items) pick(rng, items, sizeof items / sizeof items[0])

/* Blanks and comments between tokens. */
static void gap(text *t, uint64_t *rng)
{
    static const char *const gaps[] = {
        " ", " ", " ", "\n", "", "\t", " /* c\n */ ", " // c\n", "\n# c\n", "\n#line 7\n", "\r\n"};
    put(t, PICK(rng, gaps));
}

/* Plain IDs in groups of spellings of one name; edge statements go from earlier groups to later
 * ones, so that most random orders have no cycle. */
static const char *const plain_ids[][3] = {
    {"a", "\"a\"", "\"a\" + \"\""},
    {"b", "\"b\"", "\"\" + \"b\""},
    {"c", "c", "\"c\""},
    {"_x1", "\"_x1\"", "_x1"},
    {"B", "B", "\"B\""},
    {"12", "\"12\"", "12"},
    {"-3.5", "\"-3.5\"", "-3.5"},
    {".5", ".5", "\".5\""},
    {"7.", "\"7.\"", "7."},
    {"\"a b\"", "\"a\" + \" b\"", "\"a b\""},
    {"\"\"", "\"\n\"", "\"\\\n\""},
    {"\"\\n\"", "\"\\n\"", "\"\\\n\\n\""},
    {"\"q\\\"x\"", "\"q\" + \"\\\"x\"", "\"q\\\"x\""},
    {"\"\\\\\"", "\"\\\\\"", "\"\\\\\""},
    {"\"c\\\nd\"", "\"cd\"", "cd"},
    {"\"x\" + \"y\"", "xy", "\"xy\""},
    {"\xC3\xA9", "\"\xC3\xA9\"", "\xC3\xA9"},
    {"\"node\"", "\"node\"", "\"no\" + \"de\""},
    {"\"Edge\"", "\"Edge\"", "\"Edge\""},
    {"f9", "f9", "\"f9\""},
    {"g", "g", "\"g\""},
};
#define PLAIN_IDS (sizeof plain_ids / sizeof plain_ids[0])

/* An ID: plain ones from plain_ids[lo, hi), or (odd texts) now and then one outside the subset. */
static void node_id(text *t, uint64_t *rng, bool odd, uint32_t lo, uint32_t hi)
{
    static const char *const other_ids[] = {
        "a:p", "<h>", "subgraph { a }", "{ b c }", "b:p:n", "<<i>x</i>>", "subgraph s { c -> d }"};
    static const char *const bad_ids[] = {"node", "%1", "1a",     "\"a\" + b",
                                          "-",    "@",  "\"open", "\"%\"x"};
    uint32_t r = odd ? tu_below(rng, 32) : 32;
    if (r < 6)
        put(t, PICK(rng, other_ids));
    else if (r < 7)
        put(t, PICK(rng, bad_ids));
    else
        put(t, plain_ids[lo + tu_below(rng, hi - lo)][tu_below(rng, 3)]);
}

static void attr_list(text *t, uint64_t *rng, bool odd)
{
    static const char *const keys[] = {"focus", "thread", "obj", "access", "color", "label"};
    static const char *const good[][5] = {
        {"true", "false", "YES", "1", "\"no\""},  {"t1", "t2", "\"t\" + \"1\"", "\"\"", "x"},
        {"o1", "o2", "\"o\" + \"1\"", "x", "o1"}, {"r", "w", "read", "WRITE", "\"\""},
        {"red", "\"\"", "1", "x", "\"a b\""},     {"\"a\nb\"", "x", "\"\"", "2", "t1"}};
    static const char *const bad[] = {"perhaps", "\"\"", "q", "\"\\\"\""};
    static const char *const seps[] = {"", ",", ";", " "};
    put(t, "[");
    uint32_t k = tu_below(rng, 4);
    for (uint32_t i = 0; i < k; i++) {
        uint32_t key = tu_below(rng, 6);
        if (key == 3 && tu_below(rng, 2)) /* access mostly with an object */
            put(t, "obj=o3, ");
        put(t, odd && tu_below(rng, 20) == 0 ? "key" : keys[key]);
        gap(t, rng);
        put(t, "=");
        put(t, odd && tu_below(rng, 10) == 0 ? PICK(rng, bad) : good[key][tu_below(rng, 5)]);
        put(t, PICK(rng, seps));
        gap(t, rng);
    }
    put(t, "]");
}

static void node_list(text *t, uint64_t *rng, bool odd, uint32_t lo, uint32_t hi)
{
    node_id(t, rng, odd, lo, hi);
    while (tu_below(rng, 4) == 0) {
        put(t, ",");
        gap(t, rng);
        node_id(t, rng, odd, lo, hi);
    }
}

static void statement(text *t, uint64_t *rng, bool odd)
{
    static const char *const kinds[] = {"node", "edge", "graph"};
    switch (tu_below(rng, 8)) {
    case 0:
        put(t, PICK(rng, kinds));
        gap(t, rng);
        attr_list(t, rng, odd);
        break;
    case 1:
        node_id(t, rng, odd, 0, PLAIN_IDS);
        put(t, " = ");
        node_id(t, rng, odd, 0, PLAIN_IDS);
        break;
    case 2:
    case 3:
        node_list(t, rng, odd, 0, PLAIN_IDS);
        if (tu_below(rng, 2) == 0)
            attr_list(t, rng, odd);
        break;
    default: {
        /* each node list of the chain from later plain IDs than the one before */
        uint32_t lists = 2 + tu_below(rng, 3), span = 1 + tu_below(rng, 3);
        uint32_t lo = tu_below(rng, (uint32_t)PLAIN_IDS - lists * span + 1);
        node_list(t, rng, odd, lo, lo + span);
        for (uint32_t k = 1; k < lists; k++) {
            lo += span;
            gap(t, rng);
            put(t, odd && tu_below(rng, 30) == 0 ? "--" : "->");
            gap(t, rng);
            node_list(t, rng, odd, lo, lo + span);
        }
        if (tu_below(rng, 3) == 0)
            attr_list(t, rng, odd);
    }
    }
    if (tu_below(rng, 2) == 0)
        put(t, ";");
    gap(t, rng);
}

static void random_text(text *t, uint64_t *rng)
{
    static const char *const heads[] = {"digraph",         "strict digraph", "DIGRAPH",
                                        "digraph G",       "digraph \"g\"",  "digraph 12",
                                        "strict Digraph x"};
    static const char *const odd_heads[] = {"graph", "strict graph", "subgraph", "digraph -"};
    static const char *const tails[] = {"",  "\n",     "// end", "\n#end", ";", "digraph { z }",
                                        "x", "/* open"};
    bool odd = tu_below(rng, 2) == 0;
    t->len = 0;
    put(t, "");
    if (tu_below(rng, 20) == 0)
        put(t, "\xEF\xBB\xBF");
    gap(t, rng);
    put(t, odd && tu_below(rng, 10) == 0 ? PICK(rng, odd_heads) : PICK(rng, heads));
    gap(t, rng);
    put(t, "{");
    gap(t, rng);
    for (uint32_t k = 1 + tu_below(rng, 8); k > 0; k--)
        statement(t, rng, odd);
    put(t, "}");
    gap(t, rng);
    if (odd && tu_below(rng, 3) == 0)
        put(t, PICK(rng, tails));
}

Test(dot_fast, random_texts_read_alike)
{
    uint64_t rng = 0x5eed0016u;
    text t = {0};
    tally tl = {0};
    char what[64];
    for (int i = 0; i < 3000; i++) {
        random_text(&t, &rng);
        snprintf(what, sizeof what, "random text %d", i);
        compare(t.s, t.len, what, &tl);
    }
    free(t.s);
    cr_log_info("random texts: %zu fast, %zu through libcgraph, %zu refused", tl.fast, tl.fell_back,
                tl.refused);
    cr_assert_geq(tl.fast, 600);
    cr_assert_geq(tl.fell_back, 100);
    cr_assert_geq(tl.refused, 300);
}

/* Numbered names (a prefix and a decimal number, which the fast reader makes without a lookup
 * when the number is past every one of its prefix so far): spellings of one name, numbers with
 * leading zeros, of 18 and 19 digits, other prefixes, numerals, quoted and joined spellings, in
 * increasing, decreasing and random order. Edges go from earlier names to later ones in a
 * random ranking, so that most texts are orders. */
static void numbered_name(char *out, size_t cap, uint64_t *rng)
{
    static const char *const prefixes[] = {"e", "e", "e", "e", "", "E", "ev_", "-", "1."};
    static const char *const big[] = {"999999999999999999", "1000000000000000000",
                                      "123456789012345678", "1234567890123456789"};
    const char *prefix = PICK(rng, prefixes);
    char num[32];
    uint32_t r = tu_below(rng, 16);
    if (r == 0)
        snprintf(num, sizeof num, "%s", PICK(rng, big));
    else if (r == 1)
        snprintf(num, sizeof num, "0%u", tu_below(rng, 12));
    else
        snprintf(num, sizeof num, "%u", tu_below(rng, 40));
    snprintf(out, cap, "%s%s", prefix, num);
}

/* One spelling of name s: bare when DOT allows it, quoted, or joined from two quoted halves. */
static void spell(text *t, const char *s, uint64_t *rng)
{
    bool bare_ok = (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_' ||
                   ((s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && !strchr(s, '_') &&
                    !strchr(s, 'v') && !strchr(s, 'e') && !strchr(s, 'E'));
    uint32_t r = tu_below(rng, 4);
    char buf[80];
    if (bare_ok && r < 2) {
        put(t, s);
    } else if (r < 3 || strlen(s) < 2) {
        snprintf(buf, sizeof buf, "\"%s\"", s);
        put(t, buf);
    } else {
        size_t half = strlen(s) / 2;
        snprintf(buf, sizeof buf, "\"%.*s\" + \"%s\"", (int)half, s, s + half);
        put(t, buf);
    }
}

Test(dot_fast, numbered_names_read_alike)
{
    uint64_t rng = 0x5eed0017u;
    text t = {0};
    tally tl = {0};
    char what[64];
    enum { POOL = 48 };
    char pool[POOL][40];
    for (int i = 0; i < 2000; i++) {
        /* a pool of names ranked by position (duplicates share the first one's rank) */
        uint32_t m = 2 + tu_below(&rng, POOL - 1);
        for (uint32_t k = 0; k < m; k++)
            numbered_name(pool[k], sizeof pool[k], &rng);
        uint32_t order = tu_below(&rng, 3); /* 0: names in pool order, 1: reversed, 2: random */
        t.len = 0;
        put(&t, "digraph {\n");
        for (uint32_t k = 0; k < 2 * m; k++) {
            uint32_t a = order == 0 ? k / 2 : order == 1 ? m - 1 - k / 2 : tu_below(&rng, m);
            uint32_t rank_a = a, b = tu_below(&rng, m), rank_b = b;
            for (uint32_t j = 0; j < a; j++)
                if (strcmp(pool[j], pool[a]) == 0) {
                    rank_a = j;
                    break;
                }
            for (uint32_t j = 0; j < b; j++)
                if (strcmp(pool[j], pool[b]) == 0) {
                    rank_b = j;
                    break;
                }
            spell(&t, pool[a], &rng);
            /* edges from lower ranks to higher ones, but now and then one back (a cycle) */
            bool back = tu_below(&rng, 64) == 0;
            if (rank_a != rank_b && (rank_a < rank_b || back) && tu_below(&rng, 4) != 0) {
                put(&t, " -> ");
                spell(&t, pool[b], &rng);
            }
            put(&t, ";\n");
        }
        put(&t, "}\n");
        snprintf(what, sizeof what, "numbered text %d", i);
        compare(t.s, t.len, what, &tl);
    }
    free(t.s);
    cr_log_info("numbered texts: %zu fast, %zu through libcgraph, %zu refused", tl.fast,
                tl.fell_back, tl.refused);
    cr_assert_geq(tl.fast, 1000);
}

/* A large numbered tree written parent -> child in child order (the parents random references,
 * answered by the array of numbered events, and the children new names) and its variants with
 * some children named again, read alike; in the last, a name far past the others stops the
 * array early, so that the reader's own table is made. */
Test(dot_fast, numbered_tree_with_random_references_reads_alike)
{
    uint64_t rng = 0x5eed0018u;
    text t = {0};
    tally tl = {0};
    char line[96];
    for (int variant = 0; variant < 5; variant++) {
        uint32_t n = 30000;
        t.len = 0;
        put(&t, "digraph {\n");
        for (uint32_t v = 1; v < n; v++) {
            uint32_t parent = tu_below(&rng, v);
            snprintf(line, sizeof line, "e%u -> e%u;\n", parent, v);
            put(&t, line);
            if (variant >= 1 && tu_below(&rng, 50) == 0) { /* a name made before, again */
                snprintf(line, sizeof line, "e%u;\n", tu_below(&rng, v + 1));
                put(&t, line);
            }
            if (variant >= 2 && tu_below(&rng, 500) == 0) { /* a name past the others */
                snprintf(line, sizeof line, "e%u;\n", v + 1 + tu_below(&rng, 100));
                put(&t, line);
            }
            if (variant == 3 && tu_below(&rng, 300) == 0) { /* another prefix, leading zeros */
                snprintf(line, sizeof line, "x%u -> e0%u;\n", v, v);
                put(&t, line);
            }
            if (variant == 4 && v == 100) /* far past the numbers so far, named again later */
                put(&t, "e20005;\n");
        }
        put(&t, "}\n");
        compare(t.s, t.len, "numbered tree", &tl);
    }
    free(t.s);
    cr_assert_eq(tl.fast, 5);
}

Test(dot_fast, every_prefix_reads_alike)
{
    /* each text cut after every byte, so that every kind of token (names, numerals, quoted
     * strings with escapes and '+', comments, arrows, attribute lists) ends the input, right
     * before a page without access (compare) */
    static const char *const texts[] = {
        "digraph G { node [thread=t1]; a -> b -> c; a -> d [color=red]; e1 -> 12 -> 3.5;\n"
        " b [focus=true, obj=x]; \"q\\\"r\" + \"s\" -> a; // end\n c -> x1 /* c */ }\n",
        "strict digraph { \xEF\xBB\xBF a -> \"b\\\nc\"; # line\n x, y -> z; edge [w=1] }",
    };
    tally tl = {0};
    char what[64];
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        for (size_t cut = 0; cut <= strlen(texts[k]); cut++) {
            snprintf(what, sizeof what, "text %zu cut at %zu", k, cut);
            compare(texts[k], cut, what, &tl);
        }
    cr_assert_geq(tl.fast, 2);
    cr_assert_geq(tl.refused, 100);
}

/* ------------------------------------------------------------------------------------------ */
/* Out of memory                                                                              */

typedef hf_status (*reader_fn)(hf_ctx *ctx, const char *data, size_t len, hf_poset **out,
                               hf_error *err);

/* Read data once with `read` (status `first`: HF_OK, or HF_EUNSUPPORTED where the fast reader
 * gives up), counting its allocations, then once with each of them failing in turn: every such
 * read fails with HF_ENOMEM, says so, makes nothing and leaks nothing. */
static void each_allocation_fails(reader_fn read, const char *data, size_t len, hf_status first,
                                  const char *what)
{
    tu_chaos c = {.left = -1, .once = true};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *p = NULL;
    hf_error err;
    c.calls = 0;
    cr_assert_eq(read(ctx, data, len, &p, &err), first, "%s: %s", what, err.text);
    hf_poset_free(p);
    p = NULL;
    long total = c.calls;
    for (long n = 1; n <= total; n++) {
        c.left = n - 1;
        long live = c.live;
        hf_status st = read(ctx, data, len, &p, &err);
        cr_assert_eq(st, HF_ENOMEM, "%s, allocation %ld of %ld: %s", what, n, total,
                     hf_strerror(st));
        cr_assert_null(p);
        cr_assert(strstr(err.text, "out of memory"), "%s: %s", what, err.text);
        cr_assert_eq(c.live, live, "%s, allocation %ld: leak", what, n);
    }
    c.left = -1;
    hf_ctx_free(ctx);
}

Test(dot_fast, every_allocation_failure_is_reported)
{
    const char *inputs[] = {
        "digraph { node [thread=t]; a -> b, c [color=red]; b [focus=true, obj=o, access=r]; "
        "c [obj=\"p\" + \"q\"]; \"d\\\"e\" -> a }",
        "digraph { a -> b -> a }",
    };
    const hf_status first[] = {HF_OK, HF_EUNSUPPORTED}; /* a cycle: libcgraph's path explains */
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++)
        each_allocation_fails(hf_i_dot_read_fast, inputs[k], strlen(inputs[k]), first[k],
                              inputs[k]);
}

/* An order the fast reader read with numbered names places them at the first lookup: reading a
 * family or a focus list against it, or finding a name, with the allocation after k successes
 * failing (for every k), reports out of memory as such (never as an unknown name), leaks
 * nothing, and succeeds when tried again. */
Test(dot_fast, first_lookup_allocation_failures)
{
    static const char dot[] = "digraph { e0 -> e1 -> e2; e1 -> e3; e0 -> e4 }";
    static const char family[] = "e0 e1 e2 e3 e4\ne0 e4 e1 e3 e2\n";
    static const char focus[] = "e3\ne4\n";
    tu_chaos c = {.left = -1, .once = true};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    for (int what = 0; what < 3; what++) {
        bool failed = true;
        for (long k = 0; failed; k++) {
            c.left = -1;
            long live = c.live;
            hf_poset *p = NULL;
            hf_error err;
            cr_assert_eq(hf_i_dot_read_fast(ctx, dot, strlen(dot), &p, &err), HF_OK, "%s",
                         err.text);
            cr_assert_null(p->names.slots, "the names were placed by the reader");
            hf_family *f = NULL;
            uint32_t *ids = NULL, id = HF_NO_EVENT;
            size_t count = 0;
            hf_status st = HF_OK;
            for (int again = 0; again < 2; again++) {
                c.left = again ? -1 : k;
                c.calls = 0;
                err = (hf_error){0};
                if (what == 0)
                    st = hf_family_read_mem(p, family, strlen(family), &f, NULL, &err);
                else if (what == 1)
                    st = hf_focus_read_mem(p, focus, strlen(focus), &ids, &count, &err);
                else
                    st = hf_poset_find(p, "e3", &id);
                if (again == 0) {
                    failed = c.calls > k;
                    cr_assert_eq(st, failed ? HF_ENOMEM : HF_OK, "%d, k=%ld: %s (%s)", what, k,
                                 hf_strerror(st), err.text);
                    if (failed && what < 2)
                        cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
                    if (!failed)
                        break;
                } else {
                    cr_assert_eq(st, HF_OK, "%d, k=%ld, again: %s", what, k, err.text);
                }
            }
            if (what == 0)
                cr_assert_eq(hf_family_size(f), 2);
            if (what == 1)
                cr_assert(count == 2 && ids[0] == 3 && ids[1] == 4);
            if (what == 2)
                cr_assert_eq(id, 3);
            hf_family_free(f);
            hf_focus_free(p, ids);
            hf_poset_free(p);
            cr_assert_eq(c.live, live, "%d, k=%ld: leak", what, k);
        }
    }
    c.left = -1;
    hf_ctx_free(ctx);
}

/* ------------------------------------------------------------------------------------------ */
/* The compact order format                                                                   */

static const char labelled[] =
    "digraph { node [thread=t1]; a -> b -> c; a -> d [color=red]; node [thread=t2]; e -> c;\n"
    " b [focus=true, obj=x]; c [obj=y, access=r]; d [obj=x, access=read, focus=1];\n"
    " \"\" -> \"q\\\"r\" }";

static hf_poset *read_labelled(void)
{
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, labelled, strlen(labelled), &p, &err), HF_OK, "%s",
                 err.text);
    cr_assert_geq(hf_poset_thread_count(p), 2);
    cr_assert_geq(hf_poset_object_count(p), 2);
    return p;
}

Test(dot_fast, compact_format_round_trips)
{
    hf_poset *p = read_labelled();
    round_trip(p, "labelled");
    hf_poset_free(p);
    uint64_t rng = 16;
    for (int i = 0; i < 60; i++) {
        hf_poset *q = i % 3 == 0   ? tu_random_dag(1 + tu_below(&rng, 40), 1, 4, &rng)
                      : i % 3 == 1 ? tu_random_forest(1 + tu_below(&rng, 60), 1 + i % 4, &rng)
                                   : tu_random_inforest(1 + tu_below(&rng, 60), 2, &rng);
        round_trip(q, "random order");
        hf_poset_free(q);
    }
}

Test(dot_fast, damaged_compact_files_are_refused)
{
    hf_poset *p = read_labelled();
    size_t len;
    char *bytes = compact_bytes(p, &len);
    /* every prefix, and the whole with a byte more */
    char *longer = calloc(len + 1, 1);
    memcpy(longer, bytes, len);
    for (size_t cut = 0; cut <= len + 1; cut++) {
        page_end pe = page_end_copy(longer, cut); /* any read past the end faults */
        hf_poset *q = NULL;
        hf_error err;
        hf_status st = hf_order_read_mem(NULL, pe.data, cut, &q, &err);
        if (cut == len) {
            cr_assert_eq(st, HF_OK, "%s", err.text);
        } else {
            cr_assert_neq(st, HF_OK, "a file of %zu bytes out of %zu reads", cut, len);
            cr_assert_null(q);
            cr_assert(err.text[0] != '\0');
        }
        hf_poset_free(q);
        page_end_free(&pe);
    }
    free(longer);
    /* every byte changed: refused, or read as some well-formed poset (under the sanitizers) */
    size_t refused = 0;
    for (size_t i = 0; i < len; i++)
        for (int delta = 1; delta < 256; delta += 127) {
            char *copy = malloc(len);
            memcpy(copy, bytes, len);
            copy[i] = (char)(copy[i] + delta);
            hf_poset *q = NULL;
            hf_error err;
            hf_status st = hf_order_read_mem(NULL, copy, len, &q, &err);
            if (st == HF_OK)
                cr_assert_geq(hf_poset_size(q), 1);
            else
                refused++;
            hf_poset_free(q);
            free(copy);
        }
    cr_assert_geq(refused, len / 2);
    free(bytes);
    hf_poset_free(p);
    hf_poset *q = NULL;
    hf_error err;
    cr_assert_eq(hf_order_read_mem(NULL, "digraph{a}", 10, &q, &err), HF_EPARSE);
    cr_assert_eq(hf_order_read_mem(NULL, NULL, 0, NULL, &err), HF_EINVAL);
}

/* The largest block asked of the allocator (tracking_alloc). */
static size_t largest_block;

static void *tracking_malloc(size_t n, void *u)
{
    (void)u;
    largest_block = n > largest_block ? n : largest_block;
    return malloc(n);
}

static void *tracking_realloc(void *q, size_t n, void *u)
{
    (void)u;
    largest_block = n > largest_block ? n : largest_block;
    return realloc(q, n);
}

static void tracking_free(void *q, void *u)
{
    (void)u;
    free(q);
}

/* @p v as @p size little-endian bytes at f + *len, *len moved past them. */
static void put_le(unsigned char *f, size_t *len, uint64_t v, int size)
{
    for (int k = 0; k < size; k++)
        f[*len + (size_t)k] = (unsigned char)(v >> (8 * k));
    *len += (size_t)size;
}

/* The start of a compact order of one event named "a" into f: the header with @p flags and
 * the edge count @p m, then the name. Returns its length. */
static size_t compact_one_event(unsigned char *f, uint32_t flags, uint64_t m)
{
    static const unsigned char head[] = {'H', 'F', 'O', 'R', 'D', 'E', 'R', 0, 1, 0, 0, 0};
    size_t len = sizeof head;
    memcpy(f, head, sizeof head);
    put_le(f, &len, flags, 4); /* flags */
    put_le(f, &len, 1, 4);     /* n */
    put_le(f, &len, 0, 4);     /* reserved */
    put_le(f, &len, m, 8);     /* m */
    put_le(f, &len, 2, 8);     /* name bytes */
    f[len++] = 'a';
    f[len++] = 0;
    return len;
}

/* A label table whose counts claim far more bytes than the file has is refused as truncated
 * before anything is allocated for it (a file of 112 bytes from the order fuzzer asked for 2 GiB).
 */
Test(dot_fast, compact_label_counts_beyond_the_file_allocate_nothing)
{
    for (int objects = 0; objects <= 1; objects++) {
        unsigned char f[64];
        size_t len = compact_one_event(f, objects ? 4u : 2u, 0);
        put_le(f, &len, 0x10000000u, 4);       /* the table's count */
        put_le(f, &len, (uint64_t)1 << 40, 8); /* and its bytes */
        hf_allocator a = {tracking_malloc, tracking_realloc, tracking_free, NULL};
        hf_ctx *ctx = NULL;
        cr_assert_eq(hf_ctx_new(&a, NULL, NULL, &ctx), HF_OK);
        largest_block = 0;
        hf_poset *q = NULL;
        hf_error err;
        cr_assert_eq(hf_order_read_mem(ctx, (const char *)f, len, &q, &err), HF_EPARSE);
        cr_assert_null(q);
        cr_assert_str_eq(err.text, objects ? "compact order: truncated in its objects"
                                           : "compact order: truncated in its threads");
        cr_assert_lt(largest_block, (size_t)1 << 20, "asked for %zu bytes", largest_block);
        hf_ctx_free(ctx);
    }
}

/* An edge count beyond HF_MAX_ORDER_PAIRS is refused from the header, whatever follows. */
Test(dot_fast, compact_edge_count_beyond_the_limit)
{
    unsigned char f[64];
    size_t len = compact_one_event(f, 0, (uint64_t)HF_MAX_ORDER_PAIRS + 1);
    hf_poset *q = NULL;
    hf_error err;
    cr_assert_eq(hf_order_read_mem(NULL, (const char *)f, len, &q, &err), HF_ETOOLARGE);
    cr_assert_null(q);
    cr_assert_str_eq(err.text, "compact order: 4294967296 edges (at most 4294967295)");
}

Test(dot_fast, compact_format_allocation_failures)
{
    hf_poset *p = read_labelled();
    size_t len;
    char *bytes = compact_bytes(p, &len);
    hf_poset_free(p);
    each_allocation_fails(hf_order_read_mem, bytes, len, HF_OK, "compact");
    free(bytes);
}

/* ------------------------------------------------------------------------------------------ */
/* Many references to names seen before, in random order (the reader's own name table)       */

/* The prefix of event v's name: "n" (names of at most 7 bytes, which the reader's table keeps
 * whole), or long ones (kept as places in the text), or lengths on both sides of 7 bytes. */
static int name_mode;
static const char *prefix(uint32_t v)
{
    static const char *const mixed[] = {"abcdef", "abcde", "a"};
    return name_mode == 0 ? "n" : name_mode == 1 ? "event_with_a_long_name_" : mixed[v % 3];
}

/* Event v's name <prefix><v>: bare, quoted, joined with '+', or split by a backslash-newline. */
static void spelling(char *buf, size_t cap, uint32_t v, uint32_t form)
{
    const char *x = prefix(v);
    if (form == 0)
        snprintf(buf, cap, "%s%u", x, v);
    else if (form == 1)
        snprintf(buf, cap, "\"%s%u\"", x, v);
    else if (form == 2)
        snprintf(buf, cap, "\"%s\" + \"%u\"", x, v);
    else
        snprintf(buf, cap, "\"%s\\\n%u\"", x, v);
}

/* A random recursive tree on n events: node statements in id order (event 0 named by the
 * spelling `first0`), then its edges in random order, each name in one of several spellings. */
static char *random_references(uint32_t n, uint64_t *rng, const char *first0, size_t *len)
{
    text t = {0};
    char piece[256];
    put(&t, "digraph {\n");
    for (uint32_t v = 0; v < n; v++) {
        if (v == 0)
            snprintf(piece, sizeof piece, " %s\n", first0);
        else
            snprintf(piece, sizeof piece, v % 3 ? " %s%u\n" : " \"%s%u\"\n", prefix(v), v);
        put(&t, piece);
    }
    uint32_t *order = tu_random_perm(n - 1, rng);
    for (uint32_t k = 0; k + 1 < n; k++) {
        uint32_t v = order[k] + 1, u = tu_below(rng, v);
        char a[64], b[64];
        spelling(a, sizeof a, u, tu_below(rng, 4));
        spelling(b, sizeof b, v, tu_below(rng, 4));
        snprintf(piece, sizeof piece, " %s -> %s%s\n", a, b, k % 7 ? "" : " [color=red]");
        put(&t, piece);
    }
    put(&t, "}\n");
    free(order);
    *len = t.len;
    return t.s;
}

Test(dot_fast, many_references_to_known_names)
{
    uint64_t rng = 1616;
    const char *firsts[] = {"n0", "\"n0\"", "\"n\" + \"0\""};
    for (size_t k = 0; k < sizeof firsts / sizeof firsts[0]; k++) {
        size_t len;
        char *dot = random_references(6000, &rng, firsts[k], &len);
        tally t = {0};
        compare(dot, len, firsts[k], &t);
        cr_assert_eq(t.fast, 1, "%s", firsts[k]);
        free(dot);
    }
    /* long names, and names of 6 to 10 bytes (some of 7 and 8 that differ in their last byte) */
    const char *more[] = {"event_with_a_long_name_0", "abcdef0"};
    for (name_mode = 1; name_mode <= 2; name_mode++) {
        size_t len;
        char *dot = random_references(9000, &rng, more[name_mode - 1], &len);
        tally t = {0};
        compare(dot, len, more[name_mode - 1], &t);
        cr_assert_eq(t.fast, 1, "%s", more[name_mode - 1]);
        free(dot);
    }
    name_mode = 0;
}

/* Every allocation failing in turn: numbered names (the array of events by number grows) and
 * long names (the prefix is too long to be numbered: the reader's own table is made). */
Test(dot_fast, many_references_allocation_failures)
{
    uint64_t rng = 1617;
    const char *firsts[] = {"n0", "event_with_a_long_name_0"};
    for (name_mode = 0; name_mode <= 1; name_mode++) {
        size_t len;
        char *dot = random_references(5000, &rng, firsts[name_mode], &len);
        each_allocation_fails(hf_i_dot_read_fast, dot, len, HF_OK, firsts[name_mode]);
        free(dot);
    }
    name_mode = 0;
}

/* A tree written parent -> child in id order, as a large DOT file usually is (event i's parent
 * i / 2, or a random earlier event when `random_parent`): every line names a new event, so the
 * builder's table of names is reserved ahead from the rate of new names (past 8,192 events).
 * Some names are quoted, so that the builder's table is asked with and without the scout's
 * hash. */
static char *tree_in_order(uint32_t n, bool random_parent, uint64_t *rng, size_t *len)
{
    text t = {0};
    char piece[96];
    put(&t, "digraph g {\n");
    for (uint32_t v = 2; v <= n; v++) {
        uint32_t u = random_parent ? 1 + tu_below(rng, v - 1) : v / 2;
        snprintf(piece, sizeof piece, v % 5 ? "e%u -> e%u;\n" : "e%u -> \"e%u\";\n", u, v);
        put(&t, piece);
    }
    put(&t, "}\n");
    *len = t.len;
    return t.s;
}

Test(dot_fast, trees_named_in_order_read_alike)
{
    uint64_t rng = 1618;
    const uint32_t sizes[] = {8191, 8193, 9000, 40000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int random_parent = 0; random_parent < 2; random_parent++) {
            size_t len;
            char *dot = tree_in_order(sizes[k], random_parent, &rng, &len);
            char what[64];
            snprintf(what, sizeof what, "tree of %u events%s", sizes[k],
                     random_parent ? ", random parents" : "");
            tally t = {0};
            compare(dot, len, what, &t);
            cr_assert_eq(t.fast, 1, "%s", what);
            free(dot);
        }
}

Test(dot_fast, trees_named_in_order_allocation_failures)
{
    uint64_t rng = 1619;
    size_t len;
    char *dot = tree_in_order(40000, false, &rng, &len);
    each_allocation_fails(hf_i_dot_read_fast, dot, len, HF_OK, "tree named in order");
    free(dot);
}
