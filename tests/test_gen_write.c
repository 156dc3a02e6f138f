/* The family writer's range path (lib/family_rows_i.h): rows that a generator describes as
 * ranges of a few sequences are written from renders of those sequences, with writev when the
 * stream has a descriptor. Its bytes equal the token-by-token writer's on random forests with
 * awkward and long names, in every format, on one and two threads, with focus sets and slices,
 * to memory, to a pipe whose writes signals cut short, and with allocations failing; a file
 * limit cuts the output where the limit is; descriptions that do not make a row are refused. */
#define _GNU_SOURCE /* open_memstream */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "family_rows_i.h"
#include "forest.h"
#include "gen.h"
#include "hitfam/stream.h"
#include "util.h"

TU_SUITE(gen_write);

/* How forest_named names its events. */
enum names { NAMES_MIXED, NAMES_SHORT, NAMES_SHORT_QUOTED };

/* A random recursive forest of n events with distinct names, built through tu_named_poset:
 * NAMES_MIXED awkward (quoted in text), long (longer than the writer's fixed slots) or plain;
 * NAMES_SHORT e0, e1, ... and NAMES_SHORT_QUOTED "a b0", "a b1", ... (quoted in text), which fit
 * the writer's slots, except event long_at (n or more: none), whose name is too long for one. */
static hf_poset *forest_named(uint32_t n, uint32_t roots, enum names kind, uint32_t long_at,
                              uint64_t *rng)
{
    char **names = calloc(n ? n : 1, sizeof *names);
    uint32_t(*edges)[2] = malloc((n ? n : 1) * sizeof *edges);
    size_t m = 0;
    for (uint32_t v = 0; v < n; v++) {
        names[v] = malloc(200);
        if (kind != NAMES_MIXED) {
            if (v == long_at)
                snprintf(names[v], 200, "a_name_too_long_for_a_slot_%u", v);
            else
                snprintf(names[v], 200, kind == NAMES_SHORT ? "e%u" : "a b%u", v);
        } else {
            char awk[128];
            tu_awkward_name(awk, rng);
            switch (tu_below(rng, 3)) {
            case 0:
                snprintf(names[v], 200, "%s%u", awk, v);
                break;
            case 1:
                snprintf(names[v], 200, "a_rather_long_event_name_number_%u", v);
                break;
            default:
                snprintf(names[v], 200, "e%u", v);
            }
        }
        if (v >= roots) {
            edges[m][0] = tu_below(rng, v);
            edges[m][1] = v;
            m++;
        }
    }
    hf_poset *p =
        tu_named_poset(NULL, (const char *const *)names, n, (const uint32_t(*)[2])edges, m);
    for (uint32_t v = 0; v < n; v++)
        free(names[v]);
    free(names);
    free(edges);
    return p;
}

static hf_poset *named_forest(uint32_t n, uint32_t roots, uint64_t *rng)
{
    return forest_named(n, roots, NAMES_MIXED, n, rng);
}

/* A sink of the caller's own, which the library cannot see through: rows reach it as values,
 * and it copies each before the writer sees it, so the writer renders them token by token. */
typedef struct copying {
    hf_sink next;
    uint32_t *copy;
    size_t rows;
} copying;

static hf_status copy_put(void *user, const uint32_t *s, uint32_t n)
{
    copying *c = user;
    c->rows++;
    memcpy(c->copy, s, n * sizeof *s);
    return c->next.put(c->next.user, c->copy, n);
}

/* Rows the writer of the last write_gen_to wrote from bytes assembled on a second thread. */
static size_t last_assembled;

/* The family of p under opt written in `format` to `out`, through the library's watch (as the
 * CLI's stream does: rows described by ranges reach the writer as such) or through a copying
 * sink; *described counts the rows the writer wrote from its renders (last_assembled those of
 * them it was given assembled). */
static void write_gen_to(FILE *out, const hf_poset *p, const hf_gen_options *opt, hf_format format,
                         bool copy, size_t *described)
{
    hf_family_header h = {3, "doubletree", false, 0, opt->row_first, opt->row_last};
    hf_writer *w = NULL;
    cr_assert_eq(hf_writer_new(p, out, format, &h, &w), HF_OK);
    copying c = {hf_writer_sink(w), malloc((hf_poset_size(p) + 1) * sizeof(uint32_t)), 0};
    hf_sink_watch watch = {hf_writer_sink(w), NULL, NULL};
    hf_error err;
    hf_sink sink = copy ? (hf_sink){copy_put, &c} : hf_sink_watch_sink(&watch);
    cr_assert_eq(hf_i_sink_takes_rows(sink), !copy);
    hf_status st = hf_generate(p, opt, sink, NULL, &err);
    cr_assert_eq(st, HF_OK, "%s", err.text);
    *described = (size_t)hf_i_writer_described(w);
    last_assembled = (size_t)hf_i_writer_assembled(w);
    cr_assert_gt(hf_writer_count(w), 0);
    if (copy)
        cr_assert_eq(c.rows, hf_writer_count(w));
    cr_assert_eq(hf_writer_close(w), HF_OK);
    free(c.copy);
}

