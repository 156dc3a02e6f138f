/* The installed CLI's allocator (cli/alloc.c): blocks small and large keep their bytes through
 * every growth and shrinking (in place, moved, from the C library's heap to a mapping and
 * back), are aligned as malloc's are, and large ones sit at huge page boundaries; freed large
 * blocks are given again, and what it keeps never takes the mapped bytes past the most the
 * blocks in use needed (checked against a model of the blocks, from several threads too); when
 * the system refuses memory it returns NULL with the block intact, and a context using it
 * reports out of memory. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

TU_SUITE(cli_alloc);

#define MIB ((size_t)1 << 20)

static const hf_allocator *allocator(void)
{
    const hf_allocator *a = cli_allocator();
    cr_assert_not_null(a, "the CLI's allocator is the C library's on this system");
    return a;
}

static unsigned char byte_at(size_t i, unsigned seed) { return (unsigned char)(i * 131 + seed); }

static void fill(unsigned char *p, size_t from, size_t to, unsigned seed)
{
    for (size_t i = from; i < to; i++)
        p[i] = byte_at(i, seed);
}

/* The bytes p[0..n) are those fill wrote; checked at every 4 KiB and at the ends, so that a
 * lost page shows. */
static void check(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
    for (size_t i = 0; i < n; i += i + 4096 < n ? 4093 : 1)
        cr_assert_eq(p[i], byte_at(i, seed), "%s: byte %zu of %zu", what, i, n);
}

Test(cli_alloc, blocks_keep_their_bytes_through_every_size)
{
    const hf_allocator *a = allocator();
    /* sizes crossing the 2 MiB line both ways, growing by doubling and by small steps */
    static const size_t sizes[] = {1,        100,         1 * MIB,     2 * MIB - 1, 2 * MIB,
                                   3 * MIB,  4 * MIB + 1, 4 * MIB + 2, 9 * MIB,     16 * MIB,
                                   33 * MIB, 5 * MIB,     2 * MIB,     MIB,         64,
                                   8 * MIB,  0,           3 * MIB};
    for (unsigned seed = 0; seed < 2; seed++) {
        unsigned char *p = a->malloc(sizes[0], a->user);
        cr_assert_not_null(p);
        fill(p, 0, sizes[0], seed);
        size_t have = sizes[0];
        for (size_t k = 1; k < sizeof sizes / sizeof sizes[0]; k++) {
            /* a second block placed right after the first one's mapping, on the second pass,
             * so that growth in place is impossible and the pages must move */
            void *neighbour = seed ? a->malloc(4 * MIB, a->user) : NULL;
            unsigned char *q = a->realloc(p, sizes[k], a->user);
            cr_assert_not_null(q, "realloc to %zu", sizes[k]);
            cr_assert_eq((uintptr_t)q % _Alignof(max_align_t), 0);
            if (sizes[k] >= 2 * MIB)
                cr_assert_eq((uintptr_t)q % (2 * MIB), 0, "%zu bytes at %p", sizes[k], (void *)q);
            size_t kept = have < sizes[k] ? have : sizes[k];
            check(q, kept, seed, "after realloc");
            fill(q, kept, sizes[k], seed);
            check(q, sizes[k], seed, "filled");
            a->free(neighbour, a->user);
            p = q;
            have = sizes[k];
        }
        a->free(p, a->user);
    }
    a->free(NULL, a->user);
}

Test(cli_alloc, many_blocks_live_at_once)
{
    const hf_allocator *a = allocator();
    enum { N = 12 };
    unsigned char *p[N];
    size_t n[N];
    for (unsigned k = 0; k < N; k++) {
        n[k] = (size_t)(k % 4) * MIB + k * 977;
        p[k] = a->malloc(n[k], a->user);
        cr_assert_not_null(p[k]);
        fill(p[k], 0, n[k], k);
    }
    for (unsigned round = 0; round < 2; round++)
        for (unsigned k = 0; k < N; k++) {
            size_t m = n[k] * 2 + MIB / 3;
            p[k] = a->realloc(p[k], m, a->user);
            cr_assert_not_null(p[k]);
            fill(p[k], n[k], m, k);
            n[k] = m;
        }
    for (unsigned k = 0; k < N; k++) {
        check(p[k], n[k], k, "live block");
        a->free(p[k], a->user);
    }
}

/* Whether the page at p is mapped (msync fails with ENOMEM where nothing is). */
static bool mapped(const void *p)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *at = (void *)((uintptr_t)p & ~(pg - 1));
    if (msync(at, pg, MS_ASYNC) == 0)
        return true;
    cr_assert_eq(errno, ENOMEM);
    return false;
}

