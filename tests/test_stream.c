/* Streaming family input (hitfam/stream.h): the same schedules, header and errors (status,
 * message, line, column) as hf_family_read_mem on every family file of the project and on random
 * and damaged families, whatever the chunk size (1, 2 and 7 bytes cross every token boundary),
 * from memory, a seekable stream and a pipe; under failing allocations; bin families in bounded
 * memory; and the schedule store with verify on the heap and in a mapped file giving hf_verify's
 * answers. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hitfam/count.h"
#include "hitfam/hitfam.h"
#include "hitfam/stream.h"
#include "oracle.h"
#include "util.h"

/* What a read gave: the schedules (as a family), their lines, the header and the error. */
typedef struct outcome {
    hf_status st;
    hf_error err;
    hf_family_header h;
    hf_family *f;
    size_t lines[4096];
} outcome;

static hf_status collect(void *user, const uint32_t *s, uint32_t n, size_t index, size_t line)
{
    outcome *o = user;
    cr_assert_eq(n, hf_family_events(o->f));
    cr_assert_eq(index, hf_family_size(o->f), "schedules come in order");
    if (index < 4096)
        o->lines[index] = line;
    return hf_family_append(o->f, s);
}

static void outcome_free(outcome *o) { hf_family_free(o->f); }

/* The whole-input reader's outcome. */
static void read_whole(const hf_poset *p, const char *data, size_t len, outcome *o)
{
    memset(o, 0, sizeof *o);
    o->st = hf_family_read_mem(p, data, len, &o->f, &o->h, &o->err);
    if (o->st == HF_OK)
        for (size_t i = 0; i < hf_family_size(o->f) && i < 4096; i++)
            o->lines[i] = hf_family_schedule_line(o->f, i);
}

/* A FILE holding data: a seekable temporary file (pipe false), or a pipe from cat of one (its
 * path in path[], to unlink once the stream is closed with close_input). */
static FILE *input_of(const char *data, size_t len, bool pipe, char path[32])
{
    if (!pipe) {
        FILE *in = tmpfile();
        cr_assert_not_null(in);
        cr_assert_eq(fwrite(data, 1, len, in), len);
        rewind(in);
        path[0] = '\0';
        return in;
    }
    strcpy(path, "/tmp/hitfam-test-stream-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "cat %s", path);
    FILE *in = popen(cmd, "r");
    cr_assert_not_null(in);
    return in;
}

static void close_input(FILE *in, const char *path)
{
    if (path[0]) {
        pclose(in);
        unlink(path);
    } else {
        fclose(in);
    }
}

/* mode 0: memory; 1: a seekable stream; 2: a pipe */
static void read_stream(const hf_poset *p, const char *data, size_t len, size_t chunk, int mode,
                        outcome *o)
{
    memset(o, 0, sizeof *o);
    cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &o->f), HF_OK);
    if (mode == 0) {
        o->st = hf_family_stream_mem(p, data, len, chunk, collect, o, &o->h, &o->err);
        return;
    }
    char path[32];
    FILE *in = input_of(data, len, mode == 2, path);
    o->st = hf_family_stream_file(p, in, chunk, collect, o, &o->h, &o->err);
    close_input(in, path);
}

/* hf_family_read_file's outcome, from a seekable file or a pipe. */
static void read_file(const hf_poset *p, const char *data, size_t len, bool pipe, outcome *o)
{
    memset(o, 0, sizeof *o);
    char path[32];
    FILE *in = input_of(data, len, pipe, path);
    o->st = hf_family_read_file(p, in, &o->f, &o->h, &o->err);
    close_input(in, path);
    if (o->st == HF_OK)
        for (size_t i = 0; i < hf_family_size(o->f) && i < 4096; i++)
            o->lines[i] = hf_family_schedule_line(o->f, i);
}

static void assert_same(const outcome *a, const outcome *b, const char *what, size_t chunk)
{
    cr_assert_eq(a->st, b->st, "%s (chunk %zu): status %d vs %d (%s | %s)", what, chunk, a->st,
                 b->st, a->err.text, b->err.text);
    if (a->st) {
        cr_assert_str_eq(a->err.text, b->err.text, "%s (chunk %zu)", what, chunk);
        cr_assert_eq(a->err.line, b->err.line, "%s (chunk %zu): %s", what, chunk, a->err.text);
        cr_assert_eq(a->err.column, b->err.column, "%s (chunk %zu): %s", what, chunk, a->err.text);
        return;
    }
    cr_assert_eq(a->h.d, b->h.d, "%s", what);
    cr_assert_eq(a->h.schedules, b->h.schedules, "%s", what);
    size_t m = hf_family_size(a->f);
    uint32_t n = hf_family_events(a->f);
    if (n == 0)
        return; /* empty schedules: only the header counts them */
    cr_assert_eq(m, hf_family_size(b->f), "%s (chunk %zu)", what, chunk);
    for (size_t i = 0; i < m; i++) {
        cr_assert_eq(
            memcmp(hf_family_schedule(a->f, i), hf_family_schedule(b->f, i), n * sizeof(uint32_t)),
            0, "%s: schedule %zu", what, i);
        if (i < 4096)
            cr_assert_eq(a->lines[i], b->lines[i], "%s: line of schedule %zu", what, i);
    }
}