static char *write_gen(const hf_poset *p, const hf_gen_options *opt, hf_format format, bool copy,
                       size_t *len, size_t *described)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    cr_assert(out);
    write_gen_to(out, p, opt, format, copy, described);
    cr_assert_eq(fclose(out), 0);
    *len = size;
    return buf;
}

/* On two threads, doubletree's second thread assembles the bytes of described rows when there
 * are two or more (the last write_gen_to's writer): of every one when forced to, of none when
 * forbidden, and of those the caller did not wait for by default (at most all but the first,
 * which the caller always waits for). */
static void check_assembled(const hf_gen_options *opt, size_t described, const char *what)
{
    bool ahead = opt->threads >= 2 && described >= 2;
    switch (hf_i_doubletree_assembly) {
    case HF_I_ASSEMBLE_ALWAYS:
        cr_assert_eq(last_assembled, ahead ? described : 0,
                     "%s: %zu of %zu described rows came assembled", what, last_assembled,
                     described);
        break;
    case HF_I_ASSEMBLE_NEVER:
        cr_assert_eq(last_assembled, 0, "%s: %zu rows came assembled", what, last_assembled);
        break;
    default:
        cr_assert_leq(last_assembled, ahead ? described - 1 : 0,
                      "%s: %zu of %zu described rows came assembled", what, last_assembled,
                      described);
    }
}

/* The assembly policies tests run under, the library's last. */
static const hf_i_assembly policies[] = {HF_I_ASSEMBLE_ALWAYS, HF_I_ASSEMBLE_NEVER,
                                         HF_I_ASSEMBLE_BALANCED};
enum { POLICIES = sizeof policies / sizeof policies[0] };

static void same_bytes(const hf_poset *p, const hf_gen_options *opt, hf_format format,
                       bool expect_described, const char *what)
{
    size_t la, lb, da, db;
    char *a = write_gen(p, opt, format, false, &la, &da);
    check_assembled(opt, da, what);
    /* on two threads, every row assembled and none: the same bytes */
    for (size_t k = 0; k + 1 < POLICIES && opt->threads >= 2; k++) {
        size_t lk, dk;
        hf_i_doubletree_assembly = policies[k];
        char *c = write_gen(p, opt, format, false, &lk, &dk);
        check_assembled(opt, dk, what);
        hf_i_doubletree_assembly = HF_I_ASSEMBLE_BALANCED;
        cr_assert_eq(dk, da, "%s", what);
        cr_assert_eq(lk, la, "%s: %zu bytes with policy %d, %zu by default", what, lk,
                     (int)policies[k], la);
        cr_assert(memcmp(a, c, la) == 0, "%s: the bytes differ with policy %d", what,
                  (int)policies[k]);
        free(c);
    }
    char *b = write_gen(p, opt, format, true, &lb, &db);
    cr_assert_eq(db, 0, "%s: a row reached the writer described through a caller's sink", what);
    if (expect_described)
        cr_assert_gt(da, 0, "%s: no row came with its ranges", what);
    else
        cr_assert_eq(da, 0, "%s", what);
    cr_assert_eq(la, lb, "%s: %zu bytes from ranges, %zu token by token", what, la, lb);
    cr_assert(memcmp(a, b, la) == 0, "%s: the bytes differ", what);
    free(a);
    free(b);
}

