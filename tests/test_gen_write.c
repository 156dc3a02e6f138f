/* The family writer's range path (lib/family_rows_i.h): rows that a generator describes as
 * ranges of a few sequences are written from renders of those sequences. Its bytes equal the
 * token-by-token writer's on random forests with awkward and long names, in every format, on one
 * and two threads, with focus sets and slices; a described row is what the writer sees; a row
 * whose description does not match is still checked and refused when broken. */
#define _GNU_SOURCE /* open_memstream */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_rows_i.h"
#include "forest.h"
#include "hitfam/stream.h"
#include "util.h"

TU_SUITE(gen_write);

/* A random recursive forest of n events with distinct names, awkward (quoted in text) or long
 * (longer than the writer's fixed slots) or plain, built through tu_named_poset. */
static hf_poset *named_forest(uint32_t n, uint32_t roots, uint64_t *rng)
{
    char **names = calloc(n ? n : 1, sizeof *names);
    uint32_t(*edges)[2] = malloc((n ? n : 1) * sizeof *edges);
    size_t m = 0;
    for (uint32_t v = 0; v < n; v++) {
        char awk[128];
        tu_awkward_name(awk, rng);
        names[v] = malloc(200);
        switch (tu_below(rng, 3)) {
        case 0:
            snprintf(names[v], 200, "%s%u", awk, v);
            break;
        case 1:
            snprintf(names[v], 200, "a_rather_long_event_name_number_%u", v);
            break;
        default:
            snprintf(names[v], 200, "e%u", v);
        }
        if (v >= roots) {
            edges[m][0] = tu_below(rng, v);
            edges[m][1] = v;
            m++;
        }
    }
    hf_poset *p =
        tu_named_poset(NULL, (const char *const *)names, n, (const uint32_t(*)[2])edges, m);
    for (uint32_t v = 0; v < n; v++)
        free(names[v]);
    free(names);
    free(edges);
    return p;
}

/* A sink that copies each row before the writer sees it (so no description matches it, and the
 * writer renders it token by token), counting the rows that came with a description. */
typedef struct copying {
    hf_sink next;
    uint32_t *copy;
    size_t described, rows;
} copying;

static hf_status copy_put(void *user, const uint32_t *s, uint32_t n)
{
    copying *c = user;
    const hf_i_row_hint *h = hf_i_row_hint_now;
    c->described += h && h->row == s;
    c->rows++;
    memcpy(c->copy, s, n * sizeof *s);
    return c->next.put(c->next.user, c->copy, n);
}

/* A sink that passes rows on unchanged (as the CLI's stream does), counting the described
 * ones. */
static hf_status pass_put(void *user, const uint32_t *s, uint32_t n)
{
    copying *c = user;
    const hf_i_row_hint *h = hf_i_row_hint_now;
    c->described += h && h->row == s;
    c->rows++;
    return c->next.put(c->next.user, s, n);
}

/* The family of p under opt written in `format`, rows passed on as they are (copy false) or
 * copied first; *described counts the rows that came with a description. */
static char *write_gen(const hf_poset *p, const hf_gen_options *opt, hf_format format, bool copy,
                       size_t *len, size_t *described)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    cr_assert(out);
    hf_family_header h = {3, "doubletree", false, 0, opt->row_first, opt->row_last};
    hf_writer *w = NULL;
    cr_assert_eq(hf_writer_new(p, out, format, &h, &w), HF_OK);
    copying c = {hf_writer_sink(w), malloc((hf_poset_size(p) + 1) * sizeof(uint32_t)), 0, 0};
    hf_error err;
    hf_status st = hf_generate(p, opt, (hf_sink){copy ? copy_put : pass_put, &c}, NULL, &err);
    cr_assert_eq(st, HF_OK, "%s", err.text);
    cr_assert_eq(hf_writer_close(w), HF_OK);
    cr_assert_eq(fclose(out), 0);
    free(c.copy);
    *len = size;
    *described = c.described;
    cr_assert_gt(c.rows, 0);
    return buf;
}

static void same_bytes(const hf_poset *p, const hf_gen_options *opt, hf_format format,
                       bool expect_described, const char *what)
{
    size_t la, lb, da, db;
    char *a = write_gen(p, opt, format, false, &la, &da);
    char *b = write_gen(p, opt, format, true, &lb, &db);
    cr_assert_eq(db, da, "%s", what); /* the copying sink sees the same descriptions */
    if (expect_described)
        cr_assert_gt(da, 0, "%s: no row came with its ranges", what);
    else
        cr_assert_eq(da, 0, "%s", what);
    cr_assert_eq(la, lb, "%s: %zu bytes from ranges, %zu token by token", what, la, lb);
    cr_assert(memcmp(a, b, la) == 0, "%s: the bytes differ", what);
    free(a);
    free(b);
}