static const size_t chunks[] = {1, 2, 7, 4096, 0};

/* Every chunk size from memory, and a few from streams (a pipe for JSON's copy). */
static void compare(const hf_poset *p, const char *data, size_t len, const char *what, bool pipes)
{
    outcome whole, part;
    read_whole(p, data, len, &whole);
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        read_stream(p, data, len, chunks[c], 0, &part);
        assert_same(&whole, &part, what, chunks[c]);
        outcome_free(&part);
    }
    for (int mode = 1; mode <= (pipes ? 2 : 1); mode++) {
        read_stream(p, data, len, 3, mode, &part);
        assert_same(&whole, &part, what, 3);
        outcome_free(&part);
        /* hf_family_read_file reads through the same window, into a family */
        read_file(p, data, len, mode == 2, &part);
        assert_same(&whole, &part, what, 0);
        outcome_free(&part);
    }
    outcome_free(&whole);
}

/* The order of the family fuzz targets (fuzz/fuzz_common.h): awkward names. */
static hf_poset *awkward(void)
{
    static const char *const names[] = {"x", "a b", "node", "\"q\"\\n", "", "\xc3\xa9\x31"};
    static const uint32_t edges[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {4, 5}};
    hf_poset_builder *b = NULL;
    hf_poset *p = NULL;
    cr_assert_eq(hf_poset_builder_new(NULL, &b), HF_OK);
    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(hf_poset_builder_add_event(b, names[i], NULL), HF_OK);
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(hf_poset_builder_add_order(b, edges[i][0], edges[i][1]), HF_OK);
    cr_assert_eq(hf_poset_builder_finish(b, &p, NULL), HF_OK);
    hf_poset_builder_free(b);
    tu_register_edges(p, edges, 5);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *in = fopen(path, "rb");
    cr_assert_not_null(in, "%s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, in)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(in);
    *len = n;
    return buf;
}

/* Every regular file of root/dir against p, less its first `skip` bytes; returns how many. */
static size_t compare_dir(const hf_poset *p, const char *dir, size_t skip, bool pipes)
{
    const char *root = getenv("HITFAM_SOURCE_ROOT");
    cr_assert_not_null(root, "HITFAM_SOURCE_ROOT must be set (meson test sets it)");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", root, dir, e->d_name);
        size_t len;
        char *data = slurp(path, &len);
        if (len >= skip)
            compare(p, data + skip, len - skip, path, pipes && count % 16 == 0);
        free(data);
        count++;
    }
    closedir(d);
    return count;
}

Test(stream, every_family_file_of_the_project)
{
    hf_poset *p = awkward();
    cr_assert_gt(compare_dir(p, "fuzz/corpus/family_text", 0, true), 100);
    cr_assert_gt(compare_dir(p, "fuzz/corpus/family_json", 0, true), 100);
    /* a bin input's first byte is the fuzz target's own (fuzz/fuzz_family_bin.c) */
    cr_assert_geq(compare_dir(p, "fuzz/corpus/family_bin", 1, true), 10);
    hf_poset_free(p);
    hf_error err;
    const char *root = getenv("HITFAM_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/posets/wide_tree.dot", root);
    FILE *in = fopen(path, "rb");
    cr_assert_not_null(in);
    hf_poset *q = NULL;
    cr_assert_eq(hf_dot_read_file(NULL, in, &q, &err), HF_OK, "%s", err.text);
    fclose(in);
    cr_assert_eq(compare_dir(q, "tests/data/family", 0, true), 10);
    hf_poset_free(q);
}