Test(gen_write, ranges_equal_tokens_on_random_forests)
{
    uint64_t rng = 0x5eed0016;
    static const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_IDS, HF_FORMAT_JSON,
                                        HF_FORMAT_BIN};
    static const char *const fname[] = {"text", "ids", "json", "bin"};
    for (int round = 0; round < 24; round++) {
        uint32_t n = 1 + tu_below(&rng, round < 12 ? 40 : 400);
        uint32_t roots = 1 + tu_below(&rng, 3);
        roots = roots > n ? n : roots;
        hf_poset *p = named_forest(n, roots, &rng);
        uint32_t focus[8];
        size_t nf = 0;
        for (uint32_t i = 0; i < 8 && i < n; i++)
            focus[nf++] = i * (n / 8 + 1) % n;
        for (int f = 0; f < 4; f++) {
            hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
            opt.threads = 1 + (unsigned)(f & 1);
            /* with a focus set (distinct events) the rows go through the emitter */
            bool focused = f >= 2 && nf == 8 && n >= 64;
            if (focused) {
                opt.focus = focus;
                opt.focus_count = nf;
            }
            if (round % 3 == 1) {
                opt.row_first = 1 + tu_below(&rng, 3);
                opt.row_last = tu_below(&rng, 2) ? opt.row_first + tu_below(&rng, 3) : 0;
            }
            uint64_t size = 0;
            hf_error err;
            if (hf_method_predict(p, &opt, &size, NULL, &err) != HF_OK || opt.row_first > size ||
                opt.row_last > size) {
                opt.row_first = opt.row_last = 0;
            }
            for (int k = 0; k < 4; k++) {
                char what[96];
                snprintf(what, sizeof what, "round %d, n %u, %s, threads %u%s", round, n, fname[k],
                         opt.threads, focused ? ", focus" : "");
                same_bytes(p, &opt, formats[k], !focused, what);
            }
        }
        hf_poset_free(p);
    }
}

/* The library's wrappers (progress, slices, the name guard, the watch) pass descriptions on to a
 * writer and to nothing else. */
static bool go_on(const hf_progress *pr, void *user)
{
    (void)pr;
    (void)user;
    return true;
}

Test(gen_write, wrappers_pass_descriptions_to_writers_only)
{
    uint64_t rng = 5;
    hf_ctx *ctx = NULL;
    cr_assert_eq(hf_ctx_new(NULL, NULL, NULL, &ctx), HF_OK);
    cr_assert_eq(hf_ctx_set_progress(ctx, go_on, NULL), HF_OK);
    hf_poset *q = named_forest(300, 2, &rng);
    hf_poset *p = tu_poset_copy(q, ctx);
    hf_family *fam = NULL;
    cr_assert_eq(hf_family_new(NULL, 300, &fam), HF_OK);
    hf_sink_watch to_family = {hf_family_sink(fam), NULL, NULL};
    cr_assert(!hf_i_sink_takes_rows(hf_sink_watch_sink(&to_family)));
    cr_assert(!hf_i_sink_takes_rows(hf_writer_sink(NULL)));
    for (int k = 0; k < 4; k++) {
        hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
        if (k & 1) { /* a slice */
            opt.row_first = 2;
            opt.row_last = 4;
        }
        if (k & 2)
            opt.max_names = 1u << 30;
        size_t la, lb, da, db;
        char *a = write_gen(p, &opt, HF_FORMAT_TEXT, false, &la, &da);
        char *b = write_gen(q, &opt, HF_FORMAT_TEXT, true, &lb, &db);
        cr_assert_gt(da, 0, "case %d", k);
        cr_assert_eq(la, lb, "case %d", k);
        cr_assert(memcmp(a, b, la) == 0, "case %d", k);
        free(a);
        free(b);
    }
    hf_family_free(fam);
    hf_poset_free(p);
    hf_poset_free(q);
    hf_ctx_free(ctx);
}

/* Descriptions that do not make a row are refused; a sequence that is not a permutation is
 * rendered as values and refused by the writer's check. */
Test(gen_write, described_rows_are_checked)
{
    uint64_t rng = 7;
    hf_poset *p = named_forest(6, 1, &rng);
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    hf_writer *w = NULL;
    cr_assert_eq(hf_writer_new(p, out, HF_FORMAT_TEXT, NULL, &w), HF_OK);
    uint32_t good[6] = {0, 1, 2, 3, 4, 5}, broken[6] = {0, 1, 1, 3, 4, 5};
    hf_i_row_range whole = {0, 0, 6}, short_range = {0, 0, 5}, beyond = {1, 2, 7};
    hf_i_rows h = {
        .n = 6, .id = hf_i_row_source_id(), .src = {good, good}, .ranges = &whole, .count = 1};
    hf_i_rows r = h;
    r.ranges = &short_range;
    cr_assert_eq(hf_i_writer_put_rows(w, &r), HF_ESCHEDULE);
    r.ranges = &beyond;
    cr_assert_eq(hf_i_writer_put_rows(w, &r), HF_ESCHEDULE);
    r = h;
    r.n = 5;
    cr_assert_eq(hf_i_writer_put_rows(w, &r), HF_ESCHEDULE);
    r = h;
    r.id = hf_i_row_source_id();
    r.src[0] = broken;
    cr_assert_eq(hf_i_writer_put_rows(w, &r), HF_ESCHEDULE);
    cr_assert_eq(hf_writer_count(w), 0);
    cr_assert_eq(hf_i_writer_put_rows(w, &h), HF_OK);
    cr_assert_eq(hf_writer_count(w), 1);
    cr_assert_eq(hf_i_writer_described(w), 1);
    cr_assert_eq(hf_writer_close(w), HF_OK);
    fclose(out);
    cr_assert(size > 0 && buf[size - 1] == '\n');
    free(buf);
    hf_poset_free(p);
}

