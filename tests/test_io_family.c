/* Tests of the family text and JSON formats (lib/io_family*.c): exact writer output, round trips
 * on random orders with awkward names, every reader error with its position, and robustness. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "io_family_read_i.h"
#include "oracle.h"
#include "strtab.h"
#include "util.h"

TU_SUITE(io_family);

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */

static hf_status read_str(const hf_poset *p, const char *text, hf_family **f, hf_family_header *h,
                          hf_error *err)
{
    return tu_read_len(p, text, strlen(text), f, h, err);
}

/* Line and column of a byte offset, counted here independently of the reader. */
static void position_of(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    size_t start = 0;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') {
            (*line)++;
            start = i + 1;
        }
    *col = (int)(off - start) + 1;
}

/* An input that must fail with `status` at the first occurrence of `at` (plus adj bytes), or
 * at the end of the input when at is NULL; the message must contain `says` if non-NULL. */
typedef struct bad_case {
    const char *input;
    hf_status status;
    const char *at;
    int adj;
    const char *says;
} bad_case;

static void check_bad(const hf_poset *p, const bad_case *c, size_t index)
{
    hf_family *f = (hf_family *)&index;
    hf_error err;
    hf_status st = read_str(p, c->input, &f, NULL, &err);
    cr_assert_eq(st, c->status, "case %zu (%s): status %d (%s), expected %d", index, c->input,
                 (int)st, err.text, (int)c->status);
    cr_assert_null(f, "case %zu: no family on error", index);
    size_t off = strlen(c->input);
    if (c->at) {
        const char *hit = strstr(c->input, c->at);
        cr_assert_not_null(hit, "case %zu: bad test, marker missing", index);
        off = (size_t)(hit - c->input);
    }
    int line, col;
    position_of(c->input, off + (size_t)c->adj, &line, &col);
    cr_assert_eq(err.line, line, "case %zu (%s): line %d, expected %d: %s", index, c->input,
                 err.line, line, err.text);
    cr_assert_eq(err.column, col, "case %zu (%s): column %d, expected %d: %s", index, c->input,
                 err.column, col, err.text);
    /* the position is in err->line/column only: a CLI prints it as FILE:LINE: */
    cr_assert(strstr(err.text, "line ") != err.text, "case %zu: message '%s' repeats the line",
              index, err.text);
    if (c->says)
        cr_assert(strstr(err.text, c->says) != NULL, "case %zu: message '%s' lacks '%s'", index,
                  err.text, c->says);
}

/* The order used by the error tests: a < b, c and "x y" free. */
static hf_poset *small_poset(void)
{
    static const char *const names[] = {"a", "b", "c", "x y"};
    static const uint32_t edges[][2] = {{0, 1}};
    return tu_named_poset(NULL, names, 4, edges, 1);
}

static const uint32_t *row_of(const hf_family *f, size_t i) { return hf_family_schedule(f, i); }

static void assert_row(const hf_poset *p, const hf_family *f, size_t i, const char *const *names)
{
    const uint32_t *s = row_of(f, i);
    cr_assert_not_null(s);
    for (uint32_t k = 0; k < hf_poset_size(p); k++) {
        uint32_t id;
        cr_assert_eq(hf_poset_find(p, names[k], &id), HF_OK);
        cr_assert_eq(s[k], id, "schedule %zu position %u", i, k);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Writer output                                                                              */

static const char *const awkward[] = {"a b",   "x\"y",      "back\\slash", "new\nline",
                                      "",      "node",      "-1.5",        "\xc3\xa9",
                                      "plain", "tab\there", "ctl\x01"};
#define AWKWARD_N 11u

static hf_poset *awkward_poset(hf_ctx *ctx)
{
    static const uint32_t edges[][2] = {{0, 8}, {6, 7}};
    return tu_named_poset(ctx, awkward, AWKWARD_N, edges, 2);
}

static hf_family *two_schedules(void)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, AWKWARD_N, &f), HF_OK);
    uint32_t s[AWKWARD_N];
    for (uint32_t i = 0; i < AWKWARD_N; i++)
        s[i] = i;
    cr_assert_eq(hf_family_append(f, s), HF_OK);
    for (uint32_t i = 0; i < AWKWARD_N; i++)
        s[i] = AWKWARD_N - 1 - i;
    cr_assert_eq(hf_family_append(f, s), HF_OK);
    return f;
}

static const char awkward_text_row[] =
    "\"a b\" \"x\\\"y\" \"back\\\\slash\" \"new\\nline\" \"\" \"node\" -1.5 \xc3\xa9 plain "
    "\"tab\there\" \"ctl\x01\"\n";
static const char awkward_text_row_rev[] =
    "\"ctl\x01\" \"tab\there\" plain \xc3\xa9 -1.5 \"node\" \"\" \"new\\nline\" "
    "\"back\\\\slash\" \"x\\\"y\" \"a b\"\n";
static const char awkward_json_events[] =
    "[\"a b\", \"x\\\"y\", \"back\\\\slash\", \"new\\nline\", \"\", \"node\", \"-1.5\", "
    "\"\xc3\xa9\", \"plain\", \"tab\\there\", \"ctl\\u0001\"]";

Test(io_family, text_output_is_exact)
{
    hf_poset *p = awkward_poset(NULL);
    hf_family *f = two_schedules();
    hf_family_header h = {2, "test", false, 0, 0, 0};
    char *got = tu_write_family(p, f, HF_FORMAT_TEXT, &h, NULL);
    char want[1024];
    snprintf(want, sizeof want, "# hitfam %s d=2 method=test events=11 schedules=2\n%s%s",
             hf_version_string(), awkward_text_row, awkward_text_row_rev);
    cr_assert_str_eq(got, want);
    free(got);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, json_output_is_exact)
{
    hf_poset *p = awkward_poset(NULL);
    hf_family *f = two_schedules();
    hf_family_header h = {2, "test", false, 0, 0, 0};
    char *got = tu_write_family(p, f, HF_FORMAT_JSON, &h, NULL);
    char want[1024];
    snprintf(want, sizeof want,
             "{\"hitfam\": \"%s\", \"d\": 2, \"method\": \"test\", \"events\": %s, "
             "\"schedules\": [\n[0,1,2,3,4,5,6,7,8,9,10],\n[10,9,8,7,6,5,4,3,2,1,0]\n]}\n",
             hf_version_string(), awkward_json_events);
    cr_assert_str_eq(got, want);
    free(got);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, streaming_writer_output_without_count)
{
    hf_poset *p = awkward_poset(NULL);
    char want[1024];
    for (int format = 0; format < 2; format++) {
        for (int m = 0; m < 2; m++) {
            char *buf = NULL;
            size_t size = 0;
            FILE *out = open_memstream(&buf, &size);
            hf_writer *w = NULL;
            cr_assert_eq(hf_writer_new(p, out, (hf_format)format, NULL, &w), HF_OK);
            hf_sink sink = hf_writer_sink(w);
            uint32_t s[AWKWARD_N];
            for (uint32_t i = 0; i < AWKWARD_N; i++)
                s[i] = i;
            if (m)
                cr_assert_eq(sink.put(sink.user, s, AWKWARD_N), HF_OK);
            cr_assert_eq(hf_writer_count(w), (uint64_t)m);
            cr_assert_eq(hf_writer_close(w), HF_OK);
            fclose(out);
            if (format == HF_FORMAT_TEXT)
                snprintf(want, sizeof want, "# hitfam %s method=unknown events=11\n%s",
                         hf_version_string(), m ? awkward_text_row : "");
            else
                snprintf(want, sizeof want,
                         "{\"hitfam\": \"%s\", \"method\": \"unknown\", \"events\": "
                         "%s, \"schedules\": [%s]}\n",
                         hf_version_string(), awkward_json_events,
                         m ? "\n[0,1,2,3,4,5,6,7,8,9,10]\n" : "");
            cr_assert_str_eq(buf, want);
            free(buf);
        }
    }
    hf_poset_free(p);
}