Test(gen_write, ranges_equal_tokens_on_random_forests)
{
    uint64_t rng = 0x5eed0016;
    static const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_IDS, HF_FORMAT_JSON,
                                        HF_FORMAT_BIN};
    static const char *const fname[] = {"text", "ids", "json", "bin"};
    for (int round = 0; round < 24; round++) {
        uint32_t n = 1 + tu_below(&rng, round < 12 ? 40 : 400);
        uint32_t roots = 1 + tu_below(&rng, 3);
        roots = roots > n ? n : roots;
        hf_poset *p = named_forest(n, roots, &rng);
        uint32_t focus[8];
        size_t nf = 0;
        for (uint32_t i = 0; i < 8 && i < n; i++)
            focus[nf++] = i * (n / 8 + 1) % n;
        for (int f = 0; f < 4; f++) {
            hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
            opt.threads = 1 + (unsigned)(f & 1);
            /* with a focus set (distinct events) the rows go through the emitter */
            bool focused = f >= 2 && nf == 8 && n >= 64;
            if (focused) {
                opt.focus = focus;
                opt.focus_count = nf;
            }
            if (round % 3 == 1) {
                opt.row_first = 1 + tu_below(&rng, 3);
                opt.row_last = tu_below(&rng, 2) ? opt.row_first + tu_below(&rng, 3) : 0;
            }
            uint64_t size = 0;
            hf_error err;
            if (hf_method_predict(p, &opt, &size, NULL, &err) != HF_OK || opt.row_first > size ||
                opt.row_last > size) {
                opt.row_first = opt.row_last = 0;
            }
            for (int k = 0; k < 4; k++) {
                char what[96];
                snprintf(what, sizeof what, "round %d, n %u, %s, threads %u%s", round, n, fname[k],
                         opt.threads, focused ? ", focus" : "");
                same_bytes(p, &opt, formats[k], !focused, what);
            }
        }
        hf_poset_free(p);
    }
}

/* A description of another row does not let a broken row through the writer. */
Test(gen_write, described_rows_only_for_their_own_pointer)
{
    uint64_t rng = 7;
    hf_poset *p = named_forest(6, 1, &rng);
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    hf_writer *w = NULL;
    cr_assert_eq(hf_writer_new(p, out, HF_FORMAT_TEXT, NULL, &w), HF_OK);
    hf_sink sink = hf_writer_sink(w);
    uint32_t good[6] = {0, 1, 2, 3, 4, 5}, broken[6] = {0, 1, 1, 3, 4, 5};
    hf_i_row_range whole = {0, 0, 6};
    hf_i_row_hint h = {.row = good,
                       .n = 6,
                       .id = hf_i_row_source_id(),
                       .src = {good, good},
                       .ranges = &whole,
                       .count = 1};
    hf_i_row_hint_now = &h;
    cr_assert_eq(sink.put(sink.user, broken, 6), HF_ESCHEDULE);
    /* a description whose ranges do not add up to the row is not used either */
    hf_i_row_range short_range = {0, 0, 5};
    hf_i_row_hint bad = {
        .row = broken, .n = 6, .id = h.id, .src = {good, good}, .ranges = &short_range, .count = 1};
    hf_i_row_hint_now = &bad;
    cr_assert_eq(sink.put(sink.user, broken, 6), HF_ESCHEDULE);
    hf_i_row_hint_now = &h;
    cr_assert_eq(sink.put(sink.user, good, 6), HF_OK);
    hf_i_row_hint_now = NULL;
    cr_assert_eq(hf_writer_count(w), 1);
    cr_assert_eq(hf_writer_close(w), HF_OK);
    fclose(out);
    free(buf);
    hf_poset_free(p);
}

/* Within a scope the forest view of the same order and options is built once and kept until the
 * scope ends; other options, or no scope, give trees of their own. */
Test(gen_write, tree_scope_shares_one_view)
{
    uint64_t rng = 11;
    hf_poset *p = tu_random_forest(50, 2, &rng);
    hf_i_tree_options weighted = {HF_I_GADGET_WEIGHTED, NULL, 0};
    hf_i_tree_options none = {HF_I_GADGET_NONE, NULL, 0};
    hf_i_tree *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &a, NULL), HF_OK);
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &b, NULL), HF_OK);
    cr_assert_neq(a, b, "no scope: each call builds its own tree");
    hf_i_tree_release(a);
    hf_i_tree_release(b);
    hf_i_tree_scope scope;
    hf_i_tree_scope_begin(&scope);
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &a, NULL), HF_OK);
    hf_i_tree_release(a); /* kept by the scope: still readable */
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &b, NULL), HF_OK);
    cr_assert_eq(a, b);
    cr_assert_eq(b->n_orig, 50);
    cr_assert_eq(hf_i_tree_shared(p, &none, &c, NULL), HF_OK);
    cr_assert_neq(c, a, "other options: another tree");
    hf_i_tree_release(c);
    hf_i_tree_release(b);
    hf_i_tree_scope_end(&scope); /* frees the kept tree (the leak check would see it) */
    hf_poset_free(p);
}
