/* Tests of the machine family formats ids and bin (lib/io_family_ids.c, docs/formats.md) and of
 * the block text writer and the guessing text reader (lib/io_family_write.c,
 * lib/io_family_text.c): exact bytes against implementations of the documented layouts written
 * here, round trips on random orders and awkward names, every refusal with its exact message,
 * and every allocation failing in turn. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hitfam/stream.h"
#include "oracle.h"
#include "util.h"

TU_SUITE(formats);

/* ------------------------------------------------------------------------------------------ */
/* The documented layouts, implemented here from docs/formats.md                               */

static uint64_t ref_sum(const unsigned char *b, size_t len)
{
    uint64_t h = 0x6a09e667f3bcc908u;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++)
            w |= (uint64_t)(i + k < len ? b[i + k] : 0) << (8 * k);
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
        h ^= h >> 29;
    }
    h = (h ^ (uint64_t)len) * 0xd6e8feb86659fd93u;
    return h ^ (h >> 32);
}

typedef struct bytes {
    unsigned char *b;
    size_t len, cap;
} bytes;

static void put(bytes *o, const void *data, size_t len)
{
    if (o->len + len > o->cap) {
        o->cap = (o->len + len) * 2 + 16;
        o->b = realloc(o->b, o->cap);
    }
    memcpy(o->b + o->len, data, len);
    o->len += len;
}

