/* Tests of schedule storage (lib/family.c): append, remove, access and the family sink, checked
 * against a plain array-of-rows model, including out-of-memory behaviour. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

TU_SUITE(family);

/* The model: rows stored one after another, m * n ids. */
typedef struct model {
    uint32_t n;
    size_t m;
    uint32_t *rows;
} model;

static void model_append(model *md, const uint32_t *s)
{
    md->rows = realloc(md->rows, ((md->m + 1) * md->n + 1) * sizeof *md->rows);
    memcpy(md->rows + md->m * md->n, s, md->n * sizeof *s);
    md->m++;
}

static void model_remove(model *md, size_t i)
{
    memmove(md->rows + i * md->n, md->rows + (i + 1) * md->n,
            (md->m - i - 1) * md->n * sizeof *md->rows);
    md->m--;
}

static void assert_same(const hf_family *f, const model *md)
{
    cr_assert_eq(hf_family_size(f), md->m);
    cr_assert_eq(hf_family_events(f), md->n);
    for (size_t i = 0; i < md->m; i++) {
        const uint32_t *s = hf_family_schedule(f, i);
        cr_assert(s != NULL, "schedule %zu missing", i);
        cr_assert(memcmp(s, md->rows + i * md->n, md->n * sizeof *s) == 0,
                  "schedule %zu differs from the model", i);
    }
    cr_assert_null(hf_family_schedule(f, md->m));
}

static void random_row(uint32_t *s, uint32_t n, uint64_t *rng)
{
    for (uint32_t i = 0; i < n; i++)
        s[i] = tu_below(rng, n ? n : 1);
}

Test(family, new_and_free)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 5, &f), HF_OK);
    cr_assert_not_null(f);
    cr_assert_eq(hf_family_size(f), 0);
    cr_assert_eq(hf_family_events(f), 5);
    cr_assert_null(hf_family_schedule(f, 0));
    hf_family_free(f);
    hf_family_free(NULL);
    cr_assert_eq(hf_family_new(NULL, 5, NULL), HF_EINVAL);
    f = (hf_family *)&f;
    cr_assert_eq(hf_family_new(NULL, HF_MAX_EVENTS + 1u, &f), HF_ETOOLARGE);
    cr_assert_null(f);
    cr_assert_eq(hf_family_size(NULL), 0);
    cr_assert_eq(hf_family_events(NULL), 0);
    cr_assert_null(hf_family_schedule(NULL, 0));
}

Test(family, append_copies_the_schedule)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 3, &f), HF_OK);
    uint32_t s[3] = {2, 0, 1};
    cr_assert_eq(hf_family_append(f, s), HF_OK);
    s[0] = 7;
    const uint32_t *got = hf_family_schedule(f, 0);
    cr_assert_eq(got[0], 2);
    cr_assert_eq(got[1], 0);
    cr_assert_eq(got[2], 1);
    cr_assert_eq(hf_family_append(f, NULL), HF_EINVAL);
    cr_assert_eq(hf_family_append(NULL, s), HF_EINVAL);
    cr_assert_eq(hf_family_size(f), 1);
    hf_family_free(f);
}

Test(family, remove_shifts_later_schedules)
{
    uint64_t rng = 11;
    for (uint32_t n = 0; n < 6; n++) {
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        model md = {n, 0, NULL};
        uint32_t s[8];
        for (int op = 0; op < 400; op++) {
            if (md.m > 0 && tu_below(&rng, 3) == 0) {
                size_t i = tu_below(&rng, (uint32_t)md.m);
                cr_assert_eq(hf_family_remove(f, i), HF_OK);
                model_remove(&md, i);
            } else {
                random_row(s, n, &rng);
                cr_assert_eq(hf_family_append(f, s), HF_OK);
                model_append(&md, s);
            }
            if (op % 37 == 0)
                assert_same(f, &md);
        }
        assert_same(f, &md);
        cr_assert_eq(hf_family_remove(f, md.m), HF_EINVAL);
        cr_assert_eq(hf_family_remove(NULL, 0), HF_EINVAL);
        /* Remove first, last, then everything. */
        while (md.m > 0) {
            size_t i = md.m % 2 ? 0 : md.m - 1;
            cr_assert_eq(hf_family_remove(f, i), HF_OK);
            model_remove(&md, i);
        }
        assert_same(f, &md);
        free(md.rows);
        hf_family_free(f);
    }
}

Test(family, zero_events)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 0, &f), HF_OK);
    cr_assert_eq(hf_family_append(f, NULL), HF_OK);
    uint32_t dummy = 9;
    cr_assert_eq(hf_family_append(f, &dummy), HF_OK);
    cr_assert_eq(hf_family_size(f), 2);
    cr_assert_not_null(hf_family_schedule(f, 0));
    cr_assert_not_null(hf_family_schedule(f, 1));
    cr_assert_null(hf_family_schedule(f, 2));
    cr_assert_eq(hf_family_remove(f, 0), HF_OK);
    cr_assert_eq(hf_family_size(f), 1);
    hf_sink sink = hf_family_sink(f);
    cr_assert_eq(sink.put(sink.user, NULL, 0), HF_OK);
    cr_assert_eq(hf_family_size(f), 2);
    hf_family_free(f);
}