/* A written family (text or JSON) of random extensions, then damaged copies of it. */
Test(stream, random_and_damaged_families)
{
    uint64_t rng = 17;
    hf_poset *p = awkward();
    for (int round = 0; round < 60; round++) {
        size_t m = 1 + tu_below(&rng, 6);
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, 6, &f), HF_OK);
        uint32_t row[6];
        for (size_t i = 0; i < m; i++) {
            tu_random_extension(p, &rng, row);
            cr_assert_eq(hf_family_append(f, row), HF_OK);
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        hf_family_header h = {1 + tu_below(&rng, 8), "m e\"t", round % 3 == 0, m, 0, 0};
        cr_assert_eq(hf_family_write(p, f, mem, (hf_format)(round % 2), &h), HF_OK);
        fclose(mem);
        compare(p, buf, len, "written", round < 4);
        /* damaged: a byte changed, removed or a piece cut off */
        for (int k = 0; k < 12; k++) {
            char *copy = malloc(len + 1);
            memcpy(copy, buf, len);
            size_t at = tu_below(&rng, (uint32_t)len), clen = len;
            static const char bytes[] = " \t\n\r\"\\[]{},:#0123456789xeu-";
            if (k % 3 == 0)
                copy[at] = bytes[tu_below(&rng, sizeof bytes - 1)];
            else if (k % 3 == 1)
                memmove(copy + at, copy + at + 1, --clen - at);
            else
                clen = at;
            compare(p, copy, clen, "damaged", false);
            free(copy);
        }
        free(buf);
        hf_family_free(f);
    }
    hf_poset_free(p);
}

/* Bin families (count in the header or not, zero events too) streamed give the whole read's
 * schedules and header; every prefix, some changed bytes and bytes added give its refusal. */
Test(stream, bin_families_as_read_whole)
{
    uint64_t rng = 23;
    hf_poset *p = awkward();
    hf_poset *none = tu_antichain(0);
    for (int round = 0; round < 8; round++) {
        hf_poset *q = round == 7 ? none : p;
        hf_family *f = round == 7 ? NULL : tu_random_family(q, 1 + tu_below(&rng, 5), &rng);
        if (round == 7) {
            cr_assert_eq(hf_family_new(NULL, 0, &f), HF_OK);
            for (int k = 0; k < 3; k++)
                cr_assert_eq(hf_family_append(f, NULL), HF_OK);
        }
        hf_family_header h = {
            round % 4, round % 3 ? "m e\"t" : NULL, round % 2 == 0, hf_family_size(f), 0, 0};
        size_t len;
        char *bin = tu_write_family(q, f, HF_FORMAT_BIN, &h, &len);
        compare(q, bin, len, "bin", round < 2);
        char *copy = malloc(len + 8);
        for (size_t cut = 1; cut < len; cut++)
            compare(q, bin, cut, "bin prefix", false);
        for (int k = 0; k < 16; k++) {
            memcpy(copy, bin, len);
            copy[4 + tu_below(&rng, (uint32_t)len - 4)] ^= (char)(1 << tu_below(&rng, 8));
            compare(q, copy, len, "bin changed", false);
        }
        memcpy(copy, bin, len);
        memset(copy + len, 0, 8);
        compare(q, copy, len + 1 + tu_below(&rng, 8), "bin longer", false);
        free(copy);
        free(bin);
        hf_family_free(f);
    }
    hf_poset_free(none);
    hf_poset_free(p);
}

/* A bin family of more events than the order, whose names start with the order's (found by
 * fuzz/fuzz_stream.c): the stream compared the names of events the order does not have, reading
 * past its names, before refusing the count as the whole read does. Each prefix too, and with a
 * checksum that is wrong. */
Test(stream, bin_family_of_more_events_than_the_order)
{
    hf_poset *small = tu_antichain(6), *large = tu_antichain(9);
    for (uint32_t v = 0; v < 6; v++)
        cr_assert_str_eq(hf_poset_name(small, v), hf_poset_name(large, v));
    uint64_t rng = 5;
    hf_family *f = tu_random_family(large, 3, &rng);
    hf_family_header h = {2, "dfs", true, 3, 0, 0};
    size_t len;
    char *bin = tu_write_family(large, f, HF_FORMAT_BIN, &h, &len);
    outcome whole;
    read_whole(small, bin, len, &whole);
    cr_assert_eq(whole.st, HF_EMISMATCH, "%s", whole.err.text);
    outcome_free(&whole);
    compare(small, bin, len, "bin of 9 events", true);
    for (size_t cut = 1; cut < len; cut += 7)
        compare(small, bin, cut, "bin of 9 events, cut", false);
    bin[len - 1] ^= 1;
    compare(small, bin, len, "bin of 9 events, checksum", false);
    free(bin);
    hf_family_free(f);
    hf_poset_free(large);
    hf_poset_free(small);
}