/* The bytes of a row copied out of the renders (hf_i_writer_assemble) are the row's bytes, in
 * text and bin: those that the description alone writes (text: with its last separator), also
 * around a row of values (whose tokens the writer makes again after the renders); a
 * description that is not a row of the renders' sequences, or that has more or fewer bytes than
 * a row, assembles nothing; assembled bytes from renders the writer no longer has are refused. */
Test(gen_write, assembled_rows_are_checked)
{
    static const char *const names[] = {"a", "bb", "ccc", "dddd", "eeeee", "ffffff"};
    static const uint32_t edges[][2] = {{0, 1}};
    hf_poset *p = tu_named_poset(NULL, names, 6, edges, 1);
    uint32_t fwd[6] = {0, 1, 2, 3, 4, 5}, back[6] = {5, 4, 3, 2, 1, 0};
    hf_i_row_range two[2] = {{1, 4, 6}, {0, 2, 6}}, whole = {0, 0, 6};
    const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_BIN};
    for (int k = 0; k < 2; k++) {
        char *buf[2] = {NULL, NULL};
        size_t size[2] = {0, 0};
        hf_i_rows h = {.n = 6, .src = {fwd, back}, .ranges = two, .count = 2};
        for (int assembled = 0; assembled < 2; assembled++) {
            FILE *out = open_memstream(&buf[assembled], &size[assembled]);
            hf_writer *w = NULL;
            cr_assert_eq(hf_writer_new(p, out, formats[k], NULL, &w), HF_OK);
            h.id = hf_i_row_source_id();
            h.bytes = NULL;
            char *dst = NULL;
            if (assembled) {
                cr_assert(!hf_i_writer_assemble(w, &h, NULL), "no renders yet");
                cr_assert(hf_i_writer_ready_rows(w, &h));
                dst = malloc(hf_i_writer_assembly_size(w));
                cr_assert(hf_i_writer_assemble(w, &h, dst));
                hf_i_rows bad = h;
                bad.id = hf_i_row_source_id();
                cr_assert(!hf_i_writer_assemble(w, &bad, dst), "another id");
                bad = h;
                bad.ranges = &(hf_i_row_range){0, 0, 5};
                bad.count = 1;
                cr_assert(!hf_i_writer_assemble(w, &bad, dst), "five values");
                /* six values, not a permutation: more bytes than a row, then fewer */
                bad.ranges = (hf_i_row_range[]){{0, 3, 6}, {1, 0, 3}};
                bad.count = 2;
                cr_assert(k == 1 || !hf_i_writer_assemble(w, &bad, dst), "more bytes");
                bad.ranges = (hf_i_row_range[]){{0, 0, 3}, {1, 3, 6}};
                cr_assert(k == 1 || !hf_i_writer_assemble(w, &bad, dst), "fewer bytes");
                cr_assert(hf_i_writer_assemble(w, &h, dst)); /* the refusals left dst unusable */
                h.bytes = dst;
                hf_i_rows stale = h;
                stale.id = hf_i_row_source_id();
                cr_assert_eq(hf_i_writer_put_rows(w, &stale), HF_EINVAL);
            }
            cr_assert_eq(hf_i_writer_put_rows(w, &h), HF_OK);
            /* the same sequences again, now whole */
            hf_i_rows again = h;
            again.ranges = &whole;
            again.count = 1;
            if (assembled)
                cr_assert(hf_i_writer_assemble(w, &again, dst));
            cr_assert_eq(hf_i_writer_put_rows(w, &again), HF_OK);
            /* a row of values (its tokens, dropped once the renders held them, made again),
             * then the first description again */
            cr_assert_eq(hf_i_writer_put(w, back, 6), HF_OK);
            if (assembled)
                cr_assert(hf_i_writer_assemble(w, &h, dst));
            cr_assert_eq(hf_i_writer_put_rows(w, &h), HF_OK);
            cr_assert_eq(hf_i_writer_described(w), 3);
            cr_assert_eq(hf_i_writer_assembled(w), assembled ? 3 : 0);
            cr_assert_eq(hf_writer_close(w), HF_OK);
            cr_assert_eq(fclose(out), 0);
            free(dst);
        }
        cr_assert_eq(size[0], size[1], "format %d", k);
        cr_assert(memcmp(buf[0], buf[1], size[0]) == 0, "format %d", k);
        if (k == 0) {
            const char *expect = "bb a ccc dddd eeeee ffffff\na bb ccc dddd eeeee ffffff\n"
                                 "ffffff eeeee dddd ccc bb a\nbb a ccc dddd eeeee ffffff\n";
            size_t el = strlen(expect);
            cr_assert(size[0] >= el && memcmp(buf[0] + size[0] - el, expect, el) == 0, "%.*s",
                      (int)size[0], buf[0]);
        }
        free(buf[0]);
        free(buf[1]);
    }
    hf_poset_free(p);
}

