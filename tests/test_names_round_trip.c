/* Every byte string is an event name that comes back unchanged: through the family text and JSON
 * formats always, through DOT whenever some DOT ID reads back as it (and a clear refusal
 * otherwise). Random names drawn mostly from the bytes that quoting treats specially. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

TU_SUITE(names_round_trip);

static const char *const pieces[] = {"\\",   "\"", "\n", "\r", "<", ">",    "%",    " ",
                                     "a",    "Z",  "_",  "0",  "-", ".",    "\t",   "\xc3\xa9",
                                     "\xff", "#",  ";",  "{",  "}", "\x01", "node", "\xef\xbb\xbf",
                                     "\\n"};

/* A random name of 0..8 pieces into buf (room for 8 * 4 + 1 bytes). */
static void random_name(uint64_t *rng, char *buf)
{
    buf[0] = '\0';
    uint32_t k = tu_below(rng, 9);
    for (uint32_t i = 0; i < k; i++)
        strcat(buf, pieces[tu_below(rng, sizeof pieces / sizeof pieces[0])]);
}

/* n events with distinct random names (the k-th name kept in names[k]) and random edges from
 * lower to higher positions of a random permutation. */
static hf_poset *random_named_order(uint32_t n, uint64_t *rng, char (*names)[40])
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    uint32_t k = 0;
    while (k < n) {
        random_name(rng, names[k]);
        hf_status st = hf_poset_builder_add_event(b, names[k], NULL);
        cr_assert(st == HF_OK || st == HF_EDUPLICATE);
        k += st == HF_OK;
    }
    uint32_t *perm = tu_random_perm(n, rng);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (tu_below(rng, 4) == 0)
                cr_assert_eq(hf_poset_builder_add_order(b, perm[i], perm[j]), HF_OK);
    free(perm);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_poset_builder_finish(b, &p, &err), HF_OK, "%s", err.text);
    hf_poset_builder_free(b);
    return p;
}

/* A linear extension chosen at random (Kahn's algorithm with a random available event), from
 * the order's Hasse lists: only its events matter here, not its order. */
static void random_schedule(const hf_poset *p, uint64_t *rng, uint32_t *s)
{
    uint32_t n = hf_poset_size(p), avail = 0;
    uint32_t *indeg = calloc(n, sizeof *indeg), *ready = malloc(n * sizeof *ready);
    for (uint32_t v = 0; v < n; v++) {
        hf_poset_hasse_pred(p, v, &indeg[v]);
        if (indeg[v] == 0)
            ready[avail++] = v;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = tu_below(rng, avail), v = ready[k];
        ready[k] = ready[--avail];
        s[i] = v;
        uint32_t c;
        const uint32_t *succ = hf_poset_hasse_succ(p, v, &c);
        for (uint32_t j = 0; j < c; j++)
            if (--indeg[succ[j]] == 0)
                ready[avail++] = succ[j];
    }
    free(indeg);
    free(ready);
}

static char *write_family(const hf_poset *p, const hf_family *f, hf_format format, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    cr_assert_not_null(out);
    hf_family_header h = {.d = 2, .method = "test"};
    cr_assert_eq(hf_family_write(p, f, out, format, &h), HF_OK);
    fclose(out);
    return text;
}

Test(names_round_trip, family_text_and_json_give_back_every_name)
{
    uint64_t rng = 1124;
    char(*names)[40] = malloc(24 * sizeof *names);
    for (int it = 0; it < 400; it++) {
        uint32_t n = 1 + tu_below(&rng, 24);
        hf_poset *p = random_named_order(n, &rng, names);
        for (uint32_t v = 0; v < n; v++)
            cr_assert_str_eq(hf_poset_name(p, v), names[v]);
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        uint32_t *s = malloc(n * sizeof *s);
        for (int r = 0; r < 3; r++) {
            random_schedule(p, &rng, s);
            cr_assert_eq(hf_family_append(f, s), HF_OK);
        }
        for (int format = HF_FORMAT_TEXT; format <= HF_FORMAT_JSON; format++) {
            size_t len;
            char *text = write_family(p, f, (hf_format)format, &len);
            hf_family *back = NULL;
            hf_error err;
            cr_assert_eq(hf_family_read_mem(p, text, len, &back, NULL, &err), HF_OK,
                         "format %d, line %d: %s\n%s", format, err.line, err.text, text);
            cr_assert_eq(hf_family_size(back), 3);
            for (size_t r = 0; r < 3; r++)
                cr_assert_arr_eq(hf_family_schedule(back, r), hf_family_schedule(f, r),
                                 n * sizeof *s, "format %d, schedule %zu:\n%s", format, r, text);
            hf_family_free(back);
            free(text);
        }
        free(s);
        hf_family_free(f);
        hf_poset_free(p);
    }
    free(names);
}