/* An allocator that counts the bytes held (each block carries its size) and their peak. */
typedef struct peak {
    size_t live, most;
} peak;

typedef union block_head {
    size_t size;
    max_align_t align;
} block_head;

static void *peak_realloc(void *ptr, size_t size, void *user)
{
    peak *k = user;
    block_head *b = ptr ? (block_head *)ptr - 1 : NULL;
    size_t old = b ? b->size : 0;
    b = realloc(b, sizeof *b + size);
    if (!b)
        return NULL;
    k->live += size - old;
    if (k->live > k->most)
        k->most = k->live;
    b->size = size;
    return b + 1;
}

static void *peak_malloc(size_t size, void *user) { return peak_realloc(NULL, size, user); }

static void peak_free(void *ptr, void *user)
{
    if (!ptr)
        return;
    block_head *b = (block_head *)ptr - 1;
    ((peak *)user)->live -= b->size;
    free(b);
}

static hf_status count_schedule(void *user, const uint32_t *s, uint32_t n, size_t index,
                                size_t line)
{
    (void)s;
    (void)n;
    (void)line;
    cr_assert_eq(index, (*(size_t *)user)++);
    return HF_OK;
}

/* A chain of 200 events (q, and its copy p in ctx, whose allocations k counts), its one
 * schedule in row, and a family of m copies of it written in a format (data, len bytes). */
typedef struct chain_input {
    peak k;
    hf_allocator a;
    hf_ctx *ctx;
    hf_poset *q, *p;
    uint32_t row[200];
    char *data;
    size_t len;
} chain_input;

/* m copies of the chain's schedule, in ctx. */
static hf_family *chain_copies(const chain_input *c, hf_ctx *ctx, size_t m)
{
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(ctx, 200, &f), HF_OK);
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(hf_family_append(f, c->row), HF_OK);
    return f;
}

static void chain_input_new(chain_input *c, size_t m, hf_format format)
{
    memset(c, 0, sizeof *c);
    c->a = (hf_allocator){peak_malloc, peak_realloc, peak_free, &c->k};
    cr_assert_eq(hf_ctx_new(&c->a, NULL, NULL, &c->ctx), HF_OK);
    c->q = tu_chain(200);
    c->p = tu_poset_copy(c->q, c->ctx);
    for (uint32_t v = 0; v < 200; v++)
        c->row[v] = v;
    hf_family *f = chain_copies(c, NULL, m);
    c->data = tu_write_family(c->q, f, format, NULL, &c->len);
    hf_family_free(f);
    cr_assert_gt(c->len, 4000000);
}

static void chain_input_free(chain_input *c)
{
    free(c->data);
    hf_poset_free(c->p);
    hf_poset_free(c->q);
    hf_ctx_free(c->ctx);
}

/* A bin family of a few megabytes streamed in 4 KiB chunks never holds more than a few chunks
 * and a schedule at once; read whole it is all there. */
Test(stream, bin_streamed_in_bounded_memory)
{
    chain_input c;
    chain_input_new(&c, 10000, HF_FORMAT_BIN);
    const hf_poset *p = c.p;
    const char *bin = c.data;
    size_t len = c.len;
    size_t base = c.k.live, rows = 0;
    hf_error err;
    c.k.most = base;
    cr_assert_eq(hf_family_stream_mem(p, bin, len, 4096, count_schedule, &rows, NULL, &err), HF_OK,
                 "%s", err.text);
    cr_assert_eq(rows, 10000);
    size_t streamed = c.k.most - base;
    cr_assert_lt(streamed, 64 * 1024, "the stream held %zu bytes", streamed);
    FILE *t = tmpfile();
    cr_assert_not_null(t);
    cr_assert_eq(fwrite(bin, 1, len, t), len);
    rewind(t);
    rows = 0;
    c.k.most = base;
    cr_assert_eq(hf_family_stream_file(p, t, 4096, count_schedule, &rows, NULL, &err), HF_OK, "%s",
                 err.text);
    fclose(t);
    cr_assert_eq(rows, 10000);
    cr_assert_lt(c.k.most - base, 64 * 1024, "the stream held %zu bytes", c.k.most - base);
    c.k.most = base;
    hf_family *g = NULL;
    cr_assert_eq(hf_family_read_mem(p, bin, len, &g, NULL, &err), HF_OK, "%s", err.text);
    cr_assert_gt(c.k.most - base, len, "read whole, the family is all held");
    hf_family_free(g);
    chain_input_free(&c);
}

/* hf_family_read_file holds the family it reads, not the text as well: on a text family of a
 * few megabytes its peak is within a megabyte of appending the same schedules to a family, where
 * a reading of the whole text into memory first would add the text's length. */
