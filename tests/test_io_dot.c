/* Tests of the DOT reader and writer (lib/io_dot*.c): every accepted form with its exact events,
 * Hasse edges and focus marks; every rejected form with its status, message and line; round
 * trips; large and hostile inputs; libcgraph's process-wide state left as it was. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <graphviz/cgraph.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

TU_SUITE(io_dot);

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */

/* Read from an exact-size heap copy, so that any read past the end is caught by ASan. */
static hf_status read_len(const char *text, size_t len, hf_poset **p, hf_error *err)
{
    char *copy = malloc(len ? len : 1);
    if (len)
        memcpy(copy, text, len);
    hf_status st = hf_dot_read_mem(NULL, len ? copy : NULL, len, p, err);
    free(copy);
    return st;
}

static hf_status read_str(const char *text, hf_poset **p, hf_error *err)
{
    return read_len(text, strlen(text), p, err);
}

/* What a test expects a DOT text to mean: events in id order, the "before" pairs as written
 * (indices into names; duplicates and transitive pairs allowed), and focus marks ('1' = marked;
 * NULL = none marked). */
typedef struct expect {
    const char *const *names;
    uint32_t n;
    const uint32_t (*rel)[2];
    size_t m;
    const char *focus;
} expect;

#define NAMES(...)                                                                                 \
    .names = (const char *const[]){__VA_ARGS__},                                                   \
    .n = (uint32_t)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define REL(...)                                                                                   \
    .rel = (const uint32_t[][2]){__VA_ARGS__},                                                     \
    .m = sizeof((const uint32_t[][2]){__VA_ARGS__}) / sizeof(uint32_t[2])

/* Brute-force oracle: closure by Floyd-Warshall, covering pairs by definition. */
static bool *oracle_hasse(uint32_t n, const uint32_t (*rel)[2], size_t m)
{
    bool *lt = calloc((size_t)n * n + 1, 1);
    bool *cover = calloc((size_t)n * n + 1, 1);
    for (size_t i = 0; i < m; i++)
        lt[rel[i][0] * n + rel[i][1]] = true;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                if (lt[i * n + k] && lt[k * n + j])
                    lt[i * n + j] = true;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            if (!lt[i * n + j])
                continue;
            bool direct = true;
            for (uint32_t k = 0; k < n && direct; k++)
                if (lt[i * n + k] && lt[k * n + j])
                    direct = false;
            cover[i * n + j] = direct;
        }
    free(lt);
    return cover;
}

static void check_poset(const hf_poset *p, const expect *x)
{
    cr_assert_eq(hf_poset_size(p), x->n, "events: %u, expected %u", hf_poset_size(p), x->n);
    for (uint32_t i = 0; i < x->n; i++)
        cr_assert_str_eq(hf_poset_name(p, i), x->names[i], "event %u", i);
    bool *cover = oracle_hasse(x->n, x->rel, x->m);
    size_t want_edges = 0;
    for (uint32_t u = 0; u < x->n; u++) {
        uint32_t cnt = 0;
        const uint32_t *succ = hf_poset_hasse_succ(p, u, &cnt);
        for (uint32_t v = 0; v < x->n; v++) {
            bool has = false;
            for (uint32_t k = 0; k < cnt; k++)
                has = has || succ[k] == v;
            cr_assert_eq(has, cover[u * x->n + v], "Hasse edge %s -> %s: %d, expected %d",
                         x->names[u], x->names[v], has, cover[u * x->n + v]);
            want_edges += cover[u * x->n + v];
        }
    }
    cr_assert_eq(hf_poset_hasse_edge_count(p), want_edges);
    free(cover);
    uint32_t fc = 0;
    const uint32_t *focus = hf_poset_focus(p, &fc);
    uint32_t want = 0;
    for (uint32_t i = 0; x->focus && i < x->n; i++)
        want += x->focus[i] == '1';
    cr_assert_eq(fc, want, "focus events: %u, expected %u", fc, want);
    for (uint32_t k = 0; k < fc; k++)
        cr_assert(x->focus && x->focus[focus[k]] == '1', "event %s should not be a focus event",
                  x->names[focus[k]]);
}

static void accept(const char *dot, const expect *x)
{
    hf_poset *p = NULL;
    hf_error err;
    hf_status st = read_str(dot, &p, &err);
    cr_assert_eq(st, HF_OK, "rejected (%s, line %d: %s):\n%s", hf_strerror(st), err.line, err.text,
                 dot);
    check_poset(p, x);
    hf_poset_free(p);
}

/* Expect a failure with `status`, at `line` (-1: any line), and a message containing `words`
 * (separated by '|'). */
static void reject(const char *dot, size_t len, hf_status status, int line, const char *words)
{
    hf_poset *p = (hf_poset *)&p; /* must be reset to NULL */
    hf_error err;
    hf_status st = read_len(dot, len, &p, &err);
    cr_assert_eq(st, status, "status %s (%s), expected %s, for:\n%.200s", hf_strerror(st), err.text,
                 hf_strerror(status), dot);
    cr_assert_null(p);
    if (line >= 0)
        cr_assert_eq(err.line, line, "line %d, expected %d (%s)", err.line, line, err.text);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", words);
    for (char *w = strtok(buf, "|"); w; w = strtok(NULL, "|"))
        cr_assert(strstr(err.text, w) != NULL, "message \"%s\" lacks \"%s\"", err.text, w);
    cr_assert(strstr(err.text, "in line") == NULL, "position left in the text: %s", err.text);
    cr_assert(strstr(err.text, "(null)") == NULL, "garbage in the text: %s", err.text);
}

static void reject_str(const char *dot, hf_status status, int line, const char *words)
{
    reject(dot, strlen(dot), status, line, words);
}

/* Write with hf_dot_write into a string (caller frees). */
static char *write_dot(const hf_poset *p)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    cr_assert_not_null(out);
    cr_assert_eq(hf_dot_write(p, out), HF_OK);
    fclose(out);
    return buf;
}

/* The read-back poset equals p: same names in the same id order, same Hasse edges, same focus. */
static void check_same(const hf_poset *p, const hf_poset *q)
{
    uint32_t n = hf_poset_size(p);
    cr_assert_eq(hf_poset_size(q), n);
    for (uint32_t v = 0; v < n; v++) {
        cr_assert_str_eq(hf_poset_name(q, v), hf_poset_name(p, v), "event %u", v);
        uint32_t a = 0, b = 0;
        const uint32_t *sa = hf_poset_hasse_succ(p, v, &a);
        const uint32_t *sb = hf_poset_hasse_succ(q, v, &b);
        cr_assert_eq(a, b, "Hasse successors of %u", v);
        for (uint32_t k = 0; k < a; k++)
            cr_assert_eq(sa[k], sb[k]);
    }
    uint32_t fa = 0, fb = 0;
    const uint32_t *xa = hf_poset_focus(p, &fa);
    const uint32_t *xb = hf_poset_focus(q, &fb);
    cr_assert_eq(fa, fb);
    for (uint32_t k = 0; k < fa; k++)
        cr_assert_eq(xa[k], xb[k]);
}

static void round_trip(const hf_poset *p)
{
    char *text = write_dot(p);
    hf_poset *q = NULL;
    hf_error err;
    hf_status st = read_str(text, &q, &err);
    cr_assert_eq(st, HF_OK, "%s (line %d: %s) reading back:\n%.2000s", hf_strerror(st), err.line,
                 err.text, text);
    check_same(p, q);
    hf_poset_free(q);
    free(text);
}

