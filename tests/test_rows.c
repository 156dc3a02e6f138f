/* Rows on demand (hf_gen_options.row_first/row_last, gen --rows): a slice of a family is
 * exactly those rows of the whole family's stream, for every method, in the library's sink
 * path and in the text and JSON writers; bad ranges are refused with a message; every
 * allocation may fail. */
#define _GNU_SOURCE /* open_memstream */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hitfam/stream.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(rows);

/* The whole family (or the slice a..b, b 0: to the end) of p under opt, collected. */
static hf_status collect(const hf_poset *p, hf_gen_options opt, uint64_t a, uint64_t b,
                         tu_collect *out, hf_error *err)
{
    *out = (tu_collect){hf_poset_size(p), 0, 0, NULL};
    opt.row_first = a;
    opt.row_last = b;
    return hf_generate(p, &opt, tu_collect_sink(out), NULL, err);
}

/* Every row of c is a linear extension of p by the edges the test chose. */
static void assert_extensions(const hf_poset *p, const tu_collect *c)
{
    uint32_t n = hf_poset_size(p);
    uint32_t *pos = malloc((n ? n : 1) * sizeof *pos);
    for (size_t i = 0; i < c->m; i++) {
        for (uint32_t k = 0; k < n; k++)
            pos[c->rows[i * n + k]] = k;
        cr_assert(tu_respects_edges(p, pos), "row %zu is no linear extension", i + 1);
    }
    free(pos);
}

/* Slice a..b (b 0: to the end) of p equals rows a..b of `whole`. */
static void assert_slice(const hf_poset *p, const hf_gen_options *opt, const tu_collect *whole,
                         uint64_t a, uint64_t b, const char *what)
{
    tu_collect s;
    hf_error err;
    hf_status st = collect(p, *opt, a, b, &s, &err);
    cr_assert_eq(st, HF_OK, "%s rows %lu:%lu: %s", what, (unsigned long)a, (unsigned long)b,
                 err.text);
    uint64_t last = b ? b : whole->m;
    cr_assert_eq(s.m, last - a + 1, "%s rows %lu:%lu: %zu rows of %zu", what, (unsigned long)a,
                 (unsigned long)b, s.m, whole->m);
    uint32_t n = whole->n;
    cr_assert(s.m == 0 ||
                  memcmp(s.rows, whole->rows + (a - 1) * n, s.m * (size_t)n * sizeof *s.rows) == 0,
              "%s rows %lu:%lu differ from the whole family's", what, (unsigned long)a,
              (unsigned long)b);
    free(s.rows);
}

/* A row beyond the family: HF_EINVAL with a message naming it. */
static void assert_beyond(const hf_poset *p, const hf_gen_options *opt, uint64_t a, uint64_t b,
                          const char *what)
{
    tu_collect s;
    hf_error err;
    hf_status st = collect(p, *opt, a, b, &s, &err);
    cr_assert_eq(st, HF_EINVAL, "%s rows %lu:%lu: status %d", what, (unsigned long)a,
                 (unsigned long)b, (int)st);
    cr_assert(strstr(err.text, "is beyond the family"), "%s: %s", what, err.text);
    free(s.rows);
}

/* Every slice of a small family, random ones of a larger one, and the rows beyond it. The
 * methods that build the whole family for a slice (and auto, which weighs exact on small
 * orders) cost a whole run per slice: a few slices of theirs. */
