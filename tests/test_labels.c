/* Labelled orders: objects and accesses through the builder and DOT (`obj=`, `access=`), the
 * conflict relation against its definition on orders whose edges the test chose, bad labels
 * with their lines, and the labels written back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

TU_SUITE(labels);

static hf_poset *read_dot(const char *text, hf_status want, hf_error *err)
{
    hf_poset *p = NULL;
    cr_assert_eq(hf_dot_read_mem(NULL, text, strlen(text), &p, err), want, "%s", err->text);
    return p;
}

Test(labels, dot_objects_and_accesses)
{
    hf_error err;
    hf_poset *p = read_dot("digraph { a [obj=x, access=r]; b [obj=x]; c [obj=\"y z\", access=W];"
                           " d [obj=x, access=read]; e; a -> e; node [obj=q, access=write] f }",
                           HF_OK, &err);
    cr_assert_eq(hf_poset_object_count(p), 3);
    cr_assert_str_eq(hf_poset_object_name(p, 0), "x");
    cr_assert_str_eq(hf_poset_object_name(p, 1), "y z");
    cr_assert_str_eq(hf_poset_object_name(p, 2), "q");
    cr_assert_null(hf_poset_object_name(p, 3));
    static const uint32_t obj[] = {0, 0, 1, 0, HF_NO_EVENT, 2};
    static const hf_access acc[] = {HF_ACCESS_READ, HF_ACCESS_WRITE, HF_ACCESS_WRITE,
                                    HF_ACCESS_READ, HF_ACCESS_NONE,  HF_ACCESS_WRITE};
    for (uint32_t v = 0; v < 6; v++) {
        cr_assert_eq(hf_poset_object(p, v), obj[v], "event %u", v);
        cr_assert_eq(hf_poset_access(p, v), acc[v], "event %u", v);
    }
    cr_assert_eq(hf_poset_object(p, 6), HF_NO_EVENT);
    cr_assert_eq(hf_poset_access(p, 6), HF_ACCESS_NONE);
    /* a, b: x read/write; a, d: both read; b, d: write/read; e touches nothing */
    cr_assert(hf_poset_conflict(p, 0, 1));
    cr_assert_not(hf_poset_conflict(p, 0, 3));
    cr_assert(hf_poset_conflict(p, 1, 3));
    cr_assert_not(hf_poset_conflict(p, 0, 2));
    cr_assert_not(hf_poset_conflict(p, 0, 4));
    cr_assert_not(hf_poset_conflict(p, 1, 1));
    cr_assert_not(hf_poset_conflict(p, 1, 99));
    hf_poset_free(p);

    /* without objects every unordered pair conflicts */
    p = read_dot("digraph { a -> b; c }", HF_OK, &err);
    cr_assert_eq(hf_poset_object_count(p), 0);
    cr_assert_not(hf_poset_conflict(p, 0, 1));
    cr_assert(hf_poset_conflict(p, 0, 2));
    cr_assert(hf_poset_conflict(p, 2, 1));
    hf_poset_free(p);
}