/* fd 2 goes to a temporary file until stderr_end, which returns how many bytes arrived. */
typedef struct stderr_trap {
    int saved;
    FILE *tmp;
} stderr_trap;

static stderr_trap stderr_begin(void)
{
    stderr_trap t;
    fflush(stderr);
    t.saved = dup(2);
    t.tmp = tmpfile();
    cr_assert(t.saved >= 0 && t.tmp != NULL);
    dup2(fileno(t.tmp), 2);
    return t;
}

static long stderr_end(stderr_trap t)
{
    fflush(stderr);
    dup2(t.saved, 2);
    close(t.saved);
    fseek(t.tmp, 0, SEEK_END);
    long size = ftell(t.tmp);
    fclose(t.tmp);
    return size;
}

/* A growing string. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)k < b->cap - b->len) {
            b->len += (size_t)k;
            return;
        }
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Accepted forms                                                                             */

Test(io_dot, plain_edges_and_statement_separators)
{
    accept("digraph { a -> b; b -> c\n c -> d }",
           &(expect){NAMES("a", "b", "c", "d"), REL({0, 1}, {1, 2}, {2, 3})});
    accept("digraph G {\na -> b\n}\n", &(expect){NAMES("a", "b"), REL({0, 1})});
}

Test(io_dot, strict_digraph)
{
    accept("strict digraph { a -> b; a -> b; b -> c }",
           &(expect){NAMES("a", "b", "c"), REL({0, 1}, {1, 2})});
    accept("STRICT DiGraph x { y -> x }", &(expect){NAMES("y", "x"), REL({0, 1})});
}

Test(io_dot, edge_chains)
{
    accept("digraph { a -> b -> c -> d; e -> c }",
           &(expect){NAMES("a", "b", "c", "d", "e"), REL({0, 1}, {1, 2}, {2, 3}, {4, 2})});
}

Test(io_dot, node_groups_as_edge_ends)
{
    accept("digraph { {a b} -> c; c -> {d e}; {f g} -> {h} }",
           &(expect){NAMES("a", "b", "c", "d", "e", "f", "g", "h"),
                     REL({0, 2}, {1, 2}, {2, 3}, {2, 4}, {5, 7}, {6, 7})});
    accept("digraph { a, b -> c }", &(expect){NAMES("a", "b", "c"), REL({0, 2}, {1, 2})});
}

Test(io_dot, subgraphs_and_clusters)
{
    /* ids follow first appearance, wherever it is */
    accept("digraph {\n b\n subgraph cluster_1 { label=\"one\"; c -> a }\n"
           " subgraph { x } -> d\n subgraph s { e -> f } -> g\n"
           " { rank=same; h } -> subgraph t { i }\n}",
           &(expect){NAMES("b", "c", "a", "x", "d", "e", "f", "g", "h", "i"),
                     REL({1, 2}, {3, 4}, {5, 6}, {5, 7}, {6, 7}, {8, 9})});
    accept("digraph { subgraph cluster_a { subgraph cluster_b { p -> q } q -> r } }",
           &(expect){NAMES("p", "q", "r"), REL({0, 1}, {1, 2})});
}

Test(io_dot, ports_are_not_part_of_names)
{
    accept("digraph { a:p -> b:q:n; c:sw -> a:e; \"d\":\"x y\" -> b }",
           &(expect){NAMES("a", "b", "c", "d"), REL({0, 1}, {2, 0}, {3, 1})});
}

Test(io_dot, attributes_everywhere_and_labels_are_display_only)
{
    accept("digraph {\n graph [rankdir=LR, label=\"g\"]\n node [shape=box]\n edge [color=red]\n"
           " rankdir = TB; size=\"4,4\"\n a [label=\"b\", color=blue]\n"
           " a -> b [weight=2, label=<<b>x</b>>]\n b [label=a]; c [][]\n}",
           &(expect){NAMES("a", "b", "c"), REL({0, 1})});
}

Test(io_dot, quoted_utf8_and_keyword_names)
{
    accept("digraph { \"a b\" -> \"é\"; \"x\\\"y\" -> \"-1.5\"; \"node\" -> \"\"; "
           "é -> ü; -1.5 -> 7; \"semi;colon\"; \"a\" + \"bc\" }",
           &(expect){NAMES("a b", "é", "x\"y", "-1.5", "node", "", "ü", "7", "semi;colon", "abc"),
                     REL({0, 1}, {2, 3}, {4, 5}, {1, 6}, {3, 7})});
    /* an HTML-like ID is the text between the outer brackets */
    accept("digraph { <x> -> y }", &(expect){NAMES("x", "y"), REL({0, 1})});
}

Test(io_dot, names_are_read_as_graphviz_reads_them)
{
    /* inside quotes only \" and backslash-newline are escapes: \\ stays two backslashes, \n
     * stays a backslash and an n, and every spelling is a name of its own */
    accept("digraph { \"x\\\\y\" -> a; \"x\\y\" -> b }",
           &(expect){NAMES("x\\\\y", "a", "x\\y", "b"), REL({0, 1}, {2, 3})});
    accept("digraph { \"p\\nq\" -> a; \"p\nq\" -> b; \"C:\\new\" }",
           &(expect){NAMES("p\\nq", "a", "p\nq", "b", "C:\\new"), REL({0, 1}, {2, 3})});
    /* not a cycle: "a\\b" and "a\b" are two events */
    accept("digraph { \"a\\\\b\" -> x -> \"a\\b\" }",
           &(expect){NAMES("a\\\\b", "x", "a\\b"), REL({0, 1}, {1, 2}, {0, 2})});
    /* a lone backslash, an escaped quote, backslash-newline, a raw newline */
    accept("digraph { \"lone\\z\"; \"q\\\"x\"; \"x\\\n"
           "y\"; \"two\nlines\" -> z }",
           &(expect){NAMES("lone\\z", "q\"x", "xy", "two\nlines", "z"), REL({3, 4})});
    /* a newline standing alone between an escape and the closing quote is dropped, as
     * Graphviz drops it; HTML-like IDs keep their text as it is */
    accept("digraph { \"w\\\\\n\" -> <a\\> -> <\n> }",
           &(expect){NAMES("w\\\\", "a\\", "\n"), REL({0, 1}, {1, 2}, {0, 2})});
    /* thread names are attribute values, read the same way */
    const char *text = "digraph { a [thread=\"t\\\\1\"]; b [thread=\"t\\1\"] }";
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, text, strlen(text), &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_poset_thread_count(p), 2);
    cr_assert_str_eq(hf_poset_thread_name(p, 0), "t\\\\1");
    cr_assert_str_eq(hf_poset_thread_name(p, 1), "t\\1");
    hf_poset_free(p);
}

Test(io_dot, duplicate_and_transitive_edges)
{
    accept(
        "digraph { a -> b; a -> b; b -> c; a -> c; a -> b -> c -> d; a -> d }",
        &(expect){NAMES("a", "b", "c", "d"), REL({0, 1}, {0, 1}, {1, 2}, {0, 2}, {2, 3}, {0, 3})});
}