/* The bytes of p's doubletree family in `format` through the watch, written to memory. */
static char *expected_bytes(const hf_poset *p, hf_format format, unsigned threads, size_t *len)
{
    hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
    opt.threads = threads;
    size_t described;
    char *b = write_gen(p, &opt, format, true, len, &described);
    return b;
}

/* Reads a pipe to its end, slowly at first so that the writer blocks on a full pipe. */
typedef struct drain {
    int fd;
    char *buf;
    size_t len, cap;
} drain;

static void *drain_run(void *arg)
{
    drain *d = arg;
    usleep(20000);
    for (;;) {
        if (d->len == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 1 << 16;
            d->buf = realloc(d->buf, d->cap);
            cr_assert(d->buf);
        }
        size_t want = d->cap - d->len < 4096 ? d->cap - d->len : 4096;
        ssize_t r = read(d->fd, d->buf + d->len, want);
        if (r <= 0)
            break;
        d->len += (size_t)r;
    }
    return NULL;
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* writev through a pipe, its calls cut short by a timer's signals (no SA_RESTART: a blocked
 * writev returns what it wrote, or EINTR): the same bytes arrive, with the rows built on the
 * caller's thread and on a second one (whose waits the signals may reach too). */
Test(gen_write, writev_to_a_pipe_survives_signals)
{
    uint64_t rng = 99;
    hf_poset *p = named_forest(3000, 1, &rng);
    static const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_BIN};
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
    for (int k = 0; k < 4; k++) {
        size_t elen;
        char *expect = expected_bytes(p, formats[k % 2], 1, &elen);
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        drain d = {fds[0], NULL, 0, 0};
        /* the signals go to this thread, which writes */
        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        pthread_t tid;
        cr_assert_eq(pthread_create(&tid, NULL, drain_run, &d), 0);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        struct itimerval every = {{0, 500}, {0, 500}}, off = {{0, 0}, {0, 0}};
        alarms = 0;
        cr_assert_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
        FILE *out = fdopen(fds[1], "w");
        cr_assert(out);
        hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
        opt.threads = k < 2 ? 1 : 2; /* 2: the rows built on a second thread */
        size_t described;
        write_gen_to(out, p, &opt, formats[k % 2], false, &described);
        cr_assert_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
        cr_assert_gt(described, 0);
        cr_assert_gt(alarms, 0);
        cr_assert_eq(fclose(out), 0);
        pthread_join(tid, NULL);
        close(fds[0]);
        cr_assert_eq(d.len, elen, "format %d: %zu bytes through the pipe, %zu expected", k, d.len,
                     elen);
        cr_assert(memcmp(d.buf, expect, elen) == 0, "format %d: the bytes differ", k);
        free(d.buf);
        free(expect);
    }
    hf_poset_free(p);
}

/* A file size limit stops writev part of the way: the writer reports HF_EIO, and the file holds
 * the output's first bytes, up to the limit. */
/* The text family of p written through the watch to a file limited to `limit` bytes: HF_EIO,
 * and the file holds the first `limit` bytes of `expect`. */