Test(stream, read_file_holds_the_family_not_the_text)
{
    chain_input c;
    chain_input_new(&c, 5000, HF_FORMAT_TEXT);
    /* the family alone, grown as the reader grows it */
    size_t base = c.k.live;
    c.k.most = base;
    hf_family_free(chain_copies(&c, c.ctx, 5000));
    size_t alone = c.k.most - base;
    for (int pipe = 0; pipe < 2; pipe++) {
        char path[32];
        FILE *in = input_of(c.data, c.len, pipe, path);
        c.k.most = base;
        hf_error err;
        hf_family_header h;
        hf_family *g = NULL;
        cr_assert_eq(hf_family_read_file(c.p, in, &g, &h, &err), HF_OK, "%s", err.text);
        close_input(in, path);
        cr_assert_eq(hf_family_size(g), 5000);
        cr_assert_eq(memcmp(hf_family_schedule(g, 4999), c.row, sizeof c.row), 0);
        size_t held = c.k.most - base;
        cr_assert_lt(held, alone + (1u << 20), "read from %s: %zu bytes held, the family alone %zu",
                     pipe ? "a pipe" : "a file", held, alone);
        hf_family_free(g);
    }
    chain_input_free(&c);
}

/* A stream read from where it stands: the caller has read a prefix of the file (the JSON reader
 * goes back to where the family starts, not to the file's start), in every format, by
 * hf_family_read_file and the streaming reader alike. */
Test(stream, streams_read_from_where_they_stand)
{
    hf_poset *p = awkward();
    uint64_t rng = 31;
    hf_family *f = tu_random_family(p, 4, &rng);
    static const char prefix[] = "{\"schedules\": [[5,4,3,2,1,0]]}\n# not the family\n";
    for (int format = HF_FORMAT_TEXT; format <= HF_FORMAT_BIN; format++) {
        hf_family_header h = {2, "dfs", true, 4, 0, 0};
        size_t len;
        char *data = tu_write_family(p, f, (hf_format)format, &h, &len);
        outcome whole, part;
        read_whole(p, data, len, &whole);
        cr_assert_eq(whole.st, HF_OK, "format %d: %s", format, whole.err.text);
        FILE *in = tmpfile();
        cr_assert_not_null(in);
        cr_assert_eq(fwrite(prefix, 1, sizeof prefix - 1, in), sizeof prefix - 1);
        cr_assert_eq(fwrite(data, 1, len, in), len);
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(fseek(in, (long)(sizeof prefix - 1), SEEK_SET), 0);
            if (k == 0) {
                memset(&part, 0, sizeof part);
                part.st = hf_family_read_file(p, in, &part.f, &part.h, &part.err);
                for (size_t i = 0; part.st == HF_OK && i < hf_family_size(part.f); i++)
                    part.lines[i] = hf_family_schedule_line(part.f, i);
            } else {
                memset(&part, 0, sizeof part);
                cr_assert_eq(hf_family_new(NULL, hf_poset_size(p), &part.f), HF_OK);
                part.st = hf_family_stream_file(p, in, 5, collect, &part, &part.h, &part.err);
            }
            assert_same(&whole, &part, "after a prefix", 0);
            outcome_free(&part);
        }
        fclose(in);
        outcome_free(&whole);
        free(data);
    }
    hf_family_free(f);
    hf_poset_free(p);
}