Test(cli_alloc, freed_large_blocks_are_given_again)
{
    const hf_allocator *a = allocator();
    unsigned char *p = a->malloc(8 * MIB, a->user);
    cr_assert_not_null(p);
    fill(p, 0, 8 * MIB, 1);
    a->free(p, a->user);
    cli_alloc_usage u = cli_alloc_usage_now();
    cr_assert_eq(u.live, 0);
    cr_assert_eq(u.kept, 8 * MIB, "%zu bytes kept", u.kept);
    /* the smallest kept block that holds it, its tail beyond given back */
    unsigned char *q = a->malloc(3 * MIB, a->user);
    cr_assert_eq(q, p, "a block of 3 MiB at %p, the freed one at %p", (void *)q, (void *)p);
    cr_assert(mapped(q + 4 * MIB - 1));
    cr_assert(!mapped(q + 4 * MIB), "the tail of the kept block is still mapped");
    u = cli_alloc_usage_now();
    cr_assert_eq(u.live, 4 * MIB);
    cr_assert_eq(u.kept, 0);
    fill(q, 0, 3 * MIB, 2);
    /* a larger block grows the kept one that is smaller than it, its bytes aside */
    a->free(q, a->user);
    unsigned char *r = a->malloc(10 * MIB, a->user);
    cr_assert_not_null(r);
    cr_assert_eq((uintptr_t)r % (2 * MIB), 0);
    u = cli_alloc_usage_now();
    cr_assert_eq(u.live, 10 * MIB);
    cr_assert_eq(u.kept, 0);
    cr_assert_eq(u.peak, 10 * MIB);
    fill(r, 0, 10 * MIB, 3);
    check(r, 10 * MIB, 3, "grown from a kept block");
    a->free(r, a->user);
}

/* A model of the large blocks in use: their mapped bytes (whole huge pages) and the most they
 * ever came to, which the allocator's mapped bytes (in use and kept) must never pass. A block
 * is mapped when made of 2 MiB or more, or grown to that, and stays mapped when it shrinks. */
typedef struct model {
    size_t live, peak;
} model;

static size_t mapped_len(size_t size)
{
    return size ? (size + 2 * MIB - 1) & ~(2 * MIB - 1) : 2 * MIB;
}

/* Block *len mapped bytes (0: the C library's) now `size` bytes (freed: SIZE_MAX). */
static void model_set(model *m, size_t *len, size_t size)
{
    m->live -= *len;
    *len = size == SIZE_MAX ? 0 : *len || size >= 2 * MIB ? mapped_len(size) : 0;
    m->live += *len;
    if (m->live > m->peak)
        m->peak = m->live;
}

static void check_usage(const model *m, const char *what, int step)
{
    cli_alloc_usage u = cli_alloc_usage_now();
    cr_assert_eq(u.live, m->live, "%s, step %d: %zu bytes in use, the model %zu", what, step,
                 u.live, m->live);
    cr_assert_eq(u.peak, m->peak, "%s, step %d: peak %zu, the model %zu", what, step, u.peak,
                 m->peak);
    cr_assert_leq(u.live + u.kept, u.peak, "%s, step %d: %zu in use and %zu kept past the peak",
                  what, step, u.live, u.kept);
}

/* Random mallocs, reallocs and frees of blocks small and large (around the huge page lines, up
 * to 12 MiB) keep their bytes, and the mapped bytes follow the model after every step. */
Test(cli_alloc, kept_blocks_never_pass_the_peak)
{
    const hf_allocator *a = allocator();
    enum { N = 8, STEPS = 1000 };
    unsigned char *p[N] = {0};
    size_t n[N] = {0};
    unsigned seed[N] = {0};
    size_t len[N] = {0};
    model m = {0};
    uint64_t rng = 0x5eed0a11u;
    for (int step = 0; step < STEPS; step++) {
        unsigned k = (unsigned)tu_below(&rng, N);
        size_t size = tu_below(&rng, 4) == 0
                          ? tu_below(&rng, 3 * MIB)
                          : (1 + tu_below(&rng, 6)) * 2 * MIB + tu_below(&rng, 3) - 1;
        if (p[k] && tu_below(&rng, 3) == 0) {
            check(p[k], n[k], seed[k], "before free");
            a->free(p[k], a->user);
            model_set(&m, &len[k], SIZE_MAX);
            p[k] = NULL;
            n[k] = 0;
            check_usage(&m, "free", step);
            continue;
        }
        size_t kept = 0;
        if (!p[k]) {
            p[k] = a->malloc(size, a->user);
            seed[k] = (unsigned)step;
        } else {
            p[k] = a->realloc(p[k], size, a->user);
            kept = n[k] < size ? n[k] : size;
        }
        cr_assert_not_null(p[k], "step %d: %zu bytes", step, size);
        check(p[k], kept, seed[k], "after realloc");
        fill(p[k], kept, size, seed[k]);
        model_set(&m, &len[k], size);
        n[k] = size;
        check_usage(&m, "malloc or realloc", step);
    }
    for (unsigned k = 0; k < N; k++) {
        check(p[k], n[k], seed[k], "at the end");
        a->free(p[k], a->user);
    }
}

