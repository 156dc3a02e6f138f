/* Helpers shared by the benchmark programs (bench_util.h). */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t bench_next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void bench_die(const char *program, const char *what, hf_status st, const hf_error *err)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", program, what, hf_strerror(st), err ? err->text : "");
    exit(1);
}

hf_poset *bench_from_pairs_ctx(const char *program, hf_ctx *ctx, uint32_t n, const uint32_t *pairs,
                               size_t m)
{
    hf_poset_builder *b;
    hf_status st = hf_poset_builder_new(ctx, &b);
    char name[16];
    for (uint32_t i = 0; i < n && !st; i++) {
        snprintf(name, sizeof name, "%u", (unsigned)i);
        st = hf_poset_builder_add_event(b, name, NULL);
    }
    for (size_t i = 0; i < m && !st; i++)
        st = hf_poset_builder_add_order(b, pairs[2 * i], pairs[2 * i + 1]);
    hf_poset *p = NULL;
    hf_error err = {0};
    if (!st)
        st = hf_poset_builder_finish(b, &p, &err);
    hf_poset_builder_free(b);
    if (st)
        bench_die(program, "building an order", st, &err);
    return p;
}

hf_poset *bench_from_pairs(const char *program, uint32_t n, const uint32_t *pairs, size_t m)
{
    return bench_from_pairs_ctx(program, NULL, n, pairs, m);
}

hf_poset *bench_from_parents(const char *program, uint32_t n, const uint32_t *parent)
{
    uint32_t *pairs = malloc(2 * (size_t)(n ? n : 1) * sizeof *pairs);
    if (!pairs)
        bench_die(program, "building a tree", HF_ENOMEM, NULL);
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (parent[i] != HF_NO_EVENT) {
            pairs[2 * m] = parent[i];
            pairs[2 * m + 1] = i;
            m++;
        }
    hf_poset *p = bench_from_pairs(program, n, pairs, m);
    free(pairs);
    return p;
}