Test(io_dot, isolated_nodes)
{
    accept("digraph { a; b -> c; d\n e }", &(expect){NAMES("a", "b", "c", "d", "e"), REL({1, 2})});
    accept("digraph { lonely }", &(expect){NAMES("lonely"), .m = 0});
}

Test(io_dot, comments_of_every_kind)
{
    accept("# a shell comment line\n// a C++ comment\n/* a\n block */ digraph { /* x -> y */\n"
           " a -> b // c -> d\n # e -> f\n b -> c /* g\n -> h */ }\n// trailing\n/* end */\n",
           &(expect){NAMES("a", "b", "c"), REL({0, 1}, {1, 2})});
}

Test(io_dot, byte_order_mark_is_skipped)
{
    accept("\xEF\xBB\xBF"
           "digraph { a -> b }",
           &(expect){NAMES("a", "b"), REL({0, 1})});
}

Test(io_dot, focus_attribute_values)
{
    accept("digraph { a [focus=true]; b [focus=TRUE]; c [focus=1]; d [focus=Yes]; "
           "e [focus=false]; f [focus=0]; g [focus=no]; h [focus=\"\"]; i; j [focus=\"yes\"] }",
           &(expect){NAMES("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), .m = 0,
                     .focus = "1111000001"});
    /* defaults apply to later nodes, and a node's own value overrides them */
    accept("digraph { a; node [focus=true]; b; c [focus=false]; a -> d }",
           &(expect){NAMES("a", "b", "c", "d"), REL({0, 3}), .focus = "0101"});
    /* a default inside a subgraph applies to that subgraph's new nodes only */
    accept("digraph { subgraph { node [focus=true]; a } b; subgraph { node [focus=yes] } c }",
           &(expect){NAMES("a", "b", "c"), .m = 0, .focus = "100"});
    /* an attribute statement alone marks nothing */
    accept("digraph { x -> y; node [focus=true] }",
           &(expect){NAMES("x", "y"), REL({0, 1}), .focus = NULL});
}

Test(io_dot, focus_value_must_be_a_truth_value)
{
    reject_str("digraph { a; bee [focus=maybe] }", HF_EPARSE, -1, "bee|maybe|focus");
    reject_str("digraph { a [focus=\"true \"] }", HF_EPARSE, -1, "focus");
}

Test(io_dot, ids_follow_first_appearance)
{
    accept("digraph { d -> c; b; c -> a; subgraph { e } a [color=red] }",
           &(expect){NAMES("d", "c", "b", "a", "e"), REL({0, 1}, {1, 3})});
}

Test(io_dot, long_chain_statement_within_parser_limits)
{
    sbuf b = {0};
    sb_add(&b, "digraph {\n");
    const uint32_t k = 2000;
    for (uint32_t i = 0; i < k; i++)
        sb_add(&b, i ? " -> n%u" : "n%u", i);
    sb_add(&b, "\n}\n");
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(read_str(b.s, &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_poset_size(p), k);
    cr_assert_eq(hf_poset_hasse_edge_count(p), k - 1);
    cr_assert(hf_poset_shape(p) & HF_SHAPE_CHAIN);
    hf_poset_free(p);
    free(b.s);
}

Test(io_dot, deep_subgraph_nesting_within_parser_limits)
{
    sbuf b = {0};
    sb_add(&b, "digraph {\n");
    for (int i = 0; i < 1500; i++)
        sb_add(&b, "x%d -> { ", i);
    sb_add(&b, "leaf");
    for (int i = 0; i < 1500; i++)
        sb_add(&b, " }");
    sb_add(&b, "\n}\n");
    hf_poset *p = NULL;
    hf_error err;
    hf_status st = read_str(b.s, &p, &err);
    /* 1500 levels with a pending edge each are beyond the parser's stack: refused cleanly */
    cr_assert_eq(st, HF_ETOOLARGE, "%s", err.text);
    free(b.s);

    b = (sbuf){0};
    sb_add(&b, "digraph {\n");
    for (int i = 0; i < 1000; i++)
        sb_add(&b, "subgraph s%d { n%d ", i, i);
    for (int i = 0; i < 1000; i++)
        sb_add(&b, "}");
    sb_add(&b, "}");
    cr_assert_eq(read_str(b.s, &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_poset_size(p), 1000);
    cr_assert_str_eq(hf_poset_name(p, 999), "n999");
    hf_poset_free(p);
    free(b.s);
}

Test(io_dot, chain_of_200000_events_as_lines, .timeout = 120)
{
    const uint32_t n = 200000;
    sbuf b = {0};
    sb_add(&b, "digraph chain {\n");
    for (uint32_t i = 0; i + 1 < n; i++)
        sb_add(&b, "  e%u -> e%u\n", i, i + 1);
    sb_add(&b, "}\n");
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(read_str(b.s, &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_poset_size(p), n);
    cr_assert_eq(hf_poset_hasse_edge_count(p), n - 1);
    char name[32];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "e%u", i);
        cr_assert_str_eq(hf_poset_name(p, i), name);
        uint32_t cnt = 0;
        const uint32_t *succ = hf_poset_hasse_succ(p, i, &cnt);
        cr_assert_eq(cnt, i + 1 < n ? 1u : 0u);
        if (cnt)
            cr_assert_eq(succ[0], i + 1);
    }
    cr_assert_eq(hf_poset_height(p), n);
    hf_poset_free(p);
    free(b.s);
}

/* ------------------------------------------------------------------------------------------ */
/* Rejected forms                                                                             */

Test(io_dot, empty_input)
{
    reject_str("", HF_EPARSE, 0, "empty input");
    reject(NULL, 0, HF_EPARSE, 0, "empty input");
    reject_str(" \n\t\r\n  ", HF_EPARSE, 0, "empty input");
    reject_str("// nothing\n/* at\n all */\n# really\n", HF_EPARSE, 0, "empty input");
    reject_str("\xEF\xBB\xBF", HF_EPARSE, 0, "empty input");
}

Test(io_dot, graph_without_events)
{
    reject_str("digraph {}", HF_EPARSE, 1, "no events");
    reject_str("\n\n/* c */ digraph {\n node [shape=box]\n subgraph cluster_x { label=x }\n}",
               HF_EPARSE, 3, "no events");
}

Test(io_dot, syntax_errors_with_lines)
{
    reject_str("digraph {\n a -> b\n x y -> ;\n}", HF_EPARSE, 3, "syntax error near ';'");
    reject_str("digraph {\n a -> b\n}\n}\n", HF_EPARSE, 4, "syntax error near '}'");
    reject_str("digraph { a -> b -> }", HF_EPARSE, 1, "syntax error near '}'");
    reject_str("digraph { a -- b }", HF_EPARSE, 1, "syntax error");
    reject_str("{ a -> b }", HF_EPARSE, 1, "syntax error near '{'");
    reject_str("digraph a b { x }", HF_EPARSE, 1, "syntax error near 'b'");
    reject_str("digraph { a -> b }\njunk", HF_EPARSE, 2, "syntax error near 'junk'");
    reject_str("digraph { a \x01 }", HF_EPARSE, 1, "syntax error near '\\x01'");
    reject_str("digraph { a -> b } @ digraph { c }", HF_EPARSE, 1, "syntax error near '@'");
}

Test(io_dot, line_directives_are_honoured)
{
    reject_str("# 10 \"other.dot\"\ndigraph {\n a -> ; }", HF_EPARSE, 11, "syntax error near ';'");
    /* the file name of a directive does not leak into the next read */
    reject_str("digraph {\n\n a -> ; }", HF_EPARSE, 3, "syntax error near ';'");
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(read_str("# 10 \"other.dot\"\ndigraph {\n a -> ; }", &p, &err), HF_EPARSE);
    cr_assert(strstr(err.text, "other.dot") == NULL, "%s", err.text);
}

Test(io_dot, truncated_input)
{
    reject_str("digraph { a -> ", HF_EPARSE, 1, "syntax error at end of input");
    reject_str("digraph {\n a -> b", HF_EPARSE, 2, "end of input");
    reject_str("digraph", HF_EPARSE, 1, "end of input");
    reject_str("digraph { \"abc", HF_EPARSE, 1, "unterminated quoted string");
    reject_str("digraph {\n /* abc\n\n", HF_EPARSE, 2, "unterminated /* comment");
    reject_str("digraph {\n a [label=<<b>x</b>]\n}", HF_EPARSE, 2, "unterminated <");
    /* every proper prefix of a valid input is refused, never read as something else */
    const char *full = "strict digraph \"G\" {\n  a:p -> {b c} -> d [w=1];\n  "
                       "subgraph cluster_x { e [focus=true] }\n  /* c */ f -> \"g h\"\n}\n";
    size_t len = strlen(full);
    size_t close = (size_t)(strrchr(full, '}') - full);
    for (size_t k = 0; k < len; k++) {
        hf_poset *p = NULL;
        hf_error err;
        hf_status st = read_len(full, k, &p, &err);
        if (k <= close) {
            cr_assert_neq(st, HF_OK, "prefix of %zu bytes accepted", k);
            cr_assert_null(p);
            cr_assert(err.text[0] != '\0');
        } else {
            cr_assert_eq(st, HF_OK, "%zu: %s", k, err.text);
            cr_assert_eq(hf_poset_size(p), 7);
        }
        hf_poset_free(p);
    }
}

Test(io_dot, undirected_graphs)
{
    reject_str("graph { a -- b }", HF_EPARSE, 1, "undirected graph|digraph");
    reject_str("\n\nstrict Graph G {\n a -- b }", HF_EPARSE, 3, "undirected graph");
    reject_str("graph { a -> b }", HF_EPARSE, 1, "undirected graph");
    reject_str("graph {}", HF_EPARSE, 1, "undirected graph");
}

Test(io_dot, several_graphs)
{
    reject_str("digraph { a -> b }\n\n// next\ndigraph {\n c\n}\n", HF_EPARSE, 4,
               "several graphs|graph 2 starts at line 4");
    reject_str("digraph { a }  digraph { b } digraph { c }", HF_EPARSE, 1, "several graphs");
    reject_str("digraph { a }\ngraph { b -- c }", HF_EPARSE, 2, "several graphs");
    /* and the reader is not confused afterwards */
    accept("digraph { z }", &(expect){NAMES("z"), .m = 0});
}

Test(io_dot, nul_byte_is_binary_data)
{
    static const char text[] = "digraph { a -> b\0 }";
    reject(text, sizeof text - 1, HF_EPARSE, 1, "NUL|binary");
    static const char quoted[] = "digraph {\n \"a\0b\" }";
    reject(quoted, sizeof quoted - 1, HF_EPARSE, 2, "NUL");
    static const char comment[] = "digraph { a } // \0";
    reject(comment, sizeof comment - 1, HF_EPARSE, 1, "NUL");
}

Test(io_dot, self_loops)
{
    reject_str("digraph { a -> b; b -> b }", HF_ESELFLOOP, -1, "b");
    reject_str("strict digraph { a -> a }", HF_ESELFLOOP, -1, "a");
    reject_str("digraph { {x y} -> {y} }", HF_ESELFLOOP, -1, "y");
}

Test(io_dot, cycles_are_named)
{
    reject_str("digraph { a -> b -> c -> a; c -> d }", HF_ECYCLE, -1, "cycle|a|b|c");
    reject_str("digraph { p -> q; q -> p }", HF_ECYCLE, -1, "p -> q|q -> p");
}

Test(io_dot, names_too_long)
{
    sbuf b = {0};
    sb_add(&b, "digraph { \"start");
    for (int i = 0; i < 5000; i++)
        sb_add(&b, "x");
    sb_add(&b, "\" -> b }");
    reject(b.s, b.len, HF_ETOOLARGE, -1, "4096|start");
    free(b.s);
    b = (sbuf){0};
    sb_add(&b, "digraph {\n bare");
    for (int i = 0; i < 5000; i++)
        sb_add(&b, "y");
    sb_add(&b, " -> b }");
    reject(b.s, b.len, HF_ETOOLARGE, 2, "4096|bare");
    free(b.s);
    /* exactly at the limit is fine */
    b = (sbuf){0};
    sb_add(&b, "digraph { \"");
    for (unsigned i = 0; i < HF_MAX_NAME; i++)
        sb_add(&b, "z");
    sb_add(&b, "\" }");
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(read_str(b.s, &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(strlen(hf_poset_name(p, 0)), HF_MAX_NAME);
    hf_poset_free(p);
    free(b.s);
}

Test(io_dot, long_token_in_a_syntax_error)
{
    /* libcgraph's own message is longer than its 1024-byte buffer here */
    sbuf b = {0};
    sb_add(&b, "digraph a ");
    for (int i = 0; i < 3000; i++)
        sb_add(&b, "b");
    sb_add(&b, " { x }");
    reject(b.s, b.len, HF_EPARSE, 1, "syntax error near 'bbbb|...");
    free(b.s);
    b = (sbuf){0};
    sb_add(&b, "digraph {\n ");
    for (int i = 0; i < 3000; i++)
        sb_add(&b, "7");
    sb_add(&b, "a }");
    reject(b.s, b.len, HF_EPARSE, 2, "ambiguous name '7777");
    free(b.s);
}

Test(io_dot, ambiguous_numbers)
{
    reject_str("digraph {\n 12a -> b }", HF_EPARSE, 2, "ambiguous name '12a'");
    accept("digraph { \"12a\" -> 1.5 -> .5 -> -3 }",
           &(expect){NAMES("12a", "1.5", ".5", "-3"), REL({0, 1}, {1, 2}, {2, 3})});
}

Test(io_dot, names_reserved_by_graphviz)
{
    reject_str("digraph { \"%x\" -> y }", HF_EPARSE, -1, "'%'");
    reject_str("digraph { a -> % }", HF_EPARSE, 1, "syntax error near '%'");
}

Test(io_dot, edge_chain_beyond_parser_limits)
{
    sbuf b = {0};
    sb_add(&b, "digraph {\n");
    for (uint32_t i = 0; i < 3000; i++)
        sb_add(&b, i ? " -> n%u" : "n%u", i);
    sb_add(&b, "\n}\n");
    reject(b.s, b.len, HF_ETOOLARGE, 2, "edge chain|split");
    free(b.s);
    b = (sbuf){0};
    sb_add(&b, "digraph {\n");
    for (int i = 0; i < 4000; i++)
        sb_add(&b, "{");
    sb_add(&b, "a");
    for (int i = 0; i < 4000; i++)
        sb_add(&b, "}");
    sb_add(&b, "}");
    reject(b.s, b.len, HF_ETOOLARGE, 2, "nested");
    free(b.s);
    /* libcgraph is left in a state that reads the next input correctly */
    accept("digraph { a -> b }", &(expect){NAMES("a", "b"), REL({0, 1})});
}

/* Random valid inputs whose parser stack use is near its 10000-entry limit: an edge chain
 * pending around nested subgraphs, or nested subgraphs around a chain, with edges pending on
 * several levels. Each is read, or refused by the pre-scan before the parser runs; libcgraph's
 * own overflow, which would leave it broken, never happens. (libcgraph's time grows with depth
 * times size, so the deep parts stay small.) */
static void random_operand(sbuf *b, uint64_t *rng, unsigned long *counter)
{
    switch (tu_below(rng, 6)) {
    case 0:
        sb_add(b, "n%lu, n%lu", *counter, *counter + 1);
        (*counter)++;
        break;
    case 1:
        sb_add(b, "n%lu:p:n", *counter);
        break;
    case 2:
        sb_add(b, "\"q%lu\" + \"r\"", *counter);
        break;
    case 3:
        sb_add(b, "subgraph { m%lu }", *counter);
        break;
    default:
        sb_add(b, "n%lu", *counter);
        break;
    }
    (*counter)++;
}

static void open_levels(sbuf *b, uint64_t *rng, uint32_t depth, uint32_t pending,
                        unsigned long *counter)
{
    for (uint32_t i = 0; i < depth; i++) {
        if (tu_below(rng, 40) == 0)
            sb_add(b, tu_below(rng, 2) ? "p%lu; " : "p%lu ", (*counter)++);
        if (tu_below(rng, depth) < pending)
            sb_add(b, "x%lu -> ", (*counter)++);
        switch (tu_below(rng, 3)) {
        case 0:
            sb_add(b, "{ ");
            break;
        case 1:
            sb_add(b, "subgraph { ");
            break;
        default:
            sb_add(b, "subgraph s%lu { ", (*counter)++);
            break;
        }
    }
}

static void close_levels(sbuf *b, uint64_t *rng, uint32_t depth)
{
    for (uint32_t i = 0; i < depth; i++)
        sb_add(b, tu_below(rng, 2) ? "} " : "}\n");
}

static void random_chain(sbuf *b, uint64_t *rng, uint32_t len, unsigned long *counter)
{
    random_operand(b, rng, counter);
    for (uint32_t i = 0; i < len; i++) {
        sb_add(b, tu_below(rng, 2) ? " -> " : "->");
        if (tu_below(rng, 100) == 0) { /* a nested operand in the middle */
            uint32_t d = tu_below(rng, 30);
            open_levels(b, rng, d, 0, counter);
            sb_add(b, "k%lu ", (*counter)++);
            close_levels(b, rng, d);
        } else {
            random_operand(b, rng, counter);
        }
    }
}

Test(io_dot, parser_stack_guard_is_conservative, .timeout = 300)
{
    uint64_t rng = 31337;
    sbuf b = {0};
    int read = 0, refused = 0;
    for (int it = 0; it < 60; it++) {
        unsigned long counter = 0;
        b.len = 0;
        sb_add(&b, "digraph {\n");
        uint32_t pending = tu_below(&rng, 20);
        if (it % 2) { /* chain, then nesting inside its last operand */
            uint32_t chain = 1000 + tu_below(&rng, 1500), depth = tu_below(&rng, 700);
            random_chain(&b, &rng, chain, &counter);
            sb_add(&b, " -> ");
            open_levels(&b, &rng, depth, pending, &counter);
            sb_add(&b, "y");
            close_levels(&b, &rng, depth);
        } else { /* nesting, then a chain inside */
            uint32_t depth = tu_below(&rng, 12), chain = 2000 + tu_below(&rng, 500);
            open_levels(&b, &rng, depth, pending % 3, &counter); /* few edges to all below */
            random_chain(&b, &rng, chain, &counter);
            sb_add(&b, tu_below(&rng, 2) ? " [w=1]\n" : "\n");
            close_levels(&b, &rng, depth);
        }
        sb_add(&b, "}\n");
        hf_poset *p = NULL;
        hf_error err;
        hf_status st = read_len(b.s, b.len, &p, &err);
        cr_assert(strstr(err.text, "ran out of stack") == NULL, "iteration %d: %s", it, err.text);
        cr_assert(st == HF_OK || st == HF_ETOOLARGE, "iteration %d: %s (%s)", it, hf_strerror(st),
                  err.text);
        if (st == HF_OK)
            read++;
        else
            refused++;
        hf_poset_free(p);
    }
    cr_assert(read > 10 && refused > 10, "%d read, %d refused", read, refused);
    free(b.s);
}

Test(io_dot, invalid_arguments)
{
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, "digraph{a}", 10, NULL, &err), HF_EINVAL);
    hf_poset *p = (hf_poset *)&p;
    cr_assert_eq(hf_dot_read_mem(NULL, NULL, 3, &p, &err), HF_EINVAL);
    cr_assert_null(p);
    cr_assert_eq(hf_dot_read_file(NULL, NULL, &p, NULL), HF_EINVAL);
    cr_assert_eq(hf_dot_write(NULL, stdout), HF_EINVAL);
    /* err may be NULL */
    cr_assert_eq(hf_dot_read_mem(NULL, "graph{}", 7, &p, NULL), HF_EPARSE);
}

/* ------------------------------------------------------------------------------------------ */
/* libcgraph's process-wide state                                                             */

static int other_handler_calls;
static int other_handler(char *msg)
{
    (void)msg;
    other_handler_calls++;
    return 0;
}

Test(io_dot, libcgraph_error_state_is_restored)
{
    agseterrf(other_handler);
    agseterr(AGMAX);
    agreseterrors();
    const char *bad[] = {"digraph { a -> ; }", "digraph {\n 1x }", "graph { a -- b }",
                         "digraph { a }\ndigraph { b }", "digraph { a } junk"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hf_poset *p = NULL;
        hf_error err;
        cr_assert_neq(read_str(bad[i], &p, &err), HF_OK);
    }
    cr_assert_eq(agseterrf(NULL), other_handler);
    cr_assert_eq(agseterr(AGWARN), AGMAX);
    cr_assert_eq(agerrors(), 0);
    cr_assert_eq(other_handler_calls, 0);
}

Test(io_dot, unread_input_of_another_libcgraph_user_is_not_read)
{
    /* agmemread leaves the second graph in libcgraph's scanner buffer */
    Agraph_t *g = agmemread("digraph { mine } digraph { stale -> stale2 }");
    cr_assert_not_null(g);
    agclose(g);
    accept("digraph { a -> b }", &(expect){NAMES("a", "b"), REL({0, 1})});
}

Test(io_dot, nothing_reaches_stderr)
{
    const char *bad[] = {"digraph { a -> ; }",
                         "digraph {\n 12a -> b }",
                         "graph { a -- b }",
                         "digraph { \"abc",
                         "digraph { /* x",
                         "digraph { <a",
                         "digraph {}",
                         "digraph { a } digraph { b }",
                         "digraph { a -> a }",
                         "digraph { a -> b -> a }",
                         "digraph { a [focus=bad] }",
                         "digraph { node x = [a=b] y }",
                         "digraph { a [@x] }",
                         "digraph { \"%q\" }",
                         "# 3 \"f.dot\"\ndigraph { ] }",
                         "\x01\x02\xff",
                         "digraph { a } }"};
    stderr_trap t = stderr_begin();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hf_poset *p = NULL;
        hf_error err;
        hf_status st = read_str(bad[i], &p, &err);
        hf_poset_free(p);
        (void)st;
    }
    sbuf b = {0};
    sb_add(&b, "digraph x ");
    for (int i = 0; i < 3000; i++)
        sb_add(&b, "q");
    sb_add(&b, " { }");
    hf_poset *p = NULL;
    hf_error err;
    (void)read_str(b.s, &p, &err);
    free(b.s);
    long written = stderr_end(t);
    cr_assert_eq(written, 0, "%ld bytes reached stderr", written);
}

/* ------------------------------------------------------------------------------------------ */
/* Hostile input                                                                              */

static void hostile(const char *text, size_t len)
{
    hf_poset *p = NULL;
    hf_error err;
    hf_status st = read_len(text, len, &p, &err);
    cr_assert(st == HF_OK || st == HF_EPARSE || st == HF_ESELFLOOP || st == HF_ECYCLE ||
                  st == HF_ETOOLARGE,
              "unexpected status %s (%s)", hf_strerror(st), err.text);
    if (st == HF_OK) {
        cr_assert_not_null(p);
        round_trip(p);
    } else {
        cr_assert_null(p);
        cr_assert(err.text[0] != '\0');
        cr_assert(strstr(err.text, "(null)") == NULL, "%s", err.text);
    }
    hf_poset_free(p);
}

Test(io_dot, binary_junk)
{
    uint64_t rng = 7;
    char buf[256];
    stderr_trap t = stderr_begin();
    for (int it = 0; it < 1500; it++) {
        size_t len = tu_below(&rng, sizeof buf);
        bool nul = it % 3 == 0;
        for (size_t i = 0; i < len; i++) {
            buf[i] = (char)tu_below(&rng, 256);
            if (!nul && buf[i] == 0)
                buf[i] = 1;
        }
        hostile(buf, len);
        /* junk after a valid graph, and a valid graph's body full of junk */
        char mix[300];
        int k = snprintf(mix, sizeof mix, "digraph { a -> b ");
        memcpy(mix + k, buf, len < 200 ? len : 200);
        hostile(mix, (size_t)k + (len < 200 ? len : 200));
    }
    cr_assert_eq(stderr_end(t), 0);
}

Test(io_dot, token_soup)
{
    static const char *const tokens[] = {
        "digraph", "graph",      "strict",      "subgraph", "node",    "edge",      "{",
        "}",       "{",          "}",           "->",       "->",      "--",        ";",
        ",",       ":",          "=",           "[",        "]",       "a",         "b",
        "c",       "d",          "a",           "b",        "\"q r\"", "é",         "1",
        "-2.5",    "3x",         "\"",          "<",        ">",       "<b>",       "/*",
        "*/",      "//",         "#",           "\n",       " ",       "@",         "+",
        "\"s\"",   "focus=true", "focus=maybe", "\"%p\"",   "\\",      "cluster_1", "\xEF\xBB\xBF"};
    const size_t nt = sizeof tokens / sizeof tokens[0];
    uint64_t rng = 99;
    sbuf b = {0};
    stderr_trap t = stderr_begin();
    for (int it = 0; it < 3000; it++) {
        b.len = 0;
        /* half of them start like a graph, to get past the header */
        if (it % 2)
            sb_add(&b, "digraph { ");
        size_t k = tu_below(&rng, 40);
        for (size_t i = 0; i < k; i++)
            sb_add(&b, "%s ", tokens[tu_below(&rng, (uint32_t)nt)]);
        if (it % 4 == 1)
            sb_add(&b, "}");
        hostile(b.s ? b.s : "", b.len);
    }
    cr_assert_eq(stderr_end(t), 0);
    free(b.s);
}

/* Random valid DOT with an independent account of what it means: nodes are numbered by a
 * hidden rank and every edge goes from a lower to a higher rank, so the text describes a DAG
 * whose events (in order of first appearance), relation and focus marks the generator records
 * as it writes. Operands are single nodes (with ports), node lists and nested subgraphs. */
typedef struct gen {
    uint64_t *rng;
    sbuf *b;
    uint32_t n;        /* node pool size */
    char (*names)[32]; /* names[i]: the event name of node i */
    uint32_t *order;   /* nodes in order of first appearance */
    uint32_t seen;     /* how many appeared */
    bool *appeared;
    uint32_t (*rel)[2];
    size_t m, rel_cap;
    char *focus; /* '0' / '1' per node, by node number */
    unsigned long subgraphs;
} gen;

static void gen_name(gen *g, uint32_t v)
{
    const char *name = g->names[v];
    bool bare = strchr(name, ' ') == NULL && strchr(name, '"') == NULL &&
                strchr(name, '\\') == NULL && name[0] != '-';
    if (bare && tu_below(g->rng, 3) != 0) {
        sb_add(g->b, "%s", name);
    } else {
        sb_add(g->b, "\"");
        for (const char *c = name; *c; c++)
            sb_add(g->b, *c == '"' ? "\\\"" : "%c", *c); /* Graphviz: only \" is an escape */
        sb_add(g->b, "\"");
    }
    if (!g->appeared[v]) {
        g->appeared[v] = true;
        g->order[g->seen++] = v;
    }
}

static void gen_statements(gen *g, const uint32_t *nodes, uint32_t k, int depth);

/* An operand made of the nodes[0..k) (sorted by rank). */
static void gen_operand(gen *g, const uint32_t *nodes, uint32_t k, int depth)
{
    uint32_t how = tu_below(g->rng, 4);
    if (k == 1 && how == 0) {
        gen_name(g, nodes[0]);
        sb_add(g->b, tu_below(g->rng, 2) ? ":p" : ":p:sw");
    } else if (how <= 1 || depth >= 3) {
        for (uint32_t i = 0; i < k; i++) {
            if (i)
                sb_add(g->b, ", ");
            gen_name(g, nodes[i]);
        }
    } else {
        switch (tu_below(g->rng, 3)) {
        case 0:
            sb_add(g->b, "{ ");
            break;
        case 1:
            sb_add(g->b, "subgraph { ");
            break;
        default:
            sb_add(g->b, "subgraph cluster_%lu { ", g->subgraphs++);
            break;
        }
        gen_statements(g, nodes, k, depth + 1);
        sb_add(g->b, "}");
    }
}

/* Statements mentioning exactly the nodes[0..k): chains over consecutive runs, node statements. */
static void gen_statements(gen *g, const uint32_t *nodes, uint32_t k, int depth)
{
    uint32_t at = 0;
    while (at < k) {
        uint32_t len = 1 + tu_below(g->rng, k - at);
        const uint32_t *s = nodes + at;
        if (len == 1 && tu_below(g->rng, 2)) {
            gen_name(g, s[0]);
            static const char *const vals[] = {"true",  "TRUE", "1",  "yes",  "Yes",
                                               "false", "0",    "no", "\"\"", "False"};
            uint32_t v = tu_below(g->rng, 10);
            sb_add(g->b, " [label=\"l\", focus=%s]", vals[v]);
            g->focus[s[0]] = v < 5 ? '1' : '0';
        } else {
            /* split into operands of consecutive runs; edges between neighbours */
            uint32_t start = 0, prev_start = 0, prev_len = 0;
            while (start < len) {
                uint32_t olen = 1 + tu_below(g->rng, len - start < 3 ? len - start : 3);
                if (start)
                    sb_add(g->b, tu_below(g->rng, 2) ? " -> " : "->");
                gen_operand(g, s + start, olen, depth);
                for (uint32_t i = 0; start && i < prev_len; i++)
                    for (uint32_t j = 0; j < olen; j++) {
                        if (g->m == g->rel_cap)
                            g->rel = realloc(g->rel,
                                             (g->rel_cap = 2 * g->rel_cap + 16) * sizeof *g->rel);
                        g->rel[g->m][0] = s[prev_start + i];
                        g->rel[g->m][1] = s[start + j];
                        g->m++;
                    }
                prev_start = start;
                prev_len = olen;
                start += olen;
            }
            if (tu_below(g->rng, 4) == 0)
                sb_add(g->b, " [weight=2]");
        }
        switch (tu_below(g->rng, 3)) {
        case 0:
            sb_add(g->b, "; ");
            break;
        case 1:
            sb_add(g->b, "\n");
            break;
        default:
            sb_add(g->b, " ");
            break;
        }
        at += len;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

Test(io_dot, random_valid_dot_against_its_meaning)
{
    uint64_t rng = 4242;
    static const char *const shapes[][2] = {{"n", ""},      {"é", ""},    {"", ""},
                                            {"-", ".5"},    {"a b", ""},  {"x\"", ""},
                                            {"back\\", ""}, {"node", ""}, {"_", "_"}};
    sbuf b = {0};
    for (int it = 0; it < 300; it++) {
        uint32_t n = 1 + tu_below(&rng, 30);
        gen g = {.rng = &rng, .b = &b, .n = n};
        g.names = calloc(n, sizeof *g.names);
        g.order = calloc(n, sizeof *g.order);
        g.appeared = calloc(n, sizeof *g.appeared);
        g.focus = malloc(n + 1);
        memset(g.focus, '0', n);
        g.focus[n] = '\0';
        for (uint32_t i = 0; i < n; i++) {
            uint32_t sh = tu_below(&rng, 9);
            snprintf(g.names[i], sizeof g.names[i], "%s%u%s", shapes[sh][0], i, shapes[sh][1]);
        }
        b.len = 0;
        sb_add(&b, tu_below(&rng, 2) ? "strict digraph {\n" : "digraph \"G\" {\n");
        uint32_t stmts = 1 + tu_below(&rng, 8);
        uint32_t *pick = malloc(n * sizeof *pick);
        for (uint32_t t = 0; t < stmts || g.seen == 0; t++) {
            uint32_t k = 1 + tu_below(&rng, n < 8 ? n : 8);
            for (uint32_t i = 0; i < k; i++)
                pick[i] = tu_below(&rng, n);
            qsort(pick, k, sizeof *pick, cmp_u32);
            uint32_t u = 0; /* distinct, sorted */
            for (uint32_t i = 0; i < k; i++)
                if (u == 0 || pick[u - 1] != pick[i])
                    pick[u++] = pick[i];
            gen_statements(&g, pick, u, 0);
        }
        sb_add(&b, "}\n");

        /* the expectation, renumbered by first appearance */
        uint32_t *id = malloc(n * sizeof *id);
        const char **names = malloc(g.seen * sizeof *names);
        char *focus = malloc(g.seen + 1);
        for (uint32_t i = 0; i < g.seen; i++) {
            id[g.order[i]] = i;
            names[i] = g.names[g.order[i]];
            focus[i] = g.focus[g.order[i]];
        }
        focus[g.seen] = '\0';
        uint32_t(*rel)[2] = malloc((g.m + 1) * sizeof *rel);
        for (size_t i = 0; i < g.m; i++) {
            rel[i][0] = id[g.rel[i][0]];
            rel[i][1] = id[g.rel[i][1]];
        }
        bool any_focus = strchr(focus, '1') != NULL;
        expect x = {.names = names,
                    .n = g.seen,
                    .rel = (const uint32_t(*)[2])rel,
                    .m = g.m,
                    .focus = any_focus ? focus : NULL};
        accept(b.s, &x);

        free(rel);
        free(focus);
        free(names);
        free(id);
        free(pick);
        free(g.rel);
        free(g.focus);
        free(g.appeared);
        free(g.order);
        free(g.names);
    }
    free(b.s);
}

/* ------------------------------------------------------------------------------------------ */
/* Writing and round trips                                                                    */

Test(io_dot, writer_output_shape)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    const char *names[] = {"a", "b c", "node", ""};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(hf_poset_builder_add_event(b, names[i], NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 1), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 1, 2), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 2), HF_OK); /* transitive: not written */
    cr_assert_eq(hf_poset_builder_set_focus(b, 1), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK);
    hf_poset_builder_free(b);
    char *text = write_dot(p);
    cr_assert_str_eq(text, "digraph {\n  a\n  \"b c\" [focus=true]\n  \"node\"\n  \"\"\n"
                           "  a -> \"b c\"\n  \"b c\" -> \"node\"\n}\n");
    free(text);
    round_trip(p);
    hf_poset_free(p);
}

