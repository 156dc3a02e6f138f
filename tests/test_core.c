/* Tests of the library-wide plumbing: status texts, contexts and allocators, version, and the
 * quoting of names shared by every writer and message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(core);

Test(core, every_status_has_its_own_text)
{
    const char *seen[HF_EMISMATCH + 1];
    for (int s = HF_OK; s <= HF_EMISMATCH; s++) {
        seen[s] = hf_strerror((hf_status)s);
        cr_assert_not_null(seen[s]);
        cr_assert_str_neq(seen[s], "unknown status", "status %d has no text", s);
        for (int t = 0; t < s; t++)
            cr_assert_str_neq(seen[s], seen[t], "statuses %d and %d share a text", s, t);
    }
    cr_assert_str_eq(hf_strerror((hf_status)999), "unknown status");
}

Test(core, version_matches_the_header)
{
    cr_assert_str_eq(hf_version_string(), HF_VERSION_STRING);
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", HF_VERSION_MAJOR, HF_VERSION_MINOR, HF_VERSION_PATCH);
    cr_assert_str_eq(buf, HF_VERSION_STRING);
}

static int logged;
static void count_log(hf_log_level level, const char *msg, void *user)
{
    (void)level;
    cr_assert_str_eq(msg, "x=7");
    cr_assert_eq(user, &logged);
    logged++;
}

Test(core, contexts_and_allocators)
{
    hf_ctx *ctx;
    cr_assert_eq(hf_ctx_new(NULL, NULL, NULL, NULL), HF_EINVAL);
    hf_allocator broken = {NULL, NULL, NULL, NULL};
    cr_assert_eq(hf_ctx_new(&broken, NULL, NULL, &ctx), HF_EINVAL);
    cr_assert_null(ctx);
    cr_assert_eq(hf_ctx_new(NULL, count_log, &logged, &ctx), HF_OK);
    hf_i_log(ctx, HF_LOG_INFO, "x=%d", 7);
    cr_assert_eq(logged, 1);
    hf_i_log(NULL, HF_LOG_INFO, "x=%d", 7); /* no context: silently nothing */
    cr_assert_eq(logged, 1);
    /* overflowing array sizes are refused, not wrapped */
    cr_assert_null(hf_i_alloc_array(ctx, SIZE_MAX / 2, 4));
    cr_assert_null(hf_i_realloc_array(ctx, NULL, SIZE_MAX / 2, 4));
    uint64_t *items = NULL;
    size_t cap = 0;
    cr_assert_eq(HF_I_GROW(ctx, items, &cap, 100), HF_OK);
    cr_assert_geq(cap, 100);
    items[99] = 7;
    uint64_t *kept = items;
    cr_assert_eq(HF_I_GROW(ctx, items, &cap, SIZE_MAX), HF_ENOMEM);
    cr_assert_geq(cap, 100, "a failed grow keeps the array");
    cr_assert_eq(items, kept, "a failed grow keeps the pointer");
    cr_assert_eq(HF_I_GROW(ctx, items, &cap, 1000), HF_OK);
    cr_assert_eq(items[99], 7, "growing keeps the items");
    hf_i_free(ctx, items);
    hf_ctx_free(ctx);
    hf_ctx_free(NULL);
}

Test(core, bare_names_are_dot_identifiers_and_numerals)
{
    const char *bare[] = {"a", "_x1", "Node2", "é", "12", "-3", "1.5", ".5", "-.5", "7."};
    const char *quoted[] = {"",        "a b",    "1a",   "-",   ".",    "1.2.3",       "node",
                            "Digraph", "STRICT", "edge", "x-y", "a\"b", "back\\slash", "tab\there"};
    for (size_t i = 0; i < sizeof bare / sizeof *bare; i++)
        cr_assert(hf_i_name_is_bare(bare[i]), "'%s' should be bare", bare[i]);
    for (size_t i = 0; i < sizeof quoted / sizeof *quoted; i++)
        cr_assert_not(hf_i_name_is_bare(quoted[i]), "'%s' should be quoted", quoted[i]);
}

Test(core, quoting_escapes_and_truncates)
{
    char buf[64];
    cr_assert_str_eq(hf_i_name_quote("plain", buf, sizeof buf), "plain");
    cr_assert_str_eq(hf_i_name_quote("a \"b\"\\\n", buf, sizeof buf), "\"a \\\"b\\\"\\\\\\n\"");
    cr_assert_str_eq(hf_i_name_quote("", buf, sizeof buf), "\"\"");
    char long_name[200];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    hf_i_name_quote(long_name, buf, 20);
    cr_assert_lt(strlen(buf), 20);
    cr_assert(strstr(buf, "...") != NULL, "%s", buf);
    /* the stream writer agrees with the buffer version when nothing is cut */
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    cr_assert_eq(hf_name_write(f, "a \"b\"\\\n"), HF_OK);
    cr_assert_eq(hf_name_write(f, NULL), HF_EINVAL);
    fclose(f);
    cr_assert_str_eq(mem, "\"a \\\"b\\\"\\\\\\n\"");
    free(mem);
}

/* ------------------------------------------------------------------------------------------ */
/* Progress and cancellation                                                                  */

#include "hitfam/count.h"

typedef struct progress_log {
    unsigned calls, stop_at; /* stop (return false) at this call; 0: never */
    char task[16];
    uint64_t last_done, last_total;
    bool decreasing; /* done went down within one task */
} progress_log;

static bool on_progress(const hf_progress *pr, void *user)
{
    progress_log *l = user;
    if (strcmp(l->task, pr->task) == 0 && pr->done < l->last_done)
        l->decreasing = true;
    snprintf(l->task, sizeof l->task, "%s", pr->task);
    l->last_done = pr->done;
    l->last_total = pr->total;
    return ++l->calls != l->stop_at;
}

