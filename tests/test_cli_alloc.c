/* The installed CLI's allocator (cli/alloc.c): blocks small and large keep their bytes through
 * every growth and shrinking (in place, moved, from the C library's heap to a mapping and
 * back), are aligned as malloc's are, and large ones sit at huge page boundaries; when the
 * system refuses memory it returns NULL with the block intact, and a context using it reports
 * out of memory. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <criterion/criterion.h>
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