/* Threads allocating, growing and freeing large blocks at once keep every block's bytes, and
 * leave nothing in use. */
static void *churn(void *arg)
{
    const hf_allocator *a = cli_allocator();
    unsigned id = (unsigned)(uintptr_t)arg;
    uint64_t rng = 0x5eed0b00u + id;
    for (int step = 0; step < 200; step++) {
        size_t size = (1 + tu_below(&rng, 5)) * MIB + tu_below(&rng, 1000);
        unsigned char *p = a->malloc(size, a->user);
        if (!p)
            return "malloc failed";
        fill(p, 0, size, id);
        size_t more = size + tu_below(&rng, 6) * MIB;
        unsigned char *q = a->realloc(p, more, a->user);
        if (!q)
            return "realloc failed";
        for (size_t i = 0; i < size; i += 4093)
            if (q[i] != byte_at(i, id))
                return "a byte changed";
        a->free(q, a->user);
    }
    return NULL;
}

Test(cli_alloc, threads_allocate_at_once)
{
    allocator();
    enum { T = 4 };
    pthread_t th[T];
    for (unsigned t = 0; t < T; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, churn, (void *)(uintptr_t)t), 0);
    for (unsigned t = 0; t < T; t++) {
        void *res;
        cr_assert_eq(pthread_join(th[t], &res), 0);
        cr_assert_null(res, "thread %u: %s", t, (const char *)res);
    }
    cli_alloc_usage u = cli_alloc_usage_now();
    cr_assert_eq(u.live, 0);
    cr_assert_leq(u.kept, u.peak);
}

/* The address space limited to what is mapped now and `room` more (in this test's process
 * alone: Criterion runs each test in its own). */
static void limit_address_space(size_t room)
{
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert_not_null(f);
    unsigned long pages = 0;
    cr_assert_eq(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_AS, &rl), 0);
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + room;
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
}

Test(cli_alloc, refusals_return_null_and_keep_the_block)
{
    const hf_allocator *a = allocator();
    unsigned char *p = a->malloc(4 * MIB, a->user);
    unsigned char *s = a->malloc(1000, a->user);
    cr_assert(p && s);
    fill(p, 0, 4 * MIB, 7);
    fill(s, 0, 1000, 8);
    limit_address_space(64 * MIB);
    cr_assert_null(a->malloc(512 * MIB, a->user));
    cr_assert_null(a->realloc(p, 512 * MIB, a->user));
    check(p, 4 * MIB, 7, "after a refused growth");
    cr_assert_null(a->realloc(s, 512 * MIB, a->user));
    check(s, 1000, 8, "after a refused move to a mapping");
    cr_assert_null(a->malloc(SIZE_MAX - 100, a->user));
    cr_assert_null(a->realloc(p, SIZE_MAX - 100, a->user));
    a->free(p, a->user);
    a->free(s, a->user);
}

Test(cli_alloc, a_context_reports_out_of_memory)
{
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's own allocator ends the process when the address space runs out */
    cr_skip_test("under AddressSanitizer");
#endif
    /* a chain of 400,000 events, whose tables outgrow the room left */
    size_t cap = 16 * MIB, len = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    len += (size_t)sprintf(text, "digraph {\n");
    for (unsigned i = 1; i < 400000; i++)
        len += (size_t)sprintf(text + len, "e%u -> e%u;\n", i - 1, i);
    len += (size_t)sprintf(text + len, "}\n");
    hf_ctx *ctx = NULL;
    cr_assert_eq(hf_ctx_new(allocator(), NULL, NULL, &ctx), HF_OK);
    hf_poset *p = NULL;
    hf_error err;
    cr_assert_eq(hf_dot_read_mem(ctx, text, len, &p, &err), HF_OK, "%s", err.text);
    cr_assert_eq(hf_poset_size(p), 400000);
    hf_poset_free(p);
    p = NULL;
    limit_address_space(8 * MIB);
    hf_status st = hf_dot_read_mem(ctx, text, len, &p, &err);
    cr_assert_eq(st, HF_ENOMEM, "%s", hf_strerror(st));
    cr_assert_null(p);
    cr_assert_str_eq(err.text, "out of memory");
    hf_ctx_free(ctx);
    free(text);
}