static void check_slices(const hf_poset *p, const hf_gen_options *opt, uint64_t *rng,
                         const char *what)
{
    hf_method m0 = opt->method;
    bool few = m0 == HF_METHOD_AUTO || m0 == HF_METHOD_GREEDY || m0 == HF_METHOD_EXACT ||
               m0 == HF_METHOD_CHAINS || hf_method_is_sampler(m0);
    tu_collect whole;
    hf_error err;
    hf_status st = collect(p, *opt, 0, 0, &whole, &err);
    cr_assert_eq(st, HF_OK, "%s: %s", what, err.text);
    cr_assert_gt(whole.m, 0);
    assert_extensions(p, &whole);
    uint64_t m = whole.m;
    if (m <= 10 && !few) {
        for (uint64_t a = 1; a <= m; a++) {
            assert_slice(p, opt, &whole, a, 0, what);
            for (uint64_t b = a; b <= m; b++)
                assert_slice(p, opt, &whole, a, b, what);
        }
    } else {
        assert_slice(p, opt, &whole, 1, 1, what);
        assert_slice(p, opt, &whole, m, 0, what);
        if (!few) {
            assert_slice(p, opt, &whole, m, m, what);
            assert_slice(p, opt, &whole, 1, 0, what);
        }
        for (int i = 0; i < (few ? 2 : 6); i++) {
            uint64_t a = 1 + tu_below(rng, (uint32_t)m);
            uint64_t b = a + tu_below(rng, (uint32_t)(m - a + 1));
            assert_slice(p, opt, &whole, a, b, what);
            assert_slice(p, opt, &whole, a, a, what);
        }
    }
    assert_beyond(p, opt, m + 1, 0, what);
    if (!few) {
        assert_beyond(p, opt, m + 1, m + 1, what);
        assert_beyond(p, opt, 1, m + 1, what);
        assert_beyond(p, opt, UINT64_MAX, 0, what);
    }
    free(whole.rows);
}

static hf_gen_options options(unsigned d, hf_method m, uint64_t seed)
{
    hf_gen_options opt = tu_gen_options(d, m, NULL, 0);
    opt.seed = seed;
    return opt;
}

Test(rows, tree_methods_on_forests_and_in_forests)
{
    uint64_t rng = 11;
    for (int round = 0; round < 6; round++) {
        uint32_t n = 2 + tu_below(&rng, 14);
        uint32_t roots = 1 + tu_below(&rng, 3);
        hf_poset *p =
            round % 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        const struct {
            hf_method m;
            unsigned d;
        } cases[] = {{HF_METHOD_DFS, 1},        {HF_METHOD_DFS, 2},    {HF_METHOD_DOUBLETREE, 3},
                     {HF_METHOD_SIMPLE, 3},     {HF_METHOD_SIMPLE, 4}, {HF_METHOD_PATTERN, 3},
                     {HF_METHOD_PATTERN, 4},    {HF_METHOD_AUTO, 3},   {HF_METHOD_AUTO, 4},
                     {HF_METHOD_DOUBLETREE, 3}, {HF_METHOD_CHAINS, 3}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            hf_gen_options opt = options(cases[c].d, cases[c].m, 0);
            char what[96];
            snprintf(what, sizeof what, "%s d=%u round %d (n=%u)", hf_method_name(cases[c].m),
                     cases[c].d, round, n);
            if (c == 9) { /* doubletree on the order induced by a focus set */
                uint32_t focus[] = {0, n / 2, n - 1};
                opt.focus = focus;
                opt.focus_count = 3;
                check_slices(p, &opt, &rng, what);
                continue;
            }
            if (cases[c].m == HF_METHOD_CHAINS && n > 9)
                continue;
            check_slices(p, &opt, &rng, what);
        }
        /* simple with the paper's pruning (prefixes from the focus set; forests only) */
        if (round % 2) {
            hf_poset_free(p);
            continue;
        }
        uint32_t focus[] = {n - 1, 0};
        hf_gen_options opt = options(4, HF_METHOD_SIMPLE, 0);
        opt.focus = focus;
        opt.focus_count = 2;
        opt.focus_prefix = true;
        check_slices(p, &opt, &rng, "simple d=4 focus_prefix");
        hf_poset_free(p);
    }
}