Test(io_dot, writer_reports_stream_errors)
{
    hf_poset *p = tu_chain(3);
    FILE *ro = fopen("/dev/null", "r");
    cr_assert_not_null(ro);
    cr_assert_eq(hf_dot_write(p, ro), HF_EIO);
    fclose(ro);
    hf_poset_free(p);
}

/* A random order over awkward names, with random focus marks. */
static hf_poset *awkward_poset(uint32_t n, uint64_t *rng)
{
    static const char *const pool[] = {"a b",    "x\"y",   "é",           "-1.5",      "node",
                                       "",       "Graph",  "back\\slash", "new\nline", "tab\there",
                                       "semi;",  "ends\\", "\\n",         "q\"\"",     "{}",
                                       "->",     "1e5",    ".5",          "_ok",       "ünïcødé",
                                       "<html>", "a:b",    "#x",          "//",        "/*"};
    const uint32_t np = sizeof pool / sizeof pool[0];
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
    for (uint32_t i = 0; i < n; i++) {
        char name[64];
        if (i < np && tu_below(rng, 3) != 0)
            snprintf(name, sizeof name, "%s", pool[i]);
        else
            snprintf(name, sizeof name, "%s%u", pool[tu_below(rng, np)], i);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK, "%s", name);
        perm[i] = i;
    }
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_below(rng, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (tu_below(rng, 5) == 0)
                cr_assert_eq(hf_poset_builder_add_order(b, perm[i], perm[j]), HF_OK);
    for (uint32_t i = 0; i < n; i++)
        if (tu_below(rng, 4) == 0)
            cr_assert_eq(hf_poset_builder_set_focus(b, i), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    free(perm);
    return p;
}

Test(io_dot, round_trip_random_orders)
{
    uint64_t rng = 2024;
    for (int it = 0; it < 60; it++) {
        uint32_t n = 1 + tu_below(&rng, 40);
        hf_poset *p = NULL;
        switch (it % 6) {
        case 0:
            p = tu_random_dag(n, 1, 4, &rng);
            break;
        case 1:
            p = tu_random_forest(n, 1 + tu_below(&rng, 3), &rng);
            break;
        case 2:
            p = tu_random_inforest(n, 1 + tu_below(&rng, 3), &rng);
            break;
        case 3:
            p = tu_chain(n);
            break;
        case 4:
            p = tu_antichain(n);
            break;
        default:
            p = tu_double_tree(1 + tu_below(&rng, 4));
            break;
        }
        round_trip(p);
        hf_poset_free(p);
    }
}

Test(io_dot, round_trip_awkward_names_and_focus)
{
    uint64_t rng = 77;
    for (int it = 0; it < 80; it++) {
        hf_poset *p = awkward_poset(1 + tu_below(&rng, 35), &rng);
        round_trip(p);
        hf_poset_free(p);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Streams, allocation failures, threads                                                      */

Test(io_dot, read_file_and_io_errors)
{
    const char *text = "digraph {\n a -> b [focus=1]\n c\n}\n";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_file(NULL, in, &p, &err), HF_OK, "%s", err.text);
    fclose(in);
    check_poset(p, &(expect){NAMES("a", "b", "c"), REL({0, 1}), .focus = "000"});
    hf_poset_free(p);

    /* a file larger than the reader's first block */
    FILE *tmp = tmpfile();
    fprintf(tmp, "digraph {\n");
    for (int i = 0; i < 20000; i++)
        fprintf(tmp, "  v%d -> v%d\n", i, i + 1);
    fprintf(tmp, "}\n");
    rewind(tmp);
    cr_assert_eq(hf_dot_read_file(NULL, tmp, &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_poset_size(p), 20001);
    hf_poset_free(p);
    fclose(tmp);

    /* errors keep their lines */
    const char *bad = "digraph {\n\n a -> }";
    in = fmemopen((void *)bad, strlen(bad), "r");
    cr_assert_eq(hf_dot_read_file(NULL, in, &p, &err), HF_EPARSE);
    cr_assert_eq(err.line, 3);
    fclose(in);

    /* a stream that cannot be read */
    FILE *wo = fopen("/dev/null", "w");
    cr_assert_not_null(wo);
    p = (hf_poset *)&p;
    cr_assert_eq(hf_dot_read_file(NULL, wo, &p, &err), HF_EIO);
    cr_assert_null(p);
    fclose(wo);
}

Test(io_dot, every_allocation_failure_is_reported)
{
    const char *inputs[] = {
        ("digraph {\n a -> b -> c\n subgraph cluster_1 { d [focus=true]; d -> \"e\\\\f\" }\n"
         " g; a -> c; node [focus=yes] h\n}\n"),
        "digraph { a -> b -> a }",
        "digraph { x [focus=perhaps] }",
    };
    const hf_status want[] = {HF_OK, HF_ECYCLE, HF_EPARSE};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
        /* one run to prime libcgraph, one to count; then each allocation n fails alone (once) */
        tu_chaos c = {.left = -1, .once = true};
        hf_ctx *ctx = tu_chaos_ctx(&c);
        hf_poset *p = NULL;
        hf_error err;
        for (int run = 0; run < 2; run++) {
            c.calls = 0;
            cr_assert_eq(hf_dot_read_mem(ctx, inputs[k], strlen(inputs[k]), &p, &err), want[k],
                         "%s", err.text);
            hf_poset_free(p);
            p = NULL;
        }
        long total = c.calls;
        cr_assert(total > 3);
        for (long n = 1; n <= total; n++) {
            c.left = n - 1;
            long live_before = c.live;
            hf_status st = hf_dot_read_mem(ctx, inputs[k], strlen(inputs[k]), &p, &err);
            cr_assert_eq(st, HF_ENOMEM, "input %zu, allocation %ld of %ld: %s (%s)", k, n, total,
                         hf_strerror(st), err.text);
            cr_assert_null(p);
            cr_assert(strstr(err.text, "out of memory") != NULL, "%s", err.text);
            cr_assert_eq(c.live, live_before, "input %zu, allocation %ld: leak", k, n);
        }
        /* and a read after all that still works */
        c.left = -1;
        cr_assert_eq(hf_dot_read_mem(ctx, inputs[k], strlen(inputs[k]), &p, &err), want[k]);
        hf_poset_free(p);
        hf_ctx_free(ctx);
        cr_assert_eq(c.live, 0);
    }
}

typedef struct reader_job {
    int seed;
    int failures;
} reader_job;

static void *reader_thread(void *arg)
{
    reader_job *job = arg;
    char text[256];
    for (int i = 0; i < 300; i++) {
        int k = job->seed * 1000 + i;
        bool good = i % 2 == 0;
        if (good)
            snprintf(text, sizeof text, "digraph { t%d -> u%d -> v%d; w%d [focus=true] }", k, k, k,
                     k);
        else
            snprintf(text, sizeof text, "digraph {\n\n t%d -> ; }", k);
        hf_poset *p = NULL;
        hf_error err;
        hf_status st = hf_dot_read_mem(NULL, text, strlen(text), &p, &err);
        char name[32];
        snprintf(name, sizeof name, "t%d", k);
        if (good && (st != HF_OK || hf_poset_size(p) != 4 || strcmp(hf_poset_name(p, 0), name)))
            job->failures++;
        if (!good && (st != HF_EPARSE || err.line != 3 || !strstr(err.text, "near ';'")))
            job->failures++;
        hf_poset_free(p);
    }
    return NULL;
}

Test(io_dot, concurrent_readers)
{
    pthread_t th[4];
    reader_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (reader_job){i + 1, 0};
        cr_assert_eq(pthread_create(&th[i], NULL, reader_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(jobs[i].failures, 0, "thread %d: %d wrong results", i, jobs[i].failures);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The example files in tests/data/dot                                                        */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    sbuf b = {0};
    char chunk[4096];
    size_t got;
    sb_add(&b, "%s", "");
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + got + 1 > b.cap) {
            b.cap = (b.len + got + 1) * 2;
            b.s = realloc(b.s, b.cap);
        }
        memcpy(b.s + b.len, chunk, got);
        b.len += got;
    }
    fclose(f);
    *len = b.len;
    return b.s;
}

Test(io_dot, example_files)
{
    const char *root = getenv("HITFAM_SOURCE_ROOT");
    cr_assert_not_null(root, "HITFAM_SOURCE_ROOT is not set");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/data/dot", root);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int accepted = 0, rejected = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        if (nl < 4 || strcmp(name + nl - 4, ".dot") != 0)
            continue;
        bool good = strncmp(name, "accept_", 7) == 0;
        cr_assert(good || strncmp(name, "reject_", 7) == 0, "unexpected file %s", name);
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t len = 0;
        char *text = slurp(path, &len);
        hf_poset *p = NULL;
        hf_error err;
        hf_status st = read_len(text, len, &p, &err);
        if (good) {
            cr_assert_eq(st, HF_OK, "%s: %s (line %d)", name, err.text, err.line);
            cr_assert(hf_poset_size(p) > 0);
            round_trip(p);
            accepted++;
        } else {
            cr_assert_neq(st, HF_OK, "%s was accepted", name);
            cr_assert(err.text[0] != '\0');
            rejected++;
        }
        hf_poset_free(p);
        free(text);
    }
    closedir(d);
    cr_assert(accepted >= 10 && rejected >= 10, "%d accepted, %d rejected files", accepted,
              rejected);
}
