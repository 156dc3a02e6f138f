/* Tests of names read back (lib/names.c) and of focus files (lib/focus.c): the one reader of
 * quoted names agrees with the writer on every byte string, and focus files read as documented. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "util.h"

TU_SUITE(names);

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */

/* The name of n random bytes drawn mostly from the ones quoting has to get right. */
static size_t random_name(char *buf, uint64_t *rng)
{
    static const char special[] = "\"\\n \t\r#\x01\x7f{}=,ab";
    size_t len = tu_below(rng, 8);
    for (size_t i = 0; i < len; i++) {
        uint32_t r = tu_below(rng, 4);
        char c =
            r == 0 ? (char)(1 + tu_below(rng, 255)) : special[tu_below(rng, sizeof special - 1)];
        buf[i] = r == 1 ? '\n' : c;
    }
    buf[len] = '\0';
    return len;
}

/* A poset of the given names (no order); names must be distinct. */
static hf_poset *poset_of(hf_ctx *ctx, char names[][16], uint32_t n)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(ctx, &b), HF_OK);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(hf_poset_builder_add_event(b, names[i], NULL), HF_OK, "name %u", i);
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    return p;
}

static hf_poset *abc(void)
{
    static char names[][16] = {"a", "b", "c d", "x\"y", "back\\slash", "new\nline", "#hash"};
    return poset_of(NULL, names, 7);
}

/* Read from an exact-size heap copy, so that any read past the end is caught by ASan. */
static hf_status focus_read(const hf_poset *p, const char *text, size_t len, uint32_t **ids,
                            size_t *count, hf_error *err)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, text, len);
    hf_status st = hf_focus_read_mem(p, len ? copy : NULL, len, ids, count, err);
    free(copy);
    return st;
}

static void expect_ids(const hf_poset *p, const char *text, const char *const *names, size_t n)
{
    uint32_t *ids = NULL;
    size_t count = 99;
    hf_error err;
    cr_assert_eq(focus_read(p, text, strlen(text), &ids, &count, &err), HF_OK, "%s: %s", text,
                 err.text);
    cr_assert_not_null(ids);
    cr_assert_eq(count, n, "%s: %zu ids, expected %zu", text, count, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t want;
        cr_assert_eq(hf_poset_find(p, names[i], &want), HF_OK);
        cr_assert_eq(ids[i], want, "%s: id %zu", text, i);
    }
    hf_focus_free(p, ids);
}

/* ------------------------------------------------------------------------------------------ */
/* The quoted-name reader                                                                     */

/* Every byte string written by hf_name_write reads back as itself: written alone, then with a
 * continuation inserted at every position between bytes. */
Test(names, unquote_reads_back_what_the_writer_wrote)
{
    uint64_t rng = 99;
    char *text = malloc(HF_MAX_NAME + 1);
    hf_i_name_buf b = {.text = text};
    for (int iter = 0; iter < 5000; iter++) {
        char name[16];
        size_t len = random_name(name, &rng);
        if (strlen(name) != len)
            continue;
        char *buf = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&buf, &size);
        cr_assert_eq(hf_name_write(out, name), HF_OK);
        fclose(out);
        if (buf[0] != '"') { /* bare: written as it is */
            cr_assert_eq(size, len);
            cr_assert(memcmp(buf, name, len) == 0);
            free(buf);
            continue;
        }
        hf_i_unquoted where;
        cr_assert(hf_i_name_unquote(buf, size, 0, &b, &where), "%s", buf);
        cr_assert_eq(where.end, size);
        cr_assert_eq(where.lines, 0);
        cr_assert(!b.bad);
        cr_assert_eq(b.len, len, "%s", buf);
        cr_assert(memcmp(b.text, name, len) == 0, "%s", buf);
        /* a backslash-newline (or CR LF) between any two bytes that are not inside an escape */
        for (size_t cut = 1; cut < size; cut++) {
            size_t backslashes = 0;
            for (size_t k = cut; k > 1 && buf[k - 1] == '\\'; k--)
                backslashes++;
            if (backslashes % 2)
                continue;
            const char *brk = cut % 2 ? "\\\n" : "\\\r\n";
            size_t bl = strlen(brk);
            char *cont = malloc(size + bl);
            memcpy(cont, buf, cut);
            memcpy(cont + cut, brk, bl);
            memcpy(cont + cut + bl, buf + cut, size - cut);
            cr_assert(hf_i_name_unquote(cont, size + bl, 0, &b, &where));
            cr_assert_eq(where.end, size + bl);
            cr_assert_eq(where.lines, 1);
            cr_assert_eq(where.line_start, cut + bl);
            cr_assert_eq(b.len, len);
            cr_assert(memcmp(b.text, name, len) == 0);
            free(cont);
        }
        free(buf);
    }
    free(text);
}