Test(names_round_trip, dot_gives_back_every_name_it_writes)
{
    uint64_t rng = 2411;
    char(*names)[40] = malloc(24 * sizeof *names);
    int written = 0, refused = 0;
    for (int it = 0; it < 400; it++) {
        uint32_t n = 1 + tu_below(&rng, 6);
        hf_poset *p = random_named_order(n, &rng, names);
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        hf_status st = hf_dot_write(p, out);
        fclose(out);
        if (st == HF_EUNSUPPORTED) {
            /* nothing written, and some name is one that no DOT ID gives back */
            cr_assert_eq(len, 0);
            FILE *sink = fopen("/dev/null", "w");
            bool some = false;
            for (uint32_t v = 0; v < n; v++)
                some = some || hf_dot_write_name(sink, names[v]) == HF_EUNSUPPORTED;
            fclose(sink);
            cr_assert(some);
            refused++;
        } else {
            cr_assert_eq(st, HF_OK);
            hf_poset *q = NULL;
            hf_error err;
            cr_assert_eq(hf_dot_read_mem(NULL, text, len, &q, &err), HF_OK, "%s\n%s", err.text,
                         text);
            cr_assert_eq(hf_poset_size(q), n);
            for (uint32_t v = 0; v < n; v++)
                cr_assert_str_eq(hf_poset_name(q, v), names[v], "%s", text);
            for (uint32_t u = 0; u < n; u++)
                for (uint32_t v = 0; v < n; v++)
                    cr_assert_eq(hf_poset_less(q, u, v), hf_poset_less(p, u, v));
            hf_poset_free(q);
            written++;
        }
        free(text);
        hf_poset_free(p);
    }
    /* both paths were taken, and writing is the rule */
    cr_assert(refused > 0 && written > 3 * refused, "%d written, %d refused", written, refused);
    free(names);
}

/* The form each kind of name gets, and the names no DOT ID gives back. */
Test(names_round_trip, dot_ids_chosen_for_graphviz)
{
    static const struct {
        const char *name, *id;
    } cases[] = {
        {"plain", "plain"},
        {"-1.5", "-1.5"},
        {"x\\\\y", "\"x\\\\y\""}, /* backslashes are written as they are */
        {"C:\\new", "\"C:\\new\""},
        {"a\"b", "\"a\\\"b\""},
        {"node", "\"node\""},
        {"two\nlines", "\"two\nlines\""},
        {"ends\\", "<ends\\>"}, /* \" would be a quote: angle brackets instead */
        {"\n", "<\n>"},         /* a lone newline is dropped inside quotes */
        {"q\\\"", "<q\\\">"},
        {"", "\"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        cr_assert_eq(hf_dot_write_name(out, cases[i].name), HF_OK, "%s", cases[i].name);
        fclose(out);
        cr_assert_str_eq(text, cases[i].id);
        free(text);
    }
    static const char *const refused[] = {"%3", "<a\\", "x\\\n>", "\\\"<"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        cr_assert_eq(hf_dot_write_name(out, refused[i]), HF_EUNSUPPORTED, "%s", refused[i]);
        fclose(out);
        cr_assert_eq(len, 0);
        free(text);
    }
    /* a leading % is only a problem for node names */
    FILE *sink = fopen("/dev/null", "w");
    cr_assert_eq(hf_dot_write_value(sink, "%3"), HF_OK);
    cr_assert_eq(hf_dot_write_name(NULL, "a"), HF_EINVAL);
    cr_assert_eq(hf_dot_write_value(sink, NULL), HF_EINVAL);
    fclose(sink);
}

Test(names_round_trip, dot_write_refuses_before_writing)
{
    hf_poset_builder *b = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "a", NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_add_event(b, "%b", NULL), HF_OK);
    cr_assert_eq(hf_poset_builder_add_order(b, 0, 1), HF_OK);
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_eq(hf_dot_write(p, out), HF_EUNSUPPORTED);
    fclose(out);
    cr_assert_eq(len, 0);
    free(text);
    hf_poset_free(p);
}
