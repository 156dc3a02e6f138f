/* The allocator of the installed hitfam. (The test-only hitfam-chaos links cli/chaos.c instead,
 * whose allocator fails on request.)
 *
 * Small blocks are the C library's. A large block (LARGE bytes or more: on a large order, its
 * tables, the forest's views, the writer's tokens) gets a mapping of its own that starts at a
 * huge page boundary and spans whole huge pages, advised to transparent huge pages where the
 * system offers them: a 2 MiB page is one fault instead of 512, and random access misses the
 * address cache less. Such a block grows with mremap, which moves its pages instead of copying
 * them (the tables a reader doubles again and again cost no copy), in place where the addresses
 * after it are free. A header right before each block says which kind it is; a mapped block's
 * header has the page before the block to itself. Any failure returns NULL: the library then
 * reports out of memory, and the CLI says so.
 *
 * A freed mapped block is kept, up to CACHE_SLOTS of them, and given again to a later large
 * block: its pages are already the process's, where a new mapping's are each a fault and a
 * page of zeros (and, on a virtual machine whose host took back memory the guest left free, a
 * fault of the host's too). A block asks first for the smallest kept one that holds it (its
 * tail beyond the block given back to the system), else grows the largest kept one smaller
 * than it. Kept blocks never raise the peak: before new pages are mapped, kept blocks are
 * given back until the mapped bytes (in use and kept) are at most the most the blocks in use
 * ever had, or the new total in use when that is more. */
#if defined(__linux__)
#define _GNU_SOURCE /* mremap */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Under AddressSanitizer every block stays the C library's (the sanitizer's), so that an access
 * past the end of a large block is caught as for any other; tests/test_cli_alloc.c builds the
 * allocator itself all the same (HF_CLI_ALLOC_UNSANITIZED). */
#if defined(HF_CLI_ALLOC_UNSANITIZED)
#elif defined(__SANITIZE_ADDRESS__)
#define HF_CLI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HF_CLI_SANITIZED 1
#endif
#endif

#if defined(__linux__) && defined(MREMAP_MAYMOVE) && defined(MREMAP_FIXED) &&                      \
    !defined(HF_CLI_SANITIZED)

/* The header before each block: the block's size as asked, and for a mapped block the length of
 * its part of the mapping (a multiple of HUGE; 0 for the C library's blocks). Its size keeps the
 * block aligned as malloc's are. */
typedef union header {
    struct {
        size_t size, map_len;
    };
    max_align_t align;
} header;

#define HUGE  ((size_t)2 << 20)
#define LARGE HUGE

static size_t page; /* the system's page size */

/* The freed mapped blocks kept (at: the block, len: its map_len), and the bytes mapped for
 * blocks in use (live), kept (kept) and the most ever in use (peak), under lock: the library's
 * threads allocate at once. */
#define CACHE_SLOTS 32
static struct kept_block {
    char *at;
    size_t len;
} cache[CACHE_SLOTS];
static unsigned cache_count;
static size_t live, kept, peak;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Kept block k taken out of the cache. */
static struct kept_block take(unsigned k)
{
    struct kept_block b = cache[k];
    cache[k] = cache[--cache_count];
    kept -= b.len;
    return b;
}

/* Room made before the blocks in use come to `after` bytes mapped (kept blocks taken out
 * counted in it): the peak raised to it, then kept blocks given back to the system, the last
 * kept first, until after + kept is at most the peak. */
static void make_room(size_t after)
{
    if (after > peak)
        peak = after;
    while (cache_count && after + kept > peak) {
        struct kept_block b = take(cache_count - 1);
        munmap(b.at - page, page + b.len);
    }
}

/* The length of a mapped block of `size` bytes: whole huge pages; 0 when too large. */
static size_t map_len_for(size_t size)
{
    if (size > SIZE_MAX - 4 * HUGE)
        return 0;
    return size ? (size + HUGE - 1) & ~(HUGE - 1) : HUGE;
}

static header *header_of(void *ptr) { return (header *)ptr - 1; }

/* A block of len bytes (map_len_for) at a huge page boundary, mapped with the page before it
 * (the header's), advised to huge pages; NULL when no mapping is left. */