static void stopped_at_limit(const hf_poset *p, const char *expect, rlim_t limit, unsigned threads)
{
    FILE *out = tmpfile();
    cr_assert(out);
    hf_family_header h = {3, "doubletree", false, 0, 0, 0};
    hf_writer *w = NULL;
    cr_assert_eq(hf_writer_new(p, out, HF_FORMAT_TEXT, &h, &w), HF_OK);
    hf_sink_watch watch = {hf_writer_sink(w), NULL, NULL};
    hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
    opt.threads = threads;
    hf_error err;
    hf_status st = hf_generate(p, &opt, hf_sink_watch_sink(&watch), NULL, &err);
    hf_status cst = hf_writer_close(w);
    cr_assert(st == HF_EIO || cst == HF_EIO, "threads %u: generate %d, close %d", threads, st, cst);
    cr_assert_eq(fseek(out, 0, SEEK_END), 0);
    cr_assert_eq(ftell(out), (long)limit);
    rewind(out);
    char *got = malloc(limit);
    cr_assert_eq(fread(got, 1, limit, out), limit);
    cr_assert(memcmp(got, expect, limit) == 0, "threads %u", threads);
    fclose(out);
    free(got);
}

Test(gen_write, writev_stopped_by_a_file_limit)
{
    uint64_t rng = 17;
    hf_poset *p = named_forest(5000, 1, &rng);
    size_t elen;
    char *expect = expected_bytes(p, HF_FORMAT_TEXT, 1, &elen);
    const rlim_t limit = 100000 + 37; /* within a row, and within a piece of writev */
    cr_assert_gt(elen, 2 * limit);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {limit, limit};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    for (unsigned threads = 1; threads <= 2; threads++)
        stopped_at_limit(p, expect, limit, threads);
    free(expect);
    hf_poset_free(p);
}

/* Threads of this process (/proc/self/status), -1 when it cannot be read. */
static int threads_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    int n = -1;
    if (!f)
        return -1;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* Every allocation failing in turn (from the first, and at least until `min_fails` have been
 * tried and one run succeeded), a writer of q's copy in a chaos context fed through the watch
 * with doubletree's d = 3 family, on threads 1 and 2 alternately (`two`: always 2): HF_ENOMEM or
 * the same bytes as q's family, in each of the formats, and in each at least `min_failed` runs
 * that failed; nothing leaks, no thread is left. */
static void writer_under_chaos(const hf_poset *q, const hf_format *formats, int nformats, bool two,
                               long min_fails, size_t min_failed)
{
    tu_chaos c = {.left = -1};
    hf_ctx *ctx = tu_chaos_ctx(&c);
    hf_poset *p = tu_poset_copy(q, ctx);
    int before = threads_now();
    for (int k = 0; k < nformats; k++) {
        size_t elen;
        char *expect = expected_bytes(q, formats[k], 1, &elen);
        hf_status st = HF_ENOMEM;
        size_t ok = 0, failed = 0;
        for (long fail = 0; st == HF_ENOMEM || fail < min_fails; fail++) {
            cr_assert_lt(fail, 100000);
            char *buf = NULL;
            size_t size = 0;
            FILE *out = open_memstream(&buf, &size);
            long live = c.live;
            c.left = fail;
            hf_family_header h = {3, "doubletree", false, 0, 0, 0};
            hf_writer *w = NULL;
            st = hf_writer_new(p, out, formats[k], &h, &w);
            if (!st) {
                hf_sink_watch watch = {hf_writer_sink(w), NULL, NULL};
                hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
                opt.threads = two ? 2 : 1 + (unsigned)(fail & 1);
                hf_error err;
                st = hf_generate(p, &opt, hf_sink_watch_sink(&watch), NULL, &err);
                hf_status cst = hf_writer_close(w);
                st = st ? st : cst;
            }
            c.left = -1;
            cr_assert(st == HF_OK || st == HF_ENOMEM, "format %d, fail %ld: %d", k, fail, st);
            cr_assert_eq(c.live, live, "format %d, fail %ld: a leak", k, fail);
            cr_assert_eq(threads_now(), before, "format %d, fail %ld", k, fail);
            fclose(out);
            if (st == HF_OK) {
                ok++;
                cr_assert_eq(size, elen, "format %d, fail %ld", k, fail);
                cr_assert(memcmp(buf, expect, elen) == 0, "format %d, fail %ld", k, fail);
            } else {
                failed++;
            }
            free(buf);
        }
        cr_assert_gt(ok, 0);
        cr_assert_geq(failed, min_failed, "format %d", k);
        free(expect);
    }
    hf_poset_free(p);
    hf_ctx_free(ctx);
}

/* Every allocation failing in turn, the writer made and fed through the watch in a chaos
 * context: HF_ENOMEM, or the same bytes (the renders or the gather list missing, rows go token
 * by token); nothing leaks. */
Test(gen_write, out_of_memory_gives_the_same_bytes_or_enomem)
{
    uint64_t rng = 23;
    hf_poset *q = named_forest(200, 2, &rng);
    static const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_IDS, HF_FORMAT_JSON,
                                        HF_FORMAT_BIN};
    writer_under_chaos(q, formats, 4, false, 40, 0);
    hf_poset_free(q);
}

