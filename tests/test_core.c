/* Tests of the library-wide plumbing: status texts, contexts and allocators, version, and the
 * quoting of names shared by every writer and message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
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
    void *items = NULL;
    size_t cap = 0;
    cr_assert_eq(hf_i_grow(ctx, &items, &cap, 100, 8), HF_OK);
    cr_assert_geq(cap, 100);
    cr_assert_eq(hf_i_grow(ctx, &items, &cap, SIZE_MAX, 8), HF_ENOMEM);
    cr_assert_geq(cap, 100, "a failed grow keeps the array");
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