Test(labels, bad_labels_name_the_event_and_line)
{
    static const struct {
        const char *text;
        int line;
        const char *message;
    } cases[] = {
        {"digraph {\n a\n b [obj=x,\n access=x]\n}", 4,
         "event b: access=x is not r or w (read or write)"},
        {"digraph {\n a [obj=\"\"]\n}", 2,
         "event a: obj= is empty (name the object the event touches, or leave the attribute "
         "out)"},
        {"digraph {\n node [obj=\"\"]\n a\n}", 2,
         "node defaults: obj= is empty (name the object the event touches, or leave the "
         "attribute out)"},
        {"digraph {\n a -> b\n c [access=r]\n}", 3,
         "event c: access=r without obj=NAME (the object it reads)"},
        {"digraph {\n a [focus=\n perhaps]\n}", 3,
         "event a: focus=perhaps is not a truth value (use true, false, yes, no, 1 or 0)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hf_error err;
        hf_poset *p = read_dot(cases[i].text, HF_EPARSE, &err);
        cr_assert_null(p);
        cr_assert_eq(err.line, cases[i].line, "case %zu: line %d", i, err.line);
        cr_assert_str_eq(err.text, cases[i].message);
    }
    /* an empty obj on an edge is an edge attribute, which hitfam ignores */
    hf_error err;
    hf_poset *p = read_dot("digraph { a -> b [obj=\"\"] }", HF_OK, &err);
    cr_assert_eq(hf_poset_object_count(p), 0);
    hf_poset_free(p);
}

Test(labels, builder_rules)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "a", NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "b", NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_set_object(NULL, 0, "x", HF_ACCESS_READ), HF_EINVAL);
    cr_assert_eq(hf_poset_builder_set_object(b, 2, "x", HF_ACCESS_READ), HF_EINVAL);
    cr_assert_eq(hf_poset_builder_set_object(b, 0, "x", HF_ACCESS_NONE), HF_EINVAL);
    cr_assert_eq(hf_poset_builder_set_object(b, 0, NULL, HF_ACCESS_WRITE), HF_EINVAL);
    cr_assert_eq(hf_poset_builder_set_object(b, 0, "x", (hf_access)7), HF_EINVAL);
    char *big = malloc(HF_MAX_NAME + 2);
    memset(big, 'o', HF_MAX_NAME + 1);
    big[HF_MAX_NAME + 1] = '\0';
    cr_assert_eq(hf_poset_builder_set_object(b, 0, big, HF_ACCESS_READ), HF_ETOOLARGE);
    free(big);
    /* set, replace, clear */
    cr_assert_eq(hf_poset_builder_set_object(b, 0, "x", HF_ACCESS_READ), HF_OK);
    cr_assert_eq(hf_poset_builder_set_object(b, 1, "y", HF_ACCESS_READ), HF_OK);
    cr_assert_eq(hf_poset_builder_set_object(b, 1, "x", HF_ACCESS_WRITE), HF_OK);
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_set_object(b, 0, "x", HF_ACCESS_READ), HF_ESTATE);
    hf_poset_builder_free(b);
    cr_assert_eq(hf_poset_object_count(p), 1); /* "y" is no longer used */
    cr_assert_eq(hf_poset_access(p, 1), HF_ACCESS_WRITE);
    cr_assert(hf_poset_conflict(p, 0, 1));
    hf_poset_free(p);

    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "a", NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_set_object(b, 0, "x", HF_ACCESS_READ), HF_OK);
    cr_assert_eq(hf_poset_builder_set_object(b, 0, "", HF_ACCESS_NONE), HF_OK);
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    cr_assert_eq(hf_poset_object_count(p), 0);
    cr_assert_eq(hf_poset_access(p, 0), HF_ACCESS_NONE);
    hf_poset_free(p);
}

/* Random labelled orders from edges the test chose: the conflict relation against its
 * definition (closure computed here from those edges), and the labels through DOT and back. */