Test(family, sink_appends_and_rejects_other_sizes)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    hf_sink sink = hf_family_sink(f);
    cr_assert_eq(sink.user, f);
    uint32_t a[4] = {3, 2, 1, 0}, b[5] = {0, 1, 2, 3, 4};
    cr_assert_eq(sink.put(sink.user, a, 4), HF_OK);
    cr_assert_eq(sink.put(sink.user, b, 5), HF_EMISMATCH);
    cr_assert_eq(sink.put(sink.user, b, 3), HF_EMISMATCH);
    cr_assert_eq(sink.put(sink.user, b, 4), HF_OK);
    cr_assert_eq(hf_family_size(f), 2);
    cr_assert(memcmp(hf_family_schedule(f, 0), a, sizeof a) == 0);
    cr_assert(memcmp(hf_family_schedule(f, 1), b, 4 * sizeof *b) == 0);
    hf_sink none = hf_family_sink(NULL);
    cr_assert_eq(none.put(none.user, a, 4), HF_EINVAL);
    hf_family_free(f);
}

Test(family, sink_receives_a_generated_family)
{
    /* The sink is what generators stream into: feed it every permutation of 4 events and
     * compare with the permutations enumerated here. */
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    hf_sink sink = hf_family_sink(f);
    model md = {4, 0, NULL};
    uint32_t s[4];
    for (uint32_t code = 0; code < 256; code++) {
        uint32_t used = 0;
        bool ok = true;
        for (int i = 0; i < 4; i++) {
            s[i] = (code >> (2 * i)) & 3u;
            ok = ok && !(used & (1u << s[i]));
            used |= 1u << s[i];
        }
        if (!ok)
            continue;
        cr_assert_eq(sink.put(sink.user, s, 4), HF_OK);
        model_append(&md, s);
    }
    cr_assert_eq(md.m, 24);
    assert_same(f, &md);
    free(md.rows);
    hf_family_free(f);
}

Test(family, append_out_of_memory_leaves_family_unchanged)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    uint64_t rng = 5;
    for (uint32_t n = 1; n < 40; n += 13) {
        hf_family *f = NULL;
        c.left = 0;
        cr_assert_eq(hf_family_new(ctx, n, &f), HF_ENOMEM);
        cr_assert_null(f);
        c.left = -1;
        cr_assert_eq(hf_family_new(ctx, n, &f), HF_OK);
        model md = {n, 0, NULL};
        uint32_t s[40];
        for (int k = 0; k < 300; k++) {
            random_row(s, n, &rng);
            c.left = 0;
            long before = c.calls;
            hf_status st = hf_family_append(f, s);
            if (c.calls > before) {
                /* This append needed memory and did not get it. */
                cr_assert_eq(st, HF_ENOMEM);
                assert_same(f, &md);
                c.left = -1;
                st = hf_family_append(f, s);
            }
            c.left = -1;
            cr_assert_eq(st, HF_OK);
            model_append(&md, s);
        }
        assert_same(f, &md);
        free(md.rows);
        hf_family_free(f);
    }
    hf_ctx_free(ctx);
}

Test(family, sink_out_of_memory_is_reported)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(ctx, 3, &f), HF_OK);
    hf_sink sink = hf_family_sink(f);
    uint32_t s[3] = {0, 1, 2};
    c.left = 0;
    cr_assert_eq(sink.put(sink.user, s, 3), HF_ENOMEM);
    cr_assert_eq(hf_family_size(f), 0);
    c.left = -1;
    cr_assert_eq(sink.put(sink.user, s, 3), HF_OK);
    cr_assert_eq(hf_family_size(f), 1);
    hf_family_free(f);
    hf_ctx_free(ctx);
}

Test(family, large_family_grows_linearly)
{
    /* 100,000 appends of 50 ids: doubling keeps this well under a second. */
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 50, &f), HF_OK);
    uint32_t s[50];
    for (uint32_t k = 0; k < 100000; k++) {
        for (uint32_t i = 0; i < 50; i++)
            s[i] = (k + i) % 50;
        cr_assert_eq(hf_family_append(f, s), HF_OK);
    }
    cr_assert_eq(hf_family_size(f), 100000);
    for (uint32_t k = 0; k < 100000; k += 9973)
        for (uint32_t i = 0; i < 50; i++)
            cr_assert_eq(hf_family_schedule(f, k)[i], (k + i) % 50);
    hf_family_free(f);
}