/* Quoted names that continue across lines, CR LF, a BOM, comments, blank lines. */
Test(stream, awkward_text_layouts)
{
    hf_poset *p = awkward();
    static const char *const cases[] = {
        "\xef\xbb\xbf# hitfam 1 d=2 events=6 schedules=1\r\n"
        "x \"a b\" node \"\\\"q\\\"\\\\n\" \"\" \"\xc3\xa9\x31\"\r\n",
        "# c\n\n  \n# hitfam 1 d=2\nx \"a \\\nb\" node \"\\\"q\\\"\\\\n\" \"\" \xc3\xa9\x31\n",
        "x \"a \\\r\nb\" node \"\\\"q\\\"\\\\n\" \"\" \xc3\xa9\x31",
        "x \"a b\nnode",
        "x \"a b\\",
        "x \"a b\\\r",
        "\r",
        "{\"schedules\": [[0,1,2,3,4,5]], \"events\": [\"x\",\"a b\",\"node\",\"\\\"q\\\"\\\\n\","
        "\"\",\"\xc3\xa9\x31\"], \"d\": 3}",
        "{\"schedules\": [[0,1,2,3,4,5] ], \"d\": 3, \"x\": [1,{\"a\":[2,\"]\"]}]}  \n ",
        "{\"schedules\": [[0,1,2,3,4,5],], \"d\": 3}",
        "{\"schedules\": [[0,1,2,3,4,5]] \"d\": 3}",
        "{\"schedules\": \"x\"}",
        "{\"schedules\": [[0,1,2,3,4,5]]} x",
        "{\"schedules\": [[0,1,2,3,4,5]], \"d\": 99999999999999999999999}",
        "{\"schedules\": [[\"\\ud800\"]]}",
        "   {  }",
        "{\"schedules\": [[0,1,2,3,4,5], [0,1,2,3,4,5",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        compare(p, cases[i], strlen(cases[i]), cases[i], true);
    hf_poset_free(p);
}

/* Out of memory at every allocation in turn (text, JSON and bin): HF_ENOMEM and nothing left
 * allocated, or the same schedules. */
Test(stream, out_of_memory_on_every_allocation)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *q = awkward();
    hf_poset *p = tu_poset_copy(q, ctx);
    static const char *const texts[] = {
        "# hitfam 1 d=2\nx \"a b\" node \"\\\"q\\\"\\\\n\" \"\" \xc3\xa9\x31\n",
        "{\"events\": [\"x\",\"a b\",\"node\",\"\\\"q\\\"\\\\n\",\"\",\"\xc3\xa9\x31\"], "
        "\"schedules\": [[0,1,2,3,4,5],[0,2,1,3,4,5]]}",
    };
    uint64_t rng = 5;
    hf_family *fam = tu_random_family(q, 3, &rng);
    hf_family_header h = {2, "dfs", true, 3, 0, 0};
    size_t bin_len;
    char *bin = tu_write_family(q, fam, HF_FORMAT_BIN, &h, &bin_len);
    const char *const inputs[] = {texts[0], texts[1], bin};
    for (size_t i = 0; i < 3; i++) {
        size_t len = i < 2 ? strlen(inputs[i]) : bin_len;
        outcome whole;
        read_whole(p, inputs[i], len, &whole);
        cr_assert_eq(whole.st, HF_OK);
        /* streamed from memory in 2-byte chunks, then hf_family_read_file from a pipe (JSON
         * kept whole in memory) */
        for (int file = 0; file <= 1; file++) {
            int failures = 0;
            for (long k = 0;; k++) {
                long live = c.live;
                outcome part;
                c.left = k;
                if (file)
                    read_file(p, inputs[i], len, true, &part);
                else
                    read_stream(p, inputs[i], len, 2, 0, &part);
                c.left = -1;
                bool ok = part.st == HF_OK;
                if (ok)
                    assert_same(&whole, &part, inputs[i], file ? 0 : 2);
                else
                    cr_assert_eq(part.st, HF_ENOMEM, "allocation %ld: %s", k, part.err.text);
                outcome_free(&part);
                cr_assert_eq(c.live, live, "allocation %ld leaked", k);
                if (ok)
                    break;
                failures++;
            }
            cr_assert_gt(failures, 3);
        }
        outcome_free(&whole);
    }
    free(bin);
    hf_family_free(fam);
    hf_poset_free(p);
    hf_poset_free(q);
    hf_ctx_free(ctx);
}

/* A consumer's refusal stops the reading with its status. */
static hf_status refuse_second(void *user, const uint32_t *s, uint32_t n, size_t index, size_t line)
{
    (void)user;
    (void)s;
    (void)n;
    (void)line;
    return index == 1 ? HF_EABORTED : HF_OK;
}

