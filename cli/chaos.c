/* TEST-ONLY, linked into hitfam-chaos (never installed), not into hitfam: the allocator of the
 * commands' contexts fails on request, so that tests/cli_chaos.py reaches each out-of-memory path.
 * Allocation number HITFAM_CHAOS_FAIL_AT (1-based) fails, and with HITFAM_CHAOS_MODE=all every
 * later one too. With HITFAM_CHAOS_COUNT set, the number of allocations is printed to stderr at
 * exit. Only the contexts' allocations fail: GMP, libcgraph and the CLI's own buffers use
 * malloc. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static struct {
    long fail_at, calls;
    bool all;
} chaos;

static bool chaos_fails(void)
{
    long k = ++chaos.calls;
    return chaos.fail_at > 0 && (k == chaos.fail_at || (chaos.all && k > chaos.fail_at));
}

static void *chaos_malloc(size_t size, void *user)
{
    (void)user;
    return chaos_fails() ? NULL : malloc(size);
}

static void *chaos_realloc(void *ptr, size_t size, void *user)
{
    (void)user;
    return chaos_fails() ? NULL : realloc(ptr, size);
}

static void chaos_free(void *ptr, void *user)
{
    (void)user;
    free(ptr);
}

static void chaos_count(void) { fprintf(stderr, "hitfam-chaos: %ld allocations\n", chaos.calls); }

const hf_allocator *cli_allocator(void)
{
    static hf_allocator a = {.malloc = chaos_malloc, .realloc = chaos_realloc, .free = chaos_free};
    static bool set;
    if (!set) {
        const char *k = getenv("HITFAM_CHAOS_FAIL_AT"), *mode = getenv("HITFAM_CHAOS_MODE");
        chaos.fail_at = k ? strtol(k, NULL, 10) : 0;
        chaos.all = mode && strcmp(mode, "all") == 0;
        if (getenv("HITFAM_CHAOS_COUNT"))
            atexit(chaos_count);
        set = true;
    }
    return &a;
}