Test(labels, conflicts_match_the_definition_and_survive_dot)
{
    uint64_t rng = 31;
    for (int it = 0; it < 200; it++) {
        uint32_t n = 1 + tu_below(&rng, 16), objects = tu_below(&rng, 4);
        bool *lt = calloc((size_t)n * n, 1);
        uint32_t *obj = malloc(n * sizeof *obj);
        hf_access *acc = malloc(n * sizeof *acc);
        hf_poset_builder *b = NULL;
        cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
        for (uint32_t v = 0; v < n; v++) {
            char name[16];
            snprintf(name, sizeof name, "e%u", v);
            cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        }
        for (uint32_t u = 0; u < n; u++)
            for (uint32_t v = u + 1; v < n; v++)
                if (tu_below(&rng, 5) == 0) {
                    cr_assert_eq(hf_poset_builder_add_order(b, u, v), HF_OK);
                    lt[u * n + v] = true;
                }
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t u = 0; u < n; u++)
                if (lt[u * n + k])
                    for (uint32_t v = 0; v < n; v++)
                        lt[u * n + v] |= lt[k * n + v];
        for (uint32_t v = 0; v < n; v++) {
            obj[v] = objects && tu_below(&rng, 4) ? tu_below(&rng, objects) : HF_NO_EVENT;
            acc[v] = obj[v] == HF_NO_EVENT ? HF_ACCESS_NONE
                     : tu_below(&rng, 2)   ? HF_ACCESS_READ
                                           : HF_ACCESS_WRITE;
            if (obj[v] != HF_NO_EVENT) {
                char o[16];
                snprintf(o, sizeof o, "o%u", obj[v]);
                cr_assert_eq(hf_poset_builder_set_object(b, v, o, acc[v]), HF_OK);
            }
        }
        bool labelled = false;
        for (uint32_t v = 0; v < n; v++)
            labelled |= obj[v] != HF_NO_EVENT;
        hf_poset *p = NULL;
        cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
        hf_poset_builder_free(b);

        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        cr_assert_eq(hf_dot_write(p, out), HF_OK);
        fclose(out);
        hf_error err;
        hf_poset *q = read_dot(text, HF_OK, &err);
        free(text);
        const hf_poset *both[] = {p, q};
        for (int w = 0; w < 2; w++)
            for (uint32_t u = 0; u < n; u++) {
                cr_assert_eq(hf_poset_access(both[w], u), acc[u]);
                uint32_t o = hf_poset_object(both[w], u);
                cr_assert_eq(o == HF_NO_EVENT, obj[u] == HF_NO_EVENT);
                if (o != HF_NO_EVENT) {
                    char want[16];
                    snprintf(want, sizeof want, "o%u", obj[u]);
                    cr_assert_str_eq(hf_poset_object_name(both[w], o), want);
                }
                for (uint32_t v = 0; v < n; v++) {
                    bool unordered = u != v && !lt[u * n + v] && !lt[v * n + u];
                    bool want =
                        unordered &&
                        (!labelled || (obj[u] != HF_NO_EVENT && obj[u] == obj[v] &&
                                       (acc[u] == HF_ACCESS_WRITE || acc[v] == HF_ACCESS_WRITE)));
                    cr_assert_eq(hf_poset_conflict(both[w], u, v), want, "%u %u", u, v);
                }
            }
        hf_poset_free(q);
        hf_poset_free(p);
        free(lt);
        free(obj);
        free(acc);
    }
}

Test(labels, every_allocation_failure_leaves_the_builder_unchanged)
{
    tu_chaos c = {.left = -1, .once = true};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    for (long n = 0;; n++) {
        hf_poset_builder *b = NULL;
        cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
        for (int v = 0; v < 40; v++) {
            char name[16];
            snprintf(name, sizeof name, "e%d", v);
            cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
        }
        c.calls = 0;
        c.left = n;
        hf_status st = HF_OK;
        int v = 0;
        for (; v < 40 && !st; v++) {
            char o[16];
            snprintf(o, sizeof o, "object-%d", v % 23);
            st = hf_poset_builder_set_object(b, (uint32_t)v, o,
                                             v % 3 ? HF_ACCESS_WRITE : HF_ACCESS_READ);
        }
        c.left = -1;
        if (!st) {
            hf_poset_builder_free(b);
            break;
        }
        cr_assert_eq(st, HF_ENOMEM);
        /* the failed call changed nothing: the events before it keep their objects */
        hf_poset *p = NULL;
        cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
        for (int u = 0; u < 40; u++)
            cr_assert_eq(hf_poset_object(p, (uint32_t)u) != HF_NO_EVENT, u < v - 1,
                         "allocation %ld, event %d", n, u);
        hf_poset_free(p);
        hf_poset_builder_free(b);
        cr_assert(n < 1000);
    }
    hf_ctx_free(ctx);
}

/* An order of n events whose edges the test chooses: kind 0 a random DAG, 1 a forest (each event
 * after the first few has one earlier parent), 2 an in-forest (the reverse); objects on some
 * events (none when objects == 0). lt gets the closure of the chosen edges. */
