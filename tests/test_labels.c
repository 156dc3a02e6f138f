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