/* Within a scope the forest view of the same order and options is built once and kept until the
 * scope ends; other options, or no scope, give trees of their own. */
Test(gen_write, tree_scope_shares_one_view)
{
    uint64_t rng = 11;
    hf_poset *p = tu_random_forest(50, 2, &rng);
    hf_i_tree_options weighted = {HF_I_GADGET_WEIGHTED, NULL, 0};
    hf_i_tree_options none = {HF_I_GADGET_NONE, NULL, 0};
    hf_i_tree *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &a, NULL), HF_OK);
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &b, NULL), HF_OK);
    cr_assert_neq(a, b, "no scope: each call builds its own tree");
    hf_i_tree_release(a);
    hf_i_tree_release(b);
    hf_i_tree_scope scope;
    hf_i_tree_scope_begin(&scope);
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &a, NULL), HF_OK);
    hf_i_tree_release(a); /* kept by the scope: still readable */
    cr_assert_eq(hf_i_tree_shared(p, &weighted, &b, NULL), HF_OK);
    cr_assert_eq(a, b);
    cr_assert_eq(b->n_orig, 50);
    cr_assert_eq(hf_i_tree_shared(p, &none, &c, NULL), HF_OK);
    cr_assert_neq(c, a, "other options: another tree");
    hf_i_tree_release(c);
    hf_i_tree_release(b);
    hf_i_tree_scope_end(&scope); /* frees the kept tree (the leak check would see it) */
    hf_poset_free(p);
}

/* hf_sink_watch: every schedule reaches `next` (here a sink that refuses the third with errno
 * set, and those after it), `failed` hears of each refusal with its status and that errno, the
 * generator stops with it; `next` set after the sink was made is the one used; a NULL `failed`
 * is allowed. */
typedef struct refuse_third {
    unsigned seen;
} refuse_third;

static hf_status refuse_third_put(void *user, const uint32_t *s, uint32_t n)
{
    (void)s;
    (void)n;
    refuse_third *r = user;
    if (++r->seen < 3)
        return HF_OK;
    errno = ENOSPC;
    return HF_EIO;
}

typedef struct failures {
    unsigned calls;
    hf_status st;
    int err;
} failures;

static void on_failed(void *user, hf_status st)
{
    failures *f = user;
    f->calls++;
    f->st = st;
    f->err = errno;
}

Test(gen_write, sink_watch_reports_refusals)
{
    hf_poset *p = tu_antichain(6);
    hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
    hf_error err;
    refuse_third r = {0};
    failures fl = {0};
    hf_sink_watch w = {{NULL, NULL}, on_failed, &fl};
    hf_sink sink = hf_sink_watch_sink(&w);
    w.next = (hf_sink){refuse_third_put, &r}; /* set after the sink was made */
    cr_assert_eq(hf_generate(p, &opt, sink, NULL, &err), HF_EIO);
    cr_assert_eq(r.seen, 3);
    cr_assert_eq(fl.calls, 1);
    cr_assert_eq(fl.st, HF_EIO);
    cr_assert_eq(fl.err, ENOSPC);
    /* without `failed`, and into a family: every schedule, the family's own */
    hf_family *f = NULL, *g = NULL;
    cr_assert_eq(hf_family_new(NULL, 6, &f), HF_OK);
    cr_assert_eq(hf_family_new(NULL, 6, &g), HF_OK);
    hf_sink_watch plain = {hf_family_sink(f), NULL, NULL};
    cr_assert_eq(hf_generate(p, &opt, hf_sink_watch_sink(&plain), NULL, &err), HF_OK, "%s",
                 err.text);
    cr_assert_eq(hf_generate(p, &opt, hf_family_sink(g), NULL, &err), HF_OK, "%s", err.text);
    tu_assert_family_eq(f, g);
    hf_family_free(f);
    hf_family_free(g);
    hf_poset_free(p);
}

/* A pipe whose reader has gone (SIGPIPE ignored): HF_EIO with EPIPE, reported once, with the rows
 * built on one thread and on two; no thread left. */