static void put_uint(bytes *o, uint64_t v, int size)
{
    unsigned char c[8];
    for (int i = 0; i < size; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    put(o, c, (size_t)size);
}

static uint64_t get_uint(const unsigned char *b, int size)
{
    uint64_t v = 0;
    for (int i = size - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* A bin family as docs/formats.md lays it out (m_field: the header's m). */
static bytes ref_bin(const hf_poset *p, const hf_family *f, unsigned d, const char *method,
                     uint64_t m_field)
{
    uint32_t n = hf_poset_size(p);
    unsigned w = n < 65536 ? 2 : 4;
    size_t mlen = method ? strlen(method) : 0, names = 0;
    for (uint32_t v = 0; v < n; v++)
        names += strlen(hf_poset_name(p, v)) + 1;
    size_t rows_at = (40 + mlen + names + 7) / 8 * 8;
    bytes o = {0};
    put(&o, "\x89HFB\r\n\x1a\n", 8);
    put_uint(&o, 1, 2);
    put_uint(&o, d, 1);
    put_uint(&o, w, 1);
    put_uint(&o, 1, 4);
    put_uint(&o, n, 4);
    put_uint(&o, mlen, 4);
    put_uint(&o, m_field, 8);
    put_uint(&o, rows_at, 8);
    put(&o, method ? method : "", mlen);
    for (uint32_t v = 0; v < n; v++)
        put(&o, hf_poset_name(p, v), strlen(hf_poset_name(p, v)) + 1);
    while (o.len < rows_at)
        put_uint(&o, 0, 1);
    for (size_t k = 0; k < hf_family_size(f); k++)
        for (uint32_t i = 0; i < n; i++)
            put_uint(&o, hf_family_schedule(f, k)[i], (int)w);
    put_uint(&o, hf_family_size(f), 8);
    put_uint(&o, ref_sum(o.b, o.len), 8);
    return o;
}

/* After editing a bin file, make its checksum right again (to reach the checks after it). */
static void fix_sum(unsigned char *b, size_t len)
{
    uint64_t s = ref_sum(b, len - 8);
    for (int i = 0; i < 8; i++)
        b[len - 8 + i] = (unsigned char)(s >> (8 * i));
}

/* A name in the family text quoting (the old writer's rule, hf_name_write). */
static void ref_name(FILE *out, const char *name) { cr_assert_eq(hf_name_write(out, name), HF_OK); }

/* The text writer as it was before block output: the reference the new one must equal. */
static char *ref_text(const hf_poset *p, const hf_family *f, unsigned d, const char *method,
                      size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    fprintf(out, "# hitfam %s", hf_version_string());
    if (d)
        fprintf(out, " d=%u", d);
    fprintf(out, " method=%s events=%" PRIu32 " schedules=%zu\n", method, hf_poset_size(p),
            hf_family_size(f));
    for (size_t k = 0; k < hf_family_size(f); k++) {
        for (uint32_t i = 0; i < hf_poset_size(p); i++) {
            if (i > 0)
                putc(' ', out);
            ref_name(out, hf_poset_name(p, hf_family_schedule(f, k)[i]));
        }
        putc('\n', out);
    }
    fclose(out);
    *len = size;
    return buf;
}

/* The ids format as documented. */
static char *ref_ids(const hf_poset *p, const hf_family *f, unsigned d, const char *method,
                     size_t *len)
{
    size_t tl;
    char *text = ref_text(p, f, d, method, &tl);
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    const char *nl = strchr(text, '\n');
    fprintf(out, "%.*s format=ids\n# events", (int)(nl - text), text);
    for (uint32_t v = 0; v < hf_poset_size(p); v++) {
        putc(' ', out);
        ref_name(out, hf_poset_name(p, v));
    }
    putc('\n', out);
    for (size_t k = 0; k < hf_family_size(f); k++) {
        for (uint32_t i = 0; i < hf_poset_size(p); i++)
            fprintf(out, i ? " %" PRIu32 : "%" PRIu32, hf_family_schedule(f, k)[i]);
        putc('\n', out);
    }
    fclose(out);
    free(text);
    *len = size;
    return buf;
}

/* The JSON writer as it was (one fprintf-free row at a time): the reference for JSON. */
static char *ref_json_rows(const hf_family *f, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    for (size_t k = 0; k < hf_family_size(f); k++) {
        fputs(k ? ",\n[" : "\n[", out);
        for (uint32_t i = 0; i < hf_family_events(f); i++)
            fprintf(out, i ? ",%" PRIu32 : "%" PRIu32, hf_family_schedule(f, k)[i]);
        putc(']', out);
    }
    fputs(hf_family_size(f) ? "\n]}\n" : "]}\n", out);
    fclose(out);
    *len = size;
    return buf;
}

static const char *const small_names[] = {"a", "b", "c d", "x\"y", "e"};
static const uint32_t small_edges[][2] = {{0, 1}, {0, 2}, {2, 3}};

static hf_poset *small_poset(void) { return tu_named_poset(NULL, small_names, 5, small_edges, 3); }

static hf_family *small_family(void)
{
    static const uint32_t rows[][5] = {{0, 1, 2, 3, 4}, {4, 0, 2, 3, 1}};
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 5, &f), HF_OK);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(hf_family_append(f, rows[i]), HF_OK);
    return f;
}

/* ------------------------------------------------------------------------------------------ */
/* Exact output                                                                               */

Test(formats, checksum_rule_matches_the_documented_vectors)
{
    unsigned char big[1000];
    for (int i = 0; i < 1000; i++)
        big[i] = (unsigned char)(i % 251);
    cr_assert_eq(ref_sum((const unsigned char *)"", 0), 0x900b6c0d0bd73b95u);
    cr_assert_eq(ref_sum((const unsigned char *)"a", 1), 0x33367cfcd78f0b47u);
    cr_assert_eq(ref_sum((const unsigned char *)"abcdefgh", 8), 0x93f45641a4cddc23u);
    cr_assert_eq(ref_sum((const unsigned char *)"abcdefghi", 9), 0x7ca433ebae950a1du);
    cr_assert_eq(ref_sum(big, 1000), 0x3fe2d7cc2cc3d59du);
}

Test(formats, small_family_exact_bytes)
{
    hf_poset *p = small_poset();
    hf_family *f = small_family();
    hf_family_header h = {2, "dfs", true, 2, 0, 0};
    size_t len;
    char *ids = tu_write_family(p, f, HF_FORMAT_IDS, &h, &len);
    char want[512];
    snprintf(want, sizeof want,
             "# hitfam %s d=2 method=dfs events=5 schedules=2 format=ids\n"
             "# events a b \"c d\" \"x\\\"y\" e\n"
             "0 1 2 3 4\n"
             "4 0 2 3 1\n",
             hf_version_string());
    cr_assert_str_eq(ids, want);
    cr_assert_eq(len, strlen(want));
    free(ids);
    char *bin = tu_write_family(p, f, HF_FORMAT_BIN, &h, &len);
    bytes ref = ref_bin(p, f, 2, "dfs", 2);
    cr_assert_eq(len, ref.len);
    cr_assert_eq(len, 100); /* 40 + 3 + 17 names, padded to 64; 2 x 10 bytes; 16 */
    cr_assert(memcmp(bin, ref.b, len) == 0);
    /* the fields at their offsets */
    const unsigned char *b = (const unsigned char *)bin;
    cr_assert_eq(get_uint(b + 8, 2), 1);
    cr_assert_eq(b[10], 2);
    cr_assert_eq(b[11], 2);
    cr_assert_eq(get_uint(b + 16, 4), 5);
    cr_assert_eq(get_uint(b + 24, 8), 2);
    cr_assert_eq(get_uint(b + 32, 8), 64);
    cr_assert_eq(get_uint(b + 64 + 10, 2), 4); /* second schedule starts with e */
    cr_assert_eq(get_uint(b + 84, 8), 2);
    free(ref.b);
    free(bin);
    hf_family_free(f);
    hf_poset_free(p);
}

Test(formats, block_text_writer_equals_the_old_writer)
{
    uint64_t rng = 0x51ab;
    for (int round = 0; round < 120; round++) {
        uint32_t n = tu_below(&rng, 14);
        hf_poset *p = tu_random_awkward_poset(NULL, n, &rng);
        hf_family *f = tu_random_family(p, tu_below(&rng, 6), &rng);
        unsigned d = tu_below(&rng, 5);
        hf_family_header h = {d, "doubletree", true, 0, 0, 0};
        size_t len, rlen;
        char *text = tu_write_family(p, f, HF_FORMAT_TEXT, &h, &len);
        char *ref = ref_text(p, f, d, "doubletree", &rlen);
        cr_assert_eq(len, rlen, "round %d", round);
        cr_assert(memcmp(text, ref, len) == 0, "round %d:\n%s\n---\n%s", round, text, ref);
        free(text);
        free(ref);
        char *ids = tu_write_family(p, f, HF_FORMAT_IDS, &h, &len);
        ref = ref_ids(p, f, d, "doubletree", &rlen);
        cr_assert_eq(len, rlen);
        cr_assert(memcmp(ids, ref, len) == 0, "round %d:\n%s\n---\n%s", round, ids, ref);
        free(ids);
        free(ref);
        char *json = tu_write_family(p, f, HF_FORMAT_JSON, &h, &len);
        ref = ref_json_rows(f, &rlen);
        cr_assert_geq(len, rlen);
        cr_assert(memcmp(json + len - rlen, ref, rlen) == 0, "round %d", round);
        free(json);
        free(ref);
        char *bin = tu_write_family(p, f, HF_FORMAT_BIN, &h, &len);
        bytes rb = ref_bin(p, f, d, "doubletree", hf_family_size(f));
        cr_assert_eq(len, rb.len);
        cr_assert(memcmp(bin, rb.b, len) == 0, "round %d", round);
        free(bin);
        free(rb.b);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* Long names and rows longer than the 1 MiB block: the block boundaries cut nothing. */
Test(formats, rows_across_block_boundaries)
{
    enum { N = 3000 };
    static char names[N][400];
    const char *ptr[N];
    uint64_t rng = 7;
    for (uint32_t i = 0; i < N; i++) {
        size_t l = 1 + tu_below(&rng, 390);
        for (size_t k = 0; k < l; k++)
            names[i][k] = (char)("ab \"\\\nz"[tu_below(&rng, 7)]);
        snprintf(names[i] + l, 10, "%u", i); /* distinct */
        ptr[i] = names[i];
    }
    hf_poset *p = tu_named_poset(NULL, ptr, N, NULL, 0);
    hf_family *f = tu_random_family(p, 4, &rng);
    size_t len, rlen;
    char *text = tu_write_family(p, f, HF_FORMAT_TEXT, NULL, &len);
    char *ref = ref_text(p, f, 0, "unknown", &rlen);
    cr_assert_gt(len, (size_t)1 << 21);
    cr_assert_eq(len, rlen);
    cr_assert(memcmp(text, ref, len) == 0);
    hf_family *g = NULL;
    hf_error err;
    cr_assert_eq(tu_read_len(p, text, len, &g, NULL, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    hf_family_free(g);
    free(text);
    free(ref);
    for (int format = HF_FORMAT_IDS; format <= HF_FORMAT_BIN; format++) {
        char *data = tu_write_family(p, f, (hf_format)format, NULL, &len);
        cr_assert_eq(tu_read_len(p, data, len, &g, NULL, &err), HF_OK, "%s", err.text);
        tu_assert_family_eq(f, g);
        hf_family_free(g);
        free(data);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Round trips                                                                                */

static void round_trip(const hf_poset *p, const hf_family *f, unsigned d, const char *method)
{
    for (int format = HF_FORMAT_TEXT; format <= HF_FORMAT_BIN; format++) {
        hf_family_header h = {d, method, true, hf_family_size(f), 0, 0};
        size_t len;
        char *data = tu_write_family(p, f, (hf_format)format, &h, &len);
        hf_family *g = NULL;
        hf_family_header got;
        hf_error err;
        cr_assert_eq(tu_read_len(p, data, len, &g, &got, &err), HF_OK, "format %d: %s", format,
                     err.text);
        tu_assert_family_eq(f, g);
        cr_assert_eq(got.d, d);
        cr_assert_eq(got.schedules, hf_family_size(f));
        if (method && strcmp(method, "unknown") != 0)
            cr_assert_str_eq(hf_family_method(g), method);
        else
            cr_assert_null(hf_family_method(g));
        hf_family_free(g);
        free(data);
    }
}

Test(formats, round_trip_random_orders_and_awkward_names)
{
    uint64_t rng = 0xf0f0;
    for (int round = 0; round < 200; round++) {
        uint32_t n = 1 + tu_below(&rng, 12);
        hf_poset *p = tu_random_awkward_poset(NULL, n, &rng);
        hf_family *f = tu_random_family(p, tu_below(&rng, 5), &rng);
        round_trip(p, f, 1 + tu_below(&rng, 4), round % 3 ? "auto" : NULL);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* Generated d-hitting families for d = 1..4, written in ids and bin, read back and verified. */
Test(formats, generated_families_read_back_and_verify)
{
    uint64_t rng = 0x1d5;
    for (int round = 0; round < 40; round++) {
        unsigned d = 1 + (unsigned)(round % 4);
        uint32_t n = 2 + tu_below(&rng, d >= 3 ? 9 : 16);
        hf_poset *p = round % 2 ? tu_random_forest(n, 1 + tu_below(&rng, 2), &rng)
                                : tu_random_dag(n, 1, 3, &rng);
        hf_gen_options opt = tu_gen_options(d, HF_METHOD_AUTO, NULL, 0);
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        hf_error err;
        hf_method used;
        cr_assert_eq(hf_generate(p, &opt, hf_family_sink(f), &used, &err), HF_OK, "%s", err.text);
        for (int format = HF_FORMAT_IDS; format <= HF_FORMAT_BIN; format++) {
            hf_family_header h = {d, hf_method_name(used), true, hf_family_size(f), 0, 0};
            size_t len;
            char *data = tu_write_family(p, f, (hf_format)format, &h, &len);
            hf_family *g = NULL;
            cr_assert_eq(tu_read_len(p, data, len, &g, NULL, &err), HF_OK, "%s", err.text);
            tu_assert_family_eq(f, g);
            cr_assert(tu_oracle_hitting(p, hf_family_schedule(g, 0), hf_family_size(g), d, NULL),
                      "round %d format %d", round, format);
            hf_verify_options vo;
            hf_verify_options_init(&vo);
            vo.d = d;
            hf_verify_result vr;
            cr_assert_eq(hf_verify(p, g, &vo, &vr, &err), HF_OK, "%s", err.text);
            cr_assert(vr.hitting);
            hf_family_free(g);
            free(data);
        }
        hf_family_free(f);
        hf_poset_free(p);
    }
}

Test(formats, empty_families_and_zero_events)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 5, &f), HF_OK);
    round_trip(p, f, 3, "greedy");
    hf_family_free(f);
    hf_poset_free(p);
    /* Over zero events a schedule is empty: the count is all there is. */
    p = tu_antichain(0);
    cr_assert_eq(hf_family_new(NULL, 0, &f), HF_OK);
    round_trip(p, f, 0, NULL);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(hf_family_append(f, NULL), HF_OK);
    round_trip(p, f, 2, "dfs");
    hf_family_free(f);
    hf_poset_free(p);
}

/* A streamed bin family (the count unknown when the header was written) reads back. */
Test(formats, streamed_bin_without_count)
{
    hf_poset *p = small_poset();
    hf_family *f = small_family();
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    hf_writer *w = NULL;
    hf_family_header h = {2, "random", false, 0, 0, 0};
    cr_assert_eq(hf_writer_new(p, out, HF_FORMAT_BIN, &h, &w), HF_OK);
    hf_sink s = hf_writer_sink(w);
    for (size_t k = 0; k < hf_family_size(f); k++)
        cr_assert_eq(s.put(s.user, hf_family_schedule(f, k), 5), HF_OK);
    cr_assert_eq(hf_writer_close(w), HF_OK);
    fclose(out);
    bytes ref = ref_bin(p, f, 2, "random", UINT64_MAX);
    cr_assert_eq(len, ref.len);
    cr_assert(memcmp(buf, ref.b, len) == 0);
    hf_family *g = NULL;
    hf_family_header got;
    hf_error err;
    cr_assert_eq(tu_read_len(p, buf, len, &g, &got, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    cr_assert_eq(got.schedules, 2);
    hf_family_free(g);
    free(ref.b);
    free(buf);
    hf_family_free(f);
    hf_poset_free(p);
}

/* 65,536 events need 4-byte indices; 65,535 fit in 2. */
Test(formats, index_width_follows_the_event_count)
{
    for (uint32_t n = 65535; n <= 65536; n++) {
        hf_poset *p = tu_antichain(n);
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        uint32_t *s = malloc(n * sizeof *s);
        for (uint32_t i = 0; i < n; i++)
            s[i] = n - 1 - i;
        cr_assert_eq(hf_family_append(f, s), HF_OK);
        free(s);
        size_t len;
        char *bin = tu_write_family(p, f, HF_FORMAT_BIN, NULL, &len);
        unsigned w = n < 65536 ? 2 : 4;
        cr_assert_eq(((unsigned char *)bin)[11], w);
        cr_assert_eq(get_uint((unsigned char *)bin + len - 16 - w, (int)w), 0);
        hf_family *g = NULL;
        hf_error err;
        cr_assert_eq(tu_read_len(p, bin, len, &g, NULL, &err), HF_OK, "%s", err.text);
        tu_assert_family_eq(f, g);
        hf_family_free(g);
        free(bin);
        hf_family_free(f);
        hf_poset_free(p);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* ids refusals                                                                               */

typedef struct bad_case {
    const char *body; /* after the header line */
    hf_status st;
    int line, column;
    const char *msg;
} bad_case;

Test(formats, ids_refusals_with_exact_messages)
{
    static const bad_case cases[] = {
        {"0 1 9 3 4\n", HF_ENOTFOUND, 2, 5, "event index 9 out of range (the order has 5 events)"},
        {"0 1 2 3 4\n0 1 1 3 4\n", HF_ESCHEDULE, 3, 5, "schedule 2 repeats event b"},
        {"0 1 2\n", HF_ESCHEDULE, 2, 1,
         "schedule 1 misses event \"x\\\"y\" (it lists 3 of 5 events)"},
        {"0 a 2 3 4\n", HF_EPARSE, 2, 3, "expected an event index, found 'a'"},
        {"0 1x 2 3 4\n", HF_EPARSE, 2, 4, "expected a blank after the event index, found 'x'"},
        {"0 -1 2 3 4\n", HF_EPARSE, 2, 3, "expected an event index, found '-'"},
        {"0 \"b\" 2 3 4\n", HF_EPARSE, 2, 3, "expected an event index, found '\"'"},
        {"0 1 2 3 99999999999999999999999\n", HF_ENOTFOUND, 2, 9,
         "event index 99999999999999999999999 out of range (the order has 5 events)"},
        {"# events a b \"c d\" \"x\\\"y\"\n", HF_EMISMATCH, 2, 1,
         "the events line lists 4 events, the order has 5"},
        {"# events a b \"c d\" \"x\\\"y\" e f\n", HF_EMISMATCH, 2, 29,
         "the events line lists more than the order's 5 events"},
        {"# events a b \"c d\" xy e\n", HF_EMISMATCH, 2, 20,
         "event index 3 is xy in the family, \"x\\\"y\" in the order"},
        {"# events b a \"c d\" \"x\\\"y\" e\n", HF_EMISMATCH, 2, 10,
         "event index 0 is b in the family, a in the order"},
        {"# events a b \"c d\n", HF_EPARSE, 2, 14, "unterminated quoted name"},
        {"0 1 2 3 4\n", HF_ESCHEDULE, 1, 50, "header says 2 schedules, found 1 (truncated file?)"},
    };
    hf_poset *p = small_poset();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        const char *count = i + 1 == sizeof cases / sizeof cases[0] ? " schedules=2" : "";
        snprintf(text, sizeof text, "# hitfam 0.1.0 d=2 method=dfs events=5%s format=ids\n%s",
                 count, cases[i].body);
        hf_family *f = (hf_family *)&i;
        hf_error err;
        hf_status st = tu_read_len(p, text, strlen(text), &f, NULL, &err);
        cr_assert_eq(st, cases[i].st, "case %zu: %d %s", i, st, err.text);
        cr_assert_null(f);
        cr_assert_str_eq(err.text, cases[i].msg, "case %zu", i);
        cr_assert_eq(err.line, cases[i].line, "case %zu: line %d", i, err.line);
        cr_assert_eq(err.column, cases[i].column, "case %zu: column %d", i, err.column);
    }
    hf_poset_free(p);
}

Test(formats, ids_header_format_key)
{
    hf_poset *p = small_poset();
    hf_family *f = NULL;
    hf_error err;
    const char *bad = "# hitfam 0.1.0 events=5 format=xml\n0 1 2 3 4\n";
    cr_assert_eq(tu_read_len(p, bad, strlen(bad), &f, NULL, &err), HF_EPARSE);
    cr_assert_str_eq(err.text, "header: format=xml is not text or ids");
    cr_assert_eq(err.column, 32);
    const char *twice = "# hitfam 0.1.0 format=ids format=ids\n0 1 2 3 4\n";
    cr_assert_eq(tu_read_len(p, twice, strlen(twice), &f, NULL, &err), HF_EPARSE);
    cr_assert_str_eq(err.text, "header: format= appears twice");
    /* format=text: names, as without the key */
    const char *text = "# hitfam 0.1.0 format=text\na b \"c d\" \"x\\\"y\" e\n";
    cr_assert_eq(tu_read_len(p, text, strlen(text), &f, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(f), 1);
    hf_family_free(f);
    /* ids without an events line, with tabs, CR LF, comments, blank lines, leading zeros */
    const char *loose = "# hitfam 0.1.0 format=ids\r\n\r\n# a comment\r\n4\t0  02 3 1 \r\n"
                        "# events this is not the events line any more\n";
    cr_assert_eq(tu_read_len(p, loose, strlen(loose), &f, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_family_size(f), 1);
    static const uint32_t want[] = {4, 0, 2, 3, 1};
    cr_assert(memcmp(hf_family_schedule(f, 0), want, sizeof want) == 0);
    cr_assert_eq(hf_family_schedule_line(f, 0), 4);
    hf_family_free(f);
    /* an index in a text family is a name, and no event has it */
    const char *plain = "# hitfam 0.1.0\n0 1 2 3 4\n";
    cr_assert_eq(tu_read_len(p, plain, strlen(plain), &f, NULL, &err), HF_ENOTFOUND);
    cr_assert_str_eq(err.text, "unknown event 0");
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* bin refusals                                                                               */

static hf_status ignore_schedule(void *user, const uint32_t *s, uint32_t n, size_t index,
                                 size_t line)
{
    (void)user;
    (void)s;
    (void)n;
    (void)index;
    (void)line;
    return HF_OK;
}

/* Refused whole, and streamed in chunks that cut the header, the names and the schedules
 * anywhere, with the same status and message. */
static void expect_bin(const hf_poset *p, const unsigned char *b, size_t len, hf_status st,
                       const char *msg)
{
    hf_family *f = (hf_family *)&len;
    hf_error err;
    hf_status got = tu_read_len(p, (const char *)b, len, &f, NULL, &err);
    cr_assert_eq(got, st, "%d (%s), expected %d (%s)", got, err.text, st, msg);
    cr_assert_null(f);
    cr_assert_str_eq(err.text, msg);
    cr_assert_eq(err.line, 0);
    cr_assert_eq(err.column, 0);
    static const size_t chunks[] = {1, 5, 64, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        memset(&err, 0, sizeof err);
        got = hf_family_stream_mem(p, (const char *)b, len, chunks[c], ignore_schedule, NULL, NULL,
                                   &err);
        cr_assert_eq(got, st, "chunk %zu: %d (%s), expected %d (%s)", chunks[c], got, err.text, st,
                     msg);
        cr_assert_str_eq(err.text, msg, "chunk %zu: %s, expected %s", chunks[c], err.text, msg);
        cr_assert_eq(err.line, 0);
        cr_assert_eq(err.column, 0);
    }
}

Test(formats, bin_refusals_with_exact_messages)
{
    hf_poset *p = small_poset();
    hf_family *f = small_family();
    bytes good = ref_bin(p, f, 2, "dfs", 2);
    size_t len = good.len;
    unsigned char *b = malloc(len + 64);
    /* 100 bytes: header 0..39, method 40..42, names 43..59, padding 60..63, rows 64..83
     * (schedule 2 at 74), trailer 84..99 */
#define RESET() memcpy(b, good.b, len)
    RESET();
    expect_bin(p, b, 99, HF_EPARSE,
               "byte 99: truncated binary family (the header announces 2 schedules, the file has "
               "room for 1)");
    expect_bin(p, b, 20, HF_EPARSE, "byte 20: truncated binary family (in the header)");
    expect_bin(p, b, 6, HF_EPARSE, "byte 6: truncated binary family (in the header)");
    expect_bin(p, b, 50, HF_EPARSE, "byte 50: truncated binary family (in the event names)");
    expect_bin(p, b, 62, HF_EPARSE, "byte 62: truncated binary family (in the padding)");
    expect_bin(p, b, 70, HF_EPARSE, "byte 70: truncated binary family (no trailer)");
    b[5] = 'x';
    expect_bin(p, b, len, HF_EPARSE, "byte 5: not a hitfam binary family (magic bytes)");
    RESET();
    b[70] ^= 1;
    expect_bin(p, b, len, HF_EPARSE,
               "byte 92: checksum mismatch (the file is damaged or truncated)");
    RESET();
    memcpy(b + len, "\0\0\0\0\0\0\0\0\0\0", 10);
    fix_sum(b, len + 10); /* 10 bytes more: the trailer moves */
    expect_bin(p, b, len + 10, HF_EPARSE, "byte 84: 10 bytes after the header's 2 schedules");
    RESET();
    b[8] = 2;
    expect_bin(p, b, len, HF_EUNSUPPORTED,
               "byte 8: binary family version 2, this hitfam reads version 1");
    RESET();
    b[11] = 3;
    expect_bin(p, b, len, HF_EPARSE, "byte 11: index width 3 (must be 2 or 4 bytes)");
    RESET();
    b[13] = 1;
    expect_bin(p, b, len, HF_EPARSE, "byte 12: unknown flags 0x101");
    RESET();
    b[21] = 0x20; /* method length 8195 */
    expect_bin(p, b, len, HF_EPARSE, "byte 20: method of 8195 bytes (at most 4096)");
    RESET();
    b[32] = 72;
    expect_bin(p, b, len, HF_EPARSE, "byte 32: rows at byte 72, expected 64");
    RESET();
    b[61] = 1;
    expect_bin(p, b, len, HF_EPARSE, "byte 61: padding byte is not zero");
    /* the checks after the checksum: each edit made consistent again */
    RESET();
    b[84] = 3;
    fix_sum(b, len);
    expect_bin(p, b, len, HF_EPARSE, "byte 84: the trailer counts 3 schedules, the header 2");
    RESET();
    b[10] = 9;
    fix_sum(b, len);
    expect_bin(p, b, len, HF_EPARSE, "byte 10: d=9 is out of range (0 for unknown, 1 to 8)");
    RESET();
    b[45] = 'B'; /* the name of index 1 */
    fix_sum(b, len);
    expect_bin(p, b, len, HF_EMISMATCH,
               "byte 45: event index 1 is B in the family, b in the order");
    RESET();
    b[66] = 9; /* schedule 1, second index */
    fix_sum(b, len);
    expect_bin(p, b, len, HF_ENOTFOUND,
               "byte 66: event index 9 out of range (the order has 5 events)");
    RESET();
    b[82] = 4; /* schedule 2's last index repeats e */
    fix_sum(b, len);
    expect_bin(p, b, len, HF_ESCHEDULE, "byte 82: schedule 2 repeats event e");
    /* another order: other count, other names */
    const char *const six[] = {"a", "b", "c d", "x\"y", "e", "f"};
    hf_poset *q = tu_named_poset(NULL, six, 6, NULL, 0);
    expect_bin(q, b, len, HF_EMISMATCH, "byte 16: family has 5 events, the order has 6");
    const char *const other[] = {"a", "b", "c", "x\"y", "e"};
    hf_poset *r = tu_named_poset(NULL, other, 5, NULL, 0);
    RESET();
    expect_bin(r, b, len, HF_EMISMATCH,
               "byte 47: event index 2 is \"c d\" in the family, c in the order");
    free(good.b);
    /* unknown count: the trailer must match the rows */
    good = ref_bin(p, f, 2, "dfs", UINT64_MAX);
    memcpy(b, good.b, len);
    b[84] = 1;
    fix_sum(b, len);
    expect_bin(p, b, len, HF_EPARSE, "byte 84: the trailer counts 1 schedules, the file holds 2");
    memcpy(b, good.b, len);
    expect_bin(p, b, len - 1, HF_EPARSE,
               "byte 99: truncated binary family (19 bytes of schedules is not a whole number of "
               "10-byte schedules)");
#undef RESET
    free(good.b);
    free(b);
    hf_poset_free(q);
    hf_poset_free(r);
    hf_family_free(f);
    hf_poset_free(p);
}

/* Every prefix and every single-byte change of a bin file is refused (never misread). */
Test(formats, bin_every_prefix_and_byte_change_refused)
{
    uint64_t rng = 99;
    hf_poset *p = tu_random_awkward_poset(NULL, 7, &rng);
    hf_family *f = tu_random_family(p, 3, &rng);
    size_t len;
    char *bin = tu_write_family(p, f, HF_FORMAT_BIN, NULL, &len);
    hf_family *g;
    hf_error err;
    for (size_t cut = 1; cut < len; cut++) { /* (no bytes: an empty text family) */
        g = NULL;
        hf_status st = tu_read_len(p, bin, cut, &g, NULL, &err);
        cr_assert_neq(st, HF_OK, "prefix %zu read", cut);
        cr_assert_null(g);
    }
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            bin[i] ^= (char)(1 << bit);
            g = NULL;
            hf_status st = tu_read_len(p, bin, len, &g, NULL, &err);
            bin[i] ^= (char)(1 << bit);
            if (i < 4) /* no longer bin: read as text, which cannot name these events */
                cr_assert_neq(st, HF_OK);
            else
                cr_assert_neq(st, HF_OK, "byte %zu bit %d read", i, bit);
            cr_assert_null(g);
        }
    free(bin);
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* The text reader's guesses                                                                  */

/* Names that are prefixes of each other, bare and quoted, and tokens that end at a quote: the
 * guessed reading equals the names' own. */
Test(formats, text_guesses_never_change_what_is_read)
{
    const char *const names[] = {"a", "ab", "abc", "a b", "b", "ab\"", "c\r", "node", "x"};
    const uint32_t n = 9;
    hf_poset *p = tu_named_poset(NULL, names, n, NULL, 0);
    uint64_t rng = 3;
    hf_family *f = tu_random_family(p, 30, &rng);
    /* runs of identical schedules (every guess right) and reversals (every guess wrong) */
    for (int k = 0; k < 3; k++) {
        uint32_t s[9];
        memcpy(s, hf_family_schedule(f, 0), sizeof s);
        cr_assert_eq(hf_family_append(f, s), HF_OK);
        for (uint32_t i = 0; i < n / 2; i++) {
            uint32_t t = s[i];
            s[i] = s[n - 1 - i];
            s[n - 1 - i] = t;
        }
        cr_assert_eq(hf_family_append(f, s), HF_OK);
    }
    size_t len;
    char *text = tu_write_family(p, f, HF_FORMAT_TEXT, NULL, &len);
    hf_family *g = NULL;
    hf_error err;
    cr_assert_eq(tu_read_len(p, text, len, &g, NULL, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    hf_family_free(g);
    free(text);
    /* hand-written: a guess of "a" must not take "ab", nor "ab" the start of "abc" */
    const char *in = "a ab abc \"a b\" b \"ab\\\"\" \"c\r\" node x\n"
                     "a ab abc \"a b\" b \"ab\\\"\" \"c\r\" node x\n"
                     "ab abc a\"a b\"b \"ab\\\"\"\t\"c\r\"\tnode x\n"
                     "abc ab a \"a b\" b \"ab\\\"\" \"c\r\" node a\n";
    cr_assert_eq(tu_read_len(p, in, strlen(in), &g, NULL, &err), HF_ESCHEDULE);
    cr_assert_str_eq(err.text, "schedule 4 repeats event a");
    cr_assert_eq(err.line, 4);
    cr_assert_eq(err.column, 35);
    /* the first line is not "c\r" but "c\\r": an unknown name, seen after correct guesses */
    const char *bad = "a ab abc \"a b\" b \"ab\\\"\" \"c\\\\r\" node x\n";
    cr_assert_eq(tu_read_len(p, bad, strlen(bad), &g, NULL, &err), HF_ENOTFOUND);
    cr_assert_str_eq(err.text, "unknown event \"c\\\\r\"");
    cr_assert_eq(err.column, 25);
    /* a bare token longer than the guess */
    const char *longer = "a ab abc \"a b\" b \"ab\\\"\" \"c\r\" node xy\n";
    cr_assert_eq(tu_read_len(p, longer, strlen(longer), &g, NULL, &err), HF_ENOTFOUND);
    cr_assert_str_eq(err.text, "unknown event xy");
    hf_family_free(f);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Allocation failures                                                                        */

Test(formats, out_of_memory_on_every_allocation)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *p = tu_named_poset(ctx, small_names, 5, small_edges, 3);
    hf_family *f = small_family();
    for (int format = HF_FORMAT_TEXT; format <= HF_FORMAT_BIN; format++) {
        hf_family_header h = {2, "dfs", true, 2, 0, 0};
        size_t len;
        char *data = tu_write_family(p, f, (hf_format)format, &h, &len);
        int failures = 0;
        for (long k = 0;; k++) {
            hf_family *g = (hf_family *)&k;
            hf_error err;
            long live = c.live;
            c.left = k;
            hf_status st = tu_read_len(p, data, len, &g, NULL, &err);
            c.left = -1;
            if (st == HF_OK) {
                tu_assert_family_eq(f, g);
                hf_family_free(g);
                break;
            }
            cr_assert_eq(st, HF_ENOMEM, "format %d allocation %ld: %s", format, k, err.text);
            cr_assert_null(g);
            cr_assert_eq(c.live, live, "a failed read leaked");
            failures++;
        }
        cr_assert_gt(failures, 2);
        /* the writer: creation and a whole family */
        for (long k = 0;; k++) {
            char *buf = NULL;
            size_t size = 0;
            FILE *out = open_memstream(&buf, &size);
            long live = c.live;
            c.left = k;
            hf_status st = hf_family_write(p, f, out, (hf_format)format, &h);
            c.left = -1;
            fclose(out);
            cr_assert_eq(c.live, live, "the writer leaked");
            if (st == HF_OK) {
                cr_assert_eq(size, len);
                cr_assert(memcmp(buf, data, len) == 0);
                free(buf);
                break;
            }
            cr_assert_eq(st, HF_ENOMEM);
            free(buf);
        }
        free(data);
    }
    hf_family_free(f);
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

/* A failing stream: every format reports HF_EIO, from a put or from the close. */
Test(formats, write_errors_give_eio)
{
    hf_poset *p = small_poset();
    hf_family *f = small_family();
    for (int format = HF_FORMAT_TEXT; format <= HF_FORMAT_BIN; format++) {
        FILE *full = fopen("/dev/full", "w");
        cr_assert_not_null(full);
        setvbuf(full, NULL, _IONBF, 0);
        cr_assert_eq(hf_family_write(p, f, full, (hf_format)format, NULL), HF_EIO);
        fclose(full);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

/* An index is the event's position in the DOT file's node order (docs/formats.md's example),
 * and the ids events line and the bin name table list the names in that order. */
Test(formats, indices_follow_the_dot_node_order)
{
    const char *dot = "digraph { b -> a; c; a -> d; subgraph s { e -> b } }";
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(NULL, dot, strlen(dot), &p, &err), HF_OK, "%s", err.text);
    static const uint32_t edges[][2] = {{0, 1}, {1, 3}, {4, 0}}; /* b a c d e */
    tu_register_edges(p, edges, 3);
    static const char *const order[] = {"b", "a", "c", "d", "e"};
    for (uint32_t v = 0; v < 5; v++)
        cr_assert_str_eq(hf_poset_name(p, v), order[v]);
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, 5, &f), HF_OK);
    static const uint32_t row[] = {4, 2, 0, 1, 3}; /* e c b a d */
    cr_assert_eq(hf_family_append(f, row), HF_OK);
    size_t len;
    char *ids = tu_write_family(p, f, HF_FORMAT_IDS, NULL, &len);
    cr_assert(strstr(ids, "\n# events b a c d e\n4 2 0 1 3\n") != NULL, "%s", ids);
    free(ids);
    char *text = tu_write_family(p, f, HF_FORMAT_TEXT, NULL, &len);
    cr_assert(strstr(text, "\ne c b a d\n") != NULL, "%s", text);
    free(text);
    char *bin = tu_write_family(p, f, HF_FORMAT_BIN, NULL, &len);
    /* no method (L = 0), 10 bytes of names, rows at 56, one row of 5 x 2 bytes, the trailer */
    cr_assert_eq(len, 56 + 10 + 16);
    cr_assert(memcmp(bin + 40, "b\0a\0c\0d\0e\0", 10) == 0);
    hf_family_free(f);
    hf_poset_free(p);
    free(bin);
}