Test(rows, trees_with_many_rows)
{
    uint64_t rng = 5;
    hf_poset *t = tu_complete_binary(5);
    hf_poset *f = tu_random_forest(40, 2, &rng);
    const struct {
        hf_method m;
        unsigned d;
    } cases[] = {{HF_METHOD_DFS, 2},    {HF_METHOD_DOUBLETREE, 3}, {HF_METHOD_SIMPLE, 3},
                 {HF_METHOD_SIMPLE, 4}, {HF_METHOD_PATTERN, 4},    {HF_METHOD_AUTO, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hf_gen_options opt = options(cases[c].d, cases[c].m, 0);
        check_slices(t, &opt, &rng, hf_method_name(cases[c].m));
        check_slices(f, &opt, &rng, hf_method_name(cases[c].m));
    }
    hf_poset_free(t);
    hf_poset_free(f);
}

/* Method pattern deduplicates its rows by their hashes over the whole walk, so a row's index
 * depends on every pattern before it. Every slice (A, B) of families of up to 12 rows, every
 * single row of families of up to 25, some 10 single rows and random slices of larger ones
 * equal the whole family's rows: d = 3 and 4 in the three pattern families and d = 5
 * (canonical, up to 12 events, every third order) on random forests and in-forests (virtual roots,
 * gadget nodes), d = 3, 4, 5 on the complete binary trees T_1..T_4 (d = 5 up to T_3). */
static void check_every_slice(const hf_poset *p, const hf_gen_options *opt, uint64_t *rng,
                              const char *what)
{
    tu_collect whole;
    hf_error err;
    hf_status st = collect(p, *opt, 0, 0, &whole, &err);
    cr_assert_eq(st, HF_OK, "%s: %s", what, err.text);
    uint64_t m = whole.m;
    cr_assert_gt(m, 0, "%s", what);
    if (m <= 12) {
        for (uint64_t a = 1; a <= m; a++)
            for (uint64_t b = a; b <= m; b++)
                assert_slice(p, opt, &whole, a, b, what);
    } else {
        for (uint64_t a = 1; a <= m; a += m <= 25 ? 1 : m / 10)
            assert_slice(p, opt, &whole, a, a, what);
        assert_slice(p, opt, &whole, m, m, what);
        for (int i = 0; i < 4; i++) {
            uint64_t a = 1 + tu_below(rng, (uint32_t)m);
            uint64_t b = a + tu_below(rng, (uint32_t)(m - a + 1));
            assert_slice(p, opt, &whole, a, b, what);
            assert_slice(p, opt, &whole, a, 0, what);
        }
    }
    assert_beyond(p, opt, m + 1, m + 1, what);
    free(whole.rows);
}

Test(rows, pattern_every_slice)
{
    uint64_t rng = 41;
    const hf_pattern_mode modes[] = {HF_PATTERN_CANONICAL, HF_PATTERN_REALISED, HF_PATTERN_ALL};
    for (int round = 0; round < 9; round++) {
        uint32_t n = 3 + tu_below(&rng, round < 7 ? 10 : 30);
        uint32_t roots = 1 + tu_below(&rng, 3);
        hf_poset *p =
            round % 3 == 2 ? tu_random_inforest(n, roots, &rng) : tu_random_forest(n, roots, &rng);
        for (unsigned d = 3; d <= 5; d++)
            for (int mo = 0; mo < 3; mo++) {
                /* d = 5 walks thousands of patterns per run, and each slice is a run */
                if (d == 5 && (mo > 0 || n > 12 || round % 3 != 0))
                    continue;
                if (mo == 2 && n > 12)
                    continue;
                hf_gen_options opt = options(d, HF_METHOD_PATTERN, 0);
                opt.pattern_mode = modes[mo];
                char what[96];
                snprintf(what, sizeof what, "pattern d=%u mode %d round %d (n=%u)", d, mo, round,
                         n);
                check_every_slice(p, &opt, &rng, what);
            }
        hf_poset_free(p);
    }
    for (uint32_t h = 1; h <= 4; h++) {
        hf_poset *t = tu_complete_binary(h);
        for (unsigned d = 3; d <= 5; d++) {
            if (h == 4 && d == 5)
                continue;
            hf_gen_options opt = options(d, HF_METHOD_PATTERN, 0);
            char what[96];
            snprintf(what, sizeof what, "pattern d=%u on T_%u", d, h);
            check_every_slice(t, &opt, &rng, what);
        }
        hf_poset_free(t);
    }
}

/* A pattern slice is generated in one walk that stops after its last row (the prediction ran
 * the guard's walks): on every plane tree of up to 8 events at d = 3 (7 at d = 4), every slice of
 * families of up to 12 rows and single rows of the larger ones equal the whole family's. */
static void pattern_levels(const uint32_t *lev, uint32_t n, void *user)
{
    char text[40];
    for (uint32_t i = 0; i < n; i++)
        text[i] = (char)('0' + lev[i]);
    text[n] = 0;
    hf_poset *p = tu_tree_from_levels(text);
    for (unsigned d = 3; d <= (n < 8 ? 4u : 3u); d++) {
        hf_gen_options opt = options(d, HF_METHOD_PATTERN, 0);
        char what[96];
        snprintf(what, sizeof what, "pattern d=%u on the tree %s", d, text);
        check_every_slice(p, &opt, user, what);
    }
    hf_poset_free(p);
}

Test(rows, pattern_every_small_tree)
{
    uint64_t rng = 53;
    for (uint32_t n = 1; n <= 8; n++)
        tu_each_level_sequence(n, false, pattern_levels, &rng);
}

Test(rows, antichains_dags_and_the_samplers)
{
    uint64_t rng = 29;
    for (uint32_t n = 1; n <= 9; n += 2) {
        hf_poset *a = tu_antichain(n);
        for (unsigned d = 2; d <= 3; d++) {
            hf_gen_options opt = options(d, HF_METHOD_SCRAMBLE, 0);
            check_slices(a, &opt, &rng, "scramble");
        }
        hf_gen_options opt = options(3, HF_METHOD_GREEDY, 1);
        if (n <= 7)
            check_slices(a, &opt, &rng, "greedy antichain");
        hf_poset_free(a);
    }
    for (int round = 0; round < 4; round++) {
        uint32_t n = 3 + tu_below(&rng, 5);
        hf_poset *p = tu_random_dag(n, 1, 3, &rng);
        const struct {
            hf_method m;
            unsigned d;
            uint64_t count;
        } cases[] = {
            {HF_METHOD_DFS, 1, 0},    {HF_METHOD_CHAINS, 3, 0},  {HF_METHOD_GREEDY, 3, 0},
            {HF_METHOD_RANDOM, 3, 0}, {HF_METHOD_RANDOM, 2, 17}, {HF_METHOD_RW, 2, 0},
            {HF_METHOD_PCT, 3, 0},    {HF_METHOD_POS, 2, 0},     {HF_METHOD_BASICPOS, 2, 9},
            {HF_METHOD_EXACT, 2, 0},  {HF_METHOD_AUTO, 3, 0}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            hf_gen_options opt = options(cases[c].d, cases[c].m, 3 + (uint64_t)round);
            opt.count = cases[c].count;
            char what[96];
            snprintf(what, sizeof what, "%s d=%u round %d (n=%u)", hf_method_name(cases[c].m),
                     cases[c].d, round, n);
            if (hf_method_check(p, &opt, NULL) != HF_OK)
                continue;
            check_slices(p, &opt, &rng, what);
        }
        hf_poset_free(p);
    }
}

/* A family written by a writer made when hf_generate_ex announces it, as gen does: the header
 * gives the whole family's size and, for a slice, the rows. Returns the malloc'd output. */
typedef struct written {
    const hf_poset *p;
    hf_format format;
    unsigned d;
    uint64_t a, b;
    FILE *out;
    hf_writer *w;
} written;

static hf_status written_begin(void *user, const hf_gen_info *info)
{
    written *g = user;
    hf_family_header h = {
        g->d, hf_method_name(info->method), info->schedules_known, info->schedules, g->a, g->b};
    if (g->a && !g->b)
        h.row_last = info->schedules;
    return hf_writer_new(g->p, g->out, g->format, &h, &g->w);
}

static hf_status written_put(void *user, const uint32_t *s, uint32_t n)
{
    hf_sink ws = hf_writer_sink(((written *)user)->w);
    return ws.put(ws.user, s, n);
}

static char *write_rows_len(const hf_poset *p, hf_gen_options opt, hf_format format, uint64_t a,
                            uint64_t b, size_t *len_out)
{
    char *buf = NULL;
    size_t len = 0;
    written g = {p, format, opt.d, a, b, open_memstream(&buf, &len), NULL};
    cr_assert(g.out);
    opt.row_first = a;
    opt.row_last = b;
    hf_error err;
    hf_status st =
        hf_generate_ex(p, &opt, written_begin, &g, (hf_sink){written_put, &g}, NULL, &err);
    cr_assert_eq(st, HF_OK, "%s", err.text);
    cr_assert_eq(hf_writer_close(g.w), HF_OK);
    fclose(g.out);
    if (len_out)
        *len_out = len;
    return buf;
}

static char *write_rows(const hf_poset *p, hf_gen_options opt, hf_format format, uint64_t a,
                        uint64_t b)
{
    return write_rows_len(p, opt, format, a, b, NULL);
}

/* The slice a..last written as ids and bin reads back, whole and streamed, as rows a..last
 * with the schedules of `f` (the text slice read back). */
static hf_status count_schedule(void *user, const uint32_t *s, uint32_t n, size_t index,
                                size_t line)
{
    (void)s;
    (void)n;
    (void)index;
    (void)line;
    ++*(size_t *)user;
    return HF_OK;
}

static void check_ids_and_bin(const hf_poset *p, const hf_gen_options *opt, uint64_t a, uint64_t b,
                              uint64_t last, const hf_family *f)
{
    const hf_format formats[] = {HF_FORMAT_IDS, HF_FORMAT_BIN};
    for (size_t k = 0; k < 2; k++) {
        size_t len;
        char *buf = write_rows_len(p, *opt, formats[k], a, b, &len);
        hf_family *g = NULL;
        hf_family_header h;
        hf_error err;
        cr_assert_eq(hf_family_read_mem(p, buf, len, &g, &h, &err), HF_OK, "%s", err.text);
        cr_assert_eq(hf_family_size(g), last - a + 1);
        cr_assert_eq(h.row_first, a, "format %d: row_first %lu", (int)formats[k],
                     (unsigned long)h.row_first);
        cr_assert_eq(h.row_last, last);
        for (size_t i = 0; i < hf_family_size(f); i++)
            cr_assert(memcmp(hf_family_schedule(f, i), hf_family_schedule(g, i),
                             hf_poset_size(p) * sizeof(uint32_t)) == 0);
        size_t streamed = 0;
        hf_family_header hs;
        cr_assert_eq(hf_family_stream_mem(p, buf, len, 7, count_schedule, &streamed, &hs, &err),
                     HF_OK, "%s", err.text);
        cr_assert_eq(streamed, last - a + 1);
        cr_assert_eq(hs.row_first, a);
        cr_assert_eq(hs.row_last, last);
        hf_family_free(g);
        free(buf);
    }
}

/* Line k (0-based) of text, copied. */
static char *line_of(const char *text, size_t k)
{
    for (; k > 0; k--) {
        text = strchr(text, '\n');
        cr_assert(text);
        text++;
    }
    const char *end = strchr(text, '\n');
    return strndup(text, end ? (size_t)(end - text) : strlen(text));
}

/* The text slice is the header with rows= added, then exactly those lines of the whole output;
 * the JSON slice is a JSON document with those schedules; both read back (the text reader
 * checks the slice's count against rows=), and so do the ids and bin slices. */
static void check_written(const hf_poset *p, const hf_gen_options *opt, uint64_t a, uint64_t b,
                          uint64_t m)
{
    char *whole = write_rows(p, *opt, HF_FORMAT_TEXT, 0, 0);
    char *text = write_rows(p, *opt, HF_FORMAT_TEXT, a, b);
    uint64_t last = b ? b : m;
    char *h0 = line_of(whole, 0), *h1 = line_of(text, 0), want[160];
    /* the end of a:, when the size is not known beforehand, is not known to the header */
    bool known = strstr(h0, " schedules=") != NULL;
    if (known || b)
        snprintf(want, sizeof want, "%s rows=%lu:%lu", h0, (unsigned long)a, (unsigned long)last);
    else
        snprintf(want, sizeof want, "%s rows=%lu:", h0, (unsigned long)a);
    cr_assert_str_eq(h1, want);
    free(h0);
    free(h1);
    for (uint64_t r = a; r <= last; r++) {
        char *x = line_of(whole, r), *y = line_of(text, r - a + 1);
        cr_assert_str_eq(x, y, "row %lu", (unsigned long)r);
        free(x);
        free(y);
    }
    size_t lines = 0; /* and nothing after the last */
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    cr_assert_eq(lines, last - a + 2);
    hf_family *f = NULL, *g = NULL;
    hf_family_header h;
    hf_error err;
    cr_assert_eq(hf_family_read_mem(p, text, strlen(text), &f, &h, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(f), last - a + 1);
    cr_assert_eq(h.row_first, a);
    cr_assert_eq(h.row_last, last);
    char *json = write_rows(p, *opt, HF_FORMAT_JSON, a, b);
    if (known || b)
        snprintf(want, sizeof want, "\"rows\": [%lu, %lu]", (unsigned long)a, (unsigned long)last);
    else
        snprintf(want, sizeof want, "\"rows\": [%lu, null]", (unsigned long)a);
    cr_assert(strstr(json, want), "%s", json);
    cr_assert_eq(hf_family_read_mem(p, json, strlen(json), &g, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(g), last - a + 1);
    for (size_t i = 0; i < hf_family_size(f); i++)
        cr_assert(memcmp(hf_family_schedule(f, i), hf_family_schedule(g, i),
                         hf_poset_size(p) * sizeof(uint32_t)) == 0);
    check_ids_and_bin(p, opt, a, b, last, f);
    hf_family_free(f);
    hf_family_free(g);
    free(whole);
    free(text);
    free(json);
}

Test(rows, text_and_json_output)
{
    uint64_t rng = 7;
    hf_poset *t = tu_random_forest(12, 2, &rng);
    hf_poset *d = tu_random_dag(6, 1, 3, &rng);
    const struct {
        hf_poset *p;
        hf_method m;
        unsigned d;
    } cases[] = {{t, HF_METHOD_DFS, 2},     {t, HF_METHOD_DOUBLETREE, 3}, {t, HF_METHOD_SIMPLE, 4},
                 {t, HF_METHOD_PATTERN, 4}, {d, HF_METHOD_AUTO, 3},       {d, HF_METHOD_GREEDY, 3},
                 {d, HF_METHOD_CHAINS, 3},  {d, HF_METHOD_RANDOM, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hf_gen_options opt = options(cases[c].d, cases[c].m, 2);
        tu_collect whole;
        cr_assert_eq(collect(cases[c].p, opt, 0, 0, &whole, NULL), HF_OK);
        uint64_t m = whole.m;
        free(whole.rows);
        /* greedy spends a fixed budget of local search per run: one slice */
        for (int i = 0; i < (cases[c].m == HF_METHOD_GREEDY ? 1 : 4); i++) {
            uint64_t a = 1 + tu_below(&rng, (uint32_t)m);
            uint64_t b = i == 0 ? 0 : a + tu_below(&rng, (uint32_t)(m - a + 1));
            check_written(cases[c].p, &opt, a, b, m);
        }
    }
    hf_poset_free(t);
    hf_poset_free(d);
}

Test(rows, text_reader_checks_the_slice)
{
    hf_poset *p = tu_chain(2);
    const struct {
        const char *text;
        hf_status st;
        const char *msg;
    } cases[] = {
        {"# hitfam 0 d=2 events=2 schedules=5 rows=2:3\ne0 e1\ne0 e1\n", HF_OK, NULL},
        {"# hitfam 0 d=2 events=2 schedules=5 rows=4:\ne0 e1\ne0 e1\n", HF_OK, NULL},
        {"# hitfam 0 d=2 events=2 rows=4:\ne0 e1\n", HF_OK, NULL},
        {"# hitfam 0 d=2 events=2 schedules=5 rows=2:4\ne0 e1\ne0 e1\n", HF_ESCHEDULE,
         "header says 3 schedules, found 2"},
        {"# hitfam 0 d=2 events=2 schedules=5 rows=5:6\ne0 e1\ne0 e1\n", HF_EPARSE,
         "go beyond the 5 schedules"},
        {"# hitfam 0 d=2 events=2 rows=0:1\ne0 e1\n", HF_EPARSE, "no range of rows"},
        {"# hitfam 0 d=2 events=2 rows=3:2\ne0 e1\n", HF_EPARSE, "no range of rows"},
        {"# hitfam 0 d=2 events=2 rows=x\ne0 e1\n", HF_EPARSE, "needs FIRST:LAST"},
        {"# hitfam 0 d=2 events=2 rows=1:1 rows=1:1\ne0 e1\n", HF_EPARSE, "twice"},
        {"# hitfam 0 d=2 events=2 rows=1:99999999999999999999\ne0 e1\n", HF_EPARSE,
         "needs FIRST:LAST"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hf_family *f = NULL;
        hf_error err;
        hf_status st = hf_family_read_mem(p, cases[i].text, strlen(cases[i].text), &f, NULL, &err);
        cr_assert_eq(st, cases[i].st, "case %zu: %d %s", i, (int)st, err.text);
        if (cases[i].msg)
            cr_assert(strstr(err.text, cases[i].msg), "case %zu: %s", i, err.text);
        hf_family_free(f);
    }
    hf_poset_free(p);
}

/* After editing a bin file, its checksum made right again (docs/formats.md's rule). */
static void reseal(unsigned char *b, size_t len)
{
    uint64_t h = 0x6a09e667f3bcc908u;
    for (size_t i = 0; i + 8 < len; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++)
            w |= (uint64_t)(i + k < len - 8 ? b[i + k] : 0) << (8 * k);
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
        h ^= h >> 29;
    }
    h = (h ^ (uint64_t)(len - 8)) * 0xd6e8feb86659fd93u;
    h ^= h >> 32;
    for (int i = 0; i < 8; i++)
        b[len - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void put64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* A bin slice says its first row and the whole family's size after the fixed header (flag 2);
 * the readers check them as text checks rows=: rows counted from 1, within the family, whether
 * the header gives the slice's length or only the trailer does. */
Test(rows, bin_reader_checks_the_slice)
{
    uint64_t rng = 13;
    hf_poset *p = tu_random_forest(9, 2, &rng);
    hf_gen_options opt = options(3, HF_METHOD_DOUBLETREE, 0);
    uint64_t m;
    cr_assert_eq(hf_method_predict(p, &opt, &m, NULL, NULL), HF_OK);
    cr_assert_geq(m, 3);
    size_t len;
    char *buf = write_rows_len(p, opt, HF_FORMAT_BIN, 2, 3, &len);
    unsigned char *b = (unsigned char *)buf;
    cr_assert_eq(b[12], 3, "flags: names and slice");
    const struct {
        uint64_t first, whole, count; /* count: the header's m, 0 = leave it */
        hf_status st;
        const char *msg;
    } cases[] = {
        {2, m, 0, HF_OK, NULL},
        {2, UINT64_MAX, 0, HF_OK, NULL}, /* the whole size unknown */
        {0, m, 0, HF_EPARSE, "byte 40: first row 0 (rows are counted from 1)"},
        {2, 2, 0, HF_EPARSE, "byte 40: rows 2:3 go beyond the 2 schedules of the family"},
        {UINT64_MAX, m, 0, HF_EPARSE, "go beyond the"},
        /* the length known from the trailer only: checked there */
        {2, 2, UINT64_MAX, HF_EPARSE, "byte 40: rows 2:3 go beyond the 2 schedules"},
        {3, 4, UINT64_MAX, HF_OK, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *c = malloc(len);
        memcpy(c, b, len);
        put64(c + 40, cases[i].first);
        put64(c + 48, cases[i].whole);
        if (cases[i].count)
            put64(c + 24, cases[i].count);
        reseal(c, len);
        for (int streamed = 0; streamed < 2; streamed++) {
            hf_family *f = NULL;
            hf_family_header h;
            hf_error err;
            size_t got = 0;
            hf_status st = streamed ? hf_family_stream_mem(p, (char *)c, len, 5, count_schedule,
                                                           &got, &h, &err)
                                    : hf_family_read_mem(p, (char *)c, len, &f, &h, &err);
            cr_assert_eq(st, cases[i].st, "case %zu streamed %d: %d %s", i, streamed, (int)st,
                         err.text);
            if (cases[i].msg)
                cr_assert(strstr(err.text, cases[i].msg), "case %zu: %s", i, err.text);
            else
                cr_assert_eq(h.row_first, cases[i].first, "case %zu", i);
            hf_family_free(f);
        }
        free(c);
    }
    free(buf);
    hf_poset_free(p);
}

static hf_status count_begin(void *user, const hf_gen_info *info)
{
    (void)info;
    ++*(int *)user;
    return HF_OK;
}

Test(rows, bad_ranges_are_refused_before_the_first_schedule)
{
    uint64_t rng = 3;
    hf_poset *p = tu_random_forest(9, 1, &rng);
    const struct {
        uint64_t a, b;
        const char *msg;
    } cases[] = {{0, 3, "without row_first"},
                 {4, 3, "the last row comes before the first"},
                 {UINT64_MAX, 0, "is beyond the family"},
                 {1, UINT64_MAX, "is beyond the family"},
                 {3, 0, "is beyond the family"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hf_gen_options opt = options(2, HF_METHOD_DFS, 0);
        opt.row_first = cases[i].a;
        opt.row_last = cases[i].b;
        tu_collect c = {hf_poset_size(p), 0, 0, NULL};
        int begun = 0;
        hf_error err;
        hf_status st =
            hf_generate_ex(p, &opt, count_begin, &begun, tu_collect_sink(&c), NULL, &err);
        cr_assert_eq(st, HF_EINVAL, "case %zu", i);
        cr_assert(strstr(err.text, cases[i].msg), "case %zu: %s", i, err.text);
        cr_assert_eq(begun, 0, "case %zu: announced", i);
        cr_assert_eq(c.m, 0, "case %zu: wrote", i);
        cr_assert_eq(hf_method_check(p, &opt, NULL), i < 2 ? HF_EINVAL : HF_OK);
        free(c.rows);
    }
    /* the announcement keeps the whole family's size */
    hf_gen_options opt = options(3, HF_METHOD_DOUBLETREE, 0);
    opt.row_first = opt.row_last = 2;
    hf_gen_info info;
    tu_collect c = {hf_poset_size(p), 0, 0, NULL};
    cr_assert_eq(hf_generate_ex(p, &opt, NULL, NULL, tu_collect_sink(&c), &info, NULL), HF_OK);
    uint64_t size;
    opt.row_first = opt.row_last = 0;
    cr_assert_eq(hf_method_predict(p, &opt, &size, NULL, NULL), HF_OK);
    cr_assert(info.schedules_known);
    cr_assert_eq(info.schedules, size);
    cr_assert_eq(c.m, 1);
    free(c.rows);
    /* max_names counts the slice's names for the methods that compute rows */
    opt = options(3, HF_METHOD_DOUBLETREE, 0);
    opt.max_names = hf_poset_size(p);
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, NULL), HF_ETOOLARGE);
    opt.row_first = opt.row_last = 1;
    c = (tu_collect){hf_poset_size(p), 0, 0, NULL};
    cr_assert_eq(hf_generate(p, &opt, tu_collect_sink(&c), NULL, NULL), HF_OK);
    cr_assert_eq(c.m, 1);
    free(c.rows);
    hf_poset_free(p);
}

/* Every allocation of a sliced run fails in turn: HF_ENOMEM and nothing leaked, until the run
 * succeeds with the right rows. */
Test(rows, out_of_memory)
{
    tu_chaos chaos = {-1, false, 0, 0};
    hf_ctx *ctx = tu_chaos_ctx(&chaos);
    uint64_t rng = 17;
    hf_poset *q = tu_random_forest(10, 2, &rng);
    hf_poset *f = tu_poset_copy(q, ctx);
    hf_poset *a = tu_antichain(5), *ac = tu_poset_copy(a, ctx);
    const struct {
        hf_poset *p;
        hf_method m;
        unsigned d;
    } cases[] = {{f, HF_METHOD_DFS, 2},    {f, HF_METHOD_DOUBLETREE, 3},
                 {f, HF_METHOD_SIMPLE, 4}, {f, HF_METHOD_PATTERN, 4},
                 {f, HF_METHOD_AUTO, 3},   {ac, HF_METHOD_SCRAMBLE, 3},
                 {ac, HF_METHOD_GREEDY, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hf_gen_options opt = options(cases[c].d, cases[c].m, 1);
        tu_collect whole;
        cr_assert_eq(collect(cases[c].p, opt, 0, 0, &whole, NULL), HF_OK);
        uint64_t first = whole.m > 1 ? 2 : 1, last = whole.m > 2 ? whole.m - 1 : whole.m;
        hf_status st = HF_ENOMEM;
        for (long fail = 0; st == HF_ENOMEM; fail++) {
            cr_assert_lt(fail, 200000);
            long live = chaos.live;
            tu_collect s;
            hf_error err;
            chaos.left = fail;
            st = collect(cases[c].p, opt, first, last, &s, &err);
            chaos.left = -1;
            cr_assert_eq(chaos.live, live, "%s: leak after failing allocation %ld",
                         hf_method_name(cases[c].m), fail);
            if (st == HF_ENOMEM) {
                cr_assert(strstr(err.text, "out of memory"), "%s", err.text);
            } else {
                cr_assert_eq(st, HF_OK, "%s: %s", hf_method_name(cases[c].m), err.text);
                cr_assert_eq(s.m, last - first + 1);
                cr_assert(memcmp(s.rows, whole.rows + (first - 1) * whole.n,
                                 s.m * (size_t)whole.n * sizeof *s.rows) == 0);
            }
            free(s.rows);
        }
        free(whole.rows);
    }
    hf_poset_free(f);
    hf_poset_free(q);
    hf_poset_free(ac);
    hf_poset_free(a);
    hf_ctx_free(ctx);
}