Test(gen_write, closed_pipe_reported_once)
{
    uint64_t rng = 5;
    hf_poset *p = named_forest(4000, 1, &rng);
    int before = threads_now();
    signal(SIGPIPE, SIG_IGN);
    for (unsigned threads = 1; threads <= 2; threads++) {
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        close(fds[0]);
        FILE *out = fdopen(fds[1], "w");
        cr_assert(out);
        hf_family_header h = {3, "doubletree", false, 0, 0, 0};
        hf_writer *w = NULL;
        cr_assert_eq(hf_writer_new(p, out, HF_FORMAT_TEXT, &h, &w), HF_OK);
        failures fl = {0};
        hf_sink_watch watch = {hf_writer_sink(w), on_failed, &fl};
        hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
        opt.threads = threads;
        hf_error err;
        cr_assert_eq(hf_generate(p, &opt, hf_sink_watch_sink(&watch), NULL, &err), HF_EIO);
        cr_assert_eq(fl.calls, 1, "threads %u", threads);
        cr_assert_eq(fl.st, HF_EIO);
        cr_assert_eq(fl.err, EPIPE, "threads %u: errno %d", threads, fl.err);
        cr_assert_eq(hf_writer_close(w), HF_EIO);
        cr_assert_eq(threads_now(), before);
        fclose(out);
    }
    signal(SIGPIPE, SIG_DFL);
    hf_poset_free(p);
}

/* Orders large enough for the second threads (the writer's tokens made beside doubletree's plan,
 * in chunks of events that both threads take, and its two renders one per thread): the same bytes
 * on one thread and on two, through the watch (rows described) and token by token, in every
 * format, whole and sliced; tokens that all fit the slots, one that does not in the first half or
 * in the second, and names of every kind. No thread is left. */
Test(gen_write, second_threads_give_the_same_bytes)
{
    uint64_t rng = 0x16a;
    static const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_IDS, HF_FORMAT_JSON,
                                        HF_FORMAT_BIN};
    int before = threads_now();
    for (int round = 0; round < 6; round++) {
        uint32_t n = 2100 + tu_below(&rng, 3000);
        uint32_t roots = 1 + (uint32_t)(round % 3);
        hf_poset *p = round == 5
                          ? named_forest(n, roots, &rng)
                          : forest_named(n, roots, round % 2 ? NAMES_SHORT_QUOTED : NAMES_SHORT,
                                         round < 2   ? n
                                         : round < 4 ? tu_below(&rng, n / 2)
                                                     : n / 2 + tu_below(&rng, n / 2),
                                         &rng);
        for (int slice = 0; slice < 2; slice++) {
            hf_gen_options opt = tu_gen_options(3, HF_METHOD_DOUBLETREE, NULL, 0);
            if (slice) {
                opt.row_first = 2 + tu_below(&rng, 3);
                opt.row_last = opt.row_first + tu_below(&rng, 4);
            }
            for (int k = 0; k < 4; k++) {
                /* one thread, then two under each assembly policy, then token by token */
                enum { RUNS = 1 + POLICIES };
                size_t len[RUNS + 1], described[RUNS + 1];
                char *b[RUNS + 1];
                for (int t = 0; t < RUNS; t++) {
                    opt.threads = t == 0 ? 1 : 2;
                    hf_i_doubletree_assembly = t == 0 ? HF_I_ASSEMBLE_BALANCED : policies[t - 1];
                    b[t] = write_gen(p, &opt, formats[k], false, &len[t], &described[t]);
                    check_assembled(&opt, described[t], "second threads");
                    hf_i_doubletree_assembly = HF_I_ASSEMBLE_BALANCED;
                }
                b[RUNS] = write_gen(p, &opt, formats[k], true, &len[RUNS], &described[RUNS]);
                for (int t = 0; t < RUNS; t++) {
                    cr_assert_gt(described[t], 0, "round %d, format %d", round, k);
                    cr_assert_eq(len[t], len[RUNS], "round %d, format %d, run %d", round, k, t);
                    cr_assert(memcmp(b[t], b[RUNS], len[RUNS]) == 0, "round %d, format %d, run %d",
                              round, k, t);
                }
                for (int t = 0; t <= RUNS; t++)
                    free(b[t]);
                cr_assert_eq(threads_now(), before);
            }
        }
        hf_poset_free(p);
    }
}

/* Every allocation failing in turn on an order large enough for the second threads, on two
 * threads: HF_ENOMEM or the same bytes, nothing leaks, no thread is left (the allocations are
 * all made on the caller's thread, so the chaos context sees them in the same order). */
Test(gen_write, second_threads_out_of_memory)
{
    uint64_t rng = 0x16b;
    hf_poset *q = forest_named(2500, 2, NAMES_SHORT, 2500, &rng);
    static const hf_format formats[] = {HF_FORMAT_TEXT, HF_FORMAT_BIN};
    writer_under_chaos(q, formats, 2, true, 30, 6);
    hf_poset_free(q);
}