static char *map_aligned(size_t len)
{
    size_t total = len + HUGE;
    char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + page + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (a - page > m)
        munmap(m, (size_t)(a - page - m));
    if (a + len < m + total)
        munmap(a + len, (size_t)(m + total - (a + len)));
#ifdef MADV_HUGEPAGE
    madvise(a - page, page + len, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#endif
    return a;
}

static void *grow_mapped(char *ptr, size_t len);

/* A mapped block of `size` bytes: a kept one when one holds it (its tail beyond given back),
 * else the largest kept one grown, else a new mapping. Under lock. */
static void *map_block_locked(size_t size)
{
    size_t len = map_len_for(size);
    if (!len)
        return NULL;
    unsigned fit = CACHE_SLOTS, below = CACHE_SLOTS;
    for (unsigned k = 0; k < cache_count; k++) {
        size_t l = cache[k].len;
        if (l >= len && (fit == CACHE_SLOTS || l < cache[fit].len))
            fit = k;
        if (l < len && (below == CACHE_SLOTS || l > cache[below].len))
            below = k;
    }
    char *a;
    if (fit < CACHE_SLOTS) {
        struct kept_block b = take(fit);
        if (b.len > len)
            munmap(b.at + len, b.len - len);
        a = b.at;
        make_room(live + len);
    } else if (below < CACHE_SLOTS) {
        struct kept_block b = take(below);
        make_room(live + len);
        a = grow_mapped(b.at, len); /* (a kept block's header still says its map_len) */
        if (!a) {
            munmap(b.at - page, page + b.len);
            return NULL;
        }
    } else {
        make_room(live + len);
        if (!(a = map_aligned(len)))
            return NULL;
    }
    live += len;
    header *h = header_of(a);
    h->size = size;
    h->map_len = len;
    return a;
}

static void *map_block(size_t size)
{
    pthread_mutex_lock(&lock);
    void *a = map_block_locked(size);
    pthread_mutex_unlock(&lock);
    return a;
}

/* Mapped block ptr grown to len bytes (more than it has) without a copy: in place when the
 * addresses after it are free, else its pages moved, in one call, to the start of a new place
 * of len bytes at a huge page boundary (so that huge pages move whole), which the call makes
 * one mapping with them. NULL when that fails, the block unchanged. */
static void *grow_mapped(char *ptr, size_t len)
{
    size_t old = header_of(ptr)->map_len;
    if (mremap(ptr - page, page + old, page + len, 0) != MAP_FAILED)
        return ptr;
    char *a = map_aligned(len);
    if (!a)
        return NULL;
    if (mremap(ptr - page, page + old, page + len, MREMAP_MAYMOVE | MREMAP_FIXED, a - page) ==
        MAP_FAILED) {
        munmap(a - page, page + len);
        return NULL;
    }
    return a;
}

static void *cli_malloc(size_t size, void *user)
{
    (void)user;
    if (size >= LARGE)
        return map_block(size);
    header *h = malloc(sizeof(header) + size);
    if (!h)
        return NULL;
    h->size = size;
    h->map_len = 0;
    return h + 1;
}

static void cli_free(void *ptr, void *user)
{
    (void)user;
    if (!ptr)
        return;
    header *h = header_of(ptr);
    if (!h->map_len) {
        free(h);
        return;
    }
    pthread_mutex_lock(&lock);
    live -= h->map_len;
    if (cache_count < CACHE_SLOTS) {
        cache[cache_count++] = (struct kept_block){ptr, h->map_len};
        kept += h->map_len;
    } else {
        munmap((char *)ptr - page, page + h->map_len);
    }
    pthread_mutex_unlock(&lock);
}

static void *cli_realloc(void *ptr, size_t size, void *user)
{
    if (!ptr)
        return cli_malloc(size, user);
    header *h = header_of(ptr);
    if (h->map_len) {
        /* a mapped block stays one */
        size_t len = map_len_for(size), old = h->map_len;
        if (!len)
            return NULL;
        pthread_mutex_lock(&lock);
        if (len < old) {
            munmap((char *)ptr + len, old - len);
            live -= old - len;
        } else if (len > old) {
            make_room(live + len - old);
            void *moved = grow_mapped(ptr, len);
            if (!moved) {
                pthread_mutex_unlock(&lock);
                return NULL;
            }
            ptr = moved;
            live += len - old;
        }
        pthread_mutex_unlock(&lock);
        h = header_of(ptr);
        h->map_len = len;
        h->size = size;
        return ptr;
    }
    if (size < LARGE) {
        header *m = realloc(h, sizeof(header) + size);
        if (!m)
            return NULL;
        m->size = size;
        return m + 1;
    }
    /* from the C library's heap to a mapping: the one copy of a growing block */
    void *big = map_block(size);
    if (!big)
        return NULL;
    memcpy(big, ptr, h->size);
    free(h);
    return big;
}

/* The page size, once (0: one this allocator does not expect). */
static void find_page(void)
{
    long p = sysconf(_SC_PAGESIZE);
    page = p <= 0 || (size_t)p > HUGE || ((size_t)p & ((size_t)p - 1)) != 0 ? 0 : (size_t)p;
}

const hf_allocator *cli_allocator(void)
{
    static const hf_allocator a = {.malloc = cli_malloc, .realloc = cli_realloc, .free = cli_free};
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_page);
    return page ? &a : NULL; /* (a page size it does not expect: the C library's) */
}

cli_alloc_usage cli_alloc_usage_now(void)
{
    pthread_mutex_lock(&lock);
    cli_alloc_usage u = {live, kept, peak};
    pthread_mutex_unlock(&lock);
    return u;
}

#else

const hf_allocator *cli_allocator(void) { return NULL; }

cli_alloc_usage cli_alloc_usage_now(void) { return (cli_alloc_usage){0, 0, 0}; }

#endif