Test(names, unquote_stops_where_the_name_ends)
{
    char *text = malloc(HF_MAX_NAME + 1);
    hf_i_name_buf b = {.text = text};
    hf_i_unquoted where;
    static const struct {
        const char *in;
        bool ok;
        const char *name;
        size_t end;
    } cases[] = {
        {"\"\"", true, "", 2},
        {"\"a\" rest", true, "a", 3},
        {"x\"a\\qb\\\\\" y", true, "a\\qb\\", 9},
        {"\"a\\\"\"", true, "a\"", 5},
        {"\"a\\n\\\\n\"", true, "a\n\\n", 8},
        {"\"a\\\rb\"", true, "a\\\rb", 6}, /* a lone CR is no line break */
        {"\"a", false, NULL, 0},
        {"\"a\\", false, NULL, 0},
        {"\"a\\\"", false, NULL, 0},
        {"\"a\nb\"", false, NULL, 0},
        {"\"a\r\nb\"", false, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *in = cases[i].in;
        size_t start = in[0] == '"' ? 0 : 1;
        bool ok = hf_i_name_unquote(in, strlen(in), start, &b, &where);
        cr_assert_eq(ok, cases[i].ok, "case %zu", i);
        if (ok) {
            cr_assert_str_eq(b.text, cases[i].name, "case %zu", i);
            cr_assert_eq(where.end, cases[i].end, "case %zu", i);
        }
    }
    /* Too long, or a NUL byte: bad, and the reader still steps over all of it. */
    size_t big = HF_MAX_NAME + 10;
    char *in = malloc(big + 2);
    in[0] = '"';
    memset(in + 1, 'q', big);
    in[big + 1] = '"';
    cr_assert(hf_i_name_unquote(in, big + 2, 0, &b, &where));
    cr_assert(b.bad);
    cr_assert_eq(where.end, big + 2);
    static const char nul[] = "\"a\0b\"";
    cr_assert(hf_i_name_unquote(nul, sizeof nul - 1, 0, &b, &where));
    cr_assert(b.bad);
    free(in);
    free(text);
}

/* ------------------------------------------------------------------------------------------ */
/* Focus files                                                                                */

Test(names, focus_file_names_comments_and_blank_lines)
{
    hf_poset *p = abc();
    expect_ids(p, "", NULL, 0);
    expect_ids(p, "\n\n  \t\n# only a comment\n", NULL, 0);
    static const char *const a_b[] = {"a", "b"};
    expect_ids(p, "a\nb\n", a_b, 2);
    expect_ids(p, "a\nb", a_b, 2);
    expect_ids(p, "  a \t\r\n\tb\r\n", a_b, 2);
    expect_ids(p,
               "\xef\xbb\xbf"
               "a\nb\n",
               a_b, 2);
    expect_ids(p, "# events\n\na\n   # indented comment\nb\n\n", a_b, 2);
    static const char *const odd[] = {"c d", "x\"y", "back\\slash", "new\nline", "#hash", "a"};
    expect_ids(p, "c d\n\"x\\\"y\"\n\"back\\\\slash\"\n\"new\\nline\"\n\"#hash\"\n\"a\"  \n", odd,
               6);
    expect_ids(p, "\"c d\"\nx\"y\nback\\slash\n\"new\\\n\\nline\"\n\"#hash\"\na\n", odd, 6);
    static const char *const twice[] = {"b", "a", "b"};
    expect_ids(p, "b\na\nb\n", twice, 3);
    hf_poset_free(p);
}

/* An input that must fail with `status` at the first occurrence of `at` (line and column counted
 * here), the message containing `says`. */
static void expect_error(const hf_poset *p, const char *text, hf_status status, const char *at,
                         const char *says)
{
    uint32_t *ids = (uint32_t *)&status;
    size_t count = 99;
    hf_error err;
    cr_assert_eq(focus_read(p, text, strlen(text), &ids, &count, &err), status, "%s: %s", text,
                 err.text);
    cr_assert_null(ids);
    cr_assert_eq(count, 0);
    const char *hit = strstr(text, at);
    cr_assert_not_null(hit, "bad test: %s", at);
    int line = 1;
    const char *start = text;
    for (const char *c = text; c < hit; c++)
        if (*c == '\n') {
            line++;
            start = c + 1;
        }
    cr_assert_eq(err.line, line, "%s: line %d, expected %d", text, err.line, line);
    cr_assert_eq(err.column, (int)(hit - start) + 1, "%s: column %d", text, err.column);
    cr_assert(strstr(err.text, says) != NULL, "%s: message '%s' lacks '%s'", text, err.text, says);
}

Test(names, focus_file_errors_name_line_and_event)
{
    hf_poset *p = abc();
    expect_error(p, "a\nb\nnope\n", HF_ENOTFOUND, "nope",
                 "unknown event \"nope\" in the focus set");
    expect_error(p, "a\n  zz top  \n", HF_ENOTFOUND, "zz", "unknown event \"zz top\"");
    expect_error(p, "\"q\\\"r\"\n", HF_ENOTFOUND, "\"q", "unknown event \"q\\\"r\"");
    expect_error(p, "a\n\"q\nb\n", HF_EPARSE, "\"q", "unterminated quoted name");
    expect_error(p, "\"a\" b\n", HF_EPARSE, "b\n", "text after a quoted name");
    expect_error(p, "\"a\"#\n", HF_EPARSE, "#", "text after a quoted name");
    expect_error(p, "a\"\n", HF_ENOTFOUND, "a\"", "unknown event \"a\\\"\"");
    expect_error(p,
                 "\xef\xbb\xbf\xef\xbb\xbf"
                 "a\n",
                 HF_ENOTFOUND,
                 "\xef\xbb\xbf"
                 "a",
                 "unknown event");
    /* a continued name: the line where the name starts */
    expect_error(p, "a\n\"new\\\nlin\"\n", HF_ENOTFOUND, "\"new", "unknown event \"newlin\"");
    /* and a later error counts the continued line */
    expect_error(p, "\"new\\\n\\nline\"\nnope\n", HF_ENOTFOUND, "nope", "\"nope\"");
    /* a NUL byte, a name too long: no event has them */
    static const char nul[] = "a\nb\0c\n";
    uint32_t *ids;
    size_t count;
    hf_error err;
    cr_assert_eq(focus_read(p, nul, sizeof nul - 1, &ids, &count, &err), HF_ENOTFOUND);
    cr_assert_eq(err.line, 2);
    cr_assert(strstr(err.text, "holds a NUL byte") != NULL, "%s", err.text);
    size_t big = 3 * HF_MAX_NAME;
    char *in = malloc(big + 1);
    memset(in, 'a', big);
    in[big] = '\n';
    cr_assert_eq(focus_read(p, in, big + 1, &ids, &count, &err), HF_ENOTFOUND);
    cr_assert(strstr(err.text, "too long") != NULL, "%s", err.text);
    cr_assert_lt(strlen(err.text), 160);
    free(in);
    /* arguments */
    cr_assert_eq(hf_focus_read_mem(NULL, "a", 1, &ids, &count, NULL), HF_EINVAL);
    cr_assert_eq(hf_focus_read_mem(p, NULL, 1, &ids, &count, NULL), HF_EINVAL);
    cr_assert_eq(hf_focus_read_mem(p, "a", 1, NULL, &count, NULL), HF_EINVAL);
    cr_assert_eq(hf_focus_read_mem(p, "a", 1, &ids, NULL, NULL), HF_EINVAL);
    hf_focus_free(p, NULL);
    hf_poset_free(p);
}

/* Random orders of random byte-string names: a focus file of random events, each written as the
 * family text format writes names (hf_name_write), reads back as those events; and the same
 * names read by the family text reader give the same events (one set of rules). */
Test(names, focus_and_family_agree_on_every_name)
{
    uint64_t rng = 7;
    for (int iter = 0; iter < 400; iter++) {
        uint32_t n = 1 + tu_below(&rng, 12);
        char names[12][16];
        hf_poset_builder *b = NULL;
        cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
        for (uint32_t i = 0; i < n;) {
            size_t len = random_name(names[i], &rng);
            /* no NUL, no name that is blank or a comment on a bare line */
            if (strlen(names[i]) != len)
                continue;
            if (hf_poset_builder_add_event(b, names[i], NULL) == HF_OK)
                i++;
        }
        hf_poset *p = NULL;
        cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
        hf_poset_builder_free(b);
        /* the focus file: k random events, quoted when the writer quotes them */
        uint32_t k = tu_below(&rng, 2 * n), want[24];
        char *text = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&text, &size);
        for (uint32_t i = 0; i < k; i++) {
            want[i] = tu_below(&rng, n);
            if (tu_below(&rng, 3) == 0)
                fputs(tu_below(&rng, 2) ? "# comment\n" : "\n", out);
            cr_assert_eq(hf_name_write(out, names[want[i]]), HF_OK);
            fputs(tu_below(&rng, 2) ? "\n" : " \r\n", out);
        }
        fclose(out);
        uint32_t *ids = NULL;
        size_t count = 0;
        hf_error err;
        cr_assert_eq(focus_read(p, text, size, &ids, &count, &err), HF_OK, "iter %d: %s\n%s", iter,
                     err.text, text);
        cr_assert_eq(count, k);
        for (uint32_t i = 0; i < k; i++)
            cr_assert_eq(ids[i], want[i], "iter %d entry %u", iter, i);
        hf_focus_free(p, ids);
        free(text);
        /* the family reader: one schedule listing every event in a random order */
        uint32_t *perm = tu_random_perm(n, &rng);
        out = open_memstream(&text, &size);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                fputc(' ', out);
            cr_assert_eq(hf_name_write(out, names[perm[i]]), HF_OK);
        }
        fputc('\n', out);
        fclose(out);
        hf_family *f = NULL;
        cr_assert_eq(hf_family_read_mem(p, text, size, &f, NULL, &err), HF_OK, "%s\n%s", err.text,
                     text);
        cr_assert_eq(hf_family_size(f), 1);
        cr_assert(memcmp(hf_family_schedule(f, 0), perm, n * sizeof *perm) == 0);
        hf_family_free(f);
        free(text);
        free(perm);
        hf_poset_free(p);
    }
}

/* Every allocation of a focus read fails in turn: HF_ENOMEM, nothing returned, nothing leaked. */
Test(names, focus_out_of_memory_on_every_allocation)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    static char names[][16] = {"a", "b", "c"};
    hf_poset *p = poset_of(ctx, names, 3);
    char text[400] = "";
    for (int i = 0; i < 60; i++) /* enough ids for the array to grow a few times */
        strcat(text, i % 3 == 0 ? "a\n" : i % 3 == 1 ? "\"b\"\n" : "c\n");
    int failures = 0;
    for (long k = 0;; k++) {
        uint32_t *ids = NULL;
        size_t count = 0;
        hf_error err;
        long live = c.live;
        c.left = k;
        hf_status st = hf_focus_read_mem(p, text, strlen(text), &ids, &count, &err);
        c.left = -1;
        if (st == HF_OK) {
            cr_assert_eq(count, 60);
            cr_assert_eq(ids[59], 2);
            hf_focus_free(p, ids);
            cr_assert_eq(c.live, live);
            break;
        }
        cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", k, err.text);
        cr_assert_null(ids);
        cr_assert_eq(c.live, live, "leak after failing allocation %ld", k);
        failures++;
    }
    cr_assert_gt(failures, 3);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}