Test(stream, a_consumer_stops_the_reading)
{
    hf_poset *p = tu_chain(3);
    const char *text = "e0 e1 e2\ne0 e1 e2\ne0 e1 e2\n";
    hf_error err;
    cr_assert_eq(hf_family_stream_mem(p, text, strlen(text), 1, refuse_second, NULL, NULL, &err),
                 HF_EABORTED);
    cr_assert_eq(err.line, 2);
    cr_assert_eq(hf_family_stream_mem(NULL, text, 1, 1, refuse_second, NULL, NULL, &err),
                 HF_EINVAL);
    cr_assert_eq(hf_family_stream_file(p, NULL, 1, refuse_second, NULL, NULL, &err), HF_EINVAL);
    hf_poset_free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* The store and verify                                                                       */

static FILE *as_stream(const hf_poset *p, const hf_family *f, hf_format format)
{
    FILE *t = tmpfile();
    cr_assert_not_null(t);
    hf_family_header h = {2, "test", true, hf_family_size(f), 0, 0};
    cr_assert_eq(hf_family_write(p, f, t, format, &h), HF_OK);
    rewind(t);
    return t;
}

static void same_result(const hf_verify_result *a, const hf_verify_result *b, const char *what)
{
    cr_assert_eq(a->hitting, b->hitting, "%s", what);
    cr_assert_eq(a->d, b->d, "%s", what);
    cr_assert_eq(memcmp(a->witness, b->witness, sizeof a->witness), 0, "%s: witness", what);
}

/* hf_verify on the family against hf_verify_store from its file, with the store and the tables on
 * the heap and in mapped files, on random orders, trees, focus sets, shards and threads. */
Test(stream, store_verify_matches_verify)
{
    uint64_t rng = 1717;
    int mapped_seen = 0, not_hitting = 0;
    for (int round = 0; round < 90; round++) {
        uint32_t n = 3 + tu_below(&rng, 12);
        hf_poset *p = round % 3 == 0   ? tu_random_forest(n, 1 + tu_below(&rng, 2), &rng)
                      : round % 3 == 1 ? tu_random_inforest(n, 1, &rng)
                                       : tu_some_order((unsigned)round, n, &rng);
        n = hf_poset_size(p);
        hf_family *f = NULL;
        cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
        uint32_t *row = malloc(n * sizeof *row);
        if (round % 4 == 0) {
            /* a d-hitting family, maybe with one schedule dropped */
            hf_gen_options g = tu_gen_options(2 + round % 2, HF_METHOD_AUTO, NULL, 0);
            if (hf_generate(p, &g, hf_family_sink(f), NULL, NULL) != HF_OK) {
                hf_family_free(f);
                cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
            }
            if (round % 8 == 0 && hf_family_size(f) > 1)
                cr_assert_eq(hf_family_remove(f, tu_below(&rng, (uint32_t)hf_family_size(f))),
                             HF_OK);
        }
        size_t extra = hf_family_size(f) ? 0 : 1 + tu_below(&rng, 20);
        for (size_t i = 0; i < extra; i++) {
            tu_random_extension(p, &rng, row);
            cr_assert_eq(hf_family_append(f, row), HF_OK);
            if (i % 5 == 4)
                cr_assert_eq(hf_family_append(f, row), HF_OK); /* copies */
        }
        uint32_t focus[8];
        size_t fc = round % 5 == 1 ? 1 + tu_below(&rng, 8) : 0;
        for (size_t i = 0; i < fc; i++)
            focus[i] = tu_below(&rng, n);
        for (int variant = 0; variant < 3; variant++) {
            hf_verify_options o;
            hf_verify_options_init(&o);
            o.d = 2 + tu_below(&rng, 3);
            o.focus = fc ? focus : NULL;
            o.focus_count = fc;
            o.threads = 1 + variant % 2;
            if (variant == 2) {
                o.shard_count = 2;
                o.shard_index = tu_below(&rng, 2);
            }
            hf_verify_result want, got;
            hf_error err;
            cr_assert_eq(hf_verify(p, f, &o, &want, &err), HF_OK, "%s", err.text);
            not_hitting += !want.hitting;
            mpz_t cw, cg;
            mpz_inits(cw, cg, NULL);
            cr_assert_eq(hf_verify_count_uncovered(p, f, &o, cw, &err), HF_OK);
            for (int limit = 0; limit < 3; limit++) {
                /* 0: no limit; 1: everything mapped; 2: the store on the heap, tables mapped */
                size_t bytes = limit == 0 ? 0 : limit == 1 ? 1 : 1 << 20;
                FILE *in = as_stream(p, f, (hf_format)(round % 2));
                hf_family_store *s = NULL;
                hf_family_header h;
                cr_assert_eq(hf_family_store_read(p, in, bytes, &s, &h, &err), HF_OK, "%s",
                             err.text);
                fclose(in);
                cr_assert_eq(hf_family_store_size(s), hf_family_size(f));
                cr_assert_eq(hf_family_store_mapped(s), limit == 1 && n > 0);
                mapped_seen += hf_family_store_mapped(s);
                for (size_t i = 0; i < hf_family_size(f); i++)
                    cr_assert_eq(memcmp(hf_family_store_schedule(s, i), hf_family_schedule(f, i),
                                        n * sizeof(uint32_t)),
                                 0);
                o.memory_limit = bytes;
                cr_assert_eq(hf_verify_store(p, s, &o, &got, &err), HF_OK, "%s", err.text);
                same_result(&want, &got, "store");
                cr_assert_eq(hf_verify_store_count_uncovered(p, s, &o, cg, &err), HF_OK);
                cr_assert_eq(mpz_cmp(cw, cg), 0);
                /* the family itself with its tables mapped */
                cr_assert_eq(hf_verify(p, f, &o, &got, &err), HF_OK);
                same_result(&want, &got, "limit");
                o.memory_limit = 0;
                hf_family_store_free(s);
            }
            mpz_clears(cw, cg, NULL);
        }
        free(row);
        hf_family_free(f);
        hf_poset_free(p);
    }
    cr_assert_gt(mapped_seen, 50);
    cr_assert_gt(not_hitting, 20);
}

/* A schedule the order refuses: the same message from the store, and its line. */
Test(stream, store_refuses_what_verify_refuses)
{
    hf_poset *p = tu_chain(3);
    const char *text = "# hitfam 1 d=2\n\ne0 e1 e2\ne1 e0 e2\n";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    hf_family_store *s = NULL;
    hf_error err, err2;
    cr_assert_eq(hf_family_store_read(p, in, 1, &s, NULL, &err), HF_OK);
    fclose(in);
    cr_assert_eq(hf_family_store_schedule_line(s, 1), 4);
    cr_assert_eq(hf_family_store_schedule_line(s, 2), 0);
    hf_family *f = NULL;
    cr_assert_eq(hf_family_read_mem(p, text, strlen(text), &f, NULL, &err2), HF_OK);
    hf_verify_options o;
    hf_verify_options_init(&o);
    hf_verify_result r;
    cr_assert_eq(hf_verify_store(p, s, &o, &r, &err), HF_ESCHEDULE);
    cr_assert_eq(hf_verify(p, f, &o, &r, &err2), HF_ESCHEDULE);
    cr_assert_str_eq(err.text, err2.text);
    /* a store read for another order */
    hf_poset *p4 = tu_chain(4);
    cr_assert_eq(hf_verify_store(p4, s, &o, &r, &err), HF_EMISMATCH);
    hf_poset_free(p4);
    hf_family_store_free(s);
    hf_family_free(f);
    /* a parse error after the refused schedule comes first, as with the whole-input reader */
    const char *bad = "e1 e0 e2\nzz\n";
    in = fmemopen((void *)bad, strlen(bad), "r");
    cr_assert_eq(hf_family_store_read(p, in, 0, &s, NULL, &err), HF_ENOTFOUND);
    cr_assert_null(s);
    cr_assert_eq(err.line, 2);
    fclose(in);
    hf_poset_free(p);
}

/* The store and its check under failing allocations, on the heap and mapped: HF_ENOMEM and
 * nothing left allocated, or the answer of hf_verify. */
Test(stream, store_out_of_memory_on_every_allocation)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *q = tu_complete_binary(3);
    hf_poset *p = tu_poset_copy(q, ctx);
    uint32_t n = hf_poset_size(p);
    uint64_t rng = 5;
    hf_family *f = NULL;
    cr_assert_eq(hf_family_new(NULL, n, &f), HF_OK);
    uint32_t row[16];
    for (int i = 0; i < 6; i++) {
        tu_random_extension(q, &rng, row);
        cr_assert_eq(hf_family_append(f, row), HF_OK);
    }
    hf_verify_options o;
    hf_verify_options_init(&o);
    o.d = 3;
    o.threads = 1;
    hf_verify_result want, got;
    cr_assert_eq(hf_verify(q, f, &o, &want, NULL), HF_OK);
    for (int limit = 0; limit < 2; limit++) {
        int failures = 0;
        for (long k = 0;; k++) {
            long live = c.live;
            FILE *in = as_stream(q, f, (hf_format)limit);
            hf_family_store *s = NULL;
            hf_error err;
            c.left = k;
            hf_status st = hf_family_store_read(p, in, (size_t)limit, &s, NULL, &err);
            o.memory_limit = (size_t)limit;
            if (st == HF_OK)
                st = hf_verify_store(p, s, &o, &got, &err);
            c.left = -1;
            fclose(in);
            hf_family_store_free(s);
            cr_assert_eq(c.live, live, "allocation %ld leaked", k);
            if (st == HF_OK) {
                same_result(&want, &got, "chaos");
                break;
            }
            cr_assert_eq(st, HF_ENOMEM, "allocation %ld: %s", k, err.text);
            failures++;
        }
        cr_assert_gt(failures, 5);
    }
    hf_family_free(f);
    hf_poset_free(p);
    hf_poset_free(q);
    hf_ctx_free(ctx);
}