/* An order through a context with a progress callback. */
static hf_poset *with_ctx(hf_poset *q, hf_ctx *ctx)
{
    hf_poset *p = tu_poset_copy(q, ctx);
    hf_poset_free(q);
    return p;
}

Test(core, progress_reports_and_cancels_generation)
{
    progress_log l = {0};
    hf_ctx *ctx;
    cr_assert_eq(hf_ctx_new(NULL, NULL, NULL, &ctx), HF_OK);
    cr_assert_eq(hf_ctx_set_progress(NULL, on_progress, &l), HF_EINVAL);
    cr_assert_eq(hf_ctx_set_progress(ctx, on_progress, &l), HF_OK);
    uint64_t rng = 11;
    hf_poset *p = with_ctx(tu_random_forest(300, 1, &rng), ctx);
    hf_gen_options o = tu_gen_options(3, HF_METHOD_AUTO, NULL, 0);
    /* a callback that never stops changes nothing: every schedule is reported, with the size */
    tu_collect all = {.n = 300};
    hf_error err;
    cr_assert_eq(hf_generate(p, &o, tu_collect_sink(&all), NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(l.calls, all.m);
    cr_assert_str_eq(l.task, "gen");
    cr_assert_eq(l.last_done, all.m);
    cr_assert_eq(l.last_total, all.m);
    cr_assert(!l.decreasing);
    /* stopped at the third report: two schedules were written, then HF_EABORTED */
    l = (progress_log){.stop_at = 3};
    tu_collect some = {.n = 300};
    cr_assert_eq(hf_generate(p, &o, tu_collect_sink(&some), NULL, &err), HF_EABORTED);
    cr_assert_eq(some.m, 2);
    cr_assert(strstr(err.text, "gen: stopped by the progress callback"), "%s", err.text);
    cr_assert_eq(memcmp(some.rows, all.rows, 2 * 300 * sizeof *all.rows), 0);
    free(all.rows);
    free(some.rows);
    /* greedy stops while it chooses its schedules, before writing any */
    hf_poset *q = with_ctx(tu_random_dag(14, 1, 6, &rng), ctx);
    for (unsigned stop = 1; stop <= 40; stop += 13) {
        l = (progress_log){.stop_at = stop};
        tu_collect g = {.n = 14};
        o = tu_gen_options(2, HF_METHOD_GREEDY, NULL, 0);
        hf_status st = hf_generate(q, &o, tu_collect_sink(&g), NULL, &err);
        cr_assert(st == HF_EABORTED || (st == HF_OK && l.calls < stop), "stop %u: %s", stop,
                  hf_strerror(st));
        if (st == HF_EABORTED)
            cr_assert(strstr(err.text, "stopped by the progress callback"), "%s", err.text);
        free(g.rows);
    }
    hf_poset_free(q);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

Test(core, progress_cancels_minimize_and_counting_and_leaves_the_family)
{
    progress_log l = {0};
    hf_ctx *ctx;
    cr_assert_eq(hf_ctx_new(NULL, NULL, NULL, &ctx), HF_OK);
    cr_assert_eq(hf_ctx_set_progress(ctx, on_progress, &l), HF_OK);
    uint64_t rng = 12;
    hf_poset *p = with_ctx(tu_random_dag(12, 1, 5, &rng), ctx);
    hf_family *f;
    cr_assert_eq(hf_family_new(ctx, 12, &f), HF_OK);
    uint32_t s[12];
    hf_gen_options go = tu_gen_options(2, HF_METHOD_AUTO, NULL, 0);
    hf_error gerr;
    cr_assert_eq(hf_generate(p, &go, hf_family_sink(f), NULL, &gerr), HF_OK, "%s", gerr.text);
    for (size_t i = hf_family_size(f); i < 60; i++) {
        tu_random_extension(p, &rng, s);
        cr_assert_eq(hf_family_append(f, s), HF_OK);
    }
    uint32_t *before = malloc(60 * 12 * sizeof *before);
    memcpy(before, hf_family_schedule(f, 0), 60 * 12 * sizeof *before);
    hf_minimize_options mo;
    hf_minimize_options_init(&mo);
    mo.d = 2;
    mo.rounds = 50;
    l = (progress_log){.stop_at = 5};
    hf_error err;
    hf_status st = hf_family_minimize(p, f, &mo, NULL, &err);
    cr_assert_eq(st, HF_EABORTED, "%s: %s", hf_strerror(st), err.text);
    cr_assert_str_eq(l.task, "minimize");
    cr_assert_eq(l.last_done, 5);
    cr_assert_eq(hf_family_size(f), 60);
    cr_assert_eq(memcmp(hf_family_schedule(f, 0), before, 60 * 12 * sizeof *before), 0);
    l = (progress_log){0};
    cr_assert_eq(hf_family_minimize(p, f, &mo, NULL, &err), HF_OK, "%s", err.text);
    cr_assert(l.calls > 0);
    cr_assert(hf_family_size(f) < 60);
    free(before);
    hf_family_free(f);
    hf_poset_free(p);

    /* counting admissible tuples of a general order reports its work, and stops */
    hf_poset *q = with_ctx(tu_random_dag(70, 1, 12, &rng), ctx);
    mpz_t c;
    mpz_init(c);
    l = (progress_log){.stop_at = 1};
    st = hf_count_admissible_bounded(q, 6, NULL, 0, 0, c, &err);
    cr_assert_eq(st, HF_EABORTED, "%s", hf_strerror(st));
    cr_assert_str_eq(l.task, "count");
    mpz_clear(c);
    hf_poset_free(q);
    hf_ctx_free(ctx);
}