Test(io_family, header_method_needing_quotes_reads_back)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    uint32_t s[4] = {2, 0, 3, 1};
    cr_assert_eq(hf_family_append(f, s), HF_OK);
    /* The quoted method holds what looks like an events= key: it must not be read as one. */
    hf_family_header h = {3, "odd events=99 \"q\"", false, 0, 0, 0};
    char *text = tu_write_family(p, f, HF_FORMAT_TEXT, &h, NULL);
    cr_assert(strstr(text, "method=\"odd events=99 \\\"q\\\"\" events=4 schedules=1\n") != NULL,
              "%s", text);
    hf_family *g = NULL;
    hf_family_header got;
    hf_error err;
    cr_assert_eq(read_str(p, text, &g, &got, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    cr_assert_eq(got.d, 3);
    cr_assert_null(got.method);
    free(text);
    hf_family_free(g);
    char *json = tu_write_family(p, f, HF_FORMAT_JSON, &h, NULL);
    cr_assert(strstr(json, "\"method\": \"odd events=99 \\\"q\\\"\"") != NULL, "%s", json);
    cr_assert_eq(read_str(p, json, &g, &got, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    free(json);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, writer_sink_checks_permutations)
{
    hf_poset *p = small_poset();
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    hf_writer *w = NULL;
    hf_family_header h = {2, "dfs", true, 2, 0, 0};
    cr_assert_eq(hf_writer_new(p, out, HF_FORMAT_TEXT, &h, &w), HF_OK);
    hf_sink sink = hf_writer_sink(w);
    uint32_t good[4] = {0, 2, 3, 1}, rep[4] = {0, 2, 2, 1}, big[4] = {0, 2, 4, 1};
    uint32_t five[5] = {0, 1, 2, 3, 4};
    cr_assert_eq(sink.put(sink.user, rep, 4), HF_ESCHEDULE);
    cr_assert_eq(sink.put(sink.user, big, 4), HF_ESCHEDULE);
    cr_assert_eq(sink.put(sink.user, five, 5), HF_ESCHEDULE);
    cr_assert_eq(sink.put(sink.user, five, 3), HF_ESCHEDULE);
    cr_assert_eq(sink.put(sink.user, good, 4), HF_OK);
    /* The order is not the writer's business: b before a is written. */
    uint32_t against[4] = {1, 0, 2, 3};
    cr_assert_eq(sink.put(sink.user, against, 4), HF_OK);
    cr_assert_eq(hf_writer_count(w), 2);
    cr_assert_eq(hf_writer_close(w), HF_OK);
    fclose(out);
    char want[256];
    snprintf(want, sizeof want,
             "# hitfam %s d=2 method=dfs events=4 schedules=2\na c \"x y\" b\nb a c \"x y\"\n",
             hf_version_string());
    cr_assert_str_eq(buf, want);
    free(buf);
    hf_sink none = hf_writer_sink(NULL);
    cr_assert_eq(none.put(none.user, good, 4), HF_EINVAL);
    cr_assert_eq(hf_writer_close(NULL), HF_OK);
    cr_assert_eq(hf_writer_count(NULL), 0);
    hf_writer *w2 = (hf_writer *)&w;
    cr_assert_eq(hf_writer_new(NULL, stdout, HF_FORMAT_TEXT, NULL, &w2), HF_EINVAL);
    cr_assert_null(w2);
    cr_assert_eq(hf_writer_new(p, NULL, HF_FORMAT_TEXT, NULL, &w2), HF_EINVAL);
    cr_assert_eq(hf_writer_new(p, stdout, (hf_format)7, NULL, &w2), HF_EINVAL);
    cr_assert_eq(hf_writer_new(p, stdout, HF_FORMAT_TEXT, NULL, NULL), HF_EINVAL);
    hf_poset_free(p);
}

Test(io_family, family_write_rejects_bad_families)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    uint32_t good[4] = {0, 1, 2, 3}, bad[4] = {0, 1, 1, 3};
    cr_assert_eq(hf_family_append(f, good), HF_OK);
    cr_assert_eq(hf_family_append(f, bad), HF_OK);
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    cr_assert_eq(hf_family_write(p, f, out, HF_FORMAT_TEXT, NULL), HF_ESCHEDULE);
    fclose(out);
    /* Nothing but the header: the bad schedule is found before any schedule is written. */
    cr_assert_eq(strchr(buf, '\n') - buf + 1, (long)size, "%s", buf);
    free(buf);
    hf_family *g = NULL;
    cr_assert_eq(hf_family_new(NULL, 3, &g), HF_OK);
    cr_assert_eq(hf_family_write(p, g, stdout, HF_FORMAT_TEXT, NULL), HF_EMISMATCH);
    cr_assert_eq(hf_family_write(NULL, g, stdout, HF_FORMAT_TEXT, NULL), HF_EINVAL);
    cr_assert_eq(hf_family_write(p, NULL, stdout, HF_FORMAT_TEXT, NULL), HF_EINVAL);
    cr_assert_eq(hf_family_write(p, f, NULL, HF_FORMAT_TEXT, NULL), HF_EINVAL);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, write_errors_give_eio)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    uint32_t s[4] = {0, 1, 2, 3};
    cr_assert_eq(hf_family_append(f, s), HF_OK);
    /* A stream open for reading only: the first write fails. */
    FILE *ro = fopen("/dev/null", "r");
    cr_assert_not_null(ro);
    hf_writer *w = (hf_writer *)&f;
    cr_assert_eq(hf_writer_new(p, ro, HF_FORMAT_TEXT, NULL, &w), HF_EIO);
    cr_assert_null(w);
    cr_assert_eq(hf_family_write(p, f, ro, HF_FORMAT_JSON, NULL), HF_EIO);
    fclose(ro);
    /* A full device: writes are buffered, then the flush fails; puts or the close report it. */
    FILE *full = fopen("/dev/full", "w");
    if (!full) {
        hf_family_free(f);
        hf_poset_free(p);
        cr_skip_test("no /dev/full");
    }
    fclose(full);
    for (int format = 0; format < 2; format++) {
        full = fopen("/dev/full", "w");
        cr_assert_eq(hf_writer_new(p, full, (hf_format)format, NULL, &w), HF_OK);
        hf_sink sink = hf_writer_sink(w);
        hf_status st = HF_OK;
        for (int k = 0; k < 100000 && st == HF_OK; k++)
            st = sink.put(sink.user, s, 4);
        cr_assert_eq(st, HF_EIO);
        cr_assert_eq(sink.put(sink.user, s, 4), HF_EIO, "later puts keep failing");
        cr_assert_eq(hf_writer_close(w), HF_EIO);
        fclose(full);
        full = fopen("/dev/full", "w");
        cr_assert_eq(hf_writer_new(p, full, (hf_format)format, NULL, &w), HF_OK);
        cr_assert_eq(hf_writer_close(w), HF_EIO, "the flush in close fails");
        fclose(full);
        full = fopen("/dev/full", "w");
        cr_assert_eq(hf_family_write(p, f, full, (hf_format)format, NULL), HF_EIO);
        fclose(full);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Round trips                                                                                */

Test(io_family, round_trip_random_orders_and_awkward_names)
{
    uint64_t rng = 2024;
    for (int iter = 0; iter < 300; iter++) {
        uint32_t n = iter % 10 == 9 ? 30 + tu_below(&rng, 30) : tu_below(&rng, 9);
        hf_poset *p = tu_random_awkward_poset(NULL, n, &rng);
        size_t m = tu_below(&rng, 6);
        hf_family *f = tu_random_family(p, m, &rng);
        static const char *const methods[] = {NULL, "greedy", "a b", ""};
        hf_family_header h = {tu_below(&rng, 9), methods[tu_below(&rng, 4)], false, 0, 0, 0};
        for (int format = 0; format < 2; format++) {
            size_t len;
            char *text = tu_write_family(p, f, (hf_format)format, &h, &len);
            hf_family *g = NULL;
            hf_family_header got;
            hf_error err;
            hf_status st = tu_read_len(p, text, len, &g, &got, &err);
            cr_assert_eq(st, HF_OK, "iter %d format %d: %s\n%s", iter, format, err.text, text);
            tu_assert_family_eq(f, g);
            cr_assert_eq(got.d, h.d);
            cr_assert(got.schedules_known);
            cr_assert_eq(got.schedules, m);
            hf_family_free(g);
            free(text);

            /* The streaming writer (no count in the header) reads back the same. */
            char *buf = NULL;
            size_t size = 0;
            FILE *out = open_memstream(&buf, &size);
            hf_writer *w = NULL;
            cr_assert_eq(hf_writer_new(p, out, (hf_format)format, &h, &w), HF_OK);
            hf_sink sink = hf_writer_sink(w);
            for (size_t i = 0; i < m; i++)
                cr_assert_eq(sink.put(sink.user, hf_family_schedule(f, i), n), HF_OK);
            cr_assert_eq(hf_writer_count(w), m);
            cr_assert_eq(hf_writer_close(w), HF_OK);
            fclose(out);
            st = tu_read_len(p, buf, size, &g, NULL, &err);
            if (n == 0 && format == HF_FORMAT_TEXT) {
                /* Over no events, text schedules are blank lines: without a count, none. */
                cr_assert_eq(st, HF_OK);
                cr_assert_eq(hf_family_size(g), 0);
            } else {
                cr_assert_eq(st, HF_OK, "iter %d format %d: %s\n%s", iter, format, err.text, buf);
                tu_assert_family_eq(f, g);
            }
            hf_family_free(g);
            free(buf);
        }
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* Once the guesses of a schedule mostly miss (random schedules), the text reader looks names up
 * in batches: every schedule, error and position must be the one-at-a-time reading's. An order
 * of short, long (past the reader's 12-byte key), quoted and CR-holding names; families of 40
 * random schedules (the batches start at the second, and every 16th schedule guesses again),
 * read back whole, with blanks and tabs between names; then one defect placed in schedule 5 at a
 * random place, whose status, message, line and column the test computes itself. */
Test(io_family, text_names_looked_up_in_batches_read_as_one_at_a_time)
{
    uint64_t rng = 77;
    enum { N = 150, M = 40 };
    char *names[N];
    for (uint32_t v = 0; v < N; v++) {
        char buf[64];
        if (v % 7 == 3)
            snprintf(buf, sizeof buf, "a_rather_long_event_name_%u", v);
        else if (v % 11 == 5)
            snprintf(buf, sizeof buf, "needs quotes %u", v);
        else if (v % 13 == 6)
            snprintf(buf, sizeof buf, "cr\r%u", v); /* a lone CR: quoted by the writer */
        else
            snprintf(buf, sizeof buf, "e%u", v);
        names[v] = strdup(buf);
    }
    uint32_t edges[N][2];
    size_t ne = 0;
    for (uint32_t v = 1; v < N; v++)
        if (tu_below(&rng, 3) == 0) {
            edges[ne][0] = tu_below(&rng, v);
            edges[ne++][1] = v;
        }
    hf_poset *p =
        tu_named_poset(NULL, (const char *const *)names, N, (const uint32_t(*)[2])edges, ne);
    for (int iter = 0; iter < 20; iter++) {
        hf_family *f = tu_random_family(p, M, &rng);
        /* by hand, so that blanks vary: a name quoted only when it must be */
        size_t cap = 1 << 16, len = 0;
        char *text = malloc(cap);
        size_t defect_at = 0, defect_line_start = 0;
        /* 0: none, 1: repeat, 2: unknown, 3: too long or holding a NUL byte, 4: one missing */
        int kind = iter % 5;
        uint32_t pick = tu_below(&rng, N - 1) + 1, repeated = 0;
        for (size_t i = 0; i < M; i++) {
            const uint32_t *row = hf_family_schedule(f, i);
            if (i == 4)
                defect_line_start = len;
            for (uint32_t q = 0; q < N; q++) {
                if (len + 8300 > cap)
                    text = realloc(text, cap *= 2);
                if (i == 4 && q == pick && kind == 4)
                    continue; /* one event left out */
                if (i == 4 && q == pick && kind != 0) {
                    /* an extra token before row[q]: a repeat of the event two places back, a
                     * name of no event, or a name longer than HF_MAX_NAME */
                    defect_at = len + 1;
                    text[len++] = ' ';
                    if (kind == 1) {
                        repeated = row[q - 1 - (q >= 2)];
                        const char *nm = names[repeated];
                        len +=
                            (size_t)sprintf(text + len, strpbrk(nm, " \r") ? "\"%s\"" : "%s", nm);
                    } else if (kind == 2) {
                        len += (size_t)sprintf(text + len, "e%u", N + 1000);
                    } else if (iter / 5 % 2) { /* a NUL byte inside */
                        memcpy(text + len, "e1\0x", 4);
                        len += 4;
                    } else {
                        memset(text + len, 'x', HF_MAX_NAME + 1);
                        len += HF_MAX_NAME + 1;
                    }
                }
                if (q > 0)
                    len += (size_t)sprintf(text + len, "%s", (q + i) % 9 == 0 ? " \t " : " ");
                const char *nm = names[row[q]];
                len += (size_t)sprintf(text + len, strpbrk(nm, " \r") ? "\"%s\"" : "%s", nm);
            }
            text[len++] = '\n';
        }
        hf_family *g = NULL, *one = NULL;
        hf_error err, err1;
        hf_status st = tu_read_len(p, text, len, &g, NULL, &err);
        /* the same reading one name at a time */
        hf_i_text_batches = false;
        hf_status st1 = tu_read_len(p, text, len, &one, NULL, &err1);
        hf_i_text_batches = true;
        cr_assert_eq(st, st1, "iter %d: %s / %s", iter, err.text, err1.text);
        if (st) {
            cr_assert_str_eq(err.text, err1.text);
            cr_assert_eq(err.line, err1.line);
            cr_assert_eq(err.column, err1.column);
        } else {
            tu_assert_family_eq(g, one);
            hf_family_free(one);
        }
        if (kind == 0) {
            cr_assert_eq(st, HF_OK, "iter %d: %s", iter, err.text);
            tu_assert_family_eq(f, g);
            hf_family_free(g);
        } else {
            static const hf_status want[] = {HF_OK, HF_ESCHEDULE, HF_ENOTFOUND, HF_ENOTFOUND,
                                             HF_ESCHEDULE};
            cr_assert_eq(st, want[kind], "iter %d kind %d: %d %s", iter, kind, (int)st, err.text);
            cr_assert_null(g);
            cr_assert_eq(err.line, 5, "iter %d kind %d: line %d: %s", iter, kind, err.line,
                         err.text);
            char says[128];
            if (kind == 1) {
                char q[96];
                snprintf(says, sizeof says, "schedule 5 repeats event %s",
                         hf_i_name_quote(names[repeated], q, sizeof q));
            } else if (kind == 2) {
                snprintf(says, sizeof says, "unknown event e%u", N + 1000);
            } else if (kind == 3) {
                snprintf(says, sizeof says, "(too long or holds a NUL byte)");
            } else {
                char q[96];
                snprintf(says, sizeof says, "schedule 5 misses event %s",
                         hf_i_name_quote(names[hf_family_schedule(f, 4)[pick]], q, sizeof q));
            }
            cr_assert(strstr(err.text, says) != NULL, "iter %d kind %d: '%s' lacks '%s'", iter,
                      kind, err.text, says);
            int col = kind == 4 ? 1 : (int)(defect_at - defect_line_start) + 1;
            cr_assert_eq(err.column, col, "iter %d kind %d: column %d, expected %d: %s", iter, kind,
                         err.column, col, err.text);
        }
        free(text);
        hf_family_free(f);
    }
    hf_poset_free(p);
    for (uint32_t v = 0; v < N; v++)
        free(names[v]);
}

/* A batch takes a slot's candidate only when its bytes are the token's: e50642 is no event of an
 * order holding e23970, whose hash agrees with its own in the 32 bits a slot keeps. */
Test(io_family, text_batches_compare_the_names_their_hash_bits_agree_on)
{
    const char *names[] = {"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e23970"};
    enum { N = sizeof names / sizeof names[0] };
    cr_assert_eq((uint32_t)hf_i_strtab_hash("e23970", 6), (uint32_t)hf_i_strtab_hash("e50642", 6),
                 "the hash changed: pick two names whose low 32 bits of hash agree");
    hf_poset *p = tu_named_poset(NULL, names, N, NULL, 0);
    uint64_t rng = 5;
    char text[4096];
    size_t len = 0, at = 0;
    for (int line = 1; line <= 6; line++) {
        uint32_t *perm = tu_random_perm(N, &rng);
        for (uint32_t q = 0; q < N; q++) {
            const char *nm = names[perm[q]];
            if (line == 5 && perm[q] == N - 1) {
                nm = "e50642";
                at = len + (q > 0);
            }
            len += (size_t)sprintf(text + len, q ? " %s" : "%s", nm);
        }
        text[len++] = '\n';
        free(perm);
    }
    text[len] = '\0';
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(tu_read_len(p, text, len, &f, NULL, &err), HF_ENOTFOUND, "%s", err.text);
    cr_assert(strstr(err.text, "unknown event e50642") != NULL, "%s", err.text);
    int line, col;
    position_of(text, at, &line, &col);
    cr_assert_eq(err.line, line);
    cr_assert_eq(err.column, col);
    hf_poset_free(p);
}

Test(io_family, round_trip_standard_orders)
{
    uint64_t rng = 77;
    hf_poset *orders[] = {tu_chain(1),
                          tu_chain(7),
                          tu_antichain(6),
                          tu_complete_binary(3),
                          tu_double_tree(2),
                          tu_random_forest(25, 3, &rng),
                          tu_random_inforest(25, 2, &rng),
                          tu_random_dag(20, 1, 3, &rng)};
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        hf_family *f = tu_random_family(orders[k], 1 + k, &rng);
        for (int format = 0; format < 2; format++) {
            char *text = tu_write_family(orders[k], f, (hf_format)format, NULL, NULL);
            hf_family *g = NULL;
            hf_error err;
            cr_assert_eq(read_str(orders[k], text, &g, NULL, &err), HF_OK, "%s", err.text);
            tu_assert_family_eq(f, g);
            hf_family_free(g);
            free(text);
        }
        hf_family_free(f);
        hf_poset_free(orders[k]);
    }
}

Test(io_family, zero_events)
{
    hf_poset *p = tu_antichain(0);
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 0, &f), HF_OK);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(hf_family_append(f, NULL), HF_OK);
    char want[128];
    char *text = tu_write_family(p, f, HF_FORMAT_TEXT, NULL, NULL);
    snprintf(want, sizeof want, "# hitfam %s method=unknown events=0 schedules=3\n\n\n\n",
             hf_version_string());
    cr_assert_str_eq(text, want);
    hf_family *g = NULL;
    hf_error err;
    cr_assert_eq(read_str(p, text, &g, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(g), 3);
    hf_family_free(g);
    free(text);
    char *json = tu_write_family(p, f, HF_FORMAT_JSON, NULL, NULL);
    snprintf(want, sizeof want,
             "{\"hitfam\": \"%s\", \"method\": \"unknown\", \"events\": [], "
             "\"schedules\": [\n[],\n[],\n[]\n]}\n",
             hf_version_string());
    cr_assert_str_eq(json, want);
    cr_assert_eq(read_str(p, json, &g, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(g), 3);
    hf_family_free(g);
    free(json);
    /* Any name is unknown in an empty order. */
    cr_assert_eq(read_str(p, "a\n", &g, NULL, &err), HF_ENOTFOUND);
    cr_assert_eq(read_str(p, "{\"schedules\": [[0]]}", &g, NULL, &err), HF_ENOTFOUND);
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Text reader                                                                                */

Test(io_family, text_reader_errors)
{
    hf_poset *p = small_poset();
    static const bad_case cases[] = {
        {"a b zz \"x y\"\n", HF_ENOTFOUND, "zz", 0, "unknown event zz"},
        {"a b c \"x y\"\nb a a c\n", HF_ESCHEDULE, "a c\n", 0, "schedule 2 repeats event a"},
        {"a b c \"x y\"\n\n# c\nc b  a\n", HF_ESCHEDULE, "c b  a", 0,
         "schedule 2 misses event \"x y\""},
        {"c \"x y\"\n", HF_ESCHEDULE, "c", 0, "schedule 1 misses event a "},
        {"  c \"x y\"\n", HF_ESCHEDULE, "c", 0, "schedule 1 misses event a "},
        {"a \"b c\n", HF_EPARSE, "\"b", 0, "unterminated"},
        {"a b c \"x y", HF_EPARSE, "\"x", 0, "unterminated"},
        {"a b c \"x y\\", HF_EPARSE, "\"x", 0, "unterminated"},
        {"a b c \"x y\r\n\"", HF_EPARSE, "\"x", 0, "unterminated"},
        {"# hitfam 0.1.0 d=2 method=m events=5\na b c \"x y\"\n", HF_EMISMATCH, "5", 0,
         "family has 5 events, the order has 4"},
        {"# hitfam 0.1.0 d=2 method=m events=4 schedules=3\na b c \"x y\"\nb a c \"x y\"\n",
         HF_ESCHEDULE, "3\n", 0, "header says 3 schedules, found 2 (truncated file?)"},
        {"# hitfam 0.1.0 d=2 events=4 schedules=1\na b c \"x y\"\nb a c \"x y\"\n", HF_ESCHEDULE,
         "1\n", 0, "header says 1 schedules, found 2"},
        {"# hitfam 0.1.0 d=x\n", HF_EPARSE, "x", 0, "d="},
        {"# hitfam 0.1.0 d=99999999999\n", HF_EPARSE, "999", 0, "d="},
        {"# hitfam 0.1.0 events=-1\n", HF_EPARSE, "-1", 0, "events="},
        {"# hitfam 0.1.0 schedules=\n", HF_EPARSE, "\n", 0, "schedules="},
        {"# hitfam 0.1.0 schedules=99999999999999999999999\n", HF_EPARSE, "99", 0, NULL},
        {"a b zz\r\n", HF_ENOTFOUND, "zz", 0, "unknown event zz"},
        {"a b c \"x y\"\r\nb a c zz\r\n", HF_ENOTFOUND, "zz", 0, NULL},
        {"a\tb\tc\t\"x y\"\t\n\tb\tzz\n", HF_ENOTFOUND, "zz", 0, NULL},
        /* Backslash-newline inside quotes continues the line: positions follow the text. */
        {"\"x\\\n y\" a b zz\n", HF_ENOTFOUND, "zz", 0, NULL},
        {"\"x\\\r\n y\" a b c\nzz\n", HF_ENOTFOUND, "zz", 0, NULL},
        {"a b c \"x y\" a\n", HF_ESCHEDULE, "a\n", 0, "repeats event a"},
        {"a b c \"x y\" \"x y\"\n", HF_ESCHEDULE, "\"x y\"\n", 0, "repeats event \"x y\""},
        {"a b c x y\n", HF_ENOTFOUND, "x", 0, "unknown event x"},
        {"\"\" a b c \"x y\"\n", HF_ENOTFOUND, "\"\"", 0, "unknown event \"\""},
        /* A first non-blank `{` means JSON. */
        {" \n{a b c \"x y\"\n", HF_EPARSE, "a", 0, "key string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bad(p, &cases[i], i);
    hf_poset_free(p);
}

Test(io_family, text_adjacent_quoted_token_is_separate)
{
    /* `c"x y"` is two tokens: a bare word ends at a quote. */
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(read_str(p, "a b c\"x y\"\n", &f, NULL, &err), HF_OK, "%s", err.text);
    static const char *const want[] = {"a", "b", "c", "x y"};
    assert_row(p, f, 0, want);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, text_comments_blank_lines_crlf_and_header)
{
    hf_poset *p = small_poset();
    static const char *const r1[] = {"a", "b", "c", "x y"};
    static const char *const r2[] = {"c", "x y", "a", "b"};
    static const char *const inputs[] = {
        "a b c \"x y\"\nc \"x y\" a b\n",
        "a b c \"x y\"\nc \"x y\" a b",
        "\n# a comment\n\n  a b c  \"x y\"  \n\t\n# another\nc\t\"x y\" a b\n\n",
        "# hitfam 0.1.0 d=3 method=test events=4 schedules=2\r\na b c \"x y\"\r\nc \"x y\" a "
        "b\r\n",
        "\r\n\r\n# hitfam 0.1.0 d=3 events=4 schedules=2 future=1\r\na b c \"x y\"\r\n\r\nc "
        "\"x y\" a b\r",
        "\xef\xbb\xbf# hitfam 0.1.0 d=3 events=4 schedules=2\na b c \"x y\"\nc \"x y\" a b\n",
        /* Not the first comment: an ordinary comment, whatever it says. */
        "# note\n# hitfam 0.1.0 d=3 events=99 schedules=7\na b c \"x y\"\nc \"x y\" a b\n",
        "a b c \"x y\"\n# hitfam 0.1.0 events=99 schedules=7\nc \"x y\" a b\n",
        "#hitfam events=99\n# hitfamily events=99\na b c \"x y\"\nc \"x y\" a b\n",
        /* Quoted names that could be bare, escapes, continuation. */
        "\"a\" \"b\" \"c\" \"x\\\n y\"\n\"c\" \"x y\" \"a\" \"b\"\n",
        "  a   b c \"x y\"   \n c \"x\\\r\n y\" a b",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        hf_family *f = NULL;
        hf_family_header h;
        hf_error err;
        cr_assert_eq(read_str(p, inputs[i], &f, &h, &err), HF_OK, "input %zu: %s", i, err.text);
        cr_assert_eq(hf_family_size(f), 2, "input %zu", i);
        assert_row(p, f, 0, r1);
        assert_row(p, f, 1, r2);
        bool has_header = strstr(inputs[i], "d=3") && (i >= 3 && i <= 5);
        cr_assert_eq(h.d, has_header ? 3u : 0u, "input %zu", i);
        cr_assert_null(h.method);
        hf_family_free(f);
    }
    hf_poset_free(p);
}

Test(io_family, text_reader_does_not_check_the_order)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(read_str(p, "b a c \"x y\"\n", &f, NULL, &err), HF_OK, "%s", err.text);
    static const char *const want[] = {"b", "a", "c", "x y"};
    assert_row(p, f, 0, want);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, text_empty_inputs)
{
    hf_poset *p = small_poset();
    static const char *const inputs[] = {"", "\n", "  \t \r\n\n", "# only a comment\n",
                                         "# hitfam 0.1.0 d=1 events=4 schedules=0\n"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        hf_family *f = NULL;
        hf_error err;
        cr_assert_eq(read_str(p, inputs[i], &f, NULL, &err), HF_OK, "%zu: %s", i, err.text);
        cr_assert_eq(hf_family_size(f), 0);
        cr_assert_eq(hf_family_events(f), 4);
        hf_family_free(f);
    }
    hf_poset_free(p);
}

Test(io_family, text_dot_escapes)
{
    /* \" \\ \n decode; any other backslash pair stays as two bytes (as in DOT). */
    hf_poset *p = awkward_poset(NULL);
    const char *in = "\"a b\" \"x\\\"y\" \"back\\slash\" \"new\\nline\" \"\" \"node\" \"-1.5\" "
                     "\"\xc3\xa9\" \"plain\" \"tab\there\" \"ctl\x01\"\n";
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(read_str(p, in, &f, NULL, &err), HF_OK, "%s", err.text);
    assert_row(p, f, 0, awkward);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(io_family, text_nul_bytes_and_long_names)
{
    hf_poset *p = small_poset();
    hf_family *f = (hf_family *)&p;
    hf_error err;
    static const char with_nul[] = "a b\0 c \"x y\"\n";
    cr_assert_eq(tu_read_len(p, with_nul, sizeof with_nul - 1, &f, NULL, &err), HF_ENOTFOUND);
    cr_assert_null(f);
    cr_assert_eq(err.line, 1);
    cr_assert_eq(err.column, 3);
    static const char quoted_nul[] = "a \"b\0\" c \"x y\"\n";
    cr_assert_eq(tu_read_len(p, quoted_nul, sizeof quoted_nul - 1, &f, NULL, &err), HF_ENOTFOUND);
    size_t big = 3 * HF_MAX_NAME;
    char *long_in = malloc(big + 16);
    memcpy(long_in, "a ", 2);
    memset(long_in + 2, 'b', big);
    memcpy(long_in + 2 + big, " c\n", 3);
    cr_assert_eq(tu_read_len(p, long_in, big + 5, &f, NULL, &err), HF_ENOTFOUND);
    cr_assert_eq(err.column, 3);
    long_in[2] = '"';
    long_in[big + 1] = '"';
    cr_assert_eq(tu_read_len(p, long_in, big + 5, &f, NULL, &err), HF_ENOTFOUND);
    free(long_in);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON reader                                                                                */

Test(io_family, json_reader_errors)
{
    hf_poset *p = small_poset();
    static const bad_case cases[] = {
        {"{", HF_EPARSE, NULL, 0, "unexpected end of input"},
        {"  \n {", HF_EPARSE, NULL, 0, "unexpected end of input"},
        {"{\"schedules\": [[0,1,2,3]]", HF_EPARSE, NULL, 0, NULL},
        {"{\"schedules\": [[0,1,2,3],]}", HF_EPARSE, "]}", 0, NULL},
        {"{\"schedules\": [[0,1,2,3]]} x", HF_EPARSE, "x", 0, "after the JSON object"},
        {"{\"schedules\": [[0,1,2,3]]} ]", HF_EPARSE, " ]", 1, NULL},
        {"{\"schedules\": [[0,1,2,3]], }", HF_EPARSE, "}", 0, "key string"},
        {"{\"schedules\" [[0,1,2,3]]}", HF_EPARSE, "[[", 0, "':'"},
        {"{schedules: []}", HF_EPARSE, "s", 0, "found 's'"},
        {"{\"schedules\": [[0,1,2.5,3]]}", HF_EPARSE, "2.5", 0, "non-negative integer"},
        {"{\"schedules\": [[0,1,2,3e2]]}", HF_EPARSE, "3e2", 0, "non-negative integer"},
        {"{\"schedules\": [[0,1,-1,3]]}", HF_EPARSE, "-1", 0, "non-negative integer"},
        {"{\"schedules\": [[0,1,02,3]]}", HF_EPARSE, "2,3", 0, "leading zeros"},
        {"{\"schedules\": [[0,1,2,3.]]}", HF_EPARSE, "]]", 0, "digit"},
        {"{\"schedules\": [[0,1,2,-]]}", HF_EPARSE, "]]", 0, "digit"},
        {"{\"schedules\": [[0,1,4,3]]}", HF_ENOTFOUND, "4", 0, "event index 4 out of range"},
        {"{\"schedules\": [[0,1,99999999999999999999999,3]]}", HF_ENOTFOUND, "999", 0,
         "out of range"},
        {"{\"schedules\": [[0,1,true,3]]}", HF_EPARSE, "true", 0, "an event index or name"},
        {"{\"schedules\": [[0,1,\"zz\",3]]}", HF_ENOTFOUND, "\"zz", 0, "unknown event zz"},
        {"{\"schedules\": [[0,1,\"a\",3]]}", HF_ESCHEDULE, "\"a", 0, "schedule 1 repeats event a"},
        {"{\"schedules\": [[0,1,2,3], [0,1,3]]}", HF_ESCHEDULE, "[0,1,3", 0,
         "schedule 2 misses event c"},
        {"{\"schedules\": [[]]}", HF_ESCHEDULE, "[]", 0, "misses event a"},
        {"{\"schedules\": {}}", HF_EPARSE, "{}", 0, "must be an array"},
        {"{\"schedules\": [0]}", HF_EPARSE, "0]", 0, "a schedule"},
        {"{\"schedules\": [[0,1,2,3] [1,0,2,3]]}", HF_EPARSE, " [1", 1, NULL},
        {"{\"schedules\": [[0 1 2 3]]}", HF_EPARSE, "1 2", 0, NULL},
        {"{\"schedules\": [[0,1,2,3,]]}", HF_EPARSE, "]]", 0, NULL},
        {"{\"d\": 2}", HF_EPARSE, "{", 0, "no \"schedules\""},
        {"{}", HF_EPARSE, "{", 0, "no \"schedules\""},
        {"{\"d\": -1, \"schedules\": []}", HF_EPARSE, "-1", 0, "\"d\""},
        {"{\"d\": \"2\", \"schedules\": []}", HF_EPARSE, "\"2", 0, "\"d\""},
        {"{\"d\": 1.5, \"schedules\": []}", HF_EPARSE, "1.5", 0, "\"d\""},
        {"{\"d\": 99999999999, \"schedules\": []}", HF_EPARSE, "999", 0, "\"d\""},
        {"{\"d\": 1, \"d\": 2, \"schedules\": []}", HF_EPARSE, "\"d\": 2", 0, "duplicate"},
        {"{\"schedules\": [], \"schedules\": []}", HF_EPARSE, "\"schedules\": []}", 0,
         "duplicate key \"schedules\""},
        {"{\"schedules\": [[\"a\x01\"]]}", HF_EPARSE, "\x01", 0, "control character"},
        {"{\"schedules\": [[\"a\nb\"]]}", HF_EPARSE, "\nb", 0, "control character"},
        {"{\"schedules\": [[\"abc", HF_EPARSE, "\"abc", 0, "unterminated string"},
        {"{\"schedules\": [[\"abc\\", HF_EPARSE, "\"abc", 0, "unterminated string"},
        {"{\"schedules\": [[\"a\\q\"]]}", HF_EPARSE, "\\q", 0, "invalid escape"},
        {"{\"schedules\": [[\"\\u12\"]]}", HF_EPARSE, "\\u", 0, "four hexadecimal"},
        {"{\"schedules\": [[\"\\u12", HF_EPARSE, "\\u", 0, "four hexadecimal"},
        {"{\"schedules\": [[\"\\ud800\"]]}", HF_EPARSE, "\\u", 0, "unpaired high surrogate"},
        {"{\"schedules\": [[\"\\udc00\"]]}", HF_EPARSE, "\\u", 0, "unpaired low surrogate"},
        {"{\"schedules\": [[\"\\ud800\\u0041\"]]}", HF_EPARSE, "\\ud8", 0, "unpaired high"},
        {"{\"x\": tru, \"schedules\": []}", HF_EPARSE, "tru", 0, NULL},
        {"{\"x\": nul}", HF_EPARSE, "nul", 0, NULL},
        {"{\"x\": [1, {\"k\" 2}], \"schedules\": []}", HF_EPARSE, "2}", 0, "':'"},
        {"{\"x\": {\"k\": 2,}, \"schedules\": []}", HF_EPARSE, "}, ", 0, "key string"},
        {"{\"x\": @, \"schedules\": []}", HF_EPARSE, "@", 0, "found '@'"},
        {"{\"x\": \x80, \"schedules\": []}", HF_EPARSE, "\x80", 0, "byte 0x80"},
        {"{\"events\": [\"a\", \"b\", \"zz\", \"x y\"], \"schedules\": []}", HF_ENOTFOUND, "\"zz",
         0, "unknown event zz"},
        {"{\"events\": [\"a\", \"b\", \"a\", \"x y\"], \"schedules\": []}", HF_ESCHEDULE,
         "\"a\", \"x", 0, "listed twice"},
        {"{\"events\": [\"a\", \"b\", \"c\"], \"schedules\": []}", HF_EMISMATCH, "[\"a", 0,
         "family has 3 events, the order has 4"},
        {"{\"events\": \"a\", \"schedules\": []}", HF_EPARSE, "\"a", 0, "\"events\""},
        {"{\"events\": [0, 1, 2, 3], \"schedules\": []}", HF_EPARSE, "0,", 0, "\"events\""},
        {"{\"schedules\": [[0,1,2,3]], \"events\": [\"a\"]}", HF_EMISMATCH, "[\"a", 0, NULL},
        {"{\n  \"schedules\": [\n    [0, 1, 2, 3],\n    [0, 1, 2, 2]\n  ]\n}\n", HF_ESCHEDULE,
         "2]\n  ]", 0, "schedule 2 repeats event c"},
        {"{\r\n\"schedules\": [\r\n[0,1,2,zz]]}", HF_EPARSE, "zz", 0, NULL},
        {"{\r\n\"schedules\": [\r\n[0,1,2,3]]\r\n}\r\n,", HF_EPARSE, "\r\n,", 2, "after the JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bad(p, &cases[i], i);
    hf_poset_free(p);
}

Test(io_family, json_deep_nesting_is_an_error_not_a_crash)
{
    hf_poset *p = small_poset();
    size_t depth = 100000;
    char *in = malloc(2 * depth + 64);
    size_t k = 0;
    k += (size_t)sprintf(in, "{\"x\": ");
    for (size_t i = 0; i < depth; i++)
        in[k++] = '[';
    in[k] = '\0';
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(tu_read_len(p, in, k, &f, NULL, &err), HF_EPARSE);
    cr_assert(strstr(err.text, "nested too deeply") != NULL, "%s", err.text);
    /* Moderate nesting in an ignored key is fine. */
    k = (size_t)sprintf(in, "{\"x\": ");
    for (int i = 0; i < 100; i++)
        in[k++] = '[';
    for (int i = 0; i < 100; i++)
        in[k++] = ']';
    k += (size_t)sprintf(in + k, ", \"schedules\": [[3, 2, 0, 1]]}");
    cr_assert_eq(tu_read_len(p, in, k, &f, NULL, &err), HF_OK, "%s", err.text);
    static const char *const want[] = {"x y", "c", "a", "b"};
    assert_row(p, f, 0, want);
    hf_family_free(f);
    free(in);
    hf_poset_free(p);
}

Test(io_family, json_key_order_names_and_unknown_keys)
{
    hf_poset *p = small_poset();
    static const char *const r1[] = {"x y", "c", "b", "a"};
    static const char *const r2[] = {"x y", "b", "a", "c"};
    static const char *const inputs[] = {
        /* indices map through "events", which may come after "schedules" */
        "{ \"events\" : [ \"x y\" , \"c\", \"b\", \"a\" ] , \"schedules\" : [ [0,1,2,3] , "
        "[0, \"b\", 3, 1] ], \"d\": 3 }",
        "{\"schedules\": [[0,1,2,3],[0,\"b\",3,1]], \"d\": 3, \"events\": [\"x y\", \"c\", "
        "\"b\", \"a\"]}",
        /* without "events", indices are the order's ids (a=0 b=1 c=2 "x y"=3) */
        "{\"hitfam\": \"9.9\", \"d\": 3, \"method\": null, \"schedules\": [[3,2,1,0],[3,1,0,2]]}",
        "\r\n\t {\r\n\t\"schedules\"\r\n:\r\n[\r\n[\t3 ,2,1,0\t]\r\n,[\"x y\",\"b\",\"a\","
        "\"c\"]\r\n]\r\n,\"d\":3,\"extra\":{\"k\":[1,2.5e-3,-0.5E+2,true,false,null,\"s\\u00e9"
        "\\n\",{}, []]},\"events2\":[]}\r\n\r\n",
        /* names with escapes that decode to plain names */
        "{\"d\": 3, \"schedules\": [[\"x\\u0020y\", \"\\u0063\", \"\\u0062\"\n, \"a\"], [\"x y\", "
        "\"b\", \"a\", \"c\"]]}",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        hf_family *f = NULL;
        hf_family_header h;
        hf_error err;
        cr_assert_eq(read_str(p, inputs[i], &f, &h, &err), HF_OK, "input %zu: %s", i, err.text);
        cr_assert_eq(hf_family_size(f), 2, "input %zu", i);
        assert_row(p, f, 0, r1);
        assert_row(p, f, 1, r2);
        cr_assert_eq(h.d, 3, "input %zu", i);
        cr_assert_null(h.method);
        cr_assert_eq(h.schedules, 2);
        hf_family_free(f);
    }
    hf_poset_free(p);
}

Test(io_family, json_string_escapes_decode_to_utf8)
{
    static const char *const names[] = {"\xc3\xa9", "\xf0\x9f\x98\x80", "a/b",         "tab\t",
                                        "q\"\\",    "\x7f\x1f",         "\xe2\x82\xac"};
    hf_poset *p = tu_named_poset(NULL, names, 7, NULL, 0);
    const char *in = "{\"schedules\": [[\"\\u00e9\", \"\\ud83d\\ude00\", \"a\\/b\", \"tab\\t\", "
                     "\"q\\\"\\\\\", \"\x7f\\u001F\", \"\\u20AC\"], "
                     "[\"\xe2\x82\xac\", \"\\u00E9\", \"\\uD83D\\uDE00\", \"a/b\", \"tab\\u0009\","
                     " \"q\\u0022\\u005c\", \"\\u007f\\u001f\"]]}";
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(read_str(p, in, &f, NULL, &err), HF_OK, "%s", err.text);
    assert_row(p, f, 0, names);
    static const char *const r2[] = {"\xe2\x82\xac", "\xc3\xa9", "\xf0\x9f\x98\x80", "a/b",
                                     "tab\t",        "q\"\\",    "\x7f\x1f"};
    assert_row(p, f, 1, r2);
    hf_family_free(f);
    /* \u0000 decodes to a NUL, which no event name holds. */
    cr_assert_eq(read_str(p, "{\"schedules\": [[\"a\\u0000b\"]]}", &f, NULL, &err), HF_ENOTFOUND);
    cr_assert_eq(err.column, 17);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Streams, arguments, memory                                                                 */

Test(io_family, read_from_streams)
{
    hf_poset *p = small_poset();
    static const char *const r1[] = {"c", "a", "x y", "b"};
    const char *inputs[] = {"# hitfam 0.1.0 d=2 events=4 schedules=1\nc a \"x y\" b\n",
                            "{\"d\": 2, \"schedules\": [[2, 0, 3, 1]]}"};
    for (int i = 0; i < 2; i++) {
        FILE *in = fmemopen((void *)inputs[i], strlen(inputs[i]), "r");
        cr_assert_not_null(in);
        hf_family *f = NULL;
        hf_family_header h;
        hf_error err;
        cr_assert_eq(hf_family_read_file(p, in, &f, &h, &err), HF_OK, "%s", err.text);
        fclose(in);
        assert_row(p, f, 0, r1);
        cr_assert_eq(h.d, 2);
        hf_family_free(f);
    }
    /* A large family through a temporary file crosses the reader's chunk size. */
    uint64_t rng = 3;
    hf_poset *big = tu_random_dag(60, 1, 4, &rng);
    hf_family *f = tu_random_family(big, 2000, &rng);
    FILE *tmp = tmpfile();
    cr_assert_not_null(tmp);
    cr_assert_eq(hf_family_write(big, f, tmp, HF_FORMAT_TEXT, NULL), HF_OK);
    rewind(tmp);
    hf_family *g = NULL;
    hf_error err;
    cr_assert_eq(hf_family_read_file(big, tmp, &g, NULL, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    fclose(tmp);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(big);
    /* A stream that cannot be read. */
    FILE *wo = fopen("/dev/null", "w");
    cr_assert_not_null(wo);
    g = (hf_family *)&g;
    cr_assert_eq(hf_family_read_file(p, wo, &g, NULL, &err), HF_EIO);
    cr_assert_null(g);
    fclose(wo);
    cr_assert_eq(hf_family_read_file(p, NULL, &g, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_family_read_file(NULL, stdin, &g, NULL, &err), HF_EINVAL);
    hf_poset_free(p);
}

Test(io_family, read_arguments)
{
    hf_poset *p = small_poset();
    hf_family *f = (hf_family *)&p;
    hf_error err;
    cr_assert_eq(hf_family_read_mem(NULL, "", 0, &f, NULL, &err), HF_EINVAL);
    cr_assert_null(f);
    cr_assert_eq(hf_family_read_mem(p, "", 0, NULL, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_family_read_mem(p, NULL, 3, &f, NULL, &err), HF_EINVAL);
    cr_assert_eq(hf_family_read_mem(p, NULL, 0, &f, NULL, NULL), HF_OK);
    cr_assert_eq(hf_family_size(f), 0);
    hf_family_free(f);
    /* Errors without an hf_error to fill. */
    cr_assert_eq(hf_family_read_mem(p, "zz", 2, &f, NULL, NULL), HF_ENOTFOUND);
    cr_assert_eq(hf_family_read_mem(p, "{", 1, &f, NULL, NULL), HF_EPARSE);
    hf_poset_free(p);
}

Test(io_family, out_of_memory_on_every_allocation)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *p = awkward_poset(ctx);
    hf_family *f = two_schedules();
    for (int format = 0; format < 2; format++) {
        size_t len;
        char *text = tu_write_family(p, f, (hf_format)format, NULL, &len);
        int failures = 0;
        for (long k = 0;; k++) {
            hf_family *g = (hf_family *)&k;
            hf_error err;
            c.left = k;
            hf_status st = tu_read_len(p, text, len, &g, NULL, &err);
            c.left = -1;
            if (st == HF_OK) {
                tu_assert_family_eq(f, g);
                hf_family_free(g);
                break;
            }
            cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", k, err.text);
            cr_assert_null(g);
            failures++;
        }
        cr_assert_gt(failures, 2);
        /* Through a stream too (the whole input is buffered with the same allocator). */
        for (long k = 0;; k++) {
            FILE *in = fmemopen(text, len, "r");
            hf_family *g = NULL;
            c.left = k;
            hf_status st = hf_family_read_file(p, in, &g, NULL, NULL);
            c.left = -1;
            fclose(in);
            if (st == HF_OK) {
                hf_family_free(g);
                break;
            }
            cr_assert_eq(st, HF_ENOMEM);
        }
        /* Writer creation. */
        for (long k = 0;; k++) {
            char *buf = NULL;
            size_t size = 0;
            FILE *out = open_memstream(&buf, &size);
            hf_writer *w = NULL;
            c.left = k;
            hf_status st = hf_writer_new(p, out, (hf_format)format, NULL, &w);
            c.left = -1;
            if (st == HF_OK)
                cr_assert_eq(hf_writer_close(w), HF_OK);
            else
                cr_assert_eq(st, HF_ENOMEM);
            fclose(out);
            free(buf);
            if (st == HF_OK)
                break;
        }
        free(text);
    }
    hf_family_free(f);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

/* Every prefix of a valid file and many random corruptions: the reader answers, never crashes,
 * and a prefix that drops whole schedules is reported as truncated. */
Test(io_family, prefixes_and_corruptions)
{
    hf_poset *p = awkward_poset(NULL);
    hf_family *f = two_schedules();
    uint64_t rng = 99;
    for (int format = 0; format < 2; format++) {
        size_t len;
        char *text = tu_write_family(p, f, (hf_format)format, NULL, &len);
        /* Until the header's schedules= is complete, a text prefix is a comment or a header
         * without a count, and may read as an empty family. */
        const char *count_key = strstr(text, "schedules=");
        size_t header_end = count_key ? (size_t)(count_key - text) + strlen("schedules=") : 0;
        for (size_t cut = 0; cut < len; cut++) {
            hf_family *g = NULL;
            hf_error err;
            hf_status st = tu_read_len(p, text, cut, &g, NULL, &err);
            if (cut + 1 == len) {
                /* Only the final newline is missing. */
                cr_assert_eq(st, HF_OK, "%s", err.text);
                tu_assert_family_eq(f, g);
                hf_family_free(g);
                continue;
            }
            if (cut == 0 || (format == HF_FORMAT_TEXT && cut <= header_end && st == HF_OK)) {
                cr_assert_eq(st, HF_OK);
                cr_assert_eq(hf_family_size(g), 0);
                hf_family_free(g);
                continue;
            }
            cr_assert_neq(st, HF_OK, "format %d, prefix %zu accepted", format, cut);
            cr_assert_null(g);
            if (format == HF_FORMAT_TEXT && text[cut - 1] == '\n') {
                cr_assert_eq(st, HF_ESCHEDULE, "prefix %zu: %s", cut, err.text);
                cr_assert(strstr(err.text, "truncated") != NULL, "%s", err.text);
            }
        }
        char *mut = malloc(len);
        for (int k = 0; k < 3000; k++) {
            memcpy(mut, text, len);
            size_t mlen = len;
            int edits = 1 + (int)tu_below(&rng, 3);
            for (int e = 0; e < edits; e++) {
                size_t at = tu_below(&rng, (uint32_t)mlen);
                static const char bytes[] = "\"\\\n\r\t []{},:#0-9eu\x80\x01 ";
                if (tu_below(&rng, 4) == 0 && mlen > 1) {
                    memmove(mut + at, mut + at + 1, mlen - at - 1);
                    mlen--;
                } else {
                    mut[at] = bytes[tu_below(&rng, sizeof bytes - 1)];
                }
            }
            hf_family *g = NULL;
            hf_status st = tu_read_len(p, mut, mlen, &g, NULL, NULL);
            if (st == HF_OK) {
                cr_assert_eq(hf_family_events(g), AWKWARD_N);
                hf_family_free(g);
            } else {
                cr_assert_null(g);
            }
        }
        free(mut);
        free(text);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

Test(io_family, large_family_reads_in_linear_time, .timeout = 300)
{
    /* 1,000 schedules of 10,000 events: about 60 MB of text. */
    const uint32_t n = 10000;
    const size_t m = 1000;
    hf_poset *p = tu_antichain(n);
    uint64_t rng = 8;
    hf_family *f = tu_random_family(p, m, &rng);
    for (int format = 0; format < 2; format++) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        size_t len;
        char *text = tu_write_family(p, f, (hf_format)format, NULL, &len);
        double tw = seconds_since(&t0);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        hf_family *g = NULL;
        hf_error err;
        cr_assert_eq(tu_read_len(p, text, len, &g, NULL, &err), HF_OK, "%s", err.text);
        double tr = seconds_since(&t0);
        tu_assert_family_eq(f, g);
        cr_log_info("%s: %zu bytes, write %.2f s, read %.2f s", format ? "json" : "text", len, tw,
                    tr);
        hf_family_free(g);
        free(text);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* What the reader remembers: the header's method, the lines of the header and the schedules  */

/* The method a written family's header names reads back as the family's method. */
Test(io_family, method_reads_back_from_text_and_json)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    uint32_t s[4] = {2, 0, 3, 1};
    cr_assert_eq(hf_family_append(f, s), HF_OK);
    char longest[HF_MAX_NAME + 1];
    memset(longest, 'm', HF_MAX_NAME);
    longest[HF_MAX_NAME] = '\0';
    static const char *const methods[] = {"greedy",
                                          "dfs+minimize",
                                          "a b",
                                          "odd events=99 \"q\"",
                                          "back\\slash\\n",
                                          "new\nline",
                                          "",
                                          "\xc3\xa9",
                                          "#",
                                          "d=7",
                                          NULL};
    for (size_t i = 0; i <= sizeof methods / sizeof methods[0]; i++) {
        const char *m = i < sizeof methods / sizeof methods[0] ? methods[i] : longest;
        hf_family_header h = {2, m, false, 0, 0, 0};
        for (int format = 0; format < 2; format++) {
            char *text = tu_write_family(p, f, (hf_format)format, &h, NULL);
            hf_family *g = NULL;
            hf_family_header got;
            hf_error err;
            cr_assert_eq(read_str(p, text, &g, &got, &err), HF_OK, "%s\n%s", err.text, text);
            cr_assert_eq(got.d, 2, "%s", text);
            if (m)
                cr_assert_str_eq(hf_family_method(g), m, "format %d:\n%s", format, text);
            else
                cr_assert_null(hf_family_method(g), "format %d:\n%s", format, text);
            free(text);
            hf_family_free(g);
        }
    }
    hf_family_free(f);
    cr_assert_null(hf_family_method(NULL));
    hf_poset_free(p);
}

/* Headers written by hand: what counts as the method and what does not. */
Test(io_family, method_as_written_in_the_header)
{
    hf_poset *p = small_poset();
    static const struct {
        const char *input, *method;
    } cases[] = {
        {"# hitfam 0.1.0 d=2 method=dfs events=4\na b c \"x y\"\n", "dfs"},
        {"# hitfam 0.1.0 method=\"a \\\"b\\\"\" d=3\na b c \"x y\"\n", "a \"b\""},
        {"# hitfam 0.1.0 method=\"x\\ty\"\na b c \"x y\"\n", "x\\ty"},
        {"# hitfam 0.1.0 method=x\"a b\"y\na b c \"x y\"\n", "x\"a b\"y"},
        {"# hitfam 0.1.0 method=\"a\"b\na b c \"x y\"\n", "\"a\"b"},
        {"# hitfam 0.1.0 method=\"open\na b c \"x y\"\n", "\"open"},
        {"# hitfam 0.1.0 method= d=2\na b c \"x y\"\n", ""},
        {"# hitfam 0.1.0 method=unknown\na b c \"x y\"\n", NULL},
        {"# hitfam 0.1.0 d=2 xmethod=no\na b c \"x y\"\n", NULL},
        {"# note\n# hitfam 0.1.0 method=late\na b c \"x y\"\n", NULL},
        {"a b c \"x y\"\n# hitfam 0.1.0 method=late\n", NULL},
        {"a b c \"x y\"\n", NULL},
        {"{\"method\": \"greedy\", \"schedules\": [[0, 1, 2, 3]]}", "greedy"},
        {"{\"schedules\": [[0, 1, 2, 3]], \"method\": \"a\\u00e9\\n\"}", "a\xc3\xa9\n"},
        {"{\"method\": null, \"schedules\": [[0, 1, 2, 3]]}", NULL},
        {"{\"method\": 5, \"schedules\": [[0, 1, 2, 3]]}", NULL},
        {"{\"method\": \"unknown\", \"schedules\": [[0, 1, 2, 3]]}", NULL},
        {"{\"method\": \"a\\u0000b\", \"schedules\": [[0, 1, 2, 3]]}", NULL},
        {"{\"x\": {\"method\": \"inner\"}, \"schedules\": [[0, 1, 2, 3]]}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hf_family *f = NULL;
        hf_error err;
        cr_assert_eq(read_str(p, cases[i].input, &f, NULL, &err), HF_OK, "case %zu: %s", i,
                     err.text);
        if (cases[i].method)
            cr_assert_str_eq(hf_family_method(f), cases[i].method, "case %zu", i);
        else
            cr_assert_null(hf_family_method(f), "case %zu: %s", i, hf_family_method(f));
        hf_family_free(f);
    }
    /* "method" is a key the JSON reader knows: twice is an error, as for "d". */
    static const bad_case twice = {"{\"method\": \"a\", \"method\": null, \"schedules\": []}",
                                   HF_EPARSE, "\"method\": null", 0, "duplicate key \"method\""};
    check_bad(p, &twice, 0);
    /* and in a text header, as d=, events= and schedules= are */
    static const bad_case text_twice = {"# hitfam 0.1.0 method=one method=two\na b c \"x y\"\n",
                                        HF_EPARSE, "method=two", 0, "method= appears twice"};
    check_bad(p, &text_twice, 1);
    hf_poset_free(p);
}

/* Lines counted here, independently of the reader: the line of each marker's first byte. */
static size_t line_at(const char *text, const char *at)
{
    size_t line = 1;
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    return line;
}

/* Random families written as text, with blank lines, comments, CR LF and continued quoted names
 * put between the schedules: each schedule's line is where the test put it. */
Test(io_family, schedule_and_header_lines)
{
    uint64_t rng = 4242;
    for (int iter = 0; iter < 200; iter++) {
        uint32_t n = 1 + tu_below(&rng, 7);
        hf_poset *p = tu_random_dag(n, 1, 3, &rng);
        size_t m = tu_below(&rng, 8);
        hf_family *f = tu_random_family(p, m, &rng);
        size_t cap = 4096, len = 0;
        char *text = malloc(cap);
        size_t *starts = malloc((m + 1) * sizeof *starts), header = 0;
        static const char *const fillers[] = {"\n", "# comment\n", "  \t\n", "\r\n", "#\r\n"};
        /* blank lines first: the header must be the first comment */
        for (uint32_t k = tu_below(&rng, 3); k > 0; k--)
            len += (size_t)sprintf(text + len, "%s", fillers[2 * tu_below(&rng, 2)]);
        bool with_header = tu_below(&rng, 2);
        if (with_header) {
            header = len;
            len += (size_t)sprintf(text + len, "# hitfam 0.1.0 d=2 method=\"a b\" events=%u\n", n);
        }
        for (size_t i = 0; i < m; i++) {
            for (uint32_t k = tu_below(&rng, 3); k > 0; k--)
                len += (size_t)sprintf(text + len, "%s", fillers[tu_below(&rng, 5)]);
            starts[i] = len;
            const uint32_t *s = hf_family_schedule(f, i);
            for (uint32_t j = 0; j < n; j++) {
                /* e<id>, sometimes quoted and continued over a line break inside the name */
                int cut = tu_below(&rng, 4) == 0;
                len += (size_t)sprintf(text + len, cut ? " \"e\\\n%u\"" : " e%u", s[j]);
            }
            len += (size_t)sprintf(text + len, tu_below(&rng, 2) ? "\n" : "\r\n");
        }
        text[len] = '\0';
        hf_family *g = NULL;
        hf_error err;
        cr_assert_eq(tu_read_len(p, text, len, &g, NULL, &err), HF_OK, "%s\n%s", err.text, text);
        tu_assert_family_eq(f, g);
        cr_assert_eq(hf_family_header_line(g), with_header ? line_at(text, text + header) : 0);
        for (size_t i = 0; i < m; i++)
            cr_assert_eq(hf_family_schedule_line(g, i), line_at(text, text + starts[i]),
                         "iter %d schedule %zu:\n%s", iter, i, text);
        cr_assert_eq(hf_family_schedule_line(g, m), 0);
        /* A removed schedule takes its line along; an appended one has none. */
        if (m >= 2) {
            size_t gone = tu_below(&rng, (uint32_t)m);
            cr_assert_eq(hf_family_remove(g, gone), HF_OK);
            for (size_t i = 0; i + 1 < m; i++)
                cr_assert_eq(hf_family_schedule_line(g, i),
                             line_at(text, text + starts[i < gone ? i : i + 1]));
            cr_assert_eq(hf_family_append(g, hf_family_schedule(f, 0)), HF_OK); /* f: no alias */
            cr_assert_eq(hf_family_schedule_line(g, m - 1), 0);
        }
        hf_family_free(g);
        /* JSON gives each schedule's line (the writer puts schedule i on line i + 2), no header
         * line. */
        char *json = tu_write_family(p, f, HF_FORMAT_JSON, NULL, NULL);
        cr_assert_eq(read_str(p, json, &g, NULL, &err), HF_OK, "%s", err.text);
        for (size_t i = 0; i < m; i++)
            cr_assert_eq(hf_family_schedule_line(g, i), i + 2);
        cr_assert_eq(hf_family_schedule_line(g, m), 0);
        cr_assert_eq(hf_family_header_line(g), 0);
        hf_family_free(g);
        free(json);
        free(starts);
        free(text);
        hf_family_free(f);
        hf_poset_free(p);
    }
    cr_assert_eq(hf_family_schedule_line(NULL, 0), 0);
    cr_assert_eq(hf_family_header_line(NULL), 0);
}

/* The use the lines are for: hf_verify refuses schedule k, the line says where it is. */
Test(io_family, lines_locate_the_schedule_verify_refuses)
{
    hf_poset *p = small_poset(); /* a < b */
    static const char text[] = "# hitfam 0.1.0 d=2 events=4\n"
                               "a b c \"x y\"\n"
                               "\n# b before a:\n"
                               "c \"x y\" b a\n";
    hf_family *f = NULL;
    hf_error err;
    cr_assert_eq(read_str(p, text, &f, NULL, &err), HF_OK, "%s", err.text);
    hf_verify_options vo = {.d = 2};
    hf_verify_result res;
    cr_assert_eq(hf_verify(p, f, &vo, &res, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 2:") != NULL, "%s", err.text);
    cr_assert_eq(hf_family_schedule_line(f, 1), line_at(text, strstr(text, "c \"x y\" b a")));
    cr_assert_eq(hf_family_schedule_line(f, 1), 5);
    hf_family_free(f);
    /* In JSON, the line where the schedule's array opens, however the file is laid out. */
    static const char json[] = "{\"d\": 2,\n"
                               "  \"schedules\": [[\"a\", \"b\",\n"
                               "                  \"c\", \"x y\"],\n"
                               "\n"
                               "    [\"c\",\n"
                               "     \"x y\", \"b\", \"a\"]]}";
    cr_assert_eq(read_str(p, json, &f, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_verify(p, f, &vo, &res, &err), HF_ESCHEDULE);
    cr_assert(strstr(err.text, "schedule 2:") != NULL, "%s", err.text);
    cr_assert_eq(hf_family_schedule_line(f, 0), 2);
    cr_assert_eq(hf_family_schedule_line(f, 1), 5);
    hf_family_free(f);
    /* Minimisation rewrites the family: its lines are then unknown. */
    hf_gen_options go = tu_gen_options(2, HF_METHOD_GREEDY, NULL, 0);
    cr_assert_eq(hf_family_new(NULL, 4, &f), HF_OK);
    cr_assert_eq(hf_generate(p, &go, hf_family_sink(f), NULL, &err), HF_OK, "%s", err.text);
    uint32_t first[4];
    memcpy(first, hf_family_schedule(f, 0), sizeof first);
    for (uint32_t k = 0; k < 4; k++) /* copies, so that there is something to drop */
        cr_assert_eq(hf_family_append(f, first), HF_OK);
    char *written = tu_write_family(p, f, HF_FORMAT_TEXT, NULL, NULL);
    hf_family *g = NULL;
    cr_assert_eq(read_str(p, written, &g, NULL, &err), HF_OK, "%s", err.text);
    size_t m = hf_family_size(g);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_family_schedule_line(g, i), i + 2);
    hf_minimize_options mo;
    hf_minimize_options_init(&mo);
    hf_minimize_result mr;
    cr_assert_eq(hf_family_minimize(p, g, &mo, &mr, &err), HF_OK, "%s", err.text);
    cr_assert_lt(hf_family_size(g), m);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_family_schedule_line(g, i), 0);
    free(written);
    hf_family_free(g);
    hf_family_free(f);
    hf_poset_free(p);
}

/* Every allocation of a read that keeps a method and the lines of many schedules fails in turn:
 * HF_ENOMEM, no family, nothing leaked. */
Test(io_family, out_of_memory_keeping_method_and_lines)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *p = awkward_poset(ctx);
    hf_family *f = two_schedules();
    uint32_t rows[2][AWKWARD_N];
    memcpy(rows[0], hf_family_schedule(f, 0), sizeof rows[0]);
    memcpy(rows[1], hf_family_schedule(f, 1), sizeof rows[1]);
    for (int k = 0; k < 40; k++) /* enough schedules for the line table to grow a few times */
        cr_assert_eq(hf_family_append(f, rows[k % 2]), HF_OK);
    hf_family_header h = {2, "greedy+minimize", false, 0, 0, 0};
    for (int format = 0; format < 2; format++) {
        size_t len;
        char *text = tu_write_family(p, f, (hf_format)format, &h, &len);
        int failures = 0;
        for (long k = 0;; k++) {
            hf_family *g = (hf_family *)&k;
            hf_error err;
            long live = c.live;
            c.left = k;
            hf_status st = tu_read_len(p, text, len, &g, NULL, &err);
            c.left = -1;
            if (st == HF_OK) {
                tu_assert_family_eq(f, g);
                cr_assert_str_eq(hf_family_method(g), "greedy+minimize");
                cr_assert_eq(hf_family_schedule_line(g, 41), 43u); /* text and JSON alike */
                hf_family_free(g);
                break;
            }
            cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", k, err.text);
            cr_assert_null(g);
            cr_assert_eq(c.live, live, "leak after failing allocation %ld", k);
            failures++;
        }
        cr_assert_gt(failures, format == HF_FORMAT_TEXT ? 5 : 3);
        free(text);
    }
    hf_family_free(f);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}