static hf_poset *labelled_order(hf_ctx *ctx, uint32_t n, int kind, uint32_t objects, uint64_t *rng,
                                bool *lt, uint32_t *obj, hf_access *acc)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (uint32_t v = 0; v < n; v++) {
        char name[16];
        snprintf(name, sizeof name, "e%u", v);
        cr_assert_eq(hf_poset_builder_add_event(b, name, NULL), HF_OK);
    }
    memset(lt, 0, (size_t)n * n);
    for (uint32_t v = 1; v < n; v++) {
        if (kind == 0) {
            for (uint32_t u = 0; u < v; u++)
                if (tu_below(rng, 4) == 0) {
                    cr_assert_eq(hf_poset_builder_add_order(b, u, v), HF_OK);
                    lt[u * n + v] = true;
                }
        } else if (tu_below(rng, 5)) {
            uint32_t u = tu_below(rng, v);
            uint32_t from = kind == 1 ? u : v, to = kind == 1 ? v : u;
            cr_assert_eq(hf_poset_builder_add_order(b, from, to), HF_OK);
            lt[from * n + to] = true;
        }
    }
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t u = 0; u < n; u++)
            if (lt[u * n + k])
                for (uint32_t v = 0; v < n; v++)
                    lt[u * n + v] |= lt[k * n + v];
    for (uint32_t v = 0; v < n; v++) {
        obj[v] = objects && tu_below(rng, 5) ? tu_below(rng, objects) : HF_NO_EVENT;
        acc[v] = obj[v] == HF_NO_EVENT ? HF_ACCESS_NONE
                 : tu_below(rng, 2)    ? HF_ACCESS_READ
                                       : HF_ACCESS_WRITE;
        if (obj[v] != HF_NO_EVENT) {
            char o[16];
            snprintf(o, sizeof o, "o%u", obj[v]);
            cr_assert_eq(hf_poset_builder_set_object(b, v, o, acc[v]), HF_OK);
        }
    }
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    return p;
}

Test(labels, conflict_count_matches_the_pairs_of_the_definition)
{
    uint64_t rng = 77;
    bool *lt = malloc(40 * 40);
    uint32_t obj[40];
    hf_access acc[40];
    for (int it = 0; it < 600; it++) {
        uint32_t n = 1 + tu_below(&rng, 40), objects = tu_below(&rng, 5);
        int kind = it % 3;
        hf_poset *p = labelled_order(NULL, n, kind, objects, &rng, lt, obj, acc);
        if (kind == 1)
            cr_assert(hf_poset_shape(p) & HF_SHAPE_FOREST);
        if (kind == 2)
            cr_assert(hf_poset_shape(p) & HF_SHAPE_INFOREST);
        bool labelled = false;
        for (uint32_t v = 0; v < n; v++)
            labelled |= obj[v] != HF_NO_EVENT;
        uint64_t want = 0;
        for (uint32_t u = 0; u < n; u++)
            for (uint32_t v = u + 1; v < n; v++)
                want += !lt[u * n + v] && !lt[v * n + u] &&
                        (!labelled || (obj[u] != HF_NO_EVENT && obj[u] == obj[v] &&
                                       (acc[u] == HF_ACCESS_WRITE || acc[v] == HF_ACCESS_WRITE)));
        uint64_t got = 12345;
        hf_error err;
        cr_assert_eq(hf_poset_conflict_count(p, &got, &err), HF_OK, "%s", err.text);
        cr_assert_eq(got, want, "iteration %d, kind %d, n %u: %llu, want %llu", it, kind, n,
                     (unsigned long long)got, (unsigned long long)want);
        hf_poset_free(p);
    }
    free(lt);
    uint64_t c;
    cr_assert_eq(hf_poset_conflict_count(NULL, &c, NULL), HF_EINVAL);
}

Test(labels, conflict_count_survives_every_allocation_failure)
{
    tu_chaos c = {.left = -1, .once = true};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    bool *lt = malloc(30 * 30);
    uint32_t obj[30];
    hf_access acc[30];
    uint64_t rng = 5;
    for (int kind = 0; kind < 3; kind++)
        for (uint32_t objects = 0; objects <= 3; objects += 3) {
            hf_poset *p = labelled_order(ctx, 30, kind, objects, &rng, lt, obj, acc);
            uint64_t want;
            cr_assert_eq(hf_poset_conflict_count(p, &want, NULL), HF_OK);
            for (long k = 0;; k++) {
                long live = c.live;
                c.calls = 0;
                c.left = k;
                uint64_t got = 0;
                hf_error err;
                hf_status st = hf_poset_conflict_count(p, &got, &err);
                c.left = -1;
                cr_assert_eq(c.live, live, "allocation %ld leaked", k);
                if (st == HF_OK) {
                    cr_assert_eq(got, want);
                    break;
                }
                cr_assert_eq(st, HF_ENOMEM, "%s", err.text);
                cr_assert(k < 10);
            }
            hf_poset_free(p);
        }
    free(lt);
    hf_ctx_free(ctx);
}
